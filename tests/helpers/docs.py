"""Reading a toolset's ``skills/<toolset>/SKILL.md`` the way the docs tests compare it with the code.

SKILL.md documents each tool under a ``### `name` `` heading with a parameter table (parameter, type,
default, meaning) and an output table (field, type, meaning); nested fields are ``parent.child`` or
``parent[].child``. The tests read those tables and compare them with the pydantic models.
"""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

from pydantic import BaseModel

REPO = Path(__file__).resolve().parents[2]


def number(value: float) -> str:
    """A limit as SKILL.md writes it: ``200``, ``0.5``, ``1,000,000,000`` (large whole numbers grouped)."""
    return f"{int(value):,}" if float(value).is_integer() and abs(value) >= 1_000_000 else f"{value:g}"


def skill_path(toolset: str) -> Path:
    return REPO / "skills" / toolset / "SKILL.md"


def front_matter(text: str) -> dict[str, str]:
    match = re.match(r"\A---\n(.*?)\n---\n", text, re.DOTALL)
    assert match, "SKILL.md must open with YAML front matter between --- lines"
    return dict(line.split(": ", 1) for line in match.group(1).splitlines() if line.strip())


def tool_sections(text: str) -> dict[str, str]:
    """Each ``### `tool` `` section's text, up to the next heading of level 1-3."""
    parts = re.split(r"^### `([a-z_]+)`\s*$", text, flags=re.MULTILINE)
    sections = dict(zip(parts[1::2], parts[2::2], strict=True))
    return {name: re.split(r"^#{1,3} ", body, maxsplit=1, flags=re.MULTILINE)[0] for name, body in sections.items()}


def table(section: str, first_header: str) -> dict[str, list[str]]:
    """Rows of the markdown table whose first header cell is ``first_header``, keyed by the backticked name."""
    lines = section.splitlines()
    for start, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_header:
            rows = {}
            for row in lines[start + 2:]:
                if not row.startswith("|"):
                    break
                cells = [c.strip() for c in row.strip().strip("|").split("|")]
                name = re.fullmatch(r"`([^`]+)`", cells[0])
                assert name, f"first cell of {row!r} is not a backticked name"
                rows[name.group(1)] = cells[1:]
            return rows
    raise AssertionError(f"no table with a {first_header!r} column in:\n{section[:300]}")


def inner_model(annotation) -> type[BaseModel] | None:
    """The model inside ``list[Model]`` / ``Model | None`` / ``Model``, else None."""
    if typing.get_origin(annotation) is list:
        (annotation,) = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, type(int | None)):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = args[0] if len(args) == 1 else annotation
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def fields(model: type[BaseModel], prefix: str = "", stop: frozenset = frozenset()) -> dict[str, object]:
    """Every field by its wire name, nested ones as ``parent.child`` / ``parent[].child``; models in
    ``stop`` (documented once elsewhere) are not expanded."""
    out = {}
    for name, field in model.model_fields.items():
        key = prefix + (field.alias or name)
        out[key] = field
        sub = inner_model(field.annotation)
        if sub is not None and sub not in stop:
            sep = "[]." if typing.get_origin(field.annotation) is list else "."
            out |= fields(sub, key + sep, stop)
    return out


def usage_lines(text: str, toolset: str, command: str) -> list[str]:
    """Lines that show the CLI usage of ``graphlore <toolset> <command>``."""
    return [line for line in text.splitlines()
            if f"`graphlore {toolset} {command} " in line or f"`graphlore {toolset} {command}`" in line]


def _unwrapped(annotation) -> tuple[object, list]:
    """The annotation without ``Annotated`` and ``| None``, and the constraints found on the way."""
    import annotated_types  # noqa: F401 - pydantic's constraint objects
    from pydantic.fields import FieldInfo

    found: list = []
    while True:
        if typing.get_origin(annotation) is typing.Annotated:
            annotation, *extra = typing.get_args(annotation)
            for item in extra:
                found += item.metadata if isinstance(item, FieldInfo) else [item]
            continue
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if typing.get_origin(annotation) in (typing.Union, type(int | None)) and len(args) == 1:
            annotation = args[0]
            continue
        return annotation, found


def _max_length(constraints: list) -> int | None:
    import annotated_types

    return next((c.max_length for c in constraints if isinstance(c, annotated_types.MaxLen)), None)


def limit_phrases(field) -> list[str]:
    """What a type cell must say about a field's size limits: ``at most N characters`` for a string,
    ``at most N`` entries for a list, ``each at most N characters`` for a list of strings."""
    base, constraints = _unwrapped(field.annotation)
    most = _max_length([*field.metadata, *constraints])
    if typing.get_origin(base) is list:
        inner, inner_constraints = _unwrapped(typing.get_args(base)[0])
        each = _max_length(inner_constraints)
        return ([f"at most {most}"] if most else []) + (
            [f"each at most {each} characters"] if inner is str and each else [])
    return [f"at most {most} characters"] if base is str and most else []


def schema_facts(prop: dict) -> tuple[set[str], list, dict]:
    """JSON types, enum values and constraints of one property, through anyOf and array items."""
    types: set[str] = set()
    enums: list = []
    limits: dict = {}
    for option in prop.get("anyOf", [prop]):
        types.add(option.get("type", "?"))
        enums += option.get("enum", [])
        enums += option.get("items", {}).get("enum", [])
        limits.update({k: option[k] for k in ("minimum", "maximum", "minLength", "minItems") if k in option})
    limits.update({k: prop[k] for k in ("minimum", "maximum", "minLength", "minItems") if k in prop})
    return types, enums, limits


def check_parameter_row(tool: str, name: str, field, prop: dict, row: list[str], enum_listing: str = "") -> None:
    """One row of a parameter table (type, default, meaning) says what the request model's field and its
    JSON schema ``prop`` say: a meaning; ``required`` or the default; every JSON type, nullability, enum
    value and range or length limit. ``enum_listing``: for an enum too long for a type cell, the text
    of the section that lists its values (the cell or the meaning names that section instead)."""
    type_cell, default_cell, meaning = row
    assert meaning, f"{tool}.{name} has no meaning"
    if field.is_required():
        assert default_cell == "required", f"{tool}.{name} is required"
    else:
        shown = re.match(r"`([^`]+)`", default_cell)
        default = field.get_default(call_default_factory=True)
        assert shown and json.loads(shown.group(1)) == default, f"{tool}.{name} default is {default!r}"
    types, enums, limits = schema_facts(prop)
    for json_type in types - {"null"} - ({"string"} if enums else set()):  # enum values stand for "string"
        assert json_type in type_cell, f"{tool}.{name} is a {json_type}"
    assert ("null" in types) == ("null" in type_cell), f"{tool}.{name}: nullability"
    for value in enums:
        assert f"`{value}`" in (enum_listing or type_cell), f"{tool}.{name} accepts {value!r}"
    if "minimum" in limits and "maximum" in limits:
        assert f"{number(limits['minimum'])} to {number(limits['maximum'])}" in type_cell, f"{tool}.{name} range"
    elif "minimum" in limits:
        assert f"{number(limits['minimum'])} or more" in type_cell, f"{tool}.{name} minimum"
    if limits.get("minLength") == 1:
        assert "non-empty" in type_cell, f"{tool}.{name} must not be empty"
    if limits.get("minItems") == 1:
        assert "at least one" in type_cell, f"{tool}.{name} needs at least one element"
