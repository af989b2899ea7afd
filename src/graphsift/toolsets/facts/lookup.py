"""Finding an entity or topic by name and definition: the texts BM25 sees, and one fused ranking.

Pure functions (no store, no model): :mod:`tools` and :mod:`resolve` pass in what the
store returned. A node's keyword text holds its name, definition and aliases, plus
its codes written as whole tokens: the store's tokeniser splits "KX-TCA86" into
"kx" and "tca86", which a query for "KXTCA86" would not match, so "kxtca86" is
added. The vector side embeds ``"{name}: {definition}"`` (:func:`graph.node_text`).

:func:`rank` fuses BM25 and cosine as items search does
(:func:`graphsift.search.fusion.fuse`, ``anchored``), then puts the nodes whose names
carry a strong code of the query's name first: a model number names one product,
however alike the neighbours read ("LN32A450" before "LN32A650").

Measured with ``bench/facts_resolution.py --er`` (find over the left table of each
set, one selector per right record that has a true match), top-1 / top-5:
see :data:`FIND_METHOD` and the bench's ``find`` lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from graphsift.search import fusion as retrieval
from graphsift.store import Hit
from graphsift.toolsets.facts.codes import identifiers

#: How find fuses its keyword and vector rankings (a :func:`retrieval.fuse` method).
FIND_METHOD = "anchored"
#: BM25 column weights (node name, keyword text): a match in the name says more.
FIND_FIELD_WEIGHTS = retrieval.TITLE_FIELD_WEIGHTS
#: Hits asked of each side before fusing.
FIND_DEPTH = retrieval.CANDIDATES
#: What the BM25 query holds: the selector's "name" only, or "name+definition".
FIND_QUERY = "name"
#: Nodes whose names carry a strong code of the query's name rank first.
CODES_FIRST = True


def code_tokens(names: Iterable[str]) -> list[str]:
    """The codes of ``names`` that mix letters and digits, as whole tokens ("kxtca86", "m9301zb")."""
    out: dict[str, None] = {}
    for name in names:
        for code in sorted(identifiers(name).codes):
            if code.isalnum() and not code.isdigit() and not code.isalpha():
                out[code] = None
    return list(out)


def keyword_text(name: str, definition: str, aliases: Sequence[str] = ()) -> str:
    """What the store's BM25 indexes for an entity or topic (its ``text`` column)."""
    lines = [f"{name}: {definition}"]
    if aliases:
        lines.append("; ".join(aliases))
    codes = code_tokens([name, *aliases])
    if codes:
        lines.append(" ".join(codes))
    return "\n".join(lines)


def keyword_query(name: str, definition: str) -> str:
    """The BM25 query of a selector: its name and code tokens (with FIND_QUERY "name+definition", the
    definition too)."""
    parts = [name, *code_tokens([name])]
    if FIND_QUERY == "name+definition":
        parts.append(definition)
    return " ".join(parts)


def rank(keyword_hits: Sequence[Hit], vector_hits: Sequence[Hit], coded: Sequence[str] = (),
         method: str | None = None, limit: int | None = None) -> list[str]:
    """Node ids in fused order, at most ``limit``: BM25 and cosine fused by ``method`` (default
    FIND_METHOD), then the nodes of ``coded`` (whose names carry a strong code of the query's name)
    moved first, in fused order among themselves. Ties are broken by id (see :mod:`graphsift.search.fusion`).
    """
    order = [h.id for h in retrieval.fuse(keyword_hits, vector_hits, method or FIND_METHOD)]
    if CODES_FIRST and coded:
        seen = set(order)
        order += [i for i in sorted(set(coded)) if i not in seen]
        first = set(coded)
        order.sort(key=lambda i: i not in first)  # stable: fused order within each group
    return order[:limit]
