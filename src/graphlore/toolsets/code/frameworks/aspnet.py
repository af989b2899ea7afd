"""ASP.NET Core routes and ``HttpClient`` clients, read from the facts of C# files.

**Routes.** Attribute routing (an action with no template under a class with none is routed by the app's
conventional route table: its path is unknown): a controller (``[ApiController]``, a ``Controller``/``ControllerBase``
subclass, or a class whose name ends in ``Controller``) maps each action with ``[HttpGet("...")]`` ...
``[HttpPatch]`` (or ``[Route("...")]`` alone: any method) under each class-level ``[Route("...")]``; the
``[controller]`` and ``[action]`` tokens take the class name without ``Controller`` and the action's name as written
(``DroneDeliveriesController`` -> ``DroneDeliveries``: the path ASP.NET publishes; it matches requests without case,
and so do the links to these routes; the action's name is its ``[ActionName]``, else the method's without ``Async``),
``[area]`` the class's ``[Area]``, and an action template starting with ``/`` or ``~/`` ignores the class's. Minimal APIs: ``MapGet(path, handler)``
... ``MapPatch``, ``MapMethods(path, methods, handler)`` and ``Map(path, handler)`` on an app, endpoints or a
``MapGroup(prefix)`` group: a group's chained conventions (``.WithTags(..)``) keep it, groups nest, a local holds
what it was made with (unknown when it is given several values), and a builder parameter holds what each caller
passes (one route per distinct prefix; unknown when no caller is read or the method's name is not unique); the
handler is the method a method group
names, else the registering method. ``{id?}`` is ``{id}``. ``MapForwarder(pattern, target[, path])`` is a gateway
route forwarding to the target (YARP's direct forwarding); ``MapHub<THub>(path)`` (SignalR) is the route ``ANY path``
handled by the hub class. Modules: a Carter module's ``AddRoutes(IEndpointRouteBuilder
app)`` (``ICarterModule``, or a ``CarterModule`` with its base path ``: base("/x")``) maps under the group each
``MapCarter()`` of a process running it is called on (unknown when none is read); a FastEndpoints endpoint
(``Endpoint<TReq, TRes>``, ...) maps what its ``Configure()`` declares (``Get("/a")``, ``Verbs`` + ``Routes``) under
its ``UseFastEndpoints`` ``RoutePrefix``.

**Clients.** ``GetAsync``, ``PostAsync``, ``PutAsync``, ``DeleteAsync``, ``PatchAsync``, ``GetStringAsync``,
``GetFromJsonAsync``, ``PostAsJsonAsync``, ``PutAsJsonAsync`` ... on a receiver typed ``HttpClient`` (a local,
parameter, field or property), and ``SendAsync`` with a ``new HttpRequestMessage(HttpMethod.X, url)`` made in
the same method. A relative URL starts at the ``BaseAddress = new Uri(...)`` that the class's typed-client
registration (``AddHttpClient<Class>(c => c.BaseAddress = ...)``, in its module, else in the app whose file names
the class) sets, else the one set in the same class, else the only one set in the module outside another class's
registration; a URL without a scheme or a leading ``/`` is a path under it, never a host.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.csharp.constants import CSharpConstants, CSharpFolder
from ..languages.folding import ENV_OPEN, Folded, literal, unknown
from ..languages.symbols import Bound, reaches
from ..model import AnnotationFact, FileContext, FileFacts
from ..services.endpoints import ANY, Forward, Item, join_paths, normalise_path
from .base import Framework, Project, Reader, declared_type, item

VERBS = {"HttpGet": "GET", "HttpPost": "POST", "HttpPut": "PUT", "HttpDelete": "DELETE", "HttpPatch": "PATCH",
         "HttpHead": "HEAD", "HttpOptions": "OPTIONS"}
MAPS = {"MapGet": "GET", "MapPost": "POST", "MapPut": "PUT", "MapDelete": "DELETE", "MapPatch": "PATCH"}
#: parameter types that may be a group with a prefix (an app is the root)
GROUP_TYPES = {"IEndpointRouteBuilder", "RouteGroupBuilder"}
CLIENT_CALLS = {
    **{f"{verb}Async": verb.upper() for verb in ("Get", "Post", "Put", "Delete", "Patch")},
    "GetStringAsync": "GET", "GetStreamAsync": "GET", "GetByteArrayAsync": "GET", "GetFromJsonAsync": "GET",
    "PostAsJsonAsync": "POST", "PutAsJsonAsync": "PUT", "PatchAsJsonAsync": "PATCH", "DeleteFromJsonAsync": "DELETE",
}


def _annotations(sym) -> dict[str, AnnotationFact]:
    return {a.name.rsplit(".", 1)[-1]: a for a in sym.annotations}


def _template(annotation: AnnotationFact | None) -> str | None:
    if annotation is None:
        return None
    args = dict(annotation.args)
    return args.get("") or args.get("template") or args.get("Template")


def csharp_constants(project: Project) -> CSharpConstants:
    """Every C# constant of the project (built once per update, whichever framework asks first)."""
    return project.shared("csharp.constants", lambda: CSharpConstants(project.table, project.settings))


