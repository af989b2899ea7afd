"""SQLite internals behind the protocol: schema versions and migrations, WAL, query plans, and how
driver errors are translated (busy, unavailable, damaged)."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from helpers.vectors import unit

from graphlore.config import Settings
from graphlore.errors import IndexCorrupted, StoreBusy, StoreUnavailable
from graphlore.store import Edge, Node, open_store
from graphlore.store.factory import sqlite_path
from graphlore.store.sqlite import SQLiteStore
from graphlore.store.sqlite import sql as builders
from graphlore.store.sqlite.migrations import MIGRATIONS


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "store.db", "test/one")
    yield s
    s.close()


def test_schema_is_versioned_with_user_version_in_wal_mode(store):
    conn = sqlite3.connect(store.path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 5
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_version_1_store_gets_its_term_counts_from_the_migration(tmp_path):
    """Stores written before BM25 moved off FTS5 keep working: migration 2 tokenises their nodes."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0] + "PRAGMA user_version = 1;")
    conn.execute("INSERT INTO nodes(id, kind, name, text, created_at, updated_at) "
                 "VALUES ('a', 'item', 'Replication lag', 'replicas fall behind', 0, 0)")
    conn.execute("INSERT INTO edges(id, src, dst, type, date) VALUES ('e', 'a', 'b', 'fact', '2024-01-01')")
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert [h.id for h in store.keyword_search("replica lagging")] == ["a"]
    tables = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
    assert "nodes_fts" not in tables and "node_terms" in tables
    indexes = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"edges_src_type_date", "edges_dst_type_date", "edges_type", "node_keys_node"} <= indexes
    assert not {"edges_src", "edges_dst"} & indexes  # replaced by the wider indexes
    assert store.select_edges(["a"]).total == 1


def test_a_version_4_store_gets_its_edges_validity_into_the_indexes(tmp_path):
    """Stores written before migration 5 keep their answers: the edges' validity (read from their props)
    joins the two edge indexes on open, once, and what held on a day is then read from the indexes alone."""
    from graphlore.store.sqlite.migrations import apply

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for step in MIGRATIONS[:4]:
        apply(conn, step)
    conn.execute("PRAGMA user_version = 4")
    conn.executemany("INSERT INTO edges(id, src, dst, type, props, date) VALUES (?, 'a', ?, 'fact', ?, ?)", [
        ("old", "b", '{"valid_from": "2010-01-01", "valid_to": "2020-01-01"}', "2010-01-01"),
        ("new", "c", '{"valid_from": "2020-01-01"}', "2020-01-01"),
        ("undated", "d", "{}", None)])
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 5
    assert [e.id for e in store.select_edges(["a"], valid_at="2015-06-30").edges] == ["old", "undated"]
    assert [e.id for e in store.select_edges(["a"], valid_at="9999-12-31").edges] == ["new", "undated"]
    assert store.rank_edges(["a"], vector=unit([1, 0])[0], valid_at="2020-01-01").total == 2
    store.close()
    SQLiteStore(path).close()  # opened again: nothing left to apply
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 5


def _version_4_store(path, edges: int) -> None:
    from graphlore.store.sqlite.migrations import apply

    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous = OFF")  # a test's file: no fsync per migration
    for step in MIGRATIONS[:4]:
        apply(conn, step)
    conn.execute("PRAGMA user_version = 4")
    conn.executemany("INSERT INTO edges(id, src, dst, type, props, date) VALUES (?, ?, ?, 'fact', ?, '2020-01-01')",
                     [(f"e{i}", f"n{i % 97}", f"n{i % 89}", f'{{"valid_from": "2020-01-{1 + i % 28:02d}"}}')
                      for i in range(edges)])
    conn.commit()
    conn.close()


