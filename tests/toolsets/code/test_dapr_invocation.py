"""Dapr service invocation clients: an HttpClient made by ``DaprClient.CreateInvokeHttpClient("app-id")`` has the
base address ``http://<app-id>`` (the caller's sidecar sends it to the app of that Dapr app-id), so the relative
calls of the class it is given to are calls of that app."""

from __future__ import annotations

from helpers.code_graph import labels_by_declarer
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'

STOCK = """var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/api/stock/{sku}", (string sku) => sku);
app.MapPost("/api/reservations", () => "ok");
app.Run();
"""

FRONT_PROGRAM = """using Dapr.Client;
using Front;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddSingleton<IStockReader, StockReader>(
    _ => new StockReader(DaprClient.CreateInvokeHttpClient("stock")));
builder.Services.AddSingleton<IReserver>(_ => new Reserver(CreateInvokeHttpClient(appId: AppIds.Stock)));
builder.Build().Run();
"""

FRONT_CLIENTS = """namespace Front;

public static class AppIds { public const string Stock = "stock"; }

public class StockReader : IStockReader
{
    private readonly HttpClient _http;
    public StockReader(HttpClient http) { _http = http; }
    public Task<string> Level(string sku) => _http.GetStringAsync($"api/stock/{sku}");
}

public class Reserver : IReserver
{
    private readonly HttpClient _http;
    public Reserver(HttpClient http) { _http = http; }
    public Task Reserve() => _http.SendAsync(new HttpRequestMessage(HttpMethod.Post, "api/reservations"));
}
"""

COMPOSE = """services:
  stock:
    build: ./stock
  stock-dapr:
    image: daprio/daprd
    command: ["./daprd", "-app-id", "stock", "-app-port", "80"]
  front:
    build: ./front
"""


def _clients(root) -> dict[str, list[tuple[str, str]]]:
    return labels_by_declarer(root, "client")


def test_an_invoke_http_client_given_to_a_class_calls_its_app_id(tmp_path):
    write_tree(tmp_path, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK,
        "front/front.csproj": WEB, "front/Program.cs": FRONT_PROGRAM, "front/Clients.cs": FRONT_CLIENTS,
        "docker-compose.yml": COMPOSE})
    clients = _clients(tmp_path)
    # a literal app-id, and one named by a constant (appId: written as a named argument)
    assert clients["Front.StockReader.Level"] == [("GET stock /api/stock/{sku}", "cross_service")]
    assert clients["Front.Reserver.Reserve"] == [("POST stock /api/reservations", "cross_service")]


INVOKER = """using Dapr.Client;

namespace Front;

public class Invoker
{
    private const string StockApp = "stock";
    private readonly DaprClient _dapr;
    public Invoker(DaprClient dapr) { _dapr = dapr; }

    public Task<string> Level(string sku) =>
        _dapr.InvokeMethodAsync<string>(HttpMethod.Get, StockApp, $"api/stock/{sku}");

    public Task Reserve(Order order) => _dapr.InvokeMethodAsync("stock", "api/reservations", order);

    public async Task ReserveByRequest(Order order)
    {
        var request = _dapr.CreateInvokeMethodRequest(HttpMethod.Post, "stock", "/api/reservations", order);
        await _dapr.InvokeMethodAsync(request);
    }

    public Task Unknown(string app) => _dapr.InvokeMethodAsync(HttpMethod.Get, app, "api/stock/1");
}
"""


def test_invoke_method_calls_the_app_id_and_method_named(tmp_path):
    write_tree(tmp_path, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK,
        "front/front.csproj": WEB, "front/Invoker.cs": INVOKER, "docker-compose.yml": COMPOSE})
    clients = _clients(tmp_path)
    assert clients["Front.Invoker.Level"] == [("GET stock /api/stock/{sku}", "cross_service")]
    # no HttpMethod first: the SDK posts
    assert clients["Front.Invoker.Reserve"] == [("POST stock /api/reservations", "cross_service")]
    # a request made, then sent: one call, where it is made
    assert clients["Front.Invoker.ReserveByRequest"] == [("POST stock /api/reservations", "cross_service")]
    # an app-id not known: unresolved, never a guess
    [(label, match)] = clients["Front.Invoker.Unknown"]
    assert match == "unresolved", label


SENT_LATER = """using Dapr.Client;

namespace Front;

public class Invoker
{
    private readonly DaprClient _dapr;
    public Invoker(DaprClient dapr) { _dapr = dapr; }

    public async Task<string> WithToken(string sku, CancellationToken cancellationToken)
    {
        var request = _dapr.CreateInvokeMethodRequest(HttpMethod.Get, "stock", $"api/stock/{sku}");
        return await _dapr.InvokeMethodAsync<string>(request, cancellationToken);
    }

    public async Task WithNone(HttpRequestMessage request)
    {
        await _dapr.InvokeMethodAsync(request, CancellationToken.None);
    }

    public Task ByVerb(HttpMethod verb) => _dapr.InvokeMethodAsync(verb, "stock", "api/reservations");

    public Task ByNewVerb() => _dapr.InvokeMethodAsync(new HttpMethod("POST"), "stock", "api/reservations");
}
"""


