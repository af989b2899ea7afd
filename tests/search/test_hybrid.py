"""hybrid_search over a real SQLite store: the batched form answers each query as the single one does."""

from __future__ import annotations

import numpy as np
import pytest

from graphlore.search import HybridParams, hybrid_search, hybrid_search_many
from graphlore.store import Node
from graphlore.store.sqlite import SQLiteStore

WORDS = "solar battery cloud retail freight mobile medical credit steel grain shipping insurance".split()


@pytest.fixture
def store(tmp_path):
    rng = np.random.default_rng(5)
    s = SQLiteStore(tmp_path / "store.db", "test/one")
    vectors = rng.normal(size=(60, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    s.upsert_nodes([Node(f"n{i}", "entity" if i % 3 else "topic", " ".join(rng.choice(WORDS, 2)),
                         " ".join(rng.choice(WORDS, 5)), vectors=vectors[i]) for i in range(60)])
    yield s
    s.close()


@pytest.mark.parametrize("method", ["anchored", "rrf"])
def test_many_queries_at_once_rank_and_score_as_one_at_a_time(store, method):
    rng = np.random.default_rng(9)
    queries = rng.normal(size=(4, 8)).astype(np.float32)
    texts, kinds = ["solar battery", "credit", "grain steel shipping", "nothing matches"], ["entity", "topic",
                                                                                              "entity", None]
    params = HybridParams(candidates=10, field_weights=(3.0, 1.0), method=method)
    batched = hybrid_search_many(store, texts, queries, kinds=kinds, limit=7, params=params)
    for text, query, kind, got in zip(texts, queries, kinds, batched, strict=True):
        one = hybrid_search(store, text, query, kind=kind, limit=7, params=params)
        assert [h.id for h in got] == [h.id for h in one] and len(got) == 7
        assert [h.score for h in got] == pytest.approx([h.score for h in one])
        assert all(0.0 <= h.score <= 1.0 for h in got)
        if kind:
            assert all((int(h.id[1:]) % 3 != 0) == (kind == "entity") for h in got)
    assert hybrid_search_many(store, [], np.empty((0, 8), np.float32), kinds=[]) == []
    with pytest.raises(ValueError, match="one each per query"):
        hybrid_search_many(store, ["a"], queries, kinds=["entity"])
