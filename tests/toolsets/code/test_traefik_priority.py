"""Traefik sends a request to the matching router of highest priority (its ``priority``, else its rule's length): a
router never links to a route whose every request a router of higher priority takes first (`services.links`)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.frameworks.proxies import traefik_label_routes
from graphlore.toolsets.code.index.graph import CodeGraph

SHOP = ('from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.get("/shop/<item_id>")\ndef item(item_id):\n'
        '    return {}\n\n\n@app.get("/shop/docs/index")\ndef docs():\n    return ""\n')


def _compose(broad_priority: str = "") -> str:
    return ("services:\n  proxy:\n    image: traefik:v3.1\n    command: [\"--providers.docker=true\"]\n"
            "  shop:\n    build: ./shop\n    labels:\n"
            "      - \"traefik.http.routers.shop.rule=PathPrefix(`/shop`)\"\n" + broad_priority +
            "      - \"traefik.http.routers.shop-docs.rule=PathPrefix(`/shop/docs`)\"\n"
            "      - \"traefik.http.routers.shop-web.rule=Host(`shop.test`) && PathPrefix(`/shop/docs/more`)\"\n"
            "      - \"traefik.http.services.shop.loadbalancer.server.port=8000\"\n")


def test_a_router_priority_is_its_rule_length_or_the_one_written():
    priorities = {pattern: forward.priority for _, _, pattern, forward, _, _ in
                  traefik_label_routes("compose.yml", _compose("      - traefik.http.routers.shop.priority=90\n"))}
    assert priorities == {"/shop/**": 90, "/shop/docs/**": len("PathPrefix(`/shop/docs`)"),
                          "/shop/docs/more/**": None}   # a Host rule takes some requests of its paths only


def _links(root: Path) -> list[tuple[str, str]]:
    nodes, edges = CodeGraph.build(root).snapshot()
    return sorted((nodes[e.src].props["label"], nodes[e.dst].props["label"]) for e in edges.values()
                  if e.type == "HTTP_CALLS" and nodes[e.src].props.get("microservice") == "proxy")


def test_the_longer_prefix_router_takes_its_paths_from_the_shorter_one(tmp_path: Path):
    files = {"shop/Dockerfile": "FROM python:3.12\n", "shop/requirements.txt": "flask\n", "shop/app.py": SHOP}
    write_tree(tmp_path / "default", {**files, "docker-compose.yml": _compose()})
    links = _links(tmp_path / "default")
    assert ("ANY /shop/**", "GET /shop/docs/index") not in links   # shop-docs takes it first
    assert ("ANY /shop/**", "GET /shop/{item_id}") in links and ("ANY /shop/docs/**", "GET /shop/docs/index") in links
    # a priority written higher than the docs router's: the broad router takes every path it matches
    write_tree(tmp_path / "written", {**files, "docker-compose.yml": _compose(
        "      - traefik.http.routers.shop.priority=1000\n")})
    assert ("ANY /shop/**", "GET /shop/docs/index") in _links(tmp_path / "written")


def test_a_priority_of_zero_is_the_rule_length():
    """Traefik ignores ``priority=0`` and sorts the router by its rule's length, as when none is written."""
    priorities = {pattern: forward.priority for _, _, pattern, forward, _, _ in
                  traefik_label_routes("compose.yml", _compose("      - traefik.http.routers.shop.priority=0\n"))}
    assert priorities["/shop/**"] == len("PathPrefix(`/shop`)")
