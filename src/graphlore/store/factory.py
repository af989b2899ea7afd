"""Opening, finding, sizing and dropping namespaces: the one place that knows which backend holds them.

A namespace is a short path of lower-case names (``items/3f2a9c01b7de``,
``facts/default``). With ``database_url`` unset (the default) each namespace is
one SQLite file, ``{home}/{namespace}/store.db`` (earlier versions named it
``index.db`` or ``graph.db``; an existing file of that name is used as it is).
A ``postgresql://`` URL selects the PostgreSQL backend for every namespace.

Stores remember which embedder made their vectors (:func:`record_embedder`: its
name and dimension, never the embedder itself, since the store never embeds);
:func:`check_embedder` refuses to mix vectors of two embedders and says how to
repair. :func:`describe` and :func:`health` tell people (``graphlore serve``'s
start line, ``/healthz``) which backend is configured and whether it can be used,
so no adapter reaches into a backend.
"""

from __future__ import annotations

import fcntl
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from graphlore.config import Settings
from graphlore.errors import (
    ConfigError,
    EmbedderMismatch,
    IndexCorrupted,
    InvalidInput,
    NotFound,
    StoreBusy,
    StoreUnavailable,
)
from graphlore.store import health as _health
from graphlore.store.base import Store
from graphlore.store.url import redact

STORE_FILE = "store.db"
#: File names of earlier versions, still opened where they exist.
LEGACY_FILES = ("index.db", "graph.db")
_PART = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
_LOCK_KEY = re.compile(r"[a-z0-9_-]{1,64}")
EMBEDDER_META = "embedder"
#: How long a read waits for an empty store file to get its header (another process creating it).
EMPTY_GRACE_S = 2.0


def check_namespace(namespace: str) -> str:
    parts = namespace.split("/")
    if not (1 <= len(parts) <= 3) or not all(_PART.fullmatch(p) and ".." not in p for p in parts):
        raise InvalidInput(f"namespace {namespace!r} must be 1-3 names of a-z, 0-9, '_', '.', '-' joined by '/'")
    return namespace


def backend(settings: Settings) -> str:
    """``sqlite`` (no database URL) or ``postgres``; any other URL is a :class:`ConfigError`."""
    url = settings.database_url
    if not url:
        return "sqlite"
    if url.startswith(("postgresql://", "postgres://")):
        return "postgres"
    raise ConfigError(f"database_url must be empty (embedded SQLite) or a postgresql:// URL, got "
                      f"{redact(url)[:40]!r}")



def backend_location(settings: Settings) -> str:
    """Where the configured backend keeps its namespaces, for people: the data folder, or the database URL
    without its password."""
    return redact(settings.database_url) if backend(settings) == "postgres" else str(settings.home)


def _postgres(settings: Settings) -> Any:
    """The PostgreSQL database of ``settings`` (its pool made, reached and migrated on first use)."""
    from graphlore.store.postgres import database

    return database(settings.database_url)


def sqlite_path(settings: Settings, namespace: str) -> Path:
    folder = settings.home / check_namespace(namespace)
    for name in (STORE_FILE, *LEGACY_FILES):
        if (folder / name).exists():
            return folder / name
    return folder / STORE_FILE


def sqlite_namespaces(home: Path) -> list[str]:
    """Every namespace with a store file under ``home``, sorted."""
    found = set()
    for name in (STORE_FILE, *LEGACY_FILES):
        for path in home.rglob(name):
            try:
                found.add(check_namespace(path.parent.relative_to(home).as_posix()))
            except InvalidInput:
                continue
    return sorted(found)


def list_namespaces(settings: Settings) -> list[str]:
    """Every namespace the configured backend holds, sorted."""
    if backend(settings) == "postgres":
        from graphlore.store.postgres import namespaces

        return namespaces.names(_postgres(settings))
    try:
        return sqlite_namespaces(settings.home)
    except OSError as exc:
        raise StoreUnavailable(f"cannot read {settings.home}: {exc.strerror or exc}") from exc


def store_location(settings: Settings, namespace: str) -> str:
    """Where the namespace lives, for people (a file path, or the database URL without its password)."""
    if backend(settings) == "postgres":
        return f"{_postgres(settings).location} (namespace {check_namespace(namespace)})"
    return str(sqlite_path(settings, namespace))


def store_exists(settings: Settings, namespace: str) -> bool:
    if backend(settings) == "postgres":
        from graphlore.store.postgres import namespaces

        return namespaces.exists(_postgres(settings), check_namespace(namespace))
    try:
        return sqlite_path(settings, namespace).is_file()
    except OSError as exc:
        raise StoreUnavailable(f"cannot read {settings.home}: {exc.strerror or exc}") from exc


