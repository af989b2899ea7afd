"""Merges keep everything, and split undoes them exactly (real embedder, real SQLite)."""

from __future__ import annotations

import numpy as np
import pytest

from graphlore.errors import InvalidInput, NotFound
from graphlore.runtime import Runtime
from graphlore.toolsets.facts import mentions, resolve, tools
from graphlore.toolsets.facts.graph import FACT, FactsGraph
from graphlore.toolsets.facts.models import DocumentRecord, InfoRequest, SplitRequest
from graphlore.toolsets.facts.split import split
from graphlore.toolsets.facts.write import Writer

NYC_CITY = ("New York City", "Location", "the most populous city in the United States")
NYC = ("NYC", "Location", "largest city in the United States, on the Hudson River")


def doc(name, date, entities, facts=()):
    return DocumentRecord.model_validate({
        "name": name, "date": date, "chunks": [f"text of {name}"],
        "entities": [{"name": n, "type": t, "definition": d} for n, t, d in entities],
        "facts": [{"subject": s, "relationship": r, "object": o, "sentence": f"{s} {r} {o}.", "chunk": 0}
                  for s, r, o in facts],
    })


DOC_A = doc("a", "2024-01-01", [NYC_CITY, ("Hudson River", "Location", "river in New York State")],
            [("New York City", "lies on", "Hudson River")])
DOC_B = doc("b", "2024-02-01", [NYC, ("Eric Adams", "Person", "mayor of New York City from 2022")],
            [("Eric Adams", "is mayor of", "NYC"), ("NYC", "borders", "Eric Adams")])


@pytest.fixture
def runtime(settings, embedder) -> Runtime:
    return Runtime(settings, embedder=embedder)


def write(runtime, graph, *records):
    return Writer(FactsGraph(runtime, graph)).write(list(records))


def lookup_keys(store, node_id):
    """A node's lookup keys, sorted (the protocol looks nodes up by key, not keys by node: read each backend)."""
    if hasattr(store, "_conn"):  # SQLite
        rows = store._conn.execute(
            "SELECT key FROM node_keys JOIN nodes ON nodes.rowid = node_rowid WHERE nodes.id = ?", (node_id,))
    else:  # PostgreSQL
        with store._connection() as conn:
            rows = conn.execute(f"SELECT k.key FROM {store._s}.node_keys k JOIN {store._s}.nodes n "
                                "ON n.seq = k.node_seq WHERE n.id = %s", (node_id,)).fetchall()
    return sorted(k for (k,) in rows)


def state(runtime, graph):
    """Entities as (name, definition, aliases, type, keyword text, text hash, vector, lookup keys), and fact ends."""
    store = FactsGraph(runtime, graph).store()
    nodes = {}
    for node in store.iter_nodes("entity"):
        [vector] = store.node_vectors([node.id]).values()
        keys = lookup_keys(store, node.id)
        nodes[node.id] = (node.name, node.props["definition"], node.props["aliases"], node.props["type"], node.text,
                          node.text_hash, vector, keys)
    facts = {e.id: (e.src, e.dst) for e in store.get_edges([r.id for r in store.select_edges(
        [n for n in nodes], type=FACT).edges])}
    return nodes, facts


def test_a_merge_keeps_each_mention_and_info_says_which_document_said_what(runtime):
    write(runtime, "g", DOC_A)
    [b] = write(runtime, "g", DOC_B)
    assert next(r for r in b.resolutions if r.name == "NYC").action == "merged"
    info = tools.info(runtime, InfoRequest(name="NYC", graph="g"))
    assert (info.name, info.aliases, info.mention_count) == ("New York City", ["NYC"], 2)
    newest, first = info.mentions
    assert (newest.name, newest.definition, newest.action, newest.document.name) == ("NYC", NYC[2], "merged", "b")
    assert "abbreviates" in newest.reason
    assert (first.name, first.definition, first.action, first.document.name) == ("New York City", NYC_CITY[2],
                                                                                 "created", "a")
    assert newest.id == mentions.short_id({"key": resolve.Mention("entity", *NYC, []).key})


def test_split_undoes_a_merge_exactly(runtime, monkeypatch):
    write(runtime, "merged", DOC_A)
    write(runtime, "merged", DOC_B)
    info = tools.info(runtime, InfoRequest(name="New York City", graph="merged"))
    out = split(runtime, SplitRequest(name="E:new-york-city", mentions=[info.mentions[0].id], graph="merged"))
    assert (out.kept.id, out.split_off.id, out.split_off.name, out.facts_moved) == ("E:new-york-city", "E:nyc", "NYC", 2)

    # The same documents, with resolution never merging: what the graph would be had NYC not merged.
    original = resolve.decide

    def never_merge(*args, **kwargs):
        d = original(*args, **kwargs)
        return resolve.Decision("separate", d.score, d.reason) if d.action == "merge" else d

    monkeypatch.setattr(resolve, "decide", never_merge)
    write(runtime, "apart", DOC_A)
    write(runtime, "apart", DOC_B)
    (got, got_facts), (want, want_facts) = state(runtime, "merged"), state(runtime, "apart")
    assert got.keys() == want.keys() == {"E:new-york-city", "E:nyc", "E:hudson-river", "E:eric-adams"}
    for node_id in want:
        *fields, vector, keys = got[node_id]
        *expected, expected_vector, expected_keys = want[node_id]
        assert fields == expected and keys == expected_keys, node_id
        assert np.allclose(vector, expected_vector, atol=1e-6), node_id
    assert got_facts == want_facts


