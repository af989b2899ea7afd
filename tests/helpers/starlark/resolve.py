"""Starlark resolution: a ``load`` label names a project file (``//pkg:defs.bzl`` is ``pkg/defs.bzl``); a call
goes to a function of its own file, or to one a ``load`` brings, else it is a builtin or undefined."""

from __future__ import annotations

from graphlore.toolsets.code.languages.resolver import Resolver, Target
from graphlore.toolsets.code.languages.symbols import Bound, EdgeSink
from graphlore.toolsets.code.model import CallFact

BUILTINS = frozenset({"print", "len", "fail", "str", "int", "list", "dict", "range", "select", "rule", "provider"})


class StarlarkResolver(Resolver):
    CLASS_KINDS = frozenset()

    def module(self, label: str) -> Bound | None:
        path = label.lstrip("/").replace(":", "/")
        for file, index in self.table.lookup(path, self.t):
            if index < 0:
                return self.table.files[file]
        return None

    def function(self, bound: Bound, name: str) -> tuple[str, int] | None:
        found = [i for i in bound.members("") if bound.sym(i).name == name]
        return (bound.path, found[0]) if found else None

    def file_props(self, bound: Bound, sink: EdgeSink) -> dict:
        external = []
        for imp in bound.facts.imports:
            target = self.module(imp.target)
            if target is None:
                external.append(imp.target)
                continue
            for name, _alias in imp.names:
                ref = self.function(target, name) or (target.path, -1)
                sink.add(bound.file_id, "IMPORTS", self.table.id_of(ref), {"lines": [imp.line]})
        return {"imports_external": sorted(set(external))}

    def call_target(self, call: CallFact, bound: Bound) -> Target:
        if call.receiver is not None:
            return None, "", {"reason": "unknown_receiver"}
        local = self.function(bound, call.name)
        if local is not None:
            return local, "local", {}
        for imp in bound.facts.imports:
            for name, alias in imp.names:
                if alias == call.name:
                    target = self.module(imp.target)
                    found = self.function(target, name) if target is not None else None
                    if found is not None:
                        return found, "static_import", {}
                    return None, "", {"reason": "external_name", "detail": f"{imp.target}%{name}"}
        if call.name in BUILTINS:
            return None, "", {"reason": "builtin", "detail": call.name}
        return None, "", {"reason": "undefined_name"}
