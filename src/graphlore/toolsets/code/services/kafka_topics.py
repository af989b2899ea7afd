"""Where the project's deployment creates a Kafka topic, and with how many partitions and replicas: the answer to
"how many partitions does topic X have", which no producer or listener in code says.

Read, each with its ``file:line``:

* an ``environment`` entry ``KAFKA_CREATE_TOPICS`` of a Compose service or a Kubernetes container (the
  wurstmeister/kafka image's topics to create at start-up): ``name:partitions:replicas[:cleanup.policy]``, several
  separated by commas (``"orders:3:1,audit:1:1:compact"``);
* a ``kafka-topics`` command (``kafka-topics.sh``, ``kafka-topics``) with ``--create`` in a Compose service's
  ``command``/``entrypoint`` or a container's ``command``/``args``: its ``--topic``, ``--partitions`` and
  ``--replication-factor`` (one command per ``&&``, ``;`` or line);
* a Strimzi ``KafkaTopic`` resource: ``spec.topicName`` (else ``metadata.name``), ``spec.partitions``,
  ``spec.replicas``.

A value left out is said to be the broker's default, never guessed; a topic written through a variable is not
read."""

from __future__ import annotations

import re
from typing import Any

#: the wurstmeister/kafka image's variable: the topics it creates at start-up
CREATE_TOPICS = "KAFKA_CREATE_TOPICS"
_TOPIC_NAME = re.compile(r"[A-Za-z0-9._-]+")
_FLAG = re.compile(r"(--topic|--partitions|--replication-factor)[ =]+['\"]?([^\s'\"]+)")


def _described(partitions: str | None, replicas: str | None) -> str:
    count = (f"{partitions} partitions" if partitions else "partitions: the broker's default")
    return count + (f", replication factor {replicas}" if replicas else ", replication factor: the broker's default")


def from_create_topics(value: str, where: str) -> dict[str, str]:
    """topic -> note, from a ``KAFKA_CREATE_TOPICS`` value as written (``where``: who gives it, and ``(file:line)``)."""
    out: dict[str, str] = {}
    for entry in (part.strip() for part in value.split(",")):
        name, *rest = entry.split(":")
        if not _TOPIC_NAME.fullmatch(name):
            continue   # empty, or a ${VAR}: not a name
        partitions = rest[0] if rest and rest[0].isdigit() else None
        replicas = rest[1] if len(rest) > 1 and rest[1].isdigit() else None
        policy = f", cleanup.policy {rest[2]}" if len(rest) > 2 and rest[2] else ""
        out[name] = f"{CREATE_TOPICS} {entry}: {_described(partitions, replicas)}{policy} {where}"
    return out


def from_command(words: Any, where: str) -> dict[str, str]:
    """topic -> note, from a ``kafka-topics ... --create`` command (a string or a list of words, as Compose and
    Kubernetes write one)."""
    text = " ".join(str(w) for w in words) if isinstance(words, list) else str(words or "")
    out: dict[str, str] = {}
    for command in re.split(r"&&|;|\n|\|\|", text):
        if "kafka-topics" not in command or "--create" not in command:
            continue
        flags = dict(_FLAG.findall(command))
        name = flags.get("--topic")
        if name is None or not _TOPIC_NAME.fullmatch(name):
            continue
        out[name] = (f"kafka-topics --create --topic {name}: "
                     f"{_described(flags.get('--partitions'), flags.get('--replication-factor'))} {where}")
    return out


def from_strimzi(doc: dict, where: str) -> dict[str, str]:
    """topic -> note, from a Strimzi ``KafkaTopic`` resource."""
    meta, spec = doc.get("metadata") or {}, doc.get("spec") or {}
    if not isinstance(meta, dict) or not isinstance(spec, dict):
        return {}
    name = spec.get("topicName") or meta.get("name")
    if not isinstance(name, str) or not _TOPIC_NAME.fullmatch(name):
        return {}
    partitions, replicas = (str(spec[k]) if isinstance(spec.get(k), int) else None for k in ("partitions", "replicas"))
    return {name: f"Strimzi KafkaTopic {meta.get('name')}: {_described(partitions, replicas)} {where}"}
