"""A forward to an nginx with several ``server { }`` blocks reaches the locations of the one block nginx picks for the
request's Host and port, never every block's ``location /`` (`services.virtual_hosts`, `services.links`)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.virtual_hosts import answering_block, server_blocks

TWO_HOSTS = """upstream pool { server orders:8000; }
server {
  server_name api.shop.test;
  location /orders/ { proxy_pass http://orders:8000; }
}
server {
  listen 80;
  server_name web;   # the shop's pages
  location / { proxy_pass http://web:8000; }
}
server {
  listen 8080 default_server;
  server_name _;
  location / { proxy_pass http://web:8000; }
}
"""


def _blocks(text: str):
    return [block for _, _, block in server_blocks("nginx.conf", text)]


def test_server_blocks_are_read_with_their_names_ports_and_defaults():
    first, web, other = _blocks(TWO_HOSTS)   # the upstream's ``server orders:8000;`` is no block
    assert (first.names, first.ports, first.default_for, first.patterns) == (("api.shop.test",), (80,), (), ())
    assert (web.names, web.ports) == (("web",), (80,))
    assert (other.names, other.ports, other.default_for, other.patterns) == ((), (8080,), (8080,), ())


def test_the_block_nginx_picks_by_host_then_default_then_first():
    blocks = _blocks(TWO_HOSTS)
    assert answering_block(blocks, "web", 80)[0] == blocks[1]             # the server_name
    assert answering_block(blocks, "proxy", 80)[0] == blocks[0]           # no name: the port's first block
    assert answering_block(blocks, "proxy", 8080)[0] == blocks[2]         # the port's default_server
    assert answering_block(blocks, None, 80) == (
        None, "the Host header the request carries is not known, so which server block answers is not known")
    patterned = _blocks("server { server_name *.shop.test; location / { return 404; } }\n" + TWO_HOSTS)
    assert answering_block(patterned, "proxy", 80)[0] == patterned[0]     # no name takes it: the port's first
    assert answering_block(patterned, "a.shop.test", 80)[0] == patterned[0]   # the wildcard takes it
    assert answering_block(patterned, "web", 80)[0] == patterned[2]       # an exact name goes first
    unread = _blocks("server { listen ${PORT}; location / { return 404; } }\n" + TWO_HOSTS)
    assert answering_block(unread, "proxy", 80)[0] is None


ORDERS = 'from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.get("/orders/<order_id>")\ndef order(order_id):\n    return {}\n'
WEB = 'from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.get("/")\ndef home():\n    return ""\n'
GATEWAY_APP = ("package shop;\n\nimport org.springframework.boot.autoconfigure.SpringBootApplication;\n\n"
               "@SpringBootApplication\npublic class GatewayApplication {\n}\n")
GATEWAY_POM = ("<project><modelVersion>4.0.0</modelVersion><groupId>shop</groupId><artifactId>gateway</artifactId>"
               "<version>1</version><dependencies><dependency><groupId>org.springframework.cloud</groupId>"
               "<artifactId>spring-cloud-starter-gateway</artifactId></dependency></dependencies></project>\n")
ROUTES = """spring:
  cloud:
    gateway:
      routes:
        - id: api
          uri: http://edge
          predicates:
            - Path=/api/**
          filters:
            - StripPrefix=1
        - id: kept
          uri: http://edge
          predicates:
            - Path=/kept/**
          filters:
            - StripPrefix=1
            - PreserveHostHeader
"""
EDGE = """server {
  server_name api.shop.test;
  location /orders/ { proxy_pass http://orders:8000; }
}
server {
  server_name web;
  location / { proxy_pass http://web:8000; }
}
"""


def test_a_gateway_catch_all_forward_reaches_only_the_block_nginx_picks(tmp_path: Path):
    """The gateway sends ``Host: edge`` (the target's host), which no ``server_name`` names: nginx answers with its
    first block, whose ``/orders/`` location is reached, never the ``location /`` of the block named ``web``. A route
    that keeps the caller's Host (``PreserveHostHeader``) cannot tell the block: it links no location, saying why."""
    write_tree(tmp_path, {
        "orders/Dockerfile": "FROM python:3.12\n", "orders/requirements.txt": "flask\n", "orders/app.py": ORDERS,
        "web/Dockerfile": "FROM python:3.12\n", "web/requirements.txt": "flask\n", "web/app.py": WEB,
        "gateway/Dockerfile": "FROM eclipse-temurin:21\n", "gateway/pom.xml": GATEWAY_POM,
        "gateway/src/main/java/shop/GatewayApplication.java": GATEWAY_APP,
        "gateway/src/main/resources/application.yml": ROUTES,
        "edge/templates/default.conf.template": EDGE,
        "docker-compose.yml": "services:\n  edge:\n    image: nginx:1.27\n    volumes:\n"
                              "      - ./edge/templates:/etc/nginx/templates\n"
                              "  gateway:\n    build: ./gateway\n  orders:\n    build: ./orders\n"
                              "  web:\n    build: ./web\n"})
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    routes = {(n.props["microservice"], n.props["label"]): n for n in nodes.values() if n.kind == "route"}
    reached = lambda route: sorted(nodes[e.dst].props["label"] for e in edges.values()   # noqa: E731
                                   if e.src == route.id and e.type == "HTTP_CALLS")
    assert reached(routes[("gateway", "ANY /api/**")]) == ["ANY /orders/**"]
    kept = routes[("gateway", "ANY /kept/**")]
    assert reached(kept) == [] and kept.props["match"] == "unresolved"
    assert "Host header the request carries is not known" in kept.props["match_detail"]
    # the proxy's own locations still forward as before
    assert reached(routes[("edge", "ANY /**")]) == ["GET /"]


def _gateway_tree(edge: str, routes: str = ROUTES) -> dict[str, str]:
    return {
        "orders/Dockerfile": "FROM python:3.12\n", "orders/requirements.txt": "flask\n", "orders/app.py": ORDERS,
        "web/Dockerfile": "FROM python:3.12\n", "web/requirements.txt": "flask\n", "web/app.py": WEB,
        "gateway/Dockerfile": "FROM eclipse-temurin:21\n", "gateway/pom.xml": GATEWAY_POM,
        "gateway/src/main/java/shop/GatewayApplication.java": GATEWAY_APP,
        "gateway/src/main/resources/application.yml": routes,
        "edge/templates/default.conf.template": edge,
        "docker-compose.yml": "services:\n  edge:\n    image: nginx:1.27\n    volumes:\n"
                              "      - ./edge/templates:/etc/nginx/templates\n"
                              "  gateway:\n    build: ./gateway\n  orders:\n    build: ./orders\n"
                              "  web:\n    build: ./web\n"}


def _reached_from(tmp_path: Path, files: dict[str, str], label: str) -> tuple[list[str], dict]:
    write_tree(tmp_path, files)
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    [route] = [n for n in nodes.values() if n.kind == "route" and n.props["microservice"] == "gateway"
               and n.props["label"] == label]
    return sorted(nodes[e.dst].props["label"] for e in edges.values()
                  if e.src == route.id and e.type == "HTTP_CALLS"), route.props


def test_a_block_without_locations_still_answers_first(tmp_path: Path):
    """nginx picks among every block of the port, not only those holding a location the forward reaches: a first
    block that only ``return``s (no location) answers ``Host: edge``, so no location is reached."""
    edge = "server {\n  listen 80 default_server;\n  return 444;\n}\n" + EDGE
    reached, props = _reached_from(tmp_path, _gateway_tree(edge), "ANY /api/**")
    assert reached == [] and props["match"] in ("unresolved", "no_route")


def test_the_one_block_reached_is_not_linked_when_another_block_answers(tmp_path: Path):
    """Only one block holds a location the forward reaches, but the block nginx picks for ``Host: edge`` is another
    (its ``server_name`` is ``edge``): the reached location is never linked."""
    edge = ("server {\n  server_name edge;\n  location /other/ { proxy_pass http://web:8000; }\n}\n"
            "server {\n  server_name api.shop.test;\n  location /orders/ { proxy_pass http://orders:8000; }\n}\n")
    routes = ROUTES.replace("Path=/api/**", "Path=/api/orders/**")
    reached, props = _reached_from(tmp_path, _gateway_tree(edge, routes), "ANY /api/orders/**")
    assert reached == [] and props["match"] in ("unresolved", "no_route")


def test_a_block_listening_on_loopback_only_never_answers_another_container():
    """A request from another container reaches nginx on its own address, never ``127.0.0.1``: a block that listens
    on the loopback address only is not the port's first block for it (nginx picks by address, then port)."""
    blocks = _blocks("server {\n  listen 127.0.0.1:80;\n  location / { return 200; }\n}\n" + TWO_HOSTS)
    assert blocks[0].ports == ()
    assert answering_block(blocks, "proxy", 80)[0] == blocks[1]
    # an address that is neither loopback nor every address: which requests reach it is not known
    other = _blocks("server {\n  listen 10.1.2.3:80;\n  location / { return 200; }\n}\n" + TWO_HOSTS)
    assert other[0].ports is None and answering_block(other, "proxy", 80)[0] is None
    assert _blocks("server { listen [::]:80; listen *:8080; listen 0.0.0.0:81; }")[0].ports == (80, 8080, 81)


def test_a_load_balanced_uri_names_no_host_nginx_is_sent(tmp_path: Path):
    """``lb://edge`` is resolved to an instance's address at run time (discovery's, a pod's IP): the Host the gateway
    sends is not ``edge``, so which block answers is not known and no location is linked."""
    edge = EDGE.replace("server_name web;", "server_name edge;")
    reached, props = _reached_from(tmp_path, _gateway_tree(edge, ROUTES.replace("http://edge", "lb://edge")),
                                   "ANY /api/**")
    assert reached == [] and props["match"] == "unresolved"
    assert "Host header the request carries is not known" in props["match_detail"]


def test_wildcard_and_regex_names_are_matched_in_nginx_order():
    """nginx tries the exact name, then the longest leading wildcard (``*.shop.test``, ``.shop.test``), then the
    longest trailing one (``api.*``), then regexes in the order written; a name none matches falls to the
    ``default_server``; a variable name (``$hostname``) or a regex Python cannot read leaves the block unknown."""
    blocks = _blocks("server { server_name *.shop.test; }\n"
                     "server { server_name *.eu.shop.test; }\n"
                     "server { server_name api.*; }\n"
                     "server { server_name ~^(?<tenant>\\w+)\\.example$; }\n"
                     "server { server_name ~^www\\.; }\n"
                     "server { listen 80 default_server; server_name _; }\n")
    assert answering_block(blocks, "pay.eu.shop.test", 80)[0] == blocks[1]   # the longer leading wildcard
    assert answering_block(blocks, "api.shop.test", 80)[0] == blocks[0]      # leading goes before trailing
    assert answering_block(blocks, "api.internal", 80)[0] == blocks[2]
    assert answering_block(blocks, "acme.example", 80)[0] == blocks[3]       # a PCRE named group read
    assert answering_block(blocks, "www.example", 80)[0] == blocks[3]        # the first regex that matches
    assert answering_block(blocks, "gateway", 80)[0] == blocks[5]            # none matches: the default_server
    dotted = _blocks("server { server_name .shop.test; }\nserver { listen 80 default_server; }\n")
    assert answering_block(dotted, "shop.test", 80)[0] == dotted[0]
    unread = _blocks("server { server_name $hostname; }\nserver { listen 80 default_server; }\n")
    assert answering_block(unread, "gateway", 80)[0] is None
