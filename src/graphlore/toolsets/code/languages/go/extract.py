"""Go: one file's facts (types, their fields and methods, interfaces, functions, package-level constants and
variables, imports, call sites, typed locals) from its tree-sitter tree.

Keys. A type's key is its name; a method's ``Type.Method`` (wherever the file declares it: a method whose
receiver type is declared in another file of the package has no parent in this one, and says its receiver in
``extra["receiver"]``); a struct field or interface method ``Type.name``; a function, constant or variable
its name. The fqn is the package's import path (from ``go.mod``) then ``.`` and the key
(``example.com/shop/orders.Service.Place``).

Kinds: a struct or any other named type is a ``class`` (``modifiers`` say ``struct``), an interface an
``interface``; an embedded field or interface is a supertype (``extends``): its methods are promoted. Exported
names carry the modifier ``exported``. Types as written drop pointers and generic arguments (``*Repo`` ->
``Repo``, ``List[T]`` -> ``List``; a type defined as an instantiation, ``type H I[Cmd]``, keeps its arguments in
``extra["type_args"]``); a local made by a call is typed ``~callee()`` (what the callee returns),
by a composite literal, ``new(T)`` or ``&T{}`` as ``T``. ``func main`` of ``package main`` is an entry point.
A file whose header says ``Code generated ... DO NOT EDIT.`` is generated. A file whose build constraint no
default build meets (``//go:build wireinject``, `constraints`) says so in ``extra["build_excluded"]``: nothing
resolves to what it declares.
"""

from __future__ import annotations

import re

import tree_sitter_go
from tree_sitter import Node, QueryCursor

from ...model import FileFacts, ImportFact, SymbolFact
from ..extractor import Extractor, Syntax
from ..parsing import Grammar, enclosing_lambda_calls, innermost_owner, query, squash, text
from .constraints import excluded
from .tables import collect

GRAMMAR = Grammar("go", tree_sitter_go.language)

_CALLS = "(call_expression) @call"
_LOCALS = """
(short_var_declaration left: (expression_list) @left right: (expression_list) @right) @short
(var_spec) @var
(parameter_declaration) @param
(variadic_parameter_declaration) @param
"""
_ASSIGNMENTS = """
(short_var_declaration left: (expression_list) @target right: (expression_list) @value)
(assignment_statement left: (expression_list) @target right: (expression_list) @value)
(var_spec name: (identifier) @target value: (expression_list) @value)
"""
_STRINGS = frozenset({"interpreted_string_literal", "raw_string_literal"})
#: what a package-level constant may be folded from (literals, names, concatenation)
_FOLDABLE = frozenset({*_STRINGS, "int_literal", "identifier", "selector_expression", "binary_expression"})


def type_name(node: Node | None) -> str:
    """A type as written without pointers, generic arguments or channel/slice markers' contents kept apart:
    ``*pb.Order`` -> ``pb.Order``, ``List[T]`` -> ``List``, ``[]Item`` -> ``[]Item``."""
    if node is None:
        return ""
    kind = node.type
    if kind == "pointer_type":
        return type_name(node.named_children[0]) if node.named_children else ""
    if kind == "generic_type":
        return type_name(node.child_by_field_name("type"))
    if kind == "parenthesized_type" and node.named_children:
        return type_name(node.named_children[0])
    if kind in ("type_identifier", "qualified_type"):
        return text(node)
    return squash(re.sub(r"\[[^\]]*\]", "[]", text(node))) if kind in ("slice_type", "array_type") else squash(text(node))


def type_arguments(node: Node) -> tuple[str, ...]:
    """A generic type's arguments as written, each as `type_name` writes it: ``I[Cmd, *Res]`` -> ``Cmd``, ``Res``."""
    args = node.child_by_field_name("type_arguments")
    return tuple(type_name(a.named_children[0] if a.type == "type_elem" and a.named_children else a)
                 for a in (args.named_children if args is not None else []))


