"""kg_execute: the original facts server's command strings, through our typed tools (real embedder and SQLite).

Three parts:
- the original's own test cases (Vanna-Labs/vanna-financial-knowledge-graph, tests/test_mcp_server.py:
  parsing, session, help, unknown command, stats, find, search, cat, ls), rewritten against a small graph
  of ours, each run through ``kg_execute`` and through the typed tool it maps onto;
- every command string printed in the original's docs, replayed verbatim through ``kg_execute``;
- the issue's other points as they show through both ways in (month dates, kinds mixed up, cat after a
  failed search, date_context, ls type, empty text, weak find candidates).
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from anyio.from_thread import start_blocking_portal
from helpers.backend import settings_for
from helpers.facts_upstream import (
    EXAMPLES_MD,
    MEANT,
    SERVER_DOC,
    SKILL_MD,
    TOOL_DESCRIPTION,
    TROUBLESHOOTING_MD,
    records,
)
from mcp import Client

from graphlore.adapters.command import attach, language, split_command, words
from graphlore.adapters.mcp import build_server
from graphlore.contract import parse_request
from graphlore.errors import GraphloreError, InvalidInput, NotFound
from graphlore.runtime import Runtime
from graphlore.tools import CallContext
from graphlore.toolsets.facts import TOOLSET, render, tools
from graphlore.toolsets.facts.models import ExecuteResponse

FACTS = attach(TOOLSET)  # with kg_execute, as the adapters serve it
SPECS = {s.name: s for s in FACTS.tools}
RENDER = {s.name: s.render for s in FACTS.tools}
LANGUAGE = language(FACTS)


def tokenise(line: str) -> tuple[str, list[str]]:
    """(command, words) as kg_execute splits a line: find's raw JSON objects whole, the rest like a shell."""
    name, rest = split_command(line)
    return name, LANGUAGE.commands[name].words(rest) if name in LANGUAGE.commands else words(rest)
_sessions = iter(range(1_000_000))


def fresh() -> CallContext:
    return CallContext(session=f"s{next(_sessions)}")


@pytest.fixture(scope="module")
def rt(tmp_path_factory, embedder) -> Runtime:
    runtime = Runtime(settings_for(tmp_path_factory.mktemp("home")), embedder=embedder)
    for rec in records():
        assert SPECS["add_document"].run(runtime, parse_request(SPECS["add_document"].request, rec)).status == "created"
    return runtime


def kg(rt: Runtime, line: str, context: CallContext | None = None) -> ExecuteResponse:
    spec = SPECS["kg_execute"]
    return spec.run(rt, parse_request(spec.request, {"command": line}), context=context or fresh())


def typed(rt: Runtime, tool: str, args: dict, context: CallContext | None = None):
    """The typed tool as the adapters call it: validated by its model, and its on_failure told of a failure
    (tests/adapters and the MCP / CLI tests below check that the adapters really do)."""
    spec, context = SPECS[tool], context or fresh()
    try:
        request = parse_request(spec.request, args)
        return spec.run(rt, request, context=context) if spec.context else spec.run(rt, request)
    except GraphloreError as exc:
        if spec.context:
            spec.failed(rt, args, context, exc)
        raise


def both(rt: Runtime, via: str, line: str, tool: str, args: dict, context: CallContext | None = None) -> str:
    """The text answer of the command line (kg_execute) or of the typed call it stands for."""
    if via == "kg_execute":
        out = kg(rt, line, context)
        assert out.command == tool
        return out.text
    return RENDER[tool](typed(rt, tool, args, context))


def fails(rt: Runtime, via: str, line: str, tool: str, args: dict, context: CallContext | None = None) -> str:
    with pytest.raises(GraphloreError) as exc:
        both(rt, via, line, tool, args, context)
    if via == "kg_execute" and isinstance(exc.value, InvalidInput) and "Usage:" in exc.value.message:
        assert exc.value.message.split("Usage: ")[1].startswith(tool)  # the command's own usage line
    return str(exc.value)


VIA = pytest.mark.parametrize("via", ["kg_execute", "typed"])


