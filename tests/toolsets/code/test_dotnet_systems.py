""".NET systems as they are written today: minimal-API route groups whose prefix follows the builder through
chained conventions, nested groups, locals and extension methods (to every caller's prefix, unknown when none
is read); ``MapForwarder`` as a gateway route."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph

CSPROJ = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'

ENDPOINTS = """namespace Shop.Billing;

public static class InvoiceEndpoints
{
    public static RouteGroupBuilder MapInvoices(this IEndpointRouteBuilder routes)
    {
        var invoices = routes.MapGroup("invoices")
            .WithTags("invoices")
            .RequireAuthorization();
        invoices.MapGet("/{number}", Find);
        var drafts = invoices.MapGroup("drafts");
        drafts.MapDelete("{number}", Discard);
        routes.MapGroup("/health").WithName("h").MapGet("/ready", () => "ok");
        return invoices;
    }

    public static IEndpointRouteBuilder MapReceipts(this IEndpointRouteBuilder routes)
    {
        routes.MapPost("/receipts", () => "ok");
        return routes;
    }

    public static void MapRefunds(IEndpointRouteBuilder routes)
    {
        routes.MapPut("refunds/{id}", () => "ok");
    }

    public static void MapOrphans(this IEndpointRouteBuilder routes)
    {
        routes.MapGet("/orphans", () => "ok");
    }

    static object Find(string number) => number;
    static object Discard(string number) => number;
}
"""

PROGRAM = """var builder = WebApplication.CreateBuilder(args);
var app = builder.Build();
var versioned = app.NewVersionedApi("Billing");
var v1 = versioned.MapGroup("/api/v1").HasApiVersion(1, 0);
v1.MapInvoices();
app.MapGroup("/api/v2").WithTags("v2").MapInvoices();
app.MapReceipts();
InvoiceEndpoints.MapRefunds(app.MapGroup("/x"));
var admin = app.MapGroup("admin");
InvoiceEndpoints.MapRefunds(admin);
app.Run();
"""


def _routes(root: Path) -> set[str]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.props["label"] for n in nodes.values() if n.kind == "route"}


def test_a_route_groups_prefix_follows_the_builder_through_chains_locals_and_extension_methods(tmp_path):
    (tmp_path / "Billing.API.csproj").write_text(CSPROJ)
    (tmp_path / "InvoiceEndpoints.cs").write_text(ENDPOINTS)
    (tmp_path / "Program.cs").write_text(PROGRAM)
    assert _routes(tmp_path) == {
        # each caller's group: a versioned set adds nothing, a chained convention keeps its group
        "GET /api/v1/invoices/{number}", "GET /api/v2/invoices/{number}",
        "DELETE /api/v1/invoices/drafts/{number}", "DELETE /api/v2/invoices/drafts/{number}",
        "GET /api/v1/health/ready", "GET /api/v2/health/ready",
        "POST /receipts",                # called on the app itself
        "PUT /admin/refunds/{id}",       # a plain argument naming a group; an inline group is not followed
        "PUT /{?}/refunds/{id}",
        "GET /{?}/orphans",              # nobody calls it: the prefix stays unknown
    }


FRONT = """var app = WebApplication.CreateBuilder(args).Build();
app.MapForwarder("/pictures/{id}", "http://media:8080", "/api/media/{id}/picture");
app.MapForwarder("/status", "http://media:8080");
app.Run();
"""

MEDIA = """var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/api/media/{mediaId:int}/picture", (int mediaId) => mediaId);
app.MapGet("/status", () => "up");
app.MapGet("/api/media/{mediaId:int}", (int mediaId) => mediaId);
app.Run();
"""


def _forwards(root, programs: dict[str, str]) -> set[tuple[str, str]]:
    """(gateway route, target route) of every forward in a system of one ASP.NET project per program."""
    for name, program in programs.items():
        (root / name).mkdir()
        (root / name / f"{name}.csproj").write_text(CSPROJ)
        (root / name / "Program.cs").write_text(program)
    nodes, edges = CodeGraph.build(root).snapshot()
    label = {i: n.props["label"] for i, n in nodes.items() if n.kind == "route"}
    return {(label[e.src], label[e.dst]) for e in edges.values() if e.src in label and e.dst in label}


def test_map_forwarder_is_a_gateway_route_to_the_targets_route(tmp_path):
    forwards = _forwards(tmp_path, {"front": FRONT, "media": MEDIA})
    assert forwards == {("ANY /pictures/{id}", "GET /api/media/{mediaId}/picture"), ("ANY /status", "GET /status")}


APPHOST = """var builder = DistributedApplication.CreateBuilder(args);
var bus = builder.AddRabbitMQ("bus");
var stock = builder.AddProject<Projects.Stock_Api>("stock-svc").WithReference(bus);
builder.AddProject<Projects.Shop_Web>("storefront").WithReference(stock);
builder.AddProject<Projects.Nowhere>("ghost");
builder.Build().Run();
"""

STOCK = """var app = WebApplication.CreateBuilder(args).Build();
var items = app.MapGroup("/api/Items");
items.MapGet("/{id}", (int id) => id);
items.MapGet("/Levels", () => 1);
app.Run();
"""

LIBRARY_CLIENT = """namespace Shop.Parts.Clients;

