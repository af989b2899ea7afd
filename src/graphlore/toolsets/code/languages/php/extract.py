"""PHP: one file's facts (namespaces, classes, interfaces, traits, enums, their methods, constructors, properties
and constants, functions, attributes and docblock annotations, ``use`` imports, call sites, typed locals) from its
tree-sitter tree.

Names: a namespace ``App\\Http`` is the package ``App.Http`` (``\\`` is written ``.`` everywhere, so the typed
resolver reads PHP as it reads C#); a type's key is its name, a member's ``Type.name``. Variables keep their
``$`` (``$client``), so a local is never taken for a property of the same name; ``$this->x`` is the receiver
``this.x``. A trait a class uses is one of its supertypes (``uses``), so its methods are found on the class. A
promoted constructor parameter is a property too. A property's type is its declared type, else its docblock's
``@var``, else what the constructor assigns to it: a parameter's type (``$this->x = $x``) or a construction
(``$this->x = new T()``), when no other method of the class gives it a value of another or no known type.
Attributes (``#[Route('/a')]``) and docblock annotations (``@Route("/a", methods={"GET"})``) are both kept as
annotations, by simple name.
"""

from __future__ import annotations

import re

import tree_sitter_php
from tree_sitter import Node

from ...model import AnnotationFact, CallFact, FileFacts, ImportFact, SymbolFact
from ..extractor import Extractor, Syntax
from ..folding import split_top
from ..parsing import Grammar, squash, text

GRAMMAR = Grammar("php", tree_sitter_php.language_php)

_TYPES = {"class_declaration": "class", "interface_declaration": "interface", "trait_declaration": "class",
          "enum_declaration": "enum"}
_CALLS = """
(member_call_expression) @call (nullsafe_member_call_expression) @call (scoped_call_expression) @call
(function_call_expression) @call (object_creation_expression) @new
"""
_STRINGS = frozenset({"string", "encapsed_string", "heredoc", "nowdoc"})
#: value node types folding may read (others, such as closures and arrays, are never a string)
_VALUES = _STRINGS | {"binary_expression", "variable_name", "member_access_expression", "conditional_expression",
                      "class_constant_access_expression", "function_call_expression", "subscript_expression",
                      "parenthesized_expression", "name", "qualified_name"}
_ANNOTATION = re.compile(r"@([A-Z][\w\\]*)\s*\(")


def php_name(written: str) -> str:
    """A PHP name as the graph keeps it: ``\\App\\Foo`` -> ``App.Foo``, ``?Foo`` -> ``Foo``."""
    return written.strip().lstrip("?").lstrip("\\").replace("\\", ".")


def type_name(node: Node | None) -> str:
    """A declared type: the one named type of ``?Foo``, ``Foo|null``; "" for a union of several or none."""
    if node is None:
        return ""
    if node.type in ("named_type", "primitive_type", "name", "qualified_name"):
        return php_name(text(node))
    if node.type in ("optional_type", "union_type", "intersection_type", "disjunctive_normal_form_type"):
        named = [type_name(c) for c in node.named_children]
        named = [n for n in named if n and n not in ("null", "false")]
        return named[0] if len(named) == 1 else ""
    return ""


def _docblock(node: Node) -> str:
    prev = node.prev_named_sibling
    while prev is not None and prev.type == "attribute_list":
        prev = prev.prev_named_sibling
    if prev is not None and prev.type == "comment" and text(prev).startswith("/**"):
        return text(prev)
    for child in node.children:   # a docblock before the attributes or modifiers is parsed inside the node
        if child.type == "comment" and text(child).startswith("/**"):
            return text(child)
    return ""


def _doc_text(doc: str) -> str:
    lines = [re.sub(r"^\s*(/\*\*|\*/|\*)\s?", "", line).rstrip("*/ ").strip() for line in doc.splitlines()]
    return "\n".join(line for line in lines if line and not line.startswith("@"))[:2000]


def _doc_annotations(doc: str) -> list[AnnotationFact]:
    """``@Route("/a", methods={"GET"})`` in a docblock: the annotation's arguments as written."""
    out = []
    body = re.sub(r"^\s*\*\s?", "", doc, flags=re.M)
    for match in _ANNOTATION.finditer(body):
        depth, end = 1, match.end()
        while end < len(body) and depth:
            depth += {"(": 1, ")": -1}.get(body[end], 0)
            end += 1
        args = []
        for part in split_top(squash(body[match.end():end - 1])):
            named = re.match(r"^(\w+)\s*[=:]\s*(.+)$", part, re.S)
            args.append((named.group(1), named.group(2)) if named and not part.startswith(("'", '"')) else ("", part))
        out.append(AnnotationFact(match.group(1).rsplit("\\", 1)[-1], tuple(args)))
    return out


