"""What a framework is to part 2: the languages whose files it reads, and a reader of one file's routes,
clients and producers, prepared once per update over the project (`Project`).

A framework reads facts only: nothing is parsed again. Its values are folded with its language's constants
(``languages/<lang>/constants.py``) and each module's settings (`services.settings`). What it works out from
one file alone (the cheap first looks, a file's mount calls) it keeps in `Project.memo`, which lives across
updates: a file whose binding did not change is not looked at again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..languages.symbols import Bound, Table
from ..services.endpoints import Item
from ..services.settings import Values

Reader = Callable[[Bound], Iterable[Item]]


class FileMemo:
    """What is worked out from one file alone, by name, kept while the file's binding (`Bound`: its facts and
    its context) is the same object; a re-parsed or re-bound file gets a new one, so nothing stale is read."""

    def __init__(self) -> None:
        self._values: dict[tuple[str, str], tuple[Bound, Any]] = {}

    def get(self, name: str, bound: Bound, make: Callable[[Bound], Any]) -> Any:
        key = (name, bound.path)
        kept = self._values.get(key)
        if kept is not None and kept[0] is bound:
            return kept[1]
        value = make(bound)
        self._values[key] = (bound, value)
        return value

    def keep_only(self, table: Table) -> None:
        """Forget what was worked out from files that are gone or bound again."""
        self._values = {key: kept for key, kept in self._values.items() if table.files.get(key[1]) is kept[0]}


@dataclass
class Project:
    """One update's view of the project for the frameworks: its table, each module's settings, and what
    several frameworks share (a language's constants, built once)."""

    table: Table
    settings: dict[str, Values]
    memo: FileMemo = field(default_factory=FileMemo)
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
    #: the languages of every file its reading may look at (its own files, the constants it folds with, the
    #: ``.proto`` services), tests included; None: every file. Its items are read again only when one changed.
    reads: tuple[str, ...] | None = ()
    #: its reading also depends on which microservices have files (a gateway names them)
    reads_services: bool = False

    def inputs(self) -> tuple[str, ...] | None:
        return self.reads if self.reads is None else (self.reads or self.languages)


def item(bound: Bound, index: int, kind: str, flavor: str, line: int | None = None, **kw: Any) -> Item:
    """An item declared by symbol ``index`` of ``bound`` (-1: the file), at ``line`` or the symbol's first line."""
    sym = bound.facts.symbols[index] if index >= 0 else None
    return Item(kind=kind, owner=bound.ids[index] if index >= 0 else bound.file_id,
                owner_fqn=bound.fqns[index] if index >= 0 else bound.file_fqn, microservice=bound.ctx.microservice,
                module=bound.ctx.module, file=bound.path, line=line or (sym.line_start if sym else 1), flavor=flavor,
                **kw)


def brace_block(text: str, start: int) -> str:
    """The body of the ``{`` block that opens just before ``start`` (to its matching ``}``, or the end)."""
    depth = 1
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return text[start:index]
    return text[start:]


def dotted(tree) -> str:
    """A receiver tree of names and fields as dotted text (``["field", ["name", "a"], "b"]`` -> ``a.b``), "" for any
    other expression."""
    if tree[0] == "name":
        return tree[1]
    if tree[0] == "field":
        inner = dotted(tree[1])
        return f"{inner}.{tree[2]}" if inner else ""
    return ""


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
