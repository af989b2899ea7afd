"""Connections to one PostgreSQL database: a pool per URL and process, and the error boundary.

Every process keeps one :class:`Database` per URL (:func:`database`), shared by
all the namespaces it opens; the runtime that used it closes it (:func:`close`, through
:func:`graphlore.store.factory.close_backend`), and whatever is left is closed at exit. Opening one first makes a plain connection with
the connect timeout (``connect_timeout`` in the URL, default 5 s), so an
unreachable or refusing server is one line, ``Database connection failed:
<reason>``, within that time; then it applies the database-wide migrations
(under an advisory lock, so processes starting together do not race) and
starts a small pool (psycopg_pool) for the stores.

:func:`translated` is the one place a ``psycopg`` error becomes a graphlore
error: a lost or refused connection is :class:`StoreUnavailable` with the same
``Database connection failed`` text, a lock wait past the busy timeout or a
deadlock :class:`StoreBusy`, missing tables of a namespace (dropped by another
process) :class:`IndexCorrupted`, and anything else an :class:`InternalError`
naming the SQLSTATE, so no driver exception leaves the backend.
"""

from __future__ import annotations

import atexit
import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from graphlore.errors import (
    ConfigError,
    GraphloreError,
    IndexCorrupted,
    InternalError,
    InvalidInput,
    StoreBusy,
    StoreUnavailable,
)
from graphlore.store.url import redact

try:
    import psycopg
    import psycopg_pool
    from pgvector.psycopg.vector import register_vector_info
    from psycopg import errors as pg_errors
    from psycopg.conninfo import conninfo_to_dict, make_conninfo
    from psycopg.types import TypeInfo
except ImportError as exc:  # the extra is not installed
    raise ConfigError(
        "GRAPHLORE_DATABASE_URL names a PostgreSQL database, but its drivers are not installed; "
        "install graphlore[postgres] (psycopg, psycopg-pool, pgvector) or unset it to use the embedded SQLite store"
    ) from exc

#: Seconds a connection attempt may take unless the URL says otherwise (``?connect_timeout=N``).
CONNECT_TIMEOUT_S = 5
#: Seconds an ``atomic()`` block waits for another process's block on the same namespace (StoreBusy after).
BUSY_TIMEOUT_S = 30
#: Connections per process and database: a server's worker threads search in parallel.
POOL_MAX = 12
#: The floor of ``hnsw.ef_search``, the candidate list an HNSW index scan keeps (pgvector's default is 40).
#: Each index search sets it for its own transaction to ``max(EF_SEARCH, passages asked for)``, at most
#: pgvector's limit of 1000. Measured with bench/backends.py ``--recall-sweep`` on 1M generated vectors
#: (2,000 tight topics) over the index built with :data:`~graphlore.store.postgres.migrations.HNSW_M` 24 and
#: ef_construction 128: Recall@10 0.985 at 100 and 0.9995 at 200, 400 and 800, at a PostgreSQL CPU cost
#: per search of about 3.2 / 3.2 / 4.7 / 14 ms. With pgvector's default build (m 16, ef_construction
#: 64) the same queries reached only 0.85 at 200 and 0.92 at 400: the build decides recall here, and 200
#: is enough on a well-built graph.
EF_SEARCH = 200
#: ``hnsw.iterative_scan`` for index searches (pgvector 0.8): a scan whose filter drops rows goes on past
#: ``ef_search`` until it has as many as asked for (``relaxed_order``: the outer ORDER BY re-sorts them).
ITERATIVE_SCAN = "relaxed_order"
#: pgvector's upper bound on ``hnsw.ef_search``.
EF_SEARCH_MAX = 1000


