"""Items under abuse: files that fight back are warnings, long items are bounded, an interrupted index
resumes, OS errors are proper errors, a damaged index is reported by every tool, hints run, progress
is printed without a terminal."""

from __future__ import annotations

import json
import os
import re
import shlex
import threading

import numpy as np
import pytest
from anyio.from_thread import start_blocking_portal
from click.testing import CliRunner
from helpers.backend import env_for, sqlite_only
from helpers.items import index, search, status
from mcp import Client

from graphlore import embeddings
from graphlore.adapters import cli as cli_adapter
from graphlore.adapters.cli import build_cli
from graphlore.adapters.mcp import build_server
from graphlore.config import Settings
from graphlore.errors import IndexCorrupted
from graphlore.runtime import Runtime
from graphlore.store.factory import sqlite_path
from graphlore.toolsets import load_toolset
from graphlore.toolsets.items import index as index_module
from graphlore.toolsets.items.examples import write_project
from graphlore.toolsets.items.index import ItemIndex
from graphlore.toolsets.items.scan import MAX_FILE_BYTES


@pytest.fixture
def project(tmp_path):
    return write_project(tmp_path)


def add_bug(project, name: str, meta: dict | bytes | None = None, prompt: str | bytes | None = None):
    folder = project / "bugs" / name
    folder.mkdir(parents=True)
    if meta is not None:
        raw = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
        (folder / "bug_report.json").write_bytes(raw)
    if prompt is not None:
        (folder / "PROMPT.md").write_bytes(prompt if isinstance(prompt, bytes) else prompt.encode())
    return folder


def index_within(runtime, project, seconds: float = 120):
    """Index in a thread: a hang fails the test instead of stalling the run."""
    out: list = []

    def run() -> None:
        try:
            out.append(index(runtime, project))
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread below
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"index did not finish within {seconds} s"
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


# -- 1. a bad file is a warning, not a failed project ------------------------------------------------------


def test_a_lone_surrogate_in_json_is_a_warning_naming_the_file(runtime, project):
    add_bug(project, "BUG-010-a", b'{"title": "a \\ud800 b", "description": "d \\udfff"}', "body")
    result = index(runtime, project)
    assert any(w.startswith("bugs/BUG-010-a/bug_report.json: holds 2 escape(s) that are not characters")
               for w in result.warnings)
    hit = next(r for r in search(runtime, project, "a b", threshold=0.0, limit=100).results if r.item_id == "BUG-010")
    assert hit.title == "a \ufffd b"


def test_nul_characters_become_u_fffd_with_a_warning_on_every_backend(runtime, project):
    """No store text holds NUL (PostgreSQL's cannot): a JSON ``\\u0000`` escape and NUL bytes in markdown
    are replaced and reported, so one such file never fails the project's index."""
    add_bug(project, "BUG-011-nul", b'{"title": "x \\u0000 y"}', b"body \x00 binary")
    result = index(runtime, project)
    assert "bugs/BUG-011-nul/PROMPT.md: holds NUL characters (binary data?); each was replaced with U+FFFD" \
        in result.warnings
    assert any(w.startswith("bugs/BUG-011-nul/bug_report.json: holds 1 escape(s) that are not characters")
               for w in result.warnings)
    hit = next(r for r in search(runtime, project, "x y", threshold=0.0, limit=100).results if r.item_id == "BUG-011")
    assert hit.title == "x \ufffd y"


def test_the_cli_indexes_the_issue_repro(tmp_path):
    """The issue's reproduction: one bug_report.json with \\ud800 made every items tool fail."""
    project = tmp_path / "p"
    add_bug(project, "BUG-001-a", b'{"title":"a \\ud800"}')
    result = CliRunner(env=env_for(tmp_path / "home")).invoke(
        build_cli(), ["items", "index", "-p", str(project), "--json"])
    assert result.exit_code == 0, result.output
    assert "bugs/BUG-001-a/bug_report.json: holds 1 escape(s)" in json.loads(result.stdout)["warnings"][0]


# -- 2. big files: bounded work, flat memory, resumable -----------------------------------------------------


@pytest.mark.slow  # over a second: the everyday run keeps its 2 minutes
def test_a_huge_markdown_file_is_read_up_to_the_cap_and_embedded_up_to_the_passage_cap(runtime, project,
                                                                                         monkeypatch):
    monkeypatch.setattr(index_module, "MAX_PASSAGES", 4)  # the real cap (32) costs the same, only slower
    sentence = "The synchronisation engine drops edits made offline when two devices reconnect. "
    add_bug(project, "BUG-011-huge", {"title": "Offline edits are lost"}, sentence * 30_000)  # 2.4 MB
    result = index(runtime, project)
    rel = "bugs/BUG-011-huge/PROMPT.md"
    assert f"{rel}: is {len(sentence) * 30_000:,} bytes; only the first {MAX_FILE_BYTES:,} are read (the rest is " \
           "not indexed)" in result.warnings
    assert any(w.startswith("bugs/BUG-011-huge: long text (") and "only the first 4 are embedded" in w
               for w in result.warnings)
    store = ItemIndex(runtime, project).store()
    [node] = store.get_nodes(["BUG-011"], with_vectors=True)
    assert node.vectors.shape[0] == 4 and len(node.text) < MAX_FILE_BYTES + 1000
    assert search(runtime, project, "offline edits lost", limit=1).results[0].item_id == "BUG-011"
    # The warnings stay with the item when another item changes.
    add_bug(project, "BUG-012-other", {"title": "Another"}, "x")
    assert any(w.startswith("bugs/BUG-011-huge: long text") for w in index(runtime, project).warnings)


