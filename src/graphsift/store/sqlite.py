"""The embedded default backend: one SQLite file per namespace.

WAL mode and a busy timeout let several processes (every MCP client starts its
own server) share one file. Each node stores its term counts over two columns
(name, text) for BM25 (see :mod:`graphsift.store.keywords`) and float32 vectors,
one row per passage; both are searched with numpy over a per-process cache
that is rebuilt when ``PRAGMA data_version`` shows a commit (from this
connection or another).
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from graphsift import parallel
from graphsift.errors import IndexCorrupted, InvalidInput
from graphsift.store.base import Edge, EdgeRef, EdgeSelection, Hit, Node, Where
from graphsift.store.keywords import KeywordIndex, TermVector


def _keyword_terms(conn: sqlite3.Connection) -> None:
    """Migration 2: BM25 from stored term counts (numpy) instead of FTS5, whose per-row bm25() is slow."""
    conn.execute(
        """CREATE TABLE node_terms (
               node_rowid INTEGER PRIMARY KEY REFERENCES nodes(rowid) ON DELETE CASCADE,
               keys BLOB NOT NULL, name_tf BLOB NOT NULL, text_tf BLOB NOT NULL, length INTEGER NOT NULL
           )"""
    )
    for rowid, name, text in conn.execute("SELECT rowid, name, text FROM nodes").fetchall():
        conn.execute("INSERT INTO node_terms VALUES (?, ?, ?, ?, ?)", (rowid, *TermVector.of(name, text).to_row()))
    for trigger in ("nodes_ai", "nodes_ad", "nodes_au"):
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("DROP TABLE nodes_fts")


#: Numbered, append-only schema migrations (SQL scripts, or functions for what SQL cannot do);
#: ``PRAGMA user_version`` is the applied count.
MIGRATIONS: list[str | Callable[[sqlite3.Connection], None]] = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE nodes (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        name TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL DEFAULT '',
        props TEXT NOT NULL DEFAULT '{}',
        text_hash TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX nodes_kind ON nodes(kind);
    CREATE TABLE node_vectors (
        node_rowid INTEGER NOT NULL REFERENCES nodes(rowid) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (node_rowid, seq)
    ) WITHOUT ROWID;
    CREATE VIRTUAL TABLE nodes_fts USING fts5(
        name, text, content='nodes', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER nodes_ai AFTER INSERT ON nodes BEGIN
        INSERT INTO nodes_fts(rowid, name, text) VALUES (new.rowid, new.name, new.text);
    END;
    CREATE TRIGGER nodes_ad AFTER DELETE ON nodes BEGIN
        INSERT INTO nodes_fts(nodes_fts, rowid, name, text) VALUES ('delete', old.rowid, old.name, old.text);
    END;
    CREATE TRIGGER nodes_au AFTER UPDATE OF name, text ON nodes BEGIN
        INSERT INTO nodes_fts(nodes_fts, rowid, name, text) VALUES ('delete', old.rowid, old.name, old.text);
        INSERT INTO nodes_fts(rowid, name, text) VALUES (new.rowid, new.name, new.text);
    END;
    CREATE TABLE edges (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        src TEXT NOT NULL,
        dst TEXT NOT NULL,
        type TEXT NOT NULL,
        props TEXT NOT NULL DEFAULT '{}',
        text TEXT NOT NULL DEFAULT '',
        vector BLOB,
        date TEXT
    );
    CREATE INDEX edges_src ON edges(src);
    CREATE INDEX edges_dst ON edges(dst);
    CREATE INDEX edges_date ON edges(date);
    """,
    _keyword_terms,
    # 3: exact lookup keys per node (normalised names, aliases); edge indexes that answer "edges around or
    # between these nodes, of this type, in this date range" from the index alone (they replace src / dst),
    # and counts per type without reading rows (edge rows hold vectors, so a table scan is slow).
    """
    CREATE TABLE node_keys (
        key TEXT NOT NULL,
        node_rowid INTEGER NOT NULL REFERENCES nodes(rowid) ON DELETE CASCADE,
        PRIMARY KEY (key, node_rowid)
    ) WITHOUT ROWID;
    CREATE INDEX node_keys_node ON node_keys(node_rowid);
    CREATE INDEX edges_src_type_date ON edges(src, type, date, dst);
    CREATE INDEX edges_dst_type_date ON edges(dst, type, date, src);
    CREATE INDEX edges_type ON edges(type);
    DROP INDEX edges_src;
    DROP INDEX edges_dst;
    """,
]

#: Rows scored per block by ``_VectorCache.search_many``: small enough to stay in the CPU cache while
#: every query of the pass reads it (3 queries over 100k x 384 rows: ~18 ms blocked vs ~31 ms one by one).
_SCAN_BLOCK = 2048

