"""PHP routes (Symfony, Laravel, Slim, plain routers) and HTTP clients (curl, Guzzle, Symfony HttpClient, Laravel's
``Http``, ``file_get_contents``), read from the facts of PHP files.

**Symfony** (``Route`` as Symfony's or Sensio's, or not imported): ``#[Route('/p', methods: ['GET'])]`` attributes
and ``@Route("/p", methods={"GET"})`` docblock annotations on a method (``path`` named or first), under the class's
own ``Route``, under the ``prefix`` of each import of the module's routing files (``config/routes.yaml``,
``config/routes/*.yaml``) or of its Kernel's ``configureRoutes`` in PHP (`kernel_imports`) whose ``resource``
covers the class (``routing.controllers``, its folder, its namespace; a prefix per locale is unknown); no
``methods`` is any method. A route those files declare (``path`` and
``controller: App\\Controller\\X::m``) is that method's.

**Laravel**: ``Route::get/post/put/patch/delete/options/any(path, ...)``, ``Route::match([methods], path, ...)`` and
``Route::resource``/``apiResource(name, ...)`` (the controller's conventional actions), inside
``Route::prefix('p')->group(...)`` / ``Route::group(['prefix' => 'p'], ...)`` groups; a file ``routes/api.php`` is
served under ``/api`` (Laravel's default).

**Slim** (a file that imports ``Slim\\`` or makes a ``new \\Slim\\App``): ``->get/post/put/patch/delete/options/any(path,
handler)`` and ``->map([methods], path, handler)`` on an app or a group (`_slim_app`), inside ``->group('/p', ...)``.

**Plain routers** (``php_router``): a ``switch`` over ``$_SERVER['REQUEST_URI']`` (or a variable assigned from it)
with string-literal ``case '/path':`` labels, any method.

A registered route's handler is the project method it names (`_handler`), else the symbol around the registration.

**Clients.** curl: ``curl_init($url)``, else ``curl_setopt($h, CURLOPT_URL, $url)`` or a ``CURLOPT_URL`` entry of
``curl_setopt_array`` (the method: ``CURLOPT_CUSTOMREQUEST`` or ``CURLOPT_POST`` set in the same function, else
GET). Laravel: ``Http::get/post/put/patch/delete/head(url)``, after ``withToken(...)``-style calls too, from the
chain's ``baseUrl(...)``. Guzzle: ``get/post/put/patch/delete/head/options(url)`` (and their ``...Async``) and
``request(method, url)`` on a receiver declared or made as ``GuzzleHttp\\Client``/``ClientInterface``; a relative
URL is resolved against the ``base_uri`` the receiver is made with (in the function, or for ``$this->c`` in the
class; an injected client has none) as Guzzle does (RFC 3986: a
path starting with ``/`` replaces the base's path, `services.endpoints.resolve_reference`). Symfony HttpClient: ``request(method,
url)`` on a receiver declared as ``HttpClientInterface`` or made by ``HttpClient::create()``.
``file_get_contents(url)`` when the URL starts with ``http://`` or ``https://`` (or an environment variable whose
default in the code does). URLs are folded as every PHP value is (`languages.php.constants`): literals, class
constants, locals, properties set in the class, constructor arguments, ``getenv``/``$_ENV`` settled with the
project's deployment environment; what does not fold stays unresolved, saying why.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from ..languages.folding import (
    ENV_CLOSE,
    ENV_DEFAULT,
    ENV_OPEN,
    Folded,
    array_items,
    literal,
    split_top,
    unknown,
)
from ..languages.php.constants import PHPConstants, PHPFolder
from ..languages.symbols import Bound, Tracker
from ..services.endpoints import ANY, HTTP_METHODS, Item, join_paths, resolve_reference
from .base import Framework, Project, Reader, declared_type, item

VERBS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE", "options": "OPTIONS",
         "any": ANY}
#: Laravel's resource actions: (method, path after the resource, the controller's action, whether ``apiResource``
#: has it); the resource's parameter is written ``{id}`` (Laravel names it after the resource in the singular)
RESOURCE = (("GET", "", "index", True), ("GET", "/create", "create", False), ("POST", "", "store", True),
            ("GET", "/{id}", "show", True), ("GET", "/{id}/edit", "edit", False), ("PUT", "/{id}", "update", True),
            ("PATCH", "/{id}", "update", True), ("DELETE", "/{id}", "destroy", True))
GUZZLE_TYPES = frozenset({"GuzzleHttp.Client", "GuzzleHttp.ClientInterface"})
SYMFONY_CLIENT_TYPES = frozenset({"Symfony.Contracts.HttpClient.HttpClientInterface",
                                  "Symfony.Component.HttpClient.HttpClient",
                                  "Symfony.Component.HttpClient.CurlHttpClient",
                                  "Symfony.Component.HttpClient.NativeHttpClient"})
LARAVEL_HTTP_CALLS = {verb: verb.upper() for verb in ("get", "post", "put", "patch", "delete", "head")}
GUZZLE_CALLS = {**{verb: verb.upper() for verb in ("get", "post", "put", "patch", "delete", "head", "options")},
                **{f"{verb}Async": verb.upper() for verb in ("get", "post", "put", "patch", "delete", "head", "options")}}
_HANDLER = re.compile(r"^(function\b|fn\b|static\s+function\b|\[|'[^']*:|\"[^\"]*:|[\w\\]+::class)")


def php_constants(project: Project) -> PHPConstants:
    return project.shared("php.constants", lambda: PHPConstants(project.table, project.settings))


class PHPFile:
    """Folds values written in one PHP file."""

    def __init__(self, bound: Bound, constants: PHPConstants) -> None:
        self.bound, self.constants = bound, constants

    def class_of(self, owner: str) -> str:
        index = self.bound.by_key.get(owner.split(".", 1)[0]) if owner else None
        return self.bound.facts.symbols[index].key if index is not None and \
            self.bound.facts.symbols[index].kind in ("class", "interface", "enum") else ""

    def fold(self, expr: str, owner: str, line: int) -> Folded:
        folder = PHPFolder(self.constants, self.bound.facts, self.class_of(owner))
        folder.at(self.bound.facts, owner, line)
        return folder.fold(expr)

    def imported(self, name: str) -> str:
        """The full name (``A.B.C``) a class name written in the file stands for."""
        for imp in self.bound.facts.imports:
            for target, alias in imp.names:
                if alias == name:
                    return target
        return name


def read_php(project: Project, bound: Bound, kernel: list[tuple[str, str | None, str]] | None = None) -> Iterator[Item]:
    php = PHPFile(bound, php_constants(project))
    values = project.values(bound.ctx.module)
    yield from _symfony(php, values.route_imports + (kernel or []))
    yield from _yaml_routes(php, values.yaml_routes)
    yield from _switch_routes(php)
    yield from _registered(php, project)
    yield from _clients(php)


# -- routes ------------------------------------------------------------------------------------------------------

def _path_arg(args: tuple[tuple[str, str], ...]) -> str | None:
    named = dict(args)
    return named.get("path") or named.get("value") or named.get("")


def _imported_under(php: PHPFile, imports: list[tuple[str, str | None, str]], class_key: str) -> list[Folded]:
    """The prefixes the module's Symfony routing files import a controller class's routes under: each import whose
    resource covers it (``routing.controllers``, a folder above its file relative to the routing file, its
    namespace); [""] when none does (the kernel imports it some other way)."""
    fqn = f"{php.bound.facts.package}.{class_key}" if php.bound.facts.package else class_key
    out: dict[str, Folded] = {}
    for source, prefix, resource in imports:
        folder = posixpath.normpath(posixpath.join(posixpath.dirname(source), resource))
        if resource == "routing.controllers" or "\\" in resource and \
                (fqn + ".").startswith(resource.replace("\\", ".").strip(".") + ".") or \
                "\\" not in resource and php.bound.path.startswith(folder.rstrip("/") + "/"):
            value = literal(prefix) if prefix is not None else unknown(f"{source} imports it under a prefix that is "
                                                                        "not one string (per locale, or not folded)")
            out.setdefault(value.text, value)
    return list(out.values()) or [literal("")]


def _symfony(php: PHPFile, imports: list[tuple[str, str | None, str]]) -> Iterator[Item]:
    bound = php.bound
    facts = bound.facts
    if not php.imported("Route").startswith(("Route", "Symfony.", "Sensio.")):
        return   # a Route of another library
    for sym in facts.symbols:
        if sym.kind != "class":
            continue
        imported = _imported_under(php, imports, sym.key) if any(
            a.name == "Route" for m in bound.members(sym.key) for a in facts.symbols[m].annotations) or any(
            a.name == "Route" for a in sym.annotations) else [literal("")]
        prefixes = [_path_arg(a.args) for a in sym.annotations if a.name == "Route"] or [None]
        methods_of = [m for m in bound.members(sym.key) if facts.symbols[m].kind == "method"]
        invokable = next((m for m in methods_of if facts.symbols[m].name == "__invoke"), None)
        routed = any(a.name == "Route" for m in methods_of for a in facts.symbols[m].annotations)
        for member in methods_of:
            method = facts.symbols[member]
            annotations = [a for a in method.annotations if a.name == "Route"]
            if member == invokable and not routed and prefixes != [None]:
                annotations = [a for a in sym.annotations if a.name == "Route"]   # an invokable controller
                prefixes_here: list[str | None] = [None]
            else:
                prefixes_here = prefixes
            for annotation in annotations:
                written = _path_arg(annotation.args)
                if written is None:
                    continue
                methods_expr = dict(annotation.args).get("methods")
                methods = [php.fold(m, method.key, method.line_start) for m in array_items(methods_expr)] \
                    if methods_expr else []
                verbs = [m.text.upper() for m in methods if m.known] if methods else [ANY]
                if methods and len(verbs) != len(methods):
                    verbs = [None]   # a method that does not fold
                for outer in imported:
                    for prefix in prefixes_here:
                        parts = [outer, *([php.fold(prefix, sym.key, sym.line_start)] if prefix else []),
                                 _route_path(php.fold(written, method.key, method.line_start))]
                        for verb in verbs:
                            yield item(bound, member, "route", "symfony", None, http_method=verb,
                                       path=join_paths(parts), written=" + ".join(p for p in (prefix, written) if p))


_PARAMETER = re.compile(r"\{(\w+)(?:<[^<>{}]*>)?(?:\?[^{}]*)?\}")


def _route_path(value: Folded) -> Folded:
    """A route's path parameters as ``{name}``: Laravel's optional ``{id?}``, Symfony's inline requirement and
    default ``{page<\\d+>?1}``."""
    return Folded(_PARAMETER.sub(lambda m: "{" + m.group(1) + "}", value.text), value.known, value.why)


def _yaml_routes(php: PHPFile, routes: list[tuple[str, str, str, tuple[str, ...]]]) -> Iterator[Item]:
    """The routes the module's Symfony routing files declare whose ``controller`` is a method of a class of this
    file (``App\\Controller\\X::m``, ``App\\Controller\\X`` for an invokable one); a controller outside the project
    (``TemplateController``) has no source to hold its route."""
    bound = php.bound
    package = bound.facts.package
    for _source, path, controller, methods in routes:
        fqn = controller.lstrip("\\").replace("\\", ".")
        owner, _, method = fqn.partition("::")
        key = owner[len(package) + 1:] if package and owner.startswith(package + ".") else (owner if not package
                                                                                           else "")
        index = bound.by_key.get(f"{key}.{method or '__invoke'}") if key else None
        if index is None:
            continue
        for verb in methods or (ANY,):
            yield item(bound, index, "route", "symfony", None, http_method=verb if verb in HTTP_METHODS or
                       verb == ANY else None, path=join_paths([_route_path(literal(path))]), written=path)


_REQUEST_PATH = re.compile(r"\$_SERVER\s*\[\s*['\"](REQUEST_URI|PATH_INFO)['\"]\s*\]")


def _switch_routes(php: PHPFile) -> Iterator[Item]:
    """A plain router: a ``switch`` over the request's path (``$_SERVER['REQUEST_URI']`` or ``PATH_INFO``, or a
    variable the file assigns from one of them) whose ``case`` is a string literal starting with ``/`` routes
    that path, any method, to the symbol around it."""
    bound = php.bound
    assigns = bound.facts.extra.get("assigns", {})
    for switch in bound.facts.extra.get("switches", []):
        subject = switch["subject"]
        if not _REQUEST_PATH.search(subject) and not (re.fullmatch(r"\$\w+", subject) and any(
                _REQUEST_PATH.search(value) for table in assigns.values() for _, values in table.get(subject, ())
                for value in values)):
            continue
        for path, line in switch["cases"]:
            if path.startswith("/"):
                owner = innermost(bound, line)
                yield item(bound, owner, "route", "php_router", line, http_method=ANY, path=join_paths([literal(path)]),
                           written=repr(path))


def innermost(bound: Bound, line: int) -> int:
    """The innermost callable around a line (-1: the file)."""
    best, size = -1, None
    for index, sym in enumerate(bound.facts.symbols):
        if sym.kind in ("function", "method", "constructor") and sym.line_start <= line <= sym.line_end and (
                size is None or sym.line_end - sym.line_start < size):
            best, size = index, sym.line_end - sym.line_start
    return best


def _groups(php: PHPFile, line: int) -> list[Folded]:
    """The prefixes of the route groups around ``line``, outermost first."""
    out = []
    for group in php.bound.facts.extra.get("route_groups", []):
        if group["start"] <= line <= group["end"]:
            out.append(php.fold(group["prefix"], "", group["line"]))
    return out


def _handler(php: PHPFile, project: Project, expr: str) -> tuple[Bound, int] | None:
    """The project method a route's handler names: ``[X::class, 'm']``, ``X::class`` (``__invoke``), ``'X:m'`` and
    ``X::class . ':m'`` (Slim), with ``X`` as the file's ``use`` imports and namespace make it (``\\A\\X`` and a
    string name the class by its full name); None otherwise."""
    expr = expr.strip()
    pair = re.fullmatch(r"\[\s*(\\?[\w\\]+)::class\s*,\s*['\"](\w+)['\"]\s*\]", expr) or \
        re.fullmatch(r"(\\?[\w\\]+)::class\s*\.\s*['\"]:(\w+)['\"]", expr) or re.fullmatch(r"['\"]([\w\\]+):(\w+)['\"]", expr)
    single = re.fullmatch(r"(\\?[\w\\]+)::class", expr)
    if pair is None and single is None:
        return None
    written, method = (pair.group(1), pair.group(2)) if pair is not None else (single.group(1), "__invoke")
    name = written.lstrip("\\").replace("\\", ".")
    head, dot, rest = name.partition(".")
    imported = php.imported(head)
    if written.startswith("\\") or expr.startswith(("'", '"')):
        fqn = name   # full already (a string names a class by its full name: no use import applies)
    elif imported != head:
        fqn = imported + dot + rest
    else:
        fqn = f"{php.bound.facts.package}.{name}" if php.bound.facts.package else name
    refs = project.table.lookup(fqn, Tracker())
    if len(refs) != 1:
        return None
    other = project.table.files[refs[0][0]]
    index = other.by_key.get(f"{other.sym(refs[0][1]).key}.{method}")
    return (other, index) if index is not None else None


def _registered(php: PHPFile, project: Project) -> Iterator[Item]:
    """Laravel's ``Route::`` facade and Slim's ``$app->`` registrations."""
    bound = php.bound
    facts = bound.facts
    slim = any(imp.target.startswith("Slim.") for imp in facts.imports) or any(
        c.kind == "new" and c.receiver and c.receiver[1].lstrip(".").startswith("Slim.") for c in facts.calls)
    laravel_file = bound.path.endswith("routes/api.php")
    for call in facts.calls:
        receiver = call.receiver
        if call.kind != "call" or not receiver or not call.args:
            continue
        laravel = receiver == ["name", "Route"] and php.imported("Route") in ("Route", "Illuminate.Support.Facades.Route")
        if laravel:
            flavor = "laravel"
        elif slim and len(call.args) >= 2 and _slim_app(php, call):
            flavor = "slim"
        else:
            continue
        path_at = 1 if call.name in ("match", "map") else 0
        if call.name in VERBS:
            methods: list[str | None] = [VERBS[call.name]]
        elif call.name in ("match", "map") and len(call.args) >= 2:
            values = [php.fold(m, call.owner, call.line) for m in array_items(call.args[0])]
            methods = [v.text.upper() for v in values] if values and all(v.known for v in values) else [None]
        elif flavor == "laravel" and call.name in ("resource", "apiResource"):
            yield from _resource(php, project, call, laravel_file)
            continue
        else:
            continue
        if len(call.args) <= path_at or (flavor == "slim" and not _HANDLER.match(call.args[path_at + 1]
                                                                               if len(call.args) > path_at + 1 else "")):
            continue
        prefix = [literal("/api")] if flavor == "laravel" and laravel_file else []
        path = join_paths([*prefix, *_groups(php, call.line),
                           _route_path(php.fold(call.args[path_at], call.owner, call.line))])
        handler = _handler(php, project, call.args[path_at + 1]) if len(call.args) > path_at + 1 else None
        where, owner = handler if handler is not None else (bound, bound.by_key.get(call.owner, -1) if call.owner else -1)
        for method in methods:
            if method is not None and method != ANY and method not in HTTP_METHODS:
                method = None
            found = item(where, owner, "route", flavor, call.line if handler is None else None, http_method=method,
                         path=path, written=call.args[path_at])
            found.microservice, found.module = bound.ctx.microservice, bound.ctx.module   # served where registered
            yield found


def _slim_app(php: PHPFile, call) -> bool:
    """Whether a call's receiver is a Slim app or route group: a variable declared or made as one of Slim's
    (``AppFactory::create()``, ``new \\Slim\\App``, a parameter typed ``App`` or ``RouteCollectorProxy``), a group
    closure's first parameter, or ``$this`` inside a group closure (Slim 3 binds it to the app)."""
    receiver = call.receiver
    groups = [g for g in php.bound.facts.extra.get("route_groups", []) if g["start"] <= call.line <= g["end"]]
    if receiver == ["this"]:
        return bool(groups)
    if receiver[0] != "name" or not receiver[1].startswith("$"):
        return False
    if any(g.get("param") == receiver[1] for g in groups):
        return True
    written = declared_type(php.bound, call.owner, receiver[1], call.line)
    if written.startswith("~"):
        written = written[1:].rsplit(".", 1)[0] if written.endswith(".create()") else ""
    head, dot, rest = written.partition(".")
    return (php.imported(head) + dot + rest).startswith("Slim.")


