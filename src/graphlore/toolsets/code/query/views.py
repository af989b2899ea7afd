"""What every code tool answers with: the index behind the answer (fresh, and how fresh), nodes as short
references, and a node's attributes as `describe` shows them."""

from __future__ import annotations

from collections import Counter
from typing import Any

from graphlore.runtime import Runtime
from graphlore.store import Node, Store

from ..index.code_index import CodeIndex, files_indexed
from .models import IndexStatus, NodeRef


def open_fresh(runtime: Runtime, project_path: str) -> tuple[CodeIndex, Store, IndexStatus]:
    """The project's index, built if missing and brought up to date (structure only) if files changed."""
    index = CodeIndex(runtime, project_path)
    store = index.ensure_fresh()
    return index, store, index_status(index, store, refreshed=index.refreshed)


def index_status(index: CodeIndex, store: Store | None, *, refreshed: bool = False, changed: int = 0) -> IndexStatus:
    if store is None:
        return IndexStatus(project_path=str(index.root), indexed_at=None, git_commit=None, files_indexed=0,
                           files_changed=changed, refreshed=False, embedded=0, embeddable=0, search_mode="bm25")
    meta = index.meta(store)
    embedding = meta.get("embedding") or {"done": 0, "total": 0}
    done, total = embedding["done"], embedding["total"]
    return IndexStatus(
        project_path=str(index.root),
        indexed_at=meta.get("last_indexed"),
        git_commit=meta.get("git_commit"),
        files_indexed=files_indexed(store, meta),
        files_changed=changed,
        refreshed=refreshed,
        embedded=done,
        embeddable=total,
        search_mode="hybrid" if total and done == total else "bm25",
    )


def node_ref(node: Node) -> NodeRef:
    p = node.props
    if node.kind == "symbol":
        return NodeRef(id=node.id, kind="symbol", name=node.name, label=p["fqn"], symbol_kind=p["symbol_kind"],
                       role=p.get("role"), microservice=p.get("microservice"), file=p.get("file") or None,
                       line=p.get("line_start") if p.get("file") else None)
    if node.kind == "microservice":
        return NodeRef(id=node.id, kind=node.kind, name=node.name, label=node.name, microservice=node.name)
    if node.kind == "module":
        return NodeRef(id=node.id, kind=node.kind, name=node.name, label=p["path"], microservice=p.get("microservice"))
    return NodeRef(id=node.id, kind=node.kind, name=node.name, label=p.get("label", node.name),
                   microservice=p.get("microservice"), file=p.get("file") or None, line=p.get("line"))


def refs(store: Store, ids: list[str]) -> dict[str, NodeRef]:
    """References of the given ids that exist, by id."""
    return {node.id: node_ref(node) for node in store.get_nodes(list(dict.fromkeys(ids)))}


def attributes(node: Node) -> dict[str, Any]:
    """Every stored attribute except the hidden filter helpers; unresolved call sites as counts by reason
    (neighbors with include_unresolved lists them)."""
    out = {k: v for k, v in node.props.items() if not k.startswith("_")}
    sites = out.pop("unresolved_calls", None)
    if sites:
        out["unresolved_calls"] = {"count": len(sites), "by_reason": dict(Counter(s["reason"] for s in sites))}
    return out
