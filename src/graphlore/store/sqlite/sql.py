"""SQL builders of the SQLite store: each returns ``(sql, params)`` and runs nothing, so a query can be
read and tested on its own (:mod:`graphlore.store.sqlite.store` runs them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from graphlore.errors import InvalidInput
from graphlore.store.base import Where, check_where

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Set one metadata value (key, JSON text).
SET_META = "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"


def _value_test(type_sql: str, value_sql: str, values: list[Any]) -> tuple[list[str], list[Any]]:
    """Tests of one JSON value (its ``json_type`` and its value) against the accepted values."""
    tests, params = [], []
    if any(v is None for v in values):
        tests.append(f"{type_sql} IS NULL OR {type_sql} = 'null'")
    if any(v is True for v in values):
        tests.append(f"{type_sql} = 'true'")
    if any(v is False for v in values):
        tests.append(f"{type_sql} = 'false'")
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if numbers:
        tests.append(f"({type_sql} IN ('integer', 'real') AND {value_sql} IN ({','.join('?' * len(numbers))}))")
        params += numbers
    strings = [v for v in values if isinstance(v, str)]
    if strings:
        tests.append(f"({type_sql} = 'text' AND {value_sql} IN ({','.join('?' * len(strings))}))")
        params += strings
    return tests, params


def where_sql(where: Where | None, alias: str = "n") -> tuple[str, list[Any]]:
    """The ``where`` semantics of :mod:`graphlore.store.base` as one SQL condition ('' when no filter)."""
    clauses, params = [], []
    for key, values in check_where(where):
        if not _IDENTIFIER.fullmatch(key):
            raise InvalidInput(f"filter key {key!r} is not a valid property name (ASCII letters, digits and _)")
        if not values:
            clauses.append("0")
            continue
        path = f"'$.{key}'"
        scalar, scalar_params = _value_test(f"json_type({alias}.props, {path})",
                                            f"json_extract({alias}.props, {path})", values)
        tests = [f"({t})" for t in scalar]
        present = [v for v in values if v is not None]
        if present:
            inner, inner_params = _value_test("j.type", "j.value", present)
            tests.append(f"(json_type({alias}.props, {path}) = 'array' AND EXISTS (SELECT 1 FROM "
                         f"json_each({alias}.props, {path}) j WHERE {' OR '.join(inner)}))")
            scalar_params += inner_params
        clauses.append("(" + " OR ".join(tests) + ")")
        params += scalar_params
    return " AND ".join(clauses), params


def node_filter_sql(kind: str | None, where: Where | None) -> tuple[str, list[Any]]:
    """``WHERE ...`` over ``nodes n`` for a kind and a ``where`` filter ('' when neither is given)."""
    clauses, params = [], []
    if kind is not None:
        clauses.append("n.kind = ?")
        params.append(kind)
    condition, condition_params = where_sql(where)
    if condition:
        clauses.append(condition)
        params += condition_params
    return ("WHERE " + " AND ".join(clauses), params) if clauses else ("", [])


def order_expression(order_by: str | None) -> str:
    """How :meth:`list_node_ids` orders: insertion (None), ``name`` (case-insensitive), or a prop."""
    if order_by is None:
        return "rowid"
    if order_by == "name":
        return "name COLLATE NOCASE"
    if _IDENTIFIER.fullmatch(order_by):
        return f"json_extract(props, '$.{order_by}')"
    raise InvalidInput(f"order_by {order_by!r} is not a valid property name")


EDGE_MODES = ("around", "between")


def check_mode(mode: str) -> None:
    if mode not in EDGE_MODES:
        raise InvalidInput(f"mode must be 'around' or 'between', got {mode!r}")


def select_edges_sql(
    node_ids: Sequence[str], mode: str, type: str | None, date_from: str | None, date_to: str | None,
    valid_at: str | None = None,
) -> tuple[str, list[Any]]:
    """The index-only query for (rowid, date) of edges around (either end in ``node_ids``) or between
    (both ends in it) the nodes, of ``type``, dated within [date_from, date_to] (inclusive), held on
    ``valid_at`` (see :data:`VALID_AT`). The ids go in as one JSON array, so any number of them may be
    given."""
    check_mode(mode)
    members = "(SELECT value FROM json_each(?))"
    cond, extra = "", []
    if type is not None:
        cond += " AND type = ?"
        extra.append(type)
    if date_from is not None:
        cond += " AND date >= ?"
        extra.append(date_from)
    if date_to is not None:
        cond += " AND date <= ?"
        extra.append(date_to)
    if valid_at is not None:
        cond += " AND " + VALID_AT
        extra += [valid_at, valid_at]
    ids = json.dumps(list(node_ids))
    if mode == "between":
        return f"SELECT rowid, date FROM edges WHERE src IN {members} AND dst IN {members}{cond}", [ids, ids, *extra]
    sql = (f"SELECT rowid, date FROM edges WHERE src IN {members}{cond} "
           f"UNION SELECT rowid, date FROM edges WHERE dst IN {members}{cond}")
    return sql, [ids, *extra, ids, *extra]


#: The condition that an edge held on a day (two ``?``, the day twice): valid_from <= day < valid_to (an
#: open end holds), on the edges' validity columns (migration 5: the edge indexes hold them).
VALID_AT = "coalesce(valid_from, '') <= ? AND coalesce(valid_to > ?, 1)"


def prop_value(value: Any, json_type: str | None) -> Any:
    """A value :func:`prop_counts_sql` read, as JSON has it (SQLite reads ``true`` as 1, ``null`` as NULL)."""
    if json_type in (None, "null"):
        return None
    if json_type in ("true", "false"):
        return json_type == "true"
    return value


def prop_counts_sql(kind: str, prop: str) -> tuple[str, list[Any]]:
    """(value, json_type, count) of ``prop`` over the nodes of ``kind``: scalar values as they are, arrays
    by element (objects and nested arrays left out), a missing prop as (NULL, NULL)."""
    if not _IDENTIFIER.fullmatch(prop):
        raise InvalidInput(f"prop {prop!r} is not a valid property name (ASCII letters, digits and _)")
    path = f"'$.{prop}'"
    return (f"SELECT json_extract(n.props, {path}), json_type(n.props, {path}), count(*) FROM nodes n "
            f"WHERE n.kind = ? AND coalesce(json_type(n.props, {path}), 'null') NOT IN ('array', 'object') "
            "GROUP BY 1, 2 UNION ALL "
            f"SELECT j.value, j.type, count(*) FROM nodes n, json_each(n.props, {path}) j WHERE n.kind = ? "
            f"AND json_type(n.props, {path}) = 'array' AND j.type NOT IN ('array', 'object') GROUP BY 1, 2",
            [kind, kind])


def nodes_with_keys_sql(kind: str | None, groups: Sequence[Sequence[str]]) -> tuple[str, list[Any]]:
    """``WHERE ...`` over ``nodes n``: of ``kind`` and, per group, holding one of its keys ('' when neither).
    Each group's keys go in as one JSON array, so a group may hold any number of keys."""
    clauses, params = [], []
    if kind is not None:
        clauses.append("n.kind = ?")
        params.append(kind)
    for group in groups:
        keys = list(dict.fromkeys(group))
        if not keys:
            clauses.append("0")
            continue
        clauses.append("n.rowid IN (SELECT k.node_rowid FROM node_keys k WHERE k.key IN "
                       "(SELECT value FROM json_each(?)))")
        params.append(json.dumps(keys))
    return ("WHERE " + " AND ".join(clauses), params) if clauses else ("", [])


