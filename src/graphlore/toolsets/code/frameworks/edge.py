"""The routes of an edge proxy that is only a container (`layout.edge`: a stock nginx, Envoy or Traefik image run
with configuration files from the repository): what `frameworks.nginx` and `frameworks.proxies` read from its
configuration, held by the proxy's service itself (no source file of it exists), each with the configuration's
``file`` and ``line`` and ``source_layer: config``. `services.links` links them to the routes of the services
their upstreams name, as any gateway's.
"""

from __future__ import annotations

from ..languages.folding import literal
from ..model import module_id
from ..services.endpoints import Item, normalise_path
from ..services.settings import Values
from . import nginx, proxies


def edge_items(settings: dict[str, Values]) -> list[Item]:
    """Every route of the project's container-only edge proxies (see the module docstring)."""
    out: list[Item] = []
    for module, values in sorted(settings.items()):
        service = values.edge_service
        if service is None:
            continue
        for read in (nginx.read_routes, proxies.read_routes):
            for path, (line, method, pattern, forward, problem, flavor, written) in read(values):
                out.append(Item(kind="route", owner=module_id(module), owner_fqn=module, microservice=service,
                                module=module, file=path, line=line, flavor=flavor, http_method=method,
                                path=literal(normalise_path(pattern)), written=written, forward=forward,
                                source_layer="config", problems=[problem] if problem else []))
    return out
