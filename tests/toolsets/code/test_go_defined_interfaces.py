"""Go types defined over an interface (``type CancelHandler decorator.CommandHandler[Cancel]``, ``type Store Repo``):
a call through one (a struct field of an application's command set, as CQRS-style Go services hold their
handlers) reaches, for an instantiation of a generic interface, the one implementation whose method takes the
instantiation's type argument (not the generic decorators, not the other commands' handlers; two such
implementations: no edge); for a plain defined interface, the interface's method (dispatch). And a gRPC server
registered as a local made by its constructor in another package serves its routes with that type's methods.
A method that takes another project type (or a builtin one) than an interface's method of that name implements
nothing of it (an alias is the type it names)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

DECORATOR = """package decorator

import "context"

type CommandHandler[C any] interface {
	Handle(ctx context.Context, cmd C) error
}

type QueryHandler[Q any, R any] interface {
	Handle(ctx context.Context, q Q) (R, error)
}

type commandLogging[C any] struct {
	base CommandHandler[C]
}

func (d commandLogging[C]) Handle(ctx context.Context, cmd C) error {
	return d.base.Handle(ctx, cmd)
}

func Apply[C any](handler CommandHandler[C]) CommandHandler[C] {
	return commandLogging[C]{base: handler}
}
"""

CANCEL = """package command

import (
	"context"

	"example.org/gym/common/decorator"
)

type Cancel struct{ ID string }

type CancelHandler decorator.CommandHandler[Cancel]

type cancelHandler struct{}

func NewCancelHandler() CancelHandler {
	return decorator.Apply[Cancel](cancelHandler{})
}

func (h cancelHandler) Handle(ctx context.Context, cmd Cancel) error {
	return nil
}
"""

SCHEDULE = """package command

import (
	"context"

	"example.org/gym/common/decorator"
)

type Schedule struct{ ID string }

type ScheduleHandler decorator.CommandHandler[Schedule]

type scheduleHandler struct{}

func (h scheduleHandler) Handle(ctx context.Context, cmd Schedule) error {
	return nil
}

// two implementations of one instantiation: which one runs is not in the code
type Move struct{ ID string }

type MoveHandler decorator.CommandHandler[Move]

type moveHandler struct{}

func (h moveHandler) Handle(ctx context.Context, cmd Move) error { return nil }

type otherMoveHandler struct{}

func (h otherMoveHandler) Handle(ctx context.Context, cmd Move) error { return nil }

// an instantiation with a type from outside the project names no implementation
type NoteHandler decorator.CommandHandler[string]
"""

QUERY = """package query

import (
	"context"

	"example.org/gym/common/decorator"
)

type Trainings struct{}

type Training struct{ ID string }

type TrainingsHandler decorator.QueryHandler[Trainings, []Training]

type trainingsHandler struct{}

func (h trainingsHandler) Handle(ctx context.Context, q Trainings) ([]Training, error) {
	return nil, nil
}
"""

STORAGE = """package app

import "context"

type Repo interface {
	Save(ctx context.Context, id string) error
}

// a plain defined interface: its methods are Repo's
type Store Repo
"""

APP = """package app

import (
	"example.org/gym/trainings/app/command"
	"example.org/gym/trainings/app/query"
)

type Commands struct {
	Cancel   command.CancelHandler
	Schedule command.ScheduleHandler
	Move     command.MoveHandler
	Note     command.NoteHandler
}

type Queries struct {
	Trainings query.TrainingsHandler
}

type Application struct {
	Commands Commands
	Queries  Queries
	Store    Store
}
"""

PORTS = """package ports

import (
	"context"

	"example.org/gym/trainings/app"
	"example.org/gym/trainings/app/command"
	"example.org/gym/trainings/app/query"
)

type HttpServer struct {
	app app.Application
}

func (h HttpServer) CancelTraining(ctx context.Context, id string) error {
	return h.app.Commands.Cancel.Handle(ctx, command.Cancel{ID: id})
}

func (h HttpServer) MoveTraining(ctx context.Context, id string) error {
	return h.app.Commands.Move.Handle(ctx, command.Move{ID: id})
}

func (h HttpServer) Note(ctx context.Context, id string) error {
	return h.app.Commands.Note.Handle(ctx, id)
}

func (h HttpServer) List(ctx context.Context) error {
	_, err := h.app.Queries.Trainings.Handle(ctx, query.Trainings{})
	return err
}

