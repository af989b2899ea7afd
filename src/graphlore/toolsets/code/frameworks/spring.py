"""Routes, clients and producers of Spring (MVC/WebFlux, Kafka, Rabbit, JMS, Cloud Stream, OpenFeign,
RestTemplate, WebClient, RestClient, ``@HttpExchange``), read from the facts of Java files.

**Routes.** A controller (``@RestController``/``@Controller``, a project annotation meta-annotated with
one of them, or a class with a class-level ``@RequestMapping``) maps each method annotated
``@GetMapping``... or ``@RequestMapping`` (every path of a multi-path mapping; every method of a
multi-method one; no ``method``: any) under each class-level path, under the service's context path
(``server.servlet.context-path``, ``server.context-path``, ``spring.webflux.base-path``).
Listeners: ``@KafkaListener(topics)`` (also on a class with ``@KafkaHandler`` methods),
``@RabbitListener(queues)``, ``@JmsListener(destination)``, ``@StreamListener`` and functional
``Consumer``/``Function`` beans whose Cloud Stream binding (``{bean}-in-0``) is configured.

**Clients.** Feign interfaces (``name``/``value``, ``url``, ``path``, mappings as above), ``@HttpExchange``
interfaces, and calls on a receiver declared ``RestTemplate`` / ``RestOperations`` /
``OAuth2RestTemplate`` (``getForObject``... ``exchange`` with ``HttpMethod.X``), ``WebClient`` and
``RestClient`` (``get().uri(...)``, ``method(HttpMethod.X).uri(...)``; the base URL from a ``baseUrl(...)``
or ``create(...)`` in the same class, else the only one in the module). **Producers**: ``KafkaTemplate``,
``StreamBridge``, ``RabbitTemplate``/``AmqpTemplate``, ``JmsTemplate`` sends, ``@SendTo``, and the output
binding of a configured ``Function`` bean. Test code is not read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ..languages.folding import Folded, array_items, expand, literal, unknown
from ..languages.symbols import Bound
from ..model import AnnotationFact, CallFact, FileFacts, SymbolFact
from ..services.endpoints import ANY, Item, join_paths
from ..services.settings import Values
from .base import Framework, Project, Reader, item
from .jvm import JVM_LANGUAGES, JavaFile, annotations, attr, constants
from .spring_amqp import Binding, Declared, declarations, listener_bindings

MAPPINGS = {"GetMapping": "GET", "PostMapping": "POST", "PutMapping": "PUT", "DeleteMapping": "DELETE",
            "PatchMapping": "PATCH", "RequestMapping": None}
EXCHANGES = {"GetExchange": "GET", "PostExchange": "POST", "PutExchange": "PUT", "DeleteExchange": "DELETE",
             "PatchExchange": "PATCH", "HttpExchange": None}
CONTROLLERS = {"RestController", "Controller"}
REST_TEMPLATES = {"RestTemplate", "RestOperations", "OAuth2RestTemplate", "OAuth2RestOperations"}
REST_TEMPLATE_CALLS = {"getForObject": "GET", "getForEntity": "GET", "postForObject": "POST",
                       "postForEntity": "POST", "postForLocation": "POST", "put": "PUT", "delete": "DELETE",
                       "patchForObject": "PATCH", "exchange": None, "execute": None}
FLUENT = {"WebClient": "web_client", "RestClient": "rest_client"}
VERBS = {"get", "post", "put", "delete", "patch", "head", "options"}
PRODUCERS = {"KafkaTemplate": ("kafka_template", "kafka", {"send", "sendDefault"}),
             "ReactiveKafkaProducerTemplate": ("kafka_template", "kafka", {"send"}),
             "StreamBridge": ("stream_bridge", "stream", {"send"}),
             "RabbitTemplate": ("rabbit_template", "rabbit", {"convertAndSend", "send"}),
             "AmqpTemplate": ("rabbit_template", "rabbit", {"convertAndSend", "send"}),
             "RabbitOperations": ("rabbit_template", "rabbit", {"convertAndSend", "send"}),
             "JmsTemplate": ("jms_template", "jms", {"convertAndSend", "send"})}
CONTEXT_KEYS = ("server.servlet.context-path", "server.context-path", "spring.webflux.base-path")


@dataclass
class SpringFile(JavaFile):
    """A Java file with what Spring reading needs from the rest of the project."""

    #: project annotation types meta-annotated ``@RestController`` / ``@Controller``
    controller_annotations: set[str] = field(default_factory=set)
    #: the WebClient/RestClient base URLs set anywhere in the module (see `file_bases`)
    module_bases: dict[tuple[str, str | None], list[Folded]] = field(default_factory=dict)
    #: queue -> the bindings the project's ``@Bean`` methods declare for it, and the queue beans (`spring_amqp`)
    amqp_bindings: dict[str, list[Binding]] = field(default_factory=dict)
    amqp: Declared | None = None
    #: the application context its beans live in (`spring_amqp.declarations`)
    context: str = ""


def _item(jf: JavaFile, index: int, kind: str, flavor: str, line: int | None = None, **kw) -> Item:
    return item(jf.bound, index, kind, flavor, line, **kw)


def _meta_controllers(project: Project) -> set[str]:
    """Project annotation types annotated ``@RestController`` / ``@Controller`` (meta-annotations)."""
    return {sym.name for bound in project.table.files.values() if bound.facts.language in JVM_LANGUAGES
            for sym in bound.facts.symbols if sym.kind == "annotation" and annotations(sym).keys() & CONTROLLERS}


def prepare(files: list[Bound], project: Project) -> Reader:
    controllers = _meta_controllers(project)
    spring_files = {bound.path: SpringFile(bound, constants(project), project.values(bound.ctx.module), controllers)
                    for bound in files}
    bases: dict[str, dict] = {}
    for jf in spring_files.values():
        module = bases.setdefault(jf.bound.ctx.module, {})
        for (owner, flavor), found in file_bases(jf).items():
            module.setdefault((f"{jf.bound.path}:{owner}", flavor), []).extend(found)
    declared = declarations([jf for jf in spring_files.values() if jf.facts.language == "java"])
    bindings: dict[str, list[Binding]] = {}
    for binding in declared.bindings:
        bindings.setdefault(binding.queue, []).append(binding)
    for jf in spring_files.values():
        jf.module_bases = bases.get(jf.bound.ctx.module, {})
        jf.amqp_bindings, jf.amqp = bindings, declared
    return lambda bound: read_java(spring_files[bound.path])


def context_path(values: Values, keys: tuple[str, ...] = CONTEXT_KEYS) -> Folded:
    """The service's context path: the first of ``keys`` its settings set, placeholders resolved."""
    for key in keys:
        raw = values.get(key)
        if raw is not None:
            text, missing = values.resolve(raw)
            return Folded(text, not missing, tuple(f"placeholder ${{{k}}} in {key}" for k in missing))
    return literal("")


