"""One project's code index in the store: a structural phase that is usable at once, then embeddings.

Where it lives, its freshness check and its locks are :class:`FolderIndex`'s (namespace
``code/{sha256(real path)[:12]}``; the files it watches are the sources and the build and config files).

**Structural phase** (`CodeIndex.update`, under the index locks): the in-memory `CodeGraph` is brought up
to date (parsing only files whose content changed, resolving those and their dependants), then only the
files it resolved again are written: their new nodes and edges are compared with what their previous
resolution wrote (ids and hashes kept per file, see `persist.py`), vanished ones are deleted, changed ones
upserted, unchanged ones left alone. One transaction, so a reader never sees half an update.

**Restarts.** A long-running server keeps the graphs of its `WARM_PROJECTS` most recently updated projects
in memory (`WarmGraphs`, checked against the store's ``generation`` counter, which every structural write
moves, so a graph another process has moved past is never reused). A new process rebuilds it from the per-file records (``src:<path>``: facts, stamp, context,
digests; ``out:<path>``: dependency keys, written ids and hashes, embedded text hashes) without parsing or
resolving anything, so its first update is as incremental as a warm one; so is the first update of a
project whose graph the server dropped to keep another's.

**Embedding phase** (`CodeIndex.embed`): every node whose embedding text has no vector made from it is
embedded through ``runtime.embeddings`` (one length order over all of them), committed in steps of
`EMBED_STEP` nodes, each step its own transaction and each node written only if its text is still the
one embedded, so the phase can be stopped and resumed, and structural updates may run between steps. Once the index is fully embedded, a structural update embeds the few nodes it changes itself
(up to `INLINE_EMBED_LIMIT`), so search stays hybrid; until then `search` ranks by BM25 and says so.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from graphlore.contract import quote
from graphlore.errors import IndexCorrupted, InvalidInput, NotFound, ref
from graphlore.runtime import Runtime
from graphlore.store import Edge, Node, Store
from graphlore.store.factory import EMBEDDER_META
from graphlore.tools import Progress
from graphlore.toolsets.folder_index import (
    EMBED_LOCK,
    INDEX_LOCK,
    PROJECT_PATH,
    FolderIndex,
    FolderWatches,
    now_iso,
)

from ..layout.walk import SKIP_DIRS, Scan, scan
from ..model import GraphEdge, GraphNode
from .graph import CodeGraph, UpdateStats
from .persist import FORMAT, FileRecord
from .records import embedding_text, store_edge, store_node

#: the pseudo-path that owns the layout's records (services, modules, Java packages)
LAYOUT = ":layout"
#: the pseudo-path that owns part 2's records (routes, clients, producers and their links)
SERVICES = ":services"
#: a structural update of a fully embedded index embeds at most this many changed nodes itself
INLINE_EMBED_LIMIT = 2000
#: nodes per embedding transaction
EMBED_STEP = 256
#: projects whose code graph a process keeps in memory (`WarmGraphs`; what one costs: bench/README.md)
WARM_PROJECTS = 4


def files_of(found: Scan) -> dict[str, int]:
    """Every file the index reads (sources, build and config files) -> its mtime in nanoseconds."""
    files = {path: source.mtime_ns for path, source in found.sources.items()}
    files.update({path: stamp[1] for path, stamp in found.layout_stamp.items()})
    return dict(sorted(files.items()))


def files_indexed(store: Store, meta: Mapping[str, Any]) -> int:
    """How many source files the index holds (an index written before ``files_indexed`` was kept counts its
    ``sources``)."""
    count = meta.get("files_indexed")
    return int(count) if count is not None else len(store.get_meta("sources") or [])


def git_commit(root: Path) -> str | None:
    """HEAD of the git checkout holding ``root`` (None when it is not one, or git is missing)."""
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and len(commit) >= 7 else None


@dataclass
class Outputs:
    """What one file's resolution wrote (``out:<path>``): see `persist.py`."""

    deps: list[str] = field(default_factory=list)
    #: node id -> [hash as written, embedding text hash ("" when the kind is not embedded)]
    nodes: dict[str, list[str]] = field(default_factory=dict)
    edges: dict[str, str] = field(default_factory=dict)
    #: node id -> the embedding text hash its stored vectors were made from
    embedded: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load_many(cls, store: Store, owners: Sequence[str]) -> dict[str, Outputs]:
        """The records of ``owners`` (an empty one for an owner that has none), read in one statement."""
        found = store.get_meta_many([f"out:{owner}" for owner in owners])
        return {owner: cls.of(found.get(f"out:{owner}")) for owner in owners}

    @classmethod
    def of(cls, data: dict[str, Any] | None) -> Outputs:
        return cls() if data is None else cls(data["deps"], data["nodes"], data["edges"], data["embedded"])

    def to_json(self) -> dict[str, Any]:
        return {"deps": self.deps, "nodes": self.nodes, "edges": self.edges, "embedded": self.embedded}

    def embedded_count(self) -> tuple[int, int]:
        """(nodes whose vectors match their text, nodes that carry vectors)."""
        due = [(node_id, text_hash) for node_id, (_, text_hash) in self.nodes.items() if text_hash]
        return sum(1 for node_id, text_hash in due if self.embedded.get(node_id) == text_hash), len(due)