func (h HttpServer) Keep(ctx context.Context, id string) error {
	return h.app.Store.Save(ctx, id)
}
"""


def _tree(root: Path) -> Path:
    return write_tree(root, {
        "common/go.mod": "module example.org/gym/common\n\ngo 1.22\n",
        "common/decorator/command.go": DECORATOR,
        "trainings/go.mod": "module example.org/gym/trainings\n\ngo 1.22\n",
        "trainings/app/command/cancel.go": CANCEL,
        "trainings/app/command/schedule.go": SCHEDULE,
        "trainings/app/query/trainings.go": QUERY,
        "trainings/app/storage.go": STORAGE,
        "trainings/app/app.go": APP,
        "trainings/ports/http.go": PORTS,
    })


def _calls(root: Path) -> dict[str, set[str]]:
    nodes, edges = CodeGraph.build(root).snapshot()
    short = {i: n.props.get("fqn", n.name).rsplit("/", 1)[-1] for i, n in nodes.items()}
    out: dict[str, set[str]] = {}
    for e in edges.values():
        if e.type == "CALLS":
            out.setdefault(short[e.src], set()).add(short[e.dst])
    return out


def test_a_call_through_an_instantiated_generic_interface_reaches_the_one_implementation_of_its_type(tmp_path):
    calls = _calls(_tree(tmp_path / "gym"))
    assert calls["ports.HttpServer.CancelTraining"] == {"command.cancelHandler.Handle"}
    assert calls["ports.HttpServer.List"] == {"query.trainingsHandler.Handle"}


def test_two_implementations_or_an_outside_type_argument_draw_no_edge(tmp_path):
    calls = _calls(_tree(tmp_path / "gym"))
    assert "ports.HttpServer.MoveTraining" not in calls
    assert "ports.HttpServer.Note" not in calls


def test_a_call_through_a_plain_defined_interface_reaches_the_interface_method(tmp_path):
    calls = _calls(_tree(tmp_path / "gym"))
    assert calls["ports.HttpServer.Keep"] == {"app.Repo.Save"}


GRPC_PROTO = """syntax = "proto3";
package gym.v1;

service Trainer {
  rpc Schedule(ScheduleRequest) returns (ScheduleResponse);
}
"""

GRPC_PORTS = """package ports

import (
	"context"

	pb "example.org/gym/trainer/gen"
)

type GrpcServer struct{ name string }

func NewGrpcServer(name string) GrpcServer {
	return GrpcServer{name: name}
}

func (g GrpcServer) Schedule(ctx context.Context, r *pb.ScheduleRequest) (*pb.ScheduleResponse, error) {
	return nil, nil
}
"""

GRPC_MAIN = """package main

import (
	"google.golang.org/grpc"

	pb "example.org/gym/trainer/gen"
	"example.org/gym/trainer/ports"
)

func main() {
	server := grpc.NewServer()
	svc := ports.NewGrpcServer("trainer")
	pb.RegisterTrainerServer(server, svc)
}
"""


def test_a_grpc_server_made_by_its_constructor_in_another_package_serves_the_routes(tmp_path: Path):
    root = write_tree(tmp_path / "gym", {
        "proto/trainer.proto": GRPC_PROTO, "trainer/go.mod": "module example.org/gym/trainer\n\ngo 1.22\n",
        "trainer/ports/grpc.go": GRPC_PORTS, "trainer/main.go": GRPC_MAIN,
        "trainer/Dockerfile": "FROM golang:1.22\nCOPY . .\nRUN go build -o /app .\n"})
    nodes, edges = CodeGraph.build(root).snapshot()
    handlers = {nodes[e.dst].props["grpc"]: nodes[e.src].props["fqn"].rsplit("/", 1)[-1] for e in edges.values()
                if e.type == "EXPOSES" and nodes[e.dst].props.get("framework") == "grpc"}
    assert handlers == {"gym.v1.Trainer/Schedule": "ports.GrpcServer.Schedule"}


EVENTS = """package event

type BaristaOrderUpdated struct{ ID string }

type KitchenOrderUpdated struct{ ID string }

// an alias is the type it names
type BaristaUpdated = BaristaOrderUpdated
"""

HANDLER_INTERFACES = """package events

import (
	"context"

	"example.org/shop/event"
)

type (
	BaristaUpdatedHandler interface {
		Handle(context.Context, *event.BaristaOrderUpdated) error
	}

	KitchenUpdatedHandler interface {
		Handle(context.Context, *event.KitchenOrderUpdated) error
	}

	// takes any payload: every Handle(ctx, x) implements it
	AnyHandler interface {
		Handle(context.Context, string) error
	}
)
"""

HANDLERS = """package handlers

