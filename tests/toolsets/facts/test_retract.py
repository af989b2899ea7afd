"""Retraction gives the graph that never saw the document; merge is undone exactly by split (real embedder,
the run's backend: SQLite, or PostgreSQL with GRAPHLORE_TEST_BACKEND=postgres)."""

from __future__ import annotations

import pytest
from helpers.graph_state import assert_same_graph, graph_state

from graphlore.errors import InvalidInput, NotFound
from graphlore.tools import CallContext
from graphlore.toolsets.facts import tools
from graphlore.toolsets.facts.graph import FactsGraph
from graphlore.toolsets.facts.merge import merge
from graphlore.toolsets.facts.models import (
    DocumentRecord,
    InfoRequest,
    MergeRequest,
    RetractRequest,
    SearchRequest,
    SplitRequest,
)
from graphlore.toolsets.facts.retract import retract
from graphlore.toolsets.facts.split import split
from graphlore.toolsets.facts.write import Writer

CONTEXT = CallContext(session="t")


def doc(name, date, entities, facts=()):
    return DocumentRecord.model_validate({
        "name": name, "date": date, "chunks": [f"text of {name}"],
        "entities": [{"name": n, "type": t, "definition": d, "aliases": list(a)} for n, t, d, *a in entities],
        "facts": [{"subject": s, "relationship": r, "object": o, "sentence": f"{s} {r} {o}.", "chunk": 0,
                   **({"date_context": dc[0]} if dc else {})} for s, r, o, *dc in facts],
    })


MONDELEZ = ("Mondelez International", "Company", "American multinational confectionery and snack food company")
A = doc("a", "2020-01-01", [MONDELEZ, ("Irene Rosenfeld", "Person", "American businesswoman, chief executive of Mondelez")],
        [("Mondelez International", "has CEO", "Irene Rosenfeld", "2012")])
# B's mention merges into Mondelez and brings the alias "Kraft Foods Inc": C's Kraft merges only because of it.
B = doc("b", "2021-01-01", [("Mondelez International Inc", "Company", "American multinational confectionery, food and "
                             "snack company formerly called Kraft Foods Inc", "Kraft Foods Inc"),
                            ("Dirk Van de Put", "Person", "Belgian-American businessman, chief executive of Mondelez")],
        [("Mondelez International Inc", "has CEO", "Dirk Van de Put", "2017")])
C = doc("c", "2022-01-01", [("Kraft Foods Inc", "Company", "American grocery manufacturing and processing conglomerate"),
                            MONDELEZ, ("Irene Rosenfeld", "Person", "American businesswoman, chief executive of Mondelez")],
        [("Kraft Foods Inc", "spun off", "Mondelez International"),
         ("Mondelez International", "has CEO", "Irene Rosenfeld", "2012")])


def write(runtime, graph, *records):
    out = []
    for record in records:  # one write each: documents arrive one by one
        out += Writer(FactsGraph(runtime, graph)).write([record])
    return out


def state(runtime, graph):
    return graph_state(FactsGraph(runtime, graph).store())


def test_retracting_a_document_gives_the_graph_that_never_saw_it(runtime):
    [_, b, c] = write(runtime, "abc", A, B, C)
    assert next(r for r in c.resolutions if r.name == "Kraft Foods Inc").action == "merged"  # rests on B's alias
    info = tools.info(runtime, InfoRequest(name="Mondelez International", graph="abc"))
    assert [f.object.name for f in info.superseded_facts] == ["Irene Rosenfeld", "Irene Rosenfeld"]

    out = retract(runtime, RetractRequest(document="b", graph="abc"))
    assert out.facts_removed == 1 and out.mentions_removed == 2
    assert [n.id for n in out.nodes_removed] == ["E:dirk-van-de-put"]
    assert [n.id for n in out.came_apart] == ["E:kraft-foods-inc"]
    assert out.validity_changed == 2  # what B's CEO fact ended holds again

    write(runtime, "ac", A, C)
    assert_same_graph(state(runtime, "abc"), state(runtime, "ac"))


