"""The split matrix-vector product equals the plain one, on both sides of the split size."""

from __future__ import annotations

import numpy as np
import pytest

from graphsift import parallel


@pytest.mark.parametrize("rows", [0, 7, parallel.SPLIT_ROWS - 1, parallel.SPLIT_ROWS + 3])
def test_matvec_equals_numpy(rows, monkeypatch):
    monkeypatch.setattr(parallel, "WORKERS", 3)  # split even on a one-core machine
    rng = np.random.default_rng(rows)
    matrix = rng.standard_normal((rows, 24)).astype(np.float32)
    vector = rng.standard_normal(24).astype(np.float32)
    np.testing.assert_allclose(parallel.matvec(matrix, vector), matrix @ vector, rtol=1e-5, atol=1e-5)


def test_submit_returns_the_result():
    assert parallel.submit(sum, [1, 2, 3]).result() == 6
