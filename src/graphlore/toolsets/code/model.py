"""The code graph's records: what one file says (facts) and what the graph holds (nodes and edges).

Two layers, kept apart so that incremental builds are exact:

* **Facts** (`FileFacts`, `SymbolFact`, `ImportFact`, `CallFact`) are a pure function of one file's
  path and bytes. They say what is written (names, types as written, receivers) and never look at
  another file, so a file whose content hash is unchanged is never parsed again.
* **Graph records** (`GraphNode`, `GraphEdge`) come out of cross-file resolution (`languages/resolver.py`). Every
  edge is owned by the file of its source symbol, so re-resolving a file replaces exactly its edges.

Graph records map one to one onto the platform store (`store.base.Node` / `Edge`): `id`, `kind`,
`name`, `text` (BM25: name, fqn, signature, docstring) and JSON-able `props`; edges `id`, `src`,
`dst`, `type`, `props`. Ids are stable: a symbol's id is a hash of its file path and its key inside
the file, an edge's id a hash of (src, type, dst).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

# ---- closed vocabularies -------------------------------------------------------------------------

#: symbol_kind values. ``package``: a Java package (per module) or a Python package (``__init__.py``);
#: ``module``: a Python or TS/JS file; ``file``: a Java source file.
SYMBOL_KINDS = (
    "package", "module", "file", "class", "interface", "enum", "record", "annotation",
    "function", "method", "constructor", "field",
)
TYPE_KINDS = frozenset({"class", "interface", "enum", "record", "annotation"})
CALLABLE_KINDS = frozenset({"function", "method", "constructor"})
CONTAINER_KINDS = frozenset({"package", "module", "file"})

ROLES = ("CONTROLLER", "SERVICE", "REPOSITORY", "CLIENT", "ENTITY", "CONFIG", "DTO", "TEST", "OTHER")

CAPABILITIES = (
    "HTTP_ENDPOINT", "HTTP_CLIENT", "MESSAGE_LISTENER", "MESSAGE_PRODUCER", "SCHEDULED_TASK",
    "ASYNC_TASK", "EVENT_LISTENER", "EXCEPTION_HANDLER", "TRANSACTIONAL", "ENTRY_POINT",
)

#: Edge types: the code's structure (part 1), then routes, clients, producers and the links between them.
EDGE_TYPES = ("DECLARES", "EXTENDS", "IMPLEMENTS", "OVERRIDES", "INJECTS", "IMPORTS", "CALLS", "TRIGGERS",
              "EXPOSES", "DECLARES_CLIENT", "DECLARES_PRODUCER", "HTTP_CALLS", "ASYNC_CALLS", "GRPC_CALLS")

#: Node kinds: the layout, symbols, and part 2's routes (HTTP endpoints, gRPC methods and message listeners),
#: clients and producers.
NODE_KINDS = ("symbol", "microservice", "module", "route", "client", "producer")

#: How a CALLS edge was resolved, with the confidence it carries.
RESOLUTIONS: dict[str, float] = {
    "same_class": 1.0,      # unqualified or this./self. call to a member of the enclosing class
    "constructor": 1.0,     # new T(...) / T(...) / this(...) / super(...)
    "static": 1.0,          # Type.method(...) / module.function(...) through a resolved name
    "local": 1.0,           # a function defined in the same module or scope
    "super": 0.95,          # super.method(...) / super().method(...)
    "receiver_type": 0.9,   # the receiver's declared type (variable, parameter, field, annotation)
    "static_import": 0.9,   # Java static import / Python from-import / TS named import
    "inherited": 0.9,       # found in a project supertype of the enclosing or receiver class
    "enclosing_class": 0.9,  # an inner class calling its outer class's member
    "inferred_type": 0.7,   # the receiver's type came from a return type or `var x = new T()`
    "name_only": 0.3,       # receiver unknown; the only project callable with that name and arity
}

#: Why a call site stayed unresolved.
UNRESOLVED_REASONS = (
    "external_type",        # the receiver's type is outside the project (e.g. java.util.List)
    "external_base",        # not in the project class; an external supertype may declare it
    "external_name",        # the called name was imported from outside the project
    "builtin",              # a language builtin (len, print, ...)
    "ambiguous",            # several project callables fit; all are listed as candidates
    "unknown_receiver",     # the receiver's type is unknown and no unique name-only candidate exists
    "not_found",            # the receiver type is known and in the project but declares no such member
    "undefined_name",       # an unqualified name defined nowhere in scope
    "dynamic",              # the callee is a parameter or variable: its value is known only at run time
    "other_service",        # what the name means is code of another deployed service: reached over the network only
)


# ---- ids -----------------------------------------------------------------------------------------

def content_hash(data: bytes) -> str:
    """A file's content hash: a file whose hash is unchanged is never parsed again."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def short_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def symbol_id(path: str, key: str) -> str:
    """Stable id of a symbol: its file path plus its key inside the file (never a sequence number)."""
    return "sym_" + short_hash(f"{path}\x00{key}")


