"""JAX-RS requests made through a project's own client library: a request helper that turns a ``WebTarget`` into an
``Invocation.Builder``, a project method that hands out a ``WebTarget`` made at run time (a registry's client),
and a shared helper that takes an enum constant naming the service and a callback that builds the request. The
service is the enum constant's value; the path's known end is matched against the ends of that service's routes;
what cannot be told stays unresolved, saying why."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph


def _pom(name: str) -> str:
    return (f"<project><modelVersion>4.0.0</modelVersion><groupId>org.demo</groupId><artifactId>{name}</artifactId>"
            "<version>1</version></project>\n")


CATALOG = '''package org.demo.catalog;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;

@Path("/items")
public class ItemResource {
    @GET
    @Path("/featured")
    public String featured() { return "[]"; }

    @GET
    @Path("/{id}")
    public String one(String id) { return "{}"; }

    @POST
    @Path("/featured/refresh")
    public String refresh() { return "ok"; }

    @GET
    @Path("/finished")
    public String itemsDone() { return "true"; }
}
'''

CATALOG_STOCK = '''package org.demo.catalog;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

@Path("/stock")
public class StockResource {
    @GET
    @Path("/finished")
    public String stockDone() { return "true"; }
}
'''

BACKEND = '''package org.demo.shop.lb;

public enum Backend {
    CATALOG("catalog"),
    PAYMENTS("payments"),
    LEGACY;

    private final String id;

    Backend(String id) { this.id = id; }

    Backend() { this.id = null; }

    public String id() { return id; }
}
'''

ENDPOINT = '''package org.demo.shop.lb;

import jakarta.ws.rs.client.WebTarget;

public class Endpoint {
    private final WebTarget root;

    Endpoint(WebTarget root) { this.root = root; }

    public WebTarget base() { return root; }
}
'''

POOL = '''package org.demo.shop.lb;

import java.util.function.Function;

public final class Pool {
    public static <R> R send(Backend backend, String resource, Function<Endpoint, R> work) {
        return work.apply(Registry.pick(backend.id(), resource));
    }

    public static <R> R sendAs(Backend backend, String resource, Class<R> type, Function<Endpoint, R> work) {
        return work.apply(Registry.pick(backend.id(), resource));
    }
}
'''

JSON = '''package org.demo.shop.lb;

import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.client.WebTarget;

public final class Json {
    public static Invocation.Builder of(WebTarget target) {
        return target.request("application/json");
    }
}
'''

GATEWAY = '''package org.demo.shop;

import org.demo.shop.lb.Backend;
import org.demo.shop.lb.Endpoint;
import org.demo.shop.lb.Json;
import org.demo.shop.lb.Pool;

public class CatalogGateway {
    public String featured() {
        return Pool.send(Backend.CATALOG, "items",
            ep -> Json.of(ep.base().path("featured")).get(String.class));
    }

    public String refresh() {
        return Pool.send(Backend.CATALOG, "items",
            ep -> ep.base().path("featured").path("refresh").request().post(null, String.class));
    }

    public String finished() {
        return Pool.send(Backend.CATALOG, "status",
            ep -> Json.of(ep.base().path("finished")).get(String.class));
    }

    public String pay() {
        return Pool.send(Backend.PAYMENTS, "charges",
            ep -> Json.of(ep.base().path("charge")).post(null, String.class));
    }

    public String legacy() {
        return Pool.send(Backend.LEGACY, "items",
            ep -> Json.of(ep.base().path("featured")).get(String.class));
    }

    public String given(Endpoint ep) {
        return Json.of(ep.base().path("featured")).get(String.class);
    }

    public String search(String text, String sort, String page, String size) {
        return Pool.send(Backend.CATALOG, "items",
            ep -> Json.of(ep.base().path("featured").queryParam("text", text).queryParam("sort", sort)
                .queryParam("page", page).queryParam("size", size).queryParam("lang", "en")
                .queryParam("currency", "EUR").queryParam("include", "stock")).get(String.class));
    }
}
'''


def test_requests_through_a_registry_helper(tmp_path: Path):
    root = write_tree(tmp_path, {
        "catalog/pom.xml": _pom("catalog"),
        "catalog/Dockerfile": "FROM eclipse-temurin:17\n",
        "catalog/src/main/java/org/demo/catalog/ItemResource.java": CATALOG,
        "catalog/src/main/java/org/demo/catalog/StockResource.java": CATALOG_STOCK,
        "shop/pom.xml": _pom("shop"),
        "shop/Dockerfile": "FROM eclipse-temurin:17\n",
        "shop/src/main/java/org/demo/shop/lb/Backend.java": BACKEND,
        "shop/src/main/java/org/demo/shop/lb/Endpoint.java": ENDPOINT,
        "shop/src/main/java/org/demo/shop/lb/Pool.java": POOL,
        "shop/src/main/java/org/demo/shop/lb/Json.java": JSON,
        "shop/src/main/java/org/demo/shop/CatalogGateway.java": GATEWAY,
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    clients = {p["line"]: p for p in (n.props for n in nodes.values() if n.kind == "client")
               if p["file"].endswith("CatalogGateway.java")}
    got = {line: (p["http_method"], p["target_service"], p["match"]) for line, p in clients.items()}
    assert got == {
        11: ("GET", "catalog", "cross_service"),       # through the request helper Json.of(target)
        16: ("POST", "catalog", "cross_service"),      # request() on the handed-out WebTarget itself
        21: ("GET", "catalog", "unresolved"),          # two routes of catalog end with /finished
        26: ("POST", "payments", "unresolved"),        # Backend.PAYMENTS = "payments": named, no service of ours
        31: ("GET", None, "unresolved"),               # Backend.LEGACY has no value
        35: ("GET", None, "unresolved"),               # a parameter's endpoint: who made it is not read
        40: ("GET", "catalog", "cross_service"),       # a long chain, its argument cut in the facts
    }
    routes = {n.id: n.props for n in nodes.values() if n.kind == "route"}
    linked = {clients[line]["line"]: routes[e.dst]["path_template"] for e in edges.values()
              if e.type == "HTTP_CALLS" for line in clients if e.src == _id(nodes, clients[line])}
    assert linked == {11: "/items/featured", 16: "/items/featured/refresh", 40: "/items/featured"}
    assert "end with /finished equally" in clients[21]["match_detail"]
    assert "not a microservice of this project" in clients[26]["match_detail"]
    assert "Backend.LEGACY has no value" in clients[31]["unresolved_reason"]


def _id(nodes, props) -> str:
    return next(n.id for n in nodes.values() if n.props is props)


AUDIT = '''package org.demo.shop.lb;

public final class Audit {
    public static void note(Backend backend) { }
}
'''

ELSEWHERE = '''package org.demo.shop;

import java.util.List;
import org.demo.shop.lb.Audit;
import org.demo.shop.lb.Backend;
import org.demo.shop.lb.Json;
import org.demo.shop.lb.Pool;
import org.demo.shop.lb.Endpoint;

public class Elsewhere {
    public String each(List<Endpoint> all) {
        Pool.send(Backend.CATALOG, "items", ep -> Json.of(ep.base().path("featured")).get(String.class));
        all.forEach(one -> Json.of(one.base().path("featured")).get(String.class));
        return "";
    }

    public String fourth() {
        return Pool.sendAs(Backend.CATALOG, "items", String.class,
            ep -> Json.of(ep.base().path("featured")).get(String.class));
    }

    public String noted() {
        return Pool.send(Backend.CATALOG, "items", ep -> {
            Audit.note(Backend.PAYMENTS);
            return Json.of(ep.base().path("featured")).get(String.class);
        });
    }
}
'''


def test_the_service_is_the_enum_of_the_call_that_hands_the_target_over(tmp_path: Path):
    """The enum argument counts only on the call whose lambda takes the request's WebTarget holder: not an earlier
    call of the method (a list's forEach), not a call inside the lambda that passes another constant."""
    root = write_tree(tmp_path, {
        "catalog/pom.xml": _pom("catalog"),
        "catalog/Dockerfile": "FROM eclipse-temurin:17\n",
        "catalog/src/main/java/org/demo/catalog/ItemResource.java": CATALOG,
        "shop/pom.xml": _pom("shop"),
        "shop/Dockerfile": "FROM eclipse-temurin:17\n",
        "shop/src/main/java/org/demo/shop/lb/Backend.java": BACKEND,
        "shop/src/main/java/org/demo/shop/lb/Endpoint.java": ENDPOINT,
        "shop/src/main/java/org/demo/shop/lb/Pool.java": POOL,
        "shop/src/main/java/org/demo/shop/lb/Json.java": JSON,
        "shop/src/main/java/org/demo/shop/lb/Audit.java": AUDIT,
        "shop/src/main/java/org/demo/shop/Elsewhere.java": ELSEWHERE,
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    got = {p["line"]: (p["target_service"], p["match"]) for p in (n.props for n in nodes.values()
                                                                  if n.kind == "client")
           if p["file"].endswith("Elsewhere.java")}
    assert got == {
        12: ("catalog", "cross_service"),   # handed over by Pool.send(Backend.CATALOG, .., ep -> ..)
        13: (None, "unresolved"),           # a list's endpoint: no call names its service
        19: ("catalog", "cross_service"),   # the lambda is an argument the facts do not keep (the fourth)
        25: ("catalog", "cross_service"),   # Audit.note(Backend.PAYMENTS) inside the lambda names nothing
    }


PARAMETER_ONLY = '''package org.demo.catalog;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

@Path("/items")
public class ItemResource {
    @GET
    @Path("/{id}")
    public String one(String id) { return "{}"; }
}
'''

ONE_CALL = '''package org.demo.shop;

import org.demo.shop.lb.Backend;
import org.demo.shop.lb.Json;
import org.demo.shop.lb.Pool;

public class CatalogGateway {
    public String featured() {
        return Pool.send(Backend.CATALOG, "items", ep -> Json.of(ep.base().path("featured")).get(String.class));
    }

    public String one() {
        return Pool.send(Backend.CATALOG, "items", ep -> Json.of(ep.base().path("items").path("7")).get(String.class));
    }
}
'''


def test_a_known_end_matched_by_route_parameters_alone_is_no_link(tmp_path: Path):
    """``{?}/featured`` against ``/items/{id}``: the parameter takes any segment, but no word of the end is the
    route's, so nothing ties the request to it (unresolved); ``{?}/items/7`` shares ``items`` and links."""
    root = write_tree(tmp_path, {
        "catalog/pom.xml": _pom("catalog"),
        "catalog/Dockerfile": "FROM eclipse-temurin:17\n",
        "catalog/src/main/java/org/demo/catalog/ItemResource.java": PARAMETER_ONLY,
        "shop/pom.xml": _pom("shop"),
        "shop/Dockerfile": "FROM eclipse-temurin:17\n",
        "shop/src/main/java/org/demo/shop/lb/Backend.java": BACKEND,
        "shop/src/main/java/org/demo/shop/lb/Endpoint.java": ENDPOINT,
        "shop/src/main/java/org/demo/shop/lb/Pool.java": POOL,
        "shop/src/main/java/org/demo/shop/lb/Json.java": JSON,
        "shop/src/main/java/org/demo/shop/CatalogGateway.java": ONE_CALL,
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    got = {p["line"]: (p["target_service"], p["match"]) for p in (n.props for n in nodes.values()
                                                                  if n.kind == "client")
           if p["file"].endswith("CatalogGateway.java")}
    assert got == {9: ("catalog", "unresolved"), 13: ("catalog", "cross_service")}