def test_after_a_split_the_names_that_left_never_merge_back(runtime):
    write(runtime, "g", DOC_A)
    write(runtime, "g", DOC_B)
    split(runtime, SplitRequest(name="New York City", mentions=["NYC"], graph="g"))
    [c] = write(runtime, "g", doc("c", "2024-03-01", [("NYC", "Location", "the largest city in the United States")]))
    [r] = c.resolutions
    assert r.id != "E:new-york-city"  # it merges into the split-off node or stands alone, never back
    store = FactsGraph(runtime, "g").store()
    [city, nyc] = store.get_nodes(["E:new-york-city", "E:nyc"])
    assert city.props["kept_apart"] == {"E:nyc": ["nyc"]} and nyc.props["kept_apart"] == {"E:new-york-city":
                                                                                          ["new york city"]}
    info = tools.info(runtime, InfoRequest(name="E:new-york-city", graph="g"))
    assert [n.id for n in info.kept_apart] == ["E:nyc"] and info.mention_count == 1
    blocked = resolve.decide(resolve.Mention("entity", *NYC, []), resolve.NodeState.from_node(city), 0.95, lambda: 0.9)
    assert blocked.action == "duplicate" and "split kept 'NYC' apart" in blocked.reason


def test_an_unchanged_document_reports_the_node_its_mention_is_in_now(runtime):
    write(runtime, "g", DOC_A)
    write(runtime, "g", DOC_B)
    split(runtime, SplitRequest(name="New York City", mentions=["NYC"], graph="g"))
    [again] = write(runtime, "g", DOC_B)
    assert again.status == "unchanged"
    assert {r.name: r.id for r in again.resolutions}["NYC"] == "E:nyc"


def test_split_refuses_what_it_cannot_do_and_changes_nothing(runtime):
    write(runtime, "g", DOC_A)
    write(runtime, "g", DOC_B)
    before = state(runtime, "g")
    with pytest.raises(InvalidInput, match="no mention of New York City .* has that id or name; its mentions .*NYC"):
        split(runtime, SplitRequest(name="New York City", mentions=["Gotham"], graph="g"))
    with pytest.raises(InvalidInput, match="those are all the mentions of New York City"):
        split(runtime, SplitRequest(name="New York City", mentions=["NYC", "New York City"], graph="g"))
    with pytest.raises(NotFound, match="no entity or topic named 'Gotham'"):
        split(runtime, SplitRequest(name="Gotham", mentions=["NYC"], graph="g"))
    after = state(runtime, "g")
    assert after[1] == before[1] and after[0].keys() == before[0].keys()


def _as_written_before_mention_records(runtime, graph):
    """Strip what this version adds: mention edges, the nodes' mention_seq, the facts' mention keys."""
    store = FactsGraph(runtime, graph).store()
    with store.atomic():
        store.delete_edges(store.edge_ids_with_prefix("M:"))
        for node in store.iter_nodes("entity"):
            for prop in ("mention_seq", "kept_apart"):
                node.props.pop(prop, None)
            store.upsert_nodes([node])
        entities = [n.id for n in store.iter_nodes("entity")]
        facts = store.get_edges([r.id for r in store.select_edges(entities, type=FACT).edges])
        for fact in facts:
            fact.props.pop("subject_key")
            fact.props.pop("object_key")
        store.upsert_edges(facts)


def test_a_graph_written_before_mention_records_keeps_working(runtime):
    """On the fly: its nodes read as they are; one that takes in a new mention keeps its old self as a legacy
    record, so that later merge can be split off exactly, facts without keys staying with the legacy record."""
    write(runtime, "g", DOC_A)
    write(runtime, "g", DOC_B)  # NYC merged, then the graph is made to look older than mention records
    _as_written_before_mention_records(runtime, "g")
    info = tools.info(runtime, InfoRequest(name="New York City", graph="g"))
    assert (info.mention_count, info.mentions, info.aliases) == (0, [], ["NYC"])
    with pytest.raises(InvalidInput, match="written before graphlore kept them"):
        split(runtime, SplitRequest(name="New York City", mentions=["NYC"], graph="g"))
    [c] = write(runtime, "g", doc("c", "2024-03-01", [("New York", "Location", "the most populous city in the United "
                                                      "States, also called New York City"),
                                                     ("Brooklyn", "Location", "borough of New York City")],
                                  [("Brooklyn", "is part of", "New York")]))
    assert next(r for r in c.resolutions if r.name == "New York").action == "merged"
    info = tools.info(runtime, InfoRequest(name="New York City", graph="g"))
    assert [(m.action, m.name) for m in info.mentions] == [("merged", "New York"), ("legacy", "New York City")]
    assert info.mentions[1].aliases == ["NYC"] and info.mentions[1].document is None
    out = split(runtime, SplitRequest(name="New York City", mentions=["New York"], graph="g"))
    assert (out.split_off.name, out.facts_moved, out.split_off.facts) == ("New York", 1, 1)
    assert (out.kept.name, out.kept.aliases, out.kept.facts) == ("New York City", ["NYC"], 3)
