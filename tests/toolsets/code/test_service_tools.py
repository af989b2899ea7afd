"""Part 2 through the tools: find with the route/client/producer filters (checked against the records),
neighbors across services, resolve of a route, describe roll-ups, and the service map."""

from __future__ import annotations

import shutil

import pytest
from helpers import backend
from helpers.code_graph import FIXTURES

from graphlore.contract import parse_request
from graphlore.errors import InvalidInput, NotFound
from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.query import models, render, tools


@pytest.fixture(scope="module")
def system(tmp_path_factory, embedder):
    base = tmp_path_factory.mktemp("code-services")
    tree = base / "spring-system"
    shutil.copytree(FIXTURES / "spring-system", tree)
    runtime = Runtime(backend.settings_for(base / "home"), embedder=embedder)
    call_tool(runtime, tree, "index", embed=False)
    nodes, edges = CodeGraph.build(tree).snapshot()
    yield runtime, tree, nodes, edges
    runtime.close()


def call_tool(runtime, tree, tool, **fields):
    name = "ServiceMap" if tool == "service_map" else tool.capitalize()
    return getattr(tools, tool)(runtime, parse_request(getattr(models, f"{name}Request"),
                                                       {"project_path": str(tree), **fields}))


def call(system, tool, **fields):
    return call_tool(system[0], system[1], tool, **fields)


def labels(system, kind, filter_):
    out = call(system, "find", kind=kind, filter=filter_, limit=500)
    assert out.total == len(out.results)
    return {r.label for r in out.results}


def records(system, kind, test) -> set[str]:
    return {n.props["label"] for n in system[2].values() if n.kind == kind and test(n.props)}


CASES = [
    ("route", {"microservice": "orders-service"}, lambda p: p["microservice"] == "orders-service"),
    ("route", {"http_method": ["GET", "DELETE"]}, lambda p: p["http_method"] in ("GET", "DELETE")),
    ("route", {"path_prefix": "/api/orders"}, lambda p: (p["path_template"] or "").startswith("/api/orders")),
    ("route", {"path_prefix": "/api/ord"}, lambda p: False),
    ("route", {"framework": ["jaxrs", "spring_kafka"]}, lambda p: p["framework"] in ("jaxrs", "spring_kafka")),
    ("route", {"topic_prefix": "acme"}, lambda p: (p["topic"] or "").startswith("acme")),
    ("client", {"client_kind": "rest_template"}, lambda p: p["client_kind"] == "rest_template"),
    ("client", {"target_service": "billing-service"}, lambda p: p["target_service"] == "billing-service"),
    ("client", {"resolved": False}, lambda p: not p["resolved"]),
    ("client", {"target_path_prefix": "/shipments", "http_method": "POST"},
     lambda p: (p["target_path_template"] or "").startswith("/shipments") and p["http_method"] == "POST"),
    ("producer", {"producer_kind": "stream_bridge"}, lambda p: p["producer_kind"] == "stream_bridge"),
    ("producer", {"topic_prefix": "acme.orders"}, lambda p: p["topic"].startswith("acme.orders.")),
]


@pytest.mark.parametrize("kind,filter_,test", CASES, ids=[f"{k}-{f}" for k, f, _ in CASES])
def test_find_part_two_kinds_with_their_strict_filters(system, kind, filter_, test):
    assert labels(system, kind, filter_) == records(system, kind, test)


def test_part_two_filters_are_strict_per_kind():
    def error(kind, filter_):
        with pytest.raises(InvalidInput) as caught:
            parse_request(models.FindRequest, {"project_path": ".", "kind": kind, "filter": filter_})
        return caught.value.message

    assert "'client_kind' is a filter field of kind client, not of kind route" in error("route", {"client_kind": "feign"})
    assert "route filter fields: microservice, module, http_method, path_prefix, framework, topic_prefix" in \
        error("route", {"symbol_kind": "class"})
    assert "valid values: feign, rest_template" in error("client", {"client_kind": "okhttp"})
    assert "true or false" in error("client", {"resolved": "yes"})
    assert "valid values: GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS" in error("client", {"http_method": "ANY"})


