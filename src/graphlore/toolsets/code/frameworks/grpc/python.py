"""gRPC in Python (grpcio): ``add_XServicer_to_server(impl, server)`` serves service ``X`` with the methods of
``impl``'s class and its bases in the project (a method neither declares is not served), and a call of one of
``X``'s methods on an ``XStub(channel)`` (a local, a module variable, a ``self`` attribute or the call itself) is
a client (unresolved, saying so, when no ``.proto`` declares ``X`` and the stub comes from a ``*_pb2_grpc`` module). Generated
modules (``*_pb2_grpc.py``) are neither. A client's channel address (`PythonAddress`) is what the stub's channel
dials: ``XStub(grpc.insecure_channel(addr))`` (or ``secure_channel``, ``grpc.aio``'s), through locals, module
variables and ``self`` attributes."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...languages.folding import Folded, unknown
from ...languages.python.constants import PythonFolder
from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import FileMemo, Framework, Project, Reader
from .services import GrpcServices, Reading, owner_of, services, uses_grpc

ADD = re.compile(r"^add_(\w+)Servicer_to_server$")
STUB = re.compile(r"(?:^|\.)(\w+)Stub$")


#: grpcio's functions that open a channel (the address is the first argument)
CHANNELS = frozenset({"insecure_channel", "secure_channel"})


class PythonAddress(PythonFolder):
    """Folds a stub or channel expression to the address it dials (see the module docstring)."""

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        last = name.rsplit(".", 1)[-1]
        if args and (last in CHANNELS or STUB.search(name)):
            return self.fold_tokens(args[0])
        return super().call(name, args)


def _address(modules: dict, bound: Bound, call) -> Folded:
    """The address the stub a call is made on dials."""
    folder = PythonAddress(modules, bound.ctx.module_name).at(bound.facts, call.owner, call.line + 1)
    receiver = call.receiver
    if receiver[0] == "name":
        return folder.fold(receiver[1])
    if receiver[0] == "field":
        return folder.fold(f"self.{receiver[2]}")
    makers = [c for c in bound.facts.calls if c.owner == call.owner and c.line == call.line and
              c.name == receiver[2].rsplit(".", 1)[-1] and c.args]
    return folder.fold(makers[0].args[0]) if len(makers) == 1 else unknown("the stub's channel is not known")


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


def _classes(bound: Bound) -> list[tuple[str, int]]:
    """(name, index) of the file's top-level classes."""
    return [(sym.name, index) for index, sym in enumerate(bound.facts.symbols) if sym.kind == "class" and sym.parent is None]


class PythonClasses:
    """The project's Python classes by module and name."""

    def __init__(self, bounds: list[Bound], memo: FileMemo) -> None:
        self.classes: dict[tuple[str, str], tuple[Bound, int]] = {}
        for bound in bounds:
            for name, index in memo.get("grpc_python.classes", bound, _classes):
                self.classes[(bound.ctx.module_name, name)] = (bound, index)

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


def read_python(known: GrpcServices, classes: PythonClasses, modules: dict, bound: Bound) -> Iterator[Item]:
    if bound.facts.extra.get("generated") or bound.path.endswith("_pb2_grpc.py"):
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
            found = reading.stub_call(stub.group(1), call, certain=_generated(bound, stub.string))
            if found:
                address = _address(modules, bound, call)
                for client in found:
                    client.address = address
            yield from found


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    classes = PythonClasses(files, project.memo)
    modules = {b.ctx.module_name: b.facts for b in files}
    return lambda bound: read_python(known, classes, modules, bound) if project.memo.get("grpc", bound, uses_grpc) else ()


FRAMEWORK = Framework("grpc_python", ("python",), prepare, reads=("python", "proto"))
