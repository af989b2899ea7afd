"""A Kafka consumer subscribed in one method and polled in another (a constructor subscribes a field, a loop
method polls it) is handled where it is polled, in C#, Java and Python; a consumer subscribed and polled in one
function, polled by two methods, or held in a local stays at the subscribing function."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph

CSHARP = '''using Confluent.Kafka;

namespace Billing
{
    public class Listener
    {
        private readonly IConsumer<string, byte[]> _consumer;

        public Listener(ConsumerConfig config)
        {
            _consumer = new ConsumerBuilder<string, byte[]>(config).Build();
            _consumer.Subscribe("invoices.due");
        }

        public void Loop()
        {
            while (true)
            {
                var taken = _consumer.Consume();
                Handle(taken.Message);
            }
        }

        private void Handle(Message<string, byte[]> message) { }
    }

    public class Twice
    {
        private readonly IConsumer<string, string> _consumer;

        public Twice(IConsumer<string, string> consumer)
        {
            _consumer = consumer;
            _consumer.Subscribe("invoices.twice");
        }

        public void One() { _consumer.Consume(); }

        public void Two() { _consumer.Consume(); }
    }
}
'''

JAVA = '''package shop;

import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.KafkaConsumer;

public class Audit {
    private final KafkaConsumer<String, String> consumer;

    public Audit(KafkaConsumer<String, String> consumer) {
        this.consumer = consumer;
        this.consumer.subscribe(List.of("audit.logged"));
    }

    public void run() {
        while (true) {
            consumer.poll(Duration.ofSeconds(1));
        }
    }

    public void alone(KafkaConsumer<String, String> other) {
        other.subscribe(List.of("audit.alone"));
        other.poll(Duration.ofSeconds(1));
    }
}
'''

PYTHON = '''from confluent_kafka import Consumer


class Mailer:
    def __init__(self, config):
        self.consumer = Consumer(config)
        self.consumer.subscribe(["mail.queued"])

    def serve(self):
        while True:
            self.consumer.poll(1.0)


def main(config):
    consumer = Consumer(config)
    consumer.subscribe(["mail.local"])
    consumer.poll(1.0)
'''


def _handlers(root: Path) -> dict[str, str]:
    for service, file, text in (("billing", "Listener.cs", CSHARP), ("audit", "src/main/java/shop/Audit.java", JAVA),
                                ("mailer", "mailer.py", PYTHON)):
        path = root / service / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        (root / service / "Dockerfile").write_text("FROM scratch\n")
    nodes, edges = CodeGraph.build(root).snapshot()
    return {nodes[e.dst].props["label"].removeprefix("kafka "): nodes[e.src].props["fqn"].replace("#", ".")
            for e in edges.values() if e.type == "EXPOSES" and nodes[e.dst].props.get("broker") == "kafka"}


def test_a_consumer_is_handled_where_its_subscription_is_polled(tmp_path: Path):
    handlers = _handlers(tmp_path)
    assert handlers["invoices.due"].endswith("Listener.Loop")
    assert handlers["audit.logged"].endswith("Audit.run()")
    assert handlers["mail.queued"].endswith("Mailer.serve")


def test_a_consumer_polled_where_it_subscribes_by_two_methods_or_in_a_local_stays(tmp_path: Path):
    handlers = _handlers(tmp_path)
    assert handlers["invoices.twice"].endswith("Twice.Twice")
    assert "alone" in handlers["audit.alone"]
    assert handlers["mail.local"].endswith("main")


SHADOWING = '''package shop;

import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.KafkaConsumer;

public class Ledger {
    private final KafkaConsumer<String, String> consumer;

    public Ledger(KafkaConsumer<String, String> given) {
        this.consumer = given;
        this.consumer.subscribe(List.of("ledger.posted"));
    }

    public void drain(KafkaConsumer<String, String> consumer) {
        consumer.poll(Duration.ofSeconds(1));
    }
}
'''


def test_a_poll_of_a_parameter_named_as_the_field_is_not_the_fields_handler(tmp_path: Path):
    """``drain``'s ``consumer`` is its own parameter, which shadows the field the constructor subscribed: no method
    is known to poll the field, so the subscription stays where it is made."""
    path = tmp_path / "ledger" / "src/main/java/shop/Ledger.java"
    path.parent.mkdir(parents=True)
    path.write_text(SHADOWING)
    (tmp_path / "ledger" / "Dockerfile").write_text("FROM scratch\n")
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    [handler] = [nodes[e.src].props["fqn"] for e in edges.values()
                 if e.type == "EXPOSES" and nodes[e.dst].props.get("broker") == "kafka"]
    assert "drain" not in handler and "Ledger" in handler
