"""A tool's request fields as command-line parameters: what the CLI and the command strings both parse.

:func:`fields_of` turns each request field of a :class:`~graphlore.tools.ToolSpec` into a click parameter
(``--field-name``, refined by the spec's :class:`~graphlore.tools.Arg` hints: positional, flags, JSON values,
comma lists, words joined); :func:`request_fields` turns the parsed values back into the request's fields
(by wire name, for the request model to validate); :class:`ToolCommand` refuses a spec's declared old forms,
long options typed with one dash and an option given twice before click parses. The CLI builder
(:mod:`graphlore.adapters.cli`) and the command-string translation (:mod:`graphlore.adapters.command`) read
the same parameters, so a flag means the same in both.

**The conventions every command follows** (the builder applies them to every field of every tool, present
and future; ``tests/adapters/test_cli.py`` walks the whole command tree to hold them):

- long options have two dashes; ``-h`` is ``--help``; a list field is one repeatable option;
- the fields in :data:`CONVENTIONAL` have one flag everywhere (``-p/--project PATH`` for the folder a
  command works on, ``-n/--limit N`` for how many results), and a flag name means one kind of value in
  every command;
- every JSON value, and every value of a field with a grammar of its own (:attr:`Arg.parse`), may be given as
  ``@FILE`` (the file's text; ``@-``: standard input); the file is read here, before the parser sees the
  text, and only on the command line: a command string sent over MCP never names a file to read (its
  ``@FILE`` is refused, and a value that happens to name a file is the value itself);
- errors name flags, not request fields (:func:`speller`: a message's field references are spelled as this
  command's flags);
- every command's help ends with ``Examples:``: a tool's from its :class:`~graphlore.tools.Cli`, any other
  command's and group's from ``examples=`` (:class:`Documented`, :class:`DocumentedGroup`; a toolset's group
  shows its commands' first ones); ``tests/adapters/test_cli.py`` requires them and runs every one that
  needs no server or LLM.
"""

from __future__ import annotations

import json
import shlex
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import click
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from graphlore.contract import json_text, quote
from graphlore.errors import AtSpeller, GraphloreError, InvalidInput, RefSpeller
from graphlore.tools import UNSET, Arg, ToolSpec


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


def _help(field: FieldInfo, arg: Arg, repeat: str = "") -> str:
    """The field's description, with its default unless the text already says it; for a list, how to give
    several (``repeat``: the flag)."""
    text = arg.help or field.description or ""
    if repeat:
        split = f" or separate them with '{arg.split}'" if arg.split else ""
        text = f"{text.rstrip()} One value per {repeat}: repeat {repeat} for several{split}.".strip()
    default = arg.default if arg.default is not UNSET else (
        None if field.is_required() else field.get_default(call_default_factory=True))
    if default in (None, [], ()) or isinstance(default, bool) or "default" in text:
        return text
    return f"{text} (default: {default})".strip()


#: Request fields whose flags are the same in every command (the CLI convention): one flag, one kind of value.
CONVENTIONAL: Mapping[str, tuple[str, ...]] = {
    "project_path": ("-p", "--project"),
    "limit": ("-n", "--limit"),
    "offset": ("--offset",),
}


def _parameter(name: str, field: FieldInfo, arg: Arg) -> click.Parameter:
    element, many = _unwrap(field.annotation)
    wire = field.alias or name
    json_value = _is_json(element, arg)
    kind = click.STRING if json_value else _click_type(element)
    required = field.is_required() and arg.default is UNSET
    if arg.positional:
        default = {} if arg.default is UNSET else {"default": arg.default}
        return click.Argument([wire], nargs=-1 if many or arg.join else 1, type=kind, required=required,
                              metavar=arg.metavar, **default)
    flags = list(arg.flags or CONVENTIONAL.get(wire, ())) or [f"--{wire.replace('_', '-')}"]
    if arg.short and arg.short not in flags:
        flags.insert(0, arg.short)
    if element is bool and not many:
        if "/" not in flags[-1] and field.default is True:
            flags[-1] = f"{flags[-1]}/--no-{flags[-1].lstrip('-')}"
        if "/" in flags[-1]:
            return click.Option([*flags, wire], is_flag=True, default=None, help=_help(field, arg))
        return click.Option([*flags, wire], is_flag=True, flag_value=True, default=None, help=_help(field, arg))
    return click.Option([*flags, wire], type=kind, multiple=many, required=required,
                        default=None if arg.default is UNSET else arg.default, metavar=arg.metavar,
                        help=_help(field, arg, repeat=flags[0] if many and not json_value else ""))


def _first_flag(param: click.Parameter) -> str:
    return max(param.opts, key=len) if isinstance(param, click.Option) else param.name.upper()


