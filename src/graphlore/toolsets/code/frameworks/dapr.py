"""Dapr service invocation from C# (the Dapr .NET SDK, in a file or project that uses the ``Dapr`` namespaces):
``daprClient.InvokeMethodAsync[<T>](HttpMethod.Get, "app-id", "method/path", ...)`` and
``daprClient.CreateInvokeMethodRequest(HttpMethod.Post, "app-id", "path", ...)`` (sent later with
``InvokeMethodAsync(request)``) are HTTP calls of ``http://<app-id>/<path>``: the caller's sidecar sends them to the
app of that Dapr app-id. Without an ``HttpMethod`` first the SDK sends a POST; an ``HttpMethod`` held by a
parameter or local leaves the method unknown, saying so. The app-id and path are folded as
written (constants, configuration); one not known leaves the client unresolved, saying so. A single argument (a
request made elsewhere, with or without a cancellation token) is no new call: its ``CreateInvokeMethodRequest`` is
the client.

``DaprClient.CreateInvokeHttpClient("app-id")``'s HttpClient is read with the other HttpClients (`aspnet`): its
base address is ``http://<app-id>``.

**Pub/sub** (broker ``dapr``, topic ``<pubsub component>/<topic>``: one topic name on two components is two
topics), in a file or project that uses the ``Dapr`` namespaces: ``daprClient.PublishEventAsync[<T>]("pubsub",
"topic", data)`` is a producer; a method with ``[Topic("pubsub", "topic")]`` and a minimal API endpoint with
``.WithTopic("pubsub", "topic")`` are listeners. A component or topic that does not fold leaves the item
unresolved, saying so. An event bus over Dapr that publishes each event on its type's name (a method whose
``PublishEventAsync`` topic is its parameter's ``GetType().Name``, directly or through a local) is no producer
itself: each call of that method (by name) with ``new T(..)`` (or a local made one) is a producer of
``<pubsub>/T``, carried by the bus method; a call passing its own parameter on is none (its callers are).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from ..languages.folding import Folded, known_text, literal
from ..languages.symbols import Bound
from ..services.dapr_sidecar import sidecar_topic
from ..services.endpoints import Item
from .aspnet import AspNet
from .base import Framework, Project, Reader, item
from .eventbus import EventBus, message_types

#: the SDK's calls that name an app and a method
INVOKE_CALLS = frozenset({"InvokeMethodAsync", "CreateInvokeMethodRequest"})
_VERB = re.compile(r"(?:System\.Net\.Http\.)?HttpMethod\.(Get|Post|Put|Delete|Patch|Head|Options)$")


_NEW_VERB = re.compile(r"""new\s+(?:System\.Net\.Http\.)?HttpMethod\(\s*"([A-Za-z]+)"\s*\)$""")


def _type_of(bound: Bound, owner: str, arg: str, line: int) -> str:
    """The type a parameter or local ``arg`` of ``owner`` is declared or made as by ``line`` (``HttpMethod``,
    ``~_dapr.CreateInvokeMethodRequest()``); "" when ``arg`` is no such name."""
    seen = bound.facts.locals.get(owner, {}).get(arg.strip(), [])
    return next((type_ for at, type_ in reversed(seen) if at <= line and type_ != "?"), "")


def _request_sent(bound: Bound, owner: str, args: list[str], line: int) -> bool:
    """Whether ``InvokeMethodAsync(request[, cancellationToken])`` sends a request made elsewhere: its first
    argument is an ``HttpRequestMessage`` (one ``CreateInvokeMethodRequest`` made) or its second a cancellation
    token, as the SDK's request overloads take (its ``(appId, methodName)`` overload takes two strings)."""
    first = _type_of(bound, owner, args[0], line) if args else ""
    second = args[1].strip() if len(args) > 1 else ""
    return (first.endswith(("HttpRequestMessage", "CreateInvokeMethodRequest()"))
            or second in ("default", "CancellationToken.None")
            or _type_of(bound, owner, second, line).endswith("CancellationToken"))