def _doc_var(doc: str) -> str:
    match = re.search(r"@var\s+\??([\\\w]+)", doc)
    return php_name(match.group(1)) if match and match.group(1) not in ("mixed", "array", "callable") else ""


def _attributes(node: Node) -> list[AnnotationFact]:
    out = []
    for holder in node.children:
        if holder.type != "attribute_list":
            continue
        for group in holder.named_children:
            for attribute in group.named_children:
                if attribute.type != "attribute":
                    continue
                name = next((c for c in attribute.named_children if c.type in ("name", "qualified_name")), None)
                args = []
                params = attribute.child_by_field_name("parameters")
                for arg in params.named_children if params is not None else []:
                    if arg.type != "argument":
                        continue
                    key = arg.child_by_field_name("name")
                    value = arg.named_children[-1] if arg.named_children else None
                    args.append((text(key) if key is not None else "", squash(text(value))))
                out.append(AnnotationFact(php_name(text(name)).rsplit(".", 1)[-1], tuple(args)))
    return out


def _modifiers(node: Node) -> tuple[str, ...]:
    kinds = ("visibility_modifier", "static_modifier", "abstract_modifier", "final_modifier", "readonly_modifier")
    return tuple(text(c) for c in node.children if c.type in kinds)


def _params(node: Node | None) -> tuple[tuple[str, str], ...]:
    out = []
    for child in node.named_children if node is not None else []:
        if child.type in ("simple_parameter", "property_promotion_parameter", "variadic_parameter"):
            name = text(child.child_by_field_name("name"))
            type_ = type_name(child.child_by_field_name("type"))
            out.append((name, "..." + type_ if child.type == "variadic_parameter" else type_))
    return tuple(out)


def _head(src: bytes, node: Node, body: Node | None) -> str:
    start = node.start_byte
    for child in node.children:
        if child.type in ("attribute_list", "comment"):
            start = child.end_byte
    end = body.start_byte if body is not None else node.end_byte
    return squash(src[start:end].decode("utf-8", errors="replace")).rstrip(";").strip()


def _variable(node: Node | None) -> str | None:
    """An assignable name as folding keys it: ``$x`` -> ``$x``, ``$this->x`` -> ``this.x``."""
    if node is None:
        return None
    if node.type == "variable_name":
        return text(node)
    if node.type == "member_access_expression":
        obj = node.child_by_field_name("object")
        if obj is not None and text(obj) == "$this":
            return "this." + text(node.child_by_field_name("name"))
    return None