def package_id(module_path: str, package: str) -> str:
    return "pkg_" + short_hash(f"{module_path}\x00{package}")


def service_id(name: str) -> str:
    return "svc_" + short_hash(name)


def module_id(path: str) -> str:
    return "mod_" + short_hash(path)


def edge_id(src: str, type_: str, dst: str) -> str:
    return "e_" + short_hash(f"{src}\x00{type_}\x00{dst}")


# ---- facts (one file, no cross-file knowledge) ---------------------------------------------------

@dataclass(frozen=True, slots=True)
class FileContext:
    """What the layout says about one source file."""

    microservice: str
    module: str
    #: the file's module name as other files import it (Python dotted name, TS/JS relative path); "" when the
    #: file declares its own namespace (a Java package)
    module_name: str
    is_test: bool
    #: whether its service is deployed (runs on its own); a library's code is part of whichever service uses it
    deployable: bool = True
    #: TS/JS module path aliases of the file's nearest tsconfig/bundler config (`typescript.aliases`)
    aliases: tuple = ()


@dataclass(slots=True)
class AnnotationFact:
    """An annotation or decorator as written: ``name`` without ``@`` or arguments (``RequestMapping``,
    ``app.route``), ``args`` the raw source of each argument (positional ones under ``""``); ``line`` where it is
    written (0: not recorded; a method's own first line may be another annotation's, ``@Override``)."""

    name: str
    args: tuple[tuple[str, str], ...] = ()
    line: int = field(default=0, compare=False)


@dataclass(slots=True)
class SymbolFact:
    """One declared symbol. ``key`` is unique inside the file (Java ``Outer.Inner#m(String,int)``,
    Python ``Class.method``, TS ``Class.method``); ``parent`` is the key of its container, or None for
    top-level declarations (whose container is the file/module symbol, key ``""``)."""

    key: str
    name: str
    kind: str
    parent: str | None
    line_start: int
    line_end: int
    signature: str = ""
    modifiers: tuple[str, ...] = ()
    annotations: tuple[AnnotationFact, ...] = ()
    docstring: str = ""
    #: field / variable type, or a callable's return type, as written with generic arguments removed
    type: str = ""
    #: (name, type as written) per parameter; variadic parameters end with ``...`` / start with ``*``
    params: tuple[tuple[str, str], ...] = ()
    #: supertypes as written: ("extends" | "implements", name)
    supers: tuple[tuple[str, str], ...] = ()
    type_params: tuple[str, ...] = ()
    generated: bool = False
    #: language-specific extras (JSON-able), e.g. ``{"lombok": [...]}``, ``{"value": "..."}``
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ImportFact:
    """One import as written. ``target``: Java ``a.b.C`` / ``a.b`` (wildcard); Python the dotted module
    (with leading dots when relative); TS the module specifier. ``names``: (imported, local alias)
    pairs; ``("*", "*")`` for a wildcard / star import, ``("default", x)`` for a TS default import,
    ``("*", ns)`` for ``import * as ns``. ``reexport`` marks TS ``export ... from`` and Python
    ``__init__`` style re-exports are ordinary imports. ``line`` 0: no line of the file writes it, its project shares
it with every file (C#'s ``global using``, `csharp.usings`)."""

    target: str
    names: tuple[tuple[str, str], ...]
    line: int
    static: bool = False
    reexport: bool = False


