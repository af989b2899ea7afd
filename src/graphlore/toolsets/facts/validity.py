"""Validity in time: from when a fact holds, until what ended it.

Every fact holds from ``valid_from`` (its ``date_context`` when that is a date, YYYY, YYYY-MM or
YYYY-MM-DD, read as its first day; else the document date). A relationship can be *functional* in a
graph: a subject has one object at a time ("has CEO", "headquartered in"). For a functional relationship
the facts of one subject are a timeline, and ``valid_to`` is a function of the whole timeline, never of
the order documents arrived in:

    a fact ends at the ``valid_from`` of the first fact of the same subject and relationship that starts
    strictly later and names another object; that fact is its evidence (``ended_by``: the fact, its
    document and the object that replaced it).

So a fact restated later (the same object again) does not end the one it restates, two facts of one day
that disagree end neither (nothing says which came first: both stay open), an old fact stated by a new
document (out of order) takes its place in the timeline, and retracting a document gives back the
validity it ended (the timelines it touched are computed again). Nothing is deleted: an ended fact keeps
every field and gains ``valid_to`` and ``ended_by``. Relationships are compared case-insensitively with
spaces collapsed; which are functional is :data:`DEFAULT_FUNCTIONAL` plus what ``graphlore facts relation
set`` declared in the graph (stored in its metadata under :data:`RELATIONS_META`).

An LLM judge (:mod:`contradictions`) can end a fact of any relationship: its verdict is kept on the fact
(``contradicted_by``: the later fact that contradicts it, the judge, its reason) and ends it at that fact's
``valid_from`` whenever validity is computed, while that fact exists, is of the same subject (a split may move
it to another node) and starts later; the earlier of the two endings (the rule's, the judge's) wins. So retracting the evidence's document drops the verdict and
gives the validity back, as for the rule's endings. A verdict never deletes a fact.

Graphs written before validity stored no ``valid_from`` (nor any ending): the store's ``valid_at`` filter
would read their facts as always held. The first open of such a graph fills validity in (:func:`backfill`,
one transaction: the timeline of every subject with such a fact, as a write computes it) and records that
in the graph's metadata (:data:`VALIDITY_META`), so it runs once; a graph's first write records it too.
"""

from __future__ import annotations

import re
import weakref
from collections import defaultdict
from collections.abc import Iterable

from graphlore.store import Edge, Store
from graphlore.toolsets.facts.models import CURRENT_DAY, FACT, PERIOD_PATTERN, period_bounds

#: Relationships functional in every graph unless ``relation set NAME --not-functional`` says otherwise.
DEFAULT_FUNCTIONAL = (
    "has ceo", "ceo", "ceo of", "is ceo of", "chief executive officer of", "is chief executive officer of",
    "headquartered in", "is headquartered in", "has headquarters in", "acquired by", "was acquired by",
    "is owned by", "owned by", "parent company", "has parent company",
)
#: Metadata key of a graph's declarations: normalised relationship -> functional (true / false).
RELATIONS_META = "facts_relations"
#: The fact prop that keeps a judge's verdict (see the module docstring).
JUDGED = "contradicted_by"
#: The fact prop that marks what the judge was shown last (see :mod:`contradictions`).
CHECKED = "contradiction_checked"
#: The fact prop that lists the later facts the judge was shown and ended nothing with (see :mod:`contradictions`).
CLEARED = "contradiction_cleared"
#: What a judge keeps on a fact: a document written again keeps them on its facts that did not change.
JUDGE_PROPS = (JUDGED, CHECKED, CLEARED)
#: Metadata flag: a judge has ended a fact in this graph (writes then look at judged facts too).
JUDGED_META = "facts_judged"
#: Metadata flag: every fact of the graph holds its validity (see :func:`backfill`).
VALIDITY_META = "facts_validity"
#: ``valid_at`` of the store's edge filters that reads "now": facts nothing has ended.
CURRENT = CURRENT_DAY
#: Subjects whose timelines are computed in one batch when a relationship is declared.
BATCH = 2000


def relation_key(name: str) -> str:
    return " ".join(name.casefold().split())


