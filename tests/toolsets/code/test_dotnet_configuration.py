""".NET configuration folded into addresses: an ``IConfiguration`` read is each value the module's
``appsettings.json`` and ``appsettings.<Environment>.json`` give the key (several: each a candidate, none picked),
overridden by the ``A__B`` environment variable the deployment sets; a read on anything but configuration is no
setting. Refit/RestEase interfaces are clients under the base address ``RestService.For`` or ``AddRefitClient``
gives them."""

from __future__ import annotations

import json

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'

STOCK = """var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/api/levels/{sku}", (string sku) => sku);
app.MapGet("/api/prices", () => "p");
app.Run();
"""

CLIENTS = """namespace Shop.Front;

public class Levels(IConfiguration configuration, HttpClient http)
{
    private readonly Dictionary<string, string> _lookup = new();

    public Task<string> Level(string sku)
    {
        var section = configuration.GetSection("Services");
        var host = section.GetValue<string>("Stock");
        return http.GetStringAsync($"http://{host}/api/levels/{sku}");
    }

    public Task<string> Prices() => http.GetStringAsync(configuration["Services:Prices"] + "/api/prices");

    public Task<string> Nowhere() => http.GetStringAsync(configuration.GetConnectionString("missing") + "/api/prices");

    public Task<string> NotConfiguration() => http.GetStringAsync(_lookup["Services:Prices"] + "/api/prices");
}
"""

SETTINGS = {"Services": {"Stock": "stock:8080", "Prices": "http://localhost:5001"}}
PRODUCTION = {"Services": {"Stock": "stock-svc:8080"}}
COMPOSE = """services:
  stock-svc:
    build: ./stock
  front:
    build: ./front
    environment:
      Services__Prices: http://stock-svc:8080
"""


def _clients(root) -> dict[str, tuple[str, str, str | None]]:
    nodes, _ = CodeGraph.build(root).snapshot()
    out = {}
    for node in nodes.values():
        if node.kind == "client":
            p = node.props
            out.setdefault(p["declaring_fqn"], []).append((p["label"], p["match"], p.get("target_url")))
    return {key: sorted(values) for key, values in out.items()}


def test_configuration_reads_fold_to_the_appsettings_values_and_the_deployments_environment(tmp_path):
    write_tree(tmp_path, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK, "docker-compose.yml": COMPOSE,
        "front/front.csproj": WEB, "front/Levels.cs": CLIENTS,
        "front/appsettings.json": json.dumps(SETTINGS, indent=2),
        "front/appsettings.Production.json": json.dumps(PRODUCTION, indent=2)})
    clients = _clients(tmp_path)
    # two environments, two hosts: each a candidate (both name the stock service, by folder and Compose name)
    level = clients["Shop.Front.Levels.Level"]
    assert {url for _, _, url in level} == {"http://{stock:8080|stock-svc:8080}/api/levels/{sku}"}
    assert {match for _, match, _ in level} == {"cross_service"}
    # the deployment's Services__Prices overrides appsettings.json's localhost
    assert clients["Shop.Front.Levels.Prices"] == [("GET stock /api/prices", "cross_service",
                                                    "http://stock-svc:8080/api/prices")]
    # a key no file sets, and a dictionary that is no configuration: unresolved, never a guess
    assert [m for _, m, _ in clients["Shop.Front.Levels.Nowhere"]] == ["unresolved"]
    assert [m for _, m, _ in clients["Shop.Front.Levels.NotConfiguration"]] == ["unresolved"]


def _prices_config_from(root, settings: dict) -> list[str]:
    """The ``config_from`` of front's ``Prices`` client, with ``settings`` as its appsettings.json."""
    write_tree(root, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK, "docker-compose.yml": COMPOSE,
        "front/front.csproj": WEB, "front/Levels.cs": CLIENTS,
        "front/appsettings.json": json.dumps(settings, indent=2)})
    nodes, _ = CodeGraph.build(root).snapshot()
    [prices] = [n.props for n in nodes.values() if n.kind == "client"
                and n.props["declaring_fqn"] == "Shop.Front.Levels.Prices"]
    return prices["config_from"]


