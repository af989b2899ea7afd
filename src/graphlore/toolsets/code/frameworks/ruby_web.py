"""Ruby routes (Sinatra, Rails) and HTTP clients (Net::HTTP, Faraday, HTTParty, RestClient), read from the facts
of Ruby files.

**Sinatra**: ``get/post/put/patch/delete/options/head/link/unlink '/p' do ... end`` at the top of a file that
requires ``sinatra`` or that such a file ``require_relative``s (classic), or in the body of a class deriving from
``Sinatra::Base`` or ``Sinatra::Application``, directly or through project classes, in any file that opens it
(modular), under the paths of the ``namespace '/p' do`` blocks around them
(sinatra-contrib). The route is the file's or the class's (its block is no method).

**Grape**: see `_grape`.

**Rails** (``config/routes.rb``): ``get/post/put/patch/delete 'p', to: 'c#a'`` (or ``'p' => 'c#a'``, or
``controller:``/``action:``, or a path ``'c/a'`` alone), ``match 'p', to: ..., via: [...]`` (``via: :all``: any
method), ``root 'c#a'``, ``resources``/``resource`` with ``only:``/``except:`` (the seven conventional actions; no
``new``/``edit`` forms when the application sets ``config.api_only = true``; a singular resource's controller is
the plural; ``param:`` names the parameter), their ``member``/``collection`` blocks, routes inside a ``resources`` block
(nested, ``/photos/{photo_id}/x``, unless ``on: :member``/``on: :collection``) and nested resources, under
``namespace`` (path and controller module) and ``scope`` (``path:``/first argument, ``module:``) blocks. A
route's handler is the controller's action (``Admin::PhotosController#index``) when the routes file's
microservice declares it once (never another service's controller of that name), else the routes file.

**Clients.** Net::HTTP: ``Net::HTTP.get/get_response/post/post_form(URI(url), ...)``,
``Net::HTTP::Get/Post/Put/Patch/Delete.new(uri)``, and the verbs on a ``Net::HTTP.new(host, port)`` the same
method makes. Faraday: ``Faraday.get/post/...(url)``, and the verbs called on a local or instance variable made
by ``Faraday.new(url: base)`` (or ``Faraday.new(base)``), the path resolved against the base as Faraday does
(RFC 3986 after a ``/`` is added to the base's path). HTTParty: ``HTTParty.get(url)``, and the verbs called in
a class that includes ``HTTParty`` (bare, on ``self``, on ``self.class`` or on the class), after its
``base_uri``. RestClient: ``RestClient.get/post/...(url)``, ``RestClient::Request.execute(method:, url:)``. URLs
are folded as every Ruby value is (`languages.ruby.constants`): literals, ``#{...}``, constants, locals,
instance variables, ``ENV['X']``/``ENV.fetch('X')`` settled with the project's deployment environment; what
does not fold stays unresolved, saying why.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from ..languages.folding import Folded, literal, split_top, unknown
from ..languages.ruby.constants import RubyConstants, RubyFolder
from ..languages.symbols import Bound, Tracker
from ..services.endpoints import ANY, Item, join_paths, resolve_reference
from .base import Framework, Project, Reader, item

VERBS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE", "options": "OPTIONS",
         "head": "HEAD"}
SINATRA_VERBS = {**VERBS, "link": "LINK", "unlink": "UNLINK"}
SINATRA_BASES = frozenset({"Sinatra.Base", "Sinatra.Application"})
#: Rails' resource actions: (method, path after the resource, action, a form page (not in api_only apps))
RESOURCES = (("GET", "", "index", False), ("POST", "", "create", False), ("GET", "/new", "new", True),
             ("GET", "/{id}/edit", "edit", True), ("GET", "/{id}", "show", False), ("PATCH", "/{id}", "update", False),
             ("PUT", "/{id}", "update", False), ("DELETE", "/{id}", "destroy", False))
RESOURCE = (("GET", "/new", "new", True), ("POST", "", "create", False), ("GET", "", "show", False),
            ("GET", "/edit", "edit", True), ("PATCH", "", "update", False), ("PUT", "", "update", False),
            ("DELETE", "", "destroy", False))
NET_HTTP_CALLS = {"get": "GET", "get_response": "GET", "post": "POST", "post_form": "POST"}
NET_HTTP_REQUESTS = {f"Net.HTTP.{name}": name.upper() for name in ("Get", "Post", "Put", "Patch", "Delete", "Head")}
_SCOPES = frozenset({"namespace", "scope", "resources", "resource", "member", "collection"})


def ruby_constants(project: Project) -> RubyConstants:
    return project.shared("ruby.constants", lambda: RubyConstants(project.table))


class RubyFile:
    """Folds values written in one Ruby file."""

    def __init__(self, bound: Bound, constants: RubyConstants) -> None:
        self.bound, self.constants = bound, constants

    def class_of(self, owner: str) -> str:
        """The module or class around ``owner`` ("" at the top of the file)."""
        key = owner
        while key:
            index = self.bound.by_key.get(key)
            if index is None:
                return ""
            sym = self.bound.facts.symbols[index]
            if sym.kind == "class":
                return sym.key
            key = sym.parent or ""
        return ""

    def fold(self, expr: str, owner: str, line: int) -> Folded:
        folder = RubyFolder(self.constants, self.bound.facts, self.class_of(owner), self.bound.ctx.microservice)
        folder.at(self.bound.facts, owner, line)
        return folder.fold(expr)

    def owner_index(self, owner: str) -> int:
        return self.bound.by_key.get(owner, -1) if owner else -1


def read_ruby(project: Project, bound: Bound) -> Iterator[Item]:
    rb = RubyFile(bound, ruby_constants(project))
    yield from _sinatra(rb, project.shared("ruby.sinatra", lambda: SinatraApps(project.table)))
    yield from _grape(rb)
    if bound.path == "config/routes.rb" or bound.path.endswith("/config/routes.rb"):
        yield from _rails(rb, project)
    yield from _clients(rb)


# -- arguments ---------------------------------------------------------------------------------------------------

def call_options(args: tuple[str, ...] | list[str]) -> tuple[list[str], dict[str, str]]:
    """A call's positional arguments and its ``key: value`` / ``:key => value`` / ``'a' => 'b'`` options."""
    positional, named = [], {}
    for arg in args:
        keyed = re.match(r"^:?([A-Za-z_]\w*):?\s*(?:=>)?\s*(.+)$", arg, re.S)
        if re.match(r"^[A-Za-z_]\w*:\s", arg) or re.match(r"^:[A-Za-z_]\w*\s*=>", arg):
            named[keyed.group(1)] = keyed.group(2).strip()   # type: ignore[union-attr]
        elif len(split_top(arg, "=>")) == 2:
            left, right = split_top(arg, "=>")
            named["=>"] = left.strip()
            named["to"] = right.strip()
        else:
            positional.append(arg)
    return positional, named


