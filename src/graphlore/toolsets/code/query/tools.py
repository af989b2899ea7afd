"""The code tools. Each takes the runtime and a validated request and returns a response model.

Query tools bring the index up to date first (structure only: parsing and resolving what changed; never
embedding), so an answer is never served from a stale index without saying so (`IndexStatus`).
"""

from __future__ import annotations

import difflib
import functools
import re
import shlex
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from graphlore.errors import InvalidInput, NotFound, ref
from graphlore.runtime import Runtime
from graphlore.search import hybrid_search
from graphlore.store import Node, Store
from graphlore.store.terms import STOPWORDS, query_terms
from graphlore.toolsets.folder_index import rebuild_kept

from ..index.code_index import CodeIndex
from ..index.records import (
    normalise_fqn,
    path_key,
    path_prefixes,
    segment_prefixes,
    split_words,
    topic_prefixes,
    url_path_prefixes,
)
from ..languages.registry import suffixes
from ..model import EDGE_TYPES, SYMBOL_KINDS, TYPE_KINDS, service_id
from ..services import service_map as maps
from ..services.config_view import MAX_CLIENT_LINES, lines_setting
from ..services.endpoints import HTTP_METHODS, normalise_path
from . import env_reads, filters, reach, traverse
from .edge_keys import FLOW_KEYS
from .models import (
    MAX_SOURCE_LINES,
    Candidate,
    DescribeRequest,
    DescribeResponse,
    FindRequest,
    FindResponse,
    FoundPath,
    Hop,
    ImpactRequest,
    ImpactResponse,
    IndexRequest,
    IndexResponse,
    NeighborsRequest,
    NeighborsResponse,
    NodeRef,
    PathsRequest,
    PathsResponse,
    Reached,
    ResolveRequest,
    ResolveResponse,
    SearchHit,
    SearchRequest,
    SearchResponse,
    ServiceInfo,
    ServiceLink,
    ServiceMapRequest,
    ServiceMapResponse,
    SourceText,
    StatusRequest,
    StatusResponse,
)
from .views import attributes, index_status, node_ref, open_fresh, refs

# -- find ------------------------------------------------------------------------------------------------


#: filter fields that name a microservice: any name it goes by is taken (`services.identity`)
SERVICE_FIELDS = frozenset({"microservice", "target_service"})


#: microservices read to match a name whatever its case (a system has tens, not thousands)
MOST_SERVICES = 1000


def service_names(store: Store, name: str) -> list[str]:
    """The microservices ``name`` is a name of (its own name, or any alias its node lists). A name written in
    another case (``accounting`` for the project ``Accounting``) counts when exactly one service goes by it in
    any case; two such services are a choice not made for the caller. A service's own name names it alone:
    another that only declares the name too (an application name copied into it, `layout._Services`) is not
    taken with it; but when the layout could not settle whose name it is (neither or both services' folder or
    artifact carries it, the second is ``name@root``), both are."""
    total, ids = store.nodes_with_keys("microservice", [[f"f:name={name}"]], limit=10)
    if total:
        named = sorted(n.name for n in store.get_nodes(ids))
        unsettled = any(other.startswith(f"{name}@") for other in named)
        return [name] if name in named and not unsettled else named
    _, ids = store.nodes_with_keys("microservice", [], limit=MOST_SERVICES)
    folded = name.casefold()
    named = {n.name for n in store.get_nodes(ids)
             if folded in {other.casefold() for other in (n.name, *n.props.get("aliases", {}))}}
    return sorted(named) if len(named) == 1 else []


def canonical(store: Store, conditions: list[filters.Condition]) -> list[filters.Condition]:
    """Conditions on a microservice field with every alias value replaced by the services it names."""
    out = []
    for condition in conditions:
        if condition.field.name in SERVICE_FIELDS:
            values: list[str] = []
            for value in condition.values:
                names = service_names(store, value)
                values += names + ([value] if value not in names else [])
            condition = filters.Condition(condition.field, tuple(dict.fromkeys(values)))
        out.append(condition)
    return out


def find(runtime: Runtime, request: FindRequest) -> FindResponse:
    index, store, status = open_fresh(runtime, request.project_path)
    conditions = canonical(store, filters.parse_filter(request.kind, request.filter))
    total, ids = store.nodes_with_keys(request.kind, filters.key_groups(conditions), limit=request.limit,
                                       offset=request.offset)
    results = [node_ref(n) for n in store.get_nodes(ids)]
    note = None
    if not results:
        note = why_empty(store, request.kind, conditions, total, request.offset)
    return FindResponse(kind=request.kind, filter=filters.normalised(conditions), total=total, offset=request.offset,
                        limit=request.limit, has_more=request.offset + len(results) < total, results=results,
                        note=note, index_status=status)


#: prefix filter -> how a value is cut into the prefixes a near miss can be looked for under
PREFIX_CUTS = {"fqn_prefix": segment_prefixes, "file_prefix": path_prefixes, "path_prefix": url_path_prefixes,
               "target_path_prefix": url_path_prefixes, "topic_prefix": topic_prefixes}


def _names(store: Store, kind: str, prop: str, most: int = 30) -> str:
    total, ids = store.nodes_with_keys(kind, [], limit=most)
    values = sorted({str(n.props.get(prop, n.name)) for n in store.get_nodes(ids)})
    return ", ".join(values) + (f" (and {total - most} more)" if total > most else "") if values else "none"


