"""ABCD's support guidelines to playbooks an agent can follow.

``guidelines.json`` of asappresearch/abcd: 10 flows, 55 subflows, each a list of agent
actions ``{type, button, text, subtext}`` and two ``instructions``. One skill per
subflow, ``source = "abcd:<flow>/<subflow>"`` with the keys spelled as in the file.
The guidelines were written for the people who acted out ABCD's conversations, so
they mix the procedure with notes for those annotators and with licence to make data
up. The rules below are for that class of text, never for one subflow:

**Cleaning.** Every sentence (and every clause joined by ", and" / ", but") that speaks
to the annotators (:data:`quality.ANNOTATOR`: the survey, copy/paste, the right-hand
panel, "your best judgement"...) is dropped, and so is one that only allows making
data up ("feel free to make up an email address", "so the story is reasonable"). An
instruction to make a value up ("make up their username", "pick a refund status from
the list of three options", "a random amount") becomes "look the value up in their
account" or "ask the customer for it": the agent never invents data. Examples of the
invented value ("For example: John Smith -> jsmith1") go with it.

**Prerequisites** are the leading actions that identify the customer and their order
(``Pull up Account``, ``Verify Identity``, ``Validate Purchase``: :data:`PREREQUISITES`),
each with what to ask for. The other actions are **steps**, one per action, headed
by its button (``N/A``: by the start of its text), with a Do naming the system action
and its slots from ``ontology.json`` when the button is one of the subflow's actions
in ``kb.json``.

**Conditions stay with what they govern.** A cell is never split: a line "If X, then
Y" goes whole into the field of Y (Say when Y speaks to the customer, else Do); an
action whose own text is a condition ("If the customer is wrong (Oracle says No),
then:", "(Only if Oracle says Yes) ...") makes the step conditional (its Check reads
"Only if X."); a lead-in ending in ":" is joined with the items it introduces; ABCD's
nested items ("A > B") and alternative criteria ("A <or> B") are kept in their line.
Verification lines (check, confirm, make sure...) are Check. A line meant for the
customer (Say) keeps only what is said: its clauses that act in a tool (a control in
brackets, enter, type, click, submit, look up...: :func:`quality.tool_action`) go to
Do, each with the condition that led its sentence.

**Alternatives are branches.** The playbook format has no branch construct; the closest
documented form is a step of its own whose Check starts "Only if <condition>." (the
form a conditional action already takes). So two or more cases in one action's text
("If X: ... If Y: ...", "If A: if B, ...; if C, ...", "Gold members: ... Guest
members: ..."; :func:`quality.case_head`) become one step for what holds in every case
and a branch step per case after it; a single condition stays in its line. Actions
labelled "Option 1", "Option 2"... (fixes to try one at a time) become one step each,
"Fix N: <button>", the second on taken only if the fixes before did not solve the problem.

**Escalation** gathers the lines that hand the case to people (a manager, an internal
team, :data:`ESCALATES`), in the order they appear; they stay in their steps too.

**Goal**: the customer's situation as the first instruction describes it (else the
purpose it states, "to complete the refund", else the subflow's name), then what the
procedure does about it, from the outcomes of its actions (:data:`OUTCOMES`, one
phrase per action of ABCD's ontology). **Edge cases**: the instructions' "If
<condition>, <action>" sentences. The other situation sentences are the problem and
the conditions (FAQ subflows: the questions of the second instruction); the second
instruction is the wrap-up step. ``title`` = ``"<subflow> (<flow>)"``,
``product_area`` = the flow, ``issue_type`` = ``bug`` for Troubleshoot Site, else
``how-to``; ``keywords`` = flow and subflow.

**Errors never quote the file** (see :mod:`imports`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from graphlore.errors import InvalidInput
from graphlore.toolsets.skills.imports import ABCD_PREFIX, SkillFields, clean, read_json, sentences
from graphlore.toolsets.skills.playbook import EdgeCase, Playbook, Step, render
from graphlore.toolsets.skills.quality import ANNOTATOR, INVENTED, case_head, segments, tool_action

FAQ_MARK = "the main effort is in figuring out which question the customer is asking"
BUG_FLOWS = frozenset({"Troubleshoot Site"})
#: Leading actions that identify the customer or their order, and what each establishes.
PREREQUISITES = {
    "pull-up-account": "The customer's account is pulled up",
    "verify-identity": "The customer's identity is verified",
    "validate-purchase": "The purchase is validated",
}
#: What an action of ABCD's ontology achieves, for the Goal (actions that only gather details have none).
OUTCOMES = {
    "ask-the-oracle": "check it in the system",
    "membership": "apply what their membership level allows",
    "shipping-status": "find out where the order is",
    "subscription-status": "look up their subscription",
    "update-order": "update the order",
    "update-account": "update the account",
    "offer-refund": "offer a refund",
    "make-purchase": "place the order for them",
    "promo-code": "give them a promo code",
    "make-password": "give them a new password",
    "send-link": "send them a link",
    "notify-team": "report it to the team in charge",
    "try-again": "walk them through the fixes",
    "log-out-in": "walk them through the fixes",
    "instructions": "walk them through the fixes",
    "search-faq": "answer from the FAQ",
    "select-faq": "answer from the FAQ",
}
#: Lines that hand the case to people.
ESCALATES = re.compile(r"\b(?:escalat\w*|manager|notify internal team|internal team|website team|"
                       r"purchasing department)\b", re.IGNORECASE)

_SAY = re.compile(
    r"\b(tell|let (?:the customer|them) know|let them|explain|instruct|apologi[sz]e|assure|inform|convince|"
    r"share|say|message the customer|ask (?:the customer|them|for|how|if|what)|asking (?:the customer|for|if)|"
    r"provide (?:it|a link)|offer (?:them|a|to)|have the customer)\b",
    re.IGNORECASE,
)
_CHECK = re.compile(r"^(?:check|confirm|make sure|verify|decide|to confirm|to decide|find out whether|whether)\b",
                    re.IGNORECASE)
_IMPERATIVE = re.compile(
    r"^(?:start|help|let|choose|pick|shuffle|keep|follow|please|ask|explain|wrap|share|act|be|remember|"
    r"make|feel|tell|go|then|as|to|in all)\b",
    re.IGNORECASE,
)
#: Cells that only label an action ("Communication", "Optional Step", "x": an empty cell).
_LABEL = re.compile(r"^(?:communication|optional step|x)$", re.IGNORECASE)
_OPTION = re.compile(r"^option (\d+)\b\s*(?:-\s*)?(?P<rest>.*)$", re.IGNORECASE)
_IF_SENTENCE = re.compile(r"^If (?P<condition>.+?)(?:, (?:then )?(?!and\b|or\b)| (?=it is likely ))(?P<action>.+)$")
#: Sentence ends, not after "i.e." / "e.g." (their clause goes on).
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!i\.e\.)(?<!e\.g\.)(?<!\bie\.)\s+")
#: An action's own text that makes the whole step conditional.
_STEP_CONDITION = re.compile(
    r"^(?:\((?:option [a-z]\)\s*)?)?(?:\(only if (?P<only>[^)]+)\)\s*(?P<rest1>.*)|"
    r"(?:\(option [a-z]\)\s*)?(?:alternatively, )?if (?P<cond>.+?)(?:, then:?| then:|:)\s*(?P<rest2>.*))$",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r",\s+(?:and|but)\s+|;\s+|\s+and (?=remember|mark|fill|click|feel)")
_PERMISSION = re.compile(r"^(?:if you would like|feel free|you can|you may)\b", re.IGNORECASE)
_MAKE_UP = re.compile(r"\bmake up (?:an? |some |their |the )?(?P<what>[a-z ]+?)(?= with\b| as\b| if\b|[.,(]|$)",
                      re.IGNORECASE)
_PICK = re.compile(r"^pick an? (?P<what>[a-z ]+?) from the (?:list of|following) .*?options?\s*(?:[>\u203a]\s*)?"
                   r"(?P<options>.*)$", re.IGNORECASE)
_RANDOM = re.compile(r"\ba random (?P<what>[a-z ]+?)\b(?=[.,]|$)", re.IGNORECASE)
_FOR_EXAMPLE = re.compile(r"^for example\b", re.IGNORECASE)
#: Sentences that say nothing to an agent.
_EMPTY = re.compile(r"^that's it\.?$", re.IGNORECASE)
_ANY_ORDER = re.compile(r"\bin any order\b", re.IGNORECASE)


def _sentences(text: str) -> list[str]:
    """A cell's sentences (see :data:`_SENTENCE_END`)."""
    return [s for s in (clean(p) for p in _SENTENCE_END.split(clean(text))) if s]