def test_retracting_the_first_and_the_last_document(runtime):
    write(runtime, "abc", A, B, C)
    retract(runtime, RetractRequest(document="a", graph="abc"))
    write(runtime, "bc", B, C)
    assert_same_graph(state(runtime, "abc"), state(runtime, "bc"))
    retract(runtime, RetractRequest(document="c", graph="abc"))
    write(runtime, "b", B)
    assert_same_graph(state(runtime, "abc"), state(runtime, "b"))


def test_retract_refuses_what_it_cannot_find_and_changes_nothing(runtime):
    write(runtime, "g", A, B)
    before = state(runtime, "g")
    with pytest.raises(NotFound, match="no document named 'nope'"):
        retract(runtime, RetractRequest(document="nope", graph="g"))
    assert_same_graph(state(runtime, "g"), before)


def test_current_and_as_of_read_validity(runtime):
    write(runtime, "g", A, B)
    ask = {"entity": ["Mondelez International"], "graph": "g"}
    now = tools.search(runtime, SearchRequest(**ask, current=True), context=CONTEXT)
    assert [f.object.name for f in now.results] == ["Dirk Van de Put"]
    then = tools.search(runtime, SearchRequest(**ask, as_of="2015"), context=CONTEXT)
    [old] = then.results
    assert (old.object.name, old.valid_from, old.valid_to) == ("Irene Rosenfeld", "2012-01-01", "2017-01-01")
    assert old.ended_by.object == "E:dirk-van-de-put" and old.ended_by.document == "D:b"
    assert tools.search(runtime, SearchRequest(**ask, as_of="2011"), context=CONTEXT).total == 0
    with pytest.raises(ValueError, match="exclude each other"):
        SearchRequest(**ask, as_of="2015", current=True)


def test_split_after_merge_restores_both_nodes_exactly(runtime):
    write(runtime, "g", A)
    before = state(runtime, "g")
    out = merge(runtime, MergeRequest(name="Mondelez International", other="Irene Rosenfeld", graph="g"))
    assert out.removed.id == "E:irene-rosenfeld" and out.facts_moved == 1
    assert tools.info(runtime, InfoRequest(name="E:mondelez-international", graph="g")).aliases == ["Irene Rosenfeld"]
    with pytest.raises(NotFound):
        tools.info(runtime, InfoRequest(name="E:irene-rosenfeld", graph="g"))
    split(runtime, SplitRequest(name="E:mondelez-international", mentions=out.joined_mentions, graph="g"))
    assert_same_graph(state(runtime, "g"), before)


def test_merge_refuses_what_it_cannot_do_and_changes_nothing(runtime):
    write(runtime, "g", A)
    before = state(runtime, "g")
    with pytest.raises(InvalidInput, match="one node already"):
        merge(runtime, MergeRequest(name="Mondelez International", other="E:mondelez-international", graph="g"))
    with pytest.raises(NotFound):
        merge(runtime, MergeRequest(name="Mondelez International", other="Nobody", graph="g"))
    assert_same_graph(state(runtime, "g"), before)


def test_the_cli_and_kg_execute_retract_merge_and_read_validity(tmp_path, embedder):
    import json

    from click.testing import CliRunner
    from helpers.backend import env_for

    from graphlore.adapters.cli import build_cli
    from graphlore.config import Settings
    from graphlore.runtime import Runtime

    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    runner = CliRunner(env=env_for(tmp_path / "home"))

    def run(*args, code=0):
        result = runner.invoke(app, ["facts", *args], catch_exceptions=False)
        assert result.exit_code == code, (result.output, result.stderr)
        return result

    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text("".join(json.dumps(r.model_dump(mode="json")) + "\n" for r in (A, B)), encoding="utf-8")
    run("ingest", str(jsonl), "--graph", "g")
    now = json.loads(run("search", "--entity", "Mondelez International", "--current", "--graph", "g", "--json").output)
    assert [f["object"]["name"] for f in now["results"]] == ["Dirk Van de Put"] and now["current"] is True
    then = run("search", "--entity", "Mondelez International", "--as-of", "2015", "--graph", "g").output
    assert "as of 2015" in then and "held 2012-01-01 to 2017-01-01; ended by D:b/" in then
    assert "exclude each other" in run("search", "--entity", "Mondelez International", "--as-of", "2015", "--current",
                                       "--graph", "g", code=2).stderr
    off = run("relation", "set", "has", "CEO", "--not-functional", "--graph", "g").output
    assert "'has ceo'" in off and "not functional" in off and "validity changed for 1 fact" in off
    assert json.loads(run("search", "--entity", "Mondelez International", "--current", "--graph", "g",
                          "--json").output)["total"] == 2
    run("relation", "set", "has CEO", "--functional", "--graph", "g")

    out = run("exec", 'merge "Mondelez International" "Irene Rosenfeld" --graph g').output
    assert "merged Irene Rosenfeld (E:irene-rosenfeld) into" in out and "undo: split E:mondelez-international" in out
    out = run("exec", "retract b --graph g").output
    assert "retracted b (D:b, 2021-01-01)" in out and "Dirk Van de Put (E:dirk-van-de-put)" in out
    assert "no document named 'b'" in run("retract", "b", "--graph", "g", code=2).stderr


