"""check_contradictions: an LLM judge (a fake hosted model on 127.0.0.1, or the MCP client's model) ends facts a
later fact contradicts; it never deletes one, every ending names its evidence, retracting the evidence's document
undoes it; an unusable or failing answer, or no LLM at all, changes nothing."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from anyio.from_thread import start_blocking_portal
from click.testing import CliRunner
from helpers.backend import env_for, settings_for
from helpers.fake_endpoint import chat_endpoint
from helpers.graph_state import assert_same_graph, graph_state
from helpers.mcp import connect, stdio_params
from mcp import types

from graphlore.adapters.cli import build_cli
from graphlore.config import Settings
from graphlore.contract import parse_request
from graphlore.errors import ConfigError, ProviderError
from graphlore.runtime import Runtime
from graphlore.tools import CallContext
from graphlore.toolsets.facts import TOOLSET
from graphlore.toolsets.facts.graph import FACT, FactsGraph
from graphlore.toolsets.facts.models import DocumentRecord
from graphlore.toolsets.facts.write import Writer

SPECS = {s.name: s for s in TOOLSET.tools}
CONTEXT = CallContext(session="t")
JANE = {"name": "Jane Doe", "type": "Person", "definition": "American executive and board member"}
ACME = {"name": "Acme Corp", "type": "Company", "definition": "American maker of anvils and rockets"}
PARIS = {"name": "Paris", "type": "Location", "definition": "capital city of France"}
BERLIN = {"name": "Berlin", "type": "Location", "definition": "capital city of Germany"}


def doc(name, date, entities, facts):
    return DocumentRecord.model_validate({
        "name": name, "date": date, "chunks": [f"text of {name}"], "entities": entities,
        "facts": [{"subject": "Jane Doe", "relationship": r, "object": o, "sentence": f"Jane Doe {r} {o}.",
                   "date_context": when, "chunk": 0} for r, o, when in facts]})


#: sits on the board (2018), then left it (2021): the judge ends the first; lives in Paris (2019), then in Berlin
#: (2022): "lives in" is not functional and the fake judge says both can hold
DOCS = [doc("joined", "2018-03-01", [JANE, ACME], [("sits on the board of", "Acme Corp", "2018")]),
        doc("paris", "2019-05-01", [JANE, PARIS], [("lives in", "Paris", "2019")]),
        doc("left", "2021-06-01", [JANE, ACME], [("left the board of", "Acme Corp", "2021")]),
        doc("berlin", "2022-02-01", [JANE, BERLIN], [("lives in", "Berlin", "2022")])]


def written(runtime: Runtime, graph: str = "default", docs=DOCS) -> FactsGraph:
    out = FactsGraph(runtime, graph)
    for record in docs:
        Writer(out).write([record])
    return out


def reply(prompt: str) -> str:
    """The fake model: the board fact is ended by the later fact about the same board; anything else holds."""
    request = prompt.split("Request:\n", 1)[1].split("\n\nCandidates:", 1)[0]
    first = prompt.split("Candidates:\n[", 1)[1].split("]", 1)[0]
    if "sits on the board of" in request:
        return json.dumps({"id": first, "reason": "she left that board in 2021"})
    return json.dumps({"id": None, "reason": "one can live in two cities"})


def judge_with(settings, embedder, url, model="fake"):
    return Runtime(replace(settings, llm_url=url, llm_model=model), embedder=embedder)


def run(spec_name, runtime, **fields):
    spec = SPECS[spec_name]
    request = parse_request(spec.request, fields)
    return spec.run(runtime, request, **({"context": CONTEXT} if spec.context else {}))


def facts(graph: FactsGraph) -> dict[str, dict]:
    return {e.props["relationship"] + " " + e.dst: e.props for e in graph.store().iter_edges(FACT)}


def test_a_later_fact_the_judge_picks_ends_the_fact_and_names_its_evidence(settings, embedder):
    with chat_endpoint(reply) as (url, seen):
        runtime = judge_with(settings, embedder, url)
        graph = written(runtime)
        out = run("check_contradictions", runtime)
        assert len(seen) == 2 and out.llm == "openai:fake" and out.unchecked == 0
        by = {c.sentence: c for c in out.checks}
        ended = by["Jane Doe sits on the board of Acme Corp."]
        assert (ended.decision, ended.valid_to, ended.evidence_sentence) == (
            "ended", "2021-01-01", "Jane Doe left the board of Acme Corp.")
        assert by["Jane Doe lives in Paris."].decision == "holds"
        stored = facts(graph)
        board = stored["sits on the board of E:acme-corp"]
        assert board["valid_to"] == "2021-01-01"
        assert board["ended_by"]["fact"] == ended.evidence and board["ended_by"]["document"] == "D:left"
        assert (board["ended_by"]["judge"], board["ended_by"]["reason"]) == ("openai:fake", "she left that board in 2021")
        assert "valid_to" not in stored["lives in E:paris"]
        assert graph.store().count_edges(FACT) == 4  # nothing deleted
        now = run("search", runtime, entity=["Jane Doe"], current=True)
        assert sorted(f.relationship for f in now.results) == ["left the board of", "lives in", "lives in"]
        then = run("search", runtime, entity=["Jane Doe"], as_of="2020")
        assert sorted(f.relationship for f in then.results) == ["lives in", "sits on the board of"]
        info = run("info", runtime, name="Jane Doe")
        [superseded] = info.superseded_facts
        assert superseded.ended_by.judge == "openai:fake" and superseded.ended_by.fact == ended.evidence
        again = run("check_contradictions", runtime)
        assert again.checks == [] and len(seen) == 2  # nothing new to weigh: not asked again


def test_a_judged_ending_survives_later_writes_and_retracting_its_evidence_undoes_it(settings, embedder):
    with chat_endpoint(reply) as (url, _):
        runtime = judge_with(settings, embedder, url)
        graph = written(runtime)
        run("check_contradictions", runtime)
    Writer(graph).write([doc("moved", "2023-01-01", [JANE, PARIS], [("lives in", "Paris", "2023")])])
    again = DOCS[0].model_copy(update={"chunks": ["text of joined", "a second chunk"]})  # its fact unchanged
    assert Writer(graph).write([again])[0].status == "updated"
    assert facts(graph)["sits on the board of E:acme-corp"]["valid_to"] == "2021-01-01"
    out = run("retract", runtime, document="left")
    assert out.validity_changed == 1
    board = facts(graph)["sits on the board of E:acme-corp"]
    assert not {"valid_to", "ended_by", "contradicted_by"} & set(board)
    now = run("search", runtime, entity=["Jane Doe"], current=True)
    assert "sits on the board of" in {f.relationship for f in now.results}


def test_a_limit_asks_that_many_and_counts_what_is_left(settings, embedder):
    with chat_endpoint(reply) as (url, seen):
        runtime = judge_with(settings, embedder, url)
        written(runtime)
        first = run("check_contradictions", runtime, limit=1)
        assert (len(first.checks), first.unchecked, len(seen)) == (1, 1, 1)
        second = run("check_contradictions", runtime, limit=1)
        assert (len(second.checks), second.unchecked, len(seen)) == (1, 0, 2)
        assert first.checks[0].fact != second.checks[0].fact


@pytest.mark.parametrize("answer", ["I think so", json.dumps({"id": "D:nope/123", "reason": "made up"})])
def test_an_unusable_answer_ends_nothing(settings, embedder, answer):
    with chat_endpoint(lambda prompt: answer) as (url, seen):
        runtime = judge_with(settings, embedder, url)
        graph = written(runtime)
        before = graph_state(graph.store())
        out = run("check_contradictions", runtime)
        assert {c.decision for c in out.checks} == {"undecided"} and len(seen) == 4  # each asked twice
        assert all("unusable twice" in c.reason for c in out.checks) and out.unchecked == 2
        assert_same_graph(graph_state(graph.store()), before)


def test_a_failing_endpoint_fails_the_call_and_ends_nothing(settings, embedder):
    with chat_endpoint(reply) as (url, _):
        runtime = judge_with(settings, embedder, url, model="broken")  # the endpoint answers 503
        graph = written(runtime)
        before = graph_state(graph.store())
        with pytest.raises(ProviderError):
            run("check_contradictions", runtime)
        assert_same_graph(graph_state(graph.store()), before)


def test_without_an_llm_nothing_changes_and_the_answer_says_so(settings, embedder):
    runtime = Runtime(settings, embedder=embedder)
    graph = written(runtime)
    before = graph_state(graph.store())
    with pytest.raises(ConfigError, match="Nothing was changed"):
        run("check_contradictions", runtime)
    assert_same_graph(graph_state(graph.store()), before)
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    result = CliRunner(env=env_for(settings.home)).invoke(app, ["facts", "check-contradictions"])
    assert result.exit_code == 2 and result.output.startswith("error: [config_error] no LLM to judge contradictions")


def test_check_contradictions_on_the_command_line(settings, embedder):
    with chat_endpoint(reply) as (url, _):
        written(Runtime(settings, embedder=embedder))
        app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
        env = {**env_for(settings.home), "GRAPHLORE_LLM_URL": url, "GRAPHLORE_LLM_MODEL": "fake"}
        result = CliRunner(env=env).invoke(app, ["facts", "check-contradictions", "--limit", "5"],
                                           catch_exceptions=False)
        assert result.exit_code == 0, result.output
        lines = result.output.splitlines()
        assert lines[0] == "check-contradictions with openai:fake: 2 facts judged; 0 left to judge"
        assert any(line.startswith("  ended until 2021-01-01: D:joined/") for line in lines)
        assert lines[-1] == "  undo an ending: retract the evidence's document"
        shown = CliRunner(env=env).invoke(app, ["facts", "info", "Jane Doe"], catch_exceptions=False).output
        assert "judged by openai:fake: she left that board in 2021" in shown


async def sampling_reply(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    return types.CreateMessageResult(role="assistant", model="fake-model",
                                     content=types.TextContent(type="text", text=reply(params.messages[0].content.text)))


@pytest.mark.slow  # a real server process
def test_the_mcp_clients_model_judges_round_by_round(tmp_path, embedder):
    """Over stdio (MCP 2026-07-28): each question goes to the client as an input request and the tool runs
    again with the answers so far; nothing is written until every question has its answer."""
    runtime = Runtime(settings_for(tmp_path / "home"), embedder=embedder)
    written(runtime)
    with start_blocking_portal() as portal:
        with connect(portal, stdio_params("facts", tmp_path / "home"), "facts", sampling_callback=sampling_reply) as s:
            out, text = s.ok("check_contradictions", {})
            assert out.llm == "mcp-sampling" and sorted(c.decision for c in out.checks) == ["ended", "holds"]
            assert text.startswith("check-contradictions with mcp-sampling: 2 facts judged; 0 left to judge")
            again, _ = s.ok("check_contradictions", {})
            assert again.checks == []
    runtime.close()
    board = facts(FactsGraph(Runtime(settings_for(tmp_path / "home"), embedder=embedder), "default"))
    assert board["sits on the board of E:acme-corp"]["ended_by"]["judge"] == "mcp-sampling"


GLOBEX = {"name": "Globex", "type": "Company", "definition": "American maker of household appliances"}
ROME = {"name": "Rome", "type": "Location", "definition": "capital city of Italy"}


def test_a_judged_fact_keeps_the_rules_earlier_ending_when_another_relationship_of_its_subject_is_written(
        settings, embedder):
    """A judged fact of a functional relationship is computed again with its whole timeline: a write that touches
    another relationship of its subject (the judged facts are looked at then) keeps the rule's earlier ending."""
    with chat_endpoint(reply) as (url, _):
        runtime = judge_with(settings, embedder, url)
        graph = written(runtime)
        run("check_contradictions", runtime)  # the judge ends the board fact at 2021
    run("relation_set", runtime, name="sits on the board of", functional=True)
    Writer(graph).write([doc("globex", "2019-09-01", [JANE, GLOBEX], [("sits on the board of", "Globex", "2019")])])
    board = facts(graph)["sits on the board of E:acme-corp"]
    assert (board["valid_to"], board["ended_by"]["document"]) == ("2019-01-01", "D:globex")  # the rule's, earlier
    Writer(graph).write([doc("rome", "2023-01-01", [JANE, ROME], [("lives in", "Rome", "2023")])])
    board = facts(graph)["sits on the board of E:acme-corp"]
    assert board["valid_to"] == "2019-01-01", board["ended_by"]


