"""gRPC in C++ (grpc++): a class deriving from the generated ``pkg::X::Service`` (also ``X::AsyncService``,
``X::CallbackService``, ``X::WithAsyncMethod_...``-free forms) serves service ``X`` with the methods it declares or
defines out of line (``Status Impl::GetCart(ServerContext*, ...) {}``: the definition is the route's handler), and
a call of one of ``X``'s methods on a stub (``X::NewStub(channel)``, a local, parameter or member typed
``std::unique_ptr<X::Stub>``) is a client (unresolved, saying so, when no ``.proto`` declares ``X`` and the file
includes no gRPC header).

A client's channel address is what the stub's channel dials: ``X::NewStub(grpc::CreateChannel(address, creds))``
(also ``CreateCustomChannel``), followed through locals and the assignments and member initialisers that set a
member stub in the class's constructors, with string constants, ``+``, ``absl::StrCat`` and ``getenv("X")`` folded
as every C++ value is (the environment settled with the deployment's, as for every language). A channel handed in
from elsewhere (a constructor's parameter) is not traced: the address stays unknown and says so.
``builder.RegisterService(&impl)`` is not read: a class deriving from the generated base is taken to be served. A
base or stub type that is a class of the service's own (not generated) code is neither, whatever its name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...languages.cpp.constants import CppFolder, CppValues
from ...languages.folding import Folded, choice, unknown
from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import Framework, Project, Reader, declared_type
from .services import Reading, services, uses_grpc

SERVICE_BASE = re.compile(r"(?:^|\.)(\w+)\.(?:Async|Callback|)Service$")
STUB_TYPE = re.compile(r"(?:^|\.)(\w+)\.Stub(?:Interface)?$")
NEW_STUB = re.compile(r"(?:^|\.)(\w+)\.NewStub\(\)$")
#: grpc++'s functions that open a channel: the address is their first argument
CHANNELS = ("CreateChannel", "CreateCustomChannel")


class CppAddress(CppFolder):
    """Folds a stub or channel expression to the address it dials (see the module docstring)."""

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        last = name.rsplit(".", 1)[-1]
        if (last in CHANNELS or last == "NewStub") and args:
            return self.fold_tokens(args[0])
        return super().call(name, args)


class Classes:
    """Across the project's C++ files: the methods defined out of line and the members, by their microservice and
    class's simple name (what a class in a header and its ``.cpp`` share)."""

    def __init__(self, files: list[Bound]) -> None:
        self.defined: dict[tuple[str, str], dict[str, tuple[Bound, int]]] = {}
        self.members: dict[tuple[str, str], dict[str, str]] = {}
        self.files: dict[tuple[str, str], list[Bound]] = {}
        #: microservice -> the fqns of the classes its own (not generated) code declares
        self.own: dict[str, set[str]] = {}
        for bound in files:
            if not bound.facts.extra.get("generated"):
                self.own.setdefault(bound.ctx.microservice, set()).update(
                    bound.fqns[i] for i, sym in enumerate(bound.facts.symbols) if sym.kind == "class")
            service = bound.ctx.microservice
            for index, sym in enumerate(bound.facts.symbols):
                receiver = sym.extra.get("receiver", "")
                simple = (service, (receiver or sym.parent or "").rsplit(".", 1)[-1])
                if sym.kind == "method" and receiver:
                    self.defined.setdefault(simple, {})[sym.name] = (bound, index)
                elif sym.kind == "field" and sym.parent:
                    self.members.setdefault(simple, {})[sym.name] = sym.type
                if sym.kind in ("method", "constructor") and simple[1] and bound not in self.files.get(simple, ()):
                    self.files.setdefault(simple, []).append(bound)

    def declares(self, bound: Bound, written: str) -> bool:
        """Whether a type as written (``shop.CartService.Service``) is a class of the own code of ``bound``'s service
        (then it is no generated gRPC base or stub, whatever its name)."""
        written = written.lstrip("~").removesuffix("()").rsplit(".", 1)[0] if written.endswith("NewStub()") \
            else written
        return any(fqn == written or fqn.endswith("." + written) for fqn in self.own.get(bound.ctx.microservice, ()))


