"""One skill library in the store: where it lives, how a skill is laid out in rows, and how it is written.

A library named ``lib`` is the store namespace ``skills/{lib}``. Rows:

- one node per skill, kind ``skill``: id = ``skill_id`` (uuid4), name = title,
  text = problem, conditions and keywords (BM25: :func:`routing.keyword_document`),
  one vector per passage (:func:`routing.skill_passages`: title, problem, each
  condition), ``text_hash`` = hash of the passages and :data:`routing.ROUTING_VERSION`
  (unchanged passages are never embedded again), props = the other fields of the
  current version (``resolution_md`` without its header lines), ``centroid_norm``
  and ``calibration`` (what the calibrated judge needs: :func:`judge.calibration`), its
  ``negative_examples`` (questions it failed on), the counters it started with (``initial``) and
  its current ones (``counters``, once used), the changes that made this version,
  and the import hash of imported skills; lookup key ``source:{source}`` when it
  has a source (imports are keyed by it);
- one node per skill, kind ``skill_prototype``, id ``{skill_id}#prototype``: its
  one vector is the normalised mean of the skill's passage vectors, so the
  near-duplicate check of ``create_skill`` is one exact vector search;
- when it has negative examples (questions it failed on: ``record_outcome``), one
  node ``{skill_id}#negatives``, kind ``skill_negatives``, one vector per example
  (their texts in its props and in the skill's ``negative_examples``): read only for
  the candidates of a search that have some, never searched;
- every earlier version, an edge ``{skill_id}@{version}`` of type ``skill_version``
  from the skill to itself, whose props hold the whole skill as it was (and its
  counters when it was replaced). Edges, not nodes: old versions are never
  searched, and as nodes they would enter the BM25 statistics of any search
  across kinds and every node listing of the library.

**Counters live with their skill.** ``search_skills`` bumps ``times_used`` of the
skill it returns and ``record_outcome`` moves its confidence: each rewrites the
skill's ``counters`` prop in one transaction of the library (the embedded store's
caches read again only nodes whose vectors or text changed, so a counter reloads
nothing). A write of the skill itself (update, import, archive) carries over the
counters it finds inside its own transaction, so a use recorded while it embedded
is never lost. Libraries written before kept their counters in a second namespace,
``skills/{lib}/usage``: the first time such a library is opened, under its write
lock, those counters are folded into the skills in one transaction that also marks
the library (meta ``counters``), and the old namespace is then dropped.

**Archived skills.** An archived skill's node and prototype carry ``archived``
(true), the node also ``archived_at`` (when) and its archive and unarchive ``events``. Every routing
decision filters on :data:`IN_USE` before ranking (search candidates, the
near-duplicate check of ``create_skill``; a library whose meta ``archived_skills``
says none is archived is searched without the filter, the same answer faster: the
store's filtered keyword search reads every allowed row), so an archived skill is never returned
and never hides another; it is still read by id, listed on request, and kept
whole until it is unarchived (updates and imports leave it as it is).

**Meta.** ``embedder`` (name, dimension: another embedder is refused, with the
repair), ``skills`` = ``{"routing": ROUTING_VERSION, "judge": JUDGE_VERSION}``,
``counters`` = ``"skill"`` (the counters live in the skills; see above),
``archived_skills`` (how many are archived) and ``self_calibration`` (the library's own shift of the judge's
bias, :mod:`selfcheck`: made by an import or a reindex after its write, marked stale by every other write
of skills but a few routing examples learned from use (:func:`selfcheck.keeps`); the search uses it only
while fresh). All five are read in one statement per call (:class:`~graphlore.toolsets.handle.Namespace`).
A library written under another routing version is re-embedded (and its own calibration made again) when it
is next opened (its texts are all in the store), so stale vectors never rank a search.

Writers of the library (create, update, import, reindex) hold the named lock
``write`` of the namespace across processes from their last read to their
commit, so what they embedded before the transaction is still current in it.
A writer waits :attr:`Settings.lock_timeout` (30 s) at most for it, then fails
with ``store_busy`` having written nothing.
LLM questions are asked before the lock is taken.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from graphlore.errors import NotFound, StoreBusy, StoreUnavailable
from graphlore.runtime import Runtime
from graphlore.store import Edge, Node, Store
from graphlore.store.factory import EMBEDDER_META
from graphlore.toolsets.handle import Namespace
from graphlore.toolsets.skills import judge, routing, selfcheck
from graphlore.toolsets.skills.cache import PassageCache
from graphlore.toolsets.skills.models import Skill, SkillChanges, database_failed, skill_not_found
from graphlore.toolsets.skills.outcomes import Counters
from graphlore.toolsets.skills.playbook import Header, parse, render
from graphlore.toolsets.skills.whitening import Whitening, WhiteningCache

KIND = "skill"
PROTOTYPE = "skill_prototype"
#: The node holding a skill's negative examples as vectors (``{skill_id}#negatives``; texts in its props).
NEGATIVES = "skill_negatives"
NEGATIVE_EXAMPLES = "negative_examples"
VERSION_EDGE = "skill_version"
#: The namespace under a library where counters were kept before they moved into the skills, and its kind.
USAGE = "usage"
META = "skills"
#: Meta ``counters``: "skill" once the counters live in the skills (an older library's were folded in).
COUNTERS_META = "counters"
IN_SKILLS = "skill"
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
#: Meta: how many skills are archived, set by every write (see the docstring).
ARCHIVED_COUNT = "archived_skills"
#: Meta: the library's own calibration (:mod:`selfcheck`), set by imports and reindexes, stale after other writes.
SELF_CALIBRATION = "self_calibration"
SOURCE_KEY = "source:"
#: The fields a skill's content is made of (what a version holds, what imports and updates compare).
CONTENT = ("title", "problem", "conditions", "keywords", "resolution_md", "product_area", "issue_type")
#: Props computed from a skill's vectors, for the judge: the norm of their mean and the calibration.
CALIBRATION = "calibration"
SUMMARY = ("centroid_norm", CALIBRATION)

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
        archived_at=props.get(ARCHIVED_AT), negative_examples=list(props.get(NEGATIVE_EXAMPLES) or []),
    )


NEGATIVES_SUFFIX = "#negatives"


def negatives_id(skill_id: str) -> str:
    return skill_id + NEGATIVES_SUFFIX


def negatives_node(skill_id: str, texts: Sequence[str], vectors: np.ndarray) -> Node:
    """The node of a skill's negative examples: one vector per text, the texts in its props."""
    return Node(negatives_id(skill_id), NEGATIVES, "", "", {"skill_id": skill_id, "texts": list(texts)},
                vectors=np.asarray(vectors, dtype=np.float32), text_hash=passages_hash(texts))


