"""Writing document records: one transaction per call, nothing embedded twice, re-ingesting changes nothing.

A document is identified by (name, source). The same record again is
``unchanged`` and writes nothing; a changed record replaces the document's
chunks and facts (facts whose content did not change keep their stored vectors).
Texts that only depend on the input (fact sentences, mention texts) are embedded
before the transaction; resolution and every write then run inside it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path

from graphlore.contract import parse_request, quote
from graphlore.errors import InvalidInput, without_mcp_only
from graphlore.store import Edge, Node, Store
from graphlore.store.factory import EMBEDDER_META
from graphlore.tools import Progress
from graphlore.toolsets.facts import validity
from graphlore.toolsets.facts.graph import FACT, PREFIX, FactsGraph
from graphlore.toolsets.facts.models import (
    AddDocumentResponse,
    DocumentRecord,
    DocumentRef,
    DuplicateLink,
    IngestResponse,
    Resolution,
)
from graphlore.toolsets.facts.names import normalize, slug
from graphlore.toolsets.facts.resolve import (
    THRESHOLDS,
    Judge,
    Mention,
    Outcome,
    Resolver,
    TextVectors,
    Thresholds,
    duplicate_edges,
)

#: The lookup key prefix of a document's mentions: ``said:<mention key>`` (see ``retract``).
SAID = "said:"
#: Metadata flag: every document of the graph holds its ``said:`` keys (set when its first document is written).
SAID_META = "facts_said_keys"
#: A file is written in transactions of at most this many documents / facts (each batch all-or-nothing).
INGEST_BATCH_DOCUMENTS = 500
INGEST_BATCH_FACTS = 5000


def record_fields(record: DocumentRecord) -> dict:
    return record.model_dump(include=set(DocumentRecord.model_fields), mode="json")


def content_hash(record: DocumentRecord) -> str:
    return hashlib.sha256(json.dumps(record_fields(record), sort_keys=True).encode()).hexdigest()[:32]


def document_key(record: DocumentRecord) -> str:
    return "doc:" + hashlib.sha1(f"{record.name}\0{record.source}".encode()).hexdigest()[:20]


def fact_id(doc_id: str, record: DocumentRecord, index: int) -> str:
    f = record.facts[index]
    raw = json.dumps([normalize(f.subject), f.relationship, normalize(f.object), f.sentence, f.date_context, f.chunk])
    return f"{doc_id}/{hashlib.sha1(raw.encode()).hexdigest()[:16]}"


def mentions(record: DocumentRecord, document: str = "") -> list[Mention]:
    """The record's entities and topics as mentions said by ``document`` (its node id)."""
    out = [Mention("entity", e.name, e.type, e.definition, list(e.aliases), document, record.date, record.source)
           for e in record.entities]
    return out + [Mention("topic", t.name, None, t.definition, list(t.aliases), document, record.date, record.source)
                  for t in record.topics]


