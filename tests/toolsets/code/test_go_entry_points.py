"""One Go module, many services: each ``main`` package ``cmd/<svc>`` that a Dockerfile builds (``go build ./cmd/x``)
is a deployable service rooted there; a package only one entry point reaches through imports is that service's, a
package two or more reach stays with the module's own service (a library), never given to one of them. A Makefile
builds, it does not deploy: its entry points are no services."""

from __future__ import annotations

import os
from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.layout.entry_points import built_packages

MOD = "example.org/teahouse"


def _main(imports: list[str]) -> str:
    lines = "\n".join(f'\t"{MOD}/{path}"' for path in imports)
    return f"package main\n\nimport (\n\t\"fmt\"\n\n{lines}\n)\n\nfunc main() {{ fmt.Println(\"up\") }}\n"


def _package(name: str, imports: list[str] = ()) -> str:
    single = "".join(f'import "{MOD}/{path}"\n' for path in imports)
    return f"package {name}\n\n{single}\nfunc Run() {{}}\n"


DOCKERFILE = """FROM golang:1.22 AS builder
COPY . /src
WORKDIR /src
RUN CGO_ENABLED=0 go build -tags netgo \\
    -o /bin/app ./cmd/{name}
FROM scratch
COPY --from=builder /bin/app /app
CMD ["/app"]
"""


def _system(root: Path) -> Path:
    return write_tree(root, {
        "go.mod": f"module {MOD}\n\ngo 1.22\n",
        "cmd/brewer/main.go": _main(["internal/brewer/steep", "pkg/bus"]),
        "cmd/till/main.go": _main(["internal/till/orders", "pkg/bus"]),
        "cmd/audit/main.go": _main(["pkg/bus"]),                       # built by the Makefile only
        "internal/brewer/steep/steep.go": _package("steep", ["internal/brewer/kettle"]),
        "internal/brewer/kettle/kettle.go": _package("kettle"),
        "internal/till/orders/orders.go": _package("orders", ["pkg/money"]),
        "pkg/bus/bus.go": _package("bus"),
        "pkg/money/money.go": _package("money"),
        "deploy/images/Dockerfile-brewer": DOCKERFILE.format(name="brewer"),
        "deploy/images/till.Dockerfile": DOCKERFILE.format(name="till"),
        "Makefile": "audit:\n\tgo build -o bin/audit ./cmd/audit\n",
        "compose.yaml": "services:\n  brewing:\n    build:\n      context: .\n"
                        "      dockerfile: ./deploy/images/Dockerfile-brewer\n"
                        "  till:\n    build:\n      context: .\n      dockerfile: deploy/images/till.Dockerfile\n"
                        "    image: teahouse/till-api\n",
    })


def _services(graph: CodeGraph) -> dict[str, dict]:
    nodes, _ = graph.snapshot()
    return {n.name: n.props for n in nodes.values() if n.kind == "microservice"}


def _service_of(graph: CodeGraph, path: str) -> str:
    return graph.table.files[path].ctx.microservice   # the context the file was bound with


def test_each_entry_point_a_dockerfile_builds_is_a_deployable_service(tmp_path: Path):
    graph = CodeGraph.build(_system(tmp_path / "teahouse"))
    services = _services(graph)
    assert {name for name, props in services.items() if props["deployable"]} == {"brewer", "till"}
    assert services["teahouse"]["deployable"] is False        # the module's own service: a library
    assert "audit" not in services                             # a Makefile builds, it does not deploy
    assert _service_of(graph, "cmd/audit/main.go") == "teahouse"


def test_a_package_belongs_to_the_one_entry_point_that_reaches_it_and_shared_ones_to_none(tmp_path: Path):
    graph = CodeGraph.build(_system(tmp_path / "teahouse"))
    assert _service_of(graph, "internal/brewer/steep/steep.go") == "brewer"
    assert _service_of(graph, "internal/brewer/kettle/kettle.go") == "brewer"   # through steep
    assert _service_of(graph, "internal/till/orders/orders.go") == "till"
    assert _service_of(graph, "pkg/money/money.go") == "till"                  # only till reaches it
    assert _service_of(graph, "pkg/bus/bus.go") == "teahouse"                  # two reach it: shared


def test_compose_names_join_the_entry_point_s_service(tmp_path: Path):
    services = _services(CodeGraph.build(_system(tmp_path / "teahouse")))
    assert services["brewer"]["aliases"]["brewing"] == "docker-compose service"
    assert services["till"]["aliases"]["till-api"] == "container image"
    assert "brewing" not in services["teahouse"]["aliases"]


def test_an_import_that_changes_moves_the_package_on_update(tmp_path: Path):
    root = _system(tmp_path / "teahouse")
    graph = CodeGraph.build(root)
    assert _service_of(graph, "pkg/money/money.go") == "till"
    path = root / "cmd/brewer/main.go"
    path.write_text(_main(["internal/brewer/steep", "pkg/bus", "pkg/money"]), encoding="utf-8")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    graph.update()
    assert _service_of(graph, "pkg/money/money.go") == "teahouse"
    assert _services(graph) == _services(CodeGraph.build(root))


