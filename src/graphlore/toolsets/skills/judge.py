"""The calibrated judge: from the candidates' passage cosines, ONE skill or none (no LLM).

``search_skills`` gathers up to :data:`CANDIDATES` skills by hybrid search and hands
the judge, for each, the cosines between the query and every passage of the skill
(:func:`routing.skill_passages`: title, problem, each condition), the norm of the
mean of its passage vectors, its **calibration** (how close its own examples come
to it, below) and the cosines to its negative examples. Per candidate:

    match = TAU * log(mean_i exp(cos_i / TAU))           soft best match over the passages
    prototype = mean_i(cos_i) / centroid_norm            cosine to the mean passage direction
    rank = (1 - PROTOTYPE_WEIGHT) * match + PROTOTYPE_WEIGHT * prototype

In a library with a fresh calibration of its own (below), each candidate also carries the cosine of the query
and the skill's mean condition in the library's whitened space (:mod:`whitening`), and its rank is moved by
``whitening.WEIGHT`` times it (judge v10); the margin and the network read the moved rank, and the network also
reads the best one's whitened cosine and its margin over the best rival's as two more inputs (judge v11): it is
the one refitted on such evidence (:data:`decision.WHITENED`, with :data:`WHITENED_MIN_MARGIN`). The linear rule
(below), fitted on the plain rank and never on the moved one, reads the margin of the plain rank (:func:`plain_rank`).

Candidates rank by ``rank``; the best one is returned when the evidence for it is
enough, and nothing otherwise. The evidence (:mod:`decision`) starts from how close
the query is and how that compares to what the skill's own examples reach:

    typical = (n * examples_mean + PRIOR_N * PRIOR_MEAN) / (n + PRIOR_N)

where ``examples_mean`` is the skill's calibration: each of its ``n`` conditions is
matched (the same ``match``) against the skill's other passages, leaving itself out,
and the matches are averaged (:func:`calibration`; computed when the skill is
written). A skill whose examples sit close together (an imported intent of near
paraphrases) must be matched about as closely as they match each other; a skill with
fewer than 2 conditions has no calibration of its own and is held to ``PRIOR_MEAN``.
When the best candidate has at least ``NETWORK_EXAMPLES`` conditions, :mod:`decision`
adds the margin over the runner-up, the runner-up's own evidence, how the nearest
passages are shared among the candidates and how spread the best one's close passages
are, and reads them with a small fixed network; it answers when its value, moved by the library's own shift
of the bias (:mod:`selfcheck`; none while that is stale or missing), is >= 0
(``score = 1 / (1 + exp(-value))`` >= 0.5) and the margin is at least ``MIN_MARGIN`` and above 0 (a
tie is a guess).
With fewer (a skill written by hand, an imported procedure: the network never saw such
skills and reads them wrongly), judge v3's linear rule decides:

    value = W_MATCH * match + W_ABOVE_TYPICAL * (match - typical) + W_MARGIN * margin + BIAS

answering when ``value >= 0`` and the margin is at least ``LINEAR_MIN_MARGIN``. A candidate whose nearest negative example (a question it failed
on, recorded by ``record_outcome``) is closer to the query than its match is never
returned, but still counts as a rival of the others: the question sits nearer to it,
and its failure says the question is not that skill's, not that the next one is right
(a blocked "Track a late delivery" ranked first otherwise handed "where is my package
now" to "Refund a damaged item", 0.34 behind it).

The constants were fitted once by cross-validation on training data only
(``bench/skills_fit.py``, printed by ``bench/skills_routing.py --fit``): CLINC150
``train`` and ``oos_train``, BANKING77 ``train.csv`` without the fifth the bench
reports on. How, what else was tried, and the figures on splits never fitted on:
bench/README.md (skills_routing).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from graphlore.toolsets.skills import decision, whitening

#: Bump when a constant below changes, so benchmark notes can say which judge made them.
JUDGE_VERSION = 11
#: Candidates hybrid search hands the judge.
CANDIDATES = 5
#: Temperature of the soft best match, in cosine units: passages within ~TAU of the best count.
TAU = 0.02
#: Share of the prototype cosine in the rank score.
PROTOTYPE_WEIGHT = 0.3
#: Examples' worth of the prior in a skill's calibration, and the prior's value (see the module docstring).
PRIOR_N = 1.0
PRIOR_MEAN = 0.57
#: Conditions a skill needs for a calibration of its own.
MIN_EXAMPLES = 2
#: Conditions the best candidate needs for :mod:`decision`'s network to decide: it was fitted on skills of
#: tens of examples (and reads the spread of the 10 closest); below, the linear rule of judge v3 decides.
NETWORK_EXAMPLES = 10
#: A best candidate less than this (in rank) ahead of the runner-up is never returned: a coin flip (the
#: linear rule's answers with a margin under 0.015 were right less than half the time on the training folds;
#: the network's were right more often than not at every margin, so it only needs to rank strictly above).
MIN_MARGIN = 0.0
#: The same for judge v11's network on the whitened rank and inputs (a calibrated library's; refitted with it).
WHITENED_MIN_MARGIN = 0.0
LINEAR_MIN_MARGIN = 0.015
#: The linear rule (judge v3's, for skills with fewer than NETWORK_EXAMPLES conditions): weights of match,
#: match above what the skill's examples reach, margin, and its bias.
W_MATCH = -2.867
W_ABOVE_TYPICAL = 13.955
W_MARGIN = 10.9
BIAS = 3.116


@dataclass(frozen=True)
class Calibration:
    """How close a skill's own examples come to it: ``examples`` conditions, their mean leave-one-out match."""

    examples: int = 0
    mean: float | None = None

    def typical(self) -> float:
        """The match an in-scope question is expected to reach: the mean, shrunk toward the prior."""
        if self.mean is None or self.examples < MIN_EXAMPLES:
            return PRIOR_MEAN
        return (self.examples * self.mean + PRIOR_N * PRIOR_MEAN) / (self.examples + PRIOR_N)


