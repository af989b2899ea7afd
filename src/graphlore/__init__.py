"""graphlore: strict, honest knowledge access for AI agents over MCP.

The names below are the public surface (pinned by ``tests/test_architecture.py``): enough to write a
toolset, open a store and run hybrid search. Everything else is internal and may change.
"""

__version__ = "0.1.0"

from graphlore.config import Settings  # noqa: E402
from graphlore.contract import Request, Response, parse_request  # noqa: E402
from graphlore.errors import (  # noqa: E402
    ConfigError,
    EmbedderMismatch,
    GraphloreError,
    IndexCorrupted,
    InternalError,
    InvalidInput,
    NotFound,
    ProviderError,
    StoreBusy,
    StoreUnavailable,
)
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.search import HybridParams, hybrid_search  # noqa: E402
from graphlore.store import Edge, Hit, Node, Store, open_store  # noqa: E402
from graphlore.tools import Arg, CallContext, Cli, Toolset, ToolSpec  # noqa: E402

__all__ = [
    "Arg", "CallContext", "Cli", "ConfigError", "Edge", "EmbedderMismatch", "GraphloreError", "Hit",
    "HybridParams", "IndexCorrupted", "InternalError", "InvalidInput", "Node", "NotFound", "ProviderError",
    "Request", "Response", "Runtime", "Settings", "Store", "StoreBusy", "StoreUnavailable", "ToolSpec",
    "Toolset", "__version__", "hybrid_search", "open_store", "parse_request",
]
