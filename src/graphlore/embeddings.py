"""Embedding work, done one way for every toolset: ``runtime.embeddings`` (an :class:`Embeddings`).

:mod:`graphlore.embedding` turns a batch of texts into vectors (a model or an endpoint); this module
decides which texts reach it, in what order, and what happens between batches:

- **Never the same text twice** for one embedder: a :class:`VectorCache` keyed by the embedder's name
  and the text's sha256, owned by the :class:`~graphlore.runtime.Runtime` (one per process) and bounded
  in bytes (``Settings.embed_cache_mb``; least recently used dropped first). It lives in memory only:
  every store already keeps each node's vectors with the hash of the text they were made from, and every
  toolset skips text whose stored hash is current, so what survives a restart is already on disk; the
  cache covers what a process meets again before that (repeated queries, the same text in several
  owners or writes, work redone after a failed or interrupted write). A persistent cache would be a
  second copy of every vector with its own retention and cross-process locking, and on PostgreSQL a
  round trip per query.
- **One global length order**: texts that are embedded are sorted once by their length as the model
  sees it (the embedder's ``lengths``: word pieces for the bundled model), and cut into batches of the
  embedder's ``batch_size`` (similar lengths in a batch waste less on padding).
- **Cancellation**: between batches the call checks :func:`graphlore.tools.check_cancelled` (the MCP
  adapter makes it raise once the client cancelled the call; on the CLI Ctrl-C stops it), so a
  cancelled call stops after the batch in progress.
- **Progress** after every batch, counting the texts the caller gave (cached ones count as done); the
  tool names what they are to the person watching (``ToolSpec.progress_unit``: "passages embedded").
- **Commit in steps** (:meth:`Embeddings.embed_owners`): texts belong to owners (an item's passages,
  a node's text); as soon as all of an owner's texts are embedded the owner is ready, and the ready
  owners are handed to the caller's ``commit`` every :data:`STEP_TEXTS` texts, so an interrupted update
  keeps what it committed. The global order is kept across steps (an owner's short and long texts land
  in different batches); what a step commits is what the batches so far finished.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import numpy as np

from graphlore.embedding import Embedder, in_length_order
from graphlore.tools import Progress

#: Texts embedded between two commits of :meth:`Embeddings.embed_owners` (at most one batch more).
STEP_TEXTS = 256
#: The default bound of the vector cache (``Settings.embed_cache_mb``).
CACHE_MB = 64

Owner = TypeVar("Owner", bound=Hashable)


def text_key(text: str) -> bytes:
    """What the cache knows a text by: its sha256 (32 bytes)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class VectorCache:
    """Vectors by (embedder name, text hash), least recently used dropped first once ``max_bytes`` of
    vectors are held (0: nothing is kept). Rows are read-only arrays shared with callers."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max(0, int(max_bytes))
        self._rows: OrderedDict[tuple[str, bytes], np.ndarray] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def bytes(self) -> int:
        return self._bytes

    def get(self, name: str, keys: Sequence[bytes]) -> list[np.ndarray | None]:
        out: list[np.ndarray | None] = []
        with self._lock:
            for key in keys:
                row = self._rows.get((name, key))
                if row is not None:
                    self._rows.move_to_end((name, key))
                out.append(row)
        return out

    def put(self, name: str, keys: Sequence[bytes], rows: np.ndarray) -> None:
        if self.max_bytes == 0:
            return
        with self._lock:
            for key, row in zip(keys, rows, strict=True):
                row = np.array(row, dtype=np.float32)  # a copy of its own: the caller's matrix may change
                row.flags.writeable = False
                old = self._rows.pop((name, key), None)
                if old is not None:
                    self._bytes -= old.nbytes
                self._rows[(name, key)] = row
                self._bytes += row.nbytes
            while self._bytes > self.max_bytes and self._rows:
                _, dropped = self._rows.popitem(last=False)
                self._bytes -= dropped.nbytes

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()
            self._bytes = 0


class Embeddings:
    """The configured embedder behind the cache, in one global length order (see the module docstring)."""

    def __init__(self, embedder: Embedder, cache: VectorCache) -> None:
        self.embedder = embedder
        self.cache = cache

    @property
    def name(self) -> str:
        return self.embedder.name

    @property
    def batch_size(self) -> int:
        return max(1, int(getattr(self.embedder, "batch_size", 32) or 32))

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """``(len(texts), dim)`` float32, rows L2-normalised; each distinct text not in the cache is embedded
        once. ``progress(done, total)`` counts ``texts``."""
        texts = list(texts)
        rows: list[np.ndarray | None] = [None] * len(texts)
        self._resolve(texts, rows, progress, None)
        if not texts:
            return np.empty((0, self.embedder.dim or 0), dtype=np.float32)
        return np.vstack(rows)

    def embed_owners(
        self, owners: Sequence[tuple[Owner, Sequence[str]]], commit: Callable[[dict[Owner, np.ndarray]], None],
        progress: Progress | None = None, step: int | None = None,
    ) -> int:
        """Embed every owner's texts and call ``commit({owner: (k, dim) matrix})`` with the owners made ready
        since the last commit, whenever at least ``step`` (default :data:`STEP_TEXTS`) texts are ready and
        uncommitted, and once at the end. Owners whose texts are all cached are committed first, without embedding. An owner with no
        texts is never committed. ``progress`` counts texts over all owners. Returns the number of texts."""
        step = step or STEP_TEXTS
        texts = [text for _, own in owners for text in own]
        rows: list[np.ndarray | None] = [None] * len(texts)
        bounds, at = [], 0
        for _, own in owners:
            bounds.append((at, at + len(own)))
            at += len(own)
        waiting = [end - start for start, end in bounds]  # texts of each owner without a row yet
        owner_of = [o for o, (start, end) in enumerate(bounds) for _ in range(start, end)]
        ready: list[int] = []
        ready_texts = 0

        def finished(positions: Sequence[int]) -> None:
            nonlocal ready_texts
            for position in positions:
                o = owner_of[position]
                waiting[o] -= 1
                if waiting[o] == 0:
                    ready.append(o)
                    ready_texts += bounds[o][1] - bounds[o][0]
            if ready_texts >= step:
                flush()

        def flush() -> None:
            nonlocal ready_texts
            if ready:
                batch = {owners[o][0]: np.vstack(rows[bounds[o][0]:bounds[o][1]]) for o in ready}
                ready.clear()
                ready_texts = 0
                commit(batch)

        self._resolve(texts, rows, progress, finished)
        flush()
        return len(texts)

    def _resolve(
        self, texts: list[str], rows: list[np.ndarray | None], progress: Progress | None,
        finished: Callable[[Sequence[int]], None] | None,
    ) -> None:
        """Fill ``rows`` (one per text): the cache first, then the embedder for each distinct missing text,
        in length order; ``finished(positions)`` as rows arrive, ``progress`` after each batch."""
        name = self.embedder.name
        keys = [text_key(t) for t in texts]
        total = len(texts)
        missing: dict[bytes, list[int]] = {}
        for position, (key, row) in enumerate(zip(keys, self.cache.get(name, keys), strict=True)):
            if row is None:
                missing.setdefault(key, []).append(position)
            else:
                rows[position] = row
        done = total - sum(len(p) for p in missing.values())
        if finished is not None and done:
            finished([p for p in range(total) if rows[p] is not None])
        if progress is not None and total:   # texts found in the cache count as done: a person sees them
            progress(done, total)
        if not missing:
            return
        wanted = list(missing)
        todo = [texts[missing[key][0]] for key in wanted]

        def batch_done(batch_rows: np.ndarray, idx: list[int]) -> None:
            nonlocal done
            batch_keys = [wanted[i] for i in idx]
            self.cache.put(name, batch_keys, batch_rows)
            positions = []
            for key, row in zip(batch_keys, batch_rows, strict=True):
                for position in missing[key]:
                    rows[position] = row
                    positions.append(position)
            done += len(positions)
            if finished is not None:
                finished(positions)
            if progress is not None:
                progress(done, total)

        measure = getattr(self.embedder, "lengths", None)
        lengths = measure(todo) if callable(measure) and len(todo) > self.batch_size else None
        in_length_order(self.embedder.embed, todo, self.batch_size, self.embedder.dim or 0, batch_done, lengths)
