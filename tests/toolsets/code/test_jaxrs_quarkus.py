"""JAX-RS and MicroProfile: resources whose ``@Path`` and ``@GET``... are on an interface they implement (Java and
Kotlin), MicroProfile Rest Client interfaces with their base URL from ``quarkus.rest-client.<key>.url`` (a
``%prod.`` profile value too) or ``<key>/mp-rest/url``, and Reactive Messaging channels (``@Incoming``,
``@Outgoing``, a ``@Channel`` ``Emitter``) whose topics come from ``mp.messaging.*``."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph


def _pom(name: str) -> str:
    return (f"<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>{name}</artifactId>"
            "<version>1</version></project>\n")


STOCK_API = '''package com.acme.stock.api;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;

@Path("/stock")
public interface StockApi {
    @GET
    @Path("/{sku}")
    String level(String sku);

    @POST
    String reserve(String body);
}
'''

STOCK_RESOURCE = '''package com.acme.stock

import com.acme.stock.api.StockApi
import jakarta.ws.rs.DELETE
import jakarta.ws.rs.Path

class StockResource : StockApi {
    override fun level(sku: String): String = sku

    override fun reserve(body: String): String = body

    @DELETE
    @Path("/{sku}")
    fun release(sku: String) {}
}
'''

STOCK_EVENTS = '''package com.acme.stock;

import org.eclipse.microprofile.reactive.messaging.Incoming;

public class OrderEvents {
    @Incoming("orders-in")
    public void onOrder(String order) { }

    @Incoming("loose")
    public void onLoose(String order) { }
}
'''

STOCK_PROPS = '''quarkus.application.name=stock-service
mp.messaging.incoming.orders-in.connector=smallrye-kafka
mp.messaging.incoming.orders-in.topic=orders.placed
'''

CLIENTS = '''package com.acme.shop;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

@Path("/stock")
@RegisterRestClient(configKey = "stock")
public interface StockClient {
    @GET
    @Path("/{sku}")
    String level(String sku);
}

@RegisterRestClient(configKey = "legacy")
interface LegacyClient extends com.acme.stock.api.StockApi {
}

@Path("/x")
@RegisterRestClient(configKey = "nowhere")
interface Unconfigured {
    @GET
    String get();
}
'''

SHOP_EVENTS = '''package com.acme.shop;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

public class Checkout {
    @Channel("orders-out")
    Emitter<String> orders;

    public void place(String order) {
        orders.send(order);
    }
}
'''

RAW_CLIENT = '''package com.acme.shop;

import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.WebTarget;

public class StockCalls {
    private static final String BASE = "http://stock-service:8080";
    private WebTarget stock = ClientBuilder.newClient().target(BASE);

    String level(String sku) {
        return ClientBuilder.newClient().target(BASE).path("stock").path(sku).request().get(String.class);
    }

    void reserve(String body) {
        stock.path("/stock")
            .request()
            .async()
            .post(Entity.json(body));
    }

    void audit() {
        stock.path("audit").request().method("PATCH");
    }
}
'''

SHOP_PROPS = '''quarkus.application.name=shop
%test.quarkus.rest-client.stock.url=http://localhost:8081
quarkus.rest-client.stock.url=http://localhost:9999
%prod.quarkus.rest-client.stock.url=http://stock-service:8080
legacy/mp-rest/url=http://stock-service:8080
mp.messaging.outgoing.orders-out.connector=smallrye-kafka
mp.messaging.outgoing.orders-out.topic=orders.placed
'''


def test_jaxrs_interfaces_rest_clients_and_channels(tmp_path: Path):
    root = write_tree(tmp_path, {
        "stock-api/pom.xml": _pom("stock-api"),
        "stock-api/src/main/java/com/acme/stock/api/StockApi.java": STOCK_API,
        "stock/pom.xml": _pom("stock"),
        "stock/Dockerfile": "FROM eclipse-temurin:17\n",
        "stock/src/main/resources/application.properties": STOCK_PROPS,
        "stock/src/main/kotlin/com/acme/stock/StockResource.kt": STOCK_RESOURCE,
        "stock/src/main/java/com/acme/stock/OrderEvents.java": STOCK_EVENTS,
        "shop/pom.xml": _pom("shop"),
        "shop/Dockerfile": "FROM eclipse-temurin:17\n",
        "shop/src/main/resources/application.properties": SHOP_PROPS,
        "shop/src/main/java/com/acme/shop/StockClient.java": CLIENTS,
        "shop/src/main/java/com/acme/shop/Checkout.java": SHOP_EVENTS,
        "shop/src/main/java/com/acme/shop/StockCalls.java": RAW_CLIENT,
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    services = {n.name: n.props for n in nodes.values() if n.kind == "microservice"}
    assert services["stock-service"]["name_source"] == "quarkus.application.name"
    shop_config = services["shop"]["config"]                # what the service's describe shows, file:line
    props = "shop/src/main/resources/application.properties"
    assert f"quarkus.rest-client.stock.url: http://localhost:9999 ({props}:3)" in shop_config
    assert f"quarkus.rest-client.stock.url: http://stock-service:8080 ({props}:4, profile prod)" in shop_config
    assert f"mp.messaging.outgoing.orders-out.topic: orders.placed ({props}:7)" in shop_config
    assert not any("8081" in line for line in shop_config)   # %test runs the tests only
    routes = {(p["framework"], p.get("http_method"), p.get("path_template") or p.get("topic"), p["line"])
              for p in (n.props for n in nodes.values() if n.kind == "route")}
    assert routes == {
        ("jaxrs", "GET", "/stock/{sku}", 8),        # the interface's @Path and @GET, at the Kotlin override
        ("jaxrs", "POST", "/stock", 10),
        ("jaxrs", "DELETE", "/stock/{sku}", 12),
        ("smallrye_messaging", None, "orders.placed", 6),   # mp.messaging.incoming.orders-in.topic
        ("smallrye_messaging", None, "loose", 9),           # no connector: the channel's name, unresolved
    }
    loose = next(n.props for n in nodes.values() if n.kind == "route" and n.props.get("topic") == "loose")
    assert not loose["resolved"] and "names no connector" in loose["unresolved_reason"]

    clients = {(p["line"], p["http_method"]): p for p in (n.props for n in nodes.values() if n.kind == "client")
               if p["client_kind"] == "mp_rest_client" or p["file"].endswith("StockCalls.java")}
    assert {key: (p["client_kind"], p["target_service"], p["match"]) for key, p in clients.items()} == {
        (10, "GET"): ("mp_rest_client", "stock-service", "cross_service"),  # the %prod. URL (localhost: nothing)
        (15, "GET"): ("mp_rest_client", "stock-service", "cross_service"),  # inherited, legacy/mp-rest/url
        (15, "POST"): ("mp_rest_client", "stock-service", "cross_service"),
        (22, "GET"): ("mp_rest_client", None, "unresolved"),
        (12, "GET"): ("jaxrs_client", "stock-service", "cross_service"),     # target + path + path, folded
        (16, "POST"): ("jaxrs_client", "stock-service", "cross_service"),    # a WebTarget field's target(...)
        (23, "PATCH"): ("jaxrs_client", "stock-service", "no_route"),        # a path the service does not serve
    }
    assert "quarkus.rest-client.nowhere.url" in clients[(22, "GET")]["unresolved_reason"]
    # what is written names the key that gives the URL, its values as people read them
    assert clients[(10, "GET")]["target_path"] == ('quarkus.rest-client.stock.url={http://localhost:9999|'
                                                  'http://stock-service:8080} + "/stock" + "/{sku}"')
    assert clients[(15, "GET")]["target_path"] == 'legacy/mp-rest/url=http://stock-service:8080 + "/stock" + "/{sku}"'
    by_id = {n.id: n for n in nodes.values()}
    sent = [(by_id[e.src].props["line"], by_id[e.dst].props["topic"]) for e in edges.values()
            if e.type == "ASYNC_CALLS" and by_id[e.src].props.get("producer_kind") == "smallrye_messaging"]
    assert sent == [(11, "orders.placed")]                  # the emitter's send, to the listener of the topic


FALLBACK_CLIENT = '''package com.acme.shop;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

@Path("/stock")
@RegisterRestClient(configKey = "stock")
public interface StockClient {
    @GET
    String all();
}
'''

FALLBACK = '''package com.acme.shop;

public class StockFallback implements StockClient {
    public String all() { return ""; }
}
'''


def test_a_class_implementing_a_rest_client_interface_serves_none_of_its_paths(tmp_path: Path):
    root = write_tree(tmp_path, {
        "shop/pom.xml": _pom("shop"),
        "shop/Dockerfile": "FROM eclipse-temurin:17\n",
        "shop/src/main/resources/application.properties": "quarkus.rest-client.stock.url=http://stock:8080\n",
        "shop/src/main/java/com/acme/shop/StockClient.java": FALLBACK_CLIENT,
        "shop/src/main/java/com/acme/shop/StockFallback.java": FALLBACK,
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    assert [n.props["file"] for n in nodes.values() if n.kind == "route"] == []   # the fallback is no resource
    assert [(n.props["client_kind"], n.props["http_method"]) for n in nodes.values() if n.kind == "client"] == [
        ("mp_rest_client", "GET")]


def _resource(package: str, path: str) -> str:
    return f'''package com.acme.{package};

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

@Path("/{path}")
public class Resource {{
    @GET
    public String all() {{ return ""; }}
}}
'''


TARGETS = '''package com.acme.shop;

import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.WebTarget;

public class Calls {
    private final Client client = ClientBuilder.newClient();
    private final WebTarget orders = client.target("http://orders:8080");

    String both() {
        String invoices = client.target("http://billing:8080").path("invoices").request().get(String.class);
        return orders.path("orders").request().get(String.class);
    }

    String local() {
        WebTarget billing = client.target("http://billing:8080");
        return billing.path("invoices").request().get(String.class);
    }
}
'''


def test_a_webtarget_field_takes_its_initialiser_not_a_target_of_the_method(tmp_path: Path):
    root = write_tree(tmp_path, {
        "orders/pom.xml": _pom("orders"), "orders/Dockerfile": "FROM eclipse-temurin:17\n",
        "orders/src/main/java/com/acme/orders/Resource.java": _resource("orders", "orders"),
        "billing/pom.xml": _pom("billing"), "billing/Dockerfile": "FROM eclipse-temurin:17\n",
        "billing/src/main/java/com/acme/billing/Resource.java": _resource("billing", "invoices"),
        "shop/pom.xml": _pom("shop"), "shop/Dockerfile": "FROM eclipse-temurin:17\n",
        "shop/src/main/java/com/acme/shop/Calls.java": TARGETS,
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    assert sorted((p["line"], p["label"], p["match"]) for p in (n.props for n in nodes.values() if n.kind == "client")
                  ) == [(12, "GET billing /invoices", "cross_service"),
                        (13, "GET orders /orders", "cross_service"),      # the field's, not line 12's target
                        (18, "GET billing /invoices", "cross_service")]   # a local's: its method's one target


PROFILED_LISTENER = '''package com.acme.stock;

import org.eclipse.microprofile.reactive.messaging.Incoming;

public class Orders {
    @Incoming("orders-in")
    void on(String order) {}
}
'''


def test_a_channel_whose_connector_differs_by_profile_says_so_and_links_nothing(tmp_path: Path):
    root = write_tree(tmp_path, {
        "stock/pom.xml": _pom("stock"), "stock/Dockerfile": "FROM eclipse-temurin:17\n",
        "stock/src/main/resources/application.properties": (
            "mp.messaging.incoming.orders-in.connector=smallrye-kafka\n"
            "%dev.mp.messaging.incoming.orders-in.connector=smallrye-in-memory\n"
            "mp.messaging.incoming.orders-in.topic=orders\n"),
        "stock/src/main/java/com/acme/stock/Orders.java": PROFILED_LISTENER,
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    route = next(n.props for n in nodes.values() if n.kind == "route")
    assert (route["label"], route["broker"], route["resolved"]) == ("channel orders-in", "channel", False)
    assert "({smallrye-kafka|smallrye-in-memory})" in route["unresolved_reason"]
