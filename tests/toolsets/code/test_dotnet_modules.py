""".NET systems written in layers and modules: a gateway never links into a route whose prefix is not known,
one YARP route overlaid by an environment's ``appsettings`` is one route, Carter and FastEndpoints modules, Refit
clients, class libraries of one deployable, and message types that come through a mapping."""

from __future__ import annotations

import json
from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'
LIB = '<Project Sdk="Microsoft.NET.Sdk"></Project>'
GATEWAY = "var app = WebApplication.CreateBuilder(args).Build();\napp.MapReverseProxy();\napp.Run();\n"


def _yarp(routes: dict[str, str], clusters: dict[str, str]) -> str:
    return json.dumps({"ReverseProxy": {
        "Routes": {rid: {"ClusterId": rid, "Match": {"Path": f"{prefix}/{{**catch-all}}"},
                         "Transforms": [{"PathPattern": "{**catch-all}"}]} for rid, prefix in routes.items()},
        "Clusters": {cid: {"Destinations": {"d1": {"Address": address}}} for cid, address in clusters.items()}}})


def _build(root: Path, files: dict[str, str]):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return CodeGraph.build(root).snapshot()


def _links(nodes, edges, kind: str = "HTTP_CALLS") -> set[tuple[str, str]]:
    return {(nodes[e.src].props["label"], nodes[e.dst].props.get("label", nodes[e.dst].name)) for e in edges.values()
            if e.type == kind and e.src in nodes and e.dst in nodes}


UNMOUNTED = """namespace Shop.Catalog;

public static class ProductRoutes
{
    public static void Map(IEndpointRouteBuilder routes)
    {
        routes.MapGet("/products/{id}", (int id) => id);
    }
}
"""
CATALOG = "var app = WebApplication.CreateBuilder(args).Build();\napp.MapGet(\"/health\", () => \"ok\");\napp.Run();\n"


def test_a_gateway_never_links_into_a_route_whose_prefix_is_not_known(tmp_path):
    nodes, edges = _build(tmp_path, {
        "Gateway/Gateway.csproj": WEB, "Gateway/Program.cs": GATEWAY,
        "Gateway/appsettings.json": _yarp({"catalog": "/catalog-service"}, {"catalog": "http://catalog:8080"}),
        "Catalog/Catalog.csproj": WEB, "Catalog/Program.cs": CATALOG, "Catalog/ProductRoutes.cs": UNMOUNTED})
    routes = {n.props["label"]: n for n in nodes.values() if n.kind == "route"}
    assert "GET /{?}/products/{id}" in routes   # nobody mounts it: its prefix is not known
    assert _links(nodes, edges) == {("ANY /catalog-service/**", "GET /health")}
    detail = routes["ANY /catalog-service/**"].props["match_detail"]
    assert "unknown parts" in detail and "GET /{?}/products/{id}" in detail


KNOWN_CATALOG = "var app = WebApplication.CreateBuilder(args).Build();\napp.MapGet(\"/products\", () => 1);\napp.Run();\n"
COMPOSE = """services:
  catalog:
    build: {context: ., dockerfile: Catalog/Dockerfile}
    ports: ["6000:8080"]
  gateway:
    build: {context: ., dockerfile: Gateway/Dockerfile}
    environment:
      - ASPNETCORE_ENVIRONMENT=%s
"""


def _overlaid(root: Path, environment: str | None):
    files = {"Gateway/Gateway.csproj": WEB, "Gateway/Program.cs": GATEWAY, "Gateway/Dockerfile": "FROM x\n",
             "Gateway/appsettings.json": _yarp({"catalog": "/catalog-service"}, {"catalog": "http://catalog:8080"}),
             "Gateway/appsettings.Local.json": _yarp({"catalog": "/catalog-service"},
                                                     {"catalog": "http://localhost:6000/"}),
             "Gateway/appsettings.Development.json": '{"Logging": {}}',
             "Catalog/Catalog.csproj": WEB, "Catalog/Program.cs": KNOWN_CATALOG, "Catalog/Dockerfile": "FROM x\n"}
    if environment is not None:
        files["docker-compose.yml"] = COMPOSE % environment
    nodes, edges = _build(root, files)
    gateway = [n for n in nodes.values() if n.kind == "route" and n.props["framework"] == "yarp"]
    return gateway, _links(nodes, edges)


