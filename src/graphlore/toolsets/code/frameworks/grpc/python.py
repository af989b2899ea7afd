"""gRPC in Python (grpcio): ``add_XServicer_to_server(impl, server)`` serves service ``X`` with the methods of
``impl``'s class and its bases in the project (a method neither declares is not served), and a call of one of
``X``'s methods on an ``XStub(channel)`` (a local, a module variable, a ``self`` attribute or the call itself) is
a client (unresolved, saying so, when no ``.proto`` declares ``X`` and the stub comes from a ``*_pb2_grpc`` module). Generated
modules (``*_pb2_grpc.py``) are neither."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import Framework, Project, Reader
from .services import GrpcServices, Reading, owner_of, services, uses_grpc

ADD = re.compile(r"^add_(\w+)Servicer_to_server$")
STUB = re.compile(r"(?:^|\.)(\w+)Stub$")


def _made_by(bound: Bound, owner: str, name: str, line: int) -> str:
    """What made a local or module variable (``~X()`` -> ``X``), nearest before ``line``."""
    seen = [(at, t) for at, t in bound.facts.locals.get(owner, {}).get(name, []) if t.startswith("~")]
    before = [t for at, t in seen if at <= line] or [t for _, t in seen]
    found = before[-1] if before else bound.facts.extra.get("globals", {}).get(name, "")
    return found[1:-2] if found.startswith("~") and found.endswith("()") else ""


def _attribute(bound: Bound, owner: str, name: str) -> str:
    """What made ``self.name`` in the class around ``owner`` (``~X()`` -> ``X``)."""
    class_key = owner.rsplit(".", 1)[0] if "." in owner else ""
    index = bound.by_key.get(f"{class_key}.{name}")
    found = bound.facts.symbols[index].type if index is not None else ""
    return found[1:-2] if found.startswith("~") and found.endswith("()") else ""


def _generated(bound: Bound, made: str) -> bool:
    """``made`` (``x_pb2_grpc.XStub``, or ``XStub`` imported from one) names a stub of grpcio's generator."""
    head, _, last = made.rpartition(".")
    if head:
        return head.endswith("_pb2_grpc") or any(
            imp.target.endswith("_pb2_grpc") and head in (alias for _, alias in imp.names) for imp in bound.facts.imports)
    return any(imp.target.endswith("_pb2_grpc") and last in (alias for _, alias in imp.names)
               for imp in bound.facts.imports)


class PythonClasses:
    """The project's Python classes by module and name."""

    def __init__(self, bounds: list[Bound]) -> None:
        self.classes: dict[tuple[str, str], tuple[Bound, int]] = {}
        for bound in bounds:
            for index, sym in enumerate(bound.facts.symbols):
                if sym.kind == "class" and sym.parent is None:
                    self.classes[(bound.ctx.module_name, sym.name)] = (bound, index)

    def find(self, bound: Bound, dotted: str) -> tuple[Bound, int] | None:
        """The class a name as written in ``bound`` means: its own, or one imported from a project module."""
        head, _, last = dotted.rpartition(".")
        if not head:
            found = self.classes.get((bound.ctx.module_name, last))
            if found is not None:
                return found
        for imp in bound.facts.imports:
            for imported, alias in imp.names:
                if head and alias == head:
                    return self.classes.get((imp.target, last))
                if not head and alias == last:
                    return self.classes.get((imp.target, imported))
        return None

    def handlers(self, found: tuple[Bound, int], depth: int = 0) -> dict[str, tuple[Bound, int]]:
        """The methods of a class and (not overridden) of its project bases."""
        bound, index = found
        sym = bound.facts.symbols[index]
        out = {bound.facts.symbols[i].name: (bound, i) for i in bound.members(sym.key)
               if bound.facts.symbols[i].kind == "method"}
        for _relation, base in sym.supers if depth < 8 else ():
            parent = self.find(bound, base)
            if parent is not None:
                for name, handler in self.handlers(parent, depth + 1).items():
                    out.setdefault(name, handler)
        return out


def read_python(known: GrpcServices, classes: PythonClasses, bound: Bound) -> Iterator[Item]:
    if not uses_grpc(bound) or bound.facts.extra.get("generated") or bound.path.endswith("_pb2_grpc.py"):
        return
    reading = Reading(known, bound)
    for call in bound.facts.calls:
        added = ADD.match(call.name)
        if added and call.args:
            impl = call.args[0].strip()
            made = impl[:-2] if impl.endswith("()") else _made_by(bound, call.owner, impl, call.line)
            found = classes.find(bound, made) if made else None
            handlers = classes.handlers(found) if found is not None else None
            yield from reading.routes(added.group(1), handlers, owner_of(bound, call.owner), call.line)
            continue
        receiver = call.receiver
        if not receiver:
            continue
        if receiver[0] == "call":
            stub = STUB.search(receiver[2])
        elif receiver[0] == "name":
            stub = STUB.search(_made_by(bound, call.owner, receiver[1], call.line))
        elif receiver[0] == "field" and receiver[1] in (["self"], ["name", "self"]):
            stub = STUB.search(_attribute(bound, call.owner, receiver[2]))
        else:
            stub = None
        if stub:
            yield from reading.stub_call(stub.group(1), call, certain=_generated(bound, stub.string))


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    classes = PythonClasses(files)
    return lambda bound: read_python(known, classes, bound)


FRAMEWORK = Framework("grpc_python", ("python",), prepare)
