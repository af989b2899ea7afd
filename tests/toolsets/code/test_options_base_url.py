"""A TS/JS client whose base URL is a constructor's parameter, or a property of the options object the constructor
takes (``new ItemsProxy({baseUrl: process.env.ITEMS_URL || "http://localhost:8080"})``, then ``${options.baseUrl}``
in the constructor), takes what every construction in a file that imports the class passes: the deployment settles
the variable and the client links; a construction that passes no such property, or spreads another object over it,
leaves it unresolved, saying so; a construction under an imported alias counts too."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.typescript.constants import ScriptFolder
from graphlore.toolsets.code.languages.typescript.extract import extract

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
        "    const tuned = new ItemsProxy({timeout: 5, ...settings});\n"
        "    return {items, users, tuned};\n}\n",
    # a subclass passes the options through super(...), which is not read
    # a construction under another local name is one of the class's too
    "gateway/src/legacy.mjs": "import {ItemsProxy as Proxy} from './ItemsProxy';\n\n"
                              "export const legacy = new Proxy({baseUrl: 'http://legacy:3000'});\n",
    "legacy/package.json": '{"name": "legacy"}\n',
    "legacy/index.js": "const express = require('express');\nconst app = express();\n"
                       "app.get('/items/:id', (req, res) => res.json({}));\napp.listen(3000);\n",
    "items/package.json": '{"name": "items"}\n',
    "items/index.js": "const express = require('express');\nconst app = express();\n"
                      "app.get('/items/:id', (req, res) => res.json({}));\napp.listen(3000);\n",
    "users/package.json": '{"name": "users"}\n',
    "users/index.js": "const express = require('express');\nconst app = express();\n"
                      "app.get('/me', (req, res) => res.json({}));\napp.get('/users', (req, res) => res.json([]));\n"
                      "app.listen(3000);\n",
    "docker-compose.yml": "services:\n  gateway:\n    build: ./gateway\n    environment:\n"
                          "      ITEMS_URL: http://items:3000\n  items:\n    build: ./items\n  users:\n    build: ./users\n"
                          "  legacy:\n    build: ./legacy\n",
}


def test_a_base_url_passed_in_a_constructors_options_object_links(tmp_path: Path):
    nodes, edges = CodeGraph.build(write_tree(tmp_path / "sys", TREE)).snapshot()
    clients = {(n.props["file"].rsplit("/", 1)[-1], n.props["line"]): n for n in nodes.values() if n.kind == "client"}
    linked = {(key, nodes[e.dst].props["microservice"] + " " + nodes[e.dst].props["label"])
              for key, client in clients.items() for e in edges.values()
              if e.src == client.id and e.type == "HTTP_CALLS"}
    assert linked == {(("ItemsProxy.js", 9), "items GET /items/{id}"), (("ItemsProxy.js", 9), "legacy GET /items/{id}"),
                      (("UsersProxy.js", 10), "users GET /me")}
    users = clients[("UsersProxy.js", 14)].props
    assert users["match"] == "unresolved" and "passes no options.root" in users["unresolved_reason"]
    assert "spreads an object that may set options.baseUrl" in clients[("ItemsProxy.js", 9)].props["match_detail"]


def test_a_subclass_s_super_call_is_a_construction_not_read():
    """``super(...)`` passes the options too, and its arguments are not read: the value is not known, not the one the
    plain constructions pass."""
    files = {path: extract(path, text.encode()) for path, text in {
        "src/Proxy.js": "class Proxy {\n  constructor(options) {\n    this.base = options.baseUrl;\n  }\n}\n"
                        "module.exports = {Proxy};\n",
        "src/a.js": "const {Proxy} = require('./Proxy');\nconst p = new Proxy({baseUrl: 'http://items:3000'});\n",
        "src/b.js": "const {Proxy: Base} = require('./Proxy');\n"
                    "class Tuned extends Base {\n  constructor() {\n    super({baseUrl: 'http://legacy:3000'});\n  }\n}\n",
    }.items()}
    folded = ScriptFolder(files, "src/Proxy.js").at(files["src/Proxy.js"], "Proxy.constructor", 3).fold("options.baseUrl")
    assert not folded.known and "Tuned at src/b.js extends Proxy" in folded.why[0]
