"""TypeScript / JavaScript resolution: module specifiers, exports and re-exports, classes, calls.

A relative specifier resolves against the importing file's folder, trying the path as written, then
with ``.ts``/``.tsx``/``.mts``/``.cts``/``.js``/``.jsx``/``.mjs``/``.cjs``, then ``/index.*`` (and a
``.js`` specifier also as the ``.ts`` file it is compiled from). Bare specifiers (``react``,
``@nestjs/common``) are external unless a tsconfig ``paths``/``baseUrl`` or bundler alias of the file's
project maps them to a project file (`aliases`); then they resolve as that file. A module's exports follow ``export {a as b}``, ``export default``, ``export ... from`` and
``export * from`` chains; a ``require`` of a module with ``module.exports = x`` gives ``x``.

Calls resolve as in Python (`names.NameResolver`) (scopes, imports, ``this``/``super``, typed receivers from
annotations, ``new`` and return types); a receiver of unknown type falls back to the one project
method with that name unless a builtin JS type or the DOM also has it (``map``, ``push``, ``then``,
``addEventListener`` ...).
"""

from __future__ import annotations

import posixpath
from typing import Any

from ...model import TYPE_KINDS
from ..names import NameResolver, Value
from ..resolver import FileOutput
from ..symbols import Bound, EdgeSink, Table, Tracker
from .aliases import aliased

EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
JS_GLOBALS = frozenset("""
console Math JSON Object Array String Number Boolean Promise Date RegExp Error TypeError RangeError Map Set
WeakMap WeakSet Symbol parseInt parseFloat isNaN isFinite setTimeout setInterval clearTimeout clearInterval
fetch require module exports window document process Buffer globalThis encodeURIComponent decodeURIComponent
encodeURI decodeURI alert confirm prompt navigator location history URL URLSearchParams Intl Reflect Proxy
BigInt queueMicrotask structuredClone jQuery $ describe it test expect beforeEach afterEach beforeAll afterAll
jest FormData Headers Request Response Event CustomEvent AbortController TextEncoder TextDecoder Blob File
FileReader XMLHttpRequest WebSocket localStorage sessionStorage requestAnimationFrame cancelAnimationFrame
getComputedStyle performance crypto atob btoa escape unescape eval Function Infinity NaN undefined
Uint8Array Int32Array Float64Array ArrayBuffer DataView Iterator gettext ngettext interpolate django
""".split())
BUILTIN_METHODS = frozenset("""
push pop shift unshift slice splice map filter reduce reduceRight forEach find findIndex findLast indexOf
lastIndexOf includes join concat sort reverse some every flat flatMap fill keys values entries at from of
isArray toString toLocaleString valueOf hasOwnProperty split replace replaceAll trim trimStart trimEnd
toLowerCase toUpperCase startsWith endsWith substring substr charAt charCodeAt padStart padEnd repeat match
matchAll search localeCompare normalize then catch finally resolve reject all allSettled race any get set has
delete clear add size assign freeze create defineProperty getPrototypeOf keys apply call bind toFixed
toISOString getTime getFullYear getMonth getDate getDay getHours getMinutes getSeconds setTime parse
stringify log warn error info debug trace addEventListener removeEventListener dispatchEvent querySelector
querySelectorAll getElementById getElementsByClassName getElementsByTagName appendChild removeChild
insertBefore replaceChild cloneNode setAttribute getAttribute removeAttribute hasAttribute closest matches
contains focus blur click submit reset preventDefault stopPropagation test exec next return throw
json text blob append remove toggle item
""".split())


#: TanStack Query's calls on a ``useMutation`` result that run its ``mutationFn``
MUTATION_CALLS = frozenset({"mutate", "mutateAsync"})


