"""Go Kafka through the project's own code: a wrapper whose parameter reaches the library's write produces each
message literal its callers hand it; a consumer that branches on the message's topic consumes each case's topic,
handled by the function the branch hands the message to; a topic read from the viper-filled config struct is
the config file's value. Producers link to consumers by topic; a topic that does not fold stays unresolved."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.go.extract import extract

BUS = '''package bus

import (
	"context"

	"github.com/IBM/sarama"
	"github.com/segmentio/kafka-go"
)

type Producer interface {
	Publish(ctx context.Context, msgs ...kafka.Message) error
}

type producer struct {
	w *kafka.Writer
}

func (p *producer) Publish(ctx context.Context, msgs ...kafka.Message) error {
	return p.w.WriteMessages(ctx, msgs...)
}

type Sync struct {
	sp sarama.SyncProducer
}

func (s *Sync) Send(msg *sarama.ProducerMessage) error {
	_, _, err := s.sp.SendMessage(msg)
	return err
}
'''

CONFIG = '''package config

import "github.com/spf13/viper"

type Config struct {
	Kafka struct {
		Placed struct {
			Topic string
		}
		Shipped struct {
			Topic string
		}
	}
}

func New() (*Config, error) {
	viper.SetConfigFile("config/config.yaml")
	cfg := &Config{}
	err := viper.Unmarshal(cfg)
	return cfg, err
}
'''

ORDERS = '''package main

import (
	"context"

	"example.com/shop/pkg/bus"
	"example.com/shop/pkg/config"
	"github.com/IBM/sarama"
	"github.com/segmentio/kafka-go"
)

const auditTopic = "orders.audit"

type handler struct {
	cfg      *config.Config
	producer bus.Producer
	sync     *bus.Sync
}

func (h *handler) Place(ctx context.Context) error {
	return h.producer.Publish(ctx, kafka.Message{Topic: h.cfg.Kafka.Placed.Topic, Value: []byte("x")})
}

func (h *handler) Audit(ctx context.Context) error {
	message := kafka.Message{Topic: auditTopic}
	return h.producer.Publish(ctx, message)
}

func (h *handler) Ship() error {
	return h.sync.Send(&sarama.ProducerMessage{Topic: h.cfg.Kafka.Shipped.Topic})
}

func (h *handler) Forward(ctx context.Context, topic string) error {
	return h.producer.Publish(ctx, kafka.Message{Topic: topic})
}

func main() {
	c, _ := config.New()
	_ = &handler{cfg: c}
}
'''

SHIPPING = '''package main

import (
	"context"

	"example.com/shop/pkg/config"
	"github.com/segmentio/kafka-go"
)

type worker struct {
	cfg *config.Config
}

func (w *worker) Run(ctx context.Context, r *kafka.Reader) {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return
		}
		switch m.Topic {
		case w.cfg.Kafka.Placed.Topic:
			w.onPlaced(ctx, m)
		case "orders.audit":
			w.record(m)
		}
		if m.Topic == w.cfg.Kafka.Shipped.Topic {
			w.onShipped(ctx, m)
		}
	}
}

func (w *worker) onPlaced(ctx context.Context, m kafka.Message) {}

func (w *worker) onShipped(ctx context.Context, m kafka.Message) {}

func (w *worker) record(m kafka.Message) {}

func main() {
	c, _ := config.New()
	_ = &worker{cfg: c}
}
'''

#: a branch on a field named Topic in a file that uses no Kafka library: no consumer
NOTES = '''package main

type note struct {
	Topic string
}

func classify(n note) string {
	switch n.Topic {
	case "orders.noted":
		return "a"
	}
	return ""
}
'''


def _system(root: Path) -> Path:
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        "pkg/bus/bus.go": BUS,
        "pkg/config/config.go": CONFIG,
        "config/config.yaml": "kafka:\n  placed:\n    topic: orders.placed\n  shipped:\n    topic: orders.shipped\n",
        "cmd/orders/main.go": ORDERS,
        "cmd/shipping/main.go": SHIPPING,
        "cmd/shipping/notes.go": NOTES,
        "docker-compose.yaml": ("services:\n  orders:\n    build: {context: ., dockerfile: orders.Dockerfile}\n"
                                "  shipping:\n    build: {context: ., dockerfile: shipping.Dockerfile}\n"),
        "orders.Dockerfile": "FROM golang:1.22\nCOPY . /app\nWORKDIR /app\nRUN go build -o /bin/app ./cmd/orders\n",
        "shipping.Dockerfile": "FROM golang:1.22\nCOPY . /app\nWORKDIR /app\nRUN go build -o /bin/app ./cmd/shipping\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_wrapper_producers_and_topic_dispatching_consumers_link_by_their_configured_topics(tmp_path: Path):
    nodes, edges = CodeGraph.build(_system(tmp_path)).snapshot()
    kafka = [n.props for n in nodes.values() if n.props.get("broker") == "kafka"]
    known = {(n["microservice"], "producer" if "producer_kind" in n else "route", n["label"].removeprefix("kafka "))
             for n in kafka if n["resolved"]}
    assert known == {("orders", "producer", "orders.placed"), ("orders", "producer", "orders.audit"),
                     ("orders", "producer", "orders.shipped"), ("shipping", "route", "orders.placed"),
                     ("shipping", "route", "orders.audit"), ("shipping", "route", "orders.shipped")}
    unresolved = [n for n in kafka if not n["resolved"]]
    assert [(n["microservice"], n["line"]) for n in unresolved] == [("orders", 34)]
    links = {(nodes[e.src].props["microservice"], e.props["evidence"]["topic"], nodes[e.dst].props["microservice"],
              nodes[e.dst].props.get("handler") or nodes[e.dst].props.get("owner_fqn") or "")
             for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert {(a, topic, b) for a, topic, b, _ in links} == {
        ("orders", "orders.placed", "shipping"), ("orders", "orders.audit", "shipping"),
        ("orders", "orders.shipped", "shipping")}
    handlers = {n["label"].removeprefix("kafka "): n["file"] + ":" + str(n["line"])
                for n in kafka if "producer_kind" not in n}
    assert handlers == {"orders.placed": "cmd/shipping/main.go:32", "orders.audit": "cmd/shipping/main.go:36",
                        "orders.shipped": "cmd/shipping/main.go:34"}


def test_the_extractor_records_each_branch_on_a_message_topic():
    """``switch`` cases (several values in one case too), ``if x.Topic == v`` either way round, and confluent's
    ``*e.TopicPartition.Topic``; a switch on anything else is not recorded."""
    source = b'''package main

func consume(e *kafka.Message, m kafka.Message, kind string) {
	switch *e.TopicPartition.Topic {
	case "a", "b":
		handleAB(e)
	default:
		other(e)
	}
	if "c" == m.Topic {
		handleC(m)
	}
	switch kind {
	case "d":
	}
}
'''
    found = extract("main.go", source).extra["topic_dispatch"]
    assert found == [["consume", "e.TopicPartition.Topic", ['"a"', '"b"'], 5, 6],
                     ["consume", "m.Topic", ['"c"'], 10, 12]]


def test_a_configured_topic_takes_the_variable_viper_binds_where_the_deployment_gives_it(tmp_path: Path):
    """``AutomaticEnv`` binds ``kafka.placed.topic`` to ``KAFKA_PLACED_TOPIC``: the deployment's value wins over the
    config file's, on both sides of the link; the topic no variable overrides keeps the file's value."""
    root = _system(tmp_path)
    config = CONFIG.replace('import "github.com/spf13/viper"', 'import (\n\t"strings"\n\n\t"github.com/spf13/viper"\n)')
    config = config.replace("\tcfg := &Config{}", '\tviper.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))\n'
                                                   "\tviper.AutomaticEnv()\n\tcfg := &Config{}")
    (root / "pkg/config/config.go").write_text(config)
    (root / "docker-compose.yaml").write_text(
        "services:\n  orders:\n    build: {context: ., dockerfile: orders.Dockerfile}\n"
        "    environment:\n      KAFKA_PLACED_TOPIC: orders.placed.v2\n"
        "  shipping:\n    build: {context: ., dockerfile: shipping.Dockerfile}\n"
        "    environment:\n      KAFKA_PLACED_TOPIC: orders.placed.v2\n")
    nodes, edges = CodeGraph.build(root).snapshot()
    links = {(nodes[e.src].props["microservice"], e.props["evidence"]["topic"], nodes[e.dst].props["microservice"])
             for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert links == {("orders", "orders.placed.v2", "shipping"), ("orders", "orders.audit", "shipping"),
                     ("orders", "orders.shipped", "shipping")}
