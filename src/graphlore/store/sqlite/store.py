"""The embedded default backend: one SQLite file per namespace.

WAL mode, ``synchronous=NORMAL`` and a busy timeout let several processes (every
MCP client starts its own server) share one file; ``atomic()`` starts with
``BEGIN IMMEDIATE``, which takes the file's write lock, so at most one
``atomic()`` block per namespace runs at a time across processes (the protocol's
guarantee). Rows and keys live in SQL; ranking runs in numpy
(:mod:`graphlore.store.sqlite.engine`), from two caches: a
:class:`~graphlore.store.sqlite.engine.Snapshot` of the vectors and BM25 postings per
searched kind (:class:`~graphlore.store.sqlite.engine.KindPostings`).

The change log
    Every write transaction appends to the ``changes`` table the rowids of the nodes it
    wrote or deleted, each with what changed (:data:`VECTORS`: vectors, kind or existence;
    :data:`TERMS`: the keyword terms, kind or existence; :data:`PROPS`: the props, as a
    use counter changes them), and one row for the transaction itself. Before a ranking
    the store reads the log from the position its caches reflect (from any process:
    ``PRAGMA data_version`` says when another connection committed, and this store's own
    writes say so themselves) and hands the changed rowids to the caches, which read those
    rows again (a node whose props alone changed only has the snapshot's memoised ``where``
    filters checked again, for it alone). They are rebuilt from every row
    only when the log cannot say what changed: it was pruned past their position (it
    keeps :data:`LOG_KEEP` rows), a transaction wrote more than :data:`RESET_ROWS` nodes,
    one of this store's transactions rolled back, or a commit arrived that logged
    nothing (a writer of an older version).

Every public method translates ``sqlite3`` errors (see :func:`_translated`): a
held write lock past the busy timeout is :class:`StoreBusy`, a file that cannot be
opened or written :class:`StoreUnavailable`, a damaged one :class:`IndexCorrupted`
carrying the opener's repair hint; a number SQLite cannot hold is :class:`InvalidInput`.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from graphlore.errors import IndexCorrupted, InvalidInput, StoreBusy, StoreUnavailable
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
    fused_edge_scores,
    newest_first,
    newest_first_order,
    page_bound,
    paged,
)
from graphlore.store.migrate import UpgradeNotes, pending
from graphlore.store.sqlite import migrations, sql
from graphlore.store.sqlite.bm25 import TermVector, selection_scores
from graphlore.store.sqlite.engine import KindPostings, Snapshot

_NODE_COLUMNS = "id, kind, name, text, props, text_hash, created_at, updated_at"
_EDGE_COLUMNS = "id, src, dst, type, props, text, vector, date"
#: Ids per statement for ``IN (...)`` lists (SQLite allows 32,766 parameters; smaller chunks plan faster).
_CHUNK = 400
#: What a change log row says changed (bits): the node's vectors, kind or existence (the vector snapshot
#: reads it again), its keyword terms, kind or existence (the postings do), and its props (the snapshot's
#: memoised filters are checked again for that node alone).
VECTORS, TERMS, PROPS = 1, 2, 4
#: The ``node_rowid`` of a log row that says everything may have changed (readers rebuild their caches).
RESET = -1
#: A transaction that writes or deletes more nodes than this logs one RESET row instead of one per node.
RESET_ROWS = 20_000
#: Log rows kept (older ones are pruned by each commit): a process whose caches are further behind
#: rebuilds them.
LOG_KEEP = 50_000


def _translated(store: SQLiteStore, exc: sqlite3.Error) -> Exception:
    """The graphlore error for a ``sqlite3`` error; programming errors (ours) stay what they are."""
    text = str(exc)
    if isinstance(exc, sqlite3.IntegrityError | sqlite3.ProgrammingError | sqlite3.InterfaceError):
        return exc
    if isinstance(exc, sqlite3.OperationalError):
        if "locked" in text or "busy" in text:
            return StoreBusy(
                f"{store.location} is busy: another process held its write lock for more than "
                f"{store.busy_timeout_s:g} s ({text}); retry when it is done"
            )
        if "syntax error" in text or "no such function" in text:
            return exc
        if not ("no such table" in text or "no such column" in text or "malformed" in text):
            return StoreUnavailable(f"{store.location} cannot be used: {text}")
    return IndexCorrupted(f"{store.location} is damaged ({text})" + (f"; {store.repair}" if store.repair else ""))


@contextmanager
def _errors(store: SQLiteStore) -> Iterator[None]:
    """Driver errors raised inside the block as graphlore errors (see :func:`_translated`)."""
    try:
        yield
    except sqlite3.Error as exc:
        error = _translated(store, exc)
        if error is exc:
            raise
        raise error from exc
    except OverflowError as exc:  # a Python int past SQLite's 64-bit integers
        raise InvalidInput(f"a number is too large for the store (64-bit integers at most): {exc}") from exc


def _guard(method: Callable) -> Callable:
    @functools.wraps(method)
    def wrapper(self: SQLiteStore, *args: Any, **kwargs: Any) -> Any:
        with _errors(self):
            return method(self, *args, **kwargs)

    return wrapper


def _guard_public_methods(cls: type) -> type:
    """Every public method of the store translates driver errors: no list of names to keep up to date."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and callable(member) and name != "atomic":
            setattr(cls, name, _guard(member))
    return cls