def test_a_yarp_route_overlaid_by_an_environments_appsettings_is_one_route(tmp_path):
    # no environment named: the overlay's values win; both files are its sources
    [route], links = _overlaid(tmp_path / "a", None)
    assert route.props["forward"]["target"] == "http://localhost:6000"
    assert route.props["file"] == "Gateway/appsettings.json"
    assert route.props["path"] == ("yarp route catalog to cluster catalog: /catalog-service/** "
                                   "(Gateway/appsettings.json:1, Gateway/appsettings.Local.json:1)")
    # the deployment runs it in Development, whose file sets no route: the base's values
    [route], links = _overlaid(tmp_path / "b", "Development")
    assert route.props["forward"]["target"] == "http://catalog:8080"
    assert links == {("ANY /catalog-service/**", "GET /products")}


CARTER = """namespace Shop.Catalog;

public class GetProductEndpoint : ICarterModule
{
    public void AddRoutes(IEndpointRouteBuilder app)
    {
        app.MapGet("/products/{id}", (Guid id, ISender sender) => sender.Send(id)).WithName("GetProduct");
        var admin = app.MapGroup("/admin");
        admin.MapDelete("/products/{id}", (Guid id) => id);
    }
}

public class StockModule : CarterModule
{
    public StockModule() : base("/stock")
    {
    }

    public override void AddRoutes(IEndpointRouteBuilder app)
    {
        app.MapPut("/{sku}", Update);
    }

    private static int Update(string sku) => 1;
}
"""
CARTER_PROGRAM = """var builder = WebApplication.CreateBuilder(args);
builder.Services.AddCarter();
var app = builder.Build();
app.MapCarter();
app.Run();
"""
CARTER_EXTENSION = """namespace Shop.Ordering;

public static class DependencyInjection
{
    public static WebApplication UseApiServices(this WebApplication app)
    {
        app.MapGroup("/v1").MapCarter();
        return app;
    }
}

public class OrdersModule : ICarterModule
{
    public void AddRoutes(IEndpointRouteBuilder app) => app.MapGet("/orders", () => 1);
}
"""
FAST = """namespace Shop.Users;

public class GetUser : Endpoint<GetUserRequest, UserResponse>
{
    public override void Configure()
    {
        Get("/users/{id}", "/people/{id}");
        AllowAnonymous();
    }

    public override Task HandleAsync(GetUserRequest req, CancellationToken ct) => Task.CompletedTask;
}

public class Ping : EndpointWithoutRequest
{
    public override void Configure()
    {
        Verbs(Http.POST, Http.PUT);
        Routes("/ping");
    }

    public override Task HandleAsync(CancellationToken ct) => Task.CompletedTask;
}
"""
FAST_PROGRAM = """var app = WebApplication.CreateBuilder(args).Build();
app.UseFastEndpoints(c => c.Endpoints.RoutePrefix = "api");
app.Run();
"""


def _route_handlers(nodes) -> set[tuple[str, str]]:
    return {(n.props["label"], n.props["handler_fqn"]) for n in nodes.values() if n.kind == "route"}


def test_carter_modules_are_mounted_where_map_carter_mounts_them(tmp_path):
    nodes, _ = _build(tmp_path, {
        "Catalog/Catalog.csproj": WEB, "Catalog/Program.cs": CARTER_PROGRAM, "Catalog/Endpoints.cs": CARTER,
        "Ordering/Ordering.csproj": WEB, "Ordering/DependencyInjection.cs": CARTER_EXTENSION,
        "Ordering/Program.cs": "var app = WebApplication.CreateBuilder(args).Build();\napp.UseApiServices();\n",
        "Lonely/Lonely.csproj": WEB, "Lonely/Module.cs": CARTER.replace("Shop.Catalog", "Shop.Lonely")})
    assert _route_handlers(nodes) == {
        ("GET /products/{id}", "Shop.Catalog.GetProductEndpoint.AddRoutes"),
        ("DELETE /admin/products/{id}", "Shop.Catalog.GetProductEndpoint.AddRoutes"),
        ("PUT /stock/{sku}", "Shop.Catalog.StockModule.Update"),   # the CarterModule's base path
        ("GET /v1/orders", "Shop.Ordering.OrdersModule.AddRoutes"),   # mounted on a group
        # no MapCarter() in its service: the prefix is not known (never another service's mount)
        ("GET /{?}/products/{id}", "Shop.Lonely.GetProductEndpoint.AddRoutes"),
        ("DELETE /{?}/admin/products/{id}", "Shop.Lonely.GetProductEndpoint.AddRoutes"),
        ("PUT /{?}/stock/{sku}", "Shop.Lonely.StockModule.Update"),
    }


