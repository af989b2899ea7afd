"""PHP values for folding: string literals (``'...'``, ``"..."`` with ``$x`` / ``{$this->x}`` interpolated),
``.`` concatenation, class constants (``self::X``, ``static::X``, ``Type::X`` of any project class), locals and
properties (``$this->x`` set by an initialiser or in a method), ``sprintf`` with ``%s``/``%d``, environment
reads (``getenv('X')``, ``$_ENV['X']``, ``$_SERVER['X']``) and a default given with ``?:`` or ``??``
(``getenv('X') ?: 'http://d'``: the variable, with that default)."""

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
    unescape,
    unknown,
)
from ..symbols import Table

ENV_READERS = frozenset({"getenv"})

_TOKEN = re.compile("|".join((
    r"(?P<sq>'(?:[^'\\]|\\.)*')",
    r'(?P<dq>"(?:[^"\\]|\\.)*")',
    r"(?P<this>\$this\s*(?:->|\?->)\s*[A-Za-z_]\w*)",
    r"(?P<var>\$[A-Za-z_]\w*)",
    r"(?P<scoped>\\?[A-Za-z_][\w\\]*\s*::\s*[A-Za-z_]\w*)",
    r"(?P<num>\d[\w.]*)",
    r"(?P<name>\\?[A-Za-z_][\w\\]*)",
    r"(?P<arrow>->\s*[A-Za-z_]\w*)",
    r"(?P<op>[.(),])",
    r"(?P<ws>\s+)",
    r"(?P<other>.)",
)))
_INTERPOLATION = re.compile(r"\{(\$[^{}]+)\}|\$\{([A-Za-z_]\w*)\}|(\$this->[A-Za-z_]\w*|\$[A-Za-z_]\w*)")


def php_tokens(text: str) -> list[tuple[str, str]]:
    """A PHP expression as the shared folder's tokens: ``.`` is ``+``, ``$this->x`` the name ``this.x``,
    ``A::X`` the name ``A.X``, a double-quoted string its literal pieces and interpolated names."""
    out: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(text):
        kind, value = match.lastgroup or "other", match.group()
        if kind == "ws":
            continue
        if kind == "sq":
            out.append(("str", value))
        elif kind == "dq":
            out += _interpolated(value[1:-1])
        elif kind == "this":
            out.append(("name", "this." + re.split(r"->\s*", value)[-1].strip()))
        elif kind == "var":
            out.append(("name", value))
        elif kind == "scoped":
            owner, _, member = re.sub(r"\s+", "", value).partition("::")
            out.append(("name", owner.lstrip("\\").replace("\\", ".") + "." + member))
        elif kind == "name":
            out.append(("name", value.lstrip("\\").replace("\\", ".")))
        elif kind == "arrow":
            out.append(("other", value))   # a property or method of something else: not folded
        elif kind == "op":
            out.append(("op", "+" if value == "." else value))
        else:
            out.append((kind, value))
    return out


def _interpolated(body: str) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = []
    last = 0
    for match in _INTERPOLATION.finditer(body):
        if match.start() > last:
            parts.append(("str", '"' + body[last:match.start()] + '"'))
        inner = match.group(1) or ("$" + match.group(2) if match.group(2) else match.group(3))
        tokens = php_tokens(inner)
        parts += [("op", "("), *tokens, ("op", ")")] if len(tokens) > 1 else tokens
        last = match.end()
    if last < len(body) or not parts:
        parts.append(("str", '"' + body[last:] + '"'))
    out: list[tuple[str, str]] = [("op", "(")]
    for index, part in enumerate(parts):
        if index and part != ("op", ")") and out[-1] != ("op", "("):
            if not (part[0] == "op" and part[1] == ")"):
                out.append(("op", "+"))
        out.append(part)
    return [*out, ("op", ")")]


