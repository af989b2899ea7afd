"""Strict request models and the one function that validates raw tool input.

Both adapters (MCP and CLI) call :func:`parse_request`, so an unknown field, a
wrong type or a bad value fails the same way everywhere, with a message that
names the valid fields.

**Strict types.** Requests validate in pydantic's strict mode: JSON input must
carry the declared type (``"5"`` is not an integer, ``1`` and ``"true"`` are not
booleans, ``"0.5"`` is not a number; an integer is accepted where a number is
expected, as JSON does not tell them apart). The CLI converts its text to the
declared types (click's types) before it validates, so it meets the same rule.

**Limits every request obeys** (checked on the raw input before the model, so a
huge request is refused before any of it is validated; a model may set tighter
limits per field, which its JSON schema shows as ``maxLength`` / ``maxItems``):

- nesting of lists and objects: at most :data:`MAX_DEPTH` levels;
- any one string: at most :data:`MAX_STRING` characters;
- any one list or object: at most :data:`MAX_ITEMS` entries;
- the whole request: at most :data:`MAX_TOTAL` characters and entries;
- strings are Unicode text: a lone surrogate (``"\\ud800"`` in JSON, or bytes a
  shell could not decode) is refused, as it cannot be stored or sent back;
- numbers are finite (no NaN or infinity), and integers at most :data:`MAX_INTEGER` in size (what every
  JSON client holds exactly; a field of a model is bounded tighter, e.g. an offset by :data:`MAX_OFFSET`),
  so no value in a free-form object can overflow a store's integer either.

**Paths on the server's machine.** A field that names a file or folder to read is declared with
the :class:`LocalPath` marker (``Annotated[str, LocalPath("folder")]``); :func:`path_fields` finds
them, and :meth:`graphlore.tools.ToolSpec.call` confines each to the allowed roots
(:mod:`graphlore.roots`) before the tool runs, whichever adapter called it. The JSON schema shows
such a field with ``"format": "path"``.

**Errors quote little and speak plainly.** A refused value is shown by a short prefix and its size
(:func:`quote`; an object or a list is not shown), every problem is listed (up to :data:`MAX_PROBLEMS`,
then how many more), in plain words (no pydantic phrasing, no regular expression: a ``pattern`` is
declared with the rule people read, :func:`described_pattern`), and each names its place with
:func:`graphlore.errors.at`, which every surface spells in its caller's words (a field over MCP, a
flag on the command line).
"""

from __future__ import annotations

import functools
import math
import re
import sys
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, GetJsonSchemaHandler, ValidationError
from pydantic_core import CoreSchema

from graphlore.errors import InvalidInput, at, mcp_only

M = TypeVar("M", bound=BaseModel)

MAX_DEPTH = 8
MAX_STRING = 1_000_000
MAX_ITEMS = 10_000
MAX_TOTAL = 4_000_000
#: The largest integer (in size) anywhere in a request: 2**53 - 1, the exact-integer range of JSON numbers.
MAX_INTEGER = 2**53 - 1
#: The largest offset of a page (every ``offset`` field declares it in its schema).
MAX_OFFSET = 1_000_000_000
#: Problems listed in one validation error (the rest are counted).
MAX_PROBLEMS = 20
#: Characters of a refused value shown in an error.
QUOTE_CHARS = 60


class Request(BaseModel):
    """Base for every tool input: unknown fields are an error, never dropped; types are strict."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False, strict=True, allow_inf_nan=False)


class Response(BaseModel):
    """Base for every tool output."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class LocalPath:
    """Marks a request field that names a ``file`` or ``folder`` on the server's machine (see the module
    docstring): it is confined to the allowed roots before any tool reads it."""

    kind: Literal["file", "folder"]

    def __get_pydantic_json_schema__(self, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> dict[str, Any]:
        schema = handler(core_schema)
        schema["format"] = "path"
        return schema


@functools.cache
def path_fields(model: type[BaseModel]) -> dict[str, str]:
    """The fields of ``model`` marked :class:`LocalPath`: Python name -> wire name (what callers send)."""
    return {name: field.alias or name for name, field in model.model_fields.items()
            if any(isinstance(m, LocalPath) for m in field.metadata)}


def quote(value: Any, limit: int = QUOTE_CHARS) -> str:
    """A short, printable prefix of ``value`` for an error message, with its size when it was cut."""
    return _quote(value, limit).encode("utf-8", "backslashreplace").decode("utf-8")


def _quote(value: Any, limit: int) -> str:
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value):,} characters)"
    if isinstance(value, dict | list | tuple):
        text = repr(value)
        if len(text) <= limit:
            return text
        return f"{type(value).__name__} of {len(value):,} entries"
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def describe_fields(model: type[BaseModel]) -> str:
    parts = []
    for name, field in model.model_fields.items():
        name = field.alias or name  # what callers send (e.g. "from" for a Python field "from_")
        parts.append(name if field.is_required() else f"{name}?")
    return ", ".join(parts)


