"""nginx as a gateway: each ``location`` that ``proxy_pass``-es is a route of the module whose folder holds the
configuration (``nginx.conf``, ``*.conf``, the official image's ``*.conf.template``; `layout.walk.NGINX_FILE`),
forwarding to the service the URL's host names (`services.endpoints.Forward`; `services.links` links it to
the target's routes).

**Paths.** ``location /api/cart/`` matches everything under ``/api/cart/`` (``/api/cart/**``), ``location =
/x`` only ``/x``; a ``proxy_pass`` inside a nested block (an ``if``) is not read (a nested ``location`` is a
route of its own). Any method.

**Which location.** Inside one ``server`` block nginx picks ``=`` exact, then the longest prefix, which stops there
when it is ``^~``, else the first regular-expression location (``~``, ``~*``, in written order) that matches. A
regex that takes everything under a literal prefix (``^/shop/(.*)$``, ``^/shop/``) is read as that prefix's route;
any other is not read (no route). A plain prefix location every request of which such a regex takes is no route; one
a regex may take some of (overlapping prefixes, or a regex not read) links nothing and names that regex, as does a
regex location after an earlier regex that may match first, or under a ``^~`` prefix: never a link through a
location nginx may not pick. A regex location's ``proxy_pass`` passes the path on unchanged without a URI, and
``/v1/$1`` puts the rest under ``/v1/``; another URI is not read.

**Where to.** ``proxy_pass http://host:port/uri``: a URI part (even ``/``) replaces the matched prefix (``/api/cart/``
then ``/``: the target sees ``/x`` for ``/api/cart/x``); none passes the path unchanged. A ``rewrite ^/prefix/(.*)$ /other/$1 break;`` in the location swaps
that prefix (the URI on ``proxy_pass`` is then ignored, as nginx does); any other ``rewrite`` is not read: the
route says so and links nothing. A host that names an
``upstream`` block of the file is that block's ``server`` (one of them when it lists several). In a
``*.template`` file ``${VAR}`` is an environment variable (``envsubst`` fills it when the container starts),
settled with the environment the project's deployment files give the service; elsewhere ``$var`` is an
nginx variable, known at run time only, unless the location ``set``s it to a literal (``set $search_host
"search"; proxy_pass http://$search_host;``, the usual way to have nginx resolve a Docker host per request).

**Served, not routed.** A location without ``proxy_pass`` (files from its ``root``, a ``return``, a
``fastcgi_pass``; regex ones left out) is no route, but nginx answers it: it is a ``served`` item, which only keeps a
client calling that path from being told the service has no route there (`services.links`).

The route belongs to the module's first source file (nginx configuration is no source the index holds); its
``file`` and ``line`` are the ``location``'s, and its ``source_layer`` is ``config``. An nginx that is only a
container (a stock image run with the repository's configuration, `layout.edge`) is a service of its own that
holds its routes itself (`frameworks.edge`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ..languages import registry
from ..languages.folding import Folded, choice, env, literal, unknown
from ..languages.symbols import Bound
from ..services.endpoints import ANY, Forward, Item, normalise_path
from ..services.settings import Values
from ..services.virtual_hosts import ServerBlock, server_blocks
from .base import Framework, Project, Reader, brace_block, item

_COMMENT = re.compile(r"#[^\n]*")
_LOCATION = re.compile(r"\blocation\s+(?:(=|\^~|~\*?)\s+)?([^\s{]+)\s*\{")
_UPSTREAM = re.compile(r"\bupstream\s+([\w.-]+)\s*\{")
_PROXY = re.compile(r"\bproxy_pass\s+([^;\s]+)\s*;")
_REWRITE = re.compile(r"\brewrite\s+(\S+)\s+(\S+)(?:\s+(\w+))?\s*;")
#: a rewrite that swaps a literal prefix: ``^/api/(.*)$`` (``$`` optional) to ``/v1/$1``
_PREFIX_REGEX = re.compile(r"^\^(/[\w./-]*)\(\.\*\)\$?$")
_PREFIX_REPLACEMENT = re.compile(r"^(/[\w./-]*)\$1$")
#: a regex location that takes everything under a literal prefix: ``^/shop/(.*)$``, ``^/shop/(.*)``, ``^/shop/``
_REGEX_LOCATION = re.compile(r"^\^(/[\w/-]*)(?:\(\.\*\)\$?)?$")
#: a regex location's ``proxy_pass`` URI that puts its capture under a literal path: ``/$1``, ``/v1/$1``
_CAPTURE_URI = re.compile(r"^(/[\w./-]*)\$1$")
_SERVER_BLOCK = re.compile(r"\bserver\s*\{")
_SERVER = re.compile(r"\bserver\s+([^;\s]+)[^;]*;")
_URL = re.compile(r"^(https?://)([^/]+)(/.*)?$")
_TEMPLATE_VAR = re.compile(r"\$\{(\w+)\}")
_VARIABLE = re.compile(r"\$\{(\w+)\}|\$(\w+)")
#: ``set $upstream_host "orders";`` with a literal (the usual way to have nginx resolve a Docker host per request)
_SET = re.compile(r"""\bset\s+\$(\w+)\s+(?:"([^"$]*)"|'([^'$]*)'|([^\s;"'$]+))\s*;""")


