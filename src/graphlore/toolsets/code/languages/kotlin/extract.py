"""Kotlin: one file's facts (classes, interfaces, objects, data and enum classes, functions and extension
functions, properties, annotations, imports, call sites, typed locals) from its tree-sitter tree.

Keys follow the JVM's view, as Java's do: a type's key is its nesting (``Outer.Inner``), a function member's
``Type#name(String,Int)``, a property's ``Type#name``, a constructor's ``Type#Type(...)``; a companion object's
members belong to the enclosing class (static on the JVM) and an ``object``'s and ``const``'s are
``static final``, so Java code and the JVM frameworks read them like Java's. Top-level functions are keyed
``name(...)``; an extension function says its receiver type in ``extra["receiver"]``. Primary constructor
``val``/``var`` parameters are properties. ``object`` declarations are classes (``object`` among their
modifiers), ``data``/``enum``/``sealed`` too.

A call made in the trailing lambda of another call (``route("/api") { get("/x") { ... } }``) names that call
in ``extra["lambda_of"]`` (the index of the enclosing call in ``calls``, or -1): DSLs such as Ktor's routing
are read from it.

The grammar (tree-sitter-kotlin) rejects a type body with a declaration on the body's own line
(``object A { const val X = 1 }``); such bodies are broken onto lines of their own before parsing, and every
line number is mapped back.
"""

from __future__ import annotations

import re

import tree_sitter_kotlin
from tree_sitter import Node

from ...model import AnnotationFact, CallFact, FileFacts, ImportFact, SymbolFact
from ..extractor import Extractor, Syntax
from ..parsing import Grammar, enclosing_lambda_calls, squash, text

GRAMMAR = Grammar("kotlin", tree_sitter_kotlin.language)

_DECLARATIONS = ("class_declaration", "object_declaration")
_ONE_LINE_BODY = re.compile(r"\{\s*(?=(?:(?:private|public|internal|protected|override|open|const|lateinit|inline|"
                            r"suspend|abstract)\s+)*(?:val|var|fun|init|class|object)\b)")
_STRINGS = frozenset({"string_literal", "multiline_string_literal"})
_FOLDABLE = frozenset({*_STRINGS, "navigation_expression", "identifier", "additive_expression", "number_literal"})


def type_name(node: Node | None) -> str:
    """A type as written without generic arguments or ``?``: ``List<Order>?`` -> ``List``."""
    if node is None:
        return ""
    if node.type == "nullable_type" and node.named_children:
        return type_name(node.named_children[0])
    if node.type == "user_type":
        return ".".join(text(c) for c in node.named_children if c.type == "identifier")
    return squash(re.sub(r"<.*>", "", text(node))).rstrip("?")


def _split_bodies(src: str) -> tuple[str, list[int]]:
    """One-line type bodies broken onto lines of their own (see the module docstring), and for each line of the
    result the line of ``src`` it came from."""
    out_lines: list[str] = []
    origin: list[int] = []
    for number, line in enumerate(src.split("\n"), start=1):
        match = _ONE_LINE_BODY.search(line)
        close = line.rfind("}")
        if match is None or close < match.end() or line.lstrip().startswith(("//", "*")):
            out_lines.append(line)
            origin.append(number)
            continue
        pieces = [line[:match.start() + 1], line[match.end():close], line[close:]]
        out_lines += pieces
        origin += [number] * 3
    return "\n".join(out_lines), origin


def _modifiers(node: Node) -> tuple[tuple[str, ...], tuple[AnnotationFact, ...]]:
    holder = next((c for c in node.named_children if c.type == "modifiers"), None)
    if holder is None:
        return (), ()
    children = holder.named_children
    return (tuple(text(c) for c in children if c.type != "annotation"),
            tuple(_annotation(c) for c in children if c.type == "annotation"))