# -- parsing (the original's TestCommandParsing) -------------------------------------------------------


def test_find_takes_raw_json_as_one_word():
    assert tokenise('find --entity {"name":"Apple","definition":"US tech company"}') == (
        "find", ["--entity", '{"name":"Apple","definition":"US tech company"}'])


def test_raw_json_keeps_its_spaces_and_braces_inside_strings():
    line = 'FIND --entity {"name":"Federal Reserve","definition":"US central {banking} \\"system\\""} --topic \'{"a": 1}\''
    assert tokenise(line) == (
        "find", ["--entity", '{"name":"Federal Reserve","definition":"US central {banking} \\"system\\""}', "--topic",
                 '{"a": 1}'])


def test_other_commands_split_like_a_shell():
    name, said = tokenise('search -entity Apple "earnings impact"')
    assert name == "search" and said == ["-entity", "Apple", "earnings impact"]


def test_an_empty_command_is_refused():
    for line in ("", "   "):
        with pytest.raises(InvalidInput, match="must not be empty"):  # the request model refuses it first
            parse_request(SPECS["kg_execute"].request, {"command": line})
        with pytest.raises(InvalidInput, match="empty command"):
            split_command(line)


def test_an_unclosed_quote_is_refused(rt):
    with pytest.raises(InvalidInput, match="close every quote"):
        kg(rt, 'search -entity "Apple Inc')


@pytest.mark.parametrize("names,expected", [
    ("Apple, Microsoft, Google", ["Apple", "Microsoft", "Google"]),
    ("Apple", ["Apple"]),
])
def test_comma_separated_names(names, expected):
    assert LANGUAGE.commands["search"].arguments(["-entity", names]) == {"entity": expected}


def test_an_empty_name_list_is_refused_not_dropped(rt):
    with pytest.raises(InvalidInput, match="has an empty name"):
        kg(rt, 'search -entity ""')
    with pytest.raises(InvalidInput, match="has an empty name"):
        kg(rt, 'search -entity "Apple Inc,,Microsoft Corp"')


def test_a_stray_word_is_an_error_not_ignored(rt):
    message = str(pytest.raises(InvalidInput, kg, rt, 'search -entity Apple "earnings impact"').value)
    assert "unexpected extra argument (earnings impact)" in message and "Usage: search" in message


def test_flags_take_values_once_and_in_both_spellings(rt):
    assert LANGUAGE.commands["search"].arguments(["-q", "x", "--limit=3", "--to-date", "2024"]) == {
        "query": "x", "limit": 3, "to_date": "2024"}  # text to the declared type, as the CLI does
    with pytest.raises(InvalidInput, match="--mode is given twice"):
        kg(rt, "search -entity Apple --mode around --mode between")
    with pytest.raises(InvalidInput, match="Option '-q' requires an argument"):
        kg(rt, "search -entity Apple -q")
    with pytest.raises(InvalidInput, match="No such option '--qeury'. Did you mean '--query'"):
        kg(rt, "search -entity Apple --qeury x")
    with pytest.raises(InvalidInput, match=r"-q is given twice \(as --query and -q\)"):
        kg(rt, "search -entity Apple --query x -q y")


# -- session (the original's TestSession and cat numbering) ---------------------------------------------


@VIA
def test_a_new_search_renumbers_the_results(rt, via):
    ctx = fresh()
    both(rt, via, 'search -entity "Apple Inc" --limit 2', "search", {"entity": ["Apple Inc"], "limit": 2}, ctx)
    assert "[2] " in both(rt, via, "cat 2", "cat", {"numbers": [2]}, ctx)
    both(rt, via, 'search -entity "Apple Inc" --limit 1', "search", {"entity": ["Apple Inc"], "limit": 1}, ctx)
    message = fails(rt, via, "cat 2", "cat", {"numbers": [2]}, ctx)
    assert "no result 2 in search" in message and "(results: 1 to 1)" in message


