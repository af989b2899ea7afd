"""The resolution_md format: parse, validate (line-numbered problems), render, round-trip."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphlore.errors import InvalidInput
from graphlore.toolsets.skills.playbook import (
    ARROW,
    EdgeCase,
    Header,
    Playbook,
    PlaybookError,
    Step,
    parse,
    render,
    validate,
)

EXAMPLE = """# Refund a duplicate charge

**Confidence:** 0.85 (23 uses, 20 confirmed)
**Product Area:** billing
**Issue Type:** how-to

## Goal
Refund a charge the customer was billed twice for.

## Prerequisites
- The customer is signed in

## Steps

### 1. Find the charges
**Do:** Look up the last 30 days of charges on the account.
**Check:** Two charges have the same amount and order id.

### 2. Refund the duplicate
**Do:** Refund the later charge to the original payment method.
**Say:** The refund reaches your card in 3 to 5 business days.

## Edge Cases
- The charges differ in amount → treat it as a billing dispute instead

## Escalation
Hand off to billing when the refund API refuses; pass the order id and both charge ids.
"""

HEADER = Header(
    confidence=0.85, times_used=23, times_confirmed=20, product_area="billing", issue_type="how-to"
)


def lines_of(problems) -> list[int]:
    return [p.line for p in problems]


def test_the_issue_layout_parses_to_its_parts():
    pb = parse(EXAMPLE)
    assert pb.title == "Refund a duplicate charge"
    assert pb.goal == "Refund a charge the customer was billed twice for."
    assert pb.prerequisites == ("The customer is signed in",)
    assert [s.action for s in pb.steps] == ["Find the charges", "Refund the duplicate"]
    assert pb.steps[0].check == "Two charges have the same amount and order id."
    assert pb.steps[0].say is None
    assert pb.steps[1].say == "The refund reaches your card in 3 to 5 business days."
    assert pb.edge_cases == (
        EdgeCase("The charges differ in amount", "treat it as a billing dispute instead"),
    )
    assert pb.escalation.startswith("Hand off to billing")


def test_the_example_renders_back_byte_for_byte_with_its_header():
    assert render(parse(EXAMPLE), HEADER) == EXAMPLE


def test_header_lines_come_from_the_stored_fields_never_from_input():
    forged = EXAMPLE.replace("0.85 (23 uses, 20 confirmed)", "1.00 (999 uses, 999 confirmed)").replace(
        "**Product Area:** billing", "**Product Area:** anything"
    )
    pb = parse(forged)
    assert pb == parse(EXAMPLE)
    shown = render(pb, Header(0.5, 1, 0, "shipping", "bug"))
    assert "**Confidence:** 0.50 (1 use, 0 confirmed)" in shown
    assert "**Product Area:** shipping" in shown and "**Issue Type:** bug" in shown
    assert "999" not in shown and "anything" not in shown


def test_header_lines_are_optional():
    without = "\n".join(
        line
        for line in EXAMPLE.splitlines()
        if not line.startswith("**Confidence")
        and not line.startswith("**Product")
        and not line.startswith("**Issue")
    )
    assert parse(without) == parse(EXAMPLE)
    assert "**Confidence" not in render(parse(without))


def test_optional_sections_may_be_left_out():
    pb = parse("# T\n## Goal\nDo it.\n## Steps\n### 1. Act\n**Say:** Hello.\n")
    assert pb.prerequisites == () and pb.edge_cases == () and pb.escalation is None
    assert pb.steps == (Step("Act", say="Hello."),)


def test_paragraph_lines_are_joined_and_spacing_is_normalised():
    pb = parse("#   T  \n\n## Goal\n  first line\nsecond line  \n## Steps\n### 1.   Act \n**Do:**   x  \n")
    assert pb.title == "T" and pb.goal == "first line second line"
    assert pb.steps[0] == Step("Act", do="x")


@pytest.mark.parametrize(
    ("markdown", "line", "words"),
    [
        ("", 1, "empty"),
        ("Refund\n## Goal\nx\n## Steps\n### 1. a\n**Do:** b\n", 1, "must start with '# <Title>'"),
        ("# T\n## Steps\n### 1. a\n**Do:** b\n", 4, "missing required section '## Goal'"),
        ("# T\n## Goal\nx\n", 3, "missing required section '## Steps'"),
        ("# T\n## Goal\nx\n## Steps\n### 1. a\n\n### 2. b\n**Say:** c\n", 5, "step 1 has none of"),
        ("# T\n## Goal\nx\n## Steps\n### 1. a\n**Do:** b\n### 3. c\n**Do:** d\n", 7, "expected 2"),
        ("# T\n## Goal\nx\n## Steps\n### 1. a\n**Do:** b\n**Do:** c\n", 7, "second '**Do:**'"),
        ("# T\n## Goal\nx\n## Steps\n### 1. a\n**Do:**\n", 6, "is empty"),
        ("# T\n## Goal\nx\n## Steps\n### 1. a\nDo: b\n", 6, "holds only"),
        ("# T\n## Goal\nx\n## Steps\nfirst\n### 1. a\n**Do:** b\n", 5, "before the first step"),
        ("# T\n## Goal\nx\n## Steps\n", 4, "has no step"),
        ("# T\n## Goal\n\n## Steps\n### 1. a\n**Do:** b\n", 2, "'## Goal' is empty"),
        ("# T\n## Goal\nx\n## Notes\ny\n## Steps\n### 1. a\n**Do:** b\n", 4, "unknown section '## Notes'"),
        ("# T\n## Goal\nx\n## Steps\n### 1. a\n**Do:** b\n## Goal\ny\n", 7, "appears twice"),
        ("# T\n## Steps\n### 1. a\n**Do:** b\n## Goal\ny\n", 5, "must come before '## Steps'"),
        ("# T\n## Goal\nx\n## Prerequisites\nsigned in\n## Steps\n### 1. a\n**Do:** b\n", 5, "bullets only"),
        (
            "# T\n## Goal\nx\n## Steps\n### 1. a\n**Do:** b\n## Edge Cases\n- no arrow here\n",
            8,
            "<condition> →",
        ),
        (
            "# T\n## Goal\nx\n## Steps\n### 1. a\n**Do:** b\n## Edge Cases\n- → only action\n",
            8,
            "<condition> →",
        ),
        ("# T\nintro text\n## Goal\nx\n## Steps\n### 1. a\n**Do:** b\n", 2, "only the header lines"),
        ("# T\n## Goal\nx\n# Other\n## Steps\n### 1. a\n**Do:** b\n", 4, "a second title"),
        ("# T\n## Goal\nx\n## Steps\n### One. a\n**Do:** b\n", 5, "'### 1. <action>'"),
        ("# T\n## Goal\nx\n### 1. a\n## Steps\n### 1. a\n**Do:** b\n", 4, "not a heading"),
    ],
)
def test_each_problem_is_refused_with_its_line_and_what_is_wrong(markdown, line, words):
    problems = validate(markdown)
    assert problems, "expected the playbook to be refused"
    assert any(p.line == line and words in p.message for p in problems), [str(p) for p in problems]
    with pytest.raises(PlaybookError) as caught:
        parse(markdown)
    assert isinstance(caught.value, InvalidInput)
    assert f"line {line}: " in caught.value.message


def test_every_problem_is_reported_at_once():
    markdown = "# T\n## Goal\n\n## Steps\n### 1. a\n### 2. b\n**Do:** c\n## Edge Cases\n- nothing\n"
    assert lines_of(validate(markdown)) == [2, 5, 9]


def test_a_valid_playbook_has_no_problems():
    assert validate(EXAMPLE) == []


def test_a_playbook_object_refuses_text_the_parser_would_read_differently():
    with pytest.raises(ValueError):
        Step("Act")  # none of Do, Check, Say
    with pytest.raises(ValueError):
        Step("Act", do="two\nlines")
    with pytest.raises(ValueError):
        Step(" Act", do="x")
    with pytest.raises(ValueError):
        EdgeCase(f"a {ARROW} b", "c")
    with pytest.raises(ValueError):
        Playbook(title="T", goal="# not a heading", steps=(Step("a", do="b"),))
    with pytest.raises(ValueError):
        Playbook(title="T", goal="g", steps=())


# -- property-based round trips ------------------------------------------------------------------

# Any printable text of one line (str.splitlines decides what a line break is), trimmed and non-empty.
_line = (
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=40)
    .map(str.strip)
    .filter(lambda t: bool(t) and len(t.splitlines()) == 1)
)
_paragraph = _line.filter(lambda t: not t.startswith("#"))


@st.composite
def steps(draw):
    action = draw(_line)
    fields = draw(st.lists(st.sampled_from(["do", "check", "say"]), min_size=1, max_size=3, unique=True))
    return Step(action, **{name: draw(_line) for name in fields})


playbooks = st.builds(
    Playbook,
    title=_line,
    goal=_paragraph,
    steps=st.lists(steps(), min_size=1, max_size=6).map(tuple),
    prerequisites=st.lists(_line, max_size=3).map(tuple),
    edge_cases=st.lists(
        st.builds(EdgeCase, condition=_line.filter(lambda t: ARROW not in t), action=_line), max_size=3
    ).map(tuple),
    escalation=st.none() | _paragraph,
)
headers = st.none() | st.builds(
    Header,
    confidence=st.floats(0, 1),
    times_used=st.integers(0, 10_000),
    times_confirmed=st.integers(0, 10_000),
    product_area=_line,
    issue_type=st.sampled_from(["how-to", "bug", "feature-request", "escalation", "other"]),
)


@settings(max_examples=150)
@given(playbooks, headers)
def test_parse_of_render_is_the_playbook(playbook, header):
    assert parse(render(playbook, header)) == playbook


@settings(max_examples=150)
@given(playbooks, headers)
def test_render_of_parse_is_the_rendered_text(playbook, header):
    text = render(playbook, header)
    assert validate(text) == []
    assert render(parse(text), header) == text