def prototype_props(skill_id: str, props: Mapping[str, Any]) -> dict[str, Any]:
    """A prototype's props: its skill, and whether that skill is archived (so near-duplicate checks skip it)."""
    return {"skill_id": skill_id, ARCHIVED: bool(props.get(ARCHIVED))}


def counters_of(props: Mapping[str, Any]) -> Counters:
    return Counters(float(props["confidence"]), int(props["times_used"]), int(props["times_confirmed"]))


def current_counters(props: Mapping[str, Any]) -> Counters:
    """A skill's counters: those it was last given, else those it was created with."""
    return counters_of(props.get("counters") or props["initial"])


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
    calibration: judge.Calibration = judge.Calibration()

    @classmethod
    def of(cls, passages: Sequence[str], vectors: np.ndarray, head: int) -> Embedded:
        """The rows' summary of ``passages`` embedded as ``vectors`` (``head``: how many describe the skill)."""
        return cls(passages_hash(passages), vectors, judge.centroid_norm(vectors),
                   routing.prototype(vectors).astype(np.float32), judge.calibration(vectors, head))


def calibration_of(props: Mapping[str, Any]) -> judge.Calibration:
    """A stored skill's calibration (how close its own examples come to it)."""
    raw = props.get(CALIBRATION) or {}
    return judge.Calibration(int(raw.get("examples", 0)), raw.get("mean"))


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
    except (StoreUnavailable, StoreBusy) as exc:
        if exc.message.startswith(database_failed("")):  # said once already (the PostgreSQL backend says it too)
            raise
        raise type(exc)(database_failed(exc.message)) from exc


