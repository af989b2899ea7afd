"""BM25 keyword ranking in numpy over per-node term vectors.

FTS5's ``bm25()`` runs once per matching row through its auxiliary-function
API: 7-11 ms per query at 10k items, more than the rest of a search together.
So the store keeps each node's term counts (name and text columns) as a small
blob written with the node, loads them once into postings arrays, and scores a
query with a few vector operations. The formula is FTS5's: k1 = 1.2, b = 0.75,
column weights applied to term frequencies, document length over all columns,
``idf = log((N - n + 0.5) / (n + 0.5))`` floored at 1e-6, over every node of the
store. The terms (FTS5's tokenising) and the constants are :mod:`graphlore.store.terms`,
which the PostgreSQL backend shares.
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from graphlore.store.terms import K1, MIN_IDF, B, query_terms, terms


@functools.lru_cache(maxsize=500_000)
def _key(term: str) -> int:
    """A stable 64-bit id per term: processes agree on it without a shared vocabulary table."""
    return int.from_bytes(hashlib.blake2b(term.encode(), digest_size=8).digest(), "little", signed=True)


def query_keys(text: str) -> np.ndarray:
    """Unique term ids of a free-text query (:func:`query_terms`)."""
    return np.array([_key(t) for t in query_terms(text)], dtype=np.int64)


@dataclass(frozen=True)
class TermVector:
    """One node's term counts per column, as stored in ``node_terms``."""

    keys: np.ndarray  # int64, unique
    name_tf: np.ndarray  # uint16
    text_tf: np.ndarray  # uint16
    length: int  # tokens over both columns

    @classmethod
    def of(cls, name: str, text: str) -> TermVector:
        name_counts = Counter(_key(t) for t in terms(name))
        text_counts = Counter(_key(t) for t in terms(text))
        keys = np.array(sorted(name_counts.keys() | text_counts.keys()), dtype=np.int64)
        cap = np.iinfo(np.uint16).max
        return cls(
            keys=keys,
            name_tf=np.array([min(name_counts.get(k, 0), cap) for k in keys.tolist()], dtype=np.uint16),
            text_tf=np.array([min(text_counts.get(k, 0), cap) for k in keys.tolist()], dtype=np.uint16),
            length=sum(name_counts.values()) + sum(text_counts.values()),
        )

    def to_row(self) -> tuple[bytes, bytes, bytes, int]:
        return self.keys.tobytes(), self.name_tf.tobytes(), self.text_tf.tobytes(), self.length

    @classmethod
    def from_row(cls, keys: bytes, name_tf: bytes, text_tf: bytes, length: int) -> TermVector:
        return cls(
            np.frombuffer(keys, dtype=np.int64),
            np.frombuffer(name_tf, dtype=np.uint16),
            np.frombuffer(text_tf, dtype=np.uint16),
            int(length),
        )


