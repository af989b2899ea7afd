"""The numbered results of recent searches, so ``cat N`` can expand them.

Over MCP each session keeps its own latest search, in the server's memory
(bounded; sessions never see each other's). The CLI keeps its searches in
``{graph folder}/cli-searches.json``, so ``graphsift facts cat 2`` in a later
command expands the latest ``graphsift facts search``. Every search also has a
``search_id``; ``cat`` may name it, which is the only way on MCP connections that
have no session (2026-07-28 over HTTP).
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path

from graphsift.contract import quote
from graphsift.errors import InvalidInput, NotFound
from graphsift.runtime import Runtime
from graphsift.tools import CallContext

#: Searches kept in memory per server process, and in the CLI's file per graph.
MEMORY_SEARCHES = 10_000
FILE_SEARCHES = 20
CLI_FILE = "cli-searches.json"


@dataclass
class SavedSearch:
    search_id: str
    graph: str
    session: str | None
    facts: list[str]  # fact ids, result 1 first
    created: float


class Searches:
    """Per-process state: every session's latest search (bounded)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.searches: OrderedDict[str, SavedSearch] = OrderedDict()
        self.latest: dict[tuple[str, str], str] = {}


def _read_file(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {"latest": None, "searches": {}}


def remember(runtime: Runtime, folder: Path, graph: str, context: CallContext, facts: list[str]) -> str:
    saved = SavedSearch("s" + secrets.token_hex(4), graph, context.session, facts, time.time())
    if context.durable:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / CLI_FILE
        data = _read_file(path)
        data["searches"][saved.search_id] = asdict(saved)
        for old in sorted(data["searches"], key=lambda k: data["searches"][k]["created"])[:-FILE_SEARCHES]:
            del data["searches"][old]
        data["latest"] = saved.search_id
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)  # atomic: a concurrent reader sees the old or the new file
        return saved.search_id
    memory = runtime.state(Searches)
    with memory.lock:
        memory.searches[saved.search_id] = saved
        while len(memory.searches) > MEMORY_SEARCHES:
            memory.searches.popitem(last=False)
        if context.session is not None:
            memory.latest[(graph, context.session)] = saved.search_id
    return saved.search_id


def recall(runtime: Runtime, folder: Path, graph: str, context: CallContext, search_id: str | None) -> SavedSearch:
    """The search to expand: the named one (if it belongs to this caller) or this session's latest."""
    if context.durable:
        data = _read_file(folder / CLI_FILE)
        wanted = search_id or data.get("latest")
        if wanted is None:
            raise InvalidInput(f"no search yet on graph {graph!r}: run graphsift facts search first, then cat N")
        found = data["searches"].get(wanted)
        if found is None:
            raise NotFound(f"no search {quote(wanted)} on graph {graph!r} (the CLI keeps the last {FILE_SEARCHES}); "
                           "search again")
        return SavedSearch(**found)
    memory = runtime.state(Searches)
    with memory.lock:
        if search_id is None:
            if context.session is None:
                raise InvalidInput(
                    "this MCP connection has no session (protocol 2026-07-28 over HTTP), so there is no latest "
                    "search: pass search_id from the search answer"
                )
            search_id = memory.latest.get((graph, context.session))
            if search_id is None:
                raise InvalidInput(f"no search yet in this session on graph {graph!r}: call search first, then cat")
        found = memory.searches.get(search_id)
    if found is None or found.graph != graph or found.session != context.session:
        raise NotFound(f"no search {quote(search_id)} in this session on graph {graph!r}; search again")
    return found
