"""Resolution by declared types, for languages whose names live in packages or namespaces and whose
variables, fields and results carry types as written (Go, Kotlin, C#).

A type name is looked up in the type parameters and nested types of the enclosing types, then through the
file's single imports, then in the packages it sees unqualified (its own first: `visible_packages`); a
qualified name (``pb.Order``, ``a.b.C``, ``Outer.Inner``) through a package alias, an enclosing type or the
project's fqns. A name none of these finds is external (never guessed).

A call goes, by its receiver (see `model.RESOLUTIONS`): unqualified to the enclosing types' members
(inherited and outer ones too), then to imported and package functions and to constructors; ``this`` and
``super`` to the class's own or inherited members; a receiver whose type is declared (parameter, local,
field, construction) or inferred (the type a resolved call returns, ``x := NewThing()``) to that type's
members; a type or a package to its static members and functions. Among several members with the name,
the arity decides; when it does not, the call stays ``ambiguous``. A receiver of unknown type falls back
to the one project method with that name (``name_only``), else stays unresolved.

A language subclasses `TypedResolver` and says what is its own: its packages and imports
(`visible_packages`, `imported`, `qualifiers`), how a type is written (`base_type`), its builtins, and
which receivers mean ``this`` and ``super``.
"""

from __future__ import annotations

from typing import Any

from ..model import CALLABLE_KINDS, TYPE_KINDS, CallFact, SymbolFact, package_id
from .resolver import Resolver, Target, scope_chain
from .roles import EXTERNAL_REASONS
from .symbols import Bound, EdgeSink, Ref, Table, Tracker

#: ("project", Ref) | ("external", name) | ("unknown", name) | ("typevar", name)
TypeRes = tuple[str, Any]
#: what a receiver is: ("instance", TypeRes) | ("static", Ref) | ("package", name) | ("unknown", why)
Receiver = tuple[str, Any]

_FIELDS = frozenset({"field"})


