"""Go: tables of composite literals and the ``for ... range`` loops over them, kept for readers that register
one thing per entry (a route table: ``var routes = []Route{{"Index", "GET", "/", Index}, ...}`` looped over by
``for _, r := range routes { router.HandleFunc(r.Pattern, r.HandlerFunc) }``).

``extra["tables"]``: owner ("" for the package level) -> name -> entries, for a variable (package-level or local)
made from a slice, array or map literal, and for a function whose body returns one (named ``F()``). An entry is
``{"key": map key or None, "type": the entry's type as written, "value": its text, "fields": positional
values or None, "keyed": {field: value} or None}``; a table of an anonymous struct type
(``[]struct{Path string; H http.HandlerFunc}{...}``) keeps its field names in ``"fields"``.

A local is kept only when a loop of its function ranges over it.

``extra["ranges"]``: ``[owner, first line, last line, key name, value name, collection]`` of each range loop
(``_`` or "" for a name not bound).
"""

from __future__ import annotations

from tree_sitter import Node

from ..parsing import squash, text

#: how long a table (entries) and an entry's value may be before it is not kept
MAX_ENTRIES = 200
MAX_VALUE = 300


def _element_type(type_node: Node | None) -> str:
    """The entry type a slice, array or map literal's type names (``[]Route`` -> ``Route``), or the type as
    written (a named table type, ``Routes``, resolved where it is read)."""
    if type_node is None:
        return ""
    if type_node.type in ("slice_type", "array_type", "implicit_length_array_type"):
        return text(type_node.child_by_field_name("element")).lstrip("*")
    if type_node.type == "map_type":
        return text(type_node.child_by_field_name("value")).lstrip("*")
    return text(type_node)


def _entry(key: Node | None, value: Node, default_type: str) -> dict:
    """One entry of a table: its key (maps), type, text, and its fields when it is a struct literal."""
    while value.type == "unary_expression" and value.child_by_field_name("operand") is not None:
        value = value.child_by_field_name("operand")   # &Route{...}
    entry: dict = {"key": squash(text(key))[:MAX_VALUE] if key is not None else None, "type": default_type,
                   "value": squash(text(value))[:MAX_VALUE], "fields": None, "keyed": None}
    body = value
    if value.type == "composite_literal":
        entry["type"] = text(value.child_by_field_name("type")).lstrip("*")
        body = value.child_by_field_name("body")
    if body is None or body.type != "literal_value":
        return entry
    elements = [e for e in body.named_children if e.type in ("literal_element", "keyed_element")]
    if elements and all(e.type == "keyed_element" for e in elements):
        keyed = {}
        for element in elements:
            parts = element.named_children
            if len(parts) == 2 and parts[0].named_children and parts[1].named_children:
                keyed[text(parts[0].named_children[0])] = squash(text(parts[1].named_children[0]))[:MAX_VALUE]
        entry["keyed"] = keyed
    elif elements and all(e.type == "literal_element" for e in elements):
        entry["fields"] = [squash(text(e.named_children[0]))[:MAX_VALUE] if e.named_children else ""
                           for e in elements]
    return entry


def table_entries(literal: Node) -> dict | None:
    """``{"type": the table's type as written, "entries": ..., "fields": an anonymous entry struct's field names}``
    of a slice, array or map composite literal, else None."""
    if literal.type != "composite_literal":
        return None
    type_node = literal.child_by_field_name("type")
    body = literal.child_by_field_name("body")
    if type_node is None or body is None:
        return None
    element_type = _element_type(type_node)
    entry_node = type_node.child_by_field_name("element") or type_node.child_by_field_name("value")
    entries = []
    for element in body.named_children[:MAX_ENTRIES]:
        if element.type == "keyed_element":
            parts = element.named_children
            if len(parts) == 2 and parts[0].named_children and parts[1].named_children:
                entries.append(_entry(parts[0].named_children[0], parts[1].named_children[0], element_type))
        elif element.type == "literal_element" and element.named_children:
            entries.append(_entry(None, element.named_children[0], element_type))
    found = {"type": text(type_node), "element": element_type, "entries": entries}
    if entry_node is not None and entry_node.type == "struct_type":   # []struct{Path string; H http.HandlerFunc}{...}
        found["fields"] = _struct_fields(entry_node)
    return found


