"""A C# client's URL built by a method of the project (``Routes.Orders.Get(baseUri, version, id)`` where the helper is
``=> $"{baseUri}/{version}/orders/{id}"``, in a nested static class of another file, or a method of the calling class
with a ``return``) is folded at the call: the helper's returned value with its parameters bound to the call's
arguments; several returns are several values; a recursive helper, an overloaded one and a helper another deployed
service declares stay unknown."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.csharp.extract import extract

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'

ROUTES = """namespace Shop.Gateway.Infrastructure
{
    public static class Routes
    {
        public static class Orders
        {
            public static string Get(string baseUri, string version, int id) => $"{baseUri}/{version}/orders/{id}";
            public static string List(string baseUri, string version)
            {
                var items = new[] { 1 }.Select(i => { return "not/this"; });
                return $"{baseUri}/{version}/orders";
            }
        }

        public static string Deep(string baseUri) => Deep(baseUri + "/again");
        public static string Pick(string baseUri) => baseUri + "/one";
        public static string Pick(string baseUri, string other) => baseUri + "/two";
    }
}
"""

CONTROLLER = """using System.Net.Http;
using Shop.Gateway.Infrastructure;

namespace Shop.Gateway.Controllers
{
    public class OrdersController
    {
        private const string Version = "v2";
        private const string OrdersUrl = "http://orders";
        private readonly HttpClient _http;

        public async Task<string> One(int id) => await _http.GetStringAsync(Routes.Orders.Get(OrdersUrl, Version, id));

        public async Task<string> All()
        {
            var url = Routes.Orders.List(OrdersUrl, Version);
            return await _http.GetStringAsync(url);
        }

        public async Task<string> Mine(bool archived) => await _http.GetStringAsync(Own(archived));

        private string Own(bool archived)
        {
            if (archived)
            {
                return OrdersUrl + "/archive";
            }
            return OrdersUrl + "/current";
        }

        public async Task<string> Loop() => await _http.GetStringAsync(Routes.Deep(OrdersUrl));

        public async Task<string> Overloaded() => await _http.GetStringAsync(Routes.Pick(OrdersUrl));
    }
}
"""

# another deployed service declaring a helper of the same name: never the gateway's
OTHER = """namespace Shop.Other
{
    public static class Routes
    {
        public static class Orders
        {
            public static string Get(string baseUri, string version, int id) => "http://elsewhere/x";
        }
    }
}
"""


def test_the_returns_of_a_method_are_recorded_not_those_of_a_lambda_inside_it():
    facts = extract("Routes.cs", ROUTES.encode())
    returns = facts.extra["assigns"]
    assert returns["Routes.Orders.Get"]["return"] == [[7, ['$"{baseUri}/{version}/orders/{id}"']]]
    assert returns["Routes.Orders.List"]["return"] == [[11, ['$"{baseUri}/{version}/orders"']]]


def test_a_url_returned_by_a_helper_method_is_folded_at_each_call(tmp_path: Path):
    tree = write_tree(tmp_path / "shop", {
        "gateway/gateway.csproj": WEB, "gateway/Infrastructure/Routes.cs": ROUTES,
        "gateway/Controllers/OrdersController.cs": CONTROLLER,
        "other/other.csproj": WEB, "other/Routes.cs": OTHER})
    nodes, _ = CodeGraph.build(tree).snapshot()
    clients = {n.props["declaring_fqn"].rsplit(".", 1)[-1]: n.props for n in nodes.values() if n.kind == "client"}
    assert clients["One"]["target_url"] == "http://orders/v2/orders/{id}"
    assert clients["All"]["target_url"] == "http://orders/v2/orders"
    assert clients["Mine"]["target_url"] == "{http://orders/archive|http://orders/current}"   # two returns
    # a helper calling itself is followed a few calls deep, then its result is unknown: never a guessed URL
    assert (clients["Loop"]["target_url"], clients["Loop"]["unresolved_reason"]) == ("{?}", "the result of Deep(...)")
    # two overloads share one name: which one runs is not read
    assert clients["Overloaded"]["unresolved_reason"] == "the result of Routes.Pick(...)"


BASE_CLIENT = """using System.Net.Http;

namespace Shop.Web
{
    public class ApiClient
    {
        protected readonly HttpClient _http;
        protected virtual string Root() => "http://catalog";
        public async Task<string> Fetch() => await _http.GetStringAsync(Root() + "/items");
        private string Fixed() => "http://catalog";
        public async Task<string> Sealed() => await _http.GetStringAsync(Fixed() + "/items");
    }
}
"""
SUB_CLIENT = """namespace Shop.Web
{
    public class OrdersClient : ApiClient
    {
        protected override string Root() => "http://orders";
    }
}
"""


def test_a_virtual_helper_a_subclass_overrides_stays_unknown(tmp_path: Path):
    """``Root()`` called in a base class runs the subclass's override on its objects: the base's value would be a
    guess for every subclass (a method nothing overrides is folded as before)."""
    tree = write_tree(tmp_path / "shop", {
        "web/web.csproj": WEB, "web/ApiClient.cs": BASE_CLIENT, "web/OrdersClient.cs": SUB_CLIENT})
    nodes, _ = CodeGraph.build(tree).snapshot()
    clients = {n.props["declaring_fqn"].rsplit(".", 1)[-1]: n.props for n in nodes.values() if n.kind == "client"}
    assert (clients["Fetch"]["target_url"], clients["Fetch"]["unresolved_reason"]) == (
        "{?}/items", "the result of Root(...)")
    assert clients["Sealed"]["target_url"] == "http://catalog/items"


SHADOWED = """using System;
using System.Net.Http;

namespace Shop.Web
{
    public class Client
    {
        private readonly HttpClient _http;
        private static string Build(string path) => "http://catalog/" + path;

        public async Task<string> Local()
        {
            string Build(string path) => "http://orders/" + path;
            return await _http.GetStringAsync(Build("items"));
        }

        public async Task<string> Delegate()
        {
            Func<string, string> Build = p => "http://orders/" + p;
            return await _http.GetStringAsync(Build("items"));
        }

        public async Task<string> Plain() => await _http.GetStringAsync(Build("items"));
    }
}
"""


def test_a_local_function_or_delegate_of_the_helpers_name_hides_it(tmp_path: Path):
    """``Build(..)`` inside a method declaring a local function or a delegate variable ``Build`` calls that one, not
    the class's method (whose URL would be a guess there); elsewhere in the class the method is folded."""
    tree = write_tree(tmp_path / "shop", {"web/web.csproj": WEB, "web/Client.cs": SHADOWED})
    nodes, _ = CodeGraph.build(tree).snapshot()
    clients = {n.props["declaring_fqn"].rsplit(".", 1)[-1]: n.props for n in nodes.values() if n.kind == "client"}
    assert clients["Local"]["target_url"] == clients["Delegate"]["target_url"] == "{?}"
    assert clients["Plain"]["target_url"] == "http://catalog/items"
