"""skills/facts/ matches the code: every documented field and flag exists, every existing one is documented.

SKILL.md documents each tool under ``### `name` `` with a parameter table (nested fields as
``parent[].child``) and an output table; facts inside outputs are documented once, under "The fact
object". The CLI table has one usage line per tool listing exactly the command's flags.
references/examples.md: every MCP call validates against the request models (a kg_execute call: its command
line against the typed tool's model) and every CLI line parses.
references/troubleshooting.md: every refused form is listed, and each example of one is refused.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from helpers.backend import env_for
from helpers.docs import fields as model_fields
from helpers.docs import inner_model, limit_phrases, number, skill_path, table, tool_sections

from graphlore.adapters.cli import build_cli
from graphlore.adapters.command import attach, language, split_command
from graphlore.contract import parse_request
from graphlore.errors import GraphloreError, InvalidInput
from graphlore.toolsets.facts import TOOLSET as DECLARED
from graphlore.toolsets.facts import cli as facts_cli
from graphlore.toolsets.facts import codes as C
from graphlore.toolsets.facts import extract, sessions, tools, write
from graphlore.toolsets.facts import models as M
from graphlore.toolsets.facts import resolve as R

TOOLSET = attach(DECLARED)  # with kg_execute, as the adapters serve it
KG = language(TOOLSET)
SKILL = skill_path("facts")
EXAMPLES = SKILL.parent / "references" / "examples.md"
TROUBLE = SKILL.parent / "references" / "troubleshooting.md"
#: the tools an MCP client sees (what SKILL.md documents under ### `name`)
SPECS = {spec.name: spec for spec in TOOLSET.on("mcp")}
#: command name -> the tool it runs, read from the declarations (ingest is add_document's CLI form)
COMMAND_TOOL = {spec.command: spec.name for spec in TOOLSET.on("cli")}
DOCUMENTED_AS = {"ingest": "add_document", "extract": "extract_document", "relation": "relation_set"}
GROUP = build_cli().commands["facts"]
SHARED = frozenset({M.FactOut})


def validate_call(tool: str, arguments: dict) -> None:
    """Validate an MCP call as the tool would; for kg_execute, also its command line against the typed model."""
    request = parse_request(SPECS[tool].request, arguments)
    if tool == "kg_execute":
        KG.parse(request.command)


def text(path=SKILL) -> str:
    return path.read_text(encoding="utf-8")


def sections() -> dict[str, str]:
    return tool_sections(text())


def fields(model, prefix: str = "", stop: bool = True) -> dict[str, object]:
    return model_fields(model, prefix, SHARED if stop else frozenset())


def command(name: str) -> click.Command:
    return GROUP.get_command(None, name)


# -- format -------------------------------------------------------------------------------------------


def test_front_matter_follows_agent_skills():
    match = re.match(r"\A---\nname: (.+)\ndescription: (.+)\n---\n", text())
    assert match and match.group(1) == "facts"
    assert 50 <= len(match.group(2)) <= 1024 and "graphlore serve facts" in match.group(2)


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
                assert f"{number(option['minimum'])} to {number(option['maximum'])}" in cell, f"{tool}.{name} range"
            if option.get("minItems") == 1:
                assert "at least one" in cell, f"{tool}.{name} needs at least one element"
            if "maxItems" in option:
                assert f"at most {option['maxItems']}" in cell, f"{tool}.{name} holds at most {option['maxItems']}"
            if option.get("minLength") == 1 and option.get("pattern") == r"\S":
                assert "non-empty" in cell, f"{tool}.{name} must not be empty"
            if option.get("format") == "date":
                assert "YYYY-MM-DD" in cell, f"{tool}.{name} is a date"
            if option.get("pattern") == M.PERIOD_PATTERN:
                assert all(f"`{form}`" in cell for form in ("YYYY-MM-DD", "YYYY-MM", "YYYY")), f"{tool}.{name} period"
            if option.get("type") == "integer":
                assert "integer" in cell


@pytest.mark.parametrize("tool", sorted(SPECS))
def test_size_limits_are_documented(tool):
    """Every string and list limit of the request (nested fields too) is in its type cell."""
    rows = table(sections()[tool], "parameter")
    for key, field in fields(SPECS[tool].request).items():
        for phrase in limit_phrases(field):
            assert phrase in rows[key][0], f"{tool}.{key}: the type cell must say {phrase!r}"


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
    codes = {cls.code for cls in GraphloreError.__subclasses__()}
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", text().split("## Errors", 1)[1], flags=re.MULTILINE))
    assert codes <= documented
    lines = R.THRESHOLDS
    for value in (lines.merge_definition, lines.merge_sum, lines.duplicate_definition, lines.duplicate_sum,
                  lines.prefix_merge_definition, lines.prefix_merge_sum, lines.prefix_duplicate_definition,
                  lines.similar_merge_text, lines.similar_duplicate_text, lines.unrelated_duplicate_text,
                  lines.code_merge_definition, lines.conflict_duplicate_text, lines.long_name_definition):
        assert f"{value:g}" in flat, f"threshold {value} is not in SKILL.md"
    assert f"top {tools.FIND_CANDIDATES} per selector" in flat and f"the {tools.INFO_NEIGHBOURS} nodes" in flat
    assert f"below {tools.FIND_WEAK_FLOOR:g} is marked `weak`" in flat
    assert f"its {tools.INFO_LATEST} newest facts" in flat and f"the newest {sessions.KEEP_SEARCHES:,} of a graph" in flat
    assert f"at most {write.INGEST_BATCH_DOCUMENTS} documents / {write.INGEST_BATCH_FACTS} facts" in flat
    assert f"shorter than {extract.SMALL_CHUNK} characters" in flat and f"longer than {extract.CHUNK_CHARS}" in flat
    assert f"at most {extract.MAX_JUDGEMENTS} questions" in flat and f"at most {lines.max_duplicate_links} links" in flat
    assert '"{name}: {definition}"' in flat and "clipped to [0, 1]" in flat
    assert f"equal, {lines.long_name_words} words or more" in flat
    assert f"both name {C.DEFINITION_NAMES_MIN} or more people or places" in flat


# -- CLI ------------------------------------------------------------------------------------------------


def usage_line(tool: str) -> str:
    lines = [line for line in text().splitlines() if line.startswith(f"| `{tool}` | `graphlore facts ")]
    assert len(lines) == 1, f"SKILL.md needs exactly one CLI usage line for {tool}"
    return lines[0]


def documented_tool(name: str) -> str:
    return DOCUMENTED_AS.get(name, COMMAND_TOOL.get(name, name))


def test_every_facts_command_is_in_the_cli_table():
    assert set(GROUP.list_commands(None)) == set(COMMAND_TOOL) | {"extract", "relation"}
    assert {documented_tool(c) for c in GROUP.list_commands(None)} == set(SPECS)


@pytest.mark.parametrize("name", sorted(set(COMMAND_TOOL) | {"extract"}))
def test_usage_line_lists_exactly_the_commands_flags(name):
    line = usage_line(documented_tool(name))
    usage = line.split(f"`graphlore facts {name}", 1)[1]
    click_command = command(name)
    opts = {o for p in click_command.params if isinstance(p, click.Option) for o in p.opts}
    assert set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", usage)) == opts
    for param in click_command.params:
        if isinstance(param, click.Argument):
            assert (param.metavar or param.name.upper()).rstrip(".") in usage


#: typed CLI flags named by the CLI convention rather than after their field
CLI_NAMES = {"--to": "to_date"}


@pytest.mark.parametrize("name", sorted(COMMAND_TOOL))
def test_every_flag_maps_onto_a_field_of_the_tool(name):
    """A flag's name (without dashes; --from for from, --to for to_date) is a field of the tool's request model."""
    request = TOOLSET.tool(COMMAND_TOOL[name]).request
    wire = {f.alias or n for n, f in request.model_fields.items()}
    for param in command(name).params:
        if isinstance(param, click.Option) and param.name != "as_json":
            assert CLI_NAMES.get(param.opts[-1], param.opts[-1].lstrip("-").replace("-", "_")) in wire, param.opts
        if isinstance(param, click.Argument):
            assert param.name in wire, (command, param.name)


def test_the_extract_flags_map_onto_its_fields():
    wire = set(M.ExtractDocumentRequest.model_fields)
    opts = {p.opts[-1].lstrip("-") for p in command("extract").params if isinstance(p, click.Option)}
    assert opts - {"json"} <= wire and {"name", "text"} <= wire  # name and text come from each DOC


def test_serve_accepts_the_facts_toolset():
    assert "facts" in build_cli().commands["serve"].params[0].type.choices
    assert "graphlore serve facts" in text()


# -- references ---------------------------------------------------------------------------------------


def blocks(path: Path, kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", text(path), flags=re.DOTALL)


def lines_of(path: Path, kind: str) -> list[str]:
    return [line for block in blocks(path, kind) for line in block.splitlines() if line.strip()]


def test_every_mcp_example_validates():
    calls = [json.loads(line) for line in lines_of(EXAMPLES, "json")]
    assert {c["tool"] for c in calls} == set(SPECS), "every tool has an MCP example"
    for call in calls:
        validate_call(call["tool"], call["arguments"])
    commands = {split_command(c["arguments"]["command"])[0] for c in calls if c["tool"] == "kg_execute"}
    assert commands == {*KG.commands, "help"}, "every kg_execute command has an example"


def test_every_kg_execute_string_in_skill_md_fits_its_command():
    strings = re.findall(r"`((?:find|search|cat|info|ls|stats|help)\b[^`]*)`", text().split("### `kg_execute`")[1]
                         .split("\n### ")[0])
    concrete = [s for s in strings if " " in s and not re.search(r"\[|JSON|NAME|DATE|TEXT|\bN\b|ID|TYPE|COMMAND|\\\|", s)]
    assert len(concrete) >= 3
    for line in concrete:
        KG.parse(line)


def test_every_cli_example_parses_and_its_json_selectors_validate():
    commands = [line for line in lines_of(EXAMPLES, "bash") if line.startswith("graphlore facts ")]
    assert {shlex.split(c)[2] for c in commands} == set(GROUP.list_commands(None)), "every command has a CLI example"
    for line in commands:
        args = shlex.split(line)[2:]
        ctx = command(args[0]).make_context(args[0], args[1:])
        for kind in ("entity", "topic"):
            if args[0] == "find":
                for value in ctx.params[kind]:
                    parse_request(M.Selector, facts_cli.selector(f"--{kind}", value))
        if args[0] == "exec":
            KG.parse(ctx.params["command"])  # the string fits its command


def test_every_refused_form_is_listed():
    listed = text(TROUBLE)
    refused = {token for spec in TOOLSET.tools for token in spec.cli.refused}
    refused |= {token for grammar in facts_cli.ORIGINAL.values() for token in grammar.refused}
    assert refused == {*facts_cli.FIND_REFUSED, *facts_cli.FIND_LEGACY, *facts_cli.SEARCH_LEGACY}
    for token in [*refused, *M.FIND_LEGACY_FIELDS, *M.SEARCH_LEGACY_FIELDS]:
        assert f"`{token}" in listed or f"{token}`" in listed, f"{token} is refused but not listed"


def test_every_refused_cli_example_is_refused(tmp_path):
    runner = CliRunner(env=env_for(tmp_path))
    commands = [line for line in lines_of(TROUBLE, "bash") if line.startswith("graphlore facts ")]
    assert len(commands) >= 8
    for line in commands:
        result = runner.invoke(build_cli(), shlex.split(line)[1:])
        assert result.exit_code == 2 and "error: [invalid_input]" in result.stderr, (line, result.output)
        assert not (tmp_path / "facts").exists(), f"{line} touched the data folder"


def test_every_refused_mcp_example_is_refused():
    calls = [json.loads(line) for line in lines_of(TROUBLE, "json")]
    assert len(calls) >= 7 and sum(c["tool"] == "kg_execute" for c in calls) >= 6
    for call in calls:
        with pytest.raises(InvalidInput):
            validate_call(call["tool"], call["arguments"])


def test_readme_has_a_facts_section():
    readme = (skill_path("facts").parents[2] / "README.md").read_text(encoding="utf-8")
    assert "graphlore serve facts" in readme and "skills/facts/SKILL.md" in readme
    assert "graphlore facts ingest examples/facts/news.jsonl" in readme