def _resource(php: PHPFile, project: Project, call, api_file: bool) -> Iterator[Item]:
    bound = php.bound
    name = php.fold(call.args[0], call.owner, call.line)
    prefix = [literal("/api")] if api_file else []
    for method, tail, action, in_api in RESOURCE:
        if call.name == "apiResource" and not in_api:
            continue
        path = join_paths([*prefix, *_groups(php, call.line), name, literal(tail)])
        handler = _handler(php, project, f"[{call.args[1]}, '{action}']") if len(call.args) > 1 else None
        where, owner = handler if handler is not None else (bound, bound.by_key.get(call.owner, -1) if call.owner else -1)
        found = item(where, owner, "route", "laravel", call.line if handler is None else None, http_method=method,
                     path=path, written=call.args[0])
        found.microservice, found.module = bound.ctx.microservice, bound.ctx.module
        yield found


# -- clients -----------------------------------------------------------------------------------------------------

def _array_entry(array: str, key: str) -> str | None:
    """The value of ``key => value`` in an array literal as written (``[CURLOPT_URL => $u, ...]``)."""
    text = array.strip()
    if not (text.startswith("[") and text.endswith("]")) and not text.startswith("array("):
        return None
    body = text[1:-1] if text.startswith("[") else text[6:-1]
    for part in split_top(body):
        name, arrow, value = part.partition("=>")
        if arrow and name.strip().strip("'\"") == key:
            return value.strip()
    return None