@dataclass
class Changes:
    """What one structural update writes: rows that differ from what each owner (a file, the layout, part 2)
    wrote before, and what vanished; ``news`` is each owner's record after the update."""

    olds: dict[str, Outputs]
    node_rows: list[tuple[Node, list[str]]] = field(default_factory=list)
    edge_rows: list[Edge] = field(default_factory=list)
    dead_nodes: list[str] = field(default_factory=list)
    dead_edges: list[str] = field(default_factory=list)
    news: dict[str, Outputs] = field(default_factory=dict)
    #: (owner, row) of nodes whose vectors are missing or made from another text
    to_embed: list[tuple[str, Node]] = field(default_factory=list)

    def diff(self, graph: CodeGraph, owners: dict[str, tuple[list[GraphNode], list[GraphEdge]]],
             removed: list[str], embed: bool) -> None:
        """Compare each owner's records with what it wrote before (``embed``: list the nodes to embed)."""
        for owner, (nodes, edges) in owners.items():
            old = self.olds[owner]
            new = Outputs(deps=sorted(graph.results[owner].deps) if owner not in (LAYOUT, SERVICES) else [])
            for node in nodes:
                row, keys, written, text_hash = store_node(node)
                new.nodes[node.id] = [written, text_hash]
                if text_hash and old.embedded.get(node.id) == text_hash:
                    new.embedded[node.id] = text_hash
                elif text_hash and embed:
                    self.to_embed.append((owner, row))
                if old.nodes.get(node.id, [None])[0] != written:
                    self.node_rows.append((row, keys))
            for edge in edges:
                row, written = store_edge(edge)
                new.edges[edge.id] = written
                if old.edges.get(edge.id) != written:
                    self.edge_rows.append(row)
            self.dead_nodes += [node_id for node_id in old.nodes if node_id not in new.nodes]
            self.dead_edges += [edge_id for edge_id in old.edges if edge_id not in new.edges]
            self.news[owner] = new
        for path in removed:
            self.dead_nodes += list(self.olds[path].nodes)
            self.dead_edges += list(self.olds[path].edges)

    def embedded_counts(self, done: int, total: int) -> tuple[int, int]:
        """The index's (embedded, embeddable) node counts after these changes."""
        for owner, old in self.olds.items():
            before = old.embedded_count()
            after = self.news[owner].embedded_count() if owner in self.news else (0, 0)
            done += after[0] - before[0]
            total += after[1] - before[1]
        return done, total

    def apply(self, store: Store) -> dict[str, Any]:
        """Write the rows (inside the caller's transaction); each owner's record is returned, for the caller's
        one metadata write (a vanished owner's as None, which deletes it)."""
        store.delete_edges(self.dead_edges)
        store.delete_nodes(self.dead_nodes)
        store.upsert_nodes([row for row, _ in self.node_rows])
        keyed = {row.id: keys for row, keys in self.node_rows if keys}
        if keyed:
            store.set_node_keys(keyed)
        store.upsert_edges(self.edge_rows)
        records: dict[str, Any] = {f"out:{owner}": None for owner in self.olds.keys() - self.news.keys()}
        records.update({f"out:{owner}": outputs.to_json() for owner, outputs in self.news.items()})
        return records


@dataclass
class Warm:
    graph: CodeGraph
    generation: int


class WarmGraphs:
    """Per-process state: the in-memory graphs of the :data:`WARM_PROJECTS` most recently updated folders,
    each with the store generation it matches (closed with the runtime). A graph dropped from it is
    restored from the store's records when its folder is next updated (see the module docstring)."""

    def __init__(self, size: int | None = None) -> None:
        self.size = size or WARM_PROJECTS
        self.lock = threading.Lock()
        self.graphs: OrderedDict[Path, Warm] = OrderedDict()

    def take(self, root: Path) -> Warm | None:
        """The graph of ``root``, taken out (the update that takes it puts it back when it is written)."""
        with self.lock:
            return self.graphs.pop(root, None)

    def put(self, root: Path, warm: Warm) -> None:
        with self.lock:
            self.graphs[root] = warm
            self.graphs.move_to_end(root)
            while len(self.graphs) > self.size:
                self.graphs.popitem(last=False)

    def close(self) -> None:
        with self.lock:
            self.graphs.clear()


