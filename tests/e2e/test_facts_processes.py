"""Two processes on one graph (every MCP client starts its own server): writing at the same time, no lost
write, no duplicate node for an entity both mention, no 'database is locked'; and servers behind a load
balancer, each answering cat for a search the other ran."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from anyio.from_thread import start_blocking_portal
from helpers.backend import env_for, settings_for
from helpers.facts_data import records
from helpers.mcp import connect, http_server

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


def test_any_server_answers_cat_for_a_search_another_ran(tmp_path):
    """Two ``serve --transport http`` processes on one store, as behind a load balancer: a search answered by
    one is expanded by the other (by its search_id: protocol 2026-07-28 has no session), and a search
    answered by either is expanded by the other."""
    home = tmp_path / "home"
    data = tmp_path / "records.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in records()) + "\n")
    env = {**os.environ, **env_for(home)}
    ingest = subprocess.run([sys.executable, "-m", "graphlore", "facts", "ingest", str(data)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert ingest.returncode == 0, ingest.stderr
    with start_blocking_portal() as portal, \
            http_server("facts", home, tmp_path / "a.log") as (url_a, _), \
            http_server("facts", home, tmp_path / "b.log") as (url_b, _):
        with connect(portal, url_a, "facts") as a, connect(portal, url_b, "facts") as b:
            out, _ = a.ok("search", {"entity": ["Apple Inc"], "limit": 3})
            expanded, _ = b.ok("cat", {"numbers": [3, 1], "search_id": out.search_id})
            assert [i.fact.id for i in expanded.items] == [out.results[2].id, out.results[0].id]
            assert "no search 's00000000'" in a.error("cat", {"numbers": [1], "search_id": "s00000000"})
            again, _ = b.ok("search", {"entity": ["Microsoft Corp"], "limit": 1})
            assert a.ok("cat", {"numbers": [1], "search_id": again.search_id})[0].items[0].fact.id == \
                again.results[0].id
