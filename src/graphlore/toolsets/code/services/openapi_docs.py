"""OpenAPI documents as contracts a service serves: each operation (method, path, ``operationId``, line) and
whether the service's build turns the document into server code (a server generator, so the service serves
it), read at layout time like every configuration file (`settings.Values.openapi`).

A document's ``servers`` base path prefixes its paths when it is one relative path (``/api/v1``) or one URL
(its path part); several servers with different paths leave the paths as written and say why. Swagger 2's
``basePath`` is the same thing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from .yaml_lines import documents

VERBS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
#: server generators a build configures: Quarkus's (``quarkus-openapi-generator-server``) and
#: openapi-generator's server ``generatorName``s (Maven and Gradle plugins), which generate interfaces (or
#: delegates) whose methods are named by each operation's ``operationId``
_QUARKUS_SERVER = re.compile(r"quarkus-openapi-generator-server")
_SERVER_GENERATORS = frozenset({"spring", "kotlin-spring", "kotlin-server", "java-micronaut-server",
                                 "kotlin-micronaut-server", "java-helidon-server", "java-undertow-server"})
#: ``library`` choices that make the ``spring`` generator write clients (Feign, HTTP interfaces), not a server
_CLIENT_LIBRARY = re.compile(r"library(?:\.set)?\s*(?:>|=|:|\()\s*[\"']?(?:spring-cloud|spring-http-interface)\b")
_ANY_GENERATOR = re.compile(r"generatorName(?:\.set)?\s*(?:>|=|:|\()\s*[\"']?([\w-]+)")
#: where one generator's configuration ends: a Maven ``<execution>`` or ``<plugin>``, a Gradle block's ``}`` line
_BLOCK_END = re.compile(r"</execution>|</plugin>|^\s*\}\s*$", re.M)
_INPUT_SPEC = re.compile(r"inputSpec(?:\.set)?\s*(?:>|=|:|\()\s*[\"']?([^<\"'\s)]+)")
BUILD_FILES = ("pom.xml", "build.gradle", "build.gradle.kts")


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    operation_id: str
    file: str
    line: int
    #: why the document's base path is not known (several servers), "" when it is
    problem: str = ""


def operations(path: str, text: str) -> list[Operation]:
    """The operations of one OpenAPI (3.x) or Swagger (2.0) document, in document order; [] for any other file."""
    found = documents(text)
    if not found:
        return []
    doc, lines = found[0]
    if not isinstance(doc, dict) or not ("openapi" in doc or "swagger" in doc) or not isinstance(doc.get("paths"), dict):
        return []
    base, problem = _base_path(doc)
    out: list[Operation] = []
    for route, item in doc["paths"].items():
        if not isinstance(item, dict) or not isinstance(route, str):
            continue
        for verb in VERBS:
            op = item.get(verb)
            if not isinstance(op, dict):
                continue
            op_id = op.get("operationId")
            line = lines.get(f"paths.{route}.{verb}.operationId") or lines.get(f"paths.{route}.{verb}") or 1
            out.append(Operation(verb.upper(), _join(base, route), op_id if isinstance(op_id, str) else "", path,
                                 line, problem))
    return out


def _base_path(doc: dict) -> tuple[str, str]:
    if "swagger" in doc:
        base = doc.get("basePath")
        return (base if isinstance(base, str) else ""), ""
    servers = doc.get("servers")
    if not isinstance(servers, list) or not servers:
        return "", ""
    paths = sorted({urlsplit(s["url"]).path if "://" in s["url"] else s["url"]
                    for s in servers if isinstance(s, dict) and isinstance(s.get("url"), str)})
    if not paths:
        return "", ""   # servers without a url: no base path given
    if len(paths) == 1:
        if "{" not in paths[0]:
            return paths[0], ""
        return "", f"the document's server path {paths[0][:120]} has variables: paths as written"
    return "", f"the document's servers give {len(paths)} base paths ({', '.join(paths)[:120]}): paths as written"


def _join(base: str, route: str) -> str:
    base = base.rstrip("/")
    return (base + "/" + route.lstrip("/")) if base else route


def _is_server(generator: str) -> bool:
    """Whether an openapi-generator ``generatorName`` writes server code (every ``jaxrs-*`` but the CXF client)."""
    return generator in _SERVER_GENERATORS or generator.startswith("jaxrs-") and generator != "jaxrs-cxf-client"


def server_generator(root: Path, module: str) -> tuple[str | None, tuple[str, ...], tuple[str, ...]]:
    """(the server generator the module's build configures, the file names of the documents it is given
    (``inputSpec``; () when not said), the file names another generator of the build is given (a client's
    contract, never this service's routes)); (None, (), ()) when the build generates no server."""
    for name in BUILD_FILES:
        try:
            text = (root / module / name).read_text(encoding="utf-8", errors="replace") if module != "." else (
                root / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        served: set[str] = set()
        others: set[str] = set()
        generator = None
        for block in _BLOCK_END.split(text):   # a Maven execution or plugin, a Gradle task: its generator, its specs
            specs = {PurePosixPath(s).name for s in _INPUT_SPEC.findall(block)}
            names = _ANY_GENERATOR.findall(block)
            server = next((n for n in names if _is_server(n)), None)
            if server and not _CLIENT_LIBRARY.search(block):
                generator = generator or server
                served |= specs
            elif names:
                others |= specs
            else:
                served |= specs
        others -= served
        if _QUARKUS_SERVER.search(text):
            return "quarkus-openapi-generator-server", tuple(sorted(served)), tuple(sorted(others))
        if generator:
            return generator, tuple(sorted(served)), tuple(sorted(others))
    return None, (), ()
