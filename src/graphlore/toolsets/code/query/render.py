"""What the code tools read like as text: the CLI prints it, and it is the MCP text block (the structured
result goes alongside). Every rendering carries the ids an agent needs for the next call and ends with
the index status line."""

from __future__ import annotations

import json
import shlex

from graphlore.render import table

from .models import (
    DescribeResponse,
    FindResponse,
    Hop,
    ImpactResponse,
    IndexResponse,
    IndexStatus,
    NeighborsResponse,
    NodeRef,
    PathsResponse,
    ResolveResponse,
    SearchResponse,
    ServiceMapResponse,
    StatusResponse,
)


def status_line(s: IndexStatus) -> str:
    commit = f" at {s.git_commit[:12]}" if s.git_commit else ""
    fresh = "refreshed now" if s.refreshed else (f"{s.files_changed} files changed since" if s.files_changed
                                                 else "up to date")
    return (f"[index: {s.files_indexed} files, indexed {s.indexed_at or 'never'}{commit}, {fresh}; embeddings "
            f"{s.embedded}/{s.embeddable}, search {s.search_mode}]")


def _where(ref: NodeRef) -> str:
    return f"{ref.file}:{ref.line}" if ref.file and ref.line else (ref.file or "")


def _rows(refs: list[NodeRef]) -> list[dict]:
    return [{"id": r.id, "kind": r.symbol_kind or r.kind, "label": r.label, "role": r.role or "",
             "microservice": r.microservice or "", "where": _where(r)} for r in refs]


def _note(note: str | None) -> str:
    return f"\nnote: {note}" if note else ""


def find(r: FindResponse) -> str:
    head = f"{r.total} {r.kind} node(s) match {json.dumps(r.filter)}"
    if r.results:
        head += f"; showing {r.offset + 1}-{r.offset + len(r.results)}" + (" (more: raise offset)" if r.has_more else "")
    return "\n".join([head, table(_rows(r.results), ["id", "kind", "label", "role", "microservice", "where"],
                                  {"label": 80, "where": 60}) + _note(r.note), status_line(r.index_status)])


def describe(r: DescribeResponse) -> str:
    lines = [f"{r.node.kind} {r.node.label}  (id {r.node.id})"]
    for key, value in r.attributes.items():
        if value in (None, "", [], {}):
            continue
        lines.append(f"  {key}: {value if isinstance(value, str | int | float | bool) else json.dumps(value)}")
    lines.append(f"edges ({r.members} members):" if r.members else "edges:")
    lines += [f"  {key}: {count}" for key, count in r.edge_summary.items()] or ["  none"]
    if r.source is not None:
        lines.append(f"source {r.source.file}:{r.source.first_line}-{r.source.last_line}"
                     + (" (truncated)" if r.source.truncated else "") + ":")
        lines.append(r.source.text)
    lines.append(status_line(r.index_status))
    return "\n".join(lines)


def _hop_line(hop: Hop) -> str:
    detail = _edge_detail(hop.props)
    return (f"  -{hop.edge}-> {hop.target.label}  [{hop.target.symbol_kind or hop.target.kind}, "
            f"{hop.target.microservice or '?'}] {_where(hop.target)}  (id {hop.target.id})"
            + (f"  {detail}" if detail else ""))


def paths(r: PathsResponse) -> str:
    head = (f"{len(r.paths)} path(s) from {r.source.label} to {r.target.label} within {r.max_depth} hops (calls)"
            + (" (more: raise limit)" if r.has_more else ""))
    lines = [head]
    for number, path in enumerate(r.paths, 1):
        lines.append(f"path {number} ({path.length} edges): {path.hops[0].source.label}  (id {path.hops[0].source.id})")
        lines += [_hop_line(hop) for hop in path.hops]
    return "\n".join(lines) + _note(r.note) + "\n" + status_line(r.index_status)


def impact(r: ImpactResponse) -> str:
    what = "reach" if r.direction == "in" else "are reached from"
    tests = f" ({r.tests_left_out} test symbol(s) left out)" if r.tests_left_out else ""
    lines = [f"{r.total} node(s) {what} {r.node.label} within {r.depth} hops{tests}; by depth "
             + ", ".join(f"{d}: {n}" for d, n in r.by_depth.items()),
             "by microservice: " + "; ".join(f"{svc} " + ", ".join(f"{n} {k}" for k, n in kinds.items())
                                        for svc, kinds in r.by_service.items())]
    rows = [{**_rows([hit.node])[0], "depth": hit.depth,
             "via": " -> ".join([hit.path[0].source.name] + [f"{h.edge} {h.target.name}" for h in hit.path])}
            for hit in r.results]
    lines.append(table(rows, ["depth", "id", "kind", "label", "microservice", "where", "via"],
                       {"label": 70, "where": 50, "via": 80}))
    if r.has_more:
        lines.append(f"more: offset {r.offset + len(r.results)} of {r.total}")
    if r.consumers:
        lines.append(f"consumers of what it sends ({len(r.consumers)}; not callers, they break when the message "
                     "changes): " + ", ".join(f"{c.node.label} ({c.node.microservice})" for c in r.consumers))
    return "\n".join(lines) + _note(r.note) + "\n" + status_line(r.index_status)


