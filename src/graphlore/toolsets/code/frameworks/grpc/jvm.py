"""gRPC on the JVM (grpc-java, grpc-kotlin), for Java and Kotlin files alike: a class extending
``XGrpc.XImplBase`` (or ``XGrpcKt.XCoroutineImplBase``) serves service ``X`` with the methods it declares (in
lowerCamelCase), and a call of one of ``X``'s methods on a stub (a field, local or parameter typed
``XGrpc.XBlockingStub`` / ``XStub`` / ``XFutureStub`` / ``XCoroutineStub``, or the result of
``XGrpc.newBlockingStub(channel)`` ...) is a client: unresolved, saying so, when no ``.proto`` of the project
declares ``X`` and the stub is certainly generated (``XGrpc.newBlockingStub``, ``XBlockingStub``,
``XGrpc.XStub``).

A client's channel address (`JavaAddress`) is what the stub's channel dials: ``XGrpc.newBlockingStub(channel)``
with ``ManagedChannelBuilder.forTarget(target)`` or ``forAddress(host, port)`` (``NettyChannelBuilder``'s,
``OkHttpChannelBuilder``'s, ``Grpc.newChannelBuilder(target, creds)`` and ``newChannelBuilderForAddress``
alike), the builder's settings (``usePlaintext()``, ``build()`` ...) keeping it, followed through locals and the
fields a constructor assigns (``this.stub = ...``), with constants, ``@Value`` fields and ``System.getenv``
as every Java value is.

**Quarkus** injects clients: a field or a constructor (or method) parameter annotated ``@GrpcClient("name")``
(``@GrpcClient`` alone: the field's or parameter's name) typed with the Mutiny service interface ``X``,
``MutinyXGrpc.MutinyXStub`` or a grpc-java stub; a call of one of ``X``'s methods on it (or on the field a
constructor assigns it to) is a client whose address is ``quarkus.grpc.clients.<name>.host`` and ``.port``
(Quarkus's defaults ``localhost:9000``; ``name-resolver=stork``: the host is a Stork service name)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ...languages.folding import Folded, choice, literal, unknown
from ...languages.java.constants import JavaConstants, JavaFolder
from ...languages.symbols import Bound
from ...services.discovery import values_in
from ...services.endpoints import Item
from ...services.settings import Values
from ..base import Framework, Project, Reader, declared_type
from ..jvm import constants, java_expression
from .services import STUB_API, GrpcServices, Reading, services, uses_grpc

IMPL_BASE = re.compile(r"(?:^|\.)(\w+?)(?:Coroutine)?ImplBase$")
STUB_TYPE = re.compile(r"(?:^|\.)(\w+?)(?:Blocking|Future|Coroutine)?Stub$")
STUB_FACTORIES = frozenset({"newBlockingStub", "newStub", "newFutureStub"})
GRPC_CLASS = re.compile(r"(?:^|\.)(\w+)Grpc(?:Kt)?$")
#: a stub made in a declaration's initialiser, as the declaration's type records it (``~XGrpc.newBlockingStub()``)
MADE_STUB = re.compile(r"(?:^|\.)(\w+)Grpc(?:Kt)?\.(?:new(?:Blocking|Future)?Stub|\w+CoroutineStub)$")
#: a type only grpc-java's generator writes: ``XGrpc.XStub`` / ``XBlockingStub`` / ``XFutureStub`` / ``XCoroutineStub``
#: (a bare ``XStub`` may be a test double: it is a client only of a service a .proto declares)
#: a Quarkus client injected as a parameter: ``@GrpcClient("name") Type param`` (the name, the type, the parameter)
GRPC_CLIENT_PARAM = re.compile(r'@(?:[\w.]+\.)?GrpcClient\b(?:\s*\(\s*(?:value\s*=\s*)?"([^"]*)"\s*\))?\s+'
                               r'(?:final\s+)?([\w.]+(?:<[^()]*?>)?)\s+(\w+)')
GENERATED_STUB = re.compile(r"(?:Grpc(?:Kt)?\.\w+Stub|(?:Blocking|Future|Coroutine)Stub)$")


#: (builder class, factory) -> how the factory's arguments give the address: "target" (the first) or "host:port"
CHANNEL_FACTORIES = {
    **{(builder, "forTarget"): "target" for builder in ("ManagedChannelBuilder", "NettyChannelBuilder",
                                                         "OkHttpChannelBuilder", "InProcessChannelBuilder")},
    **{(builder, "forAddress"): "host:port" for builder in ("ManagedChannelBuilder", "NettyChannelBuilder",
                                                             "OkHttpChannelBuilder")},
    ("Grpc", "newChannelBuilder"): "target", ("Grpc", "newChannelBuilderForAddress"): "host:port",
}
#: what a channel builder (or a channel) answers that keeps its address
BUILDER_API = frozenset({
    "usePlaintext", "useTransportSecurity", "build", "intercept", "userAgent", "overrideAuthority",
    "defaultLoadBalancingPolicy", "keepAliveTime", "keepAliveTimeout", "keepAliveWithoutCalls", "idleTimeout",
    "maxInboundMessageSize", "maxInboundMetadataSize", "enableRetry", "disableRetry", "executor", "offloadExecutor",
    "defaultServiceConfig", "maxRetryAttempts", "enableFullStreamDecompression", "negotiationType", "sslContext",
    "nameResolverFactory", "proxyDetector", "directExecutor", "propagateCauseWithStatus",
}) | STUB_API


class JavaAddress(JavaFolder):
    """Folds a stub or channel expression to the address it dials (see the module docstring)."""

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        head, _, last = name.rpartition(".")
        how = CHANNEL_FACTORIES.get((head.rsplit(".", 1)[-1], last))
        if how == "target" and args:
            return self.fold_tokens(args[0])
        if how == "host:port" and len(args) >= 2:
            return self.fold_tokens(args[0]) + literal(":") + self.fold_tokens(args[1])
        if how == "host:port":
            return unknown(f"{name}(...) of a socket address")
        if last in STUB_FACTORIES and GRPC_CLASS.search(head) and args:   # XGrpc.newBlockingStub(channel)
            return self.fold_tokens(args[0])
        return super().call(name, args)

    def chained(self, value: Folded, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        return value if method in BUILDER_API else super().chained(value, method, args)


def _address(java: JavaConstants, bound: Bound, call, receiver: list) -> Folded:
    """The address the stub a call is made on dials (a stub made in the call itself: that maker's channel)."""
    class_key = call.owner.split("#", 1)[0]
    folder = JavaAddress(java, bound.facts, class_key).at(bound.facts, call.owner, call.line + 1)
    if receiver[0] == "call":
        makers = [c for c in bound.facts.calls if c.owner == call.owner and c.line == call.line and
                  c.name == receiver[2] and len(c.args) == 1]
        if len(makers) != 1:
            return unknown("the stub's channel is not known")
        expr = makers[0].args[0]
    else:
        expr = receiver[-1] if receiver[0] == "name" else f"this.{receiver[-1]}"
    return folder.fold(java_expression(expr) if bound.facts.language != "java" else expr)


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


def _injected_service(written: str, known: GrpcServices) -> str | None:
    """The service an injected Quarkus gRPC client's type is for: the Mutiny service interface ``X`` (a service a
    ``.proto`` declares), ``MutinyXGrpc.MutinyXStub``, or a grpc-java stub."""
    simple = written.partition("<")[0].rsplit(".", 1)[-1]
    mutiny = re.fullmatch(r"Mutiny(\w+)Stub", simple)
    if mutiny:
        return mutiny.group(1)
    stub, _ = _stub_type(written)
    if stub:
        return stub
    return simple if simple in known.by_simple else None


def _injected_clients(bound: Bound, known: GrpcServices) -> dict[tuple[str, str], set[str]]:
    """(where, variable) -> the ``@GrpcClient`` names it holds a client of a known service under (``@GrpcClient``
    alone: the name of the field or parameter): a field (where: its class's key), a constructor's or method's
    parameter (where: that member's key) and the fields the member assigns such a parameter to. Any other variable
    of the type (a parameter passed in, a local made otherwise) is no injected client: its address is not known."""
    out: dict[tuple[str, str], set[str]] = {}
    assigns = bound.facts.extra.get("assigns", {})
    for sym in bound.facts.symbols:
        if sym.kind == "field" and sym.parent:
            found = next((a for a in sym.annotations if a.name.rsplit(".", 1)[-1] == "GrpcClient"), None)
            if found is not None and _injected_service(sym.type, known):
                name = (dict(found.args).get("") or dict(found.args).get("value") or "").strip().strip('"')
                out.setdefault((sym.parent, sym.name), set()).add(name or sym.name)
        elif sym.kind in ("constructor", "method") and sym.parent and "GrpcClient" in sym.signature:
            own = bound.facts.locals.get(sym.key, {})
            for name, written, param in GRPC_CLIENT_PARAM.findall(sym.signature):
                if not _injected_service(written, known):
                    continue
                out.setdefault((sym.key, param), set()).add(name or param)
                for target, entries in assigns.get(sym.key, {}).items():   # this.locations = locations
                    field = target.removeprefix("this.")
                    if any(exprs == [param] for _, exprs in entries) and (target.startswith("this.") or field not in own):
                        out.setdefault((sym.parent, field), set()).add(name or param)
    return out


def _quarkus_address(values: Values, names: set[str]) -> Folded:
    """What a Quarkus gRPC client of the name dials: ``quarkus.grpc.clients.<name>.host`` and ``.port`` (Quarkus's
    defaults: ``localhost``, ``9000``); a Stork name when its ``name-resolver`` is ``stork``."""
    if len(names) != 1:
        return unknown(f"the client is injected under several @GrpcClient names ({', '.join(sorted(names))})")
    prefix = f"quarkus.grpc.clients.{next(iter(names))}."
    addresses: list[Folded] = []
    for profile in [None, *values.profiles]:   # host and port as one profile gives them, the deployment's env too
        stork = "stork" in values_in(values, prefix + "name-resolver", profile)
        for host in values_in(values, prefix + "host", profile) or ["localhost"]:
            for port in values_in(values, prefix + "port", profile) or ["9000"]:
                text, missing = values.resolve(f"stork://{host}" if stork else f"{host}:{port}")
                addresses.append(Folded(text, not missing, tuple(
                    f"placeholder ${{{k}}} is not in the module's settings" for k in missing)))
    return choice(addresses)


def read_jvm(known: GrpcServices, java: Callable[[], JavaConstants], values: Callable[[str], Values],
             bound: Bound) -> Iterator[Item]:
    if not uses_grpc(bound) or bound.facts.extra.get("generated"):
        return
    reading = Reading(known, bound)
    yield from reading.implementations(IMPL_BASE, lambda method: True)
    injected = _injected_clients(bound, known)
    for call in bound.facts.calls:
        receiver = call.receiver
        if not receiver or call.kind != "call":
            continue
        while receiver[0] == "call" and receiver[2] in STUB_API and receiver[1]:
            receiver = receiver[1]  # stub.withDeadlineAfter(...).method(...): the stub's own API returns a stub
        names = None
        if receiver[0] == "name" or receiver[0] == "field" and receiver[1] == ["this"]:
            written = declared_type(bound, call.owner, receiver[-1], call.line)
            simple, certain = _stub_type(written)
            service = _injected_service(written, known) if written else None
            local = receiver[0] == "name" and receiver[-1] in bound.facts.locals.get(call.owner, {})
            where = call.owner if local else call.owner.split("#", 1)[0]
            names = injected.get((where, receiver[-1])) if service else None
            if names:   # a Quarkus client (the Mutiny interface X): its @GrpcClient name gives the address
                simple, certain = service, True
        else:
            simple, certain = _stub_of(receiver)
        if simple:
            found = reading.stub_call(simple, call, certain=certain)
            if found:
                address = (_quarkus_address(values(bound.ctx.module), names) if names
                           else _address(java(), bound, call, receiver))
                for client in found:
                    client.address = address
            yield from found


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    return lambda bound: read_jvm(known, lambda: constants(project), project.values, bound)


FRAMEWORK = Framework("grpc_jvm", ("java", "kotlin"), prepare, reads=("java", "kotlin", "proto"))
