"""Judges v10 and v11 (:mod:`whitening`): a calibrated library's candidates moved by their whitened prototype cosine,
which the network refitted on that evidence also reads as inputs; every other library judged as judge v7 judged it."""

from __future__ import annotations

import numpy as np
import pytest

from graphlore.toolsets.skills import decision, judge, selfcheck, whitening
from graphlore.toolsets.skills.whitening import Whitening, WhiteningCache


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _paraphrases(centres: np.ndarray, wording: np.ndarray, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``n`` paraphrases of each skill: its centre moved far along a few shared 'wording' directions and a
    little along all others."""
    d = centres.shape[1]
    return [_unit(c + rng.normal(size=(n, len(wording))) @ wording * 0.9 + 0.05 * rng.normal(size=(n, d)))
            for c in centres]


def _blocks(skills: int = 12, conditions: int = 20, d: int = 384, seed: int = 0) -> tuple[list[np.ndarray], list[int]]:
    """Skills whose conditions vary along a few shared directions far more than their centres differ along the
    others: what whitening discounts (a title, then the conditions)."""
    rng = np.random.default_rng(seed)
    wording, centres = _unit(rng.normal(size=(4, d))), _unit(rng.normal(size=(skills, d)))
    return _paraphrases(centres, wording, conditions + 1, rng), [1] * skills


def test_the_whitening_is_the_inverse_root_of_the_shrunk_within_skill_covariance():
    blocks, heads = _blocks(d=64)
    white = Whitening.fit(blocks, heads, [f"s{i}" for i in range(len(blocks))])
    rows = np.vstack([b[1:] - b[1:].mean(axis=0) for b in blocks])
    s = rows.T @ rows / len(rows)
    shrunk = (1 - whitening.SHRINKAGE) * s + whitening.SHRINKAGE * np.trace(s) / s.shape[0] * np.eye(s.shape[0])
    assert white.w.shape == (64, 64)
    assert np.allclose(white.w @ shrunk @ white.w, np.eye(64), atol=1e-6)
    centre = np.vstack([b[1:] for b in blocks]).mean(axis=0)
    assert np.allclose(white.prototypes[3], _unit((blocks[3][1:].mean(axis=0) - centre) @ white.w))


def test_a_search_reads_one_product_and_only_its_candidates_prototypes():
    """The search path's cost: the query times W (384 x 384) and one dot product per candidate; no other
    skill's prototype is read (poisoned here: a read would show as NaN)."""
    blocks, heads = _blocks()
    ids = [f"s{i}" for i in range(len(blocks))]
    white = Whitening.fit(blocks, heads, ids)
    assert white.w.shape == (384, 384)  # the model's dimension: one 384 x 384 product a search
    poisoned = white.prototypes.copy()
    poisoned[5:] = np.nan
    cut = Whitening(white.w, white.centre, white.ids, poisoned)
    query = blocks[2][4]
    got = cut.scores(query, ids[:5])
    assert list(got) == ids[:5] and all(np.isfinite(v) for v in got.values())
    q = _unit((query - white.centre) @ white.w)
    assert got == pytest.approx({s: float(white.prototypes[i] @ q) for i, s in enumerate(ids[:5])})
    assert max(got, key=got.get) == "s2"
    assert white.scores(query, ["s1", "not-in-the-library"]) is None


def test_whitening_separates_skills_that_the_wording_directions_confuse():
    """The class of library it is for: new paraphrases find their own skill's whitened prototype more often than
    the plain cosine of the mean conditions finds it, when the examples vary mostly in shared directions."""
    rng = np.random.default_rng(1)
    wording, centres = _unit(rng.normal(size=(8, 384))), _unit(0.25 * rng.normal(size=(30, 384)) + 1.0)
    blocks = _paraphrases(centres, wording, 21, rng)
    white = Whitening.fit(blocks, [1] * len(blocks))
    means = _unit(np.array([b[1:].mean(axis=0) for b in blocks]))
    questions = _paraphrases(centres, wording, 10, rng)
    plain = sum(int(np.argmax(means @ q) == i) for i, qs in enumerate(questions) for q in qs)
    whitened = sum(int(np.argmax(white.prototypes @ white.query(q)) == i) for i, qs in enumerate(questions) for q in qs)
    assert whitened > plain


def _candidate(skill_id: str, cosines, whitened=None, examples: int = 60) -> judge.Candidate:
    return judge.Candidate(skill_id, np.array(cosines), 1.0, judge.Calibration(examples, 0.7), whitened=whitened)


def test_candidates_with_whitened_scores_are_re_ranked_and_read_by_the_refitted_network():
    near_a = [0.80] * 30 + [0.6] * 31
    near_b = [0.79] * 30 + [0.6] * 31
    plain = judge.judge([_candidate("a", near_a), _candidate("b", near_b)])
    assert [s.skill_id for s in plain.scored] == ["a", "b"]
    assert all(s.whitened is None for s in plain.scored)
    assert len(decision.features(plain.scored[0], plain.scored[1:], 0)) == len(decision.FEATURES)  # judge v7's
    moved = judge.judge([_candidate("a", near_a, 0.1), _candidate("b", near_b, 0.4)])
    assert [s.skill_id for s in moved.scored] == ["b", "a"]  # 0.72 x (0.4 - 0.1) outweighs 0.007 of rank
    by_id = {s.skill_id: s for s in moved.scored}
    assert by_id["b"].rank == pytest.approx(judge.rank_score(by_id["b"].match, by_id["b"].prototype)
                                            + whitening.WEIGHT * 0.4)
    assert moved.margin == pytest.approx(by_id["b"].rank - by_id["a"].rank)
    features = decision.features(by_id["b"], [by_id["a"]], 1)
    # judge v11: the best one's whitened cosine and its margin over the best rival's are two more inputs
    assert len(features) == len(decision.WHITENED_FEATURES) == len(decision.FEATURES) + 2
    assert features[-2:] == pytest.approx([0.4, 0.4 - 0.1])
    assert moved.value == pytest.approx(decision.value(features, decision.WHITENED))
    alone = judge.judge([_candidate("b", near_b, 0.4)])
    assert alone.value == pytest.approx(decision.value(decision.features(alone.scored[0], [], 0), decision.WHITENED))
    assert decision.features(alone.scored[0], [], 0)[-1] == 0.0  # no rival: no margin
    assert "whitened rank" in moved.reason
    assert plain.value == pytest.approx(decision.value(decision.features(plain.scored[0], plain.scored[1:], 0)))
    assert "whitened" not in plain.reason


def test_the_simulation_re_ranks_as_the_search_does_and_its_shift_uses_the_refitted_bias():
    blocks, heads = _blocks(skills=10, conditions=selfcheck.MIN_CONDITIONS, d=32)
    values, known = selfcheck.simulate(blocks, heads)
    shipped, known_again = selfcheck.simulate(blocks, heads, whitened=False)
    assert (known == known_again).all() and not np.allclose(values, shipped)
    shift = selfcheck.shift_for(values, known)
    assert (values[~known] + decision.WHITENED.bias + shift < 0).mean() >= selfcheck.NULL_LEVEL


def test_the_cache_keeps_one_whitening_per_library_and_drops_an_older_calibrations():
    blocks, heads = _blocks(skills=3, conditions=4, d=16)
    cache, white = WhiteningCache(max_libraries=2), Whitening.fit(blocks, heads)
    cache.put("skills/a", "one", white)
    cache.put("skills/a", "two", white)
    assert cache.get("skills/a", "one") is None and cache.get("skills/a", "two") is white
    cache.put("skills/b", "x", white)
    cache.put("skills/c", "x", white)
    assert cache.get("skills/a", "two") is None  # the least recently used library went


def test_the_linear_rule_reads_the_plain_rank_s_margin_it_was_fitted_on():
    """A best candidate of fewer than NETWORK_EXAMPLES conditions is judged by judge v3's linear rule, fitted on the
    plain rank: a whitened move (never fitted for it) neither turns its tie into an answer nor hides behind it."""
    small = [0.72, 0.70, 0.69, 0.68, 0.66, 0.65]
    rival = [0.715, 0.70, 0.69, 0.68, 0.66, 0.65]
    plain = judge.judge([_candidate("small", small, examples=5), _candidate("rival", rival, examples=5)])
    assert plain.skill_id is None and plain.guess
    moved = judge.judge([_candidate("small", small, 0.30, examples=5), _candidate("rival", rival, 0.25, examples=5)])
    assert moved.skill_id is None and moved.guess and moved.margin == pytest.approx(plain.margin)
    behind = judge.judge([_candidate("small", rival, 0.35, examples=5), _candidate("rival", small, 0.25, examples=5)])
    assert [s.skill_id for s in behind.scored] == ["small", "rival"] and behind.skill_id is None
    assert "before the whitened move" in behind.reason
    clear = judge.judge([_candidate("small", [0.8] * 6, 0.30, examples=5), _candidate("rival", rival, 0.25, examples=5)])
    assert clear.skill_id == "small" and "on the plain rank" in clear.reason
    assert clear.margin == pytest.approx(judge.plain_rank(clear.scored[0]) - judge.plain_rank(clear.scored[1]))
