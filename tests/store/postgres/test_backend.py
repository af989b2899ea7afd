"""PostgreSQL internals behind the protocol: a database that cannot be reached, versioned migrations,
namespaces made and dropped by other processes, lock waits, driver errors translated, the HNSW index
and the exact scan, and BM25 equal to the SQLite backend's."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

import numpy as np
import psycopg
import pytest
from helpers import backend
from helpers.vectors import unit

from graphlore.config import Settings
from graphlore.errors import IndexCorrupted, InvalidInput, StoreBusy, StoreUnavailable
from graphlore.runtime import Runtime
from graphlore.store import Node, drop_store, open_store, store_exists
from graphlore.store.postgres import connection
from graphlore.store.postgres import store as pg_store
from graphlore.store.postgres.migrations import DATABASE, NAMESPACE

#: A real PostgreSQL and several processes: part of the full run, not the everyday one.
pytestmark = pytest.mark.slow


@pytest.fixture
def url(tmp_path):
    try:
        url = backend.database_for(tmp_path / "pg")
    except backend.Unavailable as exc:
        pytest.skip(str(exc))
    yield url
    connection.close_all()


@pytest.fixture
def settings(url, tmp_path) -> Settings:
    return Settings(home=tmp_path / "home", database_url=url)


def in_thread(fn, bound: float = 60.0):
    """Run ``fn`` in a thread and return what it raised or returned (a hang fails the test at ``bound``)."""
    out: list = []

    def run():
        try:
            out.append(fn())
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(bound)
    assert out, f"still waiting after {bound} s"
    return out[0]


# -- a database that cannot be used ----------------------------------------------------------------


def test_a_refusing_server_is_one_line_with_the_reason(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = Settings(home=tmp_path, database_url=f"postgresql://graphlore:secret@127.0.0.1:{port}/db")
    error = in_thread(lambda: open_store(settings, "test/one", create=True))
    assert isinstance(error, StoreUnavailable)
    assert error.message.startswith("Database connection failed: ") and "refused" in error.message
    assert "secret" not in error.message and "\n" not in error.message


def test_a_server_that_never_answers_fails_at_the_connect_timeout(tmp_path):
    """It accepts the connection and says nothing: libpq waits for the connect timeout, not forever."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        settings = Settings(home=tmp_path, database_url=f"postgresql://u@127.0.0.1:{port}/db?connect_timeout=2")
        error = in_thread(lambda: store_exists(settings, "test/one"), bound=30)
    assert isinstance(error, StoreUnavailable) and error.message.startswith("Database connection failed: ")
    assert "timeout" in error.message


