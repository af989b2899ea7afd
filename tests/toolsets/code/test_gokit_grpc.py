"""go-kit gRPC clients: ``grpctransport.NewClient(conn, "pkg.Service", "Method", ..)`` is a client of that method,
also when a project helper takes the service and method as parameters (each call of it passing strings is the
client), and an endpoint kept in a struct field is the client where a method of the type invokes the field. A Go
``RegisterXServer`` of a name two ``.proto`` packages declare serves the one beside the imported generated package;
a gRPC route resolves by its full method name."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import run, write_tree

from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.go.extract import extract

LEDGER_PROTO = """syntax = "proto3";
package ledger;
service Accounts {
  rpc Open(OpenRequest) returns (OpenReply);
  rpc Balance(BalanceRequest) returns (BalanceReply);
}
message OpenRequest {}
message OpenReply {}
message BalanceRequest {}
message BalanceReply {}
"""

AUDIT_PROTO = """syntax = "proto3";
package audit;
service Accounts {
  rpc Record(RecordRequest) returns (RecordReply);
}
message RecordRequest {}
message RecordReply {}
"""

LEDGER_SERVER = """package main

import (
	"context"
	"net"

	"google.golang.org/grpc"

	ledgerpb "example.org/bank/proto/ledger"
)

type server struct{}

func (s *server) Open(ctx context.Context, r *ledgerpb.OpenRequest) (*ledgerpb.OpenReply, error) { return nil, nil }

func (s *server) Balance(ctx context.Context, r *ledgerpb.BalanceRequest) (*ledgerpb.BalanceReply, error) {
	return nil, nil
}

func main() {
	lis, _ := net.Listen("tcp", ":9000")
	srv := grpc.NewServer()
	ledgerpb.RegisterAccountsServer(srv, &server{})
	srv.Serve(lis)
}
"""

AUDIT_SERVER = """package main

import (
	"context"
	"net"

	"google.golang.org/grpc"

	auditpb "example.org/bank/proto/audit"
)

type recorder struct{}

func (s *recorder) Record(ctx context.Context, r *auditpb.RecordRequest) (*auditpb.RecordReply, error) {
	return nil, nil
}

func main() {
	lis, _ := net.Listen("tcp", ":9001")
	srv := grpc.NewServer()
	auditpb.RegisterAccountsServer(srv, &recorder{})
	srv.Serve(lis)
}
"""

#: go-kit clients written three ways: NewClient with literals in a struct literal, a project helper whose
#: parameters name the service and method (assigned to a field), and NewClient kept in a local
SHOP_CLIENTS = """package main

import (
	"context"

	"github.com/go-kit/kit/endpoint"
	kitgrpc "github.com/go-kit/kit/transport/grpc"
	"google.golang.org/grpc"

	ledgerpb "example.org/bank/proto/ledger"
)

func endpointFor(conn *grpc.ClientConn, service, method string, reply interface{}) endpoint.Endpoint {
	return kitgrpc.NewClient(conn, service, method, encode, decode, reply).Endpoint()
}

func encode(_ context.Context, r interface{}) (interface{}, error) { return r, nil }

func decode(_ context.Context, r interface{}) (interface{}, error) { return r, nil }

type Accounts struct {
	open    endpoint.Endpoint
	balance endpoint.Endpoint
}

func NewAccounts(conn *grpc.ClientConn) *Accounts {
	a := &Accounts{
		open: kitgrpc.NewClient(conn, "ledger.Accounts", "Open", encode, decode, ledgerpb.OpenReply{}).Endpoint(),
	}
	a.balance = endpointFor(conn, "ledger.Accounts", "Balance", ledgerpb.BalanceReply{})
	return a
}

func (a *Accounts) OpenAccount(ctx context.Context) error {
	_, err := a.open(ctx, &ledgerpb.OpenRequest{})
	return err
}

func (a *Accounts) Balance(ctx context.Context) error {
	_, err := a.balance(ctx, &ledgerpb.BalanceRequest{})
	return err
}

func Audit(conn *grpc.ClientConn) endpoint.Endpoint {
	record := kitgrpc.NewClient(conn, "audit.Accounts", "Record", encode, decode, nil).Endpoint()
	return record
}

