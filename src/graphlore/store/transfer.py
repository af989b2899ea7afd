"""Copy embedded (SQLite) namespaces into PostgreSQL without embedding anything again.

``graphlore migrate --from sqlite --to postgresql://...`` calls :func:`copy_namespaces`.
Each namespace found under the data folder (a ``store.db``, or an older
``index.db`` / ``graph.db``) is read through the SQLite store and written through
the target's :class:`~graphlore.store.base.Store` protocol: nodes in insertion
order with their passage vectors, lookup keys, edges in the order they were
written (so "latest written first" holds after the copy), and every metadata
value (the embedder's name and dimension among them, so the copy is checked like
the original). The metadata goes last, so a copy cut short is not mistaken for a
finished index (it has no ``last_indexed``); copying onto a namespace that
already exists is refused unless ``replace`` is given. The source is only read.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from graphlore.config import Settings
from graphlore.errors import ConfigError, InvalidInput
from graphlore.store import factory
from graphlore.store.base import Store

BATCH = 1000


@dataclass(frozen=True)
class Copied:
    namespace: str
    nodes: int
    passages: int
    keys: int
    edges: int
    meta: int
    seconds: float


def sqlite_namespaces(home: Path) -> list[str]:
    """Every namespace with a store file under ``home``, sorted."""
    found = set()
    for name in (factory.STORE_FILE, *factory.LEGACY_FILES):
        for path in home.rglob(name):
            namespace = path.parent.relative_to(home).as_posix()
            try:
                found.add(factory.check_namespace(namespace))
            except InvalidInput:
                continue
    return sorted(found)


def _chunks(items: Sequence, size: int = BATCH) -> Iterator[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def copy_namespace(source: Store, target: Store) -> tuple[int, int, int, int, int]:
    """Copy one namespace (``source`` a SQLite store); counts of nodes, passages, keys, edges, meta values."""
    conn = source._conn  # the listings the protocol has no method for (all keys, edges by write order, meta)
    ids = [r[0] for r in conn.execute("SELECT id FROM nodes ORDER BY rowid")]
    passages = 0
    for chunk in _chunks(ids):
        nodes = source.get_nodes(list(chunk), with_vectors=True)
        passages += sum(len(n.vectors) for n in nodes if n.vectors is not None)
        target.upsert_nodes(nodes)
    keys: dict[str, list[str]] = {}
    for key, node_id in conn.execute(
            "SELECT k.key, n.id FROM node_keys k JOIN nodes n ON n.rowid = k.node_rowid ORDER BY n.rowid, k.key"):
        keys.setdefault(node_id, []).append(key)
    for chunk in _chunks(list(keys)):
        target.add_node_keys({node_id: keys[node_id] for node_id in chunk})
    edge_ids = [r[0] for r in conn.execute("SELECT id FROM edges ORDER BY rowid")]
    for chunk in _chunks(edge_ids):
        target.upsert_edges(source.get_edges(list(chunk)))
    meta = conn.execute("SELECT key, value FROM meta ORDER BY key").fetchall()
    with target.atomic():
        for key, value in meta:
            if key != "namespace":
                target.set_meta(key, json.loads(value))
    return len(ids), passages, sum(len(v) for v in keys.values()), len(edge_ids), len(meta)


def copy_namespaces(
    settings: Settings, to_url: str, namespaces: Sequence[str] = (), *, replace_existing: bool = False,
    report: Callable[[Copied], None] | None = None,
) -> list[Copied]:
    """Copy ``namespaces`` (default: every one under ``settings.home``) from SQLite into ``to_url``."""
    if not to_url.startswith(("postgresql://", "postgres://")):
        raise ConfigError(f"--to must be a postgresql:// URL (or set GRAPHLORE_DATABASE_URL), got {to_url[:40]!r}")
    source_settings = replace(settings, database_url="")
    target_settings = replace(settings, database_url=to_url)
    available = sqlite_namespaces(settings.home)
    wanted = [factory.check_namespace(n) for n in namespaces] or available
    missing = [n for n in wanted if n not in available]
    if missing:
        raise InvalidInput(f"no SQLite store for {', '.join(missing)} under {settings.home}; "
                           f"found: {', '.join(available) or 'none'}")
    if not replace_existing:
        present = [n for n in wanted if factory.store_exists(target_settings, n)]
        if present:
            raise InvalidInput(f"{', '.join(present)} already exist in the target database; "
                               "pass --replace to copy over them")
    done = []
    for namespace in wanted:
        started = time.perf_counter()
        if factory.store_exists(target_settings, namespace):
            factory.drop_store(target_settings, namespace)
        source = factory.open_store(source_settings, namespace)
        target = factory.open_store(target_settings, namespace, create=True)
        bulk = getattr(target, "deferred_index", None)  # PostgreSQL: build the vector index once, at the end
        try:
            if bulk is not None:
                with bulk():
                    counts = copy_namespace(source, target)
            else:
                counts = copy_namespace(source, target)
        finally:
            source.close()
            target.close()
        copied = Copied(namespace, *counts, seconds=time.perf_counter() - started)
        done.append(copied)
        if report is not None:
            report(copied)
    return done