def _sentence(text: str) -> str:
    """``text`` ending in punctuation, so joined lines read as sentences."""
    return text if text[-1] in ".!?:)'\"" else text + "."


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _lower(text: str) -> str:
    """The first letter lowered, unless the first word is an acronym or a name in brackets."""
    return text if text[:2].isupper() or text.startswith("[") else text[:1].lower() + text[1:]


# -- cleaning ------------------------------------------------------------------------------------


def _invented(sentence: str) -> str | None:
    """An instruction to make a value up, as one to look it up or ask for it (None: drop it)."""
    if _PERMISSION.match(sentence):
        return None  # licence to make something up: nothing for an agent
    if match := _PICK.match(sentence):
        options = match.group("options").rstrip(".")
        return f"Look up the {match.group('what')} in their account (one of: {options})."
    match = _MAKE_UP.search(sentence) or _RANDOM.search(sentence)
    if match is None:
        return None
    buttons = " ".join(re.findall(r"\[[^\]]+\]", sentence))
    where = f"in their account ({buttons})" if buttons else "in their account"
    rewritten = f"look up the {match.group('what').strip()} {where} or ask the customer for it (never guess it)."
    condition = _IF_SENTENCE.match(sentence)  # the condition it was given under still governs it
    return f"If {condition.group('condition')}, {rewritten}" if condition else _capital(rewritten)


