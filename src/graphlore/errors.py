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
agent. A message is always valid UTF-8; past :data:`MAX_MESSAGE` characters it is cut
after the last whole problem (``; ``) that fits, and says so.

**In the caller's words.** A message names a request field through :func:`ref` (``⟨limit⟩``) and a
place in the request through :func:`at` (``⟪skill.title⟫``); the surface that shows the message
spells them (:func:`spell`): over MCP as the field (``limit``, ``field 'skill.title'``), on the
command line as the flag (``--limit``, ``--skill field 'title'``). :attr:`GraphloreError.text` is the
MCP spelling; the CLI respells with its flags.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Callable
from pathlib import Path

#: The longest message a caller sees; a longer one is cut after its last whole problem that fits.
MAX_MESSAGE = 4000

_REF = re.compile(r"⟨([A-Za-z_][A-Za-z0-9_]*)(?:=([^⟩]*))?⟩")
_AT = re.compile(r"⟪([^⟫]*)⟫")
_MCP_ONLY = re.compile(r"⟦([^⟧]*)⟧")


def ref(field: str, example: str | None = None) -> str:
    """Request field ``field`` (its wire name) inside a message, with an optional example value written as
    the MCP caller sends it (JSON): each surface spells it its own way (see :func:`spell`)."""
    return f"⟨{field}⟩" if example is None else f"⟨{field}={example}⟩"


def at(loc: tuple | list) -> str:
    """A place in a request (``("skill", "title")``, ``("entity", 0)``) inside a message (see :func:`spell`)."""
    return "⟪" + ".".join(str(part) for part in loc) + "⟫"


def mcp_only(text: str) -> str:
    """Text of a message that only MCP callers read (e.g. the request's valid fields); the CLI leaves it out."""
    return f"⟦{text}⟧"


def without_mcp_only(message: str) -> str:
    """``message`` without its :func:`mcp_only` text (e.g. one problem among several, which lists it once)."""
    return _MCP_ONLY.sub("", message)


def _mcp_ref(field: str, example: str | None) -> str:
    return field if example is None else f"{field}={example}"


def _mcp_at(loc: str) -> str:
    return f"field '{loc}'" if loc else "the request"


#: ``(field, example or None) -> text`` and ``(place "a.0.b") -> text``: how a surface names fields.
RefSpeller = Callable[[str, "str | None"], str]
AtSpeller = Callable[[str], str]


def spell(message: str, field: RefSpeller | None = None, place: AtSpeller | None = None) -> str:
    """``message`` with every :func:`ref` and :func:`at` spelled by ``field`` / ``place`` (default: as MCP
    callers name them: the field's name, ``name=example``, ``field 'a.0.b'``, and :func:`mcp_only` text kept;
    a surface that spells the fields its own way leaves the :func:`mcp_only` text out)."""
    if "⟨" not in message and "⟪" not in message and "⟦" not in message:
        return message
    mcp = field is None and place is None
    field, place = field or _mcp_ref, place or _mcp_at
    message = _MCP_ONLY.sub(lambda m: m.group(1) if mcp else "", message)
    message = _REF.sub(lambda m: field(m.group(1), m.group(2)), message)
    return _AT.sub(lambda m: place(m.group(1)), message).rstrip()


def cut(message: str, limit: int | None = None) -> str:
    """``message`` when it fits in ``limit`` (default :data:`MAX_MESSAGE`) characters; else up to its last whole
    problem (problems are joined by ``; ``) that fits, saying how much was left out (never cut mid-word)."""
    limit = limit or MAX_MESSAGE
    if len(message) <= limit:
        return message
    head = message[:limit]
    end = head.rfind("; ")
    if end < limit // 2:
        end = head.rfind(" ")
    end = end if end > 0 else limit
    return f"{message[:end]}; ... (the message is {len(message):,} characters; the rest is left out)"


class GraphloreError(Exception):
    """Base class: a failure the caller can act on; the message says how."""

    code = "error"

    def __str__(self) -> str:
        return f"[{self.code}] {self.text}"

    #: how this error names fields where it is shown (:meth:`in_words_of`); None: as MCP callers name them
    _spelling: tuple[RefSpeller, AtSpeller] | None = None

    @property
    def text(self) -> str:
        """The message as its caller sees it (fields by name over MCP, by flag once the CLI said so with
        :meth:`in_words_of`): valid UTF-8, at most :data:`MAX_MESSAGE` characters (see :meth:`spelled`)."""
        return self.spelled(*self._spelling) if self._spelling else self.spelled()

    def in_words_of(self, field: RefSpeller, place: AtSpeller) -> GraphloreError:
        """This error, shown with its field references spelled by ``field`` / ``place`` (the surface that
        catches it knows its caller's words); returns itself, to re-raise."""
        if self._spelling is None:  # the innermost surface spells (a command run by another keeps its words)
            self._spelling = (field, place)
        return self

    def spelled(self, field: RefSpeller | None = None, place: AtSpeller | None = None) -> str:
        """The message with its field references spelled for a surface (:func:`spell`), valid UTF-8, cut
        after its last whole problem within :data:`MAX_MESSAGE` characters (:func:`cut`)."""
        message = spell(self.raw, field, place)
        # Always sendable: a lone surrogate quoted from the input is shown as its escape (\ud800).
        return cut(message.encode("utf-8", "backslashreplace").decode("utf-8"))

    @property
    def message(self) -> str:
        """The whole message, fields spelled as MCP callers name them (uncut)."""
        return spell(self.raw)

    @property
    def raw(self) -> str:
        """The message as raised, its field references unspelled (for a surface to spell, or to wrap)."""
        return str(self.args[0]) if self.args else ""


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
