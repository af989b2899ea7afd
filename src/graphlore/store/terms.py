"""The words BM25 ranks, the same on every backend: tokenising and the formula's constants.

Text is tokenised as SQLite FTS5's ``porter unicode61 remove_diacritics 2`` does:
runs of letters and digits, case-folded, accents removed, Porter-stemmed. The
SQLite backend scores these terms in numpy (:mod:`graphlore.store.sqlite.bm25`),
the PostgreSQL backend in SQL (:mod:`graphlore.store.postgres.sql`), with the
same constants, so both rank alike.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import Stemmer

#: BM25's constants (FTS5's): term-frequency saturation, length normalisation, and the idf floor.
K1 = 1.2
B = 0.75
MIN_IDF = 1e-6

# Words that match nearly every document: they cost time in an OR query and add no signal.
STOPWORDS = frozenset(
    "a an and are as at be but by for from has have in into is it its of on or that the this to was were "
    "will with not no can do does did how what when where which who why".split()
)
_WORD = re.compile(r"[^\W_]+")
_STEMMER = Stemmer.Stemmer("porter")


@functools.lru_cache(maxsize=500_000)
def _normalise(word: str) -> str:
    folded = unicodedata.normalize("NFKD", word.casefold())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return _STEMMER.stemWord(plain)


def words(text: str) -> list[str]:
    """The raw words of ``text`` (before folding and stemming)."""
    return _WORD.findall(text)


def terms(text: str) -> list[str]:
    """The normalised terms of ``text``, repeats kept (what a node's term counts are made of)."""
    return [_normalise(w) for w in words(text)]


def query_terms(text: str) -> list[str]:
    """Unique normalised terms of a free-text query; stop words dropped unless nothing else is left
    (the PostgreSQL backend ranks these same terms)."""
    raw = words(text)
    kept = [w for w in raw if w.casefold() not in STOPWORDS] or raw
    return list(dict.fromkeys(_normalise(w) for w in kept))
