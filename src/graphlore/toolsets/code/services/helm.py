"""Helm charts rendered as far as their values decide: what a chart's Deployments, Services and ConfigMaps are once
``helm install`` has put its values in, for the Kubernetes reading of `services.deployment`.

**A chart** is a folder with ``Chart.yaml`` beside ``templates/``. Its values are its ``values.yaml``; a subchart
(``charts/<name>/``, or a ``dependencies:`` entry whose ``repository`` is a local ``file://`` folder) is rendered with
its own ``values.yaml``, the parent's values under its name (or ``alias``) and the parent's ``global:``.

**Which values** (one rendering each; several values of one setting make a choice, never a fact): the chart's
``values.yaml`` alone; with each other ``values*.yaml`` beside it (``values-prod.yaml``); and with the files and
literal settings of each ``helm install``/``helm upgrade``/``helm template`` command the project's own scripts,
Markdown guides and CI files run on the chart (``-f``/``--values``, ``--set``/``--set-string``, the release name
and ``--namespace``). A setting written with a shell variable (``--set dockerregistry=$ACR_SERVER``) is not known.
A value ``values.yaml`` leaves empty is unset (Helm renders nothing), so it competes with no other.

**What is rendered** (Helm's template language, the subset that decides values): ``{{ .Values.a.b }}``,
``.Release.Name``/``.Release.Namespace`` (known only from an install command that writes them), ``.Chart.*``,
variables (``$x := ...``), pipelines with ``default``, ``quote``/``squote``, ``printf``, ``replace``, ``trunc``,
``trimSuffix``/``trimPrefix``, ``lower``/``upper``, ``toYaml``/``indent``/``nindent``, ``required``, ``tpl``,
comparisons and ``and``/``or``/``not``; ``include``/``template`` of a ``define`` (any file under ``templates/``) when it
reduces to known values; ``if``/``else``/``with``/``range`` (``break``/``continue``). Anything else is unknown (``{?}``), never guessed: an
``if`` whose condition is not known renders each of its branches, and a value inside one is a choice (it may be
unset), `Rendered.conditional`; a ``range`` over a value not known renders nothing.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
from collections import ChainMap
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from . import shell_values
from .secrets import REDACTED


class _Unknown:
    """A value not known statically (a release name no command writes, a file's content, a shell variable)."""

    def __repr__(self) -> str:
        return "{?}"

    def __deepcopy__(self, memo: dict) -> _Unknown:
        return self


UNKNOWN: Any = _Unknown()
#: an unknown value in rendered text: one character YAML takes in a plain scalar (``{?}`` would open a flow
#: mapping), made ``{?}`` again once the YAML is read (`unknowns_shown`)
_TEXT_UNKNOWN = "\u2047"
#: an action, or a comment (``{{/* ... */}}``, ``{{- /* ... */ -}}``: it ends at ``*/}}``, whatever it holds)
_ACTION = re.compile(r"""\{\{(-[ \t\r\n])?(/\*.*?\*/|(?:"(?:[^"\\\n]|\\.)*"|`[^`]*`|[^"`])*?)([ \t\r\n]-)?\}\}""", re.S)
_TOKEN = re.compile(r'''\s*(?:("(?:[^"\\]|\\.)*")|(`[^`]*`)|('(?:[^'\\]|\\.)')|(:=|=|\||\(|\)|,)|'''
                    r'''(\$\w*(?:\.\w+)*)|(\.(?:\w+(?:\.\w+)*)?)|(-?\d+(?:\.\d+)?)|([A-Za-z_]\w*(?:\.\w+)*))''')


_DECLARATION = re.compile(r"\s*\$\w*(?:\s*,\s*\$\w*)?\s*:?=")


class _Stop(Exception):
    """``{{ break }}``/``{{ continue }}`` on their way to the ``range`` they end or skip."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class _NotKnown(Exception):
    """Raised where an unknown condition decides text that must be one string (an ``include``'s result)."""


@dataclass
class Rendered:
    """One template rendered with one set of values: its text, the template line each output line comes from, and
    the output lines written inside an ``if``/``with`` whose condition is not known (values that may be unset)."""

    text: str
    source_lines: list[int]
    conditional: set[int] = field(default_factory=set)   # output line numbers (1-based)


@dataclass
class Variant:
    """One set of values a chart is installed with, and where it comes from (said in every note of its values)."""

    label: str
    values: dict
    release: Any = UNKNOWN
    namespace: Any = UNKNOWN
    #: the values files it merges, first to last (each the file's path)
    files: list[str] = field(default_factory=list)
    #: each ``--set`` key -> where it is written (``deployment.md:315``)
    set_at: dict[str, str] = field(default_factory=dict)
    #: each ``--set`` key whose value the shell fills in -> the value as written and where its file assigns each
    #: variable it reads (`shell_values.origins`): ``("${QUEUE}", " (QUEUE: QUEUE=$(az ...) (deployment.md:292))")``
    set_shell: dict[str, tuple[str, str]] = field(default_factory=dict)
    layers: list[dict] = field(default_factory=list)

    def origin(self, path: str, redact: bool = False) -> str:
        """Where the value at ``path`` (``serviceuri.package``) comes from: the ``--set`` that writes it or the last
        values file that holds it; ``redact``: a secret's, the ``--set`` text and its shell assignments left out."""
        for key, at in self.set_at.items():
            if path == key or path.startswith(key + ".") or key.startswith(path + "."):
                written, origins = self.set_shell.get(key, ("", ""))
                if redact:   # a secret's: only what names where it comes from is shown (``${VAR}``, ``$(cmd)``)
                    written = written if not written or written.startswith("$") else REDACTED
                    origins = _ASSIGNED_AT.sub(lambda m: m.group(0) if m.group(2).startswith("$") else
                                               f"{m.group(1)}{REDACTED}{m.group(3)}", origins)
                return f"--set {key}{'=' + written if written else ''} at {at}{origins}"
        for name, layer in reversed(list(zip(self.files, self.layers, strict=False))):
            found: Any = layer
            for part in path.split("."):
                found = found.get(part) if isinstance(found, dict) else None
            if found is not None:
                return name
        return f"{self.files[0]} (empty there)" if self.files else "no values file"


#: a shell assignment as `shell_values.assignments` writes it: ``NAME=value (file:line)``
_ASSIGNED_AT = re.compile(r"(\b\w+=)((?:(?! \([^()\s]+:\d+\)).)*)( \([^()\s]+:\d+\))")


# -- parsing the template language ------------------------------------------------------------------------------------


def _tokens(text: str, origin: int) -> list[tuple[str, str, int, bool, bool]]:
    """The template's text and actions in order, whitespace trimmed as ``{{-`` and ``-}}`` say:
    (kind, text, line, trim_left, trim_right)."""
    out: list[tuple[str, str, int, bool, bool]] = []
    position = 0
    for match in _ACTION.finditer(text):
        line = origin + text.count("\n", 0, match.start())
        out.append(("text", text[position:match.start()], origin + text.count("\n", 0, position), False, False))
        out.append(("action", match.group(2).strip(), line, bool(match.group(1)), bool(match.group(3))))
        position = match.end()
    out.append(("text", text[position:], origin + text.count("\n", 0, position), False, False))
    for index, (kind, _, _, left, right) in enumerate(out):
        if kind != "action":
            continue
        if left and index > 0:
            before = out[index - 1]
            out[index - 1] = (before[0], before[1].rstrip(" \t\r\n"), before[2], False, False)
        if right and index + 1 < len(out):
            after = out[index + 1]
            stripped = after[1].lstrip(" \t\r\n")
            out[index + 1] = (after[0], stripped, after[2] + after[1][:len(after[1]) - len(stripped)].count("\n"),
                              False, False)
    return out


def _lex(pipe: str) -> list[str]:
    out, position = [], 0
    while position < len(pipe):
        if pipe[position:].strip() == "":
            break
        match = _TOKEN.match(pipe, position)
        if match is None or match.end() == position:
            raise ValueError(f"cannot read {pipe[position:position + 20]!r}")
        token = match.group(0)
        # ``(pipeline).Field``: a field of the parenthesised value (no space between), not a new operand
        out.append("\x00" + token if token.startswith(".") and out and out[-1] == ")" else token.strip())
        position = match.end()
    return out


def _parse(text: str, defines: dict[str, list], origin: int = 1) -> list:
    """The template as nodes: ("text", s, line), ("out", pipe, line), ("if", [(pipe, nodes)...], else, line),
    ("with", pipe, nodes, else, line), ("range", pipe, nodes, else, line), ("template", name, pipe, line);
    ``define``/``block`` bodies go to ``defines``."""
    stack: list[tuple[list, Any]] = [([], None)]
    for kind, body, line, _, _ in _tokens(text, origin):
        nodes = stack[-1][0]
        if kind == "text":
            if body:
                nodes.append(("text", body, line))
            continue
        if body.startswith("/*"):
            continue
        word, _, rest = body.partition(" ")
        rest = rest.strip()
        if word in ("if", "with", "range"):
            node = [word, [(rest, [])], None, line]
            nodes.append(node)
            stack.append((node[1][0][1], node))
        elif word in ("define", "block"):
            name = (_lex(rest) or [""])[0]
            if not name.startswith(('"', "`")):
                raise ValueError(f"line {line}: {word} without a name")
            node = ["define", json.loads(name) if name.startswith('"') else name.strip("`"), [], line,
                    rest[len(name):].strip() if word == "block" else None]
            stack.append((node[2], node))
        elif word == "else":
            node = stack[-1][1]
            if node is None or node[0] not in ("if", "with", "range"):
                raise ValueError(f"line {line}: else outside if/with/range")
            stack.pop()
            if rest.startswith(("if ", "with ")) and node[0] == rest.split()[0]:
                node[1].append((rest.split(None, 1)[1], []))
                stack.append((node[1][-1][1], node))
            else:
                node[2] = []
                stack.append((node[2], node))
        elif word == "end":
            if len(stack) == 1:
                raise ValueError(f"line {line}: end without a block")
            _, node = stack.pop()
            if node[0] == "define":
                defines[node[1]] = node[2]
                if node[4] is not None:   # a block: defined and used here
                    stack[-1][0].append(("template", node[1], node[4] or ".", node[3]))
        elif word == "template":
            tokens = _lex(rest) or [""]
            if not tokens[0].startswith(('"', "`")):
                raise ValueError(f"line {line}: template without a name")
            name = json.loads(tokens[0]) if tokens[0].startswith('"') else tokens[0].strip("`")
            nodes.append(("template", name, " ".join(tokens[1:]) or ".", line))
        else:
            nodes.append((word, line) if word in ("break", "continue") and not rest else ("out", body, line))
    if len(stack) != 1:
        raise ValueError(f"a {stack[-1][1][0]} block opened at line {stack[-1][1][3]} is not closed")
    return stack[0][0]


# -- evaluating ---------------------------------------------------------------------------------------------------------


def _empty(value: Any) -> bool | None:
    if value is UNKNOWN or (isinstance(value, str) and _TEXT_UNKNOWN in value):
        return None
    return value is None or value is False or value == 0 or value == "" or value == [] or value == {}


def _text(value: Any) -> str:
    if value is UNKNOWN:
        return _TEXT_UNKNOWN
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < 1e21 else str(value)
    if isinstance(value, dict):   # Go prints ``map[k:v ...]`` with its own number format: not written here
        return _TEXT_UNKNOWN
    if isinstance(value, list):
        return "[" + " ".join(_text(v) for v in value) + "]"
    return str(value)


def _has_unknown(value: Any) -> bool:
    if value is UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(_has_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_unknown(v) for v in value)
    return False


def _printf(form: str, *args: Any) -> str:
    values = iter(args)

    def one(match: re.Match) -> str:
        verb = match.group(0)
        if verb == "%%":
            return "%"
        value = next(values, None)
        if verb[-1] == "q":
            return json.dumps(_text(value))
        return _text(value)
    return re.sub(r"%[-+# 0]*\d*(?:\.\d+)?[svdqtfg%]", one, form)


def _trunc(length: Any, value: Any) -> Any:
    text = _text(value)
    if not isinstance(length, int) or _TEXT_UNKNOWN in text:
        return value if _TEXT_UNKNOWN in text else UNKNOWN
    return text[:length] if length >= 0 else text[length:]


def _to_yaml(value: Any) -> str:
    if _has_unknown(value):
        return _TEXT_UNKNOWN
    return yaml.safe_dump(value, default_flow_style=False, sort_keys=True).rstrip("\n") if value is not None else ""


def _indent(count: Any, value: Any) -> str:
    pad = " " * count if isinstance(count, int) else ""
    return "\n".join(pad + line for line in _text(value).split("\n"))


def _index(value: Any, *keys: Any) -> Any:
    for key in keys:
        if value is UNKNOWN or key is UNKNOWN:
            return UNKNOWN
        if isinstance(value, dict):
            value = value.get(key if isinstance(key, str) else str(key))
        elif isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
            value = value[key]
        else:
            return None
    return value


def _compare(op, a: Any, b: Any) -> Any:
    if a is UNKNOWN or b is UNKNOWN or _TEXT_UNKNOWN in _text(a) or _TEXT_UNKNOWN in _text(b):
        return UNKNOWN
    try:
        return op(a, b)
    except TypeError:
        return UNKNOWN


#: the functions whose result is known when their arguments are (Go templates' builtins and the Sprig ones charts use)
FUNCTIONS: dict[str, Any] = {
    "quote": lambda *a: " ".join(json.dumps(_text(v)) for v in a if v is not None),
    "squote": lambda *a: " ".join(f"'{_text(v)}'" for v in a if v is not None),
    "printf": _printf,
    "print": lambda *a: "".join(_text(v) for v in a),
    "println": lambda *a: " ".join(_text(v) for v in a) + "\n",
    "replace": lambda old, new, s: _text(s).replace(_text(old), _text(new)),
    "trunc": _trunc,
    "trimSuffix": lambda suffix, s: _text(s).removesuffix(_text(suffix)),
    "trimPrefix": lambda prefix, s: _text(s).removeprefix(_text(prefix)),
    "trim": lambda s: _text(s).strip(),
    "trimAll": lambda chars, s: _text(s).strip(_text(chars)),
    "lower": lambda s: _text(s).lower(),
    "upper": lambda s: _text(s).upper(),
    "title": lambda s: _text(s).title(),
    "toString": _text,
    "toYaml": _to_yaml,
    "indent": _indent,
    "nindent": lambda count, value: "\n" + _indent(count, value),
    "contains": lambda sub, s: _text(sub) in _text(s),
    "hasPrefix": lambda prefix, s: _text(s).startswith(_text(prefix)),
    "hasSuffix": lambda suffix, s: _text(s).endswith(_text(suffix)),
    "eq": lambda a, *b: any(a == v for v in b),
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "list": lambda *a: list(a),
    "dict": lambda *a: {_text(a[i]): a[i + 1] for i in range(0, len(a) - 1, 2)},
    "index": _index,
    "get": lambda m, k: m.get(_text(k), "") if isinstance(m, dict) else UNKNOWN,
    "hasKey": lambda m, k: _text(k) in m if isinstance(m, dict) else UNKNOWN,
    "len": lambda v: len(v) if isinstance(v, str | list | dict) else UNKNOWN,
    "int": lambda v: int(float(v)) if isinstance(v, int | float | str) and re.fullmatch(r"-?\d+(\.\d+)?", str(v))
    else UNKNOWN,
    "join": lambda sep, items: _text(sep).join(_text(v) for v in items) if isinstance(items, list) else UNKNOWN,
}
_COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}
#: the functions whose result a text partly unknown (``{?}-svc``, the release name in it) leaves unknown: the text
#: functions keep the unknown part in their result, these would decide on text nobody knows
_DECIDE_ON_TEXT = {"contains", "hasPrefix", "hasSuffix", "len", "int", "get", "hasKey", "index"}


class Renderer:
    """Renders a chart's templates with one `Variant` of its values (see the module docstring)."""

    def __init__(self, defines: dict[str, list], chart: dict, variant: Variant, template: str) -> None:
        self.defines = defines
        self.variant = variant
        capital = {k[:1].upper() + k[1:]: v for k, v in chart.items() if isinstance(k, str)}
        self.root = {
            "Values": variant.values,
            "Chart": capital,
            "Release": {"Name": variant.release, "Namespace": variant.namespace, "Service": "Helm",
                        "IsInstall": UNKNOWN, "IsUpgrade": UNKNOWN, "Revision": UNKNOWN},
            "Template": {"Name": template, "BasePath": template.rsplit("/", 1)[0]},
            "Capabilities": UNKNOWN,
            "Files": UNKNOWN,
        }
        self.depth = 0
        #: an ``if`` whose condition is not known renders every branch (else only the first such one)
        self.every_branch = True
        #: a ``break``/``continue`` under a condition not known was met in the ``range`` being rendered
        self.maybe_stopped = False

    # pieces of a pipeline -------------------------------------------------------------------------------------------

    def _field(self, value: Any, path: list[str]) -> Any:
        for part in path:
            if value is UNKNOWN:
                return UNKNOWN
            value = value.get(part) if isinstance(value, dict) else None if value is None else UNKNOWN
        return value

    def _operand(self, tokens: list[str], position: int, dot: Any, scope: ChainMap) -> tuple[Any, int]:
        token = tokens[position]
        if token == "(":
            depth, end = 1, position + 1
            while end < len(tokens) and depth:
                depth += {"(": 1, ")": -1}.get(tokens[end], 0)
                end += 1
            value = self._pipeline(tokens[position + 1:end - 1], dot, scope)
            while end < len(tokens) and tokens[end].startswith("\x00."):
                value = self._field(value, tokens[end][2:].split("."))
                end += 1
            return value, end
        if token.startswith('"'):
            return json.loads(token), position + 1
        if token.startswith("`"):
            return token[1:-1], position + 1
        if token.startswith("'"):
            return ord(token[1:-1][-1]), position + 1
        if re.fullmatch(r"-?\d+", token):
            return int(token), position + 1
        if re.fullmatch(r"-?\d+\.\d+", token):
            return float(token), position + 1
        if token in ("true", "false"):
            return token == "true", position + 1
        if token == "nil":
            return None, position + 1
        if token == ".":
            return dot, position + 1
        if token.startswith("."):
            return self._field(dot, token[1:].split(".")), position + 1
        if token.startswith("$"):
            name, *path = token.split(".")
            base = scope.get(name, UNKNOWN)   # ``$``: the data the template (or the define) is executed with
            return self._field(base, path), position + 1
        raise ValueError(token)

    def _command(self, tokens: list[str], dot: Any, scope: ChainMap, piped: list) -> Any:
        head = tokens[0]
        if re.fullmatch(r"[A-Za-z_]\w*", head) and head not in ("true", "false", "nil"):
            args, position = [], 1
            while position < len(tokens):
                value, position = self._operand(tokens, position, dot, scope)
                args.append(value)
            return self._call(head, args + piped, dot)
        value, position = self._operand(tokens, 0, dot, scope)
        if position < len(tokens) or piped:   # a method called with arguments (.Files.Get "x"): not known
            return UNKNOWN
        return value

    def _call(self, name: str, args: list, dot: Any) -> Any:
        if name == "default":
            if len(args) != 2:
                return UNKNOWN
            empty = _empty(args[1])
            return UNKNOWN if empty is None and args[1] is UNKNOWN else args[0] if empty else args[1]
        if name in ("and", "or"):
            for value in args:
                empty = _empty(value)
                if empty is None:
                    return UNKNOWN
                if empty == (name == "and"):
                    return value
            return args[-1] if args else UNKNOWN
        if name == "not":
            empty = _empty(args[0]) if args else None
            return UNKNOWN if empty is None else empty
        if name == "empty":
            empty = _empty(args[0]) if args else None
            return UNKNOWN if empty is None else empty
        if name == "required":
            return args[-1] if len(args) == 2 and _empty(args[1]) is False else UNKNOWN
        if name == "coalesce":
            for value in args:
                empty = _empty(value)
                if empty is None:
                    return UNKNOWN
                if not empty:
                    return value
            return None
        if name == "ternary" and len(args) == 3:
            empty = _empty(args[2])
            return UNKNOWN if empty is None else args[1] if empty else args[0]
        if name in ("include", "template") and len(args) == 2:
            return self.include(_text(args[0]), args[1])
        if name == "tpl" and len(args) == 2:
            if not isinstance(args[0], str) or _TEXT_UNKNOWN in args[0]:
                return UNKNOWN
            return self.include_text(args[0], args[1])
        if name in ("indent", "nindent") and len(args) == 2 and isinstance(args[0], int):
            return ("\n" if name == "nindent" else "") + _indent(args[0], args[1])   # an unknown block stays a block
        function = FUNCTIONS.get(name)
        if function is None or any(a is UNKNOWN for a in args) or name in _DECIDE_ON_TEXT and any(
                isinstance(a, str) and _TEXT_UNKNOWN in a for a in args):
            return UNKNOWN
        if name in _COMPARISONS:
            return _compare(function, *args) if len(args) >= 2 else UNKNOWN
        try:
            return function(*args)
        except (TypeError, ValueError, IndexError, KeyError):
            return UNKNOWN

    def _pipeline(self, tokens: list[str], dot: Any, scope: ChainMap) -> Any:
        declare: list[str] = []
        assign = False
        if ":=" in tokens or "=" in tokens:
            cut = tokens.index(":=") if ":=" in tokens else tokens.index("=")
            declare = [t for t in tokens[:cut] if t != ","]
            assign = tokens[cut] == "="
            tokens = tokens[cut + 1:]
        commands: list[list[str]] = [[]]
        depth = 0
        for token in tokens:
            depth += {"(": 1, ")": -1}.get(token, 0)
            if token == "|" and depth == 0:
                commands.append([])
            else:
                commands[-1].append(token)
        value: Any = None
        for number, command in enumerate(commands):
            if not command:
                return UNKNOWN
            value = self._command(command, dot, scope, [value] if number else [])
        for name in declare[-1:]:
            if assign:
                _assign(scope, name, value)
            else:
                scope[name] = value
        return value

    def evaluate(self, pipe: str, dot: Any, scope: ChainMap) -> Any:
        try:
            return self._pipeline(_lex(pipe), dot, scope)
        except (ValueError, IndexError, RecursionError):
            return UNKNOWN

    # blocks ----------------------------------------------------------------------------------------------------------

    def include(self, name: str, dot: Any) -> Any:
        if name not in self.defines or self.depth > 20:
            return UNKNOWN
        self.depth += 1
        try:
            out = _Output(strict=True)
            self.nodes(self.defines[name], dot, ChainMap({"$": dot}), out, False)
            return out.text()
        except (_NotKnown, _Stop):   # a break outside a range: Helm refuses the define
            return UNKNOWN
        finally:
            self.depth -= 1

    def include_text(self, text: str, dot: Any) -> Any:
        try:
            return self.include_nodes(_parse(text, dict(self.defines)), dot)
        except ValueError:
            return UNKNOWN

    def include_nodes(self, nodes: list, dot: Any) -> Any:
        try:
            out = _Output(strict=True)
            self.nodes(nodes, dot, ChainMap({"$": dot}), out, False)
            return out.text()
        except (_NotKnown, _Stop):
            return UNKNOWN

    def nodes(self, nodes: list, dot: Any, scope: ChainMap, out: _Output, conditional: bool) -> None:
        for node in nodes:
            kind = node[0]
            conditional = conditional or self.maybe_stopped   # after a break that may have happened
            if kind == "text":
                out.write(node[1], node[2], conditional)
            elif kind == "out":
                value = self.evaluate(node[1], dot, scope)
                if not _DECLARATION.match(node[1]):   # ``$x := ...``, ``$x = ...`` print nothing
                    out.write(_text(value), node[2], conditional, action=True)
            elif kind == "template":
                out.write(_text(self.include(node[1], self.evaluate(node[2], dot, scope))), node[3], conditional,
                          action=True)
            elif kind == "if" or kind == "with":
                self._branches(node, dot, scope, out, conditional)
            elif kind == "range":
                self._range(node, dot, scope, out, conditional)
            elif kind in ("break", "continue"):
                raise _Stop(kind)

    def _branches(self, node: list, dot: Any, scope: ChainMap, out: _Output, conditional: bool) -> None:
        """An ``if``/``with``: the branch its known conditions take; from the first condition not known on, each
        branch that may be taken, its lines conditional, and each variable a branch may assign (``$x = ...``) is
        not known after it. Where two or more such branches write text within one line (``value: {{ if .x }}a{{
        else }}b{{ end }}``), the text is not known: written one after the other it would be a value neither gives."""
        kind, branches, otherwise = node[0], node[1], node[2]
        renders: list[_Output] = []   # from the first condition not known on, what each branch writes
        before = dict(scope)

        def run(body: list, value: Any, inner: ChainMap, marked: bool) -> None:
            if not renders:
                self.nodes(body, value, inner, out, marked)
                return
            renders.append(_Output(strict=False))
            self._maybe(body, value, inner, renders[-1], marked)
            _restore(scope, before)
        for pipe, body in branches:
            inner = scope.new_child()
            value = self.evaluate(pipe, dot, inner)
            empty = _empty(value)
            if empty is None:
                if out.strict:
                    raise _NotKnown
                if renders and not self.every_branch:
                    continue
                renders.append(_Output(strict=False))
                self._maybe(body, value if kind == "with" else dot, inner, renders[-1], True)
                _restore(scope, before)
                continue
            if not empty:
                run(body, value if kind == "with" else dot, inner, conditional or bool(renders))
                break
        else:
            if otherwise is not None and (self.every_branch or not renders):
                run(otherwise, dot, scope.new_child(), conditional or bool(renders))
        if not renders:
            return
        texts = [r.text() for r in renders if r.text()]
        if len(texts) > 1 and not any("\n" in text for text in texts):
            out.write(_TEXT_UNKNOWN, node[3], True, action=True)
        else:
            for render in renders:
                out.replay(render)
        _restore(scope, before)
        for name in _assigned([*(n for _, body in branches for n in body), *(otherwise or [])]):
            if name in before:
                _assign(scope, name, UNKNOWN)

    def _maybe(self, body: list, dot: Any, scope: ChainMap, out: _Output, conditional: bool) -> None:
        """A branch that may not be taken: a ``break``/``continue`` in it may not happen either, so the ``range``
        goes on, its later items rendered as ones that may not be (`maybe_stopped`)."""
        try:
            self.nodes(body, dot, scope, out, conditional)
        except _Stop:
            self.maybe_stopped = True

    def _range(self, node: list, dot: Any, scope: ChainMap, out: _Output, conditional: bool) -> None:
        pipe, body = node[1][0]
        declare: list[str] = []
        if ":=" in pipe:
            names, _, pipe = pipe.partition(":=")
            declare = [n.strip() for n in names.split(",") if n.strip()]
        value = self.evaluate(pipe, dot, scope.new_child())
        if value is UNKNOWN or _has_unknown(value) and not isinstance(value, list | dict):
            if out.strict:
                raise _NotKnown
            for name in _assigned([*body, *(node[2] or [])]):   # what its body may assign is not known either
                if name in scope:
                    _assign(scope, name, UNKNOWN)
            return
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value)) if isinstance(
            value, list) else list(enumerate(range(value))) if isinstance(value, int) else []
        if isinstance(value, dict):
            items.sort(key=lambda kv: str(kv[0]))
        if not items and node[2] is not None:
            self.nodes(node[2], dot, scope.new_child(), out, conditional)
        outer, self.maybe_stopped = self.maybe_stopped, False
        for key, item in items:
            inner = scope.new_child()
            if len(declare) == 1:
                inner[declare[0]] = item
            elif len(declare) == 2:
                inner[declare[0]], inner[declare[1]] = key, item
            try:
                self.nodes(body, item, inner, out, conditional or self.maybe_stopped)
            except _Stop as stop:
                if stop.kind == "break":
                    break
        self.maybe_stopped = outer


