"""What is a service of the system: a build without sources of its own (a Maven ``pom`` aggregator, a Gradle
root that only configures its members) is none, nor a Dockerfile in a CI, test or tooling folder that no
deployment file runs; a real service without a manifest still is. A link never ends at what is no service."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

POM = """<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>{name}</artifactId>
<version>1</version>{extra}</project>
"""
BOOT = "<build><plugins><plugin><artifactId>spring-boot-maven-plugin</artifactId></plugin></plugins></build>"


def _spring_app(name: str) -> dict[str, str]:
    return {f"{name}/pom.xml": POM.format(name=name, extra=BOOT),
            f"{name}/src/main/java/com/acme/{name}/App.java":
                f"package com.acme.{name};\n\n@org.springframework.boot.autoconfigure.SpringBootApplication\n"
                "public class App {}\n"}


def _services(root: Path) -> dict[str, bool]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.name: n.props["deployable"] for n in nodes.values() if n.kind == "microservice"}


def test_a_pom_aggregator_is_no_service_even_with_the_boot_plugin_in_a_profile(tmp_path: Path):
    profile = ("<packaging>pom</packaging><modules><module>orders</module><module>billing</module></modules>"
               f"<profiles><profile><id>docker</id>{BOOT}</profile></profiles>")
    root = write_tree(tmp_path / "shop", {"pom.xml": POM.format(name="shop", extra=profile),
                                      **_spring_app("orders"), **_spring_app("billing")})
    assert {name: deployable for name, deployable in _services(root).items() if deployable} == {
        "orders": True, "billing": True}


def test_a_gradle_root_without_sources_is_no_service(tmp_path: Path):
    gradle = "plugins {\n    id 'org.springframework.boot' version '3.2.0' apply false\n}\n"
    files = {"settings.gradle": "rootProject.name = 'shop'\ninclude 'orders', 'billing'\n", "build.gradle": gradle}
    for name in ("orders", "billing"):
        files[f"{name}/build.gradle"] = "plugins {\n    id 'org.springframework.boot'\n}\n"
        files[f"{name}/src/main/java/com/acme/{name}/App.java"] = f"package com.acme.{name};\npublic class App {{}}\n"
    services = _services(write_tree(tmp_path / "shop", files))
    assert services.get("shop") in (None, False)
    assert services["orders"] and services["billing"]


FLASK = "from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.route('/items')\ndef items():\n    return []\n"


def test_a_dockerfile_in_a_tooling_folder_is_a_service_only_when_a_deployment_runs_it(tmp_path: Path):
    root = write_tree(tmp_path / "sys", {
        ".github/workflows/ui-tests/Dockerfile": "FROM cypress/included:13\nCOPY . .\n",
        ".github/workflows/ui-tests/cypress/e2e/login.cy.js": "describe('login', () => { it('works', () => {}) })\n",
        "tools/seeder/Dockerfile": "FROM python:3.12\nCOPY . .\nCMD python seed.py\n",
        "tools/seeder/seed.py": "print('seed')\n",
        "e2e/Dockerfile": "FROM python:3.12\nCOPY . .\n",
        "e2e/check.py": "print('check')\n",
        "store/Dockerfile": "FROM python:3.12\nCOPY . .\n", "store/app.py": FLASK,
        # a real service no manifest names still counts
        "worker/Dockerfile": "FROM python:3.12\nCOPY . .\n", "worker/app.py": FLASK,
        "docker-compose.yml": "services:\n  store:\n    build: ./store\n  seeder:\n    build: ./tools/seeder\n",
    })
    deployable = {name for name, flag in _services(root).items() if flag}
    assert deployable == {"store", "worker", "seeder"}


CALLER = """import requests


def known():
    return requests.get('http://store:8000/items').json()


def missing():
    return requests.get('http://store:8000/nothing').json()


def proxied():
    return requests.get('http://proxy:8080/items').json()


def edged():
    return requests.get('http://edge:8080/items').json()
