""".NET Aspire AppHost resources that are not .NET projects (a Python, Node or container app run from a folder of
the project) name the service in that folder, so service discovery addresses (``http://name``) link to it; and
FastAPI routers imported through folders without ``__init__.py`` (namespace packages) keep their mount prefix."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import backend

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.python.constants import namespace_names
from graphlore.toolsets.code.query import models, tools

CSPROJ = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'

FORMS = {
    # each: the AppHost call, the folder it runs from (relative to the project root), the name it gives
    "python": ('builder.AddPythonApp("score-svc", "../scorer", "main.py");', "scorer", "score-svc"),
    "uvicorn": ('builder.AddUvicornApp("rank-svc", Path.Combine("..", "ranker"), "main:app");', "ranker", "rank-svc"),
    "npm": ('builder.AddNpmApp("front", "../web/storefront").WithHttpEndpoint(env: "PORT");',
            "web/storefront", "front"),
    "node": ('builder.AddNodeApp("feed-svc", "../feed/server.js");', "feed", "feed-svc"),
    "executable": ('builder.AddExecutable("mail", "python", Path.Combine(builder.AppHostDirectory, "..", "mailer"));',
                   "mailer", "mail"),
    "dockerfile": ('builder.AddDockerfile("tile-server", @"..\\tiles");', "tiles", "tile-server"),
    "project path": ('builder.AddProject("billing-api", "../Billing/Billing.csproj");', "Billing", "billing-api"),
    "own helper": ('builder.AddServedPython("label-svc", "../labeler", port: 8111);', "labeler", "label-svc"),
}

APP_FILES = {"scorer": ("requirements.txt", "fastapi\n"), "ranker": ("requirements.txt", "fastapi\n"),
             "web/storefront": ("package.json", '{"name": "shop-front"}'), "feed": ("package.json", '{"name": "feed"}'),
             "mailer": ("requirements.txt", "flask\n"), "tiles": ("Dockerfile", "FROM nginx\n"),
             "Billing": ("Billing.csproj", CSPROJ), "labeler": ("requirements.txt", "fastapi\n")}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _services(root: Path) -> dict[str, dict]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.name: n.props for n in nodes.values() if n.kind == "microservice"}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_an_apphost_resource_run_from_a_folder_names_the_service_there(tmp_path, form):
    call, folder, name = FORMS[form]
    build, text = APP_FILES[folder]
    _write(tmp_path, {"AppHost/AppHost.csproj": CSPROJ,
                      "AppHost/Program.cs": "var builder = DistributedApplication.CreateBuilder(args);\n"
                                            f"{call}\nbuilder.Build().Run();\n",
                      f"{folder}/{build}": text, f"{folder}/main.py": "x = 1\n", f"{folder}/app.js": "let x = 1;\n"})
    services = _services(tmp_path)
    owner = next(s for s in services.values() if s["root"] == folder)
    assert name in owner["aliases"]
    assert "AppHost/Program.cs:2" in owner["aliases"][name]


def test_an_image_a_command_or_a_builder_it_does_not_make_names_nothing(tmp_path):
    _write(tmp_path, {"AppHost/AppHost.csproj": CSPROJ,
                      "AppHost/Program.cs": "var builder = DistributedApplication.CreateBuilder(args);\n"
                                            'builder.AddContainer("cache", "redis");\n'          # an image
                                            'builder.AddExecutable("py", "python", "../outside/../..");\n'
                                            'builder.AddConnectionString("db", "Server=x");\n'
                                            "builder.Build().Run();\n",
                      "AppHost/Tools.cs": 'class T { void M(Other b) { b.AddPythonApp("fake", "../redis", "m.py"); } }',
                      "redis/requirements.txt": "fastapi\n", "redis/main.py": "x = 1\n"})
    services = _services(tmp_path)
    assert set(services["redis"]["aliases"]) == {"redis"}
    assert set(services["AppHost"]["aliases"]) == {"AppHost"}


APPHOST = """var builder = DistributedApplication.CreateBuilder(args);
var scorer = builder.AddPythonApp("scorer", "../scorer", "main.py");
builder.AddProject<Projects.Shop>("shop").WithReference(scorer);
builder.Build().Run();
"""
SHOP = """var builder = WebApplication.CreateBuilder(args);
builder.Services.AddHttpClient<ScoreClient>(c => c.BaseAddress = new Uri("http://scorer"));
builder.Build().Run();

public class ScoreClient(HttpClient http)
{
    public Task<HttpResponseMessage> Score(string text) => http.PostAsJsonAsync("/v1/score", text);
    public Task<string> Health() => http.GetStringAsync("/health");
}
"""
MAIN = """from fastapi import FastAPI
from routers import scoring
from routers.health import router as health_router

app = FastAPI()
app.include_router(scoring.router, prefix="/v1")
app.include_router(health_router)
"""
SCORING = """from fastapi import APIRouter

router = APIRouter()


@router.post("/score")
def score(text: str) -> float:
    return 0.5
"""
HEALTH = """from fastapi import APIRouter

router = APIRouter()


@router.get("/health")
def health() -> str:
    return "ok"
