"""A tool, declared once for every surface: :class:`ToolSpec` inside a :class:`Toolset`.

A spec carries the request and response models, the function that runs the tool,
how its answer reads as text (``render``), and how its fields appear on the
command line (:class:`Cli` / :class:`Arg`). The MCP adapter, the CLI builder and
the docs tests all read the same declaration, so the surfaces cannot drift.

The function is ``run(runtime, request)`` and may ask for keyword arguments:
``context`` (a :class:`CallContext`, when ``context=True``) and ``progress`` (a
:class:`Progress` callback, when ``progress=True``). The adapters call it through
:meth:`ToolSpec.call`, which first confines every path the request names
(:class:`graphlore.contract.LocalPath`) to the allowed roots.

A tool that keeps per-session state may also declare ``on_failure``: every way
in calls it (through :meth:`ToolSpec.failed`: MCP, the CLI, and the command
strings of a :class:`CommandTool`) when a call fails for any reason, the
request's validation and the command line's parsing included, so the state can
say so (e.g. a failed ``search`` ends the session's latest search, and ``cat``
does not expand the search before it as if it answered the new question).

Long work calls :func:`check_cancelled` between its steps (the embedding orchestration does between
batches): inside :func:`cancellation` (the MCP adapter wraps every call in one) it raises once the caller
gave up, so a cancelled call stops after the step in progress instead of running to its end unseen.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from graphlore.contract import Request, Response, path_fields
from graphlore.llm import LLM

if TYPE_CHECKING:
    from graphlore.runtime import Runtime

class Progress(Protocol):
    """``progress(done, total, unit)``: work done so far, out of ``total`` ``unit``s (``"passages"``,
    ``"files parsed"``...); a call with another unit or total starts the next phase of the work. The CLI
    shows it as a bar or as lines (``index: 128/406 passages``), MCP as progress notifications. A progress
    callback may raise :class:`Cancelled` (the caller stopped the call): work stops between two steps."""

    def __call__(self, done: int, total: int, unit: str = "") -> None: ...


class Cancelled(BaseException):
    """Raised by a progress callback when the caller stopped the call (Ctrl-C): not an :class:`Exception`,
    so no tool's error handling mistakes it for a failure; transactions under way roll back."""

logger = logging.getLogger("graphlore")

_cancel_check: ContextVar[Callable[[], None] | None] = ContextVar("graphlore_cancel_check", default=None)


@contextmanager
def cancellation(check: Callable[[], None]) -> Iterator[None]:
    """Within this block :func:`check_cancelled` calls ``check``, which raises when the caller gave up."""
    token = _cancel_check.set(check)
    try:
        yield
    finally:
        _cancel_check.reset(token)


def check_cancelled() -> None:
    """Raise if the call running in this thread was cancelled (see the module docstring); else nothing."""
    check = _cancel_check.get()
    if check is not None:
        check()


@dataclass(frozen=True)
class CallContext:
    """Who is calling: what a tool that keeps per-session state, or asks the caller's model, needs."""

    #: stable key of the caller's session; None when the transport has no session (MCP 2026-07-28 over HTTP).
    #: Session state lives in the store, so any process that shares it can read it.
    session: str | None
    #: the MCP client's model (sampling), when the client offers one
    llm: LLM | None = None


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


@dataclass(frozen=True)
class Arg:
    """How one request field appears on the command line. By default it is ``--field-name`` (underscores
    become dashes), repeatable when it is a list, a flag when it is a boolean, with the field's
    description as help."""

    #: a positional argument (``nargs=-1`` for a list) instead of a flag
    positional: bool = False
    #: the flags, replacing ``--field-name`` (e.g. ``("-entity",)``; ``("--a/--b",)`` for an on/off pair)
    flags: tuple[str, ...] = ()
    #: a short flag added to the long one, e.g. ``"-p"``
    short: str | None = None
    #: each value is JSON text (for objects)
    json: bool = False
    #: a list whose values may each hold several items separated by this (``-entity "A, B"``)
    split: str | None = None
    #: a positional text that takes every word left, joined by spaces (``info Apple Inc``: no quotes needed)
    join: bool = False
    #: a CLI-only default (e.g. ``"."`` for a folder); the request model's own default otherwise
    default: Any = UNSET
    metavar: str | None = None
    help: str | None = None
    #: a correct value, shown when a value is refused (e.g. a JSON selector)
    example: str | None = None
    #: ``parse(flag, text)``: each value's text as the field takes it (e.g. ``NAME: DEFINITION`` to a selector);
    #: raises :class:`graphlore.errors.InvalidInput` naming the flag. It gets the text itself: an ``@FILE`` is
    #: read before it (on the command line only), so a parser never reads a file
    parse: Callable[[str, str], Any] | None = None


