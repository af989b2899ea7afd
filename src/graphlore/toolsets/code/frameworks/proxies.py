"""Reverse proxies declared in configuration, as nginx's are (`frameworks.nginx`): each route the configuration
declares is a route of the module whose folder holds the file, forwarding (`services.endpoints.Forward`) to the
service its target names; `services.links` links it to the target's routes a request it matches can reach.

- **YARP** (.NET, ``appsettings*.json``): ``ReverseProxy.Routes.<id>`` with ``Match.Path`` (``{**rest}`` /
  ``{*rest}`` is every path under it; a route matched by ``Hosts`` alone is every path) and ``Match.Methods``, its ``ClusterId``'s
  ``Destinations.*.Address`` the target (a path on the address prefixes what the target sees); one path
  transform among ``PathRemovePrefix``, ``PathPrefix`` and a ``PathPattern`` ending in the catch-all. A folder's
  ``appsettings.json`` and ``appsettings.{Environment}.json`` are one configuration, as .NET reads them: a route
  id is one route, the environment's values laid over the base's (the environment the deployment names, else
  each environment file's, a choice where they disagree), every file declaring it named after its pattern.
- **Ocelot** (``ocelot*.json``): ``Routes[]`` (older ``ReRoutes[]``), ``UpstreamPathTemplate`` ->
  ``DownstreamPathTemplate`` on ``DownstreamScheme://DownstreamHostAndPorts[0]`` (or a discovery
  ``ServiceName``), for each ``UpstreamHttpMethod`` (none: any). A placeholder that ends both templates is
  Ocelot's catch-all (every path under the prefix); any other template is matched as a whole.
- **Traefik**'s file provider (``traefik*`` / ``dynamic*`` YAML or TOML): ``http.routers`` whose ``rule``
  matches ``PathPrefix`` (every path under it), ``Path`` or ``Host`` only (every path; a rule that requires
  ``Headers(`content-type`, `application/grpc`)`` routes gRPC calls, no HTTP route, and is not read), its ``service``'s
  ``loadBalancer.servers[].url`` the target; a ``stripPrefix`` then an ``addPrefix`` middleware declared in the
  file change the path (in that order; a change after an ``addPrefix`` or a second ``stripPrefix`` is not
  read), any other middleware does not; a rule with ``||``, ``!`` or a regular expression, a
  middleware of another provider or one that replaces the path is not read.
- **Traefik**'s Docker provider: the ``traefik.http.routers.<r>.rule`` (``.middlewares``, ``.service``) labels of
  the services of the Compose file that runs a Traefik container (`layout.edge`), each forwarding to the service
  that carries them at its ``traefik.http.services.<s>.loadbalancer.server.port``; ``stripprefix`` and
  ``addprefix`` middlewares declared in any service's labels, as in a file.
- **Kubernetes** ``Ingress`` resources (`ingress_routes`): the ingress controller's routes (`layout.edge`), each
  path forwarding to its backend Service.
- **Envoy** static configuration (``envoy*.yaml``, or any file an Envoy container is run with that holds
  ``static_resources``: `layout.edge`): every ``route_config.virtual_hosts[].routes[]`` with a
  ``match.prefix`` (every path under it) or ``match.path`` (that path) and a ``route.cluster``, whose
  ``socket_address.address`` / ``port_value`` (``load_assignment`` or the older ``hosts``) is the target;
  ``prefix_rewrite`` replaces the matched prefix. A ``safe_regex`` match is not read. Envoy expands no variable
  in its static configuration, so a ``${NAME}`` address or port is a template's (``envsubst`` fills it before
  Envoy starts, as in ``envoy.tmpl.yaml``): an environment variable, settled with the proxy's deployment env.

A target with several hosts (a cluster of two services) is a choice: `services.links` leaves it unresolved,
as it does an address that is no project service. What is not read (another path transform, a regular
expression) is said on the route (``problems``), never guessed. As for nginx, the route belongs to the module's
first source file, with the configuration's ``file`` and ``line``; a proxy that is only a container (no source
file) holds them itself (`frameworks.edge`).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import yaml

from ..languages import registry
from ..languages.folding import Folded, choice, env, literal
from ..languages.symbols import Bound
from ..services.dotnet_config import loads_settings_json
from ..services.endpoints import ANY, HTTP_METHODS, Forward, normalise_path
from ..services.settings import Values
from .base import Framework, Project, Reader
from .caddy import caddy_routes
from .haproxy import haproxy_routes
from .nginx import ConfigRoute, config_routes

#: (line, method, route pattern, what it forwards to (its target None when not known), problem or None, flavor)
Route = tuple[int, str, str, Forward | None, str | None, str]

_CATCH_ALL = re.compile(r"/?\{\*\*?[^{}]*\}$")
_PLACEHOLDER = re.compile(r"/?\{([^{}]+)\}$")


def _line(text: str, needle: str, start: int = 0) -> int:
    at = text.find(needle, start)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _prefix(path: str) -> str:
    return normalise_path(path or "/")


def _under(prefix: str) -> str:
    """The pattern of every path under ``prefix``."""
    return normalise_path(prefix).rstrip("/") + "/**"


def _forward(pattern: str, target: Folded, outer: str, inner: str) -> Forward:
    """A forward whose target sees ``inner`` where the proxy matched ``outer`` (None when they are one)."""
    outer, inner = _prefix(outer), _prefix(inner)
    return Forward(target, 0, (outer, inner) if outer != inner else None, normalise_path(pattern))


def _methods(values: Any) -> list[str]:
    if not isinstance(values, list) or not values:
        return [ANY]
    methods = sorted({str(m).upper() for m in values})
    return [m if m in HTTP_METHODS else ANY for m in methods]


# ---- YARP -----------------------------------------------------------------------------------------------

def _yarp_transform(transforms: Any, match_prefix: str, catch_all: bool) -> tuple[str, str] | str:
    """(outer prefix, inner prefix) the route's path transforms make, or why they are not read."""
    path_ones = [t for t in transforms if isinstance(t, dict) and any(k.startswith("Path") for k in t)] \
        if isinstance(transforms, list) else []
    if not path_ones:
        return "/", "/"
    if len(path_ones) > 1:
        return "several path transforms are not read"
    transform = path_ones[0]
    if "PathRemovePrefix" in transform:
        return str(transform["PathRemovePrefix"]), "/"
    if "PathPrefix" in transform:
        return "/", str(transform["PathPrefix"])
    pattern = str(transform.get("PathPattern", ""))
    if pattern and catch_all and _CATCH_ALL.search(pattern):
        return match_prefix, _CATCH_ALL.sub("", pattern)
    return f"the path transform {json.dumps(transform)} is not read"


