"""Pure ranking functions: fuse a keyword and a vector ranking, and report scores.

Nothing here reads a store or a model; toolsets pass in what the store returned
(:class:`~graphlore.store.base.Hit` lists, vectors) and get rankings back, so
every function is tested on plain data. Ties are broken by id everywhere, so a
result never depends on the order in which equal-scored hits arrived.

The defaults (``anchored`` fusion and its weights, the title weight, the candidate
depth) were chosen on SciFact train with ``bench/retrieval_scifact.py``; the figures
are in bench/README.md. The anchored weight relates BM25 to the cosine scale of the
embedder: re-measure it when the embedder changes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from graphlore.store.base import Hit

#: ``k`` of reciprocal rank fusion (Cormack et al. 2009); 60 is the published default.
RRF_K = 60

#: The default fusion (bench/README.md: what it was measured against).
DEFAULT_METHOD = "anchored"

#: (keyword, vector) weights used when ``fuse`` gets none, per method. Only ``anchored`` was tuned; the
#: others keep their usual neutral settings.
METHOD_WEIGHTS: dict[str, tuple[float, float]] = {
    "anchored": (0.3, 0.7),
    "convex": (0.5, 0.5),
    "zscore": (0.5, 0.5),
    "rrf": (1.0, 1.0),
}

#: BM25 column weights (name, text) for the store's ``keyword_search`` when ``name`` is a title: a match in
#: a title says more than one in a body.
TITLE_FIELD_WEIGHTS = (3.0, 1.0)

#: Hits to ask each side for before fusing (deeper lists changed little).
CANDIDATES = 100

Scores = Mapping[str, float]


def ranked(scores: Scores) -> list[tuple[str, float]]:
    """``scores`` as (id, score) pairs, best first, ties by id."""
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def rrf(
    rankings: Sequence[Sequence[str]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Reciprocal rank fusion: each id scores ``sum(w / (k + rank))`` with rank counted from 1.

    Uses ranks only, so it needs no score calibration; an id missing from a
    ranking gets nothing from it. A repeated id counts at its best rank.
    """
    if k < 0:
        raise ValueError(f"rrf k must be >= 0, got {k}")
    weights = [1.0] * len(rankings) if weights is None else list(weights)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    fused: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        seen: set[str] = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return ranked(fused)


