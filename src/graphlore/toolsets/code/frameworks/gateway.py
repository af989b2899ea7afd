"""Gateway routes: Spring Cloud Gateway (YAML and its Java DSL) and Netflix Zuul, each a route of the gateway
that forwards to a service (`services.endpoints.Forward`; `services.links` links it to the target's routes).

**YAML** (the gateway module's settings, config-server files included, `services.settings`):
``spring.cloud.gateway.routes[i]`` (also under ``spring.cloud.gateway.server.webflux``/``.mvc``/``.server.webmvc``)
with ``uri`` (``lb://name``, ``http://host:port``), ``predicates`` (``Path=/a/**,/b/**``, ``Method=GET``; the
long form ``name: Path`` with ``args``) and ``filters`` (``StripPrefix=N``, ``RewritePath=/a/(?<s>.*), /${s}``,
``PrefixPath=/x``); with ``spring.cloud.gateway.discovery.locator.enabled`` every project service is also
reachable at ``/<service>/**`` (its name stripped). ``zuul.routes.<name>`` with ``path``, ``serviceId`` or
``url`` (else the route's name is the service) and ``stripPrefix`` (default ``zuul.stripPrefix``, true: the
path's prefix before the wildcard is stripped), under ``zuul.prefix``.

**Java DSL**: ``builder.routes().route("id", r -> r.path("/a/**").filters(f -> f.stripPrefix(1)).uri("lb://x"))``:
the calls of one ``route(...)`` up to the next, read from the facts.

A route's handler is the module's application class (``@SpringBootApplication``, ``@EnableZuulProxy``) when
it has one, else the configuring method (DSL) or the first file of the module; its ``source_layer`` is
``config`` (YAML) or ``framework`` (DSL). A YAML route's ``file`` and ``line`` are its own list item's in the
settings file that gives it (a Zuul route's key; the discovery locator's switch), as nginx routes carry their
``location``; a DSL route's are its ``route(...)`` call's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from ..languages.folding import MAX_CHOICES, Folded, expand, literal
from ..languages.symbols import Bound
from ..services.endpoints import ANY, HTTP_METHODS, Forward, Item, normalise_path
from ..services.profiles import active_profiles
from ..services.settings import Values, canonical
from .base import Framework, Project, Reader, item
from .jvm import JVM_LANGUAGES, JavaFile, annotations, constants

PREFIXES = ("spring.cloud.gateway.routes", "spring.cloud.gateway.server.webflux.routes",
            "spring.cloud.gateway.mvc.routes", "spring.cloud.gateway.server.webmvc.routes")
APPLICATION = ("SpringBootApplication", "EnableZuulProxy", "EnableZuulServer")
_REWRITE = re.compile(r"^\s*(/[^()]*?)/?\(\?<(\w+)>\.\*\)\s*,\s*(/[^$]*?)/?\$\\?\{\2\}\s*$")


def _alternatives(value: str | None) -> list[str]:
    """The values a setting may take: one, or one each when a profile or the deployment gives it another."""
    return [] if value is None else [one.text for one in expand(literal(value))]


def _bools(value: str | None, default: bool) -> set[bool]:
    """The values a boolean setting may take (two when profiles disagree)."""
    return {one.strip().lower() not in ("false", "0", "no", "off") for one in _alternatives(value)} or {default}


def _variants(specs: list[str]) -> list[list[str]]:
    """Each list of values ``specs`` may be, one per combination of their alternatives (at most `MAX_CHOICES`)."""
    out: list[list[str]] = [[]]
    for spec in specs:
        out = [head + [one] for head in out for one in _alternatives(spec)][:MAX_CHOICES]
    return out


def _list(values: Values, key: str) -> list[str]:
    """A YAML list (``key[0]``...) or a comma-separated value, as strings."""
    out, index = [], 0
    while (item_ := values.get(f"{key}[{index}]")) is not None:
        out.append(item_)
        index += 1
    if out:
        return out
    single = values.get(key)
    return [single] if single is not None else []


#: a long-form filter's arguments in the order its shortcut form writes them (``RewritePath=regexp, replacement``)
_ARG_ORDER = {"StripPrefix": ("parts",), "RewritePath": ("regexp", "replacement"), "PrefixPath": ("prefix",)}


def _filters(values: Values, key: str) -> list[str]:
    """A route's filters in the shortcut form `_rewrite` reads, the long form (``name: StripPrefix``, ``args:
    {parts: 2}``) written so (``StripPrefix=2``): it was left out, its path forwarded whole."""
    out, index = [], 0
    while (name := values.get(f"{key}[{index}].name")) is not None or values.get(f"{key}[{index}]") is not None:
        entry = f"{key}[{index}]"
        index += 1
        if name is None:
            out.append(values.get(entry) or "")
            continue
        args = {k[len(entry) + 6:]: v for k, v in values.entries.items() if k.startswith(f"{entry}.args.")}
        order = [a for a in _ARG_ORDER.get(name.strip(), ()) if a in args] or list(args)
        out.append(f"{name}=" + ", ".join(args[a] for a in order))
    return out or _list(values, key)


def _route(path: str, target: Folded, strip: int, rewrite: tuple[str, str] | None,
           written: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())) -> Forward:
    return Forward(target, strip, rewrite, normalise_path(path), *written)


def _written(values: Values, key: str) -> tuple[str, ...]:
    """A route's predicates or filters as the settings write them: the shortcut form as is (``StripPrefix=2``), the
    long form (``name:`` with ``args:``) as ``Name(arg=value, ...)``."""
    out, index = [], 0
    while True:
        entry = f"{key}[{index}]"
        if entry in values.entries:
            out.append(values.entries[entry])
        elif f"{entry}.name" in values.entries:
            args = [f"{k[len(entry) + 6:]}={v}" for k, v in values.entries.items() if k.startswith(f"{entry}.args.")]
            out.append(values.entries[f"{entry}.name"] + (f"({', '.join(args)})" if args else ""))
        else:
            return tuple(out)
        index += 1


def _rewrite(filters: list[str]) -> tuple[int, tuple[str, str] | None, bool]:
    """(segments stripped, rewrite, whether every filter was understood) of a route's filters."""
    strip, rewrite, understood = 0, None, True
    for spec in filters:
        name, _, args = spec.partition("=")
        name = name.strip()
        if name == "StripPrefix" and args.strip().isdigit():
            strip = int(args)
        elif name == "RewritePath":
            match = _REWRITE.match(args)
            if match:
                rewrite = (match.group(1), match.group(3) or "/")
            else:
                understood = False
        elif name == "PrefixPath":
            rewrite = ("", args.strip())
        elif name == "SetPath":
            understood = False
    return strip, rewrite, understood


