"""Code toolset, part 1: structural build of a real codebase in memory, and one-file incremental updates.

Copies django's installed source (``importlib`` finds it; ``python -m pip install django``) to a temp
dir, then:

* full build (`CodeGraph.build`): wall time per phase (walk, layout, read+parse, index+invalidate,
  resolve), files/s and LOC/s, node and edge counts by type, how calls resolved, peak RSS;
* one-file incremental updates on the copy, each checked against a fresh full build of the same tree
  (``equal``):
  - ``body``: a statement added inside a method of ``db/models/query.py`` (only that file re-resolves);
  - ``signature``: a new method on ``QuerySet`` (files that looked ``QuerySet`` up re-resolve);
  - ``new file``: a new module importing and calling into the project;
  - ``delete``: that module removed again;
  - ``rename``: ``Model.save`` renamed (every file whose overrides or calls went to it re-resolves);
  each timed as the full ``update()`` (walk + parse + resolve) and without the walk (the walk is what
  a change feed such as inotify makes unnecessary: ``scan`` seconds are listed apart);
* the same full build of piggymetrics (``../shared/data/code/piggymetrics``) if present.

Store and query figures (find/describe/neighbors/resolve p50, database size) come when the graph is
written to the graphsift store. Timings are wall-clock on a shared 2-core machine: noisy; run it alone.

Run: ``python bench/code_index.py [--repeat 3] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from graphsift.toolsets.code.graph import CodeGraph, UpdateStats

PIGGYMETRICS = Path(__file__).resolve().parents[2] / "shared" / "data" / "code" / "piggymetrics"


def django_source() -> Path:
    spec = importlib.util.find_spec("django")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("django is not installed: python -m pip install django")
    return Path(next(iter(spec.submodule_search_locations)))


def phases(stats: UpdateStats) -> str:
    return " ".join(f"{name}={seconds:.3f}s" for name, seconds in stats.seconds.items())


def full_build(root: Path, label: str, repeat: int) -> CodeGraph:
    times = []
    graph = None
    for _ in range(repeat):
        start = time.perf_counter()
        graph = CodeGraph(root)
        stats = graph.update()
        times.append(time.perf_counter() - start)
    assert graph is not None
    best = min(times)
    languages = Counter(f.language for f in graph.facts.values())
    print(f"\n== {label}: full structural build ({root})")
    print(f"files: {stats.files} ({', '.join(f'{k} {v}' for k, v in sorted(languages.items()))}), LOC: {stats.loc}")
    print(f"wall: best {best:.2f}s, median {statistics.median(times):.2f}s of {repeat}  "
          f"-> {stats.files / best:.0f} files/s, {stats.loc / best:.0f} LOC/s")
    print(f"phases (last run): {phases(stats)}")
    nodes, edges = graph.snapshot()
    print(f"nodes: {len(nodes)} ({', '.join(f'{k} {v}' for k, v in sorted(Counter(n.props.get('symbol_kind', n.kind) for n in nodes.values()).items()))})")
    print(f"edges: {len(edges)} ({', '.join(f'{k} {v}' for k, v in sorted(Counter(e.type for e in edges.values()).items()))})")
    calls = Counter(e.props["resolution"] for e in edges.values() if e.type == "CALLS")
    unresolved = Counter(site["reason"] for n in nodes.values() for site in n.props.get("unresolved_calls", []))
    print(f"CALLS edges by resolution: {dict(calls.most_common())}")
    print(f"unresolved call sites by reason: {dict(unresolved.most_common())}")
    return graph


def timed_update(graph: CodeGraph, root: Path, label: str) -> None:
    start = time.perf_counter()
    stats = graph.update()
    wall = time.perf_counter() - start
    fresh_nodes, fresh_edges = CodeGraph.build(root).snapshot()
    nodes, edges = graph.snapshot()
    equal = _same(nodes, fresh_nodes) and _same(edges, fresh_edges)
    print(f"{label:10s} update {wall * 1000:7.1f} ms (without the walk {(wall - stats.seconds['scan']) * 1000:7.1f} ms)"
          f"  parsed={stats.parsed} resolved={stats.resolved}  equal to a full build: {equal}")
    print(f"{'':10s} phases: {phases(stats)}")


def _same(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    return all(vars_of(a[k]) == vars_of(b[k]) for k in a)


def vars_of(record) -> tuple:
    return tuple(getattr(record, name) for name in record.__slots__)


def bump(path: Path) -> None:
    stat = path.stat()
    import os

    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="full builds to time (best and median shown)")
    parser.add_argument("--keep", type=Path, help="copy django here and keep it")
    args = parser.parse_args()

    work = args.keep or Path(tempfile.mkdtemp(prefix="code-bench-"))
    root = work / "django"
    try:
        if not root.exists():
            shutil.copytree(django_source(), root, ignore=shutil.ignore_patterns("__pycache__"))
        graph = full_build(root, "django", args.repeat)

        print("\n== django: one-file incremental updates (each compared with a fresh full build)")
        query = root / "db" / "models" / "query.py"
        text = query.read_text(encoding="utf-8")
        anchor = "        return self._filter_or_exclude(False, args, kwargs)\n"
        assert anchor in text
        query.write_text(text.replace(anchor, "        self._not_sliced = True\n" + anchor, 1), encoding="utf-8")
        bump(query)
        timed_update(graph, root, "body")
        text = query.read_text(encoding="utf-8")
        anchor = "    def filter(self, *args, **kwargs):\n"
        query.write_text(text.replace(anchor, "    def bench_added(self):\n        return self.all()\n\n" + anchor, 1),
                         encoding="utf-8")
        bump(query)
        timed_update(graph, root, "signature")
        new = root / "bench_added.py"
        new.write_text("from django.db.models.query import QuerySet\n\n\ndef run(qs: QuerySet):\n"
                       "    return qs.bench_added().filter(x=1)\n", encoding="utf-8")
        timed_update(graph, root, "new file")
        new.unlink()
        timed_update(graph, root, "delete")
        base = root / "db" / "models" / "base.py"
        text = base.read_text(encoding="utf-8")
        anchor = "    def save(\n        self,\n"
        assert anchor in text
        base.write_text(text.replace(anchor, "    def save_renamed(\n        self,\n", 1), encoding="utf-8")
        bump(base)
        timed_update(graph, root, "rename")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"\npeak RSS of this process: {peak:.0f} MiB")

        if PIGGYMETRICS.is_dir():
            full_build(PIGGYMETRICS, "piggymetrics", args.repeat)
        else:
            print(f"\n(piggymetrics not found at {PIGGYMETRICS}: skipped)")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
