"""Skills routing without an LLM: CLINC150 and ABCD through ``route(question) -> skill id | None``.

``route`` is what ``search_skills`` does with the calibrated judge, in process and
without a store: hybrid search (BM25 over each skill's title + problem, conditions
and keywords, FTS5 formula, title weighted 3; best-passage cosine; fused with
``graphsift.retrieval.fuse`` "anchored") gathers ``judge.CANDIDATES`` skills, then
``judge.judge`` picks one or none from each candidate's passage cosines. When the
tool exists, :class:`Router` is the one piece to swap for calls to it.

What it prints (nothing else; progress goes to stderr):

- CLINC150 (``clinc150/data_train_val.json``): one skill per intent of ``train``
  (``imports.intent_skills``); ``val`` routed for in-scope top-1 accuracy (a
  question counts only if the returned skill is its intent), ``oos_val`` for
  out-of-scope recall (no skill returned), both at the shipped judge constants;
  ``oos_train`` as an extra out-of-scope check (never used to fit anything); how
  often the right skill is among the candidates; the floor refitted on ``val``
  (the largest smallest margin over the targets 0.88 / 0.85) and on random halves
  of ``val`` with the other half measured.
- ABCD: the 55 procedures of ``abcd/guidelines.json`` (``imports.load_abcd``) and
  ``bench/data/abcd_questions.jsonl`` (hand-written, labelled with the subflow's
  source id, or null when out of scope): the same figures at the shipped constants.
- ``--variants``: the measurements behind the constants: scoring rules, candidate
  sources, passage layouts (with and without the playbook steps), BM25 in the judge.
- Duplicates: cosines of paraphrase pairs (same CLINC intent, same ABCD subflow)
  and of different pairs, at the level of single texts and of skills (prototype
  cosine of two skills), and how many pairs each threshold flags.
- Latency of ``route`` for single questions (query embedding included) over the
  CLINC library (150 skills, ~15k passages), in process. Timings on the shared
  2-core machine are noisy.

Vectors are cached under ``--cache-dir`` (default /tmp/graphsift-bench-skills),
keyed by model name + sha256 of each text. From nothing a run embeds ~19k texts:
8 min 45 s wall with ``--variants`` on the shared 2 cores (load ~4); with the
cache a run takes ~40 s (``--variants`` adds ~2 min).

    python bench/skills_routing.py [--variants] [--halves 200] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graphsift.embedding import OnnxEmbedder
from graphsift.retrieval import CANDIDATES as FUSION_DEPTH
from graphsift.retrieval import TITLE_FIELD_WEIGHTS, fuse
from graphsift.store.base import Hit
from graphsift.store.keywords import KeywordIndex, TermVector
from graphsift.toolsets.skills import judge as J
from graphsift.toolsets.skills.imports import intent_skills, load_abcd
from graphsift.toolsets.skills.routing import DEFAULT_LAYOUT, LAYOUTS, keyword_document, skill_passages

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
QUESTIONS = REPO / "bench" / "data" / "abcd_questions.jsonl"
IN_TARGET, NULL_TARGET = 0.88, 0.85


# -- vectors, cached ----------------------------------------------------------------------------


class VectorCache:
    """Vectors keyed by model name + sha256 of each text, in one .npz."""

    def __init__(self, embedder: OnnxEmbedder, directory: Path) -> None:
        self.embedder = embedder
        self.path = directory / f"vectors-{embedder.name}.npz"
        self.rows: dict[str, np.ndarray] = {}
        if self.path.exists():
            data = np.load(self.path)
            self.rows = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(
            tmp, keys=np.array(list(self.rows), dtype="U64"), vectors=np.vstack(list(self.rows.values()))
        )
        tmp.replace(self.path)

    def embed(self, texts: Sequence[str], chunk: int = 2048) -> np.ndarray:
        keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        by_key = dict(zip(keys, texts, strict=True))
        missing = [k for k in dict.fromkeys(keys) if k not in self.rows]
        for start in range(0, len(missing), chunk):
            part = missing[start : start + chunk]
            self.rows.update(zip(part, self.embedder.embed([by_key[k] for k in part]), strict=True))
            self.save()
            print(f"  embedded {start + len(part)}/{len(missing)}", file=sys.stderr, flush=True)
        if not keys:
            return np.empty((0, self.embedder.dim), dtype=np.float32)
        return np.vstack([self.rows[k] for k in keys]).astype(np.float32)


# -- data ---------------------------------------------------------------------------------------


def clinc(split: str) -> list[tuple[str, str]]:
    """(text, intent) pairs of one CLINC150 split (the file holds [text, intent] lists)."""
    data = json.loads((DATA / "clinc150" / "data_train_val.json").read_text())
    return [(text, intent) for text, intent in data[split]]


def clinc_library() -> list[dict[str, Any]]:
    return intent_skills(clinc("train"))


def abcd_questions() -> list[tuple[str, str | None]]:
    return [(row["text"], row["source"]) for row in map(json.loads, QUESTIONS.read_text().splitlines())]


# -- the router ---------------------------------------------------------------------------------


class Router:
    """An in-memory skill library: hybrid candidates, then the calibrated judge.

    Skills are identified by their ``source`` (what the importers set), so a
    verdict can be checked against the labels directly.
    """

    def __init__(self, skills: Sequence[Mapping[str, Any]], cache: VectorCache, layout: str = DEFAULT_LAYOUT):
        self.ids = [s["source"] for s in skills]
        passages = [skill_passages(s, layout) for s in skills]
        self.counts = np.array([len(p) for p in passages])
        self.starts = np.r_[0, np.cumsum(self.counts)[:-1]]
        self.vectors = cache.embed([t for p in passages for t in p])
        self.norms = np.array(
            [J.centroid_norm(self.vectors[s : s + n]) for s, n in zip(self.starts, self.counts, strict=True)]
        )
        documents = [TermVector.of(*keyword_document(s)) for s in skills]
        self.keywords = KeywordIndex(len(skills), list(range(len(skills))), documents)
        self.cache = cache

    def cosines(self, query: np.ndarray, index: int) -> np.ndarray:
        start, count = self.starts[index], self.counts[index]
        return self.vectors[start : start + count] @ query

    def candidates(
        self, query: np.ndarray, text: str, source: str = "hybrid", limit: int = J.CANDIDATES
    ) -> list[int]:
        """Skill indexes: ``hybrid`` (as search_skills), ``vector`` (best passage only) or ``all``."""
        if source == "all":
            return list(range(len(self.ids)))
        best = np.maximum.reduceat(self.vectors @ query, self.starts)
        top = np.argsort(-best, kind="stable")[:FUSION_DEPTH]
        vector_hits = [Hit(str(i), float(best[i])) for i in top]
        if source == "vector":
            return [int(h.id) for h in vector_hits[:limit]]
        bm25, matched = self.keywords.scores(text, TITLE_FIELD_WEIGHTS)
        ranked = np.flatnonzero(matched)[np.argsort(-bm25[matched], kind="stable")][:FUSION_DEPTH]
        keyword_hits = [Hit(str(i), float(bm25[i])) for i in ranked]
        return [int(h.id) for h in fuse(keyword_hits, vector_hits, "anchored")[:limit]]

    def verdict(self, query: np.ndarray, text: str, source: str = "hybrid", **judge_args: float) -> J.Verdict:
        picked = self.candidates(query, text, source)
        found = [J.Candidate(self.ids[i], self.cosines(query, i), float(self.norms[i])) for i in picked]
        return J.judge(found, **judge_args)

    def route(self, question: str) -> str | None:
        """The skill id search_skills would return for ``question``, or None (embeds the question)."""
        query = self.cache.embedder.embed([question])[0]
        return self.verdict(query, question).skill_id


# -- measuring ----------------------------------------------------------------------------------

Labelled = list[tuple[str, str | None]]  # (question, expected skill id or None)


def records(
    router: Router, questions: Labelled, cache: VectorCache
) -> list[tuple[str | None, float, str | None]]:
    """(best candidate id, its soft score, expected id) per question: the shipped judge with no floor."""
    vectors = cache.embed([q for q, _ in questions])
    out = []
    for (text, expected), vector in zip(questions, vectors, strict=True):
        v = router.verdict(vector, text, floor=-np.inf)
        out.append((v.best, v.soft, expected))
    return out


def at_floor(recs: Sequence[tuple[str | None, float, str | None]], floor: float) -> tuple[float, float]:
    """(in-scope top-1 accuracy, out-of-scope null rate) when the judge abstains below ``floor``."""
    inside = [(best, soft, want) for best, soft, want in recs if want is not None]
    outside = [soft for _, soft, want in recs if want is None]
    accuracy = sum(best == want and soft >= floor for best, soft, want in inside) / max(len(inside), 1)
    null = sum(soft < floor for soft in outside) / max(len(outside), 1)
    return accuracy, null


def fit_floor(recs: Sequence[tuple[str | None, float, str | None]]) -> float:
    """The floor with the largest smallest margin over the two targets (ties: the lower floor)."""
    floors = sorted({round(soft, 4) for _, soft, _ in recs})
    margins = [min(a - IN_TARGET, n - NULL_TARGET) for a, n in (at_floor(recs, f) for f in floors)]
    return floors[int(np.argmax(margins))]


def best_at_null(recs: Sequence[tuple[str | None, float, str | None]], null: float) -> tuple[float, float]:
    """(best in-scope accuracy with null >= ``null`` at one floor, that floor)."""
    best = (0.0, float("nan"))
    for floor in sorted({round(soft, 4) for _, soft, _ in recs}):
        accuracy, n = at_floor(recs, floor)
        if n >= null and accuracy > best[0]:
            best = (accuracy, floor)
    return best


def candidate_recall(router: Router, questions: Labelled, cache: VectorCache, source: str) -> float:
    vectors = cache.embed([q for q, _ in questions])
    hits = [
        want in {router.ids[i] for i in router.candidates(v, q, source)}
        for (q, want), v in zip(questions, vectors, strict=True)
        if want is not None
    ]
    return sum(hits) / len(hits)


def halves(recs: list, splits: int, seed: int = 0) -> str:
    """Refit the floor on a random half of in-scope and of out-of-scope questions; measure the other half."""
    rng = np.random.default_rng(seed)
    inside = [r for r in recs if r[2] is not None]
    outside = [r for r in recs if r[2] is None]
    rows = []
    for _ in range(splits):
        i, o = rng.permutation(len(inside)), rng.permutation(len(outside))
        fit = [inside[j] for j in i[: len(i) // 2]] + [outside[j] for j in o[: len(o) // 2]]
        held = [inside[j] for j in i[len(i) // 2 :]] + [outside[j] for j in o[len(o) // 2 :]]
        floor = fit_floor(fit)
        rows.append((floor, *at_floor(held, floor)))
    a = np.array(rows)
    both = np.mean((a[:, 1] >= IN_TARGET) & (a[:, 2] >= NULL_TARGET))
    return (
        f"floor {np.percentile(a[:, 0], 5):.3f}-{np.percentile(a[:, 0], 95):.3f} (5th-95th pct); held-out half: "
        f"in-scope {a[:, 1].mean():.3f} (5th pct {np.percentile(a[:, 1], 5):.3f}), "
        f"null {a[:, 2].mean():.3f} (5th pct {np.percentile(a[:, 2], 5):.3f}); both targets met in {both:.0%}"
    )


def report(
    name: str, router: Router, questions: Labelled, cache: VectorCache, extra: Labelled | None = None
) -> list:
    recs = records(router, questions, cache)
    accuracy, null = at_floor(recs, J.FLOOR)
    n_in = sum(want is not None for _, want in questions)
    print(
        f"{name}: {len(router.ids)} skills, {int(router.counts.sum())} passages; "
        f"{n_in} in-scope and {len(questions) - n_in} out-of-scope questions"
    )
    print(
        f"  shipped judge (floor {J.FLOOR}, tau {J.TAU}, prototype k {J.PROTOTYPE_K:g}): "
        f"in-scope top-1 {accuracy:.3f}, out-of-scope null {null:.3f}"
    )
    ranked = sum(best == want for best, _, want in recs if want is not None) / n_in
    print(
        f"  top-1 without abstaining {ranked:.3f}; right skill among the {J.CANDIDATES} hybrid candidates "
        f"{candidate_recall(router, questions, cache, 'hybrid'):.3f}"
    )
    if extra:
        print(
            f"  extra out-of-scope check ({len(extra)} never fitted on): null "
            f"{at_floor(records(router, extra, cache), J.FLOOR)[1]:.3f}"
        )
    return recs


# -- variants (the measurements behind the constants) -------------------------------------------

Scored = list[tuple[str | None, list[tuple[str, float, float, float]]]]  # expected, [(id, soft, rank, bm25)]


def scored(
    router: Router, questions: Labelled, cache: VectorCache, source: str = "hybrid", **judge_args: float
) -> Scored:
    """Each question's candidates with their soft and rank scores and max-scaled BM25, for offline rules."""
    tau, k = judge_args.get("tau", J.TAU), judge_args.get("k", J.PROTOTYPE_K)
    out: Scored = []
    for (text, want), vector in zip(questions, cache.embed([q for q, _ in questions]), strict=True):
        picked = router.candidates(vector, text, source)
        bm25 = router.keywords.scores(text, TITLE_FIELD_WEIGHTS)[0][picked]
        top = bm25.max() if bm25.size and bm25.max() > 0 else 1.0
        rows = []
        for i, b in zip(picked, bm25, strict=True):
            cos = router.cosines(vector, i)
            rows.append(
                (
                    router.ids[i],
                    J.soft_match(cos, tau),
                    J.rank_score(cos, float(router.norms[i]), tau, k),
                    b / top,
                )
            )
        out.append((want, rows))
    return out


