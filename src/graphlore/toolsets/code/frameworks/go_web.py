"""Go: HTTP routes of net/http, gorilla/mux, gin, echo and chi, net/http clients, and Kafka producers and
consumers of sarama, segmentio/kafka-go and confluent-kafka-go, read from the facts.

**Routes.** A router is a value made by ``http.NewServeMux()`` (or the package-level ``http.HandleFunc``),
``mux.NewRouter()``, ``gin.Default()``/``gin.New()``, ``echo.New()`` or ``chi.NewRouter()``, or a parameter of
their types; groups add their prefix (``r.PathPrefix("/api").Subrouter()``, ``r.Group("/v1")``, chi's
``r.Route("/api", func(r chi.Router) {...})``), and so does a mount in the function that made the router (chi
``root.Mount("/api", api)``, ``mux.Handle("/api/", http.StripPrefix("/api", api))``; under each of two mounts; a
mount through another call, ``Mount("/api", wrap(api))``, leaves the prefix unknown), or, for a router a function
makes and returns, a mount of a call of that function (``root.Mount("/api", api.New())``). Registrations: ``HandleFunc``/``Handle`` (net/http: a Go 1.22
pattern ``"GET /items/{id}"`` gives the method; gorilla: a chained ``.Methods(...)``; else any method; gorilla's
``r.PathPrefix(p).Handler(h)`` serves every path under ``p``: ``ANY p/**``; gin's ``Static``/``StaticFS`` and
echo's ``Static`` serve ``GET p/*``, gin's ``StaticFile`` and echo's ``File`` ``GET p``), gin and
echo ``GET``/``POST``/.../``Any``/``Handle(method, ...)``, chi ``Get``/``Post``/.../``Method(method, ...)``.
gorilla's builder chain ``r.Methods("GET").Path("/x").Name(n).Handler(h)`` (in any order), on a router made
with settings (``mux.NewRouter().StrictSlash(true)``); echo ``Add(method, ...)``. A registration in a ``for ...
range`` loop over a table of entries (``routes = []Route{{"Index", "GET", "/", Index}}``, keyed or positional, a
map of paths to handlers, `go_tables`) makes one route per entry.
The handler is the function or method the handler argument names, else the registering function.

**Clients.** ``http.Get``/``Head``/``Post``/``PostForm`` and ``http.NewRequest(...)`` (``WithContext`` too),
and the same calls on an ``http.Client``: the URL folded with the package's constants (a value read at run
time is ``{?}``).

**Kafka.** sarama ``SendMessage(&sarama.ProducerMessage{Topic: ...})``, the async producer's ``p.Input() <-
&sarama.ProducerMessage{...}`` (or a local made so), ``ConsumePartition(topic, ...)`` and a consumer group's
``Consume(ctx, []string{...}, ...)`` (or a local made so); segmentio ``kafka.NewWriter``/``kafka.Writer{Topic}``
with ``WriteMessages`` and ``kafka.NewReader(kafka.ReaderConfig{Topic})``; confluent ``Produce`` with a
``TopicPartition{Topic: ...}`` and ``Subscribe``/``SubscribeTopics``. Kafka written through the project's own code
(wrappers, consumers branching on the topic, topics from viper config fields) is `go_kafka`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import Folded, literal, split_top, unknown
from ..languages.symbols import Bound
from ..model import CallFact
from ..services.endpoints import ANY, HTTP_METHODS, Item, join_paths
from .base import Framework, Project, Reader, item
from .go_kafka import GoKafka
from .go_tables import Source, Tables, mentions_loop
from .golang import GoProject, local, written_type

HTTP = "net/http"
ROUTERS = {
    (HTTP, "NewServeMux"): "net_http", ("github.com/gorilla/mux", "NewRouter"): "gorilla_mux",
    ("github.com/gin-gonic/gin", "Default"): "gin", ("github.com/gin-gonic/gin", "New"): "gin",
    ("github.com/labstack/echo", "New"): "echo", ("github.com/go-chi/chi", "NewRouter"): "chi",
}
ROUTER_TYPES = {
    (HTTP, "ServeMux"): "net_http", ("github.com/gorilla/mux", "Router"): "gorilla_mux",
    ("github.com/gin-gonic/gin", "Engine"): "gin", ("github.com/gin-gonic/gin", "RouterGroup"): "gin",
    ("github.com/gin-gonic/gin", "IRouter"): "gin", ("github.com/gin-gonic/gin", "IRoutes"): "gin",
    ("github.com/labstack/echo", "Echo"): "echo", ("github.com/labstack/echo", "Group"): "echo",
    ("github.com/go-chi/chi", "Router"): "chi", ("github.com/go-chi/chi", "Mux"): "chi",
}
#: types whose values are a whole router (prefix ""), not a group of one (prefix unknown when passed in)
ROOT_TYPES = {"ServeMux", "Router", "Engine", "Echo", "Mux"}
VERBS = {"GET": "GET", "POST": "POST", "PUT": "PUT", "DELETE": "DELETE", "PATCH": "PATCH", "HEAD": "HEAD",
         "OPTIONS": "OPTIONS", "Get": "GET", "Post": "POST", "Put": "PUT", "Delete": "DELETE", "Patch": "PATCH",
         "Head": "HEAD", "Options": "OPTIONS"}
GROUPS = {"Group", "PathPrefix", "Subrouter", "Route", "With"}
#: gin's and echo's registrations of static files (``r.Static("/assets", "./web/assets")``, ``StaticFile``)
STATIC = ("Static", "StaticFS", "StaticFile", "File")
SUBROUTER = re.compile(r"^(\w+)\.PathPrefix\((.*)\)\.Subrouter$")
STRIP_PREFIX = re.compile(r"^http\.StripPrefix\((.+),\s*(\w+)\)$")
#: gorilla's settings that return the router they are called on: ``mux.NewRouter().StrictSlash(true)``
SETTING = re.compile(r"^(.+\))\.(?:StrictSlash|SkipClean|UseEncodedPath)(?:\(\))?$")
ONE_CALL = re.compile(r"^((?:\w+\.)?\w+)\([^()]*\)$")
CLIENT_CALLS = {"Get": "GET", "Head": "HEAD", "Post": "POST", "PostForm": "POST"}


def _module(path: str) -> str:
    """An import path without its major version (``github.com/labstack/echo/v4`` -> ``.../echo``)."""
    return re.sub(r"/v\d+$", "", path)


class GoWeb:
    """The Go files of the project with what reading their routes needs."""

    def __init__(self, bounds: list[Bound], config: dict[str, dict] | None = None) -> None:
        self.go = GoProject(bounds)
        self.tables = Tables(self.go.packages, bounds)
        self.kafka = GoKafka(self.go, bounds, config or {})   # module -> its viper config fields
        self.mounts = [(b, c) for b in bounds if not b.facts.extra.get("generated")
                       for c in b.facts.calls if c.name == "Mount" and len(c.args) == 2 and c.owner]

    def qualified(self, bound: Bound, written: str) -> tuple[str, str] | None:
        """(import path without version, name) of ``pkg.Name`` as written, None when not qualified."""
        head, dot, name = written.lstrip("*&~").removesuffix("()").rpartition(".")
        if not dot or "." in head:
            return None
        package = self.go.packages.package_of(bound, head)
        return (_module(package), name) if package is not None else None

    def router(self, bound: Bound, owner: str, receiver, line: int, depth: int = 0) -> tuple[str, list[Folded]] | None:
        """(framework, prefixes) of a receiver that is a router or a group of one, else None."""
        if depth > 6 or receiver is None:
            return None
        if receiver[0] == "call" and receiver[2] in GROUPS | {"Subrouter"}:
            return None   # a chained registration on a group made inline: read through the group call
        if receiver[0] != "name":
            if receiver[0] == "field":
                typed = written_type(self.go.packages, bound, owner, receiver, line)
                key = self.qualified(bound, typed) if typed else None
                if key in ROUTER_TYPES:
                    return ROUTER_TYPES[key], [literal("") if key[1] in ROOT_TYPES else unknown(
                        f"the prefix of the router in {receiver[2]} is set elsewhere")]
            return None
        name = receiver[1]
        if name == "http" and self.go.packages.package_of(bound, "http") == HTTP:
            return "net_http", [literal("")]
        typed = written_type(self.go.packages, bound, owner, ["name", name], line) or \
            bound.facts.extra.get("globals", {}).get(name, "")
        if typed.startswith("~"):
            callee = typed[1:-2]
            while SETTING.match(callee):
                callee = SETTING.match(callee).group(1).removesuffix("()")
            chained = SUBROUTER.match(callee)
            if chained:   # gorilla: r.PathPrefix("/api").Subrouter()
                parent = self.router(bound, owner, ["name", chained.group(1)], line, depth + 1)
                if parent is None:
                    return None
                prefix = self.go.fold(bound, chained.group(2))
                return parent[0], [join_paths([p, prefix]) for p in parent[1]]
            key = self.qualified(bound, callee)
            if key in ROUTERS:
                return ROUTERS[key], self.mounted(bound, owner, name, depth)
            head, _, method = callee.rpartition(".")
            if method in GROUPS and head and re.fullmatch(r"\w+(?:\.\w+)*", head):
                # a group of a router variable (``api := r.Group("/api")``) or of a field (``r.svr.Group(...)``)
                maker = self.maker(bound, owner, name, method, _receiver(head), line)
                parent = self.router(bound, owner, _receiver(head), maker.line if maker else line, depth + 1)
                if parent is None:
                    return None
                prefix = self.go.fold(bound, maker.args[0]) if maker is not None and maker.args else literal("")
                return parent[0], [join_paths([p, prefix]) for p in parent[1]]
            return None
        key = self.qualified(bound, typed) if typed else None
        if key in ROUTER_TYPES:
            prefix = literal("") if key[1] in ROOT_TYPES else unknown(f"{name} is a group made elsewhere")
            return ROUTER_TYPES[key], [prefix]
        return None

    def mounted(self, bound: Bound, owner: str, var: str, depth: int) -> list[Folded]:
        """The prefixes a router made in this function serves under: each ``parent.Mount(prefix, var)`` (chi) or
        ``parent.Handle(pattern, http.StripPrefix(prefix, var))`` of the function, else ``""`` (the root router). A
        mount that hands the router through something else (``Mount("/api", wrap(var))``) leaves it unknown."""
        out: list[Folded] = []
        for call in bound.facts.calls:
            if call.owner != owner or len(call.args) != 2 or not re.search(rf"\b{re.escape(var)}\b", call.args[1]):
                continue
            handed = call.args[1].strip()
            stripped = STRIP_PREFIX.match(handed)
            if call.name == "Mount" and handed == var:
                prefix = self.go.fold(bound, call.args[0], owner, call.line)
            elif call.name == "Handle" and stripped and stripped.group(2) == var:
                prefix = self.go.fold(bound, stripped.group(1), owner, call.line)
            elif call.name == "Mount":
                out.append(unknown(f"{var} is mounted at {call.args[0][:40]} through {handed[:40]}"))
                continue
            else:
                continue
            parent = self.router(bound, owner, call.receiver, call.line, depth + 1)
            out += [join_paths([p, prefix]) for p in parent[1]] if parent is not None else [
                unknown(f"{var} is mounted at {call.args[0][:40]} on a router made elsewhere")]
        return out or self.returned(bound, owner, depth) or [literal("")]

    def returned(self, bound: Bound, owner: str, depth: int) -> list[Folded]:
        """The prefixes of the mounts of a call of the function ``owner`` that makes a router and returns a router
        or handler type: ``root.Mount("/api", newAPI())``, or of the local kept from it (``api := newAPI()``)."""
        index = bound.by_key.get(owner)
        made = bound.facts.symbols[index] if index is not None else None
        if made is None or made.kind != "function" or made.parent is not None:
            return []
        key = self.qualified(bound, made.type or "")
        if key not in ROUTER_TYPES and key != (HTTP, "Handler"):
            return []
        out: list[Folded] = []
        for other, mount in self.mounts:
            handed = mount.args[1].strip()
            called = ONE_CALL.match(handed)
            if called is None and re.fullmatch(r"\w+", handed):
                kept = local(other, mount.owner, handed, mount.line)
                called = ONE_CALL.match(kept[1:]) if kept.startswith("~") else None
            if called is None:
                continue
            head, dot, name = called.group(1).rpartition(".")
            package = self.go.packages.package_of(other, head) if dot else other.ctx.module_name
            if (package, name) != (bound.ctx.module_name, made.name):
                continue
            parent = self.router(other, mount.owner, mount.receiver, mount.line, depth + 1)
            prefix = self.go.fold(other, mount.args[0], mount.owner, mount.line)
            out += [join_paths([p, prefix]) for p in parent[1]] if parent is not None else [
                unknown(f"{made.name}() is mounted at {mount.args[0][:40]} on a router made elsewhere")]
        return out

    @staticmethod
    def maker(bound: Bound, owner: str, var: str, method: str, parent: list, line: int) -> CallFact | None:
        """The ``parent.Group(...)`` (or ``PathPrefix``) call a group variable was made by (``parent``: the
        receiver, a name or a field path): the one on the line the variable was last assigned before ``line``
        (several groups of one parent: ``users := api.Group("/users")``, ``orders := api.Group("/orders")``)."""
        found = [c for c in bound.facts.calls if c.owner == owner and c.name == method and c.receiver == parent]
        if method == "Subrouter":
            found = [c for c in bound.facts.calls if c.owner == owner and c.name == "PathPrefix"
                     and c.receiver == parent]
        assigned = [at for at, t in bound.facts.locals.get(owner, {}).get(var, []) if t and t != "?" and at <= line]
        if assigned and len(found) > 1:
            found = [c for c in found if c.line == assigned[-1]]
        return found[0] if len(found) == 1 else None


def _receiver(written: str) -> list:
    """The receiver form of ``a`` or ``a.b.c`` as the facts write it (``["field", ["name", "a"], "b"]``)."""
    parts = written.split(".")
    out: list = ["name", parts[0]]
    for part in parts[1:]:
        out = ["field", out, part]
    return out


def _chained(bound: Bound, call: CallFact, index: int, name: str) -> CallFact | None:
    """The call ``name`` chained after the registration ``call`` (at ``index``), directly or after other calls
    of the chain (``r.HandleFunc(p, h).Name(n).Methods("GET")``), if any."""
    for later in bound.facts.calls[index + 1:]:
        if later.line > call.line:   # the chain starts where the registration does
            break
        if later.name != name or later.owner != call.owner:
            continue
        receiver = later.receiver
        while receiver and receiver[0] == "call":
            if receiver[2] == call.name and receiver[1] == call.receiver:
                return later
            receiver = receiver[1]
    return None


def _method_names(written: list[str]) -> list[str] | None:
    """HTTP methods as written in gorilla's ``.Methods(...)`` (``"GET"``, ``http.MethodGet``), if any."""
    methods = [m.rsplit(".", 1)[-1].strip('"`').upper().removeprefix("METHOD") for m in written]
    return [m for m in methods if m in HTTP_METHODS] or None