@_guard_public_methods
class SQLiteStore:
    """A :class:`graphlore.store.base.Store` on one SQLite file."""

    def __init__(
        self, path: str | Path, namespace: str = "default", *, repair: str = "", busy_timeout_ms: int = 30_000,
        create: bool = True,
    ) -> None:
        self.path = Path(path)
        self.namespace = namespace
        self.location = str(self.path)
        #: what to tell a user whose file is damaged (the opener knows: e.g. "run index with force=true")
        self.repair = repair
        self.busy_timeout_s = busy_timeout_ms / 1000
        #: False: the file must already hold a graphlore schema (the factory makes new files whole)
        self._create = create
        self._lock = threading.RLock()
        self._depth = 0
        #: the caches: vectors, and BM25 postings per searched kind; both reflect the change log up to ``_seq``
        self._snapshot: Snapshot | None = None
        self._postings: dict[str | None, KindPostings] = {}
        self._seq = 0
        #: ``PRAGMA data_version`` when the caches were last brought up to date
        self._version: int | None = None
        #: this store committed since (its own commits do not move ``data_version``)
        self._wrote = False
        #: the SQL of every ``where`` filter the snapshot has memoised a mask of, by its key
        self._filters: dict[object, tuple[str, list[Any]]] = {}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(f"cannot create {self.path.parent}: {exc.strerror or exc}") from exc
        try:
            self._conn = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=self.busy_timeout_s
            )
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"cannot open {self.path}: {exc}") from exc
        try:
            self._retry_locked(self._prepare)
        except BaseException as exc:
            self._conn.close()
            if not isinstance(exc, sqlite3.Error):
                raise
            if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
                raise IndexCorrupted(f"{self.path} is not a readable graphlore store ({exc})"
                                     + (f"; {repair}" if repair else "")) from exc
            error = _translated(self, exc)
            raise error from exc

    def _prepare(self) -> None:
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.execute("PRAGMA foreign_keys = ON")
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0 and not self._create:
            raise IndexCorrupted(f"{self.path} is not a graphlore store (it has no schema)"
                                 + (f"; {self.repair}" if self.repair else ""))
        current = version == len(migrations.MIGRATIONS)
        if current and self.get_meta("namespace") is not None:
            return  # nothing to write: opening never waits for another process's write lock
        with self.atomic():
            applied = self._conn.execute("PRAGMA user_version").fetchone()[0]
            notes = UpgradeNotes(str(self.path), applied, len(migrations.MIGRATIONS))
            try:
                for number, step in pending(applied, migrations.MIGRATIONS, str(self.path)):
                    migrations.apply(self._conn, step, notes)
                    self._conn.execute(f"PRAGMA user_version = {number}")
            except sqlite3.Error as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    raise  # retried by the opener
                raise self._upgrade_failed(applied, exc) from exc
            if self.get_meta("namespace") is None:
                self.set_meta("namespace", self.namespace)
        notes.finished()

    def _upgrade_failed(self, applied: int, exc: sqlite3.Error) -> Exception:
        """A schema upgrade that failed, said as one (not as a damaged file unless SQLite says it is): the
        upgrade is one transaction, so the file is as it was."""
        kind = type(_translated(self, exc))
        if kind not in (StoreUnavailable, IndexCorrupted):
            kind = StoreUnavailable
        return kind(f"{self.path}: upgrading its schema from version {applied} to {len(migrations.MIGRATIONS)} "
                    f"failed ({exc}); nothing was changed (the upgrade is one transaction)"
                    + (f"; {self.repair}" if kind is IndexCorrupted and self.repair else ""))

    def _retry_locked(self, step: Callable[[], None]) -> None:
        """Run ``step`` until it stops failing with "locked". SQLite skips the busy handler in a few
        places (the switch to WAL, WAL recovery while another process closes the file), so processes
        that open a new store at the same moment would otherwise fail at once."""
        deadline = time.monotonic() + self.busy_timeout_s
        while True:
            try:
                return step()
            except (sqlite3.OperationalError, StoreBusy) as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def close(self) -> None:
        with self._lock:
            self._drop_caches()
            self._conn.close()

    def parallel_reads(self) -> bool:
        """Never: searches run in this process on one connection (and mostly hold the GIL)."""
        return False

    def replace_contents(self, source: SQLiteStore) -> None:
        """Make this file hold ``source``'s contents, in one write transaction (SQLite's online backup):
        readers, in any process, see the old contents or the new, never a mix. The copy's change log is one
        reset row, so every reader's caches are rebuilt (see the module docstring)."""
        with self._lock, source._lock:
            with source.atomic():
                source._conn.execute("DELETE FROM changes")
                source._conn.execute("INSERT INTO changes(node_rowid, what) VALUES (?, ?)",
                                     (RESET, VECTORS | TERMS | PROPS))
                source.set_meta("namespace", self.namespace)
            source._conn.backup(self._conn)
            self._drop_caches()
            self._wrote = True
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    # -- transactions and locks ---------------------------------------------------------------------

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction; nested calls become savepoints. BEGIN IMMEDIATE takes the write lock up front
        (no upgrade deadlock between two readers that both want to write)."""
        with self._lock:
            outer = self._depth == 0
            self._execute_translated("BEGIN IMMEDIATE" if outer else f"SAVEPOINT sp{self._depth}")
            changes = self._conn.total_changes
            self._depth += 1
            try:
                yield
                if outer and self._conn.total_changes != changes:  # rows changed: record when, and log it
                    self._execute_translated(sql.SET_META, (WRITTEN_AT, json.dumps(time.time())))
                    seq = self._conn.execute("INSERT INTO changes(node_rowid, what) VALUES (NULL, 0)").lastrowid
                    self._conn.execute("DELETE FROM changes WHERE seq <= ?", (seq - LOG_KEEP,))
            except BaseException:
                self._depth -= 1
                if not self._conn.in_transaction:
                    pass   # SQLite rolled the whole transaction back itself (an interrupted or full write)
                elif outer:
                    self._conn.execute("ROLLBACK")
                else:
                    self._conn.execute(f"ROLLBACK TO sp{self._depth}")
                    self._conn.execute(f"RELEASE sp{self._depth}")
                self._drop_caches()  # they may have read rows this rollback undoes
                raise
            else:
                self._depth -= 1
                self._execute_translated("COMMIT" if outer else f"RELEASE sp{self._depth}")
                self._wrote = True

    def _execute_translated(self, statement: str, params: Sequence[Any] = ()) -> None:
        try:
            self._conn.execute(statement, params)
        except sqlite3.Error as exc:
            error = _translated(self, exc)
            if error is exc:
                raise
            raise error from exc

    # -- metadata -----------------------------------------------------------------------------------

    def get_meta(self, key: str) -> Any:
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def get_meta_many(self, keys: Sequence[str]) -> dict[str, Any]:
        """The values of those of ``keys`` that are set, in one statement (any number of keys)."""
        with self._lock:
            rows = self._conn.execute("SELECT key, value FROM meta WHERE key IN (SELECT value FROM json_each(?))",
                                      (json.dumps(list(dict.fromkeys(keys))),)).fetchall()
        return {key: json.loads(value) for key, value in rows}

    def meta_items(self, prefix: str = "") -> dict[str, Any]:
        """Every value whose key starts with ``prefix``, in key order (a range scan of the key index)."""
        with self._lock:
            rows = self._conn.execute("SELECT key, value FROM meta WHERE key >= ? AND key < ? ORDER BY key",
                                      (prefix, prefix + "\U0010ffff")).fetchall()
        return {key: json.loads(value) for key, value in rows}

    def set_meta(self, key: str, value: Any) -> None:
        self.set_meta_many({key: value})

    def set_meta_many(self, values: Mapping[str, Any]) -> None:
        """Set every value (None deletes the key), in one transaction."""
        with self.atomic():
            self._conn.executemany("DELETE FROM meta WHERE key = ?", [(k,) for k, v in values.items() if v is None])
            self._conn.executemany(sql.SET_META, [(k, json.dumps(v)) for k, v in values.items() if v is not None])

    def last_write(self) -> float | None:
        return self.get_meta(WRITTEN_AT)

    # -- nodes --------------------------------------------------------------------------------------

    def upsert_nodes(self, nodes: Sequence[Node]) -> None:
        """Insert or replace nodes by id. ``vectors=None`` leaves stored vectors as they are."""
        now = time.time()
        with self.atomic():
            dim = self.get_meta("vector_dim") if any(n.vectors is not None for n in nodes) else None  # props-only: unread
            before: dict[str, tuple[str, str, str, str]] = {}  # id -> (kind, name, text, props) as stored
            for chunk in _chunks(list(dict.fromkeys(n.id for n in nodes))):
                marks = ",".join("?" * len(chunk))
                before.update((r[0], r[1:]) for r in self._conn.execute(
                    f"SELECT id, kind, name, text, props FROM nodes WHERE id IN ({marks})", chunk))
            changed: dict[int, int] = {}
            for node in nodes:
                props = json.dumps(node.props, sort_keys=True)
                row = self._conn.execute(
                    """INSERT INTO nodes(id, kind, name, text, props, text_hash, created_at, updated_at)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                       ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, name = excluded.name,
                         text = excluded.text, props = excluded.props, text_hash = excluded.text_hash,
                         updated_at = excluded.updated_at
                       RETURNING rowid""",
                    (node.id, node.kind, node.name, node.text, props, node.text_hash, node.created_at or now,
                     node.updated_at or now),
                ).fetchone()
                old = before.get(node.id)
                what = VECTORS | TERMS | PROPS if old is None or old[0] != node.kind else 0
                if old is not None and old[3] != props:
                    what |= PROPS
                if old is None or (old[1], old[2]) != (node.name, node.text):
                    self._conn.execute(
                        "INSERT OR REPLACE INTO node_terms VALUES (?, ?, ?, ?, ?)",
                        (row[0], *TermVector.of(node.name, node.text).to_row()),
                    )
                    what |= TERMS
                before[node.id] = (node.kind, node.name, node.text, props)
                if node.vectors is not None:
                    dim = self._write_vectors(row[0], node.vectors, dim)
                    what |= VECTORS
                if what:
                    changed[row[0]] = changed.get(row[0], 0) | what
            self._log(changed)

    def _write_vectors(self, rowid: int, vectors: np.ndarray, dim: int | None) -> int:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim == 1:
            matrix = matrix[None, :]
        if dim is None:
            dim = int(matrix.shape[1])
            self.set_meta("vector_dim", dim)
        elif dim != matrix.shape[1]:
            raise InvalidInput(f"vector dimension {matrix.shape[1]} does not match this store's {dim}")
        self._conn.execute("DELETE FROM node_vectors WHERE node_rowid = ?", (rowid,))
        self._conn.executemany(
            "INSERT INTO node_vectors(node_rowid, seq, vector) VALUES (?, ?, ?)",
            [(rowid, seq, row.tobytes()) for seq, row in enumerate(matrix)],
        )
        return dim

    def delete_nodes(self, ids: Sequence[str]) -> int:
        """Delete nodes, their vectors, keys and terms, and every edge that touches them."""
        deleted = 0
        with self.atomic():
            for chunk in _chunks(ids):
                marks = ",".join("?" * len(chunk))
                self._conn.execute(f"DELETE FROM edges WHERE src IN ({marks}) OR dst IN ({marks})", chunk + chunk)
                rowids = [r[0] for r in self._conn.execute(f"DELETE FROM nodes WHERE id IN ({marks}) RETURNING rowid",
                                                            chunk).fetchall()]
                self._log(dict.fromkeys(rowids, VECTORS | TERMS | PROPS))
                deleted += len(rowids)
        return deleted

    def _log(self, changed: Mapping[int, int]) -> None:
        """Append what changed of which nodes to the change log (see the module docstring)."""
        if len(changed) > RESET_ROWS:
            self._conn.execute("INSERT INTO changes(node_rowid, what) VALUES (?, ?)", (RESET, VECTORS | TERMS | PROPS))
        elif changed:
            self._conn.executemany("INSERT INTO changes(node_rowid, what) VALUES (?, ?)", list(changed.items()))

    def get_nodes(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[Node]:
        """Nodes in the order of ``ids``; unknown ids are left out (callers compare lengths)."""
        found: dict[str, Node] = {}
        with self._lock:
            for chunk in _chunks(ids):
                marks = ",".join("?" * len(chunk))
                for row in self._conn.execute(f"SELECT {_NODE_COLUMNS} FROM nodes WHERE id IN ({marks})", chunk):
                    found[row[0]] = _node(row)
            if with_vectors and found:
                for node_id, vectors in self.node_vectors(list(found)).items():
                    found[node_id].vectors = vectors
        return [found[i] for i in ids if i in found]

    def iter_nodes(self, kind: str | None = None, where: Where | None = None, *, with_vectors: bool = False
                   ) -> Iterator[Node]:
        """The nodes in insertion order, read :data:`~graphlore.store.base.READ_BATCH` at a time (a node
        written meanwhile past the last one read is listed too)."""
        condition, params = sql.node_filter_sql(kind, where)
        after = ("AND" if condition else "WHERE") + " n.rowid > ?"

        def page(last: int) -> list[tuple[int, Node]]:
            with _errors(self), self._lock:
                rows = self._conn.execute(f"SELECT n.rowid, {_NODE_COLUMNS} FROM nodes n {condition} {after} "
                                          "ORDER BY n.rowid LIMIT ?", [*params, last, READ_BATCH]).fetchall()
                nodes = {r[1]: _node(r[1:]) for r in rows}
                if with_vectors and nodes:
                    for node_id, vectors in self.node_vectors(list(nodes)).items():
                        nodes[node_id].vectors = vectors
            return [(r[0], nodes[r[1]]) for r in rows]

        return paged(page)

    def count_nodes(self, kind: str | None = None, where: Where | None = None) -> int:
        condition, params = sql.node_filter_sql(kind, where)
        with self._lock:
            return self._conn.execute(f"SELECT count(*) FROM nodes n {condition}", params).fetchone()[0]

    def node_hashes(self, kind: str | None = None) -> dict[str, str]:
        condition, params = sql.node_filter_sql(kind, None)
        with self._lock:
            return dict(self._conn.execute(f"SELECT n.id, n.text_hash FROM nodes n {condition}", params).fetchall())

    def node_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Passage vectors ``(k, dim)`` per node id (nodes without vectors are left out), read-only. Once a
        search has loaded the vector snapshot, they come from it, brought up to date with the file as a
        search's are (the same rows: a skills search read its 5 candidates' few hundred vectors from the
        file again, ~0.2 ms at 10k skills); inside a write transaction, whose rows the snapshot does not
        hold yet, from the file."""
        out: dict[str, list[bytes]] = {}
        with self._lock:
            if self._snapshot is not None and not self._depth:
                with self._read_transaction():
                    self._sync()
                    snapshot = self._snapshot
                if snapshot is not None:
                    return snapshot.vectors_of(ids)
            for chunk in _chunks(ids):
                marks = ",".join("?" * len(chunk))
                for node_id, blob in self._conn.execute(
                    f"""SELECT n.id, v.vector FROM node_vectors v JOIN nodes n ON n.rowid = v.node_rowid
                        WHERE n.id IN ({marks}) ORDER BY v.node_rowid, v.seq""",
                    chunk,
                ):
                    out.setdefault(node_id, []).append(blob)
        return {k: np.frombuffer(b"".join(v), dtype=np.float32).reshape(len(v), -1) for k, v in out.items()}

    def list_node_ids(
        self, kind: str, *, order_by: str | None = None, descending: bool = False, limit: int | None = None,
        offset: int = 0, where: Where | None = None,
    ) -> list[str]:
        """Ids of one kind (passing ``where``) ordered by ``name``, a prop, or insertion (None); ties by id."""
        expr = sql.order_expression(order_by)
        direction = "DESC" if descending else "ASC"
        condition, params = sql.node_filter_sql(kind, where)
        query = f"SELECT n.id FROM nodes n {condition} ORDER BY {expr} {direction}, n.id LIMIT ? OFFSET ?"
        with self._lock:
            return [r[0] for r in self._conn.execute(query, (*params, -1 if limit is None else page_bound(limit),
                                                             page_bound(offset)))]

    def node_ids_with_prefix(self, prefix: str) -> list[str]:
        """Ids starting with ``prefix`` (a range scan of the id index), in id order."""
        return self._ids_with_prefix("nodes", prefix)

    def _ids_with_prefix(self, table: str, prefix: str) -> list[str]:
        with self._lock:
            return [r[0] for r in self._conn.execute(
                f"SELECT id FROM {table} WHERE id >= ? AND id < ? ORDER BY id", (prefix, prefix + "\U0010ffff"))]

    def nodes_with_keys(
        self, kind: str | None, groups: Sequence[Sequence[str]], *, limit: int | None = None, offset: int = 0,
    ) -> tuple[int, list[str]]:
        """(how many match, the page's ids in insertion order): see the protocol. Keys are indexed, so this
        never reads a node's props."""
        condition, params = sql.nodes_with_keys_sql(kind, groups)
        page = -1 if limit is None else page_bound(limit)
        with self._lock, self._read_transaction():
            total = self._conn.execute(f"SELECT count(*) FROM nodes n {condition}", params).fetchone()[0]
            ids = [r[0] for r in self._conn.execute(
                f"SELECT n.id FROM nodes n {condition} ORDER BY n.rowid LIMIT ? OFFSET ?",
                [*params, page, page_bound(offset)])] if page else []
        return total, ids

    # -- lookup keys --------------------------------------------------------------------------------

    def set_node_keys(self, keys: Mapping[str, Sequence[str]]) -> None:
        """Replace the exact-lookup keys (normalised names, aliases...) of each given node id."""
        with self.atomic():
            rowids = self._rowids(list(keys), "set lookup keys of")
            self._conn.executemany("DELETE FROM node_keys WHERE node_rowid = ?", [(r,) for r in rowids.values()])
            self._conn.executemany("INSERT OR IGNORE INTO node_keys(key, node_rowid) VALUES (?, ?)",
                                   [(k, rowids[node_id]) for node_id, node_keys in keys.items()
                                    for k in dict.fromkeys(node_keys)])

    def _rowids(self, ids: list[str], action: str) -> dict[str, int]:
        """Row ids of ``ids`` (all of them, or :class:`InvalidInput` naming the first unknown one)."""
        found: dict[str, int] = {}
        for chunk in _chunks(ids):
            marks = ",".join("?" * len(chunk))
            found.update(self._conn.execute(f"SELECT id, rowid FROM nodes WHERE id IN ({marks})", chunk).fetchall())
        missing = [i for i in ids if i not in found]
        if missing:
            raise InvalidInput(f"cannot {action} unknown node {missing[0]!r}")
        return found

    def add_node_keys(self, keys: Mapping[str, Sequence[str]]) -> None:
        """Add lookup keys to each given node id (keys it already has are kept once)."""
        with self.atomic():
            for node_id, node_keys in keys.items():
                rowid = self._rowid(node_id, "add lookup keys to")
                self._conn.executemany("INSERT OR IGNORE INTO node_keys(key, node_rowid) VALUES (?, ?)",
                                       [(k, rowid) for k in node_keys])

    def _rowid(self, node_id: str, action: str) -> int:
        row = self._conn.execute("SELECT rowid FROM nodes WHERE id = ?", (node_id,)).fetchone()
        if row is None:
            raise InvalidInput(f"cannot {action} unknown node {node_id!r}")
        return row[0]

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

    def node_keys(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """The lookup keys of each of ``ids`` that has any, sorted."""
        out: dict[str, list[str]] = {}
        with self._lock:
            for chunk in _chunks(list(dict.fromkeys(ids))):
                marks = ",".join("?" * len(chunk))
                for node_id, key in self._conn.execute(
                        f"SELECT n.id, k.key FROM node_keys k JOIN nodes n ON n.rowid = k.node_rowid "
                        f"WHERE n.id IN ({marks}) ORDER BY n.rowid, k.key", chunk):
                    out.setdefault(node_id, []).append(key)
        return out

    def prop_counts(self, kind: str, prop: str) -> dict[Any, int]:
        """How many nodes of ``kind`` hold each value of ``prop`` (see the protocol)."""
        query, params = sql.prop_counts_sql(kind, prop)
        counts: dict[Any, int] = {}
        with self._lock:
            for value, json_type, count in self._conn.execute(query, params):
                key = sql.prop_value(value, json_type)
                counts[key] = counts.get(key, 0) + count
        return counts

    # -- ranking ------------------------------------------------------------------------------------

    @contextmanager
    def _read_transaction(self) -> Iterator[None]:
        """Reads that must see one snapshot; inside ``atomic()`` the open transaction already is one."""
        if self._depth:
            yield
            return
        self._conn.execute("BEGIN")
        try:
            yield
        finally:
            self._conn.execute("COMMIT")

    def _drop_caches(self) -> None:
        self._snapshot = None
        self._postings = {}
        self._version = None

    def _sync(self) -> None:
        """Bring the caches up to date with the change log (call with the lock held, inside a read
        transaction; see the module docstring)."""
        version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        if version == self._version and not self._wrote:
            return
        first, last = self._conn.execute(
            "SELECT (SELECT min(seq) FROM changes), (SELECT max(seq) FROM changes)").fetchone()
        last = last or 0
        moved, self._version, self._wrote = version != self._version, version, False
        if self._snapshot is None and not self._postings:
            self._seq = last
            return
        if last == self._seq and not moved:
            return
        # Another connection committed without logging (last == seq), the log moved back (a rollback or
        # another file) or was pruned past our position: what changed is unknown.
        known = self._seq < last and first is not None and first <= self._seq + 1
        rows = self._conn.execute("SELECT node_rowid, what FROM changes WHERE seq > ? AND node_rowid IS NOT NULL",
                                  (self._seq,)).fetchall() if known else []
        self._seq = last
        if not known or any(rowid == RESET for rowid, _ in rows):
            self._drop_caches()
            self._version = version
            return
        snapshot = self._snapshot
        if snapshot is not None:  # read again the nodes whose vectors changed, check filters on props changed
            self._snapshot = snapshot.updated(self._conn, [r for r, what in rows if what & VECTORS])
            props = [r for r, what in rows if what & PROPS]
            if self._snapshot is snapshot and props:
                self._snapshot = snapshot.rechecked(props, lambda key: self._passing(key, props))
        for postings in self._postings.values():
            postings.touch(r for r, what in rows if what & TERMS)

    def _passing(self, where_key: object, rowids: Sequence[int]) -> list[int]:
        """Those of ``rowids`` that pass the filter memoised as ``where_key`` (see :meth:`_vectors`)."""
        condition, params = self._filters[where_key]
        out: list[int] = []
        for start in range(0, len(rowids), _CHUNK):
            chunk = list(rowids[start : start + _CHUNK])
            out += [r[0] for r in self._conn.execute(
                f"SELECT n.rowid FROM nodes n {condition} AND n.rowid IN ({','.join('?' * len(chunk))})",
                [*params, *chunk])]
        return out

    def _vectors(self, kind: str | None = None, where: Where | None = None
                 ) -> tuple[Snapshot, tuple[np.ndarray | None, np.ndarray | None]]:
        """The current vector snapshot and the masks of ``kind`` and ``where`` over it, read in one snapshot
        of the file. The snapshot never changes afterwards, so the caller ranks without the lock."""
        with self._lock, self._read_transaction():
            self._sync()
            if self._snapshot is None:
                self._snapshot = Snapshot.read(self._conn)
            snapshot = self._snapshot
            if not where:
                return snapshot, snapshot.masks(kind, None, None)
            condition, params = sql.node_filter_sql(kind, where)
            key = repr((kind, sorted(where.items(), key=lambda kv: kv[0])))
            self._filters[key] = (condition, params)
            return snapshot, snapshot.masks(kind, key, lambda: [r[0] for r in self._conn.execute(
                f"SELECT n.rowid FROM nodes n {condition}", params)])

    def keyword_search(
        self, query: str, *, kind: str | None = None, where: Where | None = None, limit: int = 100,
        weights: tuple[float, float] = (1.0, 1.0),
    ) -> list[Hit]:
        """BM25 (FTS5's formula, see :mod:`graphlore.store.sqlite.bm25`) over the filtered nodes that
        contain at least one query term; ``weights`` scale the name and text columns. Document counts,
        lengths and term frequencies are those of the nodes of ``kind`` (every node when None): a
        search among entities is not skewed by the words of chunks, and never reads their postings."""
        with self._lock, self._read_transaction():
            self._sync()
            postings = self._postings.get(kind)
            postings = KindPostings(self._conn, kind) if postings is None else postings.refresh(self._conn)
            self._postings[kind] = postings
            allowed = None
            if where:
                condition, params = sql.node_filter_sql(kind, where)
                allowed = np.fromiter((r[0] for r in self._conn.execute(f"SELECT n.rowid FROM nodes n {condition}",
                                                                        params)), dtype=np.int64)
            found = postings.top(query, weights, allowed, page_bound(limit))
        return [Hit(node_id, score) for node_id, score in found]

    def vector_search(
        self, vector: np.ndarray, *, kind: str | None = None, where: Where | None = None, limit: int = 100,
    ) -> list[Hit]:
        """Cosine over every passage of the filtered nodes; a node scores its best passage. Scores are exact;
        past 20k rows the top is the sketch's shortlist rescored (:mod:`~graphlore.store.sqlite.engine`)."""
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        snapshot, masks = self._vectors(kind, where)
        self._check_dim(snapshot, query.shape[0])
        [found] = snapshot.search_many(query[None, :], [kind], page_bound(limit), masks)
        return [Hit(node_id, score) for node_id, score in found]

    def vector_scores(self, vector: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """Best-passage cosine of ``vector`` for each of ``ids`` that has vectors."""
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        snapshot, _ = self._vectors()
        self._check_dim(snapshot, query.shape[0])
        return snapshot.scores_for(query, ids)

    def vector_search_many(
        self, vectors: np.ndarray, *, kinds: str | Sequence[str | None] | None = None, limit: int = 100,
    ) -> list[list[Hit]]:
        """Cosine top ``limit`` (as :meth:`vector_search`) per query row, each restricted to its kind (one kind for all, or one per
        row); queries of one kind share one pass over that kind's vectors."""
        queries = np.asarray(vectors, dtype=np.float32)
        if queries.ndim == 1:
            queries = queries[None, :]
        per_row = [kinds] * len(queries) if kinds is None or isinstance(kinds, str) else list(kinds)
        if len(per_row) != len(queries):
            raise InvalidInput(f"{len(per_row)} kinds for {len(queries)} query vectors")
        snapshot, _ = self._vectors()
        self._check_dim(snapshot, queries.shape[1])
        found = snapshot.search_many(np.ascontiguousarray(queries), per_row, max(1, page_bound(limit)))
        return [[Hit(node_id, score) for node_id, score in hits] for hits in found]

    @staticmethod
    def _check_dim(snapshot: Snapshot, dim: int) -> None:
        if snapshot.dim and dim != snapshot.dim:
            raise InvalidInput(f"query vector has dimension {dim}, the store holds {snapshot.dim}")

    # -- edges --------------------------------------------------------------------------------------

    def upsert_edges(self, edges: Sequence[Edge]) -> None:
        """Insert or replace edges by id, with the term counts of their text (what ``rank_edges`` scores)."""
        with self.atomic():
            for e in edges:
                [rowid] = self._conn.execute(
                    """INSERT INTO edges(id, src, dst, type, props, text, vector, date) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                       ON CONFLICT(id) DO UPDATE SET src = excluded.src, dst = excluded.dst, type = excluded.type,
                         props = excluded.props, text = excluded.text, vector = excluded.vector, date = excluded.date
                       RETURNING rowid""",
                    (e.id, e.src, e.dst, e.type, json.dumps(e.props, sort_keys=True), e.text,
                     None if e.vector is None else np.asarray(e.vector, dtype=np.float32).tobytes(), e.date),
                ).fetchone()
                terms = TermVector.of("", e.text)
                self._conn.execute("INSERT OR REPLACE INTO edge_terms VALUES (?, ?, ?, ?)",
                                   (rowid, terms.keys.tobytes(), terms.text_tf.tobytes(), terms.length))

    def delete_edges(self, ids: Sequence[str]) -> int:
        deleted = 0
        with self.atomic():
            for chunk in _chunks(ids):
                marks = ",".join("?" * len(chunk))
                deleted += self._conn.execute(f"DELETE FROM edges WHERE id IN ({marks})", chunk).rowcount
        return deleted

    def get_edges(self, ids: Sequence[str]) -> list[Edge]:
        """Edges in the order of ``ids`` (unknown ids left out), vectors included."""
        found: dict[str, Edge] = {}
        with self._lock:
            for chunk in _chunks(ids):
                marks = ",".join("?" * len(chunk))
                for r in self._conn.execute(f"SELECT {_EDGE_COLUMNS} FROM edges WHERE id IN ({marks})", chunk):
                    found[r[0]] = _edge(r)
        return [found[i] for i in ids if i in found]

    def iter_edges(self, type: str | None = None) -> Iterator[Edge]:
        """Every edge (of ``type``) in the order written, vectors included, read
        :data:`~graphlore.store.base.READ_BATCH` at a time."""
        condition = "AND type = ?" if type is not None else ""

        def page(last: int) -> list[tuple[int, Edge]]:
            with _errors(self), self._lock:
                return [(r[0], _edge(r[1:])) for r in self._conn.execute(
                    f"SELECT rowid, {_EDGE_COLUMNS} FROM edges WHERE rowid > ? {condition} ORDER BY rowid LIMIT ?",
                    [last, *([type] if type is not None else []), READ_BATCH])]

        return paged(page)

    def _selection(self, node_ids: Sequence[str], mode: str, type: str | None, date_from: str | None,
                   date_to: str | None, valid_at: str | None = None) -> list[tuple[int, str | None]]:
        """(rowid, date) of every edge of a selection (see ``select_edges``), from the indexes alone (they
        hold the validity ``valid_at`` reads: migration 5)."""
        query, params = sql.select_edges_sql(node_ids, mode, type, date_from, date_to, valid_at)
        return self._conn.execute(query, params).fetchall()

    def select_edges(
        self, node_ids: Sequence[str], *, mode: str = "around", type: str | None = None,
        date_from: str | None = None, date_to: str | None = None, limit: int | None = None,
        with_vectors: bool = False, valid_at: str | None = None,
    ) -> EdgeSelection:
        """Every edge that passes the filters is counted and ordered before ``limit`` cuts (newest first)."""
        ids = list(dict.fromkeys(node_ids))
        sql.check_mode(mode)
        if not ids:
            return EdgeSelection(0, [])
        with self._lock, self._read_transaction():
            rows = self._selection(ids, mode, type, date_from, date_to, valid_at)
            kept, first_date, last_date = newest_first(rows, limit)
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
            first_date=first_date,
            last_date=last_date,
        )

    def rank_edges(
        self, node_ids: Sequence[str], *, mode: str = "around", type: str | None = None,
        date_from: str | None = None, date_to: str | None = None, text: str | None = None,
        vector: np.ndarray | None = None, weights: tuple[float, float] = (0.3, 0.7), limit: int = 10,
        valid_at: str | None = None,
    ) -> EdgeRanking:
        """A selection ranked by ``text`` (BM25 over the selection) and ``vector`` (cosine), fused in numpy:
        see the protocol. The selection (validity included) comes from the indexes, then each edge's id,
        vector and term counts from one join (at a hub's thousands of facts the row reads are most of the
        cost)."""
        query = check_edge_ranking(text, vector, weights)
        ids = list(dict.fromkeys(node_ids))
        sql.check_mode(mode)
        if not ids:
            return EdgeRanking(0, [])
        query = query if weights[1] else None
        terms = text is not None and bool(weights[0])
        selection, params = sql.select_edges_sql(ids, mode, type, date_from, date_to, valid_at)
        statement = (f"SELECT s.rowid, s.date, e.id, {'e.vector' if query is not None else 'NULL'}, "
                     f"{'t.keys, t.text_tf, t.length' if terms else 'NULL, NULL, NULL'} FROM ({selection}) s "
                     f"JOIN edges e ON e.rowid = s.rowid"
                     f"{' LEFT JOIN edge_terms t ON t.edge_rowid = s.rowid' if terms else ''}")
        with self._lock, self._read_transaction():
            fetched = self._conn.execute(statement, params).fetchall()
        # newest first before scoring: ties keep that order, and the cosines come from the same matrix
        # product as ever (its float32 rounding depends on a row's place in the matrix)
        rows = [fetched[i] for i in newest_first_order(fetched)]
        cosine = None if query is None else edge_cosines([r[3] for r in rows], query)
        keyword = selection_scores([None if r[4] is None else r[4:] for r in rows], text) if terms else None
        scores = fused_edge_scores(keyword, cosine, weights, len(rows))
        top = np.argsort(-scores, kind="stable")[: page_bound(limit)]  # stable: ties stay newest first
        return EdgeRanking(len(rows), [
            EdgeHit(rows[i][2], float(scores[i]), None if cosine is None or np.isnan(cosine[i]) else float(cosine[i]),
                    0.0 if keyword is None else float(keyword[i])) for i in top])

    def edges_of(
        self, node_ids: Sequence[str], *, direction: str = "out", types: Sequence[str] | None = None,
        limit: int | None = None, offset: int = 0,
    ) -> EdgePage:
        """Edges of a node set in one direction, counted per type, one page read: see the protocol."""
        condition, params = sql.edges_of_sql(node_ids, direction, types)
        page = -1 if limit is None else page_bound(limit)
        with self._lock, self._read_transaction():
            counts = dict(self._conn.execute(
                f"SELECT type, count(*) FROM edges {condition} GROUP BY type ORDER BY type", params).fetchall())
            edges = [_edge((*r[:6], None, r[6])) for r in self._conn.execute(
                f"SELECT id, src, dst, type, props, text, date FROM edges {condition} "
                "ORDER BY type, src, dst, id LIMIT ? OFFSET ?", [*params, page, page_bound(offset)])] if page else []
        return EdgePage(total=sum(counts.values()), counts=counts, edges=edges)

    def edge_ids_with_prefix(self, prefix: str) -> list[str]:
        """Edge ids starting with ``prefix`` (a range scan of the id index), in id order."""
        return self._ids_with_prefix("edges", prefix)

    def count_edges(self, type: str | None = None) -> int:
        with self._lock:
            if type is None:
                return self._conn.execute("SELECT count(*) FROM edges").fetchone()[0]
            return self._conn.execute("SELECT count(*) FROM edges WHERE type = ?", (type,)).fetchone()[0]

    def neighbour_counts(self, node_id: str, *, type: str | None = None, limit: int = 10) -> list[tuple[str, int]]:
        """The nodes sharing most edges with ``node_id`` (either direction), most first, ties by id."""
        cond = " AND type = ?" if type is not None else ""
        extra = [type] if type is not None else []
        query = (f"SELECT other, count(*) AS c FROM (SELECT dst AS other FROM edges WHERE src = ?{cond} "
                 f"UNION ALL SELECT src FROM edges WHERE dst = ?{cond}) WHERE other != ? "
                 "GROUP BY other ORDER BY c DESC, other LIMIT ?")
        with self._lock:
            return [(r[0], r[1]) for r in self._conn.execute(query, [node_id, *extra, node_id, *extra, node_id,
                                                                     page_bound(limit)])]

    def most_connected(
        self, kind: str, *, type: str | None = None, limit: int = 50, offset: int = 0, where: Where | None = None,
    ) -> list[tuple[str, int]]:
        """Nodes of ``kind`` (passing ``where``) with their edge count (either direction), most first, ties
        by id."""
        cond = " AND e.type = ?" if type is not None else ""
        extra = [type] if type is not None else []
        condition, params = sql.node_filter_sql(kind, where)
        query = (f"SELECT n.id, (SELECT count(*) FROM edges e WHERE e.src = n.id{cond}) + "
                 f"(SELECT count(*) FROM edges e WHERE e.dst = n.id AND e.src != n.id{cond}) AS c "
                 f"FROM nodes n {condition} ORDER BY c DESC, n.id LIMIT ? OFFSET ?")
        with self._lock:
            return [(r[0], r[1]) for r in self._conn.execute(query, [*extra, *extra, *params, page_bound(limit),
                                                                     page_bound(offset)])]

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Nothing to defer here: every write keeps its indexes (see the protocol)."""
        yield

    def integrity_check(self) -> list[str]:
        """SQLite's own check of the file: ``["ok"]`` when nothing is wrong."""
        with self._lock:
            return [r[0] for r in self._conn.execute("PRAGMA integrity_check")]


def _node(row: tuple) -> Node:
    return Node(
        id=row[0], kind=row[1], name=row[2], text=row[3], props=json.loads(row[4]),
        text_hash=row[5], created_at=row[6], updated_at=row[7],
    )


def _edge(r: tuple) -> Edge:
    vector = None if r[6] is None else np.frombuffer(r[6], dtype=np.float32)
    return Edge(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], vector, r[7])


def _chunks(items: Sequence[str]) -> Iterator[list[str]]:
    items = list(items)
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def edge_cosines(blobs: Sequence[bytes | None], query: np.ndarray) -> np.ndarray:
    """The cosine of each edge's vector (float32 blob; None: no vector, NaN) to ``query``. A vector of
    another dimension is InvalidInput."""
    out = np.full(len(blobs), np.nan, dtype=np.float64)
    held = [i for i, blob in enumerate(blobs) if blob is not None]
    if not held:
        return out
    present = [blobs[i] for i in held]
    if set(map(len, present)) != {4 * query.shape[0]}:
        raise InvalidInput(f"query vector has dimension {query.shape[0]}, the edges hold another")
    matrix = np.frombuffer(b"".join(present), dtype=np.float32).reshape(len(held), -1)
    out[held] = matrix @ query
    return out