public class StockClient(HttpClient http)
{
    private readonly string prefix = "api/items/";

    public Task<string> Item(int id) => http.GetStringAsync($"{prefix}{id}");

    public Task<string> Levels() => http.GetStringAsync("API/ITEMS/levels");
}
"""

WEB = """using Shop.Parts.Clients;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddHttpClient<StockClient>(o => o.BaseAddress = new("https+http://stock-svc"));
builder.Build().Run();
"""

OTHER_APP = """namespace Shop.Kiosk;

public class StockClient(HttpClient http)
{
    public Task<string> Item(int id) => http.GetStringAsync($"api/items/{id}");
}

public static class Setup
{
    public static void Register(IServiceCollection services) =>
        services.AddHttpClient<StockClient>(o => o.BaseAddress = new(Settings.Host));
}
"""


def test_aspire_resource_names_are_service_names_and_a_library_client_takes_the_apps_registration(tmp_path):
    files = {"AppHost/AppHost.csproj": CSPROJ, "AppHost/Program.cs": APPHOST,
             "Stock.Api/Stock.Api.csproj": CSPROJ, "Stock.Api/Program.cs": STOCK,
             "Shop.Parts/Shop.Parts.csproj": '<Project Sdk="Microsoft.NET.Sdk.Razor"></Project>',
             "Shop.Parts/StockClient.cs": LIBRARY_CLIENT,
             "Shop.Web/Shop.Web.csproj": CSPROJ, "Shop.Web/Program.cs": WEB,
             "Shop.Kiosk/Shop.Kiosk.csproj": CSPROJ, "Shop.Kiosk/Kiosk.cs": OTHER_APP}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = CodeGraph.build(tmp_path)
    nodes, _ = graph.snapshot()
    services = {n.name: n.props for n in nodes.values() if n.kind == "microservice"}
    assert "stock-svc" in services["Stock.Api"]["aliases"] and "storefront" in services["Shop.Web"]["aliases"]
    clients = {(n.props["declaring_fqn"], n.props["label"]): (n.props["match"], n.props.get("target_service"))
               for n in nodes.values() if n.kind == "client"}
    assert clients == {
        # a relative URI is a path under the registered base address (never a host); ASP.NET matches any case
        ("Shop.Parts.Clients.StockClient.Item", "GET Stock.Api /api/items/{id}"): ("cross_service", "Stock.Api"),
        ("Shop.Parts.Clients.StockClient.Levels", "GET Stock.Api /API/ITEMS/levels"): ("cross_service", "Stock.Api"),
        # another app's class of the same name keeps its own (unknown) registration
        ("Shop.Kiosk.StockClient.Item", "GET ? /api/items/{id}"): ("unresolved", None),
    }


BUS = """namespace Acme.Bus;

public record Event { public Guid Id { get; init; } }

public interface IBus
{
    Task PublishAsync(Event evt);
}

public interface IEventHandler<in T> where T : Event
{
    Task Handle(T evt);
    Task Handle(Event evt) => Handle((T)evt);
}
"""

BILLING = """using Acme.Bus;

namespace Acme.Billing;

public record InvoicePaid(int Order) : Event;
public record InvoiceFailed(int Order) : Event;
public record Audited : Event;

public class Outbox(IBus bus)
{
    public Task SaveAndPublish(Event evt) => bus.PublishAsync(evt);
}

