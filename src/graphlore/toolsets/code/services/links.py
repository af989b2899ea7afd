"""Cross-service links: which route each client calls and which listeners each producer reaches, and the
records (nodes and edges) of part 2.

**Which service.** A client names a service by a Feign ``name``/``value``, a URL's host, an ``lb://``
name or a base URL. The name is looked up among the project's microservices: their
``spring.application.name`` first, then their other declared names (``artifactId``, ``package.json`` and
``pyproject`` names), then their folder names (the fallback). A name that is none of these (an outside
API) or that names two services leaves the client unresolved, saying so.

**Which route.** Among the target service's HTTP routes with a fitting method (a route that takes any
method fits every client), those whose template fits the client's (`endpoints.match_score`); the most
specific wins, as in Spring. One: ``cross_service`` (another service) or ``intra_service``. Several
equally specific: ``ambiguous``, every one linked with that mark and none chosen. None, or a client
whose path or service is not known: ``unresolved``, with the reason on the client. A client path that
is not known at all (no known segment) is never matched.

**Messages.** A producer reaches every listener route with the same broker and topic (queue,
destination): publish/subscribe, so several listeners are not ambiguous. A topic no listener in the
project reads is ``unresolved`` (its consumers may be elsewhere).

Links never guess: a value that cannot be folded, a service that cannot be named, or a route that does
not fit exactly leaves the client or producer unresolved, and says why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..languages.folding import literal
from ..layout.layout import Layout
from ..model import GraphEdge, GraphNode, make_edge, node_text, short_hash
from . import grpc_links
from .endpoints import ANY, Item, join_paths, match_score, segment_kind, segments, split_url

LINK_MATCHES = ("cross_service", "intra_service", "ambiguous", "unresolved")


@dataclass
class ServiceNames:
    """Names that identify each microservice, by how strong they are."""

    layout: Layout
    by_spring: dict[str, set[str]] = field(default_factory=dict)
    by_declared: dict[str, set[str]] = field(default_factory=dict)
    by_folder: dict[str, set[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, service in self.layout.services.items():
            for source, declared in service.declared_names.items():
                table = self.by_spring if source == "spring.application.name" else self.by_declared
                table.setdefault(declared, set()).add(name)
            self.by_declared.setdefault(name, set()).add(name)
            folder = service.root.rsplit("/", 1)[-1] if service.root != "." else self.layout.root.name
            self.by_folder.setdefault(folder, set()).add(name)

    def find(self, name: str) -> tuple[str | None, str]:
        """(the service, how it matched) or (None, why not)."""
        for table, how in ((self.by_spring, "spring.application.name"), (self.by_declared, "declared name"),
                           (self.by_folder, "folder name (fallback)")):
            found = table.get(name)
            if found:
                if len(found) > 1:
                    return None, f"'{name}' names {len(found)} microservices ({', '.join(sorted(found))})"
                return next(iter(found)), how
        return None, f"'{name}' is not a microservice of this project (an outside service?)"


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
            "resolved": item.resolved, "unresolved_reason": "; ".join(why) if why and not item.resolved else None}


def link(items: Iterable[Item], layout: Layout) -> tuple[list[GraphNode], list[GraphEdge]]:
    """Part 2's nodes and edges from the folded items (see the module docstring)."""
    names = ServiceNames(layout)
    nodes: list[GraphNode] = []
    edges: list[GraphEdge] = []
    seen: Counter = Counter()
    routes: list[tuple[GraphNode, Item]] = []
    clients: list[tuple[GraphNode, Item]] = []
    producers: list[tuple[GraphNode, Item]] = []
    for item in items:
        if item.kind == "route":
            node_id = _id("rt_", item, seen)
            props = _base(item, _label(item), "handler")
            props.update(framework=item.flavor, path=item.written, http_method=item.http_method,
                         path_template=item.path.text if item.path is not None else None, broker=item.broker,
                         topic=item.topic.text if item.topic is not None else None, grpc=item.grpc,
                         grpc_service=grpc_links.service_of(item))
            node = GraphNode(node_id, "route", props["label"], node_text(props["label"], item.owner_fqn, item.written, ""),
                             props)
            nodes.append(node)
            edges.append(make_edge(item.owner, "EXPOSES", node_id))
            routes.append((node, item))
        elif item.kind == "client":
            if item.grpc is None:
                prepare_client(item)
            node_id = _id("cl_", item, seen)
            props = _base(item, "", "declaring")
            props.update(client_kind=item.flavor, http_method=item.http_method, target_path=item.written,
                         target_path_template=item.path.text if item.path is not None else None,
                         base_url=item.base_url, target_service=None, target_service_source=item.target_source or None,
                         grpc=item.grpc, grpc_service=grpc_links.service_of(item))
            node = GraphNode(node_id, "client", "", "", props)
            clients.append((node, item))
        else:
            node_id = _id("pr_", item, seen)
            props = _base(item, _label(item), "declaring")
            props.update(producer_kind=item.flavor, broker=item.broker, topic_written=item.written,
                         topic=item.topic.text if item.topic is not None else None)
            node = GraphNode(node_id, "producer", props["label"],
                             node_text(props["label"], item.owner_fqn, item.written, ""), props)
            producers.append((node, item))

    http_by_service: dict[str, list[tuple[GraphNode, Item]]] = {}
    listeners: dict[tuple[str, str], list[GraphNode]] = {}
    grpc_routes = grpc_links.routes_by_method(routes)
    for node, item in routes:
        if item.grpc is not None:
            continue
        if item.broker is None and item.path is not None:
            http_by_service.setdefault(item.microservice, []).append((node, item))
        elif item.broker is not None and item.topic is not None and item.topic.known:
            listeners.setdefault((item.broker, item.topic.text), []).append(node)

    for node, item in clients:
        edges.append(make_edge(item.owner, "DECLARES_CLIENT", node.id))
        if item.grpc is not None:
            edges += grpc_links.link_client(node, item, grpc_routes)
        else:
            edges += _link_client(node, item, names, http_by_service)
        nodes.append(node)
    for node, item in producers:
        edges.append(make_edge(item.owner, "DECLARES_PRODUCER", node.id))
        edges += _link_producer(node, item, listeners)
        nodes.append(node)
    return nodes, edges


