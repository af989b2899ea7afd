"""The feature-management scanner: lenient parsing, warnings instead of crashes, strict layout and config."""

from __future__ import annotations

import builtins
import hashlib
import json
import os
import re
import time
from pathlib import Path

import pytest
from helpers import paths as PATHS

from graphlore.errors import InvalidInput
from graphlore.toolsets.items.config import load_project_config
from graphlore.toolsets.items.scan import (
    ITEM_TYPES,
    ScannedItem,
    check_layout,
    list_item_files,
    scan_project,
)

REPO = PATHS.REPO
EXAMPLES = REPO / "examples" / "feature-management"
REAL_TREE = PATHS.SHARED_DATA / "featmgmt" / "feature-management"


def write(root: Path, rel: str, content: object) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def by_id(result) -> dict[str, ScannedItem]:
    return {item.item_id: item for item in result.items}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """One well-formed item of each type, a completed item, an index file and an agent log."""
    root = tmp_path / "fm"
    write(root, "bugs/BUG-001-sync-conflict/bug_report.json",
          {"bug_id": "BUG-001", "title": "Sync conflict loses edits", "description": "Offline edits vanish.",
           "status": "New", "priority": "P0", "reported_date": "2025-11-02", "severity": "critical"})
    write(root, "bugs/BUG-001-sync-conflict/PROMPT.md", "# BUG-001: Sync conflict loses edits\n\nFix the merge.\n")
    write(root, "bugs/bugs.md", "# Bugs index (not an item)\n")
    write(root, "features/FEAT-002-dark-mode/feature_request.json",
          {"feature_id": "FEAT-002", "title": "Dark mode", "description": "A dark theme.", "status": "in_progress",
           "priority": "P2", "created_date": "2025-07-10"})
    write(root, "features/FEAT-002-dark-mode/PROMPT.md", "Use theme tokens.\n")
    write(root, "human-actions/ACTION-003-renew-cert/action_report.json",
          {"action_id": "ACTION-003", "title": "Renew the TLS certificate", "description": "Expires soon.",
           "status": "new", "priority": "high"})
    write(root, "human-actions/ACTION-003-renew-cert/INSTRUCTIONS.md", "1. Log in.\n2. Renew.\n")
    write(root, "inquiries/INQ-004-crdt/inquiry_report.json",
          {"inquiry_id": "INQ-004", "title": "CRDT or last-write-wins?", "status": "research",
           "question": "Should sync use CRDTs?", "priority": "P1"})
    write(root, "inquiries/INQ-004-crdt/QUESTION.md", "# Question\n\nCRDTs?\n")
    write(root, "inquiries/INQ-004-crdt/research/agent-1.md", "not read")
    write(root, "completed/BUG-005-login-loop/bug_report.json", {"bug_id": "BUG-005", "title": "Login loop"})
    write(root, "completed/BUG-005-login-loop/PROMPT.md", "Clear the token.\n")
    write(root, "agent_runs/session-2025-11-05.md", "# Session\nBUG-001 sync conflict, worked on it.\n")
    write(root, "agent_runs/BUG-099-looks-like-an-item/bug_report.json", {"title": "never indexed"})
    return root


