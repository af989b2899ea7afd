"""C#: one file's facts (namespaces, classes, structs, interfaces, records, enums, their methods, constructors,
properties and fields, attributes, using directives, call sites, typed locals) from its tree-sitter tree.

Keys: a type's key is its nesting (``Outer.Inner``), a member's ``Type.Name`` (overloads ``~2``, ``~3``); the
fqn is the namespace then ``.`` and the key (``Shop.Orders.OrderService.Place``). A file with one namespace
(block or file-scoped) declares it as its package; a file with several keys its types by their full
namespace instead. A struct is a ``class`` (``modifiers`` say ``struct``), a property a ``field``
(``property``), a positional record parameter a field of the record. Attributes are kept as annotations
(``[HttpGet("{id}")]`` -> ``HttpGet`` with its arguments). ``BaseAddress = new Uri(x)`` assignments are kept
in ``extra["base_addresses"]`` (what an ``HttpClient``'s relative URLs start with), with the ``registrar`` and
the ``client`` type when they configure a client registered with ``AddHttpClient<T>(...)``; so are the
``Address = new Uri(x)`` of ``AddGrpcClient<T>(...)`` registrations (a gRPC client's channel), and the
``http://<app-id>`` a Dapr ``new T(DaprClient.CreateInvokeHttpClient("app-id"))`` gives ``T``'s client. Generic arguments are
dropped from types and called names (``Task<Cart>`` -> ``Task``; a method's ``Task<T>`` / ``ValueTask<T>`` keeps
what awaiting it gives in ``extra["awaits"]``, ``T``); a generic call's are kept in
``extra["generic_calls"]`` (``[line, name, [types]]``), a generic base type's in ``extra["generic_bases"]``
(type key -> ``[[base, [types]]]``), a local made as a generic type's in ``extra["made_type_arguments"]`` (owner
-> name -> ``[[line, [types]]]``), the members a ``new HttpRequestMessage { ... }`` initialiser sets in
``extra["initialised"]`` (``[owner, line, {member: value}]``), and an Aspire AppHost's ``AddProject<T>("name")`` in
``extra["aspire_projects"]``.
"""

from __future__ import annotations

import re

import tree_sitter_c_sharp
from tree_sitter import Node, QueryCursor

from ...model import AnnotationFact, CallFact, FileFacts, ImportFact, SymbolFact
from ..extractor import Extractor, Syntax
from ..parsing import Grammar, innermost_owner, query, squash, text

GRAMMAR = Grammar("csharp", tree_sitter_c_sharp.language)

_TYPES = {"class_declaration": "class", "struct_declaration": "class", "interface_declaration": "interface",
          "record_declaration": "record", "record_struct_declaration": "record", "enum_declaration": "enum"}
_NAMESPACES = ("namespace_declaration", "file_scoped_namespace_declaration")
_CALLS = "(invocation_expression) @call (object_creation_expression) @new"
_LOCALS = """
(variable_declaration type: (_) @type (variable_declarator name: (identifier) @name) @decl)
(parameter type: (_) @type name: (identifier) @name)
(foreach_statement type: (_) @type left: (identifier) @name)
"""
_CREATIONS = frozenset({"object_creation_expression", "implicit_object_creation_expression"})
_STRINGS = frozenset({"string_literal", "verbatim_string_literal", "raw_string_literal", "interpolated_string_expression"})


def _unbound_arguments(node: Node) -> str:
    """A base type's type arguments as C# writes an unbound generic (``IHandler<Paid>`` -> ``<>``, ``Map<K, V>`` ->
    ``<,>``, none -> ``""``): how many there are tells ``IHandler<T>`` from ``IHandler`` (the resolver's arity)."""
    named = node.named_children[0] if node.type == "primary_constructor_base_type" and node.named_children else node
    if named.type == "qualified_name":
        named = named.child_by_field_name("name") or named
    arguments = next((c for c in named.named_children if c.type == "type_argument_list"), None) \
        if named.type == "generic_name" else None
    return "<" + "," * (len(arguments.named_children) - 1) + ">" if arguments is not None and \
        arguments.named_children else ""


def type_name(node: Node | None) -> str:
    """A type as written without generic arguments or ``?``: ``Task<List<Cart>>`` -> ``Task``."""
    if node is None:
        return ""
    kind = node.type
    if kind == "generic_name":
        return text(node.named_children[0]) if node.named_children else ""
    if kind == "nullable_type" and node.named_children:
        return type_name(node.named_children[0])
    if kind == "qualified_name":
        return ".".join(filter(None, (type_name(node.child_by_field_name("qualifier")),
                                      type_name(node.child_by_field_name("name")))))
    if kind == "array_type":
        return type_name(node.child_by_field_name("type")) + "[]"
    return squash(re.sub(r"<.*>", "", text(node)))