def test_empty_route_listing_says_why(system):
    out = call(system, "find", kind="route", filter={"path_prefix": "/api/ordrs/{id}"})
    assert out.total == 0 and "the longest prefix of '/api/ordrs/{id}' that matches is '/api'" in out.note


def test_a_service_named_in_another_case_is_that_service(system):
    """Compose says `orders-service`, a .NET project `Orders.Service`: a name in another case is the one service
    that goes by it; the listing and the map are those of the name as written."""
    exact = labels(system, "route", {"microservice": "orders-service"})
    assert exact and labels(system, "route", {"microservice": "Orders-SERVICE"}) == exact
    focused = call(system, "service_map", microservice="INVENTORY")
    assert focused.services == ["inventory", "storefront"]
    assert focused.microservice == "inventory"   # the focus as the map names it, so its arrows can be read by name
    assert labels(system, "route", {"microservice": "ORDERS"}) == exact  # an alias (its folder), in another case


def test_who_calls_a_route_and_what_a_service_exposes(system):
    found = call(system, "resolve", identifier="GET /billing/api/invoices/{id}")
    assert (found.status, found.reason, found.node.kind) == ("one", "path_template", "route")
    callers = call(system, "neighbors", id=found.node.id, edge_types=["HTTP_CALLED_BY"])
    assert {n.node.label for n in callers.neighbors} == {"GET billing-service /billing/api/invoices/{orderId}"}
    assert {n.props["match"] for n in callers.neighbors} == {"cross_service"} and callers.total == 2
    handler = call(system, "neighbors", id=found.node.id, edge_types=["EXPOSED_BY"])
    assert [n.node.label for n in handler.neighbors] == ["com.acme.billing.InvoiceController#invoice(String)"]
    orders = call(system, "resolve", identifier="orders-service", hint_kind="microservice").node
    exposed = call(system, "neighbors", id=orders.id, edge_types=["DECLARES.EXPOSES"], limit=100)
    assert {n.node.label for n in exposed.neighbors} == records(
        system, "route", lambda p: p["microservice"] == "orders-service")
    described = call(system, "describe", id=orders.id)
    assert described.edge_summary["EXPOSES out (via members)"] == exposed.total
    assert described.edge_summary["DECLARES_CLIENT out (via members)"] == 2


def test_ambiguous_links_list_every_candidate(system):
    [client] = [n for n in system[2].values() if n.kind == "client" and n.props["match"] == "ambiguous"]
    out = call(system, "neighbors", id=client.id, edge_types=["HTTP_CALLS"])
    assert {n.node.label for n in out.neighbors} == {"GET /api/orders/{id}", "GET /api/orders/recent"}
    assert {n.props["match"] for n in out.neighbors} == {"ambiguous"}
    described = call(system, "describe", id=client.id)
    assert described.attributes["match_detail"] == "2 routes of orders-service fit /api/orders/{?} equally"
    assert described.attributes["resolved"] is False and "the result of which.trim(...)" in \
        described.attributes["unresolved_reason"]


def test_service_map_draws_links_and_dashes_the_doubtful_ones(system):
    out = call(system, "service_map")
    assert out.format == "mermaid" and out.diagram.startswith("flowchart LR")
    by_pair = {(link.source, link.target, link.match): link for link in out.links}
    assert by_pair[("storefront", "orders-service", "cross_service")].labels == ["GET /api/orders/{id}"]
    assert set(by_pair[("storefront", "orders-service", "ambiguous")].labels) == {"GET /api/orders/{id}",
                                                                                   "GET /api/orders/recent"}
    assert by_pair[("orders-service", "billing-service", "cross_service")].kind == "http"
    assert by_pair[("shipping-service", "orders-service", "cross_service")].labels == ["stream acme.shipped"]
    assert ("orders-service", "loyalty-service (outside)", "unresolved") in by_pair
    assert '-.->|"(ambiguous)<br/>' in out.diagram and "==>" in out.diagram
    focused = call(system, "service_map", microservice="inventory", format="dot")
    assert focused.services == ["inventory", "storefront"] and focused.diagram.startswith("digraph services {")
    assert '"storefront" -> "inventory" [label="GET /rest/stock/{sku}"];' in focused.diagram
    with pytest.raises(NotFound, match="microservices are: acme-common, billing-service"):
        call(system, "service_map", microservice="nope")


