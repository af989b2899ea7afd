"""An index of one folder on disk, kept fresh: the part every folder-backed toolset (items, code) shares.

- **Where it lives**: namespace ``{toolset}/{sha256(real path)[:12]}``, opened through the runtime.
- **The store handle** is a :class:`~graphlore.toolsets.handle.Namespace`: a warm call opens the store
  with one identity check and reads its bookkeeping (``last_indexed``, the embedder and what the
  subclass lists in :attr:`FolderIndex.meta_keys`) in one statement (:meth:`FolderIndex.meta`).
- **Is it fresh?** The store's metadata keeps every indexed file's mtime (``files``) and the time of the
  last update (``last_indexed``). A long-running process (the MCP server) holds an inotify
  :class:`~graphlore.watch.ChangeFeed` per recently used index (a toolset's index of one folder;
  :class:`FolderWatches`) and compares mtimes only after a change (reading ``files`` only then); one-shot
  processes compare them on every call.
- **One update at a time**: a thread lock per index in this process, and a namespace lock (``index``)
  across processes. A call that finds another update running waits for it, then checks again, and
  usually finds nothing left to do.
- **A rebuild goes beside the index** (``index --force``, :meth:`FolderIndex.rebuild`): it is made in
  :func:`rebuild_namespace` and replaces the index in one transaction when it is complete (embeddings
  too), so searches answer from the old index meanwhile, and a failure, Ctrl-C or a crash leaves the old
  index exactly as it was (what a killed rebuild left is removed by the next update).
- **Embed only what changed**: a subclass passes only nodes whose text hash changed to
  ``runtime.embeddings`` (:mod:`graphlore.embeddings`: one global length order, the vector cache,
  progress, cancellation, and commits in steps, so an update that is interrupted keeps its finished
  steps and the next one resumes there).
- **Only regular files are read** (:func:`read_file`): a named pipe, a device or a socket named like
  a file the index reads is never opened (it could block forever), a file is read up to a cap (memory
  stays flat whatever its size), and every problem comes back as a warning that names the file.

A subclass says which files count (:meth:`list_files`) and how to bring the store up to date
(:meth:`update`), and gives the repair hint users see when the index is damaged.
"""

from __future__ import annotations

import copy
import errno
import hashlib
import logging
import os
import shlex
import stat
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphlore.errors import IndexCorrupted, NotFound
from graphlore.runtime import Runtime
from graphlore.store import Store
from graphlore.tools import PROJECT_PATH, Progress, StoreKind
from graphlore.toolsets.handle import Namespace
from graphlore.watch import ChangeFeed

logger = logging.getLogger("graphlore")

INDEX_LOCK = "index"
#: The embedding phase of an index that embeds after its structural update (code): one process at a time,
#: so two never embed the same text; taken before :data:`INDEX_LOCK`, never while holding it.
EMBED_LOCK = "embed"
#: What a process says when another holds a project's index lock (the CLI prints it on stderr).
WAITING = "waiting for another index of this project ({root}) to finish"
#: The last part of the namespace a forced rebuild is made in (:func:`rebuild_namespace`).
REBUILD = "rebuild"
#: Indexes whose change feed a process keeps open (:class:`FolderWatches`).
WATCHED_INDEXES = 16

logger = logging.getLogger("graphlore")

