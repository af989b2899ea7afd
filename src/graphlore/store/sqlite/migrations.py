"""The SQLite schema as numbered, append-only migrations (``PRAGMA user_version`` is the applied count).

1. nodes (text, JSON props, text hash), passage vectors, edges; FTS5 for BM25.
2. BM25 from stored term counts (numpy) instead of FTS5, whose per-row ``bm25()`` is slow.
3. Exact lookup keys per node; edge indexes that answer "edges around or between these nodes, of this
   type, in this date range" from the index alone, and counts per type without reading rows.
4. The change log (``changes``: which nodes each transaction changed, so every process keeps its caches
   current incrementally) and the term counts of each edge's text (``edge_terms``: BM25 for
   ``rank_edges``), filled for the edges already there.
5. An edge's validity (``valid_from``, ``valid_to``: virtual columns read from its props) in the two edge
   indexes, so "what held on this day" is answered from the index alone, without reading the edges' rows
   (~2 kB each with the vector: a hub's thousands of facts were most of a ``--current`` search).

A step that reads every row of a table (an index build over a large graph's edges takes minutes) is a
:class:`Scan`: :func:`apply` then reports its progress in rows of that table. SQLite says nothing while one
statement runs, so the rows done are estimated from the virtual machine's instructions (its progress
handler), at the instructions per row the same statements cost on a copy of a sample of the table in memory.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from graphlore.store.sqlite.bm25 import TermVector


def _keyword_terms(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE node_terms (
               node_rowid INTEGER PRIMARY KEY REFERENCES nodes(rowid) ON DELETE CASCADE,
               keys BLOB NOT NULL, name_tf BLOB NOT NULL, text_tf BLOB NOT NULL, length INTEGER NOT NULL
           )"""
    )
    for rowid, name, text in conn.execute("SELECT rowid, name, text FROM nodes").fetchall():
        conn.execute("INSERT INTO node_terms VALUES (?, ?, ?, ?, ?)", (rowid, *TermVector.of(name, text).to_row()))
    for trigger in ("nodes_ai", "nodes_ad", "nodes_au"):
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("DROP TABLE nodes_fts")


def _change_log_and_edge_terms(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, node_rowid INTEGER, "
                 "what INTEGER NOT NULL)")
    conn.execute("""CREATE TABLE edge_terms (
                        edge_rowid INTEGER PRIMARY KEY REFERENCES edges(rowid) ON DELETE CASCADE,
                        keys BLOB NOT NULL, text_tf BLOB NOT NULL, length INTEGER NOT NULL
                    )""")
    last = 0
    while True:
        rows = conn.execute("SELECT rowid, text FROM edges WHERE rowid > ? ORDER BY rowid LIMIT 5000",
                            (last,)).fetchall()
        if not rows:
            return
        conn.executemany("INSERT INTO edge_terms VALUES (?, ?, ?, ?)", [
            (rowid, terms.keys.tobytes(), terms.text_tf.tobytes(), terms.length)
            for rowid, terms in ((rowid, TermVector.of("", text)) for rowid, text in rows)])
        last = rows[-1][0]


@dataclass(frozen=True)
class Scan:
    """A migration step whose statements read every row of ``table``; its progress is counted in ``unit``."""

    table: str
    unit: str
    script: str


#: ``progress(done, total, unit)``, as :class:`graphlore.tools.Progress`.
Report = Callable[[int, int, str], None]
#: Rows of the table a :class:`Scan` is timed on, in memory, to count its instructions per row.
SAMPLE_ROWS = 500
#: Instructions between two progress reports of a :class:`Scan` (a few milliseconds of work).
REPORT_EVERY_OPS = 20_000

