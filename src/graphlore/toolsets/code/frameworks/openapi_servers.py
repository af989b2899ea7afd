"""Contract-first routes: the operations of an OpenAPI document a service serves through generated code or a
runtime router (``framework: openapi``, ``source_layer: config``, at the document's ``file:line``).

- **Interface generators** (the module's build configures one: `services.openapi_docs.server_generator`;
  ``quarkus-openapi-generator-server``, openapi-generator's ``spring`` (``interfaceOnly``, ``delegatePattern``;
  not its client libraries), ``jaxrs-spec``, ``kotlin-spring`` ...): the generated interface is not in the repository,
  and the project implements it with un-annotated methods named by each ``operationId``. The handler is the
  method of that name in a class of the same service that implements (or extends) a type the repository does
  not define; none, or several, leave the route without a handler and say why (never a guess).
- **connexion** (Python; a file of the service imports it, and it reads the document at run time): the handler
  is the function the dotted ``operationId`` names (``pkg.module.func``); when every ``add_api`` call is given
  its document as a string, only those documents are served.

Each route's path carries the document's base path (`services.openapi_docs`). The documents are read with the
module's settings, so a changed document is read again by the next update as a full build reads it.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from ..languages.folding import literal
from ..languages.symbols import Bound
from ..model import TYPE_KINDS, module_id
from ..services.endpoints import Item, normalise_path
from ..services.openapi_docs import Operation
from .base import Framework, Project, Reader

FLAVOR = "openapi"
_KEYWORD = re.compile(r"^[A-Za-z_]\w*\s*=(?!=)")
JVM = ("java", "kotlin")
METHOD_KINDS = frozenset({"method", "function"})
#: the platform's packages and the ``java.lang`` types a class names without an import: never a generated type
PLATFORM_PACKAGES = ("java.", "javax.", "jakarta.", "kotlin.")
JAVA_LANG = frozenset({"Runnable", "Comparable", "Cloneable", "AutoCloseable", "Iterable", "CharSequence", "Appendable",
                       "Readable", "Object", "Record", "Thread", "Exception", "RuntimeException", "Throwable", "Error",
                       "Enum", "Number"})


class _Defined:
    """The repository's types, by simple name and by fully qualified name: whether a supertype as written is one."""

    def __init__(self, project: Project) -> None:
        self.names: dict[str, int] = {}
        self.fqns: set[str] = set()
        for bound in project.table.files.values():
            if bound.facts.language not in JVM:
                continue   # a JVM class implements JVM types only
            for index, sym in enumerate(bound.facts.symbols):
                if sym.kind in TYPE_KINDS:
                    self.names[sym.name] = self.names.get(sym.name, 0) + 1
                    self.fqns.add(bound.fqns[index])

    def external(self, written: str, own_name: str) -> bool:
        """Whether ``written`` (a supertype of the class ``own_name``) names no type of the repository: a qualified
        name by its fqn; a simple name when no type but the class itself has it (a class never implements itself,
        so ``class NarrationResource implements api.NarrationResource`` names the generated one)."""
        name = written.split("<", 1)[0].strip()
        if "." in name:
            return name not in self.fqns
        return self.names.get(name, 0) - (name == own_name) <= 0


def _platform(bound: Bound, written: str) -> bool:
    """Whether a supertype as written is the platform's (``Serializable``, ``java.lang.Runnable``, a ``jakarta.*``
    import...): a type no generator writes, so a class implementing it is no generated interface's implementor."""
    name = written.split("<", 1)[0].strip()
    if "." not in name:
        if name in JAVA_LANG:
            return True
        name = next((i.target for i in bound.facts.imports if i.target.rsplit(".", 1)[-1] == name), name)
    return name.startswith(PLATFORM_PACKAGES)


def _external_implementors(bounds: list[Bound], defined: _Defined) -> dict[str, list[tuple[Bound, int]]]:
    """operation name -> the methods of that name in classes that implement a type the repository lacks (and the
    platform does not define)."""
    out: dict[str, list[tuple[Bound, int]]] = {}
    for bound in bounds:
        symbols = bound.facts.symbols
        classes = {sym.key for sym in symbols if sym.kind in TYPE_KINDS and sym.kind != "interface"
                   and any(defined.external(name, sym.name) and not _platform(bound, name) for _, name in sym.supers)}
        for index, sym in enumerate(symbols):
            if sym.kind in METHOD_KINDS and sym.parent in classes:
                out.setdefault(sym.name, []).append((bound, index))
    return out


