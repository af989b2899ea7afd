"""Spring application events: ``publisher.publishEvent(event)`` runs every listener of the event's type in the
publisher's own application context (one process: an event never crosses to another service), though no call in
the code names them. Each is a ``TRIGGERS`` edge (``kind: spring_event``) from the publishing method to the listener.

**Listeners** (Java and Kotlin classes of the project): an ``@EventListener``, ``@TransactionalEventListener`` or
Spring Modulith ``@ApplicationModuleListener`` (an ``@Async`` transactional one) method hears the types its
``classes``/``value`` name (``X.class``, ``X::class``), else its one parameter's type (``PayloadApplicationEvent<X>``:
the payload ``X``, published as a plain object); an ``onApplicationEvent`` method of a concrete class implementing
``ApplicationListener<X>`` hears ``X``. The edge says the listener's ``phase`` (transactional ones: ``AFTER_COMMIT``
unless given), its ``condition`` (a SpEL filter this reader does not evaluate: the edge stands for "may run"), and
``async`` (``@Async`` on the method or its class).

**Publishes**: ``publishEvent(arg)`` on a receiver declared (a field, parameter or local) as an
``ApplicationEventPublisher`` or an ``ApplicationContext`` type, and an aggregate's ``registerEvent(arg)`` (a class
extending Spring Data's ``AbstractAggregateRoot``: the repository publishes it on ``save``; ``kind:
domain_event``). The event's type is what the argument is declared or made as (``new T(..)``, a local, parameter
or field typed ``T``); its static type ``T`` is all a reader knows, so the listeners reached are those of ``T`` and
of ``T``'s supertypes (a listener of a supertype hears its subtypes: ``ApplicationEvent`` hears every event, an
``@EventListener`` of ``Object`` every publish), never of a subtype of ``T`` (the object may not be one). Types are
qualified names as javac resolves them (`command_bus._Types`); a listener of a library type other than
``ApplicationEvent``/``Object`` (``ContextRefreshedEvent``) hears no project publish. Never a guess: an argument
whose type is not known (``publishEvent(toEvent(order))``, a receiver of unknown type) gives no edge. A
microservice whose modules hold several ``@SpringBootApplication`` classes runs several application contexts (a
folder of examples, a service and its tools): there an event reaches only the listeners of its own module.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ..languages.symbols import Bound
from ..model import GraphEdge, make_edge
from .command_bus import _applied, _declared, _qualified, _receiver_type, _simple, _Types

#: Spring Modulith's ``@ApplicationModuleListener`` is an ``@Async`` ``@TransactionalEventListener``
LISTENER_ANNOTATIONS = frozenset({"EventListener", "TransactionalEventListener", "ApplicationModuleListener"})
TRANSACTIONAL = frozenset({"TransactionalEventListener", "ApplicationModuleListener"})
PUBLISHERS = frozenset({"ApplicationEventPublisher", "ApplicationContext", "ConfigurableApplicationContext",
                        "GenericApplicationContext", "AnnotationConfigApplicationContext", "WebApplicationContext",
                        "ConfigurableWebApplicationContext", "ApplicationEventMulticaster"})
#: library types every publish reaches: a listener of ``ApplicationEvent`` hears each (a plain object arrives
#: wrapped in a ``PayloadApplicationEvent``), an ``@EventListener`` of ``Object`` too
EVERY = frozenset({"ApplicationEvent", "Object"})
AGGREGATE_ROOT = "AbstractAggregateRoot"
APPLICATION = "SpringBootApplication"
_CLASS_LITERAL = re.compile(r"([\w.]+)\s*(?:\.class|::class)\b")
_NEW = re.compile(r"^new\s+([\w.]+)\s*(?:<[^()]*>)?\s*\(")
_KOTLIN_NEW = re.compile(r"^([A-Z][\w.]*)\s*\(")   # Kotlin makes an object without ``new``
_PAYLOAD = re.compile(r"^PayloadApplicationEvent\s*<\s*([\w.]+)")


class _Listener:
    __slots__ = ("id", "props", "module")

    def __init__(self, id: str, props: dict, module: str) -> None:
        self.id, self.props, self.module = id, props, module


def _listened(bound: Bound, sym, types: _Types) -> list[tuple[str, bool]]:
    """The types a listener method hears, each (qualified name or an `EVERY` name, payload only)."""
    written: list[str] = []
    for ann in sym.annotations:
        if ann.name in LISTENER_ANNOTATIONS:
            named = [v for k, v in ann.args if k in ("classes", "value", "")]
            written = [m.group(1) for v in named for m in _CLASS_LITERAL.finditer(v)]
    if not written:
        if len(sym.params) != 1:
            return []
        written = [sym.params[0][1]]
    out = []
    for text in written:
        text = text.strip().removesuffix("?")
        payload = _PAYLOAD.match(text)
        name = payload.group(1) if payload else text
        resolved = types.fqn(bound, name)
        if resolved is not None:
            out.append((resolved, bool(payload)))
        elif _simple(name) in EVERY and not payload:
            out.append((_simple(name), False))
    return out


def _listeners(files: list[Bound], types: _Types) -> dict[str, list[tuple[str, bool, _Listener]]]:
    """microservice -> (type heard, payload only, listener) of every listener method in it."""
    out: dict[str, list[tuple[str, bool, _Listener]]] = {}
    for bound in files:
        for sym in bound.facts.symbols:
            if sym.kind == "class" and "abstract" not in sym.modifiers:
                heard = _applied(sym.signature, "ApplicationListener") if any(
                    _simple(w) == "ApplicationListener" for _, w in sym.supers) else None
                resolved = types.fqn(bound, heard[0]) if heard and len(heard) == 1 else None
                if resolved is None and heard and len(heard) == 1 and _simple(heard[0]) in EVERY:
                    resolved = _simple(heard[0])
                methods = [m for m in bound.members(sym.key) if bound.facts.symbols[m].name == "onApplicationEvent"
                           and len(bound.facts.symbols[m].params) == 1] if resolved else []
                if len(methods) == 1:
                    props = {"listener": "ApplicationListener", "async": _async(bound, bound.facts.symbols[methods[0]])}
                    out.setdefault(bound.ctx.microservice, []).append(
                        (resolved, False, _Listener(bound.ids[methods[0]], props, bound.ctx.module)))
            if sym.kind != "method":
                continue
            annotation = next((a for a in sym.annotations if a.name in LISTENER_ANNOTATIONS), None)
            if annotation is None:
                continue
            args = dict(annotation.args)
            props = {"listener": annotation.name,
                     "async": annotation.name == "ApplicationModuleListener" or _async(bound, sym)}
            if annotation.name in TRANSACTIONAL:
                props["phase"] = _simple(args.get("phase", "AFTER_COMMIT"))
            if args.get("condition"):
                props["condition"] = args["condition"].strip().strip('"')
            for heard_type, payload in _listened(bound, sym, types):
                out.setdefault(bound.ctx.microservice, []).append(
                    (heard_type, payload, _Listener(bound.ids[bound.by_key[sym.key]], props, bound.ctx.module)))
    return out


def application_contexts(files: list[Bound]) -> Callable[[str, str], str]:
    """(microservice, module) -> the application context its code runs in: the microservice, or the module when
    the microservice's modules hold several ``@SpringBootApplication`` classes (each its own process)."""
    applications: dict[str, set[str]] = {}
    for bound in files:
        if any(a.name == APPLICATION for sym in bound.facts.symbols for a in sym.annotations):
            applications.setdefault(bound.ctx.microservice, set()).add(bound.ctx.module)
    return lambda service, module: f"{service} ({module})" if len(applications.get(service, ())) > 1 else service