def _annotation(node: Node) -> AnnotationFact:
    inner = node.named_children[0] if node.named_children else None
    if inner is None:
        return AnnotationFact(text(node).lstrip("@"), (), node.start_point[0] + 1)
    if inner.type == "user_type":
        return AnnotationFact(type_name(inner), (), node.start_point[0] + 1)
    name = type_name(next((c for c in inner.named_children if c.type == "user_type"), None))
    values = next((c for c in inner.named_children if c.type == "value_arguments"), None)
    args: list[tuple[str, str]] = []
    for arg in values.named_children if values is not None else []:
        parts = arg.named_children
        named = len(parts) >= 2 and parts[0].type == "identifier" and any(c.type == "=" for c in arg.children)
        args.append((text(parts[0]), squash(text(parts[-1]))) if named else ("", squash(text(arg))))
    return AnnotationFact(name, tuple(args), node.start_point[0] + 1)


def _stray_annotations(node: Node) -> tuple[AnnotationFact, ...]:
    """Annotations the grammar read as an expression statement before a declaration (``@A\n@B("x")\nclass C``
    sometimes parses so): the annotation names, and the parenthesised arguments that follow one."""
    prev = node.prev_named_sibling
    if prev is None or prev.type != "annotated_expression":
        return ()
    found: list[AnnotationFact] = []
    stack = [prev]
    while stack:
        current = stack.pop()
        parts = current.named_children
        for index, part in enumerate(parts):
            if part.type == "annotation":
                fact = _annotation(part)
                following = parts[index + 1] if index + 1 < len(parts) else None
                if following is not None and following.type == "parenthesized_expression" and not fact.args:
                    inner = following.named_children[0] if following.named_children else None
                    fact = AnnotationFact(fact.name, (("", squash(text(inner))),) if inner is not None else (),
                                          fact.line)
                found.append(fact)
            elif part.type == "annotated_expression":
                stack.append(part)
    return tuple(found)


def _doc(node: Node) -> str:
    prev = node.prev_named_sibling
    if prev is not None and prev.type == "annotated_expression":
        prev = prev.prev_named_sibling
    if prev is not None and prev.type in ("block_comment", "multiline_comment") and text(prev).startswith("/**"):
        body = text(prev)[3:-2]
        return "\n".join(line.strip().lstrip("*").strip() for line in body.splitlines()).strip()[:2000]
    return ""


def _params(holder: Node | None) -> tuple[tuple[str, str], ...]:
    if holder is None:
        return ()
    out: list[tuple[str, str]] = []
    vararg = False
    for child in holder.named_children:
        if child.type == "parameter_modifiers":
            vararg = "vararg" in text(child)
        elif child.type in ("parameter", "class_parameter"):
            name = next((c for c in child.named_children if c.type == "identifier"), None)
            type_ = type_name(next((c for c in child.named_children if c.type in ("user_type", "nullable_type",
                                                                                  "function_type")), None))
            out.append((text(name), type_ + "..." if vararg else type_))
            vararg = False
    return tuple(out)


def _param_key(params: tuple[tuple[str, str], ...]) -> str:
    return ",".join(t.removesuffix("...").rsplit(".", 1)[-1] + ("..." if t.endswith("...") else "") for _, t in params)


def _property_type(declared: Node | None, value: Node | None) -> str:
    """A property's declared type, else what its initialiser makes (``~Foo()``: see `local_type`), else ""."""
    found = local_type(declared, value)
    return "" if found == "?" else found


def local_type(declared: Node | None, value: Node | None) -> str:
    """What a ``val``/``var`` is declared as, else what its value makes (a call ``~callee()``: a constructor
    or a function, told apart by the resolver)."""
    if declared is not None:
        return type_name(declared)
    if value is None:
        return "?"
    if value.type == "call_expression" and value.named_children:
        callee = value.named_children[0]
        if callee.type == "call_expression" and callee.named_children:   # a trailing lambda: Foo(x) { ... }
            callee = callee.named_children[0]
        if callee.type in ("identifier", "navigation_expression"):
            return f"~{squash(text(callee)).replace('?.', '.')}()"
    if value.type in _STRINGS:
        return "String"
    return "?"


