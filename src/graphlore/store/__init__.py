"""Storage: the :class:`Store` protocol toolsets are written against, and the factory that opens a backend."""

from graphlore.store.base import Edge, EdgePage, EdgeRef, EdgeSelection, Hit, Node, Store, Where
from graphlore.store.factory import (
    check_embedder,
    drop_store,
    open_store,
    record_embedder,
    replace_store,
    store_exists,
    store_location,
    store_size,
)

__all__ = [
    "Edge", "EdgePage", "EdgeRef", "EdgeSelection", "Hit", "Node", "Store", "Where", "check_embedder", "drop_store",
    "open_store", "record_embedder", "replace_store", "store_exists", "store_location", "store_size",
]
