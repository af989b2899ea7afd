"""Kafka clients outside Spring: producers and consumers of the plain client libraries in Python
(kafka-python, confluent-kafka, aiokafka), Node (kafkajs, node-rdkafka), Java and Kotlin (the Apache
``kafka-clients``) and C# (Confluent.Kafka), in files that import the library. (Go's sarama, kafka-go and
confluent-kafka-go are read in `go_web`; Spring's ``KafkaTemplate`` and ``@KafkaListener`` in `spring`.)

**Producers**: kafka-python/aiokafka ``send(topic, ...)``/``send_and_wait(topic, ...)`` and confluent's
``produce(topic, ...)`` (or ``topic=``); kafkajs ``send({topic, messages})`` and ``sendBatch({topicMessages:
[{topic, ...}]})``, node-rdkafka ``produce(topic, ...)``; Java/Kotlin ``send(record)`` on a ``KafkaProducer``
(or ``Producer``) with ``new ProducerRecord<>(topic, ...)`` / ``ProducerRecord(topic, ...)`` written in the call
or made in a local of the function (Kotlin: also inside ``producer.apply { ... }``); C# ``ProduceAsync(topic,
...)``/``Produce(topic, ...)`` (a ``new TopicPartition(topic, ...)`` gives its topic).

**Consumers**: the topics a consumer subscribes to: kafka-python/aiokafka ``KafkaConsumer(topic, ...)`` (its
positional arguments) and ``subscribe([...])`` (or ``topics=``); confluent ``subscribe([...])``; kafkajs
``subscribe({topic})``/``subscribe({topics: [...]})``, node-rdkafka ``subscribe([...])``; Java/Kotlin
``subscribe(List.of(...))`` (``Arrays.asList``, ``Collections.singletonList``, ``Set.of``, ``listOf``, ``setOf``,
...) on a ``KafkaConsumer``/``Consumer`` (in Kotlin also without a receiver, inside ``consumer.apply { ... }``,
when a list is written); C# ``Subscribe(topic)``/``Subscribe(new[] {...})`` on a value whose type
names a consumer (``IConsumer<K, V>``, ``new ConsumerBuilder<K, V>(...).Build()``), so Rx's ``Subscribe`` is not
read. The consumer's handler is the method that polls what it subscribed (``Consume``, ``poll``, ``consume``):
a field subscribed in a constructor and polled in one loop method of the class is handled there
(`KafkaReader.polling`). The list may be made in a local of the function where the language's facts keep what a local is assigned
(Java, Kotlin: ``List<String> topics = List.of("a")``).

A topic is folded like a URL: literals, constants, locals and environment reads (settled later from the
project's deployment files, as every value is). A topic that does not fold, a pattern subscription, or a list
that is not written out leaves the item unresolved, saying why; producers link to consumers by broker and
topic exactly (`services.links`), as Spring's do.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.csharp.constants import CSharpFolder
from ..languages.folding import Folded, array_items, split_top, unknown
from ..languages.symbols import Bound
from ..languages.typescript.constants import object_properties
from ..model import CallFact
from ..services.endpoints import Item
from .amqp import Folders
from .aspnet import csharp_constants
from .base import Framework, Project, Reader, declared_type, item
from .jvm import JVM_LANGUAGES, JavaFile, constants
from .python_web import kwarg, positional

#: the libraries, by language: an import whose target is one of them or inside one
LIBRARIES = {"python": ("kafka", "confluent_kafka", "aiokafka"),
             "javascript": ("kafkajs", "node-rdkafka", "@confluentinc/kafka-javascript"),
             "java": ("org.apache.kafka.clients",), "kotlin": ("org.apache.kafka.clients",),
             "csharp": ("Confluent.Kafka",)}
LIBRARIES["typescript"] = LIBRARIES["javascript"]
#: Java/Kotlin collection factories whose arguments are the subscribed topics
_JVM_LISTS = re.compile(r"^(?:(?:java\.util\.)?(?:List|Set|Arrays|Collections)\s*\.\s*(?:of|asList|singletonList|"
                        r"singleton)|listOf|setOf|mutableListOf|mutableSetOf|arrayListOf|hashSetOf)\s*(?:<[^()]*>)?"
                        r"\s*\((.*)\)$", re.S)
_CS_LISTS = re.compile(r"^new\s*(?:[\w.]+\s*(?:<[^{}]*>)?\s*)?(?:\[\s*\])?\s*(?:\(\s*\))?\s*\{(.*)\}$", re.S)
_RECORD = re.compile(r"^(?:new\s+)?(?:[\w.]+\.)?ProducerRecord\s*(?:<[^()]*>)?\s*\((.*)\)$", re.S)
_PARTITION = re.compile(r"^new\s+(?:[\w.]+\.)?TopicPartition\s*\((.*)\)$", re.S)
#: Python's client classes -> the library (a receiver made by one names it)
_PY_FLAVORS = {"KafkaProducer": "kafka_python", "KafkaConsumer": "kafka_python", "Producer": "confluent_kafka",
               "Consumer": "confluent_kafka", "AIOKafkaProducer": "aiokafka", "AIOKafkaConsumer": "aiokafka"}
#: the calls that take a subscribed consumer's next messages, by language (`KafkaReader.polling`)
POLLS = {"python": frozenset({"poll", "consume"}), "java": frozenset({"poll"}), "kotlin": frozenset({"poll"}),
         "csharp": frozenset({"Consume"}), "javascript": frozenset({"consume"}), "typescript": frozenset({"consume"})}
#: what a folded topic never holds: it is a list, a pattern or code, not one topic
_NOT_A_TOPIC = re.compile(r"[\[\]{}()'\"\s,]")


def _uses(bound: Bound) -> str | None:
    """The Kafka library the file imports (the first one), if any."""
    for library in LIBRARIES.get(bound.facts.language, ()):
        for imp in bound.facts.imports:
            if imp.target == library or imp.target.startswith((library + ".", library + "/")):
                return library
    return None


class KafkaFolders(Folders):
    """`amqp.Folders` for Python, Go and Node, plus the JVM languages' and C#'s folders."""

    def __init__(self, files: list[Bound], project: Project) -> None:
        super().__init__(files)
        self.project = project

    def fold(self, bound: Bound, call: CallFact, expr: str | None) -> Folded:
        language = bound.facts.language
        if expr is None:
            return unknown(f"{call.name}(...) names no topic here")
        if language in JVM_LANGUAGES:
            jf = JavaFile(bound, constants(self.project), self.project.values(bound.ctx.module))
            return jf.fold(expr, call.owner.split("#", 1)[0], call.owner, call.line)
        if language == "csharp":
            class_key = call.owner.rsplit(".", 1)[0] if "." in call.owner else call.owner
            folder = CSharpFolder(csharp_constants(self.project), bound.facts, class_key)
            return folder.at(bound.facts, call.owner, call.line).fold(expr)
        return super().fold(bound, call, expr)

    def topic(self, bound: Bound, call: CallFact, expr: str | None) -> Folded:
        """One topic: the expression folded, unknown (saying why) when it is not one topic's name."""
        value = self.fold(bound, call, expr)
        if value.known and (not value.text or _NOT_A_TOPIC.search(value.text)):
            return unknown(f"{expr} is not one topic's name")
        return value