@dataclass
class UpdateReport:
    """What one structural update did."""

    status: str
    files: int = 0
    parsed: int = 0
    resolved: int = 0
    removed: int = 0
    nodes_written: int = 0
    nodes_deleted: int = 0
    edges_written: int = 0
    edges_deleted: int = 0
    embedded_inline: int = 0
    #: nodes a rebuild embedded before it replaced the index
    embedded_beside: int = 0
    restored: bool = False
    seconds: dict[str, float] = field(default_factory=dict)


TREE_HELP = "give the root of the source tree to index (a repository or a service folder)"


def source_root(project_path: str | Path) -> Path:
    """``project_path`` resolved, refused unless it is a folder that can be one source tree: never the
    filesystem root or the home folder (indexing either would walk and parse everything under them)."""
    given = quote(str(project_path))
    try:
        root = Path(os.path.realpath(os.path.expanduser(str(project_path))))
        exists, is_dir = root.exists(), root.is_dir()
        home = Path(os.path.realpath(os.path.expanduser("~")))
    except (ValueError, OSError) as exc:  # a NUL byte, a name too long for the file system, a loop...
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InvalidInput(f"{ref('project_path')} {given} is not a usable path ({reason}); {TREE_HELP}") from exc
    if not exists:  # an unknown project answers not_found, as an unknown library or graph does
        raise NotFound(f"{ref('project_path')} {given} does not exist; {TREE_HELP}")
    if not is_dir:
        raise InvalidInput(f"{ref('project_path')} {given} is not a folder; {TREE_HELP}")
    if root == Path(root.anchor) or root == home:
        what = "the filesystem root" if root == Path(root.anchor) else "your home folder"
        raise InvalidInput(f"{ref('project_path')} {given} is {what}, not one source tree; {TREE_HELP}")
    return root


