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
  (0: first): the keyword side's agreement with the passages' verdict;
- in a library with a fresh calibration of its own (judge v11, :data:`WHITENED_FEATURES`): the best one's
  cosine to its skill's mean condition in the library's whitened space (:mod:`whitening`), and that minus the
  best rival's: the whitened metric read as evidence, not only as a move of the rank.

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
#: Judge v11's evidence in a library with a fresh calibration of its own (:mod:`whitening`): :data:`FEATURES`, then
#: the best candidate's whitened prototype cosine and that minus the best rival's.
WHITENED_FEATURES = (*FEATURES, "whitened", "whitened_margin")
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

# Judge v11's network for libraries with a fresh calibration of their own, whose candidates are re-ranked in the
# library's whitened space and whose whitened evidence is two more inputs (:data:`WHITENED_FEATURES`): refitted on
# that evidence by judge v5's procedure over the training folds (bench/skills_fit.py ``refit_decisions``, printed
# by ``bench/skills_routing.py --whiten-inputs`` as "inputs, moved order"); regenerated there, never edited by hand.
WHITENED = Network(
    mean=np.array([0.706528, -0.062105, 0.353205, 0.850066, 0.82884, 0.079352, 0.136856, 0.061769, -0.237724, 0.166122, 0.782653, 0.241151, 0.539947, 0.237178]),
    scale=np.array([0.163062, 0.146896, 0.252532, 0.25251, 0.24625, 0.203513, 0.086657, 0.062146, 0.133582, 0.139957, 0.163917, 0.699918, 0.200845, 0.18229]),
    w1=np.array([
        [-0.093763, 0.893491, 0.420102, 0.73555, -0.462237, -0.100453, -0.108767, 0.312456],
        [0.53314, -1.219273, 0.252219, -0.524536, 0.422381, -0.156027, 0.030222, -0.222393],
        [-0.436887, 0.283212, -0.544039, -0.164356, 0.366685, 0.323218, -0.280413, -0.73104],
        [-0.22731, -0.001062, -0.151494, 0.040414, -0.111059, 0.208461, 0.381557, 0.29866],
        [0.096494, -0.077887, -0.079582, -0.055025, -0.093388, 0.123707, -0.009667, -0.024416],
        [0.097652, 0.113782, -0.048209, 0.359324, 0.043856, 0.023236, 0.057939, -0.298776],
        [-0.205247, -0.149844, -0.077284, 0.105207, -0.007889, 0.106063, 0.29773, -0.064116],
        [0.131007, -0.121181, -0.03804, 0.000258, -0.263762, 0.08237, -0.007982, -0.160265],
        [0.068116, -0.312188, 0.129445, -0.028773, 0.233746, -0.325657, -0.09468, 0.06269],
        [-0.224103, -0.610992, 0.132605, -0.151234, -0.111187, -0.501948, 0.933833, 0.822004],
        [0.223357, 0.419662, 0.675216, 0.443453, -0.129689, 0.108642, 0.331325, 0.758306],
        [-0.16397, 0.161943, -0.573259, 0.315253, 0.127271, -0.029227, -0.044785, 0.078832],
        [0.352527, 0.348127, -0.328391, -0.939336, 0.436265, 0.490618, -0.379616, -0.20667],
        [-0.709618, 0.178474, 0.402228, 0.307214, 0.43873, 0.765342, 0.347464, 0.464287],
    ]),
    b1=np.array([-0.209359, -0.984572, -1.014609, 1.012454, 0.25512, 1.271876, -0.402331, -0.974271]),
    out_w=np.array([1.056506, -1.707298, 0.981635, -1.487848, 1.18912, 1.375763, 1.048337, 1.482009]),
    out_b=1.308144,
    bias=1.65,
)


class Evidence(Protocol):
    """What the judge scored for one candidate (:class:`judge.Scored`)."""

    match: float
    rank: float
    typical: float
    cosines: np.ndarray
    #: The whitened prototype cosine (:mod:`whitening`): in a calibrated library only (None or absent elsewhere).
    whitened: float | None


def features(best: Evidence, rivals: Sequence[Evidence], position: int = 0) -> np.ndarray:
    """The evidence for returning ``best`` against its ``rivals`` (best first, by rank), as :data:`FEATURES`
    (``position``: the best one's place in the hybrid search's fused order), or as :data:`WHITENED_FEATURES` when
    the best one carries a whitened score. With no rival the search is treated as a tie with a runner-up like the
    best (margins 0): its own evidence must carry it."""
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
    row = [best.match, best.match - best.typical, margin, nearest[:5].mean(), nearest.mean(), entropy,
           top[0] - top[min(9, len(top) - 1)], top[0] - top[min(2, len(top) - 1)], runner_above, match_margin, top[0],
           position]
    white = getattr(best, "whitened", None)
    if white is not None:
        row += [white, white - max((r.whitened for r in rivals if r.whitened is not None), default=white)]
    return np.array(row)


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