def test_a_graph_whose_documents_predate_said_keys_is_retracted_by_reading_its_documents(runtime):
    from graphlore.toolsets.facts.write import SAID, SAID_META

    def without_said(graph):
        nodes, edges, vectors = state(runtime, graph)
        return {i: (*n[:5], [k for k in n[5] if not k.startswith(SAID)]) for i, n in nodes.items()}, edges, vectors

    write(runtime, "old", A, B, C)
    store = FactsGraph(runtime, "old").store()
    docs = list(store.iter_nodes("document"))
    keys = store.node_keys([d.id for d in docs])
    store.set_node_keys({d.id: [k for k in keys[d.id] if not k.startswith(SAID)] for d in docs})
    store.set_meta(SAID_META, None)
    retract(runtime, RetractRequest(document="b", graph="old"))
    write(runtime, "ac", A, C)
    assert_same_graph(without_said("old"), without_said("ac"))


def test_a_document_ingested_again_with_other_mentions_takes_the_old_ones_back_too(runtime):
    b2 = B.model_copy(update={"entities": B.entities[1:], "facts": []})  # no longer mentions Mondelez
    write(runtime, "abc", A, B, b2, C)
    retract(runtime, RetractRequest(document="b", graph="abc"))
    write(runtime, "ac", A, C)
    assert_same_graph(state(runtime, "abc"), state(runtime, "ac"))


ACME = ("Acme Corporation", "Company", "American maker of anvils and rocket skates, founded in 1920")
ROAD = ("Roadrunner Logistics", "Company", "delivery company in the Arizona desert, founded in 1949")
WORLD = [
    doc("w1", "2010-01-05", [ACME, ("Wile Coyote", "Person", "chief engineer and later chief executive of Acme")],
        [("Acme Corporation", "has CEO", "Wile Coyote", "2010")]),
    doc("w2", "2012-03-01", [("Acme Corp", "Company", "American maker of anvils and rocket skates", "ACME"), ROAD,
                             ("Bugs Bunny", "Person", "entertainer who became chief executive of Acme")],
        [("Acme Corp", "has CEO", "Bugs Bunny", "2012"), ("Roadrunner Logistics", "acquired by", "Acme Corp", "2012")]),
    doc("w3", "2014-07-09", [ACME, ("Phoenix", "Location", "capital city of Arizona, population 1.6 million"),
                             ("Wile Coyote", "Person", "chief engineer and later chief executive of Acme")],
        [("Acme Corporation", "headquartered in", "Phoenix", "2014"),
         ("Acme Corporation", "has CEO", "Wile Coyote", "2010")]),
    doc("w4", "2016-02-02", [("ACME", "Company", "anvil and rocket skate maker from America"), ROAD,
                             ("Tucson", "Location", "city in southern Arizona, population 540 thousand")],
        [("ACME", "headquartered in", "Tucson", "2016"), ("Roadrunner Logistics", "headquartered in", "Tucson")]),
    doc("w5", "2018-11-30", [ACME, ("Daffy Duck", "Person", "chief executive of Acme from 2018")],
        [("Acme Corporation", "has CEO", "Daffy Duck", "2018")]),
]


