"""A value with a fallback written as a conditional in TS/JS: ``process.env.X ? process.env.X : "/api/"``,
``X !== undefined ? X : "d"``, ``typeof X === "undefined" ? "d" : X``, ``!X ? "d" : X``. The conditional tests a
value and gives that same value when it is set, the fallback when not: it is ``X || "d"`` (`fallback`), so an
environment variable keeps its name and the code's default. A conditional on anything else is one of two values
(`conditional` splits it; the folder does not pick one)."""

from __future__ import annotations

import re

from ..folding import outside_quotes, unwrap

_ENV_KEY = re.compile(r"""(process\.env|import\.meta\.env|__ENV)\[(["'`])([A-Za-z_]\w*)\2\]""")
_SET = re.compile(r"""^(?:(.+?)(?:!==undefined|!=(?:undefined|null))|(?:undefined!==|(?:undefined|null)!=)(.+)|"""
                  r"""typeof(.+?)!==?(["'])undefined\4)$""")
_UNSET = re.compile(r"""^(?:(.+?)(?:===undefined|==(?:undefined|null))|(?:undefined===|(?:undefined|null)==)(.+)|"""
                    r"""typeof(.+?)===?(["'])undefined\4)$""")


def conditional(text: str) -> tuple[str, str, str] | None:
    """``c ? a : b`` at the top level of ``text`` (not inside brackets or quotes; ``??`` and ``?.`` are no
    conditional): (condition, value when true, value when false), or None."""
    question, nested, skip = -1, 0, -1
    for i, ch, depth in outside_quotes(text):
        if depth or i <= skip:
            continue
        if ch == "?":
            after = text[i + 1:i + 2]
            if after == "?" or after == "." and not text[i + 2:i + 3].isdigit():
                skip = i + 1
                continue
            if question < 0:
                question = i
            else:
                nested += 1
        elif ch == ":" and question >= 0:
            if nested == 0:
                return text[:question].strip(), text[question + 1:i].strip(), text[i + 1:].strip()
            nested -= 1
    return None


def fallback(text: str) -> tuple[str, str] | None:
    """(the value tested, the fallback) of a conditional that gives the value it tests when that is set
    (``a ? a : b``, ``a !== undefined ? a : b``, ``a == null ? b : a``), else None."""
    parts = conditional(text)
    if parts is None:
        return None
    condition, when_true, when_false = parts
    subject, is_set = _tested(_plain(condition))
    value, default = (when_true, when_false) if is_set else (when_false, when_true)
    return (value, default) if subject == _plain(value) and value and default else None


def _tested(condition: str) -> tuple[str, bool]:
    """What a condition tests and whether it holds when that value is set: ``!!a``, ``Boolean(a)``, ``a !== undefined``,
    ``a != null``, ``typeof a !== "undefined"`` (set); ``!a``, ``a === undefined``, ``a == null`` (not set)."""
    for pattern, is_set in ((_SET, True), (_UNSET, False)):
        found = pattern.match(condition)
        if found:
            subject = found.group(1) or found.group(2) or found.group(3)
            return _plain(subject), is_set
    if condition.startswith("!!"):
        return _plain(condition[2:]), True
    if condition.startswith("!"):
        return _plain(condition[1:]), False
    found = re.fullmatch(r"Boolean\((.+)\)", condition)
    return (_plain(found.group(1)), True) if found else (condition, True)


def _plain(text: str) -> str:
    """An expression compared by what it reads: no whitespace, no parentheses around it, ``process.env["X"]`` as
    ``process.env.X``, ``?.`` as ``.``."""
    text = re.sub(r"\s+", "", unwrap(text))
    return _ENV_KEY.sub(r"\1.\3", text.replace("?.", "."))

