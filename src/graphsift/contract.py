"""Strict request models and the one function that validates raw tool input.

Both adapters (MCP and CLI) call :func:`parse_request`, so an unknown field, a
wrong type or a bad value fails the same way everywhere, with a message that
names the valid fields.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from graphsift.errors import InvalidInput

M = TypeVar("M", bound=BaseModel)


class Request(BaseModel):
    """Base for every tool input: unknown fields are an error, never dropped."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


class Response(BaseModel):
    """Base for every tool output."""

    model_config = ConfigDict(extra="forbid")


def describe_fields(model: type[BaseModel]) -> str:
    parts = []
    for name, field in model.model_fields.items():
        name = field.alias or name  # what callers send (e.g. "from" for a Python field "from_")
        parts.append(name if field.is_required() else f"{name}?")
    return ", ".join(parts)


def _is_empty_text(err: dict) -> bool:
    """A non-empty text field (``min_length=1, pattern=r"\\S"``) got "" or only whitespace.

    pydantic reports these as "String should have at least 1 character" and "String should match
    pattern '\\S'"; the second reads like a regex puzzle, so both become "must not be empty".
    """
    ctx = err.get("ctx") or {}
    return ((err["type"] == "string_too_short" and ctx.get("min_length") == 1)
            or (err["type"] == "string_pattern_mismatch" and ctx.get("pattern") == r"\S"))


def format_validation_error(model: type[BaseModel], exc: ValidationError) -> str:
    """One line per problem, then the valid fields, so an agent can retry right."""
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(input)"
        if err["type"] == "extra_forbidden":
            lines.append(f"unknown field '{loc}'")
        elif err["type"] == "missing":
            lines.append(f"missing required field '{loc}'")
        elif _is_empty_text(err):
            blank = "only whitespace" if err.get("input") else "empty"
            lines.append(f"field '{loc}' must not be empty (got {blank}: {err.get('input')!r}); give some text")
        else:
            got = err.get("input")
            shown = repr(got) if not isinstance(got, dict | list) or len(repr(got)) < 80 else type(got).__name__
            lines.append(f"field '{loc}': {err['msg']} (got {shown})")
    return "; ".join(lines) + f". Valid fields: {describe_fields(model)} (? = optional)."


def parse_request(model: type[M], data: Any) -> M:
    """Validate raw input against ``model`` or raise :class:`InvalidInput`."""
    if not isinstance(data, dict):
        raise InvalidInput(f"expected an object with fields {describe_fields(model)}, got {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidInput(format_validation_error(model, exc)) from exc
