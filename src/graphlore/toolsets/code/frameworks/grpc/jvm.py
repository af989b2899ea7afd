"""gRPC on the JVM (grpc-java, grpc-kotlin), for Java and Kotlin files alike: a class extending
``XGrpc.XImplBase`` (or ``XGrpcKt.XCoroutineImplBase``) serves service ``X`` with the methods it declares (in
lowerCamelCase), and a call of one of ``X``'s methods on a stub (a field, local or parameter typed
``XGrpc.XBlockingStub`` / ``XStub`` / ``XFutureStub`` / ``XCoroutineStub``, or the result of
``XGrpc.newBlockingStub(channel)`` ...) is a client: unresolved, saying so, when no ``.proto`` of the project
declares ``X`` and the stub is certainly generated (``XGrpc.newBlockingStub``, ``XBlockingStub``,
``XGrpc.XStub``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import Framework, Project, Reader, declared_type
from .services import STUB_API, GrpcServices, Reading, services, uses_grpc

IMPL_BASE = re.compile(r"(?:^|\.)(\w+?)(?:Coroutine)?ImplBase$")
STUB_TYPE = re.compile(r"(?:^|\.)(\w+?)(?:Blocking|Future|Coroutine)?Stub$")
STUB_FACTORIES = frozenset({"newBlockingStub", "newStub", "newFutureStub"})
GRPC_CLASS = re.compile(r"(?:^|\.)(\w+)Grpc(?:Kt)?$")
#: a stub made in a declaration's initialiser, as the declaration's type records it (``~XGrpc.newBlockingStub()``)
MADE_STUB = re.compile(r"(?:^|\.)(\w+)Grpc(?:Kt)?\.(?:new(?:Blocking|Future)?Stub|\w+CoroutineStub)$")
#: a type only grpc-java's generator writes: ``XGrpc.XStub`` / ``XBlockingStub`` / ``XFutureStub`` / ``XCoroutineStub``
#: (a bare ``XStub`` may be a test double: it is a client only of a service a .proto declares)
GENERATED_STUB = re.compile(r"(?:Grpc(?:Kt)?\.\w+Stub|(?:Blocking|Future|Coroutine)Stub)$")


def _stub_of(tree) -> tuple[str | None, bool]:
    """The service a receiver tree's stub is for, when the tree makes one (``XGrpc.newBlockingStub(ch)``), and
    whether it is certainly a generated stub."""
    if tree and tree[0] == "call" and tree[2] in STUB_FACTORIES and tree[1]:
        inner = tree[1]
        written = inner[1] if inner[0] == "name" else (inner[2] if inner[0] == "field" else "")
        match = GRPC_CLASS.search(written)
        return (match.group(1), True) if match else (None, False)
    if tree and tree[0] == "call":
        match = STUB_TYPE.search(tree[2])
        return (match.group(1), bool(GENERATED_STUB.search(tree[2]))) if match else (None, False)
    return None, False


def _stub_type(written: str) -> tuple[str | None, bool]:
    """The service a stub's declared (or initialiser-made) type is for, and whether the type is certainly a
    generated stub."""
    written = written.lstrip("~").removesuffix("()")
    made = MADE_STUB.search(written)
    if made:
        return made.group(1), True
    match = STUB_TYPE.search(written)
    return (match.group(1), bool(GENERATED_STUB.search(written))) if match else (None, False)


def read_jvm(known: GrpcServices, bound: Bound) -> Iterator[Item]:
    if not uses_grpc(bound) or bound.facts.extra.get("generated"):
        return
    reading = Reading(known, bound)
    yield from reading.implementations(IMPL_BASE, lambda method: True)
    for call in bound.facts.calls:
        receiver = call.receiver
        if not receiver or call.kind != "call":
            continue
        while receiver[0] == "call" and receiver[2] in STUB_API and receiver[1]:
            receiver = receiver[1]  # stub.withDeadlineAfter(...).method(...): the stub's own API returns a stub
        if receiver[0] == "name" or receiver[0] == "field" and receiver[1] == ["this"]:
            simple, certain = _stub_type(declared_type(bound, call.owner, receiver[-1], call.line))
        else:
            simple, certain = _stub_of(receiver)
        if simple:
            yield from reading.stub_call(simple, call, certain=certain)


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    return lambda bound: read_jvm(known, bound)


FRAMEWORK = Framework("grpc_jvm", ("java", "kotlin"), prepare, reads=("java", "kotlin", "proto"))
