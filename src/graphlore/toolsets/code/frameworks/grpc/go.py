"""gRPC in Go (grpc-go): grpc-gateway's ``pb.RegisterXHandlerFromEndpoint(ctx, mux, endpoint, opts)`` (also
``RegisterXHandler(ctx, mux, conn)``, ``...HandlerClient``, ``...HandlerServer``) serves, at the call, an HTTP route
for each ``google.api.http`` binding of ``X``'s methods in the ``.proto``, forwarding to the method
(`services.grpc_links.link_gateway`; the endpoint folded as a client's channel address, evidence only);
``pb.RegisterXServer(srv, impl)`` serves service ``X`` (the ``.proto``'s name as protoc-gen-go spells it in Go:
``service readerService`` is ``RegisterReaderServiceServer``) with ``impl``'s methods (every
method of ``X`` when ``impl``'s type is not in the project, such as ``health.NewServer()``), and a call of one of
``X``'s methods on a ``pb.NewXClient(conn)`` result, or on a local, parameter or struct field typed ``XClient``,
is a client (unresolved, saying so, when no ``.proto`` declares ``X`` and the file imports a gRPC package: a
``XClient`` elsewhere may be any client). Generated files (``*.pb.go``) are neither.

A client's channel address (`GoAddress`) is what the stub's connection dials: ``grpc.NewClient(addr)``,
``grpc.Dial(addr)``, ``grpc.DialContext(ctx, addr)``, followed through locals, struct fields and the package's
helpers that write them through a pointer (``mustConnGRPC(ctx, &svc.conn, svc.addr)``); a stub held in a field or
parameter that does not fold is the only ``pb.NewXClient(conn)`` call's of the code that runs with it (its service's and
libraries', `_runs_with`), where that code makes it once (`_made_once`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ...languages.folding import Folded, unknown
from ...languages.go.constants import GoFolder, GoValues
from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import Framework, Project, Reader, dotted
from ..golang import GoPackages, written_type
from .services import GrpcServices, Reading, owner_of, services, uses_grpc

REGISTER = re.compile(r"^Register(\w+)Server$")
#: grpc-gateway's registrations of a service's HTTP handlers on a ``runtime.ServeMux``
REGISTER_GATEWAY = re.compile(r"^Register(\w+)Handler(?:FromEndpoint|Client|Server)?$")
NEW_CLIENT = re.compile(r"^New(\w+)Client$")
CLIENT_TYPE = re.compile(r"(?:^|\.)(\w+)Client$")
#: grpc-go's functions that open a connection, and which argument is the address
DIALS = {"NewClient": 0, "Dial": 0, "DialContext": 1}
GRPC_GO = "google.golang.org/grpc"


class GoAddress(GoFolder):
    """Folds a stub or connection expression to the address it dials (see the module docstring)."""

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        head, _, last = name.rpartition(".")
        if head and last in DIALS and self._qualifier(head) == GRPC_GO and len(args) > DIALS[last]:
            return self.fold_tokens(args[DIALS[last]])
        if NEW_CLIENT.match(last) and len(args) == 1:   # pb.NewXClient(conn)
            return self.fold_tokens(args[0])
        return super().call(name, args)


def _address(values: GoValues, bound: Bound, call, receiver: list) -> Folded:
    """The address the stub a call is made on dials."""
    folder = GoAddress(values, bound.ctx.module_name, bound.facts).at(bound.facts, call.owner, call.line + 1)
    if receiver[0] == "call":
        makers = [c for c in bound.facts.calls if c.owner == call.owner and c.line == call.line and
                  c.name == receiver[2] and len(c.args) == 1]
        return folder.fold(makers[0].args[0]) if len(makers) == 1 else unknown("the stub's connection is not known")
    return folder.fold(dotted(receiver))


def _made_once(values: GoValues, makers: list[tuple[Bound, object]]) -> Folded | None:
    """The address of the project's only ``pb.NewXClient(conn)`` call (a stub made once, in a constructor such as
    ``NewTrainerClient()``, and handed to the code that calls it as a field or parameter); None when the project makes
    that stub in several places or none (which one a call uses is then not known)."""
    if len(makers) != 1:
        return None
    bound, call = makers[0]
    folder = GoAddress(values, bound.ctx.module_name, bound.facts).at(bound.facts, call.owner, call.line + 1)
    return folder.fold(call.args[0])


def _runs_with(bound: Bound, makers: list[tuple[Bound, object]]) -> list[tuple[Bound, object]]:
    """The stub constructions that may have made a stub ``bound``'s code holds: in its own service or in a library
    (code of no deployed service of its own); another service's construction runs in another process."""
    return [(other, call) for other, call in makers
            if other.ctx.microservice == bound.ctx.microservice or not other.ctx.deployable]


