"""Watermill in Go: ``Publish(topic, msgs...)`` on a watermill publisher is a producer; ``router.AddHandler(name,
topic, sub, pubTopic, pub, handler)`` a listener of ``topic`` at the handler and a producer of ``pubTopic``;
``AddNoPublisherHandler``/``AddConsumerHandler`` a listener; ``Subscribe(ctx, topic)`` on a subscriber a listener.
The broker is the one watermill backend the project imports; producers meet listeners by topic."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

TOPICS = """package events

const OrderPlaced = "orders." + "placed"

var InvoiceDue = "invoices.due"
"""

SHOP = """package main

import (
	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill-kafka/v3/pkg/kafka"
	"github.com/ThreeDotsLabs/watermill/message"

	"example.org/store/events"
)

type Orders struct {
	pub message.Publisher
}

func (o *Orders) Place(id string) error {
	return o.pub.Publish(events.OrderPlaced, message.NewMessage(watermill.NewUUID(), []byte(id)))
}

func main() {
	pub, _ := kafka.NewPublisher(kafka.PublisherConfig{}, nil)
	orders := &Orders{pub: pub}
	_ = orders.Place("1")
}
"""

BILLING = """package main

import (
	"context"

	"github.com/ThreeDotsLabs/watermill-kafka/v3/pkg/kafka"
	"github.com/ThreeDotsLabs/watermill/message"

	"example.org/store/events"
)

type Billing struct {
	router *message.Router
	sub    message.Subscriber
	pub    message.Publisher
}

func (b *Billing) invoice(msg *message.Message) ([]*message.Message, error) { return nil, nil }

func (b *Billing) remind(msg *message.Message) error { return nil }

func (b *Billing) Register() {
	b.router.AddHandler("invoicer", events.OrderPlaced, b.sub, events.InvoiceDue, b.pub, b.invoice)
	b.router.AddNoPublisherHandler("reminder", events.InvoiceDue, b.sub, b.remind)
}

func (b *Billing) Audit(ctx context.Context) {
	msgs, _ := b.sub.Subscribe(ctx, "audit.log")
	for range msgs {
	}
}

func main() {
	sub, _ := kafka.NewSubscriber(kafka.SubscriberConfig{}, nil)
	b := &Billing{sub: sub}
	b.Register()
}
"""

#: a Publish on something that is no watermill publisher is not read
OTHER = """package main

import (
	"example.org/store/events"
	"github.com/ThreeDotsLabs/watermill/message"
)

type bus struct{}

func (bus) Publish(topic string, data []byte) {}

func main() {
	var b bus
	b.Publish(events.OrderPlaced, nil)
	_ = message.NewMessage
}
"""

DOCKER = "FROM golang:1.22\nCOPY . .\nRUN go build -o /app .\n"


def _system(root: Path) -> Path:
    return write_tree(root, {"go.mod": "module example.org/store\n\ngo 1.22\n", "events/topics.go": TOPICS,
                             "shop/main.go": SHOP, "shop/Dockerfile": DOCKER,
                             "billing/main.go": BILLING, "billing/Dockerfile": DOCKER,
                             "other/main.go": OTHER, "other/Dockerfile": DOCKER})


def test_watermill_producers_and_listeners_meet_by_topic(tmp_path: Path):
    nodes, edges = CodeGraph.build(_system(tmp_path / "store")).snapshot()
    producers = {(n.props["microservice"], n.props["topic"], n.props["line"]) for n in nodes.values()
                 if n.kind == "producer" and n.props.get("producer_kind") == "watermill"}
    assert producers == {("shop", "orders.placed", 16), ("billing", "invoices.due", 23)}
    listeners = {(n.props["microservice"], n.props["topic"]): n for n in nodes.values()
                 if n.kind == "route" and n.props.get("framework") == "watermill"}
    assert set(listeners) == {("billing", "orders.placed"), ("billing", "invoices.due"), ("billing", "audit.log")}
    assert {n.props["broker"] for n in listeners.values()} == {"kafka"}
    placed = listeners[("billing", "orders.placed")]   # declared by the handler, b.invoice, at the registration
    assert placed.props["line"] == 23 and placed.props["handler_fqn"].endswith("Billing.invoice")
    links = {(nodes[e.src].props["microservice"], nodes[e.dst].props["microservice"], nodes[e.dst].props["topic"])
             for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert links == {("shop", "billing", "orders.placed"), ("billing", "billing", "invoices.due")}


def test_a_go_project_without_watermill_or_go_kit_builds_neither_reader(tmp_path: Path, monkeypatch):
    """Every update reads the project's Go files: the watermill and go-kit readers build their view of the Go
    packages only where a file imports their library (each was a pass over every Go file of every Go project)."""
    from graphlore.toolsets.code.frameworks import watermill
    from graphlore.toolsets.code.frameworks.grpc import gokit

    def refuse(*_args, **_kwargs):
        raise AssertionError("built for a project that does not import the library")

    monkeypatch.setattr(watermill, "Watermill", refuse)
    monkeypatch.setattr(gokit, "GoPackages", refuse)
    write_tree(tmp_path, {"go.mod": "module example.org/plain\n\ngo 1.22\n",
                          "main.go": 'package main\n\nimport "net/http"\n\nfunc main() {\n'
                                     '\thttp.HandleFunc("/ping", func(w http.ResponseWriter, r *http.Request) {})\n}\n',
                          "Dockerfile": "FROM golang:1.22\n"})
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    assert any(n.kind == "route" for n in nodes.values())
