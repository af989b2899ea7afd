"""Every code tool through the official MCP client, over stdio and streamable HTTP, against
`graphlore serve code`: strict schemas, every tool answering (text block = the rendering), the strict
rules as errors, JSON-string filters, progress of the index, and a change picked up by a running server."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from anyio.from_thread import start_blocking_portal
from helpers.code_graph import FIXTURES, edit
from helpers.mcp import Session, connect, http_server, stdio_params

from graphlore.toolsets.code import TOOLSET

SPECS = {spec.name: spec for spec in TOOLSET.on("mcp")}


@pytest.fixture(scope="module", params=["stdio", "http"])
def server(request, tmp_path_factory) -> Iterator[tuple[Session, Path]]:
    """A session on a fresh server per transport and its own copy of the Java fixture system."""
    base = tmp_path_factory.mktemp(f"code-{request.param}")
    project = base / "java-shop"
    shutil.copytree(FIXTURES / "java-shop", project)
    home = base / "home"
    with start_blocking_portal() as portal:
        if request.param == "stdio":
            with connect(portal, stdio_params("code", home), "code") as session:
                yield session, project
        else:
            env = {"GRAPHLORE_ALLOWED_ROOTS": str(base)}  # over HTTP the server reads only under its roots
            with http_server("code", home, base / "server.log", env=env) as (url, _), \
                    connect(portal, url, "code") as session:
                yield session, project


def test_tools_list_has_strict_schemas(server):
    mcp, _ = server
    tools = mcp.list_tools()
    assert set(tools) == {"find", "describe", "neighbors", "paths", "impact", "search", "resolve", "status", "index",
                          "service_map"}
    for name, tool in tools.items():
        spec = SPECS[name]
        assert tool.input_schema == spec.request.model_json_schema()
        assert tool.input_schema["additionalProperties"] is False and "project_path" in tool.input_schema["required"]
        answer = tool.output_schema["anyOf"][0]  # the answer, or the error object
        assert set(answer["properties"]) == set(spec.response.model_fields)
        assert len(tool.description) > 80


def test_every_tool_answers(server):
    mcp, project = server
    p = str(project)
    progress: list[tuple[float, float | None]] = []

    async def on_progress(done, total, message):
        progress.append((done, total))

    result = mcp.portal.call(lambda: mcp.client.call_tool("index", {"project_path": p}, progress_callback=on_progress))
    assert not result.is_error, result.content
    indexed = SPECS["index"].response.model_validate(result.structured_content)
    assert indexed.status == "created" and indexed.index_status.search_mode == "hybrid"
    assert indexed.embedded_now == indexed.index_status.embeddable > 0 and progress and progress[-1][0] == progress[-1][1]

    status, _ = mcp.ok("status", {"project_path": p})
    assert status.exists and sum(status.nodes[k] for k in ("symbol", "route", "client", "producer")) == \
        indexed.index_status.embeddable
    found, text = mcp.ok("find", {"project_path": p, "kind": "symbol", "filter": {"role": "CONTROLLER"}})
    assert found.total >= 2 and all(r.role == "CONTROLLER" for r in found.results) and found.results[0].id in text
    one, _ = mcp.ok("resolve", {"project_path": p, "identifier": "OrderServiceImpl"})
    assert one.status == "one"
    described, _ = mcp.ok("describe", {"project_path": p, "id": one.node.id})
    assert described.attributes["role"] == "SERVICE" and described.edge_summary["CALLS out (via members)"] > 0
    around, _ = mcp.ok("neighbors", {"project_path": p, "id": one.node.id, "edge_types": ["DECLARES.CALLS"],
                                     "include_unresolved": True})
    assert around.total == len(around.neighbors) > 0 and around.unresolved_total > 0
    hits, _ = mcp.ok("search", {"project_path": p, "query": "invoice the customer", "kind": "symbol",
                                "filter": '{"symbol_kind": ["method"]}'})
    assert hits.ranking == "hybrid" and hits.results and 0 <= hits.results[0].score <= 1
    assert hits.filter == {"symbol_kind": ["method"]}
    routes, _ = mcp.ok("find", {"project_path": p, "kind": "route", "filter": {"http_method": "POST"}})
    assert [r.label for r in routes.results] == ["POST /invoices"]
    callers, _ = mcp.ok("neighbors", {"project_path": p, "id": routes.results[0].id, "edge_types": ["HTTP_CALLED_BY"]})
    assert [n.props["match"] for n in callers.neighbors] == ["cross_service"]
    picture, text = mcp.ok("service_map", {"project_path": p})
    assert picture.diagram.startswith("flowchart LR") and text.startswith(picture.diagram)
    assert [(link.source, link.target) for link in picture.links] == [("orders", "billing-svc")]


def test_strict_rules_are_errors_that_teach(server):
    mcp, project = server
    p = str(project)
    message = mcp.error("find", {"project_path": p, "kind": "symbol", "filter": {"fqn_prefix": "x", "kind": "symbol"}})
    assert "[invalid_input]" in message and "'kind' is not a filter field: it goes beside the filter" in message and "fqn_prefix" in message
    message = mcp.error("find", {"project_path": p, "kind": "symbol", "filter": '{"role": "service"}'})
    assert "did you mean 'SERVICE'" in message
    message = mcp.error("find", {"project_path": p, "kind": "symbol", "limit": 10, "sort": "name"})
    assert "unknown field 'sort'" in message and "Valid fields" in message
    message = mcp.error("neighbors", {"project_path": p, "id": "x", "edge_types": ["CALLERS"]})
    assert "CALLED_BY" in message
    message = mcp.error("resolve", {"project_path": p, "identifier": "com.shop.*"})
    assert "fqn_prefix" in message and "search" in message
    message = mcp.error("describe", {"project_path": p, "id": "sym_none"})
    assert "[not_found] no node with id" in message


def test_a_running_server_picks_up_an_edit(server):
    mcp, project = server
    p = str(project)
    before, _ = mcp.ok("find", {"project_path": p, "kind": "symbol", "filter": {"symbol_kind": "method",
                                                                                   "fqn_prefix": "com.shop.common.Money"}})
    edit(project, "common/src/main/java/com/shop/common/Money.java", "public Money plus(Money other) {",
         "public Money minus(Money other) { return plus(other); }\n\n    public Money plus(Money other) {")
    after, _ = mcp.ok("find", {"project_path": p, "kind": "symbol", "filter": {"symbol_kind": "method",
                                                                                  "fqn_prefix": "com.shop.common.Money"}})
    assert after.index_status.refreshed and after.total == before.total + 1
    assert after.index_status.search_mode == "hybrid"  # the new method was embedded by the update itself