@VIA
def test_a_failed_search_ends_the_latest_search(rt, via):
    ctx = fresh()
    first = both(rt, via, 'search -entity "Apple Inc" --query acquired', "search",
                 {"entity": ["Apple Inc"], "query": "acquired"}, ctx)
    search_id = first.splitlines()[1].split("search_id ")[1].split()[0]
    for line, args in (('search -entity "Apple Computers" -q "interest rates"',
                        {"entity": ["Apple Computers"], "query": "interest rates"}),
                       ('search -topic "Apple Inc"', {"topic": ["Apple Inc"]})):
        fails(rt, via, line, "search", args, ctx)
        message = fails(rt, via, "cat 1", "cat", {"numbers": [1]}, ctx)
        assert "the latest search on this graph failed" in message and "Apple" in message
    # the earlier search is still there when asked for by id
    assert "acquired" in both(rt, via, f"cat 1 --search-id {search_id}", "cat", {"numbers": [1], "search_id": search_id},
                              ctx)


def test_a_search_refused_by_validation_also_ends_it(rt):
    ctx = fresh()
    kg(rt, 'search -entity "Apple Inc"', ctx)
    with pytest.raises(InvalidInput, match="is not a date"):
        kg(rt, 'search -entity "Apple Inc" --from 2024-13', ctx)
    with pytest.raises(InvalidInput, match="the latest search on this graph failed.*is not a date"):
        kg(rt, "cat 1", ctx)


@VIA
def test_cat_names_what_its_search_searched(rt, via):
    ctx = fresh()
    both(rt, via, 'search -entity "Federal Reserve" -topic Inflation --from 2024-10 --to-date 2024-10 -q prices',
         "search", {"entity": ["Federal Reserve"], "topic": ["Inflation"], "from": "2024-10", "to_date": "2024-10",
                    "query": "prices"}, ctx)
    head = both(rt, via, "cat 1", "cat", {"numbers": [1]}, ctx).splitlines()[0]
    assert head.startswith("search s") and "mode=around" in head
    assert "entity: Federal Reserve System [E:federal-reserve]" in head and "topic: Inflation [T:inflation]" in head
    assert "dates 2024-10-01 to 2024-10-31" in head and "query='prices'" in head and "3 facts" in head


# -- help and unknown commands ---------------------------------------------------------------------------


def test_help_lists_the_commands_and_the_workflow(rt):
    out = kg(rt, "help")
    assert out.command == "help" and out.result is None
    for name in ("find", "search", "cat", "info", "ls", "stats"):
        assert f"\n  {name} " in out.text
    assert "Workflow: find → search → cat → info" in out.text
    assert "-q/--query" in out.text and "YYYY-MM" in out.text
    one = kg(rt, "help search").text
    assert "search -entity" in one and "cat N" not in one
    with pytest.raises(InvalidInput, match="no command 'grep'"):
        kg(rt, "help grep")


def test_an_unknown_command_names_the_commands(rt):
    message = str(pytest.raises(InvalidInput, kg, rt, "foobar").value)
    assert "unknown command 'foobar'" in message and "find, search, cat, info, ls, stats, retract, merge, help" in message


# -- stats, find, search, ls (the original's command tests) ----------------------------------------------


@VIA
def test_stats(rt, via):
    text = both(rt, via, "stats", "stats", {})
    assert "entities 10, topics 5, documents 12, chunks 12, facts 21" in text


def test_kg_execute_answers_with_the_typed_tools_output(rt):
    out = kg(rt, "stats")
    assert out.result == typed(rt, "stats", {}).model_dump(mode="json", by_alias=True)


@VIA
def test_find_entity_and_topic(rt, via):
    text = both(rt, via, 'find --entity {"name":"Apple","definition":"US tech company"} '
                         '--topic {"name":"Inflation","definition":"General price increases"}',
                "find", {"entity": [{"name": "Apple", "definition": "US tech company"}],
                         "topic": [{"name": "Inflation", "definition": "General price increases"}]})
    entities, topics = text.split("TOPICS:")
    assert entities.startswith("ENTITIES:") and "Apple Inc  [Company]  E:apple-inc" in entities.splitlines()[2]
    assert "Inflation  T:inflation" in topics.splitlines()[2]