def test_paths_trace_a_call_across_services_in_one_call(system):
    route = call(system, "resolve", identifier="GET /billing/api/invoices/{id}").node
    [handler] = call(system, "neighbors", id=route.id, edge_types=["EXPOSED_BY"]).neighbors
    callers = call(system, "neighbors", id=route.id, edge_types=["HTTP_CALLED_BY"]).neighbors
    clients = {n.node.id for n in callers}
    declared_by = {d.node.id for c in clients
                   for d in call(system, "neighbors", id=c, edge_types=["CLIENT_DECLARED_BY"]).neighbors}
    for start in declared_by:
        out = call(system, "paths", from_id=start, to_id=handler.node.id)
        assert out.paths, out.note
        shortest = out.paths[0].hops
        assert out.paths[0].length == len(shortest)
        assert shortest[0].source.id == start and shortest[-1].target.id == handler.node.id
        assert [h.edge for h in shortest][-3:] == ["DECLARES_CLIENT", "HTTP_CALLS", "EXPOSED_BY"]
        assert all(a.target.id == b.source.id for a, b in zip(shortest, shortest[1:], strict=False))
        assert shortest[-2].props["match"] == "cross_service"
        assert all(len(p.hops) <= out.max_depth for p in out.paths)
        # a path asked to end at the route goes on to its handler (free), so the trace ends in code
        to_route = call(system, "paths", from_id=start, to_id=route.id)
        assert [h.edge for h in to_route.paths[0].hops] == [h.edge for h in shortest]
        assert to_route.paths[0].hops[-1].target.id == handler.node.id
    # only CALLS: no path leaves the service, and the note says what was tried
    none = call(system, "paths", from_id=next(iter(declared_by)), to_id=handler.node.id, edge_types=["CALLS"])
    assert none.paths == [] and "no path of at most 10 hops (CALLS)" in none.note


def test_impact_is_the_blast_radius_grouped_by_service(system):
    route = call(system, "resolve", identifier="GET /billing/api/invoices/{id}").node
    [handler] = call(system, "neighbors", id=route.id, edge_types=["EXPOSED_BY"]).neighbors
    out = call(system, "impact", id=handler.node.id, depth=2)
    by_id = {hit.node.id: hit for hit in out.results}
    # the route is the handler in another guise (no call between them): depth 0
    assert by_id[route.id].depth == 0 and [h.edge for h in by_id[route.id].path] == ["EXPOSED_BY"]
    clients = [hit for hit in out.results if hit.node.kind == "client"]
    assert clients and all(hit.depth == 1 and [h.edge for h in hit.path] == ["HTTP_CALLS", "EXPOSED_BY"]
                           for hit in clients)
    assert all(hit.path[-1].target.id == handler.node.id for hit in out.results)
    assert all(a.target.id == b.source.id for hit in out.results for a, b in zip(hit.path, hit.path[1:], strict=False))
    assert out.total == len(out.results) == sum(sum(k.values()) for k in out.by_service.values())
    assert set(out.by_service) >= {"billing-service", "storefront"}
    assert out.by_depth["0"] >= 1 and [h.depth for h in out.results] == sorted(h.depth for h in out.results)
    # depth 1 stops at the callers of the route's clients' methods
    near = call(system, "impact", id=handler.node.id, depth=1)
    assert {h.node.id for h in near.results} <= set(by_id) and max(h.depth for h in near.results) == 1
    down = call(system, "impact", id=handler.node.id, direction="out", depth=1)
    assert all(hit.path[0].source.id == handler.node.id for hit in down.results)
    text = render.impact(out)  # the text answer names every hit with its microservice
    assert text.splitlines()[1].startswith("by microservice: ") and "microservice" in text.splitlines()[2]
    assert all(hit.node.id in text for hit in out.results)


