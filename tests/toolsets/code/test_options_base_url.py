"""A TS/JS client whose base URL is a constructor's parameter, or a property of the options object the constructor
takes (``new ItemsProxy({baseUrl: process.env.ITEMS_URL || "http://localhost:8080"})``, then ``${options.baseUrl}``
in the constructor), takes what every construction in a file that imports the class passes: the deployment settles
the variable and the client links; a construction that passes no such property leaves it unresolved, saying so."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

TREE = {
    "gateway/package.json": '{"name": "gateway"}\n',
    "gateway/src/ItemsProxy.js":
        "const fetch = require('node-fetch');\n\nclass ItemsProxy {\n    constructor(options) {\n"
        "        this.items = `${options.baseUrl}/items`;\n    }\n\n"
        "    find(id) {\n        return fetch(`${this.items}/${id}`);\n    }\n}\n\nmodule.exports = {ItemsProxy};\n",
    "gateway/src/UsersProxy.js":
        "const fetch = require('node-fetch');\n\nclass UsersProxy {\n    constructor(base, options) {\n"
        "        this.base = base;\n        this.users = `${options.root}/users`;\n    }\n\n"
        "    me() {\n        return fetch(`${this.base}/me`);\n    }\n\n"
        "    list() {\n        return fetch(this.users);\n    }\n}\n\nmodule.exports = {UsersProxy};\n",
    "gateway/src/server.ts":
        "const {ItemsProxy} = require('./ItemsProxy');\nconst {UsersProxy} = require('./UsersProxy');\n\n"
        "export function context() {\n"
        "    const items = new ItemsProxy({baseUrl: process.env.ITEMS_URL || 'http://localhost:8080'});\n"
        "    const users = new UsersProxy('http://users:3000', {timeout: 5});\n"
        "    return {items, users};\n}\n",
    "items/package.json": '{"name": "items"}\n',
    "items/index.js": "const express = require('express');\nconst app = express();\n"
                      "app.get('/items/:id', (req, res) => res.json({}));\napp.listen(3000);\n",
    "users/package.json": '{"name": "users"}\n',
    "users/index.js": "const express = require('express');\nconst app = express();\n"
                      "app.get('/me', (req, res) => res.json({}));\napp.get('/users', (req, res) => res.json([]));\n"
                      "app.listen(3000);\n",
    "docker-compose.yml": "services:\n  gateway:\n    build: ./gateway\n    environment:\n"
                          "      ITEMS_URL: http://items:3000\n  items:\n    build: ./items\n  users:\n    build: ./users\n",
}


def test_a_base_url_passed_in_a_constructors_options_object_links(tmp_path: Path):
    nodes, edges = CodeGraph.build(write_tree(tmp_path / "sys", TREE)).snapshot()
    clients = {(n.props["file"].rsplit("/", 1)[-1], n.props["line"]): n for n in nodes.values() if n.kind == "client"}
    linked = {key: nodes[e.dst].props["microservice"] + " " + nodes[e.dst].props["label"]
              for key, client in clients.items() for e in edges.values()
              if e.src == client.id and e.type == "HTTP_CALLS"}
    assert linked == {("ItemsProxy.js", 9): "items GET /items/{id}", ("UsersProxy.js", 10): "users GET /me"}
    users = clients[("UsersProxy.js", 14)].props
    assert users["match"] == "unresolved" and "passes no options.root" in users["unresolved_reason"]
