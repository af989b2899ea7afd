"""The five items tools. Each takes the runtime and a validated request and returns a response model.

Ranking is hybrid (BM25 over title and text fused with vector search); the
reported ``similarity_score`` is the cosine similarity between the query's
embedding and the item's best-matching passage, clipped to [0, 1], so a
threshold means the same thing whatever else is in the index.
"""

from __future__ import annotations

import difflib
import math
import shlex
from dataclasses import dataclass, field

import numpy as np

from graphlore.contract import quote
from graphlore.errors import ConfigError, NotFound
from graphlore.runtime import Runtime
from graphlore.search import HybridParams, hybrid_search
from graphlore.search.fusion import CANDIDATES, TITLE_FIELD_WEIGHTS, cosine_to_unit
from graphlore.search.keywords import keyword_support
from graphlore.store import Store
from graphlore.store.base import Hit
from graphlore.tools import Progress
from graphlore.toolsets.folder_index import rebuild_kept
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
from graphlore.toolsets.items.render import search_notes

#: Below the LIKELY_DUPLICATE threshold by at most this much: POSSIBLY_RELATED.
RELATED_BAND = 0.15
#: check_duplicates: the best-ranked candidate (keywords and meaning fused) is LIKELY_DUPLICATE from this
#: similarity_score on, whatever the threshold. Fitted by cross-validation on GitBugs Hadoop duplicates
#: (bench/items_duplicates.py --fit; figures in bench/README.md and skills/items/SKILL.md).
TOP_MATCH = 0.62


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


#: At most this many items not embedded yet are scored per call, by embedding their title and description
#: (the rest of a partial index is found by keywords only until its embedding ends).
PENDING_SCORED = 20


def _summary(index: ItemIndex, store: Store) -> IndexStatusSummary:
    """Status after :meth:`ItemIndex.ensure_fresh`, which has just brought the index up to date."""
    if index.pending(store):
        index.handle.reread()  # the background embedding may have moved on since this call read it
    _, _, embedded, total = index.progress_of(store)
    return IndexStatusSummary(
        last_indexed=index.meta(store)["last_indexed"], is_stale=False, items_indexed=store.count_nodes(KIND),
        embedded=embedded, total=total, partial=embedded < total,
    )


def _score_pending(runtime: Runtime, index: ItemIndex, store: Store, hits: list[Hit], queries) -> list[Hit]:
    """``hits`` with the items not embedded yet (the first :data:`PENDING_SCORED`) scored by their title and
    description: their cosine to the best query vector, a lower bound of the score they get once embedded."""
    pending = set(index.pending(store))
    wanted = [h.id for h in hits if h.id in pending][:PENDING_SCORED]
    if not wanted:
        return hits
    nodes = store.get_nodes(wanted)
    vectors = runtime.embeddings.embed([summary_text(n.props["title"], n.props["description"]) for n in nodes])
    best = (np.atleast_2d(np.asarray(queries, dtype=np.float32)) @ vectors.T).max(axis=0)
    scores = {n.id: cosine_to_unit(float(b)) for n, b in zip(nodes, best, strict=True)}
    return [Hit(h.id, scores.get(h.id, h.score)) for h in hits]


def search(runtime: Runtime, request: SearchRequest, progress: Progress | None = None,
           ranking: Ranking = RANKING) -> SearchResponse:
    index = ItemIndex(runtime, request.project_path)
    store = index.ensure_fresh(progress)
    where: dict = {}
    if request.item_types:
        where["item_type"] = request.item_types
    if request.status:
        where["status"] = [s.lower() for s in request.status]
    query_vector = runtime.embeddings.embed([request.query])
    def matches(where: dict) -> _Matches:
        """Rank, then keep what reaches the threshold or has keyword support (:mod:`graphlore.search.keywords`)."""
        ranked = hybrid_search(store, request.query, query_vector, kind=KIND, where=where, limit=CANDIDATES,
                               params=ranking.hybrid, threads=runtime.search_threads)
        ranked = _score_pending(runtime, index, store, ranked, query_vector)
        support = keyword_support(store, request.query, kind=KIND, where=where)
        kept = [h for h in ranked if h.score >= request.threshold or h.id in support]
        return _Matches(kept, [h for h in ranked if h.score < request.threshold and h.id not in support], support)

    if request.include_completed:
        found, completed = matches(where), None
    else:
        found = matches({**where, "completed": False})
        completed = len(matches({**where, "completed": True}).kept)
    kept = found.kept[: request.limit]
    nodes = {n.id: n for n in store.get_nodes([h.id for h in kept])}
    results = [
        SearchResult(
            item_id=h.id,
            title=nodes[h.id].props["title"],
            description=nodes[h.id].props["description"],
            similarity_score=h.score,
            keyword_match=h.id in found.support,
            item_type=nodes[h.id].props["item_type"],
            status=nodes[h.id].props["status"],
            priority=nodes[h.id].props["priority"],
            path=nodes[h.id].props["path"],
        )
        for h in kept
    ]
    retry = found.retry_threshold() if len(kept) < request.limit else None  # a full page needs no hint
    response = SearchResponse(
        results=results, query=request.query, total_results=len(results), index_status=_summary(index, store),
        more_results=len(found.kept) - len(kept), below_threshold=len(found.cut), retry_threshold=retry,
        retry_adds=sum(h.score >= retry for h in found.cut) if retry is not None else 0,
        completed_matches=completed, threshold_used=request.threshold, notes=[],
    )
    return response.model_copy(update={"notes": search_notes(response, cli=False)})


