""".NET Aspire: the names an AppHost gives the projects it runs are the services' names.

An AppHost's ``builder.AddProject<Projects.Basket_API>("basket-api")`` (read by the C# extractor into
``extra["aspire_projects"]``) runs the project whose file is ``Basket.API.csproj`` (Aspire names the type after
the project file, every character outside ``[A-Za-z0-9_]`` written ``_``) as the resource ``basket-api``; its
service discovery resolves ``http://basket-api`` and ``https+http://basket-api`` to it. The name is given to the
one service whose name, declared name or folder is written that way; when none or several are, to nobody.

Resources that are not .NET projects are named by where they run from: ``AddPythonApp("py", "../Py", "main.py")``,
``AddUvicornApp``, ``AddNpmApp("web", "../Web")``, ``AddNodeApp("web", "../Web/server.js")``, ``AddExecutable("tool",
"python", "../Tool")``, ``AddDockerfile("svc", "../Svc")``, the path form ``AddProject("api", "../Api/Api.csproj")``
and a project's own ``AddXxxApp`` helper alike: a call on the AppHost's builder whose first argument is the
resource's name and a later one a path (a string, or ``Path.Combine`` of strings and ``builder.AppHostDirectory``),
relative to the AppHost's folder, that is a service's folder or lies in one (the innermost). A path that names no
service's folder (an image, a command) names nothing.
Read from the facts on every update (an AppHost is source code, not a deployment file).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace

from ..layout.layout import Layout
from ..model import FileFacts
from .deployment import Deployment


def _type_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


_STRING = re.compile(r'^@?"([^"]*)"$')
_COMBINE = re.compile(r"^(?:System\.IO\.)?Path\.Combine\((.*)\)$", re.S)
_HOST_DIRECTORY = re.compile(r"^(?:\w+\.)?AppHostDirectory$")


@dataclass(frozen=True)
class Resource:
    """One AppHost resource that runs from a folder: its name, the call that adds it and the folder's path."""

    name: str
    method: str
    paths: tuple[str, ...]   # its path arguments, relative to the project root, normalised
    file: str
    line: int
    written: str    # the call as written (its first arguments)


def _path(written: str) -> str | None:
    """A path argument as written (``"../Py"``, ``@"..\\Py"``, ``Path.Combine("..", "Py")``,
    ``Path.Combine(builder.AppHostDirectory, "..", "Py")``), relative to the AppHost's folder; None for anything else."""
    written = written.strip()
    if (combined := _COMBINE.match(written)) is not None:
        parts = [p.strip() for p in combined.group(1).split(",")]
        if parts and _HOST_DIRECTORY.match(parts[0]):
            parts = parts[1:]
        found = [_path(p) for p in parts]
        return "/".join(found) if found and all(f is not None for f in found) else None
    string = _STRING.match(written)
    return string.group(1).replace("\\", "/") if string is not None and string.group(1) else None


def _builders(file: FileFacts) -> set[str]:
    """The names an AppHost's ``DistributedApplication.CreateBuilder(..)`` result is held in."""
    return {var for table in file.locals.values() for var, seen in table.items()
            if any(type_.replace(" ", "").startswith("~DistributedApplication.CreateBuilder(") for _, type_ in seen)}


def folder_resources(facts: Mapping[str, FileFacts]) -> Iterator[Resource]:
    """Every ``builder.AddXxx("name", .., path, ..)`` of an AppHost with an argument that may be a path in the
    project (relative to the AppHost's folder); which service it runs is `resource_service`'s."""
    for path, file in sorted(facts.items()):
        builders = _builders(file) if file.language == "csharp" else set()
        if not builders:
            continue
        host = posixpath.dirname(path)
        for call in file.calls:
            if not (call.name.startswith("Add") and call.receiver and call.receiver[0] == "name"
                    and call.receiver[1] in builders and len(call.args) >= 2):
                continue
            name = _STRING.match(call.args[0].strip())
            if name is None or not name.group(1) or call.name == "AddProject" and len(call.args) < 2:
                continue
            paths = []
            for written in call.args[1:]:
                relative = _path(written)
                if relative is not None and not relative.startswith("/"):
                    joined = posixpath.normpath(posixpath.join(host, relative))
                    if not joined.startswith("../") and joined != "..":
                        paths.append("" if joined == "." else joined)
            if paths:
                yield Resource(name.group(1), call.name, tuple(paths), path, call.line,
                               f"{call.name}({', '.join(call.args)})")


def resource_service(layout: Layout, resource: Resource) -> str | None:
    """The service the resource runs: the first of its paths that is a service's folder or lies in one."""
    return next((found for found in (_service_at(layout, p, resource.file) for p in resource.paths) if found), None)


def _service_at(layout: Layout, path: str, host: str) -> str | None:
    """The service whose folder is ``path`` or holds it (the innermost), never the AppHost's own."""
    best: tuple[int, str] | None = None
    for name, service in layout.services.items():
        root = "" if service.root in (".", "") else service.root
        if root and (path == root or path.startswith(root + "/")) and (best is None or len(root) > best[0]):
            best = (len(root), name)
    if best is None:
        return None
    own = _service_at_file(layout, host)
    return None if best[1] == own else best[1]


def _service_at_file(layout: Layout, path: str) -> str | None:
    roots = [(len(s.root), n) for n, s in layout.services.items()
             if s.root not in (".", "") and path.startswith(s.root.rstrip("/") + "/")]
    return max(roots)[1] if roots else None


def aspire_names(layout: Layout, facts: Mapping[str, FileFacts]) -> dict[str, dict[str, str]]:
    """Service -> {resource name: where it is given} for every ``AddProject<T>("name")`` of the project and every
    resource run from a service's folder (`folder_resources`)."""
    by_type: dict[str, set[str]] = {}
    for name, service in layout.services.items():
        folder = service.root.rsplit("/", 1)[-1]
        for written in {name, folder, *service.declared_names.values()}:
            by_type.setdefault(_type_name(written), set()).add(name)
    out: dict[str, dict[str, str]] = {}
    for path, file in sorted(facts.items()):
        for project in file.extra.get("aspire_projects", []):
            found = by_type.get(project["project"].rsplit(".", 1)[-1], set())
            if len(found) == 1 and project["name"]:
                out.setdefault(next(iter(found)), {}).setdefault(
                    project["name"], f"Aspire AppHost ({path}:{project['line']})")
    for resource in folder_resources(facts):
        service = resource_service(layout, resource)
        if service is not None:
            out.setdefault(service, {}).setdefault(
                resource.name, f"Aspire AppHost {resource.method} ({resource.file}:{resource.line})")
    return out


def with_aspire(deployment: Deployment, layout: Layout, facts: Mapping[str, FileFacts]) -> Deployment:
    """The deployment with the AppHosts' resource names added to its services' names."""
    found = aspire_names(layout, facts)
    if not found:
        return deployment
    names = {service: dict(given) for service, given in deployment.names.items()}
    for service, given in found.items():
        for name, source in given.items():
            names.setdefault(service, {}).setdefault(name, source)
    return replace(deployment, names=names)
