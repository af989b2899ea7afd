"""The facts tools. Each takes the runtime and a validated request and returns a response model.

Scores are cosine similarities clipped to [0, 1]: in ``find`` between
``"{name}: {definition}"`` of the selector and of the node (the list itself is in
the fused keyword + vector order of :func:`graphlore.search.hybrid_search_many`, nodes
carrying a code of the selector's name first: see :mod:`lookup`), in ``search
--query`` between the query and the fact's sentence.

``find`` marks candidates below :data:`FIND_WEAK_FLOOR` as weak: probably not what the selector
means (the floor keeps true matches above it and flags most things a graph does not hold; the
measurement is in bench/README.md, ``bench/facts_find_floor.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from graphlore.errors import InvalidInput, NotFound
from graphlore.llm import required
from graphlore.runtime import Runtime
from graphlore.search import HybridParams, cosine_to_unit, hybrid_search_many
from graphlore.store import Edge, Hit, Node, Store
from graphlore.tools import CallContext, Progress
from graphlore.toolsets.facts import extract, lookup, mentions, sessions, validity
from graphlore.toolsets.facts.graph import DUPLICATE, FACT, FactsGraph, node_text
from graphlore.toolsets.facts.links import state as link_state
from graphlore.toolsets.facts.mentions import node_records
from graphlore.toolsets.facts.models import (
    DEFAULT_GRAPH,
    GRAPH_PATTERN,
    AddDocumentRequest,
    AddDocumentResponse,
    Candidate,
    CatItem,
    CatRequest,
    CatResponse,
    DocumentRecord,
    DocumentRef,
    DuplicateLink,
    EndedBy,
    ExtractDocumentRequest,
    ExtractDocumentResponse,
    FactOut,
    FindRequest,
    FindResponse,
    InfoRequest,
    InfoResponse,
    IngestRequest,
    IngestResponse,
    LsRequest,
    LsResponse,
    LsRow,
    MentionOut,
    Neighbour,
    NodeRef,
    NodeSummary,
    RelationSetRequest,
    RelationSetResponse,
    ResolvedName,
    SearchRequest,
    SearchResponse,
    SearchSummary,
    Selector,
    SelectorMatches,
    StatsRequest,
    StatsResponse,
)
from graphlore.toolsets.facts.names import code_keys
from graphlore.toolsets.facts.write import Writer, ingest_file, record_fields

#: Candidates per find selector; neighbours and latest facts shown by info.
FIND_CANDIDATES = 5
#: A find candidate scoring below this is marked weak (measured: bench/README.md, facts_find_floor).
FIND_WEAK_FLOOR = 0.5
INFO_NEIGHBOURS = 5
INFO_LATEST = 5
#: Mention records info lists (newest first).
INFO_MENTIONS = 20
#: How ``search --query`` ranks the selected facts (keyword, vector weights of ``Store.rank_edges``): BM25 of
#: the query over the selected sentences (scaled to the best one) fused with the cosine of query and sentence
#: (measured in bench/README.md, ``bench/facts_search_fusion.py``).
QUERY_WEIGHTS = (0.3, 0.7)


def _unit(score: float) -> float:
    return max(0.0, min(1.0, float(score)))


def _facts_out(store: Store, edges: list[Edge], scores: dict[str, float] | None = None,
               numbered: bool = True) -> list[FactOut]:
    nodes = {n.id: n for n in store.get_nodes(list({i for e in edges for i in (e.src, e.dst, e.props["document"])}))}

    def ref(node_id: str) -> NodeRef:
        node = nodes.get(node_id)
        return NodeRef(id=node_id, name=node.name if node else node_id, kind=node.kind if node else "entity")

    out = []
    for i, e in enumerate(edges, 1):
        doc = nodes.get(e.props["document"])
        out.append(FactOut(
            number=i if numbered else 0, id=e.id, date=e.date or "", subject=ref(e.src),
            relationship=e.props["relationship"], object=ref(e.dst), sentence=e.text,
            date_context=e.props.get("date_context", ""),
            document=DocumentRef(id=e.props["document"], name=doc.name if doc else "", date=e.date or "",
                                 source=doc.props.get("source", "") if doc else ""),
            score=None if scores is None else _unit(scores.get(e.id, 0.0)),
            valid_from=validity.fact_start(e), valid_to=e.props.get("valid_to"),
            ended_by=EndedBy.model_validate(e.props["ended_by"]) if e.props.get("ended_by") else None,
        ))
    return out


# -- find --------------------------------------------------------------------------------------------


def find(runtime: Runtime, request: FindRequest, ranking: HybridParams = lookup.FIND) -> FindResponse:
    """Each selector's best candidates of its kind (``ranking``: how BM25 and the cosine are fused)."""
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    selectors = [("entity", s) for s in request.entity] + [("topic", s) for s in request.topic]
    vectors = runtime.embeddings.embed([node_text(s.name.strip(), s.definition.strip()) for _, s in selectors])
    ranked = _ranked(store, selectors, vectors, ranking)
    nodes = {n.id: n for n in store.get_nodes(list({h.id for row in ranked for h in row}))}
    out: dict[str, list[SelectorMatches]] = {"entity": [], "topic": []}
    for (kind, selector), row in zip(selectors, ranked, strict=True):
        out[kind].append(SelectorMatches(name=selector.name, id=selector.id, candidates=[
            Candidate(id=h.id, name=nodes[h.id].name, type=nodes[h.id].props.get("type"), score=h.score,
                      weak=h.score < FIND_WEAK_FLOOR)
            for h in row if h.id in nodes
        ]))
    return FindResponse(graph=graph.name, entities=out["entity"], topics=out["topic"])


