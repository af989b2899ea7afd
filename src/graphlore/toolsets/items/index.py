"""One project's index: how a feature-management folder becomes nodes, and how an update runs.

Where the index lives, its freshness check and its locks are :class:`FolderIndex`'s
(namespace ``items/{sha256(real path)[:12]}``). The store's metadata also keeps the
project path, the scan warnings and the embedder (name, dimension, passage layout).
Only items whose indexed text changed are embedded again, and an update reads only
the item folders whose files changed (the rest are rebuilt from their nodes).

Bounded work per item: at most :data:`MAX_PASSAGES` passages of an item are embedded
(its beginning: the title and description first, then the implementation text); the
rest of its text is still found by keywords, and the item carries a warning saying so.
Embeddings are committed in steps as they are made, so an interrupted update keeps
them and the next one carries on from there.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np

from graphlore.embedding import Embedder
from graphlore.errors import StoreBusy
from graphlore.runtime import Runtime
from graphlore.store import Node, Store
from graphlore.tools import Progress
from graphlore.toolsets.folder_index import (
    EMBED_LOCK,
    INDEX_LOCK,
    PROJECT_PATH,
    BackgroundWork,
    FolderIndex,
    FolderWatches,
    now_iso,
)
from graphlore.toolsets.items.models import IndexResponse
from graphlore.toolsets.items.scan import (
    NEVER_INDEXED,
    ScannedItem,
    check_layout,
    index_text,
    list_item_files,
    scan_project,
)

KIND = "item"
#: metadata: passages per item and the items whose vectors are missing (see :meth:`ItemIndex.update`)
EMBEDDING = "embedding"
#: Background work waits for another process's ``embed`` lock in waits this long (seconds), checking between
#: them whether the runtime is closing.
LOCK_RETRY_S = 0.25
#: How item text becomes passages (see :func:`item_passages`); a change needs a rebuild.
#: 1: the implementation windows repeated the title; 2: they do not.
PASSAGE_LAYOUT = 2
#: At most this many passages of one item are embedded (about 6,000 word pieces; the longest item of the
#: real featmgmt tree in the shared data has 24, so real items are embedded whole).
MAX_PASSAGES = 32


class ItemIndex(FolderIndex):
    """The index of one feature-management folder."""

    toolset = "items"
    skip = NEVER_INDEXED
    layout = PASSAGE_LAYOUT
    meta_keys = ("last_indexed", EMBEDDING)
    #: :meth:`sync` leaves the embeddings to the caller (:meth:`ensure_fresh` in a long-running process)
    defer_embedding = False

    def __init__(self, runtime: Runtime, project_path: str | Path) -> None:
        if str(project_path).strip():  # an empty path gets check_layout's explanation
            runtime.confine(project_path)
        super().__init__(runtime, check_layout(project_path))

    def repair_hint(self) -> str:
        return (f"run the index tool with force=true (CLI: `graphlore items index --force -p "
                f"{shlex.quote(str(self.root))}`)")

    def list_files(self) -> dict[str, float]:
        return list_item_files(self.root, self.runtime.roots)

    def update(self, store: Store, force: bool, progress: Progress | None) -> IndexResponse:
        """The structural phase: bring every item's text, props and keywords up to date in one transaction and
        list the items whose vectors are missing (``embedding.pending``); :meth:`embed_pending` embeds them."""
        started = time.perf_counter()
        existed = store.get_meta("last_indexed") is not None
        self.check_embedder(store)  # also a first build that was interrupted: its vectors must match
        indexed_files: dict[str, float] = store.get_meta("files") or {}
        current_files = self.list_files()
        embedding = self._embedding(store)
        if existed and store.get_meta(EMBEDDING) is None:  # an index made before the bookkeeping: add it once
            store.set_meta(EMBEDDING, embedding)
            self.handle.reread()
        if existed and current_files == indexed_files:
            return self._response("unchanged", store, 0, 0, started, store.get_meta("warnings") or [])

        unchanged = _unchanged_items(store, indexed_files, current_files) if existed else {}
        scan = scan_project(self.root, unchanged, self.runtime.roots)
        known = store.node_hashes(KIND)
        # Read again (new text, files whose mtime moved, or a node stored before it kept its warnings):
        # these nodes are rewritten; their passages are cut to MAX_PASSAGES (with a warning on the item).
        embedder = self.runtime.embedder
        touched, counts = [], {}
        for item in scan.items:
            if unchanged.get(item.path) is item and known.get(item.item_id) == item.content_hash:
                continue
            cut, warning = capped_passages(item, embedder)
            if warning:
                item = replace(item, warnings=(*item.warnings, warning))
                scan.warnings.append(warning)
            touched.append(item)
            counts[item.item_id] = len(cut)
        changed = [item.item_id for item in touched if known.get(item.item_id) != item.content_hash]
        current = {item.item_id for item in scan.items}
        removed = [item_id for item_id in known if item_id not in current]
        passages = {i: n for i, n in embedding["passages"].items() if i in current}
        passages.update(counts)
        pending = sorted((set(embedding["pending"]) & current) | set(changed))
        with store.atomic():
            # A changed text's old vectors go with its node: a node written without vectors keeps the stored ones.
            store.delete_nodes([i for i in changed if i in known] + removed)
            store.upsert_nodes([_node(item, None) for item in touched])
            store.set_meta(PROJECT_PATH, str(self.root))
            store.set_meta("files", current_files)
            store.set_meta("warnings", scan.warnings)
            store.set_meta(EMBEDDING, {"passages": passages, "pending": pending})
            store.set_meta("last_indexed", now_iso())
        self.handle.reread()
        status = "rebuilt" if force else ("updated" if existed else "created")
        return self._response(status, store, len(changed), len(removed), started, scan.warnings)

    def _embedding(self, store: Store) -> dict:
        """``{"passages": {item id: passages embedded}, "pending": [item ids without vectors]}``. An index made
        before it was kept is fully embedded: its passage counts are its vectors' rows."""
        found = store.get_meta(EMBEDDING)
        if found is not None:
            return found
        ids = list(store.node_hashes(KIND))
        return {"passages": {i: len(v) for i, v in store.node_vectors(ids).items()} if ids else {}, "pending": []}

    def progress_of(self, store: Store) -> tuple[int, int, int, int]:
        """(items embedded, items, passages embedded, passages) of the index as stored."""
        embedding = self.meta(store).get(EMBEDDING) or self._embedding(store)
        passages, pending = embedding["passages"], embedding["pending"]
        total = sum(passages.values())
        return (len(passages) - len(pending), len(passages), total - sum(passages.get(i, 0) for i in pending), total)

    def pending(self, store: Store) -> list[str]:
        embedding = self.meta(store).get(EMBEDDING)
        return list(embedding["pending"]) if embedding else []

    def embed_pending(self, progress: Progress | None = None, stopping: Callable[[], bool] | None = None) -> int:
        """Embed the items whose vectors are missing, committing in steps; returns how many items.

        Holds the namespace's ``embed`` lock (so no two threads or processes embed the same items), and the
        index locks only while each step commits, so structural updates and searches go on meanwhile. A
        step writes only the items whose text is still the one embedded. ``stopping`` (background work):
        while another process holds the ``embed`` lock, checked every :data:`LOCK_RETRY_S` seconds; once
        true, nothing is embedded (so closing the server does not wait for another process's index)."""
        with self._embed_lock(stopping) as taken:
            if not taken:
                return 0
            self.handle.reread()
            store = self.open()
            if store is None:
                return 0
            todo = store.get_nodes(self.pending(store))
            if not todo:
                return 0
            self.check_embedder(store)
            embedder = self.runtime.embedder
            hashes = {node.id: node.text_hash for node in todo}
            owners = [(node.id, capped_passages(_item_of(node), embedder)[0]) for node in todo]

            def commit(vectors: dict[str, np.ndarray]) -> None:
                with self.runtime.state(FolderWatches).lock(self.namespace), \
                        self.runtime.lock(self.namespace, INDEX_LOCK), store.atomic():
                    still = [n for n in store.get_nodes(list(vectors)) if n.text_hash == hashes[n.id]]
                    for node in still:
                        node.vectors = vectors[node.id]
                    store.upsert_nodes(still)
                    embedding = store.get_meta(EMBEDDING)
                    done = {n.id for n in still}
                    embedding["pending"] = [i for i in embedding["pending"] if i not in done]
                    store.set_meta(EMBEDDING, embedding)
                    if store.get_meta("embedder") is None:
                        self.record_embedder(store)
                self.handle.reread()

            self.runtime.embeddings.embed_owners(owners, commit, progress)
            return len(owners)

    @contextmanager
    def _embed_lock(self, stopping: Callable[[], bool] | None) -> Iterator[bool]:
        """The ``embed`` lock: waited for as long as it takes, or (``stopping`` given) in short waits until it
        is taken (yields True) or ``stopping()`` is true (yields False, holding nothing)."""
        if stopping is None:
            with self.runtime.lock(self.namespace, EMBED_LOCK, on_wait=self.say_waiting):
                yield True
            return
        with ExitStack() as held:
            while not stopping():
                try:
                    held.enter_context(self.runtime.lock(self.namespace, EMBED_LOCK, timeout=LOCK_RETRY_S))
                except StoreBusy:
                    continue
                yield True
                return
            yield False

    def finish_rebuild(self, result: IndexResponse, progress: Progress | None) -> IndexResponse:
        """A rebuild is embedded whole before it replaces the index (:meth:`FolderIndex.rebuild`)."""
        self.embed_pending(progress)
        return result

    def sync(self, force: bool = False, progress: Progress | None = None) -> IndexResponse:
        """The structural update under the index locks, then (unless :attr:`defer_embedding`) the embeddings."""
        result = super().sync(force, progress)
        if force:  # made beside the index, whose place it has taken
            result = result.model_copy(update={"index_location": self.location})
        if self.defer_embedding:
            return result
        started = time.perf_counter()
        embedded = self.embed_pending(progress)
        changes: dict = {"duration_ms": result.duration_ms + int((time.perf_counter() - started) * 1000)}
        if embedded and result.status == "unchanged":  # an earlier update's embedding, finished now
            changes.update(status="updated", items_updated=embedded)
        return result.model_copy(update=changes)

    def ensure_fresh(self, progress: Progress | None = None) -> Store:
        """As :meth:`FolderIndex.ensure_fresh`, then the missing embeddings: in a long-running process (the MCP
        server, which watches files) in the background, so the call answers at once by keywords; in a
        one-shot process (the CLI) within the call, with progress."""
        self.defer_embedding = self.runtime.watch_files
        store = super().ensure_fresh(progress)
        if self.meta(store).get(EMBEDDING) is None:  # an index made before the bookkeeping: add it (once)
            self.sync(progress=progress)
        if self.pending(store):
            if self.defer_embedding:
                root, runtime = self.root, self.runtime
                work = runtime.state(BackgroundWork)
                work.start(
                    self.namespace, lambda stop: ItemIndex(runtime, root).embed_pending(stop, work.closing))
            else:
                self.embed_pending(progress)
                self.handle.reread()
        return store

    def _response(
        self, status: str, store: Store, updated: int, removed: int, started: float, warnings: list[str]
    ) -> IndexResponse:
        return IndexResponse(
            status=status,
            project_path=str(self.root),
            items_indexed=store.count_nodes(KIND),
            items_updated=updated,
            items_removed=removed,
            duration_ms=int((time.perf_counter() - started) * 1000),
            index_location=self.location,
            warnings=warnings,
        )


