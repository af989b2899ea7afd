"""A Go gRPC stub made in one constructor (``NewLedgerClient()`` dials an address from the environment and returns
``pb.NewLedgerClient(conn)``) and handed to an adapter as a struct field or a parameter: the adapter's calls dial
what that one construction dials, settled with the deployment's environment. A stub the project makes in two
places leaves the channel unknown (which one the adapter holds is not in the code)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

PROTO = """syntax = "proto3";
package books.v1;
service Ledger { rpc Post(Entry) returns (Receipt); }
"""

FACTORY = """package client

import (
	"os"

	"google.golang.org/grpc"

	pb "example.org/books/gen"
)

func NewLedgerClient() (pb.LedgerClient, error) {
	addr := os.Getenv("LEDGER_GRPC_ADDR")
	conn, err := grpc.Dial(addr)
	if err != nil {
		return nil, err
	}
	return pb.NewLedgerClient(conn), nil
}
"""

ADAPTER = """package adapters

import (
	"context"

	pb "example.org/books/gen"
)

type LedgerGrpc struct {
	client pb.LedgerClient
}

func (l LedgerGrpc) Post(ctx context.Context) error {
	_, err := l.client.Post(ctx, &pb.Entry{})
	return err
}

func PostWith(ctx context.Context, ledger pb.LedgerClient) error {
	_, err := ledger.Post(ctx, &pb.Entry{})
	return err
}
"""

SECOND = """package client

import (
	"google.golang.org/grpc"

	pb "example.org/books/gen"
)

func NewLocalLedger() pb.LedgerClient {
	conn, _ := grpc.Dial("localhost:7000")
	return pb.NewLedgerClient(conn)
}
"""

SERVER = """package main

import (
	"context"

	"google.golang.org/grpc"

	pb "example.org/books/gen"
)

type server struct{}

func (s *server) Post(ctx context.Context, e *pb.Entry) (*pb.Receipt, error) { return nil, nil }

func main() {
	pb.RegisterLedgerServer(grpc.NewServer(), &server{})
}
"""


def _files(extra: dict[str, str]) -> dict[str, str]:
    return {
        "proto/books.proto": PROTO,
        "billing/go.mod": "module example.org/books/billing\n\ngo 1.22\n", "billing/Dockerfile": "FROM scratch\n",
        "billing/client/grpc.go": FACTORY, "billing/adapters/ledger.go": ADAPTER,
        "ledger/go.mod": "module example.org/books/ledger\n\ngo 1.22\n", "ledger/Dockerfile": "FROM scratch\n",
        "ledger/main.go": SERVER,
        "docker-compose.yml": "services:\n  billing:\n    build: ./billing\n    environment:\n"
                              "      LEDGER_GRPC_ADDR: ledger:9090\n  ledger:\n    build: ./ledger\n",
        **extra}


def _channels(root: Path) -> dict[str, tuple[str | None, str | None]]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.props["declaring_fqn"].rsplit(".", 1)[-1]: (n.props.get("channel_address"), n.props.get("channel_service"))
            for n in nodes.values() if n.kind == "client" and n.props.get("client_kind") == "grpc"}


def test_a_stub_made_once_gives_its_field_and_parameter_users_its_address(tmp_path: Path):
    found = _channels(write_tree(tmp_path / "one", _files({})))
    assert found == {"Post": ("ledger:9090", "ledger"), "PostWith": ("ledger:9090", "ledger")}


def test_a_stub_made_in_two_places_leaves_the_channel_unknown(tmp_path: Path):
    found = _channels(write_tree(tmp_path / "two", _files({"billing/client/local.go": SECOND})))
    assert set(found) == {"Post", "PostWith"}
    assert all(service is None and "ledger:9090" not in (address or "") for address, service in found.values())


PROBE = """package main

import (
	"google.golang.org/grpc"

	pb "example.org/books/gen"
)

func probe() pb.LedgerClient {
	conn, _ := grpc.Dial("localhost:7000")
	return pb.NewLedgerClient(conn)
}
"""


def test_a_stub_made_only_in_another_service_gives_no_address(tmp_path: Path):
    """billing holds a stub it never makes in its own code (or a library's); the one ``NewLedgerClient`` of the project
    is the ledger service's own probe, which runs in another process: billing's channel stays unknown."""
    files = _files({"ledger/probe.go": PROBE})
    del files["billing/client/grpc.go"]
    found = _channels(write_tree(tmp_path / "other", files))
    assert set(found) == {"Post", "PostWith"}
    assert all(service is None and "7000" not in (address or "") for address, service in found.values()), found


def test_another_services_construction_does_not_hide_the_one_of_the_callers_own_service(tmp_path: Path):
    found = _channels(write_tree(tmp_path / "own", _files({"ledger/probe.go": PROBE})))
    assert found == {"Post": ("ledger:9090", "ledger"), "PostWith": ("ledger:9090", "ledger")}