def _main_clauses(sentence: str) -> str | None:
    """The sentence without its clauses for annotators or inventing data; None when its first clause is one
    of them (what is left would not stand alone)."""
    clauses = _CLAUSE.split(sentence)
    bad = [bool(ANNOTATOR.search(c) or INVENTED.search(c)) for c in clauses]
    if bad[0]:
        return None
    return ", ".join(c for c, b in zip(clauses, bad, strict=True) if not b)


def clean_text(text: str) -> str | None:
    """``text`` without what speaks to annotators, instructions to invent data rewritten (None: nothing left)."""
    kept = []
    for sentence in _sentences(text.replace(" > ", " \u203a ")):
        if INVENTED.search(sentence):
            rewritten = _invented(sentence)
            rewritten = rewritten or _main_clauses(sentence)
            if rewritten:
                kept.append(_sentence(rewritten))
            continue
        if _EMPTY.match(sentence):
            continue
        if ANNOTATOR.search(sentence):
            rest = _main_clauses(sentence)
            if rest:
                kept.append(_sentence(rest))
            continue
        kept.append(sentence)
    joined = " ".join(kept).replace(" \u203a ", " > ")
    return joined or None


def _nested(line: str) -> str:
    """ABCD's nested items and alternatives kept in their line: "A > B > C" reads "A: B; C", "A <or> B"
    reads "A; or B"."""
    line = re.sub(r"\s*<or>\s*", "; or ", line)
    head, *rest = [part.strip() for part in re.split(r"\s+>\s+", line)]
    if not rest:
        return head
    lead = head if head.endswith(":") else head.rstrip(".") + ":"
    return lead + " " + "; ".join(_lower(r.rstrip(".")) for r in rest) + "."


def _cells(action: Mapping[str, Any]) -> list[str]:
    """An action's text and subtext cells, cleaned, nested items kept in line, labels dropped; examples
    of an invented value go with it. An empty first cell stands for an action text that was a label."""
    out: list[str] = []
    dropped_invented = False
    for index, raw in enumerate([action["text"], *action["subtext"]]):
        cell = clean(raw)
        if not cell or _LABEL.match(cell):
            if index == 0:
                out.append("")  # the action has no text of its own: no condition of the whole step
            continue
        if _FOR_EXAMPLE.match(cell) and dropped_invented:
            continue
        cleaned = clean_text(cell)
        dropped_invented = INVENTED.search(cell) is not None
        if cleaned:
            out.append(_nested(cleaned))
        elif index == 0:
            out.append("")
    return out


# -- steps ---------------------------------------------------------------------------------------


