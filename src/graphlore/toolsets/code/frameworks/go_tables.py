"""Go: registrations made in a ``for ... range`` loop over a table of entries, read once per entry.

``for _, r := range routes { router.HandleFunc(r.Pattern, r.HandlerFunc).Methods(r.Method) }`` registers one
route per entry of ``routes``: a slice, array or map literal (a package-level variable of any file of the
package, a local of the function, another package's ``pkg.Routes``, or what a function returns, ``routes()``)
whose entries are struct literals, positional (``Route{"Index", "GET", "/", Index}``, read in the order the
struct declares its fields) or keyed (``{Method: "GET", Path: "/", Handler: Index}``), or a map
(``for path, h := range handlers``: the key and the value). An argument that is the loop's key, value or a
field of the value (``r.Pattern``) is the entry's expression, folded and resolved in the file that writes the
table; an entry that does not set the field gives an unknown value, never another entry's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..languages.symbols import Bound
from ..model import CallFact
from .golang import GoPackages, local

#: an argument the table does not give (not the loop's name): read as written
NOT_FROM_TABLE = None


@dataclass(frozen=True)
class Source:
    """Where an argument is read: the file, the symbol whose locals it may name ("" for the package level,
    None to fold without locals), the line, and the expression ("" when the entry does not set it)."""
    bound: Bound
    owner: str | None
    line: int
    expr: str
    why: str = ""
    #: fold with the owner's locals (a table local to a function); a call's own argument folds without them
    with_locals: bool = False


class Tables:
    """The project's Go tables (package-level, and what functions return) and the field order of its structs."""

    def __init__(self, packages: GoPackages, bounds: list[Bound]) -> None:
        self.packages = packages
        self.tables: dict[tuple[str, str], tuple[Bound, dict]] = {}
        self.field_order: dict[tuple[str, str], list[str]] = {}
        for bound in bounds:
            package = bound.ctx.module_name
            for name, table in bound.facts.extra.get("tables", {}).get("", {}).items():
                self.tables[(package, name)] = (bound, table)
            for sym in bound.facts.symbols:
                if sym.kind == "field" and sym.parent:
                    self.field_order.setdefault((package, sym.parent), []).append(sym.name)

    @staticmethod
    def loop_of(bound: Bound, call: CallFact) -> list | None:
        """The innermost range loop around a call: ``[owner, first, last, key, value, collection]``."""
        found = [r for r in bound.facts.extra.get("ranges", []) if r[0] == call.owner and r[1] <= call.line <= r[2]]
        return max(found, key=lambda r: r[1]) if found else None

    def table(self, bound: Bound, owner: str, collection: str, line: int) -> tuple[Bound, str | None, dict] | None:
        """(file, owner, table) a loop's collection names, or None when it is no table the project writes."""
        collection = collection.strip()
        if re.fullmatch(r"\w+", collection):
            kept = bound.facts.extra.get("tables", {}).get(owner, {}).get(collection)
            if kept is not None:
                return bound, owner, kept
            made = local(bound, owner, collection, line)
            if made.startswith("~") and made.endswith("()"):
                collection = made[1:]
            elif made:
                return None   # a local or parameter of another making: not the package's table
        match = re.fullmatch(r"(?:(\w+)\.)?(\w+)(\(\))?", collection)
        if match is None:
            return None
        head, name, called = match.groups()
        package = self.packages.package_of(bound, head) if head else bound.ctx.module_name
        found = self.tables.get((package or "", name + (called or "")))
        return (found[0], None, found[1]) if found is not None else None

    def order(self, bound: Bound, entry: dict, table: dict) -> list[str]:
        """The field names of an entry's struct type, in the order it declares them."""
        if table.get("fields") and entry.get("type") == table.get("element"):
            return table["fields"]
        key = self._struct(bound, entry.get("type") or table.get("type", ""))
        return self.field_order.get(key, []) if key is not None else []

    def fields(self, bound: Bound, entry: dict, table: dict) -> dict[str, str]:
        """The fields an entry sets, by name (positional values named in the order the struct declares them)."""
        if entry.get("keyed") is not None:
            return dict(entry["keyed"])
        values = entry.get("fields")
        if values is None:
            return {}
        order = self.order(bound, entry, table)
        return dict(zip(order, values, strict=True)) if len(order) == len(values) else {}

    def _struct(self, bound: Bound, written: str, depth: int = 0) -> tuple[str, str] | None:
        """(package, struct) an entry type names; a named table type (``type Routes []Route``) gives its element."""
        written = written.strip().lstrip("*")
        element = re.match(r"^(?:\[\w*\]|map\[[^\]]+\])\*?(.+)$", written)
        if element:
            written = element.group(1)
        key = self.packages.type_key(bound, written)
        if key is None or depth > 3:
            return None
        declaring, index = self.packages.types[key]
        defined = declaring.facts.symbols[index].type or ""
        if defined.startswith(("[", "map[")):
            return self._struct(declaring, defined, depth + 1)
        return key

    def sources(self, bound: Bound, call: CallFact) -> list[dict[str, Source]] | None:
        """For a call in a range loop over a project table whose arguments name the loop's key or value: per
        entry, what each such argument stands for (by the argument as written); None otherwise."""
        loop = self.loop_of(bound, call)
        if loop is None:
            return None
        owner, _first, _last, key_name, value_name, collection = loop
        found = self.table(bound, owner, collection, call.line)
        if found is None:
            return None
        table_bound, table_owner, table = found
        out = []
        for entry in table.get("entries", []):
            fields = self.fields(table_bound, entry, table)
            line = call.line if table_bound is bound else 0
            names: dict[str, Source] = {}
            if value_name and value_name != "_":
                names[value_name] = Source(table_bound, table_owner, line, entry.get("value") or "",
                                           with_locals=table_owner is not None)
                for field in set(fields) | set(self.order(table_bound, entry, table)):
                    expr = fields.get(field, "")
                    names[f"{value_name}.{field}"] = Source(
                        table_bound, table_owner, line, expr,
                        "" if expr else f"the entry {entry.get('value', '')[:60]} sets no {field}",
                        table_owner is not None)
            if key_name and key_name != "_" and entry.get("key") is not None:
                names[key_name] = Source(table_bound, table_owner, line, entry["key"], "", table_owner is not None)
            out.append(names)
        return out if out else None


def mentions_loop(bound: Bound, call: CallFact, args: list[str]) -> bool:
    """Whether any argument is a range loop's key or value, or a field of it."""
    loop = Tables.loop_of(bound, call)
    if loop is None:
        return False
    names = {n for n in loop[3:5] if n and n != "_"}
    return any(re.fullmatch(r"(\w+)(?:\.\w+)?", a.strip()) and a.strip().split(".")[0] in names for a in args)
