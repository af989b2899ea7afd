"""gRPC links: a client reaches the routes that serve its fully qualified method (``package.Service/Method``).

One service serves it: ``cross_service`` (another microservice) or ``intra_service``. Several services serve
it (each its own implementation of the same service): ``ambiguous``, every one linked with that mark and
none chosen (the address a channel is opened with is a deployment value). None: ``unresolved`` (the server
may be outside the project, or its registration was not read). A client whose method is not known (its
service is declared by no ``.proto``, or by several packages) stays ``unresolved`` and says why. The
evidence on each ``GRPC_CALLS`` edge is the method, the serving microservice and how it was matched.

**The channel.** Where the address a client's channel dials is known (``channel_address``, settled with the
environment the project's deployment files give its service, and the service its host names:
``channel_service``), it is evidence only: the link still goes by the fully qualified method. An edge to the
service the address names says so (``channel_agrees``); an address that names another service than every
one serving the method is said (``channel_conflict``), never taken over the method.

**grpc-gateway.** An HTTP route a grpc-gateway mux serves (`frameworks.grpc.go`) forwards to the gRPC method
its ``google.api.http`` rule maps: a ``GRPC_CALLS`` edge to each route serving that method, marked as above, with
``gateway_forward`` in its evidence (the endpoint the mux dials is a deployment value; the method decides).
"""

from __future__ import annotations

from ..model import GraphEdge, GraphNode, make_edge, node_text
from .endpoints import Item


def service_of(item: Item) -> str | None:
    """The fully qualified service of a gRPC route or client (None for HTTP and messaging)."""
    return item.grpc.split("/", 1)[0] if item.grpc else None


def routes_by_method(routes: list[tuple[GraphNode, Item]]) -> dict[str, list[tuple[GraphNode, Item]]]:
    out: dict[str, list[tuple[GraphNode, Item]]] = {}
    for node, item in routes:
        if item.grpc is not None and item.resolved:
            out.setdefault(item.grpc, []).append((node, item))
    return out


def link_client(node: GraphNode, item: Item, routes: dict[str, list[tuple[GraphNode, Item]]]) -> list[GraphEdge]:
    props = node.props
    service = item.grpc.split("/", 1)[0] if item.grpc else "?"
    serving = routes.get(item.grpc or "", []) if item.resolved else []
    servers = sorted({route_item.microservice for _, route_item in serving})
    props["target_service"] = servers[0] if len(servers) == 1 else None
    props["label"] = f"grpc {props['target_service'] or '?'} {item.grpc}"
    node.name = props["label"]
    node.text = node_text(props["label"], item.owner_fqn, item.written, "")
    if not item.resolved:
        props.update(match="unresolved", match_detail="; ".join(item.why()), candidates=[])
        return []
    if not serving:
        props.update(match="unresolved", candidates=[],
                     match_detail=f"no microservice of the project serves {item.grpc} (its {service} server may "
                                  "be outside the project)")
        return []
    if len(servers) == 1:
        match = "intra_service" if servers[0] == item.microservice else "cross_service"
        detail = None
    else:
        match, detail = "ambiguous", f"{len(servers)} microservices serve {item.grpc} ({', '.join(servers)})"
    props.update(match=match, match_detail=detail, candidates=[route.id for route, _ in serving])
    channel = props.get("channel_service")
    if channel is not None and channel not in servers:
        props["channel_conflict"] = (f"the channel's address {props['channel_address']} names {channel}, which does "
                                     f"not serve {item.grpc} ({', '.join(servers)} does); linked by the method")
    return [make_edge(node.id, "GRPC_CALLS", route.id, {
        "match": match,
        "evidence": {"grpc": item.grpc, "service": route_item.microservice,
                     "service_matched_by": "fully qualified method",
                     **({"channel_address": props["channel_address"], "channel_agrees": True}
                        if channel is not None and channel == route_item.microservice else {})}})
        for route, route_item in serving]


def link_gateway(node: GraphNode, item: Item, routes: dict[str, list[tuple[GraphNode, Item]]]) -> list[GraphEdge]:
    """A grpc-gateway HTTP route to the routes serving the gRPC method it forwards to (see the module docstring)."""
    serving = routes.get(item.forward_grpc or "", [])
    servers = sorted({route_item.microservice for _, route_item in serving})
    node.props["forward"] = {"grpc": item.forward_grpc, "target": servers[0] if len(servers) == 1 else None}
    if not serving:
        node.props.update(match="unresolved", match_detail=f"no microservice of the project serves "
                                                           f"{item.forward_grpc}")
        return []
    if len(servers) == 1:
        match = "intra_service" if servers[0] == item.microservice else "cross_service"
        node.props.update(match=match, match_detail=None)
    else:
        match = "ambiguous"
        node.props.update(match=match, match_detail=f"{len(servers)} microservices serve {item.forward_grpc} "
                                                    f"({', '.join(servers)})")
    return [make_edge(node.id, "GRPC_CALLS", route.id, {
        "match": match, "evidence": {"gateway_forward": True, "grpc": item.forward_grpc,
                                     "service": route_item.microservice,
                                     "service_matched_by": "fully qualified method"}})
        for route, route_item in serving]