def test_go_build_commands_name_their_packages_not_their_flag_values():
    assert built_packages("RUN go build -o /bin/app -ldflags '-s -w' ./cmd/api && echo ok\n") == ["./cmd/api"]
    assert built_packages("RUN go install example.org/x/cmd/worker@latest\n") == ["example.org/x/cmd/worker@latest"]
    assert built_packages("RUN go build -o app main.go\n") == []
    assert built_packages("RUN go build -o /app ./cmd/api/main.go ./cmd/api/routes.go\n") == ["./cmd/api"] * 2


def test_a_ko_image_and_a_skaffold_artifact_s_dockerfile_name_their_entry_points(tmp_path: Path):
    root = write_tree(tmp_path / "teahouse", {
        "go.mod": f"module {MOD}\n\ngo 1.22\n",
        "cmd/steamer/main.go": _main(["pkg/bus"]), "cmd/pourer/main.go": _main(["pkg/bus"]),
        "pkg/bus/bus.go": _package("bus"),
        "deploy/pourer.Dockerfile": DOCKERFILE.format(name="pourer"),
        "k8s/steam.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: steam-jobs\nspec:\n  template:\n"
                          "    spec:\n      containers:\n        - name: steam\n"
                          f"          image: ko://{MOD}/cmd/steamer\n",
        "k8s/pour.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: pouring\nspec:\n  template:\n"
                         "    spec:\n      containers:\n        - name: pour\n          image: tea/pour-image\n",
        "skaffold.yaml": "apiVersion: skaffold/v4beta6\nkind: Config\nbuild:\n  artifacts:\n"
                         "    - image: tea/pour-image\n      context: .\n      docker:\n"
                         "        dockerfile: deploy/pourer.Dockerfile\n",
    })
    services = _services(CodeGraph.build(root))
    assert {name for name, props in services.items() if props["deployable"]} == {"steamer", "pourer"}
    assert services["steamer"]["aliases"]["steam-jobs"] == "Kubernetes Deployment"
    assert services["pourer"]["aliases"]["pouring"] == "Kubernetes Deployment"


def _two_entry_points(extra: dict[str, str]) -> dict[str, str]:
    return {"go.mod": f"module {MOD}\n\ngo 1.22\n", "cmd/api/main.go": _main(["pkg/bus"]),
            "cmd/worker/main.go": _main(["pkg/bus"]), "pkg/bus/bus.go": _package("bus"), **extra}


def test_a_root_dockerfile_that_builds_an_entry_point_deploys_that_one_not_the_library(tmp_path: Path):
    root = write_tree(tmp_path / "teahouse", _two_entry_points({
        "Dockerfile": DOCKERFILE.format(name="api"), "Dockerfile.worker": DOCKERFILE.format(name="worker"),
        "compose.yaml": "services:\n  gateway:\n    build: .\n",
    }))
    services = _services(CodeGraph.build(root))
    assert {name for name, props in services.items() if props["deployable"]} == {"api", "worker"}
    assert services["teahouse"]["deployable"] is False
    assert services["api"]["aliases"]["gateway"] == "docker-compose service"   # `build: .` reads ./Dockerfile


def test_every_dockerfile_that_builds_an_entry_point_joins_its_service(tmp_path: Path):
    root = write_tree(tmp_path / "teahouse", _two_entry_points({
        "docker/Dockerfile.dev": DOCKERFILE.format(name="api"), "docker/api.Dockerfile": DOCKERFILE.format(name="api"),
        "docker/worker.Dockerfile": DOCKERFILE.format(name="worker"),
        "compose.yaml": "services:\n  api-dev:\n    build:\n      context: .\n      dockerfile: docker/Dockerfile.dev\n"
                        "  api-prod:\n    build:\n      context: .\n      dockerfile: docker/api.Dockerfile\n",
    }))
    aliases = _services(CodeGraph.build(root))["api"]["aliases"]
    assert aliases["api-dev"] == aliases["api-prod"] == "docker-compose service"


def test_an_edit_of_a_go_file_moves_no_layout_where_one_package_is_built(tmp_path: Path):
    """`go build -o /app .`: no entry points to share packages between, so a Go edit is no layout change (the
    layout and every deployment file are not read again)."""
    root = write_tree(tmp_path / "svc", {"go.mod": f"module {MOD}\n\ngo 1.22\n",
                                         "Dockerfile": "FROM golang:1.22\nRUN go build -o /app .\n",
                                         "main.go": "package main\n\nfunc main() {}\n",
                                         "util.go": "package main\n\nfunc helper() int { return 1 }\n"})
    graph = CodeGraph.build(root)
    path = root / "util.go"
    path.write_text("package main\n\nfunc helper() int { return 2 }\n", encoding="utf-8")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert graph.update().layout_changed is False


