"""Python resolution: names through scopes, imports and re-exports; classes, overrides and calls.

A name is looked up in the enclosing function scopes (nested ``def``/``class``), then the module's
namespace: its top-level classes and functions, its imports (followed through re-exports: ``from .base
import Model`` in a package ``__init__`` makes ``pkg.Model`` resolve to ``pkg.base.Model``), its
module-level variables, its submodules and its ``*`` imports; then builtins. Relative imports are
made absolute from the module's dotted name; an absolute import no project module answers is the module beside
the file when there is one (Python's script-folder rule, `constants.import_target`).

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

from ...model import symbol_id
from ..names import NameResolver, Value
from ..resolver import FileOutput, scope_chain
from ..symbols import Bound, EdgeSink, Table, Tracker
from .constants import import_target

BUILTIN_NAMES = frozenset(dir(builtins))
#: method names some builtin type has: never matched by name alone
BUILTIN_METHODS = frozenset().union(*(set(dir(t)) for t in (
    str, bytes, bytearray, list, dict, set, frozenset, tuple, int, float, complex, object, BaseException, type,
    io.StringIO, io.BytesIO, io.TextIOWrapper, memoryview, range, slice,
)))
_TYPE_WRAPPERS = ("Optional[", "typing.Optional[", "Annotated[", "typing.Annotated[", "ClassVar[", "Final[", "Type[",
                  "type[")




class PythonResolver(NameResolver):
    CLASS_KINDS = frozenset({"class"})
    RELATIONS = ("extends",)
    IGNORED_BASES = frozenset({"object", "builtins.object"})
    GLOBAL_NAMES = BUILTIN_NAMES
    BUILTIN_METHODS = BUILTIN_METHODS

    def __init__(self, table: Table, tracker: Tracker, language):
        super().__init__(table, tracker, language)
        self._imports = table.cache("py.imports")

    # ---- modules and namespaces -----------------------------------------------------------------
    def import_target(self, bound: Bound, target: str) -> str:
        """The module an import names (`constants.import_target`: relative made absolute, a script's sibling)."""
        return import_target(bound.ctx.module_name, target, bound.path.endswith("__init__.py"),
                             lambda name: self.module(name) is not None)

    def module(self, name: str) -> Bound | None:
        """The Python module of this dotted name that the caller's code imports: its own service's, else the one
        library's (two libraries' is no guess: which is on ``sys.path`` is not read); never another deployed
        service's (each has its own ``sys.path``; `Resolver.reachable`)."""
        if not name:
            return None
        refs = self.reachable([r for r in self.table.lookup(name, self.t)
                               if r[1] < 0 and self.table.files[r[0]].facts.language == "python"])
        own = self.caller.ctx.microservice if self.caller is not None else None
        found = next((r for r in refs if self.table.files[r[0]].ctx.microservice == own),
                     refs[0] if len(refs) == 1 else None)
        return self.table.files[found[0]] if found is not None else None

    def bindings(self, bound: Bound) -> tuple[dict[str, tuple], list[str]]:
        """Names an import binds in this file -> ("module", abs) | ("from", abs module, name); star modules."""
        found = self._imports.get(bound.path)
        if found is not None:
            return found
        names: dict[str, tuple] = {}
        stars: list[str] = []
        for imp in bound.facts.imports:
            target = self.import_target(bound, imp.target)
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

    def find_member(self, bound: Bound, name: str, seen: tuple) -> Value:
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
                    value = self.member_in(star_bound, name, seen)
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
        value = self.member_in(target, name, seen)
        if value[0] == "unknown":
            sub = self.module(f"{module_name}.{name}")
            if sub is not None:
                return ("module", (sub.path, -1))
            return ("unknown", f"{module_name} has no {name}")
        return value

    def module_value(self, bound: Bound, name: str) -> Value:
        return self.module_member(bound, name)

    # ---- self ---------------------------------------------------------------------------------
    def self_name(self, bound: Bound, key: str | None) -> tuple[str | None, int | None]:
        """The ``self``/``cls`` name visible at ``key`` and its class (closures see the method's)."""
        for _index, sym in scope_chain(bound, key):
            if sym.kind in ("method", "constructor"):
                return sym.extra.get("self"), self.enclosing_class(bound, sym.parent)
            if sym.kind == "class":
                return None, None
        return None, None

    def self_type(self, receiver, bound: Bound, owner: str) -> Value | None:
        if receiver[0] != "name":
            return None
        self_name, class_index = self.self_name(bound, owner)
        if receiver[1] == self_name and class_index is not None:
            return ("instance", (bound.path, class_index), "same_class")
        return None

    def self_call(self, bound: Bound, scope: str | None, type_: str) -> list | None:
        self_name, class_index = self.self_name(bound, scope)
        if not (self_name and class_index is not None and type_.startswith(f"~{self_name}.") and type_.endswith("()")):
            return None
        parts = type_[1:-2].split(".")
        receiver: list = ["name", self_name]
        for part in parts[1:-1]:
            receiver = ["field", receiver, part]
        return ["call", receiver, parts[-1], 0]

    def super_class(self, bound: Bound, owner: str) -> int | None:
        return self.self_name(bound, owner)[1]

    # ---- builtins and annotations -------------------------------------------------------------
    def annotation_name(self, type_: str) -> str | None:
        text_ = type_.replace(" ", "")
        for wrapper in _TYPE_WRAPPERS:
            if text_.startswith(wrapper) and text_.endswith("]"):
                text_ = text_[len(wrapper):-1].split(",")[0]
        options = [o for o in text_.split("|") if o not in ("None", "")]
        if len(options) != 1 or "[" in options[0] or not options[0].replace(".", "").replace("_", "").isalnum():
            return None
        return options[0]

    def builtin(self, name: str) -> str:
        return "builtins." + name

    def builtin_call(self, name: str) -> str:
        return "builtins." + name

    def literal_type(self, type_: str, bound: Bound, owner: str) -> Value:
        return ("external", "builtins." + type_)

    def builtin_method(self, name: str) -> bool:
        return name in BUILTIN_METHODS or (name.startswith("__") and name.endswith("__"))

    # ---- one file -----------------------------------------------------------------------------
    def file_kind(self, bound: Bound) -> str:
        return "package" if bound.path.endswith("__init__.py") else "module"

    def declare_file(self, bound: Bound, sink: EdgeSink) -> None:
        """A module inside a package is declared by the package's ``__init__``."""
        if "." in bound.ctx.module_name:
            folder = bound.path.rsplit("/", 1)[0] if "/" in bound.path else ""
            if bound.path.endswith("__init__.py"):
                folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
            parent = f"{folder}/__init__.py" if folder else "__init__.py"
            sink.add(symbol_id(parent, ""), "DECLARES", bound.file_id)

    def file_props(self, bound: Bound, sink: EdgeSink) -> dict:
        imports_external: list[str] = []
        for imp in bound.facts.imports:
            target = self.import_target(bound, imp.target)
            for imported, _alias in imp.names:
                if imported == "*":
                    found = self.module(target)
                    value = ("module", (found.path, -1)) if found is not None else ("external", target)
                elif imp.target == imported or (not imp.target.startswith(".") and imported == imp.target):
                    found = self.module(target)
                    value = ("module", (found.path, -1)) if found is not None else ("external", target)
                else:
                    value = self._binding(("from", target, imported))
                if value[0] in ("module", "class", "function"):
                    edge = sink.add(bound.file_id, "IMPORTS", self.table.id_of(value[1]), {"lines": []})
                    if imp.line not in edge.props["lines"]:
                        edge.props["lines"].append(imp.line)
                elif value[0] == "external":
                    imports_external.append(value[1])
        return {"imports_external": sorted(set(imports_external))}

    def inject(self, bound: Bound, index: int, out: FileOutput) -> None:
        """FastAPI ``Depends(x)``: the function depends on ``x``."""
        sym = bound.sym(index)
        for param, target in sym.extra.get("depends", []):
            value = self.resolve_dotted(bound, sym.parent, target)
            if value[0] in ("function", "class"):
                out.sink.inject(bound.ids[index], self.table.id_of(value[1]), "depends", param)
