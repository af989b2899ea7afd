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

Then the same through the store (``--part store``; what `graphlore code index` does):

* full structural index of the django copy (`CodeIndex.sync`: build + write), its phases, node/edge/key
  counts, and the database size (the file after the runtime closed; the WAL at its largest, while open);
* one-file updates through the index (warm: the graph kept in memory, as the MCP server does), then one
  after a restart (a new runtime restores the graph from the persisted records), and the final store
  compared with a fresh full index of the edited tree (``equal``);
* query latency p50/p95 of find, describe, neighbors, resolve (and search on BM25) over a fixed mix of
  requests, in a runtime that watches the folder (as ``graphlore serve`` does; a one-shot CLI call adds a
  walk of the tree, also measured: ``freshness check``);
* piggymetrics: full index time with and without the embedding phase.

Timings are wall-clock on a shared 2-core machine: noisy; run it alone. The collector runs with the thresholds
the console script sets (:mod:`graphlore.collector`), as in `graphlore serve`; ``--default-gc`` keeps CPython's.

Run: ``python bench/code_index.py [--part graph|store|all] [--repeat 3] [--queries 50] [--keep DIR] [--default-gc]``
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from graphlore import collector
from graphlore.config import Settings
from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.code_index import CodeIndex
from graphlore.toolsets.code.index.graph import CodeGraph, UpdateStats
from graphlore.toolsets.code.query import models, tools

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


# -- through the store ------------------------------------------------------------------------------------


def store_dump(store) -> tuple[dict, dict]:
    nodes = {n.id: (n.kind, n.name, n.text, n.props, n.text_hash) for n in store.iter_nodes()}
    edges = {e.id: (e.src, e.dst, e.type, e.props) for e in store.edges_of(list(nodes), direction="both").edges}
    return nodes, edges


def file_sizes(index: CodeIndex) -> str:
    folder = Path(index.location)
    sizes = {p.name: p.stat().st_size for p in folder.iterdir() if p.is_file()}
    return ", ".join(f"{name} {size / 2**20:.1f} MiB" for name, size in sorted(sizes.items()) if size)


def call(runtime: Runtime, root: Path, tool: str, **fields):
    request = parse_request(getattr(models, f"{tool.capitalize()}Request"), {"project_path": str(root), **fields})
    return getattr(tools, tool)(runtime, request)


def store_full_index(root: Path, home: Path, label: str, embed: bool = False) -> None:
    runtime = Runtime(Settings(home=home), watch_files=True)
    index = CodeIndex(runtime, root)
    start, cpu = time.perf_counter(), time.process_time()
    report = index.sync()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    store = index.store()
    print(f"\n== {label}: full structural index through the store ({root})")
    print(f"wall {wall:.2f}s, CPU {cpu:.2f}s (graph {report.seconds['graph']:.2f}s, write {report.seconds['write']:.2f}s): "
          f"{report.files} files, {store.count_nodes()} nodes, {store.count_edges()} edges "
          f"-> {report.files / wall:.0f} files/s; load average {os.getloadavg()[0]:.1f}")
    print(f"while open: {file_sizes(index)}")
    if embed:
        start = time.perf_counter()
        embedded = index.embed()
        print(f"embedding phase: {embedded} nodes in {time.perf_counter() - start:.1f}s "
              f"({embedded / (time.perf_counter() - start):.0f} nodes/s)")
    runtime.close()
    print(f"after close: {file_sizes(index)}")
    try:
        import sqlite3

        db = next(Path(index.location).glob("store.db"))
        with sqlite3.connect(db) as conn:
            print(f"lookup/filter keys: {conn.execute('SELECT count(*) FROM node_keys').fetchone()[0]}")
    except (StopIteration, OSError):
        pass