def _ranked(store: Store, selectors: list[tuple[str, Selector]], vectors: np.ndarray,
            ranking: HybridParams) -> list[list[Hit]]:
    """The FIND_CANDIDATES best nodes of each selector's kind: :func:`hybrid_search_many` (BM25 over name,
    aliases, definition and codes, fused with the cosine ranking, all selectors' vectors scanned in one
    pass; see :mod:`lookup`), then the nodes whose names carry a strong code of the selector's name first.
    Scores are the clipped cosines."""
    texts = [lookup.keyword_query(s.name.strip()) for _, s in selectors]
    fused_rows = hybrid_search_many(store, texts, vectors, kinds=[k for k, _ in selectors], limit=ranking.candidates,
                                    params=ranking)
    out = []
    for (kind, selector), vector, fused in zip(selectors, vectors, fused_rows, strict=True):
        coded = [i for ids in store.nodes_by_keys(code_keys(selector.name.strip()), kind=kind).values() for i in ids]
        order = lookup.codes_first([h.id for h in fused], coded)[:FIND_CANDIDATES]
        score = {h.id: h.score for h in fused}
        missing = [i for i in order if i not in score]  # coded nodes the fusion did not reach
        if missing:
            score.update({i: cosine_to_unit(c) for i, c in store.vector_scores(vector, missing).items()})
        out.append([Hit(i, score.get(i, 0.0)) for i in order])
    return out


# -- search and cat -------------------------------------------------------------------------------


def search(runtime: Runtime, request: SearchRequest, context: CallContext) -> SearchResponse:
    """Facts around or between the selected nodes (a failure ends the session's latest: :func:`search_failed`)."""
    return _search(runtime, FactsGraph(runtime, request.graph), request, context)


def search_failed(runtime: Runtime, arguments: Mapping[str, Any], context: CallContext, error: BaseException) -> None:
    """A search failed (its validation included): it becomes the session's latest search on its graph, so
    ``cat`` refuses with the reason instead of expanding the search before, which answered another question.

    The search tool's ``on_failure`` (:meth:`graphlore.tools.ToolSpec.failed`: MCP, the CLI and ``kg_execute``
    call it). ``arguments`` are the raw ones; only ``graph`` is read (default ``default``), and a graph that is
    not a valid name has no latest search to end.
    """
    graph = arguments.get("graph", DEFAULT_GRAPH)
    if isinstance(graph, str) and re.fullmatch(GRAPH_PATTERN, graph):
        sessions.forget(runtime, graph, context, str(error))


