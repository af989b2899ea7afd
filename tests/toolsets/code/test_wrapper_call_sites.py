"""A client made through a project's own wrapper method (Java): each call site of the wrapper becomes a client of its
own, the wrapper's parameters bound to what the site passes, linked by the usual rules; a site that cannot surely
reach the method, or a parameter the method reassigns, gives no client (issue 22, brief 22-F-r3)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_graph import edit, render
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

COMPOSE = "services:\n  orders:\n    build: ./orders\n  web:\n    build: ./web\n"
ORDERS = {
    "docker-compose.yml": COMPOSE, "orders/Dockerfile": "FROM scratch\n", "web/Dockerfile": "FROM scratch\n",
    "orders/pom.xml": "<project><artifactId>orders</artifactId></project>\n",
    "web/pom.xml": "<project><artifactId>web</artifactId></project>\n",
    "orders/src/main/java/o/Api.java": "package o;\nimport org.springframework.web.bind.annotation.*;\n@RestController\n"
    "public class Api {\n  @GetMapping(\"/api/orders/{id}\")\n  public String one(@PathVariable long id) { return \"\"; }\n"
    "  @GetMapping(\"/api/items\")\n  public String items() { return \"\"; }\n"
    "  @PostMapping(\"/api/orders\")\n  public String create() { return \"\"; }\n}\n",
}
GATEWAY = """package w;
import org.springframework.web.client.RestTemplate;
public class OrdersGateway {
  private static final String BASE = "http://orders:8080/api";
  private final RestTemplate rest = new RestTemplate();
  private String get(String path) { return rest.getForObject(BASE + path, String.class); }
  public String order(long id) { return get("/orders/" + id); }
  public String items() { return this.get("/items"); }
  public String send(String body) { return rest.postForObject(BASE + "/orders", body, String.class); }
}
"""
CALLER = """package w;
public class Page {
  private final OrdersGateway gateway = new OrdersGateway();
  String show(long id) {
    return gateway.order(id)
        + Helpers.fetch("/items");
  }
}
"""
HELPERS = """package w;
import org.springframework.web.client.RestTemplate;
public final class Helpers {
  private static final RestTemplate REST = new RestTemplate();
  static String fetch(String path) { return REST.getForObject("http://orders:8080/api" + path, String.class); }
  static String twice(String path) { return fetch(path + "/x"); }
  static String changed(String path) { path = path.trim(); return REST.getForObject("http://orders:8080/api" + path, String.class); }
  static String page() {
    return twice("/orders")
        + changed("/items")
        + fetch(System.getenv("P"));
  }
}
"""


def _clients(tmp_path: Path, files: dict[str, str]) -> dict[tuple[str, int], tuple[str, str, str]]:
    nodes, edges = CodeGraph.build(write_tree(tmp_path / "s", files)).snapshot()
    routes = {n.id: n.props["label"] for n in nodes.values() if n.kind == "route"}
    linked = {e.src: routes.get(e.dst, "") for e in edges.values() if e.type == "HTTP_CALLS"}
    return {(n.props["file"].rsplit("/", 1)[-1], n.props["line"]): (n.props["label"], str(n.props.get("match")),
                                                                    linked.get(n.id, ""))
            for n in nodes.values() if n.kind == "client" and n.props.get("microservice") == "web"}


def test_each_call_site_of_a_wrapper_is_a_client_with_its_own_path(tmp_path):
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/OrdersGateway.java": GATEWAY,
                                "web/src/main/java/w/Page.java": CALLER,
                                "web/src/main/java/w/Helpers.java": HELPERS})
    linked = {where: link for where, (_label, match, link) in found.items() if match == "cross_service"}
    assert linked == {
        ("OrdersGateway.java", 8): "GET /api/items",          # this.get("/items")
        ("OrdersGateway.java", 9): "POST /api/orders",        # a client with its own URL: no wrapper
        ("OrdersGateway.java", 7): "GET /api/orders/{id}",   # get("/orders/" + id) in order(id): its callers'
        # sites (Page's gateway.order(id)) add nothing known: the client is where the value was last made more known
        ("Page.java", 6): "GET /api/items",                   # Helpers.fetch("/items"): a static method by its type
        ("Helpers.java", 9): "GET /api/orders/{id}",          # wrapper of a wrapper: twice("/orders") -> fetch(.. + "/x")
    }
    # the wrappers' own clients stay unresolved (their path is the caller's to give); a site whose value its
    # caller's sites make more known (twice's fetch(path + "/x")) is no client: those sites are
    assert ("Page.java", 5) not in found and ("Helpers.java", 6) not in found
    assert found[("OrdersGateway.java", 6)][1] == "unresolved"
    assert found[("Helpers.java", 5)][1] == "unresolved"
    # a parameter the method reassigns is not the site's value; an unknown argument gives no other URL
    assert ("Helpers.java", 10) not in found and found[("Helpers.java", 11)][1] == "unresolved"


def test_a_site_that_may_reach_another_method_is_not_followed(tmp_path):
    """``gateway.order(id)`` on an overridable method of a class a project type extends may run the subclass's."""
    sub = "package w;\npublic class Other extends OrdersGateway {\n  @Override public String items() { return \"\"; }\n}\n"
    gateway = GATEWAY.replace("private String get(", "String get(")
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/OrdersGateway.java": gateway,
                                "web/src/main/java/w/Other.java": sub})
    assert {where for where, (_l, match, _t) in found.items() if match == "cross_service"} == {
        ("OrdersGateway.java", 9)}


