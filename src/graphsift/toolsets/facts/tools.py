"""The facts tools. Each takes the runtime and a validated request and returns a response model.

Scores are cosine similarities clipped to [0, 1]: in ``find`` between
``"{name}: {definition}"`` of the selector and of the node, in ``search --query``
between the query and the fact's sentence.

``find`` marks candidates below :data:`FIND_WEAK_FLOOR` as weak. Measured with
``python bench/facts_find_floor.py`` (scores, not timings: they do not depend on the machine):

- labelled (name, definition) pairs of ``bench/facts_resolution.py``: every description of the
  same thing scores >= 0.578 against another (24 pairs); things that only share a name score
  0.29-0.47 (Apple the fruit, Jaguar the cat, Paris Hilton) up to 0.94 (Alpha Holdings A/B).
- things a graph does not hold (18 agent-style selectors against examples/facts/news.jsonl): the
  best candidate scores p50 0.343, max 0.630; 14 of 18 fall below 0.5 (not: another central bank,
  another instrument, another planet, a topic asked for as an entity at 0.501).
- ER records with generated definitions (../shared/data/er): restaurants, the true node scores
  >= 0.5 for all 112 queries (p5 0.845); Amazon-Google products, of the 1113 queries whose true
  node is in the graph 92.1% find it in the top 5 and 91.7% at >= 0.5. There every node shares a
  template, so nodes that are not the one meant also score > 0.5 (p50 0.78): weak says little.

0.5 keeps every true match of the pairs and of the restaurants (99.6% of those found on the
products) and flags most absent things.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from graphsift.errors import ConfigError, InvalidInput, NotFound
from graphsift.runtime import Runtime
from graphsift.store import Edge, Node, Store
from graphsift.tools import CallContext, Progress
from graphsift.toolsets.facts import extract, sessions
from graphsift.toolsets.facts.graph import DUPLICATE, FACT, FactsGraph, node_text
from graphsift.toolsets.facts.models import (
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
    Neighbour,
    NodeRef,
    NodeSummary,
    ResolvedName,
    SearchRequest,
    SearchResponse,
    SearchSummary,
    SelectorMatches,
    StatsRequest,
    StatsResponse,
)
from graphsift.toolsets.facts.write import Writer, ingest_file, record_fields

#: Candidates per find selector; neighbours and latest facts shown by info.
FIND_CANDIDATES = 5
#: A find candidate scoring below this is marked weak (see the module docstring for the measurement).
FIND_WEAK_FLOOR = 0.5
INFO_NEIGHBOURS = 5
INFO_LATEST = 5


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
        ))
    return out


# -- find --------------------------------------------------------------------------------------------


def find(runtime: Runtime, request: FindRequest) -> FindResponse:
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    selectors = [("entity", s) for s in request.entity] + [("topic", s) for s in request.topic]
    vectors = runtime.embedder.embed([node_text(s.name.strip(), s.definition.strip()) for _, s in selectors])
    hits = store.vector_search_many(vectors, kinds=[k for k, _ in selectors], limit=FIND_CANDIDATES)
    nodes = {n.id: n for n in store.get_nodes(list({h.id for row in hits for h in row}))}
    out: dict[str, list[SelectorMatches]] = {"entity": [], "topic": []}
    for (kind, selector), row in zip(selectors, hits, strict=True):
        out[kind].append(SelectorMatches(name=selector.name, id=selector.id, candidates=[
            Candidate(id=h.id, name=nodes[h.id].name, type=nodes[h.id].props.get("type"), score=_unit(h.score),
                      weak=_unit(h.score) < FIND_WEAK_FLOOR)
            for h in row if h.id in nodes
        ]))
    return FindResponse(graph=graph.name, entities=out["entity"], topics=out["topic"])


# -- search and cat -------------------------------------------------------------------------------


def search(runtime: Runtime, request: SearchRequest, context: CallContext) -> SearchResponse:
    """Facts around or between the selected nodes (a failure ends the session's latest: :func:`search_failed`)."""
    return _search(runtime, FactsGraph(runtime, request.graph), request, context)


def search_failed(runtime: Runtime, arguments: Mapping[str, Any], context: CallContext, error: BaseException) -> None:
    """A search failed (its validation included): it becomes the session's latest search on its graph, so
    ``cat`` refuses with the reason instead of expanding the search before, which answered another question.

    The search tool's ``on_failure``: both adapters call it, and ``kg_execute`` for its ``search`` command.
    ``arguments`` are the raw ones; only ``graph`` is read (default ``default``), and a graph that is not
    a valid name has no latest search to end.
    """
    graph = arguments.get("graph", DEFAULT_GRAPH)
    if isinstance(graph, str) and re.fullmatch(GRAPH_PATTERN, graph):
        sessions.forget(runtime, FactsGraph(runtime, graph).location, graph, context, str(error))


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
    selection = store.select_edges(
        ids, mode=request.mode, type=FACT, date_from=request.date_from, date_to=request.date_to,
        limit=None if request.query else request.limit, with_vectors=bool(request.query),
    )
    scores = None
    refs = selection.edges
    if request.query:
        query = runtime.embedder.embed([request.query])[0]
        with_vec = [r for r in refs if r.vector is not None]
        cos = (np.vstack([r.vector for r in with_vec]) @ query) if with_vec else np.empty(0)
        scores = {r.id: float(c) for r, c in zip(with_vec, cos, strict=True)}
        order = sorted(range(len(refs)), key=lambda i: (-scores.get(refs[i].id, -1.0), i))
        refs = [refs[i] for i in order[: request.limit]]
    edges = store.get_edges([r.id for r in refs])
    results = _facts_out(store, edges, scores)
    summary = SearchSummary(mode=request.mode, selected=selected, query=request.query,
                            **{"from": request.date_from}, to_date=request.date_to, total=selection.total)
    search_id = sessions.remember(runtime, graph.location, graph.name, context, [e.id for e in edges],
                                  summary.model_dump(mode="json", by_alias=True))
    return SearchResponse(
        graph=graph.name, search_id=search_id, mode=request.mode, selected=selected, query=request.query,
        **{"from": request.date_from}, to_date=request.date_to, limit=request.limit, total=selection.total,
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
    saved = sessions.recall(runtime, graph.location, graph.name, context, request.search_id)
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
    selection = store.select_edges([node.id], type=FACT, limit=INFO_LATEST)
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
                                       reason=e.props.get("reason", "")))
    return InfoResponse(
        graph=graph.name, id=node.id, kind=node.kind, name=node.name, type=node.props.get("type"),
        definition=node.props.get("definition", ""), aliases=node.props.get("aliases", []),
        fact_count=selection.total, first_date=selection.first_date, last_date=selection.last_date,
        neighbours=[Neighbour(id=i, name=others[i].name, kind=others[i].kind, facts=c) for i, c in counts if i in others],
        latest_facts=_facts_out(store, store.get_edges([e.id for e in selection.edges]), numbered=False),
        possible_duplicates=sorted(links, key=lambda d: (-d.score, d.id)),
    )