def _invocations(web: AspNet, bound: Bound) -> Iterator[Item]:
    for call in bound.facts.calls:
        if call.kind != "call" or call.name not in INVOKE_CALLS or call.owner not in bound.by_key:
            continue
        args = list(call.args)
        if call.argc <= 2 and _request_sent(bound, call.owner, args, call.line):
            continue   # the request's CreateInvokeMethodRequest is the call
        verb = (_VERB.match(args[0]) or _NEW_VERB.match(args[0])) if args else None
        # an HttpMethod held by a name: the method is the caller's choice, the app and path still follow it
        held = verb is None and bool(args) and _type_of(bound, call.owner, args[0], call.line).endswith("HttpMethod")
        method = verb.group(1).upper() if verb else None if held else "POST"
        named = args[1:3] if verb or held else args[:2]
        if len(named) < 2 or call.argc < (3 if verb or held else 2):
            continue   # InvokeMethodAsync(request): the request's CreateInvokeMethodRequest is the call
        class_key = call.owner.rpartition(".")[0]
        app = web.fold(bound.facts, named[0], class_key, call.owner, call.line)
        path = web.fold(bound.facts, named[1], class_key, call.owner, call.line)
        url = literal("http://") + app + literal("/") + path if not path.text.startswith("/") else \
            literal("http://") + app + path
        found = item(bound, bound.by_key[call.owner], "client", "dapr_invoke", call.line, http_method=method,
                     path=url, written=f"{named[0]}, {named[1]}")
        if not app.known:
            found.problems.append("the Dapr app-id it invokes is not known")
        if held:
            found.problems.append(f"its HTTP method is the value of {args[0]}: which one is not known")
        yield found


BROKER = "dapr"
PUBSUB = "dapr_pubsub"
PUBLISH = "PublishEventAsync"


def _uses_dapr(bound: Bound, module_imports: set[str]) -> bool:
    return any(n == "Dapr" or n.startswith("Dapr.") for n in
               {i.target for i in bound.facts.imports} | module_imports)


_NAMEOF = re.compile(r"nameof\(\s*(?:[\w.]+\.)?(\w+)\s*\)")


def _topic(web: AspNet, bound: Bound, args: list[str], owner: str | None, line: int) -> Folded:
    """``<pubsub>/<topic>`` as the arguments fold; ``nameof(T)`` is ``T``'s simple name, as C# gives it."""
    class_key = owner.rpartition(".")[0] if owner else ""
    pubsub, topic = (literal(named.group(1)) if (named := _NAMEOF.fullmatch(arg.strip())) else
                     web.fold(bound.facts, arg, class_key, owner, line) for arg in args[:2])
    return pubsub + literal("/") + topic


def _pubsub(web: AspNet, bound: Bound) -> Iterator[Item]:
    facts = bound.facts
    for index, sym in enumerate(facts.symbols):
        if sym.kind != "method":
            continue
        for annotation in sym.annotations:
            args = [value for key, value in annotation.args if key == ""]
            if annotation.name.rsplit(".", 1)[-1] in ("Topic", "TopicAttribute") and len(args) >= 2:
                yield _checked(item(bound, index, "route", PUBSUB, annotation.line or None, broker=BROKER,
                                    topic=_topic(web, bound, args, sym.key, sym.line_start),
                                    written=f"[Topic({', '.join(args[:2])})]"))
    for call in facts.calls:
        if call.kind != "call" or call.name not in (PUBLISH, "WithTopic") or call.argc < 2 or len(call.args) < 2:
            continue
        if call.name == PUBLISH and _type_named(bound, call.owner, call.args[1], call.line) is not None:
            continue   # the bus method: its callers are the producers (`_typed_producers`)
        owner = call.owner if call.owner in bound.by_key else None
        kind = "producer" if call.name == PUBLISH else "route"
        found = item(bound, bound.by_key[owner] if owner else -1, kind, PUBSUB, call.line, broker=BROKER,
                     topic=_topic(web, bound, list(call.args), owner, call.line),
                     written=f"{call.name}({', '.join(call.args[:2])})")
        yield _checked(found)


_TYPE_NAME = re.compile(r"@?(\w+)\.GetType\(\)\.Name")


def _type_named(bound: Bound, owner: str, arg: str, line: int) -> str | None:
    """The parameter of ``owner`` whose type's name ``arg`` is (``e.GetType().Name``, or a local assigned only
    that), else None."""
    index = bound.by_key.get(owner)
    params = {p for p, _ in bound.facts.symbols[index].params} if index is not None else set()
    named = _TYPE_NAME.fullmatch(arg.strip())
    if named is None and re.fullmatch(r"\w+", arg.strip()):
        values = [v for at, texts in bound.facts.extra.get("assigns", {}).get(owner, {}).get(arg.strip(), [])
                  if at <= line for v in texts]
        matched = [_TYPE_NAME.fullmatch(v.strip()) for v in values]
        found = {m.group(1) for m in matched if m}
        whole = values and all(matched) and len(found) == 1
        return next(iter(found)) if whole and next(iter(found)) in params else None
    return named.group(1) if named is not None and named.group(1) in params else None


