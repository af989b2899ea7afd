"""Contract-first routes: the operations of an OpenAPI document a service serves through a server generator its
build configures (Quarkus's ``quarkus-openapi-generator-server``, openapi-generator's ``spring`` with
``interfaceOnly``) or a runtime router (Python's connexion), each handled by the method (function) its
``operationId`` names, or by nothing, with the reason, when none or several fit."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.openapi_docs import operations, server_generator


def _pom(name: str, extra: str = "") -> str:
    return (f"<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>{name}</artifactId>"
            f"<version>1</version><dependencies>{extra}</dependencies></project>\n")


QUARKUS_SERVER = ("<dependency><groupId>io.quarkiverse.openapi.generator</groupId>"
                  "<artifactId>quarkus-openapi-generator-server</artifactId></dependency>")

HEROES_SPEC = '''---
openapi: 3.1.0
info:
  title: Hero API
  version: "1.0"
paths:
  /api/heroes:
    get:
      operationId: getAllHeroes
      responses:
        "200":
          description: all
    post:
      operationId: createHero
      responses:
        "201":
          description: created
  /api/heroes/{id}:
    get:
      operationId: getHero
      responses:
        "200":
          description: one
  /api/heroes/random:
    get:
      responses:
        "200":
          description: no operationId
  /api/heroes/hello:
    get:
      operationId: hello
      responses:
        "200":
          description: the generated HelloResource, implemented by a class of the same simple name
'''

HERO_RESOURCE = '''package com.acme.heroes;

public class HeroResource implements HeroesResource {
    private final HeroService service = new HeroService();

    public java.util.List<String> getAllHeroes(String filter) {
        return service.all();
    }

    public String getHero(Long id) {
        return service.find(id);
    }
}
'''

HERO_SERVICE = '''package com.acme.heroes;

public class HeroService implements Finder {
    public java.util.List<String> all() { return java.util.List.of(); }
    public String find(Long id) { return ""; }
    public String createHero(String h) { return h; }
}

interface Finder {
    String find(Long id);
}
'''

HELLO_RESOURCE = '''package com.acme.heroes;

public class HelloResource implements com.acme.heroes.api.HelloResource {
    public String hello() { return "hello"; }
}
'''

FIGHTS_CLIENT = '''package com.acme.fights;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

@Path("/api/heroes")
@RegisterRestClient(configKey = "hero-client")
public interface HeroClient {
    @GET
    @Path("/{id}")
    String hero(Long id);
}
'''


def _routes(nodes) -> dict[tuple[str, str], dict]:
    return {(p["http_method"], p["path_template"]): p for p in (n.props for n in nodes.values() if n.kind == "route")}


def test_quarkus_contract_first_routes_are_served_and_linked(tmp_path: Path):
    root = write_tree(tmp_path, {
        "heroes/pom.xml": _pom("rest-heroes", QUARKUS_SERVER),
        "heroes/src/main/docker/Dockerfile.jvm": "FROM registry.access.redhat.com/ubi9/openjdk-21\n",
        "heroes/Dockerfile": "FROM eclipse-temurin:21\n",
        "heroes/src/main/resources/application.properties": "quarkus.application.name=rest-heroes\n",
        "heroes/src/main/resources/openapi/openapi.yml": HEROES_SPEC,
        "heroes/src/main/java/com/acme/heroes/HeroResource.java": HERO_RESOURCE,
        "heroes/src/main/java/com/acme/heroes/HeroService.java": HERO_SERVICE,
        "heroes/src/main/java/com/acme/heroes/HelloResource.java": HELLO_RESOURCE,
        "heroes/src/test/resources/openapi/openapi.yml": HEROES_SPEC.replace("/api/heroes", "/test"),
        "fights/pom.xml": _pom("rest-fights"),
        "fights/Dockerfile": "FROM eclipse-temurin:21\n",
        "fights/src/main/resources/application.properties":
            "quarkus.application.name=rest-fights\nquarkus.rest-client.hero-client.url=http://rest-heroes\n",
        "fights/src/main/java/com/acme/fights/HeroClient.java": FIGHTS_CLIENT,
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    routes = _routes(nodes)
    assert set(routes) == {("GET", "/api/heroes"), ("POST", "/api/heroes"), ("GET", "/api/heroes/{id}"),
                           ("GET", "/api/heroes/random"), ("GET", "/api/heroes/hello")}   # the test resources' copy is no contract served
    spec = "heroes/src/main/resources/openapi/openapi.yml"
    get_all = routes[("GET", "/api/heroes")]
    assert (get_all["framework"], get_all["microservice"], get_all["file"], get_all["line"], get_all["source_layer"]) \
        == ("openapi", "rest-heroes", spec, 9, "config")
    by_id = {n.id: n for n in nodes.values()}
    handlers = {(by_id[e.dst].props["http_method"], by_id[e.dst].props["path_template"]): by_id[e.src].props["fqn"]
                for e in edges.values() if e.type == "EXPOSES" and by_id[e.dst].kind == "route"
                and by_id[e.src].kind == "symbol"}
    assert handlers == {("GET", "/api/heroes"): "com.acme.heroes.HeroResource#getAllHeroes(String)",
                        ("GET", "/api/heroes/{id}"): "com.acme.heroes.HeroResource#getHero(Long)",
                        ("GET", "/api/heroes/hello"): "com.acme.heroes.HelloResource#hello()"}
    # createHero exists only on a class implementing a project interface: never taken for the generated one's
    assert "no method of a class implementing a generated type" in routes[("POST", "/api/heroes")]["unresolved_reason"]
    assert "no operationId" in routes[("GET", "/api/heroes/random")]["unresolved_reason"]
    client = next(n.props for n in nodes.values() if n.kind == "client")
    assert (client["target_service"], client["match"]) == ("rest-heroes", "cross_service")


PETS_SPEC = '''openapi: "3.0.3"
info: {title: pets, version: "1"}
servers:
  - url: http://localhost:8080/api/v1
paths:
  /pets:
    get:
      operationId: listPets
      responses: {"200": {description: ok}}
    post:
      operationId: createPet
      responses: {"201": {description: ok}}
'''

SPRING_GRADLE = '''plugins {
    id 'org.springframework.boot' version '3.3.0'
    id 'org.openapi.generator' version '7.8.0'
}
openApiGenerate {
    generatorName = "spring"
    inputSpec = "$rootDir/src/main/resources/openapi.yaml"
    configOptions = [interfaceOnly: "true"]
}
'''

PETS_CONTROLLER = '''package com.acme.pets;

import com.acme.pets.api.PetsApi;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class PetsController implements PetsApi {
    public java.util.List<String> listPets() { return java.util.List.of(); }
    public String createPet(String pet) { return pet; }
}
'''

PETS_ADMIN = '''package com.acme.pets;

public class PetsAdmin implements com.acme.pets.api.PetsAdminApi {
    public String createPet(String pet) { return pet; }
}
'''


def test_spring_interface_only_routes_and_an_ambiguous_handler(tmp_path: Path):
    root = write_tree(tmp_path, {
        "pets/build.gradle": SPRING_GRADLE,
        "pets/settings.gradle": "rootProject.name = 'pets'\n",
        "pets/src/main/resources/openapi.yaml": PETS_SPEC,
        "pets/src/main/java/com/acme/pets/PetsController.java": PETS_CONTROLLER,
        "pets/src/main/java/com/acme/pets/PetsAdmin.java": PETS_ADMIN,
        # a document no generator reads: a client's contract, not this service's routes
        "shop/build.gradle": "plugins { id 'org.springframework.boot' version '3.3.0' }\n",
        "shop/settings.gradle": "rootProject.name = 'shop'\n",
        "shop/src/main/resources/openapi.yaml": PETS_SPEC,
        "shop/src/main/java/com/acme/shop/Shop.java": "package com.acme.shop;\npublic class Shop {}\n",
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    routes = _routes(nodes)
    assert set(routes) == {("GET", "/api/v1/pets"), ("POST", "/api/v1/pets")}   # the servers' base path
    assert {p["microservice"] for p in routes.values()} == {"pets"}
    assert routes[("GET", "/api/v1/pets")]["resolved"]
    why = routes[("POST", "/api/v1/pets")]["unresolved_reason"]
    assert "2 handlers named 'createPet', each a method of a class implementing a generated type (spring)" in why
    assert "PetsAdmin.java:4" in why and "PetsController.java:9" in why


CONNEXION_SPEC = '''swagger: "2.0"
info: {title: todo, version: "1"}
basePath: /v1
paths:
  /todos:
    get:
      operationId: todo.api.todos.search
      responses: {"200": {description: ok}}
  /todos/{id}:
    delete:
      operationId: todo.api.todos.remove
      responses: {"204": {description: ok}}
'''

CONNEXION_APP = '''import connexion

app = connexion.App(__name__, specification_dir="./")
app.add_api("swagger.yaml")
'''

TODOS = '''def search():
    return []


def delete(id):
    return None
'''


def test_connexion_operation_ids_name_the_handlers(tmp_path: Path):
    root = write_tree(tmp_path, {
        "todo/pyproject.toml": "[project]\nname = 'todo'\ndependencies = ['connexion']\n",
        "todo/todo/__init__.py": "",
        "todo/todo/app.py": CONNEXION_APP,
        "todo/todo/swagger.yaml": CONNEXION_SPEC,
        "todo/todo/api/__init__.py": "",
        "todo/todo/api/todos.py": TODOS,
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    routes = _routes(nodes)
    assert set(routes) == {("GET", "/v1/todos"), ("DELETE", "/v1/todos/{id}")}
    assert routes[("GET", "/v1/todos")]["resolved"]
    by_id = {n.id: n for n in nodes.values()}
    handler = next(by_id[e.src].props for e in edges.values() if e.type == "EXPOSES"
                   and by_id[e.dst].props.get("path_template") == "/v1/todos")
    assert (handler["file"], handler["line_start"]) == ("todo/todo/api/todos.py", 1)
    assert "no function (connexion) named 'todo.api.todos.remove'" in routes[("DELETE", "/v1/todos/{id}")][
        "unresolved_reason"]


def test_an_edited_contract_or_handler_updates_as_a_full_build_gives(tmp_path: Path):
    write_tree(tmp_path, {
        "heroes/pom.xml": _pom("rest-heroes", QUARKUS_SERVER),
        "heroes/Dockerfile": "FROM eclipse-temurin:21\n",
        "heroes/src/main/resources/openapi/openapi.yml": HEROES_SPEC,
        "heroes/src/main/java/com/acme/heroes/HeroResource.java": HERO_RESOURCE,
        "heroes/src/main/java/com/acme/heroes/HeroService.java": HERO_SERVICE,
    })
    graph = CodeGraph.build(tmp_path)
    spec = tmp_path / "heroes/src/main/resources/openapi/openapi.yml"
    spec.write_text(HEROES_SPEC.replace("/api/heroes/{id}", "/api/heroes/by-id/{id}"))
    graph.update()
    assert graph.snapshot() == CodeGraph.build(tmp_path).snapshot()
    assert ("GET", "/api/heroes/by-id/{id}") in _routes(graph.snapshot()[0])
    resource = tmp_path / "heroes/src/main/java/com/acme/heroes/HeroResource.java"
    resource.write_text(HERO_RESOURCE.replace("getHero(", "findHero("))   # the handler is gone: said, not guessed
    graph.update()
    assert graph.snapshot() == CodeGraph.build(tmp_path).snapshot()
    assert "no method" in _routes(graph.snapshot()[0])[("GET", "/api/heroes/by-id/{id}")]["unresolved_reason"]


def test_a_class_implementing_only_platform_types_is_no_generated_interfaces_handler(tmp_path: Path):
    """``Serializable``, ``Runnable`` or a ``jakarta.*`` interface is not in the repository either, but no
    generator writes it: a method of such a class that the operationId names is not taken for the handler."""
    service = ("package com.acme.heroes;\n\nimport java.io.Serializable;\n\n"
               "public class HeroService implements Serializable, Runnable {\n"
               "    public String createHero(String h) { return h; }\n    public void run() { }\n}\n")
    write_tree(tmp_path, {
        "heroes/pom.xml": _pom("rest-heroes", QUARKUS_SERVER),
        "heroes/Dockerfile": "FROM eclipse-temurin:21\n",
        "heroes/src/main/resources/openapi/openapi.yml": HEROES_SPEC,
        "heroes/src/main/java/com/acme/heroes/HeroResource.java": HERO_RESOURCE,
        "heroes/src/main/java/com/acme/heroes/HeroService.java": service,
    })
    routes = _routes(CodeGraph.build(tmp_path).snapshot()[0])
    assert routes[("GET", "/api/heroes/{id}")]["resolved"]
    assert "no method of a class implementing a generated type" in routes[("POST", "/api/heroes")]["unresolved_reason"]


def test_a_client_generators_document_in_the_same_build_gives_no_route(tmp_path: Path):
    """A build that generates a server from its own contract and a client from another service's: each
    ``inputSpec`` belongs to the generator of its execution, so the client's document is no route of this service."""
    pom = ("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>shop</artifactId>"
           "<version>1</version><build><plugins><plugin><groupId>org.openapitools</groupId>"
           "<artifactId>openapi-generator-maven-plugin</artifactId><executions>\n"
           "<execution><id>server</id><configuration>"
           "<inputSpec>${project.basedir}/src/main/resources/openapi.yaml</inputSpec>"
           "<generatorName>spring</generatorName></configuration></execution>\n"
           "<execution><id>pets-client</id><configuration>"
           "<inputSpec>${project.basedir}/src/main/resources/openapi-pets.yaml</inputSpec>"
           "<generatorName>java</generatorName></configuration></execution>\n"
           "</executions></plugin></plugins></build></project>\n")
    orders = PETS_SPEC.replace("/pets", "/orders").replace("listPets", "listOrders").replace("createPet", "createOrder")
    write_tree(tmp_path, {
        "shop/pom.xml": pom,
        "shop/Dockerfile": "FROM eclipse-temurin:21\n",
        "shop/src/main/resources/openapi.yaml": orders,
        "shop/src/main/resources/openapi-pets.yaml": PETS_SPEC,
        "shop/src/main/java/com/acme/shop/Orders.java":
            "package com.acme.shop;\npublic class Orders implements com.acme.shop.api.OrdersApi {\n"
            "    public String listOrders() { return \"\"; }\n}\n",
    })
    routes = _routes(CodeGraph.build(tmp_path).snapshot()[0])
    assert set(routes) == {("GET", "/api/v1/orders"), ("POST", "/api/v1/orders")}
    assert routes[("GET", "/api/v1/orders")]["resolved"]