def _symbols(written: str) -> list[str]:
    """``[:index, :show]``, ``%i[index show]``, ``:index`` -> the names."""
    return re.findall(r"(?<![\w:]):?([a-z_]\w*)", written.replace("%i", "").replace("%w", ""))


def _plain(written: str | None) -> str | None:
    """A literal string or symbol's value, else None."""
    if written is None:
        return None
    match = re.fullmatch(r"""\s*(?:'([^'\\]*)'|"([^"\\#]*)"|:([A-Za-z_]\w*))\s*""", written)
    return next((g for g in match.groups() if g is not None), None) if match else None


# -- Sinatra -----------------------------------------------------------------------------------------------------

class SinatraApps:
    """The project's Sinatra applications: the classes deriving from ``Sinatra::Base``/``Sinatra::Application``
    (directly or through project classes; a class reopened in another file without its superclass is the same
    application), and the files of classic applications: those requiring ``sinatra`` and the files they
    ``require_relative``, transitively."""

    def __init__(self, table) -> None:
        supers: dict[str, set[str]] = {}
        requires: dict[str, list[str]] = {}
        self.classic: set[str] = set()
        for bound in table.files.values():
            facts = bound.facts
            if facts.language != "ruby":
                continue
            for sym in facts.symbols:
                if sym.kind == "class":
                    outer = sym.key.rsplit(".", 1)[0] + "." if "." in sym.key else ""
                    for relation, written in sym.supers:   # ``Base`` in ``module Shop``: Shop::Base or ::Base
                        if relation == "extends":
                            supers.setdefault(sym.key, set()).update({written, outer + written} if outer else {written})
                    supers.setdefault(sym.key, set())
            folder = posixpath.dirname(bound.path)
            requires[bound.path] = [posixpath.normpath(posixpath.join(folder, imp.target)) + (
                "" if imp.target.endswith(".rb") else ".rb") for imp in facts.imports if imp.static]
            if any(imp.target == "sinatra" and not imp.static for imp in facts.imports):
                self.classic.add(bound.path)
        self.apps: set[str] = set()
        grown = True
        while grown:
            before = len(self.apps)
            self.apps |= {key for key, bases in supers.items() if bases & (SINATRA_BASES | self.apps)}
            grown = len(self.apps) > before
        stack = list(self.classic)
        while stack:
            for target in requires.get(stack.pop(), ()):
                if target in requires and target not in self.classic:
                    self.classic.add(target)
                    stack.append(target)