class AspNet:
    """The C# files of the project, their constants and the base addresses each module sets."""

    def __init__(self, bounds: list[Bound], project: Project) -> None:
        self.constants = csharp_constants(project)
        #: module -> (owner, value as written, facts, the client type an ``AddHttpClient<T>`` registers, or "", line)
        self.bases: dict[str, list[tuple[str, str, FileFacts, str, int]]] = {}
        #: client type -> its ``AddHttpClient<T>`` registrations in any module (a library's client, registered by
        #: the app that uses it), as written, with where each is made
        self.registered: dict[str, list[tuple[tuple[str, str, FileFacts, str, int], str, FileContext]]] = {}
        #: a named client's name -> its ``AddHttpClient("name", ...)`` registrations, with where each is made
        self.named: dict[str, list[tuple[str, str, FileFacts, FileContext]]] = {}
        for bound in bounds:
            for base in bound.facts.extra.get("base_addresses", []):
                if base.get("client", "").startswith("name:"):   # AddHttpClient("x", ...): CreateClient("x")'s
                    self.named.setdefault(base["client"][5:], []).append(
                        (base["owner"], base["value"], bound.facts, bound.ctx))
                elif base.get("registrar", "AddHttpClient") == "AddHttpClient":
                    found = (base["owner"], base["value"], bound.facts, base.get("client", "").rsplit(".", 1)[-1],
                             base.get("line", 0))
                    self.bases.setdefault(bound.ctx.module, []).append(found)
                    if found[3]:
                        self.registered.setdefault(found[3], []).append((found, base.get("client", ""), bound.ctx))
        self._bounds = bounds
        self._default_versions: dict[str, list[str]] = {}
        self._calls: dict[str, list] | None = None
        self._methods: dict[str, int] = {}
        self.pages = _RazorPages(self)

    def class_in_module(self, module: str, name: str) -> tuple[Bound, int] | None:
        """The one class named ``name`` that ``module`` declares (bound, symbol index), else None."""
        found = [(bound, index) for bound in self._bounds if bound.ctx.module == module
                 for index, sym in enumerate(bound.facts.symbols) if sym.kind == "class" and sym.name == name]
        return found[0] if len(found) == 1 else None

    def callers(self, name: str) -> list:
        """(bound, call) of every call of a method named ``name`` in the project's C# files."""
        if self._calls is None:
            self._calls = {}
            for bound in self._bounds:
                for call in bound.facts.calls:
                    if call.kind == "call":
                        self._calls.setdefault(call.name, []).append((bound, call))
                for sym in bound.facts.symbols:
                    if sym.kind in ("method", "function"):
                        self._methods[sym.name] = self._methods.get(sym.name, 0) + 1
        return self._calls.get(name, [])

    def default_api_version(self, bound: Bound) -> list[str]:
        """The ``DefaultApiVersion`` the API versioning options of ``bound``'s process set (``o.DefaultApiVersion =
        new ApiVersion(1, 0)`` in an ``AddApiVersioning`` lambda, or anywhere its code assigns it: the C# extractor's
        ``extra["default_api_versions"]``), as a URL segment; [] when none, several or one not read is set."""
        cached = self._default_versions.get(bound.ctx.microservice)
        if cached is None:
            cached = self._default_versions[bound.ctx.microservice] = self._default_version(bound)
        return cached

    def _default_version(self, bound: Bound) -> list[str]:
        found = set()
        for other in self._bounds:
            if other.ctx.microservice != bound.ctx.microservice and not reaches(bound.ctx, other.ctx):
                continue
            for expr in other.facts.extra.get("default_api_versions", ()):
                value = _DEFAULT_VERSION.match(expr.strip())
                if value is None:
                    return []   # a version the reader does not read
                found.add(_segment(value.group("parsed") or value.group("number") or
                                   f"{value.group('major')}.{value.group('minor') or 0}"))
        return list(found) if len(found) == 1 else []

    def declarations(self, name: str) -> int:
        """How many methods of the project's C# files are named ``name``."""
        self.callers(name)
        return self._methods.get(name, 0)

    def fold(self, facts: FileFacts, expr: str, class_key: str, owner: str | None = None, line: int = 0) -> Folded:
        folder = CSharpFolder(self.constants, facts, class_key)
        if owner is not None:
            folder.at(facts, owner, line)
        return folder.fold(expr)

    def named_base(self, name: str, bound: Bound) -> Folded | None:
        """The base address the ``AddHttpClient(name, ...)`` registrations of the process running ``bound`` set
        (its own service's or a library's; any app's for a library's file: one value), else None. Another
        deployed service's registration of the name is no registration here."""
        values = {f.text: f for f in (self.fold(facts, expr, owner.rsplit(".", 1)[0])
                                      for owner, expr, facts, where in self.named.get(name, [])
                                      if reaches(where, bound.ctx) or reaches(bound.ctx, where))}
        return next(iter(values.values())) if len(values) == 1 else None

    def base_for(self, bound: Bound, class_key: str) -> Folded | None:
        """The base address of the class's ``HttpClient``: the one its ``AddHttpClient<Class>(...)`` registration
        sets (in its module, else in a module whose process runs the class's code, never another deployed service:
        one value when several), else the one the class sets, else the only one its module sets outside another
        class's registration."""
        found = self.bases.get(bound.ctx.module, [])
        registered = [b for b in found if b[3] and b[3] == class_key.rsplit(".", 1)[-1]] or \
            [b for b, written, where in self.registered.get(class_key.rsplit(".", 1)[-1], [])
             if reaches(where, bound.ctx) and names_class(b[2], written, bound.facts.package)]
        own = [b for b in found if b[2] is bound.facts and b[0].startswith(class_key) and not b[3]]
        chosen = registered or own or [b for b in found if not b[3]]
        # each read where it is written: a local of the registering or setting method is its value there
        folded = [self.fold(facts, expr, owner.rsplit(".", 1)[0], owner, line) for owner, expr, facts, _, line in chosen]
        values = {value.text: value for value in folded}
        return next(iter(values.values())) if len(values) == 1 else None


def names_class(facts: FileFacts, written: str, namespace: str) -> bool:
    """Whether ``written`` (a type name in ``facts``' file) can be the class of that name in ``namespace``: written
    with that namespace, or written plain in the namespace, one inside it, or a file that imports it."""
    if "." in written:
        return written.rpartition(".")[0] in (namespace, namespace.rpartition(".")[2])
    return facts.package == namespace or facts.package.startswith(namespace + ".") or \
        any(i.target == namespace and i.names == (("*", "*"),) for i in facts.imports)


