"""gRPC in C# (Grpc.AspNetCore, Grpc.Net.Client): a class deriving from ``X.XBase`` serves service ``X`` with the
methods it overrides, and a call of one of ``X``'s methods (or its ``...Async`` form) on a client typed or made
``X.XClient`` (or a using alias of it) is a client (unresolved, saying so, when no ``.proto`` declares ``X``).

A client's channel address (`CSharpAddress`) is what the client's channel dials: ``new X.XClient(channel)`` with
``GrpcChannel.ForAddress(address)`` (a string or ``new Uri(...)``) or Grpc.Core's ``new Channel(target, creds)``
/ ``new Channel(host, port, creds)``, followed through locals and the fields a class's constructors make, with
constants and ``Environment.GetEnvironmentVariable`` as every C# value is; a client the class does not make is
the one its module registers with the dependency-injection container (``AddGrpcClient<X.XClient>(o => o.Address
= new Uri(...))``, every registration of that client type in the module; else in any module of a process running
the client's code: the other layers of its service, or the apps using a library)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ...languages.csharp.constants import CSharpConstants, CSharpFolder
from ...languages.folding import Folded, choice, literal, unknown
from ...languages.symbols import Bound, reaches
from ...model import FileContext, FileFacts
from ...services.endpoints import Item
from ..aspnet import csharp_constants
from ..base import Framework, Project, Reader, declared_type
from .services import GrpcServices, Reading, services, uses_grpc

SERVICE_BASE = re.compile(r"(?:^|\.)(\w+)Base$")
CLIENT_TYPE = re.compile(r"(?:^|\.)(\w+)Client$")
#: the generator's nesting, ``X.XClient``: only that is certainly a gRPC client when no .proto declares ``X``
GENERATED_CLIENT = re.compile(r"(?:^|\.)(\w+)\.\1Client$")


class CSharpAddress(CSharpFolder):
    """Folds a channel expression to the address it dials (see the module docstring)."""

    def _term(self, toks: list[tuple[str, str]]) -> tuple[Folded, list[tuple[str, str]]]:
        if len(toks) > 1 and toks[0] == ("name", "new"):   # new Uri(...): the constructor's call
            toks = toks[1:]
        return super()._term(toks)

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        head, _, last = name.rpartition(".")
        if (last == "ForAddress" and head.endswith("GrpcChannel") or last == "Uri") and args:
            return self.fold_tokens(args[0])
        if last == "Channel" and len(args) == 2:   # Grpc.Core: new Channel(target, credentials)
            return self.fold_tokens(args[0])
        if last == "Channel" and len(args) == 3:   # new Channel(host, port, credentials)
            return self.fold_tokens(args[0]) + literal(":") + self.fold_tokens(args[1])
        return super().call(name, args)


#: client type's simple name -> the ``AddGrpcClient<T>`` registrations' (address as written, facts, owner, line,
#: where it is made)
Registered = dict[str, list[tuple[str, FileFacts, str, int, FileContext]]]


def registrations(files: list[Bound]) -> Registered:
    found: Registered = {}
    for bound in files:
        for base in bound.facts.extra.get("base_addresses", []):
            if base.get("registrar") == "AddGrpcClient":
                found.setdefault(base["client"].rsplit(".", 1)[-1], []).append(
                    (base["value"], bound.facts, base["owner"], base["line"], bound.ctx))
    return found


def _registered(constants: CSharpConstants, registered: Registered, bound: Bound, client_type: str) -> Folded | None:
    """The address the client type's registrations give: those of the client's module, else those of any module of
    a process running its code (its service's layers, or the apps using a library's), never another service's."""
    every = registered.get(client_type.rsplit(".", 1)[-1], [])
    found = [r[:4] for r in every if r[4].module == bound.ctx.module] or \
        [r[:4] for r in every if reaches(r[4], bound.ctx)]
    if not found:
        return None
    return choice([CSharpAddress(constants, facts, owner.rsplit(".", 1)[0] if "." in owner else "")
                   .at(facts, owner, line + 1).fold(f"new Uri({expr})") for expr, facts, owner, line in found])


def _address(constants: CSharpConstants, bound: Bound, call, client_type: str) -> Folded | None:
    """The address of the channel the client a call is made on was made with: the ``new X.XClient(channel)`` of a
    local (its declaration's line) or of a field (every constructor of the class that makes one); None when the
    class makes none."""
    receiver, simple = call.receiver, client_type.rsplit(".", 1)[-1]
    class_key = call.owner.rsplit(".", 1)[0] if "." in call.owner else call.owner
    declared = [line for line, _ in bound.facts.locals.get(call.owner, {}).get(receiver[-1], [])
                if line <= call.line] if receiver[0] == "name" else []
    if declared:
        makers = [c for c in bound.facts.calls if c.owner == call.owner and c.line == max(declared)
                  and c.name == simple]
    else:   # a field: what the class's constructors make (never a local of another method)
        constructors = {s.key for s in bound.facts.symbols if s.kind == "constructor" and s.parent == class_key}
        makers = [c for c in bound.facts.calls if c.name == simple and c.owner in constructors
                  and c.owner != call.owner]
    makers = [c for c in makers if len(c.args) == 1]
    if not makers:
        return None
    values = []
    for maker in makers:
        folder = CSharpAddress(constants, bound.facts, class_key).at(bound.facts, maker.owner, maker.line + 1)
        values.append(folder.fold(maker.args[0]))
    return choice(values)


def read_csharp(known: GrpcServices, constants: Callable[[], CSharpConstants], registered: Registered,
                bound: Bound) -> Iterator[Item]:
    if not uses_grpc(bound) or bound.facts.extra.get("generated"):
        return
    reading = Reading(known, bound)
    yield from reading.implementations(SERVICE_BASE, lambda method: "override" in method.modifiers)
    # ``using GrpcBasketClient = eShop.Basket.API.Grpc.Basket.BasketClient;``: the type the alias names
    aliases = {alias: target for imp in bound.facts.imports for target, alias in imp.names if alias != "*"}
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
        typed = aliases.get(typed, typed)
        client = CLIENT_TYPE.search(typed)
        if client:
            found = reading.stub_call(client.group(1), call, certain=bool(GENERATED_CLIENT.search(typed)))
            if found and receiver[0] in ("name", "field"):
                address = _address(constants(), bound, call, typed) or \
                    _registered(constants(), registered, bound, typed) or \
                    unknown("the client's channel is not known (made elsewhere, or by the dependency-injection "
                            "container with no AddGrpcClient registration in its module)")
                for item in found:
                    item.address = address
            yield from found


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    registered = registrations(files)
    return lambda bound: read_csharp(known, lambda: csharp_constants(project), registered, bound)


FRAMEWORK = Framework("grpc_csharp", ("csharp",), prepare, reads=("csharp", "proto"))
