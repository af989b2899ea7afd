"""A module-level factory that returns an object literal of functions (``const Api = () => ({ list() {...} })``)
gives them as its methods, and what it makes (``export default Api()``, ``module.exports = Api()``, ``const api =
Api()``) is that object: a caller's ``Api.list()`` reaches ``Api.list``. A Next.js pages handler wrapped in a call
(``export default withSpan(handler)``) is the function it wraps."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

GATEWAY = """const client = makeClient();

const OrdersGateway = () => ({
  placeOrder(order: string) {
    return client.send(order);
  },
  cancel: async (id: string) => client.drop(id),
  audit: function (id: string) {
    return id;
  },
});

export default OrdersGateway();
"""

SERVICE = """import OrdersGateway from '../gateways/Orders.gateway';

function Billing() {
  return {
    charge(order: string) {
      return OrdersGateway.placeOrder(order);
    },
  };
}

module.exports = Billing();
"""

LOCAL = """function Stock() {
  function reserve(sku: string) {
    return sku;
  }
  return { reserve, release: (sku: string) => sku };
}

export const stock = Stock();

export function take(sku: string) {
  stock.release(sku);
  return stock.reserve(sku);
}
"""

CHECKOUT = """import OrdersGateway from '../../gateways/Orders.gateway';
const Billing = require('../../services/Billing');

const withSpan = (fn) => fn;

const handler = async (req, res) => {
  if (req.method === 'POST') {
    await OrdersGateway.cancel(req.body.id);
    return res.json(Billing.charge(req.body));
  }
};

export default withSpan(handler);
"""


def _graph(root: Path):
    return CodeGraph.build(write_tree(root, {
        "web/package.json": '{"name": "web", "dependencies": {"next": "14.2.0"}}\n',
        "web/next.config.js": "module.exports = {};\n",
        "web/gateways/Orders.gateway.ts": GATEWAY, "web/services/Billing.ts": SERVICE,
        "web/services/stock.ts": LOCAL, "web/pages/api/checkout.ts": CHECKOUT})).snapshot()


def _calls(nodes, edges) -> dict[str, set[str]]:
    short = {i: n.props.get("fqn", n.name).split("#")[-1] for i, n in nodes.items()}
    out: dict[str, set[str]] = {}
    for e in edges.values():
        if e.type == "CALLS":
            out.setdefault(short[e.src], set()).add(short[e.dst])
    return out


def test_a_factory_s_returned_functions_are_its_methods_and_what_it_makes_calls_them(tmp_path: Path):
    nodes, edges = _graph(tmp_path)
    methods = {n.props["fqn"].split("#")[-1] for n in nodes.values()
               if n.kind == "symbol" and n.props.get("symbol_kind") == "method"}
    assert {"OrdersGateway.placeOrder", "OrdersGateway.cancel", "OrdersGateway.audit", "Billing.charge",
            "Stock.release"} <= methods
    assert "Stock.reserve" not in methods   # a nested function keeps its own symbol
    calls = _calls(nodes, edges)
    assert "OrdersGateway.placeOrder" in calls["Billing.charge"]          # export default Factory()
    assert "Billing.charge" in calls["handler"]                           # module.exports = Factory()
    assert "OrdersGateway.cancel" in calls["handler"]
    assert calls["take"] >= {"Stock.release", "Stock.reserve"}           # const x = Factory()


def test_a_next_handler_wrapped_in_a_call_is_the_function_it_wraps(tmp_path: Path):
    nodes, edges = _graph(tmp_path)
    routes = {e.dst: nodes[e.src].props["fqn"].split("#")[-1] for e in edges.values() if e.type == "EXPOSES"}
    assert [(nodes[r].props["label"], owner) for r, owner in routes.items()] == [("POST /api/checkout", "handler")]


BRANCHED = """function first(id: string) { return id; }
function second(id: string) { return id; }

function makeApi(mode: string) {
  if (mode === "a") {
    return { get: (id: string) => first(id) };
  }
  return { get: (id: string) => second(id) };
}

const api = makeApi(process.env.MODE);

export function use(id: string) {
  return api.get(id);
}
"""


def test_a_factory_returning_one_of_two_objects_gives_no_methods(tmp_path: Path):
    """Which object ``makeApi`` returns is decided at run time: ``api.get`` is never read as the last one's."""
    nodes, edges = CodeGraph.build(write_tree(tmp_path, {"web/package.json": '{"name": "web"}\n',
                                                         "web/api.ts": BRANCHED})).snapshot()
    calls = _calls(nodes, edges)
    assert "makeApi.get" not in {n.props.get("fqn", "").split("#")[-1] for n in nodes.values()}
    assert not calls.get("use", set()) & {"makeApi.get", "second", "first"}
