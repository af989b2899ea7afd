"""The PostgreSQL schema as numbered, append-only migrations, applied on start.

Two levels, each recorded by version number and applied inside one transaction
under an advisory lock (processes that start together wait for each other, and
a step that fails leaves nothing half-made; applying twice changes nothing):

- **the database** (:data:`DATABASE`): the ``vector`` extension and the
  ``graphlore`` schema with the namespace registry ``graphlore.namespaces``
  (name, the id of its schema, its schema version). The applied count is the
  one row of ``graphlore.version``.
- **each namespace** (:data:`NAMESPACE`): its own schema ``gs_<id>`` with
  nodes, passage vectors, lookup keys, edges, metadata and the keyword
  statistics (document frequencies per kind and lexeme in ``terms``; node
  count, passages and total length per kind in ``counts``). A schema per namespace keeps each namespace's HNSW index and
  statistics its own (a filter on a shared table would walk other namespaces'
  vectors), and makes dropping one a single ``DROP SCHEMA``. Its version is
  in the registry row.

The passage ``vector`` column is created without a dimension; the first vectors
written fix it (``vector(dim)``) and build the HNSW cosine index
(:func:`fix_dimension`), since a namespace learns its dimension from its embedder.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from psycopg.types.json import Jsonb

from graphlore.store.migrate import pending
from graphlore.store.postgres.sql import term_counts

#: Advisory lock key for database-wide migrations (namespace locks are hashes of their names).
DATABASE_LOCK = 0x67726170687366  # "graphsf"

DATABASE: list[str] = [
    """
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE SCHEMA IF NOT EXISTS graphlore;
    CREATE TABLE IF NOT EXISTS graphlore.namespaces (
        id bigserial PRIMARY KEY,
        name text COLLATE "C" NOT NULL UNIQUE,
        version int NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
    );
    """,
]

def _edge_vectors_and_terms(conn: Any, s: str) -> None:
    """3: edge vectors as pgvector ``vector`` (they were float32 bytes in ``bytea``), so ``rank_edges`` scores
    them with ``<=>`` in the database, and each edge's term counts (``tf``: lexeme -> count, ``length``), so
    it scores BM25 over a selection; both filled for the edges already there, a batch at a time."""
    # STORAGE MAIN: a vector stays in its row (a fact's row with its props and term counts passes the
    # 2 kB at which PostgreSQL moves the largest values out: ranking a hub's facts then read every vector
    # through the TOAST table, ~12 us each); the term counts move out instead.
    conn.execute(f"ALTER TABLE {s}.edges ADD COLUMN vec vector, ADD COLUMN tf jsonb NOT NULL DEFAULT '{{}}', "
                 "ADD COLUMN length int NOT NULL DEFAULT 0")
    conn.execute(f"ALTER TABLE {s}.edges ALTER COLUMN vec SET STORAGE MAIN")
    last = 0
    while True:
        rows = conn.execute(f"SELECT seq, vector, text FROM {s}.edges WHERE seq > %s ORDER BY seq LIMIT 2000",
                            (last,)).fetchall()
        if not rows:
            break
        with conn.cursor() as cur:
            cur.executemany(
                f"UPDATE {s}.edges SET vec = %s, tf = %s, length = %s WHERE seq = %s",
                [(None if blob is None else np.frombuffer(bytes(blob), dtype=np.float32), Jsonb(counts), length, seq)
                 for seq, blob, (counts, length) in ((r[0], r[1], term_counts("", r[2])) for r in rows)])
        last = rows[-1][0]
    conn.execute(f"ALTER TABLE {s}.edges DROP COLUMN vector")
    conn.execute(f"ALTER TABLE {s}.edges RENAME COLUMN vec TO vector")


#: One namespace's tables; ``{s}`` is its schema name. A step is SQL (``{s}`` filled in) or a function of
#: (connection, schema) for what SQL alone cannot do.
NAMESPACE: list[str | Callable[[Any, str], None]] = [
    """
    CREATE TABLE {s}.meta (key text COLLATE "C" PRIMARY KEY, value jsonb NOT NULL);
    CREATE TABLE {s}.nodes (
        seq bigserial PRIMARY KEY,
        id text COLLATE "C" NOT NULL UNIQUE,
        kind text COLLATE "C" NOT NULL,
        name text NOT NULL DEFAULT '',
        text text NOT NULL DEFAULT '',
        props jsonb NOT NULL DEFAULT '{{}}',
        text_hash text NOT NULL DEFAULT '',
        created_at float8 NOT NULL,
        updated_at float8 NOT NULL,
        lexemes tsvector NOT NULL,
        tf jsonb NOT NULL,
        length int NOT NULL
    );
    CREATE INDEX nodes_kind ON {s}.nodes (kind, seq);
    CREATE INDEX nodes_lexemes ON {s}.nodes USING gin (lexemes);
    CREATE INDEX nodes_props ON {s}.nodes USING gin (props jsonb_path_ops);
    CREATE TABLE {s}.passages (
        node_seq bigint NOT NULL REFERENCES {s}.nodes (seq) ON DELETE CASCADE,
        pos int NOT NULL,
        kind text COLLATE "C" NOT NULL,
        vector vector NOT NULL,
        PRIMARY KEY (node_seq, pos)
    );
    CREATE TABLE {s}.terms (lexeme text COLLATE "C" PRIMARY KEY, df int NOT NULL);
    CREATE TABLE {s}.counts (
        kind text COLLATE "C" PRIMARY KEY,
        nodes bigint NOT NULL DEFAULT 0,
        passages bigint NOT NULL DEFAULT 0,
        length bigint NOT NULL DEFAULT 0
    );
    CREATE TABLE {s}.node_keys (
        key text COLLATE "C" NOT NULL,
        node_seq bigint NOT NULL REFERENCES {s}.nodes (seq) ON DELETE CASCADE,
        PRIMARY KEY (key, node_seq)
    );
    CREATE INDEX node_keys_node ON {s}.node_keys (node_seq);
    CREATE TABLE {s}.edges (
        seq bigserial PRIMARY KEY,
        id text COLLATE "C" NOT NULL UNIQUE,
        src text COLLATE "C" NOT NULL,
        dst text COLLATE "C" NOT NULL,
        type text COLLATE "C" NOT NULL,
        props jsonb NOT NULL DEFAULT '{{}}',
        text text NOT NULL DEFAULT '',
        vector bytea,
        date text COLLATE "C"
    );
    CREATE INDEX edges_src_type_date ON {s}.edges (src, type, date, dst);
    CREATE INDEX edges_dst_type_date ON {s}.edges (dst, type, date, src);
    CREATE INDEX edges_type ON {s}.edges (type);
    """,
    # 2: document frequencies per kind, so that BM25 scores with the searched kind's statistics (as the
    # SQLite backend does); a search over every kind sums them. Filled from the nodes' own lexemes, and
    # analysed at once: until autovacuum gets to the new table the planner misjudges the BM25 statement.
    """
    DROP TABLE {s}.terms;
    CREATE TABLE {s}.terms (
        lexeme text COLLATE "C" NOT NULL,
        kind text COLLATE "C" NOT NULL,
        df int NOT NULL,
        PRIMARY KEY (lexeme, kind)
    );
    INSERT INTO {s}.terms (lexeme, kind, df)
        SELECT l.lexeme, n.kind, count(*) FROM {s}.nodes n CROSS JOIN unnest(tsvector_to_array(n.lexemes)) AS l(lexeme)
        GROUP BY l.lexeme, n.kind;
    ANALYZE {s}.terms;
    """,
    _edge_vectors_and_terms,
    # 4: an edge's validity (valid_from, valid_to: stored columns computed from its props, the expressions
    # select_edges_sql read before) in the two edge indexes, so "what held on this day" is read from the
    # index, not from the edges' rows (~2 kB each with the vector).
    """
    ALTER TABLE {s}.edges
        ADD COLUMN valid_from text COLLATE "C" GENERATED ALWAYS AS (props ->> 'valid_from') STORED,
        ADD COLUMN valid_to text COLLATE "C" GENERATED ALWAYS AS (props ->> 'valid_to') STORED;
    DROP INDEX {s}.edges_src_type_date;
    DROP INDEX {s}.edges_dst_type_date;
    CREATE INDEX edges_src_type_date ON {s}.edges (src, type, date, dst, valid_from, valid_to);
    CREATE INDEX edges_dst_type_date ON {s}.edges (dst, type, date, src, valid_from, valid_to);
    """,
]

#: HNSW build parameters: graph degree and candidate list while building. pgvector's defaults (16, 64)
#: gave Recall@10 0.92 at ef_search 400 on 1M generated vectors of 2,000 tight topics: the walk often
#: ended in the wrong topic. 24 and 128 give 0.9995 at ef_search 200 on the same vectors
#: (:data:`~graphlore.store.postgres.connection.EF_SEARCH`), for a build of 716 s at 1M on two cores
#: (757 s before, on a busier machine) and a larger index. An index built before keeps its values until
#: it is dropped and created again with these (:func:`create_index`'s statement); nothing rebuilds it on
#: start, since that takes minutes at this size.
HNSW_M = 24
HNSW_EF_CONSTRUCTION = 128


def schema_name(namespace_id: int) -> str:
    return f"gs_{int(namespace_id)}"


def migrate_database(conn, location: str) -> None:
    """Bring the database-wide objects up to date (idempotent; concurrent starts wait on the lock)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (DATABASE_LOCK,))
        exists = conn.execute("SELECT to_regclass('graphlore.version') IS NOT NULL").fetchone()[0]
        applied = conn.execute("SELECT version FROM graphlore.version").fetchone()[0] if exists else 0
        steps = pending(applied, DATABASE, location)
        for _, step in steps:
            conn.execute(step)
        if not exists:
            conn.execute("CREATE TABLE graphlore.version (version int NOT NULL)")
            conn.execute("INSERT INTO graphlore.version VALUES (0)")
        if steps:
            conn.execute("UPDATE graphlore.version SET version = %s", (len(DATABASE),))


def migrate_namespace(conn, schema: str, applied: int, location: str,
                      on_step: Callable[[int], None] | None = None) -> int:
    """Apply the namespace steps after ``applied`` (the caller holds the namespace lock in a transaction);
    the new version. ``on_step(n)``: ``n`` of the pending steps are done."""
    steps = pending(applied, NAMESPACE, location)
    for done, (_, step) in enumerate(steps, start=1):
        if callable(step):
            step(conn, schema)
        else:
            conn.execute(step.format(s=schema))
        if on_step is not None:
            on_step(done)
    return len(NAMESPACE)


def fix_dimension(conn, schema: str, dim: int, *, index: bool = True) -> None:
    """Give the passage vectors their dimension and (unless a bulk load defers it) build the HNSW index."""
    conn.execute(f"ALTER TABLE {schema}.passages ALTER COLUMN vector TYPE vector({int(dim)})")
    if index:
        create_index(conn, schema)


def create_index(conn, schema: str) -> None:
    """The HNSW cosine index over the passage vectors (no-op when it exists)."""
    conn.execute(
        f"CREATE INDEX IF NOT EXISTS passages_hnsw ON {schema}.passages USING hnsw (vector vector_cosine_ops) "
        f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
    )