def test_a_request_sent_with_a_token_is_no_second_call_and_a_held_method_is_not_known(tmp_path):
    """``InvokeMethodAsync(request, token)`` is the SDK's request overload, not (app-id, method); an ``HttpMethod``
    held by a parameter is not POST, and the app-id and path still follow it."""
    write_tree(tmp_path, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK,
        "front/front.csproj": WEB, "front/Invoker.cs": SENT_LATER, "docker-compose.yml": COMPOSE})
    clients = _clients(tmp_path)
    assert clients["Front.Invoker.WithToken"] == [("GET stock /api/stock/{sku}", "cross_service")]
    assert "Front.Invoker.WithNone" not in clients
    assert [label for label, _ in clients["Front.Invoker.ByVerb"]] == ["? stock /api/reservations"]
    assert clients["Front.Invoker.ByNewVerb"] == [("POST stock /api/reservations", "cross_service")]


ORDERS = """var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/api/orders/{id}", (string id) => id);
app.Run();
"""

BILLING = """var app = WebApplication.CreateBuilder(args).Build();
app.MapPost("/api/charges", () => "ok");
app.Run();
"""

CALLER = """using Dapr.Client;

namespace Shop;

public class Caller
{
    private readonly DaprClient _dapr;
    public Caller(DaprClient dapr) { _dapr = dapr; }
    public Task<string> Order(string id) => _dapr.InvokeMethodAsync<string>(HttpMethod.Get, "orders", $"api/orders/{id}");
    public Task Charge() => _dapr.InvokeMethodAsync(HttpMethod.Post, "payments", "api/charges");
    public Task Ship() => _dapr.InvokeMethodAsync(HttpMethod.Post, "shipping", "api/shipments");
}
"""

APP_ID_COMPOSE = """services:
  ordering-api:
    build: ./ordering
  ordering-api-dapr:
    image: daprio/daprd:1.12
    command: ["./daprd", "-app-id", "orders", "-app-port", "80"]
    network_mode: "service:ordering-api"
  shop:
    build: ./shop
    command: dapr run --app-id shop --app-port 80 -- dotnet Shop.dll
"""

APP_ID_K8S = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: billing-deployment
spec:
  template:
    metadata:
      labels:
        app: billing
      annotations:
        dapr.io/enabled: "true"
        dapr.io/app-id: "payments"
    spec:
      containers:
        - name: billing
          image: shop/billing:latest
"""


def test_an_app_id_is_one_more_name_its_service_goes_by(tmp_path):
    write_tree(tmp_path, {
        "ordering/ordering.csproj": WEB, "ordering/Program.cs": ORDERS,
        "billing/billing.csproj": WEB, "billing/Program.cs": BILLING,
        "shop/shop.csproj": WEB, "shop/Caller.cs": CALLER,
        "docker-compose.yml": APP_ID_COMPOSE, "k8s/billing.yaml": APP_ID_K8S})
    clients = _clients(tmp_path)
    # a daprd sidecar sharing the app's network (network_mode: service:x) gives the app its app-id
    assert clients["Shop.Caller.Order"] == [("GET ordering /api/orders/{id}", "cross_service")]
    # a pod template's dapr.io/app-id annotation names the workload's service
    assert clients["Shop.Caller.Charge"] == [("POST billing /api/charges", "cross_service")]
    # no service goes by the app-id: unresolved, never a guess
    [(label, match)] = clients["Shop.Caller.Ship"]
    assert match == "unresolved", label


def test_the_app_id_a_command_gives():
    from graphlore.toolsets.code.services.deployment import dapr_app_id
    assert dapr_app_id(["./daprd", "-app-id", "orders", "-app-port", "80"]) == "orders"
    assert dapr_app_id(["dapr", "run", "--app-id=shop", "--", "dotnet", "Shop.dll"]) == "shop"
    assert dapr_app_id(["dapr", "run", "-a", "shop", "--", "python", "app.py"]) == "shop"
    # after "--" the words are the app's own; -a is dapr run's only; no Dapr program: no app-id
    assert dapr_app_id(["dapr", "run", "--", "tool", "--app-id", "x"]) is None
    assert dapr_app_id(["/usr/bin/daprd", "-a", "x"]) is None
    assert dapr_app_id(["node", "server.js", "--app-id", "x"]) is None


PUBLISHER = """using Dapr.Client;

namespace Shop;

