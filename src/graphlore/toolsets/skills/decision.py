"""Whether the judge's best candidate is enough evidence to return: a tiny fixed network over its evidence.

The judge (:mod:`judge`) ranks the candidates; this module turns what it computed
into one decision value (>= 0 answers). The evidence, per search (:data:`FEATURES`):

- the best candidate's ``match``, and ``match - typical`` (what its own examples reach);
- the ``margin`` of its rank over the runner-up's, and of its match over the best other match;
- the runner-up's match above what *its* examples reach (a runner-up as typical as the best: a close call);
- the **entropy** of a softmax over the candidates' ranks (several candidates near the top: unsure);
- the share of the 5 and of the 10 nearest passages (over every candidate) that are the best one's
  (the label agreement of the nearest examples);
- the best one's best cosine, and how far its 3rd and 10th best passages fall below it (one stray
  close example vs a region of them).

A question of an unknown intent that sits beside a known one ("card delivery estimate" beside "card
arrival") matches that skill about as well as its own examples do; what gives it away is the rest:
the runner-up is as typical, the nearest examples are mixed, the best cosine stands alone.

The features are standardised (:data:`MEAN`, :data:`SCALE`) and read by a network of one hidden layer
of :data:`HIDDEN` tanh units: ``value = OUT_W . tanh(W1^T x + B1) + OUT_B + BIAS``. The rivals are
every other candidate, blocked ones included (:mod:`judge`). Every constant was fitted once by cross-validation on training data only
(``bench/skills_fit.py``, printed by ``bench/skills_routing.py --fit``; how and the figures:
bench/README.md, skills_routing).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

#: The evidence the network reads, in order (see the module docstring).
FEATURES = ("match", "above_typical", "margin", "nearest_5_share", "nearest_10_share", "rank_entropy",
            "spread_10", "spread_3", "runner_up_above_typical", "match_margin", "best_cosine")
#: Temperature of the softmax over the candidates' ranks whose entropy is a feature.
ENTROPY_TAU = 0.02
#: Nearest passages whose owners are counted (the first 5 and all 10).
NEAREST = 10
HIDDEN = 8

# Fitted by bench/skills_fit.py (training data only); regenerated there, never edited by hand.
MEAN = np.array([0.710328, -0.058385, 0.173056, 0.849607, 0.818289, 0.196083, 0.141081, 0.064789, -0.228959, 0.168664, 0.78671])
SCALE = np.array([0.158208, 0.142246, 0.128271, 0.246477, 0.255427, 0.350365, 0.089825, 0.066079, 0.127025, 0.133391, 0.158853])
W1 = np.array([
    [-0.100165, 0.011995, 0.713909, 0.29176, 0.459814, 0.198582, 0.815742, 0.755564],
    [0.094615, 0.175677, -0.629655, 0.126249, -0.43639, -0.419528, -1.1485, -0.284292],
    [-0.901729, 0.157562, -0.510618, 0.104439, 0.447903, 0.4981, 0.892859, -0.635688],
    [-0.113109, 0.165562, 0.07534, 0.033391, 0.250376, 0.035918, -0.058604, 0.207354],
    [-0.098049, -0.023825, 0.303093, -0.002979, 0.147841, -0.053148, -0.25377, 0.051722],
    [0.863963, -0.239689, 0.20105, -0.22038, 0.143244, 0.373813, 0.14112, -0.116739],
    [0.024388, 0.19905, 0.585618, -0.635842, -0.30498, 0.141993, -0.184674, -0.020644],
    [0.006196, 0.041241, 0.06334, -0.050905, -0.371018, 0.07806, 0.036889, -0.243422],
    [-0.048544, -0.324972, -0.077597, 0.275543, -0.140567, -0.35808, -0.036056, -0.120236],
    [0.136287, 0.615743, -0.374209, -0.443094, -0.540559, 0.835192, -0.434854, 0.705696],
    [-0.311117, 0.249643, 0.31192, 0.348205, 0.12464, -0.037331, 0.243042, 1.01888],
])
B1 = np.array([0.076937, -0.44174, 0.829625, 1.975211, -1.079457, 1.137099, -0.584518, -1.318363])
OUT_W = np.array([-1.242583, 0.906444, -1.416573, 0.970936, -1.005912, -1.146383, -1.507522, 1.86192])
OUT_B = 1.059191
#: The shift of the decision value at the largest smallest margin over the targets on the training folds.
BIAS = 1.6


class Evidence(Protocol):
    """What the judge scored for one candidate (:class:`judge.Scored`)."""

    match: float
    rank: float
    typical: float
    cosines: np.ndarray


def features(best: Evidence, rivals: Sequence[Evidence]) -> np.ndarray:
    """The evidence for returning ``best`` against its ``rivals`` (best first, by rank), as :data:`FEATURES`.
    With no rival the search is treated as a tie with a runner-up like the best (margins 0): its own
    evidence must carry it."""
    if rivals:
        runner = rivals[0]
        margin, match_margin = best.rank - runner.rank, best.match - max(r.match for r in rivals)
        runner_above = runner.match - runner.typical
        ranks = np.array([best.rank, *(r.rank for r in rivals)])
    else:
        margin = match_margin = 0.0
        runner_above = best.match - best.typical
        ranks = np.array([best.rank, best.rank])
    weights = np.exp((ranks - ranks.max()) / ENTROPY_TAU)
    p = weights / weights.sum()
    entropy = float(-(p * np.log(np.maximum(p, 1e-12))).sum())
    own = np.asarray(best.cosines, dtype=np.float64)
    pool = np.concatenate([own, *(np.asarray(r.cosines, dtype=np.float64) for r in rivals)])
    nearest = np.argsort(-pool, kind="stable")[:NEAREST] < len(own)
    top = np.sort(own)[::-1]
    return np.array([best.match, best.match - best.typical, margin, nearest[:5].mean(), nearest.mean(), entropy,
                     top[0] - top[min(9, len(top) - 1)], top[0] - top[min(2, len(top) - 1)], runner_above,
                     match_margin, top[0]])


def network(x: np.ndarray, w1: np.ndarray = W1, b1: np.ndarray = B1, out_w: np.ndarray = OUT_W,
            out_b: float = OUT_B, mean: np.ndarray = MEAN, scale: np.ndarray = SCALE) -> np.ndarray:
    """The network's output for feature rows ``x`` (one row or many), before :data:`BIAS`."""
    z = (np.asarray(x, dtype=np.float64) - mean) / scale
    return np.tanh(z @ w1 + b1) @ out_w + out_b


def value(x: np.ndarray) -> float:
    """The decision value of one search's features; >= 0 answers."""
    return float(network(x)) + BIAS
