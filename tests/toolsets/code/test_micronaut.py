"""Micronaut: controllers whose mappings are declared on an interface in another module, declarative
``@Client`` interfaces (by service id, by a URL folded from ``application.yml``, inherited methods, ``path``),
the low-level ``HttpClient``, ``@KafkaClient``/``@KafkaListener`` and ``@RabbitClient``/``@RabbitListener``
topics, and ``micronaut.application.name`` as the service's name."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph


def _pom(name: str) -> str:
    return (f"<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>{name}</artifactId>"
            "<version>1</version></project>\n")


API = '''package com.acme.orders.api;

import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;

public interface OrderOperations {
    @Get("/{id}")
    String get(String id);

    @Post(uris = {"/", "/bulk"})
    String create(String body);

    @Get(uri = "/count")
    int count();
}
'''

CONTROLLER = '''package com.acme.orders.web;

import com.acme.orders.api.OrderOperations;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;

@Controller("/orders")
public class OrdersController implements OrderOperations {
    @Override
    public String get(String id) { return id; }

    @Override
    public String create(String body) { return body; }

    @Delete("/{id}")
    public void remove(String id) { }
}
'''

LISTENER = '''package com.acme.orders.events;

import io.micronaut.configuration.kafka.annotation.KafkaListener;
import io.micronaut.configuration.kafka.annotation.Topic;
import io.micronaut.rabbitmq.annotation.Queue;
import io.micronaut.rabbitmq.annotation.RabbitListener;

@KafkaListener(groupId = "orders")
public class PaymentListener {
    @Topic("${app.topics.paid}")
    void onPaid(String event) { }
}

@RabbitListener
class AuditListener {
    @Queue("audit")
    void onAudit(String event) { }
}
'''

ORDERS_YML = '''micronaut:
  application:
    name: orders-service
app:
  topics:
    paid: payment-completed
'''

CLIENT = '''package com.acme.shop

import com.acme.orders.api.OrderOperations
import io.micronaut.http.annotation.Get
import io.micronaut.http.client.annotation.Client

@Client(id = "orders-service", path = "/orders")
interface OrdersClient : OrderOperations {
    @Get("/{id}")
    override fun get(id: String): String
}
'''

JAVA_CLIENTS = '''package com.acme.shop;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.configuration.kafka.annotation.KafkaClient;
import io.micronaut.configuration.kafka.annotation.Topic;
import io.micronaut.rabbitmq.annotation.Binding;
import io.micronaut.rabbitmq.annotation.RabbitClient;

@Client("${orders.url}")
interface OrdersByUrl {
    @Get("/orders/count")
    int count();
}

@Client("https://api.example.com")
interface Outside {
    @Get("/orders/count")
    int count();
}

@KafkaClient
interface PaymentEvents {
    @Topic("payment-completed")
    void paid(String event);
}

@RabbitClient
interface Audit {
    @Binding("audit")
    void send(String event);
}

class Raw {
    @Client("http://orders:8080")
    HttpClient client;

    String count() {
        return client.toBlocking().retrieve(HttpRequest.GET("/orders/count"));
    }
}
'''

SHOP_YML = '''micronaut:
  application:
    name: shop
orders:
  url: http://orders-service:8080
'''


def _simple(fqn: str) -> str:
    return fqn.split("(", 1)[0].replace("#", ".").rsplit(".", 1)[-1]


def test_micronaut_routes_clients_and_messages(tmp_path: Path):
    root = write_tree(tmp_path, {
        "orders-api/pom.xml": _pom("orders-api"),
        "orders-api/src/main/java/com/acme/orders/api/OrderOperations.java": API,
        "orders/pom.xml": _pom("orders"),
        "orders/Dockerfile": "FROM eclipse-temurin:17\n",
        "orders/src/main/resources/application.yml": ORDERS_YML,
        "orders/src/main/java/com/acme/orders/web/OrdersController.java": CONTROLLER,
        "orders/src/main/java/com/acme/orders/events/PaymentListener.java": LISTENER,
        "shop/pom.xml": _pom("shop-app"),
        "shop/Dockerfile": "FROM eclipse-temurin:17\n",
        "shop/src/main/resources/application.yml": SHOP_YML,
        "shop/src/main/kotlin/com/acme/shop/OrdersClient.kt": CLIENT,
        "shop/src/main/java/com/acme/shop/Clients.java": JAVA_CLIENTS,
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    services = {n.name: n.props for n in nodes.values() if n.kind == "microservice"}
    assert {"orders-service", "shop"} <= set(services)
    assert services["orders-service"]["name_source"] == "micronaut.application.name"

    routes = {(p["framework"], p.get("http_method"), p.get("path_template") or p.get("topic"), _simple(p["handler_fqn"]))
              for p in (n.props for n in nodes.values() if n.kind == "route")}
    assert routes == {
        ("micronaut", "GET", "/orders/{id}", "get"),              # the interface's mapping, at the override
        ("micronaut", "POST", "/orders", "create"),              # each of uris
        ("micronaut", "POST", "/orders/bulk", "create"),
        ("micronaut", "GET", "/orders/count", "OrdersController"),  # inherited, not redeclared: at the class
        ("micronaut", "DELETE", "/orders/{id}", "remove"),
        ("micronaut_kafka", None, "payment-completed", "onPaid"),  # ${...} folded from application.yml
        ("micronaut_rabbit", None, "audit", "onAudit"),
    }

    by_id = {n.id: n for n in nodes.values()}
    links = {}
    for edge in edges.values():
        if edge.type in ("HTTP_CALLS", "ASYNC_CALLS"):
            src, dst = by_id[edge.src].props, by_id[edge.dst].props
            links.setdefault((src["file"].rsplit("/", 1)[-1], src.get("http_method") or src.get("topic")), set()).add(
                (dst.get("path_template") or dst.get("topic"), edge.props.get("match")))
    assert links[("OrdersClient.kt", "GET")] == {("/orders/{id}", "cross_service"),       # redeclared
                                                 ("/orders/count", "cross_service")}      # inherited
    assert links[("OrdersClient.kt", "POST")] == {("/orders", "cross_service"), ("/orders/bulk", "cross_service")}
    assert links[("Clients.java", "payment-completed")] == {("payment-completed", "cross_service")}
    assert links[("Clients.java", "audit")] == {("audit", "cross_service")}
    clients = {(p["client_kind"], p["line"]): p for p in (n.props for n in nodes.values() if n.kind == "client")}
    by_url = clients[("micronaut_client", 14)]
    assert (by_url["target_service"], by_url["match"]) == ("orders-service", "cross_service")
    outside = clients[("micronaut_client", 20)]
    assert outside["match"] == "unresolved"                               # no service of the project
    raw = clients[("micronaut_http_client", 41)]                          # the @Client field's URL + the request's
    assert (raw["http_method"], raw["target_service"], raw["match"]) == ("GET", "orders-service", "cross_service")


LOW_LEVEL = '''package com.acme.shop;

import io.micronaut.configuration.kafka.streams.ConfiguredStreamBuilder;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import org.apache.kafka.streams.kstream.KStream;

class Streams {
    KStream<String, String> orders(ConfiguredStreamBuilder builder) {
        return builder.stream("orders-service");
    }
}

class Raw {
    @Client("http://orders:8080")
    HttpClient client;

    String count() {
        return client.toBlocking().retrieve("/orders/count");
    }

    String all() {
        return client.retrieve("/orders/count");
    }
}
'''


def test_only_an_http_clients_retrieve_of_a_written_uri_is_a_request(tmp_path: Path):
    root = write_tree(tmp_path, {
        "orders-api/pom.xml": _pom("orders-api"),
        "orders-api/src/main/java/com/acme/orders/api/OrderOperations.java": API,
        "orders/pom.xml": _pom("orders"),
        "orders/Dockerfile": "FROM eclipse-temurin:17\n",
        "orders/src/main/resources/application.yml": ORDERS_YML,
        "orders/src/main/java/com/acme/orders/web/OrdersController.java": CONTROLLER,
        "shop/pom.xml": _pom("shop"),
        "shop/Dockerfile": "FROM eclipse-temurin:17\n",
        "shop/src/main/java/com/acme/shop/Low.java": LOW_LEVEL,
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = sorted((p["line"], p["target_service"], p["match"]) for p in (n.props for n in nodes.values()
                                                                             if n.kind == "client"))
    # a Kafka Streams builder's stream("topic") (line 10) sends no request, whatever the topic is named
    assert clients == [(19, "orders-service", "cross_service"), (23, "orders-service", "cross_service")]


def _orders_billing_and_shop() -> dict[str, str]:
    """orders (serving the API), billing (no routes) and a shop whose own files each test adds."""
    return {
        "orders-api/pom.xml": _pom("orders-api"),
        "orders-api/src/main/java/com/acme/orders/api/OrderOperations.java": API,
        "orders/pom.xml": _pom("orders"),
        "orders/Dockerfile": "FROM eclipse-temurin:17\n",
        "orders/src/main/resources/application.yml": ORDERS_YML,
        "orders/src/main/java/com/acme/orders/web/OrdersController.java": CONTROLLER,
        "billing/pom.xml": _pom("billing"),
        "billing/Dockerfile": "FROM eclipse-temurin:17\n",
        "shop/pom.xml": _pom("shop"),
        "shop/Dockerfile": "FROM eclipse-temurin:17\n",
    }


def _orders_client(client_id: str) -> str:
    """The shop's declarative client of the orders API, under the service id ``client_id``."""
    return f'''package com.acme.shop;

import io.micronaut.http.annotation.Get;
import io.micronaut.http.client.annotation.Client;

@Client(id = "{client_id}")
interface Orders {{
    @Get("/orders/{{id}}")
    String get(String id);
}}
'''


