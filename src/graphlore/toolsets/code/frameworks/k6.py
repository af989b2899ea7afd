"""k6 load tests (JavaScript) as HTTP clients of the service they load.

**Who calls.** In a file that imports ``k6/http`` (``import http from "k6/http"``, any name, or its named
functions): ``http.get(url)``, ``post``, ``put``, ``patch``, ``del`` (DELETE), ``head``, ``options``, and
``http.request(method, url)`` / ``asyncRequest``. ``http.batch`` (requests as data) is not read.

**Where to.** The URL as written, folded as every TS/JS value is (template literals, constants, locals);
k6's ``__ENV.X`` is an environment variable, settled with the environment the project's deployment files give
the service (its Dockerfile's ``k6 run -e X=...`` too, `services.deployment`), with the default a
``__ENV.X || "..."`` gives when none does. A URL that does not fold leaves the client unresolved, saying why.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..languages.folding import unknown
from ..languages.symbols import Bound
from ..languages.typescript.constants import ScriptFolder
from ..services.endpoints import Item
from .base import Framework, Project, Reader, item

MODULE = "k6/http"
#: k6's request functions -> the method ("" : the first argument says)
FUNCTIONS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "del": "DELETE", "head": "HEAD",
             "options": "OPTIONS", "request": "", "asyncRequest": ""}


def _names(bound: Bound) -> tuple[set[str], dict[str, str]]:
    """The names ``k6/http``'s module goes by in the file, and its functions imported by name (alias -> name)."""
    modules, functions = set(), {}
    for imp in bound.facts.imports:
        if imp.target != MODULE:
            continue
        for imported, alias in imp.names:
            if imported in ("default", "*", "require"):
                modules.add(alias)
            elif imported in FUNCTIONS:
                functions[alias] = imported
    return modules, functions


def read_k6(files: dict, bound: Bound) -> Iterator[Item]:
    modules, functions = _names(bound)
    if not modules and not functions:
        return
    facts = bound.facts
    folder = ScriptFolder(files, bound.path)
    by_key = {sym.key: index for index, sym in enumerate(facts.symbols)}
    for call in facts.calls:
        receiver = call.receiver
        if receiver and receiver[0] == "name" and receiver[1] in modules and call.name in FUNCTIONS:
            name = call.name
        elif receiver is None and call.name in functions:
            name = functions[call.name]
        else:
            continue
        method, at = FUNCTIONS[name], 0
        if not method:   # http.request(method, url, ...)
            value = folder.at(facts, call.owner, call.line).fold(call.args[0]) if call.args else unknown("no method")
            method, at = (value.text.upper() if value.known else None), 1
        written = call.args[at] if len(call.args) > at else ""
        path = folder.at(facts, call.owner, call.line).fold(written) if written else \
            unknown(f"the call's URL is not readable ({', '.join(call.args) or 'no argument'})")
        yield item(bound, by_key.get(call.owner, -1), "client", "k6", call.line, http_method=method, path=path,
                   written=written)


def _imports_k6(bound: Bound) -> bool:
    return any(imp.target == MODULE for imp in bound.facts.imports)


def prepare(files: list[Bound], project: Project) -> Reader:
    sources = {b.path: b.facts for b in files}
    return lambda bound: read_k6(sources, bound) if project.memo.get("k6", bound, _imports_k6) else ()


FRAMEWORK = Framework("k6", ("javascript", "typescript"), prepare)