def _value(param: click.Parameter, arg: Arg, element: Any, raw: Any, files: bool = True) -> Any:
    """A parsed CLI value as the request model expects it (JSON decoded, comma lists split, words joined)."""
    if arg.join:
        return " ".join(raw)
    values = list(raw) if isinstance(raw, tuple | list) else None
    flag = _first_flag(param)
    if arg.parse is not None:  # the file of an @FILE is read here, never by the parser (see request_fields)
        texts = [json_text(flag, text) if files else text for text in (values if values is not None else [raw])]
        parsed = [arg.parse(flag, text) for text in texts]
        return parsed if values is not None else parsed[0]
    if arg.metavar == "JSON" and not _is_json(element, arg):  # JSON text the request model decodes itself
        texts = [json_text(flag, text) if files else text for text in (values if values is not None else [raw])]
        return texts if values is not None else texts[0]
    if _is_json(element, arg):
        decoded = []
        for number, given in enumerate(values if values is not None else [raw], 1):
            text = json_text(flag, given) if files else given
            try:
                decoded.append(json.loads(text))
            except json.JSONDecodeError as exc:
                example = f", e.g. {flag} {arg.example}" if arg.example else ""
                read = given != text  # the text of a file
                source = f"the file {given.lstrip('@')!r}" if read else repr(quote(text, 60).strip("'"))
                which = f" value {number}" if values is not None and len(values) > 1 else ""
                nofile = "" if read or text.strip()[:1] in '{["' or not files else "; no file has that name either"
                raise InvalidInput(f"{flag}{which} is not JSON ({exc.msg}, line {exc.lineno} column {exc.colno} "
                                   f"of {source}){nofile}. Each {flag} takes one JSON value, or a file holding one "
                                   f"(FILE or @FILE){example}") from exc
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


@dataclass(frozen=True)
class Field:
    """One request field on the command line: its name, declaration, hint and the click parameter it is."""

    name: str
    info: FieldInfo
    arg: Arg
    param: click.Parameter

    @property
    def wire(self) -> str:
        return self.info.alias or self.name

    @property
    def help(self) -> str:
        """The field's help on the command line: its description, with its default."""
        return _help(self.info, self.arg)

    @property
    def json(self) -> bool:
        """Each value is JSON text (an object, or a model)."""
        return _is_json(_unwrap(self.info.annotation)[0], self.arg)

    @property
    def flag(self) -> str:
        """How the command line names the field: its long flag (``--limit``), or its metavar (``QUERY``)."""
        param = self.param
        if isinstance(param, click.Option):
            return max(param.opts, key=len)
        return self.arg.metavar or self.wire.upper()


def speller(fields: Sequence[Field]) -> tuple[RefSpeller, AtSpeller]:
    """How a message names the request fields on this command line (see :func:`graphlore.errors.spell`):
    ``--limit`` (with the flag's own example value when asked for one), a place inside a value as ``field
    'title' in --skill`` or ``--entity value 2``."""
    by_wire = {f.wire: f for f in fields}

    def field(name: str, example: str | None) -> str:
        known = by_wire.get(name)
        if known is None:
            return name
        return f"{known.flag} {known.arg.example}" if example is not None and known.arg.example else known.flag

    def place(loc: str) -> str:
        first, _, rest = loc.partition(".")
        known = by_wire.get(first)
        if known is None:
            return f"field '{loc}'" if loc else "the command line"
        name, parts = known.flag, rest.split(".") if rest else []
        if parts and parts[0].isdigit():
            index = int(parts.pop(0))
            name = f"{name} value {index + 1}"
        return f"field '{'.'.join(parts)}' in {name}" if parts else name

    return field, place


def fields_of(spec: ToolSpec, args: Mapping[str, Arg] | None = None) -> list[Field]:
    """The request fields of ``spec`` as command-line parameters, refined by its :class:`Arg` hints (or by
    ``args``, e.g. those of an older interface)."""
    args = spec.cli.args if args is None else args
    fields = spec.request.model_fields
    unknown = set(args) - set(fields) - {f.alias for f in fields.values()}
    if unknown:
        raise TypeError(f"{spec.name}: CLI hints for fields the request does not have: {sorted(unknown)}")
    out = []
    for name, info in fields.items():
        arg = args.get(name, args.get(info.alias or "", Arg()))
        out.append(Field(name, info, arg, _parameter(name, info, arg)))
    return out


def request_fields(fields: list[Field], values: Mapping[str, Any], files: bool = True) -> dict[str, Any]:
    """click's parsed ``values`` (by parameter name) as the request's fields by wire name: JSON decoded, lists
    split, words joined, unset ones left out (so the model's defaults apply). ``files=False`` (a command string
    sent over MCP): a JSON value is never read from ``@FILE`` (the caller is not on this machine)."""
    request: dict[str, Any] = {}
    for field in fields:
        raw = values.get(field.wire)
        if raw is None or raw == ():
            continue
        if not files and (field.json or field.arg.parse is not None):
            texts = raw if isinstance(raw, tuple | list) else [raw]
            if any(isinstance(t, str) and t.startswith("@") for t in texts):
                what = "JSON" if field.json else "value"
                raise InvalidInput(f"{field.flag} takes the {what} itself here (@FILE is read only by the command "
                                   "line on your machine)")
        request[field.wire] = _value(field.param, field.arg, _unwrap(field.info.annotation)[0], raw, files)
    return request


