"""Folding what the code says into values: string literals, constants across files, concatenation,
``String.format`` with constant arguments, f-strings and template literals with constant parts.

A fold gives a `Folded`: the text, with ``{?}`` for each part that is not known statically (a
parameter, a method's result, an environment variable), whether it is fully known, and why a part is
not. Folding never guesses: a part is either a literal, a constant that folds, or ``{?}``.

Constants: Java ``static final`` fields (and interface fields) whose initialiser is a literal, a name or
an expression of them, anywhere in the project (``ApiPaths.ORDERS``, static imports, the enclosing
class); Python module-level string constants, also imported (``from .settings import BASE``); TS/JS
module-level ``const`` strings, also imported (``import { API } from "./config"``). ``${...}``
placeholders are not resolved here (see `appconfig.Values.resolve`): a value keeps them until the
module that uses it resolves them with its settings.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..model import FileFacts
from .symbols import Table

UNKNOWN = "{?}"
_MAX_DEPTH = 12


@dataclass(frozen=True)
class Folded:
    text: str
    known: bool
    why: tuple[str, ...] = ()

    def __add__(self, other: Folded) -> Folded:
        return Folded(self.text + other.text, self.known and other.known, self.why + other.why)


def literal(text: str) -> Folded:
    return Folded(text, True)


def unknown(why: str) -> Folded:
    return Folded(UNKNOWN, False, (why,))


def split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside brackets and quotes."""
    out, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
        i += 1
    tail = text[start:].strip()
    if tail or out:
        out.append(tail)
    return [part for part in out if part]


def array_items(text: str) -> list[str]:
    """An annotation attribute as a list of expressions: ``{"/a", B}`` -> two; ``"/a"`` -> one."""
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        return split_top(text[1:-1])
    if text.startswith("[") and text.endswith("]"):
        return split_top(text[1:-1])
    return [text] if text else []


# -- tokens ---------------------------------------------------------------------------------------------------

_Q3 = '"' * 3
_A3 = "'" * 3
_TOKEN = re.compile("|".join((
    rf"(?P<block>[rRbBuUfF]{{0,2}}(?:{_Q3}[\s\S]*?{_Q3}|{_A3}[\s\S]*?{_A3}))",
    r"""(?P<str>[rRbBuUfF]{0,2}(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'))""",
    r"(?P<tpl>`(?:[^`\\]|\\.)*`)",
    r"(?P<num>\d[\w.]*)",
    r"(?P<name>[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)",
    r"(?P<op>[+(),%])",
    r"(?P<ws>\s+)",
    r"(?P<other>.)",
)))

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "0": "\0", "s": " "}


def _unescape(body: str) -> str:
    def one(match: re.Match) -> str:
        ch = match.group(1)
        if ch.startswith("u") and len(ch) == 5:
            return chr(int(ch[1:], 16))
        return _ESCAPES.get(ch, ch)

    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", one, body)


def tokens(text: str) -> list[tuple[str, str]]:
    out = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        if kind != "ws":
            out.append((kind, re.sub(r"\s+", "", match.group()) if kind == "name" else match.group()))
    return out


# -- a small expression folder shared by the languages ----------------------------------------------------------


