"""The generic MCP adapter, through the SDK's in-memory client: a toy toolset becomes MCP tools from its
declarations alone, raw arguments are judged by the request model, every failure reaches the client as
``[code] message`` and as a structured error (bugs included), progress is reported, and the lifespan
closes the runtime. One server serves several toolsets: names, instructions, read-only, unknown names,
per-session state and failure hooks in a server of several toolsets."""

from __future__ import annotations

import functools
import json
import shutil
import threading
import time
from types import SimpleNamespace

import anyio
import jsonschema
import pytest
from anyio.from_thread import start_blocking_portal
from helpers.paths import EXAMPLE_TREE
from mcp import Client

from graphlore.adapters.command import attach
from graphlore.adapters.mcp import ERROR_SCHEMA, build_server, served_names
from graphlore.config import Settings
from graphlore.runtime import Runtime
from graphlore.toolsets import TOOLSETS, load_toolset
from graphlore.toolsets.items.index import EMBED_LOCK, ItemIndex, item_passages
from graphlore.toolsets.items.scan import scan_project

REGISTRY = {**TOOLSETS, "toy": "helpers.toy_toolset"}
ALL = [attach(load_toolset(name)) for name in TOOLSETS]  # with facts' kg_execute, as a server offers them


@pytest.fixture
def runtime(tmp_path):
    return Runtime(Settings(home=tmp_path / "home"))


def toy():
    return load_toolset("toy", REGISTRY)


def session(server, calls, **client_options):
    """List the tools of ``server`` and make ``calls`` [(name, arguments)] in one session."""
    with start_blocking_portal() as portal:
        client = Client(server, **client_options)
        with portal.wrap_async_context_manager(client):
            tools = {t.name: t for t in portal.call(client.list_tools).tools}
            results = [portal.call(lambda n=name, a=arguments: client.call_tool(n, a)) for name, arguments in calls]
            return tools, results, SimpleNamespace(name=client.server_info.name, instructions=client.instructions)


def call(runtime, name, arguments, toolsets=None, **client_options):
    tools, [result], _ = session(build_server(toolsets or toy(), runtime), [(name, arguments)], **client_options)
    return tools, result


def text(result) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


def error(result) -> tuple[str, str]:
    """(code, message) of a failed call, checking the text block says the same as the structured error."""
    assert result.is_error
    structured = result.structured_content["error"]
    assert text(result) == f"[{structured['code']}] {structured['message']}"
    return structured["code"], structured["message"]


def test_a_toy_toolset_becomes_mcp_tools_with_strict_schemas(runtime):
    tools, result = call(runtime, "echo", {"text": "hi", "times": 2, "tags": ["a"]})
    assert set(tools) == {"echo", "fail"}
    schema = tools["echo"].input_schema
    assert schema["additionalProperties"] is False and schema["required"] == ["text"]
    answer, failed = tools["echo"].output_schema["anyOf"]
    assert answer["properties"].keys() == {"said", "tags", "mood"} and failed == ERROR_SCHEMA
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
    code, message = error(result)
    assert code == "invalid_input" and shown in message
    assert "Valid fields: text, times?, shout?, tags?, mood?" in message


def test_every_failure_is_code_and_message_in_text_and_structured_content(runtime):
    """Tool errors, operating-system errors no tool translated, bugs and unknown names: ``isError``, the text
    ``[code] message`` (nothing before it) and ``{"error": {"code", "message"}}``."""
    _, result = call(runtime, "fail", {"kind": "not_found"})
    assert error(result) == ("not_found", "no such thing; look it up with echo first")
    _, result = call(runtime, "fail", {"kind": "os"})
    assert error(result) == ("invalid_input", "cannot use '/nonexistent/toy.txt': No such file or directory; check "
                                              "the path you gave")
    _, result = call(runtime, "fail", {"kind": "bug"})
    code, message = error(result)
    assert code == "internal_error" and message.startswith("tool fail failed with an unexpected ZeroDivisionError")
    assert "Traceback" not in text(result)
    _, result = call(runtime, "ech", {"text": "hi"})
    assert error(result) == ("invalid_input", "no tool 'ech' on this server; did you mean 'echo'? its tools: echo, fail")


def test_a_strict_client_accepts_answers_and_errors_against_the_output_schema(runtime):
    """Some clients check every structured result against the tool's output schema, errors included; the
    schema is the answer or the error object, so both pass, and a malformed answer would not."""
    tools, results, _ = session(build_server(toy(), runtime), [
        ("echo", {"text": "hi"}), ("echo", {"text": "hi", "times": 9}), ("fail", {"kind": "bug"}),
        ("fail", {"kind": "not_found"})])
    schema = tools["echo"].output_schema
    for result in results:
        jsonschema.validate(result.structured_content, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"said": "hi"}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"error": {"code": "nonsense", "message": "x"}}, schema)


