"""How the code graph's records become store rows: node text, lookup keys and the hashes that skip rewrites.

**Text.** BM25 reads a node's ``name`` and ``text``: for a symbol its name, the words of its name and fqn
split at case changes (``getAccountByName`` -> ``get account by name``; BM25 alone would see one word),
its fqn, signature, docstring and what its body calls and says (`symbols.body_text`). The embedding reads `embedding_text` (kind, name, fqn, signature and
the start of the docstring); ``Node.text_hash`` is that text's hash, so a symbol is embedded again only
when it changes.

**Lookup keys** (exact, indexed; `Store.nodes_by_keys` / `Store.nodes_with_keys`):

* ``f:<field>=<value>`` for every filter field of `find` (see `filters.py`): one key per value, so a
  filter is an AND of ORs over keys and never reads props. ``fqn_prefix`` keys are every prefix of the
  fqn that ends at a segment boundary (``.``, ``#``, ``/``), the fqn included; ``file_prefix`` keys
  every folder of the file's path and the path itself.
* part 2's nodes: ``f:`` keys of their filter fields (``http_method``, ``framework``, ``client_kind``,
  ``target_service``, ``resolved``, ``producer_kind``; ``path_prefix``, ``target_path_prefix`` and
  ``topic_prefix`` for every prefix, see `url_path_prefixes` / `topic_prefixes`); a route's template
  under ``tpl:`` (variable names dropped: ``tpl:GET /users/{}``), and when it starts with a prefix only a
  deployment gives (``/{?}/users/{id}``) the rest under ``tplx:``; a listener's topic under ``name:``.
* what `resolve` looks up, one tier per prefix: ``fqn:`` (exact), ``np:`` (a Java fqn without its
  parameter list), ``fqnl:`` (lower case), ``sfx:`` (the fqn without a package prefix: every tail of at
  least two segments, ``#`` read as ``.``), ``name:`` / ``namel:`` (the simple name; constructors
  have none, so a class name means the class), ``path:`` (a file's path and every tail
  of it at a ``/``), ``id:`` is not needed (ids are looked up directly).

Props keep every attribute of the record; hidden ones (leading ``_``, left out of `describe`) hold the
prefixes (fqn, file, path, target path, topic) so that `search` can apply the same prefix filters
through ``where``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from graphlore.store import Edge, Node

from ..model import GraphEdge, GraphNode, split_words
from ..services.endpoints import CASELESS

#: node kinds that carry vectors (everything an agent searches for; services and modules are few and named)
EMBEDDED_KINDS = frozenset({"symbol", "route", "client", "producer"})
#: docstring characters that go into the embedding text
DOCSTRING_CHARS = 600

_SEGMENT = re.compile(r"[.#/]")


def digest(value: Any) -> str:
    """A short hash of a JSON-able value as this code builds it: its ``repr`` (dict order is the code's,
    so two writes of the same `persist.FORMAT` agree; ``repr`` costs half of ``json.dumps``)."""
    return hashlib.blake2b(repr(value).encode(), digest_size=10).hexdigest()


def segment_prefixes(value: str) -> list[str]:
    """Every prefix of ``value`` that ends just before a ``.``, ``#`` or ``/``, and ``value`` itself."""
    out = [value[: m.start()] for m in _SEGMENT.finditer(value) if m.start() > 0]
    out.append(value)
    return list(dict.fromkeys(out))


def path_prefixes(path: str) -> list[str]:
    """Every folder of ``path`` and the path itself (``a/b/c.py`` -> ``a``, ``a/b``, ``a/b/c.py``)."""
    parts = path.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))] if path else []


def _without_params(fqn: str) -> str:
    return fqn.split("(", 1)[0] if "(" in fqn else fqn


def normalise_fqn(text: str) -> str:
    """An fqn or a typed identifier the way `resolve` compares tails: ``#`` read as ``.``."""
    return text.replace("#", ".")


#: the longest fqn tail `resolve` matches without a package prefix, in segments
TAIL_SEGMENTS = 3


def fqn_tails(fqn: str) -> list[str]:
    """The fqn without a package prefix, normalised (`normalise_fqn`): its last two and three segments,
    with and without a Java parameter list (``a.b.C#m(int)`` -> ``b.C.m(int)``, ``b.C.m``, ``C.m(int)``,
    ``C.m``)."""
    head, sep, params = normalise_fqn(fqn).partition("(")
    cuts = [m.end() for m in _SEGMENT.finditer(head)]
    out = []
    for cut in cuts[-TAIL_SEGMENTS:-1]:
        tail = head[cut:]
        out.append(tail + sep + params)
        if sep:
            out.append(tail)
    return list(dict.fromkeys(out))