def _curl_method(php: PHPFile, owner: str, line: int) -> str | None:
    """The method the function's curl options set for the client at ``line``: ``CURLOPT_CUSTOMREQUEST`` (whatever
    the order: it overrides ``CURLOPT_POST``), else ``CURLOPT_POST``, else GET; None when the custom request does not
    fold, or a method is set only on a branch the client's own line is outside of (an ``if``: it may not run)."""
    calls = [c for c in php.bound.facts.calls if c.owner == owner and c.name in ("curl_setopt", "curl_setopt_array")]
    branches = php.bound.facts.extra.get("branches", [])
    posted = False
    for call in calls:
        pairs = [(call.args[1], call.args[2])] if call.name == "curl_setopt" and len(call.args) >= 3 else []
        if call.name == "curl_setopt_array" and len(call.args) >= 2:
            pairs = [(k, v) for k in ("CURLOPT_CUSTOMREQUEST", "CURLOPT_POST")
                     if (v := _array_entry(call.args[1], k)) is not None]
        methods = [key for key, _ in pairs if key in ("CURLOPT_CUSTOMREQUEST", "CURLOPT_POST")]
        if methods and any(start <= call.line <= end and not start <= line <= end for start, end in branches):
            return None   # a method set on one branch only: not known
        for key, value in pairs:
            if key == "CURLOPT_CUSTOMREQUEST":
                folded = php.fold(value, owner, call.line)
                return folded.text.upper() if folded.known and folded.text.upper() in HTTP_METHODS else None
            posted = posted or key == "CURLOPT_POST" and value.lower() in ("true", "1")
    return "POST" if posted else "GET"


