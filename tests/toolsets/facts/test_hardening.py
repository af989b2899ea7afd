"""Facts under abuse: limits, damaged stores reported (never recreated), hints that run, readable ids,
reads that never write, and a second ingest of one file that waits and finds nothing to do."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import threading

import pytest
from click.testing import CliRunner
from helpers.backend import env_for, sqlite_only
from helpers.stores import home_state

from graphlore.adapters.cli import build_cli
from graphlore.adapters.command import attach
from graphlore.config import Settings
from graphlore.contract import parse_request
from graphlore.errors import EmbedderMismatch, IndexCorrupted, InvalidInput, NotFound
from graphlore.runtime import Runtime
from graphlore.store.factory import EMBEDDER_META, sqlite_path
from graphlore.tools import CallContext
from graphlore.toolsets.facts import TOOLSET as DECLARED
from graphlore.toolsets.facts import examples

TOOLSET = attach(DECLARED)  # with kg_execute, as the adapters serve it
SPECS = {spec.name: spec for spec in TOOLSET.tools}
CONTEXT = CallContext(session="test")


@pytest.fixture
def graph(runtime, tmp_path):
    """Graph ``default`` with the example records, and a valid call per tool."""
    folder = tmp_path / "examples"
    folder.mkdir()
    return examples.examples(runtime, folder)


def call(runtime, tool: str, arguments: dict):
    spec = SPECS[tool]
    extra = {"context": CONTEXT} if spec.context else {}
    return spec.run(runtime, parse_request(spec.request, arguments), **extra)


def commands_in(message: str) -> list[str]:
    """The commands a hint gives, in backticks."""
    return re.findall(r"`([^`]+)`", message)


def run_hint(command: str, home, replacements: dict[str, str]) -> None:
    """Run a printed hint: shell parts as they are, ``graphlore`` parts through the CLI (this checkout)."""
    for part in command.split(" && "):
        for placeholder, value in replacements.items():
            part = part.replace(placeholder, value)
        argv = shlex.split(part)
        if argv[0] == "graphlore":
            result = CliRunner(env=env_for(home)).invoke(build_cli(), argv[1:])
            assert result.exit_code == 0, (part, result.output)
        else:
            subprocess.run(argv, check=True)


# -- limits -------------------------------------------------------------------------------------------


def test_a_record_with_ten_thousand_entities_is_refused_with_the_limit_and_the_size(runtime):
    record = {"name": "Huge", "date": "2024-01-01", "chunks": ["x"],
              "entities": [{"name": f"E{i}", "type": "T", "definition": "d"} for i in range(10_000)]}
    with pytest.raises(InvalidInput, match=r"field 'entities' must hold at most 500 values \(got 10,000\)"):
        call(runtime, "add_document", record)
    assert not runtime.store_exists("facts/default")


def test_a_huge_graph_name_comes_back_as_a_short_prefix(runtime):
    with pytest.raises(InvalidInput) as caught:
        call(runtime, "stats", {"graph": "X" * 1_000_000})
    assert len(str(caught.value)) < 500 and "(1,000,000 characters)" in str(caught.value)


# -- readable ids -------------------------------------------------------------------------------------


def test_names_in_other_scripts_get_readable_ids(runtime):
    record = {"name": "Доклад о Москве", "date": "2024-01-01", "chunks": ["Москва и Αθήνα."],
              "entities": [{"name": "Москва", "type": "City", "definition": "the capital of Russia"},
                           {"name": "Αθήνα", "type": "City", "definition": "the capital of Greece"},
                           {"name": "दिल्ली", "type": "City", "definition": "the capital of India"}],
              "facts": [{"subject": "Москва", "relationship": "is twinned with", "object": "Αθήνα",
                         "sentence": "Москва и Αθήνα.", "chunk": 0}]}
    out = call(runtime, "add_document", record)
    assert out.document.id == "D:доклад-о-москве"
    assert {r.id for r in out.resolutions} == {"E:москва", "E:αθήνα", "E:दिल्ली"}
    assert call(runtime, "info", {"name": "E:москва"}).name == "Москва"


# -- damaged stores -----------------------------------------------------------------------------------


READS = ["find", "search", "cat", "info", "ls", "stats", "kg_execute"]


@pytest.mark.parametrize("damage", ["empty", "header"])
def test_a_damaged_graph_is_reported_by_every_tool_and_left_as_it_is(runtime, graph, damage, short_empty_grace):
    sqlite_only(runtime.settings, "damage to a store file")
    path = sqlite_path(runtime.settings, "facts/default")
    runtime.close()
    if damage == "empty":
        path.write_bytes(b"")
    else:
        with path.open("r+b") as fh:
            fh.write(b"\0" * 100)
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    before = path.read_bytes()
    for tool in [*READS, "add_document"]:
        with pytest.raises(IndexCorrupted, match=r"cannot be repaired in place.*`mv "):
            call(runtime, tool, graph[tool][0])
    assert path.read_bytes() == before


def test_the_repair_hint_of_a_damaged_graph_runs(runtime, graph, tmp_path, short_empty_grace):
    sqlite_only(runtime.settings, "damage to a store file")
    path = sqlite_path(runtime.settings, "facts/default")
    runtime.close()
    path.write_bytes(b"")
    with pytest.raises(IndexCorrupted) as caught:
        call(runtime, "stats", {})
    [command] = commands_in(caught.value.message)
    run_hint(command, runtime.settings.home, {"FILE.jsonl": str(tmp_path / "examples" / "records.jsonl")})
    runtime.close()
    assert call(runtime, "stats", {}).documents == len(examples.RECORDS)
    assert (runtime.settings.home / "facts" / "default.damaged" / path.name).read_bytes() == b""


def test_the_hint_for_a_missing_graph_runs(runtime, graph, tmp_path):
    with pytest.raises(NotFound) as caught:
        call(runtime, "stats", {"graph": "fresh"})
    [command] = commands_in(caught.value.message)
    run_hint(command, runtime.settings.home, {"FILE.jsonl": str(tmp_path / "examples" / "records.jsonl")})
    assert call(runtime, "stats", {"graph": "fresh"}).documents == len(examples.RECORDS)


def test_the_hint_for_another_embedder_runs(runtime, graph, tmp_path):
    store = runtime.open_store("facts/default")
    store.set_meta(EMBEDDER_META, {"name": "another-model", "dim": 384})
    with pytest.raises(EmbedderMismatch) as caught:
        call(runtime, "stats", {})
    [command] = commands_in(caught.value.message)
    run_hint(command, runtime.settings.home, {"FILE.jsonl": str(tmp_path / "examples" / "records.jsonl"),
                                              "NEW": "renewed"})
    assert call(runtime, "stats", {"graph": "renewed"}).documents == len(examples.RECORDS)


# -- reads never write --------------------------------------------------------------------------------


def test_read_only_tools_change_nothing(runtime, graph):
    home = runtime.settings.home
    read_only = [spec.name for spec in TOOLSET.tools if spec.read_only]
    assert set(read_only) == set(READS)
    call(runtime, "search", graph["search"][0])  # cat needs a search of this session
    before = home_state(home)
    for tool in read_only:
        for arguments in graph[tool]:
            call(runtime, tool, arguments)
    assert home_state(home) == before


def test_the_split_example_undoes_the_merge_the_examples_make(runtime, graph):
    """The fuzzer starts ``split`` from this call: it must answer, and then only once (the mention has left)."""
    [arguments] = graph["split"]
    merged = call(runtime, "info", {"name": "NYC", "graph": "merged"})
    assert merged.name == "New York City" and "NYC" in merged.aliases
    result = call(runtime, "split", arguments)
    assert (result.kept.name, result.split_off.name, result.facts_moved) == ("New York City", "NYC", 1)
    assert call(runtime, "info", {"name": "NYC", "graph": "merged"}).id == result.split_off.id
    with pytest.raises(InvalidInput, match="no mention of New York City"):
        call(runtime, "split", arguments)


# -- one file ingested twice at once ------------------------------------------------------------------


def test_a_second_ingest_of_one_file_waits_and_finds_nothing_to_do(tmp_path, embedder):
    home = tmp_path / "home"
    folder = tmp_path / "examples"
    folder.mkdir()
    lines = [json.dumps({**r, "name": f"{r['name']} {i}"}) for i in range(15) for r in examples.RECORDS]
    file = folder / "many.jsonl"
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    results: list = []
    start = threading.Barrier(2)

    def ingest() -> None:
        runtime = Runtime(Settings(home=home), embedder=embedder)
        start.wait()
        results.append(call(runtime, "ingest", {"file": str(file)}))
        runtime.close()

    threads = [threading.Thread(target=ingest) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    first, second = sorted(results, key=lambda r: -r.created)
    assert first.created == len(lines) and first.embedded_texts > 0
    assert second.unchanged == len(lines) and second.embedded_texts == 0


def test_a_jsonl_line_is_held_to_the_same_contract(runtime, tmp_path):
    file = tmp_path / "bad.jsonl"
    good = json.dumps(examples.RECORDS[0])
    file.write_bytes(good.encode() + b"\n" + good.replace("Apple buys", "Apple \\ud800 buys").encode() + b"\n")
    with pytest.raises(InvalidInput, match=r"nothing was written: .*:2: field .name. is not valid Unicode text"):
        call(runtime, "ingest", {"file": str(file)})
    file.write_bytes(good.encode() + b"\n" + good.replace('"chunk": 0', '"chunk": "0"').encode() + b"\n")
    with pytest.raises(InvalidInput, match=r":2: field 'facts.0.chunk' must be a whole number"):
        call(runtime, "ingest", {"file": str(file)})
    file.write_bytes(good.encode() + b"\n" + b"\xff\xfe not utf-8\n")
    with pytest.raises(InvalidInput, match=r":2 is not JSON"):
        call(runtime, "ingest", {"file": str(file)})
    assert not runtime.store_exists("facts/default")
