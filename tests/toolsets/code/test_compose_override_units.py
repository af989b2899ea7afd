"""Compose merges the files of one folder (``docker-compose.yml`` and ``docker-compose.override.yml``): a service the
override file only gives ``environment`` to is the service of that name in the base file (built from a module's
Dockerfile there, under a name of its own), so the variables it sets reach that module; a name no base file builds stays no service."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

BASE = """services:
  edge:
    build:
      context: .
      dockerfile: apps/gateway/Dockerfile
  orders:
    build: ./apps/orders
"""

OVERRIDE = """services:
  edge:
    environment:
      - ORDERS_URL=http://orders:5000
  stranger:
    environment:
      - ORDERS_URL=http://elsewhere
"""

GATEWAY = '''import os

import requests


def orders():
    return requests.get(os.environ["ORDERS_URL"] + "/orders")
'''

ORDERS = """from flask import Flask

app = Flask(__name__)


@app.get("/orders")
def orders():
    return []
"""


def test_an_override_file_gives_its_environment_to_the_base_files_service(tmp_path: Path):
    tree = write_tree(tmp_path / "shop", {
        "docker-compose.yml": BASE, "docker-compose.override.yml": OVERRIDE,
        "apps/gateway/Dockerfile": "FROM python:3.12\n", "apps/gateway/requirements.txt": "requests\n",
        "apps/gateway/app.py": GATEWAY,
        "apps/orders/Dockerfile": "FROM python:3.12\n", "apps/orders/requirements.txt": "flask\n",
        "apps/orders/app.py": ORDERS})
    nodes, edges = CodeGraph.build(tree).snapshot()
    client = next(n for n in nodes.values() if n.kind == "client")
    assert client.props["target_url"] == "http://orders:5000/orders"
    linked = [nodes[e.dst].props["label"] for e in edges.values() if e.type == "HTTP_CALLS" and e.src == client.id]
    assert linked == ["GET /orders"]


def test_an_override_in_another_folder_is_another_project_and_gives_nothing(tmp_path: Path):
    """Compose merges the files of one folder only: an override of a service of the same name in another folder (a
    second project) never gives its variables to this one's module, and a name no base file builds is no service."""
    tree = write_tree(tmp_path / "shop", {
        "docker-compose.yml": BASE, "staging/docker-compose.override.yml": OVERRIDE,
        "apps/gateway/Dockerfile": "FROM python:3.12\n", "apps/gateway/requirements.txt": "requests\n",
        "apps/gateway/app.py": GATEWAY,
        "apps/orders/Dockerfile": "FROM python:3.12\n", "apps/orders/requirements.txt": "flask\n",
        "apps/orders/app.py": ORDERS})
    nodes, edges = CodeGraph.build(tree).snapshot()
    client = next(n for n in nodes.values() if n.kind == "client")
    assert client.props["target_url"] != "http://orders:5000/orders"
    assert not [e for e in edges.values() if e.type == "HTTP_CALLS" and e.src == client.id]
    assert "stranger" not in {n.props.get("name") for n in nodes.values() if n.kind == "service"}
