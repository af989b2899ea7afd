"""Rust: HTTP routes of axum, actix-web and rocket, HTTP clients (reqwest, awc, surf, ureq, isahc), and rdkafka
producers and consumers, read from the facts.

**Routers are values.** A call chain (``Router::new().route(..).nest(..)``) is one value: a local (``let api =
...``), a function's result, or an argument of another call (the extractor's ``extra["chains"]``). What a chain
registers is served under the prefixes of the places its value goes: an axum ``.nest("/api", v)`` adds
``/api``, a ``.merge(v)`` nothing; a function's result goes wherever a call of that function does
(``.nest("/api", routes::api())``); a local a ``let`` shadows goes where the uses of each binding take it; a value
used nowhere is the application's (prefix ""). An actix-web chain
begun by ``web::scope("/api")`` adds ``/api``, one begun by ``web::resource("/p")`` is that path; a function
handed to ``.configure(f)`` registers on ``cfg`` under the prefixes of that call.

**Routes.** axum ``.route("/p", get(h).post(h2))`` on a receiver (``any`` is every method; a bare ``route(..)`` is a
function of the project's, not read); actix-web ``.route("/p",
web::get().to(h))``, a resource's ``.route(web::post().to(h))`` and ``.to(h)``, and ``#[get("/p")]``-style
attributes (``#[route("/p", method = "GET")]`` too) on a function registered with ``.service(h)``; rocket
``#[get("/p/<id>")]`` under each ``.mount("/base", routes![h, ..])`` that lists it (or a ``.mount("/base", f())`` of a
project function whose body lists it in a ``routes!``). The handler is the project
function the handler expression names (its module's, a ``use``d one, a path), else the registering function.

**Clients.** ``get``/``post``/``put``/``delete``/``patch``/``head(url)`` and ``request(Method::X, url)`` on a
client of an HTTP client crate (`CLIENT_CRATES`: a ``reqwest::Client``, a reqwest-middleware
``ClientWithMiddleware``, an actix-web ``awc::Client``, a ``surf::Client``, a ``ureq::Agent``, an
``isahc::HttpClient``: a local, parameter or field declared or made so, ``new()``/``default()``/``builder()``), and
the crates' own verbs (``reqwest::get(url)``, ``surf::get``, ``ureq::post``, ``isahc::get``), the URL
folded (`rust.constants`). **Kafka.** rdkafka ``FutureRecord::to(topic)``/``BaseRecord::to(topic)`` producers and
``consumer.subscribe(&[..])`` consumers in files that use rdkafka (never on a receiver of a type the project declares).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import Folded, array_items, literal, split_top, unknown
from ..languages.rust.constants import RustFolder, RustValues, absolute_path, imported_paths, project_type
from ..languages.symbols import Bound
from ..model import CallFact
from ..services.endpoints import ANY, HTTP_METHODS, Item, join_paths
from .base import Framework, Project, Reader, declared_type, dotted, item

VERBS = {m.lower(): m for m in HTTP_METHODS}
#: axum method routers: ``get(h).post(h2)``
_METHOD_ROUTER = re.compile(r"(?:^|[.:\s])(get|post|put|delete|patch|head|options|any)\s*\(")
_ACTIX_METHOD = re.compile(r"\bweb\s*::\s*(get|post|put|delete|patch|head|options)\s*\(\s*\)")
_ACTIX_TO = re.compile(r"\.\s*to\s*\(\s*([\w:]+)\s*\)")
_CALLED = re.compile(r"^([\w:]+)\s*(?:::<[^>]*>)?\s*\(")
_ROUTES_MACRO = re.compile(r"routes!\s*\[([^\]]*)\]")
_ATTRIBUTE_METHOD = re.compile(r"method\s*=\s*\"(\w+)\"")
#: calls that hand a router (or a scope, a service, a configuration function) to another
USES = frozenset({"nest", "merge", "service", "configure", "nest_service", "mount"})
_DEPTH = 8


class RustProject:
    """The Rust files of one microservice set: values, functions by fqn, and the chains of each file."""

    def __init__(self, bounds: list[Bound]) -> None:
        self.values = RustValues([(b.ctx.module_name, b.facts) for b in bounds])
        self.functions: dict[str, tuple[Bound, int]] = {}
        #: the fqns of the structs and traits the project's own (not generated) code declares
        self.types: frozenset[str] = frozenset(
            b.fqns[i] for b in bounds if not b.facts.extra.get("generated")
            for i, sym in enumerate(b.facts.symbols) if sym.kind in ("class", "interface"))
        for bound in bounds:
            for index, sym in enumerate(bound.facts.symbols):
                if sym.kind in ("function", "method"):
                    self.functions.setdefault(bound.fqns[index], (bound, index))
        #: (microservice, fqn) -> the calls that hand a call of that function to another (``.nest(p, api())``)
        self.handed: dict[tuple[str, str], list[tuple[Bound, int]]] = {}
        for bound in bounds:
            for index, call in enumerate(bound.facts.calls):
                if call.name in USES and call.args:
                    called = _CALLED.match(call.args[-1].lstrip("&").strip())
                    name = called.group(1) if called else call.args[-1].strip()
                    found = self.function(bound, name)
                    if found is not None:
                        key = (bound.ctx.microservice, found[0].fqns[found[1]])
                        self.handed.setdefault(key, []).append((bound, index))

    def fold(self, bound: Bound, expr: str, owner: str | None = None, line: int = 0) -> Folded:
        folder = RustFolder(self.values, bound.ctx.module_name, bound.facts)
        if owner is not None:
            folder.at(bound.facts, owner, line)
        return folder.fold(expr)

    def function(self, bound: Bound, expr: str, scope: str = "") -> tuple[Bound, int] | None:
        """The project function a path names in ``bound`` (``h``, ``handlers::h``, ``crate::a::h``,
        ``Type::h``, ``h::<T>``; one declared in the body of ``scope`` or a function around it first), or None
        (a closure, a library's)."""
        expr = re.sub(r"::<.*>$", "", expr.strip().lstrip("&")).replace("::", ".").replace(" ", "")
        if not re.fullmatch(r"[\w.]+", expr):
            return None
        module = bound.ctx.module_name
        imported = imported_paths(module, bound.facts)
        head, dot, rest = expr.partition(".")
        candidates = []
        key = scope
        while key and key in bound.by_key and not dot:
            candidates.append(f"{bound.prefix}.{key}.{expr}")
            key = bound.facts.symbols[bound.by_key[key]].parent or ""
        if head in imported:
            candidates.append(f"{imported[head]}.{rest}" if dot else imported[head])
        candidates += [f"{module}.{expr}", absolute_path(expr, module, bound.facts)]
        candidates += [f"{absolute_path(imp.target, module, bound.facts)}.{expr}" for imp in bound.facts.imports
                       if imp.names == (("*", "*"),)]
        for fqn in candidates:
            found = self.functions.get(fqn)
            if found is not None and found[0].ctx.microservice == bound.ctx.microservice:
                return found
        return None


# ---- chains ---------------------------------------------------------------------------------------------

def _chains(bound: Bound) -> list[list]:
    return bound.facts.extra.get("chains") or [[-1, ""] for _ in bound.facts.calls]


def root_of(bound: Bound, index: int) -> int:
    chains = _chains(bound)
    seen = 0
    while chains[index][0] >= 0 and seen < 64:
        index, seen = chains[index][0], seen + 1
    return index


def top_of(bound: Bound, index: int) -> int:
    chains = _chains(bound)
    up = {on: i for i, (on, _into) in enumerate(chains) if on >= 0}
    seen = 0
    while index in up and seen < 64:
        index, seen = up[index], seen + 1
    return index


class Prefixes:
    """The prefixes a chain's registrations are served under (see the module docstring)."""

    def __init__(self, project: RustProject) -> None:
        self.project = project

    def of_chain(self, bound: Bound, index: int, depth: int = 0) -> list[Folded]:
        if depth > _DEPTH:
            return [unknown("routers handed on too deeply")]
        calls = bound.facts.calls
        root = calls[root_of(bound, index)]
        own = literal("")
        if root.name in ("scope", "resource") and root.args and root.receiver in (["name", "web"], None):
            own = self.project.fold(bound, root.args[0], root.owner, root.line)
        top = top_of(bound, index)
        into = _chains(bound)[top][1]
        if root.receiver and root.receiver[0] == "name" and root.receiver[1] != "web" and root.name not in ("new",) \
                and not into:   # cfg.service(..): where the parameter's value comes from
            base = self.of_variable(bound, root.owner, root.receiver[1], depth)
        else:   # let app = app.nest(..): where the chain's value goes
            base = self.of_value(bound, top, into, depth)
        return [join_paths([prefix, own]) for prefix in base]

    def of_value(self, bound: Bound, top: int, into: str, depth: int) -> list[Folded]:
        calls = bound.facts.calls
        owner = calls[top].owner
        if into.startswith("arg:"):
            return self.through(bound, int(into[4:]), depth)
        if into == "return":
            return self.of_function(bound, owner, depth)
        if into:
            return self.of_variable(bound, owner, into, depth, top)
        return [literal("")]

    def through(self, bound: Bound, user: int, depth: int) -> list[Folded]:
        """The prefixes of what a ``.nest(p, v)`` (``p`` added), ``.merge(v)``, ``.service(v)``, ... call hands on."""
        call = bound.facts.calls[user]
        if call.name not in USES:
            return [literal("")]
        added = self.project.fold(bound, call.args[0], call.owner, call.line) if call.name in ("nest", "nest_service") \
            and len(call.args) > 1 else literal("")
        return [join_paths([prefix, added]) for prefix in self.of_chain(bound, user, depth + 1)]

    def of_variable(self, bound: Bound, owner: str, name: str, depth: int, defined: int | None = None) -> list[Folded]:
        """A local handed on in its function (the uses that read the binding the chain ``defined`` made, when a
        ``let`` shadows it: ``let app = Router::new().nest("/v2", app)``); a parameter (``cfg``), what the callers
        of the function give."""
        users = [i for i, c in enumerate(bound.facts.calls) if c.owner == owner and c.name in USES and c.args
                 and c.args[-1].lstrip("&").strip().removesuffix(".clone()") == name
                 and (defined is None or self.binding_read(bound, owner, name, i) == defined)]
        if users:
            return [p for user in users for p in self.through(bound, user, depth)]
        sym = bound.facts.symbols[bound.by_key[owner]] if owner in bound.by_key else None
        if sym is not None and any(param == name for param, _type in sym.params):
            return self.of_function(bound, owner, depth)
        return [literal("")]

    @staticmethod
    def binding_read(bound: Bound, owner: str, name: str, use: int) -> int | None:
        """The chain (its top call) whose ``let name = ..`` a use of ``name`` reads: the last one before it, never
        the one the use is part of."""
        calls, chains = bound.facts.calls, _chains(bound)
        bindings = sorted((calls[i].line, i) for i, (_on, into) in enumerate(chains)
                          if into == name and calls[i].owner == owner)
        top = top_of(bound, use)
        limit = next(((line, i) for line, i in bindings if i == top), (calls[use].line, len(calls)))
        before = [b for b in bindings if b < limit and b[1] != top]
        return before[-1][1] if before else None

    def of_function(self, bound: Bound, owner: str, depth: int) -> list[Folded]:
        index = bound.by_key.get(owner)
        if index is None:
            return [literal("")]
        handed = self.project.handed.get((bound.ctx.microservice, bound.fqns[index]), [])
        if not handed:
            return [literal("")]
        return [p for other, user in handed for p in self.through(other, user, depth)]


# ---- routes -----------------------------------------------------------------------------------------------

def _handler_target(project: RustProject, bound: Bound, expr: str, owner: int, line: int):
    scope = bound.facts.symbols[owner].key if owner >= 0 else ""
    found = project.function(bound, expr, scope) if expr else None
    return (found, None) if found is not None else ((bound, owner), line)


def _method_routers(text: str) -> list[tuple[str, str]]:
    """(method, handler expression) of each method router in ``get(h).post(h2)``."""
    out = []
    for match in _METHOD_ROUTER.finditer(text):
        depth, start = 1, match.end()
        end = start
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        args = split_top(text[start:end - 1])
        verb = match.group(1)
        out.append((ANY if verb == "any" else VERBS[verb], args[0] if args else ""))
    return out


def _registrations(project: RustProject, prefixes: Prefixes, bound: Bound, index: int, call: CallFact,
                   owner: int) -> Iterator[Item]:
    axum = _uses(bound, "axum")
    actix = _uses(bound, "actix_web")
    if call.name == "route" and len(call.args) >= 2 and axum and call.receiver is not None:
        path = project.fold(bound, call.args[0], call.owner, call.line)
        for method, handler in _method_routers(call.args[1]):
            target, at = _handler_target(project, bound, handler, owner, call.line)
            for prefix in prefixes.of_chain(bound, index):
                yield item(target[0], target[1], "route", "axum", at, http_method=method,
                           path=join_paths([prefix, path]), written=call.args[0])
    elif actix and call.name == "route" and call.args and call.receiver is not None:
        method = _ACTIX_METHOD.search(call.args[-1])
        handler = _ACTIX_TO.search(call.args[-1])
        path = project.fold(bound, call.args[0], call.owner, call.line) if len(call.args) >= 2 else literal("")
        target, at = _handler_target(project, bound, handler.group(1) if handler else "", owner, call.line)
        for prefix in prefixes.of_chain(bound, index):
            yield item(target[0], target[1], "route", "actix_web", at,
                       http_method=method.group(1).upper() if method else ANY, path=join_paths([prefix, path]),
                       written=call.args[0] if len(call.args) >= 2 else call.args[-1])
    elif actix and call.name == "to" and call.args and bound.facts.calls[root_of(bound, index)].name == "resource" \
            and _chains(bound)[index][0] >= 0:
        target, at = _handler_target(project, bound, call.args[0], owner, call.line)
        for prefix in prefixes.of_chain(bound, index):
            yield item(target[0], target[1], "route", "actix_web", at, http_method=ANY, path=prefix,
                       written=call.args[0])


def _attribute_routes(project: RustProject, prefixes: Prefixes, bound: Bound,
                      served: dict[str, list[tuple[Bound, int]]],
                      mounted: dict[str, list[tuple[Bound, int]]], rocket_crates: frozenset[str]) -> Iterator[Item]:
    """Functions with ``#[get("/p")]``-style attributes: rocket's under the mounts that list them, actix-web's
    under the chains that ``.service(..)`` them. A file of a crate that uses rocket (or its ``routes!``) and not
    actix-web is rocket's without a ``use`` of it (``#[macro_use] extern crate rocket`` in the crate's root)."""
    rocket = _uses(bound, "rocket") or _crate(bound) in rocket_crates
    for index, sym in enumerate(bound.facts.symbols):
        if sym.kind not in ("function", "method"):
            continue
        for annotation in sym.annotations:
            verb = annotation.name.rsplit(".", 1)[-1]
            if verb not in VERBS and verb != "route" or not annotation.args:
                continue
            args = split_top(annotation.args[0][1])
            path = project.fold(bound, args[0]) if args else literal("")
            if verb == "route":
                methods = [m.upper() for m in _ATTRIBUTE_METHOD.findall(annotation.args[0][1])] or [ANY]
            else:
                methods = [VERBS[verb]]
            fqn = bound.fqns[index]
            framework = "rocket" if rocket or fqn in mounted else "actix_web"
            if framework == "rocket":
                bases = [project.fold(b, b.facts.calls[i].args[0], b.facts.calls[i].owner, b.facts.calls[i].line)
                         for b, i in mounted.get(fqn, [])] or [literal("")]
            else:
                bases = [p for b, i in served.get(fqn, []) for p in prefixes.of_chain(b, i)] or [literal("")]
            for base in bases:
                for method in methods:
                    yield item(bound, index, "route", framework, None, http_method=method,
                               path=join_paths([base, path]), written=args[0] if args else "")


# ---- clients and Kafka ------------------------------------------------------------------------------------

#: the HTTP client crates read: the client types each makes its calls on, and the verbs it offers as functions
#: of the crate itself (``reqwest::get(url)``, ``ureq::post(url)``); reqwest-middleware wraps a reqwest client
CLIENT_CRATES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "reqwest": (("Client", "ClientBuilder", "blocking.Client"), ("get",)),
    "reqwest_middleware": (("ClientWithMiddleware", "ClientBuilder"), ()),
    "awc": (("Client", "ClientBuilder"), ()),
    "surf": (("Client",), ("get", "post", "put", "delete", "patch", "head")),
    "ureq": (("Agent",), ("get", "post", "put", "delete", "patch", "head")),
    "isahc": (("HttpClient",), ("get", "post", "put", "delete", "head")),
}
_TYPE_PATH = re.compile(r"^~?([\w.]+)")


