"""What a toolset exposes to the adapters: tool specs over one shared runtime.

Both adapters (``server.py`` for MCP, ``cli.py`` for people) take a
:class:`Toolset` and call each :class:`ToolSpec` with a validated request, so
the two surfaces cannot drift.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphsift.config import Settings
from graphsift.contract import Request, Response
from graphsift.embedding import Embedder, build_embedder
from graphsift.llm import LLM, build_llm


class Runtime:
    """Settings plus what is expensive to build: the embedder loads on first use, once."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None, watch_files: bool = False) -> None:
        self.settings = settings
        self._embedder = embedder
        #: long-running processes (the MCP server) watch folders instead of re-reading every mtime per call
        self.watch_files = watch_files
        self._lock = threading.Lock()
        #: per-toolset state (open stores, caches), keyed by the toolset's name
        self.state: dict[str, Any] = {}
        self._llm: LLM | None = None
        self._llm_built = False

    @property
    def llm(self) -> LLM | None:
        """The configured LLM endpoint (None when none is configured); built on first use."""
        if not self._llm_built:
            with self._lock:
                if not self._llm_built:
                    self._llm = build_llm(self.settings)
                    self._llm_built = True
        return self._llm

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self._lock:
                if self._embedder is None:
                    self._embedder = build_embedder(self.settings)
        return self._embedder


@dataclass(frozen=True)
class CallContext:
    """Who is calling: what a tool that keeps per-session state, or asks the caller's model, needs."""

    #: stable key of the caller's session; None when the transport has no session (MCP 2026-07-28 over HTTP)
    session: str | None
    #: True (CLI): session state must outlive this process, so it is kept in the data folder
    durable: bool = False
    #: the MCP client's model (sampling), when the client offers one
    llm: LLM | None = None


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    request: type[Request]
    response: type[Response]
    run: Callable[..., Response]
    #: True for tools that only read (an MCP hint for clients)
    read_only: bool = True
    #: True: ``run`` also receives ``context=CallContext(...)`` from the adapter
    context: bool = False
    #: the text people and agents read; over MCP it is the text block next to the structured content
    render: Callable[[Any], str] | None = None


@dataclass(frozen=True)
class Toolset:
    name: str
    instructions: str
    tools: list[ToolSpec] = field(default_factory=list)

    def tool(self, name: str) -> ToolSpec:
        for spec in self.tools:
            if spec.name == name:
                return spec
        raise KeyError(name)