def test_the_generator_of_a_gradle_kotlin_build_and_the_documents_of_each_task(tmp_path: Path):
    """The Kotlin DSL sets properties (``generatorName.set("kotlin-spring")``); a client task's document is not
    the server's."""
    write_tree(tmp_path, {"pets/build.gradle.kts": (
        'plugins { id("org.openapi.generator") version "7.8.0" }\n'
        'tasks.register<org.openapitools.generator.gradle.plugin.tasks.GenerateTask>("petsClient") {\n'
        '    generatorName.set("java")\n    inputSpec.set("${rootDir}/specs/openapi-pets.yaml")\n}\n'
        'openApiGenerate {\n    generatorName.set("kotlin-spring")\n    inputSpec.set("$rootDir/specs/openapi.yaml")\n'
        '    configOptions.set(mapOf("interfaceOnly" to "true"))\n}\n')})
    assert server_generator(tmp_path, "pets") == ("kotlin-spring", ("openapi.yaml",), ("openapi-pets.yaml",))


def test_servers_without_a_url_give_no_base_path_and_a_templated_one_is_said():
    doc = ("openapi: 3.0.0\ninfo: {title: t, version: '1'}\nservers:\n  - description: the team's sandbox\n"
           "paths:\n  /a:\n    get: {operationId: a}\n")
    assert [(o.path, o.problem) for o in operations("openapi.yaml", doc)] == [("/a", "")]
    templated = doc.replace("description: the team's sandbox", "url: https://api.example.com/{version}/shop")
    assert [(o.path, o.problem) for o in operations("openapi.yaml", templated)] == [
        ("/a", "the document's server path /{version}/shop has variables: paths as written")]