def embedding_text(node: GraphNode | Node) -> str:
    """What a node's vector is made of: its kind, name, fqn, signature and the start of its docstring
    (other kinds: their text). Reads a graph record or the store's node alike."""
    p = node.props
    if node.kind == "symbol":
        head = f"{p['symbol_kind']} {node.name}: {p['fqn']}"
        parts = [head, p.get("signature", ""), (p.get("docstring") or "")[:DOCSTRING_CHARS]]
    else:
        parts = [node.text]
    return "\n".join(part for part in parts if part)


def bm25_text(node: GraphNode) -> str:
    """What BM25 reads: the node's text and the case-change words of its identifiers (a symbol's name and fqn;
    a route's, client's or producer's path and expressions: ``/chatClient`` is also ``chat client``;
    ``snake_case`` and ``kebab-case`` parts are words already)."""
    if node.kind in ("microservice", "module"):
        return node.text
    words = split_words(node.name, node.props["fqn"]) if node.kind == "symbol" else split_words(node.text)
    return f"{node.text}\n{words}" if words else node.text


def facet_keys(node: GraphNode) -> list[str]:
    """``f:<field>=<value>`` for every filter field of the node's kind (see `filters.FIELDS`)."""
    p = node.props
    keys: list[str] = []

    def add(field: str, value: Any) -> None:
        if isinstance(value, bool):
            value = "true" if value else "false"
        keys.append(f"f:{field}={value}")

    if node.kind == "symbol":
        for field in ("microservice", "module", "language", "role", "symbol_kind"):
            add(field, p[field])
        add("generated", bool(p.get("generated")))
        for value in p.get("annotations", []):
            add("annotation", value)
        for value in p.get("capabilities", []):
            add("capability", value)
        for value in segment_prefixes(p["fqn"]):
            add("fqn_prefix", value)
        for value in path_prefixes(p.get("file", "")):
            add("file_prefix", value)
    elif node.kind == "microservice":
        for name in dict.fromkeys([node.name, *p.get("aliases", {})]):
            add("name", name)
        add("deployable", bool(p["deployable"]))
    elif node.kind == "module":
        add("microservice", p["microservice"])
        add("name", node.name)
    elif node.kind in ("route", "client", "producer"):
        add("microservice", p["microservice"])
        add("module", p["module"])
        for field, prop in PART2_SCALARS[node.kind]:
            if p.get(prop) is not None:
                add(field, p[prop])
        for prop, values in prefix_props(node).items():
            for value in values:
                add(PREFIX_FIELDS[prop], value)
    return keys


#: per part 2 kind: (filter field, prop) of the scalar filters
PART2_SCALARS = {
    "route": (("http_method", "http_method"), ("framework", "framework"), ("grpc_service", "grpc_service"),
              ("topic", "topic"), ("target_service", "target_service"), ("source_layer", "source_layer")),
    "client": (("client_kind", "client_kind"), ("target_service", "target_service"), ("http_method", "http_method"),
               ("resolved", "resolved"), ("grpc_service", "grpc_service"), ("match", "match"),
               ("source_layer", "source_layer")),
    "producer": (("producer_kind", "producer_kind"), ("topic", "topic"), ("match", "match"),
                 ("source_layer", "source_layer")),
}
#: hidden prefix prop -> the filter field that reads it
PREFIX_FIELDS = {"_path_prefixes": "path_prefix", "_target_path_prefixes": "target_path_prefix",
                 "_topic_prefixes": "topic_prefix"}
_TOPIC_CUT = re.compile(r"[./:_-]")


def topic_prefixes(topic: str) -> list[str]:
    """Every prefix of a topic that ends just before a ``.``, ``/``, ``:``, ``_`` or ``-``, and the topic."""
    out = [topic[: m.start()] for m in _TOPIC_CUT.finditer(topic) if m.start() > 0]
    out.append(topic)
    return list(dict.fromkeys(out))


