"""Spring's functional endpoints (WebFlux ``RouterFunction``s, and WebMvc.fn's, the same API), read from the facts of
Java files that import ``org.springframework.web.reactive.function.server`` or ``...web.servlet.function``.

A route is ``RouterFunctions.route(GET("/orders/{id}"), handler::get)`` (also ``RequestPredicates.GET(..)``, and a
predicate narrowed with ``.and(accept(..))``), each ``.andRoute(POST("/x"), ..)`` after it, and each
``GET("/x", handler::m)`` / ``POST(..)``... of a builder chain that starts at ``route()``; the path is folded like a
mapping's, under the service's context path. A route nested under a prefix (``nest(path("/api"), ..)``,
``.andNest(..)``, a builder's ``.path("/api", ..)``/``.nest(..)``, also the routes of a method of the file that a nest's
arguments call) is read with the prefix unknown, so it links nothing and says why, rather than with a path it does not
have. (A router function nested from another file or handed in as a bean is not seen. Kotlin's ``router { }``/
``coRouter { }`` DSL is not read.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import literal, unknown
from ..languages.symbols import Bound
from ..model import CallFact
from ..services.endpoints import HTTP_METHODS, Item, join_paths
from .base import Framework, Project, Reader, item
from .jvm import JavaFile, constants
from .spring import context_path

PACKAGES = ("org.springframework.web.reactive.function.server", "org.springframework.web.servlet.function")
#: a request predicate: ``GET("/x")``, ``RequestPredicates.GET("/x")``, optionally ``.and(...)`` after it
_PREDICATE = re.compile(r"^(?:RequestPredicates\s*\.\s*)?([A-Z]+)\s*\(\s*(.+?)\s*\)\s*(?:\.\s*and\s*\(.*\))?$", re.S)


def _uses(bound: Bound) -> bool:
    return bound.facts.language == "java" and any(i.target.startswith(PACKAGES) for i in bound.facts.imports)


def _chain(receiver) -> list[str]:
    """The names of the calls a receiver chains through, innermost first (``route().GET(..)`` -> ``["route", "GET"]``)."""
    names: list[str] = []
    while receiver and receiver[0] == "call":
        names.append(receiver[2])
        receiver = receiver[1]
    return names[::-1]


def prepare(files: list[Bound], project: Project) -> Reader:
    consts = constants(project)

    def read(bound: Bound) -> Iterator[Item]:
        if not project.memo.get("router_functions", bound, _uses):
            return
        values = project.values(bound.ctx.module)
        jf = JavaFile(bound, consts, values)
        context = context_path(values)
        by_key = {sym.key: index for index, sym in enumerate(bound.facts.symbols)}
        nesting = [c for c in bound.facts.calls if c.name in ("nest", "andNest") or c.name == "path" and c.args and
                   c.receiver and _chain(c.receiver)[:1] == ["route"]]
        # the routes a nest's arguments build: in the same method, or in a method of the file they call
        called = {name for c in nesting for arg in c.args for name in re.findall(r"\b([A-Za-z_]\w*)\s*\(", arg)}
        nested = {c.owner for c in nesting} | {sym.key for sym in bound.facts.symbols
                                               if sym.kind == "method" and sym.name in called}
        for call in bound.facts.calls:
            found = _route(call)
            if found is None:
                continue
            method, written = found
            class_key = call.owner.split("#", 1)[0]
            path = jf.fold(written, class_key, call.owner, call.line)
            prefix = unknown("the route is nested under a prefix (nest/path) this reader does not follow") \
                if call.owner in nested else literal("")
            full = join_paths([context, prefix, path])
            yield item(bound, by_key.get(call.owner, -1), "route", "spring_router_function", call.name_line or call.line,
                       http_method=method, path=full, written=written)

    return read


def _route(call: CallFact) -> tuple[str, str] | None:
    """(HTTP method, the path as written) of a route call, else None."""
    if call.kind != "call":
        return None
    if call.name in ("route", "andRoute") and len(call.args) >= 2 and (
            call.name == "andRoute" or call.receiver in (None, ["name", "RouterFunctions"])):
        predicate = _PREDICATE.match(call.args[0].strip())
        if predicate is None or predicate.group(1) not in HTTP_METHODS:
            return None
        return predicate.group(1), predicate.group(2)
    if call.name in HTTP_METHODS and len(call.args) >= 2 and call.receiver and call.receiver[0] == "call" and \
            _chain(call.receiver)[:1] == ["route"]:
        return call.name, call.args[0]
    return None


FRAMEWORK = Framework("router_functions", ("java",), prepare)