def read_java(jf: SpringFile) -> Iterator[Item]:
    facts = jf.facts
    by_key = {sym.key: index for index, sym in enumerate(facts.symbols)}
    context = context_path(jf.values)
    for index, sym in enumerate(facts.symbols):
        if sym.kind not in ("class", "interface", "record", "enum"):
            continue
        anns = annotations(sym)
        members = [i for i in jf.bound.members(sym.key) if facts.symbols[i].kind == "method"]
        if "FeignClient" in anns:
            yield from _feign(jf, index, anns, members)
        elif sym.kind == "interface" and ("HttpExchange" in anns or any(
                set(annotations(facts.symbols[i])) & set(EXCHANGES) for i in members)):
            yield from _exchange(jf, index, anns, members)
        elif anns.keys() & (CONTROLLERS | jf.controller_annotations) or (
                "RequestMapping" in anns and sym.kind == "class"):
            yield from _spring_routes(jf, index, anns, members, context)
        yield from _listeners(jf, index, anns, members)
    yield from _calls(jf, by_key)


# -- routes ---------------------------------------------------------------------------------------------------


def _mapping(anns: dict[str, AnnotationFact], table: dict[str, str | None]) -> tuple[AnnotationFact, list[str]] | None:
    for name, fixed in table.items():
        if name in anns:
            annotation = anns[name]
            if fixed is not None:
                return annotation, [fixed]
            methods = attr(annotation, "method")
            found = [m.rsplit(".", 1)[-1].strip('"').upper() for m in array_items(methods)] if methods else []
            return annotation, found or [ANY]
    return None


