"""Python: FastAPI and Flask routes, and requests / httpx / aiohttp clients, read from the facts.

**Routes.** A function decorated ``@X.get(path)`` ... ``@X.api_route(path, methods=[...])`` where ``X`` is a
``FastAPI()`` app or an ``APIRouter(prefix=...)``, or ``@X.route(path, methods=[...])`` / ``@X.get(path)``
where ``X`` is a ``Flask()`` app or a ``Blueprint(url_prefix=...)``. A router's full prefix comes from
where it is mounted: ``include_router(router, prefix=...)`` (nested routers too) and
``register_blueprint(bp, url_prefix=...)`` (which replaces the blueprint's own ``url_prefix``), followed
through imports. A router mounted nowhere in the project has an unknown prefix (``{?}``); one mounted twice
gives two routes. An app or router made inside a function (an app factory, ``def create_app(): app =
Flask(__name__)``) is that function's: the routes its nested functions declare on it are its routes; one held on
an object (``self.app = FastAPI()``) is its class's, named ``self.app`` in its methods.

**Routes registered by call.** ``X.post(path)(handler)`` (a route decorator applied by hand, ``route`` and
``api_route`` too), ``X.add_api_route(path, handler, methods=[...])``, ``X.add_route(...)``, Flask's
``X.add_url_rule(rule, endpoint, view_func, methods=[...])`` and Starlette ``Route(path, endpoint, methods=[...])``
objects (under an unknown prefix in a service that has a ``Mount(...)``). The handler is the function or method
the argument names (``f``, ``self.m``, ``module.f``, imported); anything else (a call's result, a name from outside
the project) leaves the route with its handler unknown, saying so, declared where it is registered.

**Clients.** ``requests``/``httpx`` module calls (``get``... ``request(method, url)``), also imported by name
(``from requests import get``; ``from aiohttp import request``), and calls on a
``httpx.Client``/``AsyncClient``, ``requests.Session`` or ``aiohttp.ClientSession`` made in the same
function or module (``with ... as client`` too), whose ``base_url`` prefixes the path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..languages.folding import Folded, literal, unknown
from ..languages.python.constants import PythonFolder, argument, import_target, namespace_names
from ..languages.symbols import Bound
from ..model import CallFact, FileFacts
from ..services.endpoints import Item, join_paths
from .base import FileMemo, Framework, Project, Reader

ROUTE_VERBS = {"get", "post", "put", "delete", "patch", "head", "options"}
APPS = {"FastAPI": "fastapi", "APIRouter": "fastapi", "Flask": "flask", "Blueprint": "flask",
        "Starlette": "starlette"}
WEB_PACKAGES = ("fastapi", "flask", "starlette")
#: the methods that register a handler on an app or router by call: (path's position, handler's position, keyword)
REGISTERS = {"add_api_route": (0, 1, "endpoint"), "add_route": (0, 1, "endpoint"),
             "add_url_rule": (0, 2, "view_func")}
#: route objects listed for an app or router (``routes=[Route("/x", fn, methods=[...])]``)
ROUTE_OBJECTS = {"Route", "APIRoute"}
CLIENT_MODULES = {"requests": "requests", "httpx": "httpx"}
CLIENT_TYPES = {"httpx.Client": "httpx", "httpx.AsyncClient": "httpx", "requests.Session": "requests",
                "requests.session": "requests", "aiohttp.ClientSession": "aiohttp"}
CLIENT_CALLS = ROUTE_VERBS | {"request"}
CLIENT_LIBRARIES = frozenset({"requests", "httpx", "aiohttp"})
#: the sending functions each library exposes at its top level (``aiohttp.request(method, url)`` only)
MODULE_CALLS = {"requests": CLIENT_CALLS, "httpx": CLIENT_CALLS, "aiohttp": frozenset({"request"})}


def kwarg(args: tuple[str, ...], name: str) -> str | None:
    for arg in args:
        match = re.match(rf"^{name}\s*=\s*(.+)$", arg, re.DOTALL)
        if match:
            return match.group(1)
    return None


def positional(args: tuple[str, ...]) -> list[str]:
    return [a for a in args if not re.match(r"^[A-Za-z_]\w*\s*=(?!=)", a)]


def _string_list(text: str | None) -> list[str]:
    return re.findall(r"['\"]([A-Za-z]+)['\"]", text or "")


#: a ``methods=`` list written out: quoted names only (``["GET", 'POST']``, a tuple or a set)
_LITERAL_METHODS = re.compile(r"""[\[({]\s*(?:(['"])[A-Za-z]+\1\s*,?\s*)*[\])}]""")


def _methods(args: tuple[str, ...], default: str | None = "GET") -> tuple[list[str | None], list[str]]:
    """The HTTP methods a route's ``methods=`` lists, with what is not known of them: ``default`` when none is
    given (None: not known, the handler decides); one unknown method when the list is not written out
    (``methods=ALLOWED``), saying so, never GET in its place."""
    given = kwarg(args, "methods")
    if given is None:
        return [default], [] if default else ["no methods are given and the handler is not read: which HTTP "
                                              "methods the route serves is not known"]
    if _LITERAL_METHODS.fullmatch(given.strip()):
        return [m.upper() for m in _string_list(given)] or [None], []
    return [None], [f"its methods ({given}) are not written out: which HTTP methods the route serves is not known"]


@dataclass
class Router:
    module: str
    var: str
    framework: str
    own_prefix: Folded
    is_app: bool
    #: (parent router key, mount prefix, replaces own prefix, the ``if`` it is mounted under or "") for each mount
    mounts: list[tuple[tuple[str, str], Folded, bool, str]] = field(default_factory=list)


def _web_aliases(bound: Bound) -> set[str]:
    """The names fastapi and flask are known by in the file (none: the file makes no app or router)."""
    return {alias for imp in bound.facts.imports if imp.target.startswith(WEB_PACKAGES)
            for _, alias in imp.names}


def _mount_calls(bound: Bound) -> list[CallFact]:
    """The file's ``x.include_router(...)`` and ``x.register_blueprint(...)`` calls."""
    return [call for call in bound.facts.calls if call.name in ("include_router", "register_blueprint")
            and call.args and call.receiver and call.receiver[0] == "name"]


def _route_annotations(bound: Bound) -> list[int]:
    """The functions of the file with a decorator that may declare a route (``@x.get``, ``@x.route`` ...)."""
    return [index for index, sym in enumerate(bound.facts.symbols) if sym.kind in ("function", "method") and any(
        a.name.rpartition(".")[0] and a.name.rpartition(".")[2] in ROUTE_VERBS | {"route", "api_route"}
        for a in sym.annotations)]


def _callee(type_: str) -> str:
    return type_[1:-2] if type_.startswith("~") and type_.endswith("()") else ""


class PythonProject:
    """The Python files of the project, their routers and where each is mounted."""

    def __init__(self, bounds: list[Bound], memo: FileMemo) -> None:
        self.bounds = bounds
        self.memo = memo
        self.modules: dict[str, FileFacts] = {b.ctx.module_name: b.facts for b in bounds}
        self.namespaced = namespace_names({b.path: b.ctx.module_name for b in bounds})
        self.routers: dict[tuple[str, str], Router] = {}
        self.bounds_by_module: dict[str, Bound] = {b.ctx.module_name: b for b in bounds}
        #: services with a ``Mount(...)``: a route object's list may sit under a prefix there
        self.mounting: set[str] = set()
        for bound in bounds:
            if memo.get("python_web.web_aliases", bound, _web_aliases):
                self._routers_of(bound)
                if any(call.name == "Mount" for call in bound.facts.calls):
                    self.mounting.add(bound.ctx.microservice)
        for bound in bounds:
            for call in memo.get("python_web.mount_calls", bound, _mount_calls):
                self._mount(bound, call)

    def folder(self, module: str) -> PythonFolder:
        return PythonFolder(self.modules, module)

    def _routers_of(self, bound: Bound) -> None:
        facts, module = bound.facts, bound.ctx.module_name
        aliases = self.memo.get("python_web.web_aliases", bound, _web_aliases)

        def may_be_app(type_: str) -> bool:  # cheap first look: an app's name, or fastapi/flask under another
            callee = _callee(type_)
            return bool(callee) and (callee.rsplit(".", 1)[-1] in APPS or callee.partition(".")[0] in aliases)

        made = [("", var, type_) for var, type_ in facts.extra.get("globals", {}).items() if may_be_app(type_)]
        made += [(owner, var, type_) for owner, table in facts.locals.items() for var, seen in table.items()
                 for _, type_ in seen if may_be_app(type_)]
        # an app held on an object (``self.app = FastAPI()``): the class's, named ``self.app`` in its methods
        made += [(sym.parent, f"self.{sym.name}", sym.type) for sym in facts.symbols
                 if sym.kind == "field" and sym.parent and may_be_app(sym.type)]
        classes = {sym.key for sym in facts.symbols if sym.kind == "class"}
        for owner, var, type_ in made:
            callee = self.imported(facts, module, _callee(type_))
            name = callee.rsplit(".", 1)[-1]
            if name not in APPS or not (callee.startswith(WEB_PACKAGES) or callee == name):
                continue
            calls = [c for c in facts.calls if c.name == name and (
                c.owner == owner or owner in classes and c.owner.startswith(f"{owner}."))]
            var = f"{owner}:{var}" if owner else var
            own = literal("")
            if name in ("APIRouter", "Blueprint"):
                key = "prefix" if name == "APIRouter" else "url_prefix"
                if len(calls) == 1:
                    expr = kwarg(calls[0].args, key)
                    own = self.folder(module).fold(expr) if expr else literal("")
                else:
                    own = unknown(f"{len(calls)} {name}(...) calls in the module: which is {var}'s is not known")
            self.routers[(module, var)] = Router(module, var, APPS[name], own, name in ("FastAPI", "Flask"))

    def imported(self, facts: FileFacts, module: str, dotted: str) -> str:
        """A dotted name with its first part replaced by what it was imported as (``APIRouter`` ->
        ``fastapi.APIRouter``)."""
        head, _, rest = dotted.partition(".")
        for imp in facts.imports:
            for imported, alias in imp.names:
                if alias == head:
                    target = import_target(module, imp.target, facts.path.endswith("__init__.py"),
                                           self.modules.__contains__)
                    full = imported if imported == imp.target else f"{target}.{imported}"
                    return f"{full}.{rest}" if rest else full
        return dotted

    def resolve_var(self, facts: FileFacts, module: str, expr: str, scope: str = "") -> tuple[str, str] | None:
        """The router an expression names in the symbol ``scope``: a local of it or of a function around it, a
        module variable, an imported one, or ``module.var``."""
        expr = expr.strip()
        parents = {sym.key: sym.parent or "" for sym in facts.symbols} if scope else {}
        while scope:
            if (module, f"{scope}:{expr}") in self.routers:
                return module, f"{scope}:{expr}"
            scope = parents.get(scope, "")
        if (module, expr) in self.routers:
            return module, expr
        full = self.imported(facts, module, expr)
        owner, _, var = full.rpartition(".")
        owner = owner if owner in self.modules else self.namespaced.get(owner, owner)
        if (owner, var) in self.routers:
            return owner, var
        return None

    def _mount(self, bound: Bound, call: CallFact) -> None:
        facts, module = bound.facts, bound.ctx.module_name
        parent = self.resolve_var(facts, module, call.receiver[1], call.owner)
        args = positional(call.args)
        child = self.resolve_var(facts, module, args[0], call.owner) if args else None
        if parent is None or child is None:
            return
        key = "prefix" if call.name == "include_router" else "url_prefix"
        expr = kwarg(call.args, key)
        prefix = self.folder(module).fold(expr) if expr else literal("")
        guard = facts.extra.get("guards", {}).get(f"{call.line}:{call.name}", "")
        self.routers[child].mounts.append((parent, prefix, call.name == "register_blueprint" and expr is not None,
                                           f"{guard} ({facts.path}:{call.line})" if guard else ""))

    def prefixes(self, key: tuple[str, str], depth: int = 0) -> list[tuple[Folded, str]]:
        """Every full prefix of a router (one per way it is mounted up to an app), with the conditions it is
        mounted under on the way ("" when always)."""
        router = self.routers[key]
        if router.is_app:
            return [(router.own_prefix, "")]
        if not router.mounts or depth > 8:
            return [(unknown(f"the router {router.module}.{router.var} is not mounted anywhere in the project")
                     + router.own_prefix, "")]
        out = []
        for parent, prefix, replaces, guard in router.mounts:
            for above, above_guard in self.prefixes(parent, depth + 1):
                out.append((join_paths([above, prefix] if replaces else [above, prefix, router.own_prefix]),
                            "; ".join(g for g in (above_guard, guard) if g)))
        return out


def read_python(project: PythonProject, bound: Bound) -> Iterator[Item]:
    facts, module = bound.facts, bound.ctx.module_name
    routes = project.memo.get("python_web.route_annotations", bound, _route_annotations)
    candidates = project.memo.get("python_web.client_names", bound, lambda b: _client_names(b.facts))
    registering = project.memo.get("python_web.registering_calls", bound, _registering_calls)
    if not routes and not candidates and not registering:
        return
    folder = project.folder(module)
    yield from _registered(project, bound, folder, registering)
    for index in routes:
        sym = facts.symbols[index]
        for annotation in sym.annotations:
            var, _, verb = annotation.name.rpartition(".")
            if verb not in ROUTE_VERBS | {"route", "api_route"} or not var:
                continue
            key = project.resolve_var(facts, module, var, sym.parent or "")
            if key is None:
                continue
            router = project.routers[key]
            args = tuple(v if not k else f"{k}={v}" for k, v in annotation.args)
            written = (positional(args) or [kwarg(args, "path") or '""'])[0]
            path = folder.fold(written)
            methods, problems = ([verb.upper()], []) if verb in ROUTE_VERBS else _methods(args)
            for prefix, guard in project.prefixes(key):
                for method in methods:
                    yield Item(kind="route", owner=bound.ids[index], owner_fqn=bound.fqns[index],
                               microservice=bound.ctx.microservice, module=bound.ctx.module, file=bound.path,
                               line=sym.line_start, flavor=router.framework, http_method=method,
                               path=join_paths([prefix, path]), written=written, condition=guard or None,
                               problems=list(problems))
    yield from _clients(project, bound, folder, candidates)


def _registering_calls(bound: Bound) -> list[CallFact]:
    """The file's calls that may register a route by call: ``x.add_api_route(...)``, ``x.add_url_rule(...)``,
    ``x.add_route(...)``, ``x.post(path)`` whose result is called (``app.post("/x")(handler)``) and
    ``Route(...)`` objects (none: the file imports no web framework)."""
    if not _web_aliases(bound):
        return []
    applied = {(owner, line, name) for owner, line, name, _ in bound.facts.extra.get("applied", [])}
    return [call for call in bound.facts.calls
            if call.receiver is not None and (call.name in REGISTERS or (call.owner, call.line, call.name) in applied
                                              and call.name in ROUTE_VERBS | {"route", "api_route"})
            or call.receiver is None and call.name in ROUTE_OBJECTS]


def _receiver_text(receiver) -> str | None:
    """A receiver of names and attributes as written (``app``, ``self.app``, ``server.api``); None otherwise."""
    if receiver and receiver[0] == "name":
        return receiver[1]
    if receiver and receiver[0] == "field":
        inner = _receiver_text(receiver[1])
        return f"{inner}.{receiver[2]}" if inner else None
    return None


def _registered(project: PythonProject, bound: Bound, folder: PythonFolder,
                calls: list[CallFact]) -> Iterator[Item]:
    """The routes registered by call (see `_registering_calls`), each served by the function or method its
    handler argument names; a handler that names none of the project's is left unknown, saying so."""
    facts, module = bound.facts, bound.ctx.module_name
    applied = {(owner, line, name): tuple(args) for owner, line, name, args in facts.extra.get("applied", [])}
    for call in calls:
        args = call.args
        if call.receiver is None:
            if not project.imported(facts, module, call.name).startswith(WEB_PACKAGES):
                continue
            flavor = "starlette"
            prefixes = [(unknown("the service mounts route lists under Mount(...): which prefix is this one's is "
                                 "not read"), "")] if bound.ctx.microservice in project.mounting else [(literal(""), "")]
            written = _nth(args, 0, "path")
            handler = _nth(args, 1, "endpoint")
            by_handler = True   # no methods: a function's GET, an endpoint class's every one it defines
        else:
            var = _receiver_text(call.receiver)
            key = project.resolve_var(facts, module, var, call.owner) if var else None
            if key is None:
                continue
            router = project.routers[key]
            flavor, prefixes = router.framework, project.prefixes(key)
            if call.name in REGISTERS:
                path_at, handler_at, keyword = REGISTERS[call.name]
                written = _nth(args, path_at, "rule" if call.name == "add_url_rule" else "path")
                handler = _nth(args, handler_at, keyword)
                # FastAPI's add_api_route serves GET by default whatever the handler; Flask's add_url_rule and
                # Starlette's add_route take the methods of a view or endpoint class
                by_handler = call.name != "add_api_route"
            else:
                handler = _nth(applied.get((call.owner, call.line, call.name), ()), 0, "")
                written = _nth(args, 0, "path")
                by_handler = False
        if written is None:
            continue
        served = _handler(project, bound, call.owner, handler) if handler else None
        problems = [] if served is not None else [
            f"the handler {handler or '(none given)'} is not a function or method of the project: which one "
            f"serves the route is not known"]
        if call.receiver is not None and call.name in ROUTE_VERBS:
            methods: list[str | None] = [call.name.upper()]
        else:
            methods, unread = _methods(args, "GET" if served is not None or not by_handler else None)
            problems += unread
        where = served or (bound, bound.by_key.get(call.owner, -1))
        site, index = where
        path = folder.fold(written)
        own = facts.extra.get("guards", {}).get(f"{call.line}:{call.name}", "")
        own = f"{own} ({facts.path}:{call.line})" if own else ""
        for prefix, guard in prefixes:
            condition = "; ".join(g for g in (guard, own) if g) or None
            for method in methods:
                yield Item(kind="route", owner=site.ids[index] if index >= 0 else site.file_id,
                           owner_fqn=site.fqns[index] if index >= 0 else site.file_fqn,
                           microservice=bound.ctx.microservice, module=bound.ctx.module, file=bound.path,
                           line=call.line, flavor=flavor, http_method=method, path=join_paths([prefix, path]),
                           written=written, problems=list(problems), condition=condition)


def _nth(args: tuple[str, ...], position: int, keyword: str) -> str | None:
    """An argument given by keyword, else the ``position``-th positional one; None when not given."""
    given = kwarg(args, keyword) if keyword else None
    if given is not None:
        return given
    plain = positional(args)
    return plain[position] if position < len(plain) else None


def _handler(project: PythonProject, bound: Bound, scope: str, expr: str) -> tuple[Bound, int] | None:
    """The function or method a handler expression names where it is written (in symbol ``scope``):
    ``self.m`` / ``cls.m`` a method of the class around it, ``f`` a function in a scope around it or of the
    module, or one imported (``views.f``, ``from views import f``); None for anything else, and for a name a
    parameter or local variable of a scope around it holds (it shadows any function of that name)."""
    expr = expr.strip()
    facts, module = bound.facts, bound.ctx.module_name
    syms = {sym.key: sym for sym in facts.symbols}

    def callable_(site: Bound, key: str) -> tuple[Bound, int] | None:
        index = site.by_key.get(key)
        if index is None or site.facts.symbols[index].kind not in ("function", "method"):
            return None
        return site, index

    method = re.fullmatch(r"(?:self|cls)\.([A-Za-z_]\w*)", expr)
    if method:
        cls = syms.get(scope)
        while cls is not None and cls.kind != "class":
            cls = syms.get(cls.parent or "")
        return callable_(bound, f"{cls.key}.{method.group(1)}") if cls is not None else None
    if not re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", expr):
        return None
    head = expr.split(".", 1)[0]
    while scope:
        found = callable_(bound, f"{scope}.{expr}")
        if found is not None:
            return found
        if head in facts.locals.get(scope, {}) or scope in syms and any(
                name.lstrip("*") == head for name, _ in syms[scope].params):
            return None     # a parameter or local variable: a value made at run time, not the module's namesake
        scope = syms[scope].parent or "" if scope in syms else ""
    if expr in bound.by_key:
        return callable_(bound, expr)
    full = project.imported(facts, module, expr)
    for cut in range(full.count("."), 0, -1):    # module.function, or module.Class.method
        parts = full.split(".")
        owner, key = ".".join(parts[:cut]), ".".join(parts[cut:])
        if owner in project.bounds_by_module:
            return callable_(project.bounds_by_module[owner], key)
    return None


def _client_names(facts: FileFacts) -> set[str]:
    """Names in this file that may be an HTTP client: the client libraries as imported, and variables whose
    value is one of their clients. A file that imports none of them is skipped (a cheap first look)."""
    names = {alias for imp in facts.imports for imported, alias in imp.names
             if imported.split(".")[0] in CLIENT_LIBRARIES or imp.target.split(".")[0] in CLIENT_LIBRARIES}
    if not names:
        return names
    for var, type_ in facts.extra.get("globals", {}).items():
        if _callee(type_):
            names.add(var)
    for owner_locals in facts.locals.values():
        for var, seen in owner_locals.items():
            if any(_callee(t) for _, t in seen):
                names.add(var)
    return names


def _clients(project: PythonProject, bound: Bound, folder: PythonFolder, candidates: set[str]) -> Iterator[Item]:
    facts, module = bound.facts, bound.ctx.module_name
    if not candidates:
        return
    by_key = {sym.key: index for index, sym in enumerate(facts.symbols)}
    for call in facts.calls:
        verb, kind, base = call.name, None, None
        if call.receiver is None:
            if call.name not in candidates:
                continue
            # a sender imported by name (``from requests import get``, ``from httpx import post as send``)
            library, _, verb = project.imported(facts, module, call.name).rpartition(".")
            kind = library if verb in MODULE_CALLS.get(library, ()) else None
        elif call.name in CLIENT_CALLS and call.receiver[0] == "name" and call.receiver[1] in candidates:
            var = call.receiver[1]
            kind = CLIENT_MODULES.get(project.imported(facts, module, var))
            if kind is None:
                type_ = _local_type(facts, call.owner, var, call.line)
                full = project.imported(facts, module, _callee(type_)) if type_ else ""
                if full in CLIENT_TYPES:
                    kind = CLIENT_TYPES[full]
                    owner = call.owner if call.owner in (facts.locals or {}) and var in facts.locals[call.owner] \
                        else ""
                    makers = [c for c in facts.calls if c.owner == owner and
                              project.imported(facts, module, _dotted(c)) == full]
                    if len(makers) == 1:
                        expr = kwarg(makers[0].args, "base_url")
                        base = folder.fold(expr) if expr else None
        if kind is None:
            continue
        args = positional(call.args)
        if verb == "request":
            method_expr, url_expr = (args + ["", ""])[:2]
            method_value = folder.fold(method_expr) if method_expr else unknown("no method")
            method = method_value.text.upper() if method_value.known else None
        else:
            method, url_expr = verb.upper(), (args[0] if args else kwarg(call.args, "url") or "")
        if not url_expr:
            continue
        owner_index = by_key.get(call.owner)
        if owner_index is None:
            continue
        url = folder.at(facts, call.owner, call.line).fold(url_expr)
        carried = list(_carried(project, bound, call, url_expr.strip(), kind, method)) \
            if not url.known and _CARRIED.fullmatch(url_expr.strip()) else []
        yield from carried
        where = ", ".join(f"{c.file}:{c.line}" for c in carried)
        yield Item(kind="client", owner=bound.ids[owner_index], owner_fqn=bound.fqns[owner_index],
                   microservice=bound.ctx.microservice, module=bound.ctx.module, file=bound.path, line=call.line,
                   flavor=kind, http_method=method, path=url, written=url_expr,
                   base_url=base.text if base is not None else None,
                   problems=[f"the URL is carried in objects built elsewhere: read as the clients where they are "
                             f"built ({where})"] if carried else [])


_CARRIED = re.compile(r"self(?:\.[A-Za-z_]\w*)+")


def _carried(project: PythonProject, bound: Bound, call: CallFact, url_expr: str, kind: str,
             method: str | None) -> Iterator[Item]:
    """A URL carried in an object (``get(url=self.request.url)``: ``self.request`` is an ``__init__`` parameter,
    ``ApiRequest(url=...)`` what every construction passes for it): one client at each place that builds the
    object holding the URL, with the value passed there, declared by the function that builds it. Only where
    every step is certain: each attribute is an ``__init__`` parameter kept as is, every construction of the
    class in the project passes it, by keyword or position, and a nested object is built in the argument
    itself; otherwise nothing (the sender stays the one client, unresolved, saying why)."""
    syms = {s.key: s for s in bound.facts.symbols}
    sender = syms.get(call.owner)
    cls = syms.get(sender.parent or "") if sender is not None else None
    if cls is None or cls.kind != "class":
        return
    sites = _follow(project, bound, cls, url_expr.split(".")[1:], None, 0)
    for site, made, expr in sites or ():
        index = next((i for i, sym in enumerate(site.facts.symbols) if sym.key == made.owner), None)
        if index is None:
            continue
        url = project.folder(site.ctx.module_name).at(site.facts, made.owner, made.line).fold(expr)
        yield Item(kind="client", owner=site.ids[index], owner_fqn=site.fqns[index],
                   microservice=site.ctx.microservice, module=site.ctx.module, file=site.path, line=made.line,
                   flavor=kind, http_method=method, path=url, written=expr)


def _follow(project: PythonProject, bound: Bound, cls, attrs: list[str], only: tuple[Bound, CallFact] | None,
            depth: int) -> list[tuple[Bound, CallFact, str]] | None:
    """(site, construction call, expression passed) for ``attrs[0]`` of class ``cls`` (of ``bound``), followed
    through nested constructions for the rest; None when a step is not certain (see `_carried`)."""
    init = next((s for s in bound.facts.symbols if s.parent == cls.key and s.kind == "constructor"), None)
    if init is None or depth > 4 or cls.annotations:
        return None
    params = [name for name, _ in init.params]
    kept = bound.facts.extra.get("assigns", {}).get(init.key, {}).get(f"self.{attrs[0]}", [])
    if len(kept) != 1 or len(kept[0][1]) != 1 or kept[0][1][0] not in params:
        return None
    param = kept[0][1][0]
    if any(p.startswith("*") for p in params) or any(
            written.rsplit(".", 1)[-1] == cls.name for b in project.bounds for sym in b.facts.symbols
            for _, written in sym.supers):
        return None
    key = bound.ctx.module_name
    makes = [only] if only is not None else [
        (site, c) for site in project.bounds for c in site.facts.calls
        if c.name == cls.name and c.kind == "call" and c.receiver is None and (
            site.ctx.module_name == key or project.folder(key).imported(site.facts, site.ctx.module_name, cls.name)
            == (key, cls.name))]
    if not makes:
        return None
    out: list[tuple[Bound, CallFact, str]] = []
    for site, made in makes:
        arg = argument(made, params.index(param), param)
        if arg is None:
            return None
        if len(attrs) == 1:
            out.append((site, made, arg))
            continue
        built = re.match(r"^\s*([A-Za-z_]\w*)\s*\(", arg)
        inner = [c for c in site.facts.calls if built and c.owner == made.owner and c.name == built.group(1)
                 and c.argc == len(c.args) and _bare(f"{c.name}({','.join(c.args)})") == _bare(arg)]
        where = _class_named(project, site, built.group(1)) if built and len(inner) == 1 else None
        found = _follow(project, where[0], where[1], attrs[1:], (site, inner[0]), depth + 1) if where else None
        if found is None:
            return None
        out += found
    return out


def _bare(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _class_named(project: PythonProject, site: Bound, name: str) -> tuple[Bound, object] | None:
    """The project class ``name`` means in ``site``'s module: its own, or one it imports."""
    module = site.ctx.module_name
    where = project.folder(module).imported(site.facts, module, name)
    key, wanted = where if where is not None else (module, name)
    found = next((b for b in project.bounds if b.ctx.module_name == key), None)
    cls = next((s for s in found.facts.symbols if s.name == wanted and s.kind == "class" and not s.parent),
               None) if found is not None else None
    return (found, cls) if cls is not None else None


def _dotted(call) -> str:
    receiver = call.receiver
    if receiver and receiver[0] == "name":
        return f"{receiver[1]}.{call.name}"
    return call.name if receiver is None else ""


def _local_type(facts: FileFacts, owner: str, var: str, line: int) -> str:
    seen = [(ln, t) for ln, t in facts.locals.get(owner, {}).get(var, []) if ln <= line and t != "?"]
    if seen:
        return max(seen)[1]
    return facts.extra.get("globals", {}).get(var, "")


def prepare(files: list[Bound], project: Project) -> Reader:
    python_project = PythonProject(files, project.memo)
    return lambda bound: read_python(python_project, bound)


FRAMEWORK = Framework("python_web", ("python",), prepare)
