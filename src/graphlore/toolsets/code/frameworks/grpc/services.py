"""The gRPC services the project's ``.proto`` files declare, and how each language names their methods.

A service is known by its fully qualified name (``shop.v1.Orders``); copies of one ``.proto`` in several
folders (each service keeps its own) declare the same service once. Code names a service by its simple name
(``RegisterOrdersServer``, ``OrdersImplBase``, ``add_OrdersServicer_to_server``, ``Orders.OrdersBase``,
``proto.Orders.service``): it is the one fqn with that simple name, the one in the code's own microservice
when several packages declare it, else it is not known (and the route or client says why). A method is named
as declared (Go, Python, C#), in lowerCamelCase (Java, Kotlin, grpc-js), or with C#'s ``Async`` suffix.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ...languages.folding import literal
from ...languages.symbols import Bound, Table
from ...model import CallFact, SymbolFact
from ...services.endpoints import Item, normalise_path
from ..base import Project, item

#: what a generated stub answers besides the service's methods (grpc-java's AbstractStub, Grpc.Core's ClientBase),
#: left out when no .proto says which names are methods
STUB_API = frozenset({
    "withDeadline", "withDeadlineAfter", "withExecutor", "withCompression", "withCallCredentials",
    "withInterceptors", "withOption", "withMaxInboundMessageSize", "withMaxOutboundMessageSize", "withWaitForReady",
    "withOnReadyThreshold", "withChannel", "getChannel", "getCallOptions", "build", "WithHost", "close",
})


def lower_camel(name: str) -> str:
    return name[:1].lower() + name[1:]


def go_camel(name: str) -> str:
    """The Go identifier protoc-gen-go makes of a ``.proto`` name (its ``GoCamelCase``): each word starts upper
    case, ``_`` before a lower-case letter dropped (``readerService`` -> ``ReaderService``, ``order_service`` ->
    ``OrderService``, ``_x`` -> ``XX``)."""
    out: list[str] = []
    i = 0
    while i < len(name):
        c = name[i]
        following = name[i + 1] if i + 1 < len(name) else ""
        if c == "_" and (i == 0 or name[i - 1] == "."):
            out.append("X")
        elif c == "." or c == "_":
            if not ("a" <= following <= "z"):
                out.append("_")
        elif c.isdigit():
            out.append(c)
        else:
            out.append(c.upper() if "a" <= c <= "z" else c)
            while i + 1 < len(name) and "a" <= name[i + 1] <= "z":
                i += 1
                out.append(name[i])
        i += 1
    return "".join(out)


@dataclass
class GrpcServices:
    """Services by fqn (method name -> gRPC name) and fqns by simple name, with the services that declare them."""

    methods: dict[str, dict[str, str]] = field(default_factory=dict)
    by_simple: dict[str, set[str]] = field(default_factory=dict)
    declared_in: dict[str, set[str]] = field(default_factory=dict)
    #: gRPC name -> its grpc-gateway HTTP bindings (method, path) from the ``.proto``'s ``google.api.http``
    http: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: fqn -> the folders of the ``.proto`` files that declare it (where Go's generated package usually lives)
    folders: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, table: Table) -> GrpcServices:
        found = cls()
        for bound in table.files.values():
            if bound.facts.language != "proto" or bound.ctx.is_test:
                continue
            for index, sym in enumerate(bound.facts.symbols):
                if sym.kind == "method" and "grpc" in sym.extra:
                    service = sym.extra["grpc"].split("/", 1)[0]
                    found.methods.setdefault(service, {})[sym.name] = sym.extra["grpc"]
                    found.by_simple.setdefault(service.rsplit(".", 1)[-1], set()).add(service)
                    found.declared_in.setdefault(service, set()).add(bound.ctx.microservice)
                    found.folders.setdefault(service, set()).add(bound.path.rpartition("/")[0])
                    for verb, path in sym.extra.get("http", ()):
                        if (verb, path) not in found.http.setdefault(sym.extra["grpc"], []):
                            found.http[sym.extra["grpc"]].append((verb, path))
                elif sym.kind == "interface" and "grpc_service" in sym.modifiers:
                    fqn = bound.fqns[index]
                    found.methods.setdefault(fqn, {})
                    found.by_simple.setdefault(sym.name, set()).add(fqn)
                    found.declared_in.setdefault(fqn, set()).add(bound.ctx.microservice)
                    found.folders.setdefault(fqn, set()).add(bound.path.rpartition("/")[0])
        return found

    def go_declared(self, simple: str) -> str:
        """The name a ``.proto`` declares the service by that Go's generated code names ``simple`` (``service
        readerService`` is generated as ``RegisterReaderServiceServer``, ``NewReaderServiceClient``): ``simple``
        itself when a ``.proto`` declares it, else the one declared name whose `go_camel` it is, else ``simple``."""
        if simple in self.by_simple:
            return simple
        spelled = [name for name in self.by_simple if go_camel(name) == simple]
        return spelled[0] if len(spelled) == 1 else simple

    def service(self, simple: str, microservice: str, package: str = "") -> tuple[str | None, str]:
        """(the service's fqn, "") or (None, why it is not known). ``package``: the import path the code names the
        generated code by (Go's ``chatpb.RegisterUserServiceServer``), which picks among several services so named
        the one whose ``.proto`` sits in the folder that path ends with."""
        fqns = self.by_simple.get(simple, set())
        if len(fqns) == 1:
            return next(iter(fqns)), ""
        if not fqns:
            return None, f"no .proto in the project declares a gRPC service named {simple}"
        if package:
            beside = [f for f in fqns if any(folder and (package == folder or package.endswith("/" + folder))
                                             for folder in self.folders.get(f, ()))]
            if len(beside) == 1:
                return beside[0], ""
        local = [f for f in fqns if microservice in self.declared_in.get(f, ())]
        if len(local) == 1:
            return local[0], ""
        return None, f"{len(fqns)} proto packages declare a gRPC service named {simple} ({', '.join(sorted(fqns))})"

    def method(self, service: str, name: str) -> str | None:
        """The gRPC name of the service's method that ``name`` stands for, if any."""
        methods = self.methods.get(service, {})
        if name in methods:
            return methods[name]
        for candidate in (name[:1].upper() + name[1:], name.removesuffix("Async")):
            if candidate in methods:
                return methods[candidate]
        return None


def services(project: Project) -> GrpcServices:
    """The project's gRPC services (read once per update, whichever language asks first)."""
    return project.shared("grpc.services", lambda: GrpcServices.of(project.table))


class Reading:
    """What one language's gRPC reader hands out: routes for a served service, clients for stub calls."""

    def __init__(self, known: GrpcServices, bound: Bound):
        self.known = known
        self.bound = bound

    def routes(self, simple: str, handlers: dict[str, tuple[Bound, int]] | None, fallback: int,
               line: int, package: str = "") -> list[Item]:
        """Routes of service ``simple`` registered at ``line``: for each of its methods, the handler ``handlers``
        names (a method missing there is not served), or ``fallback`` (-1: the file) for every method when the
        implementation is not in the project (``handlers`` None)."""
        bound = self.bound
        service, why = self.known.service(simple, bound.ctx.microservice, package)
        if service is None:
            route = item(bound, fallback, "route", "grpc", line, grpc=f"{{?}}.{simple}/{{?}}", written=simple)
            route.problems.append(why)
            return [route]
        out = []
        for name, grpc in self.known.methods.get(service, {}).items():
            if handlers is None:
                out.append(item(bound, fallback, "route", "grpc", line, grpc=grpc, written=f"{simple}.{name}"))
                continue
            handler = next((h for n, h in handlers.items() if self.known.method(service, n) == grpc), None)
            if handler is not None:
                owner_bound, owner = handler
                out.append(item(owner_bound, owner, "route", "grpc", None, grpc=grpc, written=f"{simple}.{name}"))
        return out

    def implementations(self, base: re.Pattern[str], serves: Callable[[SymbolFact], bool]) -> Iterator[Item]:
        """Routes of the classes deriving from a generated service base (``base`` takes the service's simple
        name out of a supertype as written): each serves its methods for which ``serves`` holds."""
        facts = self.bound.facts
        for index, sym in enumerate(facts.symbols):
            if sym.kind != "class":
                continue
            for _relation, written in sym.supers:
                found = base.search(written.split("<", 1)[0])
                if found and found.group(1) in self.known.by_simple:
                    handlers = {facts.symbols[i].name: (self.bound, i) for i in self.bound.members(sym.key)
                                if facts.symbols[i].kind == "method" and serves(facts.symbols[i])}
                    yield from self.routes(found.group(1), handlers, index, sym.line_start)

    def gateway_routes(self, simple: str, owner: int, line: int) -> list[Item]:
        """The HTTP routes a grpc-gateway mux serves for service ``simple`` (``RegisterXHandlerFromEndpoint``):
        each binding of its methods' ``google.api.http`` rules, forwarding to the method (``forward_grpc``)."""
        service, why = self.known.service(simple, self.bound.ctx.microservice)
        if service is None:
            return []
        out = []
        for grpc in self.known.methods.get(service, {}).values():
            for verb, path in self.known.http.get(grpc, ()):
                out.append(item(self.bound, owner, "route", "grpc_gateway", line, http_method=verb,
                                path=literal(normalise_path(path)), written=f"{simple} {verb} {path}",
                                forward_grpc=grpc, source_layer="config"))
        return out

    def stub_call(self, simple: str, call: CallFact, *, certain: bool = False) -> list[Item]:
        """The client a call on a stub of service ``simple`` is. None when the call is the stub's own API rather
        than one of the service's methods, or when no ``.proto`` declares the service and the stub is not
        ``certain``ly a gRPC stub (its type named only by a loose pattern). A certain stub of an undeclared
        service is an unresolved client that says so: never dropped, never guessed."""
        if simple not in self.known.by_simple and (not certain or call.name in STUB_API):
            return []
        found = self.client(simple, call.name, owner_of(self.bound, call.owner), call.line, f"{simple}.{call.name}")
        return [found] if found is not None else []

    def client(self, simple: str, method_name: str, owner: int, line: int, written: str) -> Item | None:
        """A client of ``simple``'s method (None when ``method_name`` is none of its methods: a stub's own API)."""
        bound = self.bound
        service, why = self.known.service(simple, bound.ctx.microservice)
        if service is None:
            found = item(bound, owner, "client", "grpc", line, grpc=f"{{?}}.{simple}/{method_name}", written=written)
            found.problems.append(why)
            return found
        grpc = self.known.method(service, method_name)
        if grpc is None:
            return None
        return item(bound, owner, "client", "grpc", line, grpc=grpc, written=written, target=literal(service),
                    target_source="gRPC service")


def uses_grpc(bound: Bound) -> bool:
    """The file imports a gRPC library or generated gRPC code (``grpc``, ``io.grpc``, ``*_pb2_grpc``,
    ``Grpc.Core``, ``@grpc/grpc-js``): the files Java, Kotlin, Python, Node and C# servers and stubs live in
    (a cheap first look before reading every call)."""
    return any("grpc" in imp.target.lower() for imp in bound.facts.imports)


def owner_of(bound: Bound, key: str) -> int:
    """The index of the symbol a call site belongs to (-1: the file)."""
    return bound.by_key.get(key, -1) if key else -1
