"""Ctrl-C and a second index, with real processes and real signals: SIGINT ends an index with status 130 and
one line saying what was kept and the command that finishes it; a second index of the same project says it
waits, then finds nothing left to do (no text is embedded by both).

The tests find out when the first process holds its lock by trying the lock file themselves (SQLite's
``flock``), so they run on the embedded backend only.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import paths as PATHS
from helpers.backend import BACKEND, env_for

from graphlore.toolsets.folder_index import EMBED_LOCK, INDEX_LOCK, folder_namespace, rebuild_namespace

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BACKEND == "postgres", reason="the tests watch the index lock as a file (SQLite's flock)"),
]

CODE_TREE = PATHS.SHARED_DATA / "code" / "piggymetrics"


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, **env_for(home), "GRAPHLORE_EMBED_THREADS": "1"}


def _held(lock: Path) -> bool:
    """Whether another process holds ``lock`` (a namespace lock file) right now."""
    if not lock.exists():
        return False
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _wait_until_held(lock: Path, proc: subprocess.Popen, limit_s: float = 120) -> None:
    deadline = time.monotonic() + limit_s
    while not _held(lock):
        if proc.poll() is not None:
            pytest.fail(f"the first process ended before it took {lock.name}: {proc.stderr.read()}")
        if time.monotonic() > deadline:
            pytest.fail(f"{lock} was never taken")
        time.sleep(0.02)


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "graphlore", *args]


def test_ctrl_c_during_an_items_index_exits_130_and_says_what_was_kept(tmp_path):
    tree = Path(shutil.copytree(PATHS.EXAMPLE_TREE, tmp_path / "fm"))
    home = tmp_path / "home"
    # the embed lock, held only while the items are embedded: the index lock is also held by the steps before,
    # where Ctrl-C ends another step with another line (seen when the modules were not compiled yet)
    lock = home / folder_namespace("items", tree.resolve()) / f"{EMBED_LOCK}.lock"
    proc = subprocess.Popen(_cli("items", "index", "-p", str(tree)), env=_env(home), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    _wait_until_held(lock, proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    last = err.strip().splitlines()[-1]
    assert re.fullmatch(r"interrupted: \d+ of 13 items embedded and kept; run `graphlore items index -p "
                        + re.escape(str(tree.resolve())) + "` to finish", last), err
    assert "Traceback" not in err and out == ""

    again = subprocess.run(_cli("items", "index", "-p", str(tree), "--json"), env=_env(home), capture_output=True,
                           text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    finished = json.loads(again.stdout)
    kept = int(last.split()[1])
    assert finished["items_indexed"] == 13 and finished["items_updated"] == 13 - kept  # kept ones not again


@pytest.mark.skipif(not CODE_TREE.is_dir(), reason=f"{CODE_TREE} is absent (the shared evaluation data)")
def test_a_second_code_index_waits_then_finds_nothing_to_embed(tmp_path):
    tree = Path(shutil.copytree(CODE_TREE, tmp_path / "piggymetrics"))
    home = tmp_path / "home"
    embed_lock = home / folder_namespace("code", tree.resolve()) / f"{EMBED_LOCK}.lock"
    command = _cli("code", "index", "-p", str(tree), "--json")
    first = subprocess.Popen(command, env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_until_held(embed_lock, first)
    second = subprocess.run(command, env=_env(home), capture_output=True, text=True, timeout=600)
    out, err = first.communicate(timeout=600)
    assert first.returncode == 0 and second.returncode == 0, (err, second.stderr)
    done_first, done_second = json.loads(out), json.loads(second.stdout)
    assert "waiting for another index of this project" in second.stderr
    assert done_first["embedded_now"] == done_first["index_status"]["embeddable"] > 0
    assert done_second["embedded_now"] == 0 and done_second["status"] == "unchanged"


def test_a_second_items_index_waits_then_finds_nothing_to_do(tmp_path):
    tree = Path(shutil.copytree(PATHS.EXAMPLE_TREE, tmp_path / "fm"))
    home = tmp_path / "home"
    lock = home / folder_namespace("items", tree.resolve()) / f"{INDEX_LOCK}.lock"
    command = _cli("items", "index", "-p", str(tree), "--json")
    first = subprocess.Popen(command, env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_until_held(lock, first)
    second = subprocess.run(command, env=_env(home), capture_output=True, text=True, timeout=600)
    out, err = first.communicate(timeout=600)
    assert first.returncode == 0 and second.returncode == 0, (err, second.stderr)
    assert "waiting for another index of this project" in second.stderr
    assert json.loads(out)["items_updated"] == 13
    assert json.loads(second.stdout)["status"] == "unchanged"


def test_ctrl_c_during_a_forced_rebuild_keeps_the_old_index_answering_as_before(tmp_path):
    tree = Path(shutil.copytree(PATHS.EXAMPLE_TREE, tmp_path / "fm"))
    home = tmp_path / "home"
    namespace = folder_namespace("items", tree.resolve())
    built = subprocess.run(_cli("items", "index", "-p", str(tree)), env=_env(home), capture_output=True, text=True,
                           timeout=300)
    assert built.returncode == 0, built.stderr
    query = _cli("items", "search", "cursor jumps while typing", "-p", str(tree), "--json")
    before = subprocess.run(query, env=_env(home), capture_output=True, text=True, timeout=120)
    assert before.returncode == 0, before.stderr

    proc = subprocess.Popen(_cli("items", "index", "--force", "-p", str(tree)), env=_env(home),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_until_held(home / rebuild_namespace(namespace) / f"{EMBED_LOCK}.lock", proc)  # embedding the rebuild
    during = subprocess.Popen(query, env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    during_out, _ = during.communicate(timeout=120)
    assert proc.returncode == 130, err
    last = err.strip().splitlines()[-1]
    assert last == ("interrupted: the rebuild was stopped and removed; the index as it was before is kept unchanged "
                    f"(13 of 13 items embedded); run `graphlore items index --force -p {tree.resolve()}` to rebuild it")
    assert "Traceback" not in err and out == ""

    after = subprocess.run(query, env=_env(home), capture_output=True, text=True, timeout=120)
    assert json.loads(during_out)["results"] == json.loads(before.stdout)["results"]
    assert json.loads(after.stdout)["results"] == json.loads(before.stdout)["results"]
    # the rebuild is gone: right away when it could clean up, else the next update removes it
    assert not (home / rebuild_namespace(namespace) / "store.db").exists() or \
        "removed an unfinished rebuild" in after.stderr
    assert not (home / rebuild_namespace(namespace) / "store.db").exists()


def test_ctrl_c_during_a_forced_rebuild_of_a_damaged_index_says_what_was_kept(tmp_path):
    # review finding: the line of what was kept read the damaged index, so Ctrl-C printed a traceback
    tree = Path(shutil.copytree(PATHS.EXAMPLE_TREE, tmp_path / "fm"))
    home = tmp_path / "home"
    namespace = folder_namespace("items", tree.resolve())
    (home / namespace).mkdir(parents=True)
    (home / namespace / "store.db").write_bytes(b"not a database at all" * 300)
    proc = subprocess.Popen(_cli("items", "index", "--force", "-p", str(tree)), env=_env(home),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_until_held(home / rebuild_namespace(namespace) / f"{EMBED_LOCK}.lock", proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and out == ""
    assert err.strip().splitlines()[-1] == (
        "interrupted: the rebuild was stopped and removed; the index as it was before is kept unchanged (damaged: "
        f"only a rebuild repairs it); run `graphlore items index --force -p {tree.resolve()}` to rebuild it")
