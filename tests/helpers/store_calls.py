"""Count what one tool call asks of the store: every call of a store method and every factory call that
reaches the backend (does the namespace exist, which one is it, open it), outermost calls only (a store
method that calls another counts once).

*Bookkeeping* is everything that is not the tool's data: metadata reads and writes, existence and identity
checks, opening. On PostgreSQL each of these is at least one round trip to the server; on SQLite a query or a
``stat``. ``bench/store_calls.py`` prints the counts per tool, and ``tests/toolsets/test_store_calls.py`` pins
them.
"""

from __future__ import annotations

import functools
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: factory functions that reach the backend, by name
FACTORY = ("store_exists", "store_identity", "open_store", "drop_store", "store_size", "list_namespaces")
#: store methods that are bookkeeping rather than the tool's data (every other store method is data)
BOOKKEEPING_METHODS = ("get_meta", "set_meta", "get_meta_many", "set_meta_many", "meta_items", "last_write")
#: tools that change what they read (counted apart: their writes are their job); every other tool with an
#: example is counted, the query tools that build or refresh an index first included
WRITERS = frozenset({"index", "add_document", "ingest", "extract_document", "split", "merge", "retract", "relation_set",
                     "resolve_links", "check_contradictions", "create_skill", "update_skill",
                     "import_skills", "reindex_skills", "archive_skill", "unarchive_skill", "record_outcome", "kg_execute"})


@dataclass
class Tally:
    calls: Counter

    @property
    def total(self) -> int:
        return sum(self.calls.values())

    @property
    def bookkeeping(self) -> int:
        return sum(n for name, n in self.calls.items() if is_bookkeeping(name))

    def describe(self) -> str:
        return ", ".join(f"{name} {n}" for name, n in sorted(self.calls.items()))


def is_bookkeeping(name: str) -> bool:
    return name.startswith("factory.") or name.split(".")[-1] in BOOKKEEPING_METHODS


def _store_classes() -> list[type]:
    from graphlore.store.sqlite import SQLiteStore

    classes: list[type] = [SQLiteStore]
    try:
        from graphlore.store.postgres import PostgresStore
    except Exception:  # noqa: BLE001 - the postgres extra is not installed
        return classes
    return [*classes, PostgresStore]


@contextmanager
def counting() -> Iterator[Counter]:
    """Count store and factory calls while the block runs (every thread; outermost calls only)."""
    from graphlore.store import factory

    counts: Counter = Counter()
    local = threading.local()
    patched: list[tuple[Any, str, Any]] = []

    def wrap(owner: Any, name: str, label: str) -> None:
        original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)

        @functools.wraps(original)
        def counted(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(local, "depth", 0)
            if depth == 0:
                counts[label] += 1
            local.depth = depth + 1
            try:
                result = original(*args, **kwargs)
            finally:
                local.depth = depth
            return result

        patched.append((owner, name, original))
        setattr(owner, name, counted)

    for name in FACTORY:
        wrap(factory, name, f"factory.{name}")
    for cls in _store_classes():
        for name, member in list(vars(cls).items()):
            if not name.startswith("_") and callable(member) and name not in ("close", "atomic", "parallel_reads"):
                wrap(cls, name, name)
    try:
        yield counts
    finally:
        for owner, name, original in reversed(patched):
            setattr(owner, name, original)


def warm_call(call: Callable[[], Any], repeat: int = 1, settle: Callable[[], Any] | None = None) -> Tally:
    """Run ``call`` once untimed and uncounted (cold: the index built, the stores opened), let ``settle``
    wait for what it started in the background (an items index embedding after a first search), then count
    the next ``repeat`` calls (their counts per call, rounded up)."""
    call()
    if settle is not None:
        settle()
    with counting() as counts:
        for _ in range(repeat):
            call()
    return Tally(Counter({k: -(-v // repeat) for k, v in counts.items()}))


def example_calls(toolset: str, runtime: Any, folder: Path) -> dict[str, Mapping[str, Any]]:
    """The first valid example of each tool of ``toolset`` that is not a writer (its ``examples`` hook), by
    tool name."""
    from graphlore.toolsets import load_toolset

    spec = load_toolset(toolset)
    examples = spec.examples(runtime, folder) if spec.examples else {}
    return {tool.name: examples[tool.name][0] for tool in spec.tools
            if tool.name not in WRITERS and examples.get(tool.name)}


def run_tool(toolset: str, tool: str, runtime: Any, arguments: Mapping[str, Any]) -> Any:
    """Call one tool as the adapters do (request parsed, paths confined, context when it takes one)."""
    from graphlore.contract import parse_request
    from graphlore.tools import CallContext
    from graphlore.toolsets import load_toolset

    spec = load_toolset(toolset).tool(tool)
    extra: dict[str, Any] = {}
    if spec.context:
        extra["context"] = CallContext(session="store-calls")
    return spec.call(runtime, parse_request(spec.request, dict(arguments)), **extra)


def per_tool(toolset: str, runtime: Any, folder: Path, tools: Sequence[str] | None = None) -> dict[str, Tally]:
    """Warm counts of each tool of ``toolset`` that is not a writer, with its first example (``tools``: only
    those)."""
    from graphlore.toolsets.folder_index import BackgroundWork

    calls = example_calls(toolset, runtime, folder)
    settle = lambda: runtime.state(BackgroundWork).wait_all(timeout=300)  # noqa: E731
    return {tool: warm_call(lambda t=tool, a=arguments: run_tool(toolset, t, runtime, a), settle=settle)
            for tool, arguments in calls.items() if tools is None or tool in tools}