def _receiver_type(php: PHPFile, call) -> str:
    receiver = call.receiver
    if receiver[0] == "name":
        written = declared_type(php.bound, call.owner, receiver[1], call.line)
    elif receiver[0] == "field" and receiver[1] == ["this"]:
        written = declared_type(php.bound, call.owner, receiver[2], call.line)
    else:
        return ""
    if written.startswith("~") and written.endswith("()"):
        owner, _, made = written[1:-2].rpartition(".")
        return php.imported(owner) if made in ("create", "createForBaseUri") else ""
    head, dot, rest = written.partition(".")
    return php.imported(head) + dot + rest


def _base_uri(php: PHPFile, call, types: frozenset[str]) -> Folded | None:
    """The ``base_uri`` of the client a call is made on: the one its receiver is made with (``$c = new
    Client([...])`` in the function, ``$this->c = new Client([...])`` in the class; ``HttpClient::create([...])``,
    ``createForBaseUri(url)``), one value; None when the receiver is made elsewhere (injected) or with none."""
    receiver, facts = call.receiver, php.bound.facts
    class_key = php.class_of(call.owner)
    if receiver[0] == "name":
        target, in_scope = receiver[1], (lambda owner: owner == call.owner)
    elif receiver[0] == "field" and receiver[1] == ["this"] and class_key:
        target, in_scope = f"this.{receiver[2]}", (lambda owner: owner.split(".", 1)[0] == class_key)
    else:
        return None
    lines = {made["line"] for made in facts.extra.get("constructed", []) if made["target"] == target}
    values: dict[str, Folded] = {}
    for maker in facts.calls:
        if maker.line not in lines or not in_scope(maker.owner) or not maker.args:
            continue
        made = maker.kind == "new" and php.imported(maker.receiver[1] if maker.receiver else maker.name) in types
        created = maker.kind == "call" and maker.receiver and maker.receiver[0] == "name" and \
            php.imported(maker.receiver[1]) in types and maker.name in ("create", "createForBaseUri")
        if not (made or created):
            continue
        expr = maker.args[0] if maker.name == "createForBaseUri" else _array_entry(maker.args[0], "base_uri")
        if expr is not None:
            value = php.fold(expr, maker.owner, maker.line)
            values[value.text] = value
    return next(iter(values.values())) if len(values) == 1 else None