def test_a_clients_config_from_names_the_deployments_variable_and_the_appsettings_default_it_overrides(tmp_path):
    """``Services__Prices`` is the deployment's spelling of the key ``Services:Prices``: both lines say where the
    address comes from (the default a developer's run uses, and what the deployment sets)."""
    assert _prices_config_from(tmp_path, SETTINGS) == [
        "docker-compose service front environment Services__Prices=http://stock-svc:8080 (docker-compose.yml:7)",
        "Services:Prices = http://localhost:5001 (front/appsettings.json:4)"]


def test_config_from_finds_the_appsettings_key_in_any_case_as_dotnet_does(tmp_path):
    """.NET configuration keys are case-insensitive: ``services:prices`` in appsettings.json is the key the
    deployment's ``Services__Prices`` overrides."""
    settings = {"services": {"Stock": "stock:8080", "prices": "http://localhost:5001"}}
    assert _prices_config_from(tmp_path, settings)[1:] == [
        "services:prices = http://localhost:5001 (front/appsettings.json:4)"]


def test_a_variable_the_deployment_sets_overrides_every_environments_value_as_one(tmp_path):
    """Two appsettings files give Services:Stock two values, and the deployment's Services__Stock overrides both:
    one address, not a choice of one value twice."""
    compose = COMPOSE.replace("Services__Prices: http://stock-svc:8080", "Services__Stock: stock-svc:8080")
    write_tree(tmp_path, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK, "docker-compose.yml": compose,
        "front/front.csproj": WEB, "front/Levels.cs": CLIENTS,
        "front/appsettings.json": json.dumps(SETTINGS, indent=2),
        "front/appsettings.Production.json": json.dumps(PRODUCTION, indent=2)})
    assert _clients(tmp_path)["Shop.Front.Levels.Level"] == [
        ("GET stock /api/levels/{sku}", "cross_service", "http://stock-svc:8080/api/levels/{sku}")]


REFIT_API = """using Refit;

namespace Shop.Front.Api;

public interface IStockApi
{
    [Get("/levels/{sku}")]
    Task<string> Level(string sku);

    [Post("/levels")]
    Task Add([Body] object level);
}

public interface IPriceApi
{
    [Get("/prices")]
    Task<string> All();
}

public interface IOrphanApi
{
    [Get("/prices")]
    Task<string> All();
}
"""

REFIT_USE = """using Shop.Front.Api;

namespace Shop.Front;

public class StockClient
{
    private readonly IStockApi _api;

    public StockClient(IConfiguration config, HttpClient httpClient)
    {
        string host = config.GetSection("Services").GetValue<string>("Stock");
        httpClient.BaseAddress = new Uri($"http://{host}/api");
        _api = RestService.For<IStockApi>(httpClient);
    }
}
"""

REFIT_PROGRAM = """using Shop.Front.Api;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddRefitClient<IPriceApi>()
    .ConfigureHttpClient(c => c.BaseAddress = new Uri("http://stock:8080/api"));
builder.Build().Run();
"""


def test_refit_interfaces_are_clients_under_the_base_address_they_are_given(tmp_path):
    write_tree(tmp_path, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK.replace('"/api/levels/{sku}"', '"/api/levels/{sku}"'),
        "front/front.csproj": WEB, "front/Api.cs": REFIT_API, "front/StockClient.cs": REFIT_USE,
        "front/Program.cs": REFIT_PROGRAM, "front/appsettings.json": json.dumps(SETTINGS)})
    clients = _clients(tmp_path)
    assert clients["Shop.Front.Api.IStockApi.Level"] == [
        ("GET stock /api/levels/{sku}", "cross_service", "http://stock:8080/api/levels/{sku}")]
    # a call to a path the service does not expose is recorded as such
    assert [(label, match) for label, match, _ in clients["Shop.Front.Api.IStockApi.Add"]] == [
        ("POST stock /api/levels", "no_route")]
    assert clients["Shop.Front.Api.IPriceApi.All"] == [("GET stock /api/prices", "cross_service",
                                                         "http://stock:8080/api/prices")]
    # no base address anywhere: a path, unresolved
    assert [match for _, match, _ in clients["Shop.Front.Api.IOrphanApi.All"]] == ["unresolved"]


