"""Java: one file's facts (symbols, imports, call sites, typed locals) from its tree-sitter tree.

Keys and fqns. A type's key is its dotted nesting (``Outer.Inner``); a method's
``Outer.Inner#m(String,int)`` with parameter types as written, generic arguments and package qualifiers
removed (``List<String>`` -> ``List``, ``java.util.Map.Entry`` -> ``Entry``), varargs as ``String...``,
arrays as ``int[]``; a constructor uses the class name (``Outer#Outer(String)``); a field or enum
constant ``Outer#name``. The fqn is ``package + "." + key``. Local classes are keyed under their
enclosing type (``Outer.Local``); anonymous class bodies are not symbols: their calls belong to the
enclosing member.

Generated members (``generated=True``): Lombok (``@Data``, ``@Value``, ``@Getter``, ``@Setter``,
``@Builder``, ``@NoArgsConstructor``, ``@AllArgsConstructor``, ``@RequiredArgsConstructor``, ``@Slf4j``
and the other loggers), record accessors and canonical constructors, and enum ``values()`` /
``valueOf(String)``. A file whose header says it is generated marks every symbol generated.
"""

from __future__ import annotations

import re

import tree_sitter_java
from tree_sitter import Node, QueryCursor

from ...model import AnnotationFact, CallFact, FileFacts, ImportFact, SymbolFact
from ..extractor import Extractor, Syntax
from ..parsing import Grammar, doc_comment, query, squash, text

GRAMMAR = Grammar("java", tree_sitter_java.language)

_TYPE_DECLS = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "record_declaration": "record",
    "annotation_type_declaration": "annotation",
}
_KEYWORD_MODIFIERS = frozenset({
    "public", "protected", "private", "abstract", "static", "final", "sealed", "non-sealed", "strictfp",
    "transient", "volatile", "synchronized", "native", "default",
})
_LITERAL_TYPES = {
    "string_literal": "String", "text_block": "String", "character_literal": "char",
    "decimal_integer_literal": "int", "hex_integer_literal": "int", "octal_integer_literal": "int",
    "binary_integer_literal": "int", "decimal_floating_point_literal": "double",
    "hex_floating_point_literal": "double", "true": "boolean", "false": "boolean", "null_literal": "null",
}
_LOMBOK_LOGGERS = frozenset({"Slf4j", "Log4j2", "Log4j", "Log", "CommonsLog", "XSlf4j", "JBossLog", "Flogger",
                             "CustomLog"})

_CALLS = """
(method_invocation) @call
(object_creation_expression) @new
(explicit_constructor_invocation) @ctor
(method_reference) @ref
"""
_LOCALS = """
(local_variable_declaration type: (_) @type declarator: (variable_declarator name: (identifier) @name))
(enhanced_for_statement type: (_) @type name: (identifier) @name)
(catch_formal_parameter (catch_type) @type name: (identifier) @name)
(formal_parameter type: (_) @type name: (identifier) @name)
(resource type: (_) @type name: (identifier) @name)
"""


def erase(node: Node | None) -> str:
    """A type as written without generic arguments or annotations: ``Map.Entry<K, V>[]`` -> ``Map.Entry[]``."""
    if node is None:
        return ""
    kind = node.type
    if kind in ("type_identifier", "integral_type", "floating_point_type", "boolean_type", "void_type"):
        return text(node)
    if kind == "generic_type":
        return erase(node.named_children[0])
    if kind == "scoped_type_identifier":
        return ".".join(erase(c) if c.type != "identifier" else text(c) for c in node.named_children
                        if c.type not in ("annotation", "marker_annotation"))
    if kind == "array_type":
        element = node.child_by_field_name("element")
        dims = node.child_by_field_name("dimensions")
        return erase(element) + "[]" * text(dims).count("[")
    if kind == "catch_type":
        return " | ".join(erase(c) for c in node.named_children)
    if kind == "annotated_type":
        return erase(node.named_children[-1])
    return squash(re.sub(r"<.*>", "", text(node)))


def simple(type_name: str) -> str:
    """Last segment, keeping array and varargs suffixes: ``java.util.Map.Entry[]`` -> ``Entry[]``."""
    base = type_name.rstrip("[].")
    suffix = type_name[len(base):]
    return base.rsplit(".", 1)[-1] + suffix


