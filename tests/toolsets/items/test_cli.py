"""`graphlore items ...` and `graphlore serve`: JSON equals the tool's output, tables read well, errors exit 2.

Commands run in process through click's CliRunner with GRAPHLORE_HOME pointing at a tmp folder; the
runtime they build shares the session's embedder so the model loads once. One test runs the real
console entry point in a subprocess.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner
from helpers import paths as PATHS
from helpers.backend import env_for, settings_for

from graphlore.adapters.cli import build_cli
from graphlore.config import Settings
from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.items import TOOLSET

EXAMPLE_TREE = PATHS.EXAMPLE_TREE
SPECS = {spec.name: spec for spec in TOOLSET.tools}
COMMANDS = {"search": "search", "index": "index", "check-duplicates": "check_duplicates",
            "similar": "get_similar", "status": "get_index_status"}


@pytest.fixture(scope="module")
def env(tmp_path_factory, embedder):
    """A copied example tree, a tmp data home, and CLI runtimes that reuse the session's embedder."""
    base = tmp_path_factory.mktemp("cli")
    project = base / "feature-management"
    shutil.copytree(EXAMPLE_TREE, project)
    home = base / "home"
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    runner = CliRunner(env=env_for(home))
    yield runner, project, home, embedder, app


def invoke(env, *args: str):
    runner, app = env[0], env[4]
    return runner.invoke(app, list(args), catch_exceptions=False)


def direct(env, tool: str, fields: dict):
    """The tool's own answer for the same request, without the CLI."""
    _, _, home, embedder, _ = env
    spec = SPECS[tool]
    return spec.run(Runtime(settings_for(home), embedder=embedder), parse_request(spec.request, fields)).model_dump(
        mode="json"
    )


def as_json(result) -> dict:
    assert result.exit_code == 0, result.output
    # Work that runs past 5 s reports progress on stderr when it is not a terminal; nothing else goes there.
    assert all(re.fullmatch(r"[a-z-]+: \d+/\d+ [a-z ]+", line) for line in result.stderr.splitlines()), result.stderr
    return json.loads(result.stdout)


# -- --json equals the tool ---------------------------------------------------------------------


def test_index_json_equals_the_tool(env):
    project = str(env[1])
    first = as_json(invoke(env, "items", "index", "-p", project, "--json"))
    SPECS["index"].response.model_validate(first)
    assert first["status"] == "created" and first["items_updated"] == first["items_indexed"] > 0
    cli_out = as_json(invoke(env, "items", "index", "--project-path", project, "--json"))
    tool_out = direct(env, "index", {"project_path": project})
    assert cli_out.pop("duration_ms") >= 0 and tool_out.pop("duration_ms") >= 0
    assert cli_out == tool_out and cli_out["status"] == "unchanged"


def test_status_json_equals_the_tool(env):
    project = str(env[1])
    invoke(env, "items", "index", "-p", project)
    cli_out = as_json(invoke(env, "items", "status", "-p", project, "--json"))
    assert cli_out == direct(env, "get_index_status", {"project_path": project})
    assert cli_out["exists"] and not cli_out["is_stale"]


@pytest.mark.parametrize("flags, fields", [
    ([], {}),
    (["-t", "bug", "--item-types", "feature", "-s", "NEW", "--status", "in_progress", "-n", "3", "--threshold", "0.2",
      "--include-completed"],
     {"item_types": ["bug", "feature"], "status": ["NEW", "in_progress"], "limit": 3, "threshold": 0.2,
      "include_completed": True}),
])
def test_search_json_equals_the_tool(env, flags, fields):
    project = str(env[1])
    query = "changes lost after syncing offline edits"
    cli_out = as_json(invoke(env, "items", "search", query, "-p", project, *flags, "--json"))
    SPECS["search"].response.model_validate(cli_out)
    assert cli_out == direct(env, "search", {"query": query, "project_path": project, **fields})
    assert cli_out["results"], "the example tree has sync bugs; the query should find one"


