"""Reverse proxies declared in configuration (YARP's ``ReverseProxy``, Ocelot's ``Routes``, Envoy's static
``route_config``) are routes of the service that runs them, forwarding to the target service's routes a
request they match can reach: prefixes replaced as configured, a method route reaching that method only, a
target that is no project service (or a path transform not read) said and never guessed."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.code_graph import edit, render

from graphlore.toolsets.code.frameworks.proxies import (
    envoy_routes,
    ocelot_routes,
    traefik_routes,
    yarp_routes,
)
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.folding import plain

ORDERS = '''from flask import Flask

app = Flask(__name__)


@app.get("/orders/<order_id>")
def order(order_id):
    return {}


@app.post("/orders")
def create():
    return {}


@app.get("/health")
def health():
    return "ok"
'''
PROGRAM = ("var builder = WebApplication.CreateBuilder(args);\nvar app = builder.Build();\n"
           "app.MapReverseProxy();\napp.Run();\n")
CSPROJ = '<Project Sdk="Microsoft.NET.Sdk.Web"><PropertyGroup><TargetFramework>net8.0</TargetFramework>' \
         '</PropertyGroup></Project>\n'
YARP = {"Logging": {"LogLevel": {"Default": "Information"}}, "ReverseProxy": {
    "Routes": {
        "orders": {"ClusterId": "orders", "Match": {"Path": "/api/orders/{**rest}"},
                   "Transforms": [{"PathPattern": "/orders/{**rest}"}, {"RequestHeader": "X-Gw", "Set": "1"}]},
        "health": {"ClusterId": "orders", "Match": {"Path": "/orders-health", "Methods": ["GET"]},
                   "Transforms": [{"PathSet": "/health"}]},
        "create": {"ClusterId": "orders", "Match": {"Path": "/new/{**rest}", "Methods": ["POST"]},
                   "Transforms": [{"PathRemovePrefix": "/new"}]},
        "stock": {"ClusterId": "stock", "Match": {"Path": "/api/stock/{**rest}"}}},
    "Clusters": {
        "orders": {"Destinations": {"d1": {"Address": "http://orders:8000/"}}},
        "stock": {"Destinations": {"d1": {"Address": "http://stock:8000"}}}}}}
OCELOT = {"Routes": [
    {"UpstreamPathTemplate": "/o/{everything}", "DownstreamPathTemplate": "/orders/{everything}",
     "DownstreamScheme": "http", "DownstreamHostAndPorts": [{"Host": "orders", "Port": 8000}],
     "UpstreamHttpMethod": ["Get"]},
    {"UpstreamPathTemplate": "/status", "DownstreamPathTemplate": "/health",
     "DownstreamHostAndPorts": [{"Host": "orders", "Port": 8000}]},
    {"UpstreamPathTemplate": "/both/{all}", "DownstreamPathTemplate": "/{all}",
     "DownstreamHostAndPorts": [{"Host": "orders", "Port": 8000}, {"Host": "billing", "Port": 8000}]}],
    "GlobalConfiguration": {"BaseUrl": "http://localhost:5000"}}
ENVOY = """static_resources:
  listeners:
  - name: edge
    address: {socket_address: {address: 0.0.0.0, port_value: 10000}}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          route_config:
            virtual_hosts:
            - name: all
              domains: ["*"]
              routes:
              - match: {prefix: "/shop/"}
                route: {cluster: orders_cluster, prefix_rewrite: "/"}
              - match: {path: "/ping"}
                route: {cluster: orders_cluster, prefix_rewrite: "/health"}
              - match: {safe_regex: {regex: "^/x/.*"}}
                route: {cluster: orders_cluster}
  clusters:
  - name: orders_cluster
    type: STRICT_DNS
    load_assignment:
      cluster_name: orders_cluster
      endpoints:
      - lb_endpoints:
        - endpoint:
            address:
              socket_address: {address: orders, port_value: 8000}
"""


TRAEFIK = """http:
  routers:
    orders:
      rule: "Host(`shop.local`) && PathPrefix(`/api/orders`)"
      service: orders
      middlewares: [strip, auth@docker]
    plain:
      rule: "PathPrefix(`/shop`)"
      service: orders
      middlewares: [strip-shop, add-v1]
    either:
      rule: "Path(`/a`) || Path(`/b`)"
      service: orders
  middlewares:
    strip-shop:
      stripPrefix:
        prefixes: ["/shop"]
    add-v1:
      addPrefix:
        prefix: "/orders"
    strip:
      stripPrefix:
        prefixes: ["/api"]
  services:
    orders:
      loadBalancer:
        servers:
          - url: "http://orders:8000/"
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _system(root: Path) -> Path:
    return _write(root, {
        "orders/Dockerfile": "FROM python:3.12\n", "orders/requirements.txt": "flask\n", "orders/app.py": ORDERS,
        "gw/gw.csproj": CSPROJ, "gw/Program.cs": PROGRAM, "gw/appsettings.json": json.dumps(YARP, indent=2),
        "gw/appsettings.Development.json": '{"Logging": {}}',
        "ocelot/ocelot.csproj": CSPROJ, "ocelot/Program.cs": PROGRAM, "ocelot/ocelot.json": json.dumps(OCELOT, indent=2),
        "edge/package.json": '{"name": "edge", "version": "1.0.0"}', "edge/Dockerfile": "FROM node:20\n",
        "edge/index.js": "export const up = true;\n", "edge/envoy.yaml": ENVOY, "edge/conf/dynamic.yml": TRAEFIK})


