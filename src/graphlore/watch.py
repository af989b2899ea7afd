"""Cheap "did anything change under this folder?" checks for long-running processes.

A server answers many calls; walking a large tree to stat every file on each
call would cost more than the call itself. On Linux a :class:`ChangeFeed` holds inotify watches
on every folder of the tree instead. The kernel queues an event before the
write that caused it returns, so a non-blocking read of the inotify descriptor
sees every change made before :meth:`ChangeFeed.changed` was called, with no
thread and no race. Any doubt (first call, a queue overflow, another OS, a
watch limit) reads as "changed", and callers then do the full mtime check.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
import threading
from pathlib import Path

logger = logging.getLogger(__name__)

_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
# modify, attrib, close_write, moved_from, moved_to, create, delete, delete_self, move_self
_EVENTS = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800


class ChangeFeed:
    def __init__(self, root: Path, skip: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.skip = skip
        self._lock = threading.RLock()  # close() takes it too, also from inside changed()
        self._fd: int | None = None
        self._primed = False
        if not sys.platform.startswith("linux"):
            return
        try:
            self._libc = ctypes.CDLL(None, use_errno=True)
            fd = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
            if fd < 0:
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
            self._fd = fd
        except (OSError, AttributeError) as exc:
            logger.warning("cannot watch %s (%s); every call will compare file mtimes", root, exc)

    def changed(self) -> bool:
        """True if anything under ``root`` may have changed since the previous call."""
        with self._lock:
            if self._fd is None:
                return True
            if not self._primed:
                # Watch first, then report "changed": the caller's full check
                # covers whatever happened before the watches existed.
                self._primed = self._watch_tree()
                self._drain()
                return True
            if self._drain():
                self._watch_tree()  # folders created since need watches of their own
                return True
            return False

    def invalidate(self) -> None:
        """Make the next :meth:`changed` say True (e.g. the full check it triggered failed)."""
        with self._lock:
            self._primed = False

    def _watch_tree(self) -> bool:
        for folder, subfolders, _files in os.walk(self.root):
            subfolders[:] = [d for d in subfolders if d not in self.skip and not d.startswith(".")]
            if self._libc.inotify_add_watch(self._fd, os.fsencode(folder), _EVENTS) < 0:
                err = ctypes.get_errno()
                logger.warning("cannot watch %s (%s); falling back to mtime checks", folder, os.strerror(err))
                self.close()
                return False
        return True

    def _drain(self) -> bool:
        seen = False
        while self._fd is not None:
            try:
                if not os.read(self._fd, 65536):
                    break
                seen = True
            except BlockingIOError:
                break
        return seen

    def close(self) -> None:
        """Stop watching (what is asked after reads as "changed"); safe while another thread asks."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
