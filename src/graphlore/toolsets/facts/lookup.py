"""Finding an entity or topic by name and definition: the texts BM25 sees, and codes first.

A node's keyword text holds its name, definition and aliases, plus its codes
written as whole tokens: the store's tokeniser splits "KX-TCA86" into "kx" and
"tca86", which a query for "KXTCA86" would not match, so "kxtca86" is added. The
vector side embeds ``"{name}: {definition}"`` (:func:`graph.node_text`).

``find`` ranks with the platform's :func:`graphlore.search.hybrid_search` (BM25 and
cosine over the nodes of the selector's kind, fused ``anchored`` as items
search does, scores the clipped cosine) with :data:`FIND`, then
:func:`codes_first` puts the nodes whose names carry a strong code of the query's
name first: a model number names one product, however alike the neighbours read
("LN32A450" before "LN32A650"). That re-sort stays here rather than in
``hybrid_search``: what counts as a code, and that it outranks every text signal,
is the facts toolset's rule, not a property of ranking in general. How the
variants compare on public entity-resolution sets is in bench/README.md
(``bench/facts_resolution.py --er``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from graphlore.search import HybridParams
from graphlore.search import fusion as retrieval
from graphlore.toolsets.facts.codes import identifiers

#: How find ranks: BM25 over the node's name and keyword text (a match in the name says more) fused ``anchored``
#: with the cosine ranking, each side asked for :data:`graphlore.search.fusion.CANDIDATES` hits. ``tools.find``
#: takes it as a parameter (benches pass variants).
FIND = HybridParams(candidates=retrieval.CANDIDATES, field_weights=retrieval.TITLE_FIELD_WEIGHTS, method="anchored")


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


def keyword_query(name: str) -> str:
    """The BM25 query of a selector: its name and the name's code tokens (the definition is the vector side's)."""
    return " ".join([name, *code_tokens([name])])


def codes_first(order: Sequence[str], coded: Sequence[str]) -> list[str]:
    """``order`` (fused, best first) with the nodes of ``coded`` (whose names carry a strong code of the
    query's name) moved first, in fused order among themselves; coded nodes the fusion did not list
    follow them in id order. Unchanged when nothing is coded."""
    if not coded:
        return list(order)
    listed = set(order)
    first = set(coded)
    out = [i for i in order if i in first] + [i for i in sorted(first) if i not in listed]
    return out + [i for i in order if i not in first]
