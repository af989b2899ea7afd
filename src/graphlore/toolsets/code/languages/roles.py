"""Roles and capabilities: the documented tables and the one function that applies them.

A symbol has exactly one **role**, decided by the first rule that applies, in this order:

1. ``TEST`` when the file is test code (``src/test/``, ``tests/``, ``test_*.py``, ``*_test.py``,
   ``conftest.py``, ``*Test.java``, ``*.spec.ts``, ``__tests__/`` ...; see `project.FileContext.is_test`).
2. An annotation or decorator on the type (or, for a method/function, on itself) from `ANNOTATION_ROLES`.
3. A meta-annotation: an annotation type declared in the project whose own annotations give a role
   (``@interface ApiController`` annotated ``@RestController`` makes its users CONTROLLERs).
4. A supertype, walked through project classes, whose name is in `BASE_ROLES` (Spring Data repositories,
   Django models and views, pydantic models, TypeORM repositories, test cases ...).
5. Naming (`NAME_SUFFIX_ROLES`): ``*Controller``, ``*Service``/``*ServiceImpl``, ``*Repository``/``*Dao``,
   ``*Client``, ``*Config``/``*Configuration``, ``*Dto``/``*DTO``/``*Request``/``*Response``,
   ``*Entity``, ``*Test``/``*Tests``.
6. ``OTHER``.

Members (methods, fields, constructors) take their declaring type's role; a function takes its own
(decorators, naming); a file/module/package is ``TEST`` or ``OTHER``.

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
also carries the union of its members' capabilities):

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
"""

from __future__ import annotations

ANNOTATION_ROLES: dict[str, str] = {
    "Controller": "CONTROLLER", "RestController": "CONTROLLER", "RepositoryRestController": "CONTROLLER",
    "BasePathAwareController": "CONTROLLER", "ControllerAdvice": "CONTROLLER", "RestControllerAdvice": "CONTROLLER",
    "WebServlet": "CONTROLLER", "Resolver": "CONTROLLER",
    "Service": "SERVICE", "Stateless": "SERVICE", "Stateful": "SERVICE", "Injectable": "SERVICE",
    "Repository": "REPOSITORY", "Mapper": "REPOSITORY", "EntityRepository": "REPOSITORY",
    "FeignClient": "CLIENT", "HttpExchange": "CLIENT", "RegisterRestClient": "CLIENT",
    "Entity": "ENTITY", "Document": "ENTITY", "Table": "ENTITY", "Embeddable": "ENTITY",
    "MappedSuperclass": "ENTITY",
    "Configuration": "CONFIG", "SpringBootApplication": "CONFIG", "SpringBootConfiguration": "CONFIG",
    "AutoConfiguration": "CONFIG", "ConfigurationProperties": "CONFIG", "Module": "CONFIG",
    "SpringBootTest": "TEST", "WebMvcTest": "TEST", "DataJpaTest": "TEST", "DataMongoTest": "TEST",
    "WebFluxTest": "TEST", "JsonTest": "TEST", "RunWith": "TEST", "ExtendWith": "TEST",
}
#: annotations that only mean a role on a type in one language (JAX-RS ``@Path`` on a class)
JAVA_TYPE_ONLY = {"Path": "CONTROLLER"}
TS_DECORATOR_ROLES = {"Controller": "CONTROLLER", "Resolver": "CONTROLLER", "Injectable": "SERVICE",
                      "Module": "CONFIG", "Entity": "ENTITY", "EntityRepository": "REPOSITORY"}

#: (qualified-name prefix, class name) -> role; a supertype matches when its qualified name starts with
#: the prefix and ends with ``.name`` (or equals the name when the prefix is "").
BASE_ROLES: dict[tuple[str, str], str] = {}
for _name in ("Repository", "CrudRepository", "ListCrudRepository", "PagingAndSortingRepository",
              "ListPagingAndSortingRepository", "JpaRepository", "MongoRepository", "ReactiveCrudRepository",
              "ReactiveMongoRepository", "R2dbcRepository", "ElasticsearchRepository", "CassandraRepository",
              "Neo4jRepository", "ReactiveSortingRepository", "CoroutineCrudRepository"):
    BASE_ROLES[("org.springframework.data.", _name)] = "REPOSITORY"
