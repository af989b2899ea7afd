"""JS and Python workspaces: a root ``package.json`` (npm/yarn/bun ``workspaces``) or ``pyproject.toml`` (uv
``[tool.uv.workspace]``) whose members deploy on their own is no one service named after the root: each member is
a microservice (a member with its own Dockerfile is deployable; one built into another's image is listed with
``deployable: false``), so a call from one member to another is cross-service. A Maven parent over one
deployable module and a library stays one service (a multi-module build is one service)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

API = '''from fastapi import FastAPI

app = FastAPI()


@app.get("/api/items")
def items():
    return []
'''
WEB = '''export async function load() {
  return fetch("http://api:8000/api/items");
}
'''

POM = ("<project><modelVersion>4.0.0</modelVersion><groupId>a</groupId><artifactId>{name}</artifactId>"
       "<version>1</version>{extra}</project>")
BOOT = "<build><plugins><plugin><artifactId>spring-boot-maven-plugin</artifactId></plugin></plugins></build>"


def _graph(root: Path) -> tuple[dict[str, bool], set[str]]:
    nodes, _ = CodeGraph.build(root).snapshot()
    services = {n.name: n.props["deployable"] for n in nodes.values() if n.kind == "microservice"}
    matches = {n.props["match"] for n in nodes.values() if n.kind == "client"}
    return services, matches


def test_a_bun_and_uv_workspace_splits_into_its_members(tmp_path: Path):
    root = write_tree(tmp_path / "stack", {
        "package.json": '{"name": "stack", "private": true, "workspaces": ["web", "libs/*"]}',
        "pyproject.toml": '[project]\nname = "stack"\n\n[tool.uv.workspace]\nmembers = ["api"]\n',
        "api/pyproject.toml": '[project]\nname = "api"\n', "api/Dockerfile": "FROM python:3.12\n",
        "api/app/main.py": API,
        "web/package.json": '{"name": "web"}', "web/src/load.ts": WEB,
        "libs/ui/package.json": '{"name": "ui"}', "libs/ui/index.ts": "export const x = 1;\n",
    })
    services, matches = _graph(root)
    assert services.get("api") is True
    assert services.get("web") is False and services.get("ui") is False
    assert "stack" not in services or services["stack"] is False
    assert matches == {"cross_service"}


def test_a_maven_parent_over_one_application_stays_one_service(tmp_path: Path):
    root = write_tree(tmp_path / "shop", {
        "pom.xml": POM.format(name="shop", extra="<packaging>pom</packaging><modules><module>app</module>"
                                                 "<module>core</module></modules>"),
        "app/pom.xml": POM.format(name="app", extra=BOOT), "app/src/main/java/a/App.java": "package a;\nclass App {}\n",
        "core/pom.xml": POM.format(name="core", extra=""), "core/src/main/java/a/Core.java": "package a;\nclass Core {}\n",
    })
    services, _ = _graph(root)
    assert list(services) == ["shop"]


def test_a_tooling_package_json_beside_a_maven_parent_is_no_workspace(tmp_path: Path):
    """A root ``package.json`` without ``workspaces`` (husky, prettier) does not make the Maven parent's own
    ``<modules>`` a workspace: one application and a library stay one service named after the parent."""
    root = write_tree(tmp_path / "shop", {
        "pom.xml": POM.format(name="shop", extra="<packaging>pom</packaging><modules><module>app</module>"
                                                 "<module>core</module></modules>"),
        "package.json": '{"name": "shop", "private": true, "devDependencies": {"husky": "9"}}',
        "app/pom.xml": POM.format(name="app", extra=BOOT), "app/src/main/java/a/App.java": "package a;\nclass App {}\n",
        "core/pom.xml": POM.format(name="core", extra=""), "core/src/main/java/a/Core.java": "package a;\nclass Core {}\n",
    })
    services, _ = _graph(root)
    assert list(services) == ["shop"]
