"""Java constants for folding: ``static final`` fields (and interface fields) whose initialiser is a literal, a
name or an expression of them, anywhere in the project (``ApiPaths.ORDERS``, static imports, the enclosing
class), fields injected with ``@Value("${...}")`` (constructor parameters too), ``String.format`` and
``formatted`` with constant arguments, a method's locals, what a class's methods assign its fields
(``this.baseUrl = ...``), what a method of the class returns (``baseUrl() + "/x"``, its parameters bound to
the call's arguments), ``System.getenv("X")``, the getters of a ``@ConfigurationProperties`` class
(``props.getOrders().getUrl()`` is ``${prefix.orders.url}``, nested property classes followed) and the methods of a
SmallRye ``@ConfigMapping`` interface (``config.villain().clientBaseUrl()`` is ``${prefix.villain.client-base-url}``,
or its ``@WithName``; a ``@WithDefault`` its default), a Lombok getter of another project class (the field it
gets), a Spring ``UriComponentsBuilder`` chain (``fromUriString(base).path("/x")...toUri()``), and a service
looked up by name (``discoveryClient.getInstances("orders")``, ``loadBalancer.choose("orders")``, Eureka's
``getNextServerFromEureka("orders", false)``: ``lb://orders``; its ``getHomePageUrl()`` ``lb://orders/``, its
``getHostName()`` ``orders``), and
a method of a project enum's constant (``Target.ORDERS.getServiceName()``, or ``target.getServiceName()`` on a
parameter a wrapper's call site binds to the constant: the constructor argument its getter's field is set from)."""

from __future__ import annotations

import re

from ...model import CallFact, FileFacts, SymbolFact
from ..folding import (
    CHOICE_OPEN,
    UNKNOWN,
    Folded,
    Folder,
    Scope,
    choice,
    has_unknown,
    literal,
    named_unknown,
    printf,
    unescape,
    unknown,
)
from ..symbols import Table

#: calls that read an environment variable
ENV_READERS = frozenset({"System.getenv"})
#: ``java.net.URL(protocol, host, port, file)`` and ``URL(protocol, host, file)`` (Java ``new URL(..)``, Kotlin
#: ``URL(..)``): ``protocol://host:port`` + ``file`` (no port in the second), as the constructors document
URL_MAKERS = frozenset({"URL", "java.net.URL"})
#: a protocol written as a literal (``URL("http", host, file)``; a ``URL(context, spec, handler)`` has a URL first)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
#: conversions whose result writes as their argument does (a port as text or as a number)
SAME_VALUE = frozenset({"Integer.parseInt", "Integer.valueOf", "Long.parseLong", "Long.valueOf"})
#: methods that give a value's text as written (``new URL(..).toString()``)
TEXT_OF = frozenset({"toString", "toExternalForm"})
#: Kotlin's conversions of a string to a number, called on it (``port.toInt()``)
SAME_TEXT = frozenset({"toInt", "toLong", "toIntOrNull", "toLongOrNull"})
#: (receiver type, method): looking a service instance up by its name
LOOKUPS = {("DiscoveryClient", "getInstances"), ("ReactiveDiscoveryClient", "getInstances"),
           ("LoadBalancerClient", "choose"), ("ReactiveLoadBalancer", "choose"), ("ServiceInstanceChooser", "choose")}
#: Netflix Eureka's lookups by a service's virtual host name (Spring Cloud's default: ``spring.application.name``),
#: its second argument whether to ask for the secure port: ``eurekaClient.getNextServerFromEureka("orders", false)``
EUREKA_LOOKUPS = {("EurekaClient", "getNextServerFromEureka"), ("DiscoveryClient", "getNextServerFromEureka"),
                  ("EurekaClient", "getInstancesByVipAddress"), ("DiscoveryClient", "getInstancesByVipAddress")}
#: an Eureka ``InstanceInfo``'s methods that give the instance's host (``getHostName``, ``getIPAddr``) or its URL with
#: a slash after the address (``getHomePageUrl``: ``http://host:port/``)
_EUREKA_HOST = frozenset({"getHostName", "getIPAddr"})
#: methods of a looked-up instance (or a list of them) that keep its address
INSTANCE_METHODS = frozenset({"get", "getUri", "toString", "blockFirst", "block", "getFirst"})
_CONFIG = "\x05"
#: an enum constant a call site passes for a wrapper's parameter (`enum_constant`): read through its methods
#: (``target.getServiceName()``, ``target.name()``), never as text (`without_enum_constants`)
_ENUM = "\x06"
_ENUM_VALUE = re.compile(f"{_ENUM}([^{_ENUM}\x1d]*)\x1d([^{_ENUM}]*){_ENUM}")
#: Spring's ``UriComponentsBuilder`` factories (the simple name, or the qualified one): the URL their argument
#: gives (``fromPath``: a path alone), extended by the builder methods chained on it (`_URI_SAME`, ``path``,
#: ``pathSegment``)
URI_BUILDERS = frozenset({f"{owner}.{method}" for owner in ("UriComponentsBuilder",
                                                            "org.springframework.web.util.UriComponentsBuilder")
                          for method in ("fromUriString", "fromHttpUrl", "fromUri", "fromPath")})
