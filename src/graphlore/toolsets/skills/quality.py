"""What a valid playbook may still get wrong: warnings, never refusals.

:func:`playbook.parse` refuses what is not a playbook; these checks name what makes a
valid one hard to follow, for the class of text, not for one source:

- ``template_goal``: the Goal says the procedure is still to be written (``TEMPLATE:``);
- ``filler_goal``: the Goal says nothing the title does not (every content word of it is
  in the title or is a word any request has: "resolve the customer's request");
- ``annotator_text``: text meant for the people who labelled a dataset, not for an agent
  (a survey to fill in, copy/paste, the right-hand panel, "your best judgement"...);
- ``invented_data``: an instruction to make data up (make up, fake, pick a value from a
  list) where the agent must ask the customer or look it up;
- ``dangling_condition``: a Do/Check/Say line or an edge case that ends in ``:`` (a
  condition or lead-in cut off from what it governs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphlore.toolsets.skills.imports import TEMPLATE_MARK
from graphlore.toolsets.skills.playbook import Playbook

KINDS = ("template_goal", "filler_goal", "annotator_text", "invented_data", "dangling_condition")

#: Words any request's Goal may have without saying anything about this one.
GENERIC_WORDS = frozenset(
    "a an and as at be by customer customers for from get help handle his her in is it its of on or request "
    "requests resolve s solve the their them they this to with your issue issues problem problems question "
    "questions about".split()
)
ANNOTATOR = re.compile(
    r"\b(?:survey|copy\s*/\s*paste|right[- ]hand panel|in your own words|best judge?ment|no right or wrong answer|"
    r"conversation is successful|mark the conversation|be creative|shuffle up|as your action|toggle switch|"
    r"flow diagram|this will record an action|fake link|the correct subflow|this flow is very short)\b",
    re.IGNORECASE,
)
INVENTED = re.compile(
    r"\b(?:make up|makes up|made up|making up|fake|random amount|pick an? [\w ]+? from the (?:list|following)|"
    r"adjust the values|creative explanations?|make it \$\d+|so the story|so it makes sense|"
    r"assume [\w ]+ is correct even if)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Warning:  # noqa: A001 - a playbook warning, not the builtin category
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _lines(playbook: Playbook) -> list[tuple[str, str]]:
    """(where, text) of every line an agent reads."""
    out = [("Goal", playbook.goal)]
    out += [("Prerequisites", p) for p in playbook.prerequisites]
    for number, step in enumerate(playbook.steps, start=1):
        out.append((f"step {number}", step.action))
        out += [(f"step {number} {label}", value) for label in ("Do", "Check", "Say")
                if (value := step.field(label)) is not None]
    out += [("Edge Cases", f"{e.condition} → {e.action}") for e in playbook.edge_cases]
    if playbook.escalation is not None:
        out.append(("Escalation", playbook.escalation))
    return out


def _quote(match: re.Match[str]) -> str:
    return repr(match.group(0))


def check(playbook: Playbook) -> list[Warning]:
    """Every warning of ``playbook``, in reading order (see the module docstring)."""
    found: list[Warning] = []
    if playbook.goal.startswith(TEMPLATE_MARK):
        found.append(Warning("template_goal", "the Goal says the procedure is still to be written"))
    elif not (_words(playbook.goal) - _words(playbook.title) - GENERIC_WORDS):
        found.append(Warning("filler_goal", "the Goal repeats the title; say what the procedure achieves"))
    for where, text in _lines(playbook):
        if match := ANNOTATOR.search(text):
            found.append(Warning("annotator_text", f"{where}: {_quote(match)} speaks to a dataset's annotators, "
                                                   "not to an agent"))
        if match := INVENTED.search(text):
            found.append(Warning("invented_data", f"{where}: {_quote(match)}: ask the customer or look the value "
                                                  "up instead of making it up"))
        field = where == "Edge Cases" or (where.startswith("step") and where.count(" ") == 2)
        if field and text.rstrip().endswith(":"):
            found.append(Warning("dangling_condition", f"{where} ends in ':': keep a condition with what it "
                                                       "governs"))
    return found


def counts(playbooks: list[Playbook]) -> dict[str, int]:
    """How many playbooks have each kind of warning (every kind listed, 0 included)."""
    out = dict.fromkeys(KINDS, 0)
    for playbook in playbooks:
        for kind in {w.kind for w in check(playbook)}:
            out[kind] += 1
    return out