class SkillLibrary:
    """A named library, opened through a shared :class:`Runtime` (one open store per namespace and process)."""

    def __init__(self, runtime: Runtime, name: str, passages: routing.Passages = routing.skill_passages) -> None:
        self.runtime = runtime
        self.name = name
        #: what is embedded of a skill (benches pass other layouts)
        self.passages = passages
        self.namespace = f"skills/{name}"
        self.usage_namespace = f"skills/{name}/usage"
        self.handle = Namespace(runtime, self.namespace, what=f"skill library {name!r}",
                                meta_keys=(META, COUNTERS_META, ARCHIVED_COUNT, SELF_CALIBRATION),
                                rebuild=("import or create its skills again", ""))

    def exists(self) -> bool:
        return self.handle.exists()

    def store(self, create: bool = False, check: bool = True, locked: bool = False) -> Store | None:
        """The library's store (None when it does not exist and ``create`` is False), current: vectors of
        another routing version are rebuilt first and counters kept apart by an older version folded in
        (under the write lock; ``locked``: the caller holds it). ``check=False`` skips the checks (for
        ``reindex``)."""
        store = self.handle.open(create=create)
        if store is None or not check:
            return store
        self.handle.check_embedder(store, repair=f"use that embedder, or re-embed the library: graphlore skills "
                                                 f"reindex --library {self.name}")
        if self._stale(store) or self.handle.meta(store).get(COUNTERS_META) != IN_SKILLS:
            if locked:
                self._bring_up_to_date(store)
            else:
                with self.lock():
                    self.handle.reread()
                    self._bring_up_to_date(store)
        return store

    def _bring_up_to_date(self, store: Store) -> None:
        if self._stale(store):
            self.reindex(store)
            with store.atomic():  # a reindex like the command's: the library's own calibration made again
                store.set_meta(SELF_CALIBRATION, self._calibration(store))
            self.handle.reread()
        if self.handle.meta(store).get(COUNTERS_META) != IN_SKILLS:
            self._fold_usage(store)

    def _stale(self, store: Store) -> bool:
        meta = self.handle.meta(store).get(META)
        return meta is not None and meta.get("routing") != routing.ROUTING_VERSION

    def _fold_usage(self, store: Store) -> None:
        """Move the counters an older version kept in ``skills/{lib}/usage`` into the skills (one transaction
        that also marks the library), then drop that namespace (call with the write lock held)."""
        usage = self.runtime.open_store(self.usage_namespace) if self.runtime.store_exists(self.usage_namespace) \
            else None
        rows = {n.id: n.props for n in usage.iter_nodes(USAGE)} if usage is not None else {}
        with store.atomic():
            skills = [n for n in store.get_nodes(list(rows)) if n.kind == KIND]
            store.upsert_nodes([_with_counters(n, counters_of(rows[n.id])) for n in skills])
            store.set_meta(COUNTERS_META, IN_SKILLS)
        self.handle.reread()
        if usage is not None:
            self.runtime.drop_store(self.usage_namespace)

    def require(self, skill_id: str) -> tuple[Store, Stored]:
        """The store and the current version of ``skill_id``, or the specification's not-found error."""
        store = self.store()
        found = self.read(store, [skill_id]) if store is not None else {}
        if skill_id not in found:
            raise NotFound(skill_not_found(skill_id))
        return store, found[skill_id]

    # -- reading -------------------------------------------------------------------------------------

    def read(self, store: Store, ids: Sequence[str], with_vectors: bool = False) -> dict[str, Stored]:
        """The skills among ``ids`` with their counters (and their passage vectors, through the cache)."""
        nodes = [n for n in store.get_nodes(list(ids)) if n.kind == KIND]
        if with_vectors:
            self.runtime.state(PassageCache).fill(store, nodes)
        return {n.id: Stored(n, current_counters(n.props)) for n in nodes}

    def negative_vectors(self, store: Store, found: Sequence[Stored]) -> dict[str, np.ndarray]:
        """skill_id -> the vectors of its negative examples, for those of ``found`` that have some."""
        ids = [negatives_id(s.skill_id) for s in found if s.node.props.get(NEGATIVE_EXAMPLES)]
        if not ids:
            return {}
        nodes = store.get_nodes(ids)
        self.runtime.state(PassageCache).fill(store, nodes)
        return {n.id.removesuffix(NEGATIVES_SUFFIX): n.vectors for n in nodes if n.vectors is not None}

    def in_use(self, store: Store) -> dict[str, Any] | None:
        """The filter of skills in use, or None when the library says none is archived (the same answer)."""
        return None if self.handle.meta(store).get(ARCHIVED_COUNT) == 0 else IN_USE

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
        passages = [self.passages(s) for s in skills]
        new_hashes = [passages_hash(p) for p in passages]
        todo = [i for i, (old, new) in enumerate(zip(hashes, new_hashes, strict=True)) if old != new]
        vectors = self.runtime.embeddings.embed([t for i in todo for t in passages[i]], progress)
        out = [Embedded(h, None, 0.0, None) for h in new_hashes]
        at = 0
        for i in todo:
            own = vectors[at:at + len(passages[i])]
            at += len(passages[i])
            out[i] = Embedded.of(passages[i], own, routing.head_count(skills[i]))
        return out

    # -- writing -------------------------------------------------------------------------------------

    def lock(self):
        """The library's cross-process write lock, waited for ``settings.lock_timeout`` seconds at most (then
        StoreBusy: nothing was written)."""
        return self.runtime.lock(self.namespace, WRITE_LOCK, self.runtime.settings.lock_timeout)

    @contextmanager
    def writing(self) -> Iterator[Store]:
        """The library's store, created if needed, under its cross-process write lock."""
        with self.lock():
            yield self.store(create=True, locked=True)

    def rows(self, skill_id: str, fields: Mapping[str, Any], props: Mapping[str, Any], embedded: Embedded,
             previous: Stored | None = None) -> Write:
        """The rows of ``skill_id`` at ``fields``; ``previous`` (the version it replaces) becomes an edge.
        Unchanged passages (``embedded.vectors`` None) keep their vectors and ``props["centroid_norm"]``."""
        keyword_name, keyword_text = routing.keyword_document(fields)
        if embedded.vectors is not None:
            summary = {"centroid_norm": embedded.centroid_norm, CALIBRATION: asdict(embedded.calibration)}
        else:
            summary = {"centroid_norm": props["centroid_norm"], CALIBRATION: props.get(CALIBRATION)}
        node = Node(skill_id, KIND, keyword_name, keyword_text,
                    {**{k: fields[k] for k in CONTENT if k != "title"}, **props, **summary},
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

    def commit(self, store: Store, writes: Sequence[Write], learned: bool = False) -> None:
        """Write the rows (call inside ``store.atomic()``), each skill with the counters it has now (a use
        recorded since the skill was read is kept). ``learned``: the write adds one routing example learned from
        use, which leaves the library's own calibration fresh within :func:`selfcheck.keeps`'s bound."""
        now_counters = {n.id: n.props.get("counters") for n in store.get_nodes([w.node.id for w in writes])}
        for w in writes:
            if now_counters.get(w.node.id) is not None:
                w.node.props["counters"] = now_counters[w.node.id]
        store.upsert_nodes([w.node for w in writes] + [w.prototype for w in writes if w.prototype is not None])
        keyed = {w.node.id: w.keys for w in writes if w.keys}
        if keyed:
            store.set_node_keys(keyed)
        edges = [w.version_edge for w in writes if w.version_edge is not None]
        if edges:
            store.upsert_edges(edges)
        meta = store.get_meta_many([EMBEDDER_META, META, COUNTERS_META, ARCHIVED_COUNT, SELF_CALIBRATION])
        versions = {"routing": routing.ROUTING_VERSION, "judge": judge.JUDGE_VERSION}
        wanted = {EMBEDDER_META: meta.get(EMBEDDER_META) or self.handle.embedder_record(), META: versions,
                  COUNTERS_META: IN_SKILLS, ARCHIVED_COUNT: store.count_nodes(KIND, ARCHIVED_ONLY)}
        if meta.get(SELF_CALIBRATION) is not None:  # any write but an import's makes it stale (see calibrate),
            # except a few examples learned from use
            wanted[SELF_CALIBRATION] = (learn(meta[SELF_CALIBRATION], lambda: self.condition_counts(store))
                                        if learned else None) or stale(meta[SELF_CALIBRATION])
        if any(meta.get(k) != v for k, v in wanted.items()):
            store.set_meta_many(wanted)
            self.handle.reread()

    @staticmethod
    def condition_counts(store: Store) -> list[int]:
        """How many conditions each skill in use has (what :func:`selfcheck.applies` decides on)."""
        return [len(n.props.get("conditions") or []) for n in store.iter_nodes(KIND, IN_USE)]

    def pending_calibration(self, store: Store) -> str:
        """Mark the library's own calibration as to be made for the write in progress (call inside its
        transaction, under the write lock): the token :meth:`calibrate` needs, which any later write drops."""
        token = new_id()
        old = store.get_meta(SELF_CALIBRATION)
        store.set_meta(SELF_CALIBRATION, {**(old if isinstance(old, dict) else {}), "fresh": False, "pending": token})
        self.handle.reread()
        return token

    @staticmethod
    def calibration_current(store: Store) -> bool:
        """Whether the library's own calibration (or why it has none) is recorded, fresh and this judge's."""
        record = store.get_meta(SELF_CALIBRATION)
        return isinstance(record, dict) and bool(record.get("fresh")) and this_judges(record)

    def calibrate(self, token: str, progress: Callable[[int, int, str], None] | None = None
                  ) -> dict[str, Any] | None:
        """Compute the library's own calibration (:mod:`selfcheck`) from its stored vectors, outside the write
        lock (seconds on a large library), then record it under the lock, unless the library was written since
        the write that left ``token`` (the next import or reindex makes one then). Returns the record or None."""
        store = self.store()
        record = self._calibration(store, progress)
        with self.lock():
            current = store.get_meta(SELF_CALIBRATION)
            if not isinstance(current, dict) or current.get("pending") != token:
                return None
            with store.atomic():
                store.set_meta(SELF_CALIBRATION, record)
        self.handle.reread()
        return record

    def _calibration(self, store: Store, progress: Callable[[int, int, str], None] | None = None) -> dict[str, Any]:
        """The record of the library's own calibration, computed from its stored vectors now (with the whitening
        its search then re-ranks by, kept in this process's cache under the record's ``made`` id)."""
        blocks, heads, ids = self.blocks(store, with_ids=True)
        shift, how = selfcheck.library_shift(blocks, heads, progress)
        record = {"shift": shift, "fresh": True, "judge": judge.JUDGE_VERSION, "made": new_id(),
                  "min_conditions": selfcheck.MIN_CONDITIONS, "skills": len(blocks),
                  "conditions": sum(len(b) - h for b, h in zip(blocks, heads, strict=True)), "learned": 0, "how": how}
        white = Whitening.fit(blocks, heads, ids) if shift is not None else None
        if white is not None:
            self.runtime.state(WhiteningCache).put(self.namespace, whitening_key(record), white)
        return record

    @staticmethod
    def blocks(store: Store, with_ids: bool = False) -> tuple[Any, ...]:
        """Each skill in use's passage vectors and how many of them describe it (title, problem), by source
        (then id): what :mod:`selfcheck` simulates from (and, ``with_ids``, the skills' ids)."""
        nodes = sorted((n for n in store.iter_nodes(KIND, IN_USE, with_vectors=True) if n.vectors is not None),
                       key=lambda n: (n.props.get("source") or "", n.id))
        out = [n.vectors for n in nodes], [routing.head_count({"title": n.name, **n.props}) for n in nodes]
        return (*out, [n.id for n in nodes]) if with_ids else out

    def whitening(self, store: Store) -> Whitening | None:
        """The whitening a search of this library re-ranks its candidates by (:mod:`whitening`): only while its
        own calibration is fresh and this judge's (call after :meth:`self_shift` said so); fitted from the
        stored vectors on the first search of a process that did not make the calibration, and again after each
        example learned from use (which changes the stored vectors but keeps the calibration fresh): every process
        re-ranks by the whitening of the vectors stored now."""
        key = whitening_key(self.handle.meta(store).get(SELF_CALIBRATION))
        if key is None:
            return None
        cache = self.runtime.state(WhiteningCache)
        found = cache.get(self.namespace, key)
        if found is None:
            blocks, heads, ids = self.blocks(store, with_ids=True)
            found = Whitening.fit(blocks, heads, ids)
            if found is not None:  # (None: no skill of 2 conditions, only under a damaged record)
                cache.put(self.namespace, key, found)
        return found

    def self_shift(self, store: Store) -> tuple[float, str | None]:
        """The shift of the network's bias for this library, and what to say when it is the shipped bias's
        (no calibration of its own, a stale one, or one another judge made)."""
        record = self.handle.meta(store).get(SELF_CALIBRATION)
        if not isinstance(record, dict):
            return 0.0, "the library has no calibration of its own (import or reindex it to make one)"
        if "pending" in record:
            return 0.0, ("the library's own calibration is not recorded since the last import or reindex (being "
                         "made, or that was stopped or found the library busy; import or reindex it again)")
        if not record.get("fresh"):
            return 0.0, "the library's own calibration is stale (skills were written since; import or reindex it again)"
        if record.get("judge") != judge.JUDGE_VERSION:
            return 0.0, (f"the library's own calibration was made for judge v{record.get('judge')}, this is "
                         f"v{judge.JUDGE_VERSION} (import or reindex it again)")
        if not this_judges(record):
            return 0.0, (f"the library's own calibration was made when a library needed a median skill of "
                         f"{record.get('min_conditions', EARLIER_MIN_CONDITIONS)} conditions for one, now "
                         f"{selfcheck.MIN_CONDITIONS} (import or reindex it again)")
        shift = record.get("shift")
        if not isinstance(shift, (int, float)) or isinstance(shift, bool) or not math.isfinite(shift):
            return 0.0, f"no calibration of its own: {record.get('how') or 'none recorded'}"
        return float(shift), None

    def calibration_state(self, store: Store) -> dict[str, Any]:
        """What an import or reindex answer says of the library's own calibration: ``shift`` (None: the shipped
        bias decides), ``fresh`` (made for the library as it is now) and ``how`` it was found or why there is
        none (read now, not from the cached meta)."""
        self.handle.reread()
        shift, why = self.self_shift(store)
        record = store.get_meta(SELF_CALIBRATION)
        if why is None:
            return {"shift": shift, "fresh": True, "how": str(record.get("how") or "")}
        fresh = isinstance(record, dict) and bool(record.get("fresh")) and this_judges(record)
        return {"shift": None, "fresh": fresh, "how": why}

    def reindex(self, store: Store, progress: Callable[[int, int], None] | None = None) -> tuple[int, int]:
        """Embed every skill's passages again and record the current embedder and versions (one
        transaction; call with the write lock held). Returns (skills, texts embedded)."""
        nodes = list(store.iter_nodes(KIND))
        fields = [{"title": n.name, **{k: n.props[k] for k in CONTENT if k != "title"}} for n in nodes]
        embedded = self.embed(fields, progress=progress)
        negative = list(store.iter_nodes(NEGATIVES))
        negative_vectors = self.runtime.embeddings.embed([t for n in negative for t in n.props["texts"]])
        with store.atomic():
            writes = []
            for node, f, e in zip(nodes, fields, embedded, strict=True):
                props = {k: v for k, v in node.props.items() if k not in CONTENT and k not in SUMMARY}
                writes.append(replace(self.rows(node.id, f, props, e), keys=[]))
            self.commit(store, writes)
            at = 0
            for node in negative:
                texts = node.props["texts"]
                store.upsert_nodes([negatives_node(node.props["skill_id"], texts, negative_vectors[at:at + len(texts)])])
                at += len(texts)
            self.handle.record_embedder(store)
        return len(nodes), sum(len(e.vectors) for e in embedded) + len(negative_vectors)

    # -- counters ------------------------------------------------------------------------------------

    @staticmethod
    def update_counters(store: Store, skill_id: str, change: Callable[[Counters], Counters]
                        ) -> tuple[Counters, Counters]:
        """Apply ``change`` to a skill's counters in one transaction of the library: (before, after)."""
        with store.atomic():
            [node] = [n for n in store.get_nodes([skill_id]) if n.kind == KIND] or [None]
            if node is None:
                raise NotFound(skill_not_found(skill_id))
            before = current_counters(node.props)
            after = change(before)
            store.upsert_nodes([_with_counters(node, after)])
        return before, after


#: The minimum of conditions (:data:`selfcheck.MIN_CONDITIONS`) of calibration records made before they said it.
EARLIER_MIN_CONDITIONS = 13


def this_judges(record: dict[str, Any]) -> bool:
    """Whether a calibration record was made by this judge under this minimum of conditions (another minimum
    calibrates other libraries: a record made under it is not this judge's answer)."""
    return (record.get("judge") == judge.JUDGE_VERSION
            and record.get("min_conditions", EARLIER_MIN_CONDITIONS) == selfcheck.MIN_CONDITIONS)


def whitening_key(record: Any) -> str | None:
    """What a library's cached whitening is kept under: the calibration's ``made`` id and how many examples were
    learned since (None: a record without one)."""
    if not isinstance(record, dict):
        return None
    made, learned = record.get("made"), record.get("learned", 0)
    if not isinstance(made, str) or not isinstance(learned, int) or isinstance(learned, bool):
        return None
    return f"{made}+{learned}"


def stale(record: Any) -> Any:
    """A calibration record (:data:`SELF_CALIBRATION`) once the library was written since it was made (or since
    the write it was to be made for: the pending token goes)."""
    if not isinstance(record, dict) or not (record.get("fresh") or "pending" in record):
        return record
    return {**{k: v for k, v in record.items() if k != "pending"}, "fresh": False}


def learn(record: Any, conditions_now: Callable[[], Sequence[int]] | None = None) -> dict[str, Any] | None:
    """A fresh calibration record with one more example learned from use, while :func:`selfcheck.keeps` holds
    (None: it does not, or the record is not fresh and this judge's). A record of a library of enough skills
    without a calibration of its own (its skills had too few conditions) holds only while ``conditions_now``
    (each skill in use's conditions, read only then) still gives it none: one more condition may give it one."""
    if not (isinstance(record, dict) and record.get("fresh") and "pending" not in record and this_judges(record)):
        return None
    learned, conditions = record.get("learned"), record.get("conditions")
    if not isinstance(learned, int) or not isinstance(conditions, int) or isinstance(learned, bool):
        return None
    if not selfcheck.keeps(learned + 1, conditions):
        return None
    if (record.get("shift") is None and isinstance(record.get("skills"), int) and record["skills"] >= selfcheck.MIN_SKILLS
            and (conditions_now is None or selfcheck.applies(conditions_now()) is None)):
        return None
    return {**record, "learned": learned + 1}


def count_archived(store: Store) -> None:
    """Record how many skills are archived (call inside the transaction that changed them); the library's own
    calibration is stale then."""
    archived = store.count_nodes(KIND, ARCHIVED_ONLY)
    if store.get_meta(ARCHIVED_COUNT) != archived:
        store.set_meta(ARCHIVED_COUNT, archived)
    record = store.get_meta(SELF_CALIBRATION)
    if stale(record) != record:
        store.set_meta(SELF_CALIBRATION, stale(record))


def _with_counters(node: Node, counters: Counters) -> Node:
    """``node`` with ``counters`` as its current ones (its vectors left as stored)."""
    return replace(node, props={**node.props, "counters": counters_props(counters)}, vectors=None)


def store_label(namespace: str, meta: Callable[[str], Any]) -> str:
    """A library's namespace for people (``graphlore stores``): ``library NAME``, or the use counters an
    older version kept apart (folded into the library the next time it is opened)."""
    name = namespace.split("/")[1] if "/" in namespace else namespace
    return (f"library {name}: use counters of an older version (moved into the library when it is next opened)"
            if namespace.endswith("/usage") else f"library {name}")


def changes_of(props: Mapping[str, Any]) -> SkillChanges | None:
    raw = props.get("changes")
    return SkillChanges.model_validate(raw) if raw is not None else None
