"""The generic MCP adapter, through the SDK's in-memory client: a toy toolset becomes MCP tools from its
declarations alone, raw arguments are judged by the request model, every failure reaches the client as
``[code] message`` (bugs included), progress is reported, and the lifespan closes the runtime."""

from __future__ import annotations

import json

import mcp_types as types
import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client

from graphlore.adapters.mcp import build_server
from graphlore.config import Settings
from graphlore.runtime import Runtime
from graphlore.toolsets import TOOLSETS, load_toolset

REGISTRY = {**TOOLSETS, "toy": "helpers.toy_toolset"}


@pytest.fixture
def runtime(tmp_path):
    return Runtime(Settings(home=tmp_path / "home"))


def call(runtime, name, arguments, **client_options):
    server = build_server(load_toolset("toy", REGISTRY), runtime)
    with start_blocking_portal() as portal:
        client = Client(server, **client_options)
        with portal.wrap_async_context_manager(client):
            tools = {t.name: t for t in portal.call(client.list_tools).tools}
            return tools, portal.call(lambda: client.call_tool(name, arguments))


def text(result) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


def test_a_toy_toolset_becomes_mcp_tools_with_strict_schemas(runtime):
    tools, result = call(runtime, "echo", {"text": "hi", "times": 2, "tags": ["a"]})
    assert set(tools) == {"echo", "fail"}
    schema = tools["echo"].input_schema
    assert schema["additionalProperties"] is False and schema["required"] == ["text"]
    assert tools["echo"].output_schema["properties"].keys() == {"said", "tags", "mood"}
    assert tools["echo"].annotations.read_only_hint is True
    assert not result.is_error
    assert result.structured_content == {"said": ["hi", "hi"], "tags": ["a"], "mood": "calm"}
    assert result.content[0].text == "hi\nhi"  # the declared rendering is the text block


@pytest.mark.parametrize("arguments, shown", [
    ({"text": "hi", "volume": 11}, "unknown field 'volume'"),
    ({"text": "hi", "times": 9}, "field 'times'"),
    ({}, "missing required field 'text'"),
    ({"text": "hi", "mood": "sad"}, "field 'mood'"),
])
def test_raw_arguments_are_judged_by_the_request_model(runtime, arguments, shown):
    _, result = call(runtime, "echo", arguments)
    assert result.is_error and "[invalid_input]" in text(result) and shown in text(result)
    assert "Valid fields: text, times?, shout?, tags?, mood?" in text(result)


def test_tool_errors_and_bugs_reach_the_client_as_code_and_message(runtime):
    _, result = call(runtime, "fail", {"kind": "not_found"})
    assert result.is_error and "[not_found] no such thing; look it up with echo first" in text(result)
    _, result = call(runtime, "fail", {"kind": "bug"})
    assert result.is_error and "[internal_error] tool fail failed with an unexpected ZeroDivisionError" in text(result)
    assert "Traceback" not in text(result)


def failures(runtime) -> list[dict]:
    path = runtime.settings.home / "toy-failures.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_failed_call_is_reported_to_the_tools_on_failure_validation_included(runtime):
    """``fail`` declares on_failure: every failed call reaches it with the raw arguments and the session
    (validation failures, tool errors, bugs); a tool without one (echo) is not reported."""
    call(runtime, "fail", {"kind": "sad"})
    call(runtime, "fail", {"kind": "not_found", "extra": 1})
    call(runtime, "fail", {"kind": "not_found"})
    call(runtime, "fail", {"kind": "bug"})
    call(runtime, "echo", {"text": "hi", "times": 9})
    seen = failures(runtime)
    assert [f["arguments"] for f in seen] == [{"kind": "sad"}, {"kind": "not_found", "extra": 1}, {"kind": "not_found"},
                                              {"kind": "bug"}]
    assert {(f["session"], f["durable"]) for f in seen} == {("stdio", False)}  # in-process: the stdio session
    assert "[invalid_input] field 'kind'" in seen[0]["error"] and "unknown field 'extra'" in seen[1]["error"]
    assert seen[2]["error"].startswith("[not_found] ") and seen[3]["error"].startswith("[internal_error] ")


def test_an_unknown_tool_name_gets_the_tools_and_the_toolsets_hint(runtime):
    _, result = call(runtime, "ech", {"text": "hi"})
    assert result.is_error
    assert text(result) == "[invalid_input] no tool 'ech' on this server; did you mean 'echo'? its tools: echo, fail"
    facts = build_server(load_toolset("facts"), runtime)
    with start_blocking_portal() as portal:
        client = Client(facts)
        with portal.wrap_async_context_manager(client):
            result = portal.call(lambda: client.call_tool("kg_query", {"command": "help"}))
    assert result.is_error and text(result).startswith("[invalid_input] no tool 'kg_query' on this server; ")
    assert "its tools: find, search, cat, info, ls, stats, split, kg_execute, add_document, extract_document" in text(result)
    assert 'kg_execute(command="help") lists its commands' in text(result)


def test_progress_reaches_a_client_that_asks_for_it(runtime):
    server = build_server(load_toolset("toy", REGISTRY), runtime)
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    with start_blocking_portal() as portal:
        client = Client(server)
        with portal.wrap_async_context_manager(client):
            result = portal.call(lambda: client.call_tool("echo", {"text": "x", "times": 3},
                                                          progress_callback=on_progress))
    assert not result.is_error and seen and seen[-1] == (3, 3)


def test_the_lifespan_closes_the_runtime(runtime, tmp_path):
    store = runtime.open_store("test/lifespan", create=True)
    call(runtime, "echo", {"text": "hi"})
    with pytest.raises(Exception, match="closed"):
        store.count_nodes()  # the server stopped: the store it held is closed
    assert runtime.open_store("test/lifespan").count_nodes() == 0  # and the runtime can be used again


def test_json_text_tools_answer_with_their_structured_content(tmp_path):
    """A spec with mcp_text="json" (the items tools) puts the JSON of the answer in the text block."""
    items = load_toolset("items")
    assert {spec.mcp_text for spec in items.tools} == {"json"}
    structured = {"a": 1}
    block = types.TextContent(type="text", text=json.dumps(structured))
    assert json.loads(block.text) == structured