@VIA
def test_find_with_several_selectors_and_ids(rt, via):
    text = both(rt, via, 'find --entity {"id":"e1","name":"Apple","definition":"US tech company"} '
                         '--entity {"id":"e2","name":"Microsoft","definition":"Enterprise software company"} '
                         '--topic {"id":"t1","name":"Inflation","definition":"General price increases"}',
                "find", {"entity": [{"id": "e1", "name": "Apple", "definition": "US tech company"},
                                    {"id": "e2", "name": "Microsoft", "definition": "Enterprise software company"}],
                         "topic": [{"id": "t1", "name": "Inflation", "definition": "General price increases"}]})
    assert text.index("(id=e1)") < text.index("(id=e2)") < text.index("(id=t1)")


@VIA
@pytest.mark.parametrize("line,args,message", [
    ("find", {}, "give at least one selector"),
    ('find --entity {"name":"Apple"}', {"entity": [{"name": "Apple"}]}, ("missing required field 'definition' in --entity value 1", "missing required field 'entity.0.definition'")),
    ('find --entity {"name":"Apple","definition":"  "}', {"entity": [{"name": "Apple", "definition": "  "}]},
     ("field 'definition' in --entity value 1 must not be empty", "field 'entity.0.definition' must not be empty")),
    ('find --entity {"name":"","definition":"x"}', {"entity": [{"name": "", "definition": "x"}]},
     ("field 'name' in --entity value 1 must not be empty", "field 'entity.0.name' must not be empty")),
    ('find --entity {"name":"Apple","definition":"x","kind":"y"}',
     {"entity": [{"name": "Apple", "definition": "x", "kind": "y"}]}, ("unknown field 'kind' in --entity value 1", "unknown field 'entity.0.kind'")),
    ("find -entity Apple", {"entity": "Apple"}, "not names"),
    ("find -topic Inflation", {"topic": "Inflation"}, "not names"),
    ('find --entity "Apple: technology company"', {"entity": ["Apple: technology company"]}, "not"),
    ("find -to Inflation", {"entity": [{"name": "x", "definition": "y"}], "to": "Inflation"}, "dates belong to search"),
])
def test_find_refusals(rt, via, line, args, message):
    """A command line's errors name its flags (``--entity value 1``); a typed call's, its fields."""
    if isinstance(message, tuple):
        message = message[0] if via == "kg_execute" else message[1]
    assert message in fails(rt, via, line, "find", args)


def test_find_refusals_in_the_command_language(rt):
    assert "is not JSON" in str(pytest.raises(InvalidInput, kg, rt, "find --entity {bad json").value)
    assert "'-entity' is an old form" in str(pytest.raises(InvalidInput, kg, rt, "find -entity Apple").value)
    assert "'-to' is an old form" in str(pytest.raises(InvalidInput, kg, rt, "find -to Inflation").value)
    assert "Option '--entity' requires an argument" in str(pytest.raises(InvalidInput, kg, rt, "find --entity").value)


@VIA
def test_search_defaults_to_around(rt, via):
    text = both(rt, via, 'search -entity "Apple Inc"', "search", {"entity": ["Apple Inc"]})
    assert text.startswith("SEARCH mode=around  entity: Apple Inc [E:apple-inc]\n6 of 6 facts, newest first")


@VIA
def test_search_requires_a_selector(rt, via):
    assert "give at least one entity or topic" in fails(rt, via, "search --mode between", "search", {"mode": "between"})


@VIA
def test_search_between_an_entity_subset(rt, via):
    text = both(rt, via, 'search -entity "Apple Inc, Microsoft Corp" --mode between', "search",
                {"entity": ["Apple Inc", "Microsoft Corp"], "mode": "between"})
    assert text.startswith("SEARCH mode=between  entity: Apple Inc [E:apple-inc], Microsoft Corp [E:microsoft-corp]")
    assert "1 of 1 fact," in text and "Microsoft Corp ──[overtook]──▶ Apple Inc" in text


@VIA
def test_search_between_a_mixed_subset(rt, via):
    text = both(rt, via, 'search -entity "Apple Inc" -topic "Inflation" --mode between', "search",
                {"entity": ["Apple Inc"], "topic": ["Inflation"], "mode": "between"})
    assert "topic: Inflation [T:inflation]" in text.splitlines()[0] and "2 of 2 facts" in text
    assert text.count("──▶ Inflation") == 2


