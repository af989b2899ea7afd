"""Small hand-made vectors for store tests."""

from __future__ import annotations

import numpy as np


def unit(*rows: list[float]) -> np.ndarray:
    """L2-normalised float32 rows."""
    m = np.asarray(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)