def _connexion_functions(bounds: list[Bound]) -> dict[str, list[tuple[Bound, int]]]:
    out: dict[str, list[tuple[Bound, int]]] = {}
    for bound in bounds:
        for index, sym in enumerate(bound.facts.symbols):
            if sym.kind in METHOD_KINDS:
                out.setdefault(bound.fqns[index], []).append((bound, index))
    return out


def _connexion_documents(bounds: list[Bound]) -> set[str] | None:
    """The file names of the documents the service's ``add_api`` calls are given, when each is a string as
    written; None when there is none, or one is not a literal (then which document is served is not known here)."""
    names: set[str] = set()
    for bound in bounds:
        for call in bound.facts.calls:
            if call.name != "add_api":
                continue
            first = next((a for a in call.args if not _KEYWORD.match(a) or a.startswith("specification")), "")
            first = first.split("=", 1)[1].strip() if first.startswith("specification") else first.strip()
            if len(first) < 2 or first[0] not in "'\"" or first[-1] != first[0]:
                return None
            names.add(PurePosixPath(first[1:-1]).name)
    return names or None


def _route(op: Operation, module: str, microservice: str, handler: tuple[Bound, int] | None, why: str) -> Item:
    problems = [p for p in (why, op.problem) if p]
    owner, owner_fqn = (handler[0].ids[handler[1]], handler[0].fqns[handler[1]]) if handler else (
        module_id(module), module)
    return Item(kind="route", owner=owner, owner_fqn=owner_fqn, microservice=microservice, module=module, file=op.file,
                line=op.line, flavor=FLAVOR, http_method=op.method, path=literal(normalise_path(op.path)),
                written=f"{op.method} {op.path} (operationId {op.operation_id or 'none'})", source_layer="config",
                problems=problems)


def _handler(op: Operation, found: dict[str, list[tuple[Bound, int]]], what: str) -> tuple[tuple[Bound, int] | None, str]:
    if not op.operation_id:
        return None, "the operation has no operationId: no handler is named"
    candidates = found.get(op.operation_id, [])
    if len(candidates) == 1:
        return candidates[0], ""
    if not candidates:
        return None, f"no {what} named {op.operation_id!r} in the service"
    where = ", ".join(sorted(f"{b.path}:{b.facts.symbols[i].line_start}" for b, i in candidates))[:160]
    return None, f"{len(candidates)} handlers named {op.operation_id!r}, each a {what} ({where}): not told apart"


def contract_routes(files: list[Bound], project: Project) -> dict[str, list[Item]]:
    """The contract-first routes of the project, by the path of the file that reads them (see the docstring)."""
    by_module: dict[str, list[Bound]] = {}
    for bound in files:
        by_module.setdefault(bound.ctx.module, []).append(bound)
    defined: _Defined | None = None
    out: dict[str, list[Item]] = {}
    for module, values in sorted(project.settings.items()):
        bounds = by_module.get(module)
        if not values.openapi or not bounds:
            continue
        microservice = bounds[0].ctx.microservice
        service_bounds = [b for b in files if b.ctx.microservice == microservice]
        ops = values.openapi
        if values.openapi_generator:
            defined = defined or _Defined(project)
            found = _external_implementors([b for b in service_bounds if b.facts.language in JVM], defined)
            what = f"method of a class implementing a generated type ({values.openapi_generator})"
        elif any(i.target.split(".")[0] == "connexion" for b in service_bounds if b.facts.language == "python"
                 for i in b.facts.imports):
            python = [b for b in service_bounds if b.facts.language == "python"]
            found = _connexion_functions(python)
            what = "function (connexion)"
            given = _connexion_documents(python)
            if given is not None:   # only the documents ``add_api`` is given: another is a client's contract
                ops = [op for op in ops if PurePosixPath(op.file).name in given]
        else:
            continue   # a document nothing serves here: a client's contract, documentation
        for op in ops:
            handler, why = _handler(op, found, what)
            anchor = handler[0].path if handler else bounds[0].path
            out.setdefault(anchor, []).append(_route(op, module, microservice, handler, why))
    return out


def prepare(files: list[Bound], project: Project) -> Reader:
    found = contract_routes(files, project)
    return lambda bound: found.get(bound.path, [])


#: it reads its languages' files (tests too: `_Defined`) and the module settings, which hold the documents
FRAMEWORK = Framework("openapi_servers", (*JVM, "python"), prepare)