_KINDS = {stat.S_IFIFO: "a named pipe", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a folder"}


@dataclass(frozen=True)
class FileRead:
    """What :func:`read_file` found: the bytes (None when unusable), the file's size and mtime, and a
    problem to report (None when the file was read whole)."""

    data: bytes | None
    size: int
    mtime: float | None
    problem: str | None


def read_file(path: str | Path, max_bytes: int) -> FileRead:
    """Read a regular file, at most ``max_bytes`` of it, never opening anything else.

    The file is opened non-blocking and checked with ``fstat`` on the open descriptor, so a named pipe
    put in place between a listing and the read cannot stall the caller either. Problems: missing,
    not a regular file (which kind), unreadable (the OS reason), or longer than ``max_bytes`` (the
    data then holds the first ``max_bytes``).
    """
    try:
        before = os.stat(path)
    except FileNotFoundError:
        return FileRead(None, 0, None, "missing")
    except OSError as exc:
        reason = "a symbolic link loop" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        return FileRead(None, 0, None, f"cannot be read ({reason})")
    if not stat.S_ISREG(before.st_mode):
        kind = _KINDS.get(stat.S_IFMT(before.st_mode), "not a regular file")
        return FileRead(None, 0, before.st_mtime, f"is {kind}, not a regular file; skipped")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return FileRead(None, 0, before.st_mtime, f"cannot be read ({exc.strerror or exc})")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
            return FileRead(None, 0, info.st_mtime, f"is {kind}, not a regular file; skipped")
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        return FileRead(None, 0, before.st_mtime, f"cannot be read ({exc.strerror or exc})")
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        size = max(info.st_size, len(data))
        return FileRead(data[:max_bytes], size, info.st_mtime,
                        f"is {size:,} bytes; only the first {max_bytes:,} are read")
    return FileRead(data, len(data), info.st_mtime, None)


def folder_namespace(toolset: str, root: Path) -> str:
    """The namespace of ``toolset``'s index of the folder whose real path is ``root``."""
    return f"{toolset}/{hashlib.sha256(str(root).encode()).hexdigest()[:12]}"


def rebuild_namespace(namespace: str) -> str:
    """Where ``index --force`` builds the new index of ``namespace`` before it replaces the old one (under the
    index's own namespace, so ``graphlore drop`` of the index removes it too)."""
    return f"{namespace}/{REBUILD}"


def folder_label(namespace: str, meta: Callable[[str], object]) -> str | None:
    """A folder index for people: the folder it indexes (recorded by every finished update)."""
    path = meta(PROJECT_PATH)
    if path and namespace.endswith(f"/{REBUILD}"):
        return f"{path} (a rebuild of its index, under way or left by a killed one)"
    return str(path) if path else None


def folder_stores(toolset: str) -> StoreKind:
    """What ``graphlore stores`` and ``drop`` know of a folder-backed toolset's indexes."""
    return StoreKind(label=folder_label, of_folder=lambda root: folder_namespace(toolset, root), locks=(EMBED_LOCK, INDEX_LOCK))


def rebuild_kept(index: FolderIndex, embedded: Callable[[], str], toolset: str) -> str:
    """After Ctrl-C stopped ``index --force``: the old index is kept as it was (``embedded()``: how far its
    embedding is, in the toolset's words; a damaged index, which the rebuild was to repair, is said to be
    one), and the command that rebuilds it. Removes the rebuild first: the stopped command leaves without
    waiting for its embedding batch to end (else the next update would)."""
    side = index.beside()
    if side.exists():
        side.abandon_rebuild()
    again = f"`graphlore {toolset} index --force -p {shlex.quote(str(index.root))}`"
    if not index.exists():
        return f"the rebuild was stopped and removed; there was no index before it; run {again} to build one"
    try:
        state = embedded()
    except IndexCorrupted:
        state = "damaged: only a rebuild repairs it"
    return (f"the rebuild was stopped and removed; the index as it was before is kept unchanged ({state}); "
            f"run {again} to rebuild it")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Stopped(Exception):
    """Raised in background work by its progress callback once the runtime closes (see :class:`BackgroundWork`)."""


class BackgroundWork:
    """Work a long-running process does after a call has answered (per process, closed with the runtime): at
    most one thread per key (an index's namespace). The work gets a progress callback that raises
    :class:`Stopped` once :meth:`close` was called, so it stops after the step in progress; close() waits
    for every thread. A failure is logged, never raised: the next call finds the work still to do."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._threads: dict[str, threading.Thread] = {}
        self._closing = threading.Event()
        #: key -> (done, total) as last reported
        self.progress: dict[str, tuple[int, int]] = {}

    def start(self, key: str, work: Callable[[Callable[[int, int], None]], object]) -> bool:
        """Run ``work(progress)`` in a thread unless one runs for ``key``; True when this call started it."""
        with self._lock:
            if self._closing.is_set() or (key in self._threads and self._threads[key].is_alive()):
                return False

            def report(done: int, total: int) -> None:
                self.progress[key] = (done, total)
                if self._closing.is_set():
                    raise Stopped(key)

            def run() -> None:
                try:
                    work(report)
                except Stopped:
                    pass
                except Exception:  # noqa: BLE001 - a background failure must not kill the process; it is logged
                    logger.exception("background work on %s failed; the next call retries it", key)
                finally:
                    with self._lock:
                        if self._threads.get(key) is threading.current_thread():
                            del self._threads[key]
                    self.progress.pop(key, None)

            thread = threading.Thread(target=run, name=f"graphlore-background-{key}", daemon=True)
            self._threads[key] = thread
            thread.start()
            return True

    def closing(self) -> bool:
        """True once :meth:`close` was called (until it returns): work waiting for something should give up."""
        return self._closing.is_set()

    def running(self, key: str) -> bool:
        with self._lock:
            return key in self._threads

    def wait(self, key: str, timeout: float | None = None) -> None:
        """Wait for the work on ``key`` (tests and benchmarks)."""
        with self._lock:
            thread = self._threads.get(key)
        if thread is not None:
            thread.join(timeout)

    def wait_all(self, timeout: float | None = None) -> None:
        """Wait for every work in progress (tests and benchmarks that count what one call does)."""
        with self._lock:
            threads = list(self._threads.values())
        for thread in threads:
            thread.join(timeout)

    def close(self) -> None:
        self._closing.set()
        self.wait_all()
        self._closing.clear()


class IndexLock:
    """One index's update lock in this process (a plain lock that a weak reference can point at, so the
    locks of indexes nobody is updating are not kept)."""

    __slots__ = ("_lock", "__weakref__")

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> IndexLock:
        self._lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


class FolderWatches:
    """Per-process state, keyed by an index's namespace (closed with the runtime): a change feed for each of
    the :data:`WATCHED_INDEXES` most recently used indexes (least recently used closed first: each holds an
    inotify descriptor and a watch per folder of its tree; an index whose feed was closed compares mtimes on
    its next call and gets a new one), and an update lock per index while someone holds or waits for it.
    Per index, not per folder: in a server of several toolsets, items and code may index one folder, and
    a feed read by one would hide the changes from the other."""

    def __init__(self, size: int | None = None) -> None:
        self.size = size or WATCHED_INDEXES
        self._lock = threading.Lock()
        self.feeds: OrderedDict[str, ChangeFeed] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[str, IndexLock] = weakref.WeakValueDictionary()

    def feed(self, namespace: str, root: Path, skip: frozenset[str]) -> ChangeFeed:
        dropped = []
        with self._lock:
            if namespace not in self.feeds:
                self.feeds[namespace] = ChangeFeed(root, skip=skip)
            self.feeds.move_to_end(namespace)
            while len(self.feeds) > self.size:
                dropped.append(self.feeds.popitem(last=False)[1])
            feed = self.feeds[namespace]
        for old in dropped:
            old.close()
        return feed

    def lock(self, namespace: str) -> IndexLock:
        with self._lock:
            found = self._locks.get(namespace)
            if found is None:
                found = self._locks[namespace] = IndexLock()
            return found

    def close(self) -> None:
        with self._lock:
            feeds, self.feeds = self.feeds, OrderedDict()
        for feed in feeds.values():
            feed.close()


class FolderIndex:
    #: namespace prefix: the toolset's name
    toolset = ""
    #: folder names the change feed does not watch
    skip: frozenset[str] = frozenset()
    #: recorded with the embedder; a different value means the index must be rebuilt
    layout: int = 1
    #: the metadata every call reads (besides the embedder), in one statement
    meta_keys: tuple[str, ...] = ("last_indexed",)

    def __init__(self, runtime: Runtime, root: Path) -> None:
        self.runtime = runtime
        self.root = runtime.confine(root, "folder")  # also for toolsets that resolve the path themselves
        self.namespace = folder_namespace(self.toolset, root)
        self.handle = Namespace(runtime, self.namespace, what=f"the index of {self.root}", meta_keys=self.meta_keys,
                                repair=self.repair_hint())
        #: this call brought the index up to date (:meth:`sync` ran an update that changed it)
        self.refreshed = False

    # -- what a subclass provides -------------------------------------------------------------------

    def repair_hint(self) -> str:
        """What to do when the index is damaged or was built another way (the exact working command)."""
        raise NotImplementedError

    def list_files(self) -> dict[str, float]:
        """Relative path -> mtime of every file the index reads (without reading contents)."""
        raise NotImplementedError

    def update(self, store: Store, force: bool, progress: Progress | None) -> object:
        """Bring ``store`` up to date with the folder (called with the update locks held)."""
        raise NotImplementedError

    # -- opening -------------------------------------------------------------------------------------

    @property
    def location(self) -> str:
        """The index's folder (embedded store), or the database URL and namespace (PostgreSQL)."""
        location = self.handle.location
        return location if self.handle.postgres else str(Path(location).parent)

    def exists(self) -> bool:
        return self.handle.exists()

    def open(self) -> Store | None:
        """The store, or None when there is no index yet (nothing is made)."""
        return self.handle.open()

    def store(self, create: bool = False) -> Store:
        store = self.handle.open(create=create)
        if store is None:
            raise NotFound(f"{self.handle.what} does not exist yet; {self.repair_hint()}")
        return store

    def size_bytes(self) -> int:
        return self.handle.size_bytes()

    def meta(self, store: Store) -> Mapping[str, Any]:
        """The index's bookkeeping (:attr:`meta_keys` and the embedder), read once per call."""
        return self.handle.meta(store)

    def check_embedder(self, store: Store) -> None:
        self.handle.check_embedder(store, repair=f"re-index: {self.repair_hint()}", extra={"layout": self.layout})

    def record_embedder(self, store: Store) -> None:
        self.handle.record_embedder(store, {"layout": self.layout})

    # -- freshness -----------------------------------------------------------------------------------

    def stale_files(self, store: Store) -> list[str]:
        """Relative paths added, changed (mtime) or removed since the last update."""
        indexed: dict[str, float] = self.handle.value(store, "files") or {}
        current = self.list_files()
        changed = [p for p, m in current.items() if indexed.get(p) != m]
        removed = [p for p in indexed if p not in current]
        return sorted(changed + removed)

    def _ready(self) -> Store | None:
        """The store when it holds a finished index (None when missing or a first build never finished)."""
        store = self.open()
        return store if store is not None and self.meta(store).get("last_indexed") is not None else None

    def ensure_fresh(self, progress: Progress | None = None) -> Store:
        """Build a missing index, update a stale one (reporting ``progress``), check the embedder; return
        the store."""
        watches = self.runtime.state(FolderWatches)
        feed = watches.feed(self.namespace, self.root, self.skip) if self.runtime.watch_files else None
        if feed is None:
            self.handle.want("files")  # every call compares the files' mtimes: read them with the rest
        if feed is not None and not feed.changed():
            store = self._ready()
            if store is not None:
                self.check_embedder(store)
                return store
        try:
            store = self._ready()
            if store is None or self.stale_files(store):
                self.sync(progress=progress)
                store = self.store()
            else:
                self.check_embedder(store)
        except BaseException:
            if feed is not None:
                feed.invalidate()  # the changes it reported are not in the index yet
            raise
        return store

    def sync(self, force: bool = False, progress: Progress | None = None) -> object:
        """Run :meth:`update` with this folder's update locks held (this process and others); ``force``
        rebuilds beside the index (:meth:`rebuild`)."""
        with self.runtime.state(FolderWatches).lock(self.namespace), self.runtime.lock(
                self.namespace, INDEX_LOCK, on_wait=self.say_waiting):
            self.discard_rebuild()
            if force:
                result = self.rebuild(progress)
            else:
                self.handle.reread()  # read under the locks: another process may have updated it meanwhile
                try:
                    result = self.update(self.store(create=True), force, progress)
                finally:
                    self.handle.reread()
        self.refreshed = self.refreshed or getattr(result, "status", None) != "unchanged"
        return result

    # -- rebuilding beside the index -----------------------------------------------------------------

    def rebuild(self, progress: Progress | None) -> object:
        """Build the index from scratch in a namespace of its own (:func:`rebuild_namespace`), finish it
        (:meth:`finish_rebuild`: its embeddings), then make it the index in one transaction. Until then
        searches answer from the old index; a failure or an interrupt removes the rebuild and leaves the
        old index as it was (call with the update locks held)."""
        side = self.beside()
        try:
            store = side.store(create=True)
            side.start_rebuild(store, self)
            result = side.finish_rebuild(side.update(store, True, progress), progress)
            self.runtime.replace_store(self.namespace, side.namespace)
        except BaseException:
            side.abandon_rebuild()
            raise
        finally:
            self.handle.reread()
        return result

    def beside(self) -> FolderIndex:
        """This index's rebuild: the same folder, kept in :func:`rebuild_namespace`."""
        side = copy.copy(self)
        side.namespace = rebuild_namespace(self.namespace)
        side.handle = Namespace(self.runtime, side.namespace, what=f"the rebuild of the index of {self.root}",
                                meta_keys=self.meta_keys, repair=self.repair_hint())
        return side

    def start_rebuild(self, store: Store, index: FolderIndex) -> None:
        """Prepare the empty rebuild ``store`` of ``index`` (a subclass carries over what must survive it)."""

    def finish_rebuild(self, result: Any, progress: Progress | None) -> Any:
        """What a rebuild does after its structural update and before it replaces the index (a subclass embeds
        there, so the index it swaps in is complete); returns the result to report."""
        return result

    def abandon_rebuild(self) -> None:
        """Remove this rebuild (never raising: the reason it is abandoned is what the caller reports)."""
        try:
            self.handle.drop()
        except Exception:  # noqa: BLE001 - left for the next update, which removes it (discard_rebuild)
            logger.warning("could not remove the unfinished rebuild %s; the next index removes it", self.namespace)

    def discard_rebuild(self) -> None:
        """Remove what a rebuild that was killed (no chance to clean up) left (call with the update locks held:
        no other rebuild of this index runs then)."""
        side = rebuild_namespace(self.namespace)
        if self.runtime.store_exists(side):
            self.runtime.drop_store(side)
            logger.warning("removed an unfinished rebuild of the index of %s (the index itself is unchanged)",
                           self.root)

    def say_waiting(self) -> None:
        """Say that another process holds this index's lock (before waiting for it)."""
        logger.warning(WAITING.format(root=self.root))