class TypedResolver(Resolver):
    """See the module docstring."""

    CLASS_KINDS = TYPE_KINDS
    PROJECT = "project"
    EXTERNAL_KINDS = frozenset({"external"})
    FILE_KIND = "file"
    #: receiver tree heads that mean the enclosing instance and its supertype
    SELF_RECEIVERS: frozenset[str] = frozenset({"this"})
    SUPER_RECEIVERS: frozenset[str] = frozenset({"super"})
    #: functions and types the language itself defines (``len``, ``println``, ``string``)
    BUILTIN_FUNCTIONS: frozenset[str] = frozenset()
    BUILTIN_TYPES: frozenset[str] = frozenset()
    #: methods every object has (never matched by name alone)
    OBJECT_METHODS: frozenset[str] = frozenset()

    def __init__(self, table: Table, tracker: Tracker, language):
        super().__init__(table, tracker, language)
        self._types = table.cache(f"{language.name}.types")
        self._supers = table.cache(f"{language.name}.supers")
        #: locals whose type is being worked out (``val x = x.copy()`` names itself)
        self._busy: set[tuple[str, str | None, str]] = set()

    # ---- what a language says -------------------------------------------------------------------
    def package_of(self, bound: Bound) -> str:
        """The package or namespace the file's declarations are in."""
        return bound.prefix

    def visible_packages(self, bound: Bound) -> list[str]:
        """Packages whose types and functions the file names unqualified, its own first."""
        return [self.package_of(bound)]

    def imported(self, bound: Bound) -> dict[str, str]:
        """Simple name -> the fqn a single import brings in (``import a.b.C as D``: ``D`` -> ``a.b.C``)."""
        return {}

    def qualifiers(self, bound: Bound) -> dict[str, str]:
        """Names that stand for a package in a qualified name (Go's import names) -> the package."""
        return {}

    def base_type(self, written: str) -> str:
        """A type as written without what does not name it (generic arguments, ``?``, ``*``, ``[]``)."""
        return written

    def join(self, package: str, name: str) -> str:
        return f"{package}{self.language.separator}{name}" if package else name

    # ---- types --------------------------------------------------------------------------------
    def type_ref(self, fqn: str, bound: Bound) -> Ref | None:
        """The project type with this fqn that ``bound`` means (`Resolver.pick_type`)."""
        return self.pick_type([r for r in self.table.lookup(fqn, self.t) if r[1] >= 0], bound)

    def resolve_type(self, written: str, bound: Bound, scope: str | None) -> TypeRes:
        name = self.base_type(written).strip()
        if not name:
            return ("unknown", written)
        return self.t.memo(self._types, (bound.path, scope, name), lambda: self._resolve_type(name, bound, scope))

    def _resolve_type(self, name: str, bound: Bound, scope: str | None) -> TypeRes:
        if name in self.BUILTIN_TYPES:
            return ("external", name)
        if "." in name:
            return self._qualified(name, bound, scope)
        for index, sym in scope_chain(bound, scope):
            if name in sym.type_params:
                return ("typevar", name)
            if sym.kind in TYPE_KINDS:
                if sym.name == name and sym.parent is None:
                    return ("project", (bound.path, index))
                found = self.nested((bound.path, index), name)
                if found is not None:
                    return ("project", found)
        imported = self.imported(bound).get(name)
        if imported is not None:
            ref = self.type_ref(imported, bound)
            return ("project", ref) if ref is not None else ("external", imported)
        for package in self.visible_packages(bound):
            ref = self.type_ref(self.join(package, name), bound)
            if ref is not None:
                return ("project", ref)
        return ("external", name)

    def _qualified(self, name: str, bound: Bound, scope: str | None) -> TypeRes:
        head, _, rest = name.partition(".")
        package = self.qualifiers(bound).get(head)
        if package is not None:
            ref = self.type_ref(self.join(package, rest), bound)
            return ("project", ref) if ref is not None else ("external", f"{package}.{rest}")
        first = self._resolve_type(head, bound, scope) if head not in self.BUILTIN_TYPES else ("external", head)
        if first[0] == "project":
            found: Ref | None = first[1]
            for part in rest.split("."):
                found = self.nested(found, part) if found is not None else None
            return ("project", found) if found is not None else ("unknown", name)
        parts = name.split(".")
        for cut in range(len(parts), 1, -1):
            ref = self.type_ref(".".join(parts[:cut]), bound)
            if ref is not None:
                for part in parts[cut:]:
                    ref = self.nested(ref, part) if ref is not None else None
                return ("project", ref) if ref is not None else ("unknown", name)
        return ("external", name)

    def nested(self, ref: Ref, name: str) -> Ref | None:
        bound = self.table.files[ref[0]]
        for index in bound.members(bound.sym(ref[1]).key):
            sym = bound.sym(index)
            if sym.kind in TYPE_KINDS and sym.name == name:
                return (bound.path, index)
        return None

    def supers(self, ref: Ref) -> list[tuple[str, TypeRes]]:
        def compute() -> list[tuple[str, TypeRes]]:
            bound = self.table.files[ref[0]]
            sym = bound.sym(ref[1])
            out = []
            for relation, written in sym.supers:
                res = self.resolve_type(written, bound, sym.parent)
                if res[0] == "unknown":
                    res = ("external", self.base_type(written))
                if not (res[0] == "project" and res[1] == ref):
                    out.append((relation, res))
            return out
        return self.t.memo(self._supers, ref, compute)

    def annotation_type(self, bound: Bound, sym: SymbolFact, name: str) -> Ref | None:
        res = self.resolve_type(name, bound, sym.parent)
        return res[1] if res[0] == "project" else None

    # ---- members ------------------------------------------------------------------------------
    def own_members(self, ref: Ref, name: str, kinds: frozenset[str]) -> list[Ref]:
        """Members named ``name`` that the type declares itself."""
        bound = self.table.files[ref[0]]
        return [(bound.path, i) for i in bound.members(bound.sym(ref[1]).key)
                if bound.sym(i).name == name and bound.sym(i).kind in kinds]

    def find_members(self, ref: Ref, name: str, kinds: frozenset[str]) -> tuple[list[Ref], bool, list[str]]:
        self.touch(ref)
        return self.first_declaring(ref, lambda r: self.own_members(r, name, kinds))

    def overridden(self, class_ref: Ref, method: SymbolFact) -> list[Ref]:
        def match(ref: Ref) -> Ref | None:
            found = [r for r in self.own_members(ref, method.name, frozenset({"method"}))
                     if len(self.table.sym(r).params) == len(method.params)]
            return found[0] if found else None
        return self.nearest_overridden(class_ref, match)

    def by_arity(self, candidates: list[Ref], argc: int) -> tuple[Ref | None, list[Ref]]:
        """The one candidate the call's arity fits (a single candidate fits whatever its defaults)."""
        if len(candidates) == 1 or argc < 0:
            return (candidates[0] if len(candidates) == 1 else None), candidates
        fitting = [r for r in candidates if len(self.table.sym(r).params) == argc
                   or any(t.startswith("...") or t.endswith("...") for _, t in self.table.sym(r).params)]
        return (fitting[0] if len(fitting) == 1 else None), fitting or candidates

    def pick(self, candidates: list[Ref], call: CallFact, how: str) -> Target:
        found, fitting = self.by_arity(candidates, call.argc)
        if found is not None:
            return found, how, {}
        return None, "", {"reason": "ambiguous", "candidates": [self.table.id_of(r) for r in fitting[:10]],
                          "detail": f"{len(fitting)} project callables named {call.name} fit"}

    # ---- functions in packages ------------------------------------------------------------------
    def package_callables(self, package: str, name: str) -> list[Ref]:
        """Top-level functions named ``name`` in ``package`` (dependency key ``n:<name>``)."""
        fqn = self.join(package, name)
        return self.reachable([r for r in self.table.by_name(name, self.t)
                               if self.table.sym(r).kind == "function" and self.table.fqn_of(r) == fqn])

    # ---- receivers ----------------------------------------------------------------------------
    def local_type(self, bound: Bound, owner: str | None, name: str, line: int) -> str | None:
        """The type a local or parameter was declared with ("" when untyped), None when it is not one. A call
        outside every symbol (C#'s top-level statements, a lambda among them) reads the file's own table ("")."""
        key = owner
        if not key and "" in bound.facts.locals:
            key = ""
        while key is not None:
            table = bound.facts.locals.get(key)
            if table and name in table:
                best = ""
                for decl_line, type_ in table[name]:
                    if type_ and type_ != "?" and (decl_line <= line or not best):
                        best = type_
                return best
            index = bound.by_key.get(key) if key else None
            if index is None or bound.sym(index).kind in TYPE_KINDS:
                return None
            key = bound.sym(index).parent or None
        return None

    def written_type(self, written: str, bound: Bound, owner: str | None, line: int) -> tuple[TypeRes, str]:
        """A declared type, or ``~callee()`` (what a call returns), resolved in ``bound``."""
        if written.startswith("~") and written.endswith("()"):
            callee = written[1:-2]
            head, _, last = callee.rpartition(".")
            receiver = _dotted_receiver(head) if head else None
            return self.call_result(CallFact(owner or "", last, receiver, -1, line), bound), "inferred_type"
        return self.resolve_type(written, bound, owner), "receiver_type"

    def call_result(self, call: CallFact, bound: Bound) -> TypeRes:
        """What a call gives: a project type, an outside one (a library call's result), or unknown."""
        target, _how, why = self.resolve_call(call, bound)
        if target is not None:
            return self.result_type(target)
        if why.get("reason") in EXTERNAL_REASONS:
            return ("external", f"{why.get('detail') or call.name}()")
        return ("unknown", f"the result of {call.name}(...)")

    def result_type(self, ref: Ref) -> TypeRes:
        """What calling a project symbol gives: its class (a constructor, a type), else its declared result."""
        sym = self.table.sym(ref)
        if sym.kind in TYPE_KINDS:
            return ("project", ref)
        bound = self.table.files[ref[0]]
        if sym.kind == "constructor" and sym.parent:
            return ("project", (bound.path, bound.by_key[sym.parent]))
        if sym.extra.get("awaits"):   # a C# Task<T>: what awaiting it gives (a Task's own members are no project's)
            return self.resolve_type(sym.extra["awaits"], bound, sym.parent)
        return self.resolve_type(sym.type, bound, sym.parent) if sym.type else ("unknown", "no result type")

    def field_of(self, type_ref: Ref, name: str) -> tuple[TypeRes, str] | None:
        """A field's type: declared, or what its initialiser makes (``~callee()``, Kotlin)."""
        found, _inherited, _external = self.find_members(type_ref, name, _FIELDS)
        if not found:
            return None
        sym = self.table.sym(found[0])
        bound = self.table.files[found[0][0]]
        busy = (bound.path, sym.key, name)
        if sym.type.startswith("~") and busy not in self._busy:
            self._busy.add(busy)
            try:
                return self.written_type(sym.type, bound, sym.parent, sym.line_start)
            finally:
                self._busy.discard(busy)
        return self.resolve_type(sym.type, bound, sym.parent), "receiver_type"

    def receiver(self, tree: Any, bound: Bound, owner: str | None, line: int) -> tuple[Receiver, str]:
        """What a receiver expression is, and how that was found (a key of `model.RESOLUTIONS`)."""
        kind = tree[0]
        if kind in self.SELF_RECEIVERS:
            index = self.enclosing_class(bound, owner)
            return (("instance", ("project", (bound.path, index))) if index is not None
                    else ("unknown", f"{kind} outside a class")), "same_class"
        if kind == "name":
            return self.named_receiver(tree[1], bound, owner, line)
        if kind == "field":
            inner, how = self.receiver(tree[1], bound, owner, line)
            return self.member_receiver(inner, tree[2], bound), how
        if kind == "call":
            res = self.call_result(CallFact(owner or "", tree[2], tree[1], tree[3], line), bound)
            return ("instance", res), "inferred_type"
        if kind == "type":
            return ("instance", self.resolve_type(tree[1], bound, owner)), "receiver_type"
        return ("unknown", "an expression"), ""

    def named_receiver(self, name: str, bound: Bound, owner: str | None, line: int) -> tuple[Receiver, str]:
        written = self.local_type(bound, owner, name, line)
        if written is not None:
            busy = (bound.path, owner, name)
            if not written or busy in self._busy:
                return ("unknown", f"{name} is an untyped local"), ""
            self._busy.add(busy)
            try:
                res, how = self.written_type(written, bound, owner, line)
            finally:
                self._busy.discard(busy)
            return ("instance", res), how
        index = self.enclosing_class(bound, owner)
        while index is not None:
            field = self.field_of((bound.path, index), name)
            if field is not None:
                return ("instance", field[0]), field[1]
            index = self.enclosing_class(bound, bound.sym(index).parent)
        package = self.qualifiers(bound).get(name)
        if package is not None:
            return ("package", package), "static"
        res = self.resolve_type(name, bound, owner)
        if res[0] == "project":
            return ("static", res[1]), "static"
        global_type = self.package_variable(bound, name)
        if global_type is not None:
            return ("instance", global_type), "receiver_type"
        if res[0] == "external" and (name[:1].isupper() or name in self.BUILTIN_TYPES):
            return ("instance", res), "static"
        return ("unknown", f"{name} is not declared in scope"), ""

    def package_variable(self, bound: Bound, name: str) -> TypeRes | None:
        """The declared type of a top-level variable the file sees unqualified, if ``name`` is one."""
        for other in self.package_files(bound):
            for index in other.members(""):
                sym = other.sym(index)
                if sym.kind == "field" and sym.name == name:
                    return self.resolve_type(sym.type, other, None) if sym.type else ("unknown", name)
        return None

    def package_files(self, bound: Bound) -> list[Bound]:
        """The files whose top-level variables ``bound`` sees unqualified (itself; Go: its package's)."""
        return [bound]

    def member_receiver(self, inner: Receiver, name: str, bound: Bound) -> Receiver:
        if inner[0] in ("instance", "static"):
            res = inner[1] if inner[0] == "instance" else ("project", inner[1])
            if res[0] == "project":
                field = self.field_of(res[1], name)
                if field is not None:
                    return ("instance", field[0])
                nested = self.nested(res[1], name)
                if nested is not None:
                    return ("static", nested)
                return ("unknown", f"{self.table.fqn_of(res[1])} has no field {name}")
            return ("instance", ("external", f"{res[1]}.{name}"))
        if inner[0] == "package":
            ref = self.type_ref(self.join(inner[1], name), bound)
            return ("static", ref) if ref is not None else ("instance", ("external", f"{inner[1]}.{name}"))
        return inner

    # ---- calls --------------------------------------------------------------------------------
    def call_target(self, call: CallFact, bound: Bound) -> Target:
        return self.resolve_call(call, bound)

    def resolve_call(self, call: CallFact, bound: Bound) -> Target:
        if call.kind == "new":
            return self.constructor_call(self.resolve_type(call.receiver[1] if call.receiver else call.name, bound,
                                                           call.owner or None), call)
        receiver = call.receiver
        if receiver is None:
            return self.unqualified(call, bound)
        if receiver[0] in self.SUPER_RECEIVERS:
            index = self.enclosing_class(bound, call.owner or None)
            if index is None:
                return None, "", {"reason": "not_found", "detail": "super outside a class"}
            for _relation, res in self.supers((bound.path, index)):
                if res[0] == "project":
                    found, _inherited, _external = self.find_members(res[1], call.name, CALLABLE_KINDS)
                    if found:
                        return self.pick(found, call, "super")
            return None, "", {"reason": "external_base", "detail": f"super.{call.name}"}
        what, how = self.receiver(receiver, bound, call.owner or None, call.line)
        return self.member_call(what, how, call, bound)

    def member_call(self, what: Receiver, how: str, call: CallFact, bound: Bound) -> Target:
        kind, value = what
        if kind == "package":
            found = self.package_callables(value, call.name)
            if found:
                return self.pick(found, call, "static")
            ref = self.type_ref(self.join(value, call.name), bound)
            if ref is not None:
                return self.constructor_call(("project", ref), call)
            return None, "", {"reason": "external_name", "detail": f"{value}.{call.name}"}
        if kind in ("instance", "static"):
            res = value if kind == "instance" else ("project", value)
            if res[0] == "project":
                found, inherited, external = self.find_members(res[1], call.name, CALLABLE_KINDS)
                if found:
                    return self.pick(found, call, "static" if kind == "static" else (
                        "inherited" if inherited and how == "same_class" else how or "receiver_type"))
                nested = self.nested(res[1], call.name)
                if nested is not None:
                    return self.constructor_call(("project", nested), call)
                if external:
                    return None, "", {"reason": "external_base", "detail": f"{external[0]}.{call.name}"}
                if call.name in self.OBJECT_METHODS:
                    return None, "", {"reason": "builtin", "detail": call.name}
                return None, "", {"reason": "not_found",
                                  "detail": f"{self.table.fqn_of(res[1])} declares no {call.name}"}
            if res[0] in ("external", "typevar"):
                return None, "", {"reason": "external_type", "detail": f"{res[1]}.{call.name}"}
        if call.name in self.OBJECT_METHODS:
            return None, "", {"reason": "builtin", "detail": call.name}
        refs = [r for r in self.project_methods(call.name)
                if call.argc < 0 or len(self.table.sym(r).params) == call.argc]
        return self.only_candidate(call.name, refs)

    def constructor_call(self, res: TypeRes, call: CallFact) -> Target:
        if res[0] != "project":
            return None, "", {"reason": "external_type", "detail": str(res[1])}
        ctors = self.own_members(res[1], self.table.sym(res[1]).name, frozenset({"constructor"})) or \
            self.own_members(res[1], "constructor", frozenset({"constructor"}))
        if ctors:
            found, _fitting = self.by_arity(ctors, call.argc)
            return found or res[1], "constructor", {}
        return res[1], "constructor", {}

    def unqualified(self, call: CallFact, bound: Bound) -> Target:
        name = call.name
        owner = call.owner or None
        if self.local_type(bound, owner, name, call.line) is not None:
            return None, "", {"reason": "dynamic", "detail": f"{name} is a local or parameter"}
        index = self.enclosing_class(bound, owner)
        first = True
        while index is not None:
            found, inherited, external = self.find_members((bound.path, index), name, CALLABLE_KINDS)
            if found:
                how = "inherited" if inherited else ("same_class" if first else "enclosing_class")
                return self.pick(found, call, how)
            nested = self.nested((bound.path, index), name)
            if nested is not None:
                return self.constructor_call(("project", nested), call)
            if external and first and name not in self.BUILTIN_FUNCTIONS:
                outer = self.enclosing_class(bound, bound.sym(index).parent)
                if outer is None and not self._declared_elsewhere(bound, name):
                    return None, "", {"reason": "external_base", "detail": f"{external[0]}.{name}"}
            first = False
            index = self.enclosing_class(bound, bound.sym(index).parent)
        imported = self.imported_call(call, bound)
        if imported is not None:
            return imported
        for position, package in enumerate(self.visible_packages(bound)):
            found = self.package_callables(package, name)
            if found:
                return self.pick(found, call, "local" if position == 0 else "static_import")
            ref = self.type_ref(self.join(package, name), bound)
            if ref is not None:
                return self.constructor_call(("project", ref), call)
        if name in self.BUILTIN_FUNCTIONS or name in self.BUILTIN_TYPES:
            return None, "", {"reason": "builtin", "detail": name}
        opened = [p for p in self.visible_packages(bound)[1:] if p]
        if opened:   # a wildcard import or an opened namespace outside the project may bring it
            return None, "", {"reason": "external_name", "detail": f"{name} (from one of: {', '.join(opened[:5])})"}
        return None, "", {"reason": "undefined_name", "detail": name}

    def imported_call(self, call: CallFact, bound: Bound) -> Target | None:
        """A bare call of a name a single import brings in: the imported function, a construction of the imported
        type, else a library's (``external_name``); None when no import names it."""
        imported = self.imported(bound).get(call.name)
        if imported is None:
            return None
        package, _, last = imported.rpartition(".")
        found = self.package_callables(package, last)
        if found:
            return self.pick(found, call, "static_import")
        ref = self.type_ref(imported, bound)
        if ref is not None:
            return self.constructor_call(("project", ref), call)
        return None, "", {"reason": "external_name", "detail": imported}

    def _declared_elsewhere(self, bound: Bound, name: str) -> bool:
        return any(self.package_callables(package, name) for package in self.visible_packages(bound))

    # ---- the file -----------------------------------------------------------------------------
    def declare_file(self, bound: Bound, sink: EdgeSink) -> None:
        if self.language.packages:
            sink.add(package_id(bound.ctx.module, bound.facts.package), "DECLARES", bound.file_id)

    def file_props(self, bound: Bound, sink: EdgeSink) -> dict[str, Any]:
        """``IMPORTS`` edges to the project types (or package files) an import names, the rest listed."""
        external: list[str] = []
        for imp in bound.facts.imports:
            targets = self.import_targets(imp.target, bound)
            if not targets:
                external.append(imp.target)
            for ref in targets:
                edge = sink.add(bound.file_id, "IMPORTS", self.table.id_of(ref), {"lines": []})
                if imp.line not in edge.props["lines"]:
                    edge.props["lines"].append(imp.line)
        props: dict[str, Any] = {"imports_external": external}
        if self.package_of(bound):
            props["package"] = self.package_of(bound)
        return props

    def import_targets(self, target: str, bound: Bound) -> list[Ref]:
        """The project types or files an import names (none: it is external, or a whole namespace)."""
        ref = self.type_ref(target, bound)
        return [ref] if ref is not None else []


