"""AMQP outside Spring: a pika producer (exchange and key from class constants) reaches a Go consumer whose queue
a QueueBind binds to that exchange and key; an amqplib sendToQueue reaches a consumer of that queue by the
default exchange; a key nothing binds links nothing, and a queue that does not fold is said."""

from __future__ import annotations

from pathlib import Path

from helpers import backend
from helpers.code_tools import write_tree

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


SERVER_NAMED = '''package main

import (
	"github.com/rabbitmq/amqp091-go"
)

func listen(ch *amqp091.Channel) {
	q, _ := ch.QueueDeclare("", false, false, true, false, nil)
	ch.QueueBind(q.Name, "KEY", "EXCHANGE", false, nil)
	msgs, _ := ch.Consume(q.Name, "", true, false, false, false, nil)
	for range msgs {
	}
}

func unbound(ch *amqp091.Channel) {
	q, _ := ch.QueueDeclare("", false, false, true, false, nil)
	msgs, _ := ch.Consume(q.Name, "", true, false, false, false, nil)
	for range msgs {
	}
}
'''


def test_a_queue_the_broker_names_is_bound_by_its_own_function_only(tmp_path: Path):
    """Two services each declare a server-named queue (QueueDeclare("")) and bind it to their own exchange: a
    message to one exchange reaches that service's consumer only, never the other's."""
    for name, exchange, key in (("audit", "logs", "info"), ("billing", "payments", "done")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "Dockerfile").write_text("FROM scratch\n")
        (tmp_path / name / "go.mod").write_text(f"module {name}\n\ngo 1.22\n")
        (tmp_path / name / "main.go").write_text(SERVER_NAMED.replace("KEY", key).replace("EXCHANGE", exchange))
    (tmp_path / "web").mkdir()
    (tmp_path / "web/Dockerfile").write_text("FROM scratch\n")
    (tmp_path / "web/pub.py").write_text(
        'import pika\n\n\ndef send(channel):\n    channel.basic_publish(exchange="logs", routing_key="info", body="x")\n')
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    routes = {(n.props["microservice"], n.props["label"], n.props["resolved"]) for n in nodes.values()
              if n.kind == "route" and n.props.get("broker")}
    assert routes == {("audit", "rabbit logs/info", True), ("billing", "rabbit payments/done", True),
                      ("audit", "rabbit {?}", False), ("billing", "rabbit {?}", False)}
    links = {(nodes[e.src].props["label"], nodes[e.dst].props["microservice"]) for e in edges.values()
             if e.type == "ASYNC_CALLS"}
    assert links == {("rabbit logs/info", "audit")}


OWN_PUBLISH = '''package publisher

import (
	"context"

	amqp "github.com/rabbitmq/amqp091-go"
)

type Sender interface {
	Publish(ctx context.Context, body []byte, contentType string) error
}

type sender struct {
	ch *amqp.Channel
}

func (s *sender) Publish(ctx context.Context, body []byte, contentType string) error {
	return s.ch.PublishWithContext(ctx, "billing", "invoice.created", false, false, amqp.Publishing{Body: body})
}

func (s *sender) PublishAll(ctx context.Context, bodies [][]byte) {
	for _, b := range bodies {
		s.Publish(ctx, b, "text/plain")
	}
}

func Notify(ctx context.Context, out Sender, body []byte) error {
	return out.Publish(ctx, body, "application/json")
}
'''


def test_the_project_s_own_publish_method_is_no_library_publish(tmp_path: Path):
    root = tmp_path / "billing"
    (root / "publisher").mkdir(parents=True)
    (root / "go.mod").write_text("module example.org/billing\n\ngo 1.22\n")
    (root / "publisher" / "publisher.go").write_text(OWN_PUBLISH)
    nodes, _ = CodeGraph.build(root).snapshot()
    producers = sorted((n.props["line"], n.props["topic"]) for n in nodes.values() if n.kind == "producer")
    assert producers == [(18, "billing/invoice.created")]


