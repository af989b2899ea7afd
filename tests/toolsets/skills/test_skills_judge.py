"""The calibrated judge: pure scoring rules, then routing with the real embedding model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from graphlore.toolsets.skills import judge as J
from graphlore.toolsets.skills.routing import skill_passages


def unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_soft_match_of_one_passage_is_its_cosine():
    assert J.soft_match(np.array([0.42])) == pytest.approx(0.42)


def test_soft_match_lies_between_the_mean_and_the_best_and_rewards_close_seconds():
    lone = np.array([0.8, 0.1, 0.1])
    backed = np.array([0.8, 0.75, 0.1])
    for cos in (lone, backed):
        assert cos.mean() <= J.soft_match(cos) <= cos.max()
    assert J.soft_match(backed) > J.soft_match(lone)


def test_soft_match_is_the_formula_and_stable_for_many_passages():
    cos = np.linspace(-0.2, 0.9, 500)
    expected = J.TAU * math.log(np.mean(np.exp(cos / J.TAU)))
    assert J.soft_match(cos) == pytest.approx(expected)
    assert math.isfinite(J.soft_match(np.full(10_000, 1.0), tau=1e-4))


def test_prototype_cosine_from_passage_cosines_equals_the_cosine_to_the_normalised_mean():
    rng = np.random.default_rng(1)
    passages = unit(rng.normal(size=(7, 384)))
    query = unit(rng.normal(size=(1, 384)))[0]
    mean = passages.mean(axis=0)
    direct = float(query @ (mean / np.linalg.norm(mean)))
    assert J.prototype_cosine(passages @ query, J.centroid_norm(passages)) == pytest.approx(direct)


def test_rank_score_trusts_the_prototype_more_with_more_passages():
    cos = np.array([0.9, 0.2, 0.2])
    assert J.rank_score(cos, 0.6, k=0) == pytest.approx(J.soft_match(cos))
    few = J.rank_score(cos, 0.6, k=100)
    assert few == pytest.approx((100 / 103) * J.soft_match(cos) + (3 / 103) * J.prototype_cosine(cos, 0.6))
    many = np.full(1000, 0.5)
    assert J.rank_score(many, 0.5, k=100) == pytest.approx((100 / 1100) * 0.5 + (1000 / 1100) * 1.0)


def test_judge_returns_the_best_ranked_candidate_at_or_above_the_floor():
    verdict = J.judge([J.Candidate("b", [0.50]), J.Candidate("a", [0.70]), J.Candidate("c", [0.30])])
    assert verdict.skill_id == "a" and verdict.best == "a" and verdict.runner_up == "b"
    assert verdict.soft == pytest.approx(0.70)
    assert ">= floor" in verdict.reason


def test_judge_abstains_below_the_floor_and_says_why():
    verdict = J.judge([J.Candidate("a", [J.FLOOR - 0.01]), J.Candidate("b", [0.1])])
    assert verdict.skill_id is None
    assert verdict.best == "a"
    assert "below the floor" in verdict.reason
    assert J.judge([J.Candidate("a", [J.FLOOR])]).skill_id == "a"


def test_judge_with_no_candidates_abstains():
    assert J.judge([]).skill_id is None
    assert J.judge([J.Candidate("a", [])]).skill_id is None


def test_ties_go_to_the_smaller_id_whatever_the_order():
    one = J.judge([J.Candidate("b", [0.6]), J.Candidate("a", [0.6])])
    two = J.judge([J.Candidate("a", [0.6]), J.Candidate("b", [0.6])])
    assert one.skill_id == two.skill_id == "a"


# -- with the real model -------------------------------------------------------------------------

LIBRARY = [
    {
        "source": "refund",
        "title": "Refund a damaged item",
        "problem": "The customer received a broken or damaged product and wants their money back.",
        "conditions": ["My order arrived broken", "I want a refund for a damaged product"],
    },
    {
        "source": "password",
        "title": "Reset a forgotten password",
        "problem": "The customer cannot sign in because they forgot their password.",
        "conditions": ["I forgot my password", "I can't log in to my account"],
    },
    {
        "source": "shipping",
        "title": "Track a late delivery",
        "problem": "The customer's package has not arrived by the promised date.",
        "conditions": ["Where is my package?", "My delivery is late"],
    },
]


@pytest.fixture(scope="module")
def library(embedder):
    out = []
    for skill in LIBRARY:
        vectors = embedder.embed(skill_passages(skill))
        out.append((skill["source"], vectors, J.centroid_norm(vectors)))
    return out


def route(embedder, library, question: str) -> J.Verdict:
    query = embedder.embed([question])[0]
    return J.judge([J.Candidate(sid, vectors @ query, norm) for sid, vectors, norm in library])


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("The vase I ordered came smashed, can I get my money back?", "refund"),
        ("I don't remember my login password", "password"),
        ("It's been two weeks and my parcel still hasn't shown up", "shipping"),
        ("What is the capital of Australia?", None),
        ("Can you recommend a good pasta recipe?", None),
    ],
)
def test_the_real_model_routes_clear_questions_and_abstains_on_unrelated_ones(
    embedder, library, question, expected
):
    assert route(embedder, library, question).skill_id == expected