def valid_from(date_context: str | None, document_date: str) -> str:
    """The first day of ``date_context`` when it is a date (YYYY, YYYY-MM, YYYY-MM-DD), else the document's."""
    text = (date_context or "").strip()
    if re.fullmatch(PERIOD_PATTERN, text):
        try:
            return period_bounds(text)[0]
        except ValueError:
            pass
    return document_date


def fact_start(edge: Edge) -> str:
    """A fact's ``valid_from`` (facts written before validity: computed from their date context)."""
    return edge.props.get("valid_from") or valid_from(edge.props.get("date_context"), edge.date or "")


def declared(store: Store) -> dict[str, bool]:
    return dict(store.get_meta(RELATIONS_META) or {})


def functional(store: Store) -> set[str]:
    """The graph's functional relationships (normalised)."""
    said = declared(store)
    return {r for r in DEFAULT_FUNCTIONAL if said.get(r, True)} | {r for r, on in said.items() if on}


def endings(facts: list[Edge]) -> dict[str, tuple[str | None, dict | None]]:
    """fact id -> (valid_to, ended_by) over one subject's timeline of one functional relationship."""
    ordered = sorted(facts, key=lambda e: (fact_start(e), e.date or "", e.id))
    out: dict[str, tuple[str | None, dict | None]] = {}
    for i, fact in enumerate(ordered):
        start = fact_start(fact)
        ender = next((g for g in ordered[i + 1:] if fact_start(g) > start and g.dst != fact.dst), None)
        out[fact.id] = (None, None) if ender is None else (fact_start(ender), {
            "fact": ender.id, "document": ender.props.get("document"), "object": ender.dst,
            "reason": f"a later fact of the functional relationship {relation_key(fact.props['relationship'])!r} "
                      "names another object"})
    return out


def _apply(edge: Edge, valid_to: str | None, ended_by: dict | None) -> bool:
    """Set the fact's validity; whether anything changed."""
    before = (edge.props.get("valid_from"), edge.props.get("valid_to"), edge.props.get("ended_by"))
    edge.props["valid_from"] = fact_start(edge)
    edge.props.pop("valid_to", None)
    edge.props.pop("ended_by", None)
    if valid_to is not None:
        edge.props["valid_to"] = valid_to
        edge.props["ended_by"] = ended_by
    return before != (edge.props.get("valid_from"), edge.props.get("valid_to"), edge.props.get("ended_by"))


def revalidate(store: Store, touched: Iterable[tuple[str, str]]) -> int:
    """Compute again the timelines of (subject id, relationship) pairs a write touched (non-functional ones
    are skipped: nothing ends them), and the judged facts of those subjects (their evidence may be gone);
    returns how many facts changed. Runs inside the caller's transaction."""
    touched = set(touched)
    rules = functional(store)
    wanted = {(s, relation_key(r)) for s, r in touched if relation_key(r) in rules}
    judged = bool(touched) and bool(store.get_meta(JUDGED_META))
    if not wanted and not judged:
        return 0
    page = store.edges_of(sorted({s for s, _ in (touched if judged else wanted)}), direction="out", types=[FACT])
    if judged:  # a judged fact's timeline is computed whole: the rule may end it earlier than the judge
        wanted |= {(e.src, key) for e in page.edges if JUDGED in e.props
                   and (key := relation_key(e.props.get("relationship", ""))) in rules}
    ids = [e.id for e in page.edges
           if (e.src, relation_key(e.props.get("relationship", ""))) in wanted or (judged and JUDGED in e.props)]
    return _recompute(store, ids, rules)


def _recompute(store: Store, ids: list[str], rules: set[str]) -> int:
    groups: dict[tuple[str, str], list[Edge]] = defaultdict(list)
    facts = store.get_edges(ids)  # with their vectors: an upsert writes every column
    for edge in facts:
        groups[(edge.src, relation_key(edge.props["relationship"]))].append(edge)
    evidence = _evidence(store, facts)
    changed = []
    for (_, rel), group in groups.items():
        ends = endings(group) if rel in rules else {}
        for e in group:
            ending = min([x for x in (ends.get(e.id), judged_ending(e, evidence)) if x and x[0]],
                         key=lambda x: x[0], default=(None, None))
            if _apply(e, *ending) | _drop_stale_verdict(e, evidence):
                changed.append(e)
    store.upsert_edges(changed)
    return len(changed)


