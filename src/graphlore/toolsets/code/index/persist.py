"""What an index keeps besides its nodes and edges, so that an update after a restart stays incremental.

Resolving one changed file needs the whole project's symbol table (every file's facts), and knowing which
unchanged files to resolve again needs what each file looked up (its dependency keys) and what each file
publishes (its digests). A long-running server keeps all of that in memory (`graph.CodeGraph`); a new
process rebuilds it from one record per file, kept in the store's metadata under ``file:<path>``:

``FileRecord``
    ``stamp`` (size, mtime_ns) and ``ctx`` (the layout context the file was resolved with), the file's
    facts (compact JSON, zlib-compressed, base64: about 3 KB per file), its ``digests`` and ``deps``, and
    the nodes and edges its resolution wrote (id -> hash of what was written, so an update rewrites only
    what changed and deletes exactly what vanished). ``embedded`` maps the file's node ids to the text
    hash their stored vectors were made from.

The facts encoding is positional (field order of the dataclasses in `model.py`); `FORMAT` changes when
it or the node layout changes, and an index of another format is rebuilt, never misread.
"""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import dataclass, field
from typing import Any

from ..model import AnnotationFact, CallFact, FileContext, FileFacts, ImportFact, SymbolFact

#: The format of persisted records and of the nodes they describe; an index of another format is refused with
#: the command that rebuilds it (`code index --force`), never updated with facts of two versions.
#: 2: part 2's records (routes, clients, producers) and Python ``with X() as y`` locals. 3: every file's
#: assignments (``extra["assigns"]``, what folding reads locals and fields from), Java ``@Value`` parameters.
#: 4: session 4's facts: Go's channel sends to a method's result (``extra["sends"]``: sarama's
#: ``producer.Input() <- msg``), TS/JS environment reads destructured from ``process.env`` as assignments,
#: ``.method`` checks (``extra["method_checks"]``); PHP files; Python values under a key in ``assigns``; C#
#: ``AddHttpClient``/``AddGrpcClient`` registrations in ``base_addresses``: an index of format 3 restored would
#: keep files' facts without them. 5: a ``.proto`` rpc's grpc-gateway HTTP rule (``extra["http"]``).
#: 6: PHP's spans of code that may not run (``extra["branches"]``: a curl method set in an ``if``) and each file's
#: context says whether its service is deployed (``ctx.deployable``). 7: a Rust function's ``routes![..]`` macros
#: (``extra["routes"]``: what a rocket ``.mount("/p", f())`` serves), and each file's context holds its import
#: aliases (``ctx.aliases``), so a restored TS/JS file's context equals the layout's.
#: 8: the grpc-gateway rule's ``{name=shelves/*}`` variables keep their literal segments, and an rpc ended by
#: ``;`` keeps its place (formats 5 to 7 gave another service's rpc of the name its rule).
#: 9: a Go file no default build compiles says so (``extra["build_excluded"]``): restored facts of format 8 would
#: keep Wire's ``wireinject`` templates as call targets.
#: 10: a C# file's ``global using`` lines (``extra["global_usings"]``) and the usings its project shares with it
#: (imports of line 0, `csharp.usings`), Razor files, and ``ConfigureHttpClient`` lambdas chained on
#: ``AddHttpClient<T>()``/``AddRefitClient<T>()`` as registrations: an index of format 9 restored would miss them.
#: 11: a symbol's search text holds what its body calls and the words of its string literals
#: (`symbols.body_text`): an unchanged file of an index of format 10 would keep its symbols' shorter texts.
#: 12: a Java call's ``name_line`` (the line of a chain link's own name, where Eventuate and functional routes
#: are placed) and ``super(...)``'s arguments: restored facts of format 11 would place them on the chain's first
#: line and miss an aggregate publisher's type.
#: 13: a Go function literal's parameters are typed inside the literal only (`go.extract.closure_params`):
#: restored facts of format 12 would let a closure's ``h`` shadow the receiver ``h`` on the literal's line.
#: The same release's TS/JS extractor reads a default export that is a call's result (a Next.js
#: ``export default NextAuth(..)`` API route), which restored facts of format 12 would lack too.
#: 14: a symbol's search text also holds the words of its annotations' string arguments
#: (`symbols.annotation_words`): an unchanged file of an index of format 13 would keep its symbols' texts without them.
#: The same release keeps a Razor page's ``@model global::A.B`` (format 13 and before dropped it: no model).
#: 15: a Go function literal written on one line types its parameter on that line only
#: (`go.extract.closure_params`): restored facts of format 14 would keep the parameter's type for the rest of the
#: enclosing function.
#: 16: each assignment in a branch arm (``if``/``else``, a ``case``, ``try``/``catch``, a loop) says so, with the arm's
#: lines (``extra["conditional"]``, `extractor.record_values`): restored facts of format 15 would fold such a
#: variable to its last write only.
#: 17: nginx locations are selected as nginx does (`frameworks.nginx`): a prefix location a regex location may take
#: requests from links nothing (or is no route), and a simple regex location is a route; restored routes of format 16
#: would keep the prefix location's link.
#: 18: a Java/C# method's local declarations (``extra["declares"]``), so that a bare assignment to a name no
#: local declares is the field's (`folding.Folder._field`): restored facts of format 17 would lack them.
#: 19: an application name copied into a second service names the one whose folder or artifact carries it (the
#: layout), a Java static field nothing reassigns folds, and a SmallRye channel both ends of which are in one
#: service is no producer or listener: restored records of format 18 would keep the old names and items.
#: 20: Terraform files (``.tf``) are deployment files (`services.terraform`): an index of format 19 never listed them
#: among its layout files, so their values would stay unread until the layout changes.
#: 21: a Go type defined as an instantiation of a generic type keeps its type arguments (``extra["type_args"]``,
#: `go.extract.type_arguments`), which a call through it resolves by; a TS/JS function's returned object and the
#: locals taken apart from a call's result (``extra["returns_object"]``, ``extra["destructured"]``,
#: `typescript.extract.hook_results`): restored facts of format 20 would lack them.
#: 22: C# ``new`` calls keep four arguments (``new EventProcessorClient(storage, group, connection, hub)``) and an
#: ``AddHttpClient("x", ..).AddTypedClient<T>()`` registration is also ``T``'s base address: restored facts of
#: format 21 would lack both.
#: 23: a name one scope takes apart twice from calls' results, or two returns hand out two values under, is marked
#: (``extra["destructured"]``, ``extra["returns_object"]`` hold None for it, `typescript.extract.hook_results`):
#: restored facts of format 22 would keep the last one and draw its edge; and a Go call through an instantiation
#: reaching a method of an embedded generic interface no longer picks an implementation by the embedder's
#: parameter names: restored records of format 22 would keep that edge.
#: 24: a C# method returning ``Task<T>`` / ``ValueTask<T>`` keeps ``T`` (``extra["awaits"]``), what a call of it gives
#: a local or a receiver (``var order = await repo.GetAsync(id); order.Pay()``): restored facts of format 23 would lack it.
#: 25: Terraform variable files (``.tfvars``) are deployment files: an index of format 24 never listed them among its
#: layout files, so a root variable's default would stay the value where ``terraform.tfvars`` sets another.
#: 26: ASP.NET ``[controller]``/``[action]`` tokens keep their written case (format 25 wrote them in lower case); Vue
#: and Svelte components are read (format 25 never listed them).
#: 27: Helm charts are rendered with their values (`services.helm`) and ``templates/*.tpl`` are layout files: an index
#: of format 26 never listed the helpers among its layout files and holds the values its cruder reading gave.
#: 28: AngularJS ``$http`` calls are clients (`frameworks.script_web`): an index of format 27 would keep a browser
#: script's clients without them until its files change.
#: 29: a ``$http`` a file declares or imports (an axios instance of that name) is no AngularJS client (format 28 took
#: it), and ``$http({method: "JSONP"})`` is a GET.
#: 30: a component's facts are its top-level ``<script>`` blocks only, and ASP.NET's ``[ActionName]``/``[area]`` and
#: ``java.net.URL(protocol, host, file)`` are read: facts and routes of format 29 hold what the cruder reading gave.
#: 31: openapi-generator TypeScript files record their request options' methods (``option_methods``): generated clients.
#: 32: Helm ``--set`` flags read as Helm reads them (``--set-file``/``--set-json``/``--set-literal``, ``{a,b}`` lists,
#: escaped dots, typing, Helm's order); format 31 kept a values.yaml value a ``--set-file`` replaces.
#: A ``$x = ...`` in an ``if``/``range`` assigns the outer variable (format 31 lost it, or kept it where not known).
#: A ConfigMap a chart names after an unknown release is that chart's own (format 31 gave it to every chart's unit).
#: A ConfigMap key an unknown `if` decides holds every branch's value and `{?}` (format 31 kept the last branch's only).
#: Branches of an unknown `if` within one line are `{?}` (format 31 wrote them one after the other: `ab`).
#: A template comment ends at its `*/}}` (format 31 ended it at the first `}}` in it and rendered the rest).
#: `contains`/`len`/... of a text partly unknown are not known (format 31 decided them on the known part).
#: A command's chart path is read from its file's folder first (format 31 also matched it from the root).
#: A `.tpl` at any depth under `templates/` is a layout file (format 31: only directly in it).
#: `$` inside a define is the data `include` gives it (format 31: always the chart's root).
#: A template's units are paired across value sets by their `kind:` line (format 31: by place, mixing two Deployments).
#: A map written as text is `{?}` (format 31 wrote `map[...]` as its value).
#: A helper `.tpl` that does not parse is listed among the unreadable files (format 31 never listed it).
#: A library chart several charts name with `file://` gives each its defines (format 31: only the last one).
#: `break`/`continue` end or skip the `range` (format 31 wrote them as `{?}` and rendered every item after them).
#: 33: Spring AMQP bindings make a ``@RabbitListener`` one route per binding and ``convertAndSend(exchange, key)`` an
#: ``exchange/key`` topic (`frameworks.spring_amqp`): routes and producers of format 32 hold the unbound reading.
#: 34: generated clients' base URLs only from Kiota request adapters and every base a typescript-node class is given,
#: newer openapi-generator java `invokeAPI("/path", ...)`, TS client variables shadowed by a local (format 33 guessed);
#: a Kiota setBaseUrl is not given to every root client of a service that has several; openapi-generator TS facts
#: record a returned object's ``method`` (typescript-fetch ``xRequestOpts``; format 33 did not).
#: 35: a URL whose port is not a number (``http://catalog:80health``) names no service: format 34 read host catalog
#: and path ``/`` and drew a ``no_route`` link.
#: 36: a TS/JS route registered with a handler named by reference (``router.put('/x', Controllers.upsert)``,
#: ``app.get('/users', auth, users.list)``) is exposed by that function; format 35 gave it to the registering one.
#: 37: a Java enum constant keeps its constructor's arguments (``extra["args"]``): a helper call's enum argument names
#: the service a registry-resolved JAX-RS client calls (`frameworks.jaxrs`); format 36 kept none.
#: 38: a Kiota root client's base URL from where the project constructs it (`frameworks.kiota_roots`), and generated
#: Java builders keyed by fqn (two of one simple name made no client in format 37); ``this.props.getX()`` of a
#: ``@ConfigurationProperties`` field folds to its key.
#: 39: a source file's text holds what its top-level code calls and says, and a file with such code is marked
#: ``top_level_code`` (`symbols.file_node`): format 38 gave a file its name and path alone. A C# record's or primary
#: constructor's parameter property is on the line its parameter is written (format 38: the type's first line).
#: 40: C# facts record each method's returned values (``assigns[..]["return"]``: a URL a helper method builds is
#: folded at its calls) and ``DefaultApiVersion`` assignments; ASP.NET ``{version:apiVersion}`` routes are served
#: at their API versions; a Compose override file's service is its base file's; Express route chains and routers passed
#: to a function (format 39 read none of these).
#: 41: a Kubernetes env ``secretKeyRef``/``envFrom secretRef`` is a service's value, with the Secret's key (its Helm
#: value, the ``--set`` and the shell assignment behind it; a CSI SecretProviderClass's store object): format 40 said
#: nothing of them.
#: 42: Locust's ``--host`` read in the shell script an image's ``ENTRYPOINT``/``CMD`` runs, and a path an nginx
#: ``location`` answers itself (files, no ``proxy_pass``) is never ``no_route`` (format 41 left such load generators
#: unresolved and could claim ``no_route`` at ``/``); Java and Kotlin annotations record their line, and a declarative
#: client method's line is its mapping annotation's (format 41 gave the method's first line, an ``@Override`` above).
#: 43: Go facts keep composite-literal tables and range loops (``extra["tables"]``, ``extra["ranges"]``): routes
#: registered in a loop over a route table are read per entry; gorilla ``StrictSlash`` routers and builder chains
#: (``r.Methods(m).Path(p).Handler(h)``) are read (format 42 read none of these).
#: 44: a shell ``NAME=value`` written before a command on its line (``QUEUE=test ./run.sh``) is no assignment a
#: ``--set x=$NAME`` reads (format 43 listed it among the variable's candidates).
#: 45: TS/JS facts record a module-level function's returned object literal (``extra["object_returns"]``): NestJS
#: configuration factories, read for ``ConfigService.get('a.b')``.
#: 46: a registry-resolved JAX-RS request's service is the enum argument of the call whose lambda takes its WebTarget
#: holder; format 45 took the nearest call's before it in the method (an earlier request's, one inside the lambda).
#: 46: a TS/JS handler named by reference that a parameter or local of the registering function shadows is not the
#: module's function or import of that name; format 45 followed the name outward.
#: 46: a path-end-only client (a registry's) links only to a route whose end shares one of its literal words at the same
#: place; format 45 let route parameters alone match (``{?}/featured`` linked to ``/items/{id}``).
#: 46: a servlet route inherited from a project base is never filed at a private or static method of the page (it
#: overrides nothing); format 45 filed it at a page's private method named like one the base's doGet calls.
#: 47: a C# helper method some subclass overrides is no longer folded at its calls (the base's value was a guess);
#: a Kiota adapter given several ``setBaseUrl`` before a root's construction is a choice, not the last line's;
#: C# facts record the local functions of members (``extra["local_functions"]``), which hide a helper of that name.
#: 48: a Ruby ``require``/``require_relative`` is an import only, not a call: format 47 also stored it as a top-level
#: call, so a file that only required others was marked ``top_level_code`` and held the required paths as words.
#: 48: Yarn's own files (``.yarn/``, ``.pnp.cjs``, ``.pnp.loader.mjs``) are not read (format 47 indexed its release).
#: 49: Python, Go and TS/JS files record their functions' returned values (``assigns[fn]["return"]``), read where a
#: URL built by a helper function (or a Java static method of another class) is folded: format 48 had none.
#: 50: C# records a method group subscribed to an event (``processor.Received += OnMessage``) as a method reference
#: of the subscribing method (a CALLS edge to the handler): format 49 had no edge, so a trace stopped there.
#: 51: Compose files that write Compose's merge tags (``!override``, ``!reset``) are read (format 50 read none of
#: such a file), and an override beside a file that ``include:``s others gives their services its environment.
#: 52: secrets are never stored as shown: a Secret's values, credential keys' values and URLs' userinfo are redacted
#: in services' config and value notes and variables (`services.secrets`); format 51 kept them as written.
#: 53: a Rust call through a crate's path (``isahc::get(..)``, ``reqwest::get(..)``) records the crate in
#: ``extra["path_heads"]`` without a ``use`` of it: format 52 recorded only paths in other positions.
#: 54: a Micronaut Security ``AuthenticationProvider`` is behind the framework's ``POST /login`` route (filed at its
#: ``authenticate``): records of format 53 hold no such route.
#: 55: one program with a subcommand per service (cobra, urfave/cli, click/typer) run by the deployment with a
#: different command each is one service per subcommand (`layout.subcommands`); format 54 filed it all under one.
#: 56: a Go package ``var`` initialised by a call (``var Topic = topicFromEnv()``) records the call in
#: ``extra["values"]`` (folded as the call is): format 55 recorded only literal and constant initialisers.
#: 57: a client whose address reads settings keys (``@Value("${a.b}")``, a REST client's URL key) records them
#: (``reads_settings``) and its ``config_from`` lists the settings lines that set them, then the environment they
#: defer to: records of format 56 have neither.
#: 58: a Java ``UriComponentsBuilder`` URL and a Lombok getter of another class are folded; a host an nginx ``server_name`` answers to names that proxy; a
#: Spring property the deployment also sets as an environment variable is one of both values (format 57: the
#: file's only, and the builder's URL and such a host unknown).
#: 59: C# reads a method group wrapped in its delegate (``+= new EventHandler(OnClosed)``) as subscribed too: format
#: 58 drew no edge for it.
#: 60: a Compose ``include:`` of an absolute path or one that climbs out of the tree names no file of it: format 59
#: took the path left once the climb was cut off (a file of the tree that is another project).
#: 61: stored notes and variables redact an Azure connection string's ``AccountKey=``/``SharedAccessKey=`` and the values
#: of ``jwt``/``hmac``/``client``/``auth``/``license`` keys, and strip a URL's userinfo to its last ``@`` (format 60 kept them).
#: 62: C# keeps the type arguments of a generic type a local is made as (``extra["made_type_arguments"]``) and MediatR
#: draws a wrapper request's handler on to the handler of the request it wraps (format 61 stopped at the wrapper's); EF
#: Core save interceptors and domain-event dispatchers are TRIGGERS (`kind: interceptor`, `domain_event_dispatch`).
#: 63: a Spring Cloud Gateway route list each profile writes is read apart (format 62 mixed the n-th route of every
#: profile into one), and a forward to an nginx with several server blocks links the block nginx picks only.
#: 64: a Helm install's values file named by a script variable (``-f $VALUES``) renders into the chart, and a
#: ``.env`` value naming another of its variables is noted settled too (format 63: neither).
#: 65: a Go call keeps six arguments (three before) and ``extra["stored_in"]`` the struct field its value is stored
#: in; go-kit gRPC clients (``grpctransport.NewClient``) are read, and a Go ``RegisterXServer`` of a name several
#: ``.proto`` packages declare picks the one beside the imported package (format 64: neither, ``{?}.X/{?}``); a
#: gRPC route resolves by its full method name (``pkg.Service/Method``).
#: 66: a Go service's ``describe`` lists each viper key its code reads (``viper.Get*("a.b")``, a field path of the
#: struct ``viper.Unmarshal`` fills) with its ``SetDefault`` value and the environment variable that overrides it;
#: a settings file a service's code reads shows a credential key's value redacted (format 65 showed it).
#: 67: a configuration route carries the Spring profile whose file alone declares it (``profile``), and one of a
#: profile the deployment's evidence does not run is stored unresolved and unlinked (format 66 linked every profile's).
#: 68: a client whose URL's values all end at one service, directly or through a proxy that forwards there (the
#: proxy's host in one deployment, the service's own in another), names that service as ``target_service``
#: (format 67 named none, as for values that reach two services).
#: 69: Eventuate Tram sagas: ``SagaInstanceFactory.create(saga, ..)`` triggers the saga's step definitions, and a
#: step triggers the ``CommandEndpoint`` field it sends (``TRIGGERS`` kinds ``saga_start`` and ``saga_step``).
#: 70: an Aspire AppHost resource run from a project folder (``AddPythonApp``, ``AddNpmApp``, ``AddDockerfile`` ...) names
#: the service there, and a FastAPI router imported through a folder without ``__init__.py`` keeps its mount prefix
#: (format 69 left both unread: the service unnamed, the routes' prefix unknown); a C# local given by
#: ``GetRequiredService<T>()`` is typed ``T`` in the facts (format 69 stored ``~...GetRequiredService()``).
#: 71: a TS/JS factory's returned object literal gives it methods (``const Api = () => ({ list() {...} })``:
#:     ``Api.list``), what ``export default Api()`` or ``module.exports = Api()`` makes is that object
#:     (``extra["default_made"]``), and a Next.js handler wrapped in a call is the function it wraps
#:     (``extra["default_wraps"]``)
#: 72: a Go call's ``extra["stored_in"]`` also keeps what holds the field (the struct literal's type, the assigned
#: value), so a go-kit endpoint field two types declare is the client of its own type's methods only; an nginx forward
#: picks among every server block of the proxy, by listen address too, and Spring profiles read anew (format 71:
#: every type's methods, the reached blocks only).
#: 73: a Java file whose header holds JPA's ``@GeneratedValue`` is no longer marked generated (only the ``@Generated``
#: annotation marks one), so its symbols lose ``generated`` (format 72 marked a JPA entity's every symbol).
#: 74: Python facts keep a call's result called at once (``app.post("/x")(handler)``, ``extra["applied"]``) and up to six
#: arguments of a route registered by call (``add_url_rule``...): format 73 had neither, so no route registered by call.
#: The same format keeps the ``if`` around a router's mount or a route's registration (``extra["guards"]``): a route's
#: ``condition``.
#: 75: a TS/JS or Python conditional that gives the value it tests or a fallback (``X ? X : "d"``, ``x if x else
#: "d"``) is stored whole as one value with a default, not two; a Python ``x or "d"`` is stored (format 74 kept neither).
#: 76: a Go ``go build`` inside a quoted option (a file watcher's ``--build="go build a/cmd/main.go"``) names its entry
#: point, and a service's own ``<svc>/cmd/main.go`` makes a service rooted at and named after ``<svc>`` (format 75 saw
#: no entry point there: one service for the whole module, its files' contexts with it).
#: 77: C# facts keep the base address ``new T(DaprClient.CreateInvokeHttpClient("app-id"))`` gives ``T``'s HttpClient
#: (``http://<app-id>``, in ``extra["base_addresses"]``), in a method or a top-level statement; format 76 had none.
#: 78: a Java wrapper's call site that passes a project enum's constant for a parameter binds it as that constant, so
#: ``target.getServiceName()`` in the wrapper reads the constant's constructor argument (``Type.C.getter()`` too):
#: format 77 made no client of such a site (its service unknown).
#: 79: Go's generated gRPC names (``RegisterReaderServiceServer``, ``NewReaderServiceClient``) name the service a
#: ``.proto`` declares in another spelling (``service readerService``, ``order_service``); format 78 left it unknown.
#: Its microservices' viper lines are read per service (own ``Config`` struct and config file).
#: 80: Redis pub/sub in C# (StackExchange.Redis ``Publish``/``Subscribe``, a channel kept in a property whose setter
#: subscribes) are producers and listener routes (`frameworks.redis_pubsub`); format 79 had none. C# calls of one
#: argument to overloads of one arity go to the one the argument's known type does not rule out (were ambiguous).
#: 81: a URL or a gateway rewrite of a Dapr sidecar's invoke API (``/v1.0/invoke/<app-id>/method/<path>``) links to
#: ``<path>`` on the app of that app-id (format 80 linked it to the sidecar's host: nothing).
#: 82: a Kafka listener or producer whose topic the deployment creates carries ``topic_created`` (a
#: ``KAFKA_CREATE_TOPICS`` entry, a ``kafka-topics --create`` command, a Strimzi ``KafkaTopic``); format 81 had none.
#: 83: Python facts keep up to 16 arguments of a call that makes a class by keyword (``Config(a=.., b=.., ...)``;
#: format 82 kept 3), read for a settings object's fields.
#: 84: an Envoy configuration's ``${NAME}``/``$NAME`` address or port is an environment variable (an ``envsubst``
#: template's), settled with the proxy's deployment env; format 83 kept it as literal text (no link).
#: 85: a declarative client filed at its interface for an inherited, not redeclared method (Micronaut ``@Client``,
#: MicroProfile REST client) is declared by that inherited method too (a call through the client resolves there);
#: format 84 left such a client unreached by the calls that send it.
#: 86: TS/JS functions held as properties of a module-level object literal (``const m = createMachine(c, {services:
#: {load: async () => ...}})``, a Vue ``export default {methods: {...}}``) are functions of their own keyed by the property
#: path (``m.services.load``); format 85 gave their requests and calls to the module.
#: 87: a Python route registered by call whose handler names a parameter or local variable is left with its handler
#: unknown (format 86 filed it at the module's function of that name). A Python route whose ``methods=`` is not written
#: out (a name), or registered by call without methods for a handler not read (a view or endpoint class), has its
#: HTTP method unknown, saying so (format 86 said GET). C# Dapr ``InvokeMethodAsync(request, cancellationToken)`` is no
#: second client (format 86 read it as an app-id and a path) and an ``HttpMethod`` held by a name is not POST. A Kafka
#: subscription of a field is not handled by a method polling a parameter or local of the field's name (format 86 was).
#: A TS/JS factory with several ``return`` statements (one under an ``if``) gives its returned object's functions as no
#: methods of its own (format 86 took the last object's).
#: 88: a C# base type written with type arguments (``: IHandler<Paid>``) keeps how many (``IHandler<>``): of two
#: project types ``IHandler`` and ``IHandler<T>``, the supertype edge goes to the one of that arity (format 87 drew
#: none across projects, and ``IHandler<T> : IHandler`` none at all).
#: 89: Go facts keep each branch on a message's topic (``switch m.Topic { case X: }``, ``if m.Topic == X``, in
#: ``extra["topic_dispatch"]``); Kafka producers through a project wrapper and topics from viper config fields are
#: read (`go_kafka`); format 88 had neither.
#: 90: a C# Redis subscription of a method's own parameter, or of a name another method only assigns as a local, keeps
#: its channel unknown (format 89 gave it the local's channel, in that other method).
#: Also, a Go gRPC stub held in a field or parameter takes the address of the one ``pb.NewXClient(conn)`` of its own
#: service or a library, never of another service's (format 89 took the project's only one, wherever it was).
#: Also, a Python ``BaseSettings`` field a settings object's makers pass no keyword for is its environment variable,
#: then its default, as for ``settings = Settings()`` (format 89: the default alone).
#: Also, a C# call ``M(5)`` no longer rules out ``M(byte)`` (an integer literal converts to a smaller integral type
#: that holds it), so it is not resolved to ``M(object)`` (format 89 did).
FORMAT = 90


