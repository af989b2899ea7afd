"""Part 2's records before linking: routes (HTTP endpoints and message listeners), HTTP clients and message
producers, as the frameworks (``frameworks/``) find them, with their values folded (``languages/folding.py``
and each language's constants) and their placeholders resolved (`settings`); and the path rules they share.

**Paths.** ``path_template`` is the full path a service answers or a client asks for: the parts joined
with ``/``, ``//`` collapsed, a leading ``/``, no trailing ``/`` (except the root), and every path
variable written ``{name}``: Spring ``{id:\\d+}``, Express ``:id``, Flask ``<int:id>`` and FastAPI
``{id:path}`` all become ``{id}``. A part whose value is not known statically is ``{?}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..languages.folding import UNKNOWN, Folded, literal, unknown
from .discovery import RESOLVER_SCHEMES, SCHEME_SOURCES, resolver_target
from .virtual_hosts import ServerBlock

HTTP_METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")
#: a route that accepts every method (a Spring mapping without ``method``, Express ``all``)
ANY = "ANY"
BROKERS = ("kafka", "rabbit", "jms", "stream")


@dataclass
class Item:
    """One route, client or producer, folded, before linking."""

    kind: str                      # route | client | producer | served (a path answered, no route: nginx files)
    owner: str                     # the declaring symbol's id
    owner_fqn: str
    microservice: str
    module: str
    file: str
    line: int
    #: route: framework; client: client_kind; producer: producer_kind
    flavor: str
    http_method: str | None = None
    #: as written in the code (the expressions, joined)
    written: str = ""
    path: Folded | None = None
    broker: str | None = None
    topic: Folded | None = None
    #: gRPC routes and clients: the fully qualified method (``package.Service/Method``)
    grpc: str | None = None
    #: clients: the service it names (Feign name, URL host, lb:// name) and where that came from
    target: Folded | None = None
    target_source: str = ""
    base_url: str | None = None
    #: why a part of the value is unknown, or the target cannot be told (clients, producers)
    problems: list[str] = field(default_factory=list)
    #: where it was read: ``framework`` (the frameworks' conventions in code), ``config`` (configuration and
    #: deployment files: gateway routes), ``declared`` (in-source declarations such as ``@CodebaseHttpClient``)
    source_layer: str = "framework"
    #: a Feign client's ``name`` when it also has a ``url`` (the name is its identity, the url a deployment detail)
    target_name: Folded | None = None
    #: gateway routes: where they forward (see `Forward`)
    forward: Forward | None = None
    #: gRPC clients (and grpc-gateway routes): the address their channel dials, as folded (None: not traced);
    #: evidence, never the target
    address: Folded | None = None
    #: grpc-gateway routes: the gRPC method (``package.Service/Method``) the HTTP route forwards to
    forward_grpc: str | None = None
    #: configuration routes: the other files (``file:line``) that declare the very same route for the same proxy
    #: (deployment variants of one manifest: `frameworks.nginx.merge_variants`)
    also_declared_in: list[str] = field(default_factory=list)
    #: event-bus producers: the fqns of the project's methods that carry the publish (an ``IEventBus`` implementation's
    #: ``PublishAsync``): the broker producers they declare are its ``transport`` (`links`)
    carried_by: tuple[str, ...] = ()
    #: routes: the symbol whose requests its handler serves though no call names it (a Razor Page's view, whose
    #: ``@model``'s handler methods serve it): a ``TRIGGERS`` edge from it to the handler
    triggered_by: str | None = None
    #: declarative clients filed at their interface for a method it inherits and does not redeclare (a Micronaut
    #: ``@Client`` or MicroProfile REST client extending a shared ``*Operations`` API interface): that method's id.
    #: A call through the client resolves to the inherited method, so it declares the client too (`links`)
    inherited: str | None = None
    #: AMQP listener routes reached through a declared binding: (queue, exchange, exchange type, binding key); a
    #: topic exchange's key matches by AMQP's wildcards, a fanout's (key ``#``) every key (`links`)
    amqp_binding: tuple[str, str, str, str] | None = None
    #: HTTP clients: the path's beginning is not known (a registry's client picks the address at run time), only its
    #: end: the links match that end against the ends of the target service's routes (`links`)
    path_end_only: bool = False
    #: nginx locations: the ``server { }`` block that holds it (a request reaches it only when nginx picks that
    #: block by its Host and port: `virtual_hosts.answering_block`)
    server_block: ServerBlock | None = None
    #: configuration routes: the Spring profile whose settings alone declare it (``application-dev.yml``'s); None:
    #: the base settings' (every profile's)
    profile: str | None = None
    #: routes: the ``if`` the code registers or mounts it under, as written with ``file:line``
    #: (``if settings.ENV == "local" (app/api/main.py:13)``); None: registered unconditionally. Listed and linked
    #: as any route: whether the condition holds is the deployment's
    condition: str | None = None
    #: why the deployment does not run it: its profile is not among those the deployment names (`profiles`); such a
    #: route is listed with its profile and never linked, to or from
    not_run: str | None = None

    @property
    def resolved(self) -> bool:
        values = [v for v in (self.path, self.topic, self.target) if v is not None]
        return all(v.known for v in values) and not self.problems

    def why(self) -> list[str]:
        out = list(self.problems)
        for value in (self.target, self.path, self.topic):
            if value is not None:
                out += [w for w in value.why if w not in out]
        return out


@dataclass
class Forward:
    """Where a gateway route sends what it matches: the target (a service name, ``lb://name`` or a URL) and how
    the path changes on the way (``strip``: leading segments removed; ``rewrite``: a prefix replaced, as
    (prefix seen outside, prefix the target sees))."""

    target: Folded | None
    strip: int = 0
    rewrite: tuple[str, str] | None = None
    #: the route's own pattern (what the gateway matches)
    pattern: str = "/"
    #: the route's predicates and filters as its settings write them (``Path=/api/customer/**``, ``StripPrefix=2``;
    #: the gateway's ``default-filters`` after its own), shown in the route's ``describe``
    predicates: tuple[str, ...] = ()
    filters: tuple[str, ...] = ()
    #: the gateway matches this route's pattern without case (Ocelot's, unless the route says otherwise)
    caseless: bool = False
    #: a Traefik router's priority (its ``priority``, else its rule's length), when its rule matches by path alone: a
    #: request goes to the matching router of highest priority (`links`); None: not known or another proxy
    priority: int | None = None

    def outside(self, route_path: str, caseless: bool = False) -> str | None:
        """The path a request must have at the gateway to reach a target route at ``route_path`` (None: none;
        ``caseless``: the target's framework matches paths without case)."""
        if self.rewrite is not None:
            outer, inner = self.rewrite
            seen, want = (route_path.lower(), inner.lower()) if caseless else (route_path, inner)
            if "*" not in want and match_score(want, seen) is not None:   # one path, its variables renamed
                return outer
            if not (seen == want or seen.startswith(want.rstrip("/") + "/") or want in ("", "/")):
                return None
            rest = route_path[len(inner.rstrip("/")):] if inner not in ("", "/") else route_path
            return normalise_path(outer.rstrip("/") + "/" + rest.lstrip("/"))
        kept = [s for s in segments(self.pattern) if "*" not in s and segment_kind(s) == "literal"][: self.strip]
        if len(kept) < self.strip:
            return None
        return normalise_path("/" + "/".join(kept) + "/" + route_path.lstrip("/"))

    def inside(self, request_path: str, caseless: bool = False) -> str | None:
        """The path the target sees for a request at ``request_path`` that the route matched (None: not known):
        the inverse of `outside` (``caseless``: the gateway matches paths without case; the rest goes as sent)."""
        if self.rewrite is not None:
            outer, inner = self.rewrite
            if "*" in outer or "*" in inner:
                return None
            seen, head = (request_path.lower(), outer.lower()) if caseless else (request_path, outer)
            if "*" not in self.pattern and match_score(seen, head) is not None:   # one path, renamed
                return normalise_path(inner)
            head = head.rstrip("/")
            if head and not (seen == head or seen.startswith(head + "/")):
                return None
            return normalise_path(inner.rstrip("/") + "/" + request_path[len(head):].lstrip("/"))
        parts = segments(request_path)
        if len(parts) < self.strip:
            return None
        return normalise_path("/" + "/".join(parts[self.strip:]))


# -- paths ----------------------------------------------------------------------------------------------------

_VARIABLE = re.compile(r"\{([A-Za-z_][\w.-]*)(?::[^{}]*(?:\{[^{}]*\}[^{}]*)*)?\}")


def normalise_path(text: str) -> str:
    """See the module docstring."""
    text = re.sub(r"<(?:[a-z_]+:)?([A-Za-z_]\w*)>", r"{\1}", text)           # Flask <int:id>
    text = re.sub(r"(?<=/):([A-Za-z_]\w*)\??", r"{\1}", text)                # Express /:id
    text = _VARIABLE.sub(lambda m: "{" + m.group(1) + "}", text)              # {id:\d+} -> {id}
    text = re.sub(r"/{2,}", "/", "/" + text.strip())
    if len(text) > 1:
        text = text.rstrip("/") or "/"
    return text


def join_paths(parts: list[Folded]) -> Folded:
    """Path parts joined with single slashes (empty parts skipped), normalised."""
    out = literal("")
    for part in parts:
        if part.text == "" and part.known:
            continue
        out = out + literal("/") + part
    return Folded(normalise_path(out.text), out.known, out.why)


def segments(template: str) -> list[str]:
    return [s for s in template.split("/") if s]


def segment_kind(segment: str) -> str:
    if "{?" in segment:
        return "unknown"
    if re.fullmatch(r"\{[^{}]+\}", segment):
        return "variable"
    if "*" in segment:
        return "wildcard"
    return "literal"


def may_fit(client: str, route: str) -> bool:
    """Whether a route whose template holds unknown parts could serve a client's path once they are known: a
    whole unknown segment (``{?}``, e.g. a prefix from an environment variable no file sets) stands for any
    number of segments, none included; an unknown inside a segment for any text."""
    if "{?" not in route:
        return False
    pattern = ""
    for seg in segments(route):
        kind = segment_kind(seg)
        if kind == "unknown" and re.fullmatch(r"\{\?[^{}]*\}", seg):
            pattern += "(?:/[^/]+)*"
        elif kind == "unknown":
            pattern += "/" + re.sub(r"\\\{\\\?[^/]*?\\\}", "[^/]*", re.escape(seg))
        elif kind == "variable":
            pattern += "/[^/]+"
        elif seg == "**":
            pattern += "(?:/.*)?"
        elif kind == "wildcard":
            pattern += "/" + re.escape(seg).replace(r"\*", "[^/]*")
        else:
            pattern += "/" + re.escape(seg)
    concrete = "".join("/" + (seg if segment_kind(seg) == "literal" else "x") for seg in segments(client))
    return re.fullmatch(pattern, concrete) is not None


#: route flavors whose framework matches request paths without case (ASP.NET Core, and YARP, which routes with it): a
#: link or a ``path_prefix`` filter reaches such a route in any case, and the route keeps its written case
CASELESS = frozenset({"aspnet", "yarp"})


def caseless(item: Item) -> bool:
    """Whether the framework or gateway serving a route matches request paths without case (`CASELESS`, or a
    gateway route that says so: `Forward.caseless`)."""
    return item.flavor in CASELESS or item.forward is not None and item.forward.caseless


def match_score(client: str, route: str) -> int | None:
    """How specifically a route template fits a client template (literal segments equal), or None.

    A client's literal segment fits a route's equal literal or a variable; a client's variable fits a
    route's variable only (``/accounts/{name}`` is not ``/accounts/current``); an unknown client part
    (``{?}``) fits any one segment. A route's ``**`` fits the rest. The score counts literal-literal
    fits, so the most specific route wins as in Spring.
    """
    left, right = segments(client), segments(route)
    score = 0
    for index, seg in enumerate(right):
        if seg == "**":
            return score
        if index >= len(left):
            return None
        mine, kind = left[index], segment_kind(left[index])
        theirs = segment_kind(seg)
        if kind == "literal":
            if theirs == "literal" and mine == seg:
                score += 1
            elif theirs not in ("variable", "wildcard"):
                return None
        elif kind == "variable":
            if theirs not in ("variable", "wildcard"):
                return None
        elif kind == "unknown":
            if UNKNOWN != mine and theirs == "literal":
                pattern = re.escape(mine).replace(re.escape(UNKNOWN), ".*")
                if not re.fullmatch(pattern, seg):
                    return None
        elif kind == "wildcard":
            return None
    return score if len(left) == len(right) else None


# -- URLs -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Url:
    """A client URL taken apart: the service it names (a host or an ``lb://`` name) and its path."""

    host: Folded | None
    path: Folded
    source: str


_QUERY = re.compile(r"(?<!\{)[?#].*$", re.S)
#: a port written as plain word characters that are not all digits (``80health``): a malformed URL; one holding a
#: placeholder (``${PORT}``, ``{?}``, ``%s``) is a port not known, and the host still names the service
_WORD_PORT = re.compile(r"[\w.-]+")
_RESOLVER = re.compile(f"^({'|'.join(sorted(RESOLVER_SCHEMES))}):(.*)$", re.S | re.I)


def split_url(value: Folded, base: Folded | None = None) -> Url:
    """``http://billing:8080/api/x?q=1`` -> host ``billing``, path ``/api/x`` (the query and fragment are no part
    of the path); ``lb://orders/x`` -> ``orders``, and the other names of service discovery (`discovery`:
    ``stork://orders``, ``dns:///orders:50051``, ``consul://agent:8500/orders``); a path alone is joined to ``base`` (a base URL) when there is
    one."""
    text = _QUERY.sub("", value.text)
    value = Folded(text, value.known, value.why)
    if text.startswith("{?"):
        if base is not None:
            return split_url(base + value, None)
        return Url(None, Folded(normalise_path(text), False, value.why), "unknown")
    resolver = _RESOLVER.match(text)
    if resolver is not None:   # gRPC's name syntax: dns:///orders:50051, consul://agent:8500/orders
        host, path = resolver_target(resolver.group(2))
        if "{?" in host or not host:
            return Url(None, Folded(normalise_path(path), False, value.why + ("the host is not known",)), "unknown")
        return Url(literal(host), Folded(normalise_path(path), value.known, value.why),
                   SCHEME_SOURCES[resolver.group(1).lower()])
    if "://" in text:
        scheme, _, rest = text.partition("://")
        host, slash, path = rest.partition("/")
        host, colon, port = host.split("@")[-1].partition(":")
        if colon and _WORD_PORT.fullmatch(port) and not port.isdigit() and not host.startswith("["):
            # ``endpoint + "health"`` on ``http://catalog:80``: no request goes to catalog as written
            return Url(None, Folded(normalise_path(slash + path), False,
                                    value.why + (f"the URL {text} is malformed (its port {port!r} is not a number)",)),
                       "malformed")
        if "{?" in host or not host:
            return Url(None, Folded(normalise_path(slash + path), False, value.why + ("the host is not known",)),
                       "unknown")
        return Url(literal(host), Folded(normalise_path(slash + path), value.known, value.why),
                   SCHEME_SOURCES.get(scheme.lower(), "URL host"))
    if base is not None:
        base_url = split_url(base)
        joined = join_paths([base_url.path, value])
        return Url(base_url.host, Folded(joined.text, joined.known and base_url.path.known, joined.why),
                   base_url.source)
    return Url(None, Folded(normalise_path(text), value.known, value.why), "path only")


def host_of(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None



_ORIGIN = re.compile(r"^(\w+://[^/?#]*)([^?#]*)")


def resolve_reference(base: Folded, url: Folded) -> Folded:
    """A URL against the base URI a client is made with, as Guzzle, Symfony HttpClient and Faraday resolve it
    (RFC 3986): a path starting with ``/`` replaces the base's path (``http://h/api`` + ``/x`` is ``http://h/x``),
    another one its last segment (``http://h/api/`` + ``x`` is ``http://h/api/x``; ``http://h/api`` + ``x`` is
    ``http://h/x``), an empty one is the base. A base known at run time only (an environment variable) is taken as an origin
    followed by the path."""
    if not url.text:
        return base
    split = _ORIGIN.match(base.text) if base.known else None
    if split is None:
        return base + url if url.text.startswith("/") else base + literal("/") + url
    origin, path = split.groups()
    if url.text.startswith("/"):
        return literal(origin) + url
    return literal(origin + (path[:path.rfind("/") + 1] if "/" in path else "/")) + url


__all__ = ["ANY", "BROKERS", "CASELESS", "HTTP_METHODS", "caseless", "Forward", "Item", "Url", "join_paths", "match_score",
           "normalise_path", "resolve_reference", "segments", "split_url", "unknown"]
