"""Azure Service Bus and Event Hubs clients: senders are producers, processors and receivers are listener routes,
read in files that import the SDK (Java, C#, Node, Python). Broker ``servicebus`` (the queue's or topic's name)
or ``eventhubs`` (the hub's name); a message links a producer to the listeners of the same broker and name
exactly (`services.links`); a name that does not fold leaves the item unresolved, saying why.

Each item is placed where its client is made (the client is bound to its queue, topic or hub there):

- **Service Bus, current SDKs.** C# ``client.CreateSender(name)``; ``CreateProcessor``/``CreateReceiver``/
  ``CreateSessionProcessor``/``AcceptNextSessionAsync``/``AcceptSessionAsync`` of ``(queue)`` or ``(topic,
  subscription)`` on a ``ServiceBusClient``. Java builder chains ``new ServiceBusClientBuilder()`` (or a variable
  declared a builder) ``....sender().queueName(q)``/``.topicName(t)`` then ``buildClient()``/
  ``buildAsyncClient()`` (a producer), ``.processor()``/``.receiver()``/``.sessionProcessor()``/
  ``.sessionReceiver()`` (a listener). Node ``client.createSender(name)``, ``createReceiver(name[, sub])``,
  ``acceptSession``/``acceptNextSession(name[, sub])``. Python ``get_queue_sender(queue_name=..)``,
  ``get_topic_sender(topic_name=..)``, ``get_queue_receiver(queue_name=..)``,
  ``get_subscription_receiver(topic_name=.., subscription_name=..)`` (or the first positional argument).
- **Service Bus, earlier SDKs** (``Microsoft.Azure.ServiceBus``, ``com.microsoft.azure.servicebus``): C# ``new
  QueueClient(connection, queue)``, ``new TopicClient(connection, topic)``, ``new SubscriptionClient(connection,
  topic, subscription)``, ``new MessageSender(connection, path)``, ``new MessageReceiver(connection, path)``;
  Java ``new QueueClient(new ConnectionStringBuilder(namespace, queue), mode)`` (the builder written in the call
  or held in a local), ``TopicClient``, ``SubscriptionClient`` (``EntityNameHelper.formatSubscriptionPath(topic,
  sub)``: the topic). A topic client sends and a subscription client listens; a ``QueueClient`` is a producer where
  its class sends on the field or local it is made into (``send``/``sendAsync``/``sendBatch``/``scheduleMessage``...
  on a value declared ``QueueClient``/``IQueueClient``), a listener where it registers a handler on it
  (``registerMessageHandler``, ``RegisterMessageHandler``, ``registerSessionHandler``), both where both; where
  nothing is done on its holder, what its service does on any when that is one thing, else neither (no guess).
- **Event Hubs**: ``EventHubProducerClient``/``EventHubBufferedProducerClient`` (C# and Node: the hub is the
  second argument; a connection string alone carries it as ``EntityPath``: unknown), ``EventHubConsumerClient``
  (the third), C# ``EventProcessorClient`` (the fourth), Java ``new EventHubClientBuilder()....eventHubName(h)``
  or ``.connectionString(c, h)`` then ``buildProducerClient()``/``buildAsyncProducerClient()`` (a producer) or
  ``buildConsumerClient()``/``buildAsyncConsumerClient()``, and ``EventProcessorClientBuilder`` (listeners); Python
  ``EventHubProducerClient(namespace, h, credential)``, ``EventHubConsumerClient(namespace, h, group, credential)``
  (or ``eventhub_name=h``), and ``EventHubProducerClient.from_connection_string(c, eventhub_name=h)`` /
  ``EventHubConsumerClient...``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..languages.folding import split_top, unknown
from ..languages.symbols import Bound
from ..model import CallFact
from ..services.endpoints import Item
from .base import Framework, Project, Reader, declared_type, item
from .kafka import KafkaFolders
from .python_web import kwarg, positional

SERVICE_BUS, EVENT_HUBS = "azure_service_bus", "azure_event_hubs"
#: the SDKs, by language: an import whose target is one of them or inside one
LIBRARIES = {
    "java": ("com.azure.messaging.servicebus", "com.microsoft.azure.servicebus", "com.azure.messaging.eventhubs"),
    "csharp": ("Azure.Messaging.ServiceBus", "Microsoft.Azure.ServiceBus", "Azure.Messaging.EventHubs",
               "Microsoft.Azure.EventHubs"),
    "javascript": ("@azure/service-bus", "@azure/event-hubs"), "typescript": ("@azure/service-bus", "@azure/event-hubs"),
    "python": ("azure.servicebus", "azure.eventhub")}
#: C# / Node methods of a Service Bus client -> the role of what they make
_SB_CALLS = {"CreateSender": "producer", "createSender": "producer",
             **dict.fromkeys(("CreateProcessor", "CreateReceiver", "CreateSessionProcessor", "AcceptNextSessionAsync",
                              "AcceptSessionAsync", "createReceiver", "acceptSession", "acceptNextSession"), "route")}
#: Python's Service Bus client methods -> (role, the keyword naming the entity)
_SB_PYTHON = {"get_queue_sender": ("producer", "queue_name"), "get_topic_sender": ("producer", "topic_name"),
              "get_queue_receiver": ("route", "queue_name"), "get_subscription_receiver": ("route", "topic_name")}
#: Event Hubs client classes -> (role, the position of the hub's name among a constructor's arguments)
_HUB_CLASSES = {"EventHubProducerClient": ("producer", 1), "EventHubBufferedProducerClient": ("producer", 1),
                "EventHubConsumerClient": ("route", 2), "EventProcessorClient": ("route", 3)}
#: the earlier SDKs' entity clients -> the role they have whatever is done with them ("" : by their use)
_LEGACY = {"QueueClient": "", "TopicClient": "producer", "SubscriptionClient": "route", "MessageSender": "producer",
           "MessageReceiver": "route"}
_LEGACY_SENDS = re.compile(r"(?i)^(?:send|sendAsync|sendBatch|sendBatchAsync|scheduleMessage|scheduleMessageAsync)$")
_LEGACY_HANDLERS = re.compile(r"(?i)^register(?:Message|Session)Handler(?:Async)?$")
#: Java builder roots -> their sub-builders (or build methods) that make a producer
_JAVA_BUILDERS = {"ServiceBusClientBuilder": SERVICE_BUS, "EventHubClientBuilder": EVENT_HUBS,
                  "EventProcessorClientBuilder": EVENT_HUBS}
_JAVA_PRODUCING = {"sender", "buildProducerClient", "buildAsyncProducerClient"}
_JAVA_LISTENING = {"processor", "receiver", "sessionProcessor", "sessionReceiver", "buildConsumerClient",
                   "buildAsyncConsumerClient", "buildEventProcessorClient"}
_JAVA_BUILDS = {"buildClient", "buildAsyncClient", "buildProcessorClient", *(_JAVA_PRODUCING | _JAVA_LISTENING)} - \
    {"sender", "processor", "receiver", "sessionProcessor", "sessionReceiver"}


def _uses(bound: Bound) -> bool:
    libraries = LIBRARIES.get(bound.facts.language, ())
    return any(imp.target == lib or imp.target.startswith((lib + ".", lib + "/"))
               for imp in bound.facts.imports for lib in libraries)


def _simple(typed: str) -> str:
    return re.sub(r"<.*$", "", typed.lstrip("~")).strip().rsplit(".", 1)[-1].removesuffix("()")


class AzureReader:
    """The Service Bus and Event Hubs items of one file (see the module docstring)."""

    def __init__(self, folders: KafkaFolders, bound: Bound, roles: LegacyRoles) -> None:
        self.folders, self.bound, self.roles = folders, bound, roles
        self.by_key = {sym.key: index for index, sym in enumerate(bound.facts.symbols)}

    def make(self, call: CallFact, role: str, flavor: str, expr: str | None, why: str = "") -> Item:
        broker = "servicebus" if flavor == SERVICE_BUS else "eventhubs"
        topic = unknown(why) if expr is None else self.folders.topic(self.bound, call, expr)
        at = self.handler(call) if role == "route" else None
        return item(self.bound, self.by_key.get(at or call.owner, -1), role, flavor, call.line, broker=broker,
                    topic=topic, written=expr or why)

    def handler(self, call: CallFact) -> str | None:
        """C#: the method a processor made by ``call`` and held in a local is given as its message handler
        (``processor.ProcessMessageAsync += OnMessage``, ``ProcessEventAsync`` for Event Hubs), when the class has
        it; else None (the making method stands for it)."""
        if self.bound.facts.language != "csharp":
            return None
        assigns = self.bound.facts.extra.get("assigns", {}).get(call.owner, {})
        held = [name for name, values in assigns.items() if "." not in name and
                any(line == call.line for line, _ in values)]
        class_key = call.owner.rpartition(".")[0]
        for name in held:
            for event in ("ProcessMessageAsync", "ProcessEventAsync"):
                given = {v.strip() for _, values in assigns.get(f"{name}.{event}", []) for v in values}
                if len(given) == 1 and f"{class_key}.{next(iter(given))}" in self.by_key:
                    return f"{class_key}.{next(iter(given))}"
        return None

    def read(self) -> Iterator[Item]:
        language = self.bound.facts.language
        for call in self.bound.facts.calls:
            if call.kind == "new" and call.name in _HUB_CLASSES and language in ("csharp", "javascript", "typescript"):
                role, at = _HUB_CLASSES[call.name]
                args = list(call.args)
                written = args[at] if len(args) > at else None
                # an options object or a checkpoint store made there (``new XOptions()``, ``{ .. }``) names no hub
                hub = None if written is None or re.match(r"^(?:new\b|\{)", written.strip()) else written
                yield self.make(call, role, EVENT_HUBS, hub,
                                f"{call.name}(...) names no event hub here (a connection string's EntityPath is "
                                "not read)")
            elif call.kind == "new" and call.name in _LEGACY and language in ("csharp", "java"):
                yield from self.legacy(call)
            elif language == "java" and call.kind == "call" and call.name in _JAVA_BUILDS:
                yield from self.java_chain(call)
            elif language == "python" and call.kind == "call":
                yield from self.python(call)
            elif call.kind == "call" and call.name in _SB_CALLS and call.receiver and \
                    language in ("csharp", "javascript", "typescript"):
                typed = declared_type(self.bound, call.owner, call.receiver[-1], call.line) \
                    if call.receiver[0] in ("name", "field") else ""
                if typed and not typed.startswith("~") and _simple(typed) != "ServiceBusClient":
                    continue   # another declared type's method of the name (a value a call made: not known)
                args = [a for a in call.args if not re.match(r"^(?:new\b|\{)", a.strip())]   # options objects
                yield self.make(call, _SB_CALLS[call.name], SERVICE_BUS, args[0] if args else None,
                                f"{call.name}(...) names no queue or topic here")

    def legacy(self, call: CallFact) -> Iterator[Item]:
        """``new QueueClient(..)`` and its kin of the earlier SDKs."""
        roles = [_LEGACY[call.name]] if _LEGACY[call.name] else self.queue_client_roles(call)
        if not roles or not call.args:
            return
        if self.bound.facts.language == "csharp":
            expr = call.args[1] if len(call.args) > 1 else None   # (connection string, entity[, ...])
        else:
            expr = self.entity_path(call, call.args[0])
        for role in roles:
            yield self.make(call, role, SERVICE_BUS, expr,
                            f"new {call.name}(...) names no entity here (a connection string's EntityPath is not read)")

    def queue_client_roles(self, call: CallFact) -> list[str]:
        """What is done on the ``QueueClient`` ``call`` makes: what its class does on the field or local holding it
        (sends, registers a handler); where nothing is known of the holder, what its service does on any, when that
        is one thing; else nothing (a service that sends on one queue and listens on another is no guess)."""
        service = self.bound.ctx.microservice
        symbols = self.bound.facts.symbols
        owner = symbols[self.by_key[call.owner]] if call.owner in self.by_key else None
        made = self.bound.facts.extra.get("made", {}).get(call.owner, {})   # the field or local given it
        held = [((owner.parent or "") if owner is not None else "", name.removeprefix("this."))
                for name, values in made.items() if any(line == call.line for line, _ in values)]
        known = {role for holder in held for role in self.roles.by_holder.get((service, *holder), ())}
        if known:
            return sorted(known)
        anywhere = self.roles.by_service.get(service, set())
        return sorted(anywhere) if len(anywhere) == 1 else []

    def entity_path(self, call: CallFact, written: str) -> str | None:
        """Java: the entity of ``new ConnectionStringBuilder(namespace, entity, ..)`` written in the call or held in a
        local (``EntityNameHelper.formatSubscriptionPath(topic, sub)``: the topic)."""
        name = written.strip()
        made = re.match(r"^new\s+(?:[\w.]+\.)?ConnectionStringBuilder\s*\((.*)\)$", name, re.S)
        args = split_top(made.group(1)) if made else []
        if re.fullmatch(r"[A-Za-z_]\w*", name):   # a local: the builder made where it was last declared
            lines = [at for at, _ in self.bound.facts.locals.get(call.owner, {}).get(name, []) if at <= call.line]
            built = [c for c in self.bound.facts.calls if c.owner == call.owner and c.kind == "new" and
                     c.name == "ConnectionStringBuilder" and lines and c.line == max(lines)]
            args = list(built[0].args) if len(built) == 1 else []
        if len(args) < 2:
            return None
        path = re.match(r"^(?:[\w.]+\.)?formatSubscriptionPath\s*\((.*)\)$", args[1].strip(), re.S)
        return split_top(path.group(1))[0] if path else args[1]

    def java_chain(self, call: CallFact) -> Iterator[Item]:
        """A builder chain from ``new ServiceBusClientBuilder()`` (or an Event Hubs builder) to its ``build..()``."""
        steps: list[tuple[str, list]] = []
        receiver = call.receiver
        while receiver and receiver[0] == "call":
            steps.append((receiver[2], receiver[1]))
            receiver = receiver[1]
        root = _simple(receiver[1]) if receiver and receiver[0] == "type" else \
            _simple(declared_type(self.bound, call.owner, receiver[-1], call.line)) \
            if receiver and receiver[0] in ("name", "field") else ""   # a builder held in a variable
        if root not in _JAVA_BUILDERS:
            return
        flavor = _JAVA_BUILDERS[root]
        names = {name for name, _ in steps} | {call.name}
        role = "producer" if names & _JAVA_PRODUCING else "route" if names & _JAVA_LISTENING or \
            root == "EventProcessorClientBuilder" else None
        if role is None:
            return
        # the chain's own steps: each starts where the chain does (two chains alike in one method stay apart)
        args = {c.name: c.args for c in self.bound.facts.calls if c.owner == call.owner and c.kind == "call" and
                c.line == call.line and any(c.name == name and c.receiver == inner for name, inner in steps)}
        expr = next((args[n][0] for n in ("queueName", "topicName", "eventHubName") if args.get(n)), None)
        if expr is None and flavor == EVENT_HUBS and len(args.get("connectionString", ())) > 1:
            expr = args["connectionString"][1]
        yield self.make(call, role, flavor, expr, "the builder names no queue, topic or hub (a connection string's "
                                                  "EntityPath is not read)")

    def python(self, call: CallFact) -> Iterator[Item]:
        if call.name in _SB_PYTHON and call.receiver:
            role, keyword = _SB_PYTHON[call.name]
            args = positional(call.args)
            yield self.make(call, role, SERVICE_BUS, kwarg(call.args, keyword) or (args[0] if args else None),
                            f"{call.name}(...) names no {keyword.removesuffix('_name')}")
        elif call.name in ("from_connection_string", *_HUB_CLASSES):
            owner = call.name if call.name in _HUB_CLASSES else \
                call.receiver[-1] if call.receiver and call.receiver[0] == "name" else ""
            if owner not in ("EventHubProducerClient", "EventHubConsumerClient"):
                return
            role = _HUB_CLASSES[owner][0]
            # the constructor takes (namespace, eventhub_name, [consumer_group,] credential); from_connection_string
            # names the hub only by keyword (else the connection string's EntityPath: not read)
            args = positional(call.args) if call.name in _HUB_CLASSES else []
            yield self.make(call, role, EVENT_HUBS, kwarg(call.args, "eventhub_name") or
                            (args[1] if len(args) > 1 else None), f"{owner} names no event hub here")


@dataclass
class LegacyRoles:
    """What code does on an earlier SDK's ``QueueClient`` (``producer``: sends on one; ``route``: registers a
    handler): per service, and per (service, class, the name of the field or local it is done on)."""

    by_service: dict[str, set[str]] = field(default_factory=dict)
    by_holder: dict[tuple[str, str, str], set[str]] = field(default_factory=dict)


def _legacy_roles(files: list[Bound]) -> LegacyRoles:
    roles = LegacyRoles()
    for bound in files:
        if bound.facts.language not in ("java", "csharp"):
            continue
        parents = {sym.key: sym.parent or "" for sym in bound.facts.symbols}
        for call in bound.facts.calls:
            if call.kind != "call" or not call.receiver or call.receiver[0] not in ("name", "field") or \
                    not (_LEGACY_SENDS.match(call.name) or _LEGACY_HANDLERS.match(call.name)):
                continue
            typed = _simple(declared_type(bound, call.owner, call.receiver[-1], call.line))
            if typed.removeprefix("I") == "QueueClient":
                role = "producer" if _LEGACY_SENDS.match(call.name) else "route"
                roles.by_service.setdefault(bound.ctx.microservice, set()).add(role)
                holder = (bound.ctx.microservice, parents.get(call.owner, ""), call.receiver[-1])
                roles.by_holder.setdefault(holder, set()).add(role)
    return roles


def prepare(files: list[Bound], project: Project) -> Reader:
    folders = KafkaFolders(files, project)
    using = [b for b in files if project.memo.get("azure_messaging", b, _uses)]
    roles = _legacy_roles(using) if using else LegacyRoles()

    def read(bound: Bound) -> Iterator[Item]:
        if not project.memo.get("azure_messaging", bound, _uses):
            return iter(())
        return AzureReader(folders, bound, roles).read()

    return read


FRAMEWORK = Framework("azure_messaging", ("python", "javascript", "typescript", "java", "csharp"), prepare)
