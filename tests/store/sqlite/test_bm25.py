"""BM25 in numpy must equal FTS5's bm25() (the formula it replaces) on the same text."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from graphsift.store.sqlite.bm25 import KeywordIndex, TermVector, query_keys, terms

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
