"""``graphlore <toolset> <command>`` and ``graphlore serve <toolset>``, built from the tool declarations.

Every command comes from one :class:`~graphlore.tools.ToolSpec`: its request
model's fields become arguments and flags (``--field-name``, refined by the spec's
:class:`~graphlore.tools.Arg` hints), the values go through the same request model
the MCP adapter uses, and the answer is printed with the spec's ``render`` (a
table or text for people) or, with ``--json``, as the exact response. Long work
shows a progress bar on a terminal and a progress line every few seconds otherwise.

Every failure prints one line ``error: [code] message`` on stderr and exits 2:
tool errors, bad flags and values (click's usage errors included), operating-system
errors no tool translated (:func:`graphlore.errors.from_os_error`: the file and the
reason) and bugs (``[internal_error]``; ``GRAPHLORE_DEBUG=1`` adds the traceback). A tool that
declares ``on_failure`` hears of every failed call, a command line that did not
parse included (see :meth:`graphlore.tools.ToolSpec.failed`).

Toolsets are listed in :data:`graphlore.toolsets.TOOLSETS` and imported only when
one of their commands runs (``graphlore --help`` lists them).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any

# One BLAS thread: a query's matrix-vector product is short on one core, while OpenBLAS's thread pool
# stalls for milliseconds when the CPU is shared (set before numpy loads).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click  # noqa: E402

from graphlore import __version__, collector  # noqa: E402
from graphlore.adapters import admin, db  # noqa: E402
from graphlore.adapters.command import attach  # noqa: E402
from graphlore.adapters.flags import (  # noqa: E402
    HELP_OPTIONS,
    Documented,
    DocumentedGroup,
    ToolCommand,
    command_help,
    fields_of,
    first_examples,
    request_fields,
    speller,
)
from graphlore.config import Settings  # noqa: E402
from graphlore.contract import Response, parse_request  # noqa: E402
from graphlore.errors import (  # noqa: E402
    AtSpeller,
    GraphloreError,
    InternalError,
    InvalidInput,
    RefSpeller,
    from_os_error,
)
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.tools import CallContext, Cancelled, Progress, Toolset, ToolSpec, cancellation  # noqa: E402
from graphlore.toolsets import TOOLSETS, ExtraMissing, load_toolset, select  # noqa: E402

#: The CLI's session for tools that keep per-session state: one across commands (the state is in the store).
CLI_CONTEXT = CallContext(session="cli")


# -- running a tool -------------------------------------------------------------------------------------


class ProgressReport:
    """Progress with its unit: a bar per phase on a terminal; otherwise, once the work has run 5 s, a line
    on stderr at least every 5 s (``index: 128/406 passages embedded``, repeated while a step runs long)
    and one when a phase ends (quick work prints nothing). Once ``cancel`` is set (Ctrl-C), the next report
    raises :class:`~graphlore.tools.Cancelled`, so the work stops between two steps."""

    every_s = 5.0

    def __init__(self, label: str, cancel: threading.Event | None = None, unit: str = "") -> None:
        self.label = label
        self.cancel = cancel
        self.unit = unit  # the unit of a report that names none (the tool's progress_unit)
        self.tty = sys.stderr.isatty()
        self._bar: Any = None
        self._phase: tuple[str, int] | None = None
        self._state: tuple[int, int, str] | None = None
        self._started = time.monotonic()
        self._printed = 0.0
        self._closed = threading.Event()
        self._ticker: threading.Thread | None = None
        self._lock = threading.Lock()

    def __call__(self, done: int, total: int, unit: str = "") -> None:
        self.check()
        unit = unit or self.unit
        with self._lock:
            phase_ends = self._phase is not None and self._phase != (unit, total)
            if phase_ends and self._state is not None and self._printed:
                self._line(*self._state)  # the last count of the phase before
            self._phase, self._state = (unit, total), (done, total, unit)
            if self.tty:
                self._draw(done, total, unit, phase_ends)
                return
            if self._ticker is None:
                self._ticker = threading.Thread(target=self._tick, name="graphlore-progress", daemon=True)
                self._ticker.start()
            if self._due() or (done >= total and self._printed):
                self._line(done, total, unit)

    def check(self) -> None:
        """Raise :class:`~graphlore.tools.Cancelled` once Ctrl-C was pressed (between two steps of the work)."""
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled

    def _draw(self, done: int, total: int, unit: str, new_phase: bool) -> None:
        if new_phase and self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None
        if self._bar is None:
            label = f"{self.label}: {unit}" if unit else self.label
            self._bar = click.progressbar(length=max(total, 1), label=label, file=sys.stderr)
            self._bar.__enter__()
        self._bar.update(done - self._bar.pos)

    def _line(self, done: int, total: int, unit: str) -> None:
        self._printed = time.monotonic()
        click.echo(f"{self.label}: {done}/{total} {unit}".rstrip(), err=True)

    def _due(self) -> bool:
        """5 s since the last line (or since the work began)."""
        return time.monotonic() - (self._printed or self._started) >= self.every_s

    def _tick(self) -> None:
        """The latest count every 5 s (the first after 5 s): a line even while a step runs long."""
        while not self._closed.wait(max(self.every_s, 0.1) / 2):
            with self._lock:
                if self._state is not None and not self._closed.is_set() and self._due():
                    self._line(*self._state)

    def close(self) -> None:
        with self._lock:
            self._closed.set()
            if self._bar is not None:
                self._bar.__exit__(None, None, None)
                self._bar = None


#: After Ctrl-C, how long the command may take to stop at its next step before the process leaves without it.
STOP_GRACE_S = 0.5


class Stopped(Exception):  # noqa: N818 - what happened, not an error
    """Ctrl-C stopped a command; ``line`` says what was kept (the process then leaves, see :func:`run`)."""

    def __init__(self, line: str = "") -> None:
        super().__init__(line)
        self.line = line


def in_worker(work: Callable[[], Any], cancel: threading.Event) -> Any:
    """``work()`` in a thread of its own while this (the main) thread waits: Ctrl-C reaches the main thread at
    once, even while the work is inside a long native call (an embedding batch). On Ctrl-C ``cancel`` is set
    and the work has :data:`STOP_GRACE_S` to stop at its next progress report or cancellation check
    (:func:`graphlore.tools.check_cancelled`); raises :class:`Stopped`
    (its ``line`` empty: the caller says what was kept) either way."""
    box: dict[str, Any] = {}

    def stop_here() -> None:  # graphlore.tools.check_cancelled, between the work's steps (embedding batches)
        if cancel.is_set():
            raise Cancelled

    def target() -> None:
        try:
            with cancellation(stop_here):
                box["value"] = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            box["error"] = exc

    worker = threading.Thread(target=target, name="graphlore-command", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        cancel.set()
        worker.join(STOP_GRACE_S)
        raise Stopped() from None
    if "error" in box:
        raise box["error"]
    return box["value"]


def kept_line(kit: Kit, spec: ToolSpec, request: Mapping[str, Any]) -> str:
    """What an interrupted call kept, from the tool's :attr:`Cli.kept` (read with a runtime of its own, within
    a short wait), or the general rule."""
    general = ("every step finished before it is kept, the one under way was rolled back; run the command "
               "again to go on")
    if spec.cli.kept is None:
        return general
    box: dict[str, str] = {}

    def read() -> None:
        runtime = kit.runtime()
        try:
            box["line"] = spec.cli.kept(runtime, parse_request(spec.request, dict(request)))
        finally:
            runtime.close()

    reader = threading.Thread(target=read, name="graphlore-kept", daemon=True)
    reader.start()
    reader.join(STOP_GRACE_S)
    return box.get("line", general)


class Kit:
    """What a toolset's own commands use to run its tools like generated commands do (see
    :attr:`graphlore.tools.Toolset.commands`), without importing this module."""

    context = CLI_CONTEXT
    #: the command and group classes whose help ends with ``Examples:`` (``cls=kit.Documented, examples=(...)``)
    Documented = Documented
    DocumentedGroup = DocumentedGroup

    def __init__(self, toolset: Toolset, make_runtime: Callable[[], Runtime]) -> None:
        self.toolset = toolset
        self._make_runtime = make_runtime

    def runtime(self) -> Runtime:
        """A runtime for one command (the command closes it when done)."""
        return self._make_runtime()

    @staticmethod
    def progress(label: str, unit: str = "") -> ProgressReport:
        """Progress shown as generated commands show it (the command closes it when done)."""
        return ProgressReport(label, unit=unit)

    def run(self, name: str, fields: Mapping[str, Any], runtime: Runtime, progress: Progress | None = None,
            words: tuple[RefSpeller, AtSpeller] | None = None) -> Response:
        """Validate ``fields`` (unset ones left out, so the model's defaults apply) and call the tool; an error
        is spelled with ``words`` (the command line's flags, see :func:`graphlore.adapters.flags.speller`)."""
        spec = self.toolset.tool(name)
        extra: dict[str, Any] = {}
        if spec.context:
            extra["context"] = CLI_CONTEXT
        if spec.progress and progress is not None:
            extra["progress"] = progress
        try:
            request = parse_request(spec.request, {k: v for k, v in fields.items() if v is not None})
            return spec.call(runtime, request, **extra)
        except Exception as exc:
            if words is not None and isinstance(exc, GraphloreError):
                exc.in_words_of(*words)  # before the tool hears of it (a failed search keeps its reason)
            spec.failed(runtime, fields, CLI_CONTEXT, exc)
            raise

    def report_failure(self, spec: ToolSpec, arguments: Mapping[str, Any], error: BaseException) -> None:
        """A call that failed before :meth:`run` (its command line did not parse): tell the tool."""
        if spec.on_failure is None:
            return
        try:
            runtime = self.runtime()
        except GraphloreError:  # a bad setting: there is no state to tell (the command fails on the same)
            return
        try:
            spec.failed(runtime, arguments, CLI_CONTEXT, error)
        finally:
            runtime.close()

    @staticmethod
    def output(fn: Callable[..., tuple[Response, Callable[[Any], str]]]) -> Callable[..., None]:
        """Decorate a command body returning ``(response, render)``: adds ``--json`` and the error line."""

        def wrapper(*args: Any, as_json: bool, **kwargs: Any) -> None:
            response, render = fn(*args, **kwargs)
            click.echo(response.model_dump_json(indent=2, by_alias=True) if as_json else render(response))

        wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
        return click.option("--json", "as_json", is_flag=True, help="Print the exact tool output as JSON.")(wrapper)


def tool_command(kit: Kit, spec: ToolSpec) -> click.Command:
    fields = fields_of(spec)

    def failed(arguments: Mapping[str, Any], error: BaseException) -> None:
        kit.report_failure(spec, arguments, error)

    words = speller(fields)

    def callback(as_json: bool, **values: Any) -> None:
        try:
            request = request_fields(fields, values)
        except GraphloreError as exc:
            exc.in_words_of(*words)
            failed({k: v for k, v in values.items() if v is not None and v != ()}, exc)
            raise
        runtime = kit.runtime()
        cancel = threading.Event()
        progress = ProgressReport(spec.command, cancel, spec.progress_unit) if spec.progress else None
        try:
            response = in_worker(lambda: kit.run(spec.name, request, runtime, progress, words), cancel)
        except (Stopped, Cancelled):  # the process leaves at once (the work may still use the runtime)
            raise Stopped(kept_line(kit, spec, request)) from None
        except GraphloreError as exc:
            runtime.close()
            exc.in_words_of(*words)
            raise
        except BaseException:
            runtime.close()
            raise
        finally:
            if progress is not None:
                progress.close()
        runtime.close()
        click.echo(response.model_dump_json(indent=2, by_alias=True) if as_json else spec.render(response))

    help_text = command_help(spec)
    params = [*(f.param for f in fields), click.Option(["--json", "as_json"], is_flag=True,
                                                       help="Print the exact tool output as JSON.")]
    return ToolCommand(spec.command, params=params, callback=callback, help=help_text, short_help=help_text,
                       refused=spec.cli.refused, failed=failed, examples=spec.cli.examples)


# -- groups ---------------------------------------------------------------------------------------------


class ToolsetGroup(DocumentedGroup):
    """``graphlore <toolset>``: its commands are built from the toolset's specs when first needed; its help's
    examples are its commands' (:func:`first_examples`)."""

    def __init__(self, name: str, module: str, make_runtime: Callable[[], Runtime]) -> None:
        super().__init__(name)
        self.module = module
        self.make_runtime = make_runtime
        self._built = False

    def _build(self) -> None:
        if self._built:
            return
        toolset = attach(load_toolset(self.name, {self.name: self.module}))
        kit = Kit(toolset, self.make_runtime)
        self.help = self.short_help = toolset.summary
        for spec in toolset.on("cli"):
            self.add_command(tool_command(kit, spec))
        for command in toolset.commands(kit) if toolset.commands else ():
            self.add_command(command)
        self._built = True

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._build()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self._build()
        return super().get_command(ctx, cmd_name)

    def get_short_help_str(self, limit: int = 45) -> str:
        try:
            self._build()
        except ExtraMissing as exc:  # graphlore --help still lists it, and says how to install it
            return f"(not installed: {exc.install})"
        return super().get_short_help_str(limit)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._build()
        super().format_help(ctx, formatter)

    def group_examples(self) -> list[str]:
        self._build()
        return first_examples(list(self.commands.values()))


class RootGroup(DocumentedGroup):
    """The ``graphlore`` command: run standalone (the console script, click's test runner), every failure
    becomes one ``error: [code] message`` line and exit status 2 (see :func:`run`)."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        sys.exit(run(lambda: super(RootGroup, self).main(args, prog_name or "graphlore", complete_var,
                                                         standalone_mode=False, **extra)))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The console script (and ``python -m graphlore``): once the command has its exit status, a late Ctrl-C
        changes nothing (it would end the process by the signal while the interpreter shuts down). The process
        holds large graphs for its life, so the collector's first threshold is raised first (:mod:`graphlore.collector`)."""
        collector.tune()
        try:
            return self.main(*args, **kwargs)
        except SystemExit:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            raise


def default_runtime() -> Runtime:
    return Runtime(Settings.load())


def build_cli(
    registry: Mapping[str, str] | None = None, make_runtime: Callable[[], Runtime] = default_runtime
) -> click.Group:
    """The root command for the toolsets in ``registry`` (default: :data:`TOOLSETS`); each command gets
    a fresh runtime from ``make_runtime`` (tests pass one that shares an already loaded embedder)."""
    registry = dict(TOOLSETS if registry is None else registry)

    @click.group(name="graphlore", cls=RootGroup, context_settings=HELP_OPTIONS, examples=(
        'graphlore items search "sync conflicts after working offline" -p examples/feature-management',
        "graphlore code map -p examples/code", "graphlore doctor", "graphlore serve"))
    @click.version_option(__version__, prog_name="graphlore")
    def root() -> None:
        """graphlore: strict, honest knowledge tools for AI agents (MCP server and CLI)."""

    for name, module in registry.items():
        root.add_command(ToolsetGroup(name, module, make_runtime))

    toolsets_option = click.option(
        "--toolsets", metavar="NAMES", help=f"Comma-separated toolsets, e.g. items,code (default: all: {', '.join(registry)}).")
    read_only_option = click.option(
        "--read-only", is_flag=True, help="Offer only the tools that change nothing (no index builds, no writes).")

    def chosen(positional: tuple[str, ...], option: str | None) -> list[str]:
        if positional and option is not None:
            raise InvalidInput("name the toolsets once: as arguments (graphlore serve items code) or with "
                               "--toolsets items,code, not both")
        if option is not None:
            return select([name.strip() for name in option.split(",")], registry, "--toolsets")
        return select(list(positional), registry)

    @root.command(short_help="Run the MCP server (default: every toolset in one process).", cls=Documented,
                  examples=("graphlore serve items", "graphlore serve --toolsets items,code --read-only",
                            "graphlore serve --transport http --port 8765"))
    @click.argument("toolset", nargs=-1, type=click.Choice(list(registry)))
    @toolsets_option
    @read_only_option
    @click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
                  help="stdio for clients that start the server; http for streamable HTTP at /mcp.")
    @click.option("--host", default="127.0.0.1", show_default=True,
                  help="HTTP bind address (loopback by default; any other needs GRAPHLORE_AUTH_TOKEN).")
    @click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="HTTP port.")
    def serve(toolset: tuple[str, ...], toolsets: str | None, read_only: bool, transport: str, host: str,
              port: int) -> None:
        """Run the MCP server of the TOOLSETs (default: all of them, in one process) over stdio (default) or
        streamable HTTP at /mcp. One toolset keeps its tools' names (find); several name them
        <toolset>_<tool> (code_find)."""
        from graphlore.adapters.mcp import serve as run_server

        served = installed(chosen(toolset, toolsets), registry, named=bool(toolset or toolsets))
        settings = Settings.load()
        if transport == "http":
            from graphlore.adapters.http import check_bind, http_settings

            check_bind(host, settings.auth_token)
            settings = http_settings(settings)  # over HTTP files and folders are always confined
        runtime = Runtime(settings, watch_files=True)
        if transport == "stdio" and sys.stdin.isatty():  # a person started it, not an MCP client
            click.echo(f"graphlore {__version__}: an MCP server on stdin/stdout for {', '.join(t.name for t in served)}, "
                       "waiting for an MCP client's messages (register it with `graphlore mcp-config`); "
                       "press Ctrl-C to stop", err=True)
        run_server(served, runtime, transport=transport, host=host, port=port, read_only=read_only)

    @root.command("mcp-config", cls=Documented, examples=(
        "graphlore mcp-config --client cursor", "graphlore mcp-config --client claude-code --toolsets items,code"))
    @click.option("--client", type=click.Choice(["claude-desktop", "cursor", "vscode", "claude-code"]),
                  default="claude-desktop", show_default=True, help="The client whose configuration to print.")
    @toolsets_option
    @read_only_option
    def mcp_config(client: str, toolsets: str | None, read_only: bool) -> None:
        """Print the snippet that registers this installation's MCP server (stdio) with a client."""
        from graphlore.adapters import mcp_config as config

        names = chosen((), toolsets)
        args = ["serve", *(["--toolsets", ",".join(names)] if toolsets is not None else []),
                *(["--read-only"] if read_only else [])]
        name = config.server_name(names if toolsets is not None else [])
        click.echo(config.snippet(client, config.graphlore_command(), args, name, config.copied_env(os.environ)))
        unset = config.left_out(os.environ)
        if unset:
            click.echo(f"note: {', '.join(unset)} set in this shell but not in the snippet (values may be secret); "
                       "add them to the client's configuration or to $GRAPHLORE_HOME/config.toml", err=True)

    @root.command(cls=Documented, examples=(
        "graphlore migrate --from sqlite --to postgresql://localhost:5432/graphlore",
        "graphlore migrate --from sqlite --namespace facts/default --skip-existing"))
    @click.option("--from", "source", type=click.Choice(["sqlite"]), required=True,
                  help="The backend to copy from: the embedded stores under GRAPHLORE_HOME.")
    @click.option("--to", "target", default=None, metavar="URL",
                  help="The PostgreSQL database to copy into (default: GRAPHLORE_DATABASE_URL).")
    @click.option("--namespace", "namespaces", multiple=True, metavar="NS",
                  help="Copy only this namespace (repeatable), e.g. items/3f2a9c01b7de or facts/default.")
    @click.option("--replace", is_flag=True, help="Copy over namespaces that already exist in the target.")
    @click.option("--skip-existing", is_flag=True,
                  help="Copy only the namespaces the target lacks; list the ones skipped.")
    def migrate(source: str, target: str | None, namespaces: tuple[str, ...], replace: bool,
                skip_existing: bool) -> None:
        """Copy embedded stores into PostgreSQL, vectors included (nothing is embedded again)."""
        from graphlore.store.transfer import copy_namespaces

        if replace and skip_existing:
            raise InvalidInput("--replace and --skip-existing exclude each other: --replace copies over the "
                               "namespaces the target has, --skip-existing leaves them as they are; pass one")
        settings = Settings.load()
        url = target or settings.database_url
        if not url:
            raise InvalidInput("say where to copy: --to postgresql://... (or set GRAPHLORE_DATABASE_URL)")

        def report(copied: Any) -> None:
            click.echo(f"{copied.namespace}: {copied.nodes} nodes, {copied.passages} passage vectors, {copied.keys} "
                       f"keys, {copied.edges} edges, {copied.meta} metadata values ({copied.seconds:.1f} s)")

        existing = "replace" if replace else "skip" if skip_existing else "refuse"
        done, skipped = copy_namespaces(settings, url, namespaces, existing=existing, report=report)
        for namespace in skipped:
            click.echo(f"{namespace}: skipped (the target has it)")
        if not done and not skipped:
            click.echo(f"no embedded stores under {settings.home}")

    for command in admin.commands(registry):
        root.add_command(command)
    root.add_command(db.group())
    return root