def decide(
    cands: list[tuple[str, float, float, float]], gate: str = "soft", bm25: float = 0.0
) -> tuple[str | None, float, float]:
    """(winner by rank score (+ bm25 weight), its gate score, its margin in gate score over the runner-up)."""
    order = sorted(cands, key=lambda c: (-(c[2] + bm25 * c[3]), c[0]))
    column = 1 if gate == "soft" else 2
    runner = order[1][column] if len(order) > 1 else -1.0
    return order[0][0], order[0][column], order[0][column] - runner


def rule_records(data: Scored, **kwargs: Any) -> list[tuple[str | None, float, str | None]]:
    return [(*decide(c, **kwargs)[:2], want) for want, c in data]


def margin_best(data: Scored, null: float) -> tuple[float, float, float]:
    """Best in-scope accuracy with null >= ``null`` over a floor x margin grid: (accuracy, floor, margin)."""
    rows = [(*decide(c), want) for want, c in data]
    best = (0.0, float("nan"), float("nan"))
    for margin in (0.0, 0.005, 0.01, 0.02, 0.03, 0.05):
        recs = [(b if m >= margin else None, s if m >= margin else -1.0, w) for b, s, m, w in rows]
        accuracy, floor = best_at_null(recs, null)
        if accuracy > best[0]:
            best = (accuracy, floor, margin)
    return best