def url_path_prefixes(template: str) -> list[str]:
    """``/a/b/{id}`` -> ``/``, ``/a``, ``/a/b``, ``/a/b/{id}``."""
    parts = [part for part in template.split("/") if part]
    return ["/"] + ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def prefix_props(node: GraphNode) -> dict[str, list[str]]:
    """The hidden prefix props of part 2's nodes (``_path_prefixes`` ...): what prefix filters read."""
    p = node.props
    out: dict[str, list[str]] = {}
    if node.kind == "route" and p.get("path_template"):
        prefixes = url_path_prefixes(p["path_template"])
        if p.get("framework") in CASELESS:   # the framework matches without case: a lower-case prefix finds it too
            prefixes = list(dict.fromkeys(prefixes + [x.lower() for x in prefixes]))
        out["_path_prefixes"] = prefixes
    if node.kind == "client" and p.get("target_path_template"):
        # a path with choices (``/{likes|comments}/{id}``) starts with each of its values' prefixes
        values = [p["target_path_template"], *(p.get("path_values") or [])]
        out["_target_path_prefixes"] = list(dict.fromkeys(x for v in values for x in url_path_prefixes(v)))
    if node.kind in ("route", "producer") and p.get("topic"):
        out["_topic_prefixes"] = topic_prefixes(p["topic"])
    return out


def path_key(template: str) -> str:
    """A path template with its variables' names dropped (``/a/{id}`` -> ``/a/{}``): what `resolve` compares."""
    return re.sub(r"\{[^{}?]+\}", "{}", template)


def unknown_prefix_tail(template: str) -> str | None:
    """The path after leading unknown segments (``/{?}/product/{id}`` -> ``/product/{id}``), None if none lead."""
    tail = re.sub(r"^(?:/\{\?\})+", "", template)
    return tail if tail != template and tail.startswith("/") else None


def lookup_keys(node: GraphNode) -> list[str]:
    """The keys `resolve` reads (see the module docstring)."""
    p = node.props
    keys = []
    if not (node.kind == "symbol" and p["symbol_kind"] == "constructor"):  # "Money" means the class
        keys.append(f"name:{node.name}")
        if node.name.lower() != node.name:
            keys.append(f"namel:{node.name.lower()}")
    if node.kind == "symbol":
        fqn = p["fqn"]
        keys.append(f"fqn:{fqn}")
        if fqn.lower() != fqn:
            keys.append(f"fqnl:{fqn.lower()}")
        if _without_params(fqn) != fqn:
            keys.append(f"np:{_without_params(fqn)}")
        keys += [f"sfx:{tail}" for tail in fqn_tails(fqn)]
        if p["symbol_kind"] in ("file", "module") and p.get("file"):
            path = p["file"]
            parts = path.split("/")
            keys += [f"path:{'/'.join(parts[i:])}" for i in range(len(parts))]
    elif node.kind == "module":
        keys.append(f"path:{p['path']}")
    elif node.kind == "microservice":
        keys += [f"name:{alias}" for alias in p.get("aliases", {}) if alias != node.name]
    elif node.kind == "route":
        templates = [p["path_template"]] if p.get("path_template") else []
        if templates and p.get("framework") in CASELESS and templates[0].lower() != templates[0]:
            templates.append(templates[0].lower())   # the framework matches without case: lower case names it too
        for template in templates:
            keys.append(f"tpl:{path_key(template)}")
            if p.get("http_method"):
                keys.append(f"tpl:{p['http_method']} {path_key(template)}")
            known = unknown_prefix_tail(template)
            if known:  # "/{?}/product/{id}": the part after a prefix only a deployment gives
                keys.append(f"tplx:{path_key(known)}")
                if p.get("http_method"):
                    keys.append(f"tplx:{p['http_method']} {path_key(known)}")
        if p.get("topic"):
            keys.append(f"name:{p['topic']}")
        if p.get("grpc") and "{?}" not in p["grpc"]:   # a gRPC method by its full name: pkg.Service/Method
            keys.append(f"name:{p['grpc']}")
    return keys


def store_node(node: GraphNode) -> tuple[Node, list[str], str, str]:
    """(the store's node, its lookup keys, the hash of what is written, its embedding text hash or "")."""
    props = dict(node.props)
    if node.kind == "symbol":
        props["_fqn_prefixes"] = segment_prefixes(props["fqn"])
        props["_file_prefixes"] = path_prefixes(props.get("file", ""))
    props.update(prefix_props(node))
    text = bm25_text(node)
    text_hash = digest(embedding_text(node)) if node.kind in EMBEDDED_KINDS else ""
    keys = facet_keys(node) + lookup_keys(node)
    written = digest([node.kind, node.name, text, props, sorted(set(keys))])
    return Node(node.id, node.kind, node.name, text, props, text_hash=text_hash), keys, written, text_hash


def store_edge(edge: GraphEdge) -> tuple[Edge, str]:
    """(the store's edge, the hash of what is written)."""
    return Edge(edge.id, edge.src, edge.dst, edge.type, dict(edge.props)), digest(
        [edge.src, edge.dst, edge.type, edge.props])
