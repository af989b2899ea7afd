"""TypeScript and JavaScript: one file's facts (classes, interfaces, enums, functions, methods, fields,
imports, exports and re-exports, call sites, typed locals).

``.ts``/``.mts``/``.cts`` use the TypeScript grammar, ``.tsx`` the TSX one, ``.js``/``.jsx``/``.mjs``/
``.cjs`` the JavaScript one; a Vue or Svelte single-file component (``.vue``, ``.svelte``) is its ``<script>`` blocks, read
with TypeScript's grammar when one says ``lang="ts"`` (`component_script`: the markup blanked, lines kept). Keys are qualified names inside the file (``Class.method``, ``outer.inner``);
the fqn is ``path/to/file.ts#Class.method``. Functions are ``function`` declarations and ``const f =
() => ...`` / ``function`` expressions bound to a name (also through a wrapper that returns the function it is
given: ``const f = curry((a, b) => ...)``, `FUNCTION_WRAPPERS`); a function given to a composition
(``flow(getUser, format)``, `COMPOSERS`) is a call of it from where the composition is made; ``constructor`` is the constructor; constructor
parameters with an accessibility or ``readonly`` modifier are also fields (TS parameter properties).

Exports are kept in the module's ``extra``: ``exports`` (exported name -> local name) and ``default``
(the local name; an anonymous default class or function is named ``default``); ``export ... from`` and
``export * from`` are imports marked ``reexport``; a ``require`` bound to a name is an import
(``("require", name)``, or the destructured names); ``module.exports = x`` and ``exports.a = ...`` are
exports (``module.exports = function name() {...}`` or a class: the module's default, named as written or
``default``). Types as written: annotations, ``new Foo()`` gives ``Foo``, ``x = make()`` gives
``~make()`` (what ``make`` returns).
"""

from __future__ import annotations

import re
from dataclasses import replace

import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Node, QueryCursor

from ...model import AnnotationFact, CallFact, FileFacts, ImportFact, SymbolFact
from ..extractor import Extractor, Syntax
from ..parsing import Grammar, doc_comment, query, squash, text
from .fallbacks import fallback

_CLASSES = ("class_declaration", "abstract_class_declaration", "class")
#: how deep `_Extractor.property_functions` reads objects inside objects and call arguments
_PROPERTY_DEPTH = 5
_FUNCTIONS = ("function_declaration", "generator_function_declaration", "function_expression",
              "arrow_function", "generator_function", "function")
_MODIFIER_TOKENS = frozenset({"static", "async", "abstract", "readonly", "declare", "override", "get", "set", "*"})
_CALLS = "(call_expression) @call (new_expression) @new"
_LOCALS = """
(variable_declarator name: (identifier) @name type: (type_annotation) @type)
(variable_declarator name: (identifier) @name value: (new_expression) @new)
(variable_declarator name: (identifier) @name value: (call_expression) @value)
(variable_declarator name: (identifier) @name) @any
(required_parameter pattern: (identifier) @name type: (type_annotation) @type)
(optional_parameter pattern: (identifier) @name type: (type_annotation) @type)
(required_parameter pattern: (identifier) @name) @any
(optional_parameter pattern: (identifier) @name) @any
(formal_parameters (identifier) @name) @any
"""


#: calls that return the function they are given, wrapped (``const save = curry((a, b) => ...)``): the constant is
#: that function (matched by the callee's last name: ``_.curry``, ``React.memo``)
#: calls that compose the functions they are given into one that calls each (lodash ``flow``, ramda ``pipe``)
COMPOSERS = frozenset({"flow", "flowRight", "compose", "pipe"})
FUNCTION_WRAPPERS = frozenset({"curry", "curryRight", "memoize", "debounce", "throttle", "once", "useCallback",
                               "memo", "forwardRef", "asyncHandler", "catchAsync"})


def _wrapped_function(value: Node) -> Node | None:
    """The function a wrapper call is given (its first argument), when ``value`` is such a call."""
    if value.type != "call_expression":
        return None
    callee = dotted(value.child_by_field_name("function")) or ""
    args = value.child_by_field_name("arguments")
    if callee.rsplit(".", 1)[-1] not in FUNCTION_WRAPPERS or args is None or not args.named_children:
        return None
    first = args.named_children[0]
    return first if first.type in ("arrow_function", "function_expression", "function") else None


#: single-file components: the code is in their top-level ``<script>`` blocks (Vue ``<script>`` and ``<script setup>``,
#: Svelte ``<script>`` and ``<script context="module">``), the rest is markup: a ``<script>`` inside another element
#: (Svelte's ``<svelte:head>``), a custom block (a ``<docs>`` example) or an HTML comment is not the component's code
COMPONENT_SUFFIXES = (".vue", ".svelte")
_ATTRIBUTES = rb"""((?:[^>"']|"[^"]*"|'[^']*')*)"""
_TOP_TAG = re.compile(rb"<!--.*?(?:-->|\Z)|<([A-Za-z][\w:.-]*)" + _ATTRIBUTES + rb">", re.S)
_SCRIPT_END = re.compile(rb"</script\s*>", re.I)
_SCRIPT_LANG = re.compile(rb"""\blang\s*=\s*["']?(tsx|ts|typescript)\b""", re.I)
#: HTML's void elements: never closed
_VOID = frozenset(b"area base br col embed hr img input link meta source track wbr".split())


def _element_end(src: bytes, name: bytes, start: int) -> int:
    """Where the element opened just before ``start`` ends (after its closing tag, the same-named elements inside it
    counted), or ``start`` when it is never closed (a void element: ``<br>``)."""
    depth = 1
    tags = re.compile(rb"<(/?)" + re.escape(name) + rb"(?=[\s/>])" + _ATTRIBUTES + rb">", re.I)
    for tag in tags.finditer(src, start):
        if tag.group(1):
            depth -= 1
        elif not tag.group(2).rstrip().endswith(b"/"):
            depth += 1
        if depth == 0:
            return tag.end()
    return start


def _script_blocks(src: bytes):
    """(attributes, start, end) of each top-level ``<script>`` block's content."""
    at = 0
    while (tag := _TOP_TAG.search(src, at)) is not None:
        at = tag.end()
        name = tag.group(1)
        if name is None or tag.group(2).rstrip().endswith(b"/") or name.lower() in _VOID:   # a comment, or no content
            continue
        if name.lower() == b"script":
            end = _SCRIPT_END.search(src, at)
            yield tag.group(2), at, end.start() if end else len(src)
            at = end.end() if end else len(src)
        else:
            at = _element_end(src, name, at)


