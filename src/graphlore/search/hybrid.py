"""Hybrid search over a store: BM25 and vector ranking (exact cosines; on large slices the SQLite engine
shortlists on a sketch and PostgreSQL searches its HNSW index) of the same filtered nodes, fused.

Both rankings see exactly the candidates the filters (``kind``, ``where``) let
through, before any top-k cut. The fused order decides the ranking; the score
each hit carries is the node's cosine similarity to the query (its best passage,
best over the query vectors), clipped to [0, 1], so a threshold on it means the
same thing whatever else is in the store. A node found only by BM25 still gets
its cosine computed. On a store whose reads can run in parallel (a database
server; :meth:`~graphlore.store.base.Store.parallel_reads`) and given the caller's
:class:`SideThreads` (the runtime owns one), the two sides run at once, so a search
takes about as long as the slower side.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphlore.search.fusion import CANDIDATES, DEFAULT_METHOD, cosine_to_unit, fuse
from graphlore.store.base import Hit, Store, Where

#: Keyword searches running at once beside their vector sides, per runtime (a server's worker threads
#: search concurrently; more than the database has connections to spare would only queue).
SIDE_THREADS = 8


class SideThreads:
    """Threads for the keyword side of searches on stores with :meth:`Store.parallel_reads`: made on first
    use (a SQLite-only process never starts one), shut down by :meth:`close` (the runtime's), usable again
    after it."""

    def __init__(self, workers: int = SIDE_THREADS) -> None:
        self.workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    @property
    def started(self) -> bool:
        return self._pool is not None

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="graphlore-keyword")
            return self._pool.submit(fn, *args, **kwargs)

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)


@dataclass(frozen=True)
class HybridParams:
    """How :func:`hybrid_search` ranks (benchmarks vary these instead of patching module constants)."""

    #: hits asked of each side before fusing
    candidates: int = CANDIDATES
    #: BM25 weights of the (name, text) columns
    field_weights: tuple[float, float] = (1.0, 1.0)
    #: a :data:`graphlore.search.fusion.FUSION_METHODS` name
    method: str = DEFAULT_METHOD
    #: (keyword, vector) fusion weights; None: the method's default
    weights: tuple[float, float] | None = None


def best_vector_hits(
    store: Store, vectors: np.ndarray, *, kind: str | None, where: Where | None, limit: int
) -> list[Hit]:
    """Vector hits for one or more query vectors; a node keeps its best score over all of them."""
    best: dict[str, float] = {}
    for vector in np.atleast_2d(vectors):
        for hit in store.vector_search(vector, kind=kind, where=where, limit=limit):
            if hit.score > best.get(hit.id, -2.0):
                best[hit.id] = hit.score
    ranked = sorted(best.items(), key=lambda kv: -kv[1])[:limit]
    return [Hit(k, v) for k, v in ranked]


def hybrid_search(
    store: Store,
    text: str,
    vectors: np.ndarray | Sequence[np.ndarray],
    *,
    kind: str | None,
    where: Where | None = None,
    limit: int = 10,
    params: HybridParams = HybridParams(),
    threads: SideThreads | None = None,
) -> list[Hit]:
    """Up to ``limit`` nodes in fused order, each scored by its cosine to the query (see the module doc).

    ``text`` feeds BM25; ``vectors`` (one query vector or several) the vector side; ``threads`` (the
    runtime's ``search_threads``) runs the keyword side beside the vector side where the store allows it.
    """
    queries = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    if threads is None or not store.parallel_reads():
        vector_hits = best_vector_hits(store, queries, kind=kind, where=where, limit=params.candidates)
        return _fused(store, text, queries, vector_hits, kind=kind, where=where, limit=limit, params=params)
    # A database server can run both sides at once: the search then takes about as long as the slower one.
    keyword = threads.submit(_keyword_hits, store, text, kind=kind, where=where, params=params)
    try:
        vector_hits = best_vector_hits(store, queries, kind=kind, where=where, limit=params.candidates)
    finally:
        wait([keyword])  # a failed vector side raises only once the keyword side is done with the store
    keyword_hits = keyword.result()
    return _fused(store, text, queries, vector_hits, kind=kind, where=where, limit=limit, params=params,
                  keyword_hits=keyword_hits)


def hybrid_search_many(
    store: Store,
    texts: Sequence[str],
    vectors: np.ndarray,
    *,
    kinds: Sequence[str | None],
    limit: int = 10,
    params: HybridParams = HybridParams(),
) -> list[list[Hit]]:
    """:func:`hybrid_search` for several queries (one vector each, each within its kind), answered alike:
    their vectors are scanned in one pass per kind (:meth:`Store.vector_search_many`), so n queries cost
    about one scan instead of n. No ``where`` filter (the batched vector search takes none)."""
    queries = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    if not (len(texts) == len(queries) == len(kinds)):
        raise ValueError(f"{len(texts)} texts, {len(queries)} vectors and {len(kinds)} kinds: one each per query")
    if not len(queries):
        return []
    found = store.vector_search_many(queries, kinds=list(kinds), limit=params.candidates)
    return [_fused(store, text, query[None, :], hits, kind=kind, where=None, limit=limit, params=params)
            for text, query, hits, kind in zip(texts, queries, found, kinds, strict=True)]


def _keyword_hits(store: Store, text: str, *, kind: str | None, where: Where | None, params: HybridParams) -> list[Hit]:
    return store.keyword_search(text, kind=kind, where=where, limit=params.candidates, weights=params.field_weights)


def _fused(
    store: Store, text: str, queries: np.ndarray, vector_hits: list[Hit], *, kind: str | None, where: Where | None,
    limit: int, params: HybridParams, keyword_hits: list[Hit] | None = None,
) -> list[Hit]:
    """BM25 for ``text`` (unless ``keyword_hits`` gives it) fused with ``vector_hits``; every listed node
    scored by its best cosine to ``queries``."""
    if keyword_hits is None:
        keyword_hits = _keyword_hits(store, text, kind=kind, where=where, params=params)
    fused = fuse(keyword_hits, vector_hits, params.method, weights=params.weights)[:limit]
    cosine = {h.id: h.score for h in vector_hits}
    # Only the nodes returned need a cosine: those BM25 alone found get theirs now.
    missing = [h.id for h in fused if h.id not in cosine]
    if missing:
        for query in queries:
            for node_id, score in store.vector_scores(query, missing).items():
                cosine[node_id] = max(score, cosine.get(node_id, -1.0))
    return [Hit(h.id, cosine_to_unit(cosine.get(h.id, 0.0))) for h in fused]
