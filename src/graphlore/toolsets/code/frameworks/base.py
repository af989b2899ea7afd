"""What a framework is to part 2: the languages whose files it reads, and a reader of one file's routes,
clients and producers, prepared once per update over the project (`Project`).

A framework reads facts only: nothing is parsed again. Its values are folded with its language's constants
(``languages/<lang>/constants.py``) and each module's settings (`services.settings`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..languages.symbols import Bound, Table
from ..services.endpoints import Item
from ..services.settings import Values

Reader = Callable[[Bound], Iterable[Item]]


@dataclass
class Project:
    """One update's view of the project for the frameworks: its table, each module's settings, and what
    several frameworks share (a language's constants, built once)."""

    table: Table
    settings: dict[str, Values]
    _shared: dict[str, Any] = field(default_factory=dict)

    def values(self, module: str) -> Values:
        return self.settings.get(module) or Values()

    def shared(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self._shared:
            self._shared[key] = make()
        return self._shared[key]


@dataclass(frozen=True)
class Framework:
    """Routes, clients and producers of one framework family (see the module docstring)."""

    name: str
    #: the ``language`` of the files it reads
    languages: tuple[str, ...]
    #: (its languages' source files, not tests, in path order; the project) -> a reader of one of them
    prepare: Callable[[list[Bound], Project], Reader]


def item(bound: Bound, index: int, kind: str, flavor: str, line: int | None = None, **kw: Any) -> Item:
    """An item declared by symbol ``index`` of ``bound`` (-1: the file), at ``line`` or the symbol's first line."""
    sym = bound.facts.symbols[index] if index >= 0 else None
    return Item(kind=kind, owner=bound.ids[index] if index >= 0 else bound.file_id,
                owner_fqn=bound.fqns[index] if index >= 0 else bound.file_fqn, microservice=bound.ctx.microservice,
                module=bound.ctx.module, file=bound.path, line=line or (sym.line_start if sym else 1), flavor=flavor,
                **kw)


def declared_type(bound: Bound, owner: str, name: str, line: int) -> str:
    """The type a local, parameter or field (of the types around ``owner``) is declared or made with, as
    written ("" when none is known): the local's nearest declaration before ``line``, else a field's."""
    seen = [(at, t) for at, t in bound.facts.locals.get(owner, {}).get(name, []) if t and t != "?"]
    if seen:
        return ([t for at, t in seen if at <= line] or [seen[0][1]])[-1]
    key = owner
    while key:
        for member in bound.members(key):
            sym = bound.facts.symbols[member]
            if sym.kind == "field" and sym.name == name:
                return sym.type
        index = bound.by_key.get(key)
        key = bound.facts.symbols[index].parent if index is not None else None
    return ""