for _name in ("WebSecurityConfigurerAdapter", "ResourceServerConfigurerAdapter",
              "AuthorizationServerConfigurerAdapter", "WebMvcConfigurer", "WebMvcConfigurerAdapter",
              "GlobalMethodSecurityConfiguration", "WebFluxConfigurer"):
    BASE_ROLES[("org.springframework.", _name)] = "CONFIG"
BASE_ROLES[("javax.servlet.", "HttpServlet")] = "CONTROLLER"
BASE_ROLES[("jakarta.servlet.", "HttpServlet")] = "CONTROLLER"
BASE_ROLES[("junit.framework.", "TestCase")] = "TEST"
BASE_ROLES[("django.", "Model")] = "ENTITY"
for _name in ("View", "TemplateView", "ListView", "DetailView", "FormView", "CreateView", "UpdateView",
              "DeleteView", "RedirectView", "ArchiveIndexView"):
    BASE_ROLES[("django.views.", _name)] = "CONTROLLER"
for _name in ("APIView", "GenericAPIView", "ViewSet", "ModelViewSet", "GenericViewSet", "ReadOnlyModelViewSet"):
    BASE_ROLES[("rest_framework.", _name)] = "CONTROLLER"
for _name in ("Form", "ModelForm", "BaseForm"):
    BASE_ROLES[("django.forms.", _name)] = "DTO"
for _name in ("Serializer", "ModelSerializer", "HyperlinkedModelSerializer"):
    BASE_ROLES[("rest_framework.", _name)] = "DTO"
BASE_ROLES[("pydantic.", "BaseModel")] = "DTO"
BASE_ROLES[("pydantic", "BaseSettings")] = "CONFIG"
BASE_ROLES[("django.apps.", "AppConfig")] = "CONFIG"
BASE_ROLES[("unittest.", "TestCase")] = "TEST"
for _name in ("SimpleTestCase", "TestCase", "TransactionTestCase", "LiveServerTestCase"):
    BASE_ROLES[("django.test.", _name)] = "TEST"
BASE_ROLES[("typeorm", "Repository")] = "REPOSITORY"

_BASE_BY_NAME: dict[str, list[tuple[str, str]]] = {}
for (_prefix, _name), _role in BASE_ROLES.items():
    _BASE_BY_NAME.setdefault(_name, []).append((_prefix, _role))

NAME_SUFFIX_ROLES: tuple[tuple[str, str], ...] = (
    ("Controller", "CONTROLLER"), ("ServiceImpl", "SERVICE"), ("Service", "SERVICE"),
    ("Repository", "REPOSITORY"), ("RepositoryImpl", "REPOSITORY"), ("Dao", "REPOSITORY"), ("DAO", "REPOSITORY"),
    ("Client", "CLIENT"), ("Configuration", "CONFIG"), ("Config", "CONFIG"),
    ("Dto", "DTO"), ("DTO", "DTO"), ("Request", "DTO"), ("Response", "DTO"),
    ("Entity", "ENTITY"), ("Tests", "TEST"), ("Test", "TEST"),
)

