"""The embedding phase: resumable by batch, never keeping a vector made from text a node no longer has,
BM25 until every node is embedded (and saying so), hybrid after, with small updates embedded inline."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from helpers import backend
from helpers.code_graph import FIXTURES, edit

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code.index import code_index as index_module
from graphlore.toolsets.code.index.code_index import CodeIndex
from graphlore.toolsets.code.index.records import embedding_text
from graphlore.toolsets.code.query import models, tools


class Stop(Exception):
    pass


class Batches:
    """The real embedder, asked for ``batch_size`` texts at a time by the orchestration."""

    def __init__(self, inner, batch_size: int) -> None:
        self.inner, self.name, self.dim, self.batch_size = inner, inner.name, inner.dim, batch_size

    def embed(self, texts):
        return self.inner.embed(texts)

    def passages(self, text):
        return self.inner.passages(text)


def run(runtime, tool, progress=None, **fields):
    request = parse_request(getattr(models, f"{tool.capitalize()}Request"), fields)
    extra = {"progress": progress} if progress else {}
    return getattr(tools, tool)(runtime, request, **extra)


def vectors_match_text(store, embedder) -> None:
    """Every node with vectors has exactly the embedding of its current text."""
    nodes = [n for n in store.iter_nodes() if n.text_hash]
    stored = store.node_vectors([n.id for n in nodes])
    ids = [n.id for n in nodes if n.id in stored]
    fresh = embedder.embed([embedding_text(n) for n in nodes if n.id in stored])
    for node_id, vector in zip(ids, fresh, strict=True):
        assert float(stored[node_id][0] @ vector) > 0.999, node_id


def test_embedding_resumes_and_search_says_how_it_ranks(tmp_path, embedder, monkeypatch):
    tree = tmp_path / "py"
    shutil.copytree(FIXTURES / "py-shop", tree)
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=Batches(embedder, 10))
    out = run(runtime, "index", project_path=str(tree), embed=False)
    total = out.index_status.embeddable
    assert out.index_status.embedded == 0 and total > 20 and out.index_status.search_mode == "bm25"

    monkeypatch.setattr(index_module, "EMBED_STEP", 10)  # a commit after every batch of 10
    seen = []

    def stop_after_two_steps(done, of, unit=""):
        if unit:  # the structural phase reports files (read, resolved); the embedding counts nodes
            return
        seen.append((done, of))
        if done >= 20:
            raise Stop

    with pytest.raises(Stop):
        run(runtime, "index", progress=stop_after_two_steps, project_path=str(tree))
    committed = seen[-1][0]  # every batch was committed before its progress was reported
    assert seen[0] == (0, total) and 20 <= committed < total
    search = run(runtime, "search", project_path=str(tree), query="order total")
    assert search.ranking == "bm25" and f"done for {committed} of {total}" in search.note
    store = CodeIndex(runtime, tree).store()
    vectors_match_text(store, embedder)

    # a structural change between batches: the changed node's vector is no longer counted, nor used
    edit(tree, "pyshop/models.py", "class Money:\n", 'class Money:\n    """Cash in one currency."""\n')
    refreshed = run(runtime, "find", project_path=str(tree), kind="symbol", filter={"fqn_prefix": "pyshop.models"})
    assert refreshed.index_status.refreshed and refreshed.index_status.embeddable == total
    assert refreshed.index_status.embedded <= committed

    seen.clear()
    done = run(runtime, "index", progress=lambda d, t, unit="": None if unit else seen.append((d, t)),
               project_path=str(tree))
    assert done.index_status.embedded == done.index_status.embeddable == total
    assert seen[-1][0] == seen[-1][1] == total - refreshed.index_status.embedded
    store = CodeIndex(runtime, tree).store()
    vectors_match_text(store, embedder)
    assert len(store.node_vectors([n.id for n in store.iter_nodes() if n.text_hash])) == total

    # once complete, an update embeds what it changes itself: search stays hybrid
    edit(tree, "pyshop/models.py", '"""Cash in one currency."""', '"""Money kept as integer cents."""')
    hybrid = run(runtime, "search", project_path=str(tree), query="integer cents")
    assert hybrid.ranking == "hybrid" and hybrid.note is None
    assert hybrid.results[0].node.label == "pyshop.models.Money" and 0 < hybrid.results[0].score <= 1
    vectors_match_text(CodeIndex(runtime, tree).store(), embedder)
    assert np.isfinite([r.score for r in hybrid.results]).all()
    runtime.close()