def _struct_fields(struct: Node) -> list[str]:
    """The field names of an anonymous struct type, in order (an embedded field by its type's name)."""
    names = []
    fields = next((c for c in struct.named_children if c.type == "field_declaration_list"), None)
    for field in fields.named_children if fields is not None else []:
        if field.type == "field_declaration":
            declared = [text(n) for n in field.children_by_field_name("name")]
            names += declared or [text(field.child_by_field_name("type")).lstrip("*").rsplit(".", 1)[-1]]
    return names


def _returned_literal(function: Node) -> Node | None:
    """The composite literal a function's body returns, when its only return statement returns one."""
    body = function.child_by_field_name("body")
    returns = []
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if node.type == "func_literal":
            continue
        if node.type == "return_statement":
            returns.append(node)
        stack.extend(node.named_children)
    if len(returns) != 1 or not returns[0].named_children:
        return None
    values = returns[0].named_children[0]
    value = values.named_children[0] if values.type == "expression_list" and len(values.named_children) == 1 else values
    return value if value.type == "composite_literal" else None


def _package_level(name: Node) -> bool:
    """Whether a variable's name node is declared at the package level (``var x = ...`` outside functions)."""
    node = name.parent
    while node is not None and node.type in ("var_spec", "var_spec_list", "var_declaration"):
        node = node.parent
    return node is not None and node.type == "source_file"


def collect(root: Node, owner_of) -> tuple[dict, list]:
    """(tables, ranges) of a file; ``owner_of(nodes)`` gives the key of the symbol around each node."""
    made: list[tuple[Node, str, Node]] = []   # (anchor, name, literal)
    loops: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        kind = node.type
        if kind == "for_statement":
            clause = next((c for c in node.named_children if c.type == "range_clause"), None)
            if clause is not None:
                loops.append(node)
        elif kind == "var_spec" or kind == "short_var_declaration":
            names = node.children_by_field_name("name") if kind == "var_spec" else [
                n for n in (node.child_by_field_name("left").named_children
                            if node.child_by_field_name("left") is not None else [])]
            values = node.child_by_field_name("value") if kind == "var_spec" else node.child_by_field_name("right")
            values_list = values.named_children if values is not None else []
            for name, value in zip(names, values_list, strict=False):
                if len(names) == len(values_list) and value.type == "composite_literal":
                    made.append((name, text(name), value))
        elif kind == "function_declaration":
            literal = _returned_literal(node)
            name = node.child_by_field_name("name")
            if literal is not None and name is not None:
                made.append((node, f"{text(name)}()", literal))
    ranges = []
    for loop, owner in zip(loops, owner_of(loops), strict=True):
        clause = next(c for c in loop.named_children if c.type == "range_clause")
        left, right = clause.child_by_field_name("left"), clause.child_by_field_name("right")
        if right is None:
            continue
        names = [text(n) for n in left.named_children] if left is not None else []
        ranges.append([owner or "", loop.start_point[0] + 1, loop.end_point[0] + 1,
                       names[0] if names else "", names[1] if len(names) > 1 else "", squash(text(right))[:200]])
    ranged = {(r[0], r[5]) for r in ranges}
    tables: dict = {}
    owners = owner_of([anchor for anchor, _, _ in made])
    for (anchor, name, literal), owner in zip(made, owners, strict=True):
        owner = "" if anchor.type == "function_declaration" or _package_level(anchor) else (owner or "")
        if owner and (owner, name) not in ranged:
            continue   # a local no loop of its function ranges over
        found = table_entries(literal)
        if found is not None and found["entries"]:
            tables.setdefault(owner, {})[name] = found
    return tables, ranges