def _value(text: str, template: bool, sets: dict[str, str]) -> Folded:
    """A host or URI as written: a template's ``${VAR}`` an environment variable, an nginx variable the location
    ``set``s to a literal that literal, any other nginx variable unknown (known at run time only)."""
    out, last = literal(""), 0
    for found in _VARIABLE.finditer(text):
        out = out + literal(text[last:found.start()])
        name = found.group(1) or found.group(2)
        if template and found.group(1):
            out = out + env(name)
        elif name in sets:
            out = out + literal(sets[name])
        else:
            out = out + unknown(f"the nginx variable {found.group(0)}")
        last = found.end()
    return out + literal(text[last:])


def _own(block: str) -> str:
    """A block's own directives: its nested blocks (a ``location`` inside it, an ``if``) blanked out, so a
    ``proxy_pass`` of a nested location is never the outer one's."""
    braces = _TEMPLATE_VAR.sub(lambda m: " " * len(m.group(0)), block)   # ${VAR} opens no block
    out, depth = [], 0
    for char, brace in zip(block, braces, strict=True):
        depth += brace == "{"
        out.append(char if depth == 0 else " ")
        depth -= brace == "}" and depth > 0
    return "".join(out)


def _rewritten_prefix(rewrites: list[tuple[str, str, str]]) -> tuple[str, str] | None:
    """(prefix seen outside, prefix the target sees) of one ``rewrite ^/prefix/(.*)$ /other/$1 break;`` (the
    request then goes to ``proxy_pass`` as rewritten); None for any other rewrite (not read)."""
    if len(rewrites) != 1 or rewrites[0][2] != "break":
        return None
    regex, replacement = _PREFIX_REGEX.match(rewrites[0][0]), _PREFIX_REPLACEMENT.match(rewrites[0][1])
    return (regex.group(1), replacement.group(1)) if regex and replacement else None


def _regex_prefix(regex: str) -> str | None:
    """The literal prefix a regular-expression location matches everything under (``^/shop/(.*)$``, ``^/shop/``:
    ``/shop/``); None when the expression says more (not read)."""
    found = _REGEX_LOCATION.match(regex)
    return found.group(1) if found else None


def _overlaps(prefix: str, regex: tuple[str, str]) -> bool:
    """Whether a regular-expression location may match a request under ``prefix``: its literal prefix and
    ``prefix`` nest (compared without case for ``~*``), or the expression is not read (then it may)."""
    modifier, written = regex
    literal_prefix = _regex_prefix(written)
    if literal_prefix is None:
        return True
    a, b = (prefix.lower(), literal_prefix.lower()) if modifier == "~*" else (prefix, literal_prefix)
    return a.startswith(b) or b.startswith(a)


def _scopes(text: str) -> list[tuple[int, int]]:
    """The spans of the file's ``server { }`` blocks (locations compete only inside one)."""
    return [(m.end(), m.end() + len(brace_block(text, m.end()))) for m in _SERVER_BLOCK.finditer(text)]


#: a location whose every request a regex location nginx checks first takes: no route (nginx never picks it)
NEVER = "never picked"


