"""How the calibrated judge's constants were fitted: cross-validation on training data only.

Nothing here reads a split that ``bench/skills_routing.py`` reports on: CLINC150
``train`` and ``oos_train`` (never ``val``/``oos_val``), BANKING77 ``train.csv``
without its report fifth (every fifth question of each intent), no ABCD question.

Libraries are built in memory from the product's own skills and passages
(``imports.intent_skills``, ``routing.skill_passages``, ``judge.calibration``) and
every skill is judged (no hybrid candidate cut); :func:`check_against_judge` shows
that the vectorised scores here are ``judge.judge``'s on a sample. The sets:

- ``clinc``: 5 folds of CLINC150 ``train``, each a contiguous fifth of every
  intent's examples (neighbouring examples were written together: interleaved folds
  put near paraphrases on both sides of a split), with a fifth of the intents left
  out of that fold's library (their questions are out of scope), plus ``oos_train``;
- ``banking``: BANKING77 ``train.csv`` with every fifth intent (sorted by name) held
  out as out of scope, the 4/5 of its questions that are not reported on, 5 folds
  alike;
- ``clinc_few`` / ``banking_few``: the same with 0, 1, 2, 3, 5, 10 or 20 conditions
  per skill (drawn per skill), for the prior's weight;
- ``clinc_titles``: every CLINC intent as its title and problem alone (no conditions),
  the questions of ``train`` in scope and ``oos_train`` out, for the prior's value.

Steps (:func:`fit`): ``TAU`` and ``PROTOTYPE_WEIGHT`` by top-1 on ``clinc`` +
``banking``; the three weights by a logistic regression of "the best candidate is the
right skill" on (match, match - typical, margin) over ``clinc`` + ``banking`` (each set
and each class weighted equally); the bias at the largest smallest margin over the
issue's targets (CLINC in-scope 0.88 and ``oos_train`` null 0.85, BANKING in-scope
0.85 and null 0.60); ``PRIOR_MEAN`` the lowest at which ``clinc_titles`` refuses
0.85 of ``oos_train``; repeated until ``PRIOR_MEAN`` settles; ``PRIOR_N`` the better
of 1 and 3 on the ``_few`` sets (in-scope plus null).
"""

from __future__ import annotations

import collections
import csv
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from graphlore.toolsets.skills import judge as J
from graphlore.toolsets.skills.imports import intent_skills
from graphlore.toolsets.skills.routing import head_count, skill_passages

Embed = Callable[[Sequence[str]], np.ndarray]
TARGETS = {"clinc": (0.88, 0.85), "banking": (0.85, 0.60)}
FEW = (0, 1, 2, 3, 5, 10, 20)


# -- data and folds -----------------------------------------------------------------------------


def clinc(data: Path, split: str) -> list[tuple[str, str]]:
    rows = json.loads((data / "clinc150" / "data_train_val.json").read_text())[split]
    return [(text, intent) for text, intent in rows]


def banking(data: Path) -> list[tuple[str, str]]:
    with open(data / "banking77" / "train.csv", encoding="utf-8", newline="") as fh:
        return [(row["text"], row["category"]) for row in csv.DictReader(fh)]


def positions(rows: Sequence[tuple[str, str]]) -> tuple[np.ndarray, collections.Counter]:
    """Each row's place among its intent's rows (file order), and each intent's count."""
    count: collections.Counter = collections.Counter()
    out = []
    for _, intent in rows:
        out.append(count[intent])
        count[intent] += 1
    return np.array(out), count


