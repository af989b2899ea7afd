"""AMQP outside Spring: a pika producer (exchange and key from class constants) reaches a Go consumer whose queue
a QueueBind binds to that exchange and key; an amqplib sendToQueue reaches a consumer of that queue by the
default exchange; a key nothing binds links nothing, and a queue that does not fold is said."""

from __future__ import annotations

from pathlib import Path

from helpers import backend

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.query import models, tools

PUBLISHER = '''import pika


class Publisher:
    EXCHANGE = "shop"
    ROUTING_KEY = "orders"

    def __init__(self):
        self._channel = pika.BlockingConnection(pika.ConnectionParameters("rabbitmq")).channel()

    def publish(self, body):
        self._channel.basic_publish(exchange=self.EXCHANGE, routing_key=self.ROUTING_KEY, body=body)

    def audit(self, body):
        self._channel.basic_publish("shop", "audit", body)
'''

CONSUMER = '''package main

import (
	"github.com/streadway/amqp"
)

func bind(ch *amqp.Channel) {
	q, _ := ch.QueueDeclare("orders", true, false, false, false, nil)
	ch.QueueBind(q.Name, "orders", "shop", false, nil)
}

func main() {
	conn, _ := amqp.Dial("amqp://rabbitmq")
	ch, _ := conn.Channel()
	bind(ch)
	msgs, _ := ch.Consume("orders", "", true, false, false, false, nil)
	for range msgs {
	}
}
'''

NODE = '''const amqp = require("amqplib");

async function notify(ch, queue) {
  ch.sendToQueue("emails", Buffer.from("hi"));
  ch.consume("emails", (msg) => {});
  ch.consume(queue, (msg) => {});
}
'''


def _system(tmp_path: Path) -> Path:
    for name, file, text in (("payment", "rabbitmq.py", PUBLISHER), ("dispatch", "main.go", CONSUMER),
                             ("mailer", "index.js", NODE)):
        (tmp_path / name).mkdir(parents=True)
        (tmp_path / name / "Dockerfile").write_text("FROM scratch\n")
        (tmp_path / name / file).write_text(text)
    (tmp_path / "dispatch/go.mod").write_text("module dispatch\n\ngo 1.22\n")
    (tmp_path / "mailer/package.json").write_text('{"name": "mailer", "version": "1.0.0"}\n')
    return tmp_path


def test_amqp_producers_reach_the_consumers_their_exchange_and_key_reach(tmp_path: Path):
    _system(tmp_path)
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    found = {(n.kind, n.props["microservice"], n.props["label"]): n for n in nodes.values() if n.props.get("broker")}
    assert set(found) == {
        ("producer", "payment", "rabbit shop/orders"), ("producer", "payment", "rabbit shop/audit"),
        ("route", "dispatch", "rabbit shop/orders"), ("route", "dispatch", "rabbit orders"),
        ("producer", "mailer", "rabbit emails"), ("route", "mailer", "rabbit emails"), ("route", "mailer", "rabbit {?}")}
    links = {(nodes[e.src].props["label"], nodes[e.dst].props["microservice"], nodes[e.dst].props["label"],
              e.props["match"]) for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert links == {("rabbit shop/orders", "dispatch", "rabbit shop/orders", "cross_service"),
                     ("rabbit emails", "mailer", "rabbit emails", "intra_service")}
    audit = found[("producer", "payment", "rabbit shop/audit")].props
    assert audit["match"] == "unresolved" and "no listener" in audit["match_detail"]
    unknown = found[("route", "mailer", "rabbit {?}")].props
    assert not unknown["resolved"] and "queue" in unknown["unresolved_reason"]


def test_impact_of_a_sender_names_the_consumers_of_what_it_sends(tmp_path: Path, embedder):
    tree = _system(tmp_path / "tree")
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        def impact(name: str, **fields):
            found = tools.resolve(runtime, parse_request(models.ResolveRequest, {
                "project_path": str(tree), "identifier": name}))
            return tools.impact(runtime, parse_request(models.ImpactRequest, {
                "project_path": str(tree), "id": found.node.id, **fields}))

        publish = impact("Publisher.publish")
        assert {(c.node.microservice, c.node.label) for c in publish.consumers} == {
            ("dispatch", "rabbit shop/orders"), ("dispatch", "dispatch.main")}
        assert all(c.path[0].source.label.endswith("Publisher.publish") for c in publish.consumers)
        assert not {c.node.id for c in publish.consumers} & {r.node.id for r in publish.results}  # not callers
        assert impact("Publisher.audit").consumers == []   # a key nothing binds: no consumer
        assert impact("Publisher.publish", direction="out").consumers == []
        assert impact("Publisher.publish", edge_types=["CALLS"]).consumers == []
    finally:
        runtime.close()
