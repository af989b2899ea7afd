"""A SQLite store file is made whole or not at all, so an empty or schema-less file is always damage.

Reads never initialise anything, and writers do not silently recreate a damaged file either: both
get ``index_corrupted`` with the repair the opener gave.
"""

from __future__ import annotations

import sqlite3
import threading

import pytest

from graphlore.config import Settings
from graphlore.errors import IndexCorrupted, NotFound
from graphlore.store import Node, open_store
from graphlore.store.factory import sqlite_path


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(home=tmp_path / "home")


@pytest.mark.parametrize("create", [False, True])
def test_an_empty_file_is_damage_for_readers_and_writers(settings, create, short_empty_grace):
    path = sqlite_path(settings, "test/empty")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    with pytest.raises(IndexCorrupted, match="is empty.*; rebuild it"):
        open_store(settings, "test/empty", create=create, repair="rebuild it")
    assert path.stat().st_size == 0 and sorted(p.name for p in path.parent.iterdir()) == ["store.db"]


@pytest.mark.parametrize("create", [False, True])
def test_a_file_without_a_schema_is_damage_and_is_left_as_it_is(settings, create):
    path = sqlite_path(settings, "test/bare")
    path.parent.mkdir(parents=True)
    sqlite3.connect(path).execute("PRAGMA journal_mode = WAL").fetchall()  # a header page, no tables
    before = path.read_bytes()
    with pytest.raises(IndexCorrupted, match="not a graphlore store.*; rebuild it"):
        open_store(settings, "test/bare", create=create, repair="rebuild it")
    assert path.read_bytes() == before


def test_creation_leaves_only_the_store_file(settings):
    store = open_store(settings, "test/new", create=True)
    store.upsert_nodes([Node("a", "item", text="x")])
    store.close()
    assert sorted(p.name for p in sqlite_path(settings, "test/new").parent.iterdir()) in (
        ["store.db"], ["store.db", "store.db-shm", "store.db-wal"])
    assert open_store(settings, "test/new").count_nodes() == 1


def test_racing_creators_and_readers_never_see_a_half_made_store(settings):
    """Creators race to make one namespace while readers poll it: a reader sees no store or a whole one."""
    seen: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(12)

    def creator() -> None:
        start.wait()
        try:
            open_store(settings, "test/race", create=True).close()
            seen.append("created")
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    def reader() -> None:
        start.wait()
        for _ in range(200):
            try:
                store = open_store(settings, "test/race")
            except NotFound:
                continue
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)
                return
            seen.append(str(store.get_meta("namespace")))
            store.close()

    threads = [threading.Thread(target=creator) for _ in range(6)] + [threading.Thread(target=reader) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert seen.count("created") == 6 and set(seen) <= {"created", "test/race"}
    assert [p.name for p in sqlite_path(settings, "test/race").parent.iterdir() if p.name.endswith(".new")] == []


def test_a_damaged_store_is_replaced_whole_by_its_rebuild(settings):
    """A rebuild made beside a damaged file (garbage where the store was) takes its place: the damage is
    what the rebuild repairs, so it is never copied into."""
    from graphlore.store import replace_store

    path = sqlite_path(settings, "test/broken")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database at all" * 300)
    copy = open_store(settings, "test/broken/rebuild", create=True)
    copy.upsert_nodes([Node("new", "item", text="fresh")])
    copy.close()
    replace_store(settings, "test/broken", "test/broken/rebuild")
    assert [n.id for n in open_store(settings, "test/broken").iter_nodes()] == ["new"]
    assert not sqlite_path(settings, "test/broken/rebuild").exists()