def _proxy_routes(root: Path) -> tuple[dict[tuple[str, str], dict], set[tuple[str, str, str]]]:
    nodes, edges = CodeGraph.build(root).snapshot()
    routes = {(n.props["framework"], n.props["label"]): n.props for n in nodes.values()
              if n.kind == "route" and n.props["framework"] in ("yarp", "ocelot", "envoy", "traefik")}
    links = {(nodes[e.src].props["framework"], nodes[e.src].props["label"], nodes[e.dst].props["label"])
             for e in edges.values() if e.type == "HTTP_CALLS" and nodes[e.src].props.get("framework") in
             ("yarp", "ocelot", "envoy", "traefik")}
    return routes, links


def test_yarp_ocelot_and_envoy_routes_forward_to_the_target_services_routes(tmp_path: Path):
    routes, links = _proxy_routes(_system(tmp_path / "shop"))
    assert links == {
        # /api/orders/x reaches /orders/x; /api/orders itself reaches /orders
        ("yarp", "ANY /api/orders/**", "GET /orders/{order_id}"), ("yarp", "ANY /api/orders/**", "POST /orders"),
        # a POST route reaches POST routes only: /new/orders -> /orders
        ("yarp", "POST /new/**", "POST /orders"),
        # Ocelot's trailing placeholder is every path under the prefix; a GET route reaches GET routes
        ("ocelot", "GET /o/**", "GET /orders/{order_id}"),
        ("ocelot", "ANY /status", "GET /health"),
        # Envoy: the matched prefix replaced by prefix_rewrite
        ("envoy", "ANY /shop/**", "GET /orders/{order_id}"), ("envoy", "ANY /shop/**", "POST /orders"),
        ("envoy", "ANY /shop/**", "GET /health"), ("envoy", "ANY /ping", "GET /health"),
        # Traefik: /shop stripped, /orders added: /shop/{id} reaches /orders/{id}, /shop itself /orders
        ("traefik", "ANY /shop/**", "GET /orders/{order_id}"), ("traefik", "ANY /shop/**", "POST /orders")}
    # a middleware of another provider (auth@docker) may change the path: not read; an || rule neither
    assert "auth@docker" in routes[("traefik", "ANY /api/orders/**")]["unresolved_reason"]
    assert "||" in routes[("traefik", "ANY /**")]["unresolved_reason"]
    orders = routes[("yarp", "ANY /api/orders/**")]
    assert (orders["microservice"], orders["file"], orders["source_layer"], orders["target_service"]) == (
        "gw", "gw/appsettings.json", "config", "orders")
    assert orders["forward"]["rewrite"] == ["/api/orders", "/orders"]
    # what is not read or names no project service is said, never guessed
    health = routes[("yarp", "GET /orders-health")]
    assert health["match"] == "unresolved" and "PathSet" in health["unresolved_reason"]
    assert routes[("yarp", "ANY /api/stock/**")]["match"] == "unresolved"
    assert routes[("ocelot", "ANY /both/**")]["match"] == "unresolved"   # two hosts: a choice, no link
    assert ("envoy", "ANY /x/**") not in routes   # a regular expression match is not read
    assert routes[("ocelot", "ANY /status")]["line"] == json.dumps(OCELOT, indent=2).splitlines().index(
        '      "UpstreamPathTemplate": "/status",') + 1


def test_readers_of_one_file_each():
    yarp = {pattern: (method, forward) for _, method, pattern, forward, _, _ in
            yarp_routes("appsettings.json", json.dumps(YARP))}
    assert plain(yarp["/api/stock/**"][1].target.text) == "http://stock:8000" and yarp["/api/stock/**"][1].rewrite is None
    assert yarp["/new/**"][0] == "POST" and yarp["/new/**"][1].rewrite == ("/new", "/")
    base = {"ReverseProxy": {"Routes": {"r": {"ClusterId": "c", "Match": {"Path": "/{**all}"}}},
                             "Clusters": {"c": {"Destinations": {"a": {"Address": "http://orders:8000/v2/"}}}}}}
    [(_, _, pattern, forward, problem, _)] = yarp_routes("appsettings.json", json.dumps(base))
    assert (pattern, forward.rewrite, problem) == ("/**", ("/", "/v2"), None)   # the address's path prefixes
    hosts_only = {"ReverseProxy": {"Routes": {"r": {"ClusterId": "c", "Match": {"Hosts": ["shop.local"]}}},
                                   "Clusters": {"c": {"Destinations": {"a": {"Address": "http://orders:8000"}}}}}}
    [(_, method, pattern, forward, problem, _)] = yarp_routes("appsettings.json", json.dumps(hosts_only))
    assert (method, pattern, plain(forward.target.text), problem) == ("ANY", "/**", "http://orders:8000", None)
    assert list(yarp_routes("appsettings.json", '{"Logging": {}}')) == []
    assert list(yarp_routes("appsettings.json", "{not json")) == []
    legacy = {"ReRoutes": [{"UpstreamPathTemplate": "/a/{id}/items", "DownstreamPathTemplate": "/items/{id}",
                            "ServiceName": "orders", "UpstreamHttpMethod": ["Get", "Post"]}]}
    found = [(method, pattern, plain(forward.target.text), forward.rewrite)
             for _, method, pattern, forward, _, _ in ocelot_routes("ocelot.json", json.dumps(legacy))]
    assert found == [("GET", "/a/{id}/items", "orders", ("/a/{id}/items", "/items/{id}")),
                     ("POST", "/a/{id}/items", "orders", ("/a/{id}/items", "/items/{id}"))]
    envoy = [(pattern, plain(forward.target.text)) for _, _, pattern, forward, _, _ in
             envoy_routes("envoy.yaml", ENVOY)]
    assert envoy == [("/shop/**", "http://orders:8000"), ("/ping", "http://orders:8000")]