class CodeIndex(FolderIndex):
    """The code index of one project folder."""

    toolset = "code"
    skip = SKIP_DIRS
    layout = FORMAT
    meta_keys = ("last_indexed", "generation", "embedding", "git_commit", "files_indexed", "code_format")

    def __init__(self, runtime: Runtime, project_path: str | Path) -> None:
        super().__init__(runtime, source_root(project_path))
        self._scan: Scan | None = None
        #: a rebuild (force) embeds before it replaces the index (the index tool's ``embed``)
        self.embed_rebuild = True

    def repair_hint(self) -> str:
        return (f"run the index tool with force=true (CLI: graphlore code index --force -p "
                f"{shlex.quote(str(self.root))})")

    def list_files(self) -> dict[str, float]:
        self._scan = scan(self.root)
        return files_of(self._scan)  # type: ignore[return-value]  # ints: nanoseconds, compared exactly

    @contextmanager
    def locked(self) -> Iterator[None]:
        """The locks `FolderIndex.sync` holds: this index's thread lock and the namespace's index lock."""
        with self.runtime.state(FolderWatches).lock(self.namespace), self.runtime.lock(self.namespace, INDEX_LOCK):
            yield

    # -- a rebuild (index --force) ------------------------------------------------------------------

    def start_rebuild(self, store: Store, index: FolderIndex) -> None:
        """The rebuild's generation goes on from the index's, so no process takes a graph it keeps of the old
        index (`WarmGraphs`) for the new one."""
        try:
            generation = index.meta(index.store()).get("generation") if index.exists() else None
        except IndexCorrupted:  # what the rebuild repairs
            generation = None
        if generation:
            store.set_meta("generation", generation)
            self.handle.reread()

    def finish_rebuild(self, result: UpdateReport, progress: Progress | None) -> UpdateReport:
        """Embed the rebuild before it replaces the index (unless the call asked for no embedding)."""
        if self.embed_rebuild:
            clock = time.perf_counter()
            result.embedded_beside = self.embed(progress)
            result.seconds["embedding"] = time.perf_counter() - clock
        return result

    def abandon_rebuild(self) -> None:
        self.runtime.state(WarmGraphs).take(self.root)  # the rebuild's graph, never the index's
        super().abandon_rebuild()

    # -- the structural phase ----------------------------------------------------------------------

    def update(self, store: Store, force: bool, progress: Progress | None) -> UpdateReport:
        started = time.perf_counter()
        meta = self.meta(store)
        existed = meta.get("last_indexed") is not None
        if existed and meta.get("code_format") != FORMAT:
            raise IndexCorrupted(f"the index of {self.root} was built by another graphlore version; "
                                 f"{self.repair_hint()}")
        # the walk `list_files` just made for the freshness check (same call, under these locks), else a new one
        found, self._scan = (self._scan or scan(self.root)), None
        current = files_of(found)
        if existed and not force and current == store.get_meta("files"):
            return UpdateReport("unchanged", files=files_indexed(store, meta))
        graph, restored = self._graph(store, existed)
        clock = time.perf_counter()
        stats = graph.update(found, progress)
        seconds = {"graph": time.perf_counter() - clock}
        report = UpdateReport("rebuilt" if force else ("updated" if existed else "created"), files=stats.files,
                              parsed=stats.parsed, resolved=stats.resolved, removed=stats.removed, restored=restored)
        clock = time.perf_counter()
        self._write(store, graph, stats, current, report)
        seconds["write"] = time.perf_counter() - clock
        seconds["total"] = time.perf_counter() - started
        report.seconds = seconds
        return report

    def _graph(self, store: Store, existed: bool) -> tuple[CodeGraph, bool]:
        """The warm graph if it matches the store, else one restored from the records, else a new one."""
        generation = self.meta(store).get("generation") or 0
        warm = self.runtime.state(WarmGraphs).take(self.root)
        if existed and warm is not None and warm.generation == generation:
            return warm.graph, False
        if not existed:
            return CodeGraph(self.root), False
        # every file's two records in two statements, whatever the number of files
        sources, outputs = store.meta_items("src:"), store.meta_items("out:")
        files = {}
        for path in store.get_meta("sources") or []:
            data, written = sources.get(f"src:{path}"), outputs.get(f"out:{path}")
            if data is None or written is None:
                raise IndexCorrupted(f"the index of {self.root} lacks the record of {path}; {self.repair_hint()}")
            files[path] = FileRecord.from_json(dict(data, deps=written["deps"]))
        return CodeGraph.restore(self.root, files), True

    def _write(self, store: Store, graph: CodeGraph, stats: UpdateStats, current: dict[str, int],
               report: UpdateReport) -> None:
        """Write what the update changed, in one transaction (see the module docstring)."""
        owners: dict[str, tuple[list[GraphNode], list[GraphEdge]]] = {
            LAYOUT: (graph.layout_nodes, graph.layout_edges), SERVICES: (graph.service_nodes, graph.service_edges)}
        for path in stats.resolved_paths:
            result = graph.results[path]
            owners[path] = (result.nodes, result.edges)
        meta = self.meta(store)
        embedding = meta.get("embedding") or {"done": 0, "total": 0}
        changes = Changes(olds=Outputs.load_many(store, [*owners, *stats.removed_paths]))
        changes.diff(graph, owners, stats.removed_paths, embed=0 < embedding["total"] == embedding["done"])
        vectors = self._embed_inline(store, changes, report)
        done, total = changes.embedded_counts(embedding["done"], embedding["total"])
        generation = (meta.get("generation") or 0) + 1
        commit = git_commit(self.root)  # a subprocess: not while holding the store's write lock
        with store.atomic():
            records = changes.apply(store)
            records.update({f"src:{path}": None for path in stats.removed_paths})
            for path in sorted(set(stats.changed_paths) | set(stats.stamped_paths)):
                bound = graph.table.files[path]
                record = FileRecord(graph.stamps[path], bound.ctx, bound.facts, graph.digests[path], frozenset())
                data = record.to_json()
                del data["deps"]  # they live with the outputs (out:<path>), which change with every resolution
                records[f"src:{path}"] = data
            sources = sorted(graph.facts)
            store.set_meta_many({
                **records, "sources": sources, "files_indexed": len(sources), "files": current,
                PROJECT_PATH: str(self.root), "code_format": FORMAT, "git_commit": commit,
                "embedding": {"done": done, "total": total}, "generation": generation, "last_indexed": now_iso(),
                "unreadable": [f"{path}: {why}" for path, why in sorted(graph.unreadable.items())],
                **({EMBEDDER_META: self.handle.embedder_record({"layout": FORMAT})} if vectors else {}),
            })
        report.nodes_written = len(changes.node_rows)
        report.nodes_deleted = len(changes.dead_nodes)
        report.edges_written = len(changes.edge_rows)
        report.edges_deleted = len(changes.dead_edges)
        self.runtime.state(WarmGraphs).put(self.root, Warm(graph, generation))

    def _embed_inline(self, store: Store, changes: Changes, report: UpdateReport) -> dict[str, np.ndarray]:
        """Embed the changed nodes of a fully embedded index (up to `INLINE_EMBED_LIMIT`), so search stays hybrid."""
        todo = changes.to_embed
        if not todo or len(todo) > INLINE_EMBED_LIMIT:
            return {}
        self.check_embedder(store)
        matrix = self.runtime.embeddings.embed([embedding_text(row) for _, row in todo])
        vectors: dict[str, np.ndarray] = {}
        for (owner, row), vector in zip(todo, matrix, strict=True):
            vectors[row.id] = vector[None, :]
            changes.news[owner].embedded[row.id] = row.text_hash
        report.embedded_inline = len(vectors)
        rewritten = {row.id for row, _ in changes.node_rows}
        changes.node_rows += [(row, []) for _, row in todo if row.id not in rewritten]  # vectors only: keys kept
        for row, _ in changes.node_rows:
            if row.id in vectors:
                row.vectors = vectors[row.id]
        return vectors

    # -- the embedding phase -------------------------------------------------------------------------

    def pending(self, store: Store) -> list[tuple[str, str, str]]:
        """(owner, node id, text hash) of every node whose vectors are missing or made from other text."""
        out = []
        records = store.meta_items("out:")
        for owner in [LAYOUT, SERVICES, *(store.get_meta("sources") or [])]:
            outputs = Outputs.of(records.get(f"out:{owner}"))
            for node_id, (_, text_hash) in outputs.nodes.items():
                if text_hash and outputs.embedded.get(node_id) != text_hash:
                    out.append((owner, node_id, text_hash))
        return out

    def embed(self, progress: Progress | None = None) -> int:
        """Embed every pending node (see the module docstring); returns how many were embedded. One process
        embeds a project at a time (:data:`EMBED_LOCK`): another waits, then finds only what is still pending."""
        with self.runtime.lock(self.namespace, EMBED_LOCK, on_wait=self.say_waiting):
            return self._embed(progress)

    def _embed(self, progress: Progress | None) -> int:
        store = self.store()
        self.check_embedder(store)
        todo = self.pending(store)
        wanted: list[tuple[str, Node]] = []
        for start in range(0, len(todo), EMBED_STEP):  # the rows in pages: their text is what is embedded
            batch = todo[start : start + EMBED_STEP]
            nodes = {n.id: n for n in store.get_nodes([node_id for _, node_id, _ in batch])}
            wanted += [(owner, nodes[node_id]) for owner, node_id, text_hash in batch
                       if node_id in nodes and nodes[node_id].text_hash == text_hash]
        by_key = {(owner, node.id): node for owner, node in wanted}
        embedded = 0

        def commit(vectors: dict[tuple[str, str], np.ndarray]) -> None:
            nonlocal embedded
            with self.locked():
                embedded += self._write_vectors(store, [(key[0], by_key[key]) for key in vectors],
                                                [matrix[0] for matrix in vectors.values()])

        self.runtime.embeddings.embed_owners([((owner, node.id), [embedding_text(node)]) for owner, node in wanted],
                                             commit, progress, step=EMBED_STEP)
        return embedded

    def _write_vectors(self, store: Store, wanted: Sequence[tuple[str, Node]], matrix: Any) -> int:
        """Write the vectors of nodes whose text is still the one embedded; keep the records in step."""
        with store.atomic():
            current = {n.id: n for n in store.get_nodes([node.id for _, node in wanted])}
            by_owner: dict[str, list[tuple[Node, np.ndarray]]] = {}
            for (owner, node), vector in zip(wanted, matrix, strict=True):
                now = current.get(node.id)
                if now is not None and now.text_hash == node.text_hash:
                    now.vectors = np.asarray(vector, dtype=np.float32)[None, :]
                    by_owner.setdefault(owner, []).append((now, vector))
            if not by_owner:
                return 0
            store.upsert_nodes([node for rows in by_owner.values() for node, _ in rows])
            found = store.get_meta_many(["embedding", EMBEDDER_META])
            embedding = found.get("embedding") or {"done": 0, "total": 0}
            records: dict[str, Any] = {}
            for owner, outputs in Outputs.load_many(store, list(by_owner)).items():
                before = outputs.embedded_count()[0]
                for node, _ in by_owner[owner]:
                    if node.id in outputs.nodes:
                        outputs.embedded[node.id] = node.text_hash
                embedding["done"] += outputs.embedded_count()[0] - before
                records[f"out:{owner}"] = outputs.to_json()
            if found.get(EMBEDDER_META) is None:
                records[EMBEDDER_META] = self.handle.embedder_record({"layout": FORMAT})
            store.set_meta_many({**records, "embedding": embedding})
            self.handle.reread()
        return sum(len(rows) for rows in by_owner.values())

