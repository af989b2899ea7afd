"""ASP.NET Core attribute routes keep the case their ``[controller]`` and ``[action]`` tokens are replaced with (the
class name without ``Controller``, the action's name: ``[ActionName]``, else the method's without ``Async``), as the
framework publishes them; since ASP.NET matches request paths without case, a client, a gateway location and a
``path_prefix`` filter written in another case still reach them."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import orders_service, run, write_tree

from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.graph import CodeGraph

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'

DRONES = """using Microsoft.AspNetCore.Mvc;

namespace Shop.Drones.Controllers;

[ApiController]
[Route("api/[controller]")]
public class DroneDeliveriesController : ControllerBase
{
    [HttpPut("{id}")]
    public IActionResult Put(string id) => Ok();

    [HttpGet("[action]")]
    public Task<IActionResult> GetUtilizationAsync() => null;

    [HttpPost("[action]/{id}")]
    [ActionName("Confirmations")]
    public IActionResult Confirm(string id) => Ok();
}

[Route("[controller]/[action]")]
public class HomeController : Controller
{
    public IActionResult Index() => View();

    [HttpGet]
    public IActionResult About() => View();
}
"""

WORKFLOW = '''import requests


def assign(delivery_id):
    return requests.put(f"http://drones/api/dronedeliveries/{delivery_id}")


def utilization():
    return requests.get("http://drones/api/DRONEDELIVERIES/getutilization")
'''

NGINX = """server {
    location /drones/ {
        proxy_pass http://drones/api/dronedeliveries/;
    }
}
"""


def _tree(root: Path) -> Path:
    return write_tree(root, {
        "drones/drones.csproj": WEB, "drones/Controllers/DroneDeliveriesController.cs": DRONES,
        "workflow/Dockerfile": "FROM python:3.12\n", "workflow/requirements.txt": "requests\n",
        "workflow/app.py": WORKFLOW,
        "web/Dockerfile": "FROM nginx:1.27\nCOPY nginx.conf /etc/nginx/conf.d/default.conf\n",
        "web/nginx.conf": NGINX})


def test_controller_and_action_tokens_keep_the_written_case(tmp_path: Path):
    nodes, _ = CodeGraph.build(_tree(tmp_path / "shop")).snapshot()
    routes = {n.props["label"] for n in nodes.values() if n.kind == "route" and n.props["framework"] == "aspnet"}
    assert routes == {"PUT /api/DroneDeliveries/{id}", "GET /api/DroneDeliveries/GetUtilization",
                      "POST /api/DroneDeliveries/Confirmations/{id}", "GET /Home/About"}


def test_clients_and_gateway_locations_in_another_case_link_to_them(tmp_path: Path):
    nodes, edges = CodeGraph.build(_tree(tmp_path / "shop")).snapshot()
    links = sorted((nodes[e.src].props["label"], nodes[e.dst].props["label"], e.props["match"])
                   for e in edges.values() if e.type == "HTTP_CALLS")
    assert links == [
        ("ANY /drones/**", "GET /api/DroneDeliveries/GetUtilization", "cross_service"),
        ("ANY /drones/**", "POST /api/DroneDeliveries/Confirmations/{id}", "cross_service"),
        ("ANY /drones/**", "PUT /api/DroneDeliveries/{id}", "cross_service"),
        ("GET drones /api/DRONEDELIVERIES/getutilization", "GET /api/DroneDeliveries/GetUtilization",
         "cross_service"),
        ("PUT drones /api/dronedeliveries/{delivery_id}", "PUT /api/DroneDeliveries/{id}", "cross_service")]


def test_a_path_prefix_in_lower_case_finds_the_routes(tmp_path: Path, runtime: Runtime):
    tree = _tree(tmp_path / "shop")
    for prefix in ("/api/dronedeliveries", "/api/DroneDeliveries"):
        found = run(runtime, tree, "find", kind="route", filter={"path_prefix": prefix})
        assert found.total == 3, (prefix, found)
    # the route as written or in lower case: another mixed case is not looked up
    assert run(runtime, tree, "find", kind="route", filter={"path_prefix": "/API/dronedeliveries"}).total == 0


NAMED = """using Microsoft.AspNetCore.Mvc;

namespace Shop.Admin.Controllers;

public static class Names
{
    public const string Confirm = "Confirmations";
}

[Area("Admin")]
[Route("[area]/[controller]/[action]")]
public class UsersController : Controller
{
    [HttpGet]
    public IActionResult List() => View();
}

[Route("[area]/[controller]")]
public class StrayController : Controller
{
    [HttpGet("[action]")]
    public IActionResult Index() => View();
}