def _controller(sym, anns: dict[str, AnnotationFact]) -> bool:
    bases = {written.rsplit(".", 1)[-1] for _, written in sym.supers}
    return "ApiController" in anns or bool(bases & {"Controller", "ControllerBase"}) or sym.name.endswith("Controller")


def _tokens(value: Folded, tokens: dict[str, Folded]) -> Folded:
    """``[controller]``, ``[action]`` and ``[area]`` replaced with the names as written, as ASP.NET's token replacement
    does (a link matches them without case: `links.CASELESS`); a token whose value is not known leaves its part
    unknown."""
    for token, replacement in tokens.items():
        pattern = re.compile(rf"\[{token}\]", re.I)
        if pattern.search(value.text):
            value = Folded(pattern.sub(lambda _, text=replacement.text: text, value.text), value.known and replacement.known,
                           value.why + replacement.why)
    return value


def _named(web: AspNet, facts: FileFacts, class_key: str, sym, attribute: str) -> Folded | None:
    """The name an attribute gives (``[ActionName("x")]``, ``[Area(Names.Admin)]``, ``nameof(X)`` is ``X``), None
    without the attribute."""
    found = next((a for a in sym.annotations if a.name.rsplit(".", 1)[-1] in (attribute, attribute + "Attribute")),
                 None)
    if found is None:
        return None
    written = _template(found) or ""
    nameof = re.fullmatch(r"nameof\(\s*([\w.]+)\s*\)", written.strip())
    if nameof is not None:
        return literal(nameof.group(1).rsplit(".", 1)[-1])
    return web.fold(facts, written, class_key) if written else unknown(f"[{attribute}] names nothing the reader reads")


def _action_name(web: AspNet, facts: FileFacts, class_key: str, method) -> Folded:
    """``[action]``'s value: ``[ActionName("x")]``, else the method's name without ``Async`` (ASP.NET Core drops the
    suffix by default since 3.0, ``SuppressAsyncSuffixInActionNames``)."""
    named = _named(web, facts, class_key, method, "ActionName")
    return named if named is not None else literal(method.name.removesuffix("Async") or method.name)


def read_csharp(web: AspNet, bound: Bound) -> Iterator[Item]:
    facts = bound.facts
    for index, sym in enumerate(facts.symbols):
        if sym.kind == "class" and _controller(sym, _annotations(sym)):
            yield from _controller_routes(web, bound, index)
        if sym.kind == "class" and _fast_endpoint(sym):
            yield from _fast_endpoints(web, bound, sym.key)
        if sym.kind == "class":
            yield from web.pages.handlers(bound, index)
    yield from web.pages.unhandled(bound)
    yield from _minimal(web, bound)
    yield from _clients(web, bound)


#: FastEndpoints' endpoint base classes (``Ep.Req<T>.Res<U>`` is written under ``Ep``)
FAST_BASES = {"Endpoint", "EndpointWithoutRequest", "EndpointWithoutResponse", "EndpointWithMapping"}
_PREFIX = re.compile(r"RoutePrefix\s*=\s*(\"[^\"]*\"|[A-Za-z_][\w.]*)")


def _fast_endpoint(sym) -> bool:
    return any(re.sub(r"<.*", "", written).rsplit(".", 1)[-1] in FAST_BASES or written.startswith("Ep.")
               for _, written in sym.supers)


def _fast_endpoints(web: AspNet, bound: Bound, class_key: str) -> Iterator[Item]:
    """A FastEndpoints endpoint's routes: what its ``Configure()`` declares (``Get("/a", "/b")`` ... ``Patch``, or
    ``Verbs(Http.POST, ..)`` with ``Routes(..)``) under the ``RoutePrefix`` its process's ``UseFastEndpoints(c =>
    ..)`` sets (a ``Group<T>()``'s prefix is not read: unknown), handled by its ``HandleAsync``."""
    facts = bound.facts
    configure = [c for c in facts.calls if c.owner == f"{class_key}.Configure" and c.receiver is None]
    declared = [(MAPS["Map" + c.name], c.args) for c in configure if "Map" + c.name in MAPS]
    verbs = [v.rsplit(".", 1)[-1].upper() for c in configure if c.name == "Verbs" for v in c.args]
    declared += [(verb, c.args) for c in configure if c.name == "Routes" for verb in verbs or [ANY]]
    if not declared:
        return
    prefixes = {}
    for caller_bound, call in web.callers("UseFastEndpoints"):
        written = _PREFIX.search(" ".join(call.args))
        if reaches(caller_bound.ctx, bound.ctx) and written:
            value = web.fold(caller_bound.facts, written.group(1), call.owner.rpartition(".")[0])
            prefixes[value.text] = value
    if any(c.name.startswith("Group") for c in configure):
        prefixes = {"?": unknown("a FastEndpoints group's prefix is not read")}
    handler = next((bound.by_key[f"{class_key}.{name}"] for name in ("HandleAsync", "ExecuteAsync")
                    if f"{class_key}.{name}" in bound.by_key), bound.by_key.get(f"{class_key}.Configure", -1))
    for verb, templates in declared:
        for template in templates:
            own = web.fold(facts, template, class_key)
            for prefix in prefixes.values() or [literal("")]:
                yield item(bound, handler, "route", "aspnet", None, http_method=verb,
                           path=_route(join_paths([prefix, own])), written=template)