def test_an_edit_of_a_proxy_file_updates_as_a_full_build_does(tmp_path: Path):
    root = _system(tmp_path / "shop")
    graph = CodeGraph.build(root)
    edit(root, "ocelot/ocelot.json", '"/status"', '"/state"')
    edit(root, "edge/envoy.yaml", 'prefix_rewrite: "/health"', 'prefix_rewrite: "/orders"')
    graph.update()
    lines = render(graph)
    assert lines == render(CodeGraph.build(root))
    assert any("ANY /state" in line for line in lines) and not any("ANY /status" in line for line in lines)


def test_traefik_toml_and_a_host_only_rule():
    toml = ('[http.routers.all]\nrule = "Host(`x.local`)"\nservice = "svc"\n'
            '[[http.services.svc.loadBalancer.servers]]\nurl = "http://orders:8000"\n')
    [(_, method, pattern, forward, problem, flavor)] = traefik_routes("dynamic.toml", toml)
    assert (method, pattern, plain(forward.target.text), forward.rewrite, problem, flavor) == (
        "ANY", "/**", "http://orders:8000", None, None, "traefik")
    assert list(traefik_routes("traefik.yml", "entryPoints:\n  web:\n    address: ':80'\n")) == []   # static config


def test_traefik_path_middlewares_apply_in_order():
    def routes(order: str) -> list:
        text = ("http:\n  routers:\n    r:\n      rule: \"PathPrefix(`/api`)\"\n      service: s\n"
                f"      middlewares: [{order}]\n  middlewares:\n    add:\n      addPrefix:\n        prefix: /v1\n"
                "    strip:\n      stripPrefix:\n        prefixes: [/api]\n"
                "  services:\n    s:\n      loadBalancer:\n        servers:\n          - url: http://orders:80\n")
        return [(pattern, forward and forward.rewrite, problem) for _, _, pattern, forward, problem, _ in
                traefik_routes("dynamic.yml", text)]
    assert routes("strip, add") == [("/api/**", ("/api", "/v1"), None)]   # /api/x -> /x -> /v1/x
    # /api/x -> /v1/api/x, which /api no longer starts: the strip changes nothing (read as /api -> /v1 before)
    [(pattern, rewrite, problem)] = routes("add, strip")
    assert (pattern, rewrite) == ("/api/**", None) and "strip" in problem


ENVOY_TEMPLATE = ENVOY.replace("socket_address: {address: orders, port_value: 8000}",
                               "socket_address:\n                address: ${ORDERS_HOST}\n"
                               "                port_value: $ORDERS_PORT")


def test_an_envoy_templates_variables_are_settled_with_the_proxys_deployment_env(tmp_path: Path):
    """Envoy expands no variable itself: a ``${NAME}`` address in its configuration is filled by ``envsubst`` before
    it starts, from the environment the deployment gives the proxy's container."""
    compose = ("services:\n  edge:\n    build: ./edge\n    environment:\n      - ORDERS_HOST=orders\n"
               "      - ORDERS_PORT=8000\n  orders:\n    build: ./orders\n")
    files = {"orders/Dockerfile": "FROM python:3.12\n", "orders/requirements.txt": "flask\n", "orders/app.py": ORDERS,
             "edge/Dockerfile": "FROM envoyproxy/envoy:v1.30\nCOPY envoy.tmpl.yaml /tmpl/\n",
             "edge/envoy.tmpl.yaml": ENVOY_TEMPLATE}
    routes, links = _proxy_routes(_write(tmp_path / "set", {**files, "docker-compose.yml": compose}))
    shop = routes[("envoy", "ANY /shop/**")]
    assert (shop["target_service"], shop["match"], shop["forward"]["target"]) == (
        "orders", "cross_service", "http://orders:8000")
    assert ("envoy", "ANY /ping", "GET /health") in links
    # a variable no deployment file sets stays unknown: no link, never a guess
    routes, links = _proxy_routes(_write(tmp_path / "unset", files))
    assert routes[("envoy", "ANY /shop/**")]["match"] == "unresolved" and not links