def _request_mappings(jf: JavaFile, index: int, anns, members: list[int]
                      ) -> Iterator[tuple[int, list[str], str, Folded, str, Folded, int]]:
    """(member, HTTP methods, class path as written, class path, method path as written, method path, the method's
    mapping annotation's line or 0) for each pair of the class's ``@RequestMapping`` paths and a mapped method's
    paths: what a Spring controller serves and what a Feign client calls are declared the same way."""
    sym = jf.facts.symbols[index]
    prefixes = jf.folds(attr(anns.get("RequestMapping"), "value", "path"), sym.key)
    for member in members:
        found = _mapping(annotations(jf.facts.symbols[member]), MAPPINGS)
        if found is None:
            continue
        annotation, methods = found
        for written_prefix, prefix in prefixes:
            for written, path in jf.folds(attr(annotation, "value", "path"), sym.key):
                yield member, methods, written_prefix, prefix, written, path, annotation.line


def _spring_routes(jf: JavaFile, index: int, anns, members: list[int], context: Folded) -> Iterator[Item]:
    for member, methods, written_prefix, prefix, written, path, _ in _request_mappings(jf, index, anns, members):
        for method in methods:
            full = join_paths([context, prefix, path])
            yield _item(jf, member, "route", "spring_web", http_method=method, path=full,
                        written=" + ".join(w for w in (written_prefix, written) if w) or '""')


def _listeners(jf: JavaFile, index: int, anns, members: list[int]) -> Iterator[Item]:
    sym = jf.facts.symbols[index]
    class_kafka = anns.get("KafkaListener")
    for member in members:
        member_sym = jf.facts.symbols[member]
        member_anns = annotations(member_sym)
        specs = []
        if "KafkaListener" in member_anns:
            specs.append(("spring_kafka", "kafka", member_anns["KafkaListener"], ("topics", "value"), "topicPattern"))
        elif class_kafka is not None and "KafkaHandler" in member_anns:
            specs.append(("spring_kafka", "kafka", class_kafka, ("topics", "value"), "topicPattern"))
        if "RabbitListener" in member_anns:
            rabbit = member_anns["RabbitListener"]
            if attr(rabbit, "bindings") is not None:
                for queue, binding in listener_bindings(jf, attr(rabbit, "bindings") or "", sym.key):
                    yield _rabbit_route(jf, member, queue, binding, attr(rabbit, "bindings") or "")
            else:
                specs.append(("spring_rabbit", "rabbit", rabbit, ("queues", "value"), None))
        if "JmsListener" in member_anns:
            specs.append(("spring_jms", "jms", member_anns["JmsListener"], ("destination", "value"), None))
        if "StreamListener" in member_anns:
            binding = jf.fold(attr(member_anns["StreamListener"], "value", "target"), sym.key)
            yield _binding(jf, member, binding, "spring_cloud_stream", "route", attr(member_anns["StreamListener"],
                                                                                     "value", "target") or "")
        for framework, broker, annotation, keys, pattern_key in specs:
            topics = attr(annotation, *keys)
            if topics is None and pattern_key and attr(annotation, pattern_key):
                yield _item(jf, member, "route", framework, broker=broker,
                            topic=unknown(f"a topic pattern ({attr(annotation, pattern_key)})"),
                            written=attr(annotation, pattern_key) or "")
                continue
            for written, topic in jf.folds(topics, sym.key):
                bean_queue = jf.amqp.queue_of(jf, topic.text) \
                    if broker == "rabbit" and isinstance(jf, SpringFile) and jf.amqp and topic.known else None
                if bean_queue is not None:   # ``#{bean.name}``: the queue the bean declares
                    topic = literal(bean_queue)
                elif broker == "rabbit" and topic.known and topic.text.startswith("#{"):
                    topic = unknown(f"the queue a SpEL expression names ({topic.text}) is not known")
                if written and not (bean_queue or "").startswith("(anonymous"):
                    yield _item(jf, member, "route", framework, broker=broker, topic=topic, written=written)
                if written and broker == "rabbit" and topic.known and isinstance(jf, SpringFile):
                    for binding in jf.amqp_bindings.get(topic.text, []):
                        yield _rabbit_route(jf, member, topic, binding, written)
        if "Bean" in member_anns and member_sym.type in ("Consumer", "Function", "Supplier"):
            yield from _functional(jf, member, member_sym)
        if "SendTo" in member_anns:
            for written, topic in jf.folds(attr(member_anns["SendTo"], "value"), sym.key):
                broker = next((b for f, b, *_ in specs), None)
                if written and broker:
                    yield _item(jf, member, "producer", "send_to", broker=broker, topic=topic, written=written)


