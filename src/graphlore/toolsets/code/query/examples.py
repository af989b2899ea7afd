"""A tiny source tree, indexed, and a valid call of every code tool against it (:attr:`Toolset.examples`).

Tests and ``bench/reliability.py`` start from these calls (the fuzzer mutates them). The tree is one
Java service with a controller calling a service, and one Python package: enough for every tool
(find, describe, neighbors, paths, impact, search, resolve, service_map, status, index) to have something to say.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphlore.runtime import Runtime

from ..index.code_index import CodeIndex

FILES = {
    "shop/pom.xml": "<project><modelVersion>4.0.0</modelVersion><groupId>com.shop</groupId>"
                    "<artifactId>shop</artifactId></project>\n",
    "shop/src/main/java/com/shop/OrderService.java": """package com.shop;

/** Places and prices orders. */
public class OrderService {
    public int total(int quantity, int price) {
        return quantity * price;
    }
}
""",
    "shop/src/main/java/com/shop/OrderController.java": """package com.shop;

public class OrderController {
    private final OrderService service = new OrderService();

    public int checkout(int quantity) {
        return service.total(quantity, 3);
    }
}
""",
    "tools/pyproject.toml": '[project]\nname = "tools"\nversion = "0.1"\n',
    "tools/tools/__init__.py": "",
    "tools/tools/report.py": '''"""Reports about orders."""


def summarise(orders):
    """The number of orders and their total."""
    return len(orders), sum(orders)


def main():
    print(summarise([1, 2, 3]))
''',
}

SERVICE = "com.shop.OrderService"
METHOD = "com.shop.OrderService#total(int,int)"
CALLER = "com.shop.OrderController#checkout(int)"


def write_tree(folder: Path) -> Path:
    """The example tree at ``folder/tree`` (made fresh)."""
    root = folder / "tree"
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def examples(runtime: Runtime, folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Write and index :data:`FILES` (structure and embeddings); a valid call per tool."""
    project = str(write_tree(folder))
    index = CodeIndex(runtime, project)
    index.sync()
    index.embed()
    by_fqn = {n.props.get("fqn"): n for n in index.store().iter_nodes("symbol")}
    node, caller = by_fqn[METHOD], by_fqn[CALLER]
    return {
        "find": [{"project_path": project, "kind": "symbol", "filter": {"symbol_kind": "class"}},
                 {"project_path": project, "kind": "symbol", "filter": {"language": "python"}, "limit": 2,
                  "offset": 1},
                 {"project_path": project, "kind": "microservice"}],
        "describe": [{"project_path": project, "fqn": SERVICE}, {"project_path": project, "id": node.id,
                                                                 "include_source": True}],
        "neighbors": [{"project_path": project, "id": node.id, "edge_types": ["CALLED_BY"], "direction": "out"},
                      {"project_path": project, "id": node.id, "direction": "both", "limit": 5}],
        "paths": [{"project_path": project, "from_id": caller.id, "to_id": node.id},
                  {"project_path": project, "from_id": caller.id, "to_id": node.id, "edge_types": ["CALLS"],
                   "max_depth": 2, "limit": 3}],
        "impact": [{"project_path": project, "id": node.id},
                   {"project_path": project, "id": caller.id, "direction": "out", "depth": 3, "limit": 5}],
        "search": [{"project_path": project, "query": "order total"},
                   {"project_path": project, "query": "summarise", "kind": "symbol",
                    "filter": {"language": "python"}, "limit": 3}],
        "resolve": [{"project_path": project, "identifier": "OrderService"},
                    {"project_path": project, "identifier": "summarise", "hint_kind": "function"}],
        "service_map": [{"project_path": project}, {"project_path": project, "microservice": "shop", "depth": 2,
                                                    "format": "dot"}],
        "status": [{"project_path": project}],
        "index": [{"project_path": project}, {"project_path": project, "embed": False}],
    }
