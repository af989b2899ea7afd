"""``merge``: join two nodes an agent knows are one (the inverse of ``split``).

The node that joins (``other``) gives the one that stays (``name``) every mention record it holds
(renumbered after the stayer's), its lookup keys, its facts (either end) and its possible-duplicate
links (the link between the two goes; where both link to one node, the stayer's link stays as it was,
with any decision recorded on it); the stayer is rebuilt from all the records (:func:`mentions.fold`,
the rule resolution applies) and the joiner's id is gone. The timelines of functional relationships of
the merged node, and of the subjects whose facts name it, are computed again (:mod:`validity`). One
transaction.

What the two nodes were is kept on the stayer (prop ``merged``: the joiner's id -> both nodes as they
were, their keys, the joiner's records and links), so ``split`` with exactly the joiner's mentions puts
both back as they were (:func:`restore`): ids, names, definitions, keys, records, facts and links. A side
whose records changed since (a retraction took a document's names back, a document added names) is made
from its records as they are now, on its saved id, so a snapshot never brings back what a retraction took.
A split of other mentions, or after more mentions joined, rebuilds as ``split`` always does.
"""

from __future__ import annotations

import hashlib

import numpy as np

from graphlore.errors import InvalidInput
from graphlore.runtime import Runtime
from graphlore.store import Edge, Node, Store
from graphlore.toolsets.facts import lookup, mentions, validity
from graphlore.toolsets.facts.graph import DUPLICATE, FACT, FactsGraph, node_text
from graphlore.toolsets.facts.mentions import node_records
from graphlore.toolsets.facts.models import MergeRequest, MergeResponse, NodeRef, SplitNode

#: The node prop that keeps what a merge joined (see the module docstring).
MERGED = "merged"


def merge(runtime: Runtime, request: MergeRequest) -> MergeResponse:
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    stay_ref, _ = graph.resolve(store, request.name, None)
    join_ref, _ = graph.resolve(store, request.other, None)
    if stay_ref.id == join_ref.id:
        raise InvalidInput(f"{request.name!r} and {request.other!r} are one node already ({stay_ref.id})")
    if stay_ref.kind != join_ref.kind:
        raise InvalidInput(f"{stay_ref.name} ({stay_ref.id}) is {'an' if stay_ref.kind == 'entity' else 'a'} "
                           f"{stay_ref.kind} and {join_ref.name} ({join_ref.id}) {'an' if join_ref.kind == 'entity' else 'a'} "
                           f"{join_ref.kind}: only nodes of one kind merge")
    with store.atomic():
        stay, join = store.get_nodes([stay_ref.id, join_ref.id], with_vectors=True)
        records, joining = node_records(store, stay.id), node_records(store, join.id)
        for node, held in ((stay, records), (join, joining)):
            if not held:
                raise InvalidInput(f"{node.name} ({node.id}) has no mention records (written before graphlore kept "
                                   "them): it cannot be merged and split again; add a document that mentions it first")
        keys = store.node_keys([stay.id, join.id])
        links = [e for e in store.get_edges([r.id for r in store.select_edges([join.id], type=DUPLICATE).edges])]
        # the joiner's links go to the stayer, but for a node the stayer links to already: the stayer's link
        # (and any decision recorded on it) stays as it is
        linked = {e.dst if e.src == stay.id else e.src for e in store.edges_of([stay.id], direction="both",
                                                                             types=[DUPLICATE]).edges}
        relinked = []
        for e in links:
            other = e.dst if e.src == join.id else e.src
            if other != stay.id and other not in linked:
                a, b = sorted((stay.id, other))
                relinked.append(Edge(f"dup:{a}|{b}", a, b, DUPLICATE, e.props))
        saved = {"stay": _snapshot(stay, keys.get(stay.id, [])), "join": _snapshot(join, keys.get(join.id, [])),
                 "records": {r.id: r.props for r in joining}, "stay_records": [r.id for r in records],
                 "links": [_edge_json(e) for e in links], "relinked": [e.id for e in relinked]}
        seq = max(r.props.get("n", 0) for r in records)
        moved_records = []
        for i, r in enumerate(joining, 1):
            moved_records.append(mentions.edge(stay.id, {**r.props, "n": seq + i}, r.dst, r.date))
        everything = records + moved_records
        folded = mentions.fold([r.props for r in everything])
        props = {k: v for k, v in stay.props.items() if k not in ("definition", "aliases", "type", "mention_seq")}
        props.update(definition=folded.definition, aliases=folded.aliases, mention_seq=seq + len(joining))
        if stay.kind == "entity":
            props["type"] = folded.type
        apart = {k: v for k, v in props.get("kept_apart", {}).items() if k != join.id}
        props.pop("kept_apart", None)
        if apart:
            props["kept_apart"] = apart
        props[MERGED] = {**props.get(MERGED, {}), join.id: saved}
        merged = _node(runtime, stay, stay.id, folded.name, folded.definition, folded.aliases, props)
        store.upsert_nodes([merged])
        store.add_node_keys({stay.id: keys.get(join.id, [])})
        store.upsert_edges(moved_records)
        facts = store.get_edges([r.id for r in store.select_edges([join.id], type=FACT).edges])
        for e in facts:
            e.src = stay.id if e.src == join.id else e.src
            e.dst = stay.id if e.dst == join.id else e.dst
        store.upsert_edges(facts)
        store.delete_nodes([join.id])  # its keys, and what still pointed to it (the link between the two)
        store.upsert_edges(relinked)
        # every timeline a moved fact is in (its subject may be another node, the joiner its object) and the
        # stayer's own
        changed = validity.revalidate(store, {(e.src, e.props["relationship"]) for e in facts}
                                      | _relationships(store, stay.id))
    return MergeResponse(
        graph=graph.name, merged=summary(store, merged, everything),
        removed=NodeRef(id=join.id, name=join.name, kind=join.kind),
        joined_mentions=[mentions.short_id(r.props) for r in joining], facts_moved=len(facts), validity_changed=changed)


