"""One ``graphlore serve`` process for every toolset, through the SDK client over stdio and HTTP: the server
that ``graphlore mcp-config`` registers starts and lists every tool under its ``<toolset>_<tool>`` name
without loading the model; one call of each toolset answers; the client's model is asked (sampling) for
facts and for skills in the same session; progress reaches the client; facts' latest search is per
session; and over HTTP the same answers come back (the tools of one server share one runtime)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import mcp_types as types
import pytest
from anyio.from_thread import start_blocking_portal
from helpers import facts_data, skills_data
from helpers import paths as PATHS
from helpers.backend import env_for
from helpers.mcp import ALL, ONNX_LIB, connect, http_server, loaded_libraries, stdio_params, stdio_server_pid
from mcp import StdioServerParameters

from graphlore.adapters.command import attach
from graphlore.toolsets import TOOLSETS, load_toolset
from graphlore.toolsets.code.query.examples import write_tree

EVERY_TOOL = {f"{name}_{spec.name}" for name in TOOLSETS for spec in attach(load_toolset(name)).on("mcp")}
DOCUMENT = {"name": "Apple buys Beats", "date": "2014-05-28", "text": facts_data.DOCUMENT, "source": "news"}


async def sampling_callback(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    """The fake hosted model of both toolsets' tests: facts' extraction and skills' playbooks."""
    prompt = params.messages[0].content.text
    try:
        answer = facts_data.fake_model_answer(prompt)
    except AssertionError:
        answer = skills_data.fake_model_answer(prompt)
    return types.CreateMessageResult(role="assistant", model="fake-model",
                                     content=types.TextContent(type="text", text=answer))


@pytest.fixture
def folders(tmp_path):
    project = tmp_path / "fm"
    shutil.copytree(PATHS.EXAMPLE_TREE, project)
    return project, write_tree(tmp_path)


def one_of_each(session, project, tree) -> None:
    """A call of every toolset, sampling for two of them, progress and facts' session state."""
    found, _ = session.ok("items_search", {"query": "sync conflicts after working offline",
                                           "project_path": str(project)})
    assert found.total_results > 0
    extracted, _ = session.ok("facts_extract_document", DOCUMENT)
    assert extracted.llm == "mcp-sampling" and extracted.facts == 2
    search, _ = session.ok("facts_search", {"entity": ["Apple Inc"]})
    expanded, _ = session.ok("facts_cat", {"numbers": [1]})
    assert expanded.items[0].fact.id == search.results[0].id
    indexed, _ = session.ok("code_index", {"project_path": str(tree)})
    assert indexed.nodes and session.ok("code_find", {"kind": "microservice", "project_path": str(tree)})[0].total
    created, _ = session.ok("skills_create_skill", {"conversation": skills_data.CONVERSATION})
    assert created.created and created.title == skills_data.EXTRACTED["title"]
    judged, _ = session.ok("skills_search_skills", {"query": "my two-factor code is rejected"})
    assert judged.judge.kind == "llm" and judged.skill.skill_id == created.skill_id
    text = session.error("find", {})
    assert "did you mean 'facts_find' or 'code_find'?" in text


@pytest.mark.slow
def test_one_server_over_stdio_serves_every_toolset(tmp_path, folders):
    project, tree = folders
    progress: list[tuple[float, float | None]] = []
    with start_blocking_portal() as portal, connect(portal, stdio_params(ALL, tmp_path / "home"), ALL,
                                                    sampling_callback=sampling_callback) as session:
        assert set(session.list_tools()) == EVERY_TOOL
        assert ONNX_LIB not in loaded_libraries(stdio_server_pid())  # listing loads no model
        one_of_each(session, project, tree)

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total))

        result = portal.call(lambda: session.client.call_tool(
            "items_index", {"project_path": str(project), "force": True}, progress_callback=on_progress))
        assert not result.is_error and progress and progress[-1][0] == progress[-1][1]


@pytest.mark.slow
def test_one_server_over_http_serves_every_toolset_with_sessions_apart(tmp_path, folders):
    project, tree = folders
    env = {"GRAPHLORE_ALLOWED_ROOTS": str(tmp_path)}
    with start_blocking_portal() as portal, http_server(ALL, tmp_path / "home", tmp_path / "log", env=env) as (url, _):
        with connect(portal, url, ALL, sampling_callback=sampling_callback, mode="legacy") as session:
            one_of_each(session, project, tree)
            with connect(portal, url, ALL, mode="legacy") as other:  # another session: no latest search yet
                text = other.error("facts_cat", {"numbers": [1]})
                assert text.startswith("[invalid_input] no search yet in this session on graph 'default'"), text
            session.ok("facts_cat", {"numbers": [1]})  # the first session still has its own
    assert "graphlore serve items,facts,code,skills: http://127.0.0.1:" in (tmp_path / "log").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("client", ["claude-desktop", "vscode"])
def test_the_server_mcp_config_registers_starts_for_a_real_client(tmp_path, client):
    out = subprocess.run([sys.executable, "-m", "graphlore", "mcp-config", "--client", client, "--read-only"],
                         capture_output=True, text=True, check=True, timeout=60)
    config = json.loads(out.stdout)
    [entry] = (config["mcpServers"] if client == "claude-desktop" else config["servers"]).values()
    env = {**env_for(tmp_path / "home")}
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env)
    with start_blocking_portal() as portal, connect(portal, params, ALL) as session:
        tools = session.list_tools()
    assert tools and set(tools) <= EVERY_TOOL and all(t.annotations.read_only_hint for t in tools.values())
    assert "facts_search" in tools and "facts_add_document" not in tools