def _item_of(node: Node, files: dict[str, float] | None = None) -> ScannedItem:
    """The item a node was written from (its text is :func:`index_text` of title, description and body)."""
    props = node.props
    prefix = index_text(props["title"], props["description"], "")
    return ScannedItem(
        item_id=props["item_id"].partition("@")[0], item_type=props["item_type"], title=props["title"],
        description=props["description"], body=node.text[len(prefix):], status=props["status"],
        priority=props["priority"], path=props["path"], completed=props["completed"], mtime=props["mtime"],
        files=files or {}, content_hash=node.text_hash, warnings=tuple(props.get("warnings", ())),
    )


def _unchanged_items(store: Store, indexed: dict[str, float], current: dict[str, float]) -> dict[str, ScannedItem]:
    """Items whose files are exactly as when they were indexed (same names, same mtimes), by folder path,
    rebuilt from their nodes, so that an update reads only the folders that changed."""

    def by_folder(files: dict[str, float]) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for rel, mtime in files.items():
            out.setdefault(rel.rpartition("/")[0], {})[rel] = mtime
        return out

    before, now = by_folder(indexed), by_folder(current)
    items = {}
    for node in store.iter_nodes(KIND):
        props = node.props
        files = now.get(props["path"])
        if not files or files != before.get(props["path"]) or "warnings" not in props:
            continue
        if not node.text.startswith(index_text(props["title"], props["description"], "")):
            continue
        items[props["path"]] = _item_of(node, files)
    return items