def _search(runtime: Runtime, graph: FactsGraph, request: SearchRequest, context: CallContext) -> SearchResponse:
    store = graph.store()
    selected: list[ResolvedName] = []
    for kind, names in (("entity", request.entity), ("topic", request.topic)):
        for given in names:
            node, matched = graph.resolve(store, given, kind)
            if all(s.id != node.id for s in selected):
                selected.append(ResolvedName(given=given, id=node.id, name=node.name, kind=kind, matched=matched))
    ids = [s.id for s in selected]
    # The whole filtered set is ranked before the cut: by relevance with a query, else newest first.
    scores = None
    if request.query:
        ranking = store.rank_edges(ids, mode=request.mode, type=FACT, date_from=request.date_from,
                                   date_to=request.date_to, text=request.query,
                                   vector=runtime.embeddings.embed([request.query])[0],
                                   weights=QUERY_WEIGHTS, limit=request.limit, valid_at=request.valid_at)
        total, found = ranking.total, [h.id for h in ranking.hits]
        scores = {h.id: h.cosine for h in ranking.hits if h.cosine is not None}
    else:
        selection = store.select_edges(ids, mode=request.mode, type=FACT, date_from=request.date_from,
                                       date_to=request.date_to, limit=request.limit, valid_at=request.valid_at)
        total, found = selection.total, [r.id for r in selection.edges]
    edges = store.get_edges(found)
    results = _facts_out(store, edges, scores)
    summary = SearchSummary(mode=request.mode, selected=selected, query=request.query,
                            **{"from": request.date_from}, to_date=request.date_to, as_of=request.as_of,
                            current=request.current, total=total)
    search_id = sessions.remember(runtime, graph.name, context, [e.id for e in edges],
                                  summary.model_dump(mode="json", by_alias=True))
    return SearchResponse(
        graph=graph.name, search_id=search_id, mode=request.mode, selected=selected, query=request.query,
        **{"from": request.date_from}, to_date=request.date_to, limit=request.limit, as_of=request.as_of,
        current=request.current, total=total,
        results=results,
    )


def _summary(store: Store, node: Node | None, node_id: str) -> NodeSummary:
    if node is None:
        return NodeSummary(id=node_id, name=node_id, kind="entity", type=None, definition="(no longer in the graph)",
                           facts=0)
    total = store.select_edges([node.id], type=FACT, limit=0).total
    return NodeSummary(id=node.id, name=node.name, kind=node.kind, type=node.props.get("type"),
                       definition=node.props.get("definition", ""), facts=total)


def cat(runtime: Runtime, request: CatRequest, context: CallContext) -> CatResponse:
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    saved = sessions.recall(runtime, graph.name, context, request.search_id)
    bad = [n for n in request.numbers if n > len(saved.facts)]
    if bad:
        span = f"1 to {len(saved.facts)}" if saved.facts else "none: it found no facts"
        raise InvalidInput(f"no result {', '.join(map(str, bad))} in search {saved.search_id} (results: {span})")
    wanted = [saved.facts[n - 1] for n in request.numbers]
    edges = {e.id: e for e in store.get_edges(wanted)}
    gone = [n for n, fid in zip(request.numbers, wanted, strict=True) if fid not in edges]
    if gone:
        raise NotFound(f"result {', '.join(map(str, gone))} of search {saved.search_id} is no longer in the graph "
                       "(its document was ingested again); search again")
    items = []
    for number, fid in zip(request.numbers, wanted, strict=True):
        edge = edges[fid]
        [fact] = _facts_out(store, [edge])
        fact = fact.model_copy(update={"number": number})
        chunk = store.get_nodes([edge.props["chunk"]])
        ends = {n.id: n for n in store.get_nodes([edge.src, edge.dst])}
        items.append(CatItem(fact=fact, chunk=chunk[0].text if chunk else "",
                             subject=_summary(store, ends.get(edge.src), edge.src),
                             object=_summary(store, ends.get(edge.dst), edge.dst)))
    summary = SearchSummary.model_validate(saved.summary) if saved.summary else None
    return CatResponse(graph=graph.name, search_id=saved.search_id, search=summary, items=items)


# -- info, ls, stats ----------------------------------------------------------------------------------