def failures(runtime) -> list[dict]:
    path = runtime.settings.home / "toy-failures.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_failed_call_is_reported_to_the_tools_on_failure_validation_included(runtime):
    """``fail`` declares on_failure: every failed call reaches it with the raw arguments and the session
    (validation failures, tool errors, OS errors, bugs); a tool without one (echo) is not reported."""
    call(runtime, "fail", {"kind": "sad"})
    call(runtime, "fail", {"kind": "not_found", "extra": 1})
    call(runtime, "fail", {"kind": "not_found"})
    call(runtime, "fail", {"kind": "bug"})
    call(runtime, "fail", {"kind": "os"})
    call(runtime, "echo", {"text": "hi", "times": 9})
    seen = failures(runtime)
    assert [f["arguments"] for f in seen] == [{"kind": "sad"}, {"kind": "not_found", "extra": 1}, {"kind": "not_found"},
                                              {"kind": "bug"}, {"kind": "os"}]
    # in-process: the stdio session, which is this runtime's (so two processes sharing a store have two sessions)
    assert {f["session"] for f in seen} == {f"stdio:{runtime.instance}"}
    assert "[invalid_input] field 'kind'" in seen[0]["error"] and "unknown field 'extra'" in seen[1]["error"]
    assert seen[2]["error"].startswith("[not_found] ") and seen[3]["error"].startswith("[internal_error] ")
    assert seen[4]["error"].startswith("[invalid_input] cannot use '/nonexistent/toy.txt'")


def test_an_unknown_tool_name_gets_the_tools_and_the_toolsets_hint(runtime):
    _, result = call(runtime, "kg_query", {"command": "help"}, load_toolset("facts"))
    code, message = error(result)
    assert code == "invalid_input" and message.startswith("no tool 'kg_query' on this server; ")
    assert "its tools: find, search, cat, info, ls, stats, split, merge, retract, relation_set, add_document, extract_document, resolve_links, check_contradictions, kg_execute" in message
    assert message.endswith('; the original facts server\'s command strings go through kg_execute(command="..."); '
                            'kg_execute(command="help") lists its commands')


def test_progress_reaches_a_client_that_asks_for_it(runtime):
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    server = build_server([toy(), load_toolset("items")], runtime)  # in a server of several toolsets too
    with start_blocking_portal() as portal:
        client = Client(server)
        with portal.wrap_async_context_manager(client):
            result = portal.call(lambda: client.call_tool("toy_echo", {"text": "x", "times": 3},
                                                          progress_callback=on_progress))
    assert not result.is_error and seen and seen[-1] == (3, 3, "echoes")  # the unit the tool declares


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
    _, result = call(Runtime(Settings(home=tmp_path / "home")), "get_index_status",
                     {"project_path": str(EXAMPLE_TREE)}, items)
    assert not result.is_error and json.loads(result.content[0].text) == result.structured_content


# -- one server, several toolsets ---------------------------------------------------------------------------


def test_one_toolset_keeps_its_names_and_several_are_prefixed_by_toolset():
    """The rule: a server of one toolset names tools as the toolset does; of two or more, every tool is
    ``<toolset>_<tool>``, the same name whichever other toolsets are served."""
    code, facts, items = (load_toolset(n) for n in ("code", "facts", "items"))
    assert served_names([code])[("code", "find")] == "find"
    for together in ([code, facts], [code, items], ALL):
        names = served_names(together)
        assert names[("code", "find")] == "code_find" and len(set(names.values())) == len(names)
    assert served_names([code, facts])[("facts", "find")] == "facts_find"
    assert served_names([items, code])[("items", "search")] == "items_search"


def test_a_server_of_every_toolset_lists_every_tool_once_with_its_toolsets_instructions(runtime):
    tools, _, info = session(build_server(ALL, runtime), [])
    assert set(tools) == {f"{t.name}_{s.name}" for t in ALL for s in t.on("mcp")}
    assert {"code_find", "facts_find", "items_search", "code_search", "facts_search", "skills_search_skills",
            "facts_kg_execute"} <= set(tools)
    assert tools["code_find"].description == load_toolset("code").tool("find").description
    assert info.name == "graphlore"
    instructions = info.instructions
    assert "Every tool is named <toolset>_<tool>" in instructions
    for toolset in ALL:  # each toolset, what it is and when to use it, under its name
        assert f"## {toolset.name} (tools {toolset.name}_*): {toolset.summary}\n{toolset.instructions}" in instructions
    _, _, single = session(build_server(load_toolset("code"), runtime), [])
    assert single.name == "graphlore-code" and single.instructions == load_toolset("code").instructions


def test_read_only_lists_no_tool_that_writes(runtime):
    tools, results, info = session(build_server(ALL, runtime, read_only=True), [
        ("facts_add_document", {}), ("items_search", {}), ("add_document", {})])
    listed = {name: tool for name, tool in tools.items()}
    writers = {f"{t.name}_{s.name}" for t in ALL for s in t.on("mcp") if not s.read_only}
    assert listed and not writers & set(listed) and all(t.annotations.read_only_hint for t in listed.values())
    assert {"facts_search", "facts_cat", "facts_kg_execute", "skills_get_skill", "items_get_index_status",
            "code_status"} <= set(listed)
    assert "This server is read-only: tools that write are not offered here (" in info.instructions
    code, message = error(results[0])
    assert code == "invalid_input" and message.startswith(
        "no tool 'facts_add_document' on this server; it writes, and this server is read-only; its tools: ")
    assert error(results[1])[1].startswith("no tool 'items_search' on this server; it writes")
    assert "tools are named <toolset>_<tool> here: its tools:" in error(results[2])[1]


