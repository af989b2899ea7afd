"""What of a skill is indexed for ``search_skills``: the texts embedded and the text BM25 ranks.

A skill is indexed as several passages, one vector each: its title, its problem
and each of its conditions (exact repeats dropped, order kept): every example text
an import brings is a condition, and so are the questions confirmed outcomes teach
it (:mod:`learning`). The judge scores a skill by a soft best match over these
passages (:mod:`judge`), so one close passage is enough and several close ones count
more. The playbook's steps and the
keywords are not embedded (steps say what to do, not when a skill applies); keywords
go to BM25 with the title, problem and conditions (:func:`keyword_document`), and
BM25 only helps gather candidates. Measured: bench/README.md (skills_routing).

**Near-duplicates** (``create_skill``): a new skill duplicates an existing one when
their prototypes (the normalised mean of each skill's passage vectors) have a
cosine of at least :data:`DUPLICATE_THRESHOLD`: high enough that no pair of really different
skills measured reached it, so it catches near-copies (the same problem reworded) rather than
every pair of skills about the same thing; a false duplicate would block a real sibling
procedure, a missed one only leaves two similar skills to merge (bench/README.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

#: Bump when the passages, the keyword document or what is stored with the vectors (the judge's calibration)
#: change: stored libraries are then rebuilt when next opened.
ROUTING_VERSION = 2

#: Prototype cosine at or above which ``create_skill`` returns the existing skill (``created=false``).
DUPLICATE_THRESHOLD = 0.95

#: ``passages(skill)``: the texts embedded for a skill (:func:`skill_passages`; benches pass other layouts).
Passages = Callable[[Mapping[str, Any]], list[str]]


def skill_passages(skill: Mapping[str, Any]) -> list[str]:
    """The texts embedded for ``skill``: title, problem, each condition (exact repeats dropped, order kept)."""
    return distinct([skill["title"], skill.get("problem") or "", *skill.get("conditions", [])])


def passage_fields(skill: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, text) of each of :func:`skill_passages`: ``title``, ``problem``, ``condition`` (a repeat keeps
    the field it first came with)."""
    out: dict[str, str] = {}
    for name, text in [("title", skill["title"]), ("problem", skill.get("problem") or ""),
                       *(("condition", c) for c in skill.get("conditions", []))]:
        text = text.strip() if text else ""
        if text and text not in out:
            out[text] = name
    return [(name, text) for text, name in out.items()]


def head_count(skill: Mapping[str, Any]) -> int:
    """Passages that describe the skill (its title and problem) rather than give an example: they come first,
    and the judge's calibration (:func:`judge.calibration`) leaves them out."""
    return sum(1 for name, _ in passage_fields(skill) if name in ("title", "problem"))


def distinct(texts: Sequence[str]) -> list[str]:
    """The non-empty texts, stripped, each once, in order."""
    return list(dict.fromkeys(t.strip() for t in texts if t and t.strip()))


def keyword_document(skill: Mapping[str, Any]) -> tuple[str, str]:
    """(name, text) for BM25: the title as the name; problem, conditions and keywords as the text."""
    parts: Sequence[str] = [
        skill.get("problem") or "",
        *skill.get("conditions", []),
        *skill.get("keywords", []),
    ]
    return skill["title"], "\n".join(p for p in parts if p)


def prototype(passage_vectors: np.ndarray) -> np.ndarray:
    """The normalised mean of a skill's (unit) passage vectors: what near-duplicates are compared by."""
    mean = np.asarray(passage_vectors, dtype=np.float64).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean


def is_duplicate(
    new_vectors: np.ndarray, old_vectors: np.ndarray, threshold: float = DUPLICATE_THRESHOLD
) -> bool:
    """Whether two skills (given their passage vectors) are near-duplicates."""
    return float(prototype(new_vectors) @ prototype(old_vectors)) >= threshold
