"""The items tools on the real feature-management tree in ../shared/data, indexed in full (slow)."""

from __future__ import annotations

import re
from pathlib import Path

from graphsift.runtime import Runtime
from graphsift.toolsets.items import tools
from graphsift.toolsets.items.models import GetIndexStatusRequest, IndexRequest, SearchRequest

TYPE_DIRS = ("bugs", "features", "human-actions", "inquiries")
ITEM_DIR = re.compile(r"^(BUG|FEAT|ACTION|INQ)-\d+")


def item_folders(root: Path) -> list[Path]:
    """Every item folder, found independently of the scanner (agent_runs/ is not a place for items)."""
    dirs = [p for d in (*TYPE_DIRS, "completed") for p in (root / d).glob("*") if p.is_dir()]
    dirs += [p for d in TYPE_DIRS for p in (root / "completed" / d).glob("*") if p.is_dir()]
    return [p for p in dirs if ITEM_DIR.match(p.name)]


def index(runtime: Runtime, root: Path):
    return tools.index(runtime, IndexRequest(project_path=str(root)))


def status(runtime: Runtime, root: Path):
    return tools.get_index_status(runtime, GetIndexStatusRequest(project_path=str(root)))


def search(runtime: Runtime, root: Path, query: str, **kw):
    return tools.search(runtime, SearchRequest(query=query, project_path=str(root), **kw))


def ids(results) -> list[str]:
    return [r.item_id for r in results]



def test_real_tree_indexes_without_crashing(shared_data, runtime):
    root = shared_data / "featmgmt" / "feature-management"
    expected = item_folders(root)
    result = index(runtime, root)
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
