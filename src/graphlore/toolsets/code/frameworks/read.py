"""Part 2 over the whole project: every framework reads the routes, clients and producers of the files of
its languages, with their values folded with the project's constants and each module's settings; linking
them is `services.links`.

It runs after every update of the graph (no file is parsed again) and keeps what it read (`PartTwo`): a
framework whose input files (`Framework.reads`) and settings are the very objects of the last update gives the
same items again, so its records always equal a full build's; the others read again, with what each worked
out from one file alone kept (`base.FileMemo`). Test code is not read. In-source declarations (`declared`) have priority
over what the frameworks read on the same symbol. The frameworks, in the order they read:
"""

from __future__ import annotations

from ..languages.symbols import Bound, Table
from ..services.endpoints import Item
from ..services.settings import Values
from . import (
    amqp,
    apache_http,
    aspnet,
    azure_messaging,
    dapr,
    dapr_sdks,
    declared,
    eventbus,
    eventuate,
    gateway,
    generated_clients,
    go_openapi,
    go_web,
    jaxrs,
    k6,
    kafka,
    koa,
    ktor,
    locust,
    micronaut,
    mp_messaging,
    nextjs,
    nginx,
    openapi_clients,
    openapi_servers,
    php_web,
    proxies,
    python_web,
    redis_pubsub,
    refit,
    router_functions,
    ruby_messaging,
    ruby_web,
    rust_web,
    script_web,
    servlet,
    spring,
    watermill,
)
from .base import FileMemo, Framework, Project
from .call_sites import through_call_sites
from .edge import edge_items
from .grpc import cpp as grpc_cpp
from .grpc import csharp as grpc_csharp
from .grpc import go as grpc_go
from .grpc import gokit as grpc_gokit
from .grpc import jvm as grpc_jvm
from .grpc import python as grpc_python
from .grpc import ruby as grpc_ruby
from .grpc import rust as grpc_rust
from .grpc import script as grpc_script

FRAMEWORKS: tuple[Framework, ...] = (
    spring.FRAMEWORK,
    router_functions.FRAMEWORK,
    gateway.FRAMEWORK,
    nginx.FRAMEWORK,
    proxies.FRAMEWORK,
    jaxrs.FRAMEWORK,
    servlet.FRAMEWORK,
    micronaut.FRAMEWORK,
    mp_messaging.FRAMEWORK,
    eventuate.FRAMEWORK,
    apache_http.FRAMEWORK,
    python_web.FRAMEWORK,
    locust.FRAMEWORK,
    script_web.FRAMEWORK,
    koa.FRAMEWORK,
    openapi_clients.FRAMEWORK,
    generated_clients.FRAMEWORK,
    openapi_servers.FRAMEWORK,
    nextjs.FRAMEWORK,
    k6.FRAMEWORK,
    go_web.FRAMEWORK,
    go_openapi.FRAMEWORK,
    amqp.FRAMEWORK,
    kafka.FRAMEWORK,
    azure_messaging.FRAMEWORK,
    redis_pubsub.FRAMEWORK,
    aspnet.FRAMEWORK,
    refit.FRAMEWORK,
    dapr.FRAMEWORK,
    dapr_sdks.FRAMEWORK,
    eventbus.FRAMEWORK,
    ktor.FRAMEWORK,
    php_web.FRAMEWORK,
    ruby_web.FRAMEWORK,
    ruby_messaging.FRAMEWORK,
    rust_web.FRAMEWORK,
    grpc_go.FRAMEWORK,
    grpc_gokit.FRAMEWORK,
    watermill.FRAMEWORK,
    grpc_csharp.FRAMEWORK,
    grpc_jvm.FRAMEWORK,
    grpc_python.FRAMEWORK,
    grpc_ruby.FRAMEWORK,
    grpc_rust.FRAMEWORK,
    grpc_cpp.FRAMEWORK,
    grpc_script.FRAMEWORK,
    declared.FRAMEWORK,
)


def read_items(table: Table, settings: dict[str, Values]) -> list[Item]:
    """Every route, client and producer of the project, folded, before linking (read from scratch)."""
    return PartTwo().items(table, settings)


class PartTwo:
    """Part 2's reading kept across updates: each framework's items with the input files and settings they were
    read from, and the per-file memo (see the module docstring). ``read`` counts the frameworks that read again
    in the last call."""

    def __init__(self) -> None:
        self.memo = FileMemo()
        self._kept: dict[str, tuple[object, tuple[Bound, ...], list[Item], frozenset[str]]] = {}
        self.read: list[str] = []

    def items(self, table: Table, settings: dict[str, Values]) -> list[Item]:
        self.memo.keep_only(table)
        project = Project(table, settings, self.memo)
        every = [bound for _, bound in sorted(table.files.items())]
        sources = [bound for bound in every if not bound.ctx.is_test]
        services = frozenset(bound.ctx.microservice for bound in every)
        self.read = []
        items: list[Item] = []
        for framework in FRAMEWORKS:
            reads = framework.inputs()
            inputs = tuple(every if reads is None else (b for b in every if b.facts.language in reads))
            kept = self._kept.get(framework.name)
            if kept is not None and kept[0] is settings and _same(kept[1], inputs) and (
                    not framework.reads_services or kept[3] == services):
                items += kept[2]
                continue
            found: list[Item] = []
            files = [bound for bound in sources if bound.facts.language in framework.languages]
            if files:
                read = framework.prepare(files, project)
                for bound in files:
                    found += read(bound)
                if "java" in framework.languages:
                    found = through_call_sites(read, files, project, found)
                self.read.append(framework.name)
            self._kept[framework.name] = (settings, inputs, found, services)
            items += found
        items += edge_items(settings)   # container-only edge proxies: no source file holds their routes
        return dapr.sidecar_publishes(declared.exclusive(items))


def _same(old: tuple[Bound, ...], new: tuple[Bound, ...]) -> bool:
    return len(old) == len(new) and all(a is b for a, b in zip(old, new, strict=True))
