"""TS/JS constants for folding: module-level ``const`` strings, also imported (``import { API } from
"./config"``), and template literals with constant parts."""

from __future__ import annotations

import posixpath
import re

from ...model import FileFacts
from ..folding import Folded, Folder, literal, unescape, unknown


class ScriptFolder(Folder):
    """Folds a TS/JS expression in a file (its ``const`` strings and the ones it imports)."""

    def __init__(self, files: dict[str, FileFacts], path: str) -> None:
        super().__init__()
        self.files = files
        self.path = path

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
