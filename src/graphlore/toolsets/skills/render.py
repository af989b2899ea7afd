"""The text people and agents read: the CLI prints it, and over MCP it is the text block of each answer.

A returned playbook is shown whole (its header lines carry the confidence and
counters); the lines around it say which skill it is and what to do next.
"""

from __future__ import annotations

from graphlore.render import count, table
from graphlore.toolsets.skills.diff import describe
from graphlore.toolsets.skills.evidence import floored
from graphlore.toolsets.skills.models import (
    ArchiveSkillResponse,
    CreateSkillResponse,
    ImportSkillsResponse,
    LibraryCalibration,
    ListSkillsResponse,
    RecordOutcomeResponse,
    ReindexSkillsResponse,
    SearchSkillsResponse,
    Skill,
    SkillHistoryResponse,
    UpdateSkillResponse,
)

#: Conditions listed under a playbook (an imported intent has 100 examples).
SHOWN_CONDITIONS = 5


def _conditions(conditions: list[str]) -> list[str]:
    lines = [f"- {c}" for c in conditions[:SHOWN_CONDITIONS]]
    if len(conditions) > SHOWN_CONDITIONS:
        lines.append(f"- ... and {len(conditions) - SHOWN_CONDITIONS} more")
    return ["Applies when:", *lines] if lines else []


def _evidence(r: SearchSkillsResponse) -> list[str]:
    """Why: the decision, then each candidate's rank, match, typical match and closest passage."""
    lines = [f"why: {r.evidence.decision} (score {floored(r.evidence.score, 2):.2f}, margin {r.evidence.margin:.3f})"]
    for c in r.evidence.candidates:
        closest = c.matched[0] if c.matched else None
        shown = f"; closest {closest.field} {closest.cosine:.2f} {closest.text!r}" if closest else ""
        failed = f"; failed on {c.failed_on!r}" if c.failed_on else ""
        lines.append(f"  {c.rank:.3f}  {c.title} ({c.skill_id}): match {c.match:.3f}, typical {c.typical:.3f}"
                     f"{shown}{failed}")
    return lines


def search_skills(r: SearchSkillsResponse) -> str:
    fallback = f" (the LLM could not decide: {r.judge.fallback})" if r.judge.fallback else ""
    timing = f"judge: {r.judge.kind}{fallback}, {r.search_time_ms:.1f} ms"
    if r.skill is None:
        return "\n".join([f"No skill solves this ({timing}): resolve it from scratch, then save what worked with "
                          "create_skill (CLI: graphlore skills create).", "", *_evidence(r)])
    s = r.skill
    flags = []
    if s.template:
        flags.append("TEMPLATE: an imported template; its procedure is still to be written (update_skill)")
    if s.low_confidence:
        flags.append(f"LOW CONFIDENCE ({s.confidence:.2f}): its outcomes were mostly failures; check each step")
    return "\n".join([f"SKILL {s.skill_id} ({timing})", *flags, "", s.resolution_md.rstrip(), "",
                      *_conditions(s.conditions), "", *_evidence(r), "",
                      "After using it: record_outcome with the query (CLI: graphlore skills outcome ID OUTCOME "
                      "--query TEXT); after deviating from it: update_skill."])


def skill(s: Skill) -> str:
    lines = [f"SKILL {s.skill_id}  version {s.version}  ({s.issue_type}, {s.product_area})",
             f"created {s.created_at}, updated {s.updated_at}" + (f", source {s.source}" if s.source else "")]
    if s.archived_at:
        lines.append(f"ARCHIVED since {s.archived_at}: search_skills never returns it (unarchive_skill brings it back)")
    lines.append(f"problem: {s.problem}")
    if s.keywords:
        lines.append(f"keywords: {', '.join(s.keywords)}")
    failed = [f"failed on: {q}" for q in s.negative_examples]
    return "\n".join([*lines, "", s.resolution_md.rstrip(), "", *_conditions(s.conditions), *failed]).rstrip()


def create_skill(r: CreateSkillResponse) -> str:
    head = (f"created: {r.title} ({r.skill_id})" if r.created else
            f"not created: a near-duplicate exists, {r.title} ({r.skill_id}); update it with update_skill instead")
    return "\n".join([head, *_warnings(r.warnings), "", skill(r.skill)])


