"""What of a skill is indexed for ``search_skills``: the texts embedded and the text BM25 ranks.

A skill is indexed as several passages, one vector each: its title, its problem
and each of its conditions (exact repeats dropped, order kept): every example text
an import brings is a condition, and so are the questions confirmed outcomes teach
it (:mod:`learning`). The judge scores a skill by a soft best match over these
passages (:mod:`judge`), so one close passage is enough and several close ones count
more. Measured with ``bench/skills_routing.py --variants`` at judge v2 (the
floor on the soft match; that option is not in the current bench):

- one vector per passage beat one vector of the texts joined (ABCD top-1 0.79 vs
  0.84-0.87) and beat the condition examples alone (ABCD 0.81) in the first
  helper's in-memory exploration (not re-run by the current bench);
- the playbook's steps are NOT embedded. The bench builds an ABCD library per
  layout through the import writer (ABCD's steps are real procedures) and routes
  the 151 questions: top-1 without abstaining | in-scope / null at the shipped
  floor: title + problem + conditions 0.873 | 0.855 / 0.902; plus one passage per
  step 0.836 | 0.773 / 1.000; plus all steps as one passage 0.873 | 0.827 / 0.951.
  Steps say what to do, not when a skill applies, and ABCD's subflows share most
  of their steps;
- keywords are not embedded either (as one more passage: 0.864 | 0.845 / 0.927);
  they go to BM25 with the title, problem and conditions (:func:`keyword_document`).

BM25 only helps gather candidates: added to the judge's scores it did not help
(judge v2's measurements).

**Near-duplicates** (``create_skill``): a new skill duplicates an existing one when
their prototypes (the normalised mean of each skill's passage vectors) have a
cosine of at least :data:`DUPLICATE_THRESHOLD`. Measured (``bench/skills_routing.py``,
"duplicates"): skills that are really different never reached it: ABCD's 55
procedures, max 0.910 (Out-of-Stock General vs Out-of-Stock One Item, two
procedures with near-identical descriptions), 0.1% of pairs >= 0.90; CLINC
skills of two intents (10 examples each) max 0.873. Two skills of one CLINC
intent made of 10 different examples each reach 0.95 in 18% of pairs (median
0.921); of 3 examples, 1%. So 0.95 (the original specification's value) keeps a
margin of 0.04 above every different pair measured and catches near-copies (the
same problem reworded), not every pair of skills about the same thing: a false
duplicate would block creating a real sibling procedure (and return the wrong
skill), a missed one only leaves two similar skills to merge. 0.92 is the lowest
value that flagged no different pair here, with no margin left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from graphlore.toolsets.skills.playbook import parse

#: Bump when the passages, the keyword document or what is stored with the vectors (the judge's calibration)
#: change: stored libraries are then rebuilt when next opened.
ROUTING_VERSION = 2

#: Prototype cosine at or above which ``create_skill`` returns the existing skill (``created=false``).
DUPLICATE_THRESHOLD = 0.95

#: Passage layouts the bench compares; ``tpc`` is what the toolset indexes.
LAYOUTS = ("tpc", "tpc+steps", "tpc+steps-joined", "tpc+keywords")
DEFAULT_LAYOUT = "tpc"


def step_texts(resolution_md: str) -> list[str]:
    """One text per playbook step: its action, Do, Check and Say, in that order."""
    return [
        " ".join(part for part in (step.action, step.do, step.check, step.say) if part)
        for step in parse(resolution_md).steps
    ]


def passage_fields(skill: Mapping[str, Any], layout: str = DEFAULT_LAYOUT) -> list[tuple[str, str]]:
    """(field, text) of each passage embedded for ``skill``: ``title``, ``problem``, each ``condition`` (exact
    repeats dropped, the first kept), then what the bench's other layouts add (``step``, ``steps``, ``keywords``)."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; valid: {', '.join(LAYOUTS)}")
    fields = [("title", skill["title"]), ("problem", skill.get("problem") or ""),
              *(("condition", c) for c in skill.get("conditions", []))]
    if layout == "tpc+steps":
        fields += [("step", t) for t in step_texts(skill["resolution_md"])]
    elif layout == "tpc+steps-joined":
        fields.append(("steps", " ".join(step_texts(skill["resolution_md"]))))
    elif layout == "tpc+keywords" and skill.get("keywords"):
        fields.append(("keywords", ", ".join(skill["keywords"])))
    out: dict[str, str] = {}
    for name, text in fields:
        text = text.strip() if text else ""
        if text and text not in out:
            out[text] = name
    return [(name, text) for text, name in out.items()]


def skill_passages(skill: Mapping[str, Any], layout: str = DEFAULT_LAYOUT) -> list[str]:
    """The texts embedded for ``skill`` (title, problem, each condition; exact repeats dropped)."""
    return [text for _, text in passage_fields(skill, layout)]


def head_count(skill: Mapping[str, Any]) -> int:
    """Passages that describe the skill (its title and problem) rather than give an example: they come first,
    and the judge's calibration (:func:`judge.calibration`) leaves them out."""
    return sum(1 for name, _ in passage_fields(skill) if name in ("title", "problem"))


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
