"""One skill library in the store: where it lives, how a skill is laid out in rows, and how it is written.

A library named ``lib`` is the store namespace ``skills/{lib}``; its usage
counters live in a second namespace, ``skills/{lib}/usage`` (see below). Rows:

- one node per skill, kind ``skill``: id = ``skill_id`` (uuid4), name = title,
  text = problem, conditions and keywords (BM25: :func:`routing.keyword_document`),
  one vector per passage (:func:`routing.skill_passages`: title, problem, each
  condition), ``text_hash`` = hash of the passages and :data:`routing.ROUTING_VERSION`
  (unchanged passages are never embedded again), props = the other fields of the
  current version (``resolution_md`` without its header lines), ``centroid_norm``
  (what the calibrated judge needs), the counters it started with, the changes
  that made this version, and the import hash of imported skills; lookup key
  ``source:{source}`` when it has a source (imports are keyed by it);
- one node per skill, kind ``skill_prototype``, id ``{skill_id}#prototype``: its
  one vector is the normalised mean of the skill's passage vectors, so the
  near-duplicate check of ``create_skill`` is one exact vector search;
- every earlier version, an edge ``{skill_id}@{version}`` of type ``skill_version``
  from the skill to itself, whose props hold the whole skill as it was (and its
  counters when it was replaced). Edges, not nodes: old versions are never
  searched, and as nodes they would enter the BM25 statistics of any search
  across kinds and every node listing of the library.

**Why the counters live apart.** ``search_skills`` bumps ``times_used`` of the
skill it returns. The embedded store keeps its vectors and BM25 postings in
memory for one data version, and any commit to the namespace starts a new one:
a counter in the skill namespace would make every search that finds a skill
reload the whole library (hundreds of ms at 10k skills). So counters are nodes of
kind ``usage`` (id = ``skill_id``) in ``skills/{lib}/usage``; a skill without one
has the counters it was created with. Each write is still one transaction in one
store: a skill is written to the library, a use or an outcome to the usage store.

**Archived skills.** An archived skill's node and prototype carry ``archived``
(true), the node also ``archived_at`` (when) and its archive and unarchive ``events``. Every routing
decision filters on :data:`IN_USE` before ranking (search candidates, the
near-duplicate check of ``create_skill``), so an archived skill is never returned
and never hides another; it is still read by id, listed on request, and kept
whole until it is unarchived (updates and imports leave it as it is).

**Meta.** ``embedder`` (name, dimension: another embedder is refused, with the
repair) and ``skills`` = ``{"routing": ROUTING_VERSION, "judge": JUDGE_VERSION}``.
A library written under another routing version is re-embedded when it is next
opened (its texts are all in the store), so stale vectors never rank a search.

Writers of the library (create, update, import, reindex) hold the named lock
``write`` of the namespace across processes from their last read to their
commit, so what they embedded before the transaction is still current in it.
LLM questions are asked before the lock is taken.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from graphlore.errors import NotFound, StoreBusy, StoreUnavailable
from graphlore.runtime import Runtime
from graphlore.store import Edge, Node, Store, check_embedder, record_embedder
from graphlore.store.factory import EMBEDDER_META
from graphlore.toolsets.skills import judge, routing
from graphlore.toolsets.skills.cache import PassageCache
from graphlore.toolsets.skills.models import Skill, SkillChanges, database_failed, skill_not_found
from graphlore.toolsets.skills.outcomes import Counters
from graphlore.toolsets.skills.playbook import Header, parse, render

KIND = "skill"
PROTOTYPE = "skill_prototype"
VERSION_EDGE = "skill_version"
USAGE = "usage"
META = "skills"
#: The namespace lock writers of a library hold from their last read to their commit (see the docstring).
WRITE_LOCK = "write"
#: Props of an archived skill: ``archived`` true (its prototype too), ``archived_at`` when; and the skill's
#: archive and unarchive ``events``.
ARCHIVED = "archived"
ARCHIVED_AT = "archived_at"
EVENTS = "events"
#: The filter of skills (and prototypes) in use, and of archived ones: every routing decision reads only
#: skills in use.
IN_USE = {ARCHIVED: [None, False]}
ARCHIVED_ONLY = {ARCHIVED: True}
SOURCE_KEY = "source:"
#: The fields a skill's content is made of (what a version holds, what imports and updates compare).
CONTENT = ("title", "problem", "conditions", "keywords", "resolution_md", "product_area", "issue_type")

Fields = dict[str, Any]


def now() -> str:
    """ISO 8601 UTC, to the second."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_id() -> str:
    return str(uuid.uuid4())