def test_reads_every_item_type_with_its_fields(tree: Path) -> None:
    result = scan_project(tree)
    assert result.warnings == []
    items = by_id(result)
    assert sorted(items) == ["ACTION-003", "BUG-001", "BUG-005", "FEAT-002", "INQ-004"]
    assert {i.item_type for i in result.items} == set(ITEM_TYPES)

    bug = items["BUG-001"]
    assert (bug.item_type, bug.title, bug.description) == ("bug", "Sync conflict loses edits", "Offline edits vanish.")
    assert (bug.status, bug.priority, bug.completed) == ("new", "P0", False)  # status lower-cased
    assert bug.path == "bugs/BUG-001-sync-conflict"
    assert bug.body == "# BUG-001: Sync conflict loses edits\n\nFix the merge.\n"
    assert bug.text == (
        "TITLE: Sync conflict loses edits\n\nDESCRIPTION: Offline edits vanish.\n\n"
        "IMPLEMENTATION:\n# BUG-001: Sync conflict loses edits\n\nFix the merge.\n"
    )
    assert bug.content_hash == hashlib.sha256(bug.text.encode("utf-8")).hexdigest()
    assert set(bug.files) == {"bugs/BUG-001-sync-conflict/bug_report.json", "bugs/BUG-001-sync-conflict/PROMPT.md"}

    assert items["ACTION-003"].body.startswith("1. Log in.") and items["ACTION-003"].priority == "high"
    inquiry = items["INQ-004"]
    assert inquiry.description == "Should sync use CRDTs?"  # inquiries carry a question, not a description
    assert inquiry.body == "# Question\n\nCRDTs?\n"
    assert "inquiries/INQ-004-crdt/research/agent-1.md" not in inquiry.files


def test_mtime_is_the_newest_file_and_hash_follows_text(tree: Path) -> None:
    folder = tree / "features/FEAT-002-dark-mode"
    os.utime(folder / "feature_request.json", (1_700_000_000, 1_700_000_000))
    os.utime(folder / "PROMPT.md", (1_700_000_500, 1_700_000_500))
    before = by_id(scan_project(tree))["FEAT-002"]
    assert before.mtime == 1_700_000_500
    assert before.files == {"features/FEAT-002-dark-mode/feature_request.json": 1_700_000_000,
                            "features/FEAT-002-dark-mode/PROMPT.md": 1_700_000_500}
    os.utime(folder / "PROMPT.md", (1_700_000_900, 1_700_000_900))  # mtime-only change
    touched = by_id(scan_project(tree))["FEAT-002"]
    assert touched.mtime == 1_700_000_900 and touched.content_hash == before.content_hash
    (folder / "PROMPT.md").write_text("Use CSS variables.\n", encoding="utf-8")
    assert by_id(scan_project(tree))["FEAT-002"].content_hash != before.content_hash


def test_id_variants_and_id_from_folder_name(tmp_path: Path) -> None:
    write(tmp_path, "bugs/BUG-001-a/bug_report.json", {"bug_id": "BUG-001", "title": "A", "reported_date": "x"})
    write(tmp_path, "bugs/BUG-002-b/bug_report.json", {"id": "BUG-002", "title": "B", "created": "2025-01-01"})
    write(tmp_path, "bugs/BUG-003-c/bug_report.json", {"title": "C"})  # no id at all
    write(tmp_path, "features/feat-7-lower-case/feature_request.json", {"title": "D"})
    for rel in ("bugs/BUG-001-a", "bugs/BUG-002-b", "bugs/BUG-003-c"):
        write(tmp_path, f"{rel}/PROMPT.md", "body")
    write(tmp_path, "features/feat-7-lower-case/PROMPT.md", "body")
    result = scan_project(tmp_path)
    assert [(i.item_id, i.title) for i in result.items] == [
        ("BUG-001", "A"), ("BUG-002", "B"), ("BUG-003", "C"), ("FEAT-7", "D")]
    assert result.warnings == []


def test_json_id_that_disagrees_with_the_folder_is_reported(tmp_path: Path) -> None:
    write(tmp_path, "bugs/BUG-007-copied-template/bug_report.json", {"bug_id": "BUG-001", "title": "T"})
    write(tmp_path, "bugs/BUG-007-copied-template/PROMPT.md", "body")
    result = scan_project(tmp_path)
    assert [i.item_id for i in result.items] == ["BUG-007"]
    assert len(result.warnings) == 1
    assert "bug_report.json" in result.warnings[0] and "'BUG-001'" in result.warnings[0]
    assert "BUG-007" in result.warnings[0]


