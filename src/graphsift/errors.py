"""One error tree for every toolset.

    GraphsiftError            code            what to do
    ├── InvalidInput          invalid_input   fix the named field (valid options are listed)
    ├── NotFound              not_found       look the id up first (close matches are listed)
    ├── ConfigError           config_error    fix the named setting or file
    ├── EmbedderMismatch      embedder_mismatch  re-index with the current embedder
    ├── IndexCorrupted        index_corrupted    rebuild with force=true
    └── ProviderError         provider_error  an embedding or LLM endpoint failed

The MCP adapter turns each into an ``isError`` result carrying ``[code] message``;
the CLI prints the same line to stderr and exits 2. Third-party errors are
translated at one boundary and re-raised ``from exc``.
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
