"""Razor files read as the C# class they compile to: ``@inject`` fields, ``@code``/``@functions`` members at their
own lines, ``@using`` of the file and of every ``_Imports.razor``/``_ViewImports.cshtml`` above it in its project,
and the namespace Razor gives a component (``@namespace``, an import file's ``@namespace`` plus the folders below,
the project's ``RootNamespace`` plus its folders)."""

from __future__ import annotations

from helpers.code_graph import edit, render
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.csharp.razor import block_end, to_csharp

WEB_CSPROJ = ('<Project Sdk="Microsoft.NET.Sdk.Web"><PropertyGroup><RootNamespace>Shop.Web</RootNamespace>'
              '</PropertyGroup></Project>')

CATALOG_CLIENT = """namespace Shop.Web.Services;

public class CatalogClient(HttpClient http)
{
    public Task<string> GetItem(int id) => http.GetStringAsync($"api/items/{id}");
}
"""

PROGRAM = """using Shop.Web.Services;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddHttpClient<CatalogClient>(c => c.BaseAddress = new("http://catalog"));
builder.Build().Run();
"""

ITEM_PAGE = """@page "/item/{id:int}"
@inject CatalogClient Catalog
@inject NavigationManager Nav

@if (item is not null)
{
    <p>@item { not C# } "quoted</p>
    <button @onclick="() => Nav.NavigateTo(\\"/\\")">back</button>
}

@code {
    private string? item;

    [Parameter]
    public int Id { get; set; }

    protected override async Task OnInitializedAsync()
    {
        var brace = "}";   // a brace in a string: not the block's end
        item = await Catalog.GetItem(Id);
    }
}
"""

ORDERS_VIEW = """@using Shop.Web.Services
@inject HttpClient Http
@model object

<h1>Orders</h1>

@functions {
    public async Task<string> LoadAsync() => await Http.GetStringAsync("http://catalog/api/orders");
}
"""

CATALOG = """var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/api/items/{id}", (int id) => "item");
app.MapGet("/api/orders", () => "orders");
app.Run();
"""


def _tree(tmp_path, imports: str = "@using Shop.Web.Services\n"):
    return write_tree(tmp_path, {
        "catalog/catalog.csproj": '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>', "catalog/Program.cs": CATALOG,
        "web/Web.csproj": WEB_CSPROJ, "web/Program.cs": PROGRAM, "web/Services/CatalogClient.cs": CATALOG_CLIENT,
        "web/Components/_Imports.razor": imports,
        "web/Components/Pages/Item/ItemPage.razor": ITEM_PAGE,
        "web/Components/Pages/Item/Named.razor": "@namespace Shop.Elsewhere\n@code { void Run() { } }\n",
        "web/Views/Orders/Index.cshtml": ORDERS_VIEW})


def _calls(graph: CodeGraph) -> set[tuple[str, str]]:
    nodes, edges = graph.snapshot()
    return {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"]) for e in edges.values() if e.type == "CALLS"}


def test_a_component_calls_its_injected_service_and_a_views_functions_are_clients(tmp_path):
    graph = CodeGraph.build(_tree(tmp_path))
    nodes, _ = graph.snapshot()
    fqns = {n.props["fqn"]: n.props for n in nodes.values() if n.kind == "symbol"}
    # the namespace: the project's root namespace and the folders below it; a written @namespace wins
    assert "Shop.Web.Components.Pages.Item.ItemPage.OnInitializedAsync" in fqns
    assert "Shop.Elsewhere.Named.Run" in fqns and "Shop.Web.Views.Orders.Index.LoadAsync" in fqns
    page = fqns["Shop.Web.Components.Pages.Item.ItemPage.OnInitializedAsync"]
    assert (page["file"], page["line_start"]) == ("web/Components/Pages/Item/ItemPage.razor", 17)
    # the @inject field typed through the _Imports.razor @using, resolved to the typed client's method
    assert ("Shop.Web.Components.Pages.Item.ItemPage.OnInitializedAsync", "Shop.Web.Services.CatalogClient.GetItem") \
        in _calls(graph)
    clients = {n.props["declaring_fqn"]: n.props for n in nodes.values() if n.kind == "client"}
    view = clients["Shop.Web.Views.Orders.Index.LoadAsync"]
    assert (view["label"], view["match"], view["line"]) == ("GET catalog /api/orders", "cross_service", 8)


def test_an_import_files_change_moves_its_components_and_updates_equal_a_full_build(tmp_path):
    graph = CodeGraph.build(_tree(tmp_path))
    edit(tmp_path, "web/Components/_Imports.razor", "@using Shop.Web.Services",
         "@using Shop.Nothing\n@namespace Shop.Ui")
    graph.update()
    calls = _calls(graph)
    assert not any(src.endswith("OnInitializedAsync") for src, _ in calls)
    nodes, _ = graph.snapshot()
    assert "Shop.Ui.Pages.Item.ItemPage.OnInitializedAsync" in {n.props["fqn"] for n in nodes.values()
                                                               if n.kind == "symbol"}
    assert render(graph) == render(CodeGraph.build(tmp_path))


def test_the_csharp_text_keeps_the_razor_files_lines():
    code, namespace = to_csharp("Pages/ItemPage.razor", ITEM_PAGE)
    assert namespace == "" and len(code.split("\n")) == len(ITEM_PAGE.split("\n"))
    lines = code.split("\n")
    assert lines[0].lstrip().startswith("public partial class ItemPage : ComponentBase {")
    assert lines[1].strip() == "private CatalogClient Catalog;"
    assert lines[19].strip() == "item = await Catalog.GetItem(Id);"
    assert "not C#" not in code and lines[-2].strip() == "" and lines[-1].strip() == "}"   # the class closes
    text = 'x { var s = @"a""}"; var c = \'}\'; /* } */ // }\n }'
    assert block_end(text, 3) == len(text) - 1
