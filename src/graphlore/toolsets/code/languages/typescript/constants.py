"""TS/JS constants for folding: module-level ``const`` strings, also imported (``import { API } from
"./config"``), template literals with constant parts, a function's locals and a class's fields
(``this.baseUrl``), and environment reads (``process.env.X``, ``process.env["X"]``, ``import.meta.env.X``, k6's
``__ENV.X``), with the default a literal after ``||`` or ``??`` gives (``process.env.API || "http://api"``), also
destructured (``const { API = "http://api" } = process.env``, read as that ``??``)."""

from __future__ import annotations

import posixpath
import re

from ...model import FileFacts
from ..folding import (
    CHOICE_OPEN,
    ENV_OPEN,
    FileFolder,
    Folded,
    env,
    literal,
    named_unknown,
    unescape,
    unknown,
)

_ENV_TABLE = r"(?:process\.env|import\.meta\.env|__ENV)"
_ENV = re.compile(rf"^{_ENV_TABLE}\.([A-Za-z_]\w*)$")
#: an environment read with a fallback: ``process.env.X || "..."`` / ``?? "..."`` (also ``process.env["X"]``)
_ENV_OR = re.compile(rf"""^{_ENV_TABLE}(?:\.([A-Za-z_]\w*)|\[\s*["']([A-Za-z_]\w*)["']\s*\])\s*(?:\|\||\?\?)\s*(.+)$""",
                     re.DOTALL)


class ScriptFolder(FileFolder):
    """Folds a TS/JS expression in a file (its ``const`` strings and the ones it imports); files by path."""

    env_tables = frozenset({"process.env", "import.meta.env", "__ENV"})

    def fold(self, text: str) -> Folded:
        found = _ENV_OR.match(text.strip())
        if found:
            fallback = super().fold(found.group(3))
            plain = fallback.known and not any(m in fallback.text for m in (ENV_OPEN, CHOICE_OPEN))
            return env(found.group(1) or found.group(2), fallback.text if plain else None)
        return super().fold(text)

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
