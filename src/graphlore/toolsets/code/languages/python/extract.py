"""Python: one file's facts (classes, functions, methods, fields, imports, call sites, typed locals).

Keys are qualified names inside the module (``Class.method``, ``outer.inner``, ``Class.Inner``); the
fqn prepends the module's dotted name, which the layout computes from ``__init__.py`` folders. A name
defined twice in one scope (``try: class X ... except ImportError: class X``) keeps both, the second
keyed ``X~2``. ``__init__`` is the ``constructor``; functions in a class body are ``method``s, others
``function``s. Fields are class-level assignments and ``self.x = ...`` in methods (first assignment
wins). Module-level names (assignments, ``__all__``) are kept for import resolution, not as symbols.

Types as written: annotations, or ``~Callee()`` for a value built by a call (``x = Foo(...)``), which
resolution reads as "an instance of Foo" when Foo is a class or "what Foo returns" when Foo is a
function with a return annotation. Decorators are the symbol's ``annotations`` (dotted name without
arguments). Parameters of methods leave out ``self`` / ``cls``. A call's result called at once
(``app.post("/x")(handler)``, a decorator applied by hand) is kept in ``extra["applied"]`` as (owner, line and
name of the first call, the second call's arguments as written).
"""

from __future__ import annotations

import inspect
import re

import tree_sitter_python
from tree_sitter import Node, QueryCursor

from ...model import AnnotationFact, FileFacts, ImportFact, SymbolFact
from ..extractor import Extractor, Syntax
from ..parsing import Grammar, query, squash, text
from .fallbacks import fallback

GRAMMAR = Grammar("python", tree_sitter_python.language)
SYNTAX = Syntax(
    grammar=GRAMMAR,
    comments=frozenset({"comment"}),
    calls={"call": (None, "function")},
    members={"attribute": ("object", "attribute")},
    literals={"string": "str"},
    wrappers=frozenset({"parenthesized_expression"}),
    not_calls=frozenset({"super"}),
    receiver_calls=frozenset({"super"}),
    conditionals={"conditional_expression": (0, 2)},
    fallback=fallback,
    assignments="(assignment left: [(identifier) (attribute)] @target right: (_) @value)",
)

#: calls whose arguments are kept up to the sixth, not the third (``add_url_rule(rule, endpoint, view_func,
#: methods=[...])``): route registrations by call, read by `frameworks.python_web`
#: the keyword arguments kept of a call that makes a class field by field (a settings object's fields)
_FIELDS_KEPT = 16
_KEYWORD_ARG = re.compile(r"^\w+\s*=(?!=)")
_WIDE_CALLS = frozenset({"add_url_rule", "add_api_route", "add_route", "Route", "APIRoute"})
#: calls whose arguments past the third are kept too: Dapr's ``invoke_method(app, method, data, ..., http_verb=)``
_SIX_ARGUMENT_CALLS = _WIDE_CALLS | {"invoke_method", "invoke_method_async"}
#: calls whose ``if`` around them is kept (``extra["guards"]``): a router mounted, or a route added, only when a
#: setting has some value (``if settings.ENV == "local": app.include_router(dev.router)``)
_GUARDED_CALLS = _WIDE_CALLS | {"include_router", "register_blueprint"}
_COMPOUND = frozenset({"if_statement", "try_statement", "with_statement", "for_statement", "while_statement",
                       "elif_clause", "else_clause", "except_clause", "finally_clause", "match_statement",
                       "case_clause", "except_group_clause", "block"})
_LOCALS = """
(assignment left: (identifier) @name) @any
(for_statement left: (identifier) @name) @any
(as_pattern alias: (as_pattern_target (identifier) @name)) @any
(assignment left: (identifier) @name type: (type) @type)
(assignment left: (identifier) @name right: (call) @value)
(as_pattern (call) @value alias: (as_pattern_target (identifier) @name))
(typed_parameter (identifier) @name type: (type) @type)
(typed_default_parameter name: (identifier) @name type: (type) @type)
"""


def _docstring(body: Node | None) -> str:
    if body is None:
        return ""
    for child in body.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_children and child.named_children[0].type == "string":
            raw = text(child.named_children[0])
            raw = re.sub(r'^[rRbBuUfF]*("""|\'\'\'|"|\')', "", raw)
            raw = re.sub(r'("""|\'\'\'|"|\')$', "", raw)
            return inspect.cleandoc(raw)[:2000]
        return ""
    return ""