def _clients(php: PHPFile) -> Iterator[Item]:
    bound = php.bound
    for call in bound.facts.calls:
        if call.kind != "call" or call.owner not in bound.by_key and call.owner != "":
            continue
        owner = bound.by_key.get(call.owner, -1) if call.owner else -1
        found: tuple[str, str | None, str] | None = None   # (flavor, method, url as written)
        if call.receiver is None:
            found = _function_client(php, call)
        elif call.name in LARAVEL_HTTP_CALLS and (laravel := _laravel_http(php, call)) is not None:
            url = php.fold(call.args[0], call.owner, call.line)
            if laravel is not False and not re.match(r"^\w+://", url.text):
                # Laravel joins the two with one slash (``rtrim($base, '/') . '/' . ltrim($url, '/')``)
                base = php.fold(laravel, call.owner, call.line)
                if base.known and base.text.endswith("/"):
                    base = Folded(base.text.rstrip("/"), True, base.why)
                tail = Folded(url.text.lstrip("/"), url.known, url.why)
                url = base + literal("/") + tail
            yield item(bound, owner, "client", "laravel_http", call.line, http_method=LARAVEL_HTTP_CALLS[call.name],
                       path=url, written=call.args[0])
            continue
        elif call.name in GUZZLE_CALLS or call.name in ("request", "requestAsync"):
            kind = _receiver_type(php, call)
            flavor = "guzzle" if kind in GUZZLE_TYPES else "symfony_http_client" if kind in SYMFONY_CLIENT_TYPES \
                else None
            if flavor is None or flavor == "symfony_http_client" and call.name != "request":
                continue
            if call.name in GUZZLE_CALLS:
                found = (flavor, GUZZLE_CALLS[call.name], call.args[0]) if call.args else None
            elif len(call.args) >= 2:
                verb = php.fold(call.args[0], call.owner, call.line)
                found = (flavor, verb.text.upper() if verb.known and verb.text.upper() in HTTP_METHODS else None,
                         call.args[1])
            if found is not None:
                url = php.fold(found[2], call.owner, call.line)
                types = GUZZLE_TYPES if flavor == "guzzle" else SYMFONY_CLIENT_TYPES
                base = _base_uri(php, call, types) if not re.match(r"^\w+://", url.text) else None
                if base is not None:
                    url = resolve_reference(base, url)
                yield item(bound, owner, "client", found[0], call.line, http_method=found[1], path=url,
                           written=found[2])
                continue
        if found is not None:
            url = php.fold(found[2], call.owner, call.line)
            if found[0] == "file_get_contents" and not _http_url(url):
                continue
            yield item(bound, owner, "client", found[0], call.line, http_method=found[1], path=url, written=found[2])