OTHER_PROGRAM = """using Shop.Other.Api;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddRefitClient<IOrphanApi>()
    .ConfigureHttpClient(c => c.BaseAddress = new Uri("http://stock:8080/api"));
builder.Build().Run();
"""

OTHER_API = """using Refit;

namespace Shop.Other.Api;

public interface IOrphanApi
{
    [Get("/levels/{sku}")]
    Task<string> Level(string sku);
}
"""


def test_a_refit_registration_gives_no_address_to_another_services_interface_of_the_same_name(tmp_path):
    write_tree(tmp_path, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK,
        "front/front.csproj": WEB, "front/Api.cs": REFIT_API,
        "other/other.csproj": WEB, "other/Api.cs": OTHER_API, "other/Program.cs": OTHER_PROGRAM})
    clients = _clients(tmp_path)
    assert clients["Shop.Other.Api.IOrphanApi.Level"] == [
        ("GET stock /api/levels/{sku}", "cross_service", "http://stock:8080/api/levels/{sku}")]
    # front's own IOrphanApi is registered nowhere in front: a path, unresolved (not other's address)
    assert [match for _, match, _ in clients["Shop.Front.Api.IOrphanApi.All"]] == ["unresolved"]


OPTIONS_PROGRAM = """using Shop.Front;

var builder = WebApplication.CreateBuilder(args);
builder.Services.Configure<StockOptions>(builder.Configuration.GetSection("Services").GetSection("Stock"));
builder.Services.AddOptions<PriceOptions>().BindConfiguration("Prices");
builder.Services.Configure<TwiceOptions>(builder.Configuration.GetSection("A"));
builder.Services.Configure<TwiceOptions>(builder.Configuration.GetSection("B"));
builder.Build().Run();
"""

OPTIONS_CLIENTS = """namespace Shop.Front;

public class StockOptions { public string Host { get; set; } = ""; }
public class PriceOptions { public string Url { get; set; } = ""; }
public class TwiceOptions { public string Url { get; set; } = ""; }

public class Reader(IOptions<StockOptions> stock, IOptionsMonitor<PriceOptions> prices, IOptions<TwiceOptions> twice,
                    IConfiguration configuration, HttpClient http)
{
    private readonly PriceOptions _prices = prices.CurrentValue;

    public Task<string> Level() => http.GetStringAsync($"http://{stock.Value.Host}/api/levels/1");
    public Task<string> Prices() => http.GetStringAsync(_prices.Url + "/api/prices");
    public Task<string> Twice() => http.GetStringAsync(twice.Value.Url + "/api/prices");

    public Task<string> Got()
    {
        var bound = configuration.GetSection("Addresses").Get<ServiceAddresses>();
        return http.GetStringAsync($"http://{bound.Stock}/api/prices");
    }
}
"""


