"""C# resolution: namespaces and using directives, base types, overrides, calls by declared types.

Unqualified type and function names are looked for in the enclosing namespaces (innermost first), then in
the namespaces the ``using`` directives open (``using static`` ones for their members too); ``using X =
A.B;`` aliases a type. ``this`` and ``base`` are the enclosing instance and its base class. The service locator's
``GetRequiredService<T>()`` gives a ``T``. C# tells types apart by their number of type parameters too
(``IHandler`` and ``IHandler<T>`` in one namespace are two types): of project types with one name, a type written
with ``n`` type arguments is the one declaring ``n`` type parameters (`generic_arity`).
"""

from __future__ import annotations

from ...model import CallFact
from ..resolver import Ref, Target
from ..symbols import Bound
from ..typed import TypedResolver, TypeRes
from .extract import SERVICE_LOCATORS
from .overloads import excludes, literal_type, simple_type

BUILTIN_TYPES = frozenset({
    "bool", "byte", "sbyte", "char", "decimal", "double", "float", "int", "uint", "nint", "nuint", "long", "ulong",
    "short", "ushort", "object", "string", "void", "dynamic", "var", "String", "Object", "Task", "ValueTask",
    "Exception", "List", "Dictionary", "IEnumerable", "Func", "Action",
})
OBJECT_METHODS = frozenset({"ToString", "Equals", "GetHashCode", "GetType", "MemberwiseClone"})


def generic_arity(written: str) -> int:
    """How many type arguments a type as written has: ``Map<string, List<int>>`` 2, ``Handler<>`` 1, ``Order`` 0
    (the last name's, in a qualified ``Outer<A>.Inner<B, C>``)."""
    text = written.strip().rstrip("?").replace("[]", "")
    if not text.endswith(">"):
        return 0
    depth, commas = 0, 0
    for char in reversed(text):
        depth += {">": 1, "<": -1}.get(char, 0)
        commas += char == "," and depth == 1
        if depth == 0:
            return commas + 1
    return 0


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

    #: (simple name, number of type arguments) of the type being resolved, while it is (`type_ref`)
    _written: tuple[str, int] | None = None

    def resolve_type(self, written: str, bound: Bound, scope: str | None) -> TypeRes:
        name = self.base_type(written).strip()
        if not name:
            return ("unknown", written)
        arity = generic_arity(written)

        def resolve() -> TypeRes:
            outer, self._written = self._written, (name.rpartition(".")[2], arity)
            try:
                return self._resolve_type(name, bound, scope)
            finally:
                self._written = outer
        return self.t.memo(self._types, (bound.path, scope, name, arity), resolve)

    def type_ref(self, fqn: str, bound: Bound) -> Ref | None:
        """`TypedResolver.type_ref`; of several project types of this fqn, those declaring as many type
        parameters as the written type has arguments (where any does)."""
        refs = [r for r in self.table.lookup(fqn, self.t) if r[1] >= 0]
        if len(refs) > 1 and self._written is not None and fqn.rpartition(".")[2] == self._written[0]:
            refs = [r for r in refs if len(self.table.sym(r).type_params) == self._written[1]] or refs
        return self.pick_type(refs, bound)

    def pick(self, candidates: list, call: CallFact, how: str) -> Target:
        """`TypedResolver.pick`; where the arity leaves several overloads, the one the arguments' known types do
        not rule out (`overloads`), else ``ambiguous`` as before."""
        found, how_, why = super().pick(candidates, call, how)
        # one argument: its parameter is the one there is, named or not (the facts keep no argument's name, and
        # with several a named one may stand at another parameter's place)
        if found is not None or why.get("reason") != "ambiguous" or call.argc != 1 or len(call.args) != 1:
            return found, how_, why
        _, fitting = self.by_arity(candidates, call.argc)
        known = [self.argument_type(arg, call) for arg in call.args[:call.argc]]
        left = [ref for ref in fitting if not any(   # a variadic overload's parameters may be fewer
            kind and excludes(kind, written, arg)
            for kind, arg, (_, written) in zip(known, call.args, self.table.sym(ref).params, strict=False))]
        if len(left) == 1 and len(self.table.sym(left[0]).params) == call.argc:
            return left[0], how, {}
        return found, how_, why

    def argument_type(self, written: str, call: CallFact) -> str:
        """A literal's type, or the built-in type a local, parameter or field named by the argument is declared
        with; "" when not known."""
        kind = literal_type(written)
        name = written.strip()
        if kind or self.caller is None or not name.isidentifier():
            return kind
        bound = self.caller
        declared = self.local_type(bound, call.owner or None, name, call.line)
        key = call.owner if declared is None else None
        while key:   # a field of the enclosing types
            index = bound.by_key.get(key)
            if index is None:
                break
            fields = [bound.sym(m) for m in bound.members(key) if bound.sym(m).kind == "field" and
                      bound.sym(m).name == name]
            if fields:
                declared = fields[0].type
                break
            key = bound.sym(index).parent
        return simple_type(declared or "")

    def local_type(self, bound: Bound, owner: str | None, name: str, line: int) -> str | None:
        """`TypedResolver.local_type`, and a local of the top-level statements seen from a local function among
        them (which captures it, as a lambda there does)."""
        found = super().local_type(bound, owner, name, line)
        if found is not None or not owner or name not in bound.facts.locals.get("", {}):
            return found
        key: str | None = owner
        while key:
            index = bound.by_key.get(key)
            if index is None or bound.sym(index).kind not in ("function", "method"):
                return None   # inside a type: its members do not see the top-level statements' locals
            key = bound.sym(index).parent
        return super().local_type(bound, None, name, line)

    def call_result(self, call: CallFact, bound: Bound) -> TypeRes:
        """`TypedResolver.call_result`, and the service locator's ``sp.GetRequiredService<T>()`` /
        ``GetService<T>()``: the ``T`` it is asked for (its one type argument on the call's line)."""
        if call.name in SERVICE_LOCATORS:
            asked = {tuple(types) for line, name, types in bound.facts.extra.get("generic_calls", [])
                     if line == call.line and name == call.name}
            types = next(iter(asked)) if len(asked) == 1 else ()
            if len(types) == 1 and "<" not in types[0]:
                return self.resolve_type(types[0], bound, call.owner or None)
        return super().call_result(call, bound)