def _class_of(bound: Bound, owner: str) -> str:
    """The simple name of the class a method belongs to ("" for a free function)."""
    index = bound.by_key.get(owner)
    if index is None:
        return ""
    sym = bound.sym(index)
    if sym.extra.get("receiver"):
        return sym.extra["receiver"].rsplit(".", 1)[-1]
    return sym.parent.rsplit(".", 1)[-1] if sym.parent else ""


def _servers(reading: Reading, classes: Classes, bound: Bound) -> Iterator[Item]:
    facts = bound.facts
    for index, sym in enumerate(facts.symbols):
        if sym.kind != "class":
            continue
        for _relation, written in sym.supers:
            found = SERVICE_BASE.search(written)
            if found and found.group(1) in reading.known.by_simple and not classes.declares(bound, written):
                handlers = {facts.symbols[i].name: (bound, i) for i in bound.members(sym.key)
                            if facts.symbols[i].kind == "method"}
                handlers.update(classes.defined.get((bound.ctx.microservice, sym.name), {}))
                yield from reading.routes(found.group(1), handlers, index, sym.line_start)


def _member_address(values: CppValues, classes: Classes, bound: Bound, class_name: str, member: str) -> Folded:
    """What the class's constructors and methods set a member stub to (assignments and member initialisers)."""
    found = []
    for other in classes.files.get((bound.ctx.microservice, class_name), []):
        for owner, table in other.facts.extra.get("assigns", {}).items():
            if _class_of(other, owner) != class_name:
                continue
            for target in (member, f"this->{member}"):
                for line, exprs in table.get(target, ()):
                    folder = CppAddress(values, other.facts).at(other.facts, owner, line + 1)
                    found += [folder.fold(expr) for expr in exprs]
    return choice(found) if found else unknown(f"no constructor of {class_name} sets {member}")


def _clients(reading: Reading, values: CppValues, classes: Classes, bound: Bound, certain: bool) -> Iterator[Item]:
    for call in bound.facts.calls:
        receiver = call.receiver
        if call.kind != "call" or not receiver:
            continue
        if receiver[0] == "name":
            name = receiver[1]
        elif receiver[0] == "field" and receiver[1] == ["this"]:
            name = receiver[2]
        else:
            continue
        typed = declared_type(bound, call.owner, name, call.line)
        member = not typed and name not in bound.facts.locals.get(call.owner, {})
        if member:
            typed = classes.members.get((bound.ctx.microservice, _class_of(bound, call.owner)), {}).get(name, "")
        stub = STUB_TYPE.search(typed) or NEW_STUB.search(typed.lstrip("~"))
        if stub is None or classes.declares(bound, typed):
            continue
        for found in reading.stub_call(stub.group(1), call, certain=certain):
            if member:
                found.address = _member_address(values, classes, bound, _class_of(bound, call.owner), name)
            else:
                folder = CppAddress(values, bound.facts).at(bound.facts, call.owner, call.line)
                found.address = folder.fold(name)
            yield found


def _uses_grpc(bound: Bound) -> bool:
    return uses_grpc(bound) or any("grpc" in path for path in bound.facts.extra.get("system_includes", ()))


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    classes = Classes(files)
    values = CppValues([bound.facts for bound in files])

    def read(bound: Bound) -> Iterator[Item]:
        if bound.facts.extra.get("generated"):
            return
        reading = Reading(known, bound)
        yield from _servers(reading, classes, bound)
        yield from _clients(reading, values, classes, bound, _uses_grpc(bound))

    return read


FRAMEWORK = Framework("grpc_cpp", ("cpp",), prepare, reads=("cpp", "proto"))