JAXRS = """package w;
import javax.ws.rs.client.Client;
import javax.ws.rs.client.ClientBuilder;
import javax.ws.rs.core.MediaType;
public class OrdersClient {
  private final Client client = ClientBuilder.newClient();
  private String read(String resource) {
    return client.target("http://orders:8080").path("api").path(resource).request(MediaType.TEXT_PLAIN).get(String.class);
  }
  public String items() { return read("items"); }
}
"""


def test_a_jaxrs_client_api_wrapper_is_read_per_call_site(tmp_path):
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/OrdersClient.java": JAXRS})
    assert {where: link for where, (_l, match, link) in found.items() if match == "cross_service"} == {
        ("OrdersClient.java", 10): "GET /api/items"}


def test_a_site_that_adds_nothing_known_makes_no_client(tmp_path):
    """``one(order.getId())`` for ``/api/orders/{?:id}``: the wrapper's own client already says it all."""
    source = GATEWAY.replace('public String order(long id) { return get("/orders/" + id); }',
                             'private String one(String id) { return get("/orders/" + id); }\n'
                             '  public String show(Order order) { return one(order.getId()); }')
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/OrdersGateway.java": source})
    assert sorted(where for where in found if where[0] == "OrdersGateway.java") == [
        ("OrdersGateway.java", 6), ("OrdersGateway.java", 7), ("OrdersGateway.java", 9), ("OrdersGateway.java", 10)]
    assert found[("OrdersGateway.java", 7)][2] == "GET /api/orders/{id}"   # one's site: get("/orders/" + id)


API_CLIENT = """package w;
import java.util.function.Supplier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestTemplate;
@Component
public class ApiClient {
  private final RestTemplate restTemplate;
  private final String baseUrl;
  public ApiClient(RestTemplate restTemplate, @Value("${orders.base-url}") String baseUrl) {
    this.restTemplate = restTemplate;
    this.baseUrl = baseUrl;
  }
  public <T> T get(String path, Class<T> type, Object... variables) {
    return call(() -> restTemplate.getForObject(baseUrl + path, type, variables));
  }
  private <T> T call(Supplier<T> action) { return action.get(); }
}
"""
SERVICE = """package w;
public class OrderService {
  private final ApiClient api;
  OrderService(ApiClient api) { this.api = api; }
  String items() { return api.get("/items", String.class); }
  String order(long id) { return api.get("/orders/{id}", String.class, id); }
}
"""


