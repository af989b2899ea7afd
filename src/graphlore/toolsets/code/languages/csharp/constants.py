"""C# constants for folding: ``const`` fields and ``static readonly`` string fields (in the enclosing types, or
``Type.Name`` of any project type), verbatim (``@"..."``) and interpolated (``$"...{X}..."``) strings with
constant parts, and concatenation; and the type an expression makes when it says it (`made_type`: ``new T(..)``,
Mapster's ``x.Adapt<T>()``, AutoMapper's ``mapper.Map<T>(x)``)."""

from __future__ import annotations

import re

from ...model import FileFacts
from ..folding import Folded, Folder, literal, named_unknown, unescape, unknown
from ..symbols import Table

#: calls that read an environment variable
ENV_READERS = frozenset({"Environment.GetEnvironmentVariable", "System.Environment.GetEnvironmentVariable"})


class CSharpConstants:
    """Every C# constant of the project: by (type name, field name) and by type key within a file."""

    def __init__(self, table: Table) -> None:
        self.by_type: dict[tuple[str, str], list[tuple[str, FileFacts, str]]] = {}
        for bound in table.files.values():
            if bound.facts.language != "csharp":
                continue
            for sym in bound.facts.symbols:
                if sym.kind == "field" and "value" in sym.extra and sym.parent and (
                        "const" in sym.modifiers or {"static", "readonly"} <= set(sym.modifiers)):
                    owner = sym.parent.rsplit(".", 1)[-1]
                    self.by_type.setdefault((owner, sym.name), []).append((sym.extra["value"], bound.facts, sym.parent))


class CSharpFolder(Folder):
    """Folds a C# expression written in ``facts`` inside the type ``class_key``."""

    def __init__(self, constants: CSharpConstants, facts: FileFacts, class_key: str) -> None:
        super().__init__()
        self.constants, self.facts, self.class_key = constants, facts, class_key

    def fold(self, text: str) -> Folded:
        text = text.strip()
        if text.startswith(("$\"", "$@\"", "@$\"")):
            return self.interpolated(text)
        if text.startswith('@"') and text.endswith('"'):
            return literal(text[2:-1].replace('""', '"'))
        return super().fold(text)

    def interpolated(self, text: str) -> Folded:
        body = text[text.index('"') + 1:-1]
        out = literal("")
        for piece in re.split(r"(\{\{|\}\}|\{[^{}]*\})", body):
            if piece in ("{{", "}}"):
                out = out + literal(piece[0])
            elif piece.startswith("{") and piece.endswith("}"):
                expr = piece[1:-1].split(":", 1)[0].strip()
                out = out + (self.name(expr) if re.fullmatch(r"[A-Za-z_][\w.]*", expr)
                             else unknown(f"the interpolation {{{expr}}}"))
            else:
                out = out + literal(unescape(piece))
        return out

    def string(self, kind: str, text: str) -> Folded:
        return literal(unescape(text[1:-1]))

    def name(self, name: str) -> Folded:
        found = None if "." in name else self.local(name)
        if found is not None:
            return found
        owner, dot, field = name.rpartition(".")
        candidates = []
        if dot:
            candidates = self.constants.by_type.get((owner.rsplit(".", 1)[-1], field), [])
        else:
            scope = self.class_key
            while scope and not candidates:
                candidates = [c for c in self.constants.by_type.get((scope.rsplit(".", 1)[-1], name), [])
                              if c[1] is self.facts]
                scope = scope.rpartition(".")[0]
        if len(candidates) != 1:
            if not candidates:
                return named_unknown(name, f"{name} is not a constant")
            return unknown(f"{name} names {len(candidates)} constants")
        expr, facts, class_key = candidates[0]
        inner = CSharpFolder(self.constants, facts, class_key)
        inner.depth = self.depth + 1
        return inner.fold(expr)

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        found = self.env_call(name, args, ENV_READERS)
        return found if found is not None else unknown(f"the result of {name}(...)")


# ---- the type an expression makes (frameworks read a message's or request's type with it) ----

#: ``new T(..)`` (a cast before it allowed; ``new T<A>(..)`` is ``T``)
NEW = re.compile(r"^(?:\(\s*[\w.<>, ]+\s*\)\s*)?new\s+([\w.]+)\s*[({<]")
#: Mapster's ``x.Adapt<T>()``, AutoMapper's ``mapper.Map<T>(x)`` (``Map<TSource, T>``: the last type argument)
MAPPED = re.compile(r"\.(?:Adapt|Map)\s*<\s*(?:[\w.]+\s*,\s*)?([\w.]+)\s*>\s*\([^()]*\)$")


def made_type(text: str) -> str | None:
    """The simple name of the type ``text`` makes or maps to, else None."""
    text = text.strip().removesuffix("!")
    found = NEW.match(text) or MAPPED.search(text)
    return found.group(1).rsplit(".", 1)[-1] if found else None
