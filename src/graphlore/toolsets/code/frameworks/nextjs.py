"""Next.js API routes, whose paths are their files' paths (no call registers them).

**Pages router**: a file under the module's ``pages/api/`` (or ``src/pages/api/``) with a default export (its
handler; a call's result is at that line, its handler the module's function the call wraps, ``export default
withAuth(handler)``, else the file's: ``export default NextAuth(options)``) is the route ``/api/<path>``: the file's path without its extension, ``index`` the folder itself,
``[id]`` a parameter ``{id}``, the catch-all ``[...slug]`` ``{slug}/**`` (one segment or more), the optional
``[[...slug]]`` ``**`` (the folder itself too). Its methods are the ones the file
compares ``req.method`` (or a ``method`` variable: ``const { method } = req``) with as literals (``req.method
=== "POST"``, ``case "GET":``), else any method.

**App router**: a ``route.ts``/``route.js`` under the module's ``app/`` (or ``src/app/``) serves each HTTP method
it exports a function for (``export async function GET(...)``, ``export const POST = ...``, ``export { h as
DELETE }``) at the folder's path: route groups ``(group)`` and parallel slots ``@slot`` add no segment,
``[id]`` is ``{id}`` (catch-alls as in the pages router); a folder named ``_x`` (private) holds no route.

Both are read in a Next.js module only: one with a ``next.config.*`` at its root, or in a file that imports
``next`` (``next/server``, ...). The ``basePath`` that ``next.config`` sets (a string, or a constant of the file
that is one) prefixes every route; one set otherwise (``process.env.BASE_PATH``) is a part not known (``{?}``),
said on the route, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import Folded, literal, unknown
from ..languages.symbols import Bound
from ..services.endpoints import ANY, HTTP_METHODS, Item
from .base import Framework, Project, Reader, item

_PAGES = re.compile(r"^(?:src/)?pages/(api(?:/.*)?)\.(?:ts|tsx|js|jsx|mjs|cjs)$")
_APP = re.compile(r"^(?:src/)?app/(?:(.*)/)?route\.(?:ts|tsx|js|jsx|mjs|cjs)$")
_CONFIG = re.compile(r"(?:^|/)next\.config\.(?:js|mjs|cjs|ts)$")
_SEGMENT = re.compile(r"^\[{1,2}(?:\.\.\.)?(\w+)\]{1,2}$")


def _inside(bound: Bound) -> str:
    """The file's path inside its module."""
    module = bound.ctx.module
    return bound.path if module in (".", "") else bound.path.removeprefix(module + "/")


def _path(segments: list[str]) -> str | None:
    """A URL path from folder and file names (None when a private folder makes it no route)."""
    out = []
    for segment in segments:
        if segment.startswith("_"):
            return None
        if segment.startswith("(") and segment.endswith(")") or segment.startswith("@"):
            continue
        param = _SEGMENT.match(segment)
        if param is None:
            out.append(segment)
        elif segment.startswith("[[..."):   # an optional catch-all: the folder itself and every path under it
            out.append("**")
        elif segment.startswith("[..."):   # a catch-all: one segment or more
            out += [f"{{{param.group(1)}}}", "**"]
        else:
            out.append(f"{{{param.group(1)}}}")
    return "/" + "/".join(out)


def _next_modules(files: list[Bound]) -> set[str]:
    """The modules that hold a ``next.config.*`` file."""
    return {b.ctx.module for b in files if _CONFIG.search(b.path) and _inside(b).count("/") == 0}


def _imports_next(bound: Bound) -> bool:
    return any(imp.target == "next" or imp.target.startswith("next/") for imp in bound.facts.imports)


def _base(project: Project, module: str) -> Folded:
    """The module's ``basePath`` (see the module docstring) as the start of its routes' paths."""
    values = project.values(module)
    if values.next_base_path is None:
        return unknown(f"next.config sets basePath to {values.next_base_path_written}, which is not read")
    return literal(values.next_base_path)


def read_next(modules: set[str], project: Project, bound: Bound) -> Iterator[Item]:
    if bound.ctx.module not in modules and not _imports_next(bound):
        return
    base = _base(project, bound.ctx.module)
    inside = _inside(bound)
    facts = bound.facts
    by_key = {sym.key: index for index, sym in enumerate(facts.symbols)}
    page = _PAGES.match(inside)
    if page is not None and (facts.extra.get("default") or facts.extra.get("default_call")):
        segments = page.group(1).split("/")
        if segments[-1] == "index":
            segments.pop()
        path = _path(segments)
        if path is None:
            return
        # a handler wrapped in a call: the module's function it wraps (``withAuth(handler)``), else the file's
        # (``export default NextAuth(options)``)
        handler = by_key.get(facts.extra.get("default") or "", -1)
        wrapped = by_key.get(facts.extra.get("default_wraps") or "", -1)
        if handler < 0 and wrapped >= 0 and facts.symbols[wrapped].kind == "function":
            handler = wrapped
        methods = [m for m in facts.extra.get("method_checks", []) if m in HTTP_METHODS] or [ANY]
        for method in methods:
            yield item(bound, handler, "route", "nextjs", facts.extra.get("default_call"), http_method=method,
                       path=base + literal(path), written=inside)
        return
    app = _APP.match(inside)
    if app is None:
        return
    path = _path(app.group(1).split("/") if app.group(1) else [])
    if path is None:
        return
    for exported, local in facts.extra.get("exports", {}).items():
        if exported in HTTP_METHODS:
            yield item(bound, by_key.get(local, -1), "route", "nextjs", None, http_method=exported,
                       path=base + literal(path), written=f"{inside} {exported}")


def prepare(files: list[Bound], project: Project) -> Reader:
    modules = _next_modules(files)
    return lambda bound: read_next(modules, project, bound)


FRAMEWORK = Framework("nextjs", ("typescript", "javascript"), prepare)
