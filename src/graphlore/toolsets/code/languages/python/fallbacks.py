"""A value with a fallback written as a conditional in Python: ``os.getenv("X") if os.getenv("X") else "d"``,
``os.environ["X"] if "X" in os.environ else "d"``, ``x if x is not None else "d"``, ``"d" if not x else x``. The
conditional tests a value and gives that same value when it is set, the fallback when not: it is ``x or "d"``
(`fallback`), so an environment variable keeps its name and the code's default. A conditional on anything else
is one of two values (`conditional` splits it; the folder does not pick one)."""

from __future__ import annotations

import re

from ..folding import split_top, unwrap

#: the ways one environment variable is read, each written as ``env:X`` (`_plain`)
_ENV_READ = re.compile(r"""^(?:os\.)?(?:(?:environ\.get|getenv)\((["'])(\w+)\1\)|environ\[(["'])(\w+)\3\])$""")
_IN_ENVIRON = re.compile(r"""^(["'])(\w+)\1(not)?in(?:os\.)?environ$""")


def conditional(text: str) -> tuple[str, str, str] | None:
    """``a if c else b`` at the top level of ``text``: (condition, value when true, value when false), or None."""
    parts = split_top(text, " if ")
    if len(parts) < 2:
        return None
    rest = split_top(" if ".join(parts[1:]), " else ")
    if len(rest) < 2:
        return None
    return rest[0], parts[0], " else ".join(rest[1:])


def fallback(text: str) -> tuple[str, str] | None:
    """(the value tested, the fallback) of a conditional that gives the value it tests when that is set
    (``a if a else b``, ``a if a is not None else b``, ``os.environ["X"] if "X" in os.environ else b``,
    ``b if not a else a``), else None."""
    parts = conditional(text)
    if parts is None:
        return None
    condition, when_true, when_false = parts
    subject, is_set = _tested(condition)
    value, default = (when_true, when_false) if is_set else (when_false, when_true)
    return (value, default) if subject == _plain(value) and value and default else None


def _tested(condition: str) -> tuple[str, bool]:
    """What a condition tests and whether it holds when that value is set: ``a``, ``bool(a)``, ``a is not None``,
    ``"X" in os.environ`` (set); ``not a``, ``a is None``, ``"X" not in os.environ`` (not set)."""
    text = " ".join(condition.split())
    found = re.fullmatch(r"(.+?) (is not|!=|is|==) None", text)
    if found:
        return _plain(found.group(1)), found.group(2) in ("is not", "!=")
    if text.startswith("not "):
        subject, is_set = _tested(text[4:])
        return subject, not is_set
    found = re.fullmatch(r"bool\((.+)\)", text)
    if found:
        return _plain(found.group(1)), True
    found = _IN_ENVIRON.match(re.sub(r"\s+", "", text))
    if found:
        return f"env:{found.group(2)}", found.group(3) is None
    return _plain(text), True


def _plain(text: str) -> str:
    """An expression compared by what it reads: no whitespace, no parentheses around it, any read of variable X
    from the environment (``os.getenv("X")``, ``os.environ.get("X")``, ``os.environ["X"]``) as ``env:X``."""
    text = re.sub(r"\s+", "", unwrap(text))
    found = _ENV_READ.match(text)
    return f"env:{found.group(2) or found.group(4)}" if found else text
