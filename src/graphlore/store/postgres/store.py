"""The scale-out backend: one namespace in its own schema of a PostgreSQL database with pgvector.

Transactions and processes
    Each pooled connection runs in autocommit, so a read outside a transaction sees
    the latest commit from any process. :meth:`PostgresStore.atomic` binds one
    pooled connection to the calling thread, opens a transaction (nested calls are
    savepoints) and takes ``pg_advisory_xact_lock`` on the namespace first; every
    write method runs inside it. So at most one ``atomic()`` block per namespace runs
    at a time across threads and processes (the protocol's guarantee, as SQLite's
    ``BEGIN IMMEDIATE`` gives it), and a wait past the busy timeout is StoreBusy.
    Reads that take several statements run in one REPEATABLE READ snapshot.

Keyword ranking
    Text is tokenised by the same code as the SQLite backend (words, case-folded,
    accents removed, Porter-stemmed; :func:`graphlore.store.terms.terms`). Each
    node keeps its lexemes as a ``tsvector`` (GIN-indexed: which nodes hold a query
    term) and its per-column term counts as ``tf`` jsonb; ``terms`` holds each
    lexeme's document frequency per kind and ``counts`` each kind's node count and
    total length, kept up to date by every write (under the namespace lock; a node
    that changes kind moves its lexemes). The score is then the SQLite backend's BM25
    (FTS5's formula, k1 = 1.2, b = 0.75, column weights on the term frequencies) with
    the searched kind's statistics (document count, average length, document
    frequencies; a search over every kind sums them over the kinds), so that writing
    nodes of one kind (chunks) changes no score of another (entities). It is
    computed in SQL, not by ``ts_rank``: ``ts_rank`` has no inverse document
    frequency and saturates term counts another way, and on SciFact it ranks
    clearly worse (bench/backends.py measures both). Scoring costs time per
    node scored, so a search matches the rarest query lexemes first and scores a
    common one only where those matched, when a bound proves the top cannot change
    (:mod:`graphlore.store.postgres.pruning`); the answer is the full computation's.

Vector ranking
    Passage vectors live in ``passages.vector`` (``vector(dim)``, fixed by the first
    vectors written) with an HNSW cosine index. When the filtered candidate set is
    small (at most :data:`EXACT_SCAN` nodes), every candidate passage is scored
    exactly; otherwise the HNSW index orders the
    passages, scanning on past the ones the filter drops (pgvector 0.8 iterative
    scans), and if it still comes back short the exact scan answers. Each index
    search sets ``hnsw.ef_search`` for its own transaction to the passages it asks
    for, with a floor (:func:`hnsw_settings`). A node scores its best passage:
    passages come nearest first, so a node's first one is its best.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any

import numpy as np
import psycopg
import psycopg_pool
from psycopg import errors as pg_errors
from psycopg.types.json import Json, Jsonb

from graphlore.errors import GraphloreError, InvalidInput, StoreBusy
from graphlore.store.base import (
    READ_BATCH,
    WRITTEN_AT,
    Edge,
    EdgeHit,
    EdgePage,
    EdgeRanking,
    EdgeRef,
    EdgeSelection,
    Hit,
    Node,
    Where,
    check_edge_ranking,
    newest_first,
    page_bound,
    paged,
)
from graphlore.store.postgres import connection, pruning, sql
from graphlore.store.postgres.connection import Database, advisory_key, translated
from graphlore.store.postgres.migrations import create_index, fix_dimension, schema_name
from graphlore.store.terms import query_terms

#: Candidate nodes (those of the kind that pass the filter) up to which a vector search scans exactly.
EXACT_SCAN = 10_000
_NODE_COLUMNS = "id, kind, name, text, props, text_hash, created_at, updated_at"
_EDGE_COLUMNS = "id, src, dst, type, props, text, vector, date"


def _guard(method: Callable) -> Callable:
    @functools.wraps(method)
    def wrapper(self: PostgresStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            raise self._error(exc) from exc
        except OverflowError as exc:  # a Python int past what PostgreSQL's integers hold
            raise InvalidInput(f"a number is too large for the store (64-bit integers at most): {exc}") from exc

    return wrapper


def _guard_public_methods(cls: type) -> type:
    """Every public method translates driver errors (``atomic`` does it itself)."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and callable(member) and name != "atomic":
            setattr(cls, name, _guard(member))
    return cls


def atomic_key(namespace: str) -> int:
    """The advisory lock every ``atomic()`` block (and creating or dropping the namespace) takes."""
    return advisory_key("atomic", namespace)


#: Sets ``hnsw_settings`` for the rest of the transaction (``SET LOCAL`` as one statement).
HNSW_SETTINGS = "SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.iterative_scan', %s, true)"


def hnsw_settings(passages: int) -> tuple[str, str]:
    """The HNSW scan settings of one index search for ``passages`` rows, for its own transaction: a
    candidate list of at least the rows asked for (below that pgvector returns fewer than asked and
    recall falls with it), and at least :data:`connection.EF_SEARCH`, below which a greedy walk through
    tightly clustered vectors too often ends in the wrong cluster (bench/backends.py ``--recall-sweep``)."""
    ef = min(max(connection.EF_SEARCH, int(passages)), connection.EF_SEARCH_MAX)
    return (str(ef), connection.ITERATIVE_SCAN)


