"""Ranking: pure fusion functions (:mod:`.fusion`) and hybrid search over a store (:mod:`.hybrid`)."""

from graphsift.search.fusion import cosine_to_unit, fuse
from graphsift.search.hybrid import HybridParams, hybrid_search, hybrid_search_many

__all__ = ["HybridParams", "cosine_to_unit", "fuse", "hybrid_search", "hybrid_search_many"]
