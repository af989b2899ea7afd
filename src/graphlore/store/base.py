"""The storage seam: the :class:`Store` protocol every toolset is written against, and its row types.

A store holds one *namespace* (``items/<hash>``, ``facts/<graph>``, ...): typed
nodes and edges, node lookup keys and namespace metadata. Each node has
searchable text (BM25 over two columns, ``name`` and ``text``) and optional
vectors, one row per passage (exact cosine; a node scores its best passage). A
store takes vectors and never computes them. Backends: SQLite (embedded default)
and PostgreSQL; :mod:`graphlore.store.factory` opens the configured one.

Filters (``where``)
    ``where`` maps a prop name (an identifier) to a condition; every condition must
    hold. It is the same on every method and every backend:

    ============  ===========================================================
    condition     a node passes when the prop ...
    ============  ===========================================================
    ``None``      is missing or JSON null
    ``True``      is the JSON boolean (``1`` does not match ``True``)
    a number      is a number equal to it (``1`` matches ``1.0``; booleans never)
    a string      is exactly that string (case-sensitive)
    a list        matches any element of the list (``[]`` matches nothing)
    ============  ===========================================================

    A prop stored as an array passes a scalar condition when one of its elements
    does (``{"tags": "x"}`` finds nodes whose ``tags`` contain ``"x"``); ``None``
    never matches an array. Other condition values (objects, nested lists) are an
    :class:`~graphlore.errors.InvalidInput`. Filters are applied before ranking,
    so a filter never hides a better match behind a top-k cut.

Ordering
    ``get_nodes`` / ``get_edges`` answer in the order of the ids asked for (unknown
    ids left out). ``iter_nodes``, ``iter_edges`` and listings without an order go in
    insertion order. Rankings are best first, ties in insertion order. ``select_edges``
    is newest first (date descending, undated last, then the latest written first);
    ``rank_edges`` breaks ties in that order.

Validity
    ``select_edges`` and ``rank_edges`` take ``valid_at`` (an ISO date): only edges that held on that day
    pass, those whose props' ``valid_from`` is on or before it (a missing one: always) and whose
    ``valid_to`` is after it (a missing one: still holding). ``"9999-12-31"`` reads "now": what nothing
    ended. Like every filter it applies before ranking and before ``limit``.

Metadata
    Each namespace keeps JSON values by key (the embedder, an index's bookkeeping,
    per-file records). ``get_meta_many`` reads any number of keys and ``meta_items`` every
    key under a prefix in one statement; ``set_meta_many`` writes several in one
    transaction. Setting a key to None deletes it (reading a missing key gives None).

Streaming
    ``iter_nodes`` and ``iter_edges`` read :data:`READ_BATCH` rows at a time and never
    hold a namespace in memory; ``bulk_load()`` tells the backend that a large load
    follows (``graphlore migrate``), so it may defer index maintenance to the end.

Transactions and processes
    Every write method is one transaction. :meth:`Store.atomic` groups several
    (nested calls are savepoints) and is exclusive per namespace across processes:
    while one ``atomic()`` block runs, another process's ``atomic()`` on the same
    namespace waits (up to the backend's busy timeout, then :class:`StoreBusy`).
    So a read inside ``atomic()`` followed by a write (resolve-then-write) never
    races another writer. Reads outside a transaction see the latest commit,
    from any process. For longer work that is not one transaction (embedding
    before a write), :func:`graphlore.store.factory.namespace_lock` is a named lock
    across processes.

Replacing a namespace
    :func:`graphlore.store.factory.replace_store` gives a namespace the contents of another in one
    transaction and deletes the other: a rebuild is made in a namespace of its own and replaces the
    namespace it rebuilds at the end, so readers see the old contents until then, and a rebuild that
    fails or is interrupted leaves them as they were. A store opened on the namespace before keeps
    working (SQLite) or is opened again by the runtime, whose identity check sees the change (PostgreSQL;
    a read already past that check when the swap commits answers ``store_busy``: call again).

Last write
    Every transaction that changes a row records when it committed, in the reserved metadata key
    :data:`WRITTEN_AT` (epoch seconds; a transaction that only reads records nothing). It is what
    :meth:`Store.last_write` answers and what ``graphlore stores`` shows; a store last written by a
    version before this one has none until its next write.

Errors
    No driver exception escapes a store: a busy store is :class:`StoreBusy`, an
    unreachable or unwritable one :class:`StoreUnavailable`, a damaged one
    :class:`IndexCorrupted` (its message ends with the repair hint the opener gave), a
    value the database cannot hold (a number past 64-bit integers, a NUL character on
    PostgreSQL) :class:`InvalidInput`. A ``limit`` or ``offset`` past the database's integers
    is read as the largest one (:func:`page_bound`): a page past the end is empty.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from graphlore.errors import InvalidInput

T = TypeVar("T")
#: ``where`` filters: see the module docstring.
Where = Mapping[str, Any]
#: The metadata key where a store records its last write (see "Last write" above); the store sets it.
WRITTEN_AT = "written_at"
#: Rows per read of ``iter_nodes`` / ``iter_edges``.
READ_BATCH = 1000
#: The integers a filter value may be (both backends store 64-bit integers).
INT_RANGE = (-(2**63), 2**63 - 1)


@dataclass
class Node:
    id: str
    kind: str
    name: str = ""
    text: str = ""
    props: dict[str, Any] = field(default_factory=dict)
    #: ``(k, dim)`` float32, one row per passage (k >= 1), or None: keep what is stored (not embedded yet)
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


def paged(read_page: Callable[[Any], list[tuple[Any, T]]]) -> Iterator[T]:
    """A listing read :data:`READ_BATCH` rows at a time: ``read_page(after)`` returns up to that many
    ``(key, item)`` pairs in key order past ``after`` (0 first), each page its own statement, so nothing
    holds a transaction or a whole namespace between pages."""
    after: Any = 0
    while True:
        page = read_page(after)
        yield from (item for _, item in page)
        if len(page) < READ_BATCH:
            return
        after = page[-1][0]


def newest_first(rows: list[tuple], limit: int | None) -> tuple[list[tuple], str | None, str | None]:
    """Order ``(write order, date, ...)`` rows of a selection as :class:`EdgeSelection` lists them (newest
    first, undated last, equal dates latest written first) and cut them at ``limit``; also the first and
    last date of all of them. One rule for every backend."""
    dated = [r[1] for r in rows if r[1] is not None]
    rows.sort(key=lambda r: (r[1] is not None, r[1] or "", r[0]), reverse=True)
    kept = rows if limit is None else rows[: max(0, int(limit))]
    return kept, (min(dated) if dated else None), (max(dated) if dated else None)


def newest_first_order(rows: Sequence[tuple]) -> np.ndarray:
    """The positions of ``(write order, date, ...)`` rows in the order :func:`newest_first` sorts them, from
    numpy's sort (a hub's selection holds thousands of rows; a Python sort with a key was a fifth of a
    ranked search)."""
    rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    dates = np.array([r[1] or "" for r in rows], dtype=str)
    dated = np.fromiter((r[1] is not None for r in rows), dtype=bool, count=len(rows))
    return np.lexsort((rowids, dates, dated))[::-1]


@dataclass(frozen=True)
class EdgeHit:
    """One ranked edge of :meth:`Store.rank_edges`."""

    id: str
    #: the fused score (see :func:`fused_edge_scores`): higher is better
    score: float
    #: the cosine of the edge's vector to the query vector (None: no query vector, or the edge has none)
    cosine: float | None
    #: BM25 of the query text over the edge's text, the selection being the collection (0: no term matched)
    keyword: float


@dataclass
class EdgeRanking:
    """A selection of edges ranked by a query: how many it holds, and its best ``limit``."""

    total: int
    hits: list[EdgeHit]


def check_edge_ranking(text: str | None, vector: np.ndarray | None, weights: tuple[float, float]
                       ) -> np.ndarray | None:
    """The arguments of :meth:`Store.rank_edges` checked; the query vector as float32 (None: none)."""
    if text is None and vector is None:
        raise InvalidInput("rank_edges needs a query text, a query vector or both")
    if len(weights) != 2 or any(not np.isfinite(w) or w < 0 for w in weights):
        raise InvalidInput(f"weights must be two numbers >= 0 (keyword, vector), got {tuple(weights)}")
    return None if vector is None else np.asarray(vector, dtype=np.float32).reshape(-1)


def fused_edge_scores(keyword: np.ndarray | None, cosine: np.ndarray | None, weights: tuple[float, float],
                      n: int) -> np.ndarray:
    """The score :meth:`Store.rank_edges` ranks by, for ``n`` edges: ``weights[0] * bm25 / best bm25 +
    weights[1] * cosine``, where the BM25 side counts only with a query text (0 where no term matched,
    all 0 when none did) and the cosine side only with a query vector (an edge without a vector: -1).
    It is :func:`graphlore.search.fusion.anchored` over one selection, with missing vectors lowest. Every
    backend computes this formula."""
    scores = np.zeros(n, dtype=np.float64)
    if keyword is not None and weights[0]:
        best = float(keyword.max()) if n else 0.0
        if best > 0:
            scores += weights[0] * keyword / best
    if cosine is not None and weights[1]:
        scores += weights[1] * np.where(np.isnan(cosine), -1.0, cosine)
    return scores


@dataclass
class EdgePage:
    """Edges of a node set in one direction (see :meth:`Store.edges_of`): the whole selection counted,
    one page of it returned."""

    #: edges that pass the filters (before ``offset`` / ``limit``)
    total: int
    #: the same count per edge type (types without edges left out)
    counts: dict[str, int]
    #: the page, ordered by (type, src, dst, id); vectors are not read (``vector`` is None)
    edges: list[Edge]


@dataclass(frozen=True)
class Hit:
    """One ranked node: ``score`` is BM25 (higher is better) or a cosine in [-1, 1]."""

    id: str
    score: float


#: The largest page size or offset a database is given (SQLite's and PostgreSQL's integers are 64-bit).
PAGE_BOUND = 2**62


def page_bound(value: int) -> int:
    """``value`` as a LIMIT or OFFSET: at least 0 and at most :data:`PAGE_BOUND`, which no namespace reaches,
    so a larger one reads the same (an offset past the end: nothing) instead of overflowing."""
    return min(max(0, int(value)), PAGE_BOUND)


def check_where(where: Where | None) -> list[tuple[str, list[Any]]]:
    """``where`` as (prop, accepted values) pairs, validated: what every backend's filter code reads."""
    if not where:
        return []
    out = []
    for key, condition in where.items():
        if not isinstance(key, str) or not key.isidentifier():
            raise InvalidInput(f"filter key {key!r} is not a valid property name (letters, digits and _)")
        values = list(condition) if isinstance(condition, list | tuple | set | frozenset) else [condition]
        for value in values:
            if value is not None and not isinstance(value, str | bool | int | float):
                raise InvalidInput(
                    f"filter {key!r}: {type(value).__name__} is not a filter value; use None, a boolean, "
                    "a number, a string, or a list of those"
                )
            if isinstance(value, int) and not isinstance(value, bool) and not INT_RANGE[0] <= value <= INT_RANGE[1]:
                raise InvalidInput(f"filter {key!r}: an integer outside what a store holds (-2**63 .. 2**63-1)")
        out.append((key, values))
    return out


