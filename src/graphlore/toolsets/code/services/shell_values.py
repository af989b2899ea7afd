"""Where a shell variable a deployment command reads is given its value in the same script or guide: a
``helm install ... --set secrets.queue.name=${QUEUE_NAME}`` is only half an answer until the guide's
``export QUEUE_NAME=$(az deployment group show ... --query properties.outputs.queueName.value -o tsv)`` is shown
beside it. Every assignment of the variable in the file is one candidate (a guide may set it twice, for two
environments): all are listed with their ``file:line``, never one picked.

**Read** (one line each; a value runs to the end of its quotes, of its ``$( ... )`` or to the first blank):
``NAME=value``, ``export NAME=value``, ``declare``/``typeset`` ``-x``, ``readonly`` and ``local`` (sh, bash, zsh),
``set -x NAME value`` with any of fish's scope flags, ``$env:NAME = value`` and ``$NAME = value`` (PowerShell),
``set NAME=value`` and ``set "NAME=value"`` (cmd). A bare ``NAME=value`` written before a command on its line
(``QUEUE=test ./run.sh``) is not one: it sets the variable for that command alone. What the value runs (``$(az ...)``) is shown as written: its
result is known only when the script runs."""

from __future__ import annotations

import posixpath
import re

#: a variable a command's value reads: ``$NAME``, ``${NAME}``, ``${NAME:-default}``, ``$env:NAME`` (PowerShell),
#: ``%NAME%`` (cmd)
_READ = re.compile(r"\$\{(\w+)[^}]*\}|\$env:(\w+)|\$(\w+)|%(\w+)%")

_POSIX = re.compile(r"^\s*(?:(?:export|readonly|local|(?:declare|typeset)(?:\s+-\w+)*)\s+)?([A-Za-z_]\w*)=(?=\S|$)")
_FISH = re.compile(r"^\s*set\s+(?:-[a-zA-Z]+\s+)+([A-Za-z_]\w*)\s+(?=\S)")
_POWERSHELL = re.compile(r"^\s*\$(?:env:)?([A-Za-z_]\w*)\s*=\s*(?=\S)", re.I)
_CMD = re.compile(r'^\s*set\s+"?([A-Za-z_]\w*)=', re.I)


def variables_read(value: str) -> list[str]:
    """The shell variables a value as written reads, in order, once each."""
    return list(dict.fromkeys(next(g for g in m.groups() if g) for m in _READ.finditer(value)))


def _value(line: str, start: int) -> str:
    """The value written from ``start``: to its closing quote, the ``)`` closing its ``(``, else the first blank."""
    depth, quote, position = 0, "", start
    while position < len(line):
        char = line[position]
        if quote:
            quote = "" if char == quote and line[position - 1] != "\\" else quote
        elif char in "\"'":
            quote = char
        elif char == "(":   # ``$( ... )``, PowerShell's ``( ... )``, a bash array
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif char.isspace() and not depth:
            break
        position += 1
    return line[start:position].rstrip(";")


_BARE = re.compile(r"\s*[A-Za-z_]\w*=")
#: what may follow an assignment on its line: the end of a command (``;``, ``&&``, ``||``, a pipe), a comment, a
#: continuation, a subshell's close
_ENDS = (";", "&", "|", "#", "\\", ")")


def _prefixes_a_command(line: str, found: re.Match) -> bool:
    """Whether a bare ``NAME=value`` (no ``export``, ``local`` ...) is written before a command on its line
    (``QUEUE=test ./run.sh``, ``A=1 B=2 make``): it sets the variable for that command alone, not for the script's
    other lines (nor for the command's own ``$QUEUE``, which the shell reads before)."""
    if line[:found.start(1)].strip():
        return False
    position = found.end() + len(_value(line, found.end()))
    while (bare := _BARE.match(line, position)) is not None:   # more assignments before the command
        position = bare.end() + len(_value(line, bare.end()))
    rest = line[position:].strip()
    return bool(rest) and not rest.startswith(_ENDS)


def _assigned(text: str) -> list[tuple[str, str, int]]:
    """(variable, value as written, line) of each assignment of the file, in order."""
    out: list[tuple[str, str, int]] = []
    for number, line in enumerate(text.splitlines(), 1):
        for pattern in (_POSIX, _FISH, _POWERSHELL, _CMD):
            found = pattern.match(line)
            if found is None:
                continue
            value = _value(line, found.end())
            if pattern is _POSIX and _prefixes_a_command(line, found):
                break
            out.append((found.group(1), value.strip('"') if pattern is _CMD else value, number))
            break
    return out


def assignments(text: str, rel: str) -> dict[str, list[str]]:
    """Each variable the file assigns -> every assignment of it, as written, with ``(file:line)``."""
    out: dict[str, list[str]] = {}
    for name, value, number in _assigned(text):
        out.setdefault(name, []).append(f"{name}={value} ({rel}:{number})")
    return out


#: a value the script computes (a variable, a command's output, an expression): known only when it runs
_COMPUTED = re.compile(r"[$`%(){}]")


