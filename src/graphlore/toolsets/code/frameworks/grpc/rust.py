"""gRPC in Rust (tonic): an ``impl X for T`` of the trait tonic generates for service ``X`` (its
``x_server::X``; never a trait the project's own code declares) serves ``X`` with the block's methods
(``create_shipment`` is ``CreateShipment``: tonic names methods in snake case), and a call of one of ``X``'s
methods on an ``XClient`` (``XClient::connect(addr)``, ``XClient::new(channel)``, a local, parameter or field
declared so; never a struct the project's own code declares under that name) is a client. A client's address is
what ``connect`` dials, folded (evidence, never the target). Files that name no ``tonic`` path are not read."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...languages.folding import Folded, unknown
from ...languages.rust.constants import RustFolder, RustValues, project_type
from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import Framework, Project, Reader, declared_type
from .services import GrpcServices, Reading, owner_of, services

CLIENT = re.compile(r"(?:^~?|\.)(\w+)Client(?:\.(?:new|connect)\(\))?$")


def proto_name(known: GrpcServices, service: str, snake: str) -> str | None:
    """The ``.proto`` name of the method tonic calls ``snake`` (``create_shipment`` -> ``CreateShipment``)."""
    wanted = snake.replace("_", "").lower()
    return next((name for name in known.methods.get(service, {}) if name.lower() == wanted), None)


def _uses_tonic(bound: Bound) -> bool:
    facts = bound.facts
    return "tonic" in facts.extra.get("path_heads", ()) or any(
        imp.target.startswith("tonic") or "_server." in imp.target or "_client." in imp.target for imp in facts.imports)


def _servers(known: GrpcServices, bound: Bound, own: frozenset[str]) -> Iterator[Item]:
    reading = Reading(known, bound)
    blocks: dict[tuple[str, str], dict[str, tuple[Bound, int]]] = {}
    first: dict[tuple[str, str], int] = {}
    for index, sym in enumerate(bound.facts.symbols):
        trait = sym.extra.get("trait", "").rsplit(".", 1)[-1]
        if sym.kind != "method" or trait not in known.by_simple or project_type(bound.ctx.module_name, bound.facts, sym.extra["trait"], own):
            continue
        service, _why = known.service(trait, bound.ctx.microservice)
        name = proto_name(known, service, sym.name) if service else None
        key = (sym.extra.get("receiver", ""), trait)
        first.setdefault(key, index)
        if name is not None:
            blocks.setdefault(key, {})[name] = (bound, index)
    for (receiver, trait), index in first.items():
        owner = bound.by_key.get(receiver, index)
        yield from reading.routes(trait, blocks.get((receiver, trait), {}), owner,
                                  bound.facts.symbols[owner].line_start)


class RustAddress(RustFolder):
    """Folds a stub expression to the address its ``connect`` dials (or the channel ``new`` is given)."""

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        if name.endswith(("Client.connect", "Client.new")) and args:
            return self.fold_tokens(args[0])
        return super().call(name, args)


def _clients(known: GrpcServices, values: RustValues, bound: Bound, own: frozenset[str]) -> Iterator[Item]:
    reading = Reading(known, bound)
    for call in bound.facts.calls:
        receiver = call.receiver
        if not receiver or call.owner == "":
            continue
        if receiver[0] == "call" and receiver[2] in ("new", "connect") and receiver[1] and receiver[1][0] == "name":
            written = f"~{receiver[1][1]}.{receiver[2]}()"
        elif receiver[0] == "name" or (receiver[0] == "field" and receiver[1] == ["self"]):
            written = declared_type(bound, call.owner, receiver[-1] if receiver[0] == "field" else receiver[1],
                                    call.line)
        else:
            continue
        stub = CLIENT.search(written)
        if stub is None or stub.group(1) not in known.by_simple or project_type(bound.ctx.module_name, bound.facts, written, own):
            continue
        service, _why = known.service(stub.group(1), bound.ctx.microservice)
        method = proto_name(known, service, call.name) if service else call.name
        if method is None:
            continue   # the stub's own API (max_decoding_message_size, ...)
        found = reading.client(stub.group(1), method, owner_of(bound, call.owner), call.line,
                               f"{stub.group(1)}Client.{call.name}")
        if found is None:
            continue
        if receiver[0] == "name":
            folder = RustAddress(values, bound.ctx.module_name, bound.facts).at(bound.facts, call.owner, call.line)
            found.address = folder.fold(receiver[1])
        else:
            found.address = unknown("the stub's channel is not traced")
        yield found


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    values = RustValues([(b.ctx.module_name, b.facts) for b in files])
    #: the structs the project's own (not generated) code declares, by fqn
    own = frozenset(b.fqns[i] for b in files if not b.facts.extra.get("generated")
                    for i, sym in enumerate(b.facts.symbols) if sym.kind in ("class", "interface"))

    def read(bound: Bound) -> Iterator[Item]:
        if bound.facts.extra.get("generated") or not _uses_tonic(bound):
            return
        yield from _servers(known, bound, own)
        yield from _clients(known, values, bound, own)

    return read


FRAMEWORK = Framework("grpc_rust", ("rust",), prepare, reads=("rust", "proto"))
