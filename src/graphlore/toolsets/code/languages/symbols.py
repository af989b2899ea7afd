"""Cross-file resolution: the project-wide symbol table and the dependency tracking that makes
incremental builds exact.

Every lookup a file's resolution makes into the rest of the project goes through `Table` and is
recorded as a *dependency key*: ``t:<fqn>`` (a type, Python module or TS module, with its members and
supertypes), ``n:<name>`` (the project callables with that name, for name-only call resolution) or
``b:<file name>`` (the files of that name, for a look-up by the end of a path: a C++ ``#include "x.h"``).
Each file publishes a *digest* per key it defines (everything a dependant can read through that key).
When files change, the keys whose digest changed (appeared, vanished or differ) are invalidated, and
every unchanged file that looked one of them up is resolved again. Resolution of one file is a pure
function of its facts, its layout context and the answers of the lookups it recorded, so an
incremental build equals a full build.

Memoised answers (e.g. a class's resolved supertypes, shared by every file that inherits from it) carry
the dependency keys they were computed from, and replay them into whichever file reuses them
(`Tracker.memo`).
"""

from __future__ import annotations

import bisect
import hashlib
import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..model import (
    CALLABLE_KINDS,
    TYPE_KINDS,
    CallFact,
    FileContext,
    FileFacts,
    GraphEdge,
    GraphNode,
    SymbolFact,
    make_edge,
    node_text,
    split_words,
    symbol_id,
)
from .base import Language

Ref = tuple[str, int]   # (path, symbol index); index -1 is the file / module symbol itself


#: the mark `Extractor.unique` puts on the second and later declarations of one name in a scope
DUPLICATE_MARK = re.compile(r"~\d+")

def reaches(caller: FileContext, target: FileContext) -> bool:
    """Whether code in ``caller`` can call code in ``target`` in-process: its own service's, or a library's (a
    service that is not deployed itself, so runs inside whichever service uses it). Another deployed service's
    code runs in another process: a name there is never what a call here means, even when it is spelt alike."""
    return target.microservice == caller.microservice or not target.deployable


class Bound:
    """One file's facts bound to its layout context and language: ids, fqns and a child index.

    A symbol's fqn is its key after the file's package (Java) or module name (Python dotted, TS/JS path),
    joined by the language's separator (``com.shop.Order#place(int)``, ``shop.models.Order.save``,
    ``src/app.ts#App.run``); the file itself is named by its module name, else by its path.
    """

    __slots__ = ("path", "facts", "ctx", "language", "prefix", "ids", "fqns", "by_key", "children", "file_id",
                 "file_fqn", "calls")

    def __init__(self, facts: FileFacts, ctx: FileContext, language: Language):
        self.path = facts.path
        self.facts = facts
        self.ctx = ctx
        self.language = language
        self.prefix = facts.package or ctx.module_name
        self.file_fqn = facts.path if language.shared_module else (ctx.module_name or facts.path)
        self.file_id = symbol_id(facts.path, "")
        self.ids: list[str] = []
        self.fqns: list[str] = []
        self.by_key: dict[str, int] = {}
        self.children: dict[str, list[int]] = {}
        for index, sym in enumerate(facts.symbols):
            self.ids.append(symbol_id(facts.path, sym.key))
            self.fqns.append(self.fqn_of(sym))
            self.by_key[sym.key] = index
            self.children.setdefault(sym.parent or "", []).append(index)
        #: symbol key ("" for the file) -> the call sites in its own body (what `body_text` reads)
        self.calls: dict[str, list[CallFact]] = {}
        for call in facts.calls:
            self.calls.setdefault(call.owner, []).append(call)

    def fqn_of(self, sym: SymbolFact) -> str:
        key = DUPLICATE_MARK.sub("", sym.key)  # "Foo~2.save~2": the second Foo's second save is Foo.save
        return f"{self.prefix}{self.language.separator}{key}" if self.prefix else key

    def sym(self, index: int) -> SymbolFact:
        return self.facts.symbols[index]

    def members(self, key: str) -> list[int]:
        return self.children.get(key, [])

    def indexed(self) -> list[tuple[str, int]]:
        """(fqn, index) of what this file publishes under ``t:`` keys: its module (a file other files import by
        its module name) and its types."""
        out: list[tuple[str, int]] = []
        if self.ctx.module_name:
            out.append((self.ctx.module_name, -1))
        for index, sym in enumerate(self.facts.symbols):
            if sym.kind in TYPE_KINDS:
                out.append((self.fqns[index], index))
        return out


