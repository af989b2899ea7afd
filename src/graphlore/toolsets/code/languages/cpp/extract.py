"""C++: one file's facts (namespaces, classes and structs with their bases, methods declared in a class and
defined out of line, free functions, constants, ``#include "..."`` of project headers, call sites, typed
locals) from its tree-sitter tree.

Keys. A type's key is its namespace path and name, dotted (``shop.v1.Cart``); a member ``shop.v1.Cart.add``; a free
function or a constant ``shop.v1.helper``. A method defined out of line (``void Cart::add(int x) {}``) is a method
of the class when the file declares it (its parent), else it has no parent and says its class as written in
``extra["receiver"]`` (``Cart``), as Go's and Rust's detached methods do. The fqn is the key (``shop.v1.Cart.add``
for ``shop::v1::Cart::add``): a file declares no package of its own.

Types as written drop ``const``, ``*``, ``&`` and template arguments, except that a smart pointer stands for what it
points to (``std::unique_ptr<Cart::Stub>`` -> ``Cart.Stub``). A local declared ``auto`` takes the type of what it is
made with: ``new T(..)``, ``std::make_unique<T>(..)``/``std::make_shared<T>(..)`` give ``T``, any other call
``~callee()`` (``auto s = Svc::NewStub(ch)`` -> ``~Svc.NewStub()``). A local that is not typed so is untyped: calls
on it stay unresolved. ``int main`` is an entry point. Templates are read as the declaration they wrap; macros
are not expanded (a file full of them reads what tree-sitter makes of it)."""

from __future__ import annotations

import re

import tree_sitter_cpp
from tree_sitter import Node, QueryCursor

from ...model import CallFact, FileFacts, ImportFact, SymbolFact
from ..extractor import Extractor, Syntax
from ..parsing import Grammar, query, squash, text

GRAMMAR = Grammar("cpp", tree_sitter_cpp.language)

_CALLS = "(call_expression) @call (new_expression) @new"
_LOCALS = "(declaration) @decl (parameter_declaration) @param"
_ASSIGNMENTS = """
(init_declarator declarator: (identifier) @target value: (_) @value)
(init_declarator declarator: (pointer_declarator declarator: (identifier) @target) value: (_) @value)
(init_declarator declarator: (reference_declarator (identifier) @target) value: (_) @value)
(assignment_expression left: (_) @target right: (_) @value)
(field_initializer (field_identifier) @target (argument_list . (_) @value .))
"""
_STRINGS = frozenset({"string_literal", "raw_string_literal", "concatenated_string"})
#: templates that stand for the type they point to or hold
SMART_POINTERS = frozenset({"unique_ptr", "shared_ptr", "weak_ptr", "optional", "reference_wrapper"})
#: calls that make a ``T`` from ``<T>``
_MAKERS = frozenset({"make_unique", "make_shared"})
_CLASSES = frozenset({"class_specifier", "struct_specifier"})
_DECLARATORS = frozenset({"pointer_declarator", "reference_declarator", "init_declarator", "array_declarator",
                          "parenthesized_declarator"})


def _strip_template(name: str) -> str:
    return name.split("<", 1)[0]


def type_name(node: Node | None) -> str:
    """A type as written, dotted and without qualifiers or template arguments (see the module docstring)."""
    if node is None:
        return ""
    kind = node.type
    if kind in ("type_identifier", "primitive_type", "namespace_identifier", "identifier", "sized_type_specifier"):
        return text(node)
    if kind == "template_type":
        name = text(node.child_by_field_name("name"))
        if name in SMART_POINTERS:
            args = node.child_by_field_name("arguments")
            inner = next((a for a in args.named_children if a.type == "type_descriptor"), None) if args else None
            return type_name(inner.child_by_field_name("type")) if inner is not None else name
        return name
    if kind == "qualified_identifier":
        scope, name = node.child_by_field_name("scope"), node.child_by_field_name("name")
        if name is not None and name.type == "template_type" and text(name.child_by_field_name("name")) in \
                SMART_POINTERS:
            return type_name(name)   # std::unique_ptr<T>: T
        head = _strip_template(text(scope)) if scope is not None else ""
        inner = type_name(name)
        return f"{head}.{inner}" if head else inner
    if kind in ("struct_specifier", "class_specifier", "enum_specifier"):
        return type_name(node.child_by_field_name("name"))
    if kind == "type_descriptor":
        return type_name(node.child_by_field_name("type"))
    if kind == "placeholder_type_specifier":
        return "auto"
    return _strip_template(squash(text(node))).replace("::", ".")


def dotted(node: Node | None) -> str:
    """A name as written with ``.`` for ``::`` and without template arguments (``std::make_unique<T>`` ->
    ``std.make_unique``)."""
    if node is None:
        return ""
    return ".".join(_strip_template(p) for p in squash(text(node)).split("::")).lstrip(".")


