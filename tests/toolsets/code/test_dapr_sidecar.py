"""Requests through a Dapr sidecar's invoke API (``http://localhost:3500/v1.0/invoke/<app-id>/method/<path>``):
from a client in any language, and from a gateway route whose rewrite or address leads there, they reach
``<path>`` on the app of that app-id, whatever address the sidecar was reached at."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.folding import literal
from graphlore.toolsets.code.services.dapr_sidecar import sidecar_path, sidecar_url

ORDERS = """from flask import Flask
app = Flask(__name__)

@app.get("/orders/{order_id}")
def one(order_id):
    return order_id

@app.post("/orders")
def create():
    return "ok"
"""

SUBSCRIBER = """from fastapi import FastAPI
from dapr.ext.fastapi import DaprApp

app = FastAPI()
events = DaprApp(app)

@events.subscribe(pubsub="orderpubsub", topic="placed")
def on_placed(event: dict):
    return "ok"
"""

PY_CLIENT = """import os
import requests

DAPR_PORT = os.getenv("DAPR_HTTP_PORT", "3500")

def fetch(order_id):
    return requests.get(f"http://localhost:{DAPR_PORT}/v1.0/invoke/orders/method/orders/{order_id}")

def place(app_id, body):
    return requests.post(f"http://localhost:3500/v1.0/invoke/{app_id}/method/orders", json=body)

def announce(order):
    requests.post(f"http://localhost:{DAPR_PORT}/v1.0/publish/orderpubsub/placed", json=order)
    requests.post(f"http://localhost:{DAPR_PORT}/v1.0/publish/orderpubsub/{order.kind}", json=order)
"""

JS_CLIENT = """const base = "http://127.0.0.1:3500";

export async function make(order) {
  return fetch(`${base}/v1.0/invoke/orders.production/method/orders`, {method: "POST", body: JSON.stringify(order)});
}
"""

ENVOY = """static_resources:
  listeners:
  - address: {socket_address: {address: 0.0.0.0, port_value: 80}}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          route_config:
            virtual_hosts:
            - name: all
              domains: ["*"]
              routes:
              - match: {prefix: "/o/"}
                route: {cluster: sidecar, prefix_rewrite: "/v1.0/invoke/orders/method/"}
              - match: {prefix: "/nobody/"}
                route: {cluster: sidecar, prefix_rewrite: "/v1.0/invoke/nobody/method/"}
  clusters:
  - name: sidecar
    load_assignment:
      endpoints:
      - lb_endpoints:
        - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 3500}}}
"""

YARP = {"ReverseProxy": {
    "Routes": {"orders": {"ClusterId": "dapr", "Match": {"Path": "/shop/{**rest}"},
                          "Transforms": [{"PathRemovePrefix": "/shop"}]}},
    "Clusters": {"dapr": {"Destinations": {"one": {"Address": "http://localhost:3500/v1.0/invoke/orders/method/"}}}}}}

COMPOSE = """services:
  orders:
    build: ./orders
  orders-dapr:
    image: daprio/daprd
    command: ["./daprd", "-app-id", "orders", "-app-port", "80"]
  pyclient:
    build: ./pyclient
  web:
    build: ./web
  edge:
    build: ./edge
  gw:
    build: ./gw
