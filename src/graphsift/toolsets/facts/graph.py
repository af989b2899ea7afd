"""One facts graph: where its store lives, how its rows look, and how a name finds its node.

A graph named ``g`` lives in ``{home}/facts/{g}/graph.db`` (``--graph`` /
``graph``, default ``default``). Rows:

- entity / topic nodes: id ``E:slug`` / ``T:slug``, name = canonical name, one vector
  of ``"{name}: {definition}"`` (its hash is ``text_hash``), text = the keyword text
  BM25 reads (that line, the aliases and the name's codes as whole tokens, see
  :func:`lookup.keyword_text`), props ``type`` (entities), ``definition``,
  ``aliases``; lookup keys from :mod:`names` for the name, every alias (their strong
  codes included) and every (name, definition) mention merged into it.
- document nodes ``D:slug`` (props ``date``, ``source``, ``content_hash``, counts and
  the resolutions of its mentions) and chunk nodes ``D:slug#i`` (text = chunk).
- fact edges ``D:slug/hash``: subject -> object, type ``fact``, text = sentence
  (embedded), date = document date, props ``relationship``, ``date_context``,
  ``chunk``, ``document``; ``possible_duplicate`` edges link nodes that resolution
  kept apart but found close.
"""

from __future__ import annotations

import threading
from pathlib import Path

from graphsift.errors import EmbedderMismatch, IndexCorrupted, InvalidInput, NotFound
from graphsift.store import Node, SQLiteStore
from graphsift.toolset import Runtime
from graphsift.toolsets.facts.names import exact_key, normalize, spaceless

GRAPH_FILE = "graph.db"
FACT = "fact"
DUPLICATE = "possible_duplicate"
PREFIX = {"entity": "E:", "topic": "T:", "document": "D:"}
KINDS = ("entity", "topic")


def node_text(name: str, definition: str) -> str:
    """What an entity or topic is embedded as."""
    return f"{name}: {definition}"


class FactsGraph:
    """A named graph opened through a shared :class:`Runtime` (one open store per file and process)."""

    def __init__(self, runtime: Runtime, name: str) -> None:
        self.runtime = runtime
        self.name = name
        self.location = runtime.settings.home / "facts" / name
        self.path = self.location / GRAPH_FILE

    def exists(self) -> bool:
        return self.path.is_file()

    def store(self, create: bool = False) -> SQLiteStore:
        stores: dict[Path, SQLiteStore] = self.runtime.state.setdefault("facts.stores", {})
        lock = self.runtime.state.setdefault("facts.lock", threading.Lock())
        with lock:
            store = stores.get(self.path)
            if store is None:
                if not create and not self.exists():
                    raise NotFound(
                        f"graph {self.name!r} has no data yet ({self.path} does not exist); add documents first: "
                        f"add_document (MCP) or graphsift facts ingest FILE.jsonl --graph {self.name}"
                    )
                try:
                    store = SQLiteStore(self.path, namespace=f"facts:{self.name}")
                except IndexCorrupted as exc:
                    raise IndexCorrupted(
                        f"graph {self.name!r} is damaged ({exc.message}); delete {self.location} and ingest again"
                    ) from exc
                stores[self.path] = store
        self.check_embedder(store)
        return store

    def check_embedder(self, store: SQLiteStore) -> None:
        stored = store.get_meta("embedder")
        if stored is None:
            return
        embedder = self.runtime.embedder
        if stored["name"] != embedder.name or (embedder.dim and stored["dim"] != embedder.dim):
            raise EmbedderMismatch(
                f"graph {self.name!r} was built with embedder {stored['name']} ({stored['dim']} dims) but the "
                f"configured embedder is {embedder.name}; use that embedder, or ingest into a new graph"
            )

    # -- names to nodes ----------------------------------------------------------------------

    def resolve(self, store: SQLiteStore, given: str, kind: str | None) -> tuple[Node, str]:
        """The one node ``given`` names (node id, then exact name or alias, then normalised name or alias).

        Nothing found: an error listing the nearest nodes and pointing to ``find``;
        several: an error listing them with their ids.
        """
        kinds = [kind] if kind else list(KINDS)
        by_id = [n for n in store.get_nodes([given.strip()]) if n.kind in kinds]
        if by_id:
            return by_id[0], "id"
        for keys in ([exact_key(given)], ["n:" + normalize(given), "s:" + spaceless(given)]):
            found: dict[str, None] = {}
            for key_kind in kinds:
                for ids in store.nodes_by_keys(keys, kind=key_kind).values():
                    found.update(dict.fromkeys(ids))
            if len(found) == 1:
                [node] = store.get_nodes(list(found))
                if exact_key(node.name) == exact_key(given):
                    return node, "name"
                if any(exact_key(a) == exact_key(given) for a in node.props.get("aliases", [])):
                    return node, "alias"
                return node, "normalised"
            if len(found) > 1:
                nodes = store.get_nodes(list(found))
                listed = "; ".join(f"{n.id} ({n.name}: {n.props.get('definition', '')[:80]})" for n in nodes[:10])
                plural = {"entity": "entities", "topic": "topics"}.get(kind or "", "entities or topics")
                raise InvalidInput(f"{given!r} names {len(nodes)} {plural}: {listed}; pass the id instead")
        nearest = self.nearest(store, given, kinds)
        hint = "; ".join(f"{n.id} ({n.name})" for n in nearest) or "none: the graph has no such nodes yet"
        what = kind or "entity or topic"
        raise NotFound(
            f"no {what} named {given!r} (by id, name or alias). Nearest: {hint}. Use find with a name and a "
            "definition to look nodes up, then pass a canonical name or id"
        )

    def nearest(self, store: SQLiteStore, text: str, kinds: list[str], n: int = 5) -> list[Node]:
        vector = self.runtime.embedder.embed([text])[0]
        hits = store.vector_search_many(vector[None, :].repeat(len(kinds), 0), kinds=kinds, limit=n)
        best = sorted((h for row in hits for h in row), key=lambda h: -h.score)[:n]
        return store.get_nodes([h.id for h in best])

