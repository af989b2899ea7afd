"""The real embedder behind a cache of vectors by text hash, for benchmarks that embed the same texts again.

A SQLite file per embedder name in a folder outside the repo; a text is embedded once, on its first miss.
``seconds`` and ``computed`` count only the real embedder's work, so a run with a warm cache measures the
code around the embedder.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from graphlore.embedding import OnnxEmbedder


class CachedEmbedder:
    """The real embedder behind a cache of vectors by text hash (a SQLite file outside the repo)."""

    def __init__(self, inner: OnnxEmbedder, folder: Path | None) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.seconds = 0.0  # spent in the real embedder
        self.cache_seconds = 0.0  # spent reading and writing the cache
        self.computed = 0
        self._db = None
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(folder / f"{inner.name}.sqlite", timeout=60)  # another bench may be writing
            self._db.execute("CREATE TABLE IF NOT EXISTS v (h TEXT PRIMARY KEY, b BLOB)")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        began, embedding = time.perf_counter(), self.seconds
        try:
            return self._embed(list(texts))
        finally:
            self.cache_seconds += time.perf_counter() - began - (self.seconds - embedding)

    def _embed(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        found: dict[str, bytes] = {}
        if self._db is not None:
            for i in range(0, len(keys), 500):
                chunk = keys[i:i + 500]
                found.update(self._db.execute(f"SELECT h, b FROM v WHERE h IN ({','.join('?' * len(chunk))})", chunk))
        missing = [i for i, k in enumerate(keys) if k not in found]
        if missing:
            began = time.perf_counter()
            vectors = self.inner.embed([texts[i] for i in missing])
            self.seconds += time.perf_counter() - began
            self.computed += len(missing)
            for i, row in zip(missing, vectors, strict=True):
                out[i] = row
                found[keys[i]] = row.tobytes()
            if self._db is not None:
                self._db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)",
                                     [(keys[i], found[keys[i]]) for i in missing])
                self._db.commit()
        for i, k in enumerate(keys):
            out[i] = np.frombuffer(found[k], dtype=np.float32)
        return out

    def passages(self, text: str) -> list[str]:
        return [text]