def test_malformed_json_keeps_the_item_with_markdown_title(tmp_path: Path) -> None:
    write(tmp_path, "bugs/BUG-001-sync-conflict/bug_report.json", '{"title": "Sync conflict", "status": }')
    write(tmp_path, "bugs/BUG-001-sync-conflict/PROMPT.md", "intro\n\n## FEAT-1: not me\n")
    write(tmp_path, "bugs/BUG-002-broken/bug_report.json", '{"title": "x",\n  oops}')
    write(tmp_path, "bugs/BUG-002-broken/PROMPT.md", "# BUG-002: Editor crashes on paste\n\nDetails.\n")
    result = scan_project(tmp_path)
    items = by_id(result)
    assert items["BUG-002"].title == "Editor crashes on paste"  # first heading, id prefix stripped
    assert items["BUG-002"].body.startswith("# BUG-002")
    assert items["BUG-002"].status == "" and items["BUG-002"].priority == ""
    assert items["BUG-001"].title == "not me"
    assert "bugs/BUG-002-broken/bug_report.json" in items["BUG-002"].files  # still tracked for staleness
    assert len(result.warnings) == 2
    warning = next(w for w in result.warnings if "BUG-002" in w)
    assert warning.startswith("bugs/BUG-002-broken/bug_report.json: not valid JSON") and "line 2" in warning


@pytest.mark.parametrize("payload, kind", [([1, 2], "list"), ('"just a string"', "str"), ("null", "NoneType")])
def test_json_that_is_not_an_object_is_reported(tmp_path: Path, payload: object, kind: str) -> None:
    write(tmp_path, "features/FEAT-001-sync-badge/feature_request.json", payload)
    write(tmp_path, "features/FEAT-001-sync-badge/PROMPT.md", "text only")
    result = scan_project(tmp_path)
    assert [(i.item_id, i.title) for i in result.items] == [("FEAT-001", "Sync badge")]
    assert result.warnings == [f"features/FEAT-001-sync-badge/feature_request.json: expected a JSON object, "
                               f"got {kind}; metadata ignored"]


def test_missing_json_and_missing_markdown(tmp_path: Path) -> None:
    write(tmp_path, "features/FEAT-020-token-linter/PROMPT.md", "# FEAT-020: File Token Limit Linter\n")
    write(tmp_path, "bugs/BUG-003-no-prompt/bug_report.json", {"title": "No prompt here", "description": "d"})
    (tmp_path / "inquiries/INQ-001-empty-folder").mkdir(parents=True)
    result = scan_project(tmp_path)
    items = by_id(result)
    assert items["FEAT-020"].title == "File Token Limit Linter"
    assert items["FEAT-020"].files.keys() == {"features/FEAT-020-token-linter/PROMPT.md"}
    assert items["BUG-003"].body == "" and items["BUG-003"].text.endswith("IMPLEMENTATION:\n")
    empty = items["INQ-001"]
    assert (empty.title, empty.files, empty.body) == ("Empty folder", {}, "")
    assert empty.mtime == (tmp_path / "inquiries/INQ-001-empty-folder").stat().st_mtime
    assert sorted(result.warnings) == [
        "bugs/BUG-003-no-prompt/PROMPT.md: missing; the item is indexed without it",
        "features/FEAT-020-token-linter/feature_request.json: missing; the item is indexed without it",
        "inquiries/INQ-001-empty-folder/QUESTION.md: missing; the item is indexed without it",
        "inquiries/INQ-001-empty-folder/inquiry_report.json: missing; the item is indexed without it",
    ]


def test_json_without_title_falls_back_and_warns(tmp_path: Path) -> None:
    write(tmp_path, "bugs/BUG-004-sync-conflict-offline/bug_report.json", {"bug_id": "BUG-004", "title": ""})
    write(tmp_path, "bugs/BUG-004-sync-conflict-offline/PROMPT.md", "No heading here.\n")
    result = scan_project(tmp_path)
    assert result.items[0].title == "Sync conflict offline"
    assert result.warnings == ["bugs/BUG-004-sync-conflict-offline/bug_report.json: no 'title'; "
                               "using 'Sync conflict offline'"]