def test_the_cli_prints_one_error_line_for_an_unreachable_database(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "GRAPHLORE_HOME": str(tmp_path), "GRAPHLORE_DATABASE_URL": f"postgresql://u@127.0.0.1:{port}/db"}
    proc = subprocess.run([sys.executable, "-m", "graphlore", "facts", "stats"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: [store_unavailable] Database connection failed: ")
    assert proc.stderr.count("\n") == 1


def test_a_store_whose_server_went_away_says_so(settings, url):
    store = open_store(settings, "test/one", create=True)
    store.upsert_nodes([Node("a", "item", "alpha")])
    with psycopg.connect(backend.server_url(), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> "
                      "pg_backend_pid()", (url.rsplit("/", 1)[1].split("?")[0],))
    error = in_thread(lambda: store.count_nodes())
    # The pool hands out a connection the server closed: the call fails in one line, the next one works.
    if isinstance(error, Exception):
        assert isinstance(error, StoreUnavailable) and error.message.startswith("Database connection failed: ")
    assert in_thread(lambda: store.count_nodes()) == 1


# -- migrations and namespaces -------------------------------------------------------------------------


def test_migrations_are_versioned_and_applying_them_again_changes_nothing(settings, url):
    open_store(settings, "test/one", create=True)
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT version FROM graphlore.version").fetchone()[0] == len(DATABASE)
        assert conn.execute("SELECT name, version FROM graphlore.namespaces").fetchall() == [
            ("test/one", len(NAMESPACE))]
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname LIKE 'gs_%'").fetchone()[0]
    connection.close_all()
    open_store(settings, "test/one", create=True)  # a new process: migrations run on start, and find nothing
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname LIKE 'gs_%'").fetchone()[0] == tables
        conn.execute("UPDATE graphlore.namespaces SET version = version + 1")
    with pytest.raises(IndexCorrupted, match="newer than this graphlore"):
        open_store(settings, "test/one")


def test_an_upgrade_of_a_namespace_says_on_stderr_how_far_it_is_and_a_new_namespace_says_nothing(
        settings, url, monkeypatch, caplog):
    """Upgrading an existing namespace (an index build over every edge: minutes on a large graph) says through
    graphlore's logger (stderr in the CLI and the servers) what it does once it has run ``every_s``: the steps
    done (or the rows an index build has read), and when it is done. Creating a namespace says nothing."""
    from graphlore.store import Edge, migrate
    from graphlore.store.postgres import migrations, namespaces
    from graphlore.store.url import redact

    with monkeypatch.context() as patch:  # this process as graphlore one schema version earlier
        patch.setattr(migrations, "NAMESPACE", NAMESPACE[:-1])
        patch.setattr(namespaces, "NAMESPACE", NAMESPACE[:-1])
        with caplog.at_level("WARNING", logger="graphlore"):
            old = open_store(settings, "test/old", create=True)
        old.upsert_nodes([Node("a", "entity", "A", "a"), Node("b", "entity", "B", "b")])
        old.upsert_edges([Edge(f"e{i}", "a", "b", "fact", {"valid_from": "2020-01-01"}, f"fact {i}", None, "2020-01-01")
                          for i in range(50)])
    assert not [r for r in caplog.records if r.name == "graphlore"]
    connection.close_all()
    monkeypatch.setattr(migrate.UpgradeNotes, "every_s", 0.0)
    monkeypatch.setattr(namespaces, "WATCH_S", 0.001)
    with caplog.at_level("WARNING", logger="graphlore"):
        upgraded = open_store(settings, "test/old")
    lines = [r.getMessage() for r in caplog.records if r.name == "graphlore"]
    start = f"upgrading the schema of {redact(url)} (namespace test/old) from version {len(NAMESPACE) - 1} to "
    assert lines and all(line.startswith(f"{start}{len(NAMESPACE)}: ") for line in lines), lines
    assert lines[-2].endswith(")") and ": 1/1 schema steps (" in lines[-2] and ": done in " in lines[-1], lines
    assert upgraded.select_edges(["a"], valid_at="2020-06-01").total == 50


def test_a_namespace_upgrade_whose_transaction_fails_never_says_it_is_done(settings, url, monkeypatch, caplog):
    """The upgrade is done when its transaction commits: a failure after the steps (recording the new version, or
    the commit) leaves the namespace at its old version and prints no "done" line."""
    from graphlore.errors import GraphloreError
    from graphlore.store import migrate
    from graphlore.store.postgres import migrations, namespaces

    with monkeypatch.context() as patch:  # this process as graphlore one schema version earlier
        patch.setattr(migrations, "NAMESPACE", NAMESPACE[:-1])
        patch.setattr(namespaces, "NAMESPACE", NAMESPACE[:-1])
        open_store(settings, "test/old", create=True)
    connection.close_all()
    monkeypatch.setattr(migrate.UpgradeNotes, "every_s", 0.0)
    monkeypatch.setattr(namespaces, "WATCH_S", 0.001)
    real = namespaces.migrate_namespace
    monkeypatch.setattr(namespaces, "migrate_namespace", lambda *a: (real(*a), "no version")[1])
    with caplog.at_level("WARNING", logger="graphlore"), pytest.raises(GraphloreError):
        open_store(settings, "test/old")
    lines = [r.getMessage() for r in caplog.records if r.name == "graphlore"]
    assert lines and not [line for line in lines if ": done in " in line], lines
    with psycopg.connect(url) as conn:
        version = conn.execute("SELECT version FROM graphlore.namespaces WHERE name = 'test/old'").fetchone()[0]
    assert version == len(NAMESPACE) - 1


def test_a_store_of_the_previous_version_upgrades_to_per_kind_statistics(settings, url, tmp_path, monkeypatch):
    """A namespace made at schema version 1 (one document frequency per lexeme over every kind) is upgraded
    on open, in its one migration transaction, to per-kind frequencies equal to a fresh store's, and then
    scores and keeps its statistics exactly as a fresh store does."""
    from graphlore.store.postgres import migrations, namespaces

    nodes = [Node("a", "item", "Replication lag", "replicas fall behind the primary"),
             Node("b", "item", "Offline sync", "conflicts merged by last write wins"),
             Node("c", "topic", "lag", "replication replication"), Node("d", "chunk", "", "lag lag write"),
             Node("e", "item", "Lag in the UI", "the interface lags")]
    fresh = open_store(settings, "test/fresh", create=True)
    fresh.upsert_nodes(nodes)
    fresh.upsert_nodes([Node("e", "topic", "Lag in the UI", "the interface lags")])  # a kind change
    fresh.delete_nodes(["b"])
    with monkeypatch.context() as patch:  # this process as graphlore at schema version 1
        patch.setattr(migrations, "NAMESPACE", NAMESPACE[:1])
        patch.setattr(namespaces, "NAMESPACE", NAMESPACE[:1])
        old = open_store(settings, "test/old", create=True)
    o, f = old._s, fresh._s
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT version FROM graphlore.namespaces WHERE name = 'test/old'").fetchone() == (1,)
        # What version 1 kept for these nodes: the same rows, and each lexeme's frequency over every kind.
        conn.execute(f"INSERT INTO {o}.nodes SELECT * FROM {f}.nodes")
        conn.execute(f"SELECT setval(pg_get_serial_sequence('{o}.nodes', 'seq'), (SELECT max(seq) FROM {o}.nodes))")
        conn.execute(f"INSERT INTO {o}.counts SELECT * FROM {f}.counts")
        conn.execute(f"INSERT INTO {o}.terms SELECT lexeme, sum(df) FROM {f}.terms GROUP BY lexeme")
        assert conn.execute(f"SELECT df FROM {o}.terms WHERE lexeme = 'lag'").fetchone() == (4,)
    connection.close_all()
    upgraded = open_store(settings, "test/old")  # a new graphlore opens it: the migration runs
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT version FROM graphlore.namespaces WHERE name = 'test/old'").fetchone() == (
            len(NAMESPACE),)
        terms = [conn.execute(f"SELECT lexeme, kind, df FROM {s}.terms ORDER BY lexeme, kind").fetchall()
                 for s in (o, f)]
    assert terms[0] == terms[1] and ("lag", "chunk", 1) in terms[0]
    fresh = open_store(settings, "test/fresh")

    def scores(store):
        return [[(h.id, h.score) for h in store.keyword_search(q, kind=k)]
                for q in ("replication lag", "lag write", "interface") for k in (None, "item", "topic", "chunk")]

    assert scores(upgraded) == scores(fresh) and any(scores(fresh))
    for store in (upgraded, fresh):  # and writes after the upgrade keep both alike
        store.upsert_nodes([Node("a", "chunk", "Replication lag", "lag again"), Node("f", "item", "lag")])
    assert scores(upgraded) == scores(fresh)


def test_processes_creating_one_namespace_at_once_make_one(settings, url):
    errors = []

    def make():
        try:
            open_store(settings, "test/race", create=True).upsert_nodes([Node(f"n{threading.get_ident()}", "x")])
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=make) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert open_store(settings, "test/race").count_nodes() == 6
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM graphlore.namespaces WHERE name = 'test/race'").fetchone()[0] == 1