def _controller_routes(web: AspNet, bound: Bound, index: int) -> Iterator[Item]:
    facts = bound.facts
    sym = facts.symbols[index]
    area = _named(web, facts, sym.key, sym, "Area") or \
        unknown(f"{sym.name} has no [Area]: ASP.NET finds no value for its [area] token")
    prefixes = [_template(a) for a in sym.annotations if a.name == "Route"] or [None]
    for member in bound.members(sym.key):
        method = facts.symbols[member]
        if method.kind != "method":
            continue
        anns = [a for a in method.annotations if a.name in VERBS or a.name == "Route"]
        verbs = [(VERBS[a.name], _template(a)) for a in anns if a.name in VERBS]
        routes = [_template(a) for a in anns if a.name == "Route"]
        if not verbs and not routes:
            continue
        tokens = {"controller": literal(sym.name.removesuffix("Controller")), "area": area,
                  "action": _action_name(web, facts, sym.key, method)}
        pairs = [(verb, template) for verb, template in verbs] or [(ANY, None)]
        if routes:
            pairs = [(verb, template if template is not None else route) for verb, template in pairs for route in routes]
        versions = _api_versions(web, bound, sym, method)
        for verb, template in pairs:
            for prefix in prefixes:
                written = template or ""
                absolute = written.strip('"').startswith(("/", "~/"))
                parts: list[Folded] = []
                if prefix is None and template is None:   # conventional routing: the app's route table decides
                    parts.append(unknown("no [Route] template: the path comes from the app's conventional routes"))
                if prefix is not None and not absolute:
                    parts.append(_tokens(web.fold(facts, prefix, sym.key), tokens))
                if template is not None:
                    parts.append(_tokens(web.fold(facts, template.replace('"~/', '"/'), sym.key), tokens))
                seen: set[str] = set()
                for version in versions or [None]:   # one route per API version the action serves
                    path = _route(join_paths([_versioned(part, version) for part in parts]))
                    if path.text in seen:
                        continue
                    seen.add(path.text)
                    yield item(bound, member, "route", "aspnet", None, http_method=verb, path=path,
                               written=" + ".join(t for t in (prefix if not absolute else None, template) if t) or '""')


#: a route parameter constrained to an API version (``v{version:apiVersion}``): ASP.NET API Versioning's URL segment
_API_VERSION = re.compile(r"\{\s*\w+\s*:\s*apiVersion\s*\}", re.I)
#: ``options.DefaultApiVersion = new ApiVersion(1, 0)`` (``new ApiVersion(1.0)``, ``ApiVersion.Parse("1.0")``)
_DEFAULT_VERSION = re.compile(r"^(?:new\s+(?:Asp\.Versioning\.|Microsoft\.AspNetCore\.Mvc\.)?ApiVersion\s*\(\s*"
                              r"(?P<major>\d+)\s*(?:,\s*(?P<minor>\d+)\s*)?\)|new\s+ApiVersion\s*\(\s*"
                              r"(?P<number>\d+\.\d+)\s*\)|ApiVersion\.Parse\s*\(\s*\"(?P<parsed>[^\"]+)\"\s*\))$")


def _segment(version: str) -> str:
    """A version as the URL-segment reader takes it: ``1.0`` is served as ``1`` (and ``1.0``: the link matches either,
    `links`), ``1.5`` as ``1.5``; another form (a date, a status) as written."""
    numbers = re.fullmatch(r"(\d+)(?:\.(\d+))?", version.strip())
    if numbers is None:
        return version.strip()
    major, minor = numbers.groups()
    return major if minor is None or int(minor) == 0 else f"{major}.{int(minor)}"


def _versioned(part: Folded, version: str | None) -> Folded:
    """A template part with its ``{version:apiVersion}`` parameter replaced with ``version`` (None: kept)."""
    if version is None or not _API_VERSION.search(part.text):
        return part
    return Folded(_API_VERSION.sub(lambda _: version, part.text), part.known, part.why)


def _api_versions(web: AspNet, bound: Bound, cls, method) -> list[str]:
    """The API versions an action serves (ASP.NET API Versioning), as URL segments: its ``[MapToApiVersion]``s, else
    its own or its controller's ``[ApiVersion]``s, else the ``DefaultApiVersion`` its service's
    ``AddApiVersioning`` options set (one); none known (``[ApiVersionNeutral]``, a version not read): [] and the
    route keeps its parameter."""
    def written(sym, name: str) -> list[str]:
        out = []
        for annotation in sym.annotations:
            if annotation.name.rsplit(".", 1)[-1] == name:
                value = web.fold(bound.facts, _template(annotation) or "", cls.key)
                if not value.known or not value.text:
                    return []
                out.append(_segment(value.text))
        return out

    if any(a.name.rsplit(".", 1)[-1] == "ApiVersionNeutral" for a in (*cls.annotations, *method.annotations)):
        return []
    found = written(method, "MapToApiVersion") or written(method, "ApiVersion") or written(cls, "ApiVersion")
    return list(dict.fromkeys(found)) or web.default_api_version(bound)


#: a Razor Page's handler method: ``On{Verb}[{Name}][Async]`` (a named handler is chosen by ``?handler=Name``: the
#: same path)
_PAGE_HANDLER = re.compile(r"On(Get|Post|Put|Delete|Patch|Head|Options)\w*")


def page_path(path: str, template: str | None) -> Folded:
    """The route of a Razor Page: its file's place under the nearest ``Pages`` folder (``Pages/Orders/Edit.cshtml``
    -> ``/Orders/Edit``; an ``Index`` page is its folder's path; ``Areas/{area}/Pages/..`` under ``/{area}``), then
    the ``@page`` template (relative: appended; ``/x`` or ``~/x``: the whole path). A page outside a ``Pages`` folder
    is routed under the root the app configures (``RazorPagesOptions.RootDirectory``, not read): unknown."""
    written = (template or "").strip()
    if written.startswith(("/", "~/")):
        return _route(join_paths([literal(written.removeprefix("~"))]))
    parts = path.split("/")
    if "Pages" not in parts[:-1]:
        return _route(join_paths([unknown("a Razor Page outside a Pages folder: its root is the app's RootDirectory"),
                                  literal(written)]))
    at = len(parts) - 1 - parts[::-1].index("Pages", 1)
    rel = parts[at + 1:-1] + [parts[-1].removesuffix(".cshtml")]
    if rel[-1] == "Index":
        rel.pop()
    area = [parts[at - 1]] if at >= 2 and parts[at - 2] == "Areas" else []
    return _route(join_paths([literal(p) for p in (*area, *rel, written)]))


