"""The MCP adapter: one server for any set of toolsets, over stdio or streamable HTTP.

**Tool names.** A server of one toolset names its tools as the toolset does (``graphlore serve code``
offers ``find``); a server of two or more names every tool ``<toolset>_<tool>`` (``code_find``,
``facts_find``), whichever toolsets it serves, so a name never depends on what else runs beside it
(:func:`served_names`). The server's ``instructions`` then say so and give each toolset's own notes
under its name. With ``read_only`` a server offers no tool that writes (``ToolSpec.read_only``).

Two facts about the ``mcp`` 2.x SDK shape this module. A plain function tool
silently drops unknown arguments, and an unexpected exception reaches the
client only as "Error executing tool X". So each tool is registered with the
raw arguments passed through untouched; :func:`graphlore.contract.parse_request`
validates them against the tool's request model (``extra="forbid"``), and every
failure is returned as an error result (:func:`error_result`): ``isError``, the text
``[code] message``, and the structured content ``{"error": {"code", "message"}}``.
The input schema clients see is the request model's JSON schema; the output schema
is the response model's, with the error object as its other branch (``anyOf``), so a
client that checks every structured result against the schema (some do, errors
included) accepts both. The structured content is a dump of the validated response
model and goes out as it is (the SDK would validate it against the model a second
time), and over stdio the event loop reads and writes the pipes itself
(:mod:`graphlore.adapters.stdio`) instead of a worker thread per line.

An ``OSError`` no tool translated becomes an error naming the file and the reason
(:func:`graphlore.errors.from_os_error`). Any other exception is a bug: it is logged with its traceback on
stderr and the client gets ``[internal_error]`` with the exception's type and message. A failed call of a
tool that declares ``on_failure`` is reported to it (validation failures included). An unknown tool name is
answered with the server's tools (and each toolset's hint), not only the SDK's "Unknown tool". A call the
client cancels stops after the step in progress (:func:`graphlore.tools.check_cancelled`). The
server's lifespan closes the :class:`Runtime` (its stores and watches) when the server stops; every
toolset of a server shares that one runtime (one embedder, loaded on first use).

Tools that ask for it (``ToolSpec.context``) get a :class:`CallContext`: a
session key (stdio: the process, which serves one client, ``stdio:<Runtime.instance>``; HTTP: the
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
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.from_thread
import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import ToolAnnotations

from graphlore import __version__
from graphlore.adapters.command import attach
from graphlore.adapters.stdio import wire
from graphlore.contract import parse_request
from graphlore.errors import (
    GraphloreError,
    InternalError,
    InvalidInput,
    ProviderError,
    from_os_error,
)
from graphlore.llm import LLMRequest, SamplingLLM, SamplingRequired
from graphlore.runtime import Runtime
from graphlore.tools import CallContext, Progress, Toolset, ToolSpec, cancellation

logger = logging.getLogger("graphlore")


class _Untouched(ArgModelBase):
    arguments: dict[str, Any] = {}


class _PassRawArguments(FuncMetadata):
    """Hands the tool the arguments exactly as sent (the request model judges them), and the client its
    result as the tool made it (its structured content is a dump of the response model, never validated
    again)."""

    def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
        return {"arguments": dict(arguments_to_validate)}

    def convert_result(self, result: Any) -> Any:
        return result


#: The key of our one input request per round (MCP 2026-07-28 sampling).
_LLM_INPUT = "graphlore-llm"


def _session_key(ctx: Context, runtime: Runtime) -> str | None:
    headers = ctx.headers
    if headers is None:
        # stdio (and in-process) servers serve exactly one client; the key tells this process's session from
        # another's in a store they share
        return f"stdio:{runtime.instance}"
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

            try:
                answer = anyio.from_thread.run(ask)
            except MCPError as exc:  # the client refused or failed: a provider error (search falls back on it)
                raise ProviderError(f"the client's model failed: {exc.message}") from exc
            return _answer_text(answer)

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


def _progress(ctx: Context, unit: str = "") -> Progress:
    """Progress notifications to the client (when it asked for them), at most five a second; the message is
    what is counted (the report's unit, else the tool's ``unit``). Work of several phases (files read, then
    nodes embedded) counts on from one phase to the next, so the progress value only grows, as MCP asks."""
    last = [0.0]
    phase: dict[str, Any] = {"key": None, "offset": 0, "total": 0}

    def report(done: int, total: int, unit_now: str = "") -> None:
        if phase["key"] != (unit_now, total):
            if phase["key"] is not None:
                phase["offset"] += phase["total"]
            phase["key"], phase["total"] = (unit_now, total), total
        now = time.monotonic()
        if done < total and now - last[0] < 0.2:
            return
        last[0] = now
        offset = phase["offset"]
        anyio.from_thread.run(functools.partial(ctx.report_progress, offset + done, offset + total,
                                                unit_now or unit or None))

    return report


def _cancellable(spec: ToolSpec, runtime: Runtime, request: Any, extra: dict[str, Any]) -> Any:
    """Run the tool in this worker thread, so that long work stops soon after the client cancels the call
    (:func:`graphlore.tools.check_cancelled` raises there once the call's scope is cancelled)."""
    with cancellation(anyio.from_thread.check_cancelled):
        return spec.call(runtime, request, **extra)


def internal_error(exc: BaseException, where: str) -> InternalError:
    """A bug: logged with its traceback; the caller gets a line that says so instead of a traceback."""
    logger.error("%s failed with an unexpected error", where, exc_info=exc)
    return InternalError(
        f"{where} failed with an unexpected {type(exc).__name__}: {str(exc)[:300]}; this is a bug in graphlore "
        "(the server's log on stderr has the traceback)"
    )


def error_result(error: GraphloreError) -> types.CallToolResult:
    """A failed call as the client gets it: the text ``[code] message`` and the same as an object."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=str(error))],
        structured_content={"error": {"code": error.code, "message": error.text}},
        is_error=True,
    )


#: The structured content of a failed call (:func:`error_result`), the second branch of every output schema.
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "A failed call (isError: true); the text block says the same as '[code] message'.",
    "properties": {"error": {
        "type": "object",
        "properties": {
            "code": {"type": "string", "enum": sorted({c.code for c in GraphloreError.__subclasses__()})},
            "message": {"type": "string"},
        },
        "required": ["code", "message"],
        "additionalProperties": False,
    }},
    "required": ["error"],
    "additionalProperties": False,
}


def output_schema(response: type) -> dict[str, Any]:
    """The response model's schema (as the SDK derives it) or the error object: what a call returns."""
    schema = dict(FuncMetadata(arg_model=_Untouched, output_model=response).output_schema or {})
    defs = schema.pop("$defs", None)
    combined: dict[str, Any] = {"type": "object", "title": schema.get("title", response.__name__),
                                "anyOf": [schema, ERROR_SCHEMA]}
    if defs:
        combined["$defs"] = defs
    return combined


def _tool(spec: ToolSpec, name: str, runtime: Runtime) -> Tool:
    async def failed(arguments: dict[str, Any], ctx: Context, context: CallContext | None, exc: Exception) -> None:
        if spec.on_failure is not None:
            context = context or CallContext(session=_session_key(ctx, runtime))
            await anyio.to_thread.run_sync(functools.partial(spec.failed, runtime, arguments, context, exc))

    async def call(arguments: dict[str, Any], ctx: Context) -> Any:
        context: CallContext | None = None
        try:
            request = parse_request(spec.request, arguments)
            extra: dict[str, Any] = {}
            if spec.context:
                context = extra["context"] = CallContext(session=_session_key(ctx, runtime), llm=_client_llm(ctx))
            if spec.progress:
                extra["progress"] = _progress(ctx, spec.progress_unit)
            response = await anyio.to_thread.run_sync(functools.partial(_cancellable, spec, runtime, request, extra))
            text = spec.render(response) if spec.mcp_text == "render" else None
        except SamplingRequired as need:
            return _input_required(need)
        except GraphloreError as exc:
            error = exc
        except OSError as exc:  # a condition of the file system no tool translated: not a bug
            logger.info("tool %s: %s", name, exc)
            error = from_os_error(exc, runtime.settings.home)
        except Exception as exc:  # noqa: BLE001 - the boundary: no traceback reaches the client
            error = internal_error(exc, f"tool {name}")
        else:
            structured = response.model_dump(mode="json", by_alias=True)
            if text is None:  # the response as JSON text, serialised by pydantic-core (no second Python pass)
                text = response.model_dump_json(by_alias=True)
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                        structured_content=structured)
        await failed(arguments, ctx, context, error)
        return error_result(error)

    metadata = _PassRawArguments(arg_model=_Untouched, output_model=spec.response, output_schema=output_schema(spec.response))
    return Tool(
        fn=call,
        name=name,
        description=spec.description,
        parameters=spec.request.model_json_schema(by_alias=True),
        fn_metadata=metadata,
        is_async=True,
        context_kwarg="ctx",
        annotations=ToolAnnotations(
            read_only_hint=spec.read_only, destructive_hint=False if not spec.read_only else None,
            idempotent_hint=spec.idempotent, open_world_hint=False,
        ),
    )