Declared = tuple[str, str, str, Forward, str | None, tuple[str, int] | None]


def _list_sources(values: Values, prefix: str) -> list[tuple[Values, str | None]]:
    """One view of the settings per file set that writes the list under ``prefix`` (the base settings, each
    profile), with the list of that source only, and that source's profile (None: the base). Spring replaces a
    list a profile writes as a whole, never item by item: the n-th route of ``application-dev.yml`` and of
    ``application-prod.yml`` are two routes, never one whose path and uri mix. Unchanged when no profile writes
    the list."""
    key = canonical(prefix) + "["
    writers = [name for name, settings in values.profiles.items() if any(k.startswith(key) for k in settings)]
    if not writers:
        return [(values, None)]
    under = lambda k: canonical(k).startswith(key)   # noqa: E731
    base = {k: v for k, v in values.entries.items() if not under(k)}
    others = {name: {k: v for k, v in settings.items() if not under(k)} for name, settings in values.profiles.items()}
    views = []
    if any(under(k) for k in values.entries):
        views.append((replace(values, profiles=others), None))
    for name in writers:   # the profile's list read as the base's is (its keys are relaxed: lower case)
        own = {k: v for k, v in values.profiles[name].items() if under(k)}
        whole = {_item(k) for k in own if k.endswith((".id", ".uri")) and k.count("[") >= 1
                 and k.rsplit(".", 1)[0] == _item(k)}
        # an item the profile writes without its own ``id`` or ``uri`` overrides some keys of the base's item (what
        # its author meant; Spring would take it whole, a route with no uri): read it over the base's item
        inherited = {k: v for k, v in values.entries.items() if under(k) and _item(canonical(k)) not in whole}
        entries = base | {canonical(k): v for k, v in inherited.items()} | own
        views.append((replace(values, entries=entries, profiles=others,
                              _canonical={canonical(k): v for k, v in entries.items()}), name))
    return views


