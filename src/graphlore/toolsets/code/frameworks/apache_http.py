"""Apache HttpClient (4.x ``org.apache.http``, 5.x ``org.apache.hc``) as HTTP clients, in Java and Kotlin files
that import it: a request made with ``new HttpGet(url)``, ``HttpPost``, ``HttpPut``, ``HttpPatch``,
``HttpDelete``, ``HttpHead``, ``HttpOptions`` (5.x's ``HttpGet`` ... and ``ClassicHttpRequests``-free forms alike)
is a client of that method at the line that makes it, its URL folded as every Java value is (constants,
``@Value`` fields, locals, ``System.getenv``). A URL that does not fold (a constructor's parameter, say) leaves
the client unresolved, saying why."""

from __future__ import annotations

from collections.abc import Iterator

from ..languages.symbols import Bound
from ..services.endpoints import Item
from .base import Framework, Project, Reader, item
from .jvm import JVM_LANGUAGES, JavaFile, constants

LIBRARIES = ("org.apache.http", "org.apache.hc")
REQUESTS = {"HttpGet": "GET", "HttpPost": "POST", "HttpPut": "PUT", "HttpPatch": "PATCH", "HttpDelete": "DELETE",
            "HttpHead": "HEAD", "HttpOptions": "OPTIONS"}


def _uses(bound: Bound) -> bool:
    return any(imp.target.startswith(LIBRARIES) for imp in bound.facts.imports)


def read_apache(project: Project, bound: Bound) -> Iterator[Item]:
    jf: JavaFile | None = None
    by_key = {sym.key: index for index, sym in enumerate(bound.facts.symbols)}
    for call in bound.facts.calls:
        if call.kind != "new" or call.name not in REQUESTS or len(call.args) != 1:
            continue
        if jf is None:
            jf = JavaFile(bound, constants(project), project.values(bound.ctx.module))
        class_key = call.owner.split("#", 1)[0]
        yield item(bound, by_key.get(call.owner, -1), "client", "apache_http", call.line,
                   http_method=REQUESTS[call.name], path=jf.fold(call.args[0], class_key, call.owner, call.line + 1),
                   written=call.args[0])


def prepare(files: list[Bound], project: Project) -> Reader:
    return lambda bound: read_apache(project, bound) if project.memo.get("apache_http", bound, _uses) else ()


FRAMEWORK = Framework("apache_http", JVM_LANGUAGES, prepare)