def _assign(scope: ChainMap, name: str, value: Any) -> None:
    """``$x = value``: the variable of the innermost scope that declares it (Go's rule), else a new one here."""
    for frame in scope.maps:
        if name in frame:
            frame[name] = value
            return
    scope[name] = value


def _restore(scope: ChainMap, before: dict) -> None:
    """The variables visible before a branch, as they were (what one branch assigns is not another's)."""
    for name, value in before.items():
        if scope.get(name) is not value:
            _assign(scope, name, value)


def _assigned(nodes: list) -> set[str]:
    """The variables a block's actions assign (``$x = ...``, not ``:=``), in nested blocks too."""
    out: set[str] = set()
    for node in nodes:
        pipes = [node[1]] if node[0] == "out" else [p for p, _ in node[1]] if node[0] in ("if", "with", "range") \
            else []
        for pipe in pipes:
            try:
                tokens = _lex(pipe)
            except ValueError:
                continue
            if "=" in tokens:
                out |= {t for t in tokens[:tokens.index("=")] if t.startswith("$")}
        if node[0] in ("if", "with", "range"):
            out |= _assigned([n for _, body in node[1] for n in body] + list(node[2] or []))
    return out


class _Output:
    """Rendered text with the template line of each output line and the lines written under unknown conditions."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.parts: list[str] = []
        self.lines: list[int] = [1]
        self.conditional: set[int] = set()
        self.writes: list[tuple[str, int, bool, bool]] = []

    def write(self, text: str, line: int, conditional: bool, action: bool = False) -> None:
        if not text:
            return
        self.writes.append((text, line, conditional, action))
        pieces = text.split("\n")
        if not self.parts:
            self.lines[0] = line
        if conditional and pieces[0]:   # text that starts with a line break writes nothing on this line
            self.conditional.add(len(self.lines))
        for number, _ in enumerate(pieces[1:], 1):
            self.lines.append(line if action else line + number)
            if conditional:
                self.conditional.add(len(self.lines))
        self.parts.append(text)

    def text(self) -> str:
        return "".join(self.parts)

    def replay(self, other: _Output) -> None:
        """What ``other`` was written, written here (a branch rendered apart, `Renderer._branches`)."""
        for write in other.writes:
            self.write(*write)


def unknowns_shown(value: Any) -> Any:
    """A rendered document with its unknown parts written ``{?}``, as every other reader writes them."""
    if isinstance(value, str):
        return value.replace(_TEXT_UNKNOWN, "{?}")
    if isinstance(value, dict):
        return {unknowns_shown(k): unknowns_shown(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unknowns_shown(v) for v in value]
    return value


# -- charts, their values and the commands that install them ---------------------------------------------------------


def _load(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, yaml.YAMLError):
        return None


def merge(base: Any, over: Any) -> Any:
    """Helm's coalescing of values: maps merge key by key, anything else is replaced."""
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for key, value in over.items():
            out[key] = merge(base.get(key), value) if key in base else value
        return out
    return over


