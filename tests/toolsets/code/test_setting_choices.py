"""Settings a profile file or the deployment gives another value are read once per value, never as one
string holding the choice (a gateway route taken for ``/**`` linked to every route of its target)."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.frameworks.gateway import yaml_routes
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.settings import Values


def _routes(base: dict[str, str], profile: dict[str, str]) -> list[tuple[str, str, str, int]]:
    values = Values()
    values.add(base, "application.yml")
    values.add_profile("docker", profile, "application-docker.yml")
    return sorted((framework, path, forward.target.text, forward.strip)
                  for framework, _, path, forward, _, _ in yaml_routes(values, ["orders", "billing"]))


def test_a_gateway_setting_a_profile_overrides_is_read_once_per_alternative():
    """A profile giving a predicate, filter or Zuul key another value makes one route per value; the route is
    never taken for a catch-all ``/**`` and no choice marker reaches a path or a target."""
    prefix = "spring.cloud.gateway.routes[0]"
    routes = _routes({f"{prefix}.uri": "lb://orders", f"{prefix}.predicates[0]": "Path=/orders/**",
                      f"{prefix}.filters[0]": "StripPrefix=1"},
                     {f"{prefix}.predicates[0]": "Path=/shop/orders/**", f"{prefix}.filters[0]": "StripPrefix=2"})
    assert {path for _, path, _, _ in routes} == {"/orders/**", "/shop/orders/**"}
    assert {strip for *_, strip in routes} == {1, 2}
    zuul = _routes({"zuul.routes.billing.path": "/billing/**", "zuul.routes.billing.serviceId": "billing",
                    "zuul.stripPrefix": "true"},
                   {"zuul.routes.billing.path": "/pay/**", "zuul.stripPrefix": "false"})
    assert {(path, target) for _, path, target, _ in zuul} == {("/billing/**", "billing"), ("/pay/**", "billing")}
    assert {strip for *_, strip in zuul} == {0, 1}
    assert not any("\x03" in path or "\x03" in target for _, path, target, _ in routes + zuul)


def test_a_discovery_locator_only_a_profile_enables_is_said_so():
    values = Values()
    values.add({"spring.cloud.gateway.discovery.locator.enabled": "false"}, "application.yml")
    values.add_profile("docker", {"spring.cloud.gateway.discovery.locator.enabled": "true"}, "application-docker.yml")
    routes = list(yaml_routes(values, ["orders"]))
    assert [(path, problem) for _, _, path, _, problem, _ in routes] == [
        ("/orders/**", "the discovery locator is enabled only under some profiles or deployments")]


def test_a_function_only_a_profile_defines_is_a_stream_binding(tmp_path: Path):
    module = tmp_path / "events"
    (module / "src/main/java/com/acme/events").mkdir(parents=True)
    (module / "src/main/resources").mkdir(parents=True)
    (module / "pom.xml").write_text("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>"
                                    "<artifactId>events</artifactId><version>1</version></project>\n")
    (module / "src/main/java/com/acme/events/Handlers.java").write_text(
        "package com.acme.events;\n\nimport java.util.function.Consumer;\n"
        "import org.springframework.context.annotation.Bean;\n\n"
        "public class Handlers {\n    @Bean\n    public Consumer<String> audit() {\n        return s -> {};\n    }\n}\n")
    (module / "src/main/resources/application.properties").write_text(
        "spring.application.name=events\nspring.cloud.function.definition=other\n")
    (module / "src/main/resources/application-docker.yml").write_text(
        "spring:\n  cloud:\n    function:\n      definition: audit;other\n")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    assert [n.props["label"] for n in nodes.values() if n.kind in ("route", "producer")] == ["stream audit-in-0"]
