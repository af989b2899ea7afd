"""Python resolution: names through scopes, imports and re-exports; classes, overrides and calls.

A name is looked up in the enclosing function scopes (nested ``def``/``class``), then the module's
namespace: its top-level classes and functions, its imports (followed through re-exports: ``from .base
import Model`` in a package ``__init__`` makes ``pkg.Model`` resolve to ``pkg.base.Model``), its
module-level variables, its submodules and its ``*`` imports; then builtins. Relative imports are
made absolute from the module's dotted name.

A value's type comes from an annotation (parameter, variable, field, return), from construction
(``x = Foo()``), or from a function's return annotation (``x = make()`` with ``-> Foo``). Calls on
``self``/``cls`` look in the enclosing class and its project bases (nearest first); ``super()`` in
the bases. A receiver of unknown type falls back to the one project callable with that name
(``name_only``, confidence 0.3) unless a builtin type also has a method with that name (``get``,
``append``, ``format`` ...), in which case the call stays unresolved: a dict's ``get`` must never be
linked to the project's only ``get``.
"""

from __future__ import annotations

import builtins
import io
from typing import Any

from ...model import CALLABLE_KINDS, RESOLUTIONS, symbol_id
from .. import roles
from ..resolver import NameResolver, nearest_typed, scope_chain
from ..symbols import Bound, EdgeSink, FileResult, Ref, Table, Tracker, file_node, receiver_text, symbol_node

BUILTIN_NAMES = frozenset(dir(builtins))
#: method names some builtin type has: never matched by name alone
BUILTIN_METHODS = frozenset().union(*(set(dir(t)) for t in (
    str, bytes, bytearray, list, dict, set, frozenset, tuple, int, float, complex, object, BaseException, type,
    io.StringIO, io.BytesIO, io.TextIOWrapper, memoryview, range, slice,
)))
_TYPE_WRAPPERS = ("Optional[", "typing.Optional[", "Annotated[", "typing.Annotated[", "ClassVar[", "Final[", "Type[",
                  "type[")

# resolved values: ("module", Ref) | ("class", Ref) | ("function", Ref) | ("instance", Ref, how) |
# ("method", Ref) | ("global", Ref, name) | ("external", qualified) | ("builtin", name) | ("unknown", why)
Value = tuple


def _module_package(bound: Bound) -> str:
    name = bound.ctx.module_name
    if bound.path.endswith("__init__.py"):
        return name
    return name.rsplit(".", 1)[0] if "." in name else ""


def absolute(bound: Bound, target: str) -> str:
    """``..x.y`` in ``a.b.c`` -> ``a.x.y``; absolute targets unchanged."""
    if not target.startswith("."):
        return target
    level = len(target) - len(target.lstrip("."))
    rest = target[level:]
    package = _module_package(bound)
    parts = package.split(".") if package else []
    if level > 1:
        parts = parts[: max(len(parts) - (level - 1), 0)]
    base = ".".join(parts)
    return f"{base}.{rest}" if base and rest else (base or rest)