def _modifiers(node: Node) -> tuple[tuple[str, ...], tuple[AnnotationFact, ...]]:
    words: list[str] = []
    attributes: list[AnnotationFact] = []
    for child in node.children:
        if child.type == "modifier":
            words.append(text(child))
        elif child.type == "attribute_list":
            for attribute in child.named_children:
                if attribute.type == "attribute":
                    attributes.append(_attribute(attribute))
    return tuple(words), tuple(attributes)


def _attribute(node: Node) -> AnnotationFact:
    name = type_name(node.child_by_field_name("name")).removesuffix("Attribute")
    args: list[tuple[str, str]] = []
    holder = next((c for c in node.named_children if c.type == "attribute_argument_list"), None)
    for arg in holder.named_children if holder is not None else []:
        key = arg.child_by_field_name("name")
        value = arg.named_children[-1] if arg.named_children else None
        args.append((text(key) if key is not None else "", squash(text(value))))
    return AnnotationFact(name, tuple(args))


def _doc(node: Node) -> str:
    lines: list[str] = []
    prev = node.prev_named_sibling
    while prev is not None and prev.type == "comment" and text(prev).startswith("///"):
        lines.insert(0, re.sub(r"</?\w+[^>]*>", "", text(prev)[3:]).strip())
        prev = prev.prev_named_sibling
    return "\n".join(line for line in lines if line)[:2000]


def _param_lines(node: Node | None) -> dict[str, int]:
    """The line each parameter of a record's or a primary constructor's list is written on, by name."""
    if node is None:
        return {}
    return {text(name): name.start_point[0] + 1 for child in node.named_children if child.type == "parameter"
            for name in [child.child_by_field_name("name")] if name is not None}


def _params(node: Node | None) -> tuple[tuple[str, str], ...]:
    if node is None:
        return ()
    out: list[tuple[str, str]] = []
    pending = ""
    for child in node.named_children:
        if child.type == "parameter":
            out.append((text(child.child_by_field_name("name")), type_name(child.child_by_field_name("type"))))
        elif node.field_name_for_named_child(node.named_children.index(child)) == "type":
            pending = type_name(child)   # a ``params T[] x`` parameter is spread over its list's children
        elif child.type == "identifier" and pending:
            out.append((text(child), "..." + pending))
            pending = ""
    return tuple(out)


def awaited_type(node: Node | None) -> str:
    """What awaiting a ``Task<T>`` / ``ValueTask<T>`` gives (``T``, as `type_name` writes it), else ""."""
    if node is None or node.type != "generic_name" or len(node.named_children) < 2 or \
            text(node.named_children[0]) not in ("Task", "ValueTask"):
        return ""
    arguments = node.named_children[1].named_children
    return type_name(arguments[0]) if len(arguments) == 1 else ""


def local_type(type_node: Node | None, value: Node | None) -> str:
    """What a local is declared as; for ``var``, what its value makes (``new T()`` -> ``T``, a string,
    ``sp.GetRequiredService<T>()`` -> ``T``, a call -> ``~callee()``), else ``?``."""
    written = type_name(type_node)
    if written and written != "var":
        return written
    while value is not None and value.type == "await_expression" and value.named_children:
        value = value.named_children[0]
    kind = value.type if value is not None else ""
    if kind in _STRINGS or kind == "object_creation_expression":
        return "string" if kind in _STRINGS else type_name(value.child_by_field_name("type"))
    function = value.child_by_field_name("function") if kind == "invocation_expression" else None
    if (located := _located_service(function)) is not None:
        return located
    callable_types = ("identifier", "member_access_expression", "generic_name")
    return f"~{re.sub(r'<[^<>]*>', '', squash(text(function)))}()" if function is not None and \
        function.type in callable_types else "?"


#: the service locator's methods whose one type argument is the type of what they give
SERVICE_LOCATORS = frozenset({"GetRequiredService", "GetService", "GetRequiredKeyedService", "GetKeyedService"})


def _located_service(function: Node | None) -> str | None:
    """``T`` for a call ``x.GetRequiredService<T>()`` / ``GetService<T>()`` (keyed ones too: dependency injection's
    service locator gives the ``T`` it is asked for), else None."""
    name = function.child_by_field_name("name") if function is not None and \
        function.type == "member_access_expression" else function
    if name is None or name.type != "generic_name" or text(name.named_children[0]) not in SERVICE_LOCATORS:
        return None
    arguments = next((c for c in name.named_children if c.type == "type_argument_list"), None)
    types = [c for c in arguments.named_children] if arguments is not None else []
    return type_name(types[0]) or None if len(types) == 1 and types[0].type != "generic_name" else None


