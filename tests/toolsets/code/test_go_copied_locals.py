"""A Go local copied from a struct field, a parameter or another local (``svc := s.billing``, ``c := client``) has
that one's type (Go fixes it where ``:=`` declares the local): a gRPC stub used through such a copy is a client
(dialling what the field holds), also when a branch reassigns the local; a copy of a field of another type
(a project struct with a method of the same name) is no client."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

PROTO = """syntax = "proto3";
package pay.v1;
service Billing { rpc Charge(ChargeRequest) returns (ChargeReply); }
"""

CLIENT = """package main

import (
	"context"

	"google.golang.org/grpc"

	pb "example.org/shop/gen"
)

type ledger struct{}

func (l *ledger) Charge(ctx context.Context, r *pb.ChargeRequest) error { return nil }

type shop struct {
	billing pb.BillingClient
	books   *ledger
}

func (s *shop) fromField(ctx context.Context) {
	svc := s.billing
	svc.Charge(ctx, &pb.ChargeRequest{})
}

func (s *shop) swapped(ctx context.Context, broken bool) {
	svc := s.billing
	if broken {
		conn, _ := grpc.Dial("nowhere:1")
		svc = pb.NewBillingClient(conn)
	}
	svc.Charge(ctx, &pb.ChargeRequest{})
}

func fromParam(ctx context.Context, client pb.BillingClient) {
	c := client
	again := c
	again.Charge(ctx, &pb.ChargeRequest{})
}

func (s *shop) notAStub(ctx context.Context) {
	books := s.books
	books.Charge(ctx, &pb.ChargeRequest{})
}

func main() {
	conn, _ := grpc.Dial("billing:9000")
	s := &shop{billing: pb.NewBillingClient(conn), books: &ledger{}}
	s.fromField(context.Background())
}
"""

SERVER = """package main

import (
	"context"

	"google.golang.org/grpc"

	pb "example.org/shop/gen"
)

type server struct{}

func (s *server) Charge(ctx context.Context, r *pb.ChargeRequest) (*pb.ChargeReply, error) { return nil, nil }

func main() {
	srv := grpc.NewServer()
	pb.RegisterBillingServer(srv, &server{})
}
"""


def test_a_stub_used_through_a_copied_local_is_a_client(tmp_path: Path):
    root = write_tree(tmp_path / "shop", {
        "proto/pay.proto": PROTO,
        "checkout/go.mod": "module example.org/shop/checkout\n\ngo 1.22\n", "checkout/Dockerfile": "FROM scratch\n",
        "checkout/main.go": CLIENT,
        "billing/go.mod": "module example.org/shop/billing\n\ngo 1.22\n", "billing/Dockerfile": "FROM scratch\n",
        "billing/main.go": SERVER})
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = {n.props["declaring_fqn"].rsplit(".", 1)[-1]: n.props for n in nodes.values()
               if n.kind == "client" and n.props.get("client_kind") == "grpc"}
    assert set(clients) == {"fromField", "swapped", "fromParam"}
    assert {c["grpc"] for c in clients.values()} == {"pay.v1.Billing/Charge"}
    assert clients["fromField"]["channel_address"] == "billing:9000"
    assert clients["fromField"]["channel_service"] == "billing"