#: builder methods that leave the URL's address and path as they are (a query, a fragment, encoding, expanding the
#: ``{name}`` variables, which stay as the route template's parameters, and turning it into a ``URI``/text)
_URI_SAME = frozenset({"queryParam", "queryParams", "queryParamIfPresent", "replaceQueryParam", "replaceQueryParams",
                       "query", "replaceQuery", "fragment", "encode", "build", "buildAndExpand", "expand",
                       "toUri", "toUriString", "toString", "normalize", "uriVariables", "cloneBuilder"})
#: what a method may do with a map it makes for `JavaFolder.map_get` to read it (reads; puts are followed)
_MAP_READS = ("get", "containsKey", "containsValue", "isEmpty", "size")
_MAP_USES = frozenset({*_MAP_READS, "put", "putIfAbsent"})
#: how much of an argument a call's facts keep (`extractor.arg_texts`): a longer one may be cut
_ARG_WIDTH = 200


def format_java(template: Folded, args: list[Folded]) -> Folded:
    """``String.format`` with ``%s`` / ``%d`` (and ``%%``); anything else is unknown."""
    return printf(template, args, "sd", "String.format")


class JavaConstants:
    """Every Java constant of the project (``pkg.Type#NAME`` -> initialiser) and every type fqn; ``languages``:
    the JVM languages whose files are read (a Kotlin ``const val`` is keyed and read the same way)."""

    def __init__(self, table: Table, languages: tuple[str, ...] = ("java",)) -> None:
        self.constants: dict[str, tuple[str, FileFacts, str]] = {}
        #: fields injected with ``@Value("${...}")``: their value is that placeholder
        self.injected: dict[str, tuple[str, FileFacts, str]] = {}
        self.types: set[str] = set()
        #: enum fqn -> (its file, its key there): the constants a call site passes for a parameter (`enum_method`)
        self.enums: dict[str, tuple[FileFacts, str]] = {}
        #: ``@ConfigurationProperties`` classes: fqn -> prefix
        self.properties: dict[str, str] = {}
        #: type fqn -> field (or record component) -> its type as written
        self.fields: dict[str, dict[str, str]] = {}
        #: simple type name -> every ``new T(...)`` of the project (the call, its file)
        self.constructions: dict[str, list[tuple[CallFact, FileFacts]]] = {}
        #: simple names of the types some project type extends or implements
        self.extended: set[str] = set()
        #: SmallRye ``@ConfigMapping`` interfaces and the interfaces nested in them: their keys are kebab-case
        self.mappings: set[str] = set()
        #: (mapping fqn, method) -> its ``@WithDefault`` string
        self.defaults: dict[tuple[str, str], str] = {}
        #: (mapping fqn, method) -> the key its ``@WithName`` gives (SmallRye reads that key, not the method's name)
        self.key_names: dict[tuple[str, str], str] = {}
        #: interface fqn -> method without parameters -> (its type, its ``@WithDefault``), for ``@ConfigMapping``
        methods: dict[str, dict[str, tuple[str, str | None]]] = {}
        key_names: dict[tuple[str, str], str] = {}
        #: type fqn -> (its file, its key there, its methods): a static helper ``T.m(..)`` is looked up here
        self.members: dict[str, tuple[FileFacts, str, list[SymbolFact]]] = {}
        #: type fqns more than one file declares methods of
        self.shared_types: set[str] = set()
        #: method name -> whether code outside tests calls a method so named (any language; False: tests only)
        self.called_outside_tests: dict[str, bool] = {}
        for bound in table.files.values():
            for call in bound.facts.calls:
                self.called_outside_tests[call.name] = self.called_outside_tests.get(call.name, False) or \
                    not bound.ctx.is_test
        #: static fields that are not final: fqn -> (initialiser, facts, class key, name)
        static_fields: dict[str, tuple[str, FileFacts, str, str]] = {}
        for bound in table.files.values():
            if bound.facts.language not in languages:
                continue
            for call in bound.facts.calls:
                if call.kind == "new":
                    self.constructions.setdefault(call.name, []).append((call, bound.facts))
            for index, sym in enumerate(bound.facts.symbols):
                fqn = bound.fqns[index]
                self.extended.update(name.partition("<")[0].rsplit(".", 1)[-1] for _, name in sym.supers)
                if sym.kind == "field" and sym.parent in bound.by_key:
                    self.fields.setdefault(bound.fqns[bound.by_key[sym.parent]], {})[sym.name] = sym.type
                elif sym.kind == "method" and not sym.params and sym.parent in bound.by_key and sym.type:
                    default = next((dict(a.args).get("") or dict(a.args).get("value") for a in sym.annotations
                                    if a.name.rsplit(".", 1)[-1] == "WithDefault"), None)
                    named = next((dict(a.args).get("") or dict(a.args).get("value") for a in sym.annotations
                                  if a.name.rsplit(".", 1)[-1] == "WithName"), None)
                    owner = bound.fqns[bound.by_key[sym.parent]]
                    methods.setdefault(owner, {})[sym.name] = (sym.type, default)
                    if named:
                        key_names[(owner, sym.name)] = named
                if sym.kind == "method" and sym.parent in bound.by_key:
                    owner = bound.fqns[bound.by_key[sym.parent]]
                    held = self.members.setdefault(owner, (bound.facts, sym.parent or "", []))
                    if held[0] is bound.facts:
                        held[2].append(sym)
                    else:   # two files (two services) declare the type: whose method runs is not read
                        self.shared_types.add(owner)
                if sym.kind in ("class", "interface", "enum", "record", "annotation"):
                    self.types.add(fqn)
                    if sym.kind == "enum":
                        self.enums[fqn] = (bound.facts, sym.key)
                    config = next((a for a in sym.annotations if a.name.rsplit(".", 1)[-1] == "ConfigurationProperties"),
                                  None)
                    mapping = next((a for a in sym.annotations if a.name.rsplit(".", 1)[-1] == "ConfigMapping"), None)
                    if config is not None or mapping is not None and sym.kind == "interface":
                        args = dict((config or mapping).args)
                        raw = args.get("prefix") or args.get("value") or args.get("") or '""'
                        self.properties[fqn] = raw.strip().strip('"')
                        if config is None:
                            self.mappings.add(fqn)
                    if sym.kind == "record":
                        self.fields.setdefault(fqn, {}).update(dict(sym.params))
                elif sym.kind == "field" and "value" in sym.extra and {"static", "final"} <= set(sym.modifiers):
                    self.constants[fqn] = (sym.extra["value"], bound.facts, sym.parent or "")
                elif sym.kind == "field" and "value" in sym.extra and "static" in sym.modifiers:
                    static_fields[fqn] = (sym.extra["value"], bound.facts, sym.parent or "", sym.name)
                elif sym.kind == "field":
                    injected = next((dict(a.args).get("") or dict(a.args).get("value") for a in sym.annotations
                                     if a.name.rsplit(".", 1)[-1] == "Value"), None)
                    if injected:
                        self.injected[fqn] = (injected, bound.facts, sym.parent or "")
        self._settled_statics(table, languages, static_fields)
        for root in list(self.mappings):   # a mapping's methods are its properties, its nested interfaces too
            for fqn, members in methods.items():
                if fqn == root or fqn.startswith(root + "."):
                    self.mappings.add(fqn)
                    self.fields.setdefault(fqn, {}).update({name: written for name, (written, _) in members.items()})
                    self.defaults.update({(fqn, name): d.strip('"') for name, (_, d) in members.items()
                                          if d and d.startswith('"')})
                    self.key_names.update({(fqn, name): named.strip('"') for name in members
                                           if (named := key_names.get((fqn, name))) is not None})


    def _settled_statics(self, table: Table, languages: tuple[str, ...],
                         static_fields: dict[str, tuple[str, FileFacts, str, str]]) -> None:
        """A ``static`` field that is not ``final`` (``public static String CHANNEL = "orders";``) is a constant when
        nothing in the project assigns it after its initialiser: no assignment anywhere whose target ends in its
        name (``CHANNEL = ...``, ``Channels.CHANNEL = ...``, ``CHANNEL += ...``) but the initialiser itself. A
        name assigned anywhere else keeps every field of that name unknown (which one it writes is not read)."""
        if not static_fields:
            return
        names = {name for _, _, _, name in static_fields.values()}
        writes: dict[str, int] = {}
        for bound in table.files.values():
            if bound.facts.language not in languages:
                continue
            for entries in bound.facts.extra.get("assigns", {}).values():
                for target, found in entries.items():
                    name = target.rsplit(".", 1)[-1].strip()
                    if name in names:
                        writes[name] = writes.get(name, 0) + len(found)
        initialisers: dict[str, int] = {}
        for _, _, _, name in static_fields.values():
            initialisers[name] = initialisers.get(name, 0) + 1
        for fqn, (value, facts, owner, name) in static_fields.items():
            if writes.get(name, 0) <= initialisers[name]:
                self.constants[fqn] = (value, facts, owner)


