"""What ``record_outcome`` learns from the question that found a skill (its ``query``).

- ``confirmed``: the question becomes a **routing example** of the skill: a new
  condition, in a new version (``skill_history`` shows it; ``update_skill`` with the
  conditions without it removes it), and an ``example_added`` event. Its vector is
  the question's own, added to the skill's stored ones (nothing else is embedded).
- ``failed``: the question becomes a **negative example**: kept in the skill's
  ``negative_examples`` (its vector in the node ``{skill_id}#negatives``) and a
  ``negative_example_added`` event. The judge never returns the skill for a
  question closer to one of its negative examples than to its own passages.

**The regression check** (every added example, before anything is written): an
example must not take a question from another skill. First, the question itself:
when ``search_skills`` would answer it with another skill, the confirmation would
overrule that skill's evidence, and is not added (a wrong answer is first marked
with a ``failed`` outcome for that skill and the question: its negative example
then blocks it, and the confirmation fills the gap). Then the skills nearest the
question (:data:`CHECK_SKILLS`, by vector search) are replayed: every passage of each
other skill is routed, as a query, among those skills (leaving the passage out of
its own skill), once as the library is and once with the example added. A passage
its own skill wins now and the confirmed skill would win after is a question the
other skill holds as evidence (its own text) that one confirmation would take from
it: the example is not added, and the answer names the skill and the passage. The
outcome itself still counts.

A question that is already one of the skill's passages is not added again; a
negative example that is one of the skill's own passages (cosine at least
:data:`routing.DUPLICATE_THRESHOLD`) is refused: the playbook failed on a question
it is made for, so the playbook needs fixing, not the routing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from graphlore.store import Store
from graphlore.toolsets.skills import diff, judge, routing
from graphlore.toolsets.skills.candidates import judged
from graphlore.toolsets.skills.library import (
    ARCHIVED,
    CONTENT,
    EVENTS,
    IN_USE,
    KIND,
    NEGATIVE_EXAMPLES,
    Embedded,
    SkillLibrary,
    Stored,
    canonical,
    negatives_node,
    now,
)
from graphlore.toolsets.skills.models import MAX_CONDITIONS, MAX_ITEM, LearnedExample

#: Skills near a confirmed question whose passages the regression check replays.
CHECK_SKILLS = 10
#: Negative examples a skill keeps at most.
MAX_NEGATIVES = 100


def clean(query: str) -> str:
    """The question as it is stored: whitespace collapsed."""
    return " ".join(query.split())


def replay_ranks(queries: np.ndarray, vectors: np.ndarray, own: bool = False) -> np.ndarray:
    """The rank score (:func:`judge.rank_score`) of each query row against a skill of ``vectors``; ``own``:
    the queries are the skill's own passages, each left out of the skill when it is the query."""
    queries = np.asarray(queries, dtype=np.float64)
    vectors = np.asarray(vectors, dtype=np.float64)
    cos = queries @ vectors.T
    count = len(vectors) - (1 if own else 0)
    if count <= 0:
        return np.full(len(queries), -np.inf)
    total = vectors.sum(axis=0)
    if own:
        cos[np.arange(len(queries)), np.arange(len(queries))] = -np.inf
        others = total[None, :] - queries
    else:
        others = np.broadcast_to(total, queries.shape)
    top = cos.max(axis=1)
    match = top + judge.TAU * np.log(np.exp((cos - top[:, None]) / judge.TAU).sum(axis=1) / count)
    finite = np.where(np.isfinite(cos), cos, 0.0)
    prototype = (finite.sum(axis=1) / count) / np.maximum(np.linalg.norm(others, axis=1) / count, 1e-9)
    return judge.rank_score(match, prototype)


@dataclass(frozen=True)
class Taken:
    """A passage of another skill that the example would take: that skill, its title, the passage."""

    skill_id: str
    title: str
    text: str


def taken_by(target: Stored, others: Sequence[Stored], vector: np.ndarray) -> list[Taken]:
    """The passages of ``others`` that their own skill wins now and ``target`` would win with ``vector``
    added (each skill's vectors read; passages in :func:`routing.passage_fields` order)."""
    after = np.vstack([target.node.vectors, vector[None, :]])
    out = []
    for owner in others:
        queries = owner.node.vectors
        own = replay_ranks(queries, queries, own=True)
        rest = [replay_ranks(queries, s.node.vectors) for s in others if s is not owner]
        best_rest = np.max(rest, axis=0) if rest else np.full(len(queries), -np.inf)
        before = replay_ranks(queries, target.node.vectors)
        now_ = replay_ranks(queries, after)
        taken = (own > np.maximum(before, best_rest)) & (now_ > np.maximum(own, best_rest))
        texts = routing.skill_passages(owner.fields)
        out += [Taken(owner.skill_id, owner.fields["title"], texts[i]) for i in np.flatnonzero(taken)]
    return out