def neighbors(r: NeighborsResponse) -> str:
    head = (f"{r.total} edge(s) {r.direction} of {r.node.label} ({', '.join(f'{k} {v}' for k, v in r.counts.items())})")
    rows = [{"key": n.edge_key, "dir": n.direction, "id": n.node.id, "label": n.node.label,
             "via": n.via.label if n.via else "", "detail": _edge_detail(n.props)} for n in r.neighbors]
    columns = ["key", "dir", "id", "label"] + (["via"] if any(row["via"] for row in rows) else []) + ["detail"]
    parts = [head, table(rows, columns, {"label": 80, "via": 60, "detail": 50})]
    if r.has_more:
        parts.append(f"more: offset {r.offset + len(r.neighbors)} of {r.total}")
    if r.unresolved_total:
        parts.append(f"unresolved call sites: {r.unresolved_total}")
        parts += [f"  line {u.line}: {u.receiver + '.' if u.receiver else ''}{u.name}  [{u.reason}]"
                  f"{' ' + u.detail if u.detail else ''}" for u in r.unresolved]
    return "\n".join(parts) + _note(r.note) + "\n" + status_line(r.index_status)


def _edge_detail(props: dict) -> str:
    if "resolution" in props:
        return f"{props['resolution']} {props['confidence']:g} lines {','.join(map(str, props.get('lines', [])))}"
    if "via" in props:
        return f"via {','.join(props['via'])}"
    if "match" in props:
        return str(props["match"])
    return ""


def search(r: SearchResponse) -> str:
    rows = [{**_rows([h.node])[0], "score": h.score} for h in r.results]
    head = f"{len(r.results)} result(s) for {r.query!r}, ranked {r.ranking}"
    return "\n".join([head, table(rows, ["score", "id", "kind", "label", "microservice", "where"],
                                  {"label": 80, "where": 60}) + _note(r.note), status_line(r.index_status)])


def resolve(r: ResolveResponse) -> str:
    if r.status == "one":
        assert r.node is not None
        lines = [f"one: {r.node.label}  (id {r.node.id}, {r.reason})"]
    elif r.status == "many":
        lines = [f"many: {r.total_candidates} candidates ({r.candidates[0].reason}); pick one by id"]
        lines += [f"  {c.node.id}  {c.node.label}  [{c.node.symbol_kind or c.node.kind}] {_where(c.node)}"
                  for c in r.candidates]
    else:
        lines = [f"none: {r.why}", "closest: " + (", ".join(r.closest) or "nothing close")]
    if r.weaker_matches:
        lines.append("weaker matches: " + ", ".join(f"{c.node.label} ({c.reason})" for c in r.weaker_matches))
    return "\n".join(lines + [status_line(r.index_status)])


def service_map(r: ServiceMapResponse) -> str:
    comment = "%%" if r.format == "mermaid" else "//"
    return f"{r.diagram}\n{comment} {status_line(r.index_status)}"


def status(r: StatusResponse) -> str:
    if not r.exists:
        return (f"not indexed ({len(r.stale_files)}+ files to index); run: graphlore code index -p "
                f"{shlex.quote(r.index_status.project_path)}")
    lines = [f"index of {r.index_status.project_path}: {r.index_size_bytes / 1e6:.1f} MB at {r.index_location}",
             "nodes: " + ", ".join(f"{k} {v}" for k, v in r.nodes.items()),
             "edges: " + ", ".join(f"{k} {v}" for k, v in r.edges.items()),
             table([s.model_dump() | {"modules": len(s.modules), "declared_names": json.dumps(s.declared_names)}
                    for s in r.microservices], ["name", "deployable", "files", "modules", "root", "declared_names"],
                   {"declared_names": 70})]
    if r.stale_files:
        lines.append("changed since: " + ", ".join(r.stale_files[:10]) + (" ..." if len(r.stale_files) > 10 else ""))
    return "\n".join(lines + [status_line(r.index_status)])


def index(r: IndexResponse) -> str:
    return "\n".join([
        f"{r.status}: {r.files} files ({r.parsed} parsed, {r.resolved} resolved, {r.removed} removed) in "
        f"{r.structural_ms} ms; nodes {r.nodes} (+{r.nodes_written} written, -{r.nodes_deleted}), edges {r.edges} "
        f"(+{r.edges_written}, -{r.edges_deleted})",
        (f"embedded {r.embedded_now} now in {r.embedding_ms} ms; " if r.embed else "embeddings: ")
        + f"{r.index_status.embedded}/{r.index_status.embeddable} done",
        f"index: {r.index_location}",
        *(f"unreadable (nothing read from it): {line}" for line in r.unreadable_files),
    ]) + _note(r.note)