def test_lenient_field_types(tmp_path: Path) -> None:
    write(tmp_path, "bugs/BUG-001-x/bug_report.json",
          {"title": 42, "description": ["line one", "line two"], "status": {"odd": 1}, "priority": 1})
    write(tmp_path, "bugs/BUG-001-x/PROMPT.md", "\ufeffbody with BOM")
    item = scan_project(tmp_path).items[0]
    assert (item.title, item.description, item.status, item.priority) == ("42", "line one\nline two", "", "1")
    assert item.body == "body with BOM"


def test_undecodable_markdown_is_replaced_and_reported(tmp_path: Path) -> None:
    write(tmp_path, "bugs/BUG-001-latin1/bug_report.json", {"title": "Caf\u00e9"})
    write(tmp_path, "bugs/BUG-001-latin1/PROMPT.md", "caf\xe9 au lait".encode("latin-1"))
    result = scan_project(tmp_path)
    assert result.items[0].body == "caf\ufffd au lait"
    assert result.warnings == ["bugs/BUG-001-latin1/PROMPT.md: not valid UTF-8; undecodable bytes were replaced"]


def test_agent_runs_are_never_indexed(tree: Path) -> None:
    write(tree, "bugs/agent_runs/BUG-098-nested/bug_report.json", {"title": "nested log"})
    result = scan_project(tree)
    assert not any("agent_runs" in i.path for i in result.items)
    assert not any("agent_runs" in w for w in result.warnings)
    assert not any("agent_runs" in f for f in list_item_files(tree))


def test_completed_items_flat_and_in_type_folders(tmp_path: Path) -> None:
    write(tmp_path, "completed/BUG-010-flat/bug_report.json", {"title": "Flat", "status": "Resolved"})
    write(tmp_path, "completed/BUG-010-flat/PROMPT.md", "x")
    write(tmp_path, "completed/features/FEAT-011-typed/feature_request.json", {"title": "Typed"})
    write(tmp_path, "completed/features/FEAT-011-typed/PROMPT.md", "x")
    write(tmp_path, "completed/human-actions/ACTION-012-typed/action_report.json", {"title": "Done action"})
    write(tmp_path, "completed/human-actions/ACTION-012-typed/INSTRUCTIONS.md", "x")
    write(tmp_path, "completed/README.md", "archive")
    result = scan_project(tmp_path)  # completed/ alone is a valid layout
    assert result.warnings == []
    assert [(i.item_id, i.item_type, i.status, i.completed, i.path) for i in result.items] == [
        ("BUG-010", "bug", "resolved", True, "completed/BUG-010-flat"),
        ("FEAT-011", "feature", "completed", True, "completed/features/FEAT-011-typed"),
        ("ACTION-012", "action", "completed", True, "completed/human-actions/ACTION-012-typed"),
    ]


def test_non_item_folders_warn_and_stray_files_are_skipped(tree: Path) -> None:
    (tree / "bugs/notes").mkdir()
    (tree / "completed/old-stuff").mkdir()
    (tree / "bugs/.DS_Store").write_bytes(b"\0")
    (tree / "features/.hidden-dir").mkdir()
    result = scan_project(tree)
    assert len(result.items) == 5
    assert sorted(result.warnings) == [
        "bugs/notes/: not an item folder (expected a name like BUG-001-short-title); skipped",
        "completed/old-stuff/: not an item folder (expected a name like BUG-001-short-title); skipped",
    ]


def test_item_in_the_wrong_type_folder_is_indexed_by_its_prefix(tmp_path: Path) -> None:
    write(tmp_path, "bugs/FEAT-030-misfiled/feature_request.json", {"title": "Misfiled feature"})
    write(tmp_path, "bugs/FEAT-030-misfiled/PROMPT.md", "x")
    result = scan_project(tmp_path)
    assert [(i.item_id, i.item_type, i.title) for i in result.items] == [("FEAT-030", "feature", "Misfiled feature")]
    assert result.warnings == ["bugs/FEAT-030-misfiled/: a feature folder inside bugs/; indexed as a feature"]


