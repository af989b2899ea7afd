"""C# clients registered with the dependency-injection container: an ``AddHttpClient<T>(c => c.BaseAddress = ...)``
registration gives the typed client ``T`` its base address (another class's registration never does), and an
``AddGrpcClient<T>(o => o.Address = ...)`` registration gives the injected gRPC client's calls their channel
address (evidence; the link goes by the method)."""

from __future__ import annotations

from graphlore.toolsets.code.index.graph import CodeGraph

PROGRAM = """using System;
using Cart;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddHttpClient<CatalogClient>(c => c.BaseAddress = new Uri("http://catalog:8080"));
builder.Services.AddHttpClient<IPricing, PricingClient>(client =>
{
    client.BaseAddress = new Uri(Environment.GetEnvironmentVariable("PRICING_URL"));
});
builder.Services.AddGrpcClient<Shop.V1.Stock.StockClient>(o => o.Address = new Uri("http://stock:5000"));
var app = builder.Build();
app.Run();
"""

CLIENTS = """using System.Net.Http;
using System.Threading.Tasks;
using Grpc.Net.Client;
using Shop.V1;

namespace Cart;

public class CatalogClient
{
    private readonly HttpClient _http;

    public CatalogClient(HttpClient http) { _http = http; }

    public Task<string> Item(string id) => _http.GetStringAsync($"/api/items/{id}");
}

public interface IPricing { Task<string> Quote(string id); }

public class PricingClient : IPricing
{
    private readonly HttpClient _http;

    public PricingClient(HttpClient http) { _http = http; }

    public Task<string> Quote(string id) => _http.GetStringAsync($"/quotes/{id}");
}

public class Reserver
{
    private readonly HttpClient _plain;
    private readonly Stock.StockClient _stock;

    public Reserver(HttpClient plain, Stock.StockClient stock) { _plain = plain; _stock = stock; }

    public Task<string> Ping() => _plain.GetStringAsync("/ping");

    public void Reserve() => _stock.Reserve(new ReserveRequest());
}
"""

CATALOG = """var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/api/items/{id}", (string id) => id);
app.Run();
"""

PROTO = """syntax = "proto3";
package shop.v1;
option csharp_namespace = "Shop.V1";
service Stock { rpc Reserve(ReserveRequest) returns (ReserveReply); }
message ReserveRequest {}
message ReserveReply {}
"""

CSPROJ = '<Project Sdk="Microsoft.NET.Sdk.Web"><PropertyGroup><AssemblyName>{}</AssemblyName></PropertyGroup></Project>'


def test_di_registered_clients_take_their_registrations_addresses(tmp_path):
    for name, files in {"cart": {"Program.cs": PROGRAM, "Clients.cs": CLIENTS},
                        "catalog": {"Program.cs": CATALOG},
                        "stock": {"stock.proto": PROTO,
                                  "StockService.cs": "using Grpc.Core;\nnamespace StockSvc;\npublic class StockService : "
                                                     "Shop.V1.Stock.StockBase {\n public override object Reserve("
                                                     "object r, object c) => null;\n}\n"}}.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.csproj").write_text(CSPROJ.format(name))
        for file, text in files.items():
            (tmp_path / name / file).write_text(text)
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    clients = {n.props["declaring_fqn"]: n.props for n in nodes.values() if n.kind == "client"}
    item = clients["Cart.CatalogClient.Item"]
    assert (item["label"], item["match"]) == ("GET catalog /api/items/{id}", "cross_service")
    quote = clients["Cart.PricingClient.Quote"]   # registered through its interface; PRICING_URL: set by no file
    assert (quote["match"], "PRICING_URL" in quote["match_detail"]) == ("unresolved", True)
    ping = clients["Cart.Reserver.Ping"]   # a plain HttpClient: no registration is its own, and two are in the module
    assert ping["label"] == "GET ? /ping" and ping["match"] == "unresolved"
    reserve = clients["Cart.Reserver.Reserve"]
    assert (reserve["grpc"], reserve["channel_address"], reserve["channel_service"], reserve["target_service"]) == (
        "shop.v1.Stock/Reserve", "http://stock:5000", "stock", "stock")
    assert any(e.type == "HTTP_CALLS" and e.src == next(i for i, n in nodes.items() if n.kind == "client" and
                                                         n.props["declaring_fqn"] == "Cart.CatalogClient.Item")
               for e in edges.values())
