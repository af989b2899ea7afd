"""JAX-RS (Jersey, RESTEasy, Quarkus, Helidon, Dropwizard, Open Liberty) routes and MicroProfile Rest Client
clients, read from the facts of Java and Kotlin files.

**Routes.** A class with ``@Path`` (its own, else one of an interface it implements) serves each method
annotated ``@GET``, ``@POST``... (``@Path`` on the method joined after the class's), under the module's
``@ApplicationPath``. JAX-RS inherits a method's annotations from the interface it implements when the class
does not annotate it: the route is filed at the class's method (at the class when it does not redeclare it).
A method with ``@Path`` and no HTTP method is a sub-resource locator: not read. A class that implements a
``@RegisterRestClient`` interface (a client's fallback or test double) serves none of its paths.

**Deployment.** In a web application (`services.webapp`) the routes are served under the war's context root
(``/{?}`` when the deployment chooses it), then under the ``web.xml`` ``<url-pattern>`` of the JAX-RS servlet
(Jersey's ``ServletContainer``, RESTEasy's ``HttpServletDispatcher``, CXF's, or a servlet named after an
``Application`` subclass), which replaces ``@ApplicationPath`` as the specification says; several patterns:
``/{?}``.

**Clients.** A ``@RegisterRestClient`` interface calls each mapped method (inherited ones too) under its
``@Path``, at its base URL: ``baseUri``, else the configuration of its ``configKey`` (or its fully qualified
name) in the module's settings: ``quarkus.rest-client.<key>.url`` (or ``.uri``), ``<key>/mp-rest/url`` (or
``/mp-rest/uri``); a ``stork://name`` URL is the addresses the settings give ``name`` (`services.discovery`). A
base URL found nowhere leaves the client unresolved, saying which keys were looked up. An inherited method the
interface does not redeclare is filed at the interface and also declared by that method (a call resolves there).
The JAX-RS client API, in files that import it: ``client.target(url).path(p)....request().get()`` (``post``,
``put``, ``delete``, ``head``, ``options``, ``method("X")``; after ``async()``/``rx()`` too), the URL the
``target`` and each ``path`` joined, folded; a chain that starts at a ``WebTarget`` variable takes its
``target(...)``: a local's, the one in its method; a field's, its initialiser's. Through the project's own client
library (`jaxrs_helpers`): a request helper's argument is the request's ``WebTarget`` (``Json.of(t).get()``); a
project method that hands out a ``WebTarget`` starts a URL whose beginning is not known; on a lambda's parameter,
the service is the one the enclosing helper call's enum argument names, and only the path's end is matched.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import UNKNOWN, Folded, literal, plain, unknown
from ..languages.symbols import Bound
from ..model import AnnotationFact, CallFact, FileFacts
from ..services.discovery import stork_url
from ..services.endpoints import Item, join_paths
from ..services.settings import Values, placeholder_keys
from .base import Framework, Project, Reader, item
from .jaxrs_helpers import RUNTIME_BASE, Helpers, argument_tree, declared_here, named_service
from .jvm import JVM_LANGUAGES, JavaFile, Mapped, Types, annotations, attr, constants, inherited_mappings

VERBS = {"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"}
#: the servlets that serve a JAX-RS application when ``web.xml`` maps them (by simple name)
SERVLETS = {"ServletContainer", "HttpServletDispatcher", "HttpServlet30Dispatcher", "CXFNonSpringJaxrsServlet",
            "CXFServlet", "Application"}
#: the JAX-RS client API's packages, and the invocation calls that send a request
CLIENT_PACKAGES = ("javax.ws.rs.client", "jakarta.ws.rs.client")
INVOKES = {"get", "post", "put", "delete", "head", "options", "trace", "method"}


def _application_paths(files: list[Bound], project: Project) -> dict[str, str]:
    """Module path -> the ``@ApplicationPath`` declared in it."""
    out = {}
    for bound in files:
        for sym in bound.facts.symbols:
            found = annotations(sym).get("ApplicationPath")
            if found is not None and sym.kind == "class":
                value = JavaFile(bound, constants(project), Values()).fold(attr(found, "value"), sym.key)
                if value.known:
                    out[bound.ctx.module] = value.text
    return out


def _applications(files: list[Bound]) -> dict[str, list[str]]:
    """Module path -> the fully qualified names of the ``Application`` subclasses declared in it."""
    out: dict[str, list[str]] = {}
    for bound in files:
        for index, sym in enumerate(bound.facts.symbols):
            if sym.kind == "class" and any(w.rsplit(".", 1)[-1] == "Application" for _, w in sym.supers):
                out.setdefault(bound.ctx.module, []).append(bound.fqns[index])
    return out


def servlet_pattern_prefix(pattern: str) -> Folded:
    """The path prefix a servlet's URL pattern serves under: ``/rest/*`` -> ``/rest``; ``/`` and ``/*`` none."""
    return literal(pattern[:-2] if pattern.endswith("/*") else pattern.rstrip("/"))


