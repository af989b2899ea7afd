"""A Java constructor's parameter takes the value every ``new T(...)`` of the project passes (several: a choice),
so a client whose base URL is a field the constructor assigns links; it stays unresolved when something other
than ``new`` may make the object (a bean, a subclass's ``super(...)``), when no ``new`` makes it, or when a
site passes a value not known (``tests/fixtures/code/ctor-args``, its expected results in its README)."""

from __future__ import annotations

from helpers.code_graph import FIXTURES

from graphlore.toolsets.code.index.graph import CodeGraph


def test_a_constructors_parameter_is_what_its_sites_pass():
    nodes, _ = CodeGraph.build(FIXTURES / "ctor-args").snapshot()
    clients = {n.props["declaring_fqn"].split("#")[0].rsplit(".", 1)[-1]: n.props
               for n in nodes.values() if n.kind == "client"}
    routes = {n.id: n.props["label"] for n in nodes.values() if n.kind == "route"}
    found = {name: (p["match"], p.get("target_service")) for name, p in clients.items()}
    assert found == {"CartClient": ("cross_service", "cart"), "OrdersClient": ("cross_service", "orders"),
                     "AuditClient": ("unresolved", None), "BeanClient": ("unresolved", None),
                     "BaseClient": ("unresolved", None), "LonelyClient": ("unresolved", None)}
    assert [routes[r] for r in clients["CartClient"]["candidates"]] == ["POST /shipping/{id}"]
    assert [routes[r] for r in clients["OrdersClient"]["candidates"]] == ["GET /orders/{id}"]
    orders_url = clients["OrdersClient"]["target_url"]   # both sites' values, the env var settled by the Dockerfile
    assert orders_url.endswith("/orders/{id}") and "http://orders:8080" in orders_url and "{?" not in orders_url
    assert "target is not a constant" in clients["AuditClient"]["unresolved_reason"]
