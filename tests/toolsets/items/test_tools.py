"""The five items tools, called directly on tmp copies of feature-management trees with the real embedder.

What is checked here is the contract an agent relies on: where an index lives, what counts as
stale, that only changed text is embedded again, what a filter or a threshold leaves out, what a
score means, and that every failure is a GraphloreError that says what to do. Cross-process use is
in ``test_items_concurrency.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import threading
from pathlib import Path

import numpy as np
import pytest
from helpers import paths as PATHS
from helpers.backend import sqlite_only
from helpers.items import ids, index, item_folders, search, status

from graphlore.errors import (
    ConfigError,
    EmbedderMismatch,
    GraphloreError,
    IndexCorrupted,
    InvalidInput,
    NotFound,
)
from graphlore.runtime import Runtime
from graphlore.store.factory import sqlite_path, store_location
from graphlore.toolsets.items import scan as scan_module
from graphlore.toolsets.items import tools
from graphlore.toolsets.items.index import ItemIndex, item_passages
from graphlore.toolsets.items.models import (
    CheckDuplicatesRequest,
    GetSimilarRequest,
)
from graphlore.toolsets.items.scan import scan_project

EXAMPLE_TREE = PATHS.EXAMPLE_TREE
FILES = {  # folder prefix -> (JSON file, markdown file)
    "BUG": ("bug_report.json", "PROMPT.md"),
    "FEAT": ("feature_request.json", "PROMPT.md"),
    "ACTION": ("action_report.json", "INSTRUCTIONS.md"),
    "INQ": ("inquiry_report.json", "QUESTION.md"),
}


# -- helpers --------------------------------------------------------------------------


class MemoEmbedder:
    """The real embedder with a memory: a text already embedded in this module is not embedded again.

    Vectors are exactly the model's; only the time of embedding the same example tree over and
    over is saved. Tests that count embedding work wrap this in a :class:`CountingEmbedder`.
    """

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name, self.dim, self.batch_size = inner.name, inner.dim, inner.batch_size
        self.memory: dict[str, np.ndarray] = {}

    def embed(self, texts):
        missing = list(dict.fromkeys(t for t in texts if t not in self.memory))
        if missing:
            self.memory.update(zip(missing, self.inner.embed(missing), strict=True))
        return np.vstack([self.memory[t] for t in texts]) if texts else self.inner.embed([])

    def passages(self, text: str) -> list[str]:
        return self.inner.passages(text)


class CountingEmbedder:
    """Wraps the real embedder and records every text it is asked to embed."""

    def __init__(self, inner, name: str | None = None) -> None:
        self.inner = inner
        self.name = name or inner.name
        self.dim = inner.dim
        self.batch_size = inner.batch_size
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts.extend(texts)
        return self.inner.embed(texts)

    def passages(self, text: str) -> list[str]:
        return self.inner.passages(text)


class FailingEmbedder(CountingEmbedder):
    """Same name and dimension as the real one, but every embed call fails."""

    def embed(self, texts):
        raise RuntimeError("embedding backend went away")


class WrongDimEmbedder(CountingEmbedder):
    """Claims the real dimension but returns one column less, so the store rejects it mid-write."""

    def embed(self, texts):
        vectors = self.inner.embed(texts)[:, :-1]
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def copy_tree(tmp_path: Path, name: str = "fm") -> Path:
    dest = tmp_path / name
    shutil.copytree(EXAMPLE_TREE, dest)
    return dest


def folder(root: Path, item_id: str) -> Path:
    """The one folder of ``item_id`` anywhere in the tree (type folders and completed/)."""
    found = [p for p in root.glob("*/*") if p.is_dir() and p.name.split("-")[0:2] == item_id.split("-")]
    found += [
        p for p in root.glob("completed/*/*") if p.is_dir() and p.name.split("-")[0:2] == item_id.split("-")
    ]
    assert len(found) == 1, (item_id, found)
    return found[0]


def item_summary(path: Path) -> str:
    """Title and description of a well-formed example item, rebuilt from its JSON as the contract states."""
    data = json.loads((path / FILES[path.name.split("-")[0]][0]).read_text())
    return f"TITLE: {data['title']}\n\nDESCRIPTION: {data.get('description') or data.get('question') or ''}"


def passages_of(root: Path, item_ids: list[str], embedder) -> list[str]:
    """The passages the index embeds for these items (its documented layout, applied to a fresh scan)."""
    scanned = {item.item_id: item for item in scan_project(root).items}
    return [p for item_id in item_ids for p in item_passages(scanned[item_id], embedder)]


def cosine(embedder, query: str, passages: list[str]) -> float:
    """Cosine of ``query`` with its best passage, clipped to [0, 1], straight from the embedder."""
    q = embedder.embed([query])[0]
    return float(np.clip(np.max(embedder.embed(passages) @ q), 0.0, 1.0))


def bump_mtime(path: Path, seconds: float = 10.0) -> None:
    st = path.stat()
    os.utime(path, (st.st_atime, st.st_mtime + seconds))


def rewrite_json(path: Path, **changes) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data, indent=2))
    bump_mtime(path)


def add_item(root: Path, rel_dir: str, name: str, meta: dict, body: str) -> Path:
    json_name, md_name = FILES[name.split("-")[0]]
    path = root / rel_dir / name
    path.mkdir(parents=True)
    (path / json_name).write_text(json.dumps(meta, indent=2))
    (path / md_name).write_text(body)
    return path


def rel_files(root: Path, item: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in item.iterdir() if p.is_file())


@pytest.fixture(scope="module")
def memo(embedder) -> MemoEmbedder:
    return MemoEmbedder(embedder)


@pytest.fixture
def runtime(settings, memo) -> Runtime:
    """Overrides conftest's runtime: the same real model, remembered across this module's tests."""
    return Runtime(settings, embedder=memo)


@pytest.fixture
def counting(memo) -> CountingEmbedder:
    return CountingEmbedder(memo)


@pytest.fixture
def crt(settings, counting) -> Runtime:
    """A runtime whose embedder counts what it embeds."""
    return Runtime(settings, embedder=counting)


@pytest.fixture
def tree(tmp_path) -> Path:
    return copy_tree(tmp_path)


# -- index: location, counts, no-op --------------------------------------------------


def test_index_creates_then_is_unchanged_and_embeds_nothing(crt, counting, settings, tree, tmp_path):
    link = tmp_path / "link-to-fm"
    link.symlink_to(tree)
    expected_items = item_folders(tree)
    # an agent's run log shaped like an item is still not an item
    add_item(tree, "agent_runs", "BUG-900-run-log", {"title": "Session log", "description": "notes"}, "log")
    first = index(crt, link)  # a symlinked path is the same project as its real path

    real = os.path.realpath(tree)
    namespace = "items/" + hashlib.sha256(real.encode()).hexdigest()[:12]
    assert first.status == "created"
    assert first.project_path == real
    location = store_location(settings, namespace) if settings.database_url else str(settings.home / namespace)
    assert first.index_location == location
    if not settings.database_url:
        assert (settings.home / namespace / "store.db").is_file()
    assert first.items_indexed == len(expected_items) == 13
    assert first.items_updated == len(expected_items)
    assert first.items_removed == 0
    assert first.warnings == []
    all_ids = ["-".join(p.name.split("-")[:2]) for p in expected_items]
    assert sorted(counting.texts) == sorted(passages_of(tree, all_ids, counting))  # each passage once

    counting.texts.clear()
    second = index(crt, tree)
    assert second.status == "unchanged"
    assert (second.items_indexed, second.items_updated, second.items_removed) == (13, 0, 0)
    assert second.index_location == location
    assert counting.texts == []

    st = status(crt, tree)
    assert st.exists and not st.is_stale and st.stale_files == []
    assert st.items_indexed == 13 and st.index_size_bytes > 0
    assert "BUG-900" not in ids(search(crt, tree, "Session log", threshold=0.0, limit=100).results)
    assert st.last_indexed is not None and st.index_location == location


def test_status_before_any_index_lists_every_item_file(runtime, tree):
    st = status(runtime, tree)
    assert not st.exists and st.is_stale and st.items_indexed == 0 and st.last_indexed is None
    expected = sorted(f for item in item_folders(tree) for f in rel_files(tree, item))
    assert st.stale_files == expected
    assert not any(f.startswith("agent_runs") for f in st.stale_files)


# -- staleness and incremental updates ------------------------------------------------


def _edit_add_delete(tree: Path) -> tuple[list[str], Path]:
    """Edit BUG-002, add FEAT-006, delete INQ-001; return the exact stale files and the new item."""
    bug2 = folder(tree, "BUG-002")
    rewrite_json(
        bug2 / "bug_report.json", description="Diacritics are ignored: searching 'resume' misses 'résumé'."
    )
    inq = folder(tree, "INQ-001")
    gone = rel_files(tree, inq)
    shutil.rmtree(inq)
    new = add_item(
        tree,
        "features",
        "FEAT-006-calendar-integration",
        {
            "feature_id": "FEAT-006",
            "title": "Calendar integration for meeting notes",
            "status": "new",
            "priority": "P3",
            "description": "Create a meeting note from a calendar event with attendees filled in.",
        },
        "# FEAT-006: Calendar integration\n\nRead events from the system calendar and prefill a note.\n",
    )
    stale = sorted([f"{bug2.relative_to(tree).as_posix()}/bug_report.json", *gone, *rel_files(tree, new)])
    return stale, new


def test_status_reports_exact_stale_files_and_index_updates_only_them(crt, counting, tree):
    index(crt, tree)
    stale, _ = _edit_add_delete(tree)
    st = status(crt, tree)
    assert st.is_stale and st.stale_files == stale
    assert st.items_indexed == 13  # status never modifies the index

    before = set(counting.texts)
    counting.texts.clear()
    result = index(crt, tree)
    assert result.status == "updated"
    assert (result.items_indexed, result.items_updated, result.items_removed) == (13, 2, 1)
    # the two changed items' passages, but not the one that is as it was (BUG-002's implementation)
    changed = passages_of(tree, ["BUG-002", "FEAT-006"], counting)
    assert sorted(counting.texts) == sorted(p for p in changed if p not in before) and len(counting.texts) < len(changed)
    assert not status(crt, tree).is_stale


def test_search_updates_a_stale_index_first(crt, counting, tree):
    index(crt, tree)
    _edit_add_delete(tree)
    before = set(counting.texts)
    counting.texts.clear()
    query = "prefill a meeting note from a calendar event"
    response = search(crt, tree, query, threshold=0.0, limit=100)

    embedded = [t for t in counting.texts if t != query]
    assert sorted(embedded) == sorted(p for p in passages_of(tree, ["BUG-002", "FEAT-006"], counting) if p not in before)
    assert response.results[0].item_id == "FEAT-006"
    assert "INQ-001" not in ids(response.results)
    assert response.index_status.items_indexed == 13 and not response.index_status.is_stale
    bug2 = next(r for r in response.results if r.item_id == "BUG-002")
    assert bug2.description.startswith("Diacritics are ignored")

    # the deleted item is gone for good: never returned, not an id get_similar knows
    inq = search(crt, tree, "Should note sync move from last-write-wins to CRDTs?", threshold=0.0, limit=100)
    assert "INQ-001" not in ids(inq.results)
    with pytest.raises(NotFound):
        tools.get_similar(crt, GetSimilarRequest(item_id="INQ-001", project_path=str(tree)))
    counting.texts.clear()
    assert index(crt, tree).status == "unchanged" and counting.texts == []


def test_mtime_only_change_is_stale_then_reindex_embeds_nothing(crt, counting, tree):
    index(crt, tree)
    prompt = folder(tree, "BUG-003") / "PROMPT.md"
    bump_mtime(prompt, 30)
    st = status(crt, tree)
    assert st.is_stale and st.stale_files == [prompt.relative_to(tree).as_posix()]

    counting.texts.clear()
    result = index(crt, tree)
    assert result.status == "updated" and result.items_updated == 0 and result.items_removed == 0
    assert counting.texts == []
    assert not status(crt, tree).is_stale
    assert index(crt, tree).status == "unchanged"


def test_renamed_folder_keeps_the_item_and_moves_its_path(crt, counting, tree):
    index(crt, tree)
    old = folder(tree, "BUG-005")
    new = old.with_name("BUG-005-cursor-jumps-after-autosave")
    old.rename(new)
    st = status(crt, tree)
    assert st.stale_files == sorted(
        rel_files(tree, new) + [f"bugs/{old.name}/{f.split('/')[-1]}" for f in rel_files(tree, new)]
    )
    counting.texts.clear()
    result = index(crt, tree)
    assert (result.items_indexed, result.items_updated, result.items_removed) == (13, 0, 0)
    assert counting.texts == []
    hit = next(
        r
        for r in search(crt, tree, "cursor jumps while typing", threshold=0.0).results
        if r.item_id == "BUG-005"
    )
    assert hit.path == f"bugs/{new.name}"


def test_item_moved_to_completed_is_filtered_by_include_completed(crt, counting, tree):
    index(crt, tree)
    src = folder(tree, "FEAT-003")
    dest = tree / "completed" / src.name
    src.rename(dest)
    counting.texts.clear()
    result = index(crt, tree)
    assert (result.items_indexed, result.items_updated, result.items_removed) == (13, 0, 0)
    assert counting.texts == []

    query = "export notebooks as a zip of markdown files"
    assert "FEAT-003" not in ids(search(crt, tree, query, threshold=0.0, limit=100).results)
    with_completed = search(crt, tree, query, threshold=0.0, limit=100, include_completed=True)
    assert with_completed.results[0].item_id == "FEAT-003"
    assert with_completed.results[0].path == f"completed/{src.name}"
    similar = tools.get_similar(
        crt, GetSimilarRequest(item_id="FEAT-002", project_path=str(tree), limit=100, include_completed=False)
    )
    assert "FEAT-003" not in ids(similar.similar_items)


def test_malformed_json_is_a_warning_naming_the_file(runtime, tree):
    broken = folder(tree, "BUG-002") / "bug_report.json"
    broken.write_text('{"bug_id": "BUG-002", "title": "Search misses notes with accented')
    result = index(runtime, tree)
    assert result.status == "created" and result.items_indexed == 13
    rel = broken.relative_to(tree).as_posix()
    assert [w for w in result.warnings if rel in w and "JSON" in w], result.warnings
    # the item is still found through its markdown, titled by its heading
    hit = search(runtime, tree, "normalise note text to NFC before indexing so diacritics match")
    assert hit.results[0].item_id == "BUG-002"
    assert hit.results[0].title == "Search misses notes with accented characters"
    # the warning is not forgotten when nothing changed, and fixing the file clears it
    again = index(runtime, tree)
    assert again.status == "unchanged" and again.warnings == result.warnings
    shutil.copy(EXAMPLE_TREE / rel, broken)
    bump_mtime(broken)
    assert index(runtime, tree).warnings == []


def test_an_update_reads_only_changed_folders_and_keeps_other_warnings(runtime, tree, monkeypatch):
    broken = folder(tree, "BUG-002") / "bug_report.json"
    broken.write_text("{not json")
    first = index(runtime, tree)
    read: list[str] = []
    real_scan_item = scan_module._scan_item
    monkeypatch.setattr(scan_module, "_scan_item", lambda root, f, *rest: read.append(f.rel) or real_scan_item(root, f, *rest))
    changed = folder(tree, "FEAT-002") / "PROMPT.md"
    changed.write_text(changed.read_text() + "Also cover the archive view.\n")
    bump_mtime(changed)
    result = index(runtime, tree)
    assert read == [folder(tree, "FEAT-002").relative_to(tree).as_posix()]
    assert result.status == "updated" and result.items_updated == 1
    assert result.warnings == first.warnings  # BUG-002's JSON problem was not read again, nor forgotten
    # What the index holds for every item equals a full read of the tree.
    monkeypatch.undo()
    store = ItemIndex(runtime, tree).store()
    stored = {n.id: (n.text, n.text_hash, n.props) for n in store.iter_nodes("item")}
    fresh = {i.item_id: (i.text, i.content_hash, i.path, i.mtime, list(i.warnings)) for i in scan_project(tree).items}
    assert {k: (t, h, p["path"], p["mtime"], p["warnings"]) for k, (t, h, p) in stored.items()} == fresh


def test_an_index_from_before_per_item_warnings_is_read_whole_once(runtime, tree, settings, monkeypatch):
    sqlite_only(settings, "the nodes are rewritten as an earlier version wrote them, in the file")
    index(runtime, tree)
    db = sqlite_path(runtime.settings, ItemIndex(runtime, tree).namespace)
    conn = sqlite3.connect(db)  # as a previous version wrote the nodes
    conn.execute("UPDATE nodes SET props = json_remove(props, '$.warnings')")
    conn.commit()
    conn.close()
    read: list[str] = []
    real_scan_item = scan_module._scan_item
    monkeypatch.setattr(scan_module, "_scan_item", lambda root, f, *rest: read.append(f.rel) or real_scan_item(root, f, *rest))
    changed = folder(tree, "FEAT-002") / "PROMPT.md"
    bump_mtime(changed)
    fresh = Runtime(settings, embedder=runtime.embedder)  # a new process: no open store
    assert index(fresh, tree).items_updated == 0
    assert len(read) == 13
    read.clear()
    bump_mtime(changed)
    index(fresh, tree)
    assert read == [folder(tree, "FEAT-002").relative_to(tree).as_posix()]


def test_status_change_updates_filters_without_embedding(crt, counting, tree):
    index(crt, tree)
    rewrite_json(folder(tree, "BUG-002") / "bug_report.json", status="In_Progress", priority="P0")
    counting.texts.clear()
    result = index(crt, tree)
    assert result.status == "updated" and result.items_updated == 0 and counting.texts == []
    in_progress = search(crt, tree, "notes", status=["in_progress"], threshold=0.0, limit=100)
    assert sorted(ids(in_progress.results)) == ["BUG-002", "BUG-003", "FEAT-004"]
    bug2 = next(r for r in in_progress.results if r.item_id == "BUG-002")
    assert (bug2.status, bug2.priority) == ("in_progress", "P0")


@pytest.mark.parametrize("make", ["missing", "file", "plain folder"])
def test_a_path_that_is_not_a_feature_management_folder_says_what_is_expected(runtime, tmp_path, make):
    path = tmp_path / "project"
    if make == "file":
        path.write_text("not a folder")
    elif make == "plain folder":
        (path / "src").mkdir(parents=True)
    for call in (
        lambda: index(runtime, path),
        lambda: search(runtime, path, "x"),
        lambda: status(runtime, path),
    ):
        with pytest.raises(NotFound if make == "missing" else InvalidInput) as err:  # an unknown project: not_found
            call()
        assert "bugs/" in err.value.message and "BUG-001" in err.value.message
    assert not (runtime.settings.home / "items").exists()


# -- search -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("search does not find notes with accented letters", "BUG-002"),
        ("photo upload never finishes on mobile data", "BUG-003"),
        ("the https certificate of the server is about to expire", "ACTION-001"),
        ("encrypt note content with a passphrase so the server only sees ciphertext", "FEAT-002"),
    ],
)
def test_search_finds_the_item_a_person_means(runtime, tree, query, expected):
    response = search(runtime, tree, query)
    assert response.results and response.results[0].item_id == expected
    assert response.query == query and response.total_results == len(response.results)


def test_search_filters_apply_before_ranking(runtime, tree):
    # The query is about a bug; a filter to the one action must still return that action, even at limit=1.
    only_action = search(
        runtime, tree, "search misses accented characters", item_types=["action"], limit=1, threshold=0.0
    )
    assert ids(only_action.results) == ["ACTION-001"]

    features = search(
        runtime, tree, "sync conflict", item_types=["feature", "inquiry"], threshold=0.0, limit=100
    )
    assert {r.item_type for r in features.results} == {"feature", "inquiry"}
    assert len(features.results) == 5  # 4 open features + 1 inquiry; completed FEAT-005 is left out

    in_progress = search(runtime, tree, "notes", status=["IN_PROGRESS"], threshold=0.0, limit=100)
    assert sorted(ids(in_progress.results)) == ["BUG-003", "FEAT-004"]

    dark = "dark colour theme following the operating system"
    default = search(runtime, tree, dark, threshold=0.0, limit=100)
    assert not {"FEAT-005", "BUG-006"} & set(ids(default.results)) and default.total_results == 11
    everything = search(runtime, tree, dark, threshold=0.0, limit=100, include_completed=True)
    assert everything.total_results == 13 and everything.results[0].item_id == "FEAT-005"

    assert search(runtime, tree, "notes", status=["no-such-status"], threshold=0.0).results == []


def test_filters_are_not_applied_after_a_top_k_cut(runtime, tmp_path):
    """More than CANDIDATES strong matches sit outside the filter; the weak ones inside must still come back."""
    root = tmp_path / "crowded"
    for n in range(tools.CANDIDATES + 5):
        add_item(
            root,
            "completed",
            f"BUG-{100 + n}-sync-conflict",
            {
                "title": f"Sync conflict loses offline edits on device {n}",
                "status": "resolved",
                "description": f"Offline edits on device {n} are dropped when the sync conflict is resolved.",
            },
            "",
        )
    add_item(
        root,
        "bugs",
        "BUG-001-printer-crash",
        {"title": "Printing a note crashes the app", "status": "blocked", "description": "Crash in print."},
        "",
    )
    add_item(
        root,
        "features",
        "FEAT-001-dark-mode",
        {"title": "Dark mode", "status": "new", "description": "A dark colour theme."},
        "",
    )
    add_item(
        root,
        "human-actions",
        "ACTION-001-renew-certificate",
        {"title": "Renew the TLS certificate", "status": "new", "description": "It expires soon."},
        "",
    )
    query = "sync conflict loses offline edits"

    def found(**kw):
        return ids(search(runtime, root, query, threshold=0.0, **kw).results)

    assert all(i.startswith("BUG-1") for i in found(limit=5, include_completed=True))
    assert sorted(found(limit=100)) == ["ACTION-001", "BUG-001", "FEAT-001"]
    assert found(limit=1, include_completed=True, item_types=["action"]) == ["ACTION-001"]
    assert found(limit=1, include_completed=True, status=["blocked"]) == ["BUG-001"]


def test_search_scores_are_the_cosine_and_threshold_cuts_on_them(runtime, tree, memo):
    query = "my offline changes vanished when the device reconnected"
    all_hits = search(runtime, tree, query, threshold=0.0, limit=100, include_completed=True)
    assert all_hits.total_results == 13
    for hit in all_hits.results:
        assert 0.0 <= hit.similarity_score <= 1.0
        expected = cosine(memo, query, passages_of(tree, [hit.item_id], memo))
        assert hit.similarity_score == pytest.approx(expected, abs=1e-4), hit.item_id

    scores = sorted(h.similarity_score for h in all_hits.results)
    cut = (scores[6] + scores[7]) / 2
    kept = search(runtime, tree, query, threshold=cut, limit=100, include_completed=True)
    assert set(ids(kept.results)) == {h.item_id for h in all_hits.results if h.similarity_score >= cut}
    assert all(h.similarity_score >= cut for h in kept.results)
    assert len(kept.results) == 6

    limited = search(runtime, tree, query, threshold=0.0, limit=3, include_completed=True)
    assert ids(limited.results) == ids(all_hits.results)[:3]

    unrelated = search(runtime, tree, "quarterly payroll tax filing for employees in Ohio")
    assert unrelated.total_results < 11
    assert all(h.similarity_score >= 0.5 for h in unrelated.results)


# -- check_duplicates ---------------------------------------------------------------


def _all_cosines(embedder, tree: Path, text: str) -> dict[str, float]:
    return {
        item.item_id: cosine(embedder, text, item_passages(item, embedder))
        for item in scan_project(tree).items
    }


def test_the_first_passage_is_the_summary_a_duplicate_check_compares_with(memo, tree):
    """check_duplicates embeds only a title and description; every item has a passage that is just that."""
    for path in item_folders(tree):
        item_id = "-".join(path.name.split("-")[:2])
        passages = passages_of(tree, [item_id], memo)
        assert passages[0] == item_summary(path)
        body = (path / FILES[path.name.split("-")[0]][1]).read_text()
        assert all(any(line in p for p in passages[1:]) for line in body.splitlines() if line.strip())


def test_check_duplicates_finds_the_near_duplicate_pair_with_bands(runtime, tree, memo):
    # BUG-004 restates BUG-001 in a customer's words; take it out and propose it again.
    bug4 = folder(tree, "BUG-004")
    meta = json.loads((bug4 / "bug_report.json").read_text())
    shutil.rmtree(bug4)
    request = {"title": meta["title"], "description": meta["description"], "project_path": str(tree)}
    text = f"TITLE: {meta['title']}\n\nDESCRIPTION: {meta['description']}"
    cosines = _all_cosines(memo, tree, text)
    pair = cosines["BUG-001"]
    assert pair >= 0.75 - 0.15  # the pair is at least POSSIBLY_RELATED under the example's own threshold

    # The config's 0.75, then overrides that put BUG-001 just above the cut and deep in the band below it.
    cases = [(0.75, None), (round(pair - 0.02, 4),) * 2, (round(pair + 0.13, 4),) * 2]
    for threshold, override in cases:
        response = tools.check_duplicates(runtime, CheckDuplicatesRequest(**request, threshold=override))
        assert response.threshold_used == threshold
        found = {c.item_id: c for c in response.potential_duplicates}
        assert "BUG-001" in found
        # BUG-001 is the best-ranked candidate: LIKELY_DUPLICATE from tools.TOP_MATCH on, whatever the threshold
        expected = "LIKELY_DUPLICATE" if pair >= min(threshold, tools.TOP_MATCH) else "POSSIBLY_RELATED"
        assert found["BUG-001"].recommendation == expected
        qualifying = {k for k, v in cosines.items() if v >= threshold - 0.15} | {"BUG-001"}
        if len(qualifying) <= 10:
            assert set(found) == qualifying
        else:  # at most 10 candidates, all of them qualifying
            assert len(found) == 10 and set(found) <= qualifying
        for c in response.potential_duplicates:
            assert c.similarity_score == pytest.approx(cosines[c.item_id], abs=1e-4)
            top = c.item_id == "BUG-001" and c.similarity_score >= tools.TOP_MATCH
            assert c.recommendation == (
                "LIKELY_DUPLICATE" if c.similarity_score >= threshold or top else "POSSIBLY_RELATED"
            )
        assert response.has_likely_duplicates == any(
            c.recommendation == "LIKELY_DUPLICATE" for c in response.potential_duplicates
        )
        assert ids(response.potential_duplicates)[0] == "BUG-001"


class Precondition(Exception):
    """The crafted data no longer has the shape the test needs (e.g. another model): fix the data, not the code."""


QUERY_ITEM = (
    "Notes vanish after reconnecting",
    "Text typed while offline disappears once the phone is back online.",
)
# Says the same as QUERY_ITEM without sharing a single word with it (so BM25 cannot help it) ...
PARAPHRASE = (
    "Writing done without a connection is erased",
    "Anything entered with no internet is lost as soon as the handset regains connectivity.",
)
# ... while these share words with QUERY_ITEM but are about something else.
KEYWORD_NEIGHBOURS = [
    ("Notes list flickers when scrolling on the phone", "Scrolling the notes list on the phone flickers."),
    ("Typed text lags on older phones", "Typing in a long note lags on older phones."),
    (
        "Text selection handles vanish on the phone",
        "Selection handles vanish when text is selected on the phone.",
    ),
    (
        "Back button closes the note on the phone",
        "The back button on the phone closes the note instead of the keyboard.",
    ),
    ("Notes typed in dark mode are unreadable once exported", "Exported notes keep white text."),
    ("Once a note is pinned it cannot be unpinned on the phone", "Pinned notes stay pinned on the phone."),
    (
        "Text typed in the title field disappears",
        "Typing a long title then pressing enter makes the text disappear.",
    ),
    (
        "Offline indicator text is cut off on the phone",
        "The offline indicator text is truncated on small phone screens.",
    ),
    (
        "Phone keyboard hides the last line of text",
        "While typing, the phone keyboard covers the last line of text.",
    ),
    (
        "Phone notifications arrive once per note edit",
        "The phone buzzes once for every edit to a shared note.",
    ),
    (
        "Text copied from the web keeps its colour in notes",
        "Pasted web text keeps its colour in notes on the phone.",
    ),
    ("Offline search ignores text typed today", "Search while offline does not find text typed today."),
]


def test_check_duplicates_never_drops_a_likely_duplicate_for_weaker_ones(runtime, tmp_path, memo):
    root = tmp_path / "crowded"
    add_item(
        root,
        "bugs",
        "BUG-001-offline-writing-erased",
        {"title": PARAPHRASE[0], "description": PARAPHRASE[1]},
        "",
    )
    for n, (title, description) in enumerate(KEYWORD_NEIGHBOURS):
        add_item(root, "bugs", f"BUG-{10 + n:03d}-x", {"title": title, "description": description}, "")
    add_item(
        root,
        "bugs",
        "BUG-099-invoice",
        {"title": "Invoice totals rounded", "description": "Off by a cent."},
        "",
    )
    cosines = _all_cosines(memo, root, "TITLE: {}\n\nDESCRIPTION: {}".format(*QUERY_ITEM))
    threshold = round(cosines["BUG-001"] - 0.005, 4)
    band = [k for k, v in cosines.items() if threshold - 0.15 <= v < threshold]
    if max(v for k, v in cosines.items() if k != "BUG-001") >= threshold or len(band) < 10:
        raise Precondition(
            f"needs BUG-001 alone above the cut and >= 10 items in the band below it: {cosines}"
        )

    response = tools.check_duplicates(
        runtime,
        CheckDuplicatesRequest(
            title=QUERY_ITEM[0], description=QUERY_ITEM[1], project_path=str(root), threshold=threshold
        ),
    )
    likely = [c.item_id for c in response.potential_duplicates if c.recommendation == "LIKELY_DUPLICATE"]
    assert likely == ["BUG-001"] and response.has_likely_duplicates
    listed = response.potential_duplicates
    assert listed[0].item_id == "BUG-001" and len(listed) == 10  # the likely one first, then the band, capped
    assert all(c.recommendation == "POSSIBLY_RELATED" and c.item_id in band for c in listed[1:])


def test_check_duplicates_threshold_comes_from_agent_config(runtime, tree):
    config = tree / ".agent-config.json"
    data = json.loads(config.read_text())
    data["duplicate_similarity_threshold"] = 0.42
    config.write_text(json.dumps(data))
    request = CheckDuplicatesRequest(
        title="Conflict copies for notes edited offline", description="", project_path=str(tree)
    )
    response = tools.check_duplicates(runtime, request)
    assert response.threshold_used == 0.42
    assert all(c.similarity_score >= 0.42 - 0.15 for c in response.potential_duplicates)
    assert len(response.potential_duplicates) <= 10

    config.unlink()
    assert tools.check_duplicates(runtime, request).threshold_used == 0.94  # the built-in default

    typed = tools.check_duplicates(
        runtime, request.model_copy(update={"item_type": "feature", "threshold": 0.0})
    )
    assert typed.potential_duplicates and {c.item_id.split("-")[0] for c in typed.potential_duplicates} == {
        "FEAT"
    }


@pytest.mark.parametrize(
    "content",
    [
        '{"duplicate_similarity_threshold": 1.5}',
        '{"duplicate_similarity_threshold": 7, "tags": [1 2]}',
        '{"duplicate_similarity_threshold": "0.8"}',
    ],
)
def test_an_invalid_threshold_in_agent_config_is_a_config_error(runtime, tree, content):
    (tree / ".agent-config.json").write_text(content)
    with pytest.raises(ConfigError) as err:
        tools.check_duplicates(
            runtime, CheckDuplicatesRequest(title="x", description="", project_path=str(tree))
        )
    assert ".agent-config.json" in err.value.message and "duplicate_similarity_threshold" in err.value.message
    with pytest.raises(ConfigError):
        tools.get_similar(runtime, GetSimilarRequest(item_id="BUG-001", project_path=str(tree)))
    reported = status(runtime, tree).warnings  # the status report names it instead of failing
    assert len(reported) == 1 and "duplicate_similarity_threshold" in reported[0] and "refuse" in reported[0]
    # an explicit threshold does not read the file at all
    given = tools.check_duplicates(
        runtime, CheckDuplicatesRequest(title="x", description="", project_path=str(tree), threshold=0.9)
    )
    assert given.threshold_used == 0.9 and given.warnings == []


@pytest.mark.parametrize(
    "content,threshold,warned",
    [
        ('{"duplicate_similarity_threshold": 0.8', 0.8, "read duplicate_similarity_threshold = 0.8"),
        ('{\n  // ours\n  "duplicate_similarity_threshold": 0.7,\n}', 0.7, None),
        ("[0.8]", 0.94, "expected a JSON object, got list"),
        ('{"available_tags": ["a" "b"]}', 0.94, "no top-level duplicate_similarity_threshold"),
    ],
)
def test_a_broken_agent_config_never_blocks_the_duplicate_tools(runtime, tree, content, threshold, warned):
    (tree / ".agent-config.json").write_text(content)
    request = CheckDuplicatesRequest(title="Conflict copies for notes edited offline", description="",
                                     project_path=str(tree))
    checked = tools.check_duplicates(runtime, request)
    similar = tools.get_similar(runtime, GetSimilarRequest(item_id="BUG-001", project_path=str(tree)))
    reported = status(runtime, tree).warnings
    assert checked.threshold_used == threshold and checked.potential_duplicates and similar.similar_items
    for warnings in (checked.warnings, similar.warnings, reported):
        if warned is None:
            assert warnings == []
        else:
            assert len(warnings) == 1 and warned in warnings[0] and ".agent-config.json" in warnings[0]
    expected = {h.item_id: h.relationship for h in similar.similar_items}
    assert all((r == "LIKELY_DUPLICATE") == (h.similarity_score >= threshold)
               for h in similar.similar_items for r in [expected[h.item_id]])


# -- get_similar --------------------------------------------------------------------


def test_get_similar(runtime, tree):
    def similar(**kw):
        return tools.get_similar(runtime, GetSimilarRequest(item_id="BUG-001", project_path=str(tree), **kw))

    everything = similar(limit=100)
    assert everything.source_item.item_id == "BUG-001"
    assert everything.source_item.title == "Offline edits lost when two devices sync the same note"
    assert "BUG-001" not in ids(everything.similar_items)
    assert len(everything.similar_items) == 12 and {"BUG-006", "FEAT-005"} <= set(
        ids(everything.similar_items)
    )
    assert "BUG-004" in ids(everything.similar_items)[:2]
    for item in everything.similar_items:
        band = (
            "LIKELY_DUPLICATE"
            if item.similarity_score >= 0.75
            else ("POSSIBLY_RELATED" if item.similarity_score >= 0.6 else "SIMILAR")
        )
        assert item.relationship == band and 0.0 <= item.similarity_score <= 1.0

    assert len(similar().similar_items) == 5
    assert ids(similar(limit=3).similar_items) == ids(everything.similar_items)[:3]
    open_only = similar(limit=100, include_completed=False)
    assert len(open_only.similar_items) == 10 and not {"BUG-006", "FEAT-005"} & set(
        ids(open_only.similar_items)
    )


def test_get_similar_unknown_id_names_close_ids(runtime, tree):
    index(runtime, tree)
    with pytest.raises(NotFound) as err:
        tools.get_similar(runtime, GetSimilarRequest(item_id="ACTON-001", project_path=str(tree)))
    assert "ACTION-001" in err.value.message and "ACTON-001" in err.value.message


# -- isolation, corruption, embedder mismatch, failed writes ---------------------------


def test_projects_under_one_home_are_isolated(runtime, tmp_path):
    a = copy_tree(tmp_path, "a")
    b = tmp_path / "b"
    add_item(
        b,
        "bugs",
        "BUG-001-invoice-totals-rounded-wrongly",
        {
            "bug_id": "BUG-001",
            "title": "Invoice totals are rounded wrongly",
            "status": "new",
            "description": "Totals with three line items are off by one cent because each line is rounded.",
        },
        "# BUG-001\n\nRound once, at the total, using decimal arithmetic.\n",
    )
    ra, rb = index(runtime, a), index(runtime, b)
    assert ra.index_location != rb.index_location
    assert (ra.items_indexed, rb.items_indexed) == (13, 1)

    invoice = "invoice totals off by one cent"
    in_b = search(runtime, b, invoice, threshold=0.0)
    assert ids(in_b.results) == ["BUG-001"] and in_b.results[0].title == "Invoice totals are rounded wrongly"
    in_a = search(runtime, a, invoice, threshold=0.0, limit=100, include_completed=True)
    assert {r.title for r in in_a.results}.isdisjoint({"Invoice totals are rounded wrongly"})
    assert next(r for r in in_a.results if r.item_id == "BUG-001").path.startswith("bugs/BUG-001-offline")

    shutil.rmtree(folder(b, "BUG-001"))
    assert index(runtime, b).items_indexed == 0
    assert status(runtime, a).items_indexed == 13 and not status(runtime, a).is_stale


def _corrupt(location: str) -> None:
    db = Path(location) / "store.db"
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database\n" * 200)


def test_corrupted_index_says_force_and_force_repairs(settings, memo, tree):
    sqlite_only(settings, "a damaged file (tests/store/postgres covers dropped tables)")
    location = index(Runtime(settings, embedder=memo), tree).index_location
    _corrupt(location)
    fresh = Runtime(settings, embedder=memo)  # another process opening the damaged file
    for call in (
        lambda: search(fresh, tree, "sync"),
        lambda: status(fresh, tree),
        lambda: index(fresh, tree),
    ):
        with pytest.raises(IndexCorrupted) as err:
            call()
        assert "force=true" in err.value.message and str(tree) in err.value.message

    repaired = index(fresh, tree, force=True)
    assert repaired.status == "rebuilt" and repaired.items_indexed == 13
    assert (
        search(fresh, tree, "search does not find notes with accented letters").results[0].item_id
        == "BUG-002"
    )
    assert not status(fresh, tree).is_stale


def test_a_damaged_page_inside_the_index_is_index_corrupted(settings, memo, tree):
    sqlite_only(settings, "a damaged page of the file")
    db = Path(index(Runtime(settings, embedder=memo), tree).index_location) / "store.db"
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    roots = [
        r[0] for r in con.execute("SELECT rootpage FROM sqlite_master WHERE tbl_name = 'nodes' AND rootpage")
    ]
    page_size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    with open(
        db, "r+b"
    ) as f:  # the header and the meta table stay readable; the nodes table and its indexes do not
        for root in roots:
            f.seek((root - 1) * page_size)
            f.write(bytes(range(256)) * (page_size // 256))

    fresh = Runtime(settings, embedder=memo)
    for call in (
        lambda: status(fresh, tree),
        lambda: search(fresh, tree, "sync"),
        lambda: index(fresh, tree),
    ):
        with pytest.raises(IndexCorrupted) as err:
            call()
        assert "force=true" in err.value.message
    assert index(fresh, tree, force=True).status == "rebuilt"


def test_embedder_mismatch_says_how_to_reindex_and_force_rebuilds(settings, runtime, memo, tree):
    index(runtime, tree)
    other = Runtime(settings, embedder=CountingEmbedder(memo, name="some-other-model"))
    for call in (
        lambda: search(other, tree, "sync"),
        lambda: index(other, tree),
        lambda: tools.check_duplicates(
            other, CheckDuplicatesRequest(title="t", description="", project_path=str(tree))
        ),
    ):
        with pytest.raises(EmbedderMismatch) as err:
            call()
        message = err.value.message
        assert "some-other-model" in message and memo.name in message and "force=true" in message

    rebuilt = index(other, tree, force=True)
    assert rebuilt.status == "rebuilt" and rebuilt.items_updated == 13
    assert (
        search(other, tree, "search does not find notes with accented letters").results[0].item_id
        == "BUG-002"
    )
    with pytest.raises(EmbedderMismatch):  # and now the first embedder is the odd one out
        search(Runtime(settings, embedder=memo), tree, "sync")


def test_an_index_with_an_older_passage_layout_says_to_rebuild_and_force_does(runtime, tree):
    index(runtime, tree)
    store = ItemIndex(runtime, tree).store()
    store.set_meta("embedder", {**store.get_meta("embedder"), "layout": 1})  # as the previous version wrote it
    with pytest.raises(EmbedderMismatch) as err:
        search(runtime, tree, "sync")
    assert "passage layout 1, now 2" in err.value.message and "force=true" in err.value.message
    assert index(runtime, tree, force=True).status == "rebuilt"
    assert search(runtime, tree, "search does not find notes with accented letters").results[0].item_id == "BUG-002"


def _snapshot(runtime: Runtime, tree: Path) -> tuple:
    st = status(runtime, tree)
    return st.last_indexed, st.items_indexed, st.stale_files


@pytest.mark.parametrize("broken", [FailingEmbedder, WrongDimEmbedder])
def test_a_failed_embedding_keeps_the_structural_update_whole_and_partial(settings, runtime, memo, tree, broken):
    """The structural phase commits in one transaction before anything is embedded; an embedder that fails
    leaves that update whole (no stale file, the deleted item gone, no vectors of an edited text's old
    version) and the index partial, and the next call with a working embedder finishes it."""
    index(runtime, tree)
    _edit_add_delete(tree)
    assert _snapshot(runtime, tree)[2]  # stale

    failing = Runtime(settings, embedder=broken(memo))
    with pytest.raises(Exception) as err:
        index(failing, tree)
    if broken is WrongDimEmbedder:
        assert isinstance(err.value, GraphloreError)

    reader = Runtime(settings, embedder=memo)
    after = status(reader, tree)
    assert after.stale_files == [] and after.partial and after.items_indexed == 13
    assert after.items_embedded == 11 and after.passages_embedded < after.passages_total
    store = ItemIndex(reader, tree).store()
    assert not store.get_nodes(["INQ-001"]) and store.get_nodes(["FEAT-006"])
    assert "BUG-002" not in store.node_vectors(["BUG-002", "FEAT-006"])
    assert store.get_nodes(["BUG-002"])[0].props["description"].startswith("Diacritics are ignored")
    # a call in a one-shot process finishes the embedding before it answers
    found = search(reader, tree, "prefill a meeting note from a calendar event")
    assert found.results[0].item_id == "FEAT-006" and not found.index_status.partial
    assert not status(reader, tree).partial


class GatedEmbedder(CountingEmbedder):
    """Embeds like the real model, but its first call waits for ``release`` (and says it started)."""

    def __init__(self, inner) -> None:
        super().__init__(inner)
        self.started, self.release = threading.Event(), threading.Event()

    def embed(self, texts):
        self.started.set()
        assert self.release.wait(60), "the test never released the first index run"
        return super().embed(texts)


def test_a_second_index_run_waits_for_the_first_and_finds_nothing_to_do(settings, memo, tree):
    """Two processes (two runtimes, two store connections) index one project at once: the second waits on
    the project's index lock while the first embeds, then finds the index current and embeds nothing."""
    first, second = GatedEmbedder(memo), CountingEmbedder(memo)
    results = {}
    run_first = threading.Thread(target=lambda: results.update(first=index(Runtime(settings, embedder=first), tree)))
    run_first.start()
    assert first.started.wait(60)
    run_second = threading.Thread(target=lambda: results.update(second=index(Runtime(settings, embedder=second), tree)))
    run_second.start()
    run_second.join(0.5)
    assert run_second.is_alive(), "the second run did not wait for the first"
    first.release.set()
    run_first.join(60)
    run_second.join(60)
    assert results["first"].status == "created" and results["first"].items_updated == 13
    assert results["second"].status == "unchanged" and second.texts == []
