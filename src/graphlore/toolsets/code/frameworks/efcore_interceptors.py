"""EF Core save interceptors: ``dbContext.SaveChangesAsync(..)`` runs the ``SavingChangesAsync`` (then
``SavedChangesAsync``, or ``SaveChangesFailedAsync``) of every ``SaveChangesInterceptor`` the context is built with,
though no call names them (a domain-event dispatcher, an audit stamper). ``TRIGGERS`` edges (``kind:
interceptor``), from the symbol that saves to each hook the interceptor overrides: ``SaveChanges`` to the
synchronous hooks, ``SaveChangesAsync`` to the asynchronous ones.

Never a guess: an interceptor is a class of the project deriving (through any number of the project's classes)
from ``SaveChangesInterceptor`` or implementing ``ISaveChangesInterceptor``, and it counts only in a microservice
that registers it: named in an ``AddInterceptors(..)`` argument (``new AuditInterceptor()``), or registered in
dependency injection (``AddScoped<ISaveChangesInterceptor, AuditInterceptor>()``) where an ``AddInterceptors(..)``
of that microservice takes them from the container (``sp.GetServices<ISaveChangesInterceptor>()``). A save is a
``SaveChanges``/``SaveChangesAsync`` call whose receiver is declared with a type of the project that is a
``DbContext`` (through its bases) or an interface such a context implements; a call on anything else (a Marten
``session``, a unit of work not known to be a context) gives no edge.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.symbols import Bound
from ..model import GraphEdge, make_edge

INTERCEPTOR_BASES = frozenset({"SaveChangesInterceptor", "ISaveChangesInterceptor"})
CONTEXT_BASES = frozenset({"DbContext", "IdentityDbContext", "IdentityUserContext", "ApiAuthorizationDbContext"})
#: the save call -> the hooks it runs, in order
HOOKS = {"SaveChanges": ("SavingChanges", "SavedChanges", "SaveChangesFailed"),
         "SaveChangesAsync": ("SavingChangesAsync", "SavedChangesAsync", "SaveChangesFailedAsync")}
REGISTRARS = frozenset({"AddScoped", "AddSingleton", "AddTransient", "TryAddScoped", "TryAddSingleton",
                        "TryAddTransient"})
#: an ``AddInterceptors`` argument that takes the registered interceptors from the container
_FROM_CONTAINER = re.compile(r"\bGet(?:Required)?Services?\b")


def _simple(name: str) -> str:
    return re.sub(r"<.*", "", name).rsplit(".", 1)[-1].strip()


def _types(files: list[Bound]) -> dict[str, tuple[Bound, str, set[str]]]:
    """Simple name -> (file, key, the simple names of its bases) of each class and interface of the project."""
    out: dict[str, tuple[Bound, str, set[str]]] = {}
    for bound in files:
        for sym in bound.facts.symbols:
            if sym.kind in ("class", "interface", "record"):
                out.setdefault(sym.name, (bound, sym.key, {_simple(written) for _, written in sym.supers}))
    return out


def _deriving(types: dict[str, tuple[Bound, str, set[str]]], roots: frozenset[str]) -> set[str]:
    """The project's types deriving from one of ``roots`` through any number of the project's types."""
    found: set[str] = set()
    grew = True
    while grew:
        before = len(found)
        found |= {name for name, (_, _, bases) in types.items() if bases & (roots | found)}
        grew = len(found) > before
    return found


def _contexts(types: dict[str, tuple[Bound, str, set[str]]]) -> set[str]:
    """The project's DbContexts and the project's interfaces they implement (``IApplicationDbContext``)."""
    contexts = _deriving(types, CONTEXT_BASES)
    implemented = {base for name in contexts for base in types[name][2]
                   if base in types and types[base][0].facts.symbols[types[base][0].by_key[types[base][1]]].kind
                   == "interface"}
    return contexts | implemented


def _registered(files: list[Bound], interceptors: set[str]) -> dict[str, set[str]]:
    """Microservice -> the interceptors it registers (see the module docstring)."""
    named: dict[str, set[str]] = {}
    in_container: dict[str, set[str]] = {}
    from_container: set[str] = set()
    for bound in files:
        service = bound.ctx.microservice or ""
        for _, name, types in bound.facts.extra.get("generic_calls", []):
            if name in REGISTRARS and types and _simple(types[-1]) in interceptors:
                in_container.setdefault(service, set()).add(_simple(types[-1]))
        for call in bound.facts.calls:
            if call.name != "AddInterceptors" or call.kind != "call":
                continue
            for arg in call.args:
                named.setdefault(service, set()).update(
                    name for name in interceptors if re.search(rf"\b{re.escape(name)}\b", arg))
                if _FROM_CONTAINER.search(arg):
                    from_container.add(service)
    return {service: named.get(service, set()) | (in_container.get(service, set()) if service in from_container
                                                  else set())
            for service in set(named) | from_container}


def _receiver_type(bound: Bound, call) -> str | None:
    """The declared type of a call's plain-name receiver (a local, a parameter, a field or a primary constructor's
    parameter of the owner's class), else None."""
    if not call.receiver or call.receiver[0] != "name":
        return None
    name = call.receiver[1]
    declared = [t for at, t in bound.facts.locals.get(call.owner, {}).get(name, []) if at <= call.line]
    owner = bound.facts.symbols[bound.by_key[call.owner]] if call.owner in bound.by_key else None
    holder = owner.parent if owner is not None and owner.parent else None
    while not declared and holder:
        declared = [t for _, t in bound.facts.locals.get(holder, {}).get(name, [])]
        field = bound.by_key.get(f"{holder}.{name}")
        if not declared and field is not None and bound.facts.symbols[field].type:
            declared = [bound.facts.symbols[field].type]
        parent = bound.facts.symbols[bound.by_key[holder]].parent if holder in bound.by_key else None
        holder = parent
    written = declared[-1] if declared else ""
    return _simple(written) if written and written not in ("?", "var") and not written.startswith("~") else None


def interceptor_edges(files: list[Bound]) -> Iterator[GraphEdge]:
    """The ``TRIGGERS`` edges of EF Core save interceptors in the project's C# files (see the module docstring)."""
    types = _types(files)
    interceptors = _deriving(types, INTERCEPTOR_BASES)
    if not interceptors:
        return
    registered = _registered(files, interceptors)
    contexts = _contexts(types)
    for bound in files:
        running = registered.get(bound.ctx.microservice or "", set())
        if not running:
            continue
        for call in bound.facts.calls:
            hooks = HOOKS.get(call.name)
            if hooks is None or call.kind != "call" or call.owner not in bound.by_key \
                    or _receiver_type(bound, call) not in contexts:
                continue
            source = bound.ids[bound.by_key[call.owner]]
            for name in sorted(running):
                holder, key, _ = types[name]
                for member in holder.members(key):
                    hook = holder.facts.symbols[member]
                    if hook.name in hooks and holder.ids[member] != source:
                        yield make_edge(source, "TRIGGERS", holder.ids[member], {
                            "kind": "interceptor", "via": f"{call.name} -> {name}.{hook.name}",
                            "line": call.line})
