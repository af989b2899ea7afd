"""Imports: ABCD procedures and labelled intents to skill fields (pure, deterministic, valid playbooks)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from graphlore.errors import InvalidInput
from graphlore.toolsets.skills import quality
from graphlore.toolsets.skills.abcd import abcd_skill, clean_text, line_role, load_abcd
from graphlore.toolsets.skills.imports import (
    TEMPLATE_MARK,
    intent_skills,
    intent_title,
    is_template,
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


def test_identification_comes_first_as_prerequisites_and_steps_name_their_system_action(abcd):
    by_source = {s["source"]: s for s in abcd}
    refund = parse(by_source["abcd:Product Defect/Initiate Refund"]["resolution_md"])
    assert [p.split(" with ")[0] for p in refund.prerequisites] == ["The customer's account is pulled up",
                                                                    "The purchase is validated"]
    assert "(action validate-purchase: username, email, order_id)" in refund.prerequisites[1]
    assert not any(s.action in ("Pull up Account", "Validate Purchase") for s in refund.steps)
    assert refund.steps[-1].action == "Wrap up" and "further assistance" in refund.steps[-1].say
    reason = next(s for s in refund.steps if s.action == "Record Reason")
    # "valid options are" introduces alternatives: one line, each option with its own instruction
    assert "valid options are: gift card - they want a prepaid gift card, also ask for their address" in reason.do
    assert by_source["abcd:Troubleshoot Site/Website Too Slow"]["issue_type"] == "bug"


def test_the_55_playbooks_have_no_filler_goal_annotator_text_or_invented_data(abcd):
    playbooks = [parse(s["resolution_md"]) for s in abcd]
    assert quality.counts(playbooks) == dict.fromkeys(quality.KINDS, 0)
    assert sum(bool(p.prerequisites) for p in playbooks) >= 40
    escalating = {s["source"] for s, p in zip(abcd, playbooks, strict=True) if p.escalation}
    assert {"abcd:Product Defect/Refund Status", "abcd:Subscription Inquiry/Manage Extension"} <= escalating
    status = parse(next(s for s in abcd if s["source"] == "abcd:Product Defect/Refund Status")["resolution_md"])
    assert "enter 'manager' into [Notify Internal Team]" in status.escalation
    # "pick a refund status from the list" made data up: now the agent looks it up (in Do: it is not said)
    assert "Look up the refund status in their account (one of: not started, in progress, complete)" in (
        status.steps[0].do)
    assert "Look up" not in status.steps[0].say


def test_alternatives_are_branches_one_step_per_fix(abcd):
    card = parse(next(s for s in abcd if s["source"] == "abcd:Troubleshoot Site/Invalid Credit Card")["resolution_md"])
    assert [s.action for s in card.steps] == ["Fix 1: Try Again", "Fix 2: Log Out/In", "Fix 3: Enter Details",
                                             "Fix 4: Make Purchase"]
    assert card.steps[0].say.startswith("Instruct the customer to try entering their credit card")
    assert not card.steps[0].check.startswith("Only if")
    assert all(s.check.startswith("Only if the fixes before did not solve the problem.") for s in card.steps[1:])
    assert not any("any order" in (s.do or "") for s in card.steps)


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
        ("If the customer is correct, then remove the service", "Do", "Do"),  # the role of what it governs
        ("If they do not like it, tell them you escalated it", "Do", "Say"),
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
            {"type": "interaction", "button": "Pull up Account", "text": "Get the account ID.", "subtext": []},
            {"type": "kb query", "button": "Verify Identity", "text": "Confirm the order:", "subtext": ["Order ID"]},
            {"type": "communication", "button": "N/A", "text": "Explain the result to the customer.", "subtext": []},
            {"type": "interaction", "button": "Update Order", "text": "If the customer is right, then:",
             "subtext": ["Enter 'slower' and click [Update Order]", "Tell them it is done."]},
            {"type": "interaction", "button": "Notify Internal Team", "text": "If they are still unhappy",
             "subtext": ["Enter 'manager' into [Notify Internal Team]"]},
        ],
        "instructions": [
            "The customer wants a cheaper delivery.  If they want a refund, use Shipping Cost instead.",
            "Wrap up as usual, and remember to fill out the survey.",
        ],
    }
    slots = {"pull-up-account": ["customer_name", "account_id"], "update-order": ["amount"], "notify-team": []}
    skill = abcd_skill("Order Issue", "Manage Downgrade", body, "orders", ["pull-up-account", "update-order"], slots)
    playbook = parse(skill["resolution_md"])
    assert skill["problem"] == "The customer wants a cheaper delivery."
    assert skill["conditions"] == ["The customer wants a cheaper delivery."]
    assert playbook.goal == ("The customer wants a cheaper delivery: when it applies, update the order and report "
                             "it to the team in charge.")
    assert playbook.prerequisites == (
        "The customer's account is pulled up with [Pull up Account] (action pull-up-account: customer_name, "
        "account_id): get the account ID.",
        "The customer's identity is verified with [Verify Identity] (action verify-identity): confirm the order: "
        "order ID.")
    assert [s.action for s in playbook.steps] == ["Explain the result to the customer", "Update Order",
                                                  "Notify Internal Team", "Wrap up"]
    update = playbook.steps[1]  # the condition governs the whole step, and stays in it
    assert update.check == "Only if the customer is right."
    assert update.do == "Use [Update Order] (action update-order: amount). Enter 'slower' and click [Update Order]."
    assert update.say == "Tell them it is done."
    assert playbook.escalation == "If they are still unhappy: enter 'manager' into [Notify Internal Team]."
    assert playbook.steps[-1].do == "Wrap up as usual."  # the survey is the annotators' business
    assert [(e.condition, e.action) for e in playbook.edge_cases] == [("they want a refund", "Use Shipping Cost instead")]
    assert skill["source"] == "abcd:Order Issue/Manage Downgrade"
    assert skill["keywords"] == ["order issue", "manage downgrade"]


def test_a_condition_governs_its_step_only_when_it_is_the_actions_own_text():
    body = {"actions": [
        {"type": "communication", "button": "End Conversation", "text": "Communication",  # a label, not a condition
         "subtext": ["If the customer can return, tell them the good news", "If they cannot, apologize"]},
        {"type": "interaction", "button": "Update Account", "text": "(Option A) If they get an extension",
         "subtext": ["Enter 'extend' into [Update Account]"]},
    ], "instructions": ["The customer wants more time to pay.", "Wrap up as usual."]}
    playbook = parse(abcd_skill("Subscription", "Extension", body, "subscriptions", [], {})["resolution_md"])
    end, can, cannot, update = playbook.steps[:4]
    assert end.check is None and end.say is None  # two cases: each a branch step with its condition
    assert (can.action, can.check, can.say) == ("If the customer can return", "Only if the customer can return.",
                                                "Tell them the good news.")
    assert (cannot.check, cannot.say) == ("Only if they cannot.", "Apologize.")
    assert update.check == "Only if they get an extension." and update.do.endswith("Enter 'extend' into [Update Account].")


@pytest.mark.parametrize(("text", "cleaned"), [
    ("Make up some reason why the price was high (i.e. there was a surge).",
     "Look up the reason why the price was high in their account or ask the customer for it (never guess it)."),
    ("If the customer does not know the amount, go to [Subscription Status] to generate a random amount due.",
     "If the customer does not know the amount, look up the amount due in their account ([Subscription Status]) "
     "or ask the customer for it (never guess it)."),
    ("Pick a shipping date from the list of three options > today, tomorrow, next week",
     "Look up the shipping date in their account (one of: today, tomorrow, next week)."),
    ("Feel free to make up an email address if the customer asks for it.", None),
    ("Explain the answer, and feel free to add any creative explanations.", "Explain the answer."),
    ("Please do both (A) give instructions in your own words without copy/paste and (B) click the button in the "
     "right hand panel.", None),
    ("Apologize, and remember to mark the conversation as not successful in the survey.", "Apologize."),
])
def test_annotator_text_and_invented_data_are_cleaned_for_the_class_of_text(text, cleaned):
    assert clean_text(text) == cleaned


def test_the_playbook_checks_warn_without_refusing():
    from graphlore.toolsets.skills.playbook import Playbook, Step
    bad = Playbook(title="Reset password (Account Access)", goal="Resolve the customer's request: reset password.",
                   steps=(Step("Ask", say="Make up an email address and fill out the survey."),
                          Step("Check", check="If the customer is right:")))
    assert [w.kind for w in quality.check(bad)] == ["filler_goal", "annotator_text", "invented_data",
                                                     "dangling_condition"]
    good = Playbook(title="Reset password", goal="Get the customer a working password.",
                    steps=(Step("Ask", say="Ask the customer for their email address."),))
    assert quality.check(good) == []


@pytest.mark.parametrize(("say", "where"), [
    ("Ask for their order number and enter it into [Find Order].", "'enter'"),
    ("Type the new address into the form, then tell them it is saved.", "'Type'"),
    ("Look up their plan before you answer.", "'Look up'"),
    ("Tell them it is done and [Close Chat].", "'[Close Chat]'"),
    ("Click the Refund button and say the money is on its way.", "'Click'"),
])
def test_a_say_line_that_acts_in_a_tool_is_warned(say, where):
    from graphlore.toolsets.skills.playbook import Playbook, Step
    playbook = Playbook(title="Change address", goal="Move deliveries to the new address.",
                        steps=(Step("Update", do="Open the account.", say=say),))
    [warning] = quality.check(playbook)
    assert warning.kind == "action_in_say" and where in warning.message


@pytest.mark.parametrize("step", [
    {"do": "Either (a) restart the router; or (b) reset the modem."},
    {"say": "If the parcel is late: apologise. If the parcel is lost: offer a new one."},
    {"do": "If Premium: waive the fee.", "say": "If Basic, tell them the fee stays."},  # split over Do and Say
    {"say": "Platinum members: refund at once. Standard members: ask for the receipt."},
    {"check": "Only if the card failed. If it expired, ask for a new one; if it is blocked, call the bank."},
    {"say": "Explain: if they got a letter, it was a test; if they got a call, it was a scam."},
])
def test_alternatives_written_inline_are_warned(step):
    from graphlore.toolsets.skills.playbook import Playbook, Step
    playbook = Playbook(title="Late parcel", goal="Deliver the delayed order or refund it.", steps=(Step("Decide", **step),))
    assert [w.kind for w in quality.check(playbook)] == ["inline_alternatives"]


@pytest.mark.parametrize("step", [
    {"check": "Only if the parcel is late.", "say": "Apologise for the delay."},  # a branch step: its own condition
    {"say": "If they ask why, explain that carriers batch deliveries."},  # one condition, kept with its step
    {"do": "Ask for either 'email' or 'phone' as the contact."},  # a choice among values is one course of action
    {"say": "If the address is new, confirm it. Tell them it is saved.", "do": "If the address is new, save it."},
    {"say": "Instruct the customer to try entering the code again, or ask them to click the link."},  # theirs
])
def test_one_course_of_action_is_not_warned(step):
    from graphlore.toolsets.skills.playbook import Playbook, Step
    playbook = Playbook(title="Late parcel", goal="Deliver the delayed order or refund it.", steps=(Step("Decide", **step),))
    assert quality.check(playbook) == []


def test_tool_actions_in_customer_speech_go_to_do_with_their_condition():
    body = {"actions": [
        {"type": "communication", "button": "Plan Lookup", "text": "Ask which plan they are on and enter it into "
         "[Plan Lookup].", "subtext": ["If they are unhappy: type 'supervisor' into [Flag Case]; tell them a "
                                       "supervisor will call.", "Thank them and then [Close Chat]."]},
    ], "instructions": ["The customer wants to know their plan.", "Wrap up."]}
    [step, *_] = parse(abcd_skill("Plans", "Plan Status", body, "plans", [], {})["resolution_md"]).steps
    assert step.say == ("Ask which plan they are on. If they are unhappy, tell them a supervisor will call. "
                        "Thank them.")
    assert step.do == ("Use [Plan Lookup]. Enter it into [Plan Lookup]. If they are unhappy, type 'supervisor' "
                       "into [Flag Case]. Use [Close Chat].")
    assert not quality.check(parse(abcd_skill("Plans", "Plan Status", body, "plans", [], {})["resolution_md"]))


def test_cases_written_inline_become_branch_steps_for_every_form_of_case():
    body = {"actions": [
        {"type": "interaction", "button": "Tier Lookup", "text": "(Only if the order is late)",
         "subtext": ["Ask for their tier.", "If Premium: waive the fee. Go to the next step.",
                     "If Basic or Free: if it shipped, tell them the fee stays; if it did not, offer to cancel."]},
        {"type": "communication", "button": "N/A", "text": "Explain the outcome:", "subtext": [
            "Gold members: thank them for their loyalty.", "Bronze members: offer a coupon."]},
        {"type": "interaction", "button": "Restart", "text": "Option 1 - Ask them to restart the app.", "subtext": []},
        {"type": "interaction", "button": "Reinstall", "text": "Option 2 - Ask them to reinstall it.", "subtext": []},
    ], "instructions": ["The parcel has not arrived after the promised day.", "Wrap up."]}
    skill = abcd_skill("Orders", "Late Order", body, "orders", [], {})
    playbook = parse(skill["resolution_md"])
    assert [(s.action, s.check) for s in playbook.steps[:4]] == [
        ("Tier Lookup", "Only if the order is late."),
        ("If Premium", "Only if the order is late and Premium."),
        ("If Basic or Free and it shipped", "Only if the order is late and Basic or Free and it shipped."),
        ("If Basic or Free and it did not", "Only if the order is late and Basic or Free and it did not."),
    ]
    assert playbook.steps[1].do == "Waive the fee. Go to the next step."
    assert playbook.steps[2].say == "Tell them the fee stays."
    assert [(s.action, s.check) for s in playbook.steps[5:7]] == [
        ("If Gold member", "Only if Gold member."), ("If Bronze member", "Only if Bronze member.")]
    assert [s.action for s in playbook.steps[7:9]] == ["Fix 1: Restart", "Fix 2: Reinstall"]
    assert playbook.steps[8].check.startswith("Only if the fixes before did not solve the problem.")
    assert [w.kind for w in quality.check(playbook)] == []


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
        ("utterance,label\na,b\n", "csv", "needs the columns text and intent / category / label"),
        ("text,intent\na,\n", "csv", "row 2: 'intent'"),
        ("\n\n", "jsonl", "has no rows"),
        ("", "xml", "valid: jsonl, csv"),
    ],
)
def test_bad_intent_files_are_refused_with_the_line(text, fmt, message):
    with pytest.raises(InvalidInput, match=re.escape(message)):
        read_intent_rows(text, fmt)


def test_the_label_column_may_be_category_or_label_or_named_by_the_caller():
    # issue 24 audit 6: BANKING77's train.csv is text,category
    expected = [("intent:card_arrival", ["where is my card"])]
    for header in ("text,category", "text,label", "text,intent"):
        rows = read_intent_rows(f"{header}\nwhere is my card,card_arrival\n", "csv")
        assert [(s["source"], s["conditions"]) for s in intent_skills(rows)] == expected
    rows = read_intent_rows("utterance,topic\nwhere is my card,card_arrival\n", "csv", "utterance", "topic")
    assert [(s["source"], s["conditions"]) for s in intent_skills(rows)] == expected
    rows = read_intent_rows('{"q": "where is my card", "label": "card_arrival"}\n', "jsonl", text_column="q")
    assert [(s["source"], s["conditions"]) for s in intent_skills(rows)] == expected
    with pytest.raises(InvalidInput, match="needs the columns text and topic.*--intent-column"):
        read_intent_rows("text,label\na,b\n", "csv", intent_column="topic")


def test_banking77_imports_as_it_comes(shared_data):
    skills = load_intents(shared_data / "banking77" / "train.csv")
    assert len(skills) == 77 and "intent:card_arrival" in {s["source"] for s in skills}


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
