"""A request that reaches a proxy's route (a catch-all ``location /``, ``/api/**``, a YARP ``{**catch-all}``) is
followed on to the route of the upstream that serves it: the path the upstream sees (the proxy's strip or
rewrite applied) is matched as a client's own path is. The link names the proxy routes it went ``via``; a path
the upstream does not serve is ``no_route`` at the upstream, never the end at ``/**`` (`services.links._through`)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import orders_service, write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.folding import literal
from graphlore.toolsets.code.services.endpoints import Forward

WEB = '''import requests


def load_order(order_id):
    return requests.get(f"http://gateway/orders/{order_id}").json()


def load_cart(cart_id):
    return requests.get(f"http://gateway/carts/{cart_id}").json()
'''


def _tree(root: Path, gateway_conf: str, web: str = WEB, extra: dict[str, str] | None = None) -> Path:
    return write_tree(root, {
        **orders_service(),
        "web/Dockerfile": "FROM python:3.12\n", "web/requirements.txt": "requests\n", "web/client.py": web,
        "gateway/Dockerfile": "FROM nginx:1.27-alpine\nCOPY nginx.conf /etc/nginx/nginx.conf\n",
        "gateway/nginx.conf": gateway_conf,
        "docker-compose.yml": "services:\n  gateway:\n    build: ./gateway\n  orders:\n    build: ./orders\n"
                              "  web:\n    build: ./web\n", **(extra or {})})


def _links(root: Path) -> tuple[dict, list[tuple[str, str, str, tuple[str, ...]]]]:
    """(clients by their function, (client function, target, match, via labels) of each client's links)."""
    nodes, edges = CodeGraph.build(root).snapshot()
    clients = {n.props["declaring_fqn"].rsplit(".", 1)[-1]: n.props for n in nodes.values() if n.kind == "client"}
    links = []
    for edge in edges.values():
        src, dst = nodes[edge.src], nodes[edge.dst]
        if edge.type == "HTTP_CALLS" and src.kind == "client":
            target = dst.name if dst.kind == "microservice" else f"{dst.props['microservice']} {dst.props['label']}"
            links.append((src.props["declaring_fqn"].rsplit(".", 1)[-1], target, edge.props["match"],
                          tuple(edge.props.get("via_labels") or ()), edge.props.get("through")))
    return clients, sorted(links, key=repr)


def test_the_path_the_upstream_sees_is_the_forwards_strip_or_rewrite_undone():
    strip = Forward(literal("lb://orders"), 1, None, "/api/**")
    assert strip.inside("/api/orders/7") == "/orders/7" and strip.inside("/") is None
    swap = Forward(literal("http://orders"), 0, ("/api/", "/v1/"), "/api/**")
    assert swap.inside("/api/orders/{id}") == "/v1/orders/{id}" and swap.inside("/other/x") is None
    to_root = Forward(literal("http://orders"), 0, ("/api", "/"), "/api/**")
    assert to_root.inside("/api/orders") == "/orders" and to_root.inside("/api") == "/"
    one_path = Forward(literal("http://orders"), 0, ("/shop/{id}", "/orders/{id}"), "/shop/{id}")
    assert one_path.inside("/shop/{order}") == "/orders/{id}"
    same = Forward(literal("http://orders"), 0, None, "/**")
    assert same.inside("/orders/7") == "/orders/7"
    # the outside of a route reached through the forward is where the request came from
    assert swap.outside(swap.inside("/api/orders/{id}")) == "/api/orders/{id}"


def test_a_catch_all_location_leads_on_to_the_served_route_or_says_no_route_at_the_upstream(tmp_path: Path):
    """Before: both clients ended at ``ANY /**`` (which forwards to every route of orders)."""
    clients, links = _links(_tree(tmp_path, "server {\n  location / {\n    proxy_pass http://orders:8000;\n  }\n}\n"))
    hop = {"match": "cross_service", "detail": None, "upstream": "orders", "upstream_path": "/orders/{order_id}"}
    missing = ("no route of orders fits GET /carts/{cart_id} (its routes: GET /orders/{order_id}, "
               "POST /orders)")
    assert links == sorted([
        ("load_cart", "gateway ANY /**", "cross_service", (), {
            "match": "no_route", "detail": missing, "upstream": "orders", "upstream_path": "/carts/{cart_id}"}),
        ("load_cart", "orders", "no_route", ("gateway ANY /**",), None),
        ("load_order", "gateway ANY /**", "cross_service", (), hop),
        ("load_order", "orders GET /orders/{order_id}", "cross_service", ("gateway ANY /**",), None),
    ], key=repr)
    # the client's own match is its first hop's (the proxy route it calls); where the request ends is said apart
    assert (clients["load_order"]["match"], clients["load_order"]["through_match"]) == ("cross_service",
                                                                                       "cross_service")
    assert (clients["load_cart"]["through_match"], clients["load_cart"]["through_detail"]) == ("no_route", missing)


def test_a_request_is_followed_through_two_proxies(tmp_path: Path):
    """An edge nginx in front of a second proxy container: the link names both routes, in order."""
    web = WEB.replace("http://gateway/orders/", "http://gateway/api/orders/")
    edge = "server {\n  location /api/ {\n    proxy_pass http://inner:8080/;\n  }\n}\n"
    inner = "server {\n  location /orders/ {\n    proxy_pass http://orders:8000;\n  }\n}\n"
    tree = _tree(tmp_path, edge, web, {
        "inner/Dockerfile": "FROM nginx:1.27\nCOPY nginx.conf /etc/nginx/nginx.conf\n", "inner/nginx.conf": inner,
        "docker-compose.yml": "services:\n  gateway:\n    build: ./gateway\n  inner:\n    build: ./inner\n"
                              "  orders:\n    build: ./orders\n  web:\n    build: ./web\n"})
    _, links = _links(tree)
    through = [(fn, target, match, via) for fn, target, match, via, _ in links if via]
    assert through == [("load_order", "inner ANY /orders/**", "cross_service", ("gateway ANY /api/**",)),
                       ("load_order", "orders GET /orders/{order_id}", "cross_service",
                        ("gateway ANY /api/**", "inner ANY /orders/**"))]


def test_a_proxy_route_whose_upstream_is_not_known_is_where_the_link_stops_saying_why(tmp_path: Path):
    """A ``rewrite`` nginx's reader does not follow leaves the location's target unknown: nothing is guessed."""
    conf = "server {\n  location / {\n    rewrite ^/x/(\\d+)$ /orders/$1 last;\n    proxy_pass http://orders:8000;\n  }\n}\n"
    clients, links = _links(_tree(tmp_path, conf))
    assert not [link for link in links if link[3]]   # no link through it
    assert (clients["load_order"]["through_match"], clients["load_order"]["through_detail"]) == (
        "unresolved", "the proxy route ANY /** reaches no one service")