def store_updates(root: Path, home: Path, work: Path) -> None:
    runtime = Runtime(Settings(home=home), watch_files=True)
    index = CodeIndex(runtime, root)
    index.sync()
    print("\n== django: one-file updates through the index (warm: the graph kept in memory; this runtime opened an "
          "index built by another one, so its first update also restores the graph from the stored per-file records, "
          "as the first update of every new process does)")
    query = root / "db" / "models" / "query.py"
    edits = [
        ("body", query, "        return self._filter_or_exclude(False, args, kwargs)\n",
         "        self._bench_flag = True\n        return self._filter_or_exclude(False, args, kwargs)\n"),
        ("body again", query, "        self._bench_flag = True\n", "        self._bench_flag = 1\n"),
        ("signature", query, "    def exclude(self, *args, **kwargs):\n",
         "    def bench_store_added(self):\n        return self.all()\n\n    def exclude(self, *args, **kwargs):\n"),
        ("rename", root / "db" / "models" / "base.py", "    def save_base(\n", "    def save_base_renamed(\n"),
    ]
    for label, path, old, new in edits:
        text = path.read_text(encoding="utf-8")
        assert old in text, (label, old)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        bump(path)
        start, cpu = time.perf_counter(), time.process_time()
        report = index.sync()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"{label:10s} {wall * 1000:7.1f} ms (CPU {cpu * 1000:6.1f} ms)  parsed={report.parsed} resolved={report.resolved} "
              f"nodes +{report.nodes_written}/-{report.nodes_deleted} edges +{report.edges_written}/-{report.edges_deleted} "
              f"(graph {report.seconds['graph'] * 1000:.0f} ms incl. walk, write {report.seconds['write'] * 1000:.0f} ms)")
    runtime.close()
    text = query.read_text(encoding="utf-8")
    query.write_text(text.replace("        self._bench_flag = 1\n", "        self._bench_flag = 2\n", 1),
                     encoding="utf-8")
    bump(query)
    runtime = Runtime(Settings(home=home), watch_files=True)
    index = CodeIndex(runtime, root)
    start, cpu = time.perf_counter(), time.process_time()
    report = index.sync()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"{'restart':10s} {wall * 1000:7.1f} ms (CPU {cpu * 1000:6.1f} ms)  (a new process: graph restored from the records: "
          f"restored={report.restored}; parsed={report.parsed} resolved={report.resolved})")
    mine = store_dump(index.store())
    runtime.close()
    fresh = Runtime(Settings(home=work / "fresh-home"))
    fresh_index = CodeIndex(fresh, root)
    fresh_index.sync()
    print(f"store after these updates equal to a fresh full index: {store_dump(fresh_index.store()) == mine}")
    fresh.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def store_queries(root: Path, home: Path, repeat: int) -> None:
    runtime = Runtime(Settings(home=home), watch_files=True)
    call(runtime, root, "status")
    ids = {name: call(runtime, root, "resolve", identifier=fqn).node.id for name, fqn in (
        ("queryset", "django.db.models.query.QuerySet"), ("filter", "django.db.models.query.QuerySet.filter"),
        ("model", "django.db.models.base.Model"), ("save", "django.db.models.base.Model.save"),
        ("request", "django.http.request.HttpRequest"))}
    mix = {
        "find": [dict(kind="symbol"), dict(kind="symbol", filter={"role": "CONTROLLER"}),
                 dict(kind="symbol", filter={"fqn_prefix": "django.db.models", "symbol_kind": "class"}),
                 dict(kind="symbol", filter={"capability": "HTTP_ENDPOINT"}, limit=100),
                 dict(kind="symbol", filter={"annotation": "property", "file_prefix": "django/db"}, offset=25),
                 dict(kind="microservice")],
        "describe": [dict(id=ids[k]) for k in ids] + [dict(fqn="django.db.models.query.QuerySet.filter")],
        "neighbors": [dict(id=ids["filter"], edge_types=["CALLED_BY"]), dict(id=ids["save"], edge_types=["OVERRIDDEN_BY"]),
                      dict(id=ids["queryset"], edge_types=["DECLARES.CALLS"]), dict(id=ids["model"], direction="both"),
                      dict(id=ids["request"], edge_types=["DECLARES.CALLED_BY"], limit=20)],
        "resolve": [dict(identifier="QuerySet"), dict(identifier="QuerySet.filter"), dict(identifier="save"),
                    dict(identifier="django.db.models.base.Model"), dict(identifier="db/models/query.py"),
                    dict(identifier="httprequest")],
        "search (bm25)": [dict(query="queryset filter"), dict(query="parse the request body"),
                          dict(query="send mail", kind="symbol", filter={"symbol_kind": "function"})],
    }
    print(f"\n== django: query latency over {repeat} rounds of a fixed mix (runtime watching the folder)")
    for tool, requests in mix.items():
        name = tool.split()[0]
        times = []
        for _ in range(repeat):
            for fields in requests:
                start = time.perf_counter()
                call(runtime, root, name, **fields)
                times.append(time.perf_counter() - start)
        print(f"{tool:14s} p50 {percentile(times, 0.5) * 1000:6.1f} ms  p95 {percentile(times, 0.95) * 1000:6.1f} ms  "
              f"({len(times)} calls)")
    runtime.close()
    once = Runtime(Settings(home=home))
    times = []
    for _ in range(max(3, repeat // 10)):
        start = time.perf_counter()
        call(once, root, "describe", id=ids["queryset"])
        times.append(time.perf_counter() - start)
    print(f"{'freshness check':14s} p50 {percentile(times, 0.5) * 1000:6.1f} ms  (describe in a runtime that does not "
          "watch: every call walks the tree, as a one-shot CLI call does)")
    once.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="full builds to time (best and median shown)")
    parser.add_argument("--keep", type=Path, help="copy django here and keep it")
    parser.add_argument("--part", choices=["graph", "store", "all"], default="all")
    parser.add_argument("--queries", type=int, default=50, help="rounds of the query mix")
    parser.add_argument("--embed", action="store_true", help="also time the embedding phase of piggymetrics")
    parser.add_argument("--default-gc", action="store_true",
                        help="keep CPython's collector thresholds (default: the console script's, graphlore.collector)")
    args = parser.parse_args()
    if not args.default_gc:
        collector.tune()
    print(f"collector thresholds: {gc.get_threshold()}")

    work = args.keep or Path(tempfile.mkdtemp(prefix="code-bench-"))
    root = work / "django"
    try:
        if not root.exists():
            shutil.copytree(django_source(), root, ignore=shutil.ignore_patterns("__pycache__"))
        if args.part in ("store", "all"):
            home = work / "home"
            store_full_index(root, home, "django")
            store_queries(root, home, args.queries)
            store_updates(root, home, work)
            if PIGGYMETRICS.is_dir():
                store_full_index(PIGGYMETRICS, work / "pm-home", "piggymetrics", embed=args.embed)
        if args.part == "store":
            return
        shutil.rmtree(root)
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