@dataclass(slots=True)
class CallFact:
    """One call site inside symbol ``owner``. ``receiver`` is a small JSON-able expression tree:
    ``None`` (unqualified), ``["this"]``, ``["super"]``, ``["name", x]``, ``["field", recv, x]``,
    ``["call", recv, name, argc]``, ``["new", type]``, ``["other"]``. ``kind``: ``call``, ``new``
    (constructor), ``this`` / ``super`` (explicit constructor call), ``ref`` (method reference)."""

    owner: str
    name: str
    receiver: Any
    argc: int
    line: int
    kind: str = "call"
    #: best-effort static types of the arguments (Java literals and typed locals), "" when unknown
    arg_types: tuple[str, ...] = ()
    #: the first arguments as written (at most 3, each cut at 200 characters): what part 2 folds into
    #: paths, topics and URLs (``restTemplate.getForObject(BASE + "/x")``, ``fetch(`/api/${id}`)``)
    args: tuple[str, ...] = ()
    #: the line that writes the called name when it is not ``line`` (Java: a link of a fluent chain written one
    #: call a line, ``Builder\n  .forType(..)\n  .andForType(..)``, where ``line`` is the chain's first); 0 otherwise
    name_line: int = 0


@dataclass(slots=True)
class FileFacts:
    """Everything one file says. ``package``: Java package declaration ("" if none); for Python and TS
    the module name comes from the project layout instead."""

    path: str
    language: str
    content_hash: str
    loc: int
    package: str = ""
    symbols: list[SymbolFact] = field(default_factory=list)
    imports: list[ImportFact] = field(default_factory=list)
    calls: list[CallFact] = field(default_factory=list)
    #: owner key -> variable name -> [(line, type as written)] for receiver typing
    locals: dict[str, dict[str, list[tuple[int, str]]]] = field(default_factory=dict)
    #: module-level extras, e.g. Python ``__all__``, TS ``export default`` target, generated header
    extra: dict[str, Any] = field(default_factory=dict)
    syntax_errors: int = 0


# ---- graph records ---------------------------------------------------------------------------------

@dataclass(slots=True)
class GraphNode:
    """A node as the store will hold it: kind ``symbol`` | ``microservice`` | ``module``."""

    id: str
    kind: str
    name: str
    text: str
    props: dict[str, Any]


@dataclass(slots=True)
class GraphEdge:
    id: str
    src: str
    dst: str
    type: str
    props: dict[str, Any]


def make_edge(src: str, type_: str, dst: str, props: dict[str, Any] | None = None) -> GraphEdge:
    return GraphEdge(edge_id(src, type_, dst), src, dst, type_, props or {})


_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z]|[0-9]|\b|_)|[A-Z]?[a-z]+|[0-9]+")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def split_words(*texts: str) -> str:
    """The case-change words of every identifier in ``texts`` that has more than one, once each."""
    seen: dict[str, None] = {}
    for text in texts:
        for ident in _IDENT.findall(text):
            parts = _CAMEL.findall(ident)
            if len(parts) > 1:
                for part in parts:
                    seen.setdefault(part.lower())
    return " ".join(seen)


def node_text(name: str, fqn: str, signature: str, docstring: str, body: str = "") -> str:
    """What BM25 sees for a symbol: its name, fqn, signature, docstring and what its body calls
    (`symbols.body_text`)."""
    return "\n".join(part for part in (name, fqn, signature, docstring, body) if part)
