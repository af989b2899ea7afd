"""The languages the code toolset reads: one line per language. Everything else finds a language here, by
its name or a file's suffix, and never imports a language package itself."""

from __future__ import annotations

from functools import cache

from . import cpp, csharp, go, java, kotlin, php, proto, python, ruby, rust, typescript
from .base import Language

LANGUAGES: tuple[Language, ...] = (
    java.LANGUAGE,
    python.LANGUAGE,
    typescript.LANGUAGE,
    go.LANGUAGE,
    kotlin.LANGUAGE,
    csharp.LANGUAGE,
    php.LANGUAGE,
    ruby.LANGUAGE,
    rust.LANGUAGE,
    cpp.LANGUAGE,
    proto.LANGUAGE,
)


@cache
def _index(languages: tuple[Language, ...]) -> tuple[dict[str, Language], dict[str, str]]:
    by_name = {name: language for language in languages for name in language.names}
    by_suffix = {suffix: name for language in languages for suffix, name in language.extensions.items()}
    return by_name, by_suffix


def by_name(name: str) -> Language:
    """The language whose files carry ``language == name`` (``javascript`` is TypeScript's package)."""
    return _index(LANGUAGES)[0][name]


def names() -> tuple[str, ...]:
    """Every ``language`` a file may carry, in registry order."""
    return tuple(_index(LANGUAGES)[0])


def suffixes() -> dict[str, str]:
    """File suffix -> the ``language`` of such files."""
    return _index(LANGUAGES)[1]


#: the ``language`` values of the registered languages (the `find` filter's closed set)
NAMES = names()