def _mount(values: Values, applications: list[str], application_path: str) -> Folded:
    """The prefix of a module's JAX-RS routes: the context root, then the servlet mapping or ``@ApplicationPath``."""
    web = values.webapp
    context = unknown(f"the context root: {web.context_source}") if web.context_root is None else literal(
        web.context())
    patterns = sorted({p for cls, found in web.mappings.items()
                       if cls.rsplit(".", 1)[-1] in SERVLETS or cls in applications for p in found})
    if web.unreadable:
        mapped = unknown(f"the JAX-RS servlet's mapping: {web.unreadable}")
    elif len(patterns) > 1:
        mapped = unknown(f"the JAX-RS servlet is mapped to several patterns in {web.web_xml}: {', '.join(patterns)}")
    else:
        mapped = servlet_pattern_prefix(patterns[0]) if patterns else literal(application_path)
    return join_paths([context, mapped])


def _own(bound: Bound, member: int) -> list[tuple[str, AnnotationFact | None]]:
    anns = annotations(bound.facts.symbols[member])
    return [(verb, anns.get("Path")) for verb in anns if verb in VERBS]


def _class_path(types: Types, bound: Bound, index: int, seen: int = 0) -> tuple[Bound, int, AnnotationFact] | None:
    """The type's ``@Path``: its own, else the first one of its supertypes (where it is written)."""
    found = annotations(bound.facts.symbols[index]).get("Path")
    if found is not None:
        return bound, index, found
    for super_bound, super_index in types.supers(bound, index) if seen < 8 else ():
        inherited = _class_path(types, super_bound, super_index, seen + 1)
        if inherited is not None:
            return inherited
    return None


def _implements_rest_client(types: Types, bound: Bound, index: int, seen: int = 0) -> bool:
    """Whether the type implements a ``@RegisterRestClient`` interface, at any depth: a fallback or a test double
    of a client, which serves none of its paths."""
    return seen < 8 and any("RegisterRestClient" in annotations(b.facts.symbols[i])
                            or _implements_rest_client(types, b, i, seen + 1) for b, i in types.supers(bound, index))


def prepare(files: list[Bound], project: Project) -> Reader:
    application_paths = _application_paths(files, project)
    applications = _applications(files)
    types = Types.of(project)
    consts = constants(project)

    helpers = Helpers.of(project)

    def read(bound: Bound) -> Iterator[Item]:
        values = project.values(bound.ctx.module)
        jf = JavaFile(bound, consts, values)
        for index, sym in enumerate(bound.facts.symbols):
            anns = annotations(sym)
            if sym.kind == "interface" and "RegisterRestClient" in anns:
                yield from _rest_client(jf, types, index, anns, values)
            elif sym.kind == "class" and "abstract" not in sym.modifiers and (
                    "Path" in anns or sym.supers and not anns.keys() & {"Controller", "Client"}
                    and not _implements_rest_client(types, bound, index)):
                found = _class_path(types, bound, index)
                if found is not None:
                    mount = _mount(values, applications.get(bound.ctx.module, []),
                                   application_paths.get(bound.ctx.module, ""))
                    yield from _routes(jf, types, index, found, mount, values)
        if any(i.target.startswith(CLIENT_PACKAGES) for i in bound.facts.imports) or helpers.called_in(
                bound.facts.calls):
            yield from _client_calls(jf, helpers, types)
    return read


