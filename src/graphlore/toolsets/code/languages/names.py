"""Resolution by names and values, for languages where a name means a value found through scopes and modules
(Python, TypeScript/JavaScript): a class's bases are dotted names resolved like any other, a member is found
by its name alone, and a receiver's type comes from an annotation, a construction or what a call returns.

Values: ``("module", Ref)`` | ``("class", Ref)`` | ``("function", Ref)`` | ``("instance", Ref, how)`` |
``("method", Ref)`` | ``("global", Ref, name)`` | ``("external", qualified)`` | ``("builtin", name)`` |
``("unknown", why)``. A language gives what is its own: what a name is at module level (`module_value`),
what a module exports (`module_member`), its ``self``/``this`` (`self_type`), how an annotation names a type
(`annotation_name`) and its builtins (`GLOBAL_NAMES`, `BUILTIN_METHODS`, `builtin`).
"""

from __future__ import annotations

from typing import Any

from ..model import CALLABLE_KINDS, CallFact, SymbolFact
from .resolver import Resolver, Target, scope_chain
from .symbols import Bound, Ref, Table, Tracker

Value = tuple
#: why a call stayed unresolved when the callee is known to be outside the project
_EXTERNAL = ("external_type", "external_name", "external_base", "builtin")


def nearest_typed(declarations: list[tuple[int, str]], line: int) -> str:
    """The type of a local's typed declaration nearest before ``line`` (else its first typed one); ``"?"``
    marks an untyped local, and is the answer when no declaration has a type."""
    best = ""
    for decl_line, type_ in declarations:
        if type_ != "?" and (decl_line <= line or not best):
            best = type_
    return best or "?"