def variants(
    name: str, router: Router, questions: Labelled, cache: VectorCache, clinc: dict[str, Scored] | None
) -> dict[str, Scored]:
    """Print the measured alternatives; with ``clinc`` (what the CLINC call returned), also at CLINC's floors."""
    print(
        f"{name} variants: in-scope top-1 at the best floor with null >= {NULL_TARGET}"
        + (" | at the floor fitted on CLINC val" if clinc else "")
    )
    rules = {
        "nearest passage (tau->0, k=0)": (dict(tau=1e-4, k=0.0), "soft"),
        "soft match only (k=0)": (dict(k=0.0), "soft"),
        "prototype only, floor on it": (dict(k=1e-9), "rank"),
        "rank score, floor on rank score": ({}, "rank"),
        "shipped: rank score, floor on soft": ({}, "soft"),
    }
    mine: dict[str, Scored] = {}
    shipped: Scored = []
    for label, (args, gate) in rules.items():
        data = scored(router, questions, cache, **args)
        recs = rule_records(data, gate=gate)
        accuracy, floor = best_at_null(recs, NULL_TARGET)
        line = f"  {label:36s} {accuracy:.3f} (floor {floor:.3f})"
        if clinc is not None:
            transfer = fit_floor(rule_records(clinc[label], gate=gate))
            a, n = at_floor(recs, transfer)
            line += f" | CLINC floor {transfer:.3f}: {a:.3f} / null {n:.3f}"
        mine[label] = data
        print(line)
        shipped = data
    accuracy, floor, margin = margin_best(shipped, NULL_TARGET)
    print(
        f"  {'shipped + margin over the runner-up':36s} {accuracy:.3f} (floor {floor:.3f}, best margin {margin})"
    )
    for weight in (0.1, 0.3):
        recs = rule_records(shipped, bm25=weight)
        print(
            f"  {f'shipped + BM25 x {weight} in the rank':36s} {best_at_null(recs, NULL_TARGET)[0]:.3f}; "
            f"top-1 without abstaining {sum(b == w for b, _, w in recs if w) / sum(1 for *_, w in recs if w):.3f}"
        )
    for source in ("vector", "all"):
        recs = rule_records(scored(router, questions, cache, source=source))
        a, n = at_floor(recs, J.FLOOR)
        print(
            f"  {f'candidates: {source} (shipped judge)':36s} {best_at_null(recs, NULL_TARGET)[0]:.3f}; "
            f"at the shipped floor {a:.3f} / null {n:.3f}"
        )
    return mine


