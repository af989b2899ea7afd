"""The text people and agents read: the CLI prints it, and over MCP it is the text block of each answer.

A fact is one line ``[1] 2025-10-15  Apple Inc ──[acquired]──▶ Beats  (doc name)``
followed by its sentence, indented. The date is the document date (what ``from`` /
``to_date`` filter on); when the fact's ``date_context`` says something else it follows
in parentheses (``[1] 2025-01-15 (Q4 2024)  ...``), so the column is never read as when
the fact happened.
"""

from __future__ import annotations

from graphlore.render import count
from graphlore.toolsets.facts.models import (
    AddDocumentResponse,
    Candidate,
    CatResponse,
    CheckContradictionsResponse,
    FactOut,
    FindResponse,
    InfoResponse,
    IngestResponse,
    LsResponse,
    MergeResponse,
    NodeSummary,
    RelationSetResponse,
    ResolveLinksResponse,
    RetractResponse,
    SearchResponse,
    SearchSummary,
    SplitResponse,
    StatsResponse,
)

ARROW = "──[{rel}]──▶"


def fact_line(f: FactOut, number: int | None = None) -> str:
    head = f"[{number}] " if number else ""
    when = f" ({f.date_context})" if f.date_context and f.date_context != f.date else ""
    return (f"{head}{f.date}{when}  {f.subject.name} {ARROW.format(rel=f.relationship)} {f.object.name}  "
            f"({f.document.name})")


def fact_block(f: FactOut, number: int | None = None) -> list[str]:
    lines = [fact_line(f, number), f"    {f.sentence}"]
    if f.valid_to is not None:
        by = f" by {f.ended_by.fact} ({f.ended_by.object})" if f.ended_by else ""
        if f.ended_by and f.ended_by.judge:
            by += f", judged by {f.ended_by.judge}: {f.ended_by.reason}"
        lines.append(f"    held {f.valid_from} to {f.valid_to}; ended{by}")
    if f.score is not None:
        lines.append(f"    relevance {f.score:.3f}")
    return lines


def find(r: FindResponse) -> str:
    lines = []
    for title, groups in (("ENTITIES:", r.entities), ("TOPICS:", r.topics)):
        lines.append(title)
        if not groups:
            lines.append("  (no selectors)")
        for g in groups:
            lines.append(f"  {g.name}" + (f"  (id={g.id})" if g.id else ""))
            if not g.candidates:
                lines.append("    (no candidates: the graph has none of this kind)")
            strong = [c for c in g.candidates if not c.weak]
            weak = [c for c in g.candidates if c.weak]
            lines += [_candidate(c) for c in strong]
            if weak:
                lines.append("    (no good match: every candidate scores below the floor; probably not in the graph)"
                             if not strong else "    weak (below the floor; probably not what you mean):")
                lines += [_candidate(c) for c in weak]
    return "\n".join(lines)


def _candidate(c: Candidate) -> str:
    kind = f"  [{c.type}]" if c.type else ""
    return f"    {c.name}{kind}  {c.id}  {c.score:.3f}" + ("  weak" if c.weak else "")


def _searched(r: SearchResponse | SearchSummary) -> str:
    """``mode=around  entity: Apple Inc [E:apple-inc]  dates 2024-10-01 to 2024-10-31  query='acquired'``."""
    chosen: dict[str, list[str]] = {"entity": [], "topic": []}
    for s in r.selected:
        chosen[s.kind].append(f"{s.name} [{s.id}]")
    parts = [f"mode={r.mode}"]
    parts += [f"{k}: {', '.join(v)}" for k, v in chosen.items() if v]
    if r.from_ or r.to_date:
        parts.append(f"dates {r.from_ or '…'} to {r.to_date or '…'}")
    if r.query:
        parts.append(f"query={r.query!r}")
    if r.as_of:
        parts.append(f"as of {r.as_of}")
    if r.current:
        parts.append("current")
    return "  ".join(parts)


def search(r: SearchResponse) -> str:
    order = "most relevant to the query first" if r.query else "newest first"
    lines = ["SEARCH " + _searched(r),
             f"{len(r.results)} of {count(r.total, 'fact')}, {order}; search_id {r.search_id} (cat N expands result N)"]
    if not r.results:
        lines.append("(no facts match)")
    for f in r.results:
        lines += [""] + fact_block(f, f.number)
    return "\n".join(lines)


def _node_line(label: str, n: NodeSummary) -> str:
    kind = f"{n.type}, " if n.type else ""
    return f"  {label}: {n.name} ({kind}{n.kind} {n.id}, {count(n.facts, 'fact')}): {n.definition}"


