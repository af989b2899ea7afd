"""The stdio wire (graphlore.adapters.stdio): the event loop reads and writes the pipes, and stray output
of a tool or of a child process never reaches the protocol."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SERVER = """
import contextlib, os, sys
import graphlore.adapters.mcp as adapter
from graphlore.adapters.mcp import serve
from graphlore.config import Settings
from graphlore.runtime import Runtime
import helpers.toy_toolset as toy

spec = toy.TOOLSET.tool("echo")
real = spec.run

def noisy(runtime, request, **extra):
    print("stray output from a tool")
    os.system("echo stray output from a child process")
    return real(runtime, request, **extra)

object.__setattr__(spec, "run", noisy)
real_wire = adapter.wire

@contextlib.asynccontextmanager
async def told():
    async with real_wire() as streams:
        print("wire:", type(streams[1]).__name__, file=sys.stderr, flush=True)
        yield streams

adapter.wire = told
serve(toy.TOOLSET, Runtime(Settings(home=sys.argv[1])))
"""


def rpc(proc: subprocess.Popen, message: dict) -> None:
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


@pytest.mark.parametrize("stderr", ["own pipe", "stdout's pipe"])
def test_stray_output_never_reaches_the_wire(tmp_path, stderr):
    """With stderr on a pipe of its own the loop reads and writes the wire itself; with stderr on stdout's
    pipe daemon threads do (a shared pipe cannot be made non-blocking for one of them)."""
    tests = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tests), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(tmp_path / "home")], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE if stderr == "own pipe" else subprocess.STDOUT)
    answers = {}

    def answer(wanted: int) -> dict:
        while wanted not in answers:
            line = proc.stdout.readline()
            assert line, "the server closed the wire"
            if stderr == "stdout's pipe" and not line.startswith(b"{"):
                assert not line.startswith(b"wire:") or line == b"wire: ThreadLineWriter\n", line
                continue  # its stderr shares the pipe: the stray lines arrive here by the caller's own choice
            message = json.loads(line)  # every line on a wire of its own is one JSON-RPC message
            answers[message["id"]] = message
        return answers[wanted]

    try:
        rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        answer(1)  # as MCP asks of a client: nothing but pings before the server has answered initialize
        rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "echo", "arguments": {"text": "hi", "times": 2}}})
        assert answer(2)["result"]["structuredContent"]["said"] == ["hi", "hi"]
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    if stderr == "own pipe":
        assert proc.stdout.read() == b""
        err = proc.stderr.read().decode()
        assert "stray output from a tool" in err and "stray output from a child process" in err
        assert "wire: LineWriter" in err


WARNING_SERVER = """
import logging
from graphlore.adapters.cli import build_cli
import helpers.toy_toolset as toy

spec = toy.TOOLSET.tool("echo")
real = spec.run

def warned(runtime, request, **extra):
    logging.getLogger("graphlore").warning("a warning from a tool")
    return real(runtime, request, **extra)

object.__setattr__(spec, "run", warned)
build_cli({"toy": "helpers.toy_toolset"}).main(["serve", "toy"])
"""


def test_graphlore_serve_writes_each_warning_once_on_stderr(tmp_path):
    tests = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tests), os.environ.get("PYTHONPATH", "")]),
           "GRAPHLORE_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen([sys.executable, "-c", WARNING_SERVER], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        while json.loads(proc.stdout.readline() or b'{"id": 1}').get("id") != 1:
            pass  # as MCP asks of a client: nothing but pings before the server has answered initialize
        rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "echo", "arguments": {"text": "hi"}}})
        while json.loads(proc.stdout.readline() or b'{"id": 2}').get("id") != 2:
            pass
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    err = proc.stderr.read().decode()
    assert err.count("a warning from a tool") == 1, err
