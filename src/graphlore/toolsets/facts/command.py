"""``kg_execute(command)``: the original facts server's one tool, mapped onto the typed tools.

Agents trained on that server (Vanna-Labs/vanna-financial-knowledge-graph, ``vanna_kg/mcp``) send
one command string: ``find --entity {"name":"Apple","definition":"..."}`` with raw JSON,
``search -entity "A, B" --mode between -q acquired --from 2024-10``, ``info Apple Inc``, ``help``.
This module meets them there and nowhere else:

- :func:`tokenise` splits the string exactly as that server did: the first word (lower-cased)
  is the command; ``find`` reads a raw ``{...}`` JSON object after ``--entity`` / ``--topic`` up to
  its matching brace (quotes also work), every other command is split by :func:`shlex.split`.
- Each command's words become the fields of the typed tool's request model (flags as the
  original spelled them: ``-entity``, ``-topic``, ``-q``, ``-type``), and the request is
  validated by that model, so every rule and error is the typed tool's; the answer is the typed
  tool's text rendering (:mod:`render`) with its structured output alongside.
- Forms the typed tools refuse stay refused here (``-to``, names on ``find``, JSON on ``search``),
  with the same messages; ``help`` prints the commands and the workflow find -> search -> cat -> info.
"""

from __future__ import annotations

import json
import re
import shlex
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphlore.contract import Request, Response, parse_request
from graphlore.errors import InvalidInput
from graphlore.runtime import Runtime
from graphlore.tools import CallContext
from graphlore.toolsets.facts import render, tools
from graphlore.toolsets.facts.models import (
    FIND_FORM,
    SEARCH_FORM,
    CatRequest,
    ExecuteRequest,
    ExecuteResponse,
    FindRequest,
    InfoRequest,
    LsRequest,
    SearchRequest,
    StatsRequest,
)

JSON_FLAGS = ("--entity", "--topic")  # on find, these take a raw JSON object


# -- splitting the string, as the original server did ----------------------------------------------


class CommandError(InvalidInput):
    """A command line the typed request model refused (kept apart so a refused search can end the session's)."""

    def __init__(self, command: str, words: list[str], message: str) -> None:
        super().__init__(message)
        self.command = command
        self.words = words


def tokenise(command: str) -> tuple[str, list[str]]:
    """(command name, words): ``find``'s raw JSON objects kept whole, everything else split like a shell."""
    stripped = command.strip()
    if not stripped:
        raise InvalidInput("empty command; try kg_execute(command=\"help\")")
    parts = stripped.split(maxsplit=1)
    name, rest = parts[0].lower(), parts[1] if len(parts) > 1 else ""
    if name == "find":
        return name, _find_words(rest)
    try:
        return name, shlex.split(rest)
    except ValueError as exc:  # "No closing quotation", "No escaped character"; the words roughly, for --graph
        raise CommandError(name, rest.split(), f"cannot split {command!r} into words ({exc}): close every quote") from exc


def _find_words(text: str) -> list[str]:
    """Words of ``find``'s arguments: after ``--entity`` / ``--topic`` a ``{`` starts a JSON object read to its
    matching brace (braces inside JSON strings do not count); quoted words lose their quotes (backslash escapes
    in double quotes); other words end at whitespace. Unbalanced input is taken to its end, never refused here:
    the JSON parser says what is wrong with it."""
    words: list[str] = []
    i, n = 0, len(text)
    json_next = False
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return words
        if text[i] in "\"'":
            word, i = _quoted(text, i)
        elif json_next and text[i] == "{":
            word, i = _json_object(text, i)
        else:
            start = i
            while i < n and not text[i].isspace():
                i += 1
            word = text[start:i]
        words.append(word)
        json_next = not json_next and word in JSON_FLAGS


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


# -- words to request fields ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Flag:
    field: str
    names: tuple[str, ...]
    metavar: str
    #: "one": given at most once; "append": repeatable, each a JSON value; "names": repeatable, comma-separated
    kind: str = "one"


