"""Module path aliases of a TypeScript/JavaScript project: ``compilerOptions.paths`` and ``baseUrl`` of
``tsconfig*.json``/``jsconfig.json`` (with their ``extends`` chains), and a bundler's ``resolve.alias`` with
literal values (``vite.config.*``, ``webpack.config.*``), so ``import { X } from "@/client"`` reaches the
project file instead of being taken for a package.

Each folder holding such a file gets a table of (pattern, targets) pairs, targets relative to the tree's
root (`read_aliases`, the language's ``read_aliases``); a source file uses the table of its nearest folder that
has one (`Layout.context`). A specifier that
matches no pattern, or whose target is not a project file, stays external as before (never guessed).
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

#: the files whose aliases are read (a change moves the layout: `walk.is_layout_file`)
ALIAS_FILE = re.compile(r"^(?:tsconfig(?:\.[\w-]+)?|jsconfig)\.json$|^(?:vite|webpack)\.config\.[cm]?[jt]s$")
#: ``'@': path.resolve(__dirname, './src')``, ``'@': fileURLToPath(new URL('./src', import.meta.url))``,
#: ``'~': '/src'``, ``{ find: '@', replacement: '/src' }`` inside a ``resolve.alias`` block
_ALIAS_BLOCK = re.compile(r"\balias\s*:\s*([\[{])")
#: the value: a string, or ``path.resolve(__dirname, 'a', 'b')`` (every segment, joined), or ``fileURLToPath(new
#: URL('./src', import.meta.url))``
_VALUE = (r"""(?:path\.(?:resolve|join)\(\s*__dirname\s*,\s*(?P<segments>['"][^'"]+['"](?:\s*,\s*['"][^'"]+['"])*)\s*\)"""
          r"""|(?:fileURLToPath\(\s*new\s+URL\(\s*)?['"](?P<value>[^'"]+)['"])""")
_ALIAS_PAIR = re.compile(r"""['"]?(?P<key>[@~$\w][\w@~$/.-]*|[@~])['"]?\s*:\s*""" + _VALUE)
_FIND_REPLACE = re.compile(r"""find\s*:\s*['"](?P<key>[^'"]+)['"]\s*,\s*replacement\s*:\s*""" + _VALUE)

Aliases = tuple[tuple[str, tuple[str, ...]], ...]


def read_jsonc(path: Path) -> dict:
    """A JSON file that may hold comments and trailing commas (as tsconfig files do); {} when unreadable."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i:end + 1])
            i = end + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(ch)
            i += 1
    cleaned = re.sub(r",(\s*[}\]])", r"\1", "".join(out))
    try:
        data = json.loads(cleaned)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _tsconfig(root: Path, rel: str, seen: frozenset = frozenset(),
              read: set[str] | None = None) -> tuple[str | None, dict, str]:
    """(baseUrl relative to the root or None, paths, the folder ``paths`` are relative to) of one tsconfig,
    its own settings over those of the file it ``extends`` (a relative path; packages are not read), adding
    each file it reads to ``read``."""
    if read is not None:
        read.add(rel)
    if rel in seen:
        return None, {}, posixpath.dirname(rel)
    data = read_jsonc(root / rel)
    folder = posixpath.dirname(rel)
    base_url, paths, paths_folder = None, {}, folder
    extends = data.get("extends")
    for parent in (extends if isinstance(extends, list) else [extends]):
        if isinstance(parent, str) and parent.startswith("."):
            target = posixpath.normpath(posixpath.join(folder, parent))
            if not target.endswith(".json"):
                target += ".json"
            if (root / target).is_file():
                p_base, p_paths, p_folder = _tsconfig(root, target, seen | {rel}, read)
                base_url, paths, paths_folder = p_base or base_url, p_paths or paths, p_folder
    options = data.get("compilerOptions") if isinstance(data.get("compilerOptions"), dict) else {}
    if isinstance(options.get("baseUrl"), str):
        base_url = _clean(posixpath.join(folder, options["baseUrl"]))
    if isinstance(options.get("paths"), dict):
        paths, paths_folder = options["paths"], folder
    return base_url, paths, (base_url if base_url is not None else paths_folder)


def _clean(path: str) -> str:
    path = posixpath.normpath(path)
    return "" if path == "." else path


def read_aliases(root: Path, rel: str, names: list[str], read: set[str] | None = None) -> Aliases:
    """The alias table of one folder: the paths of its tsconfig files (``tsconfig.json`` first, then
    ``tsconfig.*.json`` as Vite projects split them), a bare ``baseUrl`` as ``*``, then bundler aliases; the
    files an ``extends`` chain reads are added to ``read`` (a change to one moves the layout as a tsconfig's)."""
    pairs: dict[str, tuple[str, ...]] = {}
    configs = sorted((n for n in names if n.endswith(".json")), key=lambda n: (n != "tsconfig.json", n))
    for name in configs:
        base_url, paths, paths_folder = _tsconfig(root, f"{rel}/{name}" if rel else name, read=read)
        for pattern, targets in paths.items():
            if isinstance(targets, list) and all(isinstance(t, str) for t in targets):
                pairs.setdefault(pattern, tuple(_clean(posixpath.join(paths_folder, t)) for t in targets))
        if base_url is not None:
            pairs.setdefault("*", (posixpath.join(base_url, "*") if base_url else "*",))
    for name in sorted(n for n in names if not n.endswith(".json")):
        for key, value in _bundler_aliases(root / rel / name):
            # '/src' is the bundler's project root (the config's folder), not the tree's
            target = _clean(posixpath.join(rel, value.lstrip("/")))
            pairs.setdefault(key, (target,))
            pairs.setdefault(f"{key.rstrip('/')}/*", (f"{target}/*",))
    return tuple(pairs.items())


def _bundler_aliases(path: Path) -> list[tuple[str, str]]:
    """Literal ``resolve.alias`` entries of a Vite/webpack config (a value built any other way is left out)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found = []
    for block in _ALIAS_BLOCK.finditer(text):
        close = {"{": "}", "[": "]"}[block.group(1)]
        depth, end = 0, block.end() - 1
        for end in range(block.end() - 1, len(text)):
            depth += {block.group(1): 1, close: -1}.get(text[end], 0)
            if depth == 0:
                break
        body = text[block.end():end]
        pattern = _FIND_REPLACE if block.group(1) == "[" else _ALIAS_PAIR
        for m in pattern.finditer(body):
            value = (posixpath.join(*re.findall(r"""['"]([^'"]+)['"]""", m.group("segments")))
                     if m.group("segments") else m.group("value"))
            if not value.startswith(("http:", "https:")):
                found.append((m.group("key"), value))
    return found


def aliased(aliases: Aliases, spec: str) -> list[str]:
    """The root-relative paths ``spec`` stands for under ``aliases``, longest matching prefix first (as
    TypeScript picks); [] when no pattern matches."""
    matches = []
    for pattern, targets in aliases:
        if "*" in pattern:
            head, tail = pattern.split("*", 1)
            if spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail):
                star = spec[len(head):len(spec) - len(tail)]
                matches.append((len(head), [t.replace("*", star, 1) for t in targets]))
        elif spec == pattern:
            matches.append((len(pattern) + 1, list(targets)))
    matches.sort(key=lambda m: -m[0])
    return [_clean(target) for _, targets in matches for target in targets]
