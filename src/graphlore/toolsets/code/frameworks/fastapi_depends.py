"""FastAPI dependencies as ``TRIGGERS`` edges: the framework calls ``fn`` before a function whose parameters or
decorator name ``Depends(fn)`` (``Security(fn)`` too), so "who uses the superuser check" has an answer.

Read per function of a module that imports ``fastapi``: a decorator's ``dependencies=[Depends(fn), ...]``, a
parameter's default ``= Depends(fn)`` or annotation ``Annotated[T, Depends(fn)]``, and a parameter annotated with a
module-level alias of that form (``CurrentUser = Annotated[User, Depends(get_current_user)]``, in the module or
imported). Dependencies of dependencies follow the same way (a dependency function's own parameters). ``fn`` is
resolved as the module names it (its own function, or a ``from ... import``); a name that is no project function
gives no edge. Router-wide ``APIRouter(dependencies=...)`` and ``include_router(..., dependencies=...)`` are not read.
Props: ``kind: framework_callback``, ``via`` (``Depends(fn)``), ``line``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.python.constants import import_target
from ..languages.symbols import Bound, Table
from ..model import GraphEdge, make_edge

_DEPENDS = re.compile(r"\b(?:Depends|Security)\(\s*([A-Za-z_][\w.]*)")
_NAME = re.compile(r"^[A-Za-z_]\w*$")
_FUNCTIONS = frozenset({"function", "method"})


def dependency_edges(table: Table) -> Iterator[GraphEdge]:
    # modules by name as each microservice sees them: its own, then a name only one service has (a shared
    # library's); two services' ``app.deps`` are two modules, neither standing for the other
    by_service: dict[str, dict[str, Bound]] = {}
    owners: dict[str, set[str]] = {}
    for _, b in sorted(table.files.items()):
        if b.facts.language == "python" and not b.ctx.is_test and b.ctx.module_name:
            by_service.setdefault(b.ctx.microservice, {})[b.ctx.module_name] = b
            owners.setdefault(b.ctx.module_name, set()).add(b.ctx.microservice)
    shared = {name: modules[name] for modules in by_service.values() for name in modules if len(owners[name]) == 1}
    for own in by_service.values():
        yield from _service_edges(own, {**shared, **own})


def _service_edges(own: dict[str, Bound], modules: dict[str, Bound]) -> Iterator[GraphEdge]:
    for bound in own.values():
        if not any(imp.target == "fastapi" or imp.target.startswith("fastapi.") for imp in bound.facts.imports):
            continue
        for index, sym in enumerate(bound.facts.symbols):
            if sym.kind not in _FUNCTIONS:
                continue
            for written, where in _dependencies(modules, bound, sym):
                target = _resolve(modules, where, written)
                if target is not None and target != bound.ids[index]:
                    yield make_edge(bound.ids[index], "TRIGGERS", target,
                                    {"kind": "framework_callback", "via": f"Depends({written})", "line": sym.line_start})


def _dependencies(modules: dict[str, Bound], bound: Bound, sym) -> Iterator[tuple[str, Bound]]:
    """(``fn`` as written, the module it is written in) for each dependency of one function."""
    for annotation in sym.annotations:
        for key, value in annotation.args:
            if key == "dependencies":
                yield from ((name, bound) for name in _DEPENDS.findall(value))
    yield from ((name, bound) for name in _DEPENDS.findall(_parameters(getattr(sym, "signature", "") or "")))
    for _, type_ in getattr(sym, "params", ()) or ():
        if _NAME.match(type_ or ""):
            found = _alias(modules, bound, type_, 0)
            if found is not None:
                yield from ((name, found[0]) for name in _DEPENDS.findall(found[1]))


def _parameters(signature: str) -> str:
    """The parameter list of a ``def`` line as written (the return annotation left out)."""
    start = signature.find("(")
    depth = 0
    for index in range(start, len(signature)):
        depth += {"(": 1, ")": -1}.get(signature[index], 0)
        if depth == 0:
            return signature[start:index + 1]
    return signature[start:]


def _alias(modules: dict[str, Bound], bound: Bound, name: str, hops: int) -> tuple[Bound, str] | None:
    """(module, text) of a module-level ``name = Annotated[...]`` the module assigns once or imports."""
    assigned = bound.facts.extra.get("assigns", {}).get("", {}).get(name, ())
    if len(assigned) == 1 and assigned[0][1]:
        return bound, assigned[0][1][0]
    found = _imported(modules, bound, name)
    return _alias(modules, found[0], found[1], hops + 1) if found is not None and hops < 3 else None


def _imported(modules: dict[str, Bound], bound: Bound, name: str) -> tuple[Bound, str] | None:
    """(module, name there) a ``from module import name`` of ``bound`` brings."""
    is_package = bound.path.endswith("__init__.py")
    for imp in bound.facts.imports:
        for imported, alias in imp.names:
            if alias == name and imported != imp.target:
                target = import_target(bound.ctx.module_name, imp.target, is_package, modules.__contains__)
                if target in modules:
                    return modules[target], imported
    return None


def _resolve(modules: dict[str, Bound], bound: Bound, written: str, hops: int = 0) -> str | None:
    """The id of the project function ``written`` names in ``bound`` (its own, or imported), else None."""
    if "." in written:
        head, _, rest = written.partition(".")
        module = _module_named(modules, bound, head)
        return _resolve(modules, module, rest, hops + 1) if module is not None and hops < 3 else None
    for index, sym in enumerate(bound.facts.symbols):
        if sym.key == written and sym.kind in _FUNCTIONS:
            return bound.ids[index]
    found = _imported(modules, bound, written)
    return _resolve(modules, found[0], found[1], hops + 1) if found is not None and hops < 3 else None


def _module_named(modules: dict[str, Bound], bound: Bound, name: str) -> Bound | None:
    """The project module ``name`` stands for in ``bound`` (``from app.api import deps``, ``import app.deps as d``)."""
    is_package = bound.path.endswith("__init__.py")
    for imp in bound.facts.imports:
        for imported, alias in imp.names:
            if alias == name:
                target = import_target(bound.ctx.module_name, imp.target, is_package, modules.__contains__)
                for candidate in (f"{target}.{imported}", target):
                    if candidate in modules:
                        return modules[candidate]
    return None