def why_empty(store: Store, kind: str, conditions: list[filters.Condition], total: int, offset: int) -> str:
    """Why a listing came back empty: past the end, one condition that matches nothing, or the combination."""
    if total and offset >= total:
        return f"offset {offset} is past the end: {total} {kind} nodes match"
    if not conditions:
        return f"the index holds no {kind} nodes"
    alone = {c.field.name: store.nodes_with_keys(kind, [c.keys()], limit=0)[0] for c in conditions}
    for condition in conditions:
        if alone[condition.field.name]:
            continue
        name, values = condition.field.name, condition.values
        shown = ", ".join(repr(v) for v in values)
        if name == "microservice":
            return f"no {kind} in microservice {shown}; microservices are: {_names(store, 'microservice', 'name')}"
        if name == "module":
            return f"no {kind} in module {shown}; modules are: {_names(store, 'module', 'path')}"
        if name in PREFIX_CUTS:
            cut = PREFIX_CUTS[name]
            hints = []
            for value in values:
                for prefix in reversed(cut(value)[:-1]):
                    count = store.nodes_with_keys(kind, [[f"f:{name}={prefix}"]], limit=0)[0]
                    if count:
                        hints.append(f"the longest prefix of {value!r} that matches is {prefix!r} ({count} {kind}s)")
                        break
            return (f"no {kind} has a {name} {shown} (prefixes match whole segments)"
                    + ("; " + "; ".join(hints) if hints else ""))
        if name == "annotation":
            return (f"no {kind} carries annotation {shown} (Java annotations are simple names such as "
                    "'RestController'; Python and TS decorators as written, such as 'app.get')")
        return f"no {kind} has {name} {shown} in this index"
    counts = ", ".join(f"{name} alone: {count}" for name, count in alone.items())
    return f"each condition matches on its own ({counts}), but no {kind} meets all of them"


# -- describe and neighbors ------------------------------------------------------------------------------


def describe(runtime: Runtime, request: DescribeRequest) -> DescribeResponse:
    index, store, status = open_fresh(runtime, request.project_path)
    if request.id is not None:
        node = traverse.get_node(store, request.id)
    else:
        assert request.fqn is not None
        ids = store.nodes_by_keys([f"fqn:{request.fqn}"], kind="symbol").get(f"fqn:{request.fqn}", [])
        if not ids:
            raise NotFound(f"no symbol has the fqn {request.fqn!r} ({ref('fqn')} is exact, e.g. "
                           "'com.shop.Order#place(Order,int)'); resolve turns a name into candidates")
        if len(ids) > 1:
            raise InvalidInput(f"the fqn {request.fqn!r} names {len(ids)} symbols (ids: {', '.join(ids)}); "
                               "describe one of them by id")
        node = store.get_nodes(ids)[0]
    member_ids = traverse.members(store, node.id)
    return DescribeResponse(node=node_ref(node), attributes=attributes(node) | _settings_from(store, node)
                            | _env_from(index, store, node),
                            edge_summary=traverse.edge_summary(store, node.id, member_ids), members=len(member_ids),
                            source=source_text(index, node) if request.include_source else None,
                            index_status=status)


def _settings_from(store: Store, node: Node) -> dict[str, Any]:
    """A settings class's field: where its environment variable is set (`config_view.settings_fields`, kept on its
    microservice, hidden there)."""
    p = node.props
    if node.kind != "symbol" or p.get("symbol_kind") != "field" or not p.get("microservice"):
        return {}
    found = store.get_nodes([service_id(p["microservice"])])
    lines = (found[0].props.get("_settings_fields") or {}).get(p.get("fqn")) if found else None
    return {"settings_from": lines} if lines else {}


def _env_from(index: CodeIndex, store: Store, node: Node) -> dict[str, Any]:
    """A symbol whose code reads environment variables by name (`env_reads`): where the project sets each one
    (its service's deployment and configuration lines, the project root's ``.env``; `config_view.lines_setting`),
    or that nothing in the project does (set at run time)."""
    p = node.props
    source = source_text(index, node) if node.kind == "symbol" and p.get("microservice") else None
    variables = env_reads.variables_read(source.text, PurePosixPath(source.file).suffix) if source is not None else []
    if not variables:
        return {}
    found = store.get_nodes([service_id(p["microservice"])])
    sources = (found[0].props.get("_env_sources") or {}) if found else {}
    out = {}
    for name in variables:
        lines = lines_setting([name], sources.get("values") or [], sources.get("root_env") or {})
        out[name] = lines[:MAX_CLIENT_LINES] or [f"{name}: set by none of the project's deployment or "
                                                 "configuration files (set at run time)"]
    return {"env_from": out}


def source_text(index: CodeIndex, node: Node) -> SourceText | None:
    """The node's lines as the file holds them now (the index was refreshed first), numbered; None for a node
    without a place in a file (a microservice, a module, a generated member)."""
    p = node.props
    first = p.get("line_start") or p.get("line")
    if not p.get("file") or not first:
        return None
    last = p.get("line_end") or first
    try:
        lines = (index.root / p["file"]).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    last = min(last, len(lines))
    shown = min(last, first + MAX_SOURCE_LINES - 1)
    width = len(str(shown))
    text = "\n".join(f"{n:>{width}}| {lines[n - 1]}" for n in range(first, shown + 1))
    return SourceText(file=p["file"], first_line=first, last_line=shown, truncated=shown < last, text=text)


def neighbors(runtime: Runtime, request: NeighborsRequest) -> NeighborsResponse:
    index, store, status = open_fresh(runtime, request.project_path)
    return traverse.neighbors(store, request, status)


# -- paths and impact ------------------------------------------------------------------------------------


