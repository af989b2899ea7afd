"""The Store protocol, on every backend: bulk metadata, listings (nodes and edges streamed in batches,
lookup keys, prop values), a bulk load, ranking a selection of edges by a query, and numbers the
database cannot hold."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from helpers.vectors import unit

from graphlore.errors import InvalidInput
from graphlore.store import Edge, Node
from graphlore.store.base import READ_BATCH, fused_edge_scores
from graphlore.store.terms import K1, MIN_IDF, B, query_terms, terms

# -- metadata ---------------------------------------------------------------------------------------------


def test_metadata_is_read_and_written_in_bulk_and_none_deletes(store):
    store.set_meta_many({"src:a.py": {"n": 1}, "src:b.py": [1, 2], "out:a.py": "x", "files": {"a.py": 1.5}})
    assert store.get_meta_many(["src:a.py", "files", "missing"]) == {"src:a.py": {"n": 1}, "files": {"a.py": 1.5}}
    assert list(store.meta_items("src:")) == ["src:a.py", "src:b.py"]
    assert store.meta_items("src:") == {"src:a.py": {"n": 1}, "src:b.py": [1, 2]}
    store.set_meta_many({"src:a.py": None, "out:a.py": "y"})
    assert store.meta_items("src:") == {"src:b.py": [1, 2]} and store.get_meta("out:a.py") == "y"
    store.set_meta("src:b.py", None)
    assert store.get_meta("src:b.py") is None and "src:b.py" not in store.meta_items()
    assert store.get_meta_many([]) == {}


def test_set_meta_many_is_one_transaction(store):
    store.set_meta("kept", 1)
    with pytest.raises(RuntimeError), store.atomic():
        store.set_meta_many({"kept": 2, "new": 3})
        raise RuntimeError("roll back")
    assert store.get_meta_many(["kept", "new"]) == {"kept": 1}


def test_many_metadata_keys_are_read_at_once(store):
    values = {f"src:{i:05d}.py": {"i": i} for i in range(2500)}
    store.set_meta_many(values)
    assert store.get_meta_many(list(values)) == values
    assert store.meta_items("src:") == values


# -- listings ---------------------------------------------------------------------------------------------


def test_iter_nodes_streams_every_node_in_insertion_order_with_vectors(store):
    count = READ_BATCH * 2 + 7
    store.upsert_nodes([Node(f"n{i:05d}", "item" if i % 3 else "other", props={"i": i},
                             vectors=unit([1, i % 5 + 1]) if i % 2 else None) for i in range(count)])
    listed = list(store.iter_nodes())
    assert [n.id for n in listed] == [f"n{i:05d}" for i in range(count)]
    assert [n.id for n in store.iter_nodes("other", {"i": [0, 3, 2005]})] == ["n00000", "n00003"]
    with_vectors = list(store.iter_nodes("item", with_vectors=True))
    assert len(with_vectors) == count - len(range(0, count, 3))
    assert all((n.vectors is not None) == (n.props["i"] % 2 == 1) for n in with_vectors)
    assert all(n.vectors is None for n in store.iter_nodes("item"))


def test_iter_nodes_checks_its_filter_when_called(store):
    with pytest.raises(InvalidInput, match="filter"):
        store.iter_nodes("item", {"bad key": 1})


def test_iter_edges_lists_every_edge_in_write_order_with_vectors(store):
    count = READ_BATCH + 3
    store.upsert_edges([Edge(f"e{i:05d}", "a", "b", "fact" if i % 2 else "link", {"i": i}, f"text {i}",
                             unit([1, i + 1])[0], "2024-01-01") for i in range(count)])
    store.upsert_edges([Edge("e00000", "a", "c", "link")])  # rewriting keeps its place
    edges = list(store.iter_edges())
    assert [e.id for e in edges] == [f"e{i:05d}" for i in range(count)]
    assert edges[0].dst == "c" and edges[0].vector is None and edges[1].vector.shape == (2,)
    assert len(list(store.iter_edges("fact"))) == count // 2


def test_node_keys_lists_each_nodes_lookup_keys(store):
    store.upsert_nodes([Node("a", "entity"), Node("b", "entity"), Node("c", "entity")])
    store.set_node_keys({"a": ["n:alpha", "e:alpha"], "b": ["n:beta"]})
    assert store.node_keys(["a", "b", "c", "missing"]) == {"a": ["e:alpha", "n:alpha"], "b": ["n:beta"]}


def test_prop_counts_count_values_as_filters_match_them(store):
    store.upsert_nodes([
        Node("a", "entity", props={"type": "Company", "tags": ["x", "y"]}),
        Node("b", "entity", props={"type": "company", "tags": ["x"]}),
        Node("c", "entity", props={"type": "Company", "flag": True, "n": 1}),
        Node("d", "entity", props={"type": None, "flag": False, "n": 1.0}),
        Node("e", "topic", props={"type": "Company"}),
    ])
    assert store.prop_counts("entity", "type") == {"Company": 2, "company": 1, None: 1}
    assert store.prop_counts("entity", "tags") == {"x": 2, "y": 1, None: 2}
    assert store.prop_counts("entity", "flag") == {True: 1, False: 1, None: 2}
    assert store.prop_counts("entity", "n") == {1: 2, None: 2}
    assert store.prop_counts("missing", "type") == {}
    for value, count in store.prop_counts("entity", "type").items():
        assert store.count_nodes("entity", {"type": value}) == count


def test_most_connected_takes_a_filter(store):
    store.upsert_nodes([Node(i, "entity", props={"type": t}) for i, t in
                        (("a", "Company"), ("b", "Person"), ("c", "Company"), ("d", "Company"))])
    store.upsert_edges([Edge("1", "a", "b", "fact"), Edge("2", "c", "b", "fact"), Edge("3", "c", "a", "fact")])
    assert store.most_connected("entity", type="fact", where={"type": "Company"}) == [("a", 2), ("c", 2), ("d", 0)]
    assert store.most_connected("entity", type="fact", where={"type": "Company"}, limit=1, offset=1) == [("c", 2)]


def test_select_edges_takes_any_number_of_node_ids(store):
    ids = [f"n{i}" for i in range(1500)]
    store.upsert_edges([Edge(f"e{i}", ids[i], ids[i + 1], "fact", date=f"2024-01-{i % 28 + 1:02d}")
                        for i in range(0, 1499, 2)])
    assert store.select_edges(ids, limit=0).total == 750
    assert store.select_edges(ids, mode="between", limit=3).total == 750
    assert store.rank_edges(ids, vector=None, text="anything", limit=1).total == 750


# -- bulk load --------------------------------------------------------------------------------------------


def test_a_bulk_load_leaves_a_store_that_searches_alike(store):
    with store.bulk_load():
        store.upsert_nodes([Node(f"n{i}", "doc", f"word{i}", vectors=unit([1, i + 1])) for i in range(50)])
        assert store.count_nodes() == 50
    hits = store.vector_search(unit([1, 1])[0], limit=3)
    assert [h.id for h in hits] == ["n0", "n1", "n2"]


# -- rank_edges -------------------------------------------------------------------------------------------


SENTENCES = [
    "Apple acquired Beats Electronics for three billion dollars",
    "Apple opened a new campus in Austin",
    "Beats headphones sold well in Europe",
    "Apple and Beats merged their streaming services",
    "The Austin campus hired engineers",
    "",
]


def _hub(store, rng):
    vectors = unit(*rng.normal(size=(len(SENTENCES), 8)).tolist())
    edges = [Edge(f"f{i}", "apple" if i % 2 == 0 else "beats", "beats" if i % 3 else "austin", "fact",
                  {"i": i}, text, vectors[i] if i != 4 else None, f"2024-0{i % 3 + 1}-01")
             for i, text in enumerate(SENTENCES)]
    edges.append(Edge("link", "apple", "beats", "possible_duplicate", text="apple beats"))
    store.upsert_edges(edges)
    return edges


def _bm25(texts: list[str], query: str) -> np.ndarray:
    """BM25 of ``query`` over ``texts`` as a collection (the reference for the store's)."""
    docs = [Counter(terms(t)) for t in texts]
    lengths = [sum(d.values()) for d in docs]
    avgdl = max(sum(lengths) / len(docs), 1e-9)
    out = np.zeros(len(texts))
    for term in query_terms(query):
        df = sum(1 for d in docs if term in d)
        if not df:
            continue
        idf = max(math.log((len(docs) - df + 0.5) / (df + 0.5)), MIN_IDF)
        for i, d in enumerate(docs):
            f = d.get(term, 0)
            if f:
                out[i] += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * lengths[i] / avgdl))
    return out


def _newest_first(edges):
    return sorted(edges, key=lambda e: (e.date is not None, e.date or ""), reverse=True)


@pytest.mark.parametrize("weights", [(0.0, 1.0), (1.0, 0.0), (0.3, 0.7)])
def test_rank_edges_scores_every_selected_edge_by_the_documented_formula(store, weights):
    rng = np.random.default_rng(4)
    edges = [e for e in _hub(store, rng) if e.type == "fact"]
    query_vector, query_text = unit(rng.normal(size=8).tolist())[0], "Apple Beats streaming"
    ranking = store.rank_edges(["apple"], type="fact", text=query_text, vector=query_vector, weights=weights,
                               limit=10)
    selected = _newest_first([e for e in edges if "apple" in (e.src, e.dst)])
    assert ranking.total == len(selected)
    cosine = np.array([np.nan if e.vector is None else float(e.vector @ query_vector) for e in selected])
    keyword = _bm25([e.text for e in selected], query_text)
    expected = fused_edge_scores(keyword, cosine, weights, len(selected))
    order = np.argsort(-expected, kind="stable")
    assert [h.id for h in ranking.hits] == [selected[i].id for i in order]
    assert [h.score for h in ranking.hits] == pytest.approx(expected[order].tolist(), abs=1e-5)
    by_id = {h.id: h for h in ranking.hits}
    for e, c, k in zip(selected, cosine, keyword, strict=True):
        hit = by_id[e.id]
        if weights[1]:
            assert (hit.cosine is None) == (e.vector is None)
            if e.vector is not None:
                assert hit.cosine == pytest.approx(c, abs=1e-5)
        if weights[0]:
            assert hit.keyword == pytest.approx(k, abs=1e-6)