class Writer:
    """Writes batches of records into one graph; ``judge`` decides possible duplicates when given."""

    def __init__(self, graph: FactsGraph, judge: Judge | None = None, lines: Thresholds = THRESHOLDS) -> None:
        self.graph = graph
        self.judge = judge
        self.lines = lines
        self.vectors = TextVectors(graph.runtime.embeddings)

    def write(self, records: list[DocumentRecord]) -> list[AddDocumentResponse]:
        keys = [document_key(r) for r in records]
        if len(set(keys)) != len(keys):
            raise InvalidInput("a batch may hold each document (name, source) once")
        store = self.graph.store(create=True)
        self._embed_ahead(store, records, keys)
        with store.atomic():
            if store.get_meta(SAID_META) is None and not store.count_nodes("document"):
                store.set_meta_many({SAID_META: True, validity.VALIDITY_META: True})
            existing = self._existing(store, keys)
            changed = [i for i, r in enumerate(records)
                       if existing.get(keys[i]) is None or existing[keys[i]].props.get("content_hash") != content_hash(r)]
            taken: set[str] = set()
            doc_ids = {i: existing[keys[i]].id if existing.get(keys[i]) is not None
                       else self._document_id(store, records[i], taken) for i in changed}
            resolver = Resolver(store, self.vectors, self.judge, self.lines)
            all_mentions = [(i, m) for i in changed for m in mentions(records[i], doc_ids[i])]
            outcomes = resolver.resolve([m for _, m in all_mentions])
            per_record: dict[int, list[Outcome]] = {}
            for (i, _), outcome in zip(all_mentions, outcomes, strict=True):
                per_record.setdefault(i, []).append(outcome)
            store.upsert_nodes(resolver.nodes_to_write())
            if resolver.keys_to_add():
                store.add_node_keys(resolver.keys_to_add())
            store.upsert_edges(duplicate_edges(outcomes) + resolver.mention_edges())
            responses: dict[int, AddDocumentResponse] = {}
            self.touched: set[tuple[str, str]] = set()
            for i in changed:
                responses[i] = self._write_document(store, records[i], keys[i], doc_ids[i], existing.get(keys[i]),
                                                    per_record.get(i, []))
            validity.revalidate(store, self.touched)
            if store.get_meta(EMBEDDER_META) is None:
                self.graph.handle.record_embedder(store)
        return [responses.get(i) or self._unchanged(store, records[i], existing[keys[i]]) for i in range(len(records))]

    # -- before the transaction ------------------------------------------------------------

    def _existing(self, store: Store, keys: list[str]) -> dict[str, Node]:
        found = store.nodes_by_keys(keys, kind="document")
        nodes = {n.id: n for n in store.get_nodes([ids[0] for ids in found.values()])}
        return {k: nodes[ids[0]] for k, ids in found.items() if ids[0] in nodes}

    def _embed_ahead(self, store: Store, records: list[DocumentRecord], keys: list[str]) -> None:
        """Embed, in one batch and outside the write lock, what only depends on the input."""
        existing = self._existing(store, keys)
        texts: list[str] = []
        pending = []
        for record, key in zip(records, keys, strict=True):
            old = existing.get(key)
            if old is not None and old.props.get("content_hash") == content_hash(record):
                continue
            old_facts = set(store.edge_ids_with_prefix(old.id + "/")) if old is not None else set()
            doc_id = old.id if old is not None else "D:?"
            texts += [f.sentence for n, f in enumerate(record.facts) if fact_id(doc_id, record, n) not in old_facts]
            pending += mentions(record)
        known = store.nodes_by_keys([m.key for m in pending])
        for m in pending:
            if m.key not in known:
                texts += [m.text, m.definition]
        self.vectors.need(texts)

    # -- inside the transaction -------------------------------------------------------------

    def _write_document(self, store: Store, record: DocumentRecord, key: str, doc_id: str, old: Node | None,
                        outcomes: list[Outcome]) -> AddDocumentResponse:
        node_of = {(o.mention.kind, o.mention.name): o.node.id for o in outcomes}
        key_of = {(o.mention.kind, o.mention.name): o.mention.key for o in outcomes}
        old_chunks = set(store.node_ids_with_prefix(doc_id + "#")) if old is not None else set()
        old_facts = set(store.edge_ids_with_prefix(doc_id + "/")) if old is not None else set()
        chunk_ids = [f"{doc_id}#{i}" for i in range(len(record.chunks))]
        facts: dict[str, Edge] = {}
        for n, f in enumerate(record.facts):
            fid = fact_id(doc_id, record, n)
            ends = record.node_for(f.subject), record.node_for(f.object)
            facts[fid] = Edge(fid, node_of[ends[0]], node_of[ends[1]], FACT, {
                "relationship": f.relationship, "date_context": f.date_context or record.date,
                "chunk": chunk_ids[f.chunk], "document": doc_id,
                # which mention each end came from: a split moves the fact with it (see mentions.py)
                "subject_key": key_of[ends[0]], "object_key": key_of[ends[1]],
                "valid_from": validity.valid_from(f.date_context, record.date),
            }, f.sentence, None, record.date)
        kept = {e.id: e for e in store.get_edges([i for i in facts if i in old_facts])}
        for fid, edge in facts.items():
            before = kept.get(fid)
            edge.vector = before.vector if before is not None else None
            if edge.vector is None:
                edge.vector = self.vectors[edge.text]
            if before is not None:  # what a judge decided about an unchanged fact stays
                edge.props.update({k: before.props[k] for k in validity.JUDGE_PROPS if k in before.props})
        resolutions = [self._resolution(o) for o in outcomes]
        # a mention an earlier version of this document said keeps what that version did with it (it created
        # the node: re-written, it is matched by its key), as retract records the first document that said it
        earlier = {m.get("key"): m.get("action") for m in old.props.get("mentions", [])} if old is not None else {}
        doc = Node(doc_id, "document", record.name, "", {
            "date": record.date, "source": record.source, "content_hash": content_hash(record),
            "chunks": len(chunk_ids), "facts": len(facts),
            "mentions": [{"kind": r.kind, "name": r.name, "aliases": o.mention.aliases, "id": r.id,
                          "action": earlier.get(o.mention.key) or r.action if r.action == "matched" else r.action,
                          "key": o.mention.key}
                         for r, o in zip(resolutions, outcomes, strict=True)],
        })
        chunks = [Node(cid, "chunk", f"{record.name} #{i}", text, {"document": doc_id, "index": i})
                  for i, (cid, text) in enumerate(zip(chunk_ids, record.chunks, strict=True))]
        store.upsert_nodes([doc, *chunks])
        # said:<mention key>: which documents said a mention, in the order written (what retract reads)
        store.set_node_keys({doc_id: [key, *dict.fromkeys(SAID + o.mention.key for o in outcomes)]})
        store.delete_nodes(sorted(old_chunks - set(chunk_ids)))
        removed = sorted(old_facts - set(facts))
        self.touched.update((e.src, e.props["relationship"]) for e in store.get_edges(removed))
        store.delete_edges(removed)
        store.upsert_edges(list(facts.values()))
        self.touched.update((e.src, e.props["relationship"]) for e in facts.values())
        return AddDocumentResponse(
            graph=self.graph.name, status="updated" if old is not None else "created",
            document=DocumentRef(id=doc_id, name=record.name, date=record.date, source=record.source),
            chunks=len(chunk_ids), facts=len(facts), facts_added=len(set(facts) - old_facts),
            facts_removed=len(old_facts - set(facts)), resolutions=resolutions,
        )

    @staticmethod
    def _resolution(o: Outcome) -> Resolution:
        return Resolution(
            kind=o.mention.kind, name=o.mention.name, id=o.node.id, canonical_name=o.node.name, action=o.action,
            reason=o.reason,
            possible_duplicates=[DuplicateLink(id=n.id, name=n.name, score=max(0.0, min(1.0, d.score)), reason=d.reason)
                                 for n, d in o.links],
        )

    def _document_id(self, store: Store, record: DocumentRecord, taken: set[str]) -> str:
        base = PREFIX["document"] + slug(record.name)
        candidate, n = base, 1
        while candidate in taken or store.get_nodes([candidate]):
            n += 1
            candidate = f"{base}-{n}"
        taken.add(candidate)
        return candidate

    def _unchanged(self, store: Store, record: DocumentRecord, doc: Node) -> AddDocumentResponse:
        mentioned = doc.props.get("mentions", [])
        # The node a mention key names now (a split may have moved it); older documents stored ids only.
        by_key = store.nodes_by_keys([m["key"] for m in mentioned if m.get("key")])
        ids = [next((i for i in by_key.get(m.get("key") or "", []) if i.startswith(PREFIX[m["kind"]])), m["id"])
               for m in mentioned]
        names = {n.id: n.name for n in store.get_nodes(ids)}
        return AddDocumentResponse(
            graph=self.graph.name, status="unchanged",
            document=DocumentRef(id=doc.id, name=record.name, date=record.date, source=record.source),
            chunks=doc.props["chunks"], facts=doc.props["facts"], facts_added=0, facts_removed=0,
            resolutions=[Resolution(kind=m["kind"], name=m["name"], id=i, canonical_name=names.get(i, m["name"]),
                                    action="matched", reason="document already ingested with the same content",
                                    possible_duplicates=[])
                         for m, i in zip(mentioned, ids, strict=True)],
        )