def yarp_routes(path: str, text: str) -> Iterator[Route]:
    try:
        data = loads_settings_json(text)
    except ValueError:
        return
    for _, route in _yarp(data, lambda route_id: _line(text, f'"{route_id}"')):
        yield route


def _proxy(data: Any) -> dict | None:
    proxy = data.get("ReverseProxy") if isinstance(data, dict) else None
    return proxy if isinstance(proxy, dict) and isinstance(proxy.get("Routes"), dict) else None


def _yarp(data: Any, line_of) -> Iterator[tuple[str, Route]]:
    """(route id, route) of each route a parsed ``appsettings`` declares (``line_of``: a route id's line)."""
    proxy = _proxy(data)
    if proxy is None:
        return
    clusters = proxy.get("Clusters") if isinstance(proxy.get("Clusters"), dict) else {}
    for route_id, route in proxy["Routes"].items():
        match = route.get("Match") if isinstance(route, dict) else None
        if not isinstance(match, dict):
            continue
        line = line_of(route_id)
        written = match.get("Path")
        if not isinstance(written, str):  # YARP matches every path of its Hosts (or of every host)
            written = "/{**rest}"
        catch_all = bool(_CATCH_ALL.search(written))
        prefix = _CATCH_ALL.sub("", written) if catch_all else written
        pattern = _under(prefix) if catch_all else written
        cluster = clusters.get(route.get("ClusterId"), {})
        destinations = cluster.get("Destinations") if isinstance(cluster, dict) else None
        addresses = [d["Address"] for d in destinations.values()
                     if isinstance(d, dict) and isinstance(d.get("Address"), str)] \
            if isinstance(destinations, dict) else []
        transform = _yarp_transform(route.get("Transforms"), prefix, catch_all)
        for method in _methods(match.get("Methods")):
            if not addresses:
                problem = f"cluster {route.get('ClusterId')} has no destination address"
                yield route_id, (line, method, pattern, None, problem, "yarp")
                continue
            if isinstance(transform, str):
                yield route_id, (line, method, pattern, None, transform, "yarp")
                continue
            hosts, bases = [], set()
            for address in addresses:
                url = re.match(r"^(\w+://[^/]+)(/.*)?$", address)
                hosts.append(literal(url.group(1) if url else address))
                bases.add(_prefix(url.group(2) or "/") if url else "/")
            if len(bases) > 1:
                yield route_id, (line, method, pattern, None, "its destinations add different paths", "yarp")
                continue
            base = bases.pop()
            outer, inner = transform
            inner = normalise_path(base.rstrip("/") + "/" + inner.lstrip("/"))
            yield route_id, (line, method, pattern, _forward(pattern, choice(hosts), outer, inner), None, "yarp")