class Counting:
    """The real embedder, recording each call's texts; ``batch_size`` is what the orchestration batches by."""

    def __init__(self, inner, batch_size: int | None = None) -> None:
        self.inner = inner
        self.name, self.dim, self.batch_size = inner.name, inner.dim, batch_size or inner.batch_size
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return self.inner.embed(texts)

    def passages(self, text):
        return self.inner.passages(text)

    def texts(self) -> list[str]:
        return [t for call in self.calls for t in call]


def stored_passages(store) -> int:
    return sum(len(v) for v in store.node_vectors(list(store.node_hashes("item"))).values())


def test_an_interrupted_index_keeps_its_steps_and_the_next_run_resumes(settings, embedder, project, monkeypatch):
    for n in range(4):
        add_bug(project, f"BUG-1{n:02d}-item", {"title": f"Item {n} about topic {n}"}, f"Details of item {n}. " * 40)
    monkeypatch.setattr(embeddings, "STEP_TEXTS", 6)

    class Stop(Exception):
        pass

    runtime = Runtime(settings, embedder=Counting(embedder, batch_size=2))
    store = ItemIndex(runtime, project).store(create=True)
    kept = []

    def stop_after_the_first_commit(done: int, total: int, unit: str = "") -> None:
        if stored_passages(store):
            kept.append((stored_passages(store), done, total))
            raise Stop  # later batches were embedded but not committed

    with pytest.raises(Stop):
        ItemIndex(runtime, project).sync(progress=stop_after_the_first_commit)
    [(committed, done, total)] = kept
    assert 6 <= committed <= done < total
    partial = status(runtime, project)  # the structure is whole, the embedding was not finished...
    assert partial.exists and partial.partial and partial.items_indexed == 9
    assert partial.passages_embedded == committed and partial.items_embedded < 9

    # ...and the next call, in a process that never saw the first one's vectors, carries on from what it kept
    resumed = Counting(embedder)
    result = index(Runtime(settings, embedder=resumed), project)
    assert result.status == "updated" and result.items_indexed == 9 and not status(runtime, project).partial
    assert len(resumed.texts()) == total - committed

    clean = Counting(embedder)
    clean_runtime = Runtime(Settings(home=settings.home / "clean"), embedder=clean)
    index(clean_runtime, project)
    assert len(clean.texts()) == total
    a, b = ItemIndex(runtime, project).store(), ItemIndex(clean_runtime, project).store()
    assert a.node_hashes("item") == b.node_hashes("item")
    va, vb = a.node_vectors(list(a.node_hashes("item"))), b.node_vectors(list(b.node_hashes("item")))
    assert va.keys() == vb.keys() and all(np.allclose(va[k], vb[k], atol=1e-4) for k in vb)


def test_a_text_is_embedded_once_per_process_even_when_an_index_is_rebuilt(settings, embedder, project):
    counting = Counting(embedder)
    runtime = Runtime(settings, embedder=counting)
    index(runtime, project)
    first = counting.texts()
    assert len(first) == len(set(first)) > 0
    counting.calls.clear()
    rebuilt = ItemIndex(runtime, project).sync(force=True)
    assert rebuilt.status == "rebuilt" and counting.texts() == []  # every passage came from the runtime's cache
    search(runtime, project, "offline edits", limit=1)
    assert counting.texts() == ["offline edits"]
    search(runtime, project, "offline edits", limit=1)
    assert counting.texts() == ["offline edits"]


# -- 3. never open anything but regular files ---------------------------------------------------------------


