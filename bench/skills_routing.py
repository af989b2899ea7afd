"""Skills routing without an LLM, through the real ``search_skills`` tool: CLINC150, ABCD, 10k-skill latency.

Every library is built with the real tools on a real SQLite store in a temporary
``GRAPHLORE_HOME`` (``import_skills``), and every headline figure comes from
``search_skills`` calls (the calibrated judge: no LLM is configured). What it prints:

- **CLINC150** (``clinc150/data_train_val.json``): ``import_skills`` of ``train`` as
  labelled intents (one skill per intent, its 100 examples as conditions); ``val``
  routed for in-scope top-1 accuracy (a question counts only if the returned skill
  is its intent) and ``oos_val`` for out-of-scope recall (``skill: null``), at the
  shipped judge; ``oos_train`` as an extra out-of-scope check (never fitted on).
  Then, from the same pipeline with the floor removed (``tools.candidates`` +
  ``tools.calibrated``: what the tool runs; the script checks it reproduces every
  tool answer): how often the right skill is among the candidates, the floor
  refitted on ``val`` (largest smallest margin over the targets 0.88 / 0.85) and on
  random halves of ``val`` with the other half measured.
- **ABCD**: ``import_skills`` of ``abcd/guidelines.json`` (55 procedures) and
  ``bench/data/abcd_questions.jsonl`` (110 hand-written questions labelled with the
  subflow's source, 41 out of scope, never tuned on): the same figures.
- ``--variants``: the measurements behind the judge's constants, on the same
  candidates: scoring rules, a margin over the runner-up, BM25 in the rank,
  candidate sources (hybrid / vector only / every skill); and the passage layouts
  (does embedding the playbook steps help?), each an ABCD library built with that
  layout.
- **Duplicates**: cosines of paraphrase pairs and different pairs (single texts and
  skill prototypes), and how many pairs each threshold flags.
- **Latency**: ``search_skills`` one call at a time, in process, query embedding
  included, on a library of 10,000 skills (``--scale``): the 150 CLINC intents as
  imported plus 9,850 made from other real text (GitBugs Hadoop bug reports,
  SciFact abstracts, Amazon/Google product listings: title, first sentence as the
  problem, the next sentences as conditions, a 2-step playbook), written with the
  import writer in one transaction. A fresh runtime with the real ONNX embedder
  (no cache) serves the timed calls; CLINC val is also routed in that library to
  show what 9,850 distractor skills do to accuracy. Timings on the shared 2-core
  machine are noisy.

Vectors for building libraries are cached under ``--cache-dir`` (model name +
sha256 of each text; the cached embedder returns exactly what the model returned).

    python bench/skills_routing.py [--variants] [--halves 200] [--scale 10000] [--latency 300] [--latency-only]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the CLI and the server run (set before numpy loads)

import argparse  # noqa: E402
import csv  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from graphlore.config import Settings  # noqa: E402
from graphlore.contract import parse_request  # noqa: E402
from graphlore.embedding import OnnxEmbedder  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.search.fusion import TITLE_FIELD_WEIGHTS  # noqa: E402
from graphlore.tools import CallContext  # noqa: E402
from graphlore.toolsets.skills import TOOLSET, tools  # noqa: E402
from graphlore.toolsets.skills import judge as J  # noqa: E402
from graphlore.toolsets.skills.imports import load_abcd  # noqa: E402
from graphlore.toolsets.skills.library import KIND, SkillLibrary  # noqa: E402
from graphlore.toolsets.skills.playbook import Playbook, Step, parse, render  # noqa: E402
from graphlore.toolsets.skills.routing import distinct, skill_passages  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
QUESTIONS = REPO / "bench" / "data" / "abcd_questions.jsonl"
IN_TARGET, NULL_TARGET = 0.88, 0.85

Labelled = list[tuple[str, str | None]]  # (question, expected source or None)
Record = tuple[str | None, float, str | None]  # (best candidate's source, its soft score, expected source)


# -- vectors, cached ----------------------------------------------------------------------------


class CachedEmbedder:
    """The ONNX model behind a cache keyed by model name + sha256 of each text (same name, same vectors)."""

    def __init__(self, model: OnnxEmbedder, directory: Path) -> None:
        self.model = model
        self.name, self.dim = model.name, model.dim
        self.path = directory / f"vectors-{model.name}.npz"
        self.rows: dict[str, np.ndarray] = {}
        if self.path.exists():
            data = np.load(self.path)
            self.rows = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    def passages(self, text: str) -> list[str]:
        return [text]

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(list(self.rows), dtype="U64"), vectors=np.vstack(list(self.rows.values())))
        tmp.replace(self.path)

    def embed(self, texts: Sequence[str], chunk: int = 2048) -> np.ndarray:
        keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        by_key = dict(zip(keys, texts, strict=True))
        missing = [k for k in dict.fromkeys(keys) if k not in self.rows]
        for start in range(0, len(missing), chunk):
            part = missing[start:start + chunk]
            self.rows.update(zip(part, self.model.embed([by_key[k] for k in part]), strict=True))
            self.save()
            print(f"  embedded {start + len(part)}/{len(missing)}", file=sys.stderr, flush=True)
        if not keys:
            return np.empty((0, self.dim), dtype=np.float32)
        return np.vstack([self.rows[k] for k in keys]).astype(np.float32)


# -- data ---------------------------------------------------------------------------------------


def clinc(split: str) -> list[tuple[str, str]]:
    data = json.loads((DATA / "clinc150" / "data_train_val.json").read_text())
    return [(text, intent) for text, intent in data[split]]


def abcd_questions() -> Labelled:
    return [(row["text"], row["source"]) for row in map(json.loads, QUESTIONS.read_text().splitlines())]


# -- the tools ----------------------------------------------------------------------------------


def call(runtime: Runtime, name: str, **fields: Any) -> Any:
    spec = TOOLSET.tool(name)
    extra = {"context": CallContext(session="bench")} if spec.context else {}
    return spec.run(runtime, parse_request(spec.request, fields), **extra)


def sources(runtime: Runtime, library: str) -> dict[str, str]:
    """skill_id -> source of every skill in ``library``."""
    out: dict[str, str] = {}
    offset = 0
    while True:
        page = call(runtime, "list_skills", library=library, limit=1000, offset=offset)
        out |= {s.skill_id: s.source for s in page.skills}
        offset += len(page.skills)
        if offset >= page.total:
            return out


def route_with_tool(runtime: Runtime, library: str, questions: Labelled) -> list[str | None]:
    """The source of the skill ``search_skills`` returns for each question (None: no skill)."""
    source_of = sources(runtime, library)
    out = []
    for text, _ in questions:
        found = call(runtime, "search_skills", query=text, library=library)
        assert found.judge == "calibrated"
        out.append(source_of[found.skill.skill_id] if found.skill else None)
    return out


def figures(got: Sequence[str | None], questions: Labelled) -> tuple[float, float]:
    """(in-scope top-1 accuracy, out-of-scope null rate)."""
    inside = [g == want for g, (_, want) in zip(got, questions, strict=True) if want is not None]
    outside = [g is None for g, (_, want) in zip(got, questions, strict=True) if want is None]
    return sum(inside) / max(len(inside), 1), sum(outside) / max(len(outside), 1)


class Pipeline:
    """The tool's own steps (``tools.candidates``, ``tools.calibrated``) on one library, for what the
    tool's answer does not show: the best candidate's soft score, other floors, other rules."""

    def __init__(self, runtime: Runtime, library: SkillLibrary) -> None:
        self.runtime, self.library = runtime, library
        self.store = library.store()
        self.source_of = {n.id: n.props.get("source") for n in self.store.iter_nodes(KIND)}

    def found(self, questions: Labelled, source: str = "hybrid") -> list[tuple[str, np.ndarray, list]]:
        """(question, its vector, its candidates as (skill_id, passage cosines, centroid norm)) per question:
        ``hybrid`` (``tools.candidates``, as the tool), ``vector`` (the best-passage top 5 only) or ``all``
        (every skill). Cosines, not vectors, are kept: 5 candidates of 100 passages per question add up."""
        vectors = self.runtime.embedder.embed([q for q, _ in questions])
        everything = None
        out = []
        for (text, _), vector in zip(questions, vectors, strict=True):
            if source == "hybrid":
                found = tools.candidates(self.library, self.store, text, vector)
            elif source == "vector":
                hits = self.store.vector_search(vector, kind=KIND, limit=J.CANDIDATES)
                read = self.library.read(self.store, [h.id for h in hits], with_vectors=True)
                found = [read[h.id] for h in hits]
            else:
                if everything is None:
                    ids = self.store.list_node_ids(KIND)
                    everything = list(self.library.read(self.store, ids, with_vectors=True).values())
                found = everything
            out.append((text, vector, [(s.skill_id, s.node.vectors @ vector, s.node.props["centroid_norm"])
                                       for s in found]))
        return out

    def records(self, found: list, questions: Labelled, **judge_args: float) -> list[Record]:
        """What ``tools.calibrated`` decides (the same ``judge.judge`` call), with the floor removed."""
        out = []
        for (_, _, cands), (_, want) in zip(found, questions, strict=True):
            v = J.judge([J.Candidate(i, cos, norm) for i, cos, norm in cands], floor=-np.inf, **judge_args)
            out.append((self.source_of.get(v.best), v.soft, want))
        return out


def at_floor(recs: Sequence[Record], floor: float) -> tuple[float, float]:
    inside = [(best, soft, want) for best, soft, want in recs if want is not None]
    outside = [soft for _, soft, want in recs if want is None]
    accuracy = sum(best == want and soft >= floor for best, soft, want in inside) / max(len(inside), 1)
    return accuracy, sum(soft < floor for soft in outside) / max(len(outside), 1)


def _sweep(recs: Sequence[Record]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(candidate floors, in-scope accuracy at each, null rate at each), vectorised over the floors."""
    floors = np.unique(np.round([soft for _, soft, _ in recs], 4))
    right = np.array([soft for best, soft, want in recs if want is not None and best == want])
    n_in = max(sum(want is not None for *_, want in recs), 1)
    outside = np.sort([soft for _, soft, want in recs if want is None])
    accuracy = (len(right) - np.searchsorted(np.sort(right), floors, side="left")) / n_in
    null = np.searchsorted(outside, floors, side="left") / max(len(outside), 1)
    return floors, accuracy, null


