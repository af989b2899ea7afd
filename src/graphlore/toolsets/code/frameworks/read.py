"""Part 2 over the whole project: every framework reads the routes, clients and producers of the files of
its languages, with their values folded with the project's constants and each module's settings; linking
them is `services.links`.

It runs after every update of the graph, over every file's facts (no file is parsed again), so its
records always equal a full build's. Test code is not read. In-source declarations (`declared`) have priority
over what the frameworks read on the same symbol. The frameworks, in the order they read:
"""

from __future__ import annotations

from ..languages.symbols import Table
from ..services.endpoints import Item
from ..services.settings import Values
from . import aspnet, declared, gateway, go_web, jaxrs, ktor, python_web, script_web, spring
from .base import Framework, Project
from .grpc import csharp as grpc_csharp
from .grpc import go as grpc_go
from .grpc import jvm as grpc_jvm
from .grpc import python as grpc_python
from .grpc import script as grpc_script

FRAMEWORKS: tuple[Framework, ...] = (
    spring.FRAMEWORK,
    gateway.FRAMEWORK,
    jaxrs.FRAMEWORK,
    python_web.FRAMEWORK,
    script_web.FRAMEWORK,
    go_web.FRAMEWORK,
    aspnet.FRAMEWORK,
    ktor.FRAMEWORK,
    grpc_go.FRAMEWORK,
    grpc_csharp.FRAMEWORK,
    grpc_jvm.FRAMEWORK,
    grpc_python.FRAMEWORK,
    grpc_script.FRAMEWORK,
    declared.FRAMEWORK,
)


def read_items(table: Table, settings: dict[str, Values]) -> list[Item]:
    """Every route, client and producer of the project, folded, before linking."""
    project = Project(table, settings)
    sources = [bound for _, bound in sorted(table.files.items()) if not bound.ctx.is_test]
    items: list[Item] = []
    for framework in FRAMEWORKS:
        files = [bound for bound in sources if bound.facts.language in framework.languages]
        if files:
            read = framework.prepare(files, project)
            for bound in files:
                items += read(bound)
    return declared.exclusive(items)