def _annotation(node: Node) -> AnnotationFact:
    name = text(node.child_by_field_name("name"))
    args_node = node.child_by_field_name("arguments")
    args: list[tuple[str, str]] = []
    if args_node is not None:
        for arg in args_node.named_children:
            if arg.type == "element_value_pair":
                args.append((text(arg.child_by_field_name("key")), squash(text(arg.child_by_field_name("value")))))
            elif arg.type not in ("line_comment", "block_comment"):
                args.append(("", squash(text(arg))))
    return AnnotationFact(name, tuple(args), node.start_point[0] + 1)


def _modifiers(decl: Node) -> tuple[tuple[str, ...], tuple[AnnotationFact, ...]]:
    mods = next((c for c in decl.children if c.type == "modifiers"), None)
    if mods is None:
        return (), ()
    keywords: list[str] = []
    annotations: list[AnnotationFact] = []
    for child in mods.children:
        if child.type in ("annotation", "marker_annotation"):
            annotations.append(_annotation(child))
        elif child.type in _KEYWORD_MODIFIERS:
            keywords.append(child.type)
    return tuple(keywords), tuple(annotations)


def _javadoc(decl: Node) -> str:
    return doc_comment(decl, "block_comment", skip="line_comment")


def _signature(src: bytes, decl: Node, body: Node | None, keywords: tuple[str, ...]) -> str:
    start = decl.start_byte
    mods = next((c for c in decl.children if c.type == "modifiers"), None)
    if mods is not None:
        start = mods.end_byte
    end = body.start_byte if body is not None else decl.end_byte
    head = squash(src[start:end].decode("utf-8", errors="replace")).rstrip(";").strip()
    return " ".join((*keywords, head)) if keywords else head


def _params(params_node: Node | None) -> tuple[tuple[str, str], ...]:
    if params_node is None:
        return ()
    out: list[tuple[str, str]] = []
    for param in params_node.named_children:
        if param.type == "formal_parameter":
            type_ = erase(param.child_by_field_name("type"))
            dims = param.child_by_field_name("dimensions")
            if dims is not None:
                type_ += "[]" * text(dims).count("[")
            out.append((text(param.child_by_field_name("name")), type_))
        elif param.type == "spread_parameter":
            type_node = next((c for c in param.named_children if c.type not in ("modifiers", "variable_declarator")), None)
            declarator = next((c for c in param.named_children if c.type == "variable_declarator"), None)
            name = text(declarator.child_by_field_name("name")) if declarator is not None else ""
            out.append((name, erase(type_node) + "..."))
    return tuple(out)


def _param_values(params_node: Node | None) -> dict[str, str]:
    """Parameters injected with ``@Value("${key}")``: name -> the annotation's value as written."""
    out: dict[str, str] = {}
    for param in params_node.named_children if params_node is not None else ():
        if param.type != "formal_parameter":
            continue
        _, annotations = _modifiers(param)
        value = next((dict(a.args).get("") or dict(a.args).get("value") for a in annotations
                      if a.name.rsplit(".", 1)[-1] == "Value"), None)
        if value:
            out[text(param.child_by_field_name("name"))] = value
    return out


def _type_params(node: Node | None) -> tuple[str, ...]:
    if node is None:
        return ()
    return tuple(text(c.named_children[0]) for c in node.named_children if c.type == "type_parameter" and c.named_children)


def _cap(name: str) -> str:
    return name[:1].upper() + name[1:]


