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


def assignments(text: str, rel: str) -> dict[str, list[str]]:
    """Each variable the file assigns -> every assignment of it, as written, with ``(file:line)``."""
    out: dict[str, list[str]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        for pattern in (_POSIX, _FISH, _POWERSHELL, _CMD):
            found = pattern.match(line)
            if found is None:
                continue
            value = _value(line, found.end())
            if pattern is _POSIX and _prefixes_a_command(line, found):
                break
            value = value.strip('"') if pattern is _CMD else value
            out.setdefault(found.group(1), []).append(f"{found.group(1)}={value} ({rel}:{number})")
            break
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