class _Extractor(Extractor):
    def __init__(self, path: str, src: bytes):
        super().__init__(SYNTAX, path, src, "csharp")
        self.namespaces: list[str] = []

    def run(self) -> FileFacts:
        root = self.parse()
        found = [text(n.child_by_field_name("name")) for n in _walk_namespaces(root)]
        self.namespaces = list(dict.fromkeys(found))
        self.single = len(self.namespaces) <= 1
        self.facts.package = self.namespaces[0] if self.namespaces and self.single else ""
        self.declarations(root, None, "")
        self.calls(root)
        self.locals(root)
        pairs = self.assignment_pairs(root)
        self.record_values(pairs + returned_values(root))
        self.record_made(pairs)
        # ASP.NET API Versioning's default version (``options.DefaultApiVersion = new ApiVersion(1, 0)``): the
        # version a controller that declares none serves (an object made is no value `record_values` keeps)
        defaults = [squash(text(value)) for target, value in pairs
                    if text(target).rsplit(".", 1)[-1].strip() == "DefaultApiVersion"]
        if defaults:
            self.facts.extra["default_api_versions"] = defaults
        shadows = local_function_names(root)
        if shadows:   # a call of one of these names inside a method may be the local function, not a method
            self.facts.extra["local_functions"] = shadows
        return self.finish(root)

    # -- declarations ---------------------------------------------------------------------------
    def declarations(self, node: Node, parent: str | None, namespace: str) -> None:
        """``namespace``: the namespace keys carry (empty while the file has one namespace, its package)."""
        for child in node.named_children:
            kind = child.type
            if kind == "using_directive":
                self.using(child)
            elif kind in _NAMESPACES:
                name = text(child.child_by_field_name("name"))
                inner = "" if self.single else (f"{namespace}.{name}" if namespace else name)
                body = child.child_by_field_name("body")
                if body is not None:
                    self.declarations(body, parent, inner)
                else:   # file-scoped: the rest of the file
                    namespace = inner
            elif kind in _TYPES:
                self.type_decl(child, parent, namespace or None)
            elif kind == "global_statement":   # top-level statements: their local functions are functions
                for inner in child.named_children:
                    if inner.type == "local_function_statement":
                        self.function(inner)
            elif kind == "declaration_list":
                self.declarations(child, parent, namespace)

    def using(self, node: Node) -> None:
        alias = node.child_by_field_name("name")
        target = next((c for c in node.named_children if c.type in ("identifier", "qualified_name", "generic_name")
                       and c != alias), None)
        written = type_name(target)
        static = any(c.type == "static" for c in node.children)
        names = ((written, text(alias)),) if alias is not None else (("*", "*"),)
        line = node.start_point[0] + 1
        self.facts.imports.append(ImportFact(written, names, line, static=static))
        if any(c.type == "global" for c in node.children):   # every file of the project imports it (`usings`)
            self.facts.extra.setdefault("global_usings", []).append(line)

    def type_decl(self, node: Node, parent: str | None, namespace: str | None) -> None:
        name = text(node.child_by_field_name("name"))
        key = f"{parent}.{name}" if parent else (f"{namespace}.{name}" if namespace else name)
        words, attributes = _modifiers(node)
        if node.type == "struct_declaration":
            words = (*words, "struct")
        supers: list[tuple[str, str]] = []
        generic_bases: list[list] = []
        bases = next((c for c in node.named_children if c.type == "base_list"), None)
        for base in bases.named_children if bases is not None else []:
            if base.type in ("identifier", "qualified_name", "generic_name", "primary_constructor_base_type"):
                written = type_name(base.named_children[0] if base.type == "primary_constructor_base_type" else base)
                supers.append(("extends", written + _unbound_arguments(base)))
                arguments = next((c for c in base.named_children if c.type == "type_argument_list"), None) \
                    if base.type == "generic_name" else None
                if arguments is not None:
                    generic_bases.append([written, [type_name(c) for c in arguments.named_children]])
        body = node.child_by_field_name("body")
        type_params = node.child_by_field_name("type_parameters")
        sym = self.add(SymbolFact(
            key=key, name=name, kind=_TYPES[node.type], parent=parent,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=_head(self.src, node, body), modifiers=words, annotations=attributes, docstring=_doc(node),
            supers=tuple(supers),
            type_params=tuple(text(c) for c in (type_params.named_children if type_params is not None else [])),
        ), (node.start_byte, node.end_byte))
        key = sym.key
        if generic_bases:   # ``IConsumer<OrderPlaced>``: what a message handler handles
            self.facts.extra.setdefault("generic_bases", {})[key] = generic_bases
        record_params = next((c for c in node.named_children if c.type == "parameter_list"), None)
        lines = _param_lines(record_params)
        for pname, ptype in _params(record_params):
            line = lines.get(pname, sym.line_start)   # where it is written (a list may start on the next line)
            self.add(SymbolFact(f"{key}.{pname}", pname, "field", key, line, line,
                                f"public {ptype} {pname}", ("public", "property"), type=ptype))
        if record_params is not None:
            sym.params = _params(record_params)
        for member in body.named_children if body is not None else []:
            self.member(member, sym)

    def function(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        words, attributes = _modifiers(node)
        body = node.child_by_field_name("body")
        self.add(SymbolFact(
            key=name, name=name, kind="function", parent=None, line_start=node.start_point[0] + 1,
            line_end=node.end_point[0] + 1, signature=_head(self.src, node, body), modifiers=words,
            annotations=attributes, type=type_name(node.child_by_field_name("type")),
            params=_params(node.child_by_field_name("parameters")),
        ), (node.start_byte, node.end_byte))

    def member(self, node: Node, owner: SymbolFact) -> None:
        kind = node.type
        if kind in _TYPES:
            self.type_decl(node, owner.key, None)
            return
        words, attributes = _modifiers(node)
        line_start, line_end = node.start_point[0] + 1, node.end_point[0] + 1
        if kind in ("method_declaration", "constructor_declaration"):
            name = text(node.child_by_field_name("name"))
            body = node.child_by_field_name("body")
            if owner.kind == "interface" and body is None and "static" not in words:
                words = (*words, "abstract")
            self.add(SymbolFact(
                key=f"{owner.key}.{name}", name=name, kind="method" if kind == "method_declaration" else "constructor",
                parent=owner.key, line_start=line_start, line_end=line_end,
                signature=_head(self.src, node, body or node.child_by_field_name("body")), modifiers=words,
                annotations=attributes, docstring=_doc(node), type=type_name(node.child_by_field_name("returns")),
                params=_params(node.child_by_field_name("parameters")),
                extra={"awaits": awaits} if (awaits := awaited_type(node.child_by_field_name("returns"))) else {},
            ), (node.start_byte, node.end_byte))
        elif kind in ("field_declaration", "event_field_declaration"):
            declaration = next((c for c in node.named_children if c.type == "variable_declaration"), None)
            if declaration is None:
                return
            type_ = type_name(declaration.child_by_field_name("type"))
            for declarator in declaration.named_children:
                if declarator.type != "variable_declarator":
                    continue
                name = text(declarator.child_by_field_name("name"))
                value = declarator.named_children[-1] if len(declarator.named_children) > 1 else None
                extra = {}
                if value is not None and (value.type in _STRINGS or value.type in ("identifier", "binary_expression",
                                                                                   "member_access_expression")):
                    extra["value"] = squash(text(value))[:300]
                self.add(SymbolFact(
                    key=f"{owner.key}.{name}", name=name, kind="field", parent=owner.key, line_start=line_start,
                    line_end=line_end, signature=squash(f"{' '.join(words)} {type_} {name}"), modifiers=words,
                    annotations=attributes, docstring=_doc(node), type=type_, extra=extra,
                ), (declarator.start_byte, declarator.end_byte))
        elif kind == "property_declaration":
            name = text(node.child_by_field_name("name"))
            type_ = type_name(node.child_by_field_name("type"))
            self.add(SymbolFact(
                key=f"{owner.key}.{name}", name=name, kind="field", parent=owner.key, line_start=line_start,
                line_end=line_end, signature=squash(f"{' '.join(words)} {type_} {name}"),
                modifiers=(*words, "property"), annotations=attributes, docstring=_doc(node), type=type_,
            ), (node.start_byte, node.end_byte))
        elif kind == "enum_member_declaration":
            name = text(node.child_by_field_name("name"))
            self.add(SymbolFact(f"{owner.key}.{name}", name, "field", owner.key, line_start, line_end,
                                f"{owner.name}.{name}", ("public", "static", "enum_constant"), type=owner.name))
        elif kind == "enum_member_declaration_list":
            for child in node.named_children:
                self.member(child, owner)

    # -- calls and locals -----------------------------------------------------------------------
    def callee(self, call: Node, target: Node | None = None):
        found = super().callee(call, target)
        function = call.child_by_field_name("function") if target is None else target
        if function is not None and function.type == "member_access_expression" and \
                function.child_by_field_name("expression") is None:
            keyword = next((c.type for c in function.children if c.type in ("this", "base")), None)
            if keyword is not None:
                return _Keyword(keyword), _plain(text(function.child_by_field_name("name")))
        if found is not None:
            return found[0], _plain(found[1])
        return None

    def receiver(self, node: Node) -> list:
        if isinstance(node, _Keyword):
            return [node.kind]
        if node.type == "member_access_expression" and node.child_by_field_name("expression") is None:
            keyword = next((c.type for c in node.children if c.type in ("this", "base")), "other")
            return ["field", [keyword], _plain(text(node.child_by_field_name("name")))]
        if node.type == "generic_name":
            return ["name", _plain(text(node))]
        return super().receiver(node)

    def argc(self, args: Node | None) -> int:
        return 0 if args is None else sum(1 for c in args.named_children if c.type == "argument")

    def arg_texts(self, args: Node | None, limit: int = 3, width: int = 200) -> tuple[str, ...]:
        if args is None:
            return ()
        found = [squash(text(c.named_children[-1] if c.named_children else c))[:width]
                 for c in args.named_children if c.type == "argument"]
        return tuple(found[:limit])

    def calls(self, root: Node) -> None:
        calls = self.facts.calls
        projects = []
        generic: list[list] = []
        initialised: list[list] = []
        invoked: list[dict] = []
        aspire = b"AddProject<" in self.src
        for node, tag, owner in self.owned(root, _CALLS):
            if tag == "call":
                found = self.call_fact(node, owner or "")
                if found is not None:
                    calls.append(found)
                if aspire and (project := _aspire_project(node)) is not None:
                    projects.append(project)
                if (typed := _type_arguments(node)) is not None:
                    generic.append([node.start_point[0] + 1, *typed])
            else:
                type_ = type_name(node.child_by_field_name("type"))
                args = node.child_by_field_name("arguments")
                invoked.extend(_dapr_invoke_bases(owner or "", type_, self.arg_texts(args, 8, 400),
                                                  node.start_point[0] + 1))
                if owner is None:
                    continue
                calls.append(CallFact(owner, type_.rsplit(".", 1)[-1], ["type", type_], self.argc(args),
                                      node.start_point[0] + 1, "new", (), self.arg_texts(args, 4)))
                members = _initialised(node) if type_.endswith("HttpRequestMessage") else None
                if members:
                    initialised.append([owner, node.start_point[0] + 1, members])
        bases = invoked
        for node, _tag, owner in self.owned(root, "(assignment_expression) @set"):
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if owner is not None and (handler := self.subscribed(node, owner)) is not None:
                calls.append(handler)
            prop = text(left).rsplit(".", 1)[-1] if left is not None else ""
            if prop not in ("BaseAddress", "Address") or right is None or right.type not in _CREATIONS:
                continue   # ``new Uri(x)`` or the target-typed ``new(x)``
            args = self.arg_texts(next((c for c in right.named_children if c.type == "argument_list"), None))
            registered = _registration(node)
            if not args or prop == "Address" and (registered is None or registered[0] != "AddGrpcClient"):
                continue
            found = {"owner": owner or "", "target": squash(text(left)), "value": args[0],
                     "line": node.start_point[0] + 1}
            if registered is not None:
                found["registrar"], found["client"] = registered
            bases.append(found)
            typed = _typed_client(node) if registered is not None and registered[1].startswith("name:") else None
            if typed is not None:   # AddHttpClient("x", ..).AddTypedClient<T>(): T's client is that one
                bases.append({**found, "client": typed})
        if bases:
            self.facts.extra["base_addresses"] = bases
        if projects:
            self.facts.extra["aspire_projects"] = projects
        if generic:
            self.facts.extra["generic_calls"] = generic
        if initialised:
            self.facts.extra["initialised"] = initialised

    def subscribed(self, node: Node, owner: str) -> CallFact | None:
        """A method group subscribed to an event (``processor.Received += OnMessage``, ``+= this.OnError``,
        ``+= handlers.OnTick``, or wrapped in its delegate ``+= new EventHandler(OnMessage)``) as a method
        reference (kind ``ref``): the event runs it later, so a trace from the subscribing code reaches it. ``-=``
        unsubscribes (runs nothing); a lambda's calls are read as its own; a right side the resolver finds no
        method for (``total += step``, ``total += new Money(amount)``) draws no edge."""
        operator = next((c.type for c in node.children if not c.is_named), "")
        right = node.child_by_field_name("right")
        if right is not None and right.type in _CREATIONS:
            right = _only_argument(right)
        if operator != "+=" or right is None or right.type not in ("identifier", "member_access_expression"):
            return None
        line = node.start_point[0] + 1
        if right.type == "identifier":
            return CallFact(owner, text(right), None, -1, line, "ref")
        name = _plain(text(right.child_by_field_name("name")))
        obj = right.child_by_field_name("expression")
        keyword = next((c.type for c in right.children if c.type in ("this", "base")), None)
        if obj is None and keyword is not None:
            return CallFact(owner, name, [keyword], -1, line, "ref")
        return CallFact(owner, name, self.receiver(obj), -1, line, "ref") if obj is not None else None

    def record_made(self, pairs: list[tuple[Node, Node]]) -> None:
        """Variables assigned new objects, as ``extra["made"]``: owner key -> name -> ``[[line, [type, ...]]]``
        (each branch of a conditional; a cast's operand): what an event a bus publishes may be; and the type
        arguments of a generic type made, as ``extra["made_type_arguments"]`` (owner -> name -> ``[[line,
        [types]]]``): what a generic request wraps (``new IdentifiedCommand<CreateOrder, bool>(..)``)."""
        found = [(target, value, types) for target, value in pairs if (types := _made_types(value, 0))]
        owners = innermost_owner(self.spans, [target.start_byte for target, _, _ in found])
        table: dict[str, dict[str, list]] = {}
        generic: dict[str, dict[str, list]] = {}
        for (target, value, types), owner in zip(found, owners, strict=True):
            line = target.start_point[0] + 1
            table.setdefault(owner or "", {}).setdefault(text(target), []).append([line, types])
            if arguments := _creation_type_arguments(value):
                generic.setdefault(owner or "", {}).setdefault(text(target), []).append([line, arguments])
        if table:
            self.facts.extra["made"] = table
        if generic:
            self.facts.extra["made_type_arguments"] = generic

    def locals(self, root: Node) -> None:
        items: list[tuple[Node, str]] = []
        for _, match in QueryCursor(query(GRAMMAR, _LOCALS)).matches(root):
            name = match["name"][0]
            decl = match.get("decl")
            if decl and decl[0].parent is not None and decl[0].parent.parent is not None and \
                    decl[0].parent.parent.type in ("field_declaration", "event_field_declaration"):
                continue
            value = decl[0].named_children[-1] if decl and len(decl[0].named_children) > 1 else None
            items.append((name, local_type(match["type"][0], value)))
        self.record_locals(items, lambda owner, _type: owner or "")   # top-level statements: the file's


class _Keyword:
    """``this`` / ``base`` as a receiver (the grammar keeps them unnamed)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.type = kind


#: dependency-injection registrations whose configuration lambda sets a client's address
#: Dapr's ``DaprClient.CreateInvokeHttpClient("app-id")``: an HttpClient whose base address is ``http://<app-id>``
#: (the caller's sidecar sends it to the app of that Dapr app-id)
_DAPR_INVOKE_CLIENT = re.compile(
    r'^(?:[\w.]*\.)?CreateInvokeHttpClient\(\s*(?:appId\s*:\s*)?("(?:[^"\\]|\\.)*"|[A-Za-z_][\w.]*)\s*[,)]')


def _dapr_invoke_bases(owner: str, made: str, args: tuple[str, ...], line: int) -> list[dict]:
    """The base address ``new T(..., DaprClient.CreateInvokeHttpClient("app-id"), ...)`` gives class ``T``'s
    HttpClient (as an ``AddHttpClient<T>`` registration would): ``http://<app-id>``, the app-id as written."""
    found = []
    for arg in args:
        invoke = _DAPR_INVOKE_CLIENT.match(arg)
        if invoke is None:
            continue
        app = invoke.group(1)
        value = f'"http://{app[1:-1]}"' if app.startswith('"') else f'$"http://{{{app}}}"'
        found.append({"owner": owner, "target": "", "value": value, "line": line, "registrar": "AddHttpClient",
                      "client": made, "dapr_app_id": app})
    return found


_REGISTRARS = frozenset({"AddHttpClient", "AddGrpcClient", "AddRefitClient"})


#: what a ``return`` inside belongs to: a method's own returns are its value, a lambda's or a local function's not
_FUNCTIONS = frozenset({"method_declaration", "local_function_statement", "lambda_expression",
                        "anonymous_method_expression", "constructor_declaration", "accessor_declaration",
                        "property_declaration", "operator_declaration", "conversion_operator_declaration"})


def returned_values(root: Node) -> list[tuple[str, Node]]:
    """("return", value) for each value a method returns: each ``return x;`` of its own body (not one of a lambda or
    a local function inside it) and an expression body (``=> x``), which `folding` reads as the method's value
    where a call of it is folded (a URL built by a helper method)."""
    out: list[tuple[str, Node]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "method_declaration":
            body = next((c for c in node.named_children if c.type == "arrow_expression_clause"), None)
            if body is not None and body.named_children:
                out.append(("return", body.named_children[0]))
        elif node.type == "return_statement" and node.named_children:
            around = node.parent
            while around is not None and around.type not in _FUNCTIONS:
                around = around.parent
            if around is not None and around.type == "method_declaration":
                out.append(("return", node.named_children[0]))
        stack.extend(node.named_children)
    return out


def local_function_names(root: Node) -> dict[str, list[list[int]]]:
    """Each local function's name -> the lines (first, last) of the members declaring one (``string Url(string p)
    => ..;`` in a method body): an unqualified call of that name there runs the local function, not a method."""
    found: dict[str, list[list[int]]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "local_function_statement":
            member = node.parent
            while member is not None and member.type not in _FUNCTIONS - {"local_function_statement",
                                                                            "lambda_expression",
                                                                            "anonymous_method_expression"}:
                member = member.parent
            if member is not None:
                found.setdefault(text(node.child_by_field_name("name")), []).append(
                    [member.start_point[0] + 1, member.end_point[0] + 1])
        stack.extend(node.named_children)
    return found


def _registration(node: Node) -> tuple[str, str] | None:
    """(registrar, client type) when ``node`` is inside the configuration lambda of ``AddHttpClient<T>(...)`` /
    ``AddGrpcClient<T>(...)`` (``AddHttpClient<IT, T>``: the implementation ``T``; ``AddHttpClient("x", ...)``:
    ``name:x``), or of a ``.ConfigureHttpClient(...)`` chained on ``AddHttpClient<T>()`` / Refit's
    ``AddRefitClient<T>()``, else None."""
    lambda_seen = False
    while node.parent is not None:
        node = node.parent
        if node.type == "lambda_expression":
            lambda_seen = True
        elif node.type == "invocation_expression":
            if not lambda_seen:
                return None
            function = node.child_by_field_name("function")
            name = function.child_by_field_name("name") if function is not None and \
                function.type == "member_access_expression" else function
            if name is not None and text(name) == "ConfigureHttpClient" and function.type == "member_access_expression":
                registrar = function.child_by_field_name("expression")   # what it is chained on
                while registrar is not None and registrar.type == "invocation_expression":
                    inner = registrar.child_by_field_name("function")
                    called = inner.child_by_field_name("name") if inner is not None and \
                        inner.type == "member_access_expression" else inner
                    if called is not None and called.type == "generic_name" and \
                            text(called.named_children[0]) in _REGISTRARS:
                        node, lambda_seen = registrar, True
                        name = called
                        break
                    registrar = inner.child_by_field_name("expression") if inner is not None and \
                        inner.type == "member_access_expression" else None
                else:
                    return None
            if name is not None and name.type == "identifier" and text(name) == "AddHttpClient":
                args = node.child_by_field_name("arguments")
                first = next((c for c in args.named_children if c.type == "argument"), None) if args else None
                value = first.named_children[-1] if first is not None and first.named_children else None
                return ("AddHttpClient", "name:" + text(value)[1:-1]) if value is not None and \
                    value.type == "string_literal" else None   # a named client: AddHttpClient("x", c => ...)
            if name is None or name.type != "generic_name" or text(name.named_children[0]) not in _REGISTRARS:
                return None
            arguments = next((c for c in name.named_children if c.type == "type_argument_list"), None)
            types = [type_name(c) for c in arguments.named_children] if arguments is not None else []
            return (text(name.named_children[0]), types[-1]) if types else None
    return None


def _typed_client(node: Node) -> str | None:
    """The class ``T`` of an ``.AddTypedClient<T>()`` / ``<I, T>()`` chained on the ``AddHttpClient("x", ..)`` whose
    configuration lambda holds ``node`` (other chained calls between them kept), else None."""
    while node.parent is not None and not (node.type == "invocation_expression" and _called(node) == "AddHttpClient"):
        node = node.parent
    while node.parent is not None and node.parent.type == "member_access_expression" and \
            node.parent.parent is not None and node.parent.parent.type == "invocation_expression":
        node = node.parent.parent
        name = node.child_by_field_name("function").child_by_field_name("name")
        if name is not None and name.type == "generic_name" and text(name.named_children[0]) == "AddTypedClient":
            arguments = next((c for c in name.named_children if c.type == "type_argument_list"), None)
            types = [type_name(c) for c in arguments.named_children] if arguments is not None else []
            return types[-1] if types else None
    return None


def _called(node: Node) -> str:
    """The method name an invocation calls (``a.B<T>(..)`` -> ``B``)."""
    function = node.child_by_field_name("function")
    name = function.child_by_field_name("name") if function is not None and \
        function.type == "member_access_expression" else function
    if name is not None and name.type == "generic_name":
        name = name.named_children[0]
    return text(name) if name is not None else ""


def _initialised(node: Node) -> dict[str, str]:
    """The members an object initialiser sets, as written: ``new HttpRequestMessage { Method = HttpMethod.Post }``
    -> ``{"Method": "HttpMethod.Post"}``."""
    block = node.child_by_field_name("initializer")
    out = {}
    for child in block.named_children if block is not None else []:
        left, right = child.child_by_field_name("left"), child.child_by_field_name("right")
        if child.type == "assignment_expression" and left is not None and right is not None:
            out[text(left)] = squash(text(right))[:200]
    return out


def _made_types(value: Node, depth: int) -> list[str] | None:
    """The types a value is a new object of (``c ? (Base)new A() : new B()`` -> ``[A, B]``), or None when it may be
    anything else."""
    kind = value.type
    if kind in _CREATIONS and kind != "implicit_object_creation_expression":
        return [type_name(value.child_by_field_name("type"))]
    inner = value.child_by_field_name("value") if kind == "cast_expression" else \
        value.named_children[0] if kind == "parenthesized_expression" and value.named_children else None
    if inner is not None:
        return _made_types(inner, depth + 1)
    if kind == "conditional_expression" and depth < 4:
        sides = [value.child_by_field_name(side) for side in ("consequence", "alternative")]
        found = [_made_types(side, depth + 1) if side is not None else None for side in sides]
        return None if any(f is None for f in found) else [t for f in found for t in f or []]
    return None


def _creation_type_arguments(value: Node) -> list[str]:
    """The type arguments of the generic type a ``new`` makes, as written without their own (``new
    Wrapped<CreateOrder, bool>(..)`` -> ``["CreateOrder", "bool"]``); empty for any other value."""
    if value.type != "object_creation_expression":
        return []
    made = value.child_by_field_name("type")
    made = made.child_by_field_name("name") if made is not None and made.type == "qualified_name" else made
    if made is None or made.type != "generic_name":
        return []
    arguments = next((c for c in made.named_children if c.type == "type_argument_list"), None)
    return [type_name(c) for c in arguments.named_children] if arguments is not None else []


def _type_arguments(node: Node) -> tuple[str, list[str]] | None:
    """(called name, its type arguments as written) of a generic call: ``bus.AddSubscription<Paid, PaidHandler>()``
    -> ``("AddSubscription", ["Paid", "PaidHandler"])``; None for any other call."""
    function = node.child_by_field_name("function")
    name = function.child_by_field_name("name") if function is not None and \
        function.type == "member_access_expression" else function
    if name is None or name.type != "generic_name":
        return None
    arguments = next((c for c in name.named_children if c.type == "type_argument_list"), None)
    types = [type_name(c) for c in arguments.named_children] if arguments is not None else []
    return (text(name.named_children[0]), types) if types else None


def _aspire_project(node: Node) -> dict | None:
    """A .NET Aspire AppHost's ``AddProject<Projects.Orders_API>("orders-api")``: the resource name it gives the
    project (its type: the project file's name, every character outside ``[A-Za-z0-9_]`` written ``_``)."""
    function = node.child_by_field_name("function")
    name = function.child_by_field_name("name") if function is not None and \
        function.type == "member_access_expression" else function
    if name is None or name.type != "generic_name" or text(name.named_children[0]) != "AddProject":
        return None
    arguments = next((c for c in name.named_children if c.type == "type_argument_list"), None)
    types = [type_name(c) for c in arguments.named_children] if arguments is not None else []
    args = node.child_by_field_name("arguments")
    first = next((c for c in args.named_children if c.type == "argument"), None) if args is not None else None
    value = first.named_children[-1] if first is not None and first.named_children else None
    if len(types) != 1 or value is None or value.type != "string_literal":
        return None
    return {"project": types[0], "name": text(value)[1:-1], "line": node.start_point[0] + 1}


def _only_argument(creation: Node) -> Node | None:
    """The expression of a construction's one argument (``new EventHandler(OnMessage)`` -> ``OnMessage``), else
    None (no argument, several, or a named or ``ref`` one)."""
    args = creation.child_by_field_name("arguments")
    named = [c for c in args.named_children if c.type == "argument"] if args is not None else []
    if len(named) != 1 or len(named[0].named_children) != 1:
        return None
    return named[0].named_children[0]


def _plain(name: str) -> str:
    return name.split("<", 1)[0]


def _head(src: bytes, node: Node, body: Node | None) -> str:
    start = node.start_byte
    for child in node.children:
        if child.type == "attribute_list":
            start = child.end_byte
    end = body.start_byte if body is not None else node.end_byte
    return squash(src[start:end].decode("utf-8", errors="replace")).rstrip(";").strip()


def _walk_namespaces(node: Node):
    for child in node.named_children:
        if child.type in _NAMESPACES:
            yield child
            body = child.child_by_field_name("body")
            if body is not None:
                yield from _walk_namespaces(body)


SYNTAX = Syntax(
    grammar=GRAMMAR, comments=frozenset({"comment"}), calls={"invocation_expression": (None, "function")},
    members={"member_access_expression": ("expression", "name")}, decorators=frozenset(), type_text=type_name,
    constructions={"object_creation_expression": "type", "cast_expression": "type"},
    literals=dict.fromkeys(("string_literal", "verbatim_string_literal", "interpolated_string_expression"), "string"),
    wrappers=frozenset({"parenthesized_expression", "await_expression"}), keywords=frozenset({"this", "base"}),
    names=frozenset({"identifier", "generic_name"}), type_names=frozenset({"predefined_type", "qualified_name"}),
    generated_header=re.compile(rb"(?i)(<auto-generated|auto-?generated|do not edit|generated by)"), header_bytes=600,
    conditionals={"conditional_expression": ("consequence", "alternative")},
    assignments="""
(variable_declarator name: (identifier) @target (_) @value)
(assignment_expression left: (_) @target right: (_) @value)
""",
)


def extract(path: str, src: bytes) -> FileFacts:
    """The facts of one C# file (pure: depends only on ``path`` and ``src``)."""
    return _Extractor(path, src).run()
