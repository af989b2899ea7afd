"""A request that reaches a proxy's route (a catch-all ``location /``, ``/api/**``, a YARP ``{**catch-all}``) is
followed on to the route of the upstream that serves it: the path the upstream sees (the proxy's strip or
rewrite applied) is matched as a client's own path is. The link names the proxy routes it went ``via``; a path
the upstream does not serve is ``no_route`` at the upstream, never the end at ``/**`` (`services.links._through`)."""

from __future__ import annotations

from pathlib import Path

from helpers import backend
from helpers.code_tools import orders_service, write_tree

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.folding import literal
from graphlore.toolsets.code.query import models, tools
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


def test_a_client_reaching_a_route_directly_and_through_a_proxy_keeps_both_links(tmp_path: Path, embedder):
    """Two values of one URL (the gateway or the service itself): the link through the gateway and the direct
    link end at the same route, each its own edge (before, one overwrote the other); ``paths`` shows both ways."""
    web = ('import os\nimport requests\n\nBASE = "http://gateway" if os.environ.get("VIA") else "http://orders:8000"\n'
           '\n\ndef load_order(order_id):\n    return requests.get(f"{BASE}/orders/{order_id}").json()\n')
    tree = _tree(tmp_path / "tree", "server {\n  location / {\n    proxy_pass http://orders:8000;\n  }\n}\n", web)
    _, links = _links(tree)
    assert [(fn, target, match, via) for fn, target, match, via, _ in links] == sorted([
        ("load_order", "gateway ANY /**", "cross_service", ()),
        ("load_order", "orders GET /orders/{order_id}", "cross_service", ()),
        ("load_order", "orders GET /orders/{order_id}", "cross_service", ("gateway ANY /**",))], key=repr)
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        def call(tool: str, **fields):
            return getattr(tools, tool)(runtime, parse_request(getattr(models, f"{tool.capitalize()}Request"),
                                                               {"project_path": str(tree), **fields}))

        call("index", embed=False)
        out = call("paths", from_id=call("resolve", identifier="load_order").node.id,
                   to_id=call("resolve", identifier="order").node.id)
        ways = sorted(tuple(h.target.label for h in path.hops if h.edge == "HTTP_CALLS") for path in out.paths)
        assert ways == [("ANY /**", "GET /orders/{order_id}"), ("GET /orders/{order_id}",)]
    finally:
        runtime.close()


def test_where_a_request_ends_through_a_proxy_is_its_least_certain_value_in_any_order(tmp_path: Path):
    """Two values of one URL through the same proxy route, one served and one not: the client's ``through_match``
    is ``no_route`` (the least certain, as its own ``match``), whichever value comes first (before, the last)."""
    web = ('import os\nimport requests\n\nKIND = "carts" if os.environ.get("CARTS") else "orders"\n\n\n'
           'def load(item_id):\n    return requests.get(f"http://gateway/{KIND}/{item_id}").json()\n')
    conf = "server {\n  location / {\n    proxy_pass http://orders:8000;\n  }\n}\n"
    swapped = web.replace('"carts" if', '"orders" if').replace('else "orders"', 'else "carts"')
    missing = "no route of orders fits GET /carts/{item_id} (its routes: GET /orders/{order_id}, POST /orders)"
    for index, text in enumerate((web, swapped)):
        clients, links = _links(_tree(tmp_path / str(index), conf, text))
        assert (clients["load"]["through_match"], clients["load"]["through_detail"]) == ("no_route", missing)
        # the one edge both values share to the proxy route says the same (before: the last value's)
        [hop] = [through for _, target, _, via, through in links if target == "gateway ANY /**" and not via]
        assert hop == {"match": "no_route", "detail": missing, "upstream": "orders", "upstream_path": "/carts/{item_id}"}


def _either(base_via: str, base_direct: str, path: str = "/orders/{order_id}") -> str:
    return ('import os\nimport requests\n\n'
            f'BASE = "{base_via}" if os.environ.get("VIA") else "{base_direct}"\n\n\n'
            f'def load_order(order_id):\n    return requests.get(f"{{BASE}}{path}").json()\n')


def test_a_client_whose_values_reach_one_service_directly_and_through_a_proxy_calls_that_service(tmp_path: Path):
    """The proxy's host or the service's own (two deployments): both requests end at orders, so orders is the
    service the client calls (before: no target service, as for two services, so a find by target missed it)."""
    catch_all = "server {\n  location / {\n    proxy_pass http://orders:8000;\n  }\n}\n"
    clients, _ = _links(_tree(tmp_path / "a", catch_all, _either("http://gateway", "http://orders:8000")))
    assert (clients["load_order"]["target_service"], clients["load_order"]["label"]) == (
        "orders", "GET orders /orders/{order_id}")
    assert clients["load_order"]["match"] == "cross_service"


def test_a_client_whose_values_end_apart_or_unsure_names_no_one_service(tmp_path: Path):
    """No target service where the values end in two services, where the proxy's upstream does not serve the path
    (``no_route``) or where the proxy's upstream is not known: which service is called is not certain."""
    carts = {"carts/Dockerfile": "FROM python:3.12\n", "carts/requirements.txt": "flask\n",
             "carts/app.py": "from flask import Flask\n\napp = Flask(__name__)\n\n\n"
                             "@app.get('/orders/<order_id>')\ndef cart_order(order_id):\n    return {}\n"}
    to_carts = "server {\n  location / {\n    proxy_pass http://carts:8000;\n  }\n}\n"
    apart, _ = _links(_tree(tmp_path / "apart", to_carts, _either("http://gateway", "http://orders:8000"), carts))
    assert apart["load_order"]["target_service"] is None
    to_orders = "server {\n  location / {\n    proxy_pass http://orders:8000;\n  }\n}\n"
    missing, _ = _links(_tree(tmp_path / "missing", to_orders, _either("http://gateway", "http://orders:8000",
                                                                      "/nothing/{order_id}")))
    assert missing["load_order"]["target_service"] is None
    rewrite = "server {\n  location / {\n    rewrite ^/x/(\\d+)$ /orders/$1 last;\n    proxy_pass http://orders:8000;\n  }\n}\n"
    unsure, _ = _links(_tree(tmp_path / "unsure", rewrite, _either("http://gateway", "http://orders:8000")))
    assert unsure["load_order"]["target_service"] is None
