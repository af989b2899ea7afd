"""SciFact (BEIR) train: BM25, vector, hybrid and LanceDB's hybrid on the same vectors.

Indexes ``../shared/data/scifact/corpus.jsonl`` (title as the node name, abstract
as its text) into a fresh :class:`graphlore.store.sqlite.SQLiteStore` in a temp
dir, with the real :class:`graphlore.embedding.OnnxEmbedder` vectors: one vector
per passage window of ``"{title}\\n{abstract}"`` (``embedder.passages``), so a
long abstract is not cut at 256 tokens; the store scores a document by its best
passage. Then runs the train queries (``qrels/train.tsv``) and prints nDCG@10 and
Recall@100 for keyword only, vector only, our hybrid (``graphlore.search.fusion.fuse``, as ``graphlore.search.hybrid_search`` ranks
defaults), and LanceDB's hybrid query (its default RRF reranker, its own FTS
index, each document's first-window vector: LanceDB holds one vector per row).

Embedding the corpus (9,955 windows) takes ~10-20 min on 2 cores, so vectors are
cached under ``bench/out/`` keyed by model name + sha256 of each text and reused
across runs; with the cache a full run takes ~1-2 min, ``--sweep`` adds ~2 min.
Latencies are per query with the query vector given (the query embedding is
timed apart); they mean little while another heavy job shares the CPU.

    python bench/retrieval_scifact.py                     # full run (809 queries)
    python bench/retrieval_scifact.py --limit-queries 100 # quick
    python bench/retrieval_scifact.py --sweep             # also the fusion / title-weight sweep
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from graphlore.embedding import OnnxEmbedder
from graphlore.search import fusion
from graphlore.store.base import Hit, Node
from graphlore.store.sqlite import SQLiteStore

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "scifact"
OUT = REPO / "bench" / "out"


# -- data --------------------------------------------------------------------------


def load_corpus(data: Path = DATA) -> list[dict]:
    with (data / "corpus.jsonl").open() as fh:
        return [json.loads(line) for line in fh]


def load_queries(data: Path = DATA) -> dict[str, str]:
    with (data / "queries.jsonl").open() as fh:
        return {row["_id"]: row["text"] for row in map(json.loads, fh)}


def load_qrels(data: Path = DATA, split: str = "train") -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with (data / "qrels" / f"{split}.tsv").open() as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    return qrels


# -- vectors, cached -----------------------------------------------------------------


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class VectorCache:
    """Vectors keyed by model name + sha256 of each text, kept in one .npz under bench/out/."""

    def __init__(self, model: str, directory: Path = OUT) -> None:
        self.path = directory / f"vectors-{model}.npz"
        self.rows: dict[str, np.ndarray] = {}
        if self.path.exists():
            data = np.load(self.path)
            self.rows = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self.rows), dtype="U64")
        vectors = np.vstack(list(self.rows.values())).astype(np.float32)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=keys, vectors=vectors)
        tmp.replace(self.path)

    def embed(self, embedder, texts: Sequence[str], chunk: int = 512) -> tuple[np.ndarray, float, int]:
        """Vectors for ``texts``; returns (matrix, seconds spent embedding, texts embedded now)."""
        keys = [text_key(t) for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self.rows))
        by_key = dict(zip(keys, texts, strict=True))
        spent = 0.0
        for start in range(0, len(missing), chunk):
            part = missing[start : start + chunk]
            t0 = time.perf_counter()
            matrix = embedder.embed([by_key[k] for k in part])
            spent += time.perf_counter() - t0
            self.rows.update(zip(part, matrix, strict=True))
            self.save()
            print(
                f"  embedded {start + len(part)}/{len(missing)} ({spent:.0f} s)", file=sys.stderr, flush=True
            )
        matrix = np.vstack([self.rows[k] for k in keys]) if keys else np.empty((0, embedder.dim), np.float32)
        return matrix.astype(np.float32), spent, len(missing)


# -- metrics ------------------------------------------------------------------------


def ndcg_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    """nDCG@k with graded gains (BEIR / trec_eval convention: gain = relevance, log2 discount)."""
    dcg = sum(relevant.get(doc, 0) / math.log2(rank + 2) for rank, doc in enumerate(ranking[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int = 100) -> float:
    wanted = {doc for doc, gain in relevant.items() if gain > 0}
    return len(wanted.intersection(ranking[:k])) / len(wanted) if wanted else 0.0


def evaluate(
    runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]]
) -> tuple[float, float]:
    """Mean nDCG@10 and Recall@100 over the queries of ``runs``."""
    ndcg = [ndcg_at(runs[q], qrels[q]) for q in runs]
    recall = [recall_at(runs[q], qrels[q]) for q in runs]
    return float(np.mean(ndcg)), float(np.mean(recall))


def p50_ms(seconds: Sequence[float]) -> float:
    return float(np.median(seconds)) * 1000 if seconds else float("nan")


# -- systems -----------------------------------------------------------------------


def build_store(path: Path, docs: Sequence[dict], passage_vectors: Sequence[np.ndarray]) -> SQLiteStore:
    store = SQLiteStore(path, namespace="bench/scifact")
    store.upsert_nodes(
        [
            Node(id=d["_id"], kind="doc", name=d["title"], text=d["text"], vectors=vectors)
            for d, vectors in zip(docs, passage_vectors, strict=True)
        ]
    )
    return store


def run_lancedb(
    directory: Path,
    docs: Sequence[dict],
    doc_vectors: np.ndarray,
    queries: Sequence[tuple[str, str, np.ndarray]],
    limit: int,
) -> tuple[dict[str, list[str]], list[float], float]:
    """LanceDB hybrid (its FTS index + the vectors given, default RRF reranker): runs, latencies, index seconds."""
    import lancedb
    import pyarrow as pa

    t0 = time.perf_counter()
    db = lancedb.connect(str(directory))
    table = db.create_table(
        "scifact",
        data=pa.table(
            {
                "doc_id": [d["_id"] for d in docs],
                "text": [f"{d['title']}\n{d['text']}" for d in docs],
                "vector": pa.FixedSizeListArray.from_arrays(
                    pa.array(doc_vectors.reshape(-1), type=pa.float32()), doc_vectors.shape[1]
                ),
            }
        ),
        mode="overwrite",
    )
    # create_fts_index is a deprecated alias of the same native FTS index (stemming, stop words).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table.create_fts_index("text", replace=True)
    index_seconds = time.perf_counter() - t0
    runs, latencies = {}, []
    for qid, text, vector in queries:
        t0 = time.perf_counter()
        rows = table.search(query_type="hybrid").vector(vector).text(text).limit(limit).to_list()
        latencies.append(time.perf_counter() - t0)
        runs[qid] = [row["doc_id"] for row in rows]
    return runs, latencies, index_seconds


# -- main -----------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="SciFact folder (default: %(default)s)")
    parser.add_argument("--split", default="train", help="qrels split to evaluate (default: %(default)s)")
    parser.add_argument("--limit-queries", type=int, default=0, help="run only the first N queries (0 = all)")
    parser.add_argument("--threads", type=int, default=0, help="embedder threads (0 = onnxruntime default)")
    parser.add_argument("--depth", type=int, default=fusion.CANDIDATES, help="hits asked of each side")
    parser.add_argument(
        "--title-weight",
        type=float,
        default=fusion.TITLE_FIELD_WEIGHTS[0],
        help="BM25 weight of the title column (the abstract column weighs 1; default: %(default)s)",
    )
    parser.add_argument("--method", default=fusion.DEFAULT_METHOD, choices=fusion.FUSION_METHODS)
    parser.add_argument(
        "--weights",
        type=float,
        nargs=2,
        default=None,
        metavar=("KEYWORD", "VECTOR"),
        help="fusion weights (default: fusion.METHOD_WEIGHTS[method])",
    )
    parser.add_argument(
        "--truncate",
        action="store_true",
        help="one vector per document (its first window) instead of one per passage",
    )
    parser.add_argument("--no-lancedb", action="store_true", help="skip the LanceDB comparison")
    parser.add_argument("--sweep", action="store_true", help="also print nDCG@10 over fusion settings")
    parser.add_argument(
        "--cache-dir", type=Path, default=OUT, help="vector cache folder (default: %(default)s)"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if not (args.data / "corpus.jsonl").exists():
        sys.exit(
            f"SciFact not found at {args.data}: expected corpus.jsonl, queries.jsonl, qrels/{args.split}.tsv"
        )
    docs = load_corpus(args.data)
    texts = load_queries(args.data)
    qrels = load_qrels(args.data, args.split)
    qids = sorted(qrels, key=lambda q: (len(q), q))
    if args.limit_queries:
        qids = qids[: args.limit_queries]
    embedder = OnnxEmbedder(threads=args.threads)
    cache = VectorCache(embedder.name, args.cache_dir)
    print(f"SciFact {args.split}: {len(docs)} documents, {len(qids)} queries; embedder {embedder.name}")
    print(
        f"fusion: method={args.method} "
        f"weights={tuple(args.weights or fusion.METHOD_WEIGHTS.get(args.method, (1.0, 1.0)))} "
        f"title weight={args.title_weight} depth={args.depth}"
    )

    # Passages: every window the model sees whole, or only the first (what a 256-token model keeps).
    t0 = time.perf_counter()
    windows = [embedder.passages(f"{d['title']}\n{d['text']}") for d in docs]
    if args.truncate:
        windows = [w[:1] for w in windows]
    split_seconds = time.perf_counter() - t0
    flat = [p for w in windows for p in w]
    matrix, spent, embedded = cache.embed(embedder, flat)
    bounds = np.cumsum([0] + [len(w) for w in windows])
    passage_vectors = [matrix[bounds[i] : bounds[i + 1]] for i in range(len(docs))]
    long_docs = sum(len(w) > 1 for w in windows)
    print(
        f"passages: {len(flat)} windows for {len(docs)} documents ({long_docs} split; splitting {split_seconds:.1f} s)"
    )
    if embedded:
        print(
            f"embedding: {embedded} windows in {spent:.0f} s ({embedded / spent:.1f}/s), cached in {cache.path}"
        )
    else:
        print(f"embedding: all {len(flat)} windows from the cache {cache.path}")

    query_texts = [texts[q] for q in qids]
    query_matrix, _, _ = cache.embed(embedder, query_texts)
    sample = query_texts[:50]
    embedder.embed(sample[:1])  # load the model before timing
    single = []
    for text in sample:
        t0 = time.perf_counter()
        embedder.embed([text])
        single.append(time.perf_counter() - t0)
    print(f"query embedding: p50 {p50_ms(single):.2f} ms per single query (not included below)")

    weights = (args.title_weight, 1.0)
    fuse_weights = tuple(args.weights) if args.weights else None
    with tempfile.TemporaryDirectory(prefix="graphlore-scifact-") as tmp:
        t0 = time.perf_counter()
        store = build_store(Path(tmp) / "scifact.sqlite", docs, passage_vectors)
        write_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        store.vector_search(query_matrix[0], limit=1)
        cache_seconds = time.perf_counter() - t0
        print(
            f"index (SQLiteStore: nodes + term counts + {len(flat)} vectors, one transaction): {write_seconds:.2f} s; "
            f"first vector search (matrix cache load): {cache_seconds * 1000:.0f} ms"
        )

        keyword_hits: dict[str, list[Hit]] = {}
        vector_hits: dict[str, list[Hit]] = {}
        hybrid: dict[str, list[str]] = {}
        lat: dict[str, list[float]] = {"keyword": [], "vector": [], "fuse": [], "hybrid": []}
        for qid, text, vector in zip(qids, query_texts, query_matrix, strict=True):
            t0 = time.perf_counter()
            kw = store.keyword_search(text, limit=args.depth, weights=weights)
            t1 = time.perf_counter()
            vec = store.vector_search(vector, limit=args.depth)
            t2 = time.perf_counter()
            fused = fusion.fuse(kw, vec, method=args.method, weights=fuse_weights)
            t3 = time.perf_counter()
            lat["keyword"].append(t1 - t0)
            lat["vector"].append(t2 - t1)
            lat["fuse"].append(t3 - t2)
            lat["hybrid"].append(t3 - t0)
            keyword_hits[qid], vector_hits[qid] = kw, vec
            hybrid[qid] = [h.id for h in fused]

        rows = [
            (
                f"BM25 (title x{args.title_weight:g})",
                {q: [h.id for h in keyword_hits[q]] for q in qids},
                lat["keyword"],
            ),
            (
                "vector (first window)" if args.truncate else "vector (best passage)",
                {q: [h.id for h in vector_hits[q]] for q in qids},
                lat["vector"],
            ),
            (f"hybrid ({args.method})", hybrid, lat["hybrid"]),
        ]
        if not args.no_lancedb:
            first = np.vstack([v[0] for v in passage_vectors])
            lance_runs, lance_lat, lance_index = run_lancedb(
                Path(tmp) / "lancedb",
                docs,
                first,
                list(zip(qids, query_texts, query_matrix, strict=True)),
                args.depth,
            )
            rows.append(("LanceDB hybrid (RRF, first window)", lance_runs, lance_lat))
        print()
        print(f"{'method':<38} {'nDCG@10':>8} {'R@100':>7} {'p50 ms':>8}")
        for name, runs, latencies in rows:
            ndcg, recall = evaluate(runs, qrels)
            print(f"{name:<38} {ndcg:>8.4f} {recall:>7.4f} {p50_ms(latencies):>8.2f}")
        print(f"(hybrid p50 = BM25 + vector search + fuse; fuse alone p50 {p50_ms(lat['fuse']):.2f} ms)")
        if not args.no_lancedb:
            print(
                f"LanceDB: table + FTS index built in {lance_index:.2f} s; p50 is its hybrid query given the vector"
            )

        if args.sweep:
            print_sweep(store, qids, query_texts, vector_hits, qrels, args.depth)
        store.close()


def print_sweep(
    store: SQLiteStore,
    qids: Sequence[str],
    query_texts: Sequence[str],
    vector_hits: Mapping[str, list[Hit]],
    qrels: Mapping[str, Mapping[str, int]],
    depth: int,
) -> None:
    """nDCG@10 over title weights x fusion settings: how sensitive the default is."""
    fusions: list[tuple[str, Callable[[list[Hit], list[Hit]], list[Hit]]]] = [
        ("rrf k=60", lambda k, v: fusion.fuse(k, v, method="rrf")),
        ("convex .5", lambda k, v: fusion.fuse(k, v, method="convex", weights=(0.5, 0.5))),
        ("zscore .5", lambda k, v: fusion.fuse(k, v, method="zscore", weights=(0.5, 0.5))),
    ]
    for alpha in (0.2, 0.25, 0.3, 0.35, 0.4):
        fusions.append(
            (
                f"anchored {alpha:g}",
                lambda k, v, a=alpha: fusion.fuse(k, v, method="anchored", weights=(a, 1 - a)),
            )
        )
    title_weights = (1.0, 2.0, 3.0, 5.0)
    print("\nsweep: nDCG@10, rows = fusion (keyword weight), columns = BM25 title weight")
    print(f"{'fusion':<14}" + "".join(f"{f'title x{w:g}':>11}" for w in title_weights))
    keyword = {
        w: {
            q: store.keyword_search(t, limit=depth, weights=(w, 1.0))
            for q, t in zip(qids, query_texts, strict=True)
        }
        for w in title_weights
    }
    print(
        f"{'BM25 only':<14}"
        + "".join(
            f"{evaluate({q: [h.id for h in keyword[w][q]] for q in qids}, qrels)[0]:>11.4f}"
            for w in title_weights
        )
    )
    for name, fn in fusions:
        cells = []
        for w in title_weights:
            runs = {q: [h.id for h in fn(keyword[w][q], vector_hits[q])] for q in qids}
            cells.append(f"{evaluate(runs, qrels)[0]:>11.4f}")
        print(f"{name:<14}" + "".join(cells))


if __name__ == "__main__":
    main()
