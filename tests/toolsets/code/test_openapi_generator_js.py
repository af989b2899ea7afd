"""openapi-generator's JavaScript client: each generated ``callApi('/path/{id}', 'METHOD', pathParams, ...)`` is a
client of that method and path, under its own ``ApiClient``'s base path (the generated default, or what the project
assigns to an instance of that ``ApiClient``); one value links, several leave the client unresolved and say so; a
``callApi`` of another shape is no generated request."""

from __future__ import annotations

import pytest
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph


def _api(calls: list[tuple[str, str, str]]) -> str:
    methods = "".join(f"""
    {name}(id, callback) {{
      let pathParams = {{'id': id}};
      return this.apiClient.callApi(
        '{path}', '{verb}',
        pathParams, {{}}, {{}}, {{}}, null,
        ['bearerAuth'], [], ['application/json'], null, null, callback
      );
    }}
""" for name, verb, path in calls)
    return f"""import ApiClient from "../ApiClient";

export default class DefaultApi {{
    constructor(apiClient) {{
        this.apiClient = apiClient || ApiClient.instance;
    }}
{methods}}}
"""


def _client(default: str) -> str:
    return f"""import superagent from "superagent";

export default class ApiClient {{
    constructor() {{
        this.basePath = '{default}'.replace(/\\/+$/, '');
    }}

    callApi(path, httpMethod, pathParams) {{
        return superagent(httpMethod, this.basePath + path);
    }}
}}
ApiClient.instance = new ApiClient();
"""


FILES = {
    "orders/Dockerfile": "FROM python:3.12\n",
    "orders/requirements.txt": "flask\n",
    "orders/app.py": """from flask import Flask

app = Flask(__name__)


@app.route("/v1/orders/<order_id>", methods=["DELETE"])
def cancel(order_id):
    return {}
""",
    "web/package.json": '{"name": "shop-web", "dependencies": {"superagent": "^8"}}\n',
    "web/Dockerfile": "FROM node:20\n",
    "web/src/clients/orders/src/ApiClient.js": _client("http://orders:8080/v1"),
    "web/src/clients/orders/src/index.js": 'import ApiClient from "./ApiClient";\nexport {ApiClient};\n',
    "web/src/clients/orders/src/api/DefaultApi.js": _api([("cancelOrder", "DELETE", "/orders/{id}")]),
    "web/src/clients/stock/src/ApiClient.js": _client("https://localhost/api"),
    "web/src/clients/stock/src/index.js": 'import ApiClient from "./ApiClient";\nexport {ApiClient};\n',
    "web/src/clients/stock/src/api/DefaultApi.js": _api([("getItem", "GET", "/items/{id}")]),
    "web/src/repositories/stock.js": """import {ApiClient as StockApiClient} from '../clients/stock/src'

export let stockClient = new StockApiClient()
if (process.env.NODE_ENV === 'development') {
    stockClient.basePath = "http://localhost:3002/api"
}

export function misc(api) {
    return api.callApi('/not-generated', 'GET')
}
""",
}


@pytest.fixture(scope="module")
def clients(tmp_path_factory) -> dict[str, dict]:
    root = write_tree(tmp_path_factory.mktemp("ogen") / "shop", FILES)
    nodes, _ = CodeGraph.build(root).snapshot()
    return {f"{n.props['file']}:{n.props['line']}": n.props for n in nodes.values() if n.kind == "client"}


def test_a_generated_call_with_one_base_links_to_the_service(clients):
    (props,) = [p for k, p in clients.items() if k.startswith("web/src/clients/orders/")]
    assert (props["http_method"], props["target_path_template"]) == ("DELETE", "/v1/orders/{id}")
    assert props["target_service"] == "orders" and props["match"] == "cross_service"


def test_a_base_set_two_ways_leaves_the_client_unresolved(clients):
    (props,) = [p for k, p in clients.items() if k.startswith("web/src/clients/stock/")]
    assert props["http_method"] == "GET" and props["target_path_template"].endswith("/items/{id}")
    assert props["match"] == "unresolved" and "set 2 ways" in props["unresolved_reason"]
    assert not any(k.startswith("web/src/repositories/") for k in clients)   # callApi of another shape