BUS_SEND = '''package bus

import (
	"context"

	amqp "github.com/rabbitmq/amqp091-go"
)

type Setting func(*sender)

func WithExchange(name string) Setting { return func(s *sender) { s.exchange = name } }

func WithKey(key string) Setting {
	return func(s *sender) {
		s.key = key
	}
}

type sender struct {
	ch            *amqp.Channel
	exchange, key string
}

func (s *sender) Apply(settings ...Setting) *sender {
	for _, set := range settings {
		set(s)
	}
	return s
}

func (s *sender) Send(ctx context.Context, body []byte) error {
	return s.ch.PublishWithContext(ctx, s.exchange, s.key, false, false, amqp.Publishing{Body: body})
}
'''

BUS_READ = '''package inbox

import amqp "github.com/rabbitmq/amqp091-go"

type Setting func(*reader)

func Queue(name string) Setting { return func(r *reader) { r.queue = name } }
func Exchange(name string) Setting { return func(r *reader) { r.exchange = name } }
func Key(name string) Setting { return func(r *reader) { r.key = name } }

type reader struct {
	ch                   *amqp.Channel
	queue, exchange, key string
}

func (r *reader) Tune(settings ...Setting) {
	for _, set := range settings {
		set(r)
	}
}

func (r *reader) Listen() {
	q, _ := r.ch.QueueDeclare(r.queue, true, false, false, false, nil)
	_ = r.ch.QueueBind(q.Name, r.key, r.exchange, false, nil)
	msgs, _ := r.ch.Consume(r.queue, "", false, false, false, false, nil)
	for range msgs {
	}
}
'''


def _main(module: str, body: str) -> str:
    return (f'package main\n\nimport (\n\t"{module}/bus"\n\t"{module}/inbox"\n)\n\nfunc main() {{\n{body}}}\n')