def test_a_varargs_wrapper_with_a_configured_base_url(tmp_path):
    """The base URL from ``@Value`` in the constructor, the call inside a lambda, a varargs wrapper on an injected
    field: each site's path with the module's setting."""
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/ApiClient.java": API_CLIENT,
                                "web/src/main/java/w/OrderService.java": SERVICE,
                                "web/src/main/resources/application.properties":
                                "orders.base-url=http://orders:8080/api\n"})
    assert {where: link for where, (_l, match, link) in found.items() if match == "cross_service"} == {
        ("OrderService.java", 5): "GET /api/items", ("OrderService.java", 6): "GET /api/orders/{id}"}


def test_an_update_of_a_callers_file_equals_a_full_build(tmp_path):
    """The wrapper's file is unchanged; the clients of its call sites follow the caller's edit."""
    root = write_tree(tmp_path / "s", {**ORDERS, "web/src/main/java/w/Helpers.java": HELPERS,
                                       "web/src/main/java/w/Page.java": CALLER,
                                       "web/src/main/java/w/OrdersGateway.java": GATEWAY})
    graph = CodeGraph.build(root)
    assert any("/api/items" in line and "Page" in line for line in render(graph))
    edit(root, "web/src/main/java/w/Page.java", 'Helpers.fetch("/items")', 'Helpers.fetch("/orders/7")')
    graph.update()
    lines = render(graph)
    assert lines == render(CodeGraph.build(root))
    assert not any("/api/items" in line and "Page" in line for line in lines)
    assert any("/api/orders/7" in line and "Page" in line for line in lines)


MAPS = """package w;
import java.util.HashMap;
import java.util.Map;
import org.springframework.web.client.RestTemplate;
public class Routes {
  private final RestTemplate rest = new RestTemplate();
  String known() {
    Map<String, String> bases = new HashMap<>();
    bases.put("orders", "http://orders:8080/api");
    bases.putIfAbsent("other", "http://other:8080");
    return rest.getForObject(bases.get("orders") + "/items", String.class);
  }
  String escapes() {
    Map<String, String> bases = new HashMap<>();
    bases.put("orders", "http://orders:8080/api");
    fill(bases);
    return rest.getForObject(bases.get("orders") + "/items", String.class);
  }
  String keyed(String name) {
    Map<String, String> bases = new HashMap<>();
    bases.put(name, "http://other:8080");
    bases.put("orders", "http://orders:8080/api");
    return rest.getForObject(bases.get("orders") + "/items", String.class);
  }
  String copied(Map<String, String> defaults) {
    Map<String, String> bases = new HashMap<>(defaults);
    bases.putIfAbsent("orders", "http://orders:8080/api");
    return rest.getForObject(bases.get("orders") + "/items", String.class);
  }
  void fill(Map<String, String> m) { m.put("orders", "http://other:8080"); }
}
"""


def test_a_map_the_method_fills_gives_what_it_put_and_nothing_else(tmp_path):
    """``m.get(k)`` is what the method put under ``k``; a map handed to another method, a put whose key is not
    known, or a map made as a copy of another stays unknown (brief 22-F-r3, point 3)."""
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/Routes.java": MAPS})
    assert {where: link for where, (_l, match, link) in found.items() if match == "cross_service"} == {
        ("Routes.java", 11): "GET /api/items"}
    assert found[("Routes.java", 17)][1] == found[("Routes.java", 23)][1] == found[("Routes.java", 28)][1] == \
        "unresolved"   # handed to fill(..); a put of a key not known; a copy of a map not read


NESTED = """package w;
import org.springframework.web.client.RestTemplate;
public class Outer {
  private final RestTemplate rest = new RestTemplate();
  private String get(String path) { return rest.getForObject("http://orders:8080/api" + path, String.class); }
  private String one(String id) { return rest.getForObject("http://orders:8080/api/orders/" + id, String.class); }
  String items() { return one("7"); }
  class Inner {
    String get(String path) { return path; }
    String items() { return get("/items"); }
  }
  class Plain {
    String items() { return get("/items"); }
  }
}
"""


