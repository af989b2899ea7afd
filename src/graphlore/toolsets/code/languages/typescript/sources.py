"""Where TS/JS values are written: the project file a relative module specifier names, the file an import reaches
through barrel re-exports, and an object literal's properties as written (shared by the folders and readers)."""

from __future__ import annotations

import posixpath
import re

from ...model import FileFacts
from ..folding import split_top


def object_properties(text: str) -> dict[str, str]:
    """The properties of an object literal as written (a shorthand property is its own value); {} for anything else."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return {}
    out = {}
    for part in split_top(text[1:-1]):
        key, sep, value = part.partition(":")
        key = key.strip().strip("'\"")
        if re.fullmatch(r"[A-Za-z_$][\w$]*", key):
            out[key] = (value if sep else key).strip()
    return out


def declaring_file(files: dict[str, FileFacts], path: str, spec: str, name: str, declares, depth: int = 0
                   ) -> tuple[str, str] | None:
    """(file, name there) an import of ``name`` from ``spec`` reaches, ``declares(file, name)`` saying where it
    stops: the file, or through the re-exports (``export * from``, ``export { X } from``) of barrel files
    (``index.ts``, ``api.ts``)."""
    target = resolve_script(files, path, spec)
    if target is None or depth > 4:
        return None
    if declares(target, name):
        return target, name
    for imp in files[target].imports:
        for imported, alias in imp.names if imp.reexport and imp.target.startswith(".") else ():
            if alias == name or imported == "*":
                found = declaring_file(files, target, imp.target, name if imported == "*" else imported, declares,
                                       depth + 1)
                if found is not None:
                    return found
    return None


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
