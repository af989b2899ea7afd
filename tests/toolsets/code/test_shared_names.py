"""Two services that claim one application name (a ``spring.application.name`` copied into another service): a URL
host of that name is the service whose Compose service has it, since that is the host the network resolves; an
``lb://`` name (service discovery, where both register) and a host no deployment name settles stay unresolved, saying
why."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

CONTROLLER = ("package com.acme.{pkg};\n\nimport org.springframework.web.bind.annotation.*;\n\n"
              "@RestController\npublic class Api {{\n    @GetMapping(\"{path}\")\n"
              "    public String get(@PathVariable String id) {{ return id; }}\n}}\n")
CLIENT = ("package com.acme.web;\n\nimport org.springframework.web.client.RestTemplate;\n\n"
          "public class Calls {\n    private final RestTemplate rest = new RestTemplate();\n\n"
          "    String order(String id) {\n"
          "        return rest.getForObject(\"http://orders:8080/orders/{id}\", String.class, id);\n    }\n\n"
          "    String viaDiscovery(String id) {\n"
          "        return rest.getForObject(\"lb://orders/orders/{id}\", String.class, id);\n    }\n}\n")


def _tree(root: Path, compose: bool) -> Path:
    files = {"web/pom.xml": "<project><artifactId>web</artifactId></project>\n",
             "web/src/main/resources/application.properties": "spring.application.name=web\n",
             "web/src/main/java/com/acme/web/Calls.java": CLIENT}
    for folder, path in (("orders", "/orders/{id}"), ("delivery", "/deliveries/{id}")):
        files[f"{folder}/pom.xml"] = f"<project><artifactId>{folder}</artifactId></project>\n"
        files[f"{folder}/src/main/resources/application.properties"] = "spring.application.name=orders\n"
        files[f"{folder}/src/main/java/com/acme/{folder}/Api.java"] = CONTROLLER.format(pkg=folder, path=path)
    if compose:
        files["docker-compose.yml"] = ("services:\n  orders:\n    build: ./orders\n  delivery:\n    build: ./delivery\n"
                                       "  web:\n    build: ./web\n")
    return write_tree(root, files)


def _clients(root: Path) -> dict[str, dict]:
    nodes, edges = CodeGraph.build(root).snapshot()
    clients = {n.props["file"] + ":" + str(n.props["line"]): n.props for n in nodes.values() if n.kind == "client"}
    for edge in edges.values():
        if edge.type == "HTTP_CALLS" and nodes[edge.src].kind == "client":
            clients[nodes[edge.src].props["file"] + ":" + str(nodes[edge.src].props["line"])]["to"] = \
                nodes[edge.dst].props["label"]
    return clients


def test_the_compose_service_settles_which_service_a_shared_host_names(tmp_path: Path):
    clients = _clients(_tree(tmp_path / "sys", compose=True))
    direct, discovery = clients["web/src/main/java/com/acme/web/Calls.java:9"], \
        clients["web/src/main/java/com/acme/web/Calls.java:13"]
    # the orders folder's service (it keeps the name; the delivery service goes by its artifact), the one that
    # serves the path
    assert direct["match"] == "cross_service" and direct["to"] == "GET /orders/{id}"
    assert discovery["match"] == "unresolved" and "to" not in discovery
    assert discovery["match_detail"] == "'orders' names 2 microservices (delivery, orders)"


def test_without_a_deployment_name_a_shared_host_stays_unresolved(tmp_path: Path):
    clients = _clients(_tree(tmp_path / "sys", compose=False))
    direct = clients["web/src/main/java/com/acme/web/Calls.java:9"]
    assert direct["match"] == "unresolved" and "to" not in direct
    assert "no Compose service or Kubernetes Service of that name settles which" in direct["match_detail"]


def test_a_host_one_service_declares_and_the_deployment_gives_another_names_neither(tmp_path: Path):
    """The tiers disagree: ``orders`` is one service's application name, but the Compose service ``orders`` runs the
    other service's folder, and that is the host the network resolves: unresolved, saying both."""
    files = {"web/pom.xml": "<project><artifactId>web</artifactId></project>\n",
             "web/src/main/resources/application.properties": "spring.application.name=web\n",
             "web/src/main/java/com/acme/web/Calls.java": CLIENT,
             "docker-compose.yml": "services:\n  orders:\n    build: ./delivery\n  ordersvc:\n    build: ./orders\n"
                                   "  web:\n    build: ./web\n"}
    for folder, path in (("orders", "/orders/{id}"), ("delivery", "/deliveries/{id}")):
        files[f"{folder}/pom.xml"] = f"<project><artifactId>{folder}</artifactId></project>\n"
        files[f"{folder}/src/main/resources/application.properties"] = f"spring.application.name={folder}\n"
        files[f"{folder}/src/main/java/com/acme/{folder}/Api.java"] = CONTROLLER.format(pkg=folder, path=path)
    direct = _clients(write_tree(tmp_path / "sys", files))["web/src/main/java/com/acme/web/Calls.java:9"]
    assert direct["match"] == "unresolved" and "to" not in direct
    assert direct["match_detail"] == ("'orders' is orders's spring.application.name, but the deployment's host of that "
                                      "name is delivery's")
