"""TS/JS constants for folding: module-level ``const`` strings, also imported (``import { API } from
"./config"``), template literals with constant parts, a function's locals and a class's fields
(``this.baseUrl``), and environment reads (``process.env.X``, ``process.env["X"]``, ``import.meta.env.X``)."""

from __future__ import annotations

import posixpath
import re

from ...model import FileFacts
from ..folding import FileFolder, Folded, env, literal, named_unknown, unescape, unknown

_ENV = re.compile(r"^(?:process\.env|import\.meta\.env)\.([A-Za-z_]\w*)$")


class ScriptFolder(FileFolder):
    """Folds a TS/JS expression in a file (its ``const`` strings and the ones it imports); files by path."""

    env_tables = frozenset({"process.env", "import.meta.env"})

    def name(self, name: str) -> Folded:
        found = self.scoped(name, "this")
        if found is not None:
            return found
        variable = _ENV.match(name)
        if variable:
            return env(variable.group(1))
        return super().name(name)

    def string(self, kind: str, text: str) -> Folded:
        body = text[1:-1]
        if kind != "tpl":
            return literal(unescape(body))
        out = literal("")
        for piece in re.split(r"(\$\{[^{}]*\})", body):
            if piece.startswith("${") and piece.endswith("}"):
                expr = piece[2:-1].strip()
                out = out + (self.name(expr) if re.fullmatch(r"[A-Za-z_$][\w$.]*", expr)
                             else unknown(f"the template part ${{{expr}}}"))
            else:
                out = out + literal(unescape(piece))
        return out

    def imported(self, facts: FileFacts, key: str, name: str) -> tuple[str, str] | None:
        for imp in facts.imports:
            for imported, alias in imp.names:
                if alias == name and imp.target.startswith("."):
                    target = resolve_script(self.files, key, imp.target)
                    if target is not None:
                        return target, imported
        return None

    def unknown_name(self, name: str) -> Folded:
        return named_unknown(name, f"{name} is not a constant (a variable or parameter: known at run time only)")



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
