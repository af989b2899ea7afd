"""MicroProfile Reactive Messaging (SmallRye: Quarkus, Helidon, Open Liberty), read from the facts of Java and
Kotlin files: ``@Incoming("ch")`` methods consume, ``@Outgoing("ch")`` methods produce, and ``send`` calls on
an ``Emitter`` field annotated ``@Channel("ch")`` produce (or the field a constructor assigns such a parameter to:
``Svc(@Channel("ch") MutinyEmitter<T> emitter) { this.emitter = emitter; }``; a method reference
``this.emitter::sendAndForget`` is a send).

A channel is a topic through its configuration: ``mp.messaging.{incoming,outgoing}.<ch>.connector`` gives the
broker (``smallrye-kafka``: kafka, ``smallrye-rabbitmq``: rabbit, ``smallrye-amqp``: amqp, ...), and ``topic``
(RabbitMQ: ``queue.name`` in, ``exchange.name`` out; AMQP: ``address``) the topic, the channel's name when none
is set, as SmallRye does. A channel without a connector is in-process, or bound to the one connector the build
has: which is not in the code, so the item stays unresolved and says so (a link would be a guess); so does one
whose connector differs by profile.

**In-process channels.** A channel the same application both writes (``@Outgoing``, an ``Emitter``) and reads
(``@Incoming``, or ``@Channel`` injecting a ``Multi``/``Publisher`` stream) with no connector for that direction is
wired in memory: SmallRye connects the two ends itself, and Quarkus binds to its one connector only channels with
no end in the application ("orphans"). No message leaves the service, so neither end is a producer or a listener
(as a method call is no HTTP call: `_internal`). A channel either direction configures a connector for stays a
topic.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import Folded, expand, literal, plain
from ..languages.symbols import Bound
from ..model import FileFacts, SymbolFact
from ..services.endpoints import Item
from ..services.settings import Values
from .base import Framework, Project, Reader, item
from .jvm import JVM_LANGUAGES, JavaFile, annotations, attr, constants

CONNECTORS = {"smallrye-kafka": "kafka", "smallrye-rabbitmq": "rabbit", "smallrye-amqp": "amqp",
              "smallrye-mqtt": "mqtt", "smallrye-pulsar": "pulsar", "smallrye-jms": "jms"}
#: the settings key of a channel's topic, by broker and direction (default: ``topic``)
TOPIC_KEYS = {("rabbit", "incoming"): "queue.name", ("rabbit", "outgoing"): "exchange.name",
              ("amqp", "incoming"): "address", ("amqp", "outgoing"): "address"}
EMITTERS = {"Emitter", "MutinyEmitter"}
SENDS = {"send", "sendAndAwait", "sendAndForget", "sendMessage", "sendMessageAndAwait", "sendMessageAndForget"}
MP_PACKAGES = ("org.eclipse.microprofile.reactive.messaging", "io.smallrye.reactive.messaging")


def _uses_mp(bound: Bound) -> bool:
    return any(i.target.startswith(MP_PACKAGES) for i in bound.facts.imports)


def _internal(files: list[Bound], project: Project, consts) -> dict[str, dict[str, set[str]]]:
    """microservice -> direction (``incoming``, ``outgoing``) -> the channels its code reads or writes: ``@Incoming``
    and ``@Outgoing`` methods, and ``@Channel`` on a field or a parameter (an ``Emitter`` writes, a stream reads)."""
    out: dict[str, dict[str, set[str]]] = {}
    for bound in files:
        if bound.facts.language not in JVM_LANGUAGES or not _uses_mp(bound):
            continue
        jf = JavaFile(bound, consts, project.values(bound.ctx.module))
        ends = out.setdefault(bound.ctx.microservice, {"incoming": set(), "outgoing": set()})
        for sym in bound.facts.symbols:
            anns = annotations(sym)
            found: list[tuple[str, str]] = []
            if sym.kind == "method":
                found += [(direction, attr(anns[name], "value") or "")
                          for name, direction in (("Incoming", "incoming"), ("Outgoing", "outgoing")) if name in anns]
            if sym.kind == "field" and "Channel" in anns:
                found.append((_direction(sym.type), attr(anns["Channel"], "value") or ""))
            if sym.kind in ("constructor", "method") and "Channel" in sym.signature:
                found += [(_direction(type_), written) for written, type_, _ in CHANNEL_PARAM.findall(sym.signature)]
            for direction, written in found:
                channel = jf.fold(written, sym.parent or "")
                if channel.known:
                    ends[direction].add(channel.text)
    return out


def _direction(type_: str) -> str:
    """Which way a ``@Channel`` injection goes: an emitter writes to the channel, a stream reads from it."""
    return "outgoing" if type_.split("<", 1)[0].rsplit(".", 1)[-1] in EMITTERS else "incoming"


def _in_process(internal: dict[str, dict[str, set[str]]], bound: Bound, direction: str, channel: Folded,
                values: Values) -> bool:
    """Whether ``channel`` is wired in memory: the application has its other end, and neither direction names a
    connector for it (see the module docstring)."""
    other = "incoming" if direction == "outgoing" else "outgoing"
    return channel.known and channel.text in internal.get(bound.ctx.microservice, {}).get(other, set()) and all(
        values.get(f"mp.messaging.{way}.{channel.text}.connector") is None for way in (direction, other))


def prepare(files: list[Bound], project: Project) -> Reader:
    consts = constants(project)
    internal = _internal(files, project, consts)

    def read(bound: Bound) -> Iterator[Item]:
        if not _uses_mp(bound):
            return
        values = project.values(bound.ctx.module)
        jf = JavaFile(bound, consts, values)
        facts = bound.facts
        emitters: dict[tuple[str, str], tuple[str, Folded]] = {}
        for index, sym in enumerate(facts.symbols):
            anns = annotations(sym)
            for name, direction, kind in (("Incoming", "incoming", "route"), ("Outgoing", "outgoing", "producer")):
                if name in anns and sym.kind == "method":
                    written = attr(anns[name], "value") or ""
                    channel = jf.fold(written, sym.parent or "")
                    if not _in_process(internal, bound, direction, channel, values):
                        yield _item(bound, index, kind, direction, channel, values, written)
            if "Channel" in anns and sym.kind == "field" and sym.type.split("<", 1)[0].rsplit(".", 1)[-1] in EMITTERS:
                written = attr(anns["Channel"], "value") or ""
                emitters[(sym.parent or "", sym.name)] = (written, jf.fold(written, sym.parent or ""))
            if sym.kind == "constructor" and sym.parent and "Channel" in sym.signature:
                for written, field in _injected_emitters(facts, sym):
                    emitters[(sym.parent, field)] = (written, jf.fold(written, sym.parent))
        by_key = {sym.key: i for i, sym in enumerate(facts.symbols)}
        for call in facts.calls if emitters else ():
            receiver = call.receiver
            if call.name not in SENDS or call.owner not in by_key or not receiver:
                continue
            name = receiver[1] if receiver[0] == "name" else receiver[2] if (
                receiver[0] == "field" and receiver[1] == ["this"]) else None
            class_key = call.owner.split("#", 1)[0]
            found = emitters.get((class_key, name)) if name else None
            if found is not None and not _in_process(internal, bound, "outgoing", found[1], values):
                written, channel = found
                yield _item(bound, by_key[call.owner], "producer", "outgoing", channel, values, written, call.line)
    return read


#: a constructor parameter ``@Channel("ch") Emitter<T> name`` (other annotations around it too): (channel, type, name)
CHANNEL_PARAM = re.compile(r"@(?:[\w.]+\.)?Channel\s*\(\s*(?:value\s*=\s*)?([^()]*?)\s*\)\s+"
                           r"(?:@[\w.]+(?:\([^()]*\))?\s+)*(?:final\s+)?([\w.]+)(?:<[^()]*?>)?\s+(\w+)")


def _injected_emitters(facts: FileFacts, ctor: SymbolFact) -> Iterator[tuple[str, str]]:
    """(channel as written, the field the constructor assigns it to) of each emitter injected as a
    constructor parameter annotated ``@Channel``."""
    assigns = facts.extra.get("assigns", {}).get(ctor.key, {})
    for written, type_, param in CHANNEL_PARAM.findall(ctor.signature):
        if type_.rsplit(".", 1)[-1] not in EMITTERS:
            continue
        for target, entries in assigns.items():
            if any(exprs == [param] for _, exprs in entries):
                yield written, target.removeprefix("this.")


def _item(bound: Bound, index: int, kind: str, direction: str, channel: Folded, values: Values, written: str,
          line: int | None = None) -> Item:
    prefix = f"mp.messaging.{direction}.{channel.text}"
    connector = values.get(f"{prefix}.connector") if channel.known else None
    brokers = {CONNECTORS.get(one.text, one.text) for one in expand(literal(connector))} if connector else set()
    # profiles that give the channel different connectors (``%dev.`` in-memory): which broker runs is not known
    broker = next(iter(brokers)) if len(brokers) == 1 else None
    topic = channel
    raw = values.get(f"{prefix}.{TOPIC_KEYS.get((broker or '', direction), 'topic')}") if broker else None
    if raw is not None:
        text, missing = values.resolve(raw)
        topic = Folded(text, not missing, tuple(f"placeholder ${{{k}}} is not in the module's settings"
                                                for k in missing))
    found = item(bound, index, kind, "smallrye_messaging", line, broker=broker or "channel", topic=topic,
                 written=written)
    if len(brokers) > 1:
        found.problems.append(f"the channel {channel.text} has a connector per profile ({plain(connector or '')}): "
                              "which broker it uses is not known")
    elif channel.known and connector is None:
        found.problems.append(f"the channel {channel.text} names no connector ({prefix}.connector): in-process, or "
                              "bound to the one connector the build has")
    elif broker == "rabbit" and direction == "outgoing":
        found.problems.append("sent to an exchange: which queue gets it depends on the bindings, which are not read")
    return found


FRAMEWORK = Framework("mp_messaging", JVM_LANGUAGES, prepare, reads=JVM_LANGUAGES)
