"""``retract``: take one document back, so the graph is what it would be had it never been ingested.

The document's chunks, facts, node and lookup keys go. What it said about entities and topics is
undone through the mention records (:mod:`mentions`) and the ``said:<mention key>`` lookup keys every
document holds (which documents said a mention, in the order they were written):

- a record only this document said goes; one another document also said stays, pointing to the first
  of them (its date), with the names those documents gave;
- a node left without records goes (with its possible-duplicate links); a node that lost a record is
  rebuilt from the records it keeps, resolved again among themselves in the order they were made
  (:func:`resolve.decide`, the rule the writes applied, each record said by the document that first said it,
  with that document's source): a record that merged only because of what the
  retracted document added (an alias, a longer definition) no longer merges and becomes a node of its
  own (linked as a possible duplicate when the rule says so), with the id resolution would have given
  it. A node whose first record went takes the id its new first record would have created;
- facts of those nodes follow their mentions (``subject_key`` / ``object_key``);
- the timelines of functional relationships the document touched are computed again, and the facts a
  contradiction judge ended on its subjects (:mod:`validity`), so what its facts ended holds again.

All in one transaction. What it cannot restore: a merge an LLM judge decided (without the judge, the
records are resolved again by the rule), and a document id that took a ``-2`` suffix because the
retracted document held the name first keeps it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from graphlore.errors import InvalidInput, NotFound
from graphlore.runtime import Runtime
from graphlore.store import Edge, Node, Store
from graphlore.toolsets.facts import lookup, mentions, validity
from graphlore.toolsets.facts.graph import DUPLICATE, FACT, PREFIX, FactsGraph, node_text
from graphlore.toolsets.facts.models import DocumentRef, NodeRef, RetractRequest, RetractResponse
from graphlore.toolsets.facts.names import slug
from graphlore.toolsets.facts.resolve import (
    THRESHOLDS,
    Decision,
    Mention,
    NodeState,
    decide,
    duplicate_edge,
)
from graphlore.toolsets.facts.write import SAID, SAID_META

#: Documents listed when a name names none or several.
LISTED = 10


def retract(runtime: Runtime, request: RetractRequest) -> RetractResponse:
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    with store.atomic():
        doc = find_document(store, request.document)
        undo = Undo(runtime, store, doc)
        undo.run()
    return RetractResponse(
        graph=graph.name,
        document=DocumentRef(id=doc.id, name=doc.name, date=doc.props.get("date", ""),
                             source=doc.props.get("source", "")),
        chunks_removed=undo.chunks, facts_removed=undo.facts, mentions_removed=undo.records_removed,
        nodes_removed=undo.removed, nodes_rebuilt=undo.rebuilt, came_apart=undo.apart,
        validity_changed=undo.validity_changed,
    )


def find_document(store: Store, given: str) -> Node:
    """The document ``given`` names: its id (``D:...``) or its name (exactly; several with that name from
    different sources: an error listing their ids)."""
    text = given.strip()
    if text.startswith(PREFIX["document"]):
        found = [n for n in store.get_nodes([text]) if n.kind == "document"]
        if found:
            return found[0]
    hits = store.keyword_search(text, kind="document", limit=100)
    nodes = store.get_nodes([h.id for h in hits])
    same = [n for n in nodes if n.name == text] or [n for n in nodes if n.name.casefold() == text.casefold()]
    if len(same) == 1:
        return same[0]
    if same:
        listed = "; ".join(f"{n.id} (source {n.props.get('source') or '(none)'}, {n.props.get('date')})"
                           for n in same[:LISTED])
        raise InvalidInput(f"{len(same)} documents are named {text!r}; retract one by its id: {listed}")
    near = ", ".join(f"{n.name!r} ({n.id})" for n in nodes[:LISTED])
    raise NotFound(f"no document named {text!r} in this graph" + (f"; near: {near}" if near else
                                                                    "; ls documents lists them"))


@dataclass
class Undo:
    runtime: Runtime
    store: Store
    doc: Node
    chunks: int = 0
    facts: int = 0
    records_removed: int = 0
    validity_changed: int = 0
    removed: list[NodeRef] = field(default_factory=list)
    rebuilt: list[NodeRef] = field(default_factory=list)
    apart: list[NodeRef] = field(default_factory=list)
    _scanned: dict[str, dict[str, Node]] | None = None
    #: records whose first document is another one now
    _new_first: set[str] = field(default_factory=set)

    def run(self) -> None:
        store, doc = self.store, self.doc
        said = [m["key"] for m in self.doc.props.get("mentions", []) if m.get("key")]
        # records that still point to it for a mention an earlier version of it said (re-ingested since)
        pointing = store.get_edges([r.id for r in store.select_edges([doc.id], type=mentions.MENTION).edges])
        said = list(dict.fromkeys([*said, *(e.props["key"] for e in pointing if e.dst == doc.id and e.props.get("key"))]))
        facts = store.get_edges(store.edge_ids_with_prefix(doc.id + "/"))
        touched = {(e.src, e.props["relationship"]) for e in facts}
        records = {e.id: e for e in store.get_edges([mentions.edge_id(k) for k in said])}
        sayers = {k: self._sayers(k) for k in said}
        changed: dict[str, Edge] = {}  # record id -> the record as it stays
        gone: set[str] = set()
        for key in said:
            record = records.get(mentions.edge_id(key))
            if record is None:
                continue
            others = sayers[key]
            if not others:
                gone.add(record.id)
                continue
            first = others[0]
            names = [n for d in others for m in d.props.get("mentions", []) if m.get("key") == key
                     for n in [m["name"], *m.get("aliases", [])]]
            if record.dst != first.id:
                self._new_first.add(record.id)
            record.dst, record.date = first.id, first.props.get("date")
            if all("aliases" in m for d in others for m in d.props.get("mentions", []) if m.get("key") == key):
                record.props["names"] = list(dict.fromkeys(names))
            changed[record.id] = record
        affected = sorted({r.src for r in records.values()})
        self.records_removed = len(gone)
        self.facts = store.delete_edges([e.id for e in facts])
        chunk_ids = store.node_ids_with_prefix(doc.id + "#")
        self.chunks = len(chunk_ids)
        store.delete_nodes([*chunk_ids, doc.id])  # its records' edges go with it; those that stay come back
        moved: dict[str, str] = {}
        befores = {node_id: _records(store, node_id, records) for node_id in affected}
        rank = self._written_order({r.dst for rs in befores.values() for r in rs if r.dst})
        for node_id, before in befores.items():
            # in the order they were said (a record whose first document went moved on to the next one)
            kept = sorted((changed.get(r.id, r) for r in before if r.id not in gone),
                          key=lambda r: rank.get((r.dst, r.props.get("key")), (-1, r.props.get("n", 0))))
            touched.update(self._rebuild(node_id, kept, before[0].id, moved))
        self.validity_changed = validity.revalidate(
            store, {(moved.get(s, s), r) for s, r in touched})

    def _written_order(self, doc_ids: set[str]) -> dict[tuple[str, str], tuple[int, int]]:
        """(document, mention key) -> (the document's place in the order written, the mention's place in it)."""
        docs = self.store.get_nodes(sorted(doc_ids - {self.doc.id}))
        doc_keys = [k for keys in self.store.node_keys([d.id for d in docs]).values() for k in keys
                    if k.startswith("doc:")]
        _, ordered = self.store.nodes_with_keys("document", [doc_keys])
        place = {d: i for i, d in enumerate(ordered)}
        return {(d.id, m.get("key")): (place.get(d.id, -1), j)
                for d in docs for j, m in enumerate(d.props.get("mentions", []))}

    def _sayers(self, key: str) -> list[Node]:
        """The other documents that said ``key``, in the order they were written (a graph with documents
        written before ``said:`` keys: read from every document once)."""
        if not self.store.get_meta(SAID_META):
            if self._scanned is None:
                self._scanned = {}
                for doc in self.store.iter_nodes("document"):
                    for m in doc.props.get("mentions", []):
                        if m.get("key") and doc.id != self.doc.id:
                            self._scanned.setdefault(m["key"], {})[doc.id] = doc
            return list(self._scanned.get(key, {}).values())
        _, ids = self.store.nodes_with_keys("document", [[SAID + key]])
        return self.store.get_nodes([i for i in ids if i != self.doc.id])

    def _rebuild(self, node_id: str, records: list[Edge], first_id: str, moved: dict[str, str]
                 ) -> set[tuple[str, str]]:
        """Rebuild one node that lost records (``first_id``: the record that created it); returns the
        (subject, relationship) pairs of the facts it moved."""
        store = self.store
        [old] = store.get_nodes([node_id], with_vectors=True)
        if not records:
            store.delete_nodes([node_id])
            self.removed.append(NodeRef(id=node_id, name=old.name, kind=old.kind))
            return set()
        actions = {r.id: r.props.get("action") for r in records}
        groups, links = self._regroup(old, records)
        ids: list[str] = []
        for i, group in enumerate(groups):
            keeps_id = i == 0 and group[0].id == first_id
            ids.append(node_id if keeps_id else _allocate(store, old.kind, group[0].props["names"][0], {node_id}, ids))
        if ids[0] != node_id:
            moved[node_id] = ids[0]
        key_home = {r.props["key"]: new_id for g, new_id in zip(groups, ids, strict=True) for r in g
                    if r.props.get("key")}
        facts = store.get_edges([r.id for r in store.select_edges([node_id], type=FACT).edges])
        old_links = store.get_edges([r.id for r in store.select_edges([node_id], type=DUPLICATE).edges])
        written = [self._node(old, new_id, group, keep_props=i == 0)
                   for i, (group, new_id) in enumerate(zip(groups, ids, strict=True))]
        if node_id not in ids:
            store.delete_nodes([node_id])  # its facts, records and links are written again below
        store.upsert_nodes(written)
        store.set_node_keys({n: mentions.lookup_keys(g) for n, g in zip(ids, groups, strict=True)})
        store.upsert_edges([r for g, new_id in zip(groups, ids, strict=True) for r in _renumbered(g, new_id, old.kind)])
        store.upsert_edges(self._links(node_id, ids, links, old_links))
        self._documents(groups, ids, node_id, actions)
        for node in written:
            ref = NodeRef(id=node.id, name=node.name, kind=node.kind)
            (self.rebuilt if node.id == ids[0] else self.apart).append(ref)
        touched, out = set(), []
        for e in facts:
            src = key_home.get(e.props.get("subject_key"), ids[0]) if e.src == node_id else e.src
            dst = key_home.get(e.props.get("object_key"), ids[0]) if e.dst == node_id else e.dst
            if (src, dst) != (e.src, e.dst) or node_id not in ids:
                touched.update({(e.src, e.props["relationship"]), (src, e.props["relationship"])})
                e.src, e.dst = src, dst
                out.append(e)
        store.upsert_edges(out)
        return touched

    def _documents(self, groups: list[list[Edge]], ids: list[str], node_id: str, actions: dict[str, str]) -> None:
        """What the documents that said the groups' mentions record of them: the node each went to, and
        the first one's action (a mention another document created first is ``matched`` by later ones).
        Only mentions whose node, action or first document changed are looked at."""
        changed: dict[str, Node] = {}
        for group, new_id in zip(groups, ids, strict=True):
            for r in group:
                key = r.props.get("key")
                if not key or (new_id == node_id and actions.get(r.id) == r.props.get("action")
                               and r.id not in self._new_first):
                    continue
                for n, doc in enumerate(self._sayers(key)):
                    doc = changed.get(doc.id, doc)
                    for m in doc.props.get("mentions", []):
                        if m.get("key") != key:
                            continue
                        want = {"id": new_id, **({"action": r.props["action"]} if n == 0 else {})}
                        if any(m.get(k) != v for k, v in want.items()):
                            m.update(want)
                            changed[doc.id] = doc
        self.store.upsert_nodes(list(changed.values()))

    def _regroup(self, old: Node, records: list[Edge]) -> tuple[list[list[Edge]], list[tuple[int, int, Decision]]]:
        """The records resolved again among themselves, in the order made: groups (the first holds the
        first record) and the possible-duplicate decisions between a group and an earlier one."""
        embed = self.runtime.embeddings.embed
        # the rules that read which document and source said a record (resolve.listed_apart, the one-source
        # platform rule) read them here as the write did: a record's document is the one that first said it
        sources = {d.id: d.props.get("source", "") for d in self.store.get_nodes(sorted({r.dst for r in records if r.dst}))}
        groups: list[list[Edge]] = []
        links: list[tuple[int, int, Decision]] = []
        for record in records:
            if not groups or record.props.get("action") == mentions.LEGACY:
                (groups[0].append(record) if groups else groups.append([record]))
                continue
            p = record.props
            mention = Mention(old.kind, p["names"][0], p.get("type"), p["definition"], p["names"][1:], record.dst,
                              record.date, sources.get(record.dst, ""))
            states = [_state(old, g) for g in groups]
            vectors = embed([mention.text, mention.definition, *(s.text for s in states),
                             *(s.definition for s in states)])
            n = len(states)
            texts = [float(vectors[0] @ vectors[2 + j]) for j in range(n)]
            definitions = [float(vectors[1] @ vectors[2 + n + j]) for j in range(n)]
            judged = []
            for j, state in enumerate(states):
                d = decide(mention, state, texts[j], lambda d=definitions[j]: d, lambda code: True, THRESHOLDS,
                           lambda g=groups[j]: {sources.get(r.dst, "") for r in g} - {""})
                if d.action != "separate":
                    judged.append((j, d))
            merges = sorted((x for x in judged if x[1].action == "merge"), key=lambda x: (-x[1].score, x[0]))
            if merges:
                j, d = merges[0]
                p["action"], p["reason"] = "merged", d.reason
                groups[j].append(record)
                continue
            best = sorted(judged, key=lambda x: (-x[1].score, x[0]))[:THRESHOLDS.max_duplicate_links]
            p["action"] = "created"
            p["reason"] = f"new {old.kind}" + (
                f"; possible duplicate of {states[best[0][0]].name} ({best[0][1].reason})" if best else "")
            groups.append([record])
            links += [(len(groups) - 1, j, d) for j, d in best]
        return groups, links

    def _node(self, old: Node, node_id: str, group: list[Edge], keep_props: bool) -> Node:
        folded = mentions.fold([r.props for r in group])
        props = {k: v for k, v in old.props.items() if keep_props and k not in ("definition", "aliases", "type",
                                                                                "mention_seq")}
        props.update(definition=folded.definition, aliases=folded.aliases)
        if old.kind == "entity":
            props["type"] = folded.type
        keyed = [r for r in group if r.props.get("key")]
        props["mention_seq"] = len(keyed) + (1 if len(keyed) < len(group) else 0)
        text = node_text(folded.name, folded.definition)
        text_hash = hashlib.sha256(text.encode()).hexdigest()[:32]
        vectors = (old.vectors if node_id == old.id and text_hash == old.text_hash and old.vectors is not None
                   else np.asarray(self.runtime.embeddings.embed([text]))[:1])
        return Node(node_id, old.kind, folded.name, lookup.keyword_text(folded.name, folded.definition, folded.aliases),
                    props, vectors, text_hash)

    def _links(self, node_id: str, ids: list[str], links: list[tuple[int, int, Decision]], old: list[Edge]
               ) -> list[Edge]:
        """Links the regrouping found, and the node's links on the id its first group has now."""
        out = []
        for a, b, d in links:
            out.append(duplicate_edge(ids[a], ids[b], d))
        if ids[0] != node_id:
            self.store.delete_edges([e.id for e in old])
            for e in old:
                x, y = sorted((ids[0], e.dst if e.src == node_id else e.src))
                out.append(Edge(f"dup:{x}|{y}", x, y, DUPLICATE, e.props))
        return out


