"""The items tools on the real feature-management tree in ../shared/data, indexed in full once for the module (slow).

That tree's .agent-config.json is what featmgmt's own init script wrote: not valid JSON (a broken
component_detection_keywords block), with "duplicate_similarity_threshold": 0.75. check_duplicates and
get_similar must run on it, use that threshold, and say how the file was read; get_index_status says so
too, before any index and after. The tree is only read (the index lives under a temp GRAPHLORE_HOME).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.backend import settings_for
from helpers.items import ids, index, item_folders, search, status

from graphlore.runtime import Runtime
from graphlore.toolsets.items import tools
from graphlore.toolsets.items.config import CONFIG_FILE
from graphlore.toolsets.items.models import CheckDuplicatesRequest, GetSimilarRequest


@pytest.fixture(scope="module")
def real(shared_data, embedder, tmp_path_factory):
    """(runtime, tree, status before the index, the index answer): the tree indexed once."""
    root = shared_data / "featmgmt" / "feature-management"
    runtime = Runtime(settings_for(tmp_path_factory.mktemp("home")), embedder=embedder)
    before = status(runtime, root)
    result = index(runtime, root)
    return runtime, root, before, result


def expected_warnings(root: Path) -> list[str]:
    """One warning when the file is not valid JSON (as shipped), none if someone fixed it. The tools name
    the project by its real path (symlinks followed, as the allowed-roots check reads it)."""
    root = root.resolve()
    raw = (root / CONFIG_FILE).read_text(encoding="utf-8")
    try:
        json.loads(raw)
    except ValueError as exc:
        return [f"{root / CONFIG_FILE}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); read "
                "duplicate_similarity_threshold = 0.75 from it and ignored the rest; fix the file so other tools "
                "can read it too"]
    return []


def test_real_tree_indexes_without_crashing(real):
    runtime, root, _, result = real
    expected = item_folders(root)
    print(
        f"\nreal tree: {result.items_indexed} items, {len(result.warnings)} warnings, {result.duration_ms} ms"
    )
    for warning in result.warnings:
        print("  warning:", warning)
    assert result.status == "created"
    assert result.items_indexed == len(expected) > 0
    st = status(runtime, root)
    assert not st.is_stale and not any("agent_runs" in f for f in st.stale_files)

    everything = search(runtime, root, "agent session log", threshold=0.0, limit=100, include_completed=True)
    assert everything.total_results == len(expected)
    assert not any(r.path.startswith("agent_runs") for r in everything.results)
    assert {r.path for r in everything.results} == {p.relative_to(root).as_posix() for p in expected}

    hits = search(runtime, root, "semantic search MCP server for work items", include_completed=True)
    assert hits.results and "FEAT-010" in ids(hits.results)[:3]


def test_check_duplicates_runs_on_the_real_config(real):
    runtime, root, _, _ = real
    source = json.loads((root / "features" / "FEAT-010-semantic-search-mcp" / "feature_request.json").read_text())
    out = tools.check_duplicates(runtime, CheckDuplicatesRequest(
        title=source["title"], description=source["description"], project_path=str(root)))
    assert out.threshold_used == 0.75  # the number the broken file holds
    assert out.warnings == expected_warnings(root)
    assert out.potential_duplicates[0].item_id == "FEAT-010" and out.has_likely_duplicates


def test_get_similar_runs_on_the_real_config(real):
    runtime, root, _, _ = real
    out = tools.get_similar(runtime, GetSimilarRequest(item_id="FEAT-010", project_path=str(root), limit=5))
    assert out.source_item.item_id == "FEAT-010" and len(out.similar_items) == 5
    assert all(i.item_id != "FEAT-010" for i in out.similar_items)
    assert out.warnings == expected_warnings(root)
    for item in out.similar_items:
        assert (item.relationship == "LIKELY_DUPLICATE") == (item.similarity_score >= 0.75)


def test_get_index_status_reports_how_the_config_was_read(real):
    runtime, root, before, _ = real
    assert not before.exists and before.warnings == expected_warnings(root)  # before any index too
    out = status(runtime, root)
    assert out.exists and not out.is_stale and out.warnings == expected_warnings(root)
