"""What the configured backend holds: every namespace, what it is for people, its size, last write and embedder.

``graphlore stores`` lists it, ``graphlore drop`` finds what to remove in it and
``graphlore doctor`` counts it. A namespace belongs to the toolset its first name
names (``items/3f2a9c01b7de``: items), and that toolset's
:class:`~graphlore.tools.StoreKind` says what it holds (the project folder, the
graph, the library). A store that does not say (made before graphlore recorded
it) has no label, and a store that cannot be read is listed with the reason,
never left out. Reading a store changes nothing in it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from pydantic import Field

from graphlore.config import Settings
from graphlore.contract import Response
from graphlore.errors import GraphloreError, InvalidInput, NotFound
from graphlore.store import factory
from graphlore.tools import PROJECT_PATH, StoreKind


class Problem(Response):
    code: str = Field(description="The error code, as in [code] messages.")
    message: str = Field(description="What is wrong and how to fix it.")

    @classmethod
    def of(cls, error: GraphloreError) -> Problem:
        return cls(code=error.code, message=error.message)


class StoreEmbedder(Response):
    name: str
    dim: int | None


class StoreInfo(Response):
    """One namespace of the backend."""

    namespace: str
    toolset: str | None = Field(description="The toolset whose store it is; null: no registered toolset's.")
    label: str | None = Field(description="What it holds (a project folder, a graph, a library); null: the "
                                          "store does not say (made before graphlore recorded it).")
    location: str = Field(description="The file (embedded store), or the database without its password.")
    size_bytes: int = Field(ge=0)
    last_write: str | None = Field(description="ISO 8601 UTC; null: not recorded (no write since graphlore "
                                               "began to record it).")
    embedder: StoreEmbedder | None = Field(description="What made its vectors; null: none yet.")
    problem: Problem | None = Field(None, description="Why the store cannot be read (then the fields it "
                                                      "holds are empty).")


class Catalog(Response):
    backend: str = Field(description="sqlite or postgres")
    location: str = Field(description="The data folder, or the database URL without its password.")
    stores: list[StoreInfo]


def iso(seconds: float | None) -> str | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def toolset_of(namespace: str, kinds: Mapping[str, StoreKind]) -> str | None:
    first = namespace.split("/", 1)[0]
    return first if first in kinds else None


def describe(settings: Settings, namespace: str, kinds: Mapping[str, StoreKind]) -> StoreInfo:
    """One namespace as :class:`StoreInfo` (a store that cannot be read: its ``problem``)."""
    toolset = toolset_of(namespace, kinds)
    location = factory.store_location(settings, namespace)
    try:
        size = factory.store_size(settings, namespace)
        store = factory.open_store(settings, namespace)
    except NotFound:
        raise
    except GraphloreError as exc:
        return StoreInfo(namespace=namespace, toolset=toolset, label=None, location=location, size_bytes=0,
                         last_write=None, embedder=None, problem=Problem.of(exc))
    try:
        label = kinds[toolset].label(namespace, store.get_meta) if toolset else None
        embedder = store.get_meta(factory.EMBEDDER_META)
        return StoreInfo(namespace=namespace, toolset=toolset, label=label, location=location, size_bytes=size,
                         last_write=iso(store.last_write()),
                         embedder=StoreEmbedder(name=embedder["name"], dim=embedder.get("dim")) if embedder else None)
    except GraphloreError as exc:
        return StoreInfo(namespace=namespace, toolset=toolset, label=None, location=location, size_bytes=size,
                         last_write=None, embedder=None, problem=Problem.of(exc))
    finally:
        store.close()


def catalog(settings: Settings, kinds: Mapping[str, StoreKind]) -> Catalog:
    """Every namespace of the configured backend, sorted by name."""
    name, where = factory.backend(settings), factory.backend_location(settings)
    stores = []
    for namespace in factory.list_namespaces(settings):
        try:
            stores.append(describe(settings, namespace, kinds))
        except NotFound:  # dropped while the list was read
            continue
    return Catalog(backend=name, location=where, stores=stores)


def real_folder(path: str) -> Path:
    """A folder's real path as folder-backed toolsets name their stores (``..`` and symlinks resolved; it
    need not exist any more)."""
    try:
        return Path(os.path.realpath(os.path.expanduser(path)))
    except (ValueError, OSError) as exc:  # a NUL byte...
        raise InvalidInput(f"--project {path!r} is not a usable path ({exc})") from exc


def project_stores(settings: Settings, folder: Path, kinds: Mapping[str, StoreKind]) -> list[str]:
    """The namespaces that index ``folder`` (a real path): by the name its toolset gives the folder's store,
    and by the ``project_path`` a store recorded (which also finds it after the folder moved). A namespace
    under another one found (a rebuild of an index, left by a killed ``index --force``) is part of it, not a
    store of its own."""
    found = []
    present = factory.list_namespaces(settings)
    for toolset, kind in kinds.items():
        if kind.of_folder is None:
            continue
        named = kind.of_folder(folder)
        for namespace in present:
            if toolset_of(namespace, kinds) != toolset:
                continue
            if namespace == named or _recorded_folder(settings, namespace) == str(folder):
                found.append(namespace)
    return [n for n in found if not any(n.startswith(f"{other}/") for other in found)]


def _recorded_folder(settings: Settings, namespace: str) -> str | None:
    try:
        store = factory.open_store(settings, namespace)
    except GraphloreError:
        return None
    try:
        return store.get_meta(PROJECT_PATH)
    except GraphloreError:
        return None
    finally:
        store.close()


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"
