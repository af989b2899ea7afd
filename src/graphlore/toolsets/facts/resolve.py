"""Entity resolution on every write: does a mention name a node the graph already has?

Candidates for a mention come from lookup keys (its normalised names, word
prefixes, acronyms and strong codes, see :mod:`names`) and from vector search over
the vectors of ``"{name}: {definition}"`` of its kind; mentions
earlier in the same write are candidates by key and by their nearest texts (one
blocked matrix product per write, so a write's cost grows linearly with its
mentions). Each candidate is judged by how the names relate
(:func:`names.name_evidence`, which reads the names' identifiers with
:mod:`codes`) and by cosines:

==================  ========================================  ===========================
names               merge when                                possible duplicate when
==================  ========================================  ===========================
same, acronym       definition cosine >= 0.40 and definition  definition cosine >= 0.25
                    + text cosine >= 1.10                     or the sum >= 0.95
same, 5+ words      definition cosine >= 0.30                 as above
code (a shared      definition cosine >= 0.50                 always (below 0.50)
rare strong code)
prefix, contained   definition cosine >= 0.50 and the sum     definition cosine >= 0.30
                    >= 1.20, and every word the longer name   (also when the longer name
                    adds is in the other side's definition    adds unexplained words)
                    or names
similar             text cosine >= 0.85 and definition        text cosine >= 0.70
                    cosine >= 0.40
conflict (codes,    never                                     text cosine >= 0.70
editions or
platforms differ)
none                never                                     text cosine >= 0.80
==================  ========================================  ===========================

and, over every row: two definitions that both state numbers and share fewer
than half of the smaller set of them (years, street and phone numbers: see
:func:`codes.numbers_disagree`), or that both name at least five people or places
and share at most half of them (:func:`codes.names_disagree`), are never merged,
nor are entities whose types differ, nor names a split kept apart, nor two variants
of one thing (:func:`codes.variant_difference`), nor an entry and a node another
entry of the same document created (a document lists each thing once:
:func:`listed_apart`), nor two names of which one states a platform and the other
none when one source says both (:func:`codes.one_sided_platform`; between two
sources that is no difference, shops leave the platform out) (all at most linked).

"Definition cosine" compares the two definitions alone; "text cosine" the two
``"{name}: {definition}"`` vectors. Equal names inflate the text cosine, so the
definitions must agree on their own as well; without name evidence nothing merges.
Codes, editions, platforms and the numbers a definition states decide before
cosines can merge: embeddings put names that differ by one model number, and
records that share a template, very close together. A strong code (letters and at
least two digits, "kxtca86", or five digits and more) that one node only holds is
evidence on its own, checked against the definitions; a longer name must not add
words its other side does not explain ("Stars Cafe" vs "Stars"), which links
rather than merges "Samsung" / "Samsung Electronics". True matches below the merge
line become possible duplicates, the safe side: a wrong merge loses information, a
link does not. The lines are :class:`Thresholds` (passed in; benches pass
variants); how each was calibrated, on labelled pairs and three public
entity-resolution sets, is in bench/README.md (``bench/facts_resolution.py``).

A merge keeps every surface form as an alias and the node's lookup keys grow
with them; the canonical name is the longest surface form and the definition the
longest definition seen (ties: alphabetical), so the result does not depend on
the order documents arrive in. Possible duplicates are created apart and linked
by a ``possible_duplicate`` edge (at most 3 per new node). When a judge (an LLM)
is given, it decides the possible duplicates instead.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from graphlore.embeddings import Embeddings
from graphlore.store import Edge, Node, Store
from graphlore.toolsets.facts import mentions
from graphlore.toolsets.facts.codes import (
    VARIANT_CLASSES,
    VARIANT_SUFFIX_LENGTH,
    names_disagree,
    numbers_disagree,
    one_sided_platform,
    variant_difference,
)
from graphlore.toolsets.facts.graph import DUPLICATE, PREFIX, node_text
from graphlore.toolsets.facts.lookup import keyword_text
from graphlore.toolsets.facts.names import (
    mention_key,
    name_evidence,
    name_keys,
    normalize,
    probe_keys,
    slug,
    unexplained_words,
)

#: Bump when a default threshold below changes, so stored links can say which rules made them (3: variants;
#: 4: one document, one source).
RESOLUTION_VERSION = 4
#: Levels whose longer name must not add words the other side does not explain (see names.unexplained_words).
ADDED_WORDS_LEVELS = ("prefix", "contained")
#: Mentions earlier in a write are compared by a matrix product over blocks of this many mentions.
NEIGHBOUR_BLOCK = 512


@dataclass(frozen=True)
class Thresholds:
    """The lines :func:`decide` draws (the table in the module docstring) and how many candidates it sees.
    The defaults are what graphlore resolves with (:data:`THRESHOLDS`); benches pass variants."""

    merge_definition: float = 0.40
    merge_sum: float = 1.10
    duplicate_definition: float = 0.25
    duplicate_sum: float = 0.95
    prefix_merge_definition: float = 0.50
    prefix_merge_sum: float = 1.20
    prefix_duplicate_definition: float = 0.30
    similar_merge_text: float = 0.85
    similar_duplicate_text: float = 0.70
    unrelated_duplicate_text: float = 0.80
    #: equal names of at least this many words identify on their own: their definitions need only not be about
    #: different things (``long_name_definition``; no sum)
    long_name_words: int = 5
    long_name_definition: float = 0.30
    #: a shared strong code: the definitions must not be about different things
    code_merge_definition: float = 0.50
    #: names that differ only by codes, editions or platforms are linked above this text cosine
    conflict_duplicate_text: float = 0.70
    #: variant word classes (of codes.VARIANT_CLASSES) whose difference blocks a merge, and the longest model-code
    #: suffix read as a variant (0: none); see codes.variant_difference
    variant_classes: tuple[str, ...] = tuple(VARIANT_CLASSES)
    variant_suffix_length: int = VARIANT_SUFFIX_LENGTH
    #: a platform one name states against a text of the other side that states only other platforms blocks a merge
    variant_platforms: bool = True
    #: two entries of one document never merge (the document lists one entry per thing, with its aliases)
    same_document: bool = True
    #: a platform one side's names state and the other's leave out blocks a merge when both come from one source
    source_platforms: bool = True
    #: vector-search candidates per mention (stored, and earlier in the same write)
    vector_candidates: int = 10
    #: possible-duplicate links kept per new node
    max_duplicate_links: int = 3
    #: mentions earlier in the same write are candidates above this text cosine (or by key)
    pending_text_floor: float = 0.60


THRESHOLDS = Thresholds()


class TextVectors:
    """The vectors of one write by text, from ``runtime.embeddings`` (batched and cached there); kept here
    for the write's length, whatever the process's cache drops meanwhile."""

    def __init__(self, embeddings: Embeddings) -> None:
        self.embeddings = embeddings
        self._by_text: dict[str, np.ndarray] = {}
        #: distinct texts this write needed vectors for
        self.embedded = 0

    def need(self, texts: Sequence[str]) -> None:
        missing = [t for t in dict.fromkeys(texts) if t not in self._by_text]
        if missing:
            matrix = self.embeddings.embed(missing)
            self._by_text.update(zip(missing, matrix, strict=True))
            self.embedded += len(missing)

    def __getitem__(self, text: str) -> np.ndarray:
        if text not in self._by_text:
            self.need([text])
        return self._by_text[text]

    def get(self, text: str) -> np.ndarray | None:
        return self._by_text.get(text)


@dataclass
class Mention:
    kind: str
    name: str
    type: str | None
    definition: str
    aliases: list[str]
    #: the document that says it (its node id) and that document's date: where its record points
    document: str = ""
    date: str | None = None
    #: that document's source ("": none stated)
    source: str = ""

    @property
    def text(self) -> str:
        return node_text(self.name, self.definition)

    @property
    def key(self) -> str:
        return mention_key(self.kind, self.name, self.definition, self.type)

    @property
    def names(self) -> list[str]:
        return [self.name, *self.aliases]


@dataclass
class NodeState:
    """An entity or topic as this write leaves it."""

    id: str
    kind: str
    name: str
    type: str | None
    definition: str
    aliases: list[str]
    stored_hash: str = ""  # text_hash in the store ("" for a node created by this write)
    stored_vector: np.ndarray | None = None
    stored_props: dict = field(default_factory=dict)
    new_keys: set[str] = field(default_factory=set)
    #: the number of the node's latest mention record (None: written before records, see :mod:`mentions`)
    mention_seq: int | None = 0
    #: nodes a split kept apart from this one: id -> their normalised names (see :func:`kept_apart_from`)
    kept_apart: dict[str, list[str]] = field(default_factory=dict)
    #: records made by this write: (props, document, date)
    records: list[tuple[dict, str, str | None]] = field(default_factory=list)
    #: names that mentions matched by key added to a record stored before this write: key -> names
    record_names: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def from_node(cls, node: Node) -> NodeState:
        vector = node.vectors[0] if node.vectors is not None and len(node.vectors) else None
        return cls(node.id, node.kind, node.name, node.props.get("type"), node.props.get("definition", ""),
                   list(node.props.get("aliases", [])), node.text_hash, vector, dict(node.props),
                   mention_seq=node.props.get("mention_seq"), kept_apart=dict(node.props.get("kept_apart", {})))

    @property
    def names(self) -> list[str]:
        return [self.name, *self.aliases]

    @property
    def text(self) -> str:
        return node_text(self.name, self.definition)

    @property
    def text_hash(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:32]

    def props(self) -> dict:
        props: dict = {"definition": self.definition, "aliases": self.aliases}
        if self.kind == "entity":
            props["type"] = self.type
        if self.mention_seq is not None:
            props["mention_seq"] = self.mention_seq
        if self.kept_apart:
            props["kept_apart"] = self.kept_apart
        return props

    def changed(self) -> bool:
        return not self.stored_hash or self.text_hash != self.stored_hash or self.props() != self.stored_props

    def absorb(self, mention: Mention, action: str, reason: str) -> None:
        """Take a mention in: every surface form kept, canonical name and definition chosen by length
        (:func:`mentions.fold` of the records gives the same node). ``created`` and ``merged`` mentions
        (a key the node did not hold) become a record; a ``matched`` one adds its new names, if any, to
        the record of its key."""
        added = [n for n in mention.names if n not in self.names]
        if action != "matched" and self.mention_seq is None:  # written before records: keep what it was
            self.records.append((mentions.record("", self.names, self.type, self.definition, mentions.LEGACY,
                                                 "what the node was before graphlore kept mention records",
                                                 RESOLUTION_VERSION, 0), "", None))
            self.mention_seq = 1
        self.name, self.aliases = mentions.canonical([*self.names, *mention.names])
        self.definition = mentions.longest_definition([self.definition, mention.definition])
        if not self.type and mention.type:
            self.type = mention.type
        for name in mention.names:
            self.new_keys.update(name_keys(name))
        self.new_keys.add(mention.key)
        if action != "matched":
            self.mention_seq = (self.mention_seq or 0) + 1
            self.records.append((mentions.record(mention.key, mention.names, mention.type, mention.definition,
                                                 action, reason, RESOLUTION_VERSION, self.mention_seq),
                                 mention.document, mention.date))
        elif added:
            made = [props for props, _, _ in self.records if props["key"] == mention.key]
            if made:
                made[0]["names"] = list(dict.fromkeys([*made[0]["names"], *added]))
            else:
                self.record_names.setdefault(mention.key, []).extend(added)


@dataclass(frozen=True)
class Decision:
    action: str  # "merge", "duplicate", "separate"
    score: float
    reason: str
    #: identifiers decided it (codes, editions or platforms, or the numbers the definitions state):
    #: a judge may not turn this possible duplicate into a merge
    settled: bool = False


def decide(mention: Mention, node: NodeState, text_cos: float, definition_cos: Callable[[], float],
           rare: Callable[[str], bool] | None = None, lines: Thresholds = THRESHOLDS,
           sources: Callable[[], set[str]] | None = None, listed: Callable[[], bool] | None = None) -> Decision:
    """Merge, link as a possible duplicate, or keep apart (see the module docstring for the table);
    ``rare(code)``: whether one node only holds the code (see :func:`names.name_evidence`); ``sources()``:
    the sources of the documents that said the node (read only when a rule needs them); ``listed()``: whether
    one document lists the mention and the node as two entries (default :func:`listed_apart`)."""
    t = lines
    level, why, pair = name_evidence(mention.names, node.names, rare)
    if level == "code":
        d = definition_cos()
        cosines = f"definition cosine {d:.2f}, text cosine {text_cos:.2f}"
        if d >= t.code_merge_definition:
            decision = Decision("merge", d, f"{why} ({cosines})")
        else:
            decision = Decision("duplicate", d, f"{why} but definitions differ ({cosines})")
    elif level in ("same", "acronym", "prefix", "contained"):
        d = definition_cos()
        total = d + text_cos
        if level in ("prefix", "contained"):
            merge, merge_sum, dup, dup_sum = t.prefix_merge_definition, t.prefix_merge_sum, t.prefix_duplicate_definition, float("inf")
        else:
            merge, merge_sum, dup, dup_sum = t.merge_definition, t.merge_sum, t.duplicate_definition, t.duplicate_sum
        cosines = f"definition cosine {d:.2f}, text cosine {text_cos:.2f}"
        if (level == "same" and d >= t.long_name_definition
                and min(len(normalize(n).split()) for n in pair) >= t.long_name_words):
            merge, merge_sum = t.long_name_definition, 0.0
        added = unexplained_words(pair, (" ".join([mention.definition, *mention.names]),
                                         " ".join([node.definition, *node.names]))) if level in ADDED_WORDS_LEVELS else []
        if added and (d >= dup or total >= dup_sum):
            decision = Decision("duplicate", d, f"{why}, but the longer name adds {', '.join(added)} ({cosines})")
        elif d >= merge and total >= merge_sum and not added:
            decision = Decision("merge", d, f"{why} and matching definitions ({cosines})")
        elif d >= dup or total >= dup_sum:
            decision = Decision("duplicate", d, f"{why} but definitions differ ({cosines})")
        else:
            return Decision("separate", d, f"{why} but different things ({cosines})")
    elif level == "similar":
        if text_cos >= t.similar_merge_text and definition_cos() >= t.merge_definition:
            decision = Decision("merge", text_cos, f"{why} and matching texts (cosine {text_cos:.2f})")
        elif text_cos >= t.similar_duplicate_text:
            decision = Decision("duplicate", text_cos, f"{why}, texts close (cosine {text_cos:.2f})")
        else:
            return Decision("separate", text_cos, why)
    elif level == "conflict":
        if text_cos < t.conflict_duplicate_text:
            return Decision("separate", text_cos, why)
        decision = Decision("duplicate", text_cos, f"{why}, texts close (cosine {text_cos:.2f})", settled=True)
    elif text_cos >= t.unrelated_duplicate_text:
        decision = Decision("duplicate", text_cos, f"different names, close texts (cosine {text_cos:.2f})")
    else:
        return Decision("separate", text_cos, why)
    disagree = (numbers_disagree(mention.definition, node.definition)
                or names_disagree(mention.definition, node.definition)) if decision.action != "separate" else None
    if disagree is not None:
        return Decision("duplicate", decision.score, f"{decision.reason}, but {disagree}", settled=True)
    variant = (variant_difference(mention.names, node.names,
                                  (" ".join([mention.definition, *mention.names]), " ".join([node.definition, *node.names])),
                                  t.variant_classes, t.variant_suffix_length, t.variant_platforms)
               if decision.action == "merge" and level != "acronym" else None)
    if variant is not None:
        why_variant, settled = variant
        return Decision("duplicate", decision.score, f"{decision.reason}, but {why_variant}", settled=settled)
    if decision.action == "merge" and lines.same_document and (
            listed_apart(mention, node) if listed is None else listed()):
        return Decision("duplicate", decision.score, f"{decision.reason}, but one document lists them as two entries")
    marker = (one_sided_platform(mention.names, node.names)
              if decision.action == "merge" and lines.source_platforms and mention.source and sources is not None else None)
    if marker is not None and mention.source in sources():
        return Decision("duplicate", decision.score, f"{decision.reason}, but {marker}, and one source "
                                                     f"({mention.source}) says both", settled=True)
    if (decision.action == "merge" and mention.type and node.type
            and mention.type.casefold() != node.type.casefold()):
        return Decision("duplicate", decision.score, f"{decision.reason}, but types differ ({mention.type} vs {node.type})")
    apart = kept_apart_from(mention, node) if decision.action == "merge" else None
    if apart is not None:
        return Decision("duplicate", decision.score, f"{decision.reason}, but a split kept {mention.name!r} apart "
                                                     f"from this node ({apart} holds it)", settled=True)
    return decision


def listed_apart(mention: Mention, node: NodeState) -> bool:
    """Whether another entry of the document that says ``mention`` created ``node``: a document lists each
    thing once (names unique, other names as aliases), so two of its entries are two things. A node the graph
    held before this write is left to the names and cosines even when an entry of this document merged into it
    already: each merge then rests on what the graph knew before, and a mention the graph has seen is matched by
    its key without a decision, so a rule there would make the graph depend on the order documents arrive in
    (and retracting one would not give the graph that never saw it)."""
    return (bool(mention.document) and not node.stored_hash and bool(node.records)
            and node.records[0][1] == mention.document)


def kept_apart_from(mention: Mention, node: NodeState) -> str | None:
    """The node a split kept ``mention``'s names apart from ``node`` in, if any: a name the split left on
    the other side (and not on both) never merges into this one again."""
    names = {normalize(n) for n in mention.names}
    for other, kept in sorted(node.kept_apart.items()):
        if names & set(kept):
            return other
    return None


@dataclass
class Outcome:
    mention: Mention
    node: NodeState
    action: str  # "created", "merged", "matched"
    reason: str
    links: list[tuple[NodeState, Decision]] = field(default_factory=list)


#: (mention, node) -> True to merge a possible duplicate (an LLM's verdict)
Judge = Callable[[Mention, NodeState], bool]


class Resolver:
    """Resolves the mentions of one write against the store and against each other.

    Every read (keys, vector search) happens before anything is written, so the
    store's vector cache is built at most once per write; decisions then run in
    mention order over in-memory state.
    """

    def __init__(self, store: Store, vectors: TextVectors, judge: Judge | None = None,
                 lines: Thresholds = THRESHOLDS) -> None:
        self.store = store
        self.vectors = vectors
        self.judge = judge
        self.lines = lines
        self.states: dict[str, NodeState] = {}
        self.created: list[NodeState] = []
        self._pending_keys: dict[str, list[NodeState]] = {}
        self._code_holders: dict[str, set[str]] = {}  # "c:" key -> store node ids that hold it
        self._seen: dict[str, NodeState] = {}  # mention key -> the node it resolved to, in this write
        self._earlier: dict[str, list[str]] = {}  # mention key -> keys of its nearest earlier mentions
        self._document_sources: dict[str, str] = {}  # document id -> its source, for this write's documents
        self._stored_sources: dict[str, set[str]] = {}  # node id -> sources of its stored mention records
        self._stored_first: dict[str, str] = {}  # node id -> the document of its first stored mention record

    # -- reads -----------------------------------------------------------------------------

    def _load(self, ids: Sequence[str]) -> None:
        missing = [i for i in dict.fromkeys(ids) if i not in self.states]
        for node in self.store.get_nodes(missing, with_vectors=True):
            self.states[node.id] = NodeState.from_node(node)

    def resolve(self, mentions: list[Mention]) -> list[Outcome]:
        self._document_sources.update((m.document, m.source) for m in mentions if m.document)
        known = {k: ids[0] for k, ids in self.store.nodes_by_keys([m.key for m in mentions]).items()}
        fresh: dict[str, Mention] = {}
        for m in mentions:
            if m.key not in known:
                fresh.setdefault(m.key, m)
        candidates = self._candidates(list(fresh.values()))
        self._earlier = self._earlier_neighbours(list(fresh.values()))
        self._load([*known.values(), *(i for ids in candidates.values() for i in ids)])
        self._prepare_definitions(list(fresh.values()), candidates)
        outcomes: list[Outcome] = []
        seen = self._seen
        for m in mentions:
            if m.key in seen:
                node = seen[m.key]
                node.absorb(m, "matched", "")
                outcomes.append(Outcome(m, node, "matched", "same name and definition as another mention here"))
            elif m.key in known and known[m.key] in self.states:
                node = self.states[known[m.key]]
                node.absorb(m, "matched", "")
                outcomes.append(Outcome(m, node, "matched", "same name and definition as an earlier mention"))
            else:
                outcomes.append(self._decide(m, candidates.get(m.key, [])))
            seen[m.key] = outcomes[-1].node
        return outcomes

    def _candidates(self, mentions: list[Mention]) -> dict[str, list[str]]:
        """Store node ids per mention key: by lookup keys, then by vector search within the kind."""
        out: dict[str, list[str]] = {m.key: [] for m in mentions}
        if not mentions:
            return out
        probes = {m.key: [k for name in m.names for k in probe_keys(name)] for m in mentions}
        hits = self.store.nodes_by_keys([k for keys in probes.values() for k in keys])
        self._code_holders.update({k: set(ids) for k, ids in hits.items() if k.startswith("c:")})
        for m in mentions:
            out[m.key] += [i for k in probes[m.key] for i in hits.get(k, []) if i.startswith(PREFIX[m.kind])]
        self.vectors.need([m.text for m in mentions])
        matrix = np.vstack([self.vectors[m.text] for m in mentions])
        found = self.store.vector_search_many(matrix, kinds=[m.kind for m in mentions],
                                              limit=self.lines.vector_candidates)
        for m, row in zip(mentions, found, strict=True):
            out[m.key] = list(dict.fromkeys([*out[m.key], *(h.id for h in row)]))
        return out

    def _prepare_definitions(self, mentions: list[Mention], candidates: dict[str, list[str]]) -> None:
        """Embed, in one batch, every definition a name-evidence comparison will need."""
        texts = [m.definition for m in mentions]
        for m in mentions:
            for node_id in candidates.get(m.key, []):
                node = self.states.get(node_id)
                if node is not None and name_evidence(m.names, node.names)[0] not in ("none", "conflict"):
                    texts.append(node.definition)
        self.vectors.need(texts)

    # -- decisions -----------------------------------------------------------------------------

    def _text_cos(self, m: Mention, node: NodeState) -> float:
        current = self.vectors.get(node.text)
        vector = current if current is not None else node.stored_vector
        if vector is None:
            vector = self.vectors[node.text]
        return float(self.vectors[m.text] @ vector)

    def _earlier_neighbours(self, mentions: list[Mention]) -> dict[str, list[str]]:
        """Per mention, the ``vector_candidates`` earlier mentions of its kind in this write whose texts are
        closest (cosine >= ``pending_text_floor``): one blocked matrix product for the whole write, so each
        mention's cost does not grow with its position in the write."""
        out: dict[str, list[str]] = {}
        if len(mentions) < 2:
            return out
        matrix = np.vstack([self.vectors[m.text] for m in mentions])
        entity = np.array([m.kind == "entity" for m in mentions])
        for start in range(1, len(mentions), NEIGHBOUR_BLOCK):
            stop = min(len(mentions), start + NEIGHBOUR_BLOCK)
            scores = matrix[start:stop] @ matrix[:stop].T
            rows = np.arange(start, stop)[:, None]
            scores[(np.arange(stop)[None, :] >= rows) | (entity[start:stop, None] != entity[None, :stop])] = -np.inf
            k = min(self.lines.vector_candidates, stop)
            top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
            for r, columns in enumerate(top):
                near = [j for j in columns if scores[r, j] >= self.lines.pending_text_floor]
                out[mentions[start + r].key] = [mentions[j].key for j in near]
        return out

    def _pending_candidates(self, m: Mention) -> list[NodeState]:
        """Nodes of this write that may name what ``m`` names: by lookup key, and the nodes its nearest
        earlier mentions resolved to."""
        found = {id(n): n for k in (k for name in m.names for k in probe_keys(name))
                 for n in self._pending_keys.get(k, []) if n.kind == m.kind}
        for key in self._earlier.get(m.key, []):
            node = self._seen.get(key)
            if node is not None:
                found.setdefault(id(node), node)
        return list(found.values())

    def _listed(self, m: Mention, node: NodeState) -> bool:
        """:func:`listed_apart`, and for a node stored before this write, whether its first mention record is of
        the document ``m`` comes from (an earlier version of it, written again): the rule retraction regroups a
        node's records by, so re-ingesting a changed document and retracting another gives the graph that never
        saw the other (read once per node, only when a merge would rest on it)."""
        if listed_apart(m, node):
            return True
        if not (m.document and node.stored_hash):
            return False
        if node.id not in self._stored_first:
            records = sorted((r for r in self.store.edges_of([node.id], types=[mentions.MENTION]).edges
                              if r.src == node.id and r.props.get("action") != mentions.LEGACY),
                             key=lambda r: r.props.get("n", 0))
            self._stored_first[node.id] = records[0].dst if records else ""
        return self._stored_first[node.id] == m.document

    def _sources_of(self, node: NodeState) -> set[str]:
        """The sources of the documents that said ``node``: its records made by this write, and (read once
        per node, only when a rule asks) those stored before."""
        if node.stored_hash and node.id not in self._stored_sources:
            records = self.store.edges_of([node.id], types=[mentions.MENTION]).edges
            documents = self.store.get_nodes(sorted({r.dst for r in records}))
            self._stored_sources[node.id] = {d.props.get("source", "") for d in documents}
        found = {self._document_sources.get(document, "") for _, document, _ in node.records}
        return (found | self._stored_sources.get(node.id, set())) - {""}

    def _holders(self, code: str, kind: str) -> int:
        """How many nodes of ``kind`` (stored or created by this write) have a name with ``code``."""
        key = "c:" + code
        ids = {i for i in self._code_holders.get(key, ()) if i.startswith(PREFIX[kind])}
        ids.update(n.id for n in self._pending_keys.get(key, []) if n.kind == kind)
        return len(ids)

    def _decide(self, m: Mention, store_ids: list[str]) -> Outcome:
        nodes = [self.states[i] for i in store_ids if i in self.states] + self._pending_candidates(m)
        judged: list[tuple[NodeState, Decision]] = []
        for node in {id(n): n for n in nodes}.values():
            decision = decide(m, node, self._text_cos(m, node),
                              lambda node=node: float(self.vectors[m.definition] @ self.vectors[node.definition]),
                              lambda code: self._holders(code, m.kind) <= 1, self.lines,
                              lambda node=node: self._sources_of(node), listed=lambda node=node: self._listed(m, node))
            if decision.action == "duplicate" and not decision.settled and self.judge is not None and self.judge(m, node):
                decision = Decision("merge", decision.score, f"{decision.reason}; the LLM judged them the same")
            if decision.action != "separate":
                judged.append((node, decision))
        merges = sorted((j for j in judged if j[1].action == "merge"), key=lambda j: (-j[1].score, j[0].id))
        if merges:
            node, decision = merges[0]
            node.absorb(m, "merged", decision.reason)
            if any(node is c for c in self.created):
                self._register(node)
            return Outcome(m, node, "merged", decision.reason)
        links = sorted(judged, key=lambda j: (-j[1].score, j[0].id))[:self.lines.max_duplicate_links]
        reason = f"new {m.kind}" + (f"; possible duplicate of {links[0][0].name} ({links[0][1].reason})" if links else "")
        node = self._create(m, reason)
        return Outcome(m, node, "created", reason, links)

    def _create(self, m: Mention, reason: str) -> NodeState:
        node = NodeState(self._allocate_id(m), m.kind, m.name, m.type, m.definition, [])
        node.absorb(m, "created", reason)
        self.states[node.id] = node
        self.created.append(node)
        self._register(node)
        return node

    def _register(self, node: NodeState) -> None:
        for name in node.names:
            for key in name_keys(name):
                listed = self._pending_keys.setdefault(key, [])
                if not any(n is node for n in listed):
                    listed.append(node)

    def _allocate_id(self, m: Mention) -> str:
        base = PREFIX[m.kind] + slug(m.name)
        candidate, n = base, 1
        while candidate in self.states or self.store.get_nodes([candidate]):
            n += 1
            candidate = f"{base}-{n}"
        return candidate

    # -- what to write ---------------------------------------------------------------------------

    def nodes_to_write(self) -> list[Node]:
        """Changed entities and topics; a node is embedded again only when its text changed."""
        changed = [s for s in self.states.values() if s.changed()]
        self.vectors.need([s.text for s in changed if s.text_hash != s.stored_hash])
        return [
            Node(s.id, s.kind, s.name, keyword_text(s.name, s.definition, s.aliases), s.props(),
                 self.vectors[s.text][None, :] if s.text_hash != s.stored_hash else None, s.text_hash)
            for s in changed
        ]

    def keys_to_add(self) -> dict[str, list[str]]:
        return {s.id: sorted(s.new_keys) for s in self.states.values() if s.new_keys}

    def mention_edges(self) -> list[Edge]:
        """The mention records this write made, and the stored ones whose key a mention matched with new
        names (read here, inside the write's transaction)."""
        out = [mentions.edge(s.id, props, document, date)
               for s in self.states.values() for props, document, date in s.records]
        extra = {mentions.edge_id(k): (s, names) for s in self.states.values() for k, names in s.record_names.items()}
        if extra:
            stored = {e.id: e for e in self.store.get_edges(list(extra))}
            for edge_id, (state, names) in extra.items():
                edge = stored.get(edge_id)
                if edge is None:  # a key of the node's merges before records: the legacy record holds it
                    edge = next((e for e in out if e.src == state.id and e.props["action"] == mentions.LEGACY), None)
                    edge = edge or next(iter(self.store.get_edges([mentions.legacy_edge_id(state.id)])), None)
                    if edge is None:
                        continue
                edge.props["names"] = list(dict.fromkeys([*edge.props["names"], *names]))
                if not any(e is edge for e in out):
                    out.append(edge)
        return out


def duplicate_edge(one: str, other: str, decision: Decision) -> Edge:
    """The possible-duplicate link of two nodes (one per pair, its id from the sorted ids); ``settled`` when
    identifiers decided it (a judge is never asked about it, see :mod:`links`)."""
    a, b = sorted((one, other))
    return Edge(f"dup:{a}|{b}", a, b, DUPLICATE,
                {"score": round(max(0.0, min(1.0, decision.score)), 4), "reason": decision.reason,
                 "rules": RESOLUTION_VERSION, **({"settled": True} if decision.settled else {})})


def duplicate_edges(outcomes: list[Outcome]) -> list[Edge]:
    return [duplicate_edge(o.node.id, other.id, decision) for o in outcomes for other, decision in o.links]
