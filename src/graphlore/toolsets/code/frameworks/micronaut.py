"""Routes, clients and producers of Micronaut (HTTP, Kafka, RabbitMQ), read from the facts of Java and Kotlin
files that import ``io.micronaut``.

**Routes.** A ``@Controller("/prefix")`` class (``value``; none: ``/``) maps each method annotated ``@Get``,
``@Post``, ``@Put``, ``@Delete``, ``@Patch``, ``@Head`` or ``@Options`` (``value``/``uri``, every one of
``uris``; none: ``/``) under the prefix and the service's ``micronaut.server.context-path``. A mapping may be
declared on an interface the class implements (often in a separate ``*-api`` module of the build), at any
depth: the route is filed at the class's method of that name (at the class when it does not redeclare it).

**Clients.** A ``@Client`` interface (or abstract class) calls each of its mapped methods, inherited ones too,
under its ``path``: ``@Client(id = "svc")`` / ``@Client("svc")`` names the service by its id in discovery
(its ``micronaut.application.name``; by the address ``micronaut.http.services.<id>.url(s)`` gives it, when
the settings do), ``@Client("http://host:8080")`` or a ``${...}`` that folds to a URL by its address. A method
inherited and not redeclared is filed at the interface and also declared by the inherited method (``inherited``:
a call through the client resolves there). The
low-level ``HttpClient``: ``HttpRequest.GET(uri)``... (and ``retrieve``/``exchange`` of a written URI on an
HttpClient: a field or variable of its type, ``toBlocking()``) in a class whose one base URL is a
``@Client("...")`` field or an ``HttpClient.create(url)``.

**Messaging.** ``@KafkaListener`` classes consume each ``@Topic`` method's topics (``patterns``: unknown);
``@KafkaClient`` interfaces produce to each ``@Topic`` method's topic. ``@RabbitListener`` classes consume
each ``@Queue`` method's queue; ``@RabbitClient("exchange")`` interfaces send each ``@Binding`` method's
routing key (to the default exchange: the queue of that name; to a named exchange: its bindings decide,
which are not read). Topics fold like any value (``${...}`` from the module's ``application.yml``).

**Framework routes.** Micronaut Security's login endpoint (``POST /login``; ``micronaut.security.endpoints.login``:
``path``, on unless ``enabled: false``) calls the application's ``AuthenticationProvider`` (any of its kinds): the
route is filed at that class's ``authenticate``, the code it runs, under the service's context path.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..languages.folding import MAX_CHOICES, Folded, choice, literal, unknown
from ..languages.symbols import Bound
from ..model import AnnotationFact, CallFact
from ..services.endpoints import Item, join_paths
from ..services.settings import Values, placeholder_keys
from .base import Framework, Project, Reader, item
from .jvm import (
    JVM_LANGUAGES,
    TYPE_KINDS,
    JavaFile,
    Mapped,
    Types,
    annotations,
    attr,
    constants,
    inherited_mappings,
)
from .spring import context_path

VERBS = {"Get": "GET", "Post": "POST", "Put": "PUT", "Delete": "DELETE", "Patch": "PATCH", "Head": "HEAD",
         "Options": "OPTIONS"}
#: the low-level client's request factories (``HttpRequest.GET(uri)``)
REQUESTS = {"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"}
#: the low-level client's calls that take a URI as written (a GET)
RETRIEVES = {"retrieve", "exchange", "stream", "jsonStream", "eventStream"}
HTTP_CLIENT_TYPES = {"HttpClient", "RxHttpClient", "ReactorHttpClient", "RxStreamingHttpClient",
                     "StreamingHttpClient", "BlockingHttpClient"}
CONTEXT_KEY = "micronaut.server.context-path"
#: the interfaces of an application's authentication code, which Micronaut Security's login endpoint calls
AUTHENTICATION_PROVIDERS = {"AuthenticationProvider", "ReactiveAuthenticationProvider",
                            "HttpRequestAuthenticationProvider", "HttpRequestReactiveAuthenticationProvider",
                            "ExecutorAuthenticationProvider", "HttpRequestExecutorAuthenticationProvider"}
LOGIN_KEY = "micronaut.security.endpoints.login"


def is_micronaut(bound: Bound) -> bool:
    return any(i.target.startswith("io.micronaut.") for i in bound.facts.imports)


def mappings(types: Types, bound: Bound, index: int) -> list[Mapped]:
    """Every mapped method of the type, its own and those inherited from its supertypes (Micronaut inherits a
    method's annotations from the interface it implements)."""
    return inherited_mappings(types, bound, index, _own_mappings)


def _own_mappings(bound: Bound, member: int) -> list[tuple[str, AnnotationFact]]:
    if not is_micronaut(bound):
        return []
    return [(VERBS[name], annotation) for name, annotation in annotations(bound.facts.symbols[member]).items()
            if name in VERBS]


def prepare(files: list[Bound], project: Project) -> Reader:
    types = Types.of(project)
    consts = constants(project)

    def read(bound: Bound) -> Iterator[Item]:
        if not is_micronaut(bound):
            return
        values = project.values(bound.ctx.module)
        jf = JavaFile(bound, consts, values)
        context = context_path(values, (CONTEXT_KEY,))
        for index, sym in enumerate(bound.facts.symbols):
            if sym.kind not in TYPE_KINDS:
                continue
            anns = annotations(sym)
            if "Controller" in anns and sym.kind != "interface":
                yield from _routes(jf, types, index, anns["Controller"], context, values)
            if "Client" in anns and (sym.kind == "interface" or "abstract" in sym.modifiers):
                yield from _declared_client(jf, types, index, anns["Client"], values)
            if "KafkaListener" in anns or "RabbitListener" in anns:
                yield from _listeners(jf, index, "KafkaListener" in anns)
            if "KafkaClient" in anns or "RabbitClient" in anns:
                yield from _producers(jf, index, anns)
            if sym.kind == "class" and "abstract" not in sym.modifiers and _provides_authentication(bound, sym):
                yield from _login(jf, index, context, values)
        yield from _low_level(jf)
    return read


def _paths(jf: JavaFile, mapped: Mapped, values: Values) -> list[tuple[str, Folded]]:
    """The paths of a mapping (``value``/``uri``, or each of ``uris``; none: ``/``), folded where written."""
    where = jf if mapped.bound is jf.bound else JavaFile(mapped.bound, jf.constants, values)
    class_key = mapped.class_key
    uris = attr(mapped.annotation, "uris")
    if uris is not None:
        return where.folds(uris, class_key)
    written = attr(mapped.annotation, "value", "uri")
    return [(written, where.fold(written, class_key))] if written else [("", literal("/"))]


def _routes(jf: JavaFile, types: Types, index: int, controller: AnnotationFact, context: Folded,
            values: Values) -> Iterator[Item]:
    sym = jf.facts.symbols[index]
    prefix_expr = attr(controller, "value")
    prefix = jf.fold(prefix_expr, sym.key) if prefix_expr else literal("/")
    for mapped in mappings(types, jf.bound, index):
        for written, path in _paths(jf, mapped, values):
            owner = mapped.owner if mapped.owner is not None else index
            yield item(jf.bound, owner, "route", "micronaut", None if mapped.owner is not None else sym.line_start,
                       http_method=mapped.verb, path=join_paths([context, prefix, path]),
                       written=" + ".join(w for w in (prefix_expr, written) if w) or '"/"')


def _provides_authentication(bound: Bound, sym) -> bool:
    """Whether a class implements one of Micronaut Security's authentication providers (imported from it)."""
    names = {name.split("<", 1)[0].strip().rsplit(".", 1)[-1] for _, name in sym.supers}
    return bool(names & AUTHENTICATION_PROVIDERS) and any(
        i.target.startswith("io.micronaut.security.") for i in bound.facts.imports)


def _login(jf: JavaFile, index: int, context: Folded, values: Values) -> Iterator[Item]:
    """The framework's ``POST`` login route, filed at the provider's ``authenticate`` (the class: none declared)."""
    if (values.get(f"{LOGIN_KEY}.enabled") or "").strip().lower() == "false":
        return
    raw = values.get(f"{LOGIN_KEY}.path")
    text, missing = values.resolve(raw) if raw is not None else ("/login", [])
    path = Folded(text, not missing, tuple(f"placeholder ${{{k}}} in {LOGIN_KEY}.path" for k in missing))
    sym = jf.facts.symbols[index]
    owner = next((i for i in jf.bound.members(sym.key) if jf.facts.symbols[i].kind == "method"
                  and jf.facts.symbols[i].name == "authenticate"), index)
    yield item(jf.bound, owner, "route", "micronaut", http_method="POST", path=join_paths([context, path]),
               written=f"{LOGIN_KEY} (Micronaut Security's login endpoint, calling this AuthenticationProvider)")


def _declared_client(jf: JavaFile, types: Types, index: int, client: AnnotationFact,
                     values: Values) -> Iterator[Item]:
    sym = jf.facts.symbols[index]
    named_expr = attr(client, "id", "value")
    named = jf.fold(named_expr, sym.key) if named_expr else None
    base_expr = attr(client, "path")
    base = jf.fold(base_expr, sym.key) if base_expr else literal("")
    # an id names a service; a URL (or a placeholder that does not fold, as Micronaut's are for addresses)
    is_url = named is not None and ("://" in named.text or not named.known and "${" in (named_expr or ""))
    # an id given its address in the settings (micronaut.http.services.<id>.url): that address, not discovery
    configured = _service_url(values, named.text) if named is not None and named.known and named.text and \
        not is_url else None
    for mapped in mappings(types, jf.bound, index):
        for written, path in _paths(jf, mapped, values):
            owner = mapped.owner if mapped.owner is not None else index
            found = item(jf.bound, owner, "client", "micronaut_client",
                         mapped.own_line(jf.bound) if mapped.owner is not None else sym.line_start,
                         http_method=mapped.verb,
                         path=join_paths([base, path]),
                         written=" + ".join(w for w in (named_expr, base_expr, written) if w))
            if mapped.owner is None:
                found.inherited = mapped.bound.ids[mapped.member]
            if named is None or not named.text and named.known:
                found.problems.append("the @Client names no service (id or value)")
            elif is_url or configured is not None:
                url = configured if configured is not None else named
                found.base_url = url.text if url.known else None
                found.target, found.target_source = url, "@Client url"
            else:
                found.target, found.target_source = named, "@Client id"
            yield found


def _service_url(values: Values, service_id: str) -> Folded | None:
    """The address the settings give a client id (``micronaut.http.services.<id>.url``, or each of ``urls``: one of
    them), placeholders resolved; None when they give none (the id is then looked up in discovery)."""
    prefix = f"micronaut.http.services.{service_id}"
    keys = [f"{prefix}.url", f"{prefix}.urls", *(f"{prefix}.urls[{i}]" for i in range(MAX_CHOICES))]
    found = []
    for key, raw in ((k, values.get(k)) for k in keys):
        for one in (raw.split(",") if raw is not None else []):
            text, missing = values.resolve(one.strip())
            found.append(Folded(text, not missing, tuple(f"placeholder ${{{k}}} is not in the module's settings"
                                                         for k in missing), (key, *placeholder_keys(one))))
    return choice(found) if found else None


# -- the low-level HttpClient ---------------------------------------------------------------------------------


def _bases(jf: JavaFile) -> dict[str, list[Folded]]:
    """Base URLs a file gives its low-level clients, by class: ``@Client("...")`` fields of an HttpClient type
    and ``HttpClient.create(url)`` calls."""
    facts = jf.facts
    out: dict[str, list[Folded]] = {}
    for sym in facts.symbols:
        client = annotations(sym).get("Client")
        if sym.kind == "field" and client is not None and sym.type.rsplit(".", 1)[-1] in HTTP_CLIENT_TYPES:
            value = attr(client, "id", "value")
            if value:
                out.setdefault(sym.parent or "", []).append(jf.fold(value, sym.parent or ""))
    for call in facts.calls:
        receiver = call.receiver
        if call.name == "create" and call.args and receiver and receiver[0] == "name" and \
                receiver[1] in HTTP_CLIENT_TYPES:
            class_key = call.owner.split("#", 1)[0]
            out.setdefault(class_key, []).append(jf.fold(call.args[0], class_key, call.owner, call.line))
    return out


def _is_http_client(written: str) -> bool:
    return written.split("<", 1)[0].strip().rsplit(".", 1)[-1] in HTTP_CLIENT_TYPES


def _on_http_client(jf: JavaFile, call: CallFact) -> bool:
    """Whether a call's receiver is a low-level HTTP client: ``client.toBlocking()...``, ``HttpClient.create(...)``,
    or a variable or field of an HttpClient type (``retrieve``, ``stream``, ``exchange`` of anything else, such as
    a Kafka Streams builder's ``stream("topic")``, sends no request)."""
    receiver = call.receiver
    while receiver and receiver[0] == "call":
        inner = receiver[1]
        if receiver[2] == "toBlocking" or receiver[2] == "create" and inner and inner[0] == "name" and \
                inner[1] in HTTP_CLIENT_TYPES:
            return True
        receiver = inner
    name = receiver[1] if receiver and receiver[0] == "name" else receiver[2] if (
        receiver and receiver[0] == "field" and receiver[1] == ["this"]) else None
    if name is None:
        return False
    if any(_is_http_client(written) for _, written in jf.facts.locals.get(call.owner, {}).get(name, [])):
        return True
    class_key = call.owner.split("#", 1)[0]
    return any(sym.kind == "field" and sym.parent == class_key and sym.name == name and _is_http_client(sym.type)
               for sym in jf.facts.symbols)


def _low_level(jf: JavaFile) -> Iterator[Item]:
    facts = jf.facts
    bases: dict[str, list[Folded]] | None = None
    by_key = {sym.key: i for i, sym in enumerate(facts.symbols)}
    for call in facts.calls:
        receiver = call.receiver
        factory = call.name in REQUESTS and receiver and receiver[0] == "name" and receiver[1] in (
            "HttpRequest", "MutableHttpRequest")
        written_uri = call.name in RETRIEVES and call.args and call.args[0].lstrip().startswith('"') and \
            _on_http_client(jf, call)
        if not (factory or written_uri) or not call.args or call.owner not in by_key:
            continue
        if bases is None:
            bases = _bases(jf)
        class_key = call.owner.split("#", 1)[0]
        path = jf.fold(call.args[0], class_key, call.owner, call.line)
        found = item(jf.bound, by_key[call.owner], "client", "micronaut_http_client", call.line,
                     http_method=call.name if factory else "GET", written=call.args[0])
        own = list({b.text: b for b in bases.get(class_key, [])}.values())
        if path.text.startswith(("http://", "https://")):
            found.path = path
        elif len(own) == 1:
            found.path = own[0] + path if own[0].known else Folded(own[0].text, False, own[0].why or (
                "the client's base URL is not known",)) + path
            found.target_source = "base URL set in the class"
        elif own:
            found.path = path
            found.problems.append(f"the class sets {len(own)} different base URLs")
        else:
            found.path = path
            found.problems.append("no base URL is set for it in the class (a @Client field or HttpClient.create)")
        yield found


# -- messaging ------------------------------------------------------------------------------------------------


def _listeners(jf: JavaFile, index: int, kafka: bool) -> Iterator[Item]:
    facts = jf.facts
    sym = facts.symbols[index]
    for member in jf.bound.members(sym.key):
        anns = annotations(facts.symbols[member])
        if facts.symbols[member].kind != "method":
            continue
        if kafka and "Topic" in anns:
            topic = anns["Topic"]
            pattern = attr(topic, "patterns")
            if attr(topic, "value") is None and pattern:
                yield item(jf.bound, member, "route", "micronaut_kafka", broker="kafka",
                           topic=unknown(f"a topic pattern ({pattern})"), written=pattern)
                continue
            for written, folded in jf.folds(attr(topic, "value"), sym.key):
                if written:
                    yield item(jf.bound, member, "route", "micronaut_kafka", broker="kafka", topic=folded,
                               written=written)
        if not kafka and "Queue" in anns:
            written = attr(anns["Queue"], "value")
            if written:
                yield item(jf.bound, member, "route", "micronaut_rabbit", broker="rabbit",
                           topic=jf.fold(written, sym.key), written=written)


def _producers(jf: JavaFile, index: int, anns) -> Iterator[Item]:
    facts = jf.facts
    sym = facts.symbols[index]
    exchange_expr = attr(anns.get("RabbitClient"), "value")
    exchange = jf.fold(exchange_expr, sym.key) if exchange_expr else literal("")
    for member in jf.bound.members(sym.key):
        member_anns = annotations(facts.symbols[member])
        if facts.symbols[member].kind != "method":
            continue
        if "KafkaClient" in anns and "Topic" in member_anns:
            for written, folded in jf.folds(attr(member_anns["Topic"], "value"), sym.key):
                if written:
                    yield item(jf.bound, member, "producer", "micronaut_kafka_client", broker="kafka", topic=folded,
                               written=written)
        if "RabbitClient" in anns and "Binding" in member_anns:
            written = attr(member_anns["Binding"], "value")
            if not written:
                continue
            found = item(jf.bound, member, "producer", "micronaut_rabbit_client", broker="rabbit",
                         topic=jf.fold(written, sym.key), written=", ".join(w for w in (exchange_expr, written) if w))
            if not exchange.known or exchange.text:
                found.problems.append(f"sent to the exchange {exchange.text or exchange_expr} with a routing key: "
                                      "which queue gets it depends on the bindings, which are not read")
            yield found


FRAMEWORK = Framework("micronaut", JVM_LANGUAGES, prepare, reads=JVM_LANGUAGES)
