"""BM25 in numpy must equal FTS5's bm25() (the formula it replaces) on the same text."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from graphlore.store import Node
from graphlore.store.sqlite import SQLiteStore, engine
from graphlore.store.sqlite.bm25 import KeywordIndex, TermVector, overlay_scores, query_keys, terms

DOCS = [
    ("Replication lag on the standby", "The standby replica falls behind the primary under heavy writes."),
    ("NameNode crashes on startup", "A NullPointerException is thrown while loading the edit log."),
    ("Slow block reports", "Block reports from large DataNodes take minutes; replication waits for them."),
    ("Café search misses accents", "Searching for cafe does not find café; accents are not folded."),
    ("Edit log corruption", "After a crash the edit log cannot be replayed and the NameNode stops."),
    ("Empty", ""),
    ("Running jobs hang", "Jobs that are running hang when the scheduler restarts; running tasks are lost."),
]
QUERIES = ["replication lag", "namenode edit log crash", "cafe accents", "running jobs", "block replication reports",
           "nothing matches zzz"]


def fts5_scores(query_terms: list[str], weights: tuple[float, float]) -> dict[int, float]:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(name, text, tokenize='porter unicode61 remove_diacritics 2')")
    conn.executemany("INSERT INTO t(rowid, name, text) VALUES (?, ?, ?)", [(i, n, t) for i, (n, t) in enumerate(DOCS)])
    match = " OR ".join(f'"{t}"' for t in query_terms)
    rows = conn.execute("SELECT rowid, -bm25(t, ?, ?) FROM t WHERE t MATCH ?", (*weights, match)).fetchall()
    return dict(rows)


@pytest.mark.parametrize("weights", [(1.0, 1.0), (3.0, 1.0), (0.5, 2.0)])
@pytest.mark.parametrize("query", QUERIES)
def test_scores_equal_fts5_bm25(query, weights):
    index = KeywordIndex(len(DOCS), range(len(DOCS)), [TermVector.of(n, t) for n, t in DOCS])
    scores, matched = index.scores(query, weights)
    expected = fts5_scores(query.split(), weights)
    assert set(np.flatnonzero(matched).tolist()) == set(expected)
    for rowid, value in expected.items():
        assert scores[rowid] == pytest.approx(value, rel=1e-9)


def test_tokens_are_folded_stemmed_and_split_like_unicode61():
    assert terms("Café RUNNING snake_case x2") == ["cafe", "run", "snake", "case", "x2"]


def test_query_drops_stop_words_unless_nothing_else_is_left():
    assert query_keys("the replication of blocks").size == 2
    assert query_keys("the the of").size == 2
    assert query_keys("!!! ???").size == 0


def test_an_index_with_no_text_scores_nothing():
    index = KeywordIndex(3, [], [])
    scores, matched = index.scores("anything", (1.0, 1.0))
    assert not matched.any() and not scores.any()


def test_an_overlay_scores_exactly_as_one_index_over_the_live_rows():
    """Rows 1 and 4 rewritten (dead in the first index, current in the second): the scores equal a
    fresh index over the current rows."""
    changed = {1: ("NameNode restarts", "The edit log replays after a crash."), 4: ("Edit log fine", "")}
    current = [changed.get(i, doc) for i, doc in enumerate(DOCS)]
    fresh = KeywordIndex(len(current), range(len(current)), [TermVector.of(n, t) for n, t in current])
    base = KeywordIndex(len(DOCS), range(len(DOCS)), [TermVector.of(n, t) for n, t in DOCS])
    delta = KeywordIndex(2, range(2), [TermVector.of(*changed[1]), TermVector.of(*changed[4])])
    alive = np.array([i not in changed for i in range(len(DOCS))])
    for query in QUERIES:
        expected, matched = fresh.scores(query, (3.0, 1.0))
        (b, b_hit), (d, d_hit) = overlay_scores([(base, alive), (delta, None)], query, (3.0, 1.0))
        got = b.copy()
        got[[1, 4]] = d
        hit = b_hit.copy()
        hit[[1, 4]] = d_hit
        assert np.array_equal(hit, matched)
        assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("compact_min", [0, 1000])
def test_postings_kept_across_writes_rank_as_postings_built_afresh(tmp_path, monkeypatch, compact_min):
    """Random inserts, rewrites, kind changes and deletes through one store, searched after each step,
    against a second store opened afresh on the file each time (postings read from every row). With
    compact_min 0 the postings are rebuilt on nearly every write, with 1000 never."""
    monkeypatch.setattr(engine, "COMPACT_MIN", compact_min)
    rng = np.random.default_rng(3)
    words = "solar battery cloud retail freight mobile medical credit steel grain maker of the".split()
    path = tmp_path / "store.db"
    store = SQLiteStore(path, "test/one")
    try:
        for step in range(40):
            ids = [f"n{i}" for i in rng.choice(30, size=int(rng.integers(1, 6)), replace=False)]
            if step % 7 == 6:
                store.delete_nodes(ids)
            else:
                store.upsert_nodes([Node(i, str(rng.choice(["entity", "topic", "chunk"])),
                                         " ".join(rng.choice(words, size=2)), " ".join(rng.choice(words, size=6)))
                                    for i in ids])
            fresh = SQLiteStore(path, "test/one")
            try:
                for kind in ("entity", "chunk", None):
                    for query in ("solar maker", "credit steel grain", "the"):
                        kept = store.keyword_search(query, kind=kind, limit=10, weights=(3.0, 1.0))
                        built = fresh.keyword_search(query, kind=kind, limit=10, weights=(3.0, 1.0))
                        assert [h.id for h in kept] == [h.id for h in built], (step, kind, query)
                        assert [h.score for h in kept] == pytest.approx([h.score for h in built], rel=1e-12)
            finally:
                fresh.close()
    finally:
        store.close()