"""


COMPOSE_FROM_ROOT = ("services:\n"
                     "  store:\n    build:\n      context: ./\n      dockerfile: store/Dockerfile\n"
                     "  shop:\n    build:\n      context: .\n      dockerfile: ./shop/Dockerfile\n"
                     "  proxy:\n    build:\n      context: ./\n      dockerfile: deploy/proxy.Dockerfile\n")


def _compose_from_root(root: Path, files: dict[str, str], units: str = ""):
    """store and shop (which calls store and proxy), every Compose service built from ``./``, plus ``files``."""
    write_tree(root, {
        "store/Dockerfile": "FROM python:3.12\nCOPY store .\n", "store/app.py": FLASK,
        "shop/Dockerfile": "FROM python:3.12\nCOPY shop .\n", "shop/app.py": FLASK.replace("/items", "/shop"),
        "shop/calls.py": CALLER, "deploy/proxy.Dockerfile": "FROM envoyproxy/envoy:v1.30\n",
        "docker-compose.yml": COMPOSE_FROM_ROOT + units, **files})
    nodes, edges = CodeGraph.build(root).snapshot()
    clients = {n.props["declaring_fqn"].rsplit(".", 1)[-1]: n for n in nodes.values() if n.kind == "client"}
    return nodes, edges, clients


def test_compose_building_every_service_from_the_root_links_to_real_services_only(tmp_path: Path):
    """Every Compose service builds from context ``./`` with its own ``dockerfile``: each is the service of its
    Dockerfile's folder; one whose Dockerfile lies in a folder without sources is the root's, which runs nothing
    (a ``pyproject.toml`` and release scripts), so a call to it stays unresolved (never ``no_route`` to the
    repository's root)."""
    nodes, edges, clients = _compose_from_root(tmp_path / "sys", {
        "pyproject.toml": "[project]\nname = 'sys'\nversion = '1'\n", "scripts/make_release.py": "print('release')\n"})
    ends = {name: (n.props["match"], n.props.get("target_service"),
                   sorted(nodes[e.dst].kind for e in edges.values() if e.src == n.id and e.type == "HTTP_CALLS"))
            for name, n in clients.items()}
    assert ends["known"] == ("cross_service", "store", ["route"])
    assert ends["missing"] == ("no_route", "store", ["microservice"])
    assert ends["proxied"][0] == "unresolved" and ends["proxied"][2] == []
    assert "a deployment unit of this project (docker-compose.yml) built from a folder without source code" in \
        clients["proxied"].props["match_detail"]


def test_a_unit_built_from_a_folder_without_a_module_is_not_the_root_s_even_when_the_root_has_sources(
        tmp_path: Path):
    """The root is a module with a source file of its own (a ``package.json`` and a script), so it is no tooling
    leftover, but it deploys nothing; a Compose service built from a folder that holds no module (an Envoy proxy's
    config) is then no alias of the root, and a call to it stays unresolved (never ``no_route`` to the root)."""
    _, edges, clients = _compose_from_root(
        tmp_path / "sys", {"deploy/envoy.yaml": "static_resources: {}\n",
                           "package.json": '{"name": "sys-root", "private": true}\n',
                           "sanity.py": "import sys\nprint(sys.argv)\n"},
        units="  edge:\n    build:\n      context: ./\n      dockerfile: ${EDGE_DOCKERFILE}\n")
    assert clients["known"].props["match"] == "cross_service"
    assert clients["proxied"].props["match"] == "unresolved"
    assert not [e for e in edges.values() if e.src == clients["proxied"].id and e.type == "HTTP_CALLS"]
    assert "a deployment unit of this project" in clients["proxied"].props["match_detail"]
    assert clients["edged"].props["match"] == "unresolved"   # built from the root by a Dockerfile a variable names


def test_a_unit_made_from_an_image_is_an_outside_service_not_a_unit_built_without_sources(tmp_path: Path):
    """``image: redis`` builds nothing of the project: a call to it names an outside service, not "a deployment unit
    built from a folder without source code"."""
    root = write_tree(tmp_path / "sys", {
        "store/Dockerfile": "FROM python:3.12\nCOPY . .\n", "store/app.py": FLASK,
        "shop/Dockerfile": "FROM python:3.12\nCOPY . .\n", "shop/calls.py": CALLER.replace("proxy:8080", "redis:6379"),
        "docker-compose.yml": "services:\n  store:\n    build: ./store\n  shop:\n    build: ./shop\n"
                              "  redis:\n    image: redis:7\n",
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = {n.props["declaring_fqn"].rsplit(".", 1)[-1]: n.props for n in nodes.values() if n.kind == "client"}
    assert clients["proxied"]["match"] == "unresolved"
    assert "not a microservice of this project (an outside service?)" in clients["proxied"]["match_detail"]
    assert "built from a folder" not in clients["proxied"]["match_detail"]


def test_a_gradle_module_that_only_depends_on_spring_boot_is_a_library(tmp_path: Path):
    """Only a build that applies the Spring Boot plugin makes an application: a module depending on a starter (the
    shared ``common`` of a multi-module build), declaring the plugin ``apply false`` or turning its boot jar off is a
    library, whichever DSL writes it."""
    files = {"settings.gradle": "include 'orders', 'common', 'events', 'legacy', 'catalog'\n",
             "build.gradle": "plugins {\n    id 'org.springframework.boot' version '3.2.0' apply false\n}\n",
             "orders/build.gradle": "apply plugin: 'org.springframework.boot'\n",
             "common/build.gradle": "dependencies {\n    compile \"org.springframework.boot:spring-boot-starter:2.1\"\n}\n",
             "events/build.gradle.kts": 'plugins { id("org.springframework.boot") }\ntasks.bootJar { enabled = false }\n'
                                       "tasks.getByName<BootJar>(\"bootJar\") {}\nbootJar { enabled = false }\n",
             "legacy/build.gradle": "apply plugin: 'spring-boot'\n",
             "catalog/build.gradle.kts": "plugins {\n    alias(libs.plugins.spring.boot)\n}\n"}
    for name in ("orders", "common", "events", "legacy", "catalog"):
        files[f"{name}/src/main/java/com/acme/{name}/A.java"] = f"package com.acme.{name};\npublic class A {{}}\n"
    services = _services(write_tree(tmp_path / "shop", files))
    assert {name for name, deployable in services.items() if deployable} == {"orders", "legacy", "catalog"}


def test_the_boot_plugin_applied_from_the_root_a_convention_plugin_or_a_catalog_alias_makes_an_application(
        tmp_path: Path):
    """The plugin reaches a member from its root's ``subprojects { }``, from a ``buildSrc`` convention plugin (a class
    or a precompiled script plugin) it applies, or through a version catalog alias of any name: each member is an
    application; a member that only depends on Boot, or applies another plugin, is still a library."""
    from graphlore.toolsets.code.languages.builds import read_gradle_build

    dep = "dependencies {\n    implementation 'org.springframework.boot:spring-boot-starter-web'\n}\n"
    root = write_tree(tmp_path / "shop", {
        "settings.gradle": "include 'orders', 'billing', 'common', 'catalog', 'tools'\n",
        "gradle/libs.versions.toml": '[plugins]\nspringframework-boot = { id = "org.springframework.boot", '
                                     'version = "3.2.0" }\nlombok = "io.freefair.lombok:8.4"\n',
        "buildSrc/src/main/groovy/ServicePlugin.groovy":
            "class ServicePlugin implements Plugin<Project> {\n  void apply(Project project) {\n"
            "    project.apply(plugin: 'org.springframework.boot')\n  }\n}\n",
        "buildSrc/src/main/groovy/shop.service-conventions.gradle": "plugins {\n    id 'org.springframework.boot'\n}\n",
        "orders/build.gradle": "apply plugin: ServicePlugin\n" + dep,
        "billing/build.gradle": "plugins {\n    id 'shop.service-conventions'\n}\n" + dep,
        "common/build.gradle": "apply plugin: 'java-library'\n" + dep,
        "catalog/build.gradle.kts": "plugins {\n    alias(libs.plugins.springframework.boot)\n}\n",
        "tools/build.gradle.kts": "plugins {\n    alias(libs.plugins.lombok)\n}\n" + dep})
    apps = {name for name in ("orders", "billing", "common", "catalog", "tools")
            if read_gradle_build(root / name / ("build.gradle.kts" if name in ("catalog", "tools") else "build.gradle"))
            .application}
    assert apps == {"orders", "billing", "catalog"}
    members = write_tree(tmp_path / "members", {
        "settings.gradle": "include 'orders', 'events'\n",
        "build.gradle": "subprojects {\n    apply plugin: 'java'\n    apply plugin: 'org.springframework.boot'\n}\n",
        "orders/build.gradle": dep, "events/build.gradle": "bootJar {\n    enabled = false\n}\n"})
    assert read_gradle_build(members / "orders" / "build.gradle").application
    assert not read_gradle_build(members / "events" / "build.gradle").application
    some = write_tree(tmp_path / "some", {   # applied to some members only: not known to be this one's
        "settings.gradle": "include 'orders'\n", "orders/build.gradle": dep,
        "build.gradle": "subprojects {\n    if (name.endsWith('-service')) {\n"
                        "        apply plugin: 'org.springframework.boot'\n    }\n}\n"})
    assert not read_gradle_build(some / "orders" / "build.gradle").application


def test_an_update_rereads_the_convention_plugin_a_member_is_an_application_by(tmp_path: Path):
    """The layout read ``buildSrc``'s plugins: editing one (or adding one) moves the layout, as a full build would."""
    from helpers.code_graph import bump

    files = {"settings.gradle": "include 'orders', 'billing'\n",
             "buildSrc/src/main/groovy/ServicePlugin.groovy":
                 "class ServicePlugin implements Plugin<Project> {\n  void apply(Project project) {}\n}\n",
             "orders/build.gradle": "apply plugin: ServicePlugin\n",
             "billing/build.gradle": "plugins {\n    id 'shop.service'\n}\n"}
    for name in ("orders", "billing"):
        files[f"{name}/src/main/java/com/acme/{name}/A.java"] = f"package com.acme.{name};\npublic class A {{}}\n"
    root = write_tree(tmp_path / "shop", files)
    graph = CodeGraph.build(root)
    plugin = root / "buildSrc/src/main/groovy/ServicePlugin.groovy"
    plugin.write_text("class ServicePlugin implements Plugin<Project> {\n  void apply(Project project) {\n"
                      "    project.apply(plugin: 'org.springframework.boot')\n  }\n}\n")
    bump(plugin)
    (root / "buildSrc/src/main/groovy/shop.service.gradle").write_text("plugins {\n    id 'org.springframework.boot'\n}\n")
    graph.update()
    updated = {n.name: n.props["deployable"] for n in graph.snapshot()[0].values() if n.kind == "microservice"}
    assert updated == _services(root) == {"orders": True, "billing": True}