def _warnings(warnings: list[str]) -> list[str]:
    return [f"warning: {w}" for w in warnings]


def update_skill(r: UpdateSkillResponse) -> str:
    if not r.changes:
        return f"unchanged: {r.title} ({r.skill_id}) stays at version {r.version}: the update changes nothing"
    return "\n".join([f"updated: {r.title} ({r.skill_id}) is now version {r.version}",
                      *(f"  {line}" for line in r.changes), *_warnings(r.warnings)])


def record_outcome(r: RecordOutcomeResponse) -> str:
    uses = "use" if r.times_used == 1 else "uses"
    line = (f"{r.skill_id}: {r.outcome}, confidence {r.previous_confidence:.2f} -> {r.confidence:.2f} "
            f"({r.times_used} {uses}, {r.times_confirmed} confirmed)")
    if r.learned is None:
        return line
    what = "routing example" if r.learned.kind == "example" else "negative example"
    done = "learned" if r.learned.added else "not learned"
    return f"{line}\n{what} {done} (version {r.learned.version}): {r.learned.reason}"


def list_skills(r: ListSkillsResponse) -> str:
    rows = [s.model_dump() | {"source": s.source or "", "archived": s.archived_at or ""} for s in r.skills]
    columns = ["skill_id", "version", "confidence", "times_used", "times_confirmed", "title", "source"]
    if any(s.archived_at for s in r.skills):
        columns.append("archived")
    body = table(rows, columns, {"skill_id": 36, "title": 50, "source": 40})
    return f"{body}\n\n{len(r.skills)} of {count(r.total, 'skill')}"


def skill_history(r: SkillHistoryResponse) -> str:
    """Versions and archive events in the order they happened."""
    lines = [f"SKILL {r.skill_id}: {count(len(r.versions), 'version')}"]
    events = list(r.events)
    for v in r.versions:
        lines.append(f"version {v.version}  {v.updated_at}  {v.title}")
        found = describe(v.changes) if v.changes is not None else []
        lines += [f"    {line}" for line in found] or (["    (first version)"] if v.version == 1 else [])
        while events and events[0].version == v.version:
            e = events.pop(0)
            lines.append(f"{e.event}  {e.at}" + (f"  ({e.reason})" if e.reason else "")
                         + (f"  {e.text!r}" if e.text else ""))
    return "\n".join(lines)


def archive_skill(r: ArchiveSkillResponse) -> str:
    state = (f"archived since {r.archived_at}: search_skills no longer returns it" if r.archived_at
             else "in use: search_skills may return it")
    return f"{r.title} ({r.skill_id}) is {state}" + ("" if r.changed else " (it already was: nothing changed)")


def import_skills(r: ImportSkillsResponse) -> str:
    archived = f", {r.archived} archived left as they are" if r.archived else ""
    lines = [f"imported {r.path} ({r.format}): {r.created} created, {r.updated} updated, {r.unchanged} unchanged"
             f"{archived}; {count(r.embedded_texts, 'text')} embedded"]
    flagged = {kind: n for kind, n in r.warnings.items() if n}
    if flagged:
        lines.append("playbook warnings: " + ", ".join(f"{kind} {n}" for kind, n in flagged.items()))
    for k in r.kept_edits:
        kept = f"kept the agent's {', '.join(k.kept)} (the file's change not applied)" if k.kept else ""
        merged = f"merged {', '.join(k.merged)} (the file's and the agent's items)" if k.merged else ""
        lines.append(f"  {k.source} ({k.skill_id}): edited since the last import; "
                     + "; ".join(x for x in (kept, merged) if x))
    lines.append(calibration(r.calibration))
    return "\n".join(lines)


def reindex_skills(r: ReindexSkillsResponse) -> str:
    return (f"library {r.library}: {count(r.skills, 'skill')} re-embedded ({count(r.embedded_texts, 'text')}) with "
            f"{r.embedder}\n{calibration(r.calibration)}")


def calibration(c: LibraryCalibration) -> str:
    """The library's own calibration of the judge, in a line."""
    if c.shift is not None:
        return f"the judge's calibration for this library: its own, the shipped bias shifted by {c.shift:+.2f} ({c.how})"
    return f"the judge's calibration for this library: the shipped bias ({c.how})"
