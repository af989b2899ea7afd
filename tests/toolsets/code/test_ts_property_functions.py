"""Functions a module-level object literal holds as properties are functions of their own, keyed by the property
path: a state machine's ``services`` given in ``createMachine(config, {services})`` or a chained
``.withConfig({services})``, a Vue component's ``export default {methods: {...}}``, a plain object of handlers.
The requests and calls in their bodies are theirs, not the module's."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

MACHINE = """import { createMachine } from "xstate";
import { loader } from "./loader";

export const basketMachine = createMachine(
  {
    id: "basket",
    initial: "idle",
    states: { idle: { invoke: { src: "loadBasket" } } },
  },
  {
    services: {
      loadBasket: async (ctx, event) => {
        const resp = await fetch("http://shop-api:8080/baskets");
        return resp.json();
      },
      async saveBasket(ctx, event) {
        return fetch("http://shop-api:8080/baskets", { method: "POST" });
      },
    },
  }
);

export const ordersMachine = loader("orders").withConfig({
  services: {
    fetchOrders: function (ctx) {
      return fetch("http://shop-api:8080/orders");
    },
  },
});
"""

LOADER = """export function loader(name: string) {
  return { withConfig: (options: object) => options };
}
"""

COMPONENT = """<template><button @click="pay">Pay</button></template>
<script>
import { audit } from "../audit";
export default {
  name: "PayButton",
  data() { return { busy: false }; },
  methods: {
    pay() {
      audit("pay");
      return fetch("http://shop-api:8080/payments", { method: "POST" });
    },
  },
};
</script>
"""

AUDIT = """export function audit(what: string) {
  return what;
}
"""

HANDLERS = """import { audit } from "./audit";

const handlers = {
  "order.placed": (event) => audit(event),
  nested: { refund: (event) => audit(event) },
  label: "not a function",
  state: () => ({ reset: () => null }),
};

export default handlers;
"""

API = """const express = require("express");
const app = express();
app.get("/baskets", (req, res) => res.json([]));
app.post("/baskets", (req, res) => res.json({}));
app.get("/orders", (req, res) => res.json([]));
app.post("/payments", (req, res) => res.json({}));
app.listen(8080);
"""

COMPOSE = """services:
  shop-api:
    build: ./api
  web:
    build: ./web
"""


def _graph(root: Path):
    return CodeGraph.build(write_tree(root, {
        "docker-compose.yml": COMPOSE,
        "api/package.json": '{"name": "shop-api", "dependencies": {"express": "4.18.0"}}\n',
        "api/server.js": API,
        "web/package.json": '{"name": "web", "dependencies": {"xstate": "4.38.0", "vue": "3.3.0"}}\n',
        "web/src/machines/basket.ts": MACHINE, "web/src/machines/loader.ts": LOADER,
        "web/src/components/PayButton.vue": COMPONENT, "web/src/audit.ts": AUDIT,
        "web/src/handlers.ts": HANDLERS})).snapshot()


def _short(node) -> str:
    return node.props.get("fqn", node.name).split("#")[-1]


def test_the_functions_of_a_module_level_object_are_functions_named_by_their_property(tmp_path: Path):
    nodes, _ = _graph(tmp_path)
    functions = {_short(n): n for n in nodes.values()
                 if n.kind == "symbol" and n.props.get("symbol_kind") == "function"}
    assert {"basketMachine.services.loadBasket", "basketMachine.services.saveBasket",
            "ordersMachine.services.fetchOrders", "default.methods.pay", "default.data",
            "handlers.order.placed", "handlers.nested.refund"} <= set(functions)
    assert functions["basketMachine.services.loadBasket"].name == "loadBasket"
    assert functions["default.methods.pay"].props["line_start"] == 8
    assert not any(key.startswith("handlers.label") for key in functions)   # a value, not a function
    names = {_short(n) for n in nodes.values() if n.kind == "symbol"}
    assert "handlers.state" in functions and "handlers.state.reset" not in names   # state it makes, no factory


def test_a_request_in_a_property_function_is_declared_by_it(tmp_path: Path):
    nodes, edges = _graph(tmp_path)
    declared = {(_short(nodes[e.src]), nodes[e.dst].props["label"]) for e in edges.values()
                if e.type == "DECLARES_CLIENT"}
    assert {("basketMachine.services.loadBasket", "GET shop-api /baskets"),
            ("basketMachine.services.saveBasket", "POST shop-api /baskets"),
            ("ordersMachine.services.fetchOrders", "GET shop-api /orders"),
            ("default.methods.pay", "POST shop-api /payments")} <= declared


def test_a_call_in_a_property_function_is_its_own(tmp_path: Path):
    nodes, edges = _graph(tmp_path)
    calls = {(_short(nodes[e.src]), _short(nodes[e.dst])) for e in edges.values() if e.type == "CALLS"}
    assert {("default.methods.pay", "audit"), ("handlers.order.placed", "audit"),
            ("handlers.nested.refund", "audit")} <= calls