class _RazorPages:
    """The routes of routable Razor files. A Blazor component (``.razor``) serves ``GET`` at each of its ``@page
    "/template"`` directives, handled by the component. A Razor Page (``.cshtml`` with ``@page``) is served at
    `page_path` by the handler methods of its ``@model`` class (``OnGet``, ``OnPostAsync``, ``OnPostCheckOutAsync``:
    one route per method, of its verb; the page's view ``TRIGGERS`` each, ``kind: razor_page``: a request to the page
    runs them though no call names them), found among the classes of the page's own module as C# finds the name (the
    innermost enclosing namespace first: ``Pages.Basket``'s ``IndexModel`` hides ``Pages``'; a qualified
    ``Orders.EditModel`` under an enclosing namespace, never another namespace's ``Orders``; two at one depth: none); a page with no model, or whose model has no ``OnGet`` handler, serves ``GET`` itself (ASP.NET renders it). A model class two pages name serves both pages' routes. Pages are HTTP routes only in a service
    that serves them: one calling ``MapRazorPages()`` (``UseMvc()`` before ASP.NET Core 3) for Razor Pages,
    ``MapRazorComponents<T>()`` or ``MapBlazorHub()`` for components (a WebAssembly or MAUI Blazor Hybrid app's
    ``@page`` is navigation inside the app, not a request to a server)."""

    def __init__(self, web: AspNet) -> None:
        bounds = web._bounds
        self._serving = {kind: {caller.ctx.microservice for name in names for caller, _ in web.callers(name)}
                         for kind, names in ((".cshtml", ("MapRazorPages", "UseMvc", "UseMvcWithDefaultRoute")),
                                             (".razor", ("MapRazorComponents", "MapBlazorHub")))}
        classes: dict[tuple[str, str], list[Bound]] = {}
        for bound in bounds:
            for sym in bound.facts.symbols:
                if sym.kind == "class" and "razor" not in bound.facts.extra:   # a page's own class is no model
                    classes.setdefault((bound.ctx.module, sym.name), []).append(bound)
        #: (model file, model class key) -> the pages it serves: (page bound, the page's @page template)
        self.models: dict[tuple[str, str], list[tuple[Bound, str | None]]] = {}
        self._got: set[str] = set()   # pages whose model has a GET handler method
        for bound in bounds:
            model = bound.facts.extra.get("razor_model")
            if not model or not self.served(bound, ".cshtml"):
                continue
            written = re.sub(r"<.*", "", model)
            rooted = written.startswith("global::")   # ``global::A.B``: from the root namespace only
            qualifier, _, simple = written.removeprefix("global::").rpartition(".")
            # C# looks a name up from the innermost enclosing namespace outward (``Orders.EditModel`` in ``A.B`` is
            # ``A.B.Orders.EditModel``, then ``A.Orders.EditModel``, ..., then ``Orders.EditModel``), then a simple
            # name in the usings' namespaces: the nearest wins; two at one place: not known, no model
            enclosing = [".".join(bound.facts.package.split(".")[:n])
                         for n in range(bound.facts.package.count(".") + 1 if bound.facts.package and not rooted else 0,
                                        -1, -1)]
            places = {".".join(p for p in (e, qualifier) if p): at for at, e in reversed(list(enumerate(enclosing)))}
            if not qualifier:
                places.update({i.target: len(enclosing) for i in bound.facts.imports
                               if i.names == (("*", "*"),) and i.target not in places})
            found = [(places[owner.facts.package], owner, sym)
                     for owner in dict.fromkeys(classes.get((bound.ctx.module, simple), []))
                     for sym in owner.facts.symbols if sym.kind == "class" and sym.name == simple
                     and owner.facts.package in places]
            best = min((at for at, _, _ in found), default=None)
            nearest = [(owner, sym) for at, owner, sym in found if at == best]
            if len(nearest) != 1:
                continue
            owner, sym = nearest[0]
            for _, template in bound.facts.extra["razor_pages"][:1]:
                self.models.setdefault((owner.path, sym.key), []).append((bound, template))
            if any((handler := _PAGE_HANDLER.fullmatch(owner.facts.symbols[m].name)) and handler.group(1) == "Get"
                   for m in owner.members(sym.key) if owner.facts.symbols[m].kind == "method"):
                self._got.add(bound.path)

    def served(self, bound: Bound, suffix: str) -> bool:
        """Whether ``bound`` is a page of kind ``suffix`` of a service that serves such pages."""
        return bound.path.endswith(suffix) and bound.ctx.microservice in self._serving[suffix] and \
            bool(bound.facts.extra.get("razor_pages"))

    def handlers(self, bound: Bound, index: int) -> Iterator[Item]:
        """The routes of the pages whose model is class ``index`` of ``bound``, one per handler method."""
        sym = bound.facts.symbols[index]
        for page, template in self.models.get((bound.path, sym.key), []):
            path = page_path(page.path, template)
            view = next((page.ids[i] for i, s in enumerate(page.facts.symbols) if s.kind == "class"), None)
            for member in bound.members(sym.key):
                method = bound.facts.symbols[member]
                verb = _PAGE_HANDLER.fullmatch(method.name) if method.kind == "method" else None
                if verb:
                    yield item(bound, member, "route", "aspnet", None, http_method=verb.group(1).upper(), path=path,
                               written=f'@page "{template}" in {page.path}' if template is not None
                               else f"@page in {page.path}", triggered_by=view)

    def unhandled(self, bound: Bound) -> Iterator[Item]:
        """A Blazor component's routes, and a Razor Page's ``GET`` when no ``OnGet`` method of its model handles it
        (ASP.NET renders a page whose model has no handler of the request's verb: a page with only ``OnPost``
        handlers still answers ``GET``)."""
        pages = bound.facts.extra.get("razor_pages") or []
        if not (self.served(bound, ".razor") or self.served(bound, ".cshtml")) or bound.path in self._got:
            return
        index = next((i for i, s in enumerate(bound.facts.symbols) if s.kind == "class"), -1)
        for line, template in pages:
            if bound.path.endswith(".razor"):
                if template is None:
                    continue   # a component's @page names its template
                path = _route(join_paths([literal(template)]))
            elif line != pages[0][0]:
                continue   # a Razor Page has one @page
            else:
                path = page_path(bound.path, template)
            yield item(bound, index, "route", "aspnet", line, http_method="GET", path=path,
                       written=f'@page "{template}"' if template is not None else "@page")


