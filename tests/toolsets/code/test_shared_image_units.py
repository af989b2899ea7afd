"""Services a shared image runs: Compose services built from one generic image (``docker/app``) that pick their
module by a ``working_dir`` inside a bind-mounted folder of the tree, or by a build argument that names the image's
``WORKDIR`` inside the copied build context, run that module, so it is a deployable
service, reached by the unit's names and given its ``env_file`` values; a module no unit runs stays a library."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.deployment import read_deployment

MAIN = 'package main\n\nimport "example.org/common/logs"\n\nfunc main() { logs.Init() }\n'
FILES = {
    "docker/app/Dockerfile": "FROM golang:1.22\nRUN go install github.com/cespare/reflex@v0.3.1\nCMD [\"reflex\"]\n",
    "internal/common/go.mod": "module example.org/common\n\ngo 1.22\n",
    "internal/common/logs/logs.go": "package logs\n\nfunc Init() {}\n",
    "internal/billing/go.mod": "module example.org/billing\n\ngo 1.22\n",
    "internal/billing/main.go": MAIN,
    "internal/ledger/go.mod": "module example.org/ledger\n\ngo 1.22\n",
    "internal/ledger/main.go": MAIN,
    "internal/audit/go.mod": "module example.org/audit\n\ngo 1.22\n",
    "internal/audit/main.go": MAIN,
    "internal/reports/go.mod": "module example.org/reports\n\ngo 1.22\n",
    "internal/reports/main.go": MAIN,
    "docker/app-prod/Dockerfile": "FROM golang:1.22 AS build\nARG SERVICE\nRUN mkdir /internal\n"
                                  "COPY --chown=app . /internal\nWORKDIR /internal/$SERVICE\nRUN go build -o /app .\n"
                                  "FROM gcr.io/distroless/base\nCOPY --from=build /app /app\nCMD [\"/app\"]\n",
    ".env": "PORT=3000\nLEDGER_ADDR=ledger-grpc:3000\n",
    "docker-compose.yml": """services:
  billing-http:
    build:
      context: docker/app
    volumes:
      - ./internal:/internal
      - ./.go-cache:/go-cache
    working_dir: /internal/billing
    env_file:
      - .env
  ledger-grpc:
    build: docker/app
    volumes:
      - type: bind
        source: ./internal/ledger
        target: /src
    working_dir: /src/
  reports:
    build:
      context: ./internal
      dockerfile: ../docker/app-prod/Dockerfile
      args:
        SERVICE: reports
  audit:
    build: docker/app
    volumes:
      - cache:/internal
    working_dir: /internal/audit
volumes:
  cache: {}
""",
}


def test_a_unit_running_in_a_mounted_module_folder_deploys_that_module(tmp_path: Path):
    graph = CodeGraph.build(write_tree(tmp_path / "gym", FILES))
    deployable = {name: s.deployable for name, s in graph.layout.services.items()}
    assert deployable["billing"] and deployable["ledger"]
    assert not deployable["common"]      # a library no unit runs
    assert not deployable["audit"]       # a named volume is no folder of the tree
    assert deployable["reports"]         # build.args SERVICE picks WORKDIR /internal/$SERVICE of COPY . /internal
    deployment = read_deployment(graph.layout, graph.root, list(graph.layout.deployment_files))
    assert "billing-http" in deployment.names["billing"] and "ledger-grpc" in deployment.names["ledger"]
    assert deployment.env["billing"]["LEDGER_ADDR"] == ["ledger-grpc:3000"]
    assert any("env_file .env: LEDGER_ADDR=ledger-grpc:3000" in note for note in deployment.value_notes["billing"])


MONO_MAIN = 'package main\n\nimport "example.org/mono/pkg/logs"\n\nfunc main() { logs.Init() }\n'
MONO = {
    "go.mod": "module example.org/mono\n\ngo 1.22\n",
    "pkg/logs/logs.go": "package logs\n\nfunc Init() {}\n",
    "cmd/billing/main.go": MONO_MAIN,
    "cmd/ledger/main.go": MONO_MAIN,
    "docker/dev/Dockerfile": "FROM golang:1.22\n",
    "docker-compose.yml": """services:
  billing-http:
    build: docker/dev
    volumes:
      - .:/app
    working_dir: /app
    command: go run ./cmd/billing
  ledger:
    build: docker/dev
    volumes:
      - .:/app
    working_dir: /app
    command: go run ./cmd/ledger
""",
}


def test_a_mounted_go_module_whose_programs_lie_below_its_folder_is_not_the_unit_s_service(tmp_path: Path):
    """Units that run ``go run ./cmd/billing`` in the repository's root module, whose folder holds no Go file
    itself: the folder does not say which program runs, so neither unit is given to the module (its names would
    join one service by a guess)."""
    graph = CodeGraph.build(write_tree(tmp_path / "mono", MONO))
    assert not graph.layout.services["mono"].deployable
    deployment = read_deployment(graph.layout, graph.root, list(graph.layout.deployment_files))
    assert "billing-http" not in deployment.names.get("mono", {}) and not deployment.started


def test_an_update_that_gives_the_module_s_folder_a_program_runs_it_as_a_full_build_does(tmp_path: Path):
    root = write_tree(tmp_path / "mono", MONO)
    graph = CodeGraph.build(root)
    (root / "main.go").write_text("package main\n\nfunc main() {}\n", encoding="utf-8")
    graph.update()
    assert graph.layout.services["mono"].deployable == CodeGraph.build(root).layout.services["mono"].deployable
    assert graph.layout.services["mono"].deployable