def _chi_prefix(web: GoWeb, bound: Bound, index: int) -> list[Folded]:
    """Prefixes of the enclosing chi ``Route(path, func(r) {...})`` calls of the call at ``index``."""
    lambda_of = bound.facts.extra.get("lambda_of")
    out: list[Folded] = []
    seen = 0
    while lambda_of and lambda_of[index] >= 0 and seen < 8:
        index = lambda_of[index]
        outer = bound.facts.calls[index]
        if outer.name == "Route" and outer.args:
            out.insert(0, web.go.fold(bound, outer.args[0]))
        seen += 1
    return out


def read_go(web: GoWeb, bound: Bound) -> Iterator[Item]:
    if bound.facts.extra.get("generated"):
        return
    facts = bound.facts
    for index, call in enumerate(facts.calls):
        owner = bound.by_key.get(call.owner, -1) if call.owner else -1
        yield from _route(web, bound, index, call, owner)
        yield from _client(web, bound, call, owner)
        yield from _kafka(web, bound, call, owner)
    yield from _async_sends(web, bound)
    yield from web.kafka.producers(bound)
    yield from web.kafka.consumers(bound)


def _prefix_route(web: GoWeb, bound: Bound, call: CallFact, owner: int) -> Iterator[Item]:
    """gorilla's ``r.PathPrefix("/static/").Handler(h)`` (or ``.HandlerFunc``): every path under the prefix, any
    method (``.Subrouter()`` instead makes a group, read through its registrations)."""
    chained = next((c for c in bound.facts.calls if c.line == call.line and c.owner == call.owner
                    and c.name in ("Handler", "HandlerFunc") and c.receiver and c.receiver[0] == "call"
                    and c.receiver[2] == "PathPrefix"), None)
    found = web.router(bound, call.owner, call.receiver, call.line) if chained is not None and call.args else None
    if found is None or found[0] != "gorilla_mux":
        return
    path = join_paths([web.go.fold(bound, call.args[0]), literal("/**")])
    handler = web.go.handler(bound, call.owner, chained.args[0], call.line) if chained.args else None
    target, at = (handler, None) if handler is not None else ((bound, owner), call.line)
    for prefix in found[1]:
        yield item(target[0], target[1], "route", "gorilla_mux", at, http_method=ANY, path=join_paths([prefix, path]),
                   written=call.args[0])


