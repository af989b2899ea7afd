"""Folder-backed toolsets read only regular files, up to a cap, and say what they skipped (never hang)."""

from __future__ import annotations

import os
import socket

from graphlore.toolsets.folder_index import read_file


def test_a_regular_file_is_read_whole_or_up_to_the_cap(tmp_path):
    path = tmp_path / "f.md"
    path.write_bytes(b"x" * 100)
    whole = read_file(path, 1000)
    assert whole.data == b"x" * 100 and whole.problem is None and whole.mtime == path.stat().st_mtime
    cut = read_file(path, 10)
    assert cut.data == b"x" * 10 and cut.size == 100 and cut.problem == "is 100 bytes; only the first 10 are read"


def test_pipes_devices_sockets_and_folders_are_never_opened(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it for reading would block until a writer came
    assert read_file(fifo, 100).problem == "is a named pipe, not a regular file; skipped"
    assert read_file("/dev/zero", 100).problem == "is a character device, not a regular file; skipped"
    assert read_file(tmp_path, 100).problem == "is a folder, not a regular file; skipped"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    assert read_file(tmp_path / "sock", 100).problem == "is a socket, not a regular file; skipped"
    sock.close()
    link = tmp_path / "to-pipe"
    link.symlink_to(fifo)
    assert read_file(link, 100).data is None


def test_links_that_lead_nowhere_are_reported(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    assert read_file(loop, 100).problem == "cannot be read (a symbolic link loop)"
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "missing")
    assert read_file(dangling, 100).problem == "missing"
