"""The project function a TS/JS route registration names as its handler (Express, Koa).

A route is most often registered with a handler written elsewhere and named by reference, not written inline:
``app.get('/health', health)``, ``router.get('/users', auth, users.list)`` (the last argument is the handler, the
ones before it middleware), ``router.put('/packages/:id', PackageControllers.upsert)``. The handler named is:

* a function of the registering function's scope or of the module (``function health``, ``const show = () =>``);
* a function another project file exports, imported by name or as default (``import { show } from './users'``,
  ``const { show } = require('./users')``), followed through re-exports (``export * from``, ``export { X } from``);
* ``ns.name``: an export of a project module imported whole (``import * as users``, ``const users =
  require('./users')``; ``module.exports = { list }`` and ``exports.remove = ..`` export too);
* ``Cls.name`` or ``obj.name``: the method of a project class, the class named directly (declared in the file or
  imported) or as the type a local of the registering scope or the module is made or declared with (``const ctl =
  new UserController()``). Inherited methods are not followed.

A name a parameter or local of the registering function (or of a function around it) binds shadows the module's
and the imports: only a local's class is followed then (``function mount(health) { app.get('/h', health) }`` names
whatever the caller passes, not the module's ``health``).

Anything else (``this.x``, a call such as ``asyncHandler(fn)``, a library's middleware, a function of another
microservice, an argument beyond the three a call site keeps) names no handler: the registering symbol stays the
route's handler, as before (never a guess).
"""

from __future__ import annotations

import re

from ..languages.symbols import Bound
from ..languages.typescript.constants import resolve_script
from ..model import CallFact

_REFERENCE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?")
_CALLABLE = frozenset({"function", "method"})
Found = tuple[Bound, int]


class ScriptHandlers:
    """Handlers named by reference, over the project's TS/JS files (by path)."""

    def __init__(self, bounds: list[Bound]) -> None:
        self.files = {b.path: b for b in bounds}

    def of(self, bound: Bound, call: CallFact) -> Found | None:
        """The project function the last argument of a route registration names, in ``bound``'s microservice."""
        if call.argc < 2 or len(call.args) < call.argc:   # no handler, or the last argument not kept
            return None
        written = call.args[-1].strip()
        if not _REFERENCE.fullmatch(written):
            return None
        head, _, name = written.rpartition(".")
        found = self._function(bound, call.owner, name) if not head else self._member(bound, call.owner, head, name)
        if found is None or found[0].ctx.microservice != bound.ctx.microservice:
            return None
        return found

    def _function(self, bound: Bound, owner: str, name: str) -> Found | None:
        for scope in [*_scopes(owner), None]:
            index = _declared(bound, scope, name, _CALLABLE)
            if index is not None:
                return bound, index
            if scope is not None and _binds(bound, scope, name):   # a parameter or local shadows what is outside
                return None
        imported = self._imported(bound, name)
        return imported if imported is not None and imported[0].sym(imported[1]).kind in _CALLABLE else None

    def _member(self, bound: Bound, owner: str, head: str, name: str) -> Found | None:
        if head == "this":
            return None
        shadowed = any(_binds(bound, scope, head) for scope in _scopes(owner))   # then only a local's class counts
        cls = self._class(bound, owner, head, named=not shadowed)
        if cls is not None:
            cls_bound, index = cls
            method = cls_bound.by_key.get(f"{cls_bound.sym(index).key}.{name}")
            return (cls_bound, method) if method is not None else None
        module = self._namespace(bound, head) if not shadowed else None
        if module is None:
            return None
        found = self._exported(module, name)
        return found if found is not None and found[0].sym(found[1]).kind in _CALLABLE else None

    def _class(self, bound: Bound, owner: str, name: str, typed: bool = True, named: bool = True) -> Found | None:
        """The project class ``name`` stands for: a class of the module or imported (unless ``named`` is False: a
        local of that name shadows them), else the one class a local of that name is made or declared with."""
        index = _declared(bound, None, name, {"class"}) if named else None
        if index is not None:
            return bound, index
        imported = self._imported(bound, name) if named else None
        if imported is not None:
            return imported if imported[0].sym(imported[1]).kind == "class" else None
        if not typed:
            return None
        for scope in dict.fromkeys([owner, ""]):   # a local made or declared with a class: its instance
            types = {t for _, t in bound.facts.locals.get(scope, {}).get(name, []) if t and t != "?"}
            if len(types) == 1 and re.fullmatch(r"[A-Za-z_$][\w$]*", (only := types.pop())):
                return self._class(bound, owner, only, typed=False)
            if types:
                return None
        return None

    def _imported(self, bound: Bound, name: str) -> Found | None:
        for imp in bound.facts.imports:
            for imported, alias in imp.names:
                if alias == name and imported not in ("*", "require") and imp.target.startswith("."):
                    target = resolve_script(self.files, bound.path, imp.target)
                    return self._exported(target, imported) if target else None
        return None

    def _namespace(self, bound: Bound, name: str) -> str | None:
        for imp in bound.facts.imports:
            if imp.target.startswith(".") and any(alias == name and imported in ("*", "require")
                                                  for imported, alias in imp.names):
                return resolve_script(self.files, bound.path, imp.target)
        return None

    def _exported(self, path: str, name: str, depth: int = 0) -> Found | None:
        """The module-level symbol file ``path`` exports as ``name`` (``default``: its default export)."""
        bound = self.files.get(path)
        if bound is None or depth > 4:
            return None
        extra = bound.facts.extra
        local = extra.get("default") if name == "default" else (extra.get("exports") or {}).get(name)
        if local:
            index = _declared(bound, None, local, None)
            return (bound, index) if index is not None else None
        for imp in bound.facts.imports:
            if not (imp.reexport and imp.target.startswith(".")):
                continue
            for imported, alias in imp.names:
                if alias == name or imported == "*":
                    target = resolve_script(self.files, path, imp.target)
                    found = self._exported(target, name if imported == "*" else imported, depth + 1) \
                        if target else None
                    if found is not None:
                        return found
        return None


def _declared(bound: Bound, scope: str | None, name: str, kinds: set[str] | frozenset[str] | None) -> int | None:
    """The one symbol named ``name`` directly in ``scope`` (None: the module) of one of ``kinds`` (None: any)."""
    found = [i for i in bound.children.get(scope or "", []) if bound.sym(i).name == name
             and (kinds is None or bound.sym(i).kind in kinds)]
    return found[0] if len(found) == 1 else None


def _scopes(owner: str) -> list[str]:
    """The registering function and the functions around it, innermost first (``a.b`` -> ``["a.b", "a"]``)."""
    parts = owner.split(".") if owner else []
    return [".".join(parts[:n]) for n in range(len(parts), 0, -1)]


def _binds(bound: Bound, scope: str, name: str) -> bool:
    """Whether ``name`` is a parameter or a local of the function ``scope`` (a destructured or defaulted parameter
    counts by every name written in it: a shadow is never followed outward)."""
    if name in bound.facts.locals.get(scope, {}):
        return True
    index = bound.by_key.get(scope)
    params = bound.sym(index).params if index is not None else ()
    return any(name in re.findall(r"[A-Za-z_$][\w$]*", written) for written, _ in params)
