"""What a data folder holds, to compare before and after a call: "a rejected call changes nothing".

:func:`digest` reads a SQLite store read-only and hashes every row of every table (sorted, so the
physical layout and checkpoints do not matter); :func:`home_state` does that for every store under a
data folder, and also lists its other files (a refused call must not create a folder or a lock file).
Session state is not data: the facts toolset's saved searches (``facts/<graph>/searches``, what ``cat``
expands; a search saves one, a failed one ends the session's latest) are left out.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

STORE_NAMES = ("store.db", "index.db", "graph.db")
#: Files SQLite itself makes and removes as readers come and go.
TRANSIENT = ("-wal", "-shm")


def is_session_state(rel: str) -> bool:
    """A path of the facts toolset's saved searches (``facts/<graph>/searches/...``)."""
    parts = rel.split("/")
    return len(parts) >= 4 and parts[0] == "facts" and parts[2] == "searches"


def digest(path: Path) -> str:
    """A hash of every row of every table of the store at ``path`` (opened read-only)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        conn.execute("BEGIN")  # one snapshot for every table
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        h = hashlib.sha256()
        for table in tables:
            h.update(table.encode())
            for row in sorted(repr(r) for r in conn.execute(f'SELECT * FROM "{table}"')):
                h.update(row.encode())
        h.update(str(conn.execute("PRAGMA user_version").fetchone()[0]).encode())
        conn.execute("COMMIT")
        return h.hexdigest()
    finally:
        conn.close()


def home_state(home: Path) -> dict[str, str]:
    """Relative path -> row digest (stores) or size (other files) of everything under ``home``."""
    out: dict[str, str] = {}
    if not home.exists():
        return out
    for path in sorted(home.rglob("*")):
        rel = path.relative_to(home).as_posix()
        if path.is_dir() or path.name.endswith(TRANSIENT) or is_session_state(rel):
            continue
        out[rel] = digest(path) if path.name in STORE_NAMES and path.stat().st_size else f"{path.stat().st_size} bytes"
    return out


def integrity(path: Path) -> list[str]:
    """SQLite's own check of a store file (``["ok"]`` when sound)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        return [r[0] for r in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()