class UntypedLocals:
    """For languages whose variables carry no declared type (PHP, Ruby): a local's type is trusted only when every
    value its function gives it agrees (a typed parameter, ``new T()`` / ``T.new`` each time); "" (untyped) when
    any value is of another or no known type, since the one made first is no guide to the one a later call sees
    (``$a = new A(); $a = $f->make(); $a->run()``; a branch; a ``foreach``). And a receiver of unknown type stays
    unresolved: most variables carry no type, so the one project method with the name (other languages'
    ``name_only``) would be a guess (``$request->headers->get(...)`` is no call of a controller's ``get``)."""

    def local_type(self, bound: Bound, owner: str | None, name: str, line: int) -> str | None:
        key = owner
        while key:
            table = bound.facts.locals.get(key)
            if table and name in table:
                types = {type_ for _line, type_ in table[name]}
                return types.pop() if len(types) == 1 else ""
            index = bound.by_key.get(key)
            if index is None or bound.sym(index).kind in TYPE_KINDS:
                return None
            key = bound.sym(index).parent
        return None

    def only_candidate(self, name: str, refs: list) -> Target:
        if refs:
            return None, "", {"reason": "unknown_receiver",
                              "detail": f"receiver type unknown; {len(refs)} project method(s) named {name}"}
        return None, "", {"reason": "unknown_receiver"}


