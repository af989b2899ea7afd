"""A library-fitted metric that re-ranks the judge's candidates in libraries with a calibration of their own.

Frozen sentence embeddings spread a library's intents unevenly: some directions vary a lot within every skill
(wording), others separate skills. The library's **within-skill covariance** (each condition minus its
skill's mean condition), shrunk by :data:`SHRINKAGE` towards ``trace / d`` times the identity, gives a
whitening ``W`` (its inverse square root: the shared-covariance Gaussian, LDA's view). Each skill's mean
condition, centred on the library's mean condition and whitened, is its **whitened prototype**; a query is
centred and whitened the same way, and each of the judge's 5 candidates has its rank moved by
:data:`WEIGHT` times the cosine of the two (:func:`judge.judge`) before the margin, the entropy and the
network read it. Per search: one 384-vector times ``W`` and 5 dot products.

Only for libraries the judge calibrates (:mod:`selfcheck`: enough skills with enough conditions each): fitted
from the library's stored vectors when its calibration is made, cached per process with it (keyed by the
calibration record's ``made`` id and its count of examples learned since, so that every process fits the vectors
stored now), and unused while that record is stale or missing; other libraries keep
the shipped rank. The constants were chosen by cross-validation on training folds only (``bench/skills_fit.py``
``whiten_top1``, printed by ``bench/skills_routing.py --whiten``; bench/README.md, judge v10).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Shrinkage of the within-skill covariance towards trace/d times the identity (Ledoit-Wolf's estimate on the
#: training folds' libraries: 0.022-0.041; 0.02 chosen on four of five folds).
SHRINKAGE = 0.02
#: The whitened prototype cosine's weight beside the shipped rank (weight 1 in units of the folds' spreads, whose
#: ratio was 0.77-0.79 on CLINC150's folds and 0.66-0.67 on BANKING77's).
WEIGHT = 0.72
#: Libraries whose whitening a process keeps.
MAX_LIBRARIES = 16


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def inverse_root(rows: np.ndarray, shrinkage: float = SHRINKAGE) -> np.ndarray:
    """The inverse square root of the covariance of the centred ``rows``, shrunk towards trace/d times the
    identity."""
    n, d = rows.shape
    s = rows.T @ rows / n
    values, vectors = np.linalg.eigh((1 - shrinkage) * s + shrinkage * np.trace(s) / d * np.eye(d))
    return (vectors / np.sqrt(np.maximum(values, 1e-12))) @ vectors.T


@dataclass(frozen=True)
class Whitening:
    """A library's whitening ``w``, its mean condition ``centre`` and each skill's whitened prototype (rows of
    ``prototypes``, in the order of ``ids``)."""

    w: np.ndarray
    centre: np.ndarray
    ids: tuple[str, ...]
    prototypes: np.ndarray

    @classmethod
    def fit(cls, blocks: Sequence[np.ndarray], heads: Sequence[int], ids: Sequence[str] | None = None
            ) -> Whitening | None:
        """From each skill's passage vectors (``heads``: how many describe it before its conditions): the
        within-skill covariance over the skills of 2 conditions or more; a skill without conditions is
        represented by the mean of its passages. None when no skill has 2 conditions (no spread to measure)."""
        rows, means, every = [], [], []
        for block, head in zip(blocks, heads, strict=True):
            block = np.asarray(block, dtype=np.float64)
            conditions = block[head:] if len(block) > head else block
            means.append(conditions.mean(axis=0))
            if len(block) > head:
                every.append(conditions)
            if len(conditions) >= 2:
                rows.append(conditions - means[-1])
        if not rows:
            return None
        centre = np.vstack(every).mean(axis=0)
        w = inverse_root(np.vstack(rows))
        return cls(w, centre, tuple(ids if ids is not None else range(len(blocks))),
                   unit((np.array(means) - centre) @ w))

    def query(self, vector: np.ndarray) -> np.ndarray:
        """The query centred and whitened, as a unit vector (one 384 x 384 product)."""
        return unit((np.asarray(vector, dtype=np.float64) - self.centre) @ self.w)

    def scores(self, vector: np.ndarray, skill_ids: Sequence[str]) -> dict[str, float] | None:
        """The whitened prototype cosine of each of ``skill_ids`` (one dot product each); None when one of them
        is not in the library this was fitted on (written since: the calibration is stale then anyway)."""
        at = self._index()
        if any(s not in at for s in skill_ids):
            return None
        q = self.query(vector)
        return {s: float(self.prototypes[at[s]] @ q) for s in skill_ids}

    def _index(self) -> dict[str, int]:
        index = self.__dict__.get("_at")
        if index is None:
            index = {s: i for i, s in enumerate(self.ids)}
            object.__setattr__(self, "_at", index)
        return index


class WhiteningCache:
    """Per process (``runtime.state(WhiteningCache)``): the whitening of each calibrated library, keyed by its
    namespace and the calibration it was fitted under (``library.whitening_key``); a few libraries at most."""

    def __init__(self, max_libraries: int = MAX_LIBRARIES) -> None:
        self.max_libraries = max_libraries
        self._rows: OrderedDict[tuple[str, str], Whitening] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, namespace: str, made: str) -> Whitening | None:
        with self._lock:
            found = self._rows.get((namespace, made))
            if found is not None:
                self._rows.move_to_end((namespace, made))
            return found

    def put(self, namespace: str, made: str, whitening: Whitening) -> None:
        with self._lock:
            for key in [k for k in self._rows if k[0] == namespace]:  # an older calibration's: never read again
                del self._rows[key]
            self._rows[(namespace, made)] = whitening
            while len(self._rows) > self.max_libraries:
                self._rows.popitem(last=False)

    def close(self) -> None:
        with self._lock:
            self._rows.clear()
