"""Request and response models of the code tools (strict: unknown fields are errors, see `contract.py`).

Filters are checked here, while the request is validated (`filters.parse_filter`), so a bad filter fails
the same way over MCP and on the command line, before anything runs.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from graphlore.contract import MAX_OFFSET, LocalPath, Request, Response
from graphlore.errors import InvalidInput, ref

from ..model import SYMBOL_KINDS
from . import filters
from .edge_keys import EDGE_KEYS, FLOW_KEYS, WALK_KEYS

# Limits of one request (declared in the JSON schema clients see).
MAX_PATH = 4096
MAX_ID = 2000  # a node id, an fqn or an identifier
MAX_QUERY = 2000
MAX_NAME = 200
MAX_FILTER_FIELDS = 20
MAX_FILTER_TEXT = 10_000

ProjectPath = Annotated[str, LocalPath("folder"), Field(min_length=1, max_length=MAX_PATH,
                                   description="The source tree's root folder (the indexed folder).")]
NodeKind = Literal[filters.KINDS]  # type: ignore[valid-type]
EdgeKey = Literal[EDGE_KEYS]  # type: ignore[valid-type]
WalkKey = Literal[WALK_KEYS]  # type: ignore[valid-type]
MAX_SOURCE_LINES = 400
HintKind = Literal[(*filters.KINDS, *SYMBOL_KINDS)]  # type: ignore[valid-type]
Direction = Literal["out", "in", "both"]
FilterInput = (Annotated[dict[str, Any], Field(max_length=MAX_FILTER_FIELDS)]
               | Annotated[str, Field(max_length=MAX_FILTER_TEXT)])


def _filter_description() -> str:
    return ("Per-kind strict filter: an object (or a JSON-encoded object) of fields, each one value or a "
            "non-empty list (OR); fields combine with AND. Fields: "
            + "; ".join(f"{kind}: {filters.field_list(kind)}" for kind in filters.KINDS) + ".")


# -- shared parts -----------------------------------------------------------------------------------------


class IndexStatus(Response):
    """How fresh the index behind an answer is (every response carries one)."""

    project_path: str = Field(description="The indexed folder (absolute real path).")
    indexed_at: str | None = Field(description="ISO 8601 UTC time of the last index update.")
    git_commit: str | None = Field(description="HEAD of the git checkout when indexed; null when not a checkout.")
    files_indexed: int = Field(description="Source files in the index.")
    files_changed: int = Field(description="Files added, changed or removed since indexed_at (0 right after a refresh).")
    refreshed: bool = Field(description="This call brought the index up to date first.")
    embedded: int = Field(description="Nodes whose embedding is done.")
    embeddable: int = Field(description="Nodes that get an embedding (symbols, routes, clients, producers).")
    search_mode: Literal["hybrid", "bm25"] = Field(
        description="How search ranks now: hybrid once every embedding is done, BM25 alone until then.")


class NodeRef(Response):
    """One node in a list: enough to recognise it and to ask for more (describe / neighbors by id)."""

    id: str
    kind: str = Field(description="symbol, microservice, module, route, client or producer.")
    name: str
    label: str = Field(description="The fqn of a symbol, a module's path, a microservice's name, a route's "
                                   "'METHOD /path' or 'broker topic', a client's 'METHOD service /path'.")
    symbol_kind: str | None = None
    role: str | None = None
    microservice: str | None = None
    file: str | None = None
    line: int | None = None


# -- find ------------------------------------------------------------------------------------------------


class FindRequest(Request):
    project_path: ProjectPath
    kind: NodeKind = Field(description="What to list: " + ", ".join(filters.KINDS) + ".")
    filter: FilterInput = Field(default_factory=dict, description=_filter_description())
    limit: int = Field(25, ge=1, le=500, description="Most results returned.")
    offset: int = Field(0, ge=0, le=MAX_OFFSET, description="Results to skip (pagination).")

    @model_validator(mode="after")
    def _check_filter(self) -> FindRequest:
        self.filter = filters.normalised(filters.parse_filter(self.kind, self.filter))
        return self


class FindResponse(Response):
    kind: str
    filter: dict[str, Any] = Field(description="The filter as understood (values as lists).")
    total: int = Field(description="Nodes that match, before limit and offset.")
    offset: int
    limit: int
    has_more: bool
    results: list[NodeRef]
    note: str | None = Field(None, description="Why the result is empty, when it can be told.")
    index_status: IndexStatus


# -- describe --------------------------------------------------------------------------------------------


class DescribeRequest(Request):
    project_path: ProjectPath
    id: str | None = Field(None, min_length=1, max_length=MAX_ID,
                           description="A node id (from find, search, resolve or neighbors).")
    fqn: str | None = Field(None, min_length=1, max_length=MAX_ID,
                            description="A symbol's exact fqn (an alias of its id; never fuzzy).")
    include_source: bool = Field(False, description="Also return the node's source text with line numbers (a "
                                                     f"symbol's lines, a route's or client's line; at most "
                                                     f"{MAX_SOURCE_LINES} lines).")

    @model_validator(mode="after")
    def _one_of(self) -> DescribeRequest:
        if (self.id is None) == (self.fqn is None):
            raise InvalidInput(f"give exactly one of {ref('id')} or {ref('fqn')} (to turn a name into an id, use "
                               "resolve)")
        return self


class SourceText(Response):
    file: str = Field(description="The file, relative to project_path.")
    first_line: int
    last_line: int = Field(description="The last line shown (first_line + lines shown - 1).")
    truncated: bool = Field(description=f"The node spans more than {MAX_SOURCE_LINES} lines; the rest is left out.")
    text: str = Field(description="The lines, each as 'NUMBER| text'.")


class DescribeResponse(Response):
    node: NodeRef
    attributes: dict[str, Any] = Field(description="Every stored attribute of the node.")
    edge_summary: dict[str, int] = Field(
        description="Edge counts by 'TYPE out' / 'TYPE in', and 'TYPE out (via members)' / 'TYPE in (via "
                    "members)' over everything the node declares, at any depth.")
    members: int = Field(description="Symbols the node declares at any depth (what the via-members counts cover).")
    source: SourceText | None = Field(None, description="With include_source: the node's lines as on disk now.")
    index_status: IndexStatus


# -- neighbors -------------------------------------------------------------------------------------------


class NeighborsRequest(Request):
    project_path: ProjectPath
    id: str = Field(min_length=1, max_length=MAX_ID, description="The node whose edges to follow.")
    edge_types: list[EdgeKey] | None = Field(  # type: ignore[valid-type]
        None, min_length=1, max_length=len(EDGE_KEYS),
        description="Edge keys: stored types, reversed keys (OVERRIDDEN_BY, CALLED_BY...) and member views "
                    "(DECLARES.CALLS...). Not given (null): every stored type.")
    direction: Direction = Field("out", description="out: edges leaving the node; in: entering it; both.")
    limit: int = Field(50, ge=1, le=500, description="Most edges returned.")
    offset: int = Field(0, ge=0, le=MAX_OFFSET, description="Edges to skip (pagination).")
    include_unresolved: bool = Field(
        False, description="Also list the node's (or its members', for DECLARES.CALLS) unresolved call sites.")


class Neighbor(Response):
    edge_key: str = Field(description="The key asked for that found this edge.")
    edge_type: str = Field(description="The stored edge type.")
    direction: Literal["out", "in"] = Field(description="out: from the node (or member) to `node`; in: from `node`.")
    node: NodeRef = Field(description="The other end.")
    via: NodeRef | None = Field(None, description="The member whose edge this is (DECLARES.* keys).")
    props: dict[str, Any] = Field(description="The edge's attributes (CALLS: resolution, confidence, lines, count).")


class UnresolvedCall(Response):
    owner: str = Field(description="Id of the symbol that makes the call.")
    name: str
    receiver: str
    line: int
    reason: str
    detail: str | None = None
    candidates: list[str] | None = None


class NeighborsResponse(Response):
    node: NodeRef
    edge_types: list[str]
    direction: str
    total: int
    offset: int
    limit: int
    has_more: bool
    counts: dict[str, int] = Field(description="Edges per key asked for, before limit and offset.")
    neighbors: list[Neighbor]
    unresolved: list[UnresolvedCall] = Field(
        default_factory=list, description="With include_unresolved: call sites that resolve to nothing.")
    unresolved_total: int = Field(0, description="With include_unresolved: how many in all.")
    note: str | None = None
    index_status: IndexStatus


# -- paths and impact ------------------------------------------------------------------------------------

_WALK_DOC = ("Edge keys to follow (stored types and reversed keys, as in neighbors). Not given (null): the "
             "flow of a "
             "request, caller to callee across services: " + ", ".join(FLOW_KEYS) + ".")


class Hop(Response):
    source: NodeRef
    edge: str = Field(description="The edge key, read from source to target (CALLS, HTTP_CALLS, EXPOSED_BY...).")
    target: NodeRef
    props: dict[str, Any] = Field(description="The edge's attributes (CALLS: lines, resolution; links: match).")


class FoundPath(Response):
    length: int = Field(description="Edges on the path.")
    hops: list[Hop] = Field(description="The hops in order, from the start to the end.")


class PathsRequest(Request):
    project_path: ProjectPath
    from_id: str = Field(min_length=1, max_length=MAX_ID, description="Where paths start: a node id (a class "
                         "stands for every member it declares).")
    to_id: str = Field(min_length=1, max_length=MAX_ID, description="Where paths end: a node id (a class stands "
                       "for every member it declares).")
    edge_types: list[WalkKey] | None = Field(  # type: ignore[valid-type]
        None, min_length=1, max_length=len(WALK_KEYS), description=_WALK_DOC)
    max_depth: int = Field(10, ge=1, le=12, description="Most hops on a path: a hop is a call, within a service or "
                                                       "across services (a client's link to a route); an interface "
                                                       "method's override, a method's client and a route's handler "
                                                       "cost none.")
    limit: int = Field(10, ge=1, le=100, description="Most paths returned (shortest first).")


class PathsResponse(Response):
    source: NodeRef
    target: NodeRef
    edge_types: list[str]
    max_depth: int
    paths: list[FoundPath] = Field(description="The paths, shortest first.")
    has_more: bool = Field(description="More paths exist within max_depth than limit.")
    note: str | None = Field(None, description="Why there is no path, when it can be told; a class or module end "
                                           "taken as the symbols it declares; where the paths went on past the "
                                           "target (an abstract method to its one implementation).")
    index_status: IndexStatus


class ImpactRequest(Request):
    project_path: ProjectPath
    id: str = Field(min_length=1, max_length=MAX_ID, description="The node whose blast radius to compute (a class "
                    "stands for every member it declares).")
    direction: Literal["in", "out"] = Field(
        "in", description="in: everything that reaches the node (callers, the routes and clients of other "
                          "services that end in it); out: everything it reaches.")
    edge_types: list[WalkKey] | None = Field(  # type: ignore[valid-type]
        None, min_length=1, max_length=len(WALK_KEYS), description=_WALK_DOC)
    depth: int = Field(3, ge=1, le=10, description="Most hops from the node, counted as in paths (depth 0: the node "
                                                     "in another guise: its interface method, its route, its client).")
    include_tests: bool = Field(True, description="false: leave test code out (symbols with role TEST are neither "
                                                  "listed nor walked through), so the radius is production code.")
    limit: int = Field(100, ge=1, le=500, description="Most nodes returned (nearest first).")
    offset: int = Field(0, ge=0, le=MAX_OFFSET, description="Nodes to skip (pagination).")


class Reached(Response):
    node: NodeRef
    depth: int = Field(description="Hops (calls) from the node; 0: the node in another guise.")
    path: list[Hop] = Field(description="One shortest path, read in the flow's direction (caller to callee).")


class ImpactResponse(Response):
    node: NodeRef
    direction: str
    edge_types: list[str]
    depth: int
    total: int = Field(description="Nodes reached, before limit and offset.")
    by_service: dict[str, dict[str, int]] = Field(
        description="Per microservice: nodes reached by kind (symbol, route, client, producer).")
    by_depth: dict[str, int] = Field(description="Nodes reached at each distance.")
    tests_left_out: int = Field(0, description="With include_tests=false: test symbols the walk reached and "
                                               "left out (not walked through).")
    offset: int
    limit: int
    has_more: bool
    results: list[Reached]
    consumers: list[Reached] = Field(
        default_factory=list, description="With direction in: the consumers of the messages the node itself sends "
        "(their routes and handlers, one ASYNC_CALLS hop away): not callers, but they break when what it sends "
        "changes. Empty for out, or when ASYNC_CALLS is not among edge_types.")
    note: str | None = None
    index_status: IndexStatus


# -- search ----------------------------------------------------------------------------------------------


class SearchRequest(Request):
    project_path: ProjectPath
    query: str = Field(min_length=1, max_length=MAX_QUERY,
                       description="Words, a name or a description of what you look for.")
    kind: NodeKind | None = Field(None, description="Only nodes of this kind (null: every kind).")
    filter: FilterInput = Field(default_factory=dict, description=_filter_description() + " Needs kind.")
    limit: int = Field(10, ge=1, le=100, description="Most results returned.")

    @model_validator(mode="after")
    def _check_filter(self) -> SearchRequest:
        if self.kind is None:
            empty = self.filter == {} or (isinstance(self.filter, str) and self.filter.strip() in ("", "{}"))
            if not empty:
                raise InvalidInput(f"{ref('filter')} needs {ref('kind')}: filter fields differ per kind ("
                                   + "; ".join(f"{k}: {filters.field_list(k)}" for k in filters.KINDS) + ")")
            self.filter = {}
            return self
        self.filter = filters.normalised(filters.parse_filter(self.kind, self.filter))
        return self


class SearchHit(Response):
    node: NodeRef
    score: float = Field(description="hybrid: cosine similarity in [0, 1]; bm25: the BM25 score (higher is better).")


class SearchResponse(Response):
    query: str
    kind: str | None
    filter: dict[str, Any]
    ranking: Literal["hybrid", "bm25"]
    results: list[SearchHit]
    note: str | None = None
    index_status: IndexStatus


# -- resolve ---------------------------------------------------------------------------------------------


class ResolveRequest(Request):
    project_path: ProjectPath
    identifier: str = Field(min_length=1, max_length=MAX_ID,
                            description="An fqn, a qualified or simple name, a file path or an id.")
    hint_kind: HintKind | None = Field(  # type: ignore[valid-type]
        None, description="Only nodes of this kind, or symbols of this symbol_kind.")


class Candidate(Response):
    node: NodeRef
    reason: str = Field(description="How the identifier matched (see SKILL.md).")
    score: float = Field(description="How strong that kind of match is, 0..1.")


class ResolveResponse(Response):
    identifier: str
    status: Literal["one", "many", "none"]
    node: NodeRef | None = Field(None, description="status one: the node.")
    reason: str | None = Field(None, description="status one: how it matched.")
    candidates: list[Candidate] = Field(
        description="status many: the candidates of the strongest kind of match (at most 10).")
    total_candidates: int = Field(description="status many: how many matched that way in all.")
    weaker_matches: list[Candidate] = Field(
        description="Matches of weaker kinds (at most 10), so that nothing is hidden by the choice.")
    why: str | None = Field(None, description="status none: what was tried.")
    closest: list[str] = Field(description="status none: the closest names (by BM25 over names and fqns).")
    index_status: IndexStatus


# -- service map ---------------------------------------------------------------------------------------


class ServiceMapRequest(Request):
    project_path: ProjectPath
    microservice: str | None = Field(None, min_length=1, max_length=MAX_NAME,
                                     description="Focus on this microservice (null: all).")
    depth: int = Field(1, ge=1, le=5, description="With a focus: services within this many links of it.")
    format: Literal["mermaid", "dot"] = Field("mermaid", description="Mermaid flowchart text or Graphviz DOT.")


class ServiceLink(Response):
    source: str = Field(description="The calling microservice.")
    target: str = Field(description="The called microservice, 'NAME (outside)', or '?'.")
    kind: Literal["http", "grpc", "async"]
    match: str = Field(description="cross_service, intra_service, ambiguous, no_route or unresolved.")
    labels: list[str] = Field(description="Routes called ('METHOD /path'), gRPC methods ('package.Service/Method'), "
                                          "topics ('broker topic'), or what an unresolved caller asks for.")


class ServiceMapResponse(Response):
    format: str
    microservice: str | None = Field(description="The focus microservice as the map names it (a folder or other "
                                                 "name it goes by, given as the focus, is its name here), or null.")
    services: list[str] = Field(description="The microservices drawn.")
    links: list[ServiceLink]
    diagram: str = Field(description="The picture: Mermaid flowchart text or Graphviz DOT.")
    index_status: IndexStatus


# -- status and index ------------------------------------------------------------------------------------


class StatusRequest(Request):
    project_path: ProjectPath


class ServiceInfo(Response):
    name: str
    root: str
    deployable: bool
    declared_names: dict[str, str]
    modules: list[str]
    files: int


class StatusResponse(Response):
    exists: bool
    index_location: str
    index_size_bytes: int
    nodes: dict[str, int] = Field(description="Nodes per kind (symbols per symbol_kind as 'symbol:KIND').")
    edges: dict[str, int] = Field(description="Edges per type.")
    microservices: list[ServiceInfo]
    stale_files: list[str] = Field(description="Files added, changed or removed since the last update (at most 50).")
    index_status: IndexStatus


class IndexRequest(Request):
    project_path: ProjectPath
    force: bool = Field(False, description="Rebuild from scratch (a damaged index, another embedder or version).")
    embed: bool = Field(True, description="Also embed the symbols (the second, resumable phase).")


class IndexResponse(Response):
    status: Literal["created", "updated", "unchanged", "rebuilt"]
    project_path: str
    files: int = Field(description="Source files in the index.")
    parsed: int = Field(description="Files parsed this time (their content changed).")
    resolved: int = Field(description="Files resolved again (changed ones and those that depend on them).")
    removed: int = Field(description="Files gone since the last update.")
    nodes_written: int
    nodes_deleted: int
    edges_written: int
    edges_deleted: int
    nodes: int = Field(description="Nodes in the index.")
    edges: int = Field(description="Edges in the index.")
    embedded_now: int = Field(description="Nodes embedded by this call.")
    embed: bool = Field(description="As asked: false skipped the embedding phase.")
    structural_ms: int
    embedding_ms: int
    index_location: str
    note: str | None = Field(None, description="What the numbers do not say: no source file found, embeddings "
                                               "skipped.")
    unreadable_files: list[str] = Field(default_factory=list, description=(
        "Configuration files (settings, deployment manifests, proxy configurations, OpenAPI documents) that "
        "cannot be parsed, so nothing was read from them: 'path: why' each. describe of the service holding "
        "one shows it too."))
    index_status: IndexStatus
