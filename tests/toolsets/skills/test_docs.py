"""skills/skills/SKILL.md matches the code: every documented parameter and output field exists, every existing
one is documented with its type and default, the playbook example is a valid playbook that renders back to
itself, the constants and exact error texts are the code's, and every CLI command has its usage line.

The skill object (get_skill's output) and the changes object are documented once; fields that hold one
say so instead of repeating it.
"""

from __future__ import annotations

import json
import re

import click
import pytest
from helpers.docs import fields as model_fields
from helpers.docs import front_matter, inner_model, number, skill_path, table, tool_sections
from helpers.paths import REPO

from graphlore.adapters.cli import build_cli
from graphlore.errors import GraphloreError
from graphlore.toolsets.skills import (
    TOOLSET,
    decision,
    extract,
    judge,
    learning,
    models,
    outcomes,
    routing,
    selfcheck,
    whitening,
)
from graphlore.toolsets.skills.models import Skill, SkillChanges
from graphlore.toolsets.skills.playbook import ARROW, Header, parse, render

SKILL = skill_path("skills")
SPECS = {spec.name: spec for spec in TOOLSET.on("mcp")}
CLI_SPECS = {spec.command: spec.name for spec in TOOLSET.on("cli")}
SHARED = {Skill: "the skill object", SkillChanges: "the changes object"}
GROUP = build_cli().commands["skills"]


def text() -> str:
    return SKILL.read_text(encoding="utf-8")


def flat() -> str:
    return " ".join(text().split())


def fields(model) -> dict:
    return model_fields(model, stop=frozenset(SHARED))


# -- format ----------------------------------------------------------------------------------------------


def test_front_matter_follows_agent_skills():
    meta = front_matter(text())
    assert meta["name"] == "skills" == SKILL.parent.name
    assert 50 <= len(meta["description"]) <= 1024 and "graphlore serve skills" in meta["description"]


def test_exactly_the_mcp_tools_are_documented():
    assert set(tool_sections(text())) == set(SPECS)


# -- parameters and outputs -----------------------------------------------------------------------------


@pytest.mark.parametrize("tool", sorted(SPECS))
def test_every_parameter_is_documented_with_its_type_and_default(tool):
    request = SPECS[tool].request
    rows = table(tool_sections(text())[tool], "parameter")
    documented = fields(request)
    assert set(rows) == set(documented), "documented parameters differ from the request model"
    for key, field in documented.items():
        type_cell, default_cell, _ = rows[key]
        if field.is_required():
            assert default_cell == "required", f"{tool}.{key} is required"
        else:
            shown = re.fullmatch(r"`([^`]+)`", default_cell)
            assert shown and json.loads(shown.group(1)) == field.get_default(call_default_factory=True), key
    for name, prop in request.model_json_schema()["properties"].items():
        cell = rows[name][0]
        options = prop.get("anyOf", [prop])
        assert ("null" in {o.get("type") for o in options}) == ("null" in cell), f"{tool}.{name}: nullability"
        for option in options:
            for value in option.get("enum", []):
                assert f"`{value}`" in cell, f"{tool}.{name} accepts {value!r}"
            if "minimum" in option and "maximum" in option:
                assert f"{number(option['minimum'])} to {number(option['maximum'])}" in cell, f"{tool}.{name} range"
            if option.get("type") == "integer":
                assert "integer" in cell, f"{tool}.{name} is an integer"
            if option.get("minLength") == 1:
                assert "non-empty" in cell, f"{tool}.{name} must not be empty"


@pytest.mark.parametrize("tool", sorted(SPECS))
def test_every_output_field_is_documented(tool):
    section = tool_sections(text())[tool].split("Output", 1)[1]
    rows = table(section, "field")
    assert set(rows) == set(fields(SPECS[tool].response))
    for key, field in fields(SPECS[tool].response).items():
        shared = inner_model(field.annotation)
        if shared in SHARED:
            assert SHARED[shared] in rows[key][0], f"{tool}.{key} points to {SHARED[shared]}"


def test_the_changes_object_is_documented_once_completely():
    part = text().split("## The changes object", 1)[1].split("\n## ", 1)[0]
    assert set(table(part, "field")) == set(model_fields(SkillChanges))


def test_the_skill_object_is_the_issue_s_fields():
    assert set(table(tool_sections(text())["get_skill"].split("Output", 1)[1], "field")) == set(Skill.model_fields)


# -- the playbook ---------------------------------------------------------------------------------------


def example() -> str:
    return text().split("```markdown\n", 1)[1].split("```", 1)[0]


def test_the_example_is_a_valid_playbook_that_renders_back_byte_for_byte():
    markdown = example()
    playbook = parse(markdown)
    header = Header(0.85, 23, 20, "billing", "how-to")
    assert render(playbook, header) == markdown
    assert playbook.prerequisites and playbook.edge_cases and playbook.escalation
    assert {bool(s.do) for s in playbook.steps} == {True} and any(s.say for s in playbook.steps)
    assert any(s.check for s in playbook.steps)


def test_the_layout_rules_are_the_parser_s():
    for section in ("Goal", "Prerequisites", "Steps", "Edge Cases", "Escalation"):
        assert f"`## {section}`" in text()
    assert ARROW in text() and "**Goal and Steps are required**" in text()
    assert models.skill_not_found("<id>") in text()


# -- constants, errors ----------------------------------------------------------------------------------