def line_role(line: str, default: str) -> str:
    """``Say``, ``Check`` or ``Do`` for one whole guideline line (``default`` when no rule applies).

    A condition ("If X, then Y") takes the role of what it governs (Y), so it stays with it;
    verification is Check; customer-facing speech is Say ("Ask the Oracle" is a system query).
    """
    match = _IF_SENTENCE.match(line)
    if match:
        return line_role(match.group("action"), default)
    if _CHECK.match(line):
        return "Check"
    if _SAY.search(line.replace("Ask the Oracle", "").replace("Asking the Oracle", "")):
        return "Say"
    return default


def _join(parts: Iterable[str]) -> str | None:
    joined = " ".join(_sentence(p) for p in parts)
    return joined or None


_LEAD_IN = re.compile(r"(?::|\b(?:are|include|includes|options|following))$", re.IGNORECASE)


def _lead_ins(cells: list[str]) -> list[tuple[str, str]]:
    """(line, what its role is read from): a lead-in (a cell ending in ':' or "valid options are") joined with
    the cells after it (the items it introduces, alternatives among them), its role read from the lead-in
    alone; a lead-in that introduces nothing is dropped (it governs nothing). A lead-in to two or more cases is
    not joined: the cases become branches (:func:`_cases`)."""
    for index, cell in enumerate(cells):
        if _LEAD_IN.search(cell) and sum(case_head(c) is not None for c in cells[index + 1:]) < 2:
            if index + 1 == len(cells):
                return [(c, c) for c in cells[:index]]
            items = "; ".join(_lower(c.rstrip(".")) for c in cells[index + 1:])
            lead = cell if cell.endswith(":") else cell + ":"
            return [*((c, c) for c in cells[:index]), (f"{lead} {items}.", cell)]
    return [(c, c) for c in cells]


def _slug(text: str, sep: str = "-") -> str:
    return sep.join(re.findall(r"[a-z0-9]+", text.lower()))


def _action_of(button: str, allowed: list[str]) -> str | None:
    """The subflow's kb action the button names (its slug, or one that starts with the other)."""
    slug = _slug(button)
    return next((a for a in allowed if a == slug), None) or next(
        (a for a in allowed if slug.startswith(a + "-") or a.startswith(slug + "-")), None)


def _ontology_action(button: str, slots: Mapping[str, list[str]]) -> str | None:
    """The ontology action a button names, whatever the subflow's kb sequence says (for outcomes)."""
    slug = _slug(button)
    words = set(slug.split("-"))
    return next((a for a in slots if a == slug or slug.startswith(a + "-") or a.startswith(slug + "-")
                 or a.endswith("-" + slug)), None) or next((a for a in slots if set(a.split("-")) <= words), None)


def _action_note(button: str, allowed: list[str], slots: Mapping[str, list[str]]) -> str:
    """``[Button]``, plus its system action and slots when the subflow's kb sequence names it."""
    action = _action_of(button, allowed)
    if action is None:
        return f"Use [{button}]."
    fields = slots.get(action, [])
    return f"Use [{button}] (action {action}" + (f": {', '.join(fields)})." if fields else ").")


def _heading(line: str, limit: int = 60) -> str:
    first = _sentences(line)[0].rstrip(".:")
    if len(first) <= limit:
        return first
    return first[:limit].rsplit(" ", 1)[0] + "..."


#: Where a Say sentence's clauses part (the separator kept), so a tool action can go to Do and speech stay.
_PART = re.compile(
    r"(;\s+|,\s+and\s+(?:then\s+)?|\s+and\s+then\s+|,\s+then\s+|\s+and\s+(?=\[)|"
    r"\s+and\s+(?=(?:enter|type|click|select|submit|fill|input|generate|share|tell|explain|apologi[sz]e|ask)\b))",
    re.IGNORECASE,
)


def split_say(sentence: str) -> list[tuple[str, str]]:
    """(role, text) of one sentence meant for the customer: its clauses that tell the agent to act in a tool
    (:func:`quality.tool_action`) go to Do, the rest stay Say, each with the condition that led the sentence."""
    if not tool_action(sentence):
        return [("Say", sentence)]
    head = case_head(sentence)
    condition, body = head if head else (None, sentence)
    pieces = _PART.split(body)
    groups: list[tuple[str, str]] = []  # (role, text) with the separators inside a group kept
    for index in range(0, len(pieces), 2):
        piece = pieces[index].strip()
        if not piece:
            continue
        role = "Do" if tool_action(piece) else "Say"
        if groups and groups[-1][0] == role:
            groups[-1] = (role, groups[-1][1] + pieces[index - 1] + piece)
        else:
            groups.append((role, piece))
    if len(groups) == 1:
        return [(groups[0][0], sentence)]
    out = []
    for role, text in groups:
        out.append((role, f"If {condition}, {_lower(text)}" if condition else _capital(text)))
    return out


