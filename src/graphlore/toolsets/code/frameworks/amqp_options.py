"""AMQP endpoints named through Go functional options: a shared publisher or consumer type of the project whose
library calls read its own fields (``ch.PublishWithContext(ctx, p.exchangeName, p.bindingKey, ...)``,
``ch.Consume(c.queueName, ...)``, ``ch.QueueBind(q.Name, c.bindingKey, c.exchangeName, ...)``), and option
functions of its package that each set one field from their one parameter (``func ExchangeName(n string) Option {
return func(p *publisher) { p.exchangeName = n } }``).

A call whose every argument is an option call of one such package (``pub.Configure(publisher.ExchangeName("x"),
publisher.BindingKey("y"))``) configures one endpoint: a producer when the options set the fields the package
publishes with, a consumer (one listener route per binding and one for its queue, as `frameworks.amqp` reads
them) when they set the field it consumes from, at the configuring call, in the calling service. A field the call
does not set is not known there (the shared code's default is not assumed: another call may have set it). The
shared send and consume sites are still read as they are (`frameworks.amqp`).

A producer configured on a receiver of a project type (``a.BaristaOrderPub.Configure(...)``, the field typed
``orders.BaristaEventPublisher``) sends where the service calls that type's send method (the name of the shared
method that publishes, ``Publish``) on a receiver of the same type (``uc.baristaEventPub.Publish(...)`` in a use
case): one producer at each such call, in the calling function, as a client is where its request is sent. When
no such call is found, or the service configures two producers on receivers of that type, or one on a receiver
whose type is not known (a constructor given the options), which one a call sends through is not known: the
producer stays at the configuring call.

A consumer's handler is the function the same function hands to the configured receiver
(``a.Consumer.Configure(...)``, then ``a.Consumer.StartConsumer(a.Worker)``): the one project function or method
named by an argument of a later call on that receiver. None, or several, leave the configuring function as the
handler (no guess).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..languages.folding import Folded, literal, unknown
from ..languages.symbols import Bound
from ..model import CallFact
from ..services.endpoints import Item
from .base import dotted, item
from .golang import GoProject

_OPTION_CALL = re.compile(r"^(\w+)\.(\w+)\((.*)\)$", re.S)
_FIELD = re.compile(r"^\w+\.(\w+)$")

Fold = Callable[[Bound, CallFact, str | None], Folded]
Handler = Callable[[Bound, str, str, int], "tuple[Bound, int] | None"]


@dataclass
class Shared:
    """What one package's library calls read from its own fields."""

    sends: list[tuple[str | None, str]] = field(default_factory=list)   # (exchange field, None: ""), key field
    consumes: str | None = None                                         # the queue field
    binds: list[tuple[str, str, str]] = field(default_factory=list)     # (queue, exchange, key) fields
    senders: set[str] = field(default_factory=set)                      # the methods that publish (``Publish``)


