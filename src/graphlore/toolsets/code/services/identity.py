"""Every name a service goes by, and which service a name, a host, a port or an environment variable names.

**Names** (`ServiceNames`), from the strongest: its application name (``spring.application.name``,
``micronaut.application.name``, ``quarkus.application.name``: its id in service discovery); the names its build and its
deployment declare (Maven ``artifactId``, Gradle ``rootProject.name``, ``package.json``, ``pyproject``,
``go.mod``, ``.csproj``; a Docker Compose service, ``container_name`` or ``hostname``; a Kubernetes
Deployment or Service; a container image; a Dapr app-id, see `services.deployment`); then its folder. A name is looked up
case-insensitively, tier by tier: the first tier that knows it decides, and a name two services share in
that tier names neither (the caller says so).

**Hosts.** A URL's host names a service by its names; a Kubernetes DNS name (``orders.shop.svc.cluster.local``)
by its Service's (`discovery`), unless every manifest of that Service writes another ``metadata.namespace``. A loopback host (``localhost``, ``127.0.0.1``,
``host.docker.internal``) names the one service the host machine publishes at that port (a Compose ``ports``
entry's host side, a Kubernetes ``nodePort`` or ``hostPort``; a container's own port is not reachable there),
else, when the address came from an environment
variable, the service the variable's name names by the usual convention (``ORDERS_URL``, ``ORDERS_HOST``,
``ORDERS_SERVICE_ADDR``, ``VITE_BACKEND_PORT``: the name without its framework prefix and address suffix);
nothing else. A host no service and no deployment unit goes by, that one service's nginx configuration answers to
(``server_name api.shop.local;``, a host the machine's DNS or ``/etc/hosts`` points at the proxy), names that proxy:
its locations route the request on. A name of what is no service of the running system (an aggregator's folder without sources,
the files outside every module, a tool no deployment runs: `layout.Microservice.runs`) names no service to
link to: a link there would be a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..layout.layout import APPLICATION_NAME_KEYS, Layout
from .deployment import Deployment
from .discovery import kubernetes_service
from .virtual_hosts import server_names

LOOPBACK = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]", "host.docker.internal"})
#: prefixes front-end tool chains require on the variables they expose to the browser
ENV_PREFIXES = ("VITE_", "REACT_APP_", "NEXT_PUBLIC_", "NUXT_PUBLIC_", "VUE_APP_", "GATSBY_", "EXPO_PUBLIC_",
                "PUBLIC_")
#: suffixes that say a variable holds a service's address
ENV_SUFFIXES = ("_SERVICE_HOST", "_SERVICE_PORT", "_BASE_URL", "_API_URL", "_ADDRESS", "_ADDR", "_HOSTNAME",
                "_HOST", "_PORT", "_URL", "_URI", "_ENDPOINT")
TIERS = ("spring.application.name", "declared", "folder")
#: the deployment's names the network resolves as a host (`_settle`)
NETWORK_NAMES = frozenset({"docker-compose service", "docker-compose container_name", "docker-compose hostname",
                           "Kubernetes Service"})


def _key(name: str) -> str:
    return name.strip().lower()


def _compact(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


@dataclass
class ServiceNames:
    """Names that identify each microservice, by tier (see the module docstring)."""

    layout: Layout
    deployment: Deployment = field(default_factory=Deployment)
    #: tier -> name (lower case) -> service -> where the name comes from
    tiers: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    #: name (lower case) -> the name as written
    written: dict[str, str] = field(default_factory=dict)
    #: port -> services published at it
    ports: dict[int, set[str]] = field(default_factory=dict)
    #: host (lower case) -> the services whose nginx configuration answers to it (``server_name``) -> the file
    virtual_hosts: dict[str, dict[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.tiers = {tier: {} for tier in TIERS}
        for name, service in self.layout.services.items():
            for source, declared in service.declared_names.items():
                tier = "spring.application.name" if source in APPLICATION_NAME_KEYS else "declared"
                self._add(tier, declared, name, source)
            self._add("declared", name, name, service.name_source)
            folder = service.root.rsplit("/", 1)[-1] if service.root != "." else self.layout.root.name
            self._add("folder", folder, name, "folder")
        for service, names in self.deployment.names.items():
            for alias, source in names.items():
                self._add("declared", alias, service, source)
        for service, ports in self.deployment.published.items():
            for port in ports:
                self.ports.setdefault(port, set()).add(service)
        for module in self.layout.modules.values():
            for source in module.nginx_files:
                try:
                    text = (self.layout.root / source).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                for host in server_names(text):
                    self.virtual_hosts.setdefault(_key(host), {}).setdefault(module.microservice, source)

    def _add(self, tier: str, name: str, service: str, source: str) -> None:
        if name:
            self.tiers[tier].setdefault(_key(name), {}).setdefault(service, source)
            self.written.setdefault(_key(name), name.strip())

    def aliases(self, service: str) -> dict[str, str]:
        """Every name ``service`` goes by -> where it comes from (the strongest source first)."""
        out: dict[str, str] = {}
        for tier in TIERS:
            for name, holders in sorted(self.tiers[tier].items()):
                if service in holders:
                    out.setdefault(self.written[name], holders[service])
        return out

    def _runs(self, service: str, how: str) -> tuple[str | None, str]:
        """``service`` when it is a part of the running system (`layout.Microservice.runs`), else why a link to
        it would be a guess."""
        found = self.layout.services.get(service)
        if found is None or found.runs:
            return service, how
        return None, (f"the name matches {service} ({how}), which is no service of the running system (no sources "
                      "of its own, or a tool no deployment runs)")

    def find(self, name: str, dns: bool = False) -> tuple[str | None, str]:
        """(the deployable service, how it matched) or (None, why not). ``dns``: the name is a URL's host, which the
        network resolves (a Compose service, a Kubernetes Service), not service discovery (``lb://``): a name one
        service declares while the deployment's host of that name is another's names neither."""
        for tier in TIERS:
            found = self.tiers[tier].get(_key(name))
            if found:
                if len(found) > 1:
                    shared = f"'{name}' names {len(found)} microservices ({', '.join(sorted(found))})"
                    return self._settle(name, set(found), shared) if dns else (None, shared)
                service, source = next(iter(found.items()))
                network = self._network(name) if dns else set()
                if network and service not in network:   # the tiers disagree: the host the network resolves is another's
                    return None, (f"'{name}' is {service}'s {source}, but the deployment's host of that name is "
                                  f"{', '.join(sorted(network))}'s")
                return self._runs(service, f"{source} ({tier})" if source != tier else tier)
        unit = next((file for unit, file in self.deployment.unowned.items() if _key(unit) == _key(name)), None)
        if unit is not None:
            return None, (f"'{name}' is a deployment unit of this project ({unit}) built from a folder without source "
                          "code the index reads (no routes to match)")
        proxies = self.virtual_hosts.get(_key(name), {}) if dns else {}
        if len(proxies) == 1 and not self._deployed_name(name):
            service, source = next(iter(proxies.items()))
            return self._runs(service, f"the server_name of its nginx configuration ({source})")
        return None, f"'{name}' is not a microservice of this project (an outside service?)"

    def _deployed_name(self, name: str) -> bool:
        """Whether any deployment unit goes by ``name`` (the network then resolves it to that unit, whatever an
        nginx ``server_name`` says)."""
        return _key(name) in self.deployment.unit_names or \
            any(_key(alias) == _key(name) for names in self.deployment.names.values() for alias in names)

    def _network(self, name: str) -> set[str]:
        """The services whose Compose service, container name, hostname or Kubernetes Service is ``name``."""
        return {service for service, names in self.deployment.names.items()
                if any(_key(alias) == _key(name) and source in NETWORK_NAMES for alias, source in names.items())}

    def _settle(self, name: str, found: set[str], shared: str) -> tuple[str | None, str]:
        """A host that several services claim in one tier (an application name copied into another service) is the
        one whose Compose service or Kubernetes Service has that name, when exactly one has and it is one of them:
        that is the host the network resolves. Else it names none, saying why (never a guess)."""
        network = self._network(name)
        if len(network) == 1 and network <= found:
            service = next(iter(network))
            sources = sorted({source for alias, source in self.deployment.names[service].items()
                              if _key(alias) == _key(name) and source in NETWORK_NAMES})
            return self._runs(service, f"{shared}; the {' and '.join(sources)} of that name is {service}'s")
        if not network:
            return None, f"{shared}, and no Compose service or Kubernetes Service of that name settles which"
        return None, f"{shared}, and the deployment's hosts of that name are {', '.join(sorted(network))}'s"

    def at_port(self, port: int) -> tuple[str | None, str]:
        found = self.ports.get(port, set())
        if len(found) == 1:
            return self._runs(next(iter(found)), f"the only service published at port {port}")
        if found:
            return None, f"port {port} is published by {len(found)} services ({', '.join(sorted(found))})"
        return None, f"no service of the project is published at port {port}"

    def by_variable(self, variable: str) -> tuple[str | None, str]:
        """The service an environment variable's name names (``VITE_BACKEND_PORT`` -> backend)."""
        stem = variable.upper()
        for prefix in ENV_PREFIXES:
            stem = stem.removeprefix(prefix)
        for suffix in ENV_SUFFIXES:
            if stem.endswith(suffix) and len(stem) > len(suffix):
                stem = stem[: -len(suffix)]
                break
        else:
            return None, f"the name {variable} says no address"
        wanted = _compact(stem)
        found: set[str] = set()
        for tier in TIERS:
            for name, holders in self.tiers[tier].items():
                if _compact(name) == wanted:
                    found.update(holders)
            if found:
                break
        if len(found) == 1:
            return self._runs(next(iter(found)), f"the name of the environment variable {variable}")
        if found:
            return None, f"{variable} could name {', '.join(sorted(found))}"
        return None, f"{variable} names no service of the project"

    def host(self, host: str, port: int | None, variables: list[str], dns: bool = False) -> tuple[str | None, str]:
        """The service a URL's host (and port, and the variables its address was read from) names (``dns``: see
        `find`)."""
        if _key(host) not in LOOPBACK:
            service, how = self.find(host, dns)
            k8s = kubernetes_service(host) if service is None else None
            if k8s is None:
                return service, how
            short, namespace = k8s
            spaces = self.deployment.k8s_namespaces.get(short.lower(), set())
            if spaces and None not in spaces and namespace.lower() not in {s.lower() for s in spaces if s}:
                return None, (f"{how}; '{host}' is the Service {short} of the namespace {namespace}: the project's "
                              f"Service {short} is in {', '.join(sorted(s for s in spaces if s))}")
            service, found = self.find(short, dns)   # orders.shop.svc.cluster.local: the Kubernetes Service orders
            return (service, f"the Kubernetes DNS name of {short}: {found}") if service else (None, f"{how}; {found}")
        why = [f"'{host}' is this machine"]
        if port is not None:
            service, how = self.at_port(port)
            if service is not None:
                return service, how
            why.append(how)
        for variable in variables:
            service, how = self.by_variable(variable)
            if service is not None:
                return service, how
            why.append(how)
        return None, "; ".join(why)
