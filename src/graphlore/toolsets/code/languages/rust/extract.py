"""Rust: one file's facts (structs, enums, traits, ``impl`` blocks and their methods, functions, constants and
statics, ``use`` imports, ``mod`` declarations, attributes, call sites, typed locals) from its tree-sitter tree.

Keys. A type's key is its name; a method of an ``impl`` block ``Type.method`` (wherever the crate declares the
block: a method whose type is declared in another file has no parent here and says its type in
``extra["receiver"]``; an ``impl Trait for Type`` method also says ``extra["trait"]``); a struct field or a trait
method ``Type.name``; a function, constant or static its name; an item of an inline ``mod m { ... }`` ``m.name``;
a function declared in a function's body ``outer.name`` (its parent the outer function).
The fqn is the file's module path with ``.`` for ``::`` (``orders.handlers.create``, see `rust.module_path`).

Kinds: a struct is a ``class`` (``modifiers`` say ``struct``), an enum an ``enum``, a trait an ``interface``; an
``impl Trait for Type`` in the file that declares ``Type`` makes ``Trait`` one of its supertypes
(``implements``); elsewhere it is listed in ``extra["impls"]`` as ``[type, trait]``; a ``#[derive(..)]`` trait is a
supertype too (its methods are the library's: ``User::query()`` of a derived ``Queryable``). ``Self`` in a signature is
the ``impl`` block's type. Types as written drop references, ``mut``, lifetimes and generic arguments
(``&mut Vec<T>`` -> ``Vec``); a local made by a call is typed ``~callee()`` (``Order::new()`` ->
``~Order.new()``; a trailing ``.unwrap()``, ``.expect(..)``, ``?`` or ``.await`` is looked through), by a struct
literal as its type. ``#[cfg(test)]`` modules are test code and are not read. ``fn main`` is an entry point.
``use`` paths are kept as written with ``.`` for ``::`` (``crate.store.Store``); groups ``{a, b}`` and ``as``
give one import each."""

from __future__ import annotations

import re

import tree_sitter_rust
from tree_sitter import Node, QueryCursor

from ...model import AnnotationFact, FileFacts, ImportFact, SymbolFact
from ..extractor import Extractor, Syntax
from ..parsing import Grammar, query, squash, text

GRAMMAR = Grammar("rust", tree_sitter_rust.language)

#: call sites, struct literals and macro invocations (rocket's ``routes![..]``), captured in one pass
_CALLS = "(call_expression) @call (struct_expression) @literal (macro_invocation) @macro"
_LOCALS = """
(let_declaration) @let
(parameter pattern: (_) @name type: (_) @type)
"""
_ASSIGNMENTS = """
(let_declaration pattern: (identifier) @target value: (_) @value)
(assignment_expression left: (_) @target right: (_) @value)
"""
_STRINGS = frozenset({"string_literal", "raw_string_literal"})
#: what a constant may be folded from
_FOLDABLE = frozenset({*_STRINGS, "integer_literal", "identifier", "scoped_identifier", "binary_expression",
                       "macro_invocation", "call_expression"})
#: calls that hand back what they are called on (for a local's type)
_PASS_THROUGH = frozenset({"unwrap", "expect", "unwrap_or_default", "clone", "to_owned"})
_TYPE_WRAPPERS = frozenset({"reference_type", "pointer_type", "mutable_specifier"})


def type_name(node: Node | None) -> str:
    """A type as written without references, lifetimes or generic arguments (``&mut Vec<T>`` -> ``Vec``,
    ``crate::a::B`` -> ``crate.a.B``)."""
    if node is None:
        return ""
    kind = node.type
    if kind in _TYPE_WRAPPERS:
        inner = node.child_by_field_name("type")
        return type_name(inner) if inner is not None else ""
    if kind == "generic_type":
        return type_name(node.child_by_field_name("type"))
    if kind in ("type_identifier", "primitive_type", "identifier"):
        return text(node)
    if kind in ("scoped_type_identifier", "scoped_identifier"):
        return squash(text(node)).replace("::", ".").split("<", 1)[0]
    if kind == "abstract_type":   # impl Trait
        return type_name(node.child_by_field_name("trait"))
    if kind == "dynamic_type":    # dyn Trait
        return type_name(node.child_by_field_name("trait"))
    return squash(text(node))


