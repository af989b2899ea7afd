"""Apache HttpClient requests are HTTP clients: a URL that folds links, one built from a constructor's
parameter stays unresolved and says it is known at run time only (the field the constructor assigns from
it is not followed back into the parameter: no loop)."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph

HELPER = '''package com.acme.shipping;

import org.apache.http.client.methods.HttpDelete;
import org.apache.http.client.methods.HttpPost;

public class CartHelper {
    private static final String CART = "http://cart:8080";
    private String baseUrl;

    public CartHelper(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    public void add(String id) {
        HttpPost post = new HttpPost(baseUrl + id);
    }

    public void clear(String id) {
        HttpDelete delete = new HttpDelete(CART + "/cart/" + id);
    }
}
'''

CART = '''const express = require("express");
const app = express();
app.delete("/cart/:id", (req, res) => res.json({}));
'''


def test_apache_http_requests_are_clients(tmp_path: Path):
    java = tmp_path / "shipping/src/main/java/com/acme/shipping"
    java.mkdir(parents=True)
    (tmp_path / "shipping/pom.xml").write_text("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>"
                                               "<artifactId>shipping</artifactId><version>1</version></project>\n")
    (java / "CartHelper.java").write_text(HELPER)
    (tmp_path / "cart").mkdir()
    (tmp_path / "cart/package.json").write_text('{"name": "cart", "version": "1.0.0"}\n')
    (tmp_path / "cart/server.js").write_text(CART)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    found = {n.props["line"]: n.props for n in nodes.values() if n.kind == "client"}
    assert {line: (p["client_kind"], p["http_method"]) for line, p in found.items()} == {
        15: ("apache_http", "POST"), 19: ("apache_http", "DELETE")}
    assert (found[19]["target_service"], found[19]["match"]) == ("cart", "cross_service")
    assert found[15]["match"] == "unresolved"
    assert found[15]["unresolved_reason"] == ("baseUrl is not a constant (a variable or parameter: known at run time "
                                              "only); id is not a constant (a variable or parameter: known at run "
                                              "time only)")
