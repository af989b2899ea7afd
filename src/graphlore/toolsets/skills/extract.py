"""What an LLM does for the skills tools: judge a search's candidates, write a skill from a conversation,
fold a conversation into a skill.

The judge sees each candidate's title, problem, conditions (the first
:data:`SHOWN_CONDITIONS`), confidence (with its uses), whether it is a template, and steps, and answers with one id or none
(:func:`graphlore.llm.judge`: an unusable answer is asked again once, then the
caller's calibrated judge decides; so does it when the endpoint fails).
Extraction and merging ask for the whole skill as JSON and validate it exactly
as a structured ``create_skill`` is validated (:class:`SkillInput`), after
dropping keys a skill does not have (with a warning): a refused answer is sent
back once with the validator's message, then the call fails with ``LLM error: ...``. Every question
is asked before anything is written (the MCP 2026-07-28 sampling rule, see
:mod:`graphlore.llm`), and the same answers always lead to the same questions.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from graphlore.contract import parse_request
from graphlore.errors import InvalidInput, ProviderError
from graphlore.llm import LLM, Choice, LLMRequest, Verdict, judge, parse_json_reply
from graphlore.toolsets.skills.imports import is_template
from graphlore.toolsets.skills.models import ISSUE_TYPES, SkillInput, llm_failed
from graphlore.toolsets.skills.outcomes import Counters
from graphlore.toolsets.skills.playbook import Header, parse, render

log = logging.getLogger("graphlore.skills")

#: Conditions shown to the judge per candidate (an imported intent has 100 examples).
SHOWN_CONDITIONS = 10

SYSTEM = (
    "You maintain a library of customer-support playbooks: executable Do/Check/Say procedures that agents "
    "follow. Answer with one JSON object and nothing else."
)
JUDGE_TASK = (
    "The request is a customer's problem. Pick the one playbook below that resolves exactly this problem, "
    "or none when none does: a playbook for a related but different problem is none."
)
LAYOUT = """# <Title>

## Goal
<one sentence>

## Prerequisites
- <condition>

## Steps

### 1. <action>
**Do:** <what the agent does: lookup, API call, calculation>
**Check:** <what must hold before going on>
**Say:** <what the customer is told, if anything>

## Edge Cases
- <condition> → <what to do instead>

## Escalation
<when to hand off to a human, and what context to pass>"""
SHAPE = (
    '{"title": "<short name of the procedure>", "problem": "<the customer\'s problem in a sentence or two>", '
    '"conditions": ["<when it applies: a situation or a customer question>", ...], '
    '"keywords": ["<word a search should match>", ...], "resolution_md": "<the playbook>", '
    '"product_area": "<e.g. billing>", "issue_type": "<one of ' + " | ".join(ISSUE_TYPES) + '>"}'
)
RULES = f"""resolution_md follows this layout exactly:

{LAYOUT}

Goal and Steps are required; Prerequisites, Edge Cases and Escalation are optional (leave out a section
you have nothing for). Steps are numbered 1, 2, 3...; each has at least one of **Do:**, **Check:**,
**Say:**, each on one line. An edge case is one line "- <condition> → <what to do instead>". The first
line is "# " followed by the title, exactly."""

EXTRACT = """Write ONE playbook from this support conversation: the procedure that resolved the customer's
problem, so another agent can follow it next time. Use only what the conversation shows.

Conversation:
<<<
{conversation}
>>>
{hints}
Answer with one JSON object of this shape:
{shape}

{rules}"""

MERGE = """An agent used this playbook, and the conversation below shows where the agent deviated from it
and what worked. Fold what worked into the playbook: keep what still holds, change, add or remove only
what the conversation (and the feedback, if any) shows should change.

Current skill:
{current}

Conversation:
<<<
{conversation}
>>>
{feedback}
Answer with the whole updated skill as one JSON object of this shape:
{shape}