def test_endpoints_named_through_functional_options_are_read_at_the_configuring_call(tmp_path: Path):
    root = tmp_path / "mill"
    module = "example.org/mill"
    files = {"go.mod": f"module {module}\n\ngo 1.22\n", "bus/bus.go": BUS_SEND, "inbox/inbox.go": BUS_READ,
             "cmd/grinder/main.go": _main(module, '\tvar s bus.Sender\n\ts.Apply(bus.WithExchange("flour"), '
                                                  'bus.WithKey("sack.ready"))\n\ts.Apply(bus.WithExchange("bran"))\n'
                                                  '\tvar r inbox.Reader\n\t_ = r\n'),
             "cmd/baker/main.go": _main(module, '\tvar r inbox.Reader\n\tr.Tune(inbox.Queue("baker-sacks"), '
                                                'inbox.Exchange("flour"), inbox.Key("sack.ready"))\n'
                                                '\tvar s bus.Sender\n\t_ = s\n')}
    for name in ("grinder", "baker"):
        files[f"deploy/Dockerfile-{name}"] = f"FROM golang:1.22\nRUN go build -o /app ./cmd/{name}\n"
    nodes, edges = CodeGraph.build(write_tree(root, files)).snapshot()
    configured = {(n.kind, n.props["microservice"], n.props["line"], n.props["topic"]) for n in nodes.values()
                  if n.kind in ("producer", "route") and n.props["file"].startswith("cmd/")}
    assert configured == {("producer", "grinder", 10, "flour/sack.ready"), ("producer", "grinder", 11, "bran/{?}"),
                          ("route", "baker", 10, "flour/sack.ready"), ("route", "baker", 10, "baker-sacks")}
    unset = [n for n in nodes.values() if n.kind == "producer" and n.props["line"] == 11]
    assert len(unset) == 1 and unset[0].props["match"] == "unresolved"
    assert "does not set key" in unset[0].props["match_detail"]
    links = {(nodes[e.src].props["microservice"], nodes[e.dst].props["microservice"], e.props["match"])
             for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert links == {("grinder", "baker", "cross_service")}


CS_PUBLISHER = """using System.Text;

namespace Shop.Billing;

public class Notifier(IChannel channel, IConfiguration configuration)
{
    private const string Exchange = "billing";

    public async Task Paid(string body)
    {
        var key = "invoice.paid";
        await channel.BasicPublishAsync(exchange: Exchange, routingKey: key, body: Encoding.UTF8.GetBytes(body));
        channel.BasicPublish("billing", "invoice.void", null, Encoding.UTF8.GetBytes(body));
        await channel.BasicPublishAsync(configuration["Bus:Exchange"], "invoice.late", false, null, new byte[0]);
    }

    public void Publish(string body) { }   // the project's own method of another name

    public void Other() => Publish("x");
}
"""

CS_CONSUMER = """namespace Shop.Ledger;

public class Listener(IModel channel)
{
    public void Start()
    {
        channel.QueueBind("ledger", "billing", "invoice.paid");
        channel.QueueBindAsync(queue: "ledger", exchange: "billing", routingKey: "invoice.late");
        channel.BasicConsume(queue: "ledger", autoAck: true, consumer: null);
    }
}
"""


def test_rabbitmq_client_in_csharp_publishes_and_consumes_by_exchange_and_key(tmp_path: Path):
    web = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'
    write_tree(tmp_path, {
        "billing/billing.csproj": web, "billing/GlobalUsings.cs": "global using RabbitMQ.Client;\n",
        "billing/Notifier.cs": CS_PUBLISHER, "billing/appsettings.json": '{"Bus": {"Exchange": "billing"}}',
        "ledger/ledger.csproj": web.replace("</Project>", '<ItemGroup><Using Include="RabbitMQ.Client" />'
                                                          '</ItemGroup></Project>'),
        "ledger/Listener.cs": CS_CONSUMER})
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    found = {(n.kind, n.props["microservice"], n.props["label"]) for n in nodes.values() if n.props.get("broker")}
    assert found == {
        ("producer", "billing", "rabbit billing/invoice.paid"), ("producer", "billing", "rabbit billing/invoice.void"),
        ("producer", "billing", "rabbit billing/invoice.late"),
        ("route", "ledger", "rabbit billing/invoice.paid"), ("route", "ledger", "rabbit billing/invoice.late"),
        ("route", "ledger", "rabbit ledger")}
    links = {(nodes[e.src].props["label"], nodes[e.dst].props["label"], e.props["match"])
             for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert links == {("rabbit billing/invoice.paid", "rabbit billing/invoice.paid", "cross_service"),
                     ("rabbit billing/invoice.late", "rabbit billing/invoice.late", "cross_service")}


def test_paths_cross_a_producer_to_its_consumers_unless_async_calls_are_left_out(tmp_path: Path, embedder):
    """"What happens after X publishes" is one ``paths`` call: producer -> listener route (``ASYNC_CALLS``) ->
    its handler; leaving ``ASYNC_CALLS`` out of ``edge_types`` stops there."""
    tree = _system(tmp_path / "tree")
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        def call(tool: str, **fields):
            return getattr(tools, tool)(runtime, parse_request(getattr(models, f"{tool.capitalize()}Request"),
                                                               {"project_path": str(tree), **fields}))

        start = call("resolve", identifier="Publisher.publish").node.id
        handler = call("resolve", identifier="dispatch.main").node.id
        out = call("paths", from_id=start, to_id=handler)
        assert out.paths, out.note
        assert [h.edge for h in out.paths[0].hops] == ["DECLARES_PRODUCER", "ASYNC_CALLS", "EXPOSED_BY"]
        assert out.paths[0].hops[1].target.label == "rabbit shop/orders"
        kept = ["CALLS", "DECLARES_PRODUCER", "EXPOSED_BY", "DECLARES"]
        assert call("paths", from_id=start, to_id=handler, edge_types=kept).paths == []
    finally:
        runtime.close()