def ls(runtime: Runtime, request: LsRequest) -> LsResponse:
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    kind = {"entities": "entity", "topics": "topic", "documents": "document"}[request.what]
    if kind == "document":
        nodes = store.get_nodes(store.list_node_ids("document", order_by="date", descending=True, limit=request.limit))
        rows = [LsRow(id=n.id, name=n.name, type=None, date=n.props["date"], facts=n.props["facts"],
                      chunks=n.props["chunks"]) for n in nodes]
        return LsResponse(graph=graph.name, what=request.what, type=None, total=store.count_nodes(kind), rows=rows)
    total = store.count_nodes(kind)
    wanted: set[str] | None = None
    if request.type is not None:
        wanted = _entities_of_type(graph, store, request.type)
        total = len(wanted)
    # most_connected ranks every node of the kind (its SQL counts them all); the type filter is
    # applied to that ranking before the cut, so limit never hides an entity of the type.
    counted = store.most_connected(kind, type=FACT, limit=request.limit if wanted is None else store.count_nodes(kind))
    if wanted is not None:
        counted = [(i, c) for i, c in counted if i in wanted]
    counted = counted[: request.limit]
    nodes = {n.id: n for n in store.get_nodes([i for i, _ in counted])}
    rows = [LsRow(id=i, name=nodes[i].name, type=nodes[i].props.get("type"), date=None, facts=c, chunks=None)
            for i, c in counted if i in nodes]
    return LsResponse(graph=graph.name, what=request.what, type=request.type, total=total, rows=rows)


