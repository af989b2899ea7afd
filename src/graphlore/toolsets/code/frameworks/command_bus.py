"""In-process command and query buses in Java: ``bus.executeCommand(cmd)`` runs the handler of the command's type.

A project's own bus (or a framework's written in the project) dispatches through a registry that no static call
names: the handler is found at run time by the message's class. What the code does say is the types: the bus's
dispatch method is generic over the message, bounded by a base type (``<R, C extends Command<R>> R
executeCommand(C command)``), and the handler interface is generic over a message type bounded by the same base
(``interface CommandHandler<R, C extends Command<R>> { R handle(C command); }``), each handler class naming its
message type (``class CreateOfferHandler implements CommandHandler<CreateOfferResult, CreateOfferCommand>``).

A call of such a dispatch method, on a receiver typed as the dispatching type or a subtype of it, whose argument's
type is known (``new T(..)``, or a parameter or local declared ``T`` when no project class extends ``T``: the registry
looks the handler up by the object's class), ``TRIGGERS`` (``kind: command_bus``) the
handler method (the interface's method taking the message) of the one concrete class the caller's process runs
(its own service's or a library's) that implements a handler interface of that base for exactly ``T``. Never a
guess: two such handlers, an argument whose type is not known, or a message type no handler names give no edge.
Every type is its qualified name, resolved as javac does (`_Types`): another package's class of the same simple
name is another type, and a handler whose interface or message is not resolved still makes a resolved one
uncertain, and so does a concrete class that implements a handler interface through a base class (its
method's parameter is its message). A library's caller runs in each service that uses it: a handler of its message in any service counts.
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
    """type parameter -> (its position, its first bound as written, without type arguments) for ``X extends B<..>``
    parameters."""
    out = {}
    for position, param in enumerate(params):
        found = re.match(r"(\w+)\s+extends\s+([\w.]+)", param)
        if found:
            out[found.group(1)] = (position, found.group(2))
    return out


class _Types:
    """The project's Java classes and interfaces by qualified name, and a type name as a file writes it resolved as
    javac does (qualified; a single-type import; the file's own package; the one wildcard import that has it).
    ``None`` when it names no project type, or not one for certain: then no edge (two types may share a simple name
    in different packages, so a simple name is never enough)."""

    def __init__(self, files: list[Bound]) -> None:
        self.known = {_qualified(bound, sym.key) for bound in files for sym in bound.facts.symbols
                      if sym.kind in ("class", "interface")}

    def fqn(self, bound: Bound, written: str | None) -> str | None:
        name = re.sub(r"<.*", "", written or "").strip()
        if not name or "." in name:
            return name if name in self.known else None
        for imp in bound.facts.imports:
            if imp.names != (("*", "*"),) and imp.target.rsplit(".", 1)[-1] == name:
                return imp.target if imp.target in self.known else None
        own = _qualified(bound, name)
        if own in self.known:
            return own
        wild = [f"{imp.target}.{name}" for imp in bound.facts.imports
                if imp.names == (("*", "*"),) and f"{imp.target}.{name}" in self.known]
        return wild[0] if len(wild) == 1 else None


def _qualified(bound: Bound, key: str) -> str:
    return f"{bound.facts.package}.{key}" if bound.facts.package else key


def _applied(signature: str, name: str) -> list[str] | None:
    """The type arguments ``name`` is applied to in a class's ``implements``/``extends`` clause."""
    found = re.search(rf"(?:implements|extends)\b[^{{]*?\b{re.escape(name)}\s*<", signature)
    return _generic_args(signature, found.end() - 1) if found else None


def command_bus_edges(files: list[Bound]) -> Iterator[GraphEdge]:
    """The ``TRIGGERS`` edges of command and query buses in the project's Java files (see the module docstring)."""
    types = _Types(files)
    dispatch: dict[str, list[tuple[str, int, str]]] = {}   # method name -> (declaring type, param position, base)
    interfaces: dict[str, tuple[int, str, str]] = {}   # handler interface -> (message position, base, method)
    supers: dict[str, set[str]] = {}   # every name here is a qualified one (`_Types`)
    for bound in files:
        for sym in bound.facts.symbols:
            if sym.kind in ("class", "interface"):
                supers.setdefault(_qualified(bound, sym.key), set()).update(
                    found for _, w in sym.supers if (found := types.fqn(bound, w)))
            if sym.kind == "method" and sym.type_params and "#" in sym.key and sym.signature.lstrip().find("<") >= 0:
                variables = _bounded(_generic_args(sym.signature, sym.signature.index("<")))
                for position, (_, written) in enumerate(sym.params):
                    base = types.fqn(bound, variables[written][1]) if written in variables else None
                    if base:
                        dispatch.setdefault(sym.name, []).append(
                            (_qualified(bound, sym.key.split("#")[0]), position, base))
            if sym.kind == "interface" and sym.type_params:
                at = re.search(rf"\binterface\s+{re.escape(sym.name)}\s*<", sym.signature)
                variables = _bounded(_generic_args(sym.signature, at.end() - 1)) if at else {}
                for member in bound.members(sym.key):
                    method = bound.facts.symbols[member]
                    taking = [variables[t] for _, t in method.params if t in variables]
                    base = types.fqn(bound, taking[0][1]) if taking else None
                    if method.kind == "method" and len(method.params) == 1 and base:
                        interfaces[_qualified(bound, sym.key)] = (taking[0][0], base, method.name)
    if not dispatch or not interfaces:
        return
    # (base, message) -> (file, handler method id): ``exact`` by qualified names, ``loose`` by simple names (a handler
    # whose interface or message is not resolved may still be one: it makes the exact one uncertain)
    exact: dict[tuple[str, str], list[tuple[Bound, str]]] = {}
    loose: dict[tuple[str, str], list[tuple[Bound, str]]] = {}
    for bound in files:
        for sym in bound.facts.symbols:
            if sym.kind != "class" or "abstract" in sym.modifiers:
                continue
            for _, written in sym.supers:
                resolved = types.fqn(bound, written)
                for name, spec in interfaces.items():
                    if name.rsplit(".", 1)[-1] != _simple(written) or resolved not in (None, name):
                        continue
                    args = _applied(sym.signature, _simple(written))
                    if not args or len(args) <= spec[0]:
                        continue
                    methods = [m for m in bound.members(sym.key) if bound.facts.symbols[m].name == spec[2]
                               and [_simple(t) for _, t in bound.facts.symbols[m].params] == [_simple(args[spec[0]])]]
                    if len(methods) != 1:
                        continue
                    handler = (bound, bound.ids[methods[0]])
                    loose.setdefault((_simple(spec[1]), _simple(args[spec[0]])), []).append(handler)
                    message = types.fqn(bound, args[spec[0]])
                    if resolved == name and message:
                        exact.setdefault((spec[1], message), []).append(handler)
            own = _qualified(bound, sym.key)
            for name, spec in interfaces.items():
                if not _is_a(own, name, supers):
                    continue
                # a handler through a base class (``AuditPlace extends BaseHandler<PlaceOrder>``): its message is its
                # method's parameter; it makes a direct handler of that type uncertain
                for member in bound.members(sym.key):
                    method = bound.facts.symbols[member]
                    if method.kind == "method" and method.name == spec[2] and len(method.params) == 1:
                        loose.setdefault((_simple(spec[1]), _simple(method.params[0][1])), []).append(
                            (bound, bound.ids[member]))
    for bound in files:
        for call in bound.facts.calls:
            if call.kind != "call" or call.name not in dispatch or call.owner not in bound.by_key:
                continue
            receiver = types.fqn(bound, _receiver_type(bound, call))
            for declaring, position, base in dispatch[call.name]:
                if receiver is None or not _is_a(receiver, declaring, supers) or len(call.args) <= position:
                    continue
                arg = call.args[position].strip()
                message = types.fqn(bound, _argument_type(bound, call.owner, arg, call.line))
                if message is None or (not _NEW.match(arg) and any(
                        other != message and _is_a(other, message, supers) for other in supers)):
                    continue   # a declared type with a project subtype: the object's class is not known
                # a library's code runs in every service that uses it: a handler of the type in any of them counts
                sure, maybe = ({target for where, target in found if not bound.ctx.deployable or reaches(bound.ctx, where.ctx)}
                               for found in (exact.get((base, message), []), loose.get((_simple(base), _simple(message)), [])))
                reached = {target for where, target in exact.get((base, message), []) if reaches(bound.ctx, where.ctx)}
                source = bound.ids[bound.by_key[call.owner]]
                if len(sure) == 1 and sure == maybe == reached and source not in sure:
                    yield make_edge(source, "TRIGGERS", sure.pop(), {
                        "kind": "command_bus", "message": _simple(message), "via": f"{call.name}({call.args[position]})",
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
    """The declared type of a local, a parameter of ``owner`` or a field of its class, as written."""
    local = [t for at, t in bound.facts.locals.get(owner, {}).get(name, []) if at <= line]
    if local and local[-1] not in ("var", "?"):
        return local[-1]
    sym = bound.facts.symbols[bound.by_key[owner]]
    param = [t for n, t in sym.params if n == name]
    if param:
        return param[0]
    field = bound.by_key.get(f"{owner.split('#')[0]}#{name}")
    return bound.facts.symbols[field].type if field is not None and bound.facts.symbols[field].type else None


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
        return made.group(1)
    return _declared(bound, owner, arg, line) if re.fullmatch(r"\w+", arg) else None
