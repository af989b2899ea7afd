"""grpc-gateway: ``RegisterXHandlerFromEndpoint(ctx, mux, endpoint, opts)`` serves, in the proxy, an HTTP route for
each ``google.api.http`` binding of ``X``'s methods in the ``.proto`` (``additional_bindings``, ``custom``, a
``{name=segments/*}`` variable), each forwarding (``GRPC_CALLS``, ``gateway_forward``) to the service serving the
method; a method nobody serves leaves the route unresolved, never linked by a guess."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.proto.extract import extract

PROTO = """syntax = "proto3";
package lib.v1;
import "google/api/annotations.proto";

service Shelf {
  // a comment with get: "/not/a/route"
  rpc ListBooks(ListBooksRequest) returns (ListBooksResponse) {
    option (google.api.http) = {
      get: "/v1/{parent=shelves/*}/books"
      additional_bindings { get: "/v1/books" }
    };
  }
  rpc Lend(LendRequest) returns (LendResponse) {
    option (google.api.http) = { post: "/v1/books/{book_id}:lend" body: "*" };
  }
  rpc Purge(PurgeRequest) returns (PurgeResponse) {
    option (google.api.http) = { custom { kind: "PURGE" path: "/v1/cache" } };
  }
  rpc Ping(PingRequest) returns (PingResponse);
}

service Archive {
  rpc Fetch(FetchRequest) returns (FetchResponse) {
    option (google.api.http) = { get: "/v1/archive/{id}" };
  }
}
"""

GATEWAY = """package main

import (
	"context"
	"net/http"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"

	pb "example.org/library/gen"
)

func main() {
	ctx := context.Background()
	mux := runtime.NewServeMux()
	opts := []grpc.DialOption{}
	_ = pb.RegisterShelfHandlerFromEndpoint(ctx, mux, "shelf:9000", opts)
	_ = pb.RegisterArchiveHandlerFromEndpoint(ctx, mux, "archive:9000", opts)
	http.ListenAndServe(":8080", mux)
}
"""

SERVER = """package main

import (
	"context"
	"net"

	"google.golang.org/grpc"

	pb "example.org/library/gen"
)

type shelf struct{}

func (s *shelf) ListBooks(ctx context.Context, r *pb.ListBooksRequest) (*pb.ListBooksResponse, error) {
	return nil, nil
}

func (s *shelf) Lend(ctx context.Context, r *pb.LendRequest) (*pb.LendResponse, error) { return nil, nil }

func (s *shelf) Purge(ctx context.Context, r *pb.PurgeRequest) (*pb.PurgeResponse, error) { return nil, nil }

func main() {
	lis, _ := net.Listen("tcp", ":9000")
	srv := grpc.NewServer()
	pb.RegisterShelfServer(srv, &shelf{})
	srv.Serve(lis)
}
"""


def _system(root: Path) -> Path:
    files = {"proto/library.proto": PROTO,
             "gateway/go.mod": "module example.org/library/gateway\n\ngo 1.22\n", "gateway/main.go": GATEWAY,
             "gateway/Dockerfile": "FROM golang:1.22\nCOPY . .\nRUN go build -o /app .\n",
             "shelf/go.mod": "module example.org/library/shelf\n\ngo 1.22\n", "shelf/main.go": SERVER,
             "shelf/Dockerfile": "FROM golang:1.22\nCOPY . .\nRUN go build -o /app .\n"}
    return write_tree(root, files)


def test_the_proto_s_http_rule_is_read_per_rpc():
    facts = extract("library.proto", PROTO.encode())
    http = {s.name: s.extra.get("http") for s in facts.symbols if s.kind == "method"}
    assert http == {"ListBooks": [["GET", "/v1/shelves/{parent}/books"], ["GET", "/v1/books"]],
                    "Lend": [["POST", "/v1/books/{book_id}:lend"]], "Purge": [["PURGE", "/v1/cache"]],
                    "Ping": None, "Fetch": [["GET", "/v1/archive/{id}"]]}


def test_an_rpc_without_a_body_keeps_the_rules_with_their_own_rpc():
    """Two services with an rpc of one name, the first ended by ``;``: the rule stays with the rpc that writes it."""
    proto = ('syntax = "proto3";\npackage lib.v1;\nservice Admin { rpc Get(Req) returns (Res); }\n'
             'service Public {\n  rpc Get(Req) returns (Res) { option (google.api.http) = { get: "/v1/items/{id}" }; }\n}\n'
             'message Req { string id = 1; }\nmessage Res {}\n')
    http = {s.key: s.extra.get("http") for s in extract("items.proto", proto.encode()).symbols if s.kind == "method"}
    assert http == {"Admin.Get": None, "Public.Get": [["GET", "/v1/items/{id}"]]}


def test_a_segments_variable_keeps_its_literal_segments():
    """`{name=shelves/*}` fits `/v2/shelves/7`, not `/v2/users`: the variable's literal segments stay in the path."""
    proto = ('syntax = "proto3";\npackage lib.v2;\nservice Shelf {\n'
             '  rpc Get(Req) returns (Res) { option (google.api.http) = { get: "/v2/{name=shelves/*/books/*}" }; }\n'
             '  rpc Tree(Req) returns (Res) { option (google.api.http) = { get: "/v2/{path=files/**}" }; }\n'
             '  rpc One(Req) returns (Res) { option (google.api.http) = { get: "/v2/{id=*}" }; }\n}\n')
    http = {s.name: s.extra.get("http") for s in extract("lib.proto", proto.encode()).symbols if s.kind == "method"}
    assert http == {"Get": [["GET", "/v2/shelves/{name}/books/{name_2}"]], "Tree": [["GET", "/v2/files/**"]],
                    "One": [["GET", "/v2/{id}"]]}


def test_gateway_routes_forward_to_the_service_serving_the_method(tmp_path: Path):
    nodes, edges = CodeGraph.build(_system(tmp_path / "library")).snapshot()
    routes = {(n.props["http_method"], n.props["path_template"]): n for n in nodes.values()
              if n.kind == "route" and n.props["framework"] == "grpc_gateway"}
    assert set(routes) == {("GET", "/v1/shelves/{parent}/books"), ("GET", "/v1/books"), ("POST", "/v1/books/{book_id}:lend"),
                           ("PURGE", "/v1/cache"), ("GET", "/v1/archive/{id}")}
    assert {n.props["microservice"] for n in routes.values()} == {"gateway"}
    assert routes[("GET", "/v1/books")].props["line"] == 17   # the registration call
    forwards = {}
    for edge in edges.values():
        if edge.type == "GRPC_CALLS" and edge.src in {n.id for n in routes.values()}:
            assert edge.props["evidence"]["gateway_forward"] is True
            forwards[(nodes[edge.src].props["path_template"], nodes[edge.dst].props["grpc"])] = edge.props["match"]
    assert forwards == {("/v1/shelves/{parent}/books", "lib.v1.Shelf/ListBooks"): "cross_service",
                        ("/v1/books", "lib.v1.Shelf/ListBooks"): "cross_service",
                        ("/v1/books/{book_id}:lend", "lib.v1.Shelf/Lend"): "cross_service",
                        ("/v1/cache", "lib.v1.Shelf/Purge"): "cross_service"}
    archive = routes[("GET", "/v1/archive/{id}")].props
    assert archive["match"] == "unresolved" and "lib.v1.Archive/Fetch" in archive["match_detail"]
