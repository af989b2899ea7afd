"""Express: ``X.route(path).get(h).post(h2)`` is a route per verb at the path, and a router handed to a function
(``exports.add = app => { app.get(..) }``, called ``routes.add(app)`` from a file importing it) is the router its
callers pass; a parameter some caller fills with anything else is no router."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

ROUTES = """const items = require("../controllers/items");

exports.add = app => {
  app.route("/v1/items").get(items.list).post(items.create);
  app.get("/health", items.health);
};
"""

APP = """const express = require("express");
const routes = require("./config/routes");

const app = express();
routes.add(app);
module.exports = app;
"""

# a function called with something that is not a router: its `get` calls are no routes
CACHE = """function warm(store) {
  store.get("/not/a/route");
}

warm(new Map());
module.exports = {warm};
"""

CONTROLLERS = """exports.list = (req, res) => res.json([]);
exports.create = (req, res) => res.json({});
exports.health = (req, res) => res.send("ok");
"""


def test_route_chains_and_a_router_passed_to_a_function(tmp_path: Path):
    tree = write_tree(tmp_path / "shop", {
        "items/package.json": '{"name": "items", "dependencies": {"express": "4"}}', "items/api/app.js": APP,
        "items/api/config/routes.js": ROUTES, "items/api/controllers/items.js": CONTROLLERS,
        "items/api/cache.js": CACHE})
    nodes, _ = CodeGraph.build(tree).snapshot()
    routes = {n.props["label"] for n in nodes.values() if n.kind == "route"}
    assert routes == {"GET /v1/items", "POST /v1/items", "GET /health"}
