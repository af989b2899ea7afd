"""``graphlore migrate --from sqlite --to postgresql://...``: embedded stores copied into PostgreSQL with their
vectors, keys, edges and metadata, so every tool answers the same there and nothing is embedded again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import backend
from helpers.paths import EXAMPLE_TREE, FACTS_EXAMPLE

from graphlore.adapters.cli import build_cli
from graphlore.config import Settings
from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.store import drop_store, open_store, store_exists, transfer
from graphlore.store.factory import list_namespaces
from graphlore.store.transfer import INCOMPLETE
from graphlore.tools import CallContext
from graphlore.toolsets import load_toolset

#: A real PostgreSQL and several processes: part of the full run, not the everyday one.
pytestmark = pytest.mark.slow


class Counting:
    """The session's embedder, counting the texts it is asked to embed."""

    def __init__(self, inner):
        self.inner, self.texts = inner, 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def embed(self, texts):
        self.texts += len(texts)
        return self.inner.embed(texts)


def call(runtime, toolset: str, tool: str, fields: dict):
    spec = load_toolset(toolset).tool(tool)
    extra = {"context": CallContext(session="test")} if spec.context else {}
    return spec.run(runtime, parse_request(spec.request, fields), **extra).model_dump(mode="json")


@pytest.fixture
def copied(tmp_path, embedder):
    try:
        url = backend.database_for(tmp_path / "pg")
    except backend.Unavailable as exc:
        pytest.skip(str(exc))
    project = tmp_path / "fm"
    shutil.copytree(EXAMPLE_TREE, project)
    home = tmp_path / "home"
    lite = Runtime(Settings(home=home), embedder=embedder)
    call(lite, "items", "index", {"project_path": str(project)})
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    runner = CliRunner(env={"GRAPHLORE_HOME": str(home), "GRAPHLORE_DATABASE_URL": ""})
    assert runner.invoke(app, ["facts", "ingest", str(FACTS_EXAMPLE)], catch_exceptions=False).exit_code == 0
    result = runner.invoke(app, ["migrate", "--from", "sqlite", "--to", url], catch_exceptions=False)
    yield result, lite, Runtime(Settings(home=home, database_url=url), embedder=Counting(embedder)), project, url
    from graphlore.store.postgres import connection

    connection.close_all()


def test_every_store_is_copied_and_answers_the_same(copied):
    result, lite, pg, project, _ = copied
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split(":")[0] for line in lines][0] == "facts/default" and lines[1].startswith("items/")
    for toolset, tool, fields in [
        ("items", "search", {"query": "offline sync conflicts", "project_path": str(project)}),
        ("items", "get_similar", {"item_id": "BUG-002", "project_path": str(project)}),
        ("facts", "find", {"entity": [{"name": "Apple", "definition": "company that makes the iPhone"}]}),
        ("facts", "search", {"entity": ["Apple", "Microsoft"], "mode": "between"}),
        ("facts", "stats", {}),
    ]:
        mine, theirs = call(lite, toolset, tool, fields), call(pg, toolset, tool, fields)
        mine.pop("location", None), theirs.pop("location", None)
        mine.pop("search_id", None), theirs.pop("search_id", None)
        assert _rounded(theirs) == _rounded(mine), tool
    # The copied index is fresh and was made by this embedder: only the two queries above were embedded.
    assert pg.embedder.texts == 2


def _rounded(value):
    if isinstance(value, float):
        return round(value, 5)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items() if k not in ("duration_ms", "index_location")}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def test_copying_again_is_refused_unless_replace(copied, embedder):
    _, lite, pg, _, url = copied
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    runner = CliRunner(env={"GRAPHLORE_HOME": str(lite.settings.home), "GRAPHLORE_DATABASE_URL": url})
    again = runner.invoke(app, ["migrate", "--from", "sqlite", "--namespace", "facts/default"])
    assert again.exit_code == 2 and "already exist in the target database; pass --replace" in again.stderr
    replaced = runner.invoke(app, ["migrate", "--from", "sqlite", "--namespace", "facts/default", "--replace"])
    assert replaced.exit_code == 0 and replaced.output.startswith("facts/default: ")
    missing = runner.invoke(app, ["migrate", "--from", "sqlite", "--namespace", "facts/nope"])
    assert missing.exit_code == 2 and "no SQLite store for facts/nope" in missing.stderr
    store = open_store(pg.settings, "facts/default")
    assert store.get_meta("embedder")["name"] == embedder.name



def test_skip_existing_copies_only_what_the_target_lacks_and_names_what_it_skipped(copied, embedder):
    _, lite, pg, _, url = copied
    [items] = [n for n in list_namespaces(pg.settings) if n.startswith("items/")]
    drop_store(pg.settings, items)
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    runner = CliRunner(env={"GRAPHLORE_HOME": str(lite.settings.home), "GRAPHLORE_DATABASE_URL": url})
    result = runner.invoke(app, ["migrate", "--from", "sqlite", "--skip-existing"])
    assert result.exit_code == 0, result.stderr
    assert result.output.splitlines()[0].startswith(f"{items}: ") and " nodes, " in result.output
    assert result.output.splitlines()[1:] == ["facts/default: skipped (the target has it)"]
    # A copy a crash cut short is marked until its last transaction: it is copied again, never skipped.
    store = open_store(pg.settings, items)
    store.set_meta(INCOMPLETE, True)
    store.close()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GRAPHLORE_")},
           "GRAPHLORE_HOME": str(lite.settings.home), "GRAPHLORE_DATABASE_URL": url}
    again = subprocess.run([str(Path(sys.executable).with_name("graphlore")), "migrate", "--from", "sqlite",
                            "--skip-existing"], env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and again.stdout.startswith(f"{items}: "), again.stderr
    assert "facts/default: skipped (the target has it)" in again.stdout
    assert open_store(pg.settings, items).get_meta(INCOMPLETE) is None
    both = runner.invoke(app, ["migrate", "--from", "sqlite", "--skip-existing", "--replace"])
    assert both.exit_code == 2 and "--replace and --skip-existing exclude each other" in both.stderr


def test_an_interrupted_copy_leaves_no_half_namespace(copied, monkeypatch):
    _, lite, pg, _, url = copied
    drop_store(pg.settings, "facts/default")
    real = transfer.copy_namespace

    def interrupted(source, target):
        target.upsert_nodes(source.get_nodes([n.id for n in source.iter_nodes()][:5]))
        raise KeyboardInterrupt  # Ctrl-C halfway

    monkeypatch.setattr(transfer, "copy_namespace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        transfer.copy_namespaces(lite.settings, url, ["facts/default"])
    assert not store_exists(pg.settings, "facts/default")
    monkeypatch.setattr(transfer, "copy_namespace", real)
    done, skipped = transfer.copy_namespaces(lite.settings, url, existing="skip")
    assert [c.namespace for c in done] == ["facts/default"] and len(skipped) == 1
