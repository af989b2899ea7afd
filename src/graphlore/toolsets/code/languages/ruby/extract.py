"""Ruby: one file's facts (modules, classes, their methods, singleton methods, constants and instance variables,
top-level methods, ``require``/``require_relative``, ``include``/``extend``, call sites, typed locals, and the
blocks given to DSL calls) from its tree-sitter tree.

Names: ``A::B`` is written ``A.B`` everywhere. A module is a ``class`` symbol with the modifier ``module``; a
module or class nested in another is keyed under it (``Shop.Cart``, its method ``Shop.Cart.add``); ``class
A::B`` is keyed ``A.B``. ``def self.m`` and the methods of ``class << self`` carry ``static``; ``initialize`` is
the constructor. A superclass is ``extends``; ``include M`` is ``includes`` and ``extend M`` ``extends_modules``
(their methods are found on the class). An instance variable (``@client``) is a field, typed when every value
the class gives it is ``T.new``; a constant (``BASE = ...``) a ``const`` field. ``T.new(...)`` is a
construction (``new`` call). A bare name in statement position (``helper``) is a call unless the method
has a local or parameter of that name. Calls with a block (``get '/p' do``, ``namespace :api do``) are kept
in ``extra["blocks"]`` with the lines the block spans (routes read them: `frameworks.ruby_web`).
"""

from __future__ import annotations

import re

import tree_sitter_ruby
from tree_sitter import Node

from ...model import CallFact, FileFacts, ImportFact, SymbolFact
from ..extractor import Extractor, Syntax
from ..parsing import Grammar, squash, text

GRAMMAR = Grammar("ruby", tree_sitter_ruby.language)

_STATEMENT_PARENTS = frozenset({"body_statement", "program", "block_body", "then", "else", "begin", "ensure",
                                "do", "parenthesized_statements"})
_VALUES_OPAQUE = frozenset({"lambda", "hash", "array", "integer", "float", "true", "false", "nil", "block",
                            "do_block", "regex"})
_PARAMS = frozenset({"identifier", "optional_parameter", "keyword_parameter", "splat_parameter",
                     "hash_splat_parameter", "block_parameter", "destructured_parameter"})


def ruby_name(written: str) -> str:
    """A constant path as the graph keeps it: ``::A::B`` -> ``A.B``."""
    return written.strip().lstrip(":").replace("::", ".")


def _param_name(node: Node) -> str | None:
    if node.type == "identifier":
        return text(node)
    name = node.child_by_field_name("name")
    return text(name) if name is not None else None


def _comment_doc(node: Node) -> str:
    """The ``#`` comment lines just above a declaration."""
    lines = []
    prev = node.prev_named_sibling
    line = node.start_point[0]
    while prev is not None and prev.type == "comment" and prev.end_point[0] == line - 1:
        lines.insert(0, text(prev).lstrip("#").strip())
        line = prev.start_point[0]
        prev = prev.prev_named_sibling
    return "\n".join(lines)[:2000]


def _made(value: Node | None) -> str:
    """The class a value makes (``T.new(...)`` -> ``T``), else ""."""
    if value is not None and value.type == "call":
        receiver, method = value.child_by_field_name("receiver"), value.child_by_field_name("method")
        if method is not None and text(method) == "new" and receiver is not None and \
                receiver.type in ("constant", "scope_resolution"):
            return ruby_name(text(receiver))
    return ""


