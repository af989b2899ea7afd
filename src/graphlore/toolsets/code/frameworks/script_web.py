"""TypeScript/JavaScript: Express and NestJS routes, fetch and axios clients, read from the facts.

**Routes.** Express: ``X.get(path, ...)`` ... ``X.all(path, ...)`` (and ``X.route(path).get(..).post(..)``) where
``X`` is an ``express()`` app or an ``express.Router()``, or a function's parameter every call of it passes one to
(``routes.add(app)``); a router's prefix comes from ``app.use(prefix, router)`` (and ``router.use``; a router
mounted without a path, ``app.use(router)``, sits at its parent's prefix), followed through imports (default,
named and ``module.exports`` exports). A router mounted nowhere has an unknown prefix. A handler mounted
at a path (``app.use("/graphql", handler(...))``, anything but a router) is a route that takes any method.
NestJS: methods decorated ``@Get(path)`` ... in a class decorated ``@Controller(prefix)``, under the service's
``app.setGlobalPrefix(...)``.

**Clients.** ``fetch(url, {method})`` (GET when no method is given), ``axios.get(url)`` ... and calls on an
``axios.create({baseURL})`` instance, made in the file or imported from another module of the project
(``import { httpClient } from "../utils/asyncUtils"``), whose ``baseURL`` prefixes the path. The ``request``
package (``const request = require("request")``, any name): ``request(url, cb)`` (GET, or the ``method`` of an
options object with ``url``/``uri``) and ``request.get(url)``, ``post``, ``put``, ``patch``, ``del``/``delete``,
``head``. AngularJS's ``$http`` service: ``$http({method, url})`` (GET when no method is given) and
``$http.get(url)``, ``post``, ``put``, ``patch``, ``delete``, ``head``, ``jsonp``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ..languages.folding import Folded, literal, split_top, unknown
from ..languages.symbols import Bound
from ..languages.typescript.constants import ScriptFolder, resolve_script
from ..model import CallFact, FileFacts
from ..services.endpoints import ANY, Item, join_paths
from .base import Framework, Project, Reader, item
from .script_handlers import ScriptHandlers

VERBS = {"get", "post", "put", "delete", "patch", "head", "options", "all"}
NEST = {"Get": "GET", "Post": "POST", "Put": "PUT", "Delete": "DELETE", "Patch": "PATCH", "Head": "HEAD",
        "Options": "OPTIONS", "All": ANY}


def _callee(type_: str) -> str:
    return type_[1:-2] if type_.startswith("~") and type_.endswith("()") else ""


def object_field(text: str, name: str) -> str | None:
    """The expression of ``name`` in an object literal as written (``{ method: "POST" }`` -> ``"POST"``)."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    for part in split_top(text[1:-1]):
        key, sep, value = part.partition(":")
        if sep and key.strip().strip("'\"") == name:
            return value.strip()
    return None


@dataclass
class Router:
    path: str
    var: str
    is_app: bool
    mounts: list[tuple[tuple[str, str], Folded]] = field(default_factory=list)


