"""The resolution every language shares: one file's facts against the project's symbol table, into its nodes
and edges.

`Resolver.resolve_file` is the one loop: the file and its imports, then each symbol (``DECLARES``, its
resolved supertypes as ``EXTENDS`` / ``IMPLEMENTS``, the methods it overrides), injection, every call site
(a ``CALLS`` edge, or an unresolved site with its reason), capabilities rolled up to their types, and roles
by the language's `roles.Rules`. The walks it needs are here too: up a file's scopes, over a class's project
supertypes (nearest first), to the nearest declaration of a member, and the last step of name-only call
matching.

A language subclasses `Resolver` and states what differs: how an import, a supertype, an override and a call
resolve (`file_props`, `supers`, `overridden`, `call_target`), which symbol kinds enclose members
(`CLASS_KINDS`), how its resolved supertypes tag a project type (`PROJECT`) and which tags name an external
one (`EXTERNAL_KINDS`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..model import RESOLUTIONS, TYPE_KINDS, CallFact, GraphNode, SymbolFact
from .base import Language
from .roles import EXTERNAL_REASONS, NOT_ROLLED_UP
from .symbols import (
    Bound,
    EdgeSink,
    FileResult,
    Ref,
    Table,
    Tracker,
    file_node,
    reaches,
    receiver_text,
    symbol_node,
)

Found = TypeVar("Found")
#: (target, how it resolved: a key of `model.RESOLUTIONS`, why not: {reason, detail?, candidates?})
Target = tuple[Ref | None, str, dict]


def scope_chain(bound: Bound, key: str | None) -> Iterator[tuple[int, SymbolFact]]:
    """The symbol ``key`` and those enclosing it, innermost first; ends at a key the file does not declare."""
    while key:
        index = bound.by_key.get(key)
        if index is None:
            return
        sym = bound.sym(index)
        yield index, sym
        key = sym.parent


@dataclass
class FileOutput:
    """What one file's resolution collects before its nodes are made."""

    sink: EdgeSink = field(default_factory=EdgeSink)
    #: symbol id -> capabilities
    caps: dict[str, set[str]] = field(default_factory=dict)
    #: symbol id -> language props (``extends``, ``bean`` ...)
    props: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: symbol or file id -> its unresolved call sites
    unresolved: dict[str, list[dict]] = field(default_factory=dict)


