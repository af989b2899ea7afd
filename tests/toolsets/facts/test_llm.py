"""Extraction by an LLM: an OpenAI-compatible endpoint (a fake hosted model on 127.0.0.1) or the MCP client's
model through sampling, asked directly (handshake-era sessions) or round by round (protocol 2026-07-28)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from anyio.from_thread import start_blocking_portal
from click.testing import CliRunner
from helpers.backend import env_for
from helpers.facts_data import DOCUMENT, fake_model_answer, sampling_callback
from helpers.fake_endpoint import chat_endpoint
from helpers.mcp import connect, http_server, stdio_params

from graphlore.adapters.cli import build_cli
from graphlore.config import Settings
from graphlore.contract import parse_request
from graphlore.errors import ConfigError, ProviderError
from graphlore.llm import (
    LLMRequest,
    OpenAICompatibleLLM,
    SamplingLLM,
    SamplingRequired,
    build_llm,
    parse_json_reply,
)
from graphlore.runtime import Runtime
from graphlore.tools import CallContext
from graphlore.toolsets.facts import TOOLSET
from graphlore.toolsets.facts.extract import chunk_text

SPECS = {s.name: s for s in TOOLSET.tools}
REQUEST = {"name": "Apple buys Beats", "date": "2014-05-28", "text": DOCUMENT, "source": "news"}


@pytest.fixture
def endpoint():
    """A fake hosted model behind POST /v1/chat/completions; records every request body."""
    with chat_endpoint(fake_model_answer) as found:
        yield found


CONTEXT = CallContext(session="t")


def extract(runtime: Runtime, context: CallContext = CONTEXT, **changes):
    spec = SPECS["extract_document"]
    return spec.run(runtime, parse_request(spec.request, {**REQUEST, **changes}), context=context)


def check_extracted(out, llm_name: str):
    assert out.status == "created" and out.llm == llm_name and out.chunks == 2 and out.facts == 2
    assert {r.name for r in out.resolutions} == {"Apple Inc", "Beats Electronics", "Tim Cook", "Music streaming"}
    assert len(out.skipped) == 2
    assert any("Broken" in s and "missing required field 'type'" in s for s in out.skipped)
    assert any("'Samsung' is not in the step 1 list" in s for s in out.skipped)


def test_extract_through_an_openai_compatible_endpoint(endpoint, settings, embedder):
    url, seen = endpoint
    runtime = Runtime(replace(settings, llm_url=url, llm_model="fake", llm_api_key="k"), embedder=embedder)
    out = extract(runtime)
    check_extracted(out, "openai:fake")
    assert [c["path"] for c in seen] == ["/v1/chat/completions"] * 2 and seen[0]["auth"] == "Bearer k"
    body = seen[0]["body"]
    assert body["temperature"] == 0 and [m["role"] for m in body["messages"]] == ["system", "user"]
    # date_context falls back to the document date; the given one is kept.
    facts = SPECS["search"].run(runtime, parse_request(SPECS["search"].request, {"entity": ["Tim Cook"]}),
                                context=CallContext(session="t"))
    assert facts.results[0].date_context == "2014-05-28"
    again = extract(runtime)
    assert again.status == "unchanged" and len(seen) == 4  # asked again, but nothing written


def test_a_possible_duplicate_is_decided_by_the_llm(endpoint, settings, embedder):
    url, seen = endpoint
    runtime = Runtime(replace(settings, llm_url=url, llm_model="fake"), embedder=embedder)
    spec = SPECS["add_document"]
    spec.run(runtime, parse_request(spec.request, {
        "name": "earlier", "date": "2014-01-01", "chunks": ["Beats sells audio gear."],
        "entities": [{"name": "Beats", "type": "Company", "definition": "company founded by Dr. Dre and Jimmy Iovine"}]}))
    out = extract(runtime)
    beats = next(r for r in out.resolutions if r.name == "Beats Electronics")
    assert beats.action == "merged" and "the LLM judged them the same" in beats.reason and beats.id == "E:beats"
    assert any("SAME THING?" in c["body"]["messages"][-1]["content"] for c in seen)


def test_extract_from_the_cli_with_the_configured_endpoint(endpoint, tmp_path, embedder, monkeypatch):
    url, _ = endpoint
    doc = tmp_path / "beats.txt"
    doc.write_text(DOCUMENT)
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    runner = CliRunner(env={**env_for(tmp_path / "home"), "GRAPHLORE_LLM_URL": url,
                            "GRAPHLORE_LLM_MODEL": "fake"})
    result = runner.invoke(app, ["facts", "extract", str(doc), "--date", "2014-05-28", "--json"],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    [out] = json.loads(result.output)
    assert out["document"]["name"] == "beats.txt" and out["document"]["source"] == str(doc.resolve())
    assert out["llm"] == "openai:fake" and out["facts"] == 2
    text = runner.invoke(app, ["facts", "extract", str(doc), "--date", "2014-05-28"]).output
    assert text.startswith("unchanged: beats.txt") and "skipped 2 items the LLM proposed" in text


def test_endpoint_failures_and_partial_settings(endpoint, settings, embedder):
    url, _ = endpoint
    runtime = Runtime(replace(settings, llm_url=url, llm_model="broken"), embedder=embedder)
    with pytest.raises(ProviderError, match="answered 503: overloaded"):
        extract(runtime)
    with pytest.raises(ProviderError, match="failed"):
        OpenAICompatibleLLM("http://127.0.0.1:9/v1", "m", timeout=2).complete(LLMRequest("s", "p"))
    with pytest.raises(ConfigError, match="needs both GRAPHLORE_LLM_URL"):
        build_llm(Settings(home=settings.home, llm_url=url))
    assert build_llm(Settings(home=settings.home)) is None


def test_sampling_replays_answers_for_the_same_questions_only():
    first, second = LLMRequest("s", "one"), LLMRequest("s", "two")
    with pytest.raises(SamplingRequired) as need:
        SamplingLLM(None).complete(first)
    assert need.value.request == first and need.value.answered == []
    llm = SamplingLLM(None, [(first.key(), "A1")])
    assert llm.complete(first) == "A1"
    with pytest.raises(SamplingRequired) as need:
        llm.complete(second)
    assert need.value.answered == [(first.key(), "A1")]
    with pytest.raises(ProviderError, match="changed between rounds"):
        SamplingLLM(None, [(first.key(), "A1")]).complete(second)
    asked = []
    direct = SamplingLLM(lambda r: asked.append(r) or "B")
    assert direct.complete(first) == "B" and asked == [first]


def test_json_replies_are_found_in_prose_and_fences():
    assert parse_json_reply('Sure!\n```json\n{"a": [1, {"b": 2}]}\n```', "m") == {"a": [1, {"b": 2}]}
    assert parse_json_reply('{"a": 1} and more text', "m") == {"a": 1}
    with pytest.raises(ProviderError, match="did not answer with a JSON object"):
        parse_json_reply("no json here", "m")


def test_chunks_keep_paragraphs_and_cut_long_ones_at_sentences():
    assert chunk_text("one.\n\ntwo.") == ["one.\n\ntwo."]  # short paragraphs are joined
    assert len(chunk_text(DOCUMENT)) == 2
    long = " ".join(f"Sentence {i} is here." for i in range(200))
    pieces = chunk_text(long, limit=300)
    assert all(len(p) <= 300 for p in pieces) and " ".join(pieces) == long


# -- the MCP client's own model --------------------------------------------------------------------


def _extract_over_mcp(portal, target, **options):
    with connect(portal, target, "facts", sampling_callback=sampling_callback, **options) as s:
        return s.ok("extract_document", REQUEST)


@pytest.mark.slow  # a real server process
def test_sampling_over_stdio_round_by_round(tmp_path):
    with start_blocking_portal() as portal:
        out, text = _extract_over_mcp(portal, stdio_params("facts", tmp_path / "home"))
    check_extracted(out, "mcp-sampling")
    assert text.startswith("created: Apple buys Beats")


@pytest.mark.slow  # a real server process
def test_sampling_over_http_asked_directly_in_a_session(tmp_path):
    with start_blocking_portal() as portal, http_server("facts", tmp_path / "home", tmp_path / "log") as (url, _):
        out, _ = _extract_over_mcp(portal, url, mode="legacy")
        check_extracted(out, "mcp-sampling")
        out, _ = _extract_over_mcp(portal, url)  # 2026-07-28 over HTTP: input requests instead
        assert out.status == "unchanged" and out.llm == "mcp-sampling"


@pytest.mark.slow  # a real server process
def test_the_configured_endpoint_wins_over_sampling(endpoint, tmp_path):
    url, seen = endpoint

    async def never(context, params):
        raise AssertionError("the client's model must not be asked when an endpoint is configured")

    env = {"GRAPHLORE_LLM_URL": url, "GRAPHLORE_LLM_MODEL": "fake"}
    with start_blocking_portal() as portal, connect(portal, stdio_params("facts", tmp_path / "home", env), "facts",
                                                    sampling_callback=never) as s:
        out, _ = s.ok("extract_document", REQUEST)
    assert out.llm == "openai:fake" and len(seen) == 2
