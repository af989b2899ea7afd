"""Strict filters: per node kind, the fields `find` and `search` accept, each mapped to exactly one stored
attribute, and the one function that checks a filter and turns it into store conditions.

A filter is an object of fields; a field's value is one value or a non-empty list of them (a list means
OR); fields combine with AND. An unknown field, a field of another kind, ``kind`` inside the filter, a
value of the wrong type or a value outside a field's closed set is an :class:`InvalidInput` that names
the kind's valid fields or the field's valid values. A filter may arrive as a JSON-encoded object (agents
send that); it is decoded, then held to the same rules.

Prefix fields match whole segments: ``fqn_prefix`` ``com.shop`` matches ``com.shop`` and
``com.shop.orders.Order#place(Order)``, not ``com.shopping``; ``file_prefix`` ``src/main`` matches
files under that folder (or that file), not ``src/mainframe``; ``path_prefix`` ``/api`` matches
``/api/orders/{id}``, not ``/apis``; ``topic_prefix`` ``orders`` matches ``orders.created`` and
``orders-dlq`` (it cuts at ``.``, ``/``, ``:``, ``_`` and ``-``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from graphlore.errors import InvalidInput, ref

from ..languages import registry
from ..model import CAPABILITIES, ROLES, SYMBOL_KINDS
from ..services.endpoints import ANY, HTTP_METHODS
from ..services.links import LINK_MATCHES

#: what declares a route
FRAMEWORKS = ("spring_web", "spring_cloud_gateway", "zuul", "nginx", "yarp", "ocelot", "envoy", "traefik", "haproxy", "caddy", "ingress", "openapi", "jaxrs", "servlet", "micronaut", "micronaut_kafka",
              "micronaut_rabbit", "smallrye_messaging", "spring_kafka", "spring_rabbit", "spring_jms",
              "spring_cloud_stream",
              "fastapi", "flask", "express", "koa", "nestjs", "nextjs", "net_http", "gorilla_mux", "gin", "echo", "chi", "oapi_codegen", "aspnet", "ktor",
              "symfony", "laravel", "slim", "php_router", "sinatra", "rails", "grape", "axum", "actix_web", "rocket",
              "grpc", "grpc_gateway", "sarama", "kafka_go", "confluent_kafka", "watermill", "kafka_python", "aiokafka", "kafkajs",
              "node_rdkafka", "kafka_clients", "confluent_kafka_dotnet", "pika", "amqp_go", "amqplib", "rabbitmq_client", "ruby_kafka",
              "rdkafka", "racecar", "bunny", "sneakers", "event_bus", "masstransit", "nservicebus", "azure_service_bus",
              "azure_event_hubs", "dapr_pubsub", "declared")
#: what makes an HTTP call
CLIENT_KINDS = ("feign", "rest_template", "web_client", "rest_client", "http_exchange", "micronaut_client",
                "micronaut_http_client", "mp_rest_client", "jaxrs_client", "requests", "httpx",
                "aiohttp", "fetch", "axios", "request", "angularjs", "apache_http", "net_http", "http_client", "dapr_invoke", "refit", "ktor_client", "locust", "k6",
                "curl", "guzzle", "symfony_http_client", "laravel_http", "file_get_contents",
                "faraday", "httparty", "restclient", "reqwest", "awc", "surf", "ureq", "isahc", "openapi", "grpc", "declared")
#: what sends a message
PRODUCER_KINDS = ("kafka_template", "stream_bridge", "rabbit_template", "jms_template", "send_to",
                  "micronaut_kafka_client", "micronaut_rabbit_client", "smallrye_messaging", "sarama", "kafka_go",
                  "confluent_kafka", "watermill", "kafka_python", "aiokafka", "kafkajs", "node_rdkafka", "kafka_clients",
                  "confluent_kafka_dotnet", "pika", "amqp_go", "amqplib", "rabbitmq_client", "ruby_kafka", "rdkafka", "bunny", "event_bus",
                  "masstransit", "nservicebus", "azure_service_bus", "azure_event_hubs", "dapr_pubsub", "declared")
#: where a route, client or producer was read (`services.endpoints.Item.source_layer`)
SOURCE_LAYERS = ("framework", "config", "declared")
#: a client may also be generated code's (`frameworks.generated_clients`); no route or producer is
CLIENT_SOURCE_LAYERS = (*SOURCE_LAYERS, "generated")


@dataclass(frozen=True)
class FilterField:
    name: str
    #: the stored prop it reads (``search`` filters through it)
    prop: str
    meaning: str
    #: the closed set of values (None: any non-empty string)
    values: tuple[str, ...] | None = None
    boolean: bool = False
    #: the values name what to leave out (``exclude_roles``)
    exclude: bool = False
    #: the lookup-key field it reads (default: its own name)
    key: str = ""

    @property
    def key_field(self) -> str:
        return self.key or self.name


def _f(name: str, prop: str, meaning: str, **kw: Any) -> FilterField:
    return FilterField(name, prop, meaning, **kw)


#: kind -> its filter fields, in documentation order
FIELDS: dict[str, dict[str, FilterField]] = {
    "symbol": {f.name: f for f in (
        _f("microservice", "microservice", "the symbol's microservice (its name)"),
        _f("module", "module", "the symbol's module (its path, \".\" for the root)"),
        _f("language", "language", "source language", values=registry.NAMES),
        _f("role", "role", "the symbol's role", values=ROLES),
        _f("exclude_roles", "role", "leave out symbols with these roles", values=ROLES, exclude=True, key="role"),
        _f("annotation", "annotations", "an annotation (Java simple name) or decorator (as written) on the symbol"),
        _f("capability", "capabilities", "a capability of the symbol", values=CAPABILITIES),
        _f("fqn_prefix", "_fqn_prefixes", "the fqn starts with these whole segments"),
        _f("symbol_kind", "symbol_kind", "the kind of symbol", values=SYMBOL_KINDS),
        _f("file_prefix", "_file_prefixes", "the file is under this folder (or is this file)"),
        _f("generated", "generated", "generated code (Lombok, records, generated files) or not", boolean=True),
    )},
    "microservice": {f.name: f for f in (
        _f("name", "name", "the microservice's name, or any name it goes by (its folder, build artifact, "
           "spring.application.name, docker-compose service, Kubernetes Service or Deployment)"),
        _f("deployable", "deployable", "deployable on its own (Spring Boot app, Dockerfile) or a library",
           boolean=True),
    )},
    "module": {f.name: f for f in (
        _f("microservice", "microservice", "the microservice the module belongs to"),
        _f("name", "name", "the module's build name"),
    )},
    "route": {f.name: f for f in (
        _f("microservice", "microservice", "the microservice that serves the route"),
        _f("module", "module", "the module of the handler"),
        _f("http_method", "http_method", "the HTTP method (ANY: a mapping without one)", values=(*HTTP_METHODS, ANY)),
        _f("path_prefix", "_path_prefixes", "the path template starts with these whole segments"),
        _f("framework", "framework", "what declares it", values=FRAMEWORKS),
        _f("topic_prefix", "_topic_prefixes", "a listener's topic (queue, destination) starts with this"),
        _f("topic", "topic", "a listener's topic (queue, destination), exactly"),
        _f("grpc_service", "grpc_service", "the gRPC service it serves (package.Service)"),
        _f("target_service", "target_service", "a gateway route: the service it forwards to"),
        _f("source_layer", "source_layer", "where it was read: framework conventions in code, configuration "
           "files (gateway routes), in-source declarations", values=SOURCE_LAYERS),
    )},
    "client": {f.name: f for f in (
        _f("microservice", "microservice", "the microservice the client is in"),
        _f("module", "module", "the module of the declaring symbol"),
        _f("client_kind", "client_kind", "what makes the call", values=CLIENT_KINDS),
        _f("target_service", "target_service", "the service it calls, as named (a project microservice, or not)"),
        _f("target_path_prefix", "_target_path_prefixes", "the path it calls starts with these whole segments"),
        _f("http_method", "http_method", "the HTTP method", values=HTTP_METHODS),
        _f("resolved", "resolved", "every value of its target folded (no unknown part)", boolean=True),
        _f("grpc_service", "grpc_service", "the gRPC service it calls (package.Service)"),
        _f("match", "match", "how it links: to one route (cross_service, intra_service), several (ambiguous), "
           "its service but no route (no_route), or nothing (unresolved)", values=LINK_MATCHES),
        _f("source_layer", "source_layer", "where it was read (framework, config, declared, generated)",
           values=CLIENT_SOURCE_LAYERS),
    )},
    "producer": {f.name: f for f in (
        _f("microservice", "microservice", "the microservice the producer is in"),
        _f("module", "module", "the module of the declaring symbol"),
        _f("producer_kind", "producer_kind", "what sends", values=PRODUCER_KINDS),
        _f("topic_prefix", "_topic_prefixes", "the topic (queue, destination) starts with this"),
        _f("topic", "topic", "the topic (queue, destination), exactly"),
        _f("match", "match", "whether a listener in the project reads its topic (cross_service, intra_service) or "
           "none does (unresolved)", values=LINK_MATCHES),
        _f("source_layer", "source_layer", "where it was read (framework, config, declared)", values=SOURCE_LAYERS),
    )},
}
KINDS = tuple(FIELDS)


def field_list(kind: str) -> str:
    return ", ".join(FIELDS[kind])


def _other_kinds(field: str, kind: str) -> list[str]:
    return [k for k, fields in FIELDS.items() if k != kind and field in fields]


@dataclass(frozen=True)
class Condition:
    field: FilterField
    values: tuple[Any, ...]

    def accepted(self) -> list[Any]:
        """The stored values that pass (an exclusion becomes the rest of the closed set)."""
        if self.field.exclude:
            assert self.field.values is not None
            return [v for v in self.field.values if v not in self.values]
        return list(self.values)

    def keys(self) -> list[str]:
        out = []
        for value in self.accepted():
            if isinstance(value, bool):
                value = "true" if value else "false"
            out.append(f"f:{self.field.key_field}={value}")
        return out


def _value_error(kind: str, field: FilterField, value: Any) -> InvalidInput:
    if field.boolean:
        return InvalidInput(f"filter field '{field.name}' takes true or false (JSON booleans), got {value!r}")
    if field.values is not None:
        hint = ""
        if isinstance(value, str):
            close = [v for v in field.values if v.lower() == value.lower()]
            hint = f" (did you mean '{close[0]}'? values are case-sensitive)" if close else ""
        return InvalidInput(f"filter field '{field.name}': {value!r} is not a valid value{hint}; valid values: "
                            f"{', '.join(field.values)}")
    return InvalidInput(f"filter field '{field.name}' takes a non-empty string or a non-empty list of them, "
                        f"got {value!r}")


def parse_filter(kind: str, raw: Any) -> list[Condition]:
    """Check ``raw`` against ``kind``'s fields (see the module docstring) and return its conditions."""
    fields = FIELDS[kind]
    if isinstance(raw, str):
        text = raw.strip()
        try:
            raw = json.loads(text) if text else {}
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{ref('filter')} is not JSON ({exc.msg}); pass an object such as "
                               f'{{"{next(iter(fields))}": "..."}}; {kind} filter fields: {field_list(kind)}') from exc
    if not isinstance(raw, dict):
        raise InvalidInput(f"{ref('filter')} must be an object (or a JSON-encoded object), got {type(raw).__name__}; "
                           f"{kind} filter fields: {field_list(kind)}")
    problems = []
    if "kind" in raw:
        problems.append(f"'kind' is not a filter field: it goes beside the filter, as {ref('kind')}")
    for name in raw:
        if name == "kind" or name in fields:
            continue
        others = _other_kinds(name, kind)
        if others:
            problems.append(f"'{name}' is a filter field of kind {' and '.join(others)}, not of kind {kind}")
        else:
            problems.append(f"unknown filter field '{name}'")
    if problems:
        raise InvalidInput(f"{'; '.join(problems)}. {kind} filter fields: {field_list(kind)}")
    conditions = []
    for name, value in raw.items():
        field = fields[name]
        values = value if isinstance(value, list) else [value]
        if isinstance(value, list) and not value:
            raise InvalidInput(f"filter field '{name}' got an empty list, which matches nothing; leave the field "
                               "out to not filter on it")
        for item in values:
            if field.boolean:
                ok = isinstance(item, bool)
            else:
                ok = isinstance(item, str) and bool(item) and (field.values is None or item in field.values)
            if not ok:
                raise _value_error(kind, field, item)
        if field.boolean and len(values) > 1:
            raise InvalidInput(f"filter field '{name}' takes one boolean, got a list")
        conditions.append(Condition(field, tuple(dict.fromkeys(values))))
    return conditions


def normalised(conditions: list[Condition]) -> dict[str, Any]:
    """The filter as it was understood: each field with its values as a list (booleans as themselves)."""
    return {c.field.name: c.values[0] if c.field.boolean else list(c.values) for c in conditions}


def key_groups(conditions: list[Condition]) -> list[list[str]]:
    """One OR group of lookup keys per condition (what `Store.nodes_with_keys` takes)."""
    return [c.keys() for c in conditions]


def where(conditions: list[Condition]) -> dict[str, Any]:
    """The same filter as a store ``where`` over props (what `search` needs); fields on one prop intersect."""
    out: dict[str, Any] = {}
    for condition in conditions:
        prop = condition.field.prop
        accepted = condition.accepted()
        if prop in out:
            accepted = [v for v in out[prop] if v in accepted]
        out[prop] = accepted
    return out