def _sinatra(rb: RubyFile, apps: SinatraApps) -> Iterator[Item]:
    bound = rb.bound
    facts = bound.facts
    classic = bound.path in apps.classic
    modular = {sym.key for sym in facts.symbols if sym.kind == "class" and sym.key in apps.apps}
    if not classic and not modular:
        return
    spaces = [b for b in facts.extra.get("blocks", ()) if b["name"] == "namespace" and not b["receiver"] and b["args"]]
    for call in facts.calls:
        if call.kind != "call" or call.receiver not in (None, ["this"]) or call.name not in SINATRA_VERBS or \
                not call.args:
            continue
        inside = rb.class_of(call.owner) if call.owner else ""
        if not (inside in modular if inside else classic):
            continue
        if call.owner and call.owner != inside:
            continue   # in a method: no route declaration
        prefix = [rb.fold(s["args"][0], call.owner, s["line"]) for s in spaces if s["start"] <= call.line <= s["end"]
                  and s["line"] != call.line]
        path = rb.fold(call.args[0], call.owner, call.line)
        if not path.known and call.args[0].startswith(("%r", "/")):
            path = unknown(f"a regular-expression route ({call.args[0][:40]})")
        yield item(bound, rb.owner_index(call.owner), "route", "sinatra", call.line,
                   http_method=SINATRA_VERBS[call.name], path=join_paths([*prefix, path]), written=call.args[0])


# -- Grape -------------------------------------------------------------------------------------------------------

GRAPE_BASES = frozenset({"Grape.API", "Grape.API.Instance"})
_GRAPE_SCOPES = frozenset({"resource", "resources", "namespace", "group", "segment", "route_param"})