def dotted(node: Node | None) -> str:
    """``a.b.c`` for identifiers and attribute chains, else ""."""
    if node is None:
        return ""
    if node.type in ("identifier", "dotted_name"):
        return text(node)
    if node.type == "attribute":
        inner = dotted(node.child_by_field_name("object"))
        return f"{inner}.{text(node.child_by_field_name('attribute'))}" if inner else ""
    return ""


def _type_text(node: Node | None) -> str:
    if node is None:
        return ""
    raw = squash(text(node))
    if raw.startswith(("'", '"')):
        raw = raw.strip("'\"")
    return raw


def _base_name(node: Node) -> str:
    if node.type == "subscript":
        return _base_name(node.child_by_field_name("value"))
    return dotted(node) or squash(text(node))


def _value_type(value: Node | None) -> str:
    if value is None:
        return ""
    if value.type == "call":
        callee = dotted(value.child_by_field_name("function"))
        return f"~{callee}()" if callee else ""
    return {"string": "str", "integer": "int", "float": "float", "true": "bool", "false": "bool",
            "list": "list", "dictionary": "dict", "set": "set", "tuple": "tuple"}.get(value.type, "")


class _Extractor(Extractor):
    def __init__(self, path: str, src: bytes):
        super().__init__(SYNTAX, path, src, "python")
        self.globals: dict[str, str] = {}

    # scope: (key or None, kind: module | class | function, class key for methods, self name)
    def block(self, node: Node, scope: str | None, scope_kind: str, self_name: str | None, class_key: str | None):
        for stmt in node.named_children:
            t = stmt.type
            if t == "decorated_definition":
                definition = stmt.child_by_field_name("definition")
                decorators = [self.decorator(d) for d in stmt.named_children if d.type == "decorator"]
                self.definition(definition, decorators, scope, scope_kind, self_name, class_key, stmt)
            elif t in ("function_definition", "class_definition"):
                self.definition(stmt, [], scope, scope_kind, self_name, class_key, stmt)
            elif t in ("import_statement", "import_from_statement", "future_import_statement"):
                self.import_(stmt)
            elif t == "expression_statement":
                for child in stmt.named_children:
                    if child.type == "assignment":
                        self.assignment(child, scope, scope_kind, self_name, class_key)
            elif t == "block":
                self.block(stmt, scope, scope_kind, self_name, class_key)
            elif t in _COMPOUND:
                if scope_kind == "module" and t == "if_statement" and re.match(
                        r"__name__\s*==\s*['\"]__main__['\"]", text(stmt.child_by_field_name("condition"))):
                    self.facts.extra["main"] = True
                for child in stmt.named_children:
                    if child.type in _COMPOUND:
                        self.block(child, scope, scope_kind, self_name, class_key)

    def decorator(self, node: Node) -> AnnotationFact:
        expr = node.named_children[0] if node.named_children else None
        if expr is not None and expr.type == "call":
            name = dotted(expr.child_by_field_name("function"))
            args = []
            arg_list = expr.child_by_field_name("arguments")
            for arg in (arg_list.named_children if arg_list is not None else []):
                if arg.type == "keyword_argument":
                    args.append((text(arg.child_by_field_name("name")), squash(text(arg.child_by_field_name("value")))))
                elif arg.type != "comment":
                    args.append(("", squash(text(arg))))
            return AnnotationFact(name or squash(text(expr)), tuple(args))
        return AnnotationFact(dotted(expr) or squash(text(expr)), ())

    def definition(self, node: Node, decorators: list[AnnotationFact], scope: str | None, scope_kind: str,
                   self_name: str | None, class_key: str | None, outer: Node) -> None:
        name = text(node.child_by_field_name("name"))
        key = f"{scope}.{name}" if scope else name
        body = node.child_by_field_name("body")
        head = squash(self.src[node.start_byte:body.start_byte if body is not None else node.end_byte]
                      .decode("utf-8", errors="replace")).rstrip(":").strip()
        decorator_names = {d.name for d in decorators}
        private = name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
        if node.type == "class_definition":
            supers = []
            extra = {}
            bases = node.child_by_field_name("superclasses")
            for arg in (bases.named_children if bases is not None else []):
                if arg.type == "keyword_argument":
                    if text(arg.child_by_field_name("name")) == "metaclass":
                        extra["metaclass"] = dotted(arg.child_by_field_name("value"))
                elif arg.type not in ("comment", "list_splat", "dictionary_splat"):
                    supers.append(("extends", _base_name(arg)))
            sym = self.add(SymbolFact(
                key=key, name=name, kind="class", parent=scope, line_start=outer.start_point[0] + 1,
                line_end=node.end_point[0] + 1, signature=head, modifiers=("private",) if private else (),
                annotations=tuple(decorators), docstring=_docstring(body), supers=tuple(supers), extra=extra,
            ), (node.start_byte, node.end_byte))
            if body is not None:
                self.block(body, sym.key, "class", None, sym.key)
            return
        is_method = scope_kind == "class"
        modifiers = []
        if any(c.type == "async" for c in node.children) or head.startswith("async "):
            modifiers.append("async")
        for decorator, modifier in (("staticmethod", "static"), ("classmethod", "classmethod"),
                                    ("property", "property"), ("abc.abstractmethod", "abstract"),
                                    ("abstractmethod", "abstract")):
            if decorator in decorator_names:
                modifiers.append(modifier)
        if private:
            modifiers.append("private")
        params, first, depends = self.parameters(node.child_by_field_name("parameters"))
        extra = {}
        if is_method and "static" not in modifiers and first is not None:
            extra["self"] = first
            params = params[1:]
        if depends:
            extra["depends"] = depends
        kind = "constructor" if is_method and name == "__init__" else "method" if is_method else "function"
        sym = self.add(SymbolFact(
            key=key, name=name, kind=kind, parent=scope, line_start=outer.start_point[0] + 1,
            line_end=node.end_point[0] + 1, signature=head, modifiers=tuple(modifiers),
            annotations=tuple(decorators), docstring=_docstring(body), type=_type_text(node.child_by_field_name("return_type")),
            params=tuple(params), extra=extra,
        ), (node.start_byte, node.end_byte))
        if body is not None:
            own_self = extra.get("self") if is_method else self_name
            self.block(body, sym.key, "function", own_self, class_key if not is_method else scope)

    def parameters(self, node: Node | None) -> tuple[list[tuple[str, str]], str | None, list[list[str]]]:
        params: list[tuple[str, str]] = []
        depends: list[list[str]] = []
        first = None
        for p in (node.named_children if node is not None else []):
            t = p.type
            if t == "identifier":
                name, type_ = text(p), ""
            elif t in ("typed_parameter",):
                inner = p.named_children[0]
                name = text(inner)
                if inner.type == "list_splat_pattern":
                    name = "*" + text(inner.named_children[0]) if inner.named_children else "*"
                elif inner.type == "dictionary_splat_pattern":
                    name = "**" + text(inner.named_children[0]) if inner.named_children else "**"
                type_ = _type_text(p.child_by_field_name("type"))
            elif t in ("default_parameter", "typed_default_parameter"):
                name = text(p.child_by_field_name("name"))
                type_ = _type_text(p.child_by_field_name("type"))
                value = p.child_by_field_name("value")
                if value is not None and value.type == "call" and dotted(value.child_by_field_name("function")).endswith(
                        "Depends"):
                    args = value.child_by_field_name("arguments")
                    target = args.named_children[0] if args is not None and args.named_children else None
                    if target is not None and dotted(target):
                        depends.append([name, dotted(target)])
            elif t == "list_splat_pattern":
                name, type_ = "*" + (text(p.named_children[0]) if p.named_children else ""), ""
            elif t == "dictionary_splat_pattern":
                name, type_ = "**" + (text(p.named_children[0]) if p.named_children else ""), ""
            elif t in ("keyword_separator", "positional_separator"):
                continue
            else:
                continue
            if first is None:
                first = name
            params.append((name, type_))
        return params, first, depends

    def assignment(self, node: Node, scope: str | None, scope_kind: str, self_name: str | None,
                   class_key: str | None) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        annotation = _type_text(node.child_by_field_name("type"))
        type_ = annotation or _value_type(right)
        if scope_kind == "module" and left is not None:
            if left.type == "identifier":
                name = text(left)
                if name == "__all__" and right is not None and right.type in ("list", "tuple"):
                    self.facts.extra["all"] = [text(s).strip("'\"") for s in right.named_children if s.type == "string"]
                if name not in self.globals or type_:
                    self.globals[name] = type_
                if right is not None and right.type in ("string", "concatenated_string", "binary_operator") and \
                        right.end_byte - right.start_byte <= 300:
                    # constants as written, for part 2's path and topic folding
                    self.facts.extra.setdefault("values", {})[name] = squash(text(right))
            elif left.type in ("pattern_list", "tuple_pattern"):
                for item in left.named_children:
                    if item.type == "identifier":
                        self.globals.setdefault(text(item), "")
        elif scope_kind == "class" and left is not None and left.type == "identifier":
            self.field(scope, text(left), type_, node, right)
        elif scope_kind == "function" and self_name and class_key and left is not None and left.type == "attribute":
            obj = left.child_by_field_name("object")
            if not type_ and right is not None and right.type == "identifier" and scope in self.by_key:
                # self.repo = repo, where repo is an annotated parameter: the field has its type
                type_ = dict(self.by_key[scope].params).get(text(right), "")
            if obj is not None and obj.type == "identifier" and text(obj) == self_name:
                self.field(class_key, text(left.child_by_field_name("attribute")), type_, node, right)

    def field(self, class_key: str | None, name: str, type_: str, node: Node, value: Node | None) -> None:
        key = f"{class_key}.{name}"
        existing = self.by_key.get(key)
        if existing is not None:
            if not existing.type and type_:
                existing.type = type_
            return
        extra = {}
        if value is not None and value.type in ("string", "integer", "float") and value.end_byte - value.start_byte < 300:
            extra["value"] = squash(text(value))
        self.add(SymbolFact(
            key=key, name=name, kind="field", parent=class_key, line_start=node.start_point[0] + 1,
            line_end=node.end_point[0] + 1, signature=squash(text(node))[:200], type=type_,
            modifiers=("private",) if name.startswith("_") and not name.endswith("__") else (), extra=extra,
        ), None)

    def import_(self, node: Node) -> None:
        line = node.start_point[0] + 1
        if node.type == "import_statement":
            for item in node.named_children:
                if item.type == "dotted_name":
                    target = text(item)
                    self.facts.imports.append(ImportFact(target, ((target, target.split(".")[0]),), line))
                elif item.type == "aliased_import":
                    target = text(item.child_by_field_name("name"))
                    alias = text(item.child_by_field_name("alias"))
                    self.facts.imports.append(ImportFact(target, ((target, alias),), line))
            return
        if node.type == "future_import_statement":
            return
        module = node.child_by_field_name("module_name")
        target = text(module).replace(" ", "")
        names: list[tuple[str, str]] = []
        for item in node.named_children:
            if item == module:
                continue
            if item.type == "wildcard_import":
                names.append(("*", "*"))
            elif item.type == "dotted_name":
                names.append((text(item), text(item)))
            elif item.type == "aliased_import":
                names.append((text(item.child_by_field_name("name")), text(item.child_by_field_name("alias"))))
        if names:
            self.facts.imports.append(ImportFact(target, tuple(names), line))

    def run(self) -> FileFacts:
        root = self.parse()
        self.facts.extra["docstring"] = _docstring(root)
        self.block(root, None, "module", None, None)
        self.facts.extra["globals"] = self.globals
        for node, _tag, owner in self.owned(root, "(call) @call"):
            found = self.call_fact(node, owner or "")
            if found is not None:
                if found.name in _SIX_ARGUMENT_CALLS and found.argc > len(found.args):
                    # a route registered by call names its methods after the path, handler and endpoint name
                    found.args = self.arg_texts(node.child_by_field_name("arguments"), limit=6)
                elif found.argc > len(found.args) and found.name.rsplit(".", 1)[-1][:1].isupper() and all(
                        _KEYWORD_ARG.match(arg) for arg in found.args):
                    # ``Config(a=.., b=.., ...)``: a class made field by field (`constants.PythonFolder.typed_field`)
                    found.args = self.arg_texts(node.child_by_field_name("arguments"), limit=_FIELDS_KEPT)
                self.facts.calls.append(found)
                if found.name in _GUARDED_CALLS:
                    guard = _guard(node)
                    if guard:
                        self.facts.extra.setdefault("guards", {})[f"{found.line}:{found.name}"] = guard
            inner = node.child_by_field_name("function")
            if inner is not None and inner.type == "call" and self.callee(inner) is not None:
                # ``app.post("/x")(handler)``: a decorator called by hand; what the call made is applied to
                self.facts.extra.setdefault("applied", []).append(
                    [owner or "", inner.start_point[0] + 1, self.callee(inner)[1],
                     list(self.arg_texts(node.child_by_field_name("arguments")))])
        self.locals(root)
        self.record_values(self.assignment_pairs(root) + self.keyed_pairs(root) + returned_values(root))
        return self.finish(root)

    def keyed_pairs(self, root: Node) -> list[tuple[Node | str, Node]]:
        """Values kept under a string key, as ``name["key"]`` targets (what `PythonFolder.subscript` reads):
        ``app.config["KEY"] = v`` (Flask, Quart, any mapping), ``NAME = {"key": v, ...}`` and
        ``name.update(KEY=v)`` / ``name.update({"key": v})``."""
        out: list[tuple[Node | str, Node]] = []
        for _, match in QueryCursor(query(GRAMMAR, _KEYED)).matches(root):
            obj = squash(text(match["obj"][0]))
            if "key" in match:
                key = _string_key(match["key"][0])
                if key is not None:
                    out.append((f'{obj}["{key}"]', match["value"][0]))
            elif "dict" in match:
                out += self._dict_pairs(obj, match["dict"][0])
            elif "args" in match:
                for arg in match["args"][0].named_children:
                    if arg.type == "keyword_argument" and arg.child_by_field_name("value") is not None:
                        out.append((f'{obj}["{text(arg.child_by_field_name("name"))}"]',
                                    arg.child_by_field_name("value")))
                    elif arg.type == "dictionary":
                        out += self._dict_pairs(obj, arg)
        return out

    @staticmethod
    def _dict_pairs(obj: str, node: Node) -> list[tuple[Node | str, Node]]:
        out: list[tuple[Node | str, Node]] = []
        for pair in node.named_children:
            key_node, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
            key = _string_key(key_node) if pair.type == "pair" and key_node is not None else None
            if key is not None and value is not None:
                out.append((f'{obj}["{key}"]', value))
        return out

    def locals(self, root: Node) -> None:
        items = []
        for _, captured in QueryCursor(query(GRAMMAR, _LOCALS)).matches(root):
            name = captured["name"][0]
            if "any" in captured:
                items.append((name, "?"))
            elif "type" in captured:
                items.append((name, _type_text(captured["type"][0])))
            else:
                value = captured["value"][0]
                if value.parent is not None and value.parent.child_by_field_name("type") is not None:
                    continue
                items.append((name, _value_type(value)))
        self.record_locals(items, lambda owner, type_: owner if owner is not None and type_ and
                           self.by_key[owner].kind != "class" else None)