def component_script(src: bytes) -> tuple[bytes, bool, bool]:
    """A single-file component as code: every byte outside its top-level ``<script>`` blocks blanked (newlines kept, so
    lines and columns stay the file's), and whether a block is TypeScript (``lang="ts"``) and TSX (``lang="tsx"``)."""
    out = bytearray(0x0A if b == 0x0A else 0x20 for b in src)
    typed = tsx = False
    for attributes, start, end in _script_blocks(src):
        out[start:end] = src[start:end]
        lang = _SCRIPT_LANG.search(attributes)
        if lang is not None:
            typed = True
            tsx = tsx or lang.group(1).lower() == b"tsx"
    return bytes(out), typed, tsx


def syntax_for(path: str) -> Syntax:
    """``.tsx`` files read with the TSX grammar, ``.ts``/``.mts``/``.cts`` with TypeScript's, the rest with
    JavaScript's."""
    if path.endswith(".tsx"):
        return TSX
    if path.endswith((".ts", ".mts", ".cts")):
        return TYPESCRIPT
    return JAVASCRIPT


def dotted(node: Node | None) -> str:
    if node is None:
        return ""
    if node.type in ("identifier", "type_identifier", "property_identifier", "this"):
        return text(node)
    if node.type in ("member_expression", "nested_type_identifier", "nested_identifier"):
        obj = node.child_by_field_name("object") or (node.named_children[0] if node.named_children else None)
        prop = node.child_by_field_name("property") or node.child_by_field_name("name") or (
            node.named_children[-1] if node.named_children else None)
        inner = dotted(obj)
        return f"{inner}.{text(prop)}" if inner else ""
    return ""


def type_text(node: Node | None) -> str:
    """A type annotation without ``:`` and generic arguments: ``Promise<User[]>`` -> ``Promise``."""
    if node is None:
        return ""
    if node.type == "type_annotation" and node.named_children:
        node = node.named_children[0]
    if node.type == "generic_type":
        return dotted(node.child_by_field_name("name")) or squash(text(node.child_by_field_name("name")))
    if node.type in ("type_identifier", "predefined_type", "nested_type_identifier"):
        return dotted(node) or text(node)
    return squash(text(node))


#: openapi-generator's own header (``NOTE: This class is auto generated by OpenAPI Generator``), searched in a file's
#: first bytes (the header carries the document's title and description before it)
OPENAPI_GENERATOR_HEADER = re.compile(rb"auto generated by OpenAPI Generator")
_GENERATOR_HEADER_BYTES = 4000


def _string_value(node: Node | None) -> str:
    if node is None:
        return ""
    raw = text(node)
    return raw[1:-1] if len(raw) >= 2 and raw[0] in "'\"`" else raw


def _key_name(node: Node) -> str:
    """A property key as a name (``list`` for ``list:`` and ``"list":``)."""
    return _string_value(node) if node.type == "string" else text(node)


def _returns(body: Node) -> list[Node]:
    """The ``return`` statements of a function's body, wherever they sit in it, not those of the functions and
    classes it declares."""
    out: list[Node] = []
    stack = [body] if body.type == "statement_block" else []
    while stack:
        node = stack.pop()
        if node.type == "return_statement":
            out.append(node)
        elif node.type not in _FUNCTIONS + _CLASSES:
            stack.extend(node.named_children)
    return out


def _jsdoc(node: Node) -> str:
    return doc_comment(node, "comment")


#: route registrations whose last argument may be the handler itself (``router.post("/x", auth, (req, res) => ...)``)
ROUTE_VERBS = frozenset({"get", "post", "put", "patch", "delete", "all", "options", "head"})


def _inline_handler(expr: Node) -> tuple[str, Node, int] | None:
    """``router.post("/x", ..., (req, res) => {...})`` at a module's top level: the handler function, named as the
    route is registered (``POST /x``), so that its calls are its own and not the whole module's."""
    if expr.type != "call_expression":
        return None
    fn, args = expr.child_by_field_name("function"), expr.child_by_field_name("arguments")
    if fn is None or fn.type != "member_expression" or args is None or len(args.named_children) < 2:
        return None
    verb = text(fn.child_by_field_name("property"))
    first, last = args.named_children[0], args.named_children[-1]
    if verb not in ROUTE_VERBS or first.type not in ("string", "template_string") or \
            last.type not in ("arrow_function", "function_expression", "function"):
        return None
    return f"{verb.upper()} {_string_value(first)}", last, expr.start_point[0] + 1


def _iife_body(expr: Node) -> Node | None:
    """The body of an immediately invoked function expression, if ``expr`` is one."""
    while expr.type in ("unary_expression", "parenthesized_expression") and expr.named_children:
        expr = expr.named_children[-1] if expr.type == "unary_expression" else expr.named_children[0]
    if expr.type != "call_expression":
        return None
    fn = expr.child_by_field_name("function")
    while fn is not None and fn.type == "parenthesized_expression" and fn.named_children:
        fn = fn.named_children[0]
    if fn is not None and fn.type in ("function_expression", "arrow_function", "function"):
        body = fn.child_by_field_name("body")
        return body if body is not None and body.type == "statement_block" else None
    return None


