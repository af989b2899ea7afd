"""A tiny extra language for the tests: Starlark (Bazel's ``.bzl`` / ``.star`` files), read with the Python
grammar the project already ships. It shows what adding a language takes: this one package, written against
the shared interface (`graphlore.toolsets.code.languages.base.Language`), and one line in the registry
(``registry.LANGUAGES``), which the test adds; no other language's file changes.

What it reads: top-level ``def`` functions, ``load("//pkg:file.bzl", "name", alias="name")`` as imports,
and call sites; a call goes to a function of the same file, or one a ``load`` brings, or is a builtin.
"""

from __future__ import annotations

import re

from graphlore.toolsets.code.languages.base import Language
from graphlore.toolsets.code.languages.roles import Rules

from .extract import extract
from .resolve import StarlarkResolver

LANGUAGE = Language(
    "starlark", {".bzl": "starlark", ".star": "starlark"}, extract, StarlarkResolver, Rules(),
    separator="%",
    test_files=re.compile(r".*_test\.(bzl|star)$"),
)
