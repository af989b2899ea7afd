"""GitBugs Hadoop duplicates through the items tools: recall, LIKELY_DUPLICATE precision, score bands.

The Hadoop bug reports become a feature-management tree (``bugs/BUG-<issue id>-slug/``) in a temp dir,
indexed with the ``index`` tool under a temp GRAPHLORE home. Every duplicate pair whose two sides are
both in the CSV is queried in both directions (A->B and B->A: a new report can arrive on either side):

* ``get_similar(item_id=A, limit=10)``: Recall@1/5/10 of B;
* ``check_duplicates(title, description of A)``: Recall@1/5/10 of B with A itself dropped from the list,
  and the precision of LIKELY_DUPLICATE / POSSIBLY_RELATED over the listed candidates (A dropped). A
  candidate is a true duplicate when the pair is in the duplicate CSV (either direction) or both are in
  the same duplicate cluster (transitive closure of the CSV).

Recall from ``check_duplicates`` needs every candidate listed whatever its score, so that pass calls the
tool with ``threshold=0.15`` (band floor 0.0) and a ranking whose ``max_duplicates`` is 100: the tool keeps
the candidates scoring at least ``threshold - 0.15`` and lists 10 of them in its own order, so the list at
any other threshold is that full list filtered and cut at 10, which is how the threshold sweep is
computed. A second pass calls the tool as shipped (default threshold, 10 candidates) and the bench prints
whether the two agree.

``--variants`` re-runs the get_similar / check_duplicates recall with ranking parameters varied in
process (BM25 field weights, candidate depth, fusion method and weights: a variant of the items tools'
:class:`~graphlore.search.HybridParams`, passed to the tools as their ``ranking``), and ranks with
``graphlore.search.hybrid_search`` directly under other BM25 query texts (title only, title + the start
of the description), to see what would move Recall@10; ``src/`` is not changed.

Run: ``python bench/items_duplicates.py [--variants] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import random
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from graphlore.config import Settings
from graphlore.runtime import Runtime
from graphlore.search import HybridParams, hybrid_search
from graphlore.toolsets.items import tools
from graphlore.toolsets.items.index import KIND, ItemIndex
from graphlore.toolsets.items.models import CheckDuplicatesRequest, GetSimilarRequest, IndexRequest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "gitbugs" / "hadoop"
KS = (1, 5, 10)
SWEEP = (0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90)
BAND = tools.RELATED_BAND
SHOWN = 10  # candidates check_duplicates lists as shipped


@dataclass(frozen=True)
class Bug:
    issue_id: str
    title: str
    description: str
    status: str
    priority: str

    @property
    def item_id(self) -> str:
        return f"BUG-{self.issue_id}"


def load_bugs() -> dict[str, Bug]:
    csv.field_size_limit(10**9)
    with (DATA / "hadoop_bugs.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return {
        r["Issue id"]: Bug(r["Issue id"], r["Summary"].strip(), r["Description"].strip(), r["Status"], r["Priority"])
        for r in rows
    }


def load_pairs(present: set[str]) -> tuple[list[tuple[str, str]], int]:
    """Unordered duplicate pairs with both sides present (sorted), and how many CSV links were dropped."""
    csv.field_size_limit(10**9)
    pairs: set[tuple[str, str]] = set()
    dropped = 0
    with (DATA / "hadoop_bugs-combined.csv").open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            for other in (p.strip() for p in row["Duplicate id"].split(",")):
                if not other or other == row["Issue id"]:
                    continue
                if row["Issue id"] in present and other in present:
                    pairs.add(tuple(sorted((row["Issue id"], other))))
                else:
                    dropped += 1
    return sorted(pairs), dropped


def clusters(pairs: list[tuple[str, str]]) -> dict[str, int]:
    """Issue id -> cluster number (connected components of the duplicate links)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        parent[find(a)] = find(b)
    roots: dict[str, int] = {}
    return {x: roots.setdefault(find(x), len(roots)) for x in list(parent)}


