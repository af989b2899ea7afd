"""The environment variables a piece of source text reads, by name, in any language the index reads: ``describe``
of a symbol shows where the project's deployment sets each one (``env_from``), so "where does this code find its
database" is answered beside the code that reads it.

**Read** (the name as a string literal, or the attribute after ``.env.``): ``os.environ["X"]``,
``os.environ.get("X")``, ``os.getenv("X")``, ``environ.setdefault("X", ...)`` (Python); ``process.env.X``,
``process.env["X"]``, ``import.meta.env.X``, ``Bun.env.X``, ``Deno.env.get("X")`` (JavaScript, TypeScript);
``os.Getenv("X")``, ``os.LookupEnv("X")`` (Go); ``System.getenv("X")`` (Java, Kotlin, Scala);
``Environment.GetEnvironmentVariable("X")`` (C#); ``ENV["X"]``, ``ENV.fetch("X")`` (Ruby); ``getenv("X")``,
``$_ENV["X"]``, ``$_SERVER["X"]`` and Laravel's ``env("X")`` (PHP); ``env::var("X")``, ``env::var_os("X")``,
``env!("X")`` (Rust); ``getenv("X")``, ``std::getenv("X")`` (C, C++). A name held in a variable is not read."""

from __future__ import annotations

import re

_NAME = r"""["']([A-Za-z_][A-Za-z0-9_.\-]*)["']"""
_CALLS = re.compile(r"(?:\bgetenv|\bGetenv|\bLookupEnv|\bGetEnvironmentVariable|\benviron\.get|\benviron\.setdefault"
                    r"|\bENV\.fetch|\benv::var(?:_os)?|\benv!|\bDeno\.env\.get)\s*\(\s*" + _NAME)
_LARAVEL = re.compile(r"""(?<![\w.>$:])env\(\s*["']([A-Z_][A-Z0-9_]*)["']""")
_INDEXED = re.compile(r"(?:\benviron|\bENV|\$_ENV|\$_SERVER|\bprocess\.env)\s*\[\s*" + _NAME + r"\s*\]")
_ATTRIBUTE = re.compile(r"\b(?:process\.env|import\.meta\.env|Bun\.env)\.([A-Za-z_]\w*)")


def variables_read(text: str) -> list[str]:
    """The environment variables ``text`` reads by name, in the order first read, once each."""
    found: list[tuple[int, str]] = []
    for pattern in (_CALLS, _LARAVEL, _INDEXED, _ATTRIBUTE):
        found += [(m.start(), m.group(1)) for m in pattern.finditer(text)]
    return list(dict.fromkeys(name for _, name in sorted(found)))