EDGE_DIRECTIONS = ("out", "in", "both")


def edges_of_sql(node_ids: Sequence[str], direction: str, types: Sequence[str] | None) -> tuple[str, list[Any]]:
    """``WHERE ...`` over ``edges``: src (out), dst (in) or either end (both) among ``node_ids``, of ``types``.
    Ids and types go in as JSON arrays (one parameter each, any length)."""
    if direction not in EDGE_DIRECTIONS:
        raise InvalidInput(f"direction must be one of {', '.join(EDGE_DIRECTIONS)}, got {direction!r}")
    ids = json.dumps(list(dict.fromkeys(node_ids)))
    members = "(SELECT value FROM json_each(?))"
    if direction == "out":
        clauses, params = [f"src IN {members}"], [ids]
    elif direction == "in":
        clauses, params = [f"dst IN {members}"], [ids]
    else:
        clauses, params = [f"(src IN {members} OR dst IN {members})"], [ids, ids]
    if types is not None:
        # "+type": never drive the query from the type index (one type can hold most edges); the node ids
        # select few rows through edges_src_type_date / edges_dst_type_date, and the type filters those
        clauses.append(f"+type IN {members}")
        params.append(json.dumps(list(dict.fromkeys(types))))
    return "WHERE " + " AND ".join(clauses), params