def test_connexion_serves_only_the_documents_add_api_is_given(tmp_path: Path):
    """A connexion service that also keeps another service's contract (for its client) serves only the document its
    ``add_api`` names."""
    write_tree(tmp_path, {
        "todo/pyproject.toml": "[project]\nname = 'todo'\ndependencies = ['connexion']\n",
        "todo/todo/__init__.py": "",
        "todo/todo/app.py": CONNEXION_APP,
        "todo/todo/swagger.yaml": CONNEXION_SPEC,
        "todo/todo/openapi-pets.yaml": PETS_SPEC,
        "todo/todo/api/__init__.py": "",
        "todo/todo/api/todos.py": TODOS,
    })
    routes = _routes(CodeGraph.build(tmp_path).snapshot()[0])
    assert set(routes) == {("GET", "/v1/todos"), ("DELETE", "/v1/todos/{id}")}


def test_client_generators_are_no_server_generators(tmp_path: Path):
    """openapi-generator's ``jaxrs-cxf-client``, and ``spring`` with the ``spring-cloud`` (Feign) or
    ``spring-http-interface`` library, write clients: the build generates no server."""
    write_tree(tmp_path, {
        "a/pom.xml": "<project><build><plugins><plugin><configuration><generatorName>jaxrs-cxf-client</generatorName>"
                     "<inputSpec>pets.yaml</inputSpec></configuration></plugin></plugins></build></project>\n",
        "b/build.gradle": 'openApiGenerate {\n    generatorName = "spring"\n    library = "spring-cloud"\n'
                          '    inputSpec = "$rootDir/openapi.yaml"\n}\n',
        "c/build.gradle": 'openApiGenerate {\n    generatorName = "spring"\n    library = "spring-boot"\n}\n',
    })
    assert server_generator(tmp_path, "a") == (None, (), ())
    assert server_generator(tmp_path, "b") == (None, (), ())
    assert server_generator(tmp_path, "c") == ("spring", (), ())
