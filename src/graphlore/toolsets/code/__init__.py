"""The code toolset: a code graph of a multi-service source tree with a strict, typed query surface.

Modules, one job each::

    project.py       walk the tree; modules, microservices and their declared names; each file's context
    parsing.py       tree-sitter grammars (from the single-language wheels) and small helpers
    java.py          one Java file -> FileFacts          java_resolve.py    cross-file Java resolution
    python.py        one Python file -> FileFacts        python_resolve.py  cross-file Python resolution
    typescript.py    one TS/JS file -> FileFacts         ts_resolve.py      cross-file TS/JS resolution
    roles.py         the role and capability tables
    resolve.py       the symbol table, dependency tracking (exact incremental builds), node/edge helpers
    graph.py         CodeGraph: build / update / restore / snapshot (in memory)
    model.py         the records and closed vocabularies
    persist.py       per-file records that let an update after a restart stay incremental
    records.py       graph records -> store rows: text, lookup and filter keys, hashes
    index.py         CodeIndex: the structural phase (diff-and-write) and the embedding phase
    filters.py       the strict per-kind filters        edge_keys.py   the closed set of neighbor keys
    models.py        request / response models          tools.py       the tools
    traverse.py      members, edge summaries, neighbors views.py       index status, node references
    render.py        text for people and agents

The records (``CodeGraph.snapshot()`` -> ``{id: GraphNode}, {id: GraphEdge}``) map one to one onto the
store's ``Node(id, kind, name, text, props)`` and ``Edge(id, src, dst, type, props)``:

* ``kind="symbol"`` (every symbol; ``props.symbol_kind`` in `model.SYMBOL_KINDS`). ``text`` (for BM25
  and the embedding) is name, fqn, signature and docstring. Props: ``fqn``, ``symbol_kind``,
  ``language``, ``microservice``, ``module`` (module path, "." for the root), ``file``, ``line_start``,
  ``line_end``, ``signature``, ``modifiers``, ``annotations`` (Java simple names; Python/TS decorators as
  written), ``annotation_text`` (those with arguments, as written), ``docstring``, ``role``,
  ``capabilities``, ``generated``; callables ``params`` [{name, type}] and ``return_type``; fields
  ``type``; types ``extends`` / ``implements`` (qualified names, project or external) and ``type_params``;
  Java types ``bean`` and ``injects_external``; files/modules ``loc``, ``content_hash``,
  ``imports_external`` (and TS ``exports``, Java ``package``); ``unresolved_calls``: the call sites of
  this symbol that no edge stands for, each ``{name, receiver, line, reason, detail?, candidates?}``
  with ``reason`` in `model.UNRESOLVED_REASONS` and ``candidates`` the ids of the ambiguous targets.
* ``kind="microservice"``: ``name``, ``root``, ``modules``, ``deployable``, ``declared_names``
  (``spring.application.name``, ``artifactId``, ``package.json``, ``pyproject`` ...), ``name_source``,
  ``files``. ``kind="module"``: ``path``, ``name``, ``microservice``, ``build_files``, ``config_files``,
  ``spring_application_name``, ``files``.
* Edges (`model.EDGE_TYPES`): ``DECLARES`` microservice -> module -> Java package / top-level Python
  module or package / TS-JS file -> ... -> type -> member (Python packages declare their submodules);
  ``EXTENDS`` / ``IMPLEMENTS`` type -> project type; ``OVERRIDES`` method -> the nearest overridden
  project method on every supertype path; ``INJECTS`` type (or FastAPI function) -> injected project
  type/function, props ``via`` [field | constructor | method | bean_method | depends] and ``members``;
  ``IMPORTS`` file/module -> imported project module or symbol, props ``lines`` (``static``,
  ``reexport``); ``CALLS`` caller -> callee, props ``resolution`` (`model.RESOLUTIONS`), ``confidence``,
  ``lines``, ``count``. Ids are stable hashes (`model.symbol_id`: file path + key in the file;
  `model.edge_id`: src, type, dst).
"""

from __future__ import annotations

from graphlore.tools import Arg, Cli, Toolset, ToolSpec
from graphlore.toolsets.folder_index import folder_stores

from . import examples, models, render, tools

INSTRUCTIONS = """\
A code graph of a (multi-service) source tree: Java, Python, TypeScript/JavaScript. Every tool takes
project_path, the tree's root; the index is built on first use and refreshed when files change (every
answer carries index_status). Typical flow: resolve a half-remembered name (or search by words) to an
id, then describe it and follow neighbors (CALLS, CALLED_BY, OVERRIDDEN_BY, DECLARES.CALLS...). find
lists nodes of a kind with a strict filter (unknown fields and bad values are errors that list the
valid ones). Cross-service: routes, clients and producers are nodes too; HTTP_CALLS / ASYNC_CALLS link
them across services (HTTP_CALLED_BY: who calls a route); service_map draws the system. Nothing is
guessed: unresolved calls, links and ambiguous names are reported as such."""

PROJECT = Arg(short="-p", default=".", metavar="PATH", help="The source tree's root (default: the current folder).")


