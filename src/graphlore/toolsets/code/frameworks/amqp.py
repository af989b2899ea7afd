"""AMQP (RabbitMQ) clients outside Spring: producers and consumers in Python (pika), Go (streadway/amqp,
rabbitmq/amqp091-go), Node (amqplib) and C# (RabbitMQ.Client), in files that import the library (C#: its own or
its project's usings).

**Producers** publish to an exchange with a routing key: pika ``basic_publish(exchange, routing_key, ...)``
(keywords or positions), Go ``Publish(exchange, key, ...)`` / ``PublishWithContext(ctx, exchange, key, ...)``,
amqplib ``publish(exchange, key, ...)`` and ``sendToQueue(queue, ...)`` (the default exchange ``""``), C#
``BasicPublish(exchange, routingKey, ...)``/``BasicPublishAsync`` (positions or ``exchange:``/``routingKey:``). The
topic is ``exchange/key`` (``robot-shop/orders``), on the default exchange the key alone (the queue it names,
as Spring's ``@RabbitListener`` and ``RabbitTemplate`` name it); the broker is ``rabbit``.

**Consumers** read a queue: pika ``basic_consume(queue=..., ...)`` (or its first argument), Go ``Consume(queue,
...)``, amqplib ``consume(queue, ...)``, C# ``BasicConsume(queue, ...)``/``BasicConsumeAsync`` (or ``queue:``). A message reaches a queue through each binding the project declares
for it (pika ``queue_bind``, Go ``QueueBind``, amqplib ``bindQueue``, C# ``QueueBind``/``QueueBindAsync(queue, exchange,
routingKey)``; in any of the four languages, anywhere in the project), and always through the default exchange by its name: a consumer is one listener route per
binding (``exchange/key``) and one for the queue's name. So a producer links to the consumers whose queue its
exchange and key reach (`services.links`), exactly: an exchange's type (a topic exchange's patterns, a
fanout's keys) is not read. A queue, exchange or key that does not fold leaves the item unresolved, saying
why. A Go call whose receiver's static type is a project type with a method of that name (``p.Publish(ctx, body,
"text/plain")`` on the project's own ``*publisher``, or a project interface declaring it) is the project's method,
never the library's. Go endpoints named through functional options (``pub.Configure(publisher.ExchangeName("x"),
...)``) are read at the configuring call (`amqp_options`). Go's ``QueueBind(q.Name, ...)`` names the queue ``QueueDeclare`` made in the same function; a queue declared
with the empty name (the broker names it, one per declaration) is bound only by the bindings of that function,
and a consumer of one with none is unresolved.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import chain

from ..languages.csharp.constants import CSharpFolder
from ..languages.folding import Folded, literal, unknown
from ..languages.python.constants import PythonFolder
from ..languages.symbols import Bound
from ..languages.typescript.constants import ScriptFolder
from ..model import CallFact
from ..services.endpoints import Item
from .amqp_options import Options
from .aspnet import csharp_constants
from .base import Framework, Project, Reader, item
from .golang import GoProject
from .python_web import kwarg, positional

#: the libraries, by language: an import whose target starts with one of them
LIBRARIES = {"python": ("pika",), "go": ("github.com/streadway/amqp", "github.com/rabbitmq/amqp091-go"),
             "javascript": ("amqplib",), "typescript": ("amqplib",), "csharp": ("RabbitMQ.Client",)}
#: call name -> (kind, flavor, the positions (or Python keywords) of exchange and key, or of the queue)
PUBLISH = {"basic_publish": ("pika", ("exchange", "routing_key")), "Publish": ("amqp_go", (0, 1)),
           "PublishWithContext": ("amqp_go", (1, 2)), "publish": ("amqplib", (0, 1)),
           "sendToQueue": ("amqplib", (None, 0)), "BasicPublish": ("rabbitmq_client", (0, 1)),
           "BasicPublishAsync": ("rabbitmq_client", (0, 1))}
CONSUME = {"basic_consume": "pika", "Consume": "amqp_go", "consume": "amqplib", "BasicConsume": "rabbitmq_client",
           "BasicConsumeAsync": "rabbitmq_client"}
#: binding calls -> the positions of queue, exchange and key (Python: keywords first)
BIND = {"queue_bind": ("queue", "exchange", "routing_key"), "QueueBind": (0, 2, 1), "bindQueue": (0, 1, 2),
        "QueueBindAsync": (0, 1, 2)}
#: C#'s parameter names, by position, of the calls whose arguments may be named (``exchange: "x"``)
_CSHARP_NAMES = {"BasicPublish": ("exchange", "routingKey"), "BasicPublishAsync": ("exchange", "routingKey"),
                 "BasicConsume": ("queue",), "BasicConsumeAsync": ("queue",),
                 "QueueBind": ("queue", "exchange", "routingKey"), "QueueBindAsync": ("queue", "exchange", "routingKey")}
_NAMED_ARG = re.compile(r"^\s*(\w+)\s*:(?!:)\s*(.*)$", re.S)
#: pika's positions: queue_bind(queue, exchange, routing_key), basic_consume(queue, ...), basic_publish(exchange, key)
_PY_POSITIONS = {"queue": 0, "exchange": 1, "routing_key": 2}
_PY_PUBLISH = {"exchange": 0, "routing_key": 1}
_QUEUE_NAME = re.compile(r"^(\w+)\.Name$")

Fold = Callable[[Bound, CallFact, str], Folded]


def _uses(bound: Bound) -> bool:
    libraries = LIBRARIES.get(bound.facts.language, ())
    return any(imp.target.startswith(libraries) for imp in bound.facts.imports)


def _arg(bound: Bound, call: CallFact, where: int | str | None) -> str | None:
    """An argument as written: by position, or (Python) by keyword, else at its keyword's usual position."""
    if where is None:
        return None
    if bound.facts.language == "csharp" and isinstance(where, int):
        return _csharp_arg(call, where)
    if isinstance(where, str):
        found = kwarg(call.args, where)
        if found is not None:
            return found
        args = positional(call.args)
        index = (_PY_PUBLISH if call.name == "basic_publish" else _PY_POSITIONS)[where]
        return args[index] if len(args) > index else None
    return call.args[where] if len(call.args) > where else None