def test_fast_endpoints_routes_come_from_configure_under_the_route_prefix(tmp_path):
    nodes, _ = _build(tmp_path, {"Users/Users.csproj": WEB, "Users/Program.cs": FAST_PROGRAM, "Users/Users.cs": FAST})
    assert _route_handlers(nodes) == {
        ("GET /api/users/{id}", "Shop.Users.GetUser.HandleAsync"), ("GET /api/people/{id}", "Shop.Users.GetUser.HandleAsync"),
        ("POST /api/ping", "Shop.Users.Ping.HandleAsync"), ("PUT /api/ping", "Shop.Users.Ping.HandleAsync")}


REFIT = """using Refit;

namespace Shop.Web.Services;

public interface ICatalogApi
{
    [Get("/catalog-service/products?page={page}")]
    Task<Products> GetProducts(int page);

    [Headers("Accept: application/json")]
    [Get("/catalog-service/products/{id}")]
    Task<Product> GetProduct(Guid id);

    [Post("/catalog-service/products")]
    Task Create([Body] Product product);

    Task<Product> Cached(Guid id);
}

public interface IStockApi
{
    [Get("/stock/{sku}")]
    Task<int> Level(string sku);
}

public interface IPriceApi
{
    [Get("/prices/{sku}")]
    Task<int> Price(string sku);
}

public interface IOrphanApi
{
    [Delete("/things/{id}")]
    Task Remove(int id);
}
"""
REFIT_PROGRAM = """using Shop.Web.Services;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddRefitClient<ICatalogApi>()
    .ConfigureHttpClient(c => c.BaseAddress = new Uri("http://gateway:8080"));
builder.Services.AddSingleton(RestService.For<IPriceApi>("http://stock:8080"));
builder.Build().Run();

public class StockGateway
{
    private readonly IStockApi api;

    public StockGateway(HttpClient http)
    {
        http.BaseAddress = new Uri("http://stock:8080/api");
        api = RestService.For<IStockApi>(http, new RefitSettings());
    }
}

public class ProductPage(ICatalogApi catalog)
{
    public Task<Product> OnGet(Guid id) => catalog.GetProduct(id);
}
"""
STOCK = """var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/api/stock/{sku}", (string sku) => 1);
app.MapGet("/prices/{sku}", (string sku) => 1);
app.Run();
"""


def test_refit_interfaces_are_clients_on_their_registrations_base_address(tmp_path):
    nodes, edges = _build(tmp_path, {
        "Web/Web.csproj": WEB, "Web/Program.cs": REFIT_PROGRAM, "Web/Services/Apis.cs": REFIT,
        "Gateway/Gateway.csproj": WEB, "Gateway/Program.cs": GATEWAY,
        "Gateway/appsettings.json": _yarp({"catalog": "/catalog-service"}, {"catalog": "http://catalog:8080"}),
        "Catalog/Catalog.csproj": WEB, "Catalog/Program.cs": CARTER_PROGRAM, "Catalog/Endpoints.cs": CARTER,
        "Stock/Stock.csproj": WEB, "Stock/Program.cs": STOCK})
    clients = {n.props["label"]: n.props for n in nodes.values() if n.kind == "client"}
    assert set(clients) == {"GET Gateway /catalog-service/products", "GET Gateway /catalog-service/products/{id}",
                            "POST Gateway /catalog-service/products", "GET Stock /api/stock/{sku}",
                            "GET Stock /prices/{sku}",
                            "DELETE ? /things/{id}"}
    assert clients["DELETE ? /things/{id}"]["match"] == "unresolved"   # nothing gives it a base address
    links = _links(nodes, edges)
    assert ("GET Gateway /catalog-service/products/{id}", "ANY /catalog-service/**") in links
    assert ("GET Stock /api/stock/{sku}", "GET /api/stock/{sku}") in links   # the base's path kept, as Refit does
    assert ("GET Stock /prices/{sku}", "GET /prices/{sku}") in links
    assert ("ANY /catalog-service/**", "GET /products/{id}") in links
    # a call through the interface is a call of the method that declares the client
    calls = {(nodes[e.src].props.get("qualified_name") or nodes[e.src].name, nodes[e.dst].name)
             for e in edges.values() if e.type == "CALLS" and e.src in nodes and e.dst in nodes}
    declared = {nodes[e.src].name for e in edges.values() if e.type == "DECLARES_CLIENT" and e.src in nodes}
    assert "GetProduct" in declared and any(dst == "GetProduct" for _, dst in calls)


