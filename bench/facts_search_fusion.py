"""``search --query`` over short sentences: the cosine alone against BM25 fused with it, as ``Store.rank_edges``
ranks them (what the facts search calls), on data nothing was fitted on.

    python bench/facts_search_fusion.py                    # SQLite (the embedded default)
    GRAPHLORE_DATABASE_URL=postgresql://... python bench/facts_search_fusion.py   # the same on PostgreSQL

The 2,503 GitBugs Hadoop bug summaries (``../shared/data/gitbugs/hadoop/``: one line each, as long as a fact's
sentence) become the sentences of facts around one node, each with its vector (the bundled model). Each
labelled duplicate pair whose two sides are both there is asked both ways: the summary of one side is the
query, the other side the answer, the query's own fact left out of the ranking. Prints Recall@1/5/10 and
MRR@10 for several (keyword, vector) weights of ``rank_edges``: (0, 1) is what ``search --query`` ranked by
before issue 25, (0.3, 0.7) the project's default fusion (``search/fusion.py``, tuned on SciFact, not here).
Also the p50 of one ``rank_edges`` call (wall and CPU, with a query vector given).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import tempfile
import time
from pathlib import Path

from embedding_cache import CachedEmbedder

from graphlore.config import Settings
from graphlore.embedding import OnnxEmbedder
from graphlore.store import Edge
from graphlore.store.factory import open_store

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "gitbugs" / "hadoop"
WEIGHTS = ((0.0, 1.0), (0.3, 0.7), (0.5, 0.5), (1.0, 0.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, metavar="DIR", help="embedding cache folder outside the repo")
    args = parser.parse_args()
    if not (args.data / "hadoop_bugs.csv").is_file():
        sys.exit(f"needs the shared evaluation data at {args.data} (absent on this checkout)")
    bugs = {r["Issue id"]: r["Summary"].strip() for r in csv.DictReader(open(args.data / "hadoop_bugs.csv",
                                                                              encoding="utf-8"))}
    bugs = {k: v for k, v in bugs.items() if v}
    pairs = [(a, b) for a, b in (tuple(r.values()) for r in csv.DictReader(open(args.data / "hadoop_bugs-combined.csv",
                                                                                 encoding="utf-8")))
             if a in bugs and b in bugs and a != b]
    questions = pairs + [(b, a) for a, b in pairs]
    embedder = CachedEmbedder(OnnxEmbedder(), args.cache)
    ids = list(bugs)
    vectors = embedder.embed([bugs[i] for i in ids])
    with tempfile.TemporaryDirectory() as home:
        store = open_store(Settings(home=Path(home)), "facts/fusion-bench", create=True)
        store.upsert_edges([Edge(f"f{i}", "hub", f"bug{i}", "fact", {}, bugs[i], vectors[n], "2020-01-01")
                            for n, i in enumerate(ids)])
        at = {i: n for n, i in enumerate(ids)}
        print(f"{len(ids)} sentences around one node, {len(questions)} questions ({len(pairs)} duplicate pairs both "
              f"ways); backend {type(store).__name__}")
        for weights in WEIGHTS:
            found, reciprocal, took, cpu = {1: 0, 5: 0, 10: 0}, 0.0, [], []
            for query, answer in questions:
                began, began_cpu = time.perf_counter(), time.process_time()
                ranking = store.rank_edges(["hub"], type="fact", text=bugs[query], vector=vectors[at[query]],
                                           weights=weights, limit=11)
                took.append(time.perf_counter() - began)
                cpu.append(time.process_time() - began_cpu)
                ranked = [h.id for h in ranking.hits if h.id != f"f{query}"][:10]
                rank = ranked.index(f"f{answer}") + 1 if f"f{answer}" in ranked else None
                for k in found:
                    found[k] += rank is not None and rank <= k
                reciprocal += 1 / rank if rank else 0.0
            n = len(questions)
            print(f"weights {weights}: Recall@1 {found[1] / n:.3f}, @5 {found[5] / n:.3f}, @10 {found[10] / n:.3f}, "
                  f"MRR@10 {reciprocal / n:.3f}; rank_edges p50 {1000 * statistics.median(took):.1f} ms wall, "
                  f"{1000 * statistics.median(cpu):.1f} ms CPU")
        store.close()


if __name__ == "__main__":
    main()
