"""gRPC in Node.js (@grpc/grpc-js, grpc): ``server.addService(pkg.X.service, {method: handler, ...})`` serves
the methods of service ``X`` its object names (keys in lowerCamelCase or as declared; each handler a function
or ``Class.method`` of the file, ``.bind(...)`` dropped), and a call of one of ``X``'s methods on a client made
with ``new pkg.X(address, credentials)`` is a client, with that address (``channel_address``) where it folds."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...languages.folding import Folded, split_top, unknown
from ...languages.symbols import Bound
from ...languages.typescript.constants import ScriptFolder
from ...services.endpoints import Item
from ..base import Framework, Project, Reader
from .services import GrpcServices, Reading, owner_of, services, uses_grpc

SERVICE_ARG = re.compile(r"(?:^|\.)(\w+)\.service$")


def _handlers(bound: Bound, literal: str) -> dict[str, tuple[Bound, int]] | None:
    """Method key -> handler symbol of an object literal (a key whose handler is not a symbol of the file
    is served by the registering code itself: it maps to None and is left to the caller)."""
    text = literal.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    out: dict[str, tuple[Bound, int]] = {}
    for part in split_top(text[1:-1]):
        key, sep, value = part.partition(":")
        key = key.strip().strip("'\"")
        value = (value if sep else key).strip()
        value = re.sub(r"\.bind\(.*\)$", "", value).strip()
        index = bound.by_key.get(value)
        if index is None:
            index = -1
        out[key] = (bound, index)
    return out


def _client_type(bound: Bound, owner: str, name: str) -> str:
    seen = bound.facts.locals.get(owner, {}).get(name, [])
    for _line, type_ in reversed(seen):
        if type_ and not type_.startswith("~"):
            return type_
    return bound.facts.extra.get("globals", {}).get(name, "")


def _address(files: dict, bound: Bound, owner: str, name: str, type_: str) -> Folded:
    """The address a client variable's ``new pkg.X(address, credentials)`` gives (one such call where it is made)."""
    scope = owner if name in bound.facts.locals.get(owner, {}) else ""
    made = [c for c in bound.facts.calls if c.kind == "new" and c.owner == scope and c.args and
            c.name.rsplit(".", 1)[-1] == type_.rsplit(".", 1)[-1]]
    if len(made) != 1:
        return unknown(f"{len(made)} clients of {type_} made where {name} is: which one is not known")
    return ScriptFolder(files, bound.path).at(bound.facts, scope, made[0].line + 1).fold(made[0].args[0])


def read_script(known: GrpcServices, files: dict, bound: Bound) -> Iterator[Item]:
    if not uses_grpc(bound) or bound.facts.extra.get("generated") or bound.path.endswith(("_grpc_pb.js", "_pb.js")):
        return
    reading = Reading(known, bound)
    for call in bound.facts.calls:
        if call.name == "addService" and len(call.args) >= 2:
            service = SERVICE_ARG.search(call.args[0].strip())
            if service is None:
                continue
            handlers = _handlers(bound, call.args[1])
            owner = owner_of(bound, call.owner)
            if handlers is not None:
                handlers = {key: (b, index if index >= 0 else owner) for key, (b, index) in handlers.items()}
            yield from reading.routes(service.group(1), handlers, owner, call.line)
            continue
        receiver = call.receiver
        if receiver and receiver[0] == "name":
            type_ = _client_type(bound, call.owner, receiver[1])
            found = reading.stub_call(type_.rsplit(".", 1)[-1], call)
            for client in found:
                client.address = _address(files, bound, call.owner, receiver[1], type_)
            yield from found


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    files_by_path = {b.path: b.facts for b in files}
    return lambda bound: read_script(known, files_by_path, bound)


FRAMEWORK = Framework("grpc_script", ("typescript", "javascript"), prepare,
                      reads=("typescript", "javascript", "proto"))