class Folder:
    """Folds ``a + b + "c"``-style expressions; subclasses say what a string literal, a name and a call are."""

    def __init__(self) -> None:
        self.depth = 0

    def fold(self, text: str) -> Folded:
        text = text.strip()
        if not text:
            return unknown("empty expression")
        if self.depth > _MAX_DEPTH:
            return unknown("constants refer to each other too deeply")
        self.depth += 1
        try:
            toks = tokens(text)
            value, rest = self._sum(toks)
            if rest:
                return unknown(f"not a constant expression: {text[:80]}")
            return value
        finally:
            self.depth -= 1

    def _sum(self, toks: list[tuple[str, str]]) -> tuple[Folded, list[tuple[str, str]]]:
        value, toks = self._term(toks)
        while toks and toks[0] == ("op", "+"):
            right, toks = self._term(toks[1:])
            value = value + right
        return value, toks

    def _term(self, toks: list[tuple[str, str]]) -> tuple[Folded, list[tuple[str, str]]]:
        if not toks:
            return unknown("incomplete expression"), toks
        kind, text = toks[0]
        if kind in ("str", "block", "tpl"):
            value = self.string(kind, text)
            toks = toks[1:]
            while toks and toks[0][0] == "str" and self.implicit_concat:  # Python "a" "b"
                value = value + self.string(toks[0][0], toks[0][1])
                toks = toks[1:]
            return value, toks
        if kind == "num":
            return literal(text), toks[1:]
        if kind == "op" and text == "(":
            value, rest = self._sum(toks[1:])
            if rest and rest[0] == ("op", ")"):
                return value, rest[1:]
            return unknown("unbalanced parentheses"), []
        if kind == "name":
            if len(toks) > 1 and toks[1] == ("op", "("):
                args, rest = self._args(toks[2:])
                return self.call(text, args), rest
            return self.name(text), toks[1:]
        return unknown(f"not a constant expression ({text})"), []

    def _args(self, toks: list[tuple[str, str]]) -> tuple[list[list[tuple[str, str]]], list[tuple[str, str]]]:
        args: list[list[tuple[str, str]]] = [[]]
        depth = 0
        for index, tok in enumerate(toks):
            if tok == ("op", "("):
                depth += 1
            elif tok == ("op", ")"):
                if depth == 0:
                    return [a for a in args if a], toks[index + 1:]
                depth -= 1
            elif tok == ("op", ",") and depth == 0:
                args.append([])
                continue
            args[-1].append(tok)
        return [], []

    def fold_tokens(self, toks: list[tuple[str, str]]) -> Folded:
        value, rest = self._sum(toks)
        return value if not rest else unknown("not a constant expression")

    implicit_concat = False

    def string(self, kind: str, text: str) -> Folded:
        raise NotImplementedError

    def name(self, name: str) -> Folded:
        raise NotImplementedError

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        return unknown(f"the result of {name}(...)")


def format_java(template: Folded, args: list[Folded]) -> Folded:
    """``String.format`` with ``%s`` / ``%d`` (and ``%%``); anything else is unknown."""
    if not template.known:
        return unknown("String.format with an unknown template")
    out = literal("")
    rest = list(args)
    for piece in re.split(r"(%%|%[sd])", template.text):
        if piece == "%%":
            out = out + literal("%")
        elif piece in ("%s", "%d"):
            out = out + (rest.pop(0) if rest else unknown("String.format with too few arguments"))
        elif "%" in piece:
            return unknown("String.format with a format this folder does not read")
        else:
            out = out + literal(piece)
    return out


# -- Java -----------------------------------------------------------------------------------------------------


class JavaConstants:
    """Every Java constant of the project (``pkg.Type#NAME`` -> initialiser) and every type fqn."""

    def __init__(self, table: Table) -> None:
        self.constants: dict[str, tuple[str, FileFacts, str]] = {}
        #: fields injected with ``@Value("${...}")``: their value is that placeholder
        self.injected: dict[str, tuple[str, FileFacts, str]] = {}
        self.types: set[str] = set()
        for bound in table.files.values():
            if bound.facts.language != "java":
                continue
            for index, sym in enumerate(bound.facts.symbols):
                fqn = bound.fqns[index]
                if sym.kind in ("class", "interface", "enum", "record", "annotation"):
                    self.types.add(fqn)
                elif sym.kind == "field" and "value" in sym.extra and {"static", "final"} <= set(sym.modifiers):
                    self.constants[fqn] = (sym.extra["value"], bound.facts, sym.parent or "")
                elif sym.kind == "field":
                    injected = next((dict(a.args).get("") or dict(a.args).get("value") for a in sym.annotations
                                     if a.name.rsplit(".", 1)[-1] == "Value"), None)
                    if injected:
                        self.injected[fqn] = (injected, bound.facts, sym.parent or "")


