"""C# usings a file does not write: another file's ``global using``, the project's ``<Using Include>`` items (in
its ``.csproj`` or the nearest ``Directory.Build.props``) and ``ImplicitUsings``' SDK namespaces apply to every
file of the project, never to another project's; a gRPC client typed through a ``using`` alias is the aliased
client."""

from __future__ import annotations

from pathlib import Path

from helpers.code_graph import edit, render
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.csharp.usings import project_usings

PROTO = """syntax = "proto3";
package stock.v1;
service Stock { rpc Reserve (ReserveRequest) returns (ReserveReply); }
message ReserveRequest { string id = 1; }
message ReserveReply { bool ok = 1; }
"""

SERVER = """namespace Shop.{name};

public class StockService : Stock.StockBase
{{
    public override Task<ReserveReply> Reserve(ReserveRequest request, ServerCallContext context) => null;
}}
"""


def _csproj(items: str = "", sdk: str = "Microsoft.NET.Sdk.Web") -> str:
    return f'<Project Sdk="{sdk}"><ItemGroup>{items}</ItemGroup></Project>'


def _routes(root: Path) -> set[tuple[str, str]]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {(n.props["microservice"], n.props["label"]) for n in nodes.values() if n.kind == "route"}


def test_a_grpc_import_shared_by_the_project_makes_its_files_servers(tmp_path):
    files = {"protos/stock.proto": PROTO}
    # another file's global using; a .csproj <Using> item; the nearest Directory.Build.props' item
    files |= {"global/Global.csproj": _csproj(), "global/GlobalUsings.cs": "global using Grpc.Core;\n",
              "global/StockService.cs": SERVER.format(name="Global")}
    files |= {"item/Item.csproj": _csproj('<Using Include="Grpc.Core" />'),
              "item/StockService.cs": SERVER.format(name="Item")}
    files |= {"props/Directory.Build.props": _csproj('<Using Include="Grpc.Core" />').replace(' Sdk="Microsoft.NET.Sdk.Web"', ""),
              "props/inner/Inner.csproj": _csproj(), "props/inner/StockService.cs": SERVER.format(name="Inner")}
    # removed again by the project; and a project that sees another project's global using only
    files |= {"removed/Directory.Build.props": _csproj('<Using Include="Grpc.Core" />'),
              "removed/app/App.csproj": _csproj('<Using Remove="Grpc.Core" />'),
              "removed/app/StockService.cs": SERVER.format(name="Removed"),
              "other/Other.csproj": _csproj(), "other/StockService.cs": SERVER.format(name="Other")}
    write_tree(tmp_path, files)
    served = {service for service, label in _routes(tmp_path) if label == "grpc stock.v1.Stock/Reserve"}
    assert served == {"Global", "Item", "Inner"}


def test_implicit_usings_follow_the_sdk_and_the_last_msbuild_file_that_sets_them(tmp_path):
    write_tree(tmp_path, {
        "Directory.Build.props": "<Project><PropertyGroup><ImplicitUsings>enable</ImplicitUsings></PropertyGroup>"
                                 "<ItemGroup><Using Include=\"Shop.Common\" /></ItemGroup></Project>",
        "web/Web.csproj": _csproj('<Using Include="Shop.Money" Alias="Money" />'
                                  '<Using Include="System.Math" Static="true" />'),
        "worker/Worker.csproj": _csproj(sdk="Microsoft.NET.Sdk.Worker"),
        "off/Off.csproj": '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><ImplicitUsings>disable</ImplicitUsings>'
                          '</PropertyGroup></Project>',
        "nothing/readme.txt": "no project here"})
    web = project_usings(tmp_path, "web")
    assert ("Microsoft.AspNetCore.Builder", "*", False) in web and ("System.Linq", "*", False) in web
    assert {("Shop.Common", "*", False), ("Shop.Money", "Money", False), ("System.Math", "*", True)} <= set(web)
    worker = {u[0] for u in project_usings(tmp_path, "worker")}
    assert "Microsoft.Extensions.Hosting" in worker and "Microsoft.AspNetCore.Builder" not in worker
    assert project_usings(tmp_path, "off") == (("Shop.Common", "*", False),)
    assert project_usings(tmp_path, "nothing") == ()


HELPER = """namespace Shop.Util;

public static class Clock
{
    public static int Now() => 1;
}
"""

CALLER = """namespace Shop.App;

public class Job
{
    public int Run() => Clock.Now();
}
"""


def _calls(graph: CodeGraph) -> set[tuple[str, str]]:
    nodes, edges = graph.snapshot()
    return {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"]) for e in edges.values() if e.type == "CALLS"}


def test_a_call_resolves_through_another_files_global_using_and_updates_equal_a_full_build(tmp_path):
    write_tree(tmp_path, {"App/App.csproj": _csproj(), "App/Util.cs": HELPER, "App/Job.cs": CALLER,
                          "App/GlobalUsings.cs": "global using Shop.Util;\n",
                          "Other/Other.csproj": _csproj(), "Other/Job.cs": CALLER.replace("Shop.App", "Shop.Other")})
    graph = CodeGraph.build(tmp_path)
    # the App project sees the global using; the Other project does not (a name there stays unresolved)
    assert ("Shop.App.Job.Run", "Shop.Util.Clock.Now") in _calls(graph)
    assert not any(src.startswith("Shop.Other") for src, _ in _calls(graph))
    edit(tmp_path, "App/GlobalUsings.cs", "global using Shop.Util;", "global using Shop.Nothing;")
    graph.update()
    assert ("Shop.App.Job.Run", "Shop.Util.Clock.Now") not in _calls(graph)
    assert render(graph) == render(CodeGraph.build(tmp_path))
    edit(tmp_path, "App/GlobalUsings.cs", "global using Shop.Nothing;", "global using Shop.Util;")
    graph.update()
    assert ("Shop.App.Job.Run", "Shop.Util.Clock.Now") in _calls(graph)
    assert render(graph) == render(CodeGraph.build(tmp_path))


ALIASED_CLIENT = """using Grpc.Net.Client;
using StockClient = Shop.Stock.V1.Stock.StockClient;
{global_alias}
namespace Shop.Web;

public class Reserver(StockClient stock, GlobalStock other)
{{
    public Task Reserve(string id) => stock.ReserveAsync(new ReserveRequest {{ Id = id }}).ResponseAsync;
    public Task Again(string id) => other.ReserveAsync(new ReserveRequest {{ Id = id }}).ResponseAsync;
}}
"""


def test_a_grpc_client_typed_through_a_using_alias_is_the_aliased_client(tmp_path):
    write_tree(tmp_path, {
        "stock/stock.proto": PROTO.replace("package stock.v1;", "package shop.stock.v1;"),
        "stock/Stock.csproj": _csproj(), "stock/StockService.cs": "using Grpc.Core;\n" + SERVER.format(name="S"),
        "web/Web.csproj": _csproj(), "web/Reserver.cs": ALIASED_CLIENT.format(global_alias=""),
        "web/GlobalUsings.cs": "global using GlobalStock = Shop.Stock.V1.Stock.StockClient;\n"})
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    clients = {n.props["declaring_fqn"]: n.props for n in nodes.values() if n.kind == "client"}
    for method in ("Shop.Web.Reserver.Reserve", "Shop.Web.Reserver.Again"):
        assert (clients[method]["grpc"], clients[method]["match"]) == ("shop.stock.v1.Stock/Reserve", "cross_service")
