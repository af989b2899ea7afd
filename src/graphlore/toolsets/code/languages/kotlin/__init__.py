"""Kotlin: classes, objects, data and enum classes, interfaces, functions and extension functions,
properties, annotations and call sites (`extract`); packages, imports, supertypes and calls, Java's types
included (`resolve`); Gradle Kotlin DSL builds; the JVM's role and capability tables (Spring and the rest),
read as Java's are."""

from __future__ import annotations

import re

from ...model import SymbolFact
from .. import builds, roles
from ..base import Language, no_module
from . import extract
from .resolve import KotlinResolver


def _main(sym: SymbolFact) -> bool:
    return sym.kind == "function" and sym.name == "main" and len(sym.params) <= 1


LANGUAGE = Language(
    "kotlin", {".kt": "kotlin", ".kts": "kotlin"}, extract.extract, KotlinResolver, roles.jvm_rules(_main),
    module_name=no_module,
    test_files=re.compile(r".*(Test|Tests|IT|Spec)\.kt$"),
    skip_suffixes=(".gradle.kts",),
    packages=True,
    simple_annotations=True,
    builds=(builds.GRADLE_SETTINGS, builds.GRADLE),
)
