"""Routable Razor files: a Razor Page (``.cshtml`` with ``@page``) is served at its place under ``Pages`` by its
``@model``'s handler methods, a Blazor component at each ``@page "/template"``; a client of another service links
to a page's route like any other."""

from __future__ import annotations

from pathlib import Path

from helpers.code_graph import edit, render

from graphlore.toolsets.code.index.graph import CodeGraph

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'
PROGRAM = """var builder = WebApplication.CreateBuilder(args);
builder.Services.AddRazorPages();
var app = builder.Build();
app.MapRazorPages();
app.Run();
"""


def _model(namespace: str, name: str, *methods: str) -> str:
    body = "\n".join(f"    public async Task<IActionResult> {m}() {{ return Page(); }}" for m in methods)
    return f"namespace {namespace};\n\npublic class {name} : PageModel\n{{\n{body}\n}}\n"


FILES = {
    "Web/Web.csproj": WEB, "Web/Program.cs": PROGRAM,
    "Web/Pages/_ViewImports.cshtml": "@namespace Shop.Web.Pages\n@addTagHelper *, Microsoft.AspNetCore.Mvc.TagHelpers\n",
    # an Index page is its folder's path; handlers of every verb, named ones (?handler=Name) on the same path
    "Web/Pages/Index.cshtml": "@page\n@model IndexModel\n<h1>Shop</h1>\n",
    "Web/Pages/Index.cshtml.cs": _model("Shop.Web.Pages", "IndexModel", "OnGetAsync", "OnPostAddToCartAsync"),
    # the same simple name one namespace in: the page's own namespace's class is its model (C# looks inward first)
    "Web/Pages/Basket/Index.cshtml": '@page "{handler?}"\n@model IndexModel\n<h1>Basket</h1>\n',
    "Web/Pages/Basket/Index.cshtml.cs": _model("Shop.Web.Pages.Basket", "IndexModel", "OnGet", "OnPostUpdate"),
    # a relative template is appended to the page's path; a helper that is no handler serves nothing
    "Web/Pages/Orders/Edit.cshtml": '@page "{id:int}"\n@model Shop.Web.Pages.Orders.EditModel\n<form></form>\n',
    "Web/Pages/Orders/Edit.cshtml.cs": _model("Shop.Web.Pages.Orders", "EditModel", "OnGet", "OnPostDelete",
                                              "OnlyAHelper"),
    # an absolute template is the whole path; a model without handlers: the page serves GET itself
    "Web/Pages/About.cshtml": '@page "/about-us"\n@model AboutModel\n<p>About</p>\n',
    "Web/Pages/About.cshtml.cs": "namespace Shop.Web.Pages;\npublic class AboutModel : PageModel { }\n",
    # an area's pages are under the area's name; no model: the page serves GET
    "Web/Areas/Admin/Pages/Users/Index.cshtml": "@page\n<h1>Users</h1>\n",
    # a view (no @page) is no route
    "Web/Views/Home/Index.cshtml": "@model IndexModel\n<h1>Home</h1>\n",
    # Blazor: a component serves GET at each @page template
    "Blazor/Blazor.csproj": '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>',
    "Blazor/Program.cs": "var app = WebApplication.CreateBuilder(args).Build();\napp.MapRazorComponents<App>();\n",
    "Blazor/Components/Pages/Item.razor": '@page "/item/{itemId:int}"\n@page "/product/{itemId:int}"\n'
                                          "<h1>Item</h1>\n@code {\n    [Parameter] public int ItemId { get; set; }\n}\n",
    "Blazor/Components/Shared/Card.razor": "<div>card</div>\n",
    # a WebAssembly app's @page is navigation inside the browser, and pages of an app that maps no Razor Pages are
    # served by nothing: no route
    "Wasm/Wasm.csproj": '<Project Sdk="Microsoft.NET.Sdk.BlazorWebAssembly"></Project>',
    "Wasm/Program.cs": "var builder = WebAssemblyHostBuilder.CreateDefault(args);\nawait builder.Build().RunAsync();\n",
    "Wasm/Pages/Counter.razor": '@page "/counter"\n<h1>Counter</h1>\n',
    "Api/Api.csproj": WEB, "Api/Program.cs": "var app = WebApplication.CreateBuilder(args).Build();\napp.Run();\n",
    "Api/Pages/Status.cshtml": "@page\n<p>ok</p>\n",
    # another service posting to a page
    "Bot/Bot.csproj": WEB,
    "Bot/Poster.cs": """namespace Shop.Bot;

public class Poster
{
    private readonly HttpClient http = new HttpClient();

    public async Task Order() => await http.PostAsync("http://web/Orders/Edit/5", null);
}
""",
}