# -- a server of several toolsets --------------------------------------------------------------------------


def served_names(toolsets: Sequence[Toolset]) -> dict[tuple[str, str], str]:
    """(toolset, tool) -> the tool's name on a server of ``toolsets``: its own name when the server has one
    toolset, ``<toolset>_<tool>`` when it has more (so no two collide, and none depends on the others)."""
    toolsets = [attach(t) for t in toolsets]
    if len(toolsets) == 1:
        return {(toolsets[0].name, spec.name): spec.name for spec in toolsets[0].tools}
    return {(t.name, spec.name): f"{t.name}_{spec.name}" for t in toolsets for spec in t.tools}


class Catalog:
    """What one server offers: its toolsets and tools by their served names, and those it leaves out
    because they write (``read_only``)."""

    def __init__(self, toolsets: Sequence[Toolset], read_only: bool = False) -> None:
        names = [t.name for t in toolsets]
        if not toolsets or len(set(names)) != len(names):
            raise ValueError(f"a server needs distinct toolsets, got {names}")
        self.toolsets = [attach(t) for t in toolsets]  # with the command-string tool a toolset declares
        self.read_only = read_only
        self.names = served_names(self.toolsets)
        self.tools: dict[str, ToolSpec] = {}
        self.left_out: dict[str, str] = {}  # served name of a writing tool -> its toolset (read_only)
        for toolset in self.toolsets:
            for spec in toolset.on("mcp"):
                name = self.names[(toolset.name, spec.name)]
                if read_only and not spec.read_only:
                    self.left_out[name] = toolset.name
                else:
                    self.tools[name] = spec

    @property
    def label(self) -> str:
        """The toolsets for people (the start line): ``items``, ``code,facts,items,skills``."""
        return ",".join(t.name for t in self.toolsets) + (" (read-only)" if self.read_only else "")

    def instructions(self) -> str:
        """One toolset's instructions; for several, the naming rule and each toolset's summary and notes."""
        if len(self.toolsets) == 1:
            text = self.toolsets[0].instructions
        else:
            text = (f"graphlore: {len(self.toolsets)} toolsets in one server ({', '.join(t.name for t in self.toolsets)})."
                    " Every tool is named <toolset>_<tool> (facts_search is the facts toolset's search); each"
                    " toolset's notes below name its tools without that prefix. Pick the toolset by what you"
                    " are asked about:")
            text += "".join(f"\n\n## {t.name} (tools {t.name}_*): {t.summary}\n{t.instructions}" for t in self.toolsets)
        if self.left_out:
            text += ("\n\nThis server is read-only: tools that write are not offered here ("
                     + ", ".join(self.left_out) + ").")
        return text

    def unknown(self, name: str) -> InvalidInput:
        """The answer to a tool name the server does not have: why, the likely one, the tools there are."""
        served = list(self.tools)
        prefixed = [n for (toolset, tool), n in self.names.items() if tool == name and n != name]
        if name in self.left_out:
            why = f"it writes, and this server is read-only; its tools: {', '.join(served)}"
        elif prefixed:
            offered = [n for n in prefixed if n in self.tools]
            guess = f"did you mean {' or '.join(repr(n) for n in offered)}? " if offered else ""
            why = f"tools are named <toolset>_<tool> here: {guess}its tools: {', '.join(served)}"
        else:
            close = difflib.get_close_matches(name, served, n=2, cutoff=0.6)
            guess = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
            why = f"{guess}its tools: {', '.join(served)}"
        hints = []
        for toolset in self.toolsets:
            hint = toolset.hint({tool: n for (t, tool), n in self.names.items() if t == toolset.name})
            if hint:
                hints.append(hint if len(self.toolsets) == 1 else f"{toolset.name}: {hint}")
        return InvalidInput(f"no tool {name!r} on this server; {why}" + "".join(f"; {h}" for h in hints))


