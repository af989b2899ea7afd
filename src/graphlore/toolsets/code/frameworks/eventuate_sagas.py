"""Eventuate Tram sagas in Java: what starts a saga, and which command endpoints its steps send. ``TRIGGERS`` edges
(never ``CALLS``: the saga orchestrator runs the steps; no call in the code names them).

**A saga starts** where a ``SagaInstanceFactory``'s ``create(saga, data)`` is called (on a receiver declared of that
type: a field, a parameter or a local) with a first argument declared of a project class that implements
``SimpleSaga<..>`` or ``Saga<..>`` (resolved as javac does, `command_bus._Types`; a type another project class
extends is not known to be the object's class, so no edge). The edge goes from the caller to each symbol of that
class that defines its steps (holds a ``step()``, ``invokeParticipant``, ``notifyParticipant``, ``invokeLocal``
or ``withCompensation`` call: the constructor or the method that builds the saga definition). Props: ``kind:
saga_start``, ``saga`` (the class's simple name), ``via``, ``line``.

**A saga step sends a command endpoint's command**: ``invokeParticipant(proxy.endpoint, ..)``,
``notifyParticipant(..)`` or ``withCompensation(..)`` whose first argument is a field of a project class
(``proxy`` declared of that class: a field, a parameter or a local of the step's symbol) declared of type
``CommandEndpoint``: the edge goes from the step's symbol to that field, which declares the endpoint's producer
(`frameworks.eventuate`); the channel is the endpoint's, so the link to the participant's command handler is the
producer's. Props: ``kind: saga_step``, ``via``, ``line``. A step that builds its command in place
(``.step().invokeParticipant(this::reserve)``, ``send(cmd).to(channel)``) is a producer of its own already.

Not read: ``SagaManager<Data>.create(data)`` (the older API names no saga class, only its data type).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.symbols import Bound
from ..model import GraphEdge, make_edge
from .command_bus import _declared, _is_a, _qualified, _receiver_type, _simple, _Types

PACKAGE = "io.eventuate"
FACTORY = "SagaInstanceFactory"
SAGA_TYPES = frozenset({"SimpleSaga", "Saga"})
ENDPOINT_TYPE = "CommandEndpoint"
#: the saga DSL calls that define steps, and those whose first argument is the endpoint a step sends
DEFINING = frozenset({"step", "invokeParticipant", "notifyParticipant", "invokeLocal", "withCompensation"})
SENDING = frozenset({"invokeParticipant", "notifyParticipant", "withCompensation"})
_FIELD_ARG = re.compile(r"^(?:this\.)?(\w+)\.(\w+)$")


def _uses_eventuate(bound: Bound) -> bool:
    return any(imp.target.startswith(PACKAGE) for imp in bound.facts.imports)


def saga_edges(files: list[Bound]) -> Iterator[GraphEdge]:
    """The ``TRIGGERS`` edges of Eventuate Tram sagas in the project's Java files (see the module docstring)."""
    if not any(_uses_eventuate(b) for b in files):
        return
    types = _Types(files)
    by_type: dict[str, tuple[Bound, str]] = {}   # qualified class name -> (its file, its key)
    supers: dict[str, set[str]] = {}
    for bound in files:
        for sym in bound.facts.symbols:
            if sym.kind in ("class", "interface"):
                own = _qualified(bound, sym.key)
                by_type[own] = (bound, sym.key)
                supers.setdefault(own, set()).update(found for _, w in sym.supers if (found := types.fqn(bound, w)))
    yield from _starts(files, types, by_type, supers)
    yield from _steps(files, types, by_type)


def _sagas(by_type: dict[str, tuple[Bound, str]]) -> dict[str, list[str]]:
    """saga class -> the ids of its symbols that define its steps."""
    out: dict[str, list[str]] = {}
    for name, (bound, key) in by_type.items():
        sym = bound.facts.symbols[bound.by_key[key]]
        if sym.kind != "class" or not _uses_eventuate(bound) or not any(_simple(w) in SAGA_TYPES for _, w in sym.supers):
            continue
        own = {key} | {bound.facts.symbols[m].key for m in bound.members(key)}
        holders = sorted({c.owner for c in bound.facts.calls if c.name in DEFINING and c.owner in own})
        if holders:
            out[name] = [bound.ids[bound.by_key[h]] for h in holders if h in bound.by_key]
    return out


def _starts(files, types: _Types, by_type, supers) -> Iterator[GraphEdge]:
    sagas = _sagas(by_type)
    if not sagas:
        return
    for bound in files:
        if not _uses_eventuate(bound):
            continue
        for call in bound.facts.calls:
            if call.kind != "call" or call.name != "create" or not call.args or call.owner not in bound.by_key:
                continue
            if _simple(_receiver_type(bound, call) or "") != FACTORY:
                continue
            arg = call.args[0].strip().removeprefix("this.")
            written = _declared(bound, call.owner, arg, call.line) if re.fullmatch(r"\w+", arg) else None
            saga = types.fqn(bound, written)
            if saga not in sagas or any(other != saga and _is_a(other, saga, supers) for other in supers):
                continue   # not a project saga, or one a subclass may stand for: the object's class is not known
            source = bound.ids[bound.by_key[call.owner]]
            for target in sagas[saga]:
                if target != source:
                    yield make_edge(source, "TRIGGERS", target, {
                        "kind": "saga_start", "saga": saga.rsplit(".", 1)[-1],
                        "via": f"{call.name}({call.args[0]})", "line": call.line})


def _steps(files, types: _Types, by_type) -> Iterator[GraphEdge]:
    for bound in files:
        if not _uses_eventuate(bound):
            continue
        for call in bound.facts.calls:
            if call.name not in SENDING or not call.args or call.owner not in bound.by_key:
                continue
            found = _FIELD_ARG.match(call.args[0].strip())
            if not found:
                continue
            holder, field = found.groups()
            owner_type = types.fqn(bound, _declared(bound, call.owner, holder, call.line))
            if owner_type not in by_type:
                continue
            where, key = by_type[owner_type]
            index = where.by_key.get(f"{key}#{field}")
            if index is None or where.facts.symbols[index].kind != "field" \
                    or _simple(where.facts.symbols[index].type) != ENDPOINT_TYPE:
                continue
            yield make_edge(bound.ids[bound.by_key[call.owner]], "TRIGGERS", where.ids[index], {
                "kind": "saga_step", "via": f"{call.name}({call.args[0]})", "line": call.name_line or call.line})