def _where_sql(where: Where | None, alias: str = "n") -> tuple[str, list[Any]]:
    """SQL for prop filters: a scalar is equality, a list or tuple is "one of"."""
    if not where:
        return "", []
    clauses, params = [], []
    for key, value in where.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise InvalidInput(f"filter key {key!r} is not a valid property name")
        expr = f"json_extract({alias}.props, '$.{key}')"
        values = list(value) if isinstance(value, list | tuple | set | frozenset) else [value]
        if not values:
            clauses.append("0")
            continue
        values = [int(v) if isinstance(v, bool) else v for v in values]
        clauses.append(f"{expr} IN ({','.join('?' * len(values))})")
        params.extend(values)
    return " AND ".join(clauses), params


class _NodeCache:
    """What ranking needs in memory: every passage vector as one matrix, per-node columns for
    filters, and (built on first keyword search) the BM25 postings. Valid for one data version."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._keywords: KeywordIndex | None = None
        self._masks: dict[str, np.ndarray | None] = {}
        self._positions: dict[str, int] | None = None
        self._counts: dict[str | None, int] = {}
        #: (query vector bytes, best score per node) of the latest vector_search
        self.last_scores: tuple[bytes, np.ndarray] | None = None
        nodes = conn.execute("SELECT rowid, id, kind, props FROM nodes ORDER BY rowid").fetchall()
        self.node_ids = np.array([r[1] for r in nodes], dtype=object)
        self.kinds = np.array([r[2] for r in nodes], dtype=object)
        self._props_raw = [r[3] for r in nodes]
        self._props: list[dict] | None = None
        self._columns: dict[str, np.ndarray] = {}
        self._position = position = {r[0]: i for i, r in enumerate(nodes)}
        rows = conn.execute("SELECT node_rowid, vector FROM node_vectors ORDER BY node_rowid, seq").fetchall()
        if rows:
            self.matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
            owner = np.fromiter((position[r[0]] for r in rows), dtype=np.int64, count=len(rows))
            self.matrix, owner = self._group_by_kind(self.matrix, owner)
        else:
            self.matrix = np.empty((0, 0), dtype=np.float32)
            owner = np.empty(0, dtype=np.int64)
        # Rows are grouped by node (ordered by rowid), so each node's passages form one run.
        self._starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if owner.size else owner
        self._owners = owner[self._starts] if owner.size else owner
        ends = np.r_[self._starts[1:], owner.size] if owner.size else owner
        #: node id -> (first row, end row) of its passages in ``matrix``
        self.rows = {self.node_ids[o]: (int(s), int(e)) for o, s, e in zip(self._owners, self._starts, ends, strict=True)}

    def _group_by_kind(self, matrix: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of one kind made contiguous (stable, so a node's passages stay together and in order):
        a search restricted to one kind then scans a slice instead of every row."""
        codes = {k: i for i, k in enumerate(sorted(set(self.kinds.tolist())))}
        row_kind = np.fromiter((codes[k] for k in self.kinds.tolist()), dtype=np.int64, count=len(self.kinds))[owner]
        order = np.argsort(row_kind, kind="stable")
        bounds = np.searchsorted(row_kind[order], np.arange(len(codes) + 1))
        #: kind -> (first row, end row) in ``matrix``
        self.kind_rows = {k: (int(bounds[i]), int(bounds[i + 1])) for k, i in codes.items()}
        return np.ascontiguousarray(matrix[order]), owner[order]

    def search_many(self, queries: np.ndarray, kinds: Sequence[str | None], limit: int) -> list[list[tuple[int, float]]]:
        """Top ``limit`` (node position, best-passage cosine) per query row, each within its kind's rows.

        Queries of one kind share one pass over that kind's rows, block by block, so a block
        read from memory serves every query before the next is loaded.
        """
        out: list[list[tuple[int, float]]] = [[] for _ in range(len(queries))]
        if self.matrix.shape[0] == 0:
            return out
        by_kind: dict[str | None, list[int]] = {}
        for i, kind in enumerate(kinds):
            by_kind.setdefault(kind, []).append(i)
        for kind, members in by_kind.items():
            start, end = (0, self.matrix.shape[0]) if kind is None else self.kind_rows.get(kind, (0, 0))
            if end <= start:
                continue
            block = self.matrix[start:end]
            scores = np.empty((len(members), end - start), dtype=np.float32)
            for b in range(0, end - start, _SCAN_BLOCK):
                rows = block[b : b + _SCAN_BLOCK]
                for j, q in enumerate(members):
                    np.dot(rows, queries[q], out=scores[j, b : b + _SCAN_BLOCK])
            # Each node's passages are one run inside the slice: its score is the run's maximum.
            lo, hi = np.searchsorted(self._starts, [start, end])
            starts, owners = self._starts[lo:hi] - start, self._owners[lo:hi]
            one_row_each = starts.size == end - start
            for j, q in enumerate(members):
                best = scores[j] if one_row_each else np.maximum.reduceat(scores[j], starts)
                k = min(limit, best.size)
                top = np.argpartition(-best, k - 1)[:k] if k < best.size else np.arange(best.size)
                top = top[np.lexsort((owners[top], -best[top]))]
                out[q] = [(int(owners[t]), float(best[t])) for t in top]
        return out

    def count(self, kind: str | None) -> int:
        """Nodes of ``kind`` (all when None), memoised."""
        if kind not in self._counts:
            self._counts[kind] = len(self.kinds) if kind is None else int(np.count_nonzero(self.kinds == kind))
        return self._counts[kind]

    def positions(self) -> dict[str, int]:
        """node id -> its index in ``node_ids`` (built on first use)."""
        if self._positions is None:
            self._positions = {node_id: i for i, node_id in enumerate(self.node_ids.tolist())}
        return self._positions

    @property
    def has_keywords(self) -> bool:
        return self._keywords is not None

    def keywords(self, conn: sqlite3.Connection) -> KeywordIndex:
        """The BM25 postings; ``conn`` must read the snapshot this cache was built from."""
        if self._keywords is None:
            rows = conn.execute("SELECT node_rowid, keys, name_tf, text_tf, length FROM node_terms").fetchall()
            self._keywords = KeywordIndex(
                len(self.node_ids),
                [self._position[r[0]] for r in rows],
                [TermVector.from_row(*r[1:]) for r in rows],
            )
        return self._keywords

    def best_per_node(self, row_scores: np.ndarray) -> np.ndarray:
        """Each node's best passage score; -inf for nodes without vectors."""
        best = np.full(len(self.node_ids), -np.inf, dtype=np.float32)
        if row_scores.size:
            best[self._owners] = np.maximum.reduceat(row_scores, self._starts)
        return best

    def column(self, key: str) -> np.ndarray:
        if key not in self._columns:
            if self._props is None:
                self._props = [json.loads(p) for p in self._props_raw]
            values = [p.get(key) for p in self._props]
            self._columns[key] = np.array([int(v) if isinstance(v, bool) else v for v in values], dtype=object)
        return self._columns[key]

    def node_mask(self, kind: str | None, where: Where | None) -> np.ndarray | None:
        """Which nodes pass the filters (None: all); read-only, memoised per filter (searches repeat them)."""
        key = repr((kind, sorted((where or {}).items())))
        if key not in self._masks:
            mask = self._compute_mask(kind, where)
            if mask is not None:
                mask.flags.writeable = False
            self._masks[key] = mask
        return self._masks[key]

    def _compute_mask(self, kind: str | None, where: Where | None) -> np.ndarray | None:
        mask = None
        if kind is not None:
            mask = self.kinds == kind
        for key, value in (where or {}).items():
            values = list(value) if isinstance(value, list | tuple | set | frozenset) else [value]
            values = [int(v) if isinstance(v, bool) else v for v in values]
            column = self.column(key)
            hit = np.zeros(len(column), dtype=bool)
            for v in values:
                hit |= column == v
            mask = hit if mask is None else mask & hit
        return mask


