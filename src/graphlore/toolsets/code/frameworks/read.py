"""Part 2 over the whole project: read every file's routes, clients and producers, fold their values with
the project's constants and each module's settings, and link them (`links.py`).

It runs after every update of the graph, over every file's facts (no file is parsed again), so its
records always equal a full build's. Each module's settings are read again only when a build or settings
file changed (the layout's key).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..languages.folding import JavaConstants
from ..model import GraphEdge, GraphNode
from ..services.endpoints import Item
from ..services.links import link
from ..services.settings import Values, module_values
from .python_web import PythonProject, read_python
from .script_web import ScriptProject, read_script
from .spring import JavaFile, annotations, attr, file_bases, read_java

if TYPE_CHECKING:
    from ..index.graph import CodeGraph

CONTROLLER_ANNOTATIONS = frozenset({"RestController", "Controller"})


def _meta_controllers(graph: CodeGraph) -> set[str]:
    """Project annotation types annotated ``@RestController`` / ``@Controller`` (meta-annotations)."""
    out = set()
    for bound in graph.table.files.values():
        if bound.facts.language == "java":
            for sym in bound.facts.symbols:
                if sym.kind == "annotation" and annotations(sym).keys() & CONTROLLER_ANNOTATIONS:
                    out.add(sym.name)
    return out


def _application_paths(graph: CodeGraph, constants: JavaConstants) -> dict[str, str]:
    """Module path -> the JAX-RS ``@ApplicationPath`` declared in it."""
    out = {}
    for bound in graph.table.files.values():
        if bound.facts.language != "java" or bound.ctx.is_test:
            continue
        for sym in bound.facts.symbols:
            found = annotations(sym).get("ApplicationPath")
            if found is not None and sym.kind == "class":
                jf = JavaFile(bound, constants, Values(), set(), "")
                value = jf.fold(attr(found, "value"), sym.key)
                if value.known:
                    out[bound.ctx.module] = value.text
    return out


def service_records(graph: CodeGraph, values: dict[str, Values]) -> tuple[list[GraphNode], list[GraphEdge]]:
    constants = JavaConstants(graph.table)
    controllers = _meta_controllers(graph)
    application_paths = _application_paths(graph, constants)
    items: list[Item] = []
    empty = Values()
    java = [JavaFile(bound, constants, values.get(bound.ctx.module, empty), controllers,
                     application_paths.get(bound.ctx.module, ""))
            for path, bound in sorted(graph.table.files.items())
            if bound.facts.language == "java" and not bound.ctx.is_test]
    bases: dict[str, dict] = {}
    for jf in java:
        module = bases.setdefault(jf.bound.ctx.module, {})
        for (owner, flavor), found in file_bases(jf).items():
            module.setdefault((f"{jf.bound.path}:{owner}", flavor), []).extend(found)
    for jf in java:
        jf.module_bases = bases.get(jf.bound.ctx.module, {})
        items += read_java(jf)
    sources = [b for _, b in sorted(graph.table.files.items()) if not b.ctx.is_test]
    python = [b for b in sources if b.facts.language == "python"]
    if python:
        py_project = PythonProject(python)
        for bound in python:
            items += read_python(py_project, bound)
    scripts = [b for b in sources if b.facts.language in ("typescript", "javascript")]
    if scripts:
        js_project = ScriptProject(scripts)
        for bound in scripts:
            items += read_script(js_project, bound)
    assert graph.layout is not None
    return link(items, graph.layout)


def settings_of(graph: CodeGraph) -> dict[str, Values]:
    assert graph.layout is not None
    return module_values(graph.layout, graph.root)