class _Extractor(Extractor):
    def __init__(self, path: str, src: bytes):
        code, self.origin = _split_bodies(src.decode("utf-8", errors="replace"))
        super().__init__(SYNTAX, path, code.encode("utf-8"), "kotlin")
        self.raw = src
        self.nodes: dict[int, CallFact] = {}

    def run(self) -> FileFacts:
        root = self.parse()
        for node in root.named_children:
            kind = node.type
            if kind == "package_header":
                self.facts.package = text(node.named_children[0]) if node.named_children else ""
            elif kind == "import":
                self.import_(node)
            elif kind in _DECLARATIONS:
                self.type_decl(node, None)
            elif kind == "function_declaration":
                self.function(node, None)
            elif kind == "property_declaration":
                self.property(node, None, static=True)
        self.calls(root)
        self.locals(root)
        self.record_values(self.assignment_pairs(root))
        facts = self.finish(root)
        self.lambdas()
        self.remap()
        return facts

    # -- declarations ---------------------------------------------------------------------------
    def import_(self, node: Node) -> None:
        target = text(node.named_children[0]) if node.named_children else ""
        alias = node.named_children[1] if len(node.named_children) > 1 else None
        wildcard = text(node).rstrip().endswith("*")
        names = (("*", "*"),) if wildcard else ((target.rsplit(".", 1)[-1], text(alias) if alias is not None
                                                 else target.rsplit(".", 1)[-1]),)
        self.facts.imports.append(ImportFact(target, names, node.start_point[0] + 1))

    def type_decl(self, node: Node, parent: str | None, companion: bool = False) -> None:
        words, annotations = _modifiers(node)
        annotations = (*_stray_annotations(node), *annotations)
        keywords = {c.type for c in node.children if not c.is_named}
        kind = "interface" if "interface" in keywords else ("enum" if "enum" in words else "class")
        if node.type == "object_declaration":
            words = (*words, "object")
        name = text(node.child_by_field_name("name"))
        key = f"{parent}.{name}" if parent else name
        supers: list[tuple[str, str]] = []
        specifiers = next((c for c in node.named_children if c.type == "delegation_specifiers"), None)
        for spec in specifiers.named_children if specifiers is not None else []:
            target = spec.named_children[0] if spec.named_children else None
            if target is not None and target.type == "constructor_invocation":
                supers.append(("extends", type_name(target.named_children[0])))
            elif target is not None:
                supers.append(("implements" if kind != "interface" else "extends", type_name(target)))
        body = next((c for c in node.named_children if c.type in ("class_body", "enum_class_body")), None)
        ctor = next((c for c in node.named_children if c.type == "primary_constructor"), None)
        params = _params(next((c for c in ctor.named_children if c.type == "class_parameters"), None)
                         if ctor is not None else None)
        sym = self.add(SymbolFact(
            key=key, name=name, kind=kind, parent=parent, line_start=node.start_point[0] + 1,
            line_end=node.end_point[0] + 1, signature=_head(self.src, node, body), modifiers=words,
            annotations=annotations, docstring=_doc(node), supers=tuple(supers), params=params,
            type_params=tuple(text(c) for tp in node.named_children if tp.type == "type_parameters"
                              for c in tp.named_children),
        ), (node.start_byte, node.end_byte))
        key = sym.key
        if ctor is not None:
            holder = next((c for c in ctor.named_children if c.type == "class_parameters"), None)
            for param in holder.named_children if holder is not None else []:
                declared = {c.type for c in param.children}
                if param.type == "class_parameter" and declared & {"val", "var"}:
                    pname = text(next(c for c in param.named_children if c.type == "identifier"))
                    ptype = type_name(next((c for c in param.named_children if c.type in ("user_type", "nullable_type")),
                                           None))
                    pwords, pannotations = _modifiers(param)
                    self.add(SymbolFact(f"{key}#{pname}", pname, "field", key, param.start_point[0] + 1,
                                        param.end_point[0] + 1, squash(text(param)), (*pwords, "property"),
                                        pannotations, type=ptype))
            self.add(SymbolFact(f"{key}#{name}({_param_key(params)})", name, "constructor", key, sym.line_start,
                                sym.line_start, f"constructor({', '.join(f'{n}: {t}' for n, t in params)})",
                                params=params), (ctor.start_byte, ctor.end_byte))
        static = "object" in sym.modifiers or companion
        for member in body.named_children if body is not None else []:
            self.member(member, sym, static)

    def member(self, node: Node, owner: SymbolFact, static: bool) -> None:
        kind = node.type
        if kind in _DECLARATIONS:
            self.type_decl(node, owner.key)
        elif kind == "companion_object":
            body = next((c for c in node.named_children if c.type == "class_body"), None)
            for inner in body.named_children if body is not None else []:
                self.member(inner, owner, True)
        elif kind == "function_declaration":
            self.function(node, owner, static)
        elif kind == "property_declaration":
            self.property(node, owner, static)
        elif kind == "secondary_constructor":
            params = _params(next((c for c in node.named_children if c.type == "function_value_parameters"), None))
            words, annotations = _modifiers(node)
            self.add(SymbolFact(f"{owner.key}#{owner.name}({_param_key(params)})", owner.name, "constructor",
                                owner.key, node.start_point[0] + 1, node.end_point[0] + 1,
                                _head(self.src, node, None), words, annotations, params=params),
                     (node.start_byte, node.end_byte))
        elif kind == "enum_entry":
            name = text(node.named_children[0]) if node.named_children else ""
            self.add(SymbolFact(f"{owner.key}#{name}", name, "field", owner.key, node.start_point[0] + 1,
                                node.end_point[0] + 1, f"{owner.name}.{name}",
                                ("public", "static", "final", "enum_constant"), type=owner.name))
        elif kind == "anonymous_initializer":
            pass   # its calls belong to the class

    def function(self, node: Node, owner: SymbolFact | None, static: bool = False) -> None:
        words, annotations = _modifiers(node)
        annotations = (*_stray_annotations(node), *annotations)
        name = text(node.child_by_field_name("name"))
        params = _params(next((c for c in node.named_children if c.type == "function_value_parameters"), None))
        types = [c for c in node.named_children if c.type in ("user_type", "nullable_type", "function_type")]
        name_node = node.child_by_field_name("name")
        receiver = next((t for t in types if name_node is not None and t.end_byte <= name_node.start_byte), None)
        result = next((t for t in types if name_node is not None and t.start_byte > name_node.end_byte), None)
        body = next((c for c in node.named_children if c.type == "function_body"), None)
        if owner is not None and owner.kind == "interface" and body is None:
            words = (*words, "abstract")
        if static:
            words = (*words, "static")
        extra = {"receiver": type_name(receiver)} if receiver is not None else {}
        if receiver is not None:
            words = (*words, "extension")
        key = f"{owner.key}#{name}({_param_key(params)})" if owner is not None else f"{name}({_param_key(params)})"
        self.add(SymbolFact(
            key=key, name=name, kind="method" if owner is not None else "function",
            parent=owner.key if owner is not None else None, line_start=node.start_point[0] + 1,
            line_end=node.end_point[0] + 1, signature=_head(self.src, node, body), modifiers=words,
            annotations=annotations, docstring=_doc(node), type=type_name(result) if result is not None else "Unit",
            params=params, extra=extra,
        ), (node.start_byte, node.end_byte))
        if name == "main" and owner is None:
            self.facts.extra["main"] = True

    def property(self, node: Node, owner: SymbolFact | None, static: bool) -> None:
        words, annotations = _modifiers(node)
        declaration = next((c for c in node.named_children if c.type == "variable_declaration"), None)
        if declaration is None:
            return
        name = text(declaration.named_children[0]) if declaration.named_children else ""
        declared = next((c for c in declaration.named_children if c.type in ("user_type", "nullable_type")), None)
        value = next((c for c in node.named_children if c.start_byte > declaration.end_byte
                      and c.type not in ("property_delegate", "getter", "setter", "modifiers")), None)
        keywords = {c.type for c in node.children if not c.is_named}
        extra = {}
        if value is not None and value.type in _FOLDABLE and value.end_byte - value.start_byte < 300:
            extra["value"] = squash(text(value))
        if "val" in keywords and (static or owner is None or "const" in words):
            words = tuple(dict.fromkeys((*words, "static", "final")))
        elif "val" in keywords:
            words = (*words, "final")
        key = f"{owner.key}#{name}" if owner is not None else name
        self.add(SymbolFact(
            key=key, name=name, kind="field", parent=owner.key if owner is not None else None,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=squash(text(node))[:300], modifiers=(*words, "property"), annotations=annotations,
            docstring=_doc(node), type=_property_type(declared, value), extra=extra,
        ), (node.start_byte, node.end_byte))

    # -- calls, locals, lines -------------------------------------------------------------------
    def callee(self, call: Node, target: Node | None = None):
        function = call.named_children[0] if call.named_children else None
        if function is None:
            return None
        if function.type == "identifier":
            return None, text(function)
        if function.type == "navigation_expression" and len(function.named_children) >= 2:
            return function.named_children[0], text(function.named_children[-1])
        if function.type == "call_expression":   # a trailing lambda: the call it follows
            return self.callee(function)
        return None

    def receiver(self, node: Node) -> list:
        kind = node.type
        if kind == "this_expression":
            return ["this"]
        if kind == "super_expression":
            return ["super"]
        if kind == "navigation_expression" and len(node.named_children) >= 2:
            return ["field", self.receiver(node.named_children[0]), text(node.named_children[-1])]
        if kind == "call_expression":
            found = self.callee(node)
            if found is None:
                return ["other"]
            obj, name = found
            return ["call", self.receiver(obj) if obj is not None else None, name, self.argc(_arguments(node))]
        if kind in _STRINGS:
            return ["type", "String"]
        return super().receiver(node)

    def calls(self, root: Node) -> None:
        for node, _tag, owner in self.owned(root, "(call_expression) @call"):
            if node.named_children and node.named_children[0].type == "call_expression" and _lambda(node) is not None:
                continue   # ``f(x) { ... }``: the inner call is the call
            found = self.callee(node)
            if found is None:
                continue
            obj, name = found
            args = _arguments(node)
            fact = CallFact(owner or "", name, self.receiver(obj) if obj is not None else None, self.argc(args),
                            node.start_point[0] + 1, "call", (), self.arg_texts(args))
            self.facts.calls.append(fact)
            self.nodes[id(fact)] = node

    def lambdas(self) -> None:
        """``extra["lambda_of"]``: for each call, the call whose trailing lambda holds it (see the docstring)."""
        found = enclosing_lambda_calls([self.nodes[id(c)] for c in self.facts.calls], _kotlin_outer_call)
        if any(i >= 0 for i in found):
            self.facts.extra["lambda_of"] = found

    def argc(self, args: Node | None) -> int:
        return 0 if args is None else sum(1 for c in args.named_children if c.type == "value_argument")

    def arg_texts(self, args: Node | None, limit: int = 3, width: int = 200) -> tuple[str, ...]:
        if args is None:
            return ()
        return tuple(squash(text(c))[:width] for c in args.named_children if c.type == "value_argument")[:limit]

    def assignment_pairs(self, root: Node) -> list[tuple[Node, Node]]:
        """``val a = x`` (locals and properties) and ``a = x`` / ``this.a = x``."""
        pairs = []
        for node, _tag, _owner in self.owned(root, "(property_declaration) @p (assignment) @a"):
            named = node.named_children
            if node.type == "assignment":
                if len(named) >= 2:
                    pairs.append((named[0], named[-1]))
                continue
            declaration = next((c for c in named if c.type == "variable_declaration"), None)
            value = next((c for c in named if declaration is not None and c.start_byte > declaration.end_byte
                          and c.type not in ("property_delegate", "getter", "setter")), None)
            if declaration is not None and value is not None and declaration.named_children:
                pairs.append((declaration.named_children[0], value))
        return pairs

    def locals(self, root: Node) -> None:
        items: list[tuple[Node, str]] = []
        for node, _tag, owner in self.owned(root, "(property_declaration) @p (parameter) @q"):
            if owner is None:
                continue
            if node.type == "parameter":
                name = next((c for c in node.named_children if c.type == "identifier"), None)
                declared = next((c for c in node.named_children if c.type in ("user_type", "nullable_type")), None)
                if name is not None:
                    items.append((name, type_name(declared)))
                continue
            declaration = next((c for c in node.named_children if c.type == "variable_declaration"), None)
            if declaration is None or not declaration.named_children or self.by_key.get(owner) is None \
                    or self.by_key[owner].kind not in ("method", "function", "constructor"):
                continue
            declared = next((c for c in declaration.named_children if c.type in ("user_type", "nullable_type")), None)
            value = next((c for c in node.named_children if c.start_byte > declaration.end_byte), None)
            items.append((declaration.named_children[0], local_type(declared, value)))
        self.record_locals(items, lambda owner, _type: owner)

    def remap(self) -> None:
        """Lines of the split source back to the file's own lines."""
        origin = self.origin

        def line(n: int) -> int:
            return origin[n - 1] if 0 < n <= len(origin) else n

        if len(origin) == self.src.count(b"\n") + 1 and origin[-1] == len(origin):
            return
        for sym in self.facts.symbols:
            sym.line_start, sym.line_end = line(sym.line_start), line(sym.line_end)
        for call in self.facts.calls:
            call.line = line(call.line)
        for imp in self.facts.imports:
            imp.line = line(imp.line)
        for table in self.facts.locals.values():
            for name, seen in table.items():
                table[name] = [(line(at), t) for at, t in seen]
        self.facts.loc = self.raw.count(b"\n") + (0 if self.raw.endswith(b"\n") or not self.raw else 1)


