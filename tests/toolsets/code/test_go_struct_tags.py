"""Go configuration structs: a field tagged ``env:"X"`` (cleanenv) or ``envconfig:"X"`` is that environment variable
where code reads it (``cfg.Billing.Addr``, a promoted ``cfg.LedgerHost``), settled with the deployment's env; a
read that two differently tagged fields could be stays unknown."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

PROTO = """syntax = "proto3";
package pay.v1;
service Billing { rpc Charge(ChargeRequest) returns (ChargeReply); }
service Ledger { rpc Post(PostRequest) returns (PostReply); }
"""

CONFIG = """package config

type (
	Config struct {
		Billing `yaml:"billing"`
		Remote  `yaml:"remote"`
		Queue   `yaml:"queue"`
	}

	Billing struct {
		Addr string `env-required:"true" yaml:"addr" env:"BILLING_ADDR"`
	}

	Remote struct {
		LedgerHost string `yaml:"ledger_host" envconfig:"LEDGER_HOST" default:"localhost:7000"`
	}

	Queue struct {
		Addr string `yaml:"addr" env:"QUEUE_ADDR"`
	}
)
"""

CLIENT = """package main

import (
	"context"

	"google.golang.org/grpc"

	"example.org/shop/checkout/config"
	pb "example.org/shop/gen"
)

func charge(ctx context.Context, cfg *config.Config) {
	conn, _ := grpc.Dial(cfg.Billing.Addr)
	pb.NewBillingClient(conn).Charge(ctx, &pb.ChargeRequest{})
	other, _ := grpc.Dial(cfg.LedgerHost)
	pb.NewLedgerClient(other).Post(ctx, &pb.PostRequest{})
}

func either(ctx context.Context, cfg *config.Config) {
	conn, _ := grpc.Dial(cfg.Addr)   // Billing.Addr or Queue.Addr: not known
	pb.NewBillingClient(conn).Charge(ctx, &pb.ChargeRequest{})
}

func main() {}
"""

COMPOSE = """services:
  checkout:
    build: ./checkout
    environment:
      BILLING_ADDR: billing:9000
      LEDGER_HOST: ledger:7000
  billing:
    build: ./billing
  ledger:
    build: ./ledger
"""


def _server(name: str, service: str, method: str) -> str:
    return (f"package main\n\nimport (\n\t\"context\"\n\n\t\"google.golang.org/grpc\"\n\n\tpb \"example.org/shop/gen\"\n)"
            f"\n\ntype server struct{{}}\n\nfunc (s *server) {method}(ctx context.Context, r *pb.{method}Request) "
            f"(*pb.{method}Reply, error) {{ return nil, nil }}\n\n"
            f"func main() {{\n\tsrv := grpc.NewServer()\n\tpb.Register{service}Server(srv, &server{{}})\n}}\n")


def _tree(root: Path) -> Path:
    files = {"proto/pay.proto": PROTO, "docker-compose.yml": COMPOSE,
             "checkout/go.mod": "module example.org/shop/checkout\n\ngo 1.22\n", "checkout/Dockerfile": "FROM scratch\n",
             "checkout/config/config.go": CONFIG, "checkout/main.go": CLIENT}
    for name, service, method in (("billing", "Billing", "Charge"), ("ledger", "Ledger", "Post")):
        files[f"{name}/go.mod"] = f"module example.org/shop/{name}\n\ngo 1.22\n"
        files[f"{name}/Dockerfile"] = "FROM scratch\n"
        files[f"{name}/main.go"] = _server(name, service, method)
    return write_tree(root, files)


def test_tagged_fields_are_their_environment_variables(tmp_path: Path):
    nodes, _ = CodeGraph.build(_tree(tmp_path / "shop")).snapshot()
    channels = {(n.props["line"], n.props["grpc"]): (n.props["channel_address"], n.props["channel_service"])
                for n in nodes.values() if n.kind == "client" and n.props["client_kind"] == "grpc"}
    assert channels[(14, "pay.v1.Billing/Charge")] == ("billing:9000", "billing")
    assert channels[(16, "pay.v1.Ledger/Post")] == ("ledger:7000", "ledger")
    address, service = channels[(21, "pay.v1.Billing/Charge")]
    assert service is None and "BILLING_ADDR" not in address and "QUEUE_ADDR" not in address


def test_a_field_of_a_library_type_is_not_the_project_s_tagged_field_of_that_name(tmp_path: Path):
    """`h.URL` on a `hooks.Hook` (a library's type) is the library's field, not the project's `Config.URL` tagged
    `env:"CATALOG_URL"`, though every field named URL in the project is tagged so: no link from it."""
    handler = 'package main\n\nimport "net/http"\n\nfunc main() {\n\thttp.HandleFunc("/items", items)\n}\n\n' \
              'func items(w http.ResponseWriter, r *http.Request) {}\n'
    env = "    environment:\n      CATALOG_URL: http://catalog:8080\n"
    root = write_tree(tmp_path / "sys", {
        "docker-compose.yml": f"services:\n  catalog:\n    build: ./catalog\n  orders:\n    build: ./orders\n{env}"
                              f"  notifier:\n    build: ./notifier\n{env}",
        "catalog/go.mod": "module example.org/catalog\n\ngo 1.22\n", "catalog/main.go": handler,
        "orders/go.mod": "module example.org/orders\n\ngo 1.22\n",
        "orders/config.go": 'package main\n\ntype Config struct {\n\tURL string `env:"CATALOG_URL"`\n}\n',
        "orders/main.go": 'package main\n\nimport "net/http"\n\nfunc fetch(cfg Config) {\n\thttp.Get(cfg.URL + "/items")\n}\n',
        "notifier/go.mod": "module example.org/notifier\n\ngo 1.22\n",
        "notifier/main.go": 'package main\n\nimport (\n\t"net/http"\n\n\t"github.com/acme/hooks"\n)\n\n'
                            'func notify(h hooks.Hook) {\n\thttp.Get(h.URL + "/items")\n}\n',
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = {n.props["microservice"]: n.props for n in nodes.values() if n.kind == "client"}
    assert (clients["orders"]["match"], clients["orders"]["target_service"]) == ("cross_service", "catalog")
    assert clients["notifier"]["match"] == "unresolved" and "h.URL" in clients["notifier"]["match_detail"]
