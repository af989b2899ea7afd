"""Import directions and the public surface, read from the source with ``ast``.

- A toolset imports the core only: never another toolset, never an adapter.
- The store and search never import a toolset or an adapter; the store never imports the embedder
  (it takes vectors; an embedder appears only in type hints).
- Adapters reach toolsets through the registry (``graphlore.toolsets``), never a toolset package.
- ``graphlore.__all__`` is exactly what the package exports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import graphlore
from graphlore.toolsets import TOOLSETS

SRC = Path(graphlore.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def runtime_imports(path: Path) -> set[str]:
    """Modules imported by ``path``, leaving out ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:  # relative import
                package = module_name(path).split(".")
                base = ".".join(package[: len(package) - node.level + 1] + [node.module])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {name for name in found if name.startswith("graphlore")}


MODULES = {module_name(p): runtime_imports(p) for p in SRC.rglob("*.py")}


def offenders(importer_prefix: str, forbidden: callable) -> list[str]:
    return sorted(f"{m} imports {i}" for m, imports in MODULES.items() if m.startswith(importer_prefix)
                  for i in imports if forbidden(m, i))


def test_the_source_tree_was_read():
    assert len(MODULES) > 30 and "graphlore.store.sqlite.store" in MODULES


def test_toolsets_never_import_each_other_or_an_adapter():
    def toolset_of(module: str) -> str | None:
        parts = module.split(".")
        return parts[2] if len(parts) > 2 and parts[1] == "toolsets" and parts[2] in TOOLSETS else None

    def forbidden(importer: str, imported: str) -> bool:
        mine, theirs = toolset_of(importer), toolset_of(imported)
        return imported.startswith("graphlore.adapters") or (theirs is not None and theirs != mine)

    assert offenders("graphlore.toolsets", forbidden) == []


def test_store_and_search_never_import_toolsets_adapters_or_the_embedder():
    def forbidden(importer: str, imported: str) -> bool:
        banned = ("graphlore.toolsets", "graphlore.adapters", "graphlore.runtime", "graphlore.tools")
        return imported.startswith(banned) or (importer.startswith("graphlore.store") and
                                               imported.startswith("graphlore.embedding"))

    assert offenders("graphlore.store", forbidden) == [] and offenders("graphlore.search", forbidden) == []


def test_the_core_never_imports_a_toolset_or_an_adapter():
    core = ("graphlore.config", "graphlore.contract", "graphlore.errors", "graphlore.runtime", "graphlore.tools",
            "graphlore.embedding", "graphlore.llm", "graphlore.endpoint", "graphlore.render", "graphlore.watch")
    bad = [f"{m} imports {i}" for m in core for i in MODULES[m]
           if i.startswith(("graphlore.toolsets.", "graphlore.adapters"))]
    assert bad == []


def test_adapters_reach_toolsets_only_through_the_registry():
    def forbidden(importer: str, imported: str) -> bool:
        registry = ("graphlore.toolsets.load_toolset", "graphlore.toolsets.select", "graphlore.toolsets.TOOLSETS",
                    "graphlore.toolsets.ExtraMissing")
        return imported.startswith("graphlore.toolsets.") and not imported.startswith(registry)

    assert offenders("graphlore.adapters", forbidden) == []


def test_the_public_surface_is_exactly_all():
    exported = {name for name in vars(graphlore) if not name.startswith("_") and not isinstance(
        getattr(graphlore, name), type(graphlore))}
    assert set(graphlore.__all__) - {"__version__"} == exported
    assert graphlore.__version__
