"""`graphlore code ...`: the same answers as the tools (--json), readable text, one error line and exit 2."""

from __future__ import annotations

import json
import shlex
import shutil

import pytest
from click.testing import CliRunner
from helpers import backend
from helpers.code_graph import FIXTURES

from graphlore.adapters.cli import build_cli
from graphlore.config import Settings
from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code import TOOLSET


@pytest.fixture(scope="module")
def env(tmp_path_factory, embedder):
    base = tmp_path_factory.mktemp("code-cli")
    project = base / "java-shop"
    shutil.copytree(FIXTURES / "java-shop", project)
    home = base / "home"
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    runner = CliRunner(env=backend.env_for(home))
    result = runner.invoke(app, ["code", "index", "-p", str(project), "--no-embed"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return runner, app, project, home, embedder


def invoke(env, *args: str):
    runner, app = env[0], env[1]
    return runner.invoke(app, ["code", *args], catch_exceptions=False)


def direct(env, tool: str, fields: dict) -> dict:
    _, _, project, home, embedder = env
    spec = TOOLSET.tool(tool)
    runtime = Runtime(backend.settings_for(home), embedder=embedder)
    try:
        answer = spec.run(runtime, parse_request(spec.request, {"project_path": str(project), **fields}))
    finally:
        runtime.close()
    return answer.model_dump(mode="json")


def as_json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_find_json_is_the_tools_answer_and_text_has_ids(env):
    project = str(env[2])
    out = as_json(invoke(env, "find", "symbol", "-p", project, "-f", '{"role": "SERVICE"}', "-n", "3", "--json"))
    assert out == direct(env, "find", {"kind": "symbol", "filter": {"role": "SERVICE"}, "limit": 3})
    assert out["total"] > 3 and out["has_more"]
    text = invoke(env, "find", "symbol", "-p", project, "-f", '{"role": "SERVICE"}', "-n", "3").stdout
    assert out["results"][0]["id"] in text and "[index:" in text


def test_neighbors_takes_repeated_edge_keys_and_describe_an_fqn(env):
    project = str(env[2])
    impl = "com.shop.orders.service.OrderServiceImpl"
    described = as_json(invoke(env, "describe", "--fqn", impl, "-p", project, "--json"))
    node_id = described["node"]["id"]
    out = as_json(invoke(env, "neighbors", node_id, "-p", project, "-e", "DECLARES.CALLS", "-e", "INJECTS",
                         "--include-unresolved", "--json"))
    assert set(out["counts"]) == {"DECLARES.CALLS", "INJECTS"} and out["unresolved_total"] > 0
    assert out == direct(env, "neighbors", {"id": node_id, "edge_types": ["DECLARES.CALLS", "INJECTS"],
                                            "include_unresolved": True})


def test_errors_are_one_line_and_exit_2(env):
    project = str(env[2])
    result = invoke(env, "find", "symbol", "-p", project, "-f", '{"kind": "symbol"}')
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: [invalid_input] 'kind' is not a filter field: it goes beside the filter, as KIND")
    result = invoke(env, "find", "widget", "-p", project)
    assert result.exit_code == 2 and "'widget' is not one of 'symbol', 'microservice', 'module', 'route'" in result.stderr
    result = invoke(env, "resolve", "Order*", "-p", project)
    assert result.exit_code == 2 and "not a pattern" in result.stderr
    result = invoke(env, "neighbors", "sym_nope", "-p", project)
    assert result.exit_code == 2 and result.stderr.startswith("error: [not_found]")


def test_status_and_unchanged_index(env):
    project = str(env[2])
    status = as_json(invoke(env, "status", "-p", project, "--json"))
    assert status["exists"] and {s["name"] for s in status["microservices"]} == {"orders", "billing-svc", "shop-common"}
    again = as_json(invoke(env, "index", "-p", project, "--no-embed", "--json"))
    assert again["status"] == "unchanged" and again["nodes_written"] == 0


def test_help_says_a_list_flag_takes_one_value_each_and_paths_impact_source_answer_like_the_tools(env):
    for command in ("neighbors", "paths", "impact"):
        text = " ".join(invoke(env, command, "--help").output.split())
        assert "One value per -e: repeat -e for several." in text, command
    project = str(env[2])
    impl = as_json(invoke(env, "describe", "--fqn", "com.shop.orders.service.OrderServiceImpl", "-p", project,
                          "--source", "--json"))
    assert impl["source"]["text"].splitlines()[0].startswith(f"{impl['source']['first_line']}| ")
    node_id = impl["node"]["id"]
    out = as_json(invoke(env, "impact", node_id, "-p", project, "--depth", "3", "--json"))
    assert out == direct(env, "impact", {"id": node_id, "depth": 3})
    text = invoke(env, "paths", node_id, node_id, "-p", project, "-e", "EXTENDS", "--max-depth", "2").output
    assert text.startswith("0 path(s) from com.shop.orders.service.OrderServiceImpl") and "note: no path" in text
    assert "within 2 hops (calls)" in text.splitlines()[0]   # max_depth counts calls, as the tool's note says


#: Command lines each refused for a reason a message states, and the flags that message must name.
REFUSED = [
    (("search", "payment", "--filter", '{"role": "SERVICE"}'), ["--filter", "--kind"]),
    (("find", "symbol", "--filter", '{"kind": "symbol"}'), ["KIND"]),
    (("find", "symbol", "--filter", "{role"), ["--filter"]),
    (("describe",), ["ID", "--fqn"]),
    (("describe", "--fqn", "com.nowhere.Nothing"), ["--fqn"]),
    (("resolve", "com.shop.*"), []),
]
#: How a message spells request fields over MCP: never on the command line.
MCP_DIALECT = r"\b(kind|filter|query|fqn|id|project_path|limit)=|\b(find|search|resolve)\(|field '"


@pytest.mark.parametrize(("args", "flags"), REFUSED, ids=[" ".join(a[:2]) for a, _ in REFUSED])
def test_every_refusal_on_the_command_line_names_flags_not_fields(env, args, flags):
    import re

    out = invoke(env, *args, "-p", str(env[2]))
    assert out.exit_code == 2 and out.stderr.startswith("error: [")
    message = out.stderr
    for flag in flags:
        assert re.search(rf"(?<![\w-]){re.escape(flag)}\b", message), (flag, message)
    assert not re.search(MCP_DIALECT, message), message
    assert not re.search(r"(?<![-\w'])(filter|fqn) (needs|is|must)", message), message  # a bare field name


def _run_verbatim(env, line: str):
    """Run a command a note prints, as a user would paste it (``graphlore code ...``)."""
    words = shlex.split(line)
    assert words[:2] == ["graphlore", "code"], line
    return invoke(env, *words[2:])


@pytest.mark.slow
def test_the_commands_the_notes_print_run_verbatim(env, tmp_path):
    """`status` of a folder not indexed yet, and a search ranked by BM25 alone, each print a command: both run."""
    fresh = tmp_path / "a shop"  # a space: the printed path must be quoted
    shutil.copytree(env[2], fresh)
    text = invoke(env, "status", "-p", str(fresh)).stdout
    hint = text.split("run: ", 1)[1].strip()
    assert _run_verbatim(env, hint).exit_code == 0
    bm25 = tmp_path / "bm25 shop"
    shutil.copytree(env[2], bm25)
    assert invoke(env, "index", "-p", str(bm25), "--no-embed").exit_code == 0
    note = as_json(invoke(env, "search", "order total", "-p", str(bm25), "--json"))["note"]
    hint = note.split("(CLI: ", 1)[1].rsplit(")", 1)[0]
    assert _run_verbatim(env, hint).exit_code == 0
    assert as_json(invoke(env, "search", "order total", "-p", str(bm25), "--json"))["note"] is None