@VIA
def test_search_refuses_the_old_to_flag(rt, via):
    message = fails(rt, via, 'search -entity "Apple Inc" -to Inflation', "search",
                    {"entity": ["Apple Inc"], "to": "Inflation"})
    assert ("'-to' is an old form" if via == "kg_execute" else "'to' is an old form") in message
    assert "to-date" in message or "to_date" in message


def test_search_refuses_json_selectors(rt):
    assert "JSON selectors are for find" in str(pytest.raises(
        InvalidInput, kg, rt, 'search --entity {"name":"Apple","definition":"x"}').value)


@VIA
def test_ls_entities_and_documents(rt, via):
    text = both(rt, via, "ls entities", "ls", {"what": "entities"})
    assert text.startswith("entities: 10 of 10") and "Apple Inc [Company]  (E:apple-inc; 6 facts)" in text
    text = both(rt, via, "ls documents", "ls", {"what": "documents"})
    assert text.splitlines()[1].startswith("  2025-01-30  Apple fiscal Q1 2025 results")


@VIA
def test_info_takes_unquoted_words_underscores_and_ids(rt, via):
    for line, name in (("info Apple Inc", "Apple Inc"), ('info "Apple Inc"', "Apple Inc"),
                       ("info Interest_Rates", "Interest_Rates"), ("info T:interest-rates", "T:interest-rates")):
        text = both(rt, via, line, "info", {"name": name})
        assert text.splitlines()[0].split("  (")[0] in ("Apple Inc", "Interest Rates")


# -- the original's docs, replayed verbatim --------------------------------------------------------------


def useful(line: str, out: ExecuteResponse) -> str | None:
    """Why the answer to ``line`` is not useful, or None when it is."""
    r = out.result
    if out.command == "find":
        for sel in [*r["entities"], *r["topics"]]:
            best = sel["candidates"][0] if sel["candidates"] else None
            if best is None or best["id"] != MEANT[sel["name"]] or best["weak"]:
                return f"{sel['name']}: best candidate {best}"
    elif out.command == "search":
        if not r["results"]:
            return "no facts"
        if any(not ((r["from"] or "") <= f["date"] <= (r["to_date"] or "9999")) for f in r["results"]):
            return "a fact outside the dates"
    elif out.command == "cat":
        wanted = [int(w) for w in line.split()[1:]]
        if [i["fact"]["number"] for i in r["items"]] != wanted:
            return "not the numbers asked for"
    elif out.command == "ls":
        if not r["rows"]:
            return "no rows"
        if r["type"] and any(row["type"].casefold() != r["type"].casefold() for row in r["rows"]):
            return "a row of another type"
    elif out.command == "stats":
        if not r["facts"]:
            return "no facts"
    elif out.command == "help" and "find → search → cat → info" not in out.text:
        return "no workflow"
    return None


def replay(rt: Runtime, lines: list[str]) -> dict[str, str | None]:
    """Each line in order in one session (cat follows its search): line -> None (useful) or what went wrong."""
    ctx, outcome = fresh(), {}
    for i, line in enumerate(lines):
        try:
            outcome[f"{i:02d} {line}"] = useful(line, kg(rt, line, ctx))
        except GraphloreError as exc:
            outcome[f"{i:02d} {line}"] = str(exc)
    return outcome


def test_the_45_command_strings_of_the_originals_docs_all_give_a_useful_answer(rt):
    """SKILL.md (23), references/examples.md (16) and the server's own docstring (6): 45 strings, verbatim."""
    outcomes = {}
    for source, lines in (("SKILL.md", SKILL_MD), ("examples.md", EXAMPLES_MD), ("server.py", SERVER_DOC)):
        outcomes |= {f"{source} {k}": v for k, v in replay(rt, lines).items()}
    assert len(outcomes) == 45
    failed = {k: v for k, v in outcomes.items() if v is not None}
    print(f"useful answers: {45 - len(failed)} of 45")
    assert failed == {}


