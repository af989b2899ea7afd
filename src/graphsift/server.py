"""The MCP adapter: one server per toolset, over stdio or streamable HTTP.

Two facts about the ``mcp`` 2.x SDK shape this module. A plain function tool
silently drops unknown arguments, and an unexpected exception reaches the
client only as "Error executing tool X". So each tool is registered with the
raw arguments passed through untouched; :func:`graphsift.contract.parse_request`
validates them against the tool's request model (``extra="forbid"``) and every
:class:`GraphsiftError` becomes the SDK's ``ToolError`` carrying our message.
The input schema clients see is the request model's JSON schema; the output
schema is the response model's.

Tools that ask for it (``ToolSpec.context``) get a :class:`CallContext`: a
session key (stdio: the process, which serves one client; HTTP: the
``Mcp-Session-Id``; MCP 2026-07-28 over HTTP has no session) and the client's
model when it offers sampling. On 2026-07-28 a server may not send requests,
so a question for the client's model ends the call with an input request, and
the client calls again with the answer (see :mod:`graphsift.llm`).
"""

from __future__ import annotations

import functools
import json
import logging
import sys
import warnings
from typing import Any

import anyio
import anyio.from_thread
import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import ToolAnnotations

from graphsift import __version__
from graphsift.contract import parse_request
from graphsift.errors import GraphsiftError, ProviderError
from graphsift.llm import LLMRequest, SamplingLLM, SamplingRequired
from graphsift.toolset import CallContext, Runtime, Toolset, ToolSpec

logger = logging.getLogger("graphsift")


class _Untouched(ArgModelBase):
    arguments: dict[str, Any] = {}


class _PassRawArguments(FuncMetadata):
    """Hands the tool the arguments exactly as sent; the request model judges them."""

    def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
        return {"arguments": dict(arguments_to_validate)}


#: The key of our one input request per round (MCP 2026-07-28 sampling).
_LLM_INPUT = "graphsift-llm"


def _session_key(ctx: Context) -> str | None:
    headers = ctx.headers
    if headers is None:
        return "stdio"  # stdio (and in-process) servers serve exactly one client
    session_id = headers.get("mcp-session-id")
    return f"http:{session_id}" if session_id else None


def _sampling_messages(request: LLMRequest) -> list[types.SamplingMessage]:
    return [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=request.prompt))]


def _answer_text(result: Any) -> str:
    content = getattr(result, "content", None)
    if isinstance(content, list):
        content = next((c for c in content if getattr(c, "type", None) == "text"), None)
    if getattr(content, "type", None) != "text":
        raise ProviderError("the client's model answered without text")
    return content.text


def _client_llm(ctx: Context) -> SamplingLLM | None:
    """The client's model: asked directly when the connection carries server requests, else round by round."""
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.sampling is None:
        return None
    session = ctx.session
    if session.can_send_request:
        def send(request: LLMRequest) -> str:
            async def ask() -> Any:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # sampling is deprecated from 2026-07-28 on; still ours to use
                    return await session.create_message(
                        _sampling_messages(request), max_tokens=request.max_tokens, system_prompt=request.system
                    )

            return _answer_text(anyio.from_thread.run(ask))

        return SamplingLLM(send)
    answered: list[tuple[str, str]] = []
    if ctx.request_state:
        state = json.loads(ctx.request_state)  # sealed by the SDK: only what we minted comes back
        answered = [tuple(pair) for pair in state["answered"]]
        response = (ctx.input_responses or {}).get(_LLM_INPUT)
        if response is None:
            raise ProviderError("the client retried without answering the question for its model")
        answered.append((state["asked"], _answer_text(response)))
    return SamplingLLM(None, answered)


def _input_required(need: SamplingRequired) -> types.InputRequiredResult:
    request = types.CreateMessageRequest(
        params=types.CreateMessageRequestParams(
            messages=_sampling_messages(need.request),
            max_tokens=need.request.max_tokens,
            system_prompt=need.request.system,
        )
    )
    state = {"answered": need.answered, "asked": need.request.key()}
    return types.InputRequiredResult(input_requests={_LLM_INPUT: request}, request_state=json.dumps(state))


def _tool(spec: ToolSpec, runtime: Runtime) -> Tool:
    async def call(arguments: dict[str, Any], ctx: Context) -> Any:
        try:
            request = parse_request(spec.request, arguments)
            extra: dict[str, Any] = {}
            if spec.context:
                extra["context"] = CallContext(session=_session_key(ctx), llm=_client_llm(ctx))
            response = await anyio.to_thread.run_sync(functools.partial(spec.run, runtime, request, **extra))
        except SamplingRequired as need:
            return _input_required(need)
        except GraphsiftError as exc:
            raise ToolError(str(exc)) from exc
        if spec.render is None:
            return response
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=spec.render(response))],
            structured_content=response.model_dump(mode="json", by_alias=True),
        )

    return Tool(
        fn=call,
        name=spec.name,
        description=spec.description,
        parameters=spec.request.model_json_schema(),
        fn_metadata=_PassRawArguments(arg_model=_Untouched, output_model=spec.response),
        is_async=True,
        context_kwarg="ctx",
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