def _function_declarator(node: Node | None) -> Node | None:
    while node is not None and node.type in _DECLARATORS:
        node = node.child_by_field_name("declarator")
    return node if node is not None and node.type == "function_declarator" else None


def _declared_name(node: Node | None) -> Node | None:
    """The name node a (pointer, reference, init) declarator declares."""
    while node is not None and node.type in _DECLARATORS:
        node = node.child_by_field_name("declarator")
    return node


def _doc(node: Node) -> str:
    lines: list[str] = []
    prev = node.prev_named_sibling
    line = node.start_point[0]
    while prev is not None and prev.type == "comment" and prev.end_point[0] >= line - 1:
        raw = text(prev).strip()
        lines.insert(0, re.sub(r"^(///?|/\*+|\*)\s?|\*/$", "", raw).strip())
        line = prev.start_point[0]
        prev = prev.prev_named_sibling
    return "\n".join(lines)[:2000]


def _head(src: bytes, node: Node, body: Node | None) -> str:
    end = body.start_byte if body is not None else node.end_byte
    return squash(src[node.start_byte:end].decode("utf-8", errors="replace"))[:300]


def _params(declarator: Node | None) -> tuple[tuple[str, str], ...]:
    params = declarator.child_by_field_name("parameters") if declarator is not None else None
    out = []
    for param in params.named_children if params is not None else []:
        if param.type in ("parameter_declaration", "optional_parameter_declaration"):
            name = _declared_name(param.child_by_field_name("declarator"))
            out.append((text(name) if name is not None else "", type_name(param.child_by_field_name("type"))))
    return tuple(out)


def _specifiers(node: Node, declarator: Node | None) -> tuple[str, ...]:
    """``static``, ``virtual`` and ``override`` as written on a member."""
    out = []
    for child in node.children:
        if child.type in ("storage_class_specifier", "virtual") and text(child) in ("static", "virtual"):
            out.append(text(child))
    for child in declarator.children if declarator is not None else []:
        if child.type == "virtual_specifier":
            out.append(text(child))
    return tuple(out)