def test_a_namespace_dropped_by_another_process_is_reported_then_reopened(settings, embedder):
    runtime = Runtime(settings, embedder=embedder)
    store = runtime.open_store("test/dropped", create=True)
    store.upsert_nodes([Node("a", "item", "alpha")])
    drop_store(settings, "test/dropped")  # as another process would
    store.repair = "rebuild it"  # what the opener would have said
    with pytest.raises(IndexCorrupted, match="missing its tables.*; rebuild it"):
        store.count_nodes()  # the handle this process still holds
    fresh = runtime.open_store("test/dropped", create=True)  # the runtime sees a new identity and reopens
    assert fresh is not store and fresh.count_nodes() == 0


# -- transactions and errors ------------------------------------------------------------------------


def test_an_atomic_block_held_past_the_busy_timeout_is_store_busy(settings, monkeypatch):
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_S", 1)
    holder, waiter = open_store(settings, "test/one", create=True), open_store(settings, "test/one")
    inside, release = threading.Event(), threading.Event()

    def hold():
        with holder.atomic():
            holder.set_meta("k", 1)
            inside.set()
            release.wait(30)

    thread = threading.Thread(target=hold)
    thread.start()
    inside.wait(30)
    error = in_thread(lambda: waiter.set_meta("k", 2))
    release.set()
    thread.join()
    assert isinstance(error, StoreBusy) and "busy" in error.message
    assert waiter.get_meta("k") == 1


