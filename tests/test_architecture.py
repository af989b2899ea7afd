"""Import directions and the public surface, read from the source with ``ast``.

- A toolset imports the core only: never another toolset, never an adapter.
- The store and search never import a toolset or an adapter; the store never imports the embedder
  (it takes vectors; an embedder appears only in type hints).
- Adapters reach toolsets through the registry (``graphlore.toolsets``), never a toolset package.
- ``graphlore.__all__`` is exactly what the package exports.
- The code toolset: its package map lists every module; its packages import only the packages above them
  in the map; no language package imports another, and only the registry (and a framework, for its
  language's constants) reaches into one; no module imports itself back, even through a function-level
  or ``TYPE_CHECKING`` import.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import graphlore
from graphlore.toolsets import TOOLSETS

SRC = Path(graphlore.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def runtime_imports(path: Path, type_checking: bool = False) -> set[str]:
    """Modules imported by ``path`` (anywhere, functions included), leaving out ``if TYPE_CHECKING:`` blocks
    unless ``type_checking``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if not type_checking and isinstance(node, ast.If) and isinstance(node.test, ast.Name) and \
                node.test.id == "TYPE_CHECKING":
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or node.level):
            base = node.module or ""
            if node.level:  # relative import: from the module's package, one package up per extra dot
                package = module_name(path).split(".")
                if path.name != "__init__.py":
                    package = package[:-1]
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
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
        registry = ("graphlore.toolsets.load_toolset", "graphlore.toolsets.select", "graphlore.toolsets.TOOLSETS")
        return imported.startswith("graphlore.toolsets.") and not imported.startswith(registry)

    assert offenders("graphlore.adapters", forbidden) == []


def test_the_public_surface_is_exactly_all():
    exported = {name for name in vars(graphlore) if not name.startswith("_") and not isinstance(
        getattr(graphlore, name), type(graphlore))}
    assert set(graphlore.__all__) - {"__version__"} == exported
    assert graphlore.__version__


# ---- the code toolset -----------------------------------------------------------------------------------------

CODE = "graphlore.toolsets.code"
CODE_DIR = SRC / "toolsets" / "code"
#: the code toolset's packages in the map's order: each may import only those before it (and itself)
CODE_LAYERS = ("model", "languages", "layout", "services", "frameworks", "index", "query")
LANGUAGE_PACKAGES = sorted(p.parent.name for p in (CODE_DIR / "languages").glob("*/__init__.py"))


def _holds_code(path: Path) -> bool:
    """A module with more than a docstring (an ``__init__.py`` that is only one is no module of the map)."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return path.name != "__init__.py" or len(body) > 1


def _code_module(imported: str) -> str | None:
    """The code toolset module an import names (``a.b.C`` -> ``a.b`` when ``a.b`` is the module)."""
    while imported.startswith(CODE):
        if imported in MODULES:
            return imported
        imported = imported.rpartition(".")[0]
    return None


def test_the_code_package_map_lists_every_module():
    import graphlore.toolsets.code as code

    listed: set[str] = set()
    folders: list[tuple[int, str]] = []   # (indent, folder) of the packages around the current line
    for indent, name in re.findall(r"^( +)([\w/]+\.py|\w+/)\s", code.__doc__, re.M):
        folders = [(i, f) for i, f in folders if i < len(indent)]
        path = "".join(f for _, f in folders) + name
        if name.endswith("/"):
            folders.append((len(indent), name))
        else:
            listed.add(path)
    modules = {str(p.relative_to(CODE_DIR)) for p in CODE_DIR.rglob("*.py")
               if p != CODE_DIR / "__init__.py" and _holds_code(p)}
    assert sorted(modules - listed) == [] and sorted(listed - modules) == []
    assert len(LANGUAGE_PACKAGES) >= 3


def test_code_packages_import_only_the_packages_above_them():
    def layer(module: str) -> int:
        part = module[len(CODE) + 1:].split(".")[0]
        return CODE_LAYERS.index(part) if part in CODE_LAYERS else len(CODE_LAYERS)

    bad = [f"{m} imports {i}" for m, imports in MODULES.items() if m.startswith(CODE + ".")
           for i in imports if i.startswith(CODE + ".") and layer(i) > layer(m)]
    assert bad == []


def test_no_language_package_imports_another_and_only_the_registry_reaches_one():
    def language_of(module: str) -> str | None:
        parts = module.split(".")
        return parts[4] if len(parts) > 4 and parts[:4] == CODE.split(".") + ["languages"] and \
            parts[4] in LANGUAGE_PACKAGES else None

    def forbidden(importer: str, imported: str) -> bool:
        theirs = language_of(imported)
        if theirs is None or language_of(importer) == theirs:
            return False
        if language_of(importer) is not None:
            return True   # one language package importing another
        framework_constants = importer.startswith(CODE + ".frameworks.") and imported.startswith(
            f"{CODE}.languages.{theirs}.constants")
        return importer != f"{CODE}.languages.registry" and not framework_constants

    assert offenders(CODE, forbidden) == []


def test_the_code_toolset_has_no_import_cycle():
    graph = {m: {c for i in runtime_imports(SRC.parent / (m.replace(".", "/") + ".py")
                                           if (SRC.parent / (m.replace(".", "/") + ".py")).exists()
                                           else SRC.parent / m.replace(".", "/") / "__init__.py", type_checking=True)
                 if (c := _code_module(i)) is not None and c != m}
             for m in MODULES if m == CODE or m.startswith(CODE + ".")}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}   # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for imported in sorted(graph.get(module, ())):
            if state.get(imported) == 1:
                cycles.append(path[path.index(imported):] + [imported])
            elif imported not in state:
                visit(imported, [*path, imported])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []
