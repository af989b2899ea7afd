"""The Store protocol, on every backend: lookup keys, id listings, batched vector search by kind, edge neighbourhoods."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.vectors import unit

from graphlore.errors import InvalidInput
from graphlore.store import Edge, Node


def fact(eid: str, src: str, dst: str, date: str | None, vector=None, type: str = "fact") -> Edge:
    return Edge(eid, src, dst, type, {"n": eid}, f"{src} to {dst}", vector, date)


# -- lookup keys -------------------------------------------------------------------------------------


def test_node_keys_replace_per_node_filter_by_kind_and_go_with_the_node(store):
    store.upsert_nodes([Node("E:nyc", "entity", "New York City"), Node("T:nyc", "topic", "NYC"),
                        Node("E:apple", "entity", "Apple")])
    store.set_node_keys({"E:nyc": ["n:new york city", "i:nyc"], "T:nyc": ["i:nyc"], "E:apple": ["n:apple"]})
    assert store.nodes_by_keys(["i:nyc", "n:apple", "n:none"]) == {
        "i:nyc": ["E:nyc", "T:nyc"], "n:apple": ["E:apple"]}
    assert store.nodes_by_keys(["i:nyc"], kind="topic") == {"i:nyc": ["T:nyc"]}
    store.set_node_keys({"E:nyc": ["n:big apple"]})
    assert store.nodes_by_keys(["i:nyc", "n:big apple"], kind="entity") == {"n:big apple": ["E:nyc"]}
    store.add_node_keys({"E:nyc": ["n:big apple", "n:gotham"]})
    assert store.nodes_by_keys(["n:gotham", "n:big apple"]) == {"n:gotham": ["E:nyc"], "n:big apple": ["E:nyc"]}
    store.delete_nodes(["E:nyc"])
    assert store.nodes_by_keys(["n:big apple", "n:gotham"]) == {}
    for method in (store.set_node_keys, store.add_node_keys):
        with pytest.raises(InvalidInput, match="unknown node"):
            method({"E:missing": ["x"]})


def test_id_prefix_listing_is_a_range_and_not_a_pattern(store):
    store.upsert_nodes([Node(i, "chunk") for i in ("D:a#0", "D:a#1", "D:ab#0", "D:a_#0", "D:b#0")])
    assert store.node_ids_with_prefix("D:a#") == ["D:a#0", "D:a#1"]
    assert store.node_ids_with_prefix("D:a_") == ["D:a_#0"]  # '_' is not a wildcard here
    store.upsert_edges([fact("D:a/1", "x", "y", None), fact("D:a/2", "x", "y", None), fact("D:b/1", "x", "y", None)])
    assert store.edge_ids_with_prefix("D:a/") == ["D:a/1", "D:a/2"]


def test_list_node_ids_orders_by_name_prop_or_insertion(store):
    store.upsert_nodes([Node("d1", "document", "beta", props={"date": "2024-01-02"}),
                        Node("d2", "document", "Alpha", props={"date": "2025-05-01"}),
                        Node("d3", "document", "gamma", props={"date": "2023-12-31"}),
                        Node("x", "entity", "aardvark")])
    assert store.list_node_ids("document") == ["d1", "d2", "d3"]
    assert store.list_node_ids("document", order_by="name") == ["d2", "d1", "d3"]
    assert store.list_node_ids("document", order_by="date", descending=True, limit=2) == ["d2", "d1"]
    assert store.list_node_ids("document", order_by="date", descending=True, limit=2, offset=2) == ["d3"]
    assert store.list_node_ids("document", order_by="name", where={"date": ["2024-01-02", "2023-12-31"]},
                               limit=1, offset=1) == ["d3"]  # the page is cut from the filtered set
    assert store.list_node_ids("document", limit=2**64, offset=10**30) == []  # past 64-bit integers: empty
    assert store.list_node_ids("document", limit=10**30) == ["d1", "d2", "d3"]
    with pytest.raises(InvalidInput):
        store.list_node_ids("document", order_by="date; DROP TABLE nodes")


# -- batched vector search -------------------------------------------------------------------------


def test_vector_search_many_keeps_each_query_inside_its_kind(store):
    store.upsert_nodes([
        Node("e1", "entity", vectors=unit([1, 0, 0])),
        Node("t1", "topic", vectors=unit([1, 0.1, 0])),
        Node("e2", "entity", vectors=unit([0.9, 0.4, 0])),
        Node("t2", "topic", vectors=unit([0, 1, 0])),
        Node("e3", "entity", vectors=unit([0, 0, 1], [0.2, 1, 0])),  # two passages: scored by the best
        Node("c1", "chunk"),
    ])
    q = unit([1, 0, 0], [0, 1, 0], [0, 1, 0])
    ent, top, anyk = store.vector_search_many(q, kinds=["entity", "topic", None], limit=2)
    assert [h.id for h in ent] == ["e1", "e2"] and ent[0].score == pytest.approx(1.0, abs=1e-6)
    assert [h.id for h in top] == ["t2", "t1"]
    assert [h.id for h in anyk] == ["t2", "e3"]
    # Same answers as the one-query search, whatever the order the kinds were written in.
    for vector, kind, hits in ((q[0], "entity", ent), (q[1], "topic", top)):
        assert [(h.id, round(h.score, 5)) for h in store.vector_search(vector, kind=kind, limit=2)] == [
            (h.id, round(h.score, 5)) for h in hits]
    assert store.vector_search_many(q[:1], kinds="document", limit=3) == [[]]
    with pytest.raises(InvalidInput, match="kinds"):
        store.vector_search_many(q, kinds=["entity"], limit=1)


def test_vector_search_many_matches_brute_force_on_random_data(store):
    rng = np.random.default_rng(7)
    vectors = unit(*rng.normal(size=(500, 16)))
    kinds = ["entity" if i % 3 else "topic" for i in range(500)]
    store.upsert_nodes([Node(f"n{i:03d}", kinds[i], vectors=vectors[i]) for i in range(500)])
    queries = unit(*rng.normal(size=(4, 16)))
    asked = ["entity", "topic", "entity", None]
    for query, kind, hits in zip(queries, asked, store.vector_search_many(queries, kinds=asked, limit=5), strict=True):
        allowed = [i for i in range(500) if kind is None or kinds[i] == kind]
        expected = sorted(allowed, key=lambda i: -float(vectors[i] @ query))[:5]
        assert [h.id for h in hits] == [f"n{i:03d}" for i in expected]


# -- edge neighbourhoods ---------------------------------------------------------------------------


@pytest.fixture
def graph(store):
    store.upsert_edges([
        fact("f1", "apple", "beats", "2014-05-28", unit([1, 0])[0]),
        fact("f2", "microsoft", "apple", "2020-01-01", unit([0, 1])[0]),
        fact("f3", "apple", "inflation", "2022-06-30", unit([1, 1])[0]),
        fact("f4", "microsoft", "inflation", "2023-03-01"),
        fact("f5", "beats", "dre", "2024-12-31"),
        fact("f6", "apple", "microsoft", "2020-01-01"),
        fact("dup", "apple", "apple-inc", None, type="possible_duplicate"),
    ])
    return store


def test_around_is_either_end_in_the_set_newest_first(graph):
    sel = graph.select_edges(["apple"], type="fact")
    assert [e.id for e in sel.edges] == ["f3", "f6", "f2", "f1"]  # equal dates: latest written first
    assert (sel.total, sel.first_date, sel.last_date) == (4, "2014-05-28", "2022-06-30")
    both = graph.select_edges(["apple", "microsoft"], type="fact")
    assert [e.id for e in both.edges] == ["f4", "f3", "f6", "f2", "f1"]  # f6 and f2 touch both: once each
    assert {e.id for e in graph.select_edges(["apple"]).edges} == {"f1", "f2", "f3", "f6", "dup"}


def test_between_needs_both_ends_in_the_set(graph):
    assert [e.id for e in graph.select_edges(["apple", "microsoft"], mode="between").edges] == ["f6", "f2"]
    sel = graph.select_edges(["apple", "microsoft", "inflation"], mode="between", type="fact")
    assert [e.id for e in sel.edges] == ["f4", "f3", "f6", "f2"]
    assert graph.select_edges(["apple"], mode="between").total == 0
    with pytest.raises(InvalidInput, match="mode"):
        graph.select_edges(["apple"], mode="near")


def test_date_bounds_are_inclusive_and_limit_cuts_after_counting(graph):
    sel = graph.select_edges(["apple"], type="fact", date_from="2014-05-28", date_to="2020-01-01", limit=2)
    assert sel.total == 3 and [e.id for e in sel.edges] == ["f6", "f2"]
    assert graph.select_edges(["apple"], date_from="2014-05-29", date_to="2019-12-31").total == 0
    assert [e.id for e in graph.select_edges(["beats"], date_from="2024-12-31").edges] == ["f5"]


def test_vectors_come_only_when_asked(graph):
    plain = graph.select_edges(["apple"], type="fact")
    assert all(e.vector is None for e in plain.edges)
    withv = {e.id: e.vector for e in graph.select_edges(["apple"], type="fact", with_vectors=True).edges}
    assert np.allclose(withv["f1"], [1, 0]) and withv["f6"] is None
    [edge] = graph.get_edges(["f3"])
    assert edge.src == "apple" and edge.props == {"n": "f3"} and np.allclose(edge.vector, unit([1, 1])[0])


def test_counts_and_neighbours(graph):
    assert graph.count_edges() == 7 and graph.count_edges("fact") == 6
    assert graph.neighbour_counts("apple", type="fact") == [("microsoft", 2), ("beats", 1), ("inflation", 1)]
    assert graph.neighbour_counts("apple", limit=1) == [("microsoft", 2)]
    graph.upsert_nodes([Node(n, "entity", n) for n in ("apple", "microsoft", "beats", "dre", "lonely")])
    assert graph.most_connected("entity", type="fact", limit=3) == [("apple", 4), ("microsoft", 3), ("beats", 2)]
    assert graph.most_connected("entity", type="fact")[-1] == ("lonely", 0)
    assert graph.most_connected("entity", type="fact", limit=2, offset=1) == [("microsoft", 3), ("beats", 2)]
    assert graph.most_connected("entity", type="fact", limit=10**30, offset=10**30) == []
    assert len(graph.most_connected("entity", limit=2**63)) == 5


# -- edges_of: one direction, several types, counted, paged ------------------------------------------------


def test_edges_of_follows_the_direction_and_orders_by_type_src_dst(graph):
    out = graph.edges_of(["apple"])
    assert (out.total, out.counts) == (4, {"fact": 3, "possible_duplicate": 1})
    assert [e.id for e in out.edges] == ["f1", "f3", "f6", "dup"]  # fact before possible_duplicate, then by dst
    assert out.edges[0].props == {"n": "f1"} and out.edges[0].date == "2014-05-28" and out.edges[0].vector is None
    into = graph.edges_of(["apple"], direction="in")
    assert [e.id for e in into.edges] == ["f2"] and into.counts == {"fact": 1}
    both = graph.edges_of(["apple", "microsoft"], direction="both", types=["fact"])
    assert [e.id for e in both.edges] == ["f1", "f3", "f6", "f2", "f4"]  # f2 and f6 touch both ends: once each
    assert both.total == 5


def test_edges_of_counts_before_the_page_and_filters_types(graph):
    page = graph.edges_of(["apple", "microsoft"], types=["fact"], limit=2, offset=1)
    assert page.total == 5 and [e.id for e in page.edges] == ["f3", "f6"]
    counts_only = graph.edges_of(["apple"], limit=0)
    assert counts_only.total == 4 and counts_only.edges == []
    far = graph.edges_of(["apple"], limit=10**30, offset=2**63)  # past 64-bit integers: counted, no page
    assert far.total == 4 and far.edges == [] and len(graph.edges_of(["apple"], limit=10**30).edges) == 4
    assert graph.edges_of(["apple"], types=[]).total == 0
    assert graph.edges_of(["apple"], types=["possible_duplicate", "nothing"]).counts == {"possible_duplicate": 1}
    assert graph.edges_of([]).total == 0 and graph.edges_of(["missing"], direction="both").edges == []
    with pytest.raises(InvalidInput, match="direction"):
        graph.edges_of(["apple"], direction="around")


def test_edges_of_takes_any_number_of_node_ids(store):
    hub = [Edge(f"e{i:04d}", f"n{i:04d}", "hub", "calls") for i in range(1200)]
    store.upsert_edges(hub)
    page = store.edges_of([f"n{i:04d}" for i in range(1200)] + ["n0000"], limit=3)
    assert page.total == 1200 and [e.src for e in page.edges] == ["n0000", "n0001", "n0002"]
    assert store.edges_of(["hub"], direction="in", limit=1, offset=1199).edges[0].id == "e1199"


# -- nodes_with_keys: AND of ORs over lookup keys, counted, paged in insertion order -------------------------


def test_nodes_with_keys_is_an_and_of_ors_in_insertion_order(store):
    store.upsert_nodes([Node(n, "symbol" if n != "s" else "service", n) for n in ("c", "a", "b", "d", "s")])
    store.set_node_keys({"c": ["role=x", "lang=java"], "a": ["role=y", "lang=java"], "b": ["role=x", "lang=py"],
                         "d": ["lang=java"], "s": ["role=x", "lang=java"]})
    assert store.nodes_with_keys("symbol", [["role=x", "role=y"], ["lang=java"]]) == (2, ["c", "a"])
    assert store.nodes_with_keys(None, [["role=x"], ["lang=java"]]) == (2, ["c", "s"])
    assert store.nodes_with_keys("symbol", []) == (4, ["c", "a", "b", "d"])
    assert store.nodes_with_keys("symbol", [["lang=java"]], limit=1, offset=1) == (3, ["a"])
    assert store.nodes_with_keys("symbol", [["lang=java"]], limit=0) == (3, [])
    for past in (3, 2**63, 10**30):  # a page past the end, however far (past 64-bit integers too), is empty
        assert store.nodes_with_keys("symbol", [["lang=java"]], limit=10**30, offset=past) == (3, [])
    assert store.nodes_with_keys("symbol", [[]]) == (0, [])
    assert store.nodes_with_keys("symbol", [["nothing"]]) == (0, [])
    store.upsert_nodes([Node("a", "symbol", "a again")])  # an update keeps a node's place
    store.delete_nodes(["c"])
    assert store.nodes_with_keys("symbol", [["lang=java"]]) == (2, ["a", "d"])


def test_nodes_with_keys_takes_groups_of_any_size(store):
    store.upsert_nodes([Node(f"n{i}", "symbol") for i in range(3)])
    store.set_node_keys({"n1": ["k1"]})
    assert store.nodes_with_keys("symbol", [[f"k{i}" for i in range(40_000)]]) == (1, ["n1"])


def test_valid_at_keeps_what_held_that_day_before_ranking_and_the_cut(store):
    def held(eid, start, end=None, vector=None):
        props = {"valid_from": start, **({"valid_to": end} if end else {})}
        return Edge(eid, "acme", f"ceo-{eid}", "fact", props, f"acme ceo {eid}", vector, start)

    store.upsert_edges([held("a", "2010-01-01", "2015-06-01", unit([1, 0])[0]),
                        held("b", "2015-06-01", None, unit([0, 1])[0]),
                        held("c", "2012-01-01", "2015-06-01", unit([1, 1])[0]),
                        Edge("old", "acme", "x", "fact", {}, "acme before validity", None, "2001-01-01")])
    ids = lambda sel: [e.id for e in sel.edges]  # noqa: E731
    assert ids(store.select_edges(["acme"], valid_at="2011-01-01")) == ["a", "old"]  # no valid_from: always held
    assert ids(store.select_edges(["acme"], valid_at="2015-05-31")) == ["c", "a", "old"]
    assert ids(store.select_edges(["acme"], valid_at="2015-06-01")) == ["b", "old"]  # valid_to is exclusive
    assert ids(store.select_edges(["acme"], valid_at="9999-12-31", limit=1)) == ["b"]
    assert store.select_edges(["acme"], valid_at="9999-12-31", limit=1).total == 2
    ranked = store.rank_edges(["acme"], vector=unit([1, 0])[0], valid_at="2013-01-01", limit=1)
    assert ranked.total == 3 and [h.id for h in ranked.hits] == ["a"]
    ranked = store.rank_edges(["acme"], vector=unit([1, 0])[0], valid_at="2020-01-01", limit=5)
    assert [h.id for h in ranked.hits] == ["b", "old"]  # the best vector (a) ended: not ranked at all