def _fields(lines: list[tuple[str, str]], lead: str | None, only_if: str | None) -> dict[str, list[str]]:
    """Do, Check and Say of (text, role) lines; a Say line's tool actions moved to Do."""
    fields: dict[str, list[str]] = {"Do": [lead] if lead else [], "Check": [], "Say": []}
    if only_if:
        fields["Check"].append(f"Only if {only_if.rstrip('.')}.")
    for text, role in lines:
        if role != "Say":
            fields[role].append(_control(text))
            continue
        for sentence in _sentences(text):
            for part_role, part in split_say(sentence):
                fields[part_role].append(_control(part))
    return fields


_BARE_CONTROL = re.compile(r"^(?:then\s+)?(?P<control>\[[^\]]+\])\.?$", re.IGNORECASE)


def _control(text: str) -> str:
    """A line that only names a control ("Then [End Conversation]") as an action: "Use [End Conversation]"."""
    match = _BARE_CONTROL.match(text)
    return f"Use {match.group('control')}." if match else text


def _cases(lines: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, list[tuple[str, str]]]]]:
    """(what holds in every case, [(condition, its lines)]): a case opens at "If X: ..." or "Gold members: ..."
    (:func:`quality.case_head`) and runs to the next case or the end of its guideline line; "If A: if B, ...;
    if C, ..." are the cases "A and B" and "A and C"."""
    common: list[tuple[str, str]] = []
    cases: list[tuple[str, list[tuple[str, str]]]] = []
    for line, role in lines:
        current: list[tuple[str, str]] | None = None
        outer: str | None = None
        for segment in segments(line):
            head = case_head(segment)
            if head is None:
                if current is None and segment.endswith(":"):
                    segment = segment.rstrip(":") + "."  # a lead-in to the cases below
                (common if current is None else current).append((_sentence(_capital(segment)), role))
                continue
            condition, rest = head
            if segment[:1].isupper():
                outer = None  # a new sentence: a new case at the top level
            inner = case_head(rest) if rest else None
            if inner is not None:
                outer, rest = condition, inner[1]
                condition = inner[0]
            if outer is not None:
                condition = f"{outer} and {condition}"
            rest = re.sub(r"^then\s+", "", rest, flags=re.IGNORECASE)
            current = []
            cases.append((condition, current))
            if rest:
                current.append((_sentence(_capital(rest)), line_role(rest, role)))
    return common, cases


def _step(heading: str, cells: list[str], default: str, lead: str | None = None, only_if: str | None = None
          ) -> list[Step]:
    """The step of an action's cells; with two or more cases in them, one step for what holds in every case and
    a branch step after it per case (its Check: "Only if <condition>."). A single condition stays in its line."""
    lines = [(line, line_role(head, default)) for line, head in _lead_ins(cells)]
    common, cases = _cases(lines)
    if len(cases) < 2:
        common, cases = lines, []
    fields = _fields(common, lead, only_if)
    if not any(fields.values()):
        fields["Do"].append(heading)
    steps = [Step(heading, do=_join(fields["Do"]), check=_join(fields["Check"]), say=_join(fields["Say"]))]
    for condition, case_lines in cases:
        both = f"{only_if.rstrip('.')} and {condition}" if only_if else condition
        branch = _fields(case_lines, None, both)
        steps.append(Step(_heading(f"If {condition}"), do=_join(branch["Do"]), check=_join(branch["Check"]),
                          say=_join(branch["Say"])))
    return steps


def _conditional(cells: list[str]) -> tuple[str | None, list[str]]:
    """(the condition of the whole action, its cells without it) when the action's own text is one."""
    if not cells:
        return None, cells
    match = _STEP_CONDITION.match(cells[0])
    if not match:
        return None, cells
    condition = (match.group("only") or match.group("cond")).strip()
    rest = (match.group("rest1") or match.group("rest2") or "").strip()
    return condition, ([_capital(rest)] if rest else []) + cells[1:]


