"""A load generator whose image runs a shell script that runs Locust (``CMD ["./entrypoint.sh"]`` with ``locust
--host "$HOST"`` inside) is given that host, settled with the environment the deployment gives it; and a client
calling a path an nginx serves itself (files under a ``location`` without ``proxy_pass``) is never told that
service has no route there."""

from __future__ import annotations

from pathlib import Path

from helpers import backend

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code.frameworks.nginx import served_locations
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.query import models, tools
from graphlore.toolsets.code.services.deployment import k6_env, locust_host, run_scripts

LOCUSTFILE = '''from locust import HttpUser, task


class Shopper(HttpUser):
    @task
    def orders(self):
        self.client.get("/api/orders/list")

    @task
    def home(self):
        self.client.get("/")
'''

NGINX = """server {
    location / {
        root /usr/share/nginx/html;
    }
    location /api/orders/ {
        proxy_pass http://orders:8000/;
    }
}
"""

ORDERS = '''from flask import Flask

app = Flask(__name__)


@app.get("/list")
def listing():
    return []
'''

ENTRYPOINT = """#!/bin/sh
# runs the load
if [ -z "$HOST" ]; then exit 1; fi
locust -f shop.py \\
    --host "$HOST" --headless -u 5
"""


def _shop(root: Path, dockerfile: str, scripts: dict[str, str], nginx: str = NGINX) -> Path:
    for folder in ("web", "orders", "load"):
        (root / folder).mkdir(parents=True)
    (root / "web/Dockerfile").write_text("FROM nginx:1.27\nCOPY default.conf /etc/nginx/conf.d/\n")
    (root / "web/default.conf").write_text(nginx)
    (root / "web/app.js").write_text("export const title = 'shop';\n")
    (root / "orders/Dockerfile").write_text('FROM python:3.12\nCMD ["flask", "run"]\n')
    (root / "orders/requirements.txt").write_text("flask\n")
    (root / "orders/app.py").write_text(ORDERS)
    (root / "load/Dockerfile").write_text(dockerfile)
    (root / "load/requirements.txt").write_text("locust\n")
    (root / "load/shop.py").write_text(LOCUSTFILE)
    for name, text in scripts.items():
        (root / "load" / name).write_text(text)
    (root / "docker-compose.yml").write_text(
        "services:\n  load:\n    build: ./load\n    environment:\n      HOST: http://web:80\n"
        "  web:\n    build: ./web\n  orders:\n    build: ./orders\n")
    return root


def _load_clients(root: Path) -> dict[str, dict]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.props["declaring_fqn"].rsplit(".", 1)[-1]: n.props for n in nodes.values()
            if n.kind == "client" and n.props["microservice"] == "load"}


def test_the_script_the_image_runs_gives_locust_its_host(tmp_path: Path):
    dockerfile = 'FROM python:3.12\nENV HOST="http://localhost:8089/"\nCOPY entrypoint.sh shop.py /load/\n' \
                 'CMD ["./entrypoint.sh"]\n'
    clients = _load_clients(_shop(tmp_path / "shop", dockerfile, {"entrypoint.sh": ENTRYPOINT}))
    orders = clients["orders"]
    assert (orders["target_url"], orders["target_service"], orders["match"]) == (
        "http://web:80/api/orders/list", "web", "cross_service")


def test_without_the_script_the_host_stays_unknown(tmp_path: Path):
    dockerfile = 'FROM python:3.12\nCOPY shop.py /load/\nCMD ["./entrypoint.sh"]\n'   # the script is not there
    clients = _load_clients(_shop(tmp_path / "shop", dockerfile, {}))
    assert clients["orders"]["match"] == "unresolved" and clients["orders"]["target_service"] is None


def test_a_path_nginx_serves_itself_is_not_no_route(tmp_path: Path):
    dockerfile = 'FROM python:3.12\nENTRYPOINT ["/bin/sh", "/load/run.sh"]\n'
    clients = _load_clients(_shop(tmp_path / "shop", dockerfile, {"run.sh": ENTRYPOINT}))
    home = clients["home"]   # GET / : web's location / serves files there, which no route models
    assert (home["target_service"], home["match"]) == ("web", "unresolved")
    assert "serves it without a route the index models: location /** (web/default.conf:2)" in home["match_detail"]

    only_proxy = NGINX.replace("    location / {\n        root /usr/share/nginx/html;\n    }\n", "")
    clients = _load_clients(_shop(tmp_path / "other", dockerfile, {"run.sh": ENTRYPOINT}, only_proxy))
    assert clients["home"]["match"] == "no_route"   # nothing answers / : said so, as before


