"""Go Kafka written through the project's own code (read beside `go_web`'s direct library calls).

**Wrapper producers.** A project function or method that hands one of its parameters to a Kafka library's write
(segmentio ``WriteMessages``, sarama ``SendMessage``/``SendMessages``, confluent ``Produce``; through another such
wrapper too) is a wrapper: each call of it (a project call: the receiver's type is a project type or interface with
that method) that passes a message literal, ``kafka.Message{Topic: X}`` / ``&sarama.ProducerMessage{Topic: X}``
(written in the call or made in a local of the caller), produces to ``X`` from the caller.

**Consumers that dispatch on the topic.** ``switch m.Topic { case X: ... }`` and ``if m.Topic == X { ... }``
(``*m.TopicPartition.Topic`` too) in a file that imports a Kafka library: each case consumes ``X``; its handler is
the one project function of the branch that is handed the message (else the dispatching function).

**Topics from configuration.** A topic read from the config struct viper fills (``s.cfg.Kafka.Orders.Topic``: a
field path of two or more fields that the service's viper set-up maps to a key) folds to the key's value in the
service's config file (else its ``SetDefault``), overridden by the variable viper binds to it when the deployment
gives one (`viper_config.viper_fields`). Anything else folds as Go folds values; a topic that does not fold stays
unresolved, saying why.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import Folded, env, literal, unknown
from ..languages.symbols import Bound
from ..model import CallFact
from ..services.endpoints import Item
from .base import dotted, item
from .golang import GoProject, written_type

SARAMA = ("github.com/IBM/sarama", "github.com/Shopify/sarama")
KAFKA_GO = "github.com/segmentio/kafka-go"
CONFLUENT = "github.com/confluentinc/confluent-kafka-go"
LIBRARIES = SARAMA + (KAFKA_GO, CONFLUENT)
#: the library's writes that take messages, and the flavor of item they make
WRITES = {"WriteMessages": "kafka_go", "SendMessage": "sarama", "SendMessages": "sarama", "Produce": "confluent_kafka"}
#: a message literal's type: (library prefix, type name) -> flavor
MESSAGES = {(KAFKA_GO, "Message"): "kafka_go", (SARAMA[0], "ProducerMessage"): "sarama",
            (SARAMA[1], "ProducerMessage"): "sarama", (CONFLUENT, "Message"): "confluent_kafka"}
_LITERAL = re.compile(r"^&?\s*([\w.]+)\s*\{(.*)\}$", re.S)
_TOPIC = re.compile(r"\bTopic\s*:\s*(&?[^,}]+)")
_CHAIN = re.compile(r"^[A-Za-z_]\w*(?:\.\w+)*$")


def library_of(module: str) -> str | None:
    """The Kafka library an import path belongs to, else None."""
    return next((lib for lib in LIBRARIES if module == lib or module.startswith(lib + "/")), None)


class GoKafka:
    """What reading the project's Kafka wrappers needs: the wrappers, found once for the update."""

    def __init__(self, go: GoProject, bounds: list[Bound], config: dict[str, dict]) -> None:
        self.go = go
        #: module -> config field path -> (value, variable or None, where)
        self.config = config
        self.bounds = bounds
        self._wrappers: dict[str, tuple[int, str]] | None = None

    @property
    def wrappers(self) -> dict[str, tuple[int, str]]:
        """Method or function name -> (index of the message parameter, flavor), found on first use."""
        if self._wrappers is None:
            self._wrappers = {}
            for _ in range(3):   # a wrapper of a wrapper
                found = {name: how for bound in self.bounds for name, how in self._wrappers_in(bound).items()}
                if found.keys() <= self._wrappers.keys():
                    break
                self._wrappers |= found
        return self._wrappers

    def _wrappers_in(self, bound: Bound) -> dict[str, tuple[int, str]]:
        out: dict[str, tuple[int, str]] = {}
        for call in bound.facts.calls:
            flavor = self.write(bound, call)
            owner = bound.by_key.get(call.owner) if call.owner else None
            if flavor is None or owner is None:
                continue
            params = [name for name, _ in bound.facts.symbols[owner].params]
            handed = {arg.strip().removesuffix("...").lstrip("&").strip() for arg in call.args}
            at = next((i for i, name in enumerate(params) if name in handed), None)
            if at is not None:
                out[bound.facts.symbols[owner].name] = (at, flavor)
        return out

    def write(self, bound: Bound, call: CallFact) -> str | None:
        """The flavor of a library write (or of a wrapper's call), else None."""
        if call.name in WRITES and call.receiver:
            typed = written_type(self.go.packages, bound, call.owner, call.receiver, call.line)
            head, dot, _ = typed.lstrip("*&~").removesuffix("()").rpartition(".")
            package = self.go.packages.package_of(bound, head) if dot and "." not in head else None
            if package is not None and library_of(package):
                return WRITES[call.name]
        if call.name in self.wrappers and self.go.project_call(bound, call):
            return self.wrappers[call.name][1]
        return None

    # -- producers --------------------------------------------------------------------------------------------

    def producers(self, bound: Bound) -> Iterator[Item]:
        """Calls of a wrapper handing it message literals (the library's own writes are `go_web`'s)."""
        for call in bound.facts.calls:
            if call.name not in self.wrappers or not call.owner or not self.go.project_call(bound, call):
                continue
            owner = bound.by_key.get(call.owner, -1)
            at, flavor = self.wrappers[call.name]
            for arg in call.args[at:]:
                message = self.message(bound, call.owner, arg)
                if message is not None:
                    yield item(bound, owner, "producer", flavor, call.line, broker="kafka",
                               topic=self.topic(bound, message, call.owner, call.line), written=arg)

    def message(self, bound: Bound, owner: str, arg: str) -> str | None:
        """The topic expression of a Kafka message literal (written here, or made in a local of ``owner``)."""
        arg = arg.strip().removesuffix("...").strip()
        if re.fullmatch(r"&?\w+", arg):
            composites = bound.facts.extra.get("composites", {})
            arg = composites.get(owner, {}).get(arg.lstrip("&"), "")
        made = _LITERAL.match(arg)
        if made is None:
            return None
        head, dot, name = made.group(1).rpartition(".")
        package = self.go.packages.package_of(bound, head) if dot else None
        library = library_of(package) if package else None
        if library is None or (library, name) not in MESSAGES:
            return None
        topic = _TOPIC.search(made.group(2))
        return topic.group(1).strip().lstrip("&") if topic else ""

    def topic(self, bound: Bound, expr: str, owner: str | None = None, line: int = 0) -> Folded:
        """A topic expression folded: a config field's value, else as Go folds it."""
        if not expr:
            return unknown("the message sets no Topic here")
        configured = self.configured(bound, expr)
        return configured if configured is not None else self.go.fold(bound, expr, owner, line)

    def configured(self, bound: Bound, expr: str) -> Folded | None:
        """The value of a config struct field read through a chain (``s.cfg.Kafka.Topic``), if viper fills it."""
        fields = self.config.get(bound.ctx.module) or {}
        expr = expr.strip().lstrip("*&")
        if not fields or not _CHAIN.match(expr):
            return None
        parts = expr.split(".")
        for start in range(1, len(parts) - 1):
            found = fields.get(".".join(parts[start:]))
            if found is not None:
                value, variable, _ = found
                return env(variable, value) if variable else literal(value)
        return None

    # -- consumers --------------------------------------------------------------------------------------------

    def consumers(self, bound: Bound) -> Iterator[Item]:
        """Each branch a consumer takes on a message's topic (see the module docstring)."""
        dispatches = bound.facts.extra.get("topic_dispatch", [])
        if not dispatches:
            return
        libraries = [library_of(imp.target) for imp in bound.facts.imports]
        library = next((lib for lib in libraries if lib), None)
        if library is None:
            return
        flavor = "sarama" if library in SARAMA else "kafka_go" if library == KAFKA_GO else "confluent_kafka"
        for owner_key, subject, values, first, last in dispatches:
            handler = self.handler(bound, owner_key, subject, first, last)
            target, line = (handler, None) if handler is not None else ((bound, bound.by_key.get(owner_key, -1)), first)
            for value in values:
                yield item(target[0], target[1], "route", flavor, line, broker="kafka",
                           topic=self.topic(bound, value, owner_key, first), written=value)

    def handler(self, bound: Bound, owner_key: str, subject: str, first: int, last: int) -> tuple[Bound, int] | None:
        """The branch's handler: the one project function called in the branch with the message, else None."""
        message = subject.lstrip("*").split(".", 1)[0]
        found = set()
        for call in bound.facts.calls:
            if call.owner != owner_key or not first <= call.line <= last:
                continue
            if not any(re.fullmatch(rf"&?{re.escape(message)}", a.strip()) for a in call.args):
                continue
            receiver = dotted(call.receiver) if call.receiver else ""
            expr = f"{receiver}.{call.name}" if receiver else call.name
            resolved = self.go.handler(bound, owner_key, expr, call.line)
            if resolved is not None:
                found.add(resolved)
        return next(iter(found)) if len(found) == 1 else None
