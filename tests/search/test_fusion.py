"""Fusion and score reporting: hand-computed references plus properties."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graphlore.search import fusion as retrieval
from graphlore.search.fusion import (
    anchored,
    convex,
    cosine_to_unit,
    fuse,
    max_scaled,
    minmax,
    ranked,
    rrf,
    zscore,
)
from graphlore.store.base import Hit

# -- reciprocal rank fusion -------------------------------------------------------


def test_rrf_matches_hand_computed_reference():
    fused = rrf([["a", "b", "c"], ["b", "c", "d"]], k=60)
    expected = {
        "a": 1 / 61,
        "b": 1 / 62 + 1 / 61,
        "c": 1 / 63 + 1 / 62,
        "d": 1 / 63,
    }
    assert [item for item, _ in fused] == ["b", "c", "a", "d"]
    for item, score in fused:
        assert score == pytest.approx(expected[item], rel=1e-12)


def test_rrf_weights_and_k():
    fused = dict(rrf([["a"], ["b"]], k=0, weights=[2.0, 1.0]))
    assert fused == {"a": 2.0, "b": 1.0}


def test_rrf_counts_a_repeated_id_once_at_its_best_rank():
    assert dict(rrf([["a", "b", "a"]], k=1)) == {"a": 1 / 2, "b": 1 / 3}


def test_rrf_rejects_bad_arguments():
    with pytest.raises(ValueError, match="k must be"):
        rrf([["a"]], k=-1)
    with pytest.raises(ValueError, match="weights"):
        rrf([["a"], ["b"]], weights=[1.0])


# -- score normalisation and convex fusion -----------------------------------------


def test_minmax_and_zscore_reference_values():
    assert minmax({"a": 10.0, "b": 5.0, "c": 0.0}) == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert minmax({"a": 3.0, "b": 3.0}) == {"a": 1.0, "b": 1.0}
    assert minmax({}) == {}
    z = zscore({"a": 1.0, "b": 2.0, "c": 3.0})
    assert z["b"] == pytest.approx(0.0)
    assert z["c"] == pytest.approx(math.sqrt(1.5))
    assert zscore({"a": 2.0, "b": 2.0}) == {"a": 0.0, "b": 0.0}


def test_convex_with_minmax_matches_hand_computed_reference():
    keyword = {"a": 10.0, "b": 5.0, "c": 0.0}
    vector = {"a": 0.2, "b": 0.9}
    fused = convex([keyword, vector], [0.5, 0.5], minmax)
    # a: .5*1 + .5*0 ; b: .5*.5 + .5*1 ; c: .5*0 + .5*0 (missing from the vector list)
    assert fused == [("b", pytest.approx(0.75)), ("a", pytest.approx(0.5)), ("c", pytest.approx(0.0))]


def test_convex_with_zscore_gives_missing_ids_the_list_floor():
    fused = dict(convex([{"a": 1.0, "b": 2.0, "c": 3.0}, {"a": 1.0, "b": 3.0}], [1.0, 1.0], zscore))
    floor = -math.sqrt(1.5)
    assert fused["c"] == pytest.approx(math.sqrt(1.5) + (-1.0))  # vector floor is a's z-score, -1
    assert fused["a"] == pytest.approx(floor - 1.0)


def test_convex_rejects_mismatched_weights():
    with pytest.raises(ValueError, match="weights"):
        convex([{"a": 1.0}], [0.5, 0.5])
    with pytest.raises(ValueError, match="normalisers"):
        convex([{"a": 1.0}], [1.0], [minmax, minmax])


def test_max_scaled_keeps_zero_and_falls_back_to_minmax():
    assert max_scaled({"a": 8.0, "b": 2.0}) == {"a": 1.0, "b": 0.25}
    assert max_scaled({"a": -1.0, "b": -3.0}) == {"a": 1.0, "b": 0.0}
    assert max_scaled({"a": 4.0, "b": -4.0}) == {"a": 1.0, "b": 0.0}
    assert max_scaled({}) == {}


def test_anchored_matches_hand_computed_reference():
    keyword = {"a": 8.0, "b": 2.0}
    vector = {"b": 0.6, "c": 0.5}
    fused = dict(anchored(keyword, vector, (0.3, 0.7)))
    # keyword: a 1.0, b 0.25, c gets the floor 0.25; vector kept as is, a gets the floor 0.5
    assert fused == {
        "a": pytest.approx(0.3 * 1.0 + 0.7 * 0.5),
        "b": pytest.approx(0.3 * 0.25 + 0.7 * 0.6),
        "c": pytest.approx(0.3 * 0.25 + 0.7 * 0.5),
    }


def test_anchored_leans_on_keywords_when_no_vector_is_close():
    """The same keyword ranking; only the absolute cosine level differs, and with it the winner."""
    keyword = {"kw_best": 10.0, "vec_best": 5.0}
    close = dict(anchored(keyword, {"kw_best": 0.55, "vec_best": 0.95}, (0.3, 0.7)))
    assert max(close, key=close.get) == "vec_best"
    far = {"kw_best": 0.10, "vec_best": 0.20}
    assert (
        dict(anchored(keyword, far, (0.3, 0.7)))["kw_best"]
        > dict(anchored(keyword, far, (0.3, 0.7)))["vec_best"]
    )


# -- the fuse entry point --------------------------------------------------------

KEYWORD = [Hit("k1", 12.0), Hit("both", 9.0), Hit("k2", 3.0)]
VECTOR = [Hit("v1", 0.81), Hit("both", 0.78), Hit("v2", 0.40)]


@pytest.mark.parametrize("method", retrieval.FUSION_METHODS)
def test_fuse_returns_hits_best_first(method):
    fused = fuse(KEYWORD, VECTOR, method=method)
    assert all(isinstance(h, Hit) for h in fused)
    scores = [h.score for h in fused]
    assert scores == sorted(scores, reverse=True)
    expected = {"keyword": {h.id for h in KEYWORD}, "vector": {h.id for h in VECTOR}}.get(
        method, {h.id for h in KEYWORD + VECTOR}
    )
    assert {h.id for h in fused} == expected


@pytest.mark.parametrize("method", ["anchored", "convex", "zscore", "rrf"])
def test_fuse_ranks_the_hit_both_sides_agree_on_first(method):
    assert fuse(KEYWORD, VECTOR, method=method)[0].id == "both"


def test_fuse_default_is_the_documented_default():
    default = retrieval.DEFAULT_METHOD
    assert fuse(KEYWORD, VECTOR) == fuse(
        KEYWORD, VECTOR, method=default, weights=retrieval.METHOD_WEIGHTS[default]
    )


def test_fuse_rejects_weights_that_are_not_a_pair():
    with pytest.raises(ValueError, match="weights must be"):
        fuse(KEYWORD, VECTOR, weights=(1.0,))


def test_fuse_with_one_side_empty_keeps_the_other_order():
    for method in ("anchored", "convex", "zscore", "rrf"):
        assert [h.id for h in fuse([], VECTOR, method=method)] == ["v1", "both", "v2"]
        assert [h.id for h in fuse(KEYWORD, [], method=method)] == ["k1", "both", "k2"]
        assert fuse([], [], method=method) == []


def test_fuse_rejects_unknown_method():
    with pytest.raises(ValueError, match="unknown fusion method 'magic'; use one of"):
        fuse(KEYWORD, VECTOR, method="magic")


hit_lists = st.lists(
    st.tuples(st.sampled_from([f"n{i}" for i in range(12)]), st.floats(-50, 50, allow_nan=False)),
    max_size=12,
    unique_by=lambda pair: pair[0],
).map(lambda pairs: [Hit(i, s) for i, s in pairs])
cosine_lists = st.lists(
    st.tuples(st.sampled_from([f"n{i}" for i in range(12)]), st.floats(-1, 1, allow_nan=False)),
    max_size=12,
    unique_by=lambda pair: pair[0],
).map(lambda pairs: [Hit(i, s) for i, s in pairs])


@settings(max_examples=200)
@given(
    keyword=hit_lists,
    vector=cosine_lists,
    method=st.sampled_from(retrieval.FUSION_METHODS),
    seed=st.integers(),
)
def test_fusion_does_not_depend_on_input_order(keyword, vector, method, seed):
    """Hits in a list arrive in score order, but equal scores may come in any order: ties are broken by id."""
    rng = random.Random(seed)
    shuffled_k, shuffled_v = keyword[:], vector[:]
    rng.shuffle(shuffled_k)
    rng.shuffle(shuffled_v)
    by_score = lambda hits: sorted(hits, key=lambda h: -h.score)  # noqa: E731  (stable: keeps tie order)
    assert fuse(by_score(keyword), by_score(vector), method=method) == fuse(
        by_score(shuffled_k), by_score(shuffled_v), method=method
    )


@settings(max_examples=200)
@given(keyword=hit_lists, vector=cosine_lists, alpha=st.floats(0, 1))
def test_convex_scores_stay_in_unit_range(keyword, vector, alpha):
    for hit in fuse(keyword, vector, method="convex", weights=(alpha, 1 - alpha)):
        assert -1e-9 <= hit.score <= 1 + 1e-9


@settings(max_examples=200)
@given(keyword=hit_lists, vector=cosine_lists, alpha=st.floats(0, 1))
def test_anchored_scores_stay_in_cosine_range(keyword, vector, alpha):
    for hit in fuse(keyword, vector, method="anchored", weights=(alpha, 1 - alpha)):
        assert -1 - 1e-9 <= hit.score <= 1 + 1e-9


@settings(max_examples=200)
@given(keyword=hit_lists, vector=cosine_lists, k=st.integers(0, 100))
def test_rrf_scores_are_bounded_by_first_place_everywhere(keyword, vector, k):
    ceiling = 2 / (k + 1)
    for hit in fuse(keyword, vector, method="rrf", k=k, weights=(1.0, 1.0)):
        assert 0 < hit.score <= ceiling + 1e-12


@settings(max_examples=200)
@given(scores=st.dictionaries(st.text(min_size=1, max_size=3), st.floats(-1e6, 1e6), max_size=20))
def test_minmax_is_monotone_and_in_range(scores):
    normalised = minmax(scores)
    assert all(0.0 <= v <= 1.0 for v in normalised.values())
    for a in scores:
        for b in scores:
            if scores[a] < scores[b]:
                assert normalised[a] <= normalised[b]


@settings(max_examples=50)
@given(
    rankings=st.lists(st.lists(st.integers(0, 30), unique=True, max_size=15), min_size=2, max_size=2),
    k=st.integers(1, 100),
)
def test_rrf_agrees_with_lancedb_reference(rankings, k):
    """LanceDB's RRFReranker is an independent implementation of the same formula (float32 scores)."""
    pa = pytest.importorskip("pyarrow")
    rerankers = pytest.importorskip("lancedb.rerankers", reason="lancedb (bench extra) is the reference")
    vector_ids, fts_ids = rankings
    assume(vector_ids or fts_ids)
    vector = pa.table(
        {
            "_rowid": pa.array(vector_ids, pa.uint64()),
            "_distance": pa.array([float(i) for i in range(len(vector_ids))], pa.float32()),
        }
    )
    fts = pa.table(
        {
            "_rowid": pa.array(fts_ids, pa.uint64()),
            "_score": pa.array([float(-i) for i in range(len(fts_ids))], pa.float32()),
        }
    )
    reference = rerankers.RRFReranker(K=k).rerank_hybrid("q", vector, fts)
    expected = dict(
        zip(reference["_rowid"].to_pylist(), reference["_relevance_score"].to_pylist(), strict=True)
    )
    ours = dict(rrf([[str(i) for i in vector_ids], [str(i) for i in fts_ids]], k=k))
    assert set(ours) == {str(i) for i in expected}
    for row_id, score in expected.items():
        assert ours[str(row_id)] == pytest.approx(score, rel=1e-6)


def test_ranked_breaks_ties_by_id():
    assert ranked({"b": 1.0, "a": 1.0, "c": 2.0}) == [("c", 2.0), ("a", 1.0), ("b", 1.0)]


# -- MMR ---------------------------------------------------------------------------


def _unit(rows):
    matrix = np.asarray(rows, dtype=np.float64)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_cosine_to_unit_is_in_range(score):
    assert 0.0 <= cosine_to_unit(score) <= 1.0


def test_cosine_to_unit_reference_values():
    assert cosine_to_unit(0.75) == 0.75
    assert cosine_to_unit(-0.2) == 0.0
    assert cosine_to_unit(1.0000001) == 1.0
    assert cosine_to_unit(float("nan")) == 0.0


@given(st.floats(-2, 2), st.floats(-2, 2))
def test_cosine_to_unit_is_monotone(a, b):
    if a <= b:
        assert cosine_to_unit(a) <= cosine_to_unit(b)