# -- JSONL files ----------------------------------------------------------------------------------


#: Bad lines of a JSONL file listed in its error (the rest are counted).
MAX_BAD_LINES = 20


def _record(path: Path, lineno: int, line: str) -> DocumentRecord:
    """One line's record, held to the same contract as add_document (strict types, limits)."""
    where = f"{path.name}:{lineno}"
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{where} is not JSON ({exc.msg}, column {exc.colno})") from exc
    if not isinstance(data, dict):
        raise InvalidInput(f"{where} is not a JSON object")
    try:
        return parse_request(DocumentRecord, data)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {without_mcp_only(exc.raw)}") from exc


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8", errors="surrogateescape") as fh:
        for lineno, line in enumerate(fh, 1):
            if line.strip():
                yield lineno, line


def _checked(path: Path) -> int:
    """The number of records in the file, once every line is checked: a file with bad lines is refused with
    every one of them (up to :data:`MAX_BAD_LINES`, then how many more), and nothing is written."""
    count, bad = 0, []
    for lineno, line in _lines(path):
        count += 1
        try:
            _record(path, lineno, line)
        except InvalidInput as exc:
            bad.append(exc.raw)
    if bad:
        more = f"; and {len(bad) - MAX_BAD_LINES} more bad lines" if len(bad) > MAX_BAD_LINES else ""
        lines = f"{len(bad)} of its {count} lines are" if len(bad) > 1 else f"1 of its {count} lines is"
        raise InvalidInput(f"{path}: {lines} bad, so nothing was written: {'; '.join(bad[:MAX_BAD_LINES])}{more}")
    return count


