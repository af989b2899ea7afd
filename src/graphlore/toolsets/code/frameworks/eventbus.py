"""Integration events on a .NET event bus whose topic is the event's type (broker ``eventbus``).

The class: a project's own bus (eShop's ``IEventBus``, eShopOnContainers' before it) routes each event by its
type's name (``@event.GetType().Name`` as the routing key) and subscribes a handler to an event type
(``AddSubscription<TEvent, THandler>()``, older ``Subscribe<TEvent, THandler>()``). The topic is the event
class's simple name.

**Consumers.** Each such subscription (two type arguments) is a listener on ``TEvent``, declared by the
handler's ``Handle`` method (the one taking ``TEvent``, else the only one; the class without one): the handler
class of that name in the subscribing file's module, else the one its namespace, usings or ``global using``
make visible there (never another deployed service's: the handler runs in the subscriber's process); when none
or several are, the listener is declared at the subscription and says so.

**Producers.** The event types are the classes that derive (through any number of classes) from a base of a
subscribed event type (``IntegrationEvent``). A publishing method is a method of the project whose first
parameter is typed with such a base (``IEventBus.PublishAsync(IntegrationEvent)``, an outbox's
``SaveEventAndChangesAsync(IntegrationEvent)``). A call of one with an event is a producer of each type the
argument may hold: ``new T(...)``, or a local assigned ``new T(...)`` (each branch of a conditional, each
assignment); one per method and type (the outbox's save and the publish after it are one message). A call
passing the method's own parameter on is no producer (its callers are); one whose event type is not known
stays unresolved, saying why.

**MassTransit and NServiceBus** (in a project that imports them; their topic is the message type too, broker
``masstransit`` / ``nservicebus``): a class implementing ``IConsumer<T>`` (``IHandleMessages<T>``) is a listener
on ``T`` at its ``Consume`` (``Handle``); ``Publish``/``Send`` on a receiver declared as the library's sender
(``IPublishEndpoint``, ``IBus``, ``ConsumeContext``...; ``IMessageSession``, ``IMessageHandlerContext``...) sends
``new T(..)``, a local assigned one, or the ``T`` of ``Publish<T>(..)``. A message mapped to its type
(``x.Adapt<T>()``, ``mapper.Map<T>(x)``) or returned by a method of the project that returns one type of it
(``order.ToOrderDto()``), directly or through a local every value of which is such, is of that type.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..languages.csharp.constants import made_type
from ..languages.folding import Folded, literal, unknown
from ..languages.symbols import Bound, reaches
from ..model import FileFacts
from ..services.endpoints import Item
from .base import Framework, Project, Reader, declared_type, item

SUBSCRIBE = frozenset({"AddSubscription", "Subscribe"})
#: the method of a handler class that receives the event
HANDLE = "Handle"
BROKER = "eventbus"
FLAVOR = "event_bus"
#: a call of a method of the project at the end of an expression (``order.ToOrderDto()``)
_CALLED = re.compile(r"(?:^|\.)\s*([A-Za-z_]\w*)\s*\([^()]*\)$")
#: a method declaration's return type (the last type before its name; ``Task<T>`` and ``void`` are no message)
_RETURNS = re.compile(r"([A-Za-z_][\w.]*)\s+[A-Za-z_]\w*\s*\(")


def _simple(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _visible(facts: FileFacts, namespace: str, module_imports: set[str]) -> bool:
    package = facts.package
    return namespace in module_imports or package == namespace or package.startswith(namespace + ".") or \
        any(i.target == namespace and i.names == (("*", "*"),) for i in facts.imports)


class EventBus:
    """The project's C# classes by simple name, its event types and its publishing methods."""

    def __init__(self, files: list[Bound]) -> None:
        self.files = files
        #: simple name -> (bound, symbol index) of each class, record or interface
        self.types: dict[str, list[tuple[Bound, int]]] = {}
        #: module -> the namespaces its files import (``global using`` applies to every file of a project)
        self.imports: dict[str, set[str]] = {}
        self.subscriptions: list[tuple[Bound, list]] = []
        for bound in files:
            for index, sym in enumerate(bound.facts.symbols):
                if sym.kind in ("class", "record", "interface"):
                    self.types.setdefault(sym.name, []).append((bound, index))
            self.imports.setdefault(bound.ctx.module, set()).update(
                i.target for i in bound.facts.imports if i.names == (("*", "*"),))
            for call in bound.facts.extra.get("generic_calls", []):
                if call[1] in SUBSCRIBE and len(call) == 3 and len(call[2]) == 2:
                    self.subscriptions.append((bound, call))
        subscribed = {_simple(call[2][0]) for _, call in self.subscriptions}
        self.bases = {_simple(written) for name in subscribed for bound, index in self.types.get(name, [])
                      for _, written in bound.facts.symbols[index].supers}
        self.events = {name for name in self.types if self._derives(name, set())}
        #: names of methods whose first parameter is an event base (a handler's ``Handle`` takes one too: no
        #: publisher)
        self.publishers = {sym.name for bound in files for sym in bound.facts.symbols
                           if sym.kind == "method" and sym.params and _simple(sym.params[0][1]) in self.bases
                           and sym.name != HANDLE}
        #: the fqns of the publishing methods' bodies (an implementation of ``IEventBus.PublishAsync``): what a broker
        #: producer declared in one of them carries (`Item.carried_by`)
        self.carriers = tuple(sorted(bound.fqns[index] for bound in files
                                     for index, sym in enumerate(bound.facts.symbols)
                                     if sym.kind == "method" and sym.name in self.publishers))
        #: method name -> the types its declarations return (a mapping method ``ToOrderDto()``'s ``OrderDto``)
        self.returns: dict[str, set[str]] = {}
        for bound in files:
            for sym in bound.facts.symbols:
                returned = _RETURNS.search(sym.signature) if sym.kind == "method" else None
                if returned:
                    self.returns.setdefault(sym.name, set()).add(_simple(returned.group(1)))

    def _derives(self, name: str, seen: set[str]) -> bool:
        if name in seen:
            return False
        seen.add(name)
        for bound, index in self.types.get(name, []):
            for _, written in bound.facts.symbols[index].supers:
                if _simple(written) in self.bases or self._derives(_simple(written), seen):
                    return True
        return False

    def handler(self, bound: Bound, name: str) -> tuple[Bound, int] | str:
        """The class a subscription in ``bound`` names (see the module docstring), or why none is."""
        named = self.types.get(_simple(name), [])
        found = [(b, i) for b, i in named if reaches(bound.ctx, b.ctx)]   # a handler runs in the subscriber's process
        if named and not found:
            return f"the classes named {name} are code of other deployed services"
        here = [(b, i) for b, i in found if b.ctx.module == bound.ctx.module]
        if len(here) == 1:
            return here[0]
        visible = [(b, i) for b, i in (here or found)
                   if _visible(bound.facts, b.facts.package, self.imports.get(bound.ctx.module, set()))]
        if len(visible) == 1:
            return visible[0]
        return f"{len(visible) or len(found)} classes named {name} may be the handler" if found else \
            f"no class of the project is named {name}"

    def listeners(self) -> dict[str, list[Item]]:
        """file -> the listener items the project's subscriptions declare in it."""
        out: dict[str, list[Item]] = {}
        for bound, (line, _name, (event, handler)) in self.subscriptions:
            topic = literal(_simple(event))
            written = f"{_name}<{event}, {handler}>"
            found = self.handler(bound, handler)
            if isinstance(found, str):
                listener = item(bound, -1, "route", FLAVOR, line, broker=BROKER, topic=topic, written=written)
                listener.problems.append(found)
                out.setdefault(bound.path, []).append(listener)
                continue
            home, index = found
            methods = [m for m in home.members(home.facts.symbols[index].key)
                       if home.facts.symbols[m].kind == "method" and home.facts.symbols[m].name == HANDLE]
            typed = [m for m in methods if home.facts.symbols[m].params and
                     _simple(home.facts.symbols[m].params[0][1]) == _simple(event)]
            owner = (typed or methods)[0] if len(typed or methods) == 1 else index
            out.setdefault(home.path, []).append(item(home, owner, "route", FLAVOR, None, broker=BROKER, topic=topic,
                                                      written=written))
        return out