def _project(sdk: str, *references: str) -> str:
    refs = "".join(f'<ProjectReference Include="..\\\\{r}\\\\{r}.csproj" />' for r in references)
    return f'<Project Sdk="{sdk}"><ItemGroup>{refs}</ItemGroup></Project>'


def test_class_libraries_of_one_deployable_are_part_of_its_microservice(tmp_path):
    web, lib = "Microsoft.NET.Sdk.Web", "Microsoft.NET.Sdk"
    (tmp_path / "src").mkdir()
    files = {
        "src/Ordering.API/Ordering.API.csproj": _project(web, "Ordering.Application", "Ordering.Infrastructure",
                                                         "Shared"),
        "src/Ordering.API/Program.cs": "var app = WebApplication.CreateBuilder(args).Build();\napp.Run();\n",
        "src/Ordering.Application/Ordering.Application.csproj": _project(lib, "Ordering.Domain"),
        "src/Ordering.Application/Handler.cs": "namespace Ordering.Application;\npublic class Handler { }\n",
        "src/Ordering.Infrastructure/Ordering.Infrastructure.csproj": _project(lib, "Ordering.Application"),
        "src/Ordering.Infrastructure/Db.cs": "namespace Ordering.Infrastructure;\npublic class Db { }\n",
        "src/Ordering.Domain/Ordering.Domain.csproj": _project(lib),
        "src/Ordering.Domain/Order.cs": "namespace Ordering.Domain;\npublic class Order { }\n",
        "src/Basket.API/Basket.API.csproj": _project(web, "Shared"),
        "src/Basket.API/Program.cs": "var app = WebApplication.CreateBuilder(args).Build();\napp.Run();\n",
        "src/Shared/Shared.csproj": _project(lib),
        "src/Shared/Bus.cs": "namespace Shared;\npublic class Bus { }\n",
        # a test project and an Aspire AppHost reference projects without running them in a deployment
        "tests/Ordering.Tests/Ordering.Tests.csproj": _project(web, "..\\\\src\\\\Ordering.Domain"),
        "tests/Ordering.Tests/OrderTests.cs": "namespace Ordering.Tests;\npublic class OrderTests { }\n",
        "src/AppHost/AppHost.csproj": _project("Aspire.AppHost.Sdk/9.0.0", "Ordering.API", "Basket.API",
                                               "Ordering.Domain"),
        "src/AppHost/Program.cs": "var builder = DistributedApplication.CreateBuilder(args);\n",
    }
    nodes, _ = _build(tmp_path, files)
    services = {n.name: n.props for n in nodes.values() if n.kind == "microservice"}
    assert {"Ordering.Application", "Ordering.Infrastructure", "Ordering.Domain"}.isdisjoint(services)
    assert services["Shared"]["deployable"] is False   # two deployables use it: never given to one
    where = {n.name: n.props["microservice"] for n in nodes.values() if n.props.get("symbol_kind") == "class"}
    assert where == {"Handler": "Ordering.API", "Db": "Ordering.API", "Order": "Ordering.API", "Bus": "Shared",
                     "OrderTests": "Ordering.Tests"}


MAPPED_CONTRACTS = """namespace Shop.Contracts;

public record OrderPlaced(int Id);
public record ShipOrder(int Id);
public record OrderDto(int Id);
"""
MAPPED_SENDER = """using MassTransit;
using Mapster;
using Shop.Contracts;

namespace Shop.Basket;

public record Order(int Id);

public static class OrderExtensions
{
    public static OrderDto ToOrderDto(this Order order) => new(order.Id);
}

public class Checkout(IPublishEndpoint publish, IMapper mapper)
{
    public async Task Place(CheckoutDto dto, CancellationToken ct)
    {
        var placed = dto.Adapt<OrderPlaced>();
        await publish.Publish(placed, ct);
    }

    public Task Ship(Order order) => publish.Publish(mapper.Map<Order, ShipOrder>(order));

    public async Task Report(Order order)
    {
        var dto = order.ToOrderDto();
        await publish.Publish(dto);
    }

    public Task Unknown(object o) => publish.Publish(o.Convert());
}
"""
MAPPED_CONSUMERS = """using MassTransit;
using Shop.Contracts;

namespace Shop.Ordering;

public class OrderPlacedConsumer : IConsumer<OrderPlaced>
{
    public Task Consume(ConsumeContext<OrderPlaced> context) => Task.CompletedTask;
}

public class ShipOrderConsumer : IConsumer<ShipOrder>
{
    public Task Consume(ConsumeContext<ShipOrder> context) => Task.CompletedTask;
}
"""


