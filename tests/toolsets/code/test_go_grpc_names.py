"""Go's generated gRPC code names a service as protoc-gen-go spells it (``GoCamelCase``): a ``.proto`` that
declares ``service orderDesk`` or ``service order_desk`` is registered by ``RegisterOrderDeskServer`` and called
through ``NewOrderDeskClient``; routes and clients carry the name the ``.proto`` declares."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.code_tools import write_tree

from graphlore.toolsets.code.frameworks.grpc.services import go_camel
from graphlore.toolsets.code.index.graph import CodeGraph

SERVER = """package main

import (
	"context"

	"google.golang.org/grpc"

	pb "example.org/desk/gen"
)

type desk struct{}

func (d *desk) Place(ctx context.Context, r *pb.PlaceRequest) (*pb.PlaceReply, error) {
	return nil, nil
}

func main() {
	server := grpc.NewServer()
	pb.RegisterOrderDeskServer(server, &desk{})
}
"""

CLIENT = """package front

import (
	"context"

	pb "example.org/desk/gen"
)

type handler struct {
	desk pb.OrderDeskClient
}

func (h *handler) Submit(ctx context.Context) error {
	_, err := h.desk.Place(ctx, &pb.PlaceRequest{})
	return err
}
"""


def _grpc(root: Path) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """(gRPC route -> handler, {(client's file, gRPC method)}) of the project's index."""
    nodes, edges = CodeGraph.build(root).snapshot()
    routes = {nodes[e.dst].props["grpc"]: nodes[e.src].props["fqn"].rsplit("/", 1)[-1] for e in edges.values()
              if e.type == "EXPOSES" and nodes[e.dst].props.get("framework") == "grpc"}
    clients = {(n.props["file"], n.props["grpc"]) for n in nodes.values() if n.kind == "client" and n.props.get("grpc")}
    return routes, clients


@pytest.mark.parametrize("declared", ["orderDesk", "order_desk", "OrderDesk"])
def test_a_service_declared_in_any_spelling_is_the_one_its_go_names_register_and_call(tmp_path: Path, declared: str):
    proto = f'syntax = "proto3";\npackage desk.v1;\n\nservice {declared} {{\n  rpc Place(PlaceRequest) returns (PlaceReply);\n}}\n'
    root = write_tree(tmp_path / "desk", {
        "proto/desk.proto": proto, "go.mod": "module example.org/desk\n\ngo 1.22\n",
        "main.go": SERVER, "front/handler.go": CLIENT})
    routes, clients = _grpc(root)
    assert routes == {f"desk.v1.{declared}/Place": "desk.desk.Place"}
    assert clients == {("front/handler.go", f"desk.v1.{declared}/Place")}


def test_two_declared_names_with_one_go_spelling_name_neither():
    from graphlore.toolsets.code.frameworks.grpc.services import GrpcServices
    known = GrpcServices(by_simple={"orderDesk": {"a.orderDesk"}, "order_desk": {"b.order_desk"}})
    assert known.go_declared("OrderDesk") == "OrderDesk"
    assert known.go_declared("orderDesk") == "orderDesk"


@pytest.mark.parametrize(("name", "go"), [("readerService", "ReaderService"), ("order_desk", "OrderDesk"),
                                          ("_hidden", "XHidden"), ("v2_api", "V2Api"), ("HTTPGate", "HTTPGate"),
                                          ("a_B", "A_B")])
def test_go_camel_spells_names_as_protoc_gen_go_does(name: str, go: str):
    assert go_camel(name) == go
