"""Ruby values for folding: string literals (``'...'``, ``"..."`` with ``#{...}`` interpolated), ``+``
concatenation, symbols (``:get``), constants (``BASE``, ``Shop::BASE``: looked for in the modules and classes
around the reference, innermost first, then from the top, across the files of the reading file's microservice),
locals and instance variables set in the class (``@base``), ``format``/``sprintf`` with ``%s``/``%d``, ``URI(x)``/``URI.parse(x)`` (the URL itself),
``.freeze``/``.to_s``, and environment reads (``ENV['X']``, ``ENV.fetch('X', 'default')``, ``ENV['X'] ||
'default'``): the variable, settled with the project's deployment environment."""

from __future__ import annotations

import re

from ...model import FileFacts
from ..folding import (
    ENV_OPEN,
    Folded,
    Folder,
    env,
    literal,
    named_unknown,
    printf,
    split_top,
    unescape,
    unknown,
)
from ..symbols import Table

ENV_READERS = frozenset({"ENV.fetch"})
#: calls whose value is their first argument (a URL object made from a string)
PASS_THROUGH = frozenset({"URI", "URI.parse", "Kernel.URI"})

_TOKEN = re.compile("|".join((
    r"(?P<sq>'(?:[^'\\]|\\.)*')",
    r'(?P<dq>"(?:[^"\\]|\\.)*")',
    r"(?P<sym>:[A-Za-z_]\w*[?!]?)",
    r"(?P<num>\d[\w.]*)",
    r"(?P<name>@?[A-Za-z_]\w*[?!]?(?:\s*(?:::|\.)\s*[A-Za-z_]\w*[?!]?)*)",
    r"(?P<op>[+(),%])",
    r"(?P<ws>\s+)",
    r"(?P<other>.)",
)))


def ruby_tokens(text: str) -> list[tuple[str, str]]:
    """A Ruby expression as the shared folder's tokens: ``A::B`` is the name ``A.B``, ``@x`` the name ``this.x``,
    a double-quoted string its literal pieces and interpolated expressions joined with ``+``."""
    out: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(text):
        kind, value = match.lastgroup or "other", match.group()
        if kind == "ws":
            continue
        if kind == "sq":
            out.append(("str", value))
        elif kind == "dq":
            out += _interpolated(value[1:-1])
        elif kind == "sym":
            out.append(("str", "'" + value[1:] + "'"))
        elif kind == "name" and out and out[-1] == ("other", ".") and value in ("freeze", "to_s", "dup"):
            out.pop()   # ``'...'.freeze``: the value itself
        elif kind == "name":
            name = re.sub(r"\s*(::|\.)\s*", ".", value)
            out.append(("name", "this." + name[1:] if name.startswith("@") else name))
        else:
            out.append((kind, value))
    return out


def _interpolated(body: str) -> list[tuple[str, str]]:
    """``"a#{x}b"`` as ``("a" + (x) + "b")``."""
    parts: list[list[tuple[str, str]]] = []
    last = index = 0
    while index < len(body):
        if body[index] == "\\":
            index += 2
            continue
        if body.startswith("#{", index):
            depth, end = 1, index + 2
            while end < len(body) and depth:
                depth += {"{": 1, "}": -1}.get(body[end], 0)
                end += 1
            if index > last:
                parts.append([("str", '"' + body[last:index] + '"')])
            parts.append([("op", "("), *ruby_tokens(body[index + 2:end - 1]), ("op", ")")])
            last = index = end
            continue
        index += 1
    if last < len(body) or not parts:
        parts.append([("str", '"' + body[last:] + '"')])
    out: list[tuple[str, str]] = [("op", "(")]
    for position, part in enumerate(parts):
        if position:
            out.append(("op", "+"))
        out += part
    return [*out, ("op", ")")]


class RubyConstants:
    """Every constant the project's Ruby files assign, by its full name (``Shop.BASE``): the value as written, the
    file and the key of the module or class it is assigned in ("" for the file)."""

    def __init__(self, table: Table) -> None:
        self.by_name: dict[str, list[tuple[str, FileFacts, str]]] = {}
        #: file path -> its microservice (a constant of another service is none of a file's: Ruby never loads it)
        self.service_of: dict[str, str | None] = {}
        for bound in table.files.values():
            facts = bound.facts
            if facts.language != "ruby":
                continue
            self.service_of[facts.path] = bound.ctx.microservice
            for sym in facts.symbols:
                if sym.kind == "field" and "const" in sym.modifiers and "value" in sym.extra:
                    self.by_name.setdefault(sym.key, []).append((sym.extra["value"], facts, sym.parent or ""))


