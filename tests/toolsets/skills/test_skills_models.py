"""Draft tool models, outcome rules and the changes diff of the skills toolset."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphlore.contract import parse_request
from graphlore.errors import InvalidInput
from graphlore.toolsets.skills import models as M
from graphlore.toolsets.skills.diff import changes
from graphlore.toolsets.skills.outcomes import (
    OUTCOME_DELTAS,
    OUTCOMES,
    Counters,
    apply_outcome,
    initial_counters,
    record_use,
)

PLAYBOOK = """# Reset a password

## Goal
Get the customer signed in again.

## Steps

### 1. Verify the account
**Check:** The email matches the account.

### 2. Send the link
**Do:** Send a reset link.
**Say:** Check your inbox.
"""

SKILL = {
    "title": "Reset a password",
    "problem": "The customer forgot their password.",
    "conditions": ["I forgot my password"],
    "keywords": ["password"],
    "resolution_md": PLAYBOOK,
}


# -- outcomes ------------------------------------------------------------------------------------


def test_the_deltas_are_the_specification():
    assert OUTCOME_DELTAS == {
        "confirmed": 0.10,
        "likely_resolved": 0.03,
        "likely_failed": -0.05,
        "failed": -0.10,
        "no_feedback": 0.01,
    }
    assert set(OUTCOMES) == set(OUTCOME_DELTAS)


@pytest.mark.parametrize(
    ("outcome", "confidence", "confirmed"),
    [
        ("confirmed", 0.6, 1),
        ("likely_resolved", 0.53, 0),
        ("likely_failed", 0.45, 0),
        ("failed", 0.4, 0),
        ("no_feedback", 0.51, 0),
    ],
)
def test_each_outcome_from_a_new_skill(outcome, confidence, confirmed):
    after = apply_outcome(initial_counters(), outcome)
    assert after == Counters(confidence, confirmed, confirmed)  # a confirmed use is a use


def test_confidence_is_clamped_and_does_not_drift():
    top = Counters(0.95, 3, 3)
    assert apply_outcome(top, "confirmed").confidence == 1.0
    assert apply_outcome(Counters(0.04, 1, 0), "failed").confidence == 0.0
    c = initial_counters()
    for _ in range(3):
        c = apply_outcome(c, "confirmed")
    assert c.confidence == 0.8 and c.times_confirmed == 3


@given(st.lists(st.sampled_from(OUTCOMES), max_size=60))
def test_any_sequence_of_outcomes_stays_in_bounds(sequence):
    c = initial_counters()
    for outcome in sequence:
        c = apply_outcome(c, outcome)
        assert 0.0 <= c.confidence <= 1.0
        assert c.times_confirmed <= c.times_used  # issue 24 audit 6: it was 1 confirmed of 0 uses
        if outcome in ("likely_resolved", "failed"):
            c = record_use(c)
    assert c.times_confirmed == sequence.count("confirmed")


def test_a_confirmed_start_and_uses():
    assert initial_counters(True) == Counters(0.6, 1, 1)
    assert initial_counters(False) == Counters(0.5, 0, 0)
    assert record_use(Counters(0.5, 2, 1)) == Counters(0.5, 3, 1)
    with pytest.raises(ValueError, match="valid: confirmed, likely_resolved"):
        apply_outcome(initial_counters(), "solved")


# -- models --------------------------------------------------------------------------------------


def test_every_request_takes_a_library_defaulting_to_default():
    requests = [
        (M.SearchSkillsRequest, {"query": "x"}),
        (M.CreateSkillRequest, {"skill": SKILL}),
        (M.UpdateSkillRequest, {"skill_id": "a", "skill": {"problem": "p"}}),
        (M.RecordOutcomeRequest, {"skill_id": "a", "outcome": "failed"}),
        (M.GetSkillRequest, {"skill_id": "a"}),
        (M.ImportSkillsRequest, {"format": "abcd", "path": "g.json"}),
        (M.ListSkillsRequest, {}),
        (M.SkillHistoryRequest, {"skill_id": "a"}),
    ]
    for model, data in requests:
        assert parse_request(model, data).library == "default"
        with pytest.raises(InvalidInput, match="library"):
            parse_request(model, {**data, "library": "Bad Name"})
        with pytest.raises(InvalidInput, match="unknown field 'extra'"):
            parse_request(model, {**data, "extra": 1})


def test_search_response_has_exactly_the_issue_names():
    # issue 24: the evidence (why), and the match's template and low_confidence flags
    assert list(M.SearchSkillsResponse.model_fields) == ["skill", "query", "search_time_ms", "judge", "evidence"]
    assert list(M.SkillMatch.model_fields) == [
        "skill_id",
        "title",
        "confidence",
        "resolution_md",
        "conditions",
        "template",
        "low_confidence",
    ]
    assert list(M.RoutingEvidence.model_fields) == ["candidates", "margin", "score", "decision", "nearest"]
    assert list(M.CandidateEvidence.model_fields) == ["skill_id", "title", "match", "typical", "rank", "whitened",
                                                      "matched", "failed_on"]  # whitened: judge v10
    evidence = M.RoutingEvidence(candidates=[], margin=0.0, score=0.0, decision="no candidates")
    assert list(M.JudgeInfo.model_fields) == ["kind", "fallback"]  # issue 24: what happened when the LLM failed
    calibrated = M.JudgeInfo(kind="calibrated")
    none = M.SearchSkillsResponse(skill=None, query="q", search_time_ms=1.5, judge=calibrated, evidence=evidence)
    assert none.model_dump()["skill"] is None and none.model_dump()["judge"] == {"kind": "calibrated",
                                                                                 "fallback": None}
    with pytest.raises(ValueError):
        M.SearchSkillsResponse(skill=None, query="q", search_time_ms=1.5, judge={"kind": "oracle"}, evidence=evidence)
    assert list(M.SearchSkillsRequest.model_fields) == ["query", "library", "judge"]


def test_skill_fields_are_the_issue_fields():
    assert list(M.Skill.model_fields) == [
        "skill_id", "title", "version", "problem", "resolution_md", "conditions", "keywords", "product_area",
        "issue_type", "confidence", "times_used", "times_confirmed", "created_at", "updated_at", "source",
        "archived_at",  # issue 20: get_skill shows an archived skill, marked
        "negative_examples",  # issue 24: questions it failed on (record_outcome failed with query)
    ]  # fmt: skip
    assert set(M.ISSUE_TYPES) == {"how-to", "bug", "feature-request", "escalation", "other"}


def test_the_exact_error_texts():
    with pytest.raises(InvalidInput) as caught:
        M.check_query("   ")
    assert caught.value.message == "query is required"
    assert M.skill_not_found("abc") == "Skill abc not found. Use search_skills to find the correct ID."
    assert M.database_failed("disk I/O error") == "Database connection failed: disk I/O error"
    assert M.llm_failed("timeout") == "LLM error: timeout. Retry or resolve from scratch."
    message = M.no_llm(M.STRUCTURED_CREATE)
    assert "sampling" in message and "GRAPHLORE_LLM_URL" in message and 'skill={"title"' in message


def test_oversized_input_names_the_limit_and_the_size():
    with pytest.raises(InvalidInput, match="query is 2,001 characters; the limit is 2,000 characters"):
        M.check_query("x" * 2001)
    with pytest.raises(InvalidInput, match="title is 201 characters; the limit is 200"):
        parse_request(M.CreateSkillRequest, {"skill": {**SKILL, "title": "t" * 201}})
    with pytest.raises(InvalidInput, match="conditions is 501 items; the limit is 500 items"):
        parse_request(M.CreateSkillRequest, {"skill": {**SKILL, "conditions": ["c"] * 501}})


def test_create_takes_exactly_one_form():
    with pytest.raises(InvalidInput, match="either conversation=<transcript> or skill="):
        parse_request(M.CreateSkillRequest, {})
    with pytest.raises(InvalidInput, match="not both"):
        parse_request(M.CreateSkillRequest, {"conversation": "hi", "skill": SKILL})
    request = parse_request(M.CreateSkillRequest, {"skill": SKILL, "resolution_confirmed": True})
    assert request.skill.product_area == "general" and request.skill.issue_type == "other"


def test_a_structured_skill_with_an_invalid_playbook_is_refused_with_its_line():
    broken = PLAYBOOK.replace("**Check:** The email matches the account.\n", "")
    with pytest.raises(InvalidInput, match=r"line 8: step 1 has none of"):
        parse_request(M.CreateSkillRequest, {"skill": {**SKILL, "resolution_md": broken}})


def test_the_title_and_the_playbook_heading_must_agree():
    with pytest.raises(InvalidInput, match="differs from the playbook's '# Reset a password'"):
        parse_request(M.CreateSkillRequest, {"skill": {**SKILL, "title": "Password help"}})


def test_update_takes_one_form_and_at_least_one_field():
    with pytest.raises(InvalidInput, match="at least one field"):
        parse_request(M.UpdateSkillRequest, {"skill_id": "a", "skill": {}})
    with pytest.raises(InvalidInput, match="feedback goes with conversation"):
        parse_request(M.UpdateSkillRequest, {"skill_id": "a", "skill": {"problem": "p"}, "feedback": "f"})
    ok = parse_request(M.UpdateSkillRequest, {"skill_id": "a", "conversation": "c", "feedback": "f"})
    assert ok.skill is None


def test_outcome_names_the_valid_values():
    with pytest.raises(InvalidInput, match="confirmed"):
        parse_request(M.RecordOutcomeRequest, {"skill_id": "a", "outcome": "solved"})


# -- changes -------------------------------------------------------------------------------------


def edit(markdown: str, *pairs: tuple[str, str]) -> str:
    for a, b in pairs:
        assert a in markdown
        markdown = markdown.replace(a, b)
    return markdown


def test_no_change_is_empty():
    assert changes(SKILL, dict(SKILL)).empty


def test_steps_added_removed_edited():
    new_md = (
        edit(
            PLAYBOOK,
            ("**Do:** Send a reset link.", "**Do:** Send a reset link by SMS."),
            ("### 1. Verify the account\n**Check:** The email matches the account.\n\n", ""),
            ("### 2. Send the link", "### 1. Send the link"),
        )
        + "\n### 2. Confirm\n**Say:** Are you signed in now?\n"
    )
    result = changes(SKILL, {**SKILL, "resolution_md": new_md})
    assert [(s.number, s.action) for s in result.steps_removed] == [(1, "Verify the account")]
    assert [(s.number, s.action) for s in result.steps_added] == [(2, "Confirm")]
    assert [(e.old_number, e.new_number, e.fields) for e in result.steps_edited] == [(2, 1, ["do"])]
    assert result.fields_changed == []


def test_a_renamed_step_with_the_same_content_is_an_edit_and_a_move_is_an_order_change():
    renamed = edit(PLAYBOOK, ("### 1. Verify the account", "### 1. Check the account"))
    result = changes(SKILL, {**SKILL, "resolution_md": renamed})
    assert [(e.old_number, e.new_number, e.fields) for e in result.steps_edited] == [(1, 1, ["action"])]
    swapped = """# Reset a password

## Goal
Get the customer signed in again.

## Steps

### 1. Send the link
**Do:** Send a reset link.
**Say:** Check your inbox.

### 2. Verify the account
**Check:** The email matches the account.
"""
    result = changes(SKILL, {**SKILL, "resolution_md": swapped})
    assert not result.steps_added and not result.steps_removed and not result.steps_edited
    assert result.fields_changed == ["step_order"]


def test_conditions_keywords_title_and_other_fields():
    new = {
        **SKILL,
        "title": "Reset a forgotten password",
        "resolution_md": edit(
            PLAYBOOK,
            ("# Reset a password", "# Reset a forgotten password"),
            ("Get the customer signed in again.", "Sign the customer in."),
        ),
        "conditions": ["I can't log in", "I forgot my password"],
        "keywords": ["login"],
        "issue_type": "how-to",
    }
    result = changes({**SKILL, "issue_type": "other"}, new)
    assert result.title == M.TitleChange(old="Reset a password", new="Reset a forgotten password")
    assert result.conditions_added == ["I can't log in"] and result.conditions_removed == []
    assert result.keywords_added == ["login"] and result.keywords_removed == ["password"]
    assert result.fields_changed == ["goal", "issue_type"]
    assert not result.steps_edited