_SHELL_DYNAMIC = re.compile(r"\$|`")


#: the flags that set values, in the order Helm applies them (after the ``-f`` files), whatever order a command
#: writes them in
_SET_FLAGS = ("--set-json", "--set", "--set-string", "--set-file", "--set-literal")


def _typed(raw: Any, flag: str) -> Any:
    """A ``--set`` value as Helm types it: ``--set`` makes ``true``/``false``/``null`` (any case) and whole numbers
    not written with a leading zero typed values, ``{a,b}`` a list; ``--set-string`` and ``--set-literal`` keep text;
    ``--set-json`` is JSON. Not known: a file's content (``--set-file``), what the shell fills in (``$VAR``,
    ``$(cmd)``), JSON that does not parse."""
    if isinstance(raw, list):
        return [_typed(item, flag) for item in raw]
    if flag == "--set-file" or _SHELL_DYNAMIC.search(raw):
        return UNKNOWN
    if flag == "--set-json":
        try:
            return json.loads(raw)
        except ValueError:
            return UNKNOWN
    if flag == "--set-literal":
        return raw
    text = re.sub(r"\\(.)", r"\1", raw, flags=re.S)
    if flag == "--set-string":
        return text
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if text.lower() == "null":
        return None
    if text == "0" or re.fullmatch(r"[-+]?[1-9]\d*", text) and -2 ** 63 <= int(text) < 2 ** 63:
        return int(text)
    return text