def _where(loc: tuple | list) -> str:
    """A place in the request as messages name it (:func:`graphlore.errors.at`; the surface spells it)."""
    return at([quote(p, 40).strip("'") if isinstance(p, str) else p for p in loc])


#: Rules people read when a value breaks a field's ``pattern`` (see :func:`described_pattern`).
_PATTERN_RULES: dict[str, str] = {}


def described_pattern(pattern: str, rule: str) -> str:
    """``pattern`` for ``Field(pattern=...)``, registered with the rule a refused value is answered with
    (``rule``, e.g. "1 to 64 lower-case letters, digits, - and _"), never with the regular expression."""
    _PATTERN_RULES[pattern] = rule
    return pattern


def _is_empty_text(err: dict) -> bool:
    """A non-empty text field (``min_length=1, pattern=r"\\S"``) got "" or only whitespace.

    pydantic reports these as "String should have at least 1 character" and "String should match
    pattern '\\S'"; the second reads like a regex puzzle, so both become "must not be empty".
    """
    ctx = err.get("ctx") or {}
    return ((err["type"] == "string_too_short" and ctx.get("min_length") == 1)
            or (err["type"] == "string_pattern_mismatch" and ctx.get("pattern") == r"\S"))


def _values(n: int) -> str:
    return f"{n:,} value" + ("" if n == 1 else "s")


def _plain(err: dict) -> str:
    """What pydantic found wrong with a value, in plain words: no "Input should", no regular expression, no
    type names of Python."""
    kind, ctx = err["type"], err.get("ctx") or {}
    bound = {"greater_than_equal": ("at least", "ge"), "greater_than": ("more than", "gt"),
             "less_than_equal": ("at most", "le"), "less_than": ("less than", "lt")}.get(kind)
    if bound:
        return f"must be {bound[0]} {ctx[bound[1]]}"
    if kind in ("literal_error", "enum"):
        return f"must be {ctx.get('expected', 'one of the valid values')}"
    if kind == "string_pattern_mismatch":
        rule = _PATTERN_RULES.get(str(ctx.get("pattern")))
        return f"must be {rule}" if rule else "does not have the form the field's description gives"
    if kind == "string_too_short":
        return f"must be at least {ctx['min_length']:,} characters long"
    if kind == "string_too_long":
        return f"must be at most {ctx['max_length']:,} characters long"
    if kind == "too_short":
        return f"must hold at least {_values(ctx['min_length'])}" + (
            f" (got {ctx['actual_length']:,})" if "actual_length" in ctx else "")
    if kind == "too_long":
        return f"must hold at most {_values(ctx['max_length'])}" + (
            f" (got {ctx['actual_length']:,})" if ctx.get("actual_length") is not None else "")
    words = {"int_type": "must be a whole number", "int_parsing": "must be a whole number",
             "int_from_float": "must be a whole number", "float_type": "must be a number",
             "float_parsing": "must be a number", "finite_number": "must be a finite number",
             "bool_type": "must be true or false", "bool_parsing": "must be true or false",
             "string_type": "must be text", "list_type": "must be a list", "dict_type": "must be an object",
             "model_type": "must be an object", "model_attributes_type": "must be an object",
             "none_required": "must be null"}
    if kind in words:
        return words[kind]
    plain = re.sub(r"^(Input|String|List|Value|Dictionary|Tuple|Set|Object) should ", "must ", err["msg"])
    return plain if plain.startswith("must ") else f": {plain}"  # a rule's own message follows its place


def _placed(where: str, problem: str) -> str:
    """``where`` followed by what is wrong with it (a rule's own message after a colon)."""
    return f"{where}{problem}" if problem.startswith(":") else f"{where} {problem}"


def _got(value: Any) -> str:
    """`` (got VALUE)`` for a short value people can read back; nothing for an object or a list."""
    if isinstance(value, dict | list | tuple):
        return ""
    return f" (got {quote(value)})"


