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
  condition or lead-in cut off from what it governs);
- ``action_in_say``: a Say line (what the customer is told) that tells the agent to do
  something in a tool: a control named in brackets ("[Shipping Status]") or a tool verb
  (enter, type, click, select, submit, fill in, input, look up, generate...); that belongs in Do;
- ``inline_alternatives``: a step that holds two or more courses of action inline rather than
  as branches: "either ... or", lettered options "(a) ... (b)", or two or more cases ("If X:
  ... If Y: ...", "Gold members: ... Guest members: ...") across its Do, Check and Say. A
  branch is a step of its own whose Check starts "Only if <condition>." (that leading
  condition is the step's own and is not counted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphlore.toolsets.skills.imports import TEMPLATE_MARK
from graphlore.toolsets.skills.playbook import Playbook

KINDS = ("template_goal", "filler_goal", "annotator_text", "invented_data", "dangling_condition", "action_in_say",
         "inline_alternatives")

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
#: What the agent does in a tool: a control named in brackets, or a verb of data entry or lookup.
TOOL_ACTION = re.compile(
    r"\[[^\]]+\]|\b(?:enter|type|click|select|submit|fill in|input|"
    r"look (?:it |them )?up|generate|press|put (?:it|them|this|that|'[^']*') (?:in|into|as))\b",
    re.IGNORECASE,
)
#: Words before a tool verb that make it the customer's doing ("instruct the customer to try entering").
_CUSTOMER_DOES = re.compile(r"\b(?:customer|them|they|user)\s+(?:to\s+|should\s+|can\s+|will\s+|must\s+)?"
                            r"(?:try\s+(?:to\s+)?)?$", re.IGNORECASE)


def tool_action(text: str) -> re.Match[str] | None:
    """The first thing in ``text`` the agent does in a tool (:data:`TOOL_ACTION`), not the customer's doing."""
    return next((m for m in TOOL_ACTION.finditer(text) if not _CUSTOMER_DOES.search(text[: m.start()])), None)


#: Two or more courses of action written in one line.
#: (not "either 'gift card' or 'credit'": a choice among values is one course of action).
EITHER_OR = re.compile(r"\beither\b(?!\s+['\"\[])[^.]*\bor\b|\(a\)[^()]*\(b\)", re.IGNORECASE)
#: A case: "If X: ...", "If X, then ...", "If X then ...", "If X, ...", or "<Names> member(s): ...".
_NAMES = r"[a-z]+(?:(?:,| or| and|, or) [a-z]+)*"
_LABEL = _NAMES + r" members?:"
_CASE_LABEL = re.compile(rf"^(?P<label>{_NAMES}) members?:\s*(?P<rest>.*)$", re.IGNORECASE)
_IF = re.compile(r"^if\s+(?P<body>.*)$", re.IGNORECASE)
_CONDITION_END = re.compile(r":\s+|,\s+then\s+|\s+then\s+")
#: Where a sentence's clauses part to open another case: "...; if Y, ...", "...; gold members: ...".
_CASE_CLAUSE = re.compile(rf";\s+(?=if\b|{_LABEL})", re.IGNORECASE)
#: A lead-in (not itself a condition) followed by the first of its cases: "Explain: if X, ...".
_LEAD_IN_CASE = re.compile(rf"^(?P<lead>(?!if\b|{_LABEL})[^:]+:)\s+(?P<case>(?:if\b|{_LABEL}).*)$", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\[(])")
_ONLY_IF = re.compile(r"^Only if [^.]*\.\s*")


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


def case_head(segment: str) -> tuple[str, str] | None:
    """(condition, what it governs) when ``segment`` opens a case ("If X: Y", "If X, then Y", "Gold members: Y"),
    else None. The condition ends at the first ": " or "then"; failing those, at the first ", "."""
    label = _CASE_LABEL.match(segment)
    if label:
        return f"{label.group('label')} member", label.group("rest")
    match = _IF.match(segment)
    if match is None:
        return None
    body = match.group("body")
    end = _CONDITION_END.search(body)
    if end is None:
        comma = body.find(", ")
        if comma < 0:
            return None
        return body[:comma].strip(), body[comma + 2:].strip()
    return body[: end.start()].strip(), body[end.end():].strip()


def segments(text: str) -> list[str]:
    """``text``'s sentences, each split before "; if" and after a lead-in to cases ("Explain: if X, ..."): where a
    case may open."""
    out = []
    for sentence in _SENTENCE.split(text.strip()):
        for clause in (c.strip() for c in _CASE_CLAUSE.split(sentence)):
            lead = _LEAD_IN_CASE.match(clause)
            out += [lead.group("lead"), lead.group("case")] if lead else [clause] if clause else []
    return out


def cases(texts: list[str]) -> list[str]:
    """The distinct conditions of the cases opened in ``texts`` (a step's fields), nested ones ("If A: if B, ...")
    too; a Check's leading "Only if X." is the step's own condition, not a case."""
    found: list[str] = []
    for text in texts:
        for segment in segments(_ONLY_IF.sub("", text, count=1)):
            while (head := case_head(segment)) is not None:
                if head[0] not in found:
                    found.append(head[0])
                segment = head[1]
    return found


def _alternatives(playbook: Playbook) -> list[Warning]:
    found = []
    for number, step in enumerate(playbook.steps, start=1):
        texts = [v for label in ("Do", "Check", "Say") if (v := step.field(label)) is not None]
        if match := next((m for t in texts if (m := EITHER_OR.search(t))), None):
            found.append(Warning("inline_alternatives", f"step {number}: {_quote(match)[:60]}: write each "
                                                        "alternative as a step of its own (Check: 'Only if ...')"))
        elif len(conditions := cases(texts)) >= 2:
            listed = "; ".join(repr(c) for c in conditions[:3])
            found.append(Warning("inline_alternatives", f"step {number} holds {len(conditions)} cases inline "
                                                        f"({listed}): give each a step (Check: 'Only if ...')"))
    return found


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
        if where.endswith(" Say") and (match := tool_action(text)):
            found.append(Warning("action_in_say", f"{where}: {_quote(match)} is something the agent does in a "
                                                  "tool; put it in Do"))
    return found + _alternatives(playbook)


def counts(playbooks: list[Playbook]) -> dict[str, int]:
    """How many playbooks have each kind of warning (every kind listed, 0 included)."""
    out = dict.fromkeys(KINDS, 0)
    for playbook in playbooks:
        for kind in {w.kind for w in check(playbook)}:
            out[kind] += 1
    return out
