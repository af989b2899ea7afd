"""Code toolset, part 3: the question set (``bench/data/code_gold/questions.jsonl``, written blind by another
helper from the source) answered through the tools, counting calls.

Each question has a **plan**: the calls an agent makes for it, written from the question's words alone (the
names, routes and services it mentions), never from its answer. A service is named as the index names it
(cypress-realworld-app's front end is the folder ``src``: the ``status`` listing an agent reads first says so,
one call the plans do not count). A plan runs in process through the very
``ToolSpec``s an MCP client calls (`Agent`: every call validated by the request model, counted); where a call
returns several candidates the plan takes the first in the service the question names, as an agent reading
the candidates would, and stops there (no retry on a wrong pick).

**Answered** is judged automatically against the key, by the answer's type:

* ``symbols`` / ``impact``: every required item (not ``optional``) is a node the plan's answer holds: same file,
  and the node is the innermost symbol of the index whose lines hold the item's line (a caller's call line
  lies in its function; a module counts only where no function of the index holds the line, as in an
  anonymous handler), or a route or client on that line; a route item by its service and ``METHOD path``;
* ``path``: one returned path passes through every required step's function (the same rule);
* ``service_pairs`` / ``services`` / ``routes``: the required pairs, services or routes are all found, and nothing
  outside the key's items (optional ones included) is; a ``services`` answer's optional ones are its
  ``optional_items``, and a list in its ``also_accept`` is a whole answer that is right too; a service the system's
  key marks ``required: false`` (and a pair with one) is not counted either way unless the question requires it,
  as the key README says of every ``required: false`` entry; a service matches by any of its names or by its root
  (the index's root folder for the name the tool gives);
* ``none``: the plan's structural query comes back empty (a ``find`` total of 0, no link, no path ...);
* ``config``: every required value the key lists (``value`` fields, a trailing note in brackets dropped, as in a
  route: ``cart (code default, no port)`` is ``cart``) appears in what the calls returned, as written or as JSON
  escapes it inside a string (``"rc."+x`` is ``\\"rc.\\"+x`` there); a value holding a secret counts in the form the
  code toolset may show (SKILL.md: ``amqp://u:p@mq:5672`` as ``amqp://mq:5672``; a credential key's own value as
  ``KEY: redacted``) (``--verbatim-config``: every value as written, optional ones too).

Prints each question's verdict, calls and what was missing, then the share answered and the median calls per
system and class. Run: ``python bench/code_questions.py [--system NAME] [--verbose] [--system-dir NAME=PATH]``
(``--system-dir``: a system whose checkout is not under ``../shared/data/code``, e.g.
``robot-shop=/tmp/robot-shop``; its key is ``code_gold/NAME.json``, its questions ``questions_*.jsonl``).
The index is structural only (``sync``: search ranks by BM25 alone) unless ``--embed`` embeds it as
``graphlore code index`` does by default (search ranks hybrid).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import gold  # noqa: E402

from graphlore.config import Settings  # noqa: E402
from graphlore.contract import parse_request  # noqa: E402
from graphlore.errors import GraphloreError  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.toolsets.code import TOOLSET  # noqa: E402
from graphlore.toolsets.code.index.code_index import CodeIndex  # noqa: E402
from graphlore.toolsets.code.services.secrets import REDACTED, shown_value  # noqa: E402

#: every question set: ``questions.jsonl`` (the shared three) and ``questions_<system>.jsonl`` (one more each)
QUESTIONS = "questions*.jsonl"


class Refused(Exception):
    """A tool refused a plan's call."""


class Agent:
    """Tool calls on one project, counted; every answer kept (the config judge reads them)."""

    def __init__(self, runtime: Runtime, root: Path) -> None:
        self.runtime, self.root = runtime, root
        self.calls = 0
        self.seen: list[Any] = []

    def __call__(self, tool: str, **fields) -> Any:
        """The tool's answer; a refused call counts too and ends the plan (`Refused`), as it would cost an agent
        a call and a second try the plan does not make."""
        self.calls += 1
        spec = TOOLSET.tool(tool)
        try:
            out = spec.run(self.runtime, parse_request(spec.request, {"project_path": str(self.root), **fields}))
        except GraphloreError as exc:
            raise Refused(str(exc)) from exc
        self.seen.append(out)
        return out

    # -- the moves every plan is made of ----------------------------------------------------------------

    def one(self, identifier: str, service: str | None = None, kind: str | None = None) -> str | None:
        """resolve; of several candidates the first in ``service``; nothing found: search (one more call), its
        first hit in ``service``."""
        found = self("resolve", identifier=identifier, hint_kind=kind)
        if found.status == "one":
            return found.node.id
        if found.status == "many":
            picks = [c.node for c in found.candidates if service is None or _same(c.node.microservice, service)]
            return picks[0].id if picks else None
        query = {"query": identifier, "kind": kind if kind in (None, "route", "client", "microservice") else "symbol"}
        if service and query["kind"]:
            query["filter"] = {"microservice": service}
        elif service:   # search takes no filter without a kind: the first hit in ``service``, as of resolve's many
            hits = self("search", **query, limit=10).results
            return next((h.node.id for h in hits if _same(h.node.microservice, service)), None)
        hits = self("search", **query, limit=1).results
        return hits[0].node.id if hits else None

    def upstream(self, node: str | None, depth: int) -> list[str]:
        """The blast radius as one impact call (``in``) gives it: what reaches the node, then its ``consumers``
        (SKILL.md: who receives what the node itself sends, listed apart; a change to what it sends breaks them)."""
        if node is None:
            return []
        out = self("impact", id=node, depth=depth, limit=500)
        return [r.node.id for r in out.results] + [c.node.id for c in out.consumers]

    def trace(self, start: str | None, end: str | None) -> list[list[str]]:
        if start is None or end is None:
            return []
        out = self("paths", from_id=start, to_id=end, limit=20)
        return [[out.paths[i].hops[0].source.id] + [h.target.id for h in p.hops] for i, p in enumerate(out.paths)]

    def links(self, service: str) -> list[tuple[str, str, str]]:
        """(source, target, match) of every link drawn around ``service`` (one service_map call)."""
        return [(link.source, link.target, link.match) for link in self("service_map", microservice=service).links]

    def routes(self, service: str, **filter_) -> list[str]:
        found = self("find", kind="route", filter={"microservice": service, **filter_}, limit=500)
        return [r.label for r in found.results]

    def route_named(self, service: str, word: str) -> str | None:
        """The first route of ``service`` whose label holds ``word`` (one find: an agent reads the list)."""
        found = self("find", kind="route", filter={"microservice": service}, limit=500).results
        return next((r.id for r in found if word.lower() in r.label.lower()), None)

    def total(self, kind: str, **filter_) -> int:
        return self("find", kind=kind, filter=filter_, limit=1).total


def _same(name: str | None, service: str) -> bool:
    return bool(name) and (name.lower() == service.lower() or service.lower() in name.lower())


# -- the plans: question id -> the calls (written from the question's words) ---------------------------------

def callers_of_route(a: Agent, route: str, depth: int = 3, service: str | None = None) -> dict:
    return {"nodes": a.upstream(a.one(route, service, "route"), depth)}


def callers_of(a: Agent, name: str, service: str | None = None, depth: int = 1, kind: str | None = None) -> dict:
    return {"nodes": a.upstream(a.one(name, service, kind), depth)}


def trace(a: Agent, start: str, end: str, s_service: str | None = None, e_service: str | None = None,
          s_kind: str | None = None, e_kind: str | None = None) -> dict:
    return {"paths": a.trace(a.one(start, s_service, s_kind), a.one(end, e_service, e_kind))}


def from_client(a: Agent, service: str, method: str, path: str, end: str, e_service: str) -> dict:
    """A trace that starts where a service sends a request: its client (find), the code that declares it."""
    found = a("find", kind="client", filter={"microservice": service, "http_method": method,
                                              "target_path_prefix": path}, limit=1).results
    start = None
    if found:
        owners = a("neighbors", id=found[0].id, edge_types=["CLIENT_DECLARED_BY"]).neighbors
        start = owners[0].node.id if owners else None
    return {"paths": a.trace(start, a.one(end, e_service))}


def calls_from(a: Agent, service: str) -> dict:
    """The focus's outgoing arrows; the focus as the map names it (a folder name given is the service's name there)."""
    drawn = a("service_map", microservice=service)
    named = (drawn.microservice or service).lower()
    return {"pairs": [(x.source, x.target) for x in drawn.links if x.source.lower() == named and x.match == "cross_service"]}


def calls_to(a: Agent, service: str) -> dict:
    drawn = a("service_map", microservice=service)
    named = (drawn.microservice or service).lower()
    return {"pairs": [(x.source, x.target) for x in drawn.links if x.target.lower() == named and x.match == "cross_service"]}


def no_link(a: Agent, source: str, targets: tuple[str, ...]) -> dict:
    return {"found": [(s, t) for s, t, _ in a.links(source) if s == source and t in targets]}


def no_callers(a: Agent, route: str, service: str | None = None) -> dict:
    node = a.one(route, service, "route")
    if node is None:
        return {"found": []}
    keys = ["HTTP_CALLED_BY", "GRPC_CALLED_BY"]
    # the question asks which code calls: a gateway route forwarding there is no code (SKILL.md: HTTP_CALLED_BY are
    # the clients that call a route), and a client whose request passes through it has its own edge (``via``)
    return {"found": [n.node.id for n in a("neighbors", id=node, edge_types=keys).neighbors if n.node.kind != "route"]}


def implementations(a: Agent, name: str, service: str | None = None) -> dict:
    node = a.one(name, service)
    if node is None:
        return {"nodes": []}
    out = a("neighbors", id=node, edge_types=["EXTENDED_BY", "IMPLEMENTED_BY"], limit=100)
    return {"nodes": [n.node.id for n in out.neighbors]}


def config_of_clients(a: Agent, service: str, **filter_) -> dict:
    found = a("find", kind="client", filter={"microservice": service, **filter_}, limit=5).results
    for ref in found[:2]:
        a("describe", id=ref.id)
    return {}


def leaves(a: Agent) -> dict:
    """A caller is a service with an arrow to another project service, whatever its match (SKILL.md: an
    ``ambiguous`` or ``no_route`` arrow, and an ``unresolved`` one drawn to a project service, name the service
    called; only which route is in doubt)."""
    drawn = a("service_map")
    callers = {link.source for link in drawn.links if link.target in drawn.services and link.target != link.source}
    services = a("find", kind="microservice", filter={"deployable": True}, limit=100).results
    return {"services": sorted(s.name for s in services if s.name not in callers)}


def front_end_routes(a: Agent, used: bool) -> dict:
    backend = a.routes("backend")
    called = set()
    for client in a("find", kind="client", filter={"microservice": "src", "match": "cross_service"},
                    limit=500).results:
        for n in a("neighbors", id=client.id, edge_types=["HTTP_CALLS"]).neighbors:
            called.add(n.node.label)
    return {"routes": sorted(called) if used else sorted(set(backend) - called)}


def client_to(a: Agent, service: str, target: str) -> str | None:
    """The code that declares ``service``'s first client of ``target`` (find, then its declaring symbol)."""
    found = a("find", kind="client", filter={"microservice": service, "target_service": target}, limit=1).results
    if not found:
        return None
    owners = a("neighbors", id=found[0].id, edge_types=["CLIENT_DECLARED_BY"]).neighbors
    return owners[0].node.id if owners else None


def first_route(a: Agent, service: str) -> str | None:
    found = a("find", kind="route", filter={"microservice": service}, limit=1).results
    return found[0].id if found else None


def top_symbols(a: Agent, query: str, service: str) -> dict:
    hits = a("search", query=query, kind="symbol", filter={"microservice": service}, limit=10).results
    return {"nodes": [h.node.id for h in hits]}


def consumers_of_producers(a: Agent, service: str) -> dict:
    """What the service's producers reach in one hop (the consumers and their handlers)."""
    producers = a("find", kind="producer", filter={"microservice": service}, limit=20).results
    return {"nodes": [r.node.id for p in producers
                      for r in a("impact", id=p.id, direction="out", depth=1, limit=100).results]}


def config_of_routes(a: Agent, service: str) -> dict:
    found = a("find", kind="route", filter={"microservice": service}, limit=5).results
    for ref in found[:2]:
        a("describe", id=ref.id)
    return {}


def messaging_config(a: Agent, producer_service: str, consumer_service: str) -> dict:
    for ref in a("find", kind="producer", filter={"microservice": producer_service}, limit=2).results[:1]:
        a("describe", id=ref.id)
    for ref in a("find", kind="route", filter={"microservice": consumer_service}, limit=2).results[:1]:
        a("describe", id=ref.id)
    return {}


def callers_of_every(a: Agent, name: str, depth: int = 1) -> dict:
    """A name the question ties to no service: the callers of every candidate ``resolve`` returns (an agent reads
    them all rather than pick one)."""
    found = a("resolve", identifier=name)
    nodes = [found.node.id] if found.status == "one" else [c.node.id for c in found.candidates]
    return {"nodes": [n for node in nodes for n in a.upstream(node, depth)]}


def search_everywhere(a: Agent, query: str) -> dict:
    """A semantic question that names no service: one search over every service."""
    return {"nodes": [h.node.id for h in a("search", query=query, kind="symbol", limit=10).results]}


def database_config(a: Agent, services: tuple[str, ...]) -> dict:
    """Where a service connects to its database: the best hit for a connection in each, read with its source."""
    for service in services:
        hits = a("search", query="database connection URI", kind="symbol", filter={"microservice": service},
                 limit=1).results
        if hits:
            a("describe", id=hits[0].node.id, include_source=True)
    return {}


def callers_of_routes_named(a: Agent, service: str, words: tuple[str, ...], code_only: bool = False) -> dict:
    """Who calls the routes whose label holds one of ``words``; ``code_only`` ("which code calls"): the clients,
    not a gateway's or an ingress's forward (a route of configuration, not code), as `client_callers_of_route`."""
    found = a("find", kind="route", filter={"microservice": service}, limit=500).results
    routes = [r.id for r in found if any(w in r.label.lower() for w in words)]
    keys = ["HTTP_CALLED_BY", "GRPC_CALLED_BY"]
    return {"found": [n.node.id for r in routes for n in a("neighbors", id=r, edge_types=keys).neighbors
                      if not code_only or n.node.kind == "client"]}


def downstream(a: Agent, start: str | None, depth: int) -> list[str]:
    """``start`` and everything it reaches within ``depth`` (one impact call, outward): "where does it end up"."""
    if start is None:
        return []
    return [start] + [r.node.id for r in a("impact", id=start, direction="out", depth=depth, limit=500).results]


def route_where(a: Agent, service: str, method: str, word: str) -> str | None:
    """The first route of ``service`` with ``method`` whose label holds ``word`` (one find: an agent reads the list)."""
    found = a("find", kind="route", filter={"microservice": service, "http_method": method}, limit=500).results
    return next((r.id for r in found if word.lower() in r.label.lower()), None)


def client_callers_of_route(a: Agent, route: str, service: str) -> dict:
    """The clients (code, not gateway forwards) that call a route."""
    node = a.one(route, service, "route")
    if node is None:
        return {"found": []}
    return {"found": [n.node.id for n in a("neighbors", id=node, edge_types=["HTTP_CALLED_BY"]).neighbors
                      if n.node.kind == "client"]}


def describe_named(a: Agent, identifier: str, kind: str | None = None) -> dict:
    node = a.one(identifier, None, kind)
    if node is not None:
        a("describe", id=node)
    return {}


def describe_route_named(a: Agent, service: str, word: str) -> dict:
    node = a.route_named(service, word)
    if node is not None:
        a("describe", id=node)
    return {}


def callers_of_service(a: Agent, service: str, depth: int = 1) -> dict:
    """Who calls any route of ``service`` (one find, then one impact per route)."""
    routes = a("find", kind="route", filter={"microservice": service}, limit=50).results
    return {"nodes": [n for r in routes for n in a.upstream(r.id, depth)]}


def callers_and_consumers(a: Agent, name: str, service: str, depth: int) -> dict:
    """A blast radius of a function that sends messages: its callers, and what its service's producers reach."""
    return {"nodes": callers_of(a, name, service, depth)["nodes"] + consumers_of_producers(a, service)["nodes"]}


def grpc_routes_named(a: Agent, word: str) -> dict:
    """Every gRPC route whose label holds ``word`` (one find over the whole system)."""
    found = a("find", kind="route", filter={"framework": "grpc"}, limit=100).results
    return {"found": [r.id for r in found if word.lower() in r.label.lower()]}


def declaring_client(a: Agent, service: str, method: str) -> str | None:
    """The code that declares ``service``'s first client sending ``method`` (find, then its declaring symbol)."""
    found = a("find", kind="client", filter={"microservice": service, "http_method": method}, limit=1).results
    if not found:
        return None
    owners = a("neighbors", id=found[0].id, edge_types=["CLIENT_DECLARED_BY"]).neighbors
    return owners[0].node.id if owners else None


def producer_owner(a: Agent, service: str) -> str | None:
    """The code that declares ``service``'s first producer (find, then its declaring symbol)."""
    found = a("find", kind="producer", filter={"microservice": service}, limit=1).results
    if not found:
        return None
    owners = a("neighbors", id=found[0].id, edge_types=["PRODUCER_DECLARED_BY"]).neighbors
    return owners[0].node.id if owners else None