def slug(title: str) -> str:
    words = re.findall(r"[a-z0-9]+", title.lower())
    return "-".join(words)[:48].strip("-") or "untitled"


def write_tree(root: Path, bugs: dict[str, Bug]) -> None:
    for bug in bugs.values():
        folder = root / "bugs" / f"{bug.item_id}-{slug(bug.title)}"
        folder.mkdir(parents=True)
        report = {"id": bug.item_id, "title": bug.title, "description": bug.description,
                  "status": bug.status, "priority": bug.priority}
        (folder / "bug_report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
        (folder / "PROMPT.md").write_text("", encoding="utf-8")


def pct(values: list[float], qs=(5, 25, 50, 75, 95)) -> str:
    if not values:
        return "n/a"
    arr = np.asarray(values, dtype=float)
    return "  ".join(f"p{q}={np.percentile(arr, q):.3f}" for q in qs) + f"  (n={len(values)})"


def ms(values: list[float]) -> str:
    arr = np.asarray(values, dtype=float) * 1000
    return f"p50={np.percentile(arr, 50):.1f} ms  p95={np.percentile(arr, 95):.1f} ms"


class Bench:
    def __init__(self, runtime: Runtime, project: Path, bugs: dict[str, Bug], pairs: list[tuple[str, str]]):
        self.runtime = runtime
        self.project = str(project)
        self.bugs = bugs
        self.cluster = clusters(pairs)
        # Directed queries: (query side, the other side).
        self.queries = [(a, b) for a, b in pairs] + [(b, a) for a, b in pairs]
        #: what the tools are called with (graphlore's ranking, or a variant)
        self.ranking = tools.RANKING

    def is_dup(self, a_item: str, b_item: str) -> bool:
        a, b = a_item.removeprefix("BUG-"), b_item.removeprefix("BUG-")
        return a in self.cluster and self.cluster.get(a) == self.cluster.get(b)

    def similar(self, issue_id: str, limit: int) -> tuple[list[tuple[str, float]], float]:
        request = GetSimilarRequest(item_id=f"BUG-{issue_id}", project_path=self.project, limit=limit)
        t0 = time.perf_counter()
        response = tools.get_similar(self.runtime, request, ranking=self.ranking)
        return [(s.item_id, s.similarity_score) for s in response.similar_items], time.perf_counter() - t0

    def duplicates(self, issue_id: str, threshold: float | None) -> tuple[list[tuple[str, float, str]], float]:
        """Candidates (id, score, recommendation) as listed, the query's own item included, and the call time."""
        bug = self.bugs[issue_id]
        request = CheckDuplicatesRequest(
            title=bug.title, description=bug.description, project_path=self.project, threshold=threshold
        )
        t0 = time.perf_counter()
        response = tools.check_duplicates(self.runtime, request, ranking=self.ranking)
        took = time.perf_counter() - t0
        return [(c.item_id, c.similarity_score, c.recommendation) for c in response.potential_duplicates], took


def without(candidates: list, issue_id: str) -> list:
    """``candidates`` with the query's own item dropped (it is in the index, a new report would not be)."""
    return [c for c in candidates if c[0] != f"BUG-{issue_id}"]


def recall(ranked_lists: list[list[str]], targets: list[str]) -> dict[int, float]:
    return {k: sum(t in r[:k] for r, t in zip(ranked_lists, targets, strict=True)) / len(targets) for k in KS}


def fmt_recall(r: dict[int, float]) -> str:
    return "  ".join(f"R@{k}={r[k]:.3f}" for k in KS)


def run_similar(bench: Bench, limit: int = 10) -> tuple[dict[int, float], list[float], list[list[tuple[str, float]]]]:
    lists, times = [], []
    for a, _ in bench.queries:
        got, took = bench.similar(a, limit)
        lists.append(got)
        times.append(took)
    targets = [f"BUG-{b}" for _, b in bench.queries]
    return recall([[i for i, _ in g] for g in lists], targets), times, lists


@contextmanager
def ranked_with(bench: Bench, **changes) -> Iterator[None]:
    """The bench's tool calls, within the block, with ``changes`` to its ranking (then the ranking it had)."""
    old = bench.ranking
    bench.ranking = replace(old, **changes)
    try:
        yield
    finally:
        bench.ranking = old


def band_at(ranked: list[tuple[str, float]], threshold: float, issue_id: str,
            top_match: float = tools.TOP_MATCH) -> list[tuple[str, float, str]]:
    """What check_duplicates lists at ``threshold`` for a new report (not in the index): its full list with
    the own item dropped first, so the best-ranked other item is the top match (``tools.TOP_MATCH``)."""
    ranked = without(ranked, issue_id)
    top = ranked[0][0] if ranked else None

    def likely(i: str, s: float) -> bool:
        return s >= threshold or (i == top and s >= top_match)

    in_band = [(i, s) for i, s in ranked if likely(i, s) or s >= threshold - BAND]
    kept = sorted(in_band, key=lambda c: not likely(*c))[:SHOWN - 1]  # as the tool, with one place for the own item
    return [(i, s, "LIKELY_DUPLICATE" if likely(i, s) else "POSSIBLY_RELATED") for i, s in kept]


def precision(bench: Bench, queries: list[str], ranked: dict[str, list[tuple[str, float]]], threshold: float) -> str:
    out = []
    for label in ("LIKELY_DUPLICATE", "POSSIBLY_RELATED"):
        flagged = [(q, i) for q in queries for i, _, rec in band_at(ranked[q], threshold, q) if rec == label]
        true = sum(bench.is_dup(f"BUG-{q}", i) for q, i in flagged)
        share = f"{true / len(flagged):.3f}" if flagged else "n/a"
        out.append(f"{label} precision={share} ({true}/{len(flagged)})")
    return "  ".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", action="store_true", help="also measure recall with ranking parameters varied")
    parser.add_argument("--all-queries", action="store_true",
                        help="also run check_duplicates for every bug (precision over all items as queries)")
    parser.add_argument("--sample", type=int,
                        help="quick run: only the bugs in duplicate pairs plus this many others (default: all)")
    parser.add_argument("--show-false", type=int, default=0, metavar="N",
                        help="print the N best-scoring LIKELY_DUPLICATE candidates the labels call false")
    parser.add_argument("--fit", action="store_true",
                        help="fit the LIKELY_DUPLICATE threshold by cross-validation on half the duplicate clusters "
                             "and report precision and recall on the other half")
    parser.add_argument("--dump", type=Path, help="write the queries and their full ranked lists to this JSON file")
    parser.add_argument("--keep", type=Path, help="build the tree and home here and keep them (default: temp dir)")
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"GitBugs data not found at {DATA}")

    bugs = load_bugs()
    pairs, dropped = load_pairs(set(bugs))
    if args.sample is not None:
        in_pairs = {x for pair in pairs for x in pair}
        others = sorted(set(bugs) - in_pairs)
        keep = in_pairs | set(random.Random(0).sample(others, min(args.sample, len(others))))
        bugs = {k: v for k, v in bugs.items() if k in keep}
    work = args.keep or Path(tempfile.mkdtemp(prefix="graphlore-dups-"))
    project, home = work / "feature-management", work / "home"
    try:
        if not project.exists():
            write_tree(project, bugs)
        runtime = Runtime(Settings.load(env={}, home=home))
        bench = Bench(runtime, project, bugs, pairs)
        print(f"bugs: {len(bugs)}  duplicate pairs with both sides present: {len(pairs)} "
              f"(CSV links dropped, a side missing: {dropped})  clusters: {len(set(bench.cluster.values()))}  "
              f"directed queries: {len(bench.queries)}")

        t0 = time.perf_counter()
        result = tools.index(runtime, IndexRequest(project_path=str(project)))
        took = time.perf_counter() - t0
        print(f"index: status={result.status} items={result.items_indexed} wall={took:.1f} s "
              f"({result.items_indexed / took:.1f} items/s) duration_ms={result.duration_ms} "
              f"warnings={len(result.warnings)}")

        # -- get_similar ----------------------------------------------------------------
        tools.get_similar(runtime, GetSimilarRequest(item_id=f"BUG-{pairs[0][0]}", project_path=str(project)))
        r_sim, t_sim, _ = run_similar(bench, 10)
        print(f"\nget_similar(limit=10): {fmt_recall(r_sim)}  latency {ms(t_sim)}")

        # -- check_duplicates, full ranking (threshold 0.15 -> band floor 0.0, up to 100 listed) -------
        issue_ids = list(dict.fromkeys(a for a, _ in bench.queries))
        if args.all_queries:
            issue_ids += [i for i in bugs if i not in set(issue_ids)]
        ranked: dict[str, list[tuple[str, float]]] = {}
        with ranked_with(bench, max_duplicates=100):
            for issue_id in issue_ids:
                got, _ = bench.duplicates(issue_id, threshold=BAND)
                ranked[issue_id] = [(i, s) for i, s, _ in got]
        targets = [f"BUG-{b}" for _, b in bench.queries]
        r_dup = recall([[i for i, _ in without(ranked[a], a)] for a, _ in bench.queries], targets)
        print(f"check_duplicates (own item dropped, all scores listed): {fmt_recall(r_dup)}")

        # -- check_duplicates as shipped (default threshold, 10 listed) ------------------------
        times, mismatches = [], 0
        pair_queries = list(dict.fromkeys(a for a, _ in bench.queries))
        default = tools.load_project_config(project).duplicate_similarity_threshold
        shipped: dict[str, list[tuple[str, float, str]]] = {}
        for issue_id in pair_queries:
            got, took = bench.duplicates(issue_id, threshold=None)
            times.append(took)
            shipped[issue_id] = without(got, issue_id)
            simulated = band_at(ranked[issue_id], default, issue_id)
            mismatches += [(i, r) for i, _, r in shipped[issue_id]] != [(i, r) for i, _, r in simulated]
        r_shipped = recall([[i for i, _, _ in shipped[a]] for a, _ in bench.queries], targets)
        print(f"check_duplicates as shipped (threshold {default}, <=10 listed incl. own item): "
              f"{fmt_recall(r_shipped)}  latency {ms(times)}")
        print(f"  sweep simulation vs real call at the default threshold: {mismatches} of "
              f"{len(pair_queries)} lists differ")

        print("\nprecision over the duplicate-pair queries (own item dropped):")
        for threshold in SWEEP:
            print(f"  threshold {threshold:.2f}: {precision(bench, pair_queries, ranked, threshold)}")
        if args.all_queries:
            print(f"precision over every bug as a query ({len(bugs)} queries; unlabelled duplicates count as false):")
            for threshold in SWEEP:
                print(f"  threshold {threshold:.2f}: {precision(bench, list(bugs), ranked, threshold)}")

        # -- score distributions --------------------------------------------------------------
        print("\nsimilarity_score distributions (directed pair queries):")
        true_dup, top_other, missing = [], [], 0
        for a, b in bench.queries:
            scores = dict(ranked[a])
            if f"BUG-{b}" in scores:
                true_dup.append(scores[f"BUG-{b}"])
            else:
                missing += 1
            others = [s for i, s in without(ranked[a], a) if not bench.is_dup(f"BUG-{a}", i)]
            if others:
                top_other.append(max(others))
        print(f"  check_duplicates, true duplicate:          {pct(true_dup)}  (not in top 100: {missing})")
        print(f"  check_duplicates, best non-duplicate:      {pct(top_other)}")
        sim_true, sim_other, missing = [], [], 0
        for a, b in bench.queries:
            got, _ = bench.similar(a, 100)
            scores = dict(got)
            if f"BUG-{b}" in scores:
                sim_true.append(scores[f"BUG-{b}"])
            else:
                missing += 1
            others = [s for i, s in got if not bench.is_dup(f"BUG-{a}", i)]
            if others:
                sim_other.append(max(others))
        print(f"  get_similar, true duplicate:               {pct(sim_true)}  (not in top 100: {missing})")
        print(f"  get_similar, best non-duplicate:           {pct(sim_other)}")
        for name, pos, neg in (("check_duplicates", true_dup, top_other), ("get_similar", sim_true, sim_other)):
            cells = []
            for t in SWEEP:
                cells.append(f">={t:.2f}: dup {np.mean(np.array(pos) >= t):.2f} / non-dup {np.mean(np.array(neg) >= t):.2f}")
            print(f"  {name} share of queries at or above: " + "; ".join(cells))

        if args.dump:
            args.dump.write_text(json.dumps({"queries": bench.queries, "ranked": ranked, "cluster": bench.cluster}))
        if args.fit:
            fit_threshold(bench, ranked, default)
        if args.show_false:
            show_false(bench, pair_queries, ranked, default, args.show_false)
        if args.variants:
            run_variants(bench, ranked_keys=pair_queries)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


