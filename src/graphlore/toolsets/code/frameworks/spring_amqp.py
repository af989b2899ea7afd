"""Spring AMQP declarations: the queues, exchanges and bindings a Spring service declares to RabbitMQ, so that a
``@RabbitListener`` of a queue hears what a ``rabbitTemplate.convertAndSend(exchange, key, msg)`` sends.

**Declared in code** (Java): ``@Bean`` methods returning ``new Queue("name", ..)`` / ``QueueBuilder.durable("name")``
(``nonDurable``), ``new TopicExchange("x")`` / ``DirectExchange`` / ``FanoutExchange`` / ``HeadersExchange`` or
``ExchangeBuilder.topicExchange("x")`` (``directExchange``, ``fanoutExchange``, ``headersExchange``), and
``BindingBuilder.bind(queue).to(exchange).with(key)`` (``.withQueueName()``: the queue's name is the key; a fanout
exchange: no ``with``). A binding's queue and
exchange are written inline (``new Queue("q")``), as a call of a bean method (``queue()``), or as a parameter of the
binding's bean method, injected as Spring injects it: the one bean of the parameter's type, else the bean the
parameter names. **Declared on the listener**: ``@RabbitListener(bindings = @QueueBinding(value = @Queue("q"),
exchange = @Exchange(value = "x", type = ExchangeTypes.TOPIC), key = {"a.*"}))`` (the exchange type defaults to
direct). Names and keys fold as any value (constants, ``${...}`` settings).

A binding is ``Binding(queue, exchange, type, key)``. A listener of the queue is one route per binding (topic
``exchange/key``) and one for the queue's name (the default exchange routes by it), as `frameworks.amqp` does for
the other languages. A topic exchange's binding key matches by AMQP's rules (``*`` one word, ``#`` zero or more),
a fanout's every key (`services.links`); a headers exchange routes by headers, which are not read: no route.
A binding whose queue, exchange or key does not fold is not a route (it would be a guess); ``new Binding(..)``
(its key is a fourth argument the facts do not keep) and ``Declarables`` are not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..languages.folding import Folded, array_items, literal, split_top, unknown
from ..model import CallFact
from .jvm import JavaFile
from .spring_events import application_contexts

EXCHANGE_TYPES = {"TopicExchange": "topic", "DirectExchange": "direct", "FanoutExchange": "fanout",
                  "HeadersExchange": "headers"}
EXCHANGE_BUILDERS = {"topicExchange": "topic", "directExchange": "direct", "fanoutExchange": "fanout",
                     "headersExchange": "headers"}
QUEUE_BUILDERS = frozenset({"durable", "nonDurable"})
_BEAN_CALL = re.compile(r"^(\w+)\(\s*\)$")
_GET_NAME = re.compile(r"(?:this\.)?(\w+)\.getName\(\s*\)")
_BEAN_NAME = re.compile(r"#\{\s*@?(\w+)\.name\s*\}")
_NEW = re.compile(r"^new\s+(\w+)\s*\(\s*(.*?)\s*(?:,.*)?\)$", re.S)


@dataclass(frozen=True)
class Binding:
    queue: str
    exchange: str
    type: str
    key: str


@dataclass(frozen=True)
class _Bean:
    kind: str        # queue | exchange
    name: Folded
    type: str = ""   # exchanges: direct | topic | fanout | headers


def _made(jf: JavaFile, call: CallFact, class_key: str) -> _Bean | None:
    """The queue or exchange a call makes (``new Queue("q")``, ``QueueBuilder.durable("q")``, ...), if any."""
    if not call.args:
        return None
    receiver = call.receiver
    if call.kind == "new" and call.name == "Queue":
        kind, kind_type = "queue", ""
    elif call.kind == "new" and call.name in EXCHANGE_TYPES:
        kind, kind_type = "exchange", EXCHANGE_TYPES[call.name]
    elif call.name in QUEUE_BUILDERS and receiver == ["name", "QueueBuilder"]:
        kind, kind_type = "queue", ""
    elif call.name in EXCHANGE_BUILDERS and receiver == ["name", "ExchangeBuilder"]:
        kind, kind_type = "exchange", EXCHANGE_BUILDERS[call.name]
    else:
        return None
    return _Bean(kind, jf.fold(call.args[0], class_key, call.owner, call.line), kind_type)


def _inline(jf: JavaFile, text: str, class_key: str, owner: str, line: int) -> _Bean | None:
    found = _NEW.match(text.strip())
    if not found or found.group(1) not in ("Queue", *EXCHANGE_TYPES) or not found.group(2):
        return None
    kind = "queue" if found.group(1) == "Queue" else "exchange"
    return _Bean(kind, jf.fold(found.group(2), class_key, owner, line), EXCHANGE_TYPES.get(found.group(1), ""))


@dataclass
class Declared:
    """What a project's ``@Bean`` methods declare: the bindings, and each service's queue beans by name (a listener
    names one as ``#{bean.name}``)."""

    bindings: list[Binding]
    queues: dict[tuple[str, str], str]
    beans: dict[tuple[str, str], list[_Bean]]

    def queue_of(self, jf: JavaFile, written: str) -> str | None:
        """The queue a listener's ``#{bean.name}`` names in its file's application (None: not a bean reference)."""
        found = _BEAN_NAME.fullmatch(written.strip())
        return self.queues.get((_scope(jf), found.group(1))) if found else None

    def bean_name(self, jf: JavaFile, call: CallFact, written: str) -> Folded | None:
        """The name of the queue or exchange bean an expression ``x.getName()`` reads (``x`` a field or parameter
        injected as Spring injects it); None when it is not such an expression or the bean is not known."""
        found = _GET_NAME.fullmatch(written.strip())
        if not found:
            return None
        made = [b for kind in ("queue", "exchange") if (b := _operand(jf, found.group(1), kind, call, self.beans))]
        return made[0].name if len(made) == 1 and made[0].name.known else None


def declarations(files: list[JavaFile]) -> Declared:
    """The bindings the project's ``@Bean`` methods declare with ``BindingBuilder`` and the queue beans (see the
    module docstring). Beans are those of the declaring code's application context (`spring_events`)."""
    context = application_contexts([jf.bound for jf in files])
    for jf in files:
        jf.context = context(jf.bound.ctx.microservice, jf.bound.ctx.module)
    beans: dict[tuple[str, str], list[_Bean]] = {}   # (microservice, bean method name) -> what it makes
    declarers: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for jf in files:
        for call in jf.facts.calls:
            owner = jf.bound.by_key.get(call.owner)
            sym = jf.facts.symbols[owner] if owner is not None else None
            if sym is None or not any(a.name == "Bean" for a in sym.annotations):
                continue
            if call.kind == "new" and call.name == "AnonymousQueue":   # the broker names it: the bean is its name
                made = _Bean("queue", literal(f"(anonymous queue of bean {sym.name} in {_scope(jf)})"))
            else:
                made = _made(jf, call, call.owner.split("#")[0])
            if made is not None:
                beans.setdefault((_scope(jf), sym.name), []).append(made)
                declarers.setdefault((_scope(jf), sym.name), set()).add((jf.bound.path, sym.key))
    for where, makers in declarers.items():   # one bean name in several classes (profiles): which one runs is
        if len(makers) > 1 and len(set(beans[where])) > 1 or any(  # not known; an anonymous queue is its bean
                b.name.text.startswith("(anonymous") for b in beans[where]) and len(makers) > 1:
            beans[where] = [_Bean(beans[where][0].kind, unknown(f"bean {where[1]} is declared {len(makers)} times "
                                                                "(profiles or configurations: which one runs is not known)"))]
    out: list[Binding] = []
    for jf in files:
        for call in jf.facts.calls:
            written = _chain(jf, call)
            if written is None:
                continue
            class_key = call.owner.split("#")[0]
            queue = _operand(jf, written[0], "queue", call, beans)
            exchange = _operand(jf, written[1], "exchange", call, beans)
            if queue is None or exchange is None or exchange.type == "headers" or \
                    (call.name == "to") != (exchange.type == "fanout"):
                continue   # ``.to(topicExchange)`` waits for its ``with``; a fanout's ``with`` is not read here
            key = jf.fold(call.args[0], class_key, call.owner, call.line) if call.name == "with" else \
                queue.name if call.name == "withQueueName" else None   # a direct binding by the queue's name
            if queue.name.known and exchange.name.known and (key is None or key.known):
                out.append(Binding(queue.name.text, exchange.name.text, exchange.type,
                                   "#" if key is None else key.text))
    queues = {where: one.name.text for where, made in beans.items()
              if (one := _one(made, "queue")) is not None and one.name.known}
    return Declared(list(dict.fromkeys(out)), queues, beans)


_BIND = ["call", ["name", "BindingBuilder"], "bind", 1]


def _chain(jf: JavaFile, call: CallFact) -> tuple[str, str] | None:
    """The queue and exchange (as written) of ``BindingBuilder.bind(q).to(e)`` when ``call`` is its ``.to(e)``
    or the ``.with(k)`` after it; the chain's calls are found in the same method, at or before its line."""
    if call.name == "to" and call.receiver == _BIND and call.args:
        to = call
    elif (call.name == "with" and call.args or call.name == "withQueueName") and isinstance(call.receiver, list) \
            and call.receiver[:3] == ["call", _BIND, "to"]:
        before = [c for c in jf.facts.calls if c.owner == call.owner and c.name == "to" and c.receiver == _BIND
                  and c.args and c.line <= call.line]
        if not before:
            return None
        to = max(before, key=lambda c: c.line)
    else:
        return None
    binds = [c for c in jf.facts.calls if c.owner == call.owner and c.name == "bind" and c.args
             and c.receiver == ["name", "BindingBuilder"] and c.line <= to.line]
    return (max(binds, key=lambda c: c.line).args[0], to.args[0]) if binds else None


def _operand(jf: JavaFile, written: str, kind: str, call: CallFact,
             beans: dict[tuple[str, str], list[_Bean]]) -> _Bean | None:
    """The queue or exchange an argument of the chain is: made inline, a bean method's call, or a parameter of the
    method injected as Spring injects it (the one bean of its type in the service, else the one it names)."""
    written = written.strip()
    inline = _inline(jf, written, call.owner.split("#")[0], call.owner, call.line)
    if inline is not None:
        return inline if inline.kind == kind else None
    service = _scope(jf)
    bean = _BEAN_CALL.match(written)
    if bean:
        return _one(beans.get((service, bean.group(1)), []), kind)
    owner = jf.bound.by_key.get(call.owner)
    written = written.removeprefix("this.")
    params = [t for n, t in jf.facts.symbols[owner].params if n == written] if owner is not None else []
    if not params:   # a field of the class (``@Autowired private TopicExchange topic``)
        field = jf.bound.by_key.get(f"{call.owner.split('#')[0]}#{written}")
        params = [jf.facts.symbols[field].type] if field is not None and jf.facts.symbols[field].kind == "field" \
            else []
    declared = re.sub(r"<.*", "", params[0]).rsplit(".", 1)[-1] if len(params) == 1 else ""
    if kind != ("queue" if declared in ("Queue", "AnonymousQueue") else "exchange" if declared in (
            *EXCHANGE_TYPES, "Exchange", "AbstractExchange") else None):
        return None
    wanted = EXCHANGE_TYPES.get(declared)   # None: any exchange (``Exchange``, ``AbstractExchange``)
    typed = [name for (where, name), made in beans.items() if where == service
             and (_one(made, kind) is not None) and (wanted is None or _one(made, kind).type == wanted)]
    if len(typed) == 1:
        return _one(beans[(service, typed[0])], kind)
    return _one(beans[(service, written)], kind) if written in typed else None


def _scope(jf: JavaFile) -> str:
    """The application context a file's beans live in (set by `declarations`; else its microservice)."""
    return getattr(jf, "context", "") or jf.bound.ctx.microservice


def _one(made: list[_Bean], kind: str) -> _Bean | None:
    distinct = list(dict.fromkeys(made))
    return distinct[0] if len(distinct) == 1 and distinct[0].kind == kind else None


def _attributes(text: str) -> dict[str, str]:
    """``@A(x = 1, y = @B(..))`` or ``@A("v")`` -> its attributes as written (a lone value is ``value``)."""
    inner = text[text.index("(") + 1:text.rindex(")")] if "(" in text else ""
    out: dict[str, str] = {}
    for part in split_top(inner):
        name, eq, value = part.partition("=")
        if eq and re.fullmatch(r"\s*\w+\s*", name) and not value.startswith("="):
            out[name.strip()] = value.strip()
        elif part.strip():
            out["value"] = part.strip()
    return out


def listener_bindings(jf: JavaFile, written: str, class_key: str) -> list[tuple[Folded, Binding | None]]:
    """The queues and bindings a ``@RabbitListener(bindings = ..)`` declares: (queue, None) for each named queue
    and (queue, binding) for each exchange and key it binds it with; a part that does not fold gives nothing."""
    out: list[tuple[Folded, Binding | None]] = []
    for each in array_items(written):
        if not each.lstrip().startswith("@QueueBinding"):
            continue
        attrs = _attributes(each)
        queue_attrs = _attributes(attrs.get("value", ""))
        queue = jf.fold(queue_attrs.get("value") or queue_attrs.get("name") or '""', class_key)
        if queue.known and queue.text:
            out.append((queue, None))
        exchange_attrs = _attributes(attrs.get("exchange", ""))
        exchange = jf.fold(exchange_attrs.get("value") or exchange_attrs.get("name"), class_key)
        kind = exchange_attrs.get("type", "direct").rsplit(".", 1)[-1].strip('"').lower()
        if not (queue.known and exchange.known and exchange.text) or kind == "headers":   # ``@Queue``: broker-named
            continue
        keys = [jf.fold(k, class_key) for k in array_items(attrs.get("key", '""'))] if kind != "fanout" else []
        name = queue.text or "(anonymous queue)"
        if all(k.known for k in keys):
            out += [(queue, Binding(name, exchange.text, kind, k.text)) for k in keys] if keys else \
                [(queue, Binding(name, exchange.text, kind, "#"))]
    return out
