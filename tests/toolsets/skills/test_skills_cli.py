"""`graphlore skills ...`: every command runs its tool, in process through click's CliRunner (each command
builds its own runtime, as separate processes would, sharing only the session's embedder)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import backend
from helpers.skills_data import PLAYBOOK, RESET

from graphlore.adapters.cli import build_cli
from graphlore.config import Settings
from graphlore.runtime import Runtime


@pytest.fixture
def env(tmp_path, embedder):
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    return CliRunner(env=backend.env_for(tmp_path / "home")), app


def cli(env, *args: str, code: int = 0):
    runner, app = env
    result = runner.invoke(app, ["skills", *args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def as_json(env, *args: str) -> dict:
    return json.loads(cli(env, *args, "--json").output)


def test_create_search_outcome_show_history_ls(env):
    created = as_json(env, "create", "--skill", json.dumps(RESET), "--resolution-confirmed")
    skill_id = created["skill_id"]
    assert created["created"] and created["skill"]["times_confirmed"] == 1
    text = cli(env, "search", "I forgot my password").output
    assert text.startswith(f"SKILL {skill_id} (judge: calibrated, ") and "# Reset a password" in text
    assert "**Confidence:** 0.60 (2 uses, 1 confirmed)" in text
    assert cli(env, "outcome", skill_id, "failed").output.strip() == (
        f"{skill_id}: failed, confidence 0.60 -> 0.50 (2 uses, 1 confirmed)")
    new_md = PLAYBOOK.replace("### 1. Verify the account", "### 1. Find the account")
    updated = cli(env, "update", skill_id, "--skill", json.dumps({"resolution_md": new_md})).output
    assert updated.startswith(f"updated: Reset a password ({skill_id}) is now version 2")
    assert "step edited: 1->1. Find the account (action)" in updated
    history = cli(env, "history", skill_id).output
    assert "version 1" in history and "(first version)" in history and "version 2" in history
    assert "### 1. Verify the account" in cli(env, "show", skill_id, "--version", "1").output
    assert "### 1. Find the account" in cli(env, "show", skill_id).output
    listing = cli(env, "ls").output
    assert skill_id in listing and "1 of 1 skill" in listing
    assert as_json(env, "search", "how do I bake bread")["skill"] is None


def test_archive_and_unarchive(env):
    skill_id = as_json(env, "create", "--skill", json.dumps(RESET))["skill_id"]
    out = cli(env, "archive", skill_id, "--reason", "replaced").output
    assert out.startswith(f"Reset a password ({skill_id}) is archived since ") and "no longer returns it" in out
    assert "No skill solves this" in cli(env, "search", "I forgot my password").output
    assert "ARCHIVED since " in cli(env, "show", skill_id).output
    assert skill_id not in cli(env, "ls").output and "0 of 0 skills" in cli(env, "ls").output
    listed = cli(env, "ls", "--archived", "include").output
    assert skill_id in listed and "archived" in listed.splitlines()[0] and "1 of 1 skill" in listed
    history = cli(env, "history", skill_id).output
    assert "(first version)\narchived  20" in history and history.rstrip().endswith("(replaced)")
    refused = cli(env, "update", skill_id, "--skill", json.dumps({"problem": "x y z"}), code=2)
    assert f"error: [invalid_input] skill {skill_id} is archived (since " in refused.stderr
    assert f"(CLI: graphlore skills unarchive {skill_id})" in refused.stderr
    assert as_json(env, "unarchive", skill_id)["archived_at"] is None
    assert "(it already was: nothing changed)" in cli(env, "unarchive", skill_id).output
    assert cli(env, "search", "I forgot my password").output.startswith(f"SKILL {skill_id}")
    runner, _ = env  # the installed command, in a process of its own
    process_env = {**{k: v for k, v in os.environ.items() if not k.startswith("GRAPHLORE_")}, **runner.env}
    out = subprocess.run([str(Path(sys.executable).with_name("graphlore")), "skills", "archive", skill_id],
                         env=process_env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and f"({skill_id}) is archived since " in out.stdout, out.stderr


@pytest.mark.slow  # embeds ABCD's 172 passages once more (the tools tests import it too)
def test_the_imports_under_the_issues_names(env, tmp_path, shared_data):
    out = cli(env, "import-abcd", str(shared_data / "abcd" / "guidelines.json"), "--library", "abcd").output
    *_, summary, calibration = out.splitlines()  # after the progress lines
    assert summary.startswith("imported ") and "(abcd): 55 created, 0 updated, 0 unchanged" in out
    assert calibration == ("the judge's calibration for this library: the shipped bias (no calibration of its own: "
                           "the median skill has 0 conditions, 50 needed)")
    again = as_json(env, "import", "--format", "abcd", str(shared_data / "abcd" / "guidelines.json"), "-l", "abcd")
    assert (again["created"], again["unchanged"]) == (0, 55)
    rows = tmp_path / "intents.jsonl"
    rows.write_text('{"text": "what is my balance", "intent": "balance"}\n'
                    '{"text": "book me a flight", "intent": "book_flight"}\n')
    assert "(intents): 2 created" in cli(env, "import-intents", str(rows)).output
    table = tmp_path / "banking.csv"
    table.write_text("utterance,topic\nwhere is my card,card_arrival\n")
    assert "(intents): 1 created" in cli(env, "import-intents", str(table), "--text-column", "utterance",
                                         "--intent-column", "topic", "-l", "bank").output
    assert "text_column go with format intents" in cli(env, "import", "--format", "abcd", str(table),
                                                       "--text-column", "x", code=2).output
    assert as_json(env, "ls")["total"] == 2 and as_json(env, "ls", "-l", "abcd")["total"] == 55


def test_errors_are_one_line_with_exit_status_2(env):
    result = cli(env, "search", "  ", code=2)
    assert result.output.strip() == "error: [invalid_input] query is required"
    result = cli(env, "show", "nope", code=2)
    assert result.output.strip() == (
        "error: [not_found] Skill nope not found. Use search_skills to find the correct ID.")
    assert "error: [config_error] this call needs an LLM" in cli(env, "create", "--conversation", "hi", code=2).output
    assert "is not JSON" in cli(env, "create", "--skill", "{title", code=2).output
    assert "invalid_input" in cli(env, "outcome", "x", "great", code=2).output
    assert "does not exist" in cli(env, "reindex", "-l", "nothing", code=2).output
