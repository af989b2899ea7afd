"""A client whose URL's host is what an nginx ``server_name`` answers to (``http://api.shop.local/stock`` with
``server { server_name api.shop.local; location /stock/ { proxy_pass http://stock; } }``) reaches the proxy: it
links to the location and, through it, to the service's route (a servlet context path included). A host a
deployment unit goes by is that unit's, whatever a ``server_name`` says; a wildcard or two proxies answering to one
host name none. A Spring property the deployment also sets as an environment variable (``SHOP_SERVICES_STOCK``
for ``shop.services.stock``) is one of both values: the variable's where the deployment runs, the file's elsewhere."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.virtual_hosts import server_names

CONTROLLER = """package shop.stock;

import org.springframework.web.bind.annotation.*;

@RestController
@RequestMapping("/items")
public class StockController {
  @GetMapping("/{id}")
  public String one(@PathVariable long id) { return ""; }
}
"""

URLS = """package shop.common;

import org.springframework.boot.context.properties.ConfigurationProperties;

@ConfigurationProperties(prefix = "shop.services")
public record Urls(String stock, String keys, String wild) {}
"""

CLIENT = """package shop.cart;

import org.springframework.web.client.RestClient;
import shop.common.Urls;

public class StockClient {
  private final RestClient restClient;
  private final Urls urls;

  public StockClient(RestClient restClient, Urls urls) { this.restClient = restClient; this.urls = urls; }

  public String one(long id) { return restClient.get().uri(urls.stock() + "/items/" + id).retrieve().body(String.class); }

  public String keys() { return restClient.get().uri(urls.keys() + "/realms").retrieve().body(String.class); }

  public String wild() { return restClient.get().uri(urls.wild() + "/stock/items/1").retrieve().body(String.class); }
}
"""

NGINX = """server {
  server_name api.shop.local;
  # server_name commented.shop.local;
  location /stock/ {
    proxy_pass http://stock;
  }
}
server {
  server_name keys;
  location / {
    proxy_pass http://keys:8080;
  }
}
server {
  server_name *.shop.local _;
  location / {
    proxy_pass http://stock;
  }
}
"""

COMPOSE = """services:
  edge:
    image: nginx:1.27
    volumes:
      - ./edge/default.conf.template:/etc/nginx/templates/default.conf.template
  keys:
    image: quay.io/keycloak/keycloak:26.0
  stock:
    build: ./stock
  cart:
    build: ./cart
"""


def _tree(root: Path, compose: str = COMPOSE, env: str | None = None) -> Path:
    files = {
        "docker-compose.yml": compose,
        "edge/default.conf.template": NGINX,
        "stock/Dockerfile": "FROM eclipse-temurin:21\n",
        "stock/pom.xml": "<project><artifactId>stock</artifactId></project>\n",
        "stock/src/main/resources/application.properties": "server.servlet.context-path=/stock\n",
        "stock/src/main/java/shop/stock/StockController.java": CONTROLLER,
        "cart/Dockerfile": "FROM eclipse-temurin:21\n",
        "cart/pom.xml": "<project><artifactId>cart</artifactId></project>\n",
        "cart/src/main/resources/application.properties": (
            "shop.services.stock=http://api.shop.local/stock\nshop.services.keys=http://keys\n"
            "shop.services.wild=http://www.shop.local\n"),
        "cart/src/main/java/shop/common/Urls.java": URLS,
        "cart/src/main/java/shop/cart/StockClient.java": CLIENT,
    }
    if env is not None:
        files[".env"] = env
    return write_tree(root, files)


def _links(root: Path) -> tuple[dict[str, dict], dict[str, list[tuple[str, str, tuple[str, ...]]]]]:
    nodes, edges = CodeGraph.build(root).snapshot()
    clients = {n.id: n for n in nodes.values() if n.kind == "client"}
    by_method = {n.props["declaring_fqn"].rpartition("#")[2].partition("(")[0]: n.props for n in clients.values()}
    links: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {}
    for edge in edges.values():
        if edge.type == "HTTP_CALLS" and edge.src in clients:
            method = clients[edge.src].props["declaring_fqn"].rpartition("#")[2].partition("(")[0]
            route = nodes[edge.dst].props
            links.setdefault(method, []).append((route["microservice"], route["label"],
                                                 tuple(edge.props.get("via_labels") or ())))
    return by_method, links


def test_server_names_are_read_as_hosts():
    assert server_names(NGINX) == ["api.shop.local", "keys"]
    assert server_names("server { server_name a.example b.example ~^(?<x>.+)$ 10.0.0.1 $host; }") == \
        ["a.example", "b.example"]


def test_a_host_an_nginx_server_answers_to_reaches_the_service_through_its_location(tmp_path: Path):
    clients, links = _links(_tree(tmp_path / "shop"))
    assert clients["one"]["match"] == "cross_service"
    assert sorted(links["one"]) == [("edge", "ANY /stock/**", ()),
                                    ("stock", "GET /stock/items/{id}", ("edge ANY /stock/**",))]
    # keys is a Compose service (Keycloak, no sources): the network resolves it there, not to the proxy
    assert clients["keys"]["match"] == "unresolved" and "keys" not in links
    # a wildcard server_name names no host
    assert clients["wild"]["match"] == "unresolved" and "wild" not in links


def test_two_proxies_answering_to_one_host_name_neither(tmp_path: Path):
    root = _tree(tmp_path / "shop")
    write_tree(root, {"edge2/default.conf": NGINX.split("server {\n  server_name keys")[0],
                      "docker-compose.yml": COMPOSE + "  edge2:\n    image: nginx:1.27\n    volumes:\n"
                                                      "      - ./edge2/default.conf:/etc/nginx/conf.d/default.conf\n"})
    clients, links = _links(root)
    assert clients["one"]["match"] == "unresolved" and "one" not in links


def test_a_deployment_variable_and_the_file_value_are_both_followed(tmp_path: Path):
    compose = COMPOSE.replace("    build: ./cart\n", "    build: ./cart\n    environment:\n      - SHOP_SERVICES_STOCK\n")
    clients, links = _links(_tree(tmp_path / "shop", compose, env="SHOP_SERVICES_STOCK=http://stock/stock\n"))
    assert clients["one"]["match"] == "cross_service"
    assert sorted(links["one"]) == [("edge", "ANY /stock/**", ()),
                                    ("stock", "GET /stock/items/{id}", ()),
                                    ("stock", "GET /stock/items/{id}", ("edge ANY /stock/**",))]