def _key_parts(path: str) -> list[str | int]:
    """``a.b\\.c[0].d`` -> ``["a", "b.c", 0, "d"]``: a ``\\`` takes the next character as it is."""
    parts: list[str | int] = []
    name, position = "", 0
    while position < len(path):
        char = path[position]
        index = re.match(r"\[(\d+)\]", path[position:]) if char == "[" else None
        if char == "\\" and position + 1 < len(path):
            name += path[position + 1]
            position += 2
            continue
        if char == "." or index:
            parts += [name] if name else []
            name = ""
            if index:
                parts.append(int(index.group(1)))
                position += index.end()
                continue
        else:
            name += char
        position += 1
    return parts + ([name] if name else [])


#: the largest list index a ``--set`` may write (Helm's ``strvals.MaxIndex``; it refuses a larger one)
_MAX_INDEX = 65536


def _set_value(values: dict, path: str, raw: Any, flag: str) -> None:
    """``--set a.b[0].c=v`` into ``values`` (`_typed`); a map or list on the way that is of the other kind, or a
    value, is replaced, as the set's path says."""
    value = _typed(raw, flag)
    parts = _key_parts(path)
    if not parts or isinstance(parts[0], int) or any(isinstance(p, int) and p > _MAX_INDEX for p in parts):
        return   # Helm refuses the setting
    target: Any = values
    for number, part in enumerate(parts):
        if isinstance(part, int):
            target.extend([None] * (part + 1 - len(target)))
        if number == len(parts) - 1:
            target[part] = value
            return
        kind = list if isinstance(parts[number + 1], int) else dict
        inner = target[part] if isinstance(part, int) else target.get(part)
        if not isinstance(inner, kind):
            inner = target[part] = kind()
        target = inner


