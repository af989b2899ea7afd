"""The MCP adapter: one server per toolset, over stdio or streamable HTTP.

Two facts about the ``mcp`` 2.x SDK shape this module. A plain function tool
silently drops unknown arguments, and an unexpected exception reaches the
client only as "Error executing tool X". So each tool is registered with the
raw arguments passed through untouched; :func:`graphsift.contract.parse_request`
validates them against the tool's request model (``extra="forbid"``) and every
:class:`GraphsiftError` becomes the SDK's ``ToolError`` carrying our message.
The input schema clients see is the request model's JSON schema; the output
schema is the response model's.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import ToolAnnotations

from graphsift import __version__
from graphsift.contract import parse_request
from graphsift.errors import GraphsiftError
from graphsift.toolset import Runtime, Toolset, ToolSpec

logger = logging.getLogger("graphsift")


class _Untouched(ArgModelBase):
    arguments: dict[str, Any] = {}


class _PassRawArguments(FuncMetadata):
    """Hands the tool the arguments exactly as sent; the request model judges them."""

    def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
        return {"arguments": dict(arguments_to_validate)}


def _tool(spec: ToolSpec, runtime: Runtime) -> Tool:
    async def call(arguments: dict[str, Any]) -> Any:
        try:
            request = parse_request(spec.request, arguments)
            return await anyio.to_thread.run_sync(spec.run, runtime, request)
        except GraphsiftError as exc:
            raise ToolError(str(exc)) from exc

    return Tool(
        fn=call,
        name=spec.name,
        description=spec.description,
        parameters=spec.request.model_json_schema(),
        fn_metadata=_PassRawArguments(arg_model=_Untouched, output_model=spec.response),
        is_async=True,
        annotations=ToolAnnotations(read_only_hint=spec.read_only, open_world_hint=False),
    )


def build_server(toolset: Toolset, runtime: Runtime) -> MCPServer:
    """An MCP server exposing ``toolset``; nothing heavy loads until the first tool call."""
    return MCPServer(
        name=f"graphsift-{toolset.name}",
        instructions=toolset.instructions,
        version=__version__,
        tools=[_tool(spec, runtime) for spec in toolset.tools],
        log_level="WARNING",
    )


def serve(toolset: Toolset, runtime: Runtime, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run until the client disconnects (stdio) or the process is stopped (HTTP). Logs go to stderr."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    server = build_server(toolset, runtime)
    if transport == "stdio":
        server.run("stdio")
    elif transport == "http":
        server.run("streamable-http", host=host, port=port)
    else:
        raise ValueError(f"transport must be 'stdio' or 'http', got {transport!r}")