public class Payer(IBus bus, Outbox outbox)
{
    public async Task Pay(int order, bool ok)
    {
        Event outcome;
        if (ok)
        {
            outcome = new InvoicePaid(order);
        }
        else
        {
            outcome = new InvoiceFailed(order);
        }
        await bus.PublishAsync(outcome);
    }

    public async Task Audit(Event[] pending)
    {
        var next = ok() ? (Event)new Audited() : new InvoicePaid(0);
        await outbox.SaveAndPublish(next);
        await outbox.SaveAndPublish(next);
        foreach (var evt in pending) await bus.PublishAsync(evt);
    }

    static bool ok() => true;
}
"""

ORDERS = """using Acme.Bus;
using Acme.Orders.Handlers;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddEventBus().AddSubscription<InvoicePaid, InvoicePaidHandler>()
    .AddSubscription<InvoiceFailed, MissingHandler>();
builder.Build().Run();
"""

ORDERS_HANDLER = """using Acme.Bus;

namespace Acme.Orders.Handlers;

public class InvoicePaidHandler : IEventHandler<InvoicePaid>
{
    public Task Handle(InvoicePaid evt) => Task.CompletedTask;
}
"""

AUDIT = """using Acme.Bus;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddEventBus().AddSubscription<Audited, InvoicePaidHandler>();
builder.Build().Run();

class InvoicePaidHandler : IEventHandler<Audited>
{
    public Task Handle(Audited evt) => Task.CompletedTask;
}
"""


def test_an_event_bus_links_each_published_event_type_to_its_subscribed_handlers(tmp_path):
    files = {"Bus/Bus.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>', "Bus/Bus.cs": BUS,
             "Billing/Billing.csproj": CSPROJ, "Billing/Billing.cs": BILLING,
             "Orders/Orders.csproj": CSPROJ, "Orders/Program.cs": ORDERS, "Orders/Handlers.cs": ORDERS_HANDLER,
             "Audit/Audit.csproj": CSPROJ, "Audit/Program.cs": AUDIT}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    bus = {i: n.props for i, n in nodes.items() if n.props.get("broker") == "eventbus"}
    listeners = {(p["microservice"], p["topic"], p.get("handler_fqn"), p["resolved"]) for p in bus.values()
                 if "handler_fqn" in p}
    assert listeners == {
        ("Orders", "InvoicePaid", "Acme.Orders.Handlers.InvoicePaidHandler.Handle", True),
        ("Audit", "Audited", "InvoicePaidHandler.Handle", True),      # its own module's class of that name
        ("Orders", "InvoiceFailed", "Orders/Program.cs", False),       # no class of that name: said, not dropped
    }
    producers = sorted((p["label"], p["line"]) for p in bus.values() if "handler_fqn" not in p)
    # each value the local may hold; one producer per method and type; a parameter passed on is no producer;
    # an element of an array is unknown
    assert producers == sorted([("eventbus InvoiceFailed", 27), ("eventbus InvoicePaid", 27),
                                ("eventbus Audited", 33), ("eventbus InvoicePaid", 33), ("eventbus {?}", 35)])
    label = {i: n.props.get("label") for i, n in nodes.items()}
    links = sorted((label[e.src], nodes[e.src].props["line"], nodes[e.dst].props["microservice"])
                   for e in edges.values() if e.type == "ASYNC_CALLS")
    # the subscription without a handler class still receives the event (at the subscription)
    assert links == [("eventbus Audited", 33, "Audit"), ("eventbus InvoiceFailed", 27, "Orders"),
                     ("eventbus InvoicePaid", 27, "Orders"), ("eventbus InvoicePaid", 33, "Orders")]


RABBIT_BUS = """using RabbitMQ.Client;

namespace Acme.Bus;

public class RabbitBus(IChannel channel) : IBus
{
    private const string ExchangeName = "acme_event_bus";