def info(runtime: Runtime, request: InfoRequest) -> InfoResponse:
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    node, _ = graph.resolve(store, request.name, None)
    selection = store.select_edges([node.id], type=FACT, limit=0)
    holding = store.select_edges([node.id], type=FACT, limit=INFO_LATEST, valid_at=validity.CURRENT)
    counts = store.neighbour_counts(node.id, type=FACT, limit=INFO_NEIGHBOURS)
    others = {n.id: n for n in store.get_nodes([i for i, _ in counts])}
    dups = store.select_edges([node.id], type=DUPLICATE)
    dup_edges = store.get_edges([e.id for e in dups.edges])
    dup_nodes = {n.id: n for n in store.get_nodes([e.dst if e.src == node.id else e.src for e in dup_edges])}
    links = []
    for e in dup_edges:
        other = dup_nodes.get(e.dst if e.src == node.id else e.src)
        if other is not None:
            links.append(DuplicateLink(id=other.id, name=other.name, score=_unit(e.props.get("score", 0.0)),
                                       reason=e.props.get("reason", ""), **link_state(e.props)))
    records = node_records(store, node.id)
    apart = {n.id: n for n in store.get_nodes(list(node.props.get("kept_apart", {})))}
    return InfoResponse(
        graph=graph.name, id=node.id, kind=node.kind, name=node.name, type=node.props.get("type"),
        definition=node.props.get("definition", ""), aliases=node.props.get("aliases", []),
        fact_count=selection.total, first_date=selection.first_date, last_date=selection.last_date,
        neighbours=[Neighbour(id=i, name=others[i].name, kind=others[i].kind, facts=c) for i, c in counts if i in others],
        latest_facts=_facts_out(store, store.get_edges([e.id for e in holding.edges]), numbered=False),
        superseded_count=selection.total - holding.total,
        superseded_facts=_facts_out(store, _superseded(store, node.id, selection.total - holding.total),
                                    numbered=False),
        possible_duplicates=sorted(links, key=lambda d: (-d.score, d.id)),
        mention_count=len(records), mentions=_mentions_out(store, records[::-1][:INFO_MENTIONS]),
        kept_apart=[NodeRef(id=n.id, name=n.name, kind=n.kind) for n in apart.values()],
    )


def _superseded(store: Store, node_id: str, count: int) -> list[Edge]:
    """The node's newest INFO_LATEST facts that a later fact ended (read newest first, only when it has any)."""
    if not count:
        return []
    found: list[Edge] = []
    refs = store.select_edges([node_id], type=FACT).edges
    for start in range(0, len(refs), 500):
        found += [e for e in store.get_edges([r.id for r in refs[start:start + 500]]) if e.props.get("valid_to")]
        if len(found) >= min(count, INFO_LATEST):
            break
    return found[:INFO_LATEST]


def _mentions_out(store: Store, records: list[Edge]) -> list[MentionOut]:
    docs = {n.id: n for n in store.get_nodes(list({r.dst for r in records if r.dst}))}
    out = []
    for r in records:
        doc = docs.get(r.dst)
        names = r.props["names"]
        out.append(MentionOut(
            id=mentions.short_id(r.props), name=names[0], aliases=names[1:], type=r.props.get("type"),
            definition=r.props["definition"], action=r.props["action"], reason=r.props.get("reason", ""),
            document=DocumentRef(id=doc.id, name=doc.name, date=doc.props.get("date", ""),
                                 source=doc.props.get("source", "")) if doc is not None else None,
        ))
    return out