def test_the_judge_constants_are_the_code_s():
    f = flat()
    assert f"top {judge.CANDIDATES} skills" in f and f"first {extract.SHOWN_CONDITIONS} conditions" in f
    assert f"match = {judge.TAU:g} * log(mean_i exp(cos_i / {judge.TAU:g}))" in f
    assert f"rank = {1 - judge.PROTOTYPE_WEIGHT:g} * match + {judge.PROTOTYPE_WEIGHT:g} * prototype" in f
    assert f"shrunk toward {judge.PRIOR_MEAN:g} (as if one more example matched at {judge.PRIOR_MEAN:g}" in f
    assert judge.PRIOR_N == 1 and judge.MIN_EXAMPLES == 2
    assert f"fewer than {judge.MIN_EXAMPLES} conditions is held to {judge.PRIOR_MEAN:g}" in f
    assert f"at least {judge.NETWORK_EXAMPLES} conditions" in f
    assert f"a small fixed network ({len(decision.FEATURES)} inputs, {decision.HIDDEN} tanh units)" in f
    assert f"the margin is at least **{judge.LINEAR_MIN_MARGIN:g}**" in f
    assert (f"`{judge.W_MATCH:g} * match + {judge.W_ABOVE_TYPICAL:g} * (match - typical) + {judge.W_MARGIN:g} * "
            f"margin + {judge.BIAS:g} >= 0`") in f
    assert f"the 5 and of the {decision.NEAREST} passages nearest the query" in f
    assert f"the margin is above **{judge.MIN_MARGIN:g}**" in f
    assert judge.WHITENED_MIN_MARGIN == judge.MIN_MARGIN  # judge v11's network on the whitened rank: the same
    assert f"two more inputs ({len(decision.WHITENED_FEATURES)} in all)" in f
    assert len(decision.WHITENED_FEATURES) == decision.WHITENED.w1.shape[0] == len(decision.FEATURES) + 2
    assert f"still answers no skill for {selfcheck.NULL_LEVEL:g} of the unknown questions" in f
    assert (f"shrunk {whitening.SHRINKAGE:g} towards the identity" in f
            and f"moves by {whitening.WEIGHT:g} x the cosine of the question" in f)
    assert f"confidence below {models.LOW_CONFIDENCE:g})" in f
    assert f"passages of the {learning.CHECK_SKILLS} skills nearest the question" in f
    assert f"(cosine {routing.DUPLICATE_THRESHOLD:g} or more)" in f
    assert f"cosine of **{routing.DUPLICATE_THRESHOLD:g}** or more" in f
    assert "title (weighted 3)" in f


def test_the_outcome_rules_are_the_code_s():
    f = flat()
    assert f"starts at confidence {outcomes.INITIAL_CONFIDENCE:g}" in f
    for outcome, delta in outcomes.OUTCOME_DELTAS.items():
        assert f"`{outcome}` {delta:+.2f}" in f
    assert f"confidence {outcomes.initial_counters(True).confidence:g}, `times_used` 1, `times_confirmed` 1" in f


def test_the_exact_error_texts_and_every_code_are_documented():
    f = flat()
    assert f"[invalid_input] {models.QUERY_REQUIRED}" in f
    assert f"[not_found] {models.skill_not_found('<id>')}" in f
    assert f"[store_unavailable] {models.database_failed('<reason>')}" in f
    assert f"[provider_error] {models.llm_failed('<detail>')}" in f
    assert models.too_large("query", 2001, models.MAX_QUERY) in f
    codes = {cls.code for cls in GraphloreError.__subclasses__()}
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", text().split("## Errors", 1)[1], flags=re.MULTILINE))
    assert codes <= documented


@pytest.mark.parametrize("name,limit", [("query", models.MAX_QUERY), ("conversation", models.MAX_CONVERSATION),
                                        ("title", models.MAX_TITLE), ("problem", models.MAX_PROBLEM),
                                        ("resolution_md", models.MAX_RESOLUTION), ("feedback", models.MAX_FEEDBACK)])
def test_the_limits_are_documented(name, limit):
    assert f"at most {limit:,} characters" in text(), name


# -- CLI -------------------------------------------------------------------------------------------------


def usage_lines() -> dict[str, str]:
    out = {}
    for line in text().splitlines():
        found = re.match(r"\| [^|]+ \| `graphlore skills ([a-z-]+)", line)
        if found:
            out[found.group(1)] = line
    return out


def test_every_skills_command_has_one_usage_line():
    assert set(GROUP.list_commands(None)) == set(usage_lines()) == set(CLI_SPECS) | {"import-abcd", "import-intents"}


@pytest.mark.parametrize("name", sorted(set(CLI_SPECS) | {"import-abcd", "import-intents"}))
def test_the_usage_line_lists_exactly_the_command_s_flags(name):
    line = usage_lines()[name]
    if name in CLI_SPECS and CLI_SPECS[name] in SPECS:
        assert line.startswith(f"| `{CLI_SPECS[name]}` |")
    usage = line.split(f"`graphlore skills {name}", 1)[1]
    command = GROUP.get_command(None, name)
    opts = {o for p in command.params if isinstance(p, click.Option) for o in p.opts}
    assert set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", usage)) == opts
    for param in command.params:
        if isinstance(param, click.Argument):
            assert (param.metavar or param.name.upper()) in usage


def test_serve_is_documented():
    for param in build_cli().commands["serve"].params:
        if isinstance(param, click.Option):
            assert all(opt in text() for opt in param.opts)


def test_readme_has_the_skills_section():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "## The skills toolset" in readme and "graphlore serve skills" in readme
    assert "skills/skills/SKILL.md" in readme and "claude mcp add graphlore-skills" in readme
    for command in ("import-abcd", "import-intents", "search", "create", "update", "outcome", "show", "history"):
        assert f"graphlore skills {command}" in readme