    public async Task PublishAsync(Event evt)
    {
        await channel.BasicPublishAsync(exchange: ExchangeName, routingKey: evt.GetType().Name, body: new byte[0]);
    }
}
"""


def test_an_event_bus_producer_names_the_broker_producer_its_bus_publishes_through(tmp_path):
    """The bus's own implementation of the publishing method (``RabbitBus.PublishAsync``) publishes to an exchange:
    each event's producer says so (``transport``: the exchange it goes to, with the file and line), as the events
    themselves carry no exchange; a producer that is no bus's carries none."""
    files = {"Bus/Bus.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>', "Bus/Bus.cs": BUS,
             "Bus/RabbitBus.cs": RABBIT_BUS, "Billing/Billing.csproj": CSPROJ, "Billing/Billing.cs": BILLING,
             "Orders/Orders.csproj": CSPROJ, "Orders/Program.cs": ORDERS, "Orders/Handlers.cs": ORDERS_HANDLER}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    producers = [n.props for n in nodes.values() if n.kind == "producer"]
    carried = {p["label"]: p.get("transport") for p in producers if p["broker"] == "eventbus"}
    assert carried["eventbus InvoicePaid"] == ["rabbit acme_event_bus/{?} (Bus/RabbitBus.cs:11)"]
    assert set(map(tuple, carried.values())) == {("rabbit acme_event_bus/{?} (Bus/RabbitBus.cs:11)",)}
    assert [p.get("transport") for p in producers if p["broker"] != "eventbus"] == [None]


def test_map_methods_reads_the_http_methods_constants(tmp_path):
    (tmp_path / "Hooks.csproj").write_text(CSPROJ)
    (tmp_path / "Program.cs").write_text('var app = WebApplication.CreateBuilder(args).Build();\n'
                                         'app.MapMethods("/check", [HttpMethods.Options, "HEAD"], () => "ok");\n'
                                         'app.MapGet("/items/type/{typeId:int?}/brand/{brandId?}", () => 1);\n')
    # an optional parameter is a parameter of the template
    assert _routes(tmp_path) == {"OPTIONS /check", "HEAD /check", "GET /items/type/{typeId}/brand/{brandId}"}


APPSETTINGS = """{
  // comments and trailing commas are allowed, as .NET allows them
  "Logging": { "LogLevel": { "Default": "Information" } },
  "ConnectionStrings": {
    "Bus": "amqp://localhost",
  },
  "Stock": { "Threshold": 5, "Zones": ["north", "south"] }
}
"""

LAUNCH = '{"profiles": {"http": {"commandName": "Project", "applicationUrl": "http://localhost:5105"}}}'

HOST = """var builder = DistributedApplication.CreateBuilder(args);
var bus = builder.AddRabbitMQ("bus");
var stock = builder.AddProject<Projects.Stock_Api>("stock-svc")
    .WithReference(bus)
    .WithEnvironment("Identity__Url", "http://id.example");
stock.WithEnvironment("Mode", "fast");
var idp = builder.AddProject<Projects.Idp>("idp");
var idpEndpoint = idp.GetEndpoint("http");
stock.WithEnvironment("Idp__Url", idpEndpoint);
builder.Build().Run();
"""


def test_dotnet_settings_launch_profiles_and_apphost_environment_show_in_the_services_config(tmp_path):
    files = {"AppHost/AppHost.csproj": CSPROJ, "AppHost/Program.cs": HOST,
             "Stock.Api/Stock.Api.csproj": CSPROJ, "Stock.Api/Program.cs": STOCK,
             "Stock.Api/appsettings.json": APPSETTINGS, "Stock.Api/Properties/launchSettings.json": LAUNCH,
             # a test's host names nothing
             "tests/Stock.Tests/Stock.Tests.csproj": CSPROJ,
             "tests/Stock.Tests/Fixture.cs": 'class F { void M(IDistributedApplicationBuilder b) { '
                                             'b.AddProject<Projects.Stock_Api>("stock-test"); } }'}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    stock = next(n.props for n in nodes.values() if n.kind == "microservice" and n.name == "Stock.Api")
    assert stock["config"] == [
        "ConnectionStrings:Bus = amqp://localhost (Stock.Api/appsettings.json:5)",
        "Stock:Threshold = 5 (Stock.Api/appsettings.json:7)",
        "Stock:Zones:0 = north (Stock.Api/appsettings.json:7)",
        "Stock:Zones:1 = south (Stock.Api/appsettings.json:7)",
        "listens at http://localhost:5105 (launch profile http) (Stock.Api/Properties/launchSettings.json:1)",
        'Identity:Url = "http://id.example" (environment Identity__Url from the AppHost) (AppHost/Program.cs:3)',
        # the resource a reference names, as the AppHost adds it
        'references bus (= AddRabbitMQ("bus")) (AppHost) (AppHost/Program.cs:3)',
        'Mode = "fast" (environment Mode from the AppHost) (AppHost/Program.cs:6)',
        'Idp:Url = idpEndpoint (= idp.GetEndpoint("http")): an endpoint of idp (environment Idp__Url from the AppHost) '
        '(AppHost/Program.cs:9)',
    ]
    assert "stock-svc" in stock["aliases"] and "stock-test" not in stock["aliases"]


