"""A constructor's parameter (Java, Python ``__init__``) takes the value every construction of the class in the
project passes (several: a choice), so a client whose base URL is a field the constructor assigns links; it
stays unresolved when something other than those calls may make the object (a bean, a decorated class, a
subclass's ``super(...)``), when nothing constructs it, or when a call passes a value not known or none (a
default) (``tests/fixtures/code/ctor-args``, its expected results in its README)."""

from __future__ import annotations

from helpers.code_graph import FIXTURES

from graphlore.toolsets.code.index.graph import CodeGraph


def _owner(fqn: str) -> str:
    """The declaring class's simple name: ``a.b.Cart#add(String)`` (Java), ``clients.CartApi.add`` (Python)."""
    return fqn.split("#")[0].rsplit(".", 1)[-1] if "#" in fqn else fqn.rsplit(".", 2)[-2]


def test_a_constructors_parameter_is_what_its_sites_pass():
    nodes, _ = CodeGraph.build(FIXTURES / "ctor-args").snapshot()
    clients = {_owner(n.props["declaring_fqn"]): n.props for n in nodes.values() if n.kind == "client"}
    routes = {n.id: n.props["label"] for n in nodes.values() if n.kind == "route"}
    found = {name: (p["microservice"], p["match"], p.get("target_service")) for name, p in clients.items()}
    assert found == {
        "CartClient": ("shipping", "cross_service", "cart"), "OrdersClient": ("shipping", "cross_service", "orders"),
        "AuditClient": ("shipping", "unresolved", None), "BeanClient": ("shipping", "unresolved", None),
        "BaseClient": ("shipping", "unresolved", None), "LonelyClient": ("shipping", "unresolved", None),
        "CartApi": ("billing", "cross_service", "cart"), "OrdersApi": ("billing", "cross_service", "orders"),
        "AuditApi": ("billing", "unresolved", None), "BaseApi": ("billing", "unresolved", None),
        "DefaultApi": ("billing", "unresolved", None)}
    for cart, orders in (("CartClient", "OrdersClient"), ("CartApi", "OrdersApi")):
        assert [routes[r] for r in clients[cart]["candidates"]] == ["POST /shipping/{id}"]
        assert [routes[r] for r in clients[orders]["candidates"]] == ["GET /orders/{id}"]
        url = clients[orders]["target_url"]   # both sites' values, the env var settled by the Dockerfile
        assert url.endswith("/orders/{id}") or url.endswith("/orders/{order_id}")
        assert "http://orders:8080" in url and "{?" not in url
    assert "target is not a constant" in clients["AuditClient"]["unresolved_reason"]
    assert "target is not a constant" in clients["AuditApi"]["unresolved_reason"]
