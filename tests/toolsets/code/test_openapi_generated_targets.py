"""A generated OpenAPI client targets the service that serves the document it was generated from: the generator
runs a repository describes (a Makefile calling a script with the document's name, a ``package.json`` script, a
container's mounted paths) name the document and the output folder; the one service a server generator writes
for that document is the target, under the document's ``servers`` base path. Several or no serving services
leave the client as it was and say so; a path that still holds a variable is no generator run."""

from __future__ import annotations

import json

import pytest
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.openapi_generation import generations

DOC = """openapi: "3.0.0"
info:
  title: {name}
  version: 1.0.0
servers:
  - url: https://{{hostname}}/api
    variables:
      hostname:
        default: localhost
paths:
  {path}:
    {verb}:
      operationId: {op}
      responses:
        "200":
          description: ok
"""

API = """import ApiClient from "../ApiClient";

export default class DefaultApi {{
    constructor(apiClient) {{
        this.apiClient = apiClient || ApiClient.instance;
    }}

    {op}(id, callback) {{
      let pathParams = {{'id': id}};
      return this.apiClient.callApi(
        '{path}', '{verb}',
        pathParams, {{}}, {{}}, {{}}, null,
        ['bearerAuth'], [], ['application/json'], null, null, callback
      );
    }}
}}
"""

CLIENT = """export default class ApiClient {
    constructor() {
        this.basePath = 'https://localhost/api'.replace(/\\/+$/, '');
    }

    callApi(path, httpMethod, pathParams) {
        return fetch(this.basePath + path, {method: httpMethod});
    }
}
ApiClient.instance = new ApiClient();
"""


def _flask(path: str, verb: str) -> str:
    return f"""from flask import Flask

app = Flask(__name__)


@app.route("{path}", methods=["{verb}"])
def handle(id):
    return {{}}
"""


def _service(name: str, path: str, verb: str) -> dict[str, str]:
    return {f"{name}/Dockerfile": "FROM python:3.12\n", f"{name}/requirements.txt": "flask\n",
            f"{name}/app.py": _flask(path, verb)}


def _client(name: str, op: str, path: str, verb: str) -> dict[str, str]:
    home = f"web/src/clients/{name}/src"
    return {f"{home}/ApiClient.js": CLIENT, f"{home}/index.js": 'import ApiClient from "./ApiClient";\nexport {ApiClient};\n',
            f"{home}/api/DefaultApi.js": API.format(op=op, path=path, verb=verb)}


FILES = {
    "Makefile": "openapi: clients servers\n\nclients:\n\t@./scripts/gen-client.sh orders\n"
                "\t@./scripts/gen-client.sh stock\n\t@./scripts/gen-client.sh audit\n\n"
                "servers:\n\topenapi-generator-cli generate -i api/orders.yml -g python-flask -o orders\n"
                "\topenapi-generator-cli generate -i api/stock.yml -g python-flask -o stock-a\n"
                "\topenapi-generator-cli generate -i api/stock.yml -g python-flask -o stock-b\n",
    "scripts/gen-client.sh": '#!/bin/bash\nset -e\n\nreadonly name="$1"\n\n'
                             'docker run --rm -v "${PWD}:/local" "openapitools/openapi-generator-cli:v4.3.0" generate \\\n'
                             '  -i "/local/api/$name.yml" \\\n  -g javascript \\\n  -o "/local/web/src/clients/$name"\n',
    "api/orders.yml": DOC.format(name="orders", path="/orders/{id}", verb="delete", op="cancelOrder"),
    "api/stock.yml": DOC.format(name="stock", path="/items/{id}", verb="get", op="getItem"),
    "api/audit.yml": DOC.format(name="audit", path="/audit/{id}", verb="get", op="getAudit"),
    **_service("orders", "/api/orders/<id>", "DELETE"),
    **_service("stock-a", "/api/items/<id>", "GET"),
    **_service("stock-b", "/api/items/<id>", "GET"),
    **_service("audit", "/api/audit/<id>", "GET"),
    "web/package.json": '{"name": "shop-web", "scripts": {"start": "vite"}}\n',
    "web/Dockerfile": "FROM node:20\n",
    **_client("orders", "cancelOrder", "/orders/{id}", "DELETE"),
    **_client("stock", "getItem", "/items/{id}", "GET"),
    **_client("audit", "getAudit", "/audit/{id}", "GET"),
    "web/src/repositories/orders.js": """import {ApiClient as OrdersApiClient} from '../clients/orders/src'

export let ordersClient = new OrdersApiClient()
ordersClient.basePath = "http://localhost:3000/api"
if (process.env.NODE_ENV === 'development') {
    ordersClient.basePath = "http://localhost:3001/api"
}
""",
}


@pytest.fixture(scope="module")
def clients(tmp_path_factory) -> dict[str, dict]:
    root = write_tree(tmp_path_factory.mktemp("oasjoin") / "shop", FILES)
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.props["file"].split("/")[3]: n.props for n in nodes.values()
            if n.kind == "client" and n.props["file"].startswith("web/src/clients/")}


def test_a_client_targets_the_one_service_serving_its_document(clients):
    props = clients["orders"]   # its base URL is set two ways: only the document tells the service
    assert (props["http_method"], props["target_service"]) == ("DELETE", "orders")
    assert props["target_path_template"] == "/api/orders/{id}" and props["match"] == "cross_service"
    assert props["target_service_source"] == "openapi document"