_KEYED = """
(assignment left: (subscript value: (_) @obj subscript: (string) @key) right: (_) @value)
(assignment left: [(identifier) (attribute)] @obj right: (dictionary) @dict)
(call function: (attribute object: (_) @obj attribute: (identifier) @update) arguments: (argument_list) @args
 (#eq? @update "update"))
"""


def _string_key(node: Node) -> str | None:
    """A plain string literal's text (no f-string, no escapes), or None."""
    if node.type != "string" or any(c.type == "interpolation" for c in node.children):
        return None
    raw = text(node)
    body = raw.lstrip("rRbBuU")
    if len(body) < 2 or body[0] not in "'\"" or body[-1] != body[0] or "\\" in body:
        return None
    inner = body.strip(body[0])
    return inner if inner and '"' not in inner and "'" not in inner else None


def _guard(node: Node) -> str:
    """The conditions of the ``if``/``elif``/``else`` arms a node sits in, inside its function (the outermost
    first), as written: ``if A and not (B)``; "" when it runs unconditionally there."""
    parts: list[str] = []
    child, parent = node, node.parent
    while parent is not None and parent.type not in ("function_definition", "class_definition", "lambda"):
        if parent.type in ("if_statement", "elif_clause") and child == parent.child_by_field_name("consequence"):
            parts.append(squash(text(parent.child_by_field_name("condition"))))
        if parent.type in ("elif_clause", "else_clause") and parent.parent is not None:
            # an arm after others runs only when none of those before it did
            before = [parent.parent] + [arm for arm in parent.parent.children
                                        if arm.type == "elif_clause" and arm.start_byte < parent.start_byte]
            parts += [f"not ({squash(text(arm.child_by_field_name('condition')))})" for arm in reversed(before)]
        child, parent = parent, parent.parent
    return f"if {' and '.join(reversed(parts))}" if parts else ""


def extract(path: str, src: bytes) -> FileFacts:
    """The facts of one Python file (pure: depends only on ``path`` and ``src``)."""
    return _Extractor(path, src).run()


def returned_values(root: Node) -> list[tuple[str, Node]]:
    """("return", value) for each ``return x`` of a function or method (the innermost ``def`` around it owns it),
    which `folding` reads as the function's value where a call of it is folded (a URL built by a helper)."""
    out: list[tuple[str, Node]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "return_statement" and node.named_children:
            out.append(("return", node.named_children[0]))
        stack.extend(node.named_children)
    return out