def summary_text(title: str, description: str) -> str:
    """The problem statement alone: what check_duplicates embeds for a new item, too."""
    return f"TITLE: {title}\n\nDESCRIPTION: {description}"


def item_passages(item: ScannedItem, embedder: Embedder) -> list[str]:
    """The indexed text cut at the IMPLEMENTATION section, then into model-sized windows.

    The first passage is the title and description alone, so a duplicate check
    (which has only those) compares like with like; the implementation text
    follows in its own windows. Together they hold the word pieces of the indexed
    text plus a few markers, so indexing costs about what embedding the text once
    does (the title is not repeated in the later windows: it cost more word pieces
    than it gained; bench/README.md, items_scale).
    """
    passages = embedder.passages(summary_text(item.title, item.description))
    if item.body.strip():
        passages += embedder.passages(f"IMPLEMENTATION:\n{item.body}")
    return passages


def capped_passages(item: ScannedItem, embedder: Embedder) -> tuple[list[str], str | None]:
    """The passages of ``item`` that are embedded (at most :data:`MAX_PASSAGES`) and a warning when some
    were left out."""
    passages = item_passages(item, embedder)
    if len(passages) <= MAX_PASSAGES:
        return passages, None
    return passages[:MAX_PASSAGES], (
        f"{item.path}: long text ({len(passages)} passages); only the first {MAX_PASSAGES} are embedded, the rest "
        "is found by keywords only")


def _node(item: ScannedItem, vectors: np.ndarray | None) -> Node:
    return Node(
        id=item.item_id,
        kind=KIND,
        name=item.title,
        text=item.text,
        text_hash=item.content_hash,
        vectors=vectors,
        props={
            "item_id": item.item_id,
            "item_type": item.item_type,
            "title": item.title,
            "description": item.description,
            "status": item.status,
            "priority": item.priority,
            "path": item.path,
            "mtime": item.mtime,
            "completed": item.completed,
            "warnings": list(item.warnings),
        },
    )