def test_named_pipes_and_other_non_files_are_skipped_with_a_warning(runtime, project):
    fifo_md = add_bug(project, "BUG-020-fifo", {"title": "Pipe as markdown"})
    os.mkfifo(fifo_md / "PROMPT.md")
    fifo_json = add_bug(project, "BUG-021-fifo", None, "body")
    os.mkfifo(fifo_json / "bug_report.json")
    folder_md = add_bug(project, "BUG-022-dir", {"title": "Folder as markdown"})
    (folder_md / "PROMPT.md").mkdir()
    loop = add_bug(project, "BUG-023-loop", {"title": "Loop as markdown"})
    (loop / "PROMPT.md").symlink_to(loop / "PROMPT.md")
    (project / "bugs" / "BUG-024-dangling").symlink_to(project / "nowhere")
    (project / "bugs" / "BUG-025-self").symlink_to(project / "bugs" / "BUG-025-self")
    add_bug(project, "BUG-026-binary", os.urandom(4000), b"\x00\xff" * 2000)
    result = index_within(runtime, project)
    warnings = "\n".join(result.warnings)
    for expected in ("bugs/BUG-020-fifo/PROMPT.md: is a named pipe, not a regular file; skipped",
                     "bugs/BUG-021-fifo/bug_report.json: is a named pipe, not a regular file; skipped",
                     "bugs/BUG-022-dir/PROMPT.md: is a folder, not a regular file; skipped",
                     "bugs/BUG-023-loop/PROMPT.md: cannot be read (a symbolic link loop)",
                     "bugs/BUG-024-dangling: a symbolic link that leads to no folder; skipped",
                     "bugs/BUG-025-self: a symbolic link that leads to no folder; skipped",
                     "bugs/BUG-026-binary/bug_report.json: not valid UTF-8",
                     "bugs/BUG-026-binary/PROMPT.md: not valid UTF-8",
                     "bugs/BUG-026-binary/PROMPT.md: holds NUL characters (binary data?); each was replaced with "
                     "U+FFFD"):
        assert expected in warnings
    assert {"BUG-020", "BUG-021", "BUG-022", "BUG-023", "BUG-026"} <= set(ItemIndex(runtime, project)
                                                                          .store().node_hashes("item"))
    assert index_within(runtime, project).status == "unchanged"  # the pipes' mtimes count as read


# -- 4. OS errors are errors with a code, on the CLI and over MCP --------------------------------------------


def test_a_path_too_long_for_the_file_system_is_invalid_input_on_the_cli(tmp_path):
    result = CliRunner(env=env_for(tmp_path / "home")).invoke(
        build_cli(), ["items", "status", "-p", str(tmp_path / ("a" * 300))])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.startswith("error: [invalid_input] --project '") and "File name too long" in result.stderr


def test_a_path_too_long_for_the_file_system_is_an_error_over_mcp(settings, embedder, tmp_path):
    server = build_server(load_toolset("items"), Runtime(settings, embedder=embedder))
    with start_blocking_portal() as portal:
        client = Client(server)
        with portal.wrap_async_context_manager(client):
            for tool, extra in (("get_index_status", {}), ("search", {"query": "x"})):
                result = portal.call(lambda tool=tool, extra=extra: client.call_tool(
                    tool, {"project_path": str(tmp_path / ("a" * 300)), **extra}))
                text = result.content[0].text
                assert result.is_error and "[invalid_input]" in text and "File name too long" in text


# -- 5 and 8. a damaged index: reported by every tool, left as it is, and the printed repair runs -------------


@pytest.mark.parametrize("damage", ["empty", "header"])
def test_a_damaged_index_is_reported_by_every_tool_and_the_printed_repair_runs(settings, embedder, project, damage,
                                                                               short_empty_grace):
    sqlite_only(settings, "damage to a store file")
    runtime = Runtime(settings, embedder=embedder)
    index(runtime, project)
    path = sqlite_path(settings, ItemIndex(runtime, project).namespace)
    runtime.close()
    if damage == "empty":
        path.write_bytes(b"")
    else:
        with path.open("r+b") as fh:
            fh.write(b"\0" * 100)
    before = path.read_bytes()
    messages = []
    for call in (lambda: status(runtime, project), lambda: search(runtime, project, "dark"),
                 lambda: index(runtime, project)):
        with pytest.raises(IndexCorrupted) as caught:
            call()
        messages.append(caught.value.message)
    assert path.read_bytes() == before  # no read (nor a plain index) recreated it
    [command] = re.findall(r"`([^`]+)`", messages[0])
    assert command == f"graphlore items index --force -p {shlex.quote(str(project))}"
    result = CliRunner(env={"GRAPHLORE_HOME": str(settings.home)}).invoke(build_cli(), shlex.split(command)[1:])
    assert result.exit_code == 0, result.output
    assert search(runtime, project, "dark colour scheme", limit=1).results[0].item_id == "FEAT-001"


# -- 10. progress without a terminal ---------------------------------------------------------------------------


def test_long_commands_print_progress_lines_when_stderr_is_not_a_terminal(tmp_path, embedder, monkeypatch, project):
    monkeypatch.setattr(cli_adapter.ProgressReport, "every_s", 0.0)
    app = build_cli(make_runtime=lambda: Runtime(Settings(home=tmp_path / "home"), embedder=embedder))
    result = CliRunner().invoke(app, ["items", "search", "dark mode", "-p", str(project)])
    assert result.exit_code == 0, result.output
    assert re.search(r"^search: \d+/\d+ passages embedded$", result.stderr, flags=re.MULTILINE), result.stderr
    items = load_toolset("items")
    assert {s.name for s in items.tools if s.progress} == {"search", "index", "check_duplicates", "get_similar"}
