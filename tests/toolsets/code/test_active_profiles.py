"""Routes that only a Spring profile the deployment does not run declares stay listed with their profile but are
never linked (`services.profiles`); with no evidence of the active profile, every profile's routes are linked, each
marked with its profile. One fixture per way the active profile is set."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.profiles import active_profiles
from graphlore.toolsets.code.services.settings import Values

ORDERS = 'from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.get("/orders/<order_id>")\ndef order(order_id):\n    return {}\n'
GATEWAY_APP = ("package shop;\n\nimport org.springframework.boot.autoconfigure.SpringBootApplication;\n\n"
               "@SpringBootApplication\npublic class GatewayApplication {\n}\n")
GATEWAY_POM = ("<project><modelVersion>4.0.0</modelVersion><groupId>shop</groupId><artifactId>gateway</artifactId>"
               "<version>1</version><dependencies><dependency><groupId>org.springframework.cloud</groupId>"
               "<artifactId>spring-cloud-starter-gateway</artifactId></dependency></dependencies></project>\n")


def _routes(path: str, uri: str) -> str:
    return (f"spring:\n  cloud:\n    gateway:\n      routes:\n        - id: one\n          uri: {uri}\n"
            f"          predicates:\n            - Path={path}\n")


def _tree(base: str = "server:\n  port: 8080\n", dockerfile: str = "FROM eclipse-temurin:21\n",
          gateway_unit: str = "    build: ./gateway\n") -> dict[str, str]:
    return {
        "orders/Dockerfile": "FROM python:3.12\n", "orders/requirements.txt": "flask\n", "orders/app.py": ORDERS,
        "gateway/Dockerfile": dockerfile, "gateway/pom.xml": GATEWAY_POM,
        "gateway/src/main/java/shop/GatewayApplication.java": GATEWAY_APP,
        "gateway/src/main/resources/application.yml": base,
        # the developer's route and the deployed one, both to the orders service
        "gateway/src/main/resources/application-dev.yml": _routes("/orders/**", "http://orders:8000"),
        "gateway/src/main/resources/application-prod.yml": _routes("/**", "http://orders:8000"),
        # an nginx in front of the gateway: its ``location /`` reaches the gateway's routes the deployment runs
        "edge/templates/default.conf.template": "server {\n  location / { proxy_pass http://gateway:8080; }\n}\n",
        "docker-compose.yml": "services:\n  edge:\n    image: nginx:1.27\n    volumes:\n"
                              "      - ./edge/templates:/etc/nginx/templates\n  gateway:\n" + gateway_unit
                              + "  orders:\n    build: ./orders\n"}


def _gateway_routes(tmp_path: Path, files: dict[str, str]):
    """The gateway's routes by label, and the labels of those linked: from them (to orders) and to them (from the
    nginx in front)."""
    write_tree(tmp_path, files)
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    routes = {n.props["label"]: n for n in nodes.values() if n.kind == "route" and n.props["microservice"] == "gateway"}
    linked = {label for label, node in routes.items()
              if any(e.src == node.id and e.type == "HTTP_CALLS" for e in edges.values())}
    reached = {label for label, node in routes.items()
               if any(e.dst == node.id and e.type == "HTTP_CALLS" for e in edges.values())}
    assert linked == reached or not reached, (linked, reached)
    return routes, linked | {f"<- {label}" for label in reached}


PROD_BY = {
    "compose environment list": {"gateway_unit": "    build: ./gateway\n    environment:\n"
                                                 "      - SPRING_PROFILES_ACTIVE=prod\n"},
    "compose environment map": {"gateway_unit": "    build: ./gateway\n    environment:\n"
                                                "      SPRING_PROFILES_ACTIVE: prod\n"},
    "JVM option in a variable": {"gateway_unit": "    build: ./gateway\n    environment:\n"
                                                  "      JAVA_OPTS: -Xmx512m -Dspring.profiles.active=prod\n"},
    "Dockerfile ENV": {"dockerfile": "FROM eclipse-temurin:21\nENV SPRING_PROFILES_ACTIVE=prod\n"},
    "ENTRYPOINT -D": {"dockerfile": 'FROM eclipse-temurin:21\n'
                                    'ENTRYPOINT ["java", "-Dspring.profiles.active=prod", "-jar", "/app.jar"]\n'},
    "CMD --": {"dockerfile": "FROM eclipse-temurin:21\nCMD java -jar /app.jar --spring.profiles.active=prod\n"},
    "compose command": {"gateway_unit": "    build: ./gateway\n"
                                        "    command: [\"--spring.profiles.active=prod\"]\n"},
    "compose entrypoint": {"gateway_unit": "    build: ./gateway\n    entrypoint: java -Dspring.profiles.active=prod "
                                           "-jar /app.jar\n"},
    "base settings": {"base": "spring:\n  profiles:\n    active: prod\n"},
    "a group": {"base": "spring:\n  profiles:\n    active: live\n    group:\n      live:\n        - prod\n"},
    "an include": {"base": "spring:\n  profiles:\n    active: metrics\n    include: prod\n"},
    "deployment over the base settings": {"base": "spring:\n  profiles:\n    active: dev\n",
                                          "gateway_unit": "    build: ./gateway\n    environment:\n"
                                                          "      - SPRING_PROFILES_ACTIVE=prod\n"},
}


@pytest.mark.parametrize("how", sorted(PROD_BY))
def test_a_route_of_a_profile_the_deployment_does_not_run_is_listed_not_linked(tmp_path: Path, how: str):
    routes, linked = _gateway_routes(tmp_path, _tree(**PROD_BY[how]))
    assert linked == {"ANY /**", "<- ANY /**"}
    local = routes["ANY /orders/**"]
    assert local.props["profile"] == "dev" and local.props["match"] == "unresolved"
    assert "declared by profile dev only" in local.props["match_detail"]
    assert "active: " in local.props["match_detail"] and "prod" in local.props["match_detail"]
    assert routes["ANY /**"].props["profile"] == "prod"


def test_a_kubernetes_container_env_names_the_profile(tmp_path: Path):
    files = _tree()
    files["docker-compose.yml"] = "services:\n  orders:\n    build: ./orders\n"
    files["k8s/gateway.yaml"] = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: gateway\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: gateway\n          image: shop/gateway\n          env:\n"
        "            - name: SPRING_PROFILES_ACTIVE\n              value: prod\n")
    files["skaffold.yaml"] = ("apiVersion: skaffold/v4beta6\nkind: Config\nbuild:\n  artifacts:\n"
                              "    - image: shop/gateway\n      context: gateway\nmanifests:\n  rawYaml:\n"
                              "    - k8s/gateway.yaml\n")
    routes, _ = _gateway_routes(tmp_path, files)
    assert routes["ANY /orders/**"].props.get("match") == "unresolved"
    assert "declared by profile dev only" in routes["ANY /orders/**"].props["match_detail"]


def test_a_kubernetes_container_args_name_the_profile(tmp_path: Path):
    files = _tree()
    files["docker-compose.yml"] = "services:\n  orders:\n    build: ./orders\n"
    files["k8s/gateway.yaml"] = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: gateway\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: gateway\n          image: shop/gateway\n"
        "          args: [\"--spring.profiles.active=prod\"]\n")
    files["skaffold.yaml"] = ("apiVersion: skaffold/v4beta6\nkind: Config\nbuild:\n  artifacts:\n"
                              "    - image: shop/gateway\n      context: gateway\nmanifests:\n  rawYaml:\n"
                              "    - k8s/gateway.yaml\n")
    routes, _ = _gateway_routes(tmp_path, files)
    assert "declared by profile dev only" in routes["ANY /orders/**"].props["match_detail"]
    assert routes["ANY /**"].props.get("match") != "unresolved" or "profile" not in routes["ANY /**"].props.get(
        "match_detail", "")


def test_without_evidence_every_profile_is_linked_each_marked(tmp_path: Path):
    routes, linked = _gateway_routes(tmp_path, _tree())
    assert {routes[label].props["profile"] for label in ("ANY /orders/**", "ANY /**")} == {"dev", "prod"}
    assert linked == {"ANY /**", "ANY /orders/**", "<- ANY /**", "<- ANY /orders/**"}
    assert "declared by profile" not in (routes["ANY /orders/**"].props.get("match_detail") or "")


def test_deployments_that_run_different_profiles_each_keep_theirs():
    """Two deployments, one running ``prod`` and one ``dev``: a route of either runs somewhere."""
    values = Values(env={"SPRING_PROFILES_ACTIVE": ["prod", "dev"]})
    active = active_profiles(values)
    assert active is not None and active.names == {"prod", "dev"}
    assert active_profiles(Values()) is None
    assert active_profiles(Values(env={"SPRING_PROFILES_ACTIVE": ["${PROFILE}"]})) is None


def test_a_profile_value_not_read_leaves_the_active_profiles_unknown():
    """A variable the deployment gives a value not known here (a shell variable: ``{?}``, a placeholder) overrides
    the base settings' ``spring.profiles.active`` with something unknown; a list that names some profiles and an
    unknown one, or an include or group member not known, may run any profile: unknown, never the known part."""
    base = {"spring.profiles.active": "prod"}
    assert active_profiles(Values(entries=dict(base), env={"SPRING_PROFILES_ACTIVE": ["{?}"]})) is None
    assert active_profiles(Values(env={"SPRING_PROFILES_ACTIVE": ["prod,{?}"]})) is None
    assert active_profiles(Values(entries={"spring.profiles.active": "${EXTRA},prod"})) is None
    assert active_profiles(Values(entries={**base, "spring.profiles.include": "${EXTRA}"})) is None
    assert active_profiles(Values(entries={**base, "spring.profiles.group.prod": "${EXTRA}"})) is None
    assert active_profiles(Values(env={"JAVA_OPTS": ["-Dspring.profiles.active=${P}"]}, entries=dict(base))) is None
    assert active_profiles(Values(entries=dict(base))).names == {"prod"}


def test_an_image_command_profile_is_kept_beside_the_deployment_variable(tmp_path: Path):
    """``-Dspring.profiles.active`` in the image's ``ENTRYPOINT`` outranks ``SPRING_PROFILES_ACTIVE`` in Spring, so a
    unit's variable never hides it: a route of either profile may run, and stays linked."""
    files = _tree(dockerfile='FROM eclipse-temurin:21\nENTRYPOINT ["java", "-Dspring.profiles.active=dev", '
                             '"-jar", "/app.jar"]\n',
                  gateway_unit="    build: ./gateway\n    environment:\n      - SPRING_PROFILES_ACTIVE=prod\n")
    routes, linked = _gateway_routes(tmp_path, files)
    assert "ANY /orders/**" in linked and "ANY /**" in linked