def test_the_command_strings_of_the_original_tool_description_give_a_useful_answer(rt):
    outcomes = replay(rt, TOOL_DESCRIPTION)
    assert len(outcomes) == 12 and {k: v for k, v in outcomes.items() if v is not None} == {}


def test_the_troubleshooting_placeholder_gets_a_teaching_error_and_cat_refuses(rt):
    ctx = fresh()
    with pytest.raises(NotFound) as exc:
        kg(rt, TROUBLESHOOTING_MD[0], ctx)
    assert "no entity named '...'" in exc.value.message and "Nearest:" in exc.value.message
    with pytest.raises(InvalidInput, match="the latest search on this graph failed"):
        kg(rt, TROUBLESHOOTING_MD[1], ctx)


def test_every_doc_string_means_what_the_original_meant(rt):
    """Spot checks beyond 'useful': the month window, the Apple_Inc spelling, the type filter."""
    out = kg(rt, EXAMPLES_MD[1])  # --from 2024-10 --to-date 2024-10
    assert (out.result["from"], out.result["to_date"]) == ("2024-10-01", "2024-10-31")
    assert {f["date"] for f in out.result["results"]} == {"2024-10-23", "2024-10-31"}
    out = kg(rt, SERVER_DOC[1])  # search -entity Apple_Inc -topic Interest_Rates ...
    assert [(s["id"], s["matched"]) for s in out.result["selected"]] == [
        ("E:apple-inc", "normalised"), ("T:interest-rates", "normalised")]
    out = kg(rt, SERVER_DOC[4])  # ls entities -type company
    assert out.result["total"] == 7 and "entities of type 'company': 7 of 7" in out.text


# -- the other points -------------------------------------------------------------------------------


@VIA
@pytest.mark.parametrize("bounds,days", [
    (("2024-10", "2024-10"), ("2024-10-01", "2024-10-31")),
    (("2024", "2024"), ("2024-01-01", "2024-12-31")),
    (("2024-02", "2024-02"), ("2024-02-01", "2024-02-29")),
    (("2024-10-23", "2025-01"), ("2024-10-23", "2025-01-31")),
])
def test_month_and_year_dates_are_periods(rt, via, bounds, days):
    line = f'search -topic Inflation --from {bounds[0]} --to-date {bounds[1]}'
    text = both(rt, via, line, "search", {"topic": ["Inflation"], "from": bounds[0], "to_date": bounds[1]})
    assert f"dates {days[0]} to {days[1]}" in text.splitlines()[0]
    dates = [ln.split()[1] for ln in text.splitlines() if ln.startswith("[")]
    assert all(days[0] <= d <= days[1] for d in dates)


def test_a_month_window_holds_every_fact_of_the_month(rt):
    out = typed(rt, "search", {"topic": ["Inflation"], "from": "2024-10", "to_date": "2024-10"})
    every = typed(rt, "search", {"topic": ["Inflation"], "limit": 200})
    assert out.total == sum(1 for f in every.results if f.date.startswith("2024-10")) == 2


@VIA
@pytest.mark.parametrize("bounds,message", [
    (("2024-13", None), "'2024-13' is not a date"),
    (("2024-1", None), "is not a date: use YYYY-MM-DD (a day), YYYY-MM (a month) or YYYY (a year)"),
    ((None, "24"), "'24' is not a date"),
    ((None, "2023-02-29"), "is not a date"),
    (("2025", "2024-12"), "from (2025 = 2025-01-01) is after to_date (2024-12 = 2024-12-31)"),
])
def test_invalid_dates_stay_refused(rt, via, bounds, message):
    args = {"topic": ["Inflation"]} | ({"from": bounds[0]} if bounds[0] else {}) | (
        {"to_date": bounds[1]} if bounds[1] else {})
    line = "search -topic Inflation" + (f" --from {bounds[0]}" if bounds[0] else "") + (
        f" --to-date {bounds[1]}" if bounds[1] else "")
    assert message in fails(rt, via, line, "search", args)