_SETTINGS = re.compile(r"^appsettings(?:\.([\w-]+))?\.json$", re.I)
#: the variables that name a .NET app's environment (``appsettings.{Environment}.json``)
ENVIRONMENT_VARIABLES = ("ASPNETCORE_ENVIRONMENT", "DOTNET_ENVIRONMENT")


def _overlay(base: Any, over: Any) -> Any:
    """``over`` laid on ``base`` as .NET configuration does: objects key by key, arrays index by index, any
    other value replaced."""
    if isinstance(base, dict) and isinstance(over, dict):
        return {**base, **{k: _overlay(base[k], v) if k in base else v for k, v in over.items()}}
    if isinstance(base, list) and isinstance(over, list):
        return [_overlay(base[i], over[i]) if i < len(over) else base[i] for i in range(len(base))] + over[len(base):]
    return over


def yarp_overlaid(files: list[tuple[str, str]], environment: str | None) -> Iterator[tuple[str, Route]]:
    """(file, route) of the routes one folder's ``appsettings.json`` and ``appsettings.{Environment}.json`` declare,
    one per route id: the base's values overlaid by the environment's file (the deployment's environment when it
    names one, else each environment file: values they disagree on are a choice), the route's sources every file
    that declares it (written, with its id and cluster: ``yarp route <id> to cluster <cluster>: <pattern> (files)``)."""
    loaded: dict[str | None, tuple[str, str, Any]] = {}
    for path, text in files:
        name = _SETTINGS.match(path.rsplit("/", 1)[-1])
        try:
            data = loads_settings_json(text)
        except ValueError:
            continue
        if name is not None:
            loaded[name.group(1)] = (path, text, data)
    base = loaded.pop(None, None)
    overlays = {env: found for env, found in loaded.items()
                if isinstance(found[2], dict) and isinstance(found[2].get("ReverseProxy"), dict)}
    if environment is not None:
        overlays = {env: found for env, found in overlays.items() if env.lower() == environment.lower()}
    views = [_overlay(base[2] if base else {}, data) for _, _, data in overlays.values()] or \
        ([base[2]] if base else [])
    declared = ([base] if base else []) + list(overlays.values())
    found: dict[tuple[str, str, str], list[Route]] = {}
    clusters: dict[str, set[str]] = {}
    for view in views:
        for route_id, route in _yarp(view, lambda _: 1):
            found.setdefault((route_id, route[1], route[2]), []).append(route)
            cluster = ((_proxy(view) or {}).get("Routes", {}).get(route_id) or {}).get("ClusterId")
            clusters.setdefault(route_id, set()).add(str(cluster))
    for (route_id, method, pattern), routes in found.items():
        sources = [(path, _line(text, f'"{route_id}"')) for path, text, data in declared
                   if route_id in (_proxy(data) or {}).get("Routes", {})]
        path, line = sources[0] if sources else (declared[0][0], 1)
        forwards: list[Forward] = []
        for route in routes:
            if route[3] is not None and route[3] not in forwards:
                forwards.append(route[3])
        problem = "; ".join(dict.fromkeys(r[4] for r in routes if r[4])) or None
        forward = forwards[0] if len(forwards) == 1 and not problem else None
        if len(forwards) > 1 and not problem:
            if len({(f.rewrite, f.pattern) for f in forwards}) == 1:   # one path, a target per environment
                forward = Forward(choice([f.target for f in forwards if f.target is not None]), 0,
                                  forwards[0].rewrite, forwards[0].pattern)
            else:
                problem = "its environments' files forward it differently"
        shown = f"yarp route {route_id} to cluster {'|'.join(sorted(clusters[route_id]))}: {pattern}" + (
            " (" + ", ".join(f"{p}:{n}" for p, n in sources) + ")" if len(sources) > 1 else "")
        yield path, (line, method, pattern, forward, problem, "yarp", shown)