def test_a_long_schema_upgrade_reports_its_progress_in_edges_and_a_quick_one_says_nothing(tmp_path, monkeypatch,
                                                                                          caplog):
    """Migration 5 builds two indexes over every edge (minutes on a large graph): once it has run ``every_s``, it
    says on graphlore's logger (stderr in the CLI and the servers) how many of the edges are indexed, counts that
    grow to the total, and when it is done; an upgrade quicker than that prints nothing."""
    from graphlore.store import migrate
    from graphlore.store.sqlite import migrations

    path = tmp_path / "old.db"
    _version_4_store(path, 1000)
    monkeypatch.setattr(migrations, "REPORT_EVERY_OPS", 5_000)
    monkeypatch.setattr(migrate.UpgradeNotes, "every_s", 0.0)
    with caplog.at_level("WARNING", logger="graphlore"):
        SQLiteStore(path).close()
    lines = [r.getMessage() for r in caplog.records if r.name == "graphlore"]
    counts = [int(line.split(": ")[1].split("/")[0]) for line in lines if "edges indexed" in line]
    assert all(line.startswith(f"upgrading the schema of {path} from version 4 to 5") for line in lines), lines
    assert len(counts) >= 3 and counts == sorted(counts) and counts[-1] == 1000, lines
    assert all("/1000 edges indexed" in line for line in lines[:-1]) and lines[-1].endswith("s") and "done in" in lines[-1]
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 5

    caplog.clear()
    quick = tmp_path / "quick.db"
    _version_4_store(quick, 1000)
    monkeypatch.setattr(migrate.UpgradeNotes, "every_s", 3600.0)
    with caplog.at_level("WARNING", logger="graphlore"):
        SQLiteStore(quick).close()
    assert not [r for r in caplog.records if r.name == "graphlore"]


def test_a_schema_upgrade_that_fails_says_so_and_changes_nothing(tmp_path, monkeypatch):
    """A disk that fills during migration 5 is a failed upgrade of a whole file, not a damaged one: the error says
    which upgrade failed and that nothing changed (one transaction), and the next open upgrades it."""
    from graphlore.errors import StoreUnavailable
    from graphlore.store.sqlite import migrations

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for step in MIGRATIONS[:4]:
        migrations.apply(conn, step)
    conn.execute("PRAGMA user_version = 4")
    conn.commit()
    conn.close()
    real = migrations.apply

    def full(conn, step, *progress):
        if step is MIGRATIONS[4]:
            raise sqlite3.OperationalError("database or disk is full")
        real(conn, step, *progress)

    monkeypatch.setattr(migrations, "apply", full)
    with pytest.raises(StoreUnavailable, match=r"upgrading its schema from version 4 to 5 failed \(database or disk "
                                               r"is full\); nothing was changed"):
        SQLiteStore(path)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 4
    monkeypatch.setattr(migrations, "apply", real)
    SQLiteStore(path).close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 5


def test_ctrl_c_during_a_long_upgrade_stops_it_as_an_interrupt_and_changes_nothing(tmp_path, monkeypatch):
    """A Ctrl-C while migration 5 builds its indexes arrives in the progress handler, whose exceptions the sqlite3
    module swallows (the statement stops as "interrupted" and SQLite rolls the whole transaction back): it is still
    a KeyboardInterrupt, not a store error naming SQLite's rollback, the file is as it was, and the next open
    upgrades it."""
    import signal

    from graphlore.store import migrate
    from graphlore.store.sqlite import migrations

    path = tmp_path / "old.db"
    _version_4_store(path, 500)
    monkeypatch.setattr(migrations, "REPORT_EVERY_OPS", 1_000)
    pressed = []

    def press(self, done, total, unit=""):
        if not pressed:
            pressed.append(done)
            signal.raise_signal(signal.SIGINT)   # Python's handler: KeyboardInterrupt at the next bytecode

    monkeypatch.setattr(migrate.UpgradeNotes, "__call__", press)
    with pytest.raises(KeyboardInterrupt):
        SQLiteStore(path)
    assert pressed and sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 4
    monkeypatch.undo()
    SQLiteStore(path).close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 5


def test_a_store_from_a_newer_graphlore_is_refused(tmp_path):
    path = tmp_path / "new.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    with pytest.raises(IndexCorrupted, match="newer than this graphlore"):
        SQLiteStore(path)


def test_deleting_a_node_removes_its_term_row(store):
    store.upsert_nodes([Node("a", "item", "alpha", "zebra", vectors=unit([1, 0])), Node("b", "item", "beta", "yak")])
    store.delete_nodes(["a"])
    assert sqlite3.connect(store.path).execute("SELECT count(*) FROM node_terms").fetchone()[0] == 1


