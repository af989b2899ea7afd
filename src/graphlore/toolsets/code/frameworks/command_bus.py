"""In-process command and query buses in Java: ``bus.executeCommand(cmd)`` runs the handler of the command's type.

A project's own bus (or a framework's written in the project) dispatches through a registry that no static call
names: the handler is found at run time by the message's class. What the code does say is the types: the bus's
dispatch method is generic over the message, bounded by a base type (``<R, C extends Command<R>> R
executeCommand(C command)``), and the handler interface is generic over a message type bounded by the same base
(``interface CommandHandler<R, C extends Command<R>> { R handle(C command); }``), each handler class naming its
message type (``class CreateOfferHandler implements CommandHandler<CreateOfferResult, CreateOfferCommand>``).

A call of such a dispatch method, on a receiver typed as the dispatching type or a subtype of it, whose argument's
type is known (``new T(..)``, or a parameter or local declared ``T``), ``TRIGGERS`` (``kind: command_bus``) the
handler method (the interface's method taking the message) of the one concrete class the caller's process runs
(its own service's or a library's) that implements a handler interface of that base for exactly ``T``. Never a
guess: two such handlers, an argument whose type is not known, or a message type no handler names give no edge.
Queries (``executeQuery(Q)`` with ``QueryHandler<R, Q extends Query<R>>``) are the same form.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.symbols import Bound, reaches
from ..model import GraphEdge, make_edge

_NEW = re.compile(r"^new\s+([\w.]+)\s*(?:<[^()]*>)?\s*\(")


def _simple(written: str) -> str:
    return re.sub(r"<.*", "", written).strip().rsplit(".", 1)[-1]


def _generic_args(text: str, start: int) -> list[str]:
    """The top-level comma-separated parts of the ``<...>`` whose ``<`` is at ``start``."""
    depth, parts, part = 0, [], ""
    for c in text[start:]:
        if c == "<":
            depth += 1
            if depth == 1:
                continue
        elif c == ">":
            depth -= 1
            if depth == 0:
                parts.append(part.strip())
                return [p for p in parts if p]
        elif c == "," and depth == 1:
            parts.append(part.strip())
            part = ""
            continue
        part += c
    return []


def _bounded(params: list[str]) -> dict[str, tuple[int, str]]:
    """type parameter -> (its position, the simple name of its first bound) for ``X extends B<..>`` parameters."""
    out = {}
    for position, param in enumerate(params):
        found = re.match(r"(\w+)\s+extends\s+([\w.]+)", param)
        if found:
            out[found.group(1)] = (position, _simple(found.group(2)))
    return out


def _applied(signature: str, name: str) -> list[str] | None:
    """The type arguments ``name`` is applied to in a class's ``implements``/``extends`` clause."""
    found = re.search(rf"(?:implements|extends)\b[^{{]*?\b{re.escape(name)}\s*<", signature)
    return _generic_args(signature, found.end() - 1) if found else None


