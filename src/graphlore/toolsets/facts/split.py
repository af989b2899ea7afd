"""``split``: undo a merge. Some mention records of a node leave it for a new node; both are rebuilt.

Each node is rebuilt from its own records with :func:`mentions.fold` (the rule
resolution applies one mention at a time), so the node that stays is what it was
before those mentions merged in, and the new one is what they would have made on
their own (its id is allocated from its name as resolution does). In one
transaction:

- the records that leave point to the new node;
- every fact whose subject or object came from one of them (``subject_key`` /
  ``object_key``; facts written before records, without keys, go with the
  ``legacy`` record) moves that end to the new node;
- both nodes get the lookup keys of their own names and mention keys only, and are
  embedded again when their ``"{name}: {definition}"`` changed;
- each records the other in ``kept_apart`` with the names only the other holds:
  resolution never merges a mention with such a name into it again (it links them
  at most, see :func:`resolve.kept_apart_from`).

Possible-duplicate links stay where they were. Splitting needs records: a node
written before graphlore kept them, and not merged into since, has none.
"""

from __future__ import annotations

import hashlib

from graphlore.errors import InvalidInput
from graphlore.runtime import Runtime
from graphlore.store import Edge, Node, Store
from graphlore.toolsets.facts import lookup, mentions, validity
from graphlore.toolsets.facts.graph import FACT, PREFIX, FactsGraph, node_text
from graphlore.toolsets.facts.mentions import node_records
from graphlore.toolsets.facts.merge import restore, summary
from graphlore.toolsets.facts.models import SplitRequest, SplitResponse
from graphlore.toolsets.facts.names import exact_key, normalize, slug

#: Fact ids read per batch while moving facts.
BATCH = 2000


def split(runtime: Runtime, request: SplitRequest) -> SplitResponse:
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    found, _ = graph.resolve(store, request.name, None)
    with store.atomic():
        [node] = store.get_nodes([found.id], with_vectors=True)
        records = node_records(store, node.id)
        if not records:
            raise InvalidInput(
                f"{node.name} ({node.id}) has no mention records: it was written before graphlore kept them and "
                "nothing merged into it since, so there is no merge to undo")
        leaving = choose(node, records, request.mentions)
        staying = [r for r in records if all(r is not x for x in leaving)]
        if not staying:
            raise InvalidInput(f"those are all the mentions of {node.name} ({node.id}); leave at least one (mention "
                               f"ids: {', '.join(mentions.short_id(r.props) for r in records)})")
        restored = restore(runtime, store, node, leaving)
        if restored is not None:  # exactly what a merge joined: both nodes as they were
            kept, made, moved = restored
            return SplitResponse(graph=graph.name, kept=summary(store, kept, staying),
                                 split_off=summary(store, made, leaving), facts_moved=moved)
        new_id = _allocate(store, node.kind, mentions.fold([r.props for r in leaving]).name)
        kept_props, new_props = dict(node.props), {}
        names = {side: {normalize(n) for r in group for n in r.props["names"]}
                 for side, group in (("stay", staying), ("leave", leaving))}
        kept_props.setdefault("kept_apart", {})[new_id] = sorted(names["leave"] - names["stay"])
        new_props["kept_apart"] = {node.id: sorted(names["stay"] - names["leave"])}
        new_props["mention_seq"] = max(r.props.get("n", 0) for r in leaving)
        kept = _rebuilt(runtime, node, node.id, staying, kept_props)
        made = _rebuilt(runtime, node, new_id, leaving, new_props)
        store.upsert_nodes([kept, made])
        store.set_node_keys({node.id: mentions.lookup_keys(staying), new_id: mentions.lookup_keys(leaving)})
        for r in leaving:
            r.src = new_id
        store.upsert_edges(leaving)
        moved = _move_facts(store, node.id, new_id, leaving)
        validity.revalidate(store, _timelines(store, [node.id, new_id]))
    return SplitResponse(graph=graph.name, kept=summary(store, kept, staying), split_off=summary(store, made, leaving),
                         facts_moved=moved)


def _timelines(store: Store, ids: list[str]) -> set[tuple[str, str]]:
    """(subject, relationship) of the facts the nodes are in, either end: a split that gives a subject's
    facts two objects changes the subject's timeline as much as one that splits the subject."""
    return {(e.src, e.props["relationship"]) for e in store.edges_of(ids, direction="both", types=[FACT]).edges}


def choose(node: Node, records: list[Edge], wanted: list[str]) -> list[Edge]:
    """The records ``wanted`` names: a mention id, or a name a mention gave (every mention with it)."""
    chosen: dict[str, Edge] = {}
    unknown = []
    for given in wanted:
        text = given.strip()
        hits = [r for r in records if mentions.short_id(r.props) == text.casefold()
                or exact_key(text) in {exact_key(n) for n in r.props["names"]}]
        if not hits:
            unknown.append(given)
        chosen.update({r.id: r for r in hits})
    if unknown:
        listed = "; ".join(f"{mentions.short_id(r.props)} {r.props['names'][0]!r}: {r.props['definition'][:60]}"
                           for r in records[-20:])
        raise InvalidInput(f"{', '.join(map(repr, unknown))}: no mention of {node.name} ({node.id}) has that id or "
                           f"name; its mentions (id, name, definition): {listed}")
    return [r for r in records if r.id in chosen]


def _allocate(store: Store, kind: str, name: str) -> str:
    base = PREFIX[kind] + slug(name)
    candidate, n = base, 1
    while store.get_nodes([candidate]):
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _rebuilt(runtime: Runtime, old: Node, node_id: str, records: list[Edge], extra: dict) -> Node:
    """The node ``records`` make, embedded again only when its text is not the old one's."""
    folded = mentions.fold([r.props for r in records])
    props = {**extra, "definition": folded.definition, "aliases": folded.aliases}
    if old.kind == "entity":
        props["type"] = folded.type
    text = node_text(folded.name, folded.definition)
    text_hash = hashlib.sha256(text.encode()).hexdigest()[:32]
    vectors = None if node_id == old.id and text_hash == old.text_hash else runtime.embeddings.embed([text])[:1]
    return Node(node_id, old.kind, folded.name, lookup.keyword_text(folded.name, folded.definition, folded.aliases),
                props, vectors, text_hash)



def _move_facts(store: Store, old_id: str, new_id: str, leaving: list[Edge]) -> int:
    """Move the ends of the facts that came from ``leaving`` to ``new_id``; returns how many facts moved."""
    keys = {r.props["key"] for r in leaving if r.props.get("key")}
    legacy = any(r.props.get("action") == mentions.LEGACY for r in leaving)

    def leaves(key: str | None) -> bool:
        return key in keys if key else legacy

    ids = [e.id for e in store.select_edges([old_id], type=FACT).edges]
    moved = 0
    for start in range(0, len(ids), BATCH):
        changed = []
        for e in store.get_edges(ids[start:start + BATCH]):
            src = new_id if e.src == old_id and leaves(e.props.get("subject_key")) else e.src
            dst = new_id if e.dst == old_id and leaves(e.props.get("object_key")) else e.dst
            if (src, dst) != (e.src, e.dst):
                e.src, e.dst = src, dst
                changed.append(e)
        store.upsert_edges(changed)
        moved += len(changed)
    return moved