def _until(text: str, position: int, stops: str) -> tuple[str, int]:
    """The text from ``position`` to the first of ``stops`` no ``\\`` escapes (escapes kept), and where it ends."""
    end = position
    while end < len(text) and text[end] not in stops:
        end += 2 if text[end] == "\\" else 1
    return text[position:end], min(end, len(text))


def _split_sets(text: str, flag: str = "--set") -> list[tuple[str, Any]]:
    """``a=1,b.c=x`` -> pairs as Helm's parser reads one flag's value: a comma escaped with ``\\`` stays in the value,
    ``{a,b}`` is a list (``--set``, ``--set-string``), a ``--set-json`` value is one JSON text and a
    ``--set-literal`` value the whole rest; keys and values as written. A key without a value is left out (Helm
    refuses it)."""
    out: list[tuple[str, Any]] = []
    position = 0
    while position < len(text):
        key, position = _until(text, position, "=" if flag == "--set-literal" else "=,")
        if position >= len(text) or text[position] != "=":
            position += 1
            continue
        position += 1
        value: Any
        if flag == "--set-literal":
            value, position = text[position:], len(text)
        elif flag == "--set-json":
            try:
                end = json.JSONDecoder().raw_decode(text, position)[1]
            except ValueError:
                end = len(text)   # not JSON: not known (`_typed`)
            value, position = text[position:end], end
        elif text.startswith("{", position) and flag in ("--set", "--set-string"):
            value, position = [], position + 1
            while True:
                item, position = _until(text, position, ",}")
                value.append(item)
                position += 1
                if position > len(text) or text[position - 1] == "}":
                    break
            value = [] if value == [""] else value
        else:
            value, position = _until(text, position, ",")
        out.append((key.strip(), value))
        position += 1   # the comma after the pair
    return out


