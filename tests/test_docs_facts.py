"""skills/facts/ matches the code: every documented field and flag exists, every existing one is documented.

SKILL.md documents each tool under ``### `name` `` with a parameter table (nested fields as
``parent[].child``) and an output table; facts inside outputs are documented once, under "The fact
object". The CLI table has one usage line per tool listing exactly the command's flags.
references/examples.md: every MCP call validates against the request models and every CLI line parses.
references/troubleshooting.md: every refused form is listed, and each example of one is refused.
"""

from __future__ import annotations

import json
import re
import shlex
import typing
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from graphsift import cli, cli_facts
from graphsift.contract import parse_request
from graphsift.errors import GraphsiftError, InvalidInput
from graphsift.toolsets.facts import TOOLSET, extract, sessions, tools, write
from graphsift.toolsets.facts import models as M
from graphsift.toolsets.facts import resolve as R

REPO = Path(__file__).resolve().parents[1]
SKILL = REPO / "skills" / "facts" / "SKILL.md"
EXAMPLES = SKILL.parent / "references" / "examples.md"
TROUBLE = SKILL.parent / "references" / "troubleshooting.md"
SPECS = {spec.name: spec for spec in TOOLSET.tools}
COMMAND_TOOL = {"find": "find", "search": "search", "cat": "cat", "info": "info", "ls": "ls", "stats": "stats",
                "ingest": "add_document", "extract": "extract_document"}
SHARED = {M.FactOut: "fact object"}


def text(path: Path = SKILL) -> str:
    return path.read_text(encoding="utf-8")


def sections() -> dict[str, str]:
    parts = re.split(r"^### `([a-z_]+)`\s*$", text(), flags=re.MULTILINE)
    found = dict(zip(parts[1::2], parts[2::2], strict=True))
    return {name: re.split(r"^#{1,3} ", body, maxsplit=1, flags=re.MULTILINE)[0] for name, body in found.items()}


def table(section: str, first_header: str) -> dict[str, list[str]]:
    lines = section.splitlines()
    for start, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_header:
            rows = {}
            for row in lines[start + 2:]:
                if not row.startswith("|"):
                    break
                cells = [c.strip() for c in row.strip().strip("|").split("|")]
                name = re.fullmatch(r"`([^`]+)`", cells[0])
                assert name, f"first cell of {row!r} is not a backticked name"
                rows[name.group(1)] = cells[1:]
            return rows
    raise AssertionError(f"no table with a {first_header!r} column in:\n{section[:300]}")


def inner_model(annotation) -> type[BaseModel] | None:
    if typing.get_origin(annotation) is list:
        (annotation,) = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, type(int | None)):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = args[0] if len(args) == 1 else annotation
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def fields(model: type[BaseModel], prefix: str = "", stop: bool = True) -> dict[str, object]:
    """Every field by its wire name, nested ones as ``parent.child`` / ``parent[].child``; shared models stop."""
    out = {}
    for name, field in model.model_fields.items():
        key = prefix + (field.alias or name)
        out[key] = field
        sub = inner_model(field.annotation)
        if sub is not None and not (stop and sub in SHARED):
            sep = "[]." if typing.get_origin(field.annotation) is list else "."
            out |= fields(sub, key + sep, stop)
    return out


# -- format -------------------------------------------------------------------------------------------


def test_front_matter_follows_agent_skills():
    match = re.match(r"\A---\nname: (.+)\ndescription: (.+)\n---\n", text())
    assert match and match.group(1) == "facts"
    assert 50 <= len(match.group(2)) <= 1024 and "graphsift serve facts" in match.group(2)


def test_exactly_the_tools_are_documented():
    assert set(sections()) == set(SPECS)


# -- parameters ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", sorted(SPECS))
def test_every_parameter_is_documented_with_its_default(tool):
    request = SPECS[tool].request
    rows = table(sections()[tool], "parameter")
    documented = fields(request)
    assert set(rows) == set(documented), "documented parameters differ from the request model"
    for key, field in documented.items():
        type_cell, default_cell, meaning = rows[key]
        assert type_cell and (meaning or "[]." in key), f"{tool}.{key} needs a type and a meaning"
        if field.is_required():
            assert default_cell == "required", f"{tool}.{key} is required"
        else:
            shown = re.fullmatch(r"`([^`]+)`", default_cell)
            assert shown, f"{tool}.{key}: default cell {default_cell!r}"
            assert json.loads(shown.group(1)) == field.get_default(call_default_factory=True), f"{tool}.{key} default"


