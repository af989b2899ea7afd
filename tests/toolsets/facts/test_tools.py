"""The facts tools in process: find, search, cat, info, ls, stats on a small dated graph (real embedder and SQLite)."""

from __future__ import annotations

import pytest
from helpers.backend import settings_for
from helpers.facts_data import INFLATION, MICROSOFT, YEARLY, records

from graphlore.contract import parse_request
from graphlore.errors import ConfigError, InvalidInput, NotFound
from graphlore.runtime import Runtime
from graphlore.tools import CallContext
from graphlore.toolsets.facts import TOOLSET, render, sessions
from graphlore.toolsets.facts.graph import FactsGraph

SPECS = {s.name: s for s in TOOLSET.tools}
SESSION = CallContext(session="one")


def call(runtime: Runtime, tool: str, args: dict, context: CallContext | None = SESSION):
    spec = SPECS[tool]
    request = parse_request(spec.request, args)
    return spec.run(runtime, request, context=context) if spec.context else spec.run(runtime, request)


@pytest.fixture(scope="module")
def rt(tmp_path_factory, embedder) -> Runtime:
    runtime = Runtime(settings_for(tmp_path_factory.mktemp("home")), embedder=embedder)
    for record in records():
        out = call(runtime, "add_document", record)
        assert out.status == "created"
    return runtime


def numbered(out) -> list[tuple[str, str, str]]:
    return [(f.subject.name, f.relationship, f.object.name) for f in out.results]


# -- find --------------------------------------------------------------------------------------------


def test_find_with_an_entity_selector(rt):
    out = call(rt, "find", {"entity": [{"name": "Apple", "definition": "company that makes the iPhone"}]})
    [sel] = out.entities
    assert out.topics == [] and sel.name == "Apple" and sel.id is None
    assert sel.candidates[0].id == "E:apple-inc" and sel.candidates[0].type == "Company"
    assert 0 < len(sel.candidates) <= 5 and all(c.id.startswith("E:") for c in sel.candidates)
    # Listed in the fused keyword + vector order; each score is the cosine of the two "{name}: {definition}" texts.
    query = rt.embedder.embed(["Apple: company that makes the iPhone"])[0]
    cosines = FactsGraph(rt, "default").store().vector_scores(query, [c.id for c in sel.candidates])
    assert [c.score for c in sel.candidates] == [pytest.approx(max(0.0, min(1.0, cosines[c.id])), abs=1e-6)
                                                 for c in sel.candidates]


def test_find_with_a_topic_selector_searches_topics_by_meaning(rt):
    out = call(rt, "find", {"topic": [{"name": "Rising prices", "definition": "prices going up across the economy"}]})
    [sel] = out.topics
    assert out.entities == [] and sel.candidates[0].id == "T:inflation"  # not an exact name: found by meaning
    assert all(c.id.startswith("T:") and c.type is None for c in sel.candidates)


def test_find_with_repeated_mixed_selectors_keeps_order_and_ids(rt):
    out = call(rt, "find", {
        "entity": [{"name": "Microsoft", "definition": "software company behind Windows", "id": "q1"},
                   {"name": "Beats", "definition": "headphone maker", "id": "q2"}],
        "topic": [{"name": "AI", "definition": "machine intelligence", "id": "q3"}],
    })
    assert [(s.id, s.candidates[0].id) for s in out.entities] == [("q1", "E:microsoft-corp"), ("q2", "E:beats-electronics")]
    assert [(s.id, s.candidates[0].id) for s in out.topics] == [("q3", "T:artificial-intelligence")]
    text = render.find(out)
    assert text.index("ENTITIES:") < text.index("Microsoft  (id=q1)") < text.index("TOPICS:") < text.index("AI  (id=q3)")
    assert "E:microsoft-corp" in text and "[Company]" in text