def _ours(bound: Bound, name: str) -> bool:
    """Whether ``name`` is one of the library calls of the file's language (C#'s are its own names; ``QueueBind``
    is Go's too)."""
    if bound.facts.language == "csharp":
        return name in _CSHARP_NAMES
    return name not in _CSHARP_NAMES or name == "QueueBind"


def _csharp_arg(call: CallFact, position: int) -> str | None:
    """A C# argument by position, or by the parameter's name when the call names its arguments. C#'s ``QueueBind``
    is (queue, exchange, routingKey), where Go's is (queue, key, exchange)."""
    names = _CSHARP_NAMES.get(call.name, ())
    if call.name == "QueueBind":
        position = (0, 2, 1)[position] if position < 3 else position   # BIND holds Go's order for the name
    wanted = names[position] if position < len(names) else None
    named = {m.group(1): m.group(2).strip() for a in call.args if (m := _NAMED_ARG.match(a))}
    if wanted is not None and wanted in named:
        return named[wanted]
    positional_args = [a for a in call.args if not _NAMED_ARG.match(a)]
    return positional_args[position] if position < len(positional_args) else None


class Folders:
    """One folder per language, made at the first use."""

    def __init__(self, files: list[Bound], project: Project | None = None) -> None:
        self.files = files
        self.project = project
        self._go: GoProject | None = None
        self._modules = {b.ctx.module_name: b.facts for b in files if b.facts.language == "python"}
        self._scripts = {b.path: b.facts for b in files if b.facts.language in ("javascript", "typescript")}

    def go(self) -> GoProject:
        if self._go is None:
            self._go = GoProject([b for b in self.files if b.facts.language == "go"])
        return self._go

    def project_call(self, bound: Bound, call: CallFact) -> bool:
        """A Go call of the project's own method of the library's name (`GoProject.project_call`)."""
        return bound.facts.language == "go" and self.go().project_call(bound, call)

    def fold(self, bound: Bound, call: CallFact, expr: str | None) -> Folded:
        if expr is None:
            return unknown(f"{call.name}(...) names no value here")
        language = bound.facts.language
        if language == "go":
            queue = _QUEUE_NAME.match(expr.strip())
            if queue:   # q.Name of q, _ := ch.QueueDeclare("orders", ...) in the same function
                declared = [c for c in bound.facts.calls if c.owner == call.owner and c.name == "QueueDeclare"]
                if len(declared) == 1 and declared[0].args:
                    expr = declared[0].args[0]
            return self.go().fold(bound, expr, call.owner, call.line)
        if language == "csharp" and self.project is not None:
            class_key = call.owner.rpartition(".")[0]
            return CSharpFolder(csharp_constants(self.project), bound.facts, class_key).at(
                bound.facts, call.owner, call.line).fold(expr)
        if language == "python":
            return PythonFolder(self._modules, bound.ctx.module_name).at(bound.facts, call.owner, call.line).fold(expr)
        return ScriptFolder(self._scripts, bound.path).at(bound.facts, call.owner, call.line).fold(expr)