def test_a_nested_class_that_declares_the_name_and_a_path_parameter_wrapper(tmp_path):
    """``get("/items")`` in a nested class that declares its own ``get`` is not the outer method's; one that does not
    declare it reaches the outer ``get``. A site that passes a literal where the wrapper has a path parameter
    (``one("7")`` for ``/orders/{?:id}``) is a client of its own too: a whole segment is not always an id (a JAX-RS
    ``path(resource)`` names the resource)."""
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/Outer.java": NESTED})
    assert {where: link for where, (_l, match, link) in found.items() if match == "cross_service"} == {
        ("Outer.java", 6): "GET /api/orders/{id}", ("Outer.java", 7): "GET /api/orders/{id}",
        ("Outer.java", 13): "GET /api/items"}
    assert ("Outer.java", 10) not in found


DECLARED = """package w;
import org.springframework.web.client.RestTemplate;
public class Gateway {
  private final RestTemplate rest = new RestTemplate();
  @CodebaseHttpClient(clientKind = "rest_template", targetService = "orders", path = "/api/items")
  private String get(String path) { return rest.getForObject("http://orders:8080/api" + path, String.class); }
  @CodebaseHttpClient(clientKind = "rest_template", targetService = "orders", path = "/api/orders/{id}")
  private String one(String id) { return get("/orders/" + id); }
  String items() { return get("/items"); }
  String order() { return one("7"); }
}
"""


def test_a_wrapper_that_declares_its_clients_makes_none_at_its_call_sites(tmp_path):
    """A declaration has priority over what the frameworks read on its method (`declared.exclusive`): the sites of a
    wrapper (or of a wrapper's caller) that declares its clients are not counted again."""
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/Gateway.java": DECLARED})
    assert {where: link for where, (_l, match, link) in found.items() if match == "cross_service"} == {
        ("Gateway.java", 5): "GET /api/items", ("Gateway.java", 7): "GET /api/orders/{id}"}


INHERITED = """package w;
import org.springframework.web.client.RestTemplate;
public class Gateway extends Base implements Named {
  private static final Object KEY = "/items";
  private final RestTemplate rest = new RestTemplate();
  private String get(String path) { return rest.getForObject("http://orders:8080/api" + path, String.class); }
  private String put(String path) { return rest.getForObject("http://orders:8080/api" + path, String.class); }
  private String one(String path) { return rest.getForObject("http://orders:8080/api" + path, String.class); }
  String first() { return get(KEY); }
  String second() { return put(KEY); }
  String third() { return one("/items"); }
  class Inner extends Other {
    String items() { return one("/items"); }
  }
  public String fetch(String path) { return rest.getForObject("http://orders:8080/api" + path, String.class); }
  String fourth() { return fetch("/orders/7"); }
}
"""
BASES = {"web/src/main/java/w/Base.java": "package w;\npublic class Base {\n"
         "  protected String get(Object key) { return \"\"; }\n}\n",
         "web/src/main/java/w/Other.java": "package w;\npublic class Other {\n"
         "  protected String one(Object o) { return \"\"; }\n}\n",
         "web/src/main/java/w/Named.java": "package w;\npublic interface Named {\n"
         "  default String put(Object key) { return \"\"; }\n  String fetch(String path);\n}\n"}


def test_a_site_that_may_reach_an_inherited_overload_is_not_followed(tmp_path):
    """``get(KEY)`` with an ``Object`` constant runs the superclass's ``get(Object)`` (and ``put(KEY)`` an interface's
    default ``put(Object)``), not the class's ``get(String)``; an unqualified ``one("/items")`` in a nested class
    whose superclass has a ``one`` is that class's (Java looks no further out). ``third``'s site is the wrapper's, and
    ``fourth``'s (``fetch`` implements the interface's ``fetch(String)``: the same method, no overload)."""
    found = _clients(tmp_path, {**ORDERS, **BASES, "web/src/main/java/w/Gateway.java": INHERITED})
    assert {where: link for where, (_l, match, link) in found.items() if match == "cross_service"} == {
        ("Gateway.java", 11): "GET /api/items", ("Gateway.java", 16): "GET /api/orders/{id}"}