def _route(path: Folded) -> Folded:
    """A route template with its optional parameters (``{brandId?}``) written as parameters (``{brandId}``)."""
    return Folded(re.sub(r"\{([^{}?]+)\?\}", r"{\1}", path.text), path.known, path.why)


def _group_prefixes(web: AspNet, bound: Bound, owner: str, receiver, line: int, depth: int = 0) -> list[Folded]:
    """The prefixes of the ``MapGroup`` group a receiver is ("" for an app, endpoints or a versioned API set): a
    chain's conventions (``.WithTags(..)``, ``.RequireAuthorization()``) return their group, a group's ``MapGroup``
    nests, a local holds what it was made with, and a builder parameter holds what every caller passes (one
    prefix per distinct caller's; unknown when no caller is found or the method's name is not unique)."""
    if depth > 8 or not receiver:
        return [literal("")]
    if receiver[0] == "call":
        inner = receiver[1]
        if receiver[2] != "MapGroup":
            return _group_prefixes(web, bound, owner, inner, line, depth + 1)
        made = [c for c in bound.facts.calls if c.owner == owner and c.name == "MapGroup" and c.line == line
                and c.receiver == inner and c.args]
        if len(made) != 1:
            return [unknown("a route group made by a chain the reader cannot follow")]
        return _nested(web, bound, owner, made[0], depth)
    if receiver[0] != "name":
        return [literal("")]
    name = receiver[1]
    given = [texts for at, texts in bound.facts.extra.get("assigns", {}).get(owner, {}).get(name, []) if at <= line]
    if len(given) > 1 or any(len(texts) > 1 for texts in given):   # which one holds at the call is not read
        return [unknown(f"{name} is given several values (a conditional or a reassignment)")]
    seen = [(at, t) for at, t in bound.facts.locals.get(owner, {}).get(name, []) if t and t != "?"]
    before = [(at, t) for at, t in seen if at <= line] or seen[:1]
    if not before:
        return [literal("")]
    at, made = before[-1]
    if made.startswith("~"):
        groups = [c for c in bound.facts.calls if c.owner == owner and c.name == "MapGroup" and c.line == at
                  and c.args and ".MapGroup(" in made]
        if groups:   # the last group of the chain: the one whose receiver holds every other
            return _nested(web, bound, owner, max(groups, key=lambda c: len(repr(c.receiver))), depth)
        head = re.match(r"~([A-Za-z_]\w*)\.", made)
        if head is None or head.group(1) == name:
            return [literal("")]
        return _group_prefixes(web, bound, owner, ["name", head.group(1)], at, depth + 1)
    if made.rsplit(".", 1)[-1] in GROUP_TYPES:   # a parameter: the callers pass the builder in
        module = _carter_prefixes(web, bound, owner, depth)
        return module if module is not None else _through_callers(web, bound, owner, name, depth)
    return [literal("")]


def _bases(bound: Bound, class_key: str) -> set[str]:
    """The simple names of a class's base types (``Endpoint<Req, Res>`` is ``Endpoint``)."""
    index = bound.by_key.get(class_key)
    sym = bound.facts.symbols[index] if index is not None else None
    return {re.sub(r"<.*", "", written).rsplit(".", 1)[-1] for _, written in sym.supers} if sym is not None else set()


_BASE_ARG = re.compile(r":\s*base\s*\(\s*(?:\w+\s*:\s*)?(\"(?:[^\"\\]|\\.)*\"|[A-Za-z_][\w.]*)")


def _base_argument(web: AspNet, bound: Bound, class_key: str) -> Folded | None:
    """The first argument the class's constructors pass to their base's (``: base("/api/x")``; unknown when they
    pass several), else None."""
    found = {}
    for member in bound.members(class_key):
        sym = bound.facts.symbols[member]
        written = _BASE_ARG.search(sym.signature) if sym.kind == "constructor" else None
        if written:
            value = web.fold(bound.facts, written.group(1), class_key)
            found[value.text] = value
    if len(found) > 1:
        return unknown("its constructors pass several paths to CarterModule")
    return next(iter(found.values())) if found else None


def _carter_prefixes(web: AspNet, bound: Bound, owner: str, depth: int) -> list[Folded] | None:
    """The prefixes of a Carter module's ``AddRoutes(IEndpointRouteBuilder app)`` (None for any other method): the
    group each ``MapCarter()`` call of a process running it mounts every module on (unknown when none is read),
    then a ``CarterModule`` base class's path (``: base("/api/x")``)."""
    class_key, _, method = owner.rpartition(".")
    bases = _bases(bound, class_key)
    if method != "AddRoutes" or not bases & {"ICarterModule", "CarterModule"}:
        return None
    own = literal("")
    if "CarterModule" in bases:
        own = _base_argument(web, bound, class_key) or literal("")
    found: dict[str, Folded] = {}
    for caller_bound, call in web.callers("MapCarter"):
        if reaches(caller_bound.ctx, bound.ctx):
            for prefix in _group_prefixes(web, caller_bound, call.owner, call.receiver, call.line, depth + 1):
                joined = join_paths([prefix, own])
                found[joined.text] = joined
    return list(found.values()) or [join_paths([unknown("a Carter module no MapCarter() call read mounts"), own])]