def served_endpoints(a: Agent, service: str, grpc: bool = True) -> list[str]:
    """``service``'s HTTP and gRPC routes (one find; message listeners, labelled by their broker, left out); a question
    that asks for HTTP endpoints alone (``grpc=False``) reads its HTTP routes."""
    verbs = {"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "ANY"} | ({"grpc"} if grpc else set())
    return [r for r in a.routes(service) if r.split(" ", 1)[0] in verbs]


def search_route(a: Agent, query: str, service: str) -> str | None:
    """A route the question describes in words, not by path: the first hit of a search over the service's routes."""
    hits = a("search", query=query, kind="route", filter={"microservice": service}, limit=1).results
    return hits[0].node.id if hits else None


def app_callers_of_route(a: Agent, route: str, service: str) -> dict:
    """Whether the application calls a route: the clients that call it, then who calls the code declaring each
    (a generated API client's method is a client whether or not anything calls it)."""
    node = a.one(route, service, "route")
    if node is None:
        return {"found": []}
    found = []
    for client in a("neighbors", id=node, edge_types=["HTTP_CALLED_BY"]).neighbors:
        for owner in a("neighbors", id=client.node.id, edge_types=["CLIENT_DECLARED_BY"]).neighbors:
            found += [n.node.id for n in a("neighbors", id=owner.node.id, edge_types=["CALLED_BY"]).neighbors]
    return {"found": found}


def config_by_search(a: Agent, query: str, service: str) -> dict:
    """Where a service finds a setting the question names in words: the best hit, read with its source."""
    hits = a("search", query=query, kind="symbol", filter={"microservice": service}, limit=1).results
    if hits:
        a("describe", id=hits[0].node.id, include_source=True)
    return {}


def routes_of_module(a: Agent, name: str, service: str) -> dict:
    """The routes a module (a router file) declares: resolve it, then its DECLARES.EXPOSES."""
    node = a.one(name, service, "module")
    if node is None:
        return {"routes": []}
    return {"routes": [n.node.label for n in a("neighbors", id=node, edge_types=["DECLARES.EXPOSES"], limit=100).neighbors]}



def consumers_of_event(a: Agent, service: str, event: str) -> dict:
    """What the producers of ``service`` that send ``event`` reach (listeners and their handlers, two hops)."""
    producers = a("find", kind="producer", filter={"microservice": service}, limit=50).results
    return {"nodes": [r.node.id for p in producers if event.lower() in p.label.lower()
                      for r in a("impact", id=p.id, direction="out", depth=2, limit=100).results]}


def pairs_by_kind(a: Agent, service: str, kinds: tuple[str, ...], direction: str) -> dict:
    """Cross-service links of ``service`` of the given kinds (``http``, ``grpc``, ``async``), outgoing (``from``),
    incoming (``to``) or both (one service_map call)."""
    pairs = []
    for link in a("service_map", microservice=service).links:
        if link.match != "cross_service" or link.kind not in kinds:
            continue
        out, inn = link.source.lower() == service.lower(), link.target.lower() == service.lower()
        if (direction == "from" and out) or (direction == "to" and inn) or (direction == "both" and (out or inn)):
            pairs.append((link.source, link.target))
    return {"pairs": pairs}


def between(a: Agent, one: str, other: str) -> dict:
    """The cross-service links between two services, both directions (one service_map call)."""
    return {"pairs": [(s, t) for s, t, m in a.links(one) if m == "cross_service" and {s.lower(), t.lower()} == {
        one.lower(), other.lower()}]}


def service_config_and_code(a: Agent, service: str, query: str) -> dict:
    """A setting of a service: its configuration (describe the microservice), then the best code hit, with source."""
    node = a.one(service, None, "microservice")
    if node is not None:
        a("describe", id=node)
    hits = a("search", query=query, kind="symbol", filter={"microservice": service}, limit=1).results
    if hits:
        a("describe", id=hits[0].node.id, include_source=True)
    return {}


def messaging_settings(a: Agent, service: str) -> dict:
    """Where a service's messaging is configured: the microservice's configuration and its first producer."""
    node = a.one(service, None, "microservice")
    if node is not None:
        a("describe", id=node)
    for ref in a("find", kind="producer", filter={"microservice": service}, limit=1).results[:1]:
        a("describe", id=ref.id)
    return {}


def consumers_in(a: Agent, producer_service: str, consumer_service: str) -> dict:
    """What ``producer_service``'s producers reach inside ``consumer_service`` (find, then impact per producer)."""
    producers = a("find", kind="producer", filter={"microservice": producer_service}, limit=50).results
    return {"found": [r.node.id for p in producers for r in a("impact", id=p.id, direction="out", depth=1,
                                                               limit=100).results
                      if _same(r.node.microservice, consumer_service)]}


def direct_calls(a: Agent, source: str, target: str) -> dict:
    """HTTP or gRPC links (not messages) from ``source`` to ``target`` (one service_map call)."""
    return {"found": [(x.source, x.target) for x in a("service_map", microservice=source).links
                      if x.source == source and x.target == target and x.kind in ("http", "grpc")]}

def listeners_of(a: Agent, topic: str) -> dict:
    """The listeners of a topic the question names, and the code each one runs (find, then its handler)."""
    found = a("find", kind="route", filter={"topic": topic}, limit=50).results
    return {"nodes": [r.id for r in found] + [h.node.id for r in found
                                               for h in a("neighbors", id=r.id, edge_types=["EXPOSED_BY"]).neighbors]}


def senders_of(a: Agent, topic: str) -> dict:
    """Where a topic the question names is sent: its producers, the code declaring each, and who calls that code."""
    nodes = []
    for producer in a("find", kind="producer", filter={"topic": topic}, limit=20).results:
        nodes.append(producer.id)
        for owner in a("neighbors", id=producer.id, edge_types=["PRODUCER_DECLARED_BY"]).neighbors:
            nodes += [owner.node.id] + a.upstream(owner.node.id, 1)
    return {"nodes": nodes}


def services_reached_by_event(a: Agent, word: str) -> dict:
    """The services an event the question describes reaches: producers whose label holds ``word``, one hop out."""
    producers = [p for p in a("find", kind="producer", limit=100).results if word.lower() in p.label.lower()]
    return {"services": sorted({r.node.microservice for p in producers
                                for r in a("impact", id=p.id, direction="out", depth=1, limit=100).results
                                if r.node.microservice})}


def broker_settings(a: Agent) -> dict:
    """Where the message broker is configured when the question names no service: the first producer and its
    microservice, described."""
    for ref in a("find", kind="producer", limit=1).results[:1]:
        a("describe", id=ref.id)
        describe_named(a, ref.microservice, "microservice")
    return {}


def through(a: Agent, service: str) -> dict:
    """Cross-service links of ``service`` and of the services it calls directly (one service_map call, depth 2):
    "directly and through X"."""
    links = [x for x in a("service_map", microservice=service, depth=2).links if x.match == "cross_service"]
    direct = {x.target for x in links if x.source.lower() == service.lower()}
    return {"pairs": [(x.source, x.target) for x in links if x.source.lower() == service.lower() or x.source in direct]}


def config_of_clients_to(a: Agent, target: str, query: str) -> dict:
    """Where the callers of a service find it, the question naming no caller: the first clients of ``target`` from
    any service, described, then the best code hit for the setting, read with its source."""
    for ref in a("find", kind="client", filter={"target_service": target}, limit=2).results[:2]:
        a("describe", id=ref.id)
    hits = a("search", query=query, kind="symbol", limit=1).results
    if hits:
        a("describe", id=hits[0].node.id, include_source=True)
    return {}

PLANS = {
    "pm-01": lambda a: callers_of_route(a, "POST /uaa/users", 3, "auth-service"),
    "pm-02": lambda a: callers_of(a, "StatisticsService.save", "statistics-service"),
    "pm-03": lambda a: callers_of(a, "AccountRepository.findByName", "account-service"),
    "pm-04": lambda a: trace(a, "PUT /accounts/current", "StatisticsServiceImpl.save", "account-service",
                             "statistics-service", "route"),
    "pm-05": lambda a: trace(a, "NotificationServiceImpl.sendBackupNotifications", "AccountRepository",
                             "notification-service", "account-service"),
    "pm-06": lambda a: trace(a, "POST /accounts/", "UserRepository", "account-service", "auth-service", "route"),
    "pm-07": lambda a: callers_of(a, "ExchangeRatesServiceImpl.getCurrentRates", "statistics-service", 6),
    "pm-08": lambda a: callers_of_route(a, "PUT /statistics/{accountName}", 4, "statistics-service"),
    "pm-09": lambda a: callers_of(a, "AccountRepository.findByName", "account-service", 6),
    "pm-10": lambda a: calls_from(a, "account-service"),
    "pm-11": lambda a: calls_to(a, "account-service"),
    "pm-12": lambda a: {"pairs": [(s, t) for s, t, m in ((x.source, x.target, x.match) for x in a("service_map").links)
                                  if m == "cross_service"]},
    "pm-13": lambda a: {"found": [h.node.id for h in a("search", query="send mail email", kind="symbol",
                                                         filter={"microservice": "account-service"}).results
                                  if "mail" in h.node.label.lower()]},
    "pm-14": lambda a: {"found": [1] * (a.total("producer") + a.total("route", framework=["spring_kafka", "spring_rabbit", "spring_jms", "spring_cloud_stream"]))},
    "pm-15": lambda a: no_link(a, "notification-service", ("statistics-service",)),
    "pm-16": lambda a: implementations(a, "StatisticsServiceClient", "account-service"),
    "pm-17": lambda a: {"routes": a.routes("notification-service")},
    "pm-18": lambda a: config_of_clients(a, "statistics-service", match="unresolved"),

    "md-01": lambda a: callers_of_route(a, "hipstershop.CartService/AddItem", 4, "cartservice"),
    "md-02": lambda a: callers_of_route(a, "hipstershop.ProductCatalogService/GetProduct", 3),
    "md-03": lambda a: callers_of_route(a, "hipstershop.CurrencyService/Convert", 3),
    "md-04": lambda a: {"nodes": [n for r in a.routes("emailservice", framework="grpc")
                                  for n in a.upstream(a.one(r, "emailservice", "route"), 3)]},
    "md-05": lambda a: {"paths": a.trace(a.one("POST /cart/checkout", "frontend", "route"),
                                         a.route_named("paymentservice", "Charge"))},
    "md-06": lambda a: trace(a, "GET /product/{id}", "hipstershop.ProductCatalogService/GetProduct", "frontend",
                             "productcatalogservice", "route", "route"),
    "md-07": lambda a: trace(a, "getRecommendations", "hipstershop.ProductCatalogService/ListProducts", "frontend",
                             "productcatalogservice", None, "route"),
    "md-08": lambda a: {"paths": a.trace(a.one("checkoutService.PlaceOrder", "checkoutservice"),
                                         a.route_named("emailservice", "SendOrderConfirmation"))},
    "md-09": lambda a: callers_of_route(a, "hipstershop.CartService/GetCart", 6, "cartservice"),
    "md-10": lambda a: callers_of_route(a, "hipstershop.ShippingService/GetQuote", 6, "shippingservice"),
    "md-11": lambda a: callers_of_route(a, "hipstershop.CurrencyService/Convert", 6, "currencyservice"),
    "md-12": lambda a: calls_from(a, "checkoutservice"),
    "md-13": lambda a: calls_to(a, "productcatalogservice"),
    "md-14": lambda a: calls_from(a, "frontend"),
    "md-15": leaves,
    "md-16": lambda a: no_callers(a, "hipstershop.ProductCatalogService/SearchProducts"),
    "md-17": lambda a: no_link(a, "checkoutservice", ("recommendationservice", "adservice")),
    "md-18": lambda a: {"found": [1] * (a.total("producer") + a.total("route", framework=["sarama", "kafka_go", "confluent_kafka"]))},
    "md-19": lambda a: {"found": [s for s, _ in calls_to(a, "shoppingassistantservice")["pairs"] if s != "frontend"]},
    "md-20": lambda a: {"nodes": [r.node.id for r in a("impact", id=a.one("EmailServiceServicer", "emailservice"),
                                                       direction="out", edge_types=["EXTENDED_BY", "IMPLEMENTED_BY"],
                                                       depth=5).results]},
    "md-21": lambda a: {"routes": [r for r in a.routes("frontend") if not r.startswith("grpc ")]},
    "md-22": lambda a: config_of_clients(a, "checkoutservice", target_service="cartservice"),

    "cy-01": lambda a: callers_of_route(a, "PATCH /transactions/{transactionId}", 2, "backend"),
    "cy-02": lambda a: callers_of(a, "createTransaction", "backend"),
    "cy-03": lambda a: callers_of(a, "getTransactionsForUserContacts", "backend"),
    "cy-04": lambda a: callers_of_route(a, "POST /graphql", 2, "backend"),
    "cy-05": lambda a: callers_of(a, "createBankAccountForUser", "backend"),
    "cy-06": lambda a: from_client(a, "src", "POST", "/likes", "createLike", "backend"),
    "cy-07": lambda a: from_client(a, "src", "POST", "/transactions", "updateUserById", "backend"),
    "cy-08": lambda a: from_client(a, "src", "POST", "/login", "getUserBy", "backend"),
    "cy-09": lambda a: from_client(a, "src", "GET", "/notifications", "getNotificationsByUserId", "backend"),
    "cy-10": lambda a: callers_of(a, "getUserById", "backend", 2),
    "cy-11": lambda a: callers_of(a, "formatTransactionForApiResponse", "backend", 8),
    "cy-12": lambda a: callers_of_route(a, "POST /users", 4, "backend"),
    "cy-13": lambda a: front_end_routes(a, used=True),
    "cy-14": lambda a: front_end_routes(a, used=False),
    "cy-15": lambda a: {"nodes": [c.id for c in a("find", kind="client", filter={
        "microservice": "src", "target_path_prefix": "/transactions"}, limit=100).results]},
    "cy-16": lambda a: {"found": [c.id for c in a("find", kind="client", filter={
        "microservice": "src", "target_path_prefix": "/bankAccounts"}, limit=10).results]},
    "cy-17": lambda a: {"found": [c.id for c in a("find", kind="client", filter={
        "microservice": "backend", "match": ["cross_service", "ambiguous", "no_route"]}, limit=10).results]},
    "cy-18": lambda a: {"found": [r for r in a.routes("backend", http_method="DELETE") if "transaction" in r.lower()]},
    "cy-19": lambda a: no_callers(a, "GET /users/{userId}", "backend"),
    "cy-20": lambda a: {"routes": a.routes("backend", path_prefix="/users")},
    "cy-21": lambda a: config_of_clients(a, "src", match="cross_service"),
    "cy-22": lambda a: {"nodes": [h.node.id for h in a("search", query="resolver bank account", kind="symbol",
                                                       filter={"microservice": "backend"}, limit=10).results]},

    # robot-shop (blind: written from the questions' words and the index's service names before any run)
    "rs-01": lambda a: callers_of_route(a, "GET /product/{sku}", 2, "catalogue"),
    "rs-02": lambda a: callers_of_route(a, "DELETE /cart/{id}", 2, "cart"),
    "rs-03": lambda a: {"nodes": a.upstream(a.route_named("user", "/check/"), 2)},
    "rs-04": lambda a: callers_of(a, "saveCart", "cart"),
    "rs-05": lambda a: callers_of(a, "CartHelper.addToCart", "shipping"),
    "rs-06": lambda a: consumers_of_producers(a, "payment"),
    "rs-07": lambda a: callers_of(a, "RatingsService.ratingBySku", "ratings"),
    "rs-08": lambda a: {"paths": a.trace(client_to(a, "web", "payment"), first_route(a, "dispatch"))},
    "rs-09": lambda a: {"paths": a.trace(a.one("confirm", "shipping"),
                                         (top_symbols(a, "update cart", "cart")["nodes"] or [None])[0])},
    "rs-10": lambda a: {"paths": a.trace(a.route_named("cart", "/add/"), a.route_named("catalogue", "/product/"))},
    "rs-11": lambda a: {"paths": a.trace(a.route_named("ratings", "/rate"), a.route_named("catalogue", "/product/"))},
    "rs-12": lambda a: {"paths": a.trace(a.route_named("payment", "/pay"), a.route_named("user", "/order/"))},
    "rs-13": lambda a: callers_of_route(a, "GET /product/{sku}", 4, "catalogue"),
    "rs-14": lambda a: callers_of_route(a, "POST /shipping/{id}", 4, "cart"),
    "rs-15": lambda a: {"nodes": a.upstream(a.route_named("user", "/check/"), 4)},
    "rs-16": lambda a: callers_of(a, "Publisher._publish", "payment", 4),
    "rs-17": lambda a: callers_of(a, "calcTax", "cart", 4),
    "rs-18": lambda a: calls_from(a, "payment"),
    "rs-19": lambda a: calls_to(a, "catalogue"),
    "rs-20": leaves,
    "rs-21": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "rs-22": lambda a: calls_from(a, "web"),
    "rs-23": lambda a: {"routes": a.routes("cart")},
    "rs-24": lambda a: {"routes": a.routes("ratings")},
    "rs-25": lambda a: {"routes": a.routes("shipping")},
    "rs-26": lambda a: {"routes": a.routes("web")},
    "rs-27": lambda a: config_of_clients(a, "shipping"),
    "rs-28": lambda a: config_of_clients(a, "ratings"),
    "rs-29": lambda a: config_of_routes(a, "web"),
    "rs-30": lambda a: config_of_clients(a, "payment", match="unresolved"),
    "rs-31": lambda a: messaging_config(a, "payment", "dispatch"),
    "rs-32": lambda a: {"found": [c.id for c in a("find", kind="client", filter={
        "microservice": "dispatch", "match": ["cross_service", "ambiguous", "no_route"]}, limit=10).results]},
    "rs-33": lambda a: {"found": calls_from(a, "user")["pairs"]},
    "rs-34": lambda a: callers_of_routes_named(a, "shipping", ("/memory", "/free"), code_only=True),
    "rs-35": lambda a: {"found": [r for r in a.routes("cart", http_method="DELETE")
                                  if "item" in r.lower() or "remove" in r.lower()]},
    "rs-36": lambda a: {"found": [1] * a.total("producer", microservice="catalogue")},
    "rs-37": lambda a: {"found": [1] * a.total("route", framework="grpc")},
    "rs-38": lambda a: top_symbols(a, "charge payment", "payment"),
    "rs-39": lambda a: top_symbols(a, "calculate shipping cost", "shipping"),
    "rs-40": lambda a: top_symbols(a, "sales tax cart", "cart"),
    "rs-41": lambda a: top_symbols(a, "check password login", "user"),

    # petclinic-ms (second blind set: written from the questions' words and SKILL.md before any run)
    "pc-01": lambda a: callers_of_route(a, "GET /owners/{ownerId}", 2, "customers-service"),
    "pc-02": lambda a: callers_of_route(a, "GET /pets/visits", 2, "visits-service"),
    "pc-03": lambda a: callers_of_route(a, "POST /owners", 2, "customers-service"),
    "pc-04": lambda a: callers_of(a, "AIDataProvider.getAllOwners", "genai-service"),
    "pc-05": lambda a: callers_of_route(a, "GET /vets", 2, "vets-service"),
    "pc-06": lambda a: {"paths": [downstream(a, a.route_named("api-gateway", "owners"), 4)]},
    "pc-07": lambda a: {"paths": a.trace(a.one("chat", "genai-service", "route"),
                                         route_where(a, "customers-service", "POST", "/pets"))},
    "pc-08": lambda a: {"paths": [downstream(a, a.route_named("api-gateway", "/api/visit"), 2)]},
    "pc-09": lambda a: {"paths": [downstream(a, (top_symbols(a, "load vet data into vector store", "genai-service")
                                                 ["nodes"] or [None])[0], 3)]},
    "pc-10": lambda a: callers_of_route(a, "GET /owners/{ownerId}", 4, "customers-service"),
    "pc-11": lambda a: callers_of_route(a, "GET /pets/visits", 4, "visits-service"),
    "pc-12": lambda a: callers_of(a, "AIDataProvider.getCustomerServiceUri", "genai-service", 4),
    "pc-13": lambda a: callers_of_route(a, "POST /owners/{ownerId}/pets", 4, "customers-service"),
    "pc-14": lambda a: {"nodes": [n for r in a.routes("vets-service")
                                  for n in a.upstream(a.one(r, "vets-service", "route"), 3)]},
    "pc-15": lambda a: calls_from(a, "api-gateway"),
    "pc-16": lambda a: calls_from(a, "genai-service"),
    "pc-17": lambda a: {"services": sorted({s for s, _ in calls_to(a, "customers-service")["pairs"]})},
    "pc-18": leaves,
    "pc-19": lambda a: {"routes": a.routes("customers-service")},
    "pc-20": lambda a: {"routes": a.routes("visits-service")},
    "pc-21": lambda a: {"routes": a.routes("api-gateway")},
    "pc-22": lambda a: config_of_clients(a, "api-gateway", target_service="customers-service"),
    "pc-23": lambda a: config_of_clients(a, "genai-service", target_service="customers-service"),
    "pc-24": lambda a: describe_named(a, "config-server", "microservice"),
    "pc-25": lambda a: describe_named(a, "visits-service", "microservice"),
    "pc-26": lambda a: describe_route_named(a, "api-gateway", "/api/customer"),
    "pc-27": lambda a: client_callers_of_route(a, "GET /petTypes", "customers-service"),
    "pc-28": lambda a: no_link(a, "visits-service", ("customers-service",)),
    "pc-29": lambda a: {"found": [1] * (a.total("producer") + a.total("route", framework=[
        "spring_kafka", "spring_rabbit", "spring_jms", "spring_cloud_stream"]))},
    "pc-30": lambda a: {"found": [1] * a.total("route", http_method="DELETE")},
    "pc-31": lambda a: {"found": [c.id for c in a("find", kind="client", filter={
        "microservice": "vets-service", "match": ["cross_service", "ambiguous", "no_route"]}, limit=10).results]},
    "pc-32": lambda a: top_symbols(a, "save new visit", "visits-service"),
    "pc-33": lambda a: top_symbols(a, "owner details fallback when visits fail circuit breaker", "api-gateway"),
    "pc-34": lambda a: top_symbols(a, "chat bot tools actions", "genai-service"),
    # bank-of-anthos (blind: written from the questions' words and SKILL.md before any run; session 4)
    "boa-01": lambda a: callers_of_route(a, "GET /balances/{accountId}", 2, "balancereader"),
    "boa-02": lambda a: {"nodes": a.upstream(a.route_named("userservice", "/login"), 2)},
    "boa-03": lambda a: {"nodes": a.upstream(a.route_named("userservice", "POST /users"), 1)},
    "boa-04": lambda a: callers_of(a, "_submit_transaction", "frontend"),
    "boa-05": lambda a: callers_of_every(a, "TransactionValidator.validateTransaction"),
    "boa-06": lambda a: {"nodes": a.upstream(a.route_named("contacts", "POST /contacts"), 2)},
    "boa-07": lambda a: trace(a, "POST /payment", "POST /transactions", "frontend", "ledgerwriter", "route", "route"),
    "boa-08": lambda a: {"paths": a.trace(a.one("POST /transactions", "ledgerwriter", "route"),
                                          a.route_named("balancereader", "/balances"))},
    "boa-09": lambda a: {"paths": a.trace(a.route_named("frontend", "POST /login"), a.route_named("userservice", "/login"))},
    "boa-10": lambda a: {"paths": a.trace(a.route_named("frontend", "/home"),
                                          a.route_named("transactionhistory", "/transactions"))},
    "boa-11": lambda a: {"paths": a.trace(a.one("POST /transactions", "ledgerwriter", "route"),
                                          (top_symbols(a, "new transaction update balance", "balancereader")["nodes"]
                                           or [None])[0])},
    "boa-12": lambda a: callers_of_route(a, "GET /balances/{accountId}", 4, "balancereader"),
    "boa-13": lambda a: callers_of_route(a, "GET /login", 4, "userservice"),
    "boa-14": lambda a: callers_of_route(a, "POST /transactions", 4, "ledgerwriter"),
    "boa-15": lambda a: callers_of(a, "ContactsDb.get_contacts", "contacts", 4),
    "boa-16": lambda a: calls_from(a, "frontend"),
    "boa-17": lambda a: calls_to(a, "balancereader"),
    "boa-18": leaves,
    "boa-19": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "boa-20": lambda a: calls_to(a, "userservice"),
    "boa-21": lambda a: {"routes": a.routes("frontend")},
    "boa-22": lambda a: {"routes": a.routes("ledgerwriter")},
    "boa-23": lambda a: {"routes": a.routes("contacts")},
    "boa-24": lambda a: {"routes": a.routes("transactionhistory")},
    "boa-25": lambda a: config_of_clients(a, "frontend", target_service="balancereader"),
    "boa-26": lambda a: config_of_clients(a, "ledgerwriter", target_service="balancereader"),
    "boa-27": lambda a: database_config(a, ("userservice", "contacts")),
    "boa-28": lambda a: config_of_clients(a, "loadgenerator"),
    "boa-29": lambda a: {"found": calls_from(a, "userservice")["pairs"]},
    "boa-30": lambda a: callers_of_routes_named(a, "frontend", ("/whereami",), code_only=True),
    "boa-31": lambda a: {"found": [1] * (a.total("producer") + a.total("route", framework=[
        "spring_kafka", "spring_rabbit", "spring_jms", "spring_cloud_stream", "sarama", "kafka_go", "confluent_kafka",
        "pika", "amqp_go", "amqplib"]))},
    "boa-32": lambda a: no_link(a, "transactionhistory", ("balancereader",)),
    "boa-33": lambda a: {"found": [1] * a.total("route", framework="grpc")},
    "boa-34": lambda a: search_everywhere(a, "check password login"),
    "boa-35": lambda a: search_everywhere(a, "reject payment insufficient balance"),
    "boa-36": lambda a: search_everywhere(a, "create sign JWT login token"),
    "boa-37": lambda a: search_everywhere(a, "detect duplicate transaction submission"),
    "boa-38": lambda a: search_everywhere(a, "generate new bank account number"),

    # otel-demo (fourth blind set: written from the questions' words and SKILL.md after the key was committed,
    # before any run; services named by their folders, as the key and the compose files name them)
    "od-01": lambda a: {"nodes": a.upstream(a.route_named("cart", "GetCart"), 2)},
    "od-02": lambda a: {"nodes": a.upstream(a.route_named("product-catalog", "ListProducts"), 2)},
    "od-03": lambda a: callers_of_route(a, "POST /get-quote", 2, "shipping"),
    "od-04": lambda a: consumers_of_producers(a, "checkout"),
    "od-05": lambda a: callers_of(a, "convertCurrency", "checkout"),
    "od-06": lambda a: callers_of_service(a, "quote", 2),
    "od-07": lambda a: {"nodes": a.upstream(a.route_named("currency", "Convert"), 2)},
    "od-08": lambda a: trace(a, "POST /api/checkout", "charge", "frontend", "payment", "route"),
    "od-09": lambda a: {"paths": a.trace(a.one("GET /api/shipping", "frontend", "route"), first_route(a, "quote"))},
    "od-10": lambda a: {"paths": a.trace(a.one("PlaceOrder", "checkout"),
                                         (top_symbols(a, "save order to database", "accounting")["nodes"] or [None])[0])},
    "od-11": lambda a: trace(a, "ListRecommendations", "ListProducts", "recommendation", "product-catalog"),
    "od-12": lambda a: {"nodes": a.upstream(a.route_named("payment", "Charge"), 4)},
    "od-13": lambda a: {"nodes": a.upstream(a.route_named("product-catalog", "ListProducts"), 3)},
    "od-14": lambda a: callers_of_route(a, "POST /getquote", 4, "quote"),
    "od-15": lambda a: callers_and_consumers(a, "sendToPostProcessor", "checkout", 2),
    "od-16": lambda a: calls_from(a, "checkout"),
    "od-17": lambda a: calls_to(a, "currency"),
    "od-18": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "od-19": leaves,
    "od-20": lambda a: calls_from(a, "frontend"),
    "od-21": lambda a: {"routes": a.routes("shipping")},
    "od-22": lambda a: {"routes": a.routes("frontend", path_prefix="/api")},
    "od-23": lambda a: {"routes": a.routes("cart", framework="grpc")},
    "od-24": lambda a: {"routes": a.routes("frontend-proxy")},
    "od-25": lambda a: config_of_clients(a, "checkout", target_service="shipping"),
    "od-26": lambda a: config_of_clients(a, "shipping"),
    "od-27": lambda a: messaging_config(a, "checkout", "accounting"),
    "od-28": lambda a: config_of_clients(a, "chatbot"),
    "od-29": lambda a: config_of_clients(a, "frontend", target_service="product-catalog"),
    "od-30": lambda a: callers_of_routes_named(a, "shipping", ("getquote", "shiporder"), code_only=True),
    "od-31": lambda a: grpc_routes_named(a, "FeatureFlagService"),
    "od-32": lambda a: callers_of_routes_named(a, "product-catalog", ("searchproducts",), code_only=True),
    "od-33": lambda a: {"found": calls_from(a, "payment")["pairs"]},
    "od-34": lambda a: {"found": a.routes("email", framework="grpc")},
    "od-35": lambda a: top_symbols(a, "charge credit card", "payment"),
    "od-36": lambda a: top_symbols(a, "shipping cost per item quote", "quote"),
    "od-37": lambda a: top_symbols(a, "save order to database", "accounting"),
    "od-38": lambda a: top_symbols(a, "shipment tracking number", "shipping"),

    # go-coffeeshop (fifth blind set: written from the questions' words and SKILL.md after the key was committed,
    # before any run; services named as docker-compose names them: counter, product, barista, kitchen, proxy, web)
    "gc-01": lambda a: {"nodes": a.upstream(a.route_named("product", "GetItemsByType"), 2)},
    "gc-02": lambda a: {"nodes": a.upstream(a.route_named("product", "GetItemTypes"), 2)},
    "gc-03": lambda a: {"nodes": a.upstream(a.route_named("counter", "PlaceOrder"), 2)},
    "gc-04": lambda a: consumers_of_producers(a, "barista"),
    "gc-05": lambda a: callers_of_service(a, "kitchen", 1),
    "gc-06": lambda a: callers_of(a, "OrderRepo.Update", "counter"),
    "gc-07": lambda a: {"paths": a.trace(declaring_client(a, "web", "POST"), first_route(a, "barista"))},
    "gc-08": lambda a: {"paths": [downstream(a, producer_owner(a, "kitchen"), 5)]},
    "gc-09": lambda a: {"paths": [downstream(a, a.one("GET /v1/fulfillment-orders", "proxy", "route"), 4)]},
    "gc-10": lambda a: {"paths": [downstream(a, a.route_named("counter", "PlaceOrder"), 6)]},
    "gc-11": lambda a: {"nodes": a.upstream(a.route_named("product", "GetItemsByType"), 5)},
    "gc-12": lambda a: {"nodes": a.upstream(a.route_named("counter", "PlaceOrder"), 3)},
    "gc-13": lambda a: callers_of(a, "OrderRepo.GetAll", "counter", 4),
    "gc-14": lambda a: {"nodes": a.upstream((top_symbols(a, "order handler", "barista")["nodes"] or [None])[0], 4)},
    "gc-15": lambda a: calls_from(a, "counter"),
    "gc-16": leaves,
    "gc-17": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links
                                  if x.kind == "async" and x.match == "cross_service"]},
    "gc-18": lambda a: calls_from(a, "proxy"),
    "gc-19": lambda a: {"routes": a.routes("proxy")},
    "gc-20": lambda a: {"routes": a.routes("product")},
    "gc-21": lambda a: {"routes": a.routes("web")},
    "gc-22": lambda a: {"found": served_endpoints(a, "barista")},
    "gc-23": lambda a: no_link(a, "kitchen", ("product",)),
    "gc-24": lambda a: {"found": [1] * a.total("route", http_method="DELETE")
                        + grpc_routes_named(a, "cancel")["found"] + grpc_routes_named(a, "delete")["found"]},
    "gc-25": lambda a: {"found": [c.id for c in a("find", kind="client", filter={
        "microservice": "web", "match": ["cross_service", "ambiguous", "no_route"]}, limit=50).results
        if c.file and c.file.endswith(".go")]},
    "gc-26": lambda a: config_of_clients(a, "counter", client_kind="grpc"),
    "gc-27": lambda a: {**config_of_clients(a, "proxy", client_kind="grpc"), **describe_named(a, "proxy", "microservice")},
    "gc-28": lambda a: {**config_of_clients(a, "web"), **describe_named(a, "web", "microservice")},
    "gc-29": lambda a: {**config_of_routes(a, "kitchen"), **describe_named(a, "kitchen", "microservice")},
    "gc-30": lambda a: search_everywhere(a, "menu item prices"),
    "gc-31": lambda a: search_everywhere(a, "simulate delay prepare drink food"),
    "gc-32": lambda a: search_everywhere(a, "mark order fulfilled status"),
    "gc-33": lambda a: search_everywhere(a, "decide item goes to barista or kitchen"),
    # fastapi-template (sixth blind set, session 5: written from the questions' words and SKILL.md after the key
    # was committed, before any run; services named by their folders, as the key and the compose files name them)
    "fa-01": lambda a: callers_of_route(a, "GET /api/v1/users/me", 3, "backend"),
    "fa-02": lambda a: callers_of_route(a, "DELETE /api/v1/items/{id}", 3, "backend"),
    "fa-03": lambda a: callers_of(a, "crud.get_user_by_email", "backend"),
    "fa-04": lambda a: callers_of(a, "send_email", "backend"),
    "fa-05": lambda a: {"nodes": a.upstream(search_route(a, "create user without authentication development only",
                                                         "backend"), 3)},
    "fa-06": lambda a: callers_of_route(a, "PATCH /api/v1/users/{user_id}", 3, "backend"),
    "fa-07": lambda a: trace(a, "login", "verify_password", "frontend", "backend"),
    "fa-08": lambda a: {"paths": a.trace((top_symbols(a, "forgot password recover", "frontend")["nodes"] or [None])[0],
                                         a.one("send_email", "backend"))},
    "fa-09": lambda a: {"paths": [downstream(a, a.one("DeleteUser", "frontend"), 4)]},
    "fa-10": lambda a: {"paths": [downstream(a, (top_symbols(a, "sign up register user", "frontend")["nodes"]
                                                 or [None])[0], 6)]},
    "fa-11": lambda a: callers_of_route(a, "PATCH /api/v1/users/me", 4, "backend"),
    "fa-12": lambda a: callers_of(a, "crud.get_user_by_email", "backend", 4),
    "fa-13": lambda a: callers_of(a, "security.verify_password", "backend", 5),
    "fa-14": lambda a: callers_of_route(a, "GET /api/v1/items/", 4, "backend"),
    "fa-15": lambda a: calls_from(a, "frontend"),
    "fa-16": lambda a: {"services": sorted({s for s, _ in calls_to(a, "backend")["pairs"]})},
    "fa-17": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "fa-18": leaves,
    "fa-19": lambda a: {"routes": a.routes("backend", path_prefix="/api/v1/items")},
    "fa-20": lambda a: routes_of_module(a, "login", "backend"),
    "fa-21": lambda a: {"routes": a.routes("backend", path_prefix="/api/v1/users")},
    "fa-22": lambda a: {"routes": [h.node.label for h in a("search", query="endpoint only in development", kind="route",
                                                          filter={"microservice": "backend"}, limit=1).results]},
    "fa-23": lambda a: config_of_clients(a, "frontend", target_service="backend"),
    "fa-24": lambda a: database_config(a, ("backend",)),
    "fa-25": lambda a: config_by_search(a, "SMTP mail server host port", "backend"),
    "fa-26": lambda a: describe_named(a, "backend", "microservice"),
    "fa-27": lambda a: config_by_search(a, "API prefix /api/v1", "backend"),
    "fa-28": lambda a: {"found": [c.id for c in a("find", kind="client", filter={
        "microservice": "backend", "match": ["cross_service", "ambiguous", "no_route"]}, limit=10).results]},
    "fa-29": lambda a: {"found": [1] * (a.total("producer") + a.total("route", framework=[
        "spring_kafka", "spring_rabbit", "spring_jms", "spring_cloud_stream", "sarama", "kafka_go", "confluent_kafka",
        "kafka_python", "aiokafka", "kafkajs", "node_rdkafka", "kafka_clients", "confluent_kafka_dotnet", "pika",
        "amqp_go", "amqplib"]))},
    "fa-30": lambda a: app_callers_of_route(a, "GET /api/v1/items/{id}", "backend"),
    "fa-31": lambda a: app_callers_of_route(a, "GET /api/v1/utils/health-check/", "backend"),
    "fa-32": lambda a: {"found": [1] * (a.total("route", framework="grpc") + a.total("client", client_kind="grpc"))},
    "fa-33": lambda a: top_symbols(a, "hash password", "backend"),
    "fa-34": lambda a: top_symbols(a, "check access token of the current user", "backend"),
    "fa-35": lambda a: callers_of(a, "get_current_active_superuser", "backend"),
    "fa-36": lambda a: top_symbols(a, "store access token localStorage", "frontend"),

    # eShop (dotnet/eShop, seventh blind set): written from the questions' words after the key's commit, before any
    # run; services as the index names them by SKILL.md's rule (a .csproj's file name: Catalog.API, WebApp, ...)
    "es-01": lambda a: callers_of_route(a, "GET /api/catalog/items/by", 2, "Catalog.API"),
    "es-02": lambda a: consumers_of_event(a, "Ordering.API", "OrderStatusChangedToPaidIntegrationEvent"),
    "es-03": lambda a: {"nodes": a.upstream(a.route_named("Basket.API", "UpdateBasket"), 2)},
    "es-04": lambda a: callers_of_route(a, "POST /api/webhooks", 2, "Webhooks.API"),
    "es-05": lambda a: search_everywhere(a, "OrderStatusChangedToStockConfirmedIntegrationEvent handler"),
    "es-06": lambda a: callers_of_route(a, "GET /api/catalog/items/{id}", 2, "Catalog.API"),
    "es-07": lambda a: consumers_of_producers(a, "Catalog.API"),
    "es-08": lambda a: trace(a, "checkout", "DeleteBasketAsync", "WebApp", "Basket.API"),
    "es-09": lambda a: trace(a, "payment succeeded", "RemoveStock", "PaymentProcessor", "Catalog.API"),
    "es-10": lambda a: {"paths": a.trace(a.route_named("WebApp", "product-images"),
                                         a.one("product picture", "Catalog.API"))},
    "es-11": lambda a: trace(a, "grace period", "grace period confirmed", "OrderProcessor", "Ordering.API"),
    "es-12": lambda a: callers_of_route(a, "GET /api/catalog/items/by", 4, "Catalog.API"),
    "es-13": lambda a: {"nodes": a.upstream(a.route_named("Basket.API", "DeleteBasket"), 4)},
    "es-14": lambda a: callers_of_route(a, "POST /api/orders", 4, "Ordering.API"),
    "es-15": lambda a: callers_of_route(a, "GET /api/webhooks", 3, "Webhooks.API"),
    "es-16": lambda a: callers_of_every(a, "OrderStatusChangedToShippedIntegrationEvent", 2),
    "es-17": lambda a: pairs_by_kind(a, "WebApp", ("http", "grpc", "async"), "both"),
    "es-18": leaves,
    "es-19": lambda a: pairs_by_kind(a, "Ordering.API", ("async",), "to"),
    "es-20": lambda a: pairs_by_kind(a, "Ordering.API", ("async",), "from"),
    "es-21": lambda a: between(a, "WebhookClient", "Webhooks.API"),
    "es-22": lambda a: {"routes": served_endpoints(a, "Ordering.API", grpc=False)},
    "es-23": lambda a: {"routes": served_endpoints(a, "Basket.API")},
    "es-24": lambda a: {"routes": served_endpoints(a, "Webhooks.API")},
    "es-25": lambda a: {"routes": served_endpoints(a, "Catalog.API", grpc=False)},
    "es-26": lambda a: {"routes": served_endpoints(a, "WebhookClient")},
    "es-27": lambda a: config_of_clients(a, "WebApp", target_path_prefix="/api/catalog"),
    "es-28": lambda a: config_of_clients(a, "WebApp", client_kind="grpc"),
    "es-29": lambda a: service_config_and_code(a, "PaymentProcessor", "payment succeeded or failed"),
    "es-30": lambda a: messaging_settings(a, "Catalog.API"),
    "es-31": lambda a: service_config_and_code(a, "OrderProcessor", "grace period check interval"),
    "es-32": lambda a: service_config_and_code(a, "Ordering.API", "identity server url"),
    "es-33": lambda a: no_link(a, "Basket.API", ("Catalog.API",)),
    "es-34": lambda a: no_callers(a, "DELETE /api/catalog/items/{id}", "Catalog.API"),
    "es-35": lambda a: direct_calls(a, "Ordering.API", "Basket.API"),
    "es-36": lambda a: consumers_in(a, "Catalog.API", "Basket.API"),
    "es-37": lambda a: no_link(a, "WebApp", ("Webhooks.API",)),
    "es-38": lambda a: search_everywhere(a, "check enough stock for an order"),
    "es-39": lambda a: search_everywhere(a, "deliver webhooks to subscribers"),
    "es-40": lambda a: top_symbols(a, "vector embeddings for semantic search", "Catalog.API"),
    "es-41": lambda a: top_symbols(a, "orders whose grace period has ended", "OrderProcessor"),

    # micronaut-poc (asc-lab/micronaut-microservices-poc, eighth blind set): written from the questions' words after
    # the key's commit, before any run; services as SKILL.md names them (no spring.application.name: the Maven
    # artifactId, which is each folder's name; web-vue by its folder, a name the filters accept)
    "mn-01": lambda a: callers_of_route(a, "POST /pricing/calculate", 2, "pricing-service"),
    "mn-02": lambda a: listeners_of(a, "policy-registered"),
    "mn-03": lambda a: callers_of_route(a, "GET /policies/{policyNumber}", 2, "policy-service"),
    "mn-04": lambda a: senders_of(a, "policy-terminated"),
    "mn-05": lambda a: callers_of_service(a, "product-service", 2),
    "mn-06": lambda a: {"paths": a.trace(a.route_named("agent-portal-gateway", "offers"),
                                         (top_symbols(a, "calculate price", "pricing-service")["nodes"] or [None])[0])},
    "mn-07": lambda a: {"paths": a.trace(route_where(a, "agent-portal-gateway", "POST", "create"),
                                         (top_symbols(a, "generate PDF document of a policy", "documents-service")[
                                             "nodes"] or [None])[0])},
    "mn-08": lambda a: {"paths": a.trace(search_route(a, "search policies", "agent-portal-gateway"),
                                         (top_symbols(a, "find policies in the search index",
                                                      "policy-search-service")["nodes"] or [None])[0])},
    "mn-09": lambda a: callers_of_route(a, "POST /pricing/calculate", 5, "pricing-service"),
    "mn-10": lambda a: {"nodes": a.upstream(a.one("PolicyRegisteredEvent", None, "class"), 2)
                        + consumers_of_event(a, "policy-service", "registered")["nodes"]},
    "mn-11": lambda a: callers_of_route(a, "GET /products/{productCode}", 4, "product-service"),
    "mn-12": lambda a: calls_from(a, "agent-portal-gateway"),
    "mn-13": lambda a: pairs_by_kind(a, "policy-service", ("http", "grpc", "async"), "from"),
    "mn-14": lambda a: services_reached_by_event(a, "terminat"),
    "mn-15": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links
                                  if x.match == "cross_service" and x.kind == "http"]},
    "mn-16": lambda a: {"routes": served_endpoints(a, "policy-service", grpc=False)},
    "mn-17": lambda a: {"routes": served_endpoints(a, "agent-portal-gateway")},
    "mn-18": lambda a: {"routes": served_endpoints(a, "auth-service")},
    "mn-19": lambda a: {**config_of_clients(a, "policy-service", target_service="pricing-service"),
                        **describe_named(a, "pricing-service", "microservice")},
    "mn-20": lambda a: {**config_of_clients(a, "documents-service"),
                        **service_config_and_code(a, "documents-service", "render policy document report")},
    "mn-21": lambda a: broker_settings(a),
    "mn-22": lambda a: {**config_of_clients(a, "web-vue"), **describe_named(a, "web-vue", "microservice")},
    "mn-23": lambda a: {"found": [1] * (a.total("producer", producer_kind=["rabbit_template", "pika", "amqp_go", "amqplib",
                                                                           "bunny"])
                                        + a.total("route", framework=["spring_rabbit", "pika", "amqp_go", "amqplib",
                                                                      "bunny", "sneakers"]))},
    "mn-24": lambda a: {"found": calls_from(a, "chat-service")["pairs"]},
    "mn-25": lambda a: no_callers(a, "GET /payment/accounts/{accountNumber}", "payment-service"),
    "mn-26": lambda a: search_everywhere(a, "calculate the premium of an insurance offer"),
    "mn-27": lambda a: search_everywhere(a, "open a payment account for a new policy"),
    "mn-28": lambda a: search_everywhere(a, "import bank statement payments and match them to policies"),
    "mn-29": lambda a: search_everywhere(a, "check agent password on login"),
    # aspnetrun (ninth blind set, session 6): written from the questions' words and SKILL.md after the key's commit,
    # before any run; services as the index names them by SKILL.md's rule (a .csproj's file name: Catalog.API, ...)
    "ac-01": lambda a: callers_of_route(a, "POST /basket/checkout", 3, "Basket.API"),
    "ac-02": lambda a: callers_of_route(a, "discount.DiscountProtoService/GetDiscount", 2, "Discount.Grpc"),
    "ac-03": lambda a: consumers_of_event(a, "Basket.API", "BasketCheckoutEvent"),
    "ac-04": lambda a: callers_of_route(a, "GET /products/{id}", 3, "Catalog.API"),
    "ac-05": lambda a: callers_of(a, "LoadUserBasket", "Shopping.Web"),
    "ac-06": lambda a: callers_of(a, "IBasketRepository.DeleteBasket", "Basket.API"),
    "ac-07": lambda a: callers_of_route(a, "GET /orders/customer/{customerId}", 3, "Ordering.API"),
    "ac-08": lambda a: trace(a, "checkout", "create order", "Shopping.Web", "Ordering.API"),
    "ac-09": lambda a: {"paths": [downstream(a, a.one("product detail add to cart", "Shopping.Web"), 7)]},
    "ac-10": lambda a: {"paths": [downstream(a, a.one("OrderList", "Shopping.Web"), 5)]},
    "ac-11": lambda a: trace(a, "save new order", "publish integration event", "Ordering.API", "Ordering.API"),
    "ac-12": lambda a: callers_of_route(a, "discount.DiscountProtoService/GetDiscount", 5, "Discount.Grpc"),
    "ac-13": lambda a: callers_of_route(a, "POST /basket", 4, "Basket.API"),
    "ac-14": lambda a: {"nodes": a.upstream(a.one("BasketCheckoutEvent"), 3)
                        + consumers_of_event(a, "Basket.API", "BasketCheckoutEvent")["nodes"]},
    "ac-15": lambda a: callers_of_route(a, "GET /orders/{orderName}", 4, "Ordering.API"),
    "ac-16": lambda a: pairs_by_kind(a, "Basket.API", ("http", "grpc", "async"), "from"),
    "ac-17": lambda a: through(a, "Shopping.Web"),
    "ac-18": leaves,
    "ac-19": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links
                                  if x.kind == "async" and x.match == "cross_service"]},
    "ac-20": lambda a: {"routes": served_endpoints(a, "Ordering.API", grpc=False)},
    "ac-21": lambda a: {"routes": served_endpoints(a, "Discount.Grpc")},
    "ac-22": lambda a: {"routes": served_endpoints(a, "YarpApiGateway")},
    "ac-23": lambda a: config_of_clients(a, "Basket.API", client_kind="grpc"),
    "ac-24": lambda a: config_of_clients(a, "Shopping.Web"),
    "ac-25": lambda a: describe_route_named(a, "YarpApiGateway", "catalog"),
    "ac-26": lambda a: messaging_settings(a, "Basket.API"),
    "ac-27": lambda a: service_config_and_code(a, "Ordering.API", "order fulfilment feature flag"),
    "ac-28": lambda a: no_link(a, "Shopping.Web", ("Discount.Grpc",)),
    "ac-29": lambda a: {"found": calls_from(a, "Catalog.API")["pairs"]},
    "ac-30": lambda a: client_callers_of_route(a, "POST /products", "Catalog.API"),
    "ac-31": lambda a: {"found": consumers_of_event(a, "Ordering.API", "OrderDto")["nodes"]},
    "ac-32": lambda a: no_link(a, "Ordering.API", ("Catalog.API", "Basket.API")),
    "ac-33": lambda a: search_everywhere(a, "subtract discount from cart item price"),
    "ac-34": lambda a: top_symbols(a, "cache basket in Redis", "Basket.API"),
    "ac-35": lambda a: service_config_and_code(a, "YarpApiGateway", "rate limiter fixed window"),
    "ac-36": lambda a: top_symbols(a, "order items from basket checkout event", "Ordering.API"),
    # quarkus-heroes (quarkusio/quarkus-super-heroes, tenth blind set, session 6): written from the questions' words and
    # SKILL.md after the key's commit, before any run; services as the index names them by SKILL.md's rule (no
    # spring.application.name: the Maven artifactId, which is each folder's name)
    "qh-01": lambda a: callers_of_route(a, "GET /api/heroes/random", 3, "rest-heroes"),
    "qh-02": lambda a: callers_of_route(a, "GET /api/villains/random", 3, "rest-villains"),
    "qh-03": lambda a: {"nodes": a.upstream(search_route(a, "narrate a fight", "rest-narration"), 3)},
    "qh-04": lambda a: {"nodes": [n for r in grpc_routes_named(a, "GetRandomLocation")["found"] for n in a.upstream(r, 2)]},
    "qh-05": lambda a: callers_of_route(a, "POST /api/fights", 2, "rest-fights"),
    "qh-06": lambda a: consumers_of_event(a, "rest-fights", "fights"),
    "qh-07": lambda a: {"nodes": a.upstream(search_route(a, "generate an image from a narration", "rest-narration"), 3)},
    "qh-08": lambda a: {"paths": [downstream(a, (top_symbols(a, "new fighters", "ui-super-heroes")["nodes"] or [None])[0],
                                             9)]},
    "qh-09": lambda a: {"paths": [downstream(a, search_route(a, "narrate a fight", "rest-fights"), 6)]},
    "qh-10": lambda a: {"paths": [downstream(a, search_route(a, "perform a fight", "rest-fights"), 6)]},
    "qh-11": lambda a: {"paths": [downstream(a, a.one("GET /api/fights/randomlocation", "rest-fights", "route"), 6)]},
    "qh-12": lambda a: callers_of(a, "HeroService.findRandomHero", "rest-heroes", 6),
    "qh-13": lambda a: {"nodes": [n for r in grpc_routes_named(a, "GetRandomLocation")["found"] for n in a.upstream(r, 5)]},
    "qh-14": lambda a: callers_of_route(a, "POST /api/narration/image", 5, "rest-narration"),
    "qh-15": lambda a: consumers_of_event(a, "rest-fights", "fights"),
    "qh-16": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "qh-17": lambda a: {"services": sorted({t for _, t in pairs_by_kind(a, "rest-fights", ("http", "grpc"), "from")["pairs"]})},
    "qh-18": lambda a: {"services": sorted({s for s, _ in calls_to(a, "rest-villains")["pairs"]})},
    "qh-19": leaves,
    "qh-20": lambda a: {"routes": served_endpoints(a, "rest-villains", grpc=False)},
    "qh-21": lambda a: {"routes": served_endpoints(a, "grpc-locations")},
    "qh-22": lambda a: {"routes": served_endpoints(a, "rest-fights")},
    "qh-23": lambda a: {**config_of_clients(a, "rest-fights", target_service="rest-heroes"),
                        **describe_named(a, "rest-fights", "microservice")},
    "qh-24": lambda a: {**config_of_clients(a, "rest-fights", client_kind="grpc"),
                        **describe_named(a, "rest-fights", "microservice")},
    "qh-25": lambda a: {**messaging_settings(a, "rest-fights"), **describe_named(a, "event-statistics", "microservice")},
    "qh-26": lambda a: {**config_of_clients(a, "ui-super-heroes"), **describe_named(a, "ui-super-heroes", "microservice")},
    "qh-27": lambda a: service_config_and_code(a, "rest-narration", "AI model provider for narration and images"),
    "qh-28": lambda a: {"found": calls_from(a, "rest-heroes")["pairs"]},
    "qh-29": lambda a: {"found": [r.label for r in a("find", kind="route", limit=500).results if "graphql" in r.label.lower()]},
    "qh-30": lambda a: no_callers(a, "DELETE /api/heroes/{id}", "rest-heroes"),
    "qh-31": lambda a: {"found": [1] * a.total("producer", microservice="event-statistics")},
    "qh-32": lambda a: search_everywhere(a, "decide the winner of a fight"),
    "qh-33": lambda a: top_symbols(a, "fallback when the villains service is down", "rest-fights"),
    "qh-34": lambda a: search_everywhere(a, "push live team statistics to browsers over a websocket"),
    "qh-35": lambda a: search_everywhere(a, "generate the narration text of a fight"),
    # teastore (DescartesResearch/TeaStore, eleventh blind set, session 6): written from the questions' words and
    # SKILL.md after the key's commit, before any run; services as SKILL.md names them (a reactor of Dockerfile'd
    # members: each member's Maven artifactId, auth, image, persistence, recommender, registry, webui)
    "ts-01": lambda a: callers_of_route(a, "GET /products/{id}", 2, "persistence"),
    "ts-02": lambda a: callers_of_route(a, "POST /useractions/login", 3, "auth"),
    "ts-03": lambda a: callers_of_route(a, "GET /categories", 2, "persistence"),
    "ts-04": lambda a: callers_of_route(a, "POST /orders", 2, "persistence"),
    "ts-05": lambda a: {"nodes": a.upstream(search_route(a, "product images", "image"), 4)},
    "ts-06": lambda a: {"nodes": a.upstream(search_route(a, "instances of a service", "registry"), 2)},
    "ts-07": lambda a: {"paths": a.trace(search_route(a, "place order confirm cart", "webui"),
                                         (top_symbols(a, "store order in database", "persistence")["nodes"] or [None])[0])},
    "ts-08": lambda a: {"paths": a.trace(a.route_named("webui", "/product"),
                                         (top_symbols(a, "recommend products", "recommender")["nodes"] or [None])[0])},
    "ts-09": lambda a: {"paths": [downstream(a, (top_symbols(a, "get training data and train", "recommender")["nodes"]
                                                 or [None])[0], 3)]},
    "ts-10": lambda a: {"paths": a.trace(a.route_named("webui", "loginaction"),
                                         (top_symbols(a, "find user by name", "persistence")["nodes"] or [None])[0])},
    "ts-11": lambda a: callers_of_route(a, "GET /users/name/{name}", 5, "persistence"),
    "ts-12": lambda a: callers_of_route(a, "POST /cart/add/{pid}", 4, "auth"),
    "ts-13": lambda a: {"services": sorted({s for s, _ in calls_to(a, "persistence")["pairs"]})},
    "ts-14": lambda a: callers_of_route(a, "GET /train/isready", 3, "recommender"),
    "ts-15": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links
                                  if x.match == "cross_service" and x.kind == "http"]},
    "ts-16": lambda a: {"services": sorted({t for _, t in calls_from(a, "webui")["pairs"]})},
    "ts-17": lambda a: no_link(a, "auth", ("recommender", "image")),
    "ts-18": lambda a: {"routes": served_endpoints(a, "auth")},
    "ts-19": lambda a: {"routes": served_endpoints(a, "recommender", grpc=False)},
    "ts-20": lambda a: {"routes": [r for r in served_endpoints(a, "persistence") if "/products" in r]},
    "ts-21": lambda a: config_of_clients_to(a, "registry", "registry URL address"),
    "ts-22": lambda a: {**config_of_clients(a, "webui", target_service="auth"),
                        **describe_named(a, "auth", "microservice")},
    "ts-23": lambda a: service_config_and_code(a, "persistence", "database host connection"),
    "ts-24": lambda a: no_callers(a, "POST /recommendsingle", "recommender"),
    "ts-25": lambda a: {"found": [1] * (a.total("producer")
                                        + a.total("route", framework=["spring_kafka", "spring_rabbit", "spring_jms",
                                                                      "spring_cloud_stream", "pika", "amqp_go",
                                                                      "amqplib", "bunny", "sneakers"]))},
    "ts-26": lambda a: callers_of_routes_named(a, "image", ("setcachesize", "/state")),
    "ts-27": lambda a: no_callers(a, "POST /users", "persistence"),
    "ts-28": lambda a: top_symbols(a, "check password login", "auth"),
    "ts-29": lambda a: {"nodes": [c.id for c in a("find", kind="client", filter={
        "microservice": "webui", "target_service": "recommender"}, limit=20).results]
        + top_symbols(a, "regenerate database retrain recommender", "webui")["nodes"]},
    "ts-30": lambda a: search_everywhere(a, "shopping cart"),
    # ftgo (microservices-patterns/ftgo-application, twelfth blind set, session 7): written from the questions' words
    # and SKILL.md after the key's commit, before any run; services by their Gradle folder / spring.application.name
    "ft-01": lambda a: callers_of_route(a, "GET /consumers/{consumerId}", 2, "ftgo-consumer-service"),
    "ft-02": lambda a: callers_of_route(a, "GET /orders/{orderId}", 2, "ftgo-order-service"),
    "ft-03": lambda a: consumers_of_producers(a, "ftgo-order-service"),
    "ft-04": lambda a: {"nodes": search_everywhere(a, "send CreateTicket command")["nodes"]
                        + top_symbols(a, "handle CreateTicket command", "ftgo-kitchen-service")["nodes"]
                        + callers_of_every(a, "CreateTicket")["nodes"]},
    "ft-05": lambda a: callers_of(a, "KitchenService.accept", "ftgo-kitchen-service"),
    "ft-06": lambda a: callers_of_route(a, "GET /restaurants/{restaurantId}", 2, "ftgo-restaurant-service"),
    "ft-07": lambda a: trace(a, "POST /orders", "KitchenService.createTicket", "ftgo-api-gateway", "ftgo-kitchen-service",
                             "route"),
    "ft-08": lambda a: trace(a, "POST /tickets/{ticketId}/accept", "DeliveryService.scheduleDelivery",
                             "ftgo-kitchen-service", "ftgo-delivery-service", "route"),
    "ft-09": lambda a: trace(a, "POST /consumers", "AccountingService.create", "ftgo-consumer-service",
                             "ftgo-accounting-service", "route"),
    "ft-10": lambda a: trace(a, "resolveOrders", "OrderHistoryController.getOrders", "ftgo-api-gateway-graphql",
                             "ftgo-order-history-service"),
    "ft-11": lambda a: callers_of_route(a, "GET /orders", 3, "ftgo-order-history-service"),
    "ft-12": lambda a: callers_of_route(a, "POST /consumers", 3, "ftgo-consumer-service"),
    "ft-13": lambda a: consumers_of_event(a, "ftgo-restaurant-service", "Restaurant"),
    "ft-14": lambda a: callers_of(a, "KitchenService.createTicket", "ftgo-kitchen-service", 4),
    "ft-15": lambda a: calls_from(a, "ftgo-order-service"),
    "ft-16": lambda a: calls_from(a, "ftgo-api-gateway"),
    "ft-17": lambda a: calls_to(a, "ftgo-delivery-service"),
    "ft-18": leaves,
    "ft-19": lambda a: {"routes": served_endpoints(a, "ftgo-order-service", grpc=False)},
    "ft-20": lambda a: {"routes": a.routes("ftgo-api-gateway")},
    "ft-21": lambda a: {"routes": served_endpoints(a, "ftgo-delivery-service", grpc=False)},
    "ft-22": lambda a: {**config_of_clients(a, "ftgo-api-gateway", target_service="ftgo-order-service"),
                        **describe_named(a, "ftgo-api-gateway", "microservice")},
    "ft-23": lambda a: config_of_clients(a, "ftgo-api-gateway-graphql", target_service="ftgo-restaurant-service"),
    "ft-24": lambda a: between(a, "ftgo-order-service", "ftgo-accounting-service"),
    "ft-25": lambda a: service_config_and_code(a, "ftgo-order-history-service", "DynamoDB endpoint"),
    "ft-26": lambda a: no_link(a, "ftgo-api-gateway", ("ftgo-kitchen-service", "ftgo-delivery-service",
                                                       "ftgo-accounting-service")),
    "ft-27": lambda a: no_callers(a, "GET /accounts/{accountId}", "ftgo-accounting-service"),
    "ft-28": lambda a: {"found": [c.id for c in a("find", kind="client", filter={
        "microservice": "ftgo-order-service", "match": ["cross_service", "ambiguous", "no_route"]}, limit=10).results]},
    "ft-29": lambda a: direct_calls(a, "ftgo-api-gateway-graphql", "ftgo-delivery-service"),
    "ft-30": lambda a: search_everywhere(a, "authorize the payment of an order"),
    "ft-31": lambda a: search_everywhere(a, "validate that a consumer may place an order"),
    "ft-32": lambda a: search_everywhere(a, "choose a courier for a delivery"),

    # wild-workouts (ThreeDotsLabs/wild-workouts-go-ddd-example, thirteenth blind set, session 7): written from the
    # questions' words and SKILL.md after the key's commit, before any run; services as SKILL.md names them (the last
    # element of each go.mod's module path: trainer, trainings, users; the Vue front end by its package.json name,
    # wild-workouts)
    "ww-01": lambda a: callers_of_route(a, "trainer.TrainerService/ScheduleTraining", 2, "trainer"),
    "ww-02": lambda a: {"nodes": a.upstream(a.route_named("users", "UpdateTrainingBalance"), 2)},
    "ww-03": lambda a: callers_of_route(a, "DELETE /api/trainings/{trainingUUID}", 2, "trainings"),
    "ww-04": lambda a: callers_of_route(a, "GET /api/trainer/calendar", 2, "trainer"),
    "ww-05": lambda a: callers_of_route(a, "users.UsersService/GetTrainingBalance", 2, "users"),
    "ww-06": lambda a: callers_of(a, "CancelBalanceDelta", "trainings"),
    "ww-07": lambda a: callers_of_every(a, "UpdateHour"),
    "ww-08": lambda a: {"paths": [downstream(a, (top_symbols(a, "schedule training", "wild-workouts")["nodes"]
                                                 or [None])[0], 8)]},
    "ww-09": lambda a: {"paths": [downstream(a, route_where(a, "trainings", "DELETE", "/trainings"), 6)]},
    "ww-10": lambda a: {"paths": [downstream(a, a.route_named("trainings", "approve"), 6)]},
    "ww-11": lambda a: {"paths": [downstream(a, (top_symbols(a, "set schedule make hours available",
                                                             "wild-workouts")["nodes"] or [None])[0], 8)]},
    "ww-12": lambda a: callers_of_route(a, "trainer.TrainerService/ScheduleTraining", 4, "trainer"),
    "ww-13": lambda a: callers_of_route(a, "users.UsersService/UpdateTrainingBalance", 4, "users"),
    "ww-14": lambda a: callers_of_route(a, "PUT /api/trainings/{trainingUUID}/request-reschedule", 4, "trainings"),
    "ww-15": lambda a: callers_of_route(a, "GET /api/users/current", 4, "users"),
    "ww-16": lambda a: calls_from(a, "trainings"),
    "ww-17": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "ww-18": leaves,
    "ww-19": lambda a: calls_to(a, "trainer"),
    "ww-20": lambda a: {"routes": [r for r in a.routes("trainings") if not r.startswith("grpc ")]},
    "ww-21": lambda a: {"routes": a.routes("trainer", framework="grpc")},
    "ww-22": lambda a: {"routes": served_endpoints(a, "users")},
    "ww-23": lambda a: config_of_clients(a, "trainings", target_service="trainer", client_kind="grpc"),
    "ww-24": lambda a: {**config_of_clients(a, "wild-workouts", target_service="trainings"),
                        **describe_named(a, "wild-workouts", "microservice")},
    "ww-25": lambda a: service_config_and_code(a, "trainer", "choose to run the HTTP or the gRPC server"),
    "ww-26": lambda a: {**config_of_clients(a, "users", client_kind="grpc"),
                        **describe_named(a, "users", "microservice")},
    "ww-27": lambda a: {"found": calls_from(a, "trainer")["pairs"]},
    "ww-28": lambda a: no_callers(a, "trainer.TrainerService/IsHourAvailable", "trainer"),
    "ww-29": lambda a: {"found": [1] * (a.total("producer")
                                        + a.total("route", framework=[
                                            "micronaut_kafka", "micronaut_rabbit", "smallrye_messaging", "spring_kafka",
                                            "spring_rabbit", "spring_jms", "spring_cloud_stream", "sarama", "kafka_go",
                                            "confluent_kafka", "kafka_python", "aiokafka", "kafkajs", "node_rdkafka",
                                            "kafka_clients", "confluent_kafka_dotnet", "pika", "amqp_go", "amqplib",
                                            "rabbitmq_client", "ruby_kafka", "rdkafka", "racecar", "bunny",
                                            "sneakers", "event_bus", "masstransit", "nservicebus"]))},
    "ww-30": lambda a: no_callers(a, "trainer.TrainerService/MakeHourAvailable", "trainer"),
    "ww-31": lambda a: {"found": a.routes("users", http_method="DELETE")},
    "ww-32": lambda a: top_symbols(a, "mark hour as booked", "trainer"),
    "ww-33": lambda a: top_symbols(a, "trainings an attendee gets back when a training is cancelled", "trainings"),
    "ww-34": lambda a: search_everywhere(a, "check the token of incoming HTTP requests"),
    "ww-35": lambda a: top_symbols(a, "training balance stored and changed", "users"),

    # fabrikam (mspnp AKS Fabrikam Drone Delivery, fourteenth blind set, session 8): written from the questions' words
    # and SKILL.md after the key's commit, before any run; services as SKILL.md names them: ingestion (Maven artifactId:
    # its spring.application.name is ${CONTAINER_NAME} with no default), the package service by its package.json name
    # (fabrikam-drone-delivery-package-service), and the three .NET services by the folder their Dockerfile builds
    # (workflow, delivery, dronescheduler: the folder holds the .sln, the Dockerfile and the projects, no build file)
    "fb-01": lambda a: callers_of_route(a, "GET /api/packages/{packageId}", 3, "package"),
    "fb-02": lambda a: callers_of_route(a, "PUT /api/DroneDeliveries/{id}", 3, "dronescheduler"),
    "fb-03": lambda a: callers_of_route(a, "PUT /api/Deliveries/{id}", 3, "delivery"),
    "fb-04": lambda a: callers_of(a, "DeliveryRepository.GetAsync", "delivery"),
    "fb-05": lambda a: callers_of(a, "enqueuMessageAsync", "ingestion"),
    "fb-06": lambda a: callers_of(a, "ClientPool.getConnection", "ingestion"),
    "fb-07": lambda a: callers_of(a, "createOrUpdate", "package", depth=3),
    "fb-08": lambda a: {"paths": [downstream(a, a.one("POST /api/deliveryrequests", "ingestion", "route"), 10)]},
    "fb-09": lambda a: (lambda owner: {"paths": [a.upstream(owner, 2) + downstream(a, owner, 4)]})(
        client_to(a, "workflow", "dronescheduler")),
    "fb-10": lambda a: (lambda owner: {"paths": [a.upstream(owner, 1) + downstream(a, owner, 4)]})(
        client_to(a, "workflow", "fabrikam-drone-delivery-package-service")),
    "fb-11": lambda a: {"paths": [downstream(a, first_route(a, "workflow"), 6)]},
    "fb-12": lambda a: callers_of_route(a, "PUT /api/Deliveries/{id}", 4, "delivery"),
    "fb-13": lambda a: callers_of_route(a, "GET /api/packages/{packageId}", 4, "package"),
    "fb-14": lambda a: callers_of(a, "PackageServiceCaller.UpsertPackageAsync", "workflow", depth=3),
    "fb-15": lambda a: callers_of_route(a, "PUT /api/DroneDeliveries/{id}", 4, "dronescheduler"),
    "fb-16": lambda a: calls_from(a, "workflow"),
    "fb-17": leaves,
    "fb-18": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "fb-19": lambda a: {"services": sorted({r.node.microservice for p in a("find", kind="producer", filter={
        "microservice": "ingestion"}, limit=20).results for r in a("impact", id=p.id, direction="out", depth=1,
                                                                    limit=100).results
        if r.node.microservice and r.node.microservice != "ingestion"})},
    "fb-20": lambda a: {"routes": served_endpoints(a, "delivery", grpc=False)},
    "fb-21": lambda a: {"routes": served_endpoints(a, "fabrikam-drone-delivery-package-service")},
    "fb-22": lambda a: {"routes": served_endpoints(a, "ingestion")},
    "fb-23": lambda a: {"routes": served_endpoints(a, "dronescheduler", grpc=False)},
    "fb-24": lambda a: ([a("describe", id=c.id) for c in a("find", kind="client", filter={"microservice": "workflow"},
                                                              limit=10).results if "package" in c.label.lower()],
                        describe_named(a, "workflow", "microservice"))[1],
    "fb-25": lambda a: ([a("describe", id=r.id) for r in a("find", kind="route", filter={"microservice": "workflow"},
                                                              limit=1).results],
                        describe_named(a, "workflow", "microservice"))[1],
    "fb-26": lambda a: messaging_settings(a, "ingestion"),
    "fb-27": lambda a: describe_named(a, "delivery", "microservice"),
    "fb-28": lambda a: service_config_and_code(a, "delivery", "Redis cache endpoint"),
    "fb-29": lambda a: service_config_and_code(a, "fabrikam-drone-delivery-package-service", "database connection string"),
    "fb-30": lambda a: client_callers_of_route(a, "POST /api/Deliveries/{id}/confirmations", "delivery"),
    "fb-31": lambda a: {"found": [n.id for kind in ("producer", "route") for n in a("find", kind=kind, limit=500).results
                                  if "eventhub" in n.label.lower().replace(" ", "")]},
    "fb-32": lambda a: client_callers_of_route(a, "DELETE /api/DroneDeliveries/{id}", "dronescheduler"),
    "fb-33": lambda a: {"found": served_endpoints(a, "workflow", grpc=False)},
    "fb-34": lambda a: (lambda start: {"found": [] if start is None else [
        r.node.id for r in a("impact", id=start, direction="out", depth=10, limit=500).results
        if r.node.kind == "route" and r.node.microservice == "delivery"]})(
        a.one("DELETE /api/deliveryrequests/{id}", "ingestion", "route")),
    "fb-35": lambda a: search_everywhere(a, "assign a drone to a delivery"),
    "fb-36": lambda a: (lambda hits: {"nodes": hits + a.upstream(hits[0] if hits else None, 1)})(
        top_symbols(a, "record delivery status tracking event", "delivery")["nodes"]),
    "fb-37": lambda a: top_symbols(a, "dead-letter a message that cannot be processed", "workflow"),
    "fb-38": lambda a: top_symbols(a, "retry and circuit breaker policies for HTTP calls", "workflow"),

    # retail-store (aws-containers/retail-store-sample-app, fifteenth blind set, session 9): written from the questions'
    # words and SKILL.md after the key's commit, before any run; services as SKILL.md names them: the Maven artifactIds
    # (ui, carts, orders: no spring.application.name), the go.mod module's last element (catalog) and the package.json
    # name (checkout-nest)
    "rt-01": lambda a: callers_of_route(a, "GET /catalog/products/{id}", 2, "catalog"),
    "rt-02": lambda a: {"nodes": a.upstream(route_where(a, "orders", "POST", "/orders"), 3)},
    "rt-03": lambda a: callers_of_route(a, "DELETE /carts/{customerId}", 2, "carts"),
    "rt-04": lambda a: callers_of_route(a, "POST /checkout/{customerId}/update", 2, "checkout-nest"),
    "rt-05": lambda a: callers_of_route(a, "GET /catalog/size", 2, "catalog"),
    "rt-06": lambda a: {"paths": [downstream(a, search_route(a, "place order submit checkout payment", "ui"), 10)]},
    "rt-07": lambda a: {"paths": [downstream(a, search_route(a, "add product to cart", "ui"), 8)]},
    "rt-08": lambda a: (lambda owner: {"paths": [a.upstream(owner, 6) + downstream(a, owner, 2)]})(
        producer_owner(a, "orders")),
    "rt-09": lambda a: {"paths": [downstream(a, search_route(a, "product page recommendations", "ui"), 6)]},
    "rt-10": lambda a: callers_of_route(a, "POST /orders", 6, "orders"),
    "rt-11": lambda a: callers_of_route(a, "POST /checkout/{customerId}/update", 4, "checkout-nest"),
    "rt-12": lambda a: callers_of_route(a, "DELETE /carts/{customerId}", 5, "carts"),
    "rt-13": lambda a: calls_from(a, "ui"),
    "rt-14": leaves,
    "rt-15": lambda a: calls_from(a, "checkout-nest"),
    "rt-16": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "rt-17": lambda a: {"routes": served_endpoints(a, "carts", grpc=False)},
    "rt-18": lambda a: {"routes": served_endpoints(a, "checkout-nest")},
    "rt-19": lambda a: {"routes": served_endpoints(a, "catalog")},
    "rt-20": lambda a: config_of_clients(a, "checkout-nest"),
    "rt-21": lambda a: config_of_clients(a, "ui", target_path_prefix="/catalog"),
    "rt-22": lambda a: messaging_settings(a, "orders"),
    "rt-23": lambda a: service_config_and_code(a, "carts", "DynamoDB endpoint and table name"),
    "rt-24": lambda a: {"found": consumers_of_producers(a, "orders")["nodes"]},
    "rt-25": lambda a: app_callers_of_route(a, "GET /orders", "orders"),
    "rt-26": lambda a: no_callers(a, "POST /catalog/reindex", "catalog"),
    "rt-27": lambda a: {"found": [n.node.id for c in a("find", kind="client", filter={
        "microservice": "ui", "target_path_prefix": "/recommendations"}, limit=5).results
        for n in a("neighbors", id=c.id, edge_types=["HTTP_CALLS"]).neighbors]},
    "rt-28": lambda a: {"found": [c.id for c in a("find", kind="client", filter={"microservice": "checkout-nest"},
                                                  limit=50).results if "ship" in c.label.lower()]},
    "rt-29": lambda a: top_symbols(a, "checkout total with tax and shipping", "checkout-nest"),
    "rt-30": lambda a: top_symbols(a, "send message when an order is created", "orders"),
    "rt-31": lambda a: top_symbols(a, "read products from the database", "catalog"),

    # tailwind (microsoft/TailwindTraders-Backend, sixteenth blind set, session 10): written from the questions' words
    # and SKILL.md after the key's commit, before any run; services as SKILL.md names them: a .csproj's AssemblyName or
    # file name (Tailwind.Traders.Product.Api, Tailwind.Traders.WebBff, Tailwind.Traders.MobileBff ...), the package.json
    # name (tailwind.traders.coupon.api, shoppingcartserver), the Maven artifactId (Tailwind.Traders.Stock.Api)
    "tw-01": lambda a: callers_of_route(a, "GET /v1/product/recommended", 2, "Tailwind.Traders.Product.Api"),
    "tw-02": lambda a: callers_of_route(a, "GET /v1/stock/{id}", 2, "Tailwind.Traders.Stock.Api"),
    "tw-03": lambda a: callers_of_route(a, "POST /v1/oauth2/token", 2, "Tailwind.Traders.Login.Api"),
    "tw-04": lambda a: callers_of_service(a, "Tailwind.Traders.ImageClassifier.Api", 2),
    "tw-05": lambda a: callers_of_route(a, "GET /v1/coupon", 2, "tailwind.traders.coupon.api"),
    "tw-06": lambda a: {"paths": [downstream(a, a.one("GET /v1/products/{id}", "Tailwind.Traders.WebBff", "route"), 6)]},
    "tw-07": lambda a: {"paths": [downstream(a, search_route(a, "upload photo image classify suggested products",
                                                             "Tailwind.Traders.MobileBff"), 8)]},
    "tw-08": lambda a: {"paths": [downstream(a, a.one("POST /v1/login", "Tailwind.Traders.WebBff", "route"), 6)]},
    "tw-09": lambda a: {"paths": [downstream(a, search_route(a, "landing page popular products",
                                                             "Tailwind.Traders.WebBff"), 6)]},
    "tw-10": lambda a: callers_of_route(a, "GET /v1/product/tag/{tag}", 3, "Tailwind.Traders.Product.Api"),
    "tw-11": lambda a: callers_of_route(a, "GET /v1/profile/me", 3, "Tailwind.Traders.Profile.Api"),
    "tw-12": lambda a: callers_of_route(a, "PUT /v1/oauth2/refresh", 3, "Tailwind.Traders.Login.Api"),
    "tw-13": lambda a: calls_from(a, "Tailwind.Traders.WebBff"),
    "tw-14": leaves,
    "tw-15": lambda a: (lambda web, mobile: {"pairs": [p for p in web if p[1] not in {t for _, t in mobile}]})(
        calls_from(a, "Tailwind.Traders.WebBff")["pairs"], calls_from(a, "Tailwind.Traders.MobileBff")["pairs"]),
    "tw-16": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "tw-17": lambda a: {"routes": served_endpoints(a, "Tailwind.Traders.Product.Api")},
    "tw-18": lambda a: {"routes": served_endpoints(a, "Tailwind.Traders.WebBff")},
    "tw-19": lambda a: {"routes": served_endpoints(a, "shoppingcartserver")},
    "tw-20": lambda a: config_of_clients(a, "Tailwind.Traders.WebBff", target_service="Tailwind.Traders.Product.Api"),
    "tw-21": lambda a: {**describe_named(a, "Tailwind.Traders.Stock.Api", "microservice"),
                        **config_of_clients_to(a, "Tailwind.Traders.Stock.Api", "stock API URL")},
    "tw-22": lambda a: {**config_of_clients(a, "Tailwind.Traders.MobileBff", target_service="tailwind.traders.coupon.api"),
                        **describe_named(a, "tailwind.traders.coupon.api", "microservice")},
    "tw-23": lambda a: service_config_and_code(a, "Tailwind.Traders.WebBff", "rewards registration user service endpoint"),
    "tw-24": lambda a: no_callers(a, "POST /v1/consumptions/stock/{id}", "Tailwind.Traders.Stock.Api"),
    "tw-25": lambda a: {"found": calls_to(a, "shoppingcartserver")["pairs"]},
    "tw-26": lambda a: direct_calls(a, "Tailwind.Traders.MobileBff", "Tailwind.Traders.Stock.Api"),
    "tw-27": lambda a: no_callers(a, "POST /v1/profile", "Tailwind.Traders.Profile.Api"),
    "tw-28": lambda a: {"found": [p.id for p in a("find", kind="producer", limit=5).results]},
    "tw-29": lambda a: top_symbols(a, "pass the signed-in user name to backend services", "Tailwind.Traders.WebBff"),
    "tw-30": lambda a: search_everywhere(a, "classify an uploaded image with the machine learning model"),
    "tw-31": lambda a: search_everywhere(a, "choose the recommended products"),

    # go-random-chat (minghsu0107/go-random-chat, eighteenth blind set, session 11): written from the questions' words
    # and SKILL.md after the key's commit, before any run; services as the questions name them, which is each one's
    # cobra subcommand, its pkg/<svc> folder and (but for chat, whose compose service is random-chat) its compose
    # service. SKILL.md splits one Go module into services only by a Dockerfile that builds a subfolder's package, and
    # both Dockerfiles here build ./randomchat.go (one binary, one subcommand per service), so the index may hold one
    # service (go-random-chat, go.mod's last element): then these plans measure that miss
    "rc-01": lambda a: callers_of_route(a, "user.UserService/GetUser", 2, "user"),
    "rc-02": lambda a: callers_of_route(a, "forwarder.ForwardService/RegisterChannelSession", 2, "forwarder"),
    "rc-03": lambda a: callers_of_route(a, "chat.UserService/AddUserToChannel", 2, "chat"),
    "rc-04": lambda a: consumers_of_producers(a, "chat"),
    "rc-05": lambda a: callers_of_route(a, "GET /api/user/me", 2, "user"),
    "rc-06": lambda a: (lambda hits: {"paths": [downstream(a, hits[0] if hits else None, 10)]})(
        top_symbols(a, "text message sent on the chat websocket broadcast", "chat")["nodes"]),
    "rc-07": lambda a: (lambda route: {"paths": [a.upstream(route, 3) + downstream(a, route, 4)]})(
        a.route_named("chat", "CreateChannel")),
    "rc-08": lambda a: (lambda hits: {"paths": [downstream(a, hits[0] if hits else None, 8)]})(
        top_symbols(a, "check session cookie", "match")["nodes"]),
    "rc-09": lambda a: (lambda route: {"paths": [a.upstream(route, 4) + downstream(a, route, 3)]})(
        a.route_named("forwarder", "Register")),
    "rc-10": lambda a: callers_of_route(a, "user.UserService/GetUserIdBySession", 4, "user"),
    "rc-11": lambda a: callers_of_route(a, "chat.ChannelService/CreateChannel", 4, "chat"),
    "rc-12": lambda a: callers_of_route(a, "forwarder.ForwardService/RemoveChannelSession", 4, "forwarder"),
    "rc-13": lambda a: calls_from(a, "match"),
    "rc-14": lambda a: calls_from(a, "chat"),
    "rc-15": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links
                                  if x.kind == "async" and x.match in ("cross_service", "intra_service")]},
    "rc-16": lambda a: (lambda drawn: {"services": sorted(
        s.name for s in a("find", kind="microservice", filter={"deployable": True}, limit=100).results
        if s.name not in {x.source for x in drawn.links if x.kind in ("http", "grpc") and x.target in drawn.services
                          and x.target != x.source})})(a("service_map")),
    "rc-17": lambda a: {"routes": served_endpoints(a, "chat", grpc=False)},
    "rc-18": lambda a: {"routes": a.routes("chat", framework="grpc")},
    "rc-19": lambda a: {"routes": served_endpoints(a, "uploader", grpc=False)},
    "rc-20": lambda a: {**config_of_clients(a, "match", target_service="chat"), **describe_named(a, "chat", "microservice")},
    "rc-21": lambda a: service_config_and_code(a, "user", "gRPC server port"),
    "rc-22": lambda a: service_config_and_code(a, "uploader", "authorise upload for a channel header"),
    "rc-23": lambda a: {**describe_named(a, "chat", "microservice"),
                        **config_by_search(a, "Kafka topic subscriber id for forwarded messages", "chat")},
    "rc-24": lambda a: {"found": [c.id for c in a("find", kind="client", filter={
        "microservice": "web", "match": ["cross_service", "ambiguous", "no_route"]}, limit=50).results
        if c.file and c.file.endswith(".go")]},
    "rc-25": lambda a: client_callers_of_route(a, "GET /api/user/oauth2/google/callback", "user"),
    "rc-26": lambda a: {"found": [r for r in served_endpoints(a, "forwarder", grpc=False) if not r.endswith(" /metrics")]},
    "rc-27": lambda a: direct_calls(a, "uploader", "chat"),
    "rc-28": lambda a: grpc_routes_named(a, "delete"),
    "rc-29": lambda a: search_everywhere(a, "create chat channel access token"),
    "rc-30": lambda a: search_everywhere(a, "pair two waiting users for a random chat"),
    "rc-31": lambda a: top_symbols(a, "per-channel upload rate limit", "uploader"),
    # yas (nashtech-garage/yas, seventeenth blind set, session 11): written from the questions' words and SKILL.md after
    # the key's commit, before any run (run with --system-dir yas=/tmp/yas); services as SKILL.md names them: the
    # spring.application.name (product, location, order, ...), else the Maven artifactId (storefront-bff,
    # backoffice-bff), the package.json name (storefront, backoffice); paths as the questions write them (context path
    # first: /product/backoffice/...)
    "ys-01": lambda a: callers_of_route(a, "PUT /product/backoffice/products/subtract-quantity", 2, "product"),
    "ys-02": lambda a: {"nodes": [n for r in a("find", kind="route", filter={"microservice": "location"}, limit=500).results
                                  if "/storefront/addresses" in r.label for n in a.upstream(r.id, 2)]},
    "ys-03": lambda a: callers_of_service(a, "media", 2),
    "ys-04": lambda a: callers_of_route(a, "GET /customer/storefront/customer/profile", 2, "customer"),
    "ys-05": lambda a: callers_of_route(a, "GET /product/storefront/products-es/{productId}", 2, "product"),
    "ys-06": lambda a: {"paths": [downstream(a, a.one("POST /payment/capture", "payment", "route"), 8)]},
    "ys-07": lambda a: {"paths": [downstream(a, search_route(a, "product change event sync Elasticsearch index", "search"), 8)]},
    "ys-08": lambda a: {"paths": [downstream(a, a.one("POST /order/storefront/orders", "order", "route"), 8)]},
    "ys-09": lambda a: {"paths": [downstream(a, search_route(a, "customer posts a rating", "rating"), 10)]},
    "ys-10": lambda a: callers_of_route(a, "GET /location/storefront/addresses/{id}", 3, "location"),
    "ys-11": lambda a: callers_of_route(a, "PUT /product/backoffice/products/update-quantity", 3, "product"),
    "ys-12": lambda a: callers_of_route(a, "PUT /order/storefront/orders/status", 3, "order"),
    "ys-13": lambda a: calls_from(a, "order"),
    "ys-14": leaves,
    "ys-15": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "ys-16": lambda a: pairs_by_kind(a, "product", ("async",), "from"),
    "ys-17": lambda a: {"routes": served_endpoints(a, "cart")},
    "ys-18": lambda a: {"routes": served_endpoints(a, "tax")},
    "ys-19": lambda a: {"routes": served_endpoints(a, "payment", grpc=False)},
    "ys-20": lambda a: config_of_clients(a, "order", target_service="tax"),
    "ys-21": lambda a: {**describe_named(a, "media", "microservice"), **config_of_routes(a, "media")},
    "ys-22": lambda a: {**describe_route_named(a, "storefront-bff", "/api/"), **describe_named(a, "nginx", "microservice"),
                        **describe_named(a, "cart", "microservice")},
    "ys-23": lambda a: {**describe_route_named(a, "storefront-bff", "/api/promotion"),
                        **describe_route_named(a, "backoffice-bff", "/api/promotion")},
    "ys-24": lambda a: direct_calls(a, "product", "rating"),
    "ys-25": lambda a: {"found": calls_to(a, "delivery")["pairs"]},
    "ys-26": lambda a: {"found": [p.id for p in a("find", kind="producer", filter={"microservice": "product"},
                                                  limit=5).results]},
    "ys-27": lambda a: {"found": callers_of(a, "TaxService.getTaxPercentByAddress", "order")["nodes"]},
    "ys-28": lambda a: {"found": [r.id for bff in ("storefront-bff", "backoffice-bff")
                                  for r in a("find", kind="route", filter={"microservice": bff}, limit=500).results
                                  if "/api/payment" in r.label]},
    "ys-29": lambda a: top_symbols(a, "sign the webhook payload before sending it", "webhook"),
    "ys-30": lambda a: search_everywhere(a, "decrease product stock quantities when an order is placed"),
    "ys-31": lambda a: top_symbols(a, "find products similar to a given product", "recommendation"),
    # eshopsupport (dotnet/eShopSupport, nineteenth blind set, session 11): written from the questions' words and
    # SKILL.md after the key's commit, before any run (run with --system-dir eshopsupport=/tmp/eshopsupport); services as
    # SKILL.md names them: a .csproj's file name (Backend, StaffWebUI, CustomerWebUI, IdentityServer, DataIngestor; the
    # AppHost's AddProject names are aliases). The Python inference folder has no build file SKILL.md reads, so its
    # service name is not known beforehand: its plans start from its route (POST /classify, POST /embed), not its name
    "esu-01": lambda a: callers_of_route(a, "POST /api/assistant/chat", 2, "Backend"),
    "esu-02": lambda a: callers_of_route(a, "POST /classify", 2),
    "esu-03": lambda a: {"nodes": [n for r in a("find", kind="route", filter={"microservice": "Backend"}, limit=500).results
                                   if "/customer/tickets" in r.label for n in a.upstream(r.id, 2)]},
    "esu-04": lambda a: callers_of_route(a, "GET /manual", 2, "Backend"),
    "esu-05": lambda a: consumers_of_producers(a, "Backend"),
    "esu-06": lambda a: (lambda hits: {"paths": [downstream(a, hits[0] if hits else None, 8)]})(
        top_symbols(a, "customer submits a new support ticket", "CustomerWebUI")["nodes"]),
    "esu-07": lambda a: (lambda hits: {"paths": [downstream(a, hits[0] if hits else None, 10)]})(
        top_symbols(a, "send a question to the ticket assistant", "StaffWebUI")["nodes"]),
    "esu-08": lambda a: (lambda hits: {"paths": [downstream(a, hits[0] if hits else None, 10)]})(
        top_symbols(a, "customer posts a message on a ticket", "CustomerWebUI")["nodes"]),
    "esu-09": lambda a: {"paths": [downstream(a, a.one("GET /manual", "StaffWebUI", "route"), 6)]},
    "esu-10": lambda a: callers_of_route(a, "PUT /api/ticket/{ticketId}", 3, "Backend"),
    "esu-11": lambda a: callers_of_route(a, "POST /classify", 5),
    "esu-12": lambda a: callers_of_route(a, "GET /api/categories", 3, "Backend"),
    "esu-13": lambda a: calls_from(a, "Backend"),
    "esu-14": lambda a: calls_to(a, "Backend"),
    "esu-15": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links
                                   if x.kind == "async" and x.match in ("cross_service", "intra_service")]},
    "esu-16": lambda a: (lambda drawn: {"services": sorted(
        s.name for s in a("find", kind="microservice", filter={"deployable": True}, limit=100).results
        if s.name not in {x.source for x in drawn.links if x.kind == "http" and x.target in drawn.services
                          and x.target != x.source})})(a("service_map")),
    "esu-17": lambda a: {"routes": served_endpoints(a, "Backend", grpc=False)},
    "esu-18": lambda a: (lambda found: {"routes": served_endpoints(a, found, grpc=False) if found else []})(
        (lambda r: r.node.microservice if r.status == "one" else
         next((c.node.microservice for c in r.candidates), None))(a("resolve", identifier="POST /classify", hint_kind="route"))),
    "esu-19": lambda a: {"routes": served_endpoints(a, "StaffWebUI", grpc=False)},
    "esu-20": lambda a: {**config_of_clients(a, "Backend", target_path_prefix="/classify"),
                         **describe_named(a, "Backend", "microservice")},
    "esu-21": lambda a: {**config_of_clients(a, "StaffWebUI", target_service="Backend"),
                         **describe_named(a, "Backend", "microservice")},
    "esu-22": lambda a: service_config_and_code(a, "Backend", "LLM chat completion client model"),
    "esu-23": lambda a: service_config_and_code(a, "Backend", "identity server URL token authority"),
    "esu-24": lambda a: no_callers(a, "POST /embed"),
    "esu-25": lambda a: {"found": [(x.source, label) for x in a("service_map", microservice="CustomerWebUI").links
                                   if _same(x.source, "CustomerWebUI") for label in x.labels
                                   if label in ("POST /tickets", "POST /api/assistant/chat")]},
    "esu-26": lambda a: {"found": [r.label for r in a("find", kind="route", limit=500).results
                                   if r.label.split(" ", 1)[-1] in ("/health", "/alive")]},
    "esu-27": lambda a: {"found": [c.id for c in a("find", kind="client", filter={"microservice": "DataIngestor"},
                                                   limit=50).results]},
    "esu-28": lambda a: {"found": [r for r in served_endpoints(a, "Backend", grpc=False) if r.startswith("DELETE ")]},
    "esu-29": lambda a: search_everywhere(a, "classify a new ticket's type"),
    "esu-30": lambda a: top_symbols(a, "ticket summary and customer satisfaction score", "Backend"),
    "esu-31": lambda a: top_symbols(a, "restrict a customer to their own tickets", "Backend"),
    # mskafka (ewolff/microservice-kafka, twentieth blind set, session 11): written from the questions' words and SKILL.md
    # after the key's commit, before any run (run with --system-dir mskafka=/tmp/mskafka); services as SKILL.md names
    # them: each Maven module's spring.application.name (order, shipping, invoicing) under a reactor whose three members
    # are deployable. The only cross-service traffic the questions ask about is the Kafka topic order
    "mk-01": lambda a: consumers_of_event(a, "order", "order"),
    "mk-02": lambda a: callers_of(a, "ShipmentService.ship", "shipping"),
    "mk-03": lambda a: callers_of(a, "OrderService.order", "order"),
    "mk-04": lambda a: {"paths": [downstream(a, a.one("POST /", "order", "route"), 8)]},
    "mk-05": lambda a: (lambda owner: {"paths": [a.upstream(owner, 3) + downstream(a, owner, 6)]})(
        producer_owner(a, "order")),
    "mk-06": lambda a: {"paths": [downstream(a, search_route(a, "add a line to the order form", "order"), 4)]},
    "mk-07": lambda a: consumers_of_event(a, "order", "order"),
    "mk-08": lambda a: callers_and_consumers(a, "OrderService.order", "order", 3),
    "mk-09": lambda a: calls_from(a, "order"),
    "mk-10": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "mk-11": lambda a: (lambda drawn: {"services": sorted(
        s.name for s in a("find", kind="microservice", filter={"deployable": True}, limit=100).results
        if s.name not in {x.source for x in drawn.links if x.kind == "http" and x.target in drawn.services
                          and x.target != x.source})})(a("service_map")),
    "mk-12": lambda a: {"routes": served_endpoints(a, "order", grpc=False)},
    "mk-13": lambda a: {"routes": served_endpoints(a, "shipping")},
    "mk-14": lambda a: service_config_and_code(a, "shipping", "Kafka broker bootstrap servers address"),
    "mk-15": lambda a: {**describe_named(a, "invoicing", "microservice"),
                        **(lambda found: ([a("describe", id=r.id) for r in found[:1]], {})[1])(
                            a("find", kind="route", filter={"microservice": "invoicing", "topic": "order"}, limit=5).results)},
    "mk-16": lambda a: describe_named(a, "order", "microservice"),
    "mk-17": lambda a: direct_calls(a, "shipping", "order"),
    "mk-18": lambda a: {"found": [(x.source, x.target) for x in a("service_map", microservice="order").links
                                  if x.kind == "http" and _same(x.target, "order") and x.match == "cross_service"]},
    "mk-19": lambda a: {"found": [r for r in a.routes("order") if r.split(" ", 1)[0] not in {
        "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "ANY", "grpc"}]},
    "mk-20": lambda a: search_everywhere(a, "ignore a duplicate order event that was already processed"),
    "mk-21": lambda a: top_symbols(a, "compute the order's total price", "order"),
    "mk-22": lambda a: implementations(a, "JsonDeserializer"),
    # go-cqrs (AleksK1NG/Go-CQRS-Kafka-gRPC-Microservices, session 13 blind set): written from the questions' words and
    # SKILL.md after the key's commit, before any run (run with --system-dir go-cqrs=/tmp/gocqrs); services by the names the
    # compose services, folders and config serviceName share (api_gateway_service, writer_service, reader_service). By
    # SKILL.md a Dockerfile whose go build names a subfolder's package makes that folder a service; here each Dockerfile
    # builds <svc>/cmd/main.go inside a CompileDaemon ENTRYPOINT, so the index may name them otherwise or keep the module
    # as one service (cqrs-microservices): then these plans measure that miss
    "gcq-01": lambda a: callers_of_route(a, "readerService.readerService/GetProductById", 2, "reader_service"),
    "gcq-02": lambda a: callers_of_route(a, "readerService.readerService/SearchProduct", 2, "reader_service"),
    "gcq-03": lambda a: (lambda found: {"nodes": found["nodes"] + [n for x in found["nodes"] for n in downstream(a, x, 2)]})(
        listeners_of(a, "product_create")),
    "gcq-04": lambda a: (lambda found: {"nodes": found["nodes"] + [n for x in found["nodes"] for n in downstream(a, x, 2)]})(
        listeners_of(a, "product_deleted")),
    "gcq-05": lambda a: senders_of(a, "product_update"),
    "gcq-06": lambda a: {"paths": [downstream(a, a.one("POST /api/v1/products", "api_gateway_service", "route"), 10)]},
    "gcq-07": lambda a: {"paths": [downstream(a, a.one("GET /api/v1/products/{id}", "api_gateway_service", "route"), 8)]},
    "gcq-08": lambda a: {"paths": [downstream(a, a.one("DELETE /api/v1/products/{id}", "api_gateway_service", "route"), 10)]},
    "gcq-09": lambda a: {"paths": [downstream(a, a.one("GET /api/v1/products/search", "api_gateway_service", "route"), 8)]},
    "gcq-10": lambda a: callers_of_route(a, "readerService.readerService/SearchProduct", 3, "reader_service"),
    "gcq-11": lambda a: callers_of_route(a, "readerService.readerService/GetProductById", 3, "reader_service"),
    "gcq-12": lambda a: consumers_of_event(a, "writer_service", "product_created"),
    "gcq-13": lambda a: callers_of(a, "productRepository.UpdateProduct", "writer_service", 6),
    "gcq-14": lambda a: calls_from(a, "api_gateway_service"),
    "gcq-15": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links
                                   if x.kind == "async" and x.match in ("cross_service", "intra_service")]},
    "gcq-16": lambda a: (lambda drawn: {"services": sorted(
        s.name for s in a("find", kind="microservice", filter={"deployable": True}, limit=100).results
        if s.name not in {x.source for x in drawn.links if x.kind in ("http", "grpc") and x.target in drawn.services
                          and x.target != x.source})})(a("service_map")),
    "gcq-17": lambda a: calls_to(a, "writer_service"),
    "gcq-18": lambda a: {"routes": served_endpoints(a, "api_gateway_service", grpc=False)},
    "gcq-19": lambda a: {"routes": a.routes("reader_service", framework="grpc")},
    "gcq-20": lambda a: {"routes": a.routes("writer_service", framework="grpc")},
    "gcq-21": lambda a: {**config_of_clients(a, "api_gateway_service", client_kind="grpc"),
                         **describe_named(a, "reader_service", "microservice")},
    "gcq-22": lambda a: service_config_and_code(a, "reader_service", "Kafka consumer group id"),
    "gcq-23": lambda a: service_config_and_code(a, "api_gateway_service", "products API path prefix route group"),
    "gcq-24": lambda a: (lambda _: {})([describe_named(a, s, "microservice")
                                        for s in ("api_gateway_service", "writer_service", "reader_service")]),
    "gcq-25": lambda a: no_callers(a, "writerService.writerService/CreateProduct", "writer_service"),
    "gcq-26": lambda a: direct_calls(a, "api_gateway_service", "writer_service"),
    "gcq-27": lambda a: no_callers(a, "readerService.readerService/DeleteProductByID", "reader_service"),
    "gcq-28": lambda a: {"found": [x.id for x in a("find", kind="symbol", filter={"microservice": "api_gateway_service"},
                                                   limit=500).results
                                   if any(w in ((x.label or "") + " " + (x.file or "")).lower() for w in ("redis", "mongo"))]},
    "gcq-29": lambda a: top_symbols(a, "cache a product in Redis", "reader_service"),
    "gcq-30": lambda a: top_symbols(a, "insert a new product into PostgreSQL", "writer_service"),
    "gcq-31": lambda a: search_everywhere(a, "generate the ID of a new product"),
    "gcq-32": lambda a: implementations(a, "Repository", "reader_service"),
    # eshopondapr (dotnet-architecture/eShopOnDapr, twenty-second blind set, session 13): written from the questions' words
    # and SKILL.md after the key's commits, before any run (run with --system-dir eshopondapr=/tmp/eshopondapr); services as
    # SKILL.md names them: a .csproj's AssemblyName or file name (Catalog.API, Basket.API, Ordering.API, Payment.API,
    # Identity.API, Web.Shopping.HttpAggregator, BlazorClient, WebStatus; the host sets AssemblyName
    # Microsoft.eShopOnDapr.BlazorClient.Host), the Envoy gateway a container-only proxy named after its folder (Envoy); the
    # compose names and Dapr app-ids the questions use (catalog-api, webshoppingagg, ...) are aliases
    "eod-01": lambda a: callers_of_route(a, "GET /api/v1/catalog/items/by_ids", 2, "Catalog.API"),
    "eod-02": lambda a: callers_of_route(a, "POST /api/v1/basket", 2, "Basket.API"),
    "eod-03": lambda a: callers_of_route(a, "POST /api/v1/basket", 2, "Web.Shopping.HttpAggregator"),
    "eod-04": lambda a: callers_of_route(a, "PUT /api/v1/orders/{orderNumber}/cancel", 2, "Ordering.API"),
    "eod-05": lambda a: listeners_of(a, "OrderStatusChangedToSubmittedIntegrationEvent"),
    "eod-06": lambda a: (lambda hits: {"paths": [downstream(a, hits[0] if hits else None, 10)]})(
        top_symbols(a, "click a catalog item to add it to the basket", "BlazorClient")["nodes"]),
    "eod-07": lambda a: (lambda hits: {"paths": [downstream(a, hits[0] if hits else None, 10)]})(
        top_symbols(a, "submit the checkout form", "BlazorClient")["nodes"]),
    "eod-08": lambda a: (lambda hits: {"paths": [downstream(a, hits[0] if hits else None, 10)]})(
        top_symbols(a, "confirm stock for an order's items", "Catalog.API")["nodes"]),
    "eod-09": lambda a: (lambda hits: {"paths": [downstream(a, hits[0] if hits else None, 10)]})(
        top_symbols(a, "cancel an order", "BlazorClient")["nodes"]),
    "eod-10": lambda a: callers_of_route(a, "GET /api/v1/catalog/items/by_ids", 4, "Catalog.API"),
    "eod-11": lambda a: {"nodes": listeners_of(a, "UserCheckoutAcceptedIntegrationEvent")["nodes"]
                         + consumers_of_event(a, "Basket.API", "UserCheckoutAccepted")["nodes"]},
    "eod-12": lambda a: callers_of_route(a, "GET /api/v1/orders/{orderNumber}", 3, "Ordering.API"),
    "eod-13": lambda a: calls_from(a, "Web.Shopping.HttpAggregator"),
    "eod-14": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links
                                   if x.kind == "async" and x.match in ("cross_service", "intra_service")]},
    "eod-15": lambda a: calls_from(a, "BlazorClient"),
    "eod-16": lambda a: (lambda drawn: {"services": sorted(
        s.name for s in a("find", kind="microservice", filter={"deployable": True}, limit=100).results
        if s.name not in {x.source for x in drawn.links if x.kind == "http" and x.target in drawn.services
                          and x.target != x.source})})(a("service_map")),
    "eod-17": lambda a: {"routes": served_endpoints(a, "Ordering.API", grpc=False)},
    "eod-18": lambda a: {"routes": served_endpoints(a, "Envoy", grpc=False)},
    "eod-19": lambda a: {"routes": served_endpoints(a, "Basket.API", grpc=False)},
    "eod-20": lambda a: {**config_of_clients(a, "Web.Shopping.HttpAggregator", target_service="Basket.API"),
                         **describe_named(a, "Basket.API", "microservice")},
    "eod-21": lambda a: broker_settings(a),
    "eod-22": lambda a: {**config_of_clients(a, "BlazorClient", target_service="Envoy"),
                         **describe_named(a, "BlazorClient", "microservice")},
    "eod-23": lambda a: service_config_and_code(a, "Ordering.API", "grace period before stock validation"),
    "eod-24": lambda a: service_config_and_code(a, "Basket.API", "store the basket in the state store"),
    "eod-25": lambda a: no_callers(a, "PUT /api/v1/orders/{orderNumber}/ship", "Ordering.API"),
    "eod-26": lambda a: no_callers(a, "DELETE /api/v1/basket", "Basket.API"),
    "eod-27": lambda a: {"found": [r for r in served_endpoints(a, "Catalog.API", grpc=False)
                                   if "/items/" in r.lower() and "/pic" in r.lower()]},
    "eod-28": lambda a: {"found": [(x.source, x.target) for x in a("service_map", microservice="Payment.API").links
                                   if x.kind == "http" and _same(x.target, "Payment.API") and x.match == "cross_service"]},
    "eod-29": lambda a: {"found": [r.id for kind in ("producer", "route") for r in a(
        "find", kind=kind, filter={"topic": "GracePeriodConfirmedIntegrationEvent"}, limit=20).results]},
    "eod-30": lambda a: {"found": [r.id for r in a("find", kind="producer", filter={
        "topic": "OrderStatusChangedToStockConfirmedIntegrationEvent"}, limit=20).results]},
    "eod-31": lambda a: search_everywhere(a, "send the order confirmation e-mail"),
    "eod-32": lambda a: top_symbols(a, "decide whether the payment succeeds", "Payment.API"),
    "eod-33": lambda a: search_everywhere(a, "check whether there is enough stock for the order items"),
    "eod-34": lambda a: implementations(a, "IIntegrationEventHandler"),
    # traffic-control (EdwinVW/dapr-traffic-control, blind set, session 14): written from the questions' words and SKILL.md
    # after the key's commit, before any run (run with --system-dir traffic-control=/tmp/trafficcontrol); services as SKILL.md
    # names them: a .csproj's file name (TrafficControlService, FineCollectionService, VehicleRegistrationService, Simulation,
    # VisualSimulation); the Dapr app-ids the questions use (trafficcontrolservice, ...) are the same names in lower case; a
    # Dapr pub/sub topic is `<pubsub component>/<topic>` (pubsub/speedingviolations); SKILL.md says nothing of MQTT or Dapr
    # input bindings, so the MQTT questions use the generic moves (listeners by topic, callers of the route) and measure that
    "tc-01": lambda a: callers_of_route(a, "GET /vehicleinfo/{licenseNumber}", 2, "VehicleRegistrationService"),
    "tc-02": lambda a: listeners_of(a, "pubsub/speedingviolations"),
    "tc-03": lambda a: callers_of_route(a, "POST /entrycam", 2, "TrafficControlService"),
    "tc-04": lambda a: listeners_of(a, "trafficcontrol/exitcam"),
    "tc-05": lambda a: search_everywhere(a, "handle messages that end up on the dead-letter topic"),
    "tc-06": lambda a: (lambda hits: {"paths": [downstream(a, hits[0] if hits else None, 10)]})(
        top_symbols(a, "camera simulation registers a vehicle exit", "Simulation")["nodes"]),
    "tc-07": lambda a: (lambda owners: {"paths": [owners + [n for o in owners for n in downstream(a, o, 8)]]})(
        [o.node.id for p in a("find", kind="producer", filter={"topic": "pubsub/speedingviolations"}, limit=10).results
         for o in a("neighbors", id=p.id, edge_types=["PRODUCER_DECLARED_BY"]).neighbors]),
    "tc-08": lambda a: (lambda hits: {"paths": [downstream(a, hits[0] if hits else None, 10)]})(
        top_symbols(a, "collect a fine for a speeding violation", "FineCollectionService")["nodes"]),
    "tc-09": lambda a: (lambda hits: {"paths": [downstream(a, hits[0] if hits else None, 10)]})(
        top_symbols(a, "camera simulation registers a vehicle entry", "Simulation")["nodes"]),
    "tc-10": lambda a: callers_of_route(a, "GET /vehicleinfo/{licenseNumber}", 3, "VehicleRegistrationService"),
    "tc-11": lambda a: {"nodes": listeners_of(a, "pubsub/speedingviolations")["nodes"]
                        + consumers_of_event(a, "TrafficControlService", "speedingviolations")["nodes"]},
    "tc-12": lambda a: {"nodes": callers_of_every(a, "VehicleRegistered", 2)["nodes"]
                        + consumers_of_producers(a, "Simulation")["nodes"]},
    "tc-13": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links
                                  if x.kind == "http" and x.match == "cross_service"]},
    "tc-14": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links
                                  if x.kind == "async" and x.match in ("cross_service", "intra_service")]},
    "tc-15": lambda a: (lambda drawn: {"services": sorted(
        s.name for s in a("find", kind="microservice", filter={"deployable": True}, limit=100).results
        if s.name not in {x.source for x in drawn.links if x.kind == "http" and x.target in drawn.services
                          and x.target != x.source})})(a("service_map")),
    "tc-16": lambda a: calls_from(a, "TrafficControlService"),
    "tc-17": lambda a: {"routes": served_endpoints(a, "FineCollectionService", grpc=False)},
    "tc-18": lambda a: {"routes": served_endpoints(a, "TrafficControlService", grpc=False)},
    "tc-19": lambda a: {"routes": served_endpoints(a, "VehicleRegistrationService")},
    "tc-20": lambda a: messaging_settings(a, "TrafficControlService"),
    "tc-21": lambda a: service_config_and_code(a, "TrafficControlService", "save the vehicle state in the state store"),
    "tc-22": lambda a: {**service_config_and_code(a, "Simulation", "connect to the MQTT broker"),
                        **describe_named(a, "TrafficControlService", "microservice")},
    "tc-23": lambda a: service_config_and_code(a, "FineCollectionService", "fine calculator license key from the secret store"),
    "tc-24": lambda a: client_callers_of_route(a, "POST /collectfine", "FineCollectionService"),
    "tc-25": lambda a: {"found": [r.id for r in a("find", kind="producer", filter={"topic": "pubsub/deadletters"},
                                                  limit=20).results]},
    "tc-26": lambda a: {"found": [r.id for r in a("find", kind="route", filter={
        "microservice": "VehicleRegistrationService", "framework": "dapr_pubsub"}, limit=50).results]},
    "tc-27": lambda a: {"found": [x.id for kind in ("client", "producer", "route")
                                  for x in a("find", kind=kind, limit=500).results if "assist" in (x.label or "").lower()]},
    "tc-28": lambda a: {"found": served_endpoints(a, "Simulation", grpc=False)},
    "tc-29": lambda a: top_symbols(a, "decide whether a vehicle was speeding", "TrafficControlService"),
    "tc-30": lambda a: top_symbols(a, "calculate the amount of a speeding fine", "FineCollectionService"),
    "tc-31": lambda a: search_everywhere(a, "compose and send the speeding ticket e-mail"),
    "tc-32": lambda a: implementations(a, "ITrafficControlService", "Simulation"),
    # nestms (Denrox/nestjs-microservices-example, nestms blind set, session 14): written from the questions' words and
    # SKILL.md after the key's commits, before any run (run with --system-dir nestms=/tmp/nestms); services as SKILL.md names
    # them: their package.json names (gateway, user, token, task, permission, mailer), the same as their folders and compose
    # services. SKILL.md says nothing of NestJS microservices (ClientProxy.send, @MessagePattern over TCP), so the plans use
    # the generic moves for messages (producers and listener routes by topic, the pattern being the topic), routes,
    # service_map, impact and search, and the set measures whether those see the message patterns.
    "nm-01": lambda a: senders_of(a, "user_get_by_id"),
    "nm-02": lambda a: senders_of(a, "token_create"),
    "nm-03": lambda a: callers_of_service(a, "permission", 1),
    "nm-04": lambda a: senders_of(a, "mail_send"),
    "nm-05": lambda a: senders_of(a, "task_delete_by_id"),
    "nm-06": lambda a: {"paths": [downstream(a, a.one("POST /users", "gateway", "route"), 10)]},
    "nm-07": lambda a: {"paths": [downstream(a, a.one("GET /tasks", "gateway", "route"), 8)]},
    "nm-08": lambda a: {"paths": [downstream(a, a.one("POST /users/login", "gateway", "route"), 8)]},
    "nm-09": lambda a: {"paths": [downstream(a, a.one("GET /users/confirm/{link}", "gateway", "route"), 8)]},
    "nm-10": lambda a: {"nodes": [n for r in a("find", kind="route", filter={"topic": "token_decode"}, limit=20).results
                                  for n in a.upstream(r.id, 3)]},
    "nm-11": lambda a: {"nodes": [n for r in a("find", kind="route", filter={"topic": "user_get_by_id"}, limit=20).results
                                  for n in a.upstream(r.id, 3)]},
    "nm-12": lambda a: callers_of(a, "TaskService.findTaskById", "task", 3),
    "nm-13": lambda a: calls_from(a, "gateway"),
    "nm-14": lambda a: calls_from(a, "user"),
    "nm-15": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "nm-16": lambda a: calls_to(a, "user"),
    "nm-17": lambda a: {"routes": served_endpoints(a, "gateway", grpc=False)},
    "nm-18": lambda a: (lambda secured: {"routes": [
        r.label for r in a("find", kind="route", filter={"microservice": "gateway"}, limit=500).results
        if r.label.split(" ", 1)[0] in {"GET", "POST", "PUT", "DELETE", "PATCH", "ANY"}
        and any(h.node.id in secured for h in a("neighbors", id=r.id, edge_types=["EXPOSED_BY"]).neighbors)]})(
        {s.id for s in a("find", kind="symbol", filter={"microservice": "gateway", "annotation": "Authorization"},
                         limit=100).results}),
    "nm-19": lambda a: (lambda secured: {"routes": [
        r.label for r in a("find", kind="route", filter={"microservice": "gateway"}, limit=500).results
        if r.label.split(" ", 1)[0] in {"GET", "POST", "PUT", "DELETE", "PATCH", "ANY"}
        and not any(h.node.id in secured for h in a("neighbors", id=r.id, edge_types=["EXPOSED_BY"]).neighbors)]})(
        {s.id for s in a("find", kind="symbol", filter={"microservice": "gateway", "annotation": "Authorization"},
                         limit=100).results}),
    "nm-20": lambda a: service_config_and_code(a, "gateway", "task service host and port"),
    "nm-21": lambda a: service_config_and_code(a, "user", "port the user microservice listens on"),
    "nm-22": lambda a: service_config_and_code(a, "mailer", "send the e-mail unless mail is disabled"),
    "nm-23": lambda a: (lambda hits: ([a("describe", id=h.node.id, include_source=True) for h in hits],
                                      [describe_named(a, h.node.microservice, "microservice") for h in hits[:1]], {})[-1])(
        a("search", query="MongoDB connection URI", kind="symbol", limit=3).results),
    "nm-24": lambda a: {"found": served_endpoints(a, "user", grpc=False)},
    "nm-25": lambda a: {"found": [s.id for s in a("find", kind="symbol", filter={"annotation": "EventPattern"},
                                                  limit=20).results]
                        + [h.node.id for h in a("search", query="ClientProxy emit event", kind="symbol", limit=10).results
                           if "emit" in (h.node.label or "").lower()]},
    "nm-26": lambda a: (lambda node: {"found": [n.node.id for n in a("neighbors", id=node, edge_types=["CALLED_BY"]).neighbors]
                                      if node else []})(a.one("TaskService.updateTaskById", "task")),
    "nm-27": lambda a: {"found": [s.id for s in a("find", kind="symbol", filter={"microservice": "gateway",
                                                                                   "annotation": "Permission"},
                                                  limit=100).results
                                  if any(p in str(a("describe", id=s.id)) for p in ("user_confirm", "user_get_by_id"))]},
    "nm-28": lambda a: {"found": [(s, t) for s, t, m in a.links("permission") if s == "permission" and m == "cross_service"]
                        + [x.id for x in a("find", kind="symbol", filter={"microservice": "permission"}, limit=500).results
                           if any(w in ((x.label or "") + " " + (x.file or "")).lower() for w in ("mongo", "schema"))]},
    "nm-29": lambda a: top_symbols(a, "hash the user's password", "user"),
    "nm-30": lambda a: top_symbols(a, "create and sign a JWT token with its secret", "token"),
    "nm-31": lambda a: search_everywhere(a, "forbid the task permissions to a user who has not confirmed the e-mail"),
    "nm-32": lambda a: {"nodes": [h.node.id for r in a("find", kind="route", filter={"microservice": "user"}, limit=100).results
                                  for h in a("neighbors", id=r.id, edge_types=["EXPOSED_BY"]).neighbors]},
    "nm-33": lambda a: implementations(a, "CanActivate"),
    # piomin-ms (piomin/sample-spring-microservices-new, session 14 blind set): written from the questions' words and
    # SKILL.md after the key's commits, before any run (run with --system-dir piomin-ms=/tmp/piomin); services by their
    # spring.application.name (employee-service, department-service, organization-service, gateway-service; the Maven
    # reactor has several members that declare one, so each is its own service); the gateway's routes live in the config
    # server's YAML (config-service/src/main/resources/config/gateway-service.yml)
    "psm-01": lambda a: callers_of_route(a, "GET /department/{departmentId}", 2, "employee-service"),
    "psm-02": lambda a: callers_of_route(a, "GET /organization/{organizationId}", 2, "department-service"),
    "psm-03": lambda a: callers_of_route(a, "GET /organization/{organizationId}", 2, "employee-service"),
    "psm-04": lambda a: callers_of_route(a, "GET /organization/{organizationId}/with-employees", 2, "department-service"),
    "psm-05": lambda a: callers_of_service(a, "employee-service"),
    "psm-06": lambda a: {"paths": [downstream(a, a.one("GET /{id}/with-departments-and-employees", "organization-service",
                                                       "route"), 10)]},
    "psm-07": lambda a: {"paths": [downstream(a, a.route_named("gateway-service", "/organization"), 8)]},
    "psm-08": lambda a: {"paths": [downstream(a, a.one("GET /organization/{organizationId}/with-employees",
                                                       "department-service", "route"), 6)]},
    "psm-09": lambda a: {"paths": [downstream(a, a.one("GET /{id}/with-departments", "organization-service", "route"), 6)]},
    "psm-10": lambda a: callers_of_route(a, "GET /department/{departmentId}", 4, "employee-service"),
    "psm-11": lambda a: callers_of_route(a, "GET /organization/{organizationId}", 3, "department-service"),
    "psm-12": lambda a: callers_of(a, "EmployeeRepository.findByOrganization", "employee-service", 4),
    "psm-13": lambda a: calls_from(a, "organization-service"),
    "psm-14": lambda a: calls_from(a, "gateway-service"),
    "psm-15": lambda a: {"pairs": [(x.source, x.target) for x in a("service_map").links if x.match == "cross_service"]},
    "psm-16": lambda a: calls_to(a, "department-service"),
    "psm-17": lambda a: {"routes": served_endpoints(a, "organization-service", grpc=False)},
    "psm-18": lambda a: {"routes": served_endpoints(a, "employee-service", grpc=False)},
    "psm-19": lambda a: {"routes": served_endpoints(a, "gateway-service", grpc=False)},
    "psm-20": lambda a: {**describe_named(a, "gateway-service", "microservice"),
                         **describe_route_named(a, "gateway-service", "/employee"),
                         **describe_named(a, "config-service", "microservice")},
    "psm-21": lambda a: describe_named(a, "employee-service", "microservice"),
    "psm-22": lambda a: {**config_of_clients(a, "organization-service", target_service="department-service"),
                         **describe_named(a, "organization-service", "microservice")},
    "psm-23": lambda a: (lambda _: {})([a("describe", id=s.id) for s in a(
        "find", kind="microservice", filter={"deployable": True}, limit=20).results]),
    "psm-24": lambda a: callers_of_routes_named(a, "organization-service", ("/",), code_only=True),
    "psm-25": lambda a: {"found": calls_from(a, "employee-service")["pairs"]},
    "psm-26": lambda a: client_callers_of_route(a, "POST /", "employee-service"),
    "psm-27": lambda a: {"found": [1] * a.total("producer") + [r.id for r in a("find", kind="route", limit=500).results
                                                               if r.label.split(" ", 1)[0] not in {
        "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "ANY", "grpc"}]},
    "psm-28": lambda a: client_callers_of_route(a, "GET /{id}", "department-service"),
    "psm-29": lambda a: top_symbols(a, "store a new employee and assign its id", "employee-service"),
    "psm-30": lambda a: search_everywhere(a, "create the initial sample organizations, departments and employees"),
    "psm-31": lambda a: top_symbols(a, "build the list of API docs for the Swagger UI from the gateway routes", "gateway-service"),
}


# -- judging ---------------------------------------------------------------------------------------------


class Judge:
    """What the key's items mean in the index: each node's file and lines, each route's label and service."""

    def __init__(self, key: dict, store, verbatim: bool = False) -> None:
        self.key, self.verbatim = key, verbatim
        self.nodes = {n.id: n for kind in ("symbol", "route", "client") for n in store.iter_nodes(kind)}
        #: the index's microservice name (lower case) -> its root folder (the key README: a service matches "by any of
        #: its names, or by root")
        self.roots = {n.name.lower(): (n.props.get("root") or "").rstrip("/").lower()
                      for n in store.iter_nodes("microservice")}
        #: the key's services it marks ``required: false`` (the key README: "correct but not demanded ... not counted
        #: either way: finding them is not a false positive")
        self.optional_services = {s["name"] for s in key.get("services", []) if s.get("required") is False}
        self.spans: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
        for node in self.nodes.values():
            p = node.props
            if node.kind == "symbol" and p.get("file") and p.get("line_start"):
                self.spans[p["file"]].append((p["line_start"], p.get("line_end") or p["line_start"], node.id))

    def innermost(self, file: str, line: int) -> str | None:
        """The symbol of the index whose lines hold ``line`` most narrowly (a file's module only when no function
        or class of the index holds it: a call in an anonymous handler)."""
        holding = [(end - start, node) for start, end, node in self.spans.get(file, []) if start <= line <= end]
        return min(holding)[1] if holding else None

    def canonical(self, name: str) -> str:
        """A tool service name as the key's canonical name: by any of its names, else by the root folder the index
        gives the service of that name (the key README's matching rule: "by any of its names ... or by root"; a
        build's name the key did not list, such as a Gradle ``rootProject.name``, still names the service there)."""
        for service in self.key["services"]:
            names = {service["name"].lower(), (service.get("root") or "").lower().rstrip("/")} | {
                n["name"].lower() for n in service.get("names", [])}
            if name.lower() in names or name.lower() == (service.get("root") or "").rsplit("/", 1)[-1].lower():
                return service["name"]
        root = self.roots.get(name.lower())
        if root:
            for service in self.key["services"]:
                if (service.get("root") or "").lower().rstrip("/") == root:
                    return service["name"]
        return name

    def holds(self, node_id: str, item: dict) -> bool:
        node = self.nodes.get(node_id)
        if node is None:
            return False
        p = node.props
        if "route" in item and "file" not in item:
            service, _, label = re.sub(r"\s*\(.*\)$", "", item["route"]).partition(" ")
            path = re.sub(r"^(?:/\{\?\})+", "", p.get("label", "").split(" ", 1)[-1])  # a deployment's prefix
            return (node.kind == "route" and gold.norm_path(path) == gold.norm_path(label.split(" ", 1)[-1])
                    and self.canonical(p.get("microservice", "")) == service)
        if "file" not in item or p.get("file") != item["file"]:
            return False
        if node.kind == "symbol":  # the function that holds the line, not any enclosing class or module
            return self.innermost(item["file"], item["line"]) == node_id
        return p.get("line") == item["line"]

    def items_found(self, items: list[dict], nodes: list[str]) -> list[str]:
        """The required items no node holds."""
        return [_name(i) for i in items if not i.get("optional") and ("file" in i or "route" in i)
                and not any(self.holds(n, i) for n in nodes)]

    def verdict(self, question: dict, answer: dict) -> tuple[bool, list[str]]:
        key = question["answer"]
        kind = key["type"]
        if kind == "none":
            return not answer.get("found"), [f"found {answer.get('found')[:5]}"] if answer.get("found") else []
        if kind == "symbols":
            missing = self.items_found(key["items"], answer.get("nodes", []))
            return not missing, missing
        if kind == "impact":
            items = [i for hop in key["hops"].values() for i in hop]
            missing = self.items_found(items, answer.get("nodes", []))
            return not missing, missing
        if kind == "path":
            steps = [s for s in key["steps"] if not s.get("optional")]
            best: list[str] = [_name(s) for s in steps if "file" in s or "route" in s]
            for path in answer.get("paths", []):
                missing = self.items_found(steps, path)
                if len(missing) < len(best):
                    best = missing
            return not best, best
        if kind == "service_pairs":
            return self.pairs(key, answer.get("pairs", []))
        if kind == "services":
            found = {self.canonical(s) for s in answer.get("services", [])}
            want = set(key["items"])
            optional = set(key.get("optional_items") or []) | (self.optional_services - want)
            if any(found == set(alternative) for alternative in key.get("also_accept") or []):
                return True, []
            return want <= found <= want | optional, [f"missing {sorted(want - found)}",
                                                      f"extra {sorted(found - want - optional)}"]
        if kind == "routes":
            return self.routes(key, answer.get("routes", []))
        if kind == "config":
            return self.config(key, json.dumps([o.model_dump() for o in answer.get("_seen", [])], ensure_ascii=False))
        raise ValueError(kind)

    def config(self, key: dict, text: str) -> tuple[bool, list[str]]:
        """Every required ``value`` of the key's items appears in ``text`` (the calls' answers as JSON). Unless
        verbatim: a note in brackets after the value is the key's comment, as in a route; a value is also found as
        JSON writes it inside a string (a double quote or backslash escaped); a value holding a secret is looked
        for as the code toolset shows it (SKILL.md: a URL's userinfo stripped, a connection string's password part
        redacted), and a value that is the secret itself (``redacted``) is found when its key is named beside it."""
        missing = []
        for item in key["items"]:
            value = str(item.get("value", ""))
            if "value" not in item or "{{" in value or (item.get("optional") and not self.verbatim):
                continue
            if self.verbatim:
                found = value in text
            else:
                value = re.sub(r"\s*\([^()]*\)$", "", value)
                found = any(form in text for shown in {value, *_shown(item, value)} for form in _written_forms(shown))
            if not found:
                missing.append(value)
        return not missing, missing

    def pairs(self, key: dict, found: list[tuple[str, str]]) -> tuple[bool, list[str]]:
        got = {(self.canonical(s), self.canonical(t)) for s, t in found}
        required, allowed = set(), set()
        for item in key["items"]:
            source = item.get("from") or key.get("from")
            target = item.get("to") or key.get("to")
            for s in ([source] if source else []):
                for t in ([target] if target else []):
                    allowed.add((s, t))
                    if not item.get("optional"):
                        required.add((s, t))
        if not required and key.get("services"):  # "which services call X" / "does X call": items name one side
            sides = set(key["services"])
            required = {p for p in got if p[0] in sides or p[1] in sides}
        missing, extra = required - got, got - allowed if allowed else set()
        extra = {p for p in extra if not self.optional_services & set(p)}   # a pair of an optional service: not counted
        return not missing and not extra, [f"missing {sorted(missing)}"] * bool(missing) + [f"extra {sorted(extra)}"] * bool(extra)

    def accept_paths(self, entry: dict, method: str) -> list[str]:
        """Equivalent spellings of a routes answer's item (README: a route matches by its path \"or listed in
        ``accept_paths``\"): the item's own, and those of the key's route of the same service, method and path."""
        paths = list(entry.get("accept_paths") or [])
        if entry.get("service") and isinstance(entry.get("path"), str):
            service, path = self.canonical(entry["service"]), gold.norm_path(entry["path"])
            for route in self.key.get("routes", []):
                if (route.get("kind") == "http" and self.canonical(route.get("service", "")) == service
                        and isinstance(route.get("path"), str) and gold.norm_path(route["path"]) == path
                        and method.upper() in {route.get("method", "").upper(),
                                               *(m.upper() for m in route.get("accept_methods") or [])}):
                    paths += route.get("accept_paths") or []
        return paths

    def routes(self, key: dict, labels: list[str]) -> tuple[bool, list[str]]:
        def norm(label: str) -> tuple[str, str]:
            """``METHOD path`` without a deployment's prefix (``/{?}``) or a note in brackets (``(playground)``);
            ``/**`` and ``/*`` at the end are one (everything under the prefix)."""
            method, _, path = label.partition(" ")
            path = gold.norm_path(re.sub(r"^(?:/\{\?\})+", "", re.sub(r"\s*\(.*\)$", "", path)))
            return method.upper(), re.sub(r"/\*\*$", "/*", path)   # two spellings of "everything under"

        got = {norm(label) for label in labels}
        required: set[tuple[str, str]] = set()
        allowed: set[tuple[str, str]] = set()
        spellings: dict[tuple[str, str], set[tuple[str, str]]] = {}
        for item in key["items"]:
            entry = item if isinstance(item, dict) else dict(zip(("method", "path"), item.split(" ", 1), strict=True))
            for method in entry["method"].split("|"):
                route = norm(f"{method} {entry['path']}")
                spellings[route] = {route} | {norm(f"{method} {p}") for p in self.accept_paths(entry, method)}
                allowed |= spellings[route]
                if not entry.get("optional") and method == entry["method"].split("|")[0]:
                    required.add(route)
        missing = {r for r in required if not any(s in got or ("ANY", s[1]) in got  # ANY serves every method
                                                  for s in spellings[r])}
        extra = {g for g in got if g not in allowed and ("ANY", g[1]) not in allowed
                 and not (g[0] == "ANY" and any(a[1] == g[1] for a in allowed))}
        return not missing and not extra, [f"missing {sorted(missing)}"] * bool(missing) + [f"extra {sorted(extra)}"] * bool(extra)


def _written_forms(value: str) -> set[str]:
    """``value`` as written, and as JSON writes it inside a string (``"x"+y`` is ``\\"x\\"+y`` there)."""
    return {value, json.dumps(value, ensure_ascii=False)[1:-1]}


def _shown(item: dict, value: str) -> tuple[str, ...]:
    """How the code toolset shows a config item's value: ``shown_value`` of its key (the key's note in brackets
    dropped); a value that is the secret itself is sought as the key followed by ``redacted`` (``KEY: redacted``
    in a settings note, ``KEY=redacted`` in an environment note)."""
    name = re.sub(r"\s*\([^()]*\)$", "", str(item.get("key", "")))
    shown = shown_value(name, value)
    return (f"{name}: {REDACTED}", f"{name}={REDACTED}") if shown == REDACTED else (shown,)


def _name(item: dict) -> str:
    return item.get("symbol") or item.get("route") or f"{item.get('file')}:{item.get('line')}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--system", help="only this system")
    parser.add_argument("--verbose", action="store_true", help="print each question and the plan's answer")
    parser.add_argument("--only", nargs="*", help="only these question ids")
    parser.add_argument("--verbatim-config", action="store_true",
                        help="config values as the key writes them: with their bracketed notes, optional ones too "
                             "(the judge before session 3's blind-set review)")
    parser.add_argument("--embed", action="store_true",
                        help="embed each index after its structural build, as `graphlore code index` does by default "
                             "(search then ranks hybrid; without it BM25 alone)")
    gold.add_system_dirs(parser)
    args = parser.parse_args()
    questions = [json.loads(line) for path in sorted(gold.GOLD.glob(QUESTIONS))
                 for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    systems = gold.roots(args.system_dir)
    if args.system and args.system not in systems:
        parser.error(f"--system {args.system!r}: not one of {', '.join(systems)} (another needs --system-dir)")
    results: dict[str, list[tuple[str, bool, int]]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as home:
        runtime = Runtime(Settings(home=Path(home)))
        for system, root in systems.items():
            if args.system and system != args.system:
                continue
            if not root.is_dir():
                print(f"({system} not found at {root}: skipped)")
                continue
            CodeIndex(runtime, root).sync()
            if args.embed:
                CodeIndex(runtime, root).embed()
            judge = Judge(gold.load(system), CodeIndex(runtime, root).store(), args.verbatim_config)
            print(f"\n== {system}")
            for question in (q for q in questions if q["system"] == system):
                if args.only and question["id"] not in args.only:
                    continue
                agent = Agent(runtime, root)
                try:  # a question without a plan is not answered (never left out of the count)
                    answer = PLANS[question["id"]](agent) if question["id"] in PLANS else {"refused": "no plan"}
                except Refused as exc:
                    answer = {"refused": str(exc)}
                answer["_seen"] = agent.seen
                ok, why = judge.verdict(question, answer)
                results[system].append((question["class"], ok, agent.calls))
                shown = "" if ok else "  " + "; ".join(w for w in why if w)[:300]
                print(f"  {question['id']:6s} {question['class']:13s} {'answered' if ok else 'NOT     '} "
                      f"{agent.calls} calls{shown}")
                if args.verbose:
                    print(f"         {question['question']}")
                    print("         answer: " + json.dumps({k: v for k, v in answer.items() if k != "_seen"})[:1500])
        runtime.close()
    print("\nsystem                 answered      median calls  max calls")
    every = []
    for system, rows in results.items():
        every += rows
        print(f"{system:22s} {sum(ok for _, ok, _ in rows):3d}/{len(rows):<3d} {sum(ok for _, ok, _ in rows) / len(rows):.3f}"
              f"   {statistics.median(c for _, _, c in rows):5.1f}        {max(c for _, _, c in rows)}")
    if every:
        print(f"{'all':22s} {sum(ok for _, ok, _ in every):3d}/{len(every):<3d} "
              f"{sum(ok for _, ok, _ in every) / len(every):.3f}   {statistics.median(c for _, _, c in every):5.1f}"
              f"        {max(c for _, _, c in every)}")
        by_class: dict[str, list[bool]] = defaultdict(list)
        for cls, ok, _ in every:
            by_class[cls].append(ok)
        print("by class: " + ", ".join(f"{c} {sum(v)}/{len(v)}" for c, v in sorted(by_class.items())))


if __name__ == "__main__":
    main()