@dataclass(frozen=True)
class Cli:
    """The command a tool becomes: ``graphlore <toolset> <command>``."""

    #: the command name; default: the tool name with dashes
    command: str | None = None
    #: per-field hints; fields without one follow the defaults of :class:`Arg`
    args: Mapping[str, Arg] = field(default_factory=dict)
    #: flags of older interfaces, refused with the form that replaced them
    refused: Mapping[str, str] = field(default_factory=dict)
    #: the command's one-line help; default: the first sentence of the tool's description
    help: str | None = None
    #: command lines its ``--help`` shows under ``Examples:`` (a test runs them against the bundled examples)
    examples: tuple[str, ...] = ()
    #: ``kept(runtime, request)``: after Ctrl-C, what the interrupted call kept and the command that goes on
    #: (e.g. "21 of 38 items embedded and kept; run `graphlore items index -p PATH` to finish"); it reads
    #: the store with a runtime of its own
    kept: Callable[[Runtime, Request], str] | None = None


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    request: type[Request]
    response: type[Response]
    run: Callable[..., Response]
    #: the text people read (the CLI's output) and, unless ``mcp_text="json"``, the MCP text block
    render: Callable[[Any], str]
    #: MCP hints: only reads (``readOnlyHint``); calling twice with the same input changes nothing more
    read_only: bool = True
    idempotent: bool = True
    #: ``run`` also receives ``context=CallContext(...)``
    context: bool = False
    #: ``run`` also receives ``progress=callback``; the CLI shows a bar, MCP sends progress notifications
    progress: bool = False
    #: what progress counts, e.g. "passages embedded" (the CLI's line and bar, MCP's progress message)
    progress_unit: str = ""
    cli: Cli = field(default_factory=Cli)
    #: where the tool is offered
    surfaces: frozenset[Literal["mcp", "cli"]] = frozenset({"mcp", "cli"})
    #: the MCP text block: the rendering (for agents that read text) or the response as JSON
    mcp_text: Literal["render", "json"] = "render"
    #: ``on_failure(runtime, arguments, context, error)``: called when a call fails (validation included);
    #: ``arguments`` are the raw arguments as far as they were read (see :meth:`failed`). Needs ``context=True``.
    on_failure: Callable[[Runtime, Mapping[str, Any], CallContext, BaseException], None] | None = None

    def __post_init__(self) -> None:
        if self.on_failure is not None and not self.context:
            raise TypeError(f"{self.name}: on_failure is for tools with per-session state (context=True)")

    @property
    def command(self) -> str:
        return self.cli.command or self.name.replace("_", "-")

    def call(self, runtime: Runtime, request: Request, **extra: Any) -> Response:
        """Run the tool (what the adapters call): every file or folder the request names must lie under the
        allowed roots (:meth:`Runtime.confine`; refused with the field's name before anything is read)."""
        for name, wire in path_fields(self.request).items():
            value = getattr(request, name)
            for path in value if isinstance(value, list) else [value]:
                if path is not None:
                    runtime.confine(path, wire)
        return self.run(runtime, request, **extra)

    def failed(self, runtime: Runtime, arguments: Mapping[str, Any], context: CallContext, error: BaseException) -> None:
        """Tell the tool its call failed (what the adapters call). ``arguments``: the MCP arguments as sent, or
        the CLI's fields by their wire names (for a command line that did not parse, the ``--flag VALUE`` pairs
        read from it, as strings). The hook's own failure is logged and never replaces ``error``."""
        if self.on_failure is None:
            return
        try:
            self.on_failure(runtime, arguments, context, error)
        except Exception:  # noqa: BLE001 - the caller must see the call's error, not the hook's
            logger.exception("%s: on_failure failed while reporting %r", self.name, error)


#: The metadata where a folder-backed toolset's store records the folder's real path.
PROJECT_PATH = "project_path"