def _sources(web: GoWeb, bound: Bound, call: CallFact, args: list[str]) -> list[dict[str, Source]]:
    """What the arguments stand for: once as written, or, for a registration in a range loop over a project
    table whose arguments name the loop's entry, once per entry (`go_tables`)."""
    if mentions_loop(bound, call, args):
        per_entry = web.tables.sources(bound, call)
        if per_entry is not None:
            return per_entry
    return [{}]


def _reader(web: GoWeb, bound: Bound, call: CallFact, names: dict[str, Source]):
    """(fold, handler) of an argument as written, read through the table entry ``names`` when it names it."""
    def source(arg: str) -> Source:
        return names.get(arg.strip()) or Source(bound, call.owner, call.line, arg)

    def fold(arg: str) -> Folded:
        found = source(arg)
        if not found.expr:
            return unknown(found.why or f"{arg} is not set")
        if found.bound is bound and found.expr == arg:
            return web.go.fold(bound, arg)
        return web.go.fold(found.bound, found.expr, found.owner if found.with_locals else None, found.line)

    def handler(arg: str):
        found = source(arg)
        return web.go.handler(found.bound, found.owner or "", found.expr, found.line) if found.expr else None

    def written(arg: str) -> str:
        found = source(arg)
        return found.expr or arg

    return fold, handler, written