class Resolver:
    """One language's resolver over the project's table, recording what it looks up in ``tracker``."""

    #: symbol kinds that enclose members (what ``this``/``self`` and overrides refer to)
    CLASS_KINDS: frozenset[str] = frozenset({"class"})
    #: the tag a project type carries among resolved supertypes
    PROJECT = "class"
    #: the tags of supertypes that are named but not in the project
    EXTERNAL_KINDS: frozenset[str] = frozenset({"external"})
    #: external supertype names that say nothing (every class has them)
    IGNORED_BASES: frozenset[str] = frozenset()
    #: the supertype relations a type's props list (``extends``, ``implements``)
    RELATIONS: tuple[str, ...] = ("extends", "implements")
    #: a method with one of these modifiers overrides nothing
    NOT_OVERRIDING: frozenset[str] = frozenset()
    #: the symbol kind of a file's own node
    FILE_KIND = "module"
    #: its imports name a file or package by its path (TS/JS relative imports, Go import paths), not by a name
    #: any service may declare: what such an import reaches is what the code runs, whichever service's folder
    #: holds it (only a name-only match is kept to what the caller can reach, `reachable`)
    PATH_IMPORTS = False

    def __init__(self, table: Table, tracker: Tracker, language: Language):
        self.table = table
        self.t = tracker
        self.language = language
        self.rules = language.rules
        self._roles = table.cache("roles")
        self._meta = table.cache("meta_roles")
        #: the file whose calls are being resolved: name lookups keep what its code can reach (`reachable`)
        self.caller: Bound | None = None

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

    # ---- what a language says -------------------------------------------------------------------
    def declare_file(self, bound: Bound, sink: EdgeSink) -> None:
        """Edges into the file from what declares it besides its build module (a package)."""

    def file_props(self, bound: Bound, sink: EdgeSink) -> dict[str, Any]:
        """Resolve the file's imports (``IMPORTS`` edges) and give the file node's language props."""
        return {}

    def supers(self, ref: Ref) -> list[tuple[str, tuple]]:
        """A project class's direct supertypes, resolved: (relation, (tag, target)); see `PROJECT`."""
        return []

    def overridden(self, class_ref: Ref, method: SymbolFact) -> list[Ref]:
        """The nearest project methods ``method`` (declared in ``class_ref``) overrides."""
        return []

    def inject(self, bound: Bound, index: int, out: FileOutput) -> None:
        """``INJECTS`` edges (and props, capabilities) of one symbol."""

    def call_target(self, call: CallFact, bound: Bound) -> Target:
        """Where one call site goes, or why it goes nowhere."""
        return None, "", {"reason": "unknown_receiver"}

    def annotation_type(self, bound: Bound, sym: SymbolFact, name: str) -> Ref | None:
        """The project annotation type an annotation on ``sym`` names (meta-annotations), if the language has them."""
        return None

    def file_kind(self, bound: Bound) -> str:
        return self.FILE_KIND

    # ---- supertypes ---------------------------------------------------------------------------
    def supertypes(self, ref: Ref) -> list[tuple]:
        return [value for _relation, value in self.supers(ref)]

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

    # ---- what a file's code can reach ------------------------------------------------------------
    def reachable(self, refs: list[Ref], bound: Bound | None = None, by_name: bool = False) -> list[Ref]:
        """The symbols of ``refs`` that code of ``bound`` (default: the caller being resolved) can call
        in-process (`symbols.reaches`): never code of another deployed service that a name (a package, class or
        function name, ``by_name``: a name-only match) found; a path import's target is kept (`PATH_IMPORTS`)."""
        viewer = bound or self.caller
        if viewer is None or self.PATH_IMPORTS and not by_name:
            return refs
        return [r for r in refs if reaches(viewer.ctx, self.table.files[r[0]].ctx)]

    def pick_type(self, refs: list[Ref], bound: Bound) -> Ref | None:
        """The one of several project types with one fqn that ``bound`` means: among those it can reach, its
        own module's, else its own service's, else the only library's; two libraries' is no guess (None)."""
        refs = self.reachable(refs, bound)
        if len(refs) <= 1:
            return refs[0] if refs else None
        for same in ("module", "microservice"):
            own = getattr(bound.ctx, same)
            found = [r for r in refs if getattr(self.table.files[r[0]].ctx, same) == own]
            if found:
                return found[0]
        return None

    # ---- calls --------------------------------------------------------------------------------
    def project_methods(self, name: str) -> list[Ref]:
        """The project methods named ``name`` in files of this language the caller can reach (dependency key
        ``n:<name>``)."""
        names = self.language.names
        return self.reachable([r for r in self.table.by_name(name, self.t)
                               if self.table.files[r[0]].facts.language in names
                               and self.table.sym(r).kind == "method"], by_name=True)

    def only_candidate(self, name: str, refs: list[Ref]) -> Target:
        """A receiver of unknown type: the call goes to the one project method named so, else stays unresolved."""
        if len(refs) == 1:
            return refs[0], "name_only", {}
        if refs:
            return None, "", {"reason": "ambiguous", "candidates": [self.table.id_of(r) for r in refs[:10]],
                              "detail": f"receiver type unknown; {len(refs)} project methods named {name}"}
        return None, "", {"reason": "unknown_receiver"}

    # ---- roles and capabilities ---------------------------------------------------------------
    def type_role(self, ref: Ref) -> str:
        """A type's role: the first rule of `roles` that applies."""
        def compute() -> str:
            bound = self.table.files[ref[0]]
            sym = bound.sym(ref[1])
            if bound.ctx.is_test:
                return "TEST"
            for annotation in sym.annotations:
                role = self.rules.annotation_role(annotation.name.rsplit(".", 1)[-1])
                if role:
                    return role
            for annotation in sym.annotations:
                meta = self.annotation_type(bound, sym, annotation.name)
                role = self._meta_guarded(meta)[0] if meta is not None else None
                if role:
                    return role
            project, external = self.ancestors(ref)
            for name in [self.table.fqn_of(ancestor) for ancestor in project] + external:
                role = self.rules.base_role(name)
                if role:
                    return role
            return self.rules.name_role(sym.name) or "OTHER"
        return self.t.memo(self._roles, ref, compute)

    def meta_roles(self, ref: Ref) -> tuple[str | None, frozenset[str]]:
        """Role and capabilities a project annotation type passes to its users (meta-annotations)."""
        def compute() -> tuple[str | None, frozenset[str]]:
            bound = self.table.files[ref[0]]
            sym = bound.sym(ref[1])
            role = None
            caps: set[str] = set()
            for annotation in sym.annotations:
                simple_name = annotation.name.rsplit(".", 1)[-1]
                role = role or self.rules.annotation_role(simple_name)
                cap = self.rules.capabilities.get(simple_name)
                if cap:
                    caps.add(cap)
                if role is None:
                    inner = self.annotation_type(bound, sym, annotation.name)
                    if inner is not None and inner != ref and sym.kind == "annotation":
                        inner_role, inner_caps = self._meta_guarded(inner)
                        role = role or inner_role
                        caps |= inner_caps
            return role, frozenset(caps)
        return self.t.memo(self._meta, ref, compute)

    def _meta_guarded(self, ref: Ref) -> tuple[str | None, frozenset[str]]:
        guard = self.table.cache("meta_roles.guard")
        if ref in guard:
            return None, frozenset()
        guard[ref] = True
        try:
            return self.meta_roles(ref)
        finally:
            del guard[ref]

    def own_capabilities(self, bound: Bound, sym: SymbolFact) -> set[str]:
        """What a symbol's annotations (directly or through project meta-annotations) say it does."""
        caps: set[str] = set()
        for annotation in sym.annotations:
            cap = self.rules.capability(annotation.name, sym.kind)
            if cap:
                caps.add(cap)
            if not self.rules.known(annotation.name.rsplit(".", 1)[-1]):
                meta = self.annotation_type(bound, sym, annotation.name)
                if meta is not None:
                    caps |= self._meta_guarded(meta)[1]
        if self.rules.entry_point is not None and self.rules.entry_point(sym):
            caps.add("ENTRY_POINT")
        return caps

    def symbol_role(self, bound: Bound, index: int, sym: SymbolFact, caps: set[str]) -> str:
        if sym.kind in self.CLASS_KINDS:
            return self.type_role((bound.path, index))
        class_index = self.enclosing_class(bound, sym.parent)
        if class_index is not None:
            return self.type_role((bound.path, class_index))
        if bound.ctx.is_test:
            return "TEST"
        if "HTTP_ENDPOINT" in caps:
            return "CONTROLLER"   # a function that serves a route
        if sym.kind in TYPE_KINDS:
            return self.rules.name_role(sym.name) or "OTHER"
        return "OTHER"

    # ---- one file -----------------------------------------------------------------------------
    def resolve_file(self, bound: Bound) -> FileResult:
        self.caller = bound
        out = FileOutput(caps={sid: set() for sid in bound.ids})
        self.declare_file(bound, out.sink)
        file_props = self.file_props(bound, out.sink)
        for index, sym in enumerate(bound.facts.symbols):
            self.declare(bound, index, sym, out)
        for index in range(len(bound.facts.symbols)):
            self.inject(bound, index, out)
        for call in bound.facts.calls:
            self.call(bound, call, out)
        self.roll_up(bound, out.caps)
        return FileResult(nodes=self.nodes(bound, out, file_props), edges=out.sink.values())

    def declare(self, bound: Bound, index: int, sym: SymbolFact, out: FileOutput) -> None:
        """A symbol's ``DECLARES`` edge, capabilities, supertypes and overrides."""
        sid = bound.ids[index]
        out.sink.add(bound.ids[bound.by_key[sym.parent]] if sym.parent else bound.file_id, "DECLARES", sid)
        if sym.annotations or self.rules.entry_point is not None:
            out.caps[sid] |= self.own_capabilities(bound, sym)
        if sym.kind in self.CLASS_KINDS:
            named: dict[str, list[str]] = {relation: [] for relation in self.RELATIONS}
            for relation, value in self.supers((bound.path, index)):
                project = value[0] == self.PROJECT
                named[relation].append(self.table.fqn_of(value[1]) if project else value[1])
                if project:
                    edge = "IMPLEMENTS" if relation == "implements" else "EXTENDS"
                    out.sink.add(sid, edge, self.table.id_of(value[1]))
            out.props.setdefault(sid, {}).update(named)
        elif sym.kind == "method" and sym.parent and not self.NOT_OVERRIDING & set(sym.modifiers):
            class_index = bound.by_key[sym.parent]
            if bound.sym(class_index).kind in self.CLASS_KINDS:
                for target in self.overridden((bound.path, class_index), sym):
                    out.sink.add(sid, "OVERRIDES", self.table.id_of(target))

    def call(self, bound: Bound, call: CallFact, out: FileOutput) -> None:
        """One call site: a ``CALLS`` edge, or an unresolved site (and what a library call says it does)."""
        owner_index = bound.by_key.get(call.owner) if call.owner else -1
        if owner_index is None:
            return
        src = bound.ids[owner_index] if owner_index >= 0 else bound.file_id
        target, how, why = self.call_target(call, bound)
        if target is not None and not self.reachable([target], bound, by_name=how == "name_only"):
            other = self.table.files[target[0]].ctx.microservice
            target, why = None, {"reason": "other_service", "detail": f"{self.table.fqn_of(target)} is code of "
                                 f"the service {other}, deployed apart: reached over the network only"}
        if target is not None:
            out.sink.call(src, self.table.id_of(target), how, RESOLUTIONS[how], call.line)
            return
        out.unresolved.setdefault(src, []).append(
            {"name": call.name, "receiver": receiver_text(call.receiver) if call.kind != "new" else "new",
             "line": call.line, **why})
        if owner_index >= 0 and why.get("reason") in EXTERNAL_REASONS:
            detail = why.get("detail", "")
            out.caps[src] |= {cap for prefix, cap in self.rules.call_capabilities if detail.startswith(prefix)}

    def roll_up(self, bound: Bound, caps: dict[str, set[str]]) -> None:
        """A type also has its members' capabilities (innermost first)."""
        symbols = bound.facts.symbols
        for index in range(len(symbols) - 1, -1, -1):
            parent_key = symbols[index].parent
            if parent_key:
                parent = bound.by_key[parent_key]
                if symbols[parent].kind in self.CLASS_KINDS:
                    caps[bound.ids[parent]] |= caps[bound.ids[index]] - NOT_ROLLED_UP

    def nodes(self, bound: Bound, out: FileOutput, file_props: dict[str, Any]) -> list[GraphNode]:
        facts = bound.facts
        props = {"role": "TEST" if bound.ctx.is_test else "OTHER",
                 "capabilities": ["ENTRY_POINT"] if facts.extra.get("main") else [], **file_props}
        if bound.file_id in out.unresolved:
            props["unresolved_calls"] = out.unresolved[bound.file_id]
        nodes = [file_node(bound, self.file_kind(bound), props)]
        for index, sym in enumerate(facts.symbols):
            sid = bound.ids[index]
            caps = out.caps[sid]
            role = self.symbol_role(bound, index, sym, caps)
            if role == "CLIENT" and self.rules.client_mappings_are_calls and "HTTP_CLIENT" in caps | out.caps.get(
                    bound.ids[self.enclosing_class(bound, sym.key) or 0], set()):
                # a Feign / @HttpExchange interface: its mappings describe outgoing calls, not endpoints
                caps.discard("HTTP_ENDPOINT")
                if sym.kind in ("interface", "method"):
                    caps.add("HTTP_CLIENT")
            props = {"role": role, "capabilities": sorted(caps), **out.props.get(sid, {})}
            if sid in out.unresolved:
                props["unresolved_calls"] = out.unresolved[sid]
            nodes.append(symbol_node(bound, index, props))
        return nodes
