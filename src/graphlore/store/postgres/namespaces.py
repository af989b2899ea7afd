"""Namespaces in a PostgreSQL database: open (and create, and migrate), exist, size, identity, drop, replace,
lock.

The registry ``graphlore.namespaces`` maps a namespace name to the id of its
schema ``gs_<id>``. Creating, migrating and dropping a namespace take the same
advisory lock as its ``atomic()`` blocks, inside one transaction, so processes
doing it at once wait for each other and nobody sees half a namespace. The
id is the namespace's identity: a namespace dropped and made again gets a new
one, which tells a process holding the old store to reopen it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import psycopg

from graphlore.errors import GraphloreError, NotFound, StoreBusy
from graphlore.store.base import WRITTEN_AT
from graphlore.store.migrate import UpgradeNotes
from graphlore.store.postgres import sql
from graphlore.store.postgres.connection import Database, advisory_key, translated
from graphlore.store.postgres.migrations import NAMESPACE, migrate_namespace, schema_name
from graphlore.store.postgres.store import PostgresStore, atomic_key


def _guarded(db: Database):
    """Translate driver errors raised while managing namespaces of ``db``."""

    @contextmanager
    def guard() -> Iterator[None]:
        try:
            yield
        except psycopg.Error as exc:
            raise translated(exc, db.location) from exc

    return guard()


#: How often a namespace upgrade's watcher reads what the upgrade does (seconds).
WATCH_S = 1.0


@contextmanager
def _upgrade_notes(db: Database, conn: psycopg.Connection, location: str, applied: int,
                   target: int | None) -> Iterator[tuple[Callable[[int], None] | None, UpgradeNotes | None]]:
    """While an existing namespace is upgraded on ``conn`` (an index build over a large graph's edges takes
    minutes), a watcher on a connection of its own reads every :data:`WATCH_S` the index build under way
    (``pg_stat_progress_create_index``: pages of the table read, then rows put in the index) or else the steps
    done, for
    :class:`UpgradeNotes` (stderr, once the upgrade has run 5 s). Yields the steps' callback (None: a new
    namespace, nothing to say) and ``notes``, whose ``finished()`` the caller says once the upgrade's transaction
    has committed. Best effort: a watcher that cannot read stops, the upgrade goes on."""
    if target is None or applied >= target:
        yield None, None
        return
    notes = UpgradeNotes(location, applied, target)
    steps, done, stop = target - applied, [0], threading.Event()
    pid = conn.info.backend_pid

    def watch() -> None:
        try:
            with db.connect() as watcher:
                while not stop.wait(WATCH_S):
                    row = watcher.execute("SELECT tuples_done, tuples_total, blocks_done, blocks_total, "
                                          "relid::regclass::text FROM pg_stat_progress_create_index WHERE pid = %s",
                                          (pid,)).fetchone()
                    table = row[4].rsplit(".", 1)[-1] if row is not None else ""
                    if row is not None and row[0] and row[1]:  # loading the sorted rows into the index
                        notes(min(row[0], row[1] - 1), row[1], f"rows of {table} indexed")
                    elif row is not None and row[3]:  # reading the table
                        notes(min(row[2], row[3] - 1), row[3], f"pages of {table} read for an index")
                    else:  # another statement (a table rewrite: PostgreSQL says nothing of its progress)
                        notes(done[0], steps, "schema steps")
        except (psycopg.Error, GraphloreError):
            return

    thread = threading.Thread(target=watch, name="graphlore-upgrade-notes", daemon=True)
    thread.start()
    try:
        yield (lambda n: done.__setitem__(0, n)), notes
    finally:
        stop.set()
        thread.join()
    notes(steps, steps, "schema steps")


def namespace_id(db: Database, namespace: str) -> int | None:
    with _guarded(db), db.connection() as conn:
        row = conn.execute("SELECT id FROM graphlore.namespaces WHERE name = %s", (namespace,)).fetchone()
    return None if row is None else int(row[0])


def open_namespace(db: Database, namespace: str, *, create: bool, repair: str) -> PostgresStore:
    """The namespace's store; ``create`` makes it when missing. Pending namespace migrations run first."""
    with _guarded(db), db.connection() as conn:
        row = conn.execute("SELECT id, version FROM graphlore.namespaces WHERE name = %s", (namespace,)).fetchone()
        if row is None and not create:
            raise NotFound(f"no store {namespace!r} in {db.location}")
        notes = None
        if row is None or row[1] != len(NAMESPACE):
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (atomic_key(namespace),))
                row = conn.execute("SELECT id, version FROM graphlore.namespaces WHERE name = %s",
                                   (namespace,)).fetchone()
                made = row is None
                if made:
                    row = conn.execute("INSERT INTO graphlore.namespaces (name) VALUES (%s) RETURNING id, version",
                                       (namespace,)).fetchone()
                    conn.execute(f"CREATE SCHEMA {schema_name(row[0])}")
                schema = schema_name(row[0])
                location = f"{db.location} (namespace {namespace})"
                with _upgrade_notes(db, conn, location, row[1], None if made else len(NAMESPACE)) as (on_step, notes):
                    version = migrate_namespace(conn, schema, row[1], location, on_step)
                conn.execute("UPDATE graphlore.namespaces SET version = %s WHERE id = %s", (version, row[0]))
                if made:
                    conn.execute(f"INSERT INTO {schema}.meta (key, value) VALUES ('namespace', to_json(%s::text))",
                                 (namespace,))
                    conn.execute(sql.record_write_sql(schema), (WRITTEN_AT,))
            if notes is not None:   # committed: only now is the upgrade done
                notes.finished()
    return PostgresStore(db, namespace, int(row[0]), repair=repair)


