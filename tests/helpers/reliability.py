"""The reliability suite's machinery, shared by the fast tests and ``bench/reliability.py``.

Everything here is driven by the declarations: every tool of every toolset in
:data:`graphlore.toolsets.TOOLSETS` is called, its request model says which fields exist and what
types they hold, and the toolset's optional :attr:`~graphlore.tools.Toolset.examples` hook gives valid
calls against a small state it builds (a folder to point at, a store with data). A new toolset is
fuzzed without editing this file; with an ``examples`` hook its calls also get past validation.

- :func:`cases`: a hypothesis strategy of ``(tool, arguments)``: a valid example as it is, or mutated
  at one place (the top level or deep inside) with a wrong type, a nasty string (unicode edge cases,
  path-like text, huge text), an extreme number, a deep or huge structure; an unknown field added; a
  field dropped; every integer field of the request model (nested ones included) set to a huge integer
  (:func:`huge_integer_calls`); or a random JSON object.
- :class:`Oracle`: judges one call. Every call returns within ``timeout_s`` a result or an error whose
  text is ``[code] message`` of a known code (never ``internal_error``, never traceback text, never a
  message past the cap) and whose structured content is the same, ``{"error": {"code", "message"}}``;
  a successful result validates against the response model; a refused call and a successful read-only
  call change nothing under the data folder (row digests before/after).
"""

from __future__ import annotations

import functools
import json
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from graphlore.contract import MAX_DEPTH, MAX_ITEMS, MAX_STRING
from graphlore.errors import MAX_MESSAGE, GraphloreError
from graphlore.tools import Toolset, ToolSpec
from helpers.stores import home_state

#: Every code a tool error may carry, read from the error tree (internal_error is a bug: a failure here).
CODES = {cls.code for cls in GraphloreError.__subclasses__()} - {"internal_error"}
_ERROR = re.compile(r"^\[([a-z_]+)\] ")
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+")


def deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


WRONG_TYPES: list[Any] = [None, True, False, 0, 1, -1, 0.5, "", "x", "true", "1", "0.5", [], [1], ["1"], [None],
                          {}, {"a": 1}, [{}], [[]]]
NUMBERS: list[Any] = [0, -1, 1, -0.0, 0.5, 1.5, 2**31, -(2**31), 2**53 + 1, 2**63, -(2**63), 2**64, 10**100,
                      1e308, -1e308, 5e-324, 1e-7]
UNICODE: list[str] = ["", " ", "\t\n\r", "\x00", "a\x00b", "\u202eevil", "e\u0301", "🙂" * 8, "\ufeff", "\u2028",
                      "Ａｐｐｌｅ", "\U0010ffff", "ǅ", "İstanbul", "東京都", "Москва", "दिल्ली", "\u200b", "null",
                      "'; DROP TABLE nodes; --", "%s%n", "${HOME}", "$(reboot)", "<script>", "a" * 300]
PATHS: list[str] = ["/", ".", "..", "../../../../etc/passwd", "/dev/zero", "/dev/null", "/dev/stdin",
                    "/proc/self/fd/0", "~", "~root", "/tmp/" + "a" * 300, "a/" * 3000, "C:\\Windows\\System32",
                    "\\\\server\\share", "file:///etc/passwd", "http://127.0.0.1:1/", "/nonexistent/x", "-p",
                    "--force", "*", "bugs/../..", "/etc/passwd\x00.json"]
#: Large values: past the contract's limits, and just inside them.
HUGE: list[Any] = ["x" * (MAX_STRING + 1), "y" * 200_000, list(range(MAX_ITEMS + 1)), [0] * 5000,
                   deep(MAX_DEPTH + 1), deep(60), {f"k{i}": i for i in range(2000)}, ["z" * 1000] * 500]
SURROGATES: list[str] = ["\ud800", "a\udfffb", "caf\udce9"]
#: Integers past every field's range and past what a store holds (SQLite and PostgreSQL: 64 bits).
HUGE_INTEGERS: list[int] = [2**53, 2**63, -(2**63) - 1, 10**29, 10**100]


