"""The embedded backend: one SQLite file per namespace, ranked in memory with numpy."""

from graphlore.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
