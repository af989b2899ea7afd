"""The vector scan's sketch (``engine.Sketch``): on real vectors, a search that ranks on the sketch and rescores
its shortlist returns the exact scan's top 10 with the exact scores, filters and multi-passage nodes included.

The store only sketches slices of ``SKETCH_ROWS`` rows or more (20k); here the thresholds are lowered so
that 500 SciFact abstracts (a title passage each, and a second passage for every fourth one) take the
sketched path, with a shortlist of 40 of them (8 % of the slice; at 100k rows the shortlist of 400 is
0.4 %, and bench/README.md measures that size on real vectors)."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from graphlore.store import Node
from graphlore.store.sqlite import SQLiteStore, engine

ABSTRACTS = 500
FEW_ABSTRACTS = 200
QUERIES = 40
LIMIT = 10


def embed_scifact(shared_data, embedder, abstracts: int, queries: int):
    """(node passages, query vectors): the first ``abstracts`` titles, every fourth node with its abstract's
    opening as a second passage; the queries are SciFact's first ``queries`` claims."""
    docs = []
    with (shared_data / "scifact" / "corpus.jsonl").open() as fh:
        for line in fh:
            docs.append(json.loads(line))
            if len(docs) == abstracts:
                break
    claims = []
    with (shared_data / "scifact" / "queries.jsonl").open() as fh:
        for line in fh:
            claims.append(json.loads(line)["text"])
            if len(claims) == queries:
                break
    texts = [d["title"] for d in docs] + [d["text"][:200] for d in docs[::4]]
    vectors = embedder.embed(texts + claims)
    passages = [vectors[i][None, :] for i in range(abstracts)]
    for j, i in enumerate(range(0, abstracts, 4)):
        passages[i] = np.vstack([passages[i], vectors[abstracts + j]])
    return passages, vectors[len(texts):]


@pytest.fixture(scope="module")
def scifact_vectors(shared_data, embedder):
    """The recall test's data: 500 abstracts, 40 claims."""
    return embed_scifact(shared_data, embedder, ABSTRACTS, QUERIES)


@pytest.fixture(scope="module")
def scifact_few(shared_data, embedder):
    """The everyday tests' data: a smaller slice of the same corpus (still over ``SKETCH_ROWS`` once it is
    lowered to 100), and the 5 claims they search; embedding is most of these tests' cost."""
    return embed_scifact(shared_data, embedder, FEW_ABSTRACTS, 5)


def filled_store(path, passages) -> SQLiteStore:
    s = SQLiteStore(path, "test/sketch")
    s.upsert_nodes([Node(f"d{i}", "doc", f"doc {i}", "", {"half": i % 2}, rows) for i, rows in enumerate(passages)])
    return s


@pytest.fixture
def store(tmp_path, scifact_vectors):
    s = filled_store(tmp_path / "store.db", scifact_vectors[0])
    yield s
    s.close()


@pytest.fixture
def few_store(tmp_path, scifact_few):
    s = filled_store(tmp_path / "store.db", scifact_few[0])
    yield s
    s.close()


def searches(store, queries, where=None) -> list[list[tuple[str, float]]]:
    return [[(h.id, h.score) for h in store.vector_search(q, kind="doc", where=where, limit=LIMIT)] for q in queries]


@pytest.mark.slow  # over a second: the everyday run keeps its 2 minutes
@pytest.mark.parametrize("where", [None, {"half": 1}])
def test_the_sketch_and_its_shortlist_give_the_exact_scans_top_10(store, scifact_vectors, monkeypatch, where):
    passages, queries = scifact_vectors
    exact = searches(store, queries, where)
    monkeypatch.setattr(engine, "SKETCH_ROWS", 100)
    monkeypatch.setattr(engine, "SHORTLIST_MIN", 40)
    sketched = searches(store, queries, where)
    assert store._snapshot.base._sketch.usable  # the sketched path ran: real vectors pass its probe check
    found = sum(len({i for i, _ in a} & {i for i, _ in b}) for a, b in zip(exact, sketched, strict=True))
    assert found / (LIMIT * len(queries)) >= 0.99
    for q, hits in zip(queries, sketched, strict=True):
        assert len(hits) == LIMIT
        for node_id, score in hits:
            index = int(node_id[1:])
            assert where is None or index % 2 == 1
            assert score == pytest.approx(float(np.max(passages[index] @ q)), abs=1e-5)  # best passage, exact
        assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


