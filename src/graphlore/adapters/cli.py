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

import json
import os
import sys
import time
import traceback
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal

# One BLAS thread: a 10k x 384 matrix-vector product takes ~0.4 ms on one core, while
# OpenBLAS's thread pool stalls for several ms when the CPU is shared (set before numpy loads).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click  # noqa: E402
from pydantic import BaseModel  # noqa: E402
from pydantic.fields import FieldInfo  # noqa: E402

from graphlore import __version__  # noqa: E402
from graphlore.adapters import admin, db  # noqa: E402
from graphlore.config import Settings  # noqa: E402
from graphlore.contract import Response, parse_request  # noqa: E402
from graphlore.errors import GraphloreError, InternalError, InvalidInput, from_os_error  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.tools import UNSET, Arg, CallContext, Progress, Toolset, ToolSpec  # noqa: E402
from graphlore.toolsets import TOOLSETS, load_toolset, select  # noqa: E402

#: The CLI's session for tools that keep per-session state: one across commands (the state is in the store).
CLI_CONTEXT = CallContext(session="cli")


# -- running a tool -------------------------------------------------------------------------------------


class ProgressReport:
    """A bar on a terminal; otherwise, for work that runs past 5 s, a line on stderr every 5 s and one
    at the end (quick work prints nothing)."""

    every_s = 5.0

    def __init__(self, label: str) -> None:
        self.label = label
        self.tty = sys.stderr.isatty()
        self._bar: Any = None
        self._last = time.monotonic()
        self._printed = False

    def __call__(self, done: int, total: int) -> None:
        if self.tty:
            if self._bar is None:
                self._bar = click.progressbar(length=total, label=self.label, file=sys.stderr)
                self._bar.__enter__()
            self._bar.update(done - self._bar.pos)
            return
        now = time.monotonic()
        if now - self._last >= self.every_s or (done >= total and self._printed):
            self._last, self._printed = now, True
            click.echo(f"{self.label}: {done}/{total}", err=True)

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


# -- parameters from request fields ---------------------------------------------------------------------


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """(element type, is a list) of a field's annotation, without ``None`` and ``Annotated``."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, type(int | None)) and len(args) == 1:
        return _unwrap(args[0])
    if typing.get_origin(annotation) is list:
        inner, _ = _unwrap(typing.get_args(annotation)[0])
        return inner, True
    return annotation, False


def _click_type(element: Any) -> Any:
    if typing.get_origin(element) is Literal:
        return click.Choice([str(v) for v in typing.get_args(element)])
    return {int: click.INT, float: click.FLOAT}.get(element, click.STRING)


def _is_json(element: Any, arg: Arg) -> bool:
    return arg.json or element is dict or typing.get_origin(element) is dict or (
        isinstance(element, type) and issubclass(element, BaseModel))


def _help(field: FieldInfo, arg: Arg) -> str:
    """The field's description, with its default unless the text already says it."""
    text = arg.help or field.description or ""
    default = arg.default if arg.default is not UNSET else (
        None if field.is_required() else field.get_default(call_default_factory=True))
    if default in (None, [], ()) or isinstance(default, bool) or "default" in text:
        return text
    return f"{text} (default: {default})".strip()


def _parameter(name: str, field: FieldInfo, arg: Arg) -> click.Parameter:
    element, many = _unwrap(field.annotation)
    wire = field.alias or name
    json_value = _is_json(element, arg)
    kind = click.STRING if json_value else _click_type(element)
    required = field.is_required() and arg.default is UNSET
    if arg.positional:
        default = {} if arg.default is UNSET else {"default": arg.default}
        return click.Argument([wire], nargs=-1 if many else 1, type=kind, required=required, metavar=arg.metavar,
                              **default)
    flags = list(arg.flags) or [f"--{wire.replace('_', '-')}"]
    if arg.short:
        flags.insert(0, arg.short)
    if element is bool and not many:
        if "/" not in flags[-1] and field.default is True:
            flags[-1] = f"{flags[-1]}/--no-{flags[-1].lstrip('-')}"
        if "/" in flags[-1]:
            return click.Option([*flags, wire], is_flag=True, default=None, help=_help(field, arg))
        return click.Option([*flags, wire], is_flag=True, flag_value=True, default=None, help=_help(field, arg))
    return click.Option([*flags, wire], type=kind, multiple=many, required=required,
                        default=None if arg.default is UNSET else arg.default, metavar=arg.metavar,
                        help=_help(field, arg))


def _first_flag(param: click.Parameter) -> str:
    return max(param.opts, key=len) if isinstance(param, click.Option) else param.name.upper()


def _value(param: click.Parameter, arg: Arg, element: Any, raw: Any) -> Any:
    """A parsed CLI value as the request model expects it (JSON decoded, comma lists split)."""
    values = list(raw) if isinstance(raw, tuple | list) else None
    flag = _first_flag(param)
    if _is_json(element, arg):
        decoded = []
        for number, text in enumerate(values if values is not None else [raw], 1):
            try:
                decoded.append(json.loads(text))
            except json.JSONDecodeError as exc:
                example = f", e.g. {flag} {arg.example}" if arg.example else ""
                raise InvalidInput(f"{flag} value {number} is not JSON ({exc.msg}): {text!r}. Each {flag} takes one "
                                   f"JSON value{example}") from exc
        return decoded if values is not None else decoded[0]
    if arg.split and values is not None:
        out = []
        for text in values:
            parts = [p.strip() for p in text.split(arg.split)]
            if not all(parts):
                raise InvalidInput(f"{flag} {text!r} has an empty name; separate names with "
                                   f"'{arg.split}': {flag} \"A{arg.split} B\"")
            out += parts
        return out
    return values if values is not None else raw


