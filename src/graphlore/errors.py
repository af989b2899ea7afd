"""One error tree for every toolset.

    GraphloreError            code               what to do
    ├── InvalidInput          invalid_input      fix the named field (valid options are listed)
    ├── NotFound              not_found          look the id up first (close matches are listed)
    ├── ConfigError           config_error       fix the named setting or file
    ├── EmbedderMismatch      embedder_mismatch  re-index with the current embedder
    ├── IndexCorrupted        index_corrupted    rebuild (the message says how)
    ├── ProviderError         provider_error     an embedding or LLM endpoint (or the local model) failed
    ├── StoreBusy             store_busy         another process held the store's write lock too long; retry
    ├── StoreUnavailable      store_unavailable  the store cannot be opened or written (disk, permissions,
    │                                            database connection); the message names the cause
    └── InternalError         internal_error     a bug: the server log has the traceback

The MCP adapter turns each into an ``isError`` result carrying ``[code] message`` as text and
``{"error": {"code": ..., "message": ...}}`` as structured content;
the CLI prints the same line to stderr and exits 2. Third-party errors are
translated where they arise (the store backend, the embedder, the endpoint) and
re-raised ``from exc``. An operating-system error that reaches an adapter untranslated
is turned into one by :func:`from_os_error` (it names the file and the reason);
anything else becomes an :class:`InternalError`, so no traceback ever reaches an
agent. A message is cut at :data:`MAX_MESSAGE` characters and is always valid UTF-8.
"""

from __future__ import annotations

import errno
from pathlib import Path

#: The longest message a caller sees; a longer one is cut (messages quote input by a short prefix anyway).
MAX_MESSAGE = 2000


class GraphloreError(Exception):
    """Base class: a failure the caller can act on; the message says how."""

    code = "error"

    def __str__(self) -> str:
        return f"[{self.code}] {self.text}"

    @property
    def text(self) -> str:
        """The message as callers see it: valid UTF-8, cut at :data:`MAX_MESSAGE` characters."""
        message = str(self.args[0]) if self.args else ""
        # Always sendable: a lone surrogate quoted from the input is shown as its escape (\ud800).
        message = message.encode("utf-8", "backslashreplace").decode("utf-8")
        if len(message) > MAX_MESSAGE:
            message = f"{message[:MAX_MESSAGE]}... (message cut at {MAX_MESSAGE} characters)"
        return message

    @property
    def message(self) -> str:
        return self.args[0] if self.args else ""


class InvalidInput(GraphloreError):
    code = "invalid_input"


class NotFound(GraphloreError):
    code = "not_found"


class ConfigError(GraphloreError):
    code = "config_error"


class EmbedderMismatch(GraphloreError):
    code = "embedder_mismatch"


class IndexCorrupted(GraphloreError):
    code = "index_corrupted"


class ProviderError(GraphloreError):
    code = "provider_error"


class StoreBusy(GraphloreError):
    code = "store_busy"


class StoreUnavailable(GraphloreError):
    code = "store_unavailable"


class InternalError(GraphloreError):
    code = "internal_error"


#: Conditions of the disk or file system rather than of a path someone gave.
_DISK = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EMFILE, errno.ENFILE}


def from_os_error(exc: OSError, home: Path | None = None) -> GraphloreError:
    """The error for an ``OSError`` no tool translated: :class:`StoreUnavailable` for a full, read-only or
    failing disk and for paths inside the data folder ``home``; :class:`InvalidInput` for any other path
    (one the caller gave). The message names the file and the operating system's reason."""
    reason = exc.strerror or str(exc)
    name = exc.filename if isinstance(exc.filename, str | bytes) else None
    shown = (repr(name[:200] + ("..." if len(name) > 200 else "")) if name is not None else "a file")
    inside_home = False
    if name is not None and home is not None:
        try:
            inside_home = Path(str(name)).is_relative_to(home)
        except (TypeError, ValueError):
            inside_home = False
    if exc.errno in _DISK or inside_home:
        return StoreUnavailable(f"cannot use {shown}: {reason}; fix the disk or the data folder and retry")
    if exc.errno == errno.ENAMETOOLONG:
        return InvalidInput(f"the path {shown} is too long for the file system ({reason}); give a shorter path")
    return InvalidInput(f"cannot use {shown}: {reason}; check the path you gave")