class RubyFolder(Folder):
    """Folds a Ruby expression written in ``facts`` inside the module or class ``class_key`` ("" outside one)."""

    env_tables = frozenset({"ENV"})

    def __init__(self, constants: RubyConstants, facts: FileFacts, class_key: str,
                 microservice: str | None = None) -> None:
        super().__init__()
        self.constants, self.facts, self.class_key = constants, facts, class_key
        #: the microservice the expression is read in: constants of other services' files are not looked at
        self.microservice = microservice

    def fold(self, text: str) -> Folded:
        text = text.strip()
        parts = split_top(text, "||")
        if len(parts) == 2:
            value, default = self.fold(parts[0]), self.fold(parts[1])
            marker = re.fullmatch(f"{ENV_OPEN}([^\x02\x1e]*)\x02", value.text)
            if marker is not None and default.known:
                return env(marker.group(1), default.text)
            return value if value.known and value.text else unknown("a value with a default (||) that is not known")
        if not text:
            return unknown("empty expression")
        if self.depth > 12:
            return unknown("values refer to each other too deeply")
        self.depth += 1
        try:
            value, rest = self._sum(ruby_tokens(text))
            return value if not rest else unknown(f"not a constant expression: {text[:80]}")
        finally:
            self.depth -= 1

    def string(self, kind: str, text: str) -> Folded:
        if text.startswith("'"):
            return literal(re.sub(r"\\([\\'])", r"\1", text[1:-1]))
        return literal(unescape(text[1:-1]))

    def name(self, name: str) -> Folded:
        if name.startswith("this."):
            found = self.member(name[5:], ("this",))
            return found if found is not None else named_unknown(name[5:], f"@{name[5:]} is not set to a constant")
        stem, dot, last = name.rpartition(".")
        if dot and last in ("freeze", "to_s", "dup"):
            return self.name(stem)
        head = name.split(".", 1)[0]
        if not head[:1].isupper():
            if "." in name:
                return unknown(f"the result of {name}")
            found = self.local(name)
            return found if found is not None else named_unknown(name, f"{name} is known at run time only")
        if "." not in name:
            found = self.local(name)   # a constant of the module or class around, or the file's
            if found is not None:
                return found
        return self.constant(name)

    def constant(self, name: str) -> Folded:
        """``X`` or ``A.B.X`` as Ruby looks a constant up: under each module or class around, then from the top."""
        outer = self.class_key.split(".") if self.class_key else []
        for cut in range(len(outer), -1, -1):
            full = ".".join([*outer[:cut], name])
            candidates = [c for c in self.constants.by_name.get(full, []) if self.microservice is None
                          or self.constants.service_of.get(c[1].path, self.microservice) == self.microservice]
            if len(candidates) > 1:
                return unknown(f"{name.replace('.', '::')} is assigned {len(candidates)} times")
            if candidates:
                expr, facts, class_key = candidates[0]
                inner = RubyFolder(self.constants, facts, class_key, self.microservice)
                inner.depth = self.depth + 1
                inner.at(facts, class_key, 1 << 30)
                return inner.fold(expr)
        return unknown(f"{name.replace('.', '::')} is not a constant")

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        found = self.env_call(name, args, ENV_READERS)
        if found is not None:
            return found
        if name in PASS_THROUGH and len(args) == 1:
            return self.fold_tokens(args[0])
        if name in ("format", "sprintf", "Kernel.format") and args:
            return printf(self.fold_tokens(args[0]), [self.fold_tokens(a) for a in args[1:]], "sd", name)
        if name.endswith((".freeze", ".to_s", ".dup")) and not args:
            return self.fold(name.rsplit(".", 1)[0])
        return unknown(f"the result of {name}(...)")

    def chained(self, value: Folded, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        return value if method in ("freeze", "to_s", "dup") and not args else super().chained(value, method, args)

    def method_of_string(self, template: Folded, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        return self.chained(template, method, args)
