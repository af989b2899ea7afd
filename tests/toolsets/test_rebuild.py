"""``index --force`` builds beside the index and replaces it at the end (items and code): while the rebuild
runs, searches answer from the old index; a rebuild that fails (an embedding error) or is stopped (Ctrl-C)
leaves the old index answering exactly as before and no rebuild namespace behind; what a killed rebuild
left is removed by the next update."""

from __future__ import annotations

import logging
import shutil
import threading

import pytest
from helpers import backend
from helpers.code_graph import FIXTURES
from helpers.items import index, search, status
from helpers.paths import EXAMPLE_TREE

from graphlore.contract import parse_request
from graphlore.errors import ProviderError
from graphlore.runtime import Runtime
from graphlore.store import open_store, store_exists
from graphlore.tools import Cancelled, cancellation
from graphlore.toolsets.code.index.code_index import CodeIndex
from graphlore.toolsets.code.query import models as code_models
from graphlore.toolsets.code.query import tools as code_tools
from graphlore.toolsets.folder_index import rebuild_namespace
from graphlore.toolsets.items.index import ItemIndex


class Failing:
    """The real embedder that fails as a provider does (an embedding server gone)."""

    def __init__(self, inner) -> None:
        self.name, self.dim, self.batch_size, self.inner = inner.name, inner.dim, inner.batch_size, inner

    def embed(self, texts):
        raise ProviderError("the embedding server stopped answering")

    def passages(self, text):
        return self.inner.passages(text)


class Gate(Failing):
    """The real embedder; ``embed`` waits for ``release`` and says it was entered (``entered``)."""

    def __init__(self, inner) -> None:
        super().__init__(inner)
        self.entered, self.release = threading.Event(), threading.Event()

    def embed(self, texts):
        self.entered.set()
        assert self.release.wait(120), "the test never released the embedding"
        return self.inner.embed(texts)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, embedder):
    """The example tree and a home holding its items index, built once for the module, and what searches
    answered from it. The tree is shared (leave it as it is); tests that rebuild work on a copy (``built``)."""
    base = tmp_path_factory.mktemp("indexed")
    tree = shutil.copytree(EXAMPLE_TREE, base / "feature-management")
    home = base / "home"
    runtime = Runtime(backend.settings_for(home), embedder=embedder)
    try:
        index(runtime, tree)
        answers = {q: [(r.item_id, r.similarity_score) for r in search(runtime, tree, q).results]
                   for q in ("cursor", "dark theme")}
    finally:
        runtime.close()
    return tree, home, answers


@pytest.fixture
def tree(indexed):
    return indexed[0]


@pytest.fixture
def built(indexed, settings):
    """A copy of the module's index in this test's home, and what searches answered from it."""
    _, home, answers = indexed
    backend.clone_home(home, settings.home)
    return answers


def answers_now(settings, embedder, tree) -> dict:
    runtime = Runtime(settings, embedder=embedder)
    try:
        return {q: [(r.item_id, r.similarity_score) for r in search(runtime, tree, q).results] for q in ("cursor", "dark theme")}
    finally:
        runtime.close()


def side_of(runtime: Runtime, tree) -> str:
    return rebuild_namespace(ItemIndex(runtime, tree).namespace)


def test_a_forced_rebuild_that_fails_leaves_the_old_index_as_it_was(settings, embedder, tree, built):
    failing = Runtime(settings, embedder=Failing(embedder))
    try:
        with pytest.raises(ProviderError, match="stopped answering"):
            index(failing, tree, force=True)
        assert not store_exists(settings, side_of(failing, tree))
    finally:
        failing.close()
    assert answers_now(settings, embedder, tree) == built
    runtime = Runtime(settings, embedder=embedder)
    try:
        st = status(runtime, tree)
        assert st.exists and not st.partial and st.items_embedded == st.items_indexed == 13
    finally:
        runtime.close()


def test_a_forced_rebuild_stopped_by_ctrl_c_leaves_the_old_index_as_it_was(settings, embedder, tree, built):
    runtime = Runtime(settings, embedder=embedder)
    side = side_of(runtime, tree)
    stopped_beside = []

    def stop_here() -> None:  # what the CLI's Ctrl-C does: the next cancellation check raises
        if store_exists(settings, side):
            stopped_beside.append(True)
            raise Cancelled

    try:
        with cancellation(stop_here), pytest.raises(Cancelled):
            index(runtime, tree, force=True)
    finally:
        runtime.close()
    assert stopped_beside and not store_exists(settings, side)
    assert answers_now(settings, embedder, tree) == built