def _routes(nodes) -> set[tuple[str, str, str, str]]:
    return {(n.props["microservice"], n.props["label"], n.props["handler_fqn"], n.props["file"])
            for n in nodes.values() if n.kind == "route"}


def _build(root: Path) -> CodeGraph:
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return CodeGraph.build(root)


def test_razor_pages_are_routed_by_their_place_and_handled_by_their_models_handler_methods(tmp_path):
    nodes, edges = _build(tmp_path).snapshot()
    pages = "Web/Pages"
    assert _routes(nodes) == {
        ("Web", "GET /", "Shop.Web.Pages.IndexModel.OnGetAsync", f"{pages}/Index.cshtml.cs"),
        ("Web", "POST /", "Shop.Web.Pages.IndexModel.OnPostAddToCartAsync", f"{pages}/Index.cshtml.cs"),
        ("Web", "GET /Basket/{handler}", "Shop.Web.Pages.Basket.IndexModel.OnGet", f"{pages}/Basket/Index.cshtml.cs"),
        ("Web", "POST /Basket/{handler}", "Shop.Web.Pages.Basket.IndexModel.OnPostUpdate",
         f"{pages}/Basket/Index.cshtml.cs"),
        ("Web", "GET /Orders/Edit/{id}", "Shop.Web.Pages.Orders.EditModel.OnGet", f"{pages}/Orders/Edit.cshtml.cs"),
        ("Web", "POST /Orders/Edit/{id}", "Shop.Web.Pages.Orders.EditModel.OnPostDelete",
         f"{pages}/Orders/Edit.cshtml.cs"),
        ("Web", "GET /about-us", "Shop.Web.Pages.About", f"{pages}/About.cshtml"),
        ("Web", "GET /Admin/Users", "Web.Areas.Admin.Pages.Users.Index", "Web/Areas/Admin/Pages/Users/Index.cshtml"),
        ("Blazor", "GET /item/{itemId}", "Blazor.Components.Pages.Item", "Blazor/Components/Pages/Item.razor"),
        ("Blazor", "GET /product/{itemId}", "Blazor.Components.Pages.Item", "Blazor/Components/Pages/Item.razor"),
    }
    links = {(nodes[e.src].props["label"], nodes[e.dst].props["handler_fqn"], e.props.get("match"))
             for e in edges.values() if e.type == "HTTP_CALLS"}
    assert links == {("POST Web /Orders/Edit/5", "Shop.Web.Pages.Orders.EditModel.OnPostDelete", "cross_service")}


def test_a_pages_view_triggers_the_handler_methods_of_its_model_and_no_other(tmp_path):
    """A request to a Razor Page runs its model's handler methods though no call names them: the view (what a
    question names: "the checkout page") ``TRIGGERS`` each, so a trace from the page goes on into its handlers."""
    nodes, edges = _build(tmp_path).snapshot()
    triggers = {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"], e.props["kind"], e.props["route"])
                for e in edges.values() if e.type == "TRIGGERS"}
    # the inner namespace's IndexModel is the Basket page's model only; a model with no handlers, a page without
    # a model, a view without @page and a Blazor component trigger nothing
    assert triggers == {
        ("Shop.Web.Pages.Index", "Shop.Web.Pages.IndexModel.OnGetAsync", "razor_page", "GET /"),
        ("Shop.Web.Pages.Index", "Shop.Web.Pages.IndexModel.OnPostAddToCartAsync", "razor_page", "POST /"),
        ("Shop.Web.Pages.Basket.Index", "Shop.Web.Pages.Basket.IndexModel.OnGet", "razor_page",
         "GET /Basket/{handler}"),
        ("Shop.Web.Pages.Basket.Index", "Shop.Web.Pages.Basket.IndexModel.OnPostUpdate", "razor_page",
         "POST /Basket/{handler}"),
        ("Shop.Web.Pages.Orders.Edit", "Shop.Web.Pages.Orders.EditModel.OnGet", "razor_page", "GET /Orders/Edit/{id}"),
        ("Shop.Web.Pages.Orders.Edit", "Shop.Web.Pages.Orders.EditModel.OnPostDelete", "razor_page",
         "POST /Orders/Edit/{id}")}


