"""Can the configured backend be used right now? What ``GET /healthz`` reports.

- **SQLite** (the default): the data folder is a folder this process may write, or, before the first
  write made it, a folder it can be made in.
- **PostgreSQL**: the database answers a query through this process's pool (made, reached and
  migrated on first use, as for any store).

The answer says what is wrong in a few fixed words (:data:`REASONS`): an unauthenticated caller learns
whether the backend works and nothing about hosts, users, paths or data. The full reason goes to the
server's log (stderr).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from graphlore.config import Settings
from graphlore.errors import GraphloreError

logger = logging.getLogger("graphlore")

#: Words in a PostgreSQL failure -> the reason shown (first match wins).
REASONS = (
    ("drivers are not installed", "the PostgreSQL driver is not installed (graphlore[postgres])"),
    ("connection refused", "connection refused"),
    ("timeout", "connection timed out"),
    ("timed out", "connection timed out"),
    ("authentication", "authentication failed"),
    ("does not exist", "the database does not exist"),
    ("host name", "host name not found"),
    ("name or service not known", "host name not found"),
    ("too many", "too many connections"),
    ("no database connection free", "every connection of this server is in use"),
)
UNKNOWN = "the database cannot be used (the server's log says why)"


@dataclass(frozen=True)
class Health:
    #: "sqlite" or "postgresql"
    backend: str
    ok: bool
    #: what is wrong, in a few fixed words (None when ok)
    reason: str | None = None


def check(settings: Settings) -> Health:
    """Whether the backend of ``settings`` can be used (never raises)."""
    if settings.database_url:
        return _postgres(settings)
    return _sqlite(settings.home)


def _sqlite(home: Path) -> Health:
    folder = home
    while not folder.exists() and folder != folder.parent:  # made on the first write: its parent must allow it
        folder = folder.parent
    if not folder.is_dir():
        reason = "the data folder is not a folder" if folder == home else "the data folder cannot be made"
    elif not os.access(folder, os.W_OK | os.X_OK):
        reason = "the data folder is not writable" if folder == home else "the data folder cannot be made"
    else:
        return Health("sqlite", True)
    logger.warning("health: %s (%s)", reason, home)
    return Health("sqlite", False, reason)


def _postgres(settings: Settings) -> Health:
    try:
        from graphlore.store.postgres import connection

        db = connection.database(settings.database_url)
        try:
            with db.connection() as conn:
                conn.execute("SELECT 1")
        except GraphloreError:
            raise
        except Exception as exc:  # noqa: BLE001 - a driver error: translated like any store's
            raise connection.translated(exc, db.location) from exc
    except Exception as exc:  # noqa: BLE001 - a health check answers, it never fails
        text = str(exc)
        reason = next((shown for words, shown in REASONS if words in text.lower()), UNKNOWN)
        logger.warning("health: PostgreSQL %s: %s", reason, text)
        return Health("postgresql", False, reason)
    return Health("postgresql", True)