def _competing(where: str, modifier: str | None, regexes: list[tuple[int, str, str]], start: int) -> str | None:
    """Why nginx may pick another location for a request this one matches, following nginx's order (``=``
    exact, ``^~`` prefix stops the regex search, longest prefix, then regex locations in written order): a
    plain prefix loses to any regex location that may match under it, a regex location to an earlier one."""
    if modifier == "=" or modifier == "^~":
        return None
    prefix = where if modifier is None else _regex_prefix(where) or ""
    for at, other_modifier, regex in regexes:
        if (modifier is None or at < start) and _overlaps(prefix, (other_modifier, regex)):
            taken = _regex_prefix(regex)
            if taken is not None and _overlaps(prefix, (other_modifier, taken)) and \
                    (prefix.lower() if other_modifier == "~*" else prefix).startswith(
                        taken.lower() if other_modifier == "~*" else taken):
                return NEVER
            read = "" if taken else " (not read)"
            return (f"the regex location {other_modifier} {regex}{read} is checked first and may take its requests; "
                    "which location nginx picks is not known")
    return None


def locations(path: str, text: str) -> Iterator[tuple[int, str, str, Forward | None, str | None]]:
    """(line, method, route path, forward, problem) of each proxying location of one configuration file."""
    text = _COMMENT.sub(lambda m: " " * len(m.group(0)), text)   # keep offsets (and so lines)
    template = path.endswith(".template")
    upstreams = {m.group(1): _SERVER.findall(brace_block(text, m.end())) for m in _UPSTREAM.finditer(text)}
    scopes = _scopes(text)
    scope_of = lambda at: next((s for s in reversed(scopes) if s[0] <= at < s[1]), None)   # noqa: E731
    found_all = list(_LOCATION.finditer(text))
    regexes = [(f.start(), f.group(1), f.group(2)) for f in found_all if f.group(1) in ("~", "~*")]
    for found in found_all:
        modifier, where = found.group(1), found.group(2)
        own = _own(brace_block(text, found.end()))
        proxy = _PROXY.search(own)
        regex_prefix = _regex_prefix(where) if modifier in ("~", "~*") else None
        if proxy is None or (modifier in ("~", "~*") and regex_prefix is None):
            continue   # an unread regex location is no route (the prefix locations it may shadow say so)
        line = text.count("\n", 0, found.start()) + 1
        start = regex_prefix or where
        pattern = where if modifier == "=" else start.rstrip("/") + "/**"
        scope = scope_of(found.start())
        shadow = _competing(where, modifier, [r for r in regexes if scope_of(r[0]) == scope], found.start())
        if shadow is None and regex_prefix is not None and any(
                f.group(1) == "^~" and scope_of(f.start()) == scope and _overlaps(f.group(2), (modifier, where))
                for f in found_all):
            shadow = "a ^~ prefix location may take its requests first; which location nginx picks is not known"
        if shadow == NEVER:
            continue
        if shadow:
            yield line, ANY, pattern, Forward(None, 0, None, normalise_path(pattern)), shadow
            continue
        rewrites = _REWRITE.findall(own)
        if rewrites:
            prefix = _rewritten_prefix(rewrites)
            if prefix is None:
                yield line, ANY, pattern, Forward(None, 0, None, normalise_path(pattern)), \
                    f"its rewrite {' '.join(rewrites[0][:2])} is not read"
                continue
        url = _URL.match(proxy.group(1))
        if url is None:
            yield line, ANY, where, None, f"proxy_pass {proxy.group(1)} is not an http(s) URL"
            continue
        scheme, host, uri = url.groups()
        if regex_prefix is not None and uri is not None and not rewrites:
            capture = _CAPTURE_URI.match(uri) if where.endswith(("(.*)$", "(.*)")) else None
            if capture is None:
                yield line, ANY, pattern, Forward(None, 0, None, normalise_path(pattern)), \
                    f"proxy_pass {proxy.group(1)} in a regex location is not read"
                continue
            uri = capture.group(1)   # /v1/$1: the part after the location's prefix, under /v1/
        servers = upstreams.get(host)
        sets = {m.group(1): next(g for g in m.groups()[1:] if g is not None) for m in _SET.finditer(own)}
        target = choice([literal(scheme) + _value(s, template, sets) for s in servers]) if servers else \
            literal(scheme) + _value(host, template, sets)
        rewrite = prefix if rewrites else (start, uri) if uri is not None else None
        yield line, ANY, pattern, Forward(target, 0, rewrite, normalise_path(pattern)), None