def _split_default(text: str) -> tuple[str, str, str]:
    """``a ?: b`` / ``a ?? b`` at the top level -> (a, operator, b); else (text, "", "")."""
    depth, quote, index = 0, "", 0
    while index < len(text) - 1:
        ch = text[index]
        if quote:
            if ch == "\\":
                index += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and text[index:index + 2] in ("?:", "??"):
            return text[:index].strip(), text[index:index + 2], text[index + 2:].strip()
        index += 1
    return text, "", ""


class PHPConstants:
    """Every class constant of the project, by (class name, constant name)."""

    def __init__(self, table: Table) -> None:
        self.by_type: dict[tuple[str, str], list[tuple[str, FileFacts, str]]] = {}
        for bound in table.files.values():
            if bound.facts.language != "php":
                continue
            for sym in bound.facts.symbols:
                if sym.kind == "field" and "const" in sym.modifiers and "value" in sym.extra and sym.parent:
                    self.by_type.setdefault((sym.parent, sym.name), []).append((sym.extra["value"], bound.facts,
                                                                                 sym.parent))


class PHPFolder(Folder):
    """Folds a PHP expression written in ``facts`` inside the class ``class_key`` ("" outside a class)."""

    env_tables = frozenset({"$_ENV", "$_SERVER"})

    def __init__(self, constants: PHPConstants, facts: FileFacts, class_key: str) -> None:
        super().__init__()
        self.constants, self.facts, self.class_key = constants, facts, class_key

    def fold(self, text: str) -> Folded:
        text = text.strip()
        left, operator, right = _split_default(text)
        if operator:
            return self.with_default(self.fold(left), self.fold(right), operator)
        if not text:
            return unknown("empty expression")
        if self.depth > 12:
            return unknown("values refer to each other too deeply")
        self.depth += 1
        try:
            value, rest = self._sum(php_tokens(text))
            return value if not rest else unknown(f"not a constant expression: {text[:80]}")
        finally:
            self.depth -= 1

    def with_default(self, value: Folded, default: Folded, operator: str) -> Folded:
        marker = re.fullmatch(f"{ENV_OPEN}([^\x02\x1e]*)\x02", value.text)
        if marker is not None and default.known:
            return env(marker.group(1), default.text)
        if value.known and value.text:
            return value
        return unknown(f"a value with a default ({operator}) that is not known")

    def string(self, kind: str, text: str) -> Folded:
        if text.startswith("'"):
            return literal(re.sub(r"\\([\\'])", r"\1", text[1:-1]))
        return literal(unescape(text[1:-1]))

    def name(self, name: str) -> Folded:
        if name.startswith("$"):
            found = self.local(name)
            return found if found is not None else named_unknown(name[1:], f"{name} is known at run time only")
        if name.startswith("this."):
            found = self.member(name[5:], ("this",))
            return found if found is not None else named_unknown(name[5:], f"$this->{name[5:]} is not set "
                                                                                 "to a constant")
        owner, dot, constant = name.rpartition(".")
        if not dot:
            return unknown(f"{name} is not a constant")
        if owner in ("self", "static"):
            owner = self.class_key
        else:
            owner = self.imported(owner)
        candidates = self.constants.by_type.get((owner, constant), [])
        if len(candidates) != 1:
            return unknown(f"{name.replace('.', '::')} is not a constant" if not candidates
                           else f"{name} names {len(candidates)} constants")
        expr, facts, class_key = candidates[0]
        inner = PHPFolder(self.constants, facts, class_key)
        inner.depth = self.depth + 1
        return inner.fold(expr)

    def imported(self, written: str) -> str:
        """The class name an alias or a qualified name stands for (``use A\\B as C``: ``C`` -> ``B``)."""
        for imp in self.facts.imports:
            for target, alias in imp.names:
                if alias == written:
                    return target.rsplit(".", 1)[-1]
        return written.rsplit(".", 1)[-1]

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        found = self.env_call(name, args, ENV_READERS)
        if found is not None:
            return found
        if name == "sprintf" and args:
            return printf(self.fold_tokens(args[0]), [self.fold_tokens(a) for a in args[1:]], "sd", "sprintf")
        return unknown(f"the result of {name}(...)")
