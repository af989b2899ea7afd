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
  close example vs a region of them);
- where the hybrid search (keyword and vector sides fused) placed the best one among the candidates
  (0: first): the keyword side's agreement with the passages' verdict.

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
from dataclasses import dataclass
from typing import Protocol

import numpy as np

#: The evidence the network reads, in order (see the module docstring).
FEATURES = ("match", "above_typical", "margin", "nearest_5_share", "nearest_10_share", "rank_entropy",
            "spread_10", "spread_3", "runner_up_above_typical", "match_margin", "best_cosine", "fused_position")
#: Temperature of the softmax over the candidates' ranks whose entropy is a feature.
ENTROPY_TAU = 0.02
#: Nearest passages whose owners are counted (the first 5 and all 10).
NEAREST = 10
HIDDEN = 8

# Fitted by bench/skills_fit.py (training data only); regenerated there, never edited by hand.
MEAN = np.array([0.709515, -0.059282, 0.176489, 0.859372, 0.830098, 0.163252, 0.141593, 0.065074, -0.231807, 0.171483, 0.785995, 0.225641])
SCALE = np.array([0.159811, 0.144171, 0.128314, 0.235412, 0.243936, 0.295429, 0.089782, 0.066132, 0.12968, 0.133006, 0.160342, 0.682252])
W1 = np.array([
    [0.510523, 0.707333, 0.297155, -0.071613, 0.388869, 0.662706, 0.810093, -0.014027],
    [0.141114, -0.727603, -0.62415, 0.045432, 0.1712, -0.162702, -1.145861, 0.150925],
    [-0.54232, -0.670815, -0.229126, 0.159793, 0.149807, -0.739002, 0.897178, -0.866396],
    [0.008214, 0.165868, -0.183722, -0.416578, 0.020769, 0.292687, 0.109254, 0.068788],
    [0.172148, 0.100183, -0.221421, 0.028963, 0.111892, 0.053272, -0.235504, 0.206111],
    [-0.159908, 0.085459, -0.114939, 0.290784, 0.016681, -0.441482, -0.085913, 0.349158],
    [0.117337, 0.368966, 0.013039, -0.192369, -0.426723, -0.042591, -0.215113, 0.170029],
    [0.28419, -0.060588, 0.095845, -0.114388, 0.091651, -0.167737, -0.124478, 0.325087],
    [0.467655, -0.224109, -0.236619, 0.318959, 0.244051, -0.144513, -0.073666, 0.018297],
    [-0.469315, 0.068992, 0.155918, -0.822202, -0.27577, 0.757853, -0.814472, 0.615224],
    [0.500305, 0.425198, 0.107921, -0.393323, 0.430744, 0.866804, 0.354151, -0.142324],
    [-0.234634, 0.007176, 0.038158, -0.086492, 0.016652, 0.09919, 0.118373, 0.284333],
])
B1 = np.array([-1.346933, 0.698722, -0.529005, 0.558015, 2.114649, -1.301389, -0.823927, -0.410853])
OUT_W = np.array([0.859728, -1.460043, -0.897667, -1.165806, 0.844414, 1.733984, -1.656638, -1.207703])
OUT_B = 0.722006
#: The shift of the decision value at the largest smallest margin over the targets on the training folds
#: (a library's own calibration moves it further, :mod:`selfcheck`).
BIAS = 1.485


@dataclass(frozen=True)
class Network:
    """One set of the network's constants (see :func:`network`) and the bias it answers at."""

    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    out_w: np.ndarray
    out_b: float
    bias: float


#: Judge v7's network: libraries without a fresh calibration of their own, on the shipped rank.
SHIPPED = Network(MEAN, SCALE, W1, B1, OUT_W, OUT_B, BIAS)