class Tracker:
    """Collects dependency keys; `memo` caches an answer together with the keys it needed."""

    __slots__ = ("_frames",)

    def __init__(self) -> None:
        self._frames: list[set[str]] = [set()]

    def add(self, key: str) -> None:
        self._frames[-1].add(key)

    def memo(self, cache: dict, key: Any, compute: Callable[[], Any]) -> Any:
        hit = cache.get(key)
        if hit is not None:
            self._frames[-1].update(hit[1])
            return hit[0]
        self._frames.append(set())
        try:
            value = compute()
        finally:
            deps = self._frames.pop()
        cache[key] = (value, frozenset(deps))
        self._frames[-1].update(deps)
        return value

    def take(self) -> frozenset[str]:
        deps = frozenset(self._frames[0])
        self._frames = [set()]
        return deps


class Table:
    """The project's symbol table: every bound file, types and modules by fqn, callables by name."""

    def __init__(self) -> None:
        self.files: dict[str, Bound] = {}
        self._by_fqn: dict[str, list[Ref]] = {}
        self._by_name: dict[str, list[Ref]] = {}
        #: per-batch memo caches, cleared by `new_batch`
        self.caches: dict[str, dict] = {}

    def new_batch(self) -> None:
        self.caches = {}

    def cache(self, name: str) -> dict:
        found = self.caches.get(name)
        if found is None:
            found = self.caches[name] = {}
        return found

    def add(self, bound: Bound) -> None:
        """Publish the file's names; a file the default build leaves out (``extra["build_excluded"]``, Go's build
        constraints) is kept for its own calls, but nothing resolves to what it declares."""
        self.files[bound.path] = bound
        if bound.facts.extra.get("build_excluded"):
            return
        for fqn, index in bound.indexed():
            bisect.insort(self._by_fqn.setdefault(fqn, []), (bound.path, index))
        for index, sym in enumerate(bound.facts.symbols):
            if sym.kind in CALLABLE_KINDS:
                bisect.insort(self._by_name.setdefault(sym.name, []), (bound.path, index))

    def remove(self, path: str) -> Bound | None:
        bound = self.files.pop(path, None)
        if bound is None or bound.facts.extra.get("build_excluded"):
            return bound
        for fqn, index in bound.indexed():
            refs = self._by_fqn.get(fqn)
            if refs is not None:
                refs.remove((path, index))
                if not refs:
                    del self._by_fqn[fqn]
        for index, sym in enumerate(bound.facts.symbols):
            if sym.kind in CALLABLE_KINDS:
                refs = self._by_name.get(sym.name)
                if refs is not None:
                    refs.remove((path, index))
                    if not refs:
                        del self._by_name[sym.name]
        return bound

    def lookup(self, fqn: str, tracker: Tracker) -> list[Ref]:
        tracker.add("t:" + fqn)
        return self._by_fqn.get(fqn, [])

    def by_name(self, name: str, tracker: Tracker) -> list[Ref]:
        tracker.add("n:" + name)
        return self._by_name.get(name, [])

    def sym(self, ref: Ref) -> SymbolFact:
        return self.files[ref[0]].facts.symbols[ref[1]]

    def id_of(self, ref: Ref) -> str:
        bound = self.files[ref[0]]
        return bound.file_id if ref[1] < 0 else bound.ids[ref[1]]

    def fqn_of(self, ref: Ref) -> str:
        bound = self.files[ref[0]]
        return bound.file_fqn if ref[1] < 0 else bound.fqns[ref[1]]


# ---- digests ----------------------------------------------------------------------------------------

def _h(value: Any) -> str:
    return hashlib.blake2b(json.dumps(value, sort_keys=True, default=list).encode(), digest_size=12).hexdigest()


def _sym_shape(sym: SymbolFact) -> tuple:
    return (sym.key, sym.kind, sym.name, sym.type, sym.params, sym.supers, sym.modifiers,
            [(a.name, a.args) for a in sym.annotations], sym.type_params, sym.generated, sym.extra)