class ToolCommand(click.Command):
    """A generated command: refuses declared old forms and single-dash long flags before click parses;
    a command line that does not parse is reported to ``failed`` (with the ``--flag VALUE`` pairs it has)."""

    def __init__(self, *args: Any, refused: Mapping[str, str],
                 failed: Callable[[Mapping[str, Any], BaseException], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refused = refused
        self.failed = failed

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)  # click's parser consumes the list it is given
        try:
            return self._parse_args(ctx, args)
        except (GraphloreError, click.UsageError) as exc:
            self.failed(self._given(given), exc)
            raise

    def _given(self, args: list[str]) -> dict[str, str]:
        """The values of ``--flag VALUE`` / ``--flag=VALUE`` in a command line that did not parse, by field."""
        field_of = {opt: p.name for p in self.params if isinstance(p, click.Option) and not p.is_flag
                    for opt in p.opts}
        given: dict[str, str] = {}
        for i, arg in enumerate(args):
            flag, eq, value = arg.partition("=")
            if flag in field_of and (eq or i + 1 < len(args)):
                given[field_of[flag]] = value if eq else args[i + 1]
        return given

    def _parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        options = [p for p in self.params if isinstance(p, click.Option)]
        known = {opt for p in options for opt in (*p.opts, *p.secondary_opts)}
        takes_value = {opt for p in options if not p.is_flag for opt in p.opts}
        value_next = False
        for arg in args:
            if arg == "--":
                break
            if value_next:  # the value of the option before it, even when it starts with a dash
                value_next = False
                continue
            token = arg.split("=", 1)[0]
            value_next = token in takes_value and "=" not in arg
            if token in self.refused:
                raise InvalidInput(f"'{token}' is an old form and is not accepted; {self.refused[token]}")
            if token.startswith("-") and not token.startswith("--") and len(token) > 2 and token not in known \
                    and token[:2] not in known and not _is_number(token):
                # Not a short option with its value attached (-n10): a long option typed with one dash.
                hint = f"did you mean '-{token}'?" if f"-{token}" in known else \
                    f"options: {', '.join(sorted(known - {'--help'}))}"
                single = [p.make_metavar(ctx) for p in self.params if isinstance(p, click.Argument) and p.nargs == 1]
                if single and f"-{token}" not in known:  # e.g. exec search -entity X: the command unquoted
                    hint += f"; if '{token}' is part of {' or '.join(single)}, quote {single[0]} as one argument"
                raise InvalidInput(f"'{token}' is not an option of {ctx.command_path} (long options take two "
                                   f"dashes); {hint}")
        return super().parse_args(ctx, args)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def tool_command(kit: Kit, spec: ToolSpec) -> click.Command:
    fields = spec.request.model_fields
    hints = {name: spec.cli.args.get(name, spec.cli.args.get(f.alias or "", Arg())) for name, f in fields.items()}
    field_params = [_parameter(name, f, hints[name]) for name, f in fields.items()]
    unknown = set(spec.cli.args) - set(fields) - {f.alias for f in fields.values()}
    if unknown:
        raise TypeError(f"{spec.name}: CLI hints for fields the request does not have: {sorted(unknown)}")

    def failed(arguments: Mapping[str, Any], error: BaseException) -> None:
        kit.report_failure(spec, arguments, error)

    def callback(as_json: bool, **values: Any) -> None:
        request: dict[str, Any] = {}
        try:
            for param, (name, field) in zip(field_params, fields.items(), strict=True):
                raw = values.get(field.alias or name)
                if raw is None or raw == ():
                    continue
                request[field.alias or name] = _value(param, hints[name], _unwrap(field.annotation)[0], raw)
        except GraphloreError as exc:
            failed({k: v for k, v in values.items() if v is not None and v != ()}, exc)
            raise
        runtime = kit.runtime()
        progress = ProgressReport(spec.command) if spec.progress else None
        try:
            response = kit.run(spec.name, request, runtime, progress)
        finally:
            if progress is not None:
                progress.close()
            runtime.close()
        click.echo(response.model_dump_json(indent=2, by_alias=True) if as_json else spec.render(response))

    help_text = spec.cli.help or spec.description.split(". ")[0].rstrip(".") + "."
    params = [*field_params, click.Option(["--json", "as_json"], is_flag=True,
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
        toolset = load_toolset(self.name, {self.name: self.module})
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
        self._build()
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

        names = chosen(toolset, toolsets)
        settings = Settings.load()
        if transport == "http":
            from graphlore.adapters.http import check_bind, http_settings

            check_bind(host, settings.auth_token)
            settings = http_settings(settings)  # over HTTP files and folders are always confined
        runtime = Runtime(settings, watch_files=True)
        run_server([load_toolset(name, registry) for name in names], runtime, transport=transport, host=host,
                   port=port, read_only=read_only)

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
