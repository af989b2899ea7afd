"""What of a skill is indexed, and the near-duplicate rule."""

from __future__ import annotations

import numpy as np

from graphlore.toolsets.skills.abcd import load_abcd
from graphlore.toolsets.skills.routing import (
    DUPLICATE_THRESHOLD,
    is_duplicate,
    keyword_document,
    prototype,
    skill_passages,
)

PLAYBOOK = """# Reset a password

## Goal
Get the customer signed in again.

## Steps

### 1. Verify
**Check:** The email matches the account.

### 2. Send the link
**Do:** Send a reset link.
**Say:** Check your inbox for the link.
"""

SKILL = {
    "title": "Reset a password",
    "problem": "The customer forgot their password.",
    "conditions": ["I forgot my password", "The customer forgot their password.", "I forgot my password"],
    "keywords": ["password", "login"],
    "resolution_md": PLAYBOOK,
}


def test_passages_are_title_problem_and_each_condition_without_repeats():
    assert skill_passages(SKILL) == [
        "Reset a password",
        "The customer forgot their password.",
        "I forgot my password",
    ]


def test_empty_problem_and_no_conditions_leave_the_title():
    assert skill_passages({"title": "T", "problem": "", "conditions": []}) == ["T"]


def test_the_keyword_document_names_the_title_and_holds_problem_conditions_keywords():
    name, text = keyword_document(SKILL)
    assert name == "Reset a password"
    assert text.splitlines() == [SKILL["problem"], *SKILL["conditions"], "password", "login"]


def test_prototype_is_the_normalised_mean():
    rows = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert np.allclose(prototype(rows), [2**-0.5, 2**-0.5])


def test_a_reworded_copy_is_a_duplicate_and_a_different_skill_is_not(embedder):
    original = embedder.embed(skill_passages(SKILL))
    copy = embedder.embed(
        skill_passages(
            {
                "title": "Reset a password",
                "problem": "The customer has forgotten their password.",
                "conditions": ["I forgot my password", "I can't remember my password"],
            }
        )
    )
    other = embedder.embed(
        skill_passages(
            {
                "title": "Change the delivery address",
                "problem": "The customer moved and wants the order shipped to the new address.",
                "conditions": ["Please ship my order to my new address"],
            }
        )
    )
    assert is_duplicate(copy, original)
    assert not is_duplicate(other, original)


def test_no_two_abcd_procedures_are_duplicates(embedder, shared_data):
    skills = load_abcd(shared_data / "abcd" / "guidelines.json")
    protos = np.array([prototype(embedder.embed(skill_passages(s))) for s in skills])
    similarity = protos @ protos.T
    np.fill_diagonal(similarity, -1)
    assert similarity.max() < DUPLICATE_THRESHOLD
