"""bench/skills_fit.py's conformal p-value (tried for judge v9): a skill's spread is exactly the leave-one-out
matches ``judge.calibration`` averages, the p-value is the share of them below the question's match, and the two
forms tried join it to the decision as documented (a gate refuses below alpha; one more input moves the value)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from graphlore.toolsets.skills import decision as D
from graphlore.toolsets.skills import judge as J

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import skills_fit as F  # noqa: E402


def _unit(rows: int, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(rows, 16))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_the_spread_is_what_the_calibration_averages_and_p_counts_the_conditions_below():
    vectors = _unit(22)
    spread = F.leave_one_out(vectors, head=2)
    assert len(spread) == 20 and np.all(np.diff(spread) >= 0)
    assert spread.mean() == pytest.approx(J.calibration(vectors, 2).mean, abs=1e-12)
    assert F.conformal_p(spread, spread[0] - 1.0) == 0.0
    assert F.conformal_p(spread, spread[5]) == pytest.approx(5 / 20)
    assert F.conformal_p(spread, spread[-1] + 1.0) == 1.0
    assert F.conformal_p(F.leave_one_out(vectors[:3], head=2), 0.0) == 1.0  # one condition: no evidence


def test_the_gate_refuses_below_alpha_and_the_input_moves_the_value():
    n = 4
    x = np.tile(D.MEAN, (n, 1))
    x[:, D.FEATURES.index("margin")] = 0.2
    t = F.Table(x, np.ones(n, bool), np.ones(n, bool), np.zeros(n, bool), np.zeros(n, int),
                np.array([0.0, 0.04, 0.05, 0.5]))
    net, shifts = F.Net.shipped(), np.zeros(1)
    base = F.gated(t, net, shifts, ("gate", 0.0))
    gated = F.gated(t, net, shifts, ("gate", 0.05))
    assert np.all(gated[:2] < 0) and np.array_equal(gated[2:], base[2:])
    assert np.allclose(F.gated(t, net, shifts, ("add", 2.0, 0.3)), base + 2.0 * (t.p - 0.3))
