"""The stdio wire of ``graphlore serve``: the event loop reads and writes pipes itself, and any other stdin or
stdout (a terminal, a file) is read and written by daemon threads a cancellation never waits for.

The MCP SDK's stdio transport wraps stdin and stdout in :func:`anyio.wrap_file`, so every line read and
every write and flush of an answer is a hop to a worker thread and back; :func:`wire` gives the SDK's
``stdio_server`` asyncio pipe streams instead (non-blocking reads and writes in the loop's own thread).
As the SDK does, the process's fd 0 and fd 1 are pointed at the null device and at stderr while it
serves (the wire uses private duplicates), so a stray ``print`` or a child process never writes into the
protocol, and both are restored at the end. Reading a descriptor without threads makes it non-blocking,
which its duplicates share: so only a stdin and a stdout that are pipes or sockets of their own (not a
terminal, not a file, not the pipe stderr writes to) are read this way. Any other is read and written in a
daemon thread of its own: the SDK's worker thread blocks in a terminal's read until a line comes, and Ctrl-C
(which asyncio turns into cancelling the server) waited for it, so a person's Ctrl-C was lost; a daemon
thread's wait is left behind, and the process leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import stat
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

#: The longest line (one JSON-RPC message) read from stdin: past the contract's largest request.
MAX_LINE = 64 * 1024 * 1024

#: The most bytes one read of a descriptor a thread reads takes.
CHUNK = 64 * 1024


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


def _to_loop(loop: asyncio.AbstractEventLoop, call: Callable[..., Any], *args: Any) -> bool:
    """``call(*args)`` in the loop's thread; False once the loop is closed (the server has ended)."""
    try:
        loop.call_soon_threadsafe(call, *args)
    except RuntimeError:
        return False
    return True


def _read_into(fd: int, loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader) -> None:
    """A thread's loop: what ``fd`` gives into ``reader``, then its end; the thread owns ``fd`` and closes it."""
    try:
        while chunk := os.read(fd, CHUNK):
            if not _to_loop(loop, reader.feed_data, chunk):
                return
    except OSError:  # EIO once a terminal has hung up: the end of the input
        pass
    finally:
        os.close(fd)
    _to_loop(loop, reader.feed_eof)


def _settle(done: asyncio.Future[None], error: OSError | None) -> None:
    if done.done():  # the flush was cancelled: the server is stopping
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)


def _write_from(fd: int, loop: asyncio.AbstractEventLoop, jobs: queue.SimpleQueue) -> None:
    """A thread's loop: each queued ``(bytes, future)`` written whole to ``fd``, its future settled; ``None``
    ends it. The thread owns ``fd`` and closes it."""
    try:
        while (job := jobs.get()) is not None:
            data, done = job
            error = None
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            except OSError as exc:
                error = exc
            _to_loop(loop, _settle, done, error)
    finally:
        os.close(fd)


class ThreadLineWriter:
    """stdout as the SDK's ``stdio_server`` writes it, written by a daemon thread: ``flush`` waits for it,
    and a cancelled ``flush`` leaves a write that blocks (a terminal paused with Ctrl-S) behind."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.pending: list[bytes] = []
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=_write_from, args=(fd, loop, self.jobs), name="graphlore-stdout", daemon=True).start()

    async def write(self, text: str) -> None:
        self.pending.append(text.encode("utf-8"))

    async def flush(self) -> None:
        done = self.loop.create_future()
        self.jobs.put((b"".join(self.pending), done))
        self.pending = []
        await done

    def close(self) -> None:
        self.jobs.put(None)


@contextlib.asynccontextmanager
async def _in_loop(loop: asyncio.AbstractEventLoop, wire_in: int,
                   wire_out: int) -> AsyncIterator[tuple[LineReader, LineWriter]]:
    """Pipes of their own, read and written by the loop (non-blocking)."""
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


@contextlib.asynccontextmanager
async def _in_threads(loop: asyncio.AbstractEventLoop, wire_in: int,
                      wire_out: int) -> AsyncIterator[tuple[LineReader, ThreadLineWriter]]:
    """Any other stdin and stdout (left blocking), read and written by daemon threads of their own; at the end
    a read still waiting (a terminal nobody types into) is left behind with its descriptor."""
    reader = asyncio.StreamReader(limit=MAX_LINE)
    threading.Thread(target=_read_into, args=(wire_in, loop, reader), name="graphlore-stdin", daemon=True).start()
    writer = ThreadLineWriter(wire_out, loop)
    try:
        yield LineReader(reader), writer
    finally:
        writer.close()


@contextlib.asynccontextmanager
async def wire() -> AsyncIterator[tuple[LineReader, LineWriter | ThreadLineWriter]]:
    """(stdin, stdout) for the SDK's ``stdio_server``: read and written by the loop when they are pipes of
    their own, else by daemon threads."""
    loop = asyncio.get_running_loop()
    serve = _in_loop if _own_pipes() else _in_threads
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)  # fd 0 reads nothing, fd 1 goes to stderr: stray output never reaches the wire
        os.dup2(2, 1)
        async with serve(loop, wire_in, wire_out) as streams:
            yield streams
    finally:
        os.close(null)
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