def ls(runtime: Runtime, request: LsRequest) -> LsResponse:
    """One page of entities or topics (most facts first) or documents (newest first): ``offset`` rows
    skipped, at most ``limit`` listed, ``has_more`` when rows follow."""
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    kind = {"entities": "entity", "topics": "topic", "documents": "document"}[request.what]
    page = {"what": request.what, "offset": request.offset}
    if kind == "document":
        total = store.count_nodes(kind)
        nodes = store.get_nodes(store.list_node_ids("document", order_by="date", descending=True, limit=request.limit,
                                                    offset=request.offset))
        rows = [LsRow(id=n.id, name=n.name, type=None, date=n.props["date"], facts=n.props["facts"],
                      chunks=n.props["chunks"]) for n in nodes]
        return LsResponse(graph=graph.name, type=None, total=total, rows=rows,
                          has_more=request.offset + len(rows) < total, **page)
    where = None if request.type is None else {"type": _types_named(graph, store, request.type)}
    total = store.count_nodes(kind, where)
    counted = store.most_connected(kind, type=FACT, limit=request.limit, offset=request.offset, where=where)
    nodes = {n.id: n for n in store.get_nodes([i for i, _ in counted])}
    rows = [LsRow(id=i, name=nodes[i].name, type=nodes[i].props.get("type"), date=None, facts=c, chunks=None)
            for i, c in counted if i in nodes]
    return LsResponse(graph=graph.name, type=request.type, total=total, rows=rows,
                      has_more=request.offset + len(rows) < total, **page)


def _types_named(graph: FactsGraph, store: Store, wanted: str) -> list[str]:
    """The spellings of the entity type ``wanted`` (equal case-insensitively) the graph holds, read from the
    store's counts per type; none: an error listing the types."""
    key = wanted.strip().casefold()
    types = {t: n for t, n in store.prop_counts("entity", "type").items() if isinstance(t, str)}
    spelled = [t for t in types if t.casefold() == key]
    if not spelled:
        listed = ", ".join(f"{t} ({n})" for t, n in sorted(types.items(), key=lambda kv: (-kv[1], kv[0])))
        raise NotFound(f"no entity of type {wanted!r} in graph {graph.name!r}; types (entities): "
                       f"{listed or 'none: the graph has no entities'}")
    return spelled


def stats(runtime: Runtime, request: StatsRequest) -> StatsResponse:
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    dates = store.list_node_ids("document", order_by="date", limit=1), store.list_node_ids(
        "document", order_by="date", descending=True, limit=1)
    first, last = (store.get_nodes(d)[0].props["date"] if d else None for d in dates)
    embedder = graph.handle.meta(store).get("embedder")
    return StatsResponse(
        graph=graph.name, location=str(graph.path), entities=store.count_nodes("entity"),
        topics=store.count_nodes("topic"), documents=store.count_nodes("document"), chunks=store.count_nodes("chunk"),
        facts=store.count_edges(FACT), possible_duplicates=store.count_edges(DUPLICATE), first_date=first,
        last_date=last, embedder=embedder["name"] if embedder else None,
    )


# -- writing ------------------------------------------------------------------------------------------


def relation_set(runtime: Runtime, request: RelationSetRequest) -> RelationSetResponse:
    """Declare a relationship functional (or not) in a graph; every fact of it gets its validity again."""
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    changed = validity.set_relation(store, request.name, request.functional)
    key = validity.relation_key(request.name)
    return RelationSetResponse(graph=graph.name, relationship=key, functional=request.functional,
                               default=key in validity.DEFAULT_FUNCTIONAL, facts_changed=changed)


def add_document(runtime: Runtime, request: AddDocumentRequest) -> AddDocumentResponse:
    record = DocumentRecord.model_validate(record_fields(request))
    [out] = Writer(FactsGraph(runtime, request.graph)).write([record])
    return out


def ingest(runtime: Runtime, request: IngestRequest, progress: Progress | None = None) -> IngestResponse:
    """Add the document records of a JSONL file: validated in full before anything is written."""
    return ingest_file(FactsGraph(runtime, request.graph), request.file, progress)


#: What a call without an LLM is told to do instead.
WITHOUT_LLM = ("Without an LLM, extract the entities, topics and facts yourself and send them with add_document "
               "(MCP) or graphlore facts ingest FILE.jsonl (CLI)")


def extract_document(runtime: Runtime, request: ExtractDocumentRequest, context: CallContext) -> ExtractDocumentResponse:
    llm = required(runtime.llm or context.llm, "extract", "extract_document", WITHOUT_LLM)
    graph = FactsGraph(runtime, request.graph)
    record, skipped = extract.extract_record(llm, request)
    [out] = Writer(graph, judge=extract.llm_judge(llm)).write([record])
    return ExtractDocumentResponse(**out.model_dump(), llm=llm.name, skipped=skipped)
