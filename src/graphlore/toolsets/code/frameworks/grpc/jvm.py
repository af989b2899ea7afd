"""gRPC on the JVM (grpc-java, grpc-kotlin), for Java and Kotlin files alike: a class extending
``XGrpc.XImplBase`` (or ``XGrpcKt.XCoroutineImplBase``) serves service ``X`` with the methods it declares (in
lowerCamelCase), and a call of one of ``X``'s methods on a stub (a field, local or parameter typed
``XGrpc.XBlockingStub`` / ``XStub`` / ``XFutureStub`` / ``XCoroutineStub``, or the result of
``XGrpc.newBlockingStub(channel)`` ...) is a client."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import Framework, Project, Reader, declared_type
from .services import GrpcServices, Reading, services, uses_grpc

IMPL_BASE = re.compile(r"(?:^|\.)(\w+?)(?:Coroutine)?ImplBase$")
STUB_TYPE = re.compile(r"(?:^|\.)(\w+?)(?:Blocking|Future|Coroutine)?Stub$")
STUB_FACTORIES = frozenset({"newBlockingStub", "newStub", "newFutureStub"})
GRPC_CLASS = re.compile(r"(?:^|\.)(\w+)Grpc(?:Kt)?$")
#: a stub made in a declaration's initialiser, as the declaration's type records it (``~XGrpc.newBlockingStub()``)
MADE_STUB = re.compile(r"(?:^|\.)(\w+)Grpc(?:Kt)?\.(?:new(?:Blocking|Future)?Stub|\w+CoroutineStub)$")


def _stub_of(tree) -> str | None:
    """The service a receiver tree's stub is for, when the tree makes one (``XGrpc.newBlockingStub(ch)``)."""
    if tree and tree[0] == "call" and tree[2] in STUB_FACTORIES and tree[1]:
        inner = tree[1]
        written = inner[1] if inner[0] == "name" else (inner[2] if inner[0] == "field" else "")
        match = GRPC_CLASS.search(written)
        return match.group(1) if match else None
    if tree and tree[0] == "call":
        match = STUB_TYPE.search(tree[2])
        return match.group(1) if match else None
    return None


def _stub_type(written: str) -> str | None:
    """The service a stub's declared (or initialiser-made) type is for."""
    written = written.lstrip("~").removesuffix("()")
    match = MADE_STUB.search(written) or STUB_TYPE.search(written)
    return match.group(1) if match else None


def read_jvm(known: GrpcServices, bound: Bound) -> Iterator[Item]:
    if not uses_grpc(bound) or bound.facts.extra.get("generated"):
        return
    reading = Reading(known, bound)
    yield from reading.implementations(IMPL_BASE, lambda method: True)
    for call in bound.facts.calls:
        receiver = call.receiver
        if not receiver or call.kind != "call":
            continue
        if receiver[0] == "name" or receiver[0] == "field" and receiver[1] == ["this"]:
            simple = _stub_type(declared_type(bound, call.owner, receiver[-1], call.line))
        else:
            simple = _stub_of(receiver)
        if simple:
            yield from reading.stub_call(simple, call)


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    return lambda bound: read_jvm(known, bound)


FRAMEWORK = Framework("grpc_jvm", ("java", "kotlin"), prepare)