def _route(web: GoWeb, bound: Bound, index: int, call: CallFact, owner: int) -> Iterator[Item]:
    name = call.name
    if name == "PathPrefix":
        yield from _prefix_route(web, bound, call, owner)
        return
    if name in ("Handler", "HandlerFunc"):
        yield from _built_route(web, bound, index, call, owner)
        return
    if name not in VERBS and name not in ("HandleFunc", "Handle", "Any", "Method", "MethodFunc", "Match", "Add", *STATIC):
        return
    found = web.router(bound, call.owner, call.receiver, call.line)
    if found is None:
        return
    framework, prefixes = found
    if name == "Add" and framework != "echo":
        return
    if framework == "chi":
        prefixes = [join_paths([p, *_chi_prefix(web, bound, index)]) for p in prefixes]
    chained = _chained(bound, call, index, "Methods") if framework == "gorilla_mux" else None
    for names in _sources(web, bound, call, [*call.args, *(chained.args if chained else ())]):
        yield from _registration(web, bound, call, owner, framework, prefixes, chained, names)


def _registration(web: GoWeb, bound: Bound, call: CallFact, owner: int, framework: str, prefixes: list[Folded],
                  chained: CallFact | None, names: dict[str, Source]) -> Iterator[Item]:
    """The routes one registration (read through one table entry, when it is in a loop over a table) makes."""
    fold, handler_of, written = _reader(web, bound, call, names)
    name = call.name
    args = list(call.args)
    if name in STATIC:   # files served from a folder: every path under the prefix (gin ``*filepath``, echo ``*``)
        if framework not in ("gin", "echo") or not args or name == "File" and framework != "echo":
            return
        under = "" if name in ("StaticFile", "File") else "/*filepath" if framework == "gin" else "/*"
        for prefix in prefixes:
            yield item(bound, owner, "route", framework, call.line, http_method="GET",
                       path=join_paths([prefix, fold(args[0]), literal(under)] if under else [prefix, fold(args[0])]),
                       written=written(args[0]))
        return
    if name in ("Method", "MethodFunc", "Add") or (name == "Handle" and framework in ("gin", "echo")):
        if len(args) < 2:
            return
        method_arg = args.pop(0)
        method_value = fold(method_arg)
        methods = [method_value.text.upper()] if method_value.known else (
            _method_names([written(method_arg)]) if "http.Method" in written(method_arg) else None) or [ANY]
    elif name in VERBS:
        if framework in ("gin", "echo") and not name.isupper() or framework == "chi" and name.isupper() \
                or framework in ("net_http", "gorilla_mux"):
            return
        methods = [VERBS[name]]
    elif name in ("HandleFunc", "Handle", "Any"):
        methods = [ANY]
        if chained is not None:
            methods = _method_names([_text(fold(m), written(m)) for m in chained.args]) or [ANY]
    else:
        return
    if not args:
        return
    path = fold(args[0])
    if framework == "net_http" and path.known:
        pattern = re.match(r"^([A-Z]+)\s+(\S*)$", path.text)
        if pattern and pattern.group(1) in HTTP_METHODS:
            methods, path = [pattern.group(1)], literal(pattern.group(2))
        elif path.text and not path.text.startswith("/"):
            path = literal("/" + path.text.split("/", 1)[1]) if "/" in path.text else path   # a host pattern
    handler = handler_of(args[1]) if len(args) > 1 else None
    target, at = (handler, None) if handler is not None else ((bound, owner), call.line)
    for prefix in prefixes:
        for method in methods:
            yield item(target[0], target[1], "route", framework, at, http_method=method,
                       path=join_paths([prefix, path]), written=written(args[0]))


