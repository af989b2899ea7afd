"""Ranking: pure fusion functions (:mod:`.fusion`) and hybrid search over a store (:mod:`.hybrid`)."""

from graphlore.search.fusion import cosine_to_unit, fuse
from graphlore.search.hybrid import HybridParams, hybrid_search, hybrid_search_many

__all__ = ["HybridParams", "cosine_to_unit", "fuse", "hybrid_search", "hybrid_search_many"]