def digests(bound: Bound) -> dict[str, str]:
    """What each dependency key this file defines reads as; see the module docstring."""
    facts = bound.facts
    context = (facts.language, facts.package, bound.prefix, bound.ctx.microservice, bound.ctx.module,
               bound.ctx.is_test, bound.ctx.deployable,
               [(i.target, i.names, i.static, i.reexport) for i in facts.imports])
    out: dict[str, str] = {}
    for fqn, index in bound.indexed():
        if index < 0:
            members = [_sym_shape(facts.symbols[i]) for i in bound.members("")]
            value = (context, members, facts.extra)
        else:
            sym = facts.symbols[index]
            members = [_sym_shape(facts.symbols[i]) for i in bound.members(sym.key)]
            value = (context, _sym_shape(sym), members)
        key = "t:" + fqn
        out[key] = _h((out.get(key), value)) if key in out else _h(value)
    if bound.language.packages:
        out["p:" + facts.package] = _h(facts.package)
    # a file found by the end of its path (a C++ ``#include "x.h"``): its coming or going changes who finds it
    out["b:" + posixpath.basename(facts.path)] = _h(facts.path)
    by_name: dict[str, list] = {}
    for index, sym in enumerate(facts.symbols):
        if sym.kind in CALLABLE_KINDS:
            by_name.setdefault(sym.name, []).append((bound.fqns[index], _sym_shape(sym), bound.ctx.is_test))
    for name, shapes in by_name.items():
        out["n:" + name] = _h(shapes)
    return out


# ---- results ------------------------------------------------------------------------------------------

@dataclass(slots=True)
class FileResult:
    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)
    deps: frozenset[str] = frozenset()


class EdgeSink:
    """Collects one file's edges, merging repeats of (src, type, dst): call sites add their lines."""

    def __init__(self) -> None:
        self.edges: dict[tuple[str, str, str], GraphEdge] = {}

    def add(self, src: str, type_: str, dst: str, props: dict[str, Any] | None = None) -> GraphEdge:
        key = (src, type_, dst)
        edge = self.edges.get(key)
        if edge is None:
            edge = self.edges[key] = make_edge(src, type_, dst, dict(props or {}))
        return edge

    def call(self, src: str, dst: str, resolution: str, confidence: float, line: int) -> None:
        edge = self.add(src, "CALLS", dst, {"resolution": resolution, "confidence": confidence, "lines": []})
        props = edge.props
        if confidence > props["confidence"]:
            props["confidence"] = confidence
            props["resolution"] = resolution
        if line not in props["lines"]:
            props["lines"].append(line)
            props["lines"].sort()
        props["count"] = props.get("count", 0) + 1

    def inject(self, src: str, dst: str, via: str, member: str) -> None:
        edge = self.add(src, "INJECTS", dst, {"via": [], "members": []})
        if via not in edge.props["via"]:
            edge.props["via"].append(via)
            edge.props["via"].sort()
        if member not in edge.props["members"]:
            edge.props["members"].append(member)
            edge.props["members"].sort()

    def values(self) -> list[GraphEdge]:
        return sorted(self.edges.values(), key=lambda e: e.id)


#: at most this many distinct names and literal words of a body go into its symbol's search text
BODY_WORDS = 48
#: a string literal longer than this is cut before its words are read
LITERAL_CHARS = 120
_LITERAL = re.compile(r"""(["'`])((?:\\.|(?!\1).)*)\1""")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+")


def body_text(calls: list[CallFact]) -> str:
    """What a symbol's body says it does, for BM25: the names it calls and the receivers it calls them on
    (``localStorage.setItem`` -> ``localStorage setItem``, with their case-change words) and the words of the
    string literals it passes (a log message, a key, a query), each once, at most `BODY_WORDS`. The call's
    name is the syntax's, resolved or not, so the text depends on this file alone (incremental == full)."""
    seen: dict[str, None] = {}
    for call in calls:
        for name in (receiver_text(call.receiver).rsplit(".", 1)[-1], call.name):
            if name and _WORD.fullmatch(name):
                seen.setdefault(name)
        for arg in call.args:
            for _, literal in _LITERAL.findall(arg[:LITERAL_CHARS]):
                for word in _WORD.findall(literal):
                    seen.setdefault(word)
        if len(seen) >= BODY_WORDS:
            break
    names = list(seen)[:BODY_WORDS]
    if not names:
        return ""
    words = split_words(*names)
    return " ".join(names) + (f"\n{words}" if words else "")


#: an annotation argument longer than this is cut before its words are read (a prompt, an OpenAPI description)
ANNOTATION_CHARS = 600
#: a string literal that may span lines (a Java text block, a Python triple-quoted string, a TS template: a prompt)
_LITERAL_LINES = re.compile(_LITERAL.pattern, re.DOTALL)


def annotation_words(annotations) -> str:
    """The words of the string literals a symbol's annotations or decorators pass (``@Tool(description = "Find
    an owner by name")``, ``@SystemMessage("You are a ...")``, ``@Operation(summary = "...")``, a route decorator's
    path), each once, at most `BODY_WORDS`: what a framework is told the symbol does, read from this file alone
    (incremental == full). Identifiers and constants are not read (a name says nothing a reader would search)."""
    seen: dict[str, None] = {}
    for annotation in annotations:
        for _, value in annotation.args:
            for _, literal in _LITERAL_LINES.findall(value[:ANNOTATION_CHARS]):
                for word in _WORD.findall(literal):
                    seen.setdefault(word)
    names = list(seen)[:BODY_WORDS]
    words = split_words(*names) if names else ""
    return " ".join(names) + (f"\n{words}" if words else "")