def block_folds(rows: Sequence[tuple[str, str]], k: int = 5) -> np.ndarray:
    """Fold of each row: the contiguous k-th of its intent's rows it falls in."""
    pos, count = positions(rows)
    return np.array([p * k // count[intent] for p, (_, intent) in zip(pos, rows, strict=True)])


def banking_split(data: Path) -> tuple[list[tuple[str, str]], set[str], np.ndarray]:
    """BANKING77 train: its rows, the known intents (every fifth, sorted, is held out) and which rows are the
    report fifth (every fifth question of each intent)."""
    rows = banking(data)
    intents = sorted({i for _, i in rows})
    known = {intent for n, intent in enumerate(intents) if n % 5 != 4}
    pos, _ = positions(rows)
    return rows, known, pos % 5 == 4


# -- in-memory libraries and their scores -------------------------------------------------------


@dataclass
class Library:
    """Skills as the store holds them: passage vectors in one matrix, each skill's slice, norm, and how many of
    its passages describe it (title, problem) before its conditions."""

    names: list[str]
    vectors: np.ndarray
    starts: np.ndarray
    norms: np.ndarray
    heads: list[int]
    _calibrations: dict[float, list[J.Calibration]] = field(default_factory=dict)

    @classmethod
    def of(cls, skills: Sequence[dict], embed: Embed) -> Library:
        passages = [skill_passages(s) for s in skills]
        vectors = embed([t for p in passages for t in p]).astype(np.float64)
        starts = np.concatenate([[0], np.cumsum([len(p) for p in passages])])
        blocks = [vectors[a:b] for a, b in zip(starts[:-1], starts[1:], strict=True)]
        return cls([s["source"] for s in skills], vectors, starts, np.array([J.centroid_norm(b) for b in blocks]),
                   [head_count(s) for s in skills])

    def block(self, i: int) -> np.ndarray:
        return self.vectors[self.starts[i]:self.starts[i + 1]]

    def calibrations(self, tau: float) -> list[J.Calibration]:
        """Each skill's calibration at ``tau`` (:func:`judge.calibration`)."""
        if tau not in self._calibrations:
            self._calibrations[tau] = [J.calibration(self.block(i), h, tau) for i, h in enumerate(self.heads)]
        return self._calibrations[tau]


@dataclass
class Table:
    """Per question: the best and runner-up skill by rank, the judge's evidence, and what was right."""

    match: np.ndarray
    typical: np.ndarray
    margin: np.ndarray
    correct: np.ndarray  # the best skill is the question's
    inside: np.ndarray  # the question is in scope
    generic: np.ndarray  # out of scope and from oos_train (not a left-out intent)

    def features(self) -> np.ndarray:
        return np.column_stack([self.match, self.match - self.typical, self.margin])

    @staticmethod
    def join(tables: Sequence[Table]) -> Table:
        return Table(*(np.concatenate([getattr(t, f) for t in tables]) for f in
                       ("match", "typical", "margin", "correct", "inside", "generic")))

    def rates(self, values: np.ndarray, generic_only: bool = False) -> tuple[float, float]:
        """(in-scope accuracy, null rate) when answering at ``values >= 0``."""
        answer = values >= 0
        outside = ~self.inside & (self.generic if generic_only else True)
        return float((answer & self.correct)[self.inside].mean()), float((~answer)[outside].mean())


def scores(library: Library, cos: np.ndarray, tau: float, weight: float) -> tuple[np.ndarray, ...]:
    """(match, rank) of every query against every skill (``cos``: the queries' cosines to every passage), as
    ``judge.score`` computes them."""
    n = len(library.names)
    match, rank = np.empty((len(cos), n)), np.empty((len(cos), n))
    for i in range(n):
        c = cos[:, library.starts[i]:library.starts[i + 1]]
        top = c.max(axis=1)
        match[:, i] = top + tau * np.log(np.mean(np.exp((c - top[:, None]) / tau), axis=1))
        rank[:, i] = J.rank_score(match[:, i], c.mean(axis=1) / max(library.norms[i], 1e-9), weight)
    return match, rank


def table(fold: Fold, tau: float, weight: float, prior: tuple[float, float] | None = None) -> Table:
    """The judge's evidence for each question's best candidate (``prior``: (PRIOR_N, PRIOR_MEAN) to use)."""
    library, labels, generic = fold.library, fold.labels, fold.generic
    match, rank = scores(library, fold.cosines(), tau, weight)
    order = np.argsort(-rank, axis=1, kind="stable")
    rows = np.arange(len(fold.queries))
    best, second = order[:, 0], order[:, 1]
    calibrations = library.calibrations(tau)
    typical = np.array([typical_of(calibrations[b], prior) for b in best])
    names = np.array(library.names)
    labels_ = np.array([x if x is not None else "" for x in labels])
    inside = np.array([x is not None for x in labels])
    return Table(match[rows, best], typical, rank[rows, best] - rank[rows, second],
                 inside & (names[best] == labels_), inside, np.asarray(generic, dtype=bool))


def typical_of(calibration: J.Calibration, prior: tuple[float, float] | None) -> float:
    if prior is None:
        return calibration.typical()
    n, mean = prior
    if calibration.mean is None or calibration.examples < J.MIN_EXAMPLES:
        return mean
    return (calibration.examples * calibration.mean + n * mean) / (calibration.examples + n)


# -- the sets -----------------------------------------------------------------------------------


@dataclass
class Fold:
    library: Library
    queries: np.ndarray
    labels: list[str | None]
    generic: np.ndarray
    _cos: np.ndarray | None = None

    def cosines(self) -> np.ndarray:
        """The questions' cosines to every passage of the library (computed once)."""
        if self._cos is None:
            self._cos = self.queries.astype(np.float64) @ self.library.vectors.T
        return self._cos


def _skills(rows: Sequence[tuple[str, str]], keep: set[str], conditions: Callable[[str, list[str]], list[str]]
            ) -> list[dict]:
    skills = intent_skills([(t, i) for t, i in rows if i in keep])
    return [{**s, "conditions": conditions(s["source"], s["conditions"])} for s in skills]


def folds(rows: Sequence[tuple[str, str]], vectors: np.ndarray, known: set[str], extra_oos: np.ndarray,
          embed: Embed, leave_intents_out: bool, few: bool = False, seed: int = 0) -> list[Fold]:
    """5 folds of ``rows`` (block folds; ``known``: intents that may be in the library; ``extra_oos``: vectors
    of generic out-of-scope questions added to every fold)."""
    fold = block_folds(rows)
    rng = np.random.default_rng(seed)
    sizes = {}
    out = []
    intents = sorted(known)
    for k in range(5):
        keep = known - ({x for n, x in enumerate(intents) if n % 5 == k} if leave_intents_out else set())

        def conditions(source: str, examples: list[str], k: int = k) -> list[str]:
            if not few:
                return examples
            n = sizes.setdefault((k, source), int(rng.choice(FEW)))
            return [examples[j] for j in rng.permutation(len(examples))[:n]]

        library = Library.of(_skills([r for r, f in zip(rows, fold, strict=True) if f != k], keep, conditions), embed)
        held = np.flatnonzero(fold == k)
        labels = [f"intent:{rows[j][1]}" if rows[j][1] in keep else None for j in held]
        out.append(Fold(library, np.vstack([vectors[held], extra_oos]), labels + [None] * len(extra_oos),
                        np.r_[np.zeros(len(held), bool), np.ones(len(extra_oos), bool)]))
    return out


def training_sets(data: Path, embed: Embed) -> dict[str, list[Fold]]:
    train, oos_train = clinc(data, "train"), clinc(data, "oos_train")
    train_vectors, oos_vectors = embed([t for t, _ in train]), embed([t for t, _ in oos_train])
    rows, known, report = banking_split(data)
    fit_rows = [r for r, held in zip(rows, report, strict=True) if not held]
    bank_vectors = embed([t for t, _ in fit_rows])
    no_oos = np.empty((0, train_vectors.shape[1]), dtype=np.float32)
    clinc_intents = {i for _, i in train}
    titles = Library.of(_skills(train, clinc_intents, lambda s, e: []), embed)
    return {
        "clinc": folds(train, train_vectors, clinc_intents, oos_vectors, embed, leave_intents_out=True),
        "banking": folds(fit_rows, bank_vectors, known, no_oos, embed, leave_intents_out=False),
        "clinc_few": folds(train, train_vectors, clinc_intents, oos_vectors, embed, True, few=True, seed=1),
        "banking_few": folds(fit_rows, bank_vectors, known, no_oos, embed, False, few=True, seed=2),
        "clinc_titles": [Fold(titles, np.vstack([train_vectors, oos_vectors]),
                              [f"intent:{i}" for _, i in train] + [None] * len(oos_train),
                              np.r_[np.zeros(len(train), bool), np.ones(len(oos_train), bool)])],
    }


# -- fitting ------------------------------------------------------------------------------------


def logistic(x: np.ndarray, y: np.ndarray, weights: np.ndarray, l2: float = 1e-3, steps: int = 50) -> np.ndarray:
    """Weighted logistic regression by Newton's method: coefficients, then the intercept."""
    x1 = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(x1.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-x1 @ w))
        grad = x1.T @ (weights * (p - y)) + l2 * np.r_[w[:-1], 0.0]
        hess = (x1 * (weights * p * (1 - p))[:, None]).T @ x1 + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w


def values(t: Table, w: np.ndarray, min_margin: float = 0.0) -> np.ndarray:
    """The decision value of each question's best candidate (below ``min_margin``: no answer)."""
    out = t.features() @ w[:3] + w[3]
    return np.where(t.margin < min_margin, -1.0, out)


def worst_margin(tables: dict[str, Table], w: np.ndarray, min_margin: float) -> float:
    """The smallest margin over the targets (CLINC's null on oos_train only)."""
    out = math.inf
    for name, (in_target, null_target) in TARGETS.items():
        inside, null = tables[name].rates(values(tables[name], w, min_margin), generic_only=name == "clinc")
        out = min(out, inside - in_target, null - null_target)
    return out


def best_bias(tables: dict[str, Table], w: np.ndarray, min_margin: float) -> tuple[np.ndarray, float]:
    """``w`` with the bias at the largest smallest margin over the targets, and that margin."""
    best = max((worst_margin(tables, np.r_[w[:3], w[3] + shift], min_margin), shift)
               for shift in np.arange(-4, 4, 0.001))
    return np.r_[w[:3], w[3] + best[1]], best[0]


#: Margin buckets for MIN_MARGIN (their lower edges).
MARGIN_EDGES = (0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05)


def min_margin(tables: dict[str, Table], w: np.ndarray, log: Callable[[str], None] | None = None) -> float:
    """The margin below which the answers on clinc + banking were right less than half the time: from 0, the
    upper edge of the last bucket in a row whose answers were mostly wrong."""
    both = Table.join([tables["clinc"], tables["banking"]])
    answered = values(both, w) >= 0
    out = 0.0
    for low, high in zip(MARGIN_EDGES[:-1], MARGIN_EDGES[1:], strict=True):
        bucket = answered & (both.margin >= low) & (both.margin < high)
        right = float(both.correct[bucket].mean()) if bucket.any() else 1.0
        if log:
            log(f"    margin {low:.3f}-{high:.3f}: {bucket.sum()} answers, {right:.3f} right")
        if right >= 0.5:
            break
        out = high
    return out


def fit_weights(tables: dict[str, Table], log: Callable[[str], None] | None = None
                ) -> tuple[np.ndarray, float, float]:
    """Logistic weights over clinc + banking; the minimum margin; the bias at the best smallest margin over
    the targets. Returns (weights with the bias, minimum margin, the targets' smallest margin)."""
    sets = [tables["clinc"], tables["banking"]]
    x = np.vstack([t.features() for t in sets])
    y = np.concatenate([t.correct.astype(float) for t in sets])
    weight = np.concatenate([np.where(t.inside, 0.5 / t.inside.sum(), 0.5 / (~t.inside).sum()) for t in sets])
    w = logistic(x, y, weight * len(y) / len(sets))
    w, _ = best_bias(tables, w, 0.0)
    least = min_margin(tables, w, log)
    w, worst = best_bias(tables, w, least)
    return w, least, worst


def prior_mean(titles: Table, w: np.ndarray, least: float) -> float:
    """The lowest prior mean at which skills without conditions refuse 0.85 of oos_train."""
    for mean in np.arange(0.2, 1.0, 0.001):
        shifted = Table(titles.match, np.full_like(titles.match, mean), titles.margin, titles.correct,
                        titles.inside, titles.generic)
        if shifted.rates(values(shifted, w, least), generic_only=True)[1] >= 0.85:
            return float(round(mean, 3))
    raise RuntimeError("no prior mean refuses 0.85 of oos_train")


def tables_at(sets: dict[str, list[Fold]], names: Sequence[str], tau: float, weight: float,
              prior: tuple[float, float]) -> dict[str, Table]:
    return {n: Table.join([table(f, tau, weight, prior) for f in sets[n]]) for n in names}


@dataclass
class Fitted:
    tau: float
    weight: float
    prior_n: float
    prior_mean: float
    w: np.ndarray
    min_margin: float
    margin: float
    tables: dict[str, Table]


def fit_for(sets: dict[str, list[Fold]], tau: float, weight: float, prior_n: float,
            log: Callable[[str], None] | None = None) -> Fitted:
    mean = 0.6
    for _ in range(10):
        tables = tables_at(sets, ("clinc", "banking", "clinc_titles"), tau, weight, (prior_n, mean))
        w, least, margin = fit_weights(tables)
        new = prior_mean(tables["clinc_titles"], w, least)
        if abs(new - mean) < 0.0015:
            break
        mean = new
    if log:
        log(f"  PRIOR_N {prior_n:g}: the answers by margin on the clinc + banking folds")
        min_margin(tables, w, log)
    return Fitted(tau, weight, prior_n, mean, w, least, margin, tables)


def fit(sets: dict[str, list[Fold]], log: Callable[[str], None] = print) -> Fitted:
    log("fit: top-1 (without abstaining) on the clinc + banking folds, per TAU and PROTOTYPE_WEIGHT")
    grid = {}
    for tau in (0.02, 0.03, 0.05, 0.1):
        for weight in (0.2, 0.3, 0.5):
            tops = []
            for name in ("clinc", "banking"):
                t = Table.join([table(f, tau, weight) for f in sets[name]])
                tops.append(float(t.correct[t.inside].mean()))
            grid[(tau, weight)] = sum(tops)
            log(f"  tau {tau:.2f} weight {weight:.1f}: clinc {tops[0]:.4f}, banking {tops[1]:.4f}")
    tau, weight = max(grid, key=lambda k: (round(grid[k], 4), -k[0]))
    log(f"  chosen: TAU {tau}, PROTOTYPE_WEIGHT {weight}")
    best = None
    for prior_n in (1.0, 3.0):
        fitted = fit_for(sets, tau, weight, prior_n, log)
        few = tables_at(sets, ("clinc_few", "banking_few"), tau, weight, (prior_n, fitted.prior_mean))
        a, b = few["clinc_few"].rates(values(few["clinc_few"], fitted.w, fitted.min_margin), generic_only=True)
        c, d = few["banking_few"].rates(values(few["banking_few"], fitted.w, fitted.min_margin))
        log(f"  PRIOR_N {prior_n:g}: MIN_MARGIN {fitted.min_margin}, PRIOR_MEAN {fitted.prior_mean}, smallest margin "
            "over the targets "
            f"{fitted.margin:+.4f}; 0-20 conditions per skill: clinc {a:.3f} / null (oos_train) {b:.3f}, "
            f"banking {c:.3f} / null {d:.3f}")
        if best is None or a + b + c + d > best[0]:
            best = (a + b + c + d, fitted)
    return best[1]


def check_against_judge(fold: Fold, tau: float, weight: float, n: int = 50) -> float:
    """The largest difference between this module's rank scores and ``judge.judge``'s on ``n`` questions."""
    _, rank = scores(fold.library, fold.cosines()[:n], tau, weight)
    worst = 0.0
    for q in range(min(n, len(fold.queries))):
        candidates = [J.Candidate(name, fold.library.block(i) @ fold.queries[q], fold.library.norms[i])
                      for i, name in enumerate(fold.library.names)]
        scored = {s.skill_id: s.rank for s in J.judge(candidates, tau=tau, weight=weight).scored}
        worst = max(worst, max(abs(scored[name] - rank[q, i]) for i, name in enumerate(fold.library.names)))
    return worst


def report(fitted: Fitted, log: Callable[[str], None] = print) -> None:
    w = fitted.w
    log(f"fitted: TAU {fitted.tau}, PROTOTYPE_WEIGHT {fitted.weight}, PRIOR_N {fitted.prior_n:g}, PRIOR_MEAN "
        f"{fitted.prior_mean}, W_MATCH {w[0]:.3f}, W_ABOVE_TYPICAL {w[1]:.3f}, W_MARGIN {w[2]:.3f}, BIAS {w[3]:.3f}, "
        f"MIN_MARGIN {fitted.min_margin}")
    shipped = (J.TAU, J.PROTOTYPE_WEIGHT, J.PRIOR_N, J.PRIOR_MEAN, J.W_MATCH, J.W_ABOVE_TYPICAL, J.W_MARGIN, J.BIAS,
               J.MIN_MARGIN)
    fitted_ = (fitted.tau, fitted.weight, fitted.prior_n, fitted.prior_mean, *np.round(w, 3), fitted.min_margin)
    same = all(abs(a - b) < 1e-6 for a, b in zip(shipped, fitted_, strict=True))
    log(f"  the shipped constants are {'these' if same else 'NOT these: ' + str(shipped)}")
    for name in ("clinc", "banking"):
        t = fitted.tables[name]
        v = values(t, w, fitted.min_margin)
        inside, null = t.rates(v)
        extra = f", oos_train null {t.rates(v, generic_only=True)[1]:.3f}" if name == "clinc" else ""
        log(f"  on the {name} folds it was fitted on: in-scope {inside:.3f}, null {null:.3f}{extra}")
