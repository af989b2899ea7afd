"""gRPC in C# (Grpc.AspNetCore, Grpc.Net.Client): a class deriving from ``X.XBase`` serves service ``X`` with the
methods it overrides, and a call of one of ``X``'s methods (or its ``...Async`` form) on a client typed or made
``X.XClient`` is a client (unresolved, saying so, when no ``.proto`` declares ``X``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import Framework, Project, Reader, declared_type
from .services import GrpcServices, Reading, services, uses_grpc

SERVICE_BASE = re.compile(r"(?:^|\.)(\w+)Base$")
CLIENT_TYPE = re.compile(r"(?:^|\.)(\w+)Client$")
#: the generator's nesting, ``X.XClient``: only that is certainly a gRPC client when no .proto declares ``X``
GENERATED_CLIENT = re.compile(r"(?:^|\.)(\w+)\.\1Client$")


def read_csharp(known: GrpcServices, bound: Bound) -> Iterator[Item]:
    if not uses_grpc(bound) or bound.facts.extra.get("generated"):
        return
    reading = Reading(known, bound)
    yield from reading.implementations(SERVICE_BASE, lambda method: "override" in method.modifiers)
    for call in bound.facts.calls:
        receiver = call.receiver
        if call.kind != "call" or not receiver:
            continue
        if receiver[0] == "name" or receiver[0] == "field" and receiver[1] == ["this"]:
            typed = declared_type(bound, call.owner, receiver[-1], call.line)
        elif receiver[0] == "type":
            typed = receiver[1]
        else:
            typed = ""
        typed = typed.lstrip("~").removesuffix("()")
        client = CLIENT_TYPE.search(typed)
        if client:
            yield from reading.stub_call(client.group(1), call, certain=bool(GENERATED_CLIENT.search(typed)))


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    return lambda bound: read_csharp(known, bound)


FRAMEWORK = Framework("grpc_csharp", ("csharp",), prepare, reads=("csharp", "proto"))