class _Extractor(Extractor):
    def __init__(self, path: str, src: bytes):
        super().__init__(SYNTAX, path, src, "php")
        self.namespace = ""
        self.pairs: list[tuple[str, Node]] = []
        self.typed: list[tuple[Node, str]] = []

    def nodes(self, *types: str) -> list[Node]:
        """The file's nodes of these types, in source order (one walk of the tree for every pass)."""
        return sorted((node for kind in types for node in self.by_type.get(kind, ())), key=lambda n: n.start_byte)

    def run(self) -> FileFacts:
        root = self.parse()
        self.by_type: dict[str, list[Node]] = {}
        stack = [root]
        while stack:
            node = stack.pop()
            self.by_type.setdefault(node.type, []).append(node)
            stack.extend(node.named_children)
        spaces = [php_name(text(n.child_by_field_name("name"))) for n in root.named_children
                  if n.type == "namespace_definition" and n.child_by_field_name("name") is not None]
        self.facts.package = spaces[0] if len(set(spaces)) == 1 else ""
        self.declarations(root)
        self.calls(root)
        self.values()
        self.record_values(self.pairs)   # type: ignore[arg-type]  (targets are names: ``$x``, ``this.x``)
        self.record_locals(self.typed, lambda owner, _type: owner or "")
        self.groups()
        self.registrations()
        self.switches()
        self.branch_spans()
        return self.finish(root)

    # -- declarations ---------------------------------------------------------------------------
    def declarations(self, node: Node) -> None:
        for child in node.named_children:
            kind = child.type
            if kind == "namespace_use_declaration":
                self.use(child)
            elif kind == "namespace_definition":
                body = child.child_by_field_name("body")
                if body is not None:
                    self.declarations(body)
            elif kind in _TYPES:
                self.type_decl(child)
            elif kind == "function_definition":
                self.callable(child, None, "function")
            elif kind in ("compound_statement", "declaration_list"):
                self.declarations(child)

    def use(self, node: Node) -> None:
        function = any(c.type in ("function", "const") for c in node.children)
        group = next((c for c in node.named_children if c.type == "namespace_name"), None)
        prefix = php_name(text(group)) + "." if group is not None else ""
        clauses = [c for c in node.named_children if c.type == "namespace_use_clause"]
        for holder in node.named_children:
            if holder.type == "namespace_use_group":
                clauses += [c for c in holder.named_children if c.type in ("namespace_use_clause",
                                                                              "namespace_use_group_clause")]
        for clause in clauses:
            alias = clause.child_by_field_name("alias")
            target = next((c for c in clause.named_children if c.type in ("qualified_name", "name", "namespace_name")
                           and c != alias), None)
            written = prefix + php_name(text(target))
            local = text(alias) if alias is not None else written.rsplit(".", 1)[-1]
            self.facts.imports.append(ImportFact(written, ((written, local),), node.start_point[0] + 1,
                                                 static=function))

    def type_decl(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        doc = _docblock(node)
        words = _modifiers(node) + (("trait",) if node.type == "trait_declaration" else ())
        supers: list[tuple[str, str]] = []
        body = node.child_by_field_name("body")
        for child in node.named_children:
            if child.type in ("base_clause", "class_interface_clause"):
                relation = "implements" if child.type == "class_interface_clause" else (
                    "implements" if node.type == "interface_declaration" else "extends")
                supers += [(relation, php_name(text(c))) for c in child.named_children
                           if c.type in ("name", "qualified_name")]
        for member in body.named_children if body is not None else []:
            if member.type == "use_declaration":
                supers += [("uses", php_name(text(c))) for c in member.named_children if c.type in ("name",
                                                                                                   "qualified_name")]
        sym = self.add(SymbolFact(
            key=name, name=name, kind=_TYPES[node.type], parent=None, line_start=node.start_point[0] + 1,
            line_end=node.end_point[0] + 1, signature=_head(self.src, node, body), modifiers=words,
            annotations=tuple(_attributes(node) + _doc_annotations(doc)), docstring=_doc_text(doc),
            supers=tuple(supers),
        ), (node.start_byte, node.end_byte))
        assigned: dict[str, str] = {}
        for member in body.named_children if body is not None else []:
            self.member(member, sym, assigned)
        elsewhere = self.assigned_elsewhere(body)
        for index in range(len(self.symbols)):   # untyped properties: the constructor parameter assigned to them
            field = self.symbols[index]
            if field.parent == sym.key and field.kind == "field" and not field.type and field.name in assigned and \
                    elsewhere.get(field.name, {assigned[field.name]}) == {assigned[field.name]}:
                field.type = assigned[field.name]

    def assigned_elsewhere(self, body: Node | None) -> dict[str, set[str]]:
        """What the class's other methods assign to its properties (``$this->x = ...``): the type each value
        makes ("" when none is known). An untyped property one of them gives another value has no type."""
        out: dict[str, set[str]] = {}
        methods = [m for m in (body.named_children if body is not None else []) if m.type == "method_declaration"
                   and text(m.child_by_field_name("name")) != "__construct"]
        for node in self.by_type.get("assignment_expression", ()):
            target = _variable(node.child_by_field_name("left"))
            right = node.child_by_field_name("right")
            if target and target.startswith("this.") and right is not None and any(
                    m.start_byte <= node.start_byte < m.end_byte for m in methods):
                out.setdefault(target[5:], set()).add(_made(right))
        return out

    def callable(self, node: Node, owner: SymbolFact | None, kind: str) -> SymbolFact:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        doc = _docblock(node)
        words = _modifiers(node)
        if owner is not None and owner.kind == "interface" and body is None:
            words = (*words, "abstract")
        params = _params(node.child_by_field_name("parameters"))
        sym = self.add(SymbolFact(
            key=f"{owner.key}.{name}" if owner is not None else name, name=name, kind=kind,
            parent=owner.key if owner is not None else None, line_start=node.start_point[0] + 1,
            line_end=node.end_point[0] + 1, signature=_head(self.src, node, body), modifiers=words,
            annotations=tuple(_attributes(node) + _doc_annotations(doc)), docstring=_doc_text(doc),
            type=type_name(node.child_by_field_name("return_type")), params=params,
        ), (node.start_byte, node.end_byte))
        parameters = node.child_by_field_name("parameters")
        for child in parameters.named_children if parameters is not None else []:
            name_node = child.child_by_field_name("name")
            if name_node is not None:
                self.typed.append((name_node, type_name(child.child_by_field_name("type"))))
        return sym

    def member(self, node: Node, owner: SymbolFact, assigned: dict[str, str]) -> None:
        kind = node.type
        line_start, line_end = node.start_point[0] + 1, node.end_point[0] + 1
        if kind == "method_declaration":
            name = text(node.child_by_field_name("name"))
            sym = self.callable(node, owner, "constructor" if name == "__construct" else "method")
            if sym.kind != "constructor":
                return
            params = node.child_by_field_name("parameters")
            for param in params.named_children if params is not None else []:
                if param.type == "property_promotion_parameter":
                    pname = text(param.child_by_field_name("name")).lstrip("$")
                    ptype = type_name(param.child_by_field_name("type"))
                    self.add(SymbolFact(f"{owner.key}.{pname}", pname, "field", owner.key, line_start, line_start,
                                        squash(f"{' '.join(_modifiers(param))} {ptype} ${pname}"),
                                        _modifiers(param) + ("promoted",), type=ptype))
            typed = dict(sym.params)
            body = node.child_by_field_name("body")
            for statement in body.named_children if body is not None else []:
                assignment = statement.named_children[0] if statement.named_children else None
                if statement.type == "expression_statement" and assignment is not None and \
                        assignment.type == "assignment_expression":
                    target = _variable(assignment.child_by_field_name("left"))
                    right = assignment.child_by_field_name("right")
                    if not target or not target.startswith("this.") or right is None:
                        continue
                    if right.type == "variable_name" and typed.get(text(right)):
                        assigned[target[5:]] = typed[text(right)]
                    elif right.type == "object_creation_expression" and _made(right):
                        assigned[target[5:]] = _made(right)
        elif kind == "property_declaration":
            doc = _docblock(node)
            type_ = type_name(node.child_by_field_name("type")) or _doc_var(doc)
            words = _modifiers(node)
            for element in node.named_children:
                if element.type != "property_element":
                    continue
                name = text(element.child_by_field_name("name")).lstrip("$")
                value = element.child_by_field_name("default_value") or (
                    element.named_children[-1] if len(element.named_children) > 1 else None)
                self.add(SymbolFact(
                    f"{owner.key}.{name}", name, "field", owner.key, line_start, line_end,
                    squash(f"{' '.join(words)} {type_} ${name}"), words,
                    tuple(_attributes(node) + _doc_annotations(doc)), _doc_text(doc), type=type_))
                if value is not None:
                    self.pairs.append((name, value))
        elif kind == "const_declaration":
            words = _modifiers(node) + ("const", "static")
            for element in node.named_children:
                if element.type != "const_element":
                    continue
                name = text(next((c for c in element.named_children if c.type == "name"), None))
                value = element.named_children[-1] if len(element.named_children) > 1 else None
                extra = {"value": squash(text(value))[:300]} if value is not None else {}
                self.add(SymbolFact(f"{owner.key}.{name}", name, "field", owner.key, line_start, line_end,
                                    f"const {name}", words, extra=extra))
        elif kind == "enum_case":
            name = text(node.child_by_field_name("name"))
            self.add(SymbolFact(f"{owner.key}.{name}", name, "field", owner.key, line_start, line_end,
                                f"{owner.name}::{name}", ("public", "static", "enum_constant"), type=owner.name))
        elif kind == "enum_declaration_list" or kind == "declaration_list":
            for child in node.named_children:
                self.member(child, owner, assigned)

    # -- calls, values, locals ------------------------------------------------------------------
    def calls(self, root: Node) -> None:
        calls = self.facts.calls
        for node, tag, owner in self.owned(root, _CALLS):
            if tag == "call":
                found = self.call_fact(node, owner or "")
                if found is not None:
                    calls.append(found)
                continue
            target = next((c for c in node.named_children if c.type in ("name", "qualified_name")), None)
            if target is None:
                continue
            type_ = php_name(text(target))
            args = next((c for c in node.named_children if c.type == "arguments"), None)
            calls.append(CallFact(owner or "", type_.rsplit(".", 1)[-1], ["type", type_], self.argc(args),
                                  node.start_point[0] + 1, "new", (), self.arg_texts(args)))

    def callee(self, call: Node, target: Node | None = None):
        kind = call.type
        name = call.child_by_field_name("name")
        if kind in ("member_call_expression", "nullsafe_member_call_expression"):
            return (call.child_by_field_name("object"), text(name)) if name is not None and name.type == "name" \
                else None
        if kind == "scoped_call_expression":
            return (call.child_by_field_name("scope"), text(name)) if name is not None and name.type == "name" \
                else None
        function = call.child_by_field_name("function")
        if function is None or function.type not in ("name", "qualified_name"):
            return None   # $f(), (fn)()
        return None, php_name(text(function)).rsplit(".", 1)[-1]

    def receiver(self, node) -> list:
        kind = node.type
        if kind == "variable_name":
            return ["this"] if text(node) == "$this" else ["name", text(node)]
        if kind == "relative_scope":
            return ["super"] if text(node) == "parent" else ["this"]
        if kind in ("name", "qualified_name"):
            return ["name", php_name(text(node))]
        if kind in ("member_access_expression", "nullsafe_member_access_expression"):
            obj = node.child_by_field_name("object")
            name = node.child_by_field_name("name")
            if name is None or name.type != "name":
                return ["other"]
            return ["field", self.receiver(obj) if obj is not None else ["other"], text(name)]
        if kind in ("member_call_expression", "nullsafe_member_call_expression", "scoped_call_expression",
                    "function_call_expression"):
            callee = self.callee(node)
            if callee is None:
                return ["other"]
            obj, name = callee
            return ["call", self.receiver(obj) if obj is not None else None, name,
                    self.argc(node.child_by_field_name("arguments"))]
        if kind == "object_creation_expression":
            target = next((c for c in node.named_children if c.type in ("name", "qualified_name")), None)
            return ["type", php_name(text(target))] if target is not None else ["other"]
        if kind == "parenthesized_expression" and node.named_children:
            return self.receiver(node.named_children[0])
        return ["other"]

    def argc(self, args: Node | None) -> int:
        return 0 if args is None else sum(1 for c in args.named_children if c.type == "argument")

    def arg_texts(self, args: Node | None, limit: int = 3, width: int = 200) -> tuple[str, ...]:
        if args is None:
            return ()
        found = [squash(text(c))[:width] for c in args.named_children if c.type == "argument"]
        return tuple(found[:limit])

    def values(self) -> None:
        """Assignments (for folding), the types locals are made with (``$x = new T()``) and a closure's typed
        parameters (locals of the function around it). Every other value a variable is given (another
        assignment, ``list(...)``, ``foreach ... as $x``, ``&``) is kept as untyped: a PHP variable has the
        type of whatever it was given last, so the resolver trusts a type only when every value agrees."""
        for node in self.nodes("anonymous_function", "arrow_function", "assignment_expression",
                               "reference_assignment_expression", "foreach_statement"):
            if node.type in ("anonymous_function", "arrow_function"):
                parameters = node.child_by_field_name("parameters")
                for child in parameters.named_children if parameters is not None else []:
                    name_node = child.child_by_field_name("name")
                    if name_node is not None:
                        self.typed.append((name_node, type_name(child.child_by_field_name("type"))))
            elif node.type == "foreach_statement":
                given = node.named_children[1:-1] if len(node.named_children) > 2 else []
                self.typed += [(v, "") for g in given for v in _variables(g)]
            else:
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                target = _variable(left)
                if target is not None and right is not None and node.type == "assignment_expression":
                    self.pairs.append((target, right))
                    if right.type in ("object_creation_expression", "scoped_call_expression"):
                        # what a client is made with, by the variable or property it is kept in (`php_web`)
                        self.facts.extra.setdefault("constructed", []).append(
                            {"target": target, "line": right.start_point[0] + 1})
                if left is not None and left.type == "variable_name":
                    made = _made(right) if right is not None and node.type == "assignment_expression" else ""
                    self.typed.append((left, made))
                elif left is not None and left.type == "list_literal":
                    self.typed += [(v, "") for v in _variables(left)]

    def branches(self, value: Node, depth: int) -> list[Node]:
        """The values an expression may have: both sides of ``c ? a : b``; itself for what folding reads
        (``a ?: b`` and ``a ?? b`` included: the folder reads them as a value with a default)."""
        if value.type == "conditional_expression" and value.child_by_field_name("body") is not None and depth < 4:
            return [*self.branches(value.child_by_field_name("body"), depth + 1),
                    *self.branches(value.child_by_field_name("alternative"), depth + 1)]
        return [value] if value.type in _VALUES else []

    def groups(self) -> None:
        """Route groups: a closure passed to ``->group(...)`` (Laravel ``Route::prefix('p')->group(fn)``,
        ``Route::group(['prefix' => 'p'], fn)``; Slim ``$app->group('/p', fn)``), as (first line, last line,
        the prefix as written, the closure's first parameter: Slim's group) in ``extra["route_groups"]``."""
        found = []
        for node in self.nodes("member_call_expression", "scoped_call_expression"):
            name = node.child_by_field_name("name")
            args = [c.named_children[-1] for c in (node.child_by_field_name("arguments").named_children
                                                   if node.child_by_field_name("arguments") is not None else [])
                    if c.type == "argument" and c.named_children]
            if name is None or text(name) != "group" or not args or \
                    args[-1].type not in ("anonymous_function", "arrow_function"):
                continue
            prefix = None
            if len(args) >= 2 and args[0].type in _STRINGS | {"binary_expression", "class_constant_access_expression"}:
                prefix = squash(text(args[0]))   # Slim: group('/p', fn)
            elif len(args) >= 2 and args[0].type == "array_creation_expression":
                prefix = _array_value(args[0], "prefix")   # Laravel: group(['prefix' => 'p'], fn)
            else:   # Laravel: Route::prefix('p')->...->group(fn)
                inner = node.child_by_field_name("object") or node.child_by_field_name("scope")
                while inner is not None and inner.type in ("member_call_expression", "scoped_call_expression"):
                    if text(inner.child_by_field_name("name")) == "prefix":
                        arguments = inner.child_by_field_name("arguments")
                        first = [c for c in arguments.named_children if c.type == "argument"] if arguments else []
                        prefix = squash(text(first[0])) if first else None
                        break
                    inner = inner.child_by_field_name("object") or inner.child_by_field_name("scope")
            closure = args[-1]
            parameters = closure.child_by_field_name("parameters")
            first = next((c for c in parameters.named_children if c.child_by_field_name("name") is not None), None) \
                if parameters is not None else None
            found.append({"start": closure.start_point[0] + 1, "end": closure.end_point[0] + 1,
                          "prefix": prefix if prefix is not None else "''", "line": node.start_point[0] + 1,
                          "param": text(first.child_by_field_name("name")) if first is not None else ""})
        if found:
            self.facts.extra["route_groups"] = sorted(found, key=lambda g: (g["start"], -g["end"]))


    def registrations(self) -> None:
        """Symfony container registrations: ``$c->register(T::class)->addArgument(a)->addArgument(b)`` (or
        ``->setArguments([a, b])``), as the class and the constructor arguments as written, in
        ``extra["registrations"]``."""
        found = []
        for node in self.nodes("member_call_expression"):
            if text(node.child_by_field_name("name")) != "register" or \
                    node.parent is None or node.parent.type != "member_access_expression" and \
                    node.parent.type != "member_call_expression":
                continue
            args = _arguments(node)
            made = args[-1] if len(args) == 2 else args[0] if args else None   # register(T::class) / register(id, T)
            if made is None or made.type != "class_constant_access_expression" or not text(made).endswith("::class"):
                continue
            written: list[str] = []
            outer = node.parent
            while outer is not None and outer.type == "member_call_expression":
                method = text(outer.child_by_field_name("name"))
                values = _arguments(outer)
                if method == "addArgument" and len(values) == 1:
                    written.append(squash(text(values[0])))
                elif method == "setArguments" and len(values) == 1 and values[0].type == "array_creation_expression":
                    written = [squash(text(e.named_children[-1])) for e in values[0].named_children
                               if e.type == "array_element_initializer" and len(e.named_children) == 1]
                outer = outer.parent
            found.append({"class": php_name(text(made).rsplit("::", 1)[0]), "args": [a[:300] for a in written],
                          "line": node.start_point[0] + 1})
        if found:
            self.facts.extra["registrations"] = found


    def switches(self) -> None:
        """``switch`` statements over a value (``$_SERVER['REQUEST_URI']``, a variable) whose cases are plain string
        literals, as the value as written and (literal, line) per case, in ``extra["switches"]`` (a plain router's
        paths, when the value is the request's path: `frameworks.php_web`)."""
        found = []
        for node in self.nodes("switch_statement"):
            subject, body = node.child_by_field_name("condition"), node.child_by_field_name("body")
            cases = []
            for case in body.named_children if body is not None else []:
                value = case.child_by_field_name("value") if case.type == "case_statement" else None
                if value is not None and value.type in ("string", "encapsed_string") and all(
                        c.type == "string_content" for c in value.named_children):
                    cases.append((text(value)[1:-1], case.start_point[0] + 1))
            if subject is not None and cases:
                found.append({"subject": squash(text(subject)).strip("()").strip(), "cases": cases,
                              "line": node.start_point[0] + 1})
        if found:
            self.facts.extra["switches"] = sorted(found, key=lambda f: f["line"])


    def branch_spans(self) -> None:
        """The line spans of code that may or may not run (an ``if``'s body, ``else``, a ``case``, a loop, a ``catch``,
        a ternary), in ``extra["branches"]``: a curl option set in one is not known to be set (`frameworks.php_web`)."""
        found = {(node.start_point[0] + 1, node.end_point[0] + 1)
                 for node in self.nodes(*_BRANCHES)}
        found |= {(body.start_point[0] + 1, body.end_point[0] + 1) for node in self.nodes("if_statement")
                  if (body := node.child_by_field_name("body")) is not None}
        if found:
            self.facts.extra["branches"] = sorted(found)


#: what may or may not run (an ``if`` statement's own body is taken apart: its condition always runs)
_BRANCHES = ("else_clause", "else_if_clause", "case_statement", "default_statement", "while_statement",
             "for_statement", "foreach_statement", "do_statement", "catch_clause", "conditional_expression")


def _variables(node: Node) -> list[Node]:
    """The variables a ``foreach`` or ``list(...)`` target gives values to (``$k => $v``, ``[$a, [$b]]``,
    ``&$x``)."""
    if node.type == "variable_name":
        return [node]
    if node.type in ("pair", "by_ref", "list_literal", "array_element_initializer"):
        return [v for child in node.named_children for v in _variables(child)]
    return []


def _arguments(call: Node) -> list[Node]:
    holder = call.child_by_field_name("arguments")
    return [c.named_children[-1] for c in (holder.named_children if holder is not None else [])
            if c.type == "argument" and c.named_children]


def _array_value(node: Node, key: str) -> str | None:
    for element in node.named_children:
        if element.type == "array_element_initializer" and len(element.named_children) == 2:
            name, value = element.named_children
            if text(name).strip("'\"") == key:
                return squash(text(value))
    return None


def _made(value: Node) -> str:
    """What a value makes, as a local's type: ``new T()`` -> ``T``, ``T::create()`` -> ``~T.create()``."""
    if value.type == "object_creation_expression":
        target = next((c for c in value.named_children if c.type in ("name", "qualified_name")), None)
        return php_name(text(target)) if target is not None else ""
    if value.type == "scoped_call_expression":
        scope = value.child_by_field_name("scope")
        if scope is not None and scope.type in ("name", "qualified_name"):
            return f"~{php_name(text(scope))}.{text(value.child_by_field_name('name'))}()"
    if value.type == "function_call_expression":
        function = value.child_by_field_name("function")
        if function is not None and function.type == "name":
            return f"~{text(function)}()"
    return ""


SYNTAX = Syntax(
    grammar=GRAMMAR, comments=frozenset({"comment"}),
    calls={"member_call_expression": ("object", "name"), "function_call_expression": (None, "function")},
    members={"member_access_expression": ("object", "name")}, decorators=frozenset(), type_text=type_name,
    literals=dict.fromkeys(_STRINGS, "string"), wrappers=frozenset({"parenthesized_expression"}),
    names=frozenset({"variable_name", "name"}),
    generated_header=re.compile(rb"(?i)(@generated|auto-?generated|do not edit|generated by)"), header_bytes=600,
)


def extract(path: str, src: bytes) -> FileFacts:
    """The facts of one PHP file (pure: depends only on ``path`` and ``src``)."""
    return _Extractor(path, src).run()