class _Extractor(Extractor):
    def __init__(self, path: str, src: bytes):
        super().__init__(SYNTAX, path, src, "cpp")
        #: names that begin a ``a::b`` callee (a namespace or a type, never a local)
        self.path_heads: set[str] = set()

    def run(self) -> FileFacts:
        root = self.parse()
        self.items(root, "")
        self.calls(root)
        self.locals(root)
        self.record_values(self.assignment_pairs(root))
        if self.path_heads:
            self.facts.extra["path_heads"] = sorted(self.path_heads)
        return self.finish(root)

    # -- declarations ---------------------------------------------------------------------------
    def items(self, container: Node, prefix: str) -> None:
        for node in container.named_children:
            kind = node.type
            if kind == "template_declaration":
                inner = next((c for c in node.named_children if c.type in (*_CLASSES, "function_definition",
                                                                           "declaration")), None)
                if inner is None:
                    continue
                node, kind = inner, inner.type
            if kind == "preproc_include":
                path = node.child_by_field_name("path")
                if path is not None and path.type == "string_literal":
                    self.facts.imports.append(ImportFact(text(path)[1:-1], (), node.start_point[0] + 1))
                elif path is not None:   # <...>: a library's header
                    self.facts.extra.setdefault("system_includes", []).append(text(path)[1:-1])
            elif kind in ("preproc_ifdef", "preproc_if", "preproc_else", "linkage_specification"):
                body = node.child_by_field_name("body")
                self.items(body if body is not None and kind == "linkage_specification" else node, prefix)
            elif kind == "using_declaration" and any(c.type == "namespace" for c in node.children):
                self.facts.extra.setdefault("using", []).append(dotted(node.named_children[-1]))
            elif kind == "namespace_definition":
                name = node.child_by_field_name("name")
                inner = f"{prefix}{dotted(name)}." if name is not None else prefix
                self.facts.extra.setdefault("namespaces", [])
                if inner and inner[:-1] not in self.facts.extra["namespaces"]:
                    self.facts.extra["namespaces"].append(inner[:-1])
                body = node.child_by_field_name("body")
                if body is not None:
                    self.items(body, inner)
            elif kind in _CLASSES and node.child_by_field_name("body") is not None:
                self.type_item(node, prefix, None)
            elif kind == "function_definition":
                self.function(node, prefix)
            elif kind == "declaration":
                self.value(node, prefix)

    def type_item(self, node: Node, prefix: str, parent: SymbolFact | None) -> SymbolFact | None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return None
        name = text(name_node)
        body = node.child_by_field_name("body")
        supers = tuple(("extends", type_name(base)) for clause in node.named_children
                       if clause.type == "base_class_clause" for base in clause.named_children
                       if base.type in ("type_identifier", "qualified_identifier", "template_type"))
        struct = node.type == "struct_specifier"
        sym = self.add(SymbolFact(
            key=(f"{parent.key}." if parent is not None else prefix) + name, name=name, kind="class",
            parent=parent.key if parent is not None else None,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=_head(self.src, node, body), docstring=_doc(node), supers=supers,
            modifiers=(("struct",) if struct else ()) + (("final",) if any(
                c.type == "virtual_specifier" and text(c) == "final" for c in node.named_children) else ()),
        ), (node.start_byte, node.end_byte))
        access = "public" if struct else "private"
        for member in body.named_children if body is not None else []:
            kind = member.type
            if kind == "access_specifier":
                access = text(member).strip()
                continue
            if kind == "template_declaration":
                member = next((c for c in member.named_children if c.type in (
                    *_CLASSES, "function_definition", "declaration", "field_declaration")), member)
                kind = member.type
            nested = member.child_by_field_name("type") if kind == "field_declaration" else member
            if nested is not None and nested.type in _CLASSES and nested.child_by_field_name("body") is not None:
                self.type_item(nested, prefix, sym)   # struct Line { .. }; (a field of it too, when one is named)
                if kind == "field_declaration" and member.child_by_field_name("declarator") is not None:
                    self.member(member, sym, access)
            elif kind in ("field_declaration", "declaration", "function_definition"):
                self.member(member, sym, access)
        return sym

    def member(self, node: Node, owner: SymbolFact, access: str) -> None:
        declarator = node.child_by_field_name("declarator")
        function = _function_declarator(declarator)
        body = node.child_by_field_name("body")
        if function is not None:
            name = text(function.child_by_field_name("declarator")).strip()
            if not re.fullmatch(r"~?\w+", name):
                return   # operators
            kind = "constructor" if name == owner.name else "method"
            result = type_name(node.child_by_field_name("type"))
            modifiers = (access, *_specifiers(node, function),
                         *(("abstract",) if node.type == "field_declaration" and "= 0" in text(node) else ()))
            self.add(SymbolFact(
                key=f"{owner.key}.{name}", name=name, kind=kind, parent=owner.key,
                line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
                signature=_head(self.src, node, body), docstring=_doc(node), modifiers=modifiers,
                type=result, params=_params(function),
            ), (node.start_byte, node.end_byte))
            return
        type_ = type_name(node.child_by_field_name("type"))
        for child in node.children_by_field_name("declarator"):
            name = _declared_name(child)
            if name is None or name.type not in ("field_identifier", "identifier"):
                continue
            self.add(SymbolFact(
                key=f"{owner.key}.{text(name)}", name=text(name), kind="field", parent=owner.key,
                line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
                signature=squash(text(node))[:300], docstring=_doc(node), modifiers=(access,), type=type_,
            ), (node.start_byte, node.end_byte))

    def function(self, node: Node, prefix: str) -> None:
        function = _function_declarator(node.child_by_field_name("declarator"))
        if function is None:
            return
        target = function.child_by_field_name("declarator")
        written = dotted(target)
        if target is None or not re.fullmatch(r"[\w.~]+", written):
            return   # operators, conversion functions
        scope, _, name = written.rpartition(".")
        body = node.child_by_field_name("body")
        owner = self.by_key.get(prefix + scope) if scope else None
        if owner is not None and owner.kind != "class":
            owner = None
        receiver = scope if scope and owner is None else ""
        kind = "constructor" if scope and name == scope.rsplit(".", 1)[-1] else "method" if scope else "function"
        extra: dict = {"receiver": receiver} if receiver else {}
        if kind == "function" and name == "main" and not prefix:
            extra["entry_point"] = True
            self.facts.extra["main"] = True
        key = f"{owner.key}.{name}" if owner is not None else prefix + written
        self.add(SymbolFact(
            key=key, name=name, kind=kind, parent=owner.key if owner is not None else None,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=_head(self.src, node, body), docstring=_doc(node), modifiers=_specifiers(node, function),
            type=type_name(node.child_by_field_name("type")), params=_params(function), extra=extra,
        ), (node.start_byte, node.end_byte))

    def value(self, node: Node, prefix: str) -> None:
        """A namespace-level variable or constant (``const std::string kAddr = "..."``); its value is kept when it is
        a literal or a short expression of one."""
        type_ = type_name(node.child_by_field_name("type"))
        for child in node.children_by_field_name("declarator"):
            if _function_declarator(child) is not None:
                continue   # a function's prototype: its definition is the symbol
            name = _declared_name(child)
            if name is None or name.type != "identifier":
                continue
            value = child.child_by_field_name("value") if child.type == "init_declarator" else None
            extra = {}
            if value is not None and value.type not in ("argument_list", "initializer_list") and \
                    value.end_byte - value.start_byte < 300:
                extra["value"] = squash(text(value))
                self.facts.extra.setdefault("values", {})[prefix + text(name)] = extra["value"]
            self.add(SymbolFact(
                key=prefix + text(name), name=text(name), kind="field", parent=None,
                line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
                signature=squash(text(node))[:300], docstring=_doc(node),
                modifiers=("const",) if "const" in text(node).split("=", 1)[0].split() else (), type=type_,
                extra=extra,
            ), (node.start_byte, node.end_byte))

    # -- calls and locals -----------------------------------------------------------------------
    def calls(self, root: Node) -> None:
        for node, tag, owner in self.owned(root, _CALLS):
            if tag == "new":
                type_ = type_name(node.child_by_field_name("type"))
                args = node.child_by_field_name("arguments")
                self.facts.calls.append(CallFact(owner or "", type_.rsplit(".", 1)[-1], ["type", type_],
                                                 self.argc(args), node.start_point[0] + 1, "new", (),
                                                 self.arg_texts(args)))
                continue
            found = self.call_fact(node, owner or "")
            if found is not None:
                self.facts.calls.append(found)

    def callee(self, call: Node, target: Node | None = None):
        target = call.child_by_field_name("function") if target is None else target
        if target is None:
            return None
        if target.type in ("template_function", "template_method"):
            target = target.child_by_field_name("name")
        if target.type == "qualified_identifier":
            head, _, name = dotted(target).rpartition(".")
            if not head:
                return None, name
            return _Path(head), name
        return super().callee(call, target)

    def receiver(self, node) -> list:
        if isinstance(node, _Path):
            parts = node.dotted.split(".")
            self.path_heads.add(parts[0])
            tree: list = ["name", parts[0]]
            for part in parts[1:]:
                tree = ["field", tree, part]
            return tree
        if node.type == "qualified_identifier":
            return self.receiver(_Path(dotted(node)))
        if node.type == "template_type":
            return ["name", type_name(node)]
        return super().receiver(node)

    def locals(self, root: Node) -> None:
        items: list[tuple[Node, str]] = []
        for _, match in QueryCursor(query(GRAMMAR, _LOCALS)).matches(root):
            node = (match.get("decl") or match["param"])[0]
            declared = type_name(node.child_by_field_name("type"))
            for child in node.children_by_field_name("declarator"):
                if _function_declarator(child) is not None:
                    continue
                name = _declared_name(child)
                if name is None or name.type != "identifier":
                    continue
                type_ = declared
                if declared == "auto":
                    value = child.child_by_field_name("value") if child.type == "init_declarator" else None
                    type_ = local_type(value) or "?"
                items.append((name, type_))
        self.record_locals(items, lambda owner, _type: owner)