import (
	"context"

	"example.org/shop/event"
)

type baristaUpdated struct{}

func (h *baristaUpdated) Handle(ctx context.Context, e *event.BaristaOrderUpdated) error { return nil }

type kitchenUpdated struct{}

func (h *kitchenUpdated) Handle(ctx context.Context, e *event.KitchenOrderUpdated) error { return nil }

type baristaAliased struct{}

func (h baristaAliased) Handle(ctx context.Context, e *event.BaristaUpdated) error { return nil }
"""


def test_a_go_method_taking_another_project_type_implements_no_interface_method_of_that_name(tmp_path: Path):
    root = write_tree(tmp_path / "shop", {"go.mod": "module example.org/shop\n\ngo 1.22\n",
                                          "event/event.go": EVENTS, "events/interfaces.go": HANDLER_INTERFACES,
                                          "handlers/handlers.go": HANDLERS})
    nodes, edges = CodeGraph.build(root).snapshot()
    short = {i: n.props.get("fqn", n.name).rsplit("/", 1)[-1] for i, n in nodes.items()}
    overrides = {(short[e.src], short[e.dst]) for e in edges.values() if e.type == "OVERRIDES"}
    assert overrides == {("handlers.baristaUpdated.Handle", "events.BaristaUpdatedHandler.Handle"),
                         ("handlers.baristaAliased.Handle", "events.BaristaUpdatedHandler.Handle"),
                         ("handlers.kitchenUpdated.Handle", "events.KitchenUpdatedHandler.Handle")}


EMBEDDING = """package dec

import "context"

type Handler[C any] interface {
	Handle(ctx context.Context, cmd C) error
}

// Handle's C is Handler's, bound to Pair's A by the embedding: Pair's own C is another parameter
type Pair[A any, C any] interface {
	Handler[A]
	Done(c C)
}
"""

PAIRS = """package cmd

import (
	"context"

	"example.org/gym/dec"
)

type Cancel struct{ ID string }

type Move struct{ ID string }

type CancelPair dec.Pair[Cancel, Move]

type pairImpl struct{}

func (h pairImpl) Handle(ctx context.Context, cmd Cancel) error { return nil }

func (h pairImpl) Done(m Move) {}

type moveImpl struct{}

func (h moveImpl) Handle(ctx context.Context, cmd Move) error { return nil }

func (h moveImpl) Done(m Move) {}
"""

PAIR_PORTS = """package ports

import (
	"context"

	"example.org/gym/cmd"
)

type Server struct {
	pair cmd.CancelPair
}

func (s Server) Pair(ctx context.Context) error {
	return s.pair.Handle(ctx, cmd.Cancel{})
}
"""


def test_a_method_of_an_embedded_generic_interface_is_not_matched_by_the_embedder_s_parameter_names(tmp_path):
    """``Pair[Cancel, Move]``'s ``Handle`` is ``Handler[A]``'s: it takes ``Cancel``, not ``Move`` (the embedder's own
    ``C``); how the embedding binds the parameters is not read, so no implementation is picked."""
    calls = _calls(write_tree(tmp_path / "gym", {"go.mod": "module example.org/gym\n\ngo 1.22\n",
                                                 "dec/dec.go": EMBEDDING, "cmd/cmd.go": PAIRS,
                                                 "ports/ports.go": PAIR_PORTS}))
    assert "cmd.moveImpl.Handle" not in calls.get("ports.Server.Pair", set())


def test_an_implementation_taking_an_alias_of_the_type_argument_is_that_implementation(tmp_path: Path):
    """``Handle(ctx, cmd CancelCmd)`` with ``type CancelCmd = Cancel`` takes ``Cancel``: it implements
    ``CommandHandler[Cancel]``, so the call through ``CancelHandler`` reaches it."""
    root = _tree(tmp_path / "gym")
    cancel = root / "trainings/app/command/cancel.go"
    cancel.write_text(cancel.read_text().replace(
        "func (h cancelHandler) Handle(ctx context.Context, cmd Cancel) error {",
        "type CancelCmd = Cancel\n\nfunc (h cancelHandler) Handle(ctx context.Context, cmd CancelCmd) error {"))
    assert _calls(root)["ports.HttpServer.CancelTraining"] == {"command.cancelHandler.Handle"}
