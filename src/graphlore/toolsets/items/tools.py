"""The five items tools. Each takes the runtime and a validated request and returns a response model.

Ranking is hybrid (BM25 over title and text fused with vector search); the
reported ``similarity_score`` is the cosine similarity between the query's
embedding and the item's best-matching passage, clipped to [0, 1], so a
threshold means the same thing whatever else is in the index.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from graphlore.contract import quote
from graphlore.errors import ConfigError, NotFound
from graphlore.runtime import Runtime
from graphlore.search import HybridParams, hybrid_search
from graphlore.search.fusion import CANDIDATES, TITLE_FIELD_WEIGHTS
from graphlore.store import Store
from graphlore.tools import Progress
from graphlore.toolsets.items.config import load_project_config
from graphlore.toolsets.items.index import KIND, ItemIndex, summary_text
from graphlore.toolsets.items.models import (
    CheckDuplicatesRequest,
    CheckDuplicatesResponse,
    DuplicateCandidate,
    GetIndexStatusRequest,
    GetIndexStatusResponse,
    GetSimilarRequest,
    GetSimilarResponse,
    IndexRequest,
    IndexResponse,
    IndexStatusSummary,
    SearchRequest,
    SearchResponse,
    SearchResult,
    SimilarItem,
    SourceItem,
)

#: Below the LIKELY_DUPLICATE threshold by at most this much: POSSIBLY_RELATED.
RELATED_BAND = 0.15


@dataclass(frozen=True)
class Ranking:
    """How the items tools rank and cut: the tools take it as a parameter (benches pass variants); the
    defaults are graphlore's (:data:`RANKING`)."""

    #: BM25 with the title weighted over the body, fused with vector search
    hybrid: HybridParams = field(default_factory=lambda: HybridParams(candidates=CANDIDATES,
                                                                      field_weights=TITLE_FIELD_WEIGHTS))
    #: check_duplicates lists at most this many candidates
    max_duplicates: int = 10


RANKING = Ranking()


def item_keyword_query(title: str, description: str) -> str:
    """The BM25 query when a whole item is the query (check_duplicates, get_similar): its title.

    The vector side reads title and description. In BM25's OR query the description's many
    common words (stack traces, config dumps) match nearly everything and drown the title's
    distinctive terms (measured on GitBugs duplicates: bench/README.md, items_duplicates).
    """
    return title if title.strip() else description


def _summary(index: ItemIndex, store: Store) -> IndexStatusSummary:
    """Status after :meth:`ItemIndex.ensure_fresh`, which has just brought the index up to date."""
    return IndexStatusSummary(
        last_indexed=index.meta(store)["last_indexed"], is_stale=False, items_indexed=store.count_nodes(KIND)
    )


def search(runtime: Runtime, request: SearchRequest, progress: Progress | None = None,
           ranking: Ranking = RANKING) -> SearchResponse:
    index = ItemIndex(runtime, request.project_path)
    store = index.ensure_fresh(progress)
    where: dict = {}
    if request.item_types:
        where["item_type"] = request.item_types
    if request.status:
        where["status"] = [s.lower() for s in request.status]
    if not request.include_completed:
        where["completed"] = False
    ranked = hybrid_search(store, request.query, runtime.embeddings.embed([request.query]), kind=KIND, where=where,
                           limit=CANDIDATES, params=ranking.hybrid, threads=runtime.search_threads)
    kept = [h for h in ranked if h.score >= request.threshold][: request.limit]
    nodes = {n.id: n for n in store.get_nodes([h.id for h in kept])}
    results = [
        SearchResult(
            item_id=h.id,
            title=nodes[h.id].props["title"],
            description=nodes[h.id].props["description"],
            similarity_score=h.score,
            item_type=nodes[h.id].props["item_type"],
            status=nodes[h.id].props["status"],
            priority=nodes[h.id].props["priority"],
            path=nodes[h.id].props["path"],
        )
        for h in kept
    ]
    return SearchResponse(
        results=results, query=request.query, total_results=len(results), index_status=_summary(index, store)
    )


def index(runtime: Runtime, request: IndexRequest, progress: Progress | None = None) -> IndexResponse:
    return ItemIndex(runtime, request.project_path).sync(force=request.force, progress=progress)


def _relationship(score: float, threshold: float) -> str:
    if score >= threshold:
        return "LIKELY_DUPLICATE"
    if score >= threshold - RELATED_BAND:
        return "POSSIBLY_RELATED"
    return "SIMILAR"