"""


def _system(root: Path) -> Path:
    write_tree(root, {
        "orders/Dockerfile": "FROM python:3.12\n", "orders/requirements.txt": "flask\n", "orders/app.py": ORDERS,
        "pyclient/Dockerfile": "FROM python:3.12\n", "pyclient/requirements.txt": "requests\n",
        "pyclient/client.py": PY_CLIENT, "pyclient/events.py": SUBSCRIBER,
        "web/package.json": '{"name": "web", "version": "1.0.0"}', "web/Dockerfile": "FROM node:20\n",
        "web/orders.js": JS_CLIENT,
        "edge/package.json": '{"name": "edge", "version": "1.0.0"}', "edge/Dockerfile": "FROM node:20\n",
        "edge/index.js": "export const up = true;\n", "edge/envoy.yaml": ENVOY,
        "gw/gw.csproj": '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>',
        "gw/Program.cs": "var app = WebApplication.CreateBuilder(args).Build();\napp.Run();\n",
        "gw/appsettings.json": json.dumps(YARP, indent=2),
        "docker-compose.yml": COMPOSE})
    return root


def test_the_invoke_path_names_the_app_and_its_path():
    assert sidecar_path("/v1.0/invoke/orders/method/orders/1") == ("orders", "/orders/1")
    assert sidecar_path("/v1.0/invoke/orders.production/method/") == ("orders", "/")
    assert sidecar_path("/v1.0/invoke/orders/method") == ("orders", "/")
    assert sidecar_path("/v1.0/state/orders") is None
    assert sidecar_path("/api/v1.0/invoke/orders/method/x") is None   # the API is at the sidecar's root
    url = sidecar_url(literal("http://localhost:3500/v1.0/invoke/orders/method/orders?x=1"))
    assert url is not None and url.text == "http://orders/orders?x=1" and url.known
    assert sidecar_url(literal("http://orders/v2/orders")) is None


def test_clients_and_gateways_through_the_sidecar_reach_the_app_of_the_app_id(tmp_path: Path):
    nodes, edges = CodeGraph.build(_system(tmp_path / "shop")).snapshot()
    linked = {(nodes[e.src].props.get("declaring_fqn") or nodes[e.src].props["label"], nodes[e.dst].props["label"])
              for e in edges.values() if e.type == "HTTP_CALLS"}
    clients = {n.props["declaring_fqn"]: n.props for n in nodes.values() if n.kind == "client"}
    routes = {(n.props["framework"], n.props["label"]): n.props for n in nodes.values() if n.kind == "route"}
    # a client in any language: the app-id is the service, the rest of the path is the route's
    assert ("client.fetch", "GET /orders/{order_id}") in linked
    assert clients["client.fetch"]["target_service"] == "orders"
    assert "Dapr sidecar" in clients["client.fetch"]["target_service_matched_by"]
    assert ("web/orders.js#make", "POST /orders") in linked   # app-id.namespace: the app in that namespace
    # an app-id not known: no service, and the client says why
    assert clients["client.place"]["match"] == "unresolved"
    assert "Dapr app-id" in clients["client.place"]["match_detail"]
    # Envoy's prefix_rewrite and YARP's destination path lead to the sidecar: the app's routes under the rest
    assert {dst for src, dst in linked if src == "ANY /o/**"} == {"GET /orders/{order_id}", "POST /orders"}
    assert {dst for src, dst in linked if src == "ANY /shop/**"} == {"GET /orders/{order_id}", "POST /orders"}
    assert routes[("envoy", "ANY /o/**")]["target_service"] == "orders"
    # an app-id that is no service of the project: unresolved, never another service
    assert routes[("envoy", "ANY /nobody/**")]["match"] == "unresolved"


def test_a_post_to_the_sidecars_publish_api_is_a_producer_of_that_topic(tmp_path: Path):
    nodes, edges = CodeGraph.build(_system(tmp_path / "shop")).snapshot()
    producers = {n.props["topic"]: n.props for n in nodes.values() if n.kind == "producer"}
    assert set(producers) == {"orderpubsub/placed", "orderpubsub/{?}"}
    assert producers["orderpubsub/placed"]["broker"] == "dapr"
    assert producers["orderpubsub/{?}"]["match"] == "unresolved"   # a topic not known: no listener guessed
    assert {(nodes[e.src].props["declaring_fqn"], nodes[e.dst].props["handler_fqn"]) for e in edges.values()
            if e.type == "ASYNC_CALLS"} == {("client.announce", "events.on_placed")}
    clients = {n.props["declaring_fqn"] for n in nodes.values() if n.kind == "client"}
    assert "client.announce" not in clients