def message_types(bus: EventBus, bound: Bound, owner: str, arg: str, line: int) -> list[Folded] | None:
    """What a message argument may be (any class of the project), as topics; None when it is the method's own
    parameter (passed on)."""
    return _event_types(bus, bound, owner, arg, line, set(bus.types))


def _event_types(bus: EventBus, bound: Bound, owner: str, arg: str, line: int,
                 known: set[str] | None = None) -> list[Folded] | None:
    """What an argument may be, as topics; None when it is the method's own parameter (passed on)."""
    known = bus.events if known is None else known
    name = _value_type(bus, arg)
    if name is not None:
        return [literal(name) if name in known else unknown(f"{name} is no event type of the project")]
    if not re.fullmatch(r"@?\w+", arg):
        return [unknown(f"the event {arg} is not a local or a new event")]
    index = bound.by_key.get(owner)
    if index is not None and any(p == arg for p, _ in bound.facts.symbols[index].params):
        return None
    made = [(at, types) for at, types in bound.facts.extra.get("made", {}).get(owner, {}).get(arg, []) if at <= line]
    assigned = [at for at, _ in bound.facts.extra.get("assigns", {}).get(owner, {}).get(arg, []) if at <= line]
    if made and set(assigned) <= {at for at, _ in made}:   # every value it is given is a new object
        found = dict.fromkeys(_simple(name) for _, types in made for name in types)
        return [literal(n) if n in known else unknown(f"{n} is no event type of the project") for n in found]
    declared = [t for at, t in bound.facts.locals.get(owner, {}).get(arg, []) if at <= line]
    if declared and _simple(declared[-1]) in known:
        return [literal(_simple(declared[-1]))]
    values = [text for at, texts in bound.facts.extra.get("assigns", {}).get(owner, {}).get(arg, []) if at <= line
              for text in texts]
    mapped = [_value_type(bus, text) for text in values]
    if mapped and None not in mapped:   # every value it is given is mapped or made to a type
        return [literal(n) if n in known else unknown(f"{n} is no event type of the project")
                for n in dict.fromkeys(n for n in mapped if n is not None)]
    return [unknown(f"the type of the event {arg} is not known here")]