def _context(values: list) -> FileContext:
    """A file's stored context, its import aliases as the layout makes them (tuples), so that a restored file's
    context equals the layout's and the file is not resolved again for nothing."""
    *head, aliases = values
    return FileContext(*head, aliases=tuple((alias, tuple(targets)) for alias, targets in aliases))


def _pairs(values: Any) -> tuple[tuple[str, str], ...]:
    return tuple((a, b) for a, b in values)


def encode_facts(facts: FileFacts) -> list:
    """One file's facts as plain JSON lists (field order of the dataclasses)."""
    symbols = [
        [s.key, s.name, s.kind, s.parent, s.line_start, s.line_end, s.signature, list(s.modifiers),
         [[a.name, [list(p) for p in a.args], a.line] for a in s.annotations], s.docstring, s.type,
         [list(p) for p in s.params], [list(p) for p in s.supers], list(s.type_params), s.generated, s.extra]
        for s in facts.symbols
    ]
    imports = [[i.target, [list(n) for n in i.names], i.line, i.static, i.reexport] for i in facts.imports]
    calls = [[c.owner, c.name, c.receiver, c.argc, c.line, c.kind, list(c.arg_types), list(c.args), c.name_line]
             for c in facts.calls]
    locals_ = {owner: {name: [list(t) for t in types] for name, types in names.items()}
               for owner, names in facts.locals.items()}
    return [facts.path, facts.language, facts.content_hash, facts.loc, facts.package, symbols, imports, calls,
            locals_, facts.extra, facts.syntax_errors]


