"""Every facts tool through the official MCP client, over stdio and streamable HTTP, against `graphlore serve facts`.

The graph is filled through add_document over MCP. Two clients must never see each other's cat numbers:
two stdio clients are two server processes; two HTTP clients share one process and are told apart by
their MCP session (handshake-era protocol); the 2026-07-28 protocol over HTTP has no session at all,
so cat there needs the search_id the search answered with.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from anyio.from_thread import start_blocking_portal
from helpers.facts_data import YEARLY, records
from helpers.mcp import Session, connect, http_server, stdio_params

from graphlore.adapters.command import attach
from graphlore.toolsets.facts import TOOLSET, render

SPECS = {spec.name: spec for spec in attach(TOOLSET).on("mcp")}  # with kg_execute, as served


@pytest.fixture(scope="module", params=["stdio", "http"])
def server(request, tmp_path_factory) -> Iterator[tuple[str, object, Path]]:
    """(transport, connect target, data home) of a fresh server per transport, filled once over MCP."""
    base = tmp_path_factory.mktemp(f"facts-{request.param}")
    home = base / "home"
    with start_blocking_portal() as portal:
        if request.param == "stdio":
            target = stdio_params("facts", home)
            yield_value = (request.param, target, home, portal)
            _fill(portal, target)
            yield yield_value
        else:
            with http_server("facts", home, base / "server.log") as (url, _):
                _fill(portal, url)
                yield request.param, url, home, portal


def _fill(portal, target) -> None:
    with connect(portal, target, "facts") as s:
        for record in records():
            out, _ = s.ok("add_document", record)
            assert out.status == "created"


@pytest.fixture(scope="module")
def mcp(server) -> Iterator[Session]:
    transport, target, _, portal = server
    with connect(portal, target, "facts") as session:
        yield session


# -- tools/list ------------------------------------------------------------------------------------


def test_tools_list_has_strict_schemas(mcp):
    tools = {t.name: t for t in mcp.portal.call(mcp.client.list_tools).tools}
    assert set(tools) == {"find", "search", "cat", "info", "ls", "stats", "kg_execute", "add_document", "extract_document",
                          "split", "merge", "retract", "relation_set", "resolve_links",
                          "check_contradictions"}
    for name, tool in tools.items():
        spec = SPECS[name]
        assert tool.input_schema == spec.request.model_json_schema()
        assert tool.input_schema["additionalProperties"] is False
        assert tool.output_schema is not None and tool.annotations.read_only_hint is spec.read_only
        assert len(tool.description) > 80
    assert "from" in tools["search"].input_schema["properties"]
    assert tools["add_document"].annotations.read_only_hint is False


# -- every tool -------------------------------------------------------------------------------------


def test_find(mcp):
    out, text = mcp.ok("find", {"entity": [{"name": "Apple", "definition": "iPhone maker", "id": "x1"}],
                                "topic": [{"name": "Prices", "definition": "cost of living going up"}]})
    assert out.entities[0].id == "x1" and out.entities[0].candidates[0].id == "E:apple-inc"
    assert out.topics[0].candidates[0].id == "T:inflation"
    assert text == render.find(out)  # the text block is the documented rendering


def test_search_and_cat(mcp):
    out, text = mcp.ok("search", {"entity": ["Apple Inc", "Microsoft"], "mode": "between"})
    assert [f.relationship for f in out.results] == ["licensed software from", "settled with"]
    assert text.splitlines()[0].startswith("SEARCH mode=between")
    assert "[1] 2020-12-31  Apple Inc ──[licensed software from]──▶ Microsoft Corp  (Office partnership)" in text
    expanded, text = mcp.ok("cat", {"numbers": [2], "search_id": out.search_id})
    assert expanded.items[0].fact.id == out.results[1].id and "Microsoft settled" in expanded.items[0].chunk
    assert "[2] 2020-01-01  Microsoft Corp ──[settled with]──▶ Apple Inc" in text


def test_search_with_query_and_dates(mcp):
    out, _ = mcp.ok("search", {"entity": ["Apple"], "query": "headphones acquisition", "limit": 2})
    assert out.results[0].object.name == "Beats Electronics" and out.results[0].score is not None
    out, _ = mcp.ok("search", {"entity": ["Apple"], "from": "2024-01-01", "to_date": "2025-12-31"})
    assert sorted(f.date for f in out.results) == ["2024-06-01", "2025-06-01"]


def test_info_ls_stats(mcp):
    info, text = mcp.ok("info", {"name": "AI"})
    assert info.id == "T:artificial-intelligence" and info.fact_count == 1 and "aliases: AI" in text
    ls, _ = mcp.ok("ls", {"what": "entities", "limit": 1})
    assert ls.rows[0].id == "E:apple-inc" and ls.total == 3 + len(YEARLY)
    stats, _ = mcp.ok("stats", {})
    assert stats.documents == len(records()) and stats.facts == len(YEARLY) + 6


def test_kg_execute_shares_the_session_and_answers_with_the_typed_text(mcp):
    out, text = mcp.ok("kg_execute", {"command": 'search -entity "Apple Inc, Microsoft" --mode between'})
    assert out.command == "search" and text == out.text and text.startswith("SEARCH mode=between")
    assert out.result["results"][0]["relationship"] == "licensed software from"
    expanded, _ = mcp.ok("cat", {"numbers": [1], "search_id": out.result["search_id"]})
    assert expanded.items[0].fact.id == out.result["results"][0]["id"]
    assert "Workflow: find → search → cat → info" in mcp.ok("kg_execute", {"command": "help"})[1]
    error = mcp.error("kg_execute", {"command": "search -entity Inflation"})
    # kg_execute speaks its command grammar's flags; the typed tool speaks fields
    assert "[invalid_input] 'Inflation' is a topic (T:inflation): use -topic, not -entity" in error
    typed = mcp.error("search", {"entity": ["Inflation"]})
    assert "[invalid_input] 'Inflation' is a topic (T:inflation): use topic, not entity" in typed


def test_a_typed_search_refused_by_validation_ends_this_sessions_latest_search(server):
    """Over a real transport (stdio: the process; HTTP: the Mcp-Session-Id) a typed search the request model
    refuses ends the session's latest search; another session's latest search is untouched."""
    transport, target, _, portal = server
    mode = "legacy" if transport == "http" else "auto"  # over HTTP, a session needs the handshake era
    with connect(portal, target, "facts", mode=mode) as a, connect(portal, target, "facts", mode=mode) as b:
        first, _ = a.ok("search", {"entity": ["Beats"]})
        b.ok("search", {"entity": ["Beats"]})
        assert "is not a date" in a.error("search", {"entity": ["Beats"], "to_date": "2024-13"})
        refused = a.error("cat", {"numbers": [1]})
        assert "the latest search on this graph failed" in refused and "is not a date" in refused
        assert a.ok("cat", {"numbers": [1], "search_id": first.search_id})[0].items  # still there by id
        assert b.ok("cat", {"numbers": [1]})[0].items[0].fact.object.name == "Beats Electronics"


def test_an_unknown_tool_name_lists_the_tools_and_both_ways_in(mcp):
    text = mcp.error("kg_search", {"command": "help"})
    assert "[invalid_input] no tool 'kg_search' on this server" in text and "its tools: find, search," in text
    assert 'kg_execute(command="help")' in text


def test_validity_and_the_writes_of_issue_25_over_mcp(mcp):
    out, text = mcp.ok("search", {"entity": ["Apple Inc"], "current": True})
    assert out.current and out.total >= 1 and text.splitlines()[0].endswith("current")
    out, _ = mcp.ok("relation_set", {"name": "has CEO", "functional": True})
    assert out.relationship == "has ceo" and out.default
    assert "[not_found] no document named 'Nothing here'" in mcp.error("retract", {"document": "Nothing here"})
    assert "one node already" in mcp.error("merge", {"name": "Apple Inc", "other": "Apple"})
    assert "exclude each other" in mcp.error("search", {"entity": ["Apple"], "current": True, "as_of": "2020"})


def test_add_document_again_is_unchanged(mcp):
    out, text = mcp.ok("add_document", records()[0])
    assert out.status == "unchanged" and out.facts_added == 0 and text.startswith("unchanged:")


def test_extract_without_any_llm_points_to_add_document(mcp):
    text = mcp.error("extract_document", {"name": "n", "date": "2025-01-01", "text": "Apple bought Beats."})
    assert "[config_error] no LLM" in text and "add_document" in text


@pytest.mark.parametrize("tool,args,shown", [
    ("find", {"entity": ["Apple: company"]}, "not names or 'name: definition' strings"),
    ("find", {"entity_name": "Apple", "entity_def": "x"}, "'entity_name' is an old form"),
    ("find", {"entity": [{"name": "Apple", "definition": "x", "nam": "y"}]}, "unknown field 'entity.0.nam'"),
    ("search", {"entity": ["Apple"], "from": "2020-02-30"}, "is not a date"),
    ("search", {"entity": ["Nobody Inc"]}, "Use find"),
    ("search", {"entity": "Apple"}, "takes a list of names"),
    ("cat", {"numbers": [1], "search_id": "s00000000"}, "no search 's00000000'"),
    ("info", {"name": "x", "graph": "Bad!"}, "field 'graph'"),
    ("ls", {"what": "facts"}, "field 'what'"),
    ("stats", {"graf": "default"}, "unknown field 'graf'"),
    ("add_document", {"name": "n", "date": "2025-01-01", "chunks": ["x"], "facts": [
        {"subject": "A", "relationship": "r", "object": "B", "sentence": "s", "chunk": 0}]},
     "facts[0].subject 'A' is not the name or alias"),
])
def test_bad_input_is_an_error_that_teaches(mcp, tool, args, shown):
    text = mcp.error(tool, args)
    assert "[invalid_input]" in text or "[not_found]" in text
    assert shown in text


# -- sessions and cat numbers ---------------------------------------------------------------------------


def test_two_clients_do_not_see_each_others_cat_numbers(server):
    transport, target, _, portal = server
    mode = "legacy" if transport == "http" else "auto"  # over HTTP, a session needs the handshake era
    with connect(portal, target, "facts", mode=mode) as a, connect(portal, target, "facts", mode=mode) as b:
        text = b.error("cat", {"numbers": [1]})
        assert "no search yet in this session" in text
        sa, _ = a.ok("search", {"entity": ["Beats"]})
        assert "no search yet in this session" in b.error("cat", {"numbers": [1]})
        sb, _ = b.ok("search", {"entity": ["Microsoft Corp"], "topic": ["AI"], "mode": "between"})
        ca, _ = a.ok("cat", {"numbers": [1]})
        cb, _ = b.ok("cat", {"numbers": [1]})
        assert ca.items[0].fact.id == sa.results[0].id and ca.items[0].fact.object.name == "Beats Electronics"
        assert cb.items[0].fact.id == sb.results[0].id and cb.items[0].fact.object.name == "Artificial intelligence"
        # Another session's search id does not open it either.
        assert "no search" in a.error("cat", {"numbers": [1], "search_id": sb.search_id})
        assert "no result 2" in a.error("cat", {"numbers": [2]})


def test_http_without_a_session_needs_the_search_id(server):
    transport, target, _, portal = server
    if transport != "http":
        pytest.skip("stdio always has its session: the process")
    with connect(portal, target, "facts") as c:  # protocol 2026-07-28: no session
        assert c.portal.call(lambda: c.client.protocol_version) >= "2026"
        out, _ = c.ok("search", {"entity": ["Beats"]})
        assert "has no session" in c.error("cat", {"numbers": [1]})
        expanded, _ = c.ok("cat", {"numbers": [1], "search_id": out.search_id})
        assert expanded.items[0].fact.id == out.results[0].id


def test_split_undoes_a_merge_over_mcp(mcp):
    """On a graph of its own: NYC merges into New York City, info shows both mentions, split moves NYC back out."""
    for name, entity in (("a", ["New York City", "the most populous city in the United States"]),
                         ("b", ["NYC", "largest city in the United States, on the Hudson River"])):
        mcp.ok("add_document", {
            "name": name, "date": "2024-01-01", "chunks": [f"{entity[0]} and Apple"], "graph": "split",
            "entities": [{"name": entity[0], "type": "Location", "definition": entity[1]},
                         {"name": "Apple Inc", "type": "Company", "definition": "technology company"}],
            "facts": [{"subject": "Apple Inc", "relationship": "has an office in", "object": entity[0],
                       "sentence": f"Apple has an office in {entity[0]}.", "chunk": 0},
                      {"subject": entity[0], "relationship": "taxes", "object": "Apple Inc",
                       "sentence": f"{entity[0]} taxes Apple.", "chunk": 0}]})
    info, text = mcp.ok("info", {"name": "NYC", "graph": "split"})
    assert info.name == "New York City" and info.mention_count == 2 and "merged   NYC" in text
    out, text = mcp.ok("split", {"name": "New York City", "mentions": [info.mentions[0].id], "graph": "split"})
    assert (out.split_off.name, out.facts_moved) == ("NYC", 2) and text.startswith("split New York City")
    assert "no mention of New York City" in mcp.error("split", {"name": "New York City", "mentions": ["Gotham"],
                                                                "graph": "split"})
    assert "unknown field 'bogus'" in mcp.error("split", {"name": "New York City", "mentions": ["NYC"], "bogus": 1})