def _grape(rb: RubyFile) -> Iterator[Item]:
    """Grape APIs: the verbs (``get :name do``, ``post do``) in a class deriving from ``Grape::API``, under its
    ``prefix``, its ``version`` (in the path unless ``using:`` says a header or a parameter carries it) and the
    ``resource``/``namespace``/``group``/``segment`` names and ``route_param :id`` (``{id}``) blocks around them.
    Where another API or Rails mounts it (``mount API => '/x'``) is not read."""
    facts = rb.bound.facts
    apis = {sym.key for sym in facts.symbols if sym.kind == "class" and
            any(relation == "extends" and written in GRAPE_BASES for relation, written in sym.supers)}
    if not apis:
        return
    scopes = [b for b in facts.extra.get("blocks", ()) if b["name"] in _GRAPE_SCOPES and not b["receiver"]]
    heads: dict[tuple[str, str], Folded] = {}   # (api, prefix | version) -> its path segment
    for call in facts.calls:
        if call.owner in apis and call.receiver is None and call.name in ("prefix", "version") and call.args:
            positional, named = call_options(call.args)
            using = _plain(named.get("using")) or "path"
            if positional and (call.name == "prefix" or using == "path"):
                heads[(call.owner, call.name)] = rb.fold(positional[0], call.owner, call.line)
    for call in facts.calls:
        if call.kind != "call" or call.receiver is not None or call.name not in VERBS or call.owner not in apis:
            continue
        parts = [heads[(call.owner, head)] for head in ("prefix", "version") if (call.owner, head) in heads]
        for scope in scopes:
            if scope["start"] <= call.line <= scope["end"] and scope["line"] != call.line and scope["args"]:
                name = call_options(scope["args"])[0]
                if name:
                    value = rb.fold(name[0], call.owner, scope["line"])
                    parts.append(literal("{" + value.text + "}") if scope["name"] == "route_param" and value.known
                                 else value)
        positional = call_options(call.args)[0]
        if positional:
            parts.append(rb.fold(positional[0], call.owner, call.line))
        yield item(rb.bound, rb.owner_index(call.owner), "route", "grape", call.line, http_method=VERBS[call.name],
                   path=join_paths(parts), written=positional[0] if positional else "")


# -- Rails -------------------------------------------------------------------------------------------------------

def _plural(name: str) -> str:
    if name.endswith("y") and not name.endswith(("ay", "ey", "oy", "uy")):
        return name[:-1] + "ies"
    return name + ("es" if name.endswith(("s", "x", "ch", "sh")) else "s")


def _singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith(("ses", "xes", "ches", "shes")):
        return name[:-2]
    return name[:-1] if name.endswith("s") else name


class _Scope:
    """Where a route in the routes file is declared: its path prefix, controller module and resource."""

    def __init__(self) -> None:
        self.path: list[Folded] = []
        self.module = ""
        self.controller = ""
        self.member_path: list[Folded] = []   # the resource's member path (``/photos/{id}``)
        self.nested_path: list[Folded] = []   # where nested routes go (``/photos/{photo_id}``)


def _enter(scope: _Scope, block: dict, rb: RubyFile) -> _Scope:
    inner = _Scope()
    inner.path, inner.module, inner.controller = list(scope.path), scope.module, scope.controller
    inner.member_path, inner.nested_path = scope.member_path, scope.nested_path
    positional, named = call_options(block["args"])
    name = block["name"]
    first = _plain(positional[0]) if positional else None
    if name == "namespace" and first:
        inner.path.append(literal(first))
        inner.module += first + "/"
    elif name == "scope":
        where = named.get("path") or (positional[0] if positional else None)
        if where is not None:
            inner.path.append(rb.fold(where, "", block["line"]))
        module = _plain(named.get("module"))
        if module:
            inner.module += module + "/"
    elif name in ("resources", "resource") and first:
        if scope.nested_path:
            inner.path = list(scope.nested_path)
        base = [*inner.path, literal(_plain(named.get("path")) or first)]
        inner.controller = _plain(named.get("controller")) or (first if name == "resources" else _plural(first))
        param = _plain(named.get("param")) or "id"
        inner.member_path = [*base, literal("{" + param + "}")] if name == "resources" else base
        inner.nested_path = [*base, literal("{" + _singular(first) + "_" + param + "}")] if name == "resources" \
            else base
        inner.path = base
    elif name in ("member", "collection"):
        inner.path = list(scope.member_path if name == "member" else scope.path)
        inner.nested_path = []
    return inner


