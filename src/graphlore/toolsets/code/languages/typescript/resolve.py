"""TypeScript / JavaScript resolution: module specifiers, exports and re-exports, classes, calls.

A relative specifier resolves against the importing file's folder, trying the path as written, then
with ``.ts``/``.tsx``/``.mts``/``.cts``/``.js``/``.jsx``/``.mjs``/``.cjs``, then ``/index.*`` (and a
``.js`` specifier also as the ``.ts`` file it is compiled from). Bare specifiers (``react``,
``@nestjs/common``) are external; tsconfig path aliases are not read (they stay external, named as
written). A module's exports follow ``export {a as b}``, ``export default``, ``export ... from`` and
``export * from`` chains; a ``require`` of a module with ``module.exports = x`` gives ``x``.

Calls resolve as in `python_resolve` (scopes, imports, ``this``/``super``, typed receivers from
annotations, ``new`` and return types); a receiver of unknown type falls back to the one project
method with that name unless a builtin JS type or the DOM also has it (``map``, ``push``, ``then``,
``addEventListener`` ...).
"""

from __future__ import annotations

import posixpath
from typing import Any

from ...model import CALLABLE_KINDS, RESOLUTIONS, TYPE_KINDS
from .. import roles
from ..resolver import NameResolver, nearest_typed
from ..symbols import Bound, EdgeSink, FileResult, Ref, Table, Tracker, file_node, receiver_text, symbol_node

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


