"""SQL builders of the PostgreSQL store: each returns ``(sql, params)`` and runs nothing
(:mod:`graphlore.store.postgres.store` runs them). ``s`` is the namespace's schema name.

``where`` (the semantics of :mod:`graphlore.store.base`) becomes jsonb containment,
which the GIN index on ``props`` answers: a scalar condition ``v`` on prop ``k`` is
``props @> {"k": v} OR props @> {"k": [v]}`` (the prop is that value, or an array
holding it; jsonb compares ``1`` and ``1.0`` equal and never equates a boolean and
a number, as the protocol says), and ``None`` is "no such key, or JSON null".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from psycopg.types.json import Jsonb

from graphlore.errors import InvalidInput
from graphlore.store.base import Where, check_where
from graphlore.store.terms import K1, MIN_IDF, B, terms

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAP = 65535


def term_counts(name: str, text: str) -> tuple[dict[str, int], int]:
    """Per-lexeme counts packed as ``name * 65536 + text`` (each capped at 65535), and the length in
    tokens over both columns: what BM25 reads (the same tokens as the SQLite backend's)."""
    name_counts, text_counts = Counter(terms(name)), Counter(terms(text))
    # A word of combining marks alone folds to "": it counts in the length but is no lexeme.
    packed = {t: (min(name_counts.get(t, 0), _CAP) << 16) | min(text_counts.get(t, 0), _CAP)
              for t in name_counts.keys() | text_counts.keys() if t}
    return packed, sum(name_counts.values()) + sum(text_counts.values())


def record_write_sql(s: str) -> str:
    """Set the namespace's ``written_at`` to now when the transaction changed a row (it has a transaction id
    only then): one statement at the end of an ``atomic()`` block that called a write method."""
    return (f"INSERT INTO {s}.meta (key, value) SELECT %s, to_jsonb(extract(epoch FROM clock_timestamp())::float8) "
            "WHERE pg_current_xact_id_if_assigned() IS NOT NULL "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value")


def where_sql(where: Where | None, alias: str = "n") -> tuple[str, list[Any]]:
    """The ``where`` filter as one SQL condition over ``{alias}.props`` ('' when there is none)."""
    clauses, params = [], []
    for key, values in check_where(where):
        if not _IDENTIFIER.fullmatch(key):
            raise InvalidInput(f"filter key {key!r} is not a valid property name (ASCII letters, digits and _)")
        if not values:
            clauses.append("FALSE")
            continue
        tests = []
        if any(v is None for v in values):
            tests.append(f"NOT {alias}.props ? %s OR {alias}.props -> %s = 'null'::jsonb")
            params += [key, key]
        for value in dict.fromkeys((type(v), v) for v in values if v is not None):
            tests.append(f"{alias}.props @> %s OR {alias}.props @> %s")
            params += [Jsonb({key: value[1]}), Jsonb({key: [value[1]]})]
        clauses.append("(" + " OR ".join(f"({t})" for t in tests) + ")")
    return " AND ".join(clauses), params


def node_filter_sql(kind: str | None, where: Where | None, alias: str = "n") -> tuple[str, list[Any]]:
    """``WHERE ...`` over ``nodes {alias}`` for a kind and a ``where`` filter ('' when neither is given)."""
    clauses, params = [], []
    if kind is not None:
        clauses.append(f"{alias}.kind = %s")
        params.append(kind)
    condition, condition_params = where_sql(where, alias)
    if condition:
        clauses.append(condition)
        params += condition_params
    return ("WHERE " + " AND ".join(clauses), params) if clauses else ("", [])


def order_sql(order_by: str | None, descending: bool) -> str:
    """How ``list_node_ids`` orders, as the SQLite backend does: insertion (None), ``name`` (ignoring
    case), or a prop in SQLite's order of values (missing/null, then numbers and booleans, then text)."""
    direction = "DESC" if descending else "ASC"
    if order_by is None:
        return f"seq {direction}"
    if order_by == "name":
        return f"lower(name) COLLATE \"C\" {direction}, id"
    if not _IDENTIFIER.fullmatch(order_by):
        raise InvalidInput(f"order_by {order_by!r} is not a valid property name")
    v = f"(props -> '{order_by}')"
    rank = (f"CASE jsonb_typeof({v}) WHEN 'number' THEN 1 WHEN 'boolean' THEN 1 WHEN 'string' THEN 2 "
            f"WHEN 'array' THEN 2 WHEN 'object' THEN 2 ELSE 0 END")
    number = (f"CASE jsonb_typeof({v}) WHEN 'number' THEN ({v})::numeric "
              f"WHEN 'boolean' THEN CASE WHEN {v} = 'true'::jsonb THEN 1 ELSE 0 END END")
    text = f"CASE WHEN jsonb_typeof({v}) = 'string' THEN {v} #>> '{{}}' ELSE {v}::text END COLLATE \"C\""
    return f"{rank} {direction}, {number} {direction}, {text} {direction}, id"


def tsquery(lexemes: Sequence[str]) -> str:
    """An OR ``tsquery`` of exact lexemes (quoted, so nothing is parsed or stemmed again)."""
    return " | ".join("'" + lex.replace("\\", "\\\\").replace("'", "''") + "'" for lex in lexemes)


#: Documents (the sum of the match lexemes' document frequencies) the first BM25 step may match: the
#: rarest query lexemes are matched up to it (at least one); see :mod:`graphlore.store.postgres.pruning`.
MATCH_BUDGET = 5_000

#: A lexeme column as one quoted ``tsquery`` operand (quote and backslash escaped; chr(39) is ', chr(92) \).
_QUOTED = "chr(39) || replace(replace(lexeme, chr(92), chr(92) || chr(92)), chr(39), chr(39) || chr(39)) || chr(39)"


def bm25_sql(
    s: str, kind: str | None, where: Where | None, lexemes: Sequence[str], forced: Sequence[str],
    weights: tuple[float, float], limit: int,
) -> tuple[str, list[Any]]:
    """One BM25 step, in one statement (one snapshot). It reads the collection statistics (``counts``)
    and the query lexemes' document frequencies (``terms``) of the searched kind (``kind=None``: summed
    over every kind), as the SQLite backend scores, so that nodes of other kinds change no score;
    chooses the lexemes to match: the rarest ones up to :data:`MATCH_BUDGET` documents (at least one)
    and ``forced``; finds the filtered nodes holding one of those through the GIN index on ``lexemes``;
    and scores them over every query lexeme from their stored term counts (``tf``: lexeme -> name
    count * 65536 + text count). The matched nodes are read once (``MATERIALIZED``; inlined, the
    planner read them again for every query lexeme: 1M nodes, 12 against 9 ms p50 for a first step,
    1.0-1.3 s against 0.7 s when a lexeme of 330k nodes had to be matched), and each one's ``tf`` is
    decompressed once (``|| '{}'``): a long text's counts are stored compressed, and every ``->>``
    would decompress them again (SciFact: 71 against 28 ms p50 for a first step).

    One row: the query lexemes some node holds and their idf (two arrays), the lexemes matched, and
    the top ``limit`` ids and scores (best first, ties by insertion order), so that the caller can
    check that the lexemes left unmatched could not have changed that top
    (:mod:`graphlore.store.postgres.pruning`)."""
    condition, params = node_filter_sql(kind, where)
    found = ("WHERE " if not condition else condition + " AND ") + "n.lexemes @@ (SELECT tsq FROM e)"
    of_kind, kind_params = ("WHERE kind = %s", [kind]) if kind is not None else ("", [])
    and_kind = "AND kind = %s" if kind is not None else ""
    sql = f"""
        WITH stats AS MATERIALIZED (
            SELECT coalesce(sum(nodes), 0)::float8 AS docs,
                   greatest(CASE WHEN sum(nodes) > 0 THEN sum(length)::float8 / sum(nodes) ELSE 1 END, 1e-9)
                   AS avgdl
            FROM {s}.counts {of_kind}),
        q AS MATERIALIZED (
            SELECT t.lexeme, t.df, greatest(ln((stats.docs - t.df + 0.5) / (t.df + 0.5)), {MIN_IDF}) AS idf
            FROM (SELECT lexeme, sum(df) AS df FROM {s}.terms WHERE lexeme = ANY(%s) {and_kind} GROUP BY lexeme) t
            CROSS JOIN stats WHERE t.df > 0),
        e AS MATERIALIZED (
            SELECT array_agg(lexeme) AS lexemes, string_agg({_QUOTED}, ' | ')::tsquery AS tsq
            FROM (SELECT lexeme, row_number() OVER w AS r, sum(df) OVER w AS running FROM q
                  WINDOW w AS (ORDER BY df, lexeme)) x
            WHERE r = 1 OR running <= {MATCH_BUDGET} OR lexeme = ANY(%s)),
        m AS MATERIALIZED (SELECT n.seq, n.id, n.length, n.tf || '{{}}'::jsonb AS tf FROM {s}.nodes n {found}),
        top AS (
            SELECT m.id, m.seq,
                   sum(q.idf * f.f * {K1 + 1} / (f.f + {K1} * ({1 - B} + {B} * m.length / stats.avgdl))) AS score
            FROM m CROSS JOIN stats CROSS JOIN q
            CROSS JOIN LATERAL (SELECT (m.tf ->> q.lexeme)::bigint AS packed) t
            CROSS JOIN LATERAL (SELECT %s * (t.packed >> 16) + %s * (t.packed & 65535) AS f) f
            WHERE t.packed IS NOT NULL
            GROUP BY m.seq, m.id
            ORDER BY score DESC, m.seq
            LIMIT %s)
        SELECT (SELECT array_agg(lexeme) FROM q), (SELECT array_agg(idf) FROM q), (SELECT lexemes FROM e),
               (SELECT array_agg(id ORDER BY score DESC, seq) FROM top),
               (SELECT array_agg(score ORDER BY score DESC, seq) FROM top)"""
    return sql, [*kind_params, list(lexemes), *kind_params, list(forced), *params, float(weights[0]),
                 float(weights[1]), int(limit)]


def vector_sql(
    s: str, kind: str | None, where: Where | None, query: Any, passages: int, exact: bool,
) -> tuple[str, list[Any]]:
    """The ``passages`` nearest passages (node id, cosine) among the filtered nodes, nearest first.

    ``exact`` scans every candidate passage (the planner cannot use the HNSW index for an expression
    it does not know); otherwise the HNSW index orders them and, with ``hnsw.iterative_scan``, keeps
    scanning past passages the filter drops. The outer ORDER BY restores exact order among what the
    (relaxed-order) index returned.
    """
    clauses, params = [], []
    if kind is not None:
        clauses.append("p.kind = %s")
        params.append(kind)
    condition, condition_params = where_sql(where)
    join = ""
    if condition:
        join = f"JOIN {s}.nodes n ON n.seq = p.node_seq"
        clauses.append(condition)
        params += condition_params
    filters = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    distance = "(p.vector <=> %s) + 0" if exact else "p.vector <=> %s"
    ties = ", p.node_seq" if exact else ""  # the exact scan keeps ties in insertion order at the cut too
    sql = f"""
        WITH near AS MATERIALIZED (
            SELECT p.node_seq, {distance} AS d FROM {s}.passages p {join} {filters}
            ORDER BY d{ties} LIMIT %s)
        SELECT n.id, 1 - near.d AS score, near.node_seq FROM near JOIN {s}.nodes n ON n.seq = near.node_seq
        ORDER BY near.d, near.node_seq"""
    return sql, [query, *params, int(passages)]


def check_mode(mode: str) -> None:
    if mode not in ("around", "between"):
        raise InvalidInput(f"mode must be 'around' or 'between', got {mode!r}")


def select_edges_sql(
    s: str, node_ids: Sequence[str], mode: str, type: str | None, date_from: str | None, date_to: str | None,
    valid_at: str | None = None,
) -> tuple[str, list[Any]]:
    """(seq, date) of edges around (either end in ``node_ids``) or between (both ends in it) the nodes,
    of ``type``, dated within [date_from, date_to] (inclusive), held on ``valid_at``: index-only on the
    (src|dst, type, date, other end, validity) indexes."""
    check_mode(mode)
    cond, extra = "", []
    if type is not None:
        cond += " AND type = %s"
        extra.append(type)
    if date_from is not None:
        cond += " AND date >= %s"
        extra.append(date_from)
    if date_to is not None:
        cond += " AND date <= %s"
        extra.append(date_to)
    if valid_at is not None:  # held on that day: valid_from <= day < valid_to (columns the indexes hold)
        cond += " AND coalesce(valid_from, '') <= %s AND coalesce(valid_to > %s, TRUE)"
        extra += [valid_at, valid_at]
    ids = list(node_ids)
    if mode == "between":
        return (f"SELECT seq, date FROM {s}.edges WHERE src = ANY(%s) AND dst = ANY(%s){cond}",
                [ids, ids, *extra])
    sql = (f"SELECT seq, date FROM {s}.edges WHERE src = ANY(%s){cond} "
           f"UNION SELECT seq, date FROM {s}.edges WHERE dst = ANY(%s){cond}")
    return sql, [ids, *extra, ids, *extra]


def rank_edges_sql(
    s: str, selection: tuple[str, list[Any]], lexemes: Sequence[str] | None, query: Any,
    weights: tuple[float, float], limit: int,
) -> tuple[str, list[Any]]:
    """(total, ids, scores, cosines, keyword scores) of a selection (``select_edges_sql``) ranked by
    :func:`graphlore.store.base.fused_edge_scores`, in one statement: the cosine with ``<=>`` on each
    edge's vector (``query`` None: no vector side), BM25 over the edges' term counts (``tf``: lexeme ->
    count) with the selection as the collection (``lexemes`` None: no keyword side). Ties newest first
    (date descending, undated last, then latest written first), the top ``limit`` returned."""
    select, select_params = selection
    cosine = "1 - (x.vector <=> %s)" if query is not None else "NULL::float8"
    params: list[Any] = [*select_params, *([query] if query is not None else [])]
    keyword = "0::float8"
    bm25 = ""
    if lexemes:
        bm25 = f"""
        , st AS MATERIALIZED (SELECT count(*)::float8 AS docs, greatest(avg(length), 1e-9)::float8 AS avgdl FROM e)
        , hits AS MATERIALIZED (
            SELECT e.seq, q.lexeme, (e.tf ->> q.lexeme)::float8 AS f, e.length
            FROM e CROSS JOIN unnest(%s::text[]) AS q(lexeme) WHERE e.tf ? q.lexeme)
        , idf AS (SELECT lexeme, greatest(ln((st.docs - count(*) + 0.5) / (count(*) + 0.5)), {MIN_IDF}) AS idf
                  FROM hits CROSS JOIN st GROUP BY lexeme, st.docs)
        , bm AS (SELECT h.seq, sum(idf.idf * h.f * {K1 + 1} / (h.f + {K1} * ({1 - B} + {B} * h.length / st.avgdl)))
                        AS score
                 FROM hits h JOIN idf USING (lexeme) CROSS JOIN st GROUP BY h.seq)"""
        params.append(list(lexemes))
        keyword = "coalesce(bm.score, 0)"
    joined = "LEFT JOIN bm ON bm.seq = e.seq" if lexemes else ""
    terms = "x.length, x.tf || '{}'::jsonb AS tf" if lexemes else "0 AS length"  # counts read only for BM25
    sql = f"""
        WITH sel AS MATERIALIZED ({select}),
        e AS MATERIALIZED (
            SELECT x.seq, x.id, sel.date, {terms}, {cosine} AS cos
            FROM sel JOIN {s}.edges x ON x.seq = sel.seq)
        {bm25},
        scored AS (
            SELECT e.seq, e.id, e.date, e.cos, {keyword} AS kw FROM e {joined}),
        fused AS (
            SELECT seq, id, date, cos, kw,
                   %s * CASE WHEN max(kw) OVER () > 0 THEN kw / max(kw) OVER () ELSE 0 END
                   + %s * coalesce(cos, -1) AS score
            FROM scored),
        top AS (SELECT * FROM fused ORDER BY score DESC, date DESC NULLS LAST, seq DESC LIMIT %s)
        SELECT (SELECT count(*) FROM sel), array_agg(id ORDER BY score DESC, date DESC NULLS LAST, seq DESC),
               array_agg(score ORDER BY score DESC, date DESC NULLS LAST, seq DESC),
               array_agg(cos ORDER BY score DESC, date DESC NULLS LAST, seq DESC),
               array_agg(kw ORDER BY score DESC, date DESC NULLS LAST, seq DESC)
        FROM top"""
    kw_weight = float(weights[0]) if lexemes else 0.0
    vec_weight = float(weights[1]) if query is not None else 0.0
    return sql, [*params, kw_weight, vec_weight, int(limit)]


def prop_counts_sql(s: str, kind: str, prop: str) -> tuple[str, list[Any]]:
    """(jsonb value, count) of ``prop`` over the nodes of ``kind``: scalars as they are, arrays by element
    (objects and nested arrays left out), a missing prop as NULL."""
    if not _IDENTIFIER.fullmatch(prop):
        raise InvalidInput(f"prop {prop!r} is not a valid property name (ASCII letters, digits and _)")
    return (f"""SELECT v.value, count(*) FROM {s}.nodes n CROSS JOIN LATERAL (
                    SELECT jsonb_array_elements(n.props -> %s) AS value WHERE jsonb_typeof(n.props -> %s) = 'array'
                    UNION ALL SELECT n.props -> %s WHERE coalesce(jsonb_typeof(n.props -> %s), '') <> 'array') v
                WHERE n.kind = %s AND coalesce(jsonb_typeof(v.value), '') NOT IN ('array', 'object')
                GROUP BY v.value""", [prop, prop, prop, prop, kind])


def nodes_with_keys_sql(s: str, kind: str | None, groups: Sequence[Sequence[str]]) -> tuple[str, list[Any]]:
    """``WHERE ...`` over ``{s}.nodes n``: of ``kind`` and, per group, holding one of its keys ('' when
    neither); each group is one array parameter (any length), answered by the ``node_keys`` primary key."""
    clauses, params = [], []
    if kind is not None:
        clauses.append("n.kind = %s")
        params.append(kind)
    for group in groups:
        keys = list(dict.fromkeys(group))
        if not keys:
            clauses.append("FALSE")
            continue
        clauses.append(f"EXISTS (SELECT 1 FROM {s}.node_keys k WHERE k.node_seq = n.seq AND k.key = ANY(%s))")
        params.append(keys)
    return ("WHERE " + " AND ".join(clauses), params) if clauses else ("", [])


EDGE_DIRECTIONS = ("out", "in", "both")


def edges_of_sql(node_ids: Sequence[str], direction: str, types: Sequence[str] | None) -> tuple[str, list[Any]]:
    """``WHERE ...`` over ``edges``: src (out), dst (in) or either end (both) among ``node_ids``, of
    ``types``; ids and types are one array parameter each (any length)."""
    if direction not in EDGE_DIRECTIONS:
        raise InvalidInput(f"direction must be one of {', '.join(EDGE_DIRECTIONS)}, got {direction!r}")
    ids = list(dict.fromkeys(node_ids))
    if direction == "out":
        clauses, params = ["src = ANY(%s)"], [ids]
    elif direction == "in":
        clauses, params = ["dst = ANY(%s)"], [ids]
    else:
        clauses, params = ["(src = ANY(%s) OR dst = ANY(%s))"], [ids, ids]
    if types is not None:
        clauses.append("type = ANY(%s)")
        params.append(list(dict.fromkeys(types)))
    return "WHERE " + " AND ".join(clauses), params