def store_identity(settings: Settings, namespace: str) -> Any:
    """Changes when the namespace is dropped and made again, so a process holding it open reopens it."""
    if backend(settings) == "postgres":
        from graphlore.store.postgres import namespaces

        return namespaces.namespace_id(_postgres(settings), check_namespace(namespace))
    try:
        stat = sqlite_path(settings, namespace).stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreUnavailable(f"cannot read {settings.home}: {exc.strerror or exc}") from exc
    return (stat.st_dev, stat.st_ino)


def store_size(settings: Settings, namespace: str) -> int:
    """Bytes the namespace takes (for SQLite the file with its WAL and shared-memory files; for PostgreSQL
    its tables with their indexes)."""
    if backend(settings) == "postgres":
        from graphlore.store.postgres import namespaces

        return namespaces.size(_postgres(settings), check_namespace(namespace))
    path = sqlite_path(settings, namespace)
    total = 0
    for suffix in ("", "-wal", "-shm"):
        try:
            total += os.stat(f"{path}{suffix}").st_size
        except FileNotFoundError:
            pass
    return total


def drop_store(settings: Settings, namespace: str) -> None:
    """Delete the namespace and everything in it (also what repairs a damaged file)."""
    if backend(settings) == "postgres":
        from graphlore.store.postgres import namespaces

        namespaces.drop(_postgres(settings), check_namespace(namespace))
        return
    path = sqlite_path(settings, namespace)
    for suffix in ("", "-wal", "-shm"):
        try:
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        except OSError as exc:
            raise StoreUnavailable(f"cannot delete {path}{suffix}: {exc.strerror or exc}") from exc


def replace_store(settings: Settings, namespace: str, source: str) -> None:
    """Give ``namespace`` the contents of ``source`` in one transaction, then delete ``source``: how a rebuild
    made beside a store replaces it. Readers, in any process, see the old contents or the new, never a mix;
    until this call the old contents are untouched, so a rebuild that fails first leaves them as they were.
    ``namespace`` is made when missing (and replaced whole when damaged); a missing ``source`` is
    :class:`NotFound` and changes nothing.

    SQLite: the online backup copies ``source``'s file into ``namespace``'s in one write transaction (the
    file stays where it is, so processes holding it keep their connection and rebuild their caches).
    PostgreSQL: ``source``'s schema takes the namespace's name in one transaction (the old schema dropped).
    """
    if backend(settings) == "postgres":
        from graphlore.store.postgres import namespaces

        namespaces.replace(_postgres(settings), check_namespace(namespace), check_namespace(source))
        return
    copy = open_store(settings, source)
    try:
        try:
            _replace_sqlite(settings, namespace, copy)
        except IndexCorrupted:  # a damaged store holds nothing worth keeping: the copy takes its place
            drop_store(settings, namespace)
            _replace_sqlite(settings, namespace, copy)
    finally:
        copy.close()
    drop_store(settings, source)


def _replace_sqlite(settings: Settings, namespace: str, copy: Any) -> None:
    target = open_store(settings, namespace, create=True)
    try:
        target.replace_contents(copy)
    finally:
        target.close()


def open_store(settings: Settings, namespace: str, *, create: bool = False, repair: str = "") -> Store:
    """Open a namespace; ``create`` makes it when missing. ``repair`` is what a user is told to do if the
    store turns out to be damaged (it ends every :class:`IndexCorrupted` the store raises).

    A store is made whole or not at all (SQLite: initialised in a temporary file, then linked into
    place), so an existing file that is empty or has no schema is damage: :class:`IndexCorrupted`, for
    writers too, never silently recreated. Without ``create`` nothing is ever made: a missing namespace
    is :class:`NotFound`.
    """
    if backend(settings) == "postgres":
        from graphlore.store.postgres import namespaces

        return namespaces.open_namespace(_postgres(settings), check_namespace(namespace), create=create,
                                         repair=repair)
    from graphlore.store.sqlite import SQLiteStore

    path = sqlite_path(settings, namespace)
    try:
        size: int | None = _size(path)
    except NotFound:
        size = None
    if size is None:
        if not create:
            raise NotFound(f"no store {namespace!r} at {path}")
        _create_sqlite(path, namespace)
    else:
        deadline = time.monotonic() + EMPTY_GRACE_S
        while size == 0:
            # graphlore makes a store whole before it appears (below), but a process of an older version
            # may be creating this one right now (the file is empty until SQLite writes its header): only
            # a file that stays empty was left by an interrupted write.
            if time.monotonic() > deadline:
                raise IndexCorrupted(f"{path} is empty (a write was interrupted, or the file was emptied)"
                                     + (f"; {repair}" if repair else ""))
            time.sleep(0.02)
            size = _size(path)
    return SQLiteStore(path, namespace, repair=repair, create=False)