MIGRATIONS: list[str | Scan | Callable[[sqlite3.Connection], None]] = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE nodes (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        name TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL DEFAULT '',
        props TEXT NOT NULL DEFAULT '{}',
        text_hash TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX nodes_kind ON nodes(kind);
    CREATE TABLE node_vectors (
        node_rowid INTEGER NOT NULL REFERENCES nodes(rowid) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (node_rowid, seq)
    ) WITHOUT ROWID;
    CREATE VIRTUAL TABLE nodes_fts USING fts5(
        name, text, content='nodes', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER nodes_ai AFTER INSERT ON nodes BEGIN
        INSERT INTO nodes_fts(rowid, name, text) VALUES (new.rowid, new.name, new.text);
    END;
    CREATE TRIGGER nodes_ad AFTER DELETE ON nodes BEGIN
        INSERT INTO nodes_fts(nodes_fts, rowid, name, text) VALUES ('delete', old.rowid, old.name, old.text);
    END;
    CREATE TRIGGER nodes_au AFTER UPDATE OF name, text ON nodes BEGIN
        INSERT INTO nodes_fts(nodes_fts, rowid, name, text) VALUES ('delete', old.rowid, old.name, old.text);
        INSERT INTO nodes_fts(rowid, name, text) VALUES (new.rowid, new.name, new.text);
    END;
    CREATE TABLE edges (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        src TEXT NOT NULL,
        dst TEXT NOT NULL,
        type TEXT NOT NULL,
        props TEXT NOT NULL DEFAULT '{}',
        text TEXT NOT NULL DEFAULT '',
        vector BLOB,
        date TEXT
    );
    CREATE INDEX edges_src ON edges(src);
    CREATE INDEX edges_dst ON edges(dst);
    CREATE INDEX edges_date ON edges(date);
    """,
    _keyword_terms,
    """
    CREATE TABLE node_keys (
        key TEXT NOT NULL,
        node_rowid INTEGER NOT NULL REFERENCES nodes(rowid) ON DELETE CASCADE,
        PRIMARY KEY (key, node_rowid)
    ) WITHOUT ROWID;
    CREATE INDEX node_keys_node ON node_keys(node_rowid);
    CREATE INDEX edges_src_type_date ON edges(src, type, date, dst);
    CREATE INDEX edges_dst_type_date ON edges(dst, type, date, src);
    CREATE INDEX edges_type ON edges(type);
    DROP INDEX edges_src;
    DROP INDEX edges_dst;
    """,
    _change_log_and_edge_terms,
    # VIRTUAL: adding the columns rewrites no row; each index stores their values (its build reads every
    # edge once). The same expressions as the props the store writes, so no answer changes.
    Scan("edges", "edges indexed", """
    ALTER TABLE edges ADD COLUMN valid_from TEXT GENERATED ALWAYS AS (json_extract(props, '$.valid_from')) VIRTUAL;
    ALTER TABLE edges ADD COLUMN valid_to TEXT GENERATED ALWAYS AS (json_extract(props, '$.valid_to')) VIRTUAL;
    DROP INDEX edges_src_type_date;
    DROP INDEX edges_dst_type_date;
    CREATE INDEX edges_src_type_date ON edges(src, type, date, dst, valid_from, valid_to);
    CREATE INDEX edges_dst_type_date ON edges(dst, type, date, src, valid_from, valid_to);
    """),
]


def statements(script: str) -> Iterator[str]:
    """Split a migration into statements; trigger bodies hold semicolons, so ask SQLite where each ends."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            yield buffer.strip()
            buffer = ""
    if buffer.strip():
        raise ValueError(f"incomplete statement in migration: {buffer.strip()[:80]}")


def apply(conn: sqlite3.Connection, step: str | Scan | Callable[[sqlite3.Connection], None],
          progress: Report | None = None) -> None:
    """Run one step; a :class:`Scan` reports ``progress`` (rows done of the table's rows) while it runs."""
    if callable(step):
        step(conn)
        return
    if not isinstance(step, Scan):
        _run(conn, step)
        return
    total = conn.execute(f"SELECT count(*) FROM {step.table}").fetchone()[0] if progress is not None else 0
    per_row = _instructions_per_row(conn, step) if total else 0.0
    if not per_row:
        _run(conn, step.script)
        return
    done, failed = [0], []

    def tick() -> int:
        try:
            done[0] += REPORT_EVERY_OPS
            progress(min(total - 1, int(done[0] / per_row)), total, step.unit)
        except BaseException as exc:   # the sqlite3 module would swallow it: raised again below
            failed.append(exc)
            return 1
        return 0

    conn.set_progress_handler(tick, REPORT_EVERY_OPS)
    try:
        _run(conn, step.script)
    except sqlite3.OperationalError as exc:
        if str(exc) != "interrupted":
            raise
        # the handler stopped the statement: with what it raised, else a signal's exception (Ctrl-C) that
        # arrived as the handler was entered, which the sqlite3 module cleared
        raise (failed[0] if failed else KeyboardInterrupt()) from None
    finally:
        conn.set_progress_handler(None, 0)
    progress(total, total, step.unit)


def _run(conn: sqlite3.Connection, script: str) -> None:
    for statement in statements(script):
        conn.execute(statement)


def _instructions_per_row(conn: sqlite3.Connection, step: Scan) -> float:
    """The instructions ``step`` costs per row, counted on a copy of the table's first :data:`SAMPLE_ROWS` rows
    (and its indexes) in memory: an index build costs the same instructions for every row."""
    copy = sqlite3.connect(":memory:")
    try:
        for (sql,) in conn.execute("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL "
                                   "ORDER BY type = 'table' DESC", (step.table,)):
            copy.execute(sql)
        columns = [r[1] for r in conn.execute(f"PRAGMA table_xinfo({step.table})") if r[6] == 0]
        names = ", ".join(columns)
        rows = conn.execute(f"SELECT {names} FROM {step.table} LIMIT {SAMPLE_ROWS}").fetchall()
        if not rows:
            return 0.0
        copy.executemany(f"INSERT INTO {step.table} ({names}) VALUES ({', '.join('?' * len(columns))})", rows)
        counted = [0]

        def count() -> int:
            counted[0] += 1
            return 0

        copy.set_progress_handler(count, 1)
        _run(copy, step.script)
        return counted[0] / len(rows)
    finally:
        copy.close()
