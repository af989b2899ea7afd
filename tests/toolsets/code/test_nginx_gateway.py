"""nginx as a gateway: proxy_pass locations are routes of the module that holds the configuration, forwarding
to the service the URL's host names (a template's ${VAR} settled with the deployment env, a Dockerfile's ENV
the default), their prefix replaced by the URI; Dockerfile ENV values as a service's environment defaults."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.frameworks.nginx import locations
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.folding import plain
from graphlore.toolsets.code.services.deployment import dockerfile_env

TEMPLATE = """server {
    listen 8080;
    location / {
        root /usr/share/nginx/html;
    }
    # location /api/old/ { proxy_pass http://old:8080/; }
    location /api/orders/ {
        proxy_pass http://${ORDERS_HOST}:8000/;
    }
    location /api/stock/ {
        proxy_pass http://${STOCK_HOST}:8000/;
    }
    location = /health {
        proxy_pass http://orders:8000;
    }
    location ~ ^/img/(.*)$ {
        proxy_pass http://images:8000/$1;
    }
}
"""

ORDERS = '''from flask import Flask

app = Flask(__name__)


@app.get("/orders/<order_id>")
def order(order_id):
    return {}


@app.get("/health")
def health():
    return "ok"
'''


def _project(root: Path, compose: str | None = None) -> Path:
    (root / "web/static").mkdir(parents=True)
    (root / "web/Dockerfile").write_text("FROM nginx:1.27\nENV ORDERS_HOST=orders \\\n    STOCK_HOST=stock\n"
                                         "COPY default.conf.template /etc/nginx/templates/\n")
    (root / "web/default.conf.template").write_text(TEMPLATE)
    (root / "web/static/app.js").write_text("export const title = 'shop';\n")
    (root / "orders").mkdir()
    (root / "orders/Dockerfile").write_text("FROM python:3.12\nCMD [\"flask\", \"run\"]\n")
    (root / "orders/requirements.txt").write_text("flask\n")
    (root / "orders/app.py").write_text(ORDERS)
    if compose:
        (root / "docker-compose.yml").write_text(compose)
    return root


def _gateway(root: Path) -> tuple[dict[str, dict], list[tuple[str, str]]]:
    nodes, edges = CodeGraph.build(root).snapshot()
    routes = {n.props["label"]: n.props for n in nodes.values() if n.kind == "route" and n.props["framework"] == "nginx"}
    links = sorted((nodes[e.src].props["label"], nodes[e.dst].props["label"]) for e in edges.values()
                   if e.type == "HTTP_CALLS" and nodes[e.src].props.get("framework") == "nginx")
    return routes, links


def test_proxy_pass_locations_forward_to_the_service_their_host_names(tmp_path: Path):
    routes, links = _gateway(_project(tmp_path / "shop"))
    assert set(routes) == {"ANY /api/orders/**", "ANY /api/stock/**", "ANY /health", "ANY /img/**"}
    orders = routes["ANY /api/orders/**"]
    assert (orders["microservice"], orders["file"], orders["line"], orders["source_layer"]) == (
        "web", "web/default.conf.template", 7, "config")
    assert (orders["target_service"], orders["match"]) == ("orders", "cross_service")
    assert orders["forward"]["target"] == "http://orders:8000" and orders["forward"]["rewrite"] == ["/api/orders/", "/"]
    # /api/orders/orders/{id} reaches GET /orders/{order_id}; /health is passed on unchanged
    assert links == [("ANY /api/orders/**", "GET /health"), ("ANY /api/orders/**", "GET /orders/{order_id}"),
                     ("ANY /health", "GET /health")]
    stock = routes["ANY /api/stock/**"]   # stock is no service of the project: said, never guessed
    assert stock["match"] == "unresolved" and "stock" in stock["match_detail"]


def test_the_deployment_overrides_the_images_env_default(tmp_path: Path):
    compose = "services:\n  web:\n    build: ./web\n    environment:\n      ORDERS_HOST: stock\n"
    routes, links = _gateway(_project(tmp_path / "shop", compose))
    assert routes["ANY /api/orders/**"]["forward"]["target"] == "http://stock:8000"
    assert routes["ANY /api/orders/**"]["match"] == "unresolved"
    assert links == [("ANY /health", "GET /health")]


def test_upstreams_plain_configs_and_nginx_variables():
    conf = ("upstream api { server orders:8000; server orders-2:8000 backup; }\n"
            "server { location /api/ { proxy_pass http://api; }\n"
            "         location /x/ { proxy_pass http://$host/; } }\n")
    found = {pattern: forward for _, _, pattern, forward, _ in locations("nginx/nginx.conf", conf)}
    # an upstream of two servers: one of them (a choice, which links nothing); no URI: the path passes unchanged
    assert plain(found["/api/**"].target.text) == "{http://orders:8000|http://orders-2:8000}"
    assert found["/api/**"].rewrite is None
    assert not found["/x/**"].target.known   # $host: an nginx variable, known at run time only


def test_a_variable_the_location_sets_to_a_literal_is_that_literal():
    conf = ("server {\n  location /search/ {\n    set $search_host \"search\";\n"
            "    proxy_pass http://$search_host:8080;\n  }\n"
            "  location /other/ {\n    set $other $http_x_target;\n    proxy_pass http://$other;\n  }\n}\n")
    found = {pattern: forward for _, _, pattern, forward, _ in locations("nginx.conf", conf)}
    assert plain(found["/search/**"].target.text) == "http://search:8080"
    assert not found["/other/**"].target.known   # set from another variable: known at run time only


def test_dockerfile_env_reads_both_forms_and_continued_lines():
    assert dockerfile_env('FROM x\nENV A 1 2\nENV B="x y" C=z \\\n  D=$E F=g\n') == {
        "A": "1 2", "B": "x y", "C": "z", "F": "g"}


def test_a_nested_locations_proxy_pass_is_not_the_outer_ones():
    conf = """server {
    location /api/ {
        location /api/cart/ { proxy_pass http://cart:8080/; }
        root /srv;
    }
    location /shop/ {
        if ($request_method = POST) { return 405; }
        proxy_pass http://shop:8080;
    }
}
"""
    found = [(pattern, plain(forward.target.text)) for _, _, pattern, forward, _ in locations("nginx.conf", conf)]
    assert found == [("/api/cart/**", "http://cart:8080"), ("/shop/**", "http://shop:8080")]


def test_dockerfile_env_is_the_running_images_not_a_build_stages():
    multi = ("FROM golang:1.22 AS build\nENV API_URL=http://build-mock:9000 CGO_ENABLED=0\nRUN go build\n"
             "FROM alpine\nENV PORT=8080\nCOPY --from=build /app /app\n")
    assert dockerfile_env(multi) == {"PORT": "8080"}
    assert dockerfile_env("FROM node AS base\nENV A=1\nFROM --platform=linux/amd64 base AS run\nENV B=2\n") == {
        "A": "1", "B": "2"}


def test_an_nginx_only_image_inside_a_service_is_not_that_services_gateway(tmp_path: Path):
    """``gw/`` builds its own nginx image (its Dockerfile, no source): its locations are not the routes of the
    service around it (the root's), which serves none of them, but of ``gw``, a service of its own
    (`layout.edge`)."""
    (tmp_path / "gw").mkdir()
    (tmp_path / "gw/Dockerfile").write_text("FROM nginx:1.27\nCOPY nginx.conf /etc/nginx/nginx.conf\n")
    (tmp_path / "gw/nginx.conf").write_text("server {\n  location /api/orders/ {\n    proxy_pass http://orders:8000/;\n"
                                            "  }\n}\n")
    (tmp_path / "package.json").write_text('{"name": "frontend", "version": "1.0.0"}\n')
    (tmp_path / "Dockerfile").write_text("FROM node:20\n")
    (tmp_path / "index.js").write_text("export const x = 1;\n")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf/site.conf").write_text("server {\n  location /api/ {\n    proxy_pass http://orders:8000/;\n"
                                             "  }\n}\n")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    routes = {(n.props["microservice"], n.props["label"], n.props["file"]) for n in nodes.values() if n.kind == "route"}
    assert routes == {("frontend", "ANY /api/**", "conf/site.conf"),   # the module's own folder's conf is still read
                      ("gw", "ANY /api/orders/**", "gw/nginx.conf")}


def test_a_prefix_rewrite_break_swaps_the_prefix_and_another_rewrite_links_nothing():
    conf = """server {
    location /api/orders/ {
        rewrite ^/api/orders/(.*)$ /v1/$1 break;
        proxy_pass http://orders:8000;
    }
    location /legacy/ {
        rewrite ^/legacy/(\\d+)/(.*)$ /items/$2?id=$1 break;
        proxy_pass http://orders:8000;
    }
}
"""
    found = {pattern: (forward, problem) for _, _, pattern, forward, problem in locations("nginx.conf", conf)}
    forward, problem = found["/api/orders/**"]
    assert (plain(forward.target.text), forward.rewrite, problem) == ("http://orders:8000", ("/api/orders/", "/v1/"), None)
    assert forward.outside("/v1/orders/{id}") == "/api/orders/orders/{id}"
    forward, problem = found["/legacy/**"]
    assert forward.target is None and "rewrite" in problem   # not read: said, never a guess


def test_regex_locations_are_checked_after_the_longest_prefix_and_win():
    conf = """server {
    location ~ ^/shop/(.*)$ { proxy_pass http://orders:8000; }
    location /shop/ { proxy_pass http://orders:8000/; }
    location ~ ^/img/(.*)$ { proxy_pass http://images:8000/v1/$1; }
    location /cart/ { proxy_pass http://cart:8000/; }
    location ~* \\.(png|jpg)$ { root /srv/img; }
    location ^~ /static/ { proxy_pass http://assets:8000/; }
    location = /health { proxy_pass http://orders:8000; }
    location ~ ^/docs/(.*)$ { proxy_pass http://docs:8000; }
}
server {
    location /shop/ { proxy_pass http://shop:8000/; }
}
"""
    found = [(line, pattern, forward, problem) for line, _, pattern, forward, problem in locations("nginx.conf", conf)]
    by_line = {line: (pattern, forward, problem) for line, pattern, forward, problem in found}
    # the regex location takes every request under /shop/: the path passes unchanged, the prefix one is never picked
    pattern, forward, problem = by_line[2]
    assert (pattern, plain(forward.target.text), forward.rewrite, problem) == ("/shop/**", "http://orders:8000", None, None)
    assert 3 not in by_line
    # a regex not read (an image suffix) may take any request of a plain prefix: said, linked nowhere
    pattern, forward, problem = by_line[5]
    assert pattern == "/cart/**" and forward.target is None and "not read" in problem
    # a capture under a literal URI swaps the prefix; ^~ stops the regex search; = is exact
    assert by_line[4][1].rewrite == ("/img/", "/v1/") and by_line[4][1].outside("/v1/a.png") == "/img/a.png"
    assert plain(by_line[7][1].target.text) == "http://assets:8000" and by_line[7][2] is None
    assert by_line[8][0] == "/health" and by_line[8][2] is None
    # a regex location after one not read may lose to it (written order): said, linked nowhere
    assert by_line[9][1].target is None and "not read" in by_line[9][2]
    # another server block's locations do not compete
    assert plain(by_line[12][1].target.text) == "http://shop:8000" and by_line[12][2] is None


def test_a_client_reaches_what_the_regex_location_forwards_not_the_prefix_ones_path(tmp_path: Path):
    root = tmp_path / "shop"
    (root / "gateway").mkdir(parents=True)
    (root / "gateway/Dockerfile").write_text("FROM nginx:1.27-alpine\nCOPY nginx.conf /etc/nginx/nginx.conf\n")
    (root / "gateway/nginx.conf").write_text(
        "server {\n  location ~ ^/shop/(.*)$ {\n    proxy_pass http://orders:8000;\n  }\n"
        "  location /shop/ {\n    proxy_pass http://orders:8000/;\n  }\n}\n")
    (root / "orders").mkdir()
    (root / "orders/Dockerfile").write_text("FROM python:3.12\nCMD [\"flask\", \"run\"]\n")
    (root / "orders/requirements.txt").write_text("flask\n")
    (root / "orders/app.py").write_text(ORDERS)
    (root / "web").mkdir()
    (root / "web/Dockerfile").write_text("FROM python:3.12\n")
    (root / "web/requirements.txt").write_text("requests\n")
    (root / "web/client.py").write_text("import requests\n\n\ndef load(order_id):\n"
                                        "    return requests.get(f\"http://gateway/shop/orders/{order_id}\").json()\n")
    (root / "docker-compose.yml").write_text("services:\n  gateway:\n    build: ./gateway\n  orders:\n"
                                             "    build: ./orders\n  web:\n    build: ./web\n")
    nodes, edges = CodeGraph.build(root).snapshot()
    gateway = [n.props for n in nodes.values() if n.kind == "route" and n.props.get("microservice") == "gateway"]
    assert [(r["label"], r["line"]) for r in gateway] == [("ANY /shop/**", 2)]   # the prefix location: never picked
    # nginx sends /shop/orders/1 upstream unchanged: no route of orders serves it (never /orders/{order_id})
    assert not [e for e in edges.values() if e.type == "HTTP_CALLS" and nodes[e.dst].kind == "route"
                and nodes[e.dst].props.get("microservice") == "orders"]
