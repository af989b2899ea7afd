"""``graphlore mcp-config``: the snippet that registers this installation's MCP server with a client.

Every client starts the server over stdio with the absolute path of this installation's ``graphlore``
command (:func:`graphlore_command`; a client does not start it in the shell's virtual environment, so
a bare ``graphlore`` may not be found or may be another one) and ``serve`` with the arguments given.
Each client wants its own shape:

- Claude Desktop (``claude_desktop_config.json``) and Cursor (``.cursor/mcp.json``):
  ``{"mcpServers": {NAME: {"command", "args"}}}``;
- VS Code (``.vscode/mcp.json``): ``{"servers": {NAME: {"type": "stdio", "command", "args"}}}``;
- Claude Code: the command line ``claude mcp add NAME -- COMMAND ARGS`` (with ``-e KEY=VALUE`` after
  the name: before it, ``claude`` takes the name for a second variable).

``GRAPHLORE_HOME``, when this shell sets it, goes into the snippet's environment (it decides which data
the server reads). Other ``GRAPHLORE_*`` settings may hold secrets (a database password, API keys),
so they are left out and named in :func:`left_out` for the caller to say so.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from graphlore.config import ENV_PREFIX

CLIENTS = ("claude-desktop", "cursor", "vscode", "claude-code")
#: Settings copied into the snippet's environment when set here (paths, never secrets).
COPIED = (f"{ENV_PREFIX}HOME",)


def graphlore_command() -> list[str]:
    """This installation's ``graphlore`` as an absolute command: the running script, else the script
    beside this Python (a virtual environment's ``bin``), else ``python -m graphlore``."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name in ("graphlore", "graphlore.exe") and script.is_file():
        return [os.path.abspath(script)]
    beside = Path(sys.executable).parent / ("graphlore.exe" if os.name == "nt" else "graphlore")
    if beside.is_file():
        return [str(beside)]
    return [os.path.abspath(sys.executable), "-m", "graphlore"]


def server_name(toolsets: Sequence[str]) -> str:
    """``graphlore`` for the whole server; ``graphlore-items-code`` for some toolsets."""
    return "-".join(["graphlore", *toolsets])


def copied_env(environ: Mapping[str, str]) -> dict[str, str]:
    return {name: environ[name] for name in COPIED if environ.get(name)}


def left_out(environ: Mapping[str, str]) -> list[str]:
    """``GRAPHLORE_*`` settings set in ``environ`` that the snippet does not carry."""
    return sorted(n for n, v in environ.items() if n.startswith(ENV_PREFIX) and v and n not in COPIED)


def snippet(client: str, command: Sequence[str], args: Sequence[str], name: str, env: Mapping[str, str]) -> str:
    """The configuration text for ``client`` that starts ``command args`` as the server ``name``."""
    if client == "claude-code":
        flags = [part for key, value in env.items() for part in ("-e", f"{key}={value}")]
        return shlex.join(["claude", "mcp", "add", name, *flags, "--", *command, *args])
    entry: dict[str, object] = {"command": command[0], "args": [*command[1:], *args]}
    if env:
        entry["env"] = dict(env)
    if client == "vscode":
        return json.dumps({"servers": {name: {"type": "stdio", **entry}}}, indent=2)
    if client in ("claude-desktop", "cursor"):
        return json.dumps({"mcpServers": {name: entry}}, indent=2)
    raise ValueError(f"unknown client {client!r}; clients: {', '.join(CLIENTS)}")