class _Extractor(Extractor):
    def __init__(self, path: str, src: bytes):
        syntax = syntax_for(path)
        if path.endswith(COMPONENT_SUFFIXES):
            src, typed, tsx = component_script(src)
            syntax = TSX if tsx else TYPESCRIPT if typed else JAVASCRIPT
        super().__init__(syntax, path, src, "javascript" if syntax is JAVASCRIPT else "typescript")
        self.exports: dict[str, str] = {}
        self.default: str | None = None
        #: the callee of a default export that is a call's result (``export default Api()``, ``module.exports =
        #: make()``), and the name that call wraps (its first argument, inside nested calls: ``withAuth(handler)``)
        self.default_made: str | None = None
        self.default_wraps: str | None = None
        #: the line of ``export default f(...)`` (a default export that is a call's result)
        self.default_call: int | None = None

    def head(self, node: Node, body: Node | None) -> str:
        end = body.start_byte if body is not None else node.end_byte
        return squash(self.src[node.start_byte:end].decode("utf-8", errors="replace")).rstrip("{;").strip()

    # ---- statements ---------------------------------------------------------------------------
    def statements(self, node: Node, scope: str | None) -> None:
        for stmt in node.named_children:
            self.statement(stmt, scope, exported=False, doc_node=stmt)

    def statement(self, stmt: Node, scope: str | None, exported: bool, doc_node: Node,
                  decorators: list[AnnotationFact] | None = None) -> None:
        t = stmt.type
        if t == "export_statement":
            self.export(stmt, scope)
        elif t == "import_statement" and scope is None:
            self.import_(stmt)
        elif t in _CLASSES:
            decorators = (decorators or []) + [self.decorator(d) for d in stmt.children_by_field_name("decorator")]
            self.class_(stmt, text(stmt.child_by_field_name("name")), scope, exported, doc_node, decorators)
        elif t in ("function_declaration", "generator_function_declaration"):
            self.function(stmt, text(stmt.child_by_field_name("name")), scope, exported, doc_node)
        elif t == "interface_declaration":
            self.interface(stmt, scope, exported, doc_node)
        elif t == "enum_declaration":
            self.enum(stmt, scope, exported, doc_node)
        elif t in ("lexical_declaration", "variable_declaration"):
            for declarator in stmt.named_children:
                if declarator.type == "variable_declarator":
                    self.declarator(declarator, scope, exported, doc_node, stmt)
        elif t == "statement_block" and scope is None:
            self.statements(stmt, None)   # a top-level block scoping a browser script's names
        elif t == "expression_statement" and scope is None and stmt.named_children:
            body = _iife_body(stmt.named_children[0])
            handler = _inline_handler(stmt.named_children[0])
            if body is not None:
                self.statements(body, None)   # (function () { ... })(): the pre-module module pattern
            elif handler is not None:
                name, fn, line = handler
                self.function(fn, name, None, False, stmt)
                self.facts.extra.setdefault("inline_handlers", {})[str(line)] = self.symbols[-1].key
            else:
                self.commonjs_export(stmt.named_children[0])

    def export(self, stmt: Node, scope: str | None) -> None:
        source = stmt.child_by_field_name("source")
        decorators = [self.decorator(d) for d in stmt.children_by_field_name("decorator")]
        is_default = any(c.type == "default" for c in stmt.children)
        declaration = stmt.child_by_field_name("declaration")
        if declaration is not None:
            before = len(self.symbols)
            self.statement(declaration, scope, True, stmt, decorators)
            names = [s.name for s in self.symbols[before:] if s.parent == scope]
            if declaration.type in ("lexical_declaration", "variable_declaration"):
                names = [text(d.child_by_field_name("name")) for d in declaration.named_children
                         if d.type == "variable_declarator"]
            for name in names[:1] if declaration.type not in ("lexical_declaration", "variable_declaration") else names:
                if is_default:
                    self.default = name
                else:
                    self.exports[name] = name
            return
        value = stmt.child_by_field_name("value")
        if value is not None:
            if value.type in _CLASSES or value.type in _FUNCTIONS:
                name = text(value.child_by_field_name("name")) or "default"
                if value.type in _CLASSES:
                    self.class_(value, name, scope, True, stmt, decorators)
                else:
                    self.function(value, name, scope, True, stmt)
                self.default = name
            elif value.type == "identifier":
                self.default = text(value)
            elif value.type == "call_expression":   # a wrapped handler: ``export default NextAuth(options)``
                self.default_call = stmt.start_point[0] + 1
                self.made(value)
            if scope is None and value.type in ("object", "call_expression"):
                self.property_functions("default", value)
            return
        clause = next((c for c in stmt.named_children if c.type == "export_clause"), None)
        namespace = next((c for c in stmt.named_children if c.type == "namespace_export"), None)
        line = stmt.start_point[0] + 1
        if source is not None:
            spec = _string_value(source)
            if clause is not None:
                pairs = tuple((text(s.child_by_field_name("name")),
                               text(s.child_by_field_name("alias") or s.child_by_field_name("name")))
                              for s in clause.named_children if s.type == "export_specifier")
                self.facts.imports.append(ImportFact(spec, pairs, line, reexport=True))
            elif namespace is not None:
                alias = text(namespace.named_children[-1]) if namespace.named_children else "*"
                self.facts.imports.append(ImportFact(spec, (("*", alias),), line, reexport=True))
            else:
                self.facts.imports.append(ImportFact(spec, (("*", "*"),), line, reexport=True))
            return
        if clause is not None:
            for spec in clause.named_children:
                if spec.type == "export_specifier":
                    local = text(spec.child_by_field_name("name"))
                    exported = text(spec.child_by_field_name("alias") or spec.child_by_field_name("name"))
                    if exported == "default":
                        self.default = local
                    else:
                        self.exports[exported] = local

    def made(self, call: Node) -> None:
        """Record the callee of a default export that is a call's result and the name it wraps (`default_made`)."""
        self.default_made = dotted(call.child_by_field_name("function")) or None
        while call is not None and call.type == "call_expression":
            args = call.child_by_field_name("arguments")
            first = next((a for a in (args.named_children if args is not None else []) if a.type != "comment"), None)
            if first is not None and first.type == "identifier":
                self.default_wraps = text(first)
                return
            call = first

    def commonjs_export(self, expr: Node) -> None:
        if expr.type != "assignment_expression":
            return
        left = dotted(expr.child_by_field_name("left"))
        right = expr.child_by_field_name("right")
        if left == "module.exports" and right is not None:
            if right.type == "identifier":
                self.default = text(right)
            elif right.type == "call_expression":   # ``module.exports = Api()``: what the factory made
                self.made(right)
            elif right.type in _FUNCTIONS + _CLASSES:   # ``module.exports = function charge(req) {...}``
                own = right.child_by_field_name("name")
                name = text(own) if own is not None else "default"
                if right.type in _CLASSES:
                    self.class_(right, name, None, True, expr.parent, [])
                else:
                    self.function(right, name, None, True, expr.parent)
                self.default = name
            elif right.type == "object":
                for prop in right.named_children:
                    if prop.type == "shorthand_property_identifier":
                        self.exports[text(prop)] = text(prop)
                    elif prop.type == "pair" and prop.child_by_field_name("value") is not None and \
                            prop.child_by_field_name("value").type == "identifier":
                        self.exports[text(prop.child_by_field_name("key"))] = text(prop.child_by_field_name("value"))
        elif left.startswith(("exports.", "module.exports.")) and right is not None:
            name = left.rsplit(".", 1)[-1]
            if right.type == "identifier":
                self.exports[name] = text(right)
            elif right.type in _FUNCTIONS:
                self.function(right, name, None, True, expr.parent)
                self.exports[name] = name
            elif right.type in _CLASSES:
                self.class_(right, name, None, True, expr.parent, [])
                self.exports[name] = name

    def import_(self, stmt: Node) -> None:
        source = _string_value(stmt.child_by_field_name("source"))
        clause = next((c for c in stmt.named_children if c.type == "import_clause"), None)
        pairs: list[tuple[str, str]] = []
        for part in (clause.named_children if clause is not None else []):
            if part.type == "identifier":
                pairs.append(("default", text(part)))
            elif part.type == "namespace_import":
                pairs.append(("*", text(part.named_children[-1]) if part.named_children else "*"))
            elif part.type == "named_imports":
                for spec in part.named_children:
                    if spec.type == "import_specifier":
                        name = text(spec.child_by_field_name("name"))
                        pairs.append((name, text(spec.child_by_field_name("alias") or spec.child_by_field_name("name"))))
        self.facts.imports.append(ImportFact(source, tuple(pairs), stmt.start_point[0] + 1))

    def decorator(self, node: Node) -> AnnotationFact:
        expr = node.named_children[0] if node.named_children else None
        if expr is not None and expr.type == "call_expression":
            args = expr.child_by_field_name("arguments")
            values = tuple(("", squash(text(a))) for a in (args.named_children if args is not None else [])
                           if a.type != "comment")
            return AnnotationFact(dotted(expr.child_by_field_name("function")) or squash(text(expr)), values)
        return AnnotationFact(dotted(expr) or squash(text(expr)), ())

    def modifiers(self, node: Node, exported: bool) -> list[str]:
        mods = ["export"] if exported else []
        for child in node.children:
            if child.type in _MODIFIER_TOKENS:
                mods.append({"*": "generator"}.get(child.type, child.type))
            elif child.type == "accessibility_modifier":
                mods.append(text(child))
            elif child.type == "override_modifier":
                mods.append("override")
        if node.type == "abstract_class_declaration":
            mods.append("abstract")
        name = node.child_by_field_name("name")
        if name is not None and name.type == "private_property_identifier":
            mods.append("private")
        return mods

    def class_(self, node: Node, name: str, scope: str | None, exported: bool, doc_node: Node,
               decorators: list[AnnotationFact]) -> None:
        key = f"{scope}.{name}" if scope else name
        supers: list[tuple[str, str]] = []
        for heritage in (c for c in node.named_children if c.type == "class_heritage"):
            for clause in heritage.named_children:
                if clause.type == "extends_clause":
                    value = clause.child_by_field_name("value")
                    supers.append(("extends", dotted(value) or squash(text(value))))
                elif clause.type == "implements_clause":
                    supers += [("implements", type_text(t)) for t in clause.named_children]
                else:   # JavaScript: the heritage is the expression itself
                    supers.append(("extends", dotted(clause) or squash(text(clause))))
        body = node.child_by_field_name("body")
        sym = self.add(SymbolFact(
            key=key, name=name, kind="class", parent=scope, line_start=doc_node.start_point[0] + 1,
            line_end=node.end_point[0] + 1, signature=self.head(node, body), modifiers=tuple(self.modifiers(node, exported)),
            annotations=tuple(decorators), docstring=_jsdoc(doc_node), supers=tuple(supers),
            type_params=self.type_params(node),
        ), (node.start_byte, node.end_byte))
        if body is not None:
            pending: list[AnnotationFact] = []
            for member in body.named_children:
                if member.type == "decorator":
                    pending.append(self.decorator(member))
                    continue
                member_decorators = pending + [self.decorator(d) for d in member.children_by_field_name("decorator")]
                pending = []
                self.member(member, sym.key, member_decorators)

    def type_params(self, node: Node) -> tuple[str, ...]:
        params = node.child_by_field_name("type_parameters")
        if params is None:
            return ()
        return tuple(text(p.child_by_field_name("name")) for p in params.named_children if p.type == "type_parameter")

    def member(self, node: Node, owner: str, decorators: list[AnnotationFact]) -> None:
        t = node.type
        if t in ("method_definition", "method_signature", "abstract_method_signature"):
            name = text(node.child_by_field_name("name"))
            body = node.child_by_field_name("body")
            params = self.params(node.child_by_field_name("parameters"), owner if name == "constructor" else None,
                                 node)
            kind = "constructor" if name == "constructor" else "method"
            mods = self.modifiers(node, False)
            if t == "abstract_method_signature":
                mods.append("abstract")
            self.add(SymbolFact(
                key=f"{owner}.{name}", name=name, kind=kind, parent=owner, line_start=node.start_point[0] + 1,
                line_end=node.end_point[0] + 1, signature=self.head(node, body), modifiers=tuple(mods),
                annotations=tuple(decorators), docstring=_jsdoc(node),
                type=type_text(node.child_by_field_name("return_type")), params=tuple(params),
            ), (node.start_byte, node.end_byte))
        elif t in ("public_field_definition", "field_definition", "property_signature"):
            name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
            value = node.child_by_field_name("value")
            if value is not None and value.type in ("arrow_function", "function_expression", "function"):
                self.function(value, text(name_node), owner, False, node, kind="method",
                              decorators=decorators, outer=node)
                return
            type_ = type_text(node.child_by_field_name("type")) or self.value_type(value)
            self.add(SymbolFact(
                key=f"{owner}.{text(name_node)}", name=text(name_node), kind="field", parent=owner,
                line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1, signature=squash(text(node))[:200],
                modifiers=tuple(self.modifiers(node, False)), annotations=tuple(decorators), docstring=_jsdoc(node),
                type=type_,
            ), (node.start_byte, node.end_byte))

    def value_type(self, value: Node | None) -> str:
        if value is None:
            return ""
        if value.type == "new_expression":
            return dotted(value.child_by_field_name("constructor"))
        if value.type == "call_expression":
            callee = dotted(value.child_by_field_name("function"))
            return f"~{callee}()" if callee else ""
        return {"string": "String", "number": "Number", "true": "Boolean", "false": "Boolean", "array": "Array",
                "template_string": "String"}.get(value.type, "")

    def params(self, node: Node | None, ctor_owner: str | None, ctor: Node) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for p in (node.named_children if node is not None else []):
            if p.type in ("required_parameter", "optional_parameter"):
                pattern = p.child_by_field_name("pattern")
                name = text(pattern) if pattern is not None else ""
                if pattern is not None and pattern.type == "rest_pattern":
                    name = "..." + (text(pattern.named_children[0]) if pattern.named_children else "")
                type_ = type_text(p.child_by_field_name("type"))
                out.append((name, type_))
                if ctor_owner is not None and any(c.type in ("accessibility_modifier", "readonly") or
                                                  text(c) == "readonly" for c in p.children):
                    decorators = [self.decorator(d) for d in p.children_by_field_name("decorator")]
                    self.add(SymbolFact(
                        key=f"{ctor_owner}.{name}", name=name, kind="field", parent=ctor_owner,
                        line_start=p.start_point[0] + 1, line_end=p.end_point[0] + 1, signature=squash(text(p)),
                        modifiers=tuple(text(c) for c in p.children if c.type == "accessibility_modifier") +
                        (("readonly",) if any(text(c) == "readonly" for c in p.children) else ()),
                        annotations=tuple(decorators), type=type_, extra={"parameter_property": True},
                    ), None)
            elif p.type == "identifier":
                out.append((text(p), ""))
            elif p.type in ("assignment_pattern",):
                out.append((text(p.child_by_field_name("left")), ""))
            elif p.type == "rest_pattern":
                out.append(("..." + (text(p.named_children[0]) if p.named_children else ""), ""))
            elif p.type in ("object_pattern", "array_pattern"):
                out.append((squash(text(p))[:40], ""))
        return out

    def function(self, node: Node, name: str, scope: str | None, exported: bool, doc_node: Node,
                 kind: str = "function", decorators: list[AnnotationFact] | None = None,
                 outer: Node | None = None, factory: bool = True) -> None:
        key = f"{scope}.{name}" if scope else name
        body = node.child_by_field_name("body")
        mods = self.modifiers(node, exported)
        if outer is not None:
            mods += [m for m in self.modifiers(outer, False) if m not in mods]
        params_node = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        if params_node is not None and params_node.type == "identifier":
            params = [(text(params_node), "")]
        else:
            params = self.params(params_node, None, node)
        sym = self.add(SymbolFact(
            key=key, name=name, kind=kind, parent=scope, line_start=doc_node.start_point[0] + 1,
            line_end=node.end_point[0] + 1,
            signature=self.head(doc_node if doc_node.type != "export_statement" else node, body),
            modifiers=tuple(mods), annotations=tuple(decorators or ()), docstring=_jsdoc(doc_node),
            type=type_text(node.child_by_field_name("return_type")), params=tuple(params),
            type_params=self.type_params(node),
        ), ((outer or node).start_byte, (outer or node).end_byte))
        if body is not None and body.type == "statement_block":
            self.statements(body, sym.key)
        if scope is None and body is not None and factory:
            self.object_return(sym.key, body)

    def object_return(self, key: str, body: Node) -> None:
        """``extra["object_returns"]``: a module-level function that returns one object literal (``() => ({...})``, or
        a body whose one ``return`` gives it) -> [line, the object as written]: a configuration factory NestJS loads
        (`constants.nest_config`)."""
        while body.type == "parenthesized_expression" and body.named_children:
            body = body.named_children[0]
        whole = body
        if body.type == "statement_block":
            returns = [s for s in body.named_children if s.type == "return_statement"]
            if len(returns) != 1 or not returns[0].named_children:
                return
            body = returns[0].named_children[0]
            while body.type == "parenthesized_expression" and body.named_children:
                body = body.named_children[0]
        if body.type == "object":
            self.facts.extra.setdefault("object_returns", {})[key] = [body.start_point[0] + 1, text(body)]
            if len(_returns(whole)) <= 1:   # one of several objects (a return under an ``if``) is no one's methods
                self.object_methods(key, body)

    def object_methods(self, key: str, obj: Node) -> None:
        """The functions of the object a module-level factory returns (``const Api = () => ({ list() {...},
        get: async (id) => {...} })``) as its methods ``Api.list``, ``Api.get``: a caller holding what the factory
        made (``export default Api()``, ``const api = Api()``) calls them (`resolve.TsResolver.returned`). A name the
        factory already declares (a nested function) keeps that symbol."""
        for prop in obj.named_children:
            if prop.type == "method_definition":
                name = text(prop.child_by_field_name("name"))
                if f"{key}.{name}" not in self.by_key:
                    self.member(prop, key, [])
            elif prop.type == "pair":
                name_node, value = prop.child_by_field_name("key"), prop.child_by_field_name("value")
                if name_node is not None and name_node.type in ("property_identifier", "string") and value is not None \
                        and value.type in ("arrow_function", "function_expression", "function") \
                        and f"{key}.{_key_name(name_node)}" not in self.by_key:
                    self.function(value, _key_name(name_node), key, False, prop, kind="method", outer=prop)

    def property_functions(self, path: str, node: Node, depth: int = 0) -> None:
        """The functions a module-level object literal holds as properties, as functions of their own keyed by the
        property path (``notificationsMachine.services.fetchData`` for ``const notificationsMachine =
        dataMachine("n").withConfig({services: {fetchData: async () => ...}})``, ``default.methods.save`` for a Vue
        component's ``export default {methods: {save() {...}}}``): the object is given to a framework that calls
        them (a state machine's services, a component's methods and hooks), so each is code of its own, and the
        requests and calls in its body are its own, not the module's. Objects are read inside other objects and
        in the arguments of calls (a chained ``.withConfig(...)`` too), a few levels deep. Such a function is no
        module-level factory (a component's ``data() { return {...} }`` makes state, not an API object)."""
        if depth > _PROPERTY_DEPTH:
            return
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            if callee is not None and callee.type == "member_expression":
                receiver = callee.child_by_field_name("object")
                if receiver is not None and receiver.type == "call_expression":
                    self.property_functions(path, receiver, depth + 1)
            args = node.child_by_field_name("arguments")
            for arg in (args.named_children if args is not None else []):
                if arg.type in ("object", "call_expression"):
                    self.property_functions(path, arg, depth + 1)
            return
        if node.type != "object":
            return
        for prop in node.named_children:
            name_node = prop.child_by_field_name("name") if prop.type == "method_definition" else \
                prop.child_by_field_name("key") if prop.type == "pair" else None
            if name_node is None or name_node.type not in ("property_identifier", "string"):
                continue
            name = _key_name(name_node)
            value = prop if prop.type == "method_definition" else prop.child_by_field_name("value")
            if value is None or not name:
                continue
            if value is prop or value.type in ("arrow_function", "function_expression", "function"):
                before = len(self.symbols)
                self.function(value, f"{path}.{name}", None, False, prop, outer=prop, factory=False)
                self.symbols[before].name = name
            elif value.type in ("object", "call_expression"):
                self.property_functions(f"{path}.{name}", value, depth + 1)

    def declarator(self, node: Node, scope: str | None, exported: bool, doc_node: Node, stmt: Node) -> None:
        name_node = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if value is None:
            return
        if name_node.type == "identifier" and value.type in ("arrow_function", "function_expression", "function",
                                                             "generator_function"):
            self.function(value, text(name_node), scope, exported, doc_node, outer=node)
        elif name_node.type == "identifier" and value.type in _CLASSES:
            self.class_(value, text(name_node), scope, exported, doc_node, [])
        elif name_node.type == "identifier" and (wrapped := _wrapped_function(value)) is not None:
            self.function(wrapped, text(name_node), scope, exported, doc_node, outer=node)
        elif scope is None and value.type == "call_expression" and dotted(value.child_by_field_name("function")) == "require":
            args = value.child_by_field_name("arguments")
            spec = _string_value(args.named_children[0]) if args is not None and args.named_children else ""
            if not spec:
                return
            line = node.start_point[0] + 1
            if name_node.type == "identifier":
                self.facts.imports.append(ImportFact(spec, (("require", text(name_node)),), line))
            elif name_node.type == "object_pattern":
                pairs = []
                for prop in name_node.named_children:
                    if prop.type == "shorthand_property_identifier_pattern":
                        pairs.append((text(prop), text(prop)))
                    elif prop.type == "pair_pattern":
                        pairs.append((text(prop.child_by_field_name("key")), text(prop.child_by_field_name("value"))))
                self.facts.imports.append(ImportFact(spec, tuple(pairs), line))
        elif scope is None and name_node.type == "identifier":
            self.facts.extra.setdefault("globals", {})[text(name_node)] = (
                type_text(node.child_by_field_name("type")) or self.value_type(value))
            self.property_functions(text(name_node), value)
            if value.type in ("string", "template_string", "binary_expression") and \
                    value.end_byte - value.start_byte <= 300:
                # constants as written, for part 2's path and topic folding
                self.facts.extra.setdefault("values", {})[text(name_node)] = squash(text(value))

    def interface(self, node: Node, scope: str | None, exported: bool, doc_node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        key = f"{scope}.{name}" if scope else name
        supers = []
        for clause in (c for c in node.named_children if c.type == "extends_type_clause"):
            supers += [("extends", type_text(t)) for t in clause.named_children]
        body = node.child_by_field_name("body")
        sym = self.add(SymbolFact(
            key=key, name=name, kind="interface", parent=scope, line_start=doc_node.start_point[0] + 1,
            line_end=node.end_point[0] + 1, signature=self.head(node, body),
            modifiers=tuple(self.modifiers(node, exported)), docstring=_jsdoc(doc_node), supers=tuple(supers),
            type_params=self.type_params(node),
        ), (node.start_byte, node.end_byte))
        for member in (body.named_children if body is not None else []):
            self.member(member, sym.key, [])

    def enum(self, node: Node, scope: str | None, exported: bool, doc_node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        key = f"{scope}.{name}" if scope else name
        body = node.child_by_field_name("body")
        sym = self.add(SymbolFact(
            key=key, name=name, kind="enum", parent=scope, line_start=doc_node.start_point[0] + 1,
            line_end=node.end_point[0] + 1, signature=self.head(node, body),
            modifiers=tuple(self.modifiers(node, exported)), docstring=_jsdoc(doc_node),
        ), (node.start_byte, node.end_byte))
        for member in (body.named_children if body is not None else []):
            member_name = member.child_by_field_name("name") if member.type == "enum_assignment" else member
            if member_name is not None and member.type in ("property_identifier", "enum_assignment"):
                self.add(SymbolFact(
                    key=f"{sym.key}.{text(member_name)}", name=text(member_name), kind="field", parent=sym.key,
                    line_start=member.start_point[0] + 1, line_end=member.end_point[0] + 1,
                    signature=squash(text(member)), modifiers=("static", "readonly", "enum_member"), type=name,
                ), None)

    # ---- whole file ---------------------------------------------------------------------------
    def run(self) -> FileFacts:
        root = self.parse()
        self.statements(root, None)
        self.facts.extra["exports"] = self.exports
        if self.default is not None:
            self.facts.extra["default"] = self.default
        elif self.default_call is not None:
            self.facts.extra["default_call"] = self.default_call
        if self.default is None and self.default_made:
            self.facts.extra["default_made"] = self.default_made
        if self.default is None and self.default_wraps:
            self.facts.extra["default_wraps"] = self.default_wraps
        self.calls(root)
        self.locals(root)
        self.record_values(self.assignment_pairs(root) + returned_values(root))
        self.env_destructures(root)
        self.hook_results(root)
        if b"method" in self.src:
            self.method_checks(root)
        if OPENAPI_GENERATOR_HEADER.search(self.src[:_GENERATOR_HEADER_BYTES]):
            self.request_option_methods(root)
        return self.finish(root)

    def request_option_methods(self, root: Node) -> None:
        """``extra["openapi_generator"]``: the file is openapi-generator's (its header says so); and
        ``extra["option_methods"]``: each request-options object a function declares (``const localVarRequestOptions
        = { method: 'POST', ... }``) as owner key -> variable -> ``[line, method]``, the only place a ``typescript-node``
        or ``typescript-axios`` operation writes its HTTP method (`frameworks.generated_clients`)."""
        self.facts.extra["openapi_generator"] = True
        found: dict[str, dict[str, list]] = {}
        for obj, _tag, owner in self.owned(root, "(variable_declarator name: (identifier) value: (object) @obj)"
                                                 " (return_statement (object) @obj)"):
            for prop in obj.named_children:
                key, value = prop.child_by_field_name("key"), prop.child_by_field_name("value")
                if prop.type == "pair" and key is not None and text(key) == "method" and value is not None \
                        and value.type == "string" and owner:
                    # the variable, or "return" for typescript-fetch's `xRequestOpts`: `return { path, method }`
                    name = text(obj.parent.child_by_field_name("name")) if obj.parent.type == "variable_declarator" \
                        else "return"
                    found.setdefault(owner, {})[name] = [obj.start_point[0] + 1, _string_value(value).upper()]
        if found:
            self.facts.extra["option_methods"] = found

    def method_checks(self, root: Node) -> None:
        """``extra["method_checks"]``: the string literals the file compares a ``.method`` (or a ``method`` variable)
        with (``req.method === "POST"``, ``case "GET":`` of a ``switch (method)``), upper-cased: the HTTP methods a
        handler tells apart."""
        found: set[str] = set()
        stack = [root]
        while stack:
            node = stack.pop()
            stack.extend(node.named_children)
            if node.type == "binary_expression" and node.child_by_field_name("operator") is not None and \
                    text(node.child_by_field_name("operator")) in ("===", "==", "!==", "!="):
                sides = [node.child_by_field_name("left"), node.child_by_field_name("right")]
                if any(_is_method(side) for side in sides):
                    found.update(_string_value(side) for side in sides if side is not None and side.type == "string")
            elif node.type == "switch_statement" and _is_method(node.child_by_field_name("value")):
                body = node.child_by_field_name("body")
                for case in body.named_children if body is not None else []:
                    value = case.child_by_field_name("value") if case.type == "switch_case" else None
                    if value is not None and value.type == "string":
                        found.add(_string_value(value))
        if found:
            self.facts.extra["method_checks"] = sorted(m.upper() for m in found if m)

    def hook_results(self, root: Node) -> None:
        """What a custom hook (or any function) hands out in the object it returns, and who takes it apart: a named
        function's ``return { user, logout, saveMutation: save }`` (its own return, not a callback's) as
        ``extra["returns_object"]`` (function key -> property -> the identifier it holds, None when two returns
        hold two), and ``const { logout, saveMutation } = useAuth()`` as ``extra["destructured"]`` (owner key (""
        for the module) -> local -> ``[callee as written, property, line]``, None for a name one scope takes apart
        twice): `resolve.TsResolver` follows a call of such a local (``logout()``, ``saveMutation.mutate(x)``) into
        the function that made it."""
        returned: dict[str, dict[str, str | None]] = {}
        for obj, _tag, owner in self.owned(root, "(return_statement (object) @obj) "
                                                 "(arrow_function body: (parenthesized_expression (object) @obj))"):
            function = obj.parent
            while function is not None and function.type not in _FUNCTIONS + ("method_definition",):
                function = function.parent
            named = function is not None and (function.type in ("function_declaration", "method_definition",
                                                                "generator_function_declaration")
                                              or (function.parent is not None
                                                  and function.parent.type == "variable_declarator"))
            if not owner or not named:
                continue
            props = returned.setdefault(owner, {})
            for prop in obj.named_children:
                if prop.type == "shorthand_property_identifier":
                    key, held = text(prop), text(prop)
                elif prop.type == "pair" and prop.child_by_field_name("value") is not None and \
                        prop.child_by_field_name("value").type == "identifier" and \
                        prop.child_by_field_name("key").type == "property_identifier":
                    key, held = text(prop.child_by_field_name("key")), text(prop.child_by_field_name("value"))
                else:
                    continue
                # two returns handing out two values under one name: which one the caller gets is not read
                props[key] = held if props.get(key, held) == held else None
        taken: dict[str, dict[str, list]] = {}
        for pattern, _tag, owner in self.owned(root, "(variable_declarator name: (object_pattern) @pattern "
                                                     "value: (call_expression) @call)"):
            if pattern.type != "object_pattern":
                continue
            callee = dotted(pattern.parent.child_by_field_name("value").child_by_field_name("function"))
            if not callee:
                continue
            for prop in pattern.named_children:
                key, name, _default = _destructured(prop)
                if key is None:
                    continue
                scope = taken.setdefault(owner or "", {})
                # the same name taken apart twice in one scope (two blocks): which one a call means is not read
                scope[name] = [callee, key, prop.start_point[0] + 1] if name not in scope else None
        if returned:
            self.facts.extra["returns_object"] = {k: v for k, v in returned.items() if v}
        if taken:
            self.facts.extra["destructured"] = taken

    def env_destructures(self, root: Node) -> None:
        """``const { X = "d", Y: y } = process.env`` (or ``import.meta.env``): each name an environment read, its
        default what ``??`` would give (``X = process.env.X ?? "d"``), in ``extra["assigns"]`` as if so written."""
        table = self.facts.extra.get("assigns", {})
        for pattern, _tag, owner in self.owned(root, "(variable_declarator name: (object_pattern) @pattern)"):
            value = pattern.parent.child_by_field_name("value") if pattern.parent is not None else None
            source = squash(text(value)) if value is not None else ""
            if source not in ("process.env", "import.meta.env"):
                continue
            declared = self.by_key.get(owner) if owner else None
            if declared is not None and declared.kind not in ("function", "method", "constructor", "class"):
                owner = declared.parent
            for prop in pattern.named_children:
                key, name, default = _destructured(prop)
                if key is None:
                    continue
                read = f"{source}.{key}" + (f" ?? {squash(text(default))}" if default is not None else "")
                table.setdefault(owner or "", {}).setdefault(name, []).append([prop.start_point[0] + 1, [read]])
        if table:
            self.facts.extra["assigns"] = table

    def calls(self, root: Node) -> None:
        calls = self.facts.calls
        for node, tag, owner in self.owned(root, _CALLS):
            if tag == "new":
                ctor = dotted(node.child_by_field_name("constructor"))
                if ctor and (node.parent is None or node.parent.type != "decorator"):
                    args = node.child_by_field_name("arguments")
                    calls.append(CallFact(owner or "", ctor.rsplit(".", 1)[-1], ["type", ctor], self.argc(args),
                                          node.start_point[0] + 1, "new", args=self.arg_texts(args)))
                continue
            fn = node.child_by_field_name("function")
            if fn is not None and fn.type == "super":
                calls.append(CallFact(owner or "", "super", None, self.argc(node.child_by_field_name("arguments")),
                                      node.start_point[0] + 1, "super"))
                continue
            found = self.call_fact(node, owner or "", fn)   # (a decorator's arguments are no calls: skipped there)
            if found is not None:
                calls.append(found)
                if found.name in COMPOSERS:
                    calls += self.composed(node, owner or "")

    def composed(self, node: Node, owner: str) -> list[CallFact]:
        """``flow(getUser, format)(id)``: the functions a composition is given are called by it, each a call
        of its own (by name, or ``obj.fn`` with its receiver)."""
        args = node.child_by_field_name("arguments")
        out = []
        for arg in args.named_children if args is not None else []:
            if arg.type == "identifier":
                out.append(CallFact(owner, text(arg), None, -1, arg.start_point[0] + 1))
            elif arg.type == "member_expression" and arg.child_by_field_name("object") is not None:
                out.append(CallFact(owner, text(arg.child_by_field_name("property")),
                                    self.receiver(arg.child_by_field_name("object")), -1, arg.start_point[0] + 1))
        return out

    def locals(self, root: Node) -> None:
        lines = _LOCALS.strip().splitlines()
        if self.syntax is JAVASCRIPT:
            lines = [line for line in lines if "type_annotation" not in line and "_parameter" not in line]
        else:
            lines = [line for line in lines if not line.startswith("(formal_parameters")]
        items = []
        for _, captured in QueryCursor(query(self.syntax.grammar, "\n".join(lines))).matches(root):
            name = captured["name"][0]
            declared = name.parent.child_by_field_name("value") if name.parent is not None else None
            if declared is not None and declared.type == "call_expression" and \
                    dotted(declared.child_by_field_name("function")) == "require":
                continue   # a require() binding is an import, not a local
            if "type" in captured:
                items.append((name, type_text(captured["type"][0])))
            elif "new" in captured:
                items.append((name, dotted(captured["new"][0].child_by_field_name("constructor"))))
            elif "value" in captured:
                value = captured["value"][0]
                if value.parent is not None and value.parent.child_by_field_name("type") is not None:
                    continue
                items.append((name, self.value_type(value)))
            else:
                value = name.parent.child_by_field_name("value") if name.parent is not None else None
                if value is not None and value.type in _FUNCTIONS + _CLASSES:
                    continue
                items.append((name, "?"))
        # "" = module level and anonymous callbacks (describe(() => ...))
        self.record_locals(items, lambda owner, type_: (owner or "") if type_ and (
            owner is None or self.by_key[owner].kind not in ("class", "interface", "enum", "field")) else None)


TYPESCRIPT = Syntax(
    grammar=Grammar("typescript", tree_sitter_typescript.language_typescript),
    comments=frozenset({"comment"}),
    calls={"call_expression": (None, "function")},
    members={"member_expression": ("object", "property")},
    constructions={"new_expression": "constructor"},
    literals={"string": "String", "template_string": "String", "array": "Array"},
    wrappers=frozenset({"parenthesized_expression", "non_null_expression", "as_expression", "await_expression"}),
    keywords=frozenset({"this", "super"}),
    type_text=dotted,
    not_calls=frozenset({"require"}),
    conditionals={"ternary_expression": ("consequence", "alternative")},
    fallback=fallback,
    assignments="""
(variable_declarator name: (identifier) @target value: (_) @value)
(assignment_expression left: [(identifier) (member_expression)] @target right: (_) @value)
""",
)
TSX = replace(TYPESCRIPT, grammar=Grammar("tsx", tree_sitter_typescript.language_tsx))
JAVASCRIPT = replace(TYPESCRIPT, grammar=Grammar("javascript", tree_sitter_javascript.language))


def extract(path: str, src: bytes) -> FileFacts:
    """The facts of one TS/JS file (pure: depends only on ``path`` and ``src``)."""
    return _Extractor(path, src).run()


def _is_method(node: Node | None) -> bool:
    """``x.method``, or a variable named ``method`` (``const { method } = req``), in parentheses too."""
    while node is not None and node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    if node is not None and node.type == "identifier":
        return text(node) == "method"
    if node is None or node.type != "member_expression":
        return False
    prop = node.child_by_field_name("property")
    return prop is not None and text(prop) == "method"


def _destructured(prop: Node) -> tuple[str | None, str, Node | None]:
    """(the key read, the local it binds, its default) of one property of an object pattern; (None, ...) for
    what binds no single name (a nested pattern, ``...rest``)."""
    if prop.type == "shorthand_property_identifier_pattern":
        return text(prop), text(prop), None
    if prop.type == "object_assignment_pattern":
        left = prop.child_by_field_name("left")
        if left is not None and left.type == "shorthand_property_identifier_pattern":
            return text(left), text(left), prop.child_by_field_name("right")
    if prop.type == "pair_pattern":
        key, value = prop.child_by_field_name("key"), prop.child_by_field_name("value")
        if key is None or value is None or key.type != "property_identifier":
            return None, "", None
        if value.type == "identifier":
            return text(key), text(value), None
        if value.type == "assignment_pattern" and value.child_by_field_name("left") is not None and \
                value.child_by_field_name("left").type == "identifier":
            return text(key), text(value.child_by_field_name("left")), value.child_by_field_name("right")
    return None, "", None


#: functions a ``return`` may belong to
_FUNCTION_NODES = frozenset({"function_declaration", "generator_function_declaration", "method_definition",
                             "arrow_function", "function_expression", "function", "generator_function"})


def _named(function: Node) -> bool:
    """Whether a function node is one the file declares by name (a declaration, a method, ``const f = () => ..``),
    whose returns are its symbol's; a callback passed to a call is not."""
    return function.type in ("function_declaration", "generator_function_declaration", "method_definition") or \
        function.parent is not None and function.parent.type == "variable_declarator"


def returned_values(root: Node) -> list[tuple[str, Node]]:
    """("return", value) for each ``return x`` of a named function or method's own body and each expression body of
    a named arrow function (``const url = (b) => `${b}/x```); one of a callback inside is not its function's.
    `folding` reads them as the function's value where a call of it is folded (a URL built by a helper)."""
    out: list[tuple[str, Node]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type == "arrow_function" and _named(node):
            body = node.child_by_field_name("body")
            if body is not None and body.type != "statement_block":
                out.append(("return", body))
        elif node.type == "return_statement" and node.named_children:
            around = node.parent
            while around is not None and around.type not in _FUNCTION_NODES:
                around = around.parent
            if around is not None and _named(around):
                out.append(("return", node.named_children[0]))
    return out