CAPABILITY_ANNOTATIONS: dict[str, str] = {
    "GetMapping": "HTTP_ENDPOINT", "PostMapping": "HTTP_ENDPOINT", "PutMapping": "HTTP_ENDPOINT",
    "DeleteMapping": "HTTP_ENDPOINT", "PatchMapping": "HTTP_ENDPOINT",
    "GET": "HTTP_ENDPOINT", "POST": "HTTP_ENDPOINT", "PUT": "HTTP_ENDPOINT", "DELETE": "HTTP_ENDPOINT",
    "PATCH": "HTTP_ENDPOINT", "HEAD": "HTTP_ENDPOINT", "OPTIONS": "HTTP_ENDPOINT",
    "FeignClient": "HTTP_CLIENT", "HttpExchange": "HTTP_CLIENT", "GetExchange": "HTTP_CLIENT",
    "PostExchange": "HTTP_CLIENT", "PutExchange": "HTTP_CLIENT", "DeleteExchange": "HTTP_CLIENT",
    "PatchExchange": "HTTP_CLIENT", "RegisterRestClient": "HTTP_CLIENT",
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
TS_CAPABILITY_DECORATORS: dict[str, str] = {
    "Get": "HTTP_ENDPOINT", "Post": "HTTP_ENDPOINT", "Put": "HTTP_ENDPOINT", "Delete": "HTTP_ENDPOINT",
    "Patch": "HTTP_ENDPOINT", "All": "HTTP_ENDPOINT", "Head": "HTTP_ENDPOINT", "Options": "HTTP_ENDPOINT",
    "MessagePattern": "MESSAGE_LISTENER", "EventPattern": "MESSAGE_LISTENER",
    "Cron": "SCHEDULED_TASK", "Interval": "SCHEDULED_TASK", "Timeout": "SCHEDULED_TASK",
    "OnEvent": "EVENT_LISTENER", "Catch": "EXCEPTION_HANDLER",
}
#: injected framework types (simple names) -> capability of the injecting class
INJECTED_CAPABILITIES: dict[str, str] = {
    "RestTemplate": "HTTP_CLIENT", "WebClient": "HTTP_CLIENT", "RestClient": "HTTP_CLIENT",
    "KafkaTemplate": "MESSAGE_PRODUCER", "RabbitTemplate": "MESSAGE_PRODUCER", "AmqpTemplate": "MESSAGE_PRODUCER",
    "JmsTemplate": "MESSAGE_PRODUCER", "StreamBridge": "MESSAGE_PRODUCER",
    "ReactiveKafkaProducerTemplate": "MESSAGE_PRODUCER",
}
#: Python decorators: ``attribute`` (last segment of ``x.attr``) -> capability
PY_DECORATOR_ATTR_CAPABILITIES = {
    "get": "HTTP_ENDPOINT", "post": "HTTP_ENDPOINT", "put": "HTTP_ENDPOINT", "delete": "HTTP_ENDPOINT",
    "patch": "HTTP_ENDPOINT", "route": "HTTP_ENDPOINT", "api_route": "HTTP_ENDPOINT", "websocket": "HTTP_ENDPOINT",
    "task": "ASYNC_TASK", "scheduled_job": "SCHEDULED_TASK", "on_event": "EVENT_LISTENER",
    "listens_for": "EVENT_LISTENER", "exception_handler": "EXCEPTION_HANDLER", "errorhandler": "EXCEPTION_HANDLER",
}
PY_DECORATOR_NAME_CAPABILITIES = {
    "shared_task": "ASYNC_TASK", "periodic_task": "SCHEDULED_TASK", "receiver": "EVENT_LISTENER",
}
#: external call prefixes (qualified) -> capability of the calling symbol
CALL_CAPABILITIES = (("requests.", "HTTP_CLIENT"), ("httpx.", "HTTP_CLIENT"), ("aiohttp.", "HTTP_CLIENT"),
                     ("axios", "HTTP_CLIENT"), ("fetch", "HTTP_CLIENT"))

SPRING_BEAN_ANNOTATIONS = frozenset({
    "Component", "Service", "Repository", "Controller", "RestController", "Configuration",
    "SpringBootApplication", "ControllerAdvice", "RestControllerAdvice", "Named", "Singleton", "ApplicationScoped",
    "RequestScoped", "Dependent", "Stateless", "Stateful",
})
INJECT_ANNOTATIONS = frozenset({"Autowired", "Inject", "Resource", "MockBean", "SpyBean"})


def annotation_role(simple_name: str, *, language: str, on_type: bool) -> str | None:
    if language == "typescript" or language == "javascript":
        return TS_DECORATOR_ROLES.get(simple_name)
    role = ANNOTATION_ROLES.get(simple_name)
    if role is None and language == "java" and on_type:
        role = JAVA_TYPE_ONLY.get(simple_name)
        if role is None and simple_name.startswith("Enable") and len(simple_name) > 6:
            role = "CONFIG"
    return role


def base_role(qualified: str) -> str | None:
    """Role given by a supertype's qualified name (``org.springframework.data.mongodb.repository.MongoRepository``)."""
    name = qualified.rsplit(".", 1)[-1]
    for prefix, role in _BASE_BY_NAME.get(name, ()):
        if qualified.startswith(prefix) and qualified.endswith("." + name):
            return role
    return None


def name_role(name: str) -> str | None:
    for suffix, role in NAME_SUFFIX_ROLES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return role
    return None


def python_decorator_capability(decorator: str) -> str | None:
    if "." in decorator:
        return PY_DECORATOR_ATTR_CAPABILITIES.get(decorator.rsplit(".", 1)[-1])
    return PY_DECORATOR_NAME_CAPABILITIES.get(decorator)
