"""Call traces across services: the edges `paths` needs to follow a request from one service's code down to
another's, by default, in one call."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import node, run, write_tree

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


#: a component hands a function nested in it to a framework (``mutationFn``) instead of calling it by name
COMPONENT = """import { useMutation } from "@tanstack/react-query"
import { removeUser } from "./store"

export const DeleteUser = ({ id }: { id: string }) => {
  const deleteUser = async (userId: string) => {
    await removeUser(userId)
  }
  const mutation = useMutation({ mutationFn: deleteUser })
  return mutation
}
"""

STORE = """export async function removeUser(id: string) {
  return dropRow(id)
}

export function dropRow(id: string) {
  return id
}

export class Audit {
  record(id: string) {
    return id
  }
}
"""


def test_paths_go_on_through_a_function_nested_in_the_one_that_hands_it_on(tmp_path: Path, runtime):
    tree = write_tree(tmp_path / "web", {"package.json": '{"name": "web"}', "src/DeleteUser.tsx": COMPONENT,
                                          "src/store.ts": STORE})
    project = (runtime, tree)
    out = run(*project, "paths", from_id=node(project, "DeleteUser"), to_id=node(project, "dropRow"))
    assert [(h.source.label, h.edge, h.target.label) for h in out.paths[0].hops] == [
        ("src/DeleteUser.tsx#DeleteUser", "DECLARES", "src/DeleteUser.tsx#DeleteUser.deleteUser"),
        ("src/DeleteUser.tsx#DeleteUser.deleteUser", "CALLS", "src/store.ts#removeUser"),
        ("src/store.ts#removeUser", "CALLS", "src/store.ts#dropRow")]
    # a module stands for the functions it declares, as a class for its methods
    module = run(*project, "resolve", identifier="src/DeleteUser.tsx").node.id
    assert run(*project, "paths", from_id=module, to_id=node(project, "dropRow")).paths
    # a nested function is part of what runs when the one declaring it does, so a call is 2 hops away
    reached = run(*project, "impact", id=node(project, "dropRow"), direction="in", depth=2).results
    assert {r.node.label.split("#")[-1] for r in reached} >= {"removeUser", "DeleteUser.deleteUser", "DeleteUser"}
    # a module or a class in the middle of a walk is not a hop to everything it declares
    down = run(*project, "impact", id=node(project, "removeUser"), direction="out", depth=3).results
    assert {r.node.label.split("#")[-1] for r in down} == {"dropRow"}