class ScriptProject:
    """The TS/JS files of the project, their Express routers and where each is mounted."""

    def __init__(self, bounds: list[Bound]) -> None:
        self.files: dict[str, FileFacts] = {b.path: b.facts for b in bounds}
        self.named_handlers = ScriptHandlers(bounds)
        self.routers: dict[tuple[str, str], Router] = {}
        self.global_prefix: dict[str, Folded] = {}
        #: (file, function, parameter) -> the routers its callers pass it (`routers_named`)
        self._passed: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
        #: (file, use call, parent router, prefix) of each handler mounted at a path
        self.handlers: list[tuple[Bound, CallFact, tuple[str, str], Folded]] = []
        for bound in bounds:
            koa = {alias for imp in bound.facts.imports if imp.target in ("@koa/router", "koa-router")
                   for _, alias in imp.names}   # a Koa router (`koa`), never Express's
            for var, type_ in bound.facts.extra.get("globals", {}).items():
                callee = _callee(type_)
                if callee in ("express", "express.Router", "Router") and callee not in koa:
                    self.routers[(bound.path, var)] = Router(bound.path, var, callee == "express")
        for bound in bounds:
            self._mounts(bound)
            for call in bound.facts.calls:
                if call.name == "setGlobalPrefix" and call.args:
                    self.global_prefix[bound.ctx.microservice] = ScriptFolder(self.files, bound.path).fold(call.args[0])

    def routers_named(self, bound: Bound, owner: str, name: str) -> list[tuple[str, str]]:
        """The routers ``name`` is in ``owner`` of ``bound``'s file: a router variable of the project, or a
        parameter of a function (``exports.add = app => { app.get(..) }``) that every call of it passes one to
        (``routes.add(app)`` in a file importing it): each router passed (none when a call passes something else)."""
        key = self.resolve_var(bound.path, name)
        if key is not None:
            return [key]
        symbols = {sym.key: sym for sym in bound.facts.symbols}
        sym = symbols.get(owner)
        while sym is not None and not any(param == name for param, _ in sym.params):
            sym = symbols.get(sym.parent or "")
        if sym is None or sym.kind != "function" or sym.parent:
            return []
        cached = self._passed.get((bound.path, sym.key, name))
        if cached is None:
            cached = self._passed[(bound.path, sym.key, name)] = self._passed_routers(bound, sym, name)
        return cached

    def _passed_routers(self, bound: Bound, sym, name: str) -> list[tuple[str, str]]:
        position = next(i for i, (param, _) in enumerate(sym.params) if param == name)
        exported = {alias for alias, local in bound.facts.extra.get("exports", {}).items() if local == sym.name}
        found: list[tuple[str, str]] = []
        for path, facts in self.files.items():
            modules = {alias for imp in facts.imports if imp.target.startswith(".")
                       and resolve_script(self.files, path, imp.target) == bound.path for _, alias in imp.names}
            for call in facts.calls:
                if call.name not in exported | {sym.name} or len(call.args) <= position:
                    continue
                here = call.receiver is None and path == bound.path and call.name == sym.name
                imported = call.receiver is not None and call.receiver[0] == "name" and call.receiver[1] in modules \
                    and call.name in exported
                if not (here or imported):
                    continue
                router = self.resolve_var(path, call.args[position].strip())
                if router is None:
                    return []   # a call passing something else: the parameter is not always a router
                if router not in found:
                    found.append(router)
        return found

    def resolve_var(self, path: str, name: str, hops: int = 0) -> tuple[str, str] | None:
        found = self.definition(path, name)
        return found if found in self.routers else None

    def definition(self, path: str, name: str, hops: int = 0) -> tuple[str, str] | None:
        """(file, name there) of the project variable ``name`` means in ``path``: its own, or what an import
        brings (default, named and CommonJS exports), followed from file to file."""
        facts = self.files.get(path)
        if facts is None or hops > 5:
            return None
        if name in facts.extra.get("globals", {}):
            return path, name
        for imp in facts.imports:
            for imported, alias in imp.names:
                if alias != name or not imp.target.startswith("."):
                    continue
                target = resolve_script(self.files, path, imp.target)
                if target is None:
                    continue
                other = self.files[target].extra
                if imported in ("default", "require"):
                    exported = other.get("default") or other.get("exports", {}).get("default")
                    if exported is None and imported == "require":
                        exported = other.get("exports", {}).get("module.exports")
                else:
                    exported = other.get("exports", {}).get(imported, imported)
                if exported:
                    return self.definition(target, exported, hops + 1)
        return None

    def _mounts(self, bound: Bound) -> None:
        for call in bound.facts.calls:
            if call.name != "use" or not call.args or not call.receiver or call.receiver[0] != "name":
                continue
            parent = self.resolve_var(bound.path, call.receiver[1])
            if parent is None:
                continue
            first = call.args[0].strip()
            has_path = first[:1] in "'\"`" or (self.resolve_var(bound.path, first) is None and len(call.args) > 1
                                               and not first.endswith(")"))
            prefix = ScriptFolder(self.files, bound.path).fold(first) if has_path else literal("")
            children = [self.resolve_var(bound.path, arg.strip()) for arg in call.args[1 if has_path else 0:]]
            for child in children:
                if child is not None:
                    self.routers[child].mounts.append((parent, prefix))
            if has_path and not any(children):
                self.handlers.append((bound, call, parent, prefix))

    def prefixes(self, key: tuple[str, str], depth: int = 0) -> list[Folded]:
        router = self.routers[key]
        if router.is_app:
            return [literal("")]
        if not router.mounts or depth > 8:
            return [unknown(f"the router {router.var} of {router.path} is not mounted anywhere in the project")]
        return [join_paths([above, prefix]) for parent, prefix in router.mounts for above in self.prefixes(parent, depth + 1)]