#: thresholds the fit tries
GRID = tuple(round(0.5 + 0.01 * i, 2) for i in range(46))
FOLDS = 5


def flagged_at(bench: Bench, ranked: dict, queries: list[tuple[str, str]], rule: tuple[float, float]
               ) -> tuple[int, int, int]:
    """(LIKELY_DUPLICATE candidates listed, of them true duplicates, directed queries whose other side is
    among them) over ``queries`` with ``rule`` = (threshold, top match threshold)."""
    listed = true = found = 0
    for a, b in queries:
        likely = [i for i, _, rec in band_at(ranked[a], rule[0], a, rule[1]) if rec == "LIKELY_DUPLICATE"]
        listed += len(likely)
        true += sum(bench.is_dup(f"BUG-{a}", i) for i in likely)
        found += f"BUG-{b}" in likely
    return listed, true, found


def scores_at(bench: Bench, ranked: dict, queries: list[tuple[str, str]], rule: tuple[float, float]
              ) -> tuple[float, float, float]:
    """(precision, recall, F1) of LIKELY_DUPLICATE under ``rule``: precision over the candidates it marks
    (a candidate is true when the labels say so: unlabelled duplicates count as false), recall over the
    directed queries (the other side marked)."""
    listed, true, found = flagged_at(bench, ranked, queries, rule)
    p = true / listed if listed else 1.0
    r = found / len(queries) if queries else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def best_rule(bench: Bench, ranked: dict, queries: list[tuple[str, str]], rules: list[tuple[float, float]]
              ) -> tuple[float, float]:
    """The rule with the highest F1 on ``queries`` (the stricter one on a tie: fewer false alarms)."""
    return max(rules, key=lambda rule: (round(scores_at(bench, ranked, queries, rule)[2], 9), rule))


