"""The exactness rule of the PostgreSQL keyword search's pruning (pure; no server): which lexemes a step
must match, given the score of its ``limit``-th node (see :mod:`graphlore.store.postgres.pruning`)."""

from __future__ import annotations

import pytest

from graphlore.store.postgres.pruning import bound, exact, needed
from graphlore.store.postgres.sql import K1

IDF = {"rare": 9.0, "mid": 4.0, "common": 0.5, "stop": 0.1}


def test_a_bound_is_what_a_lexeme_adds_at_most():
    assert bound(2.0) == pytest.approx(2.0 * (K1 + 1))
    for f in (0.5, 1, 3, 10, 1e6):  # weighted counts; any document length
        for length_ratio in (0.01, 1.0, 50.0):
            assert 2.0 * f * (K1 + 1) / (f + K1 * (0.25 + 0.75 * length_ratio)) < bound(2.0)


def test_the_lowest_bound_lexemes_whose_bounds_fit_under_theta_may_go_unmatched():
    common_and_stop = bound(0.5) + bound(0.1)
    assert needed(IDF, common_and_stop * 1.01, (1.0, 1.0)) == ["rare", "mid"]
    assert needed(IDF, bound(0.1) * 1.01, (1.0, 1.0)) == ["rare", "mid", "common"]
    assert needed(IDF, bound(0.1) * 0.99, (3.0, 1.0)) == list(IDF)


def test_too_few_nodes_or_negative_weights_need_every_lexeme():
    assert needed(IDF, None, (1.0, 1.0)) == list(IDF)
    assert needed(IDF, 1e9, (1.0, -1.0)) == list(IDF)
    assert needed(IDF, 1e9, (0.0, 1.0)) == []  # every bound fits: nothing needs matching for this theta


def test_exact_when_everything_unmatched_is_allowed_to_be():
    theta = bound(0.5) + bound(0.1) + 1e-6
    assert exact(IDF, ["rare", "mid"], theta, (1.0, 1.0))
    assert exact(IDF, ["rare", "mid", "common", "stop"], None, (1.0, 1.0))  # everything matched
    assert not exact(IDF, ["rare"], theta, (1.0, 1.0))
    assert not exact(IDF, ["rare", "mid"], None, (1.0, 1.0))