@dataclass(frozen=True)
class StoreKind:
    """A toolset's store namespaces (``{toolset}/...``) as ``graphlore stores``, ``drop`` and ``doctor`` see
    them: what each holds, in people's words, and what dropping one must wait for."""

    #: ``label(namespace, meta)``: what the namespace holds (a folder, a graph, a library), where ``meta(key)``
    #: reads one of its metadata values; None when the store does not say (made before graphlore recorded it)
    label: Callable[[str, Callable[[str], Any]], str | None]
    #: folder-backed toolsets: the namespace of a folder's store, given the folder's real path
    #: (``graphlore drop --project PATH``); their stores record that path as :data:`PROJECT_PATH`
    of_folder: Callable[[Path], str] | None = None
    #: namespace locks (:meth:`graphlore.runtime.Runtime.lock`) the toolset's writers hold across several
    #: transactions: ``graphlore drop`` takes them first, so it waits for an update in progress
    locks: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommandTool:
    """A tool taking one command string of an older interface, e.g. ``kg_execute(command="search -entity
    Apple -q acquired")``: its first word names one of the toolset's tools (:attr:`commands`), the rest are that
    tool's command-line arguments as its :class:`Arg` hints declare them, so the string becomes the tool's
    typed request and is answered with the tool's rendering. ``help`` lists the commands.

    The toolset declares it; :mod:`graphlore.adapters.command` builds the tool (a :class:`ToolSpec`) from it
    and the commands' specs, so there is no second table of tools or flags."""

    name: str
    description: str
    #: one field, ``command`` (the string)
    request: type[Request]
    #: fields ``command`` (the command that ran, or ``help``), ``text`` (its rendering) and ``result`` (its
    #: structured output; None for help)
    response: type[Response]
    #: the tools it runs, by name (each command is the tool's name), in the order ``help`` lists them
    commands: tuple[str, ...]
    #: what ``help`` says after the commands (e.g. the workflow)
    guide: str = ""
    #: command strings ``help`` shows (``help COMMAND``: those of the command)
    examples: tuple[str, ...] = ()
    #: per command, where its words differ from the tool's own command line: ``args`` and ``refused`` merged
    #: over the tool's :class:`Cli` (the older interface keeps its spellings when the CLI moves on)
    grammar: Mapping[str, Cli] = field(default_factory=dict)
    #: the tool on the command line (``graphlore facts exec``)
    cli: Cli = field(default_factory=Cli)


@dataclass(frozen=True)
class Toolset:
    name: str
    #: one line for ``graphlore --help``
    summary: str
    #: what an MCP client is told about the server (``instructions``)
    instructions: str
    tools: Sequence[ToolSpec] = ()
    #: extra CLI commands: ``commands(kit)`` returns click commands built with the CLI adapter's kit
    #: (:class:`graphlore.adapters.cli.Kit`), so a toolset never imports an adapter
    commands: Callable[[Any], Sequence[Any]] | None = None
    #: a small valid state to call the tools against (tests, the reliability suite, trying a toolset out):
    #: ``examples(runtime, folder)`` makes it under the empty ``folder`` (files to point at; stores filled
    #: through ``runtime``) and returns, per tool name, argument objects valid against that state. Tools
    #: it leaves out are exercised from their request schemas alone.
    examples: Callable[[Any, Path], Mapping[str, Sequence[Mapping[str, Any]]]] | None = None
    #: appended to the MCP answer to an unknown tool name (which lists the tools), e.g. another way in;
    #: ``{name}`` stands for the tool's name on the server (see :meth:`hint`)
    unknown_tool_hint: str = ""
    #: what its store namespaces hold (``graphlore stores``); None: it keeps nothing in the store
    stores: StoreKind | None = None
    #: a tool taking command strings of an older interface, run by the tools above (the adapters add it)
    command_tool: CommandTool | None = None

    def tool(self, name: str) -> ToolSpec:
        for spec in self.tools:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def on(self, surface: Literal["mcp", "cli"]) -> list[ToolSpec]:
        return [spec for spec in self.tools if surface in spec.surfaces]

    def hint(self, served: Mapping[str, str]) -> str:
        """:attr:`unknown_tool_hint` with each ``{tool}`` written as that tool's name on the server (``served``:
        tool name -> its name there)."""
        return self.unknown_tool_hint.format_map({spec.name: served.get(spec.name, spec.name) for spec in self.tools})