def test_small_slices_and_large_limits_scan_exactly(few_store, scifact_few, monkeypatch):
    _, queries = scifact_few
    monkeypatch.setattr(engine, "SHORTLIST_MIN", 40)
    searches(few_store, queries[:2])
    assert few_store._snapshot.base._sketch is None  # 250 rows < SKETCH_ROWS
    monkeypatch.setattr(engine, "SKETCH_ROWS", 100)
    few_store.vector_search(queries[0], kind="doc", limit=400)  # a shortlist of 1600: no gain over the slice of 250
    assert few_store._snapshot.base._sketch is None


def test_a_sketched_search_after_writes_skips_deleted_nodes_and_finds_rewritten_ones(few_store, scifact_few, monkeypatch):
    """Deleted rows of the sketched part are masked before the shortlist; a rewritten node is scored from the
    small second part (scanned exactly), so the sketch made before the writes never answers for it."""
    passages, queries = scifact_few
    monkeypatch.setattr(engine, "SKETCH_ROWS", 100)
    monkeypatch.setattr(engine, "SHORTLIST_MIN", 40)
    before = searches(few_store, queries[:5])
    assert few_store._snapshot.base._sketch.usable  # the sketched path answered before the writes
    gone = before[0][0][0]
    moved = f"d{(int(before[1][0][0][1:]) + len(passages) // 2) % len(passages)}"  # a node far down query 1's list ...
    few_store.delete_nodes([gone])
    few_store.upsert_nodes([Node(moved, "doc", "moved", "", {"half": 0}, queries[1][None, :])])  # ... now its query
    after = searches(few_store, queries[:5])
    assert all(gone not in {i for i, _ in hits} for hits in after)
    assert after[1][0] == (moved, pytest.approx(1.0, abs=1e-5))
    monkeypatch.setattr(engine, "SKETCH_ROWS", 1 << 62)
    assert [[i for i, _ in hits] for hits in searches(few_store, queries[:5])] == [[i for i, _ in hits] for hits in after]


def subspace_nodes(rng, count: int, kinds: tuple[str, ...], prefix: str, basis: np.ndarray) -> list[Node]:
    """Nodes of 1-3 unit passages inside the span of ``basis`` (fewer rows than SKETCH_DIM): the sketch's
    principal directions hold such vectors whole, so its scores are the exact ones up to rounding."""
    nodes = []
    for i in range(count):
        rows = rng.standard_normal((int(rng.integers(1, 4)), basis.shape[0])).astype(np.float32) @ basis
        nodes.append(Node(f"{prefix}{i}", kinds[i % len(kinds)], f"{prefix} {i}", "", {"half": i % 2},
                          rows / np.linalg.norm(rows, axis=1, keepdims=True)))
    return nodes


@pytest.fixture
def subspace_store(tmp_path):
    rng = np.random.default_rng(7)
    basis = np.linalg.qr(rng.standard_normal((384, 64)))[0].T.astype(np.float32)
    s = SQLiteStore(tmp_path / "sub.db", "test/sketch-subspace")
    s.upsert_nodes(subspace_nodes(rng, 600, ("a", "b", "c"), "n", basis))
    queries = rng.standard_normal((12, 64)).astype(np.float32) @ basis
    yield s, rng, basis, queries / np.linalg.norm(queries, axis=1, keepdims=True)
    s.close()


def ranked(store, queries, kind, where, limit):
    return [[h.id for h in store.vector_search(q, kind=kind, where=where, limit=limit)] for q in queries]


def test_on_vectors_the_sketch_holds_whole_every_kind_filter_and_limit_ranks_as_the_exact_scan(subspace_store,
                                                                                                monkeypatch):
    """Every slice of the sketched part (the first kind, later kinds, all kinds), with and without a filter,
    at limits inside and at the shortlist's size, gives the exact scan's list."""
    store, _, _, queries = subspace_store
    monkeypatch.setattr(engine, "SHORTLIST_MIN", 20)
    for kind in (None, "a", "b", "c"):
        for where in (None, {"half": 1}):
            for limit in (1, 10, 20):
                monkeypatch.setattr(engine, "SKETCH_ROWS", 1 << 62)
                exact = ranked(store, queries, kind, where, limit)
                monkeypatch.setattr(engine, "SKETCH_ROWS", 100)
                assert ranked(store, queries, kind, where, limit) == exact, (kind, where, limit)
    assert store._snapshot.base._sketch is not None


