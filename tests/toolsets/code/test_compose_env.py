"""Compose variable interpolation as Compose does it: ``${VAR}``, ``${VAR:-d}``, ``${VAR-d}``, ``${VAR:+a}`` and
``$$`` settled from the ``.env`` beside the Compose file (not a ``.env.production`` beside it), in a build's
``dockerfile``, an ``image``, ``ports`` and ``environment`` values, and a bare-name ``environment`` entry given
its ``.env`` value; a client whose address comes from such a variable links to the service it names."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.deployment import compose_interpolate, read_deployment

COMPOSE = """services:
  web:
    build:
      context: .
      dockerfile: ${WEB_DOCKERFILE:-web/Dockerfile}
    environment:
      - SHIPPING_ADDR
      - CART_ADDR=${CART_HOST}:${CART_PORT-7070}
      - EMPTY_PORT=${EMPTY:-80}
      - KEPT_EMPTY=${EMPTY-80}
      - PRICE=$$5
      - UNSET
    env_file:
      - path: ./web/web.env
        required: false
  shipping:
    build: ./shipping
    image: ${REGISTRY}/shipping:${TAG:-latest}
    ports:
      - "${SHIPPING_PORT}:8080"
"""

DOTENV = """SHIPPING_ADDR=shipping:8080
CART_HOST=cart
SHIPPING_PORT=9090
REGISTRY=ghcr.io/acme
EMPTY=
"""

SHIPPING = '''from flask import Flask

app = Flask(__name__)


@app.route("/quote")
def quote():
    return {}
'''

WEB = '''import os

import requests


def quote():
    return requests.get("http://{}/quote".format(os.environ["SHIPPING_ADDR"])).json()
'''



def test_compose_variables_are_settled_from_the_env_file_beside_it():
    dotenv = {"A": "x", "E": ""}
    settled = [compose_interpolate(v, dotenv) for v in
               ("${A}", "$A/p", "${B:-d}", "${E:-d}", "${E-d}", "${B-d}", "${A:+y}", "${E+y}", "${A:?no}", "$$A", "${B}")]
    assert settled == ["x", "x/p", "d", "d", "", "d", "y", "y", "x", "$A", "{?}"]


def test_a_bare_environment_name_and_interpolated_values_reach_the_services(tmp_path: Path):
    for rel, text in {"docker-compose.yml": COMPOSE, ".env": DOTENV, ".env.production": "SHIPPING_ADDR=elsewhere:1\n",
                      "web/Dockerfile": "FROM python:3.12\n", "web/web.py": WEB, "web/web.env": "FROM_FILE=yes\n",
                      "shipping/Dockerfile": "FROM python:3.12\n", "shipping/app.py": SHIPPING}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    graph = CodeGraph.build(tmp_path)
    deployment = read_deployment(graph.layout, graph.root, list(graph.layout.deployment_files))
    env = deployment.env["web"]
    assert {name: env.get(name) for name in ("SHIPPING_ADDR", "CART_ADDR", "EMPTY_PORT", "KEPT_EMPTY", "PRICE", "UNSET",
                                           "FROM_FILE")} \
        == {"SHIPPING_ADDR": ["shipping:8080"], "CART_ADDR": ["cart:7070"], "EMPTY_PORT": ["80"], "KEPT_EMPTY": [""],
            "PRICE": ["$5"], "UNSET": None, "FROM_FILE": ["yes"]}
    assert deployment.published["shipping"] == {9090} and deployment.ports["shipping"] == {8080}
    assert deployment.names["shipping"].get("shipping") and "web" in deployment.run
    nodes, edges = graph.snapshot()
    client = next(n.props for n in nodes.values() if n.kind == "client")
    assert (client["target_url"], client["target_service"], client["match"]) == (
        "http://shipping:8080/quote", "shipping", "cross_service")