def command_bus_edges(files: list[Bound]) -> Iterator[GraphEdge]:
    """The ``TRIGGERS`` edges of command and query buses in the project's Java files (see the module docstring)."""
    dispatch: dict[str, list[tuple[str, int, str]]] = {}   # method name -> (declaring type, param position, base)
    interfaces: dict[str, tuple[int, str, str]] = {}   # handler interface -> (message position, base, method)
    supers: dict[str, set[str]] = {}
    for bound in files:
        for sym in bound.facts.symbols:
            if sym.kind in ("class", "interface"):
                supers.setdefault(sym.name, set()).update(_simple(w) for _, w in sym.supers)
            if sym.kind == "method" and sym.type_params and "#" in sym.key and sym.signature.lstrip().find("<") >= 0:
                variables = _bounded(_generic_args(sym.signature, sym.signature.index("<")))
                for position, (_, written) in enumerate(sym.params):
                    if written in variables:
                        dispatch.setdefault(sym.name, []).append((sym.key.split("#")[0], position, variables[written][1]))
            if sym.kind == "interface" and sym.type_params:
                at = re.search(rf"\binterface\s+{re.escape(sym.name)}\s*<", sym.signature)
                variables = _bounded(_generic_args(sym.signature, at.end() - 1)) if at else {}
                for member in bound.members(sym.key):
                    method = bound.facts.symbols[member]
                    taking = [variables[t] for _, t in method.params if t in variables]
                    if method.kind == "method" and len(method.params) == 1 and taking:
                        interfaces[sym.name] = (taking[0][0], taking[0][1], method.name)
    if not dispatch or not interfaces:
        return
    handlers: dict[tuple[str, str], list[tuple[Bound, str]]] = {}   # (base, message) -> (file, handler method id)
    for bound in files:
        for sym in bound.facts.symbols:
            if sym.kind != "class" or "abstract" in sym.modifiers:
                continue
            for _, written in sym.supers:
                spec = interfaces.get(_simple(written))
                args = _applied(sym.signature, _simple(written)) if spec else None
                if not args or len(args) <= spec[0]:
                    continue
                message = _simple(args[spec[0]])
                methods = [m for m in bound.members(sym.key) if bound.facts.symbols[m].name == spec[2]
                           and [_simple(t) for _, t in bound.facts.symbols[m].params] == [message]]
                if len(methods) == 1:
                    handlers.setdefault((spec[1], message), []).append((bound, bound.ids[methods[0]]))
    for bound in files:
        for call in bound.facts.calls:
            if call.kind != "call" or call.name not in dispatch or call.owner not in bound.by_key:
                continue
            receiver = _receiver_type(bound, call)
            for declaring, position, base in dispatch[call.name]:
                if receiver is None or not _is_a(receiver, declaring, supers) or len(call.args) <= position:
                    continue
                message = _argument_type(bound, call.owner, call.args[position].strip(), call.line)
                targets = {target for where, target in handlers.get((base, message or ""), ())
                           if reaches(bound.ctx, where.ctx)}
                source = bound.ids[bound.by_key[call.owner]]
                if len(targets) == 1 and source not in targets:
                    yield make_edge(source, "TRIGGERS", targets.pop(), {
                        "kind": "command_bus", "message": message, "via": f"{call.name}({call.args[position]})",
                        "line": call.line})


def _is_a(name: str, target: str, supers: dict[str, set[str]]) -> bool:
    seen, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current == target:
            return True
        if current not in seen:
            seen.add(current)
            todo.extend(supers.get(current, ()))
    return False


def _declared(bound: Bound, owner: str, name: str, line: int) -> str | None:
    """The declared type of a local, a parameter of ``owner`` or a field of its class, as a simple name."""
    local = [t for at, t in bound.facts.locals.get(owner, {}).get(name, []) if at <= line]
    if local and local[-1] not in ("var", "?"):
        return _simple(local[-1])
    sym = bound.facts.symbols[bound.by_key[owner]]
    param = [t for n, t in sym.params if n == name]
    if param:
        return _simple(param[0])
    field = bound.by_key.get(f"{owner.split('#')[0]}#{name}")
    return _simple(bound.facts.symbols[field].type) if field is not None and bound.facts.symbols[field].type else None


def _receiver_type(bound: Bound, call) -> str | None:
    tree = call.receiver
    if tree and tree[0] == "name":
        return _declared(bound, call.owner, tree[1], call.line)
    if tree and tree[0] == "field" and tree[1] and tree[1][0] == "this":
        return _declared(bound, call.owner, tree[2], call.line)
    return None


def _argument_type(bound: Bound, owner: str, arg: str, line: int) -> str | None:
    made = _NEW.match(arg)
    if made:
        return _simple(made.group(1))
    return _declared(bound, owner, arg, line) if re.fullmatch(r"\w+", arg) else None