def _laravel_http(php: PHPFile, call) -> str | bool | None:
    """A call of Laravel's HTTP client (``Http::get(url)``, ``Http::withToken(t)->post(url)``, the facade as
    imported from ``Illuminate\\Support\\Facades`` or by its global alias): the ``baseUrl(...)`` of its chain as
    written, False when it has none; None when the call is not one."""
    if not call.args:
        return None
    chain, root = _chain(call.receiver)
    if root != ["name", "Http"] or php.imported("Http") not in ("Http", "Illuminate.Support.Facades.Http"):
        return None
    if "baseUrl" not in chain:
        return False
    bases = [c for c in php.bound.facts.calls if c.name == "baseUrl" and c.owner == call.owner and
             c.line <= call.line and c.args and _chain(c.receiver)[1] == ["name", "Http"]]
    return bases[-1].args[0] if bases else None


def _chain(receiver) -> tuple[list[str], list | None]:
    """The methods a receiver calls (``Http::a()->b()`` -> ``[b, a]``) and what the chain starts at."""
    chain = []
    while receiver and receiver[0] == "call" and receiver[1] is not None:
        chain.append(receiver[2])
        receiver = receiver[1]
    return chain, receiver


def _http_url(url: Folded) -> bool:
    """Whether a value read by ``file_get_contents`` is an HTTP URL: it starts with ``http(s)://``, or with an
    environment variable whose default in the code does (a file path never does)."""
    text = url.text
    marker = re.match(f"{ENV_OPEN}[^{ENV_CLOSE}{ENV_DEFAULT}]*{ENV_DEFAULT}([^{ENV_CLOSE}]*){ENV_CLOSE}", text)
    return bool(re.match(r"https?://", marker.group(1) if marker else text))