[ApiController]
[Route("api/[controller]")]
public class OrdersController : ControllerBase
{
    [HttpPost("[action]")]
    [ActionName(Names.Confirm)]
    public IActionResult Confirm() => Ok();

    [HttpPost("[action]")]
    [ActionName(nameof(Names))]
    public IActionResult Other() => Ok();

    [HttpGet("[action]")]
    [Microsoft.AspNetCore.Mvc.ActionName("Full")]
    public IActionResult Qualified() => Ok();

    [HttpGet("[action]")]
    [ActionName(Settings.Name)]
    public IActionResult Unknown() => Ok();
}
"""


def test_action_names_from_constants_and_the_area_token(tmp_path: Path):
    """``[ActionName]`` as a constant, ``nameof(..)`` or a qualified attribute names the action (before: the method's
    name, a guess); ``[area]`` is the controller's ``[Area("x")]``, unknown without one (ASP.NET refuses the route);
    a name that is not a constant leaves the path unknown."""
    root = write_tree(tmp_path / "shop", {"admin/admin.csproj": WEB, "admin/Controllers/Controllers.cs": NAMED})
    nodes, _ = CodeGraph.build(root).snapshot()
    routes = {n.props["label"] for n in nodes.values() if n.kind == "route"}
    assert {"GET /Admin/Users/List", "POST /api/Orders/Confirmations", "POST /api/Orders/Names",
            "GET /api/Orders/Full"} <= routes, routes
    assert not any("[area]" in r or r.endswith(("/Confirm", "/Other", "/Qualified", "/Unknown")) for r in routes), routes


def test_a_route_with_an_unknown_part_may_fit_a_client_in_another_case(tmp_path: Path):
    """A client ``/admin/stray/index`` and the route ``/{?}/Stray/Index`` (no ``[Area]``): the unknown part could
    make it fit, without case as ASP.NET matches; so the client is unresolved, never ``no_route`` (before: the case
    kept the route out of the routes that may fit)."""
    root = write_tree(tmp_path / "shop", {
        "admin/admin.csproj": WEB, "admin/Controllers/Controllers.cs": NAMED,
        "workflow/Dockerfile": "FROM python:3.12\n", "workflow/requirements.txt": "requests\n",
        "workflow/app.py": 'import requests\n\n\ndef stray():\n    return requests.get("http://admin/x/stray/index")\n'})
    nodes, _ = CodeGraph.build(root).snapshot()
    [client] = [n.props for n in nodes.values() if n.kind == "client"]
    assert client["match"] == "unresolved" and "GET /{?}/Stray/Index" in client["match_detail"], client


def test_resolve_finds_the_route_by_its_path_in_lower_case(tmp_path: Path, runtime: Runtime):
    """As the ``path_prefix`` filter: ``/api/dronedeliveries/{id}`` names ``PUT /api/DroneDeliveries/{id}`` (ASP.NET
    serves it at that path; before, only the written case resolved)."""
    tree = _tree(tmp_path / "shop")
    for identifier in ("/api/dronedeliveries/{id}", "PUT /api/dronedeliveries/{x}"):
        found = run(runtime, tree, "resolve", identifier=identifier)
        assert found.node is not None and found.node.name == "PUT /api/DroneDeliveries/{id}", (identifier, found)


def test_frameworks_that_match_with_case_keep_it(tmp_path: Path):
    """The caseless matching is ASP.NET's alone: a client ``/Items/{i}`` and a gateway location rewriting to
    ``/Items/`` reach no route ``/items/{item_id}`` of Flask, which matches paths with case."""
    root = write_tree(tmp_path / "shop", {
        "items/Dockerfile": "FROM python:3.12\n", "items/requirements.txt": "flask\n",
        "items/app.py": 'from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.get("/items/<item_id>")\n'
                        'def item(item_id):\n    return {}\n',
        "workflow/Dockerfile": "FROM python:3.12\n", "workflow/requirements.txt": "requests\n",
        "workflow/app.py": 'import requests\n\n\ndef item(i):\n    return requests.get(f"http://items/Items/{i}")\n',
        "web/Dockerfile": "FROM nginx:1.27\nCOPY nginx.conf /etc/nginx/conf.d/default.conf\n",
        "web/nginx.conf": "server {\n    location /shop/ {\n        proxy_pass http://items/Items/;\n    }\n}\n"})
    nodes, edges = CodeGraph.build(root).snapshot()
    matches = {n.props["label"]: n.props["match"] for n in nodes.values() if n.kind in ("client", "route")
               and n.props.get("framework") != "flask"}
    assert matches == {"GET items /Items/{i}": "no_route", "ANY /shop/**": "no_route"}, matches
    assert not [e for e in edges.values() if e.type == "HTTP_CALLS" and nodes[e.dst].kind == "route"]


def test_a_yarp_route_matches_without_case_and_forwards_the_path_as_sent(tmp_path: Path):
    """YARP matches its routes with ASP.NET's routing, without case: ``/API/orders/{i}`` reaches the route
    ``/api/orders/**`` (before: ``no_route`` at the gateway), which forwards the rest as sent, so the Flask route
    ``/orders/{order_id}`` serves it and ``/API/Orders/{i}`` (Flask matches with case) reaches no route of orders."""
    settings = ('{"ReverseProxy": {"Routes": {"r1": {"ClusterId": "c1", "Match": {"Path": "/api/orders/{**rest}"}, '
                '"Transforms": [{"PathRemovePrefix": "/api"}]}, '
                '"r2": {"ClusterId": "c1", "Match": {"Path": "/Orders/{**rest}"}}}, '
                '"Clusters": {"c1": {"Destinations": {"d1": {"Address": "http://orders:8000/"}}}}}}')
    root = write_tree(tmp_path / "shop", {
        **orders_service(),
        "gateway/gateway.csproj": '<Project Sdk="Microsoft.NET.Sdk.Web"><ItemGroup><PackageReference '
                                  'Include="Yarp.ReverseProxy" Version="2.1.0" /></ItemGroup></Project>',
        "gateway/appsettings.json": settings,
        "gateway/Program.cs": "var app = WebApplication.CreateBuilder(args).Build();\napp.MapReverseProxy();\napp.Run();\n",
        "workflow/Dockerfile": "FROM python:3.12\n", "workflow/requirements.txt": "requests\n",
        "workflow/app.py": 'import requests\n\n\ndef a(i):\n    return requests.get(f"http://gateway/API/orders/{i}")\n\n\n'
                           'def b(i):\n    return requests.get(f"http://gateway/API/Orders/{i}")\n'})
    nodes, edges = CodeGraph.build(root).snapshot()
    clients = {n.props["label"]: (n.props["match"], n.props.get("through_match")) for n in nodes.values()
               if n.kind == "client"}
    assert clients == {"GET gateway /API/orders/{i}": ("cross_service", "cross_service"),
                       "GET gateway /API/Orders/{i}": ("cross_service", "no_route")}, clients
    # a request /orders/1 matches the gateway's /Orders/** and goes on as sent: the Flask route serves it
    forwards = sorted(nodes[e.dst].props["label"] for e in edges.values()
                      if e.type == "HTTP_CALLS" and nodes[e.src].props.get("label") == "ANY /Orders/**")
    assert forwards == ["GET /orders/{order_id}", "POST /orders"], forwards


def test_an_ocelot_route_matches_without_case_unless_it_says_so(tmp_path: Path):
    """Ocelot matches ``UpstreamPathTemplate`` without case unless the route sets ``RouteIsCaseSensitive``
    (``ReRouteIsCaseSensitive`` before version 16): ``/API/orders/{i}`` reaches ``/api/orders/{everything}`` (before:
    ``no_route``), ``/cs/{i}`` does not reach the case-sensitive ``/Cs/{everything}``."""
    ocelot = ('{"Routes": [{"UpstreamPathTemplate": "/api/orders/{everything}", "DownstreamPathTemplate": '
              '"/orders/{everything}", "DownstreamHostAndPorts": [{"Host": "orders", "Port": 8000}]}, '
              '{"UpstreamPathTemplate": "/Cs/{everything}", "DownstreamPathTemplate": "/orders/{everything}", '
              '"RouteIsCaseSensitive": true, "DownstreamHostAndPorts": [{"Host": "orders", "Port": 8000}]}]}')
    root = write_tree(tmp_path / "shop", {
        **orders_service(),
        "gateway/gateway.csproj": '<Project Sdk="Microsoft.NET.Sdk.Web"><ItemGroup><PackageReference '
                                  'Include="Ocelot" Version="23.0.0" /></ItemGroup></Project>',
        "gateway/ocelot.json": ocelot,
        "gateway/Program.cs": "var app = WebApplication.CreateBuilder(args).Build();\napp.UseOcelot().Wait();\napp.Run();\n",
        "workflow/Dockerfile": "FROM python:3.12\n", "workflow/requirements.txt": "requests\n",
        "workflow/app.py": 'import requests\n\n\ndef a(i):\n    return requests.get(f"http://gateway/API/orders/{i}")\n\n\n'
                           'def b(i):\n    return requests.get(f"http://gateway/cs/{i}")\n'})
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = {n.props["label"]: (n.props["match"], n.props.get("through_match")) for n in nodes.values()
               if n.kind == "client"}
    assert clients == {"GET gateway /API/orders/{i}": ("cross_service", "cross_service"),
                       "GET gateway /cs/{i}": ("no_route", None)}, clients