def test_text_postgresql_cannot_hold_is_refused_and_changes_nothing(settings):
    store = open_store(settings, "test/one", create=True)
    with pytest.raises(InvalidInput, match="cannot store"):
        store.upsert_nodes([Node("a", "item", "fine"), Node("b", "item", "bad \x00 byte")])
    with pytest.raises(InvalidInput, match="cannot store"):
        store.set_meta("k", {"v": "nul \x00"})
    assert store.count_nodes() == 0 and store.get_meta("k") is None


# -- vectors: the index and the exact scan ---------------------------------------------------------


@pytest.fixture
def many(settings):
    rng = np.random.default_rng(3)
    vectors = unit(*rng.normal(size=(3000, 24)))
    store = open_store(settings, "test/many", create=True)
    store.upsert_nodes([Node(f"n{i:04d}", "doc", props={"g": i % 50}, vectors=vectors[i]) for i in range(3000)])
    return store, vectors, rng


def plan(store, query, kind, where, exact):
    from graphlore.store.postgres import sql

    statement, params = sql.vector_sql(store._s, kind, where, query, 20, exact)
    with store._connection() as conn, conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")  # 3,000 rows: the planner would rather sort them all
        return "\n".join(r[0] for r in conn.execute("EXPLAIN " + statement, params))


def test_the_index_path_can_use_hnsw_and_the_exact_path_never_does(many, monkeypatch):
    store, vectors, rng = many
    query = unit(rng.normal(size=24))[0]
    assert "passages_hnsw" in plan(store, query, "doc", None, exact=False)
    assert "passages_hnsw" not in plan(store, query, "doc", None, exact=True)
    monkeypatch.setattr(pg_store, "EXACT_SCAN", 100)
    calls = []
    real = store._nearest
    monkeypatch.setattr(store, "_nearest", lambda *a, **k: calls.append(a[-1] if len(a) > 5 else k.get("exact"))
                        or real(*a, **k))
    store.vector_search(query, kind="doc", limit=10)  # 3000 candidates: the index
    store.vector_search(query, kind="doc", where={"g": 7}, limit=10)  # 60 candidates: exact
    assert calls == [False, True]


def test_the_hnsw_path_finds_what_an_exact_scan_finds_even_under_a_filter(many, monkeypatch):
    store, vectors, rng = many
    monkeypatch.setattr(pg_store, "EXACT_SCAN", 10)
    found, wanted = 0, 0
    for _ in range(10):
        query = unit(rng.normal(size=24))[0]
        for where in (None, {"g": [1, 2, 3]}):  # 3000 nodes; 180 nodes (6%) that the index must scan past
            allowed = [i for i in range(3000) if where is None or i % 50 in where["g"]]
            exact = sorted(allowed, key=lambda i: -float(vectors[i] @ query))[:10]
            hits = store.vector_search(query, kind="doc", where=where, limit=10)
            assert len(hits) == 10 and all(where is None or int(h.id[1:]) % 50 in where["g"] for h in hits)
            found += len({h.id for h in hits} & {f"n{i:04d}" for i in exact})
            wanted += 10
    assert found / wanted >= 0.95  # HNSW is approximate; at this size it misses almost nothing


