"""The closed set of edge keys `neighbors` accepts: stored edge types, their reverses, and class/service views.

* **Stored types** (`model.EDGE_TYPES`): ``DECLARES``, ``EXTENDS``, ... followed in the asked direction.
* **Reversed keys** (`REVERSED`): ``OVERRIDDEN_BY`` is ``OVERRIDES`` followed the other way
  (``neighbors(m, ["OVERRIDDEN_BY"])`` lists the methods that override ``m``); ``direction`` flips too.
* **Member views** (``DECLARES.<key>``): the key's edges of every symbol the node declares, at any depth
  (a class's methods, a package's classes and their members, a service's modules and everything in
  them), so ``DECLARES.CALLS`` out of a class is every call its methods make and ``DECLARES.EXPOSES``
  out of a microservice every route it serves (keys whose edges never start at a symbol are left out).

Each key reads as one (node set, stored type, direction) selection; `selection` says which.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import EDGE_TYPES

#: reversed key -> the stored type it follows backwards
REVERSED: dict[str, str] = {
    "DECLARED_BY": "DECLARES",
    "EXTENDED_BY": "EXTENDS",
    "IMPLEMENTED_BY": "IMPLEMENTS",
    "OVERRIDDEN_BY": "OVERRIDES",
    "INJECTED_BY": "INJECTS",
    "IMPORTED_BY": "IMPORTS",
    "CALLED_BY": "CALLS",
    "TRIGGERED_BY": "TRIGGERS",
    "EXPOSED_BY": "EXPOSES",
    "CLIENT_DECLARED_BY": "DECLARES_CLIENT",
    "PRODUCER_DECLARED_BY": "DECLARES_PRODUCER",
    "HTTP_CALLED_BY": "HTTP_CALLS",
    "ASYNC_CALLED_BY": "ASYNC_CALLS",
    "GRPC_CALLED_BY": "GRPC_CALLS",
}
REVERSED = {key: stored for key, stored in REVERSED.items() if stored in EDGE_TYPES}
#: edges whose symbol end is never a member (they start or end at routes, clients and producers only)
_NOT_FROM_SYMBOLS = {"DECLARES", "HTTP_CALLS", "ASYNC_CALLS", "GRPC_CALLS", "DECLARED_BY", "EXPOSED_BY",
                     "CLIENT_DECLARED_BY", "PRODUCER_DECLARED_BY", "HTTP_CALLED_BY", "ASYNC_CALLED_BY", "GRPC_CALLED_BY"}
_MEMBER_BASES = [k for k in (*EDGE_TYPES, *REVERSED) if k not in _NOT_FROM_SYMBOLS]
#: every key neighbors accepts, in the order they are documented
EDGE_KEYS: tuple[str, ...] = (*EDGE_TYPES, *REVERSED, *(f"DECLARES.{k}" for k in _MEMBER_BASES))
#: the keys paths and impact walk over several hops (member views are one node's roll-ups, not hops)
WALK_KEYS: tuple[str, ...] = (*EDGE_TYPES, *REVERSED)
#: what paths and impact follow by default: a request as it runs, caller to callee, across services (a call, what
#: a state-machine event or a framework callback sets off, an interface method to its overrides, a method to the clients and producers it declares, those to the
#: routes and listeners they reach, a route to its handler, a function to the functions nested in it)
FLOW_KEYS = ("CALLS", "TRIGGERS", "OVERRIDDEN_BY", "DECLARES_CLIENT", "DECLARES_PRODUCER", "HTTP_CALLS", "GRPC_CALLS",
             "ASYNC_CALLS", "EXPOSED_BY", "DECLARES")
FLIP = {"out": "in", "in": "out", "both": "both"}


@dataclass(frozen=True)
class Selection:
    """What one key reads: the stored type, the direction to follow it, and whether from the members."""

    key: str
    stored: str
    direction: str
    members: bool


def selection(key: str, direction: str) -> Selection:
    members = key.startswith("DECLARES.")
    base = key.removeprefix("DECLARES.")
    if base in REVERSED:
        return Selection(key, REVERSED[base], FLIP[direction], members)
    return Selection(key, base, direction, members)