GRAPH_FLAG = Flag("graph", ("--graph",), "NAME")


@dataclass(frozen=True)
class Command:
    name: str
    request: type[Request]
    run: Callable[..., Response]
    render: Callable[[Any], str]
    usage: str
    summary: str
    flags: tuple[Flag, ...]
    #: what bare words are: None (not accepted), "numbers", "words" (joined with spaces), "one"
    positional: tuple[str, str] | None = None
    #: flags of older interfaces -> the form that replaced them
    legacy: dict[str, str] = field(default_factory=dict)
    context: bool = False

    def flag(self, token: str) -> Flag | None:
        return next((f for f in (*self.flags, GRAPH_FLAG) if token in f.names), None)

    def fields(self, words: list[str]) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        bare: list[str] = []
        i = 0
        while i < len(words):
            word = words[i]
            if not word.startswith("-") or _is_number(word):
                bare.append(word)
                i += 1
                continue
            name, eq, inline = word.partition("=")
            if name in self.legacy:
                raise InvalidInput(f"'{name}' is an old form and is not accepted; {self.legacy[name]}")
            flag = self.flag(name)
            if flag is None:
                raise InvalidInput(f"unknown option {name!r} for {self.name}")
            if eq:
                value, i = inline, i + 1
            elif i + 1 < len(words) and self.flag(words[i + 1].partition("=")[0]) is None:
                value, i = words[i + 1], i + 2
            else:
                raise InvalidInput(f"{name} needs a value: {name} {flag.metavar}")
            self._set(fields, flag, name, value)
        if bare:
            if self.positional is None:
                raise InvalidInput(f"unexpected argument {bare[0]!r}: {self.name} takes only options")
            self._set_positional(fields, bare)
        return fields

    def _set(self, fields: dict[str, Any], flag: Flag, name: str, value: str) -> None:
        if flag.kind == "one":
            if flag.field in fields:
                raise InvalidInput(f"{name} is given twice; give it once")
            fields[flag.field] = self._typed(flag.field, value)
        elif flag.kind == "append":
            fields.setdefault(flag.field, []).append(_json_value(name, len(fields.get(flag.field, [])) + 1, value))
        else:
            names = [p.strip() for p in value.split(",")]
            if not all(names):
                raise InvalidInput(f"{name} {value!r} has an empty name; separate names with commas: {name} \"A, B\"")
            fields.setdefault(flag.field, []).extend(names)

    def _typed(self, wire: str, value: str) -> Any:
        """A command line is text: a number field gets the number its text spells (as the CLI's types do),
        before the strict request model sees it; anything else stays text, for the model to judge."""
        info = next((f for n, f in self.request.model_fields.items() if (f.alias or n) == wire), None)
        kinds = {a for a in typing.get_args(info.annotation) if a is not type(None)} if info is not None else set()
        kinds |= {info.annotation} if info is not None else set()
        if int in kinds and re.fullmatch(r"[+-]?\d+", value):
            return int(value)
        if float in kinds:
            try:
                return float(value)
            except ValueError:
                return value
        return value

    def _set_positional(self, fields: dict[str, Any], bare: list[str]) -> None:
        target, kind = self.positional
        if kind == "numbers":
            bad = [w for w in bare if not re.fullmatch(r"-?\d+", w)]
            if bad:
                raise InvalidInput(f"{self.name} takes result numbers (e.g. {self.name} 1 2), got {bad[0]!r}")
            fields[target] = [int(w) for w in bare]
        elif kind == "words":
            fields[target] = " ".join(bare)
        else:
            if len(bare) > 1:
                raise InvalidInput(f"unexpected argument {bare[1]!r}: {self.name} takes one {target}")
            fields[target] = bare[0]


def _is_number(word: str) -> bool:
    return bool(re.fullmatch(r"-\d+", word))


def _json_value(flag: str, number: int, value: str) -> Any:
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"{flag} value {number} is not JSON ({exc.msg}): {value!r}. Each {flag} takes one JSON object, e.g. "
            f'{flag} {{"name": "Apple Inc", "definition": "American technology company"}}; bare names and '
            "'name: definition' strings are not accepted"
        ) from exc


