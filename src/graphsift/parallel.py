"""One small thread pool for work that can use several cores inside a single request.

numpy (BLAS) releases the GIL, so an exact vector search over a large matrix
can use every core without BLAS's own threads (which spin after each call and
slow the embedder that runs next). Overlapping a query's keyword ranking with
its embedding was tried and measured slower on two cores: onnxruntime already
uses both.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import numpy as np

T = TypeVar("T")

WORKERS = max(1, min(4, os.cpu_count() or 1))
#: Below this many rows a matrix-vector product is cheaper than handing it to threads. Alone, 20k x 384
#: split over 2 cores ran in 0.87 ms instead of 1.43; inside the items search tool, right after the
#: query embedding (whose onnxruntime threads still spin on both cores), splitting it made the tool
#: 0.3 ms slower at p50. 200k rows: 8.7 ms instead of 13.5 alone.
SPLIT_ROWS = 65_536

_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="graphsift")
    return _pool


def submit(fn: Callable[..., T], *args, **kwargs) -> Future[T]:
    return _executor().submit(fn, *args, **kwargs)


def matvec(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix @ vector``, split over the pool's threads when the matrix is large."""
    rows = matrix.shape[0]
    if WORKERS == 1 or rows < SPLIT_ROWS:
        return matrix @ vector
    out = np.empty(rows, dtype=np.result_type(matrix, vector))
    bounds = np.linspace(0, rows, WORKERS + 1).astype(int)
    # The caller computes the first part itself: one thread hand-off fewer per call.
    parts = [
        submit(np.dot, matrix[start:end], vector, out[start:end])
        for start, end in zip(bounds[1:-1], bounds[2:], strict=True)
    ]
    np.dot(matrix[: bounds[1]], vector, out[: bounds[1]])
    for part in parts:
        part.result()
    return out