def test_a_verdict_applies_only_while_its_evidence_is_a_fact_of_the_same_subject(settings, embedder):
    """A split that moves the evidence to another node gives the fact back (the judge weighed one subject's
    facts), and retracting the evidence's document then leaves it held, not ended by a fact that is gone."""
    other_jane = {**JANE, "definition": "American executive, former director of Acme Corp"}
    docs = [*DOCS[:2], doc("left", "2021-06-01", [other_jane, ACME], [("left the board of", "Acme Corp", "2021")]),
            DOCS[3]]
    with chat_endpoint(reply) as (url, _):
        runtime = judge_with(settings, embedder, url)
        graph = written(runtime, docs=docs)
        run("check_contradictions", runtime)
    assert facts(graph)["sits on the board of E:acme-corp"]["valid_to"] == "2021-01-01"
    [mention] = [m.id for m in run("info", runtime, name="Jane Doe").mentions if "former" in m.definition]
    moved = run("split", runtime, name="Jane Doe", mentions=[mention]).split_off.id
    assert {e.src for e in graph.store().iter_edges(FACT) if e.props["relationship"] == "left the board of"} == {moved}
    assert "valid_to" not in facts(graph)["sits on the board of E:acme-corp"]
    run("retract", runtime, document="left")
    board = facts(graph)["sits on the board of E:acme-corp"]
    assert not {"valid_to", "ended_by"} & set(board)
    now = run("search", runtime, entity=["Jane Doe"], current=True)
    assert "sits on the board of" in {f.relationship for f in now.results}


