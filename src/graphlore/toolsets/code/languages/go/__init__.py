"""Go: types, methods, interfaces, functions, package values, imports and call sites (`extract`); packages by
import path, promoted members and implicit interface implementation (`resolve`); ``go.mod`` modules."""

from __future__ import annotations

import re
from pathlib import Path

from ...model import SymbolFact
from .. import roles
from ..base import BuildFile, BuildInfo, Language, ProjectTree
from . import extract
from .resolve import GoResolver

_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.M)


def read_go_mod(path: Path) -> BuildInfo:
    """``module example.com/shop/orders``: the namespace, and the name its last element gives (without a
    ``/vN`` major version)."""
    try:
        found = _MODULE.search(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return BuildInfo()
    if found is None:
        return BuildInfo()
    module = found.group(1)
    parts = module.split("/")
    if len(parts) > 1 and re.fullmatch(r"v\d+", parts[-1]):
        parts.pop()
    return BuildInfo(parts[-1], namespace=module)


GO_MOD = BuildFile(("go.mod",), read_go_mod, "go.mod module", rank=15)


def package_path(path: str, tree: ProjectTree) -> str:
    """A file's package import path: its ``go.mod`` module path and the folder below it (without ``go.mod``:
    the folder from the tree's root)."""
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    found = tree.namespace_of(path)
    if found is None:
        return folder or "."
    module_folder, namespace = found
    below = folder if module_folder == "." else folder[len(module_folder):].lstrip("/")
    return f"{namespace}/{below}" if below else namespace


def _main(sym: SymbolFact) -> bool:
    return bool(sym.extra.get("entry_point"))


RULES = roles.Rules(
    call_capabilities=roles.GO_CALL_CAPABILITIES,
    entry_point=_main,
)

LANGUAGE = Language(
    "go", {".go": "go"}, extract.extract, GoResolver, RULES,
    module_name=package_path,
    test_files=re.compile(r".*_test\.go$"),
    shared_module=True,
    builds=(GO_MOD,),
)