@dataclass
class Install:
    """One ``helm install``/``upgrade``/``template`` command the project writes."""

    where: str                 # file:line
    folder: str                # the folder its file is in (relative to the root; where its relative paths start)
    release: Any
    chart: str
    namespace: Any
    values_files: list[str]
    sets: list[tuple[str, Any, str, str]]   # key, value as written (a list: ``{a,b}``), its flag, where
    #: a ``--set`` key whose value the shell fills in -> its value as written, `` (VAR: its assignments in the file)``
    shell: dict[str, tuple[str, str]] = field(default_factory=dict)


_HELM_COMMAND = re.compile(r"\bhelm\s+(install|upgrade|template)\b")
_FLAG_WITH_VALUE = {"-f", "--values", "--name", *_SET_FLAGS, "-n", "--namespace", "--kube-apiserver", "--kube-as-user",
                    "--kube-as-group", "--kube-ca-file", "--kube-token", "--kube-tls-server-name", "--burst-limit",
                    "--qps", "--post-renderer-args",
                    "--version", "--repo", "--timeout", "--kube-context", "--kubeconfig", "--description",
                    "--post-renderer", "-o", "--output", "--name-template", "--api-versions", "--username",
                    "--password", "--ca-file", "--cert-file", "--key-file", "--keyring", "--registry-config",
                    "--repository-cache", "--repository-config", "--history-max", "--wait-for-jobs",
                    "--output-dir", "--show-only", "-s", "--kube-version", "--labels", "-l"}


def install_commands(text: str, rel: str) -> list[Install]:
    """The Helm install commands of a script, guide or CI file (lines continued with ``\\`` joined)."""
    out: list[Install] = []
    assigned = shell_values.assignments(text, rel) if _HELM_COMMAND.search(text) else {}
    literals = shell_values.literal_values(text) if assigned else {}
    for found in _HELM_COMMAND.finditer(text):
        rest = re.sub(r"\\[ \t]*\r?\n", " ", text[found.end():])
        quote = _open_quote(text[text.rfind("\n", 0, found.start()) + 1:found.start()])
        if quote:   # ``$command = "helm upgrade ..."``: the command ends with its string
            rest = rest.split(quote, 1)[0]
        command = re.split(r"\s(?:&&|\|\||;|\|)\s|[;#]\s|\n", rest, maxsplit=1)[0]
        if rel.endswith(".md"):
            command = command.split("`", 1)[0]   # the end of inline code in a guide
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        positional, files, sets, namespace, named = [], [], [], None, None
        generate = False
        index = 0
        while index < len(words):
            word = words[index]
            flag, eq, inline = word.partition("=")
            if flag in _FLAG_WITH_VALUE:
                value = inline if eq else (words[index + 1] if index + 1 < len(words) else "")
                index += 1 if eq else 2
                if flag in ("-f", "--values"):
                    files += value.split(",")
                elif flag in _SET_FLAGS:
                    sets += [(k, v, flag) for k, v in _split_sets(value, flag)]
                elif flag in ("-n", "--namespace"):
                    namespace = value
                elif flag == "--name":   # Helm 2's release name
                    named = value
                continue
            if word in ("--generate-name", "-g"):
                generate = True
            elif not word.startswith("-"):
                positional.append(word)
            index += 1
        if not positional:
            continue
        release, chart = (UNKNOWN, positional[0]) if generate or len(positional) == 1 else positional[:2]
        if named is not None:
            release, chart = named, positional[-1]
        if isinstance(release, str) and _SHELL_DYNAMIC.search(release):
            release = UNKNOWN
        ns = UNKNOWN if namespace is None or _SHELL_DYNAMIC.search(namespace) else namespace
        line = text.count("\n", 0, found.start()) + 1
        script = PurePosixPath(rel).parent.as_posix()
        folder = script if rel.endswith(".md") else (shell_values.working_folder(text, line, script) or script)
        written = []
        for key, value, string in sets:
            at = text.find(key.split("[", 1)[0] + ("" if "[" in key else "="), found.start())
            written.append((key, value, string, f"{rel}:{text.count(chr(10), 0, at) + 1 if at >= 0 else line}"))
        shell = {key: (value, shell_values.origins(value, assigned))
                 for key, value, _ in sets if isinstance(value, str) and _SHELL_DYNAMIC.search(value)}
        for chosen in _values_files(files, literals):
            out.append(Install(f"{rel}:{line}", folder, release, chart, ns, chosen, written, shell))
    return out