def test_an_unknown_name_on_a_server_of_several_toolsets_points_to_the_prefixed_names(runtime):
    _, results, _ = session(build_server(ALL, runtime), [("find", {}), ("kg_query", {}), ("code_fnd", {})])
    message = error(results[0])[1]
    assert message.startswith("no tool 'find' on this server; tools are named <toolset>_<tool> here: did you mean "
                              "'facts_find' or 'code_find'? its tools: items_search, ")
    message = error(results[1])[1]  # each toolset's hint, naming the tools as this server does
    assert message.endswith('; facts: the original facts server\'s command strings go through '
                            'facts_kg_execute(command="..."); facts_kg_execute(command="help") lists its commands')
    assert "did you mean 'code_find'" in error(results[2])[1]


def test_failure_hooks_and_per_session_state_work_in_a_server_of_several_toolsets(tmp_path, embedder):
    """facts keeps each session's latest search for cat; a failed search ends it (on_failure): the same
    in a server of every toolset as in facts' own."""
    home = tmp_path / "home"
    setup = Runtime(Settings(home=home), embedder=embedder)
    load_toolset("facts").examples(setup, tmp_path)
    setup.close()
    server = build_server(ALL, Runtime(Settings(home=home), embedder=embedder))
    _, results, _ = session(server, [
        ("facts_search", {"entity": ["Apple Inc"]}), ("facts_cat", {"numbers": [1]}),
        ("facts_kg_execute", {"command": "cat 1"}),
        ("facts_search", {"entity": ["Nobody Known"]}), ("facts_cat", {"numbers": [1]})])
    found, expanded, through_command, failed, refused = results
    assert not found.is_error and found.structured_content["results"]
    assert not expanded.is_error and expanded.structured_content["items"][0]["fact"]["id"] == \
        found.structured_content["results"][0]["id"]
    assert not through_command.is_error
    assert error(failed)[0] == "not_found"
    code, message = error(refused)
    assert code == "invalid_input" and message.startswith("the latest search on this graph failed")


class GatedBatches:
    """The real embedder, asked for two texts at a time; its second batch ends only once the call that asked
    for it is cancelled (what ``anyio.from_thread.check_cancelled`` sees in the worker thread)."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dim, self.batch_size = inner, inner.name, inner.dim, 2
        self.batches: list[list[str]] = []
        self.second = threading.Event()
        self.saw_cancel = False

    def embed(self, texts):
        self.batches.append(list(texts))
        rows = self.inner.embed(texts)
        if len(self.batches) == 2:
            self.second.set()
            deadline = time.monotonic() + 60
            while not self.saw_cancel and time.monotonic() < deadline:
                try:
                    anyio.from_thread.check_cancelled()
                except BaseException:  # noqa: BLE001 - the backend's cancellation: the client gave up
                    self.saw_cancel = True
                time.sleep(0.01)
        return rows

    def passages(self, text):
        return self.inner.passages(text)


def test_a_cancelled_call_stops_after_the_batch_in_progress(tmp_path, embedder):
    """The client gives up on ``index`` while its second batch is being embedded: that batch ends, no other
    one starts, and the next call carries on from what was kept."""
    project = tmp_path / "fm"
    shutil.copytree(EXAMPLE_TREE, project)
    gated = GatedBatches(embedder)
    runtime = Runtime(Settings(home=tmp_path / "home"), embedder=gated)
    server = build_server(load_toolset("items"), runtime)

    async def index_then_give_up(client) -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(functools.partial(client.call_tool, "index", {"project_path": str(project)}))
            await anyio.to_thread.run_sync(gated.second.wait, 60)
            group.cancel_scope.cancel()

    index = ItemIndex(runtime, project)
    with start_blocking_portal() as portal:
        client = Client(server)
        with portal.wrap_async_context_manager(client):
            portal.call(index_then_give_up, client)
            with runtime.lock(index.namespace, EMBED_LOCK):  # the worker thread let go of the embedding
                assert gated.saw_cancel and len(gated.batches) == 2
            total = sum(len(item_passages(item, embedder)) for item in scan_project(project).items)
            # the structural phase was committed before the embedding: the index exists, partly embedded
            assert total > 4 and index.store().get_meta("last_indexed") is not None
            assert index.pending(index.store())
            result = portal.call(lambda: client.call_tool("index", {"project_path": str(project)}))
    assert not result.is_error and result.structured_content["status"] == "updated"
    assert sum(len(b) for b in gated.batches) == total  # the two batches were not embedded again
