"""A gateway route's target read from an environment variable is linked by the value the deployment gives it,
the same value its ``forward`` shows."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.code_graph import FIXTURES, edit

from graphlore.toolsets.code.frameworks.gateway import yaml_routes
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.settings import Values


def test_a_forward_target_settled_by_the_deployment_is_the_one_linked(tmp_path: Path):
    root = tmp_path / "cloud"
    shutil.copytree(FIXTURES / "cloud-system", root)
    edit(root, "gateway/src/main/java/com/acme/gateway/Routes.java", '.uri("lb://shipping")',
         '.uri(System.getenv("SHIPPING_URI"))')
    edit(root, "docker-compose.yml", '    build: ./gateway\n',
         '    build: ./gateway\n    environment:\n      SHIPPING_URI: lb://shipping\n')
    nodes, edges = CodeGraph.build(root).snapshot()
    [ship] = [n for n in nodes.values() if n.kind == "route" and n.props["label"] == "ANY /ship/**"]
    assert ship.props["forward"]["target"] == "lb://shipping"
    assert (ship.props.get("target_service"), ship.props["match"]) == ("shipping", "cross_service")
    assert any(e.src == ship.id and e.type == "HTTP_CALLS" for e in edges.values())


def test_a_java_dsl_target_read_through_a_configuration_properties_parameter(tmp_path: Path):
    """``.uri(destinations.getShippingUrl())``, where the route method's parameter is a ``@ConfigurationProperties``
    bean whose field the settings give, is folded as a WebClient's would be: the route forwards to that service."""
    root = tmp_path / "cloud"
    shutil.copytree(FIXTURES / "cloud-system", root)
    edit(root, "gateway/src/main/java/com/acme/gateway/Routes.java",
         "shippingRoutes(RouteLocatorBuilder builder)", "shippingRoutes(RouteLocatorBuilder builder, Destinations to)")
    edit(root, "gateway/src/main/java/com/acme/gateway/Routes.java", '.uri("lb://shipping")',
         ".uri(to.getShippingUrl())")
    (root / "gateway/src/main/java/com/acme/gateway/Destinations.java").write_text(
        "package com.acme.gateway;\n\nimport org.springframework.boot.context.properties.ConfigurationProperties;\n\n"
        "@ConfigurationProperties(\"destinations\")\npublic class Destinations {\n"
        "    private String shippingUrl;\n\n    public String getShippingUrl() { return shippingUrl; }\n}\n")
    edit(root, "gateway/src/main/resources/application.yml", "spring:\n", "destinations:\n  shipping-url: lb://shipping\n"
         "spring:\n")
    nodes, edges = CodeGraph.build(root).snapshot()
    [ship] = [n for n in nodes.values() if n.kind == "route" and n.props["label"] == "ANY /ship/**"]
    assert ship.props["forward"]["target"] == "lb://shipping"
    assert (ship.props.get("target_service"), ship.props["match"]) == ("shipping", "cross_service")


def test_a_route_shows_its_predicates_and_filters_as_written(tmp_path: Path):
    """"How is /api/orders/x routed": the route's ``forward`` lists its predicates and filters as the settings write
    them (the shortcut form as is, the long form ``name``/``args`` as ``Name(arg=value)``), the gateway's
    ``default-filters`` after its own, marked so."""
    root = tmp_path / "cloud"
    shutil.copytree(FIXTURES / "cloud-system", root)
    settings = "gateway/src/main/resources/application.yml"
    edit(root, settings, "    gateway:\n      routes:\n",
         "    gateway:\n      default-filters:\n        - name: Retry\n          args:\n            retries: 1\n"
         "      routes:\n")
    edit(root, settings, "            - Path=/stock/**,/levels/**\n",
         "            - Path=/stock/**,/levels/**\n          filters:\n            - name: AddRequestHeader\n"
         "              args:\n                name: X-From\n                value: edge\n")
    nodes, _ = CodeGraph.build(root).snapshot()
    routes = {n.props["label"]: n.props["forward"] for n in nodes.values() if n.kind == "route"
              and n.props.get("framework") == "spring_cloud_gateway"}
    orders = routes["ANY /api/orders/**"]
    assert orders["predicates"] == ["Path=/api/orders/**"]
    assert orders["filters"] == ["StripPrefix=1", "Retry(retries=1) (default-filters)"]
    assert routes["ANY /levels/**"]["filters"] == ["AddRequestHeader(name=X-From, value=edge)",
                                                   "Retry(retries=1) (default-filters)"]
    assert routes["ANY /pay/**"]["filters"][0] == "RewritePath=/pay/(?<segment>.*), /charges/${segment}"