def _crate_and_type(path: str) -> str | None:
    """The crate of a client type's full path (``awc.Client``), None for no client crate's type."""
    crate, _, rest = path.partition(".")
    return crate if rest in CLIENT_CRATES.get(crate, ((), ()))[0] else None


def _client_crate(bound: Bound, owner: str, receiver, line: int) -> str | None:
    """The client crate of a receiver that is one of its client types (see the module docstring), else None."""
    if receiver is None:
        return None
    if receiver[0] == "call" and receiver[2] in ("new", "builder", "default") and receiver[1]:
        written = dotted(receiver[1])
    elif receiver[0] in ("name", "field") and (receiver[0] == "name" or receiver[1] == ["self"]):
        written = declared_type(bound, owner, receiver[-1] if receiver[0] == "field" else receiver[1], line)
    else:
        return None
    match = _TYPE_PATH.match(written or "")
    if match is None:
        return None
    head, *rest = match.group(1).split(".")
    if head not in CLIENT_CRATES:   # a name a ``use`` brings (``use awc::Client``, ``use surf::Client as Http``)
        head = imported_paths(bound.ctx.module_name, bound.facts).get(head, "")
    parts = [*head.split("."), *rest] if head else []
    # the longest head of the path that is a client type (``ClientBuilder.new(..).build()`` made by a builder)
    return next((crate for end in range(len(parts), 1, -1) if (crate := _crate_and_type(".".join(parts[:end])))),
                None)


