"""Kotlin resolution: packages and imports (aliases too), supertypes, overrides, calls by declared and
inferred types, constructor calls without ``new``, Java types and members across the two languages.

Unqualified names are looked for in the file's package, then through its single and wildcard imports. A
receiver's type comes from a declaration (``val x: T``, a parameter, a property) or from what a call makes
(``val x = Foo()`` is a ``Foo``; ``val x = repo.find()`` what ``find`` returns). ``this`` and ``super`` are
the enclosing instance and its supertype.
"""

from __future__ import annotations

from ..symbols import Bound, Ref
from ..typed import TypedResolver

BUILTIN_FUNCTIONS = frozenset({
    "println", "print", "listOf", "listOfNotNull", "mutableListOf", "arrayListOf", "setOf", "mutableSetOf", "mapOf",
    "mutableMapOf", "hashMapOf", "arrayOf", "emptyList", "emptyMap", "emptySet", "require", "requireNotNull",
    "check", "checkNotNull", "error", "TODO", "lazy", "run", "let", "apply", "also", "with", "takeIf", "repeat",
    "synchronized", "buildString", "buildList", "sequenceOf", "to", "use", "runCatching", "maxOf", "minOf",
})
BUILTIN_TYPES = frozenset({
    "Any", "Unit", "Nothing", "String", "Int", "Long", "Short", "Byte", "Double", "Float", "Boolean", "Char",
    "List", "MutableList", "Map", "MutableMap", "Set", "MutableSet", "Array", "Pair", "Triple", "Sequence",
    "Exception", "RuntimeException", "Throwable",
})
OBJECT_METHODS = frozenset({"equals", "hashCode", "toString", "copy", "let", "apply", "also", "run", "takeIf"})


class KotlinResolver(TypedResolver):
    BUILTIN_FUNCTIONS = BUILTIN_FUNCTIONS
    BUILTIN_TYPES = BUILTIN_TYPES
    OBJECT_METHODS = OBJECT_METHODS

    def visible_packages(self, bound: Bound) -> list[str]:
        wildcards = [imp.target for imp in bound.facts.imports if imp.names == (("*", "*"),)]
        return [bound.facts.package, *wildcards]

    def imported(self, bound: Bound) -> dict[str, str]:
        return {alias: imp.target for imp in bound.facts.imports for _name, alias in imp.names if alias != "*"}

    def base_type(self, written: str) -> str:
        return written.split("<", 1)[0].rstrip("?").strip()

    def package_callables(self, package: str, name: str) -> list[Ref]:
        """Top-level functions (keyed ``name(Types)``) of ``package``."""
        fqn = self.join(package, name)
        return self.reachable([r for r in self.table.by_name(name, self.t)
                               if self.table.sym(r).kind == "function"
                               and self.table.fqn_of(r).split("(", 1)[0] == fqn])
