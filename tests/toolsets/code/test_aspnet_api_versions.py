"""ASP.NET API Versioning by URL segment: a route parameter constrained ``apiVersion`` (``v{version:apiVersion}``,
``api/v{v:apiVersion}``) is served at each version the action maps to (``[MapToApiVersion]``), else its controller
declares (``[ApiVersion("1.0")]``, several: one route each), else the ``DefaultApiVersion`` its service's
``AddApiVersioning`` options set; ``1.0`` is the segment ``v1``. With no version known (``[ApiVersionNeutral]``,
nothing declared) the route keeps its parameter. A client calling ``/v1/...`` links to it."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'

CATALOG = """using Microsoft.AspNetCore.Mvc;

namespace Shop.Catalog.Controllers
{
    [ApiController]
    [Route("v{version:apiVersion}/[controller]")]
    [ApiVersion("1.0")]
    [ApiVersion("2.0")]
    public class ItemsController : ControllerBase
    {
        [HttpGet("{id}")]
        public IActionResult Get(int id) => Ok();

        [HttpGet("search")]
        [MapToApiVersion("2.0")]
        public IActionResult Search() => Ok();
    }

    [ApiController]
    [Route("api/v{v:apiVersion}/brands")]
    [ApiVersion("1.5")]
    public class BrandsController : ControllerBase
    {
        [HttpGet]
        public IActionResult List() => Ok();
    }

    [ApiController]
    [Route("v{version:apiVersion}/health")]
    [ApiVersionNeutral]
    public class HealthController : ControllerBase
    {
        [HttpGet]
        public IActionResult Get() => Ok();
    }
}
"""

# no [ApiVersion]: the service's default version
STOCK = """using Microsoft.AspNetCore.Mvc;

namespace Shop.Stock
{
    [ApiController]
    [Route("v{version:apiVersion}/stock")]
    public class StockController : ControllerBase
    {
        [HttpGet("{id}")]
        public IActionResult Get(int id) => Ok();
    }

    public class Startup
    {
        public void ConfigureServices(IServiceCollection services)
        {
            services.AddApiVersioning(options =>
            {
                options.ReportApiVersions = true;
                options.DefaultApiVersion = new ApiVersion(3, 0);
            });
        }
    }
}
"""

# no [ApiVersion] and no default: the version is not known
CARTS = """using Microsoft.AspNetCore.Mvc;

namespace Shop.Carts
{
    [ApiController]
    [Route("v{version:apiVersion}/carts")]
    public class CartsController : ControllerBase
    {
        [HttpGet]
        public IActionResult Get() => Ok();
    }
}
"""

CLIENT = '''import requests


def item(item_id):
    return requests.get(f"http://catalog/v1/items/{item_id}")


def stock(item_id):
    return requests.get(f"http://stock/v3/stock/{item_id}")
'''


def test_api_version_segments_are_the_versions_served(tmp_path: Path):
    tree = write_tree(tmp_path / "shop", {
        "catalog/catalog.csproj": WEB, "catalog/Controllers.cs": CATALOG,
        "stock/stock.csproj": WEB, "stock/Stock.cs": STOCK,
        "carts/carts.csproj": WEB, "carts/Carts.cs": CARTS,
        "web/Dockerfile": "FROM python:3.12\n", "web/requirements.txt": "requests\n", "web/app.py": CLIENT})
    nodes, edges = CodeGraph.build(tree).snapshot()
    routes = {(n.props["microservice"], n.props["label"]) for n in nodes.values() if n.kind == "route"}
    assert routes == {
        ("catalog", "GET /v1/Items/{id}"), ("catalog", "GET /v2/Items/{id}"), ("catalog", "GET /v2/Items/search"),
        ("catalog", "GET /api/v1.5/brands"), ("catalog", "GET /v{version}/health"),
        ("stock", "GET /v3/stock/{id}"), ("carts", "GET /v{version}/carts")}
    linked = {nodes[e.dst].props["label"] for e in edges.values() if e.type == "HTTP_CALLS"}
    assert {"GET /v1/Items/{id}", "GET /v3/stock/{id}"} <= linked