FIND_LEGACY = {
    "-entity": f"find takes JSON selectors, not names: {FIND_FORM}",
    "-topic": f"find takes JSON selectors, not names: {FIND_FORM}",
    "--entity-name": f"selectors are one JSON object each: {FIND_FORM}",
    "--entity-def": f"selectors are one JSON object each: {FIND_FORM}",
    "--topic-name": f"selectors are one JSON object each: {FIND_FORM}",
    "--topic-def": f"selectors are one JSON object each: {FIND_FORM}",
    "-to": f"find has no date filter (dates belong to search: --to-date DATE); find takes {FIND_FORM}",
    "--to": f"find has no date filter (dates belong to search: --to-date DATE); find takes {FIND_FORM}",
}
SEARCH_LEGACY = {
    "-to": "the end date is --to-date DATE (YYYY-MM-DD, YYYY-MM or YYYY)",
    "--to": "the end date is --to-date DATE (YYYY-MM-DD, YYYY-MM or YYYY)",
    "--entity": f"search takes names, aliases or ids with a single dash: {SEARCH_FORM} (JSON selectors are for find)",
    "--topic": "search takes names, aliases or ids with a single dash: -topic \"Inflation\" (JSON selectors are for "
               "find)",
}

COMMANDS = {c.name: c for c in (
    Command(
        "find", FindRequest, tools.find, render.find,
        usage='find --entity JSON [--entity JSON ...] [--topic JSON ...] [--graph NAME]',
        summary='resolve names to canonical nodes; JSON is {"name": ..., "definition": ..., "id"?: ...}, raw or quoted',
        flags=(Flag("entity", ("--entity",), "JSON", "append"), Flag("topic", ("--topic",), "JSON", "append")),
        legacy=FIND_LEGACY,
    ),
    Command(
        "search", SearchRequest, tools.search, render.search, context=True,
        usage='search -entity "A, B" [-topic "X, Y"] [--mode around|between] [-q/--query TEXT] [--from DATE] '
              '[--to-date DATE] [--limit N] [--graph NAME]',
        summary="facts around (subject or object selected) or between (both selected) the named nodes; newest first, "
                "or by relevance to the query; DATE is YYYY-MM-DD, YYYY-MM or YYYY (document dates, inclusive)",
        flags=(Flag("entity", ("-entity",), '"A, B"', "names"), Flag("topic", ("-topic",), '"X, Y"', "names"),
               Flag("mode", ("--mode",), "around|between"), Flag("query", ("-q", "--query"), "TEXT"),
               Flag("from", ("--from",), "DATE"), Flag("to_date", ("--to-date",), "DATE"),
               Flag("limit", ("--limit",), "N")),
        legacy=SEARCH_LEGACY,
    ),
    Command(
        "cat", CatRequest, tools.cat, render.cat, context=True,
        usage="cat N [N ...] [--search-id ID] [--graph NAME]",
        summary="expand results of the latest search: the fact, its chunk, its document, both ends",
        flags=(Flag("search_id", ("--search-id",), "ID"),), positional=("numbers", "numbers"),
    ),
    Command(
        "info", InfoRequest, tools.info, render.info,
        usage="info NAME [--graph NAME]",
        summary="summarise one entity or topic (canonical name, alias or id; quotes optional)",
        flags=(), positional=("name", "words"),
    ),
    Command(
        "ls", LsRequest, tools.ls, render.ls,
        usage="ls entities|topics|documents [-type/--type TYPE] [--limit N] [--offset N] [--graph NAME]",
        summary="list entities or topics (most facts first) or documents (newest first), a page at a time "
                "(--limit, --offset); --type: entities of a type",
        flags=(Flag("type", ("-type", "--type"), "TYPE"), Flag("limit", ("--limit",), "N"),
               Flag("offset", ("--offset",), "N")),
        positional=("what", "one"),
    ),
    Command(
        "stats", StatsRequest, tools.stats, render.stats,
        usage="stats [--graph NAME]", summary="totals of the graph", flags=(),
    ),
)}

