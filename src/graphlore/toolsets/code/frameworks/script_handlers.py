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
        for scope in ([owner] if owner else []) + [None]:
            index = _declared(bound, scope, name, _CALLABLE)
            if index is not None:
                return bound, index
        imported = self._imported(bound, name)
        return imported if imported is not None and imported[0].sym(imported[1]).kind in _CALLABLE else None

    def _member(self, bound: Bound, owner: str, head: str, name: str) -> Found | None:
        if head == "this":
            return None
        cls = self._class(bound, owner, head)
        if cls is not None:
            cls_bound, index = cls
            method = cls_bound.by_key.get(f"{cls_bound.sym(index).key}.{name}")
            return (cls_bound, method) if method is not None else None
        module = self._namespace(bound, head)
        if module is None:
            return None
        found = self._exported(module, name)
        return found if found is not None and found[0].sym(found[1]).kind in _CALLABLE else None

    def _class(self, bound: Bound, owner: str, name: str, typed: bool = True) -> Found | None:
        index = _declared(bound, None, name, {"class"})
        if index is not None:
            return bound, index
        imported = self._imported(bound, name)
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
