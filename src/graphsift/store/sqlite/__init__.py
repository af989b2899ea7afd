"""The embedded backend: one SQLite file per namespace, ranked in memory with numpy."""

from graphsift.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
