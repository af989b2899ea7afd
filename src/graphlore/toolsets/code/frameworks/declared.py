"""In-source declarations: what a team states that static reading cannot see, in the annotations teams migrating
from the original tool already have (any package: matched by simple name, in every language whose facts carry
annotations, decorators or attributes).

* ``@CodebaseHttpRoute(path, method)`` / ``@CodebaseHttpRoutes({...})``: a route the method serves;
* ``@CodebaseAsyncRoute(topic, framework)`` / ``@CodebaseAsyncRoutes``: a topic (queue) the method listens to;
* ``@CodebaseHttpClient(clientKind, targetService, path, method)`` / ``@CodebaseHttpClients``: a call the method
  makes (``targetService`` names the service as any of its names);
* ``@CodebaseProducer(topic, producerKind)`` / ``@CodebaseProducers``: a topic the method sends to.

A declaration has priority: the routes (clients, producers) the frameworks read on a method that declares
some of that kind are dropped (`exclusive`), so a call site is never counted twice. Declared items carry
``source_layer`` ``declared``. Enum values (``method``, ``clientKind``, ``framework``, ``producerKind``) are read
by their last name (``CodebaseHttpMethod.POST``); ``path``, ``topic`` and ``targetService`` only as one string
literal (a constant or an expression is not followed here: the value is unknown, saying so); an
async declaration's broker comes from its ``framework`` or ``producerKind`` (``kafka``, ``rabbit``, ``jms``,
``stream``), Kafka when neither names one (the original's default ``kafka_send``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..languages.folding import Folded, array_items, literal, split_top, tokens, unescape, unknown
from ..languages.symbols import Bound
from ..model import AnnotationFact
from ..services.endpoints import ANY, BROKERS, HTTP_METHODS, Item, normalise_path
from .base import Framework, Project, Reader, item

KINDS = {"CodebaseHttpRoute": "route", "CodebaseAsyncRoute": "route", "CodebaseHttpClient": "client",
         "CodebaseProducer": "producer"}
CONTAINERS = {"CodebaseHttpRoutes": "CodebaseHttpRoute", "CodebaseAsyncRoutes": "CodebaseAsyncRoute",
              "CodebaseHttpClients": "CodebaseHttpClient", "CodebaseProducers": "CodebaseProducer"}
#: a declared client kind -> the client kind the graph uses
CLIENT_KINDS = {"feign_method": "feign", "feign": "feign", "rest_template": "rest_template", "web_client": "web_client",
                "rest_client": "rest_client"}


def _value(raw: str | None) -> str:
    """An enum argument as its plain value: a string literal's text, an enum constant's last name."""
    if raw is None:
        return ""
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    return raw.rsplit(".", 1)[-1]


def _text(raw: str | None) -> Folded:
    """A path, topic or service argument: one string literal's text, else unknown (never a name read as text)."""
    if raw is None:
        return literal("")
    found = tokens(raw)
    if len(found) == 1 and found[0][0] == "str":
        token = found[0][1]
        prefix = token[:len(token) - len(token.lstrip("rRbBuUfF"))]
        body = token[len(prefix) + 1:-1]
        if "f" not in prefix.lower():
            return literal(body if "r" in prefix.lower() else unescape(body))
    if len(found) == 1 and found[0][0] == "tpl" and "${" not in found[0][1]:   # a JS/TS template without a hole
        return literal(unescape(found[0][1][1:-1]))
    return unknown(f"not a literal ({raw.strip()})")


def _path(raw: str | None) -> Folded:
    value = _text(raw)
    return literal(normalise_path(value.text)) if value.known else value


def _args(annotation: AnnotationFact) -> dict[str, str]:
    return {key or "value": value for key, value in annotation.args}


def declarations(annotations: tuple[AnnotationFact, ...]) -> list[tuple[str, dict[str, str]]]:
    """(declaration name, its arguments) of every declaration on a symbol, containers opened."""
    out = []
    for annotation in annotations:
        name = annotation.name.rsplit(".", 1)[-1]
        if name in KINDS:
            out.append((name, _args(annotation)))
        elif name in CONTAINERS:
            inner = CONTAINERS[name]
            for element in array_items(_args(annotation).get("value", "")):
                head, _, rest = element.partition("(")
                if head.strip().lstrip("@").rsplit(".", 1)[-1] != inner or not rest.endswith(")"):
                    continue
                args: dict[str, str] = {}
                for part in split_top(rest[:-1]):
                    key, sep, value = part.partition("=")
                    args[key.strip() if sep else "value"] = value.strip() if sep else part.strip()
                out.append((inner, args))
    return out


def _broker(*values: str) -> str:
    for value in values:
        for broker in BROKERS:
            if broker in value.lower():
                return broker
    return "kafka"


def read_declared(bound: Bound) -> Iterator[Item]:
    for index, sym in enumerate(bound.facts.symbols):
        for name, args in declarations(sym.annotations):
            written = ", ".join(f"{k}={v}" for k, v in args.items())
            if name == "CodebaseHttpRoute":
                method = _value(args.get("method")).upper()
                yield item(bound, index, "route", "declared", http_method=method if method in HTTP_METHODS else ANY,
                           path=_path(args.get("path") or args.get("value")),
                           written=written, source_layer="declared")
            elif name == "CodebaseAsyncRoute":
                framework = _value(args.get("framework"))
                yield item(bound, index, "route", "declared", broker=_broker(framework),
                           topic=_text(args.get("topic") or args.get("value")), written=written,
                           source_layer="declared")
            elif name == "CodebaseHttpClient":
                method = _value(args.get("method")).upper()
                kind = CLIENT_KINDS.get(_value(args.get("clientKind")), "declared")
                found = item(bound, index, "client", kind, http_method=method if method in HTTP_METHODS else None,
                             path=_path(args.get("path")), written=written,
                             source_layer="declared")
                target = _text(args.get("targetService"))
                if target.text or not target.known:
                    found.target, found.target_source = target, "declared"
                else:
                    found.problems.append("the declaration names no targetService")
                yield found
            elif name == "CodebaseProducer":
                kind = _value(args.get("producerKind")) or "kafka_send"
                yield item(bound, index, "producer", "declared", broker=_broker(kind),
                           topic=_text(args.get("topic") or args.get("value")), written=written,
                           source_layer="declared")


def exclusive(items: list[Item]) -> list[Item]:
    """The items with every framework-read item dropped where the same symbol declares items of its kind."""
    declared = {(i.owner, i.kind) for i in items if i.source_layer == "declared"}
    return [i for i in items if i.source_layer == "declared" or (i.owner, i.kind) not in declared]


def prepare(files: list[Bound], project: Project) -> Reader:
    return lambda bound: project.memo.get("declared", bound, lambda b: list(read_declared(b)))  # one file's own


FRAMEWORK = Framework("declared", ("java", "kotlin", "csharp", "python", "typescript", "javascript"), prepare)