def _fold_at(jf: JavaFile, bound: Bound, expr: str | None, class_key: str, values: Values) -> Folded:
    """An expression folded in the file where it is written (an interface's may be in another module)."""
    where = jf if bound is jf.bound else JavaFile(bound, jf.constants, values)
    return where.fold(expr, class_key) if expr else literal("")


def _method_path(jf: JavaFile, mapped: Mapped, values: Values) -> tuple[str, Folded]:
    written = attr(mapped.annotation, "value") or ""
    return written, _fold_at(jf, mapped.bound, written or None, mapped.class_key, values)


def _routes(jf: JavaFile, types: Types, index: int, class_path: tuple[Bound, int, AnnotationFact],
            mount: Folded, values: Values) -> Iterator[Item]:
    sym = jf.facts.symbols[index]
    path_bound, path_index, path_annotation = class_path
    base_written = attr(path_annotation, "value")
    base = _fold_at(jf, path_bound, base_written, path_bound.facts.symbols[path_index].key, values)
    for mapped in inherited_mappings(types, jf.bound, index, _own):
        written, path = _method_path(jf, mapped, values)
        owner = mapped.owner if mapped.owner is not None else index
        yield item(jf.bound, owner, "route", "jaxrs", None if mapped.owner is not None else sym.line_start,
                   http_method=mapped.verb, path=join_paths([mount, base, path]),
                   written=" + ".join(w for w in (base_written, written) if w))


def _config_key(values: Values, key: str) -> tuple[str | None, str, list[str]]:
    """The base URL a MicroProfile Rest Client's key is given in the settings, the key that gives it, and the keys
    looked up."""
    keys = [f"quarkus.rest-client.{key}.url", f'quarkus.rest-client."{key}".url', f"quarkus.rest-client.{key}.uri",
            f'quarkus.rest-client."{key}".uri', f"{key}/mp-rest/url", f"{key}/mp-rest/uri"]
    for one in keys:
        raw = values.get(one)
        if raw is not None:
            return raw, one, keys
    return None, "", keys


def _rest_client(jf: JavaFile, types: Types, index: int, anns, values: Values) -> Iterator[Item]:
    sym = jf.facts.symbols[index]
    register = anns["RegisterRestClient"]
    base_uri = attr(register, "baseUri")
    key_expr = attr(register, "configKey")
    key = jf.fold(key_expr, sym.key).text if key_expr else jf.bound.fqns[index]
    raw, found_key, looked_up = _config_key(values, key)
    if raw is not None:
        written_url = f"{found_key}={plain(raw)}"   # a value of several profiles: {a|b}
        stork = stork_url(values, found_key)
        if stork is not None:   # stork://name: the addresses the settings give name, each a value
            raw = stork[0]
            written_url += "".join(f"; {k}" for k in stork[1])
        text, missing = values.resolve(raw)
        url = Folded(text, not missing, tuple(f"placeholder ${{{k}}} is not in the module's settings" for k in missing),
                     (found_key, *placeholder_keys(raw)))
    elif base_uri:
        url, written_url = jf.fold(base_uri, sym.key), base_uri
    else:
        url = unknown(f"the base URL is not in the module's settings ({', '.join(looked_up[:1] + looked_up[4:5])})")
        written_url = ""
    found_path = _class_path(types, jf.bound, index)
    prefix_written = attr(found_path[2], "value") if found_path else None
    prefix = _fold_at(jf, found_path[0], prefix_written, found_path[0].facts.symbols[found_path[1]].key,
                      values) if found_path else literal("")
    for mapped in inherited_mappings(types, jf.bound, index, _own):
        written, path = _method_path(jf, mapped, values)
        owner = mapped.owner if mapped.owner is not None else index
        client = item(jf.bound, owner, "client", "mp_rest_client", None if mapped.owner is not None else sym.line_start,
                      http_method=mapped.verb, path=join_paths([prefix, path]),
                      written=" + ".join(w for w in (written_url, prefix_written, written) if w))
        client.target, client.target_source = url, "@RegisterRestClient url"
        if mapped.owner is None:
            client.inherited = mapped.bound.ids[mapped.member]
        client.base_url = url.text if url.known else None
        if not url.known:
            client.problems.append("; ".join(url.why) or "the base URL is not known")
        yield client