def _bus_methods(web: AspNet, files: list[Bound], imports: dict[str, set[str]]) -> dict[str, list[tuple[str, Folded]]]:
    """Method name -> (its fqn, the pubsub component) of each method publishing on its parameter's type name."""
    out: dict[str, list[tuple[str, Folded]]] = {}
    for bound in files:
        if not _uses_dapr(bound, imports.get(bound.ctx.module, set())):
            continue
        for call in bound.facts.calls:
            if call.kind == "call" and call.name == PUBLISH and len(call.args) >= 2 and call.owner in bound.by_key \
                    and _type_named(bound, call.owner, call.args[1], call.line) is not None:
                index = bound.by_key[call.owner]
                pubsub = web.fold(bound.facts, call.args[0], call.owner.rpartition(".")[0], call.owner, call.line)
                out.setdefault(bound.facts.symbols[index].name, []).append((bound.fqns[index], pubsub))
    return out


def _typed_producers(bus: EventBus, methods: dict[str, list[tuple[str, Folded]]], bound: Bound) -> Iterator[Item]:
    seen: set[tuple[str, str]] = set()
    for call in bound.facts.calls:
        if call.kind != "call" or call.name not in methods or not call.args or call.argc != 1:
            continue
        pubsubs = {p.text: p for _, p in methods[call.name]}
        carriers = tuple(sorted(fqn for fqn, _ in methods[call.name]))
        topics = message_types(bus, bound, call.owner, call.args[0].strip(), call.line)
        for topic in topics or []:
            for pubsub in pubsubs.values():
                if (call.owner, pubsub.text + topic.text) in seen:
                    continue
                seen.add((call.owner, pubsub.text + topic.text))
                yield _checked(item(bound, bound.by_key.get(call.owner, -1), "producer", PUBSUB, call.line,
                                    broker=BROKER, topic=pubsub + literal("/") + topic,
                                    written=f"{call.name}({call.args[0]})", carried_by=carriers))


def _checked(found: Item) -> Item:
    if found.topic is not None and not found.topic.known:
        found.problems.append("the Dapr pub/sub component or topic is not known")
    return found


def sidecar_publishes(items: list[Item]) -> list[Item]:
    """Each HTTP client that posts to a Dapr sidecar's publish API (``/v1.0/publish/<pubsub>/<topic>``, from any
    language) made the producer of ``<pubsub>/<topic>`` it is (`services.dapr_sidecar`; where the sidecar is, its
    host and port, is then no part of what it does); the other items as they are."""
    out = []
    for found in items:
        url = (found.base_url or "") + found.path.text if found.kind == "client" and found.path is not None else ""
        topic = sidecar_topic(url) if "/publish/" in url else None
        if topic is None or found.http_method not in (None, "POST"):
            out.append(found)
            continue
        value = Folded(topic, known_text(topic), found.path.why if found.path is not None else ())
        out.append(_checked(replace(found, kind="producer", flavor=PUBSUB, broker=BROKER, topic=value, path=None,
                                    http_method=None, base_url=None, target=None, target_source="",
                                    problems=[] if value.known else list(found.problems))))
    return out


def prepare(files: list[Bound], project: Project) -> Reader:
    web = AspNet(files, project)
    imports: dict[str, set[str]] = {}
    for bound in files:   # a project's global usings apply to each of its files
        imports.setdefault(bound.ctx.module, set()).update(
            i.target for i in bound.facts.imports if i.names == (("*", "*"),))

    methods = _bus_methods(web, files, imports)
    bus = EventBus(files) if methods else None

    def read(bound: Bound) -> Iterator[Item]:
        if _uses_dapr(bound, imports.get(bound.ctx.module, set())):
            yield from _invocations(web, bound)
            yield from _pubsub(web, bound)
        if bus is not None:
            yield from _typed_producers(bus, methods, bound)

    return read


FRAMEWORK = Framework("dapr", ("csharp",), prepare)