def _text(folded: Folded, written: str) -> str:
    """A method as folded (``"GET"`` quoted back, for `_method_names`), else as written (``http.MethodGet``)."""
    return f'"{folded.text}"' if folded.known else written


def _link_calls(bound: Bound, call: CallFact, index: int) -> tuple[list[CallFact], object] | None:
    """The calls of a gorilla builder chain before ``call`` (``r.Methods(m).Path(p).Name(n).Handler(h)``), from
    the router's end, and the router's receiver tree; None when a link is not found."""
    links: list[CallFact] = []
    receiver = call.receiver
    calls = bound.facts.calls
    while receiver and receiver[0] == "call":
        inner, name = receiver[1], receiver[2]
        found = next((c for c in calls[max(0, index - 40):index + 40] if c.line == call.line
                      and c.owner == call.owner and c.name == name and c.receiver == inner), None)
        if found is None:
            return None
        links.insert(0, found)
        receiver = inner
    return links, receiver


def _built_route(web: GoWeb, bound: Bound, index: int, call: CallFact, owner: int) -> Iterator[Item]:
    """gorilla's route builder: ``r.Methods("GET").Path("/x").Handler(h)`` (``Path`` and ``Methods`` in any
    order, ``NewRoute()``/``Name``/``Queries`` and the like between), on a router or a group of one."""
    chain = _link_calls(bound, call, index) if call.args else None
    if chain is None or not chain[0]:
        return
    links, base = chain
    names = [c.name for c in links]
    if "Path" not in names or {"PathPrefix", "Subrouter", "Handle", "HandleFunc"} & set(names):
        return
    found = web.router(bound, call.owner, base, call.line)
    if found is None or found[0] != "gorilla_mux":
        return
    path_call = next(c for c in links if c.name == "Path")
    methods_call = next((c for c in links if c.name == "Methods"), None)
    if not path_call.args:
        return
    mentioned = [*path_call.args, *(methods_call.args if methods_call else ()), call.args[0]]
    for entry in _sources(web, bound, call, mentioned):
        fold, handler_of, as_written = _reader(web, bound, call, entry)
        methods = _method_names([_text(fold(m), as_written(m)) for m in methods_call.args]) if methods_call else None
        path = fold(path_call.args[0])
        handler = handler_of(call.args[0])
        target, at = (handler, None) if handler is not None else ((bound, owner), call.line)
        for prefix in found[1]:
            for method in methods or [ANY]:
                yield item(target[0], target[1], "route", "gorilla_mux", at, http_method=method,
                           path=join_paths([prefix, path]), written=as_written(path_call.args[0]))