def decode_facts(data: list) -> FileFacts:
    """The inverse of :func:`encode_facts` (tuples where the dataclasses hold tuples)."""
    path, language, content_hash, loc, package, symbols, imports, calls, locals_, extra, syntax_errors = data
    return FileFacts(
        path=path, language=language, content_hash=content_hash, loc=loc, package=package,
        symbols=[
            SymbolFact(key, name, kind, parent, line_start, line_end, signature, tuple(modifiers),
                       tuple(AnnotationFact(a_name, _pairs(a_args), a_line) for a_name, a_args, a_line in annotations),
                       docstring,
                       type_, _pairs(params), _pairs(supers), tuple(type_params), generated, s_extra)
            for (key, name, kind, parent, line_start, line_end, signature, modifiers, annotations, docstring, type_,
                 params, supers, type_params, generated, s_extra) in symbols
        ],
        imports=[ImportFact(target, _pairs(names), line, static, reexport)
                 for target, names, line, static, reexport in imports],
        calls=[CallFact(owner, name, receiver, argc, line, kind, tuple(arg_types), tuple(args), name_line)
               for owner, name, receiver, argc, line, kind, arg_types, args, name_line in calls],
        locals={owner: {name: [(line, type_) for line, type_ in types] for name, types in names.items()}
                for owner, names in locals_.items()},
        extra=extra,
        syntax_errors=syntax_errors,
    )