def canonical(fields: Mapping[str, Any]) -> Fields:
    """The content fields with the playbook in its canonical form (rendered, no header lines)."""
    out = {name: fields[name] for name in CONTENT}
    out["conditions"], out["keywords"] = list(out["conditions"]), list(out["keywords"])
    out["resolution_md"] = render(parse(fields["resolution_md"]))
    return out


def passages_hash(passages: Sequence[str]) -> str:
    raw = json.dumps([routing.ROUTING_VERSION, list(passages)], ensure_ascii=False).encode()
    return hashlib.sha256(raw).hexdigest()[:32]


def content_hash(fields: Mapping[str, Any]) -> str:
    raw = json.dumps({k: fields[k] for k in CONTENT}, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(raw).hexdigest()[:32]


@dataclass
class Stored:
    """A skill as read from the library: its node's fields (no vectors) and its counters."""

    node: Node
    counters: Counters

    @property
    def skill_id(self) -> str:
        return self.node.id

    @property
    def version(self) -> int:
        return int(self.node.props["version"])

    @property
    def fields(self) -> Fields:
        return {"title": self.node.name, **{k: self.node.props[k] for k in CONTENT if k != "title"}}

    def skill(self) -> Skill:
        return to_skill(self.node.id, self.fields, self.node.props, self.counters)


def to_skill(skill_id: str, fields: Mapping[str, Any], props: Mapping[str, Any], counters: Counters) -> Skill:
    """The tool's view of a skill: header lines rendered from the counters and fields, never stored."""
    header = Header(counters.confidence, counters.times_used, counters.times_confirmed, fields["product_area"],
                    fields["issue_type"])
    return Skill(
        skill_id=skill_id, title=fields["title"], version=props["version"], problem=fields["problem"],
        resolution_md=render(parse(fields["resolution_md"]), header), conditions=list(fields["conditions"]),
        keywords=list(fields["keywords"]), product_area=fields["product_area"], issue_type=fields["issue_type"],
        confidence=counters.confidence, times_used=counters.times_used, times_confirmed=counters.times_confirmed,
        created_at=props["created_at"], updated_at=props["updated_at"], source=props.get("source"),
        archived_at=props.get(ARCHIVED_AT),
    )


def prototype_props(skill_id: str, props: Mapping[str, Any]) -> dict[str, Any]:
    """A prototype's props: its skill, and whether that skill is archived (so near-duplicate checks skip it)."""
    return {"skill_id": skill_id, ARCHIVED: bool(props.get(ARCHIVED))}


def counters_of(props: Mapping[str, Any]) -> Counters:
    return Counters(float(props["confidence"]), int(props["times_used"]), int(props["times_confirmed"]))


def counters_props(counters: Counters) -> dict[str, Any]:
    return {"confidence": counters.confidence, "times_used": counters.times_used,
            "times_confirmed": counters.times_confirmed}


@dataclass
class Embedded:
    """What a skill's passages became: vectors (None: unchanged, keep what is stored) and their summary."""

    text_hash: str
    vectors: np.ndarray | None
    centroid_norm: float
    prototype: np.ndarray | None


@dataclass
class Write:
    """One skill's rows, computed before the transaction."""

    node: Node
    prototype: Node | None
    version_edge: Edge | None
    keys: list[str]


@contextmanager
def store_errors() -> Iterator[None]:
    """A store that cannot be reached or written is ``Database connection failed: <reason>``."""
    try:
        yield
    except StoreUnavailable as exc:
        raise StoreUnavailable(database_failed(exc.message)) from exc
    except StoreBusy as exc:
        raise StoreBusy(database_failed(exc.message)) from exc


class SkillLibrary:
    """A named library, opened through a shared :class:`Runtime` (one open store per namespace and process)."""

    def __init__(self, runtime: Runtime, name: str, layout: str = routing.DEFAULT_LAYOUT) -> None:
        self.runtime = runtime
        self.name = name
        #: what is embedded of a skill (:data:`routing.LAYOUTS`); only the bench sets another one
        self.layout = layout
        self.namespace = f"skills/{name}"
        self.usage_namespace = f"skills/{name}/usage"

    def exists(self) -> bool:
        return self.runtime.store_exists(self.namespace)

    def _repair(self) -> str:
        return (f"move {self.runtime.settings.home / 'skills' / self.name} away and import or create its skills "
                "again")

    def store(self, create: bool = False, check: bool = True, locked: bool = False) -> Store | None:
        """The library's store (None when it does not exist and ``create`` is False), current: vectors of
        another routing version are rebuilt first (under the write lock; ``locked``: the caller holds it).
        ``check=False`` skips both checks (for ``reindex``)."""
        if not create and not self.exists():
            return None
        store = self.runtime.open_store(self.namespace, create=create, repair=self._repair())
        if not check:
            return store
        check_embedder(store, self.runtime.embedder, what=f"skill library {self.name!r}",
                       repair=f"use that embedder, or re-embed the library: graphlore skills reindex --library "
                              f"{self.name}")
        if self._stale(store):
            if locked:
                self.reindex(store)
            else:
                with self.runtime.lock(self.namespace, WRITE_LOCK):
                    if self._stale(store):
                        self.reindex(store)
        return store

    @staticmethod
    def _stale(store: Store) -> bool:
        meta = store.get_meta(META)
        return meta is not None and meta.get("routing") != routing.ROUTING_VERSION

    def require(self, skill_id: str) -> tuple[Store, Stored]:
        """The store and the current version of ``skill_id``, or the specification's not-found error."""
        store = self.store()
        found = self.read(store, [skill_id]) if store is not None else {}
        if skill_id not in found:
            raise NotFound(skill_not_found(skill_id))
        return store, found[skill_id]

    # -- reading -------------------------------------------------------------------------------------

    def usage_store(self, create: bool = False) -> Store | None:
        if not create and not self.runtime.store_exists(self.usage_namespace):
            return None
        return self.runtime.open_store(self.usage_namespace, create=create,
                                       repair=f"move {self.runtime.settings.home / self.usage_namespace} away "
                                              "(use counters restart from each skill's first ones)")

    def counters(self, nodes: Sequence[Node]) -> dict[str, Counters]:
        """Each skill's counters: its usage row, else the counters it was created with."""
        usage = self.usage_store()
        rows = {n.id: n for n in usage.get_nodes([n.id for n in nodes])} if usage is not None else {}
        return {n.id: counters_of(rows[n.id].props if n.id in rows else n.props["initial"]) for n in nodes}

    def read(self, store: Store, ids: Sequence[str], with_vectors: bool = False) -> dict[str, Stored]:
        """The skills among ``ids`` with their counters (and their passage vectors, through the cache)."""
        nodes = [n for n in store.get_nodes(list(ids)) if n.kind == KIND]
        if with_vectors:
            self.runtime.state(PassageCache).fill(store, nodes)
        counters = self.counters(nodes)
        return {n.id: Stored(n, counters[n.id]) for n in nodes}

    def versions(self, store: Store, skill_id: str) -> list[Edge]:
        """The earlier versions of a skill, oldest first."""
        edges = store.get_edges(store.edge_ids_with_prefix(f"{skill_id}@"))
        return sorted((e for e in edges if e.type == VERSION_EDGE), key=lambda e: e.props["version"])

    def by_source(self, store: Store, sources: Sequence[str]) -> dict[str, str]:
        """source -> skill_id of the skills that have one of ``sources``."""
        found = store.nodes_by_keys([SOURCE_KEY + s for s in sources], kind=KIND)
        return {key[len(SOURCE_KEY):]: ids[0] for key, ids in found.items()}

    # -- embedding -----------------------------------------------------------------------------------

    def embed(self, skills: Sequence[Mapping[str, Any]], stored_hashes: Sequence[str | None] = (),
              progress: Callable[[int, int], None] | None = None) -> list[Embedded]:
        """Embed the passages of each skill whose passages changed (``stored_hashes``: what each holds now)."""
        hashes = list(stored_hashes) + [None] * (len(skills) - len(stored_hashes))
        passages = [routing.skill_passages(s, self.layout) for s in skills]
        new_hashes = [passages_hash(p) for p in passages]
        todo = [i for i, (old, new) in enumerate(zip(hashes, new_hashes, strict=True)) if old != new]
        vectors = self.runtime.embeddings.embed([t for i in todo for t in passages[i]], progress)
        out = [Embedded(h, None, 0.0, None) for h in new_hashes]
        at = 0
        for i in todo:
            own = vectors[at:at + len(passages[i])]
            at += len(passages[i])
            out[i] = Embedded(new_hashes[i], own, judge.centroid_norm(own),
                              routing.prototype(own).astype(np.float32))
        return out

    # -- writing -------------------------------------------------------------------------------------

    @contextmanager
    def writing(self) -> Iterator[Store]:
        """The library's store, created if needed, under its cross-process write lock."""
        with self.runtime.lock(self.namespace, WRITE_LOCK):
            yield self.store(create=True, locked=True)

    def rows(self, skill_id: str, fields: Mapping[str, Any], props: Mapping[str, Any], embedded: Embedded,
             previous: Stored | None = None) -> Write:
        """The rows of ``skill_id`` at ``fields``; ``previous`` (the version it replaces) becomes an edge.
        Unchanged passages (``embedded.vectors`` None) keep their vectors and ``props["centroid_norm"]``."""
        keyword_name, keyword_text = routing.keyword_document(fields)
        norm = embedded.centroid_norm if embedded.vectors is not None else props["centroid_norm"]
        node = Node(skill_id, KIND, keyword_name, keyword_text,
                    {**{k: fields[k] for k in CONTENT if k != "title"}, **props, "centroid_norm": norm},
                    vectors=embedded.vectors, text_hash=embedded.text_hash)
        prototype = None
        if embedded.prototype is not None:
            prototype = Node(f"{skill_id}#prototype", PROTOTYPE, "", "", prototype_props(skill_id, props),
                             vectors=embedded.prototype[None, :])
        edge = None
        if previous is not None:
            old = previous.node.props
            snapshot = {**previous.fields, "version": previous.version, "created_at": old["created_at"],
                        "updated_at": old["updated_at"], "source": old.get("source"), "changes": old.get("changes"),
                        "counters": counters_props(previous.counters)}
            edge = Edge(f"{skill_id}@{previous.version}", skill_id, skill_id, VERSION_EDGE, snapshot)
        source = props.get("source")
        return Write(node, prototype, edge, [SOURCE_KEY + source] if source else [])

    def commit(self, store: Store, writes: Sequence[Write]) -> None:
        """Write the rows (call inside ``store.atomic()``)."""
        store.upsert_nodes([w.node for w in writes] + [w.prototype for w in writes if w.prototype is not None])
        keyed = {w.node.id: w.keys for w in writes if w.keys}
        if keyed:
            store.set_node_keys(keyed)
        edges = [w.version_edge for w in writes if w.version_edge is not None]
        if edges:
            store.upsert_edges(edges)
        if store.get_meta(EMBEDDER_META) is None:
            record_embedder(store, self.runtime.embedder)
        if store.get_meta(META) != {"routing": routing.ROUTING_VERSION, "judge": judge.JUDGE_VERSION}:
            store.set_meta(META, {"routing": routing.ROUTING_VERSION, "judge": judge.JUDGE_VERSION})

    def reindex(self, store: Store, progress: Callable[[int, int], None] | None = None) -> tuple[int, int]:
        """Embed every skill's passages again and record the current embedder and versions (one
        transaction; call with the write lock held). Returns (skills, texts embedded)."""
        nodes = list(store.iter_nodes(KIND))
        fields = [{"title": n.name, **{k: n.props[k] for k in CONTENT if k != "title"}} for n in nodes]
        embedded = self.embed(fields, progress=progress)
        with store.atomic():
            writes = []
            for node, f, e in zip(nodes, fields, embedded, strict=True):
                props = {k: v for k, v in node.props.items() if k not in CONTENT and k != "centroid_norm"}
                writes.append(replace(self.rows(node.id, f, props, e), keys=[]))
            self.commit(store, writes)
            record_embedder(store, self.runtime.embedder)
        return len(nodes), sum(len(e.vectors) for e in embedded)

    # -- counters ------------------------------------------------------------------------------------

    def update_counters(self, skill_id: str, initial: Mapping[str, Any], change: Callable[[Counters], Counters]
                        ) -> tuple[Counters, Counters]:
        """Apply ``change`` to a skill's counters in one transaction of the usage store: (before, after)."""
        usage = self.usage_store(create=True)
        with usage.atomic():
            [row] = usage.get_nodes([skill_id]) or [None]
            before = counters_of(row.props if row is not None else initial)
            after = change(before)
            usage.upsert_nodes([Node(skill_id, USAGE, "", "", counters_props(after))])
        return before, after


def store_label(namespace: str, meta: Callable[[str], Any]) -> str:
    """A library's namespace for people (``graphlore stores``): ``library NAME``, or its use counters."""
    name = namespace.split("/")[1] if "/" in namespace else namespace
    return f"library {name}: use counters" if namespace.endswith("/usage") else f"library {name}"


def changes_of(props: Mapping[str, Any]) -> SkillChanges | None:
    raw = props.get("changes")
    return SkillChanges.model_validate(raw) if raw is not None else None