def test_run_scripts_every_way_an_image_names_one():
    assert run_scripts('FROM x\nCMD ["./entrypoint.sh"]\n') == ["entrypoint.sh"]
    assert run_scripts('FROM x\nENTRYPOINT ["/bin/sh", "/load/run.sh", "--fast"]\n') == ["run.sh"]
    assert run_scripts("FROM x\nENTRYPOINT /app/start.sh\n") == ["start.sh"]
    assert run_scripts('FROM x\nCMD sh -c "bash go.sh && echo done"\n') == ["go.sh"]
    assert run_scripts("FROM x\nRUN ./build.sh\nCMD [\"python\", \"app.py\"]\n") == []   # a build step runs nothing


def test_the_host_or_k6_variables_on_a_scripts_line():
    assert locust_host("FROM x\n", ['exec locust -H http://${SHOP}:8080 --headless']) == \
        locust_host('FROM x\nCMD locust -H http://${SHOP}:8080\n')
    assert locust_host("FROM x\n", ["echo --host nothing"]) is None   # not Locust's command
    assert k6_env("FROM grafana/k6\n", ["k6 run -e BASE=http://web:80 test.js"]) == [("BASE", "http://web:80")]
    assert k6_env("FROM python\n", ["run -e BASE=http://web:80 test.js"]) == []   # no k6 anywhere


def test_served_locations_are_those_nginx_answers_itself():
    conf = ("server {\n  location / { root /srv; }\n  location = /health { return 200; }\n"
            "  location /api/ { proxy_pass http://api:80/; }\n  location ~ \\.php$ { fastcgi_pass php:9000; }\n"
            "  # location /old/ { root /x; }\n}\n")
    assert list(served_locations("nginx.conf", conf)) == [(2, "/**"), (3, "/health")]


PARTNER = '''
    @task
    def partner(self):
        self.client.get("https://partner.example.com/feed")
'''


def test_the_map_points_an_unresolved_client_at_the_project_service_its_host_names(tmp_path: Path, embedder):
    dockerfile = 'FROM python:3.12\nCMD ["./entrypoint.sh"]\n'
    root = _shop(tmp_path / "shop", dockerfile, {"entrypoint.sh": ENTRYPOINT})
    (root / "load/shop.py").write_text(LOCUSTFILE + PARTNER)
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        out = tools.service_map(runtime, parse_request(models.ServiceMapRequest, {"project_path": str(root)}))
    finally:
        runtime.close()
    by_pair = {(link.source, link.target, link.match): link.labels for link in out.links}
    # web is the project's: its host is certain, which route answers GET / is not (a file nginx serves)
    assert by_pair[("load", "web", "unresolved")] == ["GET /"]
    assert by_pair[("load", "web", "cross_service")] == ["ANY /api/orders/**"]
    assert ("load", "web (outside)", "unresolved") not in by_pair
    assert by_pair[("load", "partner.example.com (outside)", "unresolved")] == ["GET /feed"]


def test_the_map_never_draws_a_refused_host_to_the_service_of_that_name(tmp_path: Path, embedder):
    """A host the linker refused to take for a project service (here a tool in ``tools/`` no deployment runs) keeps
    its name as the client uses it: the arrow is not drawn to that service, as if the host were certain."""
    root = tmp_path / "shop"
    for folder in ("site", "load", "tools/mock"):
        (root / folder).mkdir(parents=True)
        (root / folder / "Dockerfile").write_text('FROM python:3.12\nCMD ["python", "main.py"]\n')
    for folder in ("site", "tools/mock"):
        (root / folder / "requirements.txt").write_text("flask\n")
        (root / folder / "main.py").write_text(ORDERS)
    (root / "load/requirements.txt").write_text("requests\n")
    (root / "load/main.py").write_text('import requests\n\n\ndef ping():\n'
                                       '    return requests.get("http://mock:8000/list")\n')
    (root / "docker-compose.yml").write_text("services:\n  site:\n    build: ./site\n  load:\n    build: ./load\n")
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        out = tools.service_map(runtime, parse_request(models.ServiceMapRequest, {"project_path": str(root)}))
    finally:
        runtime.close()
    assert "mock" in out.services
    pairs = {(link.source, link.target, link.match) for link in out.links}
    assert ("load", "mock", "unresolved") not in pairs
    assert ("load", "mock (outside)", "unresolved") in pairs
