"""Allowed roots reach every file the items tools read, not only the folder a request names: a file (or an
item folder) inside an allowed project that is a symlink leading out of the roots is never read, and the
index warns, naming it by its path in the project (never its target)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import backend
from helpers import paths as PATHS
from helpers.items import index, search, status

from graphlore.roots import ESCAPES, escapes
from graphlore.runtime import Runtime
from graphlore.toolsets.items import tools
from graphlore.toolsets.items.index import KIND, ItemIndex
from graphlore.toolsets.items.models import CheckDuplicatesRequest

SECRET = "zanzibarquokka"  # a word only the outside files hold
LINKED_PROMPT = "bugs/BUG-001-offline-edits-lost-on-sync-conflict/PROMPT.md"


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(allowed root, the project inside it, a folder outside): the project's PROMPT.md of one item, one whole
    item folder and .agent-config.json are symlinks out; another PROMPT.md is a symlink to a file elsewhere
    inside the root (allowed)."""
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    project = allowed / "fm"
    shutil.copytree(PATHS.EXAMPLE_TREE, project)
    outside.mkdir()
    (outside / "secret.md").write_text(f"# Secret\n\nThe {SECRET} plan.\n")
    linked = project / LINKED_PROMPT
    assert linked.is_file(), "the example tree changed: pick another item"
    linked.unlink()
    linked.symlink_to(outside / "secret.md")
    item = outside / "BUG-077-outside"
    item.mkdir()
    (item / "bug_report.json").write_text(json.dumps({"title": f"The {SECRET} bug", "description": SECRET}))
    (item / "PROMPT.md").write_text(f"{SECRET} everywhere\n")
    (project / "bugs" / "BUG-077-outside").symlink_to(item)
    (outside / "config.json").write_text(json.dumps({"duplicate_similarity_threshold": 0.11}))
    (project / ".agent-config.json").unlink(missing_ok=True)
    (project / ".agent-config.json").symlink_to(outside / "config.json")
    shared = allowed / "shared"
    shared.mkdir()
    (shared / "prompt.md").write_text("Shared notes about the quokkaharbour rollout.\n")
    inside = next(p for p in (project / "features").iterdir() if (p / "PROMPT.md").is_file())
    (inside / "PROMPT.md").unlink()
    (inside / "PROMPT.md").symlink_to(shared / "prompt.md")
    return allowed, project, outside


def confined(settings, embedder, allowed: Path) -> Runtime:
    return Runtime(backend.settings_for(settings.home, allowed_roots=str(allowed)), embedder=embedder)


def test_escapes_follows_every_symlink_and_confines_nothing_without_roots(layout):
    allowed, project, outside = layout
    roots = (allowed.resolve(),)
    assert escapes(project / LINKED_PROMPT, roots)
    assert escapes(project / "bugs" / "BUG-077-outside" / "PROMPT.md", roots)
    assert escapes(project / "features" / ".." / ".." / ".." / "outside" / "secret.md", roots)
    assert not escapes(project / "bugs", roots) and not escapes(allowed / "shared" / "prompt.md", roots)
    assert not escapes(project / "no-such-file", roots)
    assert not escapes(outside / "secret.md", ())


def test_a_symlink_out_of_the_roots_is_never_read_and_the_index_names_it(layout, settings, embedder):
    allowed, project, outside = layout
    runtime = confined(settings, embedder, allowed)
    built = index(runtime, project)
    refused = [w for w in built.warnings if ESCAPES in w]
    assert sorted(w.split(":")[0] for w in refused) == sorted([
        LINKED_PROMPT, "bugs/BUG-077-outside/bug_report.json", "bugs/BUG-077-outside/PROMPT.md"])
    assert not any(str(outside) in w for w in built.warnings)  # the target is never named
    store = ItemIndex(runtime, project).store()
    texts = [n.text + json.dumps(n.props) for n in store.iter_nodes(KIND)]
    assert texts and not any(SECRET in t for t in texts)
    assert any("quokkaharbour" in t for t in texts)  # a symlink that stays inside the roots is read
    assert not any(SECRET in r.title for r in search(runtime, project, SECRET, threshold=0.0).results)
    after = status(runtime, project)
    assert not after.is_stale and after.stale_files == []
    assert not any(ESCAPES in f for f in after.stale_files)
    answer = tools.check_duplicates(runtime, CheckDuplicatesRequest(
        project_path=str(project), title="Sync conflict", description="offline edits"))
    assert answer.threshold_used == 0.94  # the outside config's 0.11 was not read
    assert answer.warnings == [f".agent-config.json: {ESCAPES}; using the default duplicate_similarity_threshold 0.94"]


def test_content_read_without_roots_is_dropped_when_a_confined_server_updates(layout, settings, embedder):
    allowed, project, _ = layout
    free = Runtime(settings, embedder=embedder)  # the CLI, as the user: no roots, symlinks followed
    index(free, project)
    store = ItemIndex(free, project).store()
    assert any(SECRET in n.text for n in store.iter_nodes(KIND))
    free.close()
    runtime = confined(settings, embedder, allowed)
    assert status(runtime, project).is_stale  # the outside files no longer count as the project's
    updated = index(runtime, project)
    assert updated.status == "updated"
    store = ItemIndex(runtime, project).store()
    assert not any(SECRET in n.text + json.dumps(n.props) for n in store.iter_nodes(KIND))
