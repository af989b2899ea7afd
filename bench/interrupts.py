"""Ctrl-C and a second index, measured with real processes and real signals (issue 21 point 3).

    python bench/interrupts.py sigint items ../shared/data/featmgmt/feature-management 40
    python bench/interrupts.py twice code ../shared/data/code/piggymetrics 3
    python bench/interrupts.py force items ../shared/data/featmgmt/feature-management 20

``sigint KIND TREE DELAY``: on a fresh copy of TREE and a fresh GRAPHLORE_HOME, ``graphlore KIND index -p`` gets
SIGINT DELAY seconds after it started; prints its exit status, how long it took to exit after the signal, its
last stderr line (what was kept), then what the next index did (how many it embedded).

``force KIND TREE DELAY``: on a fresh copy of TREE, a full ``graphlore KIND index``, a search, then
``graphlore KIND index --force`` gets SIGINT DELAY seconds after it started (a search runs against the index
meanwhile); prints the exit status, the seconds from SIGINT to exit, the last stderr line, whether the search
during and after the stopped rebuild answered as before, and whether a rebuild namespace was left.

``twice KIND TREE GAP``: two ``graphlore KIND index -p TREE --json`` processes, the second started GAP seconds
after the first; prints what each did, what each said on stderr, and the CPU time of both.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def fresh(src: Path) -> tuple[Path, dict[str, str]]:
    work = Path(tempfile.mkdtemp(prefix="graphlore-interrupts-"))
    tree = work / "tree"
    shutil.copytree(src, tree, symlinks=True)
    return tree, {**os.environ, "GRAPHLORE_HOME": str(work / "home"), "GRAPHLORE_EMBED_THREADS": "1"}


def sigint(kind: str, src: Path, delay: float) -> None:
    tree, env = fresh(src)
    command = ["graphlore", kind, "index", "-p", str(tree), "--json"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    print(f"exit {proc.returncode}, {time.monotonic() - sent:.2f} s after SIGINT (sent {delay:.0f} s after start)")
    print("last line:", (err.strip().splitlines() or [""])[-1])
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    done = json.loads(again.stdout) if again.returncode == 0 else {}
    keys = ("status", "items_indexed", "items_updated", "embedded_now")
    print("next index:", again.returncode, {k: done[k] for k in keys if k in done})


#: A search per toolset whose answer a stopped rebuild must not change.
QUERIES = {"items": "semantic search", "code": "account"}


def force(kind: str, src: Path, delay: float) -> None:
    tree, env = fresh(src)
    built = subprocess.run(["graphlore", kind, "index", "-p", str(tree)], env=env, capture_output=True, text=True,
                           timeout=3600)
    if built.returncode != 0:
        sys.exit(f"the first index failed: {built.stderr}")
    query = ["graphlore", kind, "search", QUERIES[kind], "-p", str(tree), "--json"]
    before = json.loads(subprocess.run(query, env=env, capture_output=True, text=True, timeout=600).stdout)
    proc = subprocess.Popen(["graphlore", kind, "index", "--force", "-p", str(tree)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    start = time.monotonic()
    time.sleep(delay / 2)
    during = subprocess.run(query, env=env, capture_output=True, text=True, timeout=600)
    searched = time.monotonic() - start - delay / 2
    time.sleep(max(start + delay - time.monotonic(), 0))
    if proc.poll() is not None:
        sys.exit(f"the rebuild ended before the signal (exit {proc.returncode}); give a shorter DELAY")
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    print(f"exit {proc.returncode}, {time.monotonic() - sent:.2f} s after SIGINT (sent {delay:.0f} s after start)")
    print("last line:", (err.strip().splitlines() or [""])[-1])
    after = json.loads(subprocess.run(query, env=env, capture_output=True, text=True, timeout=600).stdout)
    results = before["results"]
    print(f"search during the rebuild ({searched:.1f} s): {'same answer' if json.loads(during.stdout)['results'] == results else 'DIFFERENT answer'}")
    print(f"search after the stopped rebuild: {'same answer' if after['results'] == results else 'DIFFERENT answer'}")
    left = list(Path(env["GRAPHLORE_HOME"]).rglob("rebuild/store.db"))
    print("rebuild namespace left:", [str(p) for p in left] or "none")


def twice(kind: str, src: Path, gap: float) -> None:
    tree, env = fresh(src)
    command = ["graphlore", kind, "index", "-p", str(tree), "--json"]
    first = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(gap)
    second = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for name, proc in (("first", first), ("second", second)):
        out, err = proc.communicate(timeout=1800)
        done = json.loads(out) if proc.returncode == 0 else {}
        keys = ("status", "items_updated", "embedded_now", "nodes_written")
        print(name, proc.returncode, {k: done[k] for k in keys if k in done})
        print("   said:", " | ".join(line for line in err.splitlines() if "waiting" in line) or "(no wait)")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"CPU of both: {usage.ru_utime + usage.ru_stime:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in ("sigint", "force", "twice"):
        sys.exit(__doc__)
    {"sigint": sigint, "force": force, "twice": twice}[sys.argv[1]](sys.argv[2], Path(sys.argv[3]), float(sys.argv[4]))
