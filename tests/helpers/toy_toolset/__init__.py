"""A toy toolset, written the way a real one is: one package with a ``TOOLSET``, nothing else.

The adapter tests register it with one registry entry and check that it becomes an MCP tool and a
CLI command with ``--json``, without touching any other file. Its tools also let those tests make
the adapters meet a slow tool, a failing one, a buggy one and an unexplained ``OSError``; ``fail`` keeps per-session state, so
it declares ``on_failure``, which writes each failure it hears of to ``{home}/toy-failures.jsonl``.
"""

from __future__ import annotations

import errno
import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from graphlore.contract import Request, Response
from graphlore.errors import NotFound
from graphlore.runtime import Runtime
from graphlore.tools import Arg, CallContext, Cli, Progress, Toolset, ToolSpec


class EchoRequest(Request):
    text: str = Field(min_length=1, description="What to say back.")
    times: int = Field(1, ge=1, le=5, description="How often.")
    shout: bool = Field(False, description="Upper-case the answer.")
    tags: list[str] = Field(default_factory=list, description="Labels to attach.")
    mood: Literal["calm", "happy"] = Field("calm", description="How to say it.")


class EchoResponse(Response):
    said: list[str]
    tags: list[str]
    mood: str


def echo(runtime: Runtime, request: EchoRequest, progress: Progress | None = None) -> EchoResponse:
    said = []
    for i in range(request.times):
        said.append(request.text.upper() if request.shout else request.text)
        if progress:
            progress(i + 1, request.times)
    return EchoResponse(said=said, tags=request.tags, mood=request.mood)


class FailRequest(Request):
    kind: Literal["not_found", "bug", "os"] = Field(description="How to fail.")


def fail(runtime: Runtime, request: FailRequest, context: CallContext) -> EchoResponse:
    if request.kind == "not_found":
        raise NotFound("no such thing; look it up with echo first")
    if request.kind == "os":  # a file system condition no tool translated
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", "/nonexistent/toy.txt")
    raise ZeroDivisionError("a bug in a tool")


FAILURES = "toy-failures.jsonl"


def failed(runtime: Runtime, arguments: Mapping[str, Any], context: CallContext, error: BaseException) -> None:
    runtime.settings.home.mkdir(parents=True, exist_ok=True)
    line = {"session": context.session, "arguments": dict(arguments), "error": str(error)}
    with (runtime.settings.home / FAILURES).open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, default=list) + "\n")


TOOLSET = Toolset(
    name="toy",
    summary="A toy toolset for the adapter tests.",
    instructions="Echoes text back.",
    tools=[
        ToolSpec(name="echo", description="Say the text back, as often as asked, optionally in upper case.",
                 request=EchoRequest, response=EchoResponse, run=echo, progress=True, progress_unit="echoes",
                 render=lambda r: "\n".join(r.said), cli=Cli(args={"text": Arg(positional=True), "times": Arg(short="-n")},
                         examples=("graphlore toy echo hello -n 2 --shout",))),
        ToolSpec(name="fail", description="Fail on purpose: with a tool error, or with a bug.",
                 request=FailRequest, response=EchoResponse, run=fail, render=lambda r: "", context=True,
                 on_failure=failed),
    ],
)
