"""The :class:`Runtime`: what every tool call shares inside one process.

Settings, the embedder and the LLMs (extraction and judge; each built on first use, never at start-up),
open stores (one per namespace, reopened when the namespace was dropped and made
again, by this process or another), and typed per-toolset state. The MCP server's
lifespan and the CLI close it (:meth:`Runtime.close`); after ``close()`` it can be used again.

What lives across calls, all owned here and closed or emptied by ``close()``:

========================  ==============================================================================
``stores``                one open store per namespace this process used (SQLite: its connection, vector
                          snapshot and BM25 postings; PostgreSQL: its pooled connections); not bounded: a
                          store another thread is reading cannot be closed under it
``vector_cache``          vectors by embedder and text hash (:mod:`graphlore.embeddings`), at most
                          ``settings.embed_cache_mb`` (64 MB by default), least recently used dropped
``search_threads``        the keyword side of hybrid searches on a database server, 8 threads
                          (:class:`~graphlore.search.hybrid.SideThreads`), started on first use
``state(FolderWatches)``  change feeds of the 16 most recently used folder indexes, and each index's
                          update lock while it is held (:mod:`graphlore.toolsets.folder_index`)
``state(WarmGraphs)``     the code graphs of the 4 most recently updated projects (code toolset)
``state(PassageCache)``   passage vectors of 2,048 skills a search read (skills toolset)
``state(BackgroundWork)`` at most one thread per index embedding what a call left to do (items toolset in a
                          long-running process); ``close()`` stops each after its batch and waits for it
========================  ==============================================================================

``close()`` also closes the database's connection pool (:func:`graphlore.store.factory.close_backend`;
the PostgreSQL backend keeps one per database URL, and its in-process table of named locks holds only
locks in use). Session state that a later call reads (the facts toolset's numbered searches) lives in the
store, so any process sharing it answers. Left at module level, process-wide: memos of pure functions, which hold no
resource and can never be stale, each bounded (the keys of the unbounded ones come from the code: request
models, languages, grammars and their queries): ``contract.path_fields``; the code toolset's language
tables (``registry._index``, ``parsing.language``, ``parsing.query``, ``walk._kinds``, ``layout._builds``,
in ``code/languages/`` and ``code/layout/``), the MSBuild files the C# usings read (``usings._msbuild``, 512,
keyed by path and stamp, so an edited file is read again); the facts toolset's name and code readers
(``names._words``, ``names._core_words`` 100,000 each, ``names._pair_evidence_given`` 200,000,
``codes.identifiers``, ``codes.variants``, ``codes.text_platforms``, ``codes.definition_numbers`` 100,000
each); the BM25 tokeniser's (``store.terms._normalise``, ``store.sqlite.bm25._key``, 500,000 each); the code
search's term sets of symbol names (``tools._name_terms``, 65,536). ``tests/test_runtime.py`` checks
that this list names every memo in the source.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeVar

from graphlore.config import Settings
from graphlore.embedding import Embedder, build_embedder
from graphlore.embeddings import Embeddings, VectorCache
from graphlore.llm import LLM, build_llm
from graphlore.roots import confine, parse_roots
from graphlore.search.hybrid import SideThreads
from graphlore.store import Store, factory

T = TypeVar("T")


class Runtime:
    def __init__(self, settings: Settings, embedder: Embedder | None = None, watch_files: bool = False) -> None:
        self.settings = settings
        #: this runtime among every process sharing the store (e.g. the session key of a stdio server)
        self.instance = secrets.token_hex(8)
        self._embedder = embedder
        self._embeddings: Embeddings | None = None
        #: vectors by text hash (:mod:`graphlore.embeddings`), ``settings.embed_cache_mb`` at most
        self.vector_cache = VectorCache(settings.embed_cache_mb * 1024 * 1024)
        #: the keyword side of hybrid searches on a database server (started on first use)
        self.search_threads = SideThreads()
        #: long-running processes (the MCP server) watch folders instead of re-reading every mtime per call
        self.watch_files = watch_files
        self._lock = threading.RLock()
        self._llms: dict[str, LLM | None] = {}
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
    def embeddings(self) -> Embeddings:
        """How every toolset embeds: the embedder behind this runtime's vector cache, batched in one length
        order, cancellable, in steps (:mod:`graphlore.embeddings`)."""
        if self._embeddings is None:
            with self._lock:
                if self._embeddings is None:
                    self._embeddings = Embeddings(self.embedder, self.vector_cache)
        return self._embeddings

    @property
    def llm(self) -> LLM | None:
        """The configured LLM endpoint for extraction (None when none is configured)."""
        return self._role_llm("extraction")

    @property
    def judge_llm(self) -> LLM | None:
        """The configured LLM endpoint for judging (``judge_llm_*``, else the extraction one; None: none)."""
        return self._role_llm("judge")

    def _role_llm(self, role: str) -> LLM | None:
        if role not in self._llms:
            with self._lock:
                if role not in self._llms:
                    self._llms[role] = build_llm(self.settings, role)
        return self._llms[role]

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

    def replace_store(self, namespace: str, source: str) -> None:
        """Give ``namespace`` the contents of ``source`` in one transaction and delete ``source`` (a rebuild made
        beside it; see :func:`factory.replace_store`). This process's handle of ``namespace`` is kept: calls
        using it go on, and the identity check reopens it where the backend made a new one."""
        with self._lock:
            cached = self._stores.pop(source, None)
        if cached is not None:
            cached[1].close()
        factory.replace_store(self.settings, namespace, source)  # not under the lock: calls go on meanwhile

    def lock(self, namespace: str, key: str, timeout: float | None = None,
             on_wait: Callable[[], None] | None = None) -> AbstractContextManager[None]:
        """A named lock on ``namespace`` across processes, waited for ``timeout`` seconds at most (None: as long
        as it takes; see :func:`factory.namespace_lock`); ``on_wait`` is called before waiting for another
        process that holds it."""
        return factory.namespace_lock(self.settings, namespace, key, timeout, on_wait)

    def close(self) -> None:
        """Close every state with a ``close()`` (first: background work stops before its stores close), every
        store, the search threads and the backend's connection pool, and empty the vector cache."""
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
        self.search_threads.close()
        self.vector_cache.clear()
        factory.close_backend(self.settings)