def test_a_document_two_services_serve_is_not_guessed(clients):
    props = clients["stock"]
    assert props["match"] == "unresolved"
    assert "2 services serve api/stock.yml (stock-a, stock-b)" in props["match_detail"]


def test_a_document_no_service_serves_is_said(clients):
    props = clients["audit"]   # an audit service has the route, but no generator serves the document there
    assert props["match"] == "unresolved"
    assert "no service serves api/audit.yml" in props["match_detail"]


def test_generator_runs_are_read_in_the_folder_they_run_in(tmp_path):
    write_tree(tmp_path, {
        "web/package.json": json.dumps({"scripts": {
            "api": "openapi-generator-cli generate -i ../api/shop.yml -g typescript-axios -o src/gen",
            "other": "openapi-generator-cli generate -i $SPEC -g typescript-axios -o src/other",
            "outside": "openapi-generator-cli generate -i ../../shop.yml -g typescript-axios -o src/out"}}),
        "api/shop.yml": DOC.format(name="shop", path="/items", verb="get", op="list"),
        "svc/Makefile": "gen:\n\toapi-codegen -generate chi-server -o ports/api.gen.go ../api/shop.yml\n",
    })
    runs = {(r.tool, r.document, r.output, r.side, r.base) for r in generations(tmp_path)}
    assert runs == {("openapi-generator", "api/shop.yml", "web/src/gen", "client", "/api"),
                    ("oapi-codegen", "api/shop.yml", "svc/ports/api.gen.go", "server", "/api")}


def test_each_command_of_a_line_is_read_alone(tmp_path):
    """Two commands on one line never lend each other their document or output, and a download's ``-o`` is no
    generator's; a literal ``cd`` moves the folder the paths are read in, one with a variable is no run."""
    write_tree(tmp_path, {
        "Makefile": "gen:\n"
                    "\toapi-codegen -generate chi-server -o a/server.gen.go api/a.yml; "
                    "oapi-codegen -generate chi-server -o b/server.gen.go api/b.yml\n"
                    "\t@cd svc && oapi-codegen -generate chi-server -o ports/api.gen.go api.yml\n"
                    "\tcd $(SVC) && oapi-codegen -generate chi-server -o ports/api.gen.go api.yml\n",
        "web/package.json": json.dumps({"scripts": {
            "gen": "curl -o api.yml http://example.test/api.yml && "
                   "openapi-generator-cli generate -i api.yml -g typescript-axios -o src/gen"}}),
    })
    runs = {(r.document, r.output, r.side) for r in generations(tmp_path)}
    assert runs == {("api/a.yml", "a/server.gen.go", "server"), ("api/b.yml", "b/server.gen.go", "server"),
                    ("svc/api.yml", "svc/ports/api.gen.go", "server"),
                    ("web/api.yml", "web/src/gen", "client")}


def test_a_function_s_argument_is_not_the_script_s(tmp_path):
    """``local name="$1"`` is a shell function's argument: the script's caller's argument is not put there."""
    write_tree(tmp_path, {
        "Makefile": "gen:\n\t./gen.sh production\n",
        "gen.sh": 'gen() {\n  local name="$1"\n'
                  '  openapi-generator-cli generate -i api/$name.yml -g typescript-axios -o web/$name\n}\ngen orders\n',
    })
    assert generations(tmp_path) == []


def test_an_oapi_codegen_run_writing_a_client_serves_nothing(tmp_path):
    """oapi-codegen's default (types, client and server in one file) is used by callers too: not a server."""
    write_tree(tmp_path, {
        "caller/Makefile": "gen:\n\toapi-codegen -package orders -o orders/client.gen.go ../api/orders.yml\n",
        "svc/Makefile": "gen:\n\toapi-codegen -generate types,chi-server -o ports/api.gen.go ../api/orders.yml\n",
    })
    sides = {r.output: r.side for r in generations(tmp_path)}
    assert sides == {"caller/orders/client.gen.go": "client", "svc/ports/api.gen.go": "server"}


def test_two_serving_services_are_said_when_the_base_url_is_not_known_either(tmp_path):
    stock = FILES["web/src/repositories/orders.js"].replace("Orders", "Stock").replace("orders", "stock")
    root = write_tree(tmp_path / "shop", {**FILES, "web/src/repositories/stock.js": stock})
    nodes, _ = CodeGraph.build(root).snapshot()
    props = next(n.props for n in nodes.values()
                 if n.kind == "client" and n.props["file"] == "web/src/clients/stock/src/api/DefaultApi.js")
    assert props["match"] == "unresolved" and "base URL is set 3 ways" in props["match_detail"]
    assert "2 services serve api/stock.yml (stock-a, stock-b)" in props["match_detail"]


def test_a_script_s_own_cd_moves_its_paths(tmp_path):
    """A script that moves to its own folder reads its paths from there, not from its caller's; one that moves
    where a variable says gives no run."""
    write_tree(tmp_path, {
        "web/package.json": json.dumps({"scripts": {"gen": "../scripts/gen.sh && ../scripts/other.sh"}}),
        "scripts/gen.sh": '#!/bin/sh\ncd "$(dirname "$0")"\ncd ..\n'
                          "openapi-generator-cli generate -i api/shop.yml -g typescript-axios -o web/src/gen\n",
        "scripts/other.sh": '#!/bin/sh\ncd "$WORKDIR"\n'
                            "openapi-generator-cli generate -i api/shop.yml -g typescript-axios -o web/src/other\n",
    })
    assert {(r.document, r.output) for r in generations(tmp_path)} == {("api/shop.yml", "web/src/gen")}