def minmax(scores: Scores) -> dict[str, float]:
    """Scale to [0, 1]: best 1, worst 0; if all are equal, all are 1 (each is the best there is)."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high - low <= 0:
        return dict.fromkeys(scores, 1.0)
    return {key: (value - low) / (high - low) for key, value in scores.items()}


def zscore(scores: Scores) -> dict[str, float]:
    """Standard scores (mean 0, population sd 1); all 0 when the scores do not vary."""
    if not scores:
        return {}
    values = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
    mean, sd = float(values.mean()), float(values.std())
    if sd <= 0:
        return dict.fromkeys(scores, 0.0)
    return {key: (value - mean) / sd for key, value in scores.items()}


def max_scaled(scores: Scores) -> dict[str, float]:
    """Divide by the best score, so the best is 1 and zero stays zero (BM25 has no absolute scale).

    Meant for scores >= 0 such as BM25; falls back to :func:`minmax` when one is
    negative or none is positive, so the result is always in [0, 1].
    """
    if not scores:
        return {}
    high = max(scores.values())
    if high <= 0 or min(scores.values()) < 0:
        return minmax(scores)
    return {key: value / high for key, value in scores.items()}


def unchanged(scores: Scores) -> dict[str, float]:
    """Keep scores as they are: for cosines, whose absolute level already means something."""
    return dict(scores)


Normaliser = Callable[[Scores], dict[str, float]]


def convex(
    score_lists: Sequence[Scores],
    weights: Sequence[float],
    normalise: Normaliser | Sequence[Normaliser] = minmax,
) -> list[tuple[str, float]]:
    """Weighted sum of normalised scores; an id missing from a list gets that list's lowest value.

    ``normalise`` is one function for every list or one per list. "Lowest"
    rather than a fixed 0 keeps z-scores honest (0 would be the mean), and
    equals 0 under min-max.
    """
    if len(weights) != len(score_lists):
        raise ValueError(f"{len(weights)} weights for {len(score_lists)} score lists")
    normalisers = [normalise] * len(score_lists) if callable(normalise) else list(normalise)
    if len(normalisers) != len(score_lists):
        raise ValueError(f"{len(normalisers)} normalisers for {len(score_lists)} score lists")
    normalised = [fn(scores) for fn, scores in zip(normalisers, score_lists, strict=True)]
    floors = [min(n.values()) if n else 0.0 for n in normalised]
    ids = set().union(*normalised) if normalised else set()
    # One pass per list rather than a generator per id (this runs on every search); the terms are
    # added in list order, as ``sum`` over the lists would.
    fused = dict.fromkeys(ids, 0.0)
    for n, w, floor in zip(normalised, weights, floors, strict=True):
        missing = w * floor
        for item in fused:
            value = n.get(item)
            fused[item] += missing if value is None else w * value
    return ranked(fused)


def anchored(keyword: Scores, vector: Scores, weights: Sequence[float]) -> list[tuple[str, float]]:
    """Keyword scores over the best keyword score, plus raw cosines, weighted.

    BM25 has no scale shared across queries, so it is taken relative to the
    query's best match; a cosine does (0.7 is close whatever the query), so it
    is kept as is instead of being stretched to [0, 1]. A query whose best
    cosine is low thus leans on its keywords, and one with a close vector
    match leans on that. Missing ids get the lowest value of their list.
    """
    return convex([keyword, vector], weights, [max_scaled, unchanged])


def _scores(hits: Sequence[Hit]) -> dict[str, float]:
    """Hit list to a score map; a repeated id keeps its best score."""
    out: dict[str, float] = {}
    for hit in hits:
        if hit.id not in out or hit.score > out[hit.id]:
            out[hit.id] = hit.score
    return out


FUSION_METHODS = ("anchored", "convex", "zscore", "rrf", "keyword", "vector")


def fuse(
    keyword_hits: Sequence[Hit],
    vector_hits: Sequence[Hit],
    method: str = DEFAULT_METHOD,
    *,
    weights: Sequence[float] | None = None,
    k: int = RRF_K,
) -> list[Hit]:
    """Fuse a BM25 and a cosine ranking of the same filtered candidates into one ranking.

    ``method``: ``anchored`` (the default: BM25 over its best plus raw cosine,
    see :func:`anchored`), ``convex`` (min-max normalised weighted sum),
    ``zscore`` (z-score weighted sum), ``rrf`` (reciprocal rank fusion with
    ``k``; ``weights`` weight each ranking), or ``keyword`` / ``vector`` (one
    side only). ``weights`` is (keyword, vector), by default
    ``METHOD_WEIGHTS[method]``. The fused ``Hit.score`` only orders results;
    report :func:`cosine_to_unit` of the vector score to users.
    """
    if method not in FUSION_METHODS:
        raise ValueError(f"unknown fusion method {method!r}; use one of {', '.join(FUSION_METHODS)}")
    if weights is None:
        weights = METHOD_WEIGHTS.get(method, (1.0, 1.0))
    if len(weights) != 2:
        raise ValueError(f"weights must be (keyword, vector), got {tuple(weights)}")
    if method == "keyword":
        return [Hit(i, s) for i, s in ranked(_scores(keyword_hits))]
    if method == "vector":
        return [Hit(i, s) for i, s in ranked(_scores(vector_hits))]
    if method == "rrf":
        lists = [[i for i, _ in ranked(_scores(hits))] for hits in (keyword_hits, vector_hits)]
        return [Hit(i, s) for i, s in rrf(lists, k=k, weights=weights)]
    if method == "anchored":
        fused = anchored(_scores(keyword_hits), _scores(vector_hits), weights)
    else:
        normalise = minmax if method == "convex" else zscore
        fused = convex([_scores(keyword_hits), _scores(vector_hits)], weights, normalise)
    return [Hit(i, s) for i, s in fused]


def cosine_to_unit(score: float) -> float:
    """The similarity reported to users: the cosine clipped to [0, 1].

    Negative cosines (opposed directions; rare for sentence embeddings) read as
    0, and float error above 1 reads as 1. No rescaling, so a threshold of 0.75
    means a cosine of 0.75, as documented and as duplicate bands assume.
    """
    if math.isnan(score):
        return 0.0
    return min(1.0, max(0.0, float(score)))
