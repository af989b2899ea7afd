"""C++ resolution: namespaces, ``#include "..."`` of project headers, methods defined out of line, and calls by
declared types only.

A type name is looked up in the classes around the call, then in the namespaces the file declares (innermost
first, each with its enclosing ones) and those it opens (``using namespace``), then the global one; ``a::b::C``
through the project's fqns. A class's method is its out-of-line definition (``void Cart::add() {}`` in any file:
the code that runs) when the project has one, else the declaration in the class. ``this->m()``, a bare ``m()`` in a
method and a member ``f_`` are the method's class's (an out-of-line method's class is its qualifier);
``obj.m()`` / ``ptr->m()`` go to the type ``obj`` or ``ptr`` was declared or made with (``auto p =
std::make_unique<T>()``, ``new T``); ``T::m()`` to ``T``'s static ``m``; ``ns::f()`` to ``f`` of namespace
``ns``. A receiver of unknown type (``auto x = f()`` of a library ``f``, a macro) stays unresolved: no
``name_only`` guess. An ``#include "x.h"`` is the project header at that path from the including file's folder,
else the one project header whose path ends so (an include directory), else the one of the including file's
microservice; ``<...>`` includes are libraries."""

from __future__ import annotations

import posixpath

from ...model import CallFact
from ..resolver import Target
from ..symbols import Bound, Ref
from ..typed import DetachedMethods, Receiver, TypedResolver

BUILTIN_TYPES = frozenset({
    "void", "bool", "char", "short", "int", "long", "float", "double", "unsigned", "signed", "size_t", "auto",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "wchar_t",
})
BUILTIN_FUNCTIONS = frozenset({"sizeof", "static_cast", "dynamic_cast", "reinterpret_cast", "const_cast",
                               "decltype", "alignof", "typeid"})


class CppResolver(DetachedMethods, TypedResolver):
    BUILTIN_TYPES = BUILTIN_TYPES
    BUILTIN_FUNCTIONS = BUILTIN_FUNCTIONS
    SELF_RECEIVERS = frozenset({"this"})
    SUPER_RECEIVERS = frozenset()
    RELATIONS = ("extends",)

    # ---- namespaces ---------------------------------------------------------------------------
    def visible_packages(self, bound: Bound) -> list[str]:
        found: list[str] = []
        for namespace in sorted(bound.facts.extra.get("namespaces", ()), key=lambda n: -n.count(".")):
            parts = namespace.split(".")
            found += [".".join(parts[:cut]) for cut in range(len(parts), 0, -1)]
        found += bound.facts.extra.get("using", ())
        return list(dict.fromkeys([*found, ""]))

    def base_type(self, written: str) -> str:
        return written.strip().removeprefix("::").split("<", 1)[0]

    def type_ref(self, fqn: str, bound: Bound) -> Ref | None:
        """A C++ type only (a ``.proto`` message of the same name is what the generated code is made from, and has
        none of its accessors)."""
        return self.pick_type([r for r in self.table.lookup(fqn, self.t) if r[1] >= 0 and
                               self.table.files[r[0]].facts.language == "cpp"], bound)

    def named_receiver(self, name: str, bound: Bound, owner: str | None, line: int) -> tuple[Receiver, str]:
        if self.local_type(bound, owner, name, line) is None:
            own = self.self_class(bound, owner)
            if own is not None and self.enclosing_class(bound, owner) is None:
                field = self.field_of(own, name)
                if field is not None:   # a member of an out-of-line method's class
                    return ("instance", field[0]), field[1]
        found, how = super().named_receiver(name, bound, owner, line)
        if found[0] == "unknown" and name in bound.facts.extra.get("path_heads", ()) and \
                self.local_type(bound, owner, name, line) is None:
            return ("package", name), "static"   # a namespace: ns::f(), ns::T::m()
        return found, how

    def member_receiver(self, inner: Receiver, name: str, bound: Bound) -> Receiver:
        found = super().member_receiver(inner, name, bound)
        if inner[0] == "package" and found[0] == "instance" and found[1][0] == "external":
            return ("package", self.join(inner[1], name))   # a nested namespace, or a library's
        return found

    # ---- members ------------------------------------------------------------------------------
    def self_class(self, bound: Bound, owner: str | None) -> Ref | None:
        """The class a method belongs to: the one around it, or an out-of-line method's qualifier."""
        index = super().enclosing_class(bound, owner)
        if index is not None:
            return (bound.path, index)
        receiver = bound.sym(bound.by_key[owner]).extra.get("receiver") if owner in bound.by_key else None
        if receiver:
            res = self.resolve_type(receiver, bound, None)
            if res[0] == "project":
                return res[1]
        return None

    def methods(self, ref: Ref) -> list[Ref]:
        return []   # a class's out-of-line methods are found by name (`defined`)

    def defined(self, ref: Ref, name: str) -> list[Ref]:
        """The out-of-line definitions of the class's methods named ``name`` (dependency key ``n:<name>``)."""
        sym = self.table.sym(ref)
        out = []
        for other in self.table.by_name(name, self.t):
            method = self.table.sym(other)
            receiver = method.extra.get("receiver", "")
            if method.kind in ("method", "constructor") and receiver.rsplit(".", 1)[-1] == sym.name and \
                    self.resolve_type(receiver, self.table.files[other[0]], None) == ("project", ref):
                out.append(other)
        return out

    def own_members(self, ref: Ref, name: str, kinds: frozenset[str]) -> list[Ref]:
        declared = super().own_members(ref, name, kinds)
        if kinds & {"method", "constructor"}:
            defined = [r for r in self.defined(ref, name) if self.table.sym(r).kind in kinds]
            if defined:
                return defined
        return declared

    def receiver(self, tree, bound: Bound, owner: str | None, line: int) -> tuple[Receiver, str]:
        if tree[0] == "this":
            own = self.self_class(bound, owner)
            if own is not None:
                return ("instance", ("project", own)), "same_class"
        return super().receiver(tree, bound, owner, line)

    # ---- calls --------------------------------------------------------------------------------
    def only_candidate(self, name: str, refs: list) -> Target:
        """A receiver of unknown type stays unresolved (see the module docstring)."""
        return None, "", {"reason": "unknown_receiver",
                          "detail": f"receiver type unknown; {len(refs)} project method(s) named {name}"
                          if refs else ""}

    def unqualified(self, call: CallFact, bound: Bound) -> Target:
        """A bare ``m()`` in an out-of-line method is first a member of its class."""
        owner = call.owner or None
        if self.enclosing_class(bound, owner) is None and self.local_type(bound, owner, call.name, call.line) is None:
            own = self.self_class(bound, owner)
            if own is not None:
                found, inherited, _external = self.find_members(own, call.name, frozenset({"method"}))
                if found:
                    return self.pick(found, call, "inherited" if inherited else "same_class")
        return super().unqualified(call, bound)

    # ---- includes -----------------------------------------------------------------------------
    def import_targets(self, target: str, bound: Bound) -> list[Ref]:
        self.t.add("b:" + posixpath.basename(target))  # a header of that name added or removed later
        here = posixpath.normpath(posixpath.join(posixpath.dirname(bound.path), target))
        if here in self.table.files and self.table.files[here].facts.language == "cpp":
            return [(here, -1)]
        ends = [path for path, other in self.table.files.items() if other.facts.language == "cpp"
                and (path == target or path.endswith("/" + target))]
        if len(ends) > 1:   # each service's own include/cart.h: the including file's service's
            ends = [path for path in ends if self.table.files[path].ctx.microservice == bound.ctx.microservice]
        return [(ends[0], -1)] if len(ends) == 1 else []