@VIA
@pytest.mark.parametrize("line,args,message", [
    ('search -entity "Inflation"', {"entity": ["Inflation"]},
     ("'Inflation' is a topic (T:inflation): use -topic, not -entity",
      "'Inflation' is a topic (T:inflation): use topic, not entity")),
    ('search -topic "Apple"', {"topic": ["Apple"]},
     ("'Apple' is an entity (E:apple-inc): use -entity", "'Apple' is an entity (E:apple-inc): use entity")),
    ("search -topic E:shazam", {"topic": ["E:shazam"]}, "'E:shazam' is an entity (E:shazam)"),
])
def test_a_name_of_the_other_kind_says_which_field(rt, via, line, args, message):
    """In the caller's words: the command line's flag (kg_execute), the field (a typed call)."""
    if isinstance(message, tuple):
        message = message[0] if via == "kg_execute" else message[1]
    assert message in fails(rt, via, line, "search", args)


@VIA
def test_result_lines_show_date_context_when_it_differs(rt, via):
    text = both(rt, via, "search -topic Inflation --from 2025-01 --to-date 2025-01", "search",
                {"topic": ["Inflation"], "from": "2025-01", "to_date": "2025-01"})
    assert "[2] 2025-01-15 (Q4 2024)  Federal Reserve System ──[reported modest]──▶ Inflation" in text
    text = both(rt, via, "search -entity Shazam", "search", {"entity": ["Shazam"]})
    assert "[1] 2018-09-24  Apple Inc ──[acquired]──▶ Shazam" in text  # no date_context given: the date alone


@VIA
def test_ls_type_filters_before_the_limit(rt, via):
    text = both(rt, via, "ls entities --type company --limit 2", "ls", {"what": "entities", "type": "company",
                                                                          "limit": 2})
    assert text.splitlines() == ["entities of type 'company': 2 of 7 (most facts first)",
                                 "  Apple Inc [Company]  (E:apple-inc; 6 facts)",
                                 "  Microsoft Corp [Company]  (E:microsoft-corp; 3 facts)",
                                 "more rows: ask again with offset 2 (--offset 2)"]
    unfiltered = typed(rt, "ls", {"what": "entities", "limit": 2})
    assert unfiltered.rows[0].type == "Organization"  # the Fed has the most facts: a cut before the filter loses it


@VIA
def test_ls_type_errors_name_the_valid_options(rt, via):
    message = fails(rt, via, "ls entities -type bank", "ls", {"what": "entities", "type": "bank"})
    assert "no entity of type 'bank'" in message and "Company (7), Organization (3)" in message
    message = fails(rt, via, "ls topics --type company", "ls", {"what": "topics", "type": "company"})
    assert "type filters entities only" in message


@pytest.mark.parametrize("tool,args,field", [
    ("info", {"name": " "}, "name"),
    ("search", {"entity": ["Apple Inc"], "query": ""}, "query"),
    ("cat", {"numbers": [1], "search_id": " "}, "search_id"),
    ("ls", {"what": "entities", "type": ""}, "type"),
    ("add_document", {"name": "d", "date": "2024-01-01", "chunks": ["x"],
                      "entities": [{"name": "A", "type": "Company", "definition": ""}]}, "entities.0.definition"),
    ("add_document", {"name": "d", "date": "2024-01-01", "chunks": ["  "]}, "chunks.0"),
])
def test_an_empty_text_says_must_not_be_empty(rt, tool, args, field):
    with pytest.raises(InvalidInput) as exc:
        typed(rt, tool, args)
    assert f"field '{field}' must not be empty" in exc.value.message and "pattern" not in exc.value.message


def test_find_marks_candidates_below_the_floor_as_weak(rt):
    out = typed(rt, "find", {"entity": [{"name": "Tesla", "definition": "electric car maker"},
                                        {"name": "Inflation", "definition": "general price increases"}],
                             "topic": [{"name": "Inflation", "definition": "general price increases"}]})
    for sel in out.entities:  # not in the graph / a topic asked for as an entity
        assert sel.candidates and all(c.weak and c.score < tools.FIND_WEAK_FLOOR for c in sel.candidates)
    [inflation] = out.topics
    assert inflation.candidates[0].id == "T:inflation" and not inflation.candidates[0].weak
    assert [c.weak for c in inflation.candidates] == [c.score < tools.FIND_WEAK_FLOOR for c in inflation.candidates]
    text = render.find(out)
    assert text.count("(no good match: every candidate scores below the floor") == 2
    assert "weak (below the floor; probably not what you mean):" in text.split("TOPICS:")[1]