@pytest.mark.parametrize("gone", [w.name for w in WORLD])
def test_retracting_any_document_of_a_small_world_gives_the_world_without_it(runtime, gone):
    write(runtime, "all", *WORLD)
    retract(runtime, RetractRequest(document=gone, graph="all"))
    write(runtime, "without", *[w for w in WORLD if w.name != gone])
    assert_same_graph(state(runtime, "all"), state(runtime, "without"))


ANVILS = "American maker of anvils and rocket skates"


PRINT_SHOP = "desktop publishing software for cards, banners and labels, deluxe edition 22"


def catalogue(name, source, *entries):
    return DocumentRecord.model_validate({
        "name": name, "date": "2024-01-01", "source": source, "chunks": [f"entries of {name}"],
        "entities": [{"name": n, "type": "Product", "definition": d, "aliases": []} for n, d in entries]})


@pytest.mark.parametrize("rule", ["one document", "one source"])
def test_a_rebuilt_node_is_regrouped_by_the_one_document_and_one_source_rules(runtime, rule):
    """Two entries of one document that merged into a node an earlier document created (the rules leave a
    stored node to the names and cosines), or a platform marker one source states on one entry only that
    merged because another source stated it too: once that earlier document is retracted they are two
    nodes, as in the graph that never saw it."""
    if rule == "one document":
        first = catalogue("x", "a.csv", ("The Print Shop 22 Deluxe", PRINT_SHOP))
        rest = [catalogue("d", "b.csv", ("Print Shop 22 Deluxe", PRINT_SHOP + ", boxed"),
                          ("The Print Shop Deluxe 22", PRINT_SHOP + " in a box"))]
    else:
        first = catalogue("x", "a.csv", ("Acme Web Designer Upgrade (Mac)", PRINT_SHOP))
        rest = [catalogue("p1", "shop.csv", ("Acme Web Designer Upgrade", PRINT_SHOP + ".")),
                catalogue("p2", "shop.csv", ("Acme Web Designer Upgrade for Mac", PRINT_SHOP + ", boxed"))]
    merged = write(runtime, "all", first, *rest)
    assert {r.action for out in merged[1:] for r in out.resolutions} == {"merged"}  # all into x's node
    retract(runtime, RetractRequest(document="x", graph="all"))
    apart = write(runtime, "without", *rest)
    assert [r.action for out in apart for r in out.resolutions] == ["created", "created"]
    assert_same_graph(state(runtime, "all"), state(runtime, "without"))


@pytest.mark.parametrize("alias_on", ["stayer", "joiner"])
def test_a_split_after_merge_and_retract_does_not_bring_back_what_the_retracted_document_said(runtime, alias_on):
    """merge -> retract -> split: the merge kept both nodes as they were, alias of a retracted document
    included (on the node that stays or the one that joins); the split gives the ids back, not what the
    retraction took back."""
    a = doc("a", "2020-01-01", [("Acme Corp", "Company", ANVILS + ", founded in Arizona")])
    b = doc("b", "2021-01-01", [("Acme Corp", "Company", ANVILS + " and founded in Arizona", "ACME Incorporated")])
    c = doc("c", "2022-01-01", [("Acme Corp", "Company", ANVILS + " and founded in Arizona")])
    write(runtime, "g", a, b)
    [_, held] = tools.info(runtime, InfoRequest(name="Acme Corp", graph="g")).mentions
    off = split(runtime, SplitRequest(name="Acme Corp", mentions=[held.id], graph="g")).split_off
    write(runtime, "g", c)  # says b's mention again, without the alias
    stay, join = ("E:acme-corp", off.id) if alias_on == "stayer" else (off.id, "E:acme-corp")
    joined = merge(runtime, MergeRequest(name=stay, other=join, graph="g")).joined_mentions
    retract(runtime, RetractRequest(document="b", graph="g"))
    assert "ACME Incorporated" not in tools.info(runtime, InfoRequest(name=stay, graph="g")).aliases
    out = split(runtime, SplitRequest(name=stay, mentions=joined, graph="g"))
    assert out.split_off.id == join  # the merge's snapshot still gives the id back
    store = FactsGraph(runtime, "g").store()
    for node in store.iter_nodes("entity"):
        assert "ACME Incorporated" not in [node.name, *node.props["aliases"]], node.id
    keys = store.node_keys(["E:acme-corp", off.id])
    assert not [k for held in keys.values() for k in held if "incorporated" in k], keys
    records = {e.src: (e.dst, e.props["names"]) for e in store.iter_edges("mention")}
    assert records == {"E:acme-corp": ("D:c", ["Acme Corp"]), off.id: ("D:a", ["Acme Corp"])}


