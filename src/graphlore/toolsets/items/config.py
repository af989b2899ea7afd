"""``{project}/.agent-config.json``, read for the one number the items tools use from it.

The file belongs to the feature-management tooling, not to us: its docs show it with ``//``
comments, and its own init script writes a broken ``component_detection_keywords`` block. A
search must never be blocked by a file we read one number from, so reading is lenient:

1. strict JSON; else JSON with ``//`` and ``/* */`` comments and trailing commas (the format the
   featmgmt docs show: no warning);
2. else the top-level ``"duplicate_similarity_threshold": value`` is found by a scan that knows
   strings, brackets and comments, so a broken key elsewhere does not hide it (a warning says so);
3. else, or when the file cannot be read or is not an object, the default (a warning says so).

A threshold that is present but not a number in [0, 1] (``7``, ``"0.8"``, ``true``) is still a
:class:`ConfigError`: the project asked for something we cannot honour.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphlore.errors import ConfigError
from graphlore.roots import ESCAPES, escapes
from graphlore.toolsets.folder_index import read_file

CONFIG_FILE = ".agent-config.json"
THRESHOLD_KEY = "duplicate_similarity_threshold"
#: A config file is read up to this size (a longer one is reported and the defaults are used).
MAX_CONFIG_BYTES = 1_048_576


class ProjectConfig(BaseModel):
    """The settings we use from the file; keys it does not name belong to other tools and are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    #: fitted by cross-validation on GitBugs Hadoop duplicates with tools.TOP_MATCH (bench/items_duplicates.py --fit)
    duplicate_similarity_threshold: float = Field(default=0.94, ge=0.0, le=1.0, strict=True)


DEFAULT = ProjectConfig()


@dataclass(frozen=True)
class ConfigReading:
    """What was read, and what the caller should be told about how."""

    config: ProjectConfig
    #: how the file was read when it was not plain JSON, or why the default is used
    warnings: tuple[str, ...] = ()

    @property
    def duplicate_similarity_threshold(self) -> float:
        return self.config.duplicate_similarity_threshold


def load_project_config(project_path: str | Path, roots: tuple[Path, ...] = ()) -> ConfigReading:
    """The project's settings: defaults when the file is missing or unusable (with a warning why), or
    when it is a symlink that leads outside ``roots`` (the folders the process may read)."""
    path = Path(os.path.expanduser(str(project_path))) / CONFIG_FILE
    default = f"using the default {THRESHOLD_KEY} {DEFAULT.duplicate_similarity_threshold:g}"
    if roots and escapes(path, roots):
        return ConfigReading(DEFAULT, (f"{CONFIG_FILE}: {ESCAPES}; {default}",))
    found = read_file(path, MAX_CONFIG_BYTES)  # a regular file only: a named pipe here must not stall a tool
    if found.problem == "missing":
        return ConfigReading(DEFAULT)
    if found.problem is not None:
        return ConfigReading(DEFAULT, (f"{path}: {found.problem}; {default}",))
    try:
        text = found.data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return ConfigReading(DEFAULT, (f"{path}: not UTF-8 text; {default}",))
    try:
        data = json.loads(text)
    except RecursionError:
        return ConfigReading(DEFAULT, (f"{path}: not usable JSON (nested too deeply); {default}",))
    except json.JSONDecodeError as strict:
        try:
            data = json.loads(strip_jsonc(text))
        except (json.JSONDecodeError, RecursionError):
            return _scan(path, text, strict, default)
    if not isinstance(data, dict):
        return ConfigReading(DEFAULT, (f"{path}: expected a JSON object, got {type(data).__name__}; {default}",))
    return ConfigReading(_validate(path, data))


def _scan(path: Path, text: str, error: json.JSONDecodeError, default: str) -> ConfigReading:
    broken = f"{path}: not valid JSON ({error.msg} at line {error.lineno} column {error.colno})"
    try:
        values = top_level_values(strip_jsonc(text), THRESHOLD_KEY)
    except _Unreadable as exc:
        raise ConfigError(f"{path}: {exc}; fix it, or remove the key to use the default "
                          f"{DEFAULT.duplicate_similarity_threshold:g}") from exc
    if not values:
        return ConfigReading(DEFAULT, (f"{broken}, and no top-level {THRESHOLD_KEY} could be read from it; {default}",))
    config = _validate(path, {THRESHOLD_KEY: values[-1]})
    again = f" (given {len(values)} times: the last counts, as in JSON)" if len(values) > 1 else ""
    return ConfigReading(config, (
        f"{broken}; read {THRESHOLD_KEY} = {config.duplicate_similarity_threshold:g} from it{again} and ignored the "
        "rest; fix the file so other tools can read it too",))


def _validate(path: Path, data: dict) -> ProjectConfig:
    try:
        return ProjectConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg'].lower()}" for e in exc.errors())
        raise ConfigError(f"{path}: {problems}; {THRESHOLD_KEY} must be a number between 0 and 1; fix it, or remove "
                          f"the key to use the default {DEFAULT.duplicate_similarity_threshold:g}") from exc


class _Unreadable(ValueError):
    """The key is there but its value is not JSON."""


def strip_jsonc(text: str) -> str:
    """``text`` without ``//`` / ``/* */`` comments and without commas right before ``}`` or ``]``.

    Strings are kept byte for byte (a ``//`` inside a string is not a comment). Comments become
    spaces, so line and column numbers stay meaningful.
    """
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            end = _string_end(text, i)
            out.append(text[i:end])
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:end]))
            i = end
        elif ch == "," and _next_significant(text, i + 1) in ("}", "]"):
            out.append(" ")
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    """Index just after the string starting at ``start`` (an unterminated string runs to the line's end)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        if text[i] == "\n":
            return i
        i += 1
    return len(text)


def _next_significant(text: str, i: int) -> str:
    """The next character that is not whitespace or inside a comment ("" at the end)."""
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
        else:
            return text[i]
    return ""


def top_level_values(text: str, key: str) -> list[object]:
    """Values of ``"key": value`` at the top level of a (possibly broken) JSON object, in order.

    Brackets and strings are tracked, so the same key inside a nested object is not taken; a value
    that does not parse as JSON raises ``_Unreadable`` (the key is there, its value is broken).
    """
    decoder = json.JSONDecoder()
    values, depth, i = [], 0, 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            end = _string_end(text, i)
            if depth == 1 and text[i:end] == json.dumps(key):
                colon = _skip_space(text, end)
                if colon < len(text) and text[colon] == ":":
                    start = _skip_space(text, colon + 1)
                    where = f"line {text.count(chr(10), 0, start) + 1}"  # never the value: it may run into others
                    try:
                        value, end = decoder.raw_decode(text, start)
                    except json.JSONDecodeError as exc:
                        raise _Unreadable(f"{key} is present but its value ({where}) is not a JSON value "
                                          f"({exc.msg})") from exc
                    if _next_significant(text, end) not in (",", "}", '"', ""):  # "0.7x": not just a value
                        raise _Unreadable(f"{key} is present but its value ({where}) is not a JSON value")
                    values.append(value)
            i = end
            continue
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        i += 1
    return values


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i
