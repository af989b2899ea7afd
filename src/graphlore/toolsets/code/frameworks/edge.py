"""The routes of an edge proxy that is only a container (`layout.edge`: a stock nginx, Envoy or Traefik image run
with configuration from the repository): what `frameworks.nginx` and `frameworks.proxies` read from its files,
from the Compose labels or Ingress resources it serves, or from inside the ConfigMap a proxy workload mounts (at
the lines of the manifest). They are held by the proxy's module (no source file of it exists; so
``DECLARES.EXPOSES`` of its service lists them, as any service's), each with the configuration's ``file`` and
``line`` and ``source_layer: config``. `services.links` links them to the routes of the services their upstreams
name, as any gateway's.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..languages.folding import literal
from ..layout.walk import NGINX_FILE
from ..model import module_id
from ..services.endpoints import Forward, Item, normalise_path
from ..services.settings import Values
from . import nginx, proxies
from .nginx import ConfigRoute, merge_variants


def edge_items(settings: dict[str, Values]) -> list[Item]:
    """Every route of the project's container-only edge proxies (see the module docstring)."""
    out: list[Item] = []
    for module, values in sorted(settings.items()):
        service = values.edge_service
        if service is None:
            continue
        found = [("route", f) for f in (*nginx.read_routes(values), *proxies.read_routes(values), *_embedded(values))]
        found += [("served", f) for f in nginx.read_served(values)]
        for kind, (path, (line, method, pattern, forward, problem, flavor, written)) in found:
            out.append(Item(kind=kind, owner=module_id(module), owner_fqn=module, microservice=service,
                            module=module, file=path, line=line, flavor=flavor, http_method=method,
                            path=literal(normalise_path(pattern)), written=written, forward=forward,
                            source_layer="config", problems=[problem] if problem else [],
                            server_block=nginx.block_at(values.nginx, path, line) if flavor == "nginx" else None))
    return merge_variants(out)


def _embedded(values: Values) -> Iterator[tuple[str, ConfigRoute]]:
    """The routes of the configuration a ConfigMap holds for a proxy workload, at their lines in the manifest."""
    for path, key, text, first in values.embedded:
        if NGINX_FILE.match(key):
            for line, method, pattern, forward, problem in nginx.locations(key, text):
                yield path, (first + line - 1, method, pattern, forward, problem, "nginx", f"location {pattern}")
        else:
            for line, method, pattern, forward, problem, flavor in proxies.routes(key, text):
                yield path, (first + line - 1, method, pattern, forward or Forward(None, 0, None, pattern), problem,
                             flavor, f"{flavor} route {pattern}")
