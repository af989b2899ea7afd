"""What people read: the CLI prints these (over MCP the items tools answer with their JSON).

Every ``warnings`` field ends the text, one ``warning: ...`` line each, so a config file read
leniently (or not at all) is never silent on the command line either.
"""

from __future__ import annotations

import shlex

from graphlore.render import count, table
from graphlore.toolsets.items.models import (
    CheckDuplicatesResponse,
    GetIndexStatusResponse,
    GetSimilarResponse,
    IndexResponse,
    IndexStatusSummary,
    SearchResponse,
)


def search(r: SearchResponse) -> str:
    rows = [{**x.model_dump(), "keyword": "yes" if x.keyword_match else ""} for x in r.results]
    text = table(rows, ["item_id", "similarity_score", "keyword", "item_type", "status", "priority", "title"],
                 {"title": 60})
    text += (f"\n\n{count(r.total_results, 'result')}; index: {count(r.index_status.items_indexed, 'item')}, last indexed "
             f"{r.index_status.last_indexed}")
    return text + "".join(f"\n{note}" for note in search_notes(r, cli=True))


def _matches(n: int) -> str:
    return "match" if n == 1 else "matches"


def search_notes(r: SearchResponse, cli: bool) -> list[str]:
    """What a search left out and how to see it, in the caller's words (CLI flags or request fields)."""

    def option(field: str, value: object) -> str:
        if cli:
            flag = "--" + field.replace("_", "-")
            return flag if value is True else f"{flag} {value}"
        return f"{field}={'true' if value is True else value}"

    threshold = r.threshold_used
    notes = []
    if not r.results:
        notes.append(f"no result: no item holds the query's rare words and none reaches similarity {threshold:.2f}")
    if r.more_results:
        notes.append(f"{r.more_results} more {_matches(r.more_results)} past the limit: {option('limit', min(100, r.total_results + r.more_results))}")
    if r.retry_adds and r.retry_threshold is not None:
        notes.append(f"{r.retry_adds} more below threshold {threshold:.2f}: {option('threshold', f'{r.retry_threshold:.2f}')}")
    if r.completed_matches:
        notes.append(f"{r.completed_matches} {_matches(r.completed_matches)} in completed/: {option('include_completed', True)}")
    if r.index_status.partial:
        notes.append(_partial(r.index_status).strip())
    return notes


def index(r: IndexResponse) -> str:
    lines = [
        f"{r.status}: {count(r.items_indexed, 'item')} indexed, {r.items_updated} embedded, {r.items_removed} removed "
        f"in {r.duration_ms} ms",
        f"index: {r.index_location}",
    ]
    return "\n".join(lines) + _warnings(r.warnings)


def _partial(status: IndexStatusSummary) -> str:
    """One line when the answer comes from a partly embedded index."""
    if not status.partial:
        return ""
    return (f"\npartial: {status.embedded} of {status.total} {status.unit} embedded (continuing in the background); "
            "items not embedded yet are found by keywords and scored by their title and description")


def _warnings(warnings: list[str]) -> str:
    return "".join(f"\nwarning: {w}" for w in warnings)


def check_duplicates(r: CheckDuplicatesResponse) -> str:
    return table(
        [x.model_dump() for x in r.potential_duplicates],
        ["item_id", "similarity_score", "recommendation", "status", "title"], {"title": 60},
    ) + (f"\n\nthreshold {r.threshold_used:.2f}; likely duplicates: {'yes' if r.has_likely_duplicates else 'no'}"
         + _partial(r.index_status) + _warnings(r.warnings))


def get_similar(r: GetSimilarResponse) -> str:
    return f"{r.source_item.item_id}: {r.source_item.title}\n\n" + table(
        [x.model_dump() for x in r.similar_items],
        ["item_id", "similarity_score", "relationship", "status", "title"], {"title": 60},
    ) + ("\n" if r.warnings or r.index_status.partial else "") + _partial(r.index_status) + _warnings(r.warnings)


def get_index_status(r: GetIndexStatusResponse) -> str:
    lines = [
        f"project: {r.project_path}",
        f"index: {r.index_location} ({'exists' if r.exists else 'missing'}, {r.index_size_bytes} bytes)",
        f"items indexed: {r.items_indexed}; last indexed: {r.last_indexed}",
        *([f"partial: {r.items_embedded} of {r.items_indexed} items embedded ({r.passages_embedded} of "
           f"{r.passages_total} passages); run `graphlore items index -p {shlex.quote(r.project_path)}` to finish"]
          if r.partial else []),
        f"stale: {'yes' if r.is_stale else 'no'} ({count(len(r.stale_files), 'file')} changed)",
    ]
    lines += [f"  {p}" for p in r.stale_files[:20]]
    if len(r.stale_files) > 20:
        lines.append(f"  ... and {len(r.stale_files) - 20} more")
    return "\n".join(lines) + _warnings(r.warnings)
