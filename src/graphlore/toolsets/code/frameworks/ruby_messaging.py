"""Kafka and RabbitMQ in Ruby: producers and consumers of ruby-kafka, rdkafka, Racecar, Bunny and Sneakers, in
files that require the library (Racecar and Sneakers: in classes deriving from or including theirs).

**Kafka** (``ruby_kafka`` in a file requiring ``kafka``, ``rdkafka`` in one requiring ``rdkafka``): a producer is
``produce(..., topic: t)`` / ``produce_async``/``deliver_message(..., topic: t)``; a consumer is ``subscribe(t,
...)`` (each string argument; ``subscribe`` with none written is unresolved) and ``each_message(topic: t)``.
``racecar``: ``subscribes_to t, ...`` in a class deriving from ``Racecar::Consumer`` (its ``process`` method
handles them).

**RabbitMQ** (``bunny``, in a file requiring ``bunny``): an exchange is what ``ch.topic(name)``,
``ch.direct(name)``, ``ch.fanout(name)``, ``ch.headers(name)``, ``ch.exchange(name, ...)`` make
(``ch.default_exchange``: ``""``), a queue what ``ch.queue(name)`` makes, as a local, an instance variable or the call's own receiver.
``exchange.publish(payload, routing_key: k)`` produces ``exchange/k`` (on the default exchange, ``k`` alone: the
queue it names), ``queue.publish(payload)`` the queue's name; ``queue.subscribe`` consumes the queue: one route
for its name and one per ``queue.bind(exchange, routing_key: k)`` the file makes of it. ``sneakers``:
``from_queue name`` in a class including ``Sneakers::Worker`` (its ``work`` method handles it).

Topics, exchanges, keys and queues are folded as every Ruby value is; what does not fold is unresolved, saying
why; producers link to consumers by broker and topic exactly (`services.links`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import Folded, literal, split_top, unknown
from ..languages.symbols import Bound
from ..model import CallFact
from ..services.endpoints import Item
from .base import Framework, Project, Reader, item
from .ruby_web import RubyFile, assigned_value, call_options, ruby_constants

KAFKA_PRODUCE = frozenset({"produce", "produce_async", "deliver_message"})
EXCHANGES = frozenset({"topic", "direct", "fanout", "headers", "exchange"})
_MAKER = re.compile(r"\.\s*(topic|direct|fanout|headers|exchange|queue|default_exchange)\b\s*(\(?)(.*)$", re.S)


def _library(bound: Bound) -> str | None:
    targets = {imp.target for imp in bound.facts.imports}
    if "rdkafka" in targets:
        return "rdkafka"
    if "kafka" in targets or "ruby-kafka" in targets:
        return "ruby_kafka"
    return None


def _first_arg(rest: str, parenthesised: bool) -> str | None:
    if parenthesised:
        depth, end = 1, 0
        while end < len(rest) and depth:
            depth += {"(": 1, ")": -1}.get(rest[end], 0)
            end += 1
        rest = rest[:end - 1]
    else:
        rest = rest.split(" do", 1)[0].split("{", 1)[0]
    args = [a.strip() for a in split_top(rest) if a.strip()]
    return args[0] if args else None


def _written(receiver: list) -> str:
    """A receiver as written (``queue``, ``@queue``, ``ch.queue(...)``)."""
    if receiver[0] == "name":
        return receiver[1]
    if receiver[0] == "field":
        return "@" + receiver[2]
    return f"{_written(receiver[1]) if receiver[1] else ''}.{receiver[2]}(...)" if receiver[0] == "call" else "?"


class _Reader:
    def __init__(self, rb: RubyFile) -> None:
        self.rb, self.bound = rb, rb.bound

    def make(self, call: CallFact, kind: str, flavor: str, broker: str, topic: Folded, written: str,
             owner: int | None = None) -> Item:
        return item(self.bound, self.rb.owner_index(call.owner) if owner is None else owner, kind, flavor, call.line,
                    broker=broker, topic=topic, written=written)

    # -- Kafka ----------------------------------------------------------------------------------------------------
    def kafka(self, library: str) -> Iterator[Item]:
        for call in self.bound.facts.calls:
            if call.kind != "call" or call.receiver is None:
                continue
            positional, named = call_options(call.args)
            if call.name in KAFKA_PRODUCE and "topic" in named:
                yield self.make(call, "producer", library, "kafka", self.rb.fold(named["topic"], call.owner, call.line),
                                named["topic"])
            elif call.name == "each_message" and "topic" in named:
                yield self.make(call, "route", library, "kafka", self.rb.fold(named["topic"], call.owner, call.line),
                                named["topic"])
            elif call.name == "subscribe" and self.consumer(call):
                if not positional:
                    yield self.make(call, "route", library, "kafka", unknown("the topics are not written out where "
                                                                             "it subscribes"), "")
                for expr in positional:
                    yield self.make(call, "route", library, "kafka", self.rb.fold(expr, call.owner, call.line), expr)

    def consumer(self, call: CallFact) -> bool:
        """The call is made on a Kafka consumer: ``kafka.consumer(...)`` / ``config.consumer``, written in the call or
        given to the local or instance variable it is made on (a Bunny queue's ``subscribe`` is not)."""
        if call.receiver[0] == "call":
            return call.receiver[2] == "consumer"
        found = assigned_value(self.rb, call.owner, call.receiver)
        return found is not None and re.search(r"\.\s*consumer\b", found[0]) is not None

    def racecar(self) -> Iterator[Item]:
        facts = self.bound.facts
        consumers = {sym.key for sym in facts.symbols if sym.kind == "class" and
                     ("extends", "Racecar.Consumer") in sym.supers}
        for call in facts.calls:
            if call.name == "subscribes_to" and call.receiver is None and call.owner in consumers:
                handler = self.bound.by_key.get(f"{call.owner}.process", self.rb.owner_index(call.owner))
                for expr in call_options(call.args)[0]:
                    yield self.make(call, "route", "racecar", "kafka", self.rb.fold(expr, call.owner, call.line), expr,
                                    handler)

    # -- RabbitMQ -------------------------------------------------------------------------------------------------
    def made(self, call: CallFact, receiver: list) -> tuple[str, Folded] | None:
        """What a Bunny receiver is: ("exchange" | "queue", its name folded), or None when not made by a channel."""
        if receiver[0] == "call":
            if receiver[2] == "default_exchange":
                return "exchange", literal("")
            makers = [c for c in self.bound.facts.calls if c.line == call.line and c.name == receiver[2] and c.args
                      and c.owner == call.owner]
            if receiver[2] not in EXCHANGES | {"queue"} or len(makers) != 1:
                return None
            return ("queue" if receiver[2] == "queue" else "exchange",
                    self.rb.fold(makers[0].args[0], call.owner, call.line))
        found = assigned_value(self.rb, call.owner, receiver)
        match = _MAKER.search(found[0]) if found is not None else None
        if match is None:
            return None
        if match.group(1) == "default_exchange":
            return "exchange", literal("")
        first = _first_arg(match.group(3), bool(match.group(2)))
        if first is None:
            return None
        return ("queue" if match.group(1) == "queue" else "exchange", self.rb.fold(first, found[1], found[2] + 1))

    def bunny(self) -> Iterator[Item]:
        facts = self.bound.facts
        bindings: dict[str, list[Folded]] = {}
        for call in facts.calls:
            if call.name == "bind" and call.receiver and call.args:
                queue = self.made(call, call.receiver)
                if queue is None or queue[0] != "queue" or not queue[1].known:
                    continue
                positional, named = call_options(call.args)
                exchange_expr = positional[0] if positional else None
                exchange = self.exchange_named(call, exchange_expr) if exchange_expr else unknown("no exchange")
                key = self.rb.fold(named["routing_key"], call.owner, call.line) if "routing_key" in named \
                    else literal("")
                bindings.setdefault(queue[1].text, []).append(exchange + literal("/") + key)
        for call in facts.calls:
            if call.kind != "call" or not call.receiver or call.name not in ("publish", "subscribe"):
                continue
            made = self.made(call, call.receiver)
            if made is None:
                continue
            what, name = made
            if call.name == "publish":
                positional, named = call_options(call.args)
                if what == "queue":
                    topic = name
                else:
                    key = self.rb.fold(named["routing_key"], call.owner, call.line) if "routing_key" in named \
                        else literal("")
                    topic = key if name.known and name.text == "" else name + literal("/") + key
                yield self.make(call, "producer", "bunny", "rabbit", topic, ", ".join(call.args[:3]))
            elif what == "queue":
                topics = {t.text: t for t in [*bindings.get(name.text, []), name]} if name.known else {"": name}
                for topic in topics.values():
                    yield self.make(call, "route", "bunny", "rabbit", topic, _written(call.receiver))

    def exchange_named(self, call: CallFact, expr: str) -> Folded:
        """An exchange passed to ``bind``: a variable made by a channel, else the name itself."""
        if re.fullmatch(r"@?[a-z_]\w*", expr):
            receiver = ["field", ["this"], expr[1:]] if expr.startswith("@") else ["name", expr]
            made = self.made(call, receiver)
            if made is not None and made[0] == "exchange":
                return made[1]
        return self.rb.fold(expr, call.owner, call.line)

    def sneakers(self) -> Iterator[Item]:
        facts = self.bound.facts
        workers = {sym.key for sym in facts.symbols if sym.kind == "class" and ("includes", "Sneakers.Worker")
                   in sym.supers}
        for call in facts.calls:
            if call.name == "from_queue" and call.receiver is None and call.owner in workers and call.args:
                handler = self.bound.by_key.get(f"{call.owner}.work", self.rb.owner_index(call.owner))
                yield self.make(call, "route", "sneakers", "rabbit", self.rb.fold(call.args[0], call.owner, call.line),
                                call.args[0], handler)


def read_ruby(project: Project, bound: Bound) -> Iterator[Item]:
    reader = _Reader(RubyFile(bound, ruby_constants(project)))
    library = _library(bound)
    if library is not None:
        yield from reader.kafka(library)
    yield from reader.racecar()
    if any(imp.target == "bunny" for imp in bound.facts.imports):
        yield from reader.bunny()
    yield from reader.sneakers()


def prepare(files: list[Bound], project: Project) -> Reader:
    return lambda bound: read_ruby(project, bound)


FRAMEWORK = Framework("ruby_messaging", ("ruby",), prepare)