class TsResolver(NameResolver):
    CLASS_KINDS = frozenset({"class", "interface"})
    TYPE_VALUE_KINDS = TYPE_KINDS
    GLOBAL_NAMES = JS_GLOBALS

    def __init__(self, table: Table, tracker: Tracker):
        super().__init__(table, tracker)
        self._modules = table.cache("ts.modules")
        self._exports = table.cache("ts.exports")
        self._bases = table.cache("ts.bases")
        self._types = table.cache("ts.types")
        self._roles = table.cache("ts.roles")

    # ---- modules ------------------------------------------------------------------------------
    def module_for(self, bound: Bound, spec: str) -> Bound | None:
        if not spec.startswith((".", "/")):
            return None
        return self.t.memo(self._modules, (bound.path, spec), lambda: self._module_for(bound, spec))

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

    def binding_value(self, bound: Bound, binding: tuple, seen: tuple = ()) -> Any:
        target = self.module_for(bound, binding[1])
        if target is None:
            spec = binding[1]
            return ("external", spec if binding[0] in ("ns", "require") else f"{spec}.{binding[2]}")
        if binding[0] == "ns":
            return ("module", (target.path, -1))
        if binding[0] == "require":
            if "default" in target.facts.extra and not target.facts.extra.get("exports"):
                return self._export(target, "default", seen)
            return ("module", (target.path, -1))
        return self._export(target, binding[2], seen)

    def export(self, bound: Bound, name: str) -> Any:
        return self.t.memo(self._exports, (bound.path, name), lambda: self._export(bound, name, ()))

    def _export(self, bound: Bound, name: str, seen: tuple) -> Any:
        if (bound.path, name) in seen:
            return ("unknown", "export cycle")
        seen = (*seen, (bound.path, name))
        extra = bound.facts.extra
        if name == "default":
            local = extra.get("default")
            return self.local_value(bound, local, seen) if local else ("unknown", "no default export")
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
                    return self._export(target, imported, seen)
        if name != "default":
            for imp in bound.facts.imports:
                if imp.reexport and imp.names == (("*", "*"),):
                    target = self.module_for(bound, imp.target)
                    if target is not None:
                        value = self._export(target, name, seen)
                        if value[0] != "unknown":
                            return value
        return ("unknown", f"{bound.path} exports no {name}")

    def local_value(self, bound: Bound, name: str, seen: tuple = ()) -> Any:
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

    def module_value(self, bound: Bound, name: str) -> Any:
        return self.local_value(bound, name)

    # ---- classes ------------------------------------------------------------------------------
    # ---- values -------------------------------------------------------------------------------
    def attr(self, value: Any, name: str, globals_ok: bool = True) -> Any:
        kind = value[0]
        if kind == "module":
            return self.export(self.table.files[value[1][0]], name)
        if kind in ("class", "instance"):
            member, _inherited, external = self.class_member(value[1], name)
            if member is None:
                return ("external", f"{external[0]}.{name}") if external else ("unknown", "no such member")
            sym = self.table.sym(member)
            if sym.kind in TYPE_KINDS:
                return ("class", member)
            if sym.kind in CALLABLE_KINDS:
                return ("method", member) if kind == "instance" else ("function", member)
            return self.eval_type(self.table.files[member[0]], sym.parent, sym.type)
        if kind == "external":
            return ("external", f"{value[1]}.{name}")
        if kind == "global" and globals_ok:
            return self.attr(self.global_value(value), name, False)
        return ("unknown", "attribute of unknown")

    def eval_type(self, bound: Bound, scope: str | None, type_: str, globals_ok: bool = True) -> Any:
        if not type_ or type_ == "?":
            return ("unknown", "untyped")
        return self.t.memo(self._types, (bound.path, scope, type_, globals_ok),
                           lambda: self._eval_type(bound, scope, type_, globals_ok))

    def _eval_type(self, bound: Bound, scope: str | None, type_: str, globals_ok: bool) -> Any:
        if type_.startswith("this.") and type_.endswith("()") or type_.startswith("~this.") and type_.endswith("()"):
            # what a call on this (or this.field) returns: fields and members only, never locals
            parts = type_.lstrip("~")[:-2].split(".")
            receiver: list = ["this"]
            for part in parts[1:-1]:
                receiver = ["field", receiver, part]
            return self.type_of(["call", receiver, parts[-1], 0], bound, scope or "", 0)
        if type_.startswith("~") and type_.endswith("()"):
            callee = self.resolve_dotted(bound, scope, type_[1:-2], globals_ok)
            if callee[0] == "class":
                return ("instance", callee[1], "inferred_type")
            if callee[0] in ("function", "method"):
                sym = self.table.sym(callee[1])
                inner = self.eval_type(self.table.files[callee[1][0]], sym.parent, sym.type, globals_ok)
                return ("instance", inner[1], "inferred_type") if inner[0] == "instance" else inner
            if callee[0] in ("external", "builtin"):
                return ("external", f"{callee[1]}()")
            return ("unknown", "call result")
        if not type_.replace(".", "").replace("_", "").replace("$", "").isalnum():
            return ("unknown", "complex type")
        value = self.resolve_dotted(bound, scope, type_, globals_ok)
        if value[0] == "class":
            return ("instance", value[1], "receiver_type")
        if value[0] in ("external", "builtin"):
            return ("external", value[1])
        return ("unknown", "type")

    def local_type(self, bound: Bound, owner: str, name: str, line: int) -> str:
        key: str | None = owner
        while key:
            table = bound.facts.locals.get(key)
            if table and name in table:
                return nearest_typed(table[name], line)
            index = bound.by_key.get(key)
            if index is None or bound.sym(index).kind in TYPE_KINDS:
                return ""
            params = dict(bound.sym(index).params)
            if name in params:
                return params[name] or "?"
            key = bound.sym(index).parent
        module_level = bound.facts.locals.get("", {}).get(name)
        if module_level:
            typed = [type_ for decl_line, type_ in module_level if type_ != "?" and decl_line <= line]
            return typed[-1] if typed else "?"
        return ""

    def type_of(self, receiver: Any, bound: Bound, owner: str, line: int) -> Any:
        kind = receiver[0]
        if kind == "this":
            class_index = self.enclosing_class(bound, owner)
            return ("instance", (bound.path, class_index), "same_class") if class_index is not None else (
                "unknown", "this outside a class")
        if kind == "name":
            name = receiver[1]
            local = self.local_type(bound, owner, name, line)
            if local == "?":
                return ("unknown", "untyped local")
            if local:
                value = self.eval_type(bound, owner, local)
                if value[0] != "unknown":
                    return value
            value = self.resolve_name(bound, owner or None, name)
            if value[0] == "global":
                return self.global_value(value)
            if value[0] == "builtin":
                return ("external", name)
            return value
        if kind == "field":
            return self.attr(self.type_of(receiver[1], bound, owner, line), receiver[2])
        if kind == "call":
            target, _how, why = self.call_target(receiver[1], receiver[2], "call", bound, owner, line)
            if target is None:
                if why.get("reason") in ("external_type", "external_name", "external_base", "builtin"):
                    return ("external", f"{why.get('detail', '?')}.{receiver[2]}()")
                return ("unknown", "call result")
            sym = self.table.sym(target)
            if sym.kind in TYPE_KINDS:
                return ("instance", target, "inferred_type")
            value = self.eval_type(self.table.files[target[0]], sym.parent, sym.type)
            return ("instance", value[1], "inferred_type") if value[0] == "instance" else value
        if kind == "type":
            value = self.resolve_dotted(bound, owner or None, receiver[1])
            if value[0] == "class":
                return ("instance", value[1], "receiver_type")
            return ("external", receiver[1])
        return ("unknown", "expression")

    # ---- calls --------------------------------------------------------------------------------
    def constructor_of(self, class_ref: Ref) -> Ref:
        member, _inherited, _external = self.class_member(class_ref, "constructor")
        return member if member is not None else class_ref

    def call_target(self, receiver: Any, name: str, kind: str, bound: Bound, owner: str,
                    line: int) -> tuple[Ref | None, str, dict]:
        key = (bound.path, owner, repr(receiver), name, kind, line)
        return self.t.memo(self.table.cache("ts.calls"), key,
                           lambda: self._call_target(receiver, name, kind, bound, owner, line))

    def _call_target(self, receiver, name, kind, bound: Bound, owner: str, line: int):
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
            for relation, value in self.bases((bound.path, class_index)):
                if relation == "extends":
                    if value[0] == "class":
                        return self.constructor_of(value[1]), "constructor", {}
                    return None, "", {"reason": "external_base", "detail": value[1]}
            return None, "", {"reason": "undefined_name", "detail": "no base class"}
        if receiver is None:
            local = self.local_type(bound, owner, name, line)
            if local:
                return None, "", {"reason": "dynamic", "detail": f"{name} is a parameter or local variable"}
            value = self.resolve_name(bound, owner or None, name)
            if value[0] == "function":
                return value[1], ("local" if value[1][0] == bound.path else "static_import"), {}
            if value[0] == "class":
                return self.constructor_of(value[1]), "constructor", {}
            if value[0] == "external":
                return None, "", {"reason": "external_name", "detail": value[1]}
            if value[0] == "builtin":
                return None, "", {"reason": "builtin", "detail": name}
            if value[0] == "global":
                return None, "", {"reason": "dynamic", "detail": f"{name} is a module-level variable"}
            return None, "", {"reason": "undefined_name"}
        if receiver[0] == "super":
            class_index = self.enclosing_class(bound, owner)
            if class_index is None:
                return None, "", {"reason": "undefined_name", "detail": "super outside a class"}
            return self.super_call((bound.path, class_index), name, "Object")
        value = self.type_of(receiver, bound, owner, line)
        if value[0] in ("instance", "class"):
            member, inherited, external = self.class_member(value[1], name)
            if member is None:
                if external:
                    return None, "", {"reason": "external_base", "detail": ", ".join(external)}
                return None, "", {"reason": "not_found", "detail": f"{self.table.fqn_of(value[1])} has no {name}"}
            sym = self.table.sym(member)
            if sym.kind not in CALLABLE_KINDS:
                return None, "", {"reason": "not_found", "detail": f"{name} is a field"}
            if value[0] == "class":
                return member, "static", {}
            how = value[2]
            if how == "same_class":
                how = "inherited" if inherited else "same_class"
            return member, how, {}
        if value[0] == "module":
            inner = self.export(self.table.files[value[1][0]], name)
            if inner[0] == "function":
                return inner[1], "static", {}
            if inner[0] == "class":
                return self.constructor_of(inner[1]), "constructor", {}
            if inner[0] == "external":
                return None, "", {"reason": "external_name", "detail": inner[1]}
            return None, "", {"reason": "not_found", "detail": f"{self.table.fqn_of(value[1])} exports no {name}"}
        if value[0] == "external":
            return None, "", {"reason": "external_type", "detail": value[1]}
        if value[0] in ("function", "method"):
            return None, "", {"reason": "not_found", "detail": f"member {name} of a function"}
        return self._name_only(name)

    def _name_only(self, name: str) -> tuple[Ref | None, str, dict]:
        if name in BUILTIN_METHODS:
            return None, "", {"reason": "unknown_receiver", "detail": f"builtin types also have {name}"}
        return self.only_candidate(name, self.project_methods(name, ("typescript", "javascript")))

    # ---- roles --------------------------------------------------------------------------------
    def class_role(self, ref: Ref) -> str:
        def compute() -> str:
            bound = self.table.files[ref[0]]
            sym = bound.sym(ref[1])
            if bound.ctx.is_test:
                return "TEST"
            for decorator in sym.annotations:
                role = roles.annotation_role(decorator.name.rsplit(".", 1)[-1], language="typescript", on_type=True)
                if role:
                    return role
            project, external = self.ancestors(ref)
            for name in external:
                role = roles.base_role(name)
                if role:
                    return role
            return roles.name_role(sym.name) or "OTHER"
        return self.t.memo(self._roles, ref, compute)

    # ---- one file -----------------------------------------------------------------------------
    def resolve_file(self, bound: Bound) -> FileResult:
        facts = bound.facts
        sink = EdgeSink()
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
                    value = self.export(target, imported)
                    if value[0] not in ("class", "function", "module"):
                        value = ("module", (target.path, -1))
                edge = sink.add(bound.file_id, "IMPORTS", self.table.id_of(value[1]), {"lines": []})
                if imp.line not in edge.props["lines"]:
                    edge.props["lines"].append(imp.line)
                if imp.reexport:
                    edge.props["reexport"] = True

        caps: dict[str, set[str]] = {bound.ids[i]: set() for i in range(len(facts.symbols))}
        extra_props: dict[str, dict] = {}
        for index, sym in enumerate(facts.symbols):
            sid = bound.ids[index]
            sink.add(bound.ids[bound.by_key[sym.parent]] if sym.parent else bound.file_id, "DECLARES", sid)
            for decorator in sym.annotations:
                cap = roles.TS_CAPABILITY_DECORATORS.get(decorator.name.rsplit(".", 1)[-1])
                if cap:
                    caps[sid].add(cap)
            if sym.kind in ("class", "interface"):
                ext, impl = [], []
                for relation, value in self.bases((bound.path, index)):
                    qualified = self.table.fqn_of(value[1]) if value[0] == "class" else value[1]
                    (ext if relation == "extends" else impl).append(qualified)
                    if value[0] == "class":
                        edge_type = "IMPLEMENTS" if relation == "implements" else "EXTENDS"
                        sink.add(sid, edge_type, self.table.id_of(value[1]))
                extra_props[sid] = {"extends": ext, "implements": impl}
                if sym.kind == "class" and sym.annotations:
                    self.injection(bound, index, sink)
            elif sym.kind == "method":
                class_index = self.enclosing_class(bound, sym.parent)
                if class_index is not None and "static" not in sym.modifiers:
                    for target in self.overridden((bound.path, class_index), sym.name):
                        sink.add(sid, "OVERRIDES", self.table.id_of(target))

        unresolved: dict[str, list[dict]] = {}
        for call in facts.calls:
            owner_index = bound.by_key.get(call.owner) if call.owner else -1
            if owner_index is None:
                continue
            src = bound.ids[owner_index] if owner_index >= 0 else bound.file_id
            target, how, why = self.call_target(call.receiver, call.name, call.kind, bound, call.owner, call.line)
            if target is not None:
                sink.call(src, self.table.id_of(target), how, RESOLUTIONS[how], call.line)
                continue
            unresolved.setdefault(src, []).append(
                {"name": call.name, "receiver": receiver_text(call.receiver) if call.kind != "new" else "new",
                 "line": call.line, **why})
            detail = why.get("detail", "")
            if owner_index >= 0 and why.get("reason") in ("external_name", "external_type", "builtin"):
                for prefix, cap in roles.CALL_CAPABILITIES:
                    if detail.startswith(prefix):
                        caps[src].add(cap)

        for index in range(len(facts.symbols) - 1, -1, -1):
            sym = facts.symbols[index]
            if sym.parent and bound.sym(bound.by_key[sym.parent]).kind in ("class", "interface"):
                caps[bound.ids[bound.by_key[sym.parent]]] |= caps[bound.ids[index]]

        nodes = [file_node(bound, "module", {
            "role": "TEST" if bound.ctx.is_test else "OTHER", "capabilities": [],
            "imports_external": sorted(set(imports_external)),
            "exports": sorted(facts.extra.get("exports", {})) + (["default"] if "default" in facts.extra else []),
            **({"unresolved_calls": unresolved[bound.file_id]} if bound.file_id in unresolved else {})})]
        for index, sym in enumerate(facts.symbols):
            sid = bound.ids[index]
            class_index = index if sym.kind in ("class", "interface") else self.enclosing_class(bound, sym.parent)
            if class_index is not None:
                role = self.class_role((bound.path, class_index))
            elif bound.ctx.is_test:
                role = "TEST"
            else:
                role = roles.name_role(sym.name) if sym.kind == "enum" else "OTHER"
                role = role or "OTHER"
            props = {"role": role, "capabilities": sorted(caps[sid]), **extra_props.get(sid, {})}
            if sid in unresolved:
                props["unresolved_calls"] = unresolved[sid]
            nodes.append(symbol_node(bound, index, props))
        return FileResult(nodes=nodes, edges=sink.values())

    def injection(self, bound: Bound, index: int, sink: EdgeSink) -> None:
        """Constructor injection of a decorated class (NestJS, Angular): typed constructor parameters."""
        sym = bound.sym(index)
        for member_index in bound.members(sym.key):
            member = bound.sym(member_index)
            if member.kind != "constructor":
                continue
            for name, type_ in member.params:
                if not type_:
                    continue
                value = self.resolve_dotted(bound, member.key, type_)
                if value[0] == "class":
                    sink.inject(bound.ids[index], self.table.id_of(value[1]), "constructor", name)
