"""MediatR dispatch: ``mediator.Send(request)`` runs the ``Handle`` of the one ``IRequestHandler<TRequest>`` (or
``IRequestHandler<TRequest, TResponse>``) of the request's type, and ``mediator.Publish(notification)`` the
``Handle`` of every ``INotificationHandler<TNotification>`` of its type (also through the project's own handler
interfaces: ``ICommandHandler<TCommand, TResponse> : IRequestHandler<TCommand, TResponse>``): ``TRIGGERS`` edges (``kind:
mediator``), from the sending symbol to each handler's ``Handle``, in a file that imports ``MediatR`` (its
module's ``global using`` counts).

The request's type is what the argument is made as: ``new T(..)``, a local every value of which is a ``new T(..)``
(each branch's type, an edge to each; a local also given another value is not known), a local declared ``T``
and never given a new object, or a local every value of which is mapped to ``T`` (``x.Adapt<T>()``,
``mapper.Map<T>(x)``) or made by a call of a method every declaration of which in the project returns one type
(``MapToCreateOrderCommand(message)``); generic arguments are dropped (``IdentifiedCommand<CreateOrder, bool>`` is
``IdentifiedCommand``). The handlers are those of the sender's microservice (MediatR dispatches in its own process). Never a guess: a
request type two handlers take gives no edge (MediatR would fail), and an argument whose type is not known
(``message.Command``, a parameter of a base type) gives none either.

**Domain events.** An entity records an event (``AddDomainEvent(new OrderPaid(..))``) that the project publishes
later through MediatR (``SaveEntitiesAsync`` or an EF Core interceptor publishing each entity's ``DomainEvents``):
the handlers run for the recording, though its call names none. A recorder is a method of the project whose one
parameter is typed with a notification type (``INotification``, or a project type deriving from it: ``IDomainEvent
: INotification``) and that adds that parameter to a collection (``_domainEvents.Add(eventItem)``), every method of
its name being one; a call of it with an argument of known type ``T`` (as above) ``TRIGGERS`` (``kind:
domain_event``) the ``Handle`` of every ``INotificationHandler<T>`` of the caller's microservice, when a file of that
microservice that imports MediatR publishes (``Publish(..)``) something of a type not known there (the recorded
events, taken from the entities). That publishing symbol (the dispatcher: ``SaveEntitiesAsync``, an interceptor's
``DispatchDomainEvents``) ``TRIGGERS`` (``kind: domain_event_dispatch``) those handlers too, for every type some
code of its microservice records: a trace through the save reaches them as well as one through the recording.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.csharp.constants import made_type
from ..languages.symbols import Bound
from ..model import GraphEdge, make_edge

NAMESPACE = "MediatR"
#: handler base -> whether several handlers of one type all run (notifications) or one must (requests)
HANDLERS = {"IRequestHandler": False, "IStreamRequestHandler": False, "INotificationHandler": True}
SENDS = {"Send": False, "CreateStream": False, "Publish": True}


def _simple(name: str) -> str:
    return name.rsplit(".", 1)[-1]


#: a call at the end of an expression (``MapToCreateOrderCommand(context.Message)``, ``dto.ToCommand()``)
_CALLED = re.compile(r"(?:^|\.)\s*([A-Za-z_]\w*)\s*\([^()]*\)$")
NO_RETURNS: dict[str, set[str]] = {}


def _returns(files: list[Bound]) -> dict[str, set[str]]:
    """Method name -> the types its declarations in the project return (generic arguments dropped)."""
    out: dict[str, set[str]] = {}
    for bound in files:
        for sym in bound.facts.symbols:
            if sym.kind == "method":
                out.setdefault(sym.name, set()).add(_simple(sym.type) if sym.type else "")
    return out


def _value_type(text: str, returns: dict[str, set[str]]) -> str | None:
    """The type an expression makes: ``new T(..)``, ``x.Adapt<T>()``, ``mapper.Map<T>(x)``, or a call of a method
    every declaration of which in the project returns one type ``T`` (``MapToCreateOrderCommand(message)``)."""
    made = made_type(text)
    if made is not None:
        return made
    called = _CALLED.search(text.strip().removesuffix("!"))
    returned = returns.get(called.group(1), set()) if called else set()
    return next(iter(returned)) or None if len(returned) == 1 else None


def _argument_types(bound: Bound, owner: str, arg: str, line: int,
                    returns: dict[str, set[str]] = NO_RETURNS) -> list[str]:
    """The types the argument may be made as (each branch's ``new T(..)``), or its declared type; none when a
    value it is given is not a new object or a mapped one (a parameter, a library call's result: not known here)."""
    made = _value_type(arg, returns)
    if made is not None:
        return [made]
    if not re.fullmatch(r"@?\w+", arg):
        return []
    news = [(at, types) for at, types in bound.facts.extra.get("made", {}).get(owner, {}).get(arg, []) if at <= line]
    assigned = [at for at, _ in bound.facts.extra.get("assigns", {}).get(owner, {}).get(arg, []) if at <= line]
    if news and set(assigned) <= {at for at, _ in news}:   # every value it is given is a new object
        return list(dict.fromkeys(_simple(name) for _, types in news for name in types))
    if news:
        return []
    values = [_value_type(text, returns) for at, texts in bound.facts.extra.get("assigns", {}).get(owner, {})
              .get(arg, []) if at <= line for text in texts]
    if values and None not in values:   # every value it is given is mapped to a type (``x.Adapt<T>()``)
        return list(dict.fromkeys(v for v in values if v is not None))
    declared = [t for at, t in bound.facts.locals.get(owner, {}).get(arg, []) if at <= line]
    return [_simple(declared[-1])] if declared and declared[-1] not in ("?", "var") and \
        not declared[-1].startswith("~") else []


_TYPE_PARAMETERS = re.compile(r"\binterface\s+\w+\s*<([^<>]*)>")


def _derived_handlers(files: list[Bound]) -> dict[tuple[str, int], tuple[bool, int]]:
    """The project's own handler interfaces (a CQRS layer's ``ICommandHandler<TCommand, TResponse> :
    IRequestHandler<TCommand, TResponse>``, through any number of them): (simple name, number of type parameters)
    -> (whether it handles notifications, the position of its message type parameter)."""
    declared = []
    for bound in files:
        for key, bases in bound.facts.extra.get("generic_bases", {}).items():
            index = bound.by_key.get(key)
            written = _TYPE_PARAMETERS.search(bound.facts.symbols[index].signature) if index is not None else None
            if written:
                params = [p.split()[-1] for p in written.group(1).split(",") if p.strip()]
                declared.append((bound.facts.symbols[index].name, params, bases))
    found: dict[tuple[str, int], tuple[bool, int]] = {}
    for _ in range(4):   # a chain of interfaces: ICommandHandler<T> : ICommandHandler<T, Unit> : IRequestHandler<..>
        for name, params, bases in declared:
            for base, types in bases:
                kind = (HANDLERS[_simple(base)], 0) if _simple(base) in HANDLERS else \
                    found.get((_simple(base), len(types)))
                if kind is not None and len(types) > kind[1] and types[kind[1]] in params:
                    found[(name, len(params))] = (kind[0], params.index(types[kind[1]]))
    return found


def _notification_types(files: list[Bound]) -> set[str]:
    """The simple names of ``INotification`` and of the project's types deriving from it, through any number."""
    declared = [(sym.name, {_simple(re.sub(r"<.*", "", written)) for _, written in sym.supers})
                for bound in files for sym in bound.facts.symbols if sym.kind in ("class", "interface", "record")]
    found = {"INotification"}
    grew = True
    while grew:
        before = len(found)
        found |= {name for name, supers in declared if supers & found}
        grew = len(found) > before
    return found


def _recorders(files: list[Bound]) -> set[str]:
    """The names of the project's methods that record a notification (see the module docstring): every method of
    the name takes one notification-typed parameter and adds it to a collection."""
    notifications = _notification_types(files)
    names: dict[str, bool] = {}
    for bound in files:
        adds = {(call.owner, call.args[0].strip()) for call in bound.facts.calls
                if call.name == "Add" and call.kind == "call" and call.args}
        for sym in bound.facts.symbols:
            if sym.kind not in ("method", "function"):
                continue
            recorder = len(sym.params) == 1 and (sym.key, sym.params[0][0]) in adds and \
                _simple(re.sub(r"<.*", "", sym.params[0][1])) in notifications
            names[sym.name] = names.get(sym.name, True) and recorder
    return {name for name, every in names.items() if every}


def _domain_event_edges(files: list[Bound], imports: dict[str, bool], handlers: dict[tuple[str, str, bool], list[str]],
                        returns: dict[str, set[str]]) -> Iterator[GraphEdge]:
    """The ``TRIGGERS`` edges of recorded domain events (see the module docstring)."""
    recorders = _recorders(files)
    if not recorders:
        return
    publishers: dict[str, list[tuple[str, str, int]]] = {}   # microservice -> (symbol, argument, line)
    for bound in files:
        if imports.get(bound.ctx.module):
            for call in bound.facts.calls:
                if call.name == "Publish" and call.kind == "call" and call.args and call.owner in bound.by_key \
                        and not _argument_types(bound, call.owner, call.args[0].strip(), call.line, returns):
                    publishers.setdefault(bound.ctx.microservice, []).append(
                        (bound.ids[bound.by_key[call.owner]], call.args[0].strip(), call.line))
    recorded: dict[str, set[str]] = {}   # microservice -> the event types its code records
    for bound in files:
        if bound.ctx.microservice not in publishers:
            continue
        for call in bound.facts.calls:
            if call.name not in recorders or call.kind != "call" or not call.args or call.owner not in bound.by_key:
                continue
            source = bound.ids[bound.by_key[call.owner]]
            for message in _argument_types(bound, call.owner, call.args[0].strip(), call.line, returns):
                recorded.setdefault(bound.ctx.microservice, set()).add(message)
                for target in dict.fromkeys(handlers.get((bound.ctx.microservice, message, True), [])):
                    if target != source:
                        yield make_edge(source, "TRIGGERS", target, {"kind": "domain_event", "message": message,
                                                                     "via": f"{call.name}({call.args[0]})",
                                                                     "line": call.line})
    # the dispatcher: its Publish of the recorded events runs the handlers of every type recorded in its service
    for service, sites in publishers.items():
        for message in sorted(recorded.get(service, ())):
            for target in dict.fromkeys(handlers.get((service, message, True), [])):
                for source, arg, line in sites:
                    if target != source:
                        yield make_edge(source, "TRIGGERS", target, {"kind": "domain_event_dispatch",
                                                                     "message": message, "via": f"Publish({arg})",
                                                                     "line": line})


_GENERIC_ARGUMENTS = r"\s*<((?:[^<>]|<[^<>]*>)*)>"


def _split_arguments(written: str) -> list[str]:
    """``CreateOrder, Dictionary<int, string>`` -> ``["CreateOrder", "Dictionary"]``: each top-level type argument
    without its own arguments."""
    out, depth, word = [], 0, ""
    for char in written + ",":
        depth += char == "<"
        depth -= char == ">"
        if char == "," and depth == 0:
            out.append(_simple(re.sub(r"<.*", "", word).strip().removesuffix("?")))
            word = ""
        else:
            word += char
    return out


def _written_arguments(signature: str, name: str) -> list[str] | None:
    """The type arguments (or parameters) ``name`` is written with in a declaration's head, else None."""
    found = re.search(r"\b" + re.escape(name) + _GENERIC_ARGUMENTS, signature)
    return _split_arguments(found.group(1)) if found else None


def _wrappers(files: list[Bound]) -> dict[str, dict[str, int]]:
    """Generic request types that carry a value of one of their type parameters (``class IdentifiedCommand<T, R> {
    T Command }``): simple name -> member name -> the position of the type parameter it is typed with."""
    out: dict[str, dict[str, int]] = {}
    for bound in files:
        for sym in bound.facts.symbols:
            if sym.kind not in ("class", "record") or not (params := _written_arguments(sym.signature, sym.name)):
                continue
            for member in bound.members(sym.key):
                field = bound.facts.symbols[member]
                if field.kind == "field" and field.type in params:
                    out.setdefault(sym.name, {})[field.name] = params.index(field.type)
    return out


def _forwarded_position(bound: Bound, handle: int, wrapper: str, members: dict[str, int]) -> list[tuple[int, str, int]]:
    """(position, argument, line) of each ``Send`` in a wrapper's handler whose request is the wrapped value: the
    Handle's parameter of the wrapper type, then one of its members typed with a type parameter (``message.Command``,
    or a local every value of which is that)."""
    sym = bound.facts.symbols[handle]
    names = [name for name, written in sym.params if _simple(re.sub(r"<.*", "", written)) == wrapper]
    out = []
    for call in bound.facts.calls:
        if call.owner != sym.key or call.kind != "call" or SENDS.get(call.name) is not False or not call.args:
            continue
        arg = call.args[0].strip()
        values = [arg] if "." in arg else [text for at, texts in bound.facts.extra.get("assigns", {})
                                           .get(sym.key, {}).get(arg, []) if at <= call.line for text in texts]
        read = [re.fullmatch(r"@?(\w+)\.(\w+)", value) for value in values]
        positions = {members.get(m.group(2)) for m in read if m and m.group(1).lstrip("@") in names}
        if values and all(read) and len(positions) == 1 and None not in positions:
            out.append((positions.pop(), arg, call.line))
    return out


def _sent_arguments(bound: Bound, owner: str, arg: str, line: int, wrapper: str) -> list[list[str]]:
    """The type arguments each value of a request argument is made with (``new IdentifiedCommand<CreateOrder,
    bool>(..)``, inline or through a local every value of which is one)."""
    inline = re.match(r"new\s+(?:[\w.]+\.)?" + re.escape(wrapper) + _GENERIC_ARGUMENTS + r"\s*\(", arg)
    if inline:
        return [_split_arguments(inline.group(1))]
    made = bound.facts.extra.get("made_type_arguments", {}).get(owner, {}).get(arg, [])
    return [types for at, types in made if at <= line]


def _forwarded_edges(files: list[Bound], imports: dict[str, bool], handlers: dict[tuple[str, str, bool], list[str]],
                     handles: list[tuple[Bound, str, int, str]], returns: dict[str, set[str]]) -> Iterator[GraphEdge]:
    """``TRIGGERS`` (``kind: mediator``) from a generic wrapper's handler to the handler of each request it is sent
    wrapping: ``Send(new IdentifiedCommand<CreateOrder, bool>(command, id))`` runs ``IdentifiedCommandHandler<T,
    R>.Handle``, which sends ``message.Command`` (a ``T``) on: ``CreateOrder``'s handler runs. The wrapped type is
    the sender's type argument where the handler's base leaves it a type parameter
    (``IRequestHandler<IdentifiedCommand<T, R>, R>``), else the one the base names."""
    wrappers = _wrappers(files)
    drawn: set[tuple[str, str]] = set()
    for bound, key, handle, wrapper in handles:
        if wrapper not in wrappers:
            continue
        head = bound.facts.symbols[bound.by_key[key]]
        own = _written_arguments(head.signature, head.name) or []
        base = _written_arguments(head.signature.split(":", 1)[-1], wrapper)
        for position, arg, line in _forwarded_position(bound, handle, wrapper, wrappers[wrapper]):
            if base is not None and len(base) > position and base[position] not in own:
                inner = {base[position]}
            elif base is not None or own:   # bound by each sender
                inner = {types[position] for sender in files if imports.get(sender.ctx.module)
                         and sender.ctx.microservice == bound.ctx.microservice for call in sender.facts.calls
                         if SENDS.get(call.name) is False and call.kind == "call" and call.args
                         and _argument_types(sender, call.owner, call.args[0].strip(), call.line, returns) == [wrapper]
                         for types in _sent_arguments(sender, call.owner, call.args[0].strip(), call.line, wrapper)
                         if len(types) > position}
            else:
                continue
            source = bound.ids[handle]
            for message in sorted(inner):
                targets = handlers.get((bound.ctx.microservice, message, False), [])
                if len(targets) == 1 and targets[0] != source and (source, targets[0]) not in drawn:
                    drawn.add((source, targets[0]))
                    yield make_edge(source, "TRIGGERS", targets[0], {"kind": "mediator", "message": message,
                                                                     "via": f"Send({arg})", "wrapped_in": wrapper,
                                                                     "line": line})


def mediator_edges(files: list[Bound]) -> Iterator[GraphEdge]:
    """The ``TRIGGERS`` edges of MediatR dispatch in the project's C# files (see the module docstring)."""
    imports: dict[str, bool] = {}
    for bound in files:
        if any(i.target == NAMESPACE or i.target.startswith(NAMESPACE + ".") for i in bound.facts.imports):
            imports[bound.ctx.module] = True
    if not imports:
        return
    handlers: dict[tuple[str, str, bool], list[str]] = {}   # (microservice, message type, notification) -> Handle
    handles: list[tuple[Bound, str, int, str]] = []   # each request handler: (file, type key, Handle, request type)
    derived = _derived_handlers(files)
    for bound in files:
        for key, bases in bound.facts.extra.get("generic_bases", {}).items():
            for base, types in bases:
                kind = (HANDLERS[_simple(base)], 0) if _simple(base) in HANDLERS else \
                    derived.get((_simple(base), len(types)))
                if kind is None or len(types) <= kind[1]:
                    continue
                handle = [m for m in bound.members(key) if bound.facts.symbols[m].name == "Handle"]
                if len(handle) == 1 and bound.facts.symbols[bound.by_key[key]].kind != "interface":
                    handlers.setdefault((bound.ctx.microservice, _simple(types[kind[1]]), kind[0]), []).append(
                        bound.ids[handle[0]])
                    if not kind[0]:
                        handles.append((bound, key, handle[0], _simple(types[kind[1]])))
    returns = _returns(files)
    yield from _domain_event_edges(files, imports, handlers, returns)
    yield from _forwarded_edges(files, imports, handlers, handles, returns)
    for bound in files:
        if not imports.get(bound.ctx.module):
            continue
        for call in bound.facts.calls:
            notification = SENDS.get(call.name)
            if notification is None or call.kind != "call" or not call.args or call.owner not in bound.by_key:
                continue
            source = bound.ids[bound.by_key[call.owner]]
            for message in _argument_types(bound, call.owner, call.args[0].strip(), call.line, returns):
                targets = handlers.get((bound.ctx.microservice, message, notification), [])
                if not targets or not notification and len(targets) != 1:
                    continue
                for target in dict.fromkeys(targets):
                    if target != source:
                        yield make_edge(source, "TRIGGERS", target, {"kind": "mediator", "message": message,
                                                                     "via": f"{call.name}({call.args[0]})",
                                                                     "line": call.line})
