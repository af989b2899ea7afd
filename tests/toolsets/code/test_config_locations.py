"""Routes and settings read from configuration carry the file and line they are written at: a Spring Cloud
Gateway route from YAML its list item's, a Java DSL route its ``route(...)`` call's (as nginx routes carry
their ``location``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.code_graph import FIXTURES, edit

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.settings import read_settings_at


def test_gateway_routes_are_at_their_own_lines():
    nodes, _ = CodeGraph.build(FIXTURES / "cloud-system").snapshot()
    where = {n.props["label"]: (n.props["file"], n.props["line"]) for n in nodes.values()
             if n.kind == "route" and n.props["microservice"] == "edge"}
    settings = "gateway/src/main/resources/application.yml"
    assert where["ANY /api/orders/**"] == (settings, 7)
    assert where["ANY /stock/**"] == where["ANY /levels/**"] == (settings, 13)
    assert where["ANY /pay/**"] == (settings, 17)
    assert where["ANY /ship/**"] == ("gateway/src/main/java/com/acme/gateway/Routes.java", 13)


def test_settings_lines_follow_yaml_nesting_and_properties(tmp_path: Path):
    yml = tmp_path / "application.yml"
    yml.write_text("server:\n  port: 8081\n---\nspring:\n  config:\n    activate:\n      on-profile: docker\n"
                   "server:\n  port: 9999\n---\nzuul:\n  routes:\n    - path: /a/**\n      url: http://a\n")
    values, lines = read_settings_at(yml)
    assert values["server.port"] == "8081" and lines["server.port"] == 2
    assert lines["zuul.routes[0]"] == 13 and lines["zuul.routes[0].url"] == 14
    props = tmp_path / "application.properties"
    props.write_text("# a comment\n\nserver.port=8082\nspring.config.import=optional:configserver:\n")
    values, lines = read_settings_at(props)
    assert (values["server.port"], lines["server.port"]) == ("8082", 3)
    assert lines["spring.config.import"] == 4


def _chain(tmp_path: Path, routes: str) -> dict[str, tuple[int, str | None, str | None]]:
    root = tmp_path / "cloud"
    shutil.copytree(FIXTURES / "cloud-system", root)
    edit(root, "gateway/src/main/java/com/acme/gateway/Routes.java",
         '''            .route("ship", r -> r.path("/ship/**")
                .filters(f -> f.stripPrefix(1))
                .uri("lb://shipping"))
''', routes)
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.props["label"]: (n.props["line"], n.props["forward"]["target"], n.props.get("target_service"))
            for n in nodes.values() if n.kind == "route" and n.props["file"].endswith("Routes.java")}


def test_each_route_of_one_dsl_chain_is_read_apart(tmp_path: Path):
    """``builder.routes().route(a).route(b)`` is one expression whose ``route`` calls all start on its first
    line: each route keeps its own uri, filters and line (never the chain's first route's target)."""
    found = _chain(tmp_path, '''            .route("ship", r -> r.path("/ship/**")
                .filters(f -> f.stripPrefix(1))
                .uri("lb://shipping"))
            .route("stock", r -> r.path("/stock2/**")
                .uri("lb://inventory"))
            .route("orders", r -> r.path("/orders2/**")
                .filters(f -> f.stripPrefix(1))
                .uri("lb://orders-service"))
''')
    assert found == {"ANY /ship/**": (13, "lb://shipping", "shipping"),
                     "ANY /stock2/**": (16, "lb://inventory", "inventory-service"),
                     "ANY /orders2/**": (18, "lb://orders-service", "orders-service")}


def test_dsl_routes_written_on_one_line_are_not_paired_by_guess(tmp_path: Path):
    found = _chain(tmp_path, '''            .route("a", r -> r.path("/a/**").uri("lb://shipping")).route("b", r -> r.path("/b/**").uri("lb://inventory"))
''')
    assert {label: (target, service) for label, (_, target, service) in found.items()} == {
        "ANY /a/**": ("{?}", None), "ANY /b/**": ("{?}", None)}


def _config(root: Path) -> dict[str, list[str]]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.name: n.props.get("config", []) for n in nodes.values() if n.kind == "microservice"}


def test_a_service_shows_its_port_and_where_it_is_published():
    config = _config(FIXTURES / "cloud-system")
    assert config["payments"] == [
        "server.port: 8080 (payments/src/main/resources/application.yml:5)",
        "docker-compose service payments ports 8083:8080: published at host port 8083 (container port 8080) (docker-compose.yml:16)"]
    assert "Kubernetes Service orders-api port 8080 (k8s/orders.yaml:34)" in config["orders-service"]


def test_a_service_shows_where_it_finds_its_config_server_and_the_server_its_backend(tmp_path: Path):
    root = tmp_path / "cloud"
    shutil.copytree(FIXTURES / "cloud-system", root)
    edit(root, "shipping/src/main/resources/application.yml", "spring:\n",
         "spring:\n  config:\n    import: optional:configserver:${CONFIG_URL:http://payments:8080/}\n")
    (root / "shipping/src/main/resources/application.yml").write_text(
        (root / "shipping/src/main/resources/application.yml").read_text() +
        "---\nspring:\n  config:\n    activate:\n      on-profile: docker\n    import: configserver:http://config:8888\n")
    (root / "payments/src/main/resources/bootstrap.properties").write_text(
        "spring.cloud.config.server.git.uri=https://git.example.com/acme/config\n")
    config = _config(root)
    assert config["shipping"][:2] == [
        "spring.config.import: optional:configserver:${CONFIG_URL:http://payments:8080/} "
        "(shipping/src/main/resources/application.yml:3)",
        f"spring.config.import: configserver:http://config:8888 (shipping/src/main/resources/application.yml:"
        f"{(root / 'shipping/src/main/resources/application.yml').read_text().splitlines().index('    import: configserver:http://config:8888') + 1}, profile docker)"]
    assert config["payments"][0] == ("spring.cloud.config.server.git.uri: https://git.example.com/acme/config "
                                     "(payments/src/main/resources/bootstrap.properties:1)")
    # the server lists what each service's settings say about reaching it (``config`` names no service: none)
    assert config["payments"][-1] == (
        "configuration of shipping from here: spring.config.import: optional:configserver:${CONFIG_URL:"
        "http://payments:8080/} (shipping/src/main/resources/application.yml:3)")
    assert not any("configserver:http://config:8888" in line for lines in config.values() for line in lines
                   if line.startswith("configuration of"))