class _Extractor(Extractor):
    def __init__(self, path: str, src: bytes):
        super().__init__(SYNTAX, path, src, "ruby")
        self.pairs: list[tuple[str, Node]] = []
        self.typed: list[tuple[Node, str]] = []
        #: class key -> instance variable -> (first line, the types its values make)
        self.ivars: dict[str, dict[str, tuple[int, set[str]]]] = {}
        #: method key -> its parameters' and locals' names
        self.local_names: dict[str, set[str]] = {}

    def run(self) -> FileFacts:
        root = self.parse()
        self.body(root, None, False)
        for class_key, table in self.ivars.items():
            for name, (line, types) in table.items():
                self.add(SymbolFact(f"{class_key}.{name}", name, "field", class_key, line, line, f"@{name}",
                                    ("instance_variable",), type=types.pop() if len(types) == 1 else ""))
        self.calls(root)
        self.record_values(self.pairs)   # type: ignore[arg-type]  (targets are names: ``x``, ``this.x``, ``BASE``)
        self.record_locals(self.typed, lambda owner, _type: owner or "")
        self.blocks(root)
        return self.finish(root)

    # -- declarations ---------------------------------------------------------------------------
    def body(self, node: Node, owner: SymbolFact | None, static: bool) -> None:
        for child in node.named_children:
            kind = child.type
            if kind in ("module", "class"):
                self.type_decl(child, owner)
            elif kind == "singleton_class" and owner is not None:
                inner = child.child_by_field_name("body")
                if inner is not None:
                    self.body(inner, owner, True)
            elif kind in ("method", "singleton_method"):
                self.method(child, owner, static or kind == "singleton_method")
            elif kind == "assignment":
                self.assignment(child, owner)
            elif kind == "call":
                self.declaring_call(child, owner)
                block = child.child_by_field_name("block")
                if block is not None:   # ``get '/p' do ... end``: its locals are the class's or the file's
                    self.scan_locals(block, self.local_names.setdefault(owner.key if owner else "", set()), None)
            elif kind in ("body_statement", "begin", "then", "else", "if", "unless", "parenthesized_statements"):
                self.body(child, owner, static)

    def type_decl(self, node: Node, owner: SymbolFact | None) -> None:
        name = ruby_name(text(node.child_by_field_name("name")))
        key = f"{owner.key}.{name}" if owner is not None else name
        supers: list[tuple[str, str]] = []
        superclass = node.child_by_field_name("superclass")
        if superclass is not None and superclass.named_children:
            supers.append(("extends", ruby_name(text(superclass.named_children[0]))))
        body = node.child_by_field_name("body")
        words = ("module",) if node.type == "module" else ()
        head = squash(self.src[node.start_byte:(body.start_byte if body is not None else node.end_byte)]
                      .decode("utf-8", errors="replace"))
        sym = self.add(SymbolFact(
            key=key, name=name.rsplit(".", 1)[-1], kind="class", parent=owner.key if owner is not None else None,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1, signature=head, modifiers=words,
            docstring=_comment_doc(node), supers=tuple(supers)), (node.start_byte, node.end_byte))
        if body is not None:
            self.body(body, sym, False)

    def method(self, node: Node, owner: SymbolFact | None, static: bool) -> None:
        name = text(node.child_by_field_name("name"))
        kind = "function" if owner is None else "constructor" if name == "initialize" and not static else "method"
        params: list[tuple[str, str]] = []
        holder = node.child_by_field_name("parameters")
        for param in holder.named_children if holder is not None else []:
            if param.type in _PARAMS and (pname := _param_name(param)) is not None:
                params.append((pname, "..." if param.type in ("splat_parameter", "hash_splat_parameter") else ""))
                self.typed.append((param.child_by_field_name("name") or param, ""))
        body = node.child_by_field_name("body")
        head = squash(self.src[node.start_byte:(body.start_byte if body is not None else node.end_byte)]
                      .decode("utf-8", errors="replace"))
        key = f"{owner.key}.{name}" if owner is not None else name
        sym = self.add(SymbolFact(
            key=key, name=name, kind=kind, parent=owner.key if owner is not None else None,
            line_start=node.start_point[0] + 1, line_end=node.end_point[0] + 1, signature=head,
            modifiers=("static",) if static else (), docstring=_comment_doc(node), params=tuple(params)),
            (node.start_byte, node.end_byte))
        names = self.local_names.setdefault(sym.key, set())
        names.update(p for p, _ in params)
        if body is not None:
            self.scan_locals(body, names, owner)

    def scan_locals(self, body: Node, names: set[str], owner: SymbolFact | None) -> None:
        """A method's (or a block's) locals, the instance variables of ``owner`` and the values they are given."""
        stack = [body]
        while stack:
            current = stack.pop()
            if current.type in ("method", "singleton_method", "class", "module"):
                continue
            if current.type == "assignment":
                left, right = current.child_by_field_name("left"), current.child_by_field_name("right")
                if left is not None and left.type == "identifier":
                    names.add(text(left))
                    self.typed.append((left, _made(right)))
                elif left is not None and left.type == "instance_variable" and owner is not None:
                    line, types = self.ivars.setdefault(owner.key, {}).setdefault(
                        text(left)[1:], (current.start_point[0] + 1, set()))
                    types.add(_made(right))
            elif current.type == "block_parameters":
                for param in current.named_children:
                    if (pname := _param_name(param)) is not None:
                        names.add(pname)
                        self.typed.append((param.child_by_field_name("name") or param, ""))
            stack.extend(current.named_children)

    def assignment(self, node: Node, owner: SymbolFact | None) -> None:
        """``BASE = ...`` in a module, a class or the file: a constant."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or left.type != "constant" or right is None:
            return
        name = text(left)
        value = {"value": squash(text(right))[:300]}
        self.add(SymbolFact(f"{owner.key}.{name}" if owner is not None else name, name, "field",
                            owner.key if owner is not None else None, node.start_point[0] + 1, node.end_point[0] + 1,
                            f"{name} = {squash(text(right))[:120]}", ("const", "static"), type=_made(right),
                            extra=value))

    def declaring_call(self, node: Node, owner: SymbolFact | None) -> None:
        """``require``/``require_relative`` (imports), ``include``/``extend`` (the class's modules)."""
        method = node.child_by_field_name("method")
        if method is None or node.child_by_field_name("receiver") is not None:
            return
        name = text(method)
        args = node.child_by_field_name("arguments")
        values = [a for a in args.named_children] if args is not None else []
        if name in ("require", "require_relative") and values and values[0].type == "string":
            target = text(values[0])[1:-1]
            self.facts.imports.append(ImportFact(target, ((target, target.rsplit("/", 1)[-1]),),
                                                 node.start_point[0] + 1, static=name == "require_relative"))
        elif name in ("include", "extend", "prepend") and owner is not None:
            relation = "extends_modules" if name == "extend" else "includes"
            index = self.symbols.index(owner)
            added = tuple((relation, ruby_name(text(v))) for v in values if v.type in ("constant", "scope_resolution"))
            self.symbols[index].supers = self.symbols[index].supers + added

    # -- calls, values, locals ------------------------------------------------------------------
    def calls(self, root: Node) -> None:
        calls = self.facts.calls
        for node, tag, owner in self.owned(root, "(call) @call (identifier) @name (super) @super"):
            line = node.start_point[0] + 1
            if tag == "name":
                parent = node.parent
                if parent is None or parent.type not in _STATEMENT_PARENTS and not (
                        parent.type == "assignment" and parent.child_by_field_name("right") == node):
                    continue
                name = text(node)
                if name in self.local_names.get(owner or "", ()) or not owner and name in self._file_locals():
                    continue
                calls.append(CallFact(owner or "", name, None, 0, line))
                continue
            if tag == "super":
                continue
            found = self.call_fact(node, owner or "")
            if found is None:
                continue
            made = _made(node)
            if not made and found.name == "new" and found.receiver in (None, ["this"]) and owner:
                made = self.enclosing_class(owner)   # ``new(...)`` / ``self.new`` in a singleton method
            if made:
                found = CallFact(found.owner, made.rsplit(".", 1)[-1], ["type", made], found.argc, line, "new",
                                 (), found.args)
            calls.append(found)

    def enclosing_class(self, key: str) -> str:
        sym = self.by_key.get(key)
        while sym is not None and sym.kind != "class":
            sym = self.by_key.get(sym.parent) if sym.parent else None
        return sym.key if sym is not None else ""

    def _file_locals(self) -> set[str]:
        """Every name the file assigns or takes as a block parameter (a bare name outside methods is a call only
        when it is none of them)."""
        found = self.__dict__.get("_top_locals")
        if found is None:
            found = self._top_locals = {text(n.child_by_field_name("left")) for n in self.by_type("assignment")
                                        if n.child_by_field_name("left") is not None} | {
                name for n in self.by_type("block_parameters") for p in n.named_children
                if (name := _param_name(p)) is not None}
        return found

    def callee(self, call: Node, target: Node | None = None):
        method = call.child_by_field_name("method")
        if method is None or method.type not in ("identifier", "constant"):
            return None
        return call.child_by_field_name("receiver"), text(method)

    def receiver(self, node: Node) -> list:
        kind = node.type
        if kind == "self":
            return ["this"]
        if kind == "super":
            return ["super"]
        if kind in ("constant", "scope_resolution"):
            return ["name", ruby_name(text(node))]
        if kind == "identifier":
            return ["name", text(node)]
        if kind == "instance_variable":
            return ["field", ["this"], text(node)[1:]]
        if kind == "call":
            callee = self.callee(node)
            if callee is None:
                return ["other"]
            obj, name = callee
            if name == "new" and _made(node):
                return ["type", _made(node)]
            return ["call", self.receiver(obj) if obj is not None else None, name,
                    self.argc(node.child_by_field_name("arguments"))]
        if kind == "parenthesized_statements" and node.named_children:
            return self.receiver(node.named_children[-1])
        if kind in ("string", "string_array"):
            return ["type", "String"]
        return ["other"]

    def arg_texts(self, args: Node | None, limit: int = 8, width: int = 300) -> tuple[str, ...]:
        """Up to eight arguments (a Rails route's options follow its path: ``to:``, ``via:``, ``only:``)."""
        return super().arg_texts(args, limit, width)

    def record_values(self, pairs) -> None:
        for node in self.by_type("assignment", "operator_assignment"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None:
                continue
            if left.type == "call" and text(left).endswith(".api_only") and text(right) == "true":
                self.facts.extra["api_only"] = True   # Rails ``config.api_only = true``: resources have no forms
            if left.type in ("identifier", "constant"):
                pairs.append((text(left), right))
            elif left.type == "instance_variable":
                pairs.append(("this." + text(left)[1:], right))
        super().record_values(pairs)

    def by_type(self, *types: str) -> list[Node]:
        found = self.__dict__.get("_nodes")
        if found is None:
            found = self._nodes = {}
            stack = [self.parse_root]
            while stack:
                current = stack.pop()
                found.setdefault(current.type, []).append(current)
                stack.extend(current.named_children)
        return sorted((n for t in types for n in found.get(t, ())), key=lambda n: n.start_byte)

    def parse(self) -> Node:
        self.parse_root = super().parse()
        return self.parse_root

    def branches(self, value: Node, depth: int) -> list[Node]:
        if value.type == "conditional" and depth < 4:
            return [*self.branches(value.child_by_field_name("consequence"), depth + 1),
                    *self.branches(value.child_by_field_name("alternative"), depth + 1)]
        return [] if value.type in _VALUES_OPAQUE else [value]

    def blocks(self, root: Node) -> None:
        """Calls given a block (``get '/p' do``, ``namespace :api do``, ``routes.draw do``): the name, the
        receiver as written, the arguments as written and the lines the block spans, in ``extra["blocks"]``."""
        found = []
        for node in self.by_type("call"):
            block = node.child_by_field_name("block")
            method = node.child_by_field_name("method")
            if block is None or method is None:
                continue
            receiver = node.child_by_field_name("receiver")
            args = node.child_by_field_name("arguments")
            found.append({"name": text(method), "receiver": squash(text(receiver)) if receiver is not None else "",
                          "args": [squash(text(a))[:300] for a in (args.named_children if args is not None else [])
                                   if a.type != "comment"],
                          "line": node.start_point[0] + 1, "start": block.start_point[0] + 1,
                          "end": block.end_point[0] + 1})
        if found:
            self.facts.extra["blocks"] = found


SYNTAX = Syntax(
    grammar=GRAMMAR, comments=frozenset({"comment"}),
    calls={"call": ("receiver", "method")}, members={}, decorators=frozenset(),
    literals={"string": "String"}, wrappers=frozenset({"parenthesized_statements"}),
    names=frozenset({"identifier", "constant"}),
    not_calls=frozenset({"require", "require_relative"}),   # imports (`declaring_call`), not code that runs
    generated_header=re.compile(rb"(?i)(@generated|auto-?generated|do not edit|generated by)"), header_bytes=600,
)


def extract(path: str, src: bytes) -> FileFacts:
    """The facts of one Ruby file (pure: depends only on ``path`` and ``src``)."""
    return _Extractor(path, src).run()
