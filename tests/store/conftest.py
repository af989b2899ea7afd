"""The store contract suite runs on every backend: ``store`` and ``open_namespace`` touch only the
protocol and the factory. Backend internals (PRAGMAs, query plans, files) live in ``store/<backend>/``."""

from __future__ import annotations

import pytest

from graphsift.config import Settings
from graphsift.store import open_store

#: The PostgreSQL backend joins this list when it lands.
BACKENDS = ["sqlite"]


@pytest.fixture(params=BACKENDS)
def store_settings(request, tmp_path) -> Settings:
    return Settings(home=tmp_path / "home")


@pytest.fixture
def open_namespace(store_settings):
    """``open_namespace(name="test/one", create=True)``: a store opened through the factory (closed after)."""
    opened = []

    def open_(namespace: str = "test/one", create: bool = True, repair: str = ""):
        store = open_store(store_settings, namespace, create=create, repair=repair)
        opened.append(store)
        return store

    yield open_
    for store in opened:
        store.close()


@pytest.fixture
def store(open_namespace):
    return open_namespace()
