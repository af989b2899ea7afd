"""The numbered results of recent searches, kept in the store, so ``cat N`` can expand them.

Every search has a ``search_id``; ``cat`` may name it, which is the only way on MCP connections that
have no session (2026-07-28 over HTTP). A session also has a latest search, which ``cat`` expands when
it names none. Sessions: each stdio server process is one (:meth:`Runtime.instance`), an HTTP session
its ``Mcp-Session-Id``, the CLI one session across commands (``cli``); sessions never see each other's
searches.

**In the store.** The searches of graph ``g`` live in the namespace ``facts/g/searches``, beside the
graph and dropped with it: a node per search (kind ``search``, id = search id; props: the session, the
fact ids in result order, what was searched, when) and a node per session (kind ``latest``: its latest
search id, or why its latest search failed). So every server process that shares the store answers
``cat`` for a search another one ran (several servers behind a load balancer, a CLI command after
another). Not in the graph's own namespace: saving a search is not a write of the graph (its last write
stays the last ingest), and it never waits for the graph's write lock while a long ingest holds it.

**Retention**: the :data:`KEEP_SEARCHES` newest searches of a graph and the latest search of its
:data:`KEEP_SESSIONS` most recently active sessions; older ones are dropped as new ones are saved
(:func:`remember`), so ``cat`` on a search that old is "no search ...; search again".

A search that fails replaces the session's latest search with the failure (:func:`forget`): ``cat N``
right after it refuses with the failure's reason instead of expanding the search before, whose results
answer another question. Each saved search keeps what it searched (selectors, dates, query), which
``cat`` repeats.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from graphlore.contract import quote
from graphlore.errors import InvalidInput, NotFound
from graphlore.runtime import Runtime
from graphlore.store import Node, Store
from graphlore.tools import CallContext
from graphlore.toolsets.handle import Namespace

#: Searches kept per graph, and sessions whose latest search is kept, newest first (see the docstring).
KEEP_SEARCHES = 10_000
KEEP_SESSIONS = 10_000
SEARCH = "search"
LATEST = "latest"
#: Trimming runs once a kind holds this many rows more than it keeps (not on every save).
TRIM_SLACK = 100


@dataclass
class SavedSearch:
    search_id: str
    graph: str
    session: str | None
    facts: list[str]  # fact ids, result 1 first
    created: float
    #: what was searched (a SearchSummary as JSON)
    summary: dict[str, Any] | None = None


def namespace(graph: str) -> str:
    """Where the searches of ``graph`` are kept."""
    return f"facts/{graph}/searches"


def _latest_id(session: str) -> str:
    return f"latest:{session}"


def _store(runtime: Runtime, graph: str, create: bool) -> Store | None:
    """The searches' store (None when none was saved yet and ``create`` is false), opened through the namespace
    handle: no separate existence check, so a warm ``cat`` pays one identity check for it."""
    return Namespace(runtime, namespace(graph), what=f"the searches of graph {graph!r}").open(create=create)


def remember(runtime: Runtime, graph: str, context: CallContext, facts: list[str],
             summary: dict[str, Any] | None = None) -> str:
    """Save a search (it becomes the session's latest); its id."""
    search_id = "s" + secrets.token_hex(4)
    now = time.time()
    store = _store(runtime, graph, create=True)
    assert store is not None
    with store.atomic():
        rows = [Node(search_id, SEARCH, props={"session": context.session, "facts": facts, "summary": summary,
                                               "created": now})]
        if context.session is not None:
            rows.append(Node(_latest_id(context.session), LATEST, props={"search_id": search_id, "at": now}))
        store.upsert_nodes(rows)
        _trim(store, SEARCH, "created", KEEP_SEARCHES)
        _trim(store, LATEST, "at", KEEP_SESSIONS)
    return search_id


def _trim(store: Store, kind: str, order: str, keep: int) -> None:
    """Drop the oldest rows of ``kind`` past ``keep`` (once they are :data:`TRIM_SLACK` past it)."""
    count = store.count_nodes(kind)
    if count > keep + TRIM_SLACK:
        store.delete_nodes(store.list_node_ids(kind, order_by=order, limit=count - keep))


def forget(runtime: Runtime, graph: str, context: CallContext, reason: str) -> None:
    """A search failed: it becomes the session's latest, so ``cat`` cannot expand the one before it.

    Earlier searches stay expandable by ``search_id``. Nothing is created when there is nothing to
    forget (a failed search on a graph that never saved a search leaves no store behind).
    """
    if context.session is None:
        return
    store = _store(runtime, graph, create=False)
    if store is None:
        return
    store.upsert_nodes([Node(_latest_id(context.session), LATEST, props={"failed": reason, "at": time.time()})])


def _refuse_failed(reason: str) -> InvalidInput:
    return InvalidInput(
        f"the latest search on this graph failed, so there are no results to expand ({reason}); run the search "
        "again with the problem fixed, then cat N (an earlier search can still be expanded with its search_id)"
    )


def recall(runtime: Runtime, graph: str, context: CallContext, search_id: str | None) -> SavedSearch:
    """The search to expand: the named one (if it belongs to this caller) or this session's latest."""
    store = _store(runtime, graph, create=False)
    if search_id is None:
        if context.session is None:
            raise InvalidInput(
                "this MCP connection has no session (protocol 2026-07-28 over HTTP), so there is no latest "
                "search: pass search_id from the search answer"
            )
        [latest] = (store.get_nodes([_latest_id(context.session)]) if store is not None else []) or [None]
        if latest is not None and latest.props.get("failed") is not None:
            raise _refuse_failed(latest.props["failed"])
        if latest is None:
            raise InvalidInput(f"no search yet in this session on graph {graph!r}: search first (CLI: graphlore facts "
                               "search), then cat N")
        search_id = latest.props["search_id"]
    [found] = (store.get_nodes([search_id]) if store is not None else []) or [None]
    if found is None or found.kind != SEARCH or found.props["session"] != context.session:
        raise NotFound(f"no search {quote(search_id)} in this session on graph {graph!r} (the newest "
                       f"{KEEP_SEARCHES:,} searches of a graph are kept); search again")
    props = found.props
    return SavedSearch(found.id, graph, props["session"], props["facts"], props["created"], props["summary"])