def test_a_message_mapped_to_its_type_is_of_that_type(tmp_path):
    nodes, edges = _build(tmp_path, {
        "Contracts/Contracts.csproj": LIB, "Contracts/Messages.cs": MAPPED_CONTRACTS,
        "Basket/Basket.csproj": WEB, "Basket/Checkout.cs": MAPPED_SENDER,
        "Ordering/Ordering.csproj": WEB, "Ordering/Consumers.cs": MAPPED_CONSUMERS})
    producers = {n.props["label"] for n in nodes.values() if n.kind == "producer"}
    assert producers == {"masstransit OrderPlaced", "masstransit ShipOrder", "masstransit OrderDto",
                         "masstransit {?}"}   # o.Convert(): no method of the project says what it returns
    assert _links(nodes, edges, "ASYNC_CALLS") == {("masstransit OrderPlaced", "masstransit OrderPlaced"),
                                                   ("masstransit ShipOrder", "masstransit ShipOrder")}


GRPC_PROTO = """syntax = "proto3";
package shop.v1;
option csharp_namespace = "Shop.V1";
service Stock { rpc Reserve(ReserveRequest) returns (ReserveReply); }
message ReserveRequest {}
message ReserveReply {}
"""
GRPC_USER = """using Grpc.Net.Client;
using Shop.V1;

namespace Ordering.Application;

public class Reserver(Stock.StockClient stock)
{
    public void Reserve() => stock.Reserve(new ReserveRequest());
}
"""


def _registering(address: str) -> str:
    return ("namespace Reg;\npublic static class Setup\n{\n    public static void Add(IServiceCollection services) =>\n"
            f'        services.AddGrpcClient<Shop.V1.Stock.StockClient>(o => o.Address = new Uri("{address}"));\n}}\n')


def test_a_grpc_client_takes_the_registration_of_another_layer_of_its_service_never_another_services(tmp_path):
    web, lib = "Microsoft.NET.Sdk.Web", "Microsoft.NET.Sdk"
    nodes, _ = _build(tmp_path, {
        "Ordering.API/Ordering.API.csproj": _project(web, "Ordering.Application", "Ordering.Infrastructure"),
        "Ordering.API/Program.cs": "var app = WebApplication.CreateBuilder(args).Build();\napp.Run();\n",
        "Ordering.Application/Ordering.Application.csproj": _project(lib),
        "Ordering.Application/Reserver.cs": GRPC_USER,
        "Ordering.Infrastructure/Ordering.Infrastructure.csproj": _project(lib),
        "Ordering.Infrastructure/Setup.cs": _registering("http://stock:5000"),
        "Kiosk/Kiosk.csproj": _project(web), "Kiosk/Setup.cs": _registering("http://elsewhere:5000"),
        "Stock/Stock.csproj": _project(web), "Stock/stock.proto": GRPC_PROTO,
        "Stock/StockService.cs": "namespace StockSvc;\npublic class StockService : Shop.V1.Stock.StockBase {\n"
                                 " public override object Reserve(object r, object c) => null;\n}\n"})
    [client] = [n.props for n in nodes.values() if n.kind == "client"]
    assert (client["microservice"], client["channel_address"], client["channel_service"]) == (
        "Ordering.API", "http://stock:5000", "Stock")


def test_a_refit_base_address_from_an_environment_variable_is_settled_by_the_deployment(tmp_path):
    program = REFIT_PROGRAM.replace('new Uri("http://gateway:8080")',
                                    'new Uri(Environment.GetEnvironmentVariable("GATEWAY_URL")!)')   # null-forgiving
    compose = ("services:\n  web:\n    build: {context: ., dockerfile: Web/Dockerfile}\n    environment:\n"
               "      - GATEWAY_URL=http://gateway:8080\n  gateway:\n    build: {context: ., dockerfile: Gateway/Dockerfile}\n")
    nodes, edges = _build(tmp_path, {
        "Web/Web.csproj": WEB, "Web/Program.cs": program, "Web/Services/Apis.cs": REFIT, "Web/Dockerfile": "FROM x\n",
        "Gateway/Gateway.csproj": WEB, "Gateway/Program.cs": GATEWAY, "Gateway/Dockerfile": "FROM x\n",
        "Gateway/appsettings.json": _yarp({"catalog": "/catalog-service"}, {"catalog": "http://catalog:8080"}),
        "docker-compose.yml": compose})
    [client] = [n.props for n in nodes.values() if n.kind == "client" and n.props["declaring_fqn"].endswith("GetProduct")]
    assert (client["target_url"], client["match"]) == ("http://gateway:8080/catalog-service/products/{id}",
                                                       "cross_service")