class _Extractor(Extractor):
    def __init__(self, path: str, src: bytes):
        super().__init__(SYNTAX, path, src, "java")

    # -- symbols --------------------------------------------------------------------------------
    def type_decl(self, node: Node, parent: str | None, local: bool = False) -> None:
        kind = _TYPE_DECLS[node.type]
        name = text(node.child_by_field_name("name"))
        key = f"{parent}.{name}" if parent else name
        keywords, annotations = _modifiers(node)
        if local:
            keywords = (*keywords, "local")
        supers: list[tuple[str, str]] = []
        superclass = node.child_by_field_name("superclass")
        if superclass is not None and superclass.named_children:
            supers.append(("extends", erase(superclass.named_children[0])))
        interfaces = node.child_by_field_name("interfaces")
        extends_interfaces = next((c for c in node.children if c.type == "extends_interfaces"), None)
        for holder, relation in ((interfaces, "implements"), (extends_interfaces, "extends")):
            if holder is not None:
                type_list = next((c for c in holder.named_children if c.type == "type_list"), None)
                for t in (type_list.named_children if type_list is not None else []):
                    supers.append((relation, erase(t)))
        body = node.child_by_field_name("body")
        sym = self.add(SymbolFact(
            key=key, name=name, kind=kind, parent=parent,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=_signature(self.src, node, body, keywords), modifiers=keywords, annotations=annotations,
            docstring=_javadoc(node), supers=tuple(supers),
            type_params=_type_params(node.child_by_field_name("type_parameters")),
        ), (node.start_byte, node.end_byte))
        key = sym.key
        members_before = len(self.symbols)
        if kind == "record":
            self.record_components(node, key)
        if body is not None:
            self.body(body, key, kind)
        self.synthesize(sym, self.symbols[members_before:], node)

    def body(self, body: Node, owner: str, owner_kind: str) -> None:
        for member in body.named_children:
            t = member.type
            if t in _TYPE_DECLS:
                self.type_decl(member, owner)
            elif t in ("method_declaration", "annotation_type_element_declaration"):
                self.method(member, owner, owner_kind)
            elif t in ("constructor_declaration", "compact_constructor_declaration"):
                self.constructor(member, owner)
            elif t in ("field_declaration", "constant_declaration"):
                self.field(member, owner, owner_kind)
            elif t == "enum_constant":
                self.enum_constant(member, owner)
            elif t == "enum_body_declarations":
                self.body(member, owner, owner_kind)

    def method(self, node: Node, owner: str, owner_kind: str) -> None:
        name = text(node.child_by_field_name("name"))
        params = _params(node.child_by_field_name("parameters"))
        keywords, annotations = _modifiers(node)
        body = node.child_by_field_name("body")
        if owner_kind == "interface" and body is None and "static" not in keywords and "default" not in keywords:
            keywords = (*keywords, "abstract") if "abstract" not in keywords else keywords
        ret = erase(node.child_by_field_name("type"))
        dims = node.child_by_field_name("dimensions")
        if dims is not None:
            ret += "[]" * text(dims).count("[")
        extra: dict = {}
        default = node.child_by_field_name("value")
        if default is not None:
            extra["default"] = squash(text(default))
        injected = _param_values(node.child_by_field_name("parameters"))
        if injected:
            extra["param_values"] = injected
        self.add(SymbolFact(
            key=f"{owner}#{name}({','.join(simple(t) for _, t in params)})", name=name, kind="method", parent=owner,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=_signature(self.src, node, body, keywords), modifiers=keywords, annotations=annotations,
            docstring=_javadoc(node), type=ret, params=params,
            type_params=_type_params(node.child_by_field_name("type_parameters")), extra=extra,
        ), (node.start_byte, node.end_byte))

    def constructor(self, node: Node, owner: str) -> None:
        name = text(node.child_by_field_name("name"))
        keywords, annotations = _modifiers(node)
        if node.type == "compact_constructor_declaration":
            record = next(s for s in reversed(self.symbols) if s.key == owner)
            params = record.params
        else:
            params = _params(node.child_by_field_name("parameters"))
        body = node.child_by_field_name("body")
        injected = _param_values(node.child_by_field_name("parameters"))
        self.add(SymbolFact(
            key=f"{owner}#{name}({','.join(simple(t) for _, t in params)})", name=name, kind="constructor",
            parent=owner, line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=_signature(self.src, node, body, keywords), modifiers=keywords, annotations=annotations,
            docstring=_javadoc(node), params=params, extra={"param_values": injected} if injected else {},
        ), (node.start_byte, node.end_byte))

    def field(self, node: Node, owner: str, owner_kind: str) -> None:
        keywords, annotations = _modifiers(node)
        if owner_kind == "interface" or node.type == "constant_declaration":
            keywords = tuple(dict.fromkeys((*keywords, "public", "static", "final")))
        type_ = erase(node.child_by_field_name("type"))
        doc = _javadoc(node)
        for declarator in node.children_by_field_name("declarator"):
            name = text(declarator.child_by_field_name("name"))
            dims = declarator.child_by_field_name("dimensions")
            ftype = type_ + ("[]" * text(dims).count("[") if dims is not None else "")
            value = declarator.child_by_field_name("value")
            extra = {"initialized": True} if value is not None else {}
            if value is not None and value.type in _LITERAL_TYPES or (value is not None and value.type in (
                    "binary_expression", "field_access", "identifier") and value.end_byte - value.start_byte < 300):
                extra["value"] = squash(text(value))
            self.add(SymbolFact(
                key=f"{owner}#{name}", name=name, kind="field", parent=owner,
                line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
                signature=" ".join((*keywords, ftype, name)), modifiers=keywords, annotations=annotations,
                docstring=doc, type=ftype, extra=extra,
            ), (declarator.start_byte, declarator.end_byte))

    def enum_constant(self, node: Node, owner: str) -> None:
        name = text(node.child_by_field_name("name"))
        keywords, annotations = _modifiers(node)
        enum_name = owner.rsplit(".", 1)[-1]
        self.add(SymbolFact(
            key=f"{owner}#{name}", name=name, kind="field", parent=owner,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1,
            signature=f"public static final {enum_name} {name}",
            modifiers=("public", "static", "final", "enum_constant"), annotations=annotations,
            docstring=_javadoc(node), type=enum_name,
            # the constructor's arguments as written: what the constant stands for (``AUTH("auth-service")``)
            extra={"args": list(args)} if (args := self.arg_texts(node.child_by_field_name("arguments"))) else {},
        ), (node.start_byte, node.end_byte))

    def record_components(self, node: Node, owner: str) -> None:
        params = _params(node.child_by_field_name("parameters"))
        record = self.symbols[-1]
        record.params = params
        for name, type_ in params:
            self.add(SymbolFact(
                key=f"{owner}#{name}", name=name, kind="field", parent=owner,
                line_start=record.line_start, line_end=record.line_start,
                signature=f"private final {type_} {name}", modifiers=("private", "final", "record_component"),
                type=type_,
            ))

    # -- generated members ----------------------------------------------------------------------
    def synthesize(self, owner: SymbolFact, members: list[SymbolFact], node: Node) -> None:
        """Members the compiler, Lombok or Spring Data gives a type: record accessors and canonical constructor, enum
        ``values()`` / ``valueOf(String)``, Lombok getters, setters, constructors, ``builder()`` and loggers, and the
        methods a repository interface inherits from Spring Data (``save``, ``findById``, ``findAll``...), so that
        calls to them are edges like any other."""
        made = _Generated(self, owner, [m for m in members if m.parent == owner.key])
        fields = made.fields
        if owner.kind == "record":
            for f in fields:
                made.add(f"{f.name}()", f.name, "method", type_=f.type, why="record")
            made.constructor(fields, "record")
        if owner.kind == "enum":
            made.add("values()", "values", "method", type_=f"{owner.name}[]", modifiers=("public", "static"),
                     why="enum")
            made.add("valueOf(String)", "valueOf", "method", params=(("name", "String"),), type_=owner.name,
                     modifiers=("public", "static"), why="enum")
        made.lombok()
        if owner.kind == "interface":
            inherited = {simple(name) for _, name in owner.supers} & set(SPRING_DATA)
            for base in sorted(inherited):
                for key, name, params, type_ in SPRING_DATA[base]:
                    made.add(key, name, "method", params=params, type_=type_, modifiers=("public", "abstract"),
                             why="spring-data")


    # -- whole file -----------------------------------------------------------------------------
    def run(self) -> FileFacts:
        root = self.parse()
        for node in root.named_children:
            t = node.type
            if t == "package_declaration":
                name = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
                self.facts.package = text(name)
            elif t == "import_declaration":
                self.import_(node)
            elif t in _TYPE_DECLS:
                self.type_decl(node, None)
        self.local_types(root)
        self.calls(root)
        self.locals(root)
        returns = [("return", match["value"][0]) for _, match in
                   QueryCursor(query(GRAMMAR, "(return_statement (_) @value)")).matches(root)]
        self.record_values(self.assignment_pairs(root) + returns)
        return self.finish(root)

    def import_(self, node: Node) -> None:
        static = any(c.type == "static" for c in node.children)
        name = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
        target = text(name)
        wildcard = any(c.type == "asterisk" for c in node.named_children)
        if wildcard:
            names = (("*", "*"),)
        else:
            last = target.rsplit(".", 1)[-1]
            names = ((last, last),)
        self.facts.imports.append(ImportFact(target=target, names=names, line=node.start_point[0] + 1,
                                             static=static))

    def local_types(self, root: Node) -> None:
        """Local classes (declared inside a method body): symbols under their enclosing type."""
        found = self.owned(root, "(block (class_declaration) @local) (constructor_body (class_declaration) @local)")
        for node, _tag, owner in found:
            owner_type = owner
            while owner_type is not None and "#" in owner_type:
                owner_type = self.by_key[owner_type].parent
            if owner_type is not None and f"{owner_type}.{text(node.child_by_field_name('name'))}" not in self.by_key:
                self.type_decl(node, owner_type, local=True)

    def calls(self, root: Node) -> None:
        calls = self.facts.calls
        for node, tag, owner in self.owned(root, _CALLS):
            if owner is None:
                continue
            if tag == "call":
                found = self.call_fact(node, owner)
                if found is not None:
                    obj, name = node.child_by_field_name("object"), node.child_by_field_name("name")
                    if obj is not None and name is not None and name.start_point[0] + 1 != found.line:
                        found.name_line = name.start_point[0] + 1   # a fluent chain's link, written lines below
                    calls.append(found)
                continue
            line = node.start_point[0] + 1
            args = node.child_by_field_name("arguments")
            if tag == "new":
                type_name = erase(node.child_by_field_name("type"))
                calls.append(CallFact(owner, simple(type_name), ["type", type_name], self.argc(args), line, "new",
                                      self.arg_types(args), self.arg_texts(args)))
            elif tag == "ctor":
                which = text(node.child_by_field_name("constructor"))
                calls.append(CallFact(owner, which, None, self.argc(args), line, which, self.arg_types(args),
                                      self.arg_texts(args)))
            else:
                calls.append(self.reference(node, owner, line))

    def reference(self, node: Node, owner: str, line: int) -> CallFact:
        """A method reference (``Type::method``, ``this::m``, ``Type::new``)."""
        parts = node.children
        target = parts[0] if parts else None
        name = text(parts[-1]) if parts else ""
        if name == "new":
            type_name = erase(target) if target is not None else ""
            return CallFact(owner, simple(type_name), ["type", type_name], -1, line, "new")
        return CallFact(owner, name, self.receiver(target) if target is not None else None, -1, line, "ref")

    def locals(self, root: Node) -> None:
        items = []
        for _, match in QueryCursor(query(GRAMMAR, _LOCALS)).matches(root):
            type_node, name_node = match["type"][0], match["name"][0]
            type_ = erase(type_node)
            if type_ == "var":
                decl = name_node.parent
                value = decl.child_by_field_name("value") if decl is not None else None
                if value is not None and value.type == "object_creation_expression":
                    type_ = "~" + erase(value.child_by_field_name("type"))
                else:
                    type_ = ""
            items.append((name_node, type_))
        self.record_locals(items, lambda owner, _type: owner)

    def arg_types(self, args: Node | None) -> tuple[str, ...]:
        """Literal types, ``$name`` for a name (typed later from its declaration), and constructed or cast types."""
        if args is None:
            return ()
        out = []
        for arg in args.named_children:
            t = arg.type
            if t in SYNTAX.comments:
                continue
            if t in _LITERAL_TYPES:
                out.append(_LITERAL_TYPES[t])
            elif t == "identifier":
                out.append("$" + text(arg))
            elif t in SYNTAX.constructions:
                out.append(simple(erase(arg.child_by_field_name("type"))))
            else:
                out.append("")
        return tuple(out)