def _entities_of_type(graph: FactsGraph, store: Store, wanted: str) -> set[str]:
    """Ids of the entities whose type equals ``wanted`` case-insensitively; none: an error listing the types."""
    key = wanted.strip().casefold()
    ids: set[str] = set()
    types: dict[str, int] = {}
    for node in store.iter_nodes("entity"):
        spelled = node.props.get("type") or ""
        types[spelled] = types.get(spelled, 0) + 1
        if spelled.casefold() == key:
            ids.add(node.id)
    if not ids:
        listed = ", ".join(f"{t} ({n})" for t, n in sorted(types.items(), key=lambda kv: (-kv[1], kv[0])))
        raise NotFound(f"no entity of type {wanted!r} in graph {graph.name!r}; types (entities): "
                       f"{listed or 'none: the graph has no entities'}")
    return ids


def stats(runtime: Runtime, request: StatsRequest) -> StatsResponse:
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    dates = store.list_node_ids("document", order_by="date", limit=1), store.list_node_ids(
        "document", order_by="date", descending=True, limit=1)
    first, last = (store.get_nodes(d)[0].props["date"] if d else None for d in dates)
    embedder = store.get_meta("embedder")
    return StatsResponse(
        graph=graph.name, location=str(graph.path), entities=store.count_nodes("entity"),
        topics=store.count_nodes("topic"), documents=store.count_nodes("document"), chunks=store.count_nodes("chunk"),
        facts=store.count_edges(FACT), possible_duplicates=store.count_edges(DUPLICATE), first_date=first,
        last_date=last, embedder=embedder["name"] if embedder else None,
    )


# -- writing ------------------------------------------------------------------------------------------


def add_document(runtime: Runtime, request: AddDocumentRequest) -> AddDocumentResponse:
    record = DocumentRecord.model_validate(record_fields(request))
    [out] = Writer(FactsGraph(runtime, request.graph)).write([record])
    return out


def ingest(runtime: Runtime, request: IngestRequest, progress: Progress | None = None) -> IngestResponse:
    """Add the document records of a JSONL file: validated in full before anything is written."""
    return ingest_file(FactsGraph(runtime, request.graph), request.file, progress)


NO_LLM = (
    "no LLM to extract with: set GRAPHSIFT_LLM_URL and GRAPHSIFT_LLM_MODEL (any OpenAI-compatible "
    "/v1/chat/completions endpoint), or call extract_document from an MCP client that offers sampling. "
    "Without an LLM, extract the entities, topics and facts yourself and send them with add_document (MCP) "
    "or graphsift facts ingest FILE.jsonl (CLI)"
)


def extract_document(runtime: Runtime, request: ExtractDocumentRequest, context: CallContext) -> ExtractDocumentResponse:
    llm = runtime.llm or context.llm
    if llm is None:
        raise ConfigError(NO_LLM)
    graph = FactsGraph(runtime, request.graph)
    record, skipped = extract.extract_record(llm, request)
    [out] = Writer(graph, judge=extract.llm_judge(llm)).write([record])
    return ExtractDocumentResponse(**out.model_dump(), llm=llm.name, skipped=skipped)
