"""Questions over several hops, answered in one call: `paths` (every path between two nodes up to a depth)
and `impact` (everything that reaches a node, or that it reaches, within a depth, one path each).

Both walk the same edge keys as `neighbors` (`edge_keys`), one :meth:`Store.edges_of` selection per key and
hop over the whole frontier. The default keys (`edge_keys.FLOW_KEYS`) follow a request as it runs, so a
path crosses services without the agent stitching hops together.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import count

from graphlore.store import Node, Store

from ..model import CALLABLE_KINDS, CONTAINER_KINDS, TYPE_KINDS
from .edge_keys import selection

#: edges that take a request on without a call of its own (a call on an interface method is the override's;
#: a method's client or producer, a route's handler are the method or handler itself): they cost no hop, so a
#: depth counts calls, within a service or across services (a client's link to a route is one call)
FREE_KEYS = frozenset({"OVERRIDDEN_BY", "OVERRIDES", "DECLARES_CLIENT", "CLIENT_DECLARED_BY", "DECLARES_PRODUCER",
                       "PRODUCER_DECLARED_BY", "EXPOSED_BY", "EXPOSES", "DECLARES", "DECLARED_BY"})
#: keys walked only from a function to the functions declared in its body (or back): a nested function is
#: handed on as a callback (``useMutation({mutationFn: deleteUser})``, ``onSubmit``) far more often than called
#: by name, so it runs as part of the function that declares it; a type's or a module's members are reached
#: through `seeds` at the ends, never in the middle of a path
NESTED_KEYS = frozenset({"DECLARES", "DECLARED_BY"})


def cost(key: str) -> int:
    return 0 if key in FREE_KEYS else 1


@dataclass(frozen=True)
class Step:
    """One edge as walked: from ``src`` to ``dst`` by ``key`` (``src`` may be the edge's stored dst)."""

    src: str
    dst: str
    key: str
    props: dict


def seeds(store: Store, node: Node) -> list[str]:
    """The node, and for a class (or another type) or a module every symbol it declares, at any depth: calls
    reach methods and functions, not classes or files, so a question about a class or a module is a question
    about its members."""
    if node.kind != "symbol" or node.props.get("symbol_kind") not in TYPE_KINDS | CONTAINER_KINDS:
        return [node.id]
    out, frontier, seen = [node.id], [node.id], {node.id}
    while frontier:
        page = store.edges_of(frontier, direction="out", types=["DECLARES"])
        frontier = [e.dst for e in page.edges if e.dst not in seen]
        seen.update(frontier)
        out += frontier
    return out


def hop(store: Store, frontier: list[str], keys: tuple[str, ...], direction: str,
        ends: frozenset[str] = frozenset()) -> dict[str, list[Step]]:
    """The steps out of each frontier node by the keys, walking them ``direction`` (out: as the keys read;
    in: backwards), always reported as walked. A client's link to a proxy route that was followed through
    (`_followed_through`) is walked only to or from a proxy route among ``ends`` (the walk's starts, a path's
    ends): elsewhere the request goes on by its link ``via`` that route."""
    out: dict[str, list[Step]] = defaultdict(list)
    if not frontier:
        return out
    for key in keys:
        sel = selection(key, direction)
        edges = store.edges_of(frontier, direction=sel.direction, types=[sel.stored]).edges
        if key in NESTED_KEYS:
            edges = _between_callables(store, edges)
        if sel.stored == "HTTP_CALLS":
            edges = [e for e in edges if e.dst in ends or not _followed_through(e.props)]
        for edge in edges:
            src, dst = (edge.src, edge.dst) if sel.direction == "out" else (edge.dst, edge.src)
            out[src].append(Step(src, dst, key, edge.props))
    return out


def _followed_through(props: dict) -> bool:
    """A client's link to a proxy route that was followed to the upstream's route (`services.links._through`):
    walking out, the request goes on by that link (its ``via`` names the proxy route), not by every route the
    proxy forwards to; walking in, the upstream's route reaches it by that link, not through the proxy route
    (which every other client of the proxy reaches too)."""
    return (props.get("through") or {}).get("match") in ("cross_service", "intra_service", "ambiguous", "no_route")


def shown_hops(store: Store, path: list[Step]) -> list[Step]:
    """A path as shown: a client's link through proxies (its ``via``) is walked as one call, and shown as the hops
    the request takes (the client's link to the first proxy route, each proxy route's forward to the next, the
    last one's to the route that serves it), in the order the path was walked."""
    if not any(s.key == "HTTP_CALLS" and s.props.get("via") for s in path):
        return path
    out: list[Step] = []
    for step in path:
        if step.key != "HTTP_CALLS" or not step.props.get("via"):
            out.append(step)
            continue
        client, served = (step.src, step.dst) if _walked_out(store, step) else (step.dst, step.src)
        chain = [client, *step.props["via"], served]
        stored = {(e.src, e.dst): e.props for e in store.edges_of(chain[:-1], direction="out",
                                                                    types=["HTTP_CALLS"]).edges
                  if not e.props.get("via")}   # each hop is the client's own link or a proxy's forward
        # the last proxy's hop is its forward; to a service (``no_route``) it is the link's own
        stored[(chain[-2], served)] = stored.get((chain[-2], served), step.props)
        if any((a, b) not in stored for a, b in zip(chain, chain[1:], strict=False)):
            out.append(step)   # a hop no longer stored: the link as it is
            continue
        hops = [Step(a, b, "HTTP_CALLS", stored[(a, b)]) for a, b in zip(chain, chain[1:], strict=False)]
        out += hops if step.src == client else [Step(h.dst, h.src, h.key, h.props) for h in reversed(hops)]
    return out


def _walked_out(store: Store, step: Step) -> bool:
    """Whether a link step was walked as stored (from its client), not backwards."""
    return any(e.dst == step.dst for e in store.edges_of([step.src], direction="out", types=["HTTP_CALLS"]).edges)


def _between_callables(store: Store, edges: list) -> list:
    """The edges whose two ends are functions or methods (`NESTED_KEYS`)."""
    ends = {i for e in edges for i in (e.src, e.dst)}
    callable_ = {n.id for n in store.get_nodes(list(ends))
                 if n.kind == "symbol" and n.props.get("symbol_kind") in CALLABLE_KINDS}
    return [e for e in edges if e.src in callable_ and e.dst in callable_]


#: brokers whose topic is the message's type name (`frameworks.eventbus`): a listener on ``T`` receives a ``T``
#: and a producer of ``T`` sends one
TYPE_TOPIC_BROKERS = frozenset({"eventbus", "masstransit", "nservicebus"})
#: the key of a step from a message type to a listener or producer that carries it (no stored edge)
CARRIES = "CARRIES"


def message_steps(store: Store, node: Node) -> list[Step]:
    """A message type's carriers, as steps from the type: each listener and producer of a bus that routes by type
    (`TYPE_TOPIC_BROKERS`) whose topic is the type's name (``CARRIES``), and each listener's handler
    (``EXPOSES``, walked from the route): the code a change to the type's shape breaks though it calls none of
    its members (a handler takes it as a parameter, a sender builds it with ``Adapt<T>()``). A carrier's type is
    the one type of that name in the carrier's microservice, else the one in the whole project (a shared
    contracts library); two of them, and the carrier is no one's (never a guess)."""
    if node.kind != "symbol" or node.props.get("symbol_kind") not in TYPE_KINDS or not node.name:
        return []
    key = f"f:topic_prefix={node.name}"
    carriers = [n for kind in ("route", "producer") for n in store.get_nodes(store.nodes_by_keys([key], kind=kind)
                                                                            .get(key, []))
                if n.props.get("topic") == node.name and n.props.get("broker") in TYPE_TOPIC_BROKERS]
    if not carriers:
        return []
    named = store.nodes_by_keys([f"name:{node.name}"], kind="symbol").get(f"name:{node.name}", [])
    types = [n for n in store.get_nodes(named) if n.props.get("symbol_kind") in TYPE_KINDS]
    out = []
    for carrier in carriers:
        own = [t for t in types if t.props.get("microservice") == carrier.props.get("microservice")]
        chosen = own or types
        if [t.id for t in chosen] != [node.id]:
            continue
        out.append(Step(node.id, carrier.id, CARRIES, {"topic": node.name, "broker": carrier.props["broker"]}))
        if carrier.kind == "route" and carrier.props.get("handler"):
            out.append(Step(carrier.id, carrier.props["handler"], "EXPOSES", {}))
    return out


def distances(store: Store, starts: list[str], keys: tuple[str, ...], direction: str, depth: int,
              ends: frozenset[str] = frozenset()) -> dict[str, int]:
    """Hops (calls, `cost`) from the nearest start to every node reached within ``depth``."""
    return {node: level for node, (level, _) in _walk(store, starts, keys, direction, depth, ends=ends).items()}


def _walk(store: Store, starts: list[str], keys: tuple[str, ...], direction: str, depth: int,
          skip: Callable[[list[str]], set[str]] | None = None,
          left_out: set[str] | None = None, ends: frozenset[str] = frozenset(),
          first: Sequence[Step] = ()) -> dict[str, tuple[int, Step | None]]:
    """Every node within ``depth`` hops with its distance and the step that first reached it (a breadth-first
    walk where free edges cost nothing: each level is closed over them before the next call is taken).
    ``skip`` names the newly reached nodes to leave out (collected in ``left_out``): they are neither kept
    nor walked through. ``first``: steps out of the starts taken with the first hop (`message_steps`), in
    order (a step may go on from the one before it)."""
    free = tuple(k for k in keys if cost(k) == 0)
    paid = tuple(k for k in keys if cost(k) == 1)
    found: dict[str, tuple[int, Step | None]] = {node: (0, None) for node in starts}
    left_out = set() if left_out is None else left_out
    ends = ends | frozenset(starts)

    def take(steps: dict[str, list[Step]], level: int) -> list[str]:
        fresh = [s for group in steps.values() for s in group if s.dst not in found and s.dst not in left_out]
        if skip is not None and fresh:
            left_out.update(skip(list(dict.fromkeys(s.dst for s in fresh))))
        taken = []
        for step in fresh:
            if step.dst not in found and step.dst not in left_out:
                found[step.dst] = (level, step)
                taken.append(step.dst)
        return taken

    frontier = list(dict.fromkeys(starts))
    for level in range(depth + 1):
        closing = list(frontier)
        while closing and free:  # the level's closure over free edges
            closing = take(hop(store, closing, free, direction, ends), level)
            frontier += closing
        if level == depth or not paid:
            break
        steps = hop(store, frontier, paid, direction, ends)
        if level == 0 and first:
            steps = {**steps, "": list(first)}   # after the stored edges: a caller reached both ways keeps its call
        frontier = take(steps, level + 1)
        if not frontier:
            break
    return found


def all_paths(store: Store, sources: list[str], targets: list[str], keys: tuple[str, ...], depth: int,
              most: int) -> tuple[list[list[Step]], bool]:
    """Simple paths from a source to a target of at most ``depth`` hops (`cost`), fewest first, at most ``most``
    (and whether there were more). Only nodes on some short enough path are expanded: the distances from
    the sources and to the targets bound the search. Paths come out best-first (hops spent plus the fewest
    still needed, then edges): a fan-out of long paths never hides a shorter one behind the limit."""
    ends = frozenset(sources) | frozenset(targets)
    ahead = distances(store, sources, keys, "out", depth, ends)
    behind = distances(store, targets, keys, "in", depth, ends)
    useful = {n for n in ahead if n in behind and ahead[n] + behind[n] <= depth}
    if not useful:
        return [], False
    steps: dict[str, list[Step]] = defaultdict(list)
    nodes = sorted(useful)
    for src, group in hop(store, nodes, keys, "out", ends).items():
        steps[src] = [s for s in group if s.dst in useful]
    target_set = set(targets)
    found: list[list[Step]] = []
    queue: list[tuple[int, int, int, str, tuple[Step, ...]]] = []
    order = count()
    for source in dict.fromkeys(sources):
        if source in useful:
            heapq.heappush(queue, (behind[source], 0, next(order), source, ()))
    while queue and len(found) <= most:
        bound, _, _, node, path = heapq.heappop(queue)
        if node in target_set and path:
            found.append(list(path))
        spent = bound - behind[node]
        on_path = {path[0].src, *(s.dst for s in path)} if path else {node}
        for step in steps.get(node, []):
            paid = spent + cost(step.key)
            if step.dst in on_path or paid + behind[step.dst] > depth:
                continue
            heapq.heappush(queue, (paid + behind[step.dst], len(path) + 1, next(order), step.dst, (*path, step)))
    return [shown_hops(store, path) for path in found[:most]], len(found) > most


def on_to_handler(store: Store, path: list[Step]) -> list[Step]:
    """A path that ends at a route, carried on to the route's handler (``EXPOSED_BY``, free): a trace to an
    endpoint reaches the code that serves it. Unchanged when the handler is already on the path."""
    route = path[-1].dst
    on_path = {path[0].src, *(s.dst for s in path)}
    for edge in store.edges_of([route], direction="in", types=["EXPOSES"]).edges:
        if edge.src not in on_path:
            return [*path, Step(route, edge.src, "EXPOSED_BY", edge.props)]
    return path


def on_to_implementation(store: Store, path: list[Step]) -> tuple[list[Step], str | None]:
    """A path that ends at an abstract method (an interface's, an abstract class's: it has no body to run),
    carried on to the one method that implements it (``OVERRIDDEN_BY``, free), as a trace to an endpoint reaches
    its handler: the call on the interface runs that code. Several implementations (`_overriders`: at any depth,
    test code left out), or none, and the path stays as it is: which one runs is the wiring's choice, never a guess.
    A method that declares a client or a producer (Feign, Micronaut ``@Client``) stays too: the framework's proxy
    implements it, and the one written implementation is its fallback. With the note that says
    which implementation the path went on to."""
    end = path[-1].dst
    abstract = store.get_nodes([end])
    if not abstract or abstract[0].kind != "symbol" or "abstract" not in (abstract[0].props.get("modifiers") or []) \
            or abstract[0].props.get("symbol_kind") not in CALLABLE_KINDS:
        return path, None
    if store.edges_of([end], direction="out", types=["DECLARES_CLIENT", "DECLARES_PRODUCER"]).edges:
        return path, None   # a declarative client's method: the framework's proxy runs it, a written one is a fallback
    implementations = _overriders(store, end)
    on_path = {path[0].src, *(s.dst for s in path)}
    if len(implementations) != 1 or implementations[0] in on_path:
        return path, None
    implementation = store.get_nodes(implementations)[0]
    note = (f"{abstract[0].props.get('fqn') or abstract[0].name} is abstract: the path goes on to its one "
            f"implementation, {implementation.props.get('fqn') or implementation.name}")
    return [*path, Step(end, implementation.id, "OVERRIDDEN_BY", {})], note


def _overriders(store: Store, method: str) -> list[str]:
    """Every method that overrides ``method``, at any depth (an override of an override implements it too:
    ``OVERRIDES`` names the nearest method only), test code left out."""
    found: list[str] = []
    frontier = [method]
    while frontier:
        edges = store.edges_of(frontier, direction="in", types=["OVERRIDES"]).edges
        frontier = [i for i in dict.fromkeys(e.src for e in edges) if i != method and i not in found]
        found += frontier
    tests = tests_among(store, found)
    return [i for i in found if i not in tests]


def reach(store: Store, starts: list[str], keys: tuple[str, ...], direction: str, depth: int,
          skip: Callable[[list[str]], set[str]] | None = None,
          first: Sequence[Step] = ()) -> tuple[dict[str, tuple[int, list[Step]]], int]:
    """Every node reached from ``starts`` within ``depth`` hops (``direction`` in: what reaches them), with
    its distance and one shortest path (as walked: from the start outwards); and how many nodes ``skip``
    left out. ``first``: steps out of the starts taken with the first hop (see `_walk`)."""
    left_out: set[str] = set()
    found = _walk(store, starts, keys, direction, depth, skip, left_out, first=first)
    out = {}
    for node, (level, step) in found.items():
        if step is None:
            continue
        path = []
        while step is not None:
            path.append(step)
            step = found[step.src][1]
        out[node] = (level, shown_hops(store, list(reversed(path))))
    for level, path in list(out.values()):   # the proxy routes a link went through are reached too
        for index, step in enumerate(path[:-1]):
            if step.dst not in out and step.dst not in found:
                out[step.dst] = (level, path[:index + 1])
    return out, len(left_out)


def tests_among(store: Store, ids: list[str]) -> set[str]:
    """The test symbols among ``ids`` (role TEST: the symbols of test files)."""
    return {n.id for n in store.get_nodes(ids) if n.kind == "symbol" and n.props.get("role") == "TEST"}