def cat(r: CatResponse) -> str:
    blocks = []
    for item in r.items:
        f = item.fact
        blocks.append("\n".join([
            *fact_block(f, f.number),
            f"  when: {f.date_context}",
            f"  document: {f.document.name} ({f.document.date}{', ' + f.document.source if f.document.source else ''})",
            _node_line("subject", item.subject),
            _node_line("object", item.object),
            "  chunk:",
            *("    " + line for line in item.chunk.splitlines()),
        ]))
    searched = (f"{_searched(r.search)}; {count(r.search.total, 'fact')}" if r.search is not None
                else "(what it searched was not recorded)")
    return f"search {r.search_id}: {searched}\n\n" + "\n\n".join(blocks)


def info(r: InfoResponse) -> str:
    kind = f"{r.type} " if r.type else ""
    lines = [
        f"{r.name}  ({kind}{r.kind} {r.id})",
        f"definition: {r.definition}",
        f"aliases: {', '.join(r.aliases) if r.aliases else '(none)'}",
        f"facts: {r.fact_count}" + (f", {r.first_date} to {r.last_date}" if r.first_date else ""),
        "most connected:",
        *([f"  {n.name} ({n.id}): {count(n.facts, 'fact')}" for n in r.neighbours] or ["  (none)"]),
        "latest facts (still holding):",
    ]
    for f in r.latest_facts or []:
        lines += ["  " + line for line in fact_block(f)]
    if not r.latest_facts:
        lines.append("  (none)")
    if r.superseded_count:
        lines.append(f"superseded facts ({r.superseded_count}; a later fact ended them):")
        for f in r.superseded_facts:
            lines += ["  " + line for line in fact_block(f)]
    if r.possible_duplicates:
        lines.append("possible duplicates:")
        lines += [f"  {d.name} ({d.id}) {d.score:.2f}: {d.reason}" + LINK_STATES[d.decision].format(evidence=d.evidence)
                  for d in r.possible_duplicates]
    if r.kept_apart:
        lines.append("kept apart (by split) from: " + ", ".join(f"{n.name} ({n.id})" for n in r.kept_apart))
    shown = f", newest {len(r.mentions)}" if len(r.mentions) < r.mention_count else ""
    lines.append(f"mentions ({r.mention_count}{shown}; split NAME --mentions ID undoes a merge):" if r.mention_count
                 else "mentions: none recorded (written before graphlore kept mention records)")
    for m in r.mentions:
        said = f"{m.document.name}, {m.document.date}" if m.document else "before mention records"
        also = f" (also {', '.join(m.aliases)})" if m.aliases else ""
        lines.append(f"  {m.id}  {m.action:7}  {m.name}{also}: {m.definition}  [{said}]")
    return "\n".join(lines)


def ls(r: LsResponse) -> str:
    of_type = f" of type {r.type!r}" if r.type else ""
    span = str(len(r.rows)) if not r.offset else f"{r.offset + 1}-{r.offset + len(r.rows)}" if r.rows else "none"
    lines = [f"{r.what}{of_type}: {span} of {r.total}" + (" (most facts first)" if r.what != "documents" else
                                                          " (newest first)")]
    for row in r.rows:
        if r.what == "documents":
            lines.append(f"  {row.date}  {row.name}  ({row.id}; {count(row.chunks, 'chunk')}, {count(row.facts, 'fact')})")
        else:
            kind = f" [{row.type}]" if row.type else ""
            lines.append(f"  {row.name}{kind}  ({row.id}; {count(row.facts, 'fact')})")
    if r.has_more:
        lines.append(f"more rows: ask again with offset {r.offset + len(r.rows)} (--offset {r.offset + len(r.rows)})")
    return "\n".join(lines)


def split(r: SplitResponse) -> str:
    lines = [f"split {r.kept.name} ({r.kept.id}): {count(len(r.split_off.mentions), 'mention')} left for a new node; "
             f"{count(r.facts_moved, 'fact')} moved"]
    for label, n in (("kept", r.kept), ("new", r.split_off)):
        kind = f" [{n.type}]" if n.type else ""
        aliases = f"; aliases {', '.join(n.aliases)}" if n.aliases else ""
        lines.append(f"  {label}: {n.name}{kind} ({n.id}; {count(n.facts, 'fact')}; mentions {', '.join(n.mentions)}{aliases})")
        lines.append(f"    {n.definition}")
    return "\n".join(lines)


def stats(r: StatsResponse) -> str:
    dates = f"{r.first_date} to {r.last_date}" if r.first_date else "(no documents)"
    return "\n".join([
        f"graph {r.graph}: {r.location}",
        f"entities {r.entities}, topics {r.topics}, documents {r.documents}, chunks {r.chunks}, facts {r.facts}, "
        f"possible duplicates {r.possible_duplicates}",
        f"document dates: {dates}; embedder: {r.embedder or '(none yet)'}",
    ])


