"""gRPC clients as go-kit writes them: ``grpctransport.NewClient(conn, "pkg.Service", "Method", enc, dec, reply)``
(go-kit's ``transport/grpc``) names the service's fully qualified name and the method as strings (literals, or
constants and locals the Go folding settles to one value; a local given two values stays unknown).

Where the two are the parameters of the project function that calls ``NewClient`` (a helper such as
``NewGrpcEndpoint(conn, id, service, method, reply)``), each call of that helper in the project passing both as
strings is the client instead (one level of helper; a helper of a helper is not followed; a helper may fix one
of the two itself). The endpoint is usually stored in a struct field (``getUser: grpctransport.NewClient(..)
.Endpoint()`` in a struct literal, or ``s.getUser = helper(..)``) and invoked through it (``repo.getUser(ctx,
req)``): then each method invoking that field on a value of the type that holds it is the client (where the call
is made, as an agent tracing it needs), else the place the endpoint is built. A service or method that stays unknown makes an unresolved client
that says why, never a guessed one."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ...languages.folding import literal
from ...languages.go.constants import GoFolder, GoValues
from ...languages.symbols import Bound
from ...services.endpoints import Item
from ..base import Framework, Project, Reader, item
from ..golang import GoPackages, written_type
from .services import GrpcServices, owner_of, services

#: go-kit's gRPC transport package (``github.com/go-kit/kit/transport/grpc``)
GOKIT_GRPC = re.compile(r"(?:^|/)go-kit/kit/transport/grpc$")
STRING = re.compile(r'^"([^"\\]*)"$|^`([^`]*)`$')
#: an argument the folding may settle (a constant, a local, ``pkg.Name``), and a service or method name it settles to
NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")
NAME_TEXT = re.compile(r"[\w.]+")


@dataclass(frozen=True)
class Site:
    """A place a go-kit gRPC endpoint is built, with the service and method it calls."""

    bound: Bound
    owner: str
    line: int
    callee: str
    service: str
    method: str


class _Strings:
    """The text of a string argument: a literal, or a constant or local the Go folding settles to one value (the
    project's values are read at the first argument that is no literal)."""

    def __init__(self, files: list[Bound]) -> None:
        self.files = files
        self.values: GoValues | None = None

    def of(self, bound: Bound, arg: str, owner: str, line: int) -> str | None:
        found = STRING.match(arg.strip())
        if found:
            return found.group(1) if found.group(1) is not None else found.group(2)
        if not NAME.fullmatch(arg.strip()):
            return None
        if self.values is None:
            self.values = GoValues([(b.ctx.module_name, b.facts) for b in self.files])
        folder = GoFolder(self.values, bound.ctx.module_name, bound.facts)
        folder.at(bound.facts, owner, line)
        value = folder.fold(arg.strip())
        return value.text if value.known and NAME_TEXT.fullmatch(value.text) else None


def _gokit_alias(bound: Bound) -> set[str]:
    return {alias for imp in bound.facts.imports for target, alias in imp.names if GOKIT_GRPC.search(target)}


#: the service and method a helper is called with: a parameter's position, or the value the helper fixes itself
Wanted = tuple[int | str, int | str]


def _helper_sites(files: list[Bound], packages: GoPackages, strings: _Strings, bound: Bound, owner: str,
                  wanted: Wanted, argc: int, unknown: list) -> list[Site]:
    """The calls of function ``owner`` of ``bound``'s package that pass strings (literals, constants) where
    ``wanted`` names a parameter; a call passing anything else goes to ``unknown``."""
    package, name = bound.ctx.module_name, owner
    positions = [p for p in wanted if isinstance(p, int)]
    out = []
    for other in files:
        for call in other.facts.calls:
            if call.name != name or call.argc != argc or max(positions) >= len(call.args):
                continue
            receiver = call.receiver
            same = receiver is None and other.ctx.module_name == package
            imported = receiver is not None and receiver[0] == "name" and \
                packages.package_of(other, receiver[1]) == package
            if not (same or imported):
                continue
            service, method = (strings.of(other, call.args[p], call.owner, call.line) if isinstance(p, int) else p
                               for p in wanted)
            if service and method:
                out.append(Site(other, call.owner, call.line, call.name, service, method))
            else:
                unknown.append((other, call, f"the service or method {name} is given is not a string in the code"))
    return out


def _sites(files: list[Bound], packages: GoPackages) -> tuple[list[Site], list[tuple[Bound, object, str]]]:
    """Every built endpoint with a known service and method, and the ``NewClient`` calls left unknown (why)."""
    sites: list[Site] = []
    unknown = []
    strings = _Strings(files)
    for bound in files:
        aliases = _gokit_alias(bound)
        if not aliases or bound.facts.extra.get("generated"):
            continue
        for call in bound.facts.calls:
            if call.name != "NewClient" or not call.receiver or call.receiver[0] != "name" or \
                    call.receiver[1] not in aliases or len(call.args) < 3:
                continue
            index = owner_of(bound, call.owner)
            sym = bound.facts.symbols[index] if index >= 0 else None
            params = [name for name, _type in sym.params] if sym is not None and sym.kind == "function" else []
            written = (call.args[1].strip(), call.args[2].strip())
            if not any(one in params for one in written):
                service, method = (strings.of(bound, one, call.owner, call.line) for one in written)
                if service and method:
                    sites.append(Site(bound, call.owner, call.line, call.name, service, method))
                else:
                    unknown.append((bound, call, "the service or method name is not a string in the code"))
                continue
            # a helper: each of the two is its parameter, or a value it fixes itself
            fixed = [strings.of(bound, one, call.owner, call.line) if one not in params else None for one in written]
            if any(one not in params and value is None for one, value in zip(written, fixed, strict=True)):
                unknown.append((bound, call, "the service or method name is not a string in the code"))
                continue
            wanted: Wanted = tuple(params.index(one) if one in params else value   # type: ignore[assignment]
                                   for one, value in zip(written, fixed, strict=True))
            before = len(unknown)
            found = _helper_sites(files, packages, strings, bound, sym.name, wanted, len(params), unknown)
            if found or len(unknown) > before:
                sites += found
                continue
            unknown.append((bound, call, f"the service and method are parameters of {sym.name}, which "
                            "nothing in the project calls"))
    return sites, unknown


def _invokers(files: list[Bound], packages: GoPackages, site: Site) -> list[tuple[Bound, int, int, str]]:
    """Where the endpoint built at ``site`` is called through the struct field it is stored in:
    (file, owner index, line, field). The field is the one of the type that holds it (the struct literal's, the
    assigned value's): a method invoking a field of that name is a client when its receiver is of that type, or,
    where a type is not known, when no other type of the package declares a field so named (never a guess
    between two types)."""
    stored = [(field, holder) for line, callee, field, *rest in site.bound.facts.extra.get("stored_in", ())
              if line == site.line and callee == site.callee for holder in (rest[0] if rest else "",)]
    if len(stored) != 1:
        return []
    field, holder = stored[0]
    package = site.bound.ctx.module_name
    declaring = {(pkg, type_) for (pkg, type_, name) in packages.fields if pkg == package and name == field}
    held = _type_of(packages, site.bound, site.owner, holder, site.line) if holder else None
    if held is not None and held not in declaring:
        return []
    if held is None and len(declaring) != 1:
        return []
    held = held or next(iter(declaring))
    out = []
    for bound in files:
        if bound.ctx.module_name != package:
            continue
        for call in bound.facts.calls:
            if call.name != field or not call.receiver or call.receiver[0] not in ("name", "field") or \
                    "." not in call.owner:
                continue
            receiver = _type_of(packages, bound, call.owner, call.receiver, call.line)
            if receiver == held or receiver is None and len(declaring) == 1 and \
                    (package, call.owner.split(".", 1)[0]) in declaring:
                out.append((bound, owner_of(bound, call.owner), call.line, field))
    return out


def _type_of(packages: GoPackages, bound: Bound, owner: str, expr, line: int) -> tuple[str, str] | None:
    """(package, type) of the project type a value is (a receiver tree, a local's name, ``Accounts{}``), else None."""
    written = written_type(packages, bound, owner, expr, line)
    return packages.type_key(bound, written) if written and not written.startswith("~") else None


def _client(known: GrpcServices, bound: Bound, owner: int, line: int, site: Site, written: str) -> Item:
    grpc = known.method(site.service, site.method) if site.service in known.methods else None
    return item(bound, owner, "client", "grpc", line, grpc=grpc or f"{site.service}/{site.method}",
                written=written, target=literal(site.service), target_source="gRPC service")


def _clients(files: list[Bound], packages: GoPackages, known: GrpcServices) -> dict[str, list[Item]]:
    sites, unknown = _sites(files, packages)
    out: dict[str, list[Item]] = {}
    for site in sites:
        written = f"{site.callee}({site.service!r}, {site.method!r})"
        invokers = _invokers(files, packages, site)
        for bound, owner, line, field in invokers:
            out.setdefault(bound.path, []).append(_client(known, bound, owner, line, site, f"{field} <- {written}"))
        if not invokers:
            owner = owner_of(site.bound, site.owner)
            out.setdefault(site.bound.path, []).append(_client(known, site.bound, owner, site.line, site, written))
    for bound, call, why in unknown:
        found = item(bound, owner_of(bound, call.owner), "client", "grpc", call.line, grpc="{?}/{?}",
                     written=f"{call.name}({', '.join(call.args[1:3])})")
        found.problems.append(why)
        out.setdefault(bound.path, []).append(found)
    return out


def prepare(files: list[Bound], project: Project) -> Reader:
    known = services(project)
    made: list[dict[str, list[Item]]] = []

    def read(bound: Bound) -> Iterator[Item]:
        if not made:   # read once, at the first file; the Go packages only where a file imports go-kit's transport
            made.append(_clients(files, GoPackages(files), known) if any(map(_gokit_alias, files)) else {})
        yield from made[0].get(bound.path, [])

    return read


FRAMEWORK = Framework("grpc_gokit", ("go",), prepare, reads=("go", "proto"))
