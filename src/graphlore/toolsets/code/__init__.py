"""The code toolset: a code graph of a multi-service source tree with a strict, typed query surface.

The map (packages by concern; a package imports only the packages above it)::

    model.py                      facts, graph records, closed vocabularies, ids
    languages/                    what a language is, one package per language
      base.py                     Language: the one interface every language implements (see below)
      registry.py                 the languages, one line each: how everything else finds one
      builds.py                   build files (Maven, Gradle, npm, pnpm, pyproject, setup) a language lists
      parsing.py                  tree-sitter grammars by name, node helpers
      extractor.py                the shared extraction walks; a language's syntax as data (Syntax)
      symbols.py                  the project's symbol table, dependency keys and digests, node and edge records
      resolver.py                 the one resolution loop, the supertype walks, roles and capabilities applied
      names.py                    resolution by names and values (Python and TS/JS share it)
      typed.py                    resolution by declared types in packages (Go, Kotlin and C# share it)
      roles.py                    role and capability tables by framework, and the rules a language reads
      folding.py                  folding constant expressions into values (the part languages share)
      java/__init__.py            Java as a Language: suffixes, build files, role tables
      java/extract.py             one Java file -> facts (Lombok, records, enums)
      java/resolve.py             javac's name lookup, overloads, overrides, bean injection, calls
      java/constants.py           Java constants for folding (static finals, @Value, String.format)
      python/__init__.py          Python as a Language: module names, test files, role tables
      python/extract.py           one Python file -> facts
      python/resolve.py           imports, re-exports, self, Depends
      python/constants.py         Python constants for folding (module strings, f-strings), absolute imports
      python/fallbacks.py         a value with a fallback written as a conditional (x if x else "d")
      typescript/__init__.py      TypeScript and JavaScript as a Language
      typescript/extract.py       one TS/JS file -> facts (exports, CommonJS)
      typescript/resolve.py       module specifiers, exports, this, constructor injection
      typescript/constants.py     TS/JS constants for folding (const strings, template literals)
      typescript/fallbacks.py     a value with a fallback written as a conditional (X ? X : "d")
      typescript/sources.py       where TS/JS values are written: module specifiers, barrel re-exports, object literals
      typescript/nest_config.py   NestJS ConfigService.get(...): the configuration factories ConfigModule loads
      typescript/aliases.py       tsconfig paths/baseUrl and bundler aliases: which project file a bare import names
      go/__init__.py              Go as a Language: go.mod modules, import paths as packages
      go/extract.py               one Go file -> facts (types, methods wherever declared, package values)
      go/resolve.py               packages, promoted members, implicit interface implementation
      go/constants.py             Go constants for folding (package consts, vars no function assigns, Sprintf)
      go/constraints.py           Go build constraints: a file no default build compiles (wireinject, ignore)
      go/tables.py                Go composite-literal tables and the range loops over them (route tables)
      kotlin/__init__.py          Kotlin as a Language: the JVM's role tables, Gradle Kotlin DSL builds
      kotlin/extract.py           one Kotlin file -> facts (JVM-style keys, companion objects, trailing lambdas)
      kotlin/resolve.py           packages, imports, constructor calls, Java types across the two
      csharp/__init__.py          C# as a Language: .csproj projects, ASP.NET Core and .NET test role tables
      csharp/extract.py           one C# file -> facts (namespaces, types, members, attributes, BaseAddress)
      csharp/resolve.py           namespaces, using directives, base types
      csharp/overloads.py         overloads of one arity told apart by the argument's known type
      csharp/constants.py         C# constants for folding (const and static readonly strings, interpolation,
                                  .NET configuration reads, the type an expression makes: new T, Adapt<T>())
      csharp/usings.py            usings a C# project shares (global using, <Using>, ImplicitUsings, _Imports)
      csharp/razor.py             Razor files (.razor, .cshtml) as the C# class they compile to
      php/__init__.py             PHP as a Language: composer.json projects, Symfony role tables
      php/extract.py              one PHP file -> facts (namespaces, types, traits, members, attributes and
                                  docblock annotations, route groups)
      php/resolve.py              namespaces, use imports, base types and traits, __construct
      php/constants.py            PHP values for folding (class constants, ., interpolation, sprintf, getenv)
      ruby/__init__.py            Ruby as a Language: Gemfile and *.gemspec projects, Rails controller roles
      ruby/extract.py             one Ruby file -> facts (modules, classes, singleton methods, constants,
                                  instance variables, include/extend, blocks given to DSL calls)
      ruby/resolve.py             lexical constant lookup across reopened modules, mixins, T.new, self
      ruby/constants.py           Ruby values for folding (constants, #{...}, +, format, ENV)
      rust/__init__.py            Rust as a Language: Cargo.toml crates and workspaces, module paths
      rust/extract.py             one Rust file -> facts (structs, enums, traits, impl blocks, use trees,
                                  attributes, call chains)
      rust/resolve.py             module paths, use imports and re-exports, impl methods across files, traits
      rust/constants.py           Rust paths (crate/self/super, declared mods) and values for folding (consts,
                                  format!, struct literal fields, env::var)
      cpp/__init__.py             C++ as a Language: CMakeLists.txt projects (add_executable: an application)
      cpp/extract.py              one C++ file -> facts (namespaces, classes and bases, methods in the class and
                                  out of line, free functions, #include "...", typed locals)
      cpp/resolve.py              namespaces, includes, out-of-line definitions, calls by declared types only
      cpp/constants.py            C++ values for folding (constants, +, absl::StrCat, getenv)
      proto/__init__.py           Protocol Buffers as a Language: a .proto declares, it calls nothing
      proto/extract.py            one .proto file -> services, rpc methods (their gRPC names), messages
    layout/                       the tree as microservices and modules
      walk.py                     one walk: sources by the registered suffixes, layout files, package folders
      layout.py                   modules from build files, microservices, each file's context
      entry_points.py             services built from a subfolder's entry point (go build ./cmd/x), their packages
      edge.py                     edge proxies that are only a container (a stock nginx/Envoy image, mounted config)
      subcommands.py              services that are subcommands of one program (cobra, urfave/cli, click) the deployment runs
    services/                     what part 2 shares across frameworks
      endpoints.py                routes, clients and producers before linking; path and URL rules
      settings.py                 each module's Spring settings, config servers, ${...} placeholders
      profiles.py                 the Spring profiles a service's deployment runs, when its evidence names them
      webapp.py                   a Java web application's web.xml servlet mappings and its war's context root
      yaml_lines.py               YAML documents with the line of each key (file:line of settings and ports)
      config_view.py              the configuration a microservice's describe shows (ports, config server,
                                  deployment values); where a client's environment is set (config_from)
      app_config.py               the settings files a service's code reads (config.yml), Go env tag overrides
      dotnet_config.py            .NET settings describe shows: appsettings*.json, launch profiles, AppHost env
      jndi_config.py              a Java web app's container settings (web.xml, context.xml) and JNDI reads
      viper_config.py             Go settings read through viper: key, SetDefault, config file, bound env variable
      aspire.py                   .NET Aspire AppHost resource names as the services' names
      identity.py                 every name a service goes by (folder, artifact, application name, deployments)
      virtual_hosts.py            the host names an nginx configuration answers to (server_name)
      discovery.py                service discovery names in URLs (stork://, dns:///, Kubernetes DNS); Stork's addresses
      openapi_docs.py             OpenAPI documents' operations and base paths; the server generator a build configures
      openapi_generation.py       the generator runs a repository's scripts describe: document, output, side
      deployment.py               what the project's deployment files say: Compose, Kubernetes, Helm, Skaffold,
                                  Terraform, .env (service names, images, each service's environment, ports)
      helm.py                     Helm charts rendered with each set of values they are installed with (values
                                  files, the project's own helm install commands; subcharts, define/include)
      kafka_topics.py             where the deployment creates a Kafka topic, with its partitions and replicas
      secrets.py                  which values are secrets (secret stores, credential keys, URL userinfo): never shown
      shell_values.py             where a script or guide assigns the shell variables a helm --set reads
      terraform.py                Terraform's container resources: names, images, environment, through local modules
      links.py                    which route each client calls and which listeners each producer reaches
      grpc_links.py               which services serve a gRPC client's fully qualified method
      dapr_sidecar.py             a URL of a Dapr sidecar's invoke API (/v1.0/invoke/<app-id>/method/) as the app's
      service_map.py              the services and their links as Mermaid or DOT
      unreadable.py               configuration files the readers cannot parse, one line each with the reason
    frameworks/                   routes, clients and producers, read from the facts of their languages
      base.py                     Framework: languages + a reader prepared once per update
      read.py                     the frameworks, in reading order, and the pass over the project
      call_sites.py               a Java wrapper method's clients read again per call site (each site a client)
      jvm.py                      what JVM frameworks read (Java and Kotlin): annotations, folded values
      spring.py                   Spring MVC/WebFlux, Kafka, Rabbit, JMS, Cloud Stream, Feign, HTTP clients
                                  (Java and Kotlin)
      spring_amqp.py              Spring AMQP declarations: @Bean queues, exchanges, BindingBuilder bindings,
                                  @RabbitListener @QueueBinding (a listener's routes per binding)
      jaxrs.py                    JAX-RS routes, MicroProfile Rest Client, the JAX-RS client API
      jaxrs_helpers.py            a project's request helpers and WebTarget methods; the service a registry helper's
                                  enum argument names
      servlet.py                  servlets: @WebServlet and web.xml mappings, the doGet/doPost... they handle
      micronaut.py                Micronaut controllers, @Client, HttpClient, Kafka and RabbitMQ
      mp_messaging.py             MicroProfile Reactive Messaging channels (@Incoming, @Outgoing, Emitter)
      python_web.py               FastAPI and Flask routes, requests/httpx/aiohttp clients
      locust.py                   Locust load tests as HTTP clients of the service their host names
      k6.py                       k6 load tests (JavaScript) as HTTP clients of the URLs they request
      nginx.py                    nginx proxy_pass locations as gateway routes forwarding to a service
      proxies.py                  YARP, Ocelot, Envoy, Traefik, HAProxy, Caddy routes in configuration, forwarding
                                  to a service
      haproxy.py                  HAProxy frontends' use_backend rules as gateway routes to their backends' servers
      caddy.py                    Caddyfile reverse_proxy directives as gateway routes to their upstreams
      edge.py                     the routes of a container-only edge proxy, held by its service
      amqp.py                     AMQP producers and consumers (pika, Go amqp, amqplib, RabbitMQ.Client) by
                                  exchange/key
      amqp_options.py             Go AMQP endpoints named through functional options: producers where the
                                  configured type sends, consumers' handlers the function handed to them
      kafka.py                    Kafka's plain clients (Python, Node, Java/Kotlin, C#) by topic
      azure_messaging.py          Azure Service Bus and Event Hubs senders and listeners (Java, C#, Node,
                                  Python) by queue, topic or hub
      redis_pubsub.py             Redis pub/sub in C# (StackExchange.Redis Publish/Subscribe) by channel
      eventuate.py                Eventuate Tram saga commands by channel, domain events by aggregate type
      router_functions.py         Spring functional endpoints (RouterFunctions.route, route().GET ...)
      apache_http.py              Apache HttpClient requests (new HttpGet(url) ...) as HTTP clients
      triggers.py                 TRIGGERS edges: XState events, passport callbacks (no call in the code)
      mediatr.py                  TRIGGERS edges of MediatR dispatch (Send -> the request's handler; domain events)
      efcore_interceptors.py      TRIGGERS edges of EF Core save interceptors (SaveChanges -> registered hooks)
      command_bus.py              TRIGGERS edges of Java command/query buses (executeCommand -> the type's handler)
      eventuate_sagas.py          TRIGGERS edges of Eventuate Tram sagas (SagaInstanceFactory.create -> the saga's
                                  steps; a step -> the CommandEndpoint field it sends)
      spring_ai.py                TRIGGERS edges of Spring AI tools (a prompt's sender -> the @Tool methods it was given)
      spring_events.py            TRIGGERS edges of Spring application events (publishEvent -> the listeners of the
                                  event's type and its supertypes, in the publisher's service)
      fastapi_depends.py          TRIGGERS edges: FastAPI Depends(fn) of a handler or dependency
      script_web.py               Express and NestJS routes, fetch and axios clients
      koa.py                      Koa routes (@koa/router, koa-router): prefixes, nested routers
      script_handlers.py          the project function an Express or Koa route names as its handler
      generated_clients.py        committed Kiota / openapi-generator clients: each operation a client where project code calls it
      kiota_roots.py              the base URL each Kiota root client is built with, from the project's constructions
      openapi_clients.py          generated OpenAPI clients (hey-api, openapi-typescript-codegen, openapi-fetch)
      openapi_servers.py          contract-first routes: OpenAPI operations a server generator or connexion serves,
                                  handled by the method their operationId names
      nextjs.py                   Next.js API routes (pages/api files, app router route.ts exports)
      gateway.py                  Spring Cloud Gateway and Zuul routes (YAML and the Java DSL) to their services
      declared.py                 in-source declarations (@CodebaseHttpClient, @CodebaseProducer ...)
      golang.py                   what Go frameworks read: types by package, receivers' types, handlers
      go_kafka.py                 Go Kafka through project wrappers, topic-branching consumers, viper topics
      go_tables.py                Go registrations in a range loop over a table, read once per entry
      go_web.py                   net/http, gorilla/mux, gin, echo, chi routes; net/http clients; Go Kafka
      go_openapi.py               oapi-codegen Go servers: generated routes, their implementation, their prefix
      watermill.py                Watermill (Go) publishers, router handlers and subscribers by topic
      aspnet.py                   ASP.NET Core routes (attributes, minimal APIs, groups, MapForwarder, Carter,
                                  FastEndpoints), HttpClient clients
      refit.py                    Refit and RestEase interfaces as HTTP clients under their base address
      dapr.py                     Dapr service invocation (InvokeMethodAsync, CreateInvokeMethodRequest) as
                                  HTTP clients of http://<app-id>/<method>, and pub/sub (C#)
      dapr_sdks.py                Dapr's Python, Go, JS and Java SDKs: invoke_method / InvokeMethod /
                                  invoker.invoke / invokeMethod, publishes and subscriptions
      eventbus.py                 .NET event buses whose topic is the event type (AddSubscription<E, H>),
                                  MassTransit and NServiceBus
      ktor.py                     Ktor routing and clients (Kotlin)
      php_web.py                  Symfony, Laravel, Slim routes; curl, Guzzle, Symfony HttpClient clients (PHP)
      ruby_web.py                 Sinatra and Rails routes; Net::HTTP, Faraday, HTTParty, RestClient clients
      ruby_messaging.py           ruby-kafka, rdkafka, Racecar, Bunny and Sneakers producers and consumers
      rust_web.py                 axum, actix-web, rocket routes; reqwest/awc/surf/ureq/isahc clients; rdkafka (Rust)
      grpc/                       gRPC routes and clients in every language, named package.Service/Method
        services.py               the .proto services, how each language names their methods
        go.py                     grpc-go: Register...Server, New...Client stubs
        gokit.py                  go-kit's grpctransport.NewClient endpoints, through helpers and struct fields
        jvm.py                    grpc-java and grpc-kotlin (Java and Kotlin): ...ImplBase, stubs
        python.py                 grpcio: add_..._to_server, ...Stub
        csharp.py                 Grpc.AspNetCore: ...Base subclasses, ...Client stubs
        script.py                 grpc-js: server.addService, service and generated XClient clients
        ruby.py                   the grpc gem: Foo::Service subclasses, Foo::Stub stubs
        rust.py                   tonic: impl of the generated service trait, XClient stubs
        cpp.py                    grpc++: ...::Service subclasses, X::NewStub / X::Stub stubs
    index/                        the graph in memory and in the store
      graph.py                    CodeGraph: build / update (incremental == full) / restore / snapshot
      persist.py                  per-file records that let an update after a restart stay incremental
      records.py                  graph records -> store rows: text, lookup and filter keys, hashes
      code_index.py               CodeIndex: the structural phase (diff-and-write), the embedding phase
    query/                        the tools
      models.py                   request / response models
      filters.py                  the strict per-kind filters
      edge_keys.py                the closed set of neighbor keys
      tools.py                    the tools
      traverse.py                 members, edge summaries, neighbors
      env_reads.py                the environment variables a symbol's source reads (describe's env_from)
      reach.py                    paths and impact: every path between two nodes, a blast radius
      views.py                    index status, node references
      render.py                   text for people and agents
      examples.py                 valid calls for the reliability suite

**Adding a language** is one package under ``languages/`` and one line in ``languages/registry.py``; no
other language's file changes, and no language package imports another (a test checks both, and one
registers a toy language from the tests folder). The package gives a `languages.base.Language`: its file
suffixes, ``extract`` (path + bytes -> `model.FileFacts`, built on `languages.extractor`: the language
states its syntax as a `Syntax` table and walks its own declarations), a `languages.resolver.Resolver`
subclass (what an import, a supertype, an override and a call resolve to; the loop, the walks, roles and
capabilities are shared), its role and capability tables (`languages.roles.Rules`, picked from the
framework tables there), how its files are named (module names, the fqn separator, packages), which files
are tests, and the build files its modules are declared in. Frameworks (``frameworks/``) are registered
apart, by the languages whose facts they read: Kotlin, the second JVM language, takes the JVM's tables
(`languages.roles.jvm_rules`), keys its members as Java does, and Spring's reader takes its files because
its facts carry annotations and call sites the same way (`frameworks.jvm` reads Kotlin expressions as the
Java ones they stand for). gRPC (``frameworks/grpc/``) is one reader per language family over the services
the ``.proto`` files declare; its links are `services.grpc_links`.

The records (``CodeGraph.snapshot()`` -> ``{id: GraphNode}, {id: GraphEdge}``) map one to one onto the
store's ``Node(id, kind, name, text, props)`` and ``Edge(id, src, dst, type, props)``:

* ``kind="symbol"`` (every symbol; ``props.symbol_kind`` in `model.SYMBOL_KINDS`). ``text`` (for BM25
  and the embedding) is name, fqn, signature and docstring. Props: ``fqn``, ``symbol_kind``,
  ``language``, ``microservice``, ``module`` (module path, "." for the root), ``file``, ``line_start``,
  ``line_end``, ``signature``, ``modifiers``, ``annotations`` (Java simple names; Python/TS decorators as
  written), ``annotation_text`` (those with arguments, as written), ``docstring``, ``role``,
  ``capabilities``, ``generated``; callables ``params`` [{name, type}] and ``return_type``; fields
  ``type``; types ``extends`` / ``implements`` (qualified names, project or external) and ``type_params``;
  Java types ``bean`` and ``injects_external``; files/modules ``loc``, ``content_hash``,
  ``imports_external`` (and TS ``exports``, Java ``package``); ``unresolved_calls``: the call sites of
  this symbol that no edge stands for, each ``{name, receiver, line, reason, detail?, candidates?}``
  with ``reason`` in `model.UNRESOLVED_REASONS` and ``candidates`` the ids of the ambiguous targets.
* ``kind="microservice"``: ``name``, ``root``, ``modules``, ``deployable``, ``declared_names``
  (``spring.application.name``, ``artifactId``, ``package.json``, ``pyproject`` ...), ``name_source``,
  ``files``. ``kind="module"``: ``path``, ``name``, ``microservice``, ``build_files``, ``config_files``,
  ``spring_application_name``, ``files``.
* Edges (`model.EDGE_TYPES`): ``DECLARES`` microservice -> module -> Java package / top-level Python
  module or package / TS-JS file -> ... -> type -> member (Python packages declare their submodules);
  ``EXTENDS`` / ``IMPLEMENTS`` type -> project type; ``OVERRIDES`` method -> the nearest overridden
  project method on every supertype path; ``INJECTS`` type (or FastAPI function) -> injected project
  type/function, props ``via`` [field | constructor | method | bean_method | depends] and ``members``;
  ``IMPORTS`` file/module -> imported project module or symbol, props ``lines`` (``static``,
  ``reexport``); ``CALLS`` caller -> callee, props ``resolution`` (`model.RESOLUTIONS`), ``confidence``,
  ``lines``, ``count``; ``TRIGGERS`` symbol -> symbol, what an XState event or a framework callback
  (passport) sets off, never a call (`frameworks.triggers`, computed with part 2). Ids are stable hashes (`model.symbol_id`: file path + key in the file;
  `model.edge_id`: src, type, dst).
"""