def _unresolved(node: GraphNode, why: str) -> list[GraphEdge]:
    node.props.update(match="unresolved", match_detail=why, candidates=[])
    return []


def _link_client(node: GraphNode, item: Item, names: ServiceNames,
                 http_by_service: dict[str, list[tuple[GraphNode, Item]]]) -> list[GraphEdge]:
    props = node.props
    service: str | None = None
    if item.target is not None and item.target.known and item.target.text:
        target_name = _service_name(item.target.text)
        props["target_service"] = target_name
        service, how = names.find(target_name)
    else:
        how = "; ".join(item.why()) or "the client names no service"
    if service is not None:
        props["target_service"] = service
        props["target_service_matched_by"] = how
    template = item.path.text if item.path is not None else None
    props["label"] = f"{item.http_method or '?'} {props['target_service'] or '?'} {template or '?'}"
    node.name = props["label"]
    node.text = node_text(props["label"], item.owner_fqn, item.written, "")
    if service is None:
        return _unresolved(node, how)
    if template is None or not any(segment_kind(s) == "literal" for s in segments(template)) and "{?}" in template:
        return _unresolved(node, "the path is not known (" + ("; ".join(item.why()) or "no path") + ")")
    fits = []
    for route, route_item in http_by_service.get(service, []):
        method_fits = route_item.http_method == ANY or item.http_method is None or \
            route_item.http_method == item.http_method
        score = match_score(template, route_item.path.text) if method_fits else None
        if score is not None:
            fits.append((score, route, route_item))
    if not fits:
        known = sorted(r.props["label"] for r, _ in http_by_service.get(service, []))
        listed = ", ".join(known[:8]) + (" ..." if len(known) > 8 else "") if known else "none found"
        return _unresolved(node, f"no route of {service} fits {item.http_method or 'any method'} {template} "
                                 f"(its routes: {listed})")
    best = max(score for score, _, _ in fits)
    top = [(route, route_item) for score, route, route_item in fits if score == best]
    if len(top) == 1:
        match = "intra_service" if top[0][1].microservice == item.microservice else "cross_service"
    else:
        match = "ambiguous"
    props.update(match=match, match_detail=(f"{len(top)} routes of {service} fit equally" if match == "ambiguous"
                                            else None), candidates=[route.id for route, _ in top])
    partial = "{?}" in template
    return [make_edge(node.id, "HTTP_CALLS", route.id, {
        "match": match,
        "evidence": {"http_method": item.http_method, "client_template": template,
                     "route_template": route_item.path.text, "route_method": route_item.http_method,
                     "service": service, "service_matched_by": how, "partial_path": partial}})
        for route, route_item in top]


def _link_producer(node: GraphNode, item: Item, listeners: dict[tuple[str, str], list[GraphNode]]) -> list[GraphEdge]:
    if item.topic is None or not item.topic.known or item.problems:
        return _unresolved(node, "; ".join(item.why()) or "the topic is not known")
    found = listeners.get((item.broker or "", item.topic.text), [])
    if not found:
        return _unresolved(node, f"no listener in the project reads {item.broker} '{item.topic.text}' "
                                 "(its consumers may be outside the project)")
    matches = ["intra_service" if route.props["microservice"] == item.microservice else "cross_service"
               for route in found]
    node.props.update(match="cross_service" if "cross_service" in matches else "intra_service", match_detail=None,
                      candidates=[route.id for route in found])
    return [make_edge(node.id, "ASYNC_CALLS", route.id, {
        "match": match, "evidence": {"broker": item.broker, "topic": item.topic.text}})
        for route, match in zip(found, matches, strict=True)]


#: clients whose service and path come from one URL (the others name the service apart)
URL_CLIENTS = frozenset({"rest_template", "web_client", "rest_client", "requests", "httpx", "aiohttp", "fetch",
                         "net_http", "http_client", "ktor_client",
                         "axios"})


def prepare_client(item: Item) -> None:
    """Take a client's URL apart: the service it names and the path (see `endpoints.split_url`)."""
    if item.flavor in URL_CLIENTS:
        if item.path is None:
            return
        base = literal(item.base_url) if item.base_url else None
        url = split_url(item.path, base)
        item.path = url.path
        if url.host is not None:
            item.target, item.target_source = url.host, item.target_source or url.source
        elif not item.problems:
            item.problems.append("the URL names no service (a path without a base URL)"
                                 if url.source == "path only" else "the URL's start is not known")
    elif item.target is not None and item.target_source in ("feign url", "@HttpExchange url") and item.target.known:
        url = split_url(item.target)
        if url.host is None:
            item.problems.append(f"the {item.target_source} names no host ({item.target.text})")
            return
        item.target = url.host
        if item.path is not None and url.path.text not in ("", "/"):
            item.path = join_paths([url.path, item.path])


def _service_name(target: str) -> str:
    """The service a target names: a bare name, or the host of a URL."""
    if "://" in target:
        host = target.split("://", 1)[1].split("/", 1)[0]
        return host.split("@")[-1].split(":")[0]
    return target.strip("/")
