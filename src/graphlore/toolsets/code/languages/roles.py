"""Roles and capabilities: what each framework's names mean, as tables, and the rules one language reads them by.

A symbol has exactly one **role**, decided by the first rule that applies, in this order:

1. ``TEST`` when the file is test code (``src/test/``, ``tests/``, ``test_*.py``, ``*_test.py``,
   ``conftest.py``, ``*Test.java``, ``*.spec.ts``, ``__tests__/`` ...; see `base.Language.test_files`).
2. An annotation or decorator on the type from its language's `Rules.annotation_roles`.
3. A meta-annotation: an annotation type declared in the project whose own annotations give a role
   (``@interface ApiController`` annotated ``@RestController`` makes its users CONTROLLERs).
4. A supertype, walked through project classes, whose qualified name is in `Rules.base_roles` (Spring Data
   repositories, Django models and views, pydantic models, TypeORM repositories, test cases ...).
5. Naming (`NAME_SUFFIX_ROLES`): ``*Controller``, ``*Service``/``*ServiceImpl``, ``*Repository``/``*Dao``,
   ``*Client``, ``*Config``/``*Configuration``, ``*Dto``/``*DTO``/``*Request``/``*Response``,
   ``*Entity``, ``*Test``/``*Tests``.
6. ``OTHER``.

Members (methods, fields, constructors) take their declaring type's role; a function takes its own
(``CONTROLLER`` when it serves HTTP, else by test code); a file/module/package is ``TEST`` or ``OTHER``.

| role | annotations / decorators | supertypes |
|---|---|---|
| CONTROLLER | Controller, RestController, RepositoryRestController, ControllerAdvice, RestControllerAdvice, Path (JAX-RS class), WebServlet; TS Controller, Resolver; Python route decorators (``x.get``/``x.post``/... ``x.route``) on functions | HttpServlet; Django View/TemplateView/ListView/DetailView/FormView/CreateView/UpdateView/DeleteView/RedirectView; DRF APIView/GenericAPIView/ViewSet/ModelViewSet/GenericViewSet |
| SERVICE | Service, Stateless, Stateful; TS Injectable | |
| REPOSITORY | Repository, Mapper; TS EntityRepository | Spring Data Repository/CrudRepository/ListCrudRepository/PagingAndSortingRepository/JpaRepository/MongoRepository/ReactiveCrudRepository/ReactiveMongoRepository/R2dbcRepository/ElasticsearchRepository/CassandraRepository/Neo4jRepository; TypeORM Repository |
| CLIENT | FeignClient, HttpExchange (type level), RegisterRestClient | |
| ENTITY | Entity, Document, Table, Embeddable, MappedSuperclass; TS Entity | Django Model |
| CONFIG | Configuration, SpringBootApplication, SpringBootConfiguration, AutoConfiguration, ConfigurationProperties, any ``Enable*``; TS Module | WebSecurityConfigurerAdapter, ResourceServerConfigurerAdapter, AuthorizationServerConfigurerAdapter, WebMvcConfigurer, GlobalMethodSecurityConfiguration; Django AppConfig; pydantic BaseSettings |
| DTO | | Django Form/ModelForm; DRF Serializer/ModelSerializer; pydantic BaseModel |
| TEST | SpringBootTest, WebMvcTest, DataJpaTest, DataMongoTest, WebFluxTest, JsonTest, RunWith, ExtendWith | JUnit TestCase; unittest TestCase; Django SimpleTestCase/TestCase/TransactionTestCase/LiveServerTestCase |

**Capabilities** (a set, from annotations/decorators and injected or called framework types; a type
also carries the union of its members' capabilities, except ``ENTRY_POINT`` and ``TRANSACTIONAL``):

| capability | from |
|---|---|
| HTTP_ENDPOINT | GetMapping, PostMapping, PutMapping, DeleteMapping, PatchMapping, RequestMapping (on a method); JAX-RS GET/POST/PUT/DELETE/PATCH/HEAD/OPTIONS; TS Get/Post/Put/Delete/Patch/All; Python ``x.get``/``x.post``/``x.put``/``x.delete``/``x.patch``/``x.route``/``x.api_route`` |
| HTTP_CLIENT | FeignClient, HttpExchange, GetExchange/PostExchange/..., RegisterRestClient (and the methods of such interfaces); injects RestTemplate, WebClient, RestClient; calls into requests, httpx, aiohttp, axios, fetch |
| MESSAGE_LISTENER | KafkaListener, KafkaHandler, RabbitListener, RabbitHandler, JmsListener, StreamListener, SqsListener; TS MessagePattern, EventPattern |
| MESSAGE_PRODUCER | SendTo; injects KafkaTemplate, RabbitTemplate, AmqpTemplate, JmsTemplate, StreamBridge |
| SCHEDULED_TASK | Scheduled, Schedules; TS Cron, Interval, Timeout; Python ``x.scheduled_job``, periodic_task |
| ASYNC_TASK | Async; Python shared_task, ``x.task`` |
| EVENT_LISTENER | EventListener, TransactionalEventListener; TS OnEvent; Python receiver, ``x.on_event``, ``x.listens_for`` |
| EXCEPTION_HANDLER | ExceptionHandler, ControllerAdvice, RestControllerAdvice; TS Catch; Python ``x.exception_handler``, ``x.errorhandler`` |
| TRANSACTIONAL | Transactional |
| ENTRY_POINT | ``public static void main(String[])``; SpringBootApplication; Python ``if __name__ == "__main__"`` |

The tables below are grouped by framework; a language's `Rules` pick the groups its code is written
against (Java: Spring, Jakarta EE, JAX-RS, MyBatis, JUnit; Python: FastAPI, Flask, Celery, Django, DRF,
pydantic, the HTTP client libraries; TypeScript: NestJS, Angular, TypeORM, axios and fetch).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from ..model import SymbolFact

# ---- roles by annotation or decorator (simple names) ------------------------------------------------------

SPRING_ROLES = {
    "Controller": "CONTROLLER", "RestController": "CONTROLLER", "RepositoryRestController": "CONTROLLER",
    "BasePathAwareController": "CONTROLLER", "ControllerAdvice": "CONTROLLER", "RestControllerAdvice": "CONTROLLER",
    "Service": "SERVICE", "Repository": "REPOSITORY", "FeignClient": "CLIENT", "HttpExchange": "CLIENT",
    "Document": "ENTITY",
    "Configuration": "CONFIG", "SpringBootApplication": "CONFIG", "SpringBootConfiguration": "CONFIG",
    "AutoConfiguration": "CONFIG", "ConfigurationProperties": "CONFIG",
    "SpringBootTest": "TEST", "WebMvcTest": "TEST", "DataJpaTest": "TEST", "DataMongoTest": "TEST",
    "WebFluxTest": "TEST", "JsonTest": "TEST",
}
#: Jakarta EE / Java EE (servlets, EJB, JPA), JAX-RS (``@Path`` on a class) and MicroProfile REST clients
JAKARTA_ROLES = {
    "WebServlet": "CONTROLLER", "Path": "CONTROLLER", "Stateless": "SERVICE", "Stateful": "SERVICE",
    "Entity": "ENTITY", "Table": "ENTITY", "Embeddable": "ENTITY", "MappedSuperclass": "ENTITY",
    "RegisterRestClient": "CLIENT",
}
MYBATIS_ROLES = {"Mapper": "REPOSITORY"}
JUNIT_ROLES = {"RunWith": "TEST", "ExtendWith": "TEST"}
#: NestJS, Angular and TypeORM decorators
#: ASP.NET Core (attribute routing) and the .NET test frameworks
ASPNET_ROLES = {"ApiController": "CONTROLLER"}
DOTNET_TEST_ROLES = {"TestFixture": "TEST", "TestClass": "TEST"}
NEST_ROLES = {"Controller": "CONTROLLER", "Resolver": "CONTROLLER", "Injectable": "SERVICE", "Module": "CONFIG",
              "Entity": "ENTITY", "EntityRepository": "REPOSITORY"}

# ---- roles by supertype: (qualified-name prefix, class name) -> role ----------------------------------------

SPRING_BASES = {
    **{("org.springframework.data.", name): "REPOSITORY" for name in (
        "Repository", "CrudRepository", "ListCrudRepository", "PagingAndSortingRepository",
        "ListPagingAndSortingRepository", "JpaRepository", "MongoRepository", "ReactiveCrudRepository",
        "ReactiveMongoRepository", "R2dbcRepository", "ElasticsearchRepository", "CassandraRepository",
        "Neo4jRepository", "ReactiveSortingRepository", "CoroutineCrudRepository")},
    **{("org.springframework.", name): "CONFIG" for name in (
        "WebSecurityConfigurerAdapter", "ResourceServerConfigurerAdapter", "AuthorizationServerConfigurerAdapter",
        "WebMvcConfigurer", "WebMvcConfigurerAdapter", "GlobalMethodSecurityConfiguration", "WebFluxConfigurer")},
}
SERVLET_BASES = {("javax.servlet.", "HttpServlet"): "CONTROLLER", ("jakarta.servlet.", "HttpServlet"): "CONTROLLER"}
JUNIT_BASES = {("junit.framework.", "TestCase"): "TEST"}
DJANGO_BASES = {
    ("django.", "Model"): "ENTITY", ("django.apps.", "AppConfig"): "CONFIG",
    **{("django.views.", name): "CONTROLLER" for name in (
        "View", "TemplateView", "ListView", "DetailView", "FormView", "CreateView", "UpdateView", "DeleteView",
        "RedirectView", "ArchiveIndexView")},
    **{("django.forms.", name): "DTO" for name in ("Form", "ModelForm", "BaseForm")},
    **{("django.test.", name): "TEST" for name in ("SimpleTestCase", "TestCase", "TransactionTestCase",
                                                   "LiveServerTestCase")},
}
DRF_BASES = {
    **{("rest_framework.", name): "CONTROLLER" for name in (
        "APIView", "GenericAPIView", "ViewSet", "ModelViewSet", "GenericViewSet", "ReadOnlyModelViewSet")},
    **{("rest_framework.", name): "DTO" for name in ("Serializer", "ModelSerializer", "HyperlinkedModelSerializer")},
}
PYDANTIC_BASES = {("pydantic.", "BaseModel"): "DTO", ("pydantic", "BaseSettings"): "CONFIG"}
UNITTEST_BASES = {("unittest.", "TestCase"): "TEST"}
TYPEORM_BASES = {("typeorm", "Repository"): "REPOSITORY"}
#: C# names its outside base types as written (``using`` opens a namespace): an empty prefix matches the bare name
ASPNET_BASES = {("", "ControllerBase"): "CONTROLLER", ("", "Controller"): "CONTROLLER", ("", "DbContext"): "REPOSITORY",
                ("", "Hub"): "CONTROLLER"}

NAME_SUFFIX_ROLES: tuple[tuple[str, str], ...] = (
    ("Controller", "CONTROLLER"), ("ServiceImpl", "SERVICE"), ("Service", "SERVICE"),
    ("Repository", "REPOSITORY"), ("RepositoryImpl", "REPOSITORY"), ("Dao", "REPOSITORY"), ("DAO", "REPOSITORY"),
    ("Client", "CLIENT"), ("Configuration", "CONFIG"), ("Config", "CONFIG"),
    ("Dto", "DTO"), ("DTO", "DTO"), ("Request", "DTO"), ("Response", "DTO"),
    ("Entity", "ENTITY"), ("Tests", "TEST"), ("Test", "TEST"),
)

# ---- capabilities ----------------------------------------------------------------------------------------------

SPRING_CAPABILITIES = {
    "GetMapping": "HTTP_ENDPOINT", "PostMapping": "HTTP_ENDPOINT", "PutMapping": "HTTP_ENDPOINT",
    "DeleteMapping": "HTTP_ENDPOINT", "PatchMapping": "HTTP_ENDPOINT",
    "FeignClient": "HTTP_CLIENT", "HttpExchange": "HTTP_CLIENT", "GetExchange": "HTTP_CLIENT",
    "PostExchange": "HTTP_CLIENT", "PutExchange": "HTTP_CLIENT", "DeleteExchange": "HTTP_CLIENT",
    "PatchExchange": "HTTP_CLIENT",
    "KafkaListener": "MESSAGE_LISTENER", "KafkaHandler": "MESSAGE_LISTENER", "RabbitListener": "MESSAGE_LISTENER",
    "RabbitHandler": "MESSAGE_LISTENER", "JmsListener": "MESSAGE_LISTENER", "StreamListener": "MESSAGE_LISTENER",
    "SqsListener": "MESSAGE_LISTENER",
    "SendTo": "MESSAGE_PRODUCER",
    "Scheduled": "SCHEDULED_TASK", "Schedules": "SCHEDULED_TASK",
    "Async": "ASYNC_TASK",
    "EventListener": "EVENT_LISTENER", "TransactionalEventListener": "EVENT_LISTENER",
    "ExceptionHandler": "EXCEPTION_HANDLER", "ControllerAdvice": "EXCEPTION_HANDLER",
    "RestControllerAdvice": "EXCEPTION_HANDLER",
    "Transactional": "TRANSACTIONAL",
    "SpringBootApplication": "ENTRY_POINT",
}
#: on a method only: a ``@RequestMapping`` on a class is a path prefix, not an endpoint
SPRING_METHOD_CAPABILITIES = {"RequestMapping": "HTTP_ENDPOINT"}
JAXRS_CAPABILITIES = {verb: "HTTP_ENDPOINT" for verb in ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")}
MICROPROFILE_CAPABILITIES = {"RegisterRestClient": "HTTP_CLIENT"}
ASPNET_CAPABILITIES = {verb: "HTTP_ENDPOINT" for verb in ("HttpGet", "HttpPost", "HttpPut", "HttpDelete", "HttpPatch",
                                                          "HttpHead", "HttpOptions")}
NEST_CAPABILITIES = {
    "Get": "HTTP_ENDPOINT", "Post": "HTTP_ENDPOINT", "Put": "HTTP_ENDPOINT", "Delete": "HTTP_ENDPOINT",
    "Patch": "HTTP_ENDPOINT", "All": "HTTP_ENDPOINT", "Head": "HTTP_ENDPOINT", "Options": "HTTP_ENDPOINT",
    "MessagePattern": "MESSAGE_LISTENER", "EventPattern": "MESSAGE_LISTENER",
    "Cron": "SCHEDULED_TASK", "Interval": "SCHEDULED_TASK", "Timeout": "SCHEDULED_TASK",
    "OnEvent": "EVENT_LISTENER", "Catch": "EXCEPTION_HANDLER",
}
#: Python decorators that are an attribute of an app, router, task queue or engine (``@app.get``): last segment
PYTHON_ATTRIBUTE_CAPABILITIES = {
    "get": "HTTP_ENDPOINT", "post": "HTTP_ENDPOINT", "put": "HTTP_ENDPOINT", "delete": "HTTP_ENDPOINT",
    "patch": "HTTP_ENDPOINT", "route": "HTTP_ENDPOINT", "api_route": "HTTP_ENDPOINT", "websocket": "HTTP_ENDPOINT",
    "task": "ASYNC_TASK", "scheduled_job": "SCHEDULED_TASK", "on_event": "EVENT_LISTENER",
    "listens_for": "EVENT_LISTENER", "exception_handler": "EXCEPTION_HANDLER", "errorhandler": "EXCEPTION_HANDLER",
}
#: Python decorators used by their plain name (Celery ``@shared_task``, Django ``@receiver``)
PYTHON_NAME_CAPABILITIES = {"shared_task": "ASYNC_TASK", "periodic_task": "SCHEDULED_TASK", "receiver": "EVENT_LISTENER"}

#: injected framework types (simple names) -> capability of the injecting class
SPRING_INJECTED_CAPABILITIES = {
    "RestTemplate": "HTTP_CLIENT", "WebClient": "HTTP_CLIENT", "RestClient": "HTTP_CLIENT",
    "KafkaTemplate": "MESSAGE_PRODUCER", "RabbitTemplate": "MESSAGE_PRODUCER", "AmqpTemplate": "MESSAGE_PRODUCER",
    "JmsTemplate": "MESSAGE_PRODUCER", "StreamBridge": "MESSAGE_PRODUCER",
    "ReactiveKafkaProducerTemplate": "MESSAGE_PRODUCER",
}
#: types whose instances are made and injected by the container: Spring stereotypes, CDI scopes, EJBs
BEAN_ANNOTATIONS = frozenset({
    "Component", "Service", "Repository", "Controller", "RestController", "Configuration",
    "SpringBootApplication", "ControllerAdvice", "RestControllerAdvice", "Named", "Singleton", "ApplicationScoped",
    "RequestScoped", "Dependent", "Stateless", "Stateful",
})
INJECT_ANNOTATIONS = frozenset({"Autowired", "Inject", "Resource", "MockBean", "SpyBean"})

#: external calls (qualified-name prefix) -> capability of the calling symbol
PYTHON_CALL_CAPABILITIES = (("requests.", "HTTP_CLIENT"), ("httpx.", "HTTP_CLIENT"), ("aiohttp.", "HTTP_CLIENT"))
SCRIPT_CALL_CAPABILITIES = (("axios", "HTTP_CLIENT"), ("fetch", "HTTP_CLIENT"))
GO_CALL_CAPABILITIES = tuple((f"net/http.{name}", "HTTP_CLIENT") for name in (
    "Get", "Head", "Post", "PostForm", "NewRequest", "NewRequestWithContext"))
#: why a call stayed unresolved when it went to a library (what `Rules.call_capabilities` look at)
EXTERNAL_REASONS = frozenset({"external_name", "external_type", "builtin"})
#: capabilities of a member that do not make its type have them
NOT_ROLLED_UP = frozenset({"ENTRY_POINT", "TRANSACTIONAL"})


@dataclass(frozen=True)
class Rules:
    """One language's role and capability tables (see the module docstring for the order they apply in)."""

    #: simple annotation or decorator name on a type -> role
    annotation_roles: Mapping[str, str] = field(default_factory=dict)
    #: annotation name prefixes that give a role (Spring ``@Enable*``: CONFIG)
    annotation_role_prefixes: tuple[tuple[str, str], ...] = ()
    #: (qualified-name prefix, class name) of a supertype -> role
    base_roles: Mapping[tuple[str, str], str] = field(default_factory=dict)
    name_roles: tuple[tuple[str, str], ...] = NAME_SUFFIX_ROLES
    #: annotation or decorator (its last segment) -> capability of the symbol it is on
    capabilities: Mapping[str, str] = field(default_factory=dict)
    #: the same for dotted decorators (``@app.get``) when they mean something else than the plain name
    attribute_capabilities: Mapping[str, str] | None = None
    #: annotations that give a capability on a method only
    method_capabilities: Mapping[str, str] = field(default_factory=dict)
    #: external call prefixes -> capability of the calling symbol
    call_capabilities: tuple[tuple[str, str], ...] = ()
    #: injected library types (simple names) -> capability of the injecting type
    injected_capabilities: Mapping[str, str] = field(default_factory=dict)
    bean_annotations: frozenset[str] = frozenset()
    inject_annotations: frozenset[str] = frozenset()
    #: on a CLIENT type (Feign, ``@HttpExchange``), HTTP mappings describe outgoing calls, not endpoints
    client_mappings_are_calls: bool = False
    #: a callable that starts a program (``public static void main(String[])``)
    entry_point: Callable[[SymbolFact], bool] | None = None

    @cached_property
    def _bases_by_name(self) -> dict[str, list[tuple[str, str]]]:
        out: dict[str, list[tuple[str, str]]] = {}
        for (prefix, name), role in self.base_roles.items():
            out.setdefault(name, []).append((prefix, role))
        return out

    def annotation_role(self, simple_name: str) -> str | None:
        role = self.annotation_roles.get(simple_name)
        if role is None:
            role = next((r for prefix, r in self.annotation_role_prefixes
                         if simple_name.startswith(prefix) and len(simple_name) > len(prefix)), None)
        return role

    def base_role(self, qualified: str) -> str | None:
        """Role given by a supertype's qualified name (``org.springframework.data.mongodb.repository.MongoRepository``)."""
        name = qualified.rsplit(".", 1)[-1]
        for prefix, role in self._bases_by_name.get(name, ()):
            if qualified.startswith(prefix) and qualified.endswith("." + name) or not prefix and qualified == name:
                return role
        return None

    def name_role(self, name: str) -> str | None:
        for suffix, role in self.name_roles:
            if name.endswith(suffix) and len(name) > len(suffix):
                return role
        return None

    def capability(self, annotation: str, symbol_kind: str) -> str | None:
        """The capability an annotation or decorator as written gives a symbol of ``symbol_kind``."""
        _, dot, last = annotation.rpartition(".")
        table = self.attribute_capabilities if dot and self.attribute_capabilities is not None else self.capabilities
        found = table.get(last)
        if found is None and symbol_kind == "method":
            found = self.method_capabilities.get(last)
        return found

    def known(self, simple_name: str) -> bool:
        """Whether the tables say what the annotation means (else it may be a project meta-annotation)."""
        return simple_name in self.capabilities or simple_name in self.annotation_roles


def jvm_rules(entry_point: Callable[[SymbolFact], bool] | None) -> Rules:
    """The tables every JVM language reads (Java and Kotlin alike): Spring, Jakarta EE, JAX-RS, MicroProfile,
    MyBatis and JUnit."""
    return Rules(
        annotation_roles={**SPRING_ROLES, **JAKARTA_ROLES, **MYBATIS_ROLES, **JUNIT_ROLES},
        annotation_role_prefixes=(("Enable", "CONFIG"),),
        base_roles={**SPRING_BASES, **SERVLET_BASES, **JUNIT_BASES},
        capabilities={**SPRING_CAPABILITIES, **JAXRS_CAPABILITIES, **MICROPROFILE_CAPABILITIES},
        method_capabilities=SPRING_METHOD_CAPABILITIES,
        injected_capabilities=SPRING_INJECTED_CAPABILITIES,
        bean_annotations=BEAN_ANNOTATIONS,
        inject_annotations=INJECT_ANNOTATIONS,
        client_mappings_are_calls=True,
        entry_point=entry_point,
    )
