"""resolve_links: an LLM judge (a fake hosted model on 127.0.0.1) decides possible-duplicate links; every decision
is recorded on the link and undoable; without an LLM the links stay and info shows them."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from anyio.from_thread import start_blocking_portal
from click.testing import CliRunner
from helpers.backend import env_for, settings_for
from helpers.facts_data import sampling_callback
from helpers.fake_endpoint import chat_endpoint
from helpers.mcp import connect, stdio_params

from graphlore.adapters.cli import build_cli
from graphlore.config import Settings
from graphlore.contract import parse_request
from graphlore.errors import ConfigError
from graphlore.runtime import Runtime
from graphlore.tools import CallContext
from graphlore.toolsets.facts import TOOLSET
from graphlore.toolsets.facts.graph import DUPLICATE, FactsGraph
from graphlore.toolsets.facts.models import DocumentRecord
from graphlore.toolsets.facts.write import Writer

SPECS = {s.name: s for s in TOOLSET.tools}
CONTEXT = CallContext(session="t")
HEADSET = "cordless phone headset by Panasonic with a comfort-fit ear hook, for Panasonic KX-TG phones"
#: (first document's entity, second's): "Stars Cafe" adds a word "Stars" does not explain (an open link); the
#: headsets' model codes differ (a settled link, never asked)
PAIRS = [
    ({"name": "Stars", "type": "Restaurant", "definition": "American restaurant in San Francisco"},
     {"name": "Stars Cafe", "type": "Restaurant", "definition": "American restaurant in San Francisco"}),
    ({"name": "Panasonic KX-TCA86 Headset", "type": "Product", "definition": HEADSET},
     {"name": "Panasonic KX-TCA92 Headset", "type": "Product", "definition": HEADSET}),
]


def linked_graph(runtime: Runtime) -> FactsGraph:
    graph = FactsGraph(runtime, "default")
    for n, side in enumerate(zip(*PAIRS, strict=True)):
        Writer(graph).write([DocumentRecord.model_validate({
            "name": f"doc {n}", "date": f"2024-01-0{n + 1}", "chunks": ["text"], "entities": list(side)})])
    return graph


def judge_with(settings, embedder, url):
    return Runtime(replace(settings, llm_url=url, llm_model="fake"), embedder=embedder)


def resolve_links(runtime, **fields):
    spec = SPECS["resolve_links"]
    return spec.run(runtime, parse_request(spec.request, fields), context=CONTEXT)


def info(runtime, name):
    spec = SPECS["info"]
    return spec.run(runtime, parse_request(spec.request, {"name": name}))


def reply(same):
    """The fake model picks the one candidate (the link's other end) or none, with a reason."""
    def answer(prompt):
        picked = prompt.split("Candidates:\n[", 1)[1].split("]", 1)[0] if same else None
        return json.dumps({"id": picked, "reason": "one is a cafe, the other a restaurant"})
    return answer


def test_a_link_judged_different_is_recorded_kept_and_not_asked_again(settings, embedder):
    with chat_endpoint(reply(False)) as (url, seen):
        runtime = judge_with(settings, embedder, url)
        graph = linked_graph(runtime)
        assert graph.store().count_edges(DUPLICATE) == 2
        out = resolve_links(runtime)
        assert len(seen) == 1  # the settled link (codes differ) is never asked
        assert "Stars Cafe" in seen[0]["body"]["messages"][-1]["content"]
        [d] = out.decisions
        assert (d.decision, d.merged_into, out.open_links) == ("different", None, 0)
        assert d.evidence == "one is a cafe, the other a restaurant" and d.undo.startswith("merge ")
        [link] = [e for e in graph.store().iter_edges(DUPLICATE) if e.id == d.link]
        assert link.props["decision"] == "different" and link.props["judge"] == "openai:fake"
        again = resolve_links(runtime)
        assert again.decisions == [] and len(seen) == 1
        shown = {p.name: p for p in info(runtime, "Stars").possible_duplicates}
        assert shown["Stars Cafe"].decision == "different" and "openai:fake" in shown["Stars Cafe"].evidence
        assert {p.decision for p in info(runtime, "Panasonic KX-TCA86 Headset").possible_duplicates} == {"settled"}


def test_an_unusable_answer_leaves_the_link_open(settings, embedder):
    with chat_endpoint(lambda prompt: "I think so") as (url, seen):
        runtime = judge_with(settings, embedder, url)
        graph = linked_graph(runtime)
        [d] = resolve_links(runtime).decisions
        assert d.decision == "undecided" and "unusable twice" in d.evidence and len(seen) == 2
        assert not any(e.props.get("decision") for e in graph.store().iter_edges(DUPLICATE))
        assert {p.decision for p in info(runtime, "Stars").possible_duplicates} == {"open"}


def test_without_an_llm_the_links_stay_and_info_shows_them(settings, embedder, tmp_path):
    runtime = Runtime(settings, embedder=embedder)
    linked_graph(runtime)
    with pytest.raises(ConfigError, match="links stay as they are"):
        resolve_links(runtime)
    assert {p.decision for p in info(runtime, "Stars").possible_duplicates} == {"open"}
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    result = CliRunner(env=env_for(settings.home)).invoke(app, ["facts", "resolve-links"])
    assert result.exit_code == 2 and result.output.startswith("error: [config_error] no LLM to judge")


def test_a_link_judged_the_same_merges_and_split_undoes_it(settings, embedder):
    with chat_endpoint(reply(True)) as (url, seen):
        runtime = judge_with(settings, embedder, url)
        graph = linked_graph(runtime)
        store = graph.store()
        before = {n.id: (n.name, n.props.get("aliases")) for n in store.iter_nodes("entity")}
        [d] = resolve_links(runtime).decisions
        assert d.decision == "same" and d.merged_into is not None and len(seen) == 1
        assert store.count_nodes("entity") == 3
        merged = info(runtime, d.merged_into.id)
        assert {merged.name, *merged.aliases} == {"Stars", "Stars Cafe"}
        command, name, *rest = d.undo.split()
        assert command == "split" and name == d.merged_into.id and rest[0] == "--mentions"
        spec = SPECS["split"]
        spec.run(runtime, parse_request(spec.request, {"name": name, "mentions": rest[1::2]}))
        assert {n.id: (n.name, n.props.get("aliases")) for n in store.iter_nodes("entity")} == before
        shown = {p.name: p for p in info(runtime, "Stars").possible_duplicates}
        assert shown["Stars Cafe"].decision == "same"  # the undone decision stays recorded
        assert resolve_links(runtime).decisions == [] and len(seen) == 1  # and is not asked again


@pytest.mark.slow  # a real server process
def test_the_mcp_clients_model_judges_round_by_round(tmp_path, embedder):
    """Over stdio (MCP 2026-07-28): each question goes to the client as an input request and the tool runs
    again with the answers so far; nothing is written until every question has its answer."""
    linked_graph(Runtime(settings_for(tmp_path / "home"), embedder=embedder))
    with start_blocking_portal() as portal:
        with connect(portal, stdio_params("facts", tmp_path / "home"), "facts", sampling_callback=sampling_callback) as s:
            out, text = s.ok("resolve_links", {})
            assert out.llm == "mcp-sampling" and [d.decision for d in out.decisions] == ["different"]
            assert text.startswith("resolve-links with mcp-sampling: 1 link(s) judged; 0 open link(s) left")
            again, _ = s.ok("resolve_links", {})
            assert again.decisions == []


def test_resolve_links_on_the_command_line(settings, embedder):
    with chat_endpoint(reply(False)) as (url, _):
        linked_graph(Runtime(settings, embedder=embedder))
        app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
        env = {**env_for(settings.home), "GRAPHLORE_LLM_URL": url, "GRAPHLORE_LLM_MODEL": "fake"}
        result = CliRunner(env=env).invoke(app, ["facts", "resolve-links", "--limit", "5"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "resolve-links with openai:fake: 1 link(s) judged; 0 open link(s) left"
    assert lines[1].startswith("  different: Stars") and lines[-1].startswith("    undo: graphlore facts merge ")


def test_a_merge_the_graph_refuses_leaves_both_nodes_and_says_why(settings, embedder, monkeypatch):
    from graphlore.errors import InvalidInput
    from graphlore.toolsets.facts import merge

    def refuse(runtime, request):
        raise InvalidInput("Stars (E:stars) has no mention records")

    monkeypatch.setattr(merge, "merge", refuse)
    with chat_endpoint(reply(True)) as (url, _):
        runtime = judge_with(settings, embedder, url)
        graph = linked_graph(runtime)
        [d] = resolve_links(runtime).decisions
    assert (d.decision, d.merged_into, d.undo) == ("same", None, None)
    assert d.evidence.endswith("(not merged: Stars (E:stars) has no mention records)")
    assert graph.store().count_nodes("entity") == 4


def test_a_link_that_goes_while_the_judge_is_asked_is_not_written_back_nor_merged(settings, embedder, monkeypatch):
    """Another call removes a node while the judge answers: its link went with it; the answer is reported,
    nothing writes the link back, and no merge of a node that is gone fails the call."""
    from graphlore.toolsets.facts import links

    asked = links.ask

    def ask_then_remove(llm, a, b, reason):
        answer = asked(llm, a, b, reason)
        FactsGraph(runtime, "default").store().delete_nodes([b.id])
        return answer

    monkeypatch.setattr(links, "ask", ask_then_remove)
    with chat_endpoint(reply(True)) as (url, _):
        runtime = judge_with(settings, embedder, url)
        store = linked_graph(runtime).store()
        [d] = resolve_links(runtime).decisions
    assert (d.decision, d.merged_into, d.undo) == ("undecided", None, None)
    assert "the link went" in d.evidence
    assert store.count_edges(DUPLICATE) == 1  # the settled one; the removed node's link is not written back
    assert store.count_nodes("entity") == 3


def test_a_node_a_merge_cannot_find_is_reported_not_a_failure(settings, embedder, monkeypatch):
    from graphlore.errors import NotFound
    from graphlore.toolsets.facts import merge

    def vanished(runtime, request):
        raise NotFound("no entity or topic named 'Stars Cafe'")

    monkeypatch.setattr(merge, "merge", vanished)
    with chat_endpoint(reply(True)) as (url, _):
        runtime = judge_with(settings, embedder, url)
        graph = linked_graph(runtime)
        [d] = resolve_links(runtime).decisions
    assert (d.decision, d.merged_into, d.undo) == ("same", None, None)
    assert d.evidence.endswith("(not merged: no entity or topic named 'Stars Cafe')")
    assert graph.store().count_nodes("entity") == 4