def _item(key: str) -> str:
    """The list item a key is of: ``spring.cloud.gateway.routes[1]`` for ``...routes[1].filters[0]``."""
    return key[:key.index("]") + 1] if "]" in key else key


def _where(values: Values, profile: str | None, key: str) -> tuple[str, int] | None:
    """The file and line of a list item of the base settings or of one profile (a profile's: its ``id``'s or
    ``uri``'s, the line the item starts on)."""
    if profile is None:
        return values.where.get(key)
    where = values.profile_where.get(profile, {})
    found = next((where[k] for k in map(canonical, (key, f"{key}.id", f"{key}.uri")) if k in where), None)
    return (found[0], found[1]) if found and found[1] is not None else None


def yaml_routes(values: Values, services: list[str]) -> Iterator[Declared]:
    """(framework, method, path, forward, problem, (file, line) or None) of each gateway route the settings
    declare, the list of each profile that writes one apart (`_list_sources`); a setting a profile or the
    deployment gives another value makes one route per value (`_alternatives`)."""
    for *declared, _, _ in profiled_routes(values, services):
        yield tuple(declared)   # type: ignore[misc]


def profiled_routes(values: Values, services: list[str]) -> Iterator[tuple[str, str, str, Forward, str | None,
                                                                             tuple[str, int] | None, str | None,
                                                                             frozenset[str]]]:
    """`yaml_routes`, each with the profile whose own list declares it (None: the base settings'), and, for a route
    of the base settings' list, the profiles that write a list of their own in its place (Spring binds a list from
    one source: where such a profile runs, the base list does not)."""
    for prefix in PREFIXES:
        sources = _list_sources(values, prefix)
        writers = frozenset(profile for _, profile in sources if profile is not None)
        for view, profile in sources:
            for declared in _list_routes(view, prefix, profile):
                yield (*declared, profile, writers if profile is None else frozenset())
    for declared in _other_routes(values, services):
        yield (*declared, None, frozenset())


def _other_routes(values: Values, services: list[str]) -> Iterator[Declared]:
    """The discovery locator's routes and Zuul's."""
    locator = _bools(values.get("spring.cloud.gateway.discovery.locator.enabled")
                     or values.get("spring.cloud.gateway.server.webflux.discovery.locator.enabled"), False)
    if True in locator:
        problem = "the discovery locator is enabled only under some profiles or deployments" if False in locator \
            else None
        at = values.where.get("spring.cloud.gateway.discovery.locator.enabled") or values.where.get(
            "spring.cloud.gateway.server.webflux.discovery.locator.enabled")
        for service in services:
            path = f"/{service}/**"
            yield "spring_cloud_gateway", ANY, path, _route(path, literal(f"lb://{service}"), 1, None), problem, at
    yield from _zuul(values)


def _list_routes(values: Values, prefix: str, profile: str | None) -> Iterator[Declared]:
    """The routes of one list of gateway routes (``spring.cloud.gateway.routes[i]``...)."""
    index = 0
    while values.get(f"{prefix}[{index}].uri") is not None or values.get(f"{prefix}[{index}].id") is not None:
        base = f"{prefix}[{index}]"
        index += 1
        at = _where(values, profile, base)
        text, missing = values.resolve(values.get(f"{base}.uri") or "")
        why = tuple(f"placeholder ${{{k}}}" for k in missing)
        paths, methods = _predicates(values, base)
        # the gateway's default-filters apply to every route, before its own (Spring's order for equal orders)
        defaults = f"{prefix.rsplit('.', 1)[0]}.default-filters"
        filters = {_rewrite(one) for one in _variants(_filters(values, defaults) + _filters(values, f"{base}.filters"))}
        written = (_written(values, f"{base}.predicates"), _written(values, f"{base}.filters") + tuple(
            f"{one} (default-filters)" for one in _written(values, defaults)))
        for uri in _alternatives(text):
            target = Folded(uri, not missing, why)
            for strip, rewrite, understood in sorted(filters, key=repr):
                problem = None if understood else "a filter rewrites the path in a way this reader does not follow"
                for path in paths:
                    for method in methods or [ANY]:
                        yield ("spring_cloud_gateway", method, path,
                               _route(path, target, strip, rewrite, written), problem, at)