def test_paths_and_impact_refuse_what_they_cannot_walk(system):
    with pytest.raises(NotFound, match="no node with id"):
        call(system, "impact", id="sym_nothing")
    with pytest.raises(InvalidInput, match="edge_types"):
        call(system, "paths", from_id="a", to_id="b", edge_types=["DECLARES.CALLS"])
    with pytest.raises(InvalidInput, match="max_depth"):
        call(system, "paths", from_id="a", to_id="b", max_depth=0)


def test_describe_includes_the_source_on_request(system):
    route = call(system, "resolve", identifier="GET /billing/api/invoices/{id}").node
    [handler] = call(system, "neighbors", id=route.id, edge_types=["EXPOSED_BY"]).neighbors
    plain = call(system, "describe", id=handler.node.id)
    assert plain.source is None
    out = call(system, "describe", id=handler.node.id, include_source=True).source
    lines = (system[1] / out.file).read_text(encoding="utf-8").splitlines()
    attrs = plain.attributes
    assert (out.first_line, out.last_line, out.truncated) == (attrs["line_start"], attrs["line_end"], False)
    shown = out.text.splitlines()
    assert len(shown) == out.last_line - out.first_line + 1
    assert all(text.split("| ", 1)[1] == lines[int(text.split("|")[0]) - 1] for text in shown)
    assert "invoice(" in out.text
    service = call(system, "resolve", identifier="orders-service", hint_kind="microservice").node
    assert call(system, "describe", id=service.id, include_source=True).source is None


def test_resolve_finds_a_route_behind_a_prefix_only_a_deployment_gives(tmp_path, embedder):
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "package.json").write_text('{"name": "web"}', encoding="utf-8")
    (tmp_path / "web" / "server.js").write_text(
        'const express = require("express");\nconst app = express();\nconst router = express.Router();\n'
        'router.get("/product/:id", (req, res) => res.json({}));\napp.use(process.env.BASE_PATH, router);\n',
        encoding="utf-8")
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    found = call_tool(runtime, tmp_path, "resolve", identifier="GET /product/{productId}")
    assert (found.status, found.reason, found.node.label) == (
        "one", "path_template_after_unknown_prefix", "GET /{?}/product/{id}")
    runtime.close()


def test_the_service_map_draws_a_gateways_forwards(tmp_path, embedder):
    tree = tmp_path / "cloud-system"
    shutil.copytree(FIXTURES / "cloud-system", tree)
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    out = call_tool(runtime, tree, "service_map", microservice="edge")
    forwards = {(link.target, label) for link in out.links if link.source == "edge" for label in link.labels}
    assert {("orders-service", "ANY /api/orders/** (gateway)"), ("shipping", "ANY /ship/** (gateway)"),
            ("payments", "ANY /pay/** (gateway)")} <= forwards
    assert all(label.endswith("(gateway)") for _, label in forwards)
    assert "(gateway)" in out.diagram
    # a call at a path the service does not serve is a dashed no_route arrow, not a crash or a drop
    orders = call_tool(runtime, tree, "service_map", microservice="orders-service")
    [no_route] = [link for link in orders.links if link.match == "no_route"]
    assert (no_route.source, no_route.target, no_route.labels) == (
        "orders-service", "inventory-service", ["GET /warehouses (no route)"])
    assert "(no_route)" in orders.diagram
    # a microservice filter takes any name the service goes by: its folder, its Kubernetes Service, its own name
    by_name = {name: {r.id for r in call_tool(runtime, tree, "find", kind="client",
                                             filter={"microservice": name}, limit=100).results}
               for name in ("orders-service", "orders", "orders-api")}
    assert by_name["orders-service"] and by_name["orders"] == by_name["orders-api"] == by_name["orders-service"]
    runtime.close()