@pytest.mark.parametrize("args,message", [
    ({}, "give at least one selector"),
    ({"entity": []}, "give at least one selector"),
    ({"entity": [{"definition": "x"}]}, "missing required field 'entity.0.name'"),
    ({"entity": [{"name": "Apple"}]}, "missing required field 'entity.0.definition'"),
    ({"entity": [{"name": "", "definition": "x"}]}, "field 'entity.0.name'"),
    ({"entity": [{"name": "   ", "definition": "x"}]}, "field 'entity.0.name'"),
    ({"topic": [{"name": "x", "definition": " "}]}, "field 'topic.0.definition'"),
    ({"entity": [{"name": "x", "definition": "y", "id": ""}]}, "field 'entity.0.id'"),
    ({"entity": [{"name": "x", "definition": "y", "id": 7}]}, "field 'entity.0.id'"),
    ({"entity": [{"name": "x", "definition": "y", "kind": "z"}]}, "unknown field 'entity.0.kind'"),
    ({"entity": "Apple Inc, Microsoft"}, "not names or 'name: definition' strings"),
    ({"entity": ["Apple: technology company"]}, "not names or 'name: definition' strings"),
    ({"topic": "Inflation"}, "not names or 'name: definition' strings"),
    ({"entity_name": "Apple", "entity_def": "company"}, "'entity_name' is an old form"),
    ({"topic_name": "Inflation"}, "'topic_name' is an old form"),
    ({"entity": [{"name": "x", "definition": "y"}], "to": "2020-01-01"}, "'to' is an old form"),
])
def test_find_rejects_bad_and_legacy_selectors_with_the_correct_form(rt, args, message):
    with pytest.raises(InvalidInput) as exc:
        call(rt, "find", args)
    assert message in exc.value.message
    if "old form" in message or "strings" in message or "at least one" in message:
        assert '{"name": "Apple Inc", "definition": "American technology company"}' in exc.value.message


# -- search ------------------------------------------------------------------------------------------


def test_search_defaults_to_around_newest_first(rt):
    out = call(rt, "search", {"entity": ["Apple Inc"], "limit": 4})
    assert out.mode == "around" and out.total == len(YEARLY) + 4  # yearly + beats + 2 with Microsoft + inflation
    dates = [f.date for f in out.results]
    assert dates == ["2025-06-01", "2024-06-01", "2023-06-01", "2022-07-15"]
    assert [f.number for f in out.results] == [1, 2, 3, 4] and all(f.score is None for f in out.results)
    assert [s.matched for s in out.selected] == ["name"]


def test_names_resolve_by_alias_id_and_case(rt):
    for given, matched in (("apple", "alias"), ("E:apple-inc", "id"), ("APPLE INC", "name"), ("Apple Inc.", "normalised")):
        out = call(rt, "search", {"entity": [given], "limit": 1})
        assert [(s.id, s.matched) for s in out.selected] == [("E:apple-inc", matched)]


def test_around_with_two_entities_is_the_union(rt):
    out = call(rt, "search", {"entity": ["Apple Inc", "Microsoft Corp"], "limit": 50})
    apple = call(rt, "search", {"entity": ["Apple Inc"], "limit": 50})
    microsoft = call(rt, "search", {"entity": ["Microsoft Corp"], "limit": 50})
    assert {f.id for f in out.results} == {f.id for f in apple.results} | {f.id for f in microsoft.results}


def test_between_an_entity_only_subset(rt):
    out = call(rt, "search", {"entity": ["Apple Inc", "Microsoft Corp"], "mode": "between"})
    assert numbered(out) == [("Apple Inc", "licensed software from", "Microsoft Corp"),
                             ("Microsoft Corp", "settled with", "Apple Inc")]


def test_between_a_mixed_entity_and_topic_subset(rt):
    out = call(rt, "search", {"entity": ["Microsoft Corp"], "topic": ["Inflation"], "mode": "between"})
    assert numbered(out) == [("Microsoft Corp", "passed on", "Inflation")]
    out = call(rt, "search", {"entity": ["Apple Inc", "Microsoft Corp"], "topic": ["Inflation", "AI"],
                              "mode": "between"})
    assert len(out.results) == 5 and ("Microsoft Corp", "invested in", "Artificial intelligence") in numbered(out)
    assert ("Apple Inc", "acquired", "Beats Electronics") not in numbered(out)


