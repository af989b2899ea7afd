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
    assert set(routes) == {"ANY /api/orders/**", "ANY /api/stock/**", "ANY /health"}   # the regex one is not read
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


def test_dockerfile_env_reads_both_forms_and_continued_lines():
    assert dockerfile_env('FROM x\nENV A 1 2\nENV B="x y" C=z \\\n  D=$E F=g\n') == {
        "A": "1 2", "B": "x y", "C": "z", "F": "g"}