def _exported(name: str) -> tuple[str, ...]:
    return ("exported",) if name[:1].isupper() else ()


def _doc(node: Node) -> str:
    """The ``//`` comment lines right above a declaration."""
    lines: list[str] = []
    prev = node.prev_sibling
    line = node.start_point[0]
    while prev is not None and prev.type == "comment" and prev.end_point[0] == line - 1:
        raw = text(prev)
        if not raw.startswith("//"):
            break
        lines.insert(0, raw[2:].strip())
        line = prev.start_point[0]
        prev = prev.prev_sibling
    return "\n".join(lines)[:2000]


def _params(node: Node | None) -> tuple[tuple[str, str], ...]:
    if node is None:
        return ()
    if node.type != "parameter_list":
        return (("", type_name(node)),)
    out: list[tuple[str, str]] = []
    for param in node.named_children:
        if param.type not in ("parameter_declaration", "variadic_parameter_declaration"):
            continue
        type_ = type_name(param.child_by_field_name("type"))
        if param.type == "variadic_parameter_declaration":
            type_ = "..." + type_
        names = param.children_by_field_name("name")
        out += [(text(n), type_) for n in names] or [("", type_)]
    return tuple(out)


def _result(node: Node | None) -> str:
    """The first result type (``(T, error)`` -> ``T``)."""
    results = _params(node)
    return results[0][1] if results else ""


def _head(src: bytes, node: Node, body: Node | None) -> str:
    end = body.start_byte if body is not None else node.end_byte
    return squash(src[node.start_byte:end].decode("utf-8", errors="replace"))


def local_type(value: Node | None) -> str:
    """The type a value gives the variable it is assigned to (see the module docstring), "" when unknown."""
    if value is None:
        return ""
    kind = value.type
    if kind == "unary_expression" and value.named_children:
        return local_type(value.child_by_field_name("operand") or value.named_children[-1])
    if kind in ("composite_literal", "type_assertion_expression"):
        return type_name(value.child_by_field_name("type"))
    if kind == "call_expression":
        function = value.child_by_field_name("function")
        args = value.child_by_field_name("arguments")
        name = text(function)
        if name in ("new", "make") and args is not None and args.named_children:
            return type_name(args.named_children[0])
        if function is not None and function.type in ("identifier", "selector_expression"):
            return f"~{squash(name)}()"
    if kind in _STRINGS:
        return "string"
    return ""