from __future__ import annotations

from graphlore.tools import Arg, Cli, Toolset, ToolSpec
from graphlore.toolsets.folder_index import folder_stores

from .query import examples, models, render, tools
from .services.secrets import scrubbed

INSTRUCTIONS = """\
A code graph of a (multi-service) source tree: Java, Kotlin, Python, TypeScript/JavaScript, Go, C# and
.proto files. Every tool takes
project_path, the tree's root; the index is built on first use and refreshed when files change (every
answer carries index_status). Typical flow: resolve a half-remembered name (or search by words) to an
id, then describe it and follow neighbors (CALLS, CALLED_BY, OVERRIDDEN_BY, DECLARES.CALLS...); paths
traces a call from one node to another and impact gives a blast radius, across services, in one call. find
lists nodes of a kind with a strict filter (unknown fields and bad values are errors that list the
valid ones). Cross-service: routes, clients and producers are nodes too; HTTP_CALLS / GRPC_CALLS (by
package.Service/Method) / ASYNC_CALLS link them across services (HTTP_CALLED_BY, GRPC_CALLED_BY: who calls
a route); service_map draws the system. Nothing is
guessed: unresolved calls, links and ambiguous names are reported as such."""

PROJECT = Arg(short="-p", default=".", metavar="PATH", help="The source tree's root (default: the current folder).")