def _hops(steps: list[reach.Step], found: dict, *, backwards: bool = False) -> list[Hop]:
    """Steps as hops read in the flow's direction (a walk backwards is turned round)."""
    if backwards:
        steps = [reach.Step(s.dst, s.src, s.key, s.props) for s in reversed(steps)]
    return [Hop(source=found[s.src], edge=s.key, target=found[s.dst], props=s.props) for s in steps]


def paths(runtime: Runtime, request: PathsRequest) -> PathsResponse:
    index, store, status = open_fresh(runtime, request.project_path)
    source, target = traverse.get_node(store, request.from_id), traverse.get_node(store, request.to_id)
    keys = tuple(request.edge_types or FLOW_KEYS)
    starts, ends = reach.seeds(store, source), reach.seeds(store, target)
    found_paths, more = reach.all_paths(store, starts, ends, keys, request.max_depth, request.limit)
    if target.kind == "route" and "EXPOSED_BY" in keys:
        found_paths = [reach.on_to_handler(store, path) for path in found_paths]
    carried: list[str] = []
    if "OVERRIDDEN_BY" in keys:
        found_paths, carried = _on_to_implementations(store, found_paths)
    found = refs(store, [i for path in found_paths for s in path for i in (s.src, s.dst)])
    note = None
    if not found_paths:
        ahead = reach.distances(store, starts, keys, "out", request.max_depth)
        note = (f"no path of at most {request.max_depth} hops ({', '.join(keys)}) leads from "
                f"{node_ref(source).label} to {node_ref(target).label}; {len(ahead) - 1} nodes are reachable "
                "from it that way (impact with direction out lists them)")
    return PathsResponse(source=node_ref(source), target=node_ref(target), edge_types=list(keys),
                         max_depth=request.max_depth, paths=[FoundPath(length=len(p), hops=_hops(p, found)) for p in found_paths], has_more=more,
                         note=_notes(note, _stands_for(source, starts), _stands_for(target, ends), *carried),
                         index_status=status)


def _stands_for(node, seeds: list[str]) -> str | None:
    """Says that a class or a module was taken as the symbols it declares (`reach.seeds`)."""
    if len(seeds) < 2:
        return None
    return f"{node_ref(node).label} stands for the {len(seeds) - 1} symbols it declares"


def _notes(*notes: str | None) -> str | None:
    return "; ".join(n for n in notes if n) or None


def _on_to_implementations(store, found_paths: list[list[reach.Step]]) -> tuple[list[list[reach.Step]], list[str]]:
    """Each path carried on from an abstract end to its one implementation (`reach.on_to_implementation`), and
    the notes that say so (once each). A path carried on to one found as it is (an end that stands for the
    implementation too: a class or a module that declares both) is left out, not shown twice."""
    def drawn(path: list[reach.Step]) -> tuple:
        return tuple((s.src, s.dst, s.key) for s in path)

    found = {drawn(path) for path in found_paths}
    out, notes = [], []
    for path in found_paths:
        carried, note = reach.on_to_implementation(store, path)
        if note and drawn(carried) in found:
            continue
        out.append(carried)
        if note and note not in notes:
            notes.append(note)
    return out, notes


def impact(runtime: Runtime, request: ImpactRequest) -> ImpactResponse:
    index, store, status = open_fresh(runtime, request.project_path)
    node = traverse.get_node(store, request.id)
    keys = tuple(request.edge_types or FLOW_KEYS)
    skip = None if request.include_tests else (lambda ids: reach.tests_among(store, ids))
    starts = reach.seeds(store, node)
    carried = reach.message_steps(store, node) if request.direction == "in" and "ASYNC_CALLS" in keys else []
    reached, tests_left_out = reach.reach(store, starts, keys, request.direction, request.depth, skip, carried)
    order = sorted(reached, key=lambda i: (reached[i][0], i))
    nodes = {n.id: n for n in store.get_nodes(order)}
    order = [i for i in order if i in nodes]
    by_service: dict[str, dict[str, int]] = {}
    by_depth: dict[str, int] = {}
    for node_id in order:
        ref = node_ref(nodes[node_id])
        kinds = by_service.setdefault(ref.microservice or "?", {})
        kinds[ref.kind] = kinds.get(ref.kind, 0) + 1
        depth = str(reached[node_id][0])
        by_depth[depth] = by_depth.get(depth, 0) + 1
    page = order[request.offset:request.offset + request.limit]
    found = refs(store, [node.id, *(i for n in page for s in reached[n][1] for i in (s.src, s.dst))])
    results = [Reached(node=found[i], depth=reached[i][0],
                       path=_hops(reached[i][1], found, backwards=request.direction == "in")) for i in page]
    note = None
    consumers = _consumers(store, starts) if request.direction == "in" and "ASYNC_CALLS" in keys else []
    if not order:
        what = "reaches" if request.direction == "in" else "is reached from"
        note = f"nothing {what} {node_ref(node).label} by {', '.join(keys)} within {request.depth} hops"
        if tests_left_out:
            note += f" but {tests_left_out} test symbol(s), left out (include_tests=false)"
    elif request.offset >= len(order):
        note = f"offset {request.offset} is past the end: {len(order)} nodes reached"
    return ImpactResponse(node=node_ref(node), direction=request.direction, edge_types=list(keys),
                          depth=request.depth, total=len(order), by_service=dict(sorted(by_service.items())),
                          by_depth=by_depth, tests_left_out=tests_left_out, offset=request.offset, limit=request.limit,
                          has_more=request.offset + len(page) < len(order), results=results, consumers=consumers,
                          note=_notes(note, _stands_for(node, starts)), index_status=status)