def installed(names: list[str], registry: Mapping[str, str], named: bool) -> list[Toolset]:
    """The toolsets ``names``: one whose extra is not installed is an error when it was ``named``, and is left
    out of the default (every toolset) with a note on stderr."""
    out = []
    for name in names:
        try:
            out.append(load_toolset(name, registry))
        except ExtraMissing as exc:
            if named:
                raise
            click.echo(f"note: {exc.text}; left out", err=True)
    if not out:
        raise InvalidInput(f"no toolset to serve among {', '.join(names)}")
    return out


#: The exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED = 130


def _interrupted(line: str) -> int:
    """One line on stderr, what the interrupted command kept; then the process leaves at once with status 130,
    without waiting for work still under way (a native embedding call can run for seconds, and the embedder's
    threads may not survive an orderly exit after a signal): the database rolls back the transaction under
    way, the finished ones are kept."""
    click.echo(f"interrupted: {line}", err=True)
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(INTERRUPTED)


class _Notes(logging.Handler):
    """The warnings of graphlore's logger (e.g. waiting for another index) as lines on stderr (with the
    traceback of a logged exception)."""

    def emit(self, record: logging.LogRecord) -> None:
        click.echo(self.format(record), err=True)


def _say_notes() -> None:
    logger = logging.getLogger("graphlore")
    if not any(isinstance(h, _Notes) for h in logger.handlers):
        logger.addHandler(_Notes(logging.WARNING))