def test_a_file_that_is_not_a_database_is_reported_as_corrupted_with_the_repair(tmp_path):
    settings = Settings(home=tmp_path)
    path = sqlite_path(settings, "test/bad")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(IndexCorrupted, match="not a readable graphlore store.*; rebuild it") as caught:
        open_store(settings, "test/bad", repair="rebuild it")
    assert str(path) in caught.value.message


def test_damage_found_after_opening_names_the_repair(tmp_path):
    path = tmp_path / "store.db"
    store = SQLiteStore(path, "test/one", repair="run index --force")
    store.upsert_nodes([Node(f"n{i}", "item", text="x" * 2000) for i in range(200)])
    store.close()
    data = bytearray(path.read_bytes())
    page = 4096
    data[page * 3: page * 6] = b"\xff" * (page * 3)  # damage pages inside the nodes table
    path.write_bytes(bytes(data))
    store = SQLiteStore(path, "test/one", repair="run index --force")
    with pytest.raises(IndexCorrupted, match="damaged.*; run index --force"):
        list(store.iter_nodes())


def test_a_write_lock_held_past_the_busy_timeout_is_store_busy(tmp_path):
    path = tmp_path / "store.db"
    SQLiteStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    store = SQLiteStore(path, busy_timeout_ms=100)
    try:
        with pytest.raises(StoreBusy, match="another process held its write lock"):
            store.upsert_nodes([Node("a", "item")])
        with pytest.raises(StoreBusy):
            with store.atomic():
                pass
    finally:
        holder.execute("ROLLBACK")
    store.upsert_nodes([Node("a", "item")])  # once released, writes go through
    assert store.count_nodes() == 1


def test_a_folder_that_cannot_be_made_is_store_unavailable(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(StoreUnavailable, match="cannot create"):
        open_store(Settings(home=tmp_path / "file"), "test/one", create=True)


def test_structural_queries_are_answered_from_the_indexes(store):
    store.upsert_edges([Edge("f1", "apple", "beats", "fact", date="2014-05-28")])
    for mode in ("around", "between"):
        query, params = builders.select_edges_sql(["apple", "microsoft"], mode, "fact", "2020-01-01", "2024-01-01")
        plan = " ".join(r[3] for r in store._conn.execute(f"EXPLAIN QUERY PLAN {query}", params))
        if mode == "around":
            assert "COVERING INDEX edges_src_type_date" in plan and "COVERING INDEX edges_dst_type_date" in plan, plan
        else:  # either end's index holds the other end, so either answers alone
            assert "COVERING INDEX edges_" in plan and "SCAN edges" not in plan, plan
        query, params = builders.select_edges_sql(["apple"], mode, "fact", None, None, valid_at="2020-01-01")
        program = store._conn.execute(f"EXPLAIN {query}", params).fetchall()  # validity too: the indexes hold it
        table_cursors = {r[2] for r in program if r[1] == "OpenRead" and r[3] == _table_root(store, "edges")}
        assert not [r for r in program if r[1] == "Column" and r[2] in table_cursors], "validity read from the rows"
    plan = " ".join(r[3] for r in store._conn.execute("EXPLAIN QUERY PLAN SELECT count(*) FROM edges WHERE type = 'fact'"))
    assert "COVERING INDEX edges_type" in plan


def _table_root(store, name: str) -> int:
    return store._conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]


def test_the_ranking_snapshot_is_dropped_by_every_write_of_this_connection(store):
    """``PRAGMA data_version`` only moves for other connections' commits, so our own writes (committed,
    or rolled back after a search inside the transaction) must drop the snapshot themselves."""
    store.upsert_nodes([Node("a", "item", vectors=unit([1, 0]))])
    assert [h.id for h in store.vector_search(np.array([1.0, 0]), limit=5)] == ["a"]
    with pytest.raises(RuntimeError):
        with store.atomic():
            store.upsert_nodes([Node("b", "item", vectors=unit([1, 0.1]))])
            assert [h.id for h in store.vector_search(np.array([1.0, 0]), limit=5)] == ["a", "b"]
            raise RuntimeError("roll back")
    assert [h.id for h in store.vector_search(np.array([1.0, 0]), limit=5)] == ["a"]