class _Extractor(Extractor):
    def __init__(self, path: str, src: bytes):
        super().__init__(SYNTAX, path, src, "go")
        self.package = ""
        self.type_names: set[str] = set()

    def run(self) -> FileFacts:
        root = self.parse()
        self.type_names = {text(spec.child_by_field_name("name")) for decl in root.named_children
                           if decl.type == "type_declaration"
                           for spec in decl.named_children if spec.type in ("type_spec", "type_alias")}
        for node in root.named_children:
            kind = node.type
            if kind == "package_clause":
                self.package = text(node.named_children[0]) if node.named_children else ""
                self.facts.extra["package_name"] = self.package
                constraint = excluded(self.src[:node.start_byte].decode("utf-8", "replace"))
                if constraint:
                    self.facts.extra["build_excluded"] = constraint
            elif kind == "import_declaration":
                self.imports(node)
            elif kind == "type_declaration":
                for spec in node.named_children:
                    if spec.type in ("type_spec", "type_alias"):
                        self.type_spec(spec, node)
            elif kind == "function_declaration":
                self.function(node)
            elif kind == "method_declaration":
                self.method(node)
            elif kind in ("const_declaration", "var_declaration"):
                self.values(node)
        self.calls(root)
        self.locals(root)
        self.record_values(self.assignment_pairs(root) + returned_values(root))
        self.assigned(root)
        self.sends(root)
        self.topic_dispatches(root)
        self.tables(root)
        facts = self.finish(root)
        self.lambdas(root)
        return facts

    # -- declarations ---------------------------------------------------------------------------
    def imports(self, node: Node) -> None:
        for spec in node.named_children:
            specs = spec.named_children if spec.type == "import_spec_list" else [spec]
            for one in specs:
                if one.type != "import_spec":
                    continue
                target = text(one.child_by_field_name("path")).strip('"`')
                alias_node = one.child_by_field_name("name")
                alias = text(alias_node) if alias_node is not None else default_name(target)
                names = (("*", "*"),) if alias == "." else (() if alias == "_" else ((target, alias),))
                self.facts.imports.append(ImportFact(target, names, one.start_point[0] + 1))

    def type_spec(self, spec: Node, decl: Node) -> None:
        name = text(spec.child_by_field_name("name"))
        body = spec.child_by_field_name("type")
        interface = body is not None and body.type == "interface_type"
        struct = body is not None and body.type == "struct_type"
        supers: list[tuple[str, str]] = []
        mods = (*_exported(name), "struct" if struct else ("alias" if spec.type == "type_alias" else "type"))
        if interface:
            mods = _exported(name)
        type_params = spec.child_by_field_name("type_parameters")
        sym = self.add(SymbolFact(
            key=name, name=name, kind="interface" if interface else "class", parent=None,
            line_start=spec.start_point[0] + 1, line_end=spec.end_point[0] + 1,
            signature=squash(f"type {_head(self.src, spec, body if (struct or interface) else None)}"
                             + (" struct" if struct else " interface" if interface else "")),
            modifiers=mods, docstring=_doc(decl if len(decl.named_children) == 1 else spec),
            type="" if struct or interface else type_name(body),
            type_params=tuple(text(n) for p in (type_params.named_children if type_params is not None else [])
                              for n in p.children_by_field_name("name")),
        ), (spec.start_byte, spec.end_byte))
        if body is not None and body.type == "generic_type":   # ``type H I[Cmd]``: an instantiation
            sym.extra["type_args"] = type_arguments(body)
        if struct:
            fields = next((c for c in body.named_children if c.type == "field_declaration_list"), None)
            for field in fields.named_children if fields is not None else []:
                if field.type == "field_declaration":
                    self.field(field, sym, supers)
        elif interface:
            for member in body.named_children:
                if member.type == "method_elem":
                    self.interface_method(member, sym)
                elif member.type == "type_elem":
                    supers += [("extends", type_name(t)) for t in member.named_children
                               if t.type in ("type_identifier", "qualified_type", "generic_type")]
        sym.supers = tuple(supers)

    def field(self, node: Node, owner: SymbolFact, supers: list[tuple[str, str]]) -> None:
        type_ = type_name(node.child_by_field_name("type"))
        names = node.children_by_field_name("name")
        tag = node.child_by_field_name("tag")
        extra = {"tag": text(tag).strip("`")} if tag is not None else {}
        if not names:   # an embedded field: its methods and fields are promoted
            supers.append(("extends", type_))
            names_text = [type_.rsplit(".", 1)[-1]]
            modifiers: tuple[str, ...] = ("embedded",)
        else:
            names_text = [text(n) for n in names]
            modifiers = ()
        for name in names_text:
            self.add(SymbolFact(
                key=f"{owner.key}.{name}", name=name, kind="field", parent=owner.key,
                line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
                signature=squash(text(node)), modifiers=(*_exported(name), *modifiers), docstring=_doc(node),
                type=type_, extra=dict(extra),
            ), (node.start_byte, node.end_byte))

    def interface_method(self, node: Node, owner: SymbolFact) -> None:
        name = text(node.child_by_field_name("name"))
        self.add(SymbolFact(
            key=f"{owner.key}.{name}", name=name, kind="method", parent=owner.key,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=squash(text(node)), modifiers=(*_exported(name), "abstract"), docstring=_doc(node),
            type=_result(node.child_by_field_name("result")), params=_params(node.child_by_field_name("parameters")),
        ), (node.start_byte, node.end_byte))

    def function(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        type_params = node.child_by_field_name("type_parameters")
        extra = {"entry_point": True} if name == "main" and self.package == "main" else {}
        if extra:
            self.facts.extra["main"] = True
        self.add(SymbolFact(
            key=name, name=name, kind="function", parent=None,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=_head(self.src, node, body), modifiers=_exported(name), docstring=_doc(node),
            type=_result(node.child_by_field_name("result")), params=_params(node.child_by_field_name("parameters")),
            type_params=tuple(text(n) for p in (type_params.named_children if type_params is not None else [])
                              for n in p.children_by_field_name("name")),
            extra=extra,
        ), (node.start_byte, node.end_byte))

    def method(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        receiver = _params(node.child_by_field_name("receiver"))
        owner = receiver[0][1] if receiver else ""
        owner = owner.split("[", 1)[0]
        body = node.child_by_field_name("body")
        self.add(SymbolFact(
            key=f"{owner}.{name}", name=name, kind="method", parent=owner if owner in self.type_names else None,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=_head(self.src, node, body), modifiers=_exported(name), docstring=_doc(node),
            type=_result(node.child_by_field_name("result")), params=_params(node.child_by_field_name("parameters")),
            extra={"receiver": owner, **({"pointer_receiver": True} if "*" in text(
                node.child_by_field_name("receiver")) else {})},
        ), (node.start_byte, node.end_byte))

    def values(self, node: Node) -> None:
        """Package-level constants and variables: fields of the file, a foldable value kept as written."""
        const = node.type == "const_declaration"
        specs = [c for c in node.named_children if c.type in ("const_spec", "var_spec")]
        for child in node.named_children:
            if child.type == "var_spec_list":
                specs += [c for c in child.named_children if c.type == "var_spec"]
        for spec in specs:
            names = spec.children_by_field_name("name")
            declared = type_name(spec.child_by_field_name("type"))
            value_list = spec.child_by_field_name("value")
            values = value_list.named_children if value_list is not None else []
            for position, name_node in enumerate(names):
                name = text(name_node)
                if name == "_":
                    continue
                value = values[position] if position < len(values) else None
                extra = {}
                if value is not None and value.type in _FOLDABLE and value.end_byte - value.start_byte < 300:
                    extra["value"] = squash(text(value))
                    if const or value.type in _STRINGS:
                        self.facts.extra.setdefault("values", {})[name] = extra["value"]
                elif value is not None and value.type == "call_expression" and value.end_byte - value.start_byte < 300:
                    # ``var Topic = topicFromEnv()``: folded as the call is (an environment read, a helper's return)
                    self.facts.extra.setdefault("values", {})[name] = squash(text(value))
                type_ = declared or local_type(value)
                if type_:
                    self.facts.extra.setdefault("globals", {})[name] = type_
                self.add(SymbolFact(
                    key=name, name=name, kind="field", parent=None,
                    line_start=spec.start_point[0] + 1, line_end=spec.end_point[0] + 1,
                    signature=squash(f"{'const' if const else 'var'} {text(spec)}")[:300],
                    modifiers=(*_exported(name), "const" if const else "var"), docstring=_doc(spec),
                    type=type_ if not type_.startswith("~") else "", extra=extra,
                ), (spec.start_byte, spec.end_byte))

    # -- calls and locals -----------------------------------------------------------------------
    def calls(self, root: Node) -> None:
        calls = self.facts.calls
        self.call_nodes: dict[int, Node] = {}
        for node, _tag, owner in self.owned(root, _CALLS):
            found = self.call_fact(node, owner or "")
            if found is not None:
                calls.append(found)
                self.call_nodes[id(found)] = node
                field, holder = stored_field(node)
                if field:
                    self.facts.extra.setdefault("stored_in", []).append([found.line, found.name, field, holder])

    def arg_texts(self, args: Node | None, limit: int = 6, width: int = 200) -> tuple[str, ...]:
        """Six arguments, not three: Go helpers and libraries name what they reach past the third (a go-kit
        endpoint helper's method, watermill's ``AddHandler(name, topic, sub, pubTopic, ...)``)."""
        return super().arg_texts(args, limit, width)

    def lambdas(self, root: Node) -> None:
        """``extra["lambda_of"]``: for each call made in a function literal passed to another call
        (``r.Route("/api", func(r chi.Router) { r.Get(...) })``), the index of that call, else -1."""
        found = enclosing_lambda_calls([self.call_nodes[id(c)] for c in self.facts.calls], _go_outer_call)
        if any(i >= 0 for i in found):
            self.facts.extra["lambda_of"] = found

    def composites(self, found: list[tuple[Node, Node | None]]) -> None:
        """The text of the struct literal (or call) each local is made from, by owner and name, in
        ``extra["composites"]``: what a literal sets (a Kafka writer's ``Topic``)."""
        kept = []
        for name, value in found:
            while value is not None and value.type == "unary_expression":
                value = value.child_by_field_name("operand")
            if value is not None and value.type in ("composite_literal", "call_expression"):
                kept.append((name, value))
        if not kept:
            return
        owners = innermost_owner(self.spans, [name.start_byte for name, _ in kept])
        table = self.facts.extra.setdefault("composites", {})
        for (name, value), owner in zip(kept, owners, strict=True):
            table.setdefault(owner or "", {})[text(name)] = squash(text(value))[:400]

    def sends(self, root: Node) -> None:
        """``extra["sends"]``: each ``ch <- v`` whose channel is a method's result (``producer.Input() <- msg``,
        sarama's async producer), as ``[owner, line, channel, value]`` written."""
        found = []
        for node, _tag, owner in self.owned(root, "(send_statement channel: (call_expression) value: (_)) @send"):
            channel, value = node.child_by_field_name("channel"), node.child_by_field_name("value")
            if channel is not None and value is not None:
                found.append([owner or "", node.start_point[0] + 1, squash(text(channel))[:200],
                              squash(text(value))[:400]])
        if found:
            self.facts.extra["sends"] = found

    def topic_dispatches(self, root: Node) -> None:
        """``extra["topic_dispatch"]``: each branch taken on a message's topic, ``switch m.Topic { case X: ... }``
        and ``if m.Topic == X { ... }`` (``*m.TopicPartition.Topic`` too), as ``[owner, subject, [values], first
        line, last line]`` of the branch's body: a consumer that reads several topics hands each to its handler."""
        found = []
        query_text = ("(expression_switch_statement value: (_) @subject) @switch "
                      "(if_statement condition: (binary_expression operator: \"==\") @cond) @if")
        for node, tag, owner in self.owned(root, query_text):
            if tag == "switch":
                subject = _topic_subject(node.child_by_field_name("value"))
                if subject is None:
                    continue
                for case in node.named_children:
                    values = case.child_by_field_name("value") if case.type == "expression_case" else None
                    if values is not None:   # the case's last statement ends it (its node runs on to the next)
                        body = [c for c in case.named_children if c.start_byte >= values.end_byte]
                        last = body[-1].end_point if body else case.start_point
                        end = last[0] - 1 if last[1] == 0 and last[0] > case.start_point[0] else last[0]
                        found.append([owner or "", subject, [squash(text(v)) for v in values.named_children],
                                      case.start_point[0] + 1, end + 1])
            elif tag == "if":
                cond = node.child_by_field_name("condition")
                sides = [cond.child_by_field_name("left"), cond.child_by_field_name("right")]
                subjects = [_topic_subject(side) for side in sides]
                at = 0 if subjects[0] is not None else 1 if subjects[1] is not None else -1
                body = node.child_by_field_name("consequence")
                if at < 0 or body is None or sides[1 - at] is None:
                    continue
                found.append([owner or "", subjects[at], [squash(text(sides[1 - at]))], node.start_point[0] + 1,
                              body.end_point[0] + 1])
        if found:
            self.facts.extra["topic_dispatch"] = found

    def tables(self, root: Node) -> None:
        """``extra["tables"]`` and ``extra["ranges"]``: composite-literal tables and the loops over them (`tables`);
        none for a ``_test.go`` file (its table-driven tests register nothing a service serves)."""
        if self.path.endswith("_test.go"):
            return
        found, ranges = collect(root, lambda nodes: innermost_owner(self.spans, [n.start_byte for n in nodes]))
        if found:
            self.facts.extra["tables"] = found
        if ranges:
            self.facts.extra["ranges"] = ranges

    def assigned(self, root: Node) -> None:
        """Package-level names that a function assigns (``baseUrl = os.Getenv(...)``): not constants."""
        names = set(self.facts.extra.get("values", {}))
        if not names:
            return
        found = set()
        for node, _tag, owner in self.owned(root, "(assignment_statement left: (expression_list (identifier) @name))"):
            if owner is not None and text(node) in names:
                found.add(text(node))
        if found:
            self.facts.extra["assigned"] = sorted(found)

    def assignment_pairs(self, root: Node) -> list[tuple[Node | str, Node]]:
        """``a := x``, ``a, b = x, y`` (pairwise), ``a, err := f(x)`` (``a`` is the call's), ``*p = x``, ``s.f = x`` and
        ``var a = x``; a struct literal's
        keyed field, ``T{f: x}`` or ``&pkg.T{f: x}``, as a write of ``T{}.f`` (what a constructor sets a field to)."""
        pairs: list[tuple[Node | str, Node]] = list(self.keyed_fields(root))
        for _, match in QueryCursor(query(GRAMMAR, _ASSIGNMENTS)).matches(root):
            left, right = match["target"][0], match["value"][0]
            targets = left.named_children if left.type == "expression_list" else [left]
            values = right.named_children if right.type == "expression_list" else [right]
            if len(targets) == len(values):
                pairs += list(zip(targets, values, strict=True))
            elif len(values) == 1 and values[0].type == "call_expression":
                pairs.append((targets[0], values[0]))   # ``conn, err := grpc.NewClient(addr)``: the first result
        return pairs

    @staticmethod
    def keyed_fields(root: Node):
        """(``T{}.field``, value) of every keyed element of a struct literal (``&T{baseURL: x}``)."""
        stack = [root]
        while stack:
            node = stack.pop()
            stack.extend(node.named_children)
            if node.type != "composite_literal":
                continue
            type_node, body = node.child_by_field_name("type"), node.child_by_field_name("body")
            if type_node is None or body is None or type_node.type not in ("type_identifier", "qualified_type"):
                continue
            type_ = text(type_node).rsplit(".", 1)[-1]
            for element in body.named_children:
                parts = element.named_children if element.type == "keyed_element" else []
                if len(parts) == 2 and parts[0].named_children and parts[1].named_children:
                    key, value = parts[0].named_children[0], parts[1].named_children[0]
                    if key.type in ("identifier", "field_identifier"):
                        yield f"{type_}{{}}.{text(key)}", value

    def locals(self, root: Node) -> None:
        items: list[tuple[Node, str]] = []
        closures: list[tuple[Node, str, Node]] = []
        composites: list[tuple[Node, Node | None]] = []
        for _, match in QueryCursor(query(GRAMMAR, _LOCALS)).matches(root):
            if "short" in match:
                left = [n for n in match["left"][0].named_children if n.type == "identifier"]
                right = match["right"][0].named_children
                for position, name in enumerate(left):
                    value = right[position] if len(right) == len(left) else (right[0] if position == 0 and right else None)
                    items.append((name, local_type(value) or "?"))
                    composites.append((name, value))
            elif "var" in match:
                spec = match["var"][0]
                if spec.parent is not None and spec.parent.parent is not None and spec.parent.type == "var_declaration" \
                        and spec.parent.parent.type == "source_file":
                    continue
                declared = type_name(spec.child_by_field_name("type"))
                values = spec.child_by_field_name("value")
                for position, name in enumerate(spec.children_by_field_name("name")):
                    value = values.named_children[position] if values is not None and position < len(
                        values.named_children) else None
                    items.append((name, declared or local_type(value) or "?"))
            else:
                param = match["param"][0]
                type_ = type_name(param.child_by_field_name("type"))
                if param.type == "variadic_parameter_declaration":
                    type_ = "[]" + type_
                literal = param.parent.parent if param.parent is not None else None
                if literal is not None and literal.type == "func_literal":
                    closures += [(name, type_, literal) for name in param.children_by_field_name("name")]
                else:
                    items += [(name, type_) for name in param.children_by_field_name("name")]
        self.record_locals(items, lambda owner, _type: owner)
        self.closure_params(closures)
        self.composites(composites)

    def closure_params(self, params: list[tuple[Node, str, Node]]) -> None:
        """A function literal's parameters name their type inside the literal's body only: from its first line
        after the one the literal opens on (where the enclosing function's names are still used:
        ``h.repo.Update(id, func(h *Hour) ... {``), to its closing line, where the name the parameter shadowed
        (a receiver, a parameter, a local) takes its type back. A literal whose body is on one line has the
        parameter on that line (a line cannot tell its inside from its outside) and the shadowed name's type
        again from the next line."""
        if not params:
            return
        owners = innermost_owner(self.spans, [name.start_byte for name, _, _ in params])
        table = self.facts.locals
        for (name_node, type_, literal), owner in zip(params, owners, strict=True):
            if owner is None:
                continue
            body = literal.child_by_field_name("body") or literal
            opens, first, last = literal.start_point[0] + 1, body.start_point[0] + 1, body.end_point[0] + 1
            declared = table.setdefault(owner, {}).setdefault(text(name_node), [])
            before = [(line, t) for line, t in declared if line <= opens and t != "?"]
            if last <= first:   # one line: the parameter on that line, the shadowed name's type from the next
                declared.append((name_node.start_point[0] + 1, type_))
                if before:
                    declared.append((last + 1, before[-1][1]))
                declared.sort(key=lambda entry: entry[0])
                continue
            declared.append((first + 1, type_))
            if before:
                declared.append((last, before[-1][1]))   # the shadowed name's type again after the literal
            declared.sort(key=lambda entry: entry[0])


def default_name(path: str) -> str:
    """The name an import path is used by without an alias: its last element, without a ``/vN`` major
    version or a ``.vN`` suffix (``gopkg.in/yaml.v3`` -> ``yaml``) and without a ``go-`` / ``-go`` affix
    (``segmentio/kafka-go`` -> ``kafka``), the convention such packages follow."""
    parts = [p for p in path.split("/") if p]
    if len(parts) > 1 and re.fullmatch(r"v\d+", parts[-1]):
        parts.pop()
    last = re.sub(r"\.v\d+$", "", parts[-1] if parts else path)
    last = re.sub(r"^go-|-go$|\.go$", "", last)   # kafka-go, go-redis: the package names itself without "go"
    return last.replace("-", "_").replace(".", "_")


SYNTAX = Syntax(
    grammar=GRAMMAR, comments=frozenset({"comment"}), calls={"call_expression": (None, "function")},
    members={"selector_expression": ("operand", "field")}, decorators=frozenset(), type_text=type_name,
    constructions={"composite_literal": "type", "type_assertion_expression": "type"},
    literals=dict.fromkeys(_STRINGS, "string"), wrappers=frozenset({"parenthesized_expression", "unary_expression"}),
    type_names=frozenset({"type_identifier", "qualified_type"}), header_bytes=4000,
    generated_header=re.compile(rb"(?m)^// Code generated .* DO NOT EDIT\.\s*$"),
)


def extract(path: str, src: bytes) -> FileFacts:
    """The facts of one Go file (pure: depends only on ``path`` and ``src``)."""
    return _Extractor(path, src).run()


def _go_outer_call(node: Node) -> Node | bool | None:
    """The call a ``func`` literal argument belongs to; a function or method declaration ends the search."""
    if node.type in ("function_declaration", "method_declaration"):
        return False
    if node.type == "func_literal" and node.parent is not None and node.parent.type == "argument_list":
        return node.parent.parent or False
    return None


def stored_field(node: Node) -> tuple[str, str]:
    """The struct field a call's value is stored in, through a chain of method calls on it
    (``get: grpctransport.NewClient(..).Endpoint()`` in a struct literal, ``s.get = helper(..)``), and what holds
    that field as written: the struct literal's type (``&Accounts{..}``: ``Accounts{}``, as a value of it is
    written) or the value assigned to (``s``), "" when not written; ("", "") when the value is stored in no field. Two types may declare a field of one
    name: the holder says whose it is."""
    current = node
    while (current.parent is not None and current.parent.type == "selector_expression"
           and current.parent.parent is not None and current.parent.parent.type == "call_expression"
           and current.parent.parent.child_by_field_name("function") == current.parent):
        current = current.parent.parent
    parent = current.parent
    if parent is not None and parent.type == "literal_element":
        current, parent = parent, parent.parent
    if parent is not None and parent.type == "keyed_element":
        elements = parent.named_children
        if len(elements) == 2 and elements[1] == current:
            key = elements[0].named_children[0] if elements[0].type == "literal_element" and \
                elements[0].named_children else elements[0]
            if key.type not in ("identifier", "field_identifier"):
                return "", ""
            literal = parent.parent.parent if parent.parent is not None else None
            written = literal.child_by_field_name("type") if literal is not None and \
                literal.type == "composite_literal" else None
            return text(key), f"{text(written)}{{}}" if written is not None else ""
        return "", ""
    if parent is not None and parent.type == "expression_list" and parent.parent is not None and \
            parent.parent.type == "assignment_statement" and parent.parent.child_by_field_name("right") == parent:
        left = parent.parent.child_by_field_name("left")
        position = parent.named_children.index(current)
        targets = left.named_children if left is not None else []
        if position < len(targets) and targets[position].type == "selector_expression":
            operand = targets[position].child_by_field_name("operand")
            return text(targets[position].child_by_field_name("field")), text(operand) if operand is not None else ""
    return "", ""


def returned_values(root: Node) -> list[tuple[str, Node]]:
    """("return", first value) for each ``return x`` / ``return x, err`` of a function or method's own body (not
    one of a function literal inside it), which `folding` reads as the function's value where a call of it is
    folded (a URL built by a helper)."""
    out: list[tuple[str, Node]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "return_statement" or not node.named_children:
            continue
        around = node.parent
        while around is not None and around.type not in ("function_declaration", "method_declaration", "func_literal"):
            around = around.parent
        if around is None or around.type == "func_literal":
            continue
        value = node.named_children[0]
        if value.type == "expression_list":
            value = value.named_children[0] if value.named_children else None
        if value is not None:
            out.append(("return", value))
    return out


def _topic_subject(node: Node | None) -> str | None:
    """A message's topic as a branch reads it (``m.Topic``, ``*msg.TopicPartition.Topic``), else None."""
    while node is not None and node.type in ("unary_expression", "parenthesized_expression"):
        node = node.named_children[-1] if node.named_children else None
    if node is None or node.type != "selector_expression" or text(node.child_by_field_name("field")) != "Topic":
        return None
    return squash(text(node))