def test_duplicate_ids_keep_both_and_the_active_item_keeps_the_id(tmp_path: Path) -> None:
    for rel in ("features/FEAT-021-inquiry-skill", "completed/FEAT-021-subagents-to-skills",
                "features/FEAT-021-zz-second-active"):
        write(tmp_path, f"{rel}/feature_request.json", {"feature_id": "FEAT-021", "title": rel})
        write(tmp_path, f"{rel}/PROMPT.md", "x")
    result = scan_project(tmp_path)
    assert [(i.item_id, i.path) for i in result.items] == [
        ("FEAT-021@completed/FEAT-021-subagents-to-skills", "completed/FEAT-021-subagents-to-skills"),
        ("FEAT-021", "features/FEAT-021-inquiry-skill"),
        ("FEAT-021@features/FEAT-021-zz-second-active", "features/FEAT-021-zz-second-active"),
    ]
    assert len({i.item_id for i in result.items}) == 3
    assert result.warnings == [
        "duplicate item id FEAT-021: features/FEAT-021-inquiry-skill keeps it; "
        "features/FEAT-021-zz-second-active is indexed as FEAT-021@features/FEAT-021-zz-second-active, "
        "completed/FEAT-021-subagents-to-skills is indexed as FEAT-021@completed/FEAT-021-subagents-to-skills"
    ]


def test_items_are_sorted_by_path(tree: Path) -> None:
    paths = [i.path for i in scan_project(tree).items]
    assert paths == sorted(paths)


# --- layout checks -------------------------------------------------------------------------------

def test_check_layout_missing_path(tmp_path: Path) -> None:
    from graphlore.errors import NotFound

    with pytest.raises(NotFound) as exc:  # an unknown project is not_found, as an unknown library or graph
        check_layout(tmp_path / "nope")
    assert "does not exist" in exc.value.message and "bugs/BUG-001-short-title/" in exc.value.message


def test_check_layout_file(tmp_path: Path) -> None:
    write(tmp_path, "notes.txt", "hello")
    with pytest.raises(InvalidInput) as exc:
        scan_project(tmp_path / "notes.txt")
    assert "is a file, not a folder" in exc.value.message
    assert "bugs/, features/, human-actions/, inquiries/ or completed/" in exc.value.message


