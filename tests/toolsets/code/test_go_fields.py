"""Go struct fields folded from struct literals: a field name another struct type of the package declares is not
known to be the literal's, so a configuration read from a file is never taken for another struct's address (a
cross-service link drawn on a field name)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

COMPOSE = """services:
  orders:
    build: ./orders
  audit:
    build: ./audit
"""

AUDIT = """package main

import "net/http"

func main() {
	http.HandleFunc("/orders/recent", func(w http.ResponseWriter, r *http.Request) {})
	http.ListenAndServe(":9000", nil)
}
"""

ORDERS = """package main

import (
	"encoding/json"
	"net/http"
	"os"
)

type Config struct {
	url string
}

type AuditSink struct {
	url string
}

func load() Config {
	var cfg Config
	data, _ := os.ReadFile("config.json")
	json.Unmarshal(data, &cfg)
	return cfg
}

func main() {
	sink := AuditSink{url: "http://audit:9000"}
	_ = sink
	cfg := load()
	http.Get(cfg.url + "/orders/recent")
}
"""


def _clients(root: Path, orders: str) -> list[dict]:
    write_tree(root, {"docker-compose.yml": COMPOSE, "orders/go.mod": "module example.com/orders\n\ngo 1.21\n",
                      "orders/Dockerfile": "FROM golang\n", "orders/main.go": orders,
                      "audit/go.mod": "module example.com/audit\n\ngo 1.21\n", "audit/Dockerfile": "FROM golang\n",
                      "audit/main.go": AUDIT})
    nodes, _ = CodeGraph.build(root).snapshot()
    return [n.props for n in nodes.values() if n.kind == "client"]


def test_a_field_another_struct_declares_is_not_folded_from_that_struct_s_literal(tmp_path: Path):
    [client] = _clients(tmp_path / "shop", ORDERS)
    assert client["resolved"] is False and client["match"] == "unresolved"
    assert "cfg.url" in client["unresolved_reason"]


def test_a_field_only_one_struct_declares_is_folded_from_its_literal(tmp_path: Path):
    one_type = ORDERS.replace("type AuditSink struct {\n\turl string\n}\n\n", "").replace(
        "\tsink := AuditSink{url: \"http://audit:9000\"}\n\t_ = sink\n\tcfg := load()\n",
        "\tcfg := Config{url: \"http://audit:9000\"}\n")
    [client] = _clients(tmp_path / "shop", one_type)
    assert (client["target_service"], client["match"]) == ("audit", "cross_service")