@pytest.mark.parametrize("tool", sorted(SPECS))
def test_parameter_types_ranges_and_choices_match_the_schema(tool):
    request = SPECS[tool].request
    rows = table(sections()[tool], "parameter")
    schema = request.model_json_schema()
    for name, prop in schema["properties"].items():
        cell = rows[name][0]
        options = prop.get("anyOf", [prop])
        types = {o.get("type") for o in options}
        assert ("null" in types) == ("null" in cell), f"{tool}.{name}: nullability"
        for option in options:
            for value in option.get("enum", []):
                assert f"`{value}`" in cell, f"{tool}.{name} accepts {value!r}"
            if "minimum" in option and "maximum" in option:
                assert f"{option['minimum']:g} to {option['maximum']:g}" in cell, f"{tool}.{name} range"
            if option.get("minItems") == 1:
                assert "at least one" in cell, f"{tool}.{name} needs at least one element"
            if "maxItems" in option:
                assert f"at most {option['maxItems']}" in cell, f"{tool}.{name} holds at most {option['maxItems']}"
            if option.get("minLength") == 1 and option.get("pattern") == r"\S":
                assert "non-empty" in cell, f"{tool}.{name} must not be empty"
            if option.get("format") == "date":
                assert "YYYY-MM-DD" in cell, f"{tool}.{name} is a date"
            if option.get("type") == "integer":
                assert "integer" in cell


# -- outputs -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", sorted(SPECS))
def test_every_output_field_is_documented(tool):
    rows = table(sections()[tool].split("Output", 1)[-1] if "Output" in sections()[tool] else sections()[tool], "field")
    assert set(rows) == set(fields(SPECS[tool].response))
    for key, field in fields(SPECS[tool].response).items():
        if inner_model(field.annotation) in SHARED:
            assert "fact object" in rows[key][0], f"{tool}.{key} points to the fact object"


def test_the_fact_object_is_documented_once_completely():
    part = text().split("## The fact object", 1)[1].split("\n## ", 1)[0]
    assert set(table(part, "field")) == set(fields(M.FactOut, stop=False))


def test_errors_and_constants_are_documented():
    flat = " ".join(text().split())
    codes = {cls.code for cls in GraphsiftError.__subclasses__()}
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", text().split("## Errors", 1)[1], flags=re.MULTILINE))
    assert codes <= documented
    for value in (R.MERGE_DEFINITION, R.MERGE_SUM, R.DUPLICATE_DEFINITION, R.DUPLICATE_SUM, R.PREFIX_MERGE_DEFINITION,
                  R.PREFIX_MERGE_SUM, R.PREFIX_DUPLICATE_DEFINITION, R.SIMILAR_MERGE_TEXT, R.SIMILAR_DUPLICATE_TEXT,
                  R.UNRELATED_DUPLICATE_TEXT, R.CODE_MERGE_DEFINITION, R.CONFLICT_DUPLICATE_TEXT):
        assert f"{value:g}" in flat, f"threshold {value} is not in SKILL.md"
    assert f"top {tools.FIND_CANDIDATES} per selector" in flat and f"the {tools.INFO_NEIGHBOURS} nodes" in flat
    assert f"its {tools.INFO_LATEST} newest facts" in flat and f"the last {sessions.FILE_SEARCHES})" in flat
    assert f"at most {write.INGEST_BATCH_DOCUMENTS} documents / {write.INGEST_BATCH_FACTS} facts" in flat
    assert f"shorter than {extract.SMALL_CHUNK} characters" in flat and f"longer than {extract.CHUNK_CHARS}" in flat
    assert f"at most {extract.MAX_JUDGEMENTS} questions" in flat and f"at most {R.MAX_DUPLICATE_LINKS} links" in flat
    assert '"{name}: {definition}"' in flat and "clipped to [0, 1]" in flat


# -- CLI ------------------------------------------------------------------------------------------------


def usage_line(tool: str) -> str:
    lines = [line for line in text().splitlines() if line.startswith(f"| `{tool}` | `graphsift facts ")]
    assert len(lines) == 1, f"SKILL.md needs exactly one CLI usage line for {tool}"
    return lines[0]


def test_every_facts_command_is_in_the_cli_table():
    assert set(cli_facts.facts.commands) == set(COMMAND_TOOL)
    assert set(COMMAND_TOOL.values()) == set(SPECS)


