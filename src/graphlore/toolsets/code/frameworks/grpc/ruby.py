"""gRPC in Ruby (the ``grpc`` gem): a class deriving from a generated ``Foo::Service`` (``class OrdersServer <
Shop::Orders::Service``) serves service ``Foo`` with its instance methods (``def get_order(req, call)`` serves
``GetOrder``, ``get_http_status`` ``GetHTTPStatus``, as the gem names them; a method of the service it does not
define is not served), and a call of one of ``Foo``'s methods
(``get_order`` or ``GetOrder``) on a ``Foo::Stub.new(addr, ...)`` (the call itself, a local every value of which
is such a stub, or an instance variable the class only sets to one) is a client (unresolved, saying so, when no
``.proto`` declares ``Foo`` and the file requires ``grpc`` or a ``*_services_pb`` file). Generated files
(``*_pb.rb``, ``*_services_pb.rb``) are neither. A client's address is the stub's first argument, folded as
every Ruby value is (``ENV['X']`` settled with the deployment's environment)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

from ...languages.folding import Folded, split_top, unknown
from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import Framework, Project, Reader
from ..ruby_web import RubyFile, ruby_constants
from .services import GrpcServices, Reading, services

SERVICE = re.compile(r"(?:^|\.)(\w+)\.Service$")
STUB = re.compile(r"(?:^|\.)(\w+)\.Stub$")
_STUB_NEW = re.compile(r"(?:^|::|\.)Stub\s*\.\s*new\s*\(?(.*)$", re.S)


def camel(name: str) -> str:
    """``get_order`` -> ``GetOrder`` (the grpc gem's method names are the rpc's, in snake case)."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def underscore(rpc: str) -> str:
    """An rpc's Ruby method name as the grpc gem makes it (``GRPC::GenericService.underscore``):
    ``GetHTTPStatus`` -> ``get_http_status``."""
    rpc = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", rpc)
    return re.sub(r"([a-z\d])([A-Z])", r"\1_\2", rpc).replace("-", "_").lower()


def rpc_name(known: GrpcServices, simple: str, microservice: str | None, name: str) -> str:
    """The rpc a Ruby method name stands for: the service's rpc whose `underscore` it is (``get_http_status`` is
    ``GetHTTPStatus``, which `camel` would not give back), else `camel` of it."""
    service, _why = known.service(simple, microservice)
    rpcs = known.methods.get(service, {}) if service is not None else {}
    return next((rpc for rpc in rpcs if underscore(rpc) == name), camel(name))


def uses_grpc(bound: Bound) -> bool:
    return any("grpc" in imp.target.lower() or imp.target.endswith("_services_pb") for imp in bound.facts.imports)


def _stub_type(bound: Bound, call) -> str:
    """The stub class a call is made on (``Shop.Orders.Stub``), or ""."""
    receiver = call.receiver
    if receiver[0] == "type":
        return receiver[1]
    if receiver[0] == "name":
        key = call.owner
        while True:
            seen = {type_ for _line, type_ in bound.facts.locals.get(key, {}).get(receiver[1], [])}
            if seen:
                return seen.pop() if len(seen) == 1 else ""
            index = bound.by_key.get(key) if key else None
            if index is None:
                return ""
            key = bound.facts.symbols[index].parent or ""
    if receiver[0] == "field" and receiver[1] == ["this"]:
        parents = [call.owner]
        while parents[-1] in bound.by_key and bound.facts.symbols[bound.by_key[parents[-1]]].kind != "class":
            parents.append(bound.facts.symbols[bound.by_key[parents[-1]]].parent or "")
        index = bound.by_key.get(f"{parents[-1]}.{receiver[2]}")
        return bound.facts.symbols[index].type if index is not None else ""
    return ""


def _address(rb: RubyFile, call, stub: str) -> Folded:
    """The first argument the stub was made with."""
    receiver = call.receiver
    assigns = rb.bound.facts.extra.get("assigns", {})
    if receiver[0] == "name":
        written = [values for key in (call.owner, rb.class_of(call.owner))
                   for _line, values in assigns.get(key, {}).get(receiver[1], [])]
        owner = call.owner
    elif receiver[0] == "field":
        cls = rb.class_of(call.owner)
        written = [values for key, table in assigns.items() if key and rb.class_of(key) == cls
                   for _line, values in table.get("this." + receiver[2], [])]
        owner = cls
    else:
        makers = [c for c in rb.bound.facts.calls if c.kind == "new" and c.line == call.line and c.args
                  and c.receiver == ["type", stub]]
        return rb.fold(makers[0].args[0], call.owner, call.line) if len(makers) == 1 else \
            unknown("the stub's address is not known")
    texts = {v for values in written for v in values}
    found = _STUB_NEW.search(texts.pop()) if len(texts) == 1 else None
    if found is None:
        return unknown("the stub's address is not known")
    rest = found.group(1).strip()
    first = rest[:-1] if rest.endswith(")") else rest
    args = split_top(first)
    return rb.fold(args[0], owner, call.line + 1) if args else unknown("a stub made without an address")


def read_ruby(known: GrpcServices, project: Project, bound: Bound) -> Iterator[Item]:
    if bound.facts.extra.get("generated") or bound.path.endswith(("_pb.rb", "_services_pb.rb")):
        return
    reading = Reading(known, bound)
    facts = bound.facts
    for index, sym in enumerate(facts.symbols):
        if sym.kind != "class":
            continue
        for relation, written in sym.supers:
            served = SERVICE.search(written) if relation == "extends" else None
            if served:
                handlers = {rpc_name(known, served.group(1), bound.ctx.microservice, facts.symbols[i].name): (bound, i)
                            for i in bound.members(sym.key)
                            if facts.symbols[i].kind == "method" and "static" not in facts.symbols[i].modifiers}
                yield from reading.routes(served.group(1), handlers, index, sym.line_start)
    rb = RubyFile(bound, ruby_constants(project))
    certain = uses_grpc(bound)
    for call in facts.calls:
        if call.kind != "call" or not call.receiver:
            continue
        stub = STUB.search(_stub_type(bound, call))
        if not stub:
            continue
        name = rpc_name(known, stub.group(1), bound.ctx.microservice, call.name)
        found = reading.stub_call(stub.group(1), dataclasses.replace(call, name=name), certain=certain)
        if found:
            address = _address(rb, call, stub.string)
            for client in found:
                client.address = address
        yield from found


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    return lambda bound: read_ruby(known, project, bound)


FRAMEWORK = Framework("grpc_ruby", ("ruby",), prepare, reads=("ruby", "proto"))
