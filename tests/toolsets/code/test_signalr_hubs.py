"""A SignalR hub mapped with ``MapHub<THub>(path)`` is a route ``ANY path`` (negotiate, WebSocket and long polling all
reach it there), handled by the hub class, under the group it is mapped on."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

PROGRAM = """using Microsoft.AspNetCore.SignalR;
using Alerts.Hubs;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddSignalR();
var app = builder.Build();
app.MapHub<AlertsHub>("/hubs/alerts");
var admin = app.MapGroup("/admin");
admin.MapHub<Missing>("/live", options => options.AllowStatefulReconnects = true);
app.Run();
"""

HUB = """namespace Alerts.Hubs;

public class AlertsHub : Hub
{
    public Task Join(string group) => Groups.AddToGroupAsync(Context.ConnectionId, group);
}
"""


def test_map_hub_is_a_route_of_the_hub(tmp_path: Path):
    write_tree(tmp_path, {"alerts/alerts.csproj": '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>',
                          "alerts/Program.cs": PROGRAM, "alerts/Hubs/AlertsHub.cs": HUB})
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    routes = {n.props["label"]: n.props for n in nodes.values() if n.kind == "route"}
    assert routes["ANY /hubs/alerts"]["handler_fqn"] == "Alerts.Hubs.AlertsHub"
    assert routes["ANY /hubs/alerts"]["file"] == "alerts/Hubs/AlertsHub.cs"
    # under its group; a hub class the module does not declare: the mapping's own symbol handles it
    assert routes["ANY /admin/live"]["file"] == "alerts/Program.cs"
