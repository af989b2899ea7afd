"""Where the deployment creates a Kafka topic, and with how many partitions: a listener's and a producer's
``topic_created`` says it for the wurstmeister image's ``KAFKA_CREATE_TOPICS`` (map and list ``environment``, a
Kubernetes container's ``env``), a ``kafka-topics --create`` command of an init container, and a Strimzi
``KafkaTopic``; a topic no deployment creates has none, and a value it leaves out is the broker's default."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.kafka_topics import from_command, from_create_topics, from_strimzi

PRODUCER = '''import os
from kafka import KafkaProducer, KafkaConsumer


def send(p: KafkaProducer):
    p.send("parcels", b"x")
    p.send("receipts", b"y")


def listen(c: KafkaConsumer):
    c.subscribe(["returns"])
'''


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _created(root: Path) -> dict[str, list[str]]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.props["topic"]: n.props.get("topic_created", []) for n in nodes.values()
            if n.props.get("broker") == "kafka"}


def test_compose_create_topics_in_map_and_list_form_and_an_init_command(tmp_path: Path):
    _write(tmp_path, {
        "depot/Dockerfile": "FROM scratch\n",
        "depot/worker.py": PRODUCER,
        "docker-compose.yml": (
            "services:\n"
            "  depot:\n    build: ./depot\n"
            "  broker:\n    image: wurstmeister/kafka\n    environment:\n"
            "      KAFKA_CREATE_TOPICS: \"parcels:6:2,returns:1:1:compact\"\n"
            "  topics-init:\n    image: bitnami/kafka\n"
            "    command: [\"sh\", \"-c\", \"kafka-topics.sh --bootstrap-server broker:9092 --create --if-not-exists"
            " --topic receipts --replication-factor 1 && echo done\"]\n"),
        "deploy/compose.alt.yml": ("services:\n  kafka:\n    image: wurstmeister/kafka\n    environment:\n"
                                   "      - KAFKA_CREATE_TOPICS=parcels:3:1\n"),
    })
    created = _created(tmp_path)
    assert created["parcels"] == [
        "KAFKA_CREATE_TOPICS parcels:3:1: 3 partitions, replication factor 1 (docker-compose service kafka) "
        "(deploy/compose.alt.yml:5)",
        "KAFKA_CREATE_TOPICS parcels:6:2: 6 partitions, replication factor 2 (docker-compose service broker) "
        "(docker-compose.yml:7)"]
    assert created["returns"] == [
        "KAFKA_CREATE_TOPICS returns:1:1:compact: 1 partitions, replication factor 1, cleanup.policy compact "
        "(docker-compose service broker) (docker-compose.yml:7)"]
    assert created["receipts"] == [
        "kafka-topics --create --topic receipts: partitions: the broker's default, replication factor 1 "
        "(docker-compose service topics-init command) (docker-compose.yml:10)"]


def test_kubernetes_env_and_strimzi_topics_and_a_topic_nothing_creates(tmp_path: Path):
    _write(tmp_path, {
        "depot/Dockerfile": "FROM scratch\n",
        "depot/worker.py": PRODUCER,
        "k8s/kafka.yaml": ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: kafka\nspec:\n  template:\n"
                           "    spec:\n      containers:\n        - name: kafka\n          image: wurstmeister/kafka\n"
                           "          env:\n            - name: KAFKA_CREATE_TOPICS\n"
                           "              value: \"returns:2:1\"\n"),
        "k8s/topics.yaml": ("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata:\n  name: parcels-topic\n"
                            "spec:\n  topicName: parcels\n  partitions: 12\n  replicas: 3\n"),
    })
    created = _created(tmp_path)
    assert created["returns"] == ["KAFKA_CREATE_TOPICS returns:2:1: 2 partitions, replication factor 1 "
                                  "(Kubernetes Deployment kafka) (k8s/kafka.yaml:12)"]
    assert created["parcels"] == ["Strimzi KafkaTopic parcels-topic: 12 partitions, replication factor 3 "
                                  "(k8s/topics.yaml:4)"]
    assert created["receipts"] == []


def test_entries_that_name_no_topic_are_left_out():
    assert from_create_topics("${TOPICS},:1:1, audit", "(x)") == {
        "audit": "KAFKA_CREATE_TOPICS audit: partitions: the broker's default, replication factor: the broker's "
                 "default (x)"}
    assert from_command("kafka-topics --list; kafka-topics --create --topic $T --partitions 2", "(x)") == {}
    assert from_strimzi({"kind": "KafkaTopic", "metadata": {"name": "{{ .Values.t }}"}}, "(x)") == {}