#: Usual other spellings of conventional flags, accepted as the command's own (``--project-path``: the field's
#: name over MCP).
ALIASES: Mapping[str, str] = {"--project-path": "--project", "--to-date": "--to", "--service": "--microservice",
                              "--mention": "--mentions"}

#: ``-h`` is ``--help`` in every command (set on the root group; its commands inherit it).
HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}


def write_examples(formatter: click.HelpFormatter, examples: Sequence[str]) -> None:
    """The ``Examples:`` section of a help text: each command on a line of its own, never rewrapped."""
    if not examples:
        return
    with formatter.section("Examples"):
        for line in examples:
            formatter.write(f"{'':>{formatter.current_indent}}{line}\n")


class Documented(click.Command):
    """A command whose help ends with ``Examples:`` (``examples=``: command lines a test runs)."""

    def __init__(self, *args: Any, examples: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.examples = tuple(examples)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        write_examples(formatter, self.examples)


class DocumentedGroup(click.Group):
    """A group whose help ends with ``Examples:`` (``examples=``, or :meth:`group_examples` of a subclass)."""

    def __init__(self, *args: Any, examples: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.examples = tuple(examples)

    def group_examples(self) -> Sequence[str]:
        return self.examples

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        write_examples(formatter, self.group_examples())


#: Words of the commands that build what the others read (an index, a graph, a library): a group's examples
#: show them first.
BUILDS = ("index", "ingest", "create", "import")


def first_examples(commands: Sequence[click.Command], count: int = 3) -> list[str]:
    """A group's examples: the first example of its commands, those that build first, at most ``count``."""
    shown = [c.examples[0] for c in commands if getattr(c, "examples", ())]
    return sorted(shown, key=lambda line: not any(f" {word} " in f"{line} " for word in BUILDS))[:count]


class ToolCommand(Documented):
    """A generated command: refuses declared old forms, single-dash long flags, an option given twice and
    a folder given as an argument to a command that takes ``-p/--project`` before click parses; a command
    line that does not parse is reported to ``failed`` (with the ``--flag VALUE`` pairs it has)."""

    def __init__(self, *args: Any, refused: Mapping[str, str],
                 failed: Callable[[Mapping[str, Any], BaseException], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refused = refused
        self.failed = failed

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        args = self.spelled_as_ours(args)
        given = list(args)  # click's parser consumes the list it is given
        try:
            return self._parse_args(ctx, args)
        except (GraphloreError, click.UsageError) as exc:
            self.failed(self.given(given), exc)
            raise

    def spelled_as_ours(self, args: list[str]) -> list[str]:
        """``args`` with the usual other spellings of this command's flags (:data:`ALIASES`) as its own."""
        known = {opt for p in self.params if isinstance(p, click.Option) for opt in p.opts}
        out = []
        for arg in args:
            if arg == "--":
                return out + args[len(out):]
            flag, eq, value = arg.partition("=")
            ours = ALIASES.get(flag)
            out.append(f"{ours}{eq}{value}" if ours in known and flag not in known else arg)
        return out

    def given(self, args: list[str]) -> dict[str, str]:
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
        once = {opt: p for p in options if not p.is_flag and not p.multiple for opt in p.opts}
        seen: dict[str, str] = {}
        value_next = False
        words: list[str] = []
        for arg in args:
            if arg == "--":
                break
            if value_next:  # the value of the option before it, even when it starts with a dash
                value_next = False
                continue
            if not arg.startswith("-") or arg == "-":
                words.append(arg)
                continue
            token = arg.split("=", 1)[0]
            value_next = token in takes_value and "=" not in arg
            if token in self.refused:
                raise InvalidInput(f"'{token}' is an old form and is not accepted; {self.refused[token]}")
            if token in once:  # click would keep the last value and drop the others without a word
                name = once[token].name
                if name in seen:
                    again = "given twice" if seen[name] == token else f"given twice (as {seen[name]} and {token})"
                    raise InvalidInput(f"{token} is {again}; give it once")
                seen[name] = token
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
        if words and "--project" in known and not any(isinstance(p, click.Argument) for p in self.params):
            raise InvalidInput(f"{ctx.command_path} takes no arguments, and the folder it works on is given with "
                               f"-p/--project (default: the current folder): {ctx.command_path} -p "
                               f"{shlex.quote(words[0])}")
        return super().parse_args(ctx, args)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def command_help(spec: ToolSpec) -> str:
    """The command's one line: its declared help, or the first sentence of the tool's description."""
    return spec.cli.help or spec.description.split(". ")[0].rstrip(".") + "."
