"""Import directions and the public surface, read from the source with ``ast``.

- A toolset imports the core only: never another toolset, never an adapter.
- The store and search never import a toolset or an adapter; the store never imports the embedder
  (it takes vectors; an embedder appears only in type hints).
- Adapters reach toolsets through the registry (``graphlore.toolsets``), never a toolset package.
- No import cycle anywhere in ``graphlore``, imports inside functions included (those under
  ``if TYPE_CHECKING:`` are left out: they never run).
- ``graphlore.__all__`` is exactly what the package exports.
- The code toolset: its package map lists every module; its packages import only the packages above them
  in the map; no language package imports another, and only the registry (and a framework, for its
  language's constants) reaches into one; no module imports itself back, even through a function-level
  or ``TYPE_CHECKING`` import.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from helpers.source import SRC, module_source, source_files

import graphlore
from graphlore.toolsets import TOOLSETS


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_statements(path: Path, type_checking: bool = False) -> list[tuple[str, tuple[str, ...]]]:
    """Every import of ``path`` that can run, at module level or inside a function (``if TYPE_CHECKING:``
    blocks left out unless ``type_checking``): (the module named, resolved when relative; the names taken
    from it, () for ``import``)."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]  # a module's relative imports start from its package
    found: list[tuple[str, tuple[str, ...]]] = []
    for statement in module_source(path).imports:
        if statement.type_checking and not type_checking:
            continue
        if statement.module is None and not statement.level:  # import a, b.c
            found.extend((name, ()) for name in statement.names)
            continue
        base = statement.module or ""
        if statement.level:  # relative import: from the module's package, one package up per extra dot
            base = ".".join(package[: len(package) - statement.level + 1] + ([base] if base else []))
        found.append((base, statement.names))
    return found


def runtime_imports(path: Path, type_checking: bool = False) -> set[str]:
    """Modules and names imported by ``path`` (``graphlore.x`` and ``graphlore.x.name``), anywhere in it,
    leaving out ``if TYPE_CHECKING:`` blocks unless ``type_checking``."""
    statements = import_statements(path, type_checking)
    found = {f"{base}.{name}" for base, names in statements for name in names}
    found |= {base for base, _ in statements}
    return {name for name in found if name.startswith("graphlore")}


def import_graph() -> dict[str, set[str]]:
    """graphlore module -> the graphlore modules it imports; ``from package import name`` is the submodule
    ``package.name`` when there is one (as Python loads it), else the package."""
    modules = {module_name(p): p for p in source_files()}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        edges: set[str] = set()
        for base, names in import_statements(path):
            targets = [f"{base}.{n}" if f"{base}.{n}" in modules else base for n in names] or [base]
            edges.update(t for t in targets if t in modules and t != module)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: its strongly connected components of two modules or more (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


@functools.cache
def modules() -> dict[str, set[str]]:
    """graphlore module -> what it imports at run time; read when a test first asks, not at collection (every
    worker of a parallel run collects this file, and reading the whole tree costs seconds)."""
    return {module_name(p): runtime_imports(p) for p in source_files()}


def offenders(importer_prefix: str, forbidden: callable) -> list[str]:
    return sorted(f"{m} imports {i}" for m, imports in modules().items() if m.startswith(importer_prefix)
                  for i in imports if forbidden(m, i))


def test_the_source_tree_was_read():
    assert len(modules()) > 30 and "graphlore.store.sqlite.store" in modules()


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
    bad = [f"{m} imports {i}" for m in core for i in modules()[m]
           if i.startswith(("graphlore.toolsets.", "graphlore.adapters"))]
    assert bad == []


def test_adapters_reach_toolsets_only_through_the_registry():
    def forbidden(importer: str, imported: str) -> bool:
        registry = ("graphlore.toolsets.load_toolset", "graphlore.toolsets.select", "graphlore.toolsets.TOOLSETS",
                    "graphlore.toolsets.ExtraMissing")
        return imported.startswith("graphlore.toolsets.") and not imported.startswith(registry)

    assert offenders("graphlore.adapters", forbidden) == []


def test_the_cycle_finder_finds_cycles_through_any_number_of_modules():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"c"}}) == []


def test_a_function_level_import_and_a_relative_one_are_edges(tmp_path):
    graph = import_graph()
    assert "graphlore.adapters.mcp" in graph["graphlore.adapters.cli"]  # imported inside serve()
    assert "graphlore.toolsets.code.model" in graph["graphlore.toolsets.code.index.code_index"]  # from ..model import
    assert "graphlore.toolsets.facts.render" in graph["graphlore.toolsets.facts.cli"]  # from package import module


def test_no_import_cycle_function_level_imports_included():
    """A cycle makes the import order matter and every module of it load the others; imports moved into
    functions only hide one. Under ``if TYPE_CHECKING:`` an import never runs and does not count."""
    assert cycles(import_graph()) == []


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
    return path.name != "__init__.py" or module_source(path).body_length > 1


def _code_module(imported: str) -> str | None:
    """The code toolset module an import names (``a.b.C`` -> ``a.b`` when ``a.b`` is the module)."""
    while imported.startswith(CODE):
        if imported in modules():
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

    bad = [f"{m} imports {i}" for m, imports in modules().items() if m.startswith(CODE + ".")
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
             for m in modules() if m == CODE or m.startswith(CODE + ".")}
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


def test_the_source_reader_finds_an_import_in_every_kind_of_block(tmp_path):
    """The reader walks statements only (expressions hold none): an import nested in any block is found, in
    source order, and one under ``if TYPE_CHECKING:`` is marked."""
    path = tmp_path / "nested.py"
    path.write_text(
        "import a\n"
        "if TYPE_CHECKING:\n    import b\nif a:\n    pass\nelse:\n    import c\n"
        "try:\n    import d\nexcept ImportError:\n    import e\nelse:\n    import f\nfinally:\n    import g\n"
        "class K:\n    @staticmethod\n    def m(x=lambda: 0):\n        with open(x):\n            import h\n"
        "for _ in ():\n    import i\nelse:\n    import j\n"
        "while False:\n    import k\n"
        "match 1:\n    case 1 if True:\n        import m\n"
        "async def n():\n    async with x:\n        from . import o\n", encoding="utf-8")
    found = module_source(path).imports
    assert [s.names[0] for s in found] == list("abcdefghijkmo")
    assert [s.names[0] for s in found if s.type_checking] == ["b"]
    assert found[-1].level == 1
