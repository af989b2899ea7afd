"""One program, a subcommand per service: the deployment runs the same image with a different command each (Compose
``command``, a Kubernetes container's ``args``, a Dockerfile's ``ENTRYPOINT``). Each subcommand it runs is a service
owning the folders only its start-up wiring reaches; folders several reach stay with the program's build."""

from __future__ import annotations

import os
from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.layout.subcommands import first_argument

MOD = "example.org/kiosk"


def _cobra(name: str, starter: str) -> str:
    return (f'package cmd\n\nimport (\n\t"github.com/spf13/cobra"\n\n\t"{MOD}/internal/boot"\n)\n\n'
            f'var {name}Cmd = &cobra.Command{{\n\tUse:   "{name} [flags]",\n\tShort: "the {name} server",\n'
            f'\tRun: func(cmd *cobra.Command, args []string) {{\n\t\tboot.{starter}("{name}")\n\t}},\n}}\n\n'
            f'func init() {{\n\trootCmd.AddCommand({name}Cmd)\n}}\n')


ROOT = ('package cmd\n\nimport "github.com/spf13/cobra"\n\nvar rootCmd = &cobra.Command{Use: "kiosk"}\n\n'
        'func Execute() { _ = rootCmd.Execute() }\n')
BOOT = f'''package boot

import (
\t"{MOD}/pkg/common"
\t"{MOD}/pkg/orders"
\t"{MOD}/pkg/stock"
)

// StartOrders wires the orders server
func StartOrders(name string) {{
\tlog := common.NewLogger(name)
\tsrv := orders.NewServer(log, newClock())
\tsrv.Serve()
}}

func StartStock(name string) {{
\tstock.NewWorker(common.NewLogger(name)).Run()
}}

func newClock() int {{ return 0 }}
'''
ORDERS = ('package orders\n\nimport "example.org/kiosk/pkg/common"\n\ntype Server struct{ log common.Logger }\n\n'
          'func NewServer(log common.Logger, clock int) *Server { return &Server{log: log} }\n\n'
          'func (s *Server) Serve() {}\n\nfunc Decode(b []byte) string { return string(b) }\n')
STOCK = ('package stock\n\nimport (\n\t"example.org/kiosk/pkg/common"\n\t"example.org/kiosk/pkg/orders"\n)\n\n'
         'type Worker struct{}\n\nfunc NewWorker(log common.Logger) *Worker { return &Worker{} }\n\n'
         '// Run uses the orders package while it works: a call made while serving, no part of its wiring\n'
         'func (w *Worker) Run() { _ = orders.Decode(nil) }\n')
COMMON = 'package common\n\ntype Logger struct{}\n\nfunc NewLogger(name string) Logger { return Logger{} }\n'
COMPOSE = """services:
  shop-orders:
    image: kiosk/api:latest
    command:
      - orders
  stock:
    image: kiosk/api:latest
    command: ["--config", "/etc/kiosk.yaml", "stock"]
  cache:
    image: redis:7
    command: redis-server --appendonly yes
"""


def _cobra_system(root: Path, compose: str = COMPOSE) -> Path:
    return write_tree(root, {
        "go.mod": f"module {MOD}\n\ngo 1.22\n",
        "main.go": f'package main\n\nimport "{MOD}/cmd"\n\nfunc main() {{ cmd.Execute() }}\n',
        "cmd/root.go": ROOT,
        "cmd/orders.go": _cobra("orders", "StartOrders"),
        "cmd/stock.go": _cobra("stock", "StartStock"),
        "cmd/migrate.go": _cobra("migrate", "StartOrders"),   # a tool no deployment runs
        "internal/boot/boot.go": BOOT,
        "pkg/orders/server.go": ORDERS,
        "pkg/stock/worker.go": STOCK,
        "pkg/common/log.go": COMMON,
        "deploy/docker-compose.yaml": compose,
    })


def _services(graph: CodeGraph) -> dict[str, dict]:
    nodes, _ = graph.snapshot()
    return {n.name: n.props for n in nodes.values() if n.kind == "microservice"}


def _service_of(graph: CodeGraph, path: str) -> str:
    return graph.table.files[path].ctx.microservice


