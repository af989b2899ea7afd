"""The environment variables a piece of source text reads, by name, in any language the index reads: ``describe``
of a symbol shows where the project's deployment sets each one (``env_from``), so "where does this code find its
database" is answered beside the code that reads it.

**Read** (the name as a string literal, or the attribute after ``.env.``): ``os.environ["X"]``,
``os.environ.get("X")``, ``os.getenv("X")``, ``environ.setdefault("X", ...)`` (Python); ``process.env.X``,
``process.env["X"]``, ``import.meta.env.X``, ``Bun.env.X``, ``Deno.env.get("X")`` (JavaScript, TypeScript);
``os.Getenv("X")``, ``os.LookupEnv("X")`` (Go); ``System.getenv("X")`` (Java, Kotlin, Scala);
``Environment.GetEnvironmentVariable("X")`` (C#); ``ENV["X"]``, ``ENV.fetch("X")`` (Ruby); ``getenv("X")``,
``$_ENV["X"]``, ``$_SERVER["X"]`` and Laravel's ``env("X")`` (PHP); ``env::var("X")``, ``env::var_os("X")``,
``env!("X")`` (Rust); ``getenv("X")``, ``std::getenv("X")`` (C, C++). A name held in a variable is not read, nor one
written in a comment or a string (commented-out code, a docstring naming an old variable: ``#`` comments in Python,
Ruby, shell and PHP, ``//`` and ``/* */`` elsewhere; a ``//`` or ``#`` inside a string literal, as in ``"http://"``,
starts none)."""

from __future__ import annotations

import re

_NAME = r"""["']([A-Za-z_][A-Za-z0-9_.\-]*)["']"""
_CALLS = re.compile(r"(?:\bgetenv|\bGetenv|\bLookupEnv|\bGetEnvironmentVariable|\benviron\.get|\benviron\.setdefault"
                    r"|\bENV\.fetch|\benv::var(?:_os)?|\benv!|\bDeno\.env\.get)\s*\(\s*" + _NAME)
_LARAVEL = re.compile(r"""(?<![\w.>$:])env\(\s*["']([A-Z_][A-Z0-9_]*)["']""")
_INDEXED = re.compile(r"(?:\benviron|\bENV|\$_ENV|\$_SERVER|\bprocess\.env)\s*\[\s*" + _NAME + r"\s*\]")
_ATTRIBUTE = re.compile(r"\b(?:process\.env|import\.meta\.env|Bun\.env)\.([A-Za-z_]\w*)")


#: the suffixes of languages whose line comments start with ``#`` (PHP also has ``//`` and ``/* */``)
_HASH = frozenset({".py", ".pyi", ".rb", ".sh", ".bash", ".php", ".pl", ".r", ".ex", ".exs"})
_SLASH_TOO = frozenset({".php"})


def _code_and_strings(text: str, suffix: str) -> tuple[str, str]:
    """``text`` with its comments blanked (their characters spaces, lines kept), then the same with its string
    literals' contents blanked too: a read is one that starts in code (``os.getenv("X")``: the name is the string
    it passes), and a comment marker inside a string (``"http://"``) starts no comment."""
    hash_comments = suffix.lower() in _HASH
    slash = not hash_comments or suffix.lower() in _SLASH_TOO
    out, code, quote, position = list(text), list(text), "", 0
    while position < len(text):
        char = text[position]
        if quote:
            if text.startswith(quote, position):
                position, quote = position + len(quote), ""
                continue
            step = 2 if char == "\\" else 1
            code[position:position + step] = [" "] * len(code[position:position + step])
            quote = "" if char == "\n" and len(quote) == 1 and quote != "`" else quote   # no string runs on
            position += step
            continue
        end = None
        if hash_comments and char == "#" or slash and text.startswith("//", position):
            end = text.find("\n", position)
        elif slash and text.startswith("/*", position):
            end = text.find("*/", position + 2)
            end = end + 2 if end >= 0 else end
        if end is not None:
            end = len(text) if end < 0 else end
            out[position:end] = code[position:end] = [c if c == "\n" else " " for c in text[position:end]]
            position = end
            continue
        triple = text[position:position + 3]
        quote = triple if hash_comments and triple in ('"""', "'''") else char if char in "\"'`" else ""
        position += len(quote) or 1
    return "".join(out), "".join(code)


def variables_read(text: str, suffix: str = "") -> list[str]:
    """The environment variables ``text`` (the source of a file named ``*suffix``) reads by name, in the order first
    read, once each; a read written in a comment or a string (a docstring) left out (`_code_and_strings`)."""
    text, code = _code_and_strings(text, suffix)
    found: list[tuple[int, str]] = []
    for pattern in (_CALLS, _LARAVEL, _INDEXED, _ATTRIBUTE):
        found += [(m.start(), m.group(1)) for m in pattern.finditer(text) if code[m.start()] != " "]
    return list(dict.fromkeys(name for _, name in sorted(found)))