def test_a_default_filter_strips_every_routes_path():
    """``default-filters: [StripPrefix=2]`` is listed on the route's ``forward`` and applies to its path too (the
    route listed it while forwarding its path whole)."""
    gateway = "spring.cloud.gateway"
    values = Values(entries={f"{gateway}.routes[0].id": "c", f"{gateway}.routes[0].uri": "lb://customers",
                             f"{gateway}.routes[0].predicates[0]": "Path=/api/customer/**",
                             f"{gateway}.default-filters[0]": "StripPrefix=2"})
    [(_, _, path, forward, problem, _)] = list(yaml_routes(values, []))
    assert (path, forward.strip, forward.filters, problem) == (
        "/api/customer/**", 2, ("StripPrefix=2 (default-filters)",), None)


def test_a_long_form_filter_rewrites_the_path_as_its_shortcut_does():
    """``name: StripPrefix`` with ``args: {parts: 2}`` (and ``RewritePath``'s ``regexp``/``replacement``) is the
    same filter as ``StripPrefix=2``: it was listed on the route's ``forward`` while its path was forwarded whole."""
    gateway = "spring.cloud.gateway.routes"
    values = Values(entries={f"{gateway}[0].id": "c", f"{gateway}[0].uri": "lb://customers",
                             f"{gateway}[0].predicates[0]": "Path=/api/customer/**",
                             f"{gateway}[0].filters[0].name": "StripPrefix", f"{gateway}[0].filters[0].args.parts": "2",
                             f"{gateway}[1].id": "p", f"{gateway}[1].uri": "lb://payments",
                             f"{gateway}[1].predicates[0]": "Path=/pay/**",
                             f"{gateway}[1].filters[0].name": "RewritePath",
                             f"{gateway}[1].filters[0].args.replacement": "/charges/${segment}",
                             f"{gateway}[1].filters[0].args.regexp": "/pay/(?<segment>.*)"})
    routes = {path: (forward.strip, forward.rewrite, problem) for _, _, path, forward, problem, _ in
              yaml_routes(values, [])}
    assert routes == {"/api/customer/**": (2, None, None), "/pay/**": (0, ("/pay", "/charges"), None)}


def test_each_profile_lists_its_own_routes_never_mixed_item_by_item():
    """Spring replaces a list a profile writes as a whole: the second route of ``application-dev.yml`` and of
    ``application-prod.yml`` are two routes (each its own path and uri), never one path with the other's uri."""
    routes = "spring.cloud.gateway.server.webflux.routes"
    values = Values()
    values.add_profile("dev", {f"{routes}[0].id": "local", f"{routes}[0].uri": "http://localhost:9000",
                               f"{routes}[0].predicates[0]": "Path=/api/local/**",
                               f"{routes}[1].id": "api", f"{routes}[1].uri": "http://dev-proxy",
                               f"{routes}[1].predicates[0]": "Path=/api/**"}, "application-dev.yml",
                       {f"{routes}[1].id": 7})
    values.add_profile("prod", {f"{routes}[0].id": "api", f"{routes}[0].uri": "http://proxy",
                                f"{routes}[0].predicates[0]": "Path=/api/**",
                                f"{routes}[0].filters[0].name": "StripPrefix",
                                f"{routes}[0].filters[0].args.parts": "1",
                                f"{routes}[1].id": "web", f"{routes}[1].uri": "http://web:3000",
                                f"{routes}[1].predicates[0]": "Path=/**"}, "application-prod.yml")
    found = sorted((path, forward.target.text, forward.strip, at) for _, _, path, forward, _, at in
                   yaml_routes(values, []))
    assert found == [("/**", "http://web:3000", 0, None), ("/api/**", "http://dev-proxy", 0, ("application-dev.yml", 7)),
                     ("/api/**", "http://proxy", 1, None), ("/api/local/**", "http://localhost:9000", 0, None)]
