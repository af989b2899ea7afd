"""gRPC in Go (grpc-go): ``pb.RegisterXServer(srv, impl)`` serves service ``X`` with ``impl``'s methods (every
method of ``X`` when ``impl``'s type is not in the project, such as ``health.NewServer()``), and a call of one of
``X``'s methods on a ``pb.NewXClient(conn)`` result, or on a local, parameter or struct field typed ``XClient``,
is a client (unresolved, saying so, when no ``.proto`` declares ``X`` and the file imports a gRPC package: a
``XClient`` elsewhere may be any client). Generated files (``*.pb.go``) are neither."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import Framework, Project, Reader
from ..golang import GoPackages, written_type
from .services import GrpcServices, Reading, owner_of, services, uses_grpc

REGISTER = re.compile(r"^Register(\w+)Server$")
NEW_CLIENT = re.compile(r"^New(\w+)Client$")
CLIENT_TYPE = re.compile(r"(?:^|\.)(\w+)Client$")


def read_go(known: GrpcServices, packages: GoPackages, bound: Bound) -> Iterator[Item]:
    if bound.facts.extra.get("generated"):
        return
    reading = Reading(known, bound)
    grpc_file = uses_grpc(bound)
    for call in bound.facts.calls:
        registered = REGISTER.match(call.name)
        if registered and len(call.args) >= 2:
            impl = written_type(packages, bound, call.owner, call.args[1], call.line)
            key = packages.type_key(bound, impl) if impl and not impl.startswith("~") else None
            handlers = packages.methods.get(key, {}) if key is not None else None
            yield from reading.routes(registered.group(1), handlers, owner_of(bound, call.owner), call.line)
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
            yield from reading.stub_call(simple, call, certain=grpc_file)


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    packages = GoPackages(files)
    return lambda bound: read_go(known, packages, bound)


FRAMEWORK = Framework("grpc_go", ("go",), prepare)