def read_go(known: GrpcServices, packages: GoPackages, values: Callable[[], GoValues], bound: Bound,
            makers: Callable[[], dict[str, list[tuple[Bound, object]]]] | None = None) -> Iterator[Item]:
    if bound.facts.extra.get("generated"):
        return
    reading = Reading(known, bound)
    grpc_file = uses_grpc(bound)
    for call in bound.facts.calls:
        gateway = REGISTER_GATEWAY.match(call.name)
        if gateway and len(call.args) >= 3:
            routes = reading.gateway_routes(known.go_declared(gateway.group(1)), owner_of(bound, call.owner), call.line)
            if routes and call.name.endswith("FromEndpoint"):   # the endpoint the mux dials: evidence only
                endpoint = GoAddress(values(), bound.ctx.module_name, bound.facts).at(
                    bound.facts, call.owner, call.line + 1).fold(call.args[2])
                for route in routes:
                    route.address = endpoint
            yield from routes
            continue
        registered = REGISTER.match(call.name)
        if registered and len(call.args) >= 2:
            impl = written_type(packages, bound, call.owner, call.args[1], call.line)
            key = packages.type_key(bound, impl) if impl and not impl.startswith("~") else None
            handlers = packages.methods.get(key, {}) if key is not None else None
            generated = packages.package_of(bound, call.receiver[1]) if call.receiver and \
                call.receiver[0] == "name" else None
            yield from reading.routes(known.go_declared(registered.group(1)), handlers, owner_of(bound, call.owner), call.line,
                                      generated or "")
            continue
        receiver = call.receiver
        if not receiver or receiver[0] not in ("call", "name", "field"):
            continue
        if receiver[0] == "call":
            stub = NEW_CLIENT.match(receiver[2])
            simple = stub.group(1) if stub else None
        else:
            typed = written_type(packages, bound, call.owner, receiver, call.line)
            stub = NEW_CLIENT.match(typed[1:-2].rsplit(".", 1)[-1]) if typed.startswith("~") else CLIENT_TYPE.search(
                typed)
            simple = stub.group(1) if stub else None
        if simple:
            found = reading.stub_call(known.go_declared(simple), call, certain=grpc_file)
            if found:
                address = _address(values(), bound, call, receiver)
                if not address.known and receiver[0] != "call" and makers is not None:
                    address = _made_once(values(), _runs_with(bound, makers().get(simple, []))) or address
                for client in found:
                    client.address = address
            yield from found


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    packages = GoPackages(files)
    values: list[GoValues] = []

    def go_values() -> GoValues:   # made at the first stub call only
        if not values:
            values.append(GoValues([(b.ctx.module_name, b.facts) for b in files]))
        return values[0]

    made: list[dict[str, list[tuple[Bound, object]]]] = []

    def stub_makers() -> dict[str, list[tuple[Bound, object]]]:   # every pb.NewXClient(conn) outside generated code
        if not made:
            table: dict[str, list[tuple[Bound, object]]] = {}
            for other in files:
                if other.facts.extra.get("generated") or other.facts.path.endswith((".pb.go", ".pb.gw.go")):
                    continue
                for call in other.facts.calls:
                    stub = NEW_CLIENT.match(call.name.rsplit(".", 1)[-1])
                    if stub and len(call.args) == 1:
                        table.setdefault(stub.group(1), []).append((other, call))
            made.append(table)
        return made[0]

    return lambda bound: read_go(known, packages, go_values, bound, stub_makers)


FRAMEWORK = Framework("grpc_go", ("go",), prepare, reads=("go", "proto"))
