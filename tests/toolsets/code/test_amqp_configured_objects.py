"""Go AMQP endpoints configured on an object in one function and used through it elsewhere (the wiring of Go
services built with Wire or by hand): a producer configured on a receiver of a project type sends where the
service calls that type's send method, and a consumer's handler is the function handed to the configured
receiver. Where the evidence does not single one out (two producers configured on one type, two functions handed
to one consumer), the endpoint stays at the configuring call."""

from __future__ import annotations

from pathlib import Path

from helpers.code_graph import edit, render
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

MODULE = "example.org/mill"

BUS = '''package bus

import (
	"context"

	amqp "github.com/rabbitmq/amqp091-go"
)

type Setting func(*sender)

func WithExchange(name string) Setting { return func(s *sender) { s.exchange = name } }

func WithKey(key string) Setting { return func(s *sender) { s.key = key } }

type Sender interface {
	Apply(settings ...Setting)
	Send(ctx context.Context, body []byte) error
}

type sender struct {
	ch            *amqp.Channel
	exchange, key string
}

func NewSender(ch *amqp.Channel) Sender { return &sender{ch: ch} }

func (s *sender) Apply(settings ...Setting) {
	for _, set := range settings {
		set(s)
	}
}

func (s *sender) Send(ctx context.Context, body []byte) error {
	return s.ch.PublishWithContext(ctx, s.exchange, s.key, false, false, amqp.Publishing{Body: body})
}
'''

INBOX = '''package inbox

import amqp "github.com/rabbitmq/amqp091-go"

type Setting func(*reader)

func Queue(name string) Setting { return func(r *reader) { r.queue = name } }
func Exchange(name string) Setting { return func(r *reader) { r.exchange = name } }
func Key(name string) Setting { return func(r *reader) { r.key = name } }

type Reader interface {
	Tune(settings ...Setting)
	Listen(work func(<-chan amqp.Delivery)) error
}

type reader struct {
	ch                   *amqp.Channel
	queue, exchange, key string
}

func NewReader(ch *amqp.Channel) Reader { return &reader{ch: ch} }

func (r *reader) Tune(settings ...Setting) {
	for _, set := range settings {
		set(r)
	}
}

func (r *reader) Listen(work func(<-chan amqp.Delivery)) error {
	q, _ := r.ch.QueueDeclare(r.queue, true, false, false, false, nil)
	_ = r.ch.QueueBind(q.Name, r.key, r.exchange, false, nil)
	msgs, err := r.ch.Consume(r.queue, "", false, false, false, false, nil)
	work(msgs)
	return err
}
'''

# grinder: two senders of two types (each a sender of its own), used by a use case; the app made by a function
GRINDER_ORDERS = '''package orders

import (
	"context"

	"example.org/mill/bus"
)

type FlourSender interface{ bus.Sender }

type BranSender interface{ bus.Sender }

type Mill struct {
	flour FlourSender
	bran  BranSender
}

func (m *Mill) Grind(ctx context.Context) error {
	if err := m.flour.Send(ctx, []byte("sack")); err != nil {
		return err
	}
	return m.bran.Send(ctx, []byte("bran"))
}
'''

GRINDER_APP = '''package app

import "example.org/mill/internal/grinder/orders"

type App struct {
	Flour orders.FlourSender
	Bran  orders.BranSender
}

func Init() (*App, func(), error) { return &App{}, func() {}, nil }
'''

GRINDER_MAIN = '''package main

import (
	"example.org/mill/bus"
	"example.org/mill/internal/grinder/app"
)

func main() {
	a, cleanup, _ := app.Init()
	defer cleanup()
	a.Flour.Apply(bus.WithExchange("flour"), bus.WithKey("sack.ready"))
	a.Bran.Apply(bus.WithExchange("bran"), bus.WithKey("bran.ready"))
}
'''

# baker: one reader handed the app's worker
BAKER_APP = '''package app

import (
	amqp "github.com/rabbitmq/amqp091-go"

	"example.org/mill/inbox"
)

type App struct {
	In inbox.Reader
}

func New() *App { return &App{} }

func (a *App) Worker(messages <-chan amqp.Delivery) {
	for range messages {
		a.bake()
	}
}

func (a *App) bake() {}
'''

BAKER_MAIN = '''package main

import (
	"example.org/mill/inbox"
	"example.org/mill/internal/baker/app"
)

func main() {
	a := app.New()
	a.In.Tune(inbox.Queue("baker-sacks"), inbox.Exchange("flour"), inbox.Key("sack.ready"))
	go func() {
		_ = a.In.Listen(a.Worker)
	}()
}
'''


def _files(**more: str) -> dict[str, str]:
    files = {"go.mod": f"module {MODULE}\n\ngo 1.22\n", "bus/bus.go": BUS, "inbox/inbox.go": INBOX,
             "internal/grinder/orders/orders.go": GRINDER_ORDERS, "internal/grinder/app/app.go": GRINDER_APP,
             "cmd/grinder/main.go": GRINDER_MAIN, "internal/baker/app/app.go": BAKER_APP,
             "cmd/baker/main.go": BAKER_MAIN, **more}
    for name in ("grinder", "baker"):
        files[f"deploy/Dockerfile-{name}"] = f"FROM golang:1.22\nRUN go build -o /app ./cmd/{name}\n"
    return files


