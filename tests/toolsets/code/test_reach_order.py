"""paths finds the shortest paths first whatever the fan-out beside them; impact can leave test code out; a
client whose path holds a choice is found by each value's prefix."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import backend

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code.query import models, render, tools

#: each ``start_k`` calls ``target`` through ``mid_k``, and through FAN x LEAVES longer paths of its own
#: (start_k -> fan_k_i -> leaf_k_i_j -> target); edges come in id order, so which step a depth-first search
#: takes first is chance: over STARTS starts, a search that stops early misses some direct call
STARTS, FAN, LEAVES = 4, 3, 12


def _fan_out_source() -> str:
    lines = ["def target():\n    return 1\n"]
    for k in range(STARTS):
        for i in range(FAN):
            for j in range(LEAVES):
                lines.append(f"def leaf_{k}_{i}_{j}():\n    return target()\n")
            lines.append(f"def fan_{k}_{i}():\n" + "".join(f"    leaf_{k}_{i}_{j}()\n" for j in range(LEAVES)))
        lines.append(f"def mid_{k}():\n    return target()\n")
        lines.append(f"def start_{k}():\n" + "".join(f"    fan_{k}_{i}()\n" for i in range(FAN))
                     + f"    return mid_{k}()\n")
    return "\n\n".join(lines)


@pytest.fixture(scope="module")
def project(tmp_path_factory, embedder):
    base = tmp_path_factory.mktemp("reach-order")
    tree = base / "shop"
    (tree / "shop").mkdir(parents=True)
    (tree / "tests").mkdir()
    (tree / "pyproject.toml").write_text('[project]\nname = "shop"\nversion = "1"\n')
    (tree / "shop" / "__init__.py").write_text("")
    (tree / "shop" / "fan.py").write_text(_fan_out_source())
    (tree / "shop" / "orders.py").write_text(
        "def load(order_id):\n    return order_id\n\n\ndef show(order_id):\n    return load(order_id)\n")
    (tree / "tests" / "test_orders.py").write_text(
        "from shop.orders import load, show\n\n\ndef helper():\n    return load(1)\n\n\n"
        "def test_load():\n    assert helper() == 1\n\n\ndef test_show():\n    assert show(1) == 1\n")
    (tree / "web").mkdir()
    (tree / "web" / "package.json").write_text('{"name": "web", "version": "1.0.0"}\n')
    (tree / "web" / "likes.ts").write_text(
        'import axios from "axios";\n\n'
        'export async function react(entity: string, id: string) {\n'
        '  let route = entity === "LIKE" ? "likes" : "comments";\n'
        '  return axios.post(`http://api.example.org/${route}/${id}`, {});\n}\n')
    runtime = Runtime(backend.settings_for(base / "home"), embedder=embedder)
    run(runtime, tree, "index", embed=False)
    yield runtime, tree
    runtime.close()


def run(runtime: Runtime, tree: Path, tool: str, **fields):
    return getattr(tools, tool)(runtime, parse_request(getattr(models, f"{tool.capitalize()}Request"),
                                                       {"project_path": str(tree), **fields}))


def node(project, identifier: str) -> str:
    return run(*project, "resolve", identifier=identifier).node.id


def test_paths_with_a_small_limit_return_the_shortest_path_behind_a_fan_out(project):
    target = node(project, "shop.fan.target")
    for k in range(STARTS):
        start, mid = node(project, f"shop.fan.start_{k}"), node(project, f"shop.fan.mid_{k}")
        one = run(*project, "paths", from_id=start, to_id=target, limit=1)
        assert [(h.source.id, h.target.id) for h in one.paths[0].hops] == [(start, mid), (mid, target)]
        assert one.has_more
    some = run(*project, "paths", from_id=start, to_id=target, limit=5)
    assert [p.length for p in some.paths] == [2, 3, 3, 3, 3]
    every = run(*project, "paths", from_id=start, to_id=target, limit=100)
    assert len(every.paths) == 1 + FAN * LEAVES and not every.has_more
    assert [p.length for p in every.paths] == sorted(p.length for p in every.paths)
    assert len({tuple(h.target.id for h in p.hops) for p in every.paths}) == len(every.paths)


def test_impact_leaves_test_code_out_on_request(project):
    load = node(project, "shop.orders.load")
    every = run(*project, "impact", id=load, depth=3)
    labels = {hit.node.label for hit in every.results}
    assert {"helper", "test_load", "test_show", "show"} <= {label.rsplit(".", 1)[-1] for label in labels}
    assert every.tests_left_out == 0
    production = run(*project, "impact", id=load, depth=3, include_tests=False)
    assert [hit.node.label.rsplit(".", 1)[-1] for hit in production.results] == ["show"]
    # helper and test_show are reached and left out; test_load, reached only through helper, never is
    assert production.tests_left_out == 2 and production.total == 1
    assert "2 test symbol(s) left out" in render.impact(production)
    helper = node(project, "helper")
    alone = run(*project, "impact", id=helper, depth=2, include_tests=False)
    assert alone.results == [] and "1 test symbol(s), left out" in alone.note


def test_a_client_with_a_choice_of_paths_is_found_by_each_value(project):
    for prefix in ("/likes", "/comments"):
        found = run(*project, "find", kind="client", filter={"target_path_prefix": prefix})
        assert [c.label for c in found.results] == ["POST api.example.org /{likes|comments}/{id}"], prefix
    assert run(*project, "find", kind="client", filter={"target_path_prefix": "/shares"}).results == []
