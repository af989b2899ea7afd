"""Real MCP clients against real ``graphlore serve`` processes (stdio and streamable HTTP).

The SDK client lives in a background event loop (an anyio blocking portal), so tests stay plain
functions: ``with start_blocking_portal() as portal, connect(portal, target, "facts") as s: s.ok(...)``.
Wherever a toolset is named, a list names several (one server, tools named ``<toolset>_<tool>``) and
``ALL`` every toolset (``graphlore serve`` without arguments).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from graphlore.adapters.command import attach
from graphlore.adapters.mcp import served_names
from graphlore.tools import ToolSpec
from graphlore.toolsets import TOOLSETS, load_toolset
from helpers.backend import env_for

ONNX_LIB = "onnxruntime_pybind11_state"
#: Every toolset: ``graphlore serve`` with no toolset named.
ALL: tuple[str, ...] = ()

Toolsets = str | Sequence[str]


def _names(toolsets: Toolsets) -> list[str]:
    return [toolsets] if isinstance(toolsets, str) else list(toolsets)


def serve_command(toolsets: Toolsets) -> list[str]:
    return [sys.executable, "-m", "graphlore", "serve", *_names(toolsets)]


def served_specs(toolsets: Toolsets) -> dict[str, ToolSpec]:
    """The specs of a server of ``toolsets``, by the names it gives its tools."""
    loaded = [attach(load_toolset(name)) for name in _names(toolsets) or TOOLSETS]
    names = served_names(loaded)
    return {names[(t.name, spec.name)]: spec for t in loaded for spec in t.tools}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, log: Path, timeout: float = 90.0) -> None:
    """Until the server accepts connections and has printed its start line to ``log`` (its stderr)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"HTTP server exited with {proc.returncode}: {log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                if "graphlore serve " in log.read_text():
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"HTTP server did not listen on port {port} within {timeout} s: {log.read_text()}")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def http_server(toolset: Toolsets, home: Path, log: Path, env: dict[str, str] | None = None, args: tuple[str, ...] = (),
                cwd: Path | None = None):
    """A ``serve <toolset>... --transport http`` process on a free port (loopback unless ``args`` give
    ``--host``; it is reached at 127.0.0.1 either way); yields (url, process)."""
    port = free_port()
    environ = {**os.environ, **env_for(home), **(env or {})}
    with log.open("wb") as err:
        proc = subprocess.Popen([*serve_command(toolset), "--transport", "http", "--port", str(port), *args],
                                env=environ, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, cwd=cwd)
    try:
        wait_for_port(port, proc, log)
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        stop(proc)


def stdio_params(toolset: Toolsets, home: Path, env: dict[str, str] | None = None) -> StdioServerParameters:
    command = serve_command(toolset)
    return StdioServerParameters(command=command[0], args=command[1:],
                                 env={**env_for(home), "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
                                      **(env or {})})


def loaded_libraries(pid: int) -> str:
    """The memory map of a running process: a shared library shows up here once it is imported."""
    return Path(f"/proc/{pid}/maps").read_text()


def stdio_server_pid() -> int:
    """The ``serve`` child that a stdio client spawned from this test process."""
    me = os.getpid()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == me and b"serve" in cmdline and b"--transport" not in cmdline:
            return int(proc.name)
    raise AssertionError("no stdio server child process found")


def error_text(result) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


class Session:
    """A connected SDK client, called from plain test functions through the portal."""

    def __init__(self, portal, client: Client, toolset: Toolsets):
        self.portal, self.client = portal, client
        self.specs = served_specs(toolset)

    def list_tools(self) -> dict[str, Any]:
        return {t.name: t for t in self.portal.call(self.client.list_tools).tools}

    def call(self, name: str, arguments: Any):
        return self.portal.call(lambda: self.client.call_tool(name, arguments))

    def ok(self, name: str, arguments: dict[str, Any]):
        """Call a tool that must succeed; return (response model, text block). The text block is the
        spec's rendering, or the structured content as JSON for tools that answer in JSON."""
        result = self.call(name, arguments)
        assert not result.is_error, f"{name} failed: {error_text(result)}"
        assert result.structured_content is not None
        spec = self.specs[name]
        response = spec.response.model_validate(result.structured_content)
        text = result.content[0].text
        if spec.mcp_text == "json":
            assert json.loads(text) == result.structured_content
        else:
            assert text == spec.render(response)
        return response, text

    def error(self, name: str, arguments: Any) -> str:
        """Call a tool that must fail; its text ``[code] message``, which the structured error repeats."""
        result = self.call(name, arguments)
        assert result.is_error, f"{name} should have failed: {result.structured_content}"
        text = error_text(result)
        error = result.structured_content["error"]
        assert text == f"[{error['code']}] {error['message']}", (text, result.structured_content)
        return text


@contextmanager
def connect(portal, target, toolset: Toolsets, token: str | None = None, **client_options):
    """A connected session; ``token`` sends ``Authorization: Bearer <token>`` with every HTTP request."""
    if token is not None:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        target = streamable_http_client(
            target, http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}))
    client = Client(target, read_timeout_seconds=120, **client_options)
    with portal.wrap_async_context_manager(client):
        yield Session(portal, client, toolset)