def check_duplicates(runtime: Runtime, request: CheckDuplicatesRequest, progress: Progress | None = None,
                     ranking: Ranking = RANKING) -> CheckDuplicatesResponse:
    index = ItemIndex(runtime, request.project_path)
    config = load_project_config(index.root, runtime.roots) if request.threshold is None else None
    threshold = request.threshold if config is None else config.duplicate_similarity_threshold
    store = index.ensure_fresh(progress)
    where = {"item_type": request.item_type} if request.item_type else {}
    keyword_text = item_keyword_query(request.title, request.description)
    query_vector = runtime.embeddings.embed([summary_text(request.title, request.description)])
    ranked = hybrid_search(store, keyword_text, query_vector, kind=KIND, where=where, limit=CANDIDATES,
                           params=ranking.hybrid, threads=runtime.search_threads)
    # Likely duplicates first, so the cap never drops one for a weaker match; each band in ranking
    # order, which finds more true duplicates than the cosine alone (bench/items_duplicates.py).
    in_band = [h for h in ranked if h.score >= threshold - RELATED_BAND]
    kept = sorted(in_band, key=lambda h: h.score < threshold)[:ranking.max_duplicates]
    nodes = {n.id: n for n in store.get_nodes([h.id for h in kept])}
    candidates = [
        DuplicateCandidate(
            item_id=h.id,
            title=nodes[h.id].props["title"],
            similarity_score=h.score,
            status=nodes[h.id].props["status"],
            recommendation=_relationship(h.score, threshold),
        )
        for h in kept
    ]
    return CheckDuplicatesResponse(
        potential_duplicates=candidates,
        has_likely_duplicates=any(c.recommendation == "LIKELY_DUPLICATE" for c in candidates),
        threshold_used=threshold,
        warnings=list(config.warnings) if config else [],
    )


def get_similar(runtime: Runtime, request: GetSimilarRequest, progress: Progress | None = None,
                ranking: Ranking = RANKING) -> GetSimilarResponse:
    index = ItemIndex(runtime, request.project_path)
    store = index.ensure_fresh(progress)
    found = store.get_nodes([request.item_id], with_vectors=True)
    if not found:
        known = list(store.node_hashes(KIND))
        close = difflib.get_close_matches(request.item_id.upper(), [k.upper() for k in known], n=5, cutoff=0.5)
        by_upper = {k.upper(): k for k in known}
        hint = f"close ids: {', '.join(by_upper[c] for c in close)}" if close else "use search to find item ids"
        raise NotFound(f"no item {quote(request.item_id)} in the index of {index.root}; {hint}")
    source = found[0]
    config = load_project_config(index.root, runtime.roots)
    threshold = config.duplicate_similarity_threshold
    where = {} if request.include_completed else {"completed": False}
    # The source's problem statement (its first passage) against every passage of the others;
    # its title alone for BM25 (see item_keyword_query).
    query_text = item_keyword_query(source.props["title"], source.props["description"])
    ranked = hybrid_search(store, query_text, source.vectors[:1], kind=KIND, where=where, limit=CANDIDATES + 1,
                           params=ranking.hybrid, threads=runtime.search_threads)
    kept = [h for h in ranked if h.id != source.id][: request.limit]
    nodes = {n.id: n for n in store.get_nodes([h.id for h in kept])}
    return GetSimilarResponse(
        source_item=SourceItem(item_id=source.id, title=source.props["title"]),
        similar_items=[
            SimilarItem(
                item_id=h.id,
                title=nodes[h.id].props["title"],
                similarity_score=h.score,
                status=nodes[h.id].props["status"],
                relationship=_relationship(h.score, threshold),
            )
            for h in kept
        ],
        warnings=list(config.warnings),
    )


def get_index_status(runtime: Runtime, request: GetIndexStatusRequest) -> GetIndexStatusResponse:
    index = ItemIndex(runtime, request.project_path)
    index.handle.want("files")  # the freshness check reads them
    warnings = _config_warnings(index.root, runtime.roots)
    store = index.open()
    if store is None or index.meta(store).get("last_indexed") is None:
        # No index, or a first build that never finished: nothing usable yet.
        return GetIndexStatusResponse(
            exists=False, project_path=str(index.root), index_location=index.location, last_indexed=None,
            is_stale=True, stale_files=sorted(index.list_files()), items_indexed=0,
            index_size_bytes=index.size_bytes(), warnings=warnings,
        )
    stale = index.stale_files(store)
    return GetIndexStatusResponse(
        exists=True,
        project_path=str(index.root),
        index_location=index.location,
        last_indexed=index.meta(store)["last_indexed"],
        is_stale=bool(stale),
        stale_files=stale,
        items_indexed=store.count_nodes(KIND),
        index_size_bytes=index.size_bytes(),
        warnings=warnings,
    )


def _config_warnings(root, roots) -> list[str]:
    """What reading .agent-config.json reported; a status report names an invalid threshold instead of failing."""
    try:
        return list(load_project_config(root, roots).warnings)
    except ConfigError as exc:
        return [f"{exc.message} (check_duplicates and get_similar refuse to run until it is fixed)"]
