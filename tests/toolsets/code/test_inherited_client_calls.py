"""A declarative client interface that inherits its mapped methods from a shared API interface (Micronaut
``@Client``, MicroProfile ``@RegisterRestClient``) and does not redeclare them: a call through the client
resolves to the inherited method, so that method declares the client too and the call reaches the request."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph


def _pom(name: str) -> str:
    return (f"<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>{name}</artifactId>"
            "<version>1</version></project>\n")


MICRONAUT_API = '''package com.acme.stock.api;

import io.micronaut.http.annotation.Get;

public interface StockOperations {
    @Get("/{sku}")
    String level(String sku);

    @Get("/low")
    String low();
}
'''

MICRONAUT_CLIENT = '''package com.acme.shop;

import com.acme.stock.api.StockOperations;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.client.annotation.Client;

@Client(id = "stock", path = "/stock")
public interface StockClient extends StockOperations {
    @Override
    @Get("/{sku}")
    String level(String sku);
}
'''

JAXRS_API = '''package com.acme.stock.api;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

public interface StockOperations {
    @GET
    @Path("/{sku}")
    String level(String sku);

    @GET
    @Path("/low")
    String low();
}
'''

JAXRS_CLIENT = '''package com.acme.shop;

import com.acme.stock.api.StockOperations;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

@Path("/stock")
@RegisterRestClient(baseUri = "http://stock:8080")
public interface StockClient extends StockOperations {
    @GET
    @Path("/{sku}")
    String level(String sku);
}
'''

CALLER = '''package com.acme.shop;

public class Shelf {
    private final StockClient stock;

    public Shelf(StockClient stock) { this.stock = stock; }

    public String low() { return stock.low(); }

    public String level(String sku) { return stock.level(sku); }
}
'''


@pytest.mark.parametrize("api, client", [(MICRONAUT_API, MICRONAUT_CLIENT), (JAXRS_API, JAXRS_CLIENT)],
                         ids=["micronaut", "microprofile"])
def test_a_call_of_an_inherited_client_method_reaches_its_request(tmp_path: Path, api: str, client: str):
    root = write_tree(tmp_path, {
        "stock-api/pom.xml": _pom("stock-api"),
        "stock-api/src/main/java/com/acme/stock/api/StockOperations.java": api,
        "shop/pom.xml": _pom("shop"),
        "shop/Dockerfile": "FROM eclipse-temurin:17\n",
        "shop/src/main/java/com/acme/shop/StockClient.java": client,
        "shop/src/main/java/com/acme/shop/Shelf.java": CALLER,
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    name = {n.id: (n.props.get("fqn") or n.props.get("label") or n.name) for n in nodes.values()}
    clients = {n.props["label"].rsplit(" ", 1)[-1]: n.id for n in nodes.values() if n.kind == "client"}
    assert set(clients) == {"/stock/{sku}", "/stock/low"}

    def declarers(client_id: str) -> set[str]:
        return {name[e.src].split("(", 1)[0] for e in edges.values() if e.type == "DECLARES_CLIENT" and e.dst == client_id}

    # inherited, not redeclared: the interface and the inherited method both declare it
    assert declarers(clients["/stock/low"]) == {"com.acme.shop.StockClient", "com.acme.stock.api.StockOperations#low"}
    # redeclared: the client's own method only (a call resolves there)
    assert declarers(clients["/stock/{sku}"]) == {"com.acme.shop.StockClient#level"}
    calls = {(name[e.src].split("(", 1)[0], name[e.dst].split("(", 1)[0]) for e in edges.values() if e.type == "CALLS"}
    assert ("com.acme.shop.Shelf#low", "com.acme.stock.api.StockOperations#low") in calls
