"""Configuration files the readers cannot parse are said (`services.unreadable`): the index report lists each
with the reason in one line, ``describe`` of the service holding it shows it, and nothing else changes."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import backend
from helpers.code_tools import orders_service, run, write_tree

from graphlore.runtime import Runtime
from graphlore.toolsets.code.frameworks.proxies import yarp_routes
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.query import render
from graphlore.toolsets.code.services.unreadable import problem, unreadable_files


@pytest.mark.parametrize(("name", "text", "why"), [
    ("application.yml", "server:\n  port: [8080\nspring: {}\n", "YAML: did not find expected ',' or ']' at line 3"),
    ("deployment.yaml", "{{- if .Values.enabled }}\nkind: Service\n{{- end }}\n",
     "YAML: did not find expected node content at line 1 (template markup {{ }}, as in a Helm chart: not read)"),
    ("template.yaml", "Resources:\n  Url: !Ref Api\n", "YAML: could not determine a constructor for the tag '!Ref' at line 2"),
    ("appsettings.json", '{\n  "ReverseProxy": { "Routes": {} }\n  "Logging": {}\n}\n',
     "JSON: Expecting ',' delimiter at line 3"),
    ("openapi.json", '{"openapi": "3.0.0", "paths": {\n', "JSON: Expecting property name enclosed in double quotes at line 2"),
    ("traefik.toml", "[http.routers\n", "TOML: Expected ']' at the end of a table declaration (at line 1, column 14)"),
    ("default.conf", "server {\n  location / {\n    proxy_pass http://orders;\n}\n", "nginx: 1 block(s) not closed at the end"),
    ("nginx.conf", "server { }\n}\n", "nginx: a '}' closes no block at line 2"),
    ("main.tf", 'resource "a" "b" {\n  env {\n    name = "X"\n  }\n', "Terraform: the block opened at line 1 is not "
     "closed at the end of the file"),
])
def test_each_format_says_why_in_one_line(name: str, text: str, why: str):
    assert problem(name, text) == why


@pytest.mark.parametrize(("name", "text"), [
    ("appsettings.json", '{\n  // .NET reads comments\n  "Logging": {},\n}\n'),   # and trailing commas
    ("openapi.yaml", "openapi: 3.0.0\npaths: {}\n"),
    ("compose.yaml", "services:\n  a: {image: nginx}\n---\nother: 1\n"),
    ("nginx.conf", 'server { set $x "}"; location / { proxy_pass http://${ORDERS}; } }  # a } in a comment\n'),
    ("README.md", "{{ not config"),
    ("main.tf", 'resource "a" "b" {\n  x = "}"  # }\n  y = <<EOT\n{\nEOT\n}\n'),   # braces in a string, comment, heredoc
])
def test_what_parses_or_is_not_configuration_is_not_listed(name: str, text: str):
    assert problem(name, text) is None


def test_a_symfony_services_file_with_tags_is_read_so_not_listed(tmp_path: Path):
    """The Symfony reader takes ``config/services.yaml``'s tags (``!tagged_iterator``) as values: before, the file
    was listed as unreadable (nothing read from it) though it is read; elsewhere such a tag is still said."""
    tagged = "services:\n  App\\Bus:\n    arguments: [!tagged_iterator app.handler]\n"
    write_tree(tmp_path, {"config/services.yaml": tagged, "deploy/other.yaml": tagged})
    assert unreadable_files(tmp_path, {"config": ["services.yaml"], "deploy": ["other.yaml"]}) == {
        "deploy/other.yaml": "YAML: could not determine a constructor for the tag '!tagged_iterator' at line 3"}


def test_a_yarp_file_with_comments_and_trailing_commas_is_read_as_dotnet_reads_it():
    text = ('{\n  // the gateway\n  "ReverseProxy": {\n    "Routes": {\n      "orders": {"ClusterId": "c", "Match": '
            '{"Path": "/orders/{**catch-all}"},},\n    },\n    "Clusters": {"c": {"Destinations": {"d": '
            '{"Address": "http://orders:8080"}}}}\n  }\n}\n')
    assert [route[2] for route in yarp_routes("appsettings.json", text)] == ["/orders/**"]


def _tree(root: Path) -> Path:
    return write_tree(root, {
        **orders_service(),
        "orders/openapi.yaml": "openapi: 3.0.0\npaths:\n  /orders: {get: {operationId: list\n",
        "docker-compose.yml": "services:\n  orders:\n    build: ./orders\n    environment:\n      - A=1\n      B: 2\n",
        "deploy/values.yaml": "replicas: 2\n"})


def test_the_graph_says_which_files_and_the_service_holding_one_shows_it(tmp_path: Path):
    graph = CodeGraph.build(_tree(tmp_path))
    assert graph.unreadable == {
        "docker-compose.yml": "YAML: did not find expected '-' indicator at line 6",
        "orders/openapi.yaml": "YAML: did not find expected ',' or '}' at line 4"}
    nodes, _ = graph.snapshot()
    [orders] = [n for n in nodes.values() if n.kind == "microservice" and n.name == "orders"]
    assert orders.props["unreadable_files"] == ["orders/openapi.yaml: YAML: did not find expected ',' or '}' at line 4"]
    assert any(n.kind == "route" and n.props["label"] == "GET /orders/{order_id}" for n in nodes.values())
    (tmp_path / "docker-compose.yml").write_text("services:\n  orders:\n    build: ./orders\n")
    graph.update()   # mended: no longer listed
    assert list(graph.unreadable) == ["orders/openapi.yaml"]


def test_the_index_report_and_describe_list_them(tmp_path: Path, embedder):
    tree = _tree(tmp_path / "tree")
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        report = run(runtime, tree, "index", embed=False)
        assert report.unreadable_files == ["docker-compose.yml: YAML: did not find expected '-' indicator at line 6",
                                           "orders/openapi.yaml: YAML: did not find expected ',' or '}' at line 4"]
        shown = render.index(report)
        assert "unreadable (nothing read from it): docker-compose.yml: YAML: did not find expected '-' indicator at line 6" \
            in shown.splitlines()
        assert run(runtime, tree, "index", embed=False).unreadable_files == report.unreadable_files   # unchanged
        service = run(runtime, tree, "find", kind="microservice", filter={"name": "orders"}).results[0]
        described = run(runtime, tree, "describe", id=service.id)
        assert described.attributes["unreadable_files"] == [
            "orders/openapi.yaml: YAML: did not find expected ',' or '}' at line 4"]
    finally:
        runtime.close()
