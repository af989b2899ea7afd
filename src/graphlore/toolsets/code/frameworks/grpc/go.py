"""gRPC in Go (grpc-go): ``pb.RegisterXServer(srv, impl)`` serves service ``X`` with ``impl``'s methods (every
method of ``X`` when ``impl``'s type is not in the project, such as ``health.NewServer()``), and a call of one of
``X``'s methods on a ``pb.NewXClient(conn)`` result, or on a local, parameter or struct field typed ``XClient``,
is a client. Generated files (``*.pb.go``) are neither."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import Framework, Project, Reader
from .services import GrpcServices, Reading, owner_of, services

REGISTER = re.compile(r"^Register(\w+)Server$")
NEW_CLIENT = re.compile(r"^New(\w+)Client$")
CLIENT_TYPE = re.compile(r"(?:^|\.)(\w+)Client$")
CONSTRUCTED = re.compile(r"^(?:&|new\()?\s*([\w.]+)\s*(?:\{[\s\S]*\}|\))?$")


class GoPackages:
    """The project's Go types by package, their methods and fields (wherever the package declares them)."""

    def __init__(self, bounds: list[Bound]) -> None:
        self.types: dict[tuple[str, str], tuple[Bound, int]] = {}
        self.methods: dict[tuple[str, str], dict[str, tuple[Bound, int]]] = {}
        self.fields: dict[tuple[str, str, str], str] = {}
        self.functions: dict[tuple[str, str], str] = {}
        for bound in bounds:
            package = bound.ctx.module_name
            for index, sym in enumerate(bound.facts.symbols):
                if sym.kind in ("class", "interface") and sym.parent is None:
                    self.types[(package, sym.name)] = (bound, index)
                elif sym.kind == "method" and "receiver" in sym.extra:
                    self.methods.setdefault((package, sym.extra["receiver"]), {})[sym.name] = (bound, index)
                elif sym.kind == "field" and sym.parent:
                    self.fields[(package, sym.parent, sym.name)] = sym.type
                elif sym.kind == "function":
                    self.functions[(package, sym.name)] = sym.type

    def package_of(self, bound: Bound, qualifier: str) -> str | None:
        for imp in bound.facts.imports:
            for target, alias in imp.names:
                if alias == qualifier:
                    return target
        return None

    def type_key(self, bound: Bound, written: str) -> tuple[str, str] | None:
        """(package, type name) of a project type as written in ``bound``, or None."""
        written = written.lstrip("*&").split("[", 1)[0]
        head, dot, name = written.rpartition(".")
        package = self.package_of(bound, head) if dot else bound.ctx.module_name
        if package is None:
            return None
        return (package, name) if (package, name) in self.types else None

    def result_of(self, bound: Bound, callee: str) -> str:
        """What a project function returns, as written ("" when it is not one)."""
        head, dot, name = callee.rpartition(".")
        package = self.package_of(bound, head) if dot else bound.ctx.module_name
        return self.functions.get((package or "", name), "")


def _local(bound: Bound, owner: str, name: str, line: int) -> str:
    """The type a local or parameter was declared or made with, nearest before ``line`` ("" when unknown)."""
    seen = [(at, t) for at, t in bound.facts.locals.get(owner, {}).get(name, []) if t and t != "?"]
    before = [t for at, t in seen if at <= line]
    return (before or [t for _, t in seen] or [""])[-1]


def written_type(packages: GoPackages, bound: Bound, owner: str, expr, line: int) -> str:
    """The type of a receiver tree or an argument as written ("" when not known)."""
    if isinstance(expr, str):
        expr = expr.strip()
        if re.fullmatch(r"\w+", expr):
            return written_type(packages, bound, owner, ["name", expr], line)
        match = CONSTRUCTED.match(expr)
        return match.group(1) if match and ("{" in expr or expr.startswith("new(")) else ""
    if expr[0] == "name":
        found = _local(bound, owner, expr[1], line) or bound.facts.extra.get("globals", {}).get(expr[1], "")
        if found.startswith("~") and found.endswith("()"):
            return packages.result_of(bound, found[1:-2]) or found
        return found
    if expr[0] == "field":
        inner = written_type(packages, bound, owner, expr[1], line)
        key = packages.type_key(bound, inner) if inner else None
        return packages.fields.get((*key, expr[2]), "") if key else ""
    if expr[0] == "call":
        return f"~{expr[2]}()"
    return ""


def read_go(known: GrpcServices, packages: GoPackages, bound: Bound) -> Iterator[Item]:
    if bound.facts.extra.get("generated"):
        return
    reading = Reading(known, bound)
    for call in bound.facts.calls:
        registered = REGISTER.match(call.name)
        if registered and len(call.args) >= 2:
            impl = written_type(packages, bound, call.owner, call.args[1], call.line)
            key = packages.type_key(bound, impl) if impl and not impl.startswith("~") else None
            handlers = packages.methods.get(key, {}) if key is not None else None
            yield from reading.routes(registered.group(1), handlers, owner_of(bound, call.owner), call.line)
            continue
        receiver = call.receiver
        if not receiver or receiver[0] not in ("call", "name", "field"):
            continue
        if receiver[0] == "call":
            stub = NEW_CLIENT.match(receiver[2])
            simple = stub.group(1) if stub else None
        else:
            typed = written_type(packages, bound, call.owner, receiver, call.line)
            stub = NEW_CLIENT.match(typed[1:-2].rsplit(".", 1)[-1]) if typed.startswith("~") else CLIENT_TYPE.search(
                typed)
            simple = stub.group(1) if stub else None
        if simple and simple in known.by_simple:
            found = reading.client(simple, call.name, owner_of(bound, call.owner), call.line, f"{simple}.{call.name}")
            if found is not None:
                yield found


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    packages = GoPackages(files)
    return lambda bound: read_go(known, packages, bound)


FRAMEWORK = Framework("grpc_go", ("go",), prepare)