def _endpoints(root: Path):
    nodes, edges = CodeGraph.build(root).snapshot()
    fqn = {i: str(n.props.get("fqn", "")).rsplit("/", 1)[-1].rsplit(".", 2)[-2:] for i, n in nodes.items()}
    owner = {"producer": "declaring", "route": "handler"}
    found = {(n.kind, n.props["microservice"], n.props["file"], n.props["line"], n.props["topic"],
              ".".join(fqn.get(n.props[owner[n.kind]], [])))
             for n in nodes.values() if n.kind in owner and not n.props["file"].startswith(("bus/", "inbox/"))}
    return nodes, edges, found


def test_a_configured_producer_sends_where_the_service_calls_its_type_s_send(tmp_path: Path):
    nodes, edges, found = _endpoints(write_tree(tmp_path / "mill", _files()))
    producers = {f for f in found if f[0] == "producer"}
    assert producers == {
        ("producer", "grinder", "internal/grinder/orders/orders.go", 19, "flour/sack.ready", "Mill.Grind"),
        ("producer", "grinder", "internal/grinder/orders/orders.go", 22, "bran/bran.ready", "Mill.Grind")}
    routes = {f for f in found if f[0] == "route"}
    assert routes == {("route", "baker", "cmd/baker/main.go", 10, "flour/sack.ready", "App.Worker"),
                      ("route", "baker", "cmd/baker/main.go", 10, "baker-sacks", "App.Worker")}
    links = {(nodes[e.src].props["file"], nodes[e.dst].props["topic"], e.props["match"])
             for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert links == {("internal/grinder/orders/orders.go", "flour/sack.ready", "cross_service")}


def test_two_producers_on_one_type_or_two_handed_functions_stay_at_the_configuring_call(tmp_path: Path):
    one_type = GRINDER_APP.replace("Bran  orders.BranSender", "Bran  orders.FlourSender")
    two_workers = BAKER_MAIN.replace("_ = a.In.Listen(a.Worker)", "_ = a.In.Listen(a.Worker)\n\t\t_ = a.In.Listen(a.Other)")
    baker_app = BAKER_APP + "\nfunc (a *App) Other(messages <-chan amqp.Delivery) {}\n"
    _, _, found = _endpoints(write_tree(tmp_path / "mill", _files(**{
        "internal/grinder/app/app.go": one_type, "cmd/baker/main.go": two_workers,
        "internal/baker/app/app.go": baker_app})))
    # which of the two flour senders a call sends through is not known: both stay where they are configured
    assert {(f[2], f[3], f[4], f[5]) for f in found if f[0] == "producer"} == {
        ("cmd/grinder/main.go", 11, "flour/sack.ready", "grinder.main"),
        ("cmd/grinder/main.go", 12, "bran/bran.ready", "grinder.main")}
    assert {f[5] for f in found if f[0] == "route"} == {"baker.main"}


def test_a_producer_configured_where_its_type_is_not_known_keeps_the_others_at_their_configuring_calls(tmp_path: Path):
    bus = BUS + "\nfunc Made(settings ...Setting) Sender {\n\ts := &sender{}\n\ts.Apply(settings...)\n\treturn s\n}\n"
    main = GRINDER_MAIN.replace("\ta.Bran.Apply(", "\t_ = bus.Made(bus.WithExchange(\"chaff\"), bus.WithKey(\"chaff.ready\"))\n"
                                                  "\ta.Bran.Apply(")
    _, _, found = _endpoints(write_tree(tmp_path / "mill", _files(**{"bus/bus.go": bus, "cmd/grinder/main.go": main})))
    # the constructor's object may be the one a use case sends through: nothing moves to the send calls
    assert {(f[2], f[4]) for f in found if f[0] == "producer"} == {
        ("cmd/grinder/main.go", "flour/sack.ready"), ("cmd/grinder/main.go", "chaff/chaff.ready"),
        ("cmd/grinder/main.go", "bran/bran.ready")}


def test_an_update_of_the_sending_or_the_configured_file_equals_a_full_build(tmp_path: Path):
    root = write_tree(tmp_path / "mill", _files())
    graph = CodeGraph.build(root)
    # the use case stops sending bran: one producer fewer, found in a file that imports no AMQP library
    edit(root, "internal/grinder/orders/orders.go", "return m.bran.Send(ctx, []byte(\"bran\"))", "return nil")
    graph.update()
    lines = render(graph)
    assert lines == render(CodeGraph.build(root))
    assert not any("bran/bran.ready" in line and "Mill.Grind" in line for line in lines)
    # the field's type changes: two flour senders, so both stay where they are configured
    edit(root, "internal/grinder/app/app.go", "Bran  orders.BranSender", "Bran  orders.FlourSender")
    graph.update()
    assert render(graph) == render(CodeGraph.build(root))