# ---- Ocelot ---------------------------------------------------------------------------------------------

def ocelot_routes(path: str, text: str) -> Iterator[Route]:
    try:
        data = loads_settings_json(text)
    except ValueError:
        return
    routes = (data.get("Routes") or data.get("ReRoutes")) if isinstance(data, dict) else None
    if not isinstance(routes, list):
        return
    seen = 0
    for route in routes:
        if not isinstance(route, dict) or not isinstance(route.get("UpstreamPathTemplate"), str):
            continue
        upstream, downstream = route["UpstreamPathTemplate"], str(route.get("DownstreamPathTemplate", "/"))
        at = text.find(json.dumps(upstream), seen)
        seen = max(at, seen)
        line = _line(text, json.dumps(upstream), max(at, 0))
        up_end, down_end = _PLACEHOLDER.search(upstream), _PLACEHOLDER.search(downstream)
        if up_end and down_end and up_end.group(1) == down_end.group(1):
            outer, inner = upstream[:up_end.start()], downstream[:down_end.start()]
            pattern = _under(outer)
        else:
            outer, inner, pattern = upstream, downstream, normalise_path(upstream)
        hosts = route.get("DownstreamHostAndPorts")
        scheme = str(route.get("DownstreamScheme") or "http")
        if isinstance(hosts, list) and hosts:
            target = choice([literal(f"{scheme}://{h.get('Host')}" + (f":{h['Port']}" if h.get("Port") else ""))
                             for h in hosts if isinstance(h, dict) and h.get("Host")])
        elif isinstance(route.get("ServiceName"), str):
            target = literal(route["ServiceName"])
        else:
            target = None
        for method in _methods(route.get("UpstreamHttpMethod")):
            if target is None:
                yield line, method, pattern, None, "the route names no downstream host or service", "ocelot"
            else:   # Ocelot matches without case unless the route says otherwise
                sensitive = route.get("RouteIsCaseSensitive", route.get("ReRouteIsCaseSensitive")) is True
                forward = replace(_forward(pattern, target, outer, inner), caseless=not sensitive)
                yield line, method, pattern, forward, None, "ocelot"


# ---- Envoy ----------------------------------------------------------------------------------------------

def _walk(node: Any, key: str) -> Iterator[Any]:
    """Every value under ``key`` anywhere in a parsed YAML document."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key:
                yield v
            yield from _walk(v, key)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v, key)


def _cluster_hosts(cluster: dict) -> list[Folded]:
    out = []
    for address in _walk(cluster, "socket_address"):
        if isinstance(address, dict) and address.get("address"):
            port = address.get("port_value")
            out.append(literal("http://") + _substituted(str(address["address"]))
                       + (literal(":") + _substituted(str(port)) if port else literal("")))
    return out


#: ``envsubst``'s two spellings of a variable: ``${NAME}`` and ``$NAME``
_ENVSUBST = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def _substituted(text: str) -> Folded:
    """An Envoy value as written: Envoy expands no variable in its static configuration, so a ``${NAME}`` (or
    ``$NAME``) in it is a template's, filled from the environment before Envoy starts (``envsubst``): an
    environment variable, settled with the environment the deployment gives the proxy's container."""
    out, last = literal(""), 0
    for found in _ENVSUBST.finditer(text):
        out = out + literal(text[last:found.start()]) + env(found.group(1) or found.group(2))
        last = found.end()
    return out + literal(text[last:])


def envoy_routes(path: str, text: str) -> Iterator[Route]:
    try:
        documents = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
    except yaml.YAMLError:
        return
    for document in documents:
        clusters = {c.get("name"): c for found in _walk(document, "clusters") if isinstance(found, list)
                    for c in found if isinstance(c, dict)}
        seen = 0
        for config in _walk(document, "route_config"):
            for host in config.get("virtual_hosts") or [] if isinstance(config, dict) else []:
                for route in host.get("routes") or [] if isinstance(host, dict) else []:
                    match, action = route.get("match") or {}, route.get("route")
                    if not isinstance(action, dict) or not isinstance(match, dict):
                        continue
                    written = match.get("prefix", match.get("path"))
                    kind = "prefix" if "prefix" in match else "path"
                    at = text.find(str(written), seen) if written is not None else -1
                    seen = max(at, seen)
                    line = text.count("\n", 0, at) + 1 if at >= 0 else 1
                    if not isinstance(written, str):
                        continue   # a regular expression or a header match: not read
                    pattern = _under(written) if kind == "prefix" else normalise_path(written)
                    hosts = _cluster_hosts(clusters.get(action.get("cluster"), {}))
                    if not hosts:
                        yield line, ANY, pattern, None, f"cluster {action.get('cluster')} has no socket address", \
                            "envoy"
                        continue
                    rewrite = action.get("prefix_rewrite")
                    inner = str(rewrite) if isinstance(rewrite, str) else written
                    yield line, ANY, pattern, _forward(pattern, choice(hosts), written, inner), None, "envoy"


