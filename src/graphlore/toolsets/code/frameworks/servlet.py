"""Servlets (Java EE, Jakarta EE): a route per URL pattern of each servlet class, for each HTTP method it handles.

**Patterns.** ``@WebServlet`` (``value``, ``urlPatterns``: one string or an array) and the module's ``web.xml``
``<servlet-mapping>`` of the class (`services.webapp`; ``@WebServlet`` not when ``web.xml`` is
``metadata-complete``, as the container ignores it), under the war's context root (``/{?}`` when the
deployment chooses it). ``/x`` is that path; ``/x/*`` the path and all below (``/x/**``); ``/`` (the default
servlet) and ``/*`` everything; ``*.do`` any path with that extension.

**Methods.** The ``doGet``, ``doPost``... it declares or inherits from a project class (``HttpServlet``'s own
answer 405), each filed at the method that declares it; one inherited from a project base class is filed at the
servlet's own method it hands the request to (a template method the servlet overrides: the base's ``doGet`` calls
``handleGet``), else at the class; ``service`` overridden: any method. A servlet whose
handlers are nowhere in the project (its base class is a library's) is one route for any method, unresolved,
saying so. A JAX-RS servlet or ``Application`` subclass (`frameworks.jaxrs`) is not one of these: its routes
are its resources'.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..languages.folding import Folded, literal, unknown
from ..languages.symbols import Bound
from ..services.endpoints import ANY, Item, join_paths
from .base import Framework, Project, Reader, item
from .jaxrs import SERVLETS as JAXRS_SERVLETS
from .jvm import JVM_LANGUAGES, JavaFile, Types, annotations, attr, constants

HANDLERS = {"doGet": "GET", "doPost": "POST", "doPut": "PUT", "doDelete": "DELETE", "doHead": "HEAD",
            "doOptions": "OPTIONS", "doTrace": "TRACE", "doPatch": "PATCH", "service": ANY}


def pattern_path(pattern: str) -> str:
    """A servlet URL pattern as a route template (see the module docstring)."""
    if pattern in ("/", "/*"):
        return "/**"
    if pattern.startswith("*."):
        return f"/**/{pattern}"
    if pattern.endswith("/*"):
        return pattern[:-2] + "/**"
    return pattern if pattern.startswith("/") else f"/{pattern}"


def _handlers(types: Types, bound: Bound, index: int, depth: int = 0) -> dict[str, tuple[Bound, int]]:
    """HTTP method -> (file, method) of the nearest declaration of each handler the class declares or inherits."""
    facts = bound.facts
    out: dict[str, tuple[Bound, int]] = {}
    for member in bound.members(facts.symbols[index].key):
        sym = facts.symbols[member]
        if sym.kind == "method" and sym.name in HANDLERS and "abstract" not in sym.modifiers:
            out.setdefault(HANDLERS[sym.name], (bound, member))
    for super_bound, super_index in types.supers(bound, index) if depth < 8 else ():
        for verb, found in _handlers(types, super_bound, super_index, depth + 1).items():
            out.setdefault(verb, found)
    return out


def prepare(files: list[Bound], project: Project) -> Reader:
    types = Types.of(project)
    consts = constants(project)

    def read(bound: Bound) -> Iterator[Item]:
        values = project.values(bound.ctx.module)
        web = values.webapp
        jf = JavaFile(bound, consts, values)
        for index, sym in enumerate(bound.facts.symbols):
            if sym.kind != "class" or "abstract" in sym.modifiers:
                continue
            fqn = bound.fqns[index]
            found = annotations(sym).get("WebServlet")
            patterns: list[tuple[str, Folded]] = []
            if found is not None and not web.metadata_complete:
                patterns += [(w, p) for w, p in jf.folds(attr(found, "urlPatterns", "value"), sym.key) if w]
            mapped = web.mappings.get(fqn, [])
            if not patterns and not mapped or fqn.rsplit(".", 1)[-1] in JAXRS_SERVLETS or any(
                    w.split("<", 1)[0].rsplit(".", 1)[-1] == "Application" for _, w in sym.supers):
                continue
            patterns += [(p, literal(p)) for p in mapped if p not in {w.strip('"') for w, _ in patterns}]
            yield from _routes(jf, types, index, patterns, web)
    return read


def _routes(jf: JavaFile, types: Types, index: int, patterns: list[tuple[str, Folded]], web) -> Iterator[Item]:
    context = unknown(f"the context root: {web.context_source}") if web.context_root is None else literal(
        web.context())
    handlers = _handlers(types, jf.bound, index)
    if ANY in handlers:
        handlers = {ANY: handlers[ANY]}
    for written, pattern in patterns:
        path = join_paths([context, literal(pattern_path(pattern.text)) if pattern.known else pattern])
        if not handlers:
            route = item(jf.bound, index, "route", "servlet", http_method=ANY, path=path, written=written)
            route.problems.append("the methods it handles are not in the project (its servlet base class is a "
                                  "library's)")
            yield route
        for verb, (bound, member) in sorted(handlers.items()):
            owner = member if bound is jf.bound else _template(jf.bound, index, bound, member)
            yield item(jf.bound, owner, "route", "servlet", None if owner != index else jf.facts.symbols[
                index].line_start, http_method=verb, path=path, written=written)


def _template(bound: Bound, index: int, base: Bound, member: int) -> int:
    """The method of the servlet class (``index`` in ``bound``) that an inherited handler (``member`` of ``base``)
    hands the request to: the one method of the class's own that the handler calls unqualified (or on ``this``) and
    that overrides the base's (a private or static one overrides nothing, nor is a base's private one overridden),
    directly or through the base's other methods it calls (a template method: ``doGet`` calls ``handleGet``, which
    the page overrides). None or several: the class itself (``index``)."""
    own = {}
    for i in bound.members(bound.facts.symbols[index].key):
        sym = bound.facts.symbols[i]
        if sym.kind == "method" and not {"abstract", "private", "static"} & set(sym.modifiers):   # overrides
            own.setdefault(sym.name, []).append(i)
    found: set[int] = set()
    seen: set[int] = set()
    todo = [(member, 0)]
    base_class = base.facts.symbols[member].parent
    while todo:
        at, level = todo.pop()
        if at in seen or level > 3:
            continue
        seen.add(at)
        key = base.facts.symbols[at].key
        for call in base.facts.calls:
            if call.owner != key or call.receiver not in (None, ["this"]):
                continue
            mine = [i for i, sym in enumerate(base.facts.symbols) if sym.parent == base_class and sym.kind == "method"
                    and sym.name == call.name]
            private = bool(mine) and all("private" in base.facts.symbols[i].modifiers for i in mine)
            if call.name in own and not private:   # a private method of the base is its own: never overridden
                found.update(own[call.name])
            else:   # the base's own method, not overridden here: what it calls
                todo += [(i, level + 1) for i in mine]
    return next(iter(found)) if len(found) == 1 else index


FRAMEWORK = Framework("servlet", JVM_LANGUAGES, prepare, reads=JVM_LANGUAGES)