SHADOWED = """package w;
import java.util.List;
public class Page {
  private final OrdersGateway gateway = new OrdersGateway();
  void each(List<Other> others) {
    others.forEach(gateway -> gateway.order(7));
    others.forEach((one, gateway) -> gateway.order(7));
  }
  String mine() { return gateway.order(7); }
}
"""
OTHER = "package w;\npublic class Other {\n  String order(long id) { return \"\"; }\n}\n"


def test_a_lambda_parameter_that_shadows_a_field_is_not_the_field(tmp_path):
    """``gateway -> gateway.order(7)``: the lambda's parameter (an ``Other``), not the field of the wrapper's class."""
    source = GATEWAY.replace("public class OrdersGateway", "public final class OrdersGateway")
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/OrdersGateway.java": source,
                                "web/src/main/java/w/Page.java": SHADOWED, "web/src/main/java/w/Other.java": OTHER})
    assert {where: link for where, (_l, match, link) in found.items()
            if match == "cross_service" and where[0] == "Page.java"} == {("Page.java", 9): "GET /api/orders/{id}"}


def test_a_wrapper_of_a_wrapper_with_more_sites_than_followed_says_so(tmp_path):
    """``get`` <- ``m(p)`` <- 70 sites of ``m``: 64 are clients, and the wrapper's own client says the 6 left out."""
    calls = "".join(f'  String c{k}() {{ return m("/{k}"); }}\n' for k in range(70))
    source = ("package w;\nimport org.springframework.web.client.RestTemplate;\npublic class Gateway {\n"
              "  private final RestTemplate rest = new RestTemplate();\n"
              '  private String get(String path) { return rest.getForObject("http://orders:8080/api" + path, String.class); }\n'
              '  private String m(String p) { return get("/orders" + p); }\n' + calls + "}\n")
    root = write_tree(tmp_path / "s", {**ORDERS, "web/src/main/java/w/Gateway.java": source})
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = {n.props["line"]: n.props for n in nodes.values() if n.kind == "client"}
    assert len(clients) == 1 + 64
    assert "6 call sites of w.Gateway#m(String) not followed (at most 64)" in clients[5]["unresolved_reason"]


FOURTH = """package w;
import java.util.HashMap;
import java.util.Map;
import org.springframework.web.client.RestTemplate;
public class Routes {
  private final RestTemplate rest = new RestTemplate();
  String fourth() {
    Map<String, String> bases = new HashMap<>();
    bases.put("orders", "http://orders:8080/api");
    fill("a", "b", "c", bases);
    return rest.getForObject(bases.get("orders") + "/items", String.class);
  }
  void fill(String a, String b, String c, Map<String, String> m) { m.put("orders", "http://other:8080"); }
}
"""


def test_a_map_that_may_be_passed_past_the_arguments_the_facts_keep_is_unknown(tmp_path):
    """A call's facts keep its first three arguments: ``fill("a", "b", "c", bases)`` may hand the map on (here it
    does, and ``fill`` puts another value), so ``bases.get("orders")`` is not folded."""
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/Routes.java": FOURTH})
    assert found[("Routes.java", 11)][1] == "unresolved"


ANONYMOUS = """package w;
import java.util.function.Function;
import org.springframework.web.client.RestTemplate;
public class Gateway {
  private final RestTemplate rest = new RestTemplate();
  private String get(String path) {
    Function<String, String> f = new Function<String, String>() {
      public String apply(String path) { return rest.getForObject("http://orders:8080/api" + path, String.class); }
    };
    return f.apply("/orders/7");
  }
  String run() { return get("/items"); }
}
"""