def _nested(web: AspNet, bound: Bound, owner: str, group, depth: int) -> list[Folded]:
    class_key = owner.rpartition(".")[0]
    own = web.fold(bound.facts, group.args[0], class_key)
    return [join_paths([outer, own])
            for outer in _group_prefixes(web, bound, owner, group.receiver, group.line, depth + 1)]


def _through_callers(web: AspNet, bound: Bound, owner: str, param: str, depth: int) -> list[Folded]:
    """The prefixes of the builder each caller of ``owner`` passes as ``param`` (an extension method's receiver, or
    an argument named by a plain identifier)."""
    index = bound.by_key.get(owner)
    sym = bound.facts.symbols[index] if index is not None else None
    names = [p for p, _ in sym.params] if sym is not None else []
    if sym is None or param not in names:
        return [unknown(f"{param} is a route group the caller passes in")]
    if web.declarations(sym.name) != 1:
        return [unknown(f"{param} is a route group passed to {sym.name}, a name several methods have")]
    position = names.index(param)
    extension = "(this " in sym.signature
    found: dict[str, Folded] = {}
    for caller_bound, call in web.callers(sym.name):
        class_call = call.receiver and call.receiver[0] == "name" and call.receiver[1] == sym.parent.rsplit(".", 1)[-1]
        if extension and not class_call:
            if position == 0:
                receiver = call.receiver
            else:
                receiver = _name_arg(call.args, position - 1)
        else:
            receiver = _name_arg(call.args, position)
        prefixes = [unknown(f"{param} is a route group the caller passes in")] if receiver is None else \
            _group_prefixes(web, caller_bound, call.owner, receiver, call.line, depth + 1)
        found.update((p.text, p) for p in prefixes)
    return list(found.values()) or [unknown(f"{param} is a route group the caller passes in; no caller is read")]


def _name_arg(args, position: int) -> list | None:
    written = args[position].strip() if position < len(args) else ""
    return ["name", written] if re.fullmatch(r"[A-Za-z_]\w*", written) else None


def _minimal(web: AspNet, bound: Bound) -> Iterator[Item]:
    facts = bound.facts
    for call in facts.calls:
        if call.kind != "call" or not call.receiver or not call.args:
            continue
        if call.name in MAPS:
            methods, handler_expr = [MAPS[call.name]], call.args[1] if len(call.args) > 1 else ""
        elif call.name == "MapMethods" and len(call.args) >= 3:
            methods = [m.upper() for m in re.findall(r"\"(\w+)\"|HttpMethods\.(\w+)", call.args[1])
                       for m in m if m] or [ANY]
            handler_expr = call.args[2]
        elif call.name == "Map" and len(call.args) == 2:
            methods, handler_expr = [ANY], call.args[1]
        elif call.name == "MapForwarder" and len(call.args) >= 2:
            yield _forwarder(web, bound, call)
            continue
        elif call.name == "MapHub":
            yield from _hub(web, bound, call)
            continue
        else:
            continue
        class_key = call.owner.rpartition(".")[0] if "." in call.owner else ""
        own = web.fold(facts, call.args[0], class_key)
        paths = [_route(join_paths([prefix, own]))
                 for prefix in _group_prefixes(web, bound, call.owner, call.receiver, call.line)]
        written = handler_expr.strip()
        handler = bound.by_key.get(f"{class_key}.{written}" if class_key else written) \
            if re.fullmatch(r"[A-Za-z_][\w.]*", written) else None
        owner = handler if handler is not None else bound.by_key.get(call.owner, -1)
        for method in methods:
            for path in paths:
                yield item(bound, owner, "route", "aspnet", None if handler is not None else call.line,
                           http_method=method, path=path, written=call.args[0])


def _hub(web: AspNet, bound: Bound, call) -> Iterator[Item]:
    """``MapHub<THub>(path)`` (SignalR): every request to ``path`` (the negotiate POST, the WebSocket GET, long
    polling) goes to the hub, so it is the route ``ANY path``, handled by the hub class when the module declares
    one class of that name (else by the mapping's own symbol)."""
    class_key = call.owner.rpartition(".")[0] if "." in call.owner else ""
    own = web.fold(bound.facts, call.args[0], class_key)
    types = next((t for line, name, t in bound.facts.extra.get("generic_calls", [])
                  if line == call.line and name == "MapHub"), [])
    hub = web.class_in_module(bound.ctx.module, types[0].rsplit(".", 1)[-1]) if len(types) == 1 else None
    at, index = hub if hub is not None else (bound, bound.by_key.get(call.owner, -1))
    for prefix in _group_prefixes(web, bound, call.owner, call.receiver, call.line):
        yield item(at, index, "route", "aspnet", None if hub is not None else call.line, http_method=ANY,
                   path=_route(join_paths([prefix, own])), written=f"MapHub<{', '.join(types)}>({call.args[0]})")


#: a route template's catch-all parameter at its end (``/{**rest}``, ``/{*rest}``)
_CATCH_ALL = re.compile(r"/?\{\*\*?[^{}]*\}$")