def _function_client(php: PHPFile, call) -> tuple[str, str | None, str] | None:
    if call.name == "curl_init" and call.args:
        return "curl", _curl_method(php, call.owner, call.line), call.args[0]
    if call.name == "curl_setopt" and len(call.args) >= 3 and call.args[1] == "CURLOPT_URL":
        return "curl", _curl_method(php, call.owner, call.line), call.args[2]
    if call.name == "curl_setopt_array" and len(call.args) >= 2:
        url = _array_entry(call.args[1], "CURLOPT_URL")
        return ("curl", _curl_method(php, call.owner, call.line), url) if url is not None else None
    if call.name == "file_get_contents" and call.args:
        return "file_get_contents", "GET", call.args[0]
    return None


_DIR_RESOURCE = re.compile(r"""^__DIR__\s*\.\s*(['"])([^'"]*)\1$""")
_LITERAL = re.compile(r"""^(['"])([^'"]*)\1$""")


def _kernel_resource(expr: str) -> str | None:
    """A folder a Kernel's ``configureRoutes`` imports, relative to the Kernel's folder (``__DIR__.'/Controller/'``,
    ``'../src/Controller/'``); None for a glob or a file of routing configuration (read as such) and any other
    expression."""
    found = _DIR_RESOURCE.match(expr.strip()) or _LITERAL.match(expr.strip())
    if found is None:
        return None
    resource = found.group(2).lstrip("/") if found.re is _DIR_RESOURCE else found.group(2)
    if not resource or any(c in resource for c in "{*%") or resource.endswith((".yaml", ".yml", ".xml", ".php")):
        return None
    return resource