def _client(web: GoWeb, bound: Bound, call: CallFact, owner: int) -> Iterator[Item]:
    receiver = call.receiver
    if owner < 0 or not receiver:
        return
    is_http = receiver == ["name", "http"] and web.go.packages.package_of(bound, "http") == HTTP
    if not is_http:
        typed = written_type(web.go.packages, bound, call.owner, receiver, call.line)
        if web.qualified(bound, typed.lstrip("~").removesuffix("()")) not in ((HTTP, "Client"), (HTTP, "DefaultClient")):
            return
    if call.name in CLIENT_CALLS and call.args:
        method, url = CLIENT_CALLS[call.name], call.args[0]
    elif call.name in ("NewRequest", "NewRequestWithContext") and is_http:
        args = call.args[1:] if call.name == "NewRequestWithContext" else call.args
        if len(args) < 2:
            return
        folded = web.go.fold(bound, args[0])
        method = folded.text.upper().removeprefix("METHOD") if folded.known else None
        if args[0].startswith("http.Method"):
            method = args[0].removeprefix("http.Method").upper()
        url = args[1]
    else:
        return
    yield item(bound, owner, "client", "net_http", call.line, http_method=method,
               path=web.go.fold(bound, url, call.owner, call.line),
               written=url)


_TOPIC = re.compile(r"\bTopic\s*:\s*(&?[^,}]+)")