class TsResolver(NameResolver):
    PATH_IMPORTS = True
    CLASS_KINDS = frozenset({"class", "interface"})
    RELATIONS = ("extends", "implements")
    NOT_OVERRIDING = frozenset({"static"})
    TYPE_VALUE_KINDS = TYPE_KINDS
    GLOBAL_NAMES = JS_GLOBALS
    BUILTIN_METHODS = BUILTIN_METHODS
    ROOT_CLASS = "Object"
    MISSING = "exports no"
    MEMBER = "member"
    CONSTRUCTOR = "constructor"
    NO_SUPER = "super outside a class"

    def __init__(self, table: Table, tracker: Tracker, language):
        super().__init__(table, tracker, language)
        self._modules = table.cache("ts.modules")

    # ---- modules ------------------------------------------------------------------------------
    def module_for(self, bound: Bound, spec: str) -> Bound | None:
        if not spec.startswith((".", "/")):
            if not bound.ctx.aliases:
                return None
            return self.t.memo(self._modules, (bound.ctx.aliases, spec), lambda: self._aliased(bound, spec))
        return self.t.memo(self._modules, (bound.path, spec), lambda: self._module_for(bound, spec))

    def _aliased(self, bound: Bound, spec: str) -> Bound | None:
        for target in aliased(bound.ctx.aliases, spec):
            found = self._module_for(bound, "/" + target)
            if found is not None:
                return found
        return None

    def _module_for(self, bound: Bound, spec: str) -> Bound | None:
        folder = posixpath.dirname(bound.path)
        joined = posixpath.normpath(posixpath.join(folder, spec)) if not spec.startswith("/") else spec.lstrip("/")
        candidates = [joined]
        stem, ext = posixpath.splitext(joined)
        if ext in (".js", ".jsx", ".mjs", ".cjs"):
            candidates += [stem + e for e in (".ts", ".tsx", ".mts", ".cts")]
        candidates += [joined + e for e in EXTENSIONS]
        candidates += [f"{joined}/index{e}" for e in EXTENSIONS]
        for candidate in candidates:
            for path, index in self.table.lookup(candidate, self.t):
                target = self.table.files[path]
                if index < 0 and target.facts.language in ("typescript", "javascript"):
                    return target
        return None

    def bindings(self, bound: Bound) -> dict[str, tuple]:
        found = self.table.cache("ts.bindings").get(bound.path)
        if found is not None:
            return found
        names: dict[str, tuple] = {}
        for imp in bound.facts.imports:
            if imp.reexport:
                continue
            for imported, alias in imp.names:
                if imported == "*":
                    names.setdefault(alias, ("ns", imp.target))
                elif imported == "require":
                    names.setdefault(alias, ("require", imp.target))
                elif imported == "default":
                    names.setdefault(alias, ("named", imp.target, "default"))
                else:
                    names.setdefault(alias, ("named", imp.target, imported))
        self.table.cache("ts.bindings")[bound.path] = names
        return names

    def binding_value(self, bound: Bound, binding: tuple, seen: tuple = ()) -> Value:
        target = self.module_for(bound, binding[1])
        if target is None:
            spec = binding[1]
            return ("external", spec if binding[0] in ("ns", "require") else f"{spec}.{binding[2]}")
        if binding[0] == "ns":
            return ("module", (target.path, -1))
        if binding[0] == "require":
            if ("default" in target.facts.extra or "default_made" in target.facts.extra) \
                    and not target.facts.extra.get("exports"):
                return self.member_in(target, "default", seen)
            return ("module", (target.path, -1))
        return self.member_in(target, binding[2], seen)

    def find_member(self, bound: Bound, name: str, seen: tuple) -> Value:
        """What a module exports as ``name``: ``export {a as b}``, ``export default``, ``export ... from`` and
        ``export * from`` chains."""
        extra = bound.facts.extra
        if name == "default":
            local = extra.get("default")
            if local:
                return self.local_value(bound, local, seen)
            made = extra.get("default_made")
            if made:   # ``export default Api()``: what the factory made
                return self.returned(self.resolve_dotted(bound, None, made))
            return ("unknown", "no default export")
        local = extra.get("exports", {}).get(name)
        if local is not None:
            return self.local_value(bound, local, seen)
        for imp in bound.facts.imports:
            if not imp.reexport:
                continue
            for imported, exported in imp.names:
                if imported == "*" and exported == "*":
                    continue
                if exported == name:
                    target = self.module_for(bound, imp.target)
                    if target is None:
                        return ("external", f"{imp.target}.{imported}" if imported != "*" else imp.target)
                    if imported == "*":
                        return ("module", (target.path, -1))
                    return self.member_in(target, imported, seen)
        if name != "default":
            for imp in bound.facts.imports:
                if imp.reexport and imp.names == (("*", "*"),):
                    target = self.module_for(bound, imp.target)
                    if target is not None:
                        value = self.member_in(target, name, seen)
                        if value[0] != "unknown":
                            return value
        return ("unknown", f"{bound.path} exports no {name}")

    def local_value(self, bound: Bound, name: str, seen: tuple = ()) -> Value:
        for index in bound.members(""):
            sym = bound.sym(index)
            if sym.name == name:
                return self.value_of((bound.path, index))
        binding = self.bindings(bound).get(name)
        if binding is not None:
            return self.binding_value(bound, binding, seen)
        if name in bound.facts.extra.get("globals", {}):
            return ("global", (bound.path, -1), name)
        return ("unknown", "missing")

    def module_value(self, bound: Bound, name: str) -> Value:
        return self.local_value(bound, name)

    # ---- this, types and builtins ---------------------------------------------------------------
    def self_type(self, receiver, bound: Bound, owner: str) -> Value | None:
        if receiver[0] != "this":
            return None
        class_index = self.enclosing_class(bound, owner)
        return ("instance", (bound.path, class_index), "same_class") if class_index is not None else (
            "unknown", "this outside a class")

    def self_call(self, bound: Bound, scope: str | None, type_: str) -> list | None:
        if not (type_.startswith(("this.", "~this.")) and type_.endswith("()")):
            return None
        parts = type_.lstrip("~")[:-2].split(".")
        receiver: list = ["this"]
        for part in parts[1:-1]:
            receiver = ["field", receiver, part]
        return ["call", receiver, parts[-1], 0]

    def annotation_name(self, type_: str) -> str | None:
        return type_ if type_.replace(".", "").replace("_", "").replace("$", "").isalnum() else None

    def literal_type(self, type_: str, bound: Bound, owner: str) -> Value:
        value = self.resolve_dotted(bound, owner or None, type_)
        return ("instance", value[1], "receiver_type") if value[0] == "class" else ("external", type_)

    def returned(self, callee: Value, globals_ok: bool = True) -> Value:
        """What calling ``callee`` gives; a factory without a return type that returns an object literal with
        functions (`extract.object_methods`) gives that object, whose methods are the factory's own."""
        if callee[0] == "function":
            self.touch(callee[1])
            sym = self.table.sym(callee[1])
            bound = self.table.files[callee[1][0]]
            if not sym.type and any(bound.sym(i).kind == "method" for i in bound.members(sym.key)):
                return ("instance", callee[1], "inferred_type")
        return super().returned(callee, globals_ok)

    def module_call(self, name: str) -> dict:
        return {"reason": "undefined_name"}

    # ---- calls --------------------------------------------------------------------------------
    def resolve_call(self, receiver: Any, name: str, kind: str, bound: Bound, owner: str, line: int):
        if kind == "call" and (receiver is None or receiver[0] in ("name", "field")):
            found = self.hook_result_call(receiver, name, bound, owner, line)
            if found is not None:
                return found
        if kind == "new":
            value = self.resolve_dotted(bound, owner or None, receiver[1])
            if value[0] == "class":
                return self.constructor_of(value[1]), "constructor", {}
            if value[0] in ("external", "builtin"):
                return None, "", {"reason": "external_type", "detail": value[1]}
            return None, "", {"reason": "undefined_name", "detail": receiver[1]}
        if kind == "super":
            class_index = self.enclosing_class(bound, owner)
            if class_index is None:
                return None, "", {"reason": "undefined_name", "detail": "super() outside a class"}
            for relation, value in self.supers((bound.path, class_index)):
                if relation == "extends":
                    if value[0] == "class":
                        return self.constructor_of(value[1]), "constructor", {}
                    return None, "", {"reason": "external_base", "detail": value[1]}
            return None, "", {"reason": "undefined_name", "detail": "no base class"}
        return super().resolve_call(receiver, name, kind, bound, owner, line)

    def hook_result_call(self, receiver: Any, name: str, bound: Bound, owner: str, line: int):
        """A call of what a project function handed out in the object it returned, taken apart by the caller
        (``const { logout, saveMutation } = useAuth()``) or kept whole (``const auth = useAuth()``): ``logout()``
        (``auth.logout()``) is the function of that name ``useAuth`` declares and returns; ``saveMutation.mutate(x)``
        (``auth.saveMutation.mutate(x)``, also ``mutateAsync``) runs the ``mutationFn`` of the TanStack Query
        ``useMutation(...)`` that ``useAuth`` assigned to what it returned, code of ``useAuth`` itself. None: not such
        a call (anything else about it resolves as before)."""
        made, method = self.hook_value(receiver, name, bound, owner, line)
        if made is None:
            return None
        value = self.resolve_dotted(bound, owner or None, made[0])
        if value[0] != "function":
            return None
        self.touch(value[1])
        maker = self.table.files[value[1][0]]
        key = self.table.sym(value[1]).key
        held = maker.facts.extra.get("returns_object", {}).get(key, {}).get(made[1])
        if held is None:
            return None
        if method is None:
            index = maker.by_key.get(f"{key}.{held}")
            if index is None or maker.sym(index).kind not in ("function", "method"):
                return None
            return (maker.path, index), "inferred_type", {}
        typed = [t for _line, t in maker.facts.locals.get(key, {}).get(held, [])]
        if not any(t.startswith("~") and t.endswith("()") and t[1:-2].rsplit(".", 1)[-1] == "useMutation"
                   for t in typed):
            return None
        return value[1], "inferred_type", {}

    def hook_value(self, receiver: Any, name: str, bound: Bound, owner: str,
                   line: int) -> tuple[tuple[str, str] | None, str | None]:
        """((callee, property), the method called on it or None) of a call of a returned value (`hook_result_call`),
        or (None, None)."""
        if receiver is None:
            return self.destructured(bound, owner, name), None
        whole = receiver[1] if receiver[0] == "field" else receiver
        if whole[0] != "name":
            return None, None
        if receiver[0] == "name":
            if name in MUTATION_CALLS and (made := self.destructured(bound, owner, receiver[1])) is not None:
                return made, name
            callee = self.kept_whole(bound, owner, receiver[1], line)
            return ((callee, name), None) if callee else (None, None)
        callee = self.kept_whole(bound, owner, whole[1], line) if name in MUTATION_CALLS else None
        return ((callee, receiver[2]), name) if callee else (None, None)

    def kept_whole(self, bound: Bound, owner: str, name: str, line: int) -> str | None:
        """The callee whose result the local ``name`` holds (``const auth = useAuth()``), or None."""
        typed = self.local_type(bound, owner, name, line)
        return typed[1:-2] if typed.startswith("~") and typed.endswith("()") else None

    @staticmethod
    def destructured(bound: Bound, owner: str, name: str) -> tuple[str, str] | None:
        """(callee, property) of the local ``name`` the nearest scope around ``owner`` took apart from a call's
        result (`extract.hook_results`), or None: also when a parameter or another local of that name in a scope
        on the way (a callback's ``(logout) => logout()``) may be the one called, or one scope took it apart twice."""
        table = bound.facts.extra.get("destructured", {})
        key: str | None = owner or ""
        while key is not None:
            if name in bound.facts.locals.get(key, {}):
                return None
            if name in table.get(key, {}):
                found = table[key][name]
                return (found[0], found[1]) if found is not None else None
            if not key:
                return None
            index = bound.by_key.get(key)
            key = (bound.sym(index).parent or "") if index is not None else ""
        return None

    # ---- one file -----------------------------------------------------------------------------
    def file_props(self, bound: Bound, sink: EdgeSink) -> dict:
        facts = bound.facts
        imports_external: list[str] = []
        for imp in facts.imports:
            target = self.module_for(bound, imp.target)
            if target is None:
                imports_external.append(imp.target)
                continue
            for imported, _alias in imp.names:
                if imported in ("*", "require"):
                    value = ("module", (target.path, -1))
                else:
                    value = self.module_member(target, imported)
                    if value[0] not in ("class", "function", "module"):
                        value = ("module", (target.path, -1))
                edge = sink.add(bound.file_id, "IMPORTS", self.table.id_of(value[1]), {"lines": []})
                if imp.line not in edge.props["lines"]:
                    edge.props["lines"].append(imp.line)
                if imp.reexport:
                    edge.props["reexport"] = True
        return {"imports_external": sorted(set(imports_external)),
                "exports": sorted(facts.extra.get("exports", {})) + (["default"] if "default" in facts.extra else [])}

    def inject(self, bound: Bound, index: int, out: FileOutput) -> None:
        """Constructor injection of a decorated class (NestJS, Angular): typed constructor parameters."""
        sym = bound.sym(index)
        if sym.kind != "class" or not sym.annotations:
            return
        for member_index in bound.members(sym.key):
            member = bound.sym(member_index)
            if member.kind != "constructor":
                continue
            for name, type_ in member.params:
                if not type_:
                    continue
                value = self.resolve_dotted(bound, member.key, type_)
                if value[0] == "class":
                    out.sink.inject(bound.ids[index], self.table.id_of(value[1]), "constructor", name)
