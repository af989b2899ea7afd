"""Call traces across services: the edges `paths` needs to follow a request from one service's code down to
another's, by default, in one call."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

PROTO = """syntax = "proto3";
package lib.v1;

service Shelf {
  rpc ListBooks(ListBooksRequest) returns (ListBooksResponse);
  rpc Lend(LendRequest) returns (LendResponse);
}
"""

#: the implementation registered by the address of a local (``svc := shelf{...}``, ``&svc``), as a wire
#: provider or a constructor does
SERVER = """package main

import (
	"context"
	"net"

	"google.golang.org/grpc"

	pb "example.org/library/gen"
)

type shelf struct{ name string }

func (s *shelf) ListBooks(ctx context.Context, r *pb.ListBooksRequest) (*pb.ListBooksResponse, error) {
	return nil, nil
}

func (s *shelf) Lend(ctx context.Context, r *pb.LendRequest) (*pb.LendResponse, error) { return nil, nil }

func NewShelfServer(srv *grpc.Server) pb.ShelfServer {
	svc := shelf{name: "main"}
	pb.RegisterShelfServer(srv, &svc)
	return &svc
}

func main() {
	lis, _ := net.Listen("tcp", ":9000")
	srv := grpc.NewServer()
	NewShelfServer(srv)
	srv.Serve(lis)
}
"""


def _go_server(root: Path) -> Path:
    return write_tree(root, {"proto/library.proto": PROTO,
                             "shelf/go.mod": "module example.org/library/shelf\n\ngo 1.22\n", "shelf/main.go": SERVER,
                             "shelf/Dockerfile": "FROM golang:1.22\nCOPY . .\nRUN go build -o /app .\n"})


def test_a_go_grpc_route_registered_by_a_local_s_address_is_served_by_its_method(tmp_path: Path):
    nodes, edges = CodeGraph.build(_go_server(tmp_path / "library")).snapshot()
    handlers = {nodes[e.dst].props["grpc"]: nodes[e.src].props["fqn"].rsplit(".", 1)[-1] for e in edges.values()
                if e.type == "EXPOSES" and nodes[e.dst].props.get("framework") == "grpc"}
    assert handlers == {"lib.v1.Shelf/ListBooks": "ListBooks", "lib.v1.Shelf/Lend": "Lend"}