#: from a symbol to the consumers of what it sends: its producers, their links, the consumers' handlers
CONSUMER_KEYS = ("DECLARES_PRODUCER", "ASYNC_CALLS", "EXPOSED_BY")


def _consumers(store, starts: list[str]) -> list[Reached]:
    """The consumer routes and handlers one ``ASYNC_CALLS`` hop from the producers ``starts`` declare."""
    reached, _ = reach.reach(store, starts, CONSUMER_KEYS, "out", 1)
    kept = sorted((i for i, (_, path) in reached.items() if any(s.key == "ASYNC_CALLS" for s in path)),
                  key=lambda i: (len(reached[i][1]), i))
    found = refs(store, [i for n in kept for s in reached[n][1] for i in (s.src, s.dst)])
    return [Reached(node=found[i], depth=reached[i][0], path=_hops(reached[i][1], found)) for i in kept]


# -- search ----------------------------------------------------------------------------------------------


#: a BM25 score below this comes from words alone that occur in more than half of the nodes (their idf is the
#: store's floor, `store.terms.MIN_IDF`): such hits are dropped when others score, and said to be unranked when not
NO_WEIGHT = 1e-3


def keyword_query(query: str) -> str:
    """The BM25 query: the words as given, plus the case-change words of identifiers in it."""
    words = split_words(query)
    return f"{query} {words}" if words else query