class DetachedMethods:
    """A mixin (before `TypedResolver`) for languages whose methods may be declared apart from their type and say
    it in ``extra["receiver"]`` (Go's receivers, Rust's ``impl`` blocks): a type's members include the methods its
    ``methods(ref)`` finds, and such a method's enclosing class is its receiver's type when the file declares it."""

    def own_members(self, ref: Ref, name: str, kinds: frozenset[str]) -> list[Ref]:
        found = super().own_members(ref, name, kinds)
        if "method" in kinds and not found:
            found = [r for r in self.methods(ref) if self.table.sym(r).name == name]
        return found

    def enclosing_class(self, bound: Bound, key: str | None) -> int | None:
        index = super().enclosing_class(bound, key)
        if index is None and key and key in bound.by_key:
            receiver = bound.sym(bound.by_key[key]).extra.get("receiver")
            if receiver:
                res = self.resolve_type(receiver, bound, None)
                if res[0] == "project" and res[1][0] == bound.path:
                    return res[1][1]
        return index

    def declare(self, bound: Bound, index: int, sym: SymbolFact, out) -> None:
        """Also the ``OVERRIDES`` of a method declared in another file than its receiver type (a Go method, a Rust
        ``impl Trait for Type`` block apart from the struct)."""
        super().declare(bound, index, sym, out)
        receiver = sym.extra.get("receiver") if sym.kind == "method" and not sym.parent else None
        if receiver:
            res = self.resolve_type(receiver, bound, None)
            if res[0] == "project" and self.table.sym(res[1]).kind in self.CLASS_KINDS:
                for target in self.overridden(res[1], sym):
                    out.sink.add(bound.ids[index], "OVERRIDES", self.table.id_of(target))


def _dotted_receiver(text: str) -> list | None:
    """``a.b.c`` as a receiver tree (``["field", ["field", ["name", "a"], "b"], "c"]``)."""
    parts = [p for p in text.split(".") if p]
    if not parts:
        return None
    tree: list = ["name", parts[0]]
    for part in parts[1:]:
        tree = ["field", tree, part]
    return tree