def _doc(node: Node) -> str:
    """The ``///`` (or ``//``) comment lines right above an item (attributes in between are skipped)."""
    lines: list[str] = []
    prev = node.prev_named_sibling
    while prev is not None and prev.type == "attribute_item":
        prev = prev.prev_named_sibling
    line = (prev.end_point[0] + 1) if prev is not None else 0
    while prev is not None and prev.type == "line_comment" and prev.end_point[0] <= line:
        raw = text(prev).strip()
        lines.insert(0, raw.lstrip("/!").strip())
        line = prev.start_point[0]
        prev = prev.prev_named_sibling
    return "\n".join(lines)[:2000]


def attributes(node: Node) -> tuple[AnnotationFact, ...]:
    """The ``#[...]`` attributes right above an item: name with ``.`` for ``::`` (``get``, ``tokio.main``) and the
    raw argument list as one positional argument."""
    out: list[AnnotationFact] = []
    prev = node.prev_named_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
        if prev.type == "attribute_item":
            attr = next((c for c in prev.named_children if c.type == "attribute"), None)
            if attr is not None and attr.named_children:
                name = squash(text(attr.named_children[0])).replace("::", ".")
                args = attr.child_by_field_name("arguments")
                value = attr.child_by_field_name("value")
                raw = text(args)[1:-1] if args is not None else (text(value) if value is not None else "")
                out.insert(0, AnnotationFact(name, (("", squash(raw)),) if raw else ()))
        prev = prev.prev_named_sibling
    return tuple(out)


def _is_test_module(node: Node) -> bool:
    return any(a.name == "cfg" and a.args and "test" in a.args[0][1] for a in attributes(node))


def _params(node: Node | None, self_type: str) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for param in node.named_children if node is not None else []:
        if param.type == "parameter":
            type_ = type_name(param.child_by_field_name("type"))
            out.append((squash(text(param.child_by_field_name("pattern"))).removeprefix("mut "),
                        self_type if type_ == "Self" and self_type else type_))
    return tuple(out)


def _head(src: bytes, node: Node, body: Node | None) -> str:
    end = body.start_byte if body is not None else node.end_byte
    return squash(src[node.start_byte:end].decode("utf-8", errors="replace"))


def _visibility(node: Node) -> tuple[str, ...]:
    return ("pub",) if any(c.type == "visibility_modifier" for c in node.named_children) else ()


def callee_text(node: Node | None) -> str:
    """A called path as dotted text (``reqwest::Client::new`` -> ``reqwest.Client.new``), "" when it is no path."""
    if node is None:
        return ""
    if node.type == "generic_function":
        return callee_text(node.child_by_field_name("function"))
    if node.type in ("identifier", "scoped_identifier", "field_expression", "self"):
        return squash(text(node)).replace("::", ".").replace("<", " ").split(" ", 1)[0]
    return ""


def local_type(value: Node | None, self_type: str = "") -> str:
    """The type a value gives the variable it is bound to (see the module docstring), "" when unknown."""
    if value is None:
        return ""
    kind = value.type
    if kind in ("try_expression", "await_expression", "reference_expression", "parenthesized_expression") \
            and value.named_children:
        return local_type(value.named_children[0] if kind != "reference_expression"
                          else value.child_by_field_name("value"), self_type)
    if kind == "struct_expression":
        name = type_name(value.child_by_field_name("name"))
        return self_type if name == "Self" else name
    if kind == "call_expression":
        function = value.child_by_field_name("function")
        if function is not None and function.type == "field_expression":
            field = text(function.child_by_field_name("field"))
            if field in _PASS_THROUGH:
                return local_type(function.child_by_field_name("value"), self_type)
        name = callee_text(function)
        if name.startswith("Self.") and self_type:
            name = self_type + name[4:]
        return f"~{name}()" if name else ""
    if kind in _STRINGS:
        return "str"
    return ""