def regression(library: SkillLibrary, store: Store, target: Stored, text: str, vector: np.ndarray) -> str | None:
    """Why ``text`` (embedded as ``vector``) must not become an example of ``target``, or None (see the module
    docstring: another skill's answer, then another skill's passages)."""
    found, _, verdict = judged(library, store, text, vector)
    if verdict.skill_id is not None and verdict.skill_id != target.skill_id:
        other = next(s for s in found if s.skill_id == verdict.skill_id)
        return (f"search_skills answers it with the skill {other.fields['title']!r} ({other.skill_id}, score "
                f"{verdict.score:.2f}): a confirmation fills a gap or backs the answer, it does not overrule "
                "another skill's; if that answer is wrong, record_outcome failed for it with this query first")
    near = store.vector_search(vector, kind=KIND, where=IN_USE, limit=CHECK_SKILLS + 1)
    others = [s for i, s in library.read(store, [h.id for h in near], with_vectors=True).items()
              if i != target.skill_id]
    taken = taken_by(target, others, vector)
    if taken:
        first = taken[0]
        more = f" (and {len(taken) - 1} more)" if len(taken) > 1 else ""
        return (f"it would take {first.text!r} from the skill {first.title!r} ({first.skill_id}), which holds it "
                f"as its own{more}; not added")
    return None


def _refused(kind: str, reason: str, stored: Stored) -> LearnedExample:
    return LearnedExample(kind=kind, added=False, reason=reason, version=stored.version)


def add_example(library: SkillLibrary, skill_id: str, text: str, vector: np.ndarray) -> LearnedExample:
    """Add ``text`` (embedded as ``vector``) as a condition of the skill, after the regression check."""
    with library.writing() as store:
        [current] = library.read(store, [skill_id], with_vectors=True).values()
        if current.node.props.get(ARCHIVED):
            return _refused("example", "the skill is archived: nothing is learned until it is unarchived", current)
        passages = routing.skill_passages(current.fields)
        if text in passages:
            return _refused("example", "it is already one of the skill's passages", current)
        if len(text) > MAX_ITEM:
            return _refused("example", f"it is {len(text):,} characters; a condition holds at most {MAX_ITEM:,}",
                            current)
        if len(current.fields["conditions"]) >= MAX_CONDITIONS:
            return _refused("example", f"the skill has {MAX_CONDITIONS} conditions, the most it can hold", current)
        refusal = regression(library, store, current, text, vector)
        if refusal is not None:
            return _refused("example", refusal, current)
        new = canonical({**current.fields, "conditions": [*current.fields["conditions"], text]})
        embedded = Embedded.of([*passages, text], np.vstack([current.node.vectors, vector[None, :]]),
                               routing.head_count(new))
        stamp, version = now(), current.version + 1
        event = {"event": "example_added", "at": stamp, "version": version, "text": text,
                 "reason": "a confirmed outcome"}
        props = {**{k: v for k, v in current.node.props.items() if k not in CONTENT}, "version": version,
                 "updated_at": stamp, "changes": diff.changes(current.fields, new).model_dump(mode="json"),
                 EVENTS: [*current.node.props.get(EVENTS, []), event]}
        with store.atomic():
            library.commit(store, [library.rows(skill_id, new, props, embedded, previous=current)], learned=True)
    return LearnedExample(kind="example", added=True, reason="added as a condition (a routing example)",
                          version=version)


def add_negative(library: SkillLibrary, skill_id: str, text: str, vector: np.ndarray) -> LearnedExample:
    """Record ``text`` (embedded as ``vector``) as a question the skill failed on."""
    with library.writing() as store:
        [current] = library.read(store, [skill_id], with_vectors=True).values()
        props = current.node.props
        if props.get(ARCHIVED):
            return _refused("negative_example", "the skill is archived: nothing is learned until it is "
                                                "unarchived", current)
        known = list(props.get(NEGATIVE_EXAMPLES) or [])
        if text in known:
            return _refused("negative_example", "it already is one of the skill's negative examples", current)
        if len(known) >= MAX_NEGATIVES:
            return _refused("negative_example", f"the skill has {MAX_NEGATIVES} negative examples, the most it "
                                                "keeps: fix it with update_skill or retire it with archive_skill",
                            current)
        cosines = current.node.vectors @ vector
        if cosines.max() >= routing.DUPLICATE_THRESHOLD:
            own = routing.skill_passages(current.fields)[int(cosines.argmax())]
            return _refused("negative_example", f"it is one of the skill's own passages ({own!r}): the playbook "
                                                "failed on a question it is made for; fix the playbook with "
                                                "update_skill", current)
        old = library.negative_vectors(store, [current]).get(skill_id)
        vectors = np.vstack([old, vector[None, :]]) if old is not None else vector[None, :]
        event = {"event": "negative_example_added", "at": now(), "version": current.version, "text": text,
                 "reason": "a failed outcome"}
        with store.atomic():
            [now_props] = [n.props for n in store.get_nodes([skill_id])]  # the counters a search just moved
            node = replace(current.node, props={**props, "counters": now_props.get("counters"),
                                                NEGATIVE_EXAMPLES: [*known, text],
                                                EVENTS: [*props.get(EVENTS, []), event]}, vectors=None)
            store.upsert_nodes([node, negatives_node(skill_id, [*known, text], vectors)])
    return LearnedExample(kind="negative_example", added=True,
                          reason="recorded: the skill is not returned for questions closer to it than to its "
                                 "own passages", version=current.version)