# -- the JAX-RS client API ---------------------------------------------------------------------------------------


def _client_calls(jf: JavaFile, helpers: Helpers, types: Types) -> Iterator[Item]:
    facts = jf.facts
    by_key = {sym.key: i for i, sym in enumerate(facts.symbols)}
    made: dict[tuple[str, str, str], list[CallFact]] = {}
    for one in facts.calls:
        made.setdefault((one.owner, one.name, repr(one.receiver)), []).append(one)
    for call in facts.calls:
        if call.name not in INVOKES or call.owner not in by_key:
            continue
        target_tree = _requested(call, made, helpers)
        chain = _chain(target_tree)
        if target_tree is None or not chain or target_tree is call.receiver and (
                chain[-1][0] not in ("request", "async", "rx") or "request" not in (name for name, _ in chain)):
            continue
        if call.name == "method":
            verb = (call.args[0].strip().strip('"').upper() if call.args else "")
            if verb not in VERBS:
                continue
        else:
            verb = call.name.upper()
        parts = _web_target(jf, call.owner, target_tree, call.line, made, 0, helpers.targets)
        if parts is None:
            url = unknown("the WebTarget's target(...) is not in the method or the field that holds it, or the "
                          "assignments it may come from differ")
            written: list[str] = []
        else:
            url, written = parts
        client = item(jf.bound, by_key[call.owner], "client", "jaxrs_client", call.line, http_method=verb, path=url,
                      written=" + ".join(written))
        if RUNTIME_BASE in url.why and url.text.startswith(UNKNOWN) and chain[0][0] == "var" and not declared_here(
                jf, call.owner, str(chain[0][1])):
            service, how = named_service(jf, types, call.owner, call.line, str(chain[0][1]))
            if service is not None:
                client.target, client.target_source, client.path_end_only = service, "helper argument", True
            else:
                client.problems.append(how)
        yield client


def _requested(call: CallFact, made: dict, helpers: Helpers):
    """The WebTarget tree a request invocation sends to: its receiver's, or the argument of the project's request
    helper it is made by (`jaxrs_helpers`); None when that argument's chain is not found."""
    tree = call.receiver
    if not (tree and tree[0] == "call" and tree[2] in helpers.requests):
        return tree
    index = helpers.requests[tree[2]]
    same = made.get((call.owner, tree[2], repr(tree[1])), [])
    at = [c for c in same if c.line <= call.line]
    wrap = max(at, key=lambda c: c.line) if at else None
    if wrap is None or wrap.argc <= index or index >= len(wrap.args):
        return None
    calls = [c for group in made.values() for c in group]
    return argument_tree(calls, call.owner, wrap.args[index], wrap.line)