def test_searches_answer_from_the_old_index_while_a_forced_rebuild_runs(settings, embedder, tree, built):
    gate = Gate(embedder)
    rebuilding = Runtime(settings, embedder=gate)
    side = side_of(rebuilding, tree)
    done: dict = {}
    worker = threading.Thread(target=lambda: done.update(result=index(rebuilding, tree, force=True)))
    worker.start()
    try:
        assert gate.entered.wait(120)
        assert store_exists(settings, side)  # the rebuild is under way, beside the index
        assert answers_now(settings, embedder, tree) == built
    finally:
        gate.release.set()
        worker.join(120)
        rebuilding.close()
    assert done["result"].status == "rebuilt" and done["result"].items_indexed == 13
    # review finding: the response named the rebuild's location, which the replace has just deleted
    assert done["result"].index_location == ItemIndex(rebuilding, tree).location
    assert not store_exists(settings, side)
    after = answers_now(settings, embedder, tree)
    assert {q: [i for i, _ in hits] for q, hits in after.items()} == {q: [i for i, _ in hits] for q, hits in built.items()}
    for query, hits in after.items():
        assert [s for _, s in hits] == pytest.approx([s for _, s in built[query]], abs=1e-5)


def test_the_next_update_removes_what_a_killed_rebuild_left(settings, embedder, tree, built, caplog):
    runtime = Runtime(settings, embedder=embedder)
    side = side_of(runtime, tree)
    try:
        open_store(settings, side, create=True).close()  # a rebuild killed before it could clean up
        with caplog.at_level(logging.WARNING, logger="graphlore"):
            assert index(runtime, tree).status == "unchanged"
        assert not store_exists(settings, side)
        assert "removed an unfinished rebuild" in caplog.text
    finally:
        runtime.close()
    assert answers_now(settings, embedder, tree) == built


def _code(runtime, tool, **fields):
    return getattr(code_tools, tool)(runtime, parse_request(getattr(code_models, f"{tool.capitalize()}Request"), fields))


def test_a_forced_code_rebuild_that_fails_leaves_the_old_index_and_a_finished_one_moves_on(tmp_path, embedder):
    tree = shutil.copytree(FIXTURES / "py-shop", tmp_path / "py")
    settings = backend.settings_for(tmp_path / "home")
    runtime = Runtime(settings, embedder=embedder)
    try:
        _code(runtime, "index", project_path=str(tree))
        before = [(h.node.id, h.score) for h in _code(runtime, "search", project_path=str(tree), query="order total").results]
        code_index = CodeIndex(runtime, tree)
        generation = code_index.meta(code_index.store())["generation"]
        failing = Runtime(settings, embedder=Failing(embedder))
        try:
            with pytest.raises(ProviderError):
                _code(failing, "index", project_path=str(tree), force=True)
        finally:
            failing.close()
        assert not store_exists(settings, rebuild_namespace(code_index.namespace))
        again = [(h.node.id, h.score) for h in _code(runtime, "search", project_path=str(tree), query="order total").results]
        assert again == before

        rebuilt = _code(runtime, "index", project_path=str(tree), force=True)
        assert rebuilt.status == "rebuilt" and rebuilt.embedded_now == rebuilt.index_status.embeddable > 0
        fresh = CodeIndex(runtime, tree)
        assert fresh.meta(fresh.store())["generation"] == generation + 1  # no process reuses a graph of the old one
        assert [h.node.id for h in _code(runtime, "search", project_path=str(tree), query="order total").results] == \
            [i for i, _ in before]
    finally:
        runtime.close()


@pytest.mark.parametrize("toolset", ["items", "code"])
def test_what_ctrl_c_kept_of_a_damaged_index_says_it_is_damaged(settings, embedder, tree, toolset):
    # review finding: the line read the damaged index and raised (the CLI printed a thread's traceback)
    from graphlore.toolsets.code.query.tools import index_kept as code_kept
    from graphlore.toolsets.items.models import IndexRequest as ItemsRequest
    from graphlore.toolsets.items.tools import index_kept as items_kept

    runtime = Runtime(settings, embedder=embedder)
    try:
        made = (ItemIndex if toolset == "items" else CodeIndex)(runtime, tree)
        if backend.BACKEND == "postgres":
            pytest.skip("a damaged file is SQLite's")
        made.handle.folder.mkdir(parents=True, exist_ok=True)
        (made.handle.folder / "store.db").write_bytes(b"not a database at all" * 300)
        kept, model = (items_kept, ItemsRequest) if toolset == "items" else (code_kept, code_models.IndexRequest)
        line = kept(runtime, parse_request(model, {"project_path": str(tree), "force": True}))
    finally:
        runtime.close()
    assert line == ("the rebuild was stopped and removed; the index as it was before is kept unchanged (damaged: "
                    f"only a rebuild repairs it); run `graphlore {toolset} index --force -p {tree}` to rebuild it")