@dataclass(frozen=True)
class Candidate:
    """One skill as the judge sees it: the query's cosine to each of its passages (and negative examples)."""

    skill_id: str
    cosines: Sequence[float] | np.ndarray
    centroid_norm: float = 1.0
    calibration: Calibration = Calibration()
    negatives: Sequence[float] | np.ndarray = ()
    #: The cosine of the query and the skill's mean condition in the library's whitened space (:mod:`whitening`),
    #: for a library with a fresh calibration of its own; None elsewhere.
    whitened: float | None = None


@dataclass(frozen=True)
class Scored:
    """A candidate's evidence: its match, prototype cosine, rank score, typical match and nearest negative."""

    skill_id: str
    match: float
    prototype: float
    rank: float
    typical: float
    best_passage: int
    negative: float | None = None
    examples: int = 0
    cosines: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False, compare=False)
    #: The whitened prototype cosine the rank was moved by (None: not re-ranked).
    whitened: float | None = None

    @property
    def blocked(self) -> bool:
        """A negative example is closer to the query than the skill's own passages are."""
        return self.negative is not None and self.negative > self.match


@dataclass(frozen=True)
class Verdict:
    """What the judge decided: ``skill_id`` None when it abstains; ``best`` the best candidate it could return."""

    skill_id: str | None
    best: str | None
    scored: list[Scored] = field(default_factory=list)
    margin: float = 0.0
    value: float = -math.inf
    reason: str = "no candidates"
    guess: bool = False  # the margin guard refused the best candidate, whatever its value
    #: Set when the network decided with the shipped bias because the library has no fresh calibration of its
    #: own (:mod:`selfcheck`): why.
    calibration: str | None = None

    @property
    def network(self) -> bool:
        """Whether the network decided (the best candidate has NETWORK_EXAMPLES conditions or more)."""
        best = next((s for s in self.scored if s.skill_id == self.best), None)
        return best is not None and best.examples >= NETWORK_EXAMPLES

    def answers_at(self, shift: float) -> bool:
        """Whether the best candidate would be returned with the decision value moved by ``shift`` (the bench's
        diagnostic of other biases): never when there is none or the margin guard refused it."""
        return self.best is not None and not self.guess and self.value + shift >= 0

    @property
    def score(self) -> float:
        """The decision value as a number in [0, 1]; 0.5 and above is an answer."""
        return sigmoid(self.value) if math.isfinite(self.value) else 0.0


def soft_match(cosines: np.ndarray, tau: float = TAU) -> float:
    """``tau * log(mean(exp(cos / tau)))``: the best cosine, raised by close seconds, lowered by far ones."""
    top = float(cosines.max())
    return top + tau * math.log(float(np.mean(np.exp((cosines - top) / tau))))


def prototype_cosine(cosines: np.ndarray, centroid_norm: float) -> float:
    """Cosine to the normalised mean of the passage vectors, from the passage cosines and the mean's norm."""
    return float(np.mean(cosines)) / max(centroid_norm, 1e-9)


def rank_score(match: float, prototype: float, weight: float = PROTOTYPE_WEIGHT) -> float:
    return (1.0 - weight) * match + weight * prototype


def centroid_norm(passage_vectors: np.ndarray) -> float:
    """What to store with a skill: the norm of the mean of its (unit) passage vectors."""
    return float(np.linalg.norm(passage_vectors.mean(axis=0)))