class JavaFolder(Folder):
    """Folds a Java expression as written in ``facts`` inside the type ``class_key``."""

    def __init__(self, constants: JavaConstants, facts: FileFacts, class_key: str) -> None:
        super().__init__()
        self.constants = constants
        self.facts = facts
        self.class_key = class_key
        self.package = facts.package

    def string(self, kind: str, text: str) -> Folded:
        if kind == "block":
            body = text[3:-3]
            lines = body.split("\n")[1:] if "\n" in body else [body]
            indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
            return literal(_unescape("\n".join(x[indent:] for x in lines).rstrip(" ")))
        if text.startswith("'"):
            return literal(_unescape(text[1:-1]))
        return literal(_unescape(text[1:-1]))

    def _qualify(self, name: str) -> str:
        return f"{self.package}.{name}" if self.package else name

    def type_fqn(self, name: str) -> str | None:
        """The project type a (possibly dotted) type name means in this file, or None."""
        head, _, rest = name.partition(".")
        scope = self.class_key
        while scope:  # nested types of the enclosing classes
            candidate = self._qualify(f"{scope}.{head}")
            if candidate in self.constants.types:
                return _nested(candidate, rest, self.constants.types)
            scope = scope.rpartition(".")[0]
        candidates = [self._qualify(head)]
        for imp in self.facts.imports:
            if imp.static:
                continue
            if imp.names == (("*", "*"),):
                candidates.append(f"{imp.target}.{head}")
            elif imp.target.rsplit(".", 1)[-1] == head:
                candidates.insert(0, imp.target)
        for candidate in candidates:
            if candidate in self.constants.types:
                return _nested(candidate, rest, self.constants.types)
        if name in self.constants.types:
            return name
        return None

    def constant(self, fqn: str) -> Folded | None:
        found = self.constants.constants.get(fqn) or self.constants.injected.get(fqn)
        if found is None:
            return None
        expr, facts, class_key = found
        return JavaFolder(self.constants, facts, class_key).with_depth(self.depth).fold(expr)

    def with_depth(self, depth: int) -> JavaFolder:
        self.depth = depth
        return self

    def name(self, name: str) -> Folded:
        name = name.removeprefix("this.")
        if "." in name:
            owner, _, field = name.rpartition(".")
            type_fqn = self.type_fqn(owner)
            if type_fqn is not None:
                value = self.constant(f"{type_fqn}#{field}")
                if value is not None:
                    return value
                return unknown(f"{name} is not a constant with a literal value")
            return unknown(f"{name} is not a project constant")
        scope = self.class_key
        while scope:
            value = self.constant(self._qualify(f"{scope}#{name}"))
            if value is not None:
                return value
            scope = scope.rpartition(".")[0]
        for imp in self.facts.imports:
            if not imp.static:
                continue
            if imp.names == (("*", "*"),):
                value = self.constant(f"{imp.target}#{name}")
            elif imp.target.rsplit(".", 1)[-1] == name:
                value = self.constant(f"{imp.target.rpartition('.')[0]}#{name}")
            else:
                value = None
            if value is not None:
                return value
        return unknown(f"{name} is not a constant (a variable or parameter: known at run time only)")

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        folded = [self.fold_tokens(a) for a in args]
        if name in ("String.format", "format") and folded:
            return format_java(folded[0], folded[1:])
        if name == "String.valueOf" and len(folded) == 1:
            return folded[0]
        if name.endswith(".formatted") and folded:  # "a/%s".formatted(x) reads as a name "....formatted"
            return unknown("String.formatted")
        return unknown(f"the result of {name}(...)")


def _nested(fqn: str, rest: str, types: set[str]) -> str | None:
    for part in rest.split(".") if rest else []:
        fqn = f"{fqn}.{part}"
        if fqn not in types:
            return None
    return fqn


# -- Python ---------------------------------------------------------------------------------------------------