def _rabbit_route(jf: JavaFile, member: int, queue: Folded, binding: Binding | None, written: str) -> Item:
    """A ``@RabbitListener`` route: its queue (the default exchange routes by the name), or one of its bindings
    (topic ``exchange/key``; `spring_amqp`)."""
    if binding is None:
        return _item(jf, member, "route", "spring_rabbit", broker="rabbit", topic=queue, written=written)
    return _item(jf, member, "route", "spring_rabbit", broker="rabbit",
                 topic=literal(f"{binding.exchange}/{binding.key}"), written=written,
                 amqp_binding=(binding.queue, binding.exchange, binding.type, binding.key))


def _binding(jf: JavaFile, member: int, binding: Folded, framework: str, kind: str, written: str) -> Item:
    """A Cloud Stream binding: its destination from the settings, else the binding name (Spring's default)."""
    if not binding.known:
        return _item(jf, member, kind, framework, broker="stream", topic=binding, written=written)
    raw = jf.values.get(f"spring.cloud.stream.bindings.{binding.text}.destination")
    if raw is None:
        topic = binding
    else:
        text, missing = jf.values.resolve(raw)
        topic = Folded(text, not missing, tuple(f"placeholder ${{{k}}}" for k in missing))
    return _item(jf, member, kind, framework if kind == "route" else "stream_bridge", broker="stream", topic=topic,
                 written=written)


def _functional(jf: JavaFile, member: int, sym: SymbolFact) -> Iterator[Item]:
    name = sym.name
    definition = literal(jf.values.get("spring.cloud.function.definition") or "")
    defined = any(name in [d.strip() for d in one.text.replace("|", ";").replace(",", ";").split(";")]
                  for one in expand(definition))   # a profile may define other functions
    for direction, kind in (("in", "route"), ("out", "producer")):
        if direction == "in" and sym.type == "Supplier" or direction == "out" and sym.type == "Consumer":
            continue
        binding = f"{name}-{direction}-0"
        configured = jf.values.get(f"spring.cloud.stream.bindings.{binding}.destination") is not None
        if configured or defined:
            yield _binding(jf, member, literal(binding), "spring_cloud_stream", kind, f"@Bean {name} ({binding})")


# -- declared clients -----------------------------------------------------------------------------------------


def _feign(jf: JavaFile, index: int, anns, members: list[int]) -> Iterator[Item]:
    sym = jf.facts.symbols[index]
    feign = anns["FeignClient"]
    name_expr = attr(feign, "name", "value", "serviceId")
    url_expr = attr(feign, "url")
    url = jf.fold(url_expr, sym.key) if url_expr else None
    name = jf.fold(name_expr, sym.key) if name_expr else None
    base = jf.fold(attr(feign, "path"), sym.key)
    for member, methods, written_prefix, prefix, written, path, line in _request_mappings(jf, index, anns, members):
        full = join_paths([base, prefix, path])
        for method in methods:   # at the mapping's line: the method's first may be another annotation's (@Override)
            item = _item(jf, member, "client", "feign", line or None, http_method=method, path=full,
                         written=" + ".join(w for w in (attr(feign, "path"), written_prefix, written) if w))
            if url is not None and url.text:
                item.base_url = url.text
                item.target, item.target_source, item.target_name = url, "feign url", name
            elif name is not None:
                item.target, item.target_source = name, "feign name"
            else:
                item.problems.append("the Feign client names no service (name, value or url)")
            yield item


def _exchange(jf: JavaFile, index: int, anns, members: list[int]) -> Iterator[Item]:
    sym = jf.facts.symbols[index]
    base_expr = attr(anns.get("HttpExchange"), "url", "value")
    base = jf.fold(base_expr, sym.key) if base_expr else literal("")
    for member in members:
        found = _mapping(annotations(jf.facts.symbols[member]), EXCHANGES)
        if found is None:
            continue
        annotation, methods = found
        for written, path in jf.folds(attr(annotation, "url", "value"), sym.key):
            for method in methods:
                item = _item(jf, member, "client", "http_exchange", annotation.line or None, http_method=method,
                             written=" + ".join(w for w in (base_expr, written) if w))
                item.path = path
                item.base_url = base.text if base_expr else None
                if base_expr:
                    item.target, item.target_source = base, "@HttpExchange url"
                else:
                    item.problems.append("the base URL is set where the @HttpExchange proxy is created")
                yield item


