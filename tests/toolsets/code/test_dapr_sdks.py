"""Dapr from its SDKs in Python, Go, JavaScript and Java: service invocation is an HTTP call of the app of the
app-id, pub/sub publishes and subscriptions are producers and listeners of ``<pubsub component>/<topic>``."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

ORDERS = """from fastapi import FastAPI
from dapr.ext.fastapi import DaprApp

app = FastAPI()
dapr_app = DaprApp(app)

@app.get("/orders/{order_id}")
def one(order_id: str):
    return order_id

@app.post("/orders")
def create():
    return "ok"

@app.put("/orders")
def replace():
    return "ok"

@dapr_app.subscribe(pubsub="orderpubsub", topic="shipped")
def on_shipped(event: dict):
    return "ok"
"""

PY_CLIENT = """import os
from dapr.clients import DaprClient

PUBSUB = "orderpubsub"

def fetch(order_id):
    with DaprClient() as client:
        return client.invoke_method("orders", f"orders/{order_id}", data=b"", content_type="text/plain",
                                    http_verb="GET")

def place(order):
    with DaprClient() as client:
        client.invoke_method(app_id="orders", method_name="orders", data=order)
        client.publish_event(pubsub_name=PUBSUB, topic_name="placed", data=order)
"""

GO_CLIENT = """package main

import (
	"context"

	dapr "github.com/dapr/go-sdk/client"
	"github.com/dapr/go-sdk/service/common"
	daprd "github.com/dapr/go-sdk/service/http"
)

const pubsub = "orderpubsub"

func place(ctx context.Context, client dapr.Client, body []byte) {
	client.InvokeMethodWithContent(ctx, "orders", "orders", "post", &dapr.DataContent{ContentType: "application/json", Data: body})
	client.PublishEvent(ctx, pubsub, "shipped", body)
}

func onPlaced(ctx context.Context, e *common.TopicEvent) (retry bool, err error) {
	return false, nil
}

func main() {
	s := daprd.NewService(":6002")
	s.AddTopicEventHandler(&common.Subscription{PubsubName: pubsub, Topic: "placed", Route: "/placed"}, onPlaced)
	s.Start()
}
"""

JS_CLIENT = """import { DaprClient, DaprServer, HttpMethod } from "@dapr/dapr";

const client = new DaprClient();

export async function lookup(id) {
  return client.invoker.invoke("orders", `orders/${id}`, HttpMethod.GET);
}

export async function start() {
  const server = new DaprServer();
  await server.pubsub.subscribe("orderpubsub", "placed", async (data) => console.log(data));
  await server.start();
}

export async function other(bus) {
  return bus.invoke("orders", "orders");   // no Dapr invoker: not read
}
"""

JAVA_CLIENT = """package demo;

import io.dapr.Topic;
import io.dapr.client.DaprClient;
import io.dapr.client.domain.HttpExtension;
import org.springframework.web.bind.annotation.*;

@RestController
public class Billing {
    private final DaprClient client;

    public Billing(DaprClient client) { this.client = client; }

    public void charge(String order) {
        client.invokeMethod("orders", "orders", order, HttpExtension.POST).block();
    }

    @Topic(name = "shipped", pubsubName = "orderpubsub")
    @PostMapping("/shipped")
    public void shipped(@RequestBody String event) { }
}
"""

POM = """<project><modelVersion>4.0.0</modelVersion><groupId>demo</groupId><artifactId>billing</artifactId>
<parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId></parent>
</project>
"""

GO_MOD = "module checkout\n\ngo 1.21\n\nrequire github.com/dapr/go-sdk v1.10.0\n"


def _system(root: Path) -> Path:
    write_tree(root, {
        "orders/Dockerfile": "FROM python:3.12\n", "orders/requirements.txt": "fastapi\ndapr-ext-fastapi\n",
        "orders/app.py": ORDERS,
        "pyclient/Dockerfile": "FROM python:3.12\n", "pyclient/requirements.txt": "dapr\n",
        "pyclient/client.py": PY_CLIENT,
        "checkout/Dockerfile": "FROM golang:1.21\n", "checkout/go.mod": GO_MOD, "checkout/main.go": GO_CLIENT,
        "web/package.json": '{"name": "web", "version": "1.0.0", "dependencies": {"@dapr/dapr": "3.0.0"}}',
        "web/Dockerfile": "FROM node:20\n", "web/index.js": JS_CLIENT,
        "billing/pom.xml": POM, "billing/Dockerfile": "FROM eclipse-temurin:21\n",
        "billing/src/main/java/demo/Billing.java": JAVA_CLIENT})
    return root


def test_invocations_publishes_and_subscriptions_of_each_sdk(tmp_path: Path):
    nodes, edges = CodeGraph.build(_system(tmp_path / "shop")).snapshot()
    http = {(nodes[e.src].props["declaring_fqn"], nodes[e.dst].props["label"])
            for e in edges.values() if e.type == "HTTP_CALLS"}
    clients = {n.props["declaring_fqn"]: n.props for n in nodes.values()
               if n.kind == "client" and n.props.get("framework") == "dapr_invoke"}
    assert http == {
        ("client.fetch", "GET /orders/{order_id}"),     # Python: http_verb written
        ("client.place", "POST /orders"),               # Python: POST when no verb is written
        ("checkout.place", "POST /orders"),                 # Go: the verb argument, any case
        ("web/index.js#lookup", "GET /orders/{order_id}"),   # JS: HttpMethod.GET
        ("demo.Billing#charge(String)", "POST /orders")}   # Java: HttpExtension.POST, its fourth argument
    assert "web/index.js#other" not in clients           # an invoke() that is not Dapr's invoker
    asynchronous = {(nodes[e.src].props["declaring_fqn"], nodes[e.dst].props["handler_fqn"],
                     nodes[e.dst].props["topic"]) for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert asynchronous == {
        # Python publish_event -> Go AddTopicEventHandler's handler and JS pubsub.subscribe's function
        ("client.place", "checkout.onPlaced", "orderpubsub/placed"),
        ("client.place", "web/index.js#start", "orderpubsub/placed"),
        # Go PublishEvent -> Python @dapr_app.subscribe and Java @Topic
        ("checkout.place", "app.on_shipped", "orderpubsub/shipped"),
        ("checkout.place", "demo.Billing#shipped(String)", "orderpubsub/shipped")}
