"""check_duplicates, get_similar and get_index_status on the shared featmgmt tree exactly as it is.

That tree's .agent-config.json is what featmgmt's own init script wrote: not valid JSON (a broken
component_detection_keywords block), with "duplicate_similarity_threshold": 0.75. The duplicate tools
must run on it, use that threshold, and say how the file was read. The tree is indexed once for the
module (real embedder, index under a temp GRAPHSIFT_HOME; the tree is only read).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphsift.config import Settings
from graphsift.runtime import Runtime
from graphsift.toolsets.items import tools
from graphsift.toolsets.items.config import CONFIG_FILE
from graphsift.toolsets.items.models import (
    CheckDuplicatesRequest,
    GetIndexStatusRequest,
    GetSimilarRequest,
    IndexRequest,
)


@pytest.fixture(scope="module")
def real(shared_data, embedder, tmp_path_factory) -> tuple[Runtime, Path]:
    root = shared_data / "featmgmt" / "feature-management"
    runtime = Runtime(Settings(home=tmp_path_factory.mktemp("home")), embedder=embedder)
    before = tools.get_index_status(runtime, GetIndexStatusRequest(project_path=str(root)))
    assert not before.exists and before.warnings == expected_warnings(root)  # reported before any index too
    assert tools.index(runtime, IndexRequest(project_path=str(root))).items_indexed > 0
    return runtime, root


def expected_warnings(root: Path) -> list[str]:
    """One warning when the file is not valid JSON (as shipped), none if someone fixed it."""
    raw = (root / CONFIG_FILE).read_text(encoding="utf-8")
    try:
        json.loads(raw)
    except ValueError as exc:
        return [f"{root / CONFIG_FILE}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); read "
                "duplicate_similarity_threshold = 0.75 from it and ignored the rest; fix the file so other tools "
                "can read it too"]
    return []


def test_check_duplicates_runs_on_the_real_tree(real):
    runtime, root = real
    source = json.loads((root / "features" / "FEAT-010-semantic-search-mcp" / "feature_request.json").read_text())
    out = tools.check_duplicates(runtime, CheckDuplicatesRequest(
        title=source["title"], description=source["description"], project_path=str(root)))
    assert out.threshold_used == 0.75  # the number the broken file holds
    assert out.warnings == expected_warnings(root)
    assert out.potential_duplicates[0].item_id == "FEAT-010" and out.has_likely_duplicates


def test_get_similar_runs_on_the_real_tree(real):
    runtime, root = real
    out = tools.get_similar(runtime, GetSimilarRequest(item_id="FEAT-010", project_path=str(root), limit=5))
    assert out.source_item.item_id == "FEAT-010" and len(out.similar_items) == 5
    assert all(i.item_id != "FEAT-010" for i in out.similar_items)
    assert out.warnings == expected_warnings(root)
    for item in out.similar_items:
        assert (item.relationship == "LIKELY_DUPLICATE") == (item.similarity_score >= 0.75)


def test_get_index_status_reports_how_the_config_was_read(real):
    runtime, root = real
    out = tools.get_index_status(runtime, GetIndexStatusRequest(project_path=str(root)))
    assert out.exists and not out.is_stale and out.warnings == expected_warnings(root)