# -- calls ----------------------------------------------------------------------------------------------------


def receiver_type(facts: FileFacts, by_key: dict[str, int], call: CallFact, full: bool = False) -> str | None:
    """The declared type (simple name; ``full``: as written) of a call's receiver: a local, a parameter or a
    field of the class."""
    receiver = call.receiver
    if not receiver:
        return None
    if receiver[0] == "name":
        var, fields_only = receiver[1], False
    elif receiver[0] == "field" and receiver[1] == ["this"]:
        var, fields_only = receiver[2], True
    else:
        return None
    if not fields_only:
        seen = [(line, type_) for line, type_ in facts.locals.get(call.owner, {}).get(var, []) if line <= call.line]
        if seen:
            return max(seen)[1] if full else max(seen)[1].rsplit(".", 1)[-1]
    class_key = call.owner.split("#", 1)[0]
    while class_key:
        index = by_key.get(f"{class_key}#{var}")
        if index is not None and facts.symbols[index].kind == "field":
            type_ = facts.symbols[index].type
            return type_ if full else type_.rsplit(".", 1)[-1]
        class_key = class_key.rpartition(".")[0]
    return None


def _fluent(type_: str | None, bottom) -> str | None:
    """``WebClient`` / ``RestClient`` for a chain that starts at one, its builder (``webClientBuilder.build()``, an
    injected ``WebClient.Builder``) or the class itself (``WebClient.create(...)``), else the simple type."""
    if not type_:
        return bottom[1] if bottom and bottom[0] == "name" and bottom[1] in FLUENT else None
    for name in FLUENT:
        if type_ == name or type_.endswith("." + name) or type_.rsplit(".", 2)[-2:] == [name, "Builder"]:
            return name
    return type_.rsplit(".", 1)[-1]


def _bottom(receiver) -> list:
    """The innermost receiver of a call chain (``web.get().uri(...)`` -> ``["name", "web"]``)."""
    while receiver and receiver[0] == "call":
        receiver = receiver[1]
    return receiver


