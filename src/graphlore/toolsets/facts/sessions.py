"""The numbered results of recent searches, so ``cat N`` can expand them.

Over MCP each session keeps its own latest search, in the server's memory
(bounded; sessions never see each other's). The CLI keeps its searches in
``{graph folder}/cli-searches.json``, so ``graphlore facts cat 2`` in a later
command expands the latest ``graphlore facts search``. Every search also has a
``search_id``; ``cat`` may name it, which is the only way on MCP connections that
have no session (2026-07-28 over HTTP).

A search that fails replaces the latest search with the failure (:func:`forget`):
``cat N`` right after it refuses with the failure's reason instead of expanding the
search before, whose results answer another question. Each saved search keeps what
it searched (selectors, dates, query), which ``cat`` repeats.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from graphlore.contract import quote
from graphlore.errors import InvalidInput, NotFound
from graphlore.runtime import Runtime
from graphlore.tools import CallContext

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
    #: what was searched (a SearchSummary as JSON); None for CLI searches saved by an older graphlore
    summary: dict[str, Any] | None = field(default=None)


@dataclass(frozen=True)
class FailedSearch:
    """The latest search of a session failed: ``cat`` without ``search_id`` refuses with this reason."""

    reason: str


class Searches:
    """Per-process state: every session's latest search (bounded)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.searches: OrderedDict[str, SavedSearch] = OrderedDict()
        self.latest: dict[tuple[str, str], str | FailedSearch] = {}


def _read_file(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {"latest": None, "searches": {}}


def remember(runtime: Runtime, folder: Path, graph: str, context: CallContext, facts: list[str],
             summary: dict[str, Any] | None = None) -> str:
    saved = SavedSearch("s" + secrets.token_hex(4), graph, context.session, facts, time.time(), summary)
    if context.durable:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / CLI_FILE
        data = _read_file(path)
        data["searches"][saved.search_id] = asdict(saved)
        for old in sorted(data["searches"], key=lambda k: data["searches"][k]["created"])[:-FILE_SEARCHES]:
            del data["searches"][old]
        data["latest"] = saved.search_id
        data.pop("failed", None)
        _write_file(path, data)
        return saved.search_id
    memory = runtime.state(Searches)
    with memory.lock:
        memory.searches[saved.search_id] = saved
        while len(memory.searches) > MEMORY_SEARCHES:
            memory.searches.popitem(last=False)
        if context.session is not None:
            memory.latest[(graph, context.session)] = saved.search_id
    return saved.search_id


def _write_file(path: Path, data: dict) -> None:
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    tmp.replace(path)  # atomic: a concurrent reader sees the old or the new file


def forget(runtime: Runtime, folder: Path, graph: str, context: CallContext, reason: str) -> None:
    """A search failed: it becomes the session's latest, so ``cat`` cannot expand the one before it.

    Earlier searches stay expandable by ``search_id``. Nothing is created when there is nothing to
    forget (a failed search on a graph without data leaves no file behind).
    """
    if context.durable:
        path = folder / CLI_FILE
        if path.is_file():
            data = _read_file(path)
            data["latest"] = None
            data["failed"] = reason
            _write_file(path, data)
        return
    if context.session is None:
        return
    memory = runtime.state(Searches)
    with memory.lock:
        memory.latest[(graph, context.session)] = FailedSearch(reason)


def _refuse_failed(reason: str) -> InvalidInput:
    return InvalidInput(
        f"the latest search on this graph failed, so there are no results to expand ({reason}); run the search "
        "again with the problem fixed, then cat N (an earlier search can still be expanded with its search_id)"
    )


def recall(runtime: Runtime, folder: Path, graph: str, context: CallContext, search_id: str | None) -> SavedSearch:
    """The search to expand: the named one (if it belongs to this caller) or this session's latest."""
    if context.durable:
        data = _read_file(folder / CLI_FILE)
        wanted = search_id or data.get("latest")
        if wanted is None and data.get("failed"):
            raise _refuse_failed(data["failed"])
        if wanted is None:
            raise InvalidInput(f"no search yet on graph {graph!r}: run graphlore facts search first, then cat N")
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
            latest = memory.latest.get((graph, context.session))
            if isinstance(latest, FailedSearch):
                raise _refuse_failed(latest.reason)
            if latest is None:
                raise InvalidInput(f"no search yet in this session on graph {graph!r}: call search first, then cat")
            search_id = latest
        found = memory.searches.get(search_id)
    if found is None or found.graph != graph or found.session != context.session:
        raise NotFound(f"no search {quote(search_id)} in this session on graph {graph!r}; search again")
    return found
