"""C++ values for folding: string literals (adjacent ones joined, raw strings), a function's locals, namespace-level
constants (``const std::string kAddr = "..."``, ``constexpr char kAddr[] = "..."``) of the file, else the one
project constant with that name, ``+`` on strings, ``std::string(x)``, ``absl::StrCat(a, b, ..)``, ``.c_str()``,
and ``getenv("X")`` (``std::getenv``, ``secure_getenv``) as the environment variable."""

from __future__ import annotations

import json
import re

from ...model import FileFacts
from ..folding import Folded, Folder, literal, named_unknown, unescape, unknown

#: calls that read an environment variable
ENV_READERS = frozenset({"getenv", "std.getenv", "secure_getenv", "std.secure_getenv"})
#: calls that hand back (a string made of) their one argument
SAME_CALLS = frozenset({"std.string", "string", "std.string_view", "string_view", "absl.string_view"})
#: calls that join their arguments
CONCAT_CALLS = frozenset({"absl.StrCat", "StrCat"})
#: methods of a string that hand back the same text
SAME_METHODS = frozenset({"c_str", "data", "str"})
_RAW = re.compile(r'(?:u8|u|U|L)?R"([^(\s]*)\((.*?)\)\1"', re.S)


def cpp_text(expr: str) -> str:
    """An expression as the shared folder reads it: ``.`` for ``::`` and ``->``, no ``&`` or ``*``."""
    expr = _RAW.sub(lambda m: json.dumps(m.group(2)), expr)   # a raw string as an escaped one
    expr = re.sub(r"(?<![\w)\]])[&*](?=[\w(])", "", expr)
    return expr.replace("::", ".").replace("->", ".")


class CppValues:
    """Every file's namespace-level constants (key -> expression) and the files by path."""

    def __init__(self, files: list[FileFacts]) -> None:
        self.by_name: dict[str, list[tuple[FileFacts, str]]] = {}
        for facts in files:
            for key, expr in facts.extra.get("values", {}).items():
                self.by_name.setdefault(key.rsplit(".", 1)[-1], []).append((facts, expr))


class CppFolder(Folder):
    """Folds a C++ expression written in ``facts``."""

    implicit_concat = True

    def __init__(self, values: CppValues, facts: FileFacts) -> None:
        super().__init__()
        self.values, self.facts = values, facts

    def fold(self, text: str) -> Folded:
        return super().fold(cpp_text(text))

    def string(self, kind: str, text: str) -> Folded:
        return literal(unescape(text[text.index('"') + 1:-1] if '"' in text else text[1:-1]))

    def name(self, name: str) -> Folded:
        if "." not in name:
            found = self.local(name)
            if found is not None:
                return found
        candidates = self.values.by_name.get(name.rsplit(".", 1)[-1], [])
        own = [(facts, expr) for facts, expr in candidates if facts is self.facts]
        chosen = own or candidates
        if len(chosen) != 1:
            why = f"{len(chosen)} constants are named {name}" if chosen else \
                f"{name} is not a constant (a variable, a member or a parameter: known at run time only)"
            return named_unknown(name, why)
        facts, expr = chosen[0]
        inner = type(self)(self.values, facts)
        inner.depth = self.depth + 1
        return inner.fold(expr)

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        found = self.env_call(name, args, ENV_READERS)
        if found is not None:
            return found
        if name in SAME_CALLS and len(args) == 1:
            return self.fold_tokens(args[0])
        if name in CONCAT_CALLS and args:
            folded = [self.fold_tokens(a) for a in args]
            return sum(folded[1:], folded[0])
        return unknown(f"the result of {name}(...)")

    def chained(self, value: Folded, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        return value if method in SAME_METHODS else unknown(f"the result of ....{method}(...)")

    def method_of_string(self, template: Folded, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        return template if method in SAME_METHODS else super().method_of_string(template, method, args)