def kernel_imports(files: list[Bound], project: Project) -> dict[str, list[tuple[str, str | None, str]]]:
    """Module -> the imports its Kernel's ``configureRoutes`` makes in PHP, as the routing files' are
    (`services.settings.read_symfony_routing`): ``$routes->import($resource, '/prefix', $type)`` (Symfony 4's
    ``RouteCollectionBuilder``) or ``$routes->import($resource, $type)->prefix('/prefix')`` (the
    ``RoutingConfigurator``); the prefix None when it does not fold to one string."""
    out: dict[str, list[tuple[str, str | None, str]]] = {}
    for bound in files:
        for call in bound.facts.calls:
            if call.name != "import" or not call.owner or not call.owner.endswith("configureRoutes") or not call.args:
                continue
            resource = _kernel_resource(call.args[0])
            if resource is None:
                continue
            php = PHPFile(bound, php_constants(project))
            chained = next((c for c in bound.facts.calls if c.name == "prefix" and c.line == call.line and c.args
                            and isinstance(c.receiver, list) and c.receiver[0] == "call"
                            and c.receiver[2] == "import"), None)
            written = chained.args[0] if chained else call.args[1] if len(call.args) >= 2 else None
            folded = php.fold(written, call.owner, call.line) if written is not None else literal("")
            prefix = folded.text if folded.known else None
            if chained is None and prefix is not None and not prefix.startswith("/"):
                prefix = ""   # ``import($resource, 'annotation')``: the second argument is the type
            out.setdefault(bound.ctx.module, []).append((bound.path, prefix, resource))
    return out


def prepare(files: list[Bound], project: Project) -> Reader:
    kernels = kernel_imports(files, project)
    return lambda bound: read_php(project, bound, kernels.get(bound.ctx.module, []))


FRAMEWORK = Framework("php_web", ("php",), prepare)