def _records(store: Store, node_id: str, known: dict[str, Edge]) -> list[Edge]:
    """The node's records as they were before the retraction (the document's deleted ones from ``known``)."""
    refs = store.select_edges([node_id], type=mentions.MENTION).edges
    stored = {e.id: e for e in store.get_edges([r.id for r in refs]) if e.src == node_id}
    stored.update({i: e for i, e in known.items() if e.src == node_id})
    return sorted(stored.values(), key=lambda e: e.props.get("n", 0))


def _state(old: Node, group: list[Edge]) -> NodeState:
    """The node ``group`` makes, as a write would see it had it created the node (its records, the first
    one's document first)."""
    folded = mentions.fold([r.props for r in group])
    return NodeState(old.id, old.kind, folded.name, folded.type, folded.definition, folded.aliases,
                     records=[(r.props, r.dst, r.date) for r in group])


def _allocate(store: Store, kind: str, name: str, free: set[str], taken: list[str]) -> str:
    base = PREFIX[kind] + slug(name)
    candidate, n = base, 1
    while candidate in taken or (candidate not in free and store.get_nodes([candidate])):
        n += 1
        candidate = f"{base}-{n}"
    return candidate



def _renumbered(group: list[Edge], node_id: str, kind: str) -> list[Edge]:
    """The group's records on ``node_id``, numbered in order (the first ``created``)."""
    n = 1 if any(r.props.get("action") == mentions.LEGACY for r in group) else 0
    for r in group:
        r.src = node_id
        if r.props.get("action") != mentions.LEGACY:
            n += 1
            r.props["n"] = n
    if group[0].props.get("action") == "merged":  # what merged into a mention that was retracted
        group[0].props.update(action="created", reason=f"new {kind}")
    return group
