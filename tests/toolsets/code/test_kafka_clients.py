"""Kafka outside Spring: the plain client libraries of Java, Kotlin, C#, Node, Python and Go (sarama's async
producer) produce and consume topics folded from literals, constants and locals, and producers link to the
consumers of their topic exactly, across languages; a pattern subscription, a list not written out, and
calls that only look like Kafka's (Rx ``Subscribe``, a socket's ``send``) are said or left alone."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph

JAVA = '''package shop;

import java.util.List;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

public class Orders {
    static final String PLACED = "orders.placed";
    private final KafkaProducer<String, String> producer;
    private final KafkaConsumer<String, String> consumer;

    void place(String order) {
        producer.send(new ProducerRecord<>(PLACED, order, order));
        ProducerRecord<String, String> audit = new ProducerRecord<String, String>("orders.audit", order);
        producer.send(audit);
    }

    void listen() {
        List<String> topics = List.of("payments.done");
        consumer.subscribe(topics);
        consumer.subscribe(Pattern.compile("legacy\\\\..*"));
    }
}
'''

KOTLIN = '''package ledger

import org.apache.kafka.clients.consumer.KafkaConsumer
import org.apache.kafka.clients.producer.KafkaProducer
import org.apache.kafka.clients.producer.ProducerRecord

const val BOOKED = "ledger.booked"

class Ledger(private val producer: KafkaProducer<String, String>, private val consumer: KafkaConsumer<String, String>) {
    fun book(entry: String) {
        producer.send(ProducerRecord(BOOKED, entry))
    }

    fun listen() {
        consumer.subscribe(listOf("orders.audit"))
    }

    fun replay(props: java.util.Properties) {
        KafkaConsumer<String, String>(props).apply { subscribe(listOf("ledger.replayed")) }
    }
}
'''

CSHARP = '''using System;
using Confluent.Kafka;

namespace Payments
{
    public class Worker
    {
        private const string Done = "payments.done";
        private readonly IProducer<string, string> _producer;
        private readonly IObservable<string> _events;

        public async Task Pay(string id)
        {
            await _producer.ProduceAsync(Done, new Message<string, string> { Value = id });
        }

        public void Listen(ConsumerConfig config)
        {
            using var consumer = new ConsumerBuilder<string, string>(config).Build();
            consumer.Subscribe(new[] { "orders.placed" });
            _events.Subscribe(e => Console.WriteLine(e));
        }
    }
}
'''

NODE = '''const { Kafka } = require('kafkajs');

const kafka = new Kafka({ brokers: ['kafka:9092'] });
const producer = kafka.producer();
const consumer = kafka.consumer({ groupId: 'mailer' });
const SENT = 'mail.sent';

async function run(topics) {
  await consumer.subscribe({ topics: ['payments.done', 'ledger.booked'] });
  await consumer.subscribe({ topic: /^audit\\..*/ });
  await consumer.subscribe({ topics });
  await producer.send({ topic: SENT, messages: [{ value: 'x' }] });
  await producer.sendBatch({ topicMessages: [{ topic: 'mail.batched', messages: [] }] });
}
'''

PYTHON = '''import requests
from confluent_kafka import Consumer
from kafka import KafkaConsumer, KafkaProducer

DONE = "audit.done"


class Auditor:
    def __init__(self):
        self.producer = KafkaProducer(bootstrap_servers="kafka:9092")

    def record(self, value):
        self.producer.send(topic=DONE, value=value)


def listen():
    consumer = KafkaConsumer("mail.sent", "stock.changed", bootstrap_servers="kafka:9092")
    batched = Consumer({"group.id": "audit"})
    batched.subscribe(["mail.batched"])
    session = requests.Session()
    session.send(prepared)
    return consumer, batched
'''

NOT_KAFKA = '''import socket


def ping(sock: socket.socket):
    sock.send(b"orders.placed")
'''

GO = '''package main

import (
	"context"

	"github.com/IBM/sarama"
)

func publish(producer sarama.AsyncProducer) {
	producer.Input() <- &sarama.ProducerMessage{Topic: "stock.changed", Value: sarama.StringEncoder("x")}
}

func made() {
	p, _ := sarama.NewAsyncProducer([]string{"kafka:9092"}, nil)
	msg := &sarama.ProducerMessage{Topic: "stock.counted"}
	p.Input() <- msg
}

type restocker struct{ producer sarama.AsyncProducer }

func (r *restocker) restock() {
	r.producer.Input() <- &sarama.ProducerMessage{Topic: "stock.restocked"}
}

func listen(ctx context.Context, group sarama.ConsumerGroup, handler sarama.ConsumerGroupHandler) {
	topics := []string{"mail.sent"}
	group.Consume(ctx, topics, handler)
}
'''


def _system(root: Path) -> Path:
    for service, file, text in (("orders", "src/main/java/shop/Orders.java", JAVA),
                                ("ledger", "src/main/kotlin/ledger/Ledger.kt", KOTLIN),
                                ("payments", "Worker.cs", CSHARP), ("mailer", "index.js", NODE),
                                ("audit", "audit.py", PYTHON), ("audit", "ping.py", NOT_KAFKA),
                                ("stock", "main.go", GO)):
        path = root / service / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        (root / service / "Dockerfile").write_text("FROM scratch\n")
    (root / "mailer/package.json").write_text('{"name": "mailer", "version": "1.0.0"}\n')
    (root / "stock/go.mod").write_text("module stock\n\ngo 1.22\n")
    return root


def test_plain_kafka_clients_link_producers_to_the_consumers_of_their_topic(tmp_path: Path):
    nodes, edges = CodeGraph.build(_system(tmp_path)).snapshot()
    kafka = [n.props for n in nodes.values() if n.props.get("broker") == "kafka"]
    known = {(n["microservice"], "producer" if "producer_kind" in n else "route", n["label"].removeprefix("kafka "))
             for n in kafka if n["resolved"]}
    assert known == {
        ("orders", "producer", "orders.placed"), ("orders", "producer", "orders.audit"),
        ("orders", "route", "payments.done"),
        ("ledger", "producer", "ledger.booked"), ("ledger", "route", "orders.audit"),
        ("ledger", "route", "ledger.replayed"),
        ("payments", "producer", "payments.done"), ("payments", "route", "orders.placed"),
        ("mailer", "route", "payments.done"), ("mailer", "route", "ledger.booked"),
        ("mailer", "producer", "mail.sent"), ("mailer", "producer", "mail.batched"),
        ("audit", "producer", "audit.done"), ("audit", "route", "mail.sent"), ("audit", "route", "stock.changed"),
        ("audit", "route", "mail.batched"),
        ("stock", "producer", "stock.changed"), ("stock", "producer", "stock.counted"),
        ("stock", "producer", "stock.restocked"), ("stock", "route", "mail.sent")}
    said = sorted((n["microservice"], n["unresolved_reason"]) for n in kafka if not n["resolved"])
    assert [service for service, _ in said] == ["mailer", "mailer", "orders"]
    assert "pattern" in said[2][1] and any("not written out" in why for _, why in said)
    links = {(nodes[e.src].props["microservice"], nodes[e.src].props["label"].removeprefix("kafka "),
              nodes[e.dst].props["microservice"]) for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert links == {
        ("orders", "orders.placed", "payments"), ("orders", "orders.audit", "ledger"),
        ("payments", "payments.done", "orders"), ("payments", "payments.done", "mailer"),
        ("ledger", "ledger.booked", "mailer"), ("mailer", "mail.sent", "audit"), ("mailer", "mail.sent", "stock"),
        ("mailer", "mail.batched", "audit"), ("stock", "stock.changed", "audit")}
    flavors = {n.get("producer_kind") or n.get("framework") for n in kafka}
    assert flavors == {"kafka_clients", "confluent_kafka_dotnet", "kafkajs", "kafka_python", "confluent_kafka",
                       "sarama"}


def test_topics_from_the_environment_the_deployment_gives(tmp_path: Path):
    """A Python producer's topic read from ``os.environ`` (a bare-name Compose entry, its value in ``.env``) and
    a kafkajs consumer's destructured ``process.env`` topic (Compose interpolating the same variable) link."""
    files = {
        "a/Dockerfile": "FROM scratch\n",
        "a/pub.py": 'import os\nfrom kafka import KafkaProducer\n\n\ndef send(p: KafkaProducer):\n'
                    '    p.send(os.environ["ORDERS_TOPIC"], b"x")\n',
        "b/package.json": '{"name": "b"}\n',
        "b/index.js": "const { Kafka } = require('kafkajs');\nconst { TOPIC = 'fallback' } = process.env;\n"
                      "const consumer = new Kafka({}).consumer({ groupId: 'b' });\n"
                      "async function run() { await consumer.subscribe({ topic: TOPIC }); }\n",
        "docker-compose.yml": "services:\n  a:\n    build: ./a\n    environment:\n      - ORDERS_TOPIC\n"
                              "  b:\n    build: ./b\n    environment:\n      TOPIC: ${ORDERS_TOPIC}\n",
        ".env": "ORDERS_TOPIC=orders.v2\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    links = {(nodes[e.src].props["microservice"], e.props["evidence"]["topic"], nodes[e.dst].props["microservice"])
             for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert links == {("a", "orders.v2", "b")}


def test_topics_an_environment_read_defaults_with_a_null_operator_link(tmp_path: Path):
    """C#'s ``GetEnvironmentVariable("X") ?? "d"`` and Kotlin's ``System.getenv("X") ?: "d"`` are the variable X
    with the default "d": a topic no deployment file sets is that default; one whose left side is no variable
    (or whose default is not known) stays unknown."""
    files = {
        "billing/Dockerfile": "FROM scratch\n",
        "billing/Worker.cs": "using Confluent.Kafka;\n\nnamespace Billing\n{\n    public class Worker\n    {\n"
                             "        private static readonly string Topic = "
                             'Environment.GetEnvironmentVariable("BILLING_TOPIC") ?? "invoices";\n'
                             "        private readonly IProducer<string, string> _producer;\n\n"
                             "        public async Task Bill(string id, string other)\n        {\n"
                             "            await _producer.ProduceAsync(Topic, new Message<string, string> { Value = id });\n"
                             "            await _producer.ProduceAsync(other ?? \"spare\", new Message<string, string> "
                             "{ Value = id });\n        }\n    }\n}\n",
        "ledger/Dockerfile": "FROM scratch\n",
        "ledger/src/main/kotlin/ledger/Main.kt":
            "package ledger\n\nimport org.apache.kafka.clients.consumer.KafkaConsumer\n\n"
            'val topic: String = System.getenv("BILLING_TOPIC") ?: "invoices"\n\n'
            "fun listen(consumer: KafkaConsumer<String, String>) {\n    consumer.subscribe(listOf(topic))\n}\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    kafka = sorted((n.props["microservice"], n.props["label"]) for n in nodes.values()
                   if n.props.get("broker") == "kafka")
    assert kafka == [("billing", "kafka invoices"), ("billing", "kafka {?}"), ("ledger", "kafka invoices")]
    links = {(nodes[e.src].props["microservice"], e.props["evidence"]["topic"], nodes[e.dst].props["microservice"])
             for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert links == {("billing", "invoices", "ledger")}