def _field_loc(model: type[BaseModel], loc: tuple | list) -> tuple:
    """``loc`` as the caller sent it: field names, keys and list indexes, without the names pydantic adds for
    the members of a union it tried (``dict[str,any]``, ``constrained-str``, a model's class name)."""
    kept: list = []
    annotation: Any = model
    for part in loc:
        members = _union_members(annotation)
        if members is not None:  # ``part`` names a member: drop it, go on in that member if it is known
            annotation = _member_named(members, part)
            continue
        kept.append(part)
        annotation = _child(annotation, part)
    return tuple(kept)


def _unwrapped(annotation: Any) -> Any:
    """``annotation`` without ``Annotated`` and without ``None`` in a union of it and one type."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if _is_union(annotation) and len(args) == 1:
        return _unwrapped(args[0])
    return annotation


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _union_members(annotation: Any) -> list | None:
    """The members (not None) of a union of two types or more, whose errors pydantic places under their names."""
    annotation = _unwrapped(annotation)
    if not _is_union(annotation):
        return None
    return [a for a in typing.get_args(annotation) if a is not type(None)]


def _member_named(members: list, name: Any) -> Any:
    """The member of a union that pydantic calls ``name`` as far as it can be told (None: unknown)."""
    for member in members:
        member = _unwrapped(member)
        if isinstance(member, type) and issubclass(member, BaseModel):
            if member.__name__ == name:
                return member
            continue
        origin = typing.get_origin(member) or member
        label = getattr(origin, "__name__", None)
        if isinstance(name, str) and label and (name == label or name.startswith(f"{label}[")):
            return member
    return None


def _child(annotation: Any, part: Any) -> Any:
    """The annotation of ``part`` (a field, a key, an index) inside a value of ``annotation`` (None: unknown)."""
    annotation = _unwrapped(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        fields = {f.alias or n: f for n, f in annotation.model_fields.items()}
        return fields[part].annotation if part in fields else None
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (list, set, frozenset) and args and isinstance(part, int):
        return args[0]
    if origin is tuple and args and isinstance(part, int):
        return args[0] if len(args) == 2 and args[1] is Ellipsis else (args[part] if part < len(args) else None)
    if origin is dict and len(args) == 2:
        return args[1]
    return None


def _model_at(model: type[BaseModel], loc: tuple | list) -> type[BaseModel] | None:
    """The model of the object at ``loc`` inside ``model`` (list indexes skipped), or None."""
    for part in loc:
        if isinstance(part, int):
            continue
        fields = {f.alias or n: f for n, f in model.model_fields.items()}
        if part not in fields:
            return None
        inner = _inner_model(fields[part].annotation)
        if inner is None:
            return None
        model = inner
    return model


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    args = [annotation]
    while args:
        candidate = args.pop()
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
        args += typing.get_args(candidate)
    return None


def format_validation_error(model: type[BaseModel], exc: ValidationError, quote_input: bool = True,
                            valid_fields: bool = True) -> str:
    """Every problem (up to :data:`MAX_PROBLEMS`, then how many more), each naming its place with
    :func:`graphlore.errors.at` (spelled by the surface: a field over MCP, a flag on the CLI), then, for MCP
    callers, the valid fields (unless ``valid_fields=False``). ``quote_input=False``: for values read from a
    file, which are never shown (only where and what is wrong)."""
    lines: list[str] = []
    merged: dict[tuple[str, str], int] = {}  # (place, got) -> its line's index: one "must be A or B" per place
    errors = exc.errors()
    for err in errors[:MAX_PROBLEMS]:
        loc = _field_loc(model, err["loc"])
        where = _where(loc)
        if err["type"] == "extra_forbidden":
            parent = _model_at(model, loc[:-1])
            valid = f" (valid: {describe_fields(parent)})" if parent is not None and parent is not model else ""
            lines.append(f"unknown {where}{valid}")
        elif err["type"] == "missing":
            lines.append(f"missing required {where}")
        elif err["type"] in ("value_error", "assertion_error"):
            # a rule of ours: its message says what is wrong and quotes what it needs (never the whole input)
            error = (err.get("ctx") or {}).get("error")
            message = str(error) if error is not None and quote_input else "its value breaks the field's rules"
            lines.append(f"{where}: {message}" if loc else message)
        elif not quote_input:
            lines.append(_placed(where, _plain(err)))
        elif _is_empty_text(err):
            blank = "only whitespace" if err.get("input") else "empty"
            lines.append(f"{where} must not be empty (got {blank}: {quote(err.get('input'))}); give some text")
        else:
            problem, got = _plain(err), _got(err.get("input"))
            same = merged.get((where, got)) if problem.startswith("must be ") else None
            if same is not None:  # a union: what each member needs, in one problem
                lines[same] = lines[same].removesuffix(got) + problem.replace("must be", " or", 1) + got
            else:
                if problem.startswith("must be "):
                    merged[(where, got)] = len(lines)
                lines.append(_placed(where, problem + got))
    if len(errors) > MAX_PROBLEMS:
        lines.append(f"and {len(errors) - MAX_PROBLEMS} more problems")
    valid = mcp_only(f". Valid fields: {describe_fields(model)} (? = optional).") if valid_fields else ""
    return "; ".join(lines) + valid


def _surrogate(text: str) -> int:
    """Index of the first lone surrogate in ``text``, or -1."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return -1