class _Path:
    """A ``a::b`` callee's qualifier, taken apart by `_Extractor.receiver`."""

    def __init__(self, dotted_path: str):
        self.dotted = dotted_path


def local_type(value: Node | None) -> str:
    """The type an ``auto`` local takes from what it is made with (see the module docstring), "" when unknown."""
    if value is None:
        return ""
    if value.type == "new_expression":
        return type_name(value.child_by_field_name("type"))
    if value.type == "call_expression":
        function = value.child_by_field_name("function")
        name = dotted(function)
        template = function
        while template is not None and template.type == "qualified_identifier":
            template = template.child_by_field_name("name")
        if name.rsplit(".", 1)[-1] in _MAKERS and template is not None and template.type == "template_function":
            args = template.child_by_field_name("arguments")
            inner = next((a for a in args.named_children if a.type == "type_descriptor"), None) if args else None
            return type_name(inner) if inner is not None else ""
        if function is not None and function.type == "field_expression":
            name = dotted(function.child_by_field_name("argument")) + "." + text(function.child_by_field_name("field"))
        return f"~{name}()" if name and re.fullmatch(r"[\w.]+", name) else ""
    if value.type in _STRINGS:
        return "std.string"
    return ""


SYNTAX = Syntax(
    grammar=GRAMMAR, comments=frozenset({"comment"}),
    calls={"call_expression": (None, "function")},
    members={"field_expression": ("argument", "field")},
    decorators=frozenset(), type_text=type_name,
    literals=dict.fromkeys(_STRINGS, "std.string"),
    wrappers=frozenset({"parenthesized_expression", "pointer_expression"}),
    keywords=frozenset({"this"}), names=frozenset({"identifier", "field_identifier", "namespace_identifier"}),
    type_names=frozenset({"type_identifier", "template_type"}),
    header_bytes=600, assignments=_ASSIGNMENTS,
    generated_header=re.compile(rb"(?i)(@generated|automatically generated|do not edit|generated by)"),
)


def extract(path: str, src: bytes) -> FileFacts:
    """The facts of one C++ file (pure: depends only on ``path`` and ``src``)."""
    return _Extractor(path, src).run()