def test_updates_equal_a_full_build_when_the_apphost_subscriptions_or_groups_change(tmp_path):
    from helpers.code_graph import edit, render

    files = {"AppHost/AppHost.csproj": CSPROJ, "AppHost/Program.cs": APPHOST,
             "Stock.Api/Stock.Api.csproj": CSPROJ, "Stock.Api/Program.cs": STOCK,
             "Shop.Parts/Shop.Parts.csproj": CSPROJ, "Shop.Parts/StockClient.cs": LIBRARY_CLIENT,
             "Shop.Web/Shop.Web.csproj": CSPROJ, "Shop.Web/Program.cs": WEB,
             "Bus/Bus.csproj": CSPROJ, "Bus/Bus.cs": BUS, "Billing/Billing.csproj": CSPROJ,
             "Billing/Billing.cs": BILLING, "Orders/Orders.csproj": CSPROJ, "Orders/Program.cs": ORDERS,
             "Orders/Handlers.cs": ORDERS_HANDLER}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = CodeGraph.build(tmp_path)
    for path, old, new in (("AppHost/Program.cs", '"stock-svc"', '"stock-api"'),        # the name clients use goes
                           ("Orders/Program.cs", "AddSubscription<InvoicePaid,", "AddSubscription<Audited,"),
                           ("Stock.Api/Program.cs", '"/api/Items"', '"/api/v2/items"')):
        edit(tmp_path, path, old, new)
        graph.update()
        assert render(graph) == render(CodeGraph.build(tmp_path)), path


MT_CONTRACTS = """namespace Shop.Contracts;

public record OrderPlaced(int Id);
public record ShipOrder(int Id);
"""

MT_ORDERS = """using MassTransit;
using Shop.Contracts;

namespace Shop.Orders;

public class Checkout(IPublishEndpoint publish, ILogger log)
{
    public async Task Place(int id)
    {
        var placed = new OrderPlaced(id);
        await publish.Publish(placed);
        log.Publish(placed);
    }
}

public class Dispatcher(ISendEndpoint send)
{
    public Task Ship(int id) => send.Send<ShipOrder>(new { Id = id });
}
"""

MT_SHIPPING = """using MassTransit;
using Shop.Contracts;

namespace Shop.Shipping;

public class OrderPlacedConsumer : IConsumer<OrderPlaced>
{
    public Task Consume(ConsumeContext<OrderPlaced> context) => Task.CompletedTask;
}

public class ShipOrderConsumer : IConsumer<ShipOrder>
{
    public Task Consume(ConsumeContext<ShipOrder> context) => Task.CompletedTask;
}
"""

NSB = """using NServiceBus;

namespace Shop.Billing;

public record Charge(int Id);

public class Charger(IMessageSession session)
{
    public Task Run() => session.Send(new Charge(1));
}

public class ChargeHandler : IHandleMessages<Charge>
{
    public Task Handle(Charge message, IMessageHandlerContext context) => Task.CompletedTask;
}
"""


