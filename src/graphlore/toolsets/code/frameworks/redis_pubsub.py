"""Redis pub/sub in C# (StackExchange.Redis): ``Publish``/``PublishAsync`` of a channel are producers,
``Subscribe``/``SubscribeAsync`` of one listener routes (broker ``redis``, the channel as the topic), read in files
that import the library. A call counts only on a value that is a subscriber or database: ``x.GetSubscriber()``
(``GetDatabase()``) written as its receiver, or a local, field or parameter made by one or declared
``ISubscriber``/``IDatabase``/``IDatabaseAsync`` (MediatR's ``Publish`` is not one).

The channel is ``RedisChannel.Literal(x)``, ``RedisChannel.Pattern(x)`` (a glob), ``new RedisChannel(x,
RedisChannel.PatternMode.Literal|Pattern|Auto)`` or a string (``Auto``: a glob when it holds ``*``, ``?`` or
``[``), folded as a topic: ``$"ticket:{id}"`` is ``ticket:{?:id}``, a channel of run-time parts. A subscription
may be made on a member (``Subscribe(_channel.Value, OnMessage)``, in the setter of a property that keeps it): the
listener is then each method of the class or of a class deriving from it (a Blazor component's ``@inherits``) that
assigns the property a channel, as in ``Channel = RedisChannel.Literal($"order:{OrderId}")`` in
``OnParametersSetAsync``; where none does, the subscribing method stands, its channel unknown. A member is a field or
property the class (or a base) declares: a local of the same name in some method, or the subscribing method's own
parameter, is never taken for one (a channel is not guessed from a name).

Links (`services.links.redis_channel_reaches`): a publish reaches a subscription of the same channel; run-time
parts match run-time parts at the same place (``ticket:{?:id}`` reaches ``ticket:{?:TicketId}``: one family of
channels), and a pattern subscription matches by Redis's glob (``ticket:*`` is reached by ``ticket:{?:id}``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import split_top, unknown
from ..languages.symbols import Bound
from ..model import CallFact
from ..services.endpoints import Item
from .base import Framework, Project, Reader, declared_type, item
from .kafka import KafkaFolders

LIBRARY = "StackExchange.Redis"
FLAVOR, PATTERN_FLAVOR = "redis_pubsub", "redis_pattern"
_PUBLISH, _SUBSCRIBE = {"Publish", "PublishAsync"}, {"Subscribe", "SubscribeAsync"}
_MAKERS = {"GetSubscriber", "GetDatabase"}
_TYPES = {"ISubscriber", "IDatabase", "IDatabaseAsync"}
_CHANNEL = re.compile(r"^(?:StackExchange\.Redis\.)?RedisChannel\.(Literal|Pattern)\s*\((.*)\)$", re.S)
_NEW_CHANNEL = re.compile(r"^new\s+(?:StackExchange\.Redis\.)?RedisChannel\s*\((.*)\)$", re.S)
_GLOB = re.compile(r"[*?\[]")
_MEMBER = re.compile(r"^(?:this\.)?([A-Za-z_]\w*)(?:\.Value)?$")
#: (class name, member) -> (file, a call standing for the assignment, the channel expression assigned)
Assigners = dict[tuple[str, str], list[tuple[Bound, CallFact, str]]]


def _uses(bound: Bound) -> bool:
    return any(imp.target == LIBRARY or imp.target.startswith(LIBRARY + ".") for imp in bound.facts.imports)


def channel_of(written: str) -> tuple[str, bool]:
    """The channel expression inside ``written`` and whether it is a glob pattern."""
    text = written.strip()
    made = _CHANNEL.match(text)
    if made:
        return made.group(2).strip(), made.group(1) == "Pattern"
    made = _NEW_CHANNEL.match(text)
    if made:
        args = split_top(made.group(1))
        mode = args[1].strip() if len(args) > 1 else "Auto"
        inner = args[0].strip() if args else ""
        if mode.endswith("Pattern"):
            return inner, True
        if mode.endswith("Literal"):
            return inner, False
        text = inner
    return text, text.startswith(('"', '@"', '$"')) and bool(_GLOB.search(text))


def _is_redis_value(bound: Bound, call: CallFact) -> bool:
    receiver = call.receiver
    if not receiver:
        return False
    if receiver[0] == "call":
        return receiver[2] in _MAKERS
    if receiver[0] not in ("name", "field"):
        return False
    name = receiver[-1]
    typed = declared_type(bound, call.owner, name, call.line).lstrip("~")
    if re.sub(r"<.*$", "", typed).rsplit(".", 1)[-1] in _TYPES:
        return True
    assigns = bound.facts.extra.get("assigns", {})
    index = bound.by_key.get(call.owner)
    # a property accessor's locals are the class's (the accessor is no symbol of its own)
    accessor = index is not None and bound.facts.symbols[index].kind == "field"
    owners = (call.owner, bound.facts.symbols[index].parent or "") if accessor else (call.owner,)
    made = [entry for owner in owners for entry in assigns.get(owner, {}).get(name, [])]
    return any(re.search(r"\.(?:GetSubscriber|GetDatabase)\s*\(", v) for _, values in made for v in values)


class RedisReader:
    """The pub/sub items of one file (see the module docstring)."""

    def __init__(self, folders: KafkaFolders, bound: Bound, assigners: Assigners) -> None:
        self.folders, self.bound, self.assigners = folders, bound, assigners
        self.by_key = {sym.key: index for index, sym in enumerate(bound.facts.symbols)}

    def make(self, bound: Bound, call: CallFact, owner: str, role: str, written: str | None,
             line: int | None = None) -> Item:
        by_key = {sym.key: index for index, sym in enumerate(bound.facts.symbols)}
        if written is None:
            return item(bound, by_key.get(owner, -1), role, FLAVOR, line or call.line, broker="redis",
                        topic=unknown(f"{call.name}(...) names no channel here"), written="")
        expr, pattern = channel_of(written)
        topic = self.folders.fold(bound, call, expr)
        return item(bound, by_key.get(owner, -1), role, PATTERN_FLAVOR if pattern and role == "route" else FLAVOR,
                    line or call.line, broker="redis", topic=topic, written=written.strip())

    def read(self) -> Iterator[Item]:
        for call in self.bound.facts.calls:
            if call.kind != "call" or call.name not in _PUBLISH | _SUBSCRIBE or not call.args or \
                    not _is_redis_value(self.bound, call):
                continue
            if call.name in _PUBLISH:
                if len(call.args) >= 2:
                    yield self.make(self.bound, call, call.owner, "producer", call.args[0])
                continue
            yield from self.subscription(call)

    def subscription(self, call: CallFact) -> Iterator[Item]:
        member = _MEMBER.match(call.args[0].strip())
        index = self.by_key.get(call.owner)
        if member and index is not None and not call.args[0].strip().startswith("this.") and any(
                name == member.group(1) for name, _ in self.bound.facts.symbols[index].params):
            member = None   # the subscribing method's own parameter: its callers give the channel, no member
        given = self.assigners.get((self.class_of(call.owner), self.kept_by(call, member.group(1))), []) \
            if member else []
        if not given:
            yield self.make(self.bound, call, call.owner, "route", call.args[0])
            return
        for bound, at, written in given:
            yield self.make(bound, at, at.owner, "route", written, at.line)

    def class_of(self, key: str) -> str:
        index = self.by_key.get(key)
        while index is not None and self.bound.facts.symbols[index].kind not in ("class", "record", "struct"):
            parent = self.bound.facts.symbols[index].parent
            index = self.by_key.get(parent) if parent else None
        return self.bound.facts.symbols[index].name if index is not None else ""

    def kept_by(self, call: CallFact, name: str) -> str:
        """The property a member is the backing field of, where the subscribing setter keeps ``value`` in it
        (``set { _channel = value; ... Subscribe(_channel.Value, ..) }``); else the member itself."""
        owner = self.by_key.get(call.owner)
        if owner is None or self.bound.facts.symbols[owner].kind != "field":
            return name
        prop = self.bound.facts.symbols[owner]
        assigns = self.bound.facts.extra.get("assigns", {})
        kept = [v for key in (prop.key, prop.parent or "") for line, values in assigns.get(key, {}).get(name, [])
                if prop.line_start <= line <= prop.line_end for v in values]
        return prop.name if kept and all(v.strip() == "value" for v in kept) else name


def _assigners(files: list[Bound]) -> Assigners:
    """(class key, member) -> each place a method of that class or of one deriving from it (by simple name, any
    depth) assigns the member a channel made there (``RedisChannel.Literal(..)``, ``.Pattern(..)``, ``new
    RedisChannel(..)``), with a call fact standing for the assignment (its owner and line)."""
    supers: dict[str, set[str]] = {}
    for bound in files:
        for sym in bound.facts.symbols:
            if sym.kind in ("class", "record", "struct"):
                supers.setdefault(sym.name, set()).update(re.sub(r"<.*$", "", n).rsplit(".", 1)[-1]
                                                           for _, n in sym.supers)

    def bases(name: str) -> set[str]:
        seen, todo = set(), [name]
        while todo:
            for base in supers.get(todo.pop(), ()):
                if base not in seen:
                    seen.add(base)
                    todo.append(base)
        return seen | {name}

    declared: dict[str, set[str]] = {}   # class name -> its fields and properties
    for bound in files:
        names = {sym.key: sym for sym in bound.facts.symbols}
        for sym in bound.facts.symbols:
            parent = names.get(sym.parent or "")
            if sym.kind in ("field", "property") and parent is not None and parent.kind in ("class", "record", "struct"):
                declared.setdefault(parent.name, set()).add(sym.name)

    out: Assigners = {}
    for bound in files:
        names = {sym.key: sym for sym in bound.facts.symbols}
        for owner, members in bound.facts.extra.get("assigns", {}).items():
            sym = names.get(owner)
            if sym is None or sym.kind != "method":
                continue
            cls = names.get(sym.parent or "")
            for member, made in members.items():
                if not any(member.removeprefix("this.") in declared.get(base, ()) for base in bases(cls.name if cls
                                                                                                   else "")):
                    continue   # a local of the method (``var channel = ..``), no member a subscription keeps
                for line, values in made:
                    for value in values:
                        if _CHANNEL.match(value.strip()) or _NEW_CHANNEL.match(value.strip()):
                            stand = CallFact(owner=owner, name="Subscribe", receiver=None, argc=1, line=line, args=(value,))
                            for base in bases(cls.name if cls else ""):
                                out.setdefault((base, member.removeprefix("this.")), []).append(
                                    (bound, stand, value))
    return out


def prepare(files: list[Bound], project: Project) -> Reader:
    folders = KafkaFolders(files, project)
    using = [b for b in files if project.memo.get("redis_pubsub", b, _uses)]
    assigners = _assigners(files) if using else {}

    def read(bound: Bound) -> Iterator[Item]:
        if not project.memo.get("redis_pubsub", bound, _uses):
            return iter(())
        return RedisReader(folders, bound, assigners).read()

    return read


FRAMEWORK = Framework("redis_pubsub", ("csharp",), prepare)