def test_a_graph_written_before_validity_gets_it_on_first_open(settings, embedder):
    """Facts stored without valid_from / valid_to (the shape before validity): the first open fills them in as a
    write computes them, once (recorded in the graph's metadata), so --as-of reads the dates the answer shows."""
    from graphlore.runtime import Runtime
    from graphlore.toolsets.facts import validity
    from graphlore.toolsets.facts.graph import FACT

    first = Runtime(settings, embedder=embedder)
    write(first, "old", A, B)
    store = FactsGraph(first, "old").store()
    with store.atomic():
        facts = list(store.iter_edges(FACT))
        for e in facts:
            for key in ("valid_from", "valid_to", "ended_by"):
                e.props.pop(key, None)
        store.upsert_edges(facts)
        store.set_meta(validity.VALIDITY_META, None)
    first.close()

    runtime = Runtime(settings, embedder=embedder)  # another process opens the old graph
    ask = {"entity": ["Mondelez International"], "graph": "old"}
    then = tools.search(runtime, SearchRequest(**ask, as_of="2015"), context=CONTEXT)
    assert [(f.object.name, f.valid_from, f.valid_to) for f in then.results] == [
        ("Irene Rosenfeld", "2012-01-01", "2017-01-01")]
    assert tools.search(runtime, SearchRequest(**ask, as_of="2011"), context=CONTEXT).total == 0
    now = tools.search(runtime, SearchRequest(**ask, current=True), context=CONTEXT)
    assert [f.object.name for f in now.results] == ["Dirk Van de Put"]
    store = FactsGraph(runtime, "old").store()
    assert store.get_meta(validity.VALIDITY_META) is True
    write(runtime, "new", A, B)
    assert_same_graph(state(runtime, "old"), state(runtime, "new"))
    before = state(runtime, "old")
    validity._FILLED.clear()  # opened again: the metadata says it is done, nothing is written
    assert validity.backfill(store) == 0
    assert_same_graph(state(runtime, "old"), before)
    runtime.close()


PRINT_SHOP = "desktop publishing software for cards, banners and labels, deluxe edition 22"


def listing(name, source, *entities):
    return DocumentRecord.model_validate({"name": name, "date": "2024-01-01", "source": source,
                                          "chunks": [f"entries of {name} {len(entities)}"],
                                          "entities": [{"name": n, "type": "Product", "definition": d, "aliases": []}
                                                       for n, d in entities]})


def test_reingesting_a_changed_document_then_retracting_another_gives_the_graph_that_never_saw_it(runtime):
    """d is written, then written again with a second entry. In "all" both of d's entries merged into x's
    node; retracting x regroups them by the document rule (one document lists two things as two entries).
    Without x, the second version's new entry meets the node d's first version created: the same rule keeps
    them apart there too (it was left to names and cosines: they merged)."""
    x = listing("x", "a.csv", ("The Print Shop 22 Deluxe", PRINT_SHOP))
    d1 = listing("d", "b.csv", ("Print Shop 22 Deluxe", PRINT_SHOP + ", boxed"))
    d2 = listing("d", "b.csv", ("Print Shop 22 Deluxe", PRINT_SHOP + ", boxed"),
                 ("The Print Shop Deluxe 22", PRINT_SHOP + " in a box"))
    write(runtime, "all", x, d1, d2)
    retract(runtime, RetractRequest(document="x", graph="all"))
    [_, again] = write(runtime, "without", d1, d2)
    assert [r.action for r in again.resolutions] == ["matched", "created"]
    assert_same_graph(state(runtime, "all"), state(runtime, "without"))
