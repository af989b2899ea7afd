"""The calibrated judge: pure scoring rules, then routing with the real embedding model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from graphlore.toolsets.skills import decision as D
from graphlore.toolsets.skills import judge as J
from graphlore.toolsets.skills.routing import head_count, skill_passages


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


def test_rank_score_mixes_the_match_and_the_prototype_at_a_fixed_weight():
    assert J.rank_score(0.8, 0.6) == pytest.approx((1 - J.PROTOTYPE_WEIGHT) * 0.8 + J.PROTOTYPE_WEIGHT * 0.6)
    assert J.rank_score(0.8, 0.6, weight=0.0) == pytest.approx(0.8)


def test_calibration_is_each_condition_matched_against_the_other_passages():
    rng = np.random.default_rng(3)
    vectors = unit(rng.normal(size=(6, 16)))
    calibration = J.calibration(vectors, head=2)
    expected = np.mean([J.soft_match(np.delete(vectors, i, axis=0) @ vectors[i]) for i in range(2, 6)])
    assert calibration.examples == 4 and calibration.mean == pytest.approx(expected)


def test_a_skill_with_fewer_than_two_conditions_is_held_to_the_prior():
    vectors = unit(np.eye(4)[:3])
    assert J.calibration(vectors, head=2) == J.Calibration(1, None)
    assert J.calibration(vectors, head=3) == J.Calibration(0, None)
    assert J.Calibration(1, None).typical() == J.PRIOR_MEAN
    many = J.Calibration(1000, 0.9).typical()
    assert 0.89 < many < 0.9  # a thousand examples: almost their own mean
    few = J.Calibration(2, 0.9).typical()
    assert few == pytest.approx((2 * 0.9 + J.PRIOR_N * J.PRIOR_MEAN) / (2 + J.PRIOR_N))


def test_the_decision_value_is_the_documented_network():
    x = np.linspace(0.1, 1.1, len(D.FEATURES))
    z = (x - D.MEAN) / D.SCALE
    assert D.value(x) == pytest.approx(float(np.tanh(z @ D.W1 + D.B1) @ D.OUT_W + D.OUT_B + D.BIAS))
    assert D.W1.shape == (len(D.FEATURES), D.HIDDEN) and D.OUT_W.shape == (D.HIDDEN,)


def test_the_network_decides_for_skills_of_many_examples_and_the_linear_rule_for_the_others():
    rng = np.random.default_rng(5)
    many = J.Calibration(J.NETWORK_EXAMPLES, 0.8)
    cos = np.r_[0.85, rng.uniform(0.3, 0.8, J.NETWORK_EXAMPLES)]
    candidates = [J.Candidate("a", cos, calibration=many), J.Candidate("b", cos - 0.1, calibration=many)]
    verdict = J.judge(candidates)
    best, runner = verdict.scored
    assert verdict.value == pytest.approx(D.value(D.features(best, [runner])))
    few = J.Calibration(J.NETWORK_EXAMPLES - 1, 0.8)
    verdict = J.judge([J.Candidate("a", cos, calibration=few), J.Candidate("b", cos - 0.1, calibration=few)])
    best, runner = verdict.scored
    assert verdict.value == pytest.approx(J.linear_value(best.match, best.typical, best.rank - runner.rank))
    assert J.linear_value(0.7, 0.6, 0.1) == pytest.approx(
        J.W_MATCH * 0.7 + J.W_ABOVE_TYPICAL * 0.1 + J.W_MARGIN * 0.1 + J.BIAS)


def test_the_features_are_the_documented_evidence():
    best = J.score(J.Candidate("a", [0.9, 0.8, 0.7], calibration=J.Calibration(5, 0.8)))
    runner = J.score(J.Candidate("b", [0.85, 0.2]))
    x = dict(zip(D.FEATURES, D.features(best, [runner]), strict=True))
    assert x["match"] == best.match and x["above_typical"] == pytest.approx(best.match - best.typical)
    assert x["margin"] == pytest.approx(best.rank - runner.rank)
    assert x["match_margin"] == pytest.approx(best.match - runner.match)
    assert x["runner_up_above_typical"] == pytest.approx(runner.match - J.PRIOR_MEAN)
    assert x["best_cosine"] == 0.9 and x["spread_3"] == pytest.approx(0.2) and x["spread_10"] == pytest.approx(0.2)
    # the nearest passages of both: 0.9 a, 0.85 b, 0.8 a, 0.7 a, 0.2 b
    assert x["nearest_5_share"] == pytest.approx(3 / 5) and x["nearest_10_share"] == pytest.approx(3 / 5)
    p = np.exp(np.array([best.rank, runner.rank]) / D.ENTROPY_TAU)
    p /= p.sum()
    assert x["rank_entropy"] == pytest.approx(float(-(p * np.log(p)).sum()))
    alone = dict(zip(D.FEATURES, D.features(best, []), strict=True))
    assert alone["margin"] == alone["match_margin"] == 0 and alone["rank_entropy"] == pytest.approx(math.log(2))


def test_a_blocked_candidate_still_counts_as_the_runner_up():
    # "b" ranks first but failed on a question like this one: it is not returned, and "a" just behind it is
    # not returned either (the question is nearer to "b"; its failure does not make "a" right)
    verdict = J.judge([J.Candidate("b", [0.96], negatives=[0.99]), J.Candidate("a", [0.95]),
                       J.Candidate("c", [0.2])])
    a, b = (next(s for s in verdict.scored if s.skill_id == x) for x in "ab")
    assert verdict.best == "a" and verdict.margin == pytest.approx(a.rank - b.rank) and verdict.margin < 0
    assert verdict.skill_id is None and "guess" in verdict.reason
    # a blocked candidate ranked below the best is its runner-up: the margin is measured against it
    below = J.judge([J.Candidate("b", [0.60], negatives=[0.99]), J.Candidate("a", [0.95]), J.Candidate("c", [0.2])])
    a, b = (next(s for s in below.scored if s.skill_id == x) for x in "ab")
    assert below.skill_id == "a" and below.margin == pytest.approx(a.rank - b.rank)
    # and one ranked above it is never passed over, however far the best is ahead of the others
    far = J.judge([J.Candidate("b", [0.96], negatives=[0.99]), J.Candidate("a", [0.95]), J.Candidate("c", [0.1])])
    assert far.skill_id is None and "failed on a question" in far.reason


def test_the_reason_names_the_rule_that_decided():
    many, few = J.Calibration(J.NETWORK_EXAMPLES, 0.8), J.Calibration(J.NETWORK_EXAMPLES - 1, 0.8)
    cos = np.r_[0.95, np.linspace(0.5, 0.85, J.NETWORK_EXAMPLES)]
    for calibration, rule in ((many, "the network"), (few, "the linear rule")):
        answer = J.judge([J.Candidate("a", cos, calibration=calibration), J.Candidate("b", cos - 0.2)])
        short = J.judge([J.Candidate("a", cos - 0.5, calibration=calibration), J.Candidate("b", cos - 0.53)])
        assert answer.skill_id == "a" and short.skill_id is None
        for verdict in (answer, short):
            assert rule in verdict.reason and f"{calibration.examples} conditions" in verdict.reason
    alone = J.judge([J.Candidate("a", [0.3])])
    assert alone.skill_id is None and "no other candidate" in alone.reason and "runner-up" not in alone.reason


def test_judge_returns_the_best_ranked_candidate_when_the_evidence_is_enough():
    verdict = J.judge([J.Candidate("b", [0.30]), J.Candidate("a", [0.95]), J.Candidate("c", [0.20])])
    assert verdict.skill_id == "a" and verdict.best == "a"
    assert [s.skill_id for s in verdict.scored] == ["a", "b", "c"]
    assert verdict.margin == pytest.approx(verdict.scored[0].rank - verdict.scored[1].rank)
    assert verdict.value >= 0 and verdict.score >= 0.5 and "enough" in verdict.reason


def test_judge_never_guesses_between_candidates_as_close_as_the_minimum_margin():
    tie = J.judge([J.Candidate("a", [0.90]), J.Candidate("b", [0.90])])
    assert tie.skill_id is None and tie.best == "a" and tie.margin == 0 and tie.score < 0.5
    assert "would be a guess" in tie.reason
    near = J.judge([J.Candidate("a", [0.90 + J.LINEAR_MIN_MARGIN / 2]), J.Candidate("b", [0.90])])
    assert near.skill_id is None and "guess" in near.reason
    clear = J.judge([J.Candidate("a", [0.90 + 2 * J.LINEAR_MIN_MARGIN]), J.Candidate("b", [0.90])])
    assert clear.margin >= J.LINEAR_MIN_MARGIN and "guess" not in clear.reason
    many = J.Calibration(J.NETWORK_EXAMPLES, 0.8)
    cos = np.linspace(0.5, 0.9, J.NETWORK_EXAMPLES + 1)
    near = J.judge([J.Candidate("a", cos + J.MIN_MARGIN / 2, calibration=many), J.Candidate("b", cos, calibration=many)])
    assert near.skill_id is None and "guess" in near.reason


def test_an_exact_tie_is_a_guess_even_where_the_network_would_answer():
    # the network's minimum margin is 0 (its answers were right more often than not at every margin on the
    # training folds), so only the tie guard stands between an exact tie and a coin flip
    cos = np.r_[0.9, np.linspace(0.5, 0.85, 40)]
    a = J.Candidate("a", cos, calibration=J.Calibration(40, 0.5))
    b = J.Candidate("b", cos, calibration=J.Calibration(40, 0.99))
    scored_a, scored_b = J.score(a), J.score(b)
    assert scored_a.rank == scored_b.rank and D.value(D.features(scored_a, [scored_b])) > 0  # the network says yes
    tie = J.judge([a, b])
    assert tie.skill_id is None and tie.best == "a" and tie.margin == 0 and tie.guess and tie.score < 0.5
    assert "skill b ranks exactly as high (margin 0): choosing would be a guess" in tie.reason
    ahead = J.judge([J.Candidate("a", cos + 1e-4, calibration=J.Calibration(40, 0.5)), b])
    assert ahead.skill_id == "a" and 0 < ahead.margin < 1e-3 and not ahead.guess


def test_judge_abstains_when_the_evidence_is_short_and_says_what_was_missing():
    verdict = J.judge([J.Candidate("a", [0.35]), J.Candidate("b", [0.32])])
    assert verdict.skill_id is None and verdict.best == "a" and verdict.score < 0.5
    assert "margin over the runner-up 0.030" in verdict.reason and "0.5 needed" in verdict.reason


def test_a_match_far_below_what_the_skill_s_examples_reach_abstains():
    rng = np.random.default_rng(0)
    a, b = np.r_[0.8, rng.uniform(0.4, 0.75, 40)], np.r_[0.72, rng.uniform(0.35, 0.7, 40)]
    values = [J.judge([J.Candidate("a", a, calibration=J.Calibration(40, mean)),
                       J.Candidate("b", b, calibration=J.Calibration(40, 0.7))]) for mean in (0.5, 0.7, 0.9, 0.99)]
    assert [v.skill_id for v in values] == ["a", "a", "a", None]  # the network: tighter examples, less evidence
    assert values[0].value > values[1].value > values[2].value > values[3].value
    tight = J.Calibration(9, 0.99)  # fewer than NETWORK_EXAMPLES: the linear rule
    close = [J.Candidate("a", [0.8], calibration=tight), J.Candidate("b", [0.7])]
    assert J.judge(close).skill_id is None
    assert "below what its examples reach (0.9" in J.judge(close).reason
    loose = J.Calibration(9, 0.5)
    assert J.judge([J.Candidate("a", [0.8], calibration=loose), J.Candidate("b", [0.7])]).skill_id == "a"


def test_a_negative_example_closer_than_the_skill_s_passages_blocks_it():
    alone = [J.Candidate("a", [0.95]), J.Candidate("b", [0.2])]
    assert J.judge(alone).skill_id == "a"
    blocked = J.judge([J.Candidate("a", [0.95], negatives=[0.97]), J.Candidate("b", [0.2])])
    assert blocked.skill_id != "a" and blocked.scored[0].blocked
    assert not J.judge([J.Candidate("a", [0.95], negatives=[0.9]), J.Candidate("b", [0.2])]).scored[0].blocked
    everything = J.judge([J.Candidate("a", [0.95], negatives=[0.99])])
    assert everything.skill_id is None and "failed on" in everything.reason


def test_judge_with_no_candidates_abstains():
    assert J.judge([]).skill_id is None
    assert J.judge([J.Candidate("a", [])]).skill_id is None
    assert J.judge([]).score == 0.0


def test_ties_go_to_the_smaller_id_whatever_the_order():
    one = J.judge([J.Candidate("b", [0.6]), J.Candidate("a", [0.6])])
    two = J.judge([J.Candidate("a", [0.6]), J.Candidate("b", [0.6])])
    assert one.best == two.best == "a"


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
        out.append((skill["source"], vectors, J.centroid_norm(vectors), J.calibration(vectors, head_count(skill))))
    return out


def route(embedder, library, question: str) -> J.Verdict:
    query = embedder.embed([question])[0]
    return J.judge([J.Candidate(sid, vectors @ query, norm, calibration) for sid, vectors, norm, calibration in library])


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


def test_a_lone_candidate_has_no_margin_and_must_carry_it_with_its_match():
    weak = J.judge([J.Candidate("a", [0.30])])
    assert weak.skill_id is None and weak.margin == 0 and "guess" not in weak.reason
    assert J.judge([J.Candidate("a", [0.90])]).skill_id == "a"


def test_a_score_shown_as_one_half_always_answered():
    # the margin guard keeps the value just below 0 (sigmoid 0.4999999998): rounded, the evidence said 0.5
    # ("0.5 and above answers") and the CLI 0.50 for a search that returned no skill
    from graphlore.toolsets.skills import evidence, render
    from graphlore.toolsets.skills.models import JudgeInfo, SearchSkillsResponse

    tie = J.judge([J.Candidate("a", [0.90]), J.Candidate("b", [0.90])])
    assert tie.skill_id is None and tie.score < 0.5
    shown = evidence.build([], J.Verdict(None, None, [], tie.margin, tie.value, tie.reason), None, {}, None)
    assert shown.score < 0.5
    out = render.search_skills(SearchSkillsResponse(skill=None, query="q", search_time_ms=1.0,
                                                    judge=JudgeInfo(kind="calibrated"), evidence=shown))
    assert "(score 0.49," in out
    answered = evidence.build([], J.Verdict(None, None, [], 0.0, 0.0, "x"), None, {}, None)
    assert answered.score == 0.5


def test_a_search_refused_as_a_guess_answers_at_no_bias():
    # bench/skills_routing.py's diagnostic moves the bias; a search the margin guard refused must stay refused
    # (it counted as answered at any positive shift, its value being just below 0)
    many = J.Calibration(40, 0.7)
    cos = np.r_[0.9, np.linspace(0.5, 0.85, 40)]
    guess = J.judge([J.Candidate("a", cos + J.MIN_MARGIN / 2, calibration=many), J.Candidate("b", cos, calibration=many)])
    assert guess.skill_id is None and "guess" in guess.reason and not guess.answers_at(0.2)
    short = J.judge([J.Candidate("a", [0.35]), J.Candidate("b", [0.32])])
    assert short.skill_id is None and not short.answers_at(0.0) and short.answers_at(-short.value)
    clear = J.judge([J.Candidate("a", [0.95]), J.Candidate("b", [0.3])])
    assert clear.answers_at(0.0) and not clear.answers_at(-clear.value - 0.01)
    assert not J.judge([]).answers_at(10.0)


def test_a_null_answer_names_every_check_that_refused_it():
    # a weak match (far below what the skill's examples reach) with a runner-up as close: both are said, not
    # only the margin (the audit's "weather in Paris tomorrow": score 0.07, reason "the runner-up is as close")
    many = J.Calibration(40, 0.75)
    cos = np.r_[0.12, np.linspace(0.0, 0.1, 40)]
    weak = J.judge([J.Candidate("a", cos, calibration=many), J.Candidate("b", cos, calibration=many)])
    assert weak.skill_id is None and weak.guess
    assert weak.reason.startswith("2 checks refused it:")
    assert "(1) too low a score: the network" in weak.reason and "0.5 needed" in weak.reason
    assert "is far below what its examples reach (0.7" in weak.reason
    assert "(2) too close a runner-up: skill b ranks exactly as high (margin 0): choosing would be a guess" in weak.reason
    # the margin alone: the score that would have been enough is said, so it does not read as a weak match
    strong = J.judge([J.Candidate("a", [0.95], calibration=J.Calibration(9, 0.5)),
                      J.Candidate("b", [0.95 - J.LINEAR_MIN_MARGIN / 3])])
    assert strong.skill_id is None and strong.guess
    assert strong.reason.startswith("1 check refused it (its score alone would have been enough: the linear rule")
    assert "(1) too close a runner-up: the runner-up, skill b, is as close" in strong.reason
    assert "too low a score" not in strong.reason
    # the score alone
    short = J.judge([J.Candidate("a", [0.35]), J.Candidate("b", [0.32])])
    assert short.skill_id is None and not short.guess
    assert short.reason.startswith("1 check refused it: (1) too low a score: the linear rule")
    assert "runner-up:" not in short.reason


def test_a_null_answer_says_when_the_nearest_examples_or_the_whitened_metric_point_elsewhere():
    def scored(skill: str, cosines: list[float], rank: float, whitened: float | None = None) -> J.Scored:
        return J.Scored(skill, max(cosines), max(cosines), rank, 0.6, 0, cosines=np.array(cosines),
                        whitened=whitened)

    best = scored("a", [0.80, 0.30], 0.70)
    crowd = scored("b", [0.82, 0.81, 0.81, 0.79, 0.1], 0.69)
    assert J.disagreement(best, [crowd]) == ("4 of the 5 passages nearest the question (title, problem, conditions) "
                                             "belong to skill b (1 to it)")
    assert J.disagreement(best, [scored("b", [0.82, 0.2], 0.69)]) is None  # 1 each: no majority elsewhere
    assert J.disagreement(best, []) is None
    white = J.disagreement(scored("a", [0.8], 0.7, whitened=0.30), [scored("b", [0.5], 0.6, whitened=0.42),
                                                                    scored("c", [0.4], 0.5, whitened=0.35)])
    assert white == "in the library's whitened space skill b is closer (0.420 against 0.300)"
    # and the judge's refusal carries it
    many = J.Calibration(40, 0.9)
    a = J.Candidate("a", np.r_[0.5, np.full(40, 0.05)], calibration=many, centroid_norm=0.2)
    b = J.Candidate("b", np.r_[0.52, 0.51, 0.51, 0.51, np.full(37, -0.3)], calibration=many, centroid_norm=1.0)
    verdict = J.judge([a, b])
    assert verdict.best == "a" and verdict.skill_id is None
    assert ("the signals disagree: 4 of the 5 passages nearest the question (title, problem, conditions) belong to "
            "skill b (1 to it)") in verdict.reason
