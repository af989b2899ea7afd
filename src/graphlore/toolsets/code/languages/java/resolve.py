"""Java resolution: type names to project types, supertypes, overrides, injection and calls.

A simple type name is looked up as javac does: type parameters in scope, nested types of the
enclosing types (and their project supertypes), single-type imports, the file's own package, on-demand
(``.*``) imports, then ``java.lang``. Qualified names resolve their first segment first, then nested
types, else as a package-qualified name. A name that only an external on-demand import could supply
stays unqualified (never guessed).

A call's target is looked for by receiver (see `model.RESOLUTIONS`): unqualified calls in the enclosing
class, its project supertypes, its outer classes, then static imports; ``this.``/``super.``; a receiver
whose type is declared (local, parameter, field, cast, ``new``) or inferred (``var x = new T()``, the
return type of a resolved call); a type name (static call). Overloads are chosen by arity, then by the
argument types that are known (literals, typed names); when several still fit, the call stays
unresolved as ``ambiguous`` with its candidates. A receiver of unknown type falls back to the one
project method with that name and arity (``name_only``, confidence 0.3), else unresolved.
"""

from __future__ import annotations

from typing import Any

from ...model import CALLABLE_KINDS, TYPE_KINDS, CallFact, SymbolFact, package_id
from ..resolver import FileOutput, Resolver, Target, scope_chain
from ..symbols import Bound, EdgeSink, Ref, Table, Tracker, receiver_text
from .extract import simple

JAVA_LANG = frozenset({
    "Object", "String", "Integer", "Long", "Short", "Byte", "Double", "Float", "Boolean", "Character", "Number",
    "Math", "System", "Thread", "Runnable", "Exception", "RuntimeException", "Error", "Throwable", "Iterable",
    "Comparable", "CharSequence", "StringBuilder", "StringBuffer", "Class", "Enum", "Record", "Void", "Override",
    "Deprecated", "SuppressWarnings", "FunctionalInterface", "SafeVarargs", "IllegalArgumentException",
    "IllegalStateException", "NullPointerException", "UnsupportedOperationException", "AutoCloseable",
    "Cloneable", "InterruptedException", "IndexOutOfBoundsException", "ClassCastException", "Process",
    "ProcessBuilder", "Runtime", "ThreadLocal", "StackTraceElement", "ArithmeticException",
    "NumberFormatException", "CloneNotSupportedException", "ReflectiveOperationException",
    "ClassNotFoundException", "SecurityException", "Appendable", "Readable",
})
OBJECT_METHODS = frozenset({"equals", "hashCode", "toString", "getClass", "notify", "notifyAll", "wait", "clone",
                            "finalize", "compareTo", "name", "ordinal", "values", "valueOf"})
PRIMITIVES = frozenset({"int", "long", "short", "byte", "double", "float", "boolean", "char", "void"})
_BOXES = {"int": "Integer", "long": "Long", "short": "Short", "byte": "Byte", "double": "Double", "float": "Float",
          "boolean": "Boolean", "char": "Character"}

# a resolved type: ("project", Ref) | ("external", qualified-or-simple name) | ("typevar", name) |
# ("primitive", name) | ("unknown", name)
TypeRes = tuple[str, Any]


def _base(type_name: str) -> str:
    return type_name.replace("...", "").replace("[]", "")


class JavaFileContext:
    """Imports of one file, parsed once per batch."""

    __slots__ = ("single", "wildcards", "static_single", "static_wildcards", "package")

    def __init__(self, bound: Bound):
        self.single: dict[str, str] = {}
        self.wildcards: list[str] = []
        self.static_single: dict[str, list[str]] = {}
        self.static_wildcards: list[str] = []
        self.package = bound.facts.package
        for imp in bound.facts.imports:
            wildcard = imp.names[0][0] == "*"
            if imp.static:
                if wildcard:
                    self.static_wildcards.append(imp.target)
                else:
                    owner, _, member = imp.target.rpartition(".")
                    self.static_single.setdefault(member, []).append(owner)
            elif wildcard:
                self.wildcards.append(imp.target)
            else:
                self.single.setdefault(imp.target.rsplit(".", 1)[-1], imp.target)