def test_a_fact_with_more_later_facts_than_one_question_shows_is_shown_every_one_over_successive_calls(
        settings, embedder):
    """Eleven boards Jane joined later, then the one that shows she left Acme's: the twelfth later fact, past the
    first question's ten; the next call shows the later facts the judge has not cleared, so it ends the fact."""
    boards = [{"name": f"Board {chr(65 + i)} Holdings", "type": "Company",
               "definition": f"holding company number {i + 1} of a test"} for i in range(11)]
    docs = [doc("joined", "2010-03-01", [JANE, ACME], [("sits on the board of", "Acme Corp", "2010")])]
    docs += [doc(f"board {i}", f"{2011 + i}-03-01", [JANE, b], [("sits on the board of", b["name"], str(2011 + i))])
             for i, b in enumerate(boards)]
    docs.append(doc("left", "2023-06-01", [JANE, ACME], [("left the board of", "Acme Corp", "2023")]))

    def left_acme(prompt: str) -> str:
        request = prompt.split("Request:\n", 1)[1].split("\n\nCandidates:", 1)[0]
        blocks = prompt.split("Candidates:\n", 1)[1].split("\n\n")  # "[id]\ndescription" each
        picked = next((b[1:].split("]", 1)[0] for b in blocks if "left the board of Acme" in b), None)
        if "sits on the board of Acme" in request and picked:
            return json.dumps({"id": picked, "reason": "she left that board in 2023"})
        return json.dumps({"id": None, "reason": "one can sit on several boards"})

    with chat_endpoint(left_acme) as (url, _):
        runtime = judge_with(settings, embedder, url)
        graph = written(runtime, docs=docs)
        first = {c.sentence: c for c in run("check_contradictions", runtime, limit=500).checks}
        assert first["Jane Doe sits on the board of Acme Corp."].decision == "holds"  # the first ten later facts
        second = {c.sentence: c for c in run("check_contradictions", runtime, limit=500).checks}
        ended = second["Jane Doe sits on the board of Acme Corp."]
        assert (ended.decision, ended.evidence_sentence) == ("ended", "Jane Doe left the board of Acme Corp.")
        assert facts(graph)["sits on the board of E:acme-corp"]["valid_to"] == "2023-01-01"
        third = run("check_contradictions", runtime, limit=500)  # every later fact of every fact cleared or ended
        assert third.checks == [] and third.unchecked == 0
