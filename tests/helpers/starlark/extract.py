"""One Starlark file's facts: top-level functions, ``load`` statements and call sites."""

from __future__ import annotations

import tree_sitter_python
from tree_sitter import Node

from graphlore.toolsets.code.languages.extractor import Extractor, Syntax
from graphlore.toolsets.code.languages.parsing import Grammar, squash, text
from graphlore.toolsets.code.model import FileFacts, ImportFact, SymbolFact

#: Starlark is Python's syntax: calls, attribute access and strings read as Python's (``load(...)`` is no call)
SYNTAX = Syntax(Grammar("starlark", tree_sitter_python.language), frozenset({"comment"}), {"call": (None, "function")},
                {"attribute": ("object", "attribute")}, literals={"string": "string"}, not_calls=frozenset({"load"}))


def _string(node: Node) -> str:
    return text(node).strip("'\"")


class _Extractor(Extractor):
    def run(self) -> FileFacts:
        root = self.parse()
        for node in root.named_children:
            if node.type == "function_definition":
                self.function(node)
            elif node.type == "expression_statement" and node.named_children and node.named_children[0].type == "call":
                self.load(node.named_children[0])
        for node, _tag, owner in self.owned(root, "(call) @call"):
            found = self.call_fact(node, owner) if owner is not None else None
            if found is not None:
                self.facts.calls.append(found)
        return self.finish(root)

    def function(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        params = node.child_by_field_name("parameters")
        self.add(SymbolFact(
            key=name, name=name, kind="function", parent=None, line_start=node.start_point[0] + 1,
            line_end=node.end_point[0] + 1,
            signature=squash(self.src[node.start_byte:body.start_byte].decode("utf-8", "replace")).rstrip(":"),
            params=tuple((text(p), "") for p in (params.named_children if params is not None else [])
                         if p.type == "identifier"),
        ), (node.start_byte, node.end_byte))

    def load(self, call: Node) -> None:
        """``load("//pkg:defs.bzl", "a", b="c")``: names ``a`` and ``c`` (bound as ``b``) from ``pkg/defs.bzl``."""
        if text(call.child_by_field_name("function")) != "load":
            return
        args = call.child_by_field_name("arguments")
        items = args.named_children if args is not None else []
        if not items or items[0].type != "string":
            return
        names = []
        for arg in items[1:]:
            if arg.type == "string":
                names.append((_string(arg), _string(arg)))
            elif arg.type == "keyword_argument":
                names.append((_string(arg.child_by_field_name("value")), text(arg.child_by_field_name("name"))))
        self.facts.imports.append(ImportFact(_string(items[0]), tuple(names), call.start_point[0] + 1))


def extract(path: str, src: bytes) -> FileFacts:
    return _Extractor(SYNTAX, path, src, "starlark").run()
