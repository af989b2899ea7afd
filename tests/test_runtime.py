"""What lives across calls is the runtime's: closed by ``Runtime.close()``, bounded, and listed.

- After ``close()`` no thread pool, cache or state of that runtime holds anything: the search threads
  are stopped, the vector cache is empty, every store is closed, change feeds closed, warm code graphs and
  skills' passage vectors dropped; the runtime then works again.
- The vector cache is bounded in bytes and shared by every toolset; a text is never embedded twice.
- The per-index state is bounded: change feeds and warm code graphs are least-recently-used tables; a
  code graph dropped from memory is restored from the store when its project is next updated.
- Every memo at module level (``functools.cache`` / ``lru_cache``) is named in the runtime's docstring.
"""

from __future__ import annotations

import re
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from helpers import paths as PATHS
from helpers.backend import settings_for
from helpers.code_graph import FIXTURES, edit

import graphlore
from graphlore import runtime as runtime_module
from graphlore.config import Settings
from graphlore.embeddings import VectorCache
from graphlore.runtime import Runtime
from graphlore.search.hybrid import SIDE_THREADS
from graphlore.tools import cancellation
from graphlore.toolsets import folder_index
from graphlore.toolsets.code.index import code_index
from graphlore.toolsets.code.index.code_index import CodeIndex, WarmGraphs
from graphlore.toolsets.code.query import tools as code_tools
from graphlore.toolsets.code.query.models import IndexRequest as CodeIndexRequest
from graphlore.toolsets.code.query.models import SearchRequest as CodeSearchRequest
from graphlore.toolsets.folder_index import FolderWatches
from graphlore.toolsets.items import tools as items_tools
from graphlore.toolsets.items.models import IndexRequest, SearchRequest
from graphlore.toolsets.skills import tools as skills_tools
from graphlore.toolsets.skills.cache import PassageCache
from graphlore.toolsets.skills.examples import examples as skills_examples
from graphlore.toolsets.skills.models import SearchSkillsRequest


