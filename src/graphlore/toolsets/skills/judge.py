"""The calibrated judge: from the top candidates' scores, ONE skill or none (no LLM).

``search_skills`` gathers up to :data:`CANDIDATES` skills by hybrid search (BM25
and the best passage cosine, fused), then hands the judge, for each candidate,
the cosines between the query and every passage of the skill
(:func:`routing.skill_passages`) and the norm of the mean of its passage vectors
(stored with the skill). The judge scores each candidate

    soft = TAU * log(mean_i exp(cos_i / TAU))             soft best match over the passages
    prototype = mean_i(cos_i) / centroid_norm             cosine to the mean passage direction
    w = m / (m + PROTOTYPE_K)                             m passages: trust the prototype with more of them
    rank score = (1 - w) * soft + w * prototype

returns the best-ranked candidate if its ``soft`` score is at least
:data:`FLOOR`, and abstains otherwise. A skill with many examples (an imported
intent: 100) is ranked half by its prototype, which is what most helps telling
near intents apart; a skill with a title, a problem and a few conditions is
ranked almost only by its soft best match. The floor uses ``soft`` alone because
its level carries over between libraries whose passages are customer questions
(CLINC150) and libraries whose passages are agent-written descriptions (ABCD):
a floor on the rank score fitted on one did not fit the other.

The constants were fitted on CLINC150 val only and checked on ABCD questions written
before any tuning (``bench/skills_routing.py --variants``; the rules compared and
their figures are in bench/README.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Bump when a constant below changes, so benchmark notes can say which judge made them.
JUDGE_VERSION = 2
#: Candidates hybrid search hands the judge.
CANDIDATES = 5
#: Temperature of the soft best match, in cosine units: passages within ~TAU of the best count.
TAU = 0.1
#: Passages at which the prototype gets half of the rank score.
PROTOTYPE_K = 100.0
#: The soft score below which the judge abstains (fitted on CLINC150 val/oos_val: bench/README.md).
FLOOR = 0.3324


@dataclass(frozen=True)
class Candidate:
    """One skill as the judge sees it: the query's cosine to each of its passages."""

    skill_id: str
    cosines: Sequence[float] | np.ndarray
    centroid_norm: float = 1.0


@dataclass(frozen=True)
class Verdict:
    """What the judge decided: ``skill_id`` is None when it abstains; ``best`` is the top-ranked candidate."""

    skill_id: str | None
    best: str | None
    soft: float
    rank_score: float
    runner_up: str | None
    reason: str


def soft_match(cosines: np.ndarray, tau: float = TAU) -> float:
    """``tau * log(mean(exp(cos / tau)))``: the best cosine, raised by close seconds, lowered by far ones."""
    top = float(cosines.max())
    return top + tau * math.log(float(np.mean(np.exp((cosines - top) / tau))))


def prototype_cosine(cosines: np.ndarray, centroid_norm: float) -> float:
    """Cosine to the normalised mean of the passage vectors, from the passage cosines and the mean's norm."""
    return float(np.mean(cosines)) / max(centroid_norm, 1e-9)


def rank_score(cosines: np.ndarray, centroid_norm: float, tau: float = TAU, k: float = PROTOTYPE_K) -> float:
    weight = cosines.size / (cosines.size + k) if k > 0 else 0.0
    return (1.0 - weight) * soft_match(cosines, tau) + weight * prototype_cosine(cosines, centroid_norm)


def centroid_norm(passage_vectors: np.ndarray) -> float:
    """What to store with a skill: the norm of the mean of its (unit) passage vectors."""
    return float(np.linalg.norm(passage_vectors.mean(axis=0)))


def judge(
    candidates: Sequence[Candidate],
    *,
    floor: float = FLOOR,
    tau: float = TAU,
    k: float = PROTOTYPE_K,
) -> Verdict:
    """The best-ranked candidate if its soft score reaches ``floor``, else none. Ties go to the smaller id."""
    scored = []
    for c in candidates:
        cosines = np.asarray(c.cosines, dtype=np.float64)
        if cosines.size == 0:
            continue
        scored.append((rank_score(cosines, c.centroid_norm, tau, k), soft_match(cosines, tau), c.skill_id))
    if not scored:
        return Verdict(None, None, 0.0, 0.0, None, "no candidates")
    scored.sort(key=lambda s: (-s[0], s[2]))
    rank, soft, best = scored[0]
    runner_up = scored[1][2] if len(scored) > 1 else None
    if soft < floor:
        return Verdict(
            None, best, soft, rank, runner_up, f"best match {soft:.3f} is below the floor {floor:.3f}"
        )
    return Verdict(best, best, soft, rank, runner_up, f"best match {soft:.3f} >= floor {floor:.3f}")
