"""Items toolset at scale: index throughput, re-index, search latency (in process and MCP stdio), ChromaDB.

For each size a synthetic feature-management tree is written to a temp dir: bugs, features and
completed items whose titles are GitBugs Hadoop summaries and whose description / PROMPT.md are
sentences recombined from GitBugs descriptions, 100-250 word pieces of indexed text per item, so BM25
sees real vocabulary and the embedder real lengths. Then, under a temp GRAPHLORE home:

* full index with the ``index`` tool (model already loaded) vs ``OnnxEmbedder.embed`` on the very texts
  the index embeds (a second embedder instance, same settings, also warm): items/s and the ratio;
* no-op re-index and a one-item change re-index (``index`` tool);
* ``search`` tool latency in process (includes the per-call freshness check and query embedding), and
  its parts: query embedding, freshness check (``ItemIndex.ensure_fresh`` on a fresh index), hybrid
  ranking with a precomputed query vector, vector-only and BM25-only store queries;
* ``search`` through MCP stdio: the official SDK client against a ``graphlore serve items`` child;
* ChromaDB ``PersistentClient`` (no embedding function) given the same vectors: add time vs writing
  the same nodes + vectors into a fresh graphlore SQLite store, and query latency with the same query
  vectors vs the store's vector search and the full hybrid ranking.

Run: ``python bench/items_scale.py [--sizes 1000,10000] [--queries 200] [--mcp-queries 100]``
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the CLI and server set it, before numpy loads

import argparse  # noqa: E402
import csv
import importlib.util
import json
import random
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from graphlore.config import Settings
from graphlore.embedding import OnnxEmbedder
from graphlore.runtime import Runtime
from graphlore.search import fuse, hybrid_search
from graphlore.search.hybrid import best_vector_hits
from graphlore.store.sqlite import SQLiteStore
from graphlore.toolsets.items import tools
from graphlore.toolsets.items.index import KIND, ItemIndex, item_passages
from graphlore.toolsets.items.models import IndexRequest, SearchRequest
from graphlore.toolsets.items.scan import scan_project

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "gitbugs" / "hadoop"
STATUSES = ("open", "open", "in_progress", "new", "blocked", "resolved")
PRIORITIES = ("P0", "P1", "P2", "P2", "P3")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
MIN_TOKENS, MAX_TOKENS = 100, 250


# -- corpus -------------------------------------------------------------------------------


def load_gitbugs() -> tuple[list[str], list[str]]:
    """(summaries, prose sentences) from the Hadoop bug reports."""
    csv.field_size_limit(10**9)
    with (DATA / "hadoop_bugs.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    summaries = list(dict.fromkeys(r["Summary"].strip() for r in rows if r["Summary"].strip()))
    sentences: dict[str, None] = {}
    for row in rows:
        for raw in SENTENCE_END.split(" ".join(row["Description"].split())):
            s = raw.strip()
            letters = sum(c.isalpha() or c == " " for c in s)
            if 30 <= len(s) <= 300 and letters / len(s) > 0.85 and s[0].isupper():
                sentences[s] = None
    return summaries, list(sentences)


class Generator:
    """Deterministic synthetic items; sentence token counts are cached, the final text is checked."""

    def __init__(self, embedder: OnnxEmbedder, summaries: list[str], sentences: list[str], seed: int):
        self.rng = random.Random(seed)
        self.embedder = embedder
        self.summaries = summaries
        self.sentences = sentences
        self.tokens = [embedder.token_count(s) for s in sentences]

    def item(self) -> tuple[str, str, str]:
        """(title, description, PROMPT.md body) with 100-250 word pieces in the indexed text."""
        title = self.rng.choice(self.summaries)
        target = self.rng.randint(MIN_TOKENS, MAX_TOKENS)
        used = self.embedder.token_count(f"TITLE: {title}\n\nDESCRIPTION: \n\nIMPLEMENTATION:\n")
        picked: list[str] = []
        while True:
            i = self.rng.randrange(len(self.sentences))
            if used + self.tokens[i] > target:
                if used >= MIN_TOKENS:
                    break
                if used + self.tokens[i] > MAX_TOKENS:
                    continue
            picked.append(self.sentences[i])
            used += self.tokens[i]
        split = max(1, min(3, len(picked) // 3))
        return title, " ".join(picked[:split]), "\n".join(picked[split:]) + "\n"


def slug(title: str) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", title.lower()))[:40].strip("-") or "item"


def write_tree(root: Path, size: int, gen: Generator) -> list[Path]:
    """``size`` items: ~70% bugs, ~30% features, ~10% of all under completed/. Returns the item folders."""
    folders = []
    for n in range(1, size + 1):
        title, description, body = gen.item()
        is_bug = gen.rng.random() < 0.7
        prefix, kind_dir, meta_name = ("BUG", "bugs", "bug_report.json") if is_bug else (
            "FEAT", "features", "feature_request.json")
        completed = gen.rng.random() < 0.1
        parent = root / "completed" if completed else root / kind_dir
        folder = parent / f"{prefix}-{n:05d}-{slug(title)}"
        folder.mkdir(parents=True)
        meta = {"id": f"{prefix}-{n:05d}", "title": title, "description": description,
                "status": "resolved" if completed else gen.rng.choice(STATUSES),
                "priority": gen.rng.choice(PRIORITIES)}
        (folder / meta_name).write_text(json.dumps(meta, indent=2), encoding="utf-8")
        (folder / "PROMPT.md").write_text(body, encoding="utf-8")
        folders.append(folder)
    return folders


# -- timing helpers -------------------------------------------------------------------------


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def cpu_timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU of this process's threads) seconds of one call."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def times(fn: Callable[[object], object], inputs: Sequence[object]) -> list[float]:
    return [timed(lambda x=x: fn(x)) for x in inputs]


def p(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q))


def lat(values: Sequence[float]) -> str:
    return f"p50={p(values, 50) * 1000:.2f} ms  p95={p(values, 95) * 1000:.2f} ms"


# -- MCP --------------------------------------------------------------------------------------


async def mcp_search(home: Path, project: Path, queries: list[str]) -> tuple[float, float, list[float]]:
    """(time to connect, first search incl. model load, per-call latencies) over stdio."""
    from mcp import Client, StdioServerParameters

    env = {"GRAPHLORE_HOME": str(home)}
    if os.environ.get("PYTHONPATH"):  # the tree under test, when the bench runs one that is not installed
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    params = StdioServerParameters(command=sys.executable, args=["-m", "graphlore", "serve", "items"], env=env)
    t0 = time.perf_counter()
    async with Client(params, read_timeout_seconds=600) as client:
        connect = time.perf_counter() - t0

        async def call(query: str) -> float:
            started = time.perf_counter()
            result = await client.call_tool("search", {"query": query, "project_path": str(project)})
            took = time.perf_counter() - started
            if result.is_error:
                raise SystemExit(f"MCP search failed: {result.content}")
            return took

        first = await call(queries[0])
        return connect, first, [await call(q) for q in queries]


# -- ChromaDB -------------------------------------------------------------------------------------


def chroma_side(path: Path, ids: list[str], vectors: np.ndarray, metas: list[dict], docs: list[str],
                query_vectors: np.ndarray) -> tuple[float, list[float]]:
    import chromadb

    client = chromadb.PersistentClient(path=str(path), settings=chromadb.Settings(anonymized_telemetry=False))
    collection = client.create_collection("items", embedding_function=None, configuration={"hnsw": {"space": "cosine"}})
    step = client.get_max_batch_size()
    t0 = time.perf_counter()
    for start in range(0, len(ids), step):
        end = start + step
        collection.add(ids=ids[start:end], embeddings=vectors[start:end], metadatas=metas[start:end],
                       documents=docs[start:end])
    add = time.perf_counter() - t0
    collection.query(query_embeddings=query_vectors[:1], n_results=10)  # warm
    query = times(lambda v: collection.query(query_embeddings=v[None, :], n_results=10), list(query_vectors))
    return add, query


# -- one size -----------------------------------------------------------------------------------


def run_size(size: int, work: Path, summaries: list[str], sentences: list[str], args) -> None:
    print(f"\n=== {size} items ===", flush=True)
    settings = Settings.load(env={}, home=work / "home")
    # As `graphlore serve` runs it: a change feed instead of an mtime walk on every call.
    runtime = Runtime(settings, watch_files=True)
    embedder = runtime.embedder
    load = timed(lambda: embedder.embed(["warm up"]))
    gen = Generator(embedder, summaries, sentences, seed=args.seed + size)
    project = work / "feature-management"
    t_write = timed(lambda: write_tree(project, size, gen))
    scanned = scan_project(project).items
    texts = [item.text for item in scanned]
    passages = [piece for item in scanned for piece in item_passages(item, embedder)]
    lengths = [embedder.token_count(t) for t in texts]
    print(f"tree: {size} items written in {t_write:.1f} s; indexed text word pieces "
          f"min={min(lengths)} p50={p(lengths, 50):.0f} max={max(lengths)}; model load {load:.2f} s", flush=True)

    # Full index vs the raw embedder on the same texts. The raw embedder on the index's passages runs right
    # before and right after the index (wall and CPU time), so a change of load during the run shows.
    request = IndexRequest(project_path=str(project))
    raw = OnnxEmbedder(threads=settings.embed_threads, batch_size=settings.embed_batch_size)
    raw.embed(["warm up"])
    pieces_before = cpu_timed(lambda: raw.embed(passages)) if args.passages_baseline else None
    t0, c0 = time.perf_counter(), time.process_time()
    first = tools.index(runtime, request)
    t_index, c_index = time.perf_counter() - t0, time.process_time() - c0
    pieces_after = cpu_timed(lambda: raw.embed(passages)) if args.passages_baseline else None
    t_raw = timed(lambda: raw.embed(texts))
    print(f"full index: status={first.status} items={first.items_indexed} {t_index:.1f} s = "
          f"{size / t_index:.1f} items/s (CPU {c_index:.1f} s; load {load_average()})", flush=True)
    print(f"raw embedder (OnnxEmbedder.embed, the {len(texts)} item texts, one per item): {t_raw:.1f} s = "
          f"{len(texts) / t_raw:.1f} texts/s")
    print(f"index throughput / raw embedder throughput: {t_raw / t_index:.3f}", flush=True)
    if pieces_before and pieces_after:
        wall = (pieces_before[0] + pieces_after[0]) / 2
        cpu = (pieces_before[1] + pieces_after[1]) / 2
        print(f"raw embedder on the {len(passages)} passages the index embeds (item_passages), before / after "
              f"the index: {pieces_before[0]:.1f} / {pieces_after[0]:.1f} s (CPU {pieces_before[1]:.1f} / "
              f"{pieces_after[1]:.1f} s) = {len(texts) / wall:.1f} items/s", flush=True)
        print(f"index throughput / raw embedder on its passages: {wall / t_index:.3f} (wall, mean of before and "
              f"after), {cpu / c_index:.3f} (CPU)", flush=True)

    # Re-index.
    noop = [timed(lambda: tools.index(runtime, request)) for _ in range(args.repeats)]
    status = tools.index(runtime, request).status
    print(f"no-op re-index ({args.repeats} runs, status={status}): p50={p(noop, 50):.3f} s  max={max(noop):.3f} s")
    folders = sorted(f for f in project.glob("*/*") if f.is_dir())
    changed, updated = [], []
    for folder in gen.rng.sample(folders, args.repeats):
        prompt = folder / "PROMPT.md"
        prompt.write_text(prompt.read_text(encoding="utf-8") + gen.rng.choice(sentences) + "\n", encoding="utf-8")
        t0 = time.perf_counter()
        result = tools.index(runtime, request)
        changed.append(time.perf_counter() - t0)
        updated.append(result.items_updated)
    print(f"one-item change re-index ({args.repeats} runs, items_updated={sorted(set(updated))}): "
          f"p50={p(changed, 50):.3f} s  max={max(changed):.3f} s", flush=True)

    # Search in process, and its parts.
    queries = gen.rng.sample(summaries, args.queries)
    search = [SearchRequest(query=q, project_path=str(project)) for q in queries]
    for r in search[:3]:
        tools.search(runtime, r)
    t_search = times(lambda r: tools.search(runtime, r), search)
    t_embed = times(lambda q: embedder.embed([q]), queries)
    index = ItemIndex(runtime, project)
    t_fresh = times(lambda _: index.ensure_fresh(), queries)
    store = index.ensure_fresh()
    qvecs = embedder.embed(queries)
    where = {"completed": False}
    pairs = list(zip(queries, qvecs, strict=True))
    ranking = tools.RANKING.hybrid
    t_rank = times(lambda qv: hybrid_search(store, qv[0], qv[1][None, :], kind=KIND, where=where,
                                            limit=ranking.candidates, params=ranking), pairs)
    t_vec10 = times(lambda v: store.vector_search(v, kind=KIND, limit=10), list(qvecs))
    t_vec = times(lambda v: store.vector_search(v, kind=KIND, where=where, limit=ranking.candidates), list(qvecs))
    t_kw = times(lambda q: store.keyword_search(q, kind=KIND, where=where, limit=ranking.candidates,
                                                weights=ranking.field_weights), queries)
    # The hybrid ranking's steps, timed one by one with the same calls hybrid_search makes.
    t_vhits, t_khits, t_missing, t_fuse = [], [], [], []
    for q, v in pairs:
        t0 = time.perf_counter()
        vh = best_vector_hits(store, v[None, :], kind=KIND, where=where, limit=ranking.candidates)
        t1 = time.perf_counter()
        kh = store.keyword_search(q, kind=KIND, where=where, limit=ranking.candidates, weights=ranking.field_weights)
        t2 = time.perf_counter()
        seen = {h.id for h in vh}
        store.vector_scores(v, [h.id for h in kh if h.id not in seen])
        t3 = time.perf_counter()
        fuse(kh, vh, ranking.method, weights=ranking.weights)
        t4 = time.perf_counter()
        t_vhits.append(t1 - t0)
        t_khits.append(t2 - t1)
        t_missing.append(t3 - t2)
        t_fuse.append(t4 - t3)
    print(f"search tool in process ({len(queries)} queries): {lat(t_search)}")
    print(f"  query embedding only:                    {lat(t_embed)}")
    print(f"  freshness check (ensure_fresh, fresh):   {lat(t_fresh)}")
    print(f"  hybrid ranking, query vector given:      {lat(t_rank)}")
    print(f"    its steps: vector hits {lat(t_vhits)}; BM25 hits {lat(t_khits)}")
    print(f"               cosines of BM25-only hits {lat(t_missing)}; fuse {lat(t_fuse)}")
    print(f"  vector search, top {ranking.candidates}, completed filter: {lat(t_vec)}")
    print(f"  vector search, top 10, no filter:        {lat(t_vec10)}")
    print(f"  BM25 (numpy), top {ranking.candidates}, completed filter:  {lat(t_kw)}", flush=True)

    # MCP stdio.
    import anyio

    connect, first_call, t_mcp = anyio.run(mcp_search, settings.home, project, queries[: args.mcp_queries])
    print(f"search via MCP stdio ({len(t_mcp)} calls): {lat(t_mcp)}  "
          f"(connect {connect:.2f} s, first call incl. model load {first_call:.2f} s)", flush=True)

    # ChromaDB vs the graphlore store, same vectors.
    nodes = list(store.iter_nodes(KIND))
    vectors = store.node_vectors([n.id for n in nodes])
    ids, rows, metas, docs = [], [], [], []
    for node in nodes:
        for seq, row in enumerate(vectors[node.id]):
            ids.append(f"{node.id}#{seq}")
            rows.append(row)
            metas.append({"item_id": node.id, "completed": bool(node.props["completed"])})
            docs.append(node.text)
    matrix = np.vstack(rows)
    for node in nodes:
        node.vectors = vectors[node.id]
    fresh = SQLiteStore(work / "store-copy.db", namespace="bench/copy")

    def write() -> None:
        with fresh.atomic():
            fresh.upsert_nodes(nodes)

    t_store = timed(write)
    fresh.vector_search(qvecs[0], kind=KIND, limit=10)
    t_copy_vec = times(lambda v: fresh.vector_search(v, kind=KIND, limit=10), list(qvecs))
    fresh.close()
    if importlib.util.find_spec("chromadb") is None:
        print("ChromaDB comparison skipped: chromadb is not installed (python -m pip install -e '.[bench]')",
              flush=True)
        return
    t_add, t_cq = chroma_side(work / "chroma", ids, matrix, metas, docs, qvecs)
    print(f"ChromaDB PersistentClient add ({len(ids)} vectors): {t_add:.2f} s; "
          f"graphlore store write (nodes + FTS + vectors, one transaction): {t_store:.2f} s; "
          f"ratio graphlore/chroma {t_store / t_add:.2f}; full graphlore index (with embedding) / chroma add "
          f"{t_index / t_add:.1f}")
    print(f"ChromaDB query top 10 ({len(t_cq)} queries): {lat(t_cq)}")
    print(f"  ratio graphlore vector search top 10 / chroma: {p(t_vec10, 50) / p(t_cq, 50):.2f} (p50), "
          f"{p(t_vec10, 95) / p(t_cq, 95):.2f} (p95); same on a store just written: "
          f"{p(t_copy_vec, 50) / p(t_cq, 50):.2f} (p50)")
    print(f"  ratio graphlore hybrid ranking / chroma: {p(t_rank, 50) / p(t_cq, 50):.2f} (p50), "
          f"{p(t_rank, 95) / p(t_cq, 95):.2f} (p95)")
    print(f"  ratio search tool (embedding + freshness + hybrid) / (chroma query + query embedding): "
          f"{p(t_search, 50) / (p(t_cq, 50) + p(t_embed, 50)):.2f} (p50)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated item counts")
    parser.add_argument("--queries", type=int, default=200, help="in-process search queries")
    parser.add_argument("--mcp-queries", type=int, default=100, help="search calls through MCP stdio")
    parser.add_argument("--repeats", type=int, default=5, help="no-op and one-item re-index runs")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-passages-baseline", dest="passages_baseline", action="store_false",
                        help="skip timing the raw embedder on the index's own passages (saves one embedding pass)")
    parser.add_argument("--keep", type=Path, help="work under this directory and keep it (default: temp dir)")
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"GitBugs data not found at {DATA}")
    summaries, sentences = load_gitbugs()
    print(f"corpus: {len(summaries)} GitBugs summaries, {len(sentences)} prose sentences")
    for size in (int(s) for s in args.sizes.split(",")):
        work = (args.keep / str(size)) if args.keep else Path(tempfile.mkdtemp(prefix=f"graphlore-scale-{size}-"))
        if work.exists() and args.keep:
            shutil.rmtree(work)
        work.mkdir(parents=True, exist_ok=True)
        try:
            run_size(size, work, summaries, sentences, args)
        finally:
            if args.keep is None:
                shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