class PythonFolder(Folder):
    """Folds a Python expression in a module (its constants and the constants it imports)."""

    implicit_concat = True

    def __init__(self, modules: dict[str, FileFacts], module: str) -> None:
        super().__init__()
        self.modules = modules
        self.module = module
        self.facts = modules.get(module)

    def string(self, kind: str, text: str) -> Folded:
        match = re.match(r"^([rRbBuUfF]{0,2})('''|\"\"\"|'|\")", text)
        prefix = match.group(1).lower() if match else ""
        quote = match.group(2) if match else text[0]
        body = text[len(prefix) + len(quote): len(text) - len(quote)]
        if "r" not in prefix:
            body = _unescape(body)
        if "f" not in prefix:
            return literal(body)
        return self._fstring(body)

    def _fstring(self, body: str) -> Folded:
        out = literal("")
        for piece in re.split(r"(\{\{|\}\}|\{[^{}]*\})", body):
            if piece in ("{{", "}}"):
                out = out + literal(piece[0])
            elif piece.startswith("{") and piece.endswith("}"):
                expr = piece[1:-1]
                if re.fullmatch(r"[A-Za-z_][\w.]*", expr.strip()):
                    out = out + self.name(expr.strip())
                else:
                    out = out + unknown(f"the f-string part {{{expr}}}")
            else:
                out = out + literal(piece)
        return out

    def name(self, name: str) -> Folded:
        return self._lookup(self.module, name, 0)

    def _lookup(self, module: str, name: str, hops: int) -> Folded:
        facts = self.modules.get(module)
        if facts is None or hops > 6:
            return unknown(f"{name} is not a constant")
        values = facts.extra.get("values", {})
        if name in values:
            inner = PythonFolder(self.modules, module)
            inner.depth = self.depth + 1
            return inner.fold(values[name])
        head, _, rest = name.partition(".")
        is_package = facts.path.endswith("__init__.py")
        for imp in facts.imports:
            target = _py_absolute(module, imp.target, is_package)
            for imported, alias in imp.names:
                if imported == "*":
                    star = self.modules.get(target)
                    if star is not None and name in star.extra.get("values", {}):
                        return self._lookup(target, name, hops + 1)
                elif imported == imp.target:  # import a.b / import a.b as c
                    bound = imported if alias == imported.split(".")[0] else alias
                    if name.startswith(bound + ".") and alias == name.split(".")[0]:
                        inner_name = name[len(bound) + 1:] if bound != alias else name[len(alias) + 1:]
                        return self._lookup(target, inner_name, hops + 1)
                elif alias == head:  # from target import imported as alias
                    sub = f"{target}.{imported}" if target else imported
                    if sub in self.modules:
                        if rest:
                            return self._lookup(sub, rest, hops + 1)
                    elif not rest:
                        return self._lookup(target, imported, hops + 1)
        if head == "os" or name.startswith("settings."):
            return unknown(f"{name}: an environment or settings value, known at run time only")
        return unknown(f"{name} is not a constant")

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        if name in ("os.getenv", "os.environ.get"):
            return unknown(f"{name}(...): an environment value, known at run time only")
        if name == "str" and len(args) == 1:
            return self.fold_tokens(args[0])
        return unknown(f"the result of {name}(...)")


def _py_absolute(module: str, target: str, is_package: bool) -> str:
    """An import target as an absolute dotted module name (``..x`` relative to ``module``)."""
    dots = len(target) - len(target.lstrip("."))
    if not dots:
        return target
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (dots - 1)] if dots > 1 else base
    rest = target[dots:]
    return ".".join([*base, rest] if rest else base)


# -- TypeScript / JavaScript ------------------------------------------------------------------------------------


class ScriptFolder(Folder):
    """Folds a TS/JS expression in a file (its ``const`` strings and the ones it imports)."""

    def __init__(self, files: dict[str, FileFacts], path: str) -> None:
        super().__init__()
        self.files = files
        self.path = path

    def string(self, kind: str, text: str) -> Folded:
        body = text[1:-1]
        if kind != "tpl":
            return literal(_unescape(body))
        out = literal("")
        for piece in re.split(r"(\$\{[^{}]*\})", body):
            if piece.startswith("${") and piece.endswith("}"):
                expr = piece[2:-1].strip()
                out = out + (self.name(expr) if re.fullmatch(r"[A-Za-z_$][\w$.]*", expr)
                             else unknown(f"the template part ${{{expr}}}"))
            else:
                out = out + literal(_unescape(piece))
        return out

    def name(self, name: str) -> Folded:
        return self._lookup(self.path, name, 0)

    def _lookup(self, path: str, name: str, hops: int) -> Folded:
        facts = self.files.get(path)
        if facts is None or hops > 6:
            return unknown(f"{name} is not a constant")
        if name.startswith("process.env"):
            return unknown(f"{name}: an environment value, known at run time only")
        values = facts.extra.get("values", {})
        if name in values:
            inner = ScriptFolder(self.files, path)
            inner.depth = self.depth + 1
            return inner.fold(values[name])
        for imp in facts.imports:
            for imported, alias in imp.names:
                if alias == name and imp.target.startswith("."):
                    target = resolve_script(self.files, path, imp.target)
                    if target is not None:
                        return self._lookup(target, imported, hops + 1)
        return unknown(f"{name} is not a constant")


def resolve_script(files: dict[str, FileFacts], path: str, spec: str) -> str | None:
    """The project file a relative module specifier names (extensions and ``index`` files tried)."""
    base = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
    for candidate in (base, *(base + ext for ext in (".ts", ".tsx", ".js", ".mjs", ".cjs", ".jsx")),
                      *(f"{base}/index{ext}" for ext in (".ts", ".js"))):
        if candidate in files:
            return candidate
    stem = re.sub(r"\.(js|mjs|cjs|jsx)$", "", base)
    for ext in (".ts", ".tsx"):
        if stem + ext in files:
            return stem + ext
    return None


FoldFn = Callable[[str], Folded]