class Counting:
    """The real embedder, recording the texts it is asked for."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dim, self.batch_size = inner, inner.name, inner.dim, inner.batch_size
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += list(texts)
        return self.inner.embed(texts)

    def passages(self, text):
        return self.inner.passages(text)


def keyword_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("graphlore-keyword")]


def test_close_leaves_no_pool_thread_cache_or_state_behind(tmp_path, embedder):
    project = tmp_path / "fm"
    shutil.copytree(PATHS.EXAMPLE_TREE, project)
    tree = tmp_path / "py"
    shutil.copytree(FIXTURES / "py-shop", tree)
    runtime = Runtime(settings_for(tmp_path / "home"), embedder=embedder, watch_files=True)
    items_tools.index(runtime, IndexRequest(project_path=str(project)))
    items_tools.search(runtime, SearchRequest(query="offline sync", project_path=str(project)))
    code_tools.index(runtime, CodeIndexRequest(project_path=str(tree)))
    code_tools.search(runtime, CodeSearchRequest(project_path=str(tree), query="order total"))
    calls = skills_examples(runtime, tmp_path)
    skills_tools.search_skills(runtime, SearchSkillsRequest(**calls["search_skills"][0]))
    runtime.search_threads.submit(lambda: None).result()  # started as on a database server

    stores = list(runtime._stores.values())
    feeds = list(runtime.state(FolderWatches).feeds.values())
    warm, passages = runtime.state(WarmGraphs), runtime.state(PassageCache)
    assert stores and feeds and warm.graphs and len(passages) and len(runtime.vector_cache)
    assert keyword_threads()

    runtime.close()
    assert keyword_threads() == [] and not runtime.search_threads.started
    assert len(runtime.vector_cache) == 0 and runtime.vector_cache.bytes == 0
    assert runtime._stores == {} and runtime._states == {}
    assert all(feed._fd is None for feed in feeds) and warm.graphs == {} and len(passages) == 0
    for _, store in stores:
        with pytest.raises(Exception):  # noqa: B017,PT011 - closed: SQLite's or the pool's own error
            store.count_nodes()

    # ...and the runtime works again after it
    again = items_tools.search(runtime, SearchRequest(query="offline sync", project_path=str(project)))
    assert again.index_status.items_indexed > 0
    runtime.close()


def test_the_vector_cache_is_bounded_in_bytes_least_recently_used_first():
    cache = VectorCache(max_bytes=3 * 4 * 4)  # three vectors of 4 float32
    rows = np.eye(4, dtype=np.float32)
    cache.put("m", [b"a", b"b", b"c"], rows[:3])
    assert cache.get("m", [b"a"])[0] is not None  # a is now the most recently used
    cache.put("m", [b"d"], rows[3:])
    assert [r is not None for r in cache.get("m", [b"a", b"b", b"c", b"d"])] == [True, False, True, True]
    assert cache.bytes == 3 * 16 and cache.get("other-model", [b"a"]) == [None]  # keyed by embedder too
    assert not cache.get("m", [b"a"])[0].flags.writeable
    empty = VectorCache(0)
    empty.put("m", [b"a"], rows[:1])
    assert len(empty) == 0


def test_a_text_is_embedded_once_across_toolsets_and_calls(tmp_path, embedder):
    counting = Counting(embedder)
    runtime = Runtime(Settings(home=tmp_path / "home"), embedder=counting)
    first = runtime.embeddings.embed(["alpha", "beta", "alpha"])
    assert sorted(counting.texts) == ["alpha", "beta"]  # distinct texts only, once
    again = runtime.embeddings.embed(["beta", "gamma"])
    assert sorted(counting.texts) == ["alpha", "beta", "gamma"]
    assert np.allclose(first[1], again[0]) and np.allclose(first[0], first[2])
    assert np.allclose(first[0], embedder.embed(["alpha"])[0], atol=1e-5)


def test_progress_counts_cached_texts_as_done(tmp_path, embedder):
    """A call whose texts are all in the cache still tells the person watching that they are done."""
    runtime = Runtime(Settings(home=tmp_path / "home"), embedder=Counting(embedder))
    runtime.embeddings.embed(["alpha", "beta"])
    seen: list[tuple[int, int]] = []
    runtime.embeddings.embed(["alpha", "beta"], progress=lambda done, total, *_: seen.append((done, total)))
    assert seen == [(2, 2)]


def test_no_cache_when_embed_cache_mb_is_zero(tmp_path, embedder):
    counting = Counting(embedder)
    runtime = Runtime(Settings(home=tmp_path / "home", embed_cache_mb=0), embedder=counting)
    runtime.embeddings.embed(["alpha"])
    runtime.embeddings.embed(["alpha"])
    assert counting.texts == ["alpha", "alpha"]


def test_a_cancelled_call_stops_between_batches_and_keeps_what_it_committed(tmp_path, embedder):
    counting = Counting(embedder)
    counting.batch_size = 2
    runtime = Runtime(Settings(home=tmp_path / "home"), embedder=counting)
    owners = [(f"o{i}", [f"text number {i}"]) for i in range(10)]
    committed: dict[str, np.ndarray] = {}

    class Cancelled(Exception):
        pass

    def check() -> None:  # the client gives up once two steps were committed
        if len(committed) >= 4:
            raise Cancelled

    with cancellation(check), pytest.raises(Cancelled):
        runtime.embeddings.embed_owners(owners, committed.update, step=2)
    assert len(counting.texts) == 4 and sorted(committed) == ["o0", "o1", "o2", "o3"]  # no batch after it
    runtime.embeddings.embed_owners(owners, committed.update)  # outside the block nothing stops it
    assert len(committed) == 10 and len(counting.texts) == 10  # the four were not embedded again


def test_change_feeds_are_bounded_and_an_index_lock_lives_while_it_is_held(tmp_path, monkeypatch):
    monkeypatch.setattr(folder_index, "WATCHED_INDEXES", 2)
    watches = FolderWatches()
    feeds = [watches.feed(f"items/{n}", tmp_path, frozenset()) for n in range(3)]
    assert list(watches.feeds) == ["items/1", "items/2"] and feeds[0]._fd is None
    assert watches.feed("items/0", tmp_path, frozenset()) is not feeds[0]  # a new one, which reports "changed"
    with watches.lock("items/1") as held:
        assert watches.lock("items/1") is held
    del held
    assert len(watches._locks) == 0  # nobody holds it: not kept
    watches.close()


def test_a_code_graph_dropped_from_memory_is_restored_from_the_store(tmp_path, embedder, monkeypatch):
    monkeypatch.setattr(code_index, "WARM_PROJECTS", 1)
    runtime = Runtime(settings_for(tmp_path / "home"), embedder=embedder)
    trees = []
    for name in ("py-shop", "ts-shop"):
        tree = tmp_path / name
        shutil.copytree(FIXTURES / name, tree)
        trees.append(tree)
        code_tools.index(runtime, CodeIndexRequest(project_path=str(tree), embed=False))
    assert list(runtime.state(WarmGraphs).graphs) == [trees[1]]  # the first one was dropped
    edit(trees[0], "pyshop/models.py", "class Money:\n", 'class Money:\n    """Cash in one currency."""\n')
    with CodeIndex(runtime, trees[0]).locked():
        report = CodeIndex(runtime, trees[0]).update(CodeIndex(runtime, trees[0]).store(), False, None)
    assert report.status == "updated" and report.restored and report.parsed == 1
    fresh = Runtime(settings_for(tmp_path / "fresh"), embedder=embedder)
    code_tools.index(fresh, CodeIndexRequest(project_path=str(trees[0]), embed=False))
    a, b = CodeIndex(runtime, trees[0]).store(), CodeIndex(fresh, trees[0]).store()
    assert a.node_hashes() == b.node_hashes()
    runtime.close()
    fresh.close()


def test_every_module_level_memo_is_listed_in_the_runtime_docstring():
    src = Path(graphlore.__file__).parent
    doc = " ".join(runtime_module.__doc__.split())
    found = []
    for path in sorted(src.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if re.match(r"\s*@(functools\.)?(cache|lru_cache)\b", line):
                name = re.match(r"\s*def (\w+)", lines[i + 1]).group(1)
                found.append(f"{path.stem}.{name}" if f"{path.stem}.{name}" in doc else name)
                assert re.search(rf"\b{re.escape(path.stem)}\.{re.escape(name)}\b", doc), (path, name)
    assert len(found) >= 13
    # the sizes the table states are the code's
    assert f"{SIDE_THREADS} threads" in doc and f"{folder_index.WATCHED_INDEXES} most recently used" in doc
    assert f"the {code_index.WARM_PROJECTS} most recently updated" in doc
    assert f"({Settings().embed_cache_mb} MB by default)" in doc
    assert f"{PassageCache().max_skills:,} skills" in doc