def calibration(passage_vectors: np.ndarray, head: int, tau: float = TAU) -> Calibration:
    """Each condition (passages from ``head`` on) matched against the skill's other passages, averaged."""
    vectors = np.asarray(passage_vectors, dtype=np.float64)
    n = len(vectors) - head
    if n < MIN_EXAMPLES:
        return Calibration(max(n, 0), None)
    cos = vectors[head:] @ vectors.T
    cos[np.arange(n), head + np.arange(n)] = -np.inf  # leave each condition out of its own match
    top = cos.max(axis=1)
    matches = top + tau * np.log(np.exp((cos - top[:, None]) / tau).sum(axis=1) / (len(vectors) - 1))
    return Calibration(n, float(matches.mean()))


def linear_value(match: float, typical: float, margin: float) -> float:
    """Judge v3's decision value, for a best candidate with fewer than NETWORK_EXAMPLES conditions; >= 0
    answers."""
    return W_MATCH * match + W_ABOVE_TYPICAL * (match - typical) + W_MARGIN * margin + BIAS


def score(candidate: Candidate, tau: float = TAU, weight: float = PROTOTYPE_WEIGHT) -> Scored | None:
    cosines = np.asarray(candidate.cosines, dtype=np.float64)
    if cosines.size == 0:
        return None
    match = soft_match(cosines, tau)
    proto = prototype_cosine(cosines, candidate.centroid_norm)
    negatives = np.asarray(candidate.negatives, dtype=np.float64)
    rank = rank_score(match, proto, weight)
    if candidate.whitened is not None:
        rank += whitening.WEIGHT * candidate.whitened
    return Scored(candidate.skill_id, match, proto, rank, candidate.calibration.typical(), int(cosines.argmax()),
                  float(negatives.max()) if negatives.size else None, candidate.calibration.examples, cosines,
                  candidate.whitened)


def judge(candidates: Sequence[Candidate], *, tau: float = TAU, weight: float = PROTOTYPE_WEIGHT,
          shift: float = 0.0) -> Verdict:
    """The best-ranked candidate that no negative example blocks, if the evidence for it is enough; else none.
    ``candidates`` come in the hybrid search's order (the network reads where the best one stood). Ties go to
    the smaller id. ``shift``: the library's own move of the network's bias (:mod:`selfcheck`; the linear rule
    has none). Candidates that all carry a whitened score (a calibrated library's) are judged by judge v11's
    network on the whitened rank and inputs, others by judge v7's."""
    scored = sorted((s for s in (score(c, tau, weight) for c in candidates) if s is not None),
                    key=lambda s: (-s.rank, s.skill_id))
    eligible = [s for s in scored if not s.blocked]
    fused = {c.skill_id: n for n, c in enumerate(candidates)}  # the hybrid search's order
    if not eligible:
        reason = ("no candidates" if not scored else
                  "every candidate is closer to a question it failed on than to its own passages")
        return Verdict(None, None, scored, reason=reason)
    best = eligible[0]
    rivals = [s for s in scored if s is not best]  # a blocked skill still competes: see the module docstring
    margin = best.rank - rivals[0].rank if rivals else 0.0  # alone: its own evidence must carry it
    whitened = all(s.whitened is not None for s in scored)
    if best.examples >= NETWORK_EXAMPLES:
        net, least = (decision.WHITENED, WHITENED_MIN_MARGIN) if whitened else (decision.SHIPPED, MIN_MARGIN)
        value = decision.value(decision.features(best, rivals, fused[best.skill_id]), net) + shift
        rule = ("the network" + (" on the library's whitened rank and scores" if whitened else "")
                + (f" (the library's bias {shift:+.2f})" if shift else ""))
    else:  # judge v3's rule was fitted on the plain rank's margin: the whitened move is not its evidence
        if whitened and rivals:
            runner = max(rivals, key=lambda s: (plain_rank(s), s.skill_id))
            margin = plain_rank(best) - plain_rank(runner)
        value, least, rule = linear_value(best.match, best.typical, margin), LINEAR_MIN_MARGIN, "the linear rule"
        rule += " on the plain rank" if whitened else ""
    rule = f"{rule} (a skill of {best.examples} conditions)"
    guard = None
    if rivals and (margin < least or margin <= 0):  # a tie is a guess, whatever the fitted minimum
        if margin < 0 and whitened and best.examples < NETWORK_EXAMPLES:
            guard = (f"skill {runner.skill_id} ranks above it before the whitened move (margin {margin:.3f}), "
                     "which the linear rule does not read")
        elif margin < 0:
            guard = f"skill {rivals[0].skill_id}, ranked above it (margin {margin:.3f}), failed on a question like this one"
        elif margin == 0:
            guard = f"skill {rivals[0].skill_id} ranks exactly as high (margin 0)"
        else:
            guard = f"the runner-up, skill {rivals[0].skill_id}, is as close (margin {margin:.3f} < {least:g})"
        guard += ": choosing would be a guess"
    if guard is None and value >= 0:
        return Verdict(best.skill_id, best.skill_id, scored, margin, value,
                       f"{rule} scores {sigmoid(value):.2f}, 0.5 is enough: match {best.match:.3f} (typical {best.typical:.3f}), "
                       f"{_margin(margin, bool(rivals))}")
    reason = why_not(best, margin, value, rule, bool(rivals), guard=guard, disagreement=disagreement(best, rivals))
    if guard is None:
        return Verdict(None, best.skill_id, scored, margin, value, reason)
    return Verdict(None, best.skill_id, scored, margin, min(value, -1e-9), reason, guess=True)