class NameResolver(Resolver):
    """See the module docstring."""

    RELATIONS = ("extends",)
    #: symbol kinds whose name is a type (a class value, not a function)
    TYPE_VALUE_KINDS: frozenset[str] = frozenset({"class"})
    #: names the language itself defines (builtins, globals)
    GLOBAL_NAMES: frozenset[str] = frozenset()
    #: method names some builtin type has: never matched by name alone
    BUILTIN_METHODS: frozenset[str] = frozenset()
    #: the implicit base class (``object``)
    ROOT_CLASS = "object"
    #: how a missing member of a project module is said (``has no``, ``exports no``)
    MISSING = "has no"
    #: what a member of a value is called (``attribute``, ``member``)
    MEMBER = "attribute"
    #: the name of a class's constructor
    CONSTRUCTOR = "__init__"

    def __init__(self, table: Table, tracker: Tracker, language):
        super().__init__(table, tracker, language)
        self._bases = table.cache("bases")
        self._types = table.cache("types")
        self._calls = table.cache("calls")
        self._members = table.cache("members")

    # ---- what a language says -------------------------------------------------------------------
    def module_value(self, bound: Bound, name: str) -> Value:
        """What ``name`` is at the module level of ``bound``."""
        raise NotImplementedError

    def find_member(self, bound: Bound, name: str, seen: tuple) -> Value:
        """What ``module.name`` is, for a project module, following imports and re-exports (``seen``: the
        (path, name) pairs on the way, for `member_in`)."""
        raise NotImplementedError

    def self_type(self, receiver: Any, bound: Bound, owner: str) -> Value | None:
        """The type of ``self``/``this`` when ``receiver`` is it, else None."""
        return None

    def self_call(self, bound: Bound, scope: str | None, type_: str) -> list | None:
        """A type written as a call on ``self``/``this`` (``~self.repo.find()``) as a receiver tree, else None."""
        return None

    def annotation_name(self, type_: str) -> str | None:
        """The one dotted name an annotation names (None when it is more than a name)."""
        return type_ if type_.replace(".", "").replace("_", "").isalnum() else None

    def builtin(self, name: str) -> str:
        """How a builtin is named as an external value."""
        return name

    def builtin_call(self, name: str) -> str:
        """How the result of calling a builtin is named as an external value."""
        return f"{name}()"

    def literal_type(self, type_: str, bound: Bound, owner: str) -> Value:
        """The type of a ``["type", name]`` receiver (a literal or a construction)."""
        return ("external", type_)

    def builtin_method(self, name: str) -> bool:
        return name in self.BUILTIN_METHODS

    def module_call(self, name: str) -> dict:
        """Why calling a module goes nowhere."""
        return {"reason": "not_found", "detail": f"{name} is a module"}

    # ---- names --------------------------------------------------------------------------------
    def module_member(self, bound: Bound, name: str) -> Value:
        """What ``module.name`` is, for a project module."""
        return self.t.memo(self._members, (bound.path, name), lambda: self.member_in(bound, name, ()))

    def member_in(self, bound: Bound, name: str, seen: tuple) -> Value:
        """`find_member`, stopped where imports go round in a cycle."""
        if (bound.path, name) in seen:
            return ("unknown", "import cycle")
        return self.find_member(bound, name, (*seen, (bound.path, name)))

    def value_of(self, ref: Ref) -> Value:
        sym = self.table.sym(ref)
        if sym.kind in self.TYPE_VALUE_KINDS:
            return ("class", ref)
        if sym.kind in CALLABLE_KINDS:
            return ("function", ref)
        return ("unknown", "field")

    def resolve_name(self, bound: Bound, scope: str | None, name: str) -> Value:
        """A name seen from ``scope``: functions and classes of enclosing functions (a class body is not a
        scope for its methods), then the module, then the language's own names."""
        for _index, sym in scope_chain(bound, scope):
            if sym.kind not in self.TYPE_VALUE_KINDS:
                for child in bound.members(sym.key):
                    child_sym = bound.sym(child)
                    if child_sym.name == name and child_sym.kind in ("function", "class"):
                        return self.value_of((bound.path, child))
        value = self.module_value(bound, name)
        if value[0] != "unknown":
            return value
        if name in self.GLOBAL_NAMES:
            return ("builtin", name)
        return ("unknown", "undefined")

    def resolve_dotted(self, bound: Bound, scope: str | None, dotted: str, globals_ok: bool = True) -> Value:
        parts = dotted.split(".")
        value = self.resolve_name(bound, scope, parts[0])
        for part in parts[1:]:
            value = self.attr(value, part, globals_ok)
        return value

    def global_value(self, value: Value) -> Value:
        """A module-level variable's value; its own type text may not go through another variable (so a
        chain such as ``x = x.copy()`` ends, and the answer never depends on evaluation order)."""
        bound = self.table.files[value[1][0]]
        type_ = bound.facts.extra.get("globals", {}).get(value[2], "")
        return self.eval_type(bound, None, type_, globals_ok=False) if type_ else ("unknown", "untyped variable")

    def attr(self, value: Value, name: str, globals_ok: bool = True) -> Value:
        kind = value[0]
        if kind == "module":
            return self.module_member(self.table.files[value[1][0]], name)
        if kind in ("class", "instance"):
            member, _inherited, external = self.class_member(value[1], name)
            if member is None:
                return ("external", f"{external[0]}.{name}") if external else ("unknown", f"no such {self.MEMBER}")
            sym = self.table.sym(member)
            if sym.kind in self.TYPE_VALUE_KINDS:
                return ("class", member)
            if sym.kind in CALLABLE_KINDS:
                if "property" in sym.modifiers and kind == "instance":
                    return self.eval_type(self.table.files[member[0]], sym.key, sym.type)
                return ("method", member) if kind == "instance" else ("function", member)
            return self.eval_type(self.table.files[member[0]], sym.parent, sym.type)
        if kind == "external":
            return ("external", f"{value[1]}.{name}")
        if kind == "global" and globals_ok:
            return self.attr(self.global_value(value), name, False)
        return ("unknown", f"{self.MEMBER} of unknown")

    # ---- types --------------------------------------------------------------------------------
    def eval_type(self, bound: Bound, scope: str | None, type_: str, globals_ok: bool = True) -> Value:
        """The value a type text describes: an annotation, or ``~Callee()`` (what calling it gives)."""
        if not type_ or type_ == "?":
            return ("unknown", "untyped")
        return self.t.memo(self._types, (bound.path, scope, type_, globals_ok),
                           lambda: self._eval_type(bound, scope, type_, globals_ok))

    def _eval_type(self, bound: Bound, scope: str | None, type_: str, globals_ok: bool) -> Value:
        receiver = self.self_call(bound, scope, type_)
        if receiver is not None:
            # what a call on self (or self.field) returns: fields and members only, never locals
            return self.type_of(receiver, bound, scope or "", 0)
        if type_.startswith("~") and type_.endswith("()"):
            return self.returned(self.resolve_dotted(bound, scope, type_[1:-2], globals_ok), globals_ok)
        name = self.annotation_name(type_)
        if name is None:
            return ("unknown", "complex annotation")
        value = self.resolve_dotted(bound, scope, name, globals_ok)
        if value[0] == "class":
            return ("instance", value[1], "receiver_type")
        if value[0] == "builtin":
            return ("external", self.builtin(value[1]))
        if value[0] == "external":
            return ("external", value[1])
        return ("unknown", "annotation")

    def returned(self, callee: Value, globals_ok: bool = True) -> Value:
        """What calling ``callee`` gives."""
        if callee[0] == "class":
            return ("instance", callee[1], "inferred_type")
        if callee[0] in ("function", "method"):
            sym = self.table.sym(callee[1])
            inner = self.eval_type(self.table.files[callee[1][0]], sym.parent, sym.type, globals_ok)
            return ("instance", inner[1], "inferred_type") if inner[0] == "instance" else inner
        if callee[0] == "external":
            return ("external", callee[1] + "()")
        if callee[0] == "builtin":
            return ("external", self.builtin_call(callee[1]))
        return ("unknown", "call result")

    def local_type(self, bound: Bound, owner: str, name: str, line: int) -> str:
        """The type a local or parameter ``name`` has at ``line`` ("?" when untyped, "" when it is none)."""
        key: str | None = owner
        while key:
            table = bound.facts.locals.get(key)
            if table and name in table:
                return nearest_typed(table[name], line)
            index = bound.by_key.get(key)
            if index is None or bound.sym(index).kind in self.TYPE_VALUE_KINDS:
                return ""
            params = dict(bound.sym(index).params)
            if name in params or "*" + name in params or "**" + name in params:
                return params.get(name) or "?"
            key = bound.sym(index).parent
        module_level = bound.facts.locals.get("", {}).get(name)
        if module_level:
            typed = [type_ for decl_line, type_ in module_level if type_ != "?" and decl_line <= line]
            return typed[-1] if typed else "?"
        return ""

    def type_of(self, receiver: Any, bound: Bound, owner: str, line: int) -> Value:
        found = self.self_type(receiver, bound, owner)
        if found is not None:
            return found
        kind = receiver[0]
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
                return ("external", self.builtin(name))
            return value
        if kind == "field":
            return self.attr(self.type_of(receiver[1], bound, owner, line), receiver[2])
        if kind == "call":
            target, _how, why = self.call_target_of(receiver[1], receiver[2], "call", bound, owner, line)
            if target is None:
                if why.get("reason") in _EXTERNAL:
                    return ("external", f"{why.get('detail', '?')}.{receiver[2]}()")
                return ("unknown", "call result")
            sym = self.table.sym(target)
            if sym.kind in self.TYPE_VALUE_KINDS:
                return ("instance", target, "inferred_type")
            if sym.kind == "constructor":
                return ("instance", (target[0], self.table.files[target[0]].by_key[sym.parent]), "inferred_type")
            return self.returned(("function", target))
        if kind == "type":
            return self.literal_type(receiver[1], bound, owner)
        return ("unknown", "expression")

    # ---- classes ------------------------------------------------------------------------------
    def supers(self, ref: Ref) -> list[tuple[str, Value]]:
        """(relation, value) of a class's direct bases; a base that is no class is named as written."""
        def compute():
            bound = self.table.files[ref[0]]
            sym = bound.sym(ref[1])
            self.touch(ref)
            out = []
            for relation, written in sym.supers:
                value = self.resolve_dotted(bound, sym.parent, written)
                if value[0] == "class" and value[1] == ref:
                    continue
                out.append((relation, value if value[0] in ("class", "external") else ("external", written)))
            return out
        return self.t.memo(self._bases, ("bases", ref), compute)

    def ancestors(self, ref: Ref) -> tuple[list[Ref], list[str]]:
        walk = super().ancestors
        return self.t.memo(self._bases, ("all", ref), lambda: walk(ref))

    def declared(self, class_ref: Ref, name: str, kinds: frozenset[str] | None = None) -> Ref | None:
        """The first member named ``name`` (of one of ``kinds``, if given) a class declares itself."""
        self.touch(class_ref)
        bound = self.table.files[class_ref[0]]
        key = bound.sym(class_ref[1]).key
        for index in bound.members(key):
            sym = bound.sym(index)
            if sym.name == name and (kinds is None or sym.kind in kinds):
                return (bound.path, index)
        return None

    def class_member(self, ref: Ref, name: str) -> tuple[Ref | None, bool, list[str]]:
        """(member, inherited, external bases) for ``name`` in a class and its project bases."""
        return self.first_declaring(ref, lambda class_ref: self.declared(class_ref, name))

    def overridden(self, class_ref: Ref, method: SymbolFact) -> list[Ref]:
        """The nearest project methods named like ``method`` up every base path of a class."""
        return self.nearest_overridden(class_ref, lambda base: self.declared(base, method.name,
                                                                             frozenset({"method"})))

    def constructor_of(self, class_ref: Ref) -> Ref:
        member, _inherited, _external = self.class_member(class_ref, self.CONSTRUCTOR)
        return member if member is not None else class_ref

    # ---- calls --------------------------------------------------------------------------------
    def call_target(self, call: CallFact, bound: Bound) -> Target:
        return self.call_target_of(call.receiver, call.name, call.kind, bound, call.owner, call.line)

    def call_target_of(self, receiver: Any, name: str, kind: str, bound: Bound, owner: str, line: int) -> Target:
        key = (bound.path, owner, repr(receiver), name, kind, line)
        return self.t.memo(self._calls, key, lambda: self.resolve_call(receiver, name, kind, bound, owner, line))

    def resolve_call(self, receiver: Any, name: str, kind: str, bound: Bound, owner: str, line: int) -> Target:
        if receiver is None:
            return self.unqualified_call(name, bound, owner, line)
        if receiver[0] == "super":
            class_index = self.super_class(bound, owner)
            if class_index is None:
                return None, "", {"reason": "undefined_name", "detail": self.NO_SUPER}
            return self.super_call((bound.path, class_index), name)
        value = self.type_of(receiver, bound, owner, line)
        if value[0] in ("instance", "class"):
            return self.member_call(value, name)
        if value[0] == "module":
            inner = self.module_member(self.table.files[value[1][0]], name)
            if inner[0] == "function":
                return inner[1], "static", {}
            if inner[0] == "class":
                return self.constructor_of(inner[1]), "constructor", {}
            if inner[0] == "external":
                return None, "", {"reason": "external_name", "detail": inner[1]}
            return None, "", {"reason": "not_found", "detail": f"{self.table.fqn_of(value[1])} {self.MISSING} {name}"}
        if value[0] in ("function", "method"):
            return None, "", {"reason": "not_found", "detail": f"{self.MEMBER} {name} of a function"}
        if value[0] == "external":
            return None, "", {"reason": "external_type", "detail": value[1]}
        if self.builtin_method(name):
            return None, "", {"reason": "unknown_receiver", "detail": f"builtin types also have {name}"}
        return self.only_candidate(name, self.project_methods(name))

    #: why ``super`` goes nowhere outside a class
    NO_SUPER = "super() outside a method"

    def super_class(self, bound: Bound, owner: str) -> int | None:
        """The class whose bases ``super`` means at ``owner``."""
        return self.enclosing_class(bound, owner)

    def unqualified_call(self, name: str, bound: Bound, owner: str, line: int) -> Target:
        if self.local_type(bound, owner, name, line):
            return None, "", {"reason": "dynamic", "detail": f"{name} is a parameter or local variable"}
        value = self.resolve_name(bound, owner or None, name)
        kind = value[0]
        if kind == "function":
            return value[1], ("local" if value[1][0] == bound.path else "static_import"), {}
        if kind == "class":
            return self.constructor_of(value[1]), "constructor", {}
        if kind == "external":
            return None, "", {"reason": "external_name", "detail": value[1]}
        if kind == "builtin":
            return None, "", {"reason": "builtin", "detail": name}
        if kind == "global":
            return None, "", {"reason": "dynamic", "detail": f"{name} is a module-level variable"}
        if kind == "module":
            return None, "", self.module_call(name)
        return None, "", {"reason": "undefined_name"}

    def member_call(self, value: Value, name: str) -> Target:
        """A call of ``name`` on an instance or a class."""
        member, inherited, external = self.class_member(value[1], name)
        if member is None:
            if external:
                return None, "", {"reason": "external_base", "detail": ", ".join(external)}
            return None, "", {"reason": "not_found", "detail": f"{self.table.fqn_of(value[1])} has no {name}"}
        sym = self.table.sym(member)
        if sym.kind in self.TYPE_VALUE_KINDS:
            return self.constructor_of(member), "constructor", {}
        if sym.kind not in CALLABLE_KINDS:
            return None, "", {"reason": "not_found", "detail": f"{name} is a field"}
        if value[0] == "class":
            return member, "static", {}
        how = value[2]
        if how == "same_class":
            how = "inherited" if inherited else "same_class"
        return member, how, {}

    def super_call(self, class_ref: Ref, name: str) -> Target:
        """``super().name(...)`` / ``super.name(...)``: the member in the bases of ``class_ref``."""
        external: list[str] = []
        for value in self.supertypes(class_ref):
            if value[0] == "class":
                member, _inh, ext = self.class_member(value[1], name)
                external += ext
                if member is not None:
                    return member, "super", {}
            else:
                external.append(value[1])
        return None, "", {"reason": "external_base", "detail": ", ".join(dict.fromkeys(external)) or self.ROOT_CLASS}
