"""The change feed that lets a long-running server skip the per-call mtime walk."""

from __future__ import annotations

import os
import shutil

from conftest import EXAMPLE_TREE

from graphlore.runtime import Runtime
from graphlore.toolsets.items import models, tools
from graphlore.watch import ChangeFeed


def test_feed_reports_writes_touches_and_new_folders(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f.txt").write_text("x")
    feed = ChangeFeed(tmp_path)
    assert feed.changed() is True  # first call: unknown, so "changed"
    assert feed.changed() is False
    (tmp_path / "a" / "f.txt").write_text("y")
    assert feed.changed() is True
    assert feed.changed() is False
    os.utime(tmp_path / "a" / "f.txt", None)
    assert feed.changed() is True
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "g.txt").write_text("1")
    assert feed.changed() is True
    (tmp_path / "b" / "g.txt").write_text("2")  # inside a folder created after the feed started
    assert feed.changed() is True
    feed.invalidate()
    assert feed.changed() is True
    feed.close()


def test_watching_runtime_sees_an_edit_made_right_before_the_search(tmp_path, settings, embedder):
    project = tmp_path / "fm"
    shutil.copytree(EXAMPLE_TREE, project)
    runtime = Runtime(settings, embedder=embedder, watch_files=True)
    request = models.SearchRequest(query="quantum teleportation of notebooks", project_path=str(project),
                                   threshold=0.0, limit=1)
    first = tools.search(runtime, request)
    assert first.results[0].item_id != "BUG-002"
    report = next((project / "bugs").glob("BUG-002-*")) / "bug_report.json"
    text = report.read_text().replace('"title": "', '"title": "Quantum teleportation of notebooks; ', 1)
    assert text != report.read_text()
    report.write_text(text)
    second = tools.search(runtime, request)
    assert second.results[0].item_id == "BUG-002"


def test_two_toolsets_watching_one_folder_each_see_every_change(tmp_path, settings, embedder):
    """In a server of several toolsets, items and code may index one folder (a repository that holds its
    feature-management folders beside its code): a change one of them reads is still a change for the other."""
    from graphlore.toolsets.code.query import models as code_models
    from graphlore.toolsets.code.query import tools as code_tools

    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE_TREE, repo)
    (repo / "pyproject.toml").write_text('[project]\nname = "shop"\nversion = "0.1"\n')
    (repo / "shop").mkdir()
    (repo / "shop" / "__init__.py").write_text("")
    (repo / "shop" / "orders.py").write_text("def place_order(order):\n    return order\n")
    runtime = Runtime(settings, embedder=embedder, watch_files=True)
    items = models.SearchRequest(query="offline sync", project_path=str(repo), threshold=0.0, limit=1)
    code = code_models.ResolveRequest(identifier="teleport_notebooks", project_path=str(repo))
    tools.search(runtime, items)
    assert code_tools.resolve(runtime, code).status == "none"
    (repo / "shop" / "orders.py").write_text("def teleport_notebooks(order):\n    return order\n")
    tools.search(runtime, items)  # items reads the folder's changes first
    assert code_tools.resolve(runtime, code).status == "one"  # and code still sees the new function
    runtime.close()