def plain_rank(scored: Scored) -> float:
    """A candidate's rank before the whitened move (judge v7's rank)."""
    return scored.rank - (whitening.WEIGHT * scored.whitened if scored.whitened is not None else 0.0)


def sigmoid(value: float) -> float:
    """A decision value as a score in [0, 1] (0.5 at 0)."""
    return 1.0 / (1.0 + math.exp(-value))


def _margin(margin: float, rivals: bool) -> str:
    return f"margin over the runner-up {margin:.3f}" if rivals else "no other candidate"


def why_not(best: Scored, margin: float, value: float, rule: str = "the evidence", rivals: bool = True,
            guard: str | None = None, disagreement: str | None = None) -> str:
    """What the best candidate lacked, in words, naming every check that refused it: too low a score (what
    ``rule`` scored it, and how its match compares to its examples'), too close a runner-up (``guard``: the margin
    guard's sentence) and signals that point elsewhere (``disagreement``). A score that was enough on its own is
    said too, so a refusal by the margin alone does not read as a weak match."""
    gap = best.typical - best.match
    below = (f"match {best.match:.3f} is {'far ' if gap >= FAR_BELOW else ''}below what its examples reach "
             f"({best.typical:.3f})" if gap > 0 else f"match {best.match:.3f} (its examples reach {best.typical:.3f})")
    refused = []
    if value < 0:
        refused.append(f"too low a score: {rule} scores {sigmoid(value):.2f}, 0.5 needed; {below}; "
                       f"{_margin(margin, rivals)}")
    if guard is not None:
        refused.append(f"too close a runner-up: {guard}")
    if disagreement is not None:
        refused.append(f"the signals disagree: {disagreement}")
    head = f"{len(refused)} check{'s' if len(refused) > 1 else ''} refused it"
    enough = (f" (its score alone would have been enough: {rule} scores {sigmoid(value):.2f}; {below})"
              if value >= 0 else "")
    return f"{head}{enough}: " + "; ".join(f"({n}) {text}" for n, text in enumerate(refused, 1))


#: A match this far (cosine units) under what the skill's own examples reach is "far below" in a reason.
FAR_BELOW = 0.1
#: Passages nearest the query (over every candidate) whose owners a reason counts.
NEAREST_SAID = 5


def disagreement(best: Scored, rivals: Sequence[Scored]) -> str | None:
    """Which of the evidence the network reads points to another candidate than the best-ranked one, in words:
    the owners of the 5 passages nearest the query (another skill owning more of them than the best one) and, in
    a calibrated library, the whitened metric (another candidate closer to its skill's mean condition). None when
    they agree."""
    said = []
    owners = [(float(c), best.skill_id) for c in best.cosines]
    owners += [(float(c), r.skill_id) for r in rivals for c in r.cosines]
    nearest = [who for _, who in sorted(owners, key=lambda o: -o[0])[:NEAREST_SAID]]
    other = max((r.skill_id for r in rivals), key=nearest.count, default=None)
    if other is not None and nearest.count(other) > nearest.count(best.skill_id):
        said.append(f"{nearest.count(other)} of the {len(nearest)} passages nearest the question (title, problem, "
                    f"conditions) belong to skill {other} ({nearest.count(best.skill_id)} to it)")
    if best.whitened is not None:
        closer = [r for r in rivals if r.whitened is not None and r.whitened > best.whitened]
        if closer:
            top = max(closer, key=lambda r: r.whitened)
            said.append(f"in the library's whitened space skill {top.skill_id} is closer ({top.whitened:.3f} against "
                        f"{best.whitened:.3f})")
    return "; ".join(said) or None