def _evidence(store: Store, facts: list[Edge]) -> dict[str, Edge]:
    """The facts the judged ones among ``facts`` name as evidence, those that exist."""
    wanted = sorted({e.props[JUDGED]["fact"] for e in facts if e.props.get(JUDGED)})
    return {e.id: e for e in store.get_edges(wanted)} if wanted else {}


def judged_ending(edge: Edge, evidence: dict[str, Edge]) -> tuple[str, dict] | None:
    """(valid_to, ended_by) of a judge's verdict on ``edge`` while its evidence exists, is a fact of the same
    subject (as the judge weighed it; a split may move it to another node) and starts later."""
    verdict = edge.props.get(JUDGED)
    later = evidence.get(verdict["fact"]) if verdict else None
    if later is None or later.src != edge.src or fact_start(later) <= fact_start(edge):
        return None
    return fact_start(later), {"fact": later.id, "document": later.props.get("document"), "object": later.dst,
                               "reason": verdict["reason"], "judge": verdict["judge"], "decided": verdict["decided"]}


def _drop_stale_verdict(edge: Edge, evidence: dict[str, Edge]) -> bool:
    """Forget a verdict whose evidence is gone (its document was retracted); whether it did."""
    verdict = edge.props.get(JUDGED)
    if verdict and verdict["fact"] not in evidence:
        del edge.props[JUDGED]
        return True
    return False


def set_relation(store: Store, name: str, on: bool) -> int:
    """Declare ``name`` functional or not in this graph and compute every fact of it again (one
    transaction); returns how many facts changed."""
    key = relation_key(name)
    with store.atomic():
        said = declared(store)
        said[key] = on
        store.set_meta(RELATIONS_META, said)
        subjects = sorted({e.src for e in store.iter_edges(FACT)
                           if relation_key(e.props.get("relationship", "")) == key})
        rules, changed = functional(store), 0
        for start in range(0, len(subjects), BATCH):  # a subject's whole timeline in one batch
            page = store.edges_of(subjects[start:start + BATCH], direction="out", types=[FACT])
            changed += _recompute(store, [e.id for e in page.edges
                                          if relation_key(e.props.get("relationship", "")) == key], rules)
    return changed


#: A ``valid_at`` before every ISO date: only facts stored without ``valid_from`` held on it.
BEFORE_EVERY_DAY = "0"
#: Stores this process has seen hold :data:`VALIDITY_META` (no metadata read per call after the first).
_FILLED: weakref.WeakSet[Store] = weakref.WeakSet()


def backfill(store: Store) -> int:
    """Give every fact written before validity its ``valid_from`` and the endings its timelines make (once per
    graph: :data:`VALIDITY_META` records it); returns how many facts changed."""
    if store in _FILLED:
        return 0
    if store.get_meta(VALIDITY_META):
        _FILLED.add(store)
        return 0
    with store.atomic():
        if store.get_meta(VALIDITY_META):  # another process filled it meanwhile
            _FILLED.add(store)
            return 0
        nodes = [n.id for kind in ("entity", "topic") for n in store.iter_nodes(kind)]
        subjects = sorted({e.src for start in range(0, len(nodes), BATCH)  # no props nor vectors read
                           for e in store.select_edges(nodes[start:start + BATCH], mode="around", type=FACT,
                                                       valid_at=BEFORE_EVERY_DAY).edges})
        rules, changed = functional(store), 0
        for start in range(0, len(subjects), BATCH):  # a subject's whole timeline in one batch
            page = store.edges_of(subjects[start:start + BATCH], direction="out", types=[FACT])
            changed += _recompute(store, [e.id for e in page.edges], rules)
        store.set_meta(VALIDITY_META, True)
    _FILLED.add(store)
    return changed