class PythonResolver(NameResolver):
    IGNORED_BASES = frozenset({"object", "builtins.object"})
    GLOBAL_NAMES = BUILTIN_NAMES

    def __init__(self, table: Table, tracker: Tracker):
        super().__init__(table, tracker)
        self._imports = table.cache("py.imports")
        self._members = table.cache("py.members")
        self._bases = table.cache("py.ancestors")
        self._types = table.cache("py.types")
        self._roles = table.cache("py.roles")

    # ---- modules and namespaces -----------------------------------------------------------------
    def module(self, name: str) -> Bound | None:
        if not name:
            return None
        for path, index in self.table.lookup(name, self.t):
            bound = self.table.files[path]
            if index < 0 and bound.facts.language == "python":
                return bound
        return None

    def bindings(self, bound: Bound) -> tuple[dict[str, tuple], list[str]]:
        """Names an import binds in this file -> ("module", abs) | ("from", abs module, name); star modules."""
        found = self._imports.get(bound.path)
        if found is not None:
            return found
        names: dict[str, tuple] = {}
        stars: list[str] = []
        for imp in bound.facts.imports:
            target = absolute(bound, imp.target)
            for imported, alias in imp.names:
                if imported == "*":
                    stars.append(target)
                elif imp.target == imported or (not imp.target.startswith(".") and imported == imp.target):
                    # import a.b.c [as x]: without alias binds "a" to module a
                    names.setdefault(alias, ("module", target if alias != target.split(".")[0] or "." not in target
                                             else target.split(".")[0]))
                else:
                    names.setdefault(alias, ("from", target, imported))
        self._imports[bound.path] = (names, stars)
        return names, stars

    def member(self, bound: Bound, name: str) -> Value:
        """What ``module.name`` is, for a project module."""
        return self.t.memo(self._members, (bound.path, name), lambda: self._member(bound, name, ()))

    def _member(self, bound: Bound, name: str, seen: tuple) -> Value:
        if (bound.path, name) in seen:
            return ("unknown", "import cycle")
        seen = (*seen, (bound.path, name))
        for index in bound.members(""):
            sym = bound.sym(index)
            if sym.name == name:
                return self.value_of((bound.path, index))
        names, stars = self.bindings(bound)
        binding = names.get(name)
        if binding is not None:
            return self._binding(binding, seen)
        globals_ = bound.facts.extra.get("globals", {})
        if name in globals_:
            return ("global", (bound.path, -1), name)
        sub = self.module(f"{bound.ctx.module_name}.{name}") if bound.path.endswith("__init__.py") else None
        if sub is not None:
            return ("module", (sub.path, -1))
        if not name.startswith("_"):
            for star in stars:
                star_bound = self.module(star)
                if star_bound is not None:
                    value = self._member(star_bound, name, seen)
                    if value[0] != "unknown":
                        return value
        return ("unknown", "missing")

    def _binding(self, binding: tuple, seen: tuple = ()) -> Value:
        if binding[0] == "module":
            target = self.module(binding[1])
            return ("module", (target.path, -1)) if target is not None else ("external", binding[1])
        _, module_name, name = binding
        target = self.module(module_name)
        if target is None:
            sub = self.module(f"{module_name}.{name}")
            if sub is not None:
                return ("module", (sub.path, -1))
            return ("external", f"{module_name}.{name}")
        value = self._member(target, name, seen)
        if value[0] == "unknown":
            sub = self.module(f"{module_name}.{name}")
            if sub is not None:
                return ("module", (sub.path, -1))
            return ("unknown", f"{module_name} has no {name}")
        return value

    def module_value(self, bound: Bound, name: str) -> Value:
        return self.member(bound, name)

    # ---- classes ------------------------------------------------------------------------------
    def self_name(self, bound: Bound, key: str | None) -> tuple[str | None, int | None]:
        """The ``self``/``cls`` name visible at ``key`` and its class (closures see the method's)."""
        for _index, sym in scope_chain(bound, key):
            if sym.kind in ("method", "constructor"):
                return sym.extra.get("self"), self.enclosing_class(bound, sym.parent)
            if sym.kind == "class":
                return None, None
        return None, None

    # ---- values and types ---------------------------------------------------------------------
    def attr(self, value: Value, name: str, globals_ok: bool = True) -> Value:
        kind = value[0]
        if kind == "module":
            return self.member(self.table.files[value[1][0]], name)
        if kind in ("class", "instance"):
            member, _inherited, external = self.class_member(value[1], name)
            if member is None:
                return ("external", f"{external[0]}.{name}") if external else ("unknown", "no such attribute")
            sym = self.table.sym(member)
            if sym.kind == "class":
                return ("class", member)
            if sym.kind in CALLABLE_KINDS:
                if "property" in sym.modifiers and kind == "instance":
                    return self.eval_type(self.table.files[member[0]], sym.key, sym.type)
                return ("method", member) if kind == "instance" else ("function", member)
            if sym.kind == "field":
                return self.eval_type(self.table.files[member[0]], sym.parent, sym.type)
            return ("unknown", "attribute")
        if kind == "external":
            return ("external", f"{value[1]}.{name}")
        if kind == "global" and globals_ok:
            return self.attr(self.global_value(value), name, globals_ok)
        return ("unknown", "attribute of unknown")

    def eval_type(self, bound: Bound, scope: str | None, type_: str, globals_ok: bool = True) -> Value:
        """The value a type text describes: an annotation, or ``~Callee()`` (what calling it gives)."""
        if not type_:
            return ("unknown", "untyped")
        return self.t.memo(self._types, (bound.path, scope, type_, globals_ok),
                           lambda: self._eval_type(bound, scope, type_, globals_ok))

    def _eval_type(self, bound: Bound, scope: str | None, type_: str, globals_ok: bool) -> Value:
        self_name, class_index = self.self_name(bound, scope)
        if self_name and class_index is not None and type_.startswith(f"~{self_name}.") and type_.endswith("()"):
            # what a call on self (or self.field) returns: fields and members only, never locals
            parts = type_[1:-2].split(".")
            receiver: list = ["name", self_name]
            for part in parts[1:-1]:
                receiver = ["field", receiver, part]
            return self.type_of(["call", receiver, parts[-1], 0], bound, scope or "", 0)
        if type_.startswith("~") and type_.endswith("()"):
            callee = self.resolve_dotted(bound, scope, type_[1:-2], globals_ok)
            if callee[0] == "class":
                return ("instance", callee[1], "inferred_type")
            if callee[0] in ("function", "method"):
                sym = self.table.sym(callee[1])
                if sym.type:
                    inner = self.eval_type(self.table.files[callee[1][0]], sym.parent, sym.type, globals_ok)
                    return ("instance", inner[1], "inferred_type") if inner[0] == "instance" else inner
                return ("unknown", "unannotated return")
            if callee[0] == "external":
                return ("external", callee[1] + "()")
            if callee[0] == "builtin":
                return ("external", "builtins." + callee[1])
            return ("unknown", "call result")
        text_ = type_.replace(" ", "")
        for wrapper in _TYPE_WRAPPERS:
            if text_.startswith(wrapper) and text_.endswith("]"):
                text_ = text_[len(wrapper):-1].split(",")[0]
        options = [o for o in text_.split("|") if o not in ("None", "")]
        if len(options) != 1 or "[" in options[0] or not options[0].replace(".", "").replace("_", "").isalnum():
            return ("unknown", "complex annotation")
        value = self.resolve_dotted(bound, scope, options[0], globals_ok)
        if value[0] == "class":
            return ("instance", value[1], "receiver_type")
        if value[0] == "builtin":
            return ("external", "builtins." + value[1])
        if value[0] == "external":
            return ("external", value[1])
        return ("unknown", "annotation")

    def local_type(self, bound: Bound, owner: str, name: str, line: int) -> str:
        key: str | None = owner
        while key:
            table = bound.facts.locals.get(key)
            if table and name in table:
                return nearest_typed(table[name], line)
            index = bound.by_key.get(key)
            if index is None or bound.sym(index).kind == "class":
                return ""
            params = dict(bound.sym(index).params)
            if name in params or "*" + name in params or "**" + name in params:
                return params.get(name) or "?"
            key = bound.sym(index).parent
        return ""

    def type_of(self, receiver: Any, bound: Bound, owner: str, line: int) -> Value:
        kind = receiver[0]
        if kind == "name":
            name = receiver[1]
            self_name, class_index = self.self_name(bound, owner)
            if name == self_name and class_index is not None:
                return ("instance", (bound.path, class_index), "same_class")
            local = self.local_type(bound, owner, name, line) if owner else ""
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
                return ("external", "builtins." + name)
            return value
        if kind == "field":
            return self.attr(self.type_of(receiver[1], bound, owner, line), receiver[2])
        if kind == "call":
            target, _how, why = self.call_target(receiver[1], receiver[2], bound, owner, line)
            if target is None:
                if why.get("reason") in ("external_type", "external_name", "external_base", "builtin"):
                    return ("external", f"{why.get('detail', '?')}.{receiver[2]}()")
                return ("unknown", "call result")
            sym = self.table.sym(target)
            if sym.kind == "class":
                return ("instance", target, "inferred_type")
            if sym.kind == "constructor":
                return ("instance", (target[0], self.table.files[target[0]].by_key[sym.parent]), "inferred_type")
            if sym.type:
                value = self.eval_type(self.table.files[target[0]], sym.parent, sym.type)
                return ("instance", value[1], "inferred_type") if value[0] == "instance" else value
            return ("unknown", "unannotated return")
        if kind == "type":
            return ("external", "builtins." + receiver[1])
        return ("unknown", "expression")

    # ---- calls --------------------------------------------------------------------------------
    def constructor_of(self, class_ref: Ref) -> tuple[Ref, str]:
        member, _inherited, _external = self.class_member(class_ref, "__init__")
        return (member if member is not None else class_ref), "constructor"

    def call_target(self, receiver: Any, name: str, bound: Bound, owner: str, line: int) -> tuple[Ref | None, str, dict]:
        key = (bound.path, owner, repr(receiver), name, line)
        return self.t.memo(self.table.cache("py.calls"), key,
                           lambda: self._call_target(receiver, name, bound, owner, line))

    def _call_target(self, receiver, name, bound: Bound, owner: str, line: int):
        if receiver is None:
            if owner and self.local_type(bound, owner, name, line):
                return None, "", {"reason": "dynamic", "detail": f"{name} is a parameter or local variable"}
            value = self.resolve_name(bound, owner or None, name)
            kind = value[0]
            if kind == "function":
                return value[1], ("local" if value[1][0] == bound.path else "static_import"), {}
            if kind == "class":
                return (*self.constructor_of(value[1]), {})
            if kind == "external":
                return None, "", {"reason": "external_name", "detail": value[1]}
            if kind == "builtin":
                return None, "", {"reason": "builtin", "detail": name}
            if kind == "global":
                return None, "", {"reason": "dynamic", "detail": f"{name} is a module-level variable"}
            if kind == "module":
                return None, "", {"reason": "not_found", "detail": f"{name} is a module"}
            return None, "", {"reason": "undefined_name"}
        if receiver[0] == "super":
            _self, class_index = self.self_name(bound, owner)
            if class_index is None:
                return None, "", {"reason": "undefined_name", "detail": "super() outside a method"}
            return self.super_call((bound.path, class_index), name, "object")
        value = self.type_of(receiver, bound, owner, line)
        kind = value[0]
        if kind in ("instance", "class"):
            member, inherited, external = self.class_member(value[1], name)
            if member is None:
                if external:
                    return None, "", {"reason": "external_base", "detail": ", ".join(external)}
                return None, "", {"reason": "not_found", "detail": f"{self.table.fqn_of(value[1])} has no {name}"}
            sym = self.table.sym(member)
            if sym.kind == "class":
                return (*self.constructor_of(member), {})
            if sym.kind not in CALLABLE_KINDS:
                return None, "", {"reason": "not_found", "detail": f"{name} is a field"}
            if kind == "class":
                return member, "static", {}
            how = value[2]
            if how == "same_class":
                how = "inherited" if inherited else "same_class"
            return member, how, {}
        if kind == "module":
            inner = self.member(self.table.files[value[1][0]], name)
            if inner[0] == "function":
                return inner[1], "static", {}
            if inner[0] == "class":
                return (*self.constructor_of(inner[1]), {})
            if inner[0] == "external":
                return None, "", {"reason": "external_name", "detail": inner[1]}
            return None, "", {"reason": "not_found", "detail": f"{self.table.fqn_of(value[1])} has no {name}"}
        if kind in ("function", "method"):
            return None, "", {"reason": "not_found", "detail": f"attribute {name} of a function"}
        if kind == "external":
            return None, "", {"reason": "external_type", "detail": value[1]}
        return self._name_only(name)

    def _name_only(self, name: str) -> tuple[Ref | None, str, dict]:
        if name in BUILTIN_METHODS or (name.startswith("__") and name.endswith("__")):
            return None, "", {"reason": "unknown_receiver", "detail": f"builtin types also have {name}"}
        return self.only_candidate(name, self.project_methods(name, ("python",)))

    # ---- roles --------------------------------------------------------------------------------
    def class_role(self, ref: Ref) -> str:
        def compute() -> str:
            bound = self.table.files[ref[0]]
            sym = bound.sym(ref[1])
            if bound.ctx.is_test:
                return "TEST"
            for decorator in sym.annotations:
                role = roles.annotation_role(decorator.name.rsplit(".", 1)[-1], language="python", on_type=True)
                if role and role != "CONFIG":
                    return role
            project, external = self.ancestors(ref)
            for ancestor in project:
                role = roles.base_role(self.table.fqn_of(ancestor))
                if role:
                    return role
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
        module_name = bound.ctx.module_name
        if "." in module_name:
            folder = bound.path.rsplit("/", 1)[0] if "/" in bound.path else ""
            if bound.path.endswith("__init__.py"):
                folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
            parent = f"{folder}/__init__.py" if folder else "__init__.py"
            sink.add(symbol_id(parent, ""), "DECLARES", bound.file_id)

        imports_external: list[str] = []
        for imp in facts.imports:
            target = absolute(bound, imp.target)
            for imported, _alias in imp.names:
                if imported == "*":
                    value = ("module", (self.module(target).path, -1)) if self.module(target) else ("external", target)
                elif imp.target == imported or (not imp.target.startswith(".") and imported == imp.target):
                    mod = self.module(target)
                    value = ("module", (mod.path, -1)) if mod is not None else ("external", target)
                else:
                    value = self._binding(("from", target, imported))
                if value[0] in ("module", "class", "function"):
                    edge = sink.add(bound.file_id, "IMPORTS", self.table.id_of(value[1]), {"lines": []})
                    if imp.line not in edge.props["lines"]:
                        edge.props["lines"].append(imp.line)
                elif value[0] == "external":
                    imports_external.append(value[1])

        extra_props: dict[str, dict] = {}
        caps: dict[str, set[str]] = {bound.ids[i]: set() for i in range(len(facts.symbols))}
        for index, sym in enumerate(facts.symbols):
            sid = bound.ids[index]
            sink.add(bound.ids[bound.by_key[sym.parent]] if sym.parent else bound.file_id, "DECLARES", sid)
            for decorator in sym.annotations:
                cap = roles.python_decorator_capability(decorator.name)
                if cap:
                    caps[sid].add(cap)
            if sym.kind == "class":
                ext = []
                for value in self.supertypes((bound.path, index)):
                    if value[0] == "class":
                        sink.add(sid, "EXTENDS", self.table.id_of(value[1]))
                        ext.append(self.table.fqn_of(value[1]))
                    else:
                        ext.append(value[1])
                extra_props[sid] = {"extends": ext}
            elif sym.kind == "method":
                class_index = self.enclosing_class(bound, sym.parent)
                if class_index is not None and bound.sym(class_index).key == sym.parent:
                    for target in self.overridden((bound.path, class_index), sym.name):
                        sink.add(sid, "OVERRIDES", self.table.id_of(target))
            for param, target in sym.extra.get("depends", []):
                value = self.resolve_dotted(bound, sym.parent, target)
                if value[0] in ("function", "class"):
                    sink.inject(sid, self.table.id_of(value[1]), "depends", param)

        unresolved: dict[str, list[dict]] = {}
        for call in facts.calls:
            owner_index = bound.by_key.get(call.owner) if call.owner else -1
            if owner_index is None:
                continue
            src = bound.ids[owner_index] if owner_index >= 0 else bound.file_id
            target, how, why = self.call_target(call.receiver, call.name, bound, call.owner, call.line)
            if target is not None:
                sink.call(src, self.table.id_of(target), how, RESOLUTIONS[how], call.line)
            else:
                unresolved.setdefault(src, []).append(
                    {"name": call.name, "receiver": receiver_text(call.receiver), "line": call.line, **why})
                detail = why.get("detail", "")
                for prefix, cap in roles.CALL_CAPABILITIES:
                    if why.get("reason") in ("external_name", "external_type") and detail.startswith(prefix):
                        if owner_index >= 0:
                            caps[src].add(cap)

        for index in range(len(facts.symbols) - 1, -1, -1):
            sym = facts.symbols[index]
            if sym.parent:
                parent = bound.sym(bound.by_key[sym.parent])
                if parent.kind == "class":
                    caps[bound.ids[bound.by_key[sym.parent]]] |= caps[bound.ids[index]]

        module_caps = ["ENTRY_POINT"] if facts.extra.get("main") else []
        nodes = [file_node(bound, "package" if bound.path.endswith("__init__.py") else "module",
                           {"role": "TEST" if bound.ctx.is_test else "OTHER", "capabilities": module_caps,
                            "imports_external": sorted(set(imports_external)),
                            **({"unresolved_calls": unresolved[bound.file_id]} if bound.file_id in unresolved else {})})]
        for index, sym in enumerate(facts.symbols):
            sid = bound.ids[index]
            class_index = index if sym.kind == "class" else self.enclosing_class(bound, sym.parent)
            if class_index is not None:
                role = self.class_role((bound.path, class_index))
            elif bound.ctx.is_test:
                role = "TEST"
            elif "HTTP_ENDPOINT" in caps[sid]:
                role = "CONTROLLER"
            else:
                role = "OTHER"
            props = {"role": role, "capabilities": sorted(caps[sid]), **extra_props.get(sid, {})}
            if sid in unresolved:
                props["unresolved_calls"] = unresolved[sid]
            nodes.append(symbol_node(bound, index, props))
        return FileResult(nodes=nodes, edges=sink.values())
