"""The library's own calibration: how far to move the network's bias for this library, found by judging the
library against parts of itself.

One bias cannot serve every library: on questions of unknown intents that sit beside known ones (BANKING77's)
the network needs a lower bias to abstain enough, on a library of well separated intents (CLINC150's) a
higher one to answer enough. The library itself is training data for that: leave a fifth of its skills out
(their conditions become questions of unknown intents) and a contiguous fifth of every other skill's
conditions out (questions of known ones), each taking its :data:`PARAPHRASES_OUT` nearest conditions with it
(a library's examples were written together, so a left-out example may find a near copy of itself among the
rest, where a question nobody wrote the examples for is less likely to), five times; judge every such question by the
judge's own scores over the 5 best-ranked skills of what is left, re-ranked as the search re-ranks a calibrated
library's candidates (:mod:`whitening`, fitted on what each fold keeps) and read, with the whitened evidence as
inputs, by the network the search then uses (:data:`decision.WHITENED`), and move the bias to the largest value (on a 0.01 grid) at which that network
still abstains on :data:`NULL_LEVEL` of the unknown questions. Those are the constants, fitted by
cross-validation on training folds (``bench/skills_fit.py``; bench/README.md, skills_routing, judges v6, v7,
v10 and v11).

Only for libraries of at least :data:`MIN_SKILLS` skills whose median skill has :data:`MIN_CONDITIONS`
conditions; others keep the shipped bias (below it the simulation moves the bias by far more than it should:
measured, bench/README.md, judge v7's minimum). Computed when a library is
imported or re-embedded, never on the search path (a CLINC150-sized library of 15,000 conditions takes a few
seconds); any other write makes it stale, but for routing examples learned from use up to
:data:`LEARNED_SHARE` of the conditions it was made from (:func:`keeps`; not once they give a library that had
too few conditions enough of them), and a stale or missing one leaves
the shipped bias, which the search's evidence says.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from graphlore.toolsets.skills import decision, judge, whitening

#: Share of the simulated unknown questions the network must still abstain on at the library's bias (judge v11's,
#: fitted with its network on the whitened rank and inputs; judge v7's was 0.49 on the shipped rank, v10's 0.48).
NULL_LEVEL = 0.57
#: Judge v7's level, with its network on the shipped rank (what the bench's v7 procedure refits).
SHIPPED_NULL_LEVEL = 0.49
#: Conditions nearest each left-out question of a known skill that leave with it (:func:`_unseen`).
PARAPHRASES_OUT = 3
#: Examples learned from use (as a share of the conditions it was made from) a calibration stays valid for.
LEARNED_SHARE = 0.02
#: Folds of the simulation (a fifth of the skills and of each skill's conditions left out each time).
FOLDS = 5
MIN_SKILLS = 10
#: Conditions the median skill needs: the smallest size from which the calibration raised the fit's margin on
#: CLINC150's train folds cut to 10-80 conditions a skill at it and every larger size measured (at 45 it lowered
#: it; on 10-12 it lowered oos_train's null too): ``bench/skills_fit.py`` ``min_conditions``, printed by
#: ``bench/skills_routing.py --min-conditions``; bench/README.md, session 7.
MIN_CONDITIONS = 50
#: The shifts tried, and the bounds of the answer.
SHIFTS = np.round(np.arange(-3.0, 3.0, 0.01), 2)


def applies(conditions: Sequence[int]) -> str | None:
    """Why a library whose skills have ``conditions`` each gets no calibration of its own (None: it does)."""
    if len(conditions) < MIN_SKILLS:
        return f"{len(conditions)} skills in use, {MIN_SKILLS} needed"
    if float(np.median(conditions)) < MIN_CONDITIONS:
        return f"the median skill has {float(np.median(conditions)):g} conditions, {MIN_CONDITIONS} needed"
    return None


def simulate(blocks: Sequence[np.ndarray], heads: Sequence[int],
             progress: Callable[[int, int, str], None] | None = None, whitened: bool = True
             ) -> tuple[np.ndarray, np.ndarray]:
    """The network's value before its bias for every simulated question, and whether it was known (see the
    module docstring). ``blocks``: each skill's passage vectors (in a fixed order), ``heads``: how many of them
    describe the skill (title, problem) before its conditions; ``progress`` hears of each fold done;
    ``whitened`` False: judge v7's simulation (the shipped rank and network; the bench refits it)."""
    values, known = [], []
    for k in range(FOLDS):
        kept, questions, labels = [], [], []
        for i, (block, head) in enumerate(zip(blocks, heads, strict=True)):
            n = len(block) - head
            out = head + np.flatnonzero(np.arange(n) * FOLDS // max(n, 1) == k)
            questions.append(block[out])
            if i % FOLDS == k:  # left out: its questions are unknown
                labels += [-1] * len(out)
            else:
                labels += [len(kept)] * len(out)
                kept.append((_unseen(np.delete(block, out, axis=0), head, block[out]), head))
        if not kept:
            continue
        values.append(_judged(kept, np.vstack(questions).astype(np.float64), whitened=whitened))
        known.append(np.array(labels) >= 0)
        if progress is not None:
            progress(k + 1, FOLDS, "calibration folds")
    return np.concatenate(values), np.concatenate(known)


def _unseen(kept: np.ndarray, head: int, questions: np.ndarray) -> np.ndarray:
    """A skill's passages ``kept`` less each of its left-out ``questions``' :data:`PARAPHRASES_OUT` nearest
    conditions (none leave when fewer than 2 would remain), so that a question left out finds no near copy of itself among what is left:
    unseen wording, as a question nobody wrote the examples for."""
    conditions = kept[head:]
    if PARAPHRASES_OUT == 0 or len(questions) == 0:
        return kept
    nearest = np.argsort(-(questions.astype(np.float64) @ conditions.T.astype(np.float64)), axis=1, kind="stable")
    gone = np.unique(nearest[:, :PARAPHRASES_OUT])
    if len(conditions) - len(gone) < 2:
        return kept
    return np.vstack([kept[:head], np.delete(conditions, gone, axis=0)])


def _judged(skills: list[tuple[np.ndarray, int]], queries: np.ndarray, chunk: int = 512, whitened: bool = True
            ) -> np.ndarray:
    """The network's value (before its bias) of each query's best candidate among its 5 best-ranked skills,
    re-ranked in the whitened space of ``skills`` unless not ``whitened`` (``chunk`` queries at a time: the
    cosines of all of them to every passage would not fit in memory)."""
    tau, weight = judge.TAU, judge.PROTOTYPE_WEIGHT
    white = whitening.Whitening.fit([b for b, _ in skills], [h for _, h in skills]) if whitened else None
    matrix = np.vstack([b for b, _ in skills]).astype(np.float64)
    starts = np.concatenate([[0], np.cumsum([len(b) for b, _ in skills])])
    norms = np.array([max(judge.centroid_norm(b), 1e-9) for b, _ in skills])
    typical = np.array([judge.calibration(b, h).typical() for b, h in skills])
    rows = []
    for at in range(0, len(queries), chunk):
        cos = queries[at:at + chunk] @ matrix.T
        match, rank = np.empty((len(cos), len(skills))), np.empty((len(cos), len(skills)))
        for i in range(len(skills)):
            c = cos[:, starts[i]:starts[i + 1]]
            top = c.max(axis=1)
            match[:, i] = top + tau * np.log(np.mean(np.exp((c - top[:, None]) / tau), axis=1))
            rank[:, i] = judge.rank_score(match[:, i], c.mean(axis=1) / norms[i], weight)
        order = np.argsort(-rank, axis=1, kind="stable")[:, :judge.CANDIDATES]
        if white is not None:  # the search's re-ranking of the same 5 (whitening.WEIGHT x the whitened cosine)
            moved = white.query(queries[at:at + chunk]) @ white.prototypes.T
            rank = rank + whitening.WEIGHT * moved
        for q, found in enumerate(order):
            found = sorted(found, key=lambda i, q=q: (-rank[q, i], i))
            evs = [_Ev(match[q, i], rank[q, i], typical[i], cos[q, starts[i]:starts[i + 1]],
                       None if white is None else float(moved[q, i])) for i in found]
            rows.append(decision.features(evs[0], evs[1:]))
    return decision.outputs(np.array(rows), decision.WHITENED if white is not None else decision.SHIPPED)


class _Ev:
    """One candidate's evidence as :func:`decision.features` reads it."""

    __slots__ = ("match", "rank", "typical", "cosines", "whitened")

    def __init__(self, match: float, rank: float, typical: float, cosines: np.ndarray,
                 whitened: float | None = None) -> None:
        self.match, self.rank, self.typical, self.cosines, self.whitened = match, rank, typical, cosines, whitened


def keeps(learned: int, conditions: int) -> bool:
    """Whether a calibration made from ``conditions`` conditions stays valid with ``learned`` routing examples
    learned from use since (at most :data:`LEARNED_SHARE` of them): a few more examples of known skills barely
    move the shift (bench/README.md, judge v7), and recomputing it is seconds no search should wait for."""
    return learned <= LEARNED_SHARE * conditions


def shift_for(values: np.ndarray, known: np.ndarray, level: float = NULL_LEVEL, bias: float | None = None
              ) -> float:
    """The largest shift of :data:`SHIFTS` at which the network abstains on ``level`` of the unknown
    questions (the smallest shift when none does); ``bias``: the network's (judge v11's unless given)."""
    unknown = values[~known] + (decision.WHITENED.bias if bias is None else bias)
    if unknown.size == 0:
        return 0.0
    refused = (unknown[None, :] + SHIFTS[:, None] < 0).mean(axis=1)
    ok = SHIFTS[refused >= level]
    return float(ok.max()) if ok.size else float(SHIFTS[0])


def library_shift(blocks: Sequence[np.ndarray], heads: Sequence[int],
                  progress: Callable[[int, int, str], None] | None = None) -> tuple[float | None, str]:
    """The library's shift of the network's bias and how it was found (or why there is none)."""
    why = applies([len(b) - h for b, h in zip(blocks, heads, strict=True)])
    if why is not None:
        return None, why
    values, known = simulate(blocks, heads, progress)
    shift = shift_for(values, known)
    return shift, (f"{int((~known).sum())} questions of left-out skills and {int(known.sum())} of left-out "
                   f"conditions: the network abstains on {NULL_LEVEL:g} of the first at a shift of {shift:+.2f}")