def test_a_client_id_two_profiles_set_apart_is_followed_once_per_value(tmp_path: Path):
    root = write_tree(tmp_path, {
        **_orders_billing_and_shop(),
        "shop/src/main/resources/application.yml": "orders:\n  id: orders-service\n",
        "shop/src/main/resources/application-dev.yml": "orders:\n  id: billing\n",
        "shop/src/main/java/com/acme/shop/Orders.java": _orders_client("${orders.id}"),
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    client = next(n.props for n in nodes.values() if n.kind == "client")
    assert client["label"] == "GET ? /orders/{id}"          # one of two services: neither is named alone
    assert "no route of billing fits GET /orders/{id}" in client["match_detail"]
    reached = {nodes[e.dst].props.get("path_template") or nodes[e.dst].name for e in edges.values()
               if e.type == "HTTP_CALLS"}
    assert reached == {"/orders/{id}", "billing"}             # the route of one, the other service (no route)


def _copied_api(path: str) -> str:
    return f'''package com.acme.api;

import io.micronaut.http.annotation.Get;

public interface OrdersApi {{
    @Get("{path}")
    String get(String id);
}}
'''


COPIED_CONTROLLER = '''package com.acme.web;

import com.acme.api.OrdersApi;
import io.micronaut.http.annotation.Controller;

@Controller("/")
public class OrdersController implements OrdersApi {
    public String get(String id) { return id; }
}
'''


def test_an_interface_two_services_each_declare_is_their_own(tmp_path: Path):
    files = {}
    for service in ("alpha", "beta"):   # one fqn, two copies: each controller implements its own service's
        files.update({f"{service}/pom.xml": _pom(service), f"{service}/Dockerfile": "FROM eclipse-temurin:17\n",
                      f"{service}/src/main/java/com/acme/api/OrdersApi.java": _copied_api(f"/{service}/{{id}}"),
                      f"{service}/src/main/java/com/acme/web/OrdersController.java": COPIED_CONTROLLER})
    nodes, _ = CodeGraph.build(write_tree(tmp_path, files)).snapshot()
    assert sorted((n.props["microservice"], n.props["label"]) for n in nodes.values() if n.kind == "route") == [
        ("alpha", "GET /alpha/{id}"), ("beta", "GET /beta/{id}")]


def test_a_client_id_the_settings_give_an_address_calls_that_address(tmp_path: Path):
    root = write_tree(tmp_path, {
        **_orders_billing_and_shop(),
        "shop/src/main/resources/application.yml": ("micronaut:\n  http:\n    services:\n      orders-service:\n"
                                                    "        urls:\n          - http://billing:8080\n"),
        "shop/src/main/java/com/acme/shop/Orders.java": _orders_client("orders-service"),
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    client = next(n.props for n in nodes.values() if n.kind == "client")
    # micronaut.http.services.<id>.urls, not discovery by the id, decides where the client calls
    assert (client["target_service"], client["match"], client["base_url"]) == ("billing", "no_route",
                                                                               "http://billing:8080")


OVERRIDING_CLIENTS = {
    "shop/src/main/java/com/acme/shop/OrdersClient.java": '''package com.acme.shop;

import io.micronaut.http.annotation.Post;
import io.micronaut.http.client.annotation.Client;
import com.acme.orders.api.OrderOperations;

@Client(id = "orders-service", path = "/orders")
interface OrdersClient extends OrderOperations {

    @Override
    @Post("/bulk")
    String create(String body);
}
''',
    "shop/src/main/java/com/acme/shop/FeignOrders.java": '''package com.acme.shop;

import org.springframework.cloud.openfeign.FeignClient;
import org.springframework.web.bind.annotation.GetMapping;

@FeignClient(name = "orders-service")
interface FeignOrders {
    @Override
    @Deprecated
    @GetMapping("/orders/{id}")
    String get(String id);
}
''',
    "shop/src/main/java/com/acme/shop/ExchangeOrders.java": '''package com.acme.shop;

import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;

@HttpExchange("http://orders-service")
interface ExchangeOrders {
    @Override
    @GetExchange("/orders/{id}")
    String get(String id);
}
''',
}


def test_a_declarative_client_method_is_at_its_mapping_line_not_an_annotation_above(tmp_path: Path):
    root = write_tree(tmp_path, {**_orders_billing_and_shop(), **OVERRIDING_CLIENTS})
    nodes, _ = CodeGraph.build(root).snapshot()
    lines = {(n.props["file"].rsplit("/", 1)[-1], n.props["label"]): n.props["line"] for n in nodes.values()
             if n.kind == "client"}
    assert lines == {("OrdersClient.java", "POST orders-service /orders/bulk"): 11,
                     ("OrdersClient.java", "GET orders-service /orders/{id}"): 7,   # inherited: at the interface
                     ("OrdersClient.java", "GET orders-service /orders/count"): 7,
                     ("FeignOrders.java", "GET orders-service /orders/{id}"): 10,
                     ("ExchangeOrders.java", "GET orders-service /orders/{id}"): 9}


PROVIDER = '''package com.acme.auth;

import io.micronaut.http.HttpRequest;
import io.micronaut.security.authentication.{base};
import io.micronaut.security.authentication.AuthenticationRequest;

@Singleton
public class Agents implements {base}{generic} {{

    @Override
    public Object authenticate(HttpRequest<?> request, AuthenticationRequest<?, ?> credentials) {{
        return null;
    }}
}}
'''


@pytest.mark.parametrize(("base", "generic", "settings", "expected"), [
    ("AuthenticationProvider", "", "", {("POST /login", 10)}),
    ("HttpRequestAuthenticationProvider", "<HttpRequest<?>>", "", {("POST /login", 10)}),
    ("ReactiveAuthenticationProvider", "<HttpRequest<?>, String, String>",
     "  server:\n    context-path: /auth\n  security:\n    endpoints:\n      login:\n        path: /signin\n",
     {("POST /auth/signin", 10)}),
    ("AuthenticationProvider", "",
     "  security:\n    endpoints:\n      login:\n        enabled: false\n", set()),
])
def test_an_authentication_provider_is_behind_the_frameworks_login_route(tmp_path: Path, base, generic, settings,
                                                                         expected):
    """Micronaut Security serves ``POST /login`` (``micronaut.security.endpoints.login``: enabled unless set false,
    at ``path``) and calls the application's AuthenticationProvider: the route is filed at its ``authenticate``."""
    root = write_tree(tmp_path, {
        "auth/pom.xml": _pom("auth"),
        "auth/Dockerfile": "FROM eclipse-temurin:17\n",
        "auth/src/main/resources/application.yml": "micronaut:\n  application:\n    name: auth-service\n" + settings,
        "auth/src/main/java/com/acme/auth/Agents.java": PROVIDER.format(base=base, generic=generic),
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    routes = {(n.props["label"], n.props["line"]) for n in nodes.values() if n.kind == "route"}
    assert routes == expected