def test_each_cobra_subcommand_the_deployment_runs_is_a_service(tmp_path: Path):
    graph = CodeGraph.build(_cobra_system(tmp_path / "kiosk"))
    services = _services(graph)
    assert {name for name, props in services.items() if props["deployable"]} == {"orders", "stock"}
    assert services["kiosk"]["deployable"] is False                 # the program's own build: shared code
    assert "migrate" not in services                                # declared, never run by the deployment
    assert services["orders"]["aliases"]["shop-orders"] == "docker-compose service"


def test_a_cobra_service_owns_what_only_its_wiring_reaches(tmp_path: Path):
    graph = CodeGraph.build(_cobra_system(tmp_path / "kiosk"))
    assert _service_of(graph, "pkg/orders/server.go") == "orders"
    # stock's worker calls orders.Decode while it runs: a use of the package, not a part of stock's wiring
    assert _service_of(graph, "pkg/stock/worker.go") == "stock"
    assert _service_of(graph, "pkg/common/log.go") == "kiosk"       # both wire it: shared, never given to one
    assert _service_of(graph, "internal/boot/boot.go") == "kiosk"


def test_one_subcommand_run_is_no_split(tmp_path: Path):
    compose = "services:\n  shop-orders:\n    image: kiosk/api:latest\n    command: [orders]\n"
    services = _services(CodeGraph.build(_cobra_system(tmp_path / "kiosk", compose)))
    assert "orders" not in services and "stock" not in services
    assert services["kiosk"]["deployable"] is True or "kiosk" in services


def test_an_edit_that_rewires_moves_the_package_on_update(tmp_path: Path):
    root = _cobra_system(tmp_path / "kiosk")
    graph = CodeGraph.build(root)
    assert _service_of(graph, "pkg/orders/server.go") == "orders"
    path = root / "internal/boot/boot.go"
    path.write_text(BOOT.replace("stock.NewWorker(common.NewLogger(name)).Run()",
                                 "stock.NewWorker(common.NewLogger(name)).Run()\n\t_ = orders.NewServer(common.NewLogger(name), 0)"),
                    encoding="utf-8")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    graph.update()
    assert _service_of(graph, "pkg/orders/server.go") == "kiosk"   # both now wire it


CLI = '''import click

from shop.orders import app as orders_app
from shop.billing import worker


@click.group()
def main():
    pass


@main.command("orders")
@click.option("--port", default=8000)
def serve_orders(port):
    orders_app.run(port)


@main.command()
def billing_worker():
    worker.start()
'''


def _click_system(root: Path) -> Path:
    manifest = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  template:\n    spec:\n"
                "      containers:\n        - name: {name}\n          image: shop/app:1\n"
                "          command: [\"python\", \"-m\", \"shop.cli\"]\n          args: [\"{arg}\"]\n")
    return write_tree(root, {
        "pyproject.toml": "[project]\nname = \"shop\"\nversion = \"1\"\n",
        "shop/__init__.py": "",
        "shop/cli.py": CLI,
        "shop/orders/__init__.py": "",
        "shop/orders/app.py": "from shop.common import db\n\n\ndef run(port):\n    db.connect()\n",
        "shop/billing/__init__.py": "",
        "shop/billing/worker.py": "from shop.common import db\n\n\ndef start():\n    db.connect()\n",
        "shop/common/__init__.py": "",
        "shop/common/db.py": "def connect():\n    return None\n",
        "k8s/orders.yaml": manifest.format(name="orders-api", arg="orders"),
        "k8s/billing.yaml": manifest.format(name="billing", arg="billing-worker"),
    })


def test_each_click_command_the_manifests_run_is_a_service_owning_what_it_imports(tmp_path: Path):
    graph = CodeGraph.build(_click_system(tmp_path / "shop"))
    services = _services(graph)
    assert {name for name, props in services.items() if props["deployable"]} >= {"orders", "billing-worker"}
    assert services["orders"]["aliases"]["orders-api"] == "Kubernetes Deployment"
    assert _service_of(graph, "shop/orders/app.py") == "orders"
    assert _service_of(graph, "shop/billing/worker.py") == "billing-worker"
    assert _service_of(graph, "shop/common/db.py") not in ("orders", "billing-worker")   # both import it


def test_the_first_argument_after_the_program_and_its_flags_is_the_subcommand():
    assert first_argument(["/app/server", "-c", "x.yaml", "chat"], True) == "chat"
    assert first_argument(["chat"], False) == "chat"
    assert first_argument(["python", "-m", "shop.cli"], True) is None
    assert first_argument(["--verbose", "worker"], False) == "worker"
    assert first_argument(["/usr/bin/server"], True) is None