class ToolsetServer(MCPServer):
    """The SDK's server, answering an unknown tool name with the tools there are (the SDK says only
    "Unknown tool: X"), as an error result like any other failed call."""

    def __init__(self, *args: Any, catalog: Catalog, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.catalog = catalog

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        if name not in self.catalog.tools:
            return error_result(self.catalog.unknown(name))
        return await super().call_tool(name, arguments, context)

    async def run_stdio_async(self) -> None:
        """Serve over stdio: pipes read and written by the event loop, a terminal or a file by daemon threads
        (:mod:`graphlore.adapters.stdio`)."""
        async with wire() as streams:
            async with stdio_server(*streams) as (read_stream, write_stream):
                await self._lowlevel_server.run(read_stream, write_stream,
                                                self._lowlevel_server.create_initialization_options())


def build_server(toolsets: Toolset | Sequence[Toolset], runtime: Runtime, read_only: bool = False) -> MCPServer:
    """An MCP server exposing ``toolsets`` (one, or several sharing ``runtime``); nothing heavy loads until
    the first tool call. Its lifespan closes ``runtime`` when the server stops."""
    catalog = Catalog([toolsets] if isinstance(toolsets, Toolset) else list(toolsets), read_only)

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[None]:
        try:
            yield
        finally:
            runtime.close()

    single = catalog.toolsets[0].name if len(catalog.toolsets) == 1 else None
    return ToolsetServer(
        catalog=catalog,
        name=f"graphlore-{single}" if single else "graphlore",
        instructions=catalog.instructions(),
        version=__version__,
        tools=[_tool(spec, name, runtime) for name, spec in catalog.tools.items()],
        log_level="WARNING",
        lifespan=lifespan,
    )


def serve(toolsets: Toolset | Sequence[Toolset], runtime: Runtime, transport: str = "stdio", host: str = "127.0.0.1",
          port: int = 8765, read_only: bool = False) -> None:
    """Run until the client disconnects (stdio) or the process is stopped (HTTP: see
    :mod:`graphlore.adapters.http` for the bind rules, the token, ``/healthz`` and the start line). Logs go
    to stderr, each record once: graphlore's through its own handler when it has one (the CLI's), else the root's."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    if logger.handlers:  # the CLI writes graphlore's warnings itself: the root's handler would repeat them
        logger.propagate = False
    if transport not in ("stdio", "http"):
        raise ValueError(f"transport must be 'stdio' or 'http', got {transport!r}")
    server = build_server(toolsets, runtime, read_only)
    if transport == "http":
        from graphlore.adapters import http

        http.check_bind(host, runtime.settings.auth_token)  # refuse before listening
        _ = runtime.roots  # a root that is not a folder is refused now, not at the first call
        http.run(server, server.catalog.label, runtime.settings, host, port, runtime.settings.auth_token)
    else:
        server.run("stdio")