@pytest.mark.parametrize("command", sorted(COMMAND_TOOL))
def test_usage_line_lists_exactly_the_commands_flags(command):
    line = usage_line(COMMAND_TOOL[command])
    usage = line.split(f"`graphsift facts {command}", 1)[1]
    click_command = cli_facts.facts.commands[command]
    opts = {o for p in click_command.params if isinstance(p, click.Option) for o in p.opts}
    assert set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", usage)) == opts
    for param in click_command.params:
        if isinstance(param, click.Argument):
            assert (param.metavar or param.name.upper()).rstrip(".") in usage


@pytest.mark.parametrize("command", sorted(c for c, t in COMMAND_TOOL.items() if t not in ("add_document",
                                                                                             "extract_document")))
def test_every_flag_maps_onto_a_field_of_the_tool(command):
    """A flag's name (without dashes; --from for from) is a field of the tool's request model."""
    request = SPECS[COMMAND_TOOL[command]].request
    wire = {f.alias or n for n, f in request.model_fields.items()}
    for param in cli_facts.facts.commands[command].params:
        if isinstance(param, click.Option) and param.name != "as_json":
            assert param.opts[-1].lstrip("-").replace("-", "_") in wire, (command, param.opts)
        if isinstance(param, click.Argument):
            assert param.name in wire, (command, param.name)


def test_the_extract_flags_map_onto_its_fields():
    wire = set(M.ExtractDocumentRequest.model_fields)
    opts = {p.opts[-1].lstrip("-") for p in cli_facts.facts.commands["extract"].params if isinstance(p, click.Option)}
    assert opts - {"json"} <= wire and {"name", "text"} <= wire  # name and text come from each DOC


def test_serve_accepts_the_facts_toolset():
    assert "facts" in cli.serve.params[0].type.choices
    assert "graphsift serve facts" in text()


# -- references ---------------------------------------------------------------------------------------


def blocks(path: Path, kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", text(path), flags=re.DOTALL)


def lines_of(path: Path, kind: str) -> list[str]:
    return [line for block in blocks(path, kind) for line in block.splitlines() if line.strip()]


def test_every_mcp_example_validates():
    calls = [json.loads(line) for line in lines_of(EXAMPLES, "json")]
    assert {c["tool"] for c in calls} == set(SPECS), "every tool has an MCP example"
    for call in calls:
        parse_request(SPECS[call["tool"]].request, call["arguments"])


def test_every_cli_example_parses_and_its_json_selectors_validate():
    commands = [line for line in lines_of(EXAMPLES, "bash") if line.startswith("graphsift facts ")]
    assert {shlex.split(c)[2] for c in commands} == set(COMMAND_TOOL), "every command has a CLI example"
    for line in commands:
        args = shlex.split(line)[2:]
        command = cli_facts.facts.commands[args[0]]
        ctx = command.make_context(args[0], args[1:])
        for kind in ("entity", "topic"):
            if args[0] == "find":
                for value in ctx.params[kind]:
                    parse_request(M.Selector, json.loads(value))


def test_every_refused_form_is_listed():
    listed = text(TROUBLE)
    for token in [*cli_facts.FIND_LEGACY, *cli_facts.SEARCH_LEGACY, *M.FIND_LEGACY_FIELDS, *M.SEARCH_LEGACY_FIELDS]:
        assert f"`{token}" in listed or f"{token}`" in listed, f"{token} is refused but not listed"


def test_every_refused_cli_example_is_refused(tmp_path):
    runner = CliRunner(env={"GRAPHSIFT_HOME": str(tmp_path)})
    commands = [line for line in lines_of(TROUBLE, "bash") if line.startswith("graphsift facts ")]
    assert len(commands) >= 8
    for line in commands:
        result = runner.invoke(cli.main, shlex.split(line)[1:])
        assert result.exit_code == 2 and "error: [invalid_input]" in result.stderr, (line, result.output)
        assert not (tmp_path / "facts").exists(), f"{line} touched the data folder"


def test_every_refused_mcp_example_is_refused():
    calls = [json.loads(line) for line in lines_of(TROUBLE, "json")]
    assert len(calls) >= 7
    for call in calls:
        with pytest.raises(InvalidInput):
            parse_request(SPECS[call["tool"]].request, call["arguments"])


def test_readme_has_a_facts_section():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "graphsift serve facts" in readme and "skills/facts/SKILL.md" in readme
    assert "graphsift facts ingest examples/facts/news.jsonl" in readme