def _topic_in(web: GoWeb, bound: Bound, owner_key: str, text: str) -> Folded | None:
    """The ``Topic:`` a struct literal sets, folded (``&topic`` is the variable's value)."""
    match = _TOPIC.search(text)
    if match is None:
        return None
    expr = match.group(1).strip().lstrip("&")
    return web.kafka.topic(bound, expr)


def _composite(bound: Bound, owner_key: str, var: str) -> str:
    composites = bound.facts.extra.get("composites", {})
    return composites.get(owner_key, {}).get(var) or composites.get("", {}).get(var, "")


def _kafka(web: GoWeb, bound: Bound, call: CallFact, owner: int) -> Iterator[Item]:
    name = call.name
    if owner < 0 or not call.args or name not in ("SendMessage", "Produce", "WriteMessages", "ConsumePartition",
                                                  "Consume", "Subscribe", "SubscribeTopics", "NewReader"):
        return
    typed = written_type(web.go.packages, bound, call.owner, call.receiver, call.line) if call.receiver else ""
    library = web.qualified(bound, typed.lstrip("~").removesuffix("()")) or ("", "")
    receiver_module = library[0]
    if name == "NewReader" and web.qualified(bound, f"{call.receiver[1]}.x" if call.receiver and call.receiver[0] == "name"
                                             else "") == ("github.com/segmentio/kafka-go", "x"):
        topic = _topic_in(web, bound, call.owner, call.args[0])
        if topic is not None:
            yield item(bound, owner, "route", "kafka_go", call.line, broker="kafka", topic=topic, written=call.args[0])
        return
    kafka_libraries = ("github.com/IBM/sarama", "github.com/Shopify/sarama", "github.com/segmentio/kafka-go",
                       "github.com/confluentinc/confluent-kafka-go/kafka")
    if not receiver_module.startswith(kafka_libraries) and not _made_by_kafka(web, bound, call, kafka_libraries):
        return
    if name == "SendMessage" or name == "Produce":
        topic = _topic_in(web, bound, call.owner, call.args[0])
        if topic is not None:
            yield item(bound, owner, "producer", "sarama" if name == "SendMessage" else "confluent_kafka", call.line,
                       broker="kafka", topic=topic, written=call.args[0])
    elif name == "WriteMessages":
        writer = call.receiver[1] if call.receiver and call.receiver[0] == "name" else ""
        topic = _topic_in(web, bound, call.owner, _composite(bound, call.owner, writer)) or next(
            (t for t in (_topic_in(web, bound, call.owner, a) for a in call.args[1:]) if t is not None), None)
        if topic is not None:
            yield item(bound, owner, "producer", "kafka_go", call.line, broker="kafka", topic=topic,
                       written=writer or call.args[0])
    else:
        for expr in _topics(bound, call):
            yield item(bound, owner, "route", "sarama" if name in ("ConsumePartition", "Consume") else "confluent_kafka",
                       call.line, broker="kafka", topic=web.kafka.topic(bound, expr), written=expr)


