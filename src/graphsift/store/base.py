"""The storage seam: a :class:`Store` protocol and its row models.

A store holds one namespace: typed nodes and edges, each with searchable text
(BM25) and optional vectors (exact cosine search). It takes vectors and never
computes them. Every write method runs in one transaction; :meth:`Store.atomic`
groups several writes into one.

Filters (``kind`` and ``where`` on props) are applied before ranking, so a
filter can never hide a better match behind a top-k cut.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

#: ``where`` values: a scalar means equality, a list/tuple means "one of".
Where = Mapping[str, Any]


@dataclass
class Node:
    id: str
    kind: str
    name: str = ""
    text: str = ""
    props: dict[str, Any] = field(default_factory=dict)
    #: ``(k, dim)`` float32, one row per passage (k >= 1), or None when not embedded
    vectors: np.ndarray | None = None
    text_hash: str = ""
    created_at: float = 0.0
    updated_at: float = 0.0


@dataclass
class Edge:
    id: str
    src: str
    dst: str
    type: str
    props: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    vector: np.ndarray | None = None
    date: str | None = None  # ISO date, for date filters


@dataclass(frozen=True)
class EdgeRef:
    """An edge as a structural filter sees it: endpoints and date, and its vector when asked for."""

    id: str
    src: str
    dst: str
    date: str | None
    vector: np.ndarray | None = None


@dataclass
class EdgeSelection:
    """Edges around or between a node set: the whole filtered set summarised, its newest first."""

    #: edges that pass the filters (before ``limit``)
    total: int
    #: newest first (date descending, undated last, then latest written first), at most ``limit``
    edges: list[EdgeRef]
    first_date: str | None = None
    last_date: str | None = None


@dataclass(frozen=True)
class Hit:
    """One ranked node: ``score`` is BM25 (higher is better) or cosine in [-1, 1]."""

    id: str
    score: float


class Store(Protocol):
    namespace: str

    def atomic(self) -> AbstractContextManager[None]: ...

    # namespace metadata (embedder name and dimension, index bookkeeping)
    def get_meta(self, key: str) -> Any: ...
    def set_meta(self, key: str, value: Any) -> None: ...

    # nodes
    def upsert_nodes(self, nodes: Sequence[Node]) -> None: ...
    def delete_nodes(self, ids: Sequence[str]) -> int: ...
    def get_nodes(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[Node]: ...
    def iter_nodes(self, kind: str | None = None, where: Where | None = None) -> Iterator[Node]: ...
    def node_hashes(self, kind: str | None = None) -> dict[str, str]: ...
    def count_nodes(self, kind: str | None = None, where: Where | None = None) -> int: ...

    # ranking over the filtered set
    def keyword_search(
        self,
        query: str,
        *,
        kind: str | None = None,
        where: Where | None = None,
        limit: int = 100,
        weights: tuple[float, float] = (1.0, 1.0),
    ) -> list[Hit]: ...
    def vector_search(
        self,
        vector: np.ndarray,
        *,
        kind: str | None = None,
        where: Where | None = None,
        limit: int = 100,
    ) -> list[Hit]: ...
    def node_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]: ...
    def vector_scores(self, vector: np.ndarray, ids: Sequence[str]) -> dict[str, float]: ...

    # edges
    def upsert_edges(self, edges: Sequence[Edge]) -> None: ...
    def delete_edges(self, ids: Sequence[str]) -> int: ...
    def edges_of(self, node_ids: Sequence[str], *, direction: str = "any") -> list[Edge]: ...

    # lookup keys, batched vector search, edge neighbourhoods
    def set_node_keys(self, keys: Mapping[str, Sequence[str]]) -> None: ...
    def add_node_keys(self, keys: Mapping[str, Sequence[str]]) -> None: ...
    def nodes_by_keys(self, keys: Sequence[str], *, kind: str | None = None) -> dict[str, list[str]]: ...
    def node_ids_with_prefix(self, prefix: str) -> list[str]: ...
    def list_node_ids(
        self, kind: str, *, order_by: str | None = None, descending: bool = False, limit: int | None = None
    ) -> list[str]: ...
    def vector_search_many(
        self, vectors: np.ndarray, *, kinds: str | Sequence[str | None] | None = None, limit: int = 100
    ) -> list[list[Hit]]: ...
    def select_edges(
        self,
        node_ids: Sequence[str],
        *,
        mode: str = "around",
        type: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        limit: int | None = None,
        with_vectors: bool = False,
    ) -> EdgeSelection: ...
    def get_edges(self, ids: Sequence[str]) -> list[Edge]: ...
    def edge_ids_with_prefix(self, prefix: str) -> list[str]: ...
    def count_edges(self, type: str | None = None) -> int: ...
    def neighbour_counts(self, node_id: str, *, type: str | None = None, limit: int = 10) -> list[tuple[str, int]]: ...
    def most_connected(self, kind: str, *, type: str | None = None, limit: int = 50) -> list[tuple[str, int]]: ...

    def close(self) -> None: ...
