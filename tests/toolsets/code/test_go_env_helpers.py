"""A Go package variable initialised by a call (``var Topic = topicFromEnv()``) is what the call gives, read from
another package too: an env-or-default helper (``if v, ok := os.LookupEnv("X"); ok { return v }; return "d"``,
``if v := os.Getenv("X"); v != "" {...}``, one taking the name and the default as parameters) is the variable X
with the default d, as ``cmp.Or(os.Getenv("X"), "d")`` is; the deployment's value wins where it sets X. A helper
that returns two literals stays a choice, and a variable a function reassigns at run time stays unknown."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

TOPICS = """package kafka

import (
	"cmp"
	"os"
)

var (
	Placed  = placedTopic()
	Audited = lookedUp()
	Shipped = cmp.Or(os.Getenv("SHIPPED_TOPIC"), "orders.shipped")
	Late    = envOr("LATE_TOPIC", "orders.late")
	Either  = oneOf()
	Moved   = envOr("MOVED_TOPIC", "orders.moved")
)

func placedTopic() string {
	if t := os.Getenv("PLACED_TOPIC"); t != "" {
		return t
	}
	return "orders.placed"
}

func lookedUp() string {
	if v, ok := os.LookupEnv("AUDIT_TOPIC"); ok {
		return v
	}
	return "orders.audited"
}

func envOr(key, fallback string) string {
	if v, ok := os.LookupEnv(key); ok {
		return v
	}
	return fallback
}

func oneOf() string {
	if len(os.Args) > 1 {
		return "orders.first"
	}
	return "orders.second"
}

func Configure(name string) {
	Moved = name
}
"""

MAIN = """package main

import (
	"github.com/IBM/sarama"

	"example.com/orders/kafka"
)

func placed(p sarama.AsyncProducer)  { p.Input() <- &sarama.ProducerMessage{Topic: kafka.Placed} }
func audited(p sarama.AsyncProducer) { p.Input() <- &sarama.ProducerMessage{Topic: kafka.Audited} }
func shipped(p sarama.AsyncProducer) { p.Input() <- &sarama.ProducerMessage{Topic: kafka.Shipped} }
func late(p sarama.AsyncProducer)    { p.Input() <- &sarama.ProducerMessage{Topic: kafka.Late} }
func either(p sarama.AsyncProducer)  { p.Input() <- &sarama.ProducerMessage{Topic: kafka.Either} }
func moved(p sarama.AsyncProducer)   { p.Input() <- &sarama.ProducerMessage{Topic: kafka.Moved} }
"""

COMPOSE = """services:
  orders:
    build: ./orders
    environment:
      PLACED_TOPIC: orders.placed.v2
"""


def test_package_variables_from_env_or_default_helpers(tmp_path: Path):
    root = write_tree(tmp_path / "shop", {"docker-compose.yml": COMPOSE,
                                         "orders/go.mod": "module example.com/orders\n\ngo 1.22\n",
                                         "orders/Dockerfile": "FROM scratch\n", "orders/main.go": MAIN,
                                         "orders/kafka/topics.go": TOPICS})
    nodes, _ = CodeGraph.build(root).snapshot()
    topics: dict[str, set[str]] = {}
    for n in nodes.values():
        if n.props.get("broker") == "kafka":
            name = n.props["declaring_fqn"].rsplit(".", 1)[-1]
            topics.setdefault(name, set()).add(n.props["label"].removeprefix("kafka ") if n.props["resolved"]
                                               else "?")
    assert topics["placed"] == {"orders.placed.v2"}     # the deployment sets the variable
    assert topics["audited"] == {"orders.audited"}      # LookupEnv, the default
    assert topics["shipped"] == {"orders.shipped"}      # cmp.Or
    assert topics["late"] == {"orders.late"}            # the helper's parameters bound
    assert topics["either"] == {"orders.first", "orders.second"}
    assert topics["moved"] == {"?"}                     # reassigned at run time