def _async(bound: Bound, sym) -> bool:
    owner = bound.by_key.get(sym.parent) if sym.parent else None
    holders = [sym] + ([bound.facts.symbols[owner]] if owner is not None else [])
    return any(a.name == "Async" for holder in holders for a in holder.annotations)


def _supers(files: list[Bound], types: _Types) -> dict[str, set[str]]:
    """qualified class -> its supertypes: qualified when a project type, else the simple name as written."""
    out: dict[str, set[str]] = {}
    for bound in files:
        for sym in bound.facts.symbols:
            if sym.kind in ("class", "interface", "record", "enum", "object"):
                out.setdefault(_qualified(bound, sym.key), set()).update(
                    types.fqn(bound, w) or _simple(w) for _, w in sym.supers)
    return out


def _ancestry(name: str, supers: dict[str, set[str]]) -> tuple[set[str], bool]:
    """Every supertype of ``name`` (itself included), and whether each one is a project type (the hierarchy known)."""
    seen, todo, known = set(), [name], True
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if current not in supers and current != name:
            known = False
        todo.extend(supers.get(current, ()))
    return seen, known


def _event_type(bound: Bound, owner: str, arg: str, line: int, types: _Types) -> str | None:
    """The qualified project type an argument is made (``new T(..)``, Kotlin ``T(..)``) or declared as."""
    made = (_KOTLIN_NEW if bound.facts.language == "kotlin" else _NEW).match(arg)
    if made:
        return types.fqn(bound, made.group(1))
    if not re.fullmatch(r"(?:this\.)?\w+", arg):
        return None
    written = _declared(bound, owner, arg.removeprefix("this."), line)
    return types.fqn(bound, (written or "").lstrip("~").removesuffix("?")) if written else None