# -- the change log: caches kept current incrementally ------------------------------------------------------


def _ranked(store, query, kind=None, where=None):
    return [(h.id, round(h.score, 5)) for h in store.vector_search(query, kind=kind, where=where, limit=8)]


@pytest.mark.parametrize("compact_min", [0, 1000])
def test_vectors_kept_across_writes_rank_as_vectors_read_afresh(tmp_path, monkeypatch, compact_min):
    """Random writes (new vectors, props only, kind changes, deletes) through this store and through another
    connection on the same file (as another process would write), searched after each step, against a
    store opened afresh each time. With compact_min 0 the snapshot is rebuilt on nearly every write."""
    from graphlore.store.sqlite import engine

    monkeypatch.setattr(engine, "COMPACT_MIN", compact_min)
    rng = np.random.default_rng(5)
    path = tmp_path / "store.db"
    mine, other = SQLiteStore(path, "test/one"), SQLiteStore(path, "test/one")
    try:
        for step in range(40):
            writer = other if step % 3 == 2 else mine
            ids = [f"n{i}" for i in rng.choice(25, size=int(rng.integers(1, 5)), replace=False)]
            if step % 9 == 8:
                writer.delete_nodes(ids)
            else:
                writer.upsert_nodes([Node(i, str(rng.choice(["a", "b"])), props={"p": int(rng.integers(3))},
                                          vectors=unit(*rng.normal(size=(int(rng.integers(1, 3)), 6)).tolist())
                                          if rng.random() < 0.7 else None) for i in ids])
            fresh = SQLiteStore(path, "test/one")
            try:
                query = unit(rng.normal(size=6).tolist())[0]
                for kind, where in ((None, None), ("a", None), (None, {"p": 1}), ("b", {"p": [0, 2]})):
                    assert _ranked(mine, query, kind, where) == _ranked(fresh, query, kind, where), (step, kind)
                    assert _ranked(other, query, kind, where) == _ranked(fresh, query, kind, where), (step, kind)
                ids = [f"n{i}" for i in range(25)]
                assert mine.vector_scores(query, ids) == pytest.approx(fresh.vector_scores(query, ids))
            finally:
                fresh.close()
    finally:
        mine.close()
        other.close()


def test_a_props_only_write_keeps_the_vectors_and_a_filter_sees_it(store):
    store.upsert_nodes([Node(f"n{i}", "skill", props={"used": 0}, vectors=unit([1, i])) for i in range(5)])
    query = np.array([1.0, 0.0], dtype=np.float32)
    assert _ranked(store, query, where={"used": 1}) == []
    base = store._snapshot.base
    store.upsert_nodes([Node("n3", "skill", props={"used": 1})])  # a use counter: no vectors, same text
    assert [h for h, _ in _ranked(store, query, where={"used": 1})] == ["n3"]
    assert store._snapshot.base is base and len(store._snapshot.delta) == 0  # nothing read again
    assert sqlite3.connect(store.path).execute("SELECT count(*) FROM changes WHERE node_rowid IS NOT NULL "
                                               "AND what & 3 != 0").fetchone()[0] == 5  # the first write only