def test_check_layout_empty_folder_and_parent_hint(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as exc:
        list_item_files(tmp_path)
    assert "is not a feature-management folder" in exc.value.message and "did you mean" not in exc.value.message
    (tmp_path / "feature-management" / "bugs").mkdir(parents=True)
    with pytest.raises(InvalidInput) as exc:
        check_layout(tmp_path)
    assert f"did you mean {str(tmp_path.resolve() / 'feature-management')!r}" in exc.value.message
    with pytest.raises(InvalidInput, match="project_path is empty"):
        check_layout("  ")
    with pytest.raises(InvalidInput, match="is not a usable path"):
        check_layout("bad\0path")


def test_check_layout_returns_the_real_path(tree: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(tree)
    assert check_layout(link) == tree.resolve()
    assert scan_project(link).items[0].path == scan_project(tree).items[0].path


# --- list_item_files ---------------------------------------------------------------------------------

def test_list_item_files_matches_what_scan_reads(tree: Path) -> None:
    write(tree, "bugs/BUG-009-broken/bug_report.json", "{not json")
    write(tree, "features/FEAT-010-no-json/PROMPT.md", "# Only markdown\n")
    (tree / "bugs/junk").mkdir()
    result = scan_project(tree)
    read = {path: mtime for item in result.items for path, mtime in item.files.items()}
    assert list_item_files(tree) == read
    assert "inquiries/INQ-004-crdt/research/agent-1.md" not in read
    os.utime(tree / "bugs/BUG-001-sync-conflict/PROMPT.md", (1_800_000_000, 1_800_000_000))
    assert list_item_files(tree)["bugs/BUG-001-sync-conflict/PROMPT.md"] == 1_800_000_000


def test_list_item_files_never_reads_contents(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = list_item_files(tree)

    def refuse(*args, **kwargs):
        raise AssertionError("list_item_files must not read file contents")

    monkeypatch.setattr(builtins, "open", refuse)
    monkeypatch.setattr(Path, "read_bytes", refuse)
    monkeypatch.setattr(Path, "read_text", refuse)
    monkeypatch.setattr(os, "open", refuse)
    assert list_item_files(tree) == expected


@pytest.mark.slow
def test_list_item_files_lists_every_file_of_10k_items(tmp_path: Path) -> None:
    """Its speed is measured by bench/items_scale.py (no-op re-index), not asserted here."""
    root = tmp_path / "big"
    for n in range(10_000):
        folder = root / "bugs" / f"BUG-{n:05d}-item"
        folder.mkdir(parents=True)
        (folder / "bug_report.json").write_bytes(b"{}")
        (folder / "PROMPT.md").write_bytes(b"x")
    files = list_item_files(root)
    assert len(files) == 20_000 and all(mtime > 0 for mtime in files.values())


# --- shipped example and the real tree -------------------------------------------------------------

def test_example_tree_scans_cleanly() -> None:
    result = scan_project(EXAMPLES)
    assert result.warnings == []
    assert {i.item_type for i in result.items} == set(ITEM_TYPES)
    assert any(i.completed for i in result.items) and any(not i.completed for i in result.items)
    assert (EXAMPLES / "agent_runs").is_dir() and not any("agent_runs" in i.path for i in result.items)
    assert all(i.title and i.description and i.body and i.status and i.priority for i in result.items)
    assert len({i.item_id for i in result.items}) == len(result.items) >= 10
    assert 0.0 <= load_project_config(EXAMPLES).duplicate_similarity_threshold <= 1.0


def _real_item_folders(root: Path) -> set[str]:
    """Item folders found independently of the scanner: NAME-NNN folders one level below a type folder."""
    pattern = re.compile(r"^(BUG|FEAT|ACTION|INQ)-\d+", re.IGNORECASE)
    type_dirs = ("bugs", "features", "human-actions", "inquiries")
    parents = [root / d for d in (*type_dirs, "completed")] + [root / "completed" / d for d in type_dirs]
    return {p.relative_to(root).as_posix() for parent in parents if parent.is_dir()
            for p in parent.iterdir() if p.is_dir() and pattern.match(p.name)}


@pytest.mark.skipif(not REAL_TREE.is_dir(), reason=f"real feature-management tree not found at {REAL_TREE}")
def test_real_tree_every_item_folder_yields_an_item() -> None:
    started = time.perf_counter()
    result = scan_project(REAL_TREE)
    elapsed = time.perf_counter() - started
    print(f"real tree: {len(result.items)} items, {len(result.warnings)} warnings in {elapsed * 1000:.1f} ms")
    for warning in result.warnings:
        print("  warning:", warning)
    assert {i.path for i in result.items} == _real_item_folders(REAL_TREE)
    assert len({i.item_id for i in result.items}) == len(result.items)
    assert all(i.title.strip() and i.item_type in ITEM_TYPES for i in result.items)
    assert not any(i.path.startswith("agent_runs") for i in result.items)
    for item in result.items:  # every missing metadata file is reported, by name
        json_name = {"bug": "bug_report.json", "feature": "feature_request.json",
                     "action": "action_report.json", "inquiry": "inquiry_report.json"}[item.item_type]
        if not (REAL_TREE / item.path / json_name).exists():
            assert f"{item.path}/{json_name}: missing; the item is indexed without it" in result.warnings
    assert list_item_files(REAL_TREE) == {p: m for i in result.items for p, m in i.files.items()}
