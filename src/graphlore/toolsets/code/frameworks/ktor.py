"""Ktor routes and clients, read from the facts of Kotlin files.

**Routes.** ``get(path) { ... }`` ... ``delete``, ``patch``, ``head``, ``options`` (and ``route(path, HttpMethod.X)``)
made inside a ``routing { ... }`` block, or in an extension function of ``Route``/``Routing``/``Application``;
each enclosing ``route(path) { ... }`` adds its prefix (`kotlin.extract` records which trailing lambda a
call is in). A verb without a path serves its ``route``'s own path. The handler is the function that
registers it (the route's body is a lambda).

**Clients.** ``client.get(url)`` ... on a Ktor ``HttpClient(...)`` (a local or a property), the URL folded.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..languages.folding import Folded, literal, unknown
from ..languages.symbols import Bound
from ..model import CallFact
from ..services.endpoints import Item, join_paths
from .base import Framework, Project, Reader, item
from .jvm import JVM_LANGUAGES, JavaFile, constants

VERBS = {"get": "GET", "post": "POST", "put": "PUT", "delete": "DELETE", "patch": "PATCH", "head": "HEAD",
         "options": "OPTIONS"}
ROUTING_RECEIVERS = {"Route", "Routing", "Application"}


def _chain(bound: Bound, index: int) -> list[CallFact]:
    """The calls whose trailing lambdas hold the call at ``index``, outermost first."""
    lambda_of = bound.facts.extra.get("lambda_of") or []
    out = []
    while index < len(lambda_of) and lambda_of[index] >= 0 and len(out) < 16:
        index = lambda_of[index]
        out.insert(0, bound.facts.calls[index])
    return out


def read_kotlin(jf_of, bound: Bound) -> Iterator[Item]:
    facts = bound.facts
    if not any(imp.target.startswith("io.ktor") for imp in facts.imports):
        return
    jf: JavaFile = jf_of(bound)
    for index, call in enumerate(facts.calls):
        owner = bound.by_key.get(call.owner, -1) if call.owner else -1
        class_key = call.owner.split("#", 1)[0] if "#" in call.owner else ""
        if call.receiver is None and call.name in VERBS:
            chain = _chain(bound, index)
            owner_sym = facts.symbols[owner] if owner >= 0 else None
            in_routing = any(c.name == "routing" for c in chain) or (
                owner_sym is not None and owner_sym.extra.get("receiver") in ROUTING_RECEIVERS)
            if not in_routing:
                continue
            parts: list[Folded] = [_path(jf, c, class_key) for c in chain if c.name == "route" and c.receiver is None]
            if call.args and not call.args[0].startswith(("{", "HttpMethod")):
                parts.append(jf.fold(call.args[0], class_key))
            yield item(bound, owner, "route", "ktor", call.line, http_method=VERBS[call.name],
                       path=join_paths(parts), written=call.args[0] if call.args else '""')
        elif call.receiver is not None and call.receiver[0] == "name" and call.name in VERBS and call.args \
                and _is_client(bound, call):
            yield item(bound, owner, "client", "ktor_client", call.line, http_method=VERBS[call.name],
                       path=jf.fold(call.args[0], class_key, call.owner, call.line), written=call.args[0])


def _path(jf: JavaFile, call: CallFact, class_key: str) -> Folded:
    if not call.args:
        return unknown("a route(...) without a path")
    return jf.fold(call.args[0], class_key) if not call.args[0].startswith("HttpMethod") else literal("")


def _is_client(bound: Bound, call: CallFact) -> bool:
    name = call.receiver[1]
    seen = [t for _, t in bound.facts.locals.get(call.owner, {}).get(name, [])]
    if any(t in ("~HttpClient()", "HttpClient") for t in seen):
        return True
    owner_key = call.owner.split("#", 1)[0]
    return any(sym.name == name and sym.kind == "field" and (sym.type == "HttpClient" or "HttpClient(" in sym.signature)
               for sym in bound.facts.symbols if sym.parent in (owner_key, None))


def prepare(files: list[Bound], project: Project) -> Reader:
    found = constants(project)

    def jf_of(bound: Bound) -> JavaFile:
        return JavaFile(bound, found, project.values(bound.ctx.module))

    return lambda bound: read_kotlin(jf_of, bound)


FRAMEWORK = Framework("ktor", ("kotlin",), prepare, reads=JVM_LANGUAGES)
