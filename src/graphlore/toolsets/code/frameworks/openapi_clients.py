"""Generated OpenAPI clients (TypeScript/JavaScript): the usual way a front end calls its backend. Each
generated function is a client (``client_kind: openapi``) with its method and path, declared by that function,
so the application's calls of it are its call sites:

- **@hey-api/openapi-ts**: ``(options?.client ?? client).get({ url: '/api/items/{id}', ... })`` (any verb) in
  a file that imports the generated client (``./client.gen``, ``./client``, ``@hey-api/client-*``).
- **openapi-typescript-codegen**: ``__request(OpenAPI, { method: 'GET', url: '/api/items' })``.
- **openapi-fetch**: ``client.GET("/api/items", ...)`` (``POST`` ...) on a ``createClient(...)`` made from
  ``openapi-fetch``, in the file or imported.
- **openapi-generator's ``javascript`` client**: ``this.apiClient.callApi('/items/{id}', 'DELETE', pathParams,
  queryParams, ...)`` (the generated signature: ten arguments or more) in a generated ``api/*.js``.

**Base URL.** What the project sets in the same microservice for the same generator:
``client.setConfig({ baseURL })`` / ``createClient(createConfig({ baseURL }))`` in a file that imports the
hey-api client (hey-api), ``createClient({ baseUrl })`` imported from ``openapi-fetch`` (openapi-fetch, all
instances together) and ``OpenAPI.BASE = ...`` (codegen), folded as any value (an ``import.meta.env.X`` takes
the deployment's value). openapi-generator's JavaScript clients each have their own: the generated
``ApiClient.js``'s ``this.basePath = '...'`` (the document's server) and what the project assigns to the
``basePath`` of an instance of that ``ApiClient`` (``c = new ApiClient(); c.basePath = ...``, the class imported
from the client's folder; an instance whose class is not traced counts as a value unknown to every client of
the file). One value is the base; none or several leave the path relative, so the client stays unresolved (a
browser's relative call has no service to name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import Folded, literal, unknown
from ..languages.symbols import Bound
from ..languages.typescript.constants import ScriptFolder, resolve_script
from ..model import CallFact, FileFacts
from ..services.endpoints import Item
from ..services.openapi_generation import Generation
from .base import Framework, Project, Reader, item
from .script_web import ScriptProject, object_field

VERBS = {"get": "GET", "post": "POST", "put": "PUT", "delete": "DELETE", "patch": "PATCH", "head": "HEAD",
         "options": "OPTIONS"}
FETCH_VERBS = {v: v for v in VERBS.values()}
#: the generators, each with its own base URL (`OpenApiProject.bases`)
HEY_API, CODEGEN, FETCH, GENERATOR_JS = "hey-api", "openapi-typescript-codegen", "openapi-fetch", "openapi-generator"
#: openapi-generator's ``callApi(path, httpMethod, pathParams, queryParams, headerParams, formParams, bodyParam,
#: authNames, contentTypes, accepts, returnType, ...)``: a wrapper of another shape is not this generator's
_CALL_API_ARGS = 10
_DEFAULT_BASE = re.compile(r"^(['\"`][^'\"`]*['\"`])\.replace\(.*\)$", re.S)
#: a hey-api generated module imports its client from one of these
_HEY_API_CLIENT = re.compile(r"^@hey-api/client-|(^|/)client(\.gen)?(\.[jt]s)?$")
_BASE_KEYS = ("baseURL", "baseUrl")
_MAKERS = ("setConfig", "createClient", "createConfig")


def _is_hey_api(facts: FileFacts) -> bool:
    return any(_HEY_API_CLIENT.search(i.target) for i in facts.imports)


def _url_literal(expr: str | None) -> bool:
    return bool(expr) and expr[0] in "'\"`" and expr[1:2] == "/"


class OpenApiProject:
    """The TS/JS files, and the base URL the project gives each microservice's generated clients."""

    def __init__(self, bounds: list[Bound], documents: DocumentServers | None = None) -> None:
        self.script = ScriptProject(bounds)
        self.documents = documents or DocumentServers()
        #: (microservice, generator) -> the base URLs set for that generator's clients: one generator's
        #: setting never stands for another's (an openapi-fetch instance for one API beside hey-api for another)
        self.bases: dict[tuple[str, str], list[Folded]] = {}
        for bound in bounds:
            facts = bound.facts
            folder = ScriptFolder(self.script.files, bound.path)
            fetch_makers = {alias for i in facts.imports if i.target == "openapi-fetch" for _, alias in i.names}
            hey_api = _is_hey_api(facts)
            for call in facts.calls:
                generator = FETCH if call.name in fetch_makers else HEY_API if hey_api else None
                if call.name in _MAKERS and call.args and generator is not None:
                    inner = call.args[0]
                    for key in _BASE_KEYS:
                        expr = object_field(inner, key) or object_field(_inner_config(inner), key)
                        if expr:
                            self._add(bound, generator, folder.at(facts, call.owner, call.line).fold(expr))
            for assigns in facts.extra.get("assigns", {}).values():
                for _, values in assigns.get("OpenAPI.BASE", []):
                    for value in values:
                        self._add(bound, CODEGEN, folder.fold(value))
            self._generator_js_bases(bound, folder)

    def _generator_js_bases(self, bound: Bound, folder: ScriptFolder) -> None:
        """openapi-generator JavaScript clients' base paths, by the folder of their ``ApiClient.js``."""
        facts = bound.facts
        assigns = facts.extra.get("assigns", {})
        if bound.path.endswith("/ApiClient.js"):
            for _, values in assigns.get("ApiClient.constructor", {}).get("this.basePath", []):
                for value in values:
                    default = _DEFAULT_BASE.match(value.strip())
                    self._add_js(bound.path.rpartition("/")[0], folder.fold(default.group(1) if default else value))
        classes = {alias: i.target for i in facts.imports if i.target.startswith(".") for name, alias in i.names
                   if name == "ApiClient"}
        if not classes:
            return
        for owner, table in assigns.items():
            for target, entries in table.items():
                var, dot, field = target.rpartition(".")
                if not dot or field != "basePath":
                    continue
                made = facts.extra.get("globals", {}).get(var, "").lstrip("~").removesuffix("()")
                spec = classes.get(made)
                found = resolve_script(self.script.files, bound.path, spec) if spec else None
                homes = [found.rpartition("/")[0]] if found else [
                    r.rpartition("/")[0] for r in (resolve_script(self.script.files, bound.path, t)
                                                   for t in classes.values()) if r]
                for line, values in entries:
                    for value in values:
                        folded = folder.at(facts, owner, line).fold(value) if found else unknown(
                            f"{var}.basePath: which client {var} is is not traced")
                        for home in homes:
                            self._add_js(home, folded)

    def _add_js(self, home: str, value: Folded) -> None:
        self.bases.setdefault((home, GENERATOR_JS), []).append(value)

    def js_base(self, path: str) -> tuple[str | None, str | None]:
        """(base, why none) of the openapi-generator JavaScript client a generated ``api/*.js`` file belongs to."""
        home = path.rpartition("/")[0]
        while home and f"{home}/ApiClient.js" not in self.script.files:
            home = home.rpartition("/")[0]
        return self.base(home, GENERATOR_JS)

    def _add(self, bound: Bound, generator: str, value: Folded) -> None:
        self.bases.setdefault((bound.ctx.microservice, generator), []).append(value)

    def base(self, microservice: str, generator: str) -> tuple[str | None, str | None]:
        """(the base URL as folded, why there is none) for the microservice's clients of one generator."""
        values = sorted({v.text for v in self.bases.get((microservice, generator), [])})
        if len(values) == 1:
            return values[0] or None, None
        if not values:
            return None, "the generated client's base URL is set nowhere in the project (relative to the page)"
        return None, f"the generated client's base URL is set {len(values)} ways ({', '.join(values)[:120]})"