def test_rank_edges_cuts_after_ranking_and_keeps_ties_newest_first(store):
    store.upsert_edges([Edge(f"e{i}", "a", "b", "fact", text="same words", vector=unit([1, 0])[0],
                             date=f"2024-01-{i + 1:02d}") for i in range(5)]
                       + [Edge("best", "a", "b", "fact", text="other", vector=unit([0, 1])[0], date="2020-01-01")])
    ranking = store.rank_edges(["a"], vector=unit([0.1, 1])[0], weights=(0.0, 1.0), limit=3)
    assert [h.id for h in ranking.hits] == ["best", "e4", "e3"] and ranking.total == 6
    ranking = store.rank_edges(["a"], text="words", weights=(1.0, 0.0), limit=2, date_to="2024-01-03")
    assert [h.id for h in ranking.hits] == ["e2", "e1"] and ranking.total == 4
    assert [h.score for h in ranking.hits] == [1.0, 1.0]


def test_numpys_newest_first_order_is_the_python_sorts():
    """The SQLite store orders a ranked selection with numpy: the same order as :func:`newest_first`."""
    from graphlore.store.base import newest_first, newest_first_order

    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 7, 60):
        dates = [None if rng.random() < 0.2 else f"2024-01-{int(rng.integers(1, 4)):02d}" for _ in range(n)]
        rows = [(int(w), d, f"e{w}") for w, d in zip(rng.permutation(n), dates, strict=True)]
        expected, _, _ = newest_first(list(rows), None)
        assert [rows[i] for i in newest_first_order(rows)] == expected


def test_rank_edges_refuses_what_it_cannot_rank(store):
    store.upsert_edges([Edge("e", "a", "b", "fact", text="x", vector=unit([1, 0])[0])])
    with pytest.raises(InvalidInput, match="text, a query vector or both"):
        store.rank_edges(["a"])
    with pytest.raises(InvalidInput, match="dimension"):
        store.rank_edges(["a"], vector=unit([1, 0, 0])[0])
    with pytest.raises(InvalidInput, match="weights"):
        store.rank_edges(["a"], text="x", weights=(-1.0, 1.0))
    with pytest.raises(InvalidInput, match="mode"):
        store.rank_edges(["a"], text="x", mode="near")
    assert store.rank_edges([], text="x").total == 0
    assert store.rank_edges(["nobody"], text="x", vector=unit([1, 0])[0]).hits == []


# -- numbers ----------------------------------------------------------------------------------------------


def test_numbers_the_database_cannot_hold_are_invalid_input_or_read_as_the_largest(store):
    store.upsert_nodes([Node("a", "item", props={"n": 1})])
    with pytest.raises(InvalidInput, match="integer"):
        store.count_nodes("item", {"n": 10**100})
    with pytest.raises(InvalidInput, match="integer"):
        store.list_node_ids("item", where={"n": [1, -(10**30)]})
    assert store.count_nodes("item", {"n": 2**63 - 1}) == 0
    huge = 10**100
    assert store.list_node_ids("item", limit=huge, offset=huge) == []
    assert store.neighbour_counts("a", limit=huge) == []
    assert [h.id for h in store.keyword_search("x", limit=huge)] == []
    assert store.most_connected("item", limit=huge, offset=0) == [("a", 0)]