def _clients(project: RustProject, bound: Bound, call: CallFact, owner: int) -> Iterator[Item]:
    receiver = call.receiver
    used = [crate for crate in CLIENT_CRATES if _uses(bound, crate)]
    if owner < 0 or not call.args or not used:
        return
    crate = next((c for c in used if call.name in CLIENT_CRATES[c][1] and receiver in (
        ["name", c], ["field", ["name", c], "blocking"])), None)
    if crate is not None:
        method, url = VERBS[call.name], call.args[0]
    elif call.name in VERBS and (crate := _client_crate(bound, call.owner, receiver, call.line)):
        method, url = VERBS[call.name], call.args[0]
    elif call.name == "request" and len(call.args) >= 2 and (crate := _client_crate(bound, call.owner, receiver,
                                                                                     call.line)):
        written = call.args[0].replace(" ", "").rsplit("::", 1)[-1].upper()
        method, url = (written if written in HTTP_METHODS else None), call.args[1]
    else:
        return
    kind = "reqwest" if crate == "reqwest_middleware" else crate
    yield item(bound, owner, "client", kind, call.line, http_method=method,
               path=project.fold(bound, url, call.owner, call.line), written=url)


def _kafka(project: RustProject, bound: Bound, call: CallFact, owner: int) -> Iterator[Item]:
    """rdkafka's records and subscriptions; a ``subscribe`` on a receiver of a type the project declares (its own
    bus) is that type's method, not rdkafka's."""
    if owner < 0 or not call.args or not _uses(bound, "rdkafka"):
        return
    if call.name == "to" and call.receiver and call.receiver[-1] in ("FutureRecord", "BaseRecord"):
        yield item(bound, owner, "producer", "rdkafka", call.line, broker="kafka",
                   topic=project.fold(bound, call.args[0], call.owner, call.line), written=call.args[0])
    elif call.name == "subscribe" and call.receiver and not _of_project_type(project, bound, call):
        written = call.args[0].strip().lstrip("&").strip()
        for expr in array_items(written) if written.startswith("[") else [written]:
            yield item(bound, owner, "route", "rdkafka", call.line, broker="kafka",
                       topic=project.fold(bound, expr, call.owner, call.line), written=expr)


