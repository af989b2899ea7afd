"""Two processes on one project at once: every MCP client starts its own server, so this is the normal case.

Each process loads the real model (about a second), so rounds are few; the processes start
together on a project that has no index yet, so they also race to create it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from helpers import paths as PATHS
from helpers.backend import env_for, settings_for

from graphlore.runtime import Runtime
from graphlore.toolsets.items import tools
from graphlore.toolsets.items.index import ItemIndex
from graphlore.toolsets.items.models import GetIndexStatusRequest, IndexRequest, SearchRequest

EXAMPLE_TREE = PATHS.EXAMPLE_TREE
ROUNDS = 4
QUERY = "search misses notes with accented characters"

# A writer edits BUG-002 (atomically, as editors do) and indexes; a reader searches, which updates
# the index itself when it is stale. Both print one JSON line per round and fail loudly on anything odd.
WORKER = textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path
    from graphlore.config import Settings
    from graphlore.runtime import Runtime
    from graphlore.toolsets.items import tools
    from graphlore.toolsets.items.models import IndexRequest, SearchRequest

    role, project, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    runtime = Runtime(Settings.load())
    bug = next(Path(project, "bugs").glob("BUG-002-*")) / "bug_report.json"
    for n in range(rounds):
        if role == "writer":
            data = json.loads(bug.read_text())
            data["description"] = f"Round {n}: accented characters are still missed by search."
            tmp = bug.with_name("bug_report.json.tmp")
            tmp.write_text(json.dumps(data))
            os.replace(tmp, bug)
            r = tools.index(runtime, IndexRequest(project_path=project))
            out = {"round": n, "status": r.status, "items": r.items_indexed}
        else:
            request = SearchRequest(query=%(query)r, project_path=project, threshold=0.0, limit=100)
            r = tools.search(runtime, request)
            hit = next(x for x in r.results if x.item_id == "BUG-002")
            out = {"round": n, "items": r.index_status.items_indexed, "total": r.total_results,
                   "top": r.results[0].item_id, "description": hit.description}
        print(json.dumps(out), flush=True)
    """
) % {"query": QUERY}


def copy_tree(tmp_path: Path) -> Path:
    dest = tmp_path / "fm"
    shutil.copytree(EXAMPLE_TREE, dest)
    return dest


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, **env_for(home), "GRAPHLORE_EMBED_THREADS": "1"}


def _run_together(commands: list[list[str]], env: dict[str, str]) -> list[subprocess.CompletedProcess]:
    procs = [
        subprocess.Popen(c, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for c in commands
    ]
    done = []
    for proc, command in zip(procs, commands, strict=True):
        out, err = proc.communicate(timeout=120)
        done.append(subprocess.CompletedProcess(command, proc.returncode, out, err))
    return done


def test_two_processes_index_and_search_one_project(tmp_path, embedder):
    tree = copy_tree(tmp_path)
    home = tmp_path / "home"
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    writer, reader = _run_together(
        [[sys.executable, str(script), role, str(tree), str(ROUNDS)] for role in ("writer", "reader")],
        _env(home),
    )
    for proc in (writer, reader):
        assert proc.returncode == 0, proc.stderr
    written = [json.loads(line) for line in writer.stdout.splitlines()]
    read = [json.loads(line) for line in reader.stdout.splitlines()]
    assert [w["round"] for w in written] == [r["round"] for r in read] == list(range(ROUNDS))
    assert all(w["items"] == 13 and w["status"] in {"created", "updated", "unchanged"} for w in written)
    assert all(r["items"] == 13 and r["total"] == 11 and r["top"] == "BUG-002" for r in read)
    originals = {"Searching for 'cafe'"} | {f"Round {n}:" for n in range(ROUNDS)}
    assert all(any(r["description"].startswith(o) for o in originals) for r in read)

    # Afterwards the index agrees with the tree: either it says it is stale, or it holds the last write.
    runtime = Runtime(settings_for(home), embedder=embedder)
    final = tools.get_index_status(runtime, GetIndexStatusRequest(project_path=str(tree)))
    assert final.items_indexed == 13
    last = f"Round {ROUNDS - 1}: accented characters are still missed by search."
    stored = ItemIndex(runtime, tree).store().get_nodes(["BUG-002"])[0]
    if not final.is_stale:
        assert stored.props["description"] == last
    response = tools.search(runtime, SearchRequest(query=QUERY, project_path=str(tree)))
    assert next(r for r in response.results if r.item_id == "BUG-002").description == last
    assert tools.index(runtime, IndexRequest(project_path=str(tree))).status == "unchanged"


def test_two_cli_processes_on_a_fresh_project(tmp_path):
    tree = copy_tree(tmp_path)
    home = tmp_path / "home"
    cli = [sys.executable, "-m", "graphlore", "items"]
    index_proc, search_proc = _run_together(
        [cli + ["index", "-p", str(tree), "--json"], cli + ["search", QUERY, "-p", str(tree), "--json"]],
        _env(home),
    )
    assert index_proc.returncode == 0, index_proc.stderr
    assert search_proc.returncode == 0, search_proc.stderr
    indexed = json.loads(index_proc.stdout)
    found = json.loads(search_proc.stdout)
    assert indexed["items_indexed"] == 13 and indexed["status"] in {"created", "updated", "unchanged"}
    assert found["results"][0]["item_id"] == "BUG-002" and found["index_status"]["items_indexed"] == 13

    again = subprocess.run(
        cli + ["index", "-p", str(tree), "--json"],
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["status"] == "unchanged"
