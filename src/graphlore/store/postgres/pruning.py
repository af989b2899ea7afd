"""Exact top-k BM25 without scoring every node that holds a common query word (MaxScore, in two steps).

Scoring in SQL costs time in proportion to the nodes scored, and a common word is held by a large
share of them (in the 1M-node benchmark one word is in 330k nodes). So a keyword search matches only
some of the query's lexemes, the rarest ones first, scores what they find over *every* query lexeme,
and then proves that the lexemes it did not match could not have changed its top ``limit``:

- One lexeme adds ``idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len / avgdl))`` to a node's score
  (``idf`` and ``avgdl`` those of the searched kind, which every node scored belongs to),
  ``f`` its weighted count in the node. With weights >= 0, ``f >= 0`` and ``1 - b > 0``, so the
  fraction is below 1 and the lexeme adds less than its *bound* ``idf * (k1 + 1)``, whatever the node.
- A node left out holds none of the matched lexemes, so its score is a sum over the unmatched ones
  only: strictly below the sum of their bounds.
- Let ``theta`` be the ``limit``-th best score among the nodes matched (each scored exactly). When the
  unmatched lexemes' bounds sum to at most ``theta``, every node left out scores strictly below the
  ``limit`` nodes returned, so the top ``limit``, and its order (ties by insertion), is exactly what
  scoring every node would give.

If the check fails (or fewer than ``limit`` nodes were matched), :func:`needed` names the lexemes the
next step must also match: all but the longest run of lowest-bound ones whose bounds fit under
``theta``. The next step's own ``theta`` is at least as high (it scores a superset), so it passes its
check, unless its statistics moved (a write in between): then the check runs again on them, and in the
end matching every lexeme is the plain, exact computation. Each step is one statement, so its figures
agree with each other. The bound holds with column weights too; negative weights are never pruned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from graphlore.store.terms import K1

#: Relative slack on the bounds' sum against float rounding of the scores summed in SQL.
SLACK = 1e-9


def bound(idf: float) -> float:
    """What one lexeme can add to any node's score, at most (strictly less, in fact)."""
    return idf * (K1 + 1)


def needed(idf: Mapping[str, float], theta: float | None, weights: tuple[float, float]) -> list[str]:
    """The lexemes a step must match for its top to be exact, given ``theta`` (the ``limit``-th best
    score among the nodes it matched; None when it matched fewer): every lexeme but the longest run of
    lowest-bound ones whose bounds sum to at most ``theta``."""
    if theta is None or min(weights) < 0:
        return list(idf)
    left_out, room = set(), theta
    for lexeme in sorted(idf, key=lambda t: (bound(idf[t]), t)):
        cost = bound(idf[lexeme]) * (1 + SLACK)
        if cost > room:
            break
        room -= cost
        left_out.add(lexeme)
    return [t for t in idf if t not in left_out]


def exact(idf: Mapping[str, float], matched: Sequence[str], theta: float | None,
          weights: tuple[float, float]) -> bool:
    """Whether a step that matched ``matched`` returned the exact top (see the module docstring)."""
    return set(needed(idf, theta, weights)) <= set(matched)