def test_options_bound_to_a_section_give_their_properties_as_settings(tmp_path):
    settings = {"Services": {"Stock": {"Host": "stock:8080"}}, "Prices": {"Url": "http://stock:8080"},
                "A": {"Url": "http://stock:8080"}, "B": {"Url": "http://other:1"}, "Addresses": {"Stock": "stock:8080"}}
    write_tree(tmp_path, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK,
        "front/front.csproj": WEB, "front/Program.cs": OPTIONS_PROGRAM, "front/Reader.cs": OPTIONS_CLIENTS,
        "front/appsettings.json": json.dumps(settings)})
    clients = _clients(tmp_path)
    assert clients["Shop.Front.Reader.Level"] == [("GET stock /api/levels/1", "cross_service",
                                                    "http://stock:8080/api/levels/1")]
    # a field set from IOptionsMonitor<T>.CurrentValue, declared T
    assert clients["Shop.Front.Reader.Prices"] == [("GET stock /api/prices", "cross_service",
                                                     "http://stock:8080/api/prices")]
    # Get<T>() of a section held in a local is that section
    assert clients["Shop.Front.Reader.Got"] == [("GET stock /api/prices", "cross_service",
                                                  "http://stock:8080/api/prices")]
    # a class bound to two sections is no one value
    assert [m for _, m, _ in clients["Shop.Front.Reader.Twice"]] == ["unresolved"]


def test_updates_equal_a_full_build_when_a_setting_or_a_binding_changes(tmp_path):
    from helpers.code_graph import edit, render

    write_tree(tmp_path, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK, "docker-compose.yml": COMPOSE,
        "front/front.csproj": WEB, "front/Levels.cs": CLIENTS, "front/Program.cs": OPTIONS_PROGRAM,
        "front/Reader.cs": OPTIONS_CLIENTS, "front/appsettings.json": json.dumps(SETTINGS, indent=2)})
    graph = CodeGraph.build(tmp_path)
    for path, old, new in (("front/appsettings.json", '"stock:8080"', '"other:8080"'),
                           ("front/Program.cs", 'GetSection("Stock")', 'GetSection("Elsewhere")'),
                           ("docker-compose.yml", "Services__Prices", "Services__Other")):
        edit(tmp_path, path, old, new)
        graph.update()
        assert render(graph) == render(CodeGraph.build(tmp_path)), path


def test_a_setting_of_several_values_whose_variable_the_deployment_gives_several_is_not_known(tmp_path):
    compose = COMPOSE.replace("      Services__Prices: http://stock-svc:8080\n",
                              "      Services__Stock: stock-svc:8080\n")
    override = "services:\n  front:\n    environment:\n      Services__Stock: stock:8080\n"
    write_tree(tmp_path, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK, "docker-compose.yml": compose,
        "docker-compose.override.yml": override,
        "front/front.csproj": WEB, "front/Levels.cs": CLIENTS,
        "front/appsettings.json": json.dumps(SETTINGS), "front/appsettings.Production.json": json.dumps(PRODUCTION)})
    level = _clients(tmp_path)["Shop.Front.Levels.Level"]
    assert [match for _, match, _ in level] == ["unresolved"]


OTHER_OPTIONS = """namespace Shop.Other;

public class StockOptions { public string Host { get; set; } = ""; }

public class Reader(IOptions<StockOptions> stock, HttpClient http)
{
    public Task<string> Level() => http.GetStringAsync($"http://{stock.Value.Host}/api/levels/1");
}
"""


def test_an_options_class_takes_no_section_from_another_services_class_of_that_name(tmp_path):
    """front binds its StockOptions to Services:Stock; other's own StockOptions is bound nowhere in other: its
    property is no setting of other's appsettings (another deployed service's binding is not this class's)."""
    settings = {"Services": {"Stock": {"Host": "stock:8080"}}}
    write_tree(tmp_path, {
        "stock/stock.csproj": WEB, "stock/Program.cs": STOCK,
        "front/front.csproj": WEB, "front/Program.cs": OPTIONS_PROGRAM, "front/Reader.cs": OPTIONS_CLIENTS,
        "front/appsettings.json": json.dumps(settings),
        "other/other.csproj": WEB, "other/Reader.cs": OTHER_OPTIONS, "other/appsettings.json": json.dumps(settings)})
    clients = _clients(tmp_path)
    assert [m for _, m, _ in clients["Shop.Front.Reader.Level"]] == ["cross_service"]
    assert [m for _, m, _ in clients["Shop.Other.Reader.Level"]] == ["unresolved"]