def test_a_parameter_an_anonymous_class_declares_again_is_not_bound(tmp_path):
    """The client's ``path`` is the anonymous class's ``apply(String path)`` (its methods are no symbols of the
    facts: the client is the wrapper's), not ``get``'s: ``get("/items")`` gives it no value."""
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/Gateway.java": ANONYMOUS})
    assert ("Gateway.java", 12) not in found and found[("Gateway.java", 8)][1] == "unresolved"


THIS_FIELD = """package w;
public class Page {
  private final Other gateway = new Other();
  String show() {
    OrdersGateway gateway = new OrdersGateway();
    return this.gateway.order(7) + gateway.order(8);
  }
}
"""


def test_this_dot_a_field_is_the_field_not_a_local_of_that_name(tmp_path):
    """``this.gateway`` is the field (an ``Other``) even where a local ``gateway`` is an ``OrdersGateway``: only the
    local's call is the wrapper's (both on line 6: one client there, ``/orders/8``)."""
    source = GATEWAY.replace("public class OrdersGateway", "public final class OrdersGateway")
    root = write_tree(tmp_path / "s", {**ORDERS, "web/src/main/java/w/OrdersGateway.java": source,
                                       "web/src/main/java/w/Page.java": THIS_FIELD,
                                       "web/src/main/java/w/Other.java": OTHER})
    nodes, _ = CodeGraph.build(root).snapshot()
    assert sorted(n.props["label"] for n in nodes.values() if n.kind == "client" and
                  n.props["file"].endswith("Page.java")) == ["GET orders /api/orders/8"]


UNSURE = """package w;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.web.client.RestTemplate;
public class Routes {
  private final RestTemplate rest = new RestTemplate();
  String choiceKey(boolean b) {
    Map<String, String> bases = new HashMap<>();
    String k = "x";
    if (b) {
      k = "orders";
    }
    bases.put("orders", "http://orders:8080/api");
    bases.put(k, "http://other:8080");
    return rest.getForObject(bases.get("orders") + "/items", String.class);
  }
  String loop(List<String> names) {
    Map<String, String> bases = new HashMap<>();
    bases.put("orders", "http://orders:8080/api");
    for (String n : names) {
      bases.put("orders", n);
    }
    return rest.getForObject(bases.get("orders") + "/items", String.class);
  }
}
"""


def test_a_map_get_that_may_be_another_value_is_not_linked(tmp_path):
    """A put whose key is one of several (``k`` is "x" or "orders") may write under ``"orders"``; a put of a value
    not known makes ``bases.get("orders")`` known at run time only (its known alternative is no guess to link)."""
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/Routes.java": UNSURE})
    assert found[("Routes.java", 16)][1] == found[("Routes.java", 24)][1] == "unresolved"


IN_ANONYMOUS = """package w;
import org.springframework.web.client.RestTemplate;
public class Gateway {
  private final RestTemplate rest = new RestTemplate();
  private String get(String path) { return rest.getForObject("http://orders:8080/api" + path, String.class); }
  String run() {
    Task t = new Task() {
      String call() { return get("/items"); }
    };
    return t.call();
  }
  String plain() { return get("/orders/7"); }
}
"""
TASK = ("package w;\npublic abstract class Task {\n  protected String get(String key) { return key; }\n"
        "  abstract String call();\n}\n")


def test_a_call_in_an_anonymous_class_that_inherits_the_name_is_not_followed(tmp_path):
    """``get("/items")`` in the body of ``new Task() {..}`` runs ``Task.get`` (an anonymous class's body is no
    symbol of the facts: its calls are ``run``'s); ``plain``'s ``get("/orders/7")`` is the wrapper's."""
    found = _clients(tmp_path, {**ORDERS, "web/src/main/java/w/Gateway.java": IN_ANONYMOUS,
                                "web/src/main/java/w/Task.java": TASK})
    assert {where: link for where, (_l, match, link) in found.items() if match == "cross_service"} == {
        ("Gateway.java", 12): "GET /api/orders/{id}"}
