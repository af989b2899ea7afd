"""What the Python, TypeScript and Java resolvers share: walks up a file's scopes and over a class's
project supertypes, member lookup along them, and the last step of name-only call matching.

The walks are the same in every language; each resolver states what differs: which symbol kinds
enclose members (`ResolverBase.CLASS_KINDS`), how its resolved supertypes tag a project type
(`ResolverBase.PROJECT`) and which tags name an external one (`ResolverBase.EXTERNAL_KINDS`), and how
a class's direct supertypes are resolved (`ResolverBase.supertypes`). `NameResolver` adds what Python
and TypeScript share: bases resolved like any dotted name, and members matched by name alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ..model import CALLABLE_KINDS, SymbolFact
from .symbols import Bound, Ref, Table, Tracker

Found = TypeVar("Found")


def scope_chain(bound: Bound, key: str | None) -> Iterator[tuple[int, SymbolFact]]:
    """The symbol ``key`` and those enclosing it, innermost first; ends at a key the file does not declare."""
    while key:
        index = bound.by_key.get(key)
        if index is None:
            return
        sym = bound.sym(index)
        yield index, sym
        key = sym.parent


def nearest_typed(declarations: list[tuple[int, str]], line: int) -> str:
    """The type of a local's typed declaration nearest before ``line`` (else its first typed one); ``"?"``
    marks an untyped local, and is the answer when no declaration has a type."""
    best = ""
    for decl_line, type_ in declarations:
        if type_ != "?" and (decl_line <= line or not best):
            best = type_
    return best or "?"


class ResolverBase:
    """The table and dependency tracker of one language's resolver, and the walks every language needs."""

    #: symbol kinds that enclose members (what ``this``/``self`` and overrides refer to)
    CLASS_KINDS: frozenset[str] = frozenset({"class"})
    #: the tag a project type carries among resolved supertypes
    PROJECT = "class"
    #: the tags of supertypes that are named but not in the project
    EXTERNAL_KINDS: frozenset[str] = frozenset({"external"})
    #: external supertype names that say nothing (every class has them)
    IGNORED_BASES: frozenset[str] = frozenset()

    def __init__(self, table: Table, tracker: Tracker):
        self.table = table
        self.t = tracker

    def touch(self, ref: Ref) -> None:
        """Record that this resolution read a class's members or bases (its ``t:`` dependency key)."""
        if ref[1] >= 0:
            self.t.add("t:" + self.table.fqn_of(ref))

    def enclosing_class(self, bound: Bound, key: str | None) -> int | None:
        """The index of the innermost class at or around ``key``, if any."""
        for index, sym in scope_chain(bound, key):
            if sym.kind in self.CLASS_KINDS:
                return index
        return None

    # ---- supertypes ---------------------------------------------------------------------------
    def supertypes(self, ref: Ref) -> list[tuple]:
        """A project class's direct supertypes, resolved (``(tag, target)``; see `PROJECT`)."""
        raise NotImplementedError

    def ancestors(self, ref: Ref) -> tuple[list[Ref], list[str]]:
        """Project supertypes (breadth first, nearest first) and the external ones met on the way."""
        seen = {ref}
        queue = [ref]
        project: list[Ref] = []
        external: list[str] = []
        while queue:
            current = queue.pop(0)
            for value in self.supertypes(current):
                if value[0] == self.PROJECT:
                    if value[1] not in seen:
                        seen.add(value[1])
                        project.append(value[1])
                        queue.append(value[1])
                elif value[0] in self.EXTERNAL_KINDS and value[1] not in external \
                        and value[1] not in self.IGNORED_BASES:
                    external.append(value[1])
        return project, external

    def first_declaring(self, ref: Ref, declared: Callable[[Ref], Found]) -> tuple[Found, bool, list[str]]:
        """(what ``declared`` finds, inherited, external supertypes met) in ``ref`` or else its nearest project
        supertype where it finds something; when nothing is found, ``declared``'s own empty answer."""
        found = declared(ref)
        if found:
            return found, False, []
        project, external = self.ancestors(ref)
        for ancestor in project:
            found = declared(ancestor)
            if found:
                return found, True, external
        return found, False, external

    def nearest_overridden(self, start: Ref, match: Callable[[Ref], Ref | None]) -> list[Ref]:
        """What ``match`` finds in the nearest project supertypes along every supertype path of ``start``
        (a path ends at the first supertype where it finds something)."""
        out: list[Ref] = []
        seen = {start}
        frontier = [start]
        while frontier:
            next_frontier = []
            for current in frontier:
                for value in self.supertypes(current):
                    if value[0] != self.PROJECT or value[1] in seen:
                        continue
                    seen.add(value[1])
                    found = match(value[1])
                    if found is not None:
                        out.append(found)
                    else:
                        next_frontier.append(value[1])
            frontier = next_frontier
        return sorted(set(out))

    # ---- calls --------------------------------------------------------------------------------
    def project_methods(self, name: str, languages: tuple[str, ...]) -> list[Ref]:
        """The project methods named ``name`` in files of these languages (dependency key ``n:<name>``)."""
        return [r for r in self.table.by_name(name, self.t)
                if self.table.files[r[0]].facts.language in languages and self.table.sym(r).kind == "method"]

    def only_candidate(self, name: str, refs: list[Ref]) -> tuple[Ref | None, str, dict]:
        """A receiver of unknown type: the call goes to the one project method named so, else stays unresolved."""
        if len(refs) == 1:
            return refs[0], "name_only", {}
        if refs:
            return None, "", {"reason": "ambiguous", "candidates": [self.table.id_of(r) for r in refs[:10]],
                              "detail": f"receiver type unknown; {len(refs)} project methods named {name}"}
        return None, "", {"reason": "unknown_receiver"}