def names(db: Database) -> list[str]:
    """Every namespace in the database, sorted."""
    with _guarded(db), db.connection() as conn:
        return [row[0] for row in conn.execute("SELECT name FROM graphlore.namespaces ORDER BY name")]


def exists(db: Database, namespace: str) -> bool:
    return namespace_id(db, namespace) is not None


def size(db: Database, namespace: str) -> int:
    """Bytes of the namespace's tables with their indexes and TOAST data."""
    with _guarded(db), db.connection() as conn:
        row = conn.execute(
            """SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM graphlore.namespaces g
               JOIN pg_namespace s ON s.nspname = 'gs_' || g.id JOIN pg_class c ON c.relnamespace = s.oid
               WHERE g.name = %s AND c.relkind = 'r'""", (namespace,)).fetchone()
    return int(row[0])


def drop(db: Database, namespace: str) -> None:
    """Delete the namespace's schema and its registry row (waits for a running ``atomic()`` block)."""
    with _guarded(db), db.connection() as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (atomic_key(namespace),))
        row = conn.execute("SELECT id FROM graphlore.namespaces WHERE name = %s", (namespace,)).fetchone()
        if row is not None:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema_name(row[0])} CASCADE")
            conn.execute("DELETE FROM graphlore.namespaces WHERE id = %s", (row[0],))


def replace(db: Database, namespace: str, source: str) -> None:
    """Give ``namespace`` the schema of ``source`` in one transaction (the old schema dropped, ``source``'s
    registry row renamed): readers see the old contents or the new, never a mix. The namespace's id changes,
    so a process holding the old store opens the new one on its next call."""
    with _guarded(db), db.connection() as conn, conn.transaction():
        for name in sorted({namespace, source}):  # one order, so two replaces never wait for each other
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (atomic_key(name),))
        found = conn.execute("SELECT id FROM graphlore.namespaces WHERE name = %s", (source,)).fetchone()
        if found is None:
            raise NotFound(f"no store {source!r} in {db.location}")
        old = conn.execute("SELECT id FROM graphlore.namespaces WHERE name = %s", (namespace,)).fetchone()
        if old is not None:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema_name(old[0])} CASCADE")
            conn.execute("DELETE FROM graphlore.namespaces WHERE id = %s", (old[0],))
        conn.execute("UPDATE graphlore.namespaces SET name = %s WHERE id = %s", (namespace, found[0]))
        schema = schema_name(found[0])
        conn.execute(f"UPDATE {schema}.meta SET value = to_json(%s::text) WHERE key = 'namespace'", (namespace,))
        conn.execute(sql.record_write_sql(schema), (WRITTEN_AT,))


#: A thread lock per held or awaited named lock, with how many threads hold or wait for it: the entry goes
#: when the last one is done, so the dictionary holds only locks in use.
_local_locks: dict[tuple[str, str, str], tuple[threading.Lock, int]] = {}
_local_locks_guard = threading.Lock()


@contextmanager
def _local(key: tuple[str, str, str], timeout: float | None = None, busy: str = "",
           on_wait: Callable[[], None] | None = None) -> Iterator[bool]:
    """Yields whether it waited for another thread (``on_wait`` was then called before waiting)."""
    with _local_locks_guard:
        local, users = _local_locks.get(key, (None, 0))
        local = local or threading.Lock()
        _local_locks[key] = (local, users + 1)
    try:
        waited = not local.acquire(blocking=False)
        if waited:
            if on_wait is not None:
                on_wait()
            if not local.acquire(timeout=-1 if timeout is None else timeout):
                raise StoreBusy(busy)
        try:
            yield waited
        finally:
            local.release()
    finally:
        with _local_locks_guard:
            _, users = _local_locks[key]
            if users == 1:
                del _local_locks[key]
            else:
                _local_locks[key] = (local, users - 1)


@contextmanager
def lock(db: Database, namespace: str, key: str, timeout: float | None = None, busy: str = "",
         on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """A session advisory lock held on a connection of its own (never a pooled one: waiters would hold
    the pool's connections while they wait); threads of this process queue on a thread lock first.
    ``timeout`` None: it waits as long as the holder works, as ``flock`` does for SQLite; else at most
    ``timeout`` seconds in all, then :class:`StoreBusy` with the message ``busy``. ``on_wait`` is called
    before waiting for another thread or process that holds it (once)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    with _local((db.url, namespace, key), timeout, busy, on_wait) as waited:
        conn = db.connect()
        try:
            left = None if deadline is None else max(deadline - time.monotonic(), 0.001)
            with _guarded(db):
                try:
                    conn.execute("SET lock_timeout = 0" if left is None else f"SET lock_timeout = {int(left * 1000) or 1}")
                    lock_id = advisory_key("lock", namespace, key)
                    if not conn.execute("SELECT pg_try_advisory_lock(%s)", (lock_id,)).fetchone()[0]:
                        if on_wait is not None and not waited:
                            on_wait()
                        conn.execute("SELECT pg_advisory_lock(%s)", (lock_id,))
                except psycopg.errors.LockNotAvailable as exc:
                    raise StoreBusy(busy) from exc
            yield
        finally:
            conn.close()  # ends the session, which releases the lock