def _squeezed(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


#: hits fetched per hit returned, so that the page `ranked` cuts holds the code that test code would have pushed out;
#: while fewer than a page of them is code (not test code, not a declaration `ranked` puts last), `search` fetches
#: four times as many, up to `MAX_FETCHED` (a cost bound, not a ranking weight: any code found comes before them)
FETCHED = 2
MAX_FETCHED = 1000
#: query words that ask for test code: without one, test code follows the code it tests
TEST_WORDS = frozenset({"test", "tests", "testing", "spec", "specs", "fixture", "fixtures", "mock", "mocks", "e2e"})
#: what separates a type's fqn from its members' (Java ``#``, Python and C# ``.``, Go ``.``, TS ``#``/``.``)
_MEMBER_CUT = ".#:/"


@dataclass(frozen=True)
class Read:
    """What `search` read of its hits' nodes beyond their references, by node id: the source files whose
    top-level code runs (``top_level_code``: code, not declarations), the symbols nobody wrote in the source
    (``generated``: Lombok members, record accessors, enum ``values()``, the symbols of a generated file) and the
    accessors written by hand (`is_accessor`)."""

    runs: frozenset[str] = frozenset()
    generated: frozenset[str] = frozenset()
    accessors: frozenset[str] = frozenset()


#: a getter's or setter's name: ``getX``, ``setX``, ``isX`` (``get_x``, ``set_x``, ``is_x``)
_ACCESSOR_NAME = re.compile(r"(?:get|set|is)(?:[A-Z0-9]|_[a-z0-9])")
#: the most lines an accessor's method spans (``getX() {``, ``return x;``, ``}``)
ACCESSOR_LINES = 3


def is_accessor(node: Node) -> bool:
    """Whether a stored symbol is a getter or setter written by hand: a method named ``get``/``set``/``is`` and a
    capital (or ``_``) whose whole declaration spans at most `ACCESSOR_LINES` lines. It reads or writes a field,
    so it matches a query through its field's and class's words (``Delivery#getAssignedCourier`` for "choose a
    courier for a delivery") and does none of the work; `ranked` puts it with the declarations."""
    p = node.props
    return (node.kind == "symbol" and p.get("symbol_kind") == "method" and bool(_ACCESSOR_NAME.match(node.name))
            and p.get("line_end", 0) - p.get("line_start", 0) < ACCESSOR_LINES)


def ranked(query: str, hits: list[SearchHit], read: Read = Read()) -> list[SearchHit]:
    """The hits in the ranking's order (hybrid: fused, whatever the cosine shown), with four rules over it: a
    symbol whose name is the query itself (case, spaces and underscores aside: ``load vet data`` names
    ``loadVetData``) comes first, never under its class; a declaration (`DECLARATION_KINDS`: a field, a source
    file, a package, a module whose top level runs nothing) whose own name does not hold every word of the
    query, and that the query does not name by its qualified name (``Ship.cost``), comes after the other code (it matched through its owner's or its folder's
    words: ``Ship#cost`` for "calculate shipping cost"); test code comes after every other hit (it stays listed)
    unless a word of the query or of an identifier in it asks for tests (`TEST_WORDS`); a type comes just after
    the first of its own methods that is also a hit and whose name shares a word with the
    query (the method that does the work, not the class that holds it; a field, a constructor or a method
    named otherwise does not move it). ``read.runs``: the ids of source files whose top-level code runs
    (``top_level_code``): code, not declarations. A generated symbol (``read.generated``) or a hand-written
    accessor (``read.accessors``) the query does not name goes with those declarations: a getter or a generated
    stub's method matched through its owner's words (``getPayloadUrl`` for "sign the webhook payload"), and the
    code written by hand does the work."""
    exact = _squeezed(query)
    tests_wanted = _asks_for_tests(query)
    asked = _Asked(query)
    order = sorted(range(len(hits)), key=lambda i: (
        not (hits[i].node.kind == "symbol" and _squeezed(hits[i].node.name) == exact),
        not tests_wanted and hits[i].node.role == "TEST", _unnamed_declaration(hits[i].node, asked, read), i))
    out = [hits[i] for i in order]
    words = _words(query)
    for hit in [h for h in out if h.node.symbol_kind in TYPE_KINDS and _squeezed(h.node.name) != exact]:
        at = out.index(hit)
        member = next((j for j in range(at + 1, len(out)) if _named_member(out[j].node, hit.node, words)), None)
        if member is not None:
            out.insert(member, out.pop(at))
    return out


#: symbol kinds that declare and do nothing: a field (a property, a constant), a source file of a typed language
#: (kind ``file``: Java, Kotlin, C#, Go, Rust, C/C++, PHP, Ruby, proto; its code is its types' and functions') and
#: a package. A Python or TS/JS ``module`` is one only when nothing runs at its top level (no ``top_level_code``:
#: imports, exports and declarations, ``models/ShippingRates.ts``); one whose top-level code runs is code.
DECLARATION_KINDS = frozenset({"field", "file", "package", "module"})


def _asks_for_tests(query: str) -> bool:
    """Whether a word of the query, or of an identifier in it (``TestUtils``), asks for test code."""
    return not TEST_WORDS.isdisjoint(_words(query))


def _terms(text: str) -> frozenset[str]:
    """The BM25 terms (stemmed, stop words aside) of ``text`` and of its identifiers' case-change words."""
    return frozenset(query_terms(f"{text} {split_words(text)}"))


@functools.lru_cache(maxsize=65_536)
def _name_terms(name: str) -> frozenset[str]:
    """`_terms` of a symbol's name, kept: a name is short and comes back search after search (a query is
    neither: up to `MAX_QUERY` characters, each one new, so a query's terms are not kept)."""
    return _terms(name)

#: what separates the parts of a qualified name or a path, in any language (``.``, ``#``, ``::``, ``/``, ``\``)
_QUALIFIERS = re.compile(r"[.#:/\\]+")


class _Asked:
    """The query as `_unnamed_declaration` reads it: its terms, and the qualified name it is if it is one word."""

    def __init__(self, query: str) -> None:
        self.terms = _terms(query)
        one = query.strip()
        self.qualified = "" if re.search(r"\s", one) else _QUALIFIERS.sub(".", one.lower()).strip(".")


def _unnamed_declaration(node: NodeRef, asked: _Asked, read: Read = Read()) -> bool:
    """Whether ``node`` is a declaration, a generated symbol (``read.generated``) or an accessor
    (``read.accessors``) whose own name leaves a word of the query out and that the query does not name by its
    qualified name (``Ship.cost``, ``Ship#cost``, ``src/Calculator.java``). A source file in ``read.runs`` has
    top-level code (C# top-level statements: ``Program.cs``): code, not a declaration."""
    if node.kind != "symbol" or node.role == "CONFIG" or node.id in read.runs:
        return False  # a setting's declaration is its answer (``DATABASE_URL: PostgresDsn``)
    if node.symbol_kind not in DECLARATION_KINDS and node.id not in read.generated and node.id not in read.accessors:
        return False
    if asked.terms <= _name_terms(node.name):
        return False
    label = _QUALIFIERS.sub(".", node.label.lower())
    return not asked.qualified or not (label == asked.qualified or label.endswith("." + asked.qualified))


def put_last(query: str, read: Read = Read()) -> Callable[[SearchHit], bool]:
    """Whether `ranked` puts a hit after the other code: test code (unless the query asks for tests) and a
    declaration, a generated symbol or an accessor the query does not name, never a symbol named as the query."""
    asked = _Asked(query)
    tests_wanted = _asks_for_tests(query)
    exact = _squeezed(query)

    def last(hit: SearchHit) -> bool:
        named = hit.node.kind == "symbol" and _squeezed(hit.node.name) == exact
        return not named and ((not tests_wanted and hit.node.role == "TEST")
                              or _unnamed_declaration(hit.node, asked, read))
    return last


def paged(query: str, hits: list[SearchHit], limit: int, read: Read = Read()) -> list[SearchHit]:
    """The page of ``limit`` hits: the first ``limit`` `ranked`, where test code and declarations that `ranked`
    puts last give their places to the next hits of other code (`search` fetches the ranking until it holds
    ``limit`` of them or ends), never to more of them."""
    last_ = put_last(query, read)
    page = ranked(query, hits[:limit], read)
    last = [h for h in page if last_(h)]
    if not last:
        return page
    more = [h for h in hits[limit:] if not last_(h)][:len(last)]
    return ([h for h in page if not last_(h)] + more + last)[:limit]


def _words(text: str) -> set[str]:
    """The lower-case words of ``text`` and the case-change words of its identifiers, stop words aside."""
    return {w.lower() for w in re.findall(r"[^\W_]+", f"{text} {split_words(text)}")} - STOPWORDS


def _named_member(node: NodeRef, owner: NodeRef, asked: set[str]) -> bool:
    """Whether ``node`` is a method or function of the type ``owner`` whose name shares a word with the query."""
    label = owner.label
    return (node.symbol_kind in ("method", "function") and len(node.label) > len(label) + 1
            and node.label.startswith(label) and node.label[len(label)] in _MEMBER_CUT
            and bool(_words(node.name) & asked))


#: kinds whose labels hold path segments and topics (``/chatclient``), and the shortest query word that may
#: stand for a longer segment word it starts
SEGMENT_KINDS = ("route", "client", "producer")
MIN_PREFIX = 3
#: per open store: (its generation, the words of its route, client and producer labels)
_SEGMENT_WORDS: weakref.WeakKeyDictionary[Store, tuple[object, frozenset[str]]] = weakref.WeakKeyDictionary()


def _segment_words(store: Store) -> frozenset[str]:
    """The words of the index's route, client and producer labels, read again after each update of it."""
    generation = store.get_meta("generation")
    kept = _SEGMENT_WORDS.get(store)
    if kept is None or kept[0] != generation:
        found = frozenset(w.lower() for kind in SEGMENT_KINDS for node in store.iter_nodes(kind)
                          for w in re.findall(r"[^\W_]+", node.props.get("label") or node.name))
        kept = _SEGMENT_WORDS[store] = (generation, found)
    return kept[1]


def prefix_words(query: str, segment_words: frozenset[str]) -> list[str]:
    """The path-segment and topic words a query word is the start of (``chat`` -> ``chatclient``), so that
    BM25, which matches whole words, finds them; at most 20, the shortest first."""
    wanted = [w.lower() for w in re.findall(r"[^\W_]+", query) if len(w) >= MIN_PREFIX and w.lower() not in STOPWORDS]
    found = sorted({s for s in segment_words for w in wanted if s.startswith(w) and s != w}, key=lambda s: (len(s), s))
    return found[:20]


def search(runtime: Runtime, request: SearchRequest) -> SearchResponse:
    index, store, status = open_fresh(runtime, request.project_path)
    conditions = canonical(store, filters.parse_filter(request.kind, request.filter)) if request.kind else []
    where = filters.where(conditions) or None
    words = keyword_query(request.query)
    if request.kind is None or request.kind in SEGMENT_KINDS:
        words = " ".join([words, *prefix_words(request.query, _segment_words(store))])

    vectors = runtime.embeddings.embed([request.query]) if status.search_mode == "hybrid" else None

    def rank(fetched: int) -> tuple[list, str | None]:
        if vectors is not None:
            return hybrid_search(store, words, vectors, kind=request.kind, where=where,
                                 limit=fetched, threads=runtime.search_threads), None
        hits = store.keyword_search(words, kind=request.kind, where=where, limit=fetched)
        note = (f"ranked by BM25 alone: embeddings are done for {status.embedded} of {status.embeddable} nodes; "
                f"run the index tool to finish them (CLI: graphlore code index -p {shlex.quote(str(index.root))})")
        weighed = [h for h in hits if h.score >= NO_WEIGHT]
        if weighed and len(weighed) < len(hits):
            hits = weighed  # the rest match only words that carry no weight (see NO_WEIGHT)
        elif hits and not weighed:
            note += ("; every word of the query that matched occurs in more than half of the nodes searched, "
                     "so BM25 gives it no weight (scores ~0) and this order is not a ranking: add a rarer word, "
                     "a kind or a filter")
        return hits, note

    fetched = request.limit * FETCHED  # `paged` lifts code from below the page over test code and declarations
    found: dict[str, NodeRef] = {}
    runs: set[str] = set()
    generated: set[str] = set()
    accessors: set[str] = set()
    while True:
        hits, note = rank(fetched)
        for node in store.get_nodes(list(dict.fromkeys(h.id for h in hits if h.id not in found))):
            found[node.id] = node_ref(node)
            if node.props.get("top_level_code"):
                runs.add(node.id)
            if node.props.get("generated"):
                generated.add(node.id)
            elif is_accessor(node):
                accessors.add(node.id)
        scored = [SearchHit(node=found[h.id], score=round(h.score, 6)) for h in hits if h.id in found]
        read = Read(frozenset(runs), frozenset(generated), frozenset(accessors))
        last = put_last(request.query, read)
        if len(hits) < fetched or fetched >= MAX_FETCHED or sum(not last(h) for h in scored) >= request.limit:
            break
        fetched = min(fetched * 4, MAX_FETCHED)  # the page still has places that code further down should take
    results = paged(request.query, scored, request.limit, read)
    if not results:
        why = "no indexed name, fqn, signature or docstring contains a word of the query"
        if conditions:
            total = store.nodes_with_keys(request.kind, filters.key_groups(conditions), limit=0)[0]
            why = why_empty(store, request.kind, conditions, 0, 0) if total == 0 else (
                f"{why} among the {total} {request.kind} nodes the filter lets through")
        note = f"{note}; {why}" if note else why
    return SearchResponse(query=request.query, kind=request.kind, filter=request.filter, ranking=status.search_mode,
                          results=results, note=note, index_status=status)


# -- resolve ---------------------------------------------------------------------------------------------

#: (reason, key prefix, score) in the order resolve tries them; the first that finds something decides
TIERS = (
    ("exact_fqn", "fqn:", 1.0),
    ("fqn_without_parameters", "np:", 0.95),
    ("case_insensitive_fqn", "fqnl:", 0.9),
    ("without_package_prefix", "sfx:", 0.8),
    ("file_path", "path:", 0.8),
    ("path_template", "tpl:", 0.8),
    ("path_template_after_unknown_prefix", "tplx:", 0.75),
    ("simple_name", "name:", 0.7),
    ("case_insensitive_name", "namel:", 0.6),
)
MAX_CANDIDATES = 10
#: candidates read per kind of match (enough to sort and filter; the count is exact either way)
READ_CANDIDATES = 2000
_PATTERN = set("*?[]|^$\\")
#: a name as PHP or Ruby writes it (``App\\Http\\Ctl``, ``\\App\\Ctl::make``, ``Ctl::make``, ``Shop::Cart#add``), which
#: the graph keeps with ``.``
#: a Ruby predicate method's qualified name (``Shop.Cart.empty?``): its ``?`` ends a name, it is no pattern
_RUBY_PREDICATE = re.compile(r"\.[A-Za-z_]\w*\?$")
_SCOPED_NAME = re.compile(r"(?:\\|::)?[A-Za-z_]\w*(?:(?:\\|::)[A-Za-z_]\w*)*(?:(?:::|#)[A-Za-z_]\w*[?!]?)?")
#: a path as Rust writes it from where it is used (``crate::store::Store``, ``super::api``): ``crate``, ``self`` and
#: ``super`` stand for a module the name does not say, so they are left out and the rest matched as an fqn's end
_RUST_RELATIVE = re.compile(r"^(?:(?:crate|self|super)::)+(?=[A-Za-z_])")


def _tier_keys(prefix: str, identifier: str) -> list[str]:
    """The keys of one kind of match. A node has a lower-case key only when lower case differs from its
    name, so "any case" also reads the plain key of the lower-cased identifier."""
    if prefix in ("fqnl:", "namel:"):
        return [prefix + identifier.lower(), prefix[:-2] + ":" + identifier.lower()]
    if prefix == "sfx:":
        return [prefix + normalise_fqn(identifier)]
    if prefix == "path:":
        return [prefix + identifier.strip("/")]
    if prefix in ("tpl:", "tplx:"):
        method, _, path = identifier.partition(" ")
        if method.upper() in HTTP_METHODS and path.strip().startswith("/"):
            return [f"{prefix}{method.upper()} {path_key(normalise_path(path.strip()))}"]
        return [prefix + path_key(normalise_path(identifier))] if identifier.startswith("/") else []
    return [prefix + identifier]


def resolve(runtime: Runtime, request: ResolveRequest) -> ResolveResponse:
    identifier = request.identifier.strip()
    identifier = _RUST_RELATIVE.sub("", identifier)
    if ("\\" in identifier or "::" in identifier) and _SCOPED_NAME.fullmatch(identifier):
        identifier = identifier.lstrip("\\:").replace("\\", ".").replace("::", ".").replace("#", ".")
    if _PATTERN & set(_RUBY_PREDICATE.sub("", identifier.replace("{?}", ""))) or identifier.endswith(".*"):
        raise InvalidInput(f"resolve takes one identifier, not a pattern ({identifier!r}); to list symbols "
                           "under a package use find with the kind symbol and the filter field fqn_prefix (e.g. "
                           "com.example), to look for something by words use search")
    index, store, status = open_fresh(runtime, request.project_path)
    hint = request.hint_kind
    # "module" is both a node kind (a build module) and a symbol kind (a Python or TS/JS file): it means either
    kind = None if hint == "module" else ("symbol" if hint in SYMBOL_KINDS else hint)
    symbol_kind = hint if hint in SYMBOL_KINDS and hint != "module" else None

    def fits(node) -> bool:
        if hint == "module":
            return node.kind == "module" or node.props.get("symbol_kind") == "module"
        return (kind is None or node.kind == kind) and (symbol_kind is None or node.props.get("symbol_kind") == symbol_kind)

    base = dict(identifier=request.identifier, candidates=[], total_candidates=0, weaker_matches=[], closest=[],
                index_status=status)
    direct = [n for n in store.get_nodes([identifier]) if fits(n)]
    if direct:
        return ResolveResponse(status="one", node=node_ref(direct[0]), reason="id", **base)
    keys = {reason: _tier_keys(prefix, identifier) for reason, prefix, _ in TIERS}
    found = store.nodes_by_keys([k for ks in keys.values() for k in ks], kind=kind)
    tiers: list[tuple[str, float, list, int]] = []
    seen: set[str] = set()
    for reason, _, score in TIERS:
        ids = list(dict.fromkeys(i for k in keys[reason] for i in found.get(k, []) if i not in seen))
        seen.update(ids)
        nodes = [n for n in store.get_nodes(ids[:READ_CANDIDATES]) if fits(n)]
        if nodes:
            extra = max(0, len(ids) - READ_CANDIDATES)
            # hand-written code before generated code (stubs would crowd the implementation out of the first ten)
            tiers.append((reason, score, sorted(nodes, key=lambda n: (bool(n.props.get("generated")),
                                                                     node_ref(n).label, n.id)), len(nodes) + extra))
    if not tiers:
        labels = closest_labels(store, identifier, kind)
        what = f"{hint} " if hint else ""
        return ResolveResponse(
            status="none", why=(f"no {what}node has the id, fqn (also without parameters or package prefix, or in "
                                f"another case), file path or name {identifier!r}"),
            **{**base, "closest": labels})
    (reason, score, nodes, count), weaker = tiers[0], tiers[1:]
    weaker_matches = [Candidate(node=node_ref(n), reason=r, score=s) for r, s, ns, _ in weaker for n in ns]
    base["weaker_matches"] = weaker_matches[:MAX_CANDIDATES]
    if count == 1:
        return ResolveResponse(status="one", node=node_ref(nodes[0]), reason=reason, **base)
    candidates = [Candidate(node=node_ref(n), reason=reason, score=score) for n in nodes[:MAX_CANDIDATES]]
    return ResolveResponse(status="many", **{**base, "candidates": candidates, "total_candidates": count})


def closest_labels(store: Store, identifier: str, kind: str | None) -> list[str]:
    """Up to 10 labels close to ``identifier``: BM25 over its words first, then names spelled alike
    (difflib over every distinct name of the kind; this reads every node, so only a failed resolve does it)."""
    hits = store.keyword_search(keyword_query(identifier), kind=kind, limit=MAX_CANDIDATES)
    labels = [r.label for r in refs(store, [h.id for h in hits]).values()]
    if len(labels) < MAX_CANDIDATES:
        by_name: dict[str, str] = {}
        for node in store.iter_nodes(kind):
            by_name.setdefault(node.name, node_ref(node).label)
        tail = normalise_fqn(identifier).rsplit(".", 1)[-1]
        for name in difflib.get_close_matches(tail, list(by_name), n=MAX_CANDIDATES, cutoff=0.6):
            if by_name[name] not in labels:
                labels.append(by_name[name])
    return labels[:MAX_CANDIDATES]


# -- service map ---------------------------------------------------------------------------------------


def service_map(runtime: Runtime, request: ServiceMapRequest) -> ServiceMapResponse:
    index, store, status = open_fresh(runtime, request.project_path)
    services, found = maps.arrows(store)
    focus = request.microservice
    if focus is not None and focus not in services:
        named = service_names(store, focus)
        if len(named) != 1:
            raise NotFound(f"no microservice {focus!r}" + (f" (it names {', '.join(named)})" if named else "")
                           + f"; microservices are: {', '.join(services)}")
        focus = named[0]
    if focus is not None:
        services, found = maps.focus(services, found, focus, request.depth)
    diagram = maps.mermaid(services, found) if request.format == "mermaid" else maps.dot(services, found)
    return ServiceMapResponse(
        format=request.format, microservice=focus, services=services,
        links=[ServiceLink(source=a.source, target=a.target, kind=a.kind, match=a.match, labels=a.labels)
               for a in found], diagram=diagram, index_status=status)


# -- status and index ------------------------------------------------------------------------------------


def status(runtime: Runtime, request: StatusRequest) -> StatusResponse:
    index = CodeIndex(runtime, request.project_path)
    index.handle.want("files")  # the freshness check reads them
    store = index.open()
    if store is None or index.meta(store).get("last_indexed") is None:
        stale = sorted(index.list_files())
        return StatusResponse(exists=False, index_location=index.location, index_size_bytes=index.size_bytes(),
                              nodes={}, edges={}, microservices=[], stale_files=stale[:50],
                              index_status=index_status(index, None, changed=len(stale)))
    stale = index.stale_files(store)
    nodes = {kind: store.count_nodes(kind) for kind in filters.KINDS}
    for symbol_kind in SYMBOL_KINDS:
        count = store.nodes_with_keys("symbol", [[f"f:symbol_kind={symbol_kind}"]], limit=0)[0]
        if count:
            nodes[f"symbol:{symbol_kind}"] = count
    edges = {t: c for t in EDGE_TYPES if (c := store.count_edges(t))}
    services = [ServiceInfo(name=n.name, root=n.props["root"], deployable=n.props["deployable"],
                            declared_names=n.props["declared_names"], modules=n.props["modules"], files=n.props["files"])
                for n in store.iter_nodes("microservice")]
    return StatusResponse(exists=True, index_location=index.location, index_size_bytes=index.size_bytes(),
                          nodes=nodes, edges=edges, microservices=sorted(services, key=lambda s: s.name),
                          stale_files=stale[:50], index_status=index_status(index, store, changed=len(stale)))


def index_kept(runtime: Runtime, request: IndexRequest) -> str:
    """After Ctrl-C: what the index keeps (the last finished structural update, the nodes embedded so far)
    and the command that finishes it."""
    code_index = CodeIndex(runtime, request.project_path)
    again = f"`graphlore code index -p {shlex.quote(str(code_index.root))}`"
    if request.force:
        def embedded() -> str:
            embedding = code_index.store().get_meta("embedding") or {"done": 0, "total": 0}
            return f"{embedding['done']} of {embedding['total']} nodes embedded"

        return rebuild_kept(code_index, embedded, "code")
    store = code_index.store() if code_index.exists() else None
    if store is None or store.get_meta("last_indexed") is None:
        return f"no structure was written yet (it is written in one transaction); run {again} to start again"
    embedding = store.get_meta("embedding") or {"done": 0, "total": 0}
    return (f"the structure of the last finished update and {embedding['done']} of {embedding['total']} nodes "
            f"embedded are kept; run {again} to finish")


def index(runtime: Runtime, request: IndexRequest, progress=None) -> IndexResponse:
    code_index = CodeIndex(runtime, request.project_path)
    started = time.perf_counter()
    code_index.embed_rebuild = request.embed
    report = code_index.sync(force=request.force, progress=progress)
    structural = time.perf_counter() - started - report.seconds.get("embedding", 0.0)  # a rebuild embeds in sync
    embedded = report.embedded_beside + (code_index.embed(progress) if request.embed else 0)
    store = code_index.store()
    notes = []
    if report.files == 0:
        notes.append(f"no source file under {code_index.root}: the index is empty (the code toolset reads "
                     + ", ".join(sorted(suffixes())) + " files)")
    status = index_status(code_index, store, refreshed=True)
    if not request.embed and status.embedded < status.embeddable:
        notes.append("embeddings skipped: search ranks by BM25 alone until the index tool embeds the rest")
    return IndexResponse(
        status=report.status, project_path=str(code_index.root), files=report.files, parsed=report.parsed,
        resolved=report.resolved, removed=report.removed, nodes_written=report.nodes_written,
        nodes_deleted=report.nodes_deleted, edges_written=report.edges_written, edges_deleted=report.edges_deleted,
        nodes=store.count_nodes(), edges=store.count_edges(), embedded_now=embedded, embed=request.embed,
        structural_ms=int(structural * 1000), embedding_ms=int((time.perf_counter() - started - structural) * 1000),
        index_location=code_index.location, note="; ".join(notes) or None,
        unreadable_files=store.get_meta("unreadable") or [], index_status=status)
