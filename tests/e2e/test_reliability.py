"""The reliability suite's process parts at a small size (the full size: ``bench/reliability.py``).

Real ``graphlore`` processes: two index runs of one project (the second waits and finds nothing to
do), two ingests of one file (the same), several servers writing and reading one store, servers
killed with ``kill -9`` in the middle of an index or an ingest, and files that fight back.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess
import sys

import pytest
from helpers import backend
from helpers.scenarios import facts_record
from helpers.stores import integrity

from graphlore.toolsets import TOOLSETS
from graphlore.toolsets.items.examples import write_project

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "reliability.py")


def bench():
    spec = importlib.util.spec_from_file_location("reliability_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_together(commands: list[list[str]], env: dict[str, str]) -> list[subprocess.CompletedProcess]:
    procs = [subprocess.Popen(c, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in commands]
    done = []
    for command, proc in zip(commands, procs, strict=True):
        out, err = proc.communicate(timeout=600)
        done.append(subprocess.CompletedProcess(command, proc.returncode, out, err))
    return done


def test_two_index_runs_on_one_project_do_the_work_once(tmp_path):
    project = write_project(tmp_path)
    for n in range(40):
        item = project / "bugs" / f"BUG-{300 + n}-generated"
        item.mkdir()
        (item / "bug_report.json").write_text(json.dumps({"title": f"Generated {n}", "description": "words " * 50}))
    env = {**os.environ, "GRAPHLORE_HOME": str(tmp_path / "home"), "GRAPHLORE_EMBED_THREADS": "1"}
    command = [sys.executable, "-m", "graphlore", "items", "index", "-p", str(project), "--json"]
    done = run_together([command, command], env)
    assert all(p.returncode == 0 for p in done), [p.stderr for p in done]
    answers = sorted((json.loads(p.stdout) for p in done), key=lambda a: a["status"])
    assert [a["status"] for a in answers] == ["created", "unchanged"]
    assert answers[0]["items_updated"] == 45 and answers[1]["items_updated"] == 0


def test_two_ingests_of_one_file_do_the_work_once(tmp_path):
    file = tmp_path / "records.jsonl"
    file.write_text("".join(json.dumps(facts_record("t", n)) + "\n" for n in range(30)))
    env = {**os.environ, "GRAPHLORE_HOME": str(tmp_path / "home"), "GRAPHLORE_EMBED_THREADS": "1"}
    command = [sys.executable, "-m", "graphlore", "facts", "ingest", str(file), "--json"]
    done = run_together([command, command], env)
    assert all(p.returncode == 0 for p in done), [p.stderr for p in done]
    answers = sorted((json.loads(p.stdout) for p in done), key=lambda a: -a["created"])
    assert answers[0]["created"] == 30 and answers[0]["embedded_texts"] > 0
    assert answers[1]["unchanged"] == 30 and answers[1]["embedded_texts"] == 0


@pytest.fixture(scope="module")
def suite():
    return bench()


@pytest.mark.parametrize("name", sorted(TOOLSETS))
def test_servers_sharing_a_store_lose_and_duplicate_nothing(suite, name, tmp_path, embedder):
    if name not in suite.WORKLOADS:
        pytest.skip(f"{name} declares no many-process workload in helpers.scenarios.WORKLOADS")
    result = suite.workload(tmp_path, embedder, name, servers=3, seconds=10)
    assert result == {"errors": 0, "problems": 0, "tracebacks": 0}


@pytest.mark.parametrize("name", sorted(TOOLSETS))
def test_killed_servers_leave_a_sound_store_that_converges(suite, name, tmp_path, embedder):
    if name not in suite.CRASHES:
        pytest.skip(f"{name} declares no crash work in helpers.scenarios.CRASHES")
    result = suite.crash_rounds(tmp_path, embedder, name, kills=3, rng=random.Random(11), per_round=8)
    assert result["problems"] == 0 and result["differences"] == 0


def test_files_that_fight_back(suite, tmp_path):
    if backend.BACKEND != "sqlite":
        pytest.skip("the files part indexes through the CLI into the embedded store and checks its file; "
                    "on PostgreSQL the hostile-file cases run in tests/toolsets/items/test_hardening.py")
    results = suite.files(tmp_path, timeout_s=600)
    for key, outcome in results.items():
        if key.startswith("items "):
            assert outcome.get("status", 0) == 0 and not outcome.get("missing") and not outcome.get("tracebacks") \
                and not outcome.get("errors"), (key, outcome)
        else:
            assert outcome["ok"], (key, outcome)
    store = next((tmp_path / "files-home" / "items").glob("*/store.db"))
    assert integrity(store) == ["ok"]
