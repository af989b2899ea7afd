"""Merge and split recompute every timeline they touch, and keep recorded link decisions (reviewer findings on
the facts toolset: a joining or leaving node that was a fact's object; links both nodes held)."""

from __future__ import annotations

import pytest

from graphlore.runtime import Runtime
from graphlore.store import Edge
from graphlore.toolsets.facts import tools
from graphlore.toolsets.facts.graph import DUPLICATE, FACT, FactsGraph
from graphlore.toolsets.facts.merge import merge
from graphlore.toolsets.facts.models import DocumentRecord, InfoRequest, MergeRequest, SplitRequest
from graphlore.toolsets.facts.split import split
from graphlore.toolsets.facts.write import Writer


def doc(name, date, entities, facts=()):
    return DocumentRecord.model_validate({
        "name": name, "date": date, "chunks": [f"text of {name}"],
        "entities": [{"name": n, "type": t, "definition": d} for n, t, d in entities],
        "facts": [{"subject": s, "relationship": r, "object": o, "sentence": f"{s} {r} {o}.", "chunk": 0,
                   "date_context": dc} for s, r, o, dc in facts]})


ACME = ("Acme Corp", "Company", "American maker of anvils and rockets")
JANE = ("Jane Doe", "Person", "American executive, chief executive of Acme")
ZEB = ("Zebulon Quarry", "Person", "Canadian geologist and mountaineer")
A = doc("a", "2020-01-01", [ACME, JANE], [("Acme Corp", "has CEO", "Jane Doe", "2020")])
B = doc("b", "2022-01-01", [ACME, ZEB], [("Acme Corp", "has CEO", "Zebulon Quarry", "2022")])


@pytest.fixture
def runtime(settings, embedder) -> Runtime:
    return Runtime(settings, embedder=embedder)


def graph_of(runtime, *records):
    graph = FactsGraph(runtime, "g")
    for r in records:
        Writer(graph).write([r])
    return graph.store()


def facts(store):
    return sorted((e.src, e.dst, e.props.get("valid_from"), e.props.get("valid_to"),
                   (e.props.get("ended_by") or {}).get("object")) for e in store.iter_edges(FACT))


def test_a_merge_of_two_objects_recomputes_the_subjects_timeline(runtime):
    store = graph_of(runtime, A, B)
    [(_, _, _, ended, by), _] = facts(store)
    assert ended == "2022-01-01" and by == "E:zebulon-quarry"  # Jane's fact ended by Zebulon's
    out = merge(runtime, MergeRequest(name="Jane Doe", other="Zebulon Quarry", graph="g"))
    # one CEO now: a restatement, nothing ends the first fact and nothing names the removed node
    assert out.validity_changed >= 1
    found = facts(store)
    assert all(e[1] == "E:jane-doe" for e in found)
    assert all(by != "E:zebulon-quarry" for *_, by in found)
    assert [e for e in found if e[3] is None], found  # the timeline has a current fact


def test_a_split_that_makes_a_restatement_two_objects_ends_the_older_fact(runtime):
    leads = "American businesswoman who leads Acme Corp as its chief executive"
    store = graph_of(runtime, doc("a", "2020-01-01", [ACME, JANE], [("Acme Corp", "has CEO", "Jane Doe", "2020")]),
                     doc("b", "2022-01-01", [ACME, ("Jane Doe", "Person", leads)],
                         [("Acme Corp", "has CEO", "Jane Doe", "2022")]))
    assert [e[3] for e in facts(store)] == [None, None]  # one CEO said twice
    first = tools.info(runtime, InfoRequest(name="Jane Doe", graph="g")).mentions[0].id
    out = split(runtime, SplitRequest(name="Jane Doe", mentions=[first], graph="g"))
    assert out.facts_moved == 1
    ended = [e for e in facts(store) if e[3] is not None]
    assert len(ended) == 1 and ended[0][3] == "2022-01-01", facts(store)
    assert {ended[0][1], ended[0][4]} == {out.kept.id, out.split_off.id}


def test_a_merge_keeps_the_stayers_link_to_a_node_both_link_to_and_split_gives_both_back(runtime):
    store = graph_of(runtime, doc("a", "2020-01-01", [
        ("Jane Doe", "Person", "American executive"), ("Zebulon Quarry", "Person", "Canadian geologist"),
        ("Xavier Pond", "Person", "British sailor")]))
    store.upsert_edges([
        Edge("dup:E:jane-doe|E:xavier-pond", "E:jane-doe", "E:xavier-pond", DUPLICATE,
             {"score": 0.9, "reason": "stay's", "decision": "different"}),
        Edge("dup:E:xavier-pond|E:zebulon-quarry", "E:xavier-pond", "E:zebulon-quarry", DUPLICATE,
             {"score": 0.5, "reason": "join's"})])

    def links():
        return sorted((e.id, e.props.get("reason"), e.props.get("decision")) for e in store.iter_edges(DUPLICATE))

    before = links()
    out = merge(runtime, MergeRequest(name="Jane Doe", other="Zebulon Quarry", graph="g"))
    assert links() == [("dup:E:jane-doe|E:xavier-pond", "stay's", "different")]  # the decision is kept
    split(runtime, SplitRequest(name="E:jane-doe", mentions=out.joined_mentions, graph="g"))
    assert links() == before
