"""Copy embedded (SQLite) namespaces into PostgreSQL without embedding anything again.

``graphlore migrate --from sqlite --to postgresql://...`` calls :func:`copy_namespaces`.
Each namespace found under the data folder (a ``store.db``, or an older
``index.db`` / ``graph.db``) is read and written through the
:class:`~graphlore.store.base.Store` protocol alone (its listings, and a bulk load on the target): nodes in insertion
order with their passage vectors, lookup keys, edges in the order they were
written (so "latest written first" holds after the copy), and every metadata
value (the embedder's name and dimension among them, so the copy is checked like
the original). The metadata goes last, so a copy cut short is not mistaken for a
finished index (it has no ``last_indexed``). A namespace that already exists in
the target is refused, replaced or skipped, as the caller says (``--replace``,
``--skip-existing``). The source is only read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace

from graphlore.config import Settings
from graphlore.errors import ConfigError, GraphloreError, InvalidInput, NotFound
from graphlore.store import factory
from graphlore.store.base import WRITTEN_AT, Store

BATCH = 1000
#: What :func:`copy_namespaces` does with a namespace the target already holds.
EXISTING = ("refuse", "replace", "skip")
#: Metadata of a target namespace while its copy runs (the copy's last transaction clears it): a copy that
#: a crash cut short is copied again by the next migrate, never taken for a finished one.
INCOMPLETE = "migrate_incomplete"


@dataclass(frozen=True)
class Copied:
    namespace: str
    nodes: int
    passages: int
    keys: int
    edges: int
    meta: int
    seconds: float


def copy_namespace(source: Store, target: Store) -> tuple[int, int, int, int, int]:
    """Copy one namespace through the protocol's listings (nodes with their vectors and keys, edges in the
    order written, every metadata value); counts of nodes, passages, keys, edges, meta values."""
    nodes = passages = keys = edges = 0
    batch: list = []

    def flush_nodes() -> None:
        nonlocal keys
        target.upsert_nodes(batch)
        found = source.node_keys([n.id for n in batch])
        if found:
            target.add_node_keys(found)
        keys += sum(len(v) for v in found.values())
        batch.clear()

    for node in source.iter_nodes(with_vectors=True):
        batch.append(node)
        nodes += 1
        passages += len(node.vectors) if node.vectors is not None else 0
        if len(batch) >= BATCH:
            flush_nodes()
    flush_nodes()
    written: list = []
    for edge in source.iter_edges():
        written.append(edge)
        edges += 1
        if len(written) >= BATCH:
            target.upsert_edges(written)
            written = []
    target.upsert_edges(written)
    meta = source.meta_items()
    copied = {key: value for key, value in meta.items() if key not in ("namespace", WRITTEN_AT)}
    # the metadata last, in one transaction that also ends the copy (the copy records its own last write)
    target.set_meta_many({**copied, INCOMPLETE: None})
    return nodes, passages, keys, edges, len(meta)


def _complete(target_settings: Settings, namespace: str) -> bool:
    """Whether the target holds ``namespace`` whole: it exists, and is not a copy a crash cut short (marked
    :data:`INCOMPLETE`, or still empty)."""
    if not factory.store_exists(target_settings, namespace):
        return False
    try:
        store = factory.open_store(target_settings, namespace)
    except NotFound:  # dropped meanwhile
        return False
    try:
        return store.get_meta(INCOMPLETE) is None and bool(store.count_nodes() or store.count_edges())
    finally:
        store.close()


def copy_namespaces(
    settings: Settings, to_url: str, namespaces: Sequence[str] = (), *, existing: str = "refuse",
    report: Callable[[Copied], None] | None = None,
) -> tuple[list[Copied], list[str]]:
    """Copy ``namespaces`` (default: every one under ``settings.home``) from SQLite into ``to_url``.

    ``existing`` says what happens to a namespace the target already holds: ``refuse`` (nothing is
    copied), ``replace`` (it is dropped and copied again) or ``skip`` (it is left as it is). Returns the
    copies made and the namespaces skipped."""
    if existing not in EXISTING:
        raise InvalidInput(f"existing must be one of {', '.join(EXISTING)}, got {existing!r}")
    if not to_url.startswith(("postgresql://", "postgres://")):
        raise ConfigError(f"--to must be a postgresql:// URL (or set GRAPHLORE_DATABASE_URL), got {to_url[:40]!r}")
    source_settings = replace(settings, database_url="")
    target_settings = replace(settings, database_url=to_url)
    available = factory.sqlite_namespaces(settings.home)
    wanted = [factory.check_namespace(n) for n in namespaces] or available
    missing = [n for n in wanted if n not in available]
    if missing:
        raise InvalidInput(f"no SQLite store for {', '.join(missing)} under {settings.home}; "
                           f"found: {', '.join(available) or 'none'}")
    present = [n for n in wanted if existing != "replace" and _complete(target_settings, n)]
    if present and existing == "refuse":
        raise InvalidInput(f"{', '.join(present)} already exist in the target database; pass --replace to "
                           "copy over them, or --skip-existing to copy only the others")
    done = []
    for namespace in (n for n in wanted if n not in present):
        started = time.perf_counter()
        if factory.store_exists(target_settings, namespace):  # --replace, or a copy a crash cut short
            factory.drop_store(target_settings, namespace)
        source = factory.open_store(source_settings, namespace)
        target = factory.open_store(target_settings, namespace, create=True)
        try:
            target.set_meta(INCOMPLETE, True)
            with target.bulk_load():  # PostgreSQL: the vector index is built once, at the end
                counts = copy_namespace(source, target)
        except BaseException:
            target.close()
            with suppress(GraphloreError):  # if it cannot be dropped, INCOMPLETE still marks it
                factory.drop_store(target_settings, namespace)  # no half copy is left (Ctrl-C included)
            raise
        finally:
            source.close()
            target.close()
        copied = Copied(namespace, *counts, seconds=time.perf_counter() - started)
        done.append(copied)
        if report is not None:
            report(copied)
    return done, present
