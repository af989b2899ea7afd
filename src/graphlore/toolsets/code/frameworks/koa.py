"""Koa routes: ``@koa/router`` and ``koa-router``, beside Express (`script_web`).

A router is a value made by ``new R(..)`` (or ``R(..)``) where ``R`` is what a file imports from either package (any
name: ``const Router = require('@koa/router')``, ``import Router from 'koa-router'``, ``import * as KoaRouter``),
held in a variable of a function or of the module. Its routes are ``router.get(path, ..)`` ... ``post``, ``put``,
``patch``, ``del``/``delete``, ``head``, ``options`` and ``all`` (any method), chained calls included, and the named
form ``router.get("name", path, ..)``; each path under the router's ``prefix`` option (``new Router({prefix:
'/api'})``), which a ``router.prefix('/x')`` call (or ``new Router().prefix('/x')``) replaces for the routes
registered after it and goes before for the routes registered already (`KoaProject.own`). Koa's ``app.use(..)`` takes no path, so a router whose
``routes()`` an app uses serves at the root; a router mounted under another at a path (``parent.use('/p',
child.routes())``) or by koa-mount (``mount('/p', child.routes())``), the child a router variable of the same
function or module, serves under the parent's prefixes and that path; so does one a router uses without a path (``api.use(users)``) under the
parent's prefixes. The mounted value is a router variable of the same function or module, its ``routes()``, or
what a project module exports as one (``module.exports = router.routes()``, ``export default router``), followed
through imports. A service with a mount whose value may be a router but is not known leaves every router it cannot
place with an unknown prefix, saying so (never a guess); a package's middleware (``mount('/public', serve(..))``)
holds none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import Folded, literal, split_top, unknown
from ..languages.symbols import Bound
from ..languages.typescript.constants import ScriptFolder, resolve_script
from ..model import CallFact
from ..services.endpoints import ANY, Item, join_paths
from .base import Framework, Project, Reader, item
from .script_handlers import ScriptHandlers
from .script_web import object_field

PACKAGES = ("@koa/router", "koa-router")
VERBS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "del": "DELETE", "delete": "DELETE",
         "head": "HEAD", "options": "OPTIONS", "all": ANY}
_MADE = re.compile(r"^(?:new\s+)?([A-Za-z_$][\w$]*)\s*\((.*)\)$", re.S)
_ROUTES = re.compile(r"^([A-Za-z_$][\w$]*)\s*\.\s*(?:routes|middleware)\s*\(\s*\)$")
_STRING = re.compile(r"""^(['"`]).*\1$""", re.S)

#: a router: (file, owning function key or "" for the module, variable)
Key = tuple[str, str, str]


class KoaProject:
    """The routers of the project's TS/JS files, their own prefixes and where they are mounted under a path."""

    def __init__(self, bounds: list[Bound]) -> None:
        self.files = {b.path: b.facts for b in bounds}
        self.named_handlers = ScriptHandlers(bounds)
        #: each router's ``prefix`` option (``""`` when it has none)
        self.routers: dict[Key, list[Folded]] = {}
        #: its ``prefix()`` calls: (file, owning function, line, the prefix)
        self.prefix_calls: dict[Key, list[tuple[str, str, int, Folded]]] = {}
        self.service: dict[Key, str] = {}
        #: child router -> (parent router, or None for a koa-mount on an app, the path, and where it is mounted)
        self.mounts: dict[Key, list[tuple[Key | None, Folded, tuple[str, str, int]]]] = {}
        #: services with a path mount whose child is not known
        self.unplaced: set[str] = set()
        for bound in bounds:
            classes = {alias for imp in bound.facts.imports if imp.target in PACKAGES for _, alias in imp.names}
            if not classes:
                continue
            folder = ScriptFolder(self.files, bound.path)
            for owner, names in bound.facts.extra.get("assigns", {}).items():
                for var, values in names.items():
                    made = [(line, m, chain[1:]) for line, written in values for w in written
                            if (chain := split_top(w.strip(), ".")) and (m := _MADE.match(chain[0]))]
                    if made and made[-1][1].group(1) in classes:
                        line, match, chain = made[-1]
                        options = split_top(match.group(2))
                        prefix = object_field(options[0], "prefix") if options else None
                        key = (bound.path, owner, var)
                        self.routers[key] = [folder.fold(prefix) if prefix else literal("")]
                        self.service[key] = bound.ctx.microservice
                        for step in chain:   # new Router().prefix('/x'): a prefix() call where it is made
                            called = re.fullmatch(r"prefix\s*\((.+)\)", step, re.S)
                            if called is None:
                                self.routers[key] = [unknown(f"the router {var} of {bound.path} is made by a chain "
                                                             f"whose prefix is not read ({step.split('(')[0]})")]
                            else:
                                self.prefix_calls.setdefault(key, []).append(
                                    (bound.path, owner, line, folder.fold(called.group(1))))
        for bound in bounds:
            self._mounts(bound)

    def router(self, path: str, owner: str, name: str) -> Key | None:
        """The router ``name`` means in ``owner`` of ``path``: the function's own, else the module's."""
        for key in ((path, owner, name), (path, "", name)):
            if key in self.routers:
                return key
        return None

    def _mounts(self, bound: Bound) -> None:
        folder = ScriptFolder(self.files, bound.path)
        for call in bound.facts.calls:
            receiver = call.receiver
            if call.name == "prefix" and receiver and receiver[0] == "name" and call.args and \
                    (key := self.router(bound.path, call.owner, receiver[1])) is not None:
                self.prefix_calls.setdefault(key, []).append((bound.path, call.owner, call.line,
                                                              folder.fold(call.args[0])))
                continue
            if call.name not in ("use", "mount") or not call.args or call.name == "mount" and receiver is not None:
                continue
            parent = self.router(bound.path, call.owner, receiver[1]) if call.name == "use" and receiver and \
                receiver[0] == "name" else None
            has_path = bool(_STRING.match(call.args[0].strip()))
            if call.name == "use" and parent is None or call.name == "mount" and not has_path:
                continue   # an app's use takes no path (the router serves at the root), or no router here
            path = folder.fold(call.args[0]) if has_path else literal("")
            for arg in call.args[1 if has_path else 0:]:
                key, maybe = self.child(bound.path, call.owner, arg.strip())
                if key is not None:
                    self.mounts.setdefault(key, []).append((parent, path, (bound.path, call.owner, call.line)))
                elif maybe or call.name == "mount" and not self.library_middleware(bound, arg.strip()):
                    self.unplaced.add(bound.ctx.microservice)

    def library_middleware(self, bound: Bound, written: str) -> bool:
        """Whether a mounted value is made by a package's function (``serve('public')`` of koa-static): it holds
        none of the project's routers."""
        made = re.match(r"^([A-Za-z_$][\w$]*)\s*\(", written)
        return made is not None and any(
            alias == made.group(1) and not imp.target.startswith(".") and imp.target not in PACKAGES
            for imp in bound.facts.imports for _, alias in imp.names)

    def child(self, path: str, owner: str, written: str, hops: int = 0) -> tuple[Key | None, bool]:
        """The router a mounted value is (``r.routes()``, ``r``, or what a project module exports as one), and
        whether a value not known may be one (a ``.routes()`` of another value, a project module's export)."""
        routes = _ROUTES.match(written)
        name = routes.group(1) if routes else written if re.fullmatch(r"[A-Za-z_$][\w$]*", written) else None
        if name is None or hops > 5:
            return None, routes is not None or bool(re.search(r"\.\s*(?:routes|middleware)\s*\(\s*\)$", written))
        key = self.router(path, owner, name)
        if key is not None:
            return key, True
        for imp in self.files[path].imports:
            for imported, alias in imp.names:
                if alias != name or not imp.target.startswith("."):
                    continue
                target = resolve_script(self.files, path, imp.target)
                if target is None:
                    return None, True
                extra = self.files[target].extra
                exported = [v for _, values in extra.get("assigns", {}).get("", {}).get("module.exports", [])
                            for v in values][-1:] if imported in ("require", "default") else []
                exported = exported or [e for e in (extra.get("default") if imported == "default" else
                                                    extra.get("exports", {}).get(imported, imported),) if e]
                return self.child(target, "", exported[0].strip(), hops + 1) if exported else (None, True)
        return None, routes is not None

    def own(self, key: Key, at: tuple[str, str, int]) -> list[Folded]:
        """The router's own prefix for a route registered (or a router mounted) ``at`` (file, function, line):
        ``prefix(p)`` sets the prefix of the routes registered after it (the option's replaced) and puts ``p``
        before those registered already, so the order of the calls and the route counts; where it is not known (a
        call in another function or file), the prefix is unknown unless one call without an option makes it."""
        calls = self.prefix_calls.get(key, [])
        if not calls:
            return self.routers[key]
        if any(call[:2] != at[:2] for call in calls):
            if len(calls) == 1 and self.routers[key] == [literal("")]:
                return [calls[0][3]]
            return [unknown(f"the router {key[2]} of {key[0]} has prefix() calls in another function or file: "
                            "which one a route is under is not known")]
        before = [call for call in calls if call[2] <= at[2]]
        prefixes = [max(before, key=lambda call: call[2])[3]] if before else self.routers[key]
        for call in sorted((call for call in calls if call[2] > at[2]), key=lambda call: call[2]):
            prefixes = [join_paths([call[3], p]) for p in prefixes]
        return prefixes

    def prefixes(self, key: Key, at: tuple[str, str, int], depth: int = 0) -> list[Folded]:
        own = self.own(key, at)
        if key not in self.mounts:
            if self.service[key] in self.unplaced:
                return [unknown(f"the router {key[2]} of {key[0]} may be mounted at a path the project sets on a "
                                "router it does not name")]
            return own
        if depth > 8:
            return [unknown(f"the router {key[2]} of {key[0]} is mounted in a cycle")]
        above = [p for parent, path, where in self.mounts[key]
                 for p in ([join_paths([q, path]) for q in self.prefixes(parent, where, depth + 1)] if parent
                           else [path])]
        return [join_paths([a, o]) for a in above for o in own]


def _root(receiver: list | None) -> str | None:
    """The variable a call chain starts at (``router.get(..).post(..)`` -> ``router``)."""
    while receiver and receiver[0] == "call":
        receiver = receiver[1]
    return receiver[1] if receiver and receiver[0] == "name" else None


def read_koa(project: KoaProject, bound: Bound) -> Iterator[Item]:
    facts = bound.facts
    folder = ScriptFolder(project.files, bound.path)
    by_key = {sym.key: index for index, sym in enumerate(facts.symbols)}
    for call in facts.calls:
        if call.kind != "call" or call.name not in VERBS or not call.args:
            continue
        name = _root(call.receiver)
        key = project.router(bound.path, call.owner, name) if name else None
        if key is None:
            continue
        written = call.args[1] if len(call.args) > 1 and _STRING.match(call.args[0].strip()) and \
            _STRING.match(call.args[1].strip()) else call.args[0]   # router.get("name", "/path", ..)
        inline = facts.extra.get("inline_handlers", {}).get(str(call.line))
        named = None if inline else project.named_handlers.of(bound, call)   # `script_handlers`
        handler = named + (None,) if named else \
            (bound, by_key.get(inline, -1) if inline else by_key.get(call.owner, -1), call.line)
        for prefix in project.prefixes(key, (bound.path, call.owner, call.line)):
            yield _route(handler, call, prefix, folder.fold(written), written)


def _route(handler: tuple[Bound, int, int | None], call: CallFact, prefix: Folded, path: Folded,
           written: str) -> Item:
    """A route served by ``handler`` (its file, symbol, and the line: the call's, or the named handler's own)."""
    at, index, line = handler
    return item(at, index, "route", "koa", line, http_method=VERBS[call.name],
                path=join_paths([prefix, path]), written=written)


def prepare(files: list[Bound], project: Project) -> Reader:
    koa = KoaProject(files)
    if not koa.routers:
        return lambda bound: iter(())
    return lambda bound: read_koa(koa, bound)


FRAMEWORK = Framework("koa", ("javascript", "typescript"), prepare)
