""".NET typed and named ``HttpClient``s (Microsoft.Extensions.Http): the base address a registration gives
(``AddHttpClient<I, T>(c => c.BaseAddress = ..)``, ``AddHttpClient("name", ..).AddTypedClient<I, T>()``) is the
start of every relative call the client's class makes, an interpolated path whose first hole is an identifier's
value (an id) too; any other value (``nextUrl``, ``target``) or ``new Uri(x)`` may be absolute: its start stays
unknown."""

from __future__ import annotations

from helpers.code_graph import labels_by_declarer
from helpers.code_tools import write_tree

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'

PACKAGES = """using Microsoft.AspNetCore.Mvc;

namespace Shop.Packages;

[ApiController]
[Route("api/packages")]
public class PackagesController : ControllerBase
{
    [HttpPut("{packageId}")]
    public IActionResult Put(string packageId) => Ok();

    [HttpGet("{packageId}")]
    public IActionResult Get(string packageId) => Ok();
}
"""

DRONES = """using Microsoft.AspNetCore.Mvc;

namespace Shop.Drones;

[ApiController]
[Route("api/drones")]
public class DronesController : ControllerBase
{
    [HttpPut("{deliveryId}")]
    public IActionResult Assign(string deliveryId) => Ok();
}
"""

STARTUP = """using System;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Shop.Workflow;

public static class Startup
{
    public static void ConfigureServices(HostBuilderContext context, IServiceCollection services)
    {
        services
            .AddHttpClient<IPackageCaller, PackageCaller>(c =>
            {
                c.BaseAddress = new Uri(context.Configuration["SERVICE_URI_PACKAGE"]);
            })
            .AddPolicyHandler(null);

        services
            .AddHttpClient("drones", (sp, c) => c.BaseAddress = new Uri("http://drones/api/drones/"))
            .AddTypedClient<IDroneCaller, DroneCaller>();
    }
}
"""

CALLERS = """using System.Net.Http;
using System.Net.Http.Json;
using System.Threading.Tasks;

namespace Shop.Workflow.Services;

public interface IPackageCaller { Task Upsert(Package p); }

public class PackageCaller : IPackageCaller
{
    private readonly HttpClient _httpClient;

    public PackageCaller(HttpClient httpClient) { _httpClient = httpClient; }

    public Task Upsert(Package p) => _httpClient.PutAsJsonAsync($"{p.PackageId}", p);

    public Task<HttpResponseMessage> Get(string packageId) => _httpClient.GetAsync($"{packageId}");

    public Task<HttpResponseMessage> Follow(string nextUrl) => _httpClient.GetAsync($"{nextUrl}");

    public Task<HttpResponseMessage> Next(string nextLink) => _httpClient.GetAsync(nextLink);
}

public interface IDroneCaller { Task Assign(string id); }

public class DroneCaller : IDroneCaller
{
    private readonly HttpClient _http;

    public DroneCaller(HttpClient http) { _http = http; }

    public Task Assign(Delivery delivery) => _http.PutAsJsonAsync(delivery.Id, delivery);
}
"""

COMPOSE = """services:
  packages:
    build: ./packages
  drones:
    build: ./drones
  workflow:
    build: ./workflow
    environment:
      SERVICE_URI_PACKAGE: http://packages/api/packages/
"""


def _clients(root) -> dict[str, list[tuple[str, str]]]:
    return labels_by_declarer(root, "client")


def test_typed_and_named_clients_start_at_their_registered_base_address(tmp_path):
    write_tree(tmp_path, {
        "packages/packages.csproj": WEB, "packages/PackagesController.cs": PACKAGES,
        "drones/drones.csproj": WEB, "drones/DronesController.cs": DRONES,
        "workflow/workflow.csproj": WEB, "workflow/Startup.cs": STARTUP, "workflow/Services/Callers.cs": CALLERS,
        "docker-compose.yml": COMPOSE})
    clients = _clients(tmp_path)
    ns = "Shop.Workflow.Services"
    # the base comes from configuration the deployment sets; the interpolated id is a path under it
    assert clients[f"{ns}.PackageCaller.Upsert"] == [("PUT packages /api/packages/{PackageId}", "cross_service")]
    assert clients[f"{ns}.PackageCaller.Get"] == [("GET packages /api/packages/{packageId}", "cross_service")]
    # a hole or a value named as an address may be a whole URL: never a path under the base
    for method in ("Follow", "Next"):
        [(label, match)] = clients[f"{ns}.PackageCaller.{method}"]
        assert match == "unresolved" and label.startswith("GET ?"), label
    # AddHttpClient("drones", ..).AddTypedClient<IDroneCaller, DroneCaller>(): the named client's base; a value
    # (not an interpolated string) is a relative URI too
    assert clients[f"{ns}.DroneCaller.Assign"] == [("PUT drones /api/drones/{Id}", "cross_service")]


