"""Hybrid search over a store: BM25 and exact vector ranking of the same filtered nodes, fused.

Both rankings see exactly the candidates the filters (``kind``, ``where``) let
through, before any top-k cut. The fused order decides the ranking; the score
each hit carries is the node's cosine similarity to the query (its best passage,
best over the query vectors), clipped to [0, 1], so a threshold on it means the
same thing whatever else is in the store. A node found only by BM25 still gets
its cosine computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from graphsift.search.fusion import CANDIDATES, DEFAULT_METHOD, cosine_to_unit, fuse
from graphsift.store.base import Hit, Store, Where


@dataclass(frozen=True)
class HybridParams:
    """How :func:`hybrid_search` ranks (benchmarks vary these instead of patching module constants)."""

    #: hits asked of each side before fusing
    candidates: int = CANDIDATES
    #: BM25 weights of the (name, text) columns
    field_weights: tuple[float, float] = (1.0, 1.0)
    #: a :data:`graphsift.search.fusion.FUSION_METHODS` name
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
) -> list[Hit]:
    """Up to ``limit`` nodes in fused order, each scored by its cosine to the query (see the module doc).

    ``text`` feeds BM25; ``vectors`` (one query vector or several) the vector side.
    """
    queries = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    vector_hits = best_vector_hits(store, queries, kind=kind, where=where, limit=params.candidates)
    keyword_hits = store.keyword_search(text, kind=kind, where=where, limit=params.candidates,
                                        weights=params.field_weights)
    fused = fuse(keyword_hits, vector_hits, params.method, weights=params.weights)[:limit]
    cosine = {h.id: h.score for h in vector_hits}
    # Only the nodes returned need a cosine: those BM25 alone found get theirs now.
    missing = [h.id for h in fused if h.id not in cosine]
    if missing:
        for query in queries:
            for node_id, score in store.vector_scores(query, missing).items():
                cosine[node_id] = max(score, cosine.get(node_id, -1.0))
    return [Hit(h.id, cosine_to_unit(cosine.get(h.id, 0.0))) for h in fused]
