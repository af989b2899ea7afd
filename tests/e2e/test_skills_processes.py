"""Several processes on one skill library at once (every MCP client starts its own server): no lost
counter update, one skill when two processes create the same one, no 'database is locked'."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers import backend
from helpers.skills_data import RESET

from graphlore.runtime import Runtime
from graphlore.toolsets.skills.library import KIND, SkillLibrary

SCRIPT = """
import sys
from graphlore.adapters.cli import main
for _ in range(int(sys.argv[1])):
    try:
        main(sys.argv[2:], standalone_mode=False)
    except SystemExit as exit:
        if exit.code:
            raise
"""


def start(env: dict, *args: str, times: int = 1) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SCRIPT, str(times), "skills", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(procs: list[subprocess.Popen]) -> list[str]:
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert "locked" not in err
        outputs.append(out)
    return outputs


def test_two_processes_create_the_same_skill_once_and_count_every_outcome(tmp_path, embedder):
    home = tmp_path / "home"
    env = {**os.environ, **backend.env_for(home)}
    creators = [start(env, "create", "--skill", json.dumps(RESET), "--json") for _ in range(2)]
    created = [json.loads(out) for out in finish(creators)]
    assert sorted(c["created"] for c in created) == [False, True]
    assert created[0]["skill_id"] == created[1]["skill_id"]
    skill_id = created[0]["skill_id"]
    workers = [start(env, "outcome", skill_id, "no_feedback", times=10) for _ in range(2)]
    workers.append(start(env, "search", "I forgot my password", times=10))
    finish(workers)
    library = SkillLibrary(Runtime(backend.settings_for(home), embedder=embedder), "default")
    store = library.store()
    assert store.count_nodes(KIND) == 1
    [stored] = library.read(store, [skill_id]).values()
    assert stored.counters.times_used == 10
    assert stored.counters.confidence == 0.7  # 0.5 + 20 x 0.01: not one update lost