def restore(runtime: Runtime, store: Store, node: Node, leaving: list[Edge]) -> tuple[Node, Node, int] | None:
    """Undo a ``merge`` when ``leaving`` are exactly the records it joined: both nodes as they were (the
    stayer as well when no mention joined it since), inside the caller's transaction. Returns (stayer,
    joiner, facts moved), or None when ``leaving`` is not a merge's."""
    joined = node.props.get(MERGED, {})
    ids = {r.id for r in leaving}
    found = next(((j, s) for j, s in joined.items() if set(s["records"]) == ids), None)
    if found is None:
        return None
    join_id, saved = found
    if store.get_nodes([join_id]):
        return None
    staying = [r for r in node_records(store, node.id) if r.id not in ids]
    before = saved["stay"] if ([r.id for r in staying] == saved["stay_records"]
                               and _folds_to(staying, saved["stay"])) else None
    # a record the joiner brought that changed since (a retraction took names back, a document added some):
    # the joiner is made from its records as they are, on its id
    fresh = all(_unnumbered(saved["records"][r.id]) == _unnumbered(r.props) for r in leaving)
    join = _restored(runtime, saved["join"]) if fresh else _folded(runtime, saved["join"], leaving)
    if before is not None:
        stay = _restored(runtime, before, node)
        rest = {k: v for k, v in joined.items() if k != join_id}
        stay.props.pop(MERGED, None)
        if rest:
            stay.props[MERGED] = rest
    else:
        folded = mentions.fold([r.props for r in staying])
        props = {k: v for k, v in node.props.items() if k not in ("definition", "aliases", "type", MERGED)}
        props.update(definition=folded.definition, aliases=folded.aliases)
        if node.kind == "entity":
            props["type"] = folded.type
        rest = {k: v for k, v in joined.items() if k != join_id}
        if rest:
            props[MERGED] = rest
        stay = _node(runtime, node, node.id, folded.name, folded.definition, folded.aliases, props)
    store.upsert_nodes([stay, join])
    store.set_node_keys({node.id: before["keys"] if before is not None else mentions.lookup_keys(staying),
                         join_id: saved["join"]["keys"] if fresh else mentions.lookup_keys(leaving)})
    store.upsert_edges([mentions.edge(join_id, {**r.props, "n": saved["records"][r.id].get("n", 0)}, r.dst, r.date)
                        for r in leaving])
    keys = {r.props["key"] for r in leaving if r.props.get("key")}
    facts = store.get_edges([r.id for r in store.select_edges([node.id], type=FACT).edges])
    moved = []
    for e in facts:
        src = join_id if e.src == node.id and e.props.get("subject_key") in keys else e.src
        dst = join_id if e.dst == node.id and e.props.get("object_key") in keys else e.dst
        if (src, dst) != (e.src, e.dst):
            e.src, e.dst = src, dst
            moved.append(e)
    store.upsert_edges(moved)
    links = [_edge_from(d) for d in saved["links"]]
    made = saved.get("relinked")  # the links the merge made (a merge recorded before them: every moved link's)
    if made is None:
        made = [f"dup:{'|'.join(sorted((node.id, e.dst if e.src == join_id else e.src)))}" for e in links
                if node.id not in (e.src, e.dst)]
    store.delete_edges(made)
    store.upsert_edges(links)
    validity.revalidate(store, {(e.src, e.props["relationship"]) for e in facts})
    return stay, join, len(moved)


