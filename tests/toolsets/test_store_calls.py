"""What a warm tool call asks of the store (``helpers.store_calls``): at most three round trips of
bookkeeping (opening, metadata, existence and identity checks) per call, for every tool of every toolset
that is not a writer, in a long-running server's runtime; ``bench/store_calls.py`` prints the counts."""

from __future__ import annotations

import pytest
from helpers import backend
from helpers.store_calls import per_tool

from graphlore.runtime import Runtime
from graphlore.toolsets import TOOLSETS

#: the bookkeeping of a warm call: the identity check of opening and one read of the handle's metadata
SEARCHES = {"items": "search", "facts": "find", "code": "find", "skills": "search_skills"}


@pytest.mark.parametrize("toolset", list(TOOLSETS))
def test_a_warm_call_makes_at_most_three_round_trips_of_bookkeeping(toolset, tmp_path, embedder):
    folder = tmp_path / "data"
    folder.mkdir()
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder, watch_files=True)
    try:
        counted = per_tool(toolset, runtime, folder)
    finally:
        runtime.close()
    assert SEARCHES[toolset] in counted and len(counted) >= 4
    over = {tool: tally.describe() for tool, tally in counted.items() if tally.bookkeeping > 3}
    assert over == {}
    search = counted[SEARCHES[toolset]]
    assert search.bookkeeping == 2, search.describe()
    assert search.calls["factory.store_identity"] == 1 and search.calls["get_meta_many"] == 1
