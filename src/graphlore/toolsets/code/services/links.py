"""Cross-service links: which route each client calls, which routes a gateway route forwards to, and which
listeners each producer reaches; and the records (nodes and edges) of part 2.

**Values.** Every value is settled first: its environment variables take the values the project's deployment
files give the item's service (`services.deployment`), a value with choices is followed once per choice, and
an unknown run-time value in a URL path (``{?:id}``) is a path parameter ``{id}`` when it is a whole segment
(a REST client puts an id there; the route's literal segments name sub-resources), else ``{?}``.

**Which service** (`services.identity`). A client names a service by a Feign ``name``/``value``/``serviceId``,
a URL's host (an ``lb://`` name too), a base URL, or a declaration (``@CodebaseHttpClient``). A Feign ``url``
is a deployment detail: it names the service only when its host is one of the project's. A loopback host
names the service published at its port, or that its environment variable's name names. A name that is
none of the project's (an outside API) or that names two services leaves the client unresolved, saying so.

**Which route.** Among the target service's HTTP routes with a fitting method (a route that takes any
method fits every client), those whose template fits the client's (`endpoints.match_score`); the most
specific wins, as in Spring. One: ``cross_service`` (another service) or ``intra_service``. Several
equally specific: ``ambiguous``, every one linked with that mark and none chosen. None: ``no_route``, a
link to the service itself that names the path it does not serve (never dropped, never guessed), unless the
service answers that path without a route (``served`` items: an nginx location serving files): ``unresolved``. A client
whose path or service is not known: ``unresolved``, with the reason on the client. A client path that is
not known at all (no known segment) is never matched. A client whose path's beginning is not known (a registry's
client, `Item.path_end_only`) matches its known end against the ends of the service's routes that share one of its
literal words at the same place (route parameters alone tie nothing): one best fit links,
none or several leave it unresolved. A client whose URL has several values has one match for
itself and its edges: the least certain among the values that link (``unresolved`` only when none does), its
detail naming the values that do not link.

**Gateways.** A gateway route (Spring Cloud Gateway, Zuul; `frameworks.gateway`) forwards what it matches to
its target service, its prefix stripped or rewritten as configured: it links (``HTTP_CALLS``, evidence
``forward``) to every route of the target that a request it matches can reach. A target route with an unknown
part (``/{?}/products``: a prefix no code read gives) is never linked, whatever the gateway's pattern: the
gateway route says which such routes could be reached (``unresolved`` when no other is).

**Messages.** A producer reaches every listener route with the same broker and topic (queue,
destination): publish/subscribe, so several listeners are not ambiguous. A RabbitMQ route reached through a
declared binding of a topic exchange (`frameworks.spring_amqp`) matches ``exchange/key`` by AMQP's wildcards (``*``
one word, ``#`` zero or more), of a fanout exchange every key of that exchange. A topic no listener in the
project reads is ``unresolved`` (its consumers may be elsewhere).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from ..languages.folding import (
    CHOICE_CLOSE,
    CHOICE_OPEN,
    ENV_CLOSE,
    ENV_OPEN,
    UNKNOWN,
    Folded,
    env_defaults,
    env_names,
    env_why,
    expand,
    known_text,
    literal,
    plain,
    settle_env,
    unknown,
)
from ..layout.layout import Layout
from ..model import GraphEdge, GraphNode, edge_id, make_edge, node_text, service_id, short_hash
from . import grpc_links
from .dapr_sidecar import WHY_UNKNOWN_APP, sidecar_path, sidecar_url
from .deployment import Deployment
from .endpoints import (
    ANY,
    Item,
    caseless,
    join_paths,
    match_score,
    may_fit,
    normalise_path,
    segment_kind,
    segments,
    split_url,
)
from .identity import ServiceNames
from .settings import placeholder_keys
from .virtual_hosts import ServerBlock, answering_block

LINK_MATCHES = ("cross_service", "intra_service", "ambiguous", "no_route", "unresolved")
_NAMED = re.compile(r"\{\?:([^{}]*)\}")


def _label(item: Item, service: str | None = None) -> str:
    if item.grpc is not None:
        return f"grpc {item.grpc}"
    if item.broker is not None:
        return f"{item.broker} {item.topic.text if item.topic else '?'}"
    method = item.http_method or "?"
    path = item.path.text if item.path is not None else "?"
    return f"{method} {service + ' ' if service else ''}{path}"


def _id(prefix: str, item: Item, seen: Counter) -> str:
    key = (item.kind, item.owner, item.flavor, item.http_method, item.written,
           item.path.text if item.path else None, item.broker, item.topic.text if item.topic else None)
    seen[key] += 1
    return prefix + short_hash("\x00".join(map(str, (*key, seen[key]))))


def _base(item: Item, label: str, prefix: str) -> dict:
    why = item.why()
    return {"label": label, "microservice": item.microservice, "module": item.module, "file": item.file,
            "line": item.line, prefix: item.owner, f"{prefix}_fqn": item.owner_fqn,
            "resolved": item.resolved, "unresolved_reason": "; ".join(why) if why and not item.resolved else None,
            "source_layer": item.source_layer,
            **({"profile": item.profile} if item.profile else {}),
            **({"condition": item.condition} if item.condition else {}),
            **({"match": "unresolved", "match_detail": item.not_run} if item.not_run else {})}


# -- settling values --------------------------------------------------------------------------------------------


def _unknowns(text: str) -> str:
    """Every unknown part written ``{?}`` (a route's, or a value outside a URL path)."""
    return _NAMED.sub("{?}", text)


def client_path(text: str) -> str:
    """A client's URL path: a whole segment that is an unknown run-time value is a path parameter ``{name}``."""
    parts = text.split("/")
    out = []
    for part in parts:
        whole = _NAMED.fullmatch(part)
        out.append("{" + whole.group(1) + "}" if whole else _unknowns(part))
    return normalise_path("/".join(out))


@dataclass
class Settler:
    """Settles items' values with the environment their service is given (see the module docstring)."""

    deployment: Deployment

    def value(self, item: Item, value: Folded | None) -> Folded | None:
        if value is None or ENV_OPEN not in value.text:
            return value
        settled, _ = settle_env(value, lambda name: self.deployment.env_of(item.microservice, name))
        for _ in range(2):   # a value the deployment gives may read variables itself (a Locust ``--host``)
            if ENV_OPEN not in settled.text:
                break
            inner = Folded(settled.text, settled.known, settled.why + tuple(env_why(n) for n in env_names(settled.text)))
            settled, _ = settle_env(inner, lambda name: self.deployment.env_of(item.microservice, name))
        return settled

    def route(self, item: Item) -> list[Item]:
        """A route (or a producer) with its values settled: one per choice its values hold."""
        path, topic = self.value(item, item.path), self.value(item, item.topic)
        out = []
        for one_path in expand(path) if path is not None else [None]:
            for one_topic in expand(topic) if topic is not None else [None]:
                out.append(replace(item, path=_plain_unknowns(one_path), topic=_plain_unknowns(one_topic),
                                   problems=list(item.problems)))
        return out


def _plain_unknowns(value: Folded | None) -> Folded | None:
    if value is None:
        return None
    text = _unknowns(value.text)
    return Folded(normalise_path(text) if text.startswith("/") else text, known_text(text), value.why)


# -- clients: which service, which path -------------------------------------------------------------------------


#: clients whose service and path come from one URL (the others name the service apart)
URL_CLIENTS = frozenset({"rest_template", "web_client", "rest_client", "requests", "httpx", "aiohttp", "fetch",
                         "net_http", "http_client", "dapr_invoke", "refit", "ktor_client", "micronaut_http_client", "jaxrs_client", "axios", "request", "angularjs", "apache_http", "locust", "k6",
                         "curl", "guzzle", "symfony_http_client", "laravel_http", "file_get_contents",
                         "faraday", "httparty", "restclient", "reqwest", "awc", "surf", "ureq", "isahc", "openapi"})


#: where a client's whole base URL comes from when it also names the service apart (or not at all)
#: a URL client whose service is named apart from its URL: a declaration, the OpenAPI document it was generated
#: from (`frameworks.openapi_clients`)
NAMED_SOURCES = ("declared", "openapi document", "helper argument")
WHOLE_URL_SOURCES = ("feign url", "@HttpExchange url", "@Client url", "@RegisterRestClient url")


@dataclass
class Target:
    """One value a client's request may take: the service it reaches (or why none) and the path."""

    service: str | None
    how: str
    path: Folded | None
    #: the service as named (a host, a Feign name), for people
    named: str | None = None


@dataclass
class Client:
    """A client item with what linking found out: its targets (one per value of its URL)."""

    item: Item
    targets: list[Target] = field(default_factory=list)
    template: str | None = None
    #: a URL client's URL as folded and settled with its service's environment
    url: Folded | None = None


def _host_end(raw: str) -> int:
    """Where a URL's scheme-and-host part ends in a folded text (markers may hold ``/``), -1 without a scheme."""
    start = raw.find("://")
    if start < 0:
        return -1
    depth = 0
    for index in range(start + 3, len(raw)):
        ch = raw[index]
        if ch in (ENV_OPEN, CHOICE_OPEN):
            depth += 1
        elif ch in (ENV_CLOSE, CHOICE_CLOSE):
            depth -= 1
        elif ch == "/" and depth == 0:
            return index
    return len(raw)


def _host_variables(raw: str) -> list[str]:
    """The environment variables read in a URL's scheme-and-host part, as folded (before settling)."""
    end = _host_end(raw)
    if end < 0:
        return env_names(raw) if not raw.startswith("/") else []
    return env_names(raw[:end])


def _path_template(settled: str) -> str | None:
    """A settled URL's path part, for people (its choices written ``{a|b}``); None when a choice holds whole URLs
    (their paths are listed apart)."""
    if settled.startswith(CHOICE_OPEN) and "://" in settled.split(CHOICE_CLOSE, 1)[0]:
        return None
    end = _host_end(settled)
    path = settled[end:] if end >= 0 else settled
    if not path.startswith("/") and end >= 0:
        path = "/" + path
    return client_path(plain(path)) if path.startswith("/") else None


def _port(url: str) -> int | None:
    rest = url.split("://", 1)[1] if "://" in url else url
    host = rest.split("/", 1)[0].split("@")[-1]
    if host.count(":") == 1 and host.rsplit(":", 1)[1].isdigit():
        return int(host.rsplit(":", 1)[1])
    return None


def _bare_address(value: Folded) -> Folded:
    """An address without a scheme (``orders:8080``, ``orders:8080/x``, from an environment variable) as a URL."""
    text = value.text
    if "://" in text or text.startswith(("/", "{?")) or not text:
        return value
    host = text.split("/", 1)[0]
    if re.fullmatch(r"[A-Za-z0-9_.\-]+(:\d+)?", host):
        return Folded("http://" + text, value.known, value.why)
    return value


#: clients whose URL, unless absolute, is a path under their base URL whether or not it starts with ``/`` (axios's
#: ``combineURLs``: ``baseURL`` is prepended to ``url`` unless ``url`` is absolute)
RELATIVE_UNDER_BASE = frozenset({"axios"})
_ABSOLUTE_URL = re.compile(r"([a-z][a-z\d+\-.]*:)?//", re.I)


def _relative(url: str) -> bool:
    """Whether a URL as folded is known not to be absolute: it starts with written text that is not a scheme or ``//``.
    One that starts with a variable, an environment variable or choices may be absolute once settled: not known."""
    return url[:1] not in ("", "{", ENV_OPEN, CHOICE_OPEN) and _ABSOLUTE_URL.match(url) is None


def prepare_client(item: Item, names: ServiceNames, settler: Settler) -> Client:
    """Which service a client reaches and at which path, per value its URL may take (see the module docstring)."""
    client = Client(item)
    if item.grpc is not None:
        return client
    if item.flavor in URL_CLIENTS and item.target_source not in NAMED_SOURCES:
        if item.path is None:
            return client
        raw = item.path
        if item.base_url and (raw.text.startswith("/") or not raw.text):
            raw = Folded(item.base_url, True) + raw
        elif item.base_url and item.flavor in RELATIVE_UNDER_BASE and _relative(raw.text):
            raw = Folded(item.base_url.rstrip("/") + "/", True) + raw   # axios: a path under baseURL
        elif not item.base_url and item.flavor in RELATIVE_UNDER_BASE and _relative(raw.text) and \
                not raw.text.startswith("/"):   # relative to the page or the process: where is not known
            why = "a relative URL: what it is resolved against (the page's address, axios.defaults.baseURL) is not read"
            raw = unknown(why) + literal("/") + raw
        variables = _host_variables(raw.text)
        settled = settler.value(item, raw)
        assert settled is not None
        whole = sidecar_url(settled)   # through a Dapr sidecar: the app-id's app is the host
        client.url = settled = whole or settled
        client.template = _path_template(settled.text)
        for value in expand(settled):
            through = value if whole is not None else sidecar_url(value)
            target = _url_target(through or _bare_address(value), names, [] if through else variables, item)
            if through is not None and target.service is not None:
                target.how = f"Dapr sidecar invoke API, app-id {target.named}: {target.how}"
            client.targets.append(target)
        return client
    # a service named apart from the path: Feign, @HttpExchange, a declaration
    path = settler.value(item, item.path)
    whole_url = settler.value(item, item.target) if item.target_source in WHOLE_URL_SOURCES else None
    name = settler.value(item, item.target) if whole_url is None else settler.value(item, item.target_name)
    # a url with several values (two ConfigMaps of one name) is followed once per value, as a request's URL is;
    # so is a name with several (``@FeignClient(name = "${orders.id}")`` that two profiles set apart)
    names_of = expand(name) if whole_url is None and name is not None and name.known else [name]
    for url, name, one_path in [(u, n, p) for u in (expand(whole_url) if whole_url is not None else [None])
                                for n in names_of for p in (expand(path) if path is not None else [None])]:
        target = None
        if url is not None and url.known and url.text:
            split = split_url(url)
            if split.host is not None:
                service, how = names.host(split.host.text, _port(url.text), [], dns=split.source == "URL host")
                if service is not None:
                    joined = join_paths([split.path, one_path]) if one_path is not None else split.path
                    target = Target(service, f"{item.target_source} host: {how}", _client_folded(joined),
                                    split.host.text)
                elif name is None or not name.known:
                    target = Target(None, f"the {item.target_source} host {how}", _client_folded(one_path),
                                    split.host.text)
            elif name is None:
                target = Target(None, f"the {item.target_source} names no host ({url.text})", _client_folded(one_path))
        if target is None and name is not None:
            if name.known and name.text:
                service, how = names.find(name.text.strip("/"))
                if service is None and url is not None and url.known:
                    how += f"; its url {url.text} names no service of the project either"
                source = "feign name" if item.target_source == "feign url" else item.target_source
                target = Target(service, f"{source}: {how}" if service else how, _client_folded(one_path),
                                name.text.strip("/"))
            else:
                target = Target(None, "; ".join(name.why) or "the service name is not known", _client_folded(one_path))
        if target is None:
            target = Target(None, "; ".join(item.problems) or "the client names no service", _client_folded(one_path))
        client.targets.append(target)
    return client


def _channel(item: Item, names: ServiceNames, settler: Settler) -> dict:
    """A gRPC client's channel address, settled with its service's environment, and the service its host names
    (evidence beside the method's match: `grpc_links.link_client` says when the two disagree)."""
    if item.address is None:
        return {"channel_address": None, "channel_service": None, "channel_service_matched_by": None,
                "channel_conflict": None}
    variables = env_names(item.address.text)
    settled = settler.value(item, item.address)
    assert settled is not None
    out = {"channel_address": plain(settled.text), "channel_service": None, "channel_service_matched_by": None,
           "channel_conflict": None}
    found: dict[str, str] = {}
    why: list[str] = []
    for value in expand(settled):   # an address with several values (profiles, deployments): each one's host
        if not value.known:
            why.append("; ".join(dict.fromkeys(value.why)) or f"the address {plain(value.text)} is not known")
            continue
        split = split_url(_bare_address(value))
        if split.host is None:
            why.append(f"the address {value.text} names no host")
            continue
        service, how = names.host(split.host.text, _port(_bare_address(value).text), variables,
                                  dns=split.source == "URL host")
        if service is None:
            why.append(how)
        else:
            found.setdefault(service, how)
    if len(found) == 1:
        service, how = next(iter(found.items()))
        out.update(channel_service=service, channel_service_matched_by=how if not why else
                   f"{how} (other values of the address name no service: {'; '.join(dict.fromkeys(why))})")
    else:
        out["channel_service_matched_by"] = (f"its values name {len(found)} services ({', '.join(sorted(found))})"
                                             if found else "; ".join(dict.fromkeys(why)))
    return out


def _client_folded(value: Folded | None) -> Folded | None:
    if value is None:
        return None
    return Folded(client_path(value.text), known_text(client_path(value.text)), value.why)


def _url_target(value: Folded, names: ServiceNames, variables: list[str], item: Item) -> Target:
    url = split_url(value)
    path = _client_folded(url.path) if url.source not in ("unknown", "malformed") else _plain_unknowns(url.path)
    if url.host is None:
        why = ("the URL names no service (a path without a base URL)" if url.source == "path only"
               else url.path.why[-1] if url.source == "malformed" else "the URL's start is not known")
        # and what else the reader found that could have named it (the client's problems)
        return Target(None, "; ".join(dict.fromkeys([why, *(w for w in value.why if w), *item.problems])), path)
    service, how = names.host(url.host.text, _port(value.text), variables, dns=url.source == "URL host")
    if service is None:
        how = "; ".join(dict.fromkeys([how, *item.problems]))
    return Target(service, f"{url.source}: {how}" if service else how, path, url.host.text)


# -- linking ----------------------------------------------------------------------------------------------------


def link(items: Iterable[Item], layout: Layout, deployment: Deployment | None = None,
         names: ServiceNames | None = None) -> tuple[list[GraphNode], list[GraphEdge]]:
    """Part 2's nodes and edges from the folded items (see the module docstring)."""
    deployment = deployment or Deployment()
    names = names or ServiceNames(layout, deployment)
    settler = Settler(deployment)
    nodes: list[GraphNode] = []
    edges: list[GraphEdge] = []
    seen: Counter = Counter()
    routes: list[tuple[GraphNode, Item]] = []
    clients: list[tuple[GraphNode, Client]] = []
    producers: list[tuple[GraphNode, Item]] = []
    served: dict[str, list[Item]] = {}   # paths a service answers that no route models (nginx files)
    for raw in items:
        if raw.kind == "served":
            served.setdefault(raw.microservice, []).append(raw)
        elif raw.kind == "route":
            for item in settler.route(raw):
                node_id = _id("rt_", item, seen)
                props = _base(item, _label(item), "handler")
                props.update(framework=item.flavor, path=item.written, http_method=item.http_method,
                             path_template=item.path.text if item.path is not None else None, broker=item.broker,
                             topic=item.topic.text if item.topic is not None else None, grpc=item.grpc,
                             grpc_service=grpc_links.service_of(item), forward=_forward_props(item, settler))
                if item.also_declared_in:
                    props["also_declared_in"] = list(item.also_declared_in)
                props.update(_topic_created(item, deployment))
                if item.amqp_binding is not None:
                    props["amqp_binding"] = dict(zip(("queue", "exchange", "exchange_type", "binding_key"),
                                                     item.amqp_binding, strict=True))
                if item.forward_grpc is not None:   # a grpc-gateway route: the endpoint it dials
                    props.update(_channel(item, names, settler))
                node = GraphNode(node_id, "route", props["label"],
                                 node_text(props["label"], item.owner_fqn, item.written, item.condition or ""), props)
                nodes.append(node)
                edges.append(make_edge(item.owner, "EXPOSES", node_id))
                if item.triggered_by and item.triggered_by != item.owner:
                    edges.append(make_edge(item.triggered_by, "TRIGGERS", item.owner,
                                           {"kind": "razor_page", "route": props["label"]}))
                routes.append((node, item))
        elif raw.kind == "client":
            client = prepare_client(raw, names, settler)
            item = raw
            node_id = _id("cl_", item, seen)
            props = _base(item, "", "declaring")
            props.update(client_kind=item.flavor, http_method=item.http_method, target_path=item.written,
                         target_path_template=None, target_url=None,
                         base_url=plain(item.base_url) if item.base_url else None,
                         target_service=None, target_service_source=item.target_source or None,
                         grpc=item.grpc, grpc_service=grpc_links.service_of(item))
            if item.grpc is not None:
                props.update(_channel(item, names, settler))
            read = [name for value in (item.address, item.path, item.target, item.target_name) if value is not None
                    for name in env_names(value.text)] + env_names(item.base_url or "")
            if read:   # the environment variables its address reads (`config_view.client_config` adds where set)
                props["reads_env"] = list(dict.fromkeys(read))
                defaults = {k: v for value in (item.address, item.path, item.target, item.target_name)
                            if value is not None for k, v in env_defaults(value.text).items()}
                defaults |= env_defaults(item.base_url or "")
                if defaults:   # what the code falls back to where the deployment sets none
                    props["env_defaults"] = defaults
            keys = [key for value in (item.address, item.path, item.target, item.target_name) if value is not None
                    for key in (*value.settings, *placeholder_keys(value.text))] + placeholder_keys(item.base_url or "")
            if keys:   # the settings keys its address reads (``@Value("${a.b}")``; `config_view.client_config`)
                props["reads_settings"] = list(dict.fromkeys(keys))
            if client.url is not None:  # what the environment settled is no longer unknown
                why = "; ".join(dict.fromkeys([*item.problems, *client.url.why])) if not client.url.known else ""
                props.update(target_url=plain(client.url.text), resolved=client.url.known,
                             unresolved_reason=why or None)
            node = GraphNode(node_id, "client", "", "", props)
            clients.append((node, client))
        else:
            for item in settler.route(raw):
                node_id = _id("pr_", item, seen)
                props = _base(item, _label(item), "declaring")
                props.update(producer_kind=item.flavor, broker=item.broker, topic_written=item.written,
                             topic=item.topic.text if item.topic is not None else None)
                props.update(_topic_created(item, deployment))
                node = GraphNode(node_id, "producer", props["label"],
                                 node_text(props["label"], item.owner_fqn, item.written, ""), props)
                producers.append((node, item))

    _transport(producers)
    http_by_service: dict[str, list[tuple[GraphNode, Item]]] = {}
    listeners: dict[tuple[str, str], list[GraphNode]] = {}
    patterns: list[tuple[str, str, GraphNode]] = []   # AMQP topic and fanout bindings: (exchange, key pattern, route)
    redis_routes: list[tuple[GraphNode, Item]] = []   # Redis pub/sub subscriptions (`redis_channel_reaches`)
    grpc_routes = grpc_links.routes_by_method(routes)
    for node, item in routes:
        if item.grpc is not None or item.not_run:   # a route of a profile the deployment does not run
            continue
        if item.broker is None and item.path is not None:
            http_by_service.setdefault(item.microservice, []).append((node, item))
        elif item.amqp_binding is not None and item.amqp_binding[2] in ("topic", "fanout"):
            patterns.append((item.amqp_binding[1], item.amqp_binding[3], node))
        elif item.broker == "redis" and item.topic is not None:   # run-time parts and globs: matched by shape
            redis_routes.append((node, item))
        elif item.broker is not None and item.topic is not None and item.topic.known:
            listeners.setdefault((item.broker, item.topic.text), []).append(node)

    for node, item in routes:
        if item.forward is not None and not item.not_run:
            edges += _link_forward(node, item, names, http_by_service, settler)
        if item.forward_grpc is not None:
            edges += grpc_links.link_gateway(node, item, grpc_routes)
    for node, client in clients:
        item = client.item
        edges.append(make_edge(item.owner, "DECLARES_CLIENT", node.id))
        if item.inherited is not None:   # a call through the client names the method it inherits
            edges.append(make_edge(item.inherited, "DECLARES_CLIENT", node.id, {"inherited_by": item.owner_fqn}))
        if item.grpc is not None:
            edges += grpc_links.link_client(node, item, grpc_routes)
        else:
            edges += _link_client(node, client, http_by_service, served)
        nodes.append(node)
    for node, item in producers:
        edges.append(make_edge(item.owner, "DECLARES_PRODUCER", node.id))
        edges += _link_redis(node, item, redis_routes) if item.broker == "redis" else \
            _link_producer(node, item, listeners, patterns)
        nodes.append(node)
    return nodes, edges


def _topic_created(item: Item, deployment: Deployment) -> dict:
    """Where the deployment creates a Kafka listener's or producer's topic (`kafka_topics`), when it does."""
    if item.broker != "kafka" or item.topic is None or not item.topic.known:
        return {}
    found = deployment.topics.get(item.topic.text)
    return {"topic_created": list(found)} if found else {}


def _unresolved(node: GraphNode, why: str) -> list[GraphEdge]:
    node.props.update(match="unresolved", match_detail=why, candidates=[])
    return []


def _method_fits(method: str | None, route_method: str | None) -> bool:
    return route_method == ANY or method is None or method == ANY or route_method == method


def _fits(method: str | None, template: str, candidates: list[tuple[GraphNode, Item]]
          ) -> list[tuple[int, GraphNode, Item]]:
    fits = []
    for route, route_item in candidates:
        method_fits = _method_fits(method, route_item.http_method)
        if not method_fits or route_item.path is None:
            continue
        without_case = caseless(route_item)
        score = match_score(template.lower() if without_case else template,
                            route_item.path.text.lower() if without_case else route_item.path.text)
        if score is not None:
            fits.append((score, route, route_item))
    return fits


#: how a client's alternatives rank when they end differently (the client shows the least certain)
_WORST = ("unresolved", "no_route", "ambiguous", "intra_service", "cross_service")


def _link_client(node: GraphNode, client: Client, http_by_service: dict[str, list[tuple[GraphNode, Item]]],
                 served: dict[str, list[Item]] | None = None) -> list[GraphEdge]:
    item, props = client.item, node.props
    targets = client.targets or [Target(None, "; ".join(item.why()) or "the client names no service", None)]
    services = list(dict.fromkeys(t.service for t in targets if t.service))
    named = list(dict.fromkeys(t.named for t in targets if t.named))
    props["target_service"] = services[0] if len(services) == 1 else (named[0] if len(named) == 1 and not services
                                                                      else None)
    props["target_service_matched_by"] = next((t.how for t in targets if t.service), None)
    paths = list(dict.fromkeys(t.path.text for t in targets if t.path is not None))
    if len(paths) == 1:
        shown: str | None = paths[0]
    elif paths:
        shown = client.template or "{" + "|".join(paths) + "}"
    else:
        shown = None
    props["target_path_template"] = shown
    props["path_values"] = paths if len(paths) > 1 else None
    edges: list[GraphEdge] = []
    outcomes: list[tuple[str, str | None, bool]] = []
    candidates: list[str] = []
    ends: list[set[str]] = []
    for target in targets:
        match, detail, made = _link_target(node, item, target, http_by_service, served=served)
        outcomes.append((match, detail, bool(made)))
        ends.append(_ends(made))
        edges += made
        candidates += [e.dst for e in made if e.dst not in candidates]
    if props["target_service"] is None and len(services) > 1 and all(ends) and len(set().union(*ends)) == 1:
        props["target_service"] = next(iter(ends[0]))   # a proxy's host and its upstream's: one service called
    props["label"] = f"{item.http_method or '?'} {props['target_service'] or '?'} {shown or '?'}"
    node.name = props["label"]
    node.text = node_text(props["label"], item.owner_fqn, item.written, "")
    # one truth for the client and its edges: the least certain of the values that were linked; values that
    # link nowhere (a host no deployment names) are said in the detail, never hidden
    edges = _one_per_id(edges)
    linked = [m for m, _, made in outcomes if made]
    match = min(linked or [m for m, _, _ in outcomes], key=_WORST.index)
    details = list(dict.fromkeys(d for _, d, _ in outcomes if d))
    if linked and len(linked) < len(outcomes):
        details.insert(0, f"{len(linked)} of the {len(outcomes)} values of its URL link; the others do not")
    props.update(match=match, match_detail="; ".join(details) or None, candidates=candidates)
    return edges


def _ends(edges: list[GraphEdge]) -> set[str]:
    """The services where one value of a client's URL ends: those of the routes it reaches that forward no further
    (a proxy route's edge carries ``through``), when each was linked with certainty; else none (not known)."""
    final = [e for e in edges if "through" not in e.props]
    if not final or any(e.props.get("match") not in ("cross_service", "intra_service") for e in final):
        return set()
    if any(e.props["through"].get("match") not in ("cross_service", "intra_service")
           for e in edges if "through" in e.props):
        return set()
    return {e.props["evidence"]["service"] for e in final}


def _one_per_id(edges: list[GraphEdge]) -> list[GraphEdge]:
    """A client's edges, one per id: values of its URL that reach the same proxy route share the edge to it, whose
    ``through`` is then the least certain of theirs (in any order of the values), as the client's own ``match``."""
    kept: dict[str, GraphEdge] = {}
    for edge in edges:
        had = kept.pop(edge.id, None)
        ways = [w for w in (had.props.get("through") if had else None, edge.props.get("through")) if w]
        if ways:
            edge.props["through"] = min(ways, key=lambda way: _WORST.index(way["match"]))
        kept[edge.id] = edge
    return list(kept.values())


def _link_target(node: GraphNode, item: Item, target: Target, http_by_service: dict[str, list[tuple[GraphNode, Item]]],
                 via: tuple[GraphNode, ...] = (), served: dict[str, list[Item]] | None = None,
                 ) -> tuple[str, str | None, list[GraphEdge]]:
    """(match, detail, edges) of one value of a client's request; ``via``: the proxy routes it went through
    (`_through`), named on its edges; ``served``: paths each service answers that no route models."""
    if target.service is None:
        return "unresolved", target.how, []
    template = target.path.text if target.path is not None else None
    if template is None or not any(segment_kind(s) == "literal" for s in segments(template)) and "{?}" in template:
        why = "; ".join(w for w in (target.path.why if target.path is not None else ()) if w) or "no path"
        return "unresolved", f"the path is not known ({why})", []
    service = target.service
    if item.path_end_only:
        return _link_end(node, item, target, template, http_by_service)
    fits = _fits(item.http_method, template, http_by_service.get(service, []))
    evidence = {"http_method": item.http_method, "client_template": template, "service": service,
                "service_matched_by": target.how, "partial_path": "{?}" in template}
    if not fits:
        unsure = [r.props["label"] for r, ri in http_by_service.get(service, []) if ri.path is not None and
                  _method_fits(item.http_method, ri.http_method) and _may_fit(template, ri)]
        if unsure:   # no_route would claim what is not known
            listed = ", ".join(sorted(unsure)[:8]) + (" ..." if len(unsure) > 8 else "")
            return "unresolved", (f"no route of {service} is known to fit {item.http_method or 'any method'} "
                                  f"{template}, but {len(unsure)} of its routes have unknown parts that could make "
                                  f"them fit ({listed})"), []
        answered = [f"{s.written} ({s.file}:{s.line})" for s in (served or {}).get(service, [])
                    if s.path is not None and match_score(template, s.path.text) is not None]
        if answered:   # the service answers the path itself (files): no route models it, yet it is served
            return "unresolved", (f"no route of {service} fits {item.http_method or 'any method'} {template}, but "
                                  f"{service} serves it without a route the index models: {answered[0]}"), []
        known = sorted(r.props["label"] for r, _ in http_by_service.get(service, []))
        listed = ", ".join(known[:8]) + (" ..." if len(known) > 8 else "") if known else "none found"
        detail = f"no route of {service} fits {item.http_method or 'any method'} {template} (its routes: {listed})"
        return "no_route", detail, [_link_edge(node.id, service_id(service), via, {
            "match": "no_route", **_via_props(via), "evidence": {**evidence, "routes_of_service": known[:20]}})]
    best = max(score for score, _, _ in fits)
    top = [(route, route_item) for score, route, route_item in fits if score == best]
    if len(top) == 1:
        match = "intra_service" if top[0][1].microservice == item.microservice else "cross_service"
        detail = None
    else:
        match, detail = "ambiguous", f"{len(top)} routes of {service} fit {template} equally"
    edges = [_link_edge(node.id, route.id, via, {
        "match": match, **_via_props(via), "evidence": {**evidence, "route_template": route_item.path.text,
                                                        "route_method": route_item.http_method}})
        for route, route_item in top]
    if len(top) == 1 and top[0][1].forward is not None:
        edges += _through(node, item, template, top[0], edges[0], http_by_service, via, served)
    return match, detail, edges


def _link_end(node: GraphNode, item: Item, target: Target, template: str,
              http_by_service: dict[str, list[tuple[GraphNode, Item]]]) -> tuple[str, str | None, list[GraphEdge]]:
    """A client whose path's beginning is not known (`Item.path_end_only`): the known end of its path (after the
    unknown segments it starts with) against the same number of last segments of each route of the service that has
    one of its literal words at the same place. One route fits best: linked; none, or several equally: unresolved,
    saying so (neither ``no_route`` nor ``ambiguous``: what the beginning holds is not known)."""
    service = target.service
    parts = segments(template)
    while parts and segment_kind(parts[0]) == "unknown":
        parts = parts[1:]
    if not any(segment_kind(p) == "literal" for p in parts):
        return "unresolved", f"only the end of the path is known and it has no literal part ({template})", []
    end = "/" + "/".join(parts)
    ends = []
    for route, route_item in http_by_service.get(service or "", []):
        route_parts = segments(route_item.path.text) if route_item.path is not None else []
        tail = route_parts[-len(parts):]
        if len(route_parts) >= len(parts) and "**" not in route_parts and _method_fits(
                item.http_method, route_item.http_method) and _shares_a_word(parts, tail):
            ends.append((route, replace(route_item, path=Folded("/" + "/".join(tail), True))))
    fits = _fits(item.http_method, end, ends)
    if not fits:
        return "unresolved", f"no route of {service} ends with {end} (the path's beginning is not known)", []
    best = max(score for score, _, _ in fits)
    top = [route for score, route, _ in fits if score == best]
    if len(top) > 1:
        listed = ", ".join(sorted(r.props["label"] for r in top)[:8])
        return "unresolved", f"{len(top)} routes of {service} end with {end} equally ({listed})", []
    route = top[0]
    route_item = next(ri for r, ri in http_by_service[service or ""] if r is route)
    match = "intra_service" if route_item.microservice == item.microservice else "cross_service"
    return match, None, [_link_edge(node.id, route.id, (), {
        "match": match, "evidence": {"http_method": item.http_method, "client_template": template, "service": service,
                                     "service_matched_by": target.how, "partial_path": True, "path_end": end,
                                     "route_template": route_item.path.text if route_item.path else None,
                                     "route_method": route_item.http_method}})]


def _shares_a_word(client: list[str], route: list[str]) -> bool:
    """Whether a literal segment of a path's known end is the route's at the same place: route parameters alone
    (``{?}/featured`` against ``/items/{id}``) take any word, so they tie nothing to the route."""
    return any(c == r and segment_kind(c) == "literal" for c, r in zip(client, route, strict=True))


# -- through a proxy --------------------------------------------------------------------------------------------

#: how many proxies one request is followed through (an edge proxy in front of a gateway is two)
MAX_HOPS = 3


def _link_edge(src: str, dst: str, via: tuple[GraphNode, ...], props: dict) -> GraphEdge:
    """A client's link; one through proxies has an id of its own per ``via``, so that the same client reaching the
    same route directly (another value of its URL) or through other proxies keeps both links."""
    if not via:
        return make_edge(src, "HTTP_CALLS", dst, props)
    return GraphEdge(edge_id(src, "HTTP_CALLS", "\x00".join([dst, *(route.id for route in via)])), src, dst,
                     "HTTP_CALLS", props)


def _via_props(via: tuple[GraphNode, ...]) -> dict:
    if not via:
        return {}
    return {"via": [route.id for route in via], "via_labels": [f"{route.props['microservice']} {route.props['label']}"
                                                               for route in via]}


def _through(node: GraphNode, item: Item, template: str, proxy: tuple[GraphNode, Item], hop: GraphEdge,
             http_by_service: dict[str, list[tuple[GraphNode, Item]]], via: tuple[GraphNode, ...],
             served: dict[str, list[Item]] | None = None) -> list[GraphEdge]:
    """A request that reached a proxy route (``hop``, its edge) followed to the route of the upstream that serves
    it: the path the upstream sees (the route's strip or rewrite applied) matched against the upstream's routes,
    as a client's own path is, each edge naming the proxy routes it went ``via``; the outcome is also said on
    ``hop`` (``through``) and on the client (``through_match``, ``through_detail``). Not followed (said why):
    a proxy route that links nowhere, that names no single service, or whose path change this reader does not
    follow."""
    route, route_item = proxy
    forward, upstream = route_item.forward, route.props.get("target_service")
    assert forward is not None
    why = None
    if upstream is None or route.props.get("match") not in ("cross_service", "intra_service", "no_route"):
        why = f"the proxy route {route.props['label']} reaches no one service"
    elif route_item.problems:
        why = f"the proxy route {route.props['label']}: " + "; ".join(route_item.problems)
    elif route in via or len(via) >= MAX_HOPS:
        why = f"the proxy route {route.props['label']} is reached again (a loop) or too deep"
    inner = forward.inside(template, caseless(route_item)) if why is None else None
    if why is None and inner is None:
        why = f"the path the upstream sees for {template} through {route.props['label']} is not known"
    if why is not None:
        hop.props["through"] = {"match": "unresolved", "detail": why}
        if not via:
            _say_through(node, "unresolved", why)
        return []
    assert inner is not None and upstream is not None
    target = Target(upstream, f"through the proxy route {route.props['microservice']} {route.props['label']}",
                    Folded(inner, known_text(inner)))
    match, detail, edges = _link_target(node, item, target, http_by_service, (*via, route), served)
    hop.props["through"] = {"match": match, "detail": detail, "upstream": upstream, "upstream_path": inner}
    if not via:   # the client says where its request ends (the last proxy's outcome)
        last = next((e.props["through"] for e in reversed(edges) if "through" in e.props), hop.props["through"])
        _say_through(node, last["match"], last.get("detail"))
    return edges


def _say_through(node: GraphNode, match: str, detail: str | None) -> None:
    """Where a client's request ends through a proxy: of its URL's values, the least certain (as its ``match``),
    whatever order the values come in."""
    had = node.props.get("through_match")
    if had is None or _WORST.index(match) < _WORST.index(had):
        node.props.update(through_match=match, through_detail=detail)
    elif match == had and detail:
        node.props["through_detail"] = "; ".join(dict.fromkeys(filter(None, [node.props.get("through_detail"),
                                                                             detail])))


def _transport(producers: list[tuple[GraphNode, Item]]) -> None:
    """An event-bus producer's ``transport``: the broker producers (``rabbit eshop_event_bus/{?}``) declared in the
    methods that carry its publish (`Item.carried_by`), each with its ``file:line``; none when no such method
    declares one (the bus's transport is not read, or is outside the project)."""
    declared: dict[str, list[str]] = {}
    for node, item in producers:
        if not item.carried_by:
            declared.setdefault(item.owner_fqn, []).append(f"{node.props['label']} ({item.file}:{item.line})")
    for node, item in producers:
        found = [one for fqn in item.carried_by for one in declared.get(fqn, [])]
        if found:
            node.props["transport"] = list(dict.fromkeys(found))


# -- gateways ---------------------------------------------------------------------------------------------------


def _forward_props(item: Item, settler: Settler) -> dict | None:
    if item.forward is None:
        return None
    target = settler.value(item, item.forward.target)
    written = {"predicates": list(item.forward.predicates)} if item.forward.predicates else {}
    written |= {"filters": list(item.forward.filters)} if item.forward.filters else {}
    return {"target": plain(target.text) if target is not None else None, "strip_prefix": item.forward.strip,
            "rewrite": list(item.forward.rewrite) if item.forward.rewrite else None, **written}


def _link_forward(node: GraphNode, item: Item, names: ServiceNames,
                  http_by_service: dict[str, list[tuple[GraphNode, Item]]], settler: Settler) -> list[GraphEdge]:
    """A gateway route to every route of its target that a request it matches can reach (the target settled with
    its service's environment, as `_forward_props` shows it)."""
    forward = item.forward
    assert forward is not None
    target = settler.value(item, forward.target)
    through = sidecar_path(forward.rewrite[1]) if forward.rewrite is not None and target is not None else None
    if through is None and (target is None or not target.known):
        node.props.update(match="unresolved", match_detail="the gateway route's target is not known")
        return []
    if through is None and CHOICE_OPEN in target.text:
        node.props.update(match="unresolved", match_detail=f"the gateway route's target is one of several "
                                                           f"({plain(target.text)})")
        return []
    assert target is not None
    if through is not None:   # to a Dapr sidecar's invoke API: the app of the app-id, at the rest of the path
        app, rest = through
        outer = forward.rewrite[0]
        forward = replace(forward, rewrite=(outer, rest) if normalise_path(outer) != normalise_path(rest) else None)
        service, how = names.find(app) if known_text(app) else (None, WHY_UNKNOWN_APP)
        how = f"Dapr sidecar invoke API, app-id {app}: {how}" if service is not None else how
    else:
        url = split_url(_bare_address(target)) if "://" in target.text or ":" in target.text else None
        name = url.host.text if url is not None and url.host is not None else target.text.strip("/")
        service, how = names.host(name, _port(target.text), [], dns=url.source == "URL host") if url is not None \
            else names.find(name)
    node.props["target_service"] = service
    if service is None:
        node.props.update(match="unresolved", match_detail=how)
        return []
    pattern = item.path.text if item.path is not None else "/"
    out, unsure = [], []
    blocks: dict[str, ServerBlock | None] = {}
    taken: list[str] = []   # reached through a router the proxy picks first
    for route, route_item in http_by_service.get(service, []):
        if route_item.path is None or item.http_method not in (None, ANY) and \
                route_item.http_method not in (None, ANY, item.http_method):
            continue   # a proxy route for one method reaches the target's routes of that method only
        without_case = caseless(route_item)
        outside = forward.outside(route_item.path.text, without_case)
        # either side matching without case lets some request in some case pass both
        reached = outside is not None and _reaches(outside, pattern, without_case or caseless(item))
        if "{?" in route_item.path.text:   # a route with an unknown part is never reached on a known path
            if reached:
                unsure.append(route.props["label"])
            continue
        if reached and _taken_first(item, outside, http_by_service.get(item.microservice, [])):
            taken.append(route.props["label"])
            continue
        if reached:
            out.append(make_edge(node.id, "HTTP_CALLS", route.id, {
                "match": "cross_service" if service != item.microservice else "intra_service",
                "evidence": {"forward": True, "gateway_path": pattern, "route_template": route_item.path.text,
                             "service": service, "service_matched_by": how,
                             "strip_prefix": forward.strip}}))
            blocks[route.id] = route_item.server_block
    out, why_not = _in_answering_block(out, blocks, http_by_service.get(service, []), item, target.text)
    if why_not and not out:
        node.props.update(match="unresolved", match_detail=why_not)
        return out
    if taken and not out and not unsure:
        node.props.update(match="unresolved", match_detail=(
            f"every route of {service} it reaches ({', '.join(sorted(taken)[:8])}) is taken by a router of higher "
            "priority first"))
        return out
    if unsure:   # no_route would claim what is not known
        listed = ", ".join(sorted(unsure)[:8]) + (" ..." if len(unsure) > 8 else "")
        detail = (f"{len(unsure)} routes of {service} have unknown parts that could make them reachable through "
                  f"{pattern} ({listed}); not linked")
        node.props.update(match="cross_service" if out else "unresolved", match_detail=detail)
        return out
    node.props.update(match="cross_service" if out else "no_route",
                      match_detail=None if out else f"no route of {service} is reachable through {pattern}")
    return out


def _taken_first(item: Item, outside: str, siblings: list[tuple[GraphNode, Item]]) -> bool:
    """Whether every request of ``outside`` (a path the route forwards to a target route) goes to another route of
    the same proxy first: a Traefik router of higher priority whose paths take it whole (``PathPrefix(`/api/up/docs`)``
    before ``PathPrefix(`/api/up`)``), as Traefik picks the matching router of highest priority."""
    mine = item.forward.priority if item.forward is not None else None
    if mine is None:
        return False
    for _, other in siblings:
        theirs = other.forward.priority if other.forward is not None else None
        if other is item or theirs is None or theirs <= mine or other.flavor != item.flavor or other.path is None:
            continue
        if _covers(other.path.text, outside):
            return True
    return False


def _covers(pattern: str, path: str) -> bool:
    """Whether every request of ``path`` (a template) matches ``pattern``: a literal path the same, or ``/a/b/**``
    whose literal segments begin the path's (a parameter there takes other values too: not covered)."""
    wanted, have = segments(pattern), segments(path)
    if not wanted or wanted[-1] != "**":
        return wanted == have and all(segment_kind(w) == "literal" for w in wanted)
    prefix = wanted[:-1]
    return len(have) >= len(prefix) and all(
        segment_kind(w) == "literal" and w == h for w, h in zip(prefix, have[:len(prefix)], strict=True))


#: gateways that send the target's host as the ``Host`` header unless told to keep the caller's (Spring Cloud
#: Gateway without ``PreserveHostHeader``; Zuul)
_SENDS_TARGET_HOST = ("spring_cloud_gateway", "zuul")


_LOOPBACK = ("localhost", "127.0.0.1", "0.0.0.0", "host.docker.internal")


def _sent_host(item: Item, target: str) -> tuple[str | None, int | None]:
    """The ``Host`` a gateway route's forward carries (None: not known, as when it keeps the caller's) and the
    port it reaches (None: not known: a loopback address's port is the one published, not nginx's own). A URI
    discovery resolves (``lb://edge``) reaches an instance's address, which is neither known here nor ``edge``."""
    if "://" in target and target.split("://", 1)[0].lower() not in ("http", "https", "ws", "wss"):
        return None, None
    url = split_url(literal(target)) if "://" in target else None
    port = _port(target) or (443 if target.startswith("https:") else 80)
    if url is not None and url.host is not None and url.host.text in _LOOPBACK:
        port = None
    forward = item.forward
    keeps = forward is not None and any("PreserveHostHeader" in f for f in forward.filters)
    if item.flavor not in _SENDS_TARGET_HOST or keeps or url is None or url.host is None or not url.host.known:
        return None, port
    return url.host.text, port


def _in_answering_block(edges: list[GraphEdge], blocks: dict[str, ServerBlock | None],
                        target_routes: list[tuple[GraphNode, Item]], item: Item,
                        target: str) -> tuple[list[GraphEdge], str | None]:
    """The forward's links to nginx locations kept to the ``server`` block nginx picks for the request's Host and
    port (`virtual_hosts.answering_block`): a catch-all forward to a proxy reaches one block's locations, never
    every block's ``location /``. nginx picks among every block of the proxy's files (``peers``), a block holding
    none of the locations reached (or no location at all) included. When the block cannot be told, no location is
    linked, and why is said."""
    reached = {b for b in blocks.values() if b is not None}
    if not reached:
        return edges, None
    every = {peer for _, route in target_routes if route.server_block is not None
             for peer in route.server_block.peers or (route.server_block,)}
    if len(every) < 2:
        return edges, None
    host, port = _sent_host(item, target)
    chosen, why = answering_block(sorted(every, key=lambda b: (b.file, b.order)), host, port)
    if chosen is None:
        kept = [e for e in edges if blocks.get(e.dst) is None]
        return kept, f"the target proxy has several server blocks this route may reach: {why}; not linked"
    kept = [e for e in edges if blocks.get(e.dst) in (None, chosen)]
    if len(kept) < len(edges) and not any(blocks.get(e.dst) == chosen for e in kept):
        return kept, f"nginx answers the request with another server block ({why}), which holds no location it reaches"
    return kept, None


def _may_fit(template: str, route_item: Item) -> bool:
    """`may_fit`, without case where the route's framework matches so."""
    if caseless(route_item):
        return may_fit(template.lower(), route_item.path.text.lower())
    return may_fit(template, route_item.path.text)


def _reaches(outside: str, pattern: str, caseless: bool) -> bool:
    """A request the gateway pattern matches can reach the route's template (without case where the gateway or the
    route's framework matches so)."""
    return match_score(outside.lower() if caseless else outside, pattern.lower() if caseless else pattern) is not None


def amqp_topic_match(pattern: str, key: str) -> bool:
    """Whether a topic exchange's binding key ``pattern`` routes ``key`` (words split at dots; ``*`` is one word,
    ``#`` zero or more)."""
    def match(p: list[str], k: list[str]) -> bool:
        if not p:
            return not k
        if p[0] == "#":
            return any(match(p[1:], k[i:]) for i in range(len(k) + 1))
        return bool(k) and (p[0] == "*" or p[0] == k[0]) and match(p[1:], k[1:])
    return match(pattern.split("."), key.split(".") if key else [])


def _async_edges(node: GraphNode, item: Item, found: list[GraphNode], broker: str | None,
                 topic: str) -> list[GraphEdge]:
    """A producer's ``ASYNC_CALLS`` to the listener routes its topic reaches, its match cross-service when any
    listener is in another service."""
    matches = ["intra_service" if route.props["microservice"] == item.microservice else "cross_service"
               for route in found]
    node.props.update(match="cross_service" if "cross_service" in matches else "intra_service", match_detail=None,
                      candidates=[route.id for route in found])
    return [make_edge(node.id, "ASYNC_CALLS", route.id, {"match": match, "evidence": {"broker": broker, "topic": topic}})
            for route, match in zip(found, matches, strict=True)]


def _link_redis(node: GraphNode, item: Item, routes: list[tuple[GraphNode, Item]]) -> list[GraphEdge]:
    """A Redis publish to every subscription its channel reaches (`redis_channel_reaches`)."""
    channel = item.topic.text if item.topic is not None else UNKNOWN
    if not any(part for part in _RUNTIME.split(channel)):
        return _unresolved(node, "; ".join(item.why()) or "the channel is not known")
    found = [route for route, sub in routes if sub.topic is not None and
             redis_channel_reaches(channel, sub.topic.text, sub.flavor == "redis_pattern")]
    if not found:
        return _unresolved(node, f"no subscription in the project reads redis channel '{plain(channel)}' "
                                 "(its subscribers may be outside the project)")
    return _async_edges(node, item, found, "redis", plain(channel))


#: a run-time part of a folded value (``{?}``, ``{?:name}``)
_RUNTIME = re.compile(r"\{\?[^{}]*\}")


def redis_channel_reaches(published: str, subscribed: str, pattern: bool) -> bool:
    """Whether a message published on ``published`` reaches a subscription of ``subscribed`` (both folded): the
    same literal text, a run-time part of the one facing a run-time part of the other (the same family of
    channels); a pattern subscription by Redis's glob (``*`` any run, ``?`` one character, ``[..]`` a class), a
    run-time part of the published channel matched by ``*`` alone. A subscription with no literal text at all,
    or a pattern with a run-time part, is never reached."""
    if not any(_RUNTIME.split(subscribed)):
        return False
    if not pattern:
        return _RUNTIME.split(published) == _RUNTIME.split(subscribed) and \
            len(_RUNTIME.findall(published)) == len(_RUNTIME.findall(subscribed))
    if _RUNTIME.search(subscribed):
        return False
    text, glob, i = _RUNTIME.sub("\x00", published), "", 0
    while i < len(subscribed):
        ch, close = subscribed[i], subscribed.find("]", i + 1)
        if ch == "[" and close > i + 1:
            glob, i = glob + "[" + re.escape(subscribed[i + 1:close]).replace("\\-", "-") + "]", close + 1
            continue
        glob += ".*" if ch == "*" else "[^\x00]" if ch == "?" else re.escape(ch)
        i += 1
    return re.fullmatch(glob, text, re.S) is not None


def _link_producer(node: GraphNode, item: Item, listeners: dict[tuple[str, str], list[GraphNode]],
                   patterns: list[tuple[str, str, GraphNode]] | None = None) -> list[GraphEdge]:
    if item.topic is None or not item.topic.known or item.problems:
        return _unresolved(node, "; ".join(item.why()) or "the topic is not known")
    found = listeners.get((item.broker or "", item.topic.text), [])
    if item.broker == "rabbit":   # a topic exchange's patterns, a fanout's every key
        found = found + [route for exchange, pattern, route in patterns or [] if item.topic.text.startswith(exchange + "/")
                         and amqp_topic_match(pattern, item.topic.text[len(exchange) + 1:]) and route not in found]
    if not found:
        return _unresolved(node, f"no listener in the project reads {item.broker} '{item.topic.text}' "
                                 "(its consumers may be outside the project)")
    return _async_edges(node, item, found, item.broker, item.topic.text)

