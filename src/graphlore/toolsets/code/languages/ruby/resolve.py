"""Ruby resolution: constants through the lexical nesting of modules and classes, superclasses and mixed-in
modules, calls by what a receiver is known to be.

A constant (``Cart``, ``Shop::Cart``) is looked for in the modules and classes around the reference, innermost
first, then at the top level, across every file (Ruby reopens modules: ``Shop::Cart`` may be declared in another
file than ``Shop``). A bare ``m`` or ``self.m`` is a method of the enclosing class (its superclasses' and
included modules' too), else a top-level method; ``T.new`` calls ``T#initialize``; ``T.m`` calls a singleton
method (``def self.m``) only, ``x.m`` an instance method only. A local's type is trusted only when every value the
method gives it is ``T.new``. A receiver of unknown type stays unresolved (no ``name_only`` guess: Ruby
variables carry no type), and a bare name no project method has is Ruby's or a gem's (``puts``, ``attr_reader``,
a DSL such as ``get``): external, never undefined.
"""

from __future__ import annotations

from ...model import TYPE_KINDS, CallFact
from ..resolver import Target, scope_chain
from ..symbols import Bound
from ..typed import Receiver, TypedResolver, TypeRes, UntypedLocals

BUILTIN_TYPES = frozenset({"String", "Integer", "Float", "Array", "Hash", "Symbol", "Object", "BasicObject",
                           "Kernel", "Comparable", "Enumerable", "NilClass", "Proc", "Struct", "Time",
                           "StandardError", "RuntimeError", "ArgumentError", "Exception", "ENV", "JSON", "URI"})


class RubyResolver(UntypedLocals, TypedResolver):
    BUILTIN_TYPES = BUILTIN_TYPES
    BUILTIN_FUNCTIONS = frozenset({"puts", "print", "p", "pp", "require", "require_relative", "raise", "loop",
                                   "lambda", "proc", "attr_reader", "attr_writer", "attr_accessor", "private",
                                   "protected", "public", "include", "extend", "prepend", "format", "sprintf",
                                   "sleep", "rand", "block_given?", "yield", "freeze", "module_function"})
    OBJECT_METHODS = frozenset({"to_s", "inspect", "class", "freeze", "dup", "hash", "send", "tap", "then", "is_a?",
                                "nil?", "respond_to?", "instance_variable_get", "==", "to_json"})
    SELF_RECEIVERS = frozenset({"this"})
    RELATIONS = ("extends", "includes", "extends_modules")

    def visible_packages(self, bound: Bound) -> list[str]:
        return [""]

    def base_type(self, written: str) -> str:
        return written.strip().lstrip(".")

    def _resolve_type(self, name: str, bound: Bound, scope: str | None) -> TypeRes:
        """As the typed resolver, then ``Outer.Name`` for each module or class around the scope (Ruby's lexical
        constant lookup; the outer one may be reopened in another file), then the name as written from the top."""
        found = super()._resolve_type(name, bound, scope)
        if found[0] == "project":
            return found
        for _index, sym in scope_chain(bound, scope):
            if sym.kind in TYPE_KINDS:
                ref = self.type_ref(f"{sym.key}.{name}", bound)
                if ref is not None:
                    return ("project", ref)
        ref = self.type_ref(name, bound)
        return ("project", ref) if ref is not None else found

    def _qualified(self, name: str, bound: Bound, scope: str | None) -> TypeRes:
        found = super()._qualified(name, bound, scope)
        if found[0] == "unknown":
            return ("external", name)
        return found

    def in_singleton(self, bound: Bound, owner: str | None) -> bool:
        """Whether ``owner`` is a singleton method (``def self.m``, ``class << self``): there ``self`` is the class."""
        for _index, sym in scope_chain(bound, owner):
            if sym.kind in TYPE_KINDS:
                return False
            if sym.kind == "method":
                return "static" in sym.modifiers
        return False

    def receiver(self, tree, bound: Bound, owner: str | None, line: int) -> tuple[Receiver, str]:
        found, how = super().receiver(tree, bound, owner, line)
        if tree[0] in self.SELF_RECEIVERS and found[0] == "instance" and found[1][0] == "project" and \
                self.in_singleton(bound, owner):
            return ("static", found[1][1]), how
        return found, how

    def kind_mismatch(self, target, static: bool, name: str) -> Target | None:
        """A method of the other kind than the call reaches (``T.m`` / bare ``m`` in a singleton method reach
        singleton methods only; ``x.m`` / bare ``m`` in an instance method instance methods only): no target."""
        sym = self.table.sym(target)
        if sym.kind == "method" and sym.parent and ("static" in sym.modifiers) != static:
            return None, "", {"reason": "not_found", "detail": (
                f"{name} is an instance method" if static else f"{name} is a singleton method (def self.{name})")}
        return None

    def unqualified(self, call: CallFact, bound: Bound) -> Target:
        target, how, why = super().unqualified(call, bound)
        if target is not None and how in ("same_class", "inherited", "enclosing_class"):
            return self.kind_mismatch(target, self.in_singleton(bound, call.owner or None), call.name) or \
                (target, how, why)
        if target is None and why.get("reason") in ("undefined_name", "dynamic") and \
                call.name not in self.BUILTIN_FUNCTIONS:
            return None, "", {"reason": "external_name", "detail": f"{call.name} (a Ruby, gem or DSL method)"}
        return target, how, why

    def member_call(self, what: Receiver, how: str, call: CallFact, bound: Bound) -> Target:
        """``T.m`` is a singleton method of ``T``, ``x.m`` an instance method of ``x``'s class: a method of the
        other kind with the name is no target."""
        target, found_how, why = super().member_call(what, how, call, bound)
        if target is not None and what[0] in ("static", "instance"):
            return self.kind_mismatch(target, what[0] == "static", call.name) or (target, found_how, why)
        return target, found_how, why

    def constructor_call(self, res: TypeRes, call: CallFact) -> Target:
        """``T.new``: a singleton ``new`` ``T`` defines (``def self.new``), else ``T#initialize``, else ``T``."""
        if res[0] == "project":
            own = [r for r in self.own_members(res[1], "new", frozenset({"method"}))
                   if "static" in self.table.sym(r).modifiers]
            if own:
                return own[0], "static", {}
            found, _inherited, _external = self.find_members(res[1], "initialize", frozenset({"constructor"}))
            if found:
                return found[0], "constructor", {}
        return super().constructor_call(res, call)
