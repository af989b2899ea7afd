"""The stdio wire of ``graphlore serve``, read and written by the event loop itself.

The MCP SDK's stdio transport wraps stdin and stdout in :func:`anyio.wrap_file`, so every line read and
every write and flush of an answer is a hop to a worker thread and back; :func:`wire` gives the SDK's
``stdio_server`` asyncio pipe streams instead (non-blocking reads and writes in the loop's own thread).
As the SDK does, the process's fd 0 and fd 1 are pointed at the null device and at stderr while it
serves (the wire uses private duplicates), so a stray ``print`` or a child process never writes into the
protocol, and both are restored at the end. Reading a descriptor without threads makes it non-blocking,
which its duplicates share: so only a stdin and a stdout that are pipes or sockets of their own (not a
terminal, not a file, not the pipe stderr writes to) are read this way; for any other :func:`wire` yields
None and the SDK's own transport is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import AsyncIterator

#: The longest line (one JSON-RPC message) read from stdin: past the contract's largest request.
MAX_LINE = 64 * 1024 * 1024


class LineReader:
    """stdin as the SDK's ``stdio_server`` reads it: ``async for line in stdin`` (text lines)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        line = await self.reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class LineWriter:
    """stdout as the SDK's ``stdio_server`` writes it: ``await write(text)``, ``await flush()``."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    async def write(self, text: str) -> None:
        self.writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self.writer.drain()


def _own_pipes() -> bool:
    """Whether stdin and stdout are pipes or sockets, and stdout is not where stderr goes."""
    try:
        fds = [os.fstat(fd) for fd in (0, 1, 2)]
    except OSError:
        return False
    if not all(stat.S_ISFIFO(f.st_mode) or stat.S_ISSOCK(f.st_mode) for f in fds[:2]):
        return False
    return (fds[1].st_dev, fds[1].st_ino) != (fds[2].st_dev, fds[2].st_ino)


@contextlib.asynccontextmanager
async def wire() -> AsyncIterator[tuple[LineReader, LineWriter] | None]:
    """(stdin, stdout) for the SDK's ``stdio_server``, or None when they cannot be read without threads."""
    if not _own_pipes():
        yield None
        return
    loop = asyncio.get_running_loop()
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)  # fd 0 reads nothing, fd 1 goes to stderr: stray output never reaches the wire
        os.dup2(2, 1)
        reader = asyncio.StreamReader(limit=MAX_LINE)
        read_transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                                         os.fdopen(wire_in, "rb", buffering=0))
        write_transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                                  os.fdopen(wire_out, "wb", buffering=0))
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        try:
            yield LineReader(reader), LineWriter(writer)
        finally:
            read_transport.close()
            with contextlib.suppress(OSError, RuntimeError):
                await writer.drain()
            write_transport.close()
    finally:
        os.close(null)
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
