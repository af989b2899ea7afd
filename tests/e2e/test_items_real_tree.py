"""The items tools on the real feature-management tree in ../shared/data, indexed in full (slow)."""

from __future__ import annotations

from helpers.items import ids, index, item_folders, search, status


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
