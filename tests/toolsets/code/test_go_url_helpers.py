"""A Go client's URL built by a function of the project (``func orderURL(base string, id int) string { return
fmt.Sprintf("%s/orders/%d", base, id) }``), of the calling package or of an imported one, is folded at the call:
the function's (first) returned value with its parameters bound to the call's arguments; several returns are
several values; a function calling itself, a variadic one and a method of a value stay unknown."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

PATHS = """package paths

import "fmt"

func Order(base string, id int) string {
	return fmt.Sprintf("%s/orders/%d", base, id)
}

func Cart(base string, saved bool) (string, error) {
	if saved {
		return base + "/carts/saved", nil
	}
	return base + "/carts/open", nil
}

func Deep(base string) string {
	return Deep(base + "/again")
}

func Joined(parts ...string) string {
	return parts[0]
}
"""

MAIN = """package main

import (
	"net/http"

	"example.com/orders/paths"
)

const base = "http://orders:8080"

type router struct{}

func (router) url(base string) string { return base + "/method" }

func stockURL(b string) string {
	handler := func() string { return "http://not-this" }
	_ = handler
	return b + "/stock"
}

func one(id int)     { http.Get(paths.Order(base, id)) }
func cart(s bool) {
	u, _ := paths.Cart(base, s)
	http.Get(u)
}

func stock()         { http.Get(stockURL(base)) }
func loop()          { http.Get(paths.Deep(base)) }
func joined()        { http.Get(paths.Joined(base, "/x")) }
func method(r router) { http.Get(r.url(base)) }
"""


def test_a_url_returned_by_a_function_is_folded_at_each_call(tmp_path: Path):
    root = write_tree(tmp_path / "shop", {"orders/go.mod": "module example.com/orders\n\ngo 1.21\n",
                                         "orders/Dockerfile": "FROM golang\n", "orders/main.go": MAIN,
                                         "orders/paths/paths.go": PATHS})
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = {n.props["declaring_fqn"].rsplit(".", 1)[-1]: n.props for n in nodes.values() if n.kind == "client"}
    assert clients["one"]["target_url"] == "http://orders:8080/orders/{id}"      # Sprintf, another package
    assert clients["cart"]["target_url"] == "{http://orders:8080/carts/saved|http://orders:8080/carts/open}"
    assert clients["stock"]["target_url"] == "http://orders:8080/stock"          # not the closure's return
    assert clients["loop"]["unresolved_reason"] == "the result of Deep(...)"
    assert clients["joined"]["unresolved_reason"] == "the result of paths.Joined(...)"
    assert clients["method"]["unresolved_reason"] == "the result of r.url(...)"