public class Checkout
{
    private const string PubSub = "shop-pubsub";
    private readonly DaprClient _dapr;
    public Checkout(DaprClient dapr) { _dapr = dapr; }
    public Task Place(Order order) => _dapr.PublishEventAsync(PubSub, "order-placed", order);
    public Task Other(Order order) => _dapr.PublishEventAsync("other-pubsub", "order-placed", order);
    public Task Any(string topic, Order order) => _dapr.PublishEventAsync(PubSub, topic, order);
}
"""

SUBSCRIBER_CONTROLLER = """using Dapr;
using Microsoft.AspNetCore.Mvc;

namespace Ordering;

[ApiController]
public class EventsController : ControllerBase
{
    [HttpPost("placed")]
    [Topic("shop-pubsub", "order-placed")]
    public IActionResult OnPlaced(Order order) => Ok();
}
"""

SUBSCRIBER_MINIMAL = """using Dapr;

var app = WebApplication.CreateBuilder(args).Build();
app.UseCloudEvents();
app.MapSubscribeHandler();
app.MapPost("/placed", (Order order) => Results.Ok()).WithTopic("shop-pubsub", "order-placed");
app.Run();
"""


def _messages(root) -> dict[str, list[tuple[str, str]]]:
    return labels_by_declarer(root, "producer")


def test_pubsub_publishers_reach_topic_subscribers_of_the_same_component(tmp_path):
    write_tree(tmp_path, {
        "shop/shop.csproj": WEB, "shop/Checkout.cs": PUBLISHER,
        "ordering/ordering.csproj": WEB, "ordering/EventsController.cs": SUBSCRIBER_CONTROLLER,
        "audit/audit.csproj": WEB, "audit/Program.cs": SUBSCRIBER_MINIMAL})
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    listeners = sorted((n.props.get("microservice"), n.props["label"]) for n in nodes.values()
                       if n.kind == "route" and n.props.get("broker") == "dapr")
    assert listeners == [("audit", "dapr shop-pubsub/order-placed"), ("ordering", "dapr shop-pubsub/order-placed")]
    producers = _messages(tmp_path)
    [(_, placed)] = producers["Shop.Checkout.Place"]
    assert placed == "cross_service"
    # the same topic on another component reaches no subscriber; a topic not known stays unresolved
    [(_, other)] = producers["Shop.Checkout.Other"]
    [(_, unknown)] = producers["Shop.Checkout.Any"]
    assert other == "unresolved" and unknown == "unresolved"


BUS = """using Dapr.Client;

namespace Shop.Bus;

public abstract record Event;

public class DaprBus : IBus
{
    private const string PubSub = "shop-pubsub";
    private readonly DaprClient _dapr;
    public DaprBus(DaprClient dapr) { _dapr = dapr; }

    public async Task PublishAsync(Event e)
    {
        var topic = e.GetType().Name;
        await _dapr.PublishEventAsync<object>(PubSub, topic, e);
    }
}
"""

BUS_CALLERS = """using Shop.Bus;

namespace Shop.Orders;

public record OrderPlaced(string Id) : Event;

public class Placing
{
    private readonly IBus _bus;
    public Placing(IBus bus) { _bus = bus; }
    public Task Place(string id) => _bus.PublishAsync(new OrderPlaced(id));
    public Task Forward(Event e) => _bus.PublishAsync(e);
}
"""

TYPED_SUBSCRIBER = """using Dapr;
using Microsoft.AspNetCore.Mvc;

namespace Ordering;

[ApiController]
public class EventsController : ControllerBase
{
    [HttpPost("placed")]
    [Topic("shop-pubsub", nameof(Shop.Orders.OrderPlaced))]
    public IActionResult OnPlaced(Order order) => Ok();
}
"""


def test_a_bus_publishing_on_the_event_type_name_makes_its_callers_producers(tmp_path):
    write_tree(tmp_path, {
        "bus/bus.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>', "bus/DaprBus.cs": BUS,
        "shop/shop.csproj": WEB, "shop/Placing.cs": BUS_CALLERS,
        "ordering/ordering.csproj": WEB, "ordering/EventsController.cs": TYPED_SUBSCRIBER})
    producers = _messages(tmp_path)
    # the caller that makes the event is the producer, on the type's name (nameof(T) in the listener's topic);
    # the bus method and a caller that passes its own parameter on are none
    assert producers["Shop.Orders.Placing.Place"] == [("dapr shop-pubsub/OrderPlaced", "cross_service")]
    assert "Shop.Orders.Placing.Forward" not in producers
    assert "Shop.Bus.DaprBus.PublishAsync" not in producers


def test_a_method_of_the_same_name_outside_dapr_is_no_invocation(tmp_path):
    other = INVOKER.replace("using Dapr.Client;", "using Rpc.Client;")
    write_tree(tmp_path, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK,
        "front/front.csproj": WEB, "front/Invoker.cs": other, "docker-compose.yml": COMPOSE})
    assert not any(fqn.startswith("Front.Invoker.") for fqn in _clients(tmp_path))