def _crate(bound: Bound) -> str:
    return f"{bound.ctx.microservice}:{bound.ctx.module_name.split('.', 1)[0]}"


def _of_project_type(project: RustProject, bound: Bound, call: CallFact) -> bool:
    receiver = call.receiver
    if receiver[0] == "name":
        written = declared_type(bound, call.owner, receiver[1], call.line)
    elif receiver[0] == "field" and receiver[1] == ["self"]:
        written = declared_type(bound, call.owner, receiver[2], call.line)
    else:
        return False
    return bool(written) and project_type(bound.ctx.module_name, bound.facts, written, project.types)


def _uses(bound: Bound, crate: str) -> bool:
    """The file names the crate: a ``use`` of it, or a path through it (``reqwest::get``)."""
    return any(imp.target == crate or imp.target.startswith(crate + ".") for imp in bound.facts.imports) or \
        crate in bound.facts.extra.get("path_heads", ())


# ---- the framework ----------------------------------------------------------------------------------------

def _mounted_lists(rust: RustProject, bound: Bound, expr: str) -> list[tuple[Bound, str]]:
    """(file, names) of the ``routes![..]`` a ``.mount`` serves: written in the call, or in the body of the
    project function it calls (``.mount("/users", users::routes())``)."""
    listed = _ROUTES_MACRO.search(expr)
    if listed:
        return [(bound, listed.group(1))]
    called = _CALLED.match(expr.strip())
    found = rust.function(bound, called.group(1)) if called else None
    if found is None:
        return []
    where, index = found
    return [(where, match.group(1)) for written in where.facts.extra.get("routes", {}).get(
        where.facts.symbols[index].key, ()) for match in [_ROUTES_MACRO.search(written)] if match]