def test_an_unsplittable_search_also_ends_the_latest_search(rt):
    ctx = fresh()
    kg(rt, 'search -entity "Apple Inc"', ctx)
    with pytest.raises(InvalidInput, match="close every quote"):
        kg(rt, 'search -entity "Apple Inc -q rates', ctx)
    with pytest.raises(InvalidInput, match="the latest search on this graph failed.*close every quote"):
        kg(rt, "cat 1", ctx)


def test_a_typed_cat_expands_a_kg_execute_search_and_the_reverse(rt):
    ctx = fresh()
    kg(rt, 'search -entity "Apple Inc" --limit 2', ctx)
    assert len(typed(rt, "cat", {"numbers": [1, 2]}, ctx).items) == 2
    typed(rt, "search", {"entity": ["Shazam"]}, ctx)
    assert "──▶ Shazam" in kg(rt, "cat 1", ctx).text


def test_the_server_instructions_name_both_ways_in():
    from graphlore.toolsets.facts import INSTRUCTIONS

    flat = " ".join(INSTRUCTIONS.split())
    assert "kg_execute(command=" in flat and 'kg_execute(command="help")' in flat
    for tool in ("find", "search", "cat", "info", "ls", "stats", "add_document", "extract_document"):
        assert tool in flat
    for line in LANGUAGE.help().splitlines():  # help names the typed tools too
        if line.startswith("The same tools"):
            assert all(t in line for t in ("find", "search", "cat", "info", "ls", "stats"))
            break
    else:
        raise AssertionError("help does not name the typed tools")


# -- through the MCP adapter (the SDK's in-memory client) ---------------------------------------------------


@contextmanager
def mcp_session(rt: Runtime):
    """One MCP connection (one session) to a facts server built on ``rt``; yields ``call(name, arguments)``."""
    with start_blocking_portal() as portal:
        client = Client(build_server(TOOLSET, rt))
        with portal.wrap_async_context_manager(client):
            yield lambda name, arguments: portal.call(lambda: client.call_tool(name, arguments))


def mcp_text(result) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.parametrize("bad", [
    {"entity": ["Apple Inc"], "from": "2024-13"},  # a value the model refuses
    {"entity": ["Apple Inc"], "to": "2024-01-01"},  # an old field
    {"entity": "Apple Inc"},  # a string where a list belongs
    {"entity": ["Apple Computers"]},  # valid, but the tool fails
])
def test_over_mcp_a_typed_search_that_fails_validation_ends_the_latest_search(rt, bad):
    with mcp_session(rt) as call:
        first = call("search", {"entity": ["Apple Inc"]})
        failed = call("search", bad)
        refused = [call("cat", {"numbers": [1]}), call("kg_execute", {"command": "cat 1"})]
        again = call("cat", {"numbers": [1], "search_id": first.structured_content["search_id"]})
    assert not first.is_error and failed.is_error
    reason = mcp_text(failed).split("[", 1)[1]  # "[code] message", without the SDK's "Error executing tool" prefix
    for result in refused:
        assert result.is_error and "the latest search on this graph failed" in mcp_text(result)
        assert reason in mcp_text(result)  # the failure's own message, repeated
    assert not again.is_error  # the earlier search is still there by its id


def test_over_mcp_a_kg_execute_search_that_fails_ends_the_latest_search_of_typed_cat(rt):
    with mcp_session(rt) as call:
        call("kg_execute", {"command": 'search -entity "Apple Inc"'})
        failed = call("kg_execute", {"command": 'search -entity "Apple Inc" -to 2024'})
        cat = call("cat", {"numbers": [1]})
    assert "'-to' is an old form" in mcp_text(failed) and "'-to' is an old form" in mcp_text(cat)