def _forwarder(web: AspNet, bound: Bound, call) -> Item:
    """``MapForwarder(pattern, target[, target path])`` (YARP's direct forwarding): a gateway route that sends what
    ``pattern`` matches to the target, at the target path when one is given, else at the same path (a pattern
    ending in a catch-all is every path under its prefix, and a target path ending in one swaps that prefix)."""
    class_key = call.owner.rpartition(".")[0] if "." in call.owner else ""
    own = web.fold(bound.facts, call.args[0], class_key)
    prefixes = _group_prefixes(web, bound, call.owner, call.receiver, call.line)
    path = join_paths([prefixes[0], own]) if len(prefixes) == 1 else join_paths([unknown("several groups"), own])
    inner = web.fold(bound.facts, call.args[2], class_key) if len(call.args) > 2 else None
    outer_text, inner_text = path.text, inner.text if inner is not None else None
    catch_all = _CATCH_ALL.search(outer_text)
    if catch_all and path.known and (inner_text is None or _CATCH_ALL.search(inner_text)):
        # ``/catalog/{**rest}`` is every path under ``/catalog``; a target path ending in it swaps that prefix
        outer_text = outer_text[:catch_all.start()] or "/"
        path = literal(outer_text.rstrip("/") + "/**")
        inner_text = _CATCH_ALL.sub("", inner_text) or "/" if inner_text is not None else None
    rewrite = (outer_text, normalise_path(inner_text)) if inner is not None and inner.known else None
    target = web.fold(bound.facts, call.args[1], class_key) if inner is None or inner.known else None
    route = item(bound, bound.by_key.get(call.owner, -1), "route", "aspnet", call.line, http_method=ANY, path=path,
                 written=call.args[0], forward=Forward(target, 0, rewrite, path.text))
    if target is None:
        route.problems.append("the path it forwards to is not known")
    return route


def _clients(web: AspNet, bound: Bound) -> Iterator[Item]:
    facts = bound.facts
    for call in facts.calls:
        receiver = call.receiver
        if call.kind != "call" or not receiver or not call.args or call.owner not in bound.by_key:
            continue
        if receiver[0] == "name" or receiver[0] == "field" and receiver[1] == ["this"]:
            typed = declared_type(bound, call.owner, receiver[-1], call.line)
        else:
            continue
        factory = _from_factory(bound, call.owner, receiver[-1], typed, call.line) if typed.rsplit(".", 1)[-1] != "HttpClient" \
            else None
        if typed.rsplit(".", 1)[-1] != "HttpClient" and factory is None:
            continue
        class_key = call.owner.rpartition(".")[0]
        if call.name in CLIENT_CALLS:
            method, url = CLIENT_CALLS[call.name], call.args[0]
        elif call.name == "SendAsync":
            made = [(c.line, c.args[0], c.args[1]) for c in facts.calls if c.owner == call.owner and c.kind == "new"
                    and c.name == "HttpRequestMessage" and len(c.args) >= 2 and c.line <= call.line]
            made += [(line, members.get("Method", "HttpMethod.Get"), members["RequestUri"])   # GET: its default
                     for owner, line, members in facts.extra.get("initialised", [])
                     if owner == call.owner and line <= call.line and "RequestUri" in members]
            if not made:
                continue
            _, verb_written, url = max(made)
            verb = verb_written.rsplit(".", 1)[-1].upper()
            method = verb if verb in ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS") else None
        else:
            continue
        # ``new Uri(x)`` (or ``UriKind.Absolute``) throws on a relative URI: x is a whole URL, never a value under the base
        absolute = url.startswith("new Uri(") and not re.search(r"UriKind\.Relative\s*\)$", url)
        url = url.removeprefix("new Uri(").removesuffix(")") if url.startswith("new Uri(") else url
        url = re.sub(r",\s*UriKind\.\w+$", "", url)   # new Uri(x, UriKind.Absolute): the URL is x
        base = web.base_for(bound, class_key) if factory is None else web.named_base(factory, bound) if factory else None
        path = web.fold(facts, url, class_key, call.owner, call.line)
        if re.match(r"[\w.~-]", path.text) and "://" not in path.text or \
                base is not None and path.text.startswith("{") and not absolute and _value_hole(url):
            path = literal("/") + path   # a relative URI: a path under the base address, never a host
        if base is not None and not base.known and ENV_OPEN in base.text and path.text.startswith("/"):
            path = base + path   # the deployment's environment settles it
        found = item(bound, bound.by_key[call.owner], "client", "http_client", call.line, http_method=method,
                     path=path, written=url)
        if base is not None and base.known:
            found.base_url = base.text
        yield found


#: a value named as an identifier (``id``, ``schedule.Id``, ``packageId``, ``package_id``): never a whole URL
_ID_NAME = re.compile(r"(?:^|\.)(?:id|Id|ID)$|[a-z0-9](?:Id|ID)$|_(?:id|ID)$")


def _value_hole(url: str) -> bool:
    """Whether ``url`` is an identifier's value (``schedule.Id``), or an interpolated string starting with one
    (``$"{p.PackageId}"``, ``$"{id}/status"``): with a base address registered, a relative URI under it. Any other
    value (``target``, ``nextUrl``, ``path``) may hold a whole URL: its start is not known."""
    hole = re.match(r'\$@?"\{([\w.]+)(?::[^}]*)?\}', url) or re.fullmatch(r"([A-Za-z_][\w.]*)", url)
    return hole is not None and _ID_NAME.search(hole.group(1)) is not None


def _from_factory(bound: Bound, owner: str, variable: str, typed: str, line: int) -> str | None:
    """For a local made by ``factory.CreateClient(...)`` on an ``IHttpClientFactory``, the client's name ("" for
    the default client); None for any other."""
    made = re.fullmatch(r"~(\w+)\.CreateClient\(\)", typed)
    if made is None or declared_type(bound, owner, made.group(1), line).rsplit(".", 1)[-1] != "IHttpClientFactory":
        return None
    assigned = [values for at, values in bound.facts.extra.get("assigns", {}).get(owner, {}).get(variable, [])
                if at <= line]
    named = re.search(r"CreateClient\(\s*\"([^\"]*)\"", assigned[-1][-1]) if assigned and assigned[-1] else None
    return named.group(1) if named else ""


def prepare(files: list[Bound], project: Project) -> Reader:
    web = AspNet(files, project)
    return lambda bound: read_csharp(web, bound)


FRAMEWORK = Framework("aspnet", ("csharp",), prepare)
