"""Fixture repos per language: the exact graph (every node, edge and unresolved call site), plus the
attributes the line format leaves out (signatures, modifiers, annotations, docstrings, params)."""

from __future__ import annotations

import json

import pytest
from helpers.code_graph import FIXTURES, expected_lines, render

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.model import EDGE_TYPES, ROLES, SYMBOL_KINDS, UNRESOLVED_REASONS


@pytest.fixture(scope="module")
def graphs() -> dict[str, CodeGraph]:
    return {name: CodeGraph.build(FIXTURES / name) for name in ("java-shop", "py-shop", "ts-shop")}


def by_fqn(graph: CodeGraph) -> dict[str, dict]:
    nodes, _ = graph.snapshot()
    return {n.props["fqn"]: n.props | {"_id": n.id, "_name": n.name, "_text": n.text}
            for n in nodes.values() if n.kind == "symbol"}


@pytest.mark.parametrize("name,expected", [("java-shop", "java_shop.txt"), ("py-shop", "py_shop.txt"),
                                           ("ts-shop", "ts_shop.txt")])
def test_fixture_graph_is_exactly_the_expected_one(graphs, name, expected):
    assert render(graphs[name]) == expected_lines(expected)


def test_records_use_closed_vocabularies_and_are_json(graphs):
    for graph in graphs.values():
        nodes, edges = graph.snapshot()
        for node in nodes.values():
            json.dumps(node.props)
            if node.kind == "symbol":
                assert node.props["symbol_kind"] in SYMBOL_KINDS
                assert node.props["role"] in ROLES
                for site in node.props.get("unresolved_calls", []):
                    assert site["reason"] in UNRESOLVED_REASONS
        for edge in edges.values():
            json.dumps(edge.props)
            assert edge.type in EDGE_TYPES
            assert edge.src in nodes and edge.dst in nodes, edge


def test_java_attributes(graphs):
    symbols = by_fqn(graphs["java-shop"])
    place = symbols["com.shop.orders.service.OrderServiceImpl#place(Order,int)"]
    assert place["signature"] == "public Order place(Order order, int copies)"
    assert place["modifiers"] == ["public"]
    assert place["annotations"] == ["Override"]
    assert place["params"] == [{"name": "order", "type": "Order"}, {"name": "copies", "type": "int"}]
    assert place["return_type"] == "Order"
    assert (place["line_start"], place["line_end"]) == (24, 30)
    entity = symbols["com.shop.common.BaseEntity"]
    assert entity["docstring"] == "Something with an identity."
    assert entity["type_params"] == ["ID"]
    assert entity["modifiers"] == ["public", "abstract"]
    assert "Something with an identity." in entity["_text"] and "com.shop.common.BaseEntity" in entity["_text"]
    listener = symbols["com.shop.orders.service.OrderServiceImpl#onMessage(String)"]
    assert listener["annotation_text"] == ['@KafkaListener(topics="orders")']
    impl = symbols["com.shop.orders.service.OrderServiceImpl"]
    assert impl["implements"] == ["com.shop.orders.service.OrderService"]
    assert impl["bean"] is True
    repo = symbols["com.shop.orders.repo.OrderRepository"]
    assert repo["extends"] == ["org.springframework.data.repository.CrudRepository"]
    getter = symbols["com.shop.orders.domain.Order#getTotal()"]
    assert getter["generated"] is True and getter["return_type"] == "Money"
    ambiguous = [s for s in symbols["com.shop.orders.service.OrderServiceImpl#place(Order,String)"]["unresolved_calls"]
                 if s["reason"] == "ambiguous"][0]
    assert sorted(ambiguous["candidates"]) == sorted(
        [symbols["com.shop.orders.service.OrderServiceImpl#place(Order,int)"]["_id"],
         symbols["com.shop.orders.service.OrderServiceImpl#place(Order,String)"]["_id"]])
    main_file = symbols["orders/src/main/java/com/shop/orders/service/OrderServiceImpl.java"]
    assert "org.springframework.stereotype.Service" in main_file["imports_external"]


def test_python_attributes(graphs):
    symbols = by_fqn(graphs["py-shop"])
    show = symbols["pyshop.api.show"]
    assert show["signature"] == "def show(key: str, service: Service = Depends(get_service))"
    assert show["annotations"] == ["app.get"]
    assert show["annotation_text"] == ['@app.get("/orders/{key}")']
    assert show["params"] == [{"name": "key", "type": "str"}, {"name": "service", "type": "Service"}]
    make = symbols["pyshop.service.OrderService.make"]
    assert make["modifiers"] == ["static"] and make["return_type"] == "OrderService"
    assert symbols["pyshop.models.Order"]["docstring"] == "An order."
    assert symbols["pyshop.models.Order"]["extends"] == ["django.db.models.Model"]
    assert symbols["pyshop"]["symbol_kind"] == "package"
    assert symbols["pyshop"]["docstring"] == "The shop package: re-exports its main types."
    assert symbols["pyshop.repo"]["imports_external"] == ["fast_cache.cached"]
    assert symbols["pyshop.service.OrderService.repo"]["type"] == "OrderRepo"


def test_typescript_attributes(graphs):
    symbols = by_fqn(graphs["ts-shop"])
    order = symbols["packages/core/src/models.ts#Order"]
    assert order["docstring"] == "An order."
    assert order["modifiers"] == ["export"]
    assert order["implements"] == ["packages/core/src/models.ts#Entity"]
    show = symbols["packages/api/src/orders.controller.ts#OrdersController.show"]
    assert show["annotations"] == ["Get"] and show["annotation_text"] == ['@Get(":id")']
    assert show["signature"] == "show(id: string)"
    repo_field = symbols["packages/api/src/orders.controller.ts#OrderService.repo"]
    assert repo_field["modifiers"] == ["private", "readonly"] and repo_field["type"] == "Repo"
    models = symbols["packages/core/src/models.ts"]
    assert models["exports"] == ["Entity", "Order", "default"]
    assert symbols["packages/api/src/orders.controller.ts"]["imports_external"] == ["@nestjs/common"]
