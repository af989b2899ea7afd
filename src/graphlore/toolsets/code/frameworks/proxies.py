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
  matches ``PathPrefix`` (every path under it), ``Path`` or ``Host`` only (every path), its ``service``'s
  ``loadBalancer.servers[].url`` the target; a ``stripPrefix`` then an ``addPrefix`` middleware declared in the
  file change the path (in that order; a change after an ``addPrefix`` or a second ``stripPrefix`` is not
  read), any other middleware does not; a rule with ``||``, ``!`` or a regular expression, a
  middleware of another provider or one that replaces the path is not read. Compose labels are not read: the
  Traefik container runs no source of the project to hold its routes.
- **Envoy** static configuration (``envoy*.yaml``): every ``route_config.virtual_hosts[].routes[]`` with a
  ``match.prefix`` (every path under it) or ``match.path`` (that path) and a ``route.cluster``, whose
  ``socket_address.address`` / ``port_value`` (``load_assignment`` or the older ``hosts``) is the target;
  ``prefix_rewrite`` replaces the matched prefix. A ``safe_regex`` match is not read.

A target with several hosts (a cluster of two services) is a choice: `services.links` leaves it unresolved,
as it does an address that is no project service. What is not read (another path transform, a regular
expression) is said on the route (``problems``), never guessed. As for nginx, the route belongs to the module's
first source file, with the configuration's ``file`` and ``line``; a module with no source file is not read.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from typing import Any

import yaml

from ..languages import registry
from ..languages.folding import Folded, choice, literal
from ..languages.symbols import Bound
from ..services.endpoints import ANY, HTTP_METHODS, Forward, normalise_path
from ..services.settings import Values
from .base import Framework, Project, Reader
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
        data = json.loads(text)
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
            data = json.loads(text)
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
        data = json.loads(text)
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
            else:
                yield line, method, pattern, _forward(pattern, target, outer, inner), None, "ocelot"


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
            out.append(literal(f"http://{address['address']}" + (f":{port}" if port else "")))
    return out


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
        if name in ("Path", "PathPrefix"):
            paths += [(name, value) for value in _QUOTED.findall(args)]
        elif name not in ("Host", "Method", "Headers", "Header", "Query", "ClientIP"):
            return f"the matcher {name} is not read"
    return paths or [("PathPrefix", "/")]


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
                yield line, ANY, pattern, _forward(pattern, choice(hosts), *rewrite), None, "traefik"


# ---- the framework --------------------------------------------------------------------------------------

def routes(path: str, text: str) -> Iterator[Route]:
    """The proxy routes one configuration file declares (by its name: `layout.walk.PROXY_FILE`)."""
    name = path.rsplit("/", 1)[-1]
    if name.startswith("appsettings"):
        yield from yarp_routes(path, text)
    elif name.startswith("ocelot"):
        yield from ocelot_routes(path, text)
    elif name.startswith("envoy"):
        yield from envoy_routes(path, text)
    else:
        yield from traefik_routes(path, text)


def _environment(values: Values) -> str | None:
    """The environment the deployment runs a .NET service in (one value), else None."""
    named = {v for key in ENVIRONMENT_VARIABLES for v in values.env.get(key, [])}
    return named.pop() if len(named) == 1 else None


def _read(values: Values) -> Iterator[tuple[str, ConfigRoute]]:
    settings: dict[str, list[tuple[str, str]]] = {}
    for path, text in values.proxies:
        if _SETTINGS.match(path.rsplit("/", 1)[-1]):
            settings.setdefault(path.rpartition("/")[0], []).append((path, text))
    for files in settings.values():
        for path, (line, method, pattern, forward, problem, flavor, shown) in yarp_overlaid(
                files, _environment(values)):
            yield path, (line, method, pattern, forward or Forward(None, 0, None, normalise_path(pattern)), problem,
                         flavor, shown)
    for path, text in values.proxies:
        if _SETTINGS.match(path.rsplit("/", 1)[-1]):
            continue
        for line, method, pattern, forward, problem, flavor in routes(path, text):
            # a route whose target is not read still forwards: to a target not known (`services.links` says so)
            yield path, (line, method, pattern, forward or Forward(None, 0, None, normalise_path(pattern)), problem,
                         flavor, f"{flavor} route {pattern}")


def prepare(files: list[Bound], project: Project) -> Reader:
    return config_routes(files, project, _read)


FRAMEWORK = Framework("proxies", registry.NAMES, prepare, reads=None, reads_services=True)
