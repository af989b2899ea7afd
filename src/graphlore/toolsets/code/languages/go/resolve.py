"""Go resolution: packages by import path, methods wherever the package declares them, promoted members of
embedded types, and implicit interface implementation.

A file's package is its import path (`Bound.prefix`, from ``go.mod``); every file of a package is published
under it, so an unqualified name is looked for in all of them and ``pkg.Name`` in the files of the package
its import names. A type's methods are the methods of its package whose receiver is that type, in any file.

**Implementation.** Go says nothing: a type implements an interface when its method set covers the
interface's (every method name with the same number of parameters, and no parameter of another project type
than the interface's method takes there; an interface's embedded project
interfaces count, an embedded outside one makes it unknown, and an empty interface is left out). The
interfaces looked at are those of the type's own Go module and of the packages its file imports; each
implemented one is an ``IMPLEMENTS`` edge and is listed in ``implements``; each method of the type that
implements one of the interface's methods ``OVERRIDES`` it (as a Java method its interface's), so a call through
the interface (``CALLS`` to the interface method) reaches every implementation in ``impact`` and ``paths``
(``OVERRIDDEN_BY``): interface dispatch, never a guess of one implementation.
"""

from __future__ import annotations

from typing import Any

from ...model import CallFact, SymbolFact
from ..symbols import Bound, EdgeSink, Ref
from ..typed import DetachedMethods, TypedResolver, TypeRes

BUILTIN_FUNCTIONS = frozenset({
    "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min", "new",
    "panic", "print", "println", "real", "recover",
})
BUILTIN_TYPES = frozenset({
    "bool", "byte", "complex64", "complex128", "error", "float32", "float64", "int", "int8", "int16", "int32",
    "int64", "rune", "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "any", "comparable",
})