_CRUD = (
    ("save(S)", "save", (("entity", "S"),), "S"),
    ("saveAll(Iterable)", "saveAll", (("entities", "Iterable"),), "Iterable"),
    ("findById(ID)", "findById", (("id", "ID"),), "Optional"),
    ("existsById(ID)", "existsById", (("id", "ID"),), "boolean"),
    ("findAll()", "findAll", (), "Iterable"),
    ("findAllById(Iterable)", "findAllById", (("ids", "Iterable"),), "Iterable"),
    ("count()", "count", (), "long"),
    ("deleteById(ID)", "deleteById", (("id", "ID"),), "void"),
    ("delete(T)", "delete", (("entity", "T"),), "void"),
    ("deleteAllById(Iterable)", "deleteAllById", (("ids", "Iterable"),), "void"),
    ("deleteAll(Iterable)", "deleteAll", (("entities", "Iterable"),), "void"),
    ("deleteAll()", "deleteAll", (), "void"),
)
_PAGING = (
    ("findAll(Sort)", "findAll", (("sort", "Sort"),), "Iterable"),
    ("findAll(Pageable)", "findAll", (("pageable", "Pageable"),), "Page"),
)
_JPA = (
    ("flush()", "flush", (), "void"),
    ("saveAndFlush(S)", "saveAndFlush", (("entity", "S"),), "S"),
    ("saveAllAndFlush(Iterable)", "saveAllAndFlush", (("entities", "Iterable"),), "List"),
    ("deleteAllInBatch()", "deleteAllInBatch", (), "void"),
    ("deleteAllInBatch(Iterable)", "deleteAllInBatch", (("entities", "Iterable"),), "void"),
    ("deleteAllByIdInBatch(Iterable)", "deleteAllByIdInBatch", (("ids", "Iterable"),), "void"),
    ("getReferenceById(ID)", "getReferenceById", (("id", "ID"),), "T"),
    ("getById(ID)", "getById", (("id", "ID"),), "T"),
    ("getOne(ID)", "getOne", (("id", "ID"),), "T"),
)
_MONGO = (
    ("insert(S)", "insert", (("entity", "S"),), "S"),
    ("insert(Iterable)", "insert", (("entities", "Iterable"),), "List"),
)
#: Spring Data repository interfaces -> the methods a project interface extending one inherits
SPRING_DATA: dict[str, tuple] = {
    **dict.fromkeys(("CrudRepository", "ListCrudRepository", "ReactiveCrudRepository", "RxJava3CrudRepository",
                     "KeyValueRepository", "CassandraRepository", "CouchbaseRepository", "Neo4jRepository",
                     "ElasticsearchRepository", "R2dbcRepository"), _CRUD),
    **dict.fromkeys(("PagingAndSortingRepository", "ListPagingAndSortingRepository", "ReactiveSortingRepository"),
                    _CRUD + _PAGING),
    "JpaRepository": _CRUD + _PAGING + _JPA,
    "MongoRepository": _CRUD + _PAGING + _MONGO,
    "ReactiveMongoRepository": _CRUD + _PAGING + _MONGO,
}


