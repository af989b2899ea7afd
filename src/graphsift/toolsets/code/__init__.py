"""The code toolset (part 1, platform-independent core): parse a source tree and build its code graph in
memory, in full or incrementally. No store, MCP or CLI wiring yet.

Modules, one job each::

    project.py       walk the tree; modules, microservices and their declared names; each file's context
    parsing.py       tree-sitter grammars (from the single-language wheels) and small helpers
    java.py          one Java file -> FileFacts          java_resolve.py    cross-file Java resolution
    python.py        one Python file -> FileFacts        python_resolve.py  cross-file Python resolution
    typescript.py    one TS/JS file -> FileFacts         ts_resolve.py      cross-file TS/JS resolution
    roles.py         the role and capability tables
    resolve.py       the symbol table, dependency tracking (exact incremental builds), node/edge helpers
    graph.py         CodeGraph: build / update / snapshot
    model.py         the records and closed vocabularies

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

from .graph import CodeGraph, UpdateStats
from .model import GraphEdge, GraphNode

__all__ = ["CodeGraph", "GraphEdge", "GraphNode", "UpdateStats"]