def add_document(r: AddDocumentResponse) -> str:
    lines = [f"{r.status}: {r.document.name} ({r.document.id}, {r.document.date}): {count(r.chunks, 'chunk')}, {count(r.facts, 'fact')} "
             f"(+{r.facts_added} -{r.facts_removed})"]
    for res in r.resolutions:
        into = f" -> {res.canonical_name} ({res.id})"
        lines.append(f"  {res.kind} {res.name!r}: {res.action}{into}: {res.reason}")
    skipped = getattr(r, "skipped", [])
    if skipped:
        lines.append(f"skipped {count(len(skipped), 'item')} the LLM proposed:")
        lines += [f"  {s}" for s in skipped]
    return "\n".join(lines)


def ingest(r: IngestResponse) -> str:
    return "\n".join([
        f"{r.file} -> graph {r.graph}: {r.documents} documents ({r.created} created, {r.updated} updated, "
        f"{r.unchanged} unchanged) in {r.duration_ms} ms",
        f"facts +{r.facts_added} -{r.facts_removed}; new entities {r.entities_created}, new topics {r.topics_created}, "
        f"merged mentions {r.merged}; texts embedded {r.embedded_texts}",
    ])


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def retract(r: RetractResponse) -> str:
    lines = [f"retracted {r.document.name} ({r.document.id}, {r.document.date}): {_count(r.facts_removed, 'fact')}, "
             f"{_count(r.chunks_removed, 'chunk')}, {_count(r.mentions_removed, 'mention')} only it said; validity "
             f"changed for {_count(r.validity_changed, 'fact')}"]
    for label, refs in (("removed (no other document mentions them)", r.nodes_removed),
                        ("rebuilt from the mentions they keep", r.nodes_rebuilt),
                        ("came apart (their merge rested on this document)", r.came_apart)):
        if refs:
            lines.append(f"  {label}: " + ", ".join(f"{n.name} ({n.id})" for n in refs))
    return "\n".join(lines)


def merge(r: MergeResponse) -> str:
    n = r.merged
    kind = f" [{n.type}]" if n.type else ""
    aliases = f"; aliases {', '.join(n.aliases)}" if n.aliases else ""
    return "\n".join([
        f"merged {r.removed.name} ({r.removed.id}) into {n.name} ({n.id}): {_count(r.facts_moved, 'fact')} moved; "
        f"validity changed for {_count(r.validity_changed, 'fact')}",
        f"  {n.name}{kind} ({n.id}; {n.facts} facts; mentions {', '.join(n.mentions)}{aliases})",
        f"    {n.definition}",
        f"  undo: split {n.id} " + " ".join(f"--mentions {m}" for m in r.joined_mentions),
    ])


def relation_set(r: RelationSetResponse) -> str:
    state = "functional (one object at a time per subject)" if r.functional else "not functional"
    default = " (graphlore's default)" if r.functional == r.default else f" (the default is {'on' if r.default else 'off'})"
    return (f"relationship {r.relationship!r} in graph {r.graph}: {state}{default}; validity changed for "
            f"{_count(r.facts_changed, 'fact')}")


#: How info shows a possible-duplicate link's state after its resolution reason.
LINK_STATES = {
    "open": " [open: resolve-links asks an LLM]",
    "settled": " [settled: identifiers keep them apart]",
    "different": " [judged different: {evidence}]",
    "same": " [judged the same: {evidence}; not merged, or a split undid the merge]",
}


def resolve_links(r: ResolveLinksResponse) -> str:
    lines = [f"resolve-links with {r.llm}: {len(r.decisions)} link(s) judged; {r.open_links} open link(s) left"]
    for d in r.decisions:
        into = f" -> merged into {d.merged_into.name} ({d.merged_into.id})" if d.merged_into else ""
        lines.append(f"  {d.decision}: {d.a.name} ({d.a.id}) ~ {d.b.name} ({d.b.id}){into}")
        lines.append(f"    evidence: {d.evidence}")
        if d.undo:
            lines.append(f"    undo: graphlore facts {d.undo}")
    return "\n".join(lines)


def check_contradictions(r: CheckContradictionsResponse) -> str:
    lines = [f"check-contradictions with {r.llm}: {_count(len(r.checks), 'fact')} judged; {r.unchecked} left to judge"]
    for c in r.checks:
        until = f" until {c.valid_to}" if c.valid_to else ""
        lines.append(f"  {c.decision}{until}: {c.fact}  {c.sentence}")
        if c.evidence:
            lines.append(f"    evidence: {c.evidence}  {c.evidence_sentence}")
        lines.append(f"    reason: {c.reason}")
    if any(c.decision == "ended" for c in r.checks):
        lines.append("  undo an ending: retract the evidence's document")
    return "\n".join(lines)