func Dynamic(conn *grpc.ClientConn, name string) endpoint.Endpoint {
	return endpointFor(conn, name, "Open", nil)
}
"""

DOCKER = "FROM golang:1.22\nCOPY . .\nRUN go build -o /app .\n"


def _system(root: Path) -> Path:
    files = {"proto/ledger/ledger.proto": LEDGER_PROTO, "proto/audit/audit.proto": AUDIT_PROTO,
             "go.mod": "module example.org/bank\n\ngo 1.22\n",
             "ledger/main.go": LEDGER_SERVER, "ledger/Dockerfile": DOCKER,
             "audit/main.go": AUDIT_SERVER, "audit/Dockerfile": DOCKER,
             "shop/main.go": SHOP_CLIENTS, "shop/Dockerfile": DOCKER}
    return write_tree(root, files)


def test_a_call_keeps_six_arguments_and_the_field_its_value_is_stored_in():
    facts = extract("shop.go", SHOP_CLIENTS.encode())
    helper = next(c for c in facts.calls if c.name == "endpointFor" and c.owner == "NewAccounts")
    assert helper.args == ("conn", '"ledger.Accounts"', '"Balance"', "ledgerpb.BalanceReply{}")
    stored = {(name, field) for _line, name, field, *_holder in facts.extra["stored_in"]}
    assert ("NewClient", "open") in stored and ("endpointFor", "balance") in stored
    assert not any(name == "NewClient" and field == "record" for name, field in stored)   # a local, not a field


def test_go_kit_clients_are_read_where_the_endpoint_is_invoked(tmp_path: Path):
    nodes, edges = CodeGraph.build(_system(tmp_path / "bank")).snapshot()
    clients = {(n.props["grpc"], n.props["line"]): n for n in nodes.values()
               if n.kind == "client" and n.props.get("grpc")}
    assert set(clients) == {("ledger.Accounts/Open", 35), ("ledger.Accounts/Balance", 40),
                            ("audit.Accounts/Record", 45), ("{?}/{?}", 50)}
    assert all(n.props["microservice"] == "shop" for n in clients.values())
    unknown = clients[("{?}/{?}", 50)].props   # Dynamic passes a parameter: the client says so, names nothing
    assert "not a string in the code" in unknown["unresolved_reason"]
    calls = {(nodes[e.src].props["grpc"], nodes[e.dst].props["microservice"]) for e in edges.values()
             if e.type == "GRPC_CALLS"}
    assert calls == {("ledger.Accounts/Open", "ledger"), ("ledger.Accounts/Balance", "ledger"),
                     ("audit.Accounts/Record", "audit")}


def test_a_service_name_two_protos_declare_is_the_one_beside_the_imported_package(tmp_path: Path):
    nodes, _ = CodeGraph.build(_system(tmp_path / "bank")).snapshot()
    routes = {(n.props["microservice"], n.props["grpc"]) for n in nodes.values()
              if n.kind == "route" and n.props.get("framework") == "grpc"}
    assert routes == {("ledger", "ledger.Accounts/Open"), ("ledger", "ledger.Accounts/Balance"),
                      ("audit", "audit.Accounts/Record")}


def test_a_grpc_route_resolves_by_its_full_method_name(tmp_path: Path, runtime: Runtime):
    found = run(runtime, _system(tmp_path / "bank"), "resolve", identifier="ledger.Accounts/Balance",
                hint_kind="route")
    assert found.status == "one" and found.node.microservice == "ledger"
    assert found.node.label == "grpc ledger.Accounts/Balance"


#: two types of one package keep an endpoint in a field of the same name (``call``), each from another service
TWO_HOLDERS = """package main

import (
	"context"

	"github.com/go-kit/kit/endpoint"
	kitgrpc "github.com/go-kit/kit/transport/grpc"
	"google.golang.org/grpc"
)

func encode(_ context.Context, r interface{}) (interface{}, error) { return r, nil }

func decode(_ context.Context, r interface{}) (interface{}, error) { return r, nil }

type Ledger struct {
	call endpoint.Endpoint
}

type Auditor struct {
	call endpoint.Endpoint
}

func NewLedger(conn *grpc.ClientConn) *Ledger {
	return &Ledger{call: kitgrpc.NewClient(conn, "ledger.Accounts", "Balance", encode, decode, nil).Endpoint()}
}

func NewAuditor(conn *grpc.ClientConn) *Auditor {
	a := &Auditor{}
	a.call = kitgrpc.NewClient(conn, "audit.Accounts", "Record", encode, decode, nil).Endpoint()
	return a
}

func (l *Ledger) Balance(ctx context.Context) error {
	_, err := l.call(ctx, nil)
	return err
}

func (a *Auditor) Record(ctx context.Context) error {
	_, err := a.call(ctx, nil)
	return err
}
"""


def test_an_endpoint_field_two_types_declare_is_the_client_of_its_own_type_only(tmp_path: Path):
    """``Ledger.call`` and ``Auditor.call`` hold endpoints of two services: each type's method invokes its own, never
    the other's (a field name alone does not say which type's it is)."""
    root = _system(tmp_path / "bank")
    write_tree(root, {"shop/main.go": TWO_HOLDERS})
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = sorted((n.props["grpc"], n.props["line"]) for n in nodes.values()
                     if n.kind == "client" and n.props.get("grpc"))
    assert clients == [("audit.Accounts/Record", 39), ("ledger.Accounts/Balance", 34)]


#: the service and method named by a package constant, a local set once, and a local given two values
NAMED_BY_CONSTANTS = """package main

import (
	"context"

	"github.com/go-kit/kit/endpoint"
	kitgrpc "github.com/go-kit/kit/transport/grpc"
	"google.golang.org/grpc"
)

const ledgerService = "ledger.Accounts"

func encode(_ context.Context, r interface{}) (interface{}, error) { return r, nil }

func decode(_ context.Context, r interface{}) (interface{}, error) { return r, nil }

func endpointFor(conn *grpc.ClientConn, service, method string) endpoint.Endpoint {
	return kitgrpc.NewClient(conn, service, method, encode, decode, nil).Endpoint()
}

func Open(conn *grpc.ClientConn) endpoint.Endpoint {
	return endpointFor(conn, ledgerService, "Open")
}

func Record(conn *grpc.ClientConn) endpoint.Endpoint {
	method := "Record"
	return kitgrpc.NewClient(conn, "audit.Accounts", method, encode, decode, nil).Endpoint()
}

func Either(conn *grpc.ClientConn, audit bool) endpoint.Endpoint {
	service := ledgerService
	if audit {
		service = "audit.Accounts"
	}
	return kitgrpc.NewClient(conn, service, "Open", encode, decode, nil).Endpoint()
}
"""


def test_a_service_or_method_named_by_a_constant_is_read_and_one_given_two_values_stays_unknown(tmp_path: Path):
    root = _system(tmp_path / "bank")
    write_tree(root, {"shop/main.go": NAMED_BY_CONSTANTS})
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = sorted((n.props["grpc"], n.props["line"]) for n in nodes.values()
                     if n.kind == "client" and n.props.get("grpc"))
    assert clients == [("audit.Accounts/Record", 27), ("ledger.Accounts/Open", 22), ("{?}/{?}", 35)]
