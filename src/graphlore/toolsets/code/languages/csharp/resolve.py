"""C# resolution: namespaces and using directives, base types, overrides, calls by declared types.

Unqualified type and function names are looked for in the enclosing namespaces (innermost first), then in
the namespaces the ``using`` directives open (``using static`` ones for their members too); ``using X =
A.B;`` aliases a type. ``this`` and ``base`` are the enclosing instance and its base class.
"""

from __future__ import annotations

from ..symbols import Bound
from ..typed import TypedResolver

BUILTIN_TYPES = frozenset({
    "bool", "byte", "sbyte", "char", "decimal", "double", "float", "int", "uint", "nint", "nuint", "long", "ulong",
    "short", "ushort", "object", "string", "void", "dynamic", "var", "String", "Object", "Task", "ValueTask",
    "Exception", "List", "Dictionary", "IEnumerable", "Func", "Action",
})
OBJECT_METHODS = frozenset({"ToString", "Equals", "GetHashCode", "GetType", "MemberwiseClone"})


class CSharpResolver(TypedResolver):
    BUILTIN_TYPES = BUILTIN_TYPES
    BUILTIN_FUNCTIONS = frozenset({"nameof", "typeof", "sizeof", "default"})
    OBJECT_METHODS = OBJECT_METHODS
    SUPER_RECEIVERS = frozenset({"base"})

    def visible_packages(self, bound: Bound) -> list[str]:
        own = bound.facts.package
        enclosing = []
        while own:
            enclosing.append(own)
            own = own.rpartition(".")[0]
        opened = [imp.target for imp in bound.facts.imports if imp.names == (("*", "*"),)]
        return [*enclosing, "", *opened]

    def imported(self, bound: Bound) -> dict[str, str]:
        return {alias: target for imp in bound.facts.imports for target, alias in imp.names if alias != "*"}

    def base_type(self, written: str) -> str:
        return written.split("<", 1)[0].rstrip("?").replace("[]", "").strip()