class JavaResolver(Resolver):
    CLASS_KINDS = TYPE_KINDS
    PROJECT = "project"
    EXTERNAL_KINDS = frozenset({"external", "unknown"})
    NOT_OVERRIDING = frozenset({"static", "private"})
    FILE_KIND = "file"

    def __init__(self, table: Table, tracker: Tracker, language):
        super().__init__(table, tracker, language)
        self._contexts = table.cache("java.ctx")
        self._types = table.cache("java.types")
        self._supers = table.cache("java.supers")

    # ---- types --------------------------------------------------------------------------------
    def ctx(self, path: str) -> JavaFileContext:
        found = self._contexts.get(path)
        if found is None:
            found = self._contexts[path] = JavaFileContext(self.table.files[path])
        return found

    def type_ref(self, fqn: str, bound: Bound) -> Ref | None:
        return self.pick_type(self.table.lookup(fqn, self.t), bound)

    def resolve_type(self, name: str, bound: Bound, scope: str | None) -> TypeRes:
        """Resolve a type name as written in ``bound`` inside the symbol ``scope`` (a key or None)."""
        name = _base(name).strip()
        if not name:
            return ("unknown", name)
        return self.t.memo(self._types, (bound.path, scope, name), lambda: self._resolve_type(name, bound, scope))

    def _resolve_type(self, name: str, bound: Bound, scope: str | None) -> TypeRes:
        if name in PRIMITIVES:
            return ("primitive", name)
        if "." in name:
            return self._resolve_qualified(name, bound, scope)
        # type parameters of the enclosing symbols
        if any(name in sym.type_params for _index, sym in scope_chain(bound, scope)):
            return ("typevar", name)
        # nested types of the enclosing types (and their project supertypes)
        for index, sym in scope_chain(bound, scope):
            if sym.kind in TYPE_KINDS:
                if sym.name == name and sym.parent is None:
                    return ("project", (bound.path, index))
                found = self.nested((bound.path, index), [name], inherited=True)
                if found is not None:
                    return ("project", found)
        ctx = self.ctx(bound.path)
        imported = ctx.single.get(name)
        if imported is not None:
            ref = self.type_ref(imported, bound)
            if ref is None:
                # maybe an import of a nested type through its outer class: a.b.Outer.Inner
                head, _, last = imported.rpartition(".")
                outer = self.type_ref(head, bound) if head else None
                if outer is not None:
                    inner = self.nested(outer, [last])
                    if inner is not None:
                        return ("project", inner)
                return ("external", imported)
            return ("project", ref)
        own = f"{ctx.package}.{name}" if ctx.package else name
        ref = self.type_ref(own, bound)
        if ref is not None:
            return ("project", ref)
        for package in ctx.wildcards:
            ref = self.type_ref(f"{package}.{name}", bound)
            if ref is not None:
                return ("project", ref)
            outer = self.type_ref(package, bound)   # import a.b.Outer.* brings nested types
            if outer is not None:
                inner = self.nested(outer, [name])
                if inner is not None:
                    return ("project", inner)
        if name in JAVA_LANG:
            return ("external", "java.lang." + name)
        return ("external", name) if ctx.wildcards or name[:1].isupper() else ("unknown", name)

    def _resolve_qualified(self, name: str, bound: Bound, scope: str | None) -> TypeRes:
        """``Outer.Inner`` (its first segment resolved as a simple name) or ``a.b.Type`` (package-qualified)."""
        head, _, rest = name.partition(".")
        first = self.resolve_type(head, bound, scope)
        if first[0] == "project":
            found = self.nested(first[1], rest.split("."))
            if found is not None:
                return ("project", found)
            return ("unknown", name)
        if first[0] == "external":
            return ("external", f"{first[1]}.{rest}")
        # a package-qualified name: the longest prefix that is a project type, then nested types
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            ref = self.type_ref(".".join(parts[:cut]), bound)
            if ref is not None:
                found = self.nested(ref, parts[cut:]) if cut < len(parts) else ref
                return ("project", found) if found is not None else ("unknown", name)
        return ("external", name)

    def nested(self, ref: Ref, names: list[str], inherited: bool = False) -> Ref | None:
        for name in names:
            found = None
            bound = self.table.files[ref[0]]
            owner_key = bound.sym(ref[1]).key
            for index in bound.members(owner_key):
                sym = bound.sym(index)
                if sym.kind in TYPE_KINDS and sym.name == name:
                    found = (bound.path, index)
                    break
            if found is None and inherited:
                for _relation, super_res in self.supers(ref):
                    if super_res[0] == "project":
                        found = self.nested(super_res[1], [name], inherited=True)
                        if found is not None:
                            break
            if found is None:
                return None
            ref = found
            self.t.add("t:" + self.table.fqn_of(ref))   # its members are read through its own key
        return ref

    def supers(self, ref: Ref) -> list[tuple[str, TypeRes]]:
        """A project type's direct supertypes, resolved in its own file."""
        def compute() -> list[tuple[str, TypeRes]]:
            bound = self.table.files[ref[0]]
            sym = bound.sym(ref[1])
            out = []
            for relation, name in sym.supers:
                res = self.resolve_type(name, bound, sym.parent or None)
                if res[0] == "project" and res[1] == ref:
                    continue
                out.append((relation, res))
            return out
        return self.t.memo(self._supers, ref, compute)

    # ---- annotations --------------------------------------------------------------------------
    def annotation_type(self, bound: Bound, sym: SymbolFact, name: str) -> Ref | None:
        res = self.resolve_type(name, bound, sym.parent or None)
        return res[1] if res[0] == "project" else None

    # ---- members ------------------------------------------------------------------------------
    def own_members(self, ref: Ref, name: str, kinds: frozenset[str]) -> list[Ref]:
        bound = self.table.files[ref[0]]
        key = bound.sym(ref[1]).key
        return [(bound.path, i) for i in bound.members(key) if bound.sym(i).name == name and bound.sym(i).kind in kinds]

    def find_members(self, ref: Ref, name: str, kinds: frozenset[str]) -> tuple[list[Ref], bool, list[str]]:
        """Members named ``name`` in ``ref`` or, if none, the nearest project supertype declaring some.
        Returns (members, inherited, external supertypes met)."""
        return self.first_declaring(ref, lambda type_ref: self.own_members(type_ref, name, kinds))

    def choose_overload(self, candidates: list[Ref], argc: int, arg_types: tuple[str, ...], bound: Bound,
                        owner: str) -> tuple[Ref | None, list[Ref]]:
        if argc < 0:
            return (candidates[0], candidates) if len(candidates) == 1 else (None, candidates)
        fitting = []
        for ref in candidates:
            params = self.table.sym(ref).params
            if len(params) == argc or (params and params[-1][1].endswith("...") and argc >= len(params) - 1):
                fitting.append(ref)
        if len(fitting) <= 1:
            return (fitting[0] if fitting else None), fitting
        known = [self.arg_type(t, bound, owner) for t in arg_types]
        best = [ref for ref in fitting if self._compatible(ref, known)]
        exact = [ref for ref in best if self._exact(ref, known)]
        if len(exact) == 1:
            return exact[0], fitting
        if len(best) == 1:
            return best[0], fitting
        return None, fitting

    def arg_type(self, hint: str, bound: Bound, owner: str) -> str:
        if not hint.startswith("$"):
            return hint
        name = hint[1:]
        local = self.local_type(bound, owner, name, 10**9)
        if local:
            return simple(_base(local.lstrip("~")))
        field = self.field_type(bound, owner, name)
        return simple(_base(field[1])) if field else ""

    def _params_simple(self, ref: Ref) -> list[str]:
        return [simple(_base(t)) for _, t in self.table.sym(ref).params]

    def _compatible(self, ref: Ref, known: list[str]) -> bool:
        params = self._params_simple(ref)
        type_params = set(self.table.sym(ref).type_params)
        for i, arg in enumerate(known):
            if not arg or i >= len(params):
                continue
            param = params[i]
            if arg == "null":
                if param in PRIMITIVES:
                    return False
                continue
            if param in ("Object",) or param in type_params or len(param) == 1:
                continue
            if arg == param or _BOXES.get(arg) == param or _BOXES.get(param) == arg:
                continue
            if arg in ("int", "long", "short", "byte", "char") and param in ("long", "float", "double", "int"):
                continue
            return False
        return True

    def _exact(self, ref: Ref, known: list[str]) -> bool:
        params = self._params_simple(ref)
        return all(not a or a == "null" or (i < len(params) and a == params[i]) for i, a in enumerate(known))

    # ---- receivers ----------------------------------------------------------------------------
    def local_type(self, bound: Bound, owner: str, name: str, line: int) -> str:
        key: str | None = owner
        while key:
            table = bound.facts.locals.get(key)
            if table and name in table:
                best = ""
                for decl_line, type_ in table[name]:
                    if decl_line <= line or not best:
                        best = type_
                return best
            index = bound.by_key.get(key)
            if index is None or bound.sym(index).kind in TYPE_KINDS:
                return ""
            key = bound.sym(index).parent   # a local class's method sees the enclosing method's locals
        return ""

    def field_type(self, bound: Bound, owner: str, name: str) -> tuple[Bound, str, str] | None:
        """(declaring file, type as written, declaring type key) of a field visible from ``owner``."""
        type_index = self.enclosing_class(bound, owner)
        while type_index is not None:
            found, _inherited, _external = self.find_members((bound.path, type_index), name, frozenset({"field"}))
            if found:
                field_bound = self.table.files[found[0][0]]
                field_sym = field_bound.sym(found[0][1])
                return field_bound, field_sym.type, field_sym.parent or ""
            type_index = self.enclosing_class(bound, bound.sym(type_index).parent)
        return None

    def type_of(self, receiver: Any, bound: Bound, owner: str, line: int) -> tuple[TypeRes, str]:
        """(type, how) of a receiver expression; how is a key of `RESOLUTIONS`."""
        kind = receiver[0]
        type_index = self.enclosing_class(bound, owner)
        if kind == "this":
            if type_index is None:
                return ("unknown", "this"), "receiver_type"
            return ("project", (bound.path, type_index)), "same_class"
        if kind == "name":
            name = receiver[1]
            local = self.local_type(bound, owner, name, line)
            if local:
                how = "inferred_type" if local.startswith("~") else "receiver_type"
                return self.resolve_type(local.lstrip("~"), bound, owner), how
            field = self.field_type(bound, owner, name)
            if field is not None:
                field_bound, type_, scope = field
                return self.resolve_type(type_, field_bound, scope or None), "receiver_type"
            res = self.resolve_type(name, bound, owner)
            if res[0] == "project":
                return res, "static"
            if res[0] == "external" and name[:1].isupper():
                return res, "static"
            return ("unknown", name), "receiver_type"
        if kind == "field":
            return self._field_type_of(receiver, bound, owner, line)
        if kind == "call":
            target, _how, why = self.call_target_of(receiver[1], receiver[2], receiver[3], (), "call", bound, owner,
                                                   line)
            if target is None:
                if why.get("reason") in ("external_type", "external_name", "external_base"):
                    # a call on an external type returns something external: say so, never name-match it
                    return ("external", f"{why.get('detail', '?')}.{receiver[2]}(...)"), "inferred_type"
                return ("unknown", receiver[2]), "inferred_type"
            target_bound = self.table.files[target[0]]
            target_sym = target_bound.sym(target[1])
            if target_sym.kind in TYPE_KINDS:
                return ("project", target), "inferred_type"
            if target_sym.kind == "constructor":
                return ("project", (target[0], target_bound.by_key[target_sym.parent])), "inferred_type"
            res = self.resolve_type(target_sym.type, target_bound, target_sym.key)
            return res, "inferred_type"
        if kind == "type":
            return self.resolve_type(receiver[1], bound, owner), "receiver_type"
        if kind == "super":
            return ("unknown", "super"), "super"
        return ("unknown", ""), "receiver_type"

    def _field_type_of(self, receiver: Any, bound: Bound, owner: str, line: int) -> tuple[TypeRes, str]:
        """``x.name``: a field of x's type, a nested type, or a qualified type name (``a.b.Type``)."""
        inner, how = self.type_of(receiver[1], bound, owner, line)
        name = receiver[2]
        if inner[0] == "project":
            found, _inh, _ext = self.find_members(inner[1], name, frozenset({"field"}))
            if found:
                field_bound = self.table.files[found[0][0]]
                field_sym = field_bound.sym(found[0][1])
                return self.resolve_type(field_sym.type, field_bound, field_sym.parent), "receiver_type"
            nested = self.nested(inner[1], [name], inherited=True)
            if nested is not None:
                return ("project", nested), "static"
            return ("unknown", name), how
        if inner[0] == "unknown" and receiver[1][0] in ("name", "field"):
            qualified = receiver_text(receiver)
            res = self.resolve_type(qualified, bound, owner)
            if res[0] == "project":
                return res, "static"
            if qualified[:1].islower() and name[:1].isupper():
                return ("external", qualified), "static"
        return ("unknown", name), how

    # ---- calls --------------------------------------------------------------------------------
    def call_target(self, call: CallFact, bound: Bound) -> Target:
        return self.call_target_of(call.receiver, call.name, call.argc, call.arg_types, call.kind, bound, call.owner,
                                   call.line)

    def call_target_of(self, receiver: Any, name: str, argc: int, arg_types: tuple[str, ...], kind: str,
                       bound: Bound, owner: str, line: int) -> Target:
        """(target, resolution, why-not) for one call; why-not is filled when the target is None."""
        key = (bound.path, owner, repr(receiver), name, argc, arg_types, kind, line)
        cache = self.table.cache("java.calls")
        return self.t.memo(cache, key, lambda: self._call_target(receiver, name, argc, arg_types, kind, bound,
                                                                 owner, line))

    def _method_in(self, ref: Ref, name: str, argc: int, arg_types, bound: Bound, owner: str, how: str,
                   inherited_how: str) -> tuple[Ref | None, str, dict]:
        found, inherited, external = self.find_members(ref, name, CALLABLE_KINDS - {"constructor"})
        if found:
            target, fitting = self.choose_overload(found, argc, arg_types, bound, owner)
            if target is not None:
                return target, (inherited_how if inherited else how), {}
            if fitting:
                return None, "", {"reason": "ambiguous", "candidates": [self.table.id_of(r) for r in fitting]}
            return None, "", {"reason": "not_found",
                              "detail": f"no overload of {name} takes {argc} argument(s)"}
        sym = self.table.sym(ref)
        implicit = {"class": "java.lang.Object", "enum": "java.lang.Enum", "record": "java.lang.Record",
                    "interface": "java.lang.Object", "annotation": "java.lang.annotation.Annotation"}
        external = [*external, implicit.get(sym.kind, "java.lang.Object")]
        return None, "", {"reason": "external_base", "detail": ", ".join(dict.fromkeys(external))}

    def _call_target(self, receiver, name, argc, arg_types, kind, bound, owner, line) -> Target:
        type_index = self.enclosing_class(bound, owner)
        here = (bound.path, type_index) if type_index is not None else None
        if kind in ("new", "this", "super"):
            return self._constructor_call(receiver, argc, arg_types, kind, bound, owner, here)
        if receiver is None or receiver[0] == "this":
            if here is None:
                return None, "", {"reason": "undefined_name"}
            target, how, why = self._method_in(here, name, argc, arg_types, bound, owner, "same_class", "inherited")
            if target is not None or why.get("reason") == "ambiguous" or receiver is not None:
                return target, how, why
            return self._outer_or_static_call(name, argc, arg_types, bound, owner, here, why)
        if receiver[0] == "super":
            if here is None:
                return None, "", {"reason": "undefined_name"}
            for _relation, res in self.supers(here):
                if res[0] == "project":
                    target, _how, why = self._method_in(res[1], name, argc, arg_types, bound, owner, "super", "super")
                    if target is not None or why.get("reason") == "ambiguous":
                        return target, "super", why
            _project, external = self.ancestors(here)
            return None, "", {"reason": "external_base", "detail": ", ".join(external) or "java.lang.Object"}
        res, how = self.type_of(receiver, bound, owner, line)
        if res[0] == "project":
            return self._method_in(res[1], name, argc, arg_types, bound, owner, how,
                                   "inherited" if how == "same_class" else how)
        if res[0] in ("external", "primitive"):
            return None, "", {"reason": "external_type", "detail": res[1]}
        return self._name_only(name, argc, bound)

    def _constructor_call(self, receiver, argc, arg_types, kind, bound, owner, here: Ref | None) -> Target:
        """``new T(...)``, ``this(...)``, ``super(...)``: the constructor that fits the arguments."""
        if kind == "new":
            res = self.resolve_type(receiver[1], bound, owner)
        elif here is None:
            return None, "", {"reason": "undefined_name"}
        elif kind == "this":
            res = ("project", here)
        else:
            parents = [r for rel, r in self.supers(here) if rel == "extends"]
            res = parents[0] if parents else ("external", "java.lang.Object")
        if res[0] != "project":
            return None, "", {"reason": "external_type", "detail": res[1]}
        ctors = self.own_members(res[1], self.table.sym(res[1]).name, frozenset({"constructor"}))
        if not ctors:
            return res[1], "constructor", {}
        target, fitting = self.choose_overload(ctors, argc, arg_types, bound, owner)
        if target is not None:
            return target, "constructor", {}
        if fitting:
            return None, "", {"reason": "ambiguous", "candidates": [self.table.id_of(r) for r in fitting]}
        return None, "", {"reason": "not_found", "detail": f"no constructor takes {argc} argument(s)"}

    def _outer_or_static_call(self, name, argc, arg_types, bound, owner, here: Ref, why: dict) -> Target:
        """An unqualified call its own class does not declare: the outer classes, then static imports."""
        outer = self.enclosing_class(bound, bound.sym(here[1]).parent)
        while outer is not None:
            target, how, outer_why = self._method_in((bound.path, outer), name, argc, arg_types, bound, owner,
                                                     "enclosing_class", "enclosing_class")
            if target is not None or outer_why.get("reason") == "ambiguous":
                return target, how, outer_why
            outer = self.enclosing_class(bound, bound.sym(outer).parent)
        ctx = self.ctx(bound.path)
        external_owner = None
        for owner_type in list(ctx.static_single.get(name, [])) + list(ctx.static_wildcards):
            res = self.resolve_type(owner_type, bound, None)
            if res[0] == "project":
                found = self.own_members(res[1], name, CALLABLE_KINDS)
                if found:
                    target, fitting = self.choose_overload(found, argc, arg_types, bound, owner)
                    if target is not None:
                        return target, "static_import", {}
                    if fitting:
                        return None, "", {"reason": "ambiguous", "candidates": [self.table.id_of(r) for r in fitting]}
            elif owner_type in ctx.static_single.get(name, []):
                external_owner = owner_type
        if external_owner is not None:
            return None, "", {"reason": "external_name", "detail": f"{external_owner}.{name}"}
        external_wildcards = [w for w in ctx.static_wildcards if self.resolve_type(w, bound, None)[0] != "project"]
        if external_wildcards:
            return None, "", {"reason": "external_name",
                              "detail": "static import " + " or ".join(f"{w}.*" for w in external_wildcards)}
        return None, "", why

    def _name_only(self, name: str, argc: int, bound: Bound) -> tuple[Ref | None, str, dict]:
        if name in OBJECT_METHODS:
            return None, "", {"reason": "unknown_receiver", "detail": f"{name} is declared by every object"}
        refs = self.project_methods(name)
        if argc >= 0:
            refs = [r for r in refs if len(self.table.sym(r).params) == argc
                    or (self.table.sym(r).params and self.table.sym(r).params[-1][1].endswith("..."))]
        return self.only_candidate(name, refs)

    # ---- one file -----------------------------------------------------------------------------
    def declare_file(self, bound: Bound, sink: EdgeSink) -> None:
        sink.add(package_id(bound.ctx.module, bound.facts.package), "DECLARES", bound.file_id)

    def file_props(self, bound: Bound, sink: EdgeSink) -> dict:
        imports_external: list[str] = []
        for imp in bound.facts.imports:
            if imp.names[0][0] == "*" and not imp.static:
                if not self._package_exists(imp.target) and not self.table.lookup(imp.target, self.t):
                    imports_external.append(imp.target + ".*")
                continue
            target = imp.target if not imp.static else imp.target.rpartition(".")[0]
            if imp.static and imp.names[0][0] == "*":
                target = imp.target
            res = self.resolve_type(target, bound, None)
            if res[0] == "project":
                edge = sink.add(bound.file_id, "IMPORTS", self.table.id_of(res[1]), {"lines": []})
                edge.props["lines"].append(imp.line)
                if imp.static:
                    edge.props["static"] = True
            else:
                imports_external.append(("static " if imp.static else "") + imp.target)
        return {"package": bound.facts.package, "imports_external": imports_external}

    def _package_exists(self, package: str) -> bool:
        """Whether some project Java file declares ``package`` (dependency key ``p:<package>``)."""
        cache = self.table.cache("java.packages")
        if not cache:
            cache[None] = True
            for bound in self.table.files.values():
                if bound.facts.language == "java":
                    cache[bound.facts.package] = True
        self.t.add("p:" + package)
        return package in cache

    def overridden(self, type_ref: Ref, method: SymbolFact) -> list[Ref]:
        """Nearest project methods that ``method`` overrides, along every supertype path."""
        own = [simple(_base(t)) + ("..." if t.endswith("...") else "") for _, t in method.params]

        def same_signature(super_ref: Ref) -> Ref | None:
            super_sym = self.table.sym(super_ref)
            for candidate in self.own_members(super_ref, method.name, frozenset({"method"})):
                cand = self.table.sym(candidate)
                if "static" in cand.modifiers or "private" in cand.modifiers:
                    continue
                if len(cand.params) != len(own):
                    continue
                type_vars = set(cand.type_params) | set(super_sym.type_params)
                theirs = [simple(_base(t)) + ("..." if t.endswith("...") else "") for _, t in cand.params]
                if all(a == b or b.rstrip(".") in type_vars or _base(b) in type_vars
                       for a, b in zip(own, theirs, strict=True)):
                    return candidate
            return None
        return self.nearest_overridden(type_ref, same_signature)

    def inject(self, bound: Bound, index: int, out: FileOutput) -> None:
        """A bean type's injected members: ``@Autowired``/``@Inject`` fields and methods, ``@Bean`` method
        parameters, and the constructor (the annotated one, else the only one)."""
        sym = bound.sym(index)
        if sym.kind not in TYPE_KINDS or sym.kind == "annotation":
            return
        sid = bound.ids[index]
        rules = self.rules
        annotations = {a.name.rsplit(".", 1)[-1] for a in sym.annotations}
        is_bean = bool(annotations & rules.bean_annotations)
        if not is_bean:
            for annotation in sym.annotations:
                meta = self.annotation_type(bound, sym, annotation.name)
                if meta is not None and self._meta_guarded(meta)[0]:
                    is_bean = True
        members = [bound.sym(i) for i in bound.members(sym.key)]
        injected: list[tuple[str, str, str, str]] = []   # (type, via, member name, scope)
        for member in members:
            member_annotations = {a.name.rsplit(".", 1)[-1] for a in member.annotations}
            if member.kind == "field" and member_annotations & rules.inject_annotations:
                injected.append((member.type, "field", member.name, sym.key))
            elif member.kind == "method" and member_annotations & rules.inject_annotations:
                injected += [(t, "method", f"{member.name}({n})", member.key) for n, t in member.params]
            elif member.kind == "method" and "Bean" in member_annotations:
                injected += [(t, "bean_method", f"{member.name}({n})", member.key) for n, t in member.params]
        if is_bean:
            ctors = [m for m in members if m.kind == "constructor"]
            chosen = [c for c in ctors if {a.name.rsplit(".", 1)[-1] for a in c.annotations} & rules.inject_annotations]
            if not chosen and len(ctors) == 1:
                chosen = ctors
            for ctor in chosen[:1]:
                injected += [(t, "constructor", n, ctor.key) for n, t in ctor.params]
        external: list[str] = []
        for type_, via, member_name, scope in injected:
            res = self.resolve_type(type_, bound, scope)
            if res[0] == "project":
                out.sink.inject(sid, self.table.id_of(res[1]), via, member_name)
            elif res[0] in ("external", "unknown"):
                external.append(res[1])
                cap = rules.injected_capabilities.get(res[1].rsplit(".", 1)[-1])
                if cap:
                    out.caps[sid].add(cap)
        props = out.props.setdefault(sid, {})
        if external:
            props["injects_external"] = sorted(set(external))
        props["bean"] = is_bean
