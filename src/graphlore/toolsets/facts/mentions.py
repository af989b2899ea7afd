"""Mention records: what each distinct mention of an entity or topic said, and the node rebuilt from them.

A merge folds a mention into a node: its name becomes an alias, and the node keeps
the longest name and definition seen. So that nothing a merge does is permanent,
every distinct mention (one per mention key: name, type and definition) that
created or joined a node is also kept as a record, a ``mention`` edge from the node
to the document that first said it (dated with that document)::

    id     M:<mention key>            (M:L:<hash> for the record of a node written before records)
    src    the node it belongs to     dst  the first document that said it
    props  key, names (the mention's name, then aliases), type, definition,
           action (created / merged / legacy), reason, rules (RESOLUTION_VERSION), n (its number on the
           node: the node prop ``mention_seq`` is the latest; a split keeps the numbers)

A node's name, aliases, definition and type are a function of its records
(:func:`fold`), the same one :meth:`resolve.NodeState.absorb` applies one mention
at a time, so ``split`` can rebuild two nodes from two groups of records. Facts say
which mention each end came from (``subject_key`` / ``object_key``), so their ends
can follow their mention.

Graphs written before records existed keep working, on the fly (no migration):
their nodes carry no ``mention_seq``. When such a node first takes in a new mention,
a ``legacy`` record keeps what the node was at that moment (its merges before
cannot be told apart any more), and its facts, which carry no mention keys, go with
that record. A node never touched since has no records and cannot be split.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from graphlore.store import Edge, Store
from graphlore.toolsets.facts.names import name_keys

MENTION = "mention"
#: ``action`` of the record that keeps what a node written before records was
LEGACY = "legacy"


def edge_id(key: str) -> str:
    """The record of a mention key (``m:...``) is the edge ``M:...``: one per key in a graph."""
    return "M:" + key.removeprefix("m:")


def legacy_edge_id(node_id: str) -> str:
    return "M:L:" + hashlib.sha1(node_id.encode()).hexdigest()[:20]


def short_id(record: Mapping) -> str:
    """What info shows and split takes: 8 characters of the mention key, or ``legacy``."""
    key = record.get("key") or ""
    return key.removeprefix("m:")[:8] if key else LEGACY


@dataclass(frozen=True)
class Folded:
    """An entity or topic as its records make it."""

    name: str
    aliases: list[str]
    definition: str
    type: str | None


def canonical(names: Iterable[str]) -> tuple[str, list[str]]:
    """The canonical name (the longest; ties alphabetical) and the other names, sorted."""
    unique = list(dict.fromkeys(names))
    name = sorted(unique, key=lambda n: (-len(n), n))[0]
    return name, sorted({n for n in unique if n != name})


def longest_definition(definitions: Iterable[str]) -> str:
    return sorted(set(definitions), key=lambda d: (-len(d), d))[0]


def fold(records: Sequence[Mapping]) -> Folded:
    """The node that ``records`` make: every name kept (the longest canonical), the longest definition,
    the type of the first record that has one (records in the order they were made, ``n``)."""
    ordered = sorted(records, key=lambda r: r.get("n", 0))
    name, aliases = canonical(n for r in ordered for n in r["names"])
    types = [r["type"] for r in ordered if r.get("type")]
    return Folded(name, aliases, longest_definition(r["definition"] for r in ordered), types[0] if types else None)


def record(key: str, names: Sequence[str], type: str | None, definition: str, action: str, reason: str,
           rules: int, n: int) -> dict:
    return {"key": key, "names": list(dict.fromkeys(names)), "type": type, "definition": definition,
            "action": action, "reason": reason, "rules": rules, "n": n}


def edge(node_id: str, props: Mapping, document: str, date: str | None) -> Edge:
    """The record as the ``mention`` edge it is stored as."""
    key = props.get("key") or ""
    return Edge(edge_id(key) if key else legacy_edge_id(node_id), node_id, document, MENTION, dict(props), "", None,
                date)


def node_records(store: Store, node_id: str) -> list[Edge]:
    """The node's mention records, in the order they were made."""
    refs = store.select_edges([node_id], type=MENTION).edges
    edges = [e for e in store.get_edges([r.id for r in refs]) if e.src == node_id]
    return sorted(edges, key=lambda e: e.props.get("n", 0))


def lookup_keys(records: Sequence[Edge]) -> list[str]:
    """The lookup keys the node ``records`` make holds: every name's keys, then the mention keys."""
    keys = [k for r in records for name in r.props["names"] for k in name_keys(name)]
    return list(dict.fromkeys([*keys, *(r.props["key"] for r in records if r.props.get("key"))]))