def test_a_go_build_inside_a_watcher_s_quoted_option_names_only_its_own_files():
    """A file reloader runs ``go build`` from a quoted option: its words end with the quote, and a file path needs
    no ``./`` (``go build`` reads ``a/cmd/main.go`` as a file, unlike a bare package path)."""
    text = 'ENTRYPOINT Reloader --build="go build -o main kettle/cmd/main.go" --command=./main\n'
    assert built_packages(text) == ["./kettle/cmd"]
    assert built_packages("CMD watch --build='go build -o app ./cmd/pot' --run='./app'\n") == ["./cmd/pot"]
    assert built_packages("RUN go build -o /app kettle/cmd\n") == ["kettle/cmd"]   # a package path, not a folder


WATCHER = 'FROM golang:1.22\nWORKDIR /src\nCOPY .. /src\nENTRYPOINT Reloader --build="go build -o main {path}" ' \
          '--command=./main\n'


def _per_service_cmd(root: Path, compose: str = "") -> Path:
    """``<svc>/cmd/main.go`` of one root ``go.mod``, each built by a Dockerfile in ``docker/``."""
    return write_tree(root, {
        "go.mod": f"module {MOD}\n\ngo 1.22\n",
        "kettle_service/cmd/main.go": _main(["kettle_service/internal/boil", "pkg/bus"]),
        "kettle_service/internal/boil/boil.go": _package("boil"),
        "kettle_service/config/settings.yaml": "serviceName: kettle_service\n",
        "cup_service/cmd/main.go": _main(["pkg/bus"]),
        "pkg/bus/bus.go": _package("bus"),
        "docker/kettle.Dockerfile": WATCHER.format(path="kettle_service/cmd/main.go"),
        "docker/cup.Dockerfile": WATCHER.format(path="cup_service/cmd/main.go"),
        **({"docker-compose.yaml": compose} if compose else {}),
    })


def test_a_service_s_own_cmd_folder_names_the_service_after_the_folder_that_owns_it(tmp_path: Path):
    graph = CodeGraph.build(_per_service_cmd(tmp_path / "teahouse"))
    services = _services(graph)
    assert {name for name, props in services.items() if props["deployable"]} == {"kettle_service", "cup_service"}
    assert "cmd" not in services
    assert services["kettle_service"]["root"] == "kettle_service"
    assert _service_of(graph, "kettle_service/internal/boil/boil.go") == "kettle_service"
    assert _service_of(graph, "kettle_service/cmd/main.go") == "kettle_service"
    assert _service_of(graph, "pkg/bus/bus.go") == "teahouse"                  # both reach it: shared


def test_a_compose_service_that_builds_a_service_s_cmd_is_a_name_of_that_service(tmp_path: Path):
    compose = ("services:\n  kettle:\n    build:\n      context: .\n      dockerfile: docker/kettle.Dockerfile\n"
               "  cups:\n    build:\n      context: .\n      dockerfile: docker/cup.Dockerfile\n")
    services = _services(CodeGraph.build(_per_service_cmd(tmp_path / "teahouse", compose)))
    assert services["kettle_service"]["aliases"]["kettle"] == "docker-compose service"
    assert services["cup_service"]["aliases"]["cups"] == "docker-compose service"


def test_a_services_folder_of_main_packages_names_each_service_after_its_folder(tmp_path: Path):
    root = write_tree(tmp_path / "teahouse", {
        "go.mod": f"module {MOD}\n\ngo 1.22\n",
        "services/kettle/main.go": _main(["pkg/bus"]), "services/cup/main.go": _main(["pkg/bus"]),
        "pkg/bus/bus.go": _package("bus"),
        "deploy/kettle.Dockerfile": DOCKERFILE.replace("./cmd/{name}", "./services/kettle"),
        "deploy/cup.Dockerfile": DOCKERFILE.replace("./cmd/{name}", "./services/cup"),
    })
    services = _services(CodeGraph.build(root))
    assert {name for name, props in services.items() if props["deployable"]} == {"kettle", "cup"}
    assert services["kettle"]["root"] == "services/kettle"


def test_a_cmd_folder_whose_owner_holds_another_entry_point_keeps_its_folder_and_takes_the_owner_s_name(
        tmp_path: Path):
    """``api/cmd`` and ``api/jobs/seed`` are both built: ``api`` owns two programs, so ``api/cmd`` stays the first
    one's root (``api/jobs/seed`` is not its), named after its owner all the same, never ``cmd``."""
    root = write_tree(tmp_path / "teahouse", {
        "go.mod": f"module {MOD}\n\ngo 1.22\n",
        "api/cmd/main.go": _main(["pkg/bus"]), "api/jobs/seed/main.go": _main(["pkg/bus"]),
        "pkg/bus/bus.go": _package("bus"),
        "docker/api.Dockerfile": WATCHER.format(path="api/cmd/main.go"),
        "docker/seed.Dockerfile": WATCHER.format(path="api/jobs/seed/main.go"),
    })
    services = _services(CodeGraph.build(root))
    assert {name for name, props in services.items() if props["deployable"]} == {"api", "seed"}
    assert services["api"]["root"] == "api/cmd"