def _chain(receiver) -> list[tuple[str, object]]:
    """A call chain from its start: (the call's name, its receiver) per call; the start is ("target", its
    receiver) for a ``target(...)`` call, else ("var", the variable's name) for a chain on a variable."""
    out: list[tuple[str, object]] = []
    while receiver and receiver[0] == "call":
        out.append((receiver[2], receiver[1]))
        if receiver[2] == "target":
            return list(reversed(out))
        receiver = receiver[1]
    if receiver and receiver[0] == "name":
        return [("var", receiver[1]), *reversed(out)]
    if receiver and receiver[0] == "field" and receiver[1] == ["this"]:
        return [("var", receiver[2]), *reversed(out)]
    return []


def _web_target(jf: JavaFile, owner: str, tree, line: int, made: dict, depth: int, target_methods=frozenset()
                ) -> tuple[Folded, list[str]] | None:
    """The URL a WebTarget expression (a call's receiver tree in ``owner``) stands for, and its parts as written:
    its ``target(...)`` and every ``path(...)`` after it, through the locals and fields that hold a WebTarget
    (assigned in the method, in a constructor or in the field's initialiser). None: no ``target(...)`` found."""
    if depth > 6 or not tree:
        return None
    class_key = owner.split("#", 1)[0]
    if tree[0] == "call":
        inner, name = tree[1], tree[2]
        same = made.get((owner, name, repr(inner)), [])
        at_line = [c for c in same if c.line == line]   # two chains alike in one method: the one at this line
        call = at_line[0] if len(at_line) == 1 else same[0] if len(same) == 1 else None
        if name == "target":
            if call is None or not call.args:
                return None
            return jf.fold(call.args[0], class_key, call.owner, call.line), [call.args[0]]
        if name in target_methods and inner and inner[0] == "name":   # a project method's WebTarget: made elsewhere
            return unknown(RUNTIME_BASE), [f"{inner[1]}.{name}()"]
        base = _web_target(jf, owner, inner, line, made, depth, target_methods)   # a chain ends: no depth spent
        if base is None or name != "path" or call is None or not call.args:
            return base
        folded = jf.fold(call.args[0], class_key, owner, call.line)
        return base[0] + (folded if folded.text.startswith("/") else literal("/") + folded), [*base[1], call.args[0]]
    if tree[0] == "name" or tree[0] == "field" and tree[1] == ["this"]:
        var = tree[-1]
        local = tree[0] == "name" and var in jf.facts.locals.get(owner, {})
        holders = [owner] if local else [m for m in _members(jf.facts, class_key)]
        names = (var,) if local else (f"this.{var}", var)
        found = [(m, at, exprs) for m in holders for n in names
                 for at, exprs in jf.facts.extra.get("assigns", {}).get(m, {}).get(n, [])
                 if not local or at <= line]
        if not found and not local:   # the field's initialiser
            found = [(f"{class_key}#{var}", c.line, [""]) for c in jf.facts.calls if c.owner == f"{class_key}#{var}"][:1]
        out = []
        for member, at, exprs in found:
            last = re.search(r"\.\s*(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*$", exprs[0]) if exprs[0] else None
            calls = [c for c in jf.facts.calls if c.owner == member and c.line == at and
                     (last is None or c.name == last.group(1))]
            trees = [["call", c.receiver, c.name, len(c.args)] for c in calls]
            outer = [t for t in trees if not any(c.receiver == t for c in calls)]   # the chain's last call
            if len(outer) == 1:
                one = _web_target(jf, member, outer[0], at, made, depth + 1, target_methods)
                if one is not None:
                    out.append(one)
        # every assignment the value may come from (control flow is not read) must be read and agree
        return out[0] if len(out) == len(found) and len({o[0].text for o in out}) == 1 else None
    return None


def _members(facts: FileFacts, class_key: str) -> list[str]:
    return [s.key for s in facts.symbols if s.parent == class_key and s.kind in ("constructor", "method")]


FRAMEWORK = Framework("jaxrs", JVM_LANGUAGES, prepare, reads=JVM_LANGUAGES)