class _Extractor(Extractor):
    def __init__(self, path: str, src: bytes):
        super().__init__(SYNTAX, path, src, "rust")
        self.type_names: set[str] = set()
        self.impl_of: dict[int, str] = {}
        #: names that begin a ``a::b`` path somewhere in the file (a crate or module, never a local)
        self.path_heads: set[str] = set()
        #: byte spans of the ``#[cfg(test)]`` modules: nothing in them is read
        self.skipped: list[tuple[int, int]] = []

    def run(self) -> FileFacts:
        root = self.parse()
        self.type_names = {text(n.child_by_field_name("name")) for n in root.named_children
                           if n.type in ("struct_item", "enum_item", "trait_item", "type_item", "union_item")}
        self.items(root, "")
        self.calls(root)
        self.locals(root)
        self.record_values([*self.assignment_pairs(root), *self.keyed_fields()])
        facts = self.finish(root)
        self.chains()
        if self.path_heads:
            facts.extra["path_heads"] = sorted(self.path_heads)
        return facts

    # -- declarations ---------------------------------------------------------------------------
    def items(self, container: Node, prefix: str) -> None:
        impls: list[Node] = []
        for node in container.named_children:
            kind = node.type
            if kind == "use_declaration":
                self.use(node)
            elif kind == "mod_item":
                body = node.child_by_field_name("body")
                name = text(node.child_by_field_name("name"))
                if body is None:
                    self.facts.extra.setdefault("mods", []).append(name)
                elif _is_test_module(node):
                    self.skipped.append((node.start_byte, node.end_byte))
                else:
                    self.items(body, f"{prefix}{name}.")
            elif kind in ("struct_item", "enum_item", "union_item", "type_item"):
                self.type_item(node, prefix)
            elif kind == "trait_item":
                self.trait(node, prefix)
            elif kind == "impl_item":
                impls.append(node)
            elif kind == "function_item":
                self.function(node, prefix, None)
            elif kind in ("const_item", "static_item"):
                self.value(node, prefix)
        for node in impls:   # after the types, so a method's parent is known
            self.impl(node, prefix)

    def use(self, node: Node) -> None:
        line = node.start_point[0] + 1
        for path, alias in _use_paths(node.child_by_field_name("argument"), ""):
            if alias == "*":
                self.facts.imports.append(ImportFact(path, (("*", "*"),), line))
            elif alias != "_":
                self.facts.imports.append(ImportFact(path, ((path, alias),), line))

    def type_item(self, node: Node, prefix: str) -> SymbolFact:
        name = text(node.child_by_field_name("name"))
        kind = node.type
        body = node.child_by_field_name("body")
        type_params = node.child_by_field_name("type_parameters")
        annotations = attributes(node)
        derived = tuple(("implements", squash(t).replace("::", ".")) for a in annotations if a.name == "derive"
                        for t in (a.args[0][1].split(",") if a.args else ()) if t.strip())
        sym = self.add(SymbolFact(
            key=prefix + name, name=name, kind="enum" if kind == "enum_item" else "class", parent=None,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=_head(self.src, node, body), docstring=_doc(node), annotations=annotations, supers=derived,
            modifiers=(*_visibility(node), {"struct_item": "struct", "union_item": "union", "type_item": "alias",
                                            "enum_item": "enum"}[kind]),
            type=type_name(node.child_by_field_name("type")) if kind == "type_item" else "",
            type_params=tuple(text(p) for p in (type_params.named_children if type_params is not None else [])
                              if p.type == "type_identifier"),
        ), (node.start_byte, node.end_byte))
        if body is not None and body.type == "field_declaration_list":
            for field in body.named_children:
                if field.type == "field_declaration":
                    fname = text(field.child_by_field_name("name"))
                    self.add(SymbolFact(
                        key=f"{sym.key}.{fname}", name=fname, kind="field", parent=sym.key,
                        line_start=field.start_point[0] + 1, line_end=field.end_point[0] + 1,
                        signature=squash(text(field)), modifiers=_visibility(field), docstring=_doc(field),
                        type=type_name(field.child_by_field_name("type")), annotations=attributes(field),
                    ), (field.start_byte, field.end_byte))
        return sym

    def trait(self, node: Node, prefix: str) -> None:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        bounds = node.child_by_field_name("bounds")
        sym = self.add(SymbolFact(
            key=prefix + name, name=name, kind="interface", parent=None,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=_head(self.src, node, body), modifiers=_visibility(node), docstring=_doc(node),
            annotations=attributes(node),
            supers=tuple(("extends", type_name(b)) for b in (bounds.named_children if bounds is not None else [])
                         if b.type in ("type_identifier", "scoped_type_identifier", "generic_type")),
        ), (node.start_byte, node.end_byte))
        for item in body.named_children if body is not None else []:
            if item.type in ("function_item", "function_signature_item"):
                self.function(item, prefix, sym, abstract=item.type == "function_signature_item")

    def impl(self, node: Node, prefix: str) -> None:
        type_ = type_name(node.child_by_field_name("type"))
        trait_node = node.child_by_field_name("trait")
        trait = type_name(trait_node) if trait_node is not None else ""
        owner = self.by_key.get(prefix + type_) if type_ in self.type_names or prefix else None
        if owner is not None and owner.kind not in ("class", "enum"):
            owner = None
        if trait:
            if owner is not None:
                owner.supers = (*owner.supers, ("implements", trait))
            else:
                self.facts.extra.setdefault("impls", []).append([type_, trait])
        body = node.child_by_field_name("body")
        for item in body.named_children if body is not None else []:
            if item.type == "function_item":
                self.function(item, prefix, owner, receiver=type_, trait=trait)

    def function(self, node: Node, prefix: str, owner: SymbolFact | None, receiver: str = "", trait: str = "",
                 abstract: bool = False, outer: str | None = None) -> None:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        params_node = node.child_by_field_name("parameters")
        has_self = params_node is not None and any(p.type == "self_parameter" for p in params_node.named_children)
        self_type = receiver or (owner.name if owner is not None else "")
        result = type_name(node.child_by_field_name("return_type"))
        if result == "Self" and self_type:
            result = self_type
        method = owner is not None or bool(receiver)
        simple = receiver.rsplit(".", 1)[-1]   # impl super::Store: the key says Store, extra["receiver"] the path
        key = f"{owner.key}.{name}" if owner is not None else (f"{prefix}{simple}.{name}" if receiver
                                                                else f"{outer}.{name}" if outer else prefix + name)
        extra: dict = {}
        if receiver:
            extra["receiver"] = receiver
        if trait:
            extra["trait"] = trait
        if not method and name == "main" and not prefix and not outer:
            extra["entry_point"] = True
            self.facts.extra["main"] = True
        modifiers = (*_visibility(node), *(("async",) if "async" in _head(self.src, node, params_node) else ()),
                     *(("static",) if method and not has_self else ()), *(("abstract",) if abstract else ()))
        type_params = node.child_by_field_name("type_parameters")
        sym = self.add(SymbolFact(
            key=key, name=name, kind="method" if method else "function",
            parent=owner.key if owner is not None else outer,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=_head(self.src, node, body), modifiers=modifiers, docstring=_doc(node),
            annotations=attributes(node), type=result, params=_params(params_node, self_type),
            type_params=tuple(text(p) for p in (type_params.named_children if type_params is not None else [])
                              if p.type == "type_identifier"),
            extra=extra,
        ), (node.start_byte, node.end_byte))
        if self_type:
            self.impl_of[node.start_byte] = self_type
        for item in body.named_children if body is not None else []:
            if item.type == "function_item":   # a function declared in the body: seen only there
                self.function(item, prefix, None, outer=sym.key)

    def value(self, node: Node, prefix: str) -> None:
        name = text(node.child_by_field_name("name"))
        value = node.child_by_field_name("value")
        extra = {}
        if value is not None and value.type in _FOLDABLE and value.end_byte - value.start_byte < 300:
            extra["value"] = squash(text(value))
            self.facts.extra.setdefault("values", {})[prefix + name] = extra["value"]
        type_ = type_name(node.child_by_field_name("type"))
        self.add(SymbolFact(
            key=prefix + name, name=name, kind="field", parent=None,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=squash(text(node))[:300], docstring=_doc(node),
            modifiers=(*_visibility(node), "const" if node.type == "const_item" else "static"),
            type=type_, extra=extra,
        ), (node.start_byte, node.end_byte))

    # -- calls and locals -----------------------------------------------------------------------
    def read(self, node: Node) -> bool:
        """Whether a node is outside every ``#[cfg(test)]`` module."""
        return not any(start <= node.start_byte < end for start, end in self.skipped)

    def assignment_pairs(self, root: Node) -> list[tuple[Node, Node]]:
        return [pair for pair in super().assignment_pairs(root) if self.read(pair[0])]

    def calls(self, root: Node) -> None:
        self.call_nodes: dict[int, Node] = {}
        self.literals: list[Node] = []
        for node, tag, owner in self.owned(root, _CALLS):
            if not self.read(node):
                continue
            if tag == "literal":
                self.literals.append(node)
                continue
            if tag == "macro":   # a function's routes![..]: what a .mount("/p", f()) of it serves
                macro = node.child_by_field_name("macro")
                if owner and macro is not None and text(macro).rsplit("::", 1)[-1] == "routes":
                    self.facts.extra.setdefault("routes", {}).setdefault(owner, []).append(squash(text(node)))
                continue
            found = self.call_fact(node, owner or "")
            if found is not None:
                self.facts.calls.append(found)
                self.call_nodes[id(found)] = node

    def chains(self) -> None:
        """``extra["chains"]``, one ``[on, into]`` per call site: ``on`` the index of the call it is made on
        (``Router::new().route(..)``: the ``new``), else -1; ``into`` where the value of the chain it ends is
        kept: a local's name, ``return`` (the function's result), ``arg:<index>`` (an argument of that call),
        else "". What routers and scopes are made of (axum, actix-web) without parsing again."""
        index = {(node.start_byte, node.end_byte): i for i, node in
                 ((i, self.call_nodes[id(c)]) for i, c in enumerate(self.facts.calls))}
        out = []
        for call in self.facts.calls:
            node = self.call_nodes[id(call)]
            function = node.child_by_field_name("function")
            value = _unwrap(function.child_by_field_name("value")) if function is not None and \
                function.type == "field_expression" else None
            on = index.get((value.start_byte, value.end_byte), -1) if value is not None and value.type == "call_expression" else -1
            out.append([on, _into(node, index)])
        if any(on >= 0 or into for on, into in out):
            self.facts.extra["chains"] = out

    def callee(self, call: Node, target: Node | None = None):
        target = call.child_by_field_name("function") if target is None else target
        if target is not None and target.type == "generic_function":
            target = target.child_by_field_name("function")
        if target is not None and target.type == "scoped_identifier":   # ``isahc::get(..)`` names the crate too
            path = target.child_by_field_name("path")
            if path is not None and path.type == "identifier":
                self.path_heads.add(text(path))
        return super().callee(call, target)

    def receiver(self, node: Node) -> list:
        if node.type == "scoped_identifier":
            path = node.child_by_field_name("path")
            name = text(node.child_by_field_name("name"))
            if path is not None and path.type == "identifier":
                self.path_heads.add(text(path))
            return ["field", self.receiver(path), name] if path is not None else ["name", name]
        if node.type in ("crate", "super") or (node.type == "self" and node.parent is not None
                                                and node.parent.type == "scoped_identifier"):
            return ["name", node.type]
        if node.type == "generic_type":
            return ["name", type_name(node)]
        return super().receiver(node)

    def keyed_fields(self) -> list[tuple[str, Node]]:
        """(``T{}.field``, value) of each field a struct literal sets (``T { base: x }``, ``T { base }``: what a
        constructor gives a field), ``Self`` read as the ``impl`` type."""
        out: list[tuple[str, Node]] = []
        for node in self.literals:
            name = type_name(node.child_by_field_name("name"))
            if name == "Self":
                name = self._self_type(node)
            body = node.child_by_field_name("body")
            for field in body.named_children if body is not None and name else []:
                if field.type == "field_initializer":
                    key, value = field.child_by_field_name("field"), field.child_by_field_name("value")
                    if key is not None and value is not None:
                        out.append((f"{name.rsplit('.', 1)[-1]}{{}}.{text(key)}", value))
                elif field.type == "shorthand_field_initializer" and field.named_children:
                    out.append((f"{name.rsplit('.', 1)[-1]}{{}}.{text(field.named_children[0])}", field.named_children[0]))
        return out

    def locals(self, root: Node) -> None:
        items: list[tuple[Node, str]] = []
        for _, match in QueryCursor(query(GRAMMAR, _LOCALS)).matches(root):
            if not self.read(match["let"][0] if "let" in match else match["name"][0]):
                continue
            if "let" in match:
                let = match["let"][0]
                pattern = let.child_by_field_name("pattern")
                if pattern is not None and pattern.type == "mut_pattern" and pattern.named_children:
                    pattern = pattern.named_children[-1]
                if pattern is None or pattern.type != "identifier":
                    continue
                declared = type_name(let.child_by_field_name("type"))
                self_type = self._self_type(let)
                items.append((pattern, declared or local_type(let.child_by_field_name("value"), self_type) or "?"))
            else:
                pattern = match["name"][0]
                if pattern.type == "mut_pattern" and pattern.named_children:
                    pattern = pattern.named_children[-1]
                if pattern.type == "identifier":
                    type_ = type_name(match["type"][0])
                    items.append((pattern, self._self_type(pattern) if type_ == "Self" else type_))
        self.record_locals(items, lambda owner, _type: owner)

    def _self_type(self, node: Node) -> str:
        """The type of the ``impl`` block around ``node`` ("" outside one)."""
        current = node.parent
        while current is not None:
            if current.type == "function_item":
                return self.impl_of.get(current.start_byte, "")
            current = current.parent
        return ""


