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
from dataclasses import replace
from pathlib import Path

import numpy as np

from graphlore.embedding import Embedder
from graphlore.runtime import Runtime
from graphlore.store import Node, Store
from graphlore.tools import Progress
from graphlore.toolsets.folder_index import PROJECT_PATH, FolderIndex, now_iso
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
        """Bring the index up to date; embed only new or changed text, committing embeddings in steps."""
        started = time.perf_counter()
        existed = store.get_meta("last_indexed") is not None
        self.check_embedder(store)  # also a first build that was interrupted: its vectors must match
        indexed_files: dict[str, float] = store.get_meta("files") or {}
        current_files = self.list_files()
        if existed and current_files == indexed_files:
            return self._response("unchanged", store, 0, 0, started, store.get_meta("warnings") or [])

        unchanged = _unchanged_items(store, indexed_files, current_files) if existed else {}
        scan = scan_project(self.root, unchanged, self.runtime.roots)
        known = store.node_hashes(KIND)
        # Read again (new text, files whose mtime moved, or a node stored before it kept its warnings):
        # these nodes are rewritten; their passages are cut to MAX_PASSAGES (with a warning on the item).
        embedder = self.runtime.embedder
        touched, passages = [], {}
        for item in scan.items:
            if unchanged.get(item.path) is item and known.get(item.item_id) == item.content_hash:
                continue
            cut, warning = capped_passages(item, embedder)
            if warning:
                item = replace(item, warnings=(*item.warnings, warning))
                scan.warnings.append(warning)
            touched.append(item)
            passages[item.item_id] = cut
        to_embed = [item for item in touched if known.get(item.item_id) != item.content_hash]
        current = {item.item_id for item in scan.items}
        removed = [item_id for item_id in known if item_id not in current]
        by_id = {item.item_id: item for item in to_embed}
        committed: set[str] = set()

        def commit(vectors: dict[str, np.ndarray]) -> None:
            with store.atomic():
                store.upsert_nodes([_node(by_id[i], v) for i, v in vectors.items()])
                if store.get_meta("embedder") is None:
                    self.record_embedder(store)
            committed.update(vectors)

        # No other update of this project runs meanwhile (FolderIndex.sync holds the index lock), so the
        # hashes read above still hold: a node written without vectors keeps the ones its text made.
        self.runtime.embeddings.embed_owners([(item.item_id, passages[item.item_id]) for item in to_embed], commit,
                                             progress)
        with store.atomic():
            store.upsert_nodes([_node(item, None) for item in touched if item.item_id not in committed])
            store.delete_nodes(removed)
            store.set_meta(PROJECT_PATH, str(self.root))
            store.set_meta("files", current_files)
            store.set_meta("warnings", scan.warnings)
            store.set_meta("last_indexed", now_iso())
            if store.get_meta("embedder") is None:
                self.record_embedder(store)
        status = "rebuilt" if force else ("updated" if existed else "created")
        return self._response(status, store, len(to_embed), len(removed), started, scan.warnings)

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
        prefix = index_text(props["title"], props["description"], "")
        if not node.text.startswith(prefix):
            continue
        items[props["path"]] = ScannedItem(
            item_id=props["item_id"].partition("@")[0], item_type=props["item_type"], title=props["title"],
            description=props["description"], body=node.text[len(prefix):], status=props["status"],
            priority=props["priority"], path=props["path"], completed=props["completed"], mtime=props["mtime"],
            files=files, content_hash=node.text_hash, warnings=tuple(props["warnings"]),
        )
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