def integer_places(schema: dict) -> list[tuple]:
    """Where a request schema holds integers: ``("offset",)``, ``("numbers", 0)``, ``("facts", 0, "chunk")``
    (a list's first entry stands for every entry)."""
    defs = schema.get("$defs", {})
    out: list[tuple] = []

    def walk(node: dict, here: tuple, seen: frozenset) -> None:
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name not in seen:
                walk(defs[name], here, seen | {name})
            return
        for option in node.get("anyOf", []) + node.get("allOf", []) + node.get("oneOf", []):
            walk(option, here, seen)
        if node.get("type") == "integer" and here not in out:
            out.append(here)
        if node.get("type") == "array":
            walk(node.get("items", {}), (*here, 0), seen)
        for name, inner in node.get("properties", {}).items():
            walk(inner, (*here, name), seen)

    walk(schema, (), frozenset())
    return out


def _put(value: Any, path: tuple, new: Any) -> Any:
    """``value`` with ``new`` at ``path``, making a missing field or list entry where it is the last step;
    None when the place needs an object the value does not have."""
    if not path:
        return new
    step, rest = path[0], path[1:]
    if isinstance(step, int):
        entries = list(value) if isinstance(value, list) else []
        if not entries:
            return [new] if not rest else None
        inner = _put(entries[0], rest, new)
        return None if inner is None else [inner, *entries[1:]]
    fields = dict(value) if isinstance(value, dict) else {}
    if step not in fields and rest and not isinstance(rest[0], int):
        return None
    inner = _put(fields.get(step), rest, new)
    return None if inner is None else {**fields, step: inner}


def huge_integer_calls(spec: ToolSpec, examples: Sequence[dict]) -> list[tuple[tuple, dict]]:
    """``(place, arguments)``: each valid example (or ``{}``) with one integer field of the request model set
    to each of :data:`HUGE_INTEGERS`, for every integer field the example can hold."""
    out = []
    for place in integer_places(spec.request.model_json_schema(by_alias=True)):
        for example in examples or [{}]:
            for value in HUGE_INTEGERS:
                arguments = _put(example, place, value)
                if arguments is not None:
                    out.append((place, arguments))
    return out


def _json_values(surrogates: bool) -> st.SearchStrategy[Any]:
    characters = st.characters() if surrogates else st.characters(exclude_categories=("Cs",))
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                        st.text(characters, max_size=40))
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(characters, max_size=10), inner, max_size=5)),
        max_leaves=12)


