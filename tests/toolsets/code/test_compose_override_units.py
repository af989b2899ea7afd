"""Compose merges the files of one folder (``docker-compose.yml`` and ``docker-compose.override.yml``): a service the
override file only gives ``environment`` to is the service of that name in the base file (built from a module's
Dockerfile there, under a name of its own), so the variables it sets reach that module; a name no base file builds stays no service."""

from __future__ import annotations

from pathlib import Path

import pytest
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


#: each app keeps its own Compose file; a project folder of its own gathers them with ``include:``
APP_COMPOSE = {
    "apps/gateway/docker-compose.yml": "services:\n  edge:\n    build: .\n",
    "apps/orders/docker-compose.yml": "services:\n  orders:\n    build: .\n",
}
INCLUDES = {
    "short": "include:\n  - ../apps/gateway/docker-compose.yml\n  - ../apps/orders/docker-compose.yml\n",
    "long": "include:\n  - path: ../apps/gateway/docker-compose.yml\n  - path:\n      - ../apps/orders/docker-compose.yml\n",
}


def _app_tree(tmp_path: Path, files: dict[str, str]) -> Path:
    return write_tree(tmp_path / "shop", {
        **APP_COMPOSE, **files,
        "apps/gateway/Dockerfile": "FROM python:3.12\n", "apps/gateway/requirements.txt": "requests\n",
        "apps/gateway/app.py": GATEWAY,
        "apps/orders/Dockerfile": "FROM python:3.12\n", "apps/orders/requirements.txt": "flask\n",
        "apps/orders/app.py": ORDERS})


@pytest.mark.parametrize("form", sorted(INCLUDES))
def test_an_override_beside_a_file_that_includes_others_gives_their_services_its_environment(tmp_path: Path, form):
    """Compose's ``include:`` brings another file's services into the including project: the override beside the
    including file sets their environment, though their own file sits in another folder."""
    tree = _app_tree(tmp_path, {"deploy/docker-compose.yml": INCLUDES[form],
                                "deploy/compose.override.yaml": OVERRIDE})
    nodes, edges = CodeGraph.build(tree).snapshot()
    client = next(n for n in nodes.values() if n.kind == "client")
    assert client.props["target_url"] == "http://orders:5000/orders"
    linked = [nodes[e.dst].props["label"] for e in edges.values() if e.type == "HTTP_CALLS" and e.src == client.id]
    assert linked == ["GET /orders"]


def test_an_override_in_a_folder_that_includes_nothing_still_gives_an_app_file_nothing(tmp_path: Path):
    """Without the ``include:`` the apps' files are projects of their own: the other folder's override is not theirs."""
    tree = _app_tree(tmp_path, {"deploy/docker-compose.yml": "services:\n  cache:\n    image: redis\n",
                                "deploy/compose.override.yaml": OVERRIDE})
    nodes, _ = CodeGraph.build(tree).snapshot()
    client = next(n for n in nodes.values() if n.kind == "client")
    assert client.props["target_url"] != "http://orders:5000/orders"


def test_include_paths_are_read_in_every_form_and_fetched_ones_left_out():
    from graphlore.toolsets.code.services.deployment import compose_includes
    entries = ["../a/compose.yaml", {"path": "b/compose.yaml"}, {"path": ["../c/x.yml", "./d.yml"]},
               "oci://registry/app:1", {"path": "git@github.com:o/r.git"}, {"project_directory": "."}]
    assert compose_includes(entries, "deploy/docker-compose.yml") == [
        "a/compose.yaml", "deploy/b/compose.yaml", "c/x.yml", "deploy/d.yml"]


def test_an_override_file_that_writes_composes_merge_tags_is_read(tmp_path: Path):
    """``!override`` and ``!reset`` are Compose's own YAML tags: a file using them still gives its environment."""
    override = OVERRIDE.replace("  stranger:", "  orders:\n    ports: !override []\n    networks: !reset null\n  stranger:")
    tree = _app_tree(tmp_path, {"deploy/docker-compose.yml": INCLUDES["short"],
                                "deploy/compose.override.yaml": override})
    nodes, _ = CodeGraph.build(tree).snapshot()
    client = next(n for n in nodes.values() if n.kind == "client")
    assert client.props["target_url"] == "http://orders:5000/orders"


def test_composes_merge_tags_read_as_the_value_they_keep():
    from graphlore.toolsets.code.services.yaml_lines import documents
    ((doc, lines),) = documents("services:\n  a:\n    ports: !override ['80:80']\n    environment: !override {X: '1'}\n"
                                "    networks: !reset []\n    image: !override web\n")
    assert doc == {"services": {"a": {"ports": ["80:80"], "environment": {"X": "1"}, "networks": None, "image": "web"}}}
    assert lines["services.a.ports"] == 3


def test_an_include_that_climbs_out_of_the_tree_or_is_absolute_names_no_file_of_it():
    """``../../shared/compose.yaml`` from a folder one deep is a file outside the checkout, not ``shared/compose.yaml``
    inside it; ``/srv/compose.yaml`` is a host path."""
    from graphlore.toolsets.code.services.deployment import compose_includes
    entries = ["../../shared/compose.yaml", "/srv/compose.yaml", "~/compose.yaml", "../apps/compose.yaml"]
    assert compose_includes(entries, "deploy/docker-compose.yml") == ["apps/compose.yaml"]
    assert compose_includes(["../apps/gateway/docker-compose.yml"], "docker-compose.yml") == []


def test_an_override_beside_a_file_including_a_path_outside_the_tree_gives_the_tree_file_nothing(tmp_path: Path):
    """The root file includes a sibling checkout's file (``../apps/...``): the tree's own ``apps/gateway`` file at the
    path left once the ``..`` is dropped is another project, so the root override's environment is not its."""
    tree = _app_tree(tmp_path, {"docker-compose.yml": "include:\n  - ../apps/gateway/docker-compose.yml\n",
                                "docker-compose.override.yml": OVERRIDE})
    nodes, _ = CodeGraph.build(tree).snapshot()
    client = next(n for n in nodes.values() if n.kind == "client")
    assert client.props["target_url"] != "http://orders:5000/orders"