def _records(path: Path) -> Iterator[tuple[int, DocumentRecord]]:
    """Each line's record (the file was checked first: see :func:`_checked`)."""
    for lineno, line in _lines(path):
        yield lineno, _record(path, lineno, line)


def ingest_file(graph: FactsGraph, path: str | Path, progress: Progress | None = None) -> IngestResponse:
    """Validate the whole file first (a bad line writes nothing), then write it batch by batch.

    Two ingests of one file into one graph (two terminals, a retried job) write one after the other:
    the second waits for the first, then finds every document unchanged and embeds nothing.
    """
    started = time.perf_counter()
    path = Path(path)
    if not path.is_file():
        raise InvalidInput(f"{quote(str(path))} is not a file; give a JSONL file with one document record per line")
    total = _checked(path)
    if not total:
        raise InvalidInput(f"{path} holds no document records (one JSON object per line)")
    key = "ingest-" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    with graph.runtime.lock(graph.namespace, key):
        return _write_file(graph, path, total, progress, started)


def _write_file(graph: FactsGraph, path: Path, total: int, progress: Progress | None, started: float) -> IngestResponse:
    writer = Writer(graph)
    outcomes: list[AddDocumentResponse] = []
    batch: list[DocumentRecord] = []
    keys: set[str] = set()

    def flush() -> None:
        outcomes.extend(writer.write(batch))
        batch.clear()
        keys.clear()
        if progress:
            progress(len(outcomes), total, "documents written")

    for _, record in _records(path):
        key = document_key(record)
        facts = sum(len(r.facts) for r in batch)
        if batch and (key in keys or len(batch) >= INGEST_BATCH_DOCUMENTS or facts + len(record.facts) > INGEST_BATCH_FACTS):
            flush()
        batch.append(record)
        keys.add(key)
    if batch:
        flush()
    if not outcomes:
        raise InvalidInput(f"{path} holds no document records (one JSON object per line)")
    return summarize(graph.name, str(path), outcomes, writer.vectors.embedded, started)


def summarize(graph: str, file: str, outcomes: list[AddDocumentResponse], embedded: int, started: float) -> IngestResponse:
    created = [r for o in outcomes for r in o.resolutions if o.status != "unchanged" and r.action == "created"]
    return IngestResponse(
        graph=graph, file=file, documents=len(outcomes),
        created=sum(o.status == "created" for o in outcomes), updated=sum(o.status == "updated" for o in outcomes),
        unchanged=sum(o.status == "unchanged" for o in outcomes),
        facts_added=sum(o.facts_added for o in outcomes), facts_removed=sum(o.facts_removed for o in outcomes),
        entities_created=sum(r.kind == "entity" for r in created), topics_created=sum(r.kind == "topic" for r in created),
        merged=sum(r.action == "merged" for o in outcomes if o.status != "unchanged" for r in o.resolutions),
        embedded_texts=embedded, duration_ms=int((time.perf_counter() - started) * 1000), outcomes=outcomes,
    )