# ---- Traefik (file provider) ----------------------------------------------------------------------------

_MATCHER = re.compile(r"(\w+)\(([^()]*)\)")
_QUOTED = re.compile(r"[`\"']([^`\"']*)[`\"']")


def _traefik_paths(rule: str) -> list[tuple[str, str]] | str:
    """(kind, path) of each path a router's rule matches (``PathPrefix``: under it, ``Path``: that path; a rule of
    ``Host`` only: every path), or why the rule is not read (``||``, ``!``, a regular expression)."""
    if "||" in rule or "!" in rule:
        return f"the rule {rule} is not read"
    paths: list[tuple[str, str]] = []
    for name, args in _MATCHER.findall(rule):
        if name in ("Headers", "Header") and [v.lower() for v in _QUOTED.findall(args)][:2] == [
                "content-type", "application/grpc"]:
            return f"the rule {rule} routes gRPC calls (content-type application/grpc), not HTTP routes"
        if name in ("Path", "PathPrefix"):
            paths += [(name, value) for value in _QUOTED.findall(args)]
        elif name not in ("Host", "Method", "Headers", "Header", "Query", "ClientIP"):
            return f"the matcher {name} is not read"
    return paths or [("PathPrefix", "/")]


def _traefik_priority(rule: str, written: object) -> int | None:
    """A router's priority: its ``priority`` when written (not 0), else its rule's length (Traefik's default, so the
    longer ``PathPrefix`` goes first); None when the rule matches more than paths (a ``Host``, a header: it takes
    some requests of its paths only, so it never surely takes another router's)."""
    if any(name not in ("Path", "PathPrefix") for name, _ in _MATCHER.findall(rule)) or "&&" in rule:
        return None
    if written is None:
        return len(rule)
    text = str(written).strip()
    return (int(text) or len(rule)) if text.isdigit() else None   # Traefik ignores 0: the rule's length then


def _traefik_rewrite(middlewares: list[str], declared: dict, prefix: str) -> tuple[str, str] | str:
    """(outer, inner) prefix the router's middlewares make (``stripPrefix``, then ``addPrefix``; any other is no
    path change), or why they are not read (a middleware of another provider, a path replaced, a second path
    change after an ``addPrefix`` or another ``stripPrefix``: they apply in order)."""
    outer, inner = "/", "/"
    for name in middlewares:
        found = declared.get(name.removesuffix("@file"))
        if not isinstance(found, dict):
            return f"the middleware {name} is not declared in this file"
        if ("stripPrefix" in found and outer != "/") or ("addPrefix" in found or "stripPrefix" in found) and \
                inner != "/":
            return f"the middleware {name} changes a path another middleware changed (not read)"
        if "stripPrefix" in found:
            prefixes = [p for p in (found["stripPrefix"] or {}).get("prefixes", []) if isinstance(p, str)]
            strip = next((p for p in prefixes if prefix.startswith(p.rstrip("/"))), None)
            if strip is None:
                return f"the middleware {name} strips a prefix the rule does not match"
            outer = strip
        elif "addPrefix" in found:
            inner = str((found["addPrefix"] or {}).get("prefix", "/"))
        elif any(k in found for k in ("replacePath", "replacePathRegex", "stripPrefixRegex", "redirectRegex")):
            return f"the middleware {name} replaces the path (not read)"
    return outer, inner