def fit_threshold(bench: Bench, ranked: dict, default: float) -> None:
    """Split the duplicate clusters in two (seeded): fit on one half by 5-fold cross-validation (folds by
    cluster, so no pair is on both sides of a fold), then report the other half, which nothing saw. Three
    rule families: the threshold alone (no top-match rule), the top-match threshold with the threshold at
    ``default``, and both free."""
    cluster_ids = sorted(set(bench.cluster.values()))
    random.Random(21).shuffle(cluster_ids)
    fit_clusters = set(cluster_ids[: len(cluster_ids) // 2])
    fit_q = [q for q in bench.queries if bench.cluster[q[0]] in fit_clusters]
    held_q = [q for q in bench.queries if bench.cluster[q[0]] not in fit_clusters]
    fit_ids = [c for c in cluster_ids if c in fit_clusters]
    folds = [set(fit_ids[i::FOLDS]) for i in range(FOLDS)]
    print(f"\nLIKELY_DUPLICATE fit: {len(fit_clusters)} clusters ({len(fit_q)} directed queries) to fit, "
          f"{len(cluster_ids) - len(fit_clusters)} clusters ({len(held_q)} queries) held out; F1, grid 0.50..0.95")
    families = {
        "threshold alone": [(t, 1.01) for t in GRID],
        f"top match, threshold {default}": [(default, t) for t in GRID if t < default],
        "both": [(t1, t2) for t1 in GRID[::2] for t2 in GRID[::2] if t2 < t1],
    }
    for name, rules in families.items():
        chosen, cv = [], []
        for fold in folds:
            train = [q for q in fit_q if bench.cluster[q[0]] not in fold]
            test = [q for q in fit_q if bench.cluster[q[0]] in fold]
            rule = best_rule(bench, ranked, train, rules)
            chosen.append(rule)
            cv.append(scores_at(bench, ranked, test, rule))
        mean = np.mean(np.array(cv), axis=0)
        final = best_rule(bench, ranked, fit_q, rules)
        listed, true, found = flagged_at(bench, ranked, held_q, final)
        p, r, f = scores_at(bench, ranked, held_q, final)
        print(f"  {name}: cross-validated precision {mean[0]:.3f} recall {mean[1]:.3f} F1 {mean[2]:.3f} "
              f"(folds chose {sorted(set(chosen))}); fitted on the fit half: threshold {final[0]:.2f}, top match "
              f"{final[1]:.2f}; held out: precision {p:.3f} ({true}/{listed}) recall {r:.3f} ({found}/{len(held_q)}) "
              f"F1 {f:.3f}")
    shipped = (default, tools.TOP_MATCH)
    listed, true, found = flagged_at(bench, ranked, held_q, shipped)
    p, r, f = scores_at(bench, ranked, held_q, shipped)
    print(f"  as shipped (threshold {default}, top match {tools.TOP_MATCH}), held out: precision {p:.3f} "
          f"({true}/{listed}) recall {r:.3f} ({found}/{len(held_q)}) F1 {f:.3f}")


def show_false(bench: Bench, queries: list[str], ranked: dict, threshold: float, n: int) -> None:
    """The highest-scoring false LIKELY_DUPLICATE pairs, titles side by side, to judge label noise by eye."""
    seen: set[frozenset] = set()
    flagged = []
    for q in queries:
        for item_id, score, rec in band_at(ranked[q], threshold, q):
            pair = frozenset((f"BUG-{q}", item_id))
            if rec == "LIKELY_DUPLICATE" and not bench.is_dup(f"BUG-{q}", item_id) and pair not in seen:
                seen.add(pair)
                flagged.append((score, q, item_id.removeprefix("BUG-")))
    print(f"\nhighest-scoring LIKELY_DUPLICATE candidates labelled not duplicate (threshold {threshold}):")
    for score, q, other in sorted(flagged, reverse=True)[:n]:
        print(f"  {score:.3f}  {q}: {bench.bugs[q].title[:70]!r}\n         {other}: {bench.bugs[other].title[:70]!r}")


def run_variants(bench: Bench, ranked_keys: list[str]) -> None:
    """Recall@k under varied ranking parameters (passed to the tools; the index is reused)."""
    shipped = tools.RANKING.hybrid
    print(f"\nvariants (get_similar / check_duplicates recall, own item dropped); shipped: {shipped}")
    targets = [f"BUG-{b}" for _, b in bench.queries]

    def measure(label: str, params: HybridParams) -> None:
        with ranked_with(bench, hybrid=params):
            r_sim, _, _ = run_similar(bench, 10)
            with ranked_with(bench, max_duplicates=100):
                lists = {q: [c[0] for c in without(bench.duplicates(q, threshold=BAND)[0], q)] for q in ranked_keys}
        r_dup = recall([lists[a] for a, _ in bench.queries], targets)
        print(f"  {label:<44} similar {fmt_recall(r_sim)} | dups {fmt_recall(r_dup)}")

    for weights in ((1.0, 1.0), (2.0, 1.0), (6.0, 1.0)):
        measure(f"field_weights={weights}", replace(shipped, field_weights=weights))
    for depth in (50, 200):
        measure(f"candidates={depth}", replace(shipped, candidates=depth))
    for label, options in FUSIONS:
        measure(f"fuse {label}", replace(shipped, **options))

    # Query text: rank with hybrid_search directly, the source's stored first passage as the query vector
    # (what both tools use: check_duplicates embeds the same title + description), in fused order.
    store = ItemIndex(bench.runtime, bench.project).ensure_fresh()
    sources = {n.id: n for n in store.get_nodes([f"BUG-{q}" for q in ranked_keys], with_vectors=True)}
    print("query-text variants (hybrid_search, fused order, source's first passage vector, own item dropped):")
    texts = {
        "title + description": lambda n: f"{n.props['title']}\n{n.props['description']}",
        "title only (what get_similar sends)": lambda n: tools.item_keyword_query(n.props["title"], n.props["description"]),
        "title + first 30 words of description":
            lambda n: n.props["title"] + "\n" + " ".join(n.props["description"].split()[:30]),
    }
    for (label, text), (fuse_label, options) in itertools.product(texts.items(), QUERY_TEXT_FUSIONS):
        params = replace(shipped, **options)
        lists = {}
        for q in ranked_keys:
            node = sources[f"BUG-{q}"]
            hits = hybrid_search(store, text(node), node.vectors[:1], kind=KIND, limit=params.candidates + 1,
                                 params=params)
            lists[q] = [h.id for h in hits if h.id != node.id]
        r = recall([lists[a] for a, _ in bench.queries], targets)
        print(f"  {label:<46} {fuse_label:<20} {fmt_recall(r)}")


#: Fusions combined with each query text in ``--variants``.
QUERY_TEXT_FUSIONS = (
    ("anchored (0.3, 0.7)", {"method": "anchored", "weights": (0.3, 0.7)}),
    ("anchored (0.5, 0.5)", {"method": "anchored", "weights": (0.5, 0.5)}),
    ("convex (0.5, 0.5)", {"method": "convex", "weights": (0.5, 0.5)}),
)

#: Fusion settings tried by ``--variants`` (weights are (keyword, vector)).
FUSIONS = (
    ("anchored (0.2, 0.8)", {"method": "anchored", "weights": (0.2, 0.8)}),
    ("anchored (0.3, 0.7)", {"method": "anchored", "weights": (0.3, 0.7)}),
    ("anchored (0.4, 0.6)", {"method": "anchored", "weights": (0.4, 0.6)}),
    ("anchored (0.5, 0.5)", {"method": "anchored", "weights": (0.5, 0.5)}),
    ("convex (0.5, 0.5)", {"method": "convex", "weights": (0.5, 0.5)}),
    ("convex (0.3, 0.7)", {"method": "convex", "weights": (0.3, 0.7)}),
    ("convex (0.7, 0.3)", {"method": "convex", "weights": (0.7, 0.3)}),
    ("zscore (0.5, 0.5)", {"method": "zscore", "weights": (0.5, 0.5)}),
    ("zscore (0.3, 0.7)", {"method": "zscore", "weights": (0.3, 0.7)}),
    ("rrf k=60", {"method": "rrf", "weights": (1.0, 1.0), "k": 60}),
    ("keyword only", {"method": "keyword"}),
    ("vector only", {"method": "vector"}),
)


if __name__ == "__main__":
    main()