def _create_sqlite(path: Path, namespace: str) -> None:
    """Make a new store file whole: initialise it under a temporary name, then link it into place (when
    another process made it first, theirs is kept). A crash leaves at most the temporary file."""
    from graphlore.store.sqlite import SQLiteStore

    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.new")
    try:
        SQLiteStore(temporary, namespace).close()  # closing the last connection folds the WAL into the file
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
        except OSError as exc:
            raise StoreUnavailable(f"cannot create {path}: {exc.strerror or exc}") from exc
    finally:
        for suffix in ("", "-wal", "-shm"):
            try:
                Path(f"{temporary}{suffix}").unlink(missing_ok=True)
            except OSError:
                pass


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except (FileNotFoundError, NotADirectoryError):
        raise NotFound(f"no store at {path}") from None
    except OSError as exc:
        raise StoreUnavailable(f"cannot read {path}: {exc.strerror or exc}") from exc


@contextmanager
def namespace_lock(settings: Settings, namespace: str, key: str, timeout: float | None = None,
                   on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """A named lock on a namespace across threads and processes, held until the block ends: for work
    longer than one transaction (an index update that embeds before it writes). It does not need the
    store to exist or be readable, so a rebuild can take it before dropping a damaged store.
    ``timeout``: seconds to wait for it at most, then :class:`StoreBusy` (None: as long as the holder works).
    ``on_wait`` is called once, before waiting, when another holder has it (to say so).

    SQLite: ``flock`` on ``{home}/{namespace}/{key}.lock``. PostgreSQL: a session advisory lock.
    """
    if not _LOCK_KEY.fullmatch(key):
        raise InvalidInput(f"lock key {key!r} must be 1-64 of a-z, 0-9, _ and -")
    busy = (f"another writer held the {key} lock of {namespace} for more than {timeout:g} s (a long import or "
            "reindex?); nothing was written: retry when it is done") if timeout is not None else ""
    if backend(settings) == "postgres":
        from graphlore.store.postgres import namespaces

        with namespaces.lock(_postgres(settings), check_namespace(namespace), key, timeout, busy, on_wait):
            yield
        return
    folder = settings.home / check_namespace(namespace)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / f"{key}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StoreUnavailable(f"cannot create the lock file in {folder}: {exc.strerror or exc}") from exc
    try:
        _flock(fd, timeout, busy, on_wait)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


#: How often a bounded wait for a lock file tries again (seconds).
LOCK_POLL_S = 0.05


def _flock(fd: int, timeout: float | None, busy: str, on_wait: Callable[[], None] | None = None) -> None:
    """An exclusive ``flock`` on ``fd``: waited for as long as it takes, or ``timeout`` seconds at most;
    ``on_wait`` first when another holder has it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        if on_wait is not None:
            on_wait()
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise StoreBusy(busy) from None
            time.sleep(LOCK_POLL_S)


def check_embedder(
    stored: Mapping[str, Any] | None, name: str, dim: int | None, *, what: str, repair: str,
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Refuse a store whose vectors another embedder (or another passage layout, ``extra``) made: ``stored``
    is the store's :data:`EMBEDDER_META` value (None: nothing embedded yet), ``name`` and ``dim`` the
    configured embedder's. ``what`` names the store for people ("the index of /path", "graph 'default'")."""
    if stored is None:
        return
    if stored.get("name") != name or (dim and stored.get("dim") != dim):
        raise EmbedderMismatch(
            f"{what} was built with embedder {stored.get('name')} ({stored.get('dim')} dims) but the "
            f"configured embedder is {name}; {repair}"
        )
    for key, value in (extra or {}).items():
        if stored.get(key) != value:
            raise EmbedderMismatch(
                f"{what} was built by another graphlore version (passage {key} {stored.get(key)}, now {value}); "
                f"{repair}"
            )


def embedder_record(name: str, dim: int | None, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What a store keeps under :data:`EMBEDDER_META`."""
    return {"name": name, "dim": dim, **(extra or {})}


def record_embedder(store: Store, name: str, dim: int | None, extra: Mapping[str, Any] | None = None) -> None:
    store.set_meta(EMBEDDER_META, embedder_record(name, dim, extra))


def describe(settings: Settings) -> str:
    """The configured backend for people: ``PostgreSQL <url without password>`` or ``SQLite under <home>``."""
    if backend(settings) == "postgres":
        return f"PostgreSQL {redact(settings.database_url)}"
    return f"SQLite under {settings.home}"


def health(settings: Settings) -> _health.Health:
    """Whether the configured backend can be used right now, in a few fixed words (never raises;
    :mod:`graphlore.store.health`)."""
    return _health.check(settings)


def close_backend(settings: Settings) -> None:
    """Close this process's connection pool to the configured database (the runtime does it when it closes;
    a later use opens a new one). Nothing to close for SQLite, whose stores hold their own file."""
    if backend(settings) == "postgres" and "graphlore.store.postgres.connection" in sys.modules:
        from graphlore.store.postgres import connection

        connection.close(settings.database_url)