def test_node_vectors_come_from_the_snapshot_once_loaded_and_are_those_of_the_file(tmp_path):
    """After a search loaded the snapshot, ``node_vectors`` answers from it: rows rewritten, deleted and written
    by another connection are those of the file; inside a write transaction the file's (uncommitted) rows."""
    path = tmp_path / "store.db"
    store, other = SQLiteStore(path, "test/one"), SQLiteStore(path, "test/one")
    try:
        store.upsert_nodes([Node("a", "item", vectors=unit([1, 0], [0.6, 0.8])), Node("b", "item", vectors=unit([0, 1])),
                            Node("c", "item")])
        store.vector_search(np.array([1.0, 0.0]), limit=1)  # loads the snapshot
        assert store._snapshot is not None

        def from_file() -> dict[str, list]:
            rows: dict[str, list] = {}
            for node_id, blob in sqlite3.connect(path).execute(
                    "SELECT n.id, v.vector FROM node_vectors v JOIN nodes n ON n.rowid = v.node_rowid "
                    "ORDER BY v.node_rowid, v.seq"):
                rows.setdefault(node_id, []).append(np.frombuffer(blob, dtype=np.float32).tolist())
            return rows

        def served(ids) -> dict[str, list]:
            found = store.node_vectors(ids)
            assert all(not v.flags.writeable for v in found.values())
            return {k: v.tolist() for k, v in found.items()}

        statements: list[str] = []
        store._conn.set_trace_callback(statements.append)
        assert served(["a", "b", "c", "zz"]) == from_file()
        assert not any("node_vectors" in s for s in statements)  # none read from the file
        other.upsert_nodes([Node("b", "item", vectors=unit([1, 1], [1, -1], [0, 1]))])  # another connection
        store.delete_nodes(["a"])
        assert served(["a", "b", "c"]) == from_file() and len(from_file()["b"]) == 3
        with store.atomic():
            store.upsert_nodes([Node("c", "item", vectors=unit([0.8, 0.6]))])
            assert served(["c"]) == {"c": unit([0.8, 0.6]).tolist()}  # not yet in the snapshot
        assert served(["b", "c"]) == from_file()
    finally:
        store.close()
        other.close()


def test_a_write_from_another_process_is_seen_by_the_next_search(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "store.db"
    store = SQLiteStore(path, "test/one")
    store.upsert_nodes([Node("a", "item", vectors=unit([1, 0])), Node("b", "item", vectors=unit([0, 1]))])
    assert [h.id for h in store.vector_search(np.array([1.0, 0.0]), limit=1)] == ["a"]
    script = ("import sys, numpy as np; from graphlore.store import Node; from graphlore.store.sqlite import SQLiteStore;"
              "s = SQLiteStore(sys.argv[1], 'test/one'); s.upsert_nodes([Node('b', 'item', "
              "vectors=np.array([[1.0, 0.01]], dtype=np.float32) / np.linalg.norm([1.0, 0.01]))]); s.close()")
    subprocess.run([sys.executable, "-c", script, str(path)], check=True)
    assert [h.id for h in store.vector_search(np.array([0.0, 1.0]), limit=2)] == ["b", "a"]
    assert store.vector_scores(np.array([1.0, 0.0]), ["b"])["b"] == pytest.approx(0.99995, abs=1e-4)
    store.close()


def test_a_commit_that_logs_nothing_rebuilds_the_caches(store):
    """A writer that does not keep the log (an older graphlore, or a hand edit) still never leaves a stale
    ranking: the data version moved but the log did not, so everything is read again."""
    store.upsert_nodes([Node("a", "item", "alpha", vectors=unit([1, 0])), Node("b", "item", "beta", vectors=unit([0, 1]))])
    assert [h.id for h in store.vector_search(np.array([1.0, 0.0]), limit=1)] == ["a"]
    assert [h.id for h in store.keyword_search("alpha")] == ["a"]
    raw = sqlite3.connect(store.path)
    raw.execute("UPDATE node_vectors SET vector = ? WHERE node_rowid = (SELECT rowid FROM nodes WHERE id = 'b')",
                (unit([1, 0.01])[0].tobytes(),))
    raw.commit()
    raw.close()
    assert [h.id for h in store.vector_search(np.array([0.0, 1.0]), limit=1)] == ["b"]


def test_the_log_is_pruned_and_a_reader_behind_it_rebuilds(tmp_path, monkeypatch):
    from graphlore.store.sqlite import store as sqlite_store

    monkeypatch.setattr(sqlite_store, "LOG_KEEP", 5)
    path = tmp_path / "store.db"
    reader, writer = SQLiteStore(path, "test/one"), SQLiteStore(path, "test/one")
    writer.upsert_nodes([Node("a", "item", vectors=unit([1, 0]))])
    assert [h.id for h in reader.vector_search(np.array([1.0, 0.0]), limit=1)] == ["a"]
    for i in range(10):
        writer.upsert_nodes([Node(f"n{i}", "item", vectors=unit([0, 1]))])
    assert sqlite3.connect(path).execute("SELECT count(*) FROM changes").fetchone()[0] <= 7
    assert len(reader.vector_search(np.array([0.0, 1.0]), limit=20)) == 11
    reader.close()
    writer.close()
