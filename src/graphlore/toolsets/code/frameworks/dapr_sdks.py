"""Dapr from its SDKs for Python, Go, JavaScript/TypeScript and Java (C#'s is `dapr`), in files that import the
SDK (``dapr``, ``github.com/dapr/go-sdk``, ``@dapr/dapr`` or ``dapr-client``, ``io.dapr``), as Dapr's docs write
them. Requests through the sidecar's HTTP API by URL are read with the other HTTP clients (`services.dapr_sidecar`).

**Service invocation** is an HTTP call of ``http://<app-id>/<method>`` (the caller's sidecar sends it to the app of
that app-id; `dapr` reads C#'s), flavor ``dapr_invoke``:
Python ``DaprClient().invoke_method(app_id, method_name, ..., http_verb="GET")`` (and ``invoke_method_async``;
POST when no verb is written, as Dapr sends); Go ``client.InvokeMethod(ctx, appID, method, verb)``,
``InvokeMethodWithContent`` and ``InvokeMethodWithCustomContent``; JS ``client.invoker.invoke(appId, method,
HttpMethod.POST, data)`` (GET when no method is written, the SDK's default); Java ``client.invokeMethod(appId,
method, data, HttpExtension.POST, ...)`` (``HttpExtension.NONE`` is POST; the verb not known when no
``HttpExtension.X`` is among its first six arguments: every route of the path fits).

**Pub/sub** (broker ``dapr``, topic ``<pubsub component>/<topic>``, as `dapr`'s): producers are Python
``publish_event(pubsub_name, topic_name, data)``, Go ``PublishEvent(ctx, pubsub, topic, data)``, JS
``client.pubsub.publish(pubsub, topic, data)`` and Java ``publishEvent(pubsub, topic, data)``; listeners are a
Python function decorated ``@app.subscribe(pubsub=.., topic=..)`` (dapr-ext-grpc's ``pubsub_name=``, the
FastAPI and Flask extensions' ``pubsub=``), a Java method annotated ``@Topic(name = .., pubsubName = ..)``, JS
``server.pubsub.subscribe(pubsub, topic, handler)`` (the function that subscribes) and Go
``service.AddTopicEventHandler(&common.Subscription{PubsubName: .., Topic: ..}, handler)`` (the handler, when it
is a function of the file). Values fold as URLs do (constants, locals, environment reads); one that does not
leaves the item unresolved, saying so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import Folded, literal, unknown
from ..languages.symbols import Bound
from ..model import CallFact
from ..services.endpoints import HTTP_METHODS, Item
from .base import Framework, Project, Reader, item
from .dapr import BROKER, PUBSUB, _checked
from .kafka import KafkaFolders

#: the SDK's import names, by language
LIBRARIES = {"python": ("dapr",), "go": ("github.com/dapr/go-sdk",), "java": ("io.dapr",), "kotlin": ("io.dapr",),
             "javascript": ("@dapr/dapr", "dapr-client"), "typescript": ("@dapr/dapr", "dapr-client")}
#: per language: the invoke calls, the verb when none is written (None: not known)
INVOKE = {"python": ({"invoke_method", "invoke_method_async"}, "POST"),
          "go": ({"InvokeMethod", "InvokeMethodWithContent", "InvokeMethodWithCustomContent"}, None),
          "javascript": ({"invoke"}, "GET"), "typescript": ({"invoke"}, "GET"),
          "java": ({"invokeMethod"}, None), "kotlin": ({"invokeMethod"}, None)}
PUBLISH = {"python": {"publish_event"}, "go": {"PublishEvent", "PublishEventfromCustomContent"},
           "javascript": {"publish"}, "typescript": {"publish"}, "java": {"publishEvent"}, "kotlin": {"publishEvent"}}
_KEYWORD = re.compile(r"^(\w+)\s*=(?!=)\s*(.*)$", re.S)
_JAVA_VERB = re.compile(r"HttpExtension\.(\w+)$")
_JS_VERB = re.compile(r"HttpMethod\.(\w+)$")
_GO_FIELD = r"\b{}\s*:\s*([^,}}]+)"


def _uses(bound: Bound) -> bool:
    return any(imp.target == lib or imp.target.startswith((lib + ".", lib + "/"))
               for lib in LIBRARIES.get(bound.facts.language, ()) for imp in bound.facts.imports)


def _split(args: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
    """Positional arguments and keyword ones (Python's ``name=value``)."""
    positional, keywords = [], {}
    for arg in args:
        named = _KEYWORD.match(arg.strip())
        if named:
            keywords[named.group(1)] = named.group(2)
        else:
            positional.append(arg)
    return positional, keywords


def _last_field(receiver) -> str:
    return receiver[-1] if isinstance(receiver, list) and receiver and receiver[0] == "field" else ""


class DaprReader:
    """Reads one file's Dapr SDK calls and subscriptions (see the module docstring)."""

    def __init__(self, folders: KafkaFolders, bound: Bound) -> None:
        self.folders, self.bound, self.language = folders, bound, bound.facts.language

    def fold(self, call: CallFact, expr: str | None, what: str) -> Folded:
        if expr is None:
            return unknown(f"{call.name}(...) names no {what} here")
        return self.folders.fold(self.bound, call, expr)

    def read(self) -> Iterator[Item]:
        invoke, default = INVOKE.get(self.language, (set(), None))
        for call in self.bound.facts.calls:
            if call.kind != "call":
                continue
            if call.name in invoke and (self.language not in ("javascript", "typescript")
                                        or _last_field(call.receiver) == "invoker"):
                yield from self.invocation(call, default)
            elif call.name in PUBLISH.get(self.language, ()) and (
                    self.language not in ("javascript", "typescript") or _last_field(call.receiver) == "pubsub"):
                yield from self.topic_item(call, "producer", *self.named(call, ("pubsub_name", "topic_name")))
            elif call.name == "subscribe" and self.language in ("javascript", "typescript") and \
                    _last_field(call.receiver) == "pubsub":
                yield from self.topic_item(call, "route", *self.named(call, ("pubsub_name", "topic_name")))
            elif call.name == "AddTopicEventHandler" and self.language == "go" and call.args:
                yield from self.go_subscription(call)
        yield from self.annotated()

    def named(self, call: CallFact, keys: tuple[str, str]) -> tuple[str | None, str | None]:
        """The pub/sub component and topic arguments (Go's first argument is the context)."""
        positional, keywords = _split(call.args)
        if self.language == "go":
            positional = positional[1:]
        first = keywords.get(keys[0], positional[0] if positional else None)
        second = keywords.get(keys[1], positional[1] if len(positional) > 1 else None)
        return first, second

    def topic_item(self, call: CallFact, kind: str, pubsub: str | None, topic: str | None,
                   owner: str | None = None) -> Iterator[Item]:
        value = self.fold(call, pubsub, "pub/sub component") + literal("/") + self.fold(call, topic, "topic")
        index = self.bound.by_key.get(owner or call.owner, -1)
        yield _checked(item(self.bound, index, kind, PUBSUB, call.line, broker=BROKER, topic=value,
                            written=f"{call.name}({', '.join(a for a in (pubsub, topic) if a)})"))

    def invocation(self, call: CallFact, default: str | None) -> Iterator[Item]:
        positional, keywords = _split(call.args)
        if self.language == "go":
            positional = positional[1:]
        app_expr = keywords.get("app_id", positional[0] if positional else None)
        method_expr = keywords.get("method_name", positional[1] if len(positional) > 1 else None)
        if app_expr is None or method_expr is None:
            return
        verb = self.verb(call, positional, keywords, default)
        app, method = self.fold(call, app_expr, "app-id"), self.fold(call, method_expr, "method")
        url = literal("http://") + app + (method if method.text.startswith("/") else literal("/") + method)
        found = item(self.bound, self.bound.by_key.get(call.owner, -1), "client", "dapr_invoke", call.line,
                     http_method=verb, path=url, written=f"{call.name}({app_expr}, {method_expr})")
        if not app.known:
            found.problems.append("the Dapr app-id it invokes is not known")
        yield found

    def verb(self, call: CallFact, positional: list[str], keywords: dict[str, str], default: str | None) -> str | None:
        written: str | None = None
        if self.language == "python":
            written = keywords.get("http_verb")
        elif self.language == "go":
            written = positional[2] if len(positional) > 2 else None
        else:
            pattern = _JAVA_VERB if self.language in ("java", "kotlin") else _JS_VERB
            named = next((m.group(1) for a in positional if (m := pattern.match(a.strip()))), None)
            if named is not None:
                return "POST" if named.upper() == "NONE" else named.upper() if named.upper() in HTTP_METHODS else None
        if written is None:
            return default
        value = self.fold(call, written, "verb")
        return value.text.upper() if value.known and value.text.upper() in HTTP_METHODS else None

    def go_subscription(self, call: CallFact) -> Iterator[Item]:
        subscription = call.args[0]
        pubsub = re.search(_GO_FIELD.format("PubsubName"), subscription)
        topic = re.search(_GO_FIELD.format("Topic"), subscription)
        handler = call.args[1].strip() if len(call.args) > 1 else ""
        owner = next((s.key for s in self.bound.facts.symbols if s.name == handler and s.kind in
                      ("function", "method")), None)
        yield from self.topic_item(call, "route", pubsub.group(1) if pubsub else None,
                                   topic.group(1) if topic else None, owner)

    def annotated(self) -> Iterator[Item]:
        """Python ``@x.subscribe(pubsub=.., topic=..)`` functions and Java ``@Topic(name=.., pubsubName=..)``
        methods."""
        for sym in self.bound.facts.symbols:
            for annotation in sym.annotations:
                simple = annotation.name.rsplit(".", 1)[-1]
                positional = [v for k, v in annotation.args if not k]
                keywords = {k: v for k, v in annotation.args if k}
                if self.language == "python" and simple == "subscribe" and "." in annotation.name:
                    pubsub = keywords.get("pubsub", keywords.get("pubsub_name", positional[0] if positional else None))
                    topic = keywords.get("topic", positional[1] if len(positional) > 1 else None)
                elif self.language in ("java", "kotlin") and simple == "Topic":
                    pubsub, topic = keywords.get("pubsubName"), keywords.get("name")
                else:
                    continue
                call = CallFact(sym.key, annotation.name, None, 0, annotation.line or sym.line_start)
                yield from self.topic_item(call, "route", pubsub, topic, sym.key)


def prepare(files: list[Bound], project: Project) -> Reader:
    folders = KafkaFolders(files, project)

    def read(bound: Bound) -> Iterator[Item]:
        return DaprReader(folders, bound).read() if project.memo.get("dapr_sdks", bound, _uses) else iter(())

    return read


FRAMEWORK = Framework("dapr_sdks", tuple(LIBRARIES), prepare)