def test_date_bounds_are_inclusive(rt):
    out = call(rt, "search", {"entity": ["Microsoft Corp"], "from": "2020-01-01", "to_date": "2020-12-31"})
    assert [f.date for f in out.results] == ["2020-12-31", "2020-01-01"]
    out = call(rt, "search", {"entity": ["Microsoft Corp"], "from": "2020-01-02", "to_date": "2020-12-30"})
    assert out.total == 0 and out.results == [] and "(no facts match)" in render.search(out)
    only_from = call(rt, "search", {"entity": ["Apple Inc"], "from": "2024-06-01", "limit": 50})
    assert {f.date for f in only_from.results} == {"2024-06-01", "2025-06-01"}


@pytest.mark.parametrize("args,message", [
    ({"entity": ["Apple Inc"], "from": "2020-1-1"}, "is not a date: use YYYY-MM-DD"),
    ({"entity": ["Apple Inc"], "to_date": "yesterday"}, "is not a date"),
    ({"entity": ["Apple Inc"], "from": "2020-W53-7"}, "is not a date: use YYYY-MM-DD"),  # an ISO week date
    ({"entity": ["Apple Inc"], "to_date": "2020-12-3\u0661"}, "is not a date: use YYYY-MM-DD"),  # a non-ASCII digit
    ({"entity": ["Apple Inc"], "from": "2021-01-01", "to_date": "2020-01-01"}, "is after to_date"),
    ({}, "give at least one entity or topic"),
    ({"entity": "Apple Inc, Microsoft Corp"}, 'takes a list of names, e.g. entity=["Apple Inc", "Microsoft Corp"]'),
    ({"entity": [{"name": "Apple", "definition": "x"}]}, "not selector objects"),
    ({"entity": ["Apple Inc"], "mode": "near"}, "field 'mode'"),
    ({"entity": ["Apple Inc"], "limit": 0}, "field 'limit'"),
    ({"entity": ["Apple Inc"], "to": "2020-01-01"}, "'to' is an old form"),
    ({"entity": ["Apple Inc"], "from_date": "2020-01-01"}, "unknown field 'from_date'"),
])
def test_search_rejects_bad_input(rt, args, message):
    with pytest.raises(InvalidInput, match=message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        call(rt, "search", args)


@pytest.mark.parametrize("date", ["2020-W53-7", "20201231", "2020-12-3\u0661", "2020-02-30"])
def test_a_document_date_is_a_day_spelled_yyyy_mm_dd(rt, date):
    """date.fromisoformat also takes week dates and basic forms: stored dates compare as text, one spelling."""
    record = {"name": "week", "date": date, "chunks": ["text"], "entities": []}
    with pytest.raises(InvalidInput, match=r"is not a date.*: use YYYY-MM-DD \(year, month, day\), e\.g\. "):
        call(rt, "add_document", record)


def test_query_ranks_the_whole_filtered_set_and_finds_an_old_fact(rt):
    recent = call(rt, "search", {"entity": ["Apple Inc"], "limit": 3})
    assert "Beats Electronics" not in [f.object.name for f in recent.results]  # a recency cut loses it
    out = call(rt, "search", {"entity": ["Apple Inc"], "query": "buying a headphone company", "limit": 3})
    assert out.results[0].object.name == "Beats Electronics" and out.results[0].date == "2012-05-28"
    assert out.total == recent.total and len(out.results) == 3
    scores = [f.score for f in out.results]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    text = render.search(out)
    assert "most relevant to the query first" in text and "relevance " in text


def test_query_with_date_filter_ranks_only_inside_the_dates(rt):
    out = call(rt, "search", {"entity": ["Apple Inc"], "query": "headphones", "from": "2013-01-01", "limit": 50})
    assert all(f.date >= "2013-01-01" for f in out.results) and out.total == len(out.results) == len(YEARLY) + 3


def test_an_unknown_name_lists_the_nearest_nodes_and_points_to_find(rt):
    with pytest.raises(NotFound) as exc:
        call(rt, "search", {"entity": ["Apple Computers"]})
    message = exc.value.message
    assert "no entity named 'Apple Computers'" in message and "Use find" in message
    assert "E:apple-inc (Apple Inc)" in message.split("Nearest:")[1]
    with pytest.raises(InvalidInput, match=r"'Apple Inc' is an entity \(E:apple-inc\): use entity, not topic"):
        call(rt, "search", {"topic": ["Apple Inc"]})  # an entity is not a topic: the error says where it belongs


def test_the_output_lines_follow_the_contract(rt):
    out = call(rt, "search", {"entity": ["Microsoft Corp"], "topic": ["Inflation"], "mode": "between"})
    text = render.search(out)
    header = text.splitlines()[0]
    assert header.startswith("SEARCH mode=between") and "entity: Microsoft Corp [E:microsoft-corp]" in header
    assert "topic: Inflation [T:inflation]" in header
    assert ("[1] 2022-07-15  Microsoft Corp ──[passed on]──▶ Inflation  (Prices and tech)\n"
            "    Microsoft passed inflation on to cloud customers.") in text


# -- cat -----------------------------------------------------------------------------------------------


def test_cat_expands_the_latest_search(rt):
    ctx = CallContext(session="cat-test")
    out = call(rt, "search", {"entity": ["Microsoft Corp"], "topic": ["Inflation"], "mode": "between"}, ctx)
    expanded = call(rt, "cat", {"numbers": [1]}, ctx)
    [item] = expanded.items
    assert expanded.search_id == out.search_id and item.fact.id == out.results[0].id and item.fact.number == 1
    assert "Microsoft passed inflation on to cloud customers." in item.chunk
    assert item.fact.document.name == "Prices and tech" and item.fact.document.date == "2022-07-15"
    assert (item.subject.name, item.subject.facts) == ("Microsoft Corp", 4)
    assert (item.object.id, item.object.definition) == ("T:inflation", INFLATION["definition"])
    text = render.cat(expanded)
    assert "[1] 2022-07-15  Microsoft Corp ──[passed on]──▶ Inflation" in text and "chunk:" in text


def test_cat_several_numbers_in_the_order_asked(rt):
    ctx = CallContext(session="several")
    out = call(rt, "search", {"entity": ["Apple Inc"], "limit": 5}, ctx)
    got = call(rt, "cat", {"numbers": [3, 1]}, ctx)
    assert [(i.fact.number, i.fact.id) for i in got.items] == [(3, out.results[2].id), (1, out.results[0].id)]


def test_cat_errors(rt):
    fresh = CallContext(session="never-searched")
    with pytest.raises(InvalidInput, match="no search yet in this session"):
        call(rt, "cat", {"numbers": [1]}, fresh)
    call(rt, "search", {"entity": ["Microsoft Corp"], "mode": "around", "limit": 2}, fresh)
    with pytest.raises(InvalidInput, match=r"no result 3, 9 in search s[0-9a-f]{8} \(results: 1 to 2\)"):
        call(rt, "cat", {"numbers": [1, 3, 9]}, fresh)
    for bad in ({"numbers": []}, {"numbers": [0]}, {"numbers": ["one"]}, {}):
        with pytest.raises(InvalidInput):
            call(rt, "cat", bad, fresh)


def test_sessions_do_not_see_each_others_numbers(rt):
    a, b = CallContext(session="a"), CallContext(session="b")
    sa = call(rt, "search", {"entity": ["Apple Inc"], "limit": 1}, a)
    sb = call(rt, "search", {"entity": ["Microsoft Corp"], "topic": ["AI"], "mode": "between"}, b)
    assert call(rt, "cat", {"numbers": [1]}, a).items[0].fact.id == sa.results[0].id
    assert call(rt, "cat", {"numbers": [1]}, b).items[0].fact.id == sb.results[0].id
    with pytest.raises(NotFound, match="no search"):
        call(rt, "cat", {"numbers": [1], "search_id": sb.search_id}, a)


def test_a_sessionless_connection_must_name_the_search(rt):
    none = CallContext(session=None)
    out = call(rt, "search", {"entity": ["Apple Inc"], "limit": 2}, none)
    with pytest.raises(InvalidInput, match="has no session .*pass search_id"):
        call(rt, "cat", {"numbers": [1]}, none)
    assert call(rt, "cat", {"numbers": [2], "search_id": out.search_id}, none).items[0].fact.id == out.results[1].id


def test_searches_live_in_the_store_so_another_process_answers_cat(rt, embedder):
    """A second runtime on the same store (another server process) expands a search the first one ran: by its
    id without a session, or as the same session's latest; it keeps the failed-search rule too."""
    other = Runtime(rt.settings, embedder=embedder)
    try:
        none, same = CallContext(session=None), CallContext(session="http:shared")
        out = call(rt, "search", {"entity": ["Apple Inc"], "limit": 2}, none)
        assert call(other, "cat", {"numbers": [2], "search_id": out.search_id}, none).items[0].fact.id == \
            out.results[1].id
        latest = call(rt, "search", {"entity": ["Microsoft Corp"], "limit": 1}, same)
        assert call(other, "cat", {"numbers": [1]}, same).search_id == latest.search_id
        with pytest.raises(NotFound):
            call(rt, "search", {"entity": ["Nobody Anywhere"]}, same)
        TOOLSET.tool("search").failed(rt, {"entity": ["Nobody Anywhere"]}, same, NotFound("no such entity"))
        with pytest.raises(InvalidInput, match="the latest search on this graph failed"):
            call(other, "cat", {"numbers": [1]}, same)
        assert call(other, "cat", {"numbers": [1], "search_id": latest.search_id}, same).items
    finally:
        other.close()


def test_saved_searches_are_bounded(rt, monkeypatch):
    """The newest searches are kept; older ones are dropped as new ones are saved (sessions.KEEP_SEARCHES)."""
    monkeypatch.setattr(sessions, "KEEP_SEARCHES", 3)
    monkeypatch.setattr(sessions, "TRIM_SLACK", 0)
    ctx = CallContext(session="bounded")
    ids = [call(rt, "search", {"entity": ["Apple Inc"], "limit": 1}, ctx).search_id for _ in range(5)]
    store = rt.open_store(sessions.namespace("default"))
    assert store.count_nodes(sessions.SEARCH) == 3
    with pytest.raises(NotFound, match="searches of a graph are kept"):
        call(rt, "cat", {"numbers": [1], "search_id": ids[0]}, ctx)
    assert call(rt, "cat", {"numbers": [1], "search_id": ids[-1]}, ctx).items
    assert call(rt, "cat", {"numbers": [1]}, ctx).search_id == ids[-1]


# -- info, ls, stats --------------------------------------------------------------------------------


def test_info_summarises_a_node(rt):
    out = call(rt, "info", {"name": "Microsoft"})
    assert (out.id, out.kind, out.name, out.type) == ("E:microsoft-corp", "entity", "Microsoft Corp", "Company")
    assert out.definition == MICROSOFT["definition"] and out.aliases == ["Microsoft"]
    assert (out.fact_count, out.first_date, out.last_date) == (4, "2020-01-01", "2022-07-15")
    assert out.neighbours[0].id == "E:apple-inc" and out.neighbours[0].facts == 2
    assert {n.id for n in out.neighbours} == {"E:apple-inc", "T:inflation", "T:artificial-intelligence"}
    assert [f.date for f in out.latest_facts][:1] == ["2022-07-15"] and all(f.number == 0 for f in out.latest_facts)
    text = render.info(out)
    assert "Microsoft Corp  (Company entity E:microsoft-corp)" in text and "facts: 4, 2020-01-01 to 2022-07-15" in text
    topic = call(rt, "info", {"name": "AI"})
    assert (topic.kind, topic.type, topic.fact_count) == ("topic", None, 1)
    with pytest.raises(NotFound, match="Use find"):
        call(rt, "info", {"name": "Nonexistent Widget Co"})


def test_ls_lists_with_counts(rt):
    ents = call(rt, "ls", {"what": "entities", "limit": 3})
    assert ents.total == 3 + len(YEARLY) and len(ents.rows) == 3
    assert (ents.rows[0].id, ents.rows[0].facts) == ("E:apple-inc", len(YEARLY) + 4)
    assert [r.facts for r in ents.rows] == sorted((r.facts for r in ents.rows), reverse=True)
    docs = call(rt, "ls", {"what": "documents"})
    assert docs.total == len(records()) and docs.rows[0].date == "2025-06-01" and docs.rows[-1].date == "2012-05-28"
    assert all(r.chunks == 1 for r in docs.rows)
    topics = call(rt, "ls", {"what": "topics"})
    assert [(r.name, r.facts) for r in topics.rows] == [("Inflation", 2), ("Artificial intelligence", 1)]
    with pytest.raises(InvalidInput, match="field 'what'"):
        call(rt, "ls", {"what": "facts"})


@pytest.mark.parametrize("what,type", [("entities", None), ("documents", None), ("entities", "company")])
def test_ls_pages_through_everything_with_offset(rt, what, type):
    """Pages of 2 walk the whole listing: each row once, in the order of one long page; has_more until the end."""
    args = {"what": what, **({"type": type} if type else {})}
    whole = call(rt, "ls", {**args, "limit": 1000})
    assert not whole.has_more and len(whole.rows) == whole.total > 2
    seen, offset = [], 0
    while True:
        page = call(rt, "ls", {**args, "limit": 2, "offset": offset})
        assert (page.total, page.offset) == (whole.total, offset)
        seen += [r.id for r in page.rows]
        offset += len(page.rows)
        assert page.has_more == (offset < whole.total)
        if not page.has_more:
            break
    assert seen == [r.id for r in whole.rows]
    past = call(rt, "ls", {**args, "offset": whole.total + 5})
    assert (past.rows, past.has_more, past.total) == ([], False, whole.total)
    with pytest.raises(InvalidInput, match="offset"):
        call(rt, "ls", {**args, "offset": -1})


def test_stats_gives_totals(rt):
    out = call(rt, "stats", {})
    assert (out.entities, out.topics, out.documents, out.chunks) == (3 + len(YEARLY), 2, len(records()), len(records()))
    assert out.facts == len(YEARLY) + 6 and out.first_date == "2012-05-28" and out.last_date == "2025-06-01"
    assert out.embedder == "all-MiniLM-L6-v2-onnx-int8" and out.location.endswith(
        "(namespace facts/default)" if rt.settings.database_url else "facts/default/store.db")


def test_graphs_are_separate_and_an_empty_graph_says_how_to_fill_it(rt):
    with pytest.raises(NotFound, match="graph 'other' has no data yet.*graphlore facts ingest FILE.jsonl --graph other"):
        call(rt, "stats", {"graph": "other"})
    with pytest.raises(InvalidInput, match="field 'graph'"):
        call(rt, "stats", {"graph": "../etc"})


def test_extract_without_an_llm_points_to_the_structured_paths(rt):
    with pytest.raises(ConfigError) as exc:
        call(rt, "extract_document", {"name": "n", "date": "2025-01-01", "text": "Apple bought Beats."})
    assert "add_document" in exc.value.message and "graphlore facts ingest FILE.jsonl" in exc.value.message
    assert "GRAPHLORE_LLM_URL" in exc.value.message


def test_add_document_answers_what_was_merged_and_why(rt):
    out = call(rt, "add_document", {
        "name": "Later news", "date": "2025-12-01", "chunks": ["Apple and Microsoft met."],
        "entities": [{"name": "Apple", "type": "Company", "definition": "technology company that makes iPhones and Macs"},
                     dict(MICROSOFT)],
        "facts": [{"subject": "Apple", "relationship": "met", "object": "Microsoft Corp",
                   "sentence": "Apple met Microsoft.", "chunk": 0}],
    })
    by = {r.name: r for r in out.resolutions}
    assert by["Apple"].action == "merged" and by["Apple"].id == "E:apple-inc"
    assert "definition cosine" in by["Apple"].reason
    assert by["Microsoft Corp"].action == "matched"
    text = render.add_document(out)
    assert "entity 'Apple': merged -> Apple Inc (E:apple-inc)" in text
    call(rt, "add_document", {"name": "Later news", "date": "2025-12-01", "chunks": ["Apple and Microsoft met."],
                              "entities": [], "graph": "default"})  # same document, now without facts: updated
    assert call(rt, "stats", {}).facts == len(YEARLY) + 6