_OPTION_LABEL = re.compile(r"^\(option [a-z]\)\s*", re.IGNORECASE)


def _condition_of(cells: list[str]) -> tuple[str | None, list[str]]:
    """The condition of a whole action, from its own text (the first cell; empty when it had none): "If X,
    then:", "(Only if X) ...", "If X, <consequence>", or a bare "If X" (it governs the lines below it).
    Returns the cells without the empty first one."""
    if cells and not cells[0]:
        return None, cells[1:]
    if cells:
        cells = [_OPTION_LABEL.sub("", cells[0]), *cells[1:]]
    condition, rest = _conditional(cells)
    if condition is not None or not cells or not cells[0].lower().startswith("if "):
        return condition, rest
    match = _IF_SENTENCE.match(cells[0])
    if match:
        return match.group("condition").strip(), [_capital(match.group("action"))] + cells[1:]
    return cells[0][3:].rstrip("."), cells[1:]


def _one_step(action: Mapping[str, Any], cells: list[str], allowed: list[str], slots: Mapping[str, list[str]]
              ) -> list[Step]:
    kind, button = action["type"], clean(action["button"])
    default = {"communication": "Say", "kb query": "Check"}.get(kind, "Do")
    optional = " (optional)" if any(clean(c).lower() == "optional step" for c in action["subtext"]) else ""
    condition, cells = _condition_of(cells)
    if button in ("N/A", ""):
        heading = _heading(cells[0]) if cells else "Talk to the customer"
        return _step(heading + optional, cells, default, only_if=condition)
    return _step(button + optional, cells, default, lead=_action_note(button, allowed, slots), only_if=condition)


#: What a fix's step checks: the guideline lets the agent try the fixes one at a time.
FIX_CHECK = "Stop once the customer confirms the problem is gone; else go on to the next fix."
FIX_BEFORE = "the fixes before did not solve the problem"


def _alternatives(options: list[tuple[Mapping[str, Any], list[str]]], allowed: list[str],
                  slots: Mapping[str, list[str]]) -> list[Step]:
    """Actions labelled "Option N" as branches: one step per fix, "Fix N: <button>", the second on taken only if
    the fixes before did not solve the problem."""
    steps: list[Step] = []
    for number, (action, cells) in enumerate(options, start=1):
        first, *rest = _one_step(action, cells, allowed, slots)
        only_if = f"Only if {FIX_BEFORE}. " if number > 1 else ""
        check = only_if + " ".join(c for c in (first.check, FIX_CHECK) if c)
        steps += [Step(f"Fix {number}: {first.action}", first.do, check, first.say), *rest]
    return steps


def _prerequisite(action_slug: str, button: str, cells: list[str], slots: Mapping[str, list[str]]) -> str:
    fields = slots.get(action_slug, [])
    system = f" (action {action_slug}: {', '.join(fields)})" if fields else f" (action {action_slug})"
    head = cells[0].rstrip(".:") if cells else ""
    items = "; ".join(_lower(c.rstrip(".")) for c in cells[1:])
    text = f"{head}: {items}." if items else _sentence(head) if head else ""
    return f"{PREREQUISITES[action_slug]} with [{button}]{system}" + (f": {_lower(text)}" if text else ".")


