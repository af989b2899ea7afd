"""Storage: the :class:`Store` protocol and the factory that opens a backend."""

from graphsift.store.base import Edge, EdgeRef, EdgeSelection, Hit, Node, Store, Where
from graphsift.store.sqlite import SQLiteStore

__all__ = ["Edge", "EdgeRef", "EdgeSelection", "Hit", "Node", "SQLiteStore", "Store", "Where", "open_store"]


def open_store(path, namespace: str = "default") -> Store:
    """Open the embedded SQLite store at ``path`` (one file per namespace)."""
    return SQLiteStore(path, namespace)