def _fail(error: GraphloreError) -> int:
    click.echo(f"error: {error}", err=True)
    return 2


def _home() -> Any:
    try:
        return Settings.load().home
    except GraphloreError:
        return None


def run(invoke: Callable[[], Any]) -> int:
    """Call ``invoke`` (a non-standalone click ``main``) and turn every failure into one line; the exit status."""
    _say_notes()
    try:
        result = invoke()
    except GraphloreError as exc:
        return _fail(exc)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except Stopped as stop:
        return _interrupted(stop.line)
    except (KeyboardInterrupt, click.Abort, Cancelled):
        return _interrupted("nothing was written by the step under way (each write is one transaction); run the "
                            "command again to go on")
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        return _fail(InvalidInput(f"{exc.format_message()}{hint}"))
    except click.ClickException as exc:
        return _fail(InvalidInput(exc.format_message()))
    except OSError as exc:  # a condition of the file system no tool translated: not a bug
        return _fail(from_os_error(exc, _home()))
    except Exception as exc:  # noqa: BLE001 - the boundary: a bug becomes one line, not a traceback
        if os.environ.get("GRAPHLORE_DEBUG"):
            traceback.print_exc()
        return _fail(InternalError(f"unexpected {type(exc).__name__}: {str(exc)[:300]}; this is a bug in graphlore "
                                   "(run again with GRAPHLORE_DEBUG=1 to see the traceback)"))
    return result if isinstance(result, int) else 0


#: The ``graphlore`` console script.
main = build_cli()
