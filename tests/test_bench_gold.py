"""bench/gold.py credits a producer or consumer the tool reports at a place the key's ``also_accept`` lists (a shared
send or consume site) to the entry whose topic the node names, and to none when the place is shared and the topic
names no one entry."""

from __future__ import annotations

import sys
from pathlib import Path

from graphlore.toolsets.code.model import GraphNode

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import gold  # noqa: E402

SHARED = {"file": "pkg/send.go", "span": [10, 12]}
KEY = {"services": [], "routes": [], "clients": [], "consumers": [], "producers": [
    {"id": "P.a", "exchange": "a-ex", "routing_key": "a-key", "file": "svc/a.go", "span": [5, 5],
     "also_accept": [SHARED]},
    {"id": "P.b", "exchange": "b-ex", "routing_key": "b-key", "file": "svc/b.go", "span": [7, 7],
     "also_accept": [SHARED, {"file": "cmd/b/main.go", "line": 20}]},
]}


def _producer(file: str, line: int, topic: str) -> GraphNode:
    return GraphNode(f"pr_{file}_{line}_{topic}", "producer", topic, "", {"file": file, "line": line, "topic": topic})


def test_also_accept_places_are_credited_by_topic_and_a_shared_place_by_no_guess():
    nodes = {n.id: n for n in [_producer("svc/a.go", 5, "{?}"), _producer("pkg/send.go", 11, "b-ex/b-key"),
                               _producer("pkg/send.go", 11, "{?}/{?}"), _producer("cmd/b/main.go", 20, "{?}"),
                               _producer("pkg/other.go", 11, "a-ex/a-key")]}
    matcher = gold.Matcher(KEY, nodes, {})
    assert sorted(matcher.producers.values(), key=str) == sorted(["P.a", "P.b", None, "P.b", None], key=str)
    assert matcher.producers["pr_pkg/send.go_11_{?}/{?}"] is None
    assert matcher.producers["pr_cmd/b/main.go_20_{?}"] == "P.b"
