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
MEAN = np.array([0.710328, -0.059577, 0.173056, 0.849607, 0.818289, 0.196083, 0.141081, 0.064789, -0.230154, 0.168664, 0.78671])
SCALE = np.array([0.158208, 0.142254, 0.128271, 0.246477, 0.255427, 0.350365, 0.089825, 0.066079, 0.127044, 0.133391, 0.158853])
W1 = np.array([
    [-0.101492, 0.016522, 0.712845, 0.291858, 0.458581, 0.195883, 0.814134, 0.756058],
    [0.095048, 0.175918, -0.631627, 0.126989, -0.439199, -0.41731, -1.152754, -0.280041],
    [-0.902767, 0.149791, -0.511005, 0.101731, 0.446482, 0.497776, 0.895033, -0.632079],
    [-0.112093, 0.170839, 0.07486, 0.032959, 0.249513, 0.036905, -0.058101, 0.207694],
    [-0.098148, -0.022367, 0.304369, -0.001594, 0.147302, -0.052346, -0.254231, 0.051949],
    [0.86338, -0.240915, 0.20233, -0.220491, 0.141363, 0.374611, 0.142019, -0.115496],
    [0.024748, 0.20187, 0.585982, -0.636171, -0.305914, 0.141863, -0.186124, -0.019924],
    [0.005214, 0.040115, 0.062681, -0.050861, -0.373229, 0.077929, 0.036249, -0.242015],
    [-0.048515, -0.325093, -0.076749, 0.276621, -0.140315, -0.359212, -0.033642, -0.119449],
    [0.136413, 0.613986, -0.375088, -0.441542, -0.540145, 0.836555, -0.437286, 0.704087],
    [-0.309402, 0.253307, 0.312211, 0.347161, 0.126771, -0.036135, 0.247741, 1.014772],
])
B1 = np.array([0.076875, -0.437055, 0.827519, 1.977182, -1.0811, 1.141418, -0.586868, -1.319572])
OUT_W = np.array([-1.241775, 0.904784, -1.418749, 0.968433, -1.004173, -1.148382, -1.508703, 1.856839])
OUT_B = 1.053306
#: The shift of the decision value at the largest smallest margin over the targets on the training folds.
BIAS = 1.615


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