def literal_values(text: str) -> dict[str, list[str]]:
    """Each variable whose every assignment in the file is a literal (``VALUES=values-prod.yaml``,
    ``$valuesFile = "gvalues.yaml"``, ``set FILE=a.yaml``) -> its distinct values, unquoted, in file order; a
    variable also assigned something the script computes is left out (its value is known only when it runs)."""
    out: dict[str, list[str]] = {}
    computed: set[str] = set()
    for name, value, _ in _assigned(text):
        unquoted = value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'" else value
        if not unquoted:   # ``$file = ""``: no value yet (a later line gives one)
            continue
        if _COMPUTED.search(unquoted):
            computed.add(name.lower())
        else:
            out.setdefault(name.lower(), [])
            if unquoted not in out[name.lower()]:
                out[name.lower()].append(unquoted)
    return {name: values for name, values in out.items() if name not in computed}


#: at most this many values of one written value are made from its variables' literal values
MAX_EXPANSIONS = 4


def expansions(value: str, literals: dict[str, list[str]]) -> list[str]:
    """``value`` with each variable it reads replaced by each of its literal values in the file (`literal_values`;
    PowerShell's names ignore case, so every name is looked up so): every combination, at most `MAX_EXPANSIONS`;
    empty when a variable it reads has none (set where the command runs, or computed)."""
    out = [value]
    for found in _READ.finditer(value):
        name = next(g for g in found.groups() if g)
        values = literals.get(name.lower())
        if not values:
            return []
        out = [one.replace(found.group(0), each, 1) for one in out for each in values]
        if len(out) > MAX_EXPANSIONS:
            return []
    return out


def origins(value: str, assigned: dict[str, list[str]], limit: int = 3) -> str:
    """`` (NAME: export NAME=... (file:line))`` for each variable ``value`` reads that the file assigns (at most
    ``limit`` assignments each, the rest counted); empty where it assigns none (set where the command runs)."""
    parts = []
    for name in variables_read(value):
        found = assigned.get(name) or []
        if found:
            more = f", {len(found) - limit} more" if len(found) > limit else ""
            parts.append(f"{name}: " + "; ".join(found[:limit]) + more)
        else:
            parts.append(f"{name}: not assigned in that file (set where the command runs)")
    return f" ({'; '.join(parts)})" if parts else ""


#: a change of the working folder: ``cd``, ``pushd``, PowerShell's ``Push-Location``/``Set-Location`` (and ``sl``),
#: cmd's ``cd /d``; ``popd``/``Pop-Location`` go back
_CHANGE = re.compile(r"^\s*(?:cd(?:\s+/d)?|pushd|chdir|Push-Location|Set-Location|sl)\s+(?:-Path\s+)?(.+?)\s*(?:;.*|&&.*)?$",
                     re.I)
_BACK = re.compile(r"^\s*(?:popd|Pop-Location)\b", re.I)
#: the script's own folder, as each shell writes it (where a relative path of the script starts from)
_SCRIPT_FOLDER = re.compile(r"""^(?:\$PSScriptRoot|\$\(\s*\$MyInvocation\.\w+(?:\.\w+)?\s*\|\s*Split-Path\s*\)|"""
                            r"""\$\(\s*Split-Path\s+(?:-Parent\s+)?\$MyInvocation\.MyCommand\.(?:Path|Definition)\s*\)|"""
                            r"""\$\(\s*dirname\s+["']?\$(?:0|\{BASH_SOURCE\[0\]\}|\{0\})["']?\s*\)|%~dp0)""", re.I)
_JOIN_PATH = re.compile(r"^\$?\(\s*Join-Path\s+(?:-Path\s+)?(\S+)\s+(?:-ChildPath\s+)?(\S+)\s*\)$", re.I)


def _folder_argument(written: str, folder: str, script: str) -> str | None:
    """The folder a ``cd`` argument names, from ``folder`` (relative to the project root; ``script``: the script's
    own folder); None when the script computes it."""
    written = written.strip().strip("\"'")
    joined = _JOIN_PATH.match(written)
    if joined:
        written = joined.group(1).strip("\"'") + "/" + joined.group(2).strip("\"'")
    base = folder
    start = _SCRIPT_FOLDER.match(written)
    if start:
        base, written = script, written[start.end():].lstrip("/\\") or "."
    if not written or _COMPUTED.search(written) or written.startswith(("/", "~")) or ":" in written:
        return None
    joined = posixpath.normpath(posixpath.join(base, written.replace("\\", "/")))
    return None if joined.startswith("..") else joined


def working_folder(text: str, line: int, script: str) -> str | None:
    """The folder (relative to the project root) a command at ``line`` of the script runs in, following the
    script's ``cd``/``pushd``/``Push-Location`` lines before it in file order (a script run from its own folder, as
    its relative paths assume); None when a change before it names a folder the script computes."""
    folder: str | None = script
    stack: list[str | None] = []
    for written in text.splitlines()[:line - 1]:
        if _BACK.match(written):
            folder = stack.pop() if stack else folder
            continue
        changed = _CHANGE.match(written)
        if changed:
            if re.match(r"^\s*(?:pushd|Push-Location)", written, re.I):
                stack.append(folder)
            folder = _folder_argument(changed.group(1), folder, script) if folder is not None else (
                script if _SCRIPT_FOLDER.match(changed.group(1).strip().strip("\"'")) else None)
    return folder