class NameResolver(ResolverBase):
    """Python and TypeScript: names resolve to values through scopes and modules, a class's bases are
    dotted names resolved like any other, and a member is found by its name alone.

    Subclasses give `module_value` (a name at module level), `GLOBAL_NAMES`, `TYPE_VALUE_KINDS`, `attr`
    and a ``_bases`` cache.
    """

    #: symbol kinds whose name is a type (a class value, not a function)
    TYPE_VALUE_KINDS: frozenset[str] = frozenset({"class"})
    #: names the language itself defines (builtins, globals)
    GLOBAL_NAMES: frozenset[str] = frozenset()
    _bases: dict

    # ---- names --------------------------------------------------------------------------------
    def module_value(self, bound: Bound, name: str) -> Any:
        """What ``name`` is at the module level of ``bound``."""
        raise NotImplementedError

    def value_of(self, ref: Ref) -> Any:
        sym = self.table.sym(ref)
        if sym.kind in self.TYPE_VALUE_KINDS:
            return ("class", ref)
        if sym.kind in CALLABLE_KINDS:
            return ("function", ref)
        return ("unknown", "field")

    def resolve_name(self, bound: Bound, scope: str | None, name: str) -> Any:
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

    def resolve_dotted(self, bound: Bound, scope: str | None, dotted: str, globals_ok: bool = True) -> Any:
        parts = dotted.split(".")
        value = self.resolve_name(bound, scope, parts[0])
        for part in parts[1:]:
            value = self.attr(value, part, globals_ok)
        return value

    def global_value(self, value: Any) -> Any:
        """A module-level variable's value; its own type text may not go through another variable (so a
        chain such as ``x = x.copy()`` ends, and the answer never depends on evaluation order)."""
        bound = self.table.files[value[1][0]]
        type_ = bound.facts.extra.get("globals", {}).get(value[2], "")
        return self.eval_type(bound, None, type_, globals_ok=False) if type_ else ("unknown", "untyped variable")

    # ---- classes ------------------------------------------------------------------------------
    def bases(self, ref: Ref) -> list[tuple[str, Any]]:
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

    def supertypes(self, ref: Ref) -> list[tuple]:
        return [value for _relation, value in self.bases(ref)]

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

    def overridden(self, class_ref: Ref, name: str) -> list[Ref]:
        """The nearest project methods named ``name`` up every base path of a class."""
        return self.nearest_overridden(class_ref, lambda base: self.declared(base, name, frozenset({"method"})))

    # ---- calls --------------------------------------------------------------------------------
    def super_call(self, class_ref: Ref, name: str, root: str) -> tuple[Ref | None, str, dict]:
        """``super().name(...)`` / ``super.name(...)``: the member in the bases of ``class_ref`` (``root``
        names the implicit base when the class has none)."""
        external: list[str] = []
        for value in self.supertypes(class_ref):
            if value[0] == "class":
                member, _inh, ext = self.class_member(value[1], name)
                external += ext
                if member is not None:
                    return member, "super", {}
            else:
                external.append(value[1])
        return None, "", {"reason": "external_base", "detail": ", ".join(dict.fromkeys(external)) or root}
