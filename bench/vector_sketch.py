"""The vector scan's sketch on real vectors: does ranking on the sketch, then rescoring its shortlist, give the
exact scan's top k, and what does each cost?

    python bench/vector_sketch.py --vectors /tmp/facts-time-cache/all-MiniLM-L6-v2-onnx-int8.sqlite
    python bench/vector_sketch.py --vectors /tmp/scifact-cache/vectors-all-MiniLM-L6-v2-onnx-int8.npz --sketch-rows 1000

``--vectors`` is an embedding cache another bench wrote (real vectors of the bundled model): a
``bench/embedding_cache.py`` SQLite file (table ``v``, one float32 blob per text) or an ``.npz`` with a
``vectors`` array. The vectors are shuffled (seeded); the first ``--queries`` are the queries, the next
``--rows`` the nodes (one passage each) of one :class:`graphlore.store.sqlite.engine.Part`. Each query is
searched alone (``limit`` 10 and 100) on the exact scan and on the sketch; printed: recall of the exact
top k, the share of queries whose list is identical (ids and order), and the CPU time per search.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sqlite3  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from graphlore.store.sqlite import engine  # noqa: E402


def load(path: Path, count: int) -> np.ndarray:
    if path.suffix == ".npz":
        return np.load(path)["vectors"][:count].astype(np.float32)
    conn = sqlite3.connect(path)
    return np.vstack([np.frombuffer(b, dtype=np.float32) for (b,) in conn.execute("SELECT b FROM v LIMIT ?", (count,))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vectors", type=Path, required=True, help="an embedding cache (.sqlite or .npz)")
    parser.add_argument("--rows", type=int, default=100_000, help="nodes (default 100000, or all the file has)")
    parser.add_argument("--queries", type=int, default=300, help="queries (default 300)")
    parser.add_argument("--sketch-rows", type=int, default=engine.SKETCH_ROWS,
                        help=f"sketch slices from this many rows (the store's: {engine.SKETCH_ROWS}); lower it to "
                             "sketch a smaller file (the shortlist is then a larger share of the rows)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    vectors = load(args.vectors, args.rows + args.queries)
    np.random.default_rng(args.seed).shuffle(vectors)
    queries, matrix = vectors[: args.queries], vectors[args.queries :]
    part = engine.Part([(i + 1, f"n{i}", "node") for i in range(len(matrix))],
                       {i + 1: [row.tobytes()] for i, row in enumerate(matrix)}, matrix.shape[1])
    began = time.process_time()
    part.sketch()
    print(f"{len(matrix)} rows x {matrix.shape[1]} from {args.vectors}, {len(queries)} queries; sketch "
          f"{engine.SKETCH_DIM} dimensions, made in {time.process_time() - began:.2f} s CPU; shortlist "
          f"max({engine.SHORTLIST_MIN}, {engine.SHORTLIST_FACTOR} x limit)")
    sketch_rows = args.sketch_rows
    for limit in (10, 100):
        found, cpu = {}, {}
        for name, rows in (("exact", 1 << 62), ("sketch", sketch_rows)):
            engine.SKETCH_ROWS = rows
            lists, spent = [], []
            for q in range(len(queries)):
                used = time.process_time()
                hits = part.search(queries, [q], "node", None, limit).get(q, [])
                spent.append(time.process_time() - used)
                lists.append([p for p, _ in hits])
            found[name], cpu[name] = lists, spent
        engine.SKETCH_ROWS = sketch_rows
        sketched = "exact scan (the slice is too small to sketch)" if len(matrix) < sketch_rows else "sketch"
        recall = np.mean([len(set(a) & set(b)) / limit for a, b in zip(found["exact"], found["sketch"], strict=True)])
        same = np.mean([a == b for a, b in zip(found["exact"], found["sketch"], strict=True)])
        print(f"limit {limit:3}: {sketched}: recall of the exact top {limit} {recall:.4f}, identical lists {same:.3f}; "
              f"CPU per search p50 exact {np.median(cpu['exact']) * 1000:.2f} ms, "
              f"sketch {np.median(cpu['sketch']) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