def _spec(name: str, description: str, request, response, run, render_fn, cli: Cli, **kw) -> ToolSpec:
    return ToolSpec(name=name, description=description, request=request, response=response, run=run,
                    render=render_fn, read_only=False, cli=cli, **kw)


TOOLSET = Toolset(
    name="code",
    summary="A code graph of a multi-service source tree, with strict queries.",
    instructions=INSTRUCTIONS,
    examples=examples.examples,
    stores=folder_stores("code"),
    tools=[
        _spec("find",
              "List nodes of one kind (symbol, microservice, module, route, client, producer) that match a strict "
              "filter, paginated "
              "(total, has_more). The filter's fields depend on the kind; a list means OR; an unknown field, a "
              "field of another kind, 'kind' inside the filter or a bad value is an error naming the valid "
              "ones. An empty result says why when it can.",
              models.FindRequest, models.FindResponse, tools.find, render.find,
              Cli(help="List nodes of a kind matching a strict filter.", args={
                  "kind": Arg(positional=True), "filter": Arg(short="-f", metavar="JSON",
                                                              example='\'{"role": "SERVICE"}\''),
                  "project_path": PROJECT, "limit": Arg(short="-n")})),
        _spec("describe",
              "Every attribute of one node (by id, or a symbol by its exact fqn) and an edge summary: counts by "
              "edge type and direction, plus '(via members)' roll-ups over everything a class, package, module "
              "or service declares.",
              models.DescribeRequest, models.DescribeResponse, tools.describe, render.describe,
              Cli(help="Every attribute of a node and its edge counts.", args={
                  "id": Arg(positional=True, default=None), "project_path": PROJECT})),
        _spec("neighbors",
              "Follow a node's edges: stored types (DECLARES, EXTENDS, IMPLEMENTS, OVERRIDES, INJECTS, IMPORTS, "
              "CALLS), reversed keys (CALLED_BY, OVERRIDDEN_BY, ...) and member views (DECLARES.CALLS: every "
              "call made by what a class declares). direction out|in|both; paginated; include_unresolved lists "
              "call sites that resolve to nothing, with the reason.",
              models.NeighborsRequest, models.NeighborsResponse, tools.neighbors, render.neighbors,
              Cli(help="Follow a node's edges (stored, reversed or member views).", args={
                  "id": Arg(positional=True), "edge_types": Arg(short="-e", metavar="KEY"),
                  "direction": Arg(short="-d"), "project_path": PROJECT, "limit": Arg(short="-n")})),
        _spec("search",
              "Find nodes by words or a description: BM25 over names (split at case changes), fqns, signatures "
              "and docstrings, fused with vector search once embeddings are done (ranking says which). An "
              "optional kind and strict filter apply before ranking.",
              models.SearchRequest, models.SearchResponse, tools.search, render.search,
              Cli(help="Find nodes by words (hybrid once embedded, BM25 until then).", args={
                  "query": Arg(positional=True), "kind": Arg(short="-k"),
                  "filter": Arg(short="-f", metavar="JSON", example='\'{"role": "SERVICE"}\''),
                  "project_path": PROJECT, "limit": Arg(short="-n")})),
        _spec("resolve",
              "Turn an identifier (fqn, qualified or simple name, file path, id) into a node: 'one', 'many' (up "
              "to 10 candidates of the strongest kind of match, each with its reason and score; never a silent "
              "pick) or 'none' (with what was tried and the closest names). Patterns are refused.",
              models.ResolveRequest, models.ResolveResponse, tools.resolve, render.resolve,
              Cli(help="Turn a name into a node id (one, many or none).", args={
                  "identifier": Arg(positional=True), "hint_kind": Arg(short="-k"), "project_path": PROJECT})),
        _spec("service_map",
              "A picture of the system: the microservices and the links between them (HTTP with method and "
              "path, async with topic; ambiguous and unresolved ones dashed and labelled) as Mermaid text to paste "
              "into markdown, or Graphviz DOT. Optionally around one microservice, to a depth.",
              models.ServiceMapRequest, models.ServiceMapResponse, tools.service_map, render.service_map,
              Cli(command="map", help="Draw the services and their links (Mermaid or DOT).", args={
                  "microservice": Arg(flags=("--service",), metavar="NAME"), "format": Arg(short="-f"),
                  "project_path": PROJECT})),
        ToolSpec(name="status",
                 description="Whether the tree is indexed, how fresh the index is (files changed since, git commit), "
                             "node and edge counts, the microservices found, and the index size. Never modifies the "
                             "index.",
                 request=models.StatusRequest, response=models.StatusResponse, run=tools.status, render=render.status,
                 cli=Cli(help="Show the index: freshness, counts, microservices.", args={"project_path": PROJECT})),
        _spec("index",
              "Build or update the index: the structure first (only changed files are parsed; files depending on "
              "them are resolved again), then the embeddings of new or changed symbols (resumable, with "
              "progress). force=true rebuilds from scratch.",
              models.IndexRequest, models.IndexResponse, tools.index, render.index,
              Cli(help="Build or update the index (structure, then embeddings).", args={
                  "project_path": Arg(positional=True, default=".", metavar="PATH"),
                  "embed": Arg(flags=("--embed/--no-embed",))}),
              progress=True, idempotent=True),
    ],
)
