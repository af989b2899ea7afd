"""What an update changed: computed by diffing the old and new skill, never taken on trust.

Steps are paired in three passes, each over the steps still unpaired:

1. identical steps (same action, Do, Check and Say): unchanged, wherever they moved;
2. steps with the same action (case and spacing ignored): edited;
3. the most similar remaining pairs (``difflib`` ratio of the whole step text at
   least :data:`EDIT_SIMILARITY`, best first): edited.

What is left of the old playbook was removed, what is left of the new one added.
Paired steps whose relative order changed add ``step_order`` to ``fields_changed``.
Conditions and keywords are compared as exact strings (added in the new order,
removed in the old order); the same conditions in another order add
``condition_order``. Anything else that differs (problem, goal, prerequisites,
edge cases, escalation, product area, issue type) is named in ``fields_changed``.
:func:`describe` says it all as one line per change (the specification's
``changes: list[str]``).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from graphlore.toolsets.skills.models import SkillChanges, StepEdit, StepRef, TitleChange
from graphlore.toolsets.skills.playbook import Playbook, Step, parse

#: The least ``difflib`` ratio at which two steps with different actions count as one step edited.
EDIT_SIMILARITY = 0.6
_STEP_FIELDS = ("action", "do", "check", "say")


def _text(step: Step) -> str:
    return "\n".join(f"{name}: {getattr(step, name) or ''}" for name in _STEP_FIELDS)


def _key(action: str) -> str:
    return " ".join(action.casefold().split())


def pair_steps(old: tuple[Step, ...], new: tuple[Step, ...]) -> list[tuple[int, int]]:
    """(old index, new index) of the steps that are the same step, by the three passes above."""
    pairs: list[tuple[int, int]] = []
    free_old, free_new = set(range(len(old))), set(range(len(new)))

    def take(i: int, j: int) -> None:
        pairs.append((i, j))
        free_old.discard(i)
        free_new.discard(j)

    for same in (lambda a, b: a == b, lambda a, b: _key(a.action) == _key(b.action)):
        for j in range(len(new)):
            match = next((i for i in sorted(free_old) if j in free_new and same(old[i], new[j])), None)
            if match is not None:
                take(match, j)
    ratios = sorted(
        (-difflib.SequenceMatcher(None, _text(old[i]), _text(new[j])).ratio(), i, j)
        for i in free_old
        for j in free_new
    )
    for negative, i, j in ratios:
        if -negative < EDIT_SIMILARITY:
            break
        if i in free_old and j in free_new:
            take(i, j)
    return sorted(pairs, key=lambda p: p[1])


def _added(old: list[str], new: list[str]) -> list[str]:
    seen = set(old)
    return [item for item in dict.fromkeys(new) if item not in seen]


def _playbook_fields(old: Playbook, new: Playbook) -> list[str]:
    return [
        name
        for name, a, b in (
            ("goal", old.goal, new.goal),
            ("prerequisites", old.prerequisites, new.prerequisites),
            ("edge_cases", old.edge_cases, new.edge_cases),
            ("escalation", old.escalation, new.escalation),
        )
        if a != b
    ]


def describe(c: SkillChanges) -> list[str]:
    """One line per change, for people and agents (``update_skill``'s ``changes``)."""
    lines = []
    if c.title is not None:
        lines.append(f"title: {c.title.old!r} -> {c.title.new!r}")
    lines += [f"step added: {s.number}. {s.action}" for s in c.steps_added]
    lines += [f"step removed: {s.number}. {s.action}" for s in c.steps_removed]
    lines += [f"step edited: {e.old_number}->{e.new_number}. {e.action} ({', '.join(e.fields)})"
              for e in c.steps_edited]
    for label, items in (("condition added", c.conditions_added), ("condition removed", c.conditions_removed),
                         ("keyword added", c.keywords_added), ("keyword removed", c.keywords_removed)):
        lines += [f"{label}: {item}" for item in items]
    lines += [f"{name.replace('_', ' ')} changed" for name in c.fields_changed]
    return lines


def changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> SkillChanges:
    """The :class:`SkillChanges` from skill fields ``old`` to ``new`` (title, problem, conditions, keywords,
    resolution_md, product_area, issue_type; a missing field counts as unchanged)."""
    old_pb, new_pb = parse(old["resolution_md"]), parse(new.get("resolution_md", old["resolution_md"]))
    pairs = pair_steps(old_pb.steps, new_pb.steps)
    paired_old = {i for i, _ in pairs}
    paired_new = {j for _, j in pairs}
    edited = []
    for i, j in pairs:
        fields = [
            name for name in _STEP_FIELDS if getattr(old_pb.steps[i], name) != getattr(new_pb.steps[j], name)
        ]
        if fields:
            edited.append(
                StepEdit(old_number=i + 1, new_number=j + 1, action=new_pb.steps[j].action, fields=fields)
            )
    other = _playbook_fields(old_pb, new_pb)
    old_order = [i for i, _ in pairs]  # pairs are in new order
    if old_order != sorted(old_order):
        other.append("step_order")
    for name in ("problem", "product_area", "issue_type"):
        if name in new and new[name] != old.get(name):
            other.append(name)
    title_old, title_new = old["title"], new.get("title", old["title"])
    old_conditions, new_conditions = (
        list(old.get("conditions", [])),
        list(new.get("conditions", old.get("conditions", []))),
    )
    both = set(old_conditions) & set(new_conditions)
    if [c for c in old_conditions if c in both] != [c for c in new_conditions if c in both]:
        other.append("condition_order")
    old_keywords, new_keywords = (
        list(old.get("keywords", [])),
        list(new.get("keywords", old.get("keywords", []))),
    )
    return SkillChanges(
        title=TitleChange(old=title_old, new=title_new) if title_old != title_new else None,
        steps_added=[
            StepRef(number=j + 1, action=s.action) for j, s in enumerate(new_pb.steps) if j not in paired_new
        ],
        steps_removed=[
            StepRef(number=i + 1, action=s.action) for i, s in enumerate(old_pb.steps) if i not in paired_old
        ],
        steps_edited=edited,
        conditions_added=_added(old_conditions, new_conditions),
        conditions_removed=_added(new_conditions, old_conditions),
        keywords_added=_added(old_keywords, new_keywords),
        keywords_removed=_added(new_keywords, old_keywords),
        fields_changed=sorted(set(other), key=other.index),
    )