def _calls(jf: SpringFile, by_key: dict[str, int]) -> Iterator[Item]:
    facts = jf.facts
    lines: dict[tuple[str, int, str], CallFact] = {(c.owner, c.line, c.name): c for c in facts.calls}
    bases = file_bases(jf)
    for call in facts.calls:
        owner_index = by_key.get(call.owner)
        if owner_index is None:
            continue
        class_key = call.owner.split("#", 1)[0]
        kind = receiver_type(facts, by_key, call)
        if kind in REST_TEMPLATES and call.name in REST_TEMPLATE_CALLS and call.args:
            method = REST_TEMPLATE_CALLS[call.name]
            if method is None:
                method = _http_method(call.args[1] if len(call.args) > 1 else "")
            url = jf.fold(call.args[0], class_key, call.owner, call.line)
            yield _item(jf, owner_index, "client", "rest_template", line=call.line, http_method=method, path=url,
                        written=call.args[0])
        elif call.name == "uri" and call.args and call.receiver and call.receiver[0] == "call":
            verb_call = call.receiver
            bottom_type = _fluent(receiver_type(facts, by_key, CallFact(call.owner, "", _bottom(verb_call), 0,
                                                                        call.line), full=True), _bottom(verb_call))
            if bottom_type not in FLUENT:
                continue
            verb = verb_call[2]
            if verb in VERBS:
                method = verb.upper()
            elif verb == "method":
                source = lines.get((call.owner, call.line, "method"))
                method = _http_method(source.args[0] if source is not None and source.args else "")
            else:
                continue
            item = _item(jf, owner_index, "client", FLUENT[bottom_type], line=call.line, http_method=method,
                         path=jf.fold(call.args[0], class_key, call.owner, call.line), written=call.args[0])
            own = bases_for(bases, FLUENT[bottom_type], class_key)
            module_bases = bases_for(jf.module_bases, FLUENT[bottom_type], None)
            if len(own) == 1:
                item.base_url, item.target_source = own[0].text, "base URL set in the class"
            elif len(own) > 1:
                item.problems.append(f"the class sets {len(own)} different base URLs")
            elif len(module_bases) == 1:
                item.base_url, item.target_source = module_bases[0].text, "the module's only base URL"
            elif module_bases:
                item.problems.append(f"the class sets no base URL and its module sets {len(module_bases)}")
            else:
                item.problems.append("no base URL is set for it in the class or its module")
            yield item
        elif kind in PRODUCERS and call.name in PRODUCERS[kind][2] and call.args:
            producer_kind, broker, _ = PRODUCERS[kind]
            if producer_kind == "stream_bridge":
                item = _binding(jf, owner_index, jf.fold(call.args[0], class_key, call.owner, call.line), "stream_bridge", "producer",
                                call.args[0])
                item.line = call.line
            elif producer_kind == "rabbit_template" and len(call.args) >= 3:
                # ``convertAndSend(exchange, routingKey, message)``: ``exchange/key`` as `frameworks.amqp` names it, the
                # key alone on the default exchange ``""`` (the queue it names)
                exchange, key = (isinstance(jf, SpringFile) and jf.amqp and jf.amqp.bean_name(jf, call, arg) or
                                 jf.fold(arg, class_key, call.owner, call.line) for arg in call.args[:2])
                topic = key if exchange.known and exchange.text == "" else exchange + literal("/") + key
                item = _item(jf, owner_index, "producer", producer_kind, line=call.line, broker=broker,
                             topic=topic, written=", ".join(call.args[:2]))
            else:   # a 2-argument ``convertAndSend(queue.getName(), msg)``: the default exchange, by the queue's name
                named = jf.amqp.bean_name(jf, call, call.args[0]) if producer_kind == "rabbit_template" and \
                    isinstance(jf, SpringFile) and jf.amqp else None
                item = _item(jf, owner_index, "producer", producer_kind, line=call.line, broker=broker,
                             topic=named or jf.fold(call.args[0], class_key, call.owner, call.line), written=call.args[0])
            yield item


def file_bases(jf: JavaFile) -> dict[tuple[str, str | None], list[Folded]]:
    """Base URLs a file sets (``baseUrl(...)``, ``WebClient.create(...)``), by (class, client kind): the kind
    is ``web_client`` or ``rest_client`` when the builder's type or the bean method's return type says
    which, else None (it may serve either)."""
    facts = jf.facts
    by_key = {sym.key: index for index, sym in enumerate(facts.symbols)}
    bases: dict[tuple[str, str | None], list[Folded]] = {}
    for call in facts.calls:
        bottom = _bottom(call.receiver)
        creates = call.name == "create" and bottom and bottom[0] == "name" and bottom[1] in FLUENT
        if not call.args or not (call.name == "baseUrl" or creates):
            continue
        class_key = call.owner.split("#", 1)[0]
        hints = []
        if bottom and bottom[0] == "name" and bottom[1] in FLUENT:
            hints.append(bottom[1])
        hints.append(receiver_type(facts, by_key, CallFact(call.owner, "", bottom, 0, call.line), full=True) or "")
        owner = by_key.get(call.owner)
        hints.append(facts.symbols[owner].type if owner is not None else "")
        kinds = {kind for name, kind in FLUENT.items() if any(name in hint for hint in hints)}
        flavor = next(iter(kinds)) if len(kinds) == 1 else None
        bases.setdefault((class_key, flavor), []).append(jf.fold(call.args[0], class_key, call.owner, call.line))
    return bases


def bases_for(bases: dict[tuple[str, str | None], list[Folded]], flavor: str, class_key: str | None) -> list[Folded]:
    """The distinct base URLs that may serve a client of ``flavor`` (in ``class_key``; None: anywhere)."""
    return _distinct([value for (owner, kind), values in bases.items()
                      if (class_key is None or owner == class_key) and kind in (flavor, None) for value in values])


def _distinct(values: list[Folded]) -> list[Folded]:
    seen: dict[str, Folded] = {}
    for value in values:
        seen.setdefault(value.text, value)
    return list(seen.values())


def _http_method(expr: str) -> str | None:
    name = expr.strip().rsplit(".", 1)[-1].strip('"').upper()
    return name if name in ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS") else None


FRAMEWORK = Framework("spring", JVM_LANGUAGES, prepare)
