"""Every skills tool through the official MCP client, over stdio and streamable HTTP, against
`graphlore serve skills`: strict schemas, the issue's response names, the rules, and every error text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from anyio.from_thread import start_blocking_portal
from helpers.mcp import Session, connect, http_server, stdio_params
from helpers.skills_data import PLAYBOOK, REFUND, RESET

from graphlore.toolsets.skills import TOOLSET, render

SPECS = {spec.name: spec for spec in TOOLSET.on("mcp")}
MCP_TOOLS = {"search_skills", "create_skill", "update_skill", "record_outcome", "get_skill", "import_skills",
             "skill_history", "list_skills", "archive_skill", "unarchive_skill"}


@pytest.fixture(scope="module", params=["stdio", "http"])
def server(request, tmp_path_factory) -> Iterator[tuple[str, object, Path, object]]:
    base = tmp_path_factory.mktemp(f"skills-{request.param}")
    home = base / "home"
    with start_blocking_portal() as portal:
        if request.param == "stdio":
            yield request.param, stdio_params("skills", home), base, portal
        else:
            # over HTTP files are read only under the allowed roots: by default the working directory
            with http_server("skills", home, base / "server.log", cwd=base) as (url, _):
                yield request.param, url, base, portal


@pytest.fixture(scope="module")
def mcp(server) -> Iterator[Session]:
    _, target, _, portal = server
    with connect(portal, target, "skills") as session:
        yield session


@pytest.fixture(scope="module")
def reset_id(mcp) -> str:
    out, _ = mcp.ok("create_skill", {"skill": RESET})
    return out.skill_id


def test_tools_list_has_strict_schemas(mcp):
    tools = mcp.list_tools()
    assert set(tools) == MCP_TOOLS == set(SPECS)
    for name, tool in tools.items():
        spec = SPECS[name]
        assert tool.input_schema == spec.request.model_json_schema()
        assert tool.input_schema["additionalProperties"] is False
        assert tool.output_schema is not None and tool.annotations.read_only_hint is spec.read_only
        assert "library" in tool.input_schema["properties"]
    assert tools["search_skills"].annotations.read_only_hint is False  # a returned skill's times_used goes up
    answer, failed = tools["search_skills"].output_schema["anyOf"]  # the answer, or the error object
    assert set(answer["properties"]) == {"skill", "query", "search_time_ms", "judge", "evidence"}
    assert set(failed["properties"]) == {"error"}


def test_create_search_outcome_get(mcp, reset_id):
    found, text = mcp.ok("search_skills", {"query": "I forgot my password and can't sign in"})
    assert found.skill.skill_id == reset_id and found.judge.kind == "calibrated" and text == render.search_skills(found)
    assert set(found.skill.model_dump()) == {"skill_id", "title", "confidence", "resolution_md", "conditions",
                                             "template", "low_confidence"}
    assert found.evidence.candidates[0].skill_id == reset_id and "why: " in text
    outcome, text = mcp.ok("record_outcome", {"skill_id": reset_id, "outcome": "confirmed",
                                              "query": "I forgot my password and can't sign in"})
    assert outcome.confidence == pytest.approx(outcome.previous_confidence + 0.1) and outcome.times_confirmed == 1
    assert outcome.learned.added and outcome.learned.kind == "example"
    assert text.startswith(f"{reset_id}: confirmed, confidence ") and "routing example learned" in text
    skill, text = mcp.ok("get_skill", {"skill_id": reset_id})
    assert skill.times_used >= 1 and skill.times_confirmed == 1 and "SKILL " + reset_id in text
    assert "I forgot my password and can't sign in" in skill.conditions


def test_duplicate_create_returns_the_existing_skill(mcp, reset_id):
    again, text = mcp.ok("create_skill", {"skill": RESET})
    assert not again.created and again.skill_id == reset_id and text.startswith("not created: a near-duplicate")
    other, _ = mcp.ok("create_skill", {"skill": REFUND, "library": "other", "resolution_confirmed": True})
    assert other.created and other.skill.confidence == 0.6 and other.skill.times_confirmed == 1


def test_update_history_and_versions(mcp, reset_id):
    new_md = PLAYBOOK.replace("**Do:** Trigger the password reset email.", "**Do:** Send the reset email.")
    updated, text = mcp.ok("update_skill", {"skill_id": reset_id, "skill": {"resolution_md": new_md}})
    assert updated.version >= 2 and [e.fields for e in updated.change_detail.steps_edited] == [["do"]]
    assert text.startswith(f"updated: Reset a password ({reset_id}) is now version ")
    history, _ = mcp.ok("skill_history", {"skill_id": reset_id})
    assert [v.version for v in history.versions] == list(range(1, updated.version + 1))
    first, _ = mcp.ok("get_skill", {"skill_id": reset_id, "version": 1})
    assert "Trigger the password reset email." in first.resolution_md and first.version == 1
    same, _ = mcp.ok("update_skill", {"skill_id": reset_id, "skill": {"resolution_md": new_md}})
    assert same.version == updated.version and same.change_detail.empty and same.changes == []


def test_list_and_import(mcp, server, reset_id):
    _, _, base, _ = server
    listed, _ = mcp.ok("list_skills", {})
    assert reset_id in [s.skill_id for s in listed.skills]
    path = base / "intents.csv"
    path.write_text("text,intent\nwhat's my balance,balance\nhow much money do I have,balance\n"
                    "book me a flight,book_flight\n")
    out, text = mcp.ok("import_skills", {"format": "intents", "path": str(path), "library": "intents"})
    assert (out.created, out.unchanged) == (2, 0) and "2 created" in text
    again, _ = mcp.ok("import_skills", {"format": "intents", "path": str(path), "library": "intents"})
    assert (again.created, again.unchanged, again.embedded_texts) == (0, 2, 0)
    found, _ = mcp.ok("search_skills", {"query": "how much is in my account", "library": "intents"})
    assert found.skill is not None and found.skill.title == "Balance"


def test_archive_and_unarchive(mcp):
    created, _ = mcp.ok("create_skill", {"skill": RESET, "library": "retired"})
    skill_id = created.skill_id
    archived, text = mcp.ok("archive_skill", {"skill_id": skill_id, "reason": "outdated", "library": "retired"})
    assert archived.changed and archived.archived_at and "no longer returns it" in text
    found, _ = mcp.ok("search_skills", {"query": "I forgot my password and can't sign in", "library": "retired"})
    assert found.skill is None
    shown, _ = mcp.ok("get_skill", {"skill_id": skill_id, "library": "retired"})
    assert shown.archived_at == archived.archived_at
    assert mcp.ok("list_skills", {"library": "retired"})[0].total == 0
    assert mcp.ok("list_skills", {"library": "retired", "archived": "only"})[0].skills[0].skill_id == skill_id
    assert "is archived (since " in mcp.error("update_skill", {"skill_id": skill_id, "skill": {"problem": "p"},
                                                               "library": "retired"})
    back, _ = mcp.ok("unarchive_skill", {"skill_id": skill_id, "library": "retired"})
    assert back.archived_at is None
    history, _ = mcp.ok("skill_history", {"skill_id": skill_id, "library": "retired"})
    assert [(e.event, e.reason) for e in history.events] == [("archived", "outdated"), ("unarchived", None)]


@pytest.mark.parametrize("tool,args,shown", [
    ("search_skills", {"query": ""}, "[invalid_input] query is required"),
    ("search_skills", {"query": "   "}, "[invalid_input] query is required"),
    ("search_skills", {"query": "x" * 2001}, "query is 2,001 characters; the limit is 2,000 characters"),
    ("search_skills", {"query": "x", "top_k": 3}, "unknown field 'top_k'"),
    ("get_skill", {"skill_id": "nope"},
     "[not_found] Skill nope not found. Use search_skills to find the correct ID."),
    ("record_outcome", {"skill_id": "nope", "outcome": "confirmed"},
     "[not_found] Skill nope not found. Use search_skills to find the correct ID."),
    ("record_outcome", {"skill_id": "x", "outcome": "great"}, "'confirmed', 'likely_resolved'"),
    ("update_skill", {"skill_id": "nope", "skill": {"problem": "p"}},
     "[not_found] Skill nope not found. Use search_skills to find the correct ID."),
    ("skill_history", {"skill_id": "nope"},
     "[not_found] Skill nope not found. Use search_skills to find the correct ID."),
    ("create_skill", {"conversation": "Customer: hi"}, "[config_error] this call needs an LLM"),
    ("create_skill", {}, "give either conversation=<transcript> or skill="),
    ("create_skill", {"skill": {**RESET, "resolution_md": "# Reset a password\n\n## Goal\nx\n"}},
     "missing required section '## Steps'"),
    ("create_skill", {"conversation": "x" * 200_001}, "conversation is 200,001 characters; the limit is 200,000"),
    ("update_skill", {"skill_id": "x", "conversation": "c", "skill": {"problem": "p"}}, "not both or neither"),
    ("import_skills", {"format": "csv", "path": "x"}, "field 'format'"),
    ("import_skills", {"format": "abcd", "path": "nonexistent/guidelines.json"}, "is not a file"),
    ("list_skills", {"library": "Bad!"}, "field 'library'"),
])
def test_errors_are_structured_and_exact(mcp, reset_id, tool, args, shown):
    assert shown in mcp.error(tool, args)


def test_json_text_and_structured_content_agree(mcp, reset_id):
    result = mcp.call("get_skill", {"skill_id": reset_id})
    assert result.structured_content["skill_id"] == reset_id
    assert json.loads(json.dumps(result.structured_content))["resolution_md"].startswith("# Reset a password")
