"""Helpers for the code toolset's tests: render a graph as sorted, readable lines to compare exactly.

(A plain module, not a conftest: its name must not clash with tests/conftest.py.)
"""

from __future__ import annotations

import os
from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "code"
EXPECTED = Path(__file__).resolve().parents[1] / "toolsets" / "code" / "expected"


def render(graph: CodeGraph) -> list[str]:
    """Every node, edge and unresolved call site as one line each (ids replaced by fqns), sorted."""
    nodes, edges = graph.snapshot()

    fqn_counts: dict[str, int] = {}
    for node in nodes.values():
        if node.kind == "symbol":
            fqn_counts[node.props["fqn"]] = fqn_counts.get(node.props["fqn"], 0) + 1

    def label(node_id: str) -> str:
        node = nodes.get(node_id)
        if node is None:
            return f"<missing {node_id}>"
        if node.kind == "microservice":
            return f"service:{node.name}"
        if node.kind == "module":
            return f"module:{node.props['path']}"
        if node.kind in ("route", "client", "producer"):
            return f"{node.kind}:{node.props['label']}"
        fqn = node.props["fqn"]
        if fqn_counts[fqn] > 1:   # a package (two services' global namespaces) has no line: its module tells
            return f"{fqn}@{node.props.get('line_start', node.props['module'])}"
        return fqn

    lines = []
    for node in nodes.values():
        p = node.props
        if node.kind == "microservice":
            declared = ",".join(f"{k}={v}" for k, v in sorted(p["declared_names"].items()))
            lines.append(f"S {node.name} root={p['root']} deployable={p['deployable']} declared={declared}")
        elif node.kind == "module":
            lines.append(f"M {p['path']} name={node.name} service={p['microservice']}")
        elif node.kind == "route":
            lines.append(f"R {p['label']} framework={p['framework']} handler={nodes[p['handler']].props['fqn']} "
                         f"service={p['microservice']} resolved={p['resolved']}")
        elif node.kind == "client":
            lines.append(f"C {p['label']} kind={p['client_kind']} from={p['declaring_fqn']} match={p['match']}"
                         + (f" why={p['match_detail']}" if p["match"] in ("unresolved", "no_route") else ""))
        elif node.kind == "producer":
            lines.append(f"P {p['label']} kind={p['producer_kind']} from={p['declaring_fqn']} match={p['match']}"
                         + (f" why={p['match_detail']}" if p["match"] == "unresolved" else ""))
        else:
            flag = " generated" if p["generated"] else ""
            lines.append(f"N {p['symbol_kind']} {label(node.id)} role={p['role']} caps={','.join(p['capabilities'])} "
                         f"service={p['microservice']} module={p['module']}{flag}")
            for site in p.get("unresolved_calls", []):
                lines.append(f"U {label(node.id)} calls {site['receiver'] + '.' if site['receiver'] else ''}{site['name']} "
                             f"line={site['line']} reason={site['reason']}")
    for edge in edges.values():
        extra = ""
        if edge.type == "CALLS":
            extra = f" [{edge.props['resolution']}]"
        elif edge.type == "INJECTS":
            extra = f" [{','.join(edge.props['via'])}:{','.join(edge.props['members'])}]"
        elif edge.type in ("HTTP_CALLS", "ASYNC_CALLS"):
            extra = f" [{edge.props['match']}]"
        lines.append(f"E {edge.type} {label(edge.src)} -> {label(edge.dst)}{extra}")
    return sorted(lines)


def edges_by_fqn(graph: CodeGraph, kind: str) -> dict[tuple[str, str], str]:
    """(source fqn, target fqn) -> resolution ("" for edges that have none) of every edge of one type."""
    nodes, edges = graph.snapshot()
    return {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"]): e.props.get("resolution", "")
            for e in edges.values() if e.type == kind}


def labels_by_declarer(root: Path, kind: str) -> dict[str, list[tuple[str, str]]]:
    """The tree's nodes of ``kind`` (client, producer...) as (label, match) pairs, sorted, by the fqn that declares
    them."""
    nodes, _ = CodeGraph.build(root).snapshot()
    out: dict[str, list[tuple[str, str]]] = {}
    for node in nodes.values():
        if node.kind == kind:
            out.setdefault(node.props["declaring_fqn"], []).append((node.props["label"], node.props["match"]))
    return {key: sorted(values) for key, values in out.items()}


def expected_lines(name: str) -> list[str]:
    text = (EXPECTED / name).read_text(encoding="utf-8")
    return sorted(line for line in text.splitlines() if line.strip() and not line.startswith("#"))


def edit(root: Path, rel: str, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` once in a file of the tree and move its mtime forward."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    bump(path)


def bump(path: Path) -> None:
    """Move a file's mtime forward (a write inside the same clock tick would not)."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
