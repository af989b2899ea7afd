"""gRPC in C# (Grpc.AspNetCore, Grpc.Net.Client): a class deriving from ``X.XBase`` serves service ``X`` with the
methods it overrides, and a call of one of ``X``'s methods (or its ``...Async`` form) on a client typed or made
``X.XClient`` is a client."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import Framework, Project, Reader
from .services import GrpcServices, Reading, owner_of, services, uses_grpc

SERVICE_BASE = re.compile(r"(?:^|\.)(\w+)Base$")
CLIENT_TYPE = re.compile(r"(?:^|\.)(\w+)Client$")


def _declared(bound: Bound, owner: str, name: str, line: int) -> str:
    """The type of a local, parameter, field or property visible from ``owner``, as written."""
    seen = [(at, t) for at, t in bound.facts.locals.get(owner, {}).get(name, []) if t and t != "?"]
    if seen:
        return ([t for at, t in seen if at <= line] or [seen[0][1]])[-1]
    key = owner
    while key:
        index = bound.by_key.get(key)
        if index is None:
            return ""
        for member in bound.members(key):
            sym = bound.facts.symbols[member]
            if sym.kind == "field" and sym.name == name:
                return sym.type
        key = bound.facts.symbols[index].parent
    return ""


def read_csharp(known: GrpcServices, bound: Bound) -> Iterator[Item]:
    if not uses_grpc(bound) or bound.facts.extra.get("generated"):
        return
    reading = Reading(known, bound)
    facts = bound.facts
    for index, sym in enumerate(facts.symbols):
        if sym.kind != "class":
            continue
        for _relation, written in sym.supers:
            base = SERVICE_BASE.search(written)
            if base and base.group(1) in known.by_simple:
                handlers = {facts.symbols[i].name: (bound, i) for i in bound.members(sym.key)
                            if facts.symbols[i].kind == "method" and "override" in facts.symbols[i].modifiers}
                yield from reading.routes(base.group(1), handlers, index, sym.line_start)
    for call in facts.calls:
        receiver = call.receiver
        if call.kind != "call" or not receiver:
            continue
        if receiver[0] == "name":
            typed = _declared(bound, call.owner, receiver[1], call.line)
        elif receiver[0] == "field" and receiver[1] == ["this"]:
            typed = _declared(bound, call.owner, receiver[2], call.line)
        elif receiver[0] == "type":
            typed = receiver[1]
        else:
            typed = ""
        client = CLIENT_TYPE.search(typed.lstrip("~").removesuffix("()"))
        if client and client.group(1) in known.by_simple:
            found = reading.client(client.group(1), call.name, owner_of(bound, call.owner), call.line,
                                   f"{client.group(1)}Client.{call.name}")
            if found is not None:
                yield found


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    return lambda bound: read_csharp(known, bound)


FRAMEWORK = Framework("grpc_csharp", ("csharp",), prepare)
