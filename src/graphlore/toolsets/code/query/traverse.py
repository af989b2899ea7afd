"""Following edges: a node's members, its edge summary, and `neighbors` over the closed set of edge keys.

Every read is an :meth:`Store.edges_of` selection (one node set, one direction, one stored type), counted
before it is cut, so totals and pages agree whatever the keys asked for.
"""

from __future__ import annotations

from graphlore.errors import NotFound
from graphlore.store import Node, Store

from ..model import EDGE_TYPES
from .edge_keys import Selection, selection
from .models import IndexStatus, Neighbor, NeighborsRequest, NeighborsResponse, UnresolvedCall
from .views import node_ref, refs


def get_node(store: Store, node_id: str) -> Node:
    found = store.get_nodes([node_id])
    if not found:
        raise NotFound(f"no node with id {node_id!r} in this index; ids come from find, search, resolve or "
                       "neighbors (resolve turns a name or fqn into an id)")
    return found[0]


def members(store: Store, node_id: str) -> list[str]:
    """Everything ``node_id`` declares, at any depth (its DECLARES closure), in breadth-first order."""
    seen = {node_id}
    out: list[str] = []
    frontier = [node_id]
    while frontier:
        page = store.edges_of(frontier, direction="out", types=["DECLARES"])
        frontier = [e.dst for e in page.edges if e.dst not in seen]
        frontier = list(dict.fromkeys(frontier))
        seen.update(frontier)
        out += frontier
    return out


def edge_summary(store: Store, node_id: str, member_ids: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for direction in ("out", "in"):
        for type_, count in store.edges_of([node_id], direction=direction, limit=0).counts.items():
            out[f"{type_} {direction}"] = count
    if member_ids:
        for direction in ("out", "in"):
            for type_, count in store.edges_of(member_ids, direction=direction, limit=0).counts.items():
                out[f"{type_} {direction} (via members)"] = count
    return dict(sorted(out.items()))


def neighbors(store: Store, request: NeighborsRequest, status: IndexStatus) -> NeighborsResponse:
    """The page of edges the request asks for."""
    node = get_node(store, request.id)
    keys = list(request.edge_types or EDGE_TYPES)
    selections: list[Selection] = []
    seen = set()
    for key in keys:
        sel = selection(key, request.direction)
        if (sel.stored, sel.direction, sel.members) not in seen:
            seen.add((sel.stored, sel.direction, sel.members))
            selections.append(sel)
    member_ids = members(store, node.id) if any(s.members for s in selections) else []

    def ids_of(sel: Selection) -> list[str]:
        return member_ids if sel.members else [node.id]

    totals = [store.edges_of(ids_of(s), direction=s.direction, types=[s.stored], limit=0).total for s in selections]
    picked = []  # (selection, edge)
    skip, room = request.offset, request.limit
    for sel, total in zip(selections, totals, strict=True):
        if room <= 0:
            break
        if skip >= total:
            skip -= total
            continue
        page = store.edges_of(ids_of(sel), direction=sel.direction, types=[sel.stored], limit=room, offset=skip)
        picked += [(sel, edge) for edge in page.edges]
        room -= len(page.edges)
        skip = 0

    member_set = set(member_ids)
    ends = []
    for sel, edge in picked:
        inside = member_set if sel.members else {node.id}
        outward = edge.src in inside
        ends.append((edge.dst if outward else edge.src, edge.src if outward else edge.dst, outward))
    known = refs(store, [other for other, _, _ in ends] + [mine for _, mine, _ in ends])
    result = []
    for (sel, edge), (other, mine, outward) in zip(picked, ends, strict=True):
        if other not in known:
            continue  # an edge into a node another update removed meanwhile
        result.append(Neighbor(edge_key=sel.key, edge_type=edge.type, direction="out" if outward else "in",
                               node=known[other], via=known.get(mine) if sel.members else None, props=edge.props))
    total = sum(totals)
    response = NeighborsResponse(
        node=node_ref(node), edge_types=keys, direction=request.direction, total=total, offset=request.offset,
        limit=request.limit, has_more=request.offset + len(picked) < total,
        counts={sel.key: count for sel, count in zip(selections, totals, strict=True)},
        neighbors=result, index_status=status)
    if request.include_unresolved:
        response.unresolved, response.unresolved_total = unresolved_sites(store, node, selections, member_ids,
                                                                          request.limit)
    if total == 0 or request.offset >= total:
        response.note = _why_no_edges(store, node, keys, request, total)
    return response


def unresolved_sites(store: Store, node: Node, selections: list[Selection], member_ids: list[str],
                     limit: int) -> tuple[list[UnresolvedCall], int]:
    """Call sites no CALLS edge stands for, of the node (CALLS out) and of its members (DECLARES.CALLS out)."""
    owners: list[Node] = []
    if any(s.stored == "CALLS" and s.direction in ("out", "both") and not s.members for s in selections):
        owners.append(node)
    if any(s.stored == "CALLS" and s.direction in ("out", "both") and s.members for s in selections):
        owners += store.get_nodes(member_ids)
    sites = [UnresolvedCall(owner=owner.id, name=s["name"], receiver=s.get("receiver", ""), line=s["line"],
                            reason=s["reason"], detail=s.get("detail"), candidates=s.get("candidates"))
             for owner in owners for s in owner.props.get("unresolved_calls", [])]
    return sites[:limit], len(sites)


def _why_no_edges(store: Store, node: Node, keys: list[str], request: NeighborsRequest, total: int) -> str:
    if total and request.offset >= total:
        return f"offset {request.offset} is past the end: {total} edges match"
    have = edge_summary(store, node.id, [])
    listed = ", ".join(f"{k} {v}" for k, v in have.items()) or "none at all"
    return (f"{node_ref(node).label} has no {', '.join(keys)} edges in direction {request.direction}; "
            f"its edges: {listed}")

