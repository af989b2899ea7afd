"""skills/code/SKILL.md matches the code: every parameter, output field, filter field, edge key, role,
capability, resolve reason and CLI flag that exists is documented, and nothing else is."""

from __future__ import annotations

import re

import click
import pytest
from helpers.docs import (
    check_parameter_row,
    fields,
    front_matter,
    skill_path,
    table,
    tool_sections,
    usage_lines,
)

from graphlore.adapters.cli import build_cli
from graphlore.errors import GraphloreError
from graphlore.toolsets.code import TOOLSET
from graphlore.toolsets.code.languages.registry import NAMES as LANGUAGES
from graphlore.toolsets.code.model import (
    CAPABILITIES,
    EDGE_TYPES,
    RESOLUTIONS,
    ROLES,
    SYMBOL_KINDS,
    UNRESOLVED_REASONS,
)
from graphlore.toolsets.code.query import models, tools
from graphlore.toolsets.code.query.edge_keys import EDGE_KEYS, REVERSED
from graphlore.toolsets.code.query.filters import FIELDS

SKILL = skill_path("code")
SPECS = {spec.name: spec for spec in TOOLSET.on("mcp")}
COMMAND_TOOL = {spec.command: spec.name for spec in TOOLSET.on("cli")}
GROUP = build_cli().commands["code"]
#: documented once, in their own tables
SHARED = frozenset({models.IndexStatus, models.NodeRef})
#: enums too long for a type cell are documented in a section the cell points to
LONG_ENUMS = {("neighbors", "edge_types"): "Edge keys", ("paths", "edge_types"): "Edge keys",
              ("impact", "edge_types"): "Edge keys"}


def text() -> str:
    return SKILL.read_text(encoding="utf-8")


def section(title: str) -> str:
    """The text under the ``##`` / ``###`` heading that starts with ``title``, up to the next such heading."""
    match = re.search(rf"^#{{2,3}} {re.escape(title)}\b.*$", text(), flags=re.MULTILINE)
    assert match, f"no section {title!r}"
    return re.split(r"^#{2,3} ", text()[match.end():], maxsplit=1, flags=re.MULTILINE)[0]


def test_front_matter_and_one_section_per_tool():
    meta = front_matter(text())
    assert meta["name"] == "code" and 50 <= len(meta["description"]) <= 1024
    assert "graphlore serve code" in meta["description"]
    assert set(tool_sections(text())) == set(SPECS)


@pytest.mark.parametrize("tool", sorted(SPECS))
def test_every_parameter_is_documented_with_type_and_default(tool):
    request = SPECS[tool].request
    rows = table(tool_sections(text())[tool], "parameter")
    assert set(rows) == set(request.model_fields)
    schema = request.model_json_schema()["properties"]
    for name, field in request.model_fields.items():
        long_enum = LONG_ENUMS.get((tool, name))
        if long_enum:
            assert long_enum in rows[name][0] + rows[name][2], f"{tool}.{name} must point at {long_enum!r}"
        check_parameter_row(tool, name, field, schema[name], rows[name], section(long_enum) if long_enum else "")


@pytest.mark.parametrize("tool", sorted(SPECS))
def test_every_response_field_is_documented(tool):
    rows = table(tool_sections(text())[tool], "field")
    assert set(rows) == set(fields(SPECS[tool].response, stop=SHARED))


def test_shared_objects_are_documented_once():
    assert set(table(text(), "field")) >= set(models.IndexStatus.model_fields)  # the first field table
    assert set(table(section("Shared objects"), "field")) == set(models.NodeRef.model_fields)


def test_filters_table_is_exactly_the_filter_fields():
    rows = table(section("Filters"), "kind")
    documented = {}
    for line in section("Filters").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 4:
            documented[(cells[0].strip("`"), cells[1].strip("`"))] = cells[2]
    assert rows and set(documented) == {(kind, name) for kind, fs in FIELDS.items() for name in fs}
    for (kind, name), values in documented.items():
        field = FIELDS[kind][name]
        if field.boolean:
            assert values == "boolean"
        elif field.values is None:
            assert values == "string"
        elif not field.exclude:
            assert re.findall(r"`([^`]+)`", values) == list(field.values), (kind, name)


def test_vocabularies_are_documented():
    graph = section("The graph")
    for value in (*ROLES, *CAPABILITIES, *LANGUAGES, *SYMBOL_KINDS, *EDGE_TYPES, *UNRESOLVED_REASONS):
        assert f"`{value}`" in graph, value
    for resolution, confidence in RESOLUTIONS.items():
        assert re.search(rf"^\| `{resolution}`.*\| {confidence:g} \|$", graph, flags=re.MULTILINE), resolution
    keys = section("Edge keys")
    assert set(re.findall(r"`([A-Z_.]+)`", keys)) == set(EDGE_KEYS) and set(REVERSED) <= set(EDGE_KEYS)


def test_resolve_reasons_and_scores_are_documented():
    resolve = tool_sections(text())["resolve"]
    assert "`id`" in resolve
    rows = table(resolve, "reason")
    assert list(rows) == ["id", *(reason for reason, _, _ in tools.TIERS)]
    for reason, _, score in tools.TIERS:
        assert rows[reason][1] == f"{score:g}", reason
    assert f"at most {tools.MAX_CANDIDATES}" in resolve


def test_errors_are_documented():
    codes = {cls.code for cls in GraphloreError.__subclasses__()}
    assert codes <= set(re.findall(r"^\| `([a-z_]+)` \|", section("Errors"), flags=re.MULTILINE))


def cli_line(command: str) -> str:
    lines = usage_lines(text(), "code", command)
    assert len(lines) == 1, f"SKILL.md needs exactly one usage line for `graphlore code {command}`"
    return lines[0]


@pytest.mark.parametrize("command", sorted(COMMAND_TOOL))
def test_cli_usage_line_lists_exactly_the_commands_options(command):
    line = cli_line(command)
    assert line.startswith(f"| `{COMMAND_TOOL[command]}` |")
    click_command = GROUP.get_command(None, command)
    opts = {o for p in click_command.params if isinstance(p, click.Option) for o in (*p.opts, *p.secondary_opts)}
    usage = line.split("`graphlore code", 1)[1]
    assert set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", usage)) == opts
    for param in click_command.params:
        if isinstance(param, click.Argument):
            assert (param.metavar or param.name.upper()) in usage


def test_every_command_is_documented_and_serve_options_too():
    assert set(GROUP.list_commands(None)) == set(COMMAND_TOOL)
    for param in build_cli().commands["serve"].params:
        if isinstance(param, click.Option):
            assert all(opt in text() for opt in param.opts)
            if not param.is_flag and isinstance(param.default, str | int):  # a valued option's default
                assert f"`{param.default}`" in text()
            for choice in getattr(param.type, "choices", []):
                assert f"`{choice}`" in text()
