""".NET Aspire: the names an AppHost gives the projects it runs are the services' names.

An AppHost's ``builder.AddProject<Projects.Basket_API>("basket-api")`` (read by the C# extractor into
``extra["aspire_projects"]``) runs the project whose file is ``Basket.API.csproj`` (Aspire names the type after
the project file, every character outside ``[A-Za-z0-9_]`` written ``_``) as the resource ``basket-api``; its
service discovery resolves ``http://basket-api`` and ``https+http://basket-api`` to it. The name is given to the
one service whose name, declared name or folder is written that way; when none or several are, to nobody.
Read from the facts on every update (an AppHost is source code, not a deployment file).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from ..layout.layout import Layout
from ..model import FileFacts
from .deployment import Deployment


def _type_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def aspire_names(layout: Layout, facts: Mapping[str, FileFacts]) -> dict[str, dict[str, str]]:
    """Service -> {resource name: where it is given} for every ``AddProject<T>("name")`` of the project."""
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