def test_an_index_search_sets_its_candidate_list_for_its_own_transaction(settings, monkeypatch):
    """ef_search = max(floor, passages asked for): with iterative scans off, 300 nodes come from one index
    scan (a list of 40 would return 40 rows and force the exact fallback), and the pooled connection keeps
    the server's settings afterwards."""
    configure = connection._configure

    def index_scans(conn):  # 3,000 rows: the planner would rather sort them all than walk the index
        configure(conn)
        conn.execute("SET enable_seqscan = off")

    monkeypatch.setattr(connection, "_configure", index_scans)
    monkeypatch.setattr(connection, "EF_SEARCH", 40)
    monkeypatch.setattr(connection, "ITERATIVE_SCAN", "off")
    monkeypatch.setattr(pg_store, "EXACT_SCAN", -1)
    rng = np.random.default_rng(5)
    vectors = unit(*rng.normal(size=(3000, 24)))
    store = open_store(settings, "test/ef", create=True)
    store.upsert_nodes([Node(f"n{i:04d}", "doc", vectors=vectors[i]) for i in range(3000)])
    assert pg_store.hnsw_settings(20) == ("40", "off") and pg_store.hnsw_settings(600) == ("600", "off")
    assert pg_store.hnsw_settings(5000) == ("1000", "off")  # pgvector's maximum
    calls = []
    real = store._nearest
    monkeypatch.setattr(store, "_nearest", lambda *a, **k: calls.append(a[-1]) or real(*a, **k))
    query = unit(rng.normal(size=24))[0]
    hits = store.vector_search(query, kind="doc", limit=300)
    assert calls == [False] and len({h.id for h in hits}) == 300
    exact = {f"n{i:04d}" for i in np.argsort(-(vectors @ query), kind="stable")[:300]}
    assert len({h.id for h in hits} & exact) >= 0.9 * 300
    with store._connection() as conn:
        assert conn.execute("SHOW hnsw.ef_search").fetchone()[0] == "40"  # pgvector's default, untouched
        assert conn.execute("SHOW hnsw.iterative_scan").fetchone()[0] == "off"
    store.close()


# -- keywords ------------------------------------------------------------------------------------------


def test_bm25_equals_the_sqlite_backends(settings, tmp_path):
    texts = [("Replication lag", "replicas fall behind the primary under write load"),
             ("Offline sync", "conflicts after working offline are merged by last write wins"),
             ("Search misses accents", "notes with accented characters like café are not found"),
             ("Lag in the UI", "the interface lags when the list is long; replication is not involved"),
             ("Writes", "write write write amplification on replicas")]
    nodes = [Node(f"n{i}", "item", name, text) for i, (name, text) in enumerate(texts)] + [Node("t", "topic", "lag")]
    lite = open_store(Settings(home=tmp_path / "lite"), "test/bm25", create=True)
    pg = open_store(settings, "test/bm25", create=True)
    for store in (lite, pg):
        store.upsert_nodes(nodes)
        store.delete_nodes(["n4"])
        store.upsert_nodes([Node("n3", "item", "Lag in the UI", "the interface lags when lists are long")])
    for query, kind, weights in [("replication lag", None, (1.0, 1.0)), ("replication lag", "item", (3.0, 1.0)),
                                 ("cafe accents", None, (1.0, 1.0)), ("write", "item", (1.0, 2.0)),
                                 ("the of", None, (1.0, 1.0))]:
        a = lite.keyword_search(query, kind=kind, weights=weights)
        b = pg.keyword_search(query, kind=kind, weights=weights)
        assert [h.id for h in b] == [h.id for h in a] and a
        assert [h.score for h in b] == pytest.approx([h.score for h in a], rel=1e-9)
    lite.close()


