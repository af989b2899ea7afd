"""The type a C# expression makes, when the expression says it: ``new T(..)`` (a cast before it allowed), Mapster's
``x.Adapt<T>()`` and AutoMapper's ``mapper.Map<T>(x)`` (``Map<TSource, T>``: the last type argument)."""

from __future__ import annotations

import re

NEW = re.compile(r"^(?:\(\s*[\w.<>, ]+\s*\)\s*)?new\s+([\w.]+)\s*[({<]")
MAPPED = re.compile(r"\.(?:Adapt|Map)\s*<\s*(?:[\w.]+\s*,\s*)?([\w.]+)\s*>\s*\([^()]*\)$")


def made_type(text: str) -> str | None:
    """The simple name of the type ``text`` makes or maps to, else None."""
    text = text.strip().removesuffix("!")
    found = NEW.match(text) or MAPPED.search(text)
    return found.group(1).rsplit(".", 1)[-1] if found else None
