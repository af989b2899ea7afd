"""Service discovery names as service names: ``stork://name`` with the addresses Stork's settings (and the
deployment's environment) give the name, gRPC's resolver targets (``dns:///svc:port``, ``consul://agent/svc``,
``discovery:///svc``, ``xds:///svc``), ``static://host:port`` and Kubernetes DNS names. A name links only when it is
one of the project's service names; otherwise the client stays unresolved and says which name it looked for."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.folding import literal
from graphlore.toolsets.code.services.endpoints import split_url


def _type(props: dict) -> str:
    return props["declaring_fqn"].rsplit(".", 1)[-1].split("#")[0]


def _pom(name: str) -> str:
    return (f"<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>{name}</artifactId>"
            "<version>1</version></project>\n")


def test_resolver_targets_and_discovery_schemes_name_their_service():
    cases = {
        "dns:///orders:50051": ("orders", "/", "dns: target"),
        "dns://8.8.8.8/orders:50051": ("orders", "/", "dns: target"),
        "dns:orders:50051": ("orders", "/", "dns: target"),
        "consul://127.0.0.1:8500/orders?healthy=true": ("orders", "/", "consul: target"),
        "discovery:///orders": ("orders", "/", "discovery: target"),
        "xds:///orders": ("orders", "/", "xds: target"),
        "static://orders:9090": ("orders", "/", "static:// address"),
        "stork://orders/api/x": ("orders", "/api/x", "stork:// service name"),
        "lb://orders/api/x": ("orders", "/api/x", "lb:// URI"),
        "http://orders:8080/api/x": ("orders", "/api/x", "URL host"),
    }
    for url, (host, path, source) in cases.items():
        split = split_url(literal(url))
        assert (split.host.text if split.host else None, split.path.text, split.source) == (host, path, source), url


STOCK = '''package com.acme.stock;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

@Path("/api/stock")
public class StockResource {
    @GET
    @Path("/{sku}")
    public String level(String sku) { return ""; }
}
'''

CLIENTS = '''package com.acme.shop;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

@Path("/api/stock")
@RegisterRestClient(configKey = "static-stock")
interface StaticStock {
    @GET
    @Path("/{sku}")
    String level(String sku);
}

@Path("/api/stock")
@RegisterRestClient(configKey = "kube-stock")
interface KubeStock {
    @GET
    @Path("/{sku}")
    String level(String sku);
}

@Path("/api/stock")
@RegisterRestClient(configKey = "named-stock")
interface NamedStock {
    @GET
    @Path("/{sku}")
    String level(String sku);
}

@Path("/api/prices")
@RegisterRestClient(configKey = "prices")
interface Prices {
    @GET
    String all();
}

@Path("/api/stock")
@RegisterRestClient(configKey = "dns-stock")
interface DnsStock {
    @GET
    @Path("/{sku}")
    String level(String sku);
}
'''

SHOP_PROPS = '''quarkus.rest-client.static-stock.url=stork://stock-static
quarkus.stork.stock-static.service-discovery.type=static
quarkus.stork.stock-static.service-discovery.address-list=stock:8080
%dev.quarkus.rest-client.static-stock.url=stork://stock-static/mock/api
%dev.quarkus.stork.stock-static.service-discovery.address-list=${mock.host}:${mock.port}
quarkus.rest-client.kube-stock.url=stork://stock-kube
quarkus.stork.stock-kube.service-discovery.type=kubernetes
quarkus.stork.stock-kube.service-discovery.application=stock
quarkus.rest-client.named-stock.url=stork://stock
quarkus.rest-client.prices.url=stork://price-service
quarkus.stork.price-service.service-discovery.type=static
quarkus.stork.price-service.service-discovery.address-list=prices.example.com:443
quarkus.rest-client.dns-stock.url=http://stock.shop.svc.cluster.local:8080
'''


def test_stork_names_link_only_through_the_project_service_names(tmp_path: Path):
    root = write_tree(tmp_path, {
        "stock/pom.xml": _pom("stock"),
        "stock/Dockerfile": "FROM eclipse-temurin:21\n",
        "stock/src/main/java/com/acme/stock/StockResource.java": STOCK,
        "shop/pom.xml": _pom("shop"),
        "shop/Dockerfile": "FROM eclipse-temurin:21\n",
        "shop/src/main/resources/application.properties": SHOP_PROPS,
        "shop/src/main/java/com/acme/shop/Clients.java": CLIENTS,
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    clients = {_type(p): p for p in (n.props for n in nodes.values() if n.kind == "client")}
    got = {name: (p["target_service"], p["match"]) for name, p in clients.items()}
    assert got == {
        "StaticStock": ("stock", "cross_service"),     # the static address list's host
        "KubeStock": ("stock", "cross_service"),       # the Kubernetes application it is registered under
        "NamedStock": ("stock", "cross_service"),      # the Stork name is a service name itself
        "Prices": ("prices.example.com", "unresolved"),  # an outside address: never a link
        "DnsStock": ("stock", "cross_service"),        # a Kubernetes Service's DNS name
    }, got
    assert "'prices.example.com' is not a microservice" in clients["Prices"]["match_detail"]
    # the %dev. URL is paired with the %dev. address (a mock nobody sets): never with the plain address list
    static = clients["StaticStock"]
    assert "quarkus.stork.stock-static.service-discovery.address-list" in static["target_path"]
    assert "/mock/api/api/stock" not in (static["target_path_template"] or "")
    by_id = {n.id: n for n in nodes.values()}
    linked = sorted({(_type(by_id[e.src].props), by_id[e.dst].props["label"])
                     for e in edges.values() if e.type == "HTTP_CALLS"})
    assert linked == [(name, "GET /api/stock/{sku}") for name in ("DnsStock", "KubeStock", "NamedStock",
                                                                  "StaticStock")]


COMPOSE = '''services:
  stock:
    build: ./stock
  shop:
    build: ./shop
    environment:
      QUARKUS_STORK_STOCK_SERVICE_SERVICE_DISCOVERY_ADDRESS_LIST: stock:8080
'''


def _named_stock(tmp_path: Path, extra: dict[str, str]) -> dict:
    """The ``NamedStock`` client of a shop whose ``stork://stock-service`` no setting of its own gives addresses."""
    root = write_tree(tmp_path, {
        **extra,
        "stock/pom.xml": _pom("stock"),
        "stock/Dockerfile": "FROM eclipse-temurin:21\n",
        "stock/src/main/java/com/acme/stock/StockResource.java": STOCK,
        "shop/pom.xml": _pom("shop"),
        "shop/Dockerfile": "FROM eclipse-temurin:21\n",
        "shop/src/main/resources/application.properties": "quarkus.rest-client.named-stock.url=stork://stock-service\n",
        "shop/src/main/java/com/acme/shop/Clients.java": CLIENTS,
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    return next(n.props for n in nodes.values() if n.kind == "client" and _type(n.props) == "NamedStock")


def test_a_stork_address_list_set_by_the_deployment_environment(tmp_path: Path):
    named = _named_stock(tmp_path, {"docker-compose.yml": COMPOSE})
    assert (named["target_service"], named["match"]) == ("stock", "cross_service")


def test_a_stork_name_without_addresses_says_which_name_it_looked_for(tmp_path: Path):
    named = _named_stock(tmp_path, {})
    assert (named["target_service"], named["match"]) == ("stock-service", "unresolved")
    assert "'stock-service' is not a microservice of this project" in named["match_detail"]


def test_a_kubernetes_dns_name_of_no_project_service_is_not_linked(tmp_path: Path):
    from graphlore.toolsets.code.services.identity import ServiceNames

    root = write_tree(tmp_path, {
        "stock/pom.xml": _pom("stock"),
        "stock/Dockerfile": "FROM eclipse-temurin:21\n",
        "stock/src/main/java/com/acme/stock/StockResource.java": STOCK,
    })
    names = ServiceNames(CodeGraph.build(root).layout)
    assert names.host("stock.default.svc.cluster.local", 8080, [])[0] == "stock"
    assert names.host("stock.default.svc", None, [])[0] == "stock"
    service, why = names.host("billing.default.svc.cluster.local", None, [])
    assert service is None and "'billing'" in why


PROTO = '''syntax = "proto3";

package geo.v1;

option java_package = "com.acme.geo.grpc";

service Locations {
  rpc GetRandomLocation(RandomRequest) returns (Location);
  rpc Hello(HelloRequest) returns (HelloReply);
}
'''

GEO_SERVER = '''package com.acme.geo;

import io.quarkus.grpc.GrpcService;
import com.acme.geo.grpc.LocationsGrpc;

@GrpcService
public class LocationService extends LocationsGrpc.LocationsImplBase {
    public void getRandomLocation(Object request, Object observer) { }
    public void hello(Object request, Object observer) { }
}
'''

QUARKUS_CLIENTS = '''package com.acme.fights;

import io.quarkus.grpc.GrpcClient;
import com.acme.geo.grpc.Locations;
import com.acme.geo.grpc.MutinyLocationsGrpc;

public class LocationClient {
    private final Locations locations;

    public LocationClient(@GrpcClient("locations") Locations locations) {
        this.locations = locations;
    }

    public Object random() {
        return this.locations.getRandomLocation(null);
    }
}

class HelloClient {
    @GrpcClient
    MutinyLocationsGrpc.MutinyLocationsStub geo;

    Object hello() {
        return geo.hello(null);
    }

    Object notAMethod() {
        return geo.withDeadlineAfter(1, null);
    }
}
'''

FIGHTS_PROPS = '''quarkus.grpc.clients.locations.host=localhost
quarkus.grpc.clients.locations.port=8089
quarkus.grpc.clients.geo.host=geo-service
quarkus.grpc.clients.geo.port=9000
'''


def _geo(tmp_path: Path, clients: str, extra: dict[str, str] | None = None) -> Path:
    """The geo gRPC service and a fights service whose ``LocationClient.java`` is ``clients``."""
    return write_tree(tmp_path, {
        **(extra or {}),
        "protos/geo.proto": PROTO,
        "geo/pom.xml": _pom("geo"),
        "geo/Dockerfile": "FROM eclipse-temurin:21\n",
        "geo/src/main/proto/geo.proto": PROTO,
        "geo/src/main/java/com/acme/geo/LocationService.java": GEO_SERVER,
        "fights/pom.xml": _pom("fights"),
        "fights/Dockerfile": "FROM eclipse-temurin:21\n",
        "fights/src/main/resources/application.properties": FIGHTS_PROPS,
        "fights/src/main/java/com/acme/fights/LocationClient.java": clients,
    })


def test_quarkus_grpc_clients_injected_by_name(tmp_path: Path):
    root = _geo(tmp_path, QUARKUS_CLIENTS, {
        "docker-compose.yml": "services:\n  geo:\n    build: ./geo\n    ports:\n      - \"8089:9000\"\n"})
    nodes, edges = CodeGraph.build(root).snapshot()
    clients = {(_type(p), p["grpc"]): p for p in (n.props for n in nodes.values() if n.kind == "client")}
    assert set(clients) == {("LocationClient", "geo.v1.Locations/GetRandomLocation"),
                            ("HelloClient", "geo.v1.Locations/Hello")}
    random = clients[("LocationClient", "geo.v1.Locations/GetRandomLocation")]
    assert (random["match"], random["channel_address"], random["channel_service"]) == (
        "cross_service", "localhost:8089", "geo")                  # the one service published at 8089
    hello = clients[("HelloClient", "geo.v1.Locations/Hello")]     # @GrpcClient alone: the field's name
    assert hello["channel_address"] == "geo-service:9000" and hello["channel_service"] is None
    assert "'geo-service' is not a microservice" in hello["channel_service_matched_by"]
    by_id = {n.id: n for n in nodes.values()}
    assert sorted(by_id[e.dst].props["label"] for e in edges.values() if e.type == "GRPC_CALLS") == [
        "grpc geo.v1.Locations/GetRandomLocation", "grpc geo.v1.Locations/Hello"]


def test_the_settings_an_agent_asks_about_include_discovery_grpc_and_ai_models():
    from graphlore.toolsets.code.services.settings import noted

    asked = ["quarkus.grpc.clients.locations.host", "quarkus.grpc.clients.locations.port",
             "quarkus.stork.hero-service.service-discovery.address-list",
             "quarkus.stork.hero-service.service-discovery.application", "stork.orders.service-discovery.type",
             "quarkus.langchain4j.chat-model.provider", "quarkus.langchain4j.openai.api-key",
             "quarkus.langchain4j.openai.image-model.model-name", "langchain4j.open-ai.chat-model.model-name",
             "spring.ai.openai.api-key", "spring.ai.openai.chat.options.model"]
    tuning = ["quarkus.langchain4j.openai.chat-model.temperature", "quarkus.langchain4j.openai.timeout",
              "quarkus.grpc.clients.locations.load-balancing-policy",
              "quarkus.stork.hero-service.service-discovery.refresh-period"]
    assert [k for k in asked if not noted(k)] == [] and [k for k in tuning if noted(k)] == []


STOCK_SERVICE = '''apiVersion: v1
kind: Service
metadata:
  name: stock
  namespace: shop
spec:
  selector:
    app: stock
  ports:
    - port: 8080
'''


def test_a_kubernetes_dns_name_of_another_namespace_is_not_the_project_service(tmp_path: Path):
    """The project's Service ``stock`` is in the namespace ``shop``: ``stock.billing.svc`` is another Service."""
    from graphlore.toolsets.code.services.deployment import read_deployment
    from graphlore.toolsets.code.services.identity import ServiceNames

    root = write_tree(tmp_path, {
        "k8s/stock.yaml": STOCK_SERVICE,
        "k8s/templated.yaml": STOCK_SERVICE.replace("name: stock", "name: prices").replace(
            "namespace: shop", "namespace: {{ .Release.Namespace }}"),
        "stock/pom.xml": _pom("stock"),
        "stock/Dockerfile": "FROM eclipse-temurin:21\n",
        "stock/src/main/java/com/acme/stock/StockResource.java": STOCK,
        "prices/pom.xml": _pom("prices"),
        "prices/Dockerfile": "FROM eclipse-temurin:21\n",
        "prices/src/main/java/com/acme/prices/PriceResource.java": STOCK.replace("stock", "prices"),
    })
    layout = CodeGraph.build(root).layout
    names = ServiceNames(layout, read_deployment(layout, root, ["k8s/stock.yaml", "k8s/templated.yaml"]))
    assert names.host("stock.shop.svc.cluster.local", 8080, [])[0] == "stock"
    service, why = names.host("stock.billing.svc.cluster.local", 8080, [])
    assert service is None and "namespace billing" in why and "is in shop" in why
    assert names.host("prices.billing.svc", 8080, [])[0] == "prices"   # a namespace not written: not known


def test_a_stub_passed_in_is_not_the_injected_client(tmp_path: Path):
    """A parameter of the Mutiny stub's type beside an ``@GrpcClient`` field is not that client: its address is not
    known (it took the field's)."""
    clients = QUARKUS_CLIENTS.replace('''    Object notAMethod() {''', '''    Object viaParameter(MutinyLocationsGrpc.MutinyLocationsStub other) {
        return other.hello(null);
    }

    Object notAMethod() {''')
    root = _geo(tmp_path, clients)
    nodes, _ = CodeGraph.build(root).snapshot()
    address = {p["declaring_fqn"].rsplit("#", 1)[-1]: p["channel_address"]
               for p in (n.props for n in nodes.values() if n.kind == "client")}
    assert address == {"random()": "localhost:8089", "hello()": "geo-service:9000",
                       "viaParameter(MutinyLocationsStub)": "{other}"}, address


def test_a_url_whose_port_is_not_a_number_names_no_service():
    """``endpoint + path`` without the slash (the unused arm of ``endsWith("/") ? e + p : e + "/" + p``) on
    ``http://catalog:80`` is ``http://catalog:80health``: no request reaches catalog as written, so it names no
    service and the reason says why (before: host catalog, path ``/``, a ``no_route`` link to ``GET /``)."""
    split = split_url(literal("http://catalog:80health"))
    assert (split.host, split.source) == (None, "malformed")
    assert "port '80health' is not a number" in split.path.why[-1]
    for fine in ("http://catalog:80/health", "http://catalog/health", "http://user:pw@catalog:80/x",
                 "http://catalog:${CATALOG_PORT}/health", "http://catalog:{?}/health"):
        assert split_url(literal(fine)).host.text == "catalog", fine


def test_a_malformed_value_of_a_choice_draws_no_link(tmp_path: Path):
    write_tree(tmp_path, {
        "ui/pom.xml": _pom("ui"),
        "ui/src/main/java/a/Topo.java": '''package a;
import org.springframework.web.reactive.function.client.WebClient;
public class Topo {
  private final WebClient webClient = WebClient.create();
  public void all() { probe("http://catalog:80"); }
  private void probe(String endpoint) { webClient.get().uri(joinPath(endpoint, "health")).retrieve(); }
  private String joinPath(String endpoint, String path) {
    return endpoint.endsWith("/") ? endpoint + path : endpoint + "/" + path;
  }
}
''',
        "catalog/go.mod": "module catalog\n\ngo 1.21\n",
        "catalog/main.go": 'package main\nimport "net/http"\nfunc main() { http.HandleFunc("/health", '
                           'func(w http.ResponseWriter, r *http.Request) {}); http.ListenAndServe(":80", nil) }\n',
    })
    graph = CodeGraph.build(tmp_path)
    nodes = {node.id: node for node in graph.service_nodes}
    calls = [(nodes[edge.dst].name if edge.dst in nodes else edge.dst, edge.props["match"])
             for edge in graph.service_edges if edge.type == "HTTP_CALLS"]
    assert calls == [("ANY /health", "cross_service")]
    client = next(node for node in graph.service_nodes if node.kind == "client" and node.props["resolved"])
    assert "http://catalog:80health is malformed" in client.props["match_detail"]
