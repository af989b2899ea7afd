"""The embedded search engine: one namespace's vectors and BM25 postings in memory, ranked with numpy.

Both caches are kept current incrementally, whoever writes. Every write transaction appends the rowids of
the nodes it wrote or deleted to the ``changes`` log (:mod:`graphlore.store.sqlite.store`); before a
ranking the store reads the log since the position its caches reflect and hands the changed rowids to
them: each marks its rows of those nodes dead and reads their current rows into a small second part
beside the first, which it scores with it exactly as one index over the current rows would. A part
that has grown past its share (:data:`COMPACT_SHARE`) is rebuilt from every row; so is everything when
the log cannot say what changed (it was pruned past the caches' position, or a writer that does not log
committed). A ranking therefore never sees stale rows and never reloads a namespace because one node
changed (rebuilding every posting after each write cost ~26 s at 300k nodes, and a skill library's
vectors were reloaded after every use counter written).

:class:`Snapshot` (vectors) holds every passage vector of the nodes that have vectors, grouped by kind
(a search restricted to one kind scans a slice); a node scores its best passage. Scores are exact cosines.
A slice of :data:`SKETCH_ROWS` rows or more is scanned in two steps: a :class:`Sketch` (the rows projected
on their :data:`SKETCH_DIM` leading principal directions, a third of the bytes) ranks every node, and the
best :func:`shortlist_size` of them are scored again on their full vectors, which give the order and
the scores returned. The exact float32 scan runs at memory bandwidth (100k x 384 rows: 154 MB per pass),
so reading fewer bytes is what makes it faster; the shortlist is what keeps the answer the exact scan's
(bench/README.md measures both on real vectors: the same top 10 but for one query in 200 on held-out
vectors, and of a top 100 all but a few tail ranks). A sketch checks itself when it is made: the exact 10
nearest rows of :data:`SKETCH_PROBES` rows of the part must be in its shortlist (a share of at least
:data:`SKETCH_MIN_RECALL`), else the part is scanned exactly (vectors without dominant directions, such as
random ones, lose recall on a sketch). Smaller slices, and the small second part (below), are scanned exactly.
A snapshot is never changed in place: :meth:`Snapshot.updated` returns a new one sharing the first part's
matrix, so a search running in another thread keeps reading the one it started with.

Filters arrive as the set of node rowids that pass them (the store computes it in SQL, where ``where``
is implemented once) and become a boolean mask per part, memoised per filter for one snapshot.

:class:`KindPostings` (BM25) are built on the first keyword search of a kind (a search among entities
never reads the postings of chunks) and scored from two indexes in the same way
(:func:`bm25.overlay_scores`).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from graphlore.store.sqlite.bm25 import KeywordIndex, TermVector, overlay_scores

#: Rows scored per block by :func:`scan`: small enough to stay in the CPU cache while every query of the
#: pass reads it.
SCAN_BLOCK = 2048
#: Ids per ``IN (...)`` list when re-reading changed rows.
READ_CHUNK = 400
#: Rows of a slice from which a search ranks on the sketch first (below it the exact scan is cheap: ~1 ms
#: per 10k rows, and the sketch's shortlist would be a large share of the slice).
SKETCH_ROWS = 20_000
#: Dimensions of the sketch: 128 of 384 keep 76-97 % of real vectors' energy (bench/README.md, the sketch).
SKETCH_DIM = 128
#: Rows the principal directions are computed from (a sample: the directions barely change past it).
SKETCH_SAMPLE = 20_000
#: Rows of a part taken as probe queries when its sketch is made, and the share of their exact 10 nearest
#: rows the sketch's shortlist must hold for the sketch to be used: vectors without dominant directions
#: (random ones; an embedder whose spectrum is flat) lose the exact top 10 on a sketch, so such a part is
#: scanned exactly instead.
SKETCH_PROBES = 16
SKETCH_MIN_RECALL = 0.99
#: The shortlist the sketch passes to the exact scores: this many nodes at least ...
SHORTLIST_MIN = 400
#: ... and this many times the nodes asked for.
SHORTLIST_FACTOR = 4
#: Rows of adjacent shortlisted nodes from which the rescoring reads them in place rather than copying them
#: out first (:meth:`Part._rescored`).
IN_PLACE_ROWS = 64


def shortlist_size(limit: int) -> int:
    """How many nodes the sketch shortlists for a search of ``limit``."""
    return max(SHORTLIST_MIN, SHORTLIST_FACTOR * limit)


class Sketch:
    """A part's rows on their leading principal directions: ``rows`` (n x :data:`SKETCH_DIM`, float32,
    the part's row order) approximate each cosine as ``rows @ (basis.T @ query)``. The directions are those
    of the uncentred rows (cosines are dot products of unit vectors, which the uncentred directions keep
    best), from a seeded sample of :data:`SKETCH_SAMPLE` rows."""

    def __init__(self, matrix: np.ndarray) -> None:
        sample = matrix
        if matrix.shape[0] > SKETCH_SAMPLE:
            picked = np.random.default_rng(0).choice(matrix.shape[0], SKETCH_SAMPLE, replace=False)
            sample = matrix[np.sort(picked)]
        gram = (sample.T @ sample).astype(np.float64)
        _, directions = np.linalg.eigh(gram)  # ascending eigenvalues: the leading directions are the last
        self.basis = np.ascontiguousarray(directions[:, ::-1][:, :SKETCH_DIM], dtype=np.float32)  # dim x SKETCH_DIM
        self.rows = np.empty((matrix.shape[0], self.basis.shape[1]), dtype=np.float32)
        for b in range(0, matrix.shape[0], SCAN_BLOCK * 8):
            np.dot(matrix[b : b + SCAN_BLOCK * 8], self.basis, out=self.rows[b : b + SCAN_BLOCK * 8])
        #: the share of the probes' exact 10 nearest rows (themselves left out) the shortlist held
        self.recall = self._probe_recall(matrix)
        #: False: the part is scanned exactly (the sketch would lose the exact top 10)
        self.usable = self.recall >= SKETCH_MIN_RECALL

    def _probe_recall(self, matrix: np.ndarray, k: int = 10) -> float:
        n = matrix.shape[0]
        if n <= SHORTLIST_MIN + k:
            return 1.0
        picked = np.sort(np.random.default_rng(1).choice(n, min(SKETCH_PROBES, n), replace=False))
        exact, approx = scan(matrix, matrix[picked]), scan(self.rows, self.rows[picked])
        held = 0
        for row, e, a in zip(picked, exact, approx, strict=True):
            e[row] = a[row] = -np.inf  # a row is its own nearest: left out
            nearest = np.argpartition(-e, k)[:k]
            shortlist = np.argpartition(-a, SHORTLIST_MIN)[:SHORTLIST_MIN]
            held += np.isin(nearest, shortlist).sum()
        return float(held) / (k * len(picked))


class Part:
    """Nodes with vectors, in rowid order, and their passage vectors as one matrix grouped by kind."""

    def __init__(self, rows: Sequence[tuple[int, str, str]], vectors: dict[int, list[bytes]], dim: int | None) -> None:
        #: (rowid, id, kind) of every node here, rowid ascending
        self.rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        self.ids = np.array([r[1] for r in rows], dtype=object)
        self.kinds = np.array([r[2] for r in rows], dtype=object)
        counts = [len(vectors[r[0]]) for r in rows]
        total = sum(counts)
        self.kind_rows: dict[str, tuple[int, int]] = {}
        if total:
            blob = b"".join(b for r in rows for b in vectors[r[0]])
            matrix = np.frombuffer(blob, dtype=np.float32).reshape(total, -1)
            owner = np.repeat(np.arange(len(rows), dtype=np.int64), counts)
            self.matrix, owner = self._group_by_kind(matrix, owner)
        else:
            self.matrix = np.empty((0, dim or 0), dtype=np.float32)
            owner = np.empty(0, dtype=np.int64)
        # Rows are grouped by node (ordered by rowid within a kind), so each node's passages form one run.
        self.starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if owner.size else owner
        self.owners = owner[self.starts] if owner.size else owner
        self._ends = np.r_[self.starts[1:], owner.size] if owner.size else owner
        self._by_id: dict[str, int] | None = None
        self._sketch: Sketch | None = None
        self._sketch_lock = threading.Lock()

    def sketch(self) -> Sketch:
        """The part's :class:`Sketch`, made on the first search that needs it (once: parts are shared)."""
        if self._sketch is None:
            with self._sketch_lock:
                if self._sketch is None:
                    self._sketch = Sketch(self.matrix)
        return self._sketch

    def passages(self, node_id: str) -> np.ndarray | None:
        """The passage rows of ``node_id`` here (None: not here); the id index is built on first use."""
        if self._by_id is None:
            self._by_id = {self.ids[o]: i for i, o in enumerate(self.owners.tolist())}
        run = self._by_id.get(node_id)
        return None if run is None else self.matrix[self.starts[run]:self._ends[run]]

    def position(self, node_id: str) -> int | None:
        if self._by_id is None:
            self.passages(node_id)
        run = self._by_id.get(node_id)  # type: ignore[union-attr]
        return None if run is None else int(self.owners[run])

    def __len__(self) -> int:
        return len(self.ids)

    def _group_by_kind(self, matrix: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of one kind made contiguous (stable, so a node's passages stay together and in order)."""
        codes = {k: i for i, k in enumerate(sorted(set(self.kinds.tolist())))}
        node_kind = np.fromiter((codes[k] for k in self.kinds.tolist()), dtype=np.int64, count=len(self.kinds))
        row_kind = node_kind[owner]
        order = np.argsort(row_kind, kind="stable")
        bounds = np.searchsorted(row_kind[order], np.arange(len(codes) + 1))
        self.kind_rows = {k: (int(bounds[i]), int(bounds[i + 1])) for k, i in codes.items()}
        return np.ascontiguousarray(matrix[order]), owner[order]

    def span(self, kind: str | None) -> tuple[int, int]:
        return (0, self.matrix.shape[0]) if kind is None else self.kind_rows.get(kind, (0, 0))

    def positions(self, rowids: np.ndarray) -> np.ndarray:
        """Positions here of those of ``rowids`` that are here."""
        if not len(self) or not rowids.size:
            return np.empty(0, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.rowids, rowids), len(self) - 1)
        return at[self.rowids[at] == rowids]

    def search(
        self, queries: np.ndarray, members: Sequence[int], kind: str | None, keep: np.ndarray | None, limit: int,
        *, exact: bool = False,
    ) -> dict[int, list[tuple[int, float]]]:
        """Top ``limit`` (position, best-passage cosine) per query row in ``members``, within ``kind``'s
        rows and the positions ``keep`` allows (None: all): a blocked pass over the full vectors, or over
        the sketch and then the shortlist's full vectors (the module docstring says when; never with
        ``exact``)."""
        start, end = self.span(kind)
        if end <= start:
            return {}
        sketched = (not exact and end - start >= SKETCH_ROWS and shortlist_size(limit) * 4 < end - start
                    and self.matrix.shape[1] >= 2 * SKETCH_DIM)
        sketch = self.sketch() if sketched else None
        sketched = sketch is not None and sketch.usable
        if sketched:
            scores = scan(sketch.rows[start:end], queries[list(members)] @ sketch.basis)
        else:
            scores = scan(self.matrix[start:end], queries[list(members)])
        # Each node's passages are one run inside the slice: its score is the run's maximum.
        lo, hi = np.searchsorted(self.starts, [start, end])
        starts, owners = self.starts[lo:hi] - start, self.owners[lo:hi]
        allowed = None if keep is None else keep[owners]
        one_row_each = starts.size == end - start
        out: dict[int, list[tuple[int, float]]] = {}
        order = self.rowids[owners]
        for j, q in enumerate(members):
            best = scores[j] if one_row_each else np.maximum.reduceat(scores[j], starts)
            candidates = np.arange(best.size) if allowed is None else np.flatnonzero(allowed)
            k = min(limit, candidates.size)
            if k == 0:
                continue
            if sketched:
                candidates = best_k(candidates, best, shortlist_size(limit), order)
                best = self._rescored(queries[q], start, starts, lo, candidates, best.size)
            candidates = best_k(candidates, best, k, order)
            out[q] = [(int(owners[t]), float(best[t])) for t in candidates]
        return out

    def _rescored(self, query: np.ndarray, start: int, starts: np.ndarray, lo: int, nodes: np.ndarray,
                  size: int) -> np.ndarray:
        """Best-passage cosines from the full vectors for ``nodes`` (indexes into the slice's runs
        ``starts``, the first being run ``lo`` of the part), in an array of ``size`` (others: -inf).

        Nodes whose rows follow each other in the matrix (skills imported together) are scored where they
        lie, a run of at least :data:`IN_PLACE_ROWS` rows at a time; the rest are copied out together
        and scored in one product. Copying every shortlisted row first cost more than scoring them (at
        10k skills ~10k rows of 384 floats per search: bench/README.md, skills_routing)."""
        first = starts[nodes] + start
        order = np.argsort(first, kind="stable")
        nodes, first = nodes[order], first[order]
        ends = self._ends[lo + nodes]
        counts = ends - first
        offsets = np.r_[0, np.cumsum(counts)[:-1]]
        query = np.asarray(query, dtype=self.matrix.dtype)
        cosines = np.empty(int(counts.sum()), dtype=self.matrix.dtype)
        # Runs of adjacent nodes: [a, b) in the matrix, written from offset ``at`` of ``cosines``.
        breaks = np.flatnonzero(first[1:] != ends[:-1]) + 1
        a, b = first[np.r_[0, breaks]], ends[np.r_[breaks - 1, nodes.size - 1]]
        at = offsets[np.r_[0, breaks]]
        long = b - a >= IN_PLACE_ROWS
        for x, y, o in zip(a[long].tolist(), b[long].tolist(), at[long].tolist(), strict=True):
            np.dot(self.matrix[x:y], query, out=cosines[o:o + y - x])
        if not long.all():
            short = ~long
            rows, positions = spread(a[short], b[short] - a[short]), spread(at[short], b[short] - a[short])
            cosines[positions] = self.matrix[rows] @ query
        out = np.full(size, -np.inf, dtype=np.float32)
        out[nodes] = np.maximum.reduceat(cosines, offsets)
        return out


def spread(firsts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The positions ``firsts[i], firsts[i] + 1, ...`` (``counts[i]`` of them) for every i, in order."""
    return np.repeat(firsts - np.r_[0, np.cumsum(counts)[:-1]], counts) + np.arange(int(counts.sum()))


def scan(matrix: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """``queries @ matrix.T`` (queries x rows), :data:`SCAN_BLOCK` rows at a time: a block read from memory
    serves every query before the next is loaded (3 queries over 100k x 384 rows: ~18 ms blocked vs ~31 ms
    one by one)."""
    scores = np.empty((len(queries), matrix.shape[0]), dtype=np.float32)
    for b in range(0, matrix.shape[0], SCAN_BLOCK):
        rows = matrix[b : b + SCAN_BLOCK]
        for j, q in enumerate(queries):
            np.dot(rows, q, out=scores[j, b : b + SCAN_BLOCK])
    return scores


@dataclass(frozen=True)
class _Delta:
    """What the second part is made of: each node's (id, kind, passage vectors) by rowid."""

    rows: dict[int, tuple[str, str, list[bytes]]]


class Snapshot:
    """Every passage vector of the nodes that have vectors: a first part read from every row and a small
    second part of the nodes changed since (see the module docstring). Immutable."""

    def __init__(self, base: Part, alive: np.ndarray, delta_rows: _Delta, dim: int | None,
                 delta: Part | None = None) -> None:
        self.base = base
        self.alive = alive
        #: None when every row of the first part is live (the common case: no mask to apply)
        self._keep = None if alive.all() else alive
        self._delta_rows = delta_rows
        rows = sorted(delta_rows.rows.items())
        self.delta = delta if delta is not None else Part([(r, v[0], v[1]) for r, v in rows],
                                                          {r: v[2] for r, v in rows}, dim)
        self.dim = next((p.matrix.shape[1] for p in (self.base, self.delta) if p.matrix.shape[0]), dim or 0)
        self._masks: dict[object, tuple[np.ndarray | None, np.ndarray | None]] = {}

    @classmethod
    def read(cls, conn: sqlite3.Connection) -> Snapshot:
        """Every node with vectors, read from ``conn`` (which must read one snapshot)."""
        vectors: dict[int, list[bytes]] = {}
        for rowid, blob in conn.execute("SELECT node_rowid, vector FROM node_vectors ORDER BY node_rowid, seq"):
            vectors.setdefault(rowid, []).append(blob)
        rows = [r for r in conn.execute("SELECT rowid, id, kind FROM nodes ORDER BY rowid") if r[0] in vectors]
        base = Part(rows, vectors, None)
        return cls(base, np.ones(len(base), dtype=bool), _Delta({}), base.matrix.shape[1] or None)

    def rechecked(self, changed: Iterable[int], passing: Callable[[object], Iterable[int]]) -> Snapshot:
        """The same vectors, each memoised ``where`` mask corrected for the nodes ``changed`` (their props
        changed, so a filter may now pass or drop them): ``passing(where_key)`` lists those of them that pass
        that filter. A filter is read again for a few rows, never for the whole namespace."""
        out = Snapshot(self.base, self.alive, self._delta_rows, self.dim or None, delta=self.delta)
        rows = np.unique(np.fromiter(changed, dtype=np.int64))
        for key, masks in self._masks.items():
            if key[1] is None:  # a kind alone: props do not move it
                out._masks[key] = masks
                continue
            ok = np.unique(np.fromiter(passing(key[1]), dtype=np.int64))
            patched = []
            for part, mask in zip((self.base, self.delta), masks, strict=True):
                mask = mask.copy()
                mask[part.positions(rows)] = False
                mask[part.positions(ok)] = True
                mask.flags.writeable = False
                patched.append(mask)
            out._masks[key] = tuple(patched)  # type: ignore[assignment]
        return out

    def updated(self, conn: sqlite3.Connection, rowids: Iterable[int]) -> Snapshot:
        """This snapshot after the nodes ``rowids`` changed (written, rewritten or deleted): their rows
        read again from ``conn``. Rebuilt from every row once the second part outgrows its share."""
        changed = sorted(set(rowids))
        if not changed:
            return self
        alive = self.alive.copy()
        alive[self.base.positions(np.asarray(changed, dtype=np.int64))] = False
        gone = set(changed)
        delta = {r: v for r, v in self._delta_rows.rows.items() if r not in gone}
        for start in range(0, len(changed), READ_CHUNK):
            chunk = changed[start : start + READ_CHUNK]
            marks = ",".join("?" * len(chunk))
            vectors: dict[int, list[bytes]] = {}
            for rowid, blob in conn.execute(f"SELECT node_rowid, vector FROM node_vectors WHERE node_rowid IN "
                                            f"({marks}) ORDER BY node_rowid, seq", chunk):
                vectors.setdefault(rowid, []).append(blob)
            for rowid, node_id, kind in conn.execute(f"SELECT rowid, id, kind FROM nodes WHERE rowid IN ({marks})",
                                                     chunk):
                if rowid in vectors:
                    delta[rowid] = (node_id, kind, vectors[rowid])
        if len(delta) > COMPACT_MIN + COMPACT_SHARE * int(alive.sum()):
            return Snapshot.read(conn)
        return Snapshot(self.base, alive, _Delta(delta), self.dim or None)

    # -- filters ------------------------------------------------------------------------------------

    def masks(self, kind: str | None, where_key: object, rowids: Callable[[], Iterable[int]] | None
              ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Per part, which node positions are of ``kind`` and pass a ``where`` filter (None: all),
        memoised per (kind, filter) for this snapshot. ``rowids`` lists the rowids that pass both (the
        store reads them in SQL, where ``where`` is implemented); None when there is no ``where``."""
        key = (kind, where_key)
        if key not in self._masks:
            if rowids is None:
                masks = tuple(None if kind is None else part.kinds == kind for part in (self.base, self.delta))
            else:
                passing = np.fromiter(rowids(), dtype=np.int64)
                passing.sort()
                masks = []
                for part in (self.base, self.delta):
                    mask = np.zeros(len(part), dtype=bool)
                    mask[part.positions(passing)] = True
                    masks.append(mask)
                masks = tuple(masks)
            for mask in masks:
                if mask is not None:
                    mask.flags.writeable = False
            self._masks[key] = masks  # type: ignore[assignment]
        return self._masks[key]

    # -- vectors ------------------------------------------------------------------------------------

    def search_many(
        self, queries: np.ndarray, kinds: Sequence[str | None], limit: int,
        masks: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
    ) -> list[list[tuple[str, float]]]:
        """Top ``limit`` (node id, best-passage cosine) per query row, each within its kind's rows and the
        ``masks`` (one per part). Queries of one kind share one pass over that kind's rows, block by
        block, so a block read from memory serves every query before the next is loaded. Ties in
        insertion (rowid) order."""
        out: list[list[tuple[str, float]]] = [[] for _ in range(len(queries))]
        if limit <= 0:
            return out
        by_kind: dict[str | None, list[int]] = {}
        for i, kind in enumerate(kinds):
            by_kind.setdefault(kind, []).append(i)
        base_keep = masks[0] if self._keep is None else (self._keep if masks[0] is None else self._keep & masks[0])
        for kind, members in by_kind.items():
            found = [(self.base, self.base.search(queries, members, kind, base_keep, limit)),
                     # the second part is made again after every write: a sketch of it would be too
                     (self.delta, self.delta.search(queries, members, kind, masks[1], limit, exact=True))]
            for q in members:
                merged = [(part.rowids[p], part.ids[p], score) for part, hits in found for p, score in hits.get(q, [])]
                merged.sort(key=lambda h: (-h[2], h[0]))
                out[q] = [(node_id, score) for _, node_id, score in merged[:limit]]
        return out

    def passages(self, node_id: str) -> np.ndarray | None:
        """The current passage rows of ``node_id`` (a view; None: it has no vectors)."""
        rows = self.delta.passages(node_id)
        if rows is None:
            position = self.base.position(node_id)
            rows = self.base.passages(node_id) if position is not None and self.alive[position] else None
        return rows

    def scores_for(self, query: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """Best-passage cosine of ``query`` for each of ``ids`` that has vectors."""
        out = {}
        for node_id in dict.fromkeys(ids):
            rows = self.passages(node_id)
            if rows is not None:
                out[node_id] = float(np.max(rows @ query))
        return out

    def vectors_of(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Passage vectors ``(k, dim)`` of each of ``ids`` that has some, as read-only views of the snapshot."""
        out = {}
        for node_id in dict.fromkeys(ids):
            rows = self.passages(node_id)
            if rows is not None:
                rows = rows.view()
                rows.flags.writeable = False
                out[node_id] = rows
        return out


#: Rewritten rows are scored from the second index until they number more than this share of the
#: first (plus COMPACT_MIN); then the postings are rebuilt from every row.
COMPACT_SHARE = 0.125
COMPACT_MIN = 2000


class KindPostings:
    """BM25 postings of the nodes of one kind (None: every node), kept current across writes (the store
    touches the rows the change log names, whoever wrote them).

    ``base`` indexes the rows read when it was built (slots in rowid order); rows written since are
    :meth:`touch`-ed, and the next :meth:`refresh` reads them again: their base slots go dead and their
    current rows (if still of this kind) make up ``delta``, a second index rebuilt from those few rows.
    Scores count documents, lengths and term frequencies over the live rows of both
    (:func:`bm25.overlay_scores`), so they equal a fresh index's.
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