_WRAPPING = frozenset({"await_expression", "try_expression", "parenthesized_expression", "reference_expression"})


def _unwrap(node: Node | None) -> Node | None:
    while node is not None and node.type in _WRAPPING and node.named_children:
        node = node.child_by_field_name("value") if node.type == "reference_expression" else node.named_children[0]
    return node


def _into(node: Node, index: dict[tuple[int, int], int]) -> str:
    """Where the value of the chain a call is the top of goes (see `_Extractor.chains`); "" inside a chain."""
    current = node
    while True:
        parent = current.parent
        if parent is None:
            return ""
        if parent.type in _WRAPPING:
            current = parent
            continue
        if parent.type == "field_expression" and parent.parent is not None and \
                parent.parent.type == "call_expression":
            return ""   # a link of a longer chain: the chain's top says
        break
    if parent.type == "let_declaration":
        pattern = parent.child_by_field_name("pattern")
        if pattern is not None and pattern.type == "mut_pattern" and pattern.named_children:
            pattern = pattern.named_children[-1]
        return text(pattern) if pattern is not None and pattern.type == "identifier" else ""
    if parent.type == "assignment_expression" and parent.child_by_field_name("right") == current:
        return squash(text(parent.child_by_field_name("left")))
    if parent.type == "arguments" and parent.parent is not None:
        outer = index.get((parent.parent.start_byte, parent.parent.end_byte))
        return f"arg:{outer}" if outer is not None else ""
    if parent.type == "return_expression" or (parent.type == "block" and parent.named_children
                                               and parent.named_children[-1] == current
                                               and parent.parent is not None
                                               and parent.parent.type == "function_item"):
        return "return"
    return ""


