"""The embedded search engine: one namespace's vectors and BM25 postings in memory, ranked with numpy.

A :class:`Snapshot` is read from one SQLite snapshot and is valid for exactly one
data version (``PRAGMA data_version``, which changes on every commit from any
connection); the store throws it away and reads a new one when the version moves,
so a ranking never sees stale rows. Everything here is exact: every passage vector
of the candidate nodes is scored, and a node scores its best passage.

Filters arrive as the set of node rowids that pass them (the store computes it in
SQL, where ``where`` is implemented once); :meth:`Snapshot.mask` turns that set into
a boolean mask over node positions, memoised per filter for this snapshot.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from graphsift.store.sqlite.bm25 import KeywordIndex, TermVector

#: Rows scored per block by :meth:`Snapshot.search_many`: small enough to stay in the CPU cache while
#: every query of the pass reads it (3 queries over 100k x 384 rows: ~18 ms blocked vs ~31 ms one by one).
SCAN_BLOCK = 2048


class Snapshot:
    """Node ids and kinds, every passage vector as one matrix grouped by kind, and (on first use) BM25."""

    def __init__(self, conn: sqlite3.Connection, version: int) -> None:
        self.version = version
        self._keywords: KeywordIndex | None = None
        self._masks: dict[object, np.ndarray | None] = {}
        nodes = conn.execute("SELECT rowid, id, kind FROM nodes ORDER BY rowid").fetchall()
        self.node_ids = np.array([r[1] for r in nodes], dtype=object)
        self.kinds = np.array([r[2] for r in nodes], dtype=object)
        #: rowid -> position in ``node_ids``
        self.position = {r[0]: i for i, r in enumerate(nodes)}
        rows = conn.execute("SELECT node_rowid, vector FROM node_vectors ORDER BY node_rowid, seq").fetchall()
        self.kind_rows: dict[str, tuple[int, int]] = {}
        if rows:
            matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
            owner = np.fromiter((self.position[r[0]] for r in rows), dtype=np.int64, count=len(rows))
            self.matrix, owner = self._group_by_kind(matrix, owner)
        else:
            self.matrix = np.empty((0, 0), dtype=np.float32)
            owner = np.empty(0, dtype=np.int64)
        # Rows are grouped by node (ordered by rowid within a kind), so each node's passages form one run.
        self._starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if owner.size else owner
        self._owners = owner[self._starts] if owner.size else owner
        ends = np.r_[self._starts[1:], owner.size] if owner.size else owner
        #: node id -> (first row, end row) of its passages in ``matrix``
        self.rows = {self.node_ids[o]: (int(s), int(e)) for o, s, e in zip(self._owners, self._starts, ends, strict=True)}

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def _group_by_kind(self, matrix: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of one kind made contiguous (stable, so a node's passages stay together and in order):
        a search restricted to one kind then scans a slice instead of every row."""
        codes = {k: i for i, k in enumerate(sorted(set(self.kinds.tolist())))}
        row_kind = np.fromiter((codes[k] for k in self.kinds.tolist()), dtype=np.int64, count=len(self.kinds))[owner]
        order = np.argsort(row_kind, kind="stable")
        bounds = np.searchsorted(row_kind[order], np.arange(len(codes) + 1))
        self.kind_rows = {k: (int(bounds[i]), int(bounds[i + 1])) for k, i in codes.items()}
        return np.ascontiguousarray(matrix[order]), owner[order]

    def _span(self, kind: str | None) -> tuple[int, int]:
        return (0, self.matrix.shape[0]) if kind is None else self.kind_rows.get(kind, (0, 0))

    # -- filters ------------------------------------------------------------------------------------

    def mask(self, kind: str | None, where_key: object, rowids: Callable[[], Iterable[int]] | None) -> np.ndarray | None:
        """Which node positions are of ``kind`` and pass a ``where`` filter (None: all), memoised per
        (kind, filter) for this snapshot. ``rowids`` lists the rowids that pass both (the store reads them
        in SQL, where ``where`` is implemented); None when there is no ``where`` filter."""
        key = (kind, where_key)
        if key not in self._masks:
            if rowids is None:
                mask = None if kind is None else self.kinds == kind
            else:
                mask = np.zeros(len(self.node_ids), dtype=bool)
                positions = [self.position[r] for r in rowids() if r in self.position]
                mask[np.asarray(positions, dtype=np.int64)] = True
            if mask is not None:
                mask.flags.writeable = False
            self._masks[key] = mask
        return self._masks[key]

    # -- vectors ------------------------------------------------------------------------------------

    def search_many(
        self, queries: np.ndarray, kinds: Sequence[str | None], limit: int, mask: np.ndarray | None = None,
    ) -> list[list[tuple[int, float]]]:
        """Top ``limit`` (node position, best-passage cosine) per query row, each within its kind's rows
        and ``mask``. Queries of one kind share one pass over that kind's rows, block by block, so a block
        read from memory serves every query before the next is loaded."""
        out: list[list[tuple[int, float]]] = [[] for _ in range(len(queries))]
        if self.matrix.shape[0] == 0 or limit <= 0:
            return out
        by_kind: dict[str | None, list[int]] = {}
        for i, kind in enumerate(kinds):
            by_kind.setdefault(kind, []).append(i)
        for kind, members in by_kind.items():
            start, end = self._span(kind)
            if end <= start:
                continue
            block = self.matrix[start:end]
            scores = np.empty((len(members), end - start), dtype=np.float32)
            for b in range(0, end - start, SCAN_BLOCK):
                rows = block[b : b + SCAN_BLOCK]
                for j, q in enumerate(members):
                    np.dot(rows, queries[q], out=scores[j, b : b + SCAN_BLOCK])
            # Each node's passages are one run inside the slice: its score is the run's maximum.
            lo, hi = np.searchsorted(self._starts, [start, end])
            starts, owners = self._starts[lo:hi] - start, self._owners[lo:hi]
            keep = None if mask is None else mask[owners]
            one_row_each = starts.size == end - start
            for j, q in enumerate(members):
                best = scores[j] if one_row_each else np.maximum.reduceat(scores[j], starts)
                candidates = np.arange(best.size) if keep is None else np.flatnonzero(keep)
                k = min(limit, candidates.size)
                if k == 0:
                    continue
                candidates = best_k(candidates, best, k, owners)
                top = candidates[np.lexsort((owners[candidates], -best[candidates]))]
                out[q] = [(int(owners[t]), float(best[t])) for t in top]
        return out

    def scores_for(self, query: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """Best-passage cosine of ``query`` for each of ``ids`` that has vectors."""
        spans = [(node_id, self.rows[node_id]) for node_id in dict.fromkeys(ids) if node_id in self.rows]
        if not spans:
            return {}
        rows = np.concatenate([np.arange(start, end) for _, (start, end) in spans])
        scores = self.matrix[rows] @ query
        starts = np.cumsum([0] + [end - start for _, (start, end) in spans[:-1]])
        best = np.maximum.reduceat(scores, starts)
        return {node_id: float(score) for (node_id, _), score in zip(spans, best, strict=True)}

    # -- keywords -----------------------------------------------------------------------------------

    @property
    def has_keywords(self) -> bool:
        return self._keywords is not None

    def keywords(self, conn: sqlite3.Connection) -> KeywordIndex:
        """The BM25 postings; ``conn`` must read the snapshot this one was built from."""
        if self._keywords is None:
            rows = conn.execute("SELECT node_rowid, keys, name_tf, text_tf, length FROM node_terms").fetchall()
            self._keywords = KeywordIndex(
                len(self.node_ids),
                [self.position[r[0]] for r in rows],
                [TermVector.from_row(*r[1:]) for r in rows],
            )
        return self._keywords

    def keyword_top(
        self, conn: sqlite3.Connection, query: str, weights: tuple[float, float], mask: np.ndarray | None,
        limit: int,
    ) -> list[tuple[int, float]]:
        """Top ``limit`` (node position, BM25) among the nodes in ``mask`` that contain a query term."""
        scores, matched = self.keywords(conn).scores(query, weights)
        if mask is not None:
            matched &= mask
        return [(int(i), float(scores[i])) for i in top_positions(scores, matched, limit)]


def top_positions(scores: np.ndarray, keep: np.ndarray, limit: int) -> np.ndarray:
    """Positions of the ``limit`` best scores among ``keep``, best first (ties in position order)."""
    candidates = np.flatnonzero(keep)
    if limit <= 0:
        return candidates[:0]
    candidates = best_k(candidates, scores, limit, None)
    return candidates[np.lexsort((candidates, -scores[candidates]))]


def best_k(candidates: np.ndarray, scores: np.ndarray, k: int, order: np.ndarray | None) -> np.ndarray:
    """The ``k`` candidates of highest score (unordered); among equal scores at the cut, those first in
    ``order`` (insertion positions; None: the candidates themselves), so ties keep insertion order even
    across the cut (``argpartition`` alone picks any of them)."""
    if k >= candidates.size:
        return candidates
    values = scores[candidates]
    kth = np.partition(values, values.size - k)[values.size - k]
    above, at = candidates[values > kth], candidates[values == kth]
    at = at[np.argsort(at if order is None else order[at], kind="stable")][: k - above.size]
    return np.concatenate([above, at])