def _sorted_json(value: Any) -> Any:
    """Objects with their keys sorted (the SQLite backend stores props with ``sort_keys``; jsonb reorders)."""
    if isinstance(value, dict):
        return {k: _sorted_json(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_json(v) for v in value]
    return value


def _matrix(vectors: np.ndarray) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    return matrix[None, :] if matrix.ndim == 1 else matrix


def _dedupe(nodes: Sequence[Node]) -> list[Node]:
    """One node per id, as writing them one after another would leave it (vectors kept when a later
    copy has none)."""
    out: dict[str, Node] = {}
    for node in nodes:
        earlier = out.pop(node.id, None)
        if earlier is not None and node.vectors is None and earlier.vectors is not None:
            node = Node(**{**node.__dict__, "vectors": earlier.vectors})
        out[node.id] = node
    return list(out.values())


@_guard_public_methods
class PostgresStore:
    """A :class:`graphlore.store.base.Store` on one namespace's schema (see the module docstring)."""

    def __init__(self, db: Database, namespace: str, namespace_id: int, *, repair: str = "") -> None:
        self._db = db
        self.namespace = namespace
        self.namespace_id = namespace_id
        self.location = f"{db.location} (namespace {namespace})"
        #: what to tell a user whose namespace is damaged
        self.repair = repair
        self._s = schema_name(namespace_id)
        self._key = atomic_key(namespace)
        self._local = threading.local()
        self._dim: int | None = None
        self._closed = False
        self._deferred = False

    def _error(self, exc: BaseException) -> GraphloreError:
        """The graphlore error for a driver error; tables gone because ``replace_store`` gave the namespace
        another schema while this store read the old one is a busy store to call again, not a damaged one."""
        if isinstance(exc, pg_errors.UndefinedTable | pg_errors.InvalidSchemaName) and self._replaced():
            return StoreBusy(f"{self.location} was replaced by a rebuild while this call read it; call again")
        return translated(exc, self.location, self.repair)

    def _replaced(self) -> bool:
        try:
            with self._db.connection() as conn:
                row = conn.execute("SELECT id FROM graphlore.namespaces WHERE name = %s", (self.namespace,)).fetchone()
        except (psycopg.Error, psycopg_pool.PoolTimeout):
            return False
        return row is not None and int(row[0]) != self.namespace_id

    def close(self) -> None:
        """Connections belong to the process's pool; a closed store refuses further use."""
        self._closed = True

    def parallel_reads(self) -> bool:
        """Outside this thread's ``atomic()`` block: each search then takes its own pooled connection."""
        return getattr(self._local, "conn", None) is None

    # -- connections and transactions ---------------------------------------------------------------

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        """This thread's ``atomic()`` connection, or a pooled one for one call."""
        if self._closed:
            raise psycopg.InterfaceError("the store is closed")
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
            return
        with self._db.connection() as conn:
            yield conn

    @contextmanager
    def _snapshot(self) -> Iterator[psycopg.Connection]:
        """Several reads that must agree: one REPEATABLE READ transaction (or the open ``atomic()`` one)."""
        if getattr(self._local, "conn", None) is not None:
            yield self._local.conn
            return
        with self._connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield conn

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction, exclusive per namespace across processes; nested calls are savepoints."""
        conn = getattr(self._local, "conn", None)
        try:
            if conn is not None:
                with conn.transaction():
                    yield
                return
            with self._connection() as conn:
                self._local.conn, self._local.wrote = conn, False
                try:
                    with conn.transaction():
                        conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._key,))
                        yield
                        if self._local.wrote:  # a block that only read records nothing, at no cost
                            conn.execute(sql.record_write_sql(self._s), (WRITTEN_AT,))
                finally:
                    self._local.conn = None
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            raise self._error(exc) from exc

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """A large load (``graphlore migrate``, benchmarks): the HNSW index is dropped for the load and built
        once at the end, much faster than updating it row by row. Searches meanwhile scan exactly; the
        build holds the namespace's write lock (reads go on). A load that fails (Ctrl-C included) builds
        nothing, so it stops at once: its caller drops the half-loaded namespace (``graphlore migrate``
        does), or builds the index when it reuses it (``bench/backends.py``)."""
        with self.atomic():
            self._write().execute(f"DROP INDEX IF EXISTS {self._s}.passages_hnsw")
        self._deferred = True
        try:
            yield
        finally:
            self._deferred = False
        with self.atomic():
            if self._dimension(self._write()) is not None:
                create_index(self._write(), self._s)

    def _write(self) -> psycopg.Connection:
        """The connection of the ``atomic()`` block the caller has just entered (a write method's: the block
        then records its last write, if it changed a row)."""
        self._local.wrote = True
        return self._local.conn

    # -- metadata -----------------------------------------------------------------------------------

    def get_meta(self, key: str) -> Any:
        with self._connection() as conn:
            row = conn.execute(f"SELECT value FROM {self._s}.meta WHERE key = %s", (key,)).fetchone()
        return None if row is None else row[0]

    def get_meta_many(self, keys: Sequence[str]) -> dict[str, Any]:
        """The values of those of ``keys`` that are set, in one statement (any number of keys)."""
        with self._connection() as conn:
            return dict(conn.execute(f"SELECT key, value FROM {self._s}.meta WHERE key = ANY(%s)",
                                     (list(dict.fromkeys(keys)),)).fetchall())

    def meta_items(self, prefix: str = "") -> dict[str, Any]:
        """Every value whose key starts with ``prefix``, in key order (a range scan of the key index)."""
        with self._connection() as conn:
            return dict(conn.execute(f"SELECT key, value FROM {self._s}.meta WHERE key >= %s AND key < %s "
                                     "ORDER BY key", (prefix, prefix + "\U0010ffff")).fetchall())

    def set_meta(self, key: str, value: Any) -> None:
        self.set_meta_many({key: value})

    def set_meta_many(self, values: Mapping[str, Any]) -> None:
        """Set every value (None deletes the key), in one transaction. ``json`` keeps the text as written
        (key order included), as the SQLite backend does."""
        gone = [k for k, v in values.items() if v is None]
        kept = {k: v for k, v in values.items() if v is not None}
        with self.atomic():
            conn = self._write()
            if gone:
                conn.execute(f"DELETE FROM {self._s}.meta WHERE key = ANY(%s)", (gone,))
            if kept:
                conn.execute(
                    f"INSERT INTO {self._s}.meta(key, value) SELECT * FROM unnest(%s::text[], %s::jsonb[]) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (list(kept), [Json(v) for v in kept.values()]),
                )

    def last_write(self) -> float | None:
        return self.get_meta(WRITTEN_AT)

    def _dimension(self, conn: psycopg.Connection) -> int | None:
        if self._dim is not None:
            return self._dim
        row = conn.execute(f"SELECT value FROM {self._s}.meta WHERE key = 'vector_dim'").fetchone()
        dim = None if row is None else int(row[0])
        if dim is not None and getattr(self._local, "conn", None) is None:
            self._dim = dim  # committed: a namespace's dimension never changes
        return dim

    # -- nodes --------------------------------------------------------------------------------------

    def upsert_nodes(self, nodes: Sequence[Node]) -> None:
        """Insert or replace nodes by id. ``vectors=None`` leaves stored vectors as they are."""
        nodes = _dedupe(nodes)
        if not nodes:
            return
        now = time.time()
        counted = [sql.term_counts(n.name, n.text) for n in nodes]
        with self.atomic():
            conn = self._write()
            dim = self._dimension(conn)
            matrices: dict[str, np.ndarray] = {}
            for node in nodes:
                if node.vectors is None:
                    continue
                matrix = _matrix(node.vectors)
                if dim is not None and matrix.shape[1] != dim:
                    raise InvalidInput(f"vector dimension {matrix.shape[1]} does not match this store's {dim}")
                dim = dim or int(matrix.shape[1])
                matrices[node.id] = matrix
            if matrices and self._dimension(conn) is None:
                self.set_meta("vector_dim", dim)
                fix_dimension(conn, self._s, dim, index=not self._deferred)
            old = {r[0]: r[1:] for r in conn.execute(
                f"""SELECT id, seq, kind, length, tsvector_to_array(lexemes),
                           (SELECT count(*) FROM {self._s}.passages p WHERE p.node_seq = n.seq)
                    FROM {self._s}.nodes n WHERE id = ANY(%s)""", ([n.id for n in nodes],))}
            # One JSON document for the whole batch: one json.dumps in C instead of a Python dumper per
            # array element (which cost ~2 ms a node).
            batch = json.dumps([
                {"ord": i, "id": n.id, "kind": n.kind, "name": n.name, "text": n.text, "props": n.props,
                 "text_hash": n.text_hash, "created_at": n.created_at or now, "updated_at": n.updated_at or now,
                 "tf": c[0], "length": c[1]}
                for i, (n, c) in enumerate(zip(nodes, counted, strict=True))])
            rows = conn.execute(
                f"""INSERT INTO {self._s}.nodes
                        (id, kind, name, text, props, text_hash, created_at, updated_at, lexemes, tf, length)
                    SELECT u.id, u.kind, u.name, u.text, u.props, u.text_hash, u.created_at, u.updated_at,
                           array_to_tsvector(ARRAY(SELECT jsonb_object_keys(u.tf))), u.tf, u.length
                    FROM jsonb_to_recordset(%s::jsonb) AS u(ord int, id text, kind text, name text, text text,
                         props jsonb, text_hash text, created_at float8, updated_at float8, tf jsonb, length int)
                    ORDER BY u.ord
                    ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, name = excluded.name,
                      text = excluded.text, props = excluded.props, text_hash = excluded.text_hash,
                      updated_at = excluded.updated_at, lexemes = excluded.lexemes, tf = excluded.tf,
                      length = excluded.length
                    RETURNING id, seq""",
                (batch,),
            ).fetchall()
            seqs = dict(rows)
            self._write_passages(conn, nodes, seqs, old, matrices)
            self._count(conn, nodes, counted, old, matrices)

    def _write_passages(self, conn: psycopg.Connection, nodes: list[Node], seqs: dict[str, int],
                        old: dict[str, tuple], matrices: dict[str, np.ndarray]) -> None:
        replaced = [seqs[i] for i in matrices if i in old]
        if replaced:
            conn.execute(f"DELETE FROM {self._s}.passages WHERE node_seq = ANY(%s)", (replaced,))
        moved = [(n.kind, seqs[n.id]) for n in nodes if n.id in old and n.id not in matrices and old[n.id][1] != n.kind]
        for kind, seq in moved:  # a node that changed kind keeps its passages, now of the new kind
            conn.execute(f"UPDATE {self._s}.passages SET kind = %s WHERE node_seq = %s", (kind, seq))
        if not matrices:
            return
        kinds = {n.id: n.kind for n in nodes}
        with conn.cursor().copy(
            f"COPY {self._s}.passages (node_seq, pos, kind, vector) FROM STDIN WITH (FORMAT BINARY)"
        ) as copy:
            copy.set_types(["int8", "int4", "text", "vector"])
            for node_id, matrix in matrices.items():
                for pos, row in enumerate(matrix):
                    copy.write_row((seqs[node_id], pos, kinds[node_id], row))

    def _count(self, conn: psycopg.Connection, nodes: list[Node], counted: list[tuple[dict[str, int], int]],
               old: dict[str, tuple], matrices: dict[str, np.ndarray]) -> None:
        """Keep the keyword statistics (document frequencies, lengths) and the per-kind counts current: a
        replaced node's lexemes leave its old kind's frequencies and join its new kind's."""
        df: Counter[tuple[str, str]] = Counter()
        per_kind: dict[str, list[int]] = {}

        def bump(kind: str, nodes_: int, passages: int, length: int) -> None:
            entry = per_kind.setdefault(kind, [0, 0, 0])
            entry[0] += nodes_
            entry[1] += passages
            entry[2] += length

        for node, (tf, length) in zip(nodes, counted, strict=True):
            before = old.get(node.id)
            passages = len(matrices[node.id]) if node.id in matrices else (before[4] if before else 0)
            if before is not None:
                _, kind, old_length, old_lexemes, old_passages = before
                df.subtract((kind, t) for t in old_lexemes)
                bump(kind, -1, -old_passages, -old_length)
            df.update((node.kind, t) for t in tf)
            bump(node.kind, 1, passages, length)
        self._apply_counts(conn, df, per_kind)

    def _apply_counts(self, conn: psycopg.Connection, df: Counter[tuple[str, str]],
                      per_kind: dict[str, list[int]]) -> None:
        """Add the changes of the document frequencies (per (kind, lexeme)) and of the per-kind counts."""
        changed = {key: d for key, d in df.items() if d}
        if changed:
            conn.execute(
                f"""INSERT INTO {self._s}.terms AS t (lexeme, kind, df)
                    SELECT * FROM unnest(%s::text[], %s::text[], %s::int[])
                    ON CONFLICT (lexeme, kind) DO UPDATE SET df = t.df + excluded.df""",
                ([t for _, t in changed], [k for k, _ in changed], list(changed.values())),
            )
            gone = [key for key, d in changed.items() if d < 0]
            if gone:
                conn.execute(
                    f"""DELETE FROM {self._s}.terms t USING unnest(%s::text[], %s::text[]) AS g(lexeme, kind)
                        WHERE t.lexeme = g.lexeme AND t.kind = g.kind AND t.df <= 0""",
                    ([t for _, t in gone], [k for k, _ in gone]),
                )
        if per_kind:
            conn.execute(
                f"""INSERT INTO {self._s}.counts AS c (kind, nodes, passages, length)
                    SELECT * FROM unnest(%s::text[], %s::int8[], %s::int8[], %s::int8[])
                    ON CONFLICT (kind) DO UPDATE SET nodes = c.nodes + excluded.nodes,
                      passages = c.passages + excluded.passages, length = c.length + excluded.length""",
                (list(per_kind), *[[v[i] for v in per_kind.values()] for i in range(3)]),
            )

    def delete_nodes(self, ids: Sequence[str]) -> int:
        """Delete nodes, their vectors, keys and terms, and every edge that touches them."""
        ids = list(dict.fromkeys(ids))
        if not ids:
            return 0
        with self.atomic():
            conn = self._write()
            rows = conn.execute(
                f"""SELECT seq, kind, length, tsvector_to_array(lexemes),
                           (SELECT count(*) FROM {self._s}.passages p WHERE p.node_seq = n.seq)
                    FROM {self._s}.nodes n WHERE id = ANY(%s)""", (ids,)).fetchall()
            conn.execute(f"DELETE FROM {self._s}.edges WHERE src = ANY(%s) OR dst = ANY(%s)", (ids, ids))
            if not rows:
                return 0
            conn.execute(f"DELETE FROM {self._s}.nodes WHERE seq = ANY(%s)", ([r[0] for r in rows],))
            df: Counter[tuple[str, str]] = Counter()
            per_kind: dict[str, list[int]] = {}
            for _, kind, length, lexemes, passages in rows:
                df.subtract((kind, t) for t in lexemes)
                entry = per_kind.setdefault(kind, [0, 0, 0])
                entry[0] -= 1
                entry[1] -= passages
                entry[2] -= length
            self._apply_counts(conn, df, per_kind)
        return len(rows)

    def get_nodes(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[Node]:
        """Nodes in the order of ``ids``; unknown ids are left out (callers compare lengths)."""
        ids = list(ids)
        if not ids:
            return []
        with self._snapshot() if with_vectors else self._connection() as conn:
            found = {r[0]: _node(r) for r in conn.execute(
                f"SELECT {_NODE_COLUMNS} FROM {self._s}.nodes WHERE id = ANY(%s)", (ids,))}
            if with_vectors and found:
                for node_id, vectors in self._vectors(conn, list(found)).items():
                    found[node_id].vectors = vectors
        return [found[i] for i in ids if i in found]

    def iter_nodes(self, kind: str | None = None, where: Where | None = None, *, with_vectors: bool = False
                   ) -> Iterator[Node]:
        """The nodes in insertion order, read :data:`~graphlore.store.base.READ_BATCH` at a time (keyset
        pages on ``seq``, each its own statement: no transaction is held open between pages)."""
        condition, params = sql.node_filter_sql(kind, where)
        after = ("AND" if condition else "WHERE") + " n.seq > %s"

        def page(last: int) -> list[tuple[int, Node]]:
            with self._errors(), self._snapshot() if with_vectors else self._connection() as conn:
                rows = conn.execute(f"SELECT n.seq, {_NODE_COLUMNS} FROM {self._s}.nodes n {condition} {after} "
                                    "ORDER BY n.seq LIMIT %s", [*params, last, READ_BATCH]).fetchall()
                nodes = {r[1]: _node(r[1:]) for r in rows}
                if with_vectors and nodes:
                    for node_id, vectors in self._vectors(conn, list(nodes)).items():
                        nodes[node_id].vectors = vectors
            return [(r[0], nodes[r[1]]) for r in rows]

        return paged(page)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            raise self._error(exc) from exc

    def count_nodes(self, kind: str | None = None, where: Where | None = None) -> int:
        with self._connection() as conn:
            if not where:  # from the per-kind counts every write keeps: no table scan
                condition, params = ("WHERE kind = %s", [kind]) if kind is not None else ("", [])
                row = conn.execute(f"SELECT coalesce(sum(nodes), 0) FROM {self._s}.counts {condition}",
                                   params).fetchone()
                return int(row[0])
            condition, params = sql.node_filter_sql(kind, where)
            return conn.execute(f"SELECT count(*) FROM {self._s}.nodes n {condition}", params).fetchone()[0]

    def node_hashes(self, kind: str | None = None) -> dict[str, str]:
        condition, params = sql.node_filter_sql(kind, None)
        with self._connection() as conn:
            return dict(conn.execute(f"SELECT n.id, n.text_hash FROM {self._s}.nodes n {condition}",
                                     params).fetchall())

    def node_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Passage vectors ``(k, dim)`` per node id (nodes without vectors are left out)."""
        with self._connection() as conn:
            return self._vectors(conn, list(ids))

    def _vectors(self, conn: psycopg.Connection, ids: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, list[np.ndarray]] = {}
        if not ids:
            return {}
        with conn.cursor(binary=True) as cur:
            cur.execute(
                f"""SELECT n.id, p.vector FROM {self._s}.passages p JOIN {self._s}.nodes n ON n.seq = p.node_seq
                    WHERE n.id = ANY(%s) ORDER BY p.node_seq, p.pos""", (ids,))
            for node_id, vector in cur:
                out.setdefault(node_id, []).append(vector.to_numpy())
        return {k: np.vstack(v) for k, v in out.items()}

    def list_node_ids(
        self, kind: str, *, order_by: str | None = None, descending: bool = False, limit: int | None = None,
        offset: int = 0, where: Where | None = None,
    ) -> list[str]:
        """Ids of one kind (passing ``where``) ordered by ``name``, a prop, or insertion (None); ties by id."""
        order = sql.order_sql(order_by, descending)
        condition, params = sql.node_filter_sql(kind, where)
        query = f"SELECT n.id FROM {self._s}.nodes n {condition} ORDER BY {order} LIMIT %s OFFSET %s"
        with self._connection() as conn:
            return [r[0] for r in conn.execute(query, (*params, None if limit is None else page_bound(limit),
                                                       page_bound(offset)))]

    def node_ids_with_prefix(self, prefix: str) -> list[str]:
        """Ids starting with ``prefix`` (a range scan of the id index, byte order), in id order."""
        with self._connection() as conn:
            return [r[0] for r in conn.execute(
                f"SELECT id FROM {self._s}.nodes WHERE id >= %s AND id < %s ORDER BY id",
                (prefix, prefix + "\U0010ffff"))]

    def nodes_with_keys(
        self, kind: str | None, groups: Sequence[Sequence[str]], *, limit: int | None = None, offset: int = 0,
    ) -> tuple[int, list[str]]:
        """(how many match, the page's ids in insertion order): see the protocol. Keys are indexed, so this
        never reads a node's props; the count and the page come from one snapshot."""
        condition, params = sql.nodes_with_keys_sql(self._s, kind, groups)
        page = None if limit is None else page_bound(limit)
        with self._snapshot() as conn:
            total = conn.execute(f"SELECT count(*) FROM {self._s}.nodes n {condition}", params).fetchone()[0]
            ids = [r[0] for r in conn.execute(
                f"SELECT n.id FROM {self._s}.nodes n {condition} ORDER BY n.seq LIMIT %s OFFSET %s",
                [*params, page, page_bound(offset)])] if page != 0 else []
        return total, ids

    # -- lookup keys --------------------------------------------------------------------------------

    def _seqs(self, conn: psycopg.Connection, ids: Sequence[str], action: str) -> dict[str, int]:
        found = dict(conn.execute(f"SELECT id, seq FROM {self._s}.nodes WHERE id = ANY(%s)", (list(ids),)).fetchall())
        for node_id in ids:
            if node_id not in found:
                raise InvalidInput(f"cannot {action} unknown node {node_id!r}")
        return found

    def set_node_keys(self, keys: Mapping[str, Sequence[str]]) -> None:
        """Replace the exact-lookup keys (normalised names, aliases...) of each given node id."""
        with self.atomic():
            conn = self._write()
            seqs = self._seqs(conn, list(keys), "set lookup keys of")
            conn.execute(f"DELETE FROM {self._s}.node_keys WHERE node_seq = ANY(%s)", (list(seqs.values()),))
            self._insert_keys(conn, keys, seqs)

    def add_node_keys(self, keys: Mapping[str, Sequence[str]]) -> None:
        """Add lookup keys to each given node id (keys it already has are kept once)."""
        with self.atomic():
            conn = self._write()
            self._insert_keys(conn, keys, self._seqs(conn, list(keys), "add lookup keys to"))

    def _insert_keys(self, conn: psycopg.Connection, keys: Mapping[str, Sequence[str]], seqs: dict[str, int]) -> None:
        pairs = [(k, seqs[node_id]) for node_id, node_keys in keys.items() for k in dict.fromkeys(node_keys)]
        if pairs:
            conn.execute(
                f"""INSERT INTO {self._s}.node_keys (key, node_seq) SELECT * FROM unnest(%s::text[], %s::int8[])
                    ON CONFLICT DO NOTHING""",
                ([p[0] for p in pairs], [p[1] for p in pairs]),
            )

    def nodes_by_keys(self, keys: Sequence[str], *, kind: str | None = None) -> dict[str, list[str]]:
        """Node ids per key (keys without a node are left out), ids in insertion order."""
        kind_sql = "AND n.kind = %s" if kind is not None else ""
        out: dict[str, list[str]] = {}
        with self._connection() as conn:
            params: list[Any] = [list(dict.fromkeys(keys))] + ([kind] if kind is not None else [])
            for key, node_id in conn.execute(
                f"""SELECT k.key, n.id FROM {self._s}.node_keys k JOIN {self._s}.nodes n ON n.seq = k.node_seq
                    WHERE k.key = ANY(%s) {kind_sql} ORDER BY n.seq""", params):
                out.setdefault(key, []).append(node_id)
        return out

    def node_keys(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """The lookup keys of each of ``ids`` that has any, sorted."""
        out: dict[str, list[str]] = {}
        with self._connection() as conn:
            for node_id, key in conn.execute(
                    f"""SELECT n.id, k.key FROM {self._s}.node_keys k JOIN {self._s}.nodes n ON n.seq = k.node_seq
                        WHERE n.id = ANY(%s) ORDER BY n.seq, k.key""", (list(dict.fromkeys(ids)),)):
                out.setdefault(node_id, []).append(key)
        return out

    def prop_counts(self, kind: str, prop: str) -> dict[Any, int]:
        """How many nodes of ``kind`` hold each value of ``prop`` (see the protocol)."""
        query, params = sql.prop_counts_sql(self._s, kind, prop)
        counts: dict[Any, int] = {}
        with self._connection() as conn:
            for value, count in conn.execute(query, params):
                counts[value] = counts.get(value, 0) + count
        return counts

    # -- ranking ------------------------------------------------------------------------------------

    def keyword_search(
        self, query: str, *, kind: str | None = None, where: Where | None = None, limit: int = 100,
        weights: tuple[float, float] = (1.0, 1.0),
    ) -> list[Hit]:
        """BM25 (the SQLite backend's formula and tokens; see the module docstring) over the filtered
        nodes that hold at least one query term; ``weights`` scale the name and text columns. Common
        terms are scored only where rarer ones matched, when that provably gives the same top
        (:mod:`graphlore.store.postgres.pruning`)."""
        sql.node_filter_sql(kind, where)  # a bad filter is an error even when no term is known
        wanted = [t for t in query_terms(query) if t]
        limit = page_bound(limit)
        if not wanted or limit <= 0:
            return []
        forced: list[str] = []
        with self._connection() as conn:
            while True:
                query_sql, params = sql.bm25_sql(self._s, kind, where, wanted, forced, weights, limit)
                lexemes, idfs, matched, ids, scores = conn.execute(query_sql, params).fetchone()
                if not lexemes:
                    return []
                idf = dict(zip(lexemes, idfs, strict=True))
                ids, scores = ids or [], scores or []
                theta = float(scores[-1]) if len(scores) >= limit else None
                if pruning.exact(idf, matched or [], theta, weights):
                    return [Hit(i, float(v)) for i, v in zip(ids, scores, strict=True)]
                forced = sorted(set(pruning.needed(idf, theta, weights)) | set(matched or []))

    def _candidates(self, conn: psycopg.Connection, kind: str | None, where: Where | None, enough: int) -> int:
        """How many nodes pass the filters: exact without ``where`` (the per-kind counts), else counted up to
        ``enough + 1`` (enough to choose between an exact scan and the index)."""
        if not where:
            condition, params = ("WHERE kind = %s", [kind]) if kind is not None else ("", [])
            return int(conn.execute(f"SELECT coalesce(sum(nodes), 0) FROM {self._s}.counts {condition}",
                                    params).fetchone()[0])
        condition, params = sql.node_filter_sql(kind, where)
        return conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM {self._s}.nodes n {condition} LIMIT %s) c",
                            [*params, enough + 1]).fetchone()[0]

    def vector_search(
        self, vector: np.ndarray, *, kind: str | None = None, where: Where | None = None, limit: int = 100,
    ) -> list[Hit]:
        """Cosine over the passages of the filtered nodes; a node scores its best passage (see the module
        docstring for when the HNSW index answers and when an exact scan does)."""
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        sql.where_sql(where)
        limit = page_bound(limit)
        with self._connection() as conn:
            dim = self._dimension(conn)
            if dim is None:
                return []
            if query.shape[0] != dim:
                raise InvalidInput(f"query vector has dimension {query.shape[0]}, the store holds {dim}")
            if limit <= 0:
                return []
            candidates = self._candidates(conn, kind, where, max(EXACT_SCAN, limit))
            limit = min(limit, max(candidates, 1))  # no more than there are (a huge limit would overflow)
            exact = candidates <= EXACT_SCAN
            hits = self._nearest(conn, query, kind, where, limit, exact)
            if not exact and len(hits) < min(limit, candidates):
                hits = self._nearest(conn, query, kind, where, limit, exact=True)  # the index gave up early
            return hits

    def _nearest(self, conn: psycopg.Connection, query: np.ndarray, kind: str | None, where: Where | None,
                 limit: int, exact: bool) -> list[Hit]:
        """Top ``limit`` nodes by best passage: nearest passages first, each node at its first (best) one;
        asks for more passages while too few distinct nodes came back and more may exist."""
        fetch = limit * 2
        while True:
            query_sql, params = sql.vector_sql(self._s, kind, where, query, fetch, exact)
            with conn.transaction() if not exact else nullcontext(), conn.cursor(binary=True) as cur:
                if not exact:  # the settings last until this transaction ends
                    conn.execute(HNSW_SETTINGS, hnsw_settings(fetch))
                rows = cur.execute(query_sql, params).fetchall()
            best: dict[str, float] = {}
            for node_id, score, _ in rows:
                best.setdefault(node_id, float(score))
            if len(best) >= limit or len(rows) < fetch:
                break
            fetch *= 4
        ranked = sorted(best.items(), key=lambda kv: -kv[1])  # stable: ties keep passage order
        return [Hit(k, v) for k, v in ranked[:limit]]

    def vector_scores(self, vector: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """Best-passage cosine of ``vector`` for each of ``ids`` that has vectors."""
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        ids = list(dict.fromkeys(ids))
        with self._connection() as conn:
            dim = self._dimension(conn)
            if dim is None or not ids:
                return {}
            if query.shape[0] != dim:
                raise InvalidInput(f"query vector has dimension {query.shape[0]}, the store holds {dim}")
            with conn.cursor(binary=True) as cur:
                rows = cur.execute(
                    f"""SELECT n.id, max(1 - (p.vector <=> %s)) FROM {self._s}.passages p
                        JOIN {self._s}.nodes n ON n.seq = p.node_seq WHERE n.id = ANY(%s) GROUP BY n.id""",
                    (query, ids)).fetchall()
        return {r[0]: float(r[1]) for r in rows}

    def vector_search_many(
        self, vectors: np.ndarray, *, kinds: str | Sequence[str | None] | None = None, limit: int = 100,
    ) -> list[list[Hit]]:
        """Top ``limit`` per query row, each restricted to its kind (one kind for all, or one per row)."""
        queries = _matrix(vectors)
        per_row = [kinds] * len(queries) if kinds is None or isinstance(kinds, str) else list(kinds)
        if len(per_row) != len(queries):
            raise InvalidInput(f"{len(per_row)} kinds for {len(queries)} query vectors")
        return [self.vector_search(q, kind=k, limit=max(1, int(limit))) for q, k in zip(queries, per_row, strict=True)]

    # -- edges --------------------------------------------------------------------------------------

    def upsert_edges(self, edges: Sequence[Edge]) -> None:
        """Insert or replace edges by id, with their text's term counts (what ``rank_edges`` scores)."""
        if not edges:
            return
        with self.atomic():
            with self._write().cursor() as cur:
                cur.executemany(
                    f"""INSERT INTO {self._s}.edges (id, src, dst, type, props, text, vector, date, tf, length)
                        VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
                        ON CONFLICT (id) DO UPDATE SET src = excluded.src, dst = excluded.dst, type = excluded.type,
                          props = excluded.props, text = excluded.text, vector = excluded.vector, date = excluded.date,
                          tf = excluded.tf, length = excluded.length""",
                    [(e.id, e.src, e.dst, e.type, Jsonb(e.props), e.text,
                      None if e.vector is None else np.asarray(e.vector, dtype=np.float32).reshape(-1), e.date,
                      Jsonb(counts), length)
                     for e, (counts, length) in ((e, sql.term_counts("", e.text)) for e in edges)],
                )

    def delete_edges(self, ids: Sequence[str]) -> int:
        with self.atomic():
            return self._write().execute(f"DELETE FROM {self._s}.edges WHERE id = ANY(%s)", (list(ids),)).rowcount

    def get_edges(self, ids: Sequence[str]) -> list[Edge]:
        """Edges in the order of ``ids`` (unknown ids left out), vectors included."""
        with self._connection() as conn, conn.cursor(binary=True) as cur:  # vectors decoded in bulk, not parsed
            found = {r[0]: _edge(r) for r in cur.execute(
                f"SELECT {_EDGE_COLUMNS} FROM {self._s}.edges WHERE id = ANY(%s)", (list(ids),))}
        return [found[i] for i in ids if i in found]

    def select_edges(
        self, node_ids: Sequence[str], *, mode: str = "around", type: str | None = None,
        date_from: str | None = None, date_to: str | None = None, limit: int | None = None,
        with_vectors: bool = False, valid_at: str | None = None,
    ) -> EdgeSelection:
        """Every edge that passes the filters is counted and ordered before ``limit`` cuts (newest first)."""
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return EdgeSelection(0, [])
        query, params = sql.select_edges_sql(self._s, ids, mode, type, date_from, date_to, valid_at)
        with self._snapshot() as conn, conn.cursor(binary=True) as cur:
            rows = cur.execute(query, params).fetchall()
            kept, first_date, last_date = newest_first(rows, limit)
            columns = "seq, id, src, dst, date" + (", vector" if with_vectors else "")
            by_seq: dict[int, EdgeRef] = {}
            if kept:
                for r in cur.execute(f"SELECT {columns} FROM {self._s}.edges WHERE seq = ANY(%s)",
                                     ([r[0] for r in kept],)):
                    vector = r[5].to_numpy() if with_vectors and r[5] is not None else None
                    by_seq[r[0]] = EdgeRef(r[1], r[2], r[3], r[4], vector)
        return EdgeSelection(
            total=len(rows),
            edges=[by_seq[r[0]] for r in kept if r[0] in by_seq],
            first_date=first_date,
            last_date=last_date,
        )

    def rank_edges(
        self, node_ids: Sequence[str], *, mode: str = "around", type: str | None = None,
        date_from: str | None = None, date_to: str | None = None, text: str | None = None,
        vector: np.ndarray | None = None, weights: tuple[float, float] = (0.3, 0.7), limit: int = 10,
        valid_at: str | None = None,
    ) -> EdgeRanking:
        """A selection ranked by ``text`` and ``vector`` in one statement: ``<=>`` on the edges' vectors and
        BM25 over their term counts, in the database (see the protocol); only the top ``limit`` comes back."""
        query = check_edge_ranking(text, vector, weights)
        ids = list(dict.fromkeys(node_ids))
        sql.check_mode(mode)
        if not ids:
            return EdgeRanking(0, [])
        lexemes = [t for t in query_terms(text) if t] if text is not None and weights[0] else None
        statement, params = sql.rank_edges_sql(
            self._s, sql.select_edges_sql(self._s, ids, mode, type, date_from, date_to, valid_at), lexemes,
            query if query is not None and weights[1] else None, weights, page_bound(limit))
        with self._connection() as conn:
            try:
                total, found, scores, cosines, keywords = conn.execute(statement, params).fetchone()
            except psycopg.DataError as exc:
                if "different vector dimensions" not in str(exc):
                    raise
                raise InvalidInput(f"query vector has dimension {query.shape[0]}, the edges hold another") from exc
        return EdgeRanking(total, [EdgeHit(i, float(sc), None if c is None else float(c), float(k))
                                   for i, sc, c, k in zip(found or [], scores or [], cosines or [], keywords or [],
                                                          strict=True)])

    def iter_edges(self, type: str | None = None) -> Iterator[Edge]:
        """Every edge (of ``type``) in the order written, vectors included, read
        :data:`~graphlore.store.base.READ_BATCH` at a time."""
        condition = "AND type = %s" if type is not None else ""

        def page(last: int) -> list[tuple[int, Edge]]:
            with self._errors(), self._connection() as conn, conn.cursor(binary=True) as cur:
                return [(r[0], _edge(r[1:])) for r in cur.execute(
                    f"SELECT seq, {_EDGE_COLUMNS} FROM {self._s}.edges WHERE seq > %s {condition} "
                    "ORDER BY seq LIMIT %s", [last, *([type] if type is not None else []), READ_BATCH])]

        return paged(page)

    def edges_of(
        self, node_ids: Sequence[str], *, direction: str = "out", types: Sequence[str] | None = None,
        limit: int | None = None, offset: int = 0,
    ) -> EdgePage:
        """Edges of a node set in one direction, counted per type, one page read (one snapshot): see the
        protocol. Vectors are not read."""
        condition, params = sql.edges_of_sql(node_ids, direction, types)
        page = None if limit is None else page_bound(limit)
        with self._snapshot() as conn:
            counts = dict(conn.execute(
                f"SELECT type, count(*) FROM {self._s}.edges {condition} GROUP BY type ORDER BY type",
                params).fetchall())
            edges = [_edge((*r[:6], None, r[6])) for r in conn.execute(
                f"SELECT id, src, dst, type, props, text, date FROM {self._s}.edges {condition} "
                "ORDER BY type, src, dst, id LIMIT %s OFFSET %s", [*params, page, page_bound(offset)])
            ] if page != 0 else []
        return EdgePage(total=sum(counts.values()), counts=counts, edges=edges)

    def edge_ids_with_prefix(self, prefix: str) -> list[str]:
        """Edge ids starting with ``prefix`` (a range scan of the id index), in id order."""
        with self._connection() as conn:
            return [r[0] for r in conn.execute(
                f"SELECT id FROM {self._s}.edges WHERE id >= %s AND id < %s ORDER BY id",
                (prefix, prefix + "\U0010ffff"))]

    def count_edges(self, type: str | None = None) -> int:
        with self._connection() as conn:
            if type is None:
                return conn.execute(f"SELECT count(*) FROM {self._s}.edges").fetchone()[0]
            return conn.execute(f"SELECT count(*) FROM {self._s}.edges WHERE type = %s", (type,)).fetchone()[0]

    def neighbour_counts(self, node_id: str, *, type: str | None = None, limit: int = 10) -> list[tuple[str, int]]:
        """The nodes sharing most edges with ``node_id`` (either direction), most first, ties by id."""
        cond = " AND type = %s" if type is not None else ""
        extra = [type] if type is not None else []
        query = (f"SELECT other, count(*) AS c FROM (SELECT dst AS other FROM {self._s}.edges WHERE src = %s{cond} "
                 f"UNION ALL SELECT src FROM {self._s}.edges WHERE dst = %s{cond}) o WHERE other != %s "
                 "GROUP BY other ORDER BY c DESC, other LIMIT %s")
        with self._connection() as conn:
            return [(r[0], r[1]) for r in conn.execute(query, [node_id, *extra, node_id, *extra, node_id,
                                                               page_bound(limit)])]

    def most_connected(
        self, kind: str, *, type: str | None = None, limit: int = 50, offset: int = 0, where: Where | None = None,
    ) -> list[tuple[str, int]]:
        """Nodes of ``kind`` (passing ``where``) with their edge count (either direction), most first, ties
        by id."""
        cond = " AND e.type = %s" if type is not None else ""
        extra = [type] if type is not None else []
        condition, params = sql.node_filter_sql(kind, where)
        query = (f"SELECT n.id, (SELECT count(*) FROM {self._s}.edges e WHERE e.src = n.id{cond}) + "
                 f"(SELECT count(*) FROM {self._s}.edges e WHERE e.dst = n.id AND e.src != n.id{cond}) AS c "
                 f"FROM {self._s}.nodes n {condition} ORDER BY c DESC, n.id LIMIT %s OFFSET %s")
        with self._connection() as conn:
            return [(r[0], r[1]) for r in conn.execute(query, [*extra, *extra, *params, page_bound(limit),
                                                               page_bound(offset)])]


def _node(row: tuple) -> Node:
    return Node(id=row[0], kind=row[1], name=row[2], text=row[3], props=_sorted_json(row[4]), text_hash=row[5],
                created_at=row[6], updated_at=row[7])


def _edge(r: tuple) -> Edge:
    vector = None if r[6] is None else r[6].to_numpy()
    return Edge(r[0], r[1], r[2], r[3], _sorted_json(r[4]), r[5], vector, r[7])

