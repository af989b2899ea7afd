"""Command strings of an older interface, translated to the typed requests of a toolset's own tools.

A toolset may declare a :class:`~graphlore.tools.CommandTool` (facts: ``kg_execute(command)``, the one tool
of the original facts server, Vanna-Labs/vanna-financial-knowledge-graph). :func:`attach` adds the tool it
declares to the toolset, built here from the toolset's :class:`~graphlore.tools.ToolSpec` declarations, so
there is no second table of tools or flags:

- the first word of the string, lower-cased, names the tool; the rest is split as the original server split
  it (:func:`words`): after a flag that takes JSON (``find --entity {...}``) a raw JSON object is one word,
  read to its matching brace; a command without such flags is split like a shell;
- the words are the tool's command-line arguments, parsed by the parameters the CLI builder makes from the
  tool's request fields and :class:`~graphlore.tools.Arg` hints (:func:`graphlore.adapters.flags.fields_of`:
  the same flags, refused old forms, JSON values and comma lists; where the older interface spells a field
  otherwise, the declaration's ``grammar`` says so), then validated by the tool's request model, so every
  rule and error is the typed tool's (an error ends with the command's usage);
- the answer is the tool's text rendering, with its structured output beside it; ``help`` lists the
  commands, their usage, the toolset's guide and examples.

A call that fails is reported to the tool's ``on_failure`` (:meth:`~graphlore.tools.ToolSpec.failed`) as a
failed call of the tool itself is through MCP or the CLI, a string that does not parse included (a failed
facts ``search`` ends the session's latest search whichever way it came).
"""

from __future__ import annotations

import dataclasses
import shlex
from typing import Any

import click

from graphlore.adapters.flags import Field, ToolCommand, command_help, fields_of, request_fields, speller
from graphlore.contract import Request, Response, parse_request
from graphlore.errors import GraphloreError, InvalidInput
from graphlore.runtime import Runtime
from graphlore.tools import CallContext, Cli, CommandTool, Toolset, ToolSpec

HELP = "help"


def attach(toolset: Toolset) -> Toolset:
    """``toolset`` with the tool its :attr:`~graphlore.tools.Toolset.command_tool` declares, added last
    (unchanged when it declares none or already has it)."""
    declared = toolset.command_tool
    if declared is None or any(spec.name == declared.name for spec in toolset.tools):
        return toolset
    language = Language(toolset, declared)
    spec = ToolSpec(name=declared.name, description=declared.description, request=declared.request,
                    response=declared.response, run=language.execute, render=lambda response: response.text,
                    context=True, cli=declared.cli)
    return dataclasses.replace(toolset, tools=[*toolset.tools, spec])


# -- splitting the string, as the original server did ----------------------------------------------


def split_command(line: str) -> tuple[str, str]:
    """(the command's name, lower-cased; the rest of the line)."""
    parts = line.strip().split(maxsplit=1)
    if not parts:
        raise InvalidInput('empty command; try the command "help"')
    return parts[0].lower(), parts[1] if len(parts) > 1 else ""


def words(text: str, json_flags: frozenset[str] = frozenset()) -> list[str]:
    """The words of a command's arguments. With ``json_flags`` (its flags that take JSON) a ``{`` after one of
    them starts a JSON object read to its matching brace (braces inside JSON strings do not count), quoted
    words lose their quotes (backslash escapes in double quotes) and other words end at whitespace; unbalanced
    input is taken to its end, for the JSON parser to judge. Without, the text is split like a shell."""
    if not json_flags:
        try:
            return shlex.split(text)
        except ValueError as exc:  # "No closing quotation", "No escaped character"
            raise InvalidInput(f"cannot split {text!r} into words ({exc}): close every quote") from exc
    out: list[str] = []
    i, n = 0, len(text)
    json_next = False
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return out
        if text[i] in "\"'":
            word, i = _quoted(text, i)
        elif json_next and text[i] == "{":
            word, i = _json_object(text, i)
        else:
            start = i
            while i < n and not text[i].isspace():
                i += 1
            word = text[start:i]
        out.append(word)
        json_next = not json_next and word in json_flags


def _quoted(text: str, i: int) -> tuple[str, int]:
    quote, i, out = text[i], i + 1, []
    while i < len(text) and text[i] != quote:
        if text[i] == "\\" and quote == '"' and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out), min(i + 1, len(text))


def _json_object(text: str, i: int) -> tuple[str, int]:
    start, depth, in_string, escape = i, 0, False, False
    while i < len(text):
        ch = text[i]
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start:i + 1].strip(), i + 1
        i += 1
    return text[start:].strip(), i


# -- one command: a tool and its command-line parameters ---------------------------------------------