def traefik_routes(path: str, text: str) -> Iterator[Route]:
    try:
        data = tomllib.loads(text) if path.endswith(".toml") else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError):   # tomllib.TOMLDecodeError is a ValueError
        return
    http = data.get("http") if isinstance(data, dict) else None
    if not isinstance(http, dict) or not isinstance(http.get("routers"), dict):
        return
    services = http.get("services") if isinstance(http.get("services"), dict) else {}
    declared = http.get("middlewares") if isinstance(http.get("middlewares"), dict) else {}
    for name, router in http["routers"].items():
        if not isinstance(router, dict) or not isinstance(router.get("rule"), str):
            continue
        line = _line(text, str(name))
        service = services.get(str(router.get("service", "")).removesuffix("@file"))
        balancer = service.get("loadBalancer") if isinstance(service, dict) else None
        servers = balancer.get("servers") if isinstance(balancer, dict) else None
        hosts = [literal(re.sub(r"^(\w+://[^/]+).*$", r"\1", s["url"])) for s in servers or []
                 if isinstance(s, dict) and isinstance(s.get("url"), str)]
        paths = _traefik_paths(router["rule"])
        if isinstance(paths, str):
            yield line, ANY, "/**", None, paths, "traefik"
            continue
        for kind, written in paths:
            pattern = _under(written) if kind == "PathPrefix" else normalise_path(written)
            middlewares = [m for m in router.get("middlewares") or [] if isinstance(m, str)]
            rewrite = _traefik_rewrite(middlewares, declared, normalise_path(written))
            if not hosts:
                yield line, ANY, pattern, None, f"service {router.get('service')} has no server url", "traefik"
            elif isinstance(rewrite, str):
                yield line, ANY, pattern, None, rewrite, "traefik"
            else:
                forward = replace(_forward(pattern, choice(hosts), *rewrite),
                                  priority=_traefik_priority(router["rule"], router.get("priority")))
                yield line, ANY, pattern, forward, None, "traefik"


# ---- Traefik (Docker provider: Compose labels) ---------------------------------------------------------

_LABEL = re.compile(r"^traefik\.http\.(routers|services|middlewares)\.([^.]+)\.(.+)$", re.I)
#: label middleware kinds (lower case, as labels are written in any case) -> the file provider's name
_MIDDLEWARE_KINDS = {"stripprefix": "stripPrefix", "addprefix": "addPrefix", "replacepath": "replacePath",
                     "replacepathregex": "replacePathRegex", "stripprefixregex": "stripPrefixRegex",
                     "redirectregex": "redirectRegex"}


def _labels(spec: dict) -> dict[str, str]:
    labels = spec.get("labels")
    if isinstance(labels, dict):
        return {str(k).strip(): str(v).strip() for k, v in labels.items() if v is not None}
    if isinstance(labels, list):
        return {str(x).partition("=")[0].strip(): str(x).partition("=")[2].strip() for x in labels}
    return {}


def exposed_by_default(*texts: str) -> bool:
    """False when the Traefik container runs with ``--providers.docker.exposedbydefault=false`` (in any of the
    Compose files: only a service labelled ``traefik.enable=true`` is routed then)."""
    return not any(re.search(r"providers\.docker\.exposedbydefault[=\s]+false", t, re.I) for t in texts)