def bindings(files: list[Bound], folders: Folders) -> dict[str, list[Folded]]:
    """queue -> the ``exchange/key`` topics the project binds it to."""
    out: dict[str, list[Folded]] = {}
    for bound in files:
        if not _uses(bound):
            continue
        for call in bound.facts.calls:
            where = BIND.get(call.name)
            if where is None or not _ours(bound, call.name):
                continue
            queue, exchange, key = (folders.fold(bound, call, _arg(bound, call, w)) for w in where)
            if queue.known:
                out.setdefault(_queue_key(bound, call, queue), []).append(exchange + literal("/") + key)
    return out


def _queue_key(bound: Bound, call: CallFact, queue: Folded) -> str:
    """A queue's name; for a queue the broker names (declared as ``""``) the function that declares it, since
    every such declaration is a queue of its own."""
    return queue.text if queue.text else f"\0{bound.path}\0{call.owner}"


def read_amqp(folders: Folders, bound_to: dict[str, list[Folded]], bound: Bound) -> Iterator[Item]:
    by_key = {sym.key: index for index, sym in enumerate(bound.facts.symbols)}
    for call in bound.facts.calls:
        owner = by_key.get(call.owner, -1)
        if not _ours(bound, call.name):
            continue
        if (call.name in PUBLISH or call.name in CONSUME) and folders.project_call(bound, call):
            continue   # the project's own Publish/Consume method, not the library's
        if call.name in PUBLISH:
            flavor, (exchange_at, key_at) = PUBLISH[call.name]
            exchange = literal("") if exchange_at is None else folders.fold(bound, call, _arg(bound, call, exchange_at))
            key = folders.fold(bound, call, _arg(bound, call, key_at))
            topic = key if exchange.known and exchange.text == "" else exchange + literal("/") + key
            yield item(bound, owner, "producer", flavor, call.line, broker="rabbit", topic=topic,
                       written=", ".join(call.args[:3]))
        elif call.name in CONSUME:
            where = "queue" if bound.facts.language == "python" else 0
            queue = folders.fold(bound, call, _arg(bound, call, where))
            written = _arg(bound, call, where) or ""
            if not queue.known:
                yield item(bound, owner, "route", CONSUME[call.name], call.line, broker="rabbit", topic=queue,
                           written=written)
                continue
            if not queue.text:   # a queue the broker names: reached by this function's bindings only
                bound_here = bound_to.get(_queue_key(bound, call, queue), [])
                for topic in bound_here or [unknown("the broker names this queue (declared with an empty name) "
                                                    "and this function binds it to no exchange")]:
                    yield item(bound, owner, "route", CONSUME[call.name], call.line, broker="rabbit", topic=topic,
                               written=written)
                continue
            topics = {t.text: t for t in [*bound_to.get(queue.text, []), queue]}
            for topic in topics.values():
                yield item(bound, owner, "route", CONSUME[call.name], call.line, broker="rabbit", topic=topic,
                           written=written)


def prepare(files: list[Bound], project: Project) -> Reader:
    folders = Folders(files, project)
    bound_to: list[dict[str, list[Folded]]] = []
    options: list[Options] = []

    def uses(bound: Bound) -> bool:
        return project.memo.get("amqp", bound, _uses)

    def read(bound: Bound) -> Iterator[Item]:
        configured: Iterator[Item] = iter(())
        if bound.facts.language == "go":
            if not options:   # the project's option functions and shared AMQP code, read at the first Go file
                options.append(Options(files, uses, PUBLISH, CONSUME, BIND))
            if options[0].setters and options[0].shared:
                configured = options[0].read(bound, folders.fold, folders.go())
        if not uses(bound):
            return configured
        if not bound_to:   # the project's bindings, read at the first file that uses AMQP
            bound_to.append(bindings(files, folders))
        return chain(read_amqp(folders, bound_to[0], bound), configured)

    return read


FRAMEWORK = Framework("amqp", ("python", "go", "javascript", "typescript", "csharp"), prepare)
