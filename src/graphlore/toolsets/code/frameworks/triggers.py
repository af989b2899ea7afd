"""What runs code that no call in the code names, where a static reader can know it: ``TRIGGERS`` edges (never
``CALLS``), from the symbol that sets it off to the symbol that holds what runs. Read across the whole project
after every update (TypeScript and JavaScript files; C# for MediatR, `frameworks.mediatr`, and EF Core save
interceptors, `frameworks.efcore_interceptors`; Java command and query
buses, `frameworks.command_bus`, and Eventuate Tram sagas, `frameworks.eventuate_sagas`; Java and Kotlin Spring AI tools, `frameworks.spring_ai`, and Spring application
events, `frameworks.spring_events`; Python for FastAPI).

**State-machine events (XState).** A machine is a ``Machine(config, options)`` / ``createMachine(...)`` call in a
file that imports ``xstate``; its config's ``on: { EVENT: "state" }`` (or ``{ target: "state" }``) transitions
lead to states whose ``invoke: { src: "service" }`` runs a service. A call that sends an event (a callee whose
name holds ``send``, with ``{ type: "EVENT", ... }`` or ``"EVENT"`` first, in a file that imports ``xstate`` or an
``@xstate/`` package: a ``ws.send("EVENT")`` elsewhere is no machine's) triggers the symbol that holds the
machine when exactly one machine of the sender's module invokes a service on that event (several: no edge, the
sender's service is not known statically; a machine runs in its module's process, so a sender in another module
never reaches it). Props: ``kind: state_machine_event``, ``event``, ``services``. The machine in turn triggers each
service function its states invoke, when its file declares it in the options' ``services`` object (one function
keyed ``<name>.services.<src>``): ``kind: state_machine_invoke``, ``service``.

**Framework callbacks (passport).** ``passport.session()`` runs the callback ``passport.deserializeUser(fn)``
registered; ``passport.authenticate("name")`` runs the verify callback of the strategy ``passport.use(...)``
registered under that name (``new LocalStrategy(...)`` is ``local``; ``passport.use("name", ...)`` names it).
The callback is an argument, so the edge goes to the symbol that registers it, in the trigger's module (each
process has its own ``passport``). Props: ``kind:
framework_callback``, ``via`` (``passport.session -> deserializeUser``).

**FastAPI dependencies** (Python files): `fastapi_depends`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..languages.symbols import Bound, Table
from ..model import GraphEdge, make_edge
from .base import brace_block
from .command_bus import command_bus_edges
from .efcore_interceptors import interceptor_edges
from .eventuate_sagas import saga_edges
from .fastapi_depends import dependency_edges
from .mediatr import mediator_edges
from .spring_ai import ai_tool_edges
from .spring_events import spring_event_edges

SCRIPT = ("typescript", "javascript")
MACHINES = frozenset({"Machine", "createMachine"})
_ON = re.compile(r"\bon\s*:\s*\{")
_TRANSITION = re.compile(r"""["']?([\w.:-]+)["']?\s*:\s*(?:["']([^"']+)["']|\{[^{}]*?\btarget\s*:\s*["']([^"']+)["'])""")
_INVOKE = re.compile(r"""(\w+)\s*:\s*\{[^{}]*?\binvoke\s*:\s*\{[^{}]*?\bsrc\s*:\s*["'](\w+)["']""")
_EVENT = re.compile(r"""^\s*(?:\{[^{}]*?\btype\s*:\s*["']([\w.:-]+)["']|["']([\w.:-]+)["']\s*$)""", re.S)
_STRATEGY = re.compile(r"\bnew\s+(\w+?)Strategy\b")


def machine_events(config: str) -> dict[str, set[str]]:
    """event -> the services the states it leads to invoke, in one machine's config (as written)."""
    invokes = {state: src for state, src in _INVOKE.findall(config)}
    out: dict[str, set[str]] = {}
    for found in _ON.finditer(config):
        for event, plain_target, target in _TRANSITION.findall(brace_block(config, found.end())):
            state = (plain_target or target).rsplit(".", 1)[-1].lstrip("#")
            if state in invokes:
                out.setdefault(event, set()).add(invokes[state])
    return out


def _owner(bound: Bound, key: str) -> str:
    index = bound.by_key.get(key) if key else None
    return bound.ids[index] if index is not None else bound.file_id


def _imports(bound: Bound, module: str) -> bool:
    return any(imp.target == module for imp in bound.facts.imports)


def trigger_edges(table: Table, root: Path) -> list[GraphEdge]:
    files = [b for _, b in sorted(table.files.items()) if b.facts.language in SCRIPT and not b.ctx.is_test]
    csharp = [b for _, b in sorted(table.files.items()) if b.facts.language == "csharp" and not b.ctx.is_test]
    java = [b for _, b in sorted(table.files.items()) if b.facts.language == "java" and not b.ctx.is_test]
    jvm = java + [b for _, b in sorted(table.files.items()) if b.facts.language == "kotlin" and not b.ctx.is_test]
    edges = (*_xstate(files, root), *_passport(files), *mediator_edges(csharp), *interceptor_edges(csharp),
             *command_bus_edges(java), *saga_edges(java),
             *ai_tool_edges(jvm), *spring_event_edges(jvm), *dependency_edges(table))
    return list({edge.id: edge for edge in edges}.values())


def _config(root: Path, bound: Bound, line: int, name: str) -> str:
    """The first object literal passed to the ``name(`` call at ``line``, read from the file (the facts keep an
    argument's first characters only)."""
    try:
        lines = (root / bound.path).read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    except OSError:
        return ""
    text = "".join(lines[line - 1:])
    call = re.search(rf"\b{name}\b[^(]*\(\s*\{{", text)
    return brace_block(text, call.end()) if call else ""


def _xstate(files: list[Bound], root: Path) -> Iterator[GraphEdge]:
    handlers: dict[tuple[str, str], list[tuple[str, set[str]]]] = {}   # (module, event) -> machines
    for bound in files:
        if not _imports(bound, "xstate"):
            continue
        for call in bound.facts.calls:
            if call.name in MACHINES and call.receiver is None and call.args:
                config = _config(root, bound, call.line, call.name)
                machine = _owner(bound, call.owner)
                for event, services in machine_events(config).items():
                    handlers.setdefault((bound.ctx.module, event), []).append((machine, services))
                yield from _invokes(bound, machine, config, call.line)
    if not handlers:
        return
    for bound in files:
        if not any(imp.target == "xstate" or imp.target.startswith("@xstate/") for imp in bound.facts.imports):
            continue
        for call in bound.facts.calls:
            if "send" not in call.name.lower() or not call.args:
                continue
            found = _EVENT.match(call.args[0])
            event = (found.group(1) or found.group(2)) if found else None
            machines = handlers.get((bound.ctx.module, event), []) if event else []
            if len(machines) != 1:
                continue
            target, services = machines[0]
            source = _owner(bound, call.owner)
            if source != target:
                yield make_edge(source, "TRIGGERS", target, {"kind": "state_machine_event", "event": event,
                                                             "services": sorted(services), "line": call.line})


def _invokes(bound: Bound, machine: str, config: str, line: int) -> Iterator[GraphEdge]:
    """The machine runs each service its states invoke (``invoke: { src: "load" }``): an edge to the function its
    file declares for it as a property of ``services`` (``m.services.load``, `typescript.extract`), when exactly
    one such function is declared there (none: the service is given elsewhere, ``withConfig`` in another file)."""
    for src in dict.fromkeys(src for _, src in _INVOKE.findall(config)):
        found = [key for key in bound.by_key if key.endswith(f".services.{src}")]
        if len(found) == 1:
            target = bound.ids[bound.by_key[found[0]]]
            if target != machine:
                yield make_edge(machine, "TRIGGERS", target, {"kind": "state_machine_invoke", "service": src,
                                                              "line": line})


def _passport(files: list[Bound]) -> Iterator[GraphEdge]:
    callbacks: dict[tuple[str, str], list[str]] = {}   # (module, what a trigger runs) -> the symbols registering it
    triggers: list[tuple[str, str, str, int]] = []
    for bound in files:
        if not _imports(bound, "passport"):
            continue
        for call in bound.facts.calls:
            if call.receiver != ["name", "passport"]:
                continue
            owner = _owner(bound, call.owner)
            if call.name == "deserializeUser" and call.args:
                callbacks.setdefault((bound.ctx.module, "session"), []).append(owner)
            elif call.name == "use" and call.args:
                named = re.fullmatch(r"""\s*["']([\w-]+)["']\s*""", call.args[0]) if len(call.args) > 1 else None
                strategy = _STRATEGY.search(call.args[-1])
                name = named.group(1) if named else strategy.group(1).lower() if strategy else None
                if name:
                    callbacks.setdefault((bound.ctx.module, f"authenticate:{name}"), []).append(owner)
            elif call.name == "session":
                triggers.append((bound.ctx.module, "session", owner, call.line))
            elif call.name == "authenticate" and call.args:
                named = re.fullmatch(r"""\s*["']([\w-]+)["']\s*""", call.args[0])
                if named:
                    triggers.append((bound.ctx.module, f"authenticate:{named.group(1)}", owner, call.line))
    for module, what, source, line in triggers:
        for target in dict.fromkeys(callbacks.get((module, what), [])):
            if target != source:
                via = "passport.session -> deserializeUser" if what == "session" else \
                    f"passport.authenticate({what.split(':', 1)[1]!r}) -> its strategy's verify callback"
                yield make_edge(source, "TRIGGERS", target, {"kind": "framework_callback", "via": via, "line": line})