class _Generated:
    """The generated members of one type: each added once, never over a member the source declares."""

    def __init__(self, extractor: _Extractor, owner: SymbolFact, direct: list[SymbolFact]):
        self.extractor = extractor
        self.owner = owner
        self.direct = direct
        self.fields = [m for m in direct if m.kind == "field" and "static" not in m.modifiers]
        self.existing = {m.key for m in direct}
        self.annotations = {a.name.rsplit(".", 1)[-1] for a in owner.annotations}

    def add(self, key: str, member_name: str, kind: str, params=(), type_: str = "", modifiers=("public",),
            why: str = "") -> None:
        full = f"{self.owner.key}#{key}"
        if full in self.existing:
            return
        self.existing.add(full)
        params_text = ", ".join(f"{t} {n}" for n, t in params)
        signature = f"{' '.join(modifiers)} {type_ + ' ' if type_ else ''}{member_name}({params_text})"
        line = self.owner.line_start
        self.extractor.add(SymbolFact(
            key=full, name=member_name, kind=kind, parent=self.owner.key, line_start=line, line_end=line,
            signature=squash(signature), modifiers=tuple(modifiers), type=type_, params=tuple(params),
            generated=True, extra={"generated_by": why} if why else {},
        ))

    def getter(self, f: SymbolFact) -> None:
        prefix = "is" if f.type == "boolean" else "get"
        self.add(f"{prefix}{_cap(f.name)}()", f"{prefix}{_cap(f.name)}", "method", type_=f.type, why="lombok")

    def setter(self, f: SymbolFact) -> None:
        if "final" not in f.modifiers:
            self.add(f"set{_cap(f.name)}({simple(f.type)})", f"set{_cap(f.name)}", "method",
                     params=((f.name, f.type),), type_="void", why="lombok")

    def constructor(self, params: list[SymbolFact], why: str) -> None:
        name = self.owner.name
        plist = tuple((f.name, f.type) for f in params)
        self.add(f"{name}({','.join(simple(t) for _, t in plist)})", name, "constructor", params=plist, why=why)

    def lombok(self) -> None:
        annotations, fields = self.annotations, self.fields
        explicit_ctor = any(m.kind == "constructor" for m in self.direct)
        is_value = "Value" in annotations
        if "Data" in annotations or is_value or "Getter" in annotations:
            for f in fields:
                self.getter(f)
        if ("Data" in annotations or "Setter" in annotations) and not is_value:
            for f in fields:
                self.setter(f)
        for f in fields:
            field_annotations = {a.name.rsplit(".", 1)[-1] for a in f.annotations}
            if "Getter" in field_annotations:
                self.getter(f)
            if "Setter" in field_annotations:
                self.setter(f)
        required = [f for f in fields if "final" in f.modifiers and not f.extra.get("initialized")
                    or any(a.name.rsplit(".", 1)[-1] == "NonNull" for a in f.annotations)]
        if "NoArgsConstructor" in annotations:
            self.constructor([], "lombok")
        if "AllArgsConstructor" in annotations or (is_value and not explicit_ctor):
            self.constructor([f for f in fields if not (f.extra.get("initialized") and "final" in f.modifiers)],
                             "lombok")
        if "RequiredArgsConstructor" in annotations or ("Data" in annotations and not explicit_ctor):
            self.constructor(required, "lombok")
        if "Builder" in annotations:
            name = self.owner.name
            self.add("builder()", "builder", "method", type_=f"{name}.{name}Builder", modifiers=("public", "static"),
                     why="lombok")
        if annotations & _LOMBOK_LOGGERS and f"{self.owner.key}#log" not in self.existing:
            self.existing.add(f"{self.owner.key}#log")
            line = self.owner.line_start
            self.extractor.add(SymbolFact(
                key=f"{self.owner.key}#log", name="log", kind="field", parent=self.owner.key, line_start=line,
                line_end=line, signature="private static final Logger log", modifiers=("private", "static", "final"),
                type="Logger", generated=True, extra={"generated_by": "lombok"}))