def test_the_base_route_list_an_active_profile_replaces_is_not_linked(tmp_path: Path):
    """Spring binds a list from one source: where the running profile writes its own route list, the base settings'
    list does not run (its route is listed, unresolved, saying which profile replaces it). Without evidence of the
    active profile, the base list's routes are linked as before."""
    base = "server:\n  port: 8080\n" + _routes("/orders/{segment}", "http://orders:8000")
    unit = "    build: ./gateway\n    environment:\n      - SPRING_PROFILES_ACTIVE=prod\n"
    routes, linked = _gateway_routes(tmp_path / "prod", _tree(base=base, gateway_unit=unit))
    legacy = routes["ANY /orders/{segment}"]
    assert "ANY /orders/{segment}" not in linked and legacy.props["match"] == "unresolved"
    assert "replaces" in legacy.props["match_detail"] and "prod" in legacy.props["match_detail"]
    assert "ANY /**" in linked
    _, unknown = _gateway_routes(tmp_path / "unknown", _tree(base=base))
    assert "ANY /orders/{segment}" in unknown


def test_a_running_profile_s_own_include_runs_too():
    """A profile file that includes others (``spring.profiles.include`` in ``application-prod.yml``, as Spring Boot
    before 2.4 reads it) runs them with it: their routes are not said to be of a profile that does not run."""
    values = Values(env={"SPRING_PROFILES_ACTIVE": ["prod"]})
    values.add_profile("prod", {"spring.profiles.include": "routes,metrics"}, "application-prod.yml")
    values.add_profile("routes", {"spring.profiles.include[0]": "edge"}, "application-routes.yml")
    active = active_profiles(values)
    assert active is not None and active.names == {"prod", "routes", "metrics", "edge"}
    values.add_profile("metrics", {"spring.profiles.include": "${MORE}"}, "application-metrics.yml")
    assert active_profiles(values) is None
