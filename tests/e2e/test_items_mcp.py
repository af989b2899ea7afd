"""The items tools through the official MCP SDK client, against a real `graphlore serve items` process.

One server process per transport (stdio, streamable HTTP) is shared by the module. The client lives in
a background event loop (an anyio blocking portal), so the tests themselves stay plain functions.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from helpers import paths as PATHS
from helpers.backend import BACKEND, env_for
from helpers.mcp import (
    ONNX_LIB,
    error_text,
    free_port,
    loaded_libraries,
    serve_command,
    stdio_server_pid,
    stop,
    wait_for_port,
)
from mcp import Client, StdioServerParameters

from graphlore.toolsets.items import TOOLSET

EXAMPLE_TREE = PATHS.EXAMPLE_TREE
SPECS = {spec.name: spec for spec in TOOLSET.tools}
SERVE = serve_command("items")


def copy_example(dest: Path) -> Path:
    shutil.copytree(EXAMPLE_TREE, dest)
    return dest


def item_count(root: Path) -> int:
    """Item folders in the copied example tree, counted from disk (agent_runs/ is never an item)."""
    dirs = [d for d in root.glob("*/*") if d.is_dir() and d.parent.name != "agent_runs"]
    return len([d for d in dirs if d.name.split("-")[0] in {"BUG", "FEAT", "ACTION", "INQ"}])


class Session:
    """A connected SDK client plus what the fixture measured before any tool call."""

    def __init__(self, transport: str, portal, client: Client, pid: int, project: Path, home: Path):
        self.transport, self.portal, self.client, self.pid = transport, portal, client, pid
        self.project, self.home = project, home
        self.tools = {t.name: t for t in portal.call(client.list_tools).tools}
        self.onnx_loaded_after_list = ONNX_LIB in loaded_libraries(pid)
        self.home_touched_after_list = (home / "items").exists()

    def call(self, name: str, arguments: dict[str, Any]):
        return self.portal.call(lambda: self.client.call_tool(name, arguments))

    def ok(self, name: str, arguments: dict[str, Any]):
        """Call a tool that must succeed; return its structured content parsed by the response model."""
        result = self.call(name, arguments)
        assert not result.is_error, f"{name} failed: {error_text(result)}"
        assert result.structured_content is not None
        # The text block carries the same JSON, for clients that ignore structuredContent.
        assert json.loads(result.content[0].text) == result.structured_content
        return SPECS[name].response.model_validate(result.structured_content)

    def error(self, name: str, arguments: dict[str, Any]) -> str:
        result = self.call(name, arguments)
        assert result.is_error, f"{name} should have failed: {result.structured_content}"
        error = result.structured_content["error"]  # the same as the text, as an object
        assert error_text(result) == f"[{error['code']}] {error['message']}"
        return error_text(result)


def _stdio(portal, project: Path, home: Path, log) -> Iterator[Session]:
    # the server imports graphlore from this checkout (PYTHONPATH), as the facts harness does
    params = StdioServerParameters(command=SERVE[0], args=SERVE[1:], env={
        **env_for(home), "PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    client = Client(params, read_timeout_seconds=60)
    with portal.wrap_async_context_manager(client):
        yield Session("stdio", portal, client, stdio_server_pid(), project, home)


def _http(portal, project: Path, home: Path, log: Path) -> Iterator[Session]:
    port = free_port()
    # Over HTTP the server reads only under its allowed roots: here every test's temporary folder.
    env = {**os.environ, **env_for(home), "GRAPHLORE_ALLOWED_ROOTS": str(project.parents[1])}
    with log.open("wb") as err:
        proc = subprocess.Popen([*SERVE, "--transport", "http", "--port", str(port)], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    try:
        wait_for_port(port, proc, log)
        client = Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=60)
        with portal.wrap_async_context_manager(client):
            yield Session("http", portal, client, proc.pid, project, home)
    finally:
        stop(proc)


@pytest.fixture(scope="module", params=["stdio", "http"])
def mcp(request, tmp_path_factory) -> Iterator[Session]:
    """A fresh server (own data home, own copy of the example tree) per transport, shared by the module."""
    base = tmp_path_factory.mktemp(request.param)
    project = copy_example(base / "feature-management")
    home = base / "home"
    connect = _stdio if request.param == "stdio" else _http
    with start_blocking_portal() as portal:
        yield from connect(portal, project, home, base / "server.log")


@pytest.fixture(scope="module")
def indexed(mcp: Session) -> Session:
    """The server after one explicit `index` call on its project."""
    mcp.ok("index", {"project_path": str(mcp.project)})
    return mcp


# -- tools/list ---------------------------------------------------------------------------------


def test_tools_list_names_the_five_tools_with_strict_schemas(mcp: Session):
    assert set(mcp.tools) == {"search", "index", "check_duplicates", "get_similar", "get_index_status"}
    for name, tool in mcp.tools.items():
        spec = SPECS[name]
        assert tool.input_schema == spec.request.model_json_schema()
        assert tool.input_schema["additionalProperties"] is False
        assert set(tool.input_schema["properties"]) == set(spec.request.model_fields)
        assert "project_path" in tool.input_schema["required"]
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert set(tool.output_schema["anyOf"][0]["properties"]) == set(spec.response.model_fields)
        assert tool.description and len(tool.description) > 80
        # Every tool but get_index_status may build or refresh the index, so only it is read-only.
        assert tool.annotations.read_only_hint is (name == "get_index_status")
        assert tool.annotations.idempotent_hint is True


def test_tools_list_answers_without_loading_the_model(mcp: Session):
    assert not mcp.onnx_loaded_after_list, "onnxruntime was imported before any tool call"
    assert not mcp.home_touched_after_list, "tools/list created an index"
    # The same check does see the model once a tool has embedded something.
    mcp.ok("search", {"query": "sync conflict", "project_path": str(mcp.project)})
    assert ONNX_LIB in loaded_libraries(mcp.pid)


# -- every tool succeeds -----------------------------------------------------------------------


def test_index_then_status(indexed: Session):
    project = str(indexed.project)
    again = indexed.ok("index", {"project_path": project})
    assert again.status == "unchanged" and again.items_updated == 0 and again.items_removed == 0
    assert again.items_indexed == item_count(indexed.project)
    assert again.project_path == os.path.realpath(project)
    if BACKEND == "postgres":  # the index is a namespace of the database
        assert "(namespace items/" in again.index_location
    else:
        assert Path(again.index_location).is_relative_to(indexed.home)
    status = indexed.ok("get_index_status", {"project_path": project})
    assert status.exists and not status.is_stale and status.stale_files == []
    assert status.items_indexed == item_count(indexed.project)
    assert status.index_location == again.index_location and status.index_size_bytes > 0
    assert status.last_indexed is not None


def test_search_finds_the_matching_item(indexed: Session):
    out = indexed.ok("search", {"query": "edits made offline are lost when two devices sync",
                                "project_path": str(indexed.project), "limit": 3, "threshold": 0.2})
    assert out.query.startswith("edits made offline")
    assert 1 <= out.total_results == len(out.results) <= 3
    assert "BUG-001" in [r.item_id for r in out.results]
    assert all(r.similarity_score >= 0.2 for r in out.results)
    assert all(not r.path.startswith("completed/") for r in out.results)
    assert out.index_status.items_indexed == item_count(indexed.project) and not out.index_status.is_stale


def test_search_filters_apply(indexed: Session):
    out = indexed.ok("search", {"query": "notes", "project_path": str(indexed.project), "item_types": ["feature"],
                                "include_completed": True, "threshold": 0.0, "limit": 50})
    assert out.results and {r.item_type for r in out.results} == {"feature"}
    assert any(r.path.startswith("completed/") for r in out.results)


def test_check_duplicates_flags_an_existing_item(indexed: Session):
    source = json.loads(next(indexed.project.glob("bugs/BUG-001-*/bug_report.json")).read_text())
    out = indexed.ok("check_duplicates", {"title": source["title"], "description": source["description"],
                                          "project_path": str(indexed.project)})
    config = json.loads((indexed.project / ".agent-config.json").read_text())
    assert out.threshold_used == config["duplicate_similarity_threshold"]
    assert out.has_likely_duplicates
    assert out.potential_duplicates[0].item_id == "BUG-001"
    assert out.potential_duplicates[0].recommendation == "LIKELY_DUPLICATE"
    for candidate in out.potential_duplicates:
        assert candidate.similarity_score >= out.threshold_used - 0.15
    strict = indexed.ok("check_duplicates", {"title": source["title"], "description": source["description"],
                                             "project_path": str(indexed.project), "threshold": 0.99,
                                             "item_type": "feature"})
    assert strict.threshold_used == 0.99
    assert all(c.item_id.startswith("FEAT-") for c in strict.potential_duplicates)


def test_get_similar_lists_other_items(indexed: Session):
    out = indexed.ok("get_similar", {"item_id": "BUG-001", "project_path": str(indexed.project), "limit": 4})
    assert out.source_item.item_id == "BUG-001"
    assert out.source_item.title.startswith("Offline edits lost")
    assert 1 <= len(out.similar_items) <= 4
    assert "BUG-001" not in [s.item_id for s in out.similar_items]


def test_get_similar_unknown_id_names_close_ids(indexed: Session):
    text = indexed.error("get_similar", {"item_id": "BUG-0001", "project_path": str(indexed.project)})
    assert "[not_found]" in text and "BUG-0001" in text
    assert "close ids" in text and "BUG-001" in text


# -- bad input: every tool, over both transports -------------------------------------------------

#: A valid call per tool, and one field given a value of the wrong type.
VALID = {
    "search": ({"query": "sync"}, ("limit", "ten")),
    "index": ({}, ("force", ["yes"])),
    "check_duplicates": ({"title": "Sync loses edits", "description": ""}, ("threshold", "high")),
    "get_similar": ({"item_id": "BUG-001"}, ("limit", "five")),
    "get_index_status": ({}, ("project_path", 42)),
}


def test_every_tool_is_covered():
    assert set(VALID) == set(SPECS)


@pytest.mark.parametrize("tool", sorted(VALID))
def test_unknown_argument_is_rejected_with_valid_fields(mcp: Session, tool: str):
    args = {**VALID[tool][0], "project_path": str(mcp.project), "projectPath": "typo"}
    text = mcp.error(tool, args)
    assert text.startswith("[invalid_input] ") and "unknown field 'projectPath'" in text  # nothing before it
    assert "Valid fields:" in text and "project_path" in text
    assert text.endswith("(? = optional).")


@pytest.mark.parametrize("tool", sorted(VALID))
def test_wrong_type_is_rejected_with_valid_fields(mcp: Session, tool: str):
    field, bad = VALID[tool][1]
    args = {**VALID[tool][0], "project_path": str(mcp.project), field: bad}
    text = mcp.error(tool, args)
    assert "[invalid_input]" in text and f"field '{field}'" in text and "Valid fields:" in text
    # a short scalar is echoed back; a list or an object is not (its repr is Python's, not the caller's)
    assert (repr(bad) in text) is not isinstance(bad, list | dict)
    assert "Valid fields:" in text


@pytest.mark.parametrize("tool", sorted(VALID))
def test_missing_project_says_what_layout_is_expected(mcp: Session, tool: str, tmp_path: Path):
    text = mcp.error(tool, {**VALID[tool][0], "project_path": str(tmp_path / "nowhere")})
    assert "[not_found]" in text and "does not exist" in text
    assert "expected a feature-management folder" in text and "bugs/BUG-001-" in text


@pytest.mark.parametrize("tool", sorted(VALID))
def test_folder_that_is_not_feature_management_says_what_layout_is_expected(mcp: Session, tool: str, tmp_path):
    (tmp_path / "notes.txt").write_text("not items")
    (tmp_path / "src").mkdir()
    text = mcp.error(tool, {**VALID[tool][0], "project_path": str(tmp_path)})
    assert "[invalid_input]" in text and "is not a feature-management folder" in text
    assert "bugs/, features/, human-actions/, inquiries/" in text


def test_missing_required_argument_is_named(mcp: Session):
    text = mcp.error("search", {"project_path": str(mcp.project)})
    assert "[invalid_input]" in text and "missing required field 'query'" in text and "Valid fields:" in text


def test_out_of_range_threshold_is_rejected(mcp: Session):
    text = mcp.error("search", {"query": "x", "project_path": str(mcp.project), "threshold": 1.5})
    assert "[invalid_input]" in text and "field 'threshold'" in text


# -- a changed tree is picked up -----------------------------------------------------------------


def test_edited_item_makes_the_index_stale_and_search_refreshes_it(mcp: Session, tmp_path: Path):
    project = copy_example(tmp_path / "fm")
    mcp.ok("index", {"project_path": str(project)})
    report = next(project.glob("bugs/BUG-002-*/bug_report.json"))
    data = json.loads(report.read_text())
    data["title"] = "Pasting emoji into a checklist freezes the editor"
    report.write_text(json.dumps(data))
    os.utime(report, (time.time() + 5, time.time() + 5))
    status = mcp.ok("get_index_status", {"project_path": str(project)})
    assert status.is_stale and status.stale_files == [str(report.relative_to(project))]
    out = mcp.ok("search", {"query": "emoji checklist freezes editor", "project_path": str(project),
                            "limit": 1, "threshold": 0.0})
    assert [(r.item_id, r.title) for r in out.results] == [("BUG-002", data["title"])]
    assert not mcp.ok("get_index_status", {"project_path": str(project)}).is_stale


def test_a_long_index_call_sends_progress_in_passages(mcp: Session):
    """A client that asks for progress gets notifications while the index embeds: counts of passages, rising
    to the total the answer's index then reports."""
    project = copy_example(mcp.project.parent / f"progress-{mcp.transport}")
    for body in project.glob("*/*/PROMPT.md"):  # text this server has not embedded (its vector cache) yet
        body.write_text(body.read_text(encoding="utf-8") + f"\nChecked for progress over {mcp.transport}.\n")
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    result = mcp.portal.call(lambda: mcp.client.call_tool("index", {"project_path": str(project)},
                                                          progress_callback=on_progress))
    assert not result.is_error, error_text(result)
    status = mcp.ok("get_index_status", {"project_path": str(project)})
    assert seen and seen[-1] == (status.passages_total, status.passages_total) and not status.partial
    assert [p for p, _ in seen] == sorted(p for p, _ in seen)
