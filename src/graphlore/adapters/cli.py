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

import os
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any

# One BLAS thread: a query's matrix-vector product is short on one core, while OpenBLAS's thread pool
# stalls for milliseconds when the CPU is shared (set before numpy loads).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click  # noqa: E402

from graphlore import __version__  # noqa: E402
from graphlore.adapters import admin, db  # noqa: E402
from graphlore.adapters.command import attach  # noqa: E402
from graphlore.adapters.flags import ToolCommand, command_help, fields_of, request_fields  # noqa: E402
from graphlore.config import Settings  # noqa: E402
from graphlore.contract import Response, parse_request  # noqa: E402
from graphlore.errors import GraphloreError, InternalError, InvalidInput, from_os_error  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.tools import CallContext, Progress, Toolset, ToolSpec  # noqa: E402
from graphlore.toolsets import TOOLSETS, ExtraMissing, load_toolset, select  # noqa: E402

#: The CLI's session for tools that keep per-session state: one across commands (the state is in the store).
CLI_CONTEXT = CallContext(session="cli")


# -- running a tool -------------------------------------------------------------------------------------


class ProgressReport:
    """A bar on a terminal; otherwise, for work that runs past 5 s, a line on stderr every 5 s and one
    at the end (quick work prints nothing)."""

    every_s = 5.0

    def __init__(self, label: str, unit: str = "") -> None:
        self.label = label
        self.unit = unit
        self.tty = sys.stderr.isatty()
        self._bar: Any = None
        self._last = time.monotonic()
        self._printed = False

    def __call__(self, done: int, total: int) -> None:
        if self.tty:
            if self._bar is None:
                self._bar = click.progressbar(length=total, label=f"{self.label} ({self.unit})" if self.unit else self.label,
                                              file=sys.stderr)
                self._bar.__enter__()
            self._bar.update(done - self._bar.pos)
            return
        now = time.monotonic()
        if now - self._last >= self.every_s or (done >= total and self._printed):
            self._last, self._printed = now, True
            click.echo(f"{self.label}: {done}/{total} {self.unit}".rstrip(), err=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


class Kit:
    """What a toolset's own commands use to run its tools like generated commands do (see
    :attr:`graphlore.tools.Toolset.commands`), without importing this module."""

    context = CLI_CONTEXT

    def __init__(self, toolset: Toolset, make_runtime: Callable[[], Runtime]) -> None:
        self.toolset = toolset
        self._make_runtime = make_runtime

    def runtime(self) -> Runtime:
        """A runtime for one command (the command closes it when done)."""
        return self._make_runtime()

    def run(self, name: str, fields: Mapping[str, Any], runtime: Runtime, progress: Progress | None = None) -> Response:
        """Validate ``fields`` (unset ones left out, so the model's defaults apply) and call the tool."""
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

    def callback(as_json: bool, **values: Any) -> None:
        try:
            request = request_fields(fields, values)
        except GraphloreError as exc:
            failed({k: v for k, v in values.items() if v is not None and v != ()}, exc)
            raise
        runtime = kit.runtime()
        progress = ProgressReport(spec.command, spec.progress_unit) if spec.progress else None
        try:
            response = kit.run(spec.name, request, runtime, progress)
        finally:
            if progress is not None:
                progress.close()
            runtime.close()
        click.echo(response.model_dump_json(indent=2, by_alias=True) if as_json else spec.render(response))

    help_text = command_help(spec)
    params = [*(f.param for f in fields), click.Option(["--json", "as_json"], is_flag=True,
                                                       help="Print the exact tool output as JSON.")]
    return ToolCommand(spec.command, params=params, callback=callback, help=help_text, short_help=help_text,
                       refused=spec.cli.refused, failed=failed)


# -- groups ---------------------------------------------------------------------------------------------


class ToolsetGroup(click.Group):
    """``graphlore <toolset>``: its commands are built from the toolset's specs when first needed."""

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


class RootGroup(click.Group):
    """The ``graphlore`` command: run standalone (the console script, click's test runner), every failure
    becomes one ``error: [code] message`` line and exit status 2 (see :func:`run`)."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        sys.exit(run(lambda: super(RootGroup, self).main(args, prog_name or "graphlore", complete_var,
                                                         standalone_mode=False, **extra)))


def default_runtime() -> Runtime:
    return Runtime(Settings.load())


def build_cli(
    registry: Mapping[str, str] | None = None, make_runtime: Callable[[], Runtime] = default_runtime
) -> click.Group:
    """The root command for the toolsets in ``registry`` (default: :data:`TOOLSETS`); each command gets
    a fresh runtime from ``make_runtime`` (tests pass one that shares an already loaded embedder)."""
    registry = dict(TOOLSETS if registry is None else registry)

    @click.group(name="graphlore", cls=RootGroup)
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

    @root.command(short_help="Run the MCP server (default: every toolset in one process).")
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
        run_server(served, runtime, transport=transport, host=host, port=port, read_only=read_only)

    @root.command("mcp-config")
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

    @root.command()
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
    try:
        result = invoke()
    except GraphloreError as exc:
        return _fail(exc)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.Abort:
        click.echo("error: aborted", err=True)
        return 1
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