SYNTAX = Syntax(
    grammar=GRAMMAR,
    comments=frozenset({"line_comment", "block_comment"}),
    calls={"method_invocation": ("object", "name")},
    members={"field_access": ("object", "field"), "scoped_identifier": ("scope", "name")},
    constructions={"object_creation_expression": "type", "cast_expression": "type"},
    literals={"string_literal": "String", "text_block": "String"},
    wrappers=frozenset({"parenthesized_expression"}),
    keywords=frozenset({"this", "super"}),
    type_names=frozenset({"type_identifier", "generic_type", "scoped_type_identifier"}),
    type_text=erase,
    decorators=frozenset(),
    # the annotation itself (``@Generated(...)``, ``@javax.annotation.Generated``), never JPA's ``@GeneratedValue``
    # on an entity's id, which the first 600 bytes of an entity often hold
    generated_header=re.compile(rb"@(?:[\w.]+\.)?Generated\b|(?i:auto-?generated|do not edit|generated by)"),
    header_bytes=600,
    conditionals={"ternary_expression": ("consequence", "alternative")},
    assignments="""
(local_variable_declaration declarator: (variable_declarator name: (identifier) @target value: (_) @value))
(assignment_expression left: (_) @target right: (_) @value)
(field_declaration declarator: (variable_declarator name: (identifier) @target value: (_) @value))
""",
)


def extract(path: str, src: bytes) -> FileFacts:
    """The facts of one Java file (pure: depends only on ``path`` and ``src``)."""
    return _Extractor(path, src).run()