{rules}"""


def complete(llm: LLM, request: LLMRequest) -> str:
    """The model's answer; an endpoint failure is the specification's ``LLM error: ...``."""
    try:
        return llm.complete(request)
    except ProviderError as exc:
        raise ProviderError(llm_failed(exc.message)) from exc


# -- the judge ---------------------------------------------------------------------------------------


def describe(fields: Mapping[str, Any], counters: Counters) -> str:
    """What the judge reads about one candidate: title, problem, conditions, confidence, steps."""
    conditions = list(fields["conditions"])
    shown = [f"  - {c}" for c in conditions[:SHOWN_CONDITIONS]]
    if len(conditions) > SHOWN_CONDITIONS:
        shown.append(f"  (and {len(conditions) - SHOWN_CONDITIONS} more like these)")
    steps = []
    for number, step in enumerate(parse(fields["resolution_md"]).steps, start=1):
        parts = [f"{label}: {step.field(label)}" for label in ("Do", "Check", "Say") if step.field(label)]
        steps.append(f"  {number}. {step.action} | " + " | ".join(parts))
    uses = Header(counters.confidence, counters.times_used, counters.times_confirmed, "", "").lines()[0]
    template = (["Template: yes (an imported stub: it names the request; its procedure is still to be written)"]
                if is_template(fields["resolution_md"]) else [])
    return "\n".join([
        f"Title: {fields['title']}",
        f"Problem: {fields['problem']}",
        "Applies when:", *(shown or ["  (no conditions)"]),
        uses.replace("**", ""), *template,
        "Steps:", *steps,
    ])


def pick(llm: LLM, query: str, candidates: Sequence[tuple[str, Mapping[str, Any], Counters]]) -> Verdict:
    """The LLM's choice among ``(skill_id, fields, counters)`` for ``query`` (see :func:`graphlore.llm.judge`)."""
    choices = [Choice(skill_id, describe(fields, counters)) for skill_id, fields, counters in candidates]
    return judge(llm, query, choices, task=JUDGE_TASK)


# -- writing a skill ---------------------------------------------------------------------------------


def _skill(llm: LLM, prompt: str) -> SkillInput:
    """Ask for a skill; a refused answer is sent back once with what was wrong."""
    problem = ""
    for _ in range(2):
        note = (f"\n\nYour last answer was refused: {problem}\nAnswer again with the whole JSON object, "
                "fixed." if problem else "")
        text = complete(llm, LLMRequest(SYSTEM, prompt + note, max_tokens=4096))
        try:
            reply = parse_json_reply(text, f"the LLM ({llm.name})")
        except ProviderError:
            problem = "it was not one JSON object"
            continue
        try:
            return parse_request(SkillInput, known_fields(reply, llm.name))
        except InvalidInput as exc:
            problem = exc.message
    raise ProviderError(llm_failed(f"the model's skill was refused twice ({problem})"))


def known_fields(reply: Any, source: str) -> Any:
    """``reply`` without keys a skill does not have (a model adds ``confidence`` or ``changes`` unasked):
    they are dropped with a warning in the log, never a reason to refuse the skill."""
    if not isinstance(reply, dict):
        return reply
    extra = sorted(set(reply) - set(SkillInput.model_fields))
    if extra:
        log.warning("the LLM (%s) answered keys a skill does not have, ignored: %s", source, ", ".join(extra))
    return {k: v for k, v in reply.items() if k in SkillInput.model_fields}


def _hints(metadata: Mapping[str, Any]) -> str:
    if not metadata:
        return ""
    return "\nWhat the caller knows (use it):\n" + json.dumps(dict(metadata), sort_keys=True, ensure_ascii=False) + "\n"


def extract_skill(llm: LLM, conversation: str, metadata: Mapping[str, Any]) -> SkillInput:
    """A new skill from a conversation; ``product_area`` and ``issue_type`` of ``metadata`` are kept as given."""
    skill = _skill(llm, EXTRACT.format(conversation=conversation, hints=_hints(metadata), shape=SHAPE, rules=RULES))
    given = {k: metadata[k] for k in ("product_area", "issue_type") if k in metadata}
    return skill.model_copy(update=given) if given else skill


def merge_skill(llm: LLM, current: Mapping[str, Any], conversation: str, feedback: str) -> SkillInput:
    """``current`` (content fields) with a conversation's deviation folded in, as the LLM writes it."""
    shown = {**current, "resolution_md": render(parse(current["resolution_md"]))}
    note = f"\nFeedback on the playbook:\n<<<\n{feedback}\n>>>\n" if feedback else ""
    return _skill(llm, MERGE.format(current=json.dumps(shown, indent=2, ensure_ascii=False),
                                    conversation=conversation, feedback=note, shape=SHAPE, rules=RULES))
