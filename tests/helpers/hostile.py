"""Files that fight back: a feature-management folder and JSONL files built to break a reader.

:func:`hostile_project` returns the folder and the relative paths of every bad item file, which an
index must report (as a warning naming it) rather than crash, hang or fill memory on.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
from pathlib import Path

from graphlore.toolsets.items.examples import write_project

BIG = 50 * 1024 * 1024


def _big_text(path: Path, size: int, line: str) -> None:
    block = (line * ((1 << 20) // len(line) + 1))[: 1 << 20]
    with path.open("w", encoding="utf-8") as fh:
        for _ in range(size // len(block)):
            fh.write(block)


def hostile_project(folder: Path, many: int = 10_000) -> tuple[Path, list[str]]:
    """A small valid project plus one item folder per way to fight back; (root, bad item paths)."""
    project = write_project(folder)
    bugs = project / "bugs"
    expected: list[str] = []

    def item(name: str, meta: object = None) -> Path:
        path = bugs / name
        path.mkdir()
        if meta is not None:
            (path / "bug_report.json").write_text(json.dumps(meta), encoding="utf-8")
        return path

    (bugs / "BUG-100-loop").symlink_to(bugs / "BUG-100-loop")
    (bugs / "BUG-101-dangling").symlink_to(project / "nowhere")
    expected += ["bugs/BUG-100-loop", "bugs/BUG-101-dangling"]
    folder_md = item("BUG-102-folder", {"title": "A folder where the markdown should be"})
    (folder_md / "PROMPT.md").mkdir()
    expected.append("bugs/BUG-102-folder/PROMPT.md")
    if os.geteuid() != 0:  # root reads everything: an unreadable file needs an ordinary user
        locked = item("BUG-103-locked", {"title": "Locked"})
        (locked / "PROMPT.md").write_text("secret")
        (locked / "PROMPT.md").chmod(0)
        expected.append("bugs/BUG-103-locked/PROMPT.md")
    binary = item("BUG-104-binary")
    (binary / "bug_report.json").write_bytes(os.urandom(64 * 1024))
    (binary / "PROMPT.md").write_bytes(b"\x00\xff\xfe" * 20_000)
    expected += ["bugs/BUG-104-binary/bug_report.json", "bugs/BUG-104-binary/PROMPT.md"]
    surrogate = item("BUG-105-surrogate")
    (surrogate / "bug_report.json").write_bytes(b'{"title": "lone \\ud800 surrogate", "description": "\\udfff"}')
    expected.append("bugs/BUG-105-surrogate/bug_report.json")
    fifo = item("BUG-106-fifo")
    os.mkfifo(fifo / "bug_report.json")
    os.mkfifo(fifo / "PROMPT.md")
    expected += ["bugs/BUG-106-fifo/bug_report.json", "bugs/BUG-106-fifo/PROMPT.md"]
    huge = item("BUG-107-huge")
    _big_text(huge / "PROMPT.md", BIG, "Offline edits are lost when two devices sync at once. ")
    with (huge / "bug_report.json").open("w", encoding="utf-8") as fh:
        fh.write('{"title": "Huge", "description": "')
        fh.write("x" * BIG)
        fh.write('"}')
    expected += ["bugs/BUG-107-huge/PROMPT.md", "bugs/BUG-107-huge/bug_report.json"]
    crowded = item("BUG-108-crowded", {"title": "A folder with ten thousand other files"})
    for n in range(many):
        (crowded / f"attachment-{n:05d}.log").write_text("x")
    looped = item("BUG-109-loopfile", {"title": "Markdown that links to itself"})
    (looped / "PROMPT.md").symlink_to(looped / "PROMPT.md")
    expected.append("bugs/BUG-109-loopfile/PROMPT.md")
    device = item("BUG-110-device", {"title": "Markdown that is an endless device"})
    (device / "PROMPT.md").symlink_to("/dev/zero")
    expected.append("bugs/BUG-110-device/PROMPT.md")
    sock_item = item("BUG-111-socket", {"title": "Markdown that is a socket"})
    short = Path(tempfile.mkdtemp(prefix="gs"))  # a socket's path must be short; it is moved into place after
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(short / "s"))
    sock.close()
    os.replace(short / "s", sock_item / "PROMPT.md")
    short.rmdir()
    expected.append("bugs/BUG-111-socket/PROMPT.md")
    return project, expected


def facts_hostile_files(folder: Path) -> list[tuple[str, Path]]:
    """JSONL "files" an ingest must refuse with a structured error, quickly and in flat memory."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    fifo = folder / "pipe.jsonl"
    os.mkfifo(fifo)
    out.append(("a named pipe", fifo))
    loop = folder / "loop.jsonl"
    loop.symlink_to(loop)
    out.append(("a symbolic link loop", loop))
    device = folder / "zero.jsonl"
    device.symlink_to("/dev/zero")
    out.append(("/dev/zero", device))
    (folder / "dir.jsonl").mkdir()
    out.append(("a folder", folder / "dir.jsonl"))
    binary = folder / "binary.jsonl"
    binary.write_bytes(os.urandom(256 * 1024))
    out.append(("random bytes", binary))
    surrogate = folder / "surrogate.jsonl"
    surrogate.write_bytes(b'{"name": "a \\ud800", "date": "2024-01-01", "chunks": ["x"]}\n')
    out.append(("a lone surrogate", surrogate))
    huge = folder / "huge.jsonl"
    with huge.open("w", encoding="utf-8") as fh:
        fh.write('{"name": "huge", "date": "2024-01-01", "chunks": ["')
        fh.write("y" * BIG)
        fh.write('"]}\n')
    out.append(("a 50 MB record", huge))
    return out