"""


def test_a_dotnet_client_links_to_a_python_resource_whose_routers_live_in_a_namespace_package(tmp_path):
    _write(tmp_path, {"AppHost/AppHost.csproj": CSPROJ, "AppHost/Program.cs": APPHOST,
                      "Shop/Shop.csproj": CSPROJ, "Shop/Program.cs": SHOP,
                      "scorer/requirements.txt": "fastapi\n", "scorer/main.py": MAIN,
                      "scorer/routers/scoring.py": SCORING, "scorer/routers/health.py": HEALTH})
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    routes = {n.props["label"] for n in nodes.values() if n.kind == "route"}
    assert routes == {"POST /v1/score", "GET /health"}
    label = {i: n.props["label"] for i, n in nodes.items() if n.kind in ("route", "client")}
    links = {(label[e.src], label[e.dst], e.props["match"]) for e in edges.values()
             if e.type == "HTTP_CALLS" and e.src in label and e.dst in label}
    assert links == {("POST scorer /v1/score", "POST /v1/score", "cross_service"),
                     ("GET scorer /health", "GET /health", "cross_service")}


def test_namespace_names_are_the_longer_path_suffixes_that_one_file_answers():
    names = namespace_names({"svc/routers/users.py": "users", "svc/routers/items.py": "items",
                             "other/routers/items.py": "items", "pkg/__init__.py": "pkg", "pkg/mod.py": "pkg.mod"})
    assert names["routers.users"] == "users" and names["svc.routers.users"] == "users"
    assert "routers.items" not in names          # two files answer it: neither
    assert names["svc.routers.items"] == "items"
    assert "pkg.mod" not in names                # a module's own name is no alias


LIBRARY = """namespace Acme.Shared;

public class CatalogClient(HttpClient http)
{
    public Task<string> Manual(string file) => http.GetStringAsync($"/manual?file={file}");
    public Task<string> Search(string text) => http.GetStringAsync($"/search?q={text}");
    public Task<string> Item(int id) => http.GetStringAsync($"/items/{id}");
}
"""
CATALOG = """var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/manual", (string file) => file);
app.MapGet("/search", (string q) => q);
app.MapGet("/items/{id}", (int id) => id);
app.Run();
"""
#: the three ways a minimal-API program's top-level code holds the library's client: a typed lambda parameter
#: (dependency injection into the handler), a local the service locator gives, and the locator's result called
WEB_UI = """using Acme.Shared;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddHttpClient<CatalogClient>(c => c.BaseAddress = new Uri("http://catalog"));
var app = builder.Build();
app.MapGet("/manual", async (string file, CatalogClient catalog) => await catalog.Manual(file));
app.MapGet("/find", async (HttpContext context) =>
{
    var catalog = context.RequestServices.GetRequiredService<CatalogClient>();
    return await catalog.Search("x");
});
app.MapGet("/item", (IServiceProvider services) => services.GetRequiredService<CatalogClient>().Item(1));
app.Run();
"""
#: a console tool's top-level statements: a local function sees (captures) the statements' locals
TOOL = """using Acme.Shared;

var catalog = await Connect.Catalog();
await Ask("x");

async Task<string> Ask(string text) => await catalog.Search(text);

public static class Connect
{
    public static async Task<CatalogClient> Catalog() =>
        new CatalogClient(new HttpClient { BaseAddress = new Uri("http://catalog") });
}
"""


def test_a_library_client_used_from_top_level_statements_is_drawn_from_the_program_that_runs_it(tmp_path, embedder):

    _write(tmp_path, {"AppHost/AppHost.csproj": CSPROJ,
                      "AppHost/Program.cs": "var builder = DistributedApplication.CreateBuilder(args);\n"
                                            'var catalog = builder.AddProject<Projects.Catalog>("catalog");\n'
                                            'builder.AddProject<Projects.WebUi>("webui").WithReference(catalog);\n',
                      "Catalog/Catalog.csproj": CSPROJ, "Catalog/Program.cs": CATALOG,
                      "Shared/Shared.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>',
                      "Shared/CatalogClient.cs": LIBRARY,
                      "WebUi/WebUi.csproj": CSPROJ, "WebUi/Program.cs": WEB_UI,
                      "Tool/Tool.csproj": '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><OutputType>Exe'
                                          '</OutputType></PropertyGroup></Project>', "Tool/Program.cs": TOOL})
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    name = {i: n.name for i, n in nodes.items()}
    calls = {(nodes[e.src].props.get("file"), name[e.dst], e.props.get("resolution")) for e in edges.values()
             if e.type == "CALLS" and name[e.dst] in ("Manual", "Search", "Item")}
    assert calls == {("WebUi/Program.cs", "Manual", "receiver_type"), ("WebUi/Program.cs", "Search", "receiver_type"),
                     ("WebUi/Program.cs", "Item", "inferred_type"), ("Tool/Program.cs", "Search", "inferred_type")}
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        out = tools.service_map(runtime, parse_request(models.ServiceMapRequest, {"project_path": str(tmp_path)}))
    finally:
        runtime.close()
    drawn = {(a.source, a.target): sorted(a.labels) for a in out.links if a.match == "cross_service"}
    assert drawn[("WebUi", "Catalog")] == ["GET /items/{id}", "GET /manual", "GET /search"]
    assert ("Shared", "Catalog") not in drawn


def test_a_services_config_shows_the_resources_it_references_and_the_addresses_its_clients_register(tmp_path):
    _write(tmp_path, {"AppHost/AppHost.csproj": CSPROJ, "AppHost/Program.cs": APPHOST,
                      "Shop/Shop.csproj": CSPROJ, "Shop/Program.cs": SHOP,
                      "scorer/requirements.txt": "fastapi\n", "scorer/main.py": MAIN,
                      "scorer/routers/scoring.py": SCORING, "scorer/routers/health.py": HEALTH})
    config = _services(tmp_path)["Shop"]["config"]
    assert 'references scorer (= AddPythonApp("scorer", "../scorer", "main.py")) (AppHost) (AppHost/Program.cs:3)' \
        in config
    assert 'ScoreClient base address = "http://scorer" (AddHttpClient) (Shop/Program.cs:2)' in config
