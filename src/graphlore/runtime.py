"""The :class:`Runtime`: what every tool call shares inside one process.

Settings, the embedder and the LLM (each built on first use, never at start-up),
open stores (one per namespace, reopened when the namespace was dropped and made
again, by this process or another), and typed per-toolset state. The MCP server's
lifespan and the CLI close it, which closes every store, every state that has
a ``close()`` (e.g. inotify descriptors) and the database's connection pool
(:func:`graphlore.store.factory.close_backend`); after ``close()`` it can be used again.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeVar

from graphlore.config import Settings
from graphlore.embedding import Embedder, build_embedder
from graphlore.llm import LLM, build_llm
from graphlore.roots import confine, parse_roots
from graphlore.store import Store, factory

T = TypeVar("T")


class Runtime:
    def __init__(self, settings: Settings, embedder: Embedder | None = None, watch_files: bool = False) -> None:
        self.settings = settings
        self._embedder = embedder
        #: long-running processes (the MCP server) watch folders instead of re-reading every mtime per call
        self.watch_files = watch_files
        self._lock = threading.RLock()
        self._llm: LLM | None = None
        self._llm_built = False
        self._stores: dict[str, tuple[Any, Store]] = {}
        self._states: dict[type, Any] = {}
        self._roots: tuple[Path, ...] | None = None

    # -- what is built on first use --------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self._lock:
                if self._embedder is None:
                    self._embedder = build_embedder(self.settings)
        return self._embedder

    @property
    def llm(self) -> LLM | None:
        """The configured LLM endpoint (None when none is configured)."""
        if not self._llm_built:
            with self._lock:
                if not self._llm_built:
                    self._llm = build_llm(self.settings)
                    self._llm_built = True
        return self._llm

    @property
    def roots(self) -> tuple[Path, ...]:
        """The folders this process may read (:mod:`graphlore.roots`; empty: no confinement)."""
        if self._roots is None:
            self._roots = parse_roots(self.settings.allowed_roots)
        return self._roots

    def confine(self, path: str | Path, what: str = "project_path") -> Path:
        """The real path of a folder a request names, refused when outside the allowed roots
        (:mod:`graphlore.roots`)."""
        return confine(path, self.roots, what)

    def state(self, cls: type[T]) -> T:
        """This process's one instance of a toolset's state class (made with ``cls()`` on first use)."""
        with self._lock:
            if cls not in self._states:
                self._states[cls] = cls()
            return self._states[cls]

    # -- stores --------------------------------------------------------------------------------------

    def store_exists(self, namespace: str) -> bool:
        return factory.store_exists(self.settings, namespace)

    def open_store(self, namespace: str, *, create: bool = False, repair: str = "") -> Store:
        """The namespace's store, shared by every call in this process (see :func:`factory.open_store`)."""
        with self._lock:
            # Read under the lock: a thread that read it before another thread created the namespace
            # would take the new store for a stale one and close it under that thread's feet.
            identity = factory.store_identity(self.settings, namespace)
            cached = self._stores.get(namespace)
            if cached is not None and cached[0] == identity and identity is not None:
                return cached[1]
            if cached is not None:
                cached[1].close()
                del self._stores[namespace]
            store = factory.open_store(self.settings, namespace, create=create, repair=repair)
            self._stores[namespace] = (factory.store_identity(self.settings, namespace), store)
            return store

    def drop_store(self, namespace: str) -> None:
        """Close this process's handle and delete the namespace (e.g. a rebuild from scratch)."""
        with self._lock:
            cached = self._stores.pop(namespace, None)
            if cached is not None:
                cached[1].close()
            factory.drop_store(self.settings, namespace)

    def lock(self, namespace: str, key: str) -> AbstractContextManager[None]:
        """A named lock on ``namespace`` across processes (see :func:`factory.namespace_lock`)."""
        return factory.namespace_lock(self.settings, namespace, key)

    def close(self) -> None:
        """Close every state with a ``close()`` (first: background work stops before its stores close), every
        store and the backend's connection pool."""
        with self._lock:
            states, self._states = self._states, {}
        for state in states.values():
            closer = getattr(state, "close", None)
            if callable(closer):
                closer()
        with self._lock:
            stores, self._stores = self._stores, {}
        for _, store in stores.values():
            store.close()
        factory.close_backend(self.settings)