class DocumentServers:
    """Which document each generated client folder was made from, and which services serve each document."""

    def __init__(self, project: Project | None = None) -> None:
        #: client output (a folder or a file) -> the generator runs that write there
        self.clients: dict[str, list[Generation]] = {}
        #: document -> the microservices that serve it
        self.servers: dict[str, set[str]] = {}
        if project is None:
            return
        values = next(iter(project.settings.values()), None)
        runs = values.generations if values is not None else []
        files = project.table.files
        for run in runs:
            if run.side == "client":
                self.clients.setdefault(run.output, []).append(run)
            elif run.side == "server":   # the services whose files the server generator writes
                self.servers.setdefault(run.document, set()).update(
                    bound.ctx.microservice for path, bound in files.items()
                    if (path == run.output or path.startswith(run.output + "/")) and not bound.ctx.is_test)
        modules = {bound.ctx.module: bound.ctx.microservice for bound in project.table.files.values()}
        for module, module_values in project.settings.items():
            if module_values.openapi_generator and module in modules:
                for op in module_values.openapi:
                    self.servers.setdefault(op.file, set()).add(modules[module])

    def target(self, path: str) -> tuple[Generation | None, str | None, str]:
        """(the generator run that wrote the file, the one service serving its document, why none) for a
        generated client's file; (None, None, "") when no run the repository describes wrote it."""
        home = path
        runs: list[Generation] = []
        while home and not runs:
            runs = self.clients.get(home, [])
            home = home.rpartition("/")[0]
        documents = sorted({run.document for run in runs})
        if not documents:
            return None, None, ""
        if len(documents) > 1:
            return None, None, f"the client's folder is generated from {len(documents)} documents ({', '.join(documents)})"
        run = runs[0]
        servers = sorted(self.servers.get(run.document, ()))
        if len(servers) == 1:
            return run, servers[0], ""
        if not servers:
            return run, None, f"no service serves {run.document}, the document it is generated from ({run.where})"
        return run, None, f"{len(servers)} services serve {run.document} ({', '.join(servers)}): not told apart"