def _route_chain(facts: FileFacts, call: CallFact) -> tuple[str, str] | None:
    """(router variable, path as written) of a verb called on ``X.route(path)`` (Express's route chain,
    ``app.route("/a").get(h).post(h2)``: each verb a route at the path), else None."""
    receiver = call.receiver
    while isinstance(receiver, list) and receiver[0] == "call" and receiver[2] in VERBS:
        receiver = receiver[1]
    if not (isinstance(receiver, list) and receiver[0] == "call" and receiver[2] == "route" and
            isinstance(receiver[1], list) and receiver[1][0] == "name"):
        return None
    var = receiver[1][1]
    made = next((c for c in facts.calls if c.name == "route" and c.receiver == ["name", var] and c.args and
                 c.owner == call.owner and c.line <= call.line and
                 not any(o.name == "route" and o.receiver == ["name", var] and c.line < o.line <= call.line
                         for o in facts.calls)), None)
    return (var, made.args[0]) if made is not None else None


def _item(bound: Bound, index: int, **kw) -> Item:
    return item(bound, index, kw.pop("kind"), kw.pop("flavor"), kw.pop("line", None), **kw)


def read_script(project: ScriptProject, bound: Bound) -> Iterator[Item]:
    facts = bound.facts
    folder = ScriptFolder(project.files, bound.path)
    by_key = {sym.key: index for index, sym in enumerate(facts.symbols)}
    for mounted, call, parent, prefix in project.handlers:
        if mounted is bound:
            for above in project.prefixes(parent):
                yield _item(bound, by_key.get(call.owner, -1), line=call.line, kind="route", flavor="express",
                            http_method=ANY, path=join_paths([above, prefix]), written=call.args[0])
    # NestJS
    for sym in facts.symbols:
        if sym.kind != "class":
            continue
        decorators = {a.name: a for a in sym.annotations}
        if "Controller" not in decorators:
            continue
        prefix_expr = dict(decorators["Controller"].args).get("")
        prefix = folder.fold(prefix_expr) if prefix_expr else literal("")
        base = project.global_prefix.get(bound.ctx.microservice, literal(""))
        for member in bound.members(sym.key):
            for annotation in facts.symbols[member].annotations:
                if annotation.name in NEST:
                    written = dict(annotation.args).get("", "")
                    path = folder.fold(written) if written else literal("")
                    yield _item(bound, member, kind="route", flavor="nestjs", http_method=NEST[annotation.name],
                                path=join_paths([base, prefix, path]), written=written or '""')
    # Express routes and clients
    for call in facts.calls:
        index = by_key.get(call.owner, -1)
        receiver = call.receiver
        route = _route_chain(facts, call) if call.name in VERBS and call.args else None
        if route is not None:   # X.route(path).get(h).post(h2)
            var, written = route
            for key in project.routers_named(bound, call.owner, var):
                for prefix in project.prefixes(key):
                    yield _item(bound, index, line=call.line, kind="route", flavor="express",
                                http_method=ANY if call.name == "all" else call.name.upper(),
                                path=join_paths([prefix, folder.fold(written)]), written=written)
            continue
        if receiver and receiver[0] == "name" and call.name in VERBS and call.args:
            keys = project.routers_named(bound, call.owner, receiver[1])
            if keys:
                inline = facts.extra.get("inline_handlers", {}).get(str(call.line))
                named = None if inline else project.named_handlers.of(bound, call)   # `script_handlers`
                at, handler, at_line = named + (None,) if named else \
                    (bound, by_key.get(inline, index) if inline else index, call.line)  # the handler written in the call
                for key in keys:
                    for prefix in project.prefixes(key):
                        yield _item(at, handler, line=at_line, kind="route", flavor="express",
                                    http_method=ANY if call.name == "all" else call.name.upper(),
                                    path=join_paths([prefix, folder.fold(call.args[0])]), written=call.args[0])
                continue
        if call.name == "fetch" and receiver is None and call.args:
            method_expr = object_field(call.args[1], "method") if len(call.args) > 1 else None
            method = folder.fold(method_expr) if method_expr else literal("GET")
            yield _item(bound, index, line=call.line, kind="client", flavor="fetch",
                        http_method=method.text.upper() if method.known else None,
                        path=folder.at(facts, call.owner, call.line).fold(call.args[0]),
                        written=call.args[0])
        elif call.args and (found := _angular_http(facts, call)) is not None:
            method, url = found
            yield _item(bound, index, line=call.line, kind="client", flavor="angularjs",
                        http_method=method.text.upper() if method.known else None,
                        path=folder.at(facts, call.owner, call.line).fold(url) if url else
                        unknown(f"the call's URL is not readable ({call.args[0][:60]})"), written=url or call.args[0])
        elif call.args and call.owner not in facts.extra.get("option_methods", {}) and \
                (found := _request_call(facts, call)) is not None:   # an openapi-generator operation's: `generated_clients`
            method, url = found
            yield _item(bound, index, line=call.line, kind="client", flavor="request",
                        http_method=method.text.upper() if method.known else None,
                        path=folder.at(facts, call.owner, call.line).fold(url) if url else
                        unknown(f"the call's URL is not readable ({call.args[0][:60]})"), written=url or call.args[0])
        elif receiver and receiver[0] == "name" and call.name in VERBS - {"all"} and call.args:
            base = _axios(project, bound.path, receiver[1])
            if base is None:
                continue
            yield _item(bound, index, line=call.line, kind="client", flavor="axios", http_method=call.name.upper(),
                        path=folder.at(facts, call.owner, call.line).fold(call.args[0]), written=call.args[0],
                        base_url=base.text if base.text else None)