def layouts(skills: list[dict[str, Any]], questions: Labelled, cache: VectorCache) -> None:
    print(
        "ABCD passage layouts (does embedding the steps help?): top-1 without abstaining | at the shipped floor"
    )
    for layout in LAYOUTS:
        router = Router(skills, cache, layout)
        recs = records(router, questions, cache)
        top1 = sum(b == w for b, _, w in recs if w is not None) / sum(w is not None for _, _, w in recs)
        a, n = at_floor(recs, J.FLOOR)
        print(f"  {layout:18s} {int(router.counts.sum()):5d} passages: {top1:.3f} | {a:.3f} / null {n:.3f}")


# -- duplicates ---------------------------------------------------------------------------------


def share_above(values: np.ndarray, thresholds: Sequence[float]) -> str:
    return ", ".join(f">={t:.2f}: {np.mean(values >= t):.3f}" for t in thresholds)


def duplicates(cache: VectorCache, abcd: list[dict[str, Any]], seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    thresholds = (0.80, 0.85, 0.90, 0.95)
    rows = clinc("val")
    vectors = cache.embed([t for t, _ in rows])
    intents = np.array([i for _, i in rows])
    a, b = rng.integers(0, len(rows), 20000), rng.integers(0, len(rows), 20000)
    keep = a != b
    same = intents[a] == intents[b]
    cos = np.einsum("ij,ij->i", vectors[a], vectors[b])
    print(
        "duplicates: cosine of two texts (CLINC val, 20k random pairs); share of pairs at or above each threshold"
    )
    for label, mask in (("same intent", keep & same), ("different intents", keep & ~same)):
        v = cos[mask]
        print(
            f"  {label:18s} n={mask.sum():5d} p50 {np.median(v):.3f} p95 {np.percentile(v, 95):.3f} "
            f"p99 {np.percentile(v, 99):.3f} max {v.max():.3f}; {share_above(v, thresholds)}"
        )
    # skills: two skills of one intent from disjoint examples vs skills of two intents. Only the examples
    # are embedded: an imported intent's title and problem come from its label, so two skills of one
    # intent would share them word for word, which a real near-duplicate does not.
    train = clinc("train")
    by_intent: dict[str, list[str]] = {}
    for text, intent in train:
        by_intent.setdefault(intent, []).append(text)
    names = sorted(by_intent)
    print("duplicates: prototype cosine of two skills made of n different examples each (CLINC train)")
    for n in (1, 3, 10):
        protos = {}
        for intent in names:
            examples = rng.permutation(by_intent[intent])
            for half, part in enumerate((examples[:n], examples[n : 2 * n])):
                v = cache.embed(list(part)).mean(axis=0)
                protos[(intent, half)] = v / np.linalg.norm(v)
        same_v = np.array([protos[(i, 0)] @ protos[(i, 1)] for i in names])
        diff_v = np.array([protos[(i, 0)] @ protos[(j, 1)] for i in names for j in names if i != j])
        print(
            f"  n={n:2d} same intent p5 {np.percentile(same_v, 5):.3f} p50 {np.median(same_v):.3f}; "
            f"different p99 {np.percentile(diff_v, 99):.3f} max {diff_v.max():.3f}; "
            f"same flagged {share_above(same_v, thresholds)}; different flagged {share_above(diff_v, thresholds)}"
        )
    protos = []
    for skill in abcd:
        v = cache.embed(skill_passages(skill)).mean(axis=0)
        protos.append(v / np.linalg.norm(v))
    m = np.array(protos) @ np.array(protos).T
    upper = m[np.triu_indices(len(abcd), 1)]
    i, j = np.unravel_index(np.argmax(np.triu(m, 1)), m.shape)
    print(
        f"  ABCD: the 55 procedures are all different: prototype cosine p50 {np.median(upper):.3f} "
        f"p99 {np.percentile(upper, 99):.3f} max {upper.max():.3f} ({abcd[i]['source']} vs {abcd[j]['source']}); "
        f"{share_above(upper, thresholds)}"
    )
    asked = abcd_questions()
    qv = cache.embed([q for q, _ in asked])
    pairs = [
        (x, y) for x in range(len(asked)) for y in range(x + 1, len(asked)) if asked[x][1] and asked[y][1]
    ]
    same_q = np.array([qv[x] @ qv[y] for x, y in pairs if asked[x][1] == asked[y][1]])
    diff_q = np.array([qv[x] @ qv[y] for x, y in pairs if asked[x][1] != asked[y][1]])
    print(
        f"  ABCD questions: same subflow p50 {np.median(same_q):.3f} max {same_q.max():.3f}; "
        f"different p99 {np.percentile(diff_q, 99):.3f} max {diff_q.max():.3f}"
    )


# -- latency ------------------------------------------------------------------------------------


def latency(router: Router, questions: Sequence[str], repeat: int) -> None:
    router.route(questions[0])  # load the model
    embed, total = [], []
    for question in questions[:repeat]:
        began = time.perf_counter()
        query = router.cache.embedder.embed([question])[0]
        embedded = time.perf_counter()
        router.verdict(query, question)
        done = time.perf_counter()
        embed.append(embedded - began)
        total.append(done - began)
    e, t = np.array(embed) * 1000, np.array(total) * 1000
    print(
        f"latency: route() over {len(router.ids)} skills / {int(router.counts.sum())} passages, {len(t)} questions "
        f"one by one, in process: p50 {np.median(t):.1f} ms, p95 {np.percentile(t, 95):.1f} ms "
        f"(of which the query embedding p50 {np.median(e):.1f} ms; candidates + judge p50 {np.median(t - e):.1f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/graphsift-bench-skills"))
    parser.add_argument("--variants", action="store_true", help="also the measurements behind the constants")
    parser.add_argument("--halves", type=int, default=200, help="random halves of val to refit the floor on")
    parser.add_argument("--latency", type=int, default=300, help="questions timed one by one")
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"needs the shared evaluation data at {DATA}")
    cache = VectorCache(OnnxEmbedder(), args.cache_dir)

    library = clinc_library()
    router = Router(library, cache)
    val: Labelled = [(t, f"intent:{i}") for t, i in clinc("val")] + [(t, None) for t, _ in clinc("oos_val")]
    extra: Labelled = [(t, None) for t, _ in clinc("oos_train")]
    recs = report("CLINC150 (train -> val + oos_val)", router, val, cache, extra)
    fitted = fit_floor(recs)
    print(
        f"  floor refitted on all of val: {fitted} -> in-scope {at_floor(recs, fitted)[0]:.3f}, "
        f"null {at_floor(recs, fitted)[1]:.3f}"
    )
    print(f"  refitted on random halves of val ({args.halves}): {halves(recs, args.halves)}")

    abcd = load_abcd(DATA / "abcd" / "guidelines.json")
    abcd_router = Router(abcd, cache)
    questions: Labelled = abcd_questions()
    report("ABCD (55 procedures, bench/data/abcd_questions.jsonl)", abcd_router, questions, cache)

    if args.variants:
        clinc_scored = variants("CLINC150 val", router, val, cache, None)
        variants("ABCD", abcd_router, questions, cache, clinc_scored)
        layouts(abcd, questions, cache)
    duplicates(cache, abcd)
    latency(router, [q for q, _ in val], args.latency)


if __name__ == "__main__":
    main()
