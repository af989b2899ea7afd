"""Keyword support: which nodes hold a query's words, so a similarity threshold never hides an exact hit.

The rule (``skills/items/SKILL.md`` states it for users): the query's terms are its words as BM25 reads
them (case-folded, accents removed, Porter-stemmed, stop words dropped unless nothing else is left). The
*required* terms are the rare ones: those held by at most half of the searched nodes (the terms BM25's
idf counts as evidence); when every term is common, all of them. A node has keyword support when its name
or text holds every required term. A term no searched node holds is required too, so a query whose
distinctive word the project never uses keeps nothing by keywords (the similarity decides alone).

A query of more than :data:`MAX_TERMS` terms is a passage, not keywords: it gets no keyword support.
"""

from __future__ import annotations

from graphlore.store import Store
from graphlore.store.base import Where
from graphlore.store.terms import STOPWORDS, query_terms, words

#: Queries with more distinct terms than this get no keyword support (one BM25 lookup per term).
MAX_TERMS = 16


def keyword_support(store: Store, query: str, *, kind: str | None, where: Where | None = None) -> set[str]:
    """Ids of the nodes (of ``kind``, passing ``where``) with keyword support for ``query`` (module doc)."""
    raw = words(query)
    kept = [w for w in raw if w.casefold() not in STOPWORDS] or raw
    by_term: dict[str, str] = {}
    for word in kept:
        [term] = query_terms(word) or [""]
        if term:
            by_term.setdefault(term, word)
    if not by_term or len(by_term) > MAX_TERMS:
        return set()
    searched = store.count_nodes(kind, where)
    if not searched:
        return set()
    holders = {term: {hit.id for hit in store.keyword_search(word, kind=kind, where=where, limit=searched)}
               for term, word in by_term.items()}
    required = [ids for ids in holders.values() if len(ids) <= searched / 2] or list(holders.values())
    return set.intersection(*required)
