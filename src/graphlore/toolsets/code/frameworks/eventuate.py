"""Eventuate Tram messaging (broker ``eventuate``): saga commands to a channel, and domain events whose channel is the
aggregate type, read from the facts of Java and Kotlin files that import ``io.eventuate``.

Eventuate Tram writes each message to the service's outbox table and its CDC service relays it to the message broker
(Kafka by default; ActiveMQ, RabbitMQ or Redis by configuration) under the message's **channel**, which is the topic.

**Producers.** A saga's command endpoint ``CommandEndpointBuilder.forCommand(C.class).withChannel(ch)`` and a saga
step's ``send(command).to(ch)`` (``CommandWithDestinationBuilder``), a ``CommandProducer``'s ``send(ch, ...)``, a
``MessageProducer``'s ``send(destination, ...)`` and ``new CommandWithDestination(ch, ...)``: the channel folded like
any value. Domain events: ``DomainEventPublisher.publish(aggregateType, id, events)``, where the aggregate type is
a ``Class`` (``Order.class``: its fully qualified name is the channel, as Eventuate names it) or a string; and a
subclass of ``AbstractAggregateDomainEventPublisher`` (its constructor's ``super(publisher, Order.class, ...)``),
whose own ``publish(aggregate, events)`` calls anywhere in the project (on a receiver declared with its type) are
producers on the same channel.

**Consumers** (routes): ``SagaCommandHandlersBuilder.fromChannel(ch)`` / ``CommandHandlersBuilder.fromChannel(ch)``,
``DomainEventHandlersBuilder.forAggregateType(t)`` and each ``.andForAggregateType(t)``, a ``MessageConsumer``'s
``subscribe(id, Set.of(ch, ...), handler)``, and methods annotated ``@EventuateCommandHandler``/
``@EventuateDomainEventHandler`` (``channel``). A channel that does not fold stays unresolved and says why; producers
link to consumers by channel exactly (`services.links`). A class name the file neither imports nor declares in its
package (behind a wildcard import the project does not hold) is not guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import Folded, literal, split_top, unknown
from ..languages.symbols import Bound, Tracker
from ..model import CallFact
from ..services.endpoints import Item
from .base import Framework, Project, Reader, declared_type, item
from .jvm import JVM_LANGUAGES, JavaFile, annotations, attr, constants

BROKER = "eventuate"
PACKAGE = "io.eventuate"
#: the base class whose subclasses publish one aggregate type's events
AGGREGATE_PUBLISHER = "AbstractAggregateDomainEventPublisher"
COMMAND_BUILDERS = frozenset({"SagaCommandHandlersBuilder", "CommandHandlersBuilder"})
EVENT_BUILDERS = frozenset({"DomainEventHandlersBuilder"})
ANNOTATED = {"EventuateCommandHandler": "eventuate_command_handler",
             "EventuateDomainEventHandler": "eventuate_domain_event_handler"}
#: ``Order.class`` and ``Order.class.getName()`` (Java), ``Order::class.java``, ``Order::class.java.name`` and
#: ``Order::class.qualifiedName`` (Kotlin)
_CLASS = re.compile(r"^([A-Za-z_][\w.]*)\s*(?:\.\s*class(?:\s*\.\s*getName\s*\(\s*\))?|"
                    r"::\s*class(?:\s*\.\s*java(?:\s*\.\s*name)?|\s*\.\s*qualifiedName)?)$")
_SETS = re.compile(r"^(?:(?:java\.util\.)?(?:Set|List|Collections|Arrays)\s*\.\s*(?:of|singleton|singletonList|asList)|"
                   r"setOf|listOf)\s*(?:<[^()]*>)?\s*\((.*)\)$", re.S)


def _uses(bound: Bound) -> bool:
    return any(i.target.startswith(PACKAGE) for i in bound.facts.imports)


def _root(receiver) -> str:
    """The name a chain of calls starts from (``Builder.a(..).b(..)`` -> ``Builder``), "" when none."""
    while receiver and receiver[0] == "call":
        receiver = receiver[1]
    return receiver[1] if receiver and receiver[0] == "name" else ""


def _qualified(bound: Bound, key: str) -> str:
    """A symbol key of the file (``Outer.Inner``) as the fully qualified class name."""
    return f"{bound.facts.package}.{key}" if bound.facts.package else key


def _simple_type(written: str) -> str:
    return re.sub(r"<.*$", "", written.lstrip("~")).strip().rsplit(".", 1)[-1].removesuffix("()")


class Eventuate:
    """The project's aggregate publishers (the class's fully qualified name -> its ``super`` calls, which write the
    aggregate type): keyed by the full name, so a class of the same simple name elsewhere (another service's own
    ``OrderEvents``) is not taken for one."""

    def __init__(self, files: list[Bound], project: Project) -> None:
        self.project = project
        self.consts = constants(project)
        self.publishers: dict[str, list[tuple[Bound, CallFact]]] = {}
        for bound in files:
            if not _uses(bound):
                continue
            for sym in bound.facts.symbols:
                if sym.kind == "class" and any(_simple_type(base) == AGGREGATE_PUBLISHER for _, base in sym.supers):
                    supers = [c for c in bound.facts.calls if c.kind == "super" and c.owner.split("#", 1)[0] == sym.key
                              and len(c.args) >= 2]
                    self.publishers.setdefault(_qualified(bound, sym.key), []).extend((bound, c) for c in supers)

    def class_name(self, bound: Bound, name: str) -> Folded:
        """The fully qualified name of class ``name`` as the file sees it (Eventuate's channel of an aggregate)."""
        if "." in name and name[:1].islower():
            return literal(name)
        head, _, rest = name.partition(".")
        for imp in bound.facts.imports:
            if not imp.static and imp.target.rsplit(".", 1)[-1] == head and imp.names != (("*", "*"),):
                return literal(imp.target + ("." + rest if rest else ""))
        package = bound.facts.package
        own = f"{package}.{name}" if package else name
        wildcards = [i.target for i in bound.facts.imports if i.names == (("*", "*"),) and not i.static]
        if not wildcards or self.project.table.lookup(own, Tracker()):
            return literal(own)
        held = [f"{w}.{name}" for w in wildcards if self.project.table.lookup(f"{w}.{name}", Tracker())]
        if len(held) == 1:
            return literal(held[0])
        return unknown(f"the class {name} is not one the project declares where the file can see it")

    def channel(self, bound: Bound, call: CallFact, expr: str | None) -> Folded:
        """A channel: a class literal's fully qualified name, else the expression folded."""
        if expr is None:
            return unknown(f"{call.name}(...) names no channel here")
        klass = _CLASS.match(expr.strip())
        if klass is not None:
            return self.class_name(bound, klass.group(1))
        jf = JavaFile(bound, self.consts, self.project.values(bound.ctx.module))
        value = jf.fold(expr, call.owner.split("#", 1)[0], call.owner, call.line)
        if value.known and (not value.text or re.search(r"[\s\"'(){}\[\],]", value.text)):
            return unknown(f"{expr} is not one channel's name")
        return value


class EventuateReader:
    """Reads one file's producers and consumers (see the module docstring)."""

    def __init__(self, eventuate: Eventuate, bound: Bound) -> None:
        self.ev, self.bound = eventuate, bound
        self.by_key = {sym.key: index for index, sym in enumerate(bound.facts.symbols)}

    def make(self, call: CallFact, kind: str, flavor: str, expr: str | None, channel: Folded | None = None) -> Item:
        topic = channel if channel is not None else self.ev.channel(self.bound, call, expr)
        return item(self.bound, self.by_key.get(call.owner, -1), kind, flavor, call.name_line or call.line,
                    broker=BROKER, topic=topic, written=expr or "")

    def written_type(self, call: CallFact) -> str:
        """The receiver's declared type as written, without type arguments ("" when not known)."""
        receiver = call.receiver
        name = receiver[1] if receiver[0] == "name" else receiver[2] if receiver[0] == "field" and \
            receiver[1] == ["this"] else ""
        written = declared_type(self.bound, call.owner, name, call.line) if name else ""
        return re.sub(r"<.*$", "", written.lstrip("~")).strip().removesuffix("()")

    def receiver_type(self, call: CallFact) -> str:
        return self.written_type(call).rsplit(".", 1)[-1]

    def read(self, imports_eventuate: bool) -> Iterator[Item]:
        for call in self.bound.facts.calls:
            if imports_eventuate:
                yield from self.call(call)
            if call.name == "publish" and call.receiver and call.args and call.receiver[0] in ("name", "field"):
                yield from self.aggregate_publish(call)
        if imports_eventuate:
            yield from self.annotated()

    def call(self, call: CallFact) -> Iterator[Item]:
        first = call.args[0] if call.args else None
        receiver = call.receiver
        if call.kind == "super" and _qualified(self.bound, call.owner.split("#", 1)[0]) in self.ev.publishers:
            if len(call.args) >= 2:
                yield self.make(call, "producer", "eventuate_domain_events", call.args[1])
            return
        if call.kind == "new" and call.name == "CommandWithDestination" and first:
            yield self.make(call, "producer", "eventuate_saga_command", first)
        if call.kind != "call" or not receiver:
            return
        if call.name == "withChannel" and _root(receiver) == "CommandEndpointBuilder":
            yield self.make(call, "producer", "eventuate_saga_command", first)
        elif call.name == "to" and receiver[0] == "call" and receiver[2] == "send":
            yield self.make(call, "producer", "eventuate_saga_command", first)
        elif call.name == "fromChannel" and _root(receiver) in COMMAND_BUILDERS:
            yield self.make(call, "route", "eventuate_command_handler", first)
        elif call.name in ("forAggregateType", "andForAggregateType") and _root(receiver) in EVENT_BUILDERS:
            yield self.make(call, "route", "eventuate_domain_event_handler", first)
        elif call.name == "send" and receiver[0] in ("name", "field") and first:
            typed = self.receiver_type(call)
            if typed in ("CommandProducer", "MessageProducer"):
                yield self.make(call, "producer", "eventuate_command" if typed == "CommandProducer"
                                else "eventuate_message", first)
        elif call.name == "publish" and receiver[0] in ("name", "field") and len(call.args) >= 2 and \
                self.receiver_type(call) == "DomainEventPublisher":
            yield self.make(call, "producer", "eventuate_domain_events", first)
        elif call.name == "subscribe" and receiver[0] in ("name", "field") and len(call.args) >= 2 and \
                self.receiver_type(call) == "MessageConsumer":
            listed = _SETS.match(call.args[1].strip())
            if listed is None:
                yield self.make(call, "route", "eventuate_message", call.args[1],
                                unknown(f"the channels ({call.args[1]}) are not written out where it subscribes"))
            for expr in split_top(listed.group(1)) if listed else ():
                yield self.make(call, "route", "eventuate_message", expr)

    def aggregate_publish(self, call: CallFact) -> Iterator[Item]:
        """``publisher.publish(aggregate, events)`` on a subclass of the aggregate publisher: its aggregate's channel."""
        typed = self.written_type(call)
        fqn = self.ev.class_name(self.bound, typed) if typed else None
        found = self.ev.publishers.get(fqn.text, []) if fqn is not None and fqn.known else []
        if len(found) != 1:
            return
        bound, sup = found[0]
        yield self.make(call, "producer", "eventuate_domain_events", sup.args[1],
                        self.ev.channel(bound, sup, sup.args[1]))

    def annotated(self) -> Iterator[Item]:
        jf = JavaFile(self.bound, self.ev.consts, self.ev.project.values(self.bound.ctx.module))
        for index, sym in enumerate(self.bound.facts.symbols):
            anns = annotations(sym)
            for name, flavor in ANNOTATED.items():
                if name in anns and sym.kind == "method":
                    written = attr(anns[name], "channel")
                    channel = jf.fold(written, sym.parent or "") if written else \
                        unknown(f"@{name} names no channel")
                    yield item(self.bound, index, "route", flavor, broker=BROKER, topic=channel, written=written or "")


def prepare(files: list[Bound], project: Project) -> Reader:
    eventuate = Eventuate(files, project)

    def read(bound: Bound) -> Iterator[Item]:
        uses = project.memo.get("eventuate", bound, _uses)
        if not uses and not eventuate.publishers:
            return iter(())
        return EventuateReader(eventuate, bound).read(uses)

    return read


FRAMEWORK = Framework("eventuate", JVM_LANGUAGES, prepare)
