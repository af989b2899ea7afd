"""Go build constraints: whether the default build compiles a file.

A file whose ``//go:build`` line (or legacy ``// +build`` lines) needs a tag that no ordinary build sets is left
out of the program: Wire's injector templates (``//go:build wireinject``, beside the generated
``wire_gen.go`` with ``!wireinject``), ``//go:build ignore`` scripts, integration-test or tool variants. Such a
file declares again what a built file declares (``InitApp`` twice), so a name that reaches both is ambiguous.

The expression is read with three values: a custom tag is false (``go build`` sets none), an operating system,
architecture, ``cgo``, ``unix``, ``gc`` or ``gccgo`` tag is unknown (a build for some platform sets it), a
``go1.N`` tag is true. A file is left out only when its expression is false whatever the platform: never a
``linux`` or ``windows`` variant, which some build compiles.
"""

from __future__ import annotations

import re

_GOOS = frozenset("aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 "
                  "solaris wasip1 windows zos".split())
_GOARCH = frozenset("386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64 mips64le mips64p32 "
                    "mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm".split())
_PLATFORM = _GOOS | _GOARCH | {"cgo", "unix", "gc", "gccgo"}
_TOKEN = re.compile(r"\s*(\(|\)|!|&&|\|\||[\w.]+)")


def excluded(header: str) -> str | None:
    """The constraint that leaves the file out of every default build, as written, or None (the file is built,
    or some platform's build compiles it). ``header`` is the file's text before its ``package`` clause."""
    modern = re.search(r"(?m)^//go:build\s+(.+?)\s*$", header)
    if modern:
        expression = modern.group(1)
        return expression if _parse(expression) is False else None
    legacy = re.findall(r"(?m)^//\s*\+build\s+(.+?)\s*$", header)
    if legacy and _legacy(legacy) is False:
        return " && ".join(f"({line})" for line in legacy)
    return None


def _tag(name: str) -> bool | None:
    if re.fullmatch(r"go1\.\d+", name):
        return True
    return None if name in _PLATFORM else False


def _not(value: bool | None) -> bool | None:
    return None if value is None else not value


def _and(values: list[bool | None]) -> bool | None:
    return False if False in values else (True if all(v is True for v in values) else None)


def _or(values: list[bool | None]) -> bool | None:
    return True if True in values else (False if all(v is False for v in values) else None)


def _parse(expression: str) -> bool | None:
    """A ``//go:build`` expression's value; unknown (None) when it does not parse."""
    tokens = _TOKEN.findall(expression)
    if "".join(tokens) != re.sub(r"\s+", "", expression):
        return None
    at = 0

    def joined(operator: str, part, combine) -> bool | None:
        """``part (operator part)*``, its values combined."""
        nonlocal at
        values = [part()]
        while at < len(tokens) and tokens[at] == operator:
            at += 1
            values.append(part())
        return combine(values)

    def either() -> bool | None:
        return joined("||", both, _or)

    def both() -> bool | None:
        return joined("&&", single, _and)

    def single() -> bool | None:
        nonlocal at
        if at >= len(tokens):
            raise ValueError(expression)
        token = tokens[at]
        at += 1
        if token == "!":
            return _not(single())
        if token == "(":
            value = either()
            if at >= len(tokens) or tokens[at] != ")":
                raise ValueError(expression)
            at += 1
            return value
        if token in (")", "&&", "||"):
            raise ValueError(expression)
        return _tag(token)

    try:
        value = either()
    except ValueError:
        return None
    return value if at == len(tokens) else None


def _legacy(lines: list[str]) -> bool | None:
    """``// +build`` lines: the lines are ANDed, a line's space-separated options ORed, an option's
    comma-separated terms ANDed, ``!`` negates a term."""
    def term(word: str) -> bool | None:
        return _not(_tag(word[1:])) if word.startswith("!") else _tag(word)

    return _and([_or([_and([term(t) for t in option.split(",")]) for option in line.split()]) for line in lines])
