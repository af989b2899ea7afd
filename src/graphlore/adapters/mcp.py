"""The MCP adapter: one server per toolset, over stdio or streamable HTTP.

Two facts about the ``mcp`` 2.x SDK shape this module. A plain function tool
silently drops unknown arguments, and an unexpected exception reaches the
client only as "Error executing tool X". So each tool is registered with the
raw arguments passed through untouched; :func:`graphlore.contract.parse_request`
validates them against the tool's request model (``extra="forbid"``) and every
:class:`GraphloreError` becomes the SDK's ``ToolError`` carrying our message.
The input schema clients see is the request model's JSON schema; the output
schema is the response model's.

An ``OSError`` no tool translated becomes an error naming the file and the reason
(:func:`graphlore.errors.from_os_error`). Any other exception is a bug: it is logged with its traceback on stderr and the
client gets ``[internal_error]`` with the exception's type and message, never the
SDK's opaque "Error executing tool X". A failed call of a tool that declares
``on_failure`` is reported to it (validation failures included). An unknown tool
name is answered with the server's tools (and the toolset's hint), not only the
SDK's "Unknown tool". The server's lifespan closes the :class:`Runtime` (its
stores and watches) when the server stops.

Tools that ask for it (``ToolSpec.context``) get a :class:`CallContext`: a
session key (stdio: the process, which serves one client; HTTP: the
``Mcp-Session-Id``; MCP 2026-07-28 over HTTP has no session) and the client's
model when it offers sampling. On 2026-07-28 a server may not send requests,
so a question for the client's model ends the call with an input request, and
the client calls again with the answer (see :mod:`graphlore.llm`).
"""

from __future__ import annotations

import difflib
import functools
import json
import logging
import sys
import time
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.from_thread
import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import ToolAnnotations

from graphlore import __version__
from graphlore.contract import parse_request
from graphlore.errors import GraphloreError, InternalError, InvalidInput, ProviderError, from_os_error
from graphlore.llm import LLMRequest, SamplingLLM, SamplingRequired
from graphlore.runtime import Runtime
from graphlore.tools import CallContext, Progress, Toolset, ToolSpec

logger = logging.getLogger("graphlore")


class _Untouched(ArgModelBase):
    arguments: dict[str, Any] = {}


class _PassRawArguments(FuncMetadata):
    """Hands the tool the arguments exactly as sent; the request model judges them."""

    def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
        return {"arguments": dict(arguments_to_validate)}


#: The key of our one input request per round (MCP 2026-07-28 sampling).
_LLM_INPUT = "graphlore-llm"


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


def _progress(ctx: Context) -> Progress:
    """Progress notifications to the client (when it asked for them), at most five a second."""
    last = [0.0]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < 0.2:
            return
        last[0] = now
        anyio.from_thread.run(functools.partial(ctx.report_progress, done, total))

    return report


def internal_error(exc: BaseException, where: str) -> InternalError:
    """A bug: logged with its traceback; the caller gets a line that says so instead of a traceback."""
    logger.error("%s failed with an unexpected error", where, exc_info=exc)
    return InternalError(
        f"{where} failed with an unexpected {type(exc).__name__}: {str(exc)[:300]}; this is a bug in graphlore "
        "(the server's log on stderr has the traceback)"
    )


def _tool(spec: ToolSpec, runtime: Runtime) -> Tool:
    async def failed(arguments: dict[str, Any], ctx: Context, context: CallContext | None, exc: Exception) -> None:
        if spec.on_failure is not None:
            context = context or CallContext(session=_session_key(ctx))
            await anyio.to_thread.run_sync(functools.partial(spec.failed, runtime, arguments, context, exc))

    async def call(arguments: dict[str, Any], ctx: Context) -> Any:
        context: CallContext | None = None
        try:
            request = parse_request(spec.request, arguments)
            extra: dict[str, Any] = {}
            if spec.context:
                context = extra["context"] = CallContext(session=_session_key(ctx), llm=_client_llm(ctx))
            if spec.progress:
                extra["progress"] = _progress(ctx)
            response = await anyio.to_thread.run_sync(functools.partial(spec.run, runtime, request, **extra))
            text = spec.render(response) if spec.mcp_text == "render" else None
        except SamplingRequired as need:
            return _input_required(need)
        except GraphloreError as exc:
            await failed(arguments, ctx, context, exc)
            raise ToolError(str(exc)) from exc
        except OSError as exc:  # a condition of the file system no tool translated: not a bug
            logger.info("tool %s: %s", spec.name, exc)
            raise ToolError(str(from_os_error(exc, runtime.settings.home))) from exc
        except Exception as exc:  # noqa: BLE001 - the boundary: no traceback reaches the client
            error = internal_error(exc, f"tool {spec.name}")
            await failed(arguments, ctx, context, error)
            raise ToolError(str(error)) from exc
        structured = response.model_dump(mode="json", by_alias=True)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text if text is not None else json.dumps(structured))],
            structured_content=structured,
        )

    return Tool(
        fn=call,
        name=spec.name,
        description=spec.description,
        parameters=spec.request.model_json_schema(by_alias=True),
        fn_metadata=_PassRawArguments(arg_model=_Untouched, output_model=spec.response),
        is_async=True,
        context_kwarg="ctx",
        annotations=ToolAnnotations(
            read_only_hint=spec.read_only, destructive_hint=False if not spec.read_only else None,
            idempotent_hint=spec.idempotent, open_world_hint=False,
        ),
    )


class ToolsetServer(MCPServer):
    """The SDK's server, answering an unknown tool name with the tools there are (the SDK says only
    "Unknown tool: X") and the toolset's hint (another way in, e.g. facts' ``kg_execute``)."""

    def __init__(self, *args: Any, toolset: Toolset, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tool_names = [spec.name for spec in toolset.on("mcp")]
        self._unknown_tool_hint = toolset.unknown_tool_hint

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        if name not in self._tool_names:
            raise ToolError(str(unknown_tool(name, self._tool_names, self._unknown_tool_hint)))
        return await super().call_tool(name, arguments, context)


def unknown_tool(name: str, tools: list[str], hint: str = "") -> InvalidInput:
    close = difflib.get_close_matches(name, tools, n=2, cutoff=0.6)
    guess = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    return InvalidInput(f"no tool {name!r} on this server; {guess}its tools: {', '.join(tools)}"
                        + (f"; {hint}" if hint else ""))


def build_server(toolset: Toolset, runtime: Runtime) -> MCPServer:
    """An MCP server exposing ``toolset``; nothing heavy loads until the first tool call. Its lifespan
    closes ``runtime`` when the server stops."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[None]:
        try:
            yield
        finally:
            runtime.close()

    return ToolsetServer(
        toolset=toolset,
        name=f"graphlore-{toolset.name}",
        instructions=toolset.instructions,
        version=__version__,
        tools=[_tool(spec, runtime) for spec in toolset.on("mcp")],
        log_level="WARNING",
        lifespan=lifespan,
    )


def serve(toolset: Toolset, runtime: Runtime, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run until the client disconnects (stdio) or the process is stopped (HTTP: see
    :mod:`graphlore.adapters.http` for the bind rules, the token and the start line). Logs go to stderr."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    if transport not in ("stdio", "http"):
        raise ValueError(f"transport must be 'stdio' or 'http', got {transport!r}")
    if transport == "http":
        from graphlore.adapters import http

        http.check_bind(host, runtime.settings.auth_token)  # refuse before building anything
        http.run(build_server(toolset, runtime), toolset.name, runtime.settings, host, port,
                 runtime.settings.auth_token)
    else:
        build_server(toolset, runtime).run("stdio")
