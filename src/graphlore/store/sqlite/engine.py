"""The embedded search engine: one namespace's vectors and BM25 postings in memory, ranked with numpy.

A :class:`Snapshot` (vectors) is read from one SQLite snapshot and is valid for exactly one
data version (``PRAGMA data_version``, which changes on every commit from another
connection); the store throws it away and reads a new one when the version moves or it
wrote itself, so a ranking never sees stale rows. Everything here is exact: every passage
vector of the candidate nodes is scored, and a node scores its best passage.

Filters arrive as the set of node rowids that pass them (the store computes it in
SQL, where ``where`` is implemented once); :meth:`Snapshot.mask` turns that set into
a boolean mask over node positions, memoised per filter for this snapshot.

:class:`KindPostings` (BM25) live apart from the snapshot, one per searched kind, built
on the first keyword search of that kind (a search among entities never reads the
postings of chunks), and kept across this connection's own writes: the rows it wrote
since are read again and scored from a small second index next to the first, exactly
as one index over the current rows would score them (:func:`bm25.overlay_scores`).
Rebuilding every posting after each write cost ~26 s at 300k nodes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from graphlore.store.sqlite.bm25 import KeywordIndex, TermVector, overlay_scores

#: Rows scored per block by :meth:`Snapshot.search_many`: small enough to stay in the CPU cache while
#: every query of the pass reads it (3 queries over 100k x 384 rows: ~18 ms blocked vs ~31 ms one by one).
SCAN_BLOCK = 2048


class Snapshot:
    """Node ids and kinds, and every passage vector as one matrix grouped by kind."""

    def __init__(self, conn: sqlite3.Connection, version: int) -> None:
        self.version = version
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


#: Rewritten rows are scored from the second index until they number more than this share of the
#: first (plus COMPACT_MIN); then the postings are rebuilt from every row.
COMPACT_SHARE = 0.125
COMPACT_MIN = 2000


class KindPostings:
    """BM25 postings of the nodes of one kind (None: every node), kept current across this connection's
    own writes.

    ``base`` indexes the rows read when it was built (slots in rowid order); rows written since are
    :meth:`touch`-ed, and the next :meth:`refresh` reads them again: their base slots go dead and their
    current rows (if still of this kind) make up ``delta``, a second index rebuilt from those few rows.
    Scores count documents, lengths and term frequencies over the live rows of both
    (:func:`bm25.overlay_scores`), so they equal a fresh index's. Another process's commit is not seen
    here: the store drops every :class:`KindPostings` when ``PRAGMA data_version`` moves.
    """

    def __init__(self, conn: sqlite3.Connection, kind: str | None) -> None:
        self.kind = kind
        self.pending: set[int] = set()  # rowids written since the last refresh
        rows = conn.execute(*self._rows_sql(kind, None)).fetchall()
        self.base = KeywordIndex(len(rows), range(len(rows)), [TermVector.from_row(*r[2:]) for r in rows])
        self.base_rowids = np.array([r[0] for r in rows], dtype=np.int64)
        self.base_ids = np.array([r[1] for r in rows], dtype=object)
        self.alive = np.ones(len(rows), dtype=bool)
        self._delta_rows: dict[int, tuple[str, TermVector]] = {}
        self._set_delta()

    @staticmethod
    def _rows_sql(kind: str | None, rowids: Sequence[int] | None) -> tuple[str, list]:
        clauses, params = [], []
        if kind is not None:
            clauses.append("n.kind = ?")
            params.append(kind)
        if rowids is not None:
            clauses.append(f"n.rowid IN ({','.join('?' * len(rowids))})")
            params += list(rowids)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        return (f"SELECT t.node_rowid, n.id, t.keys, t.name_tf, t.text_tf, t.length FROM node_terms t "
                f"JOIN nodes n ON n.rowid = t.node_rowid {where} ORDER BY t.node_rowid", params)

    def _set_delta(self) -> None:
        rowids = sorted(self._delta_rows)
        self.delta = KeywordIndex(len(rowids), range(len(rowids)), [self._delta_rows[r][1] for r in rowids])
        self.delta_rowids = np.array(rowids, dtype=np.int64)
        self.delta_ids = np.array([self._delta_rows[r][0] for r in rowids], dtype=object)

    def touch(self, rowids: Iterable[int]) -> None:
        self.pending.update(rowids)

    def refresh(self, conn: sqlite3.Connection) -> KindPostings:
        """Fold the rows written since into ``delta``; a ``delta`` grown past its share rebuilds everything
        (returns the postings to use: ``self`` or a new one). ``conn`` must read one snapshot."""
        if not self.pending:
            return self
        pending = sorted(self.pending)
        at = np.searchsorted(self.base_rowids, pending)
        inside = at < self.base_rowids.size
        at = at[inside][self.base_rowids[at[inside]] == np.asarray(pending, dtype=np.int64)[inside]]
        self.alive[at] = False
        for rowid in pending:
            self._delta_rows.pop(rowid, None)
        for start in range(0, len(pending), 400):
            for r in conn.execute(*self._rows_sql(self.kind, pending[start:start + 400])):
                self._delta_rows[r[0]] = (r[1], TermVector.from_row(*r[2:]))
        self.pending.clear()
        if len(self._delta_rows) > COMPACT_MIN + COMPACT_SHARE * int(self.alive.sum()):
            return KindPostings(conn, self.kind)
        self._set_delta()
        return self

    def top(
        self, query: str, weights: tuple[float, float], allowed: np.ndarray | None, limit: int,
    ) -> list[tuple[str, float]]:
        """Top ``limit`` (node id, BM25) among the nodes that contain a query term and whose rowids are in
        ``allowed`` (None: all); ties in rowid (insertion) order."""
        (base_scores, base_hit), (delta_scores, delta_hit) = overlay_scores(
            [(self.base, self.alive), (self.delta, None)], query, weights)
        if allowed is not None:
            base_hit &= np.isin(self.base_rowids, allowed)
            delta_hit &= np.isin(self.delta_rowids, allowed)
        scores = np.concatenate([base_scores[base_hit], delta_scores[delta_hit]])
        rowids = np.concatenate([self.base_rowids[base_hit], self.delta_rowids[delta_hit]])
        ids = np.concatenate([self.base_ids[base_hit], self.delta_ids[delta_hit]])
        best = top_positions(scores, np.ones(scores.size, dtype=bool), limit, rowids)
        return [(ids[i], float(scores[i])) for i in best]


def top_positions(scores: np.ndarray, keep: np.ndarray, limit: int, order: np.ndarray | None = None) -> np.ndarray:
    """Positions of the ``limit`` best scores among ``keep``, best first (ties by ``order``, default
    position). A tie at the cut keeps the lowest ``order``, as a full sort would."""
    candidates = np.flatnonzero(keep)
    if limit <= 0:
        return candidates[:0]
    candidates = best_k(candidates, scores, limit, order)
    tie = candidates if order is None else order[candidates]
    return candidates[np.lexsort((tie, -scores[candidates]))]


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