def _build(actions: list[Mapping[str, Any]], allowed: list[str], slots: Mapping[str, list[str]]
           ) -> tuple[list[str], list[Step], list[str], tuple[list[str], list[str]], list[str]]:
    """(prerequisites, steps, escalation lines, (outcomes, outcomes of conditional steps), the prerequisite
    actions) of a subflow's actions."""
    prerequisites: list[str] = []
    steps: list[Step] = []
    escalation: list[str] = []
    outcomes: list[str] = []
    conditional: list[str] = []
    identified: list[str] = []
    options: list[tuple[Mapping[str, Any], list[str]]] = []
    leading = True
    for action in actions:
        button = clean(action["button"])
        first = clean(action["text"])
        option = _OPTION.match(first)
        raw = dict(action, text=option.group("rest")) if option else action
        cells = _cells(raw)
        condition, governed = _condition_of(cells)
        handed = [c for c in governed if ESCALATES.search(c)] or (governed if ESCALATES.search(button) else [])
        if handed:
            said = "; ".join(_lower(c.rstrip(".")) for c in handed) if condition else " ".join(map(_sentence, handed))
            escalation.append(f"If {condition}: {said}" if condition else said)
        slug = _slug(button) if _slug(button) in PREREQUISITES else _ontology_action(button, slots)
        if leading and slug in PREREQUISITES:
            prerequisites.append(_prerequisite(slug, button, [c for c in cells if c], slots))
            identified.append(slug)
            continue
        leading = False
        outcome = OUTCOMES.get(slug or "")
        if outcome and outcome not in outcomes and outcome not in conditional:
            (conditional if condition else outcomes).append(outcome)
        if option:
            options.append((raw, cells))
            continue
        if options:
            steps += _alternatives(options, allowed, slots)
            options = []
        steps += _one_step(action, cells, allowed, slots)
    if options:
        steps += _alternatives(options, allowed, slots)
    return prerequisites, steps, escalation, (outcomes, [c for c in conditional if c not in outcomes]), identified


# -- the skill -----------------------------------------------------------------------------------


def _edge_case(sentence: str) -> EdgeCase | None:
    match = _IF_SENTENCE.match(sentence)
    if not match:
        return None
    action = match.group("action").rstrip(".")
    return EdgeCase(match.group("condition").strip(), _capital(action))


_PURPOSE = re.compile(r"\bto (?P<purpose>(?:complete|get|help|reset|recover|make|change)\b[^,.:]*?)(?:,|:| you\b|$)",
                      re.IGNORECASE)