def test_bm25_pruning_gives_the_full_scorings_top_and_prunes(settings, tmp_path, monkeypatch):
    """Common words scored only where rarer ones matched give the same top as scoring every node (the
    same SQL with every lexeme matched: same ids, same order, same scores) and SQLite's scores: queries
    mixing rare and common words, limits, column weights, filters."""
    from graphlore.store.postgres import pruning
    from graphlore.store.postgres import sql as pg_sql

    steps: list[tuple[int, int]] = []  # (lexemes matched, lexemes known) of each step found exact
    real_exact = pruning.exact

    def recording(idf, matched, theta, weights):
        ok = real_exact(idf, matched, theta, weights)
        steps.append((len(matched), len(idf))) if ok else None
        return ok

    monkeypatch.setattr(pruning, "exact", recording)
    rng = np.random.default_rng(3)
    common, rare = [f"common{i}" for i in range(4)], [f"rare{i}" for i in range(60)]
    nodes = []
    for i in range(600):
        words = [w for j, w in enumerate(common) if rng.random() < 0.45 - 0.1 * j] + list(rng.choice(rare, size=2))
        title = " ".join(rng.choice(words, size=int(rng.integers(1, 4))))
        text = " ".join(rng.choice(words, size=int(rng.integers(3, 30))))
        nodes.append(Node(f"n{i:03d}", "doc", title, text, {"g": i % 5}))
    lite = open_store(Settings(home=tmp_path / "lite"), "test/prune", create=True)
    pg = open_store(settings, "test/prune", create=True)
    for store in (lite, pg):
        store.upsert_nodes(nodes)
    queries = [f"{rare[i]} {common[i % 4]}" for i in range(20)] + [" ".join(common), f"{rare[5]} {' '.join(common)}"]
    calls = [(q, limit, weights, where) for q in queries
             for limit, weights, where in [(10, (3.0, 1.0), None), (100, (1.0, 1.0), None), (10, (1.0, 1.0), {"g": 2})]]

    def run(store):
        return [store.keyword_search(q, kind="doc", where=w, limit=n, weights=wt) for q, n, wt, w in calls]

    monkeypatch.setattr(pg_sql, "MATCH_BUDGET", 40)  # a small corpus: the rarest words alone fit the budget
    pruned = run(pg)
    monkeypatch.setattr(pg_sql, "MATCH_BUDGET", 10**9)  # every lexeme matched: plain BM25 over every node
    full = run(pg)
    for a, b, c in zip(pruned, full, run(lite), strict=True):
        assert [(h.id, h.score) for h in a] == [(h.id, h.score) for h in b] and a
        assert [h.score for h in a] == pytest.approx([h.score for h in c], rel=1e-9)
    assert any(matched < known for matched, known in steps)  # some searches left common words unmatched
    lite.close()


def test_writes_keep_the_keyword_statistics_exact(settings, url):
    """Document frequencies are kept per kind: a node that changes kind moves its lexemes to the new one."""
    store = open_store(settings, "test/stats", create=True)
    store.upsert_nodes([Node("a", "item", "alpha beta", "beta gamma"), Node("b", "topic", "beta"),
                        Node("c", "item", "beta")])
    store.upsert_nodes([Node("a", "topic", "alpha", "delta")])  # replaced: new text, new kind
    store.delete_nodes(["b"])
    with store._connection() as conn:
        terms = {(k, t): d for t, k, d in conn.execute(f"SELECT lexeme, kind, df FROM {store._s}.terms")}
        counts = conn.execute(
            f"SELECT kind, nodes, length FROM {store._s}.counts WHERE nodes <> 0 ORDER BY kind").fetchall()
    assert terms == {("item", "beta"): 1, ("topic", "alpha"): 1, ("topic", "delta"): 1}
    assert counts == [("item", 1, 1), ("topic", 1, 2)]



def test_a_bulk_load_builds_the_vector_index_once_at_the_end(settings):
    rng = np.random.default_rng(5)
    vectors = unit(*rng.normal(size=(400, 8)))
    store = open_store(settings, "test/bulk", create=True)

    def has_index() -> bool:
        with store._connection() as conn:
            return conn.execute("SELECT to_regclass(%s) IS NOT NULL", (f"{store._s}.passages_hnsw",)).fetchone()[0]

    with store.bulk_load():
        store.upsert_nodes([Node(f"n{i:03d}", "doc", vectors=vectors[i]) for i in range(200)])
        assert not has_index()
        assert store.vector_search(vectors[7], limit=1)[0].id == "n007"  # exact meanwhile
        store.upsert_nodes([Node(f"n{i:03d}", "doc", vectors=vectors[i]) for i in range(200, 400)])
    assert has_index() and store.vector_search(vectors[300], limit=1)[0].id == "n300"
    with store.bulk_load():
        assert not has_index()
    assert has_index()
    with pytest.raises(KeyboardInterrupt), store.bulk_load():  # a failed load builds nothing
        store.upsert_nodes([Node("n400", "doc", vectors=vectors[0])])
        raise KeyboardInterrupt
    assert not has_index() and store.vector_search(vectors[300], limit=1)[0].id == "n300"


