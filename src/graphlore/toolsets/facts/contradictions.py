"""``check_contradictions``: an LLM judge looks for facts that a later fact contradicts, and can only end them.

The functional-relationship rule (:mod:`validity`) ends a fact when a later one of the same subject and
relationship names another object, for the relationships a graph declares functional. Everything else
(a relationship nobody declared, "left the board of" after "sits on the board of") only a reader can
tell. This step, run when the user chooses (``graphlore facts check-contradictions``, or the MCP tool with
the client's model), asks the configured LLM about facts still held, one question per fact:

    the fact, and the later facts of its subject that could contradict it: those that start strictly
    later and share its relationship (another object) or its object (another relationship), the
    :data:`SHOWN` earliest of them the judge has not cleared yet. "Pick the one that shows this fact
    stopped holding, or none."

- **a later fact picked**: the verdict is kept on the fact (``contradicted_by``: the evidence fact, the
  judge, its reason, when) and :mod:`validity` ends it at the evidence's ``valid_from`` (``valid_to``,
  ``ended_by`` naming the evidence, the judge and the reason). Nothing is deleted. Undo: retract the
  evidence's document (the verdict goes with its evidence and the fact holds again).
- **none**: nothing changes but a mark of what was asked: the later facts shown join the ones the judge
  cleared (``contradiction_cleared``; ``contradiction_checked``: a hash of those shown last), so the next
  call shows the next :data:`SHOWN` later facts, in the order they start, and a fact with more later facts
  than that is shown every one of them over successive calls; it is asked again only when a later fact the
  judge has not cleared appears.
- **no usable answer (twice)**: nothing changes; the fact is asked again next time. An endpoint that
  fails fails the call before anything is written.

Every question is asked before anything is written (MCP sampling may replay the tool with recorded
answers, see :mod:`graphlore.llm`), then the verdicts are written in one transaction. Without an LLM
nothing is asked and nothing changes: the call fails and says so.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

from graphlore.llm import LLM, Choice, Verdict, judge, required
from graphlore.runtime import Runtime
from graphlore.store import Edge, Store
from graphlore.tools import CallContext
from graphlore.toolsets.facts import validity
from graphlore.toolsets.facts.graph import FACT, KINDS, FactsGraph
from graphlore.toolsets.facts.models import (
    CheckContradictionsRequest,
    CheckContradictionsResponse,
    ContradictionCheck,
)

TASK = """STILL TRUE? The request is a fact that holds from its date on. Pick the later fact that shows the request
fact stopped holding: it states something that cannot be true at the same time (another holder of a role one
holder has at a time, a move away, an end, a reversal). Pick none when every later fact can hold together with it
(a restatement, an addition, another role). In the reason, state the evidence you decided on."""
#: Later facts shown per question (the earliest not cleared yet: the likeliest to end it).
SHOWN = 10
#: The fact prop that marks what the judge was shown last (a hash of those later facts' ids).
CHECKED = validity.CHECKED
#: The fact prop that lists the later facts the judge has seen and ended nothing with.
CLEARED = validity.CLEARED
#: Entities and topics whose facts are read per batch while looking for questions.
BATCH = 2000

#: What a call without an LLM is told to do instead.
WITHOUT_LLM = "Nothing was changed: facts end only by the functional-relationship rule (relation set NAME --functional)"


@dataclass(frozen=True)
class Question:
    fact: Edge
    later: list[Edge]

    @property
    def shown(self) -> str:
        return hashlib.sha1("\n".join(sorted(e.id for e in self.later)).encode()).hexdigest()[:16]


def questions(store: Store) -> list[Question]:
    """Every fact still held that has later facts to weigh and was not asked about with those, in node order."""
    out: list[Question] = []
    ids = [n.id for kind in KINDS for n in store.iter_nodes(kind)]
    for start in range(0, len(ids), BATCH):
        page = store.edges_of(ids[start:start + BATCH], direction="out", types=[FACT])
        by_subject: dict[str, list[Edge]] = {}
        for e in page.edges:
            by_subject.setdefault(e.src, []).append(e)
        for facts in by_subject.values():
            out += [q for q in (_question(f, facts) for f in facts) if q is not None]
    return out


def _question(fact: Edge, facts: list[Edge]) -> Question | None:
    if fact.props.get("valid_to"):
        return None
    start, rel = validity.fact_start(fact), validity.relation_key(fact.props["relationship"])
    later = sorted((g for g in facts if validity.fact_start(g) > start
                    and (validity.relation_key(g.props["relationship"]) == rel) != (g.dst == fact.dst)),
                   key=lambda g: (validity.fact_start(g), g.id))
    cleared = set(fact.props.get(CLEARED, []))
    if not cleared and fact.props.get(CHECKED) == Question(fact, later[:SHOWN]).shown:  # checked before CLEARED
        cleared = {g.id for g in later[:SHOWN]}
    unseen = [g for g in later if g.id not in cleared][:SHOWN]
    return Question(fact, unseen) if unseen else None


def describe(fact: Edge, names: dict[str, str]) -> str:
    return (f"{names.get(fact.src, fact.src)} {fact.props['relationship']} {names.get(fact.dst, fact.dst)}, from "
            f"{validity.fact_start(fact)} (stated {fact.date}): {fact.text}")


def ask(llm: LLM, question: Question, names: dict[str, str]) -> Verdict:
    """The judge's answer about one fact (:func:`graphlore.llm.judge`: a later fact picked = it ends this one;
    an unusable reply is asked again once, then there is no answer)."""
    return judge(llm, describe(question.fact, names), [Choice(g.id, describe(g, names)) for g in question.later],
                 task=TASK, max_tokens=150)


def check_contradictions(runtime: Runtime, request: CheckContradictionsRequest,
                         context: CallContext) -> CheckContradictionsResponse:
    llm = required(runtime.llm or context.llm, "judge contradictions", "check_contradictions", WITHOUT_LLM)
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    pending = questions(store)
    asked = pending[:request.limit]
    ends = {i for q in asked for e in (q.fact, *q.later) for i in (e.src, e.dst)}
    names = {n.id: n.name for n in store.get_nodes(sorted(ends))}
    answers = [(q, ask(llm, q, names)) for q in asked]
    decided = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    checks: list[ContradictionCheck] = []
    with store.atomic():  # the facts as they are now: a write may have changed one while the judge was asked
        now = {e.id: e for e in store.get_edges(sorted({e.id for q, _ in answers for e in (q.fact, *q.later)}))}
        marked, ended = [], []
        for q, verdict in answers:
            fact = now.get(q.fact.id)
            picked = next((g for g in q.later if g.id == verdict.choice), None)
            if fact is None or fact.props.get("valid_to") or (picked is not None and picked.id not in now):
                checks.append(_check(q, "undecided", None, f"{verdict.reason} (not recorded: the fact or its "
                                                           "evidence changed while the judge was asked)"))
                continue
            if not verdict.decided:
                checks.append(_check(q, "undecided", None, verdict.reason))
                continue
            fact.props[CHECKED] = q.shown
            if picked is None:
                fact.props[CLEARED] = sorted({*fact.props.get(CLEARED, []), *(g.id for g in q.later)})
            else:
                fact.props[validity.JUDGED] = {"fact": picked.id, "reason": verdict.reason.strip() or "(no reason "
                                               "given)", "judge": llm.name, "decided": decided}
                ended.append(fact)
            marked.append(fact)
            checks.append(_check(q, "ended" if picked else "holds", picked, verdict.reason))
        store.upsert_edges(marked)
        if ended:
            store.set_meta(validity.JUDGED_META, True)
            validity.revalidate(store, {(e.src, e.props["relationship"]) for e in ended})
    valid_to = {e.id: e.props.get("valid_to") for e in store.get_edges([c.fact for c in checks if c.decision == "ended"])}
    for c in checks:
        c.valid_to = valid_to.get(c.fact)
    # what this call marked is weighed; the rest of what was pending is not (one scan of the graph per call)
    return CheckContradictionsResponse(graph=graph.name, llm=llm.name, checks=checks,
                                       unchecked=len(pending) - len(marked))


def _check(q: Question, decision: str, evidence: Edge | None, reason: str) -> ContradictionCheck:
    return ContradictionCheck(fact=q.fact.id, sentence=q.fact.text, decision=decision,
                              evidence=evidence.id if evidence else None,
                              evidence_sentence=evidence.text if evidence else None, valid_to=None,
                              reason=reason.strip() or "(no reason given)")
