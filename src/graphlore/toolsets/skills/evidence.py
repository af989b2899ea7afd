"""Why ``search_skills`` answered as it did: the candidates, their scores, which fields matched, the decision.

Users of every skill system ask "why did it not trigger?". The answer is built
from what the calibrated judge computed (:class:`judge.Verdict`), whichever judge
decided: each candidate's match, what its own examples reach, its rank (in a calibrated library also the
whitened score that moved it) and its closest passage of each field; the margin; the decision in words, and for
no skill the nearest skill and what it lacked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from graphlore.toolsets.skills import judge, routing
from graphlore.toolsets.skills.library import NEGATIVE_EXAMPLES, Stored
from graphlore.toolsets.skills.models import CandidateEvidence, MatchedPassage, RoutingEvidence

#: Characters of a passage shown in the evidence.
SHOWN = 200


def floored(score: float, digits: int) -> float:
    """``score`` cut (not rounded) to ``digits``: a score shown as 0.5 always answered (rounding showed 0.5 for
    the margin guard's value just below 0). The small lift absorbs binary error (0.57 * 100 is 56.99...)."""
    scale = 10 ** digits
    return math.floor(score * scale + 1e-9) / scale


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def matched(stored: Stored, cosines: np.ndarray) -> list[MatchedPassage]:
    """The skill's closest passage of each field (title, problem, its best condition), closest first. Passages
    are title, problem (unless a repeat), then the conditions (:func:`routing.passage_fields`)."""
    fields = stored.fields
    conditions = fields["conditions"]
    head = len(cosines) - len(conditions)
    if head not in (1, 2) or (head == 1 and (fields["problem"] or "").strip() not in ("", fields["title"].strip())):
        # some condition repeats the title, the problem or another condition: label each passage
        named = routing.passage_fields(fields)
    else:
        named = [("title", fields["title"]), *([("problem", fields["problem"])] if head == 2 else [])]
    out = [(float(cosines[i]), name, text) for i, (name, text) in enumerate(named) if name != "condition"]
    first = sum(1 for name, _ in named if name != "condition")
    if len(cosines) > first:
        best = first + int(np.argmax(cosines[first:]))
        text = named[best][1] if best < len(named) else conditions[best - first]
        out.append((float(cosines[best]), "condition", text))
    return [MatchedPassage(field=name, text=_cut(text), cosine=round(cos, 4))
            for cos, name, text in sorted(out, key=lambda row: -row[0])]


def failed_on(stored: Stored, scored: judge.Scored, negatives: np.ndarray | None) -> str | None:
    """The negative example that blocks the skill for this query, if one does."""
    if not scored.blocked or negatives is None:
        return None
    examples = stored.node.props.get(NEGATIVE_EXAMPLES) or []
    return _cut(examples[int(np.argmax(negatives))]) if examples else None


def build(found: Sequence[Stored], verdict: judge.Verdict, vector: np.ndarray | None,
          negatives: Mapping[str, np.ndarray], answer: str | None, decision: str | None = None) -> RoutingEvidence:
    """The evidence of one search that returned ``answer`` (a skill_id or None); ``decision``: set when an
    LLM decided, else the calibrated judge's reason is given. Each candidate's passage cosines are those the
    judge computed (:attr:`judge.Scored.cosines`)."""
    by_id = {s.skill_id: s for s in found}
    rows = []
    for scored in verdict.scored:
        stored = by_id[scored.skill_id]
        negative = negatives[scored.skill_id] @ vector if scored.skill_id in negatives else None
        rows.append(CandidateEvidence(
            skill_id=scored.skill_id, title=stored.fields["title"], match=round(scored.match, 4),
            typical=round(scored.typical, 4), rank=round(scored.rank, 4),
            whitened=round(scored.whitened, 4) if scored.whitened is not None else None,
            matched=matched(stored, scored.cosines), failed_on=failed_on(stored, scored, negative)))
    nearest = (verdict.best or (verdict.scored[0].skill_id if verdict.scored else None)) if answer is None else None
    if decision is None:
        decision = titled(verdict.reason, {i: s.fields["title"] for i, s in by_id.items()})
        decision += f" (the shipped bias: {verdict.calibration})" if verdict.calibration else ""
        if answer is None and verdict.best is not None:
            decision = f"no skill: the nearest, {by_id[nearest].fields['title']!r}, lacked evidence: {decision}"
        elif answer is None:
            decision = f"no skill: {decision}"
    return RoutingEvidence(candidates=rows, margin=round(verdict.margin, 4), score=floored(verdict.score, 4),
                           decision=decision, nearest=nearest)


def titled(reason: str, titles: Mapping[str, str]) -> str:
    """The judge's ``reason`` with each skill it names by id (``skill <id>``) also named by its title, as a user
    knows it."""
    for skill_id, title in titles.items():
        reason = reason.replace(f"skill {skill_id}", f"{title!r} (skill {skill_id})")
    return reason
