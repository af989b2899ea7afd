"""Go, Kotlin, C# and .proto files, and gRPC as a link: the polyglot fixture systems (exact expected sets), the
structure each new language gives, incremental updates equal to a full build, and microservices-demo against
its hand-made answer key (bench/data/code_gold)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.code_graph import FIXTURES, bump, edit, expected_lines, render

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.kotlin.extract import extract as kotlin
from graphlore.toolsets.code.languages.proto.extract import extract as proto

PART2_EDGES = ("EXPOSES", "HTTP_CALLS", "ASYNC_CALLS", "GRPC_CALLS", "DECLARES_CLIENT", "DECLARES_PRODUCER")
GOLD = Path(__file__).resolve().parents[3] / "bench" / "data" / "code_gold" / "microservices-demo.json"


def part2(graph: CodeGraph) -> list[str]:
    return [line for line in render(graph) if line[0] in "RCPS"
            or (line.startswith("E ") and line.split()[1] in PART2_EDGES)]


@pytest.mark.parametrize("system", ["polyglot-grpc", "polyglot-web"])
def test_polyglot_routes_clients_producers_and_links_are_exactly_the_expected_ones(system):
    assert part2(CodeGraph.build(FIXTURES / system)) == expected_lines(f"{system.replace('-', '_')}_services.txt")


def test_grpc_links_say_how_they_matched():
    nodes, edges = CodeGraph.build(FIXTURES / "polyglot-grpc").snapshot()
    links = [e for e in edges.values() if e.type == "GRPC_CALLS"]
    assert {e.props["match"] for e in links} == {"cross_service", "ambiguous"}
    for edge in links:
        client, route = nodes[edge.src].props, nodes[edge.dst].props
        assert client["grpc"] == route["grpc"] == edge.props["evidence"]["grpc"]
        assert edge.props["evidence"]["service"] == route["microservice"]
        assert client["grpc_service"] == route["grpc_service"] == client["grpc"].split("/")[0]
    quote = [n for n in nodes.values() if n.kind == "client" and n.props["grpc"] == "shop.v1.Pricing/Quote"]
    assert quote[0].props["target_service"] is None and "2 microservices serve" in quote[0].props["match_detail"]


def _symbols(graph: CodeGraph) -> dict[str, dict]:
    nodes, _ = graph.snapshot()
    return {n.props["fqn"]: n.props for n in nodes.values() if n.kind == "symbol"}


def _edges(graph: CodeGraph, kind: str) -> set[tuple[str, str]]:
    nodes, edges = graph.snapshot()
    return {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"]) for e in edges.values() if e.type == kind}


def test_each_language_gives_its_structure():
    graph = CodeGraph.build(FIXTURES / "polyglot-grpc")
    symbols = _symbols(graph)
    # Go: import paths from go.mod, methods keyed by their receiver, implicit implementation, calls by type
    go = "example.com/shop/orders"
    assert symbols[f"{go}.server.Place"]["symbol_kind"] == "method"
    assert symbols[f"{go}.main"]["capabilities"] == ["ENTRY_POINT"]
    assert (f"{go}.server", f"{go}/genproto.OrdersServer") in _edges(graph, "IMPLEMENTS")
    assert (f"{go}.server.Place", f"{go}/genproto.stockClient.Reserve") not in _edges(graph, "CALLS")
    assert (f"{go}.main", f"{go}/genproto.NewStockClient") in _edges(graph, "CALLS")
    assert symbols["orders/genproto/shop_grpc.pb.go"]["generated"] is True
    # C#: namespaces, overrides of the generated base, a field typed by a nested client
    assert symbols["Stock.Services.StockService"]["extends"] == ["Shop.V1.Stock.StockBase"]
    assert (f"{'Stock.Services.StockService.Reserve'}", "Stock.Services.StockService.Next") in _edges(graph, "CALLS")
    # Kotlin: JVM-style keys, a constructor property, calls into its own types
    assert symbols["shop.billing.BillingService#ledger"]["symbol_kind"] == "field"
    assert ("shop.billing.BillingService#charge(ChargeRequest)", "shop.billing.Ledger#record(String,Long)") \
        in _edges(graph, "CALLS")
    # proto: services, rpc methods and messages in the proto package
    assert symbols["shop.v1.Orders"]["symbol_kind"] == "interface"
    assert symbols["shop.v1.Orders.Watch"]["signature"] == "rpc Watch(GetRequest) returns (stream Order)"
    assert symbols["shop.v1.Order.Line"]["symbol_kind"] == "record"


def test_services_come_from_go_mod_csproj_gradle_kotlin_dsl_and_dockerfiles():
    nodes, _ = CodeGraph.build(FIXTURES / "polyglot-grpc").snapshot()
    services = {n.name: n.props for n in nodes.values() if n.kind == "microservice"}
    assert services["orders"]["declared_names"] == {"go.mod module": "orders"}
    assert services["stock"]["declared_names"] == {"csproj": "stock"} and services["stock"]["deployable"]
    assert services["billing"]["declared_names"] == {"rootProject.name": "billing"}
    assert services["notify"]["name_source"] == "folder" and services["notify"]["deployable"]   # a Dockerfile
    assert not services["web"]["deployable"]   # package.json, no Dockerfile
    assert "db" not in services   # a Dockerfile FROM mongo with a seed script: a datastore, not a service


def test_kotlin_one_line_bodies_keep_their_lines():
    facts = kotlin("a/Paths.kt", b'package a\n\nobject Paths { const val BASE = "/x" }\nclass B { fun f() = 1 }\n'
                                b'fun g() { B().f() }\n')
    assert facts.syntax_errors == 0 and facts.loc == 5
    lines = {s.key: s.line_start for s in facts.symbols}
    assert lines == {"Paths": 3, "Paths#BASE": 3, "B": 4, "B#f()": 4, "g()": 5}
    assert next(s for s in facts.symbols if s.key == "Paths#BASE").modifiers[:3] == ("const", "static", "final")
    assert [(c.name, c.line) for c in facts.calls] == [("B", 5), ("f", 5)]


def test_a_proto_the_parser_rejects_still_gives_its_services():
    facts = proto("x.proto", b'syntax = "proto3";\npackage a.b;\nservice S {\n  rpc X(Y) returns (stream Z);\n'
                             b'  rpc W(Q) returns (Q) {\n')
    assert facts.syntax_errors == 1 and facts.package == "a.b"
    assert [(s.key, s.line_start, s.extra.get("grpc")) for s in facts.symbols] == [
        ("S", 3, None), ("S.X", 4, "a.b.S/X"), ("S.W", 5, "a.b.S/W")]


@pytest.fixture
def polyglot(tmp_path):
    root = tmp_path / "polyglot-grpc"
    shutil.copytree(FIXTURES / "polyglot-grpc", root)
    return root


def test_updates_equal_a_full_build(polyglot):
    graph = CodeGraph.build(polyglot)
    # a new rpc and its Go implementation: a new route; the legacy Pricing server goes: Quote is linked again
    edit(polyglot, "protos/shop/shop.proto", "  rpc Get(GetRequest) returns (Order) {}",
         "  rpc Get(GetRequest) returns (Order) {}\n  rpc Cancel(GetRequest) returns (Order);")
    edit(polyglot, "orders/main.go", "func main() {",
         "func (s *server) Cancel(ctx context.Context, req *pb.GetRequest) (*pb.Order, error) {\n"
         "\treturn nil, nil\n}\n\nfunc main() {")
    (polyglot / "legacy" / "pricing.py").unlink()
    graph.update()
    assert graph.snapshot() == CodeGraph.build(polyglot).snapshot()
    lines = part2(graph)
    assert any(line.startswith("R grpc shop.v1.Orders/Cancel framework=grpc handler=example.com/shop/orders.server.Cancel")
               for line in lines)
    assert "C grpc web shop.v1.Pricing/Quote kind=grpc from=Stock.Services.StockService.Reserve match=cross_service" \
        in lines
    # an interface method the Go server lacks: it no longer implements the interface, in an update as in a build
    edit(polyglot, "orders/genproto/shop_grpc.pb.go", "\tGet(context.Context, *GetRequest) (*Order, error)\n",
         "\tGet(context.Context, *GetRequest) (*Order, error)\n\tDrop(context.Context) error\n")
    stats = graph.update()
    assert "orders/main.go" in stats.resolved_paths
    assert graph.snapshot() == CodeGraph.build(polyglot).snapshot()
    assert ("example.com/shop/orders.server", "example.com/shop/orders/genproto.OrdersServer") \
        not in _edges(graph, "IMPLEMENTS")
    bump(polyglot / "orders" / "go.mod")
    graph.update()
    assert graph.snapshot() == CodeGraph.build(polyglot).snapshot()


@pytest.mark.slow  # a whole real system (67 files): the everyday run has its fixture twin above
def test_microservices_demo_matches_the_answer_key(shared_data):
    root = shared_data / "code" / "microservices-demo"
    if not root.is_dir():
        pytest.skip(f"needs {root}")
    key = json.loads(GOLD.read_text(encoding="utf-8"))
    nodes, edges = CodeGraph.build(root).snapshot()
    roots = {s["root"]: s["name"] for s in key["services"]}
    services = {n.name: roots.get(n.props["root"]) for n in nodes.values() if n.kind == "microservice"}
    assert {s for n, s in services.items() if s} == {s["name"] for s in key["services"]}
    routes = {(services[n.props["microservice"]], n.props["grpc"]): n.id for n in nodes.values()
              if n.kind == "route" and n.props.get("grpc")}
    gold_routes = {(r["service"], r["grpc"]): r for r in key["routes"] if r["kind"] == "grpc"}
    assert set(routes) <= set(gold_routes)   # no false positive
    assert {k for k, r in gold_routes.items() if r["required"]} <= set(routes)
    clients = {}
    for node in nodes.values():
        if node.kind == "client" and node.props.get("grpc"):
            found = [c["id"] for c in key["clients"] if c["kind"] == "grpc" and c["file"] == node.props["file"]
                     and c["span"][0] <= node.props["line"] <= c["span"][1] and c["grpc"] == node.props["grpc"]]
            assert found, f"false positive: {node.props['file']}:{node.props['line']} {node.props['grpc']}"
            clients[node.id] = found[0]
    assert {c["id"] for c in key["clients"] if c["kind"] == "grpc" and c["required"]} <= set(clients.values())
    route_ids = {node_id: gold_routes[k]["id"] for k, node_id in routes.items()}
    links = {(clients[e.src], route_ids[e.dst]) for e in edges.values() if e.type == "GRPC_CALLS"}
    gold_links = {(link["from"], link["to"]): link for link in key["links"] if link["via"] == "grpc"}
    assert links <= set(gold_links)
    assert {k for k, link in gold_links.items() if link["required"]} <= links


def test_stubs_of_a_service_no_proto_declares_are_unresolved_clients_never_dropped():
    """grpc-no-proto (its README): one stub call per language on a service whose .proto is elsewhere; the
    stub's own API, a Redis client in a file without gRPC, an HttpClient and a bare test double are not
    gRPC clients."""
    nodes, edges = CodeGraph.build(FIXTURES / "grpc-no-proto").snapshot()
    grpc = sorted((n.props["file"], n.props["line"], n.props["label"]) for n in nodes.values()
                  if n.kind == "client" and n.props["client_kind"] == "grpc")
    assert grpc == [
        ("Billing/Invoices.cs", 21, "grpc ? {?}.Ledger/PostAsync"),
        ("audit/audit.py", 10, "grpc ? {?}.Ledger/Post"),
        ("payments/main.go", 15, "grpc ? {?}.Ledger/Post"),
        ("reports/src/main/java/acme/reports/ReportService.java", 18, "grpc ? {?}.Ledger/getBalance"),
        ("reports/src/main/java/acme/reports/ReportService.java", 22, "grpc ? {?}.Ledger/getBalance"),
    ]
    for node in nodes.values():
        if node.kind == "client" and node.props["client_kind"] == "grpc":
            assert node.props["match"] == "unresolved" and node.props["resolved"] is False
            assert node.props["unresolved_reason"] == "no .proto in the project declares a gRPC service named Ledger"
    assert not [e for e in edges.values() if e.type == "GRPC_CALLS"]


def test_a_gorilla_path_prefix_with_a_handler_serves_everything_under_it(tmp_path):
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "go.mod").write_text("module example.com/web\n\ngo 1.21\n", encoding="utf-8")
    (tmp_path / "web" / "main.go").write_text('''package main

import (
	"net/http"

	"github.com/gorilla/mux"
)

func home(w http.ResponseWriter, r *http.Request) {}

func main() {
	r := mux.NewRouter()
	r.HandleFunc("/", home).Methods(http.MethodGet)
	r.PathPrefix("/static/").Handler(http.StripPrefix("/static/", http.FileServer(http.Dir("./static/"))))
	api := r.PathPrefix("/api").Subrouter()
	api.HandleFunc("/items", home)
	http.ListenAndServe(":8080", r)
}
''', encoding="utf-8")
    routes = sorted(line.split(" framework")[0] for line in render(CodeGraph.build(tmp_path)) if line.startswith("R "))
    assert routes == ["R ANY /api/items", "R ANY /static/**", "R GET /"]


GO_CLIENT = '''package main

import (
	"net/http"
	"os"
)

type ordersClient struct {
	baseURL string
	http    *http.Client
}

func newOrdersClient() *ordersClient {
	return &ordersClient{baseURL: "http://" + os.Getenv("ORDERS_ADDR"), http: &http.Client{}}
}

func (c *ordersClient) get(id string) (*http.Response, error) {
	return c.http.Get(c.baseURL + "/orders/" + id)
}
%s
func main() {
	newOrdersClient().get("1")
}
'''


@pytest.mark.parametrize("other", ["", 'type billing struct{ baseURL string }\n\nvar b = billing{baseURL: "http://billing"}\n'])
def test_a_go_clients_base_url_from_the_struct_literal_its_constructor_writes(tmp_path, other):
    """``&ordersClient{baseURL: "http://" + os.Getenv("ORDERS_ADDR")}`` with ORDERS_ADDR from Compose: the client
    links; when another struct type of the package also sets a ``baseURL`` in a literal, which one ``c.baseURL``
    is is not known, and the client stays unresolved (never a guessed link)."""
    for name in ("orders", "web"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "go.mod").write_text(f"module example.com/{name}\n\ngo 1.22\n", encoding="utf-8")
        (tmp_path / name / "Dockerfile").write_text("FROM golang\n", encoding="utf-8")
    (tmp_path / "orders" / "main.go").write_text('package main\n\nimport "net/http"\n\nfunc list(w http.ResponseWriter,'
                                                 ' r *http.Request) {}\n\nfunc main() {\n\thttp.HandleFunc("GET '
                                                 '/orders/{id}", list)\n}\n', encoding="utf-8")
    (tmp_path / "web" / "client.go").write_text(GO_CLIENT % other, encoding="utf-8")
    (tmp_path / "docker-compose.yml").write_text("services:\n  orders:\n    build: ./orders\n  web:\n    build: ./web\n"
                                                 "    environment:\n      ORDERS_ADDR: orders:8080\n", encoding="utf-8")
    links = [line for line in render(CodeGraph.build(tmp_path)) if line.startswith("E HTTP_CALLS")]
    if not other:
        assert links == ["E HTTP_CALLS client:GET orders /orders/{id} -> route:GET /orders/{id} [cross_service]"]
    else:
        assert links == []


def _grpc_clients(graph: CodeGraph) -> dict[tuple[str, str], dict]:
    nodes, _ = graph.snapshot()
    return {(n.props["declaring_fqn"].rsplit(".", 1)[-1], n.props["grpc"]): n.props
            for n in nodes.values() if n.kind == "client" and n.props["grpc"]}


def test_a_grpc_clients_channel_address_comes_from_the_deployment_env_as_evidence():
    """grpc-channels: Go (a helper writing a struct field through a pointer; a local), Python (a module
    variable) dial addresses the Kubernetes Deployments and a ConfigMap set. The link still goes by the method;
    an address naming another service is said, never taken over; an address no file sets says why."""
    graph = CodeGraph.build(FIXTURES / "grpc-channels")
    clients = _grpc_clients(graph)
    cart = clients[("cart", "shop.Cart/GetCart")]
    assert (cart["channel_address"], cart["channel_service"], cart["target_service"], cart["match"]) == (
        "cart:7070", "cart", "cart", "cross_service")
    assert cart["channel_conflict"] is None
    quote = clients[("quote", "shop.Pricing/Quote")]
    assert (quote["channel_address"], quote["channel_service"], quote["target_service"]) == (
        "pricing:50051", "pricing", "pricing")
    audit = clients[("audit", "shop.Pricing/Quote")]
    assert audit["channel_service"] is None and "AUDIT_ADDR" in audit["channel_service_matched_by"]
    assert (audit["target_service"], audit["match"]) == ("pricing", "cross_service")   # the method still links
    report = clients[("cart_of", "shop.Cart/GetCart")]
    assert (report["channel_address"], report["channel_service"], report["target_service"], report["match"]) == (
        "pricing:50051", "pricing", "cart", "cross_service")
    assert "pricing" in report["channel_conflict"] and "shop.Cart/GetCart" in report["channel_conflict"]
    _, edges = graph.snapshot()
    evidence = [e.props["evidence"] for e in edges.values() if e.type == "GRPC_CALLS"]
    assert {"grpc": "shop.Cart/GetCart", "service": "cart", "service_matched_by": "fully qualified method",
            "channel_address": "cart:7070", "channel_agrees": True} in evidence
    assert not any(ev.get("channel_agrees") and ev["service"] == "cart" and ev.get("channel_address") ==
                   "pricing:50051" for ev in evidence)


def test_java_and_csharp_grpc_channels_give_their_address_too():
    """grpc-channels' invoice (Java: ManagedChannelBuilder.forAddress(host, port) with the host from the
    environment and the port a constant, on a field a constructor assigns; forTarget on a stub made in the
    call) and storefront (C#: GrpcChannel.ForAddress on a field a constructor makes, and new Uri(...) on a
    local): each channel's address is settled as Go's and Python's are, and agrees with the method's server."""
    nodes, edges = CodeGraph.build(FIXTURES / "grpc-channels").snapshot()
    found = {(n.props["file"].split("/", 1)[0], n.props["grpc"]): n.props for n in nodes.values()
             if n.kind == "client" and n.props["grpc"] and n.props["file"].startswith(("invoice/", "storefront/"))}
    assert {key: (p["channel_address"], p["channel_service"], p["target_service"], p["match"])
            for key, p in found.items()} == {
        ("invoice", "shop.Pricing/Quote"): ("pricing:50051", "pricing", "pricing", "cross_service"),
        ("invoice", "shop.Cart/GetCart"): ("cart:7070", "cart", "cart", "cross_service"),
        ("storefront", "shop.Cart/GetCart"): ("http://cart:7070", "cart", "cart", "cross_service"),
        ("storefront", "shop.Pricing/Quote"): ("http://pricing:50051", "pricing", "pricing", "cross_service"),
    }
    ids = {n.id for n in nodes.values() if n.kind == "client" and n.props["file"].startswith(("invoice/", "storefront/"))}
    agreeing = [e for e in edges.values() if e.type == "GRPC_CALLS" and e.src in ids]
    assert len(agreeing) == 4 and all(e.props["evidence"].get("channel_agrees") for e in agreeing)


INJECTED_SHOP = '''using System;
using Grpc.Net.Client;
using Shop;

namespace Storefront
{
    public class Shop
    {
        private readonly Pricing.PricingClient prices;

        public Shop(Pricing.PricingClient injected)
        {
            prices = injected;
        }

        public object Fast(string sku)
        {
            return prices.QuoteAsync(new QuoteRequest());
        }

        public object Quote(string sku)
        {
            var channel = GrpcChannel.ForAddress(new Uri("http://pricing-canary:50051"));
            var pricing = new Pricing.PricingClient(channel);
            return pricing.QuoteAsync(new QuoteRequest());
        }
    }
}
'''


def test_a_csharp_fields_channel_is_never_another_methods_local(tmp_path: Path):
    """A field the constructor is given (dependency injection) dials an address no code here says: not the one
    a local of another method is made with."""
    root = tmp_path / "grpc-channels"
    shutil.copytree(FIXTURES / "grpc-channels", root)
    (root / "storefront/Shop.cs").write_text(INJECTED_SHOP)
    nodes, _ = CodeGraph.build(root).snapshot()
    found = {n.props["declaring_fqn"]: n.props["channel_address"] for n in nodes.values()
             if n.kind == "client" and n.props["file"].startswith("storefront/")}
    assert found == {"Storefront.Shop.Fast": "{?}", "Storefront.Shop.Quote": "http://pricing-canary:50051"}