# Judge v10's network for libraries with a fresh calibration of their own, whose candidates are re-ranked in the
# library's whitened space (:mod:`whitening`): refitted on that evidence by judge v5's procedure over the
# training folds (bench/skills_fit.py ``whiten_decision``, printed by ``bench/skills_routing.py --whiten``);
# regenerated there, never edited by hand.
WHITENED = Network(
    mean=np.array([0.706528, -0.062105, 0.353205, 0.850066, 0.82884, 0.079352, 0.136856, 0.061769, -0.237724, 0.166122, 0.782653, 0.241151]),
    scale=np.array([0.163062, 0.146896, 0.252532, 0.25251, 0.24625, 0.203513, 0.086657, 0.062146, 0.133582, 0.139957, 0.163917, 0.699918]),
    w1=np.array([
        [0.659141, 0.036181, 0.038359, -0.083437, -0.672602, 0.032136, 0.787554, 0.535082],
        [-0.452065, -0.698851, -0.050806, -0.009314, -0.148247, 0.191626, -1.139511, -0.577234],
        [-0.332182, 0.772432, -0.932942, 0.234107, 0.053051, 0.802783, 0.765774, -0.885228],
        [0.253094, 0.020112, -0.270892, -0.277393, -0.068973, -0.062511, 0.223348, 0.085043],
        [-0.0514, -0.141446, 0.075589, -0.029667, 0.150585, 0.042795, -0.14552, 0.117979],
        [0.059349, -0.136836, -0.065482, 0.593202, -0.072561, -0.30298, 0.014253, 0.191619],
        [0.021183, 0.188712, -0.170567, -0.221666, -0.279781, -0.272631, -0.201004, 0.122163],
        [-0.212487, -0.218607, -0.010732, -0.04248, -0.050598, -0.14391, -0.155128, 0.178407],
        [0.116174, -0.089675, -0.134558, 0.072857, -0.159487, -0.275777, -0.186039, -0.475322],
        [0.779333, 0.194056, 0.497641, -0.940551, 0.271455, -0.362061, -0.777026, 0.097852],
        [0.843063, -0.188301, -0.09249, -0.37173, -0.511112, 0.140341, 0.345609, 0.23891],
        [0.030874, 0.334412, 0.190048, -0.064324, 0.211788, -0.295533, 0.086135, -0.120409],
    ]),
    b1=np.array([-1.169275, 0.269893, -0.63929, 0.420902, -0.926827, 0.271122, -1.128769, 0.048635]),
    out_w=np.array([1.531747, -1.204987, -1.085424, -1.083983, 0.775016, 0.99195, -1.859383, -1.280051]),
    out_b=0.447517,
    bias=1.555,
)


class Evidence(Protocol):
    """What the judge scored for one candidate (:class:`judge.Scored`)."""

    match: float
    rank: float
    typical: float
    cosines: np.ndarray


def features(best: Evidence, rivals: Sequence[Evidence], position: int = 0) -> np.ndarray:
    """The evidence for returning ``best`` against its ``rivals`` (best first, by rank), as :data:`FEATURES`
    (``position``: the best one's place in the hybrid search's fused order). With no rival the search is
    treated as a tie with a runner-up like the best (margins 0): its own evidence must carry it."""
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
                     match_margin, top[0], position])


def network(x: np.ndarray, w1: np.ndarray = W1, b1: np.ndarray = B1, out_w: np.ndarray = OUT_W,
            out_b: float = OUT_B, mean: np.ndarray = MEAN, scale: np.ndarray = SCALE) -> np.ndarray:
    """The network's output for feature rows ``x`` (one row or many), before :data:`BIAS`."""
    z = (np.asarray(x, dtype=np.float64) - mean) / scale
    return np.tanh(z @ w1 + b1) @ out_w + out_b


def outputs(x: np.ndarray, net: Network = SHIPPED) -> np.ndarray:
    """``net``'s output for feature rows ``x``, before its bias."""
    return network(x, net.w1, net.b1, net.out_w, net.out_b, net.mean, net.scale)


def value(x: np.ndarray, net: Network = SHIPPED) -> float:
    """The decision value of one search's features by ``net``; >= 0 answers."""
    return float(outputs(x, net)) + net.bias
