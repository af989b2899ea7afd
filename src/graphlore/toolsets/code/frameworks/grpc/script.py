"""gRPC in Node.js (@grpc/grpc-js, grpc): ``server.addService(pkg.X.service, {method: handler, ...})`` serves
the methods of service ``X`` its object names (keys in lowerCamelCase or as declared; each handler a function
or ``Class.method`` of the file, ``.bind(...)`` dropped), and a call of one of ``X``'s methods on a client made
with ``new pkg.X(address, credentials)`` (``loadPackageDefinition``'s constructors) or ``new XClient(address,
credentials)`` (the generated client class of grpc-tools' ``*_grpc_pb`` and ts-proto), in a variable or a class
field (``this.client``), or passed to ``promisify`` (``promisify(client.getX).bind(client)``), is a client, with
the address the construction assigned to it gives (``channel_address``) where it folds."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...languages.folding import Folded, split_top, unknown
from ...languages.symbols import Bound
from ...languages.typescript.constants import ScriptFolder
from ...model import CallFact
from ...services.endpoints import Item
from ..base import Framework, Project, Reader, declared_type
from .services import GrpcServices, Reading, owner_of, services, uses_grpc

SERVICE_ARG = re.compile(r"(?:^|\.)(\w+)\.service$")
NEW = re.compile(r"^new\s+([\w.]+)\s*\(")
PROMISIFIED = re.compile(r"^(this\.)?(\w+)\.(\w+)(?:\.bind\(.*\))?$", re.S)


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


def _client_type(bound: Bound, owner: str, receiver: list) -> str:
    """The type a client variable (``client``) or field (``this.client``) is declared or made with."""
    if receiver[0] == "name":
        seen = bound.facts.locals.get(owner, {}).get(receiver[1], [])
        for _line, type_ in reversed(seen):
            if type_ and not type_.startswith("~"):
                return type_
        return bound.facts.extra.get("globals", {}).get(receiver[1], "")
    declared = declared_type(bound, owner.rsplit(".", 1)[0], receiver[2], 0)   # the class's field, not a local
    if declared:
        return declared
    made = {m.group(1) for _scope, _line, expr in _assignments(bound, owner, receiver)
            if (m := NEW.match(expr)) is not None}
    return made.pop() if len(made) == 1 else ""


def _assignments(bound: Bound, owner: str, receiver: list) -> list[tuple[str, int, str]]:
    """(scope, line, value as written) of each assignment to the receiver: a variable in its scope, or
    ``this.x`` in any method of the class around ``owner``."""
    assigns = bound.facts.extra.get("assigns", {})
    if receiver[0] == "name":
        scope = owner if receiver[1] in bound.facts.locals.get(owner, {}) else ""
        return [(scope, line, value) for line, values in assigns.get(scope, {}).get(receiver[1], [])
                for value in values]
    class_key = owner.rsplit(".", 1)[0]
    return [(scope, line, value) for scope, table in assigns.items() if scope.rsplit(".", 1)[0] == class_key
            for line, values in table.get(f"this.{receiver[2]}", []) for value in values]


def _address(files: dict, bound: Bound, owner: str, receiver: list, type_: str) -> Folded:
    """The address a client's ``new pkg.X(address, credentials)`` gives: the construction assigned to the variable
    or field, else the one such construction where the variable is."""
    simple = type_.rsplit(".", 1)[-1]
    places = {(scope, line) for scope, line, value in _assignments(bound, owner, receiver) if NEW.match(value)}
    made = [c for c in bound.facts.calls if c.kind == "new" and (c.owner, c.line) in places and c.args and
            c.name.rsplit(".", 1)[-1] == simple]
    if not made and receiver[0] == "name":
        scope = owner if receiver[1] in bound.facts.locals.get(owner, {}) else ""
        made = [c for c in bound.facts.calls if c.kind == "new" and c.owner == scope and c.args and
                c.name.rsplit(".", 1)[-1] == simple]
    name = receiver[1] if receiver[0] == "name" else f"this.{receiver[2]}"
    if len({(c.args[0], c.owner) for c in made}) != 1:
        return unknown(f"{len(made)} clients of {type_} made where {name} is: which one is not known")
    return ScriptFolder(files, bound.path).at(bound.facts, made[0].owner, made[0].line + 1).fold(made[0].args[0])


def _promisified(call: CallFact) -> CallFact:
    """``promisify(client.getX)`` (``util.promisify``, ``.bind(client)`` on either side) stands for a call of
    ``getX`` on ``client``; any other call is itself."""
    if call.name != "promisify" or not call.args:
        return call
    method = PROMISIFIED.match(call.args[0].strip())
    if method is None:
        return call
    receiver = ["field", ["this"], method.group(2)] if method.group(1) else ["name", method.group(2)]
    return CallFact(call.owner, method.group(3), receiver, 1, call.line)


def service_name(known: GrpcServices, type_: str) -> str:
    """The service a client type stands for: ``pkg.X`` is ``X``; a generated client class ``XClient``
    (grpc-tools' ``*_grpc_pb``, ts-proto) is ``X`` when a ``.proto`` declares ``X`` and not ``XClient``."""
    simple = type_.rsplit(".", 1)[-1]
    stem = simple.removesuffix("Client")
    return stem if stem != simple and simple not in known.by_simple and stem in known.by_simple else simple


def _reads(known: GrpcServices, bound: Bound) -> bool:
    """A file to read: it imports a gRPC library, or a generated client class of a declared service."""
    return uses_grpc(bound) or any(service_name(known, local) != local for imp in bound.facts.imports
                                   for _name, local in imp.names)


def read_script(known: GrpcServices, files: dict, bound: Bound) -> Iterator[Item]:
    if not _reads(known, bound) or bound.facts.extra.get("generated") or bound.path.endswith(("_grpc_pb.js", "_pb.js")):
        return
    reading = Reading(known, bound)
    for call in bound.facts.calls:
        call = _promisified(call)
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
        if receiver and (receiver[0] == "name" or receiver[0] == "field" and receiver[1] == ["this"]):
            type_ = _client_type(bound, call.owner, receiver)
            found = reading.stub_call(service_name(known, type_), call)
            for client in found:
                client.address = _address(files, bound, call.owner, receiver, type_)
            yield from found


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    files_by_path = {b.path: b.facts for b in files}
    return lambda bound: read_script(known, files_by_path, bound)


FRAMEWORK = Framework("grpc_script", ("typescript", "javascript"), prepare,
                      reads=("typescript", "javascript", "proto"))