#: the ``request`` package's method functions -> the HTTP method
REQUEST_VERBS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "del": "DELETE", "delete": "DELETE",
                 "head": "HEAD"}


#: AngularJS's ``$http`` shortcut methods -> the HTTP method
ANGULAR_VERBS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE", "head": "HEAD",
                 "jsonp": "GET"}


def _angular_http(facts: FileFacts, call: CallFact) -> tuple[Folded, str | None] | None:
    """(method, URL as written) of a call of AngularJS's ``$http`` service, None for any other call:
    ``$http({method, url})`` (``method`` GET when not given, as AngularJS defaults it) and ``$http.get(url)``,
    ``post``, ``put``, ``patch``, ``delete``, ``head``, ``jsonp``. The name is AngularJS's own: the framework
    reserves the ``$`` prefix for its services, and injects this one by that name (kept on ``this`` in a class:
    ``this.$http.get(url)``). A ``$http`` the file declares or imports is the project's own (an axios instance
    of that name, a wrapper), never AngularJS's injected service."""
    receiver = list(call.receiver) if call.receiver else None
    if receiver in (None, ["name", "$http"]) and _declares(facts, "$http"):
        return None
    if call.name == "$http" and receiver in (None, ["this"]):
        first = call.args[0].strip()
        if not first.startswith("{"):
            return None
        written = object_field(first, "method")
        method = ScriptFolder({}, "").fold(written) if written else literal("GET")
        if method.known and method.text.lower() in ANGULAR_VERBS:   # JSONP is a GET
            method = literal(ANGULAR_VERBS[method.text.lower()])
        return method, object_field(first, "url")
    if receiver in (["name", "$http"], ["field", ["this"], "$http"]) and call.name in ANGULAR_VERBS:
        return literal(ANGULAR_VERBS[call.name]), call.args[0]
    return None


def _declares(facts: FileFacts, name: str) -> bool:
    """Whether a file binds ``name`` at its top: a variable, a function, or an import."""
    return (name in facts.extra.get("globals", {}) or any(sym.key == name for sym in facts.symbols)
            or any(alias == name for imp in facts.imports for _, alias in imp.names))


def _request_call(facts: FileFacts, call: CallFact) -> tuple[Folded, str | None] | None:
    """(method, URL as written) of a call of the ``request`` package, None for any other call."""
    names = {alias for imp in facts.imports if imp.target == "request" for _, alias in imp.names}
    if not names:
        return None
    if call.receiver is None and call.name in names:
        method = literal("GET")
    elif call.receiver and call.receiver[0] == "name" and call.receiver[1] in names and call.name in REQUEST_VERBS:
        method = literal(REQUEST_VERBS[call.name])
    else:
        return None
    first = call.args[0].strip()
    if not first.startswith("{"):
        return method, first
    written = object_field(first, "method")
    if written is not None and call.receiver is None:
        method = ScriptFolder({}, "").fold(written)
    return method, object_field(first, "url") or object_field(first, "uri")


def _axios(project: ScriptProject, path: str, var: str) -> Folded | None:
    """The base URL of an axios receiver ("" for the axios module itself), or None when it is not axios: an
    ``axios.create(...)`` instance of this file or imported from another."""
    facts = project.files[path]
    if var == "axios" and any(i.target == "axios" for i in facts.imports):
        return literal("")
    found = project.definition(path, var)
    if found is None:
        return None
    path, var = found
    facts = project.files[path]
    type_ = facts.extra.get("globals", {}).get(var, "")
    if _callee(type_) != "axios.create":
        return None
    makers = [c for c in facts.calls if not c.owner and c.name == "create" and c.receiver == ["name", "axios"]]
    if len(makers) != 1:
        return unknown("several axios.create(...) in the file: which made this instance is not known")
    expr = object_field(makers[0].args[0], "baseURL") if makers[0].args else None
    return ScriptFolder(project.files, path).fold(expr) if expr else literal("")


def prepare(files: list[Bound], project: Project) -> Reader:
    script_project = ScriptProject(files)
    return lambda bound: read_script(script_project, bound)


FRAMEWORK = Framework("script_web", ("typescript", "javascript"), prepare)
