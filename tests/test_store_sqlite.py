"""The SQLite store: round trips, filters before ranking, transactions, the cross-process cache."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from graphsift.errors import IndexCorrupted, InvalidInput
from graphsift.store import Edge, Node, SQLiteStore
from graphsift.store.sqlite import MIGRATIONS


def unit(*rows: list[float]) -> np.ndarray:
    m = np.asarray(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "graph.db", "test")
    yield s
    s.close()


def test_round_trip_keeps_text_props_and_passage_vectors(store):
    store.upsert_nodes([Node("a", "item", "Alpha", "first text", {"status": "open", "n": 1},
                             unit([1, 0, 0], [0, 1, 0]), "h1")])
    [node] = store.get_nodes(["a"], with_vectors=True)
    assert (node.name, node.text, node.props, node.text_hash) == ("Alpha", "first text", {"status": "open", "n": 1}, "h1")
    assert node.vectors.shape == (2, 3)
    assert store.get_meta("vector_dim") == 3


def test_upsert_without_vectors_keeps_stored_vectors(store):
    store.upsert_nodes([Node("a", "item", "A", "t", vectors=unit([1, 0, 0]))])
    store.upsert_nodes([Node("a", "item", "A2", "t2", {"x": 1})])
    [node] = store.get_nodes(["a"], with_vectors=True)
    assert node.name == "A2" and node.vectors is not None


def test_vector_search_scores_best_passage_and_filters_before_ranking(store):
    store.upsert_nodes([
        Node("near", "item", vectors=unit([1, 0, 0], [0, 0, 1]), props={"status": "done"}),
        Node("mid", "item", vectors=unit([1, 1, 0]), props={"status": "open"}),
        Node("far", "item", vectors=unit([0, 1, 0]), props={"status": "open"}),
        Node("other", "topic", vectors=unit([1, 0, 0])),
    ])
    hits = store.vector_search(np.array([0, 0, 1.0]), kind="item", limit=3)
    assert hits[0].id == "near" and hits[0].score == pytest.approx(1.0, abs=1e-6)
    # The best match is filtered out before ranking, not after a top-k cut.
    open_hits = store.vector_search(np.array([1.0, 0, 0]), kind="item", where={"status": "open"}, limit=1)
    assert [h.id for h in open_hits] == ["mid"]
    assert {h.id for h in store.vector_search(np.array([1.0, 0, 0]), limit=10)} == {"near", "mid", "far", "other"}


def test_where_accepts_lists_and_booleans(store):
    store.upsert_nodes([Node(f"n{i}", "item", text=f"word{i} common", props={"t": "bug" if i % 2 else "feature",
                                                                            "done": i % 3 == 0},
                             vectors=unit([1, i, 0])) for i in range(6)])
    assert store.count_nodes("item", {"t": ["bug", "feature"]}) == 6
    assert store.count_nodes("item", {"done": True}) == 2
    assert store.count_nodes("item", {"done": False, "t": "bug"}) == 2
    kw = store.keyword_search("common", kind="item", where={"done": True})
    assert {h.id for h in kw} == {"n0", "n3"}
    vec = store.vector_search(np.array([1.0, 0, 0]), kind="item", where={"done": True}, limit=10)
    assert {h.id for h in vec} == {"n0", "n3"}
    with pytest.raises(InvalidInput):
        store.count_nodes("item", {"bad key!": 1})


def test_keyword_search_ranks_by_bm25_with_field_weights(store):
    store.upsert_nodes([
        Node("title-hit", "item", name="replication lag", text="something else entirely"),
        Node("body-hit", "item", name="other", text="replication lag seen on replicas replication"),
        Node("none", "item", name="unrelated", text="nothing here"),
    ])
    hits = store.keyword_search("replication lag", kind="item", weights=(10.0, 1.0))
    assert [h.id for h in hits] == ["title-hit", "body-hit"]
    assert hits[0].score > hits[1].score > 0
    assert store.keyword_search("the of and") == []  # only stop words: nothing to match
    assert store.keyword_search("!!! ???") == []


def test_delete_removes_vectors_term_rows_and_edges(store):
    store.upsert_nodes([Node("a", "item", "alpha", "zebra", vectors=unit([1, 0])),
                        Node("b", "item", "beta", "yak", vectors=unit([0, 1]))])
    store.upsert_edges([Edge("e1", "a", "b", "rel", text="a to b", date="2024-01-01")])
    assert store.delete_nodes(["a", "missing"]) == 1
    assert store.keyword_search("zebra") == []
    assert [h.id for h in store.vector_search(np.array([1.0, 0]), limit=5)] == ["b"]
    assert store.edges_of(["b"]) == []
    assert sqlite3.connect(store.path).execute("SELECT count(*) FROM node_terms").fetchone()[0] == 1


def test_atomic_rolls_back_everything_on_error(store):
    store.upsert_nodes([Node("keep", "item", text="kept")])
    with pytest.raises(RuntimeError):
        with store.atomic():
            store.upsert_nodes([Node("new", "item", text="new")])
            store.delete_nodes(["keep"])
            store.set_meta("k", 1)
            raise RuntimeError("boom")
    assert [n.id for n in store.iter_nodes()] == ["keep"]
    assert store.get_meta("k") is None


def test_dimension_mismatch_is_rejected_and_changes_nothing(store):
    store.upsert_nodes([Node("a", "item", vectors=unit([1, 0, 0]))])
    with pytest.raises(InvalidInput, match="dimension"):
        store.upsert_nodes([Node("b", "item"), Node("c", "item", vectors=unit([1, 0]))])
    assert store.count_nodes() == 1


def test_cache_sees_writes_from_another_connection(tmp_path):
    first = SQLiteStore(tmp_path / "g.db")
    second = SQLiteStore(tmp_path / "g.db")
    first.upsert_nodes([Node("a", "item", vectors=unit([1, 0]))])
    assert [h.id for h in second.vector_search(np.array([1.0, 0]), limit=5)] == ["a"]
    first.upsert_nodes([Node("b", "item", vectors=unit([0.9, 0.1]))])
    assert [h.id for h in second.vector_search(np.array([1.0, 0]), limit=5)] == ["a", "b"]
    first.delete_nodes(["a"])
    assert [h.id for h in second.vector_search(np.array([1.0, 0]), limit=5)] == ["b"]


def test_edges_round_trip_by_direction(store):
    store.upsert_edges([Edge("e1", "a", "b", "acquired", {"w": 1}, "A acquired B", unit([1, 0])[0], "2025-10-15"),
                        Edge("e2", "c", "a", "sued")])
    assert [e.id for e in store.edges_of(["a"], direction="out")] == ["e1"]
    assert [e.id for e in store.edges_of(["a"], direction="in")] == ["e2"]
    [e1] = store.edges_of(["b"])
    assert e1.props == {"w": 1} and e1.date == "2025-10-15" and e1.vector.shape == (2,)
    with pytest.raises(InvalidInput):
        store.edges_of(["a"], direction="up")


def test_a_file_that_is_not_a_database_is_reported_as_corrupted(tmp_path):
    path = tmp_path / "bad.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(IndexCorrupted, match="not a readable graphsift store"):
        SQLiteStore(path)


def test_schema_is_versioned_with_user_version(store):
    conn = sqlite3.connect(store.path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_vector_scores_are_best_passage_cosines_for_the_asked_ids(store):
    store.upsert_nodes([Node("a", "item", vectors=unit([1, 0, 0], [0, 1, 0])), Node("b", "item", vectors=unit([1, 1, 0])),
                        Node("c", "item")])
    scores = store.vector_scores(np.array([0, 1.0, 0]), ["a", "b", "c", "missing"])
    assert scores == pytest.approx({"a": 1.0, "b": 2 ** -0.5}, abs=1e-6)
    # Right after a vector_search with the same query they come from its scores, with the same answer;
    # another query, or a write in between, computes them again.
    store.vector_search(np.array([0, 1.0, 0], dtype=np.float32), limit=1)
    assert store.vector_scores(np.array([0, 1.0, 0]), ["a", "b", "c", "missing"]) == scores
    assert store.vector_scores(np.array([1.0, 0, 0]), ["b"]) == pytest.approx({"b": 2 ** -0.5}, abs=1e-6)
    store.upsert_nodes([Node("b", "item", vectors=unit([0, 0, 1]))])
    assert store.vector_scores(np.array([0, 1.0, 0]), ["b"]) == pytest.approx({"b": 0.0}, abs=1e-6)


def test_a_version_1_store_gets_its_term_counts_from_the_migration(tmp_path):
    """Stores written before BM25 moved off FTS5 keep working: migration 2 tokenises their nodes."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0] + "PRAGMA user_version = 1;")
    conn.execute("INSERT INTO nodes(id, kind, name, text, created_at, updated_at) "
                 "VALUES ('a', 'item', 'Replication lag', 'replicas fall behind', 0, 0)")
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert [h.id for h in store.keyword_search("replica lagging")] == ["a"]
    tables = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
    assert "nodes_fts" not in tables and "node_terms" in tables


def test_node_counts_stay_exact_around_the_search_cache(store, tmp_path):
    """Counts come from the search cache when one is current; writes by this or another connection,
    and writes inside an open transaction, are counted all the same."""
    store.upsert_nodes([Node("a", "item", vectors=unit([1, 0])), Node("t", "topic", vectors=unit([0, 1]))])
    store.vector_search(np.array([1.0, 0], dtype=np.float32), limit=1)  # builds the cache
    assert (store.count_nodes("item"), store.count_nodes("topic"), store.count_nodes()) == (1, 1, 2)
    with store.atomic():
        store.upsert_nodes([Node("b", "item", vectors=unit([1, 1]))])
        assert store.count_nodes("item") == 2
    store.vector_search(np.array([1.0, 0], dtype=np.float32), limit=1)
    other = SQLiteStore(tmp_path / "graph.db", "test")
    other.upsert_nodes([Node("c", "item", vectors=unit([0, 1]))])
    other.close()
    assert store.count_nodes("item") == 3
    store.vector_search(np.array([1.0, 0], dtype=np.float32), limit=1)
    assert store.count_nodes("item") == 3 and store.count_nodes("item", where={"x": 1}) == 0