@pytest.mark.parametrize("flags, fields", [
    ([], {}),
    (["--threshold", "0.6", "-t", "bug"], {"threshold": 0.6, "item_type": "bug"}),
])
def test_check_duplicates_json_equals_the_tool(env, flags, fields):
    project = str(env[1])
    title, description = "Notes edited offline disappear after sync", "The offline device's edits are discarded."
    cli_out = as_json(invoke(env, "items", "check-duplicates", "--title", title, "--description", description,
                             "-p", project, *flags, "--json"))
    assert cli_out == direct(env, "check_duplicates",
                             {"title": title, "description": description, "project_path": project, **fields})
    assert cli_out["threshold_used"] == fields.get("threshold", 0.75)


@pytest.mark.parametrize("flags, fields", [
    ([], {}),
    (["-n", "2", "--exclude-completed"], {"limit": 2, "include_completed": False}),
])
def test_similar_json_equals_the_tool(env, flags, fields):
    project = str(env[1])
    cli_out = as_json(invoke(env, "items", "similar", "FEAT-001", "-p", project, *flags, "--json"))
    assert cli_out == direct(env, "get_similar", {"item_id": "FEAT-001", "project_path": project, **fields})
    assert cli_out["source_item"]["item_id"] == "FEAT-001"
    if "--exclude-completed" in flags:
        assert len(cli_out["similar_items"]) <= 2
        completed = {p.name.split("-")[0] + "-" + p.name.split("-")[1] for p in (env[1] / "completed").iterdir()}
        assert not completed & {s["item_id"] for s in cli_out["similar_items"]}


def test_project_defaults_to_the_current_folder(env):
    cwd = os.getcwd()
    os.chdir(env[1])
    try:
        out = as_json(invoke(env, "items", "status", "--json"))
    finally:
        os.chdir(cwd)
    assert out["project_path"] == os.path.realpath(env[1])


# -- tables -------------------------------------------------------------------------------------


def test_search_table_is_readable(env):
    result = invoke(env, "items", "search", "offline edits lost on sync conflict", "-p", str(env[1]))
    assert result.exit_code == 0 and result.stderr == ""
    header, rule, *rows = result.stdout.splitlines()
    assert header.split() == ["item_id", "similarity_score", "keyword", "item_type", "status", "priority", "title"]
    assert set(rule.replace(" ", "")) == {"-"}
    assert any(line.startswith("BUG-001 ") for line in rows)
    out = direct(env, "search", {"query": "offline edits lost on sync conflict", "project_path": str(env[1])})
    first = out["results"][0]
    assert f"{first['similarity_score']:.3f}" in rows[0] and rows[0].startswith(first["item_id"])
    assert f"{out['total_results']} result{'' if out['total_results'] == 1 else 's'};" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 140


def test_search_table_says_when_nothing_matches(env):
    result = invoke(env, "items", "search", "quarterly tax filing", "-p", str(env[1]), "--threshold", "1")
    assert result.exit_code == 0 and result.stdout.startswith("(no results)")


def test_other_tables_are_readable(env):
    project = str(env[1])
    index = invoke(env, "items", "index", "-p", project).stdout
    assert index.startswith("unchanged: ") and "items indexed" in index and "index: " in index
    status = invoke(env, "items", "status", "-p", project).stdout
    assert f"project: {os.path.realpath(project)}" in status and "stale: no (0 files changed)" in status
    similar = invoke(env, "items", "similar", "BUG-001", "-p", project).stdout
    assert similar.startswith("BUG-001: Offline edits lost") and "relationship" in similar
    dup = invoke(env, "items", "check-duplicates", "--title", "Dark mode", "--description", "A dark theme.",
                 "-p", project).stdout
    assert "recommendation" in dup and "threshold 0.75; likely duplicates: " in dup


