"""`graphlore facts ...`: flags map onto the tools, old forms are refused with the right form, cat survives the process.

Commands run in process through click's CliRunner (each builds its own runtime, as separate processes
would, sharing only the session's embedder); one test runs the real entry point in subprocesses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers.backend import BACKEND, env_for
from helpers.paths import FACTS_EXAMPLE

from graphlore.adapters.cli import build_cli
from graphlore.config import Settings
from graphlore.runtime import Runtime

EXAMPLE = FACTS_EXAMPLE
CORRECT_FIND = '--entity \'{"name": "Apple Inc", "definition": "American technology company"}\''


@pytest.fixture(scope="module")
def env(tmp_path_factory, embedder):
    home = tmp_path_factory.mktemp("facts-cli") / "home"
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    runner = CliRunner(env=env_for(home))
    result = runner.invoke(app, ["facts", "ingest", str(EXAMPLE)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    yield runner, home, app


def run(env, *args: str, code: int = 0):
    result = env[0].invoke(env[2], ["facts", *args], catch_exceptions=False)
    assert result.exit_code == code, (result.output, result.stderr if hasattr(result, "stderr") else "")
    return result


def records() -> list[dict]:
    return [json.loads(line) for line in EXAMPLE.read_text().splitlines() if line.strip()]


# -- ingest ---------------------------------------------------------------------------------------------


def test_ingest_reports_and_is_idempotent(env):
    again = run(env, "ingest", str(EXAMPLE))
    assert f"{len(records())} documents (0 created, 0 updated, {len(records())} unchanged)" in again.output
    assert "texts embedded 0" in again.output
    stats = json.loads(run(env, "stats", "--json").output)
    assert stats["documents"] == len(records()) and stats["facts"] == sum(len(r["facts"]) for r in records())
    assert stats["chunks"] == sum(len(r["chunks"]) for r in records())


def test_ingest_errors_name_the_line(env, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(EXAMPLE.read_text().splitlines()[0] + "\nnot json\n")
    result = run(env, "ingest", str(bad), code=2)
    assert "error: [invalid_input]" in result.stderr and "bad.jsonl:2 is not JSON" in result.stderr
    assert "nothing was written" in result.stderr
    result = run(env, "ingest", str(tmp_path / "missing.jsonl"), code=2)
    assert "is not a file" in result.stderr


def test_ingest_reports_every_bad_line_up_to_twenty_then_a_count(env, tmp_path):
    good = EXAMPLE.read_text().splitlines()[0]
    bad = tmp_path / "bad.jsonl"
    chunk = good.replace('"chunk": 0', '"chunk": "0"')
    bad.write_text("\n".join([good, "not json", "[1]", chunk, *["{oops"] * 30, good]) + "\n")
    err = run(env, "ingest", str(bad), "--graph", "bad-file", code=2).stderr
    assert "33 of its 35 lines are bad, so nothing was written" in err
    assert "bad.jsonl:2 is not JSON" in err and "bad.jsonl:3 is not a JSON object" in err
    assert "bad.jsonl:4: field 'facts.0.chunk' must be a whole number" in err
    assert "bad.jsonl:21 is not JSON" in err and "bad.jsonl:22" not in err and "and 13 more bad lines" in err
    assert "Valid fields" not in err
    assert not (Path(env[1]) / "facts" / "bad-file").exists()


# -- find -------------------------------------------------------------------------------------------------


def test_find_takes_repeated_json_selectors(env):
    out = run(env, "find", "--entity", '{"name": "Apple", "definition": "maker of the iPhone", "id": "a"}',
              "--entity", '{"name": "NYC", "definition": "big city in the US"}',
              "--topic", '{"name": "Prices", "definition": "rising consumer prices"}').output
    lines = out.splitlines()
    assert lines[0] == "ENTITIES:" and lines[1] == "  Apple  (id=a)" and "E:apple-inc" in lines[2]
    assert "  NYC" in lines and "TOPICS:" in lines and "T:inflation" in out
    data = json.loads(run(env, "find", "--topic", '{"name": "Prices", "definition": "rising prices"}', "--json").output)
    assert data["entities"] == [] and data["topics"][0]["candidates"][0]["id"] == "T:inflation"


@pytest.mark.parametrize("args,shown", [
    (["-entity", "Apple Inc, Microsoft"], "'-entity' is not an option of graphlore facts find (long options take two dashes)"),
    (["-topic", "Inflation"], "'-topic' is not an option"),
    (["--to", "2020-01-01"], "find has no date filter (dates belong to search: --from DATE --to DATE)"),
    (["--entity-name", "Apple", "--entity-def", "company"], "a selector is one value: --entity 'NAME: DEFINITION'"),
    (["--entity-def=company"], "'--entity-def' is an old form"),
    (["--topic-name", "Inflation"], "a selector is one value: --topic 'NAME: DEFINITION'"),
    (["--entity", "Apple"], "--entity takes a name and what it is, NAME: DEFINITION (got 'Apple')"),
    (["--entity", "Apple:  "], "--entity takes a name and what it is"),
    (["--entity", '{"name": "Apple"'], "--entity is not a JSON selector"),
    (["--entity", '["Apple"]'], "--entity takes a name and what it is"),
])
def test_find_refuses_other_forms_and_shows_the_right_one(env, args, shown):
    result = run(env, "find", *args, code=2)
    assert result.stderr.startswith("error: [invalid_input]") and shown in result.stderr


def test_find_takes_name_colon_definition_json_or_a_file(env, tmp_path):
    """--entity NAME: DEFINITION on the typed CLI; a JSON selector and @FILE are taken too, with the same answer."""
    said = json.loads(run(env, "find", "--entity", "Apple: company that makes the iPhone", "--json").output)
    selector = '{"name": "Apple", "definition": "company that makes the iPhone"}'
    (tmp_path / "apple.json").write_text(selector, encoding="utf-8")
    assert json.loads(run(env, "find", "--entity", selector, "--json").output) == said
    assert json.loads(run(env, "find", "--entity", f"@{tmp_path / 'apple.json'}", "--json").output) == said
    assert said["entities"][0]["candidates"][0]["id"] == "E:apple-inc"


@pytest.mark.parametrize("selector,problem", [
    ('{"name": "Apple"}', "missing required field 'definition' in --entity value 1"),
    ('{"definition": "x"}', "missing required field 'name' in --entity value 1"),
    ('{"name": " ", "definition": "x"}', "field 'name' in --entity value 1 must not be empty"),
    ('{"name": "A", "definition": "x", "id": ""}', "field 'id' in --entity value 1 must not be empty"),
    ('{"name": "A", "definition": "x", "type": "Company"}', "unknown field 'type' in --entity value 1 (valid: name, definition, id?)"),
])
def test_find_selector_fields_are_checked(env, selector, problem):
    assert problem in run(env, "find", "--entity", selector, code=2).stderr


def test_find_needs_a_selector(env):
    assert "give at least one selector" in run(env, "find", code=2).stderr


# -- search and cat ----------------------------------------------------------------------------------


def test_search_flags_and_output(env):
    out = run(env, "search", "--entity", "Apple", "--entity", "Microsoft", "--mode", "between").output
    assert out.splitlines()[0] == ("SEARCH mode=between  entity: Apple Inc. [E:apple-inc], "
                                   "Microsoft Corp [E:microsoft-corp]")
    assert ("[1] 2024-09-10 (September 2024)  Microsoft Corp ──[settled a patent dispute with]──▶ Apple Inc.  "
            "(Microsoft and Apple settle)") in out
    assert "    Microsoft and Apple settled a long-running patent dispute over touchscreens." in out
    data = json.loads(run(env, "search", "--entity", "NYC", "--topic", "Inflation", "--from", "2022-06-15",
                          "--to", "2022-06-15", "-n", "5", "--json").output)
    assert data["mode"] == "around" and data["from"] == "2022-06-15" and data["to_date"] == "2022-06-15"
    assert [r["date"] for r in data["results"]] == ["2022-06-15"] * len(data["results"]) and data["results"]
    repeated = json.loads(run(env, "search", "--entity", "Apple", "--entity", "Microsoft", "--json").output)
    assert [s["id"] for s in repeated["selected"]] == ["E:apple-inc", "E:microsoft-corp"]
    spelled = json.loads(run(env, "search", "--entity", "NYC", "--topic", "Inflation", "--from", "2022-06-15",
                             "--to-date", "2022-06-15", "--json").output)  # the other usual spelling
    assert spelled["to_date"] == "2022-06-15"


def test_search_with_query(env):
    data = json.loads(run(env, "search", "--entity", "Apple", "--query", "headphones", "--limit", "1", "--json").output)
    assert data["results"][0]["object"]["name"] == "Beats Electronics" and data["results"][0]["score"] > 0


@pytest.mark.parametrize("args,shown", [
    (["--entity", "Apple", "-to", "2020-01-01"], "'-to' is not an option of graphlore facts search (long options "
                                                 "take two dashes)"),
    (["-entity", "Apple"], "'-entity' is not an option"),
    (["--entity", "Apple", "--from", "01/02/2020"], "is not a date: use YYYY-MM-DD"),
    (["--entity", ""], "--entity value 1 must not be empty"),
    (["--entity", "Apple Computers"], "no entity named 'Apple Computers'"),
    ([], "give at least one entity or topic"),
])
def test_search_errors(env, args, shown):
    assert shown in run(env, "search", *args, code=2).stderr


def test_an_unknown_name_lists_candidates_and_says_use_find(env):
    err = run(env, "search", "--entity", "Apple Computers", code=2).stderr
    assert "Nearest: E:apple-inc (Apple Inc.)" in err and "Use find" in err


def test_cat_expands_the_latest_cli_search_across_invocations(env):
    out = json.loads(run(env, "search", "--entity", "Federal Reserve", "--json").output)
    assert len(out["results"]) == 2
    text = run(env, "cat", "2").output
    assert text.startswith(f"search {out['search_id']}")
    assert out["results"][1]["sentence"] in text and "chunk:" in text
    assert "subject: Federal Reserve (Organization, entity E:federal-reserve, 2 facts)" in text
    data = json.loads(run(env, "cat", "1", "2", "--json").output)
    assert [i["fact"]["id"] for i in data["items"]] == [r["id"] for r in out["results"]]
    assert "no result 3 in search" in run(env, "cat", "3", code=2).stderr
    assert "no search 'sdeadbeef'" in run(env, "cat", "1", "--search-id", "sdeadbeef", code=2).stderr


def test_q_is_the_short_form_of_query(env):
    short = json.loads(run(env, "search", "--entity", "Apple", "-q", "headphones", "--limit", "1", "--json").output)
    long = json.loads(run(env, "search", "--entity", "Apple", "--query", "headphones", "--limit", "1", "--json").output)
    assert short["query"] == "headphones" and short["results"] == long["results"]


@pytest.mark.parametrize("args, shown", [
    (["--entity", "Apple", "--from", "2024-13"], "'2024-13' is not a date"),  # the request model refuses it
    (["--entity", "Apple", "-to", "2024"], "'-to' is not an option"),  # the adapter refuses it before click
    (["--entity", "Apple", "--mode", "beside"], "'beside' is not one of 'around', 'between'"),  # click refuses it
    (["--entity", ""], "--entity value 1 must not be empty"),  # a value the request model refuses
    (["--entity", "Apple Computers"], "no entity named 'Apple Computers'"),  # the tool itself
])
def test_a_failed_search_ends_the_latest_cli_search(env, args, shown):
    """However a typed search fails on the CLI, ``cat`` then refuses with the reason instead of expanding the
    search before it; that search stays reachable by its id."""
    first = json.loads(run(env, "search", "--entity", "Federal Reserve", "--json").output)
    assert "Federal Reserve" in run(env, "cat", "1").output
    assert shown in run(env, "search", *args, code=2).stderr
    err = run(env, "cat", "1", code=2).stderr
    assert "the latest search on this graph failed" in err and shown in err
    assert "Federal Reserve" in run(env, "cat", "1", "--search-id", first["search_id"]).output


def test_a_failed_search_on_another_graph_leaves_this_graphs_latest_search(env):
    run(env, "search", "--entity", "Federal Reserve")
    run(env, "search", "--entity", "Apple", "--from", "2024-13", "--graph", "elsewhere", code=2)
    run(env, "search", "--entity", "Apple", "--mode", "beside", "--graph=elsewhere", code=2)
    assert "Federal Reserve" in run(env, "cat", "1").output
    assert not (Path(env[1]) / "facts" / "elsewhere").exists()  # a graph without data gets no searches' store


def test_ls_filters_entities_by_type(env):
    every = json.loads(run(env, "ls", "entities", "--limit", "1000", "--json").output)["rows"]
    companies = [r["id"] for r in every if r["type"].lower() == "company"]
    out = run(env, "ls", "entities", "--type", "company", "--limit", "2").output.splitlines()
    assert out[0] == f"entities of type 'company': 2 of {len(companies)} (most facts first)" and len(companies) > 2
    assert [line.split("(")[1].split(";")[0] for line in out[1:3]] == companies[:2]  # filtered, then cut
    assert out[3:] == ["more rows: ask again with offset 2 (--offset 2)"]
    page = run(env, "ls", "entities", "--type", "company", "--limit", "2", "--offset", "2").output.splitlines()
    assert page[0] == f"entities of type 'company': 3-4 of {len(companies)} (most facts first)"
    assert [line.split("(")[1].split(";")[0] for line in page[1:3]] == companies[2:4]
    err = run(env, "ls", "entities", "-type", "company", code=2).stderr
    assert "'-type' is not an option of graphlore facts ls (long options take two dashes); did you mean " \
           "'--type'?" in err
    assert "type filters entities only" in run(env, "ls", "topics", "--type", "company", code=2).stderr


def test_exec_runs_a_command_string_in_the_cli_session(env):
    """``exec`` is kg_execute: the original's strings, answered with the typed text, sharing the CLI's latest
    search with ``search`` / ``cat`` (across invocations: the CLI is one session, kept in the store)."""
    out = run(env, "exec", 'search -entity "Apple, Microsoft" --mode between -q settled --from 2024').output
    assert out.startswith("SEARCH mode=between") and "dates 2024-01-01 to …" in out and "query='settled'" in out
    assert "settled a patent dispute" in run(env, "cat", "1").output
    run(env, "search", "--entity", "Federal Reserve")
    assert "Federal Reserve" in run(env, "exec", "cat 1").output.split("\n\n")[1]
    data = json.loads(run(env, "exec", "ls entities -type company", "--json").output)
    assert data["command"] == "ls" and data["result"]["type"] == "company"
    assert "Workflow: find → search → cat → info" in run(env, "exec", "help").output
    assert "'Inflation' is a topic (T:inflation): use -topic, not -entity" in run(env, "exec", "search -entity Inflation",
                                                                      code=2).stderr
    assert "the latest search on this graph failed" in run(env, "exec", "cat 1", code=2).stderr
    err = run(env, "exec", "search", "-entity", "Apple", code=2).stderr
    assert "if '-entity' is part of COMMAND, quote COMMAND as one argument" in err


def test_cat_before_any_search_says_to_search(env):
    run(env, "ingest", str(EXAMPLE), "--graph", "fresh")
    err = run(env, "cat", "1", "--graph", "fresh", code=2).stderr
    assert "no search yet in this session on graph 'fresh': search first (CLI: graphlore facts search)" in err


# -- info, ls, stats ---------------------------------------------------------------------------------


def test_info_ls_stats(env):
    info = run(env, "info", "NYC").output
    assert info.startswith("New York City  (Location entity E:new-york-city)") and "aliases: NYC" in info
    ls = run(env, "ls", "documents", "--limit", "2").output.splitlines()
    assert ls[0] == f"documents: 2 of {len(records())} (newest first)" and "2025-11-02" in ls[1]
    assert "Mercury [Planet]" in run(env, "ls", "entities").output
    assert "facts" in run(env, "stats").output
    assert "--limit must be at least 1 (got 0)" in run(env, "ls", "topics", "--limit", "0", code=2).stderr
    assert "--graph must be 1 to 64 lower-case letters" in run(env, "stats", "--graph", "Bad Name", code=2).stderr


def test_split_from_the_command_line(env):
    """On a graph of its own (the module's graph stays as ingested): info lists the mentions, split takes one."""
    run(env, "ingest", str(EXAMPLE), "--graph", "splitting")
    info = json.loads(run(env, "info", "NYC", "--graph", "splitting", "--json").output)
    [nyc] = [m for m in info["mentions"] if m["name"] == "NYC"]
    assert nyc["action"] == "merged" and nyc["document"]["name"] == "Apple opens NYC office"
    out = run(env, "split", "New York City", "--mentions", nyc["id"], "--graph", "splitting").output
    assert out.splitlines()[0] == "split New York City (E:new-york-city): 1 mention left for a new node; 2 facts moved"
    assert "new: NYC [Location] (E:nyc; 2 facts" in out
    err = run(env, "split", "New York City", "--mentions", "Gotham", "--graph", "splitting", code=2).stderr
    assert "no mention of New York City (E:new-york-city) has that id or name" in err


def test_extract_without_an_llm_fails_with_the_alternatives(env, tmp_path):
    doc = tmp_path / "note.txt"
    doc.write_text("Apple bought Beats in 2014.")
    err = run(env, "extract", str(doc), code=2).stderr
    assert "error: [config_error] no LLM" in err and "graphlore facts ingest FILE.jsonl" in err


def test_the_real_entry_point_keeps_cat_numbers_between_processes(env):
    home = env[1]
    base = [sys.executable, "-m", "graphlore", "facts"]
    environ = {**os.environ, **env_for(home)}
    first = subprocess.run([*base, "search", "--entity", "Mercury", "--graph", "default"], env=environ,
                           capture_output=True, text=True, timeout=120)
    assert first.returncode == 2 and "names 2 entities" in first.stderr and "E:mercury-2" in first.stderr
    searched = subprocess.run([*base, "search", "--entity", "E:mercury-2"], env=environ, capture_output=True,
                              text=True, timeout=120)
    assert searched.returncode == 0 and "[1] 2025-11-02  Mercury ──[was used in]──▶ Thermometer" in searched.stdout
    expanded = subprocess.run([*base, "cat", "1"], env=environ, capture_output=True, text=True, timeout=120)
    assert expanded.returncode == 0, expanded.stderr
    assert "only metal that is liquid at room temperature" in expanded.stdout


@pytest.mark.slow  # a whole ingest, then a command on the upgraded graph
@pytest.mark.skipif(BACKEND != "sqlite", reason="the SQLite schema's own migration (PostgreSQL migrates its namespaces)")
def test_a_graph_of_an_older_schema_says_on_stderr_how_far_its_upgrade_is(tmp_path, embedder, monkeypatch):
    """The first command on a graph written before schema 5 upgrades it (an index build over every fact: minutes
    on a large graph); it says so on stderr with the facts indexed so far, and the answer on stdout is unchanged."""
    import sqlite3

    from graphlore.store import migrate
    from graphlore.store.factory import sqlite_path

    home = tmp_path / "home"
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    runner = CliRunner(env=env_for(home))
    assert runner.invoke(app, ["facts", "ingest", str(EXAMPLE)], catch_exceptions=False).exit_code == 0
    before = runner.invoke(app, ["facts", "stats"], catch_exceptions=False).stdout
    path = sqlite_path(Settings(home=home), "facts/default")
    conn = sqlite3.connect(path)  # back to schema 4: the edge indexes without validity, no validity columns
    conn.executescript("""DROP INDEX edges_src_type_date; DROP INDEX edges_dst_type_date;
        ALTER TABLE edges DROP COLUMN valid_from; ALTER TABLE edges DROP COLUMN valid_to;
        CREATE INDEX edges_src_type_date ON edges(src, type, date, dst);
        CREATE INDEX edges_dst_type_date ON edges(dst, type, date, src); PRAGMA user_version = 4;""")
    edges = conn.execute("SELECT count(*) FROM edges").fetchone()[0]
    conn.close()
    monkeypatch.setattr(migrate.UpgradeNotes, "every_s", 0.0)
    result = runner.invoke(app, ["facts", "stats"], catch_exceptions=False)
    assert result.exit_code == 0 and result.stdout == before
    assert f"upgrading the schema of {path} from version 4 to 5: {edges}/{edges} edges indexed" in result.stderr
    assert "done in" in result.stderr
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 5
