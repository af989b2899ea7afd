"""Confidence and counters: how a skill learns from what happened when it was used.

A skill starts at confidence :data:`INITIAL_CONFIDENCE`; each recorded outcome
moves it by a fixed step (:data:`OUTCOME_DELTAS`, from the specification) and the
result is clamped to [0, 1]. Only ``confirmed`` counts in ``times_confirmed``;
``times_used`` goes up when ``search_skills`` returns the skill, not here.
Confidences are rounded to :data:`DIGITS` decimals so repeated steps do not drift
(0.7 + 0.1 is 0.8, not 0.7999999999999999).

``create_skill(resolution_confirmed=true)`` starts the skill as if one confirmed
use had been recorded: confidence ``0.5 + 0.10``, ``times_confirmed = 1`` and
``times_used = 1``. A confirmed use is a use: ``times_confirmed <= times_used``
always holds (a ``confirmed`` outcome for a skill search_skills never returned
counts the use it confirms).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Outcome = Literal["confirmed", "likely_resolved", "likely_failed", "failed", "no_feedback"]
OUTCOMES: tuple[str, ...] = get_args(Outcome)

OUTCOME_DELTAS: dict[str, float] = {
    "confirmed": 0.10,
    "likely_resolved": 0.03,
    "likely_failed": -0.05,
    "failed": -0.10,
    "no_feedback": 0.01,
}
INITIAL_CONFIDENCE = 0.5
DIGITS = 6


@dataclass(frozen=True)
class Counters:
    """The learning state of a skill."""

    confidence: float
    times_used: int
    times_confirmed: int


def clamp(value: float) -> float:
    """``value`` limited to [0, 1] and rounded to :data:`DIGITS` decimals."""
    return round(min(1.0, max(0.0, value)), DIGITS)


def initial_counters(resolution_confirmed: bool = False) -> Counters:
    """The counters of a new skill (see the module docstring for a confirmed start)."""
    if resolution_confirmed:
        return Counters(clamp(INITIAL_CONFIDENCE + OUTCOME_DELTAS["confirmed"]), 1, 1)
    return Counters(INITIAL_CONFIDENCE, 0, 0)


def apply_outcome(counters: Counters, outcome: str) -> Counters:
    """The counters after recording ``outcome``; an unknown outcome names the valid ones."""
    if outcome not in OUTCOME_DELTAS:
        raise ValueError(f"unknown outcome {outcome!r}; valid: {', '.join(OUTCOMES)}")
    confirmed = counters.times_confirmed + (outcome == "confirmed")
    # a confirmed use is a use: one recorded without search_skills having returned the skill counts as one
    used = max(counters.times_used, confirmed)
    return Counters(clamp(counters.confidence + OUTCOME_DELTAS[outcome]), used, confirmed)


def record_use(counters: Counters) -> Counters:
    """The counters after ``search_skills`` returned the skill."""
    return Counters(counters.confidence, counters.times_used + 1, counters.times_confirmed)