def advisory_key(*parts: str) -> int:
    """A signed 64-bit advisory lock key for a name (every process computes the same one)."""
    digest = hashlib.blake2b("\0".join(("graphlore", *parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _reason(exc: BaseException) -> str:
    text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    return text or type(exc).__name__


def connection_failed(exc: BaseException) -> StoreUnavailable:
    reason = _reason(exc)
    for prefix in ("connection failed: ", "connection is bad: "):
        reason = reason.removeprefix(prefix)
    return StoreUnavailable(f"Database connection failed: {reason}")


def translated(exc: BaseException, location: str, repair: str = "") -> GraphloreError:
    """The graphlore error for a ``psycopg`` (or pool) error raised while using ``location``."""
    if isinstance(exc, psycopg_pool.PoolTimeout):
        return StoreBusy(f"{location}: no database connection free within {CONNECT_TIMEOUT_S} s "
                         f"(all {POOL_MAX} of this process are in use, or the server is not answering); retry")
    if isinstance(exc, pg_errors.LockNotAvailable | pg_errors.DeadlockDetected | pg_errors.QueryCanceled):
        return StoreBusy(f"{location} is busy: another process held its write lock for more than "
                         f"{BUSY_TIMEOUT_S} s ({_reason(exc)}); retry when it is done")
    if isinstance(exc, pg_errors.UndefinedTable | pg_errors.InvalidSchemaName | pg_errors.UndefinedColumn):
        return IndexCorrupted(f"{location} is missing its tables (dropped by another process?) ({_reason(exc)})"
                              + (f"; {repair}" if repair else ""))
    if isinstance(exc, pg_errors.InsufficientPrivilege | pg_errors.DiskFull | pg_errors.OutOfMemory
                  | pg_errors.TooManyConnections | pg_errors.ReadOnlySqlTransaction):
        return StoreUnavailable(f"{location} cannot be used: {_reason(exc)}")
    if isinstance(exc, psycopg.DataError):  # e.g. a NUL character, which PostgreSQL text cannot hold
        return InvalidInput(f"{location} cannot store this value: {_reason(exc)[:300]}")
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return connection_failed(exc)
    state = getattr(exc, "sqlstate", None)
    return InternalError(f"{location}: unexpected database error {state or type(exc).__name__}: "
                         f"{_reason(exc)[:300]}; this is a bug in graphlore")


def probe(url: str) -> dict[str, Any]:
    """What a database runs, read on a plain connection without changing anything (``graphlore doctor``):
    the server version, pgvector's installed and available versions, and the graphlore schema's version
    (None: not made yet; it is made on first use)."""
    params = conninfo_to_dict(url)
    params.setdefault("connect_timeout", str(CONNECT_TIMEOUT_S))
    params.setdefault("application_name", "graphlore doctor")
    try:
        conn = psycopg.connect(make_conninfo("", **params), autocommit=True)
    except psycopg.Error as exc:
        raise connection_failed(exc) from exc
    try:
        with conn:
            server, number = conn.execute("SELECT current_setting('server_version'), "
                                          "current_setting('server_version_num')::int").fetchone()
            installed = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
            available = conn.execute("SELECT default_version FROM pg_available_extensions "
                                     "WHERE name = 'vector'").fetchone()
            made = conn.execute("SELECT to_regclass('graphlore.version') IS NOT NULL").fetchone()[0]
            schema = conn.execute("SELECT version FROM graphlore.version").fetchone()[0] if made else None
    except psycopg.Error as exc:
        raise translated(exc, redact(url)) from exc
    return {"server": server, "server_num": number, "pgvector": installed[0] if installed else None,
            "pgvector_available": available[0] if available else None, "schema": schema}


# -- vectors on the wire ----------------------------------------------------------------------------------


def _register_vector(conn: psycopg.Connection) -> None:
    """pgvector's adapters: numpy arrays go out as ``vector`` (binary), ``vector`` values come back as
    :class:`pgvector.Vector` (``.to_numpy()``)."""
    info = TypeInfo.fetch(conn, "vector")
    if info is None:
        return  # before the first migration made the extension
    register_vector_info(conn, info)


def _configure(conn: psycopg.Connection) -> None:
    """Every pooled connection: autocommit (transactions are explicit), no server-side prepared statements
    (a namespace's first vectors give its vector column a dimension, ``ALTER ... TYPE vector(dim)``, and a
    statement another pooled connection prepared before that fails with "cached plan must not change result
    type"), the busy timeout for lock waits, no JIT (short queries) and the vector type (HNSW settings are per
    search: PostgresStore._nearest)."""
    conn.autocommit = True
    conn.prepare_threshold = None
    conn.execute(f"SET lock_timeout = '{BUSY_TIMEOUT_S}s'")
    conn.execute("SET jit = off")
    _register_vector(conn)


class Database:
    """One database URL in this process: its pool, and plain connections for long-held locks."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.location = redact(url)
        params = conninfo_to_dict(url)
        params.setdefault("connect_timeout", str(CONNECT_TIMEOUT_S))
        params.setdefault("application_name", "graphlore")
        self.connect_timeout = float(params["connect_timeout"])
        self.conninfo = make_conninfo("", **params)
        with self.connect() as conn:  # fail fast, with the server's reason, before a pool retries quietly
            from graphlore.store.postgres.migrations import migrate_database

            try:
                migrate_database(conn, self.location)
            except psycopg.Error as exc:
                raise translated(exc, self.location) from exc
        self._pool_lock = threading.Lock()
        self.pool = self._new_pool()

    def _new_pool(self) -> psycopg_pool.ConnectionPool:
        pool = psycopg_pool.ConnectionPool(
            self.conninfo, min_size=1, max_size=POOL_MAX, configure=_configure, open=False,
            timeout=max(self.connect_timeout, 1.0), name="graphlore",
        )
        pool.open(wait=False)
        return pool

    def connect(self) -> psycopg.Connection:
        """A connection outside the pool (configured like pooled ones); the caller closes it."""
        try:
            conn = psycopg.connect(self.conninfo)
        except psycopg.Error as exc:
            raise connection_failed(exc) from exc
        try:
            _configure(conn)
        except psycopg.Error as exc:
            conn.close()
            raise translated(exc, self.location) from exc
        return conn

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A pooled connection for one call (returned to the pool after)."""
        if self.pool.closed:  # closed by close_all(): stores that outlive it open a new pool
            with self._pool_lock:
                if self.pool.closed:
                    self.pool = self._new_pool()
        try:
            with self.pool.connection() as conn:
                yield conn
        except psycopg_pool.PoolTimeout as exc:
            raise self._pool_timeout(exc) from exc

    def _pool_timeout(self, exc: psycopg_pool.PoolTimeout) -> GraphloreError:
        """All connections busy (StoreBusy), or none can be made (the server is gone: say why)."""
        stats = self.pool.get_stats()
        if stats.get("pool_size", 0) >= POOL_MAX and stats.get("pool_available", 0) == 0:
            return translated(exc, self.location)
        try:
            psycopg.connect(self.conninfo).close()
        except psycopg.Error as probe:
            return connection_failed(probe)
        return translated(exc, self.location)

    def close(self) -> None:
        self.pool.close()


_databases: dict[str, Database] = {}
_lock = threading.Lock()


def database(url: str) -> Database:
    """This process's :class:`Database` for ``url`` (made, checked and migrated on first use)."""
    with _lock:
        db = _databases.get(url)
        if db is None:  # one closed by close() opens a new pool when next used
            db = _databases[url] = Database(url)
        return db


def close(url: str) -> None:
    """Close this process's pool to ``url`` (the runtime does, through the factory, when it closes); a store
    still open on it opens a new pool when next used."""
    with _lock:
        db = _databases.get(url)
    if db is not None:
        db.close()


@atexit.register
def close_all() -> None:
    """Close every pool (at exit, and in tests that restart a server)."""
    with _lock:
        dbs = list(_databases.values())
        _databases.clear()
    for db in dbs:
        try:
            db.close()
        except Exception:  # noqa: BLE001 - closing at exit: nothing left to tell anyone
            pass
