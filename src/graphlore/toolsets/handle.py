"""One namespace of a toolset as a tool call uses it: the rules every toolset's store handle shares.

A toolset makes one :class:`Namespace` per call (a folder's index, a facts graph, a skill library) and
reads everything through it:

- **Opening**: :meth:`Namespace.open` is the runtime's store (one per namespace and process), or None
  when the namespace does not exist and is not to be made; there is no separate existence check, so a
  warm call pays one identity check (did another process drop the namespace?) and nothing more.
- **Bookkeeping, once per call**: :meth:`Namespace.meta` reads the handle's metadata keys (the
  embedder among them) in one statement the first time it is asked, and answers from that afterwards;
  a handle that writes its metadata says so (:meth:`Namespace.reread`). So a warm tool call makes at
  most three store round trips of bookkeeping (``tests/toolsets/test_store_calls.py`` pins them).
- **The embedder check** reads the recorded embedder from that same read, and records the configured
  one by name and dimension (the store never sees the embedder).
- **Repairs** name what works on the configured backend: on SQLite, moving the namespace's folder
  aside; on PostgreSQL, ``graphlore drop NAMESPACE`` (there is no folder to move); each followed by
  the command that rebuilds the contents (the toolset says which), as one command that runs as it is.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from graphlore.errors import NotFound
from graphlore.runtime import Runtime
from graphlore.store import Store, factory


class Namespace:
    """A toolset's namespace, opened through the shared :class:`Runtime` (see the module docstring)."""

    def __init__(self, runtime: Runtime, namespace: str, *, what: str, meta_keys: Sequence[str] = (),
                 rebuild: tuple[str, str] | None = None, repair: str | None = None) -> None:
        self.runtime = runtime
        self.namespace = namespace
        #: the namespace for people: "the index of /path", "graph 'default'", "skill library 'support'"
        self.what = what
        #: the metadata a call reads (the embedder is always among them)
        self.meta_keys = tuple(dict.fromkeys([*meta_keys, factory.EMBEDDER_META]))
        #: what brings the contents back: (in words, the command), e.g. ("add its documents again",
        #: "graphlore facts ingest FILE.jsonl --graph g"), for the backend's repair
        self.rebuild = rebuild
        #: a repair that works on every backend as it is (a folder index's ``index --force``)
        self._repair = repair
        self._meta: dict[str, Any] | None = None

    # -- where --------------------------------------------------------------------------------------

    @property
    def postgres(self) -> bool:
        return factory.backend(self.runtime.settings) == "postgres"

    @property
    def folder(self) -> Path:
        """The namespace's folder under the data folder (SQLite keeps its store there)."""
        return self.runtime.settings.home / self.namespace

    @property
    def location(self) -> str:
        """The store file (SQLite), or the database URL without its password and the namespace."""
        return factory.store_location(self.runtime.settings, self.namespace)

    def size_bytes(self) -> int:
        return factory.store_size(self.runtime.settings, self.namespace)

    def repair_hint(self) -> str:
        """What a user does when the store is damaged, on the configured backend."""
        if self._repair is not None:
            return self._repair
        words, command = self.rebuild or ("", "")
        then = (f" and {words}", f" && {command}") if command else ("", "")
        if self.postgres:
            return f"it cannot be repaired in place: drop it{then[0]}: `graphlore drop {self.namespace} --yes{then[1]}`"
        folder = shlex.quote(str(self.folder))
        return (f"it cannot be repaired in place: move it aside{then[0]}: "
                f"`mv {folder} {shlex.quote(str(self.folder) + '.damaged')}{then[1]}`")

    # -- opening ------------------------------------------------------------------------------------

    def exists(self) -> bool:
        return self.runtime.store_exists(self.namespace)

    def open(self, create: bool = False) -> Store | None:
        """The namespace's store (made when ``create``), or None when it does not exist."""
        try:
            return self.runtime.open_store(self.namespace, create=create, repair=self.repair_hint())
        except NotFound:
            if create:
                raise
            return None

    def drop(self) -> None:
        self.runtime.drop_store(self.namespace)
        self._meta = None

    # -- bookkeeping --------------------------------------------------------------------------------

    def meta(self, store: Store) -> Mapping[str, Any]:
        """The handle's metadata, read once (one statement) and kept for this call."""
        if self._meta is None:
            self._meta = store.get_meta_many(self.meta_keys)
        return self._meta

    def want(self, *keys: str) -> None:
        """Read ``keys`` too with the bookkeeping of this call (before it is read, to save a round trip)."""
        self.meta_keys = tuple(dict.fromkeys([*self.meta_keys, *keys]))

    def value(self, store: Store, key: str) -> Any:
        """One metadata value: from this call's bookkeeping when it holds ``key``, else read now."""
        return self.meta(store).get(key) if key in self.meta_keys else store.get_meta(key)

    def reread(self) -> None:
        """The metadata changed (this call wrote it): the next :meth:`meta` reads it again."""
        self._meta = None

    # -- the embedder -------------------------------------------------------------------------------

    def check_embedder(self, store: Store, *, repair: str, extra: Mapping[str, Any] | None = None) -> None:
        """Refuse a store whose vectors another embedder (or passage layout, ``extra``) made."""
        embedder = self.runtime.embedder
        factory.check_embedder(self.meta(store).get(factory.EMBEDDER_META), embedder.name, embedder.dim,
                               what=self.what, repair=repair, extra=extra)

    def embedder_record(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The configured embedder as the store records it (name and dimension, and ``extra``)."""
        return factory.embedder_record(self.runtime.embedder.name, self.runtime.embedder.dim, extra)

    def record_embedder(self, store: Store, extra: Mapping[str, Any] | None = None) -> None:
        store.set_meta(factory.EMBEDDER_META, self.embedder_record(extra))
        self.reread()