HELP = "help [COMMAND]"


def help_text(words: list[str] | None = None) -> str:
    """The commands, their options, and the workflow find -> search -> cat -> info."""
    wanted = [w.lower() for w in words or []]
    unknown = [w for w in wanted if w not in COMMANDS and w != "help"]
    if unknown:
        raise InvalidInput(f"no command {unknown[0]!r}; commands: {', '.join(COMMANDS)}, help")
    shown = [COMMANDS[w] for w in wanted if w in COMMANDS] or list(COMMANDS.values())
    lines = ["kg_execute commands (each runs the typed tool of the same name and answers with its text):", ""]
    for c in shown:
        lines += [f"  {c.usage}", f"      {c.summary}"]
    if not wanted:
        lines += [f"  {HELP}", "      this text, or one command's usage", "",
                  "Every command takes --graph NAME (default: default). Quote names with spaces or commas inside "
                  "-entity / -topic; find's JSON may be raw or quoted.",
                  "",
                  "Workflow: find → search → cat → info",
                  "  1. find the nodes you mean (a name and a definition each): canonical names and ids, scored 0..1",
                  "  2. search around or between them: -entity / -topic take those names (or ids); -q ranks by "
                  "relevance; --from / --to-date filter document dates",
                  "  3. cat N reads result N of that search: its sentence, source chunk and document",
                  "  4. info NAME summarises a node: definition, aliases, most connected nodes, latest facts",
                  "around: facts touching a selected node (subject or object); between: facts with both ends selected.",
                  "The same tools are also callable directly (typed arguments): find, search, cat, info, ls, stats."]
    return "\n".join(lines)


# -- running -------------------------------------------------------------------------------------------


def parse(line: str) -> tuple[Command | None, Request | None, list[str]]:
    """(command, its typed request, words) for one command line; (None, None, words) for help.

    Pure: nothing runs and nothing is read. Errors are the typed request model's, with the
    command's usage appended.
    """
    name, words = tokenise(line)
    if name == "help":
        return None, None, words
    command = COMMANDS.get(name)
    if command is None:
        raise InvalidInput(f"unknown command {name!r}; commands: {', '.join(COMMANDS)}, help "
                           "(kg_execute(command=\"help\") shows their options)")
    try:
        return command, parse_request(command.request, command.fields(words)), words
    except InvalidInput as exc:
        raise CommandError(command.name, words, f"{exc.message} Usage: {command.usage}") from exc


def execute(runtime: Runtime, request: ExecuteRequest, context: CallContext) -> ExecuteResponse:
    """Run one command line: the typed tool's answer, or its error. A failed ``search`` (refused or failing)
    ends the session's latest search, as the adapters make the typed ``search`` do (its ``on_failure``)."""
    try:
        command, typed, words = parse(request.command)
    except CommandError as exc:
        _failed(runtime, exc.command, exc.words, context, exc)
        raise
    if command is None:
        return ExecuteResponse(command="help", text=help_text(words), result=None)
    try:
        response = command.run(runtime, typed, context=context) if command.context else command.run(runtime, typed)
    except Exception as exc:
        _failed(runtime, command.name, words, context, exc)
        raise
    return ExecuteResponse(command=command.name, text=command.render(response),
                           result=response.model_dump(mode="json", by_alias=True))


def _failed(runtime: Runtime, name: str, words: list[str], context: CallContext, error: BaseException) -> None:
    if name == "search":
        tools.search_failed(runtime, {"graph": _graph_word(words)}, context, error)


def _graph_word(words: list[str]) -> str:
    """The graph a (possibly malformed) command names (``search_failed`` ignores one that is not a valid name)."""
    graph = "default"
    for i, word in enumerate(words):
        if word == "--graph" and i + 1 < len(words):
            graph = words[i + 1]
        elif word.startswith("--graph="):
            graph = word.partition("=")[2]
    return graph
