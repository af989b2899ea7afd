"""First calls in a long-running process (the MCP server's runtime watches files): the structural phase
answers at once, partial and saying so, while the embedding continues in a background thread the
runtime owns and stops when it closes; the CLI's one-shot calls finish the embedding first."""

from __future__ import annotations

import shutil
import threading

import pytest
from helpers.items import index, search, status
from helpers.paths import EXAMPLE_TREE

from graphlore.runtime import Runtime
from graphlore.toolsets.folder_index import EMBED_LOCK, BackgroundWork
from graphlore.toolsets.items import tools
from graphlore.toolsets.items.index import ItemIndex
from graphlore.toolsets.items.models import CheckDuplicatesRequest, GetSimilarRequest, IndexRequest
from graphlore.toolsets.items.render import check_duplicates as render_duplicates
from graphlore.toolsets.items.render import get_index_status as render_status


class BackgroundGate:
    """The real embedder; calls from a background thread wait for ``release`` (query-time calls do not)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name, self.dim, self.batch_size = inner.name, inner.dim, inner.batch_size
        self.release = threading.Event()
        self.background_texts: list[str] = []
        self.foreground_texts: list[str] = []

    def embed(self, texts):
        if threading.current_thread().name.startswith("graphlore-background"):
            assert self.release.wait(120), "the test never released the background embedding"
            self.background_texts.extend(texts)
        else:
            self.foreground_texts.extend(texts)
        return self.inner.embed(texts)

    def passages(self, text):
        return self.inner.passages(text)


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "feature-management"
    shutil.copytree(EXAMPLE_TREE, root)
    return root


def wait_background(runtime: Runtime, root) -> None:
    runtime.state(BackgroundWork).wait(ItemIndex(runtime, root).namespace, timeout=120)


def test_a_first_search_answers_by_keywords_while_embedding_continues(settings, embedder, tree):
    gate = BackgroundGate(embedder)
    server = Runtime(settings, embedder=gate, watch_files=True)
    try:
        found = search(server, tree, "cursor")
        assert found.index_status.partial and found.index_status.embedded == 0 and found.index_status.total > 13
        assert found.index_status.unit == "passages"
        assert [r.item_id for r in found.results] == ["BUG-005"] and found.results[0].keyword_match
        assert any(note.startswith("partial: 0 of ") for note in found.notes)
        dup = tools.check_duplicates(server, CheckDuplicatesRequest(
            title="Editor cursor jumps to the end while typing", description="", project_path=str(tree)))
        assert dup.index_status.partial and dup.potential_duplicates[0].item_id == "BUG-005"
        assert "partial: 0 of" in render_duplicates(dup)
        similar = tools.get_similar(server, GetSimilarRequest(item_id="BUG-001", project_path=str(tree)))
        assert similar.index_status.partial and similar.similar_items
        st = status(server, tree)
        assert st.exists and st.partial and st.items_embedded == 0 and st.items_indexed == 13
        assert "partial: 0 of 13 items embedded" in render_status(st) and "graphlore items index -p" in render_status(st)

        gate.release.set()
        wait_background(server, tree)
        done = search(server, tree, "cursor")
        assert not done.index_status.partial and done.index_status.embedded == done.index_status.total
        assert not any(note.startswith("partial") for note in done.notes)
        # the background embeds each passage once; one a query-time call embedded first (get_similar scores
        # pending items) may come from the runtime's vector cache instead, so it can embed fewer than all
        background = list(gate.background_texts)
        assert len(background) == len(set(background)) <= done.index_status.total
    finally:
        gate.release.set()
        server.close()


def test_closing_the_runtime_stops_the_background_work_and_the_next_call_resumes(settings, embedder, tree,
                                                                                   monkeypatch):
    from graphlore import embeddings

    monkeypatch.setattr(embeddings, "STEP_TEXTS", 4)
    gate = BackgroundGate(embedder)
    gate.batch_size = 2  # several batches, so there is a "between" to stop at
    server = Runtime(settings, embedder=gate, watch_files=True)
    search(server, tree, "sync")
    work = server.state(BackgroundWork)
    closer = threading.Thread(target=server.close)
    closer.start()
    # released once close() has begun: the embedding cannot finish first (a worker's embedder may already hold
    # every vector, and then each batch takes no time)
    assert work._closing.wait(120)
    gate.release.set()
    closer.join(120)
    assert not closer.is_alive()
    after = status(Runtime(settings, embedder=embedder), tree)
    assert after.exists and after.items_indexed == 13
    assert after.passages_embedded < after.passages_total  # stopped after the step in progress
    # A CLI call (one-shot) finishes the embedding inside the call: its answer is never partial.
    cli = Runtime(settings, embedder=embedder)
    assert not search(cli, tree, "sync").index_status.partial and not status(cli, tree).partial
    assert index(cli, tree).status == "unchanged"


def test_ctrl_c_during_the_embedding_says_how_many_items_were_embedded(settings, embedder, tree):
    # The structural phase writes every item before the embedding starts: an interrupt during the
    # embedding must count embedded items, not item nodes.
    runtime = Runtime(settings, embedder=embedder)
    request = IndexRequest(project_path=str(tree))
    deferred = ItemIndex(runtime, tree)
    deferred.defer_embedding = True
    deferred.sync()
    assert tools.index_kept(runtime, request).startswith("0 of 13 items embedded and kept; ")
    ItemIndex(runtime, tree).embed_pending()
    assert tools.index_kept(runtime, request).startswith("13 of 13 items embedded and kept; ")


def test_closing_the_runtime_does_not_wait_for_another_embedder_of_the_project(settings, embedder, tree):
    # Another process (a CLI `items index`) embeds the same project: the background thread waits for the
    # embed lock, and stopping the server must not wait for that process to finish.
    server = Runtime(settings, embedder=embedder, watch_files=True)
    namespace = ItemIndex(server, tree).namespace
    held, release = threading.Event(), threading.Event()

    def other_process() -> None:
        with Runtime(settings, embedder=embedder).lock(namespace, EMBED_LOCK):
            held.set()
            release.wait(120)

    holder = threading.Thread(target=other_process)
    holder.start()
    try:
        assert held.wait(60)
        assert search(server, tree, "cursor").index_status.partial
        assert server.state(BackgroundWork).running(namespace)
        closer = threading.Thread(target=server.close)
        closer.start()
        closer.join(60)
        assert not closer.is_alive(), "close() waited for the embed lock another process holds"
    finally:
        release.set()
        holder.join(60)
    # The next call (here a one-shot CLI runtime) finds the embedding still to do and does it.
    assert not search(Runtime(settings, embedder=embedder), tree, "cursor").index_status.partial


def test_a_second_items_index_says_it_waits_for_the_first_ones_embedding(settings, embedder, tree, caplog):
    from graphlore.toolsets.folder_index import WAITING

    runtime = Runtime(settings, embedder=embedder)
    deferred = ItemIndex(runtime, tree)
    deferred.defer_embedding = True
    deferred.sync()
    held, release = threading.Event(), threading.Event()

    def first_index() -> None:
        with Runtime(settings, embedder=embedder).lock(deferred.namespace, EMBED_LOCK):
            held.set()
            release.wait(120)

    holder = threading.Thread(target=first_index)
    holder.start()
    assert held.wait(60)
    said = WAITING.format(root=deferred.root)
    with caplog.at_level("WARNING"):
        second = threading.Thread(target=ItemIndex(runtime, tree).embed_pending)
        second.start()
        for _ in range(600):
            if any(said in r.getMessage() for r in caplog.records):
                break
            second.join(0.1)
        release.set()
        holder.join(60)
        second.join(120)
    assert any(said in r.getMessage() for r in caplog.records)
    assert not second.is_alive() and not status(runtime, tree).partial