def _rails(rb: RubyFile, project: Project) -> Iterator[Item]:
    bound = rb.bound
    facts = bound.facts
    api_only = any(other.facts.extra.get("api_only") for other in project.table.files.values()
                   if other.ctx.module == bound.ctx.module)
    blocks = sorted((b for b in facts.extra.get("blocks", ()) if b["name"] in _SCOPES and not b["receiver"]),
                    key=lambda b: (b["start"], -b["end"]))

    def scope_at(line: int) -> _Scope:
        scope = _Scope()
        for block in blocks:
            if block["start"] <= line <= block["end"] and block["line"] != line:
                scope = _enter(scope, block, rb)
        return scope

    for call in facts.calls:
        if call.kind != "call" or call.receiver is not None:
            continue
        scope = scope_at(call.line)
        positional, named = call_options(call.args)
        if call.name in ("resources", "resource"):
            options = [arg for arg in call.args if arg not in positional]
            actions = RESOURCES if call.name == "resources" else RESOURCE
            only = _symbols(named["only"]) if "only" in named else None
            except_ = _symbols(named["except"]) if "except" in named else []
            param = "{" + (_plain(named.get("param")) or "id") + "}"
            for name in positional:   # ``resources :photos, :books``: each
                inner = _enter(scope, {"name": call.name, "args": [name, *options], "line": call.line}, rb)
                for method, tail, action, form in actions:
                    if only is not None and action not in only or action in except_ or \
                            form and api_only and only is None:
                        continue
                    path = join_paths([*inner.path, literal(tail.replace("{id}", param))])
                    yield _rails_route(rb, project, call, method, path, inner.module + inner.controller, action, name)
            continue
        if call.name == "root":
            target = _plain(named.get("to")) or (_plain(positional[0]) if positional else None)
            yield _rails_route(rb, project, call, "GET", join_paths([*scope.path, literal("/")]),
                               *_controller_action(scope, target or ""), call.args[0] if call.args else "root")
            continue
        if call.name not in VERBS and call.name != "match" or not (positional or "=>" in named):
            continue
        written = named.get("=>") or positional[0]
        path_text = _plain(written)
        path = rb.fold(written, "", call.line)
        target = _plain(named.get("to"))
        if target is None and "action" in named:
            target = f"{_plain(named.get('controller')) or scope.controller}#{_plain(named['action'])}"
        if target is None and path_text is not None:
            target = f"{scope.controller}#{path_text}" if scope.controller and "/" not in path_text.strip("/") \
                else path_text.strip("/").replace("/", "#", 1) if path_text.strip("/").count("/") == 1 else None
        if call.name == "match":
            via = named.get("via", "")
            methods = [ANY] if "all" in via else [v.upper() for v in _symbols(via) if v.upper() in VERBS.values()]
        else:
            methods = [VERBS[call.name]]
        on = _plain(named.get("on"))
        under = scope.path if on == "collection" or not scope.nested_path else \
            scope.member_path if on == "member" else scope.nested_path   # in a resources block: nested by default
        parts = [*under, Folded(re.sub(r"\([^()]*\)", "", path.text), path.known, path.why)]
        for method in methods:
            yield _rails_route(rb, project, call, method, join_paths(parts), *_controller_action(scope, target or ""),
                               written)


def _controller_action(scope: _Scope, target: str) -> tuple[str, str]:
    controller, _, action = target.partition("#")
    return (scope.module + controller if controller else ""), action


def _rails_route(rb: RubyFile, project: Project, call, method: str, path: Folded, controller: str, action: str,
                 written: str) -> Item:
    handler = _action(project, rb.bound.ctx.microservice, controller, action) if controller and action else None
    where, owner = handler if handler is not None else (rb.bound, rb.owner_index(call.owner))
    found = item(where, owner, "route", "rails", call.line if handler is None else None, http_method=method,
                 path=path, written=written)
    found.microservice, found.module = rb.bound.ctx.microservice, rb.bound.ctx.module   # served where routed
    return found