def _open_quote(before: str) -> str:
    """The quote a line's text before a command leaves open (the command is inside that string), or ""."""
    quote = ""
    for index, char in enumerate(before):
        if quote:
            quote = "" if char == quote and (index == 0 or before[index - 1] not in "\\`") else quote
        elif char in "\"'":
            quote = char
    return quote


def _values_files(files: list[str], literals: dict[str, list[str]]) -> list[list[str]]:
    """The values files of a command, a name the script's variable gives (``-f $valuesFile``) replaced by each literal
    value the script assigns it (`shell_values.expansions`): one list per combination (each a way the script may run
    the command); a name whose variable the script does not assign a literal stays as written (not read)."""
    out: list[list[str]] = [[]]
    for name in files:
        options = shell_values.expansions(name, literals) if shell_values.variables_read(name) else [name]
        out = [[*chosen, one] for chosen in out for one in (options or [name])]
    return out[:shell_values.MAX_EXPANSIONS]


@dataclass
class Chart:
    folder: str          # relative to the root ("." for the root)
    meta: dict
    parent: Chart | None = None
    key: str = ""        # its values' key in the parent's (its name, or its alias)
    #: the local charts its ``dependencies:`` name (``file://``): a library chart several charts share has one
    #: `parent`, but its ``define``s are each one's
    local: list[Chart] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or PurePosixPath(self.folder).name)


def find_charts(root: Path, paths: list[str]) -> list[Chart]:
    """The charts of the tree (``Chart.yaml`` beside ``templates/`` or not) with each subchart's parent."""
    found: dict[str, Chart] = {}
    for rel in sorted(paths):
        if PurePosixPath(rel).name == "Chart.yaml":
            folder = PurePosixPath(rel).parent.as_posix()
            meta = _load(root / rel)
            found[folder] = Chart(folder, meta if isinstance(meta, dict) else {})
    for chart in found.values():
        base = "" if chart.folder == "." else chart.folder + "/"
        for dependency in chart.meta.get("dependencies") or []:
            if not isinstance(dependency, dict):
                continue
            repository = str(dependency.get("repository") or "")
            if repository.startswith("file://"):
                folder = os.path.normpath(base + repository[len("file://"):]).replace(os.sep, "/")
                child = found.get(folder)
                if child is not None and child is not chart:
                    child.parent, child.key = chart, str(dependency.get("alias") or dependency.get("name") or "")
                    chart.local.append(child)
        for folder, child in found.items():
            if child.parent is None and folder.startswith(base + "charts/") and folder.count("/") == (
                    base + "charts/x").count("/"):
                child.parent, child.key = chart, child.name
    return list(found.values())


def chart_files(root: Path, chart: Chart) -> list[str]:
    """The chart's templates (``templates/**``, relative to the root): ``_*.tpl``/``_*`` define helpers only."""
    base = root / chart.folder / "templates" if chart.folder != "." else root / "templates"
    out = []
    for dirpath, _, names in os.walk(base):
        for name in names:
            out.append(Path(dirpath, name).relative_to(root).as_posix())
    return sorted(out)


def defines_of(root: Path, chart: Chart) -> tuple[dict[str, list], dict[str, str]]:
    """Every ``define`` of the chart's templates (and its subcharts', which Helm shares), and the templates that do
    not parse -> why."""
    defines: dict[str, list] = {}
    problems: dict[str, str] = {}
    for rel in chart_files(root, chart):
        try:
            _parse(_read(root / rel), defines)
        except ValueError as exc:
            problems[rel] = f"Helm template: {exc}"
    return defines, problems


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def variants(root: Path, chart: Chart, installs: list[Install], charts: list[Chart]) -> list[Variant]:
    """The sets of values the chart is installed with (see the module docstring), with what its subcharts
    export to it (`with_imports`)."""
    return [replace(v, values=with_imports(root, chart, charts, v.values)) for v in _variants(root, chart, installs)]


def _variants(root: Path, chart: Chart, installs: list[Install]) -> list[Variant]:
    folder = root / chart.folder if chart.folder != "." else root
    base = _load(folder / "values.yaml")
    base = base if isinstance(base, dict) else {}
    own = f"{chart.folder}/values.yaml" if chart.folder != "." else "values.yaml"
    out = [Variant(own, base, files=[own], layers=[base])]
    for path in sorted(folder.glob("values*.y*ml")):
        if path.name not in ("values.yaml", "values.yml"):
            extra = _load(path)
            if isinstance(extra, dict):
                name = path.relative_to(root).as_posix()
                out.append(Variant(f"{own} + {name}", merge(base, extra), files=[own, name], layers=[base, extra]))
    for install in installs:
        variant = Variant("", base, install.release, install.namespace, files=[own], layers=[base])
        for name in install.values_files:
            if _SHELL_DYNAMIC.search(name):
                continue
            path = _resolve(root, install.folder, name, chart)
            extra = _load(root / path) if path else None
            if path and isinstance(extra, dict):
                variant.values = merge(variant.values, extra)
                variant.files.append(path)
                variant.layers.append(extra)
        variant.values = copy.deepcopy(variant.values)
        for key, value, flag, at in sorted(install.sets, key=lambda one: _SET_FLAGS.index(one[2])):
            _set_value(variant.values, key, value, flag)
            variant.set_at[key.replace("\\", "")] = at
            if key in install.shell:
                variant.set_shell[key.replace("\\", "")] = install.shell[key]
        variant.label = " + ".join(variant.files) + (" + --set" if install.sets else "") + (
            f" (helm command at {install.where})")
        out.append(variant)
    return out


def _resolve(root: Path, folder: str, name: str, chart: Chart) -> str | None:
    """A values file a command names: relative to the command's file, the root or the chart."""
    for base in (folder, ".", chart.folder):
        rel = os.path.normpath(os.path.join(base, name)).replace(os.sep, "/")
        if not rel.startswith("..") and (root / rel).is_file():
            return rel
    return None


def installs_of(chart: Chart, commands: list[Install], root: Path) -> list[Install]:
    """The commands that install this chart: by its folder (``./charts/x``, ``charts/x/``: relative to the command's
    file where a chart is there, else to the root) or by its package (``x-1.0.0.tgz``, as ``helm package`` names
    it)."""
    out = []
    package = f"{chart.name}-{chart.meta.get('version')}.tgz"
    for install in commands:
        target = install.chart.rstrip("/")
        named = next((rel for rel in (os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
                                      for base in (install.folder, "."))
                      if not rel.startswith("..") and (root / rel / "Chart.yaml").is_file()), None)
        if named == chart.folder or named is None and PurePosixPath(target).name == package:
            out.append(install)
    return out