def served_locations(path: str, text: str) -> Iterator[tuple[int, str]]:
    """(line, path pattern) of each location of one configuration file that nginx answers without ``proxy_pass``:
    files from its ``root``/``alias`` (inherited when not written), a ``return``, a ``fastcgi_pass`` ... Such a path
    is served, though no route models it: a client calling it is never told the service has no route there
    (`services.links`). A regex location is left out (which paths it takes is not read)."""
    text = _COMMENT.sub(lambda m: " " * len(m.group(0)), text)
    for found in _LOCATION.finditer(text):
        modifier, where = found.group(1), found.group(2)
        if modifier in ("~", "~*") or _PROXY.search(_own(brace_block(text, found.end()))):
            continue
        yield text.count("\n", 0, found.start()) + 1, where if modifier == "=" else where.rstrip("/") + "/**"


#: (line, method, route pattern, forward, problem, framework, the route as written) of one configured route
ConfigRoute = tuple[int, str, str, Forward | None, str | None, str, str]


def config_routes(files: list[Bound], project: Project,
                  read: Callable[[Values], Iterator[tuple[str, ConfigRoute]]], kind: str = "route") -> Reader:
    """A reader of the routes a module's configuration declares (``read``: (file, route) of a module's settings),
    each held by the module's first source file with the configuration's ``file`` and ``line`` (``kind``
    ``served``: paths it serves that no route models, `served_locations`)."""
    first: dict[str, Bound] = {}
    for bound in files:
        first.setdefault(bound.ctx.module, bound)
    planned: dict[str, list[Item]] = {}
    for module, home in first.items():
        for path, (line, method, pattern, forward, problem, flavor, written) in read(project.values(module)):
            route = item(home, -1, kind, flavor, line, http_method=method, path=literal(normalise_path(pattern)),
                         written=written, forward=forward, source_layer="config")
            route.file, route.line = path, line
            if flavor == "nginx":
                route.server_block = block_at(project.values(module).nginx, path, line)
            if problem:
                route.problems.append(problem)
            planned.setdefault(home.path, []).append(route)
    planned = {path: merge_variants(routes) for path, routes in planned.items()}
    return lambda bound: planned.get(bound.path, [])


def block_at(files: list[tuple[str, str]], path: str, line: int) -> ServerBlock | None:
    """The ``server { }`` block of the configuration file ``path`` that holds its line ``line``."""
    text = next((text for file, text in files if file == path), None)
    if text is None:
        return None
    at = sum(len(one) + 1 for one in text.split("\n")[:line - 1])
    return next((block for start, end, block in server_blocks(path, text) if start <= at < end), None)


def merge_variants(routes: list[Item]) -> list[Item]:
    """One route for each route the same proxy declares alike (method, path, where it forwards, what is wrong)
    in several files: deployment variants of one manifest (``java25-kubernetes.yml``, ``native-minikube.yml``...)
    or overlaid settings. The first file (in path order) keeps it, naming the others (``also_declared_in``);
    repeats inside one file stay apart (each is a declaration of its own): a file's n-th repeat joins the n-th
    route kept."""
    kept: dict[tuple, list[Item]] = {}
    counts: dict[tuple, int] = {}
    out: list[Item] = []
    for route in sorted(routes, key=lambda r: (r.file, r.line)):
        key = (route.kind, route.microservice, route.module, route.flavor, route.http_method, route.path.text if route.path else None,
               route.written, repr(route.forward), tuple(route.problems))
        nth = counts.get((*key, route.file), 0)
        counts[(*key, route.file)] = nth + 1
        same = kept.setdefault(key, [])
        if nth < len(same):
            same[nth].also_declared_in.append(f"{route.file}:{route.line}")
            continue
        same.append(route)
        out.append(route)
    return out


def read_routes(values: Values) -> Iterator[tuple[str, ConfigRoute]]:
    for path, text in values.nginx:
        for line, method, pattern, forward, problem in locations(path, text):
            yield path, (line, method, pattern, forward, problem, "nginx", f"location {pattern}")


def read_served(values: Values) -> Iterator[tuple[str, ConfigRoute]]:
    for path, text in values.nginx:
        for line, pattern in served_locations(path, text):
            yield path, (line, ANY, pattern, None, None, "nginx", f"location {pattern}")


def prepare(files: list[Bound], project: Project) -> Reader:
    routes = config_routes(files, project, read_routes)
    served = config_routes(files, project, read_served, kind="served")
    return lambda bound: [*routes(bound), *served(bound)]


FRAMEWORK = Framework("nginx", registry.NAMES, prepare, reads=None, reads_services=True)