def fit_floor(recs: Sequence[Record]) -> float:
    """The floor with the largest smallest margin over the two targets (ties: the lower floor)."""
    floors, accuracy, null = _sweep(recs)
    return float(floors[int(np.argmax(np.minimum(accuracy - IN_TARGET, null - NULL_TARGET)))])


def best_at_null(recs: Sequence[Record], null: float) -> tuple[float, float]:
    """(best in-scope accuracy with null >= ``null`` at one floor, that floor)."""
    floors, accuracy, nulls = _sweep(recs)
    ok = np.flatnonzero(nulls >= null)
    if not ok.size:
        return 0.0, float("nan")
    best = ok[int(np.argmax(accuracy[ok]))]
    return float(accuracy[best]), float(floors[best])


def halves(recs: list[Record], splits: int, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    inside = [r for r in recs if r[2] is not None]
    outside = [r for r in recs if r[2] is None]
    rows = []
    for _ in range(splits):
        i, o = rng.permutation(len(inside)), rng.permutation(len(outside))
        fit = [inside[j] for j in i[: len(i) // 2]] + [outside[j] for j in o[: len(o) // 2]]
        held = [inside[j] for j in i[len(i) // 2:]] + [outside[j] for j in o[len(o) // 2:]]
        floor = fit_floor(fit)
        rows.append((floor, *at_floor(held, floor)))
    a = np.array(rows)
    both = np.mean((a[:, 1] >= IN_TARGET) & (a[:, 2] >= NULL_TARGET))
    return (f"floor {np.percentile(a[:, 0], 5):.3f}-{np.percentile(a[:, 0], 95):.3f} (5th-95th pct); held-out half: "
            f"in-scope {a[:, 1].mean():.3f} (5th pct {np.percentile(a[:, 1], 5):.3f}), null {a[:, 2].mean():.3f} "
            f"(5th pct {np.percentile(a[:, 2], 5):.3f}); both targets met in {both:.0%}")


def report(name: str, runtime: Runtime, library: str, questions: Labelled) -> tuple[Pipeline, list, list[Record]]:
    began = time.perf_counter()
    got = route_with_tool(runtime, library, questions)
    took = time.perf_counter() - began
    accuracy, null = figures(got, questions)
    pipeline = Pipeline(runtime, SkillLibrary(runtime, library))
    found = pipeline.found(questions)
    recs = pipeline.records(found, questions)
    replayed = [best if soft >= J.FLOOR else None for best, soft, _ in recs]
    differ = sum(a != b for a, b in zip(got, replayed, strict=True))
    n_in = sum(want is not None for _, want in questions)
    store = pipeline.store
    print(f"{name}: {store.count_nodes(KIND)} skills; {n_in} in-scope and {len(questions) - n_in} out-of-scope "
          f"questions ({len(questions)} search_skills calls in {took:.0f} s)")
    print(f"  search_skills (calibrated judge: floor {J.FLOOR}, tau {J.TAU}, prototype k {J.PROTOTYPE_K:g}): "
          f"in-scope top-1 {accuracy:.3f}, out-of-scope null {null:.3f}")
    ranked = sum(best == want for best, _, want in recs if want is not None) / n_in
    recall = sum(want in {pipeline.source_of[c[0]] for c in cands}
                 for (_, _, cands), (_, want) in zip(found, questions, strict=True) if want is not None) / n_in
    print(f"  top-1 without abstaining {ranked:.3f}; right skill among the {J.CANDIDATES} hybrid candidates "
          f"{recall:.3f}; the pipeline replay differs from the tool on {differ} question(s)")
    return pipeline, found, recs


# -- variants -----------------------------------------------------------------------------------


def scored(pipeline: Pipeline, found: list, tau: float = J.TAU, k: float = J.PROTOTYPE_K) -> list[list[tuple]]:
    """Per question, each candidate's (source, soft score, rank score, BM25 over the candidates' best)."""
    out = []
    for text, _, cands in found:
        bm25 = {h.id: h.score for h in pipeline.store.keyword_search(text, kind=KIND, limit=100,
                                                                     weights=TITLE_FIELD_WEIGHTS)}
        top = max([bm25.get(i, 0.0) for i, _, _ in cands] + [1e-9])
        rows = []
        for skill_id, cos, norm in cands:
            cos = np.asarray(cos, dtype=np.float64)
            rows.append((pipeline.source_of[skill_id], J.soft_match(cos, tau), J.rank_score(cos, norm, tau, k),
                         bm25.get(skill_id, 0.0) / top))
        out.append(rows)
    return out


def decide(rows: list[list[tuple]], questions: Labelled, gate: str = "soft", bm25: float = 0.0,
           margin: float = 0.0) -> list[Record]:
    """Records of a rule: the best by rank score (+ ``bm25`` x BM25), gated by its soft or rank score; with
    ``margin`` > 0, a winner less than ``margin`` (in gate score) above the runner-up abstains."""
    out = []
    for cands, (_, want) in zip(rows, questions, strict=True):
        if not cands:
            out.append((None, -1.0, want))
            continue
        order = sorted(cands, key=lambda c: (-(c[2] + bm25 * c[3]), c[0]))
        column = 1 if gate == "soft" else 2
        gap = order[0][column] - order[1][column] if len(order) > 1 else 1.0
        out.append((order[0][0], order[0][column] if margin <= 0 or gap >= margin else -1.0, want))
    return out


def variants(name: str, pipeline: Pipeline, found: list, questions: Labelled,
             clinc_fits: dict[str, float] | None) -> dict[str, float]:
    """The alternatives behind the judge's constants; with ``clinc_fits`` (floors fitted on CLINC val), ABCD
    is also measured at CLINC's floor of each rule."""
    print(f"{name} variants: in-scope top-1 at the best floor with null >= {NULL_TARGET}"
          + (" | at the floor fitted on CLINC val" if clinc_fits else ""))
    rules = {
        "nearest passage (tau->0, k=0)": (dict(tau=1e-4, k=0.0), "soft"),
        "soft match only (k=0)": (dict(k=0.0), "soft"),
        "prototype only, floor on it": (dict(k=1e-9), "rank"),
        "rank score, floor on rank score": ({}, "rank"),
        "shipped: rank score, floor on soft": ({}, "soft"),
    }
    fits: dict[str, float] = {}
    shipped: list = []
    for label, (args, gate) in rules.items():
        rows = scored(pipeline, found, **args)
        recs = decide(rows, questions, gate)
        accuracy, floor = best_at_null(recs, NULL_TARGET)
        fits[label] = fit_floor(recs)
        line = f"  {label:38s} {accuracy:.3f} (floor {floor:.3f})"
        if clinc_fits:
            a, n = at_floor(recs, clinc_fits[label])
            line += f" | CLINC floor {clinc_fits[label]:.4f}: {a:.3f} / null {n:.3f}"
        print(line)
        shipped = rows
    best = max((best_at_null(decide(shipped, questions, margin=m), NULL_TARGET) + (m,)
                for m in (0.0, 0.005, 0.01, 0.02, 0.03, 0.05)), key=lambda r: r[0])
    print(f"  {'shipped + margin over the runner-up':38s} {best[0]:.3f} (floor {best[1]:.3f}, best margin {best[2]})")
    for weight in (0.1, 0.3):
        recs = decide(shipped, questions, bm25=weight)
        top1 = sum(b == w for b, _, w in recs if w) / sum(1 for *_, w in recs if w)
        print(f"  {f'shipped + BM25 x {weight} in the rank':38s} {best_at_null(recs, NULL_TARGET)[0]:.3f}; "
              f"top-1 without abstaining {top1:.3f}")
    for source in ("vector", "all"):
        recs = pipeline.records(pipeline.found(questions, source), questions)
        a, n = at_floor(recs, J.FLOOR)
        print(f"  {f'candidates: {source} (shipped judge)':38s} {best_at_null(recs, NULL_TARGET)[0]:.3f}; "
              f"at the shipped floor {a:.3f} / null {n:.3f}")
    return fits


def step_texts(resolution_md: str) -> list[str]:
    """One text per playbook step: its action, Do, Check and Say, in that order."""
    return [" ".join(part for part in (step.action, step.do, step.check, step.say) if part)
            for step in parse(resolution_md).steps]


#: Passage layouts compared: ``tpc`` (title, problem, conditions) is what graphlore embeds; the others add the
#: steps (one passage each, or joined) or the keywords.
LAYOUTS = {
    "tpc": skill_passages,
    "tpc+steps": lambda s: distinct([*skill_passages(s), *step_texts(s["resolution_md"])]),
    "tpc+steps-joined": lambda s: distinct([*skill_passages(s), " ".join(step_texts(s["resolution_md"]))]),
    "tpc+keywords": lambda s: distinct([*skill_passages(s), ", ".join(s.get("keywords") or [])]),
}


def layouts(runtime: Runtime, skills: list[dict[str, Any]], questions: Labelled) -> None:
    print("ABCD passage layouts (does embedding the steps help?): top-1 without abstaining | at the shipped floor")
    for layout, passages_of in LAYOUTS.items():
        library = SkillLibrary(runtime, "abcd-" + re.sub(r"[^a-z0-9]+", "-", layout), passages=passages_of)
        tools.write_imports(library, skills)
        pipeline = Pipeline(runtime, library)
        recs = pipeline.records(pipeline.found(questions), questions)
        top1 = sum(b == w for b, _, w in recs if w is not None) / sum(w is not None for _, _, w in recs)
        a, n = at_floor(recs, J.FLOOR)
        passages = sum(len(passages_of(s)) for s in skills)
        print(f"  {layout:18s} {passages:5d} passages: {top1:.3f} | {a:.3f} / null {n:.3f}")


# -- duplicates ---------------------------------------------------------------------------------


def share_above(values: np.ndarray, thresholds: Sequence[float]) -> str:
    return ", ".join(f">={t:.2f}: {np.mean(values >= t):.3f}" for t in thresholds)


def duplicates(cache: CachedEmbedder, abcd: list[dict[str, Any]], seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    thresholds = (0.80, 0.85, 0.90, 0.95)
    rows = clinc("val")
    vectors = cache.embed([t for t, _ in rows])
    intents = np.array([i for _, i in rows])
    a, b = rng.integers(0, len(rows), 20000), rng.integers(0, len(rows), 20000)
    keep, same = a != b, intents[a] == intents[b]
    cos = np.einsum("ij,ij->i", vectors[a], vectors[b])
    print("duplicates: cosine of two texts (CLINC val, 20k random pairs); share of pairs at or above each threshold")
    for label, mask in (("same intent", keep & same), ("different intents", keep & ~same)):
        v = cos[mask]
        print(f"  {label:18s} n={mask.sum():5d} p50 {np.median(v):.3f} p95 {np.percentile(v, 95):.3f} "
              f"p99 {np.percentile(v, 99):.3f} max {v.max():.3f}; {share_above(v, thresholds)}")
    # Two skills of one intent from disjoint examples vs skills of two intents. Only the examples are embedded:
    # an imported intent's title and problem come from its label, so two skills of one intent would share them
    # word for word, which a real near-duplicate does not.
    by_intent: dict[str, list[str]] = {}
    for text, intent in clinc("train"):
        by_intent.setdefault(intent, []).append(text)
    names = sorted(by_intent)
    print("duplicates: prototype cosine of two skills made of n different examples each (CLINC train)")
    for n in (1, 3, 10):
        protos = {}
        for intent in names:
            examples = rng.permutation(by_intent[intent])
            for half, part in enumerate((examples[:n], examples[n:2 * n])):
                v = cache.embed(list(part)).mean(axis=0)
                protos[(intent, half)] = v / np.linalg.norm(v)
        same_v = np.array([protos[(i, 0)] @ protos[(i, 1)] for i in names])
        diff_v = np.array([protos[(i, 0)] @ protos[(j, 1)] for i in names for j in names if i != j])
        print(f"  n={n:2d} same intent p5 {np.percentile(same_v, 5):.3f} p50 {np.median(same_v):.3f}; "
              f"different p99 {np.percentile(diff_v, 99):.3f} max {diff_v.max():.3f}; "
              f"same flagged {share_above(same_v, thresholds)}; different flagged {share_above(diff_v, thresholds)}")
    protos = []
    for skill in abcd:
        v = cache.embed(skill_passages(skill)).mean(axis=0)
        protos.append(v / np.linalg.norm(v))
    m = np.array(protos) @ np.array(protos).T
    upper = m[np.triu_indices(len(abcd), 1)]
    i, j = np.unravel_index(np.argmax(np.triu(m, 1)), m.shape)
    print(f"  ABCD: the 55 procedures are all different: prototype cosine p50 {np.median(upper):.3f} "
          f"p99 {np.percentile(upper, 99):.3f} max {upper.max():.3f} ({abcd[i]['source']} vs {abcd[j]['source']}); "
          f"{share_above(upper, thresholds)}")


# -- the 10k library and latency ----------------------------------------------------------------


def _sentences(text: str) -> list[str]:
    flat = " ".join(text.split())
    return [s for s in re.split(r"(?<=[.!?])\s+", flat) if 20 <= len(s) <= 300]


def _skill(source: str, title: str, body: str, area: str, kind: str) -> dict[str, Any] | None:
    title = " ".join(title.split())[:150].strip(" #-")
    parts = _sentences(body)
    if len(title) < 5 or not parts:
        return None
    problem, conditions = parts[0], parts[1:4] or [title]
    steps = (Step("Reproduce the problem", check=problem), Step("Apply the known fix", do=conditions[0],
                                                                  say="I have applied the fix; please try again."))
    playbook = Playbook(title=title, goal=f"Resolve: {title}.", steps=steps)
    return {"title": title, "problem": problem, "conditions": conditions, "keywords": [area],
            "resolution_md": render(playbook), "product_area": area, "issue_type": kind, "source": source}


def synthetic(n: int) -> list[dict[str, Any]]:
    """``n`` skills from real text that is not CLINC (see the module docstring), in a fixed order."""
    csv.field_size_limit(10**9)
    made: list[dict[str, Any]] = []
    for row in csv.DictReader(open(DATA / "gitbugs" / "hadoop" / "hadoop_bugs.csv", encoding="utf-8")):
        made.append(_skill(f"bench:bug:{row['Issue id']}", row["Summary"], row["Description"], "hadoop", "bug"))
    for line in open(DATA / "scifact" / "corpus.jsonl", encoding="utf-8"):
        doc = json.loads(line)
        made.append(_skill(f"bench:sci:{doc['_id']}", doc["title"], doc["text"], "research", "how-to"))
    for name, title_key in (("Amazon.csv", "title"), ("GoogleProducts.csv", "name")):
        for row in csv.DictReader(open(DATA / "er" / "amazon_google" / name, encoding="latin-1")):
            text = f"{row['description'] or ''} The customer needs help with {row[title_key]} by {row['manufacturer']}."
            made.append(_skill(f"bench:product:{row['id']}", f"Help with {row[title_key]}", text, "products", "how-to"))
    made = [m for m in made if m is not None]
    unique = list({m["source"]: m for m in made}.values())
    if len(unique) < n:
        raise SystemExit(f"only {len(unique)} synthetic skills can be made; ask for fewer")
    return unique[:n]


def latency(home: Path, cache: CachedEmbedder, clinc_file: Path, scale: int, repeat: int) -> None:
    build = Runtime(Settings(home=home), embedder=cache)
    call(build, "import_skills", format="intents", path=str(clinc_file), library="scale")
    extra = synthetic(scale - 150)
    checked = tools.checked_imports(extra)
    cache.embed([t for skill in checked for t in skill_passages(skill)])  # fill the cache in big batches
    began = time.perf_counter()
    tools.write_imports(SkillLibrary(build, "scale"), checked)
    print(f"10k library: 150 CLINC intents + {len(checked)} skills from GitBugs, SciFact and product listings "
          f"written in {time.perf_counter() - began:.0f} s (vectors from the cache)")
    val = [(t, f"intent:{i}") for t, i in clinc("val")] + [(t, None) for t, _ in clinc("oos_val")]
    store = SkillLibrary(build, "scale").store()
    accuracy, null = figures(route_with_tool(build, "scale", val), val)
    passages = sum(len(v) for v in store.node_vectors(store.list_node_ids(KIND)).values())
    skills = store.count_nodes(KIND)
    print(f"  {skills} skills, {passages} passages; CLINC val through search_skills in this library: in-scope "
          f"top-1 {accuracy:.3f}, out-of-scope null {null:.3f} (an out-of-scope question may rightly find one of "
          "the 9,850 other skills: they are not labelled)")
    build.close()
    questions = [q for q, _ in val]
    rng = np.random.default_rng(1)
    picked = [questions[i] for i in rng.permutation(len(questions))[:repeat]]
    print(f"latency: search_skills in process over {skills} skills, {len(picked)} CLINC val/oos questions one by one "
          "(real ONNX model, no cache; calibrated judge; the use counted)")
    for threads, label in ((0, "onnxruntime's default threads"), (1, "one embedding thread")):
        runtime = Runtime(Settings(home=home), embedder=OnnxEmbedder(threads=threads))
        for question in questions[-5:]:  # warm up: load the model and the library's in-memory snapshot
            call(runtime, "search_skills", query=question, library="scale")
        wall, cpu, embed_wall, embed_cpu = [], [], [], []
        for question in picked:
            began, began_cpu = time.perf_counter(), time.process_time()
            call(runtime, "search_skills", query=question, library="scale")
            wall.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
        for question in picked:
            began, began_cpu = time.perf_counter(), time.process_time()
            runtime.embedder.embed([question])
            embed_wall.append((time.perf_counter() - began) * 1000)
            embed_cpu.append((time.process_time() - began_cpu) * 1000)
        w, c, ew, ec = map(np.array, (wall, cpu, embed_wall, embed_cpu))
        print(f"  {label}: wall p50 {np.median(w):.1f} ms, p95 {np.percentile(w, 95):.1f} ms; CPU time p50 "
              f"{np.median(c):.1f} ms; the query embedding alone: wall p50 {np.median(ew):.1f} ms, CPU p50 "
              f"{np.median(ec):.1f} ms (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
        runtime.close()
    print("  (CPU time counts every thread of the process: with one embedding thread and one BLAS thread it is\n"
          "   what a call takes on an idle core; wall time on a loaded machine adds the wait for a core)")


# -- main ---------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/graphlore-bench-skills"))
    parser.add_argument("--variants", action="store_true", help="also the measurements behind the constants")
    parser.add_argument("--halves", type=int, default=200, help="random halves of val to refit the floor on")
    parser.add_argument("--scale", type=int, default=10_000, help="skills in the latency library (0: skip)")
    parser.add_argument("--latency", type=int, default=300, help="questions timed one by one")
    parser.add_argument("--keep", type=Path, help="keep the data folder here instead of a temporary one")
    parser.add_argument("--latency-only", action="store_true", help="only the 10k library and its latency")
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"needs the shared evaluation data at {DATA}")
    cache = CachedEmbedder(OnnxEmbedder(), args.cache_dir)
    with tempfile.TemporaryDirectory(prefix="graphlore-bench-skills-") as tmp:
        home = args.keep or Path(tmp) / "home"
        runtime = Runtime(Settings(home=home), embedder=cache)
        clinc_file = Path(tmp) / "clinc_train.jsonl"
        clinc_file.write_text("".join(json.dumps({"text": t, "intent": i}) + "\n" for t, i in clinc("train")))
        if args.latency_only:
            latency(home, cache, clinc_file, args.scale, args.latency)
            return
        out = call(runtime, "import_skills", format="intents", path=str(clinc_file), library="clinc")
        print(f"import_skills CLINC150 train: {out.created} skills, {out.embedded_texts} texts embedded")
        val: Labelled = [(t, f"intent:{i}") for t, i in clinc("val")] + [(t, None) for t, _ in clinc("oos_val")]
        pipeline, found, recs = report("CLINC150 (train -> val + oos_val)", runtime, "clinc", val)
        extra: Labelled = [(t, None) for t, _ in clinc("oos_train")]
        print(f"  extra out-of-scope check ({len(extra)} oos_train, never fitted on): null "
              f"{figures(route_with_tool(runtime, 'clinc', extra), extra)[1]:.3f}")
        fitted = fit_floor(recs)
        print(f"  floor refitted on all of val: {fitted} -> in-scope {at_floor(recs, fitted)[0]:.3f}, "
              f"null {at_floor(recs, fitted)[1]:.3f}")
        print(f"  refitted on random halves of val ({args.halves}): {halves(recs, args.halves)}")

        guidelines = DATA / "abcd" / "guidelines.json"
        out = call(runtime, "import_skills", format="abcd", path=str(guidelines), library="abcd")
        print(f"import_skills ABCD: {out.created} skills, {out.embedded_texts} texts embedded")
        questions = abcd_questions()
        abcd_pipeline, abcd_found, _ = report("ABCD (55 procedures, bench/data/abcd_questions.jsonl)", runtime,
                                             "abcd", questions)
        if args.variants:
            fits = variants("CLINC150 val", pipeline, found, val, None)
            variants("ABCD", abcd_pipeline, abcd_found, questions, fits)
            layouts(runtime, tools.checked_imports(load_abcd(guidelines)), questions)
        duplicates(cache, load_abcd(guidelines))
        runtime.close()
        if args.scale:
            latency(home, cache, clinc_file, args.scale, args.latency)


if __name__ == "__main__":
    main()