def check_input(data: Any) -> str | None:
    """Enforce the limits every request obeys (see the module docstring) on raw input, without recursion.

    An integer past :data:`MAX_INTEGER` is not refused here but returned (what to say about the first one):
    :func:`parse_request` refuses it after the model, whose message states a declared field's own range.
    """
    total = 0
    huge: str | None = None
    stack: list[tuple[Any, tuple, int]] = [(data, (), 0)]
    while stack:
        value, loc, depth = stack.pop()
        where = _where(loc)
        if isinstance(value, str):
            if len(value) > MAX_STRING:
                raise InvalidInput(f"{where} holds {len(value):,} characters; a string holds at most "
                                   f"{MAX_STRING:,}")
            bad = _surrogate(value)
            if bad >= 0:
                raise InvalidInput(f"{where} is not valid Unicode text: a lone surrogate "
                                   f"(U+{ord(value[bad]):04X}) at character {bad}; send UTF-8 text")
            total += len(value)
        elif isinstance(value, float) and not math.isfinite(value):
            raise InvalidInput(f"{where} is {value}; numbers must be finite")
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INTEGER and huge is None:
            huge = f"{where} is {quote(value, 30)}; an integer is at most {MAX_INTEGER:,} in size"
        elif isinstance(value, dict | list | tuple):
            if depth >= MAX_DEPTH:
                raise InvalidInput(f"{where} nests lists and objects more than {MAX_DEPTH} levels deep")
            if len(value) > MAX_ITEMS:
                raise InvalidInput(f"{where} holds {len(value):,} entries; a list or object holds at most "
                                   f"{MAX_ITEMS:,}")
            total += len(value)
            if isinstance(value, dict):
                for key, inner in value.items():
                    if isinstance(key, str):
                        stack.append((key, loc, depth + 1))  # keys are text too
                    stack.append((inner, (*loc, key), depth + 1))
            else:
                stack.extend((inner, (*loc, i), depth + 1) for i, inner in enumerate(value))
        if total > MAX_TOTAL:
            raise InvalidInput(f"the request holds more than {MAX_TOTAL:,} characters and entries; send less "
                               "per call")
    return huge


def parse_request(model: type[M], data: Any) -> M:
    """Validate raw input against ``model`` (strict types, the limits above) or raise :class:`InvalidInput`."""
    if not isinstance(data, dict):
        got = {list: "a list", str: "text", bool: "true or false", int: "a number", float: "a number"}.get(
            type(data), "null" if data is None else "another value")
        raise InvalidInput(f"expected an object with fields {describe_fields(model)}, got {got}")
    huge = check_input(data)
    try:
        request = model.model_validate(data)
    except ValidationError as exc:
        raise InvalidInput(format_validation_error(model, exc)) from exc
    if huge is not None:  # in a free-form value the model let through (e.g. a filter's)
        raise InvalidInput(huge)
    return request


def json_text(flag: str, text: str) -> str:
    """The JSON text of a command-line value: ``@FILE`` reads the file (``@-``: standard input); so does a value
    that cannot start JSON (not ``{``, ``[`` or ``"``) and names an existing file (``--skill playbook.json``);
    anything else is the text."""
    if not text.startswith("@"):
        name = text.strip()
        if not name or name[0] in '{["' or not Path(name).expanduser().is_file():
            return text
        text = "@" + name
    name = text[1:]
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"{flag} {text}: cannot read {name!r} ({exc.strerror or type(exc).__name__}); give "
                           "@FILE with a JSON file, or the JSON itself") from exc
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{flag} {text}: {name!r} is not UTF-8 text (byte {exc.start + 1})") from exc
