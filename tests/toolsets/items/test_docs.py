"""The agent-facing docs match the code: skills/items/SKILL.md against the request/response models and the CLI.

SKILL.md documents each tool under a ``### `name` `` heading with a parameter table (parameter, type,
default, meaning) and an output table (field, type, meaning); these tests read those tables and
compare them with the pydantic models, so a renamed field, a changed default or a new CLI flag
fails here until the doc says so.
"""

from __future__ import annotations

import re

import click
import pytest
from helpers import paths as PATHS
from helpers.docs import (
    check_parameter_row,
    fields,
    front_matter,
    limit_phrases,
    skill_path,
    table,
    tool_sections,
    usage_lines,
)

from graphlore.adapters.cli import build_cli
from graphlore.errors import GraphloreError
from graphlore.toolsets.items import TOOLSET
from graphlore.toolsets.items import tools as item_tools
from graphlore.toolsets.items.config import ProjectConfig

SKILL = skill_path("items")
README = PATHS.REPO / "README.md"
SPECS = {spec.name: spec for spec in TOOLSET.tools}
#: command name -> tool name, read from the declarations
COMMAND_TOOL = {spec.command: spec.name for spec in TOOLSET.on("cli")}
GROUP = build_cli().commands["items"]


def skill_text() -> str:
    return SKILL.read_text(encoding="utf-8")


# -- SKILL.md: format ---------------------------------------------------------------------------


def test_skill_front_matter_follows_agent_skills():
    meta = front_matter(skill_text())
    assert meta["name"] == SKILL.parent.name
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", meta["name"]) and len(meta["name"]) <= 64
    assert 50 <= len(meta["description"]) <= 1024
    assert "graphlore serve items" in meta["description"]


def test_skill_documents_exactly_the_tools():
    assert set(tool_sections(skill_text())) == set(SPECS)


# -- SKILL.md: parameters -----------------------------------------------------------------------


@pytest.mark.parametrize("tool", sorted(SPECS))
def test_every_parameter_is_documented_with_type_and_default(tool):
    request = SPECS[tool].request
    rows = table(tool_sections(skill_text())[tool], "parameter")
    assert set(rows) == set(request.model_fields), "documented parameters differ from the request model"
    schema = request.model_json_schema()["properties"]
    for name, field in request.model_fields.items():
        check_parameter_row(tool, name, field, schema[name], rows[name])


@pytest.mark.parametrize("tool", sorted(SPECS))
def test_size_limits_are_documented(tool):
    """Every string and list limit of the request is in its type cell."""
    rows = table(tool_sections(skill_text())[tool], "parameter")
    for name, field in SPECS[tool].request.model_fields.items():
        for phrase in limit_phrases(field):
            assert phrase in rows[name][0], f"{tool}.{name}: the type cell must say {phrase!r}"


# -- SKILL.md: outputs --------------------------------------------------------------------------


@pytest.mark.parametrize("tool", sorted(SPECS))
def test_every_response_field_is_documented(tool):
    rows = table(tool_sections(skill_text())[tool], "field")
    assert set(rows) == set(fields(SPECS[tool].response))


def test_errors_scoring_and_constants_are_documented():
    text = " ".join(skill_text().split())
    codes = {cls.code for cls in GraphloreError.__subclasses__()}
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", skill_text().split("## Errors", 1)[1], flags=re.MULTILINE))
    assert codes <= documented
    assert "cosine similarity between the query embedding and the item's best-matching passage" in text
    assert "clipped to [0, 1]" in text and "BM25" in text
    assert f"threshold - {item_tools.RELATED_BAND:g}" in text
    assert f"at most {item_tools.RANKING.max_duplicates} candidates" in text.replace("Returns at most", "at most")
    assert f"else {ProjectConfig().duplicate_similarity_threshold:g}" in text


# -- SKILL.md: CLI ------------------------------------------------------------------------------


def cli_line(command: str) -> str:
    lines = usage_lines(skill_text(), "items", command)
    assert len(lines) == 1, f"SKILL.md needs exactly one usage line for `graphlore items {command}`"
    return lines[0]


def test_every_items_command_is_documented():
    assert set(GROUP.list_commands(None)) == set(COMMAND_TOOL)
    for command in COMMAND_TOOL:
        cli_line(command)


@pytest.mark.parametrize("command", sorted(COMMAND_TOOL))
def test_cli_usage_line_lists_exactly_the_commands_options(command):
    line = cli_line(command)
    assert line.startswith(f"| `{COMMAND_TOOL[command]}` |"), "the usage line names the tool it runs"
    click_command = GROUP.get_command(None, command)
    opts = {o for p in click_command.params if isinstance(p, click.Option) for o in (*p.opts, *p.secondary_opts)}
    usage = line.split("`graphlore items", 1)[1]
    shown = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", usage))
    assert shown == opts
    for param in click_command.params:
        if isinstance(param, click.Argument):
            assert param.name.upper() in usage


def test_serve_options_are_documented():
    text = skill_text()
    for param in build_cli().commands["serve"].params:
        if isinstance(param, click.Option):
            assert all(opt in text for opt in param.opts), param.opts
            if not param.is_flag and isinstance(param.default, str | int):  # a valued option's default
                assert f"`{param.default}`" in text, f"default of {param.opts[0]}"
            for choice in getattr(param.type, "choices", []):
                assert f"`{choice}`" in text


# -- README -------------------------------------------------------------------------------------


def test_readme_says_how_to_serve_and_register():
    text = README.read_text(encoding="utf-8")
    assert "graphlore serve items" in text
    assert "claude mcp add" in text
    assert '"mcpServers"' in text
    assert "skills/items/SKILL.md" in text