def test_the_second_part_is_scanned_exactly_however_large(subspace_store, monkeypatch):
    """The second part is made again after every write: sketching it would rebuild a sketch (principal
    directions and a projection of every row) on the first search after each write."""
    store, rng, basis, queries = subspace_store
    ranked(store, queries, "a", None, 10)  # the first part: the 600 nodes
    store.upsert_nodes(subspace_nodes(rng, 400, ("a",), "w", basis))  # a second part of 400+ rows
    monkeypatch.setattr(engine, "SKETCH_ROWS", 100)
    monkeypatch.setattr(engine, "SHORTLIST_MIN", 20)
    exact = ranked(store, queries, "a", None, 10)
    assert len(store._snapshot.delta) == 400
    assert store._snapshot.base._sketch is not None
    assert store._snapshot.delta._sketch is None
    monkeypatch.setattr(engine, "SKETCH_ROWS", 1 << 62)
    assert ranked(store, queries, "a", None, 10) == exact


def test_concurrent_first_searches_make_one_sketch_and_agree(subspace_store, monkeypatch):
    """Searches rank without the store's lock: the first ones to need the sketch wait for one build."""
    store, _, _, queries = subspace_store
    monkeypatch.setattr(engine, "SHORTLIST_MIN", 20)
    monkeypatch.setattr(engine, "SKETCH_ROWS", 1 << 62)
    exact = ranked(store, queries, "a", None, 10)
    made, real = [], engine.Sketch

    def slow_sketch(matrix):
        made.append(1)
        time.sleep(0.2)  # widens the window in which another search could start a second build
        return real(matrix)

    monkeypatch.setattr(engine, "Sketch", slow_sketch)
    monkeypatch.setattr(engine, "SKETCH_ROWS", 100)
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: ranked(store, queries, "a", None, 10), range(4)))
    assert made == [1]
    assert answers == [exact] * 4


def test_a_sketch_that_loses_its_probes_exact_neighbours_is_not_used(tmp_path, monkeypatch):
    """Vectors without dominant directions (random ones, as a flat-spectrum embedder's might be) lose the exact
    top 10 on a sketch (top-10 recall ~0.5): the sketch finds it on its probe rows when it is made, and the part
    is scanned exactly."""
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((3000, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = vectors[:20] + 0.5 * rng.standard_normal((20, 384)).astype(np.float32)
    s = SQLiteStore(tmp_path / "random.db", "test/random")
    try:
        s.upsert_nodes([Node(f"r{i}", "doc", f"r {i}", "", {}, v[None, :]) for i, v in enumerate(vectors)])
        exact = searches(s, queries)
        monkeypatch.setattr(engine, "SKETCH_ROWS", 1000)
        monkeypatch.setattr(engine, "SHORTLIST_MIN", 40)
        assert searches(s, queries) == exact
        sketch = s._snapshot.base._sketch
        assert sketch is not None and not sketch.usable and sketch.recall < engine.SKETCH_MIN_RECALL
    finally:
        s.close()


@pytest.mark.parametrize("in_place", [1, 64, 1 << 30])
def test_rescoring_reads_adjacent_nodes_in_place_and_gathers_the_rest_with_the_same_scores(monkeypatch, in_place):
    """The shortlist's rescoring scores long runs of adjacent nodes where they lie and copies out the others
    (``IN_PLACE_ROWS``): whichever way a node's rows are read, its score is its best passage's cosine, and
    the nodes it is asked about come back in any order."""
    rng = np.random.default_rng(11)
    counts = [40, 40, 3, 1, 100, 2, 1, 1, 70, 5] * 6
    rows = [(i + 1, f"n{i}", "doc") for i in range(len(counts))]
    passages = [rng.standard_normal((c, 384)).astype(np.float32) for c in counts]
    passages = [p / np.linalg.norm(p, axis=1, keepdims=True) for p in passages]
    part = engine.Part(rows, {i + 1: [r.tobytes() for r in p] for i, p in enumerate(passages)}, 384)
    query = rng.standard_normal(384).astype(np.float32)
    query /= np.linalg.norm(query)
    monkeypatch.setattr(engine, "IN_PLACE_ROWS", in_place)
    start, end = part.span("doc")
    nodes = rng.permutation(len(counts))[:37]  # adjacent and scattered nodes, not in matrix order
    got = part._rescored(query, start, part.starts - start, 0, nodes, len(counts))
    want = np.full(len(counts), -np.inf, dtype=np.float32)
    want[nodes] = [np.max(passages[n] @ query) for n in nodes]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
    assert np.isinf(got).sum() == len(counts) - len(nodes)
