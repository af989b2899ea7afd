"""A whole facts graph as comparable values: every node (with its lookup keys and vectors) and every edge
(with its vector), read through the Store protocol, so two graphs compare on either backend."""

from __future__ import annotations

import numpy as np

from graphlore.store import Store

#: free-text explanations that may be worded otherwise after a rebuild (everything else compares exactly)
REASONS = ("reason",)


def _clean(value):
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if k not in REASONS}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def graph_state(store: Store) -> tuple[dict, dict, dict]:
    """(nodes by id, edges by id, vectors by id): nodes as (kind, name, text, props, text_hash, keys), edges as
    (src, dst, type, props, text, date); reasons left out (see REASONS)."""
    nodes, vectors = {}, {}
    listed = list(store.iter_nodes(with_vectors=True))
    keys = store.node_keys([n.id for n in listed])
    for n in listed:
        nodes[n.id] = (n.kind, n.name, n.text, _clean(n.props), n.text_hash, keys.get(n.id, []))
        vectors[n.id] = n.vectors
    edges = {}
    for e in store.iter_edges():
        edges[e.id] = (e.src, e.dst, e.type, _clean(e.props), e.text, e.date)
        vectors[e.id] = e.vector
    return nodes, edges, vectors


def assert_same_graph(got: tuple[dict, dict, dict], want: tuple[dict, dict, dict]) -> None:
    (nodes, edges, vectors), (want_nodes, want_edges, want_vectors) = got, want
    assert sorted(nodes) == sorted(want_nodes)
    for node_id, value in want_nodes.items():
        assert nodes[node_id] == value, node_id
    assert sorted(edges) == sorted(want_edges)
    for edge_id, value in want_edges.items():
        assert edges[edge_id] == value, edge_id
    for item, vector in want_vectors.items():
        assert (vector is None) == (vectors[item] is None), item
        if vector is not None:
            assert np.allclose(vectors[item], vector, atol=1e-5), item