def _arguments(call: Node) -> Node | None:
    node = call
    while node is not None:
        args = next((c for c in node.named_children if c.type == "value_arguments"), None)
        if args is not None:
            return args
        node = node.named_children[0] if node.named_children and node.named_children[0].type == "call_expression" \
            else None
    return None


def _lambda(call: Node) -> Node | None:
    return next((c for c in call.named_children if c.type == "annotated_lambda"), None)


def _head(src: bytes, node: Node, body: Node | None) -> str:
    start = node.start_byte
    holder = next((c for c in node.named_children if c.type == "modifiers"), None)
    if holder is not None:
        for child in holder.named_children:
            if child.type == "annotation":
                start = max(start, child.end_byte)
    end = body.start_byte if body is not None else node.end_byte
    return squash(src[start:end].decode("utf-8", errors="replace"))[:300]


SYNTAX = Syntax(
    grammar=GRAMMAR,
    comments=frozenset({"line_comment", "block_comment", "multiline_comment"}),
    calls={"call_expression": (None, "function")},
    members={},
    literals={"string_literal": "String"},
    wrappers=frozenset({"parenthesized_expression"}),
    keywords=frozenset(),
    type_names=frozenset({"user_type"}),
    type_text=type_name,
    decorators=frozenset(),
)


def extract(path: str, src: bytes) -> FileFacts:
    """The facts of one Kotlin file (pure: depends only on ``path`` and ``src``)."""
    return _Extractor(path, src).run()


def _kotlin_outer_call(node: Node) -> Node | None:
    """The call a trailing lambda belongs to (``get("/x") { ... }``: the inner ``get("/x")`` call)."""
    if node.type == "annotated_lambda" and node.parent is not None and node.parent.type == "call_expression":
        outer = node.parent
        return outer.named_children[0] if outer.named_children[0].type == "call_expression" else outer
    return None
