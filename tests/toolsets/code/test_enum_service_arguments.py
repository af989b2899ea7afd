"""A client whose target service is an argument: a project's wrapper takes the service as a constant of a project
enum whose value is the service's name (``call(Target.ORDERS, "/items")`` with ``"http://" +
target.getServiceName() + path``). Each call site passing a constant is a client of the service that constant's
value names (its getter returns the field its constructor sets from the constant's argument), through wrappers
of wrappers too; a constant whose value is not read that way, or names no service of the project, leaves the
client unresolved with the reason; the constant is never read as text (issue 22, brief s14/22-lbclients)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

SYSTEM = {
    "docker-compose.yml": "services:\n  orders:\n    build: ./orders\n  web:\n    build: ./web\n",
    "orders/Dockerfile": "FROM scratch\n", "web/Dockerfile": "FROM scratch\n",
    "orders/pom.xml": "<project><artifactId>orders</artifactId></project>\n",
    "web/pom.xml": "<project><artifactId>web</artifactId></project>\n",
    "orders/src/main/java/o/Api.java": "package o;\nimport org.springframework.web.bind.annotation.*;\n"
    "@RestController\npublic class Api {\n  @GetMapping(\"/api/orders/{id}\")\n"
    "  public String one(@PathVariable long id) { return \"\"; }\n"
    "  @GetMapping(\"/api/items\")\n  public String items() { return \"\"; }\n}\n",
    "web/src/main/java/w/Target.java": """package w;
public enum Target {
  ORDERS("orders"),
  BILLING("billing"),
  SPECIAL("orders") {
    @Override public String getServiceName() { return "elsewhere"; }
  };
  private final String serviceName;
  Target(String serviceName) { this.serviceName = serviceName; }
  public String getServiceName() { return serviceName; }
  public String computed() { return serviceName + "-v2"; }
}
""",
    "web/src/main/java/w/Calls.java": """package w;
import org.springframework.web.client.RestTemplate;
public final class Calls {
  private static final RestTemplate REST = new RestTemplate();
  static String call(Target target, String path) {
    return REST.getForObject("http://" + target.getServiceName() + ":8080/api" + path, String.class);
  }
  static String viaComputed(Target target, String path) {
    return REST.getForObject("http://" + target.computed() + ":8080/api" + path, String.class);
  }
  static String asText(Target target) {
    return REST.getForObject("http://orders:8080/api/" + target, String.class);
  }
  static String outer(Target t, String p) { return call(t, p); }
  static String page() {
    return call(Target.ORDERS, "/items")
        + outer(Target.ORDERS, "/orders/7")
        + call(Target.BILLING, "/items")
        + call(Target.SPECIAL, "/items")
        + viaComputed(Target.ORDERS, "/items")
        + asText(Target.ORDERS);
  }
  static String direct() {
    return REST.getForObject("http://" + Target.ORDERS.getServiceName() + ":8080/api/items", String.class);
  }
}
""",
}


def _clients(tmp_path: Path) -> dict[int, tuple[str, str, str]]:
    """The web service's clients by line: (label, match, the route linked)."""
    nodes, edges = CodeGraph.build(write_tree(tmp_path / "s", SYSTEM)).snapshot()
    routes = {n.id: n.props["label"] for n in nodes.values() if n.kind == "route"}
    linked = {e.src: routes.get(e.dst, "") for e in edges.values() if e.type == "HTTP_CALLS"}
    return {n.props["line"]: (n.props["label"], str(n.props.get("match")), linked.get(n.id, ""),
                              str(n.props.get("match_detail")))
            for n in nodes.values() if n.kind == "client" and n.props.get("microservice") == "web"}


def test_a_call_site_passing_an_enum_constant_is_a_client_of_the_service_its_value_names(tmp_path):
    found = _clients(tmp_path)
    assert found[16][1:3] == ("cross_service", "GET /api/items")              # call(Target.ORDERS, "/items")
    assert found[17][1:3] == ("cross_service", "GET /api/orders/{id}")       # outer(..) -> call(t, p): two wrappers
    assert found[24][1:3] == ("cross_service", "GET /api/items")              # Target.ORDERS.getServiceName()


def test_a_constant_whose_value_is_not_read_or_names_no_service_stays_unresolved(tmp_path):
    found = _clients(tmp_path)
    assert found[18][:2] == ("GET billing /api/items", "unresolved") and "'billing' is not a microservice" in found[18][3]
    # a constant with a body of its own (its getter overridden), a getter that computes: no service named
    assert found[19][:2] == ("GET ? /api/items", "unresolved") and "the URL's start is not known" in found[19][3]
    assert found[20][:2] == ("GET ? /api/items", "unresolved")
    # the constant as text (its toString()) is never read: no site client, the wrapper's own one stays as it was
    assert 21 not in found and found[12][:2] == ("GET orders /api/{target}", "no_route")
    assert not any("\x06" in label for label, *_ in found.values())


EUREKA = """package w;
import com.netflix.discovery.EurekaClient;
import org.springframework.web.client.RestTemplate;
public class Lookups {
  private final EurekaClient eurekaClient;
  private final RestTemplate rest = new RestTemplate();
  Lookups(EurekaClient eurekaClient) { this.eurekaClient = eurekaClient; }
  String items() {
    return rest.getForObject(eurekaClient.getNextServerFromEureka("orders", false).getHomePageUrl() + "api/items",
        String.class);
  }
  String one() {
    return rest.getForObject("http://" + eurekaClient.getNextServerFromEureka("orders", false).getHostName()
        + ":8080/api/orders/1", String.class);
  }
  String named(String service) {
    return rest.getForObject(eurekaClient.getNextServerFromEureka(service, false).getHomePageUrl() + "api/items",
        String.class);
  }
}
"""


def test_an_eureka_lookup_by_name_is_a_client_of_the_service_so_named(tmp_path):
    nodes, edges = CodeGraph.build(write_tree(tmp_path / "s", {**SYSTEM, "web/src/main/java/w/Lookups.java": EUREKA})).snapshot()
    routes = {n.id: n.props["label"] for n in nodes.values() if n.kind == "route"}
    linked = {e.src: routes.get(e.dst, "") for e in edges.values() if e.type == "HTTP_CALLS"}
    found = {n.props["line"]: (n.props.get("match"), linked.get(n.id, "")) for n in nodes.values()
             if n.kind == "client" and n.props["file"].endswith("Lookups.java")}
    assert found == {9: ("cross_service", "GET /api/items"),                # getHomePageUrl() + "api/items"
                     13: ("cross_service", "GET /api/orders/{id}"),         # "http://" + ...getHostName() + ..
                     17: ("unresolved", "")}                                # a name known at run time only
