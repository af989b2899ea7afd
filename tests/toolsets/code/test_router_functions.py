"""Spring's functional endpoints: ``RouterFunctions.route(GET(..), h::m)`` and each ``.andRoute(..)``, a builder's
``route().GET(..).POST(..)``, under the context path; a route nested under a prefix (``nest``, ``andNest``, a method a
nest's arguments call) stays unresolved (its full path is not known), and a file that does not use the API is not read for ``route(..)`` calls."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

ROUTES = '''package shop;

import static org.springframework.web.reactive.function.server.RequestPredicates.*;

import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

public class Routes {
    static final String ORDERS = "/orders";

    @Bean
    public RouterFunction<ServerResponse> orders(OrderHandlers h) {
        return RouterFunctions.route(GET(ORDERS + "/{id}"), h::get)
                .andRoute(POST(ORDERS).and(accept(MediaType.APPLICATION_JSON)), h::create);
    }

    @Bean
    public RouterFunction<ServerResponse> tickets(TicketHandlers h) {
        return RouterFunctions.route()
                .GET("/tickets/{id}", h::get)
                .DELETE("/tickets/{id}", h::delete)
                .build();
    }

    @Bean
    public RouterFunction<ServerResponse> nested(TicketHandlers h) {
        return RouterFunctions.nest(path("/api"), RouterFunctions.route(GET("/ping"), h::ping));
    }

    @Bean
    public RouterFunction<ServerResponse> status(TicketHandlers h) {
        return RouterFunctions.route(GET("/health"), h::health)
                .andNest(path("/api"), RouterFunctions.route(GET("/status"), h::status));
    }

    @Bean
    public RouterFunction<ServerResponse> versioned(TicketHandlers h) {
        return RouterFunctions.nest(path("/v2"), inner(h));
    }

    RouterFunction<ServerResponse> inner(TicketHandlers h) {
        return RouterFunctions.route(GET("/items"), h::items);
    }
}
'''

NOT_WEBFLUX = '''package shop;

public class Planner {
    Object plan(Router r) {
        return r.route(GET("/nowhere"), this::plan);
    }
}
'''


def test_functional_routes_are_routes(tmp_path: Path):
    root = write_tree(tmp_path / "shop", {
        "pom.xml": "<project><artifactId>shop</artifactId></project>\n",
        "src/main/resources/application.properties": "spring.webflux.base-path=/v1\n",
        "src/main/java/shop/Routes.java": ROUTES, "src/main/java/shop/Planner.java": NOT_WEBFLUX})
    nodes, _ = CodeGraph.build(root).snapshot()
    routes = {(p["http_method"], p["path_template"], p["line"], p["resolved"]) for p in
              (n.props for n in nodes.values() if n.kind == "route")}
    assert routes == {("GET", "/v1/orders/{id}", 15, True), ("POST", "/v1/orders", 16, True),
                      ("GET", "/v1/tickets/{id}", 22, True), ("DELETE", "/v1/tickets/{id}", 23, True),
                      ("GET", "/v1/{?}/ping", 29, False),
                      # andNest, and a method whose routes a nest's arguments build (a route of a nesting method is
                      # read as nested, /health too: which calls the nest's arguments hold is not known)
                      ("GET", "/v1/{?}/health", 34, False), ("GET", "/v1/{?}/status", 35, False),
                      ("GET", "/v1/{?}/items", 44, False)}
    for route in (n.props for n in nodes.values() if n.kind == "route" and not n.props["resolved"]):
        assert "nested under a prefix" in route["unresolved_reason"]