def _dependency(parent: Chart, child: Chart) -> dict:
    for dependency in parent.meta.get("dependencies") or []:
        if isinstance(dependency, dict) and child.key in (dependency.get("alias"), dependency.get("name")):
            return dependency
    return {}


def _path(values: Any, path: str) -> Any:
    for part in path.strip().split("."):
        values = values.get(part) if isinstance(values, dict) else None
    return values


def enabled(parent: Chart, child: Chart, values: dict) -> bool | None:
    """Whether a subchart is installed with these values, as Helm decides: its ``condition`` (the first path of
    the list that is set to true or false), else its ``tags`` (any tag true), else yes; None when a value that
    decides it is not known."""
    dependency = _dependency(parent, child)
    for path in str(dependency.get("condition") or "").split(","):
        found = _path(values, path) if path.strip() else None
        if found is UNKNOWN:
            return None
        if isinstance(found, bool):
            return found
    tags = dependency.get("tags")
    if isinstance(tags, list) and tags:
        found = [_path(values, f"tags.{tag}") for tag in tags]
        if any(v is True for v in found):
            return True
        return None if any(v is UNKNOWN for v in found) else not any(isinstance(v, bool) for v in found)
    return True


def with_imports(root: Path, parent: Chart, charts: list[Chart], values: dict) -> dict:
    """The parent's values with what its enabled subcharts export to it (``import-values``: a name of the child's
    ``exports``, or ``child``/``parent`` paths). Whether the parent's own value or the imported one wins has changed
    between Helm versions: where they differ the value is not known."""
    out = values
    for child in (c for c in charts if c.parent is parent):
        imports = _dependency(parent, child).get("import-values") or []
        state = enabled(parent, child, values)
        if not imports or state is False:
            continue
        own = _load(root / child.folder / "values.yaml")
        own = own if isinstance(own, dict) else {}
        for entry in imports:
            if isinstance(entry, str):
                source, target = _path(own, f"exports.{entry}"), ""
            elif isinstance(entry, dict):
                source, target = _path(own, str(entry.get("child", ""))), str(entry.get("parent", ""))
            else:
                continue
            if isinstance(source, dict):
                out = _import(out, source, [p for p in target.split(".") if p], state is None)
    return out


def _import(values: dict, source: dict, target: list[str], unsure: bool) -> dict:
    out = dict(values)
    if target:
        inner = out.get(target[0])
        out[target[0]] = _import(inner if isinstance(inner, dict) else {}, source, target[1:], unsure)
        return out
    for key, value in source.items():
        mine = out.get(key)
        if isinstance(mine, dict) and isinstance(value, dict):
            out[key] = _import(mine, value, [], unsure)
        elif mine is None:
            out[key] = UNKNOWN if unsure else value
        elif mine != value:
            out[key] = UNKNOWN
    return out


def subchart_values(root: Path, variant: Variant, child: Chart) -> Variant:
    """A subchart's values: its own ``values.yaml``, the parent's under its key, and the parent's ``global:``."""
    own = _load(root / child.folder / "values.yaml")
    own = own if isinstance(own, dict) else {}
    given = variant.values.get(child.key)
    values = merge(own, given if isinstance(given, dict) else {})
    if isinstance(variant.values.get("global"), dict):
        values = merge(values, {"global": merge(own.get("global") or {}, variant.values["global"])})
    prefix = child.key + "."
    return replace(variant, values=values, files=[f"{child.folder}/values.yaml", *variant.files],
                   layers=[own, *(layer.get(child.key) if isinstance(layer.get(child.key), dict) else {}
                                  for layer in variant.layers)],
                   set_at={k[len(prefix):]: at for k, at in variant.set_at.items() if k.startswith(prefix)})


def render(root: Path, chart: Chart, variant: Variant, defines: dict[str, list], rel: str) -> Rendered:
    """One template of ``chart`` rendered with ``variant`` (raises ValueError when it does not parse). An ``if`` whose
    condition is not known renders each of its branches (an environment variable set in either is one of its
    values); where that is no YAML (``apiVersion`` chosen by the cluster's version: two of them), only the first
    branch such an ``if`` may take, its values still marked as ones that may not be set."""
    nodes = _parse(_read(root / rel), {})
    rendered = None
    for every_branch in (True, False):
        renderer = Renderer(defines, chart.meta, variant, rel)
        renderer.every_branch = every_branch
        out = _Output(strict=False)
        try:
            renderer.nodes(nodes, renderer.root, ChainMap({"$": renderer.root}), out, False)
        except _Stop as stop:
            raise ValueError(f"{stop.kind} outside a range") from None
        rendered = Rendered(out.text(), out.lines, out.conditional)
        if not out.conditional or _is_yaml(rendered.text):
            break
    assert rendered is not None
    return rendered


def _is_yaml(text: str) -> bool:
    try:
        for _ in yaml.safe_load_all(text):
            pass
    except yaml.YAMLError:
        return False
    return True


def command_files(root: Path, paths: list[str], charts: list[Chart]) -> list[str]:
    """Where install commands may be written: the deployment files (CI YAML), the scripts (sh, bash, PowerShell,
    cmd), Makefiles and Markdown files of the root, of each chart's folder and of the folders above it, and the
    scripts of those folders' own subfolders (``deploy/powershell/`` beside ``deploy/helm/``)."""
    folders = {"."}
    for chart in charts:
        parts = PurePosixPath(chart.folder).parts
        folders |= {"/".join(parts[:n]) or "." for n in range(len(parts) + 1)}
    out = [p for p in paths if p.endswith((".yml", ".yaml")) and "templates/" not in p]
    for folder in sorted(folders):
        try:
            names = sorted(os.listdir(root / folder))
        except OSError:
            continue
        out += [(name if folder == "." else f"{folder}/{name}") for name in names
                if name.endswith((".md", ".mk", *_SCRIPTS)) or name in ("Makefile", "justfile")]
        for sub in names:
            inner = sub if folder == "." else f"{folder}/{sub}"
            if sub.startswith(".") or inner in folders or not (root / inner).is_dir() or (root / inner).is_symlink():
                continue
            try:
                out += [f"{inner}/{name}" for name in sorted(os.listdir(root / inner)) if name.endswith(_SCRIPTS)]
            except OSError:
                continue
    return sorted(set(out))


#: the scripts an install command may be written in: sh, bash, PowerShell, cmd
_SCRIPTS = (".sh", ".bash", ".ps1", ".psm1", ".cmd", ".bat")
