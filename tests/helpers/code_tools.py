"""Small helpers for code-toolset tests that write a tree and ask the tools about it."""

from __future__ import annotations

from pathlib import Path

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code.query import models, tools


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``root``; returns ``root``."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def run(runtime: Runtime, tree: Path, tool: str, **fields):
    """One code tool call on the project at ``tree``, its request parsed as the server parses it."""
    return getattr(tools, tool)(runtime, parse_request(getattr(models, f"{tool.capitalize()}Request"),
                                                       {"project_path": str(tree), **fields}))


def node(project: tuple[Runtime, Path], identifier: str) -> str:
    """The id of the node ``resolve`` finds for ``identifier``."""
    return run(*project, "resolve", identifier=identifier).node.id


#: a small Flask service: ``GET /orders/<order_id>`` and ``POST /orders``
FLASK_ORDERS = '''from flask import Flask

app = Flask(__name__)


@app.get("/orders/<order_id>")
def order(order_id):
    return {}


@app.post("/orders")
def create():
    return {}
'''


def orders_service(folder: str = "orders") -> dict[str, str]:
    """The files of `FLASK_ORDERS` as a service of its own (a Dockerfile and requirements.txt in ``folder``)."""
    return {f"{folder}/Dockerfile": "FROM python:3.12\n", f"{folder}/requirements.txt": "flask\n",
            f"{folder}/app.py": FLASK_ORDERS}