def traefik_label_routes(path: str, text: str, exposed: bool | None = None) -> Iterator[Route]:
    """The routers a Compose file's services declare in ``traefik.http.routers.<r>.*`` labels (Traefik's Docker
    provider): each forwards to the service that carries the labels, at its
    ``traefik.http.services.<s>.loadbalancer.server.port`` (else the port it exposes: not known here);
    ``stripprefix``/``addprefix`` middlewares declared in any service's labels change the path as in a file.
    A service with ``traefik.enable=false`` is not routed, nor one without ``traefik.enable=true`` when the Traefik
    container runs with ``--providers.docker.exposedbydefault=false`` (``exposed``: whether it does not, in any of its
    Compose files; None: as this file says)."""
    try:
        docs = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
    except yaml.YAMLError:
        return
    default = "true" if (exposed_by_default(text) if exposed is None else exposed) else "false"
    for doc in docs:
        services = doc.get("services") if isinstance(doc.get("services"), dict) else {}
        declared: dict[str, dict] = {}
        for spec in services.values():
            for key, value in _labels(spec).items() if isinstance(spec, dict) else []:
                found = _LABEL.match(key)
                if found and found.group(1).lower() == "middlewares":
                    kind, _, option = found.group(3).partition(".")
                    entry = declared.setdefault(found.group(2), {}).setdefault(
                        _MIDDLEWARE_KINDS.get(kind.lower(), kind), {})
                    if option.lower() == "prefixes":
                        entry["prefixes"] = [p.strip() for p in value.split(",") if p.strip()]
                    elif option.lower() == "prefix":
                        entry["prefix"] = value
        for name, spec in services.items():
            labels = _labels(spec) if isinstance(spec, dict) else {}
            if labels.get("traefik.enable", default).lower() != "true":
                continue
            routers: dict[str, dict[str, str]] = {}
            ports: dict[str, str] = {}
            for key, value in labels.items():
                found = _LABEL.match(key)
                if found and found.group(1).lower() == "routers":
                    routers.setdefault(found.group(2), {})[found.group(3).lower()] = value
                elif found and found.group(1).lower() == "services" and \
                        found.group(3).lower() == "loadbalancer.server.port":
                    ports[found.group(2)] = value
            for router, options in routers.items():
                if "rule" not in options or "@" in options.get("service", "").removesuffix("@docker"):
                    continue   # a service of Traefik itself (``api@internal``: its dashboard) or of another provider
                line = _line(text, f"traefik.http.routers.{router}.rule")
                wanted = options.get("service", "").removesuffix("@docker")
                port = ports.get(wanted) if wanted else next(iter(ports.values())) if len(ports) == 1 else None
                host = literal(f"http://{name}" + (f":{port}" if port else ""))
                if wanted and wanted not in ports and len(ports) > 0:
                    host = None   # a service another container declares: not this one's
                paths = _traefik_paths(options["rule"])
                if isinstance(paths, str):
                    yield line, ANY, "/**", None, paths, "traefik"
                    continue
                middlewares = [m.strip().removesuffix("@docker") for m in options.get("middlewares", "").split(",")
                               if m.strip()]
                for kind, written in paths:
                    pattern = _under(written) if kind == "PathPrefix" else normalise_path(written)
                    rewrite = _traefik_rewrite(middlewares, declared, normalise_path(written))
                    if host is None:
                        yield line, ANY, pattern, None, f"its service {wanted} is another container's (not read)", \
                            "traefik"
                    elif isinstance(rewrite, str):
                        yield line, ANY, pattern, None, rewrite, "traefik"
                    else:
                        forward = replace(_forward(pattern, host, *rewrite),
                                          priority=_traefik_priority(options["rule"], options.get("priority")))
                        yield line, ANY, pattern, forward, None, "traefik"


# ---- Kubernetes Ingress ---------------------------------------------------------------------------------

_REGEX_PATH = re.compile(r"[()\[\]*+?$^|\\]")


def _ingress_backend(backend: Any) -> Folded | None:
    """``http://service:port`` of an Ingress backend (``service.name``/``port.number``, or the older
    ``serviceName``/``servicePort``; a named port is left out), or None (a resource backend)."""
    if not isinstance(backend, dict):
        return None
    service = backend.get("service")
    if isinstance(service, dict) and isinstance(service.get("name"), str):
        port = (service.get("port") or {}).get("number") if isinstance(service.get("port"), dict) else None
        name = service["name"]
    elif isinstance(backend.get("serviceName"), str):
        name, port = backend["serviceName"], backend.get("servicePort")
    else:
        return None
    return literal(f"http://{name}" + (f":{port}" if isinstance(port, int) else ""))