class SQLiteStore:
    """A :class:`graphsift.store.base.Store` on one SQLite file."""

    def __init__(self, path: str | Path, namespace: str = "default", busy_timeout_ms: int = 30_000) -> None:
        self.path = Path(path)
        self.namespace = namespace
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._depth = 0
        self._cache: _NodeCache | None = None
        self._cache_version: int | None = None
        try:
            self._conn = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000
            )
            self._retry_locked(self._prepare, busy_timeout_ms / 1000)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise
            raise IndexCorrupted(f"{self.path} is not a readable graphsift store ({exc})") from exc

    def _prepare(self) -> None:
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.execute("PRAGMA foreign_keys = ON")
        self._migrate()

    @staticmethod
    def _retry_locked(step: Callable[[], None], timeout_s: float) -> None:
        """Run ``step`` until it stops failing with "locked". SQLite skips the busy handler in a few
        places (the switch to WAL, WAL recovery while another process closes the file), so processes
        that open a new store at the same moment would otherwise fail at once."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                return step()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    # -- transactions and schema -------------------------------------------------

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction; nested calls become savepoints. BEGIN IMMEDIATE avoids upgrade deadlocks."""
        with self._lock:
            outer = self._depth == 0
            self._conn.execute("BEGIN IMMEDIATE" if outer else f"SAVEPOINT sp{self._depth}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if outer:
                    self._conn.execute("ROLLBACK")
                else:
                    self._conn.execute(f"ROLLBACK TO sp{self._depth}")
                    self._conn.execute(f"RELEASE sp{self._depth}")
                raise
            else:
                self._depth -= 1
                self._conn.execute("COMMIT" if outer else f"RELEASE sp{self._depth}")
            finally:
                self._cache = None

    def _migrate(self) -> None:
        with self.atomic():
            applied = self._conn.execute("PRAGMA user_version").fetchone()[0]
            if applied > len(MIGRATIONS):
                raise IndexCorrupted(
                    f"{self.path} has schema version {applied}, newer than this graphsift ({len(MIGRATIONS)}); "
                    "upgrade graphsift"
                )
            for number in range(applied, len(MIGRATIONS)):
                migration = MIGRATIONS[number]
                if callable(migration):
                    migration(self._conn)
                else:
                    for statement in _statements(migration):
                        self._conn.execute(statement)
                self._conn.execute(f"PRAGMA user_version = {number + 1}")
            if self.get_meta("namespace") is None:
                self.set_meta("namespace", self.namespace)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- metadata ------------------------------------------------------------------

    def get_meta(self, key: str) -> Any:
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        with self.atomic():
            self._conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, json.dumps(value)),
            )

    # -- nodes ---------------------------------------------------------------------

    def upsert_nodes(self, nodes: Sequence[Node]) -> None:
        """Insert or replace nodes by id. ``vectors=None`` leaves stored vectors as they are."""
        now = time.time()
        with self.atomic():
            for node in nodes:
                props = json.dumps(node.props, sort_keys=True)
                row = self._conn.execute(
                    """INSERT INTO nodes(id, kind, name, text, props, text_hash, created_at, updated_at)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                       ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, name = excluded.name,
                         text = excluded.text, props = excluded.props, text_hash = excluded.text_hash,
                         updated_at = excluded.updated_at
                       RETURNING rowid""",
                    (node.id, node.kind, node.name, node.text, props, node.text_hash,
                     node.created_at or now, node.updated_at or now),
                ).fetchone()
                self._conn.execute(
                    "INSERT OR REPLACE INTO node_terms VALUES (?, ?, ?, ?, ?)",
                    (row[0], *TermVector.of(node.name, node.text).to_row()),
                )
                if node.vectors is not None:
                    self._write_vectors(row[0], node.vectors)

    def _write_vectors(self, rowid: int, vectors: np.ndarray) -> None:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim == 1:
            matrix = matrix[None, :]
        dim = self.get_meta("vector_dim")
        if dim is None:
            self.set_meta("vector_dim", int(matrix.shape[1]))
        elif dim != matrix.shape[1]:
            raise InvalidInput(f"vector dimension {matrix.shape[1]} does not match this store's {dim}")
        self._conn.execute("DELETE FROM node_vectors WHERE node_rowid = ?", (rowid,))
        self._conn.executemany(
            "INSERT INTO node_vectors(node_rowid, seq, vector) VALUES (?, ?, ?)",
            [(rowid, seq, row.tobytes()) for seq, row in enumerate(matrix)],
        )

    def delete_nodes(self, ids: Sequence[str]) -> int:
        """Delete nodes, their vectors, and every edge that touches them."""
        deleted = 0
        with self.atomic():
            for chunk in _chunks(list(ids)):
                marks = ",".join("?" * len(chunk))
                self._conn.execute(f"DELETE FROM edges WHERE src IN ({marks}) OR dst IN ({marks})", chunk + chunk)
                deleted += self._conn.execute(f"DELETE FROM nodes WHERE id IN ({marks})", chunk).rowcount
        return deleted

    def get_nodes(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[Node]:
        """Nodes in the order of ``ids``; unknown ids are left out (callers compare lengths)."""
        found: dict[str, Node] = {}
        with self._lock:
            for chunk in _chunks(list(ids)):
                marks = ",".join("?" * len(chunk))
                for row in self._conn.execute(f"SELECT {_NODE_COLUMNS} FROM nodes WHERE id IN ({marks})", chunk):
                    found[row[0]] = _node(row)
            if with_vectors and found:
                vectors = self.node_vectors(list(found))
                for node_id, node in found.items():
                    node.vectors = vectors.get(node_id)
        return [found[i] for i in ids if i in found]

    def iter_nodes(self, kind: str | None = None, where: Where | None = None) -> Iterator[Node]:
        sql, params = self._filter_sql(kind, where)
        with self._lock:
            rows = self._conn.execute(f"SELECT {_NODE_COLUMNS} FROM nodes n {sql} ORDER BY n.rowid", params).fetchall()
        return (_node(r) for r in rows)

    def node_hashes(self, kind: str | None = None) -> dict[str, str]:
        sql, params = self._filter_sql(kind, None)
        with self._lock:
            return dict(self._conn.execute(f"SELECT n.id, n.text_hash FROM nodes n {sql}", params).fetchall())

    def count_nodes(self, kind: str | None = None, where: Where | None = None) -> int:
        sql, params = self._filter_sql(kind, where)
        with self._lock:
            cache = self._cache
            # A search just ran and nothing was committed since (not even inside a transaction of ours):
            # count from its cache instead of scanning the table.
            if where is None and cache is not None and self._depth == 0 and self._version() == self._cache_version:
                return cache.count(kind)
            return self._conn.execute(f"SELECT count(*) FROM nodes n {sql}", params).fetchone()[0]

    def node_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Passage vectors ``(k, dim)`` per node id (nodes without vectors are left out)."""
        out: dict[str, list[bytes]] = {}
        with self._lock:
            for chunk in _chunks(list(ids)):
                marks = ",".join("?" * len(chunk))
                for node_id, blob in self._conn.execute(
                    f"""SELECT n.id, v.vector FROM node_vectors v JOIN nodes n ON n.rowid = v.node_rowid
                        WHERE n.id IN ({marks}) ORDER BY v.node_rowid, v.seq""",
                    chunk,
                ):
                    out.setdefault(node_id, []).append(blob)
        return {k: np.frombuffer(b"".join(v), dtype=np.float32).reshape(len(v), -1) for k, v in out.items()}

    # -- ranking -------------------------------------------------------------------

    def keyword_search(
        self,
        query: str,
        *,
        kind: str | None = None,
        where: Where | None = None,
        limit: int = 100,
        weights: tuple[float, float] = (1.0, 1.0),
    ) -> list[Hit]:
        """BM25 (FTS5's formula, see :mod:`graphsift.store.keywords`) over the filtered nodes that
        contain at least one query term; ``weights`` scale the name and text columns."""
        with self._lock:
            cache = self._ranking_cache(keywords=True)
            scores, matched = cache.keywords(self._conn).scores(query, weights)
            mask = cache.node_mask(kind, where)
            if mask is not None:
                matched &= mask
            return [Hit(cache.node_ids[i], float(scores[i])) for i in _top(scores, matched, limit)]

    def vector_search(
        self,
        vector: np.ndarray,
        *,
        kind: str | None = None,
        where: Where | None = None,
        limit: int = 100,
    ) -> list[Hit]:
        """Exact cosine over every passage of the filtered nodes; a node scores its best passage."""
        with self._lock:
            cache = self._ranking_cache()
            if cache.matrix.shape[0] == 0:
                return []
            query = np.asarray(vector, dtype=np.float32).reshape(-1)
            if query.shape[0] != cache.matrix.shape[1]:
                raise InvalidInput(
                    f"query vector has dimension {query.shape[0]}, the store holds {cache.matrix.shape[1]}"
                )
            # Scoring every row and masking after is cheaper than copying the filtered rows.
            best = cache.best_per_node(parallel.matvec(cache.matrix, query))
            cache.last_scores = (query.tobytes(), best)  # vector_scores for the same query reads these
            keep = best > -np.inf
            mask = cache.node_mask(kind, where)
            if mask is not None:
                keep &= mask
            return [Hit(cache.node_ids[i], float(best[i])) for i in _top(best, keep, limit)]

    def vector_scores(self, vector: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """Best-passage cosine of ``vector`` for each of ``ids`` that has vectors (from the cached matrix)."""
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        with self._lock:
            cache = self._ranking_cache()
            if cache.last_scores is not None and cache.last_scores[0] == query.tobytes():
                best, positions = cache.last_scores[1], cache.positions()
                found = [(node_id, best[positions[node_id]]) for node_id in ids if node_id in positions]
                return {node_id: float(score) for node_id, score in found if score > -np.inf}
            spans = [(node_id, cache.rows[node_id]) for node_id in dict.fromkeys(ids) if node_id in cache.rows]
            if not spans:
                return {}
            rows = np.concatenate([np.arange(start, end) for _, (start, end) in spans])
            scores = cache.matrix[rows] @ query
        starts = np.cumsum([0] + [end - start for _, (start, end) in spans[:-1]])
        best = np.maximum.reduceat(scores, starts)
        return {node_id: float(score) for (node_id, _), score in zip(spans, best, strict=True)}

    def _version(self) -> int:
        """Changes when any connection commits (``PRAGMA data_version``); call with ``self._lock`` held."""
        return self._conn.execute("PRAGMA data_version").fetchone()[0]

    def _ranking_cache(self, keywords: bool = False) -> _NodeCache:
        """The node cache for the current data version (call with ``self._lock`` held).

        Checking the version is one statement; a rebuild reads every row in one snapshot. A cache
        is tagged with the version read before its rows, so a commit in between only causes one
        more rebuild, and a keyword index built later under the same version matches its nodes.
        """
        version = self._version()
        cache = self._cache
        if cache is not None and version == self._cache_version and (cache.has_keywords or not keywords):
            return cache
        outer = self._depth == 0
        if outer:
            self._conn.execute("BEGIN")
        try:
            version = self._conn.execute("PRAGMA data_version").fetchone()[0]
            if self._cache is None or version != self._cache_version:
                self._cache = _NodeCache(self._conn)
                self._cache_version = version
            if keywords:
                self._cache.keywords(self._conn)
        finally:
            if outer:
                self._conn.execute("COMMIT")
        return self._cache

    # -- edges ---------------------------------------------------------------------

    def upsert_edges(self, edges: Sequence[Edge]) -> None:
        with self.atomic():
            self._conn.executemany(
                """INSERT INTO edges(id, src, dst, type, props, text, vector, date) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT(id) DO UPDATE SET src = excluded.src, dst = excluded.dst, type = excluded.type,
                     props = excluded.props, text = excluded.text, vector = excluded.vector, date = excluded.date""",
                [
                    (e.id, e.src, e.dst, e.type, json.dumps(e.props, sort_keys=True), e.text,
                     None if e.vector is None else np.asarray(e.vector, dtype=np.float32).tobytes(), e.date)
                    for e in edges
                ],
            )

    def delete_edges(self, ids: Sequence[str]) -> int:
        deleted = 0
        with self.atomic():
            for chunk in _chunks(list(ids)):
                marks = ",".join("?" * len(chunk))
                deleted += self._conn.execute(f"DELETE FROM edges WHERE id IN ({marks})", chunk).rowcount
        return deleted

    def edges_of(self, node_ids: Sequence[str], *, direction: str = "any") -> list[Edge]:
        if direction not in ("out", "in", "any"):
            raise InvalidInput(f"direction must be 'out', 'in' or 'any', got {direction!r}")
        out: list[Edge] = []
        with self._lock:
            for chunk in _chunks(list(node_ids)):
                marks = ",".join("?" * len(chunk))
                cond = {"out": f"src IN ({marks})", "in": f"dst IN ({marks})",
                        "any": f"src IN ({marks}) OR dst IN ({marks})"}[direction]
                params = chunk + chunk if direction == "any" else chunk
                for r in self._conn.execute(
                    f"SELECT id, src, dst, type, props, text, vector, date FROM edges WHERE {cond} ORDER BY rowid",
                    params,
                ):
                    vector = None if r[6] is None else np.frombuffer(r[6], dtype=np.float32)
                    out.append(Edge(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], vector, r[7]))
        return out

    # -- lookup keys (schema 3) -------------------------------------------------------

    def set_node_keys(self, keys: Mapping[str, Sequence[str]]) -> None:
        """Replace the exact-lookup keys (normalised names, aliases...) of each given node id."""
        with self.atomic():
            for node_id, node_keys in keys.items():
                row = self._conn.execute("SELECT rowid FROM nodes WHERE id = ?", (node_id,)).fetchone()
                if row is None:
                    raise InvalidInput(f"cannot set lookup keys of unknown node {node_id!r}")
                self._conn.execute("DELETE FROM node_keys WHERE node_rowid = ?", (row[0],))
                self._conn.executemany(
                    "INSERT OR IGNORE INTO node_keys(key, node_rowid) VALUES (?, ?)",
                    [(k, row[0]) for k in dict.fromkeys(node_keys)],
                )

    def add_node_keys(self, keys: Mapping[str, Sequence[str]]) -> None:
        """Add lookup keys to each given node id (keys it already has are kept once)."""
        with self.atomic():
            for node_id, node_keys in keys.items():
                row = self._conn.execute("SELECT rowid FROM nodes WHERE id = ?", (node_id,)).fetchone()
                if row is None:
                    raise InvalidInput(f"cannot add lookup keys to unknown node {node_id!r}")
                self._conn.executemany(
                    "INSERT OR IGNORE INTO node_keys(key, node_rowid) VALUES (?, ?)", [(k, row[0]) for k in node_keys]
                )

    def nodes_by_keys(self, keys: Sequence[str], *, kind: str | None = None) -> dict[str, list[str]]:
        """Node ids per key (keys without a node are left out), ids in insertion order."""
        out: dict[str, list[str]] = {}
        kind_sql = "AND n.kind = ?" if kind is not None else ""
        with self._lock:
            for chunk in _chunks(list(dict.fromkeys(keys))):
                marks = ",".join("?" * len(chunk))
                params = [*chunk, kind] if kind is not None else chunk
                for key, node_id in self._conn.execute(
                    f"""SELECT k.key, n.id FROM node_keys k JOIN nodes n ON n.rowid = k.node_rowid
                        WHERE k.key IN ({marks}) {kind_sql} ORDER BY n.rowid""",
                    params,
                ):
                    out.setdefault(key, []).append(node_id)
        return out

    def node_ids_with_prefix(self, prefix: str) -> list[str]:
        """Ids starting with ``prefix`` (a range scan of the id index), in id order."""
        with self._lock:
            return [r[0] for r in self._conn.execute(
                "SELECT id FROM nodes WHERE id >= ? AND id < ? ORDER BY id", (prefix, _prefix_end(prefix)))]

    def list_node_ids(
        self, kind: str, *, order_by: str | None = None, descending: bool = False, limit: int | None = None
    ) -> list[str]:
        """Ids of one kind ordered by ``name``, a prop key, or insertion (None); ties by id."""
        if order_by is None:
            expr = "rowid"
        elif order_by == "name":
            expr = "name COLLATE NOCASE"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", order_by):
            expr = f"json_extract(props, '$.{order_by}')"
        else:
            raise InvalidInput(f"order_by {order_by!r} is not a valid property name")
        direction = "DESC" if descending else "ASC"
        sql = f"SELECT id FROM nodes WHERE kind = ? ORDER BY {expr} {direction}, id LIMIT ?"
        with self._lock:
            return [r[0] for r in self._conn.execute(sql, (kind, -1 if limit is None else int(limit)))]

    # -- batched vector search ----------------------------------------------

    def vector_search_many(
        self, vectors: np.ndarray, *, kinds: str | Sequence[str | None] | None = None, limit: int = 100
    ) -> list[list[Hit]]:
        """Exact cosine top ``limit`` per query row, each restricted to its kind (one kind for all, or one per
        row); queries of one kind share one pass over that kind's vectors."""
        queries = np.asarray(vectors, dtype=np.float32)
        if queries.ndim == 1:
            queries = queries[None, :]
        per_row = [kinds] * len(queries) if kinds is None or isinstance(kinds, str) else list(kinds)
        if len(per_row) != len(queries):
            raise InvalidInput(f"{len(per_row)} kinds for {len(queries)} query vectors")
        with self._lock:
            cache = self._ranking_cache()
        if cache.matrix.shape[0] and queries.shape[1] != cache.matrix.shape[1]:
            raise InvalidInput(f"query vector has dimension {queries.shape[1]}, the store holds {cache.matrix.shape[1]}")
        found = cache.search_many(np.ascontiguousarray(queries), per_row, max(1, int(limit)))
        return [[Hit(cache.node_ids[pos], score) for pos, score in hits] for hits in found]

    # -- edge neighbourhoods (schema 3) ------------------------------------------------

    def select_edges_sql(
        self,
        node_ids: Sequence[str],
        mode: str,
        type: str | None,
        date_from: str | None,
        date_to: str | None,
    ) -> tuple[str, list[Any]]:
        """The index-only query for (rowid, date) of edges around (either end in ``node_ids``) or between
        (both ends in it) the nodes, of ``type``, dated within [date_from, date_to] (inclusive)."""
        if mode not in ("around", "between"):
            raise InvalidInput(f"mode must be 'around' or 'between', got {mode!r}")
        marks = ",".join("?" * len(node_ids))
        cond, extra = "", []
        if type is not None:
            cond += " AND type = ?"
            extra.append(type)
        if date_from is not None:
            cond += " AND date >= ?"
            extra.append(date_from)
        if date_to is not None:
            cond += " AND date <= ?"
            extra.append(date_to)
        ids = list(node_ids)
        if mode == "between":
            sql = f"SELECT rowid, date FROM edges WHERE src IN ({marks}) AND dst IN ({marks}){cond}"
            return sql, [*ids, *ids, *extra]
        sql = (f"SELECT rowid, date FROM edges WHERE src IN ({marks}){cond} "
               f"UNION SELECT rowid, date FROM edges WHERE dst IN ({marks}){cond}")
        return sql, [*ids, *extra, *ids, *extra]

    def select_edges(
        self,
        node_ids: Sequence[str],
        *,
        mode: str = "around",
        type: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        limit: int | None = None,
        with_vectors: bool = False,
    ) -> EdgeSelection:
        """Every edge that passes the filters is counted and ordered before ``limit`` cuts (newest first)."""
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return EdgeSelection(0, [])
        if len(ids) > 400:
            raise InvalidInput(f"select_edges takes at most 400 node ids, got {len(ids)}")
        sql, params = self.select_edges_sql(ids, mode, type, date_from, date_to)
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
            dated = [r[1] for r in rows if r[1] is not None]
            # Newest first; undated last; equal dates: the latest written first.
            rows.sort(key=lambda r: (r[1] is not None, r[1] or "", r[0]), reverse=True)
            kept = rows if limit is None else rows[: max(0, int(limit))]
            columns = "rowid, id, src, dst, date" + (", vector" if with_vectors else "")
            by_rowid: dict[int, EdgeRef] = {}
            for chunk in _chunks([r[0] for r in kept]):
                marks = ",".join("?" * len(chunk))
                for r in self._conn.execute(f"SELECT {columns} FROM edges WHERE rowid IN ({marks})", chunk):
                    vector = np.frombuffer(r[5], dtype=np.float32) if with_vectors and r[5] is not None else None
                    by_rowid[r[0]] = EdgeRef(r[1], r[2], r[3], r[4], vector)
        return EdgeSelection(
            total=len(rows),
            edges=[by_rowid[r[0]] for r in kept if r[0] in by_rowid],
            first_date=min(dated) if dated else None,
            last_date=max(dated) if dated else None,
        )

    def get_edges(self, ids: Sequence[str]) -> list[Edge]:
        """Edges in the order of ``ids`` (unknown ids left out), vectors included."""
        found: dict[str, Edge] = {}
        with self._lock:
            for chunk in _chunks(list(ids)):
                marks = ",".join("?" * len(chunk))
                for r in self._conn.execute(
                    f"SELECT id, src, dst, type, props, text, vector, date FROM edges WHERE id IN ({marks})", chunk
                ):
                    found[r[0]] = _edge(r)
        return [found[i] for i in ids if i in found]

    def edge_ids_with_prefix(self, prefix: str) -> list[str]:
        """Edge ids starting with ``prefix`` (a range scan of the id index), in id order."""
        with self._lock:
            return [r[0] for r in self._conn.execute(
                "SELECT id FROM edges WHERE id >= ? AND id < ? ORDER BY id", (prefix, _prefix_end(prefix)))]

    def count_edges(self, type: str | None = None) -> int:
        with self._lock:
            if type is None:
                return self._conn.execute("SELECT count(*) FROM edges").fetchone()[0]
            return self._conn.execute("SELECT count(*) FROM edges WHERE type = ?", (type,)).fetchone()[0]

    def neighbour_counts(self, node_id: str, *, type: str | None = None, limit: int = 10) -> list[tuple[str, int]]:
        """The nodes sharing most edges with ``node_id`` (either direction), most first, ties by id."""
        cond = " AND type = ?" if type is not None else ""
        extra = [type] if type is not None else []
        sql = (f"SELECT other, count(*) AS c FROM (SELECT dst AS other FROM edges WHERE src = ?{cond} "
               f"UNION ALL SELECT src FROM edges WHERE dst = ?{cond}) WHERE other != ? "
               "GROUP BY other ORDER BY c DESC, other LIMIT ?")
        with self._lock:
            return [(r[0], r[1]) for r in self._conn.execute(sql, [node_id, *extra, node_id, *extra, node_id, limit])]

    def most_connected(self, kind: str, *, type: str | None = None, limit: int = 50) -> list[tuple[str, int]]:
        """Nodes of ``kind`` with their edge count (either direction), most first, ties by id."""
        cond = " AND e.type = ?" if type is not None else ""
        extra = [type] if type is not None else []
        sql = (f"SELECT n.id, (SELECT count(*) FROM edges e WHERE e.src = n.id{cond}) + "
               f"(SELECT count(*) FROM edges e WHERE e.dst = n.id AND e.src != n.id{cond}) AS c "
               "FROM nodes n WHERE n.kind = ? ORDER BY c DESC, n.id LIMIT ?")
        with self._lock:
            return [(r[0], r[1]) for r in self._conn.execute(sql, [*extra, *extra, kind, limit])]

    # -- helpers -------------------------------------------------------------------

    def _filter_sql(self, kind: str | None, where: Where | None, prefix: str = "WHERE") -> tuple[str, list[Any]]:
        clauses, params = [], []
        if kind is not None:
            clauses.append("n.kind = ?")
            params.append(kind)
        where_sql, where_params = _where_sql(where)
        if where_sql:
            clauses.append(where_sql)
            params.extend(where_params)
        if not clauses:
            return "", []
        return f"{prefix} " + " AND ".join(clauses), params


_NODE_COLUMNS = "n.id, n.kind, n.name, n.text, n.props, n.text_hash, n.created_at, n.updated_at".replace("n.", "")


def _top(scores: np.ndarray, keep: np.ndarray, limit: int) -> np.ndarray:
    """Positions of the ``limit`` best scores among ``keep``, best first (ties in position order)."""
    candidates = np.flatnonzero(keep)
    if limit <= 0:
        return candidates[:0]
    if limit < candidates.size:
        candidates = candidates[np.argpartition(-scores[candidates], limit - 1)[:limit]]
    return candidates[np.argsort(-scores[candidates], kind="stable")]


def _node(row: tuple) -> Node:
    return Node(
        id=row[0], kind=row[1], name=row[2], text=row[3], props=json.loads(row[4]),
        text_hash=row[5], created_at=row[6], updated_at=row[7],
    )


def _edge(r: tuple) -> Edge:
    vector = None if r[6] is None else np.frombuffer(r[6], dtype=np.float32)
    return Edge(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], vector, r[7])


def _prefix_end(prefix: str) -> str:
    """The smallest string above every string that starts with ``prefix``."""
    return prefix + "\U0010ffff"


def _translate_errors(method):
    """A damaged file surfaces as IndexCorrupted; locks, constraints and SQL errors stay what they are."""

    @functools.wraps(method)
    def wrapper(self: SQLiteStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError | sqlite3.IntegrityError | sqlite3.ProgrammingError):
                raise
            raise IndexCorrupted(f"{self.path} is damaged ({exc})") from exc

    return wrapper


for _name in (
    "get_meta", "set_meta", "upsert_nodes", "delete_nodes", "get_nodes", "iter_nodes", "node_hashes", "count_nodes",
    "node_vectors", "keyword_search", "vector_search", "vector_scores", "upsert_edges", "delete_edges", "edges_of",
    "set_node_keys", "add_node_keys", "nodes_by_keys", "node_ids_with_prefix", "list_node_ids", "vector_search_many", "select_edges",
    "get_edges", "edge_ids_with_prefix", "count_edges", "neighbour_counts", "most_connected",
):
    setattr(SQLiteStore, _name, _translate_errors(getattr(SQLiteStore, _name)))


def _statements(script: str) -> Iterator[str]:
    """Split a migration into statements; trigger bodies hold semicolons, so ask SQLite where each ends."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            yield buffer.strip()
            buffer = ""
    if buffer.strip():
        raise ValueError(f"incomplete statement in migration: {buffer.strip()[:80]}")


def _chunks(items: list[str], size: int = 400) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