SARAMA = ("github.com/IBM/sarama", "github.com/Shopify/sarama")


def _async_sends(web: GoWeb, bound: Bound) -> Iterator[Item]:
    """sarama's async producer: ``producer.Input() <- &sarama.ProducerMessage{Topic: ...}`` (or a local made so)."""
    for owner_key, line, channel, value in bound.facts.extra.get("sends", []):
        owner = bound.by_key.get(owner_key, -1) if owner_key else -1
        call = next((c for c in bound.facts.calls if c.name == "Input" and c.owner == owner_key and c.line == line
                     and c.receiver and channel.endswith(".Input()")), None)
        if call is None or owner < 0:
            continue
        typed = written_type(web.go.packages, bound, owner_key, call.receiver, line)
        library = (web.qualified(bound, typed.lstrip("~").removesuffix("()")) or ("", ""))[0]
        if not library.startswith(SARAMA) and not _made_by_kafka(web, bound, call, SARAMA):
            continue
        message = value if "{" in value else _composite(bound, owner_key, value.strip().lstrip("&"))
        topic = _topic_in(web, bound, owner_key, message)
        yield item(bound, owner, "producer", "sarama", line, broker="kafka",
                   topic=topic if topic is not None else unknown(f"the message {value} sets no Topic here"),
                   written=value)


def _made_by_kafka(web: GoWeb, bound: Bound, call: CallFact, libraries: tuple[str, ...]) -> bool:
    """A receiver made by a Kafka library's constructor (``sarama.NewSyncProducer(...)``) in this function."""
    if not call.receiver or call.receiver[0] != "name":
        return False
    seen = [t for _, t in bound.facts.locals.get(call.owner, {}).get(call.receiver[1], [])]
    for typed in seen:
        key = web.qualified(bound, typed.lstrip("~").removesuffix("()"))
        if key is not None and key[0].startswith(libraries):
            return True
    return False


def _topics(bound: Bound, call: CallFact) -> list[str]:
    """The topic expressions of a consumer call: a string, or the items of a ``[]string{...}`` literal (written
    in the call, or what a local of the function is made from)."""
    first = call.args[1] if call.name == "Consume" and len(call.args) > 1 else call.args[0]
    if re.fullmatch(r"\w+", first.strip()):
        first = _composite(bound, call.owner, first.strip()) or first
    literal_list = re.match(r"^\[\]string\s*\{(.*)\}$", first.strip(), re.S)
    return split_top(literal_list.group(1)) if literal_list else [first]


def prepare(files: list[Bound], project: Project) -> Reader:
    web = GoWeb(files, {module: values.config_fields for module, values in project.settings.items()})
    return lambda bound: read_go(web, bound)


FRAMEWORK = Framework("go_web", ("go",), prepare)
