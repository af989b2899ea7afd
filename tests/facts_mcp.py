"""Real MCP clients against real `graphsift serve facts` processes (stdio and streamable HTTP), for the facts tests.

The client lives in a background event loop (an anyio blocking portal), so tests stay plain functions.
A fake model for extraction answers step 1 and step 2 prompts from a fixed script: it stands in for a
hosted LLM (the only thing these tests fake), both behind an OpenAI-compatible HTTP endpoint and as an
MCP client's sampling callback.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client, StdioServerParameters

from graphsift.toolsets.facts import TOOLSET

SPECS = {spec.name: spec for spec in TOOLSET.tools}
SERVE = [sys.executable, "-m", "graphsift.cli", "serve", "facts"]

DOCUMENT = ("Apple Inc acquired Beats Electronics for three billion dollars in May 2014, its largest purchase so far "
            "and a clear bet on audio. The deal brings the headphone maker and its founders into the company, and analysts expect the "
            "brand to keep its own name and stores while the engineering teams move to Cupertino over the year.\n\n"
            "Beats Electronics makes headphones and speakers and runs a subscription service. Tim Cook said the deal "
            "helps Apple in music streaming, where it competes with services that grew quickly in the last two "
            "years, and that the Beats team would help Apple build a better streaming offer for its customers.")
STEP1 = {"entities": [
    {"name": "Apple Inc", "type": "Company", "definition": "American technology company that makes the iPhone",
     "aliases": ["Apple"]},
    {"name": "Beats Electronics", "type": "Company", "definition": "maker of headphones", "aliases": ["Beats"]},
    {"name": "Tim Cook", "type": "Person", "definition": "chief executive of Apple"},
    {"name": "Broken", "definition": "an entity without a type"},
], "topics": [{"name": "Music streaming", "definition": "listening to music over the internet"}]}
STEP2 = {"facts": [
    {"subject": "Apple Inc", "relationship": "acquired", "object": "Beats Electronics",
     "sentence": "Apple Inc acquired Beats Electronics for three billion dollars.", "date_context": "May 2014",
     "chunk": 0},
    {"subject": "Tim Cook", "relationship": "said the deal helps", "object": "Music streaming",
     "sentence": "Tim Cook said the Beats deal helps Apple in music streaming.", "chunk": 1},
    {"subject": "Samsung", "relationship": "competes with", "object": "Apple Inc",
     "sentence": "Samsung competes with Apple.", "date_context": "2014", "chunk": 0},
]}


def fake_model_answer(prompt: str) -> str:
    """What the fake hosted model says: step 1 in a code fence with prose around it, step 2 bare; asked whether
    two descriptions name the same thing, yes for Beats, no otherwise."""
    if "SAME THING?" in prompt:
        return json.dumps({"same": prompt.count("Beats") >= 2})
    if "STEP 1 of 2" in prompt:
        assert "[chunk 0]" in prompt and "[chunk 1]" in prompt
        return "Here you go:\n```json\n" + json.dumps(STEP1) + "\n```\nDone."
    if "STEP 2 of 2" in prompt:
        assert "- Apple Inc" in prompt and "- Music streaming" in prompt and "- Broken" not in prompt
        return json.dumps(STEP2)
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


async def sampling_callback(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    prompt = params.messages[0].content.text
    return types.CreateMessageResult(role="assistant", model="fake-model",
                                     content=types.TextContent(type="text", text=fake_model_answer(prompt)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, log: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"HTTP server exited with {proc.returncode}: {log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"HTTP server did not listen on port {port} within {timeout} s: {log.read_text()}")


@contextmanager
def http_server(home: Path, log: Path, env: dict[str, str] | None = None):
    port = free_port()
    environ = {**os.environ, "GRAPHSIFT_HOME": str(home), **(env or {})}
    with log.open("wb") as err:
        proc = subprocess.Popen([*SERVE, "--transport", "http", "--port", str(port)], env=environ,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    try:
        wait_for_port(port, proc, log)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def stdio_params(home: Path, env: dict[str, str] | None = None) -> StdioServerParameters:
    return StdioServerParameters(command=SERVE[0], args=SERVE[1:],
                                 env={"GRAPHSIFT_HOME": str(home), "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
                                      **(env or {})})


class Session:
    """A connected SDK client, called from plain test functions through the portal."""

    def __init__(self, portal, client: Client):
        self.portal, self.client = portal, client

    def call(self, name: str, arguments: dict[str, Any]):
        return self.portal.call(lambda: self.client.call_tool(name, arguments))

    def ok(self, name: str, arguments: dict[str, Any]):
        """Call a tool that must succeed; return (response model, text block)."""
        result = self.call(name, arguments)
        assert not result.is_error, f"{name} failed: {error_text(result)}"
        assert result.structured_content is not None
        return SPECS[name].response.model_validate(result.structured_content), result.content[0].text

    def error(self, name: str, arguments: dict[str, Any]) -> str:
        result = self.call(name, arguments)
        assert result.is_error, f"{name} should have failed: {result.structured_content}"
        return error_text(result)


def error_text(result) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


@contextmanager
def connect(portal, target, **client_options):
    client = Client(target, read_timeout_seconds=120, **client_options)
    with portal.wrap_async_context_manager(client):
        yield Session(portal, client)