def _predicates(values: Values, base: str) -> tuple[list[str], list[str]]:
    """The paths and methods of a route's predicates, every alternative of each; a route without a Path
    predicate matches every path."""
    paths, methods = [], []
    for position, spec in enumerate(_list(values, f"{base}.predicates")):
        for one in _alternatives(spec):
            name, _, args = one.partition("=")
            if not args:   # the long form: predicates[i].name / .args.*
                name = values.get(f"{base}.predicates[{position}].name") or ""
                args = ",".join(v for k, v in values.entries.items()
                                if k.startswith(f"{base}.predicates[{position}].args."))
            for name_ in _alternatives(name):
                if name_.strip() == "Path":
                    paths += [p.strip() for p in args.split(",") if p.strip()]
                elif name_.strip() == "Method":
                    methods += [m.strip().upper() for m in args.split(",") if m.strip().upper() in HTTP_METHODS]
    return list(dict.fromkeys(paths)) or ["/**"], list(dict.fromkeys(methods))


def _zuul(values: Values) -> Iterator[Declared]:
    routes = sorted({key.split(".")[2] for key in values.entries if key.startswith("zuul.routes.")
                     and key.count(".") >= 3})
    global_strips = _bools(values.get("zuul.stripPrefix") or values.get("zuul.strip-prefix"), True)
    for name in routes:
        base = f"zuul.routes.{name}"
        at = values.where.get(base)
        target_text = values.get(f"{base}.url") or values.get(f"{base}.serviceId") or \
            values.get(f"{base}.service-id") or name
        text, missing = values.resolve(target_text)
        why = tuple(f"placeholder ${{{k}}}" for k in missing)
        strip_setting = values.get(f"{base}.stripPrefix") or values.get(f"{base}.strip-prefix")
        seen = set()
        for path in _alternatives(values.get(f"{base}.path") or f"/{name}/**"):
            for zuul_prefix in _alternatives(values.get("zuul.prefix") or "") or [""]:
                full = normalise_path(f"{zuul_prefix}/{path}")
                for global_strip in sorted(global_strips):
                    for route_strip in sorted(_bools(strip_setting, global_strip)):
                        strip = len([s for s in path.split("/") if s and "*" not in s]) if route_strip else 0
                        strip += len([s for s in zuul_prefix.split("/") if s]) if global_strip else 0
                        for target_ in _alternatives(text):
                            if (full, strip, target_) not in seen:
                                seen.add((full, strip, target_))
                                target = Folded(target_, not missing, why)
                                yield "zuul", ANY, full, _route(full, target, strip, None), None, at


def _depth(receiver: object) -> int:
    """How many calls a receiver chains (``builder.routes().route(..)`` is 2): a route's place in its chain."""
    depth = 0
    while isinstance(receiver, list) and receiver and receiver[0] == "call":
        depth, receiver = depth + 1, receiver[1]
    return depth


def _dsl(bound: Bound) -> Iterator[tuple[int, int, str, str | None, list[str], list[tuple[str, ...]], list[str]]]:
    """(owner index, line, paths, uri or None when not told, stripPrefix args, rewritePath args, methods) of
    each Java DSL route. A chain ``builder.routes().route(a).route(b)`` is one expression: its ``route`` calls
    all start on its first line, so each route is the one ``uri(...)`` of its lambda, taken in line order, with
    the calls from that line to the next route's; a uri the route's lambda text does not hold, or two routes on
    one line, leave the route's target untold (never another route's)."""
    calls = bound.facts.calls
    heads = [c for c in calls if c.name == "route" and c.args and (
        c.receiver and c.receiver[0] == "call" and c.receiver[2] in ("routes", "route"))]
    for owner_key in dict.fromkeys(c.owner for c in heads):
        chain = sorted((c for c in heads if c.owner == owner_key), key=lambda c: _depth(c.receiver))
        first = min(c.line for c in chain)
        body = [c for c in calls if c.owner == owner_key and c.line >= first and c not in chain]
        uris = sorted((c for c in body if c.name == "uri" and c.args), key=lambda c: c.line)
        lines = [c.line for c in uris]
        owner = bound.by_key.get(owner_key, -1)
        for number, head in enumerate(chain):
            if len(uris) != len(chain) or len(set(lines)) != len(lines):
                # the routes cannot be told apart by line: read what the route's own text says, nothing more
                lambda_text = next((a for a in head.args if "->" in a), "")
                paths = re.findall(r"\.path\(([^()]*)\)", lambda_text)
                yield owner, head.line, ",".join(paths) or '"/**"', None, [], [], []
                continue
            uri = uris[number]
            until = lines[number + 1] if number + 1 < len(lines) else None
            group = [c for c in body if c.line >= uri.line and (until is None or c.line < until)]
            lambda_text = next((a for a in head.args if "->" in a), "")
            told = "uri(" not in lambda_text or uri.args[0] in lambda_text
            paths = [a for c in group if c.name == "path" for a in c.args]
            methods = [m.rsplit(".", 1)[-1].strip('"').upper() for c in group if c.name == "method" for m in c.args]
            strips = [c.args[0] for c in group if c.name == "stripPrefix" and c.args]
            rewrites = [c.args for c in group if c.name == "rewritePath" and len(c.args) >= 2]
            yield owner, uri.line, ",".join(paths) or '"/**"', uri.args[0] if told else None, strips, rewrites, \
                methods