class KeywordIndex:
    """Postings of every node's terms, grouped by term, for BM25 over ``n_nodes`` positions."""

    def __init__(self, n_nodes: int, positions: Sequence[int], vectors: Sequence[TermVector]) -> None:
        self.n_nodes = n_nodes
        self.lengths = np.zeros(n_nodes, dtype=np.float64)
        #: positions that hold a row (a node with a term vector, even an empty one): FTS5's documents
        self.has_row = np.zeros(n_nodes, dtype=bool)
        sizes = np.array([v.keys.size for v in vectors], dtype=np.int64)
        if vectors:
            at = np.asarray(positions, dtype=np.int64)
            self.lengths[at] = [v.length for v in vectors]
            self.has_row[at] = True
            keys = np.concatenate([v.keys for v in vectors])
            name_tf = np.concatenate([v.name_tf for v in vectors]).astype(np.float32)
            text_tf = np.concatenate([v.text_tf for v in vectors]).astype(np.float32)
            owner = np.repeat(np.asarray(positions, dtype=np.int32), sizes)
        else:
            keys = np.empty(0, dtype=np.int64)
            name_tf = text_tf = np.empty(0, dtype=np.float32)
            owner = np.empty(0, dtype=np.int32)
        self.terms, term_of = np.unique(keys, return_inverse=True)
        order = np.argsort(term_of, kind="stable")
        self.post_node = owner[order]
        self.post_name_tf = name_tf[order]
        self.post_text_tf = text_tf[order]
        self.starts = np.r_[0, np.cumsum(np.bincount(term_of, minlength=self.terms.size))]

    def spans(self, keys: np.ndarray) -> list[slice | None]:
        """The postings of each query term id (None: no node here has it)."""
        if not self.terms.size:
            return [None] * len(keys)
        at = np.minimum(np.searchsorted(self.terms, keys), self.terms.size - 1)
        return [slice(int(self.starts[a]), int(self.starts[a + 1])) if self.terms[a] == k else None
                for a, k in zip(at.tolist(), keys.tolist(), strict=True)]

    def scores(self, query: str, weights: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
        """(BM25 per node position, which positions matched any query term)."""
        [out] = overlay_scores([(self, None)], query, weights)
        return out


def overlay_scores(
    parts: Sequence[tuple[KeywordIndex, np.ndarray | None]], query: str, weights: tuple[float, float],
) -> list[tuple[np.ndarray, np.ndarray]]:
    """BM25 of ``query`` over the live positions of several indexes, exactly as one index holding only
    those rows would score them: documents, average length and each term's document frequency are
    counted over the live rows of every part. A part's mask (None: all) says which positions are live,
    so an index stays usable when some of its rows were rewritten or deleted since it was built (the
    store scores them from a second, small index). Returns (scores, matched) per part.
    """
    live = [index.has_row if alive is None else index.has_row & alive for index, alive in parts]
    out = [(np.zeros(index.n_nodes, dtype=np.float64), np.zeros(index.n_nodes, dtype=bool)) for index, _ in parts]
    documents = sum(int(mask.sum()) for mask in live)  # FTS5 counts rows that have text, over the whole table
    keys = query_keys(query)
    if not keys.size or not documents:
        return out
    avgdl = sum(float(index.lengths[mask].sum()) for (index, _), mask in zip(parts, live, strict=True)) / documents
    spans = [index.spans(keys) for index, _ in parts]
    for t in range(keys.size):
        hits = []  # (part, posting span, which of its postings are live)
        for p, ((index, _), mask) in enumerate(zip(parts, live, strict=True)):
            span = spans[p][t]
            if span is not None:
                hits.append((p, span, mask[index.post_node[span]]))
        df = sum(int(keep.sum()) for _, _, keep in hits)
        if not df:
            continue
        idf = np.float64(max(np.log((documents - df + 0.5) / (df + 0.5)), MIN_IDF))  # float64: tf is float32
        for p, span, keep in hits:
            index, (score, matched) = parts[p][0], out[p]
            nodes = index.post_node[span][keep]
            freq = weights[0] * index.post_name_tf[span][keep] + weights[1] * index.post_text_tf[span][keep]
            norm = K1 * (1 - B + B * index.lengths[nodes] / max(avgdl, 1e-9))
            score[nodes] += idf * freq * (K1 + 1) / (freq + norm)
            matched[nodes] = True
    return out


def selection_scores(rows: Sequence[tuple[bytes, bytes, int] | None], query: str) -> np.ndarray:
    """BM25 of ``query`` over rows of term counts (``keys`` blob, ``text_tf`` blob, length; None: no row),
    the rows that exist being the collection: the same formula as :func:`overlay_scores` over the text
    column, computed straight from the blobs (only the postings of the query's terms are looked at), so a
    selection of edges is scored without building an index for it."""
    out = np.zeros(len(rows), dtype=np.float64)
    present = [i for i, r in enumerate(rows) if r is not None]
    query_ids = query_keys(query)
    if not present or not query_ids.size:
        return out
    held = [rows[i] for i in present]
    key_blobs, tf_blobs, lengths = zip(*held, strict=True)
    keys = np.frombuffer(b"".join(key_blobs), dtype=np.int64)
    tf = np.frombuffer(b"".join(tf_blobs), dtype=np.uint16)
    sizes = np.fromiter(map(len, key_blobs), dtype=np.int64, count=len(held)) // 8
    lengths = np.asarray(lengths, dtype=np.float64)
    owner = np.repeat(np.asarray(present, dtype=np.int64), sizes)
    hit = np.isin(keys, query_ids)
    keys, tf, owner = keys[hit], tf[hit].astype(np.float64), owner[hit]
    documents = len(held)
    avgdl = max(float(lengths.sum()) / documents, 1e-9)
    length_of = np.zeros(len(rows), dtype=np.float64)
    length_of[present] = lengths
    for key in query_ids.tolist():
        match = keys == key
        df = int(match.sum())
        if not df:
            continue
        idf = max(np.log((documents - df + 0.5) / (df + 0.5)), MIN_IDF)
        at, freq = owner[match], tf[match]
        out[at] += idf * freq * (K1 + 1) / (freq + K1 * (1 - B + B * length_of[at] / avgdl))
    return out