class Options:
    """The project's option functions and the shared AMQP code they configure (see the module docstring)."""

    def __init__(self, files: list[Bound], uses: Callable[[Bound], bool], publish: dict, consume: dict,
                 bind: dict) -> None:
        #: (package, function) -> the field it sets
        self.setters: dict[tuple[str, str], str] = {}
        self.shared: dict[str, Shared] = {}
        self.files = [b for b in files if b.facts.language == "go" and not b.facts.extra.get("build_excluded")]
        #: (microservice, receiver type or None) -> how many producer-configuring calls (made at the first `read`)
        self._configured: dict[tuple[str, tuple[str, str] | None], int] | None = None
        for bound in files:
            if bound.facts.language != "go":
                continue
            package = bound.ctx.module_name
            params = {s.key: [p for p, _ in s.params] for s in bound.facts.symbols if s.kind == "function"}
            for owner, table in bound.facts.extra.get("assigns", {}).items():
                if len(params.get(owner, ())) != 1:
                    continue
                for target, entries in table.items():
                    if "." in target and any(exprs == params[owner] for _, exprs in entries):
                        self.setters[(package, owner)] = target.rsplit(".", 1)[1]
            if uses(bound):
                self._shared(bound, publish, consume, bind)

    def _shared(self, bound: Bound, publish: dict, consume: dict, bind: dict) -> None:
        shared = self.shared.setdefault(bound.ctx.module_name, Shared())
        for call in bound.facts.calls:
            if call.name in publish:
                exchange_at, key_at = publish[call.name][1]
                exchange = _field(call, exchange_at) if exchange_at is not None else ""
                key = _field(call, key_at)
                if key and exchange is not None:
                    shared.sends.append((exchange or None, key))
                    shared.senders.add((call.owner or "").rsplit(".", 1)[-1])
            elif call.name in consume:
                shared.consumes = _field(call, 0, bound) or shared.consumes
            elif call.name in bind:
                queue_at, exchange_at, key_at = bind[call.name]
                parts = (_field(call, queue_at, bound), _field(call, exchange_at), _field(call, key_at))
                if all(parts):
                    shared.binds.append(parts)   # type: ignore[arg-type]

    def configured(self, bound: Bound, call: CallFact, fold: Fold) -> tuple[str, dict[str, Folded]] | None:
        """(package, field -> value) when every argument of ``call`` is an option call of one package."""
        if not call.args:
            return None
        package, values = None, {}
        for arg in call.args:
            match = _OPTION_CALL.match(arg.strip())
            target = _qualifier(bound, match.group(1)) if match else None
            setter = self.setters.get((target or "", match.group(2))) if match else None
            if setter is None or package not in (None, target):
                return None
            package = target
            values[setter] = fold(bound, call, match.group(3))
        return (package, values) if package in self.shared else None

    def read(self, bound: Bound, fold: Fold, go: GoProject | None = None) -> Iterator[Item]:
        by_key = {sym.key: index for index, sym in enumerate(bound.facts.symbols)}
        for call in bound.facts.calls:
            found = self.configured(bound, call, fold)
            if found is None:
                continue
            package, values = found
            shared = self.shared[package]
            owner = by_key.get(call.owner, -1)
            written = ", ".join(call.args)
            if any(key in values or exchange in values for exchange, key in shared.sends):
                sites = self._sends(bound, call, shared, go, fold) if go is not None else []
                for exchange, key in shared.sends:
                    ex = _value(call, values, exchange)
                    topic = _value(call, values, key)
                    topic = topic if ex.known and ex.text == "" else ex + literal("/") + topic
                    for at, index, line in sites or [(bound, owner, call.line)]:
                        yield item(at, index, "producer", "amqp_go", line, broker="rabbit", topic=topic,
                                   written=written)
            if shared.consumes is not None and shared.consumes in values:
                queue = _value(call, values, shared.consumes)
                topics = [_value(call, values, e) + literal("/") + _value(call, values, k)
                          for q, e, k in shared.binds if q == shared.consumes]
                handed = _handed(bound, call, go.handler) if go is not None else None
                for topic in {t.text: t for t in [*topics, queue]}.values():
                    found = item(bound, owner, "route", "amqp_go", call.line, broker="rabbit", topic=topic,
                                 written=written)
                    if handed is not None:   # the route stays where its queue is named; its handler is handed
                        found.owner, found.owner_fqn = handed[0].ids[handed[1]], handed[0].fqns[handed[1]]
                    yield found

    def _sends(self, bound: Bound, call: CallFact, shared: Shared, go: GoProject,
               fold: Fold) -> list[tuple[Bound, int, int]]:
        """(file, calling symbol, line) of each call of the configured type's send method in the service (see the
        module docstring); none when the receiver's type is not known or not the service's only one."""
        typed = go.type_of(bound, call.owner, call.receiver, call.line) if call.receiver else None
        counts = self._configurations(go, fold)
        service = bound.ctx.microservice
        if typed is None or counts.get((service, typed), 0) != 1 or counts.get((service, None), 0):
            return []   # another producer of that type, or one whose type is not known, may be the one sending
        sites = []
        for other in self.files:
            if other.ctx.microservice != bound.ctx.microservice:
                continue
            by_key = {sym.key: index for index, sym in enumerate(other.facts.symbols)}
            for send in other.facts.calls:
                if send.name in shared.senders and send.receiver and send.owner in by_key \
                        and go.type_of(other, send.owner, send.receiver, send.line) == typed:
                    sites.append((other, by_key[send.owner], send.line))
        return sites

    def _configurations(self, go: GoProject, fold: Fold) -> dict[tuple[str, tuple[str, str] | None], int]:
        """How many producer-configuring calls each service makes on receivers of each project type (None: of a
        type not known, such as a constructor given the options)."""
        if self._configured is None:
            self._configured = {}
            for bound in self.files:
                for call in bound.facts.calls:
                    found = self.configured(bound, call, fold)
                    sends = self.shared[found[0]].sends if found is not None else []
                    if found is None or not any(k in found[1] or e in found[1] for e, k in sends):
                        continue
                    typed = go.type_of(bound, call.owner, call.receiver, call.line) if call.receiver else None
                    slot = (bound.ctx.microservice, typed)
                    self._configured[slot] = self._configured.get(slot, 0) + 1
        return self._configured


def _handed(bound: Bound, call: CallFact, handler: Handler) -> tuple[Bound, int] | None:
    """The one project function a later call on ``call``'s receiver is handed (see the module docstring)."""
    receiver = dotted(call.receiver) if call.receiver else ""
    if not receiver:
        return None
    found = {}
    for later in bound.facts.calls:
        if later.owner != call.owner or later.line <= call.line or not later.receiver \
                or dotted(later.receiver) != receiver:
            continue
        for arg in later.args:
            named = handler(bound, call.owner, arg, later.line)
            if named is not None:
                found[(named[0].path, named[1])] = named
    return next(iter(found.values())) if len(found) == 1 else None


def _value(call: CallFact, values: dict[str, Folded], name: str | None) -> Folded:
    """A field's value as a configuring call sets it (None: the default exchange ``""``)."""
    if name is None:
        return literal("")
    return values.get(name) or unknown(f"this {call.name}(...) call does not set {name}")


def _field(call: CallFact, at: int, bound: Bound | None = None) -> str | None:
    """The receiver field an argument names (``p.exchangeName`` -> ``exchangeName``); ``q.Name`` of a queue the same
    function declares from a field is that field."""
    if at >= len(call.args):
        return None
    arg = call.args[at].strip()
    if bound is not None and arg.endswith(".Name"):
        declared = [c for c in bound.facts.calls if c.owner == call.owner and c.name == "QueueDeclare" and c.args]
        arg = declared[0].args[0].strip() if len(declared) == 1 else arg
    match = _FIELD.match(arg)
    return match.group(1) if match and match.group(1) != "Name" else None


def _qualifier(bound: Bound, name: str) -> str | None:
    for imp in bound.facts.imports:
        for target, alias in imp.names:
            if alias == name:
                return target
    return None