def _paths(value: Any, here: tuple = ()) -> list[tuple]:
    """Every place inside a JSON value (the value itself first)."""
    out = [here]
    if isinstance(value, dict):
        for key, inner in value.items():
            out += _paths(inner, (*here, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            out += _paths(inner, (*here, i))
    return out


def _get(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


def _set(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _set(copy[path[0]], path[1:], new)
    return copy


def _like(old: Any, surrogates: bool) -> st.SearchStrategy[Any]:
    """A random value of the same JSON type as ``old`` (valid types, other values)."""
    characters = st.characters() if surrogates else st.characters(exclude_categories=("Cs",))
    if isinstance(old, bool):
        return st.booleans()
    if isinstance(old, int):
        return st.integers()
    if isinstance(old, float):
        return st.floats(allow_nan=False, allow_infinity=False)
    if isinstance(old, str):
        return st.one_of(st.text(characters, max_size=80), st.just(old * 3), st.just(old.upper()))
    if isinstance(old, list):
        return st.lists(st.sampled_from(old) if old else _json_values(surrogates), max_size=12)
    return _json_values(surrogates)


def _replacement(old: Any, extra: Sequence[Any], surrogates: bool) -> st.SearchStrategy[Any]:
    nasty = WRONG_TYPES + NUMBERS + UNICODE + PATHS + list(extra) + (SURROGATES if surrogates else [])
    return st.one_of(
        st.sampled_from(nasty),
        _like(old, surrogates),
        _like(old, surrogates),
        _json_values(surrogates),
        st.sampled_from(HUGE),
    )


def cases(toolsets: Sequence[Toolset], examples: Mapping[str, Mapping[str, Sequence[dict]]],
          extra_values: Sequence[Any] = (), surrogates: bool = False,
          surface: str = "mcp") -> st.SearchStrategy[tuple[str, str, dict]]:
    """``(toolset, tool, arguments)`` for every tool of ``toolsets`` offered on ``surface``.

    ``examples[toolset][tool]`` are valid calls (from the toolset's hook); ``extra_values`` are values
    worth trying anywhere (e.g. paths of FIFOs and symlink loops made for the run); ``surrogates``
    allows lone surrogates (in-memory clients only: a JSON client cannot encode them).
    """
    per_tool = []
    for toolset in toolsets:
        for spec in toolset.on(surface):
            valid = list(examples.get(toolset.name, {}).get(spec.name, [])) or [{}]
            wire = [f.alias or n for n, f in spec.request.model_fields.items()]
            unknown_names = st.one_of(st.sampled_from(["extra", "project", "Query", "force ", "__proto__", "limit2",
                                                       "from_", "entity_name", "x" * 5000, ""]),
                                      st.text(max_size=12)).filter(lambda name, wire=wire: name not in wire)
            # Built once per tool (hypothesis draws from fixed strategies much faster than from flatmap).
            variants: list[st.SearchStrategy[dict]] = [st.sampled_from(valid)]
            for example in valid:
                places = _paths(example)[1:] or [()]
                variants.append(st.one_of([
                    _replacement(_get(example, place), extra_values, surrogates).map(
                        functools.partial(_set, example, place)) for place in places]))
                variants.append(st.tuples(unknown_names, _json_values(surrogates)).map(
                    lambda kv, example=example: {**example, kv[0]: kv[1]}))
                if example:
                    variants.append(st.sampled_from(
                        [{n: v for n, v in example.items() if n != k} for k in sorted(example)]))
            huge = [arguments for _, arguments in huge_integer_calls(spec, valid)]
            if huge:
                variants.append(st.sampled_from(huge))
            variants.append(st.dictionaries(st.sampled_from(wire) if wire else st.text(max_size=5),
                                            st.one_of(_json_values(surrogates), st.sampled_from(WRONG_TYPES + NUMBERS)),
                                            max_size=len(wire) + 1))
            variants.append(st.dictionaries(st.text(max_size=10), _json_values(surrogates), max_size=4))
            per_tool.append(st.one_of(variants).map(lambda args, t=toolset.name, n=spec.name: (t, n, args)))
    return st.one_of(per_tool)


# -- judging calls ---------------------------------------------------------------------------------------


@dataclass
class Tally:
    """What a fuzz run saw: counts per outcome and every failure (with the call that caused it)."""

    cases: int = 0
    ok: int = 0
    refused: int = 0
    unsendable: int = 0
    codes: dict[str, int] = field(default_factory=dict)
    per_tool: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    slowest_s: float = 0.0
    slowest: str = ""

    def summary(self) -> str:
        codes = ", ".join(f"{k} {v}" for k, v in sorted(self.codes.items()))
        return (f"{self.cases} cases: {self.ok} answered, {self.refused} refused ({codes}), {self.unsendable} not "
                f"sendable by the client; {len(self.failures)} failures; slowest call {self.slowest_s:.2f} s "
                f"({self.slowest})")


def shown(arguments: Any, limit: int = 300) -> str:
    try:
        text = json.dumps(arguments, ensure_ascii=True, default=repr)
    except (ValueError, RecursionError):
        text = repr(arguments)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


class Oracle:
    """Judges calls made by ``call(tool, arguments) -> result`` (an MCP ``CallToolResult``)."""

    def __init__(self, specs: Mapping[tuple[str, str], ToolSpec], home: Path, timeout_s: float,
                 call: Callable[[str, str, dict], Any], tally: Tally | None = None,
                 check_state: Callable[[str, str], bool] | None = None) -> None:
        self.specs = specs
        self.home = home
        self.timeout_s = timeout_s
        self.call = call
        self.tally = tally or Tally()
        #: whether to compare the data folder around this call (default: always)
        self.check_state = check_state or (lambda toolset, tool: True)

    def fail(self, what: str, toolset: str, tool: str, arguments: Any) -> None:
        self.tally.failures.append(f"{toolset}.{tool}: {what} -- arguments {shown(arguments)}")

    def judge(self, toolset: str, tool: str, arguments: dict) -> None:
        spec = self.specs[(toolset, tool)]
        if not isinstance(arguments, dict):  # MCP clients send an object or nothing
            self.tally.unsendable += 1
            return
        watch = self.check_state(toolset, tool)
        before = home_state(self.home) if watch else None
        started = time.monotonic()
        try:
            result = self.call(toolset, tool, arguments)
        except Unsendable:
            self.tally.unsendable += 1
            return
        except TimeoutError:
            self.tally.cases += 1
            self.fail(f"no answer within {self.timeout_s} s (a hang)", toolset, tool, arguments)
            return
        except Exception as exc:  # noqa: BLE001 - a protocol-level failure is a finding, not a crash of the suite
            self.tally.cases += 1
            self.fail(f"the call failed at the protocol level: {type(exc).__name__}: {str(exc)[:300]}", toolset, tool,
                      arguments)
            return
        elapsed = time.monotonic() - started
        self.tally.cases += 1
        self.tally.per_tool[f"{toolset}.{tool}"] = self.tally.per_tool.get(f"{toolset}.{tool}", 0) + 1
        if elapsed > self.tally.slowest_s:
            self.tally.slowest_s, self.tally.slowest = elapsed, f"{toolset}.{tool} {shown(arguments, 120)}"
        if elapsed > self.timeout_s:
            self.fail(f"answered after {elapsed:.1f} s (limit {self.timeout_s} s)", toolset, tool, arguments)
        text = " ".join(getattr(block, "text", "") for block in result.content)
        if _TRACEBACK.search(text):
            self.fail(f"traceback text in the answer: {text[:300]}", toolset, tool, arguments)
        if result.is_error:
            self.tally.refused += 1
            match = _ERROR.match(text)
            code = match.group(1) if match else "(no code)"
            self.tally.codes[code] = self.tally.codes.get(code, 0) + 1
            if code not in CODES:
                self.fail(f"error without a known code: {text[:400]}", toolset, tool, arguments)
            structured = (result.structured_content or {}).get("error") or {}
            if text != f"[{structured.get('code')}] {structured.get('message')}":
                self.fail(f"structured error {shown(result.structured_content)} does not say what the text says: "
                          f"{text[:300]}", toolset, tool, arguments)
            if len(text) > MAX_MESSAGE + 200:
                self.fail(f"error message of {len(text)} characters", toolset, tool, arguments)
        else:
            self.tally.ok += 1
            try:
                spec.response.model_validate(result.structured_content)
            except Exception as exc:  # noqa: BLE001
                self.fail(f"answer does not match the response model: {str(exc)[:300]}", toolset, tool, arguments)
        if watch and (result.is_error or spec.read_only):
            after = home_state(self.home)
            if after != before:
                changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
                if self._built_an_index_first(spec, result.is_error and code, before, changed):
                    return
                what = "a refused call" if result.is_error else "a read-only call"
                self.fail(f"{what} changed the data folder: {changed}", toolset, tool, arguments)

    @staticmethod
    def _built_an_index_first(spec: ToolSpec, code: str | bool, before: Mapping[str, Any],
                              changed: list[str]) -> bool:
        """A valid query of a tool that indexes its folder on first use (declared as writing, and taking the
        folder as ``project_path``) that then found nothing (``not_found``) may leave that folder's NEW index
        behind: the index mirrors the folder, not the request, and throwing it away would redo minutes of
        work on the next call. It may not touch anything that existed before the call."""
        return (code == "not_found" and not spec.read_only and "project_path" in spec.request.model_fields
                and all(key not in before for key in changed))


class Unsendable(Exception):  # noqa: N818 - a case the client library cannot encode (not the server's fault)
    pass


def finite(value: Any) -> bool:
    """True when a JSON client can encode ``value`` as sent (no NaN/infinity, no lone surrogates)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True