class GoResolver(DetachedMethods, TypedResolver):
    PATH_IMPORTS = True
    BUILTIN_FUNCTIONS = BUILTIN_FUNCTIONS
    BUILTIN_TYPES = BUILTIN_TYPES
    SELF_RECEIVERS = frozenset()
    SUPER_RECEIVERS = frozenset()
    RELATIONS = ("extends", "implements")

    def __init__(self, table, tracker, language):
        super().__init__(table, tracker, language)
        self._methods = table.cache("go.methods")
        self._imports = table.cache("go.imports")

    # ---- packages -----------------------------------------------------------------------------
    def package_files(self, bound: Bound) -> list[Bound]:
        return self.files_of(bound.ctx.module_name) or [bound]

    def files_of(self, package: str) -> list[Bound]:
        return [self.table.files[r[0]] for r in self.table.lookup(package, self.t) if r[1] < 0
                and self.table.files[r[0]].facts.language == "go"]

    def qualifiers(self, bound: Bound) -> dict[str, str]:
        found = self._imports.get(bound.path)
        if found is None:
            found = self._imports[bound.path] = {alias: imported for imp in bound.facts.imports
                                                 for imported, alias in imp.names if alias != "*"}
        return found

    def visible_packages(self, bound: Bound) -> list[str]:
        dots = [imp.target for imp in bound.facts.imports if imp.names == (("*", "*"),)]
        return [bound.ctx.module_name, *dots]

    def base_type(self, written: str) -> str:
        written = written.strip().lstrip("*")
        if written.startswith(("[]", "map[", "chan ", "func", "...", "struct", "interface")):
            return ""   # a slice, map, channel or function value has no project methods
        return written.split("[", 1)[0]

    # ---- members ------------------------------------------------------------------------------
    def methods(self, ref: Ref) -> list[Ref]:
        """Every method whose receiver is this type, in any file of its package."""
        def compute() -> list[Ref]:
            bound = self.table.files[ref[0]]
            name = bound.sym(ref[1]).name
            out = [(bound.path, i) for i in bound.members(bound.sym(ref[1]).key) if bound.sym(i).kind == "method"]
            for other in self.package_files(bound):
                out += [(other.path, i) for i in other.members("") if other.sym(i).kind == "method"
                        and other.sym(i).extra.get("receiver") == name]
            return sorted(set(out))
        return self.t.memo(self._methods, ref, compute)

    # ---- implicit implementation --------------------------------------------------------------
    def method_set(self, ref: Ref) -> dict[str, int] | None:
        """name -> parameter count of an interface's methods with its embedded ones (None: not knowable)."""
        bound = self.table.files[ref[0]]
        sym = bound.sym(ref[1])
        out = {bound.sym(i).name: len(bound.sym(i).params) for i in bound.members(sym.key)
               if bound.sym(i).kind == "method"}
        for _relation, res in self.supers(ref):
            if res[0] != "project" or self.table.sym(res[1]).kind != "interface":
                return None
            inner = self.method_set(res[1]) if res[1] != ref else {}
            if inner is None:
                return None
            out.update(inner)
        return out

    def implemented(self, ref: Ref, bound: Bound) -> list[Ref]:
        """The interfaces this type's methods cover (see the module docstring)."""
        own = {self.table.sym(r).name: len(self.table.sym(r).params) for r in self.methods(ref)}
        project, _external = self.ancestors(ref)
        for ancestor in project:   # promoted methods of embedded project types
            for r in self.methods(ancestor) if self.table.sym(ancestor).kind != "interface" else []:
                own.setdefault(self.table.sym(r).name, len(self.table.sym(r).params))
        if not own:
            return []
        packages = {bound.ctx.module_name, *(imp.target for imp in bound.facts.imports)}
        candidates: set[Ref] = set()
        for name in own:
            for r in self.table.by_name(name, self.t):
                sym = self.table.sym(r)
                other = self.table.files[r[0]]
                if sym.kind == "method" and sym.parent and other.facts.language == "go" and (
                        other.ctx.module == bound.ctx.module or other.ctx.module_name in packages):
                    parent = (r[0], other.by_key[sym.parent])
                    if other.sym(parent[1]).kind == "interface" and parent != ref:
                        candidates.add(parent)
        out = []
        for candidate in sorted(candidates):
            self.touch(candidate)
            wanted = self.method_set(candidate)
            if wanted and all(own.get(name) == count for name, count in wanted.items()) and \
                    self.same_parameter_types(ref, candidate, wanted):
                out.append(candidate)
        return out

    def same_parameter_types(self, ref: Ref, interface: Ref, wanted: dict[str, int]) -> bool:
        """False when a method of the type takes another project type where the interface's method takes a project
        type, or a builtin one (``Handle(ctx, *event.KitchenOrderUpdated)`` does not implement ``Handle(ctx,
        *event.BaristaOrderUpdated)`` nor ``Handle(ctx, string)``); a type outside the project, or the interface's
        type parameter, is not compared."""
        mine = {self.table.sym(r).name: r for r in self.methods(ref)}
        params = set(self.table.sym(interface).type_params)
        for name, count in wanted.items():
            own = mine.get(name)
            theirs = self.interface_method(interface, name, count, set())
            if own is None or len(theirs) != 1:
                continue
            for (_a, written), (_b, other) in zip(self.table.sym(own).params, self.table.sym(theirs[0]).params,
                                                  strict=False):
                if other in params:
                    continue
                mine_res = self.unaliased(self.resolve_type(written, self.table.files[own[0]],
                                                            self.table.sym(own).parent))
                their_res = self.unaliased(self.resolve_type(other, self.table.files[theirs[0][0]],
                                                             self.table.sym(theirs[0]).parent))
                kinds = {mine_res[0], their_res[0]}
                if (kinds == {"project"} and mine_res[1] != their_res[1]) or ("project" in kinds and (
                        written in BUILTIN_TYPES or other in BUILTIN_TYPES)):
                    return False
        return True

    def supers(self, ref: Ref) -> list[tuple[str, TypeRes]]:
        declared = super().supers(ref)
        sym = self.table.sym(ref)
        if sym.kind == "interface":
            return declared
        key = ("go.implements", ref)
        cache = self.table.cache("go.implements")
        bound = self.table.files[ref[0]]
        found = self.t.memo(cache, key, lambda: self.implemented(ref, bound))
        return [*declared, *(("implements", ("project", r)) for r in found)]

    def ancestors(self, ref: Ref) -> tuple[list[Ref], list[str]]:
        """Embedded types only: an implemented interface adds no members to a Go type."""
        seen, queue, project, external = {ref}, [ref], [], []
        while queue:
            current = queue.pop(0)
            for relation, value in super().supers(current):
                if relation != "extends":
                    continue
                if value[0] == "project" and value[1] not in seen:
                    seen.add(value[1])
                    project.append(value[1])
                    queue.append(value[1])
                elif value[0] == "external" and value[1] not in external:
                    external.append(value[1])
        return project, external

    def overridden(self, class_ref: Ref, method: SymbolFact) -> list[Ref]:
        """The methods of the project interfaces the type implements that ``method`` implements (same name and
        parameter count): what a call through the interface dispatches to. An embedded type's method is shadowed,
        not overridden."""
        if self.table.sym(class_ref).kind == "interface":
            return []
        out: list[Ref] = []
        for relation, res in self.supers(class_ref):
            if relation == "implements" and res[0] == "project":
                out += self.interface_method(res[1], method.name, len(method.params), set())
        return sorted(set(out))

    def interface_method(self, ref: Ref, name: str, params: int, seen: set[Ref]) -> list[Ref]:
        """The method ``name`` an interface declares, itself or through the project interfaces it embeds."""
        seen.add(ref)
        bound = self.table.files[ref[0]]
        found = [(bound.path, i) for i in bound.members(bound.sym(ref[1]).key)
                 if bound.sym(i).kind == "method" and bound.sym(i).name == name and len(bound.sym(i).params) == params]
        if found:
            return found
        for relation, res in super().supers(ref):
            if relation == "extends" and res[0] == "project" and res[1] not in seen:
                found += self.interface_method(res[1], name, params, seen)
        return found

    def unaliased(self, res: TypeRes) -> TypeRes:
        """The type an alias (``type AOptions = AppendV2Options``) stands for, through aliases of aliases."""
        for _ in range(8):
            if res[0] != "project":
                return res
            sym = self.table.sym(res[1])
            if sym.kind != "class" or "alias" not in sym.modifiers or not sym.type:
                return res
            self.touch(res[1])
            res = self.resolve_type(sym.type, self.table.files[res[1][0]], sym.parent)
        return res

    # ---- defined interface types --------------------------------------------------------------
    def member_call(self, what, how: str, call: CallFact, bound: Bound):
        target = super().member_call(what, how, call, bound)
        if target[0] is None and what[0] == "instance" and what[1][0] == "project":
            return self.defined_interface_call(what[1][1], call) or target
        return target

    def defined_interface_call(self, ref: Ref, call: CallFact):
        """A call through a type defined over a project interface (``type H I`` or ``type H I[Cmd]``), whose methods
        are the interface's: the interface's method (dispatch, as any interface call); for an instantiation of a
        generic interface whose method takes a type parameter, the one implementation whose method takes the
        instantiation's type there (None: not such a type)."""
        sym = self.table.sym(ref)
        if sym.kind != "class" or not sym.type or "struct" in sym.modifiers:
            return None
        bound = self.table.files[ref[0]]
        res = self.resolve_type(sym.type, bound, sym.parent)
        if res[0] != "project" or self.table.sym(res[1]).kind != "interface":
            return None
        self.touch(res[1])
        methods = [r for r in self.interface_method(res[1], call.name, call.argc, set())] if call.argc >= 0 else []
        if len(methods) != 1:
            return None
        params = self.table.sym(res[1]).type_params
        args = tuple(sym.extra.get("type_args") or ())
        method = self.table.sym(methods[0])
        if method.parent != self.table.sym(res[1]).key or methods[0][0] != res[1][0]:
            # declared by an embedded interface (``Pair[A, C] interface { Handler[A] }``): its type parameters are
            # bound by the embedding's arguments, which are not read, so a name shared with ours means nothing
            declaring = self.table.files[methods[0][0]].by_key.get(method.parent or "")
            own = self.table.sym((methods[0][0], declaring)).type_params if declaring is not None else ()
            if params and any(t in own or t in params for _n, t in method.params):
                return None
            return methods[0], "receiver_type", {}
        generic = {i: params.index(t) for i, (_n, t) in enumerate(self.table.sym(methods[0]).params)
                   if t in params and params.index(t) < len(args)}
        if not generic:
            return methods[0], "receiver_type", {}
        wanted = {i: self.unaliased(self.resolve_type(args[k], bound, sym.parent)) for i, k in generic.items()}
        if any(w[0] != "project" for w in wanted.values()):
            return None, "", {"reason": "external_type", "detail": f"{sym.type}[{', '.join(args)}].{call.name}"}
        found = self.instantiation_methods(res[1], call, wanted)
        if len(found) == 1:
            return found[0], "receiver_type", {}
        return None, "", {"reason": "ambiguous" if found else "not_found",
                          "candidates": [self.table.id_of(r) for r in found[:10]],
                          "detail": f"{len(found)} implementations of {sym.type}[{', '.join(args)}].{call.name}"}

    def instantiation_methods(self, interface: Ref, call: CallFact, wanted: dict[int, TypeRes]) -> list[Ref]:
        """The methods ``call.name`` of the project types implementing ``interface`` whose parameters at the
        positions ``wanted`` names are those types, an alias being the type it names (a generic implementation, such
        as a decorator over every instantiation, takes a type parameter there and is not one)."""
        out = []
        for r in self.table.by_name(call.name, self.t):
            method = self.table.sym(r)
            other = self.table.files[r[0]]
            if method.kind != "method" or other.facts.language != "go" or len(method.params) != call.argc:
                continue
            receiver = method.parent or method.extra.get("receiver")
            owner = self.resolve_type(receiver, other, None) if receiver else ("unknown", "")
            if owner[0] != "project" or ("implements", ("project", interface)) not in self.supers(owner[1]):
                continue
            if all(self.unaliased(self.resolve_type(method.params[i][1], other, method.parent)) == w
                   for i, w in wanted.items()):
                out.append(r)
        return sorted(out)

    # ---- the file -----------------------------------------------------------------------------
    def import_targets(self, target: str, bound: Bound) -> list[Ref]:
        return [(b.path, -1) for b in self.files_of(target)]

    def file_props(self, bound: Bound, sink: EdgeSink) -> dict[str, Any]:
        props = super().file_props(bound, sink)
        props["package_name"] = bound.facts.extra.get("package_name", "")
        return props

    def call_target(self, call: CallFact, bound: Bound):
        target, how, why = super().call_target(call, bound)
        if target is None and why.get("reason") == "external_name" and call.receiver and call.receiver[0] == "name":
            package = self.qualifiers(bound).get(call.receiver[1])
            if package is not None:
                why = {**why, "detail": f"{package}.{call.name}"}
        return target, how, why