def test_edge_vectors_of_the_previous_version_become_vectors_with_their_term_counts(settings, url, monkeypatch):
    """A namespace made at schema version 2 kept edge vectors as float32 bytes (``bytea``): the upgrade
    makes them pgvector ``vector`` values and counts every edge's terms, so ``rank_edges`` ranks old edges as
    it ranks new ones."""
    from graphlore.store import Edge
    from graphlore.store.postgres import migrations, namespaces

    with monkeypatch.context() as patch:  # this process as graphlore at schema version 2
        patch.setattr(migrations, "NAMESPACE", NAMESPACE[:2])
        patch.setattr(namespaces, "NAMESPACE", NAMESPACE[:2])
        old = open_store(settings, "test/old", create=True)
    vector = unit([0.6, 0.8])[0]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"INSERT INTO {old._s}.edges (id, src, dst, type, text, vector, date) VALUES "
                     "('e1', 'a', 'b', 'fact', 'Apple bought Beats', %s, '2024-01-01'), "
                     "('e2', 'a', 'c', 'fact', 'Apple opened a campus', NULL, '2024-02-01')", (vector.tobytes(),))
    connection.close_all()
    upgraded = open_store(settings, "test/old")  # a new graphlore opens it: the migration runs
    [e1, e2] = upgraded.get_edges(["e1", "e2"])
    assert np.allclose(e1.vector, vector) and e2.vector is None
    ranking = upgraded.rank_edges(["a"], text="beats", vector=unit([0.6, 0.8])[0], weights=(0.5, 0.5))
    assert [h.id for h in ranking.hits] == ["e1", "e2"] and ranking.hits[0].cosine == pytest.approx(1.0)
    assert ranking.hits[0].keyword > 0 and ranking.hits[1].cosine is None
    upgraded.upsert_edges([Edge("e3", "a", "d", "fact", text="Beats again", vector=unit([1, 0])[0])])
    assert upgraded.rank_edges(["a"], text="beats", weights=(1.0, 0.0)).total == 3


def test_edges_of_the_previous_version_get_their_validity_into_the_indexes(settings, url, monkeypatch):
    """A namespace made at schema version 3 read validity from each edge's props: the upgrade adds the
    validity columns (computed from the props) to the edge indexes, and the same days select the same edges."""
    from graphlore.store.postgres import migrations, namespaces

    with monkeypatch.context() as patch:  # this process as graphlore at schema version 3
        patch.setattr(migrations, "NAMESPACE", NAMESPACE[:3])
        patch.setattr(namespaces, "NAMESPACE", NAMESPACE[:3])
        old = open_store(settings, "test/old", create=True)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"INSERT INTO {old._s}.edges (id, src, dst, type, props, date) VALUES "
                     """('old', 'a', 'b', 'fact', '{"valid_from": "2010-01-01", "valid_to": "2020-01-01"}', '2010-01-01'), """
                     """('new', 'a', 'c', 'fact', '{"valid_from": "2020-01-01"}', '2020-01-01'), """
                     "('undated', 'a', 'd', 'fact', '{}', NULL)")
    connection.close_all()
    upgraded = open_store(settings, "test/old")  # a new graphlore opens it: the migration runs
    assert [e.id for e in upgraded.select_edges(["a"], valid_at="2015-06-30").edges] == ["old", "undated"]
    assert [e.id for e in upgraded.select_edges(["a"], valid_at="9999-12-31").edges] == ["new", "undated"]
    assert upgraded.rank_edges(["a"], text="x", valid_at="2020-01-01").total == 2
    with psycopg.connect(url, autocommit=True) as conn:
        [definition] = conn.execute("SELECT indexdef FROM pg_indexes WHERE schemaname = %s AND indexname = "
                                    "'edges_src_type_date'", (old._s,)).fetchone()
    assert definition.endswith("(src, type, date, dst, valid_from, valid_to)")


def test_the_named_lock_table_keeps_only_locks_in_use(settings):
    from graphlore.store.factory import namespace_lock
    from graphlore.store.postgres import namespaces

    for i in range(20):
        with namespace_lock(settings, f"test/n{i}", "index"):
            assert len(namespaces._local_locks) == 1
    assert namespaces._local_locks == {}


def test_the_runtime_closes_its_connection_pool(settings, url):
    runtime = Runtime(settings)
    runtime.open_store("test/one", create=True).upsert_nodes([Node("a", "item")])
    pool = connection.database(url).pool
    assert not pool.closed
    runtime.close()
    assert pool.closed
    assert runtime.open_store("test/one").count_nodes() == 1  # used again, it opens a new pool
    runtime.close()
