"""Java: classes, interfaces, enums, records and annotations with their members, imports and call sites
(`extract`); javac's name lookup, overloads, overrides, Spring and CDI injection (`resolve`); Spring,
Jakarta EE, JAX-RS, MyBatis and JUnit conventions as role and capability tables."""

from __future__ import annotations

import re

from ...model import SymbolFact
from .. import builds, roles
from ..base import Language, no_module
from . import extract
from .resolve import JavaResolver


def _main(sym: SymbolFact) -> bool:
    """``public static void main(String[])``."""
    return sym.kind == "method" and sym.name == "main" and "static" in sym.modifiers and len(sym.params) == 1 \
        and sym.params[0][1] in ("String[]", "String...")


RULES = roles.jvm_rules(_main)

LANGUAGE = Language(
    "java", {".java": "java"}, extract.extract, JavaResolver, RULES,
    module_name=no_module,
    test_files=re.compile(r".*(Test|Tests|IT)\.java$"),
    packages=True,
    simple_annotations=True,
    builds=(builds.MAVEN, builds.GRADLE_SETTINGS, builds.GRADLE),
)
