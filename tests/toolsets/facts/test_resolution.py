"""Entity resolution on every write, idempotent re-ingest, all-or-nothing writes (real embedder, real SQLite)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from graphlore.errors import InvalidInput
from graphlore.runtime import Runtime
from graphlore.toolsets.facts import names as N
from graphlore.toolsets.facts.graph import DUPLICATE, FACT, FactsGraph
from graphlore.toolsets.facts.models import DocumentRecord
from graphlore.toolsets.facts.resolve import Mention, NodeState, Thresholds, decide
from graphlore.toolsets.facts.write import Writer, ingest_file


class CountingEmbedder:
    """The real embedder, counting every text it is asked to embed."""

    def __init__(self, inner):
        self.inner, self.name, self.dim, self.texts = inner, inner.name, inner.dim, []

    def embed(self, texts):
        self.texts += list(texts)
        return self.inner.embed(texts)

    def passages(self, text):
        return [text]


@pytest.fixture
def counting(embedder):
    return CountingEmbedder(embedder)


@pytest.fixture
def graph(settings, counting) -> FactsGraph:
    return FactsGraph(Runtime(settings, embedder=counting), "default")


def doc(name: str, date: str, entities=(), topics=(), facts=()) -> DocumentRecord:
    return DocumentRecord.model_validate({
        "name": name, "date": date, "chunks": [f"text of {name}"], "entities": list(entities),
        "topics": list(topics), "facts": [dict(f, chunk=0) for f in facts],
    })


def ent(name, type_, definition, aliases=()):
    return {"name": name, "type": type_, "definition": definition, "aliases": list(aliases)}


def write(graph, *records, lines: Thresholds | None = None):
    return Writer(graph, **({"lines": lines} if lines else {})).write(list(records))


def resolution(response, name):
    [r] = [r for r in response.resolutions if r.name == name]
    return r


# -- the acceptance pairs ------------------------------------------------------------------------


def test_nyc_merges_into_new_york_city_when_definitions_match(graph):
    write(graph, doc("a", "2024-01-01", [ent("New York City", "Location", "the most populous city in the United States")]))
    [out] = write(graph, doc("b", "2024-02-01", [ent("NYC", "Location", "largest city in the United States, on the Hudson River")]))
    nyc = resolution(out, "NYC")
    assert nyc.action == "merged" and nyc.id == "E:new-york-city" and nyc.canonical_name == "New York City"
    assert "abbreviates" in nyc.reason and "definition cosine" in nyc.reason
    store = graph.store()
    [node] = store.get_nodes(["E:new-york-city"])
    assert node.props["aliases"] == ["NYC"]
    assert store.count_nodes("entity") == 1
    # The alias now finds the node, by every lookup path.
    assert graph.resolve(store, "nyc", "entity")[0].id == "E:new-york-city"


def test_nyc_does_not_merge_when_the_definition_is_about_something_else(graph):
    write(graph, doc("a", "2024-01-01", [ent("New York City", "Location", "the most populous city in the United States")]))
    [out] = write(graph, doc("b", "2024-02-01", [ent("NYC", "Location", "a brand of nail polish sold in drugstores")]))
    assert resolution(out, "NYC").action == "created"


@pytest.mark.parametrize("first,second", [("Apple", "Apple Inc"), ("Apple Inc", "Apple"), ("Apple Inc.", "Apple")])
def test_apple_and_apple_inc_merge_either_way(graph, first, second):
    write(graph, doc("a", "2024-01-01", [ent(first, "Company", "American technology company that makes the iPhone")]))
    [out] = write(graph, doc("b", "2024-02-01", [ent(second, "Company",
                                                      "technology company headquartered in Cupertino, California")]))
    r = resolution(out, second)
    assert r.action == "merged" and "same normalised name 'apple'" in r.reason
    # The canonical name is the longest surface form, whichever came first.
    assert r.canonical_name == max((first, second), key=len)
    assert graph.store().count_nodes("entity") == 1


def test_aws_and_amazon_stay_apart(graph):
    write(graph, doc("a", "2024-01-01", [ent("Amazon", "Company", "American e-commerce and cloud computing company")]))
    [out] = write(graph, doc("b", "2024-02-01", [ent("AWS", "Company", "Amazon's cloud computing subsidiary")]))
    assert resolution(out, "AWS").action == "created"
    assert graph.store().count_nodes("entity") == 2


def test_mercury_the_planet_and_the_element_stay_apart(graph):
    write(graph, doc("a", "2024-01-01", [ent("Mercury", "Planet", "the smallest planet in the Solar System, closest to the Sun")]))
    [out] = write(graph, doc("b", "2024-02-01", [ent("Mercury", "Chemical element",
                                                      "chemical element with symbol Hg, a metal that is liquid at room temperature")]))
    r = resolution(out, "Mercury")
    assert r.action == "created" and r.id == "E:mercury-2"
    store = graph.store()
    assert store.count_nodes("entity") == 2
    with pytest.raises(InvalidInput, match="names 2 entities.*E:mercury .*E:mercury-2"):
        graph.resolve(store, "Mercury", "entity")


def test_mercury_apart_even_when_both_have_the_same_type(graph):
    write(graph, doc("a", "2024-01-01", [ent("Mercury", "Thing", "the smallest planet in the Solar System, closest to the Sun")]))
    [out] = write(graph, doc("b", "2024-02-01", [ent("Mercury", "Thing", "chemical element with symbol Hg, a liquid metal")]))
    assert resolution(out, "Mercury").action == "created"


def test_mentions_in_one_write_resolve_against_each_other(graph):
    first, second = write(graph,
                          doc("a", "2024-01-01", [ent("New York City", "Location", "the most populous city in the United States")]),
                          doc("b", "2024-01-02", [ent("NYC", "Location", "largest city in the United States, on the Hudson River")]))
    assert resolution(first, "New York City").action == "created"
    assert resolution(second, "NYC").action == "merged" and resolution(second, "NYC").id == "E:new-york-city"


def test_band_between_keeps_apart_and_links_a_possible_duplicate(graph):
    write(graph, doc("a", "2024-01-01", [ent("Amazon", "Company", "online retailer")]))
    [out] = write(graph, doc("b", "2024-01-02", [ent("Amazon Web Services", "Company", "cloud computing platform of Amazon")]))
    r = resolution(out, "Amazon Web Services")
    assert r.action == "created" and [d.id for d in r.possible_duplicates] == ["E:amazon"]
    [edge] = graph.store().select_edges(["E:amazon"], type=DUPLICATE).edges
    assert {edge.src, edge.dst} == {"E:amazon", "E:amazon-web-services"}


def test_numbered_versions_stay_apart(graph):
    write(graph, doc("a", "2024-01-01", [ent("iPhone 14", "Product", "Apple smartphone released in September 2022")]))
    [out] = write(graph, doc("b", "2024-01-02", [ent("iPhone 15", "Product", "Apple smartphone released in September 2023")]))
    assert resolution(out, "iPhone 15").action == "created"


def test_types_that_differ_block_a_merge(graph):
    write(graph, doc("a", "2024-01-01", [ent("Apple", "Company", "American technology company that makes the iPhone")]))
    [out] = write(graph, doc("b", "2024-01-02", [ent("Apple Inc", "Person", "American technology company that makes the iPhone")]))
    r = resolution(out, "Apple Inc")
    assert r.action == "created" and "types differ" in r.possible_duplicates[0].reason


def test_topics_and_entities_never_merge_with_each_other(graph):
    [out] = write(graph, doc("a", "2024-01-01", [ent("Inflation Corp", "Company", "a company")],
                             [{"name": "Inflation", "definition": "a general rise in prices"}]))
    assert {r.action for r in out.resolutions} == {"created"}
    [out] = write(graph, doc("b", "2024-01-02", [], [{"name": "Inflation", "definition": "rising prices over time"}]))
    r = resolution(out, "Inflation")
    assert r.action == "merged" and r.id == "T:inflation"


def test_the_decision_table_is_what_the_docstring_says():
    code = NodeState("E:x", "entity", "Panasonic KX-TCA86 Headset", "Product", "headset", [])
    shared = Mention("entity", "KXTCA86 Comfort-Fit", "Product", "ear hook", [])
    assert decide(shared, code, 0.5, lambda: 0.51).action == "merge"  # a shared rare code
    assert decide(shared, code, 0.5, lambda: 0.49).action == "duplicate"
    assert decide(shared, code, 0.5, lambda: 0.51, rare=lambda c: False).action == "separate"
    other = Mention("entity", "Panasonic KX-TCA92 Headset", "Product", "headset", [])
    assert decide(other, code, 0.99, lambda: 1.0).action == "duplicate"  # codes differ: linked at most
    assert decide(other, code, 0.69, lambda: 1.0).action == "separate"

    node = NodeState("E:x", "entity", "Mercury", "Planet", "planet", [])
    mention = Mention("entity", "Mercury", "Planet", "metal", [])
    assert decide(mention, node, 0.78, lambda: 0.35).action == "duplicate"  # names equal, definitions apart
    assert decide(mention, node, 0.78, lambda: 0.45).action == "merge"
    assert decide(mention, node, 0.60, lambda: 0.45).action == "duplicate"  # the sum is too low
    assert decide(mention, node, 0.40, lambda: 0.10).action == "separate"
    other = Mention("entity", "Quicksilver", "Planet", "planet", [])
    assert decide(other, node, 0.95, lambda: 1.0).action == "duplicate"  # no name evidence: never a merge
    assert decide(other, node, 0.79, lambda: 1.0).action == "separate"

    # an equal name of five words or more identifies on its own: the definitions only must not disagree
    title = NodeState("E:t", "entity", "Global Optimization of Query Histograms", "Paper", "paper in VLDB, 2001", [])
    long = Mention("entity", "Global optimization of query histograms", "Paper", "paper in Very Large Data Bases, 2001", [])
    assert decide(long, title, 0.70, lambda: 0.31).action == "merge"
    assert decide(long, title, 0.70, lambda: 0.29).action == "duplicate"
    assert decide(Mention("entity", "Global optimization of query histograms", "Paper", "paper in VLDB, 1999", []),
                  title, 0.95, lambda: 0.9).action == "duplicate"  # years differ: never merged
    short = NodeState("E:s", "entity", "Query Histograms", "Paper", "paper in VLDB, 2001", [])
    assert decide(Mention("entity", "Query histograms", "Paper", "paper in VLDB, 2001", []), short, 0.70,
                  lambda: 0.31).action == "duplicate"  # four words: the usual rule
    # definitions that name mostly different people describe different things, however alike they read
    column = NodeState("E:c", "entity", "Reminiscences on Influential Papers", "Paper",
                       "paper by Jun Rao, Kenneth A. Ross, Johannes Gehrke in SIGMOD Record, 2003", [])
    again = Mention("entity", "Reminiscences on Influential Papers", "Paper",
                    "paper by Jeffrey F. Naughton, Minos N. Garofalakis, Kenneth A. Ross in SIGMOD Record, 2003", [])
    verdict = decide(again, column, 0.93, lambda: 0.81)
    assert verdict.action == "duplicate" and verdict.settled and "name different people" in verdict.reason


# -- identifiers ---------------------------------------------------------------------------------------

HEADSET = "cordless phone headset by Panasonic with a comfort-fit ear hook, for Panasonic KX-TG phones"


def test_model_codes_that_differ_never_merge_but_are_linked(graph):
    write(graph, doc("a", "2024-01-01", [ent("Panasonic KX-TCA86 Headset", "Product", HEADSET)]))
    [out] = write(graph, doc("b", "2024-01-02", [ent("Panasonic KX-TCA92 Headset", "Product", HEADSET)]))
    r = resolution(out, "Panasonic KX-TCA92 Headset")
    assert r.action == "created" and [d.id for d in r.possible_duplicates] == ["E:panasonic-kx-tca86-headset"]
    assert "different codes (kxtca92 vs kxtca86)" in r.possible_duplicates[0].reason


def test_a_judge_never_merges_what_identifiers_keep_apart(graph):
    asked = []

    def judge(mention, node):
        asked.append((mention.name, node.name))
        return True

    write(graph, doc("a", "2024-01-01", [ent("Panasonic KX-TCA86 Headset", "Product", HEADSET),
                                         ent("Beats", "Company", "headphone maker founded by Dr. Dre")]))
    [out] = Writer(graph, judge=judge).write([doc("b", "2024-01-02", [
        ent("Panasonic KX-TCA92 Headset", "Product", HEADSET),
        ent("Beats Electronics", "Company", "audio company that makes headphones")])])
    assert resolution(out, "Panasonic KX-TCA92 Headset").action == "created"  # codes differ: not asked
    assert resolution(out, "Beats Electronics").action == "merged"  # a case the rules leave open
    assert asked == [("Beats Electronics", "Beats")]


@pytest.mark.parametrize("base,variant", [
    ("Adobe Audition 2.0", "Adobe Audition 2.0 upgrade"),
    ("World of Warcraft", "World of Warcraft 60 day pre-paid time card"),
    ("Vitamin D3 tablets", "Vitamin D3 tablets, pack of 3"),
])
def test_editions_and_packagings_never_merge_with_the_base_product(graph, base, variant):
    definition = f"the {base} product sold in stores, as described by its maker"
    write(graph, doc("a", "2024-01-01", [ent(base, "Product", definition)]))
    [out] = write(graph, doc("b", "2024-01-02", [ent(variant, "Product", definition)]))
    assert resolution(out, variant).action == "created"
    assert "different editions" in resolution(out, variant).possible_duplicates[0].reason


def test_a_shared_rare_code_merges_names_that_differ(graph):
    write(graph, doc("a", "2024-01-01", [ent("Panasonic KX-TCA86 Headset", "Product", HEADSET)]))
    [out] = write(graph, doc("b", "2024-01-02", [ent("KXTCA86 Comfort-Fit", "Product",
                                                      "Panasonic headset with an ear hook for cordless phones")]))
    r = resolution(out, "KXTCA86 Comfort-Fit")
    assert r.action == "merged" and "share the code kxtca86" in r.reason
    [node] = graph.store().get_nodes([r.id])
    assert node.props["aliases"] == ["KXTCA86 Comfort-Fit"] and "kxtca86" in node.text.split()


def test_a_code_two_nodes_share_is_no_evidence(graph):
    write(graph, doc("a", "2024-01-01", [ent("Panasonic KX-TCA86 Headset", "Product", HEADSET)]))
    [out] = write(graph, doc("b", "2024-01-02", [ent("KX-TCA86 Wall Bracket", "Product",
                                                      "steel bracket that holds a telephone handset on a kitchen wall")]))
    assert resolution(out, "KX-TCA86 Wall Bracket").action == "created"  # the definitions differ: linked
    [out] = write(graph, doc("c", "2024-01-03", [ent("KXTCA86 Comfort-Fit", "Product",
                                                      "Panasonic headset with an ear hook for cordless phones")]))
    r = resolution(out, "KXTCA86 Comfort-Fit")
    assert r.action == "created" and graph.store().count_nodes("entity") == 3


def test_definitions_stating_different_numbers_never_merge(graph):
    write(graph, doc("a", "2024-01-01", [ent("Editor's Notes", "Publication", "column by Jennifer Widom in SIGMOD Record, 1996")]))
    [out] = write(graph, doc("b", "2024-01-02", [ent("Editor's Notes", "Publication",
                                                      "column by Jennifer Widom in SIGMOD Record, 1997")]))
    r = resolution(out, "Editor's Notes")
    assert r.action == "created" and "different numbers (1997 vs 1996)" in r.possible_duplicates[0].reason


def test_a_longer_name_whose_added_words_the_other_side_does_not_explain_is_linked(graph):
    write(graph, doc("a", "2024-01-01", [ent("Stars", "Restaurant", "American restaurant in San Francisco")]))
    [out] = write(graph, doc("b", "2024-01-02", [ent("Stars Cafe", "Restaurant", "American restaurant in San Francisco")]))
    r = resolution(out, "Stars Cafe")
    assert r.action == "created" and "adds cafe" in r.possible_duplicates[0].reason


@pytest.mark.parametrize("block", [512, 5])  # one block, and many blocks of the in-write matrix product
def test_mentions_late_in_a_large_write_still_find_earlier_ones(graph, monkeypatch, block):
    from graphlore.toolsets.facts import resolve

    monkeypatch.setattr(resolve, "NEIGHBOUR_BLOCK", block)
    fillers = [ent(f"Filler Company {chr(65 + i % 26)}{chr(65 + i // 26)}x", "Company", f"company number {i} of the filler group")
               for i in range(60)]
    records = [doc(f"d{i}", "2024-01-01", fillers[10 * i:10 * i + 10]) for i in range(6)]
    # No lookup key joins these two names: only the nearest-text candidates of the write can.
    records.insert(0, doc("first", "2024-01-01", [ent("Timothy Cook", "Person", "CEO of Apple Inc.")]))
    records.append(doc("last", "2024-01-01", [ent("Tim Cook", "Person", "chief executive officer of Apple")]))
    assert not set(N.probe_keys("Tim Cook")) & set(N.name_keys("Timothy Cook"))
    out = write(graph, *records)
    assert resolution(out[-1], "Tim Cook").action == "merged" and resolution(out[-1], "Tim Cook").id == "E:timothy-cook"


def test_find_ranks_an_exact_code_match_first(runtime):
    from graphlore.toolsets.facts import tools
    from graphlore.toolsets.facts.models import FindRequest

    graph = FactsGraph(runtime, "tvs")
    tv = "Samsung 32 inch LCD HDTV, 720p, black, with two HDMI inputs"
    Writer(graph).write([doc("tvs", "2024-01-01", [ent(f"Samsung {m} 32\" LCD TV", "Product", tv)
                                                   for m in ("LN32A650", "LN32A550", "LN32A450")])])
    out = tools.find(runtime, FindRequest(graph="tvs", entity=[{"name": "Samsung LN-32A450", "definition": tv}]))
    [selector] = out.entities
    assert selector.candidates[0].name == 'Samsung LN32A450 32" LCD TV'
    assert all(0.0 <= c.score <= 1.0 for c in selector.candidates)


def test_find_reads_aliases_as_keywords(runtime):
    from graphlore.toolsets.facts import tools
    from graphlore.toolsets.facts.models import FindRequest

    graph = FactsGraph(runtime, "aliases")
    Writer(graph).write([doc("a", "2024-01-01", [
        ent("International Business Machines", "Company", "American technology company", ["Big Blue"]),
        ent("Blue Origin", "Company", "American space company"),
        ent("Microsoft", "Company", "American technology company"),
    ])])
    out = tools.find(runtime, FindRequest(graph="aliases", entity=[{"name": "Big Blue", "definition": "computer maker"}]))
    assert out.entities[0].candidates[0].name == "International Business Machines"


# -- idempotency and text hashes -------------------------------------------------------------------


def test_reingesting_the_same_document_changes_nothing_and_embeds_nothing(graph, counting):
    record = doc("a", "2024-01-01",
                 [ent("Apple Inc", "Company", "maker of the iPhone"), ent("Beats", "Company", "headphone maker")],
                 facts=[{"subject": "Apple Inc", "relationship": "acquired", "object": "Beats",
                         "sentence": "Apple acquired Beats."}])
    [first] = write(graph, record)
    assert first.status == "created" and first.facts_added == 1
    store = graph.store()
    before = _writes(store)
    snapshot = _dump(store)
    counting.texts.clear()
    [again] = write(graph, copy.deepcopy(record))
    assert again.status == "unchanged" and again.facts_added == again.facts_removed == 0
    assert counting.texts == []
    assert _dump(store) == snapshot
    assert _writes(store) == before


def _writes(store):
    """What moves when a row is written at all: SQLite's change counter; PostgreSQL's row versions (xmin)."""
    if type(store).__name__ == "PostgresStore":
        with store._connection() as conn:
            return conn.execute(f"SELECT id, xmin::text FROM {store._s}.nodes ORDER BY id").fetchall()
    return store._conn.execute("SELECT count(*), total(changes()) FROM nodes").fetchone()


def _dump(store):
    if type(store).__name__ == "PostgresStore":
        with store._connection() as conn:
            s = store._s
            return (conn.execute(f"SELECT id, kind, name, text, props, text_hash, updated_at FROM {s}.nodes "
                                 "ORDER BY id").fetchall(),
                    conn.execute(f"SELECT id, src, dst, type, props, text, vector, date FROM {s}.edges "
                                 "ORDER BY id").fetchall(),
                    conn.execute(f"SELECT key, node_seq FROM {s}.node_keys ORDER BY key, node_seq").fetchall(),
                    conn.execute(f"SELECT node_seq, pos, vector::text FROM {s}.passages ORDER BY node_seq, pos")
                    .fetchall())
    conn = store._conn
    return (conn.execute("SELECT id, kind, name, text, props, text_hash, updated_at FROM nodes ORDER BY id").fetchall(),
            conn.execute("SELECT id, src, dst, type, props, text, vector, date FROM edges ORDER BY id").fetchall(),
            conn.execute("SELECT key, node_rowid FROM node_keys ORDER BY key, node_rowid").fetchall(),
            conn.execute("SELECT node_rowid, vector FROM node_vectors ORDER BY node_rowid").fetchall())


def test_a_mention_seen_before_is_not_embedded_again(graph, counting):
    apple = ent("Apple Inc", "Company", "maker of the iPhone")
    write(graph, doc("a", "2024-01-01", [apple]))
    counting.texts.clear()
    [out] = write(graph, doc("b", "2024-01-02", [apple], facts=[]))
    assert resolution(out, "Apple Inc").action == "matched"
    assert counting.texts == []


def test_changed_document_replaces_its_facts_and_keeps_unchanged_vectors(graph, counting):
    ents = [ent("Apple Inc", "Company", "maker of the iPhone"), ent("Beats", "Company", "headphone maker")]
    f1 = {"subject": "Apple Inc", "relationship": "acquired", "object": "Beats", "sentence": "Apple acquired Beats."}
    f2 = {"subject": "Beats", "relationship": "sells", "object": "Apple Inc", "sentence": "Beats sells to Apple."}
    [first] = write(graph, doc("a", "2024-01-01", ents, facts=[f1, f2]))
    store = graph.store()
    old_ids = store.edge_ids_with_prefix(first.document.id + "/")
    f3 = {"subject": "Beats", "relationship": "hired", "object": "Apple Inc", "sentence": "Beats hired Apple staff."}
    counting.texts.clear()
    [second] = write(graph, doc("a", "2024-01-01", ents, facts=[f1, f3]))
    assert (second.status, second.facts, second.facts_added, second.facts_removed) == ("updated", 2, 1, 1)
    assert counting.texts == ["Beats hired Apple staff."]  # only the new sentence
    new_ids = store.edge_ids_with_prefix(second.document.id + "/")
    assert len(set(old_ids) & set(new_ids)) == 1 and len(new_ids) == 2
    assert store.count_edges(FACT) == 2


def test_a_rejected_record_changes_nothing(graph):
    write(graph, doc("a", "2024-01-01", [ent("Apple Inc", "Company", "maker of the iPhone")]))
    store = graph.store()
    snapshot = _dump(store)
    good = doc("b", "2024-01-02", [ent("Beats", "Company", "headphone maker")])
    with pytest.raises(InvalidInput, match="once"):
        write(graph, good, copy.deepcopy(good))  # the same document twice in one call
    assert _dump(store) == snapshot


def test_a_failure_in_the_middle_of_a_write_rolls_everything_back(graph, monkeypatch):
    write(graph, doc("a", "2024-01-01", [ent("Apple Inc", "Company", "maker of the iPhone")]))
    store = graph.store()
    snapshot = _dump(store)

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(store, "upsert_edges", boom)
    record = doc("b", "2024-01-02", [ent("Apple", "Company", "maker of the iPhone and Mac"), ent("Beats", "Company", "x")],
                 facts=[{"subject": "Apple", "relationship": "owns", "object": "Beats", "sentence": "Apple owns Beats."}])
    with pytest.raises(RuntimeError):
        write(graph, record)
    monkeypatch.undo()
    assert _dump(store) == snapshot


def test_a_file_with_one_bad_line_writes_nothing(graph, tmp_path):
    good = doc("a", "2024-01-01", [ent("Apple Inc", "Company", "maker of the iPhone")]).model_dump_json()
    path = tmp_path / "docs.jsonl"
    path.write_text(good + "\n" + '{"name": "b", "date": "2024-13-01", "chunks": ["x"]}\n')
    with pytest.raises(InvalidInput, match=r"nothing was written: docs.jsonl:2: .*'2024-13-01' is not a date"):
        ingest_file(graph, path)
    assert not graph.exists()
    path.write_text(good + "\n\n" + good + "\n")
    out = ingest_file(graph, path)
    assert (out.documents, out.created, out.unchanged) == (2, 1, 1)


# -- schema ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("change,message", [
    (lambda d: d["facts"][0].update(subject="Microsoft"), "facts[0].subject 'Microsoft' is not the name or alias"),
    (lambda d: d["facts"][0].update(chunk=3), "facts[0].chunk is 3 but the record has 1 chunk"),
    (lambda d: d["entities"].append(dict(d["entities"][0], definition="again")), "names must be unique"),
    (lambda d: d.update(topics=[{"name": "Apple", "definition": "fruit"}]), "names both entity"),
    (lambda d: d.update(date="15/10/2025"), "is not a date: use YYYY-MM-DD"),
    (lambda d: d["entities"][0].update(definition="  "), "entities.0.definition"),
    (lambda d: d["entities"][0].update(colour="red"), "unknown field 'entities.0.colour'"),
    (lambda d: d.update(chunks=[]), "field 'chunks'"),
])
def test_the_record_schema_is_strict(change, message):
    from graphlore.contract import parse_request

    data = {"name": "n", "date": "2025-10-15", "chunks": ["t"],
            "entities": [ent("Apple Inc", "Company", "maker of the iPhone", ["Apple"])],
            "facts": [{"subject": "Apple", "relationship": "is", "object": "Apple Inc", "sentence": "s", "chunk": 0}]}
    change(data)
    with pytest.raises(InvalidInput, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_request(DocumentRecord, data)


def test_date_context_defaults_to_the_document_date(graph):
    record = doc("a", "2024-03-04", [ent("Apple Inc", "Company", "maker of the iPhone")],
                 facts=[{"subject": "Apple Inc", "relationship": "is", "object": "Apple Inc", "sentence": "Apple is."}])
    write(graph, record)
    [edge] = graph.store().get_edges(graph.store().edge_ids_with_prefix("D:a/"))
    assert edge.props["date_context"] == "2024-03-04" and edge.date == "2024-03-04"
    assert np.isclose(np.linalg.norm(edge.vector), 1.0, atol=1e-4)


# -- names -------------------------------------------------------------------------------------------


def test_name_normalisation_and_evidence():
    assert N.normalize("The Apple Inc.") == "apple" and N.normalize("Société Générale") == "societe generale"
    assert N.initials("Bank of America") == "ba" and N.initials("Apple") == ""
    assert N.name_evidence(["NYC"], ["New York City"])[0] == "acronym"
    assert N.name_evidence(["Open AI"], ["OpenAI"])[0] == "same"
    assert N.name_evidence(["Beats"], ["Beats Electronics"])[0] == "prefix"
    assert N.name_evidence(["Tim Cook"], ["Timothy Cook"])[0] == "similar"
    assert N.name_evidence(["AWS"], ["Amazon"])[0] == "none"
    assert N.name_evidence(["iPhone 14"], ["iPhone 15"])[0] == "conflict"  # equal but for their codes
    assert N.name_evidence(["Alpha Holdings A"], ["Alpha Holdings B"])[0] == "conflict"  # series letters differ
    assert N.name_evidence(["Inflation"], ["Deflation"])[0] == "none"  # "inflation" ~ "deflation" 0.78 < 0.8
    assert N.name_evidence(["Tim Cok"], ["Tim Cook"])[0] == "similar"
    assert N.name_evidence(["Windows 10"], ["Windows 10 Pro"])[0] == "conflict"  # an edition word in one only
    assert N.name_evidence(["Windows 10"], ["Windows 10"])[0] == "same"
    assert set(N.probe_keys("NYC")) & set(N.name_keys("New York City"))
    assert set(N.probe_keys("Beats Electronics")) & set(N.name_keys("Beats"))
    assert set(N.probe_keys("Samsung")) & set(N.name_keys("Samsung Electronics"))
    assert N.mention_key("entity", "Apple Inc.", "x") == N.mention_key("entity", "apple inc", " x ")


PHONE = "smartphone by Acme with a 6.1 inch screen and 128 GB of storage, model AX1250"


@pytest.mark.parametrize("first,second,why", [
    ("Acme AX1250 phone Blue", "Acme AX1250 phone Black", "different colour variants (black vs blue)"),
    # the alias "Acme phone" holds no code, so name evidence alone would merge: the node's codes tell
    ("Acme AX1250 phone", "Acme AX1250LI phone", "ax1250li and ax1250 differ only by a variant suffix"),
])
def test_variants_of_one_product_are_linked_not_merged(graph, first, second, why):
    write(graph, doc("a", "2024-01-01", [ent(first, "Product", PHONE, aliases=["Acme phone"])]))
    [out] = write(graph, doc("b", "2024-01-02", [ent(second, "Product", PHONE)]))
    r = resolution(out, second)
    assert r.action == "created" and why in r.possible_duplicates[0].reason


# -- one document, one source (issue 25, point 5) -------------------------------------------------------

PRINT_SHOP = "desktop publishing software for cards, banners and labels, deluxe edition 22"


def _merge_worthy(name: str, document: str = "doc:b", source: str = "") -> tuple[Mention, NodeState]:
    mention = Mention("entity", name, "Product", PRINT_SHOP, [], document, "2024-01-01", source)
    node = NodeState("E:print-shop", "entity", "The Print Shop 22 Deluxe", "Product", PRINT_SHOP, [])
    node.records.append(({}, "doc:a", "2024-01-01"))
    return mention, node


def test_two_entries_of_one_document_are_never_merged():
    mention, node = _merge_worthy("Print Shop 22 Deluxe", document="doc:a")
    decision = decide(mention, node, 0.95, lambda: 0.95)
    assert decision.action == "duplicate" and "one document lists them as two entries" in decision.reason
    assert not decision.settled  # a judge may still find the document's author listed one thing twice
    assert decide(mention, node, 0.95, lambda: 0.95, lines=Thresholds(same_document=False)).action == "merge"
    # another document: the names and cosines decide, as before
    other, node = _merge_worthy("Print Shop 22 Deluxe", document="doc:b")
    assert decide(other, node, 0.95, lambda: 0.95).action == "merge"
    # a node the graph held before this write, which an entry of this document joined: the graph's earlier
    # evidence decides (else the graph would depend on the order documents arrive in; see test_retract)
    mention, node = _merge_worthy("Print Shop 22 Deluxe", document="doc:a")
    node.stored_hash = "stored"
    assert decide(mention, node, 0.95, lambda: 0.95).action == "merge"


@pytest.mark.parametrize("source,node_sources,action", [
    ("shop.csv", {"shop.csv"}, "duplicate"),  # one source marks one entry and not the other: two things
    ("shop.csv", {"other-shop.csv"}, "merge"),  # two sources: shops leave the platform out
    ("", {""}, "merge"),  # no source stated: nothing to compare
])
def test_a_platform_marker_one_source_states_on_one_entry_only(source, node_sources, action):
    mention, node = _merge_worthy("The Print Shop 22 Deluxe [Mac]", source=source)
    decision = decide(mention, node, 0.95, lambda: 0.95, sources=lambda: node_sources - {""})
    assert decision.action == action
    if action == "duplicate":
        assert "states the platform mac and the other none" in decision.reason and "one source" in decision.reason
        assert decision.settled
        assert decide(mention, node, 0.95, lambda: 0.95, lines=Thresholds(source_platforms=False),
                      sources=lambda: node_sources).action == "merge"


def _catalogue(name: str, source: str, *entities) -> DocumentRecord:
    return DocumentRecord.model_validate({"name": name, "date": "2024-01-01", "source": source,
                                          "chunks": [f"entries of {name}"], "entities": list(entities)})


def test_ingest_keeps_two_entries_of_one_document_apart_and_links_them(graph):
    [out] = write(graph, _catalogue("catalogue", "shop.csv", ent("The Print Shop 22 Deluxe", "Product", PRINT_SHOP),
                                    ent("Print Shop 22 Deluxe", "Product", PRINT_SHOP + ", boxed")))
    second = resolution(out, "Print Shop 22 Deluxe")
    assert second.action == "created"
    assert "one document lists them as two entries" in second.possible_duplicates[0].reason
    assert graph.store().count_edges(DUPLICATE) == 1


@pytest.mark.parametrize("one_write", [True, False])
def test_ingest_reads_a_one_sided_platform_marker_within_one_source(graph, one_write):
    mac = _catalogue("part 1", "shop.csv", ent("Acme Web Designer Upgrade [Mac]", "Product", PRINT_SHOP))
    plain = _catalogue("part 2", "shop.csv", ent("Acme Web Designer Upgrade", "Product", PRINT_SHOP))
    elsewhere = _catalogue("listing", "other-shop.csv", ent("Acme Web Designer Upgrade", "Product", PRINT_SHOP + "."))
    # two parts of one source: apart (in one write, or the marked entry stored by an earlier one)
    out = write(graph, mac, plain) if one_write else [*write(graph, mac), *write(graph, plain)]
    r = resolution(out[-1], "Acme Web Designer Upgrade")
    assert r.action == "created" and "one source (shop.csv) says both" in r.possible_duplicates[0].reason
    # another source that leaves the platform out merges as before (into one of the two)
    [other] = write(graph, elsewhere)
    assert resolution(other, "Acme Web Designer Upgrade").action == "merged"


def test_a_catalogue_file_in_two_parts_keeps_its_entries_apart_and_info_shows_the_links(graph, tmp_path):
    """End to end through the file ingest (what `graphlore facts ingest` runs) and `info`: one catalogue in two
    documents of one source."""
    from graphlore.toolsets.facts import tools
    from graphlore.toolsets.facts.models import InfoRequest

    parts = [_catalogue("part 1", "shop.csv", ent("Acme Web Designer Upgrade [Mac]", "Product", PRINT_SHOP),
                        ent("The Print Shop 22 Deluxe", "Product", PRINT_SHOP),
                        ent("Print Shop 22 Deluxe", "Product", PRINT_SHOP + ", boxed")),
             _catalogue("part 2", "shop.csv", ent("Acme Web Designer Upgrade", "Product", PRINT_SHOP))]
    path = tmp_path / "catalogue.jsonl"
    path.write_text("".join(p.model_dump_json() + "\n" for p in parts))
    out = ingest_file(graph, path)
    assert out.documents == 2 and graph.store().count_nodes("entity") == 4
    mac = tools.info(graph.runtime, InfoRequest(name="Acme Web Designer Upgrade [Mac]"))
    [link] = mac.possible_duplicates
    assert (link.name, link.decision) == ("Acme Web Designer Upgrade", "settled") and "one source" in link.reason
    deluxe = tools.info(graph.runtime, InfoRequest(name="Print Shop 22 Deluxe"))
    assert [(d.name, d.decision) for d in deluxe.possible_duplicates] == [("The Print Shop 22 Deluxe", "open")]
