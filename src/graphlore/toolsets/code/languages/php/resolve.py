"""PHP resolution: namespaces and ``use`` imports, base classes, interfaces and traits, calls by declared types.

An unqualified class name is one a ``use`` imports (or aliases), else one of the file's namespace, else a global
one; a qualified one is looked for as written. A bare call ``f()`` is a function (``use function``, the
namespace's, a global one), never a method. ``$this``, ``self::`` and ``static::`` are the enclosing class
(its traits' members included), ``parent::`` its base class; ``new T()`` calls ``T``'s ``__construct``. A
call on a receiver of unknown type stays unresolved (no ``name_only`` guess: most PHP variables are untyped).
"""

from __future__ import annotations

from ...model import CallFact
from ..resolver import Target
from ..symbols import Bound
from ..typed import TypedResolver, TypeRes, UntypedLocals

BUILTIN_TYPES = frozenset({
    "string", "int", "float", "bool", "array", "mixed", "void", "null", "callable", "iterable", "object", "never",
    "false", "true", "self", "static", "Exception", "Throwable", "Closure", "stdClass", "DateTime",
    "DateTimeImmutable", "PDO", "PDOStatement", "ArrayObject", "Generator",
})


class PHPResolver(UntypedLocals, TypedResolver):
    BUILTIN_TYPES = BUILTIN_TYPES
    BUILTIN_FUNCTIONS = frozenset({"isset", "unset", "empty", "array", "list", "echo", "print", "exit", "die",
                                   "compact", "extract", "count", "strlen", "sprintf", "json_encode", "json_decode"})
    OBJECT_METHODS = frozenset({"__toString", "__get", "__set", "__call", "__invoke"})
    SUPER_RECEIVERS = frozenset({"super"})
    RELATIONS = ("extends", "implements", "uses")

    def visible_packages(self, bound: Bound) -> list[str]:
        own = bound.facts.package
        return [own, ""] if own else [""]

    def imported(self, bound: Bound) -> dict[str, str]:
        return {alias: target for imp in bound.facts.imports if not imp.static for target, alias in imp.names}

    def base_type(self, written: str) -> str:
        return written.strip().lstrip("?")

    def unqualified(self, call: CallFact, bound: Bound) -> Target:
        """A bare ``f()`` is a function, never a method (PHP calls those on ``$this``): one a ``use function``
        imports, else one of the file's namespace, else a global one; a function no project namespace declares is
        PHP's own or a library's (``curl_init``, ``array_map``): external, never undefined."""
        name = call.name
        for imp in bound.facts.imports:
            if imp.static and imp.names[0][1] == name:
                package, _, last = imp.target.rpartition(".")
                found = self.package_callables(package, last)
                return self.pick(found, call, "static_import") if found else \
                    (None, "", {"reason": "external_name", "detail": imp.target})
        for position, package in enumerate(self.visible_packages(bound)):
            found = self.package_callables(package, name)
            if found:
                return self.pick(found, call, "local" if position == 0 else "static_import")
        if name in self.BUILTIN_FUNCTIONS:
            return None, "", {"reason": "builtin", "detail": name}
        return None, "", {"reason": "external_name", "detail": f"{name} (a PHP or library function)"}

    def constructor_call(self, res: TypeRes, call: CallFact) -> Target:
        if res[0] == "project":
            found, _inherited, _external = self.find_members(res[1], "__construct", frozenset({"constructor"}))
            if found:
                return found[0], "constructor", {}
        return super().constructor_call(res, call)
