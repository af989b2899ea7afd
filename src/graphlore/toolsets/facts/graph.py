"""One facts graph: where its store lives, how its rows look, and how a name finds its node.

A graph named ``g`` is the store namespace ``facts/{g}`` (``--graph`` / ``graph``,
default ``default``); its recent searches are the namespace ``facts/{g}/searches``
(:mod:`sessions`). Rows:

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

from graphlore.contract import quote
from graphlore.errors import InvalidInput, NotFound, ref
from graphlore.runtime import Runtime
from graphlore.store import Node, Store
from graphlore.toolsets.facts import validity
from graphlore.toolsets.facts.models import FACT as FACT  # the rows' edge type, defined beside the models
from graphlore.toolsets.facts.names import exact_key, normalize, spaceless
from graphlore.toolsets.handle import Namespace

DUPLICATE = "possible_duplicate"
PREFIX = {"entity": "E:", "topic": "T:", "document": "D:"}
KINDS = ("entity", "topic")
ARTICLE = {"entity": "an entity", "topic": "a topic"}


def store_label(namespace: str, meta: object) -> str:
    """A graph's namespace for people (``graphlore stores``), or its searches' (:mod:`sessions`)."""
    name = namespace.removeprefix("facts/")
    if name.endswith("/searches"):
        return f"graph {name.removesuffix('/searches')}: its numbered searches (for cat)"
    return f"graph {name}"


def node_text(name: str, definition: str) -> str:
    """What an entity or topic is embedded as."""
    return f"{name}: {definition}"


class FactsGraph:
    """A named graph, opened through a shared :class:`Runtime` (one open store per graph and process)."""

    def __init__(self, runtime: Runtime, name: str) -> None:
        self.runtime = runtime
        self.name = name
        self.namespace = f"facts/{name}"
        #: the graph's folder (its store and its searches' store, on the embedded backend)
        self.location = runtime.settings.home / "facts" / name
        self.handle = Namespace(runtime, self.namespace, what=f"graph {name!r}",
                                rebuild=("add its documents again", self.ingest_command()))

    @property
    def path(self) -> str:
        return self.handle.location

    def exists(self) -> bool:
        return self.handle.exists()

    def ingest_command(self, graph: str | None = None) -> str:
        """The CLI command that adds documents to this graph (or to ``graph``), as printed in hints."""
        return f"graphlore facts ingest FILE.jsonl --graph {graph or self.name}"

    def repair_hint(self) -> str:
        """What a damaged graph needs on the configured backend (it cannot be repaired in place)."""
        return self.handle.repair_hint()

    def store(self, create: bool = False) -> Store:
        store = self.handle.open(create=create)
        if store is None:
            raise NotFound(
                f"graph {self.name!r} has no data yet; add documents first: add_document (MCP) or "
                f"`{self.ingest_command()}` (CLI)"
            )
        self.handle.check_embedder(
            store, repair="configure the embedder that made it (GRAPHLORE_EMBEDDER and its settings), or add "
                          f"the documents to a new graph: `{self.ingest_command('NEW')}`")
        validity.backfill(store)
        return store

    # -- names to nodes ----------------------------------------------------------------------

    def resolve(self, store: Store, given: str, kind: str | None) -> tuple[Node, str]:
        """The one node ``given`` names (node id, then exact name or alias, then normalised name or alias).

        Nothing found: an error listing the nearest nodes and pointing to ``find``; a name of the
        other kind (a topic given as an entity): an error saying which field to use; several: an
        error listing them with their ids.
        """
        kinds = [kind] if kind else list(KINDS)
        found = self._lookup(store, given, kinds, kind)
        if found is not None:
            return found
        if kind is not None:
            other = "topic" if kind == "entity" else "entity"
            try:
                mixed = self._lookup(store, given, [other], other)
            except InvalidInput as exc:  # several nodes of the other kind: still the wrong field
                raise InvalidInput(f"{quote(given)} is not {ARTICLE[kind]}: {exc.raw}; give it under "
                                   f"{ref(other)}") from exc
            if mixed is not None:
                node = mixed[0]
                raise InvalidInput(f"{quote(given)} is {ARTICLE[other]} ({node.id}): use {ref(other)}, not {ref(kind)}")
        nearest = self.nearest(store, given, kinds)
        hint = "; ".join(f"{n.id} ({n.name})" for n in nearest) or "none: the graph has no such nodes yet"
        what = kind or "entity or topic"
        raise NotFound(
            f"no {what} named {quote(given)} (by id, name or alias). Nearest: {hint}. Use find with a name and a "
            "definition to look nodes up, then pass a canonical name or id"
        )

    @staticmethod
    def _lookup(store: Store, given: str, kinds: list[str], kind: str | None) -> tuple[Node, str] | None:
        """The node ``given`` names among ``kinds`` and how it matched; None when none; several: an error."""
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
                raise InvalidInput(f"{quote(given)} names {len(nodes)} {plural}: {listed}; pass the id instead")
        return None

    def nearest(self, store: Store, text: str, kinds: list[str], n: int = 5) -> list[Node]:
        vector = self.runtime.embeddings.embed([text])[0]
        hits = store.vector_search_many(vector[None, :].repeat(len(kinds), 0), kinds=kinds, limit=n)
        best = sorted((h for row in hits for h in row), key=lambda h: -h.score)[:n]
        return store.get_nodes([h.id for h in best])

