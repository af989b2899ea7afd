"""The store contract suite runs on every backend: ``store`` and ``open_namespace`` touch only the
protocol and the factory. Backend internals (PRAGMAs, query plans, files, schemas) live in
``store/<backend>/``. The PostgreSQL runs use a real server (see :mod:`helpers.backend`); their
tests share one database whose namespaces are dropped after each test."""

from __future__ import annotations

import pytest
from helpers import backend

from graphlore.config import Settings
from graphlore.store import open_store

#: ``postgres-hnsw``: PostgreSQL with every vector search sent through the HNSW index (no exact scan for
#: small candidate sets), so the whole suite also pins the index path.
BACKENDS = ["sqlite", "postgres", pytest.param("postgres-hnsw", marks=pytest.mark.slow)]


@pytest.fixture(params=BACKENDS)
def store_settings(request, tmp_path, monkeypatch) -> Settings:
    if request.param == "sqlite":
        yield Settings(home=tmp_path / "home")
        return
    if request.param == "postgres-hnsw":
        from graphlore.store.postgres import connection
        from graphlore.store.postgres import store as postgres_store

        configure = connection._configure

        def index_scans(conn):  # tiny tables: the planner would rather sort than walk the index
            configure(conn)
            conn.execute("SET enable_seqscan = off")

        monkeypatch.setattr(postgres_store, "EXACT_SCAN", -1)
        monkeypatch.setattr(connection, "_configure", index_scans)
    try:
        url = backend.database_url("gs_contract")
    except backend.Unavailable as exc:
        pytest.skip(str(exc))
    yield Settings(home=tmp_path / "home", database_url=url)
    from graphlore.store.postgres import connection

    connection.close_all()
    backend.drop_namespaces(url)


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