def test_a_pages_directive_edit_moves_its_routes_and_updates_equal_a_full_build(tmp_path):
    graph = _build(tmp_path)
    edit(tmp_path, "Web/Pages/Orders/Edit.cshtml", '@page "{id:int}"', '@page "/orders/{id:int}/edit"')
    graph.update()
    labels = {n.props["label"] for n in graph.snapshot()[0].values() if n.kind == "route"}
    assert "GET /orders/{id}/edit" in labels and "GET /Orders/Edit/{id}" not in labels
    assert render(graph) == render(CodeGraph.build(tmp_path))


def test_a_page_whose_model_handles_only_post_still_answers_get(tmp_path):
    """ASP.NET renders a page whose model has no handler of the request's verb: a page with only ``OnPost`` (a
    logout form, a contact form) answers ``GET`` too, handled by the page."""
    files = {"Web/Web.csproj": WEB, "Web/Program.cs": PROGRAM,
             "Web/Pages/_ViewImports.cshtml": FILES["Web/Pages/_ViewImports.cshtml"],
             "Web/Pages/Logout.cshtml": "@page\n@model LogoutModel\n<form method=\"post\"></form>\n",
             "Web/Pages/Logout.cshtml.cs": _model("Shop.Web.Pages", "LogoutModel", "OnPostAsync")}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    assert _routes(nodes) == {
        ("Web", "POST /Logout", "Shop.Web.Pages.LogoutModel.OnPostAsync", "Web/Pages/Logout.cshtml.cs"),
        ("Web", "GET /Logout", "Shop.Web.Pages.Logout", "Web/Pages/Logout.cshtml")}


def test_a_qualified_model_name_is_looked_up_under_the_pages_enclosing_namespaces_only(tmp_path):
    """``@model Orders.EditModel`` in ``Shop.Web.Pages`` is ``Shop.Web.Pages.Orders.EditModel`` (C# looks the
    qualifier up from the innermost enclosing namespace outward), not ``Admin.Orders``'; ``Reports.ListModel`` is
    not ``Far.Away.Reports.ListModel`` (no enclosing namespace holds ``Reports``): that page has no known model."""
    files = {"Web/Web.csproj": WEB, "Web/Program.cs": PROGRAM,
             "Web/Pages/_ViewImports.cshtml": FILES["Web/Pages/_ViewImports.cshtml"],
             "Web/Pages/Edit.cshtml": "@page\n@model Orders.EditModel\n",
             "Web/Pages/Orders/EditModel.cs": _model("Shop.Web.Pages.Orders", "EditModel", "OnGet", "OnPostSave"),
             "Web/Admin/EditModel.cs": _model("Admin.Orders", "EditModel", "OnGet", "OnPostWipe"),
             "Web/Pages/List.cshtml": "@page\n@model Reports.ListModel\n",
             "Web/Other/ListModel.cs": _model("Far.Away.Reports", "ListModel", "OnGet", "OnPostDrop")}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    assert {(label, handler) for _, label, handler, _ in _routes(nodes)} == {
        ("GET /Edit", "Shop.Web.Pages.Orders.EditModel.OnGet"), ("POST /Edit", "Shop.Web.Pages.Orders.EditModel.OnPostSave"),
        ("GET /List", "Shop.Web.Pages.List")}


def test_a_global_qualified_model_is_looked_up_from_the_root_namespace(tmp_path):
    """``@model global::Orders.EditModel`` names ``Orders.EditModel`` itself, never one inside the page's
    namespaces (``Shop.Web.Pages.Orders.EditModel``), as C#'s ``global::`` alias says."""
    files = {"Web/Web.csproj": WEB, "Web/Program.cs": PROGRAM,
             "Web/Pages/_ViewImports.cshtml": FILES["Web/Pages/_ViewImports.cshtml"],
             "Web/Pages/Edit.cshtml": "@page\n@model global::Orders.EditModel\n",
             "Web/Pages/Orders/EditModel.cs": _model("Shop.Web.Pages.Orders", "EditModel", "OnGet", "OnPostSave"),
             "Web/Root/EditModel.cs": _model("Orders", "EditModel", "OnGet", "OnPostWipe")}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    assert {(label, handler) for _, label, handler, _ in _routes(nodes)} == {
        ("GET /Edit", "Orders.EditModel.OnGet"), ("POST /Edit", "Orders.EditModel.OnPostWipe")}