def ingress_routes(path: str, text: str) -> Iterator[Route]:
    """The routes of every ``Ingress`` in a manifest: each ``rules[].http.paths[]`` entry (``pathType: Prefix``
    and ``ImplementationSpecific``: every path under it; ``Exact``: that path) and the ``defaultBackend``
    (every path), forwarding to its backend Service (a path ending in ``/*``, the GCE and ALB controllers'
    wildcard, is every path under its prefix); ingress-nginx's ``rewrite-target`` annotation replaces the
    matched prefix when it is a plain path (one with a regular expression's groups is not read, nor is a
    path that is a regular expression)."""
    try:
        docs = [d for d in yaml.safe_load_all(text) if isinstance(d, dict) and d.get("kind") == "Ingress"]
    except yaml.YAMLError:
        return
    seen = 0
    for doc in docs:
        seen = start = max(seen, text.find("Ingress", seen + 1))   # this document's own text starts at its kind
        spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
        meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
        annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
        rewrite = next((str(v) for k, v in annotations.items() if str(k).endswith("/rewrite-target")), None)
        entries: list[tuple[str, str, Any]] = []
        for rule in spec.get("rules") or []:
            http = rule.get("http") if isinstance(rule, dict) else None
            for entry in (http.get("paths") or []) if isinstance(http, dict) else []:
                if isinstance(entry, dict):
                    entries.append((str(entry.get("path") or "/"), str(entry.get("pathType") or ""),
                                    entry.get("backend")))
        default = spec.get("defaultBackend") or spec.get("backend")
        if default is not None:
            entries.append(("", "Prefix", default))
        for written, kind, backend in entries:
            own = re.compile(rf"""path:\s*['"]?{re.escape(written)}['"]?\s*$""", re.M).search(text, seen) \
                if written else None
            at = own.start() if own else text.find(written, seen) if written else text.find(
                "defaultBackend" if "defaultBackend" in spec else "backend:", start)
            seen = max(seen, at + 1) if written else seen
            line = text.count("\n", 0, at) + 1 if at >= 0 else _line(text, "kind: Ingress")
            written = written or "/"
            target = _ingress_backend(backend)
            if kind != "Exact" and written.endswith("/*") and not _REGEX_PATH.search(written[:-2]):
                written = written[:-2] or "/"   # GCE's (and ALB's) wildcard: every path under the prefix
            if _REGEX_PATH.search(written):
                yield line, ANY, "/**", None, f"the path {written} is a regular expression (not read)", "ingress"
                continue
            pattern = normalise_path(written) if kind == "Exact" else _under(written)
            if target is None:
                yield line, ANY, pattern, None, "its backend is no Service", "ingress"
            elif rewrite is not None and "$" in rewrite:
                yield line, ANY, pattern, None, f"the rewrite-target {rewrite} is not read", "ingress"
            else:
                inner = rewrite if rewrite is not None else written
                yield line, ANY, pattern, _forward(pattern, target, written, inner), None, "ingress"


# ---- the framework --------------------------------------------------------------------------------------

def routes(path: str, text: str) -> Iterator[Route]:
    """The proxy routes one configuration file declares (by its name: `layout.walk.PROXY_FILE`)."""
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".cfg"):   # HAProxy's, by any name its container runs it with
        yield from haproxy_routes(path, text)
    elif name.startswith("Caddyfile") or name.endswith((".caddyfile", ".caddy")):
        yield from caddy_routes(path, text)
    elif name.startswith("appsettings"):
        yield from yarp_routes(path, text)
    elif name.startswith("ocelot"):
        yield from ocelot_routes(path, text)
    elif name.startswith("envoy") or "static_resources" in text:   # Envoy's, by any name (``front-envoy.yaml``)
        yield from envoy_routes(path, text)
    else:
        yield from traefik_routes(path, text)


def _environment(values: Values) -> str | None:
    """The environment the deployment runs a .NET service in (one value), else None."""
    named = {v for key in ENVIRONMENT_VARIABLES for v in values.env.get(key, [])}
    return named.pop() if len(named) == 1 else None


def _settings_file(path: str) -> bool:
    return bool(_SETTINGS.match(path.rsplit("/", 1)[-1]))


def read_routes(values: Values) -> Iterator[tuple[str, ConfigRoute]]:
    settings: dict[str, list[tuple[str, str]]] = {}
    for path, text in values.proxies:
        if _settings_file(path):
            settings.setdefault(path.rpartition("/")[0], []).append((path, text))
    for files in settings.values():   # YARP: a folder's appsettings files are one configuration
        for path, (line, method, pattern, forward, problem, flavor, shown) in yarp_overlaid(
                files, _environment(values)):
            yield path, (line, method, pattern, forward or Forward(None, 0, None, normalise_path(pattern)), problem,
                         flavor, shown)
    found = [(path, routes(path, text)) for path, text in values.proxies if not _settings_file(path)] + [
        (path, traefik_label_routes(path, text, exposed_by_default(*(t for _, t in values.traefik_labels))))
        for path, text in values.traefik_labels] + [(path, ingress_routes(path, text)) for path, text in values.ingresses]
    for path, declared in found:
        for line, method, pattern, forward, problem, flavor in declared:
            # a route whose target is not read still forwards: to a target not known (`services.links` says so)
            yield path, (line, method, pattern, forward or Forward(None, 0, None, normalise_path(pattern)), problem,
                         flavor, f"{flavor} route {pattern}")


def prepare(files: list[Bound], project: Project) -> Reader:
    return config_routes(files, project, read_routes)


FRAMEWORK = Framework("proxies", registry.NAMES, prepare, reads=None, reads_services=True)