def _spec(name: str, description: str, request, response, run, render_fn, cli: Cli, **kw) -> ToolSpec:
    def guarded(*args, **extra):   # no URL's userinfo in any answer (`services.secrets`)
        return scrubbed(run(*args, **extra))

    return ToolSpec(name=name, description=description, request=request, response=response, run=guarded,
                    render=render_fn, read_only=False, cli=cli, **kw)


TOOLSET = Toolset(
    name="code",
    summary="A code graph of a multi-service source tree, with strict queries.",
    instructions=INSTRUCTIONS,
    examples=examples.examples,
    stores=folder_stores("code"),
    tools=[
        _spec("find",
              "List nodes of one kind (symbol, microservice, module, route, client, producer) that match a strict "
              "filter, paginated "
              "(total, has_more). The filter's fields depend on the kind; a list means OR; an unknown field, a "
              "field of another kind, 'kind' inside the filter or a bad value is an error naming the valid "
              "ones. An empty result says why when it can.",
              models.FindRequest, models.FindResponse, tools.find, render.find,
              Cli(examples=('graphlore code find route -f \'{"microservice": "catalog"}\' -p examples/code',), help="List nodes of a kind matching a strict filter.", args={
                  "kind": Arg(positional=True), "filter": Arg(short="-f", metavar="JSON",
                                                              example='\'{"role": "SERVICE"}\''),
                  "project_path": PROJECT, "limit": Arg(short="-n")})),
        _spec("describe",
              "Every attribute of one node (by id, or a symbol by its exact fqn) and an edge summary: counts by "
              "edge type and direction, plus '(via members)' roll-ups over everything a class, package, module "
              "or service declares. include_source=true adds its source lines, numbered (at most 400).",
              models.DescribeRequest, models.DescribeResponse, tools.describe, render.describe,
              Cli(examples=('graphlore code describe --fqn catalog.items.get_item -p examples/code',), help="Every attribute of a node and its edge counts.", args={
                  "id": Arg(positional=True, default=None), "project_path": PROJECT,
                  "include_source": Arg(flags=("--source/--no-source",))})),
        _spec("neighbors",
              "Follow a node's edges: stored types (DECLARES, EXTENDS, IMPLEMENTS, OVERRIDES, INJECTS, IMPORTS, "
              "CALLS), reversed keys (CALLED_BY, OVERRIDDEN_BY, ...) and member views (DECLARES.CALLS: every "
              "call made by what a class declares). direction out|in|both; paginated; include_unresolved lists "
              "call sites that resolve to nothing, with the reason.",
              models.NeighborsRequest, models.NeighborsResponse, tools.neighbors, render.neighbors,
              Cli(examples=('graphlore code neighbors rt_a193aca444f1932f -d in -p examples/code',), help="Follow a node's edges (stored, reversed or member views).", args={
                  "id": Arg(positional=True), "edge_types": Arg(short="-e", metavar="KEY"),
                  "direction": Arg(short="-d"), "project_path": PROJECT, "limit": Arg(short="-n")})),
        _spec("paths",
              "Every path from one node to another up to max_depth hops (calls; default 10), shortest first, each hop with its "
              "edge and both ends: a call trace in one call. By default the flow of a request: CALLS, an "
              "interface method to its overrides, a method to its clients and producers, HTTP/gRPC/async links "
              "across services, a route to its handler. A class stands for its members.",
              models.PathsRequest, models.PathsResponse, tools.paths, render.paths,
              Cli(examples=('graphlore code paths sym_3f9dce0bfd51292d sym_43acdcda58373089 -p examples/code',), help="Every path between two nodes (a call trace, across services).", args={
                  "from_id": Arg(positional=True), "to_id": Arg(positional=True),
                  "edge_types": Arg(short="-e", metavar="KEY"),
                  "project_path": PROJECT, "limit": Arg(short="-n")})),
        _spec("impact",
              "The blast radius of a node: everything that reaches it (direction in) or that it reaches (out) "
              "within depth hops, nearest first, one shortest path each, counted per microservice and depth. "
              "Follows the same edges as paths by default, so callers in other services (through their clients "
              "and the routes they call) are in it. A class stands for its members.",
              models.ImpactRequest, models.ImpactResponse, tools.impact, render.impact,
              Cli(examples=('graphlore code impact sym_43acdcda58373089 -p examples/code',), help="What reaches a node (or what it reaches) within a depth, by service.", args={
                  "id": Arg(positional=True), "direction": Arg(short="-d"),
                  "edge_types": Arg(short="-e", metavar="KEY"), "project_path": PROJECT,
                  "include_tests": Arg(flags=("--tests/--no-tests",)), "limit": Arg(short="-n")})),
        _spec("search",
              "Find nodes by words or a description: BM25 over names (split at case changes), fqns, signatures "
              "and docstrings, fused with vector search once embeddings are done (ranking says which). An "
              "optional kind and strict filter apply before ranking.",
              models.SearchRequest, models.SearchResponse, tools.search, render.search,
              Cli(examples=('graphlore code search "search items" -p examples/code',), help="Find nodes by words (hybrid once embedded, BM25 until then).", args={
                  "query": Arg(positional=True), "kind": Arg(short="-k"),
                  "filter": Arg(short="-f", metavar="JSON", example='\'{"role": "SERVICE"}\''),
                  "project_path": PROJECT, "limit": Arg(short="-n")})),
        _spec("resolve",
              "Turn an identifier (fqn, qualified or simple name, file path, id) into a node: 'one', 'many' (up "
              "to 10 candidates of the strongest kind of match, each with its reason and score; never a silent "
              "pick) or 'none' (with what was tried and the closest names). Patterns are refused.",
              models.ResolveRequest, models.ResolveResponse, tools.resolve, render.resolve,
              Cli(examples=('graphlore code resolve get_item -p examples/code',), help="Turn a name into a node id (one, many or none).", args={
                  "identifier": Arg(positional=True), "hint_kind": Arg(short="-k"), "project_path": PROJECT})),
        _spec("service_map",
              "A picture of the system: the microservices and the links between them (HTTP with method and "
              "path, async with topic; ambiguous and unresolved ones dashed and labelled) as Mermaid text to paste "
              "into markdown, or Graphviz DOT. Optionally around one microservice, to a depth.",
              models.ServiceMapRequest, models.ServiceMapResponse, tools.service_map, render.service_map,
              Cli(examples=('graphlore code map -p examples/code',), command="map", help="Draw the services and their links (Mermaid or DOT).", args={
                  "microservice": Arg(metavar="NAME"), "format": Arg(short="-f"),
                  "project_path": PROJECT})),
        ToolSpec(name="status",
                 description="Whether the tree is indexed, how fresh the index is (files changed since, git commit), "
                             "node and edge counts, the microservices found, and the index size. Never modifies the "
                             "index.",
                 request=models.StatusRequest, response=models.StatusResponse, run=tools.status, render=render.status,
                 cli=Cli(examples=('graphlore code status -p examples/code',), help="Show the index: freshness, counts, microservices.", args={"project_path": PROJECT})),
        _spec("index",
              "Build or update the index: the structure first (only changed files are parsed; files depending on "
              "them are resolved again), then the embeddings of new or changed symbols (resumable, with "
              "progress). force=true rebuilds from scratch.",
              models.IndexRequest, models.IndexResponse, tools.index, render.index,
              Cli(examples=('graphlore code index -p examples/code',), help="Build or update the index (structure, then embeddings).", args={
                  "project_path": PROJECT, "embed": Arg(flags=("--embed/--no-embed",))},
                  kept=tools.index_kept),
              progress=True, progress_unit="nodes embedded", idempotent=True),
    ],
)