def spring_event_edges(files: list[Bound]) -> Iterator[GraphEdge]:
    """The ``TRIGGERS`` edges of Spring application events (see the module docstring)."""
    if not any(c.name in ("publishEvent", "registerEvent") for b in files for c in b.facts.calls):
        return
    types = _Types(files)
    types.known |= {_qualified(b, s.key) for b in files for s in b.facts.symbols if s.kind in ("record", "enum", "object")}
    listeners = _listeners(files, types)
    if not listeners:
        return
    supers = _supers(files, types)
    context = application_contexts(files)
    for bound in files:
        heard = listeners.get(bound.ctx.microservice)
        if not heard:
            continue
        for call in bound.facts.calls:
            if call.kind != "call" or len(call.args) != 1 or call.owner not in bound.by_key:
                continue
            if call.name == "publishEvent":
                receiver = _receiver_type(bound, call)
                if receiver is None or _simple(receiver.lstrip("~")) not in PUBLISHERS:
                    continue
                kind = "spring_event"
            elif call.name == "registerEvent" and call.receiver in (None, [], ["this"]) and \
                    AGGREGATE_ROOT in _ancestry(_qualified(bound, call.owner.split("#")[0]), supers)[0]:
                kind = "domain_event"
            else:
                continue
            arg = call.args[0].strip()
            event = _event_type(bound, call.owner, arg, call.line, types)
            if event is None:
                continue
            ancestry, known = _ancestry(event, supers)
            plain = known and "ApplicationEvent" not in ancestry   # published wrapped in a PayloadApplicationEvent
            source = bound.ids[bound.by_key[call.owner]]
            for heard_type, payload_only, listener in heard:
                if heard_type not in ancestry and heard_type not in EVERY or payload_only and not plain or \
                        context(bound.ctx.microservice, listener.module) != context(bound.ctx.microservice,
                                                                                    bound.ctx.module):
                    continue
                if listener.id != source:
                    yield make_edge(source, "TRIGGERS", listener.id, {
                        "kind": kind, "message": _simple(event), "heard_as": _simple(heard_type),
                        "via": f"{call.name}({arg})", "line": call.line, **listener.props})