def _action(project: Project, microservice: str | None, controller: str, action: str) -> tuple[Bound, int] | None:
    """``admin/photos`` + ``index``: ``Admin::PhotosController#index``, when the routes file's microservice declares
    it once (another service's controller of that name serves no route of this one)."""
    name = ".".join("".join(w.capitalize() for w in part.split("_")) for part in controller.split("/")) + "Controller"
    refs = [r for r in project.table.lookup(name, Tracker())
            if r[1] >= 0 and project.table.files[r[0]].ctx.microservice == microservice]
    if len(refs) != 1:
        return None
    other = project.table.files[refs[0][0]]
    index = other.by_key.get(f"{other.sym(refs[0][1]).key}.{action}")
    return (other, index) if index is not None else None


# -- clients -----------------------------------------------------------------------------------------------------

def _inner_args(expr: str, head: str) -> list[str] | None:
    """The arguments of ``head(...)`` (or ``head ...``) at the start of ``expr``, as written."""
    match = re.match(rf"^{re.escape(head)}\s*(\()?", expr)
    if match is None:
        return None
    if not match.group(1):
        rest = expr[match.end():].split(" do", 1)[0].split("{", 1)[0].strip()
        return split_top(rest) if rest else []
    depth, end = 1, match.end()
    while end < len(expr) and depth:
        depth += {"(": 1, ")": -1}.get(expr[end], 0)
        end += 1
    return [a.strip() for a in split_top(expr[match.end():end - 1]) if a.strip()]


def assigned_value(rb: RubyFile, owner: str, receiver: list) -> tuple[str, str, int] | None:
    """What a local or instance variable a call is made on was last given: (value as written, owner, line)."""
    assigns = rb.bound.facts.extra.get("assigns", {})
    if receiver[0] == "name":
        key = owner
        while True:
            entries = assigns.get(key, {}).get(receiver[1], [])
            if entries:
                line, values = max(entries, key=lambda e: e[0])
                return (values[0], key, line) if len(values) == 1 else None
            index = rb.bound.by_key.get(key) if key else None
            if index is None:
                return None
            key = rb.bound.facts.symbols[index].parent or ""
    if receiver[0] == "field" and receiver[1] == ["this"]:
        cls = rb.class_of(owner)
        found = [(values[0], key, line) for key, table in assigns.items() if key and rb.class_of(key) == cls
                 for line, values in table.get("this." + receiver[2], []) if len(values) == 1]
        return found[0] if len({f[0] for f in found}) == 1 else None
    return None


def _faraday_base(rb: RubyFile, call) -> Folded | None:
    made = assigned_value(rb, call.owner, call.receiver) if call.receiver else None
    args = _inner_args(made[0], "Faraday.new") if made is not None else None
    if args is None:
        return None
    positional, named = call_options(args)
    base = named.get("url") or (positional[0] if positional else None)
    if base is None:
        return unknown("Faraday.new without a url")
    value = rb.fold(base, made[1], made[2])   # type: ignore[index]
    if value.known and re.match(r"^\w+://[^/]+/.*[^/]$", value.text):
        value = value + literal("/")   # Faraday ends the base's path with a slash before joining
    return value


def _net_http_origin(rb: RubyFile, call) -> str | None:
    """``http = Net::HTTP.new(host, port)``: the origin its ``http.get(path)`` asks, as an expression to fold
    (``'http://' + host + ':' + port``, in the scope of the call); None when the receiver is no such object."""
    made = assigned_value(rb, call.owner, call.receiver) if call.receiver else None
    args = _inner_args(made[0], "Net::HTTP.new") if made is not None else None
    if not args or made[1] != call.owner:   # type: ignore[index]
        return None
    return "'http://' + " + args[0] + (f" + ':' + {args[1]}" if len(args) > 1 else "")