def symbol_node(bound: Bound, index: int, props: dict[str, Any]) -> GraphNode:
    """A symbol's node: the shared attributes plus the language resolver's ``props``."""
    sym = bound.facts.symbols[index]
    fqn = bound.fqns[index]
    base = {
        "fqn": fqn,
        "symbol_kind": sym.kind,
        "language": bound.facts.language,
        "microservice": bound.ctx.microservice,
        "module": bound.ctx.module,
        "file": bound.path,
        "line_start": sym.line_start,
        "line_end": sym.line_end,
        "signature": sym.signature,
        "modifiers": list(sym.modifiers),
        # Java: simple names (``RestController``); Python and TS decorators as written (``app.get``)
        "annotations": sorted({a.name.rsplit(".", 1)[-1] if bound.language.simple_annotations else a.name
                               for a in sym.annotations}),
        "docstring": sym.docstring,
        "generated": sym.generated,
    }
    annotation_text = [_annotation_text(a) for a in sym.annotations if a.args]
    if annotation_text:
        base["annotation_text"] = annotation_text
    if sym.kind in CALLABLE_KINDS:
        base["params"] = [{"name": n, "type": t} for n, t in sym.params]
        if sym.kind != "constructor":
            base["return_type"] = sym.type
    elif sym.kind == "field":
        base["type"] = sym.type
    if sym.type_params:
        base["type_params"] = list(sym.type_params)
    base.update(props)
    said = "\n".join(part for part in (annotation_words(sym.annotations), body_text(bound.calls.get(sym.key, [])))
                      if part)
    text = node_text(sym.name, fqn, sym.signature, sym.docstring, said)
    return GraphNode(bound.ids[index], "symbol", sym.name, text, base)


#: the owner of a call outside every symbol: the file's top-level code
TOP_LEVEL = ""


def file_node(bound: Bound, symbol_kind: str, props: dict[str, Any]) -> GraphNode:
    """A file's node, named by its file name, or by the last part of its dotted module name (Python). Its text
    holds what its top-level code calls and says (`body_text`), as a function's does: that code runs (an app's
    wiring, a client's configuration), and no other symbol holds it; ``top_level_code`` marks a file that has
    some (`query.tools` then ranks it as code, not as a declaration)."""
    module = bound.ctx.module_name
    name = module.rsplit(".", 1)[-1] if module and module != bound.path and not bound.language.shared_module \
        else bound.path.rsplit("/", 1)[-1]
    facts = bound.facts
    base = {
        "fqn": bound.file_fqn,
        "symbol_kind": symbol_kind,
        "language": facts.language,
        "microservice": bound.ctx.microservice,
        "module": bound.ctx.module,
        "file": bound.path,
        "line_start": 1,
        "line_end": max(facts.loc, 1),
        "signature": "",
        "modifiers": [],
        "annotations": [],
        "docstring": facts.extra.get("docstring", ""),
        "generated": bool(facts.extra.get("generated")),
        "loc": facts.loc,
        "content_hash": facts.content_hash,
    }
    if facts.syntax_errors:
        base["syntax_errors"] = facts.syntax_errors
    said = body_text(bound.calls.get(TOP_LEVEL, []))
    if said:  # a script, a Python/TS module's setup, C# top-level statements (``Program.cs``)
        base["top_level_code"] = True
    base.update(props)
    return GraphNode(bound.file_id, "symbol", name, node_text(name, bound.file_fqn, "", base["docstring"], said), base)


def _annotation_text(annotation) -> str:
    args = ", ".join(f"{k}={v}" if k else v for k, v in annotation.args)
    return f"@{annotation.name}({args})"


def receiver_text(receiver: Any) -> str:
    """A call's receiver tree back as short source-like text (for unresolved call sites)."""
    if receiver is None:
        return ""
    kind = receiver[0]
    if kind in ("this", "super", "self"):
        return kind
    if kind == "name":
        return receiver[1]
    if kind == "field":
        return f"{receiver_text(receiver[1])}.{receiver[2]}"
    if kind == "call":
        inner = receiver_text(receiver[1])
        return f"{inner + '.' if inner else ''}{receiver[2]}(...)"
    if kind == "type":
        return f"new {receiver[1]}()"
    return "<expr>"