@dataclass(frozen=True)
class _Matches:
    """One ranked search split by the threshold rule: what is listed (in ranking order) and what is cut."""

    kept: list[Hit]
    cut: list[Hit]
    support: set[str]

    def retry_threshold(self) -> float | None:
        """The best cut score rounded down to a multiple of 0.05: the threshold that lists it."""
        if not self.cut:
            return None
        return math.floor(max(h.score for h in self.cut) * 20 + 1e-9) / 20


def index(runtime: Runtime, request: IndexRequest, progress: Progress | None = None) -> IndexResponse:
    return ItemIndex(runtime, request.project_path).sync(force=request.force, progress=progress)


def index_kept(runtime: Runtime, request: IndexRequest) -> str:
    """After Ctrl-C: how many items the index keeps embedded (finished steps are committed) and the command
    that finishes it."""
    index = ItemIndex(runtime, request.project_path)
    again = f"run `graphlore items index -p {shlex.quote(str(index.root))}` to finish"
    items = len({path.rsplit("/", 1)[0] for path in index.list_files()})
    # The index's own bookkeeping, not its item nodes: the structural phase writes every item before the
    # embedding starts, so an interrupt during the embedding has all of them and none embedded.
    if request.force:
        return rebuild_kept(index, lambda: f"{index.progress_of(index.store())[0]} of {items} items embedded", "items")
    kept = index.progress_of(index.store())[0] if index.exists() else 0
    return f"{kept} of {items} items embedded and kept; {again}"


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
    ranked = _score_pending(runtime, index, store, ranked, query_vector)
    # Likely duplicates first, so the cap never drops one for a weaker match; each band in ranking
    # order, which finds more true duplicates than the cosine alone (bench/items_duplicates.py).
    top = ranked[0].id if ranked else None

    def likely(h: Hit) -> bool:
        return h.score >= threshold or (h.id == top and h.score >= TOP_MATCH)

    in_band = [h for h in ranked if likely(h) or h.score >= threshold - RELATED_BAND]
    kept = sorted(in_band, key=lambda h: not likely(h))[:ranking.max_duplicates]
    nodes = {n.id: n for n in store.get_nodes([h.id for h in kept])}
    candidates = [
        DuplicateCandidate(
            item_id=h.id,
            title=nodes[h.id].props["title"],
            similarity_score=h.score,
            status=nodes[h.id].props["status"],
            recommendation="LIKELY_DUPLICATE" if likely(h) else "POSSIBLY_RELATED",
        )
        for h in kept
    ]
    return CheckDuplicatesResponse(
        potential_duplicates=candidates,
        has_likely_duplicates=any(c.recommendation == "LIKELY_DUPLICATE" for c in candidates),
        threshold_used=threshold,
        index_status=_summary(index, store),
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
    source_vector = (source.vectors[:1] if source.vectors is not None and len(source.vectors)
                     else runtime.embeddings.embed([summary_text(source.props["title"], source.props["description"])]))
    ranked = hybrid_search(store, query_text, source_vector, kind=KIND, where=where, limit=CANDIDATES + 1,
                           params=ranking.hybrid, threads=runtime.search_threads)
    ranked = _score_pending(runtime, index, store, ranked, source_vector)
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
        index_status=_summary(index, store),
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
            is_stale=True, stale_files=sorted(index.list_files()), items_indexed=0, items_embedded=0,
            passages_embedded=0, passages_total=0, partial=False, index_size_bytes=index.size_bytes(),
            warnings=warnings,
        )
    stale = index.stale_files(store)
    items_embedded, _, embedded, total = index.progress_of(store)
    return GetIndexStatusResponse(
        exists=True,
        project_path=str(index.root),
        index_location=index.location,
        last_indexed=index.meta(store)["last_indexed"],
        is_stale=bool(stale),
        stale_files=stale,
        items_indexed=store.count_nodes(KIND),
        items_embedded=items_embedded,
        passages_embedded=embedded,
        passages_total=total,
        partial=embedded < total,
        index_size_bytes=index.size_bytes(),
        warnings=warnings,
    )


def _config_warnings(root, roots) -> list[str]:
    """What reading .agent-config.json reported; a status report names an invalid threshold instead of failing."""
    try:
        return list(load_project_config(root, roots).warnings)
    except ConfigError as exc:
        return [f"{exc.message} (check_duplicates and get_similar refuse to run until it is fixed)"]