@runtime_checkable
class Store(Protocol):
    #: the namespace this store holds (``items/<hash>``, ``facts/<graph>``, ...)
    namespace: str
    #: where the data lives, for people: a file path or a database URL without its password
    location: str

    def atomic(self) -> AbstractContextManager[None]: ...
    def close(self) -> None: ...
    def parallel_reads(self) -> bool:
        """Whether two searches started now from two threads would run at the same time and see the same
        data: a database server reached through a pool, outside an ``atomic()`` block of this thread
        (whose reads must see its own uncommitted writes). :func:`graphlore.search.hybrid_search` then
        runs its keyword and vector sides at once."""
        ...

    # namespace metadata (embedder name and dimension, index bookkeeping): JSON values; None deletes a key
    def get_meta(self, key: str) -> Any: ...
    def set_meta(self, key: str, value: Any) -> None: ...
    def get_meta_many(self, keys: Sequence[str]) -> dict[str, Any]:
        """The values of those of ``keys`` that are set, read in one statement (any number of keys)."""
        ...
    def set_meta_many(self, values: Mapping[str, Any]) -> None:
        """Set every value (None deletes the key), in one transaction."""
        ...
    def meta_items(self, prefix: str = "") -> dict[str, Any]:
        """Every key starting with ``prefix`` and its value, in key order, read in one statement."""
        ...
    def last_write(self) -> float | None:
        """When the latest transaction that changed a row committed (epoch seconds), or None when no write
        was recorded (see "Last write" in the module docstring)."""
        ...
    def bulk_load(self) -> AbstractContextManager[None]:
        """A large load follows (``graphlore migrate``): the backend may defer index maintenance until the
        block ends. Searches meanwhile still answer right (PostgreSQL scans exactly). A block that fails
        (Ctrl-C included) leaves the deferred work undone; its caller drops the half-loaded namespace."""
        ...

    # nodes
    def upsert_nodes(self, nodes: Sequence[Node]) -> None: ...
    def delete_nodes(self, ids: Sequence[str]) -> int: ...
    def get_nodes(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[Node]: ...
    def iter_nodes(self, kind: str | None = None, where: Where | None = None, *, with_vectors: bool = False
                   ) -> Iterator[Node]:
        """The nodes (of ``kind``, passing ``where``) in insertion order, :data:`READ_BATCH` at a time; their
        vectors too when ``with_vectors``."""
        ...
    def count_nodes(self, kind: str | None = None, where: Where | None = None) -> int: ...
    def node_hashes(self, kind: str | None = None) -> dict[str, str]: ...
    def node_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]: ...
    def list_node_ids(
        self, kind: str, *, order_by: str | None = None, descending: bool = False, limit: int | None = None,
        offset: int = 0, where: Where | None = None,
    ) -> list[str]: ...
    def node_ids_with_prefix(self, prefix: str) -> list[str]: ...
    def nodes_with_keys(
        self, kind: str | None, groups: Sequence[Sequence[str]], *, limit: int | None = None, offset: int = 0,
    ) -> tuple[int, list[str]]:
        """Nodes of ``kind`` (None: any kind) that hold, for every group, at least one of the group's lookup
        keys (AND of ORs; no groups: every node of the kind; an empty group: none). Returns how many match
        in all and the ids of the page ``offset`` .. ``offset + limit`` (``limit`` None: to the end), in
        insertion order (the order ``iter_nodes`` lists). Any non-negative ``limit`` and ``offset`` are taken,
        past the database's integers too (see :func:`page_bound`)."""
        ...

    # exact lookup keys per node (normalised names, aliases, document keys...)
    def set_node_keys(self, keys: Mapping[str, Sequence[str]]) -> None: ...
    def add_node_keys(self, keys: Mapping[str, Sequence[str]]) -> None: ...
    def nodes_by_keys(self, keys: Sequence[str], *, kind: str | None = None) -> dict[str, list[str]]: ...
    def node_keys(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """The lookup keys of each of ``ids`` that has any, sorted."""
        ...
    def prop_counts(self, kind: str, prop: str) -> dict[Any, int]:
        """How many nodes of ``kind`` hold each value of ``prop``, as ``where`` matches them: a scalar as it
        is, an array by each scalar element, a missing prop or JSON null as None (objects are not counted).
        What a filter on ``prop`` can select, without reading the nodes."""
        ...

    # ranking over the filtered set
    def keyword_search(
        self, query: str, *, kind: str | None = None, where: Where | None = None, limit: int = 100,
        weights: tuple[float, float] = (1.0, 1.0),
    ) -> list[Hit]: ...
    def vector_search(
        self, vector: np.ndarray, *, kind: str | None = None, where: Where | None = None, limit: int = 100,
    ) -> list[Hit]: ...
    def vector_scores(self, vector: np.ndarray, ids: Sequence[str]) -> dict[str, float]: ...
    def vector_search_many(
        self, vectors: np.ndarray, *, kinds: str | Sequence[str | None] | None = None, limit: int = 100,
    ) -> list[list[Hit]]: ...

    # edges
    def upsert_edges(self, edges: Sequence[Edge]) -> None: ...
    def delete_edges(self, ids: Sequence[str]) -> int: ...
    def get_edges(self, ids: Sequence[str]) -> list[Edge]: ...
    def select_edges(
        self, node_ids: Sequence[str], *, mode: str = "around", type: str | None = None,
        date_from: str | None = None, date_to: str | None = None, limit: int | None = None,
        with_vectors: bool = False, valid_at: str | None = None,
    ) -> EdgeSelection: ...
    def rank_edges(
        self, node_ids: Sequence[str], *, mode: str = "around", type: str | None = None,
        date_from: str | None = None, date_to: str | None = None, text: str | None = None,
        vector: np.ndarray | None = None, weights: tuple[float, float] = (0.3, 0.7), limit: int = 10,
        valid_at: str | None = None,
    ) -> EdgeRanking:
        """The edges ``select_edges`` would select (the same arguments), ranked by a query: ``text`` by BM25
        over each edge's text (the store's tokens and formula, with the selection as the collection:
        document count, lengths and document frequencies are the selection's), ``vector`` by the cosine to
        each edge's vector, fused as :func:`fused_edge_scores` says with ``weights`` (keyword, vector).
        Every selected edge is scored before the cut; ties stay newest first. ``total`` counts the
        selection. A query vector whose dimension the edges' vectors do not have is InvalidInput."""
        ...
    def iter_edges(self, type: str | None = None) -> Iterator[Edge]:
        """Every edge (of ``type``) in the order written, vectors included, :data:`READ_BATCH` at a time."""
        ...
    def edges_of(
        self, node_ids: Sequence[str], *, direction: str = "out", types: Sequence[str] | None = None,
        limit: int | None = None, offset: int = 0,
    ) -> EdgePage:
        """Edges leaving (``"out"``: src in ``node_ids``), entering (``"in"``: dst in them) or touching
        (``"both"``: either end in them, each edge once) the nodes, of ``types`` (None: every type; an empty
        list: none). Any number of node ids. ``total`` and ``counts`` cover the whole selection; ``edges``
        is the page ``offset`` .. ``offset + limit`` (``limit`` None: to the end; 0: counts only), ordered
        by (type, src, dst, id). A bad ``direction`` is :class:`~graphlore.errors.InvalidInput`."""
        ...
    def edge_ids_with_prefix(self, prefix: str) -> list[str]: ...
    def count_edges(self, type: str | None = None) -> int: ...
    def neighbour_counts(self, node_id: str, *, type: str | None = None, limit: int = 10) -> list[tuple[str, int]]: ...
    def most_connected(
        self, kind: str, *, type: str | None = None, limit: int = 50, offset: int = 0, where: Where | None = None,
    ) -> list[tuple[str, int]]:
        """Nodes of ``kind`` passing ``where`` with their count of edges (of ``type``; either direction),
        most first, ties by id."""
        ...
