"""Two processes writing one graph at the same time (every MCP client starts its own server): no lost write,
no duplicate node for an entity both mention, no 'database is locked'."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers.backend import env_for, settings_for

from graphlore.runtime import Runtime
from graphlore.toolsets.facts.graph import FACT, FactsGraph

SHARED = [
    {"name": "Apple Inc", "type": "Company", "definition": "American technology company that makes the iPhone"},
    {"name": "Federal Reserve", "type": "Organization", "definition": "the central bank of the United States"},
]


def jsonl(path, prefix: str, n: int) -> None:
    lines = []
    for i in range(n):
        own = {"name": f"{prefix} Holdings {chr(65 + i)}", "type": "Company",
               "definition": f"investment company number {i} of the {prefix} group"}
        lines.append(json.dumps({
            "name": f"{prefix} report {i}", "date": f"2024-0{1 + i % 9}-15", "chunks": [f"{prefix} text {i}"],
            "entities": [*SHARED, own],
            "facts": [{"subject": own["name"], "relationship": "invested in", "object": "Apple Inc",
                       "sentence": f"{own['name']} invested in Apple.", "chunk": 0},
                      {"subject": "Federal Reserve", "relationship": "regulates", "object": own["name"],
                       "sentence": f"The Federal Reserve regulates {own['name']}.", "chunk": 0}],
        }))
    path.write_text("\n".join(lines) + "\n")


def test_two_processes_ingest_into_one_graph(tmp_path, embedder):
    home = tmp_path / "home"
    env = {**os.environ, **env_for(home)}
    files = []
    for prefix in ("Alpha", "Beta"):
        path = tmp_path / f"{prefix}.jsonl"
        jsonl(path, prefix, 6)
        files.append(path)
    procs = [subprocess.Popen([sys.executable, "-m", "graphlore", "facts", "ingest", str(f)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for f in files]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert "6 documents (6 created" in out
    graph = FactsGraph(Runtime(settings_for(home), embedder=embedder), "default")
    store = graph.store()
    names = sorted(n.name for n in store.iter_nodes("entity"))
    assert names.count("Apple Inc") == 1 and names.count("Federal Reserve") == 1
    assert len(names) == 2 + 12
    assert store.count_nodes("document") == 12 and store.count_edges(FACT) == 24
    assert graph.resolve(store, "Apple Inc", "entity")[0].id == "E:apple-inc"
    assert store.select_edges(["E:apple-inc"], type=FACT).total == 12