def _inner_config(text: str) -> str:
    """``createConfig({ ... })`` inside ``createClient(...)``: the object it is given."""
    found = re.match(r"^\s*createConfig(?:<[^>]*>)?\(\s*(\{.*\})\s*\)\s*$", text, re.DOTALL)
    return found.group(1) if found else ""


def read_generated(project: OpenApiProject, bound: Bound) -> Iterator[Item]:
    facts = bound.facts
    by_key = {sym.key: index for index, sym in enumerate(facts.symbols)}
    folder = ScriptFolder(project.script.files, bound.path)
    hey_api = _is_hey_api(facts)
    for call in facts.calls:
        found = _generated_call(project, bound, call, hey_api)
        if found is None:
            continue
        method, url, generator = found
        path = folder.at(facts, call.owner, call.line).fold(url)
        base, why = project.js_base(bound.path) if generator == GENERATOR_JS else project.base(
            bound.ctx.microservice, generator)
        run, service, no_service = project.documents.target(bound.path)
        if run is not None and service is not None:
            under = unknown(run.base_problem) if run.base_problem else literal(run.base)
            yield item(bound, by_key.get(call.owner, -1), "client", "openapi", call.line, http_method=method,
                       path=under + path, written=url, base_url=base, target=literal(service),
                       target_source="openapi document")
            continue
        yield item(bound, by_key.get(call.owner, -1), "client", "openapi", call.line, http_method=method,
                   path=unknown(why) + path if why else path, written=url, base_url=base,
                   problems=[no_service] if no_service else [])


def _generated_call(project: OpenApiProject, bound: Bound, call: CallFact,
                    hey_api: bool) -> tuple[str, str, str] | None:
    """(method, URL as written, generator) of a generated client's request, None for any other call."""
    if not call.args:
        return None
    receiver = call.receiver
    if call.name in VERBS and hey_api and call.argc == 1 and receiver is not None:
        url = object_field(call.args[0], "url")
        return (VERBS[call.name], url, HEY_API) if _url_literal(url) else None
    if call.name in ("__request", "request") and receiver is None and len(call.args) == 2 and call.args[0] == "OpenAPI":
        url, method = object_field(call.args[1], "url"), object_field(call.args[1], "method")
        if _url_literal(url) and method and method.strip("'\"`").upper() in FETCH_VERBS:
            return method.strip("'\"`").upper(), url, CODEGEN
        return None
    if call.name == "callApi" and call.argc >= _CALL_API_ARGS and _url_literal(call.args[0]):
        method = call.args[1].strip("'\"`").upper()
        return (method, call.args[0], GENERATOR_JS) if method in FETCH_VERBS and call.args[1][:1] in "'\"`" else None
    if call.name in FETCH_VERBS and receiver and receiver[0] == "name" and _url_literal(call.args[0]):
        found = project.script.definition(bound.path, receiver[1])
        if found is not None and _made_by_openapi_fetch(project.script.files[found[0]], found[1]):
            return call.name, call.args[0], FETCH
    return None


def _made_by_openapi_fetch(facts: FileFacts, var: str) -> bool:
    type_ = facts.extra.get("globals", {}).get(var, "")
    makers = {alias for i in facts.imports if i.target == "openapi-fetch" for _, alias in i.names}
    return type_.startswith("~") and type_[1:].split("(", 1)[0] in makers


def prepare(files: list[Bound], project: Project) -> Reader:
    openapi_project = OpenApiProject(files, DocumentServers(project))
    return lambda bound: read_generated(openapi_project, bound)


#: every file: which service serves a client's document is told by the files a server generator wrote (Go, Java, ...)
FRAMEWORK = Framework("openapi_clients", ("typescript", "javascript"), prepare, reads=None)
