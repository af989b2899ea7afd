"""Watermill (``github.com/ThreeDotsLabs/watermill``) publishers and subscribers in Go.

**Producers**: ``Publish(topic, msgs...)`` on a value typed as a watermill publisher (``message.Publisher`` or a
backend's, any type of a watermill package); a router handler's publish topic (below).
**Listeners**: ``router.AddHandler(name, subscribeTopic, subscriber, publishTopic, publisher, handler)`` (also a
producer of ``publishTopic``), ``AddNoPublisherHandler(name, topic, subscriber, handler)`` and its newer name
``AddConsumerHandler``, on a ``message.Router``: a route of the topic declared by the handler function when the
project declares it (``s.handleMessage``; at the registration's line when the handler is in its file, as Go's HTTP
routes are), else by the registering function; ``Subscribe(ctx, topic)`` on a watermill subscriber.

Watermill is one API over many brokers: the broker is the backend the project's Go code imports
(``watermill-kafka`` -> kafka, ``watermill-amqp`` -> rabbit, ...) when it imports exactly one, else ``watermill``
(so that a producer still meets its listener by topic, never a guessed broker). Topics are folded as other Go
values are (constants of any package, environment reads, settings)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.symbols import Bound
from ..model import CallFact
from ..services.endpoints import Item
from .base import Framework, Project, Reader, item
from .golang import GoProject, written_type

WATERMILL = re.compile(r"^github\.com/ThreeDotsLabs/watermill(?:-[\w-]+)?(?:/v\d+)?(?:/|$)")
#: a backend's module -> the broker name the other readers use
BACKENDS = {"watermill-kafka": "kafka", "watermill-amqp": "rabbit", "watermill-nats": "nats",
            "watermill-redisstream": "redis", "watermill-googlecloud": "google_pubsub", "watermill-sql": "sql",
            "watermill-aws": "aws", "watermill-http": "http", "watermill-io": "io", "watermill-bolt": "bolt",
            "watermill-firestore": "firestore"}
#: handler registrations: name -> (topic argument, publish topic argument or None, handler argument)
HANDLERS = {"AddHandler": (1, 3, 5), "AddNoPublisherHandler": (1, None, 3), "AddConsumerHandler": (1, None, 3)}


def _broker(files: list[Bound]) -> str:
    found = set()
    for bound in files:
        for imp in bound.facts.imports:
            module = re.match(r"^github\.com/ThreeDotsLabs/(watermill-[\w-]+)", imp.target)
            if module and module.group(1) in BACKENDS:
                found.add(BACKENDS[module.group(1)])
    return found.pop() if len(found) == 1 else "watermill"


def _imports_watermill(bound: Bound) -> bool:
    return not bound.facts.extra.get("generated") and any(WATERMILL.match(i.target) for i in bound.facts.imports)


class Watermill:
    def __init__(self, files: list[Bound]) -> None:
        self.go = GoProject(files)
        self.broker = _broker(files)

    def of_watermill(self, bound: Bound, call: CallFact) -> bool:
        """The call's receiver is typed as something of a watermill package."""
        if not call.receiver or call.receiver[0] not in ("name", "field"):
            return False
        written = written_type(self.go.packages, bound, call.owner, call.receiver, call.line)
        head, dot, _name = written.lstrip("*&~").removesuffix("()").rpartition(".")
        package = self.go.packages.package_of(bound, head) if dot and "." not in head else None
        return package is not None and WATERMILL.match(package) is not None

    def read(self, bound: Bound) -> Iterator[Item]:
        if not _imports_watermill(bound):
            return
        for call in bound.facts.calls:
            owner = bound.by_key.get(call.owner, -1) if call.owner else -1
            if call.name in HANDLERS or call.name in ("Publish", "Subscribe"):
                if self.of_watermill(bound, call):
                    yield from self.items(bound, call, owner)

    def items(self, bound: Bound, call: CallFact, owner: int) -> Iterator[Item]:
        go, args = self.go, call.args
        if call.name == "Publish" and args:
            yield item(bound, owner, "producer", "watermill", call.line, broker=self.broker,
                       topic=go.fold(bound, args[0], call.owner, call.line), written=args[0])
        elif call.name == "Subscribe" and len(args) >= 2:
            yield item(bound, owner, "route", "watermill", call.line, broker=self.broker,
                       topic=go.fold(bound, args[1], call.owner, call.line), written=args[1])
        elif call.name in HANDLERS:
            topic_at, publish_at, handler_at = HANDLERS[call.name]
            if len(args) <= topic_at:
                return
            handler = go.handler(bound, call.owner, args[handler_at], call.line) if handler_at < len(args) else None
            where, index = handler if handler else (bound, owner)
            line = call.line if where is bound else None   # the registration's line, in the handler's own file
            yield item(where, index, "route", "watermill", line, broker=self.broker,
                       topic=go.fold(bound, args[topic_at], call.owner, call.line), written=args[topic_at])
            if publish_at is not None and publish_at < len(args):
                yield item(bound, owner, "producer", "watermill", call.line, broker=self.broker,
                           topic=go.fold(bound, args[publish_at], call.owner, call.line), written=args[publish_at])


def prepare(files: list[Bound], project: Project) -> Reader:
    made: list[Watermill] = []

    def read(bound: Bound) -> Iterator[Item]:
        if not _imports_watermill(bound):   # the project's Go packages are read at the first file that imports it
            return
        if not made:
            made.append(Watermill(files))
        yield from made[0].read(bound)

    return read


FRAMEWORK = Framework("watermill", ("go",), prepare)