def _value_type(bus: EventBus, text: str) -> str | None:
    """The type an expression makes: ``new T(..)``, ``x.Adapt<T>()``, ``mapper.Map<T>(x)``, or a call of a method
    every declaration of which in the project returns one type (``order.ToOrderDto()``); else None."""
    text = text.strip().removesuffix("!")
    made = made_type(text)
    if made is not None:
        return made
    called = _CALLED.search(text)
    returned = bus.returns.get(called.group(1), set()) if called else set()
    if len(returned) == 1 and next(iter(returned)) in bus.types:
        return next(iter(returned))
    return None


def _producers(bus: EventBus, bound: Bound) -> Iterator[Item]:
    seen: set[tuple[str, str]] = set()
    for call in bound.facts.calls:
        if call.kind != "call" or call.name not in bus.publishers or not call.args:
            continue
        topics = _event_types(bus, bound, call.owner, call.args[0].strip(), call.line)
        for topic in topics or []:
            if (call.owner, topic.text) in seen and topic.known:
                continue
            seen.add((call.owner, topic.text))
            yield item(bound, bound.by_key.get(call.owner, -1), "producer", FLAVOR, call.line, broker=BROKER,
                       topic=topic, written=f"{call.name}({call.args[0]})", carried_by=bus.carriers)


@dataclass(frozen=True)
class Library:
    """A message library whose topic is the message type: its namespace, the base a handler class implements
    (``IConsumer<T>``) and the method that receives, and the types a sender is declared as."""

    flavor: str
    namespace: str
    handler_base: str
    receive: str
    senders: frozenset[str]


LIBRARIES = (
    Library("masstransit", "MassTransit", "IConsumer", "Consume",
            frozenset({"IPublishEndpoint", "IBus", "ISendEndpoint", "ConsumeContext", "IBusControl"})),
    Library("nservicebus", "NServiceBus", "IHandleMessages", "Handle",
            frozenset({"IMessageSession", "IMessageHandlerContext", "IEndpointInstance", "IPipelineContext"})),
)
SEND = frozenset({"Publish", "Send"})


def _uses(bus: EventBus, bound: Bound, library: Library) -> bool:
    return any(n == library.namespace or n.startswith(library.namespace + ".")
               for n in bus.imports.get(bound.ctx.module, set()))


def _library_items(bus: EventBus, bound: Bound, library: Library) -> Iterator[Item]:
    """Handlers (``class X : IConsumer<T>``: a listener on ``T`` at ``Consume``) and sends (``Publish``/``Send``
    on a receiver declared as one of the library's senders, of ``new T(..)``, a local assigned one, or
    ``Publish<T>(..)``) of one file of a module that uses the library."""
    facts = bound.facts
    for key, bases in facts.extra.get("generic_bases", {}).items():
        for base, types in bases:
            if _simple(base) != library.handler_base or len(types) != 1:
                continue
            receives = [m for m in bound.members(key) if facts.symbols[m].name == library.receive]
            owner = receives[0] if len(receives) == 1 else bound.by_key.get(key, -1)
            yield item(bound, owner, "route", library.flavor, None, broker=library.flavor,
                       topic=literal(_simple(types[0])), written=f"{base}<{types[0]}>")
    typed = {(line, name): types for line, name, types in facts.extra.get("generic_calls", [])}
    for call in facts.calls:
        if call.kind != "call" or call.name not in SEND or call.owner not in bound.by_key or not call.receiver:
            continue
        if call.receiver[0] == "name" or call.receiver[0] == "field" and call.receiver[1] == ["this"]:
            sender = declared_type(bound, call.owner, call.receiver[-1], call.line)
        else:
            continue
        if _simple(sender) not in library.senders:
            continue
        written = typed.get((call.line, call.name))
        if written and len(written) == 1:
            topics = [literal(_simple(written[0]))]
        elif call.args:
            topics = message_types(bus, bound, call.owner, call.args[0].strip(), call.line) or \
                [unknown(f"the message {call.args[0]} is the method's own parameter")]
        else:
            topics = [unknown(f"{call.name}(...) names no message here")]
        for topic in topics:
            yield item(bound, bound.by_key[call.owner], "producer", library.flavor, call.line, broker=library.flavor,
                       topic=topic, written=f"{call.name}({', '.join(call.args[:1])})")


def prepare(files: list[Bound], project: Project) -> Reader:
    bus = EventBus(files)
    listeners = bus.listeners() if bus.subscriptions else {}

    def read(bound: Bound) -> Iterator[Item]:
        yield from listeners.get(bound.path, [])
        if bus.subscriptions:
            yield from _producers(bus, bound)
        for library in LIBRARIES:
            if _uses(bus, bound, library):
                yield from _library_items(bus, bound, library)

    return read


FRAMEWORK = Framework("eventbus", ("csharp",), prepare)