def _httparty_base(rb: RubyFile, call) -> Folded | None:
    """The ``base_uri`` of the HTTParty class a call is made in, on itself (``get``, ``self.get``,
    ``self.class.get``, ``Klass.get``); None when the call is on something else or the class includes no
    HTTParty."""
    cls = rb.class_of(call.owner)
    index = rb.bound.by_key.get(cls) if cls else None
    if index is None or ("includes", "HTTParty") not in rb.bound.facts.symbols[index].supers:
        return None
    if call.receiver not in (None, ["this"], ["call", ["this"], "class", 0], ["name", cls],
                             ["name", rb.bound.facts.symbols[index].name]):
        return None
    base = next((c for c in rb.bound.facts.calls if c.name == "base_uri" and c.owner == cls and c.args), None)
    if base is None:
        return literal("")
    value = rb.fold(base.args[0], cls, base.line)
    return value if not value.known or "://" in value.text else literal("http://") + value


def _clients(rb: RubyFile) -> Iterator[Item]:
    bound = rb.bound
    for call in bound.facts.calls:
        if call.owner and call.owner not in bound.by_key:
            continue
        owner = rb.owner_index(call.owner)
        receiver = call.receiver
        found: tuple[str, str | None, str, Folded | None] | None = None   # (flavor, method, url as written, base)
        if call.kind == "new" and receiver and receiver[1] in NET_HTTP_REQUESTS and call.args:
            found = ("net_http", NET_HTTP_REQUESTS[receiver[1]], call.args[0], None)
        elif call.kind != "call" or not call.args and call.name in VERBS:
            continue
        elif receiver == ["name", "Net.HTTP"] and call.name in NET_HTTP_CALLS and call.args:
            host = _plain(call.args[0])
            if call.name == "get" and len(call.args) >= 2 and host is not None and "://" not in host:
                found = ("net_http", "GET", f"'http://' + {call.args[0]} + {call.args[1]}", None)   # get(host, path)
            else:
                found = ("net_http", NET_HTTP_CALLS[call.name], call.args[0], None)
        elif receiver == ["name", "RestClient.Request"] and call.name == "execute":
            _, named = call_options(call.args)
            verb = _plain(named.get("method"))
            if "url" in named:
                found = ("restclient", VERBS.get(verb or ""), named["url"], None)
        elif receiver in (["name", "Faraday"], ["name", "HTTParty"], ["name", "RestClient"]) and call.name in VERBS \
                and call.args:
            found = (receiver[1].lower() if receiver[1] != "RestClient" else "restclient", VERBS[call.name],
                     call.args[0], None)
        elif call.name in VERBS and call.args:
            base = _faraday_base(rb, call) if receiver and receiver[0] in ("name", "field") else None
            origin = _net_http_origin(rb, call) if receiver and receiver[0] in ("name", "field") else None
            if base is not None:
                found = ("faraday", VERBS[call.name], call.args[0], base)
            elif origin is not None:
                found = ("net_http", VERBS[call.name], f"{origin} + {call.args[0]}", None)
            elif (base := _httparty_base(rb, call)) is not None:
                found = ("httparty", VERBS[call.name], call.args[0], base)
        if found is None:
            continue
        flavor, method, written, base = found
        url = rb.fold(written, call.owner, call.line)
        if base is not None and flavor == "httparty":
            url = (base + url) if not re.match(r"^\w+://", url.text) else url   # HTTParty prepends base_uri
        elif base is not None and not re.match(r"^\w+://", url.text):
            url = resolve_reference(base, url)
        yield item(bound, owner, "client", flavor, call.line, http_method=method, path=url, written=written)


def prepare(files: list[Bound], project: Project) -> Reader:
    return lambda bound: read_ruby(project, bound)


FRAMEWORK = Framework("ruby_web", ("ruby",), prepare)