class KafkaReader:
    """Reads the producers and consumers of one file (see the module docstring)."""

    def __init__(self, folders: KafkaFolders, bound: Bound, library: str) -> None:
        self.folders, self.bound, self.library = folders, bound, library
        self.by_key = {sym.key: index for index, sym in enumerate(bound.facts.symbols)}

    def make(self, call: CallFact, kind: str, flavor: str, topic: Folded, written: str) -> Item:
        owner = self.polling(call) if kind == "route" else call.owner
        return item(self.bound, self.by_key.get(owner, -1), kind, flavor, call.line, broker="kafka",
                    topic=topic, written=written)

    def polling(self, call: CallFact) -> str:
        """The method that takes the messages a subscription delivers: the one method of the subscribing method's
        class that polls the same consumer field (``_consumer.Subscribe(topic)`` in a constructor,
        ``_consumer.Consume(token)`` in a loop method; ``this.consumer`` and ``consumer`` are one field). The
        subscribing function itself when it polls too, when no other method or several do, and when the consumer is
        a local or parameter of its own."""
        facts = self.bound.facts
        subscriber = self.by_key.get(call.owner)
        field = _field(call.receiver)
        if subscriber is None or field is None or not facts.symbols[subscriber].parent:
            return call.owner
        if self.own_name(call):
            return call.owner
        parent = facts.symbols[subscriber].parent
        polls = POLLS.get(facts.language, frozenset())
        owners = {c.owner for c in facts.calls if c.name in polls and _field(c.receiver) == field
                  and c.owner in self.by_key and facts.symbols[self.by_key[c.owner]].parent == parent
                  and not self.own_name(c)}
        if call.owner in owners or len(owners) != 1:
            return call.owner
        return next(iter(owners))

    def topics(self, call: CallFact, kind: str, flavor: str, exprs: list[str], whole: str) -> Iterator[Item]:
        """One item per topic expression; one unresolved item when the list is not written out."""
        if not exprs:
            yield self.make(call, kind, flavor, unknown(f"the topics ({whole or 'none written'}) are not "
                                                        "written out where it subscribes"), whole)
        for expr in exprs:
            yield self.make(call, kind, flavor, self.folders.topic(self.bound, call, expr), expr)

    def made(self, call: CallFact, written: str) -> str:
        """What a local named by ``written`` was last assigned before the call, as written (a list of topics made
        in a local: ``topics = ["a", "b"]``); else ``written`` itself."""
        name = written.strip()
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            return written
        assigned = [(line, values) for line, values in
                    self.bound.facts.extra.get("assigns", {}).get(call.owner, {}).get(name, []) if line <= call.line]
        if not assigned:
            return written
        values = max(assigned, key=lambda found: found[0])[1]
        return values[0] if len(values) == 1 else written

    def read(self) -> Iterator[Item]:
        language = self.bound.facts.language
        reader = {"python": self.python, "javascript": self.script, "typescript": self.script,
                  "java": self.jvm, "kotlin": self.jvm, "csharp": self.csharp}[language]
        for call in self.bound.facts.calls:
            yield from reader(call)

    # -- Python -----------------------------------------------------------------------------------------------

    def python(self, call: CallFact) -> Iterator[Item]:
        made = self.receiver_type(call) if call.receiver else ""
        if made and made not in _PY_FLAVORS and call.name in ("send", "send_and_wait", "produce", "subscribe"):
            return   # a receiver made by something else (a socket, an HTTP session)
        flavor = (_PY_FLAVORS.get(made) or
                  {"confluent_kafka": "confluent_kafka", "aiokafka": "aiokafka"}.get(self.library, "kafka_python"))
        args = positional(call.args)
        if call.name in ("send", "send_and_wait", "produce") and call.receiver and call.args:
            if call.name == "produce":
                flavor = "confluent_kafka"
            expr = kwarg(call.args, "topic") or (args[0] if args else None)
            if expr is not None:
                yield self.make(call, "producer", flavor, self.folders.topic(self.bound, call, expr), expr)
        elif call.name in ("KafkaConsumer", "AIOKafkaConsumer") and args:
            flavor = "aiokafka" if call.name.startswith("AIO") else "kafka_python"
            yield from self.topics(call, "route", flavor, args, ", ".join(args))
        elif call.name == "subscribe" and call.receiver and call.args:
            pattern = kwarg(call.args, "pattern")
            written = kwarg(call.args, "topics") or (args[0] if args else pattern or "")
            if pattern is not None and not kwarg(call.args, "topics"):
                yield self.make(call, "route", flavor, unknown("it subscribes to a pattern of topics"), pattern)
                return
            yield from self.topics(call, "route", flavor, _listed(self.made(call, written)), written)

    # -- Node -------------------------------------------------------------------------------------------------

    def script(self, call: CallFact) -> Iterator[Item]:
        if not call.receiver or not call.args:
            return
        first = call.args[0]
        keys = object_properties(first)
        if call.name == "send" and "topic" in keys:
            yield self.make(call, "producer", "kafkajs", self.folders.topic(self.bound, call, keys["topic"]),
                            keys["topic"])
        elif call.name == "sendBatch" and "topicMessages" in keys:
            for message in array_items(keys["topicMessages"]):
                expr = object_properties(message).get("topic")
                yield self.make(call, "producer", "kafkajs", self.folders.topic(self.bound, call, expr),
                                expr or message)
        elif call.name == "produce" and not keys:
            yield self.make(call, "producer", "node_rdkafka", self.folders.topic(self.bound, call, first), first)
        elif call.name == "subscribe" and keys:
            if "topic" in keys:
                written = keys["topic"]
                exprs = [] if written.startswith("/") else [written]
            else:
                written = keys.get("topics", "")
                exprs = _listed(self.made(call, written))
            yield from self.topics(call, "route", "kafkajs", exprs, written)
        elif call.name == "subscribe":
            yield from self.topics(call, "route", "node_rdkafka", _listed(self.made(call, first)), first)

    # -- Java and Kotlin --------------------------------------------------------------------------------------

    def jvm(self, call: CallFact) -> Iterator[Item]:
        if call.kind != "call" or not call.args or not call.receiver and self.bound.facts.language != "kotlin":
            return   # Kotlin: a call without a receiver is one on the scope function's (``apply { subscribe(...) }``)
        typed = self.receiver_type(call) if call.receiver else ""
        if call.name == "send" and typed in ("KafkaProducer", "Producer", ""):
            record = self.record(call, call.args[0])
            if record is not None:
                yield self.make(call, "producer", "kafka_clients", self.folders.topic(self.bound, call, record),
                                record)
        elif call.name == "subscribe" and typed in ("KafkaConsumer", "Consumer", ""):
            written = call.args[0].strip()
            listed = _JVM_LISTS.match(self.made(call, written))
            if re.match(r"^(?:java\.util\.regex\.)?Pattern\s*\.\s*compile\s*\(", written) and call.receiver:
                yield self.make(call, "route", "kafka_clients", unknown("it subscribes to a pattern of topics"),
                                written)
            elif listed is not None or typed:
                yield from self.topics(call, "route", "kafka_clients",
                                       split_top(listed.group(1)) if listed else [], written)

    def receiver_type(self, call: CallFact) -> str:
        """The simple name of the receiver's declared type ("" when not known)."""
        receiver = call.receiver
        name = receiver[1] if receiver[0] == "name" else receiver[2] if receiver[0] == "field" and \
            receiver[1] in (["this"], ["name", "self"]) else ""
        typed = declared_type(self.bound, call.owner, name, call.line) if name else ""
        return re.sub(r"<.*$", "", typed.lstrip("~")).strip().rsplit(".", 1)[-1].removesuffix("()")

    def record(self, call: CallFact, written: str) -> str | None:
        """The topic expression of the ``ProducerRecord`` a ``send`` sends: written in the call, or made in a
        local of the function (its latest assignment before the call)."""
        made = _RECORD.match(written.strip())
        if made is not None:
            args = split_top(made.group(1))
            return args[0] if args else None
        if not re.fullmatch(r"\w+", written.strip()):
            return None
        lines = [at for at, _ in self.bound.facts.locals.get(call.owner, {}).get(written.strip(), []) if at <= call.line]
        records = [c for c in self.bound.facts.calls if c.owner == call.owner and c.name == "ProducerRecord"
                   and c.args and lines and c.line == max(lines)]
        return records[0].args[0] if len(records) == 1 else None

    # -- C# ---------------------------------------------------------------------------------------------------

    def csharp(self, call: CallFact) -> Iterator[Item]:
        if not call.receiver or not call.args:
            return
        typed = self.receiver_type(call) if call.receiver[0] in ("name", "field") else ""
        if call.name in ("ProduceAsync", "Produce") and ("Producer" in typed or not typed):
            written = call.args[0].strip()
            partition = _PARTITION.match(written)
            expr = split_top(partition.group(1))[0] if partition else written
            yield self.make(call, "producer", "confluent_kafka_dotnet", self.folders.topic(self.bound, call, expr),
                            written)
        elif call.name == "Subscribe" and "Consumer" in self._written_type(call):
            written = call.args[0].strip()
            listed = _CS_LISTS.match(self.made(call, written))
            exprs = split_top(listed.group(1)) if listed else [written]
            yield from self.topics(call, "route", "confluent_kafka_dotnet", exprs, written)

    def _written_type(self, call: CallFact) -> str:
        receiver = call.receiver
        name = receiver[1] if receiver[0] == "name" else receiver[2] if receiver[0] == "field" else ""
        return declared_type(self.bound, call.owner, name, call.line) if name else ""

    def own_name(self, call: CallFact) -> bool:
        """Whether a call's receiver is a bare name its method holds itself (a local or a parameter), which
        shadows any field of that name."""
        facts = self.bound.facts
        index = self.by_key.get(call.owner)
        name = call.receiver[1] if call.receiver and call.receiver[0] == "name" else None
        return name is not None and index is not None and (
            name in facts.locals.get(call.owner, {}) or name in dict(facts.symbols[index].params))


def _field(receiver) -> str | None:
    """The field a receiver names (``_consumer``, ``this.consumer``, ``self.consumer``), else None."""
    if receiver is None:
        return None
    if receiver[0] == "name":
        return receiver[1]
    if receiver[0] == "field" and receiver[1] in (["this"], ["name", "self"]):
        return receiver[2]
    return None


def _listed(written: str) -> list[str]:
    """The items of a list literal (``["a", B]``); a single string is one topic; anything else: none known."""
    written = written.strip()
    if written.startswith("[") and written.endswith("]"):
        return array_items(written)
    if re.match(r"""^(?:["'`]).*(?:["'`])$""", written, re.S):
        return [written]
    return []


def prepare(files: list[Bound], project: Project) -> Reader:
    folders = KafkaFolders(files, project)

    def read(bound: Bound) -> Iterator[Item]:
        library = project.memo.get("kafka", bound, _uses)
        return KafkaReader(folders, bound, library).read() if library else iter(())

    return read


FRAMEWORK = Framework("kafka", ("python", "javascript", "typescript", "java", "kotlin", "csharp"), prepare)
