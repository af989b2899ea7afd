"""JAX-RS routes, read from the facts: a ``@Path`` class's methods annotated ``@GET``... (and ``@Path``),
under the module's ``@ApplicationPath``."""

from __future__ import annotations

from collections.abc import Iterator

from ..languages.folding import literal
from ..languages.symbols import Bound
from ..services.endpoints import Item, join_paths
from ..services.settings import Values
from .base import Framework, Project, Reader, item
from .jvm import JVM_LANGUAGES, JavaFile, annotations, attr, constants

VERBS = {"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"}


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


def prepare(files: list[Bound], project: Project) -> Reader:
    application_paths = _application_paths(files, project)

    def read(bound: Bound) -> Iterator[Item]:
        jf = JavaFile(bound, constants(project), project.values(bound.ctx.module))
        for index, sym in enumerate(bound.facts.symbols):
            anns = annotations(sym)
            if sym.kind == "class" and "Path" in anns:
                yield from _routes(jf, index, anns, application_paths.get(bound.ctx.module, ""))
    return read


def _routes(jf: JavaFile, index: int, anns, application_path: str) -> Iterator[Item]:
    facts = jf.facts
    sym = facts.symbols[index]
    base = jf.fold(attr(anns["Path"], "value"), sym.key)
    for member in jf.bound.members(sym.key):
        member_anns = annotations(facts.symbols[member])
        verbs = [v for v in member_anns if v in VERBS]
        if facts.symbols[member].kind != "method" or not verbs:
            continue
        written = attr(member_anns.get("Path"), "value")
        path = jf.fold(written, sym.key) if written else literal("")
        full = join_paths([literal(application_path), base, path])
        for verb in verbs:
            yield item(jf.bound, member, "route", "jaxrs", http_method=verb, path=full,
                       written=" + ".join(w for w in (attr(anns["Path"], "value"), written) if w))


FRAMEWORK = Framework("jaxrs", ("java",), prepare, reads=JVM_LANGUAGES)
