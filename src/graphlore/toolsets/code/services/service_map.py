"""A picture of the system: microservices and the links between them, as Mermaid or Graphviz DOT.

One arrow per (caller service, called service, kind, match): HTTP arrows list the routes called (method
and path), gRPC arrows the methods (``package.Service/Method``), async arrows the topics; a gateway's arrows
list the routes that forward (``ANY /accounts/** (gateway)``). ``cross_service`` and ``intra_service`` links are solid; ``ambiguous``
ones dashed and labelled so, as are ``no_route`` ones (a service called at a path it does not serve: ``GET
/warehouses (no route)``); clients and producers that reach nothing are dashed ``unresolved`` arrows to the
project service their host names (which of its routes is not known), else to the outside name they use
(``api.example.com (outside)``), or to ``?`` when even that is unknown, labelled with what they ask for. With a focus service, only the services within ``depth`` links of it (either direction)
are drawn.

A client or producer in a **library** (a microservice that is not deployable: its code runs inside whichever
service calls it) is drawn from each deployable service whose code reaches the symbol that makes it through calls
(`library_users`: the calls followed back, through the library's own methods, at most `CALLER_DEPTH` deep; test
code and calls resolved by name alone left out), so an arrow names the service that runs the request; where no deployable service's call reaches
it, the arrow stays the library's (who runs it is not known).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from graphlore.store import Store

#: labels listed on one arrow before "+N more"
LABELS_PER_ARROW = 4
#: calls followed back from a library's client to the services that run it
CALLER_DEPTH = 8


@dataclass
class Arrow:
    source: str
    target: str
    kind: str          # http | grpc | async
    match: str         # cross_service | intra_service | ambiguous | unresolved
    labels: list[str] = field(default_factory=list)

    @property
    def dashed(self) -> bool:
        return self.match in ("ambiguous", "unresolved", "no_route")


def arrows(store: Store) -> tuple[list[str], list[Arrow]]:
    """Every microservice and every arrow between them (see the module docstring)."""
    microservices = list(store.iter_nodes("microservice"))
    services = sorted(node.name for node in microservices)
    known = set(services)
    deployable = {node.name for node in microservices if node.props.get("deployable", True)}
    gateways = [n for n in store.iter_nodes("route") if n.props.get("forward")]  # a gateway's routes call too
    callers = list(store.iter_nodes("client")) + list(store.iter_nodes("producer")) + gateways
    by_key: dict[tuple[str, str, str, str], Arrow] = {}

    def add(source: str, target: str, kind: str, match: str, label: str) -> None:
        arrow = by_key.setdefault((source, target, kind, match), Arrow(source, target, kind, match))
        if label not in arrow.labels:
            arrow.labels.append(label)

    users = library_users(store, [c for c in callers if c.kind != "route"], deployable)
    links = store.edges_of([n.id for n in callers], direction="out", types=["HTTP_CALLS", "GRPC_CALLS", "ASYNC_CALLS"])
    targets = {n.id: n for n in store.get_nodes(list({e.dst for e in links.edges}))}
    linked: dict[str, list] = defaultdict(list)
    for edge in links.edges:
        linked[edge.src].append(edge)
    for caller in callers:
        p = caller.props
        if caller.kind == "route":  # a gateway route: one label, the requests it forwards
            for edge in linked.get(caller.id, []):
                route = targets.get(edge.dst)
                if route is not None:
                    add(p["microservice"], route.props["microservice"], "http", edge.props["match"],
                        f"{p['label']} (gateway)")
            if p.get("match") == "unresolved":
                # a gateway route's target_service is set only where its target names the service
                add(p["microservice"], _called(p.get("target_service"), True, known), "http", "unresolved",
                    f"{p['label']} (gateway)")
            continue
        kind = ("grpc" if p.get("grpc") else "http") if caller.kind == "client" else "async"
        sources = users.get(caller.id) or [p["microservice"]]
        for edge in linked.get(caller.id, []):
            route = targets.get(edge.dst)
            if route is None or edge.props.get("via"):   # through a proxy: its hops are the arrows
                continue
            for source in sources:
                if route.kind == "microservice":  # no_route: the service is known, no route of it fits the path
                    add(source, route.name, kind, edge.props["match"],
                        f"{p.get('http_method') or '?'} {p.get('target_path_template') or '?'} (no route)")
                else:
                    add(source, route.props["microservice"], kind, edge.props["match"], route.props["label"])
        if p.get("match") == "unresolved":
            outside = _called(p.get("target_service"), bool(p.get("target_service_matched_by")), known) \
                if caller.kind == "client" else "?"
            what = (f"{p.get('broker')} {p.get('topic') or '?'}" if caller.kind != "client" else p["grpc"]
                    if p.get("grpc") else f"{p.get('http_method') or '?'} {p.get('target_path_template') or '?'}")
            for source in sources:
                add(source, outside, kind, "unresolved", what)
    for arrow in by_key.values():
        if arrow.kind == "grpc":   # "grpc pkg.Service/Method" -> the method, as the arrow already says gRPC
            arrow.labels = [label.removeprefix("grpc ") for label in arrow.labels]
    return services, sorted(by_key.values(), key=lambda a: (a.source, a.target, a.kind, a.match))


def library_users(store: Store, callers: list, deployable: set[str]) -> dict[str, list[str]]:
    """Per client or producer of a library (its microservice not ``deployable``): the deployable services whose
    (non-test) symbols reach the symbol that declares it through ``CALLS``, followed back `CALLER_DEPTH` deep
    through any symbol (a library's own methods pass it on); a caller none reaches is left out (not known). A call
    resolved by its name alone (``name_only``: the receiver's type is not known, the only project method so named)
    is not followed: it is no evidence that the service runs the library's code."""
    in_library = [c for c in callers if c.props.get("microservice") not in deployable]
    if not in_library:
        return {}
    declared = store.edges_of([c.id for c in in_library], direction="in", types=["DECLARES_CLIENT",
                                                                                "DECLARES_PRODUCER"])
    reached: dict[str, set[str]] = defaultdict(set)   # symbol -> the library callers it leads to
    frontier: dict[str, set[str]] = defaultdict(set)
    for edge in declared.edges:
        frontier[edge.src].add(edge.dst)
    for _ in range(CALLER_DEPTH + 1):
        grown: dict[str, set[str]] = defaultdict(set)
        for symbol, origins in frontier.items():
            new = origins - reached[symbol]
            if new:
                reached[symbol] |= new
                grown[symbol] = new
        if not grown:
            break
        frontier = defaultdict(set)
        for edge in store.edges_of(list(grown), direction="in", types=["CALLS"]).edges:
            if edge.props.get("resolution") != "name_only":   # a receiver of unknown type is no evidence
                frontier[edge.src] |= grown[edge.dst]
    out: dict[str, set[str]] = defaultdict(set)
    for node in store.get_nodes(list(reached)):
        service = node.props.get("microservice")
        if service in deployable and node.props.get("role") != "TEST":
            for origin in reached[node.id]:
                out[origin].add(service)
    return {origin: sorted(found) for origin, found in out.items()}


def _called(named: str | None, matched: bool, services: set[str]) -> str:
    """Where an unresolved caller's arrow points: the project service its host was matched to (``matched``: the
    host is that service, which route is not known), else the name it uses (``api.example.com (outside)``: a name
    the linker refused, as one of a tool no deployment runs, is never drawn to the service of that name), else
    ``?``."""
    if matched and named in services:
        return named
    return f"{named} (outside)" if named else "?"


def focus(services: list[str], found: list[Arrow], service: str, depth: int) -> tuple[list[str], list[Arrow]]:
    """The services within ``depth`` links of ``service`` and the arrows among them."""
    near = {service}
    frontier = {service}
    for _ in range(depth):
        step = {a.target for a in found if a.source in frontier} | {a.source for a in found if a.target in frontier}
        frontier = step - near
        near |= frontier
    kept = [a for a in found if a.source in near and (a.target in near or a.match == "unresolved")]
    return [s for s in services if s in near], kept


def _node_id(name: str) -> str:
    return "n_" + re.sub(r"\W", "_", name)


def _label(arrow: Arrow, newline: str) -> str:
    shown = arrow.labels[:LABELS_PER_ARROW]
    if len(arrow.labels) > LABELS_PER_ARROW:
        shown.append(f"+{len(arrow.labels) - LABELS_PER_ARROW} more")
    if arrow.match in ("ambiguous", "unresolved", "no_route"):
        shown.insert(0, f"({arrow.match})")
    return newline.join(shown)


def mermaid(services: list[str], found: list[Arrow]) -> str:
    lines = ["flowchart LR"]
    names = list(dict.fromkeys([*services, *(a.target for a in found)]))
    for name in names:
        shape = f'{_node_id(name)}(["{name}"])' if name.endswith("(outside)") or name == "?" else \
            f'{_node_id(name)}["{name}"]'
        lines.append(f"    {shape}")
    for arrow in found:
        label = _label(arrow, "<br/>").replace('"', "#quot;")
        link = "-.->" if arrow.dashed else ("==>" if arrow.kind == "async" else "-->")
        lines.append(f'    {_node_id(arrow.source)} {link}|"{label}"| {_node_id(arrow.target)}')
    return "\n".join(lines)


def dot(services: list[str], found: list[Arrow]) -> str:
    lines = ["digraph services {", "    rankdir=LR;", "    node [shape=box];"]
    names = list(dict.fromkeys([*services, *(a.target for a in found)]))
    for name in names:
        extra = " shape=ellipse style=dashed" if name.endswith("(outside)") or name == "?" else ""
        lines.append(f'    "{name}" [label="{name}"{extra}];')
    for arrow in found:
        label = _label(arrow, "\\n").replace('"', '\\"')
        style = " style=dashed" if arrow.dashed else (" style=bold" if arrow.kind == "async" else "")
        lines.append(f'    "{arrow.source}" -> "{arrow.target}" [label="{label}"{style}];')
    lines.append("}")
    return "\n".join(lines)