def prepare(files: list[Bound], project: Project) -> Reader:
    rust = RustProject(files)
    prefixes = Prefixes(rust)
    served: dict[str, list[tuple[Bound, int]]] = {}
    mounted: dict[str, list[tuple[Bound, int]]] = {}
    actix_crates = {_crate(b) for b in files if _uses(b, "actix_web")}
    rocket_crates = frozenset(_crate(b) for b in files if _uses(b, "rocket") or b.facts.extra.get("routes")) \
        - actix_crates
    for bound in files:
        for index, call in enumerate(bound.facts.calls):
            if call.name == "service" and call.args:
                found = rust.function(bound, call.args[0])
                if found is not None:
                    served.setdefault(found[0].fqns[found[1]], []).append((bound, index))
            elif call.name == "mount" and len(call.args) >= 2:
                for where, listed in _mounted_lists(rust, bound, call.args[1]):
                    for name in split_top(listed):
                        found = rust.function(where, name)
                        if found is not None:
                            mounted.setdefault(found[0].fqns[found[1]], []).append((bound, index))

    def read(bound: Bound) -> Iterator[Item]:
        if bound.facts.extra.get("generated"):
            return
        for index, call in enumerate(bound.facts.calls):
            owner = bound.by_key.get(call.owner, -1) if call.owner else -1
            yield from _registrations(rust, prefixes, bound, index, call, owner)
            yield from _clients(rust, bound, call, owner)
            yield from _kafka(rust, bound, call, owner)
        yield from _attribute_routes(rust, prefixes, bound, served, mounted, rocket_crates)

    return read


FRAMEWORK = Framework("rust_web", ("rust",), prepare)