def test_masstransit_and_nservicebus_link_senders_to_handlers_by_message_type(tmp_path):
    files = {"Contracts/Contracts.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>',
             "Contracts/Messages.cs": MT_CONTRACTS, "Orders/Orders.csproj": CSPROJ, "Orders/Checkout.cs": MT_ORDERS,
             "Shipping/Shipping.csproj": CSPROJ, "Shipping/Consumers.cs": MT_SHIPPING,
             "Billing/Billing.csproj": CSPROJ, "Billing/Billing.cs": NSB}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    found = {(n.kind, n.props["label"], n.props["microservice"]) for n in nodes.values()
             if n.props.get("broker") in ("masstransit", "nservicebus")}
    assert found == {   # a logger's Publish is no send
        ("producer", "masstransit OrderPlaced", "Orders"), ("producer", "masstransit ShipOrder", "Orders"),
        ("route", "masstransit OrderPlaced", "Shipping"), ("route", "masstransit ShipOrder", "Shipping"),
        ("producer", "nservicebus Charge", "Billing"), ("route", "nservicebus Charge", "Billing")}
    links = {(nodes[e.src].props["label"], nodes[e.dst].props.get("handler_fqn"), e.props["match"])
             for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert links == {
        ("masstransit OrderPlaced", "Shop.Shipping.OrderPlacedConsumer.Consume", "cross_service"),
        ("masstransit ShipOrder", "Shop.Shipping.ShipOrderConsumer.Consume", "cross_service"),
        ("nservicebus Charge", "Shop.Billing.ChargeHandler.Handle", "intra_service")}


FACTORY = """var builder = WebApplication.CreateBuilder(args);
builder.Services.AddHttpClient("media", c => c.BaseAddress = new Uri("http://media:8080"));
builder.Build().Run();

public class Pictures(IHttpClientFactory factory)
{
    public Task<string> Get(int id)
    {
        var client = factory.CreateClient("media");
        return client.GetStringAsync($"/api/media/{id}");
    }

    public Task Notify(string target)
    {
        var client = factory.CreateClient();
        var request = new HttpRequestMessage
        {
            RequestUri = new Uri(target, UriKind.Absolute),
            Method = HttpMethod.Post,
        };
        return client.SendAsync(request);
    }
}
"""


def test_factory_clients_take_their_named_registration_and_initialised_requests_are_read(tmp_path):
    for name, files in {"front": {"Program.cs": FACTORY}, "media": {"Program.cs": MEDIA}}.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.csproj").write_text(CSPROJ)
        for file, text in files.items():
            (tmp_path / name / file).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    clients = {n.props["declaring_fqn"]: (n.props["label"], n.props["match"]) for n in nodes.values()
               if n.kind == "client"}
    assert clients == {"Pictures.Get": ("GET media /api/media/{id}", "cross_service"),
                       "Pictures.Notify": ("POST ? /{?}", "unresolved")}   # a URL known at run time only


MEDIATR = """using MediatR;

namespace Shop.Orders;

public record PlaceOrder(int Id) : IRequest<bool>;
public record CancelOrder(int Id) : IRequest<bool>;
public record OrderPlaced(int Id) : INotification;

public class PlaceOrderHandler : IRequestHandler<PlaceOrder, bool>
{
    public Task<bool> Handle(PlaceOrder request, CancellationToken token) => Task.FromResult(true);
}

public class CancelA : IRequestHandler<CancelOrder, bool>
{
    public Task<bool> Handle(CancelOrder request, CancellationToken token) => Task.FromResult(true);
}

public class CancelB : IRequestHandler<CancelOrder, bool>
{
    public Task<bool> Handle(CancelOrder request, CancellationToken token) => Task.FromResult(false);
}

public class Mailer : INotificationHandler<OrderPlaced>
{
    public Task Handle(OrderPlaced note, CancellationToken token) => Task.CompletedTask;
}

public class Auditor : INotificationHandler<OrderPlaced>
{
    public Task Handle(OrderPlaced note, CancellationToken token) => Task.CompletedTask;
}

public class Api(IMediator mediator)
{
    public async Task Place(int id)
    {
        var command = new PlaceOrder(id);
        await mediator.Send(command);
        await mediator.Publish(new OrderPlaced(id));
    }

    public Task Cancel(int id) => mediator.Send(new CancelOrder(id));

    public Task Forward(IRequest<bool> request) => mediator.Send(request);
}
"""


def _mediator_edges(root, source: str) -> set[tuple[str, str]]:
    """(sender, handler) fqns of the MediatR TRIGGERS edges of one C# project holding ``source``."""
    (root / "Orders.csproj").write_text(CSPROJ)
    (root / "Orders.cs").write_text(source)
    nodes, edges = CodeGraph.build(root).snapshot()
    fqn = {i: n.props.get("fqn") for i, n in nodes.items()}
    return {(fqn[e.src], fqn[e.dst]) for e in edges.values() if e.props.get("kind") == "mediator"}


def test_mediatr_send_triggers_the_one_handler_and_publish_every_handler(tmp_path):
    found = _mediator_edges(tmp_path, MEDIATR)
    # two handlers of one request: no edge (MediatR would fail); a request of a base type: not known
    assert found == {("Shop.Orders.Api.Place", "Shop.Orders.PlaceOrderHandler.Handle"),
                     ("Shop.Orders.Api.Place", "Shop.Orders.Mailer.Handle"),
                     ("Shop.Orders.Api.Place", "Shop.Orders.Auditor.Handle")}


MEDIATR_LOCALS = """using MediatR;

namespace Shop;

public record A(int Id) : IRequest<bool>;
public record B(int Id) : IRequest<bool>;
public class AH : IRequestHandler<A, bool> { public Task<bool> Handle(A r, CancellationToken t) => Task.FromResult(true); }
public class BH : IRequestHandler<B, bool> { public Task<bool> Handle(B r, CancellationToken t) => Task.FromResult(true); }

public class Api(IMediator mediator)
{
    public async Task Either(bool flag)
    {
        IRequest<bool> command = new A(1);
        if (flag) command = new B(2);
        await mediator.Send(command);
    }

    public async Task Replaced(IRequest<bool> other)
    {
        IRequest<bool> command = new A(1);
        command = other;
        await mediator.Send(command);
    }
}
"""


def test_mediatr_a_local_given_several_values_triggers_each_new_type_and_none_for_another_value(tmp_path):
    found = _mediator_edges(tmp_path, MEDIATR_LOCALS)
    # the last assignment is no answer: either branch's request may be sent; a parameter's type is not known
    assert found == {("Shop.Api.Either", "Shop.AH.Handle"), ("Shop.Api.Either", "Shop.BH.Handle")}


KIOSK = """var builder = WebApplication.CreateBuilder(args);
builder.Build().Run();

public class Pictures(IHttpClientFactory factory)
{
    public Task<string> Get(int id)
    {
        var client = factory.CreateClient("media");
        return client.GetStringAsync($"/api/media/{id}");
    }
}
"""

PARTS_CLIENT = """namespace Shop.Parts;

public class Thumbs(IHttpClientFactory factory)
{
    public Task<string> Get(int id)
    {
        var client = factory.CreateClient("media");
        return client.GetStringAsync($"/api/media/{id}");
    }
}
"""


def test_a_named_client_takes_the_registration_of_its_own_process_never_another_services(tmp_path):
    files = {"front/front.csproj": CSPROJ, "front/Program.cs": FACTORY, "kiosk/kiosk.csproj": CSPROJ,
             "kiosk/Program.cs": KIOSK, "media/media.csproj": CSPROJ, "media/Program.cs": MEDIA,
             "parts/parts.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>', "parts/Thumbs.cs": PARTS_CLIENT}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    clients = {(n.props["microservice"], n.props["declaring_fqn"]): (n.props["label"], n.props["match"])
               for n in nodes.values() if n.kind == "client" and n.props["declaring_fqn"].endswith(".Get")}
    # the kiosk registers no "media" client: front's registration is another process's; a library's client
    # runs in the app that uses it (front's is the only registration of the name)
    assert clients == {("front", "Pictures.Get"): ("GET media /api/media/{id}", "cross_service"),
                       ("kiosk", "Pictures.Get"): ("GET ? /api/media/{id}", "unresolved"),
                       ("parts", "Shop.Parts.Thumbs.Get"): ("GET media /api/media/{id}", "cross_service")}


BUS_LIB = """namespace Shop.Bus;

public record IntegrationEvent;
public record OrderPaid(int Id) : IntegrationEvent;
public interface IEventBus { Task PublishAsync(IntegrationEvent e); }
"""

SUBSCRIBER = """namespace Shop;

public static class Setup
{
    public static void Go(IEventBusBuilder builder) => builder.AddSubscription<OrderPaid, OrderPaidHandler>();
}

public class Pay(IEventBus bus)
{
    public Task Go() => bus.PublishAsync(new OrderPaid(1));
}
"""

OTHER_HANDLER = """namespace Shop;

public class OrderPaidHandler
{
    public Task Handle(OrderPaid e) => Task.CompletedTask;
}
"""


def test_a_subscriptions_handler_is_never_another_deployed_services_class_of_that_name(tmp_path):
    files = {"Bus/Bus.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>', "Bus/Bus.cs": BUS_LIB,
             "a/a.csproj": CSPROJ, "a/Program.cs": SUBSCRIBER, "b/b.csproj": CSPROJ, "b/Handler.cs": OTHER_HANDLER}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    listeners = [(n.props["microservice"], n.props["file"], n.props["unresolved_reason"])
                 for n in nodes.values() if n.kind == "route" and n.props.get("broker") == "eventbus"]
    # b's class of the name runs in b's process: a's subscription names a handler a does not have
    assert listeners == [("a", "a/Program.cs", "the classes named OrderPaidHandler are code of other deployed services")]


CATCH_ALL_FRONT = """var app = WebApplication.CreateBuilder(args).Build();
app.MapForwarder("/media/{**rest}", "http://media:8080");
app.MapForwarder("/shop/{**rest}", "http://media:8080", "/api/media/{**rest}");
app.Run();
"""

MEDIA_TREE = """var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/media/list", () => 1);
app.MapGet("/api/media/{mediaId:int}/picture", (int mediaId) => mediaId);
app.MapGet("/status", () => "up");
app.Run();
"""


def test_map_forwarder_with_a_catch_all_forwards_every_path_under_its_prefix(tmp_path):
    forwards = _forwards(tmp_path, {"front": CATCH_ALL_FRONT, "media": MEDIA_TREE})
    # a target path ending in the catch-all swaps the prefix (the deeper route was reached by nothing before)
    assert forwards == {("ANY /media/**", "GET /media/list"),
                        ("ANY /shop/**", "GET /api/media/{mediaId}/picture")}


COPIED_CLIENT = """namespace Shop.Common;

public class StockClient(HttpClient http)
{
    public Task<string> Item(int id) => http.GetStringAsync($"api/items/{id}");
}
"""

REGISTERING_WEB = """using Shop.Common;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddHttpClient<StockClient>(o => o.BaseAddress = new("http://stock"));
builder.Build().Run();
"""

STOCK_ITEMS = """var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/api/items/{id}", (int id) => id);
app.Run();
"""


def test_a_typed_client_never_takes_another_deployed_services_registration(tmp_path):
    files = {"web/web.csproj": CSPROJ, "web/Program.cs": REGISTERING_WEB, "web/StockClient.cs": COPIED_CLIENT,
             "kiosk/kiosk.csproj": CSPROJ, "kiosk/Program.cs": "WebApplication.CreateBuilder(args).Build().Run();\n",
             "kiosk/StockClient.cs": COPIED_CLIENT, "stock/stock.csproj": CSPROJ, "stock/Program.cs": STOCK_ITEMS}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    clients = {n.props["microservice"]: (n.props["label"], n.props["match"]) for n in nodes.values()
               if n.kind == "client"}
    # the kiosk's copy of the class runs in the kiosk, which registers it nowhere: web's base address is not its
    assert clients == {"web": ("GET stock /api/items/{id}", "cross_service"),
                       "kiosk": ("GET ? /api/items/{id}", "unresolved")}


GROUPS_GIVEN_TWICE = """var app = WebApplication.CreateBuilder(args).Build();
var pick = flag ? app.MapGroup("/a") : app.MapGroup("/b");
pick.MapGet("/x", () => 1);
var version = app.MapGroup("/v1");
if (flag) version = app.MapGroup("/v2");
version.MapGet("/z", () => 1);
var plain = app.MapGroup("/k");
plain.MapGet("/y", () => 1);
app.Run();
"""


def test_a_group_local_given_several_values_has_an_unknown_prefix(tmp_path):
    (tmp_path / "Shop.csproj").write_text(CSPROJ)
    (tmp_path / "Program.cs").write_text(GROUPS_GIVEN_TWICE)
    # the ternary lost its prefix and the reassigned local kept its first: either group may hold the route
    assert _routes(tmp_path) == {"GET /{?}/x", "GET /{?}/z", "GET /k/y"}


LIBRARY_REGISTRATION = """namespace Shop.Defaults;

public static class Clients
{
    public static void AddMedia(IServiceCollection services) =>
        services.AddHttpClient("gallery", c => c.BaseAddress = new Uri("http://media:8080"));
}
"""


def test_a_named_client_a_library_registers_is_the_apps_that_use_it(tmp_path):
    files = {"kiosk/kiosk.csproj": CSPROJ, "kiosk/Program.cs": KIOSK.replace('"media"', '"gallery"'),
             "media/media.csproj": CSPROJ, "media/Program.cs": MEDIA,
             "defaults/defaults.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>',
             "defaults/Clients.cs": LIBRARY_REGISTRATION}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    clients = {n.props["microservice"]: (n.props["label"], n.props["match"]) for n in nodes.values()
               if n.kind == "client"}
    assert clients == {"kiosk": ("GET media /api/media/{id}", "cross_service")}   # a library runs in the app