class JavaFolder(Folder):
    """Folds a Java expression as written in ``facts`` inside the type ``class_key``."""

    bare_field_assigns = True
    default_operators = ("?:",)   # Kotlin's elvis (``System.getenv("X") ?: "d"``); Java writes no such token

    def reaches(self, method: SymbolFact) -> bool:
        """A method only tests call (a test hook such as ``void setHostname(String h)``; not a constructor, no
        annotation, not in a ``@ConfigurationProperties`` class whose setters Spring calls) does not run in the
        deployed service: its assignments do not reach a field's read there."""
        if method.kind == "constructor" or method.annotations:
            return True
        facts = self.scope.facts if self.scope is not None else self.facts
        owner = next((s for s in facts.symbols if s.key == method.parent), None)
        if owner is None or any(a.name.rsplit(".", 1)[-1] == "ConfigurationProperties" for a in owner.annotations):
            return True
        return self.constants.called_outside_tests.get(method.name, True)

    def __init__(self, constants: JavaConstants, facts: FileFacts, class_key: str) -> None:
        super().__init__()
        self.constants, self.facts, self.class_key = constants, facts, class_key
        self.package = facts.package

    def string(self, kind: str, text: str) -> Folded:
        if kind == "block":
            body = text[3:-3]
            lines = body.split("\n")[1:] if "\n" in body else [body]
            indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
            return literal(unescape("\n".join(x[indent:] for x in lines).rstrip(" ")))
        if text.startswith("'"):
            return literal(unescape(text[1:-1]))
        return literal(unescape(text[1:-1]))

    def _qualify(self, name: str) -> str:
        return f"{self.package}.{name}" if self.package else name

    def type_fqn(self, name: str) -> str | None:
        """The project type a (possibly dotted) type name means in this file, or None."""
        head, _, rest = name.partition(".")
        scope = self.class_key
        while scope:  # nested types of the enclosing classes
            candidate = self._qualify(f"{scope}.{head}")
            if candidate in self.constants.types:
                return _nested(candidate, rest, self.constants.types)
            scope = scope.rpartition(".")[0]
        candidates = [self._qualify(head)]
        for imp in self.facts.imports:
            if imp.static:
                continue
            if imp.names == (("*", "*"),):
                candidates.append(f"{imp.target}.{head}")
            elif imp.target.rsplit(".", 1)[-1] == head:
                candidates.insert(0, imp.target)
        for candidate in candidates:
            if candidate in self.constants.types:
                return _nested(candidate, rest, self.constants.types)
        if name in self.constants.types:
            return name
        return None

    def constant(self, fqn: str) -> Folded | None:
        found = self.constants.constants.get(fqn) or self.constants.injected.get(fqn)
        if found is None:
            return None
        expr, facts, class_key = found
        return JavaFolder(self.constants, facts, class_key).with_depth(self.depth).fold(expr)

    def with_depth(self, depth: int) -> JavaFolder:
        self.depth = depth
        return self

    def name(self, name: str) -> Folded:
        field_only = name.startswith("this.")
        name = name.removeprefix("this.")
        if "." not in name and not field_only:
            found = self.local(name)
            if found is None:
                found = self.injected_parameter(name)
            if found is not None:
                return found
        if "." in name:
            owner, _, field = name.rpartition(".")
            type_fqn = self.type_fqn(owner)
            if type_fqn is not None:
                value = self.constant(f"{type_fqn}#{field}")
                if value is not None:
                    return value
                return unknown(f"{name} is not a constant with a literal value")
            return unknown(f"{name} is not a project constant")
        scope = self.class_key
        while scope:
            value = self.constant(self._qualify(f"{scope}#{name}"))
            if value is not None:
                return value
            scope = scope.rpartition(".")[0]
        for imp in self.facts.imports:
            if not imp.static:
                continue
            if imp.names == (("*", "*"),):
                value = self.constant(f"{imp.target}#{name}")
            elif imp.target.rsplit(".", 1)[-1] == name:
                value = self.constant(f"{imp.target.rpartition('.')[0]}#{name}")
            else:
                value = None
            if value is not None:
                return value
        # a parameter hides a field
        found = self.constructed(name) if self._is_parameter(name) else self.member(name, ("this",))
        if found is not None:
            return found
        return named_unknown(name, f"{name} is not a constant (a variable or parameter: known at run time only)")

    def _is_parameter(self, name: str) -> bool:
        if self.scope is None:
            return False
        owner = next((s for s in self.scope.facts.symbols if s.key == self.scope.owner), None)
        return owner is not None and any(param == name for param, _ in owner.params)

    def constructed(self, name: str) -> Folded | None:
        """A constructor's parameter as every ``new T(...)`` of the project passes it (several values: a choice).
        None (known at run time only) when the scope is no constructor, the class is a bean or extended (something
        other than ``new`` may make it), no ``new`` makes it, two constructors take as many arguments, a site
        passes a value not known, or a value comes through a way not read (another constructor's ``this(...)``,
        a ``T::new`` reference)."""
        scope = self.scope
        if scope is None or self.depth > 8:
            return None
        symbols = {s.key: s for s in scope.facts.symbols}
        ctor = symbols.get(scope.owner)
        cls = symbols.get(ctor.parent or "") if ctor is not None and ctor.kind == "constructor" else None
        if cls is None or cls.annotations or ctor.annotations or cls.name in self.constants.extended:
            return None
        index = next(i for i, (param, _) in enumerate(ctor.params) if param == name)
        if sum(s.kind == "constructor" and s.parent == cls.key and len(s.params) == len(ctor.params)
               for s in symbols.values()) != 1:
            return None
        if any(call.kind == "this" and call.argc == len(ctor.params) and getattr(symbols.get(call.owner), "parent",
                                                                                  None) == cls.key
               for call in scope.facts.calls):
            return None
        fqn = self._qualify(cls.key)
        values: list[Folded] = []
        for call, facts in self.constants.constructions.get(cls.name, ()):
            site_class = call.owner.partition("#")[0]
            written = call.receiver[1] if isinstance(call.receiver, list) and len(call.receiver) > 1 else call.name
            site = JavaFolder(self.constants, facts, site_class)
            if call.argc not in (len(ctor.params), -1) or site.type_fqn(str(written).partition("<")[0]) != fqn:
                continue
            if call.argc == -1:   # T::new: its arguments are not written here
                return None
            if index >= len(call.args):
                return None
            value = site.with_depth(self.depth + 1).at(facts, call.owner, call.line).fold(call.args[index])
            if has_unknown(value.text) or value.text == UNKNOWN:
                return None
            values.append(value)
        return choice(values) if values else None

    def injected_parameter(self, name: str) -> Folded | None:
        """A parameter of the scope's method injected with ``@Value("${key}")``: that placeholder."""
        if self.scope is None:
            return None
        owner = next((s for s in self.scope.facts.symbols if s.key == self.scope.owner), None)
        injected = owner.extra.get("param_values", {}).get(name) if owner is not None else None
        return self.fold(injected) if injected else None

    def _term(self, toks: list[tuple[str, str]]) -> tuple[Folded, list[tuple[str, str]]]:
        """``new URL(..)`` folds as Kotlin's ``URL(..)`` (`URL_MAKERS`), methods chained on it as on a call's result;
        any other ``new`` as before."""
        if len(toks) > 2 and toks[0] == ("name", "new") and toks[1][0] == "name" and toks[1][1] in URL_MAKERS \
                and toks[2] == ("op", "("):
            args, rest = self._args(toks[3:])
            value = self.call(toks[1][1], args)
            while len(rest) > 2 and rest[0] == ("other", ".") and rest[1][0] == "name" and rest[2] == ("op", "("):
                method = rest[1][1]
                args, rest = self._args(rest[3:])
                value = self.chained(value, method, args)
            return value, rest
        if len(toks) > 1 and toks[0][0] == "name" and toks[0][1] in URI_BUILDERS and toks[1] == ("op", "("):
            return self.uri_builder(toks)
        return super()._term(toks)

    def uri_builder(self, toks: list[tuple[str, str]]) -> tuple[Folded, list[tuple[str, str]]]:
        """``UriComponentsBuilder.fromUriString(base).path("/a/{id}").pathSegment("b").queryParam(..).build()
        .toUri()``: the base's URL with each ``path`` appended (one slash where they join, as Spring's builder
        writes it) and each ``pathSegment`` after a slash; the methods of `_URI_SAME` keep the value. Any other
        method (``replacePath``, ``host``, ``port``, ``scheme``, ``uri``...) changes what was folded: unknown."""
        args, rest = self._args(toks[2:])
        value = self.fold_tokens(args[0]) if len(args) == 1 else unknown(f"{toks[0][1]}(...) of no one argument")
        while len(rest) > 2 and rest[0] == ("other", ".") and rest[1][0] == "name" and rest[2] == ("op", "("):
            method = rest[1][1]
            args, rest = self._args(rest[3:])
            if method == "path" and len(args) == 1:
                value = _join_path(value, self.fold_tokens(args[0]))
            elif method == "pathSegment" and args:
                for segment in args:
                    value = _join_path(value, literal("/") + self.fold_tokens(segment))
            elif method not in _URI_SAME:
                value = unknown(f"the result of ....{method}(...) on a UriComponentsBuilder")
        return value, rest

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        found = self.env_call(name, args, ENV_READERS)
        if found is not None:
            return found
        head, dot, method = name.rpartition(".")
        named = self.enum_named(head) if dot else None
        if named is not None:
            return self.enum_method(*named, method, args)
        field = head.startswith("this.") and "." not in head[5:]   # this.props.getUrl(): the field's, never a local's
        if not dot or head == "this":
            found = self.returned(method, args)
            if found is not None:
                return found
        elif not field and not self.variable_type(head.partition(".")[0]) and self.local(head) is None:
            found = self.static_helper(head, method, args)
            if found is not None:
                return found
        if dot and head != "this" and ("." not in head or field):
            if method == "get" and len(args) == 1 and not field:
                found = self.map_get(head, args[0])
                if found is not None:
                    return found
            written = self.variable_type(head.removeprefix("this."), field)
            fqn = self.type_fqn(written) if written else None
            if fqn in self.constants.properties:
                return self.property(fqn, self.constants.properties[fqn], method)
            found = self.lombok_getter(fqn, method) if fqn and not args else None
            if found is not None:
                return found
            if (written.rsplit(".", 1)[-1], method) in LOOKUPS and len(args) == 1 or \
                    (written.rsplit(".", 1)[-1], method) in EUREKA_LOOKUPS and len(args) == 2:
                service = self.fold_tokens(args[0])
                if service.known:
                    return literal(f"lb://{service.text}")
        if dot and head and "." not in head and method in SAME_TEXT and not args:   # port.toInt(): the same digits
            return self.fold_tokens([("name", head)])
        folded = [self.fold_tokens(a) for a in args]
        if name in URL_MAKERS and (len(folded) == 4 or len(folded) == 3 and _SCHEME.fullmatch(folded[0].text)):
            # URL(protocol, host, port, file) and URL(protocol, host, file); URL(context, spec, handler) is not folded
            address = folded[0] + literal("://") + folded[1]
            return (address + literal(":") + folded[2] if len(folded) == 4 else address) + folded[-1]
        if name in SAME_VALUE and len(folded) == 1:
            return folded[0]
        if name in ("String.format", "format") and folded:
            return format_java(folded[0], folded[1:])
        if name == "String.valueOf" and len(folded) == 1:
            return folded[0]
        if name.endswith(".formatted") and folded:  # "a/%s".formatted(x) reads as a name "....formatted"
            return unknown("String.formatted")
        return unknown(f"the result of {name}(...)")

    def chained(self, value: Folded, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        if value.text.startswith(_CONFIG):
            fqn, _, prefix = value.text.strip(_CONFIG).partition("\x1d")
            return self.property(fqn, prefix, method)
        if value.known and value.text.startswith("lb://") and method in INSTANCE_METHODS:
            return value
        if value.known and value.text.startswith("lb://") and not args and method in _EUREKA_HOST:
            return literal(value.text.removeprefix("lb://"))   # "http://" + info.getHostName() + ..: the name
        if value.known and value.text.startswith("lb://") and not args and method == "getHomePageUrl":
            return value + literal("/")
        if method in TEXT_OF and not args:   # a URL's, a string's or a number's text is what was folded
            return value
        return super().chained(value, method, args)

    def map_get(self, name: str, key: list[tuple[str, str]]) -> Folded | None:
        """``m.get(k)`` on a map the method makes (``Map<..> m = new HashMap<>()``) and only fills and reads
        (``put``/``putIfAbsent``, ``get``, ``containsKey``...): every value it puts under a key equal to ``k`` (several:
        a choice). None (the usual unknown result) when the map is a parameter or a field, is assigned again, goes
        anywhere else (an argument, another variable, a nested class), may (a call of the method with arguments the
        facts do not keep: past the third, or cut), a put's key is not known, or none puts ``k``."""
        scope = self.scope
        if scope is None or self.depth > 8:
            return None
        facts, owner = scope.facts, scope.owner
        method = next((s for s in facts.symbols if s.key == owner), None)
        declared = facts.locals.get(owner, {}).get(name, [])
        if method is None or len(declared) != 1 or any(p == name for p, _ in method.params) or \
                name in facts.extra.get("assigns", {}).get(owner, {}):
            return None
        line = declared[0][0]
        if not any(c.owner == owner and c.kind == "new" and c.line == line and c.name.endswith("Map") and
                   (c.argc == 0 or c.argc == 1 and c.args and c.args[0].strip().isdigit()) for c in facts.calls):
            return None   # a map made empty (or with a capacity), not a copy of another
        used = re.compile(rf"\b{re.escape(name)}\b(?!\s*\.\s*(?:{'|'.join(_MAP_READS)})\s*\()")
        receiver = ["name", name]
        puts = []
        for call in facts.calls:
            inside = method.line_start <= call.line <= method.line_end
            if call.receiver == receiver and inside and (call.owner != owner or call.name not in _MAP_USES):
                return None
            if call.owner == owner and (any(used.search(arg) for arg in call.args) or call.argc > len(call.args) or
                                        any(len(arg) >= _ARG_WIDTH for arg in call.args)):
                return None   # handed on, or maybe in an argument the facts do not keep (past the third, or cut)
            if call.owner == owner and call.receiver == receiver and call.name in ("put", "putIfAbsent"):
                puts.append(call)
        if any(used.search(expr) for entries in facts.extra.get("assigns", {}).get(owner, {}).values()
               for _, exprs in entries for expr in exprs):
            return None
        wanted = self.fold_tokens(key)
        values = []
        for put in puts:
            at = Scope(facts, owner, put.line, scope.bindings)
            put_key = self.fold_in(at, [put.args[0]]) if len(put.args) == 2 else None
            if put_key is None or not put_key.known or not wanted.known or CHOICE_OPEN in put_key.text + wanted.text:
                return None   # a key not known, or one of several: which entry a put writes is not known
            if put_key.text == wanted.text:
                values.append(self.fold_in(at, [put.args[1]]))
        if len({v.text for v in values}) > 1 and any(has_unknown(v.text) for v in values):
            return named_unknown(name, f"{name}.get(..) is one of several values, one known at run time only")
        return choice(values) if values else None

    def variable_type(self, name: str, field: bool = False) -> str:
        """The declared type of a local, a parameter or a field in the scope (``field``: a field only), as written
        ("" when unknown)."""
        if self.scope is not None and not field:
            seen = [(line, t) for line, t in self.scope.facts.locals.get(self.scope.owner, {}).get(name, [])
                    if line <= self.scope.line and t and not t.startswith("~")]
            if seen:
                return max(seen)[1]
        scope = self.class_key
        while scope:
            for sym in self.facts.symbols:
                if sym.kind == "field" and sym.parent == scope and sym.name == name:
                    return sym.type
            scope = scope.rpartition(".")[0]
        return ""

    def property(self, fqn: str, prefix: str, method: str) -> Folded:
        """A getter of a ``@ConfigurationProperties`` class: its key's placeholder, or the nested properties object."""
        fields = self.constants.fields.get(fqn, {})
        name = method
        for getter in ("get", "is"):
            if method.startswith(getter) and method[len(getter):len(getter) + 1].isupper():
                name = method[len(getter)].lower() + method[len(getter) + 1:]
                break
        if name not in fields:
            return unknown(f"{method}() is no property of {fqn}")
        mapped = fqn in self.constants.mappings
        if mapped:   # its @WithName, else SmallRye's default naming: kebab-case (``villainURL``: ``villain-url``)
            name = self.constants.key_names.get((fqn, method)) or re.sub(
                r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", method).lower()
        key = f"{prefix}.{name}" if prefix else name
        written = fields[method if mapped else name].rsplit(".", 1)[-1]
        inside = [t for t in (f"{fqn}.{written}", f"{fqn.rpartition('.')[0]}.{written}") if t in self.constants.fields]
        nested = inside[:1] or [t for t in self.constants.types
                                if t.rsplit(".", 1)[-1] == written and t in self.constants.fields]
        default = self.constants.defaults.get((fqn, method)) if mapped else None
        if default is not None and len(nested) != 1:
            return literal("${" + key + ":" + default + "}")
        if len(nested) == 1 and written not in ("String", "URI", "URL", "Integer", "Long", "Boolean"):
            return Folded(f"{_CONFIG}{nested[0]}\x1d{key}{_CONFIG}", False, (f"the properties object {key}",))
        return literal("${" + key + "}")

    def lombok_getter(self, fqn: str, method: str) -> Folded | None:
        """``config.getApiUrl()`` on a project type where Lombok writes that getter (``@Getter``/``@Data``: the
        extractor records it as a generated method): the field's value when it is a constant or injected with
        ``@Value``; None otherwise (a getter written by hand is read as any other method)."""
        _, _, members = self.constants.members.get(fqn, (None, "", []))
        if fqn in self.constants.shared_types or not any(
                s.name == method and not s.params and s.extra.get("generated_by") == "lombok" for s in members):
            return None
        field = method.removeprefix("get") if method.startswith("get") else method.removeprefix("is")
        field = field[:1].lower() + field[1:]
        if field not in self.constants.fields.get(fqn, {}):
            return None
        return self.constant(f"{fqn}#{field}")

    def enum_named(self, head: str) -> tuple[str, str] | None:
        """The project enum constant ``head`` names: (the enum's fqn, the constant), written ``Type.CONSTANT`` or a
        parameter a call site binds to one (`enum_constant`); None otherwise."""
        if "." not in head:
            if self.scope is None or all(bound != head for bound, _ in self.scope.bindings):
                return None
            found = _ENUM_VALUE.fullmatch(self.fold_tokens([("name", head)]).text)
            return (found.group(1), found.group(2)) if found else None
        written, _, constant = head.rpartition(".")
        fqn = self.type_fqn(written) if re.fullmatch(r"[A-Z][A-Z0-9_]*", constant) else None
        if fqn is None or fqn not in self.constants.enums:
            return None
        facts, key = self.constants.enums[fqn]
        return (fqn, constant) if _enum_constant_symbol(facts, key, constant) is not None else None

    def enum_method(self, fqn: str, constant: str, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        """``CONSTANT.method()`` of a project enum: ``name()`` is the constant's name; a method of the enum without
        parameters that returns one of its fields, which its one constructor of that many parameters assigns from a
        parameter, is the constant's argument there (``ORDERS("orders-service")``: ``getServiceName()`` is
        ``"orders-service"``). Anything else (a constant with a body of its own, an overload, a getter that computes)
        is not read: unknown, saying why."""
        facts, key = self.constants.enums[fqn]
        written = f"{fqn.rsplit('.', 1)[-1]}.{constant}"
        sym = _enum_constant_symbol(facts, key, constant)
        if sym is None or args:
            return unknown(f"the result of {written}.{method}(...)")
        if method == "name":
            return literal(constant)
        if _may_have_body(facts, key, sym):
            return unknown(f"{written} may have a body of its own (it spans lines {sym.line_start}-{sym.line_end}): "
                           f"what its {method}() returns is not read")
        values = sym.extra.get("args") or []
        assigns = facts.extra.get("assigns", {})
        getters = [s for s in facts.symbols if s.kind == "method" and s.parent == key and s.name == method]
        returns = assigns.get(getters[0].key, {}).get("return") if len(getters) == 1 and not getters[0].params else None
        field = returns[0][1][0].strip().removeprefix("this.") if returns and len(returns) == 1 and \
            len(returns[0][1]) == 1 else ""
        ctors = [s for s in facts.symbols if s.kind == "constructor" and s.parent == key and len(s.params) == len(values)]
        if not re.fullmatch(r"[A-Za-z_$][\w$]*", field) or len(ctors) != 1:
            return unknown(f"what {written}.{method}() returns is not read (no getter of a field its constructor sets)")
        set_by = [exprs for name in (f"this.{field}", field) for _, exprs in assigns.get(ctors[0].key, {}).get(name, [])]
        params = [name for name, _ in ctors[0].params]
        if len(set_by) != 1 or len(set_by[0]) != 1 or set_by[0][0].strip() not in params:
            return unknown(f"what {written}.{method}() returns is not read ({field} is not set from one constructor "
                           "parameter)")
        value = values[params.index(set_by[0][0].strip())]
        return JavaFolder(self.constants, facts, key).with_depth(self.depth + 1).fold(value)

    def returned(self, method: str, args: list[list[tuple[str, str]]]) -> Folded | None:
        """What a method of the class returns, its parameters bound to the arguments (None: not one method)."""
        if self.scope is None or self.depth > 8:
            return None
        facts = self.scope.facts
        found = [s for s in facts.symbols if s.kind == "method" and s.name == method and len(s.params) == len(args)
                 and s.parent == self.class_key]
        if len(found) != 1:
            return None
        entries = facts.extra.get("assigns", {}).get(found[0].key, {}).get("return")
        if not entries:
            return None
        bindings = tuple((param, self.fold_tokens(arg)) for (param, _), arg in zip(found[0].params, args, strict=True))
        return choice([self.fold_in(Scope(facts, found[0].key, line, bindings), exprs) for line, exprs in entries])

    def static_helper(self, owner: str, method: str, args: list[list[tuple[str, str]]]) -> Folded | None:
        """``T.m(..)`` / ``Outer.Inner.m(..)``: what the project type's one method so named returns, its parameters
        bound to the arguments (`Folder.returned_by`). None (the result unknown) when ``owner`` is no project type,
        the type declares no such method or several (an overload: which one runs is not read)."""
        fqn = self.type_fqn(owner)
        facts, class_key, members = self.constants.members.get(fqn or "", (None, "", []))
        found = [s for s in members if s.name == method]
        if facts is None or len(found) != 1 or fqn in self.constants.shared_types:
            return None
        return self.returned_by(JavaFolder(self.constants, facts, class_key), facts, found[0], args)

    def method_of_string(self, template: Folded, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        if method == "formatted":
            return format_java(template, [self.fold_tokens(a) for a in args])
        return super().method_of_string(template, method, args)


def enum_constant(fqn: str, constant: str) -> Folded:
    """The value a call site passes for a parameter when it passes a project enum's constant (`frameworks.call_sites`):
    read through the constant's methods (`JavaFolder.enum_method`), never as text."""
    return Folded(f"{_ENUM}{fqn}\x1d{constant}{_ENUM}", False,
                  (f"{fqn.rsplit('.', 1)[-1]}.{constant} is an enum constant: its text is not read",))


def without_enum_constants(value: Folded) -> Folded:
    """``value`` with each enum constant (`enum_constant`) left in it as an unknown part."""
    if _ENUM not in value.text:
        return value
    return Folded(_ENUM_VALUE.sub(UNKNOWN, value.text), False, value.why, value.settings)


def _enum_constant_symbol(facts: FileFacts, key: str, constant: str) -> SymbolFact | None:
    return next((s for s in facts.symbols if s.key == f"{key}#{constant}" and "enum_constant" in s.modifiers), None)


def _may_have_body(facts: FileFacts, key: str, constant: SymbolFact) -> bool:
    """Whether an enum constant may have a class body of its own, which may override the enum's methods: it spans
    several lines, or something of the enum's own scope (a body's ``return``: no symbol of the facts) is written on
    its line."""
    if constant.line_end > constant.line_start:
        return True
    own = facts.extra.get("assigns", {}).get(key, {})
    return any(line == constant.line_start for entries in own.values() for line, _ in entries)


def _join_path(base: Folded, path: Folded) -> Folded:
    """``base`` and ``path`` joined as ``UriComponentsBuilder.path`` joins them: one slash where both have one."""
    if base.text.endswith("/") and path.text.startswith("/"):
        return base + Folded(path.text[1:], path.known, path.why)
    return base + path


def _nested(fqn: str, rest: str, types: set[str]) -> str | None:
    for part in rest.split(".") if rest else []:
        fqn = f"{fqn}.{part}"
        if fqn not in types:
            return None
    return fqn
