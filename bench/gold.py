"""The hand-made answer keys (``bench/data/code_gold/<system>.json``) read with their own matching rules, for the
benchmarks that score the code toolset on real systems (``code_services.py``, ``code_polyglot.py``,
``code_questions.py``).

The keys were written by hand from the source by someone who had not seen the tool; their README
(``bench/data/code_gold/README.md``) states the rules applied here:

* service: a tool microservice matches a key service by its root folder, else by any of its names
  (case-insensitive); a name two key services share matches neither;
* HTTP route: same service, the method in ``accept_methods`` (or equal; ``ANY`` matches every method), the path
  equal after normalising parameter names (``{x}``, ``:x``, ``<x>``) and a trailing ``/``, or listed in
  ``accept_paths``; a route the tool splits per method counts once;
* gRPC route: same service and ``package.Service/Method``;
* client: same file, a line within the key's ``span``, the same method (HTTP) or ``grpc``;
* message producer / consumer (keys that list them): same file, a line within the key's ``span``;
* link: a matched client (or gateway route, or producer) and a matched route (or consumer) that the key links.

``required: false`` entries count neither way; anything else found is a false positive.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from graphlore.toolsets.code.model import GraphEdge, GraphNode

REPO = Path(__file__).resolve().parents[1]
GOLD = REPO / "bench" / "data" / "code_gold"
DATA = REPO.parent / "shared" / "data" / "code"
SYSTEMS = ("piggymetrics", "microservices-demo", "cypress-realworld-app")


def system_dir(text: str) -> tuple[str, Path]:
    """``NAME=PATH`` from the command line (``--system-dir``): a system whose source is not under
    ``../shared/data/code`` (a read-only checkout elsewhere), keyed by ``code_gold/NAME.json``."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=PATH (e.g. robot-shop=/tmp/robot-shop), got {text!r}")
    if not (GOLD / f"{name}.json").is_file():
        keys = sorted(p.stem for p in GOLD.glob("*.json"))
        raise argparse.ArgumentTypeError(f"no answer key bench/data/code_gold/{name}.json (keys: {', '.join(keys)})")
    return name, Path(path).expanduser()


def add_system_dirs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--system-dir", type=system_dir, action="append", default=[], metavar="NAME=PATH",
                        help="also measure the system NAME (its key bench/data/code_gold/NAME.json) from a "
                             "checkout at PATH, skipped when PATH is absent; may be given more than once")


def roots(extra: list[tuple[str, Path]]) -> dict[str, Path]:
    """Every system to measure and where its source is: the shared three, then those given on the command line
    (a later NAME=PATH replaces the place of a system of the same name)."""
    return {**{system: DATA / system for system in SYSTEMS}, **dict(extra)}


def load(system: str) -> dict:
    return json.loads((GOLD / f"{system}.json").read_text(encoding="utf-8"))


def norm_path(path: str) -> str:
    """Parameter names dropped (``{x}``, ``:x``, ``<x>`` -> ``{}``), one leading ``/``, no trailing ``/``."""
    path = re.sub(r"<(?:[a-z_]+:)?[A-Za-z_]\w*>", "{}", path.strip())
    path = re.sub(r"(?<=/):[A-Za-z_]\w*", "{}", path)
    path = re.sub(r"\{[A-Za-z_][\w.-]*(?::[^{}]*)?\}", "{}", path)
    path = re.sub(r"/{2,}", "/", "/" + path)
    return path.rstrip("/") or "/"


@dataclass
class Score:
    """True positives (key ids), false positives (what was found), misses (key ids)."""

    name: str
    expected: int
    found: int = 0
    tp: set[str] = field(default_factory=set)
    fps: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return len(self.tp) / (len(self.tp) + len(self.fps)) if self.tp or self.fps else 1.0

    @property
    def recall(self) -> float:
        return len(self.tp) / self.expected if self.expected else 1.0

    def line(self) -> str:
        return (f"  {self.name:14s} expected {self.expected:3d}  found {self.found:3d}  tp {len(self.tp):3d}  "
                f"fp {len(self.fps):3d}  fn {len(self.misses):3d}  precision {self.precision:.3f}  "
                f"recall {self.recall:.3f}")


def score(name: str, found: list[tuple[str, str | None]], gold: dict[str, bool]) -> Score:
    """``found``: (what was found, the key entry it matched or None); ``gold``: key entry -> required."""
    matched = {entry for _, entry in found if entry is not None}
    result = Score(name, sum(gold.values()), len(found))
    result.tp = {entry for entry in matched if gold.get(entry)}
    result.fps = [what for what, entry in found if entry is None]
    result.misses = sorted(entry for entry, required in gold.items() if required and entry not in matched)
    return result


def _at(place: dict, props: dict) -> bool:
    """Whether a node's file and line are a key place's (``span`` [first, last], else ``line``)."""
    if place.get("file") != props["file"]:
        return False
    span = place.get("span") or [place.get("line"), place.get("line")]
    return span[0] is not None and span[0] <= props["line"] <= span[1]


