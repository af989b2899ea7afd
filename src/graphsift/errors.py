"""One error tree for every toolset.

    GraphsiftError            code               what to do
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

The MCP adapter turns each into an ``isError`` result carrying ``[code] message``;
the CLI prints the same line to stderr and exits 2. Third-party errors are
translated where they arise (the store backend, the embedder, the endpoint) and
re-raised ``from exc``; anything else that reaches an adapter becomes an
:class:`InternalError`, so no traceback ever reaches an agent.
"""

from __future__ import annotations


class GraphsiftError(Exception):
    """Base class: a failure the caller can act on; the message says how."""

    code = "error"

    def __str__(self) -> str:
        return f"[{self.code}] {self.args[0] if self.args else ''}"

    @property
    def message(self) -> str:
        return self.args[0] if self.args else ""


class InvalidInput(GraphsiftError):
    code = "invalid_input"


class NotFound(GraphsiftError):
    code = "not_found"


class ConfigError(GraphsiftError):
    code = "config_error"


class EmbedderMismatch(GraphsiftError):
    code = "embedder_mismatch"


class IndexCorrupted(GraphsiftError):
    code = "index_corrupted"


class ProviderError(GraphsiftError):
    code = "provider_error"


class StoreBusy(GraphsiftError):
    code = "store_busy"


class StoreUnavailable(GraphsiftError):
    code = "store_unavailable"


class InternalError(GraphsiftError):
    code = "internal_error"