def prepare(files: list[Bound], project: Project) -> Reader:
    by_module: dict[str, list[Bound]] = {}
    for bound in files:
        by_module.setdefault(bound.ctx.module, []).append(bound)
    services = sorted({bound.ctx.microservice for bound in project.table.files.values()})
    planned: dict[str, list[Item]] = {}
    for module, bounds in by_module.items():
        values = project.values(module)
        found = list(profiled_routes(values, services))
        if not found:
            continue
        home, index = _home(bounds)
        active = active_profiles(values) if any(one[-2] for one in found) else None
        for framework, method, path, forward, problem, at, profile, replaced_by in found:
            route = item(home, index, "route", framework, http_method=method, path=literal(normalise_path(path)),
                         written=path, forward=forward, source_layer="config", profile=profile)
            if at is not None:
                route.file, route.line = at
            if problem:
                route.problems.append(problem)
            if profile is not None and active is not None and profile not in active.names:
                route.not_run = active.reason(profile)
            elif active is not None and replaced_by & active.names:
                route.not_run = active.replaced(sorted(replaced_by & active.names))
            planned.setdefault(home.path, []).append(route)

    def read(bound: Bound) -> Iterator[Item]:
        yield from planned.get(bound.path, [])
        if not any(c.name == "uri" for c in bound.facts.calls):
            return
        jf = JavaFile(bound, constants(project), project.values(bound.ctx.module))
        for owner, line, paths, uri, strips, rewrites, methods in _dsl(bound):
            class_key = bound.facts.symbols[owner].parent or "" if owner >= 0 else ""
            strip_value = jf.fold(strips[0], class_key) if strips else literal("0")
            strip = int(strip_value.text) if strip_value.known and strip_value.text.isdigit() else 0
            rewrite = None
            if rewrites:
                regex, replacement = (jf.fold(a, class_key).text for a in rewrites[0][:2])
                match = _REWRITE.match(f"{regex}, {replacement}")
                rewrite = (match.group(1), match.group(3) or "/") if match else None
            # the owner and line give the route method's parameters their types (a ``@ConfigurationProperties``
            # bean's getter: ``.uri(destinations.getOrderServiceUrl())``)
            owner_key = bound.facts.symbols[owner].key if owner >= 0 else None
            target = jf.fold(uri, class_key, owner_key, line) if uri is not None else Folded(
                "{?}", False, ("the routes of this chain cannot be told apart, so which uri is this route's is not known",))
            for written in [p.strip() for p in paths.split(",")]:
                path = jf.fold(written, class_key)
                forward = _route(path.text, target, strip, rewrite)
                for method in [m for m in methods if m in HTTP_METHODS] or [ANY]:
                    route = item(bound, owner, "route", "spring_cloud_gateway", line, http_method=method,
                                 path=Folded(normalise_path(path.text), path.known, path.why), written=written,
                                 forward=forward)
                    if rewrites and rewrite is None:
                        route.problems.append("a RewritePath this reader does not follow")
                    yield route

    return read


def _home(bounds: list[Bound]) -> tuple[Bound, int]:
    """The module's application class (where its configuration is read), else its first file."""
    for bound in bounds:
        for index, sym in enumerate(bound.facts.symbols):
            if sym.kind == "class" and annotations(sym).keys() & set(APPLICATION):
                return bound, index
    return bounds[0], -1


FRAMEWORK = Framework("gateway", JVM_LANGUAGES, prepare, reads_services=True)