def _use_paths(node: Node | None, base: str) -> list[tuple[str, str]]:
    """(dotted path, local name) of each name a ``use`` tree brings in (``a::{b, c as d}`` -> ``a.b``/``b``,
    ``a.c``/``d``; ``a::*`` -> ``a``/``*``; ``a::b::{self}`` -> ``a.b``/``b``)."""
    if node is None:
        return []
    kind = node.type

    def join(rest: str) -> str:
        return f"{base}.{rest}" if base and rest else base or rest
    if kind in ("identifier", "scoped_identifier", "crate", "super", "self"):
        path = join(squash(text(node)).replace("::", "."))
        if kind == "self":
            path = base
        return [(path, path.rsplit(".", 1)[-1])] if path else []
    if kind == "use_as_clause":
        inner = _use_paths(node.child_by_field_name("path"), base)
        return [(inner[0][0], text(node.child_by_field_name("alias")))] if inner else []
    if kind == "use_wildcard":
        inner = node.named_children[0] if node.named_children else None
        path = join(squash(text(inner)).replace("::", ".")) if inner is not None else base
        return [(path, "*")]
    if kind == "scoped_use_list":
        path_node = node.child_by_field_name("path")
        inner_base = join(squash(text(path_node)).replace("::", ".")) if path_node is not None else base
        return _use_paths(node.child_by_field_name("list"), inner_base)
    if kind == "use_list":
        return [pair for child in node.named_children for pair in _use_paths(child, base)]
    return []


SYNTAX = Syntax(
    grammar=GRAMMAR, comments=frozenset({"line_comment", "block_comment"}),
    calls={"call_expression": (None, "function")},
    members={"field_expression": ("value", "field"), "scoped_identifier": ("path", "name")},
    decorators=frozenset(), type_text=type_name,
    constructions={"struct_expression": "name"},
    literals=dict.fromkeys(_STRINGS, "str"),
    wrappers=frozenset({"parenthesized_expression", "try_expression", "await_expression", "reference_expression",
                        "unary_expression"}),
    keywords=frozenset({"self"}), type_names=frozenset({"type_identifier", "generic_type", "scoped_type_identifier"}),
    header_bytes=600, assignments=_ASSIGNMENTS,
    generated_header=re.compile(rb"(?i)(@generated|automatically generated|do not edit)"),
)


def extract(path: str, src: bytes) -> FileFacts:
    """The facts of one Rust file (pure: depends only on ``path`` and ``src``)."""
    return _Extractor(path, src).run()
