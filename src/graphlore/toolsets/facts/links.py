"""``resolve_links``: an LLM judge decides possible-duplicate links, each decision recorded and undoable.

Resolution links what the evidence cannot settle (see :mod:`resolve`); this step, run when the user
chooses (``graphlore facts resolve-links``, or the MCP tool with the client's model), asks the configured
LLM about the open links, strongest first, and records each answer on the link itself::

    possible_duplicate edge dup:<a>|<b>
      props score, reason, rules          (resolution's, unchanged)
            settled                       true: identifiers decided it (codes, editions, platforms,
                                          variants the names contradict); never asked, never merged
            decision  "same" | "different"
            judge     the LLM's name       evidence  its one-sentence reason
            decided   when (UTC, seconds)

- **different**: the link stays, marked, and is never asked about again. Undo: ``merge A B``.
- **same**: the two nodes merge (:func:`merge.merge`: the node with more mention records stays, then
  the smaller id); the link, marked, is kept in what the merge saved, so ``split`` with the mentions
  that joined (the answer lists them) restores both nodes and the marked link, which is not asked again.
  Nodes ``merge`` refuses (written before mention records) stay apart, the decision recorded, and the
  answer says why.
- no usable answer (twice): the link stays open and is asked again next time.

Every question is asked before anything is written (MCP sampling may replay the tool with recorded
answers, see :mod:`graphlore.llm`), then the decisions are written in one transaction and each merge
runs in its own. Without an LLM nothing is asked: the links stay, ``info`` shows them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from graphlore.errors import InvalidInput, NotFound
from graphlore.llm import LLM, Choice, judge, required
from graphlore.runtime import Runtime
from graphlore.store import Edge, Node, Store
from graphlore.tools import CallContext
from graphlore.toolsets.facts import merge
from graphlore.toolsets.facts.graph import DUPLICATE, FactsGraph
from graphlore.toolsets.facts.mentions import node_records
from graphlore.toolsets.facts.models import (
    LinkDecision,
    MergeRequest,
    NodeRef,
    ResolveLinksRequest,
    ResolveLinksResponse,
)

TASK = """SAME THING? Pick the candidate only if it names the same real-world {kind} as the request. Two variants
of one thing (another colour, size, capacity, region, edition, platform or model-code suffix), or two things
that only share a name, are not the same thing: then pick none. In the reason, state the evidence you decided on.
Why they were linked: {reason}"""
#: Aliases of a node shown to the judge.
SHOWN_ALIASES = 10

#: What a call without an LLM is told to do instead.
WITHOUT_LLM = ("Without one the possible-duplicate links stay as they are (info NAME lists them; merge A B joins two "
               "nodes you know are one)")


@dataclass(frozen=True)
class Answer:
    same: bool | None  # None: no usable answer
    evidence: str


def state(props: dict) -> dict:
    """What ``info`` says about a link: its decision and the judge's evidence."""
    if props.get("decision"):
        return {"decision": props["decision"], "evidence": f"{props.get('evidence', '')} ({props.get('judge')}, "
                                                             f"{props.get('decided')})"}
    return {"decision": "settled" if props.get("settled") else "open", "evidence": None}


def open_links(store: Store) -> list[Edge]:
    """Links nothing has decided (no decision, not settled by identifiers), strongest first."""
    found = [e for e in store.iter_edges(DUPLICATE) if not e.props.get("decision") and not e.props.get("settled")]
    return sorted(found, key=lambda e: (-float(e.props.get("score", 0.0)), e.id))


def describe(node: Node) -> str:
    aliases = node.props.get("aliases", [])[:SHOWN_ALIASES]
    kind = node.props.get("type") or node.kind
    also = f" (also called: {'; '.join(aliases)})" if aliases else ""
    return f"{node.name} ({kind}){also}: {node.props.get('definition', '')}"


def ask(llm: LLM, a: Node, b: Node, reason: str) -> Answer:
    """The judge's answer about one link (:func:`graphlore.llm.judge`: B picked = same, none = different; an
    unusable reply is asked again once, then there is no answer)."""
    verdict = judge(llm, describe(a), [Choice(b.id, describe(b))], task=TASK.format(kind=a.kind, reason=reason),
                    max_tokens=150)
    if not verdict.decided:
        return Answer(None, verdict.reason)
    return Answer(verdict.choice == b.id, verdict.reason.strip() or "(no reason given)")


