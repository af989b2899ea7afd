"""A constructor's parameter (Java, Python ``__init__``) takes the value every construction of the class in the
project passes (several: a choice), so a client whose base URL is a field the constructor assigns links; it
stays unresolved when something other than those calls may make the object (a bean, a decorated class, a
subclass's ``super(...)``), when nothing constructs it, or when a call passes a value not known or none (a
default) (``tests/fixtures/code/ctor-args``, its expected results in its README)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.code_graph import FIXTURES

from graphlore.toolsets.code.index.graph import CodeGraph


def _owner(fqn: str) -> str:
    """The declaring class's simple name: ``a.b.Cart#add(String)`` (Java), ``clients.CartApi.add`` (Python)."""
    return fqn.split("#")[0].rsplit(".", 1)[-1] if "#" in fqn else fqn.rsplit(".", 2)[-2]


def test_a_constructors_parameter_is_what_its_sites_pass():
    nodes, _ = CodeGraph.build(FIXTURES / "ctor-args").snapshot()
    clients = {_owner(n.props["declaring_fqn"]): n.props for n in nodes.values() if n.kind == "client"}
    routes = {n.id: n.props["label"] for n in nodes.values() if n.kind == "route"}
    found = {name: (p["microservice"], p["match"], p.get("target_service")) for name, p in clients.items()}
    assert found == {
        "CartClient": ("shipping", "cross_service", "cart"), "OrdersClient": ("shipping", "cross_service", "orders"),
        "AuditClient": ("shipping", "unresolved", None), "BeanClient": ("shipping", "unresolved", None),
        "BaseClient": ("shipping", "unresolved", None), "LonelyClient": ("shipping", "unresolved", None),
        "CartApi": ("billing", "cross_service", "cart"), "OrdersApi": ("billing", "cross_service", "orders"),
        "AuditApi": ("billing", "unresolved", None), "BaseApi": ("billing", "unresolved", None),
        "DefaultApi": ("billing", "unresolved", None)}
    for cart, orders in (("CartClient", "OrdersClient"), ("CartApi", "OrdersApi")):
        assert [routes[r] for r in clients[cart]["candidates"]] == ["POST /shipping/{id}"]
        assert [routes[r] for r in clients[orders]["candidates"]] == ["GET /orders/{id}"]
        url = clients[orders]["target_url"]   # both sites' values, the env var settled by the Dockerfile
        assert url.endswith("/orders/{id}") or url.endswith("/orders/{order_id}")
        assert "http://orders:8080" in url and "{?" not in url
    assert "target is not a constant" in clients["AuditClient"]["unresolved_reason"]
    assert "target is not a constant" in clients["AuditApi"]["unresolved_reason"]


CLIENTS = '''import os

import requests


class CartApi:
    def __init__(self, base):
        self.base = base
FACTORY
    def add(self, item_id):
        return requests.post(self.base + "/shipping/" + item_id)
'''
FACTORY = '''
    @classmethod
    def from_env(cls):
        return cls(os.environ["PAYMENT_URL"])
'''
APP = '''from clients import CartApi
ALIAS

def confirm(item_id):
    CartApi("http://cart:8080").add(item_id)
'''
ALIAS = '''from clients import CartApi as Api


def other(item_id, url):
    Api(url).add(item_id)
'''


@pytest.mark.parametrize("unseen", ["classmethod", "alias"])
def test_a_class_made_by_a_call_not_read_keeps_its_parameter_unknown(tmp_path: Path, unseen: str):
    """``cls(...)`` in a classmethod, or a call through ``import ... as``, may pass another value: the one call
    read (``CartApi("http://cart:8080")``) is not all the evidence, so the client stays unresolved."""
    (tmp_path / "billing").mkdir()
    (tmp_path / "billing/Dockerfile").write_text("FROM python:3.12\n")
    (tmp_path / "billing/requirements.txt").write_text("requests\n")
    (tmp_path / "billing/clients.py").write_text(CLIENTS.replace("FACTORY", FACTORY if unseen == "classmethod" else ""))
    (tmp_path / "billing/app.py").write_text(APP.replace("ALIAS", ALIAS if unseen == "alias" else ""))
    _assert_unresolved_beside_cart(tmp_path)


JAVA_CLIENT = '''package com.acme.shipping;

import org.apache.http.client.methods.HttpPost;

public class CartClient {
    private final String base;
    private final int timeout;
DELEGATE
    public CartClient(String base, int timeout) {
        this.base = base;
        this.timeout = timeout;
    }

    public void add(String id) {
        HttpPost post = new HttpPost(base + id);
    }
}
'''
JAVA_SITES = '''package com.acme.shipping;

import java.util.List;

public class Shipments {
    public void confirm(String id) {
        new CartClient("http://cart:8080/shipping/", 1).add(id);
    }
OTHER
}
'''


@pytest.mark.parametrize("unseen", ["this", "reference"])
def test_a_java_constructor_reached_another_way_keeps_its_parameter_unknown(tmp_path: Path, unseen: str):
    """Another constructor's ``this(...)``, or a ``CartClient::new`` reference, passes values the one ``new`` read
    does not show: the client stays unresolved."""
    source = tmp_path / "shipping/src/main/java/com/acme/shipping"
    source.mkdir(parents=True)
    (tmp_path / "shipping/pom.xml").write_text("<project><artifactId>shipping</artifactId></project>\n")
    (tmp_path / "shipping/Dockerfile").write_text("FROM eclipse-temurin:21\n")
    delegate = '''
    public CartClient(String host) {
        this("http://" + host + "/shipping/", 5);
    }
'''
    other = '''
    public void more(String id, String host) {
        new CartClient(host).add(id);
    }
''' if unseen == "this" else '''
    public void more(List<String> hosts, java.util.function.BiFunction<String, Integer, CartClient> make) {
        make = CartClient::new;
    }
'''
    (source / "CartClient.java").write_text(JAVA_CLIENT.replace("DELEGATE", delegate if unseen == "this" else ""))
    (source / "Shipments.java").write_text(JAVA_SITES.replace("OTHER", other))
    _assert_unresolved_beside_cart(tmp_path)


def _assert_unresolved_beside_cart(root: Path) -> None:
    """Beside a cart service serving ``POST /shipping/:id``, the project's one client stays unresolved."""
    (root / "cart").mkdir()
    (root / "cart/package.json").write_text('{"name": "cart", "version": "1.0.0"}\n')
    (root / "cart/server.js").write_text('const express = require("express");\nconst app = express();\n'
                                         'app.post("/shipping/:id", (req, res) => res.send("ok"));\n')
    nodes, _ = CodeGraph.build(root).snapshot()
    [client] = [n.props for n in nodes.values() if n.kind == "client"]
    assert client["match"] == "unresolved" and "base is not a constant" in client["unresolved_reason"]
