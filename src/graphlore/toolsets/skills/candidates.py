"""The candidates of a search and the calibrated judge's verdict on them: what ``search_skills`` decides
from, and what ``record_outcome``'s regression check asks before it adds an example.

``search_skills`` gathers :data:`judge.CANDIDATES` skills by hybrid search (BM25
over title, problem, conditions and keywords with the title weighted as in
:data:`TITLE_FIELD_WEIGHTS`, and the best passage cosine, fused; archived skills
filtered out before ranking), reads their passage vectors (and those of their
negative examples) and hands them to the judge.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from graphlore.search.fusion import TITLE_FIELD_WEIGHTS
from graphlore.search.hybrid import HybridParams, hybrid_search
from graphlore.store import Store
from graphlore.toolsets.skills import judge
from graphlore.toolsets.skills.library import KIND, SkillLibrary, Stored, calibration_of

#: How search_skills ranks its candidates (see the module docstring). Each side's 50 best are fused (the
#: default is 100): measured with the shipped judge, the same answers on CLINC150 val, BANKING77 and ABCD, and
#: ~0.5 ms less per search at 10k skills (25: 1 answer in ~2,000 differs; 10: 24 on BANKING77).
RANKING = HybridParams(field_weights=TITLE_FIELD_WEIGHTS, candidates=50)


def candidates(library: SkillLibrary, store, query: str, vector: np.ndarray, limit: int = judge.CANDIDATES,
               params: HybridParams = RANKING) -> list[Stored]:
    """The hybrid search's top skills in use for ``query`` (with its ``vector``), best first, with their
    vectors (archived skills are filtered out before ranking)."""
    hits = hybrid_search(store, query, vector, kind=KIND, where=library.in_use(store), limit=limit, params=params,
                         threads=library.runtime.search_threads)
    stored = library.read(store, [h.id for h in hits], with_vectors=True)
    return [stored[h.id] for h in hits if h.id in stored]


def calibrated(found: list[Stored], vector: np.ndarray, negatives: dict[str, np.ndarray] | None = None,
               whitened: dict[str, float] | None = None, **judge_args: float) -> judge.Verdict:
    """The calibrated judge's verdict on ``found`` (``negatives``: vectors of their negative examples;
    ``whitened``: each one's whitened prototype cosine, in a calibrated library; ``judge_args``: the bench
    varies the constants)."""
    negatives, whitened = negatives or {}, whitened or {}
    return judge.judge([judge.Candidate(s.skill_id, s.node.vectors @ vector, s.node.props["centroid_norm"],
                                        calibration_of(s.node.props),
                                        negatives[s.skill_id] @ vector if s.skill_id in negatives else (),
                                        whitened.get(s.skill_id))
                        for s in found], **judge_args)


def judged(library: SkillLibrary, store: Store, query: str, vector: np.ndarray
           ) -> tuple[list[Stored], dict[str, np.ndarray], judge.Verdict]:
    """The candidates for ``query``, their negative examples' vectors, and the calibrated verdict (while the
    library's own calibration is fresh: on the whitened rank and inputs, by judge v11's network with the library's
    bias shift; the verdict's ``calibration`` says when judge v7's shipped rank and bias decided instead and why)."""
    found = candidates(library, store, query, vector)
    negatives = library.negative_vectors(store, found)
    if not found:
        return found, negatives, judge.Verdict(None, None)
    shift, fallback = library.self_shift(store)
    whitening = library.whitening(store) if fallback is None else None
    whitened = whitening.scores(vector, [s.skill_id for s in found]) if whitening is not None else None
    if fallback is None and whitened is None:  # written since the calibration: the judge of the rest decides
        shift, fallback = 0.0, "the library's own calibration does not cover every candidate (import or reindex it again)"
    verdict = calibrated(found, vector, negatives, whitened, shift=shift)
    return found, negatives, replace(verdict, calibration=fallback) if fallback and verdict.network else verdict