def resolve_links(runtime: Runtime, request: ResolveLinksRequest, context: CallContext) -> ResolveLinksResponse:
    llm = required(runtime.llm or context.llm, "judge possible duplicates", "resolve_links", WITHOUT_LLM)
    graph = FactsGraph(runtime, request.graph)
    store = graph.store()
    pending = open_links(store)
    asked = pending[:request.limit]
    nodes = {n.id: n for n in store.get_nodes(sorted({i for e in asked for i in (e.src, e.dst)}))}
    answers = [(e, ask(llm, nodes[e.src], nodes[e.dst], e.props.get("reason", "")))
               for e in asked if e.src in nodes and e.dst in nodes]
    decided = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    with store.atomic():  # the links as they are now: another call may have removed or moved one meanwhile
        now = {e.id: e for e in store.get_edges([e.id for e, _ in answers])}
        gone = {e.id for e, _ in answers if e.id not in now or (now[e.id].src, now[e.id].dst) != (e.src, e.dst)}
        marked = []
        for e, answer in answers:
            if answer.same is not None and e.id not in gone:
                link = now[e.id]
                link.props.update(decision="same" if answer.same else "different", judge=llm.name,
                                  evidence=answer.evidence, decided=decided)
                marked.append(link)
        store.upsert_edges(marked)
    decisions, moved = [], {}  # moved: a node a merge removed -> the node it joined
    for e, answer in answers:
        a, b = nodes[e.src], nodes[e.dst]
        refs = NodeRef(id=a.id, name=a.name, kind=a.kind), NodeRef(id=b.id, name=b.name, kind=b.kind)
        if e.id in gone and answer.same is not None:
            said = "the same" if answer.same else "different"
            decisions.append(LinkDecision(
                link=e.id, a=refs[0], b=refs[1], decision="undecided", merged_into=None, undo=None,
                evidence=f"{answer.evidence} (judged {said}, not recorded: the link went or changed while the judge "
                         "was asked)"))
        elif answer.same is None:
            decisions.append(LinkDecision(link=e.id, a=refs[0], b=refs[1], decision="undecided",
                                          evidence=answer.evidence, merged_into=None, undo=None))
        elif not answer.same:
            decisions.append(LinkDecision(link=e.id, a=refs[0], b=refs[1], decision="different",
                                          evidence=answer.evidence, merged_into=None,
                                          undo=f"merge {a.id} {b.id}"))
        else:
            decisions.append(_merge(runtime, store, graph.name, e, answer, refs, moved))
    return ResolveLinksResponse(graph=graph.name, llm=llm.name, decisions=decisions,
                                open_links=len(open_links(store)))


def _current(node_id: str, moved: dict[str, str]) -> str:
    while node_id in moved:
        node_id = moved[node_id]
    return node_id


def _merge(runtime: Runtime, store: Store, graph: str, link: Edge, answer: Answer, refs: tuple[NodeRef, NodeRef],
           moved: dict[str, str]) -> LinkDecision:
    """Merge the two ends of a link judged "same" (the node with more mention records stays)."""
    a, b = _current(link.src, moved), _current(link.dst, moved)
    if a == b:  # an earlier merge of this run joined them already
        return LinkDecision(link=link.id, a=refs[0], b=refs[1], decision="same", evidence=answer.evidence,
                            merged_into=None, undo=None)
    counts = {i: len(node_records(store, i)) for i in (a, b)}
    stay, join = sorted((a, b), key=lambda i: (-counts[i], i))
    try:
        done = merge.merge(runtime, MergeRequest(name=stay, other=join, graph=graph))
    except (InvalidInput, NotFound) as exc:  # e.g. a node written before mention records, or one another call
        # removed meanwhile: the decision stays recorded
        return LinkDecision(link=link.id, a=refs[0], b=refs[1], decision="same",
                            evidence=f"{answer.evidence} (not merged: {exc.message})", merged_into=None, undo=None)
    moved[join] = stay
    kept = NodeRef(id=done.merged.id, name=done.merged.name, kind=done.removed.kind)
    return LinkDecision(link=link.id, a=refs[0], b=refs[1], decision="same", evidence=answer.evidence,
                        merged_into=kept, undo=f"split {stay} --mentions {' --mentions '.join(done.joined_mentions)}")
