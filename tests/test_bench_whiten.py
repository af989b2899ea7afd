"""bench/skills_fit.py's library-fitted metric (LDA whitening, tried for judge v10): the whitening is the inverse
square root of the shrunk within-skill covariance, Ledoit-Wolf's shrinkage is a share in [0, 1] that grows as
the rows get fewer, and the candidates' whitened scores are what they are documented to be."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import skills_fit as F  # noqa: E402


def _rows(n: int, d: int = 8, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)) * np.linspace(0.2, 2.0, d)  # unequal spreads: something to whiten
    return x - x.mean(axis=0)


def test_whitening_is_the_inverse_square_root_of_the_shrunk_covariance():
    x = _rows(400)
    s = x.T @ x / len(x)
    w, used = F.whitening(x, 0.0)
    assert used == 0.0 and np.allclose(w @ s @ w, np.eye(8), atol=1e-9)
    w, used = F.whitening(x, 1.0)  # shrunk all the way: a multiple of the identity (no change to cosines)
    assert np.allclose(w, w[0, 0] * np.eye(8), atol=1e-12)
    w, used = F.whitening(x, "lw")
    target = (1 - used) * s + used * np.trace(s) / 8 * np.eye(8)
    assert np.allclose(w @ target @ w, np.eye(8), atol=1e-9)


def test_ledoit_wolf_shrinks_more_with_fewer_rows():
    many, few = F.ledoit_wolf(_rows(2000)), F.ledoit_wolf(_rows(12))
    assert 0.0 <= many < few <= 1.0


def test_the_whitened_scores_of_the_candidates():
    rng = np.random.default_rng(1)
    skills = [{"source": f"s{i}", "title": f"skill {i}", "conditions": []} for i in range(3)]
    blocks = [np.vstack([rng.normal(size=(1, 8)), rng.normal(loc=i, size=(6, 8))]) for i in range(3)]
    vectors = np.vstack(blocks)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    starts = np.array([0, 7, 14, 21])
    library = F.Library([s["source"] for s in skills], vectors, starts, np.ones(3), [1, 1, 1])
    x, means, centre = F.within_skill(library)
    assert x.shape == (18, 8) and np.allclose(means[1], vectors[8:14].mean(axis=0))
    assert np.allclose(centre, vectors[[*range(1, 7), *range(8, 14), *range(15, 21)]].mean(axis=0))
    w, _ = F.whitening(x, 0.1)
    queries, found = vectors[[3, 10]], np.array([[0, 1, 2], [2, 1, 0]])
    out = F.whitened_scores(library, queries, found, w, means, centre)
    assert set(out) == set(F.WHITEN_SCORES)
    assert all(v.shape == (2, 3) for v in out.values())
    q = (queries[1] - centre) @ w
    p = (means[2] - centre) @ w
    assert out["prototype-centred"][1, 0] == pytest.approx(q @ p / np.linalg.norm(q) / np.linalg.norm(p))
    d = (queries[0] - means[1]) @ w
    assert out["mahalanobis"][0, 1] == pytest.approx(-(d @ d))
    both = out["rank-centred"] / out["rank-centred"].std() + out["prototype-centred"] / out["prototype-centred"].std()
    assert np.allclose(out["both-centred"], both)


def test_judge_v11_s_inputs_and_the_skills_radii():
    """The inputs tried for judge v11: the best one's whitened cosine and its margin over the best rival's, and
    (point 2) its whitened distance over its skill's radius, the mean distance of each of the skill's conditions
    to the mean of its other conditions."""
    rng = np.random.default_rng(2)
    blocks = [np.vstack([rng.normal(size=(1, 8)), rng.normal(loc=i, size=(5, 8))]) for i in range(3)]
    blocks.append(rng.normal(size=(2, 8)))  # a title and one condition: no radius of its own
    w, centre = np.diag(np.linspace(0.5, 2.0, 8)), np.full(8, 0.1)
    means, radii = F.skill_radii(blocks, [1, 1, 1, 1], w, centre)
    conditions = blocks[1][1:]
    others = [np.delete(conditions, i, axis=0).mean(axis=0) for i in range(5)]
    assert radii[1] == pytest.approx(np.mean([np.linalg.norm((c - o) @ w) for c, o in zip(conditions, others, strict=True)]))
    assert np.allclose(means[1], (conditions.mean(axis=0) - centre) @ w)
    assert radii[3] == pytest.approx(np.median(radii[:3]))
    assert F.input_rows(["a", "b", "c"], {"a": 0.5, "b": 0.2, "c": 0.3}.get, None) == pytest.approx([0.5, 0.2])
    assert F.input_rows(["a"], {"a": 0.5}.get, lambda s: 1.5) == pytest.approx([0.5, 0.0, 1.5])


def test_session_12_s_per_skill_calibration_inputs():
    """The inputs tried for judge v12 (``--calibration``): a skill's whitened spread is each condition's whitened
    distance to the mean of its other conditions, sorted, and the question's whitened p-value the share of them at
    least as far as the question is from the skill's mean (1 with no spread); the match's p-value the share of the
    skill's leave-one-out matches below the question's."""
    rng = np.random.default_rng(4)
    blocks = [np.vstack([rng.normal(size=(1, 8)), rng.normal(loc=i, size=(6, 8))]) for i in range(2)]
    blocks.append(rng.normal(size=(2, 8)))  # one condition: no spread
    w, centre = np.diag(np.linspace(0.5, 2.0, 8)), np.full(8, 0.1)
    means, _ = F.skill_radii(blocks, [1, 1, 1], w, centre)
    spreads = F.white_spreads(blocks, [1, 1, 1], w, centre, means)
    conditions = (blocks[0][1:] - centre) @ w
    expected = sorted(np.linalg.norm(c - np.delete(conditions, i, axis=0).mean(axis=0))
                      for i, c in enumerate(conditions))
    assert spreads[0] == pytest.approx(expected) and spreads[2].size == 0
    assert F.white_p(spreads[0], 0.0) == 1.0 and F.white_p(spreads[0], expected[-1] + 1) == 0.0
    assert F.white_p(spreads[0], (expected[1] + expected[2]) / 2) == pytest.approx(4 / 6)
    assert F.white_p(spreads[2], 5.0) == 1.0
    spread = np.array([0.5, 0.6, 0.7, 0.8])
    assert F.conformal_p(spread, 0.65) == 0.5 and F.conformal_p(None, 0.1) == 1.0
    assert set(F.CALIBRATION_VARIANTS.values()) == {(F.WHITEN_SETTING[1], x) for x in (None, "p", "white-p")}
