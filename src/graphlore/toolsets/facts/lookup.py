"""Finding an entity or topic by name and definition: the texts BM25 sees, and codes first.

A node's keyword text holds its name, definition and aliases, plus its codes
written as whole tokens: the store's tokeniser splits "KX-TCA86" into "kx" and
"tca86", which a query for "KXTCA86" would not match, so "kxtca86" is added. The
vector side embeds ``"{name}: {definition}"`` (:func:`graph.node_text`).

``find`` ranks with the platform's :func:`graphlore.search.hybrid_search` (BM25 and
exact cosine over the nodes of the selector's kind, fused ``anchored`` as items
search does, scores the clipped cosine) with :func:`params`, then
:func:`codes_first` puts the nodes whose names carry a strong code of the query's
name first: a model number names one product, however alike the neighbours read
("LN32A450" before "LN32A650"). That re-sort stays here rather than in
``hybrid_search``: what counts as a code, and that it outranks every text signal,
is the facts toolset's rule, not a property of ranking in general.

Measured with ``bench/facts_resolution.py --er`` (find over the left table of each
set, one selector per right record that has a true match), top-1 / top-5 per
variant: see the bench's ``find`` lines and ``bench/README.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from graphlore.search import HybridParams
from graphlore.search import fusion as retrieval
from graphlore.toolsets.facts.codes import identifiers

#: How find fuses its keyword and vector rankings (a :data:`graphlore.search.fusion.FUSION_METHODS` name).
FIND_METHOD = "anchored"
#: BM25 column weights (node name, keyword text): a match in the name says more.
FIND_FIELD_WEIGHTS = retrieval.TITLE_FIELD_WEIGHTS
#: Hits asked of each side before fusing.
FIND_DEPTH = retrieval.CANDIDATES
#: What the BM25 query holds: the selector's "name" only, or "name+definition".
FIND_QUERY = "name"
#: Nodes whose names carry a strong code of the query's name rank first.
CODES_FIRST = True


def params() -> HybridParams:
    """find's :class:`HybridParams`, read from the constants above at call time (the bench varies them)."""
    return HybridParams(candidates=FIND_DEPTH, field_weights=FIND_FIELD_WEIGHTS, method=FIND_METHOD)


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


def codes_first(order: Sequence[str], coded: Sequence[str]) -> list[str]:
    """``order`` (fused, best first) with the nodes of ``coded`` (whose names carry a strong code of the
    query's name) moved first, in fused order among themselves; coded nodes the fusion did not list
    follow them in id order. Unchanged when CODES_FIRST is off or nothing is coded."""
    if not CODES_FIRST or not coded:
        return list(order)
    listed = set(order)
    first = set(coded)
    out = [i for i in order if i in first] + [i for i in sorted(first) if i not in listed]
    return out + [i for i in order if i not in first]