def _topics(entry: dict) -> set[str]:
    """The topics (as the tool writes them: ``exchange/key``, a queue, Dapr's ``pubsub/topic``) a key producer or
    consumer stands for."""
    out = {entry["queue"]} if entry.get("queue") else set()
    if entry.get("pubsub") and entry.get("topic"):
        out.add(f"{entry['pubsub']}/{entry['topic']}")
    for exchange, key in [(entry.get("exchange"), entry.get("routing_key")),
                          ((entry.get("binding") or {}).get("exchange"), (entry.get("binding") or {}).get("routing_key"))]:
        if key is not None:
            out.add(key if not exchange else f"{exchange}/{key}")
    return out


class Matcher:
    """One system's key and one graph of it: which tool node is which key entry."""

    def __init__(self, key: dict, nodes: dict[str, GraphNode], edges: dict[str, GraphEdge]):
        self.key = key
        self.nodes = nodes
        self.edges = edges
        names: dict[str, set[str]] = {}
        for service in key["services"]:
            for alias in [service["name"], *(n["name"] for n in service["names"])]:
                names.setdefault(alias.lower(), set()).add(service["name"])
        self._names = {alias: next(iter(found)) for alias, found in names.items() if len(found) == 1}
        self._roots = {service["root"]: service["name"] for service in key["services"]}
        self.service_of = {n.name: self.gold_service(n) for n in nodes.values() if n.kind == "microservice"}
        self.routes = {node_id: self.route_entry(node) for node_id, node in nodes.items() if node.kind == "route"}
        self.clients = {node_id: self.client_entry(node) for node_id, node in nodes.items() if node.kind == "client"}
        self.producers = {node_id: self.message_entry(node, "producers") for node_id, node in nodes.items()
                          if node.kind == "producer"}

    def gold_service(self, node: GraphNode) -> str | None:
        found = self._roots.get(node.props["root"]) or self._names.get(node.name.lower())
        if found is None:
            for alias in node.props.get("aliases", []):
                found = self._names.get(str(alias).lower())
                if found:
                    break
        return found

    def message_entry(self, node: GraphNode, kind: str) -> str | None:
        """The key's producer or consumer (``kind``) at the node's file and line (keys that list them), else the one
        whose ``also_accept`` lists that place: a place several entries accept (a shared send or consume site) is the
        entry whose exchange and key (producers) or queue or binding (consumers) the node's topic names, else none."""
        p = node.props
        entries = self.key.get(kind, [])
        found = [entry for entry in entries if _at(entry, p)]
        if found:
            # one call publishing one of several events: the entry of the node's topic (its routing key or queue)
            named = [e for e in found if p.get("topic") in (e.get("routing_key"), e.get("queue"), e.get("topic"),
                                                              (e.get("binding") or {}).get("routing_key"))
                     or p.get("topic") in _topics(e)]
            return (named or found)[0]["id"]
        accepted = [entry for entry in entries if any(_at(place, p) for place in entry.get("also_accept", ()))]
        if len(accepted) > 1:
            accepted = [entry for entry in accepted if p.get("topic") in _topics(entry)]
        return accepted[0]["id"] if len(accepted) == 1 else None

    def route_entry(self, node: GraphNode) -> str | None:
        p = node.props
        if p.get("broker"):
            return self.message_entry(node, "consumers")
        service = self.service_of.get(p["microservice"])
        found = []
        for route in self.key["routes"]:
            if route["service"] != service:
                continue
            if route["kind"] == "grpc":
                if p.get("grpc") == route["grpc"]:
                    return route["id"]
                continue
            if p.get("grpc") or p.get("path_template") is None or route["kind"] != "http":
                continue
            methods = route.get("accept_methods") or [route["method"]]
            if not (p["http_method"] in methods or "ANY" in methods or route["method"] == "ANY"):
                continue
            paths = {norm_path(route["path"]), *(norm_path(a) for a in route.get("accept_paths") or [])}
            if norm_path(p["path_template"]) in paths:
                found.append(route)
        # one path mapped twice (two API versions): the entry of the node's own handler first
        own = [r for r in found if (r.get("handler") or {}).get("symbol") and
               str(p.get("handler_fqn") or "").endswith("." + r["handler"]["symbol"])]
        return (own or found or [{"id": None}])[0]["id"]

    def client_entry(self, node: GraphNode) -> str | None:
        p = node.props
        # the narrowest span first (a redeclared method's span lies inside its interface's), then the entry of the
        # same path (an interface's inherited methods share its span)
        path = norm_path(str(p.get("target_path_template") or ""))
        for client in sorted(self.key["clients"], key=lambda c: (c["span"][1] - c["span"][0],
                                                                norm_path(str(c.get("path") or "")) != path)):
            if client["file"] != p["file"] or not client["span"][0] <= p["line"] <= client["span"][1]:
                continue
            if client["kind"] == "grpc":
                if p.get("grpc") == client["grpc"]:
                    return client["id"]
            elif not p.get("grpc") and (p.get("http_method") == client.get("method") or client.get("method") == "ANY"):
                return client["id"]
        return None

    # -- scores ---------------------------------------------------------------------------------------------

    def services(self) -> tuple[Score, list[str]]:
        found, apart = [], []
        for node in sorted((n for n in self.nodes.values() if n.kind == "microservice"), key=lambda n: n.name):
            if node.props["deployable"]:
                found.append((f"{node.name} ({node.props['root']})", self.service_of[node.name]))
            else:
                apart.append(f"{node.name} ({node.props['root']}, {node.props['files']} files)")
        return score("services", found, {s["name"]: s["required"] for s in self.key["services"]}), apart

    def http_routes(self) -> Score:
        found = [(f"{n.props['microservice']} {n.props['label']}", self.routes[n.id]) for n in self.nodes.values()
                 if n.kind == "route" and not n.props.get("grpc") and n.props.get("broker") is None]
        gold = {r["id"]: r["required"] for r in self.key["routes"] if r["kind"] == "http"}
        return score("HTTP routes", found, gold)

    def http_clients(self) -> Score:
        found = [(f"{n.props['file']}:{n.props['line']} {n.props['label']} [{n.props.get('match')}]",
                  self.clients[n.id]) for n in self.nodes.values() if n.kind == "client" and not n.props.get("grpc")]
        gold = {c["id"]: c["required"] for c in self.key["clients"] if c["kind"] == "http"}
        return score("HTTP clients", found, gold)

    def links(self, types: tuple[str, ...] = ("HTTP_CALLS", "ASYNC_CALLS"), counted_in: str = "issue22") -> Score:
        gold = {(link["from"], link["to"]): link for link in self.key["links"] if link["counted_in"] == counted_in}
        found = []
        for edge in self.edges.values():
            if edge.type not in types or edge.props.get("via"):   # a link through a proxy: `through_links`
                continue
            src = self.clients.get(edge.src) or self.routes.get(edge.src) or self.producers.get(edge.src)
            dst = self.routes.get(edge.dst)
            link = gold.get((src, dst)) if src is not None and dst is not None else None
            found.append((f"{self.describe(edge.src)} -> {self.describe(edge.dst)} [{edge.props.get('match')}]",
                          link["id"] if link else None))
        name = "links" if counted_in == "issue22" else "gRPC links"
        return score(name, found, {link["id"]: link["required"] for link in gold.values()})

    def through_links(self) -> tuple[list[str], list[str]]:
        """Links through a proxy (an edge with ``via``: the client to the route of the upstream that serves it),
        which no key lists as such: (those the key's own links compose, hop by hop: the client's link to the
        first proxy route and each proxy route's forward to the next route; the others), described."""
        pairs = {(link["from"], link["to"]) for link in self.key["links"] if link["counted_in"] == "issue22"}
        composed, other = [], []
        for edge in self.edges.values():
            if edge.type != "HTTP_CALLS" or not edge.props.get("via"):
                continue
            chain = [self.clients.get(edge.src)] + [self.routes.get(hop) for hop in edge.props["via"]] + \
                [self.routes.get(edge.dst)]
            what = (f"{self.describe(edge.src)} -> {self.describe(edge.dst)} [{edge.props.get('match')}] via "
                    f"{', '.join(edge.props.get('via_labels') or [])}")
            known = all(a is not None and b is not None and (a, b) in pairs for a, b in zip(chain, chain[1:], strict=False))
            (composed if known else other).append(what)
        return composed, other

    def describe(self, node_id: str) -> str:
        node = self.nodes[node_id]
        if node.kind == "microservice":
            return f"service {node.name}"
        if node.kind == "client":
            return f"{node.props['file']}:{node.props['line']} {node.props['label']}"
        return f"{node.props['microservice']} {node.props['label']}"

    def must_stay_unresolved(self) -> list[tuple[str, bool, str]]:
        """(key client, required, what the tool made of it) for every client the key says stays unresolved."""
        out = []
        for entry in self.key["unresolved"]:
            made = [n for node_id, n in self.nodes.items() if self.clients.get(node_id) == entry["client"]]
            state = ", ".join(sorted({str(n.props.get("match")) for n in made})) or "not found"
            out.append((entry["client"], entry["required"], state))
        return out

    def must_not_link(self) -> list[str]:
        """The key's tempting wrong links that the tool drew (pairs of key ids only)."""
        drawn = {(self.clients.get(e.src) or self.routes.get(e.src), self.routes.get(e.dst))
                 for e in self.edges.values() if e.type in ("HTTP_CALLS", "GRPC_CALLS")}
        return [f"{m['from']} -> {m['to']}" for m in self.key["must_not_link"] if (m["from"], m["to"]) in drawn]