OPTIONS_PROGRAM = """using Microsoft.Extensions.Options;
using Front;

var builder = WebApplication.CreateBuilder(args);
builder.Services.Configure<CatalogOptions>(builder.Configuration.GetSection("Catalog"));
builder.Services.AddHttpClient<ICatalogService, CatalogService>((sp, client) =>
{
    var options = sp.GetRequiredService<IOptions<CatalogOptions>>().Value;
    client.BaseAddress = new Uri(options.BaseUrl);
});
builder.Services.AddHttpClient<IStockService, StockService>((sp, client) =>
    client.BaseAddress = new Uri(sp.GetRequiredService<IOptionsMonitor<CatalogOptions>>().CurrentValue.StockUrl));
builder.Build().Run();
"""

OPTIONS_CLIENTS = """namespace Front;

public class CatalogOptions { public string BaseUrl { get; set; } public string StockUrl { get; set; } }

public class CatalogService : ICatalogService
{
    private readonly HttpClient _http;
    public CatalogService(HttpClient http) { _http = http; }
    public Task<string> Item(string id) => _http.GetStringAsync($"api/items/{id}");
}

public class StockService : IStockService
{
    private readonly HttpClient _http;
    public StockService(HttpClient http) { _http = http; }
    public Task<string> Level(string sku) => _http.GetStringAsync($"api/levels/{sku}");
}
"""

CATALOG = """var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/api/items/{id}", (string id) => id);
app.MapGet("/api/levels/{sku}", (string sku) => sku);
app.Run();
"""


def test_a_base_address_read_from_options_the_service_provider_gives(tmp_path):
    write_tree(tmp_path, {
        "catalog/catalog.csproj": WEB, "catalog/Program.cs": CATALOG,
        "front/front.csproj": WEB, "front/Program.cs": OPTIONS_PROGRAM, "front/Clients.cs": OPTIONS_CLIENTS,
        "front/appsettings.json": '{"Catalog": {"BaseUrl": "http://catalog", "StockUrl": "http://catalog"}}'})
    clients = _clients(tmp_path)
    assert clients["Front.CatalogService.Item"] == [("GET catalog /api/items/{id}", "cross_service")]
    assert clients["Front.StockService.Level"] == [("GET catalog /api/levels/{sku}", "cross_service")]


TARGETS_PROGRAM = """using Front;
var builder = WebApplication.CreateBuilder(args);
builder.Services.AddHttpClient<ICatalogService, CatalogService>(c => c.BaseAddress = new Uri("http://catalog/"));
builder.Build().Run();
"""

TARGETS_CLIENTS = """namespace Front;

public class CatalogService : ICatalogService
{
    private readonly HttpClient _http;
    public CatalogService(HttpClient http) { _http = http; }
    public Task<string> Fetch(string target) => _http.GetStringAsync(target);
    public Task<string> Whole(string id) => _http.GetStringAsync(new Uri(id));
    public Task<string> Relative(string id) => _http.GetStringAsync(new Uri(id, UriKind.Relative));
    public Task<string> Item(string itemId) => _http.GetStringAsync(itemId);
}
"""

ROOT_ROUTE = """var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/{id}", (string id) => id);
app.Run();
"""


def test_a_value_not_named_an_identifier_or_a_uri_made_absolute_is_no_path_under_the_base(tmp_path):
    write_tree(tmp_path, {
        "catalog/catalog.csproj": WEB, "catalog/Program.cs": ROOT_ROUTE,
        "front/front.csproj": WEB, "front/Program.cs": TARGETS_PROGRAM, "front/Clients.cs": TARGETS_CLIENTS})
    clients = _clients(tmp_path)
    # ``target`` may hold a whole URL; ``new Uri(x)`` throws on a relative one: neither is a path under the base
    for method in ("Fetch", "Whole"):
        [(label, match)] = clients[f"Front.CatalogService.{method}"]
        assert match == "unresolved" and label.startswith("GET ?"), (method, label)
    assert clients["Front.CatalogService.Relative"] == [("GET catalog /{id}", "cross_service")]
    assert clients["Front.CatalogService.Item"] == [("GET catalog /{itemId}", "cross_service")]
