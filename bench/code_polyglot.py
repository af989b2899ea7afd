"""Code toolset on a polyglot gRPC system: microservices-demo against its hand-made answer key.

The answer key (``bench/data/code_gold/microservices-demo.json``, schema in its README) was written by hand from
the source by someone who had not seen the tool. It is read as it is, with its matching rules:

* service: a deployable microservice the tool reports matches a key service by any of its names
  (case-insensitive) or by its root folder; the tool's non-deployable microservices (libraries, test
  projects, the root's loose files) are listed apart;
* gRPC route: same service and the same ``package.Service/Method``;
* gRPC client: same file, a line within the key's span, the same method;
* gRPC link: a ``GRPC_CALLS`` edge from a matched client to a matched route that the key links.

``required: false`` entries count neither way (finding one is no false positive, missing one no miss);
anything else found is a false positive. Printed per class: expected (required), found, true and false
positives, misses, precision and recall, with every false positive and miss named. Then whether the service
map (Mermaid, through the store) draws the frontend calling each backend, and the time to index the whole
repository (structure only, through the store, as ``graphlore code index --no-embed``), best and median of
``--repeat`` runs.

Run: ``python bench/code_polyglot.py [--repeat 5]``. Wall-clock on a shared 2-core machine: noisy.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from graphlore.config import Settings
from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.code_index import CodeIndex
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.query import models, tools

REPO = Path(__file__).resolve().parents[1]
SYSTEM = REPO.parent / "shared" / "data" / "code" / "microservices-demo"
GOLD = REPO / "bench" / "data" / "code_gold" / "microservices-demo.json"


def score(name: str, found: list[tuple[str, str | None]], gold: dict[str, bool]) -> None:
    """``found``: (what was found, the key entry it matched or None); ``gold``: key entry -> required."""
    matched = {entry for _, entry in found if entry is not None}
    tp = len({entry for entry in matched if gold.get(entry)})
    fps = [what for what, entry in found if entry is None]
    misses = sorted(entry for entry, required in gold.items() if required and entry not in matched)
    expected = sum(gold.values())
    precision = tp / (tp + len(fps)) if tp + len(fps) else 1.0
    recall = tp / expected if expected else 1.0
    print(f"  {name:14s} expected {expected:3d}  found {len(found):3d}  tp {tp:3d}  fp {len(fps):3d}  "
          f"fn {len(misses):3d}  precision {precision:.3f}  recall {recall:.3f}")
    for what in fps:
        print(f"    false positive: {what}")
    for entry in misses:
        print(f"    missed: {entry}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not SYSTEM.is_dir():
        print(f"microservices-demo not found at {SYSTEM}: nothing measured")
        return
    key = json.loads(GOLD.read_text(encoding="utf-8"))
    graph = CodeGraph.build(SYSTEM)
    nodes, edges = graph.snapshot()

    names: dict[str, str] = {}
    for service in key["services"]:
        for alias in [service["name"], *(n["name"] for n in service["names"])]:
            names.setdefault(alias.lower(), service["name"])
    roots = {service["root"]: service["name"] for service in key["services"]}

    def gold_service(node) -> str | None:
        return roots.get(node.props["root"]) or names.get(node.name.lower())

    services = {n.name: n for n in nodes.values() if n.kind == "microservice"}
    service_of = {name: gold_service(node) for name, node in services.items()}
    print(f"== microservices-demo ({SYSTEM})")
    score("services", [(f"{name} ({node.props['root']})", service_of[name]) for name, node in sorted(services.items())
                       if node.props["deployable"]],
          {s["name"]: s["required"] for s in key["services"]})
    apart = sorted(f"{name} ({node.props['root']}, {node.props['files']} files)" for name, node in services.items()
                   if not node.props["deployable"])
    print(f"    not deployable (listed apart): {', '.join(apart) or 'none'}")

    gold_routes = {(r["service"], r["grpc"]): r for r in key["routes"] if r["kind"] == "grpc"}
    route_of: dict[str, str | None] = {}
    found_routes = []
    for node in nodes.values():
        if node.kind == "route" and node.props.get("grpc"):
            entry = gold_routes.get((service_of.get(node.props["microservice"]), node.props["grpc"]))
            route_of[node.id] = entry["id"] if entry else None
            found_routes.append((f"{node.props['microservice']} {node.props['grpc']}", route_of[node.id]))
    score("gRPC routes", found_routes, {r["id"]: r["required"] for r in gold_routes.values()})

    gold_clients = [c for c in key["clients"] if c["kind"] == "grpc"]
    client_of: dict[str, str | None] = {}
    found_clients = []
    for node in nodes.values():
        if node.kind == "client" and node.props.get("grpc"):
            p = node.props
            entry = next((c for c in gold_clients if c["file"] == p["file"] and c["span"][0] <= p["line"] <= c["span"][1]
                          and c["grpc"] == p["grpc"]), None)
            client_of[node.id] = entry["id"] if entry else None
            found_clients.append((f"{p['file']}:{p['line']} {p['grpc']}", client_of[node.id]))
    score("gRPC clients", found_clients, {c["id"]: c["required"] for c in gold_clients})

    gold_links = {(link["from"], link["to"]): link for link in key["links"] if link["via"] == "grpc"}
    found_links = []
    for edge in edges.values():
        if edge.type == "GRPC_CALLS":
            pair = (client_of.get(edge.src), route_of.get(edge.dst))
            link = gold_links.get(pair) if None not in pair else None
            found_links.append((f"{nodes[edge.src].props['file']}:{nodes[edge.src].props['line']} -> "
                                f"{nodes[edge.dst].props['label']} [{edge.props['match']}]",
                                link["id"] if link else None))
    score("gRPC links", found_links, {link["id"]: link["required"] for link in gold_links.values()})

    times = []
    for run in range(args.repeat):
        with tempfile.TemporaryDirectory() as home:
            runtime = Runtime(Settings(home=Path(home)))
            start = time.perf_counter()
            CodeIndex(runtime, SYSTEM).sync()
            times.append(time.perf_counter() - start)
            if run == 0:
                frontend = next(n for n in services if service_of[n] == "frontend")
                drawn = tools.service_map(runtime, models.ServiceMapRequest(
                    project_path=str(SYSTEM), microservice=frontend, depth=1))
                called = sorted({service_of.get(link.target) for link in drawn.links
                                 if link.source == frontend and link.match == "cross_service"} - {None})
            runtime.close()
    backends = sorted({key_client["target_service"] for key_client in key["clients"]
                       if key_client["service"] == "frontend" and key_client["required"] and key_client["kind"] == "grpc"})
    print(f"  service map: the frontend draws an arrow to {', '.join(called)}; "
          f"backends it calls over gRPC by the key: {', '.join(backends)}; all drawn: {set(backends) <= set(called)}")
    print(f"  full index (structure, through the store): best {min(times):.2f}s, median "
          f"{statistics.median(times):.2f}s of {args.repeat} ({len(graph.facts)} files)")


if __name__ == "__main__":
    main()
