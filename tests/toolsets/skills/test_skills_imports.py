"""Imports: ABCD procedures and labelled intents to skill fields (pure, deterministic, valid playbooks)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from graphlore.errors import InvalidInput
from graphlore.toolsets.skills.imports import (
    TEMPLATE_MARK,
    abcd_skill,
    intent_skills,
    intent_title,
    is_template,
    line_role,
    load_abcd,
    load_intents,
    read_intent_rows,
)
from graphlore.toolsets.skills.playbook import parse

REPO = Path(__file__).resolve().parents[3]
QUESTIONS = REPO / "bench" / "data" / "abcd_questions.jsonl"
FIELDS = {
    "title",
    "problem",
    "resolution_md",
    "conditions",
    "keywords",
    "product_area",
    "issue_type",
    "source",
}


@pytest.fixture(scope="module")
def guidelines_path(shared_data) -> Path:
    return shared_data / "abcd" / "guidelines.json"


@pytest.fixture(scope="module")
def abcd(guidelines_path) -> list[dict]:
    return load_abcd(guidelines_path)


# -- ABCD, real files ------------------------------------------------------------------------------


def test_one_valid_skill_per_subflow_named_exactly_as_the_file_spells_it(abcd, guidelines_path):
    guidelines = json.loads(guidelines_path.read_text())
    expected = {f"abcd:{flow}/{sub}" for flow, body in guidelines.items() for sub in body["subflows"]}
    assert len(expected) == 55
    assert [s["source"] for s in abcd] == sorted(expected)
    assert "abcd:Product Defect/Initiate Refund" in expected
    for skill in abcd:
        assert set(skill) == FIELDS
        playbook = parse(skill["resolution_md"])
        assert playbook.title == skill["title"]
        assert skill["problem"] and skill["conditions"] and all(skill["conditions"])
        assert skill["issue_type"] in {"how-to", "bug"}


def test_the_import_is_deterministic(abcd, guidelines_path):
    assert load_abcd(guidelines_path) == abcd


def test_customer_facing_text_is_said_and_look_ups_are_checked(abcd):
    by_source = {s["source"]: s for s in abcd}
    refund = parse(by_source["abcd:Product Defect/Initiate Refund"]["resolution_md"])
    validate = next(s for s in refund.steps if s.action == "Validate Purchase")  # a kb query
    assert validate.check and "purchase is valid" in validate.check
    assert validate.do.startswith(
        "Use [Validate Purchase] (action validate-purchase: username, email, order_id)"
    )
    assert refund.steps[-1].action == "Wrap up" and "further assistance" in refund.steps[-1].say
    slow = parse(by_source["abcd:Troubleshoot Site/Website Too Slow"]["resolution_md"])
    notify = next(s for s in slow.steps if s.action == "Notify Internal Team")
    assert notify.say.startswith("Let the customer know")
    assert "Enter 'website team'" in notify.do
    assert by_source["abcd:Troubleshoot Site/Website Too Slow"]["issue_type"] == "bug"


def test_faq_subflows_list_their_questions_as_conditions(abcd):
    boots = next(s for s in abcd if s["source"] == "abcd:Single-Item Query/Boots FAQ")
    assert len(boots["conditions"]) == 8
    assert "Waterproof" in boots["conditions"]


def test_if_sentences_of_the_instructions_become_edge_cases(abcd):
    fee = next(s for s in abcd if s["source"] == "abcd:Order Issue/Status Mystery Fee")
    edges = parse(fee["resolution_md"]).edge_cases
    assert [(e.condition, e.action) for e in edges] == [
        ("the fee cannot be removed", "Apologize to the customer")
    ]


def test_missing_kb_or_ontology_is_a_clear_error(tmp_path, guidelines_path):
    copy = tmp_path / "guidelines.json"
    copy.write_text(guidelines_path.read_text())
    with pytest.raises(InvalidInput, match="kb.json, ontology.json must sit next to"):
        load_abcd(copy)


# -- ABCD, rules on inline cases -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "default", "role"),
    [
        ("Tell the customer you will check the system.", "Do", "Say"),
        ("Explain that many programs can cause a slowdown.", "Do", "Say"),
        ("Ask the customer for their membership level", "Do", "Say"),
        ("Check if the company made an error by Asking the Oracle", "Say", "Check"),
        ("If the customer is correct, then remove the service", "Do", "Check"),
        ("Then [Ask the Oracle] if the customer made an error", "Do", "Do"),
        ("Enter 'remove service' and use the [Update Account] button.", "Do", "Do"),
        ("Order ID", "Check", "Check"),
    ],
)
def test_line_roles(line, default, role):
    assert line_role(line, default) == role


def test_an_inline_procedure_becomes_a_valid_playbook():
    body = {
        "actions": [
            {
                "type": "interaction",
                "button": "Pull up Account",
                "text": "Get the account ID.",
                "subtext": [],
            },
            {
                "type": "kb query",
                "button": "Verify Identity",
                "text": "Confirm the order:",
                "subtext": ["Order ID"],
            },
            {
                "type": "communication",
                "button": "N/A",
                "text": "Explain the result to the customer.",
                "subtext": [],
            },
            {"type": "interaction", "button": "Update Order", "text": "x", "subtext": []},
        ],
        "instructions": [
            "The customer wants a cheaper delivery.  If they want a refund, use Shipping Cost instead.",
            "Wrap up as usual.",
        ],
    }
    slots = {"pull-up-account": ["customer_name", "account_id"], "update-order": ["amount"]}
    skill = abcd_skill(
        "Order Issue", "Manage Downgrade", body, "orders", ["pull-up-account", "update-order"], slots
    )
    playbook = parse(skill["resolution_md"])
    assert skill["problem"] == "The customer wants a cheaper delivery."
    assert skill["conditions"] == ["The customer wants a cheaper delivery."]
    assert [s.action for s in playbook.steps] == [
        "Pull up Account",
        "Verify Identity",
        "Explain the result to the customer",
        "Update Order",
        "Wrap up",
    ]
    assert (
        playbook.steps[0].do
        == "Use [Pull up Account] (action pull-up-account: customer_name, account_id). Get the account ID."
    )
    assert (
        playbook.steps[1].do == "Use [Verify Identity]."
        and playbook.steps[1].check == "Confirm the order: Order ID."
    )
    assert playbook.steps[2].say == "Explain the result to the customer."
    assert playbook.steps[3].do == "Use [Update Order] (action update-order: amount)."  # "x" is an empty cell
    assert [(e.condition, e.action) for e in playbook.edge_cases] == [
        ("they want a refund", "Use Shipping Cost instead")
    ]
    assert skill["source"] == "abcd:Order Issue/Manage Downgrade"
    assert skill["keywords"] == ["order issue", "manage downgrade"]


# -- the hand-written ABCD question set ------------------------------------------------------------


def test_the_abcd_question_set_is_big_enough_labelled_and_not_copied(abcd, guidelines_path):
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines()]
    sources = {s["source"] for s in abcd}
    inside = [r for r in rows if r["source"] is not None]
    assert len(inside) >= 80 and len(rows) - len(inside) >= 30
    assert {r["source"] for r in inside} <= sources
    text = " ".join(re.findall(r"[a-z0-9']+", guidelines_path.read_text().lower().replace("\u2019", "'")))
    for row in rows:
        words = re.findall(r"[a-z0-9']+", row["text"].lower())
        shingles = {" ".join(words[i : i + 7]) for i in range(len(words) - 6)}
        assert not any(s in text for s in shingles), row["text"]


# -- intents ---------------------------------------------------------------------------------------


def test_intents_from_json_lines_become_template_skills():
    text = "\n".join(
        json.dumps(r)
        for r in [
            {"text": "book me a flight to Rome", "intent": "book_flight"},
            {"text": "what's my balance", "intent": "balance"},
            {"text": "I need a plane ticket", "intent": "book_flight"},
            {"text": "book me a flight to Rome", "intent": "book_flight"},
        ]
    )
    skills = intent_skills(read_intent_rows(text + "\n\n", "jsonl"))
    assert [s["source"] for s in skills] == ["intent:balance", "intent:book_flight"]
    flight = skills[1]
    assert flight["title"] == "Book flight"
    assert flight["conditions"] == ["book me a flight to Rome", "I need a plane ticket"]
    playbook = parse(flight["resolution_md"])
    assert len(playbook.steps) == 1 and "book_flight" in playbook.steps[0].do
    assert playbook.goal.startswith(TEMPLATE_MARK)
    assert is_template(flight["resolution_md"])
    assert set(flight) == FIELDS


def test_intents_from_csv():
    skills = intent_skills(read_intent_rows('text,intent\n"hello, there",greet\nbye,farewell\n', "csv"))
    assert [(s["source"], s["conditions"]) for s in skills] == [
        ("intent:farewell", ["bye"]),
        ("intent:greet", ["hello, there"]),
    ]


@pytest.mark.parametrize(
    ("text", "fmt", "message"),
    [
        ('{"text": "a", "intent": "x"}\nnot json\n', "jsonl", "line 2: not JSON"),
        ('{"text": "a"}\n', "jsonl", "line 1: 'intent' must be a non-empty string"),
        ('{"text": "  ", "intent": "x"}\n', "jsonl", "line 1: 'text' must be a non-empty string"),
        ('["a", "x"]\n', "jsonl", "line 1: expected an object"),
        ("utterance,label\na,b\n", "csv", "needs the columns text,intent"),
        ("text,intent\na,\n", "csv", "row 2: 'intent'"),
        ("\n\n", "jsonl", "has no rows"),
        ("", "xml", "valid: jsonl, csv"),
    ],
)
def test_bad_intent_files_are_refused_with_the_line(text, fmt, message):
    with pytest.raises(InvalidInput, match=re.escape(message)):
        read_intent_rows(text, fmt)


def test_intent_files_are_read_by_extension(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"text": "hi", "intent": "greet"}\n')
    (tmp_path / "a.csv").write_text("text,intent\nhi,greet\n")
    assert load_intents(tmp_path / "a.jsonl") == load_intents(tmp_path / "a.csv")
    (tmp_path / "a.txt").write_text("hi")
    with pytest.raises(InvalidInput, match="use .jsonl"):
        load_intents(tmp_path / "a.txt")


def test_intent_titles():
    assert intent_title("book_flight") == "Book flight"
    assert intent_title("oos") == "Oos"
    assert intent_title("change-accent") == "Change accent"


def test_examples_are_compared_after_normalising_spaces_and_apostrophes():
    skills = intent_skills([("what is life\u2019s  meaning", "x"), ("what is life's meaning", "x")])
    assert skills[0]["conditions"] == ["what is life's meaning"]


def test_clinc150_train_becomes_150_skills_of_their_examples(shared_data, tmp_path):
    data = json.loads((shared_data / "clinc150" / "data_train_val.json").read_text())
    converted = tmp_path / "clinc_train.jsonl"  # the converter a team would write for this dataset
    converted.write_text("".join(json.dumps({"text": t, "intent": i}) + "\n" for t, i in data["train"]))
    skills = load_intents(converted)
    assert len(skills) == 150 and all(is_template(s["resolution_md"]) for s in skills)
    sizes = {s["source"]: len(s["conditions"]) for s in skills}
    # 100 examples each; "what is life’s meaning" and "what is life's meaning" are one condition
    assert sizes.pop("intent:meaning_of_life") == 99
    assert set(sizes.values()) == {100}
    assert load_intents(converted) == skills == intent_skills(data["train"])