@dataclasses.dataclass(frozen=True)
class Command:
    spec: ToolSpec
    fields: list[Field]
    parser: ToolCommand

    @classmethod
    def of(cls, spec: ToolSpec, grammar: Cli | None = None) -> Command:
        """The command that runs ``spec``: its command line, with ``grammar``'s hints and refused forms over
        the spec's own."""
        grammar = grammar or Cli()
        fields = fields_of(spec, {**spec.cli.args, **grammar.args})
        parser = ToolCommand(spec.name, params=[f.param for f in fields], add_help_option=False,
                             refused={**spec.cli.refused, **grammar.refused}, failed=lambda arguments, error: None)
        return cls(spec, fields, parser)

    def words(self, text: str) -> list[str]:
        flags = frozenset(opt for f in self.fields if f.json and isinstance(f.param, click.Option)
                          for opt in f.param.opts)
        return words(text, flags)

    def arguments(self, words: list[str]) -> dict[str, Any]:
        """The request fields (by wire name) ``words`` give, not yet validated by the request model."""
        try:
            with self.parser.make_context(self.spec.name, list(words)) as ctx:
                return request_fields(self.fields, ctx.params, files=False)
        except click.UsageError as exc:
            raise InvalidInput(exc.format_message()) from exc

    def request(self, words: list[str]) -> tuple[Request, dict[str, Any]]:
        """The typed request ``words`` stand for, and its fields by wire name; an error names the command's
        flags (not the request's fields) and ends with the usage."""
        try:
            fields = self.arguments(words)
            return parse_request(self.spec.request, fields), fields
        except InvalidInput as exc:
            said = exc.spelled(*speller(self.fields)).rstrip(".")
            raise InvalidInput(f"{said}. Usage: {self.usage()}") from exc

    def usage(self) -> str:
        return " ".join([self.spec.name, *(_usage(f) for f in self.fields)])

    def options(self) -> list[str]:
        """One line per parameter: its form and its help (what ``help COMMAND`` lists)."""
        forms = [_form(f) for f in self.fields]
        width = max(map(len, forms), default=0)
        return [f"  {form:<{width}}  {f.help}".rstrip() for form, f in zip(forms, self.fields, strict=True)]


def _form(field: Field) -> str:
    """``-q/--query TEXT``, ``-entity NAMES``, ``N...``, ``entities|topics|documents``."""
    param = field.param
    choices = "|".join(param.type.choices) if isinstance(param.type, click.Choice) else None
    metavar = field.arg.metavar or choices or field.wire.upper()
    if isinstance(param, click.Argument):
        return metavar + ("..." if param.nargs == -1 and not field.arg.join and not metavar.endswith("...") else "")
    flags = "/".join(sorted(param.opts, key=len))
    return flags if param.is_flag else f"{flags} {metavar}"


def _usage(field: Field) -> str:
    """The parameter in a usage line: optional in brackets, repeatable followed by ``...``."""
    text = _form(field)
    if field.param.required:
        return text
    return f"[{text}]" + ("..." if isinstance(field.param, click.Option) and field.param.multiple else "")


# -- the language: every command of one toolset ------------------------------------------------------


class Language:
    """The command strings of one :class:`~graphlore.tools.CommandTool`: its commands, help, running one."""

    def __init__(self, toolset: Toolset, declared: CommandTool) -> None:
        self.declared = declared
        self.commands = {name: Command.of(toolset.tool(name), declared.grammar.get(name))
                         for name in declared.commands}

    def parse(self, line: str) -> tuple[Command | None, Request | None, list[str]]:
        """(command, its typed request, words) of a line; (None, None, words) for help. Nothing runs."""
        name, rest = split_command(line)
        if name == HELP:
            return None, None, words(rest)
        command = self.command(name)
        said = command.words(rest)
        return command, command.request(said)[0], said

    def command(self, name: str) -> Command:
        if name not in self.commands:
            raise InvalidInput(f"unknown command {name!r}; commands: {', '.join([*self.commands, HELP])} "
                               f"({self.declared.name}(command=\"help\") shows their options)")
        return self.commands[name]

    def execute(self, runtime: Runtime, request: Request, context: CallContext) -> Response:
        """Run one command line: the tool's answer (its text and structured output), or its error, which the
        tool's ``on_failure`` hears of."""
        name, rest = split_command(request.command)
        if name == HELP:
            return self.declared.response(command=HELP, text=self.help(words(rest)), result=None)
        command = self.command(name)
        spec, arguments = command.spec, command.parser.given(rest.split())
        try:
            said = command.words(rest)
            arguments = command.parser.given(said)
            typed, arguments = command.request(said)
            response = spec.call(runtime, typed, **({"context": context} if spec.context else {}))
        except Exception as exc:
            spec.failed(runtime, arguments, context, exc)
            if isinstance(exc, GraphloreError):
                exc.in_words_of(*speller(command.fields))  # the command line's flags, not the fields
            raise
        return self.declared.response(command=spec.name, text=spec.render(response),
                                      result=response.model_dump(mode="json", by_alias=True))

    def help(self, wanted: list[str] | None = None) -> str:
        """Every command's usage and one line, the guide and the examples; ``help COMMAND``: that command's
        usage, options and examples."""
        wanted = [w.lower() for w in wanted or [] if w.lower() != HELP]
        unknown = [w for w in wanted if w not in self.commands]
        if unknown:
            raise InvalidInput(f"no command {unknown[0]!r}; commands: {', '.join([*self.commands, HELP])}")
        if wanted:
            lines: list[str] = []
            for name in dict.fromkeys(wanted):
                command = self.commands[name]
                lines += [f"  {command.usage()}", f"      {command_help(command.spec)}", "", *command.options(), ""]
                lines += self._examples([name])
            return "\n".join(lines).rstrip()
        lines = [f"{self.declared.name} commands (each runs the typed tool of the same name and answers with its "
                 "text):", ""]
        for command in self.commands.values():
            lines += [f"  {command.usage()}", f"      {command_help(command.spec)}"]
        lines += [f"  {HELP} [COMMAND]", "      this text, or one command's usage, options and examples", ""]
        if self.declared.guide:
            lines += [self.declared.guide, ""]
        lines += self._examples(list(self.commands))
        return "\n".join(lines).rstrip()

    def _examples(self, names: list[str]) -> list[str]:
        shown = [e for e in self.declared.examples if e.split(maxsplit=1)[0].lower() in names]
        return ["Examples:", *(f"  {e}" for e in shown), ""] if shown else []


def language(toolset: Toolset) -> Language | None:
    """The command language ``toolset`` declares (None without one): parsing and help, for tests and docs."""
    return Language(toolset, toolset.command_tool) if toolset.command_tool is not None else None