MEDIATR_MAPPED = """using MediatR;
using Mapster;

namespace Shop;

public record StoreCommand(int Id) : IRequest<bool>;
public record StoreRequest(int Id);
public class StoreHandler : IRequestHandler<StoreCommand, bool>
{
    public Task<bool> Handle(StoreCommand r, CancellationToken t) => Task.FromResult(true);
}

public interface ICommandHandler<in TCommand, TResponse> : IRequestHandler<TCommand, TResponse> where TCommand : notnull
{
}

public interface ICommandHandler<in TCommand> : ICommandHandler<TCommand, Unit>
{
}

public record ClearCommand(int Id) : IRequest<Unit>;
public record PriceQuery(int Id) : IRequest<int>;
public class ClearHandler : ICommandHandler<ClearCommand>
{
    public Task<Unit> Handle(ClearCommand r, CancellationToken t) => Task.FromResult(Unit.Value);
}

public class PriceHandler : ICommandHandler<PriceQuery, int>
{
    public Task<int> Handle(PriceQuery r, CancellationToken t) => Task.FromResult(1);
}

public class Endpoints
{
    public Task Clear(ISender sender) => sender.Send(new ClearCommand(1));

    public Task Price(ISender sender) => sender.Send(new PriceQuery(1));

    public async Task Store(StoreRequest request, ISender sender)
    {
        var command = request.Adapt<StoreCommand>();
        await sender.Send(command);
    }

    public Task Direct(StoreRequest request, ISender sender, IMapper mapper) => sender.Send(mapper.Map<StoreCommand>(request));
}
"""


def test_a_mediatr_request_mapped_to_its_type_or_handled_through_a_cqrs_interface_triggers_its_handler(tmp_path):
    nodes, edges = _build(tmp_path, {"Shop/Shop.csproj": WEB, "Shop/Endpoints.cs": MEDIATR_MAPPED})
    fqn = {i: n.props.get("fqn") for i, n in nodes.items()}
    assert {(fqn[e.src], fqn[e.dst]) for e in edges.values() if e.props.get("kind") == "mediator"} == {
        ("Shop.Endpoints.Store", "Shop.StoreHandler.Handle"), ("Shop.Endpoints.Direct", "Shop.StoreHandler.Handle"),
        # through the project's own handler interfaces (a CQRS layer over IRequestHandler)
        ("Shop.Endpoints.Clear", "Shop.ClearHandler.Handle"), ("Shop.Endpoints.Price", "Shop.PriceHandler.Handle")}


def test_a_grpc_address_read_from_configuration_through_the_null_forgiving_operator_is_folded(tmp_path):
    program = ("var builder = WebApplication.CreateBuilder(args);\n"
               "builder.Services.AddGrpcClient<Shop.V1.Stock.StockClient>(o =>\n"
               '    o.Address = new Uri(builder.Configuration["GrpcSettings:StockUrl"]!));\n'
               "var app = builder.Build();\napp.Run();\n")
    nodes, _ = _build(tmp_path, {
        "Ordering.API/Ordering.API.csproj": _project("Microsoft.NET.Sdk.Web"), "Ordering.API/Program.cs": program,
        "Ordering.API/appsettings.json": json.dumps({"GrpcSettings": {"StockUrl": "http://stock:5000"}}),
        "Ordering.API/Reserver.cs": GRPC_USER,
        "Stock/Stock.csproj": _project("Microsoft.NET.Sdk.Web"), "Stock/stock.proto": GRPC_PROTO,
        "Stock/StockService.cs": "namespace StockSvc;\npublic class StockService : Shop.V1.Stock.StockBase {\n"
                                 " public override object Reserve(object r, object c) => null;\n}\n"})
    [client] = [n.props for n in nodes.values() if n.kind == "client"]
    assert (client["channel_address"], client["channel_service"]) == ("http://stock:5000", "Stock")