def test_the_tables_end_with_the_config_warnings(env):
    """A .agent-config.json read leniently (a broken key elsewhere, as featmgmt's init script writes it) is
    named on the command line too: one ``warning:`` line at the end of check-duplicates, similar and status."""
    project = env[1]
    config = project / ".agent-config.json"
    original = config.read_bytes()
    config.write_text('{"duplicate_similarity_threshold": 0.7,\n "component_detection_keywords": {\n n  "a": [],\\n}\n}\n',
                      encoding="utf-8")
    try:
        outputs = {
            "check-duplicates": invoke(env, "items", "check-duplicates", "--title", "Dark mode", "--description",
                                       "A dark theme.", "-p", str(project)),
            "similar": invoke(env, "items", "similar", "BUG-001", "-p", str(project)),
            "status": invoke(env, "items", "status", "-p", str(project)),
        }
        warning = direct(env, "get_index_status", {"project_path": str(project)})["warnings"]
    finally:
        config.write_bytes(original)
    assert len(warning) == 1 and "read duplicate_similarity_threshold = 0.7 from it" in warning[0]
    for command, result in outputs.items():
        assert result.exit_code == 0 and result.stderr == "", (command, result.output)
        assert result.stdout.rstrip("\n").splitlines()[-1] == f"warning: {warning[0]}", command
    assert "threshold 0.70; likely duplicates: " in outputs["check-duplicates"].stdout
    clean = invoke(env, "items", "status", "-p", str(project)).stdout
    assert "warning:" not in clean  # the file as it was: nothing to say



# -- errors -------------------------------------------------------------------------------------

ARGS = {
    "search": ["sync"],
    "index": [],
    "check-duplicates": ["--title", "x", "--description", ""],
    "similar": ["BUG-001"],
    "status": [],
}


def test_every_items_command_is_covered():
    group = build_cli().commands["items"]
    assert set(ARGS) == set(group.list_commands(None)) == set(COMMANDS)


def assert_error(result, code: str, *parts: str) -> str:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: [{code}] ")
    for part in parts:
        assert part in result.stderr
    return result.stderr


@pytest.mark.parametrize("command", sorted(ARGS))
def test_bad_project_path_exits_2_with_the_expected_layout(env, command, tmp_path):
    missing = invoke(env, "items", command, *ARGS[command], "-p", str(tmp_path / "nope"))
    assert_error(missing, "not_found", "does not exist", "expected a feature-management folder")
    (tmp_path / "README.md").write_text("not a tree")
    wrong = invoke(env, "items", command, *ARGS[command], "-p", str(tmp_path))
    assert_error(wrong, "invalid_input", "is not a feature-management folder", "bugs/")


def test_parent_folder_gets_a_did_you_mean(env):
    result = invoke(env, "items", "status", "-p", str(env[1].parent))
    assert_error(result, "invalid_input", f"did you mean {str(env[1])!r}")


@pytest.mark.parametrize("command", ["search", "check-duplicates"])
@pytest.mark.parametrize("threshold", ["1.5", "-0.1"])
def test_bad_threshold_exits_2(env, command, threshold):
    result = invoke(env, "items", command, *ARGS[command], "-p", str(env[1]), "--threshold", threshold)
    error = assert_error(result, "invalid_input", "--threshold must be at")
    assert "Valid fields" not in error and "field '" not in error  # the CLI's words, not the request's


def test_bad_limit_exits_2(env):
    result = invoke(env, "items", "search", "sync", "-p", str(env[1]), "-n", "0")
    assert_error(result, "invalid_input", "--limit must be at least 1 (got 0)")


def test_unknown_item_id_exits_2_and_names_close_ids(env):
    result = invoke(env, "items", "similar", "FEAT-01", "-p", str(env[1]))
    assert_error(result, "not_found", "'FEAT-01'", "close ids", "FEAT-001")


def test_bad_agent_config_exits_2(env, tmp_path):
    project = tmp_path / "fm"
    shutil.copytree(EXAMPLE_TREE, project)
    (project / ".agent-config.json").write_text('{"duplicate_similarity_threshold": "high"}')
    result = invoke(env, "items", "check-duplicates", *ARGS["check-duplicates"], "-p", str(project))
    assert_error(result, "config_error", ".agent-config.json", "duplicate_similarity_threshold")


def test_console_entry_point_reports_errors_on_stderr(tmp_path):
    """The real process: no traceback, the error line on stderr, exit status 2."""
    proc = subprocess.run(
        [sys.executable, "-m", "graphlore", "items", "status", "-p", str(tmp_path / "nope")],
        capture_output=True, text=True, env={**os.environ, **env_for(tmp_path / "home")}, timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("error: [not_found] ") and "Traceback" not in proc.stderr
    assert not (tmp_path / "home").exists()