def pack(value: Any) -> str:
    """JSON, compressed, as text (what a metadata value can hold on every backend)."""
    raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.b64encode(zlib.compress(raw, 1)).decode("ascii")


def unpack(text: str) -> Any:
    return json.loads(zlib.decompress(base64.b64decode(text)))


@dataclass(slots=True)
class FileRecord:
    """Everything an update needs to know about one indexed source file (see the module docstring)."""

    stamp: tuple[int, int]
    ctx: FileContext
    facts: FileFacts
    digests: dict[str, str]
    deps: frozenset[str]
    #: node id -> hash of the node as written (kind, name, text, props)
    nodes: dict[str, str] = field(default_factory=dict)
    #: edge id -> hash of the edge as written
    edges: dict[str, str] = field(default_factory=dict)
    #: node id -> the text hash its stored vectors were made from
    embedded: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "stamp": list(self.stamp),
            "ctx": [self.ctx.microservice, self.ctx.module, self.ctx.module_name, self.ctx.is_test,
                    self.ctx.deployable, [[alias, list(targets)] for alias, targets in self.ctx.aliases]],
            "facts": pack(encode_facts(self.facts)),
            "digests": self.digests,
            "deps": sorted(self.deps),
            "nodes": self.nodes,
            "edges": self.edges,
            "embedded": self.embedded,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileRecord:
        if data.get("format") != FORMAT:
            raise ValueError(f"record format {data.get('format')!r}, expected {FORMAT}")
        size, mtime_ns = data["stamp"]
        return cls(
            stamp=(size, mtime_ns),
            ctx=_context(data["ctx"]),
            facts=decode_facts(unpack(data["facts"])),
            digests=data["digests"],
            deps=frozenset(data["deps"]),
            nodes=data["nodes"],
            edges=data["edges"],
            embedded=data["embedded"],
        )