def _unnumbered(props: dict) -> dict:
    """A record's props but its number and free-text reason (what a rebuild may renumber or reword)."""
    return {k: v for k, v in props.items() if k not in ("n", "reason")}


def _folds_to(records: list[Edge], saved: dict) -> bool:
    """Whether ``records`` still make the node ``saved`` keeps (its names, definition and type)."""
    folded = mentions.fold([r.props for r in records])
    props = saved["props"]
    return (folded.name, folded.aliases, folded.definition, folded.type) == (
        saved["name"], props.get("aliases"), props.get("definition"), props.get("type"))


def _folded(runtime: Runtime, saved: dict, records: list[Edge]) -> Node:
    """The node ``saved`` keeps (its id and other props) as ``records`` make it now."""
    folded = mentions.fold([r.props for r in records])
    props = {k: v for k, v in saved["props"].items() if k not in ("definition", "aliases", "type")}
    props.update(definition=folded.definition, aliases=folded.aliases)
    if saved["kind"] == "entity":
        props["type"] = folded.type
    text = node_text(folded.name, folded.definition)
    return Node(saved["id"], saved["kind"], folded.name, lookup.keyword_text(folded.name, folded.definition,
                                                                           folded.aliases), props,
                np.asarray(runtime.embeddings.embed([text]))[:1], hashlib.sha256(text.encode()).hexdigest()[:32])


def _relationships(store: Store, node_id: str) -> set[tuple[str, str]]:
    page = store.edges_of([node_id], direction="out", types=[FACT])
    return {(node_id, e.props["relationship"]) for e in page.edges}


def _snapshot(node: Node, keys: list[str]) -> dict:
    return {"id": node.id, "kind": node.kind, "name": node.name, "text": node.text, "props": node.props,
            "text_hash": node.text_hash, "keys": keys}


def _restored(runtime: Runtime, saved: dict, current: Node | None = None) -> Node:
    """The node a snapshot keeps, its vector embedded again unless ``current`` holds the same text."""
    props = dict(saved["props"])
    if current is not None and current.text_hash == saved["text_hash"] and current.vectors is not None:
        vectors = current.vectors
    else:
        vectors = np.asarray(runtime.embeddings.embed([node_text(saved["name"], props.get("definition", ""))]))[:1]
    return Node(saved["id"], saved["kind"], saved["name"], saved["text"], props, vectors, saved["text_hash"])


def _node(runtime: Runtime, old: Node, node_id: str, name: str, definition: str, aliases: list[str],
          props: dict) -> Node:
    text = node_text(name, definition)
    text_hash = hashlib.sha256(text.encode()).hexdigest()[:32]
    vectors = (old.vectors if text_hash == old.text_hash and old.vectors is not None
               else np.asarray(runtime.embeddings.embed([text]))[:1])
    return Node(node_id, old.kind, name, lookup.keyword_text(name, definition, aliases), props, vectors, text_hash)


def _edge_json(e: Edge) -> dict:
    return {"id": e.id, "src": e.src, "dst": e.dst, "type": e.type, "props": e.props}


def _edge_from(d: dict) -> Edge:
    return Edge(d["id"], d["src"], d["dst"], d["type"], d["props"])


def summary(store: Store, node: Node, records: list[Edge]) -> SplitNode:
    """A node as split and merge answer with it: its fields, mention ids and how many facts it takes part in."""
    return SplitNode(id=node.id, name=node.name, type=node.props.get("type"), definition=node.props["definition"],
                     aliases=node.props["aliases"], mentions=[mentions.short_id(r.props) for r in records],
                     facts=store.select_edges([node.id], type=FACT, limit=0).total)