def _listing(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _goal(situation: list[str], purpose_text: list[str], subflow: str, outcomes: tuple[list[str], list[str]],
          prerequisites: list[str]) -> str:
    """The customer's situation (else the purpose the instruction states, else the subflow's name), then what
    the procedure does about it."""
    if situation:
        start = " ".join(situation).rstrip(".")
    else:
        purpose = next((m.group("purpose") for s in purpose_text if (m := _PURPOSE.search(s))), None)
        help_sentence = next((s for s in purpose_text if s.lower().startswith("help ")), None)
        start = (help_sentence.rstrip(".") if help_sentence else
                 f"Help the customer {_lower(purpose)}" if purpose else subflow)
    always, sometimes = outcomes
    done = ([_listing(always)] if always else []) + ([f"when it applies, {_listing(sometimes)}"] if sometimes else [])
    if done:
        return f"{start}: {'; '.join(done)}."
    known = [PREREQUISITES[p].removeprefix("The customer's ").removeprefix("The ").lower() for p in prerequisites]
    return f"{start}, once {_listing(known)}." if known else _sentence(start)


def abcd_skill(flow: str, subflow: str, body: Mapping[str, Any], description: str, allowed: list[str],
               slots: Mapping[str, list[str]]) -> SkillFields:
    """The skill fields of one ABCD subflow (see the module docstring for the rules)."""
    first, *rest = body["instructions"]
    closing = " ".join(rest)
    faq = FAQ_MARK in clean(first).lower()
    situation, start, edges = [], [], []
    for sentence in sentences(first):
        edge = _edge_case(sentence)
        if edge:
            edges.append(edge)
        elif _IMPERATIVE.match(sentence):
            if sentence[-1] in ".!?":
                start.append(sentence)
            # else a lead-in to the actions below ("To get their username, you must"): dropped
        elif sentence.endswith(":"):
            continue  # a lead-in to the actions below
        else:
            situation.append(sentence)
    prerequisites, steps, escalation, outcomes, identified = _build(body["actions"], allowed, slots)
    alternatives = any(s.action.startswith("Fix 1: ") for s in steps)
    start_lines = [c for c in (clean_text(s) for s in start) if c and not (alternatives and _ANY_ORDER.search(c))]
    if start_lines:
        steps[:0] = _step("Start", start_lines, "Do")
    if faq:
        questions = [q for q in (clean(q) for q in re.split(r",\s+", closing)) if q]
        conditions = [_capital(q) for q in questions]
        situation_text = [f"The customer asks a {subflow} question: {', '.join(questions)}."]
        goal_situation = [f"The customer asks a question about {subflow.removesuffix(' FAQ').lower()}"]
    else:
        wrap = []
        for sentence in _sentences(closing):
            edge = _edge_case(sentence)
            if edge and not INVENTED.search(sentence) and not ANNOTATOR.search(sentence):
                edges.append(edge)
                continue
            cleaned = clean_text(sentence)
            edge = _edge_case(cleaned) if cleaned else None
            if edge:
                edges.append(edge)
            elif cleaned:
                wrap.append(cleaned)
        if wrap:
            steps += _step("Wrap up", wrap, "Do")
        conditions = list(situation)
        situation_text = situation
        goal_situation = [c for c in (clean_text(s) for s in situation) if c]
    problem = " ".join(situation_text) or f"The customer asks about {subflow.lower()} ({description})."
    if not conditions:
        conditions = [problem]
    title = f"{subflow} ({flow})"
    playbook = Playbook(
        title=title,
        goal=_goal(goal_situation, [clean(s) for s in sentences(first)], subflow, outcomes, identified),
        steps=tuple(steps),
        prerequisites=tuple(prerequisites),
        edge_cases=tuple(edges),
        escalation=" ".join(_sentence(e) for e in dict.fromkeys(escalation)) or None,
    )
    return {
        "title": title,
        "problem": problem,
        "resolution_md": render(playbook),
        "conditions": conditions,
        "keywords": [flow.lower(), subflow.lower()],
        "product_area": flow,
        "issue_type": "bug" if flow in BUG_FLOWS else "how-to",
        "source": f"{ABCD_PREFIX}{flow}/{subflow}",
    }


def _ontology_keys(guidelines: Mapping[str, Any], ontology: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """(flow, subflow) of the guidelines → the ontology's subflow key (same flows, same order)."""
    keys: dict[tuple[str, str], str] = {}
    subflows = ontology["intents"]["subflows"]
    for flow, body in guidelines.items():
        names = list(body["subflows"])
        listed = subflows.get(_slug(flow, "_"))
        if listed is None or len(listed) != len(names):
            number = list(guidelines).index(flow) + 1
            raise InvalidInput(f"ontology.json does not list the {len(names)} subflows of flow number {number} "
                               "of guidelines.json")
        keys.update({(flow, name): key for name, key in zip(names, listed, strict=True)})
    return keys


def abcd_skills(guidelines: Mapping[str, Any], kb: Mapping[str, list[str]], ontology: Mapping[str, Any]
                ) -> list[SkillFields]:
    """One skill per subflow of ABCD's ``guidelines.json`` (with its ``kb.json`` and ``ontology.json``)."""
    keys = _ontology_keys(guidelines, ontology)
    slots: dict[str, list[str]] = {}
    for group in ontology["actions"].values():
        slots.update(group)
    skills = []
    for flow, flow_body in guidelines.items():
        for subflow, body in flow_body["subflows"].items():
            allowed = kb.get(keys[(flow, subflow)], [])
            skills.append(abcd_skill(flow, subflow, body, flow_body["description"], allowed, slots))
    return sorted(skills, key=lambda s: s["source"])


def load_abcd(guidelines_path: Path) -> list[SkillFields]:
    """:func:`abcd_skills` from ``guidelines.json`` and the ``kb.json``/``ontology.json`` next to it."""
    folder = guidelines_path.parent
    missing = [name for name in ("kb.json", "ontology.json") if not (folder / name).is_file()]
    if missing:
        raise InvalidInput(f"{', '.join(missing)} must sit next to {guidelines_path} (they come with ABCD's data)")
    guidelines, kb, ontology = (read_json(path) for path in (guidelines_path, folder / "kb.json",
                                                               folder / "ontology.json"))
    try:
        return abcd_skills(guidelines, kb, ontology)
    except KeyError as exc:
        raise InvalidInput(f"{guidelines_path.name} (with kb.json and ontology.json) is not ABCD's data: missing "
                           f"the key {exc.args[0]!r} of its layout (flows -> subflows -> actions and "
                           "instructions)") from exc
    except (TypeError, AttributeError, ValueError) as exc:  # a value of another type, an empty list
        raise InvalidInput(f"{guidelines_path.name} (with kb.json and ontology.json) is not ABCD's data: a value "
                           "has the wrong type or is empty (the layout: flows -> subflows -> actions and "
                           "instructions)") from exc
