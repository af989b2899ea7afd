"""Incremental updates equal full builds: after every edit, deletion, rename, new package folder or
build-file change, the updated graph is compared with a fresh build of the same tree."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers.code_graph import FIXTURES, bump, edit, render

from graphlore.toolsets.code.index.graph import CodeGraph


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "system"
    root.mkdir()
    for name in ("java-shop", "py-shop", "ts-shop"):
        shutil.copytree(FIXTURES / name, root / name)
    return root


def assert_same_as_full(graph: CodeGraph, root: Path) -> list[str]:
    lines = render(graph)
    assert lines == render(CodeGraph.build(root))
    return lines


def test_incremental_equals_full_after_a_series_of_changes(tree):
    graph = CodeGraph.build(tree)
    total = len(graph.facts)
    J = "java-shop/orders/src/main/java/com/shop/orders"

    # 1. a body-only edit: one file parsed, only that file resolved again
    edit(tree, f"{J}/service/OrderServiceImpl.java", "repository.findAll();", "find(\"x\");")
    stats = graph.update()
    assert (stats.parsed, stats.resolved) == (1, 1)
    lines = assert_same_as_full(graph, tree)
    assert ("E CALLS com.shop.orders.service.OrderServiceImpl#sweep() -> "
            "com.shop.orders.service.OrderServiceImpl#find(String) [same_class]") in lines

    # 2. a touch without a content change parses nothing
    bump(tree / f"{J}/service/OrderServiceImpl.java")
    stats = graph.update()
    assert (stats.read, stats.parsed, stats.resolved) == (1, 0, 0)

    # 3. an interface loses an overload: the unchanged implementation's edges change
    edit(tree, f"{J}/service/OrderService.java", "\n    Order place(Order order, String note);\n", "\n")
    stats = graph.update()
    assert stats.parsed == 1 and 1 < stats.resolved < total
    lines = assert_same_as_full(graph, tree)
    assert not any("OVERRIDES com.shop.orders.service.OrderServiceImpl#place(Order,String)" in line for line in lines)

    # 4. a called file is deleted: the static-imported call in an unchanged file becomes unresolved
    (tree / "java-shop/common/src/main/java/com/shop/common/Texts.java").unlink()
    graph.update()
    lines = assert_same_as_full(graph, tree)
    assert ("U com.shop.orders.service.OrderServiceImpl#place(Order,int) calls clean line=28 "
            "reason=external_name") in lines

    # 5. a new method with a name that a name-only call matched: that call becomes ambiguous
    edit(tree, "py-shop/pyshop/models.py", "class Money:\n",
         "class Money:\n    def describe(self):\n        return 'money'\n\n")
    graph.update()
    lines = assert_same_as_full(graph, tree)
    assert "U pyshop.service.helper.inner calls order.describe line=29 reason=ambiguous" in lines

    # 6. a file is renamed: imports through the re-exporting index break, then are repaired
    core = tree / "ts-shop/packages/core/src"
    (core / "repo.ts").rename(core / "repository.ts")
    graph.update()
    lines = assert_same_as_full(graph, tree)
    assert not any(line.startswith("E INJECTS ts-shop/packages/api/src/orders.controller.ts#OrderService ->")
                   for line in lines)
    assert any(line.startswith("E INJECTS ts-shop/packages/api/src/orders.controller.ts#OrdersController ->")
               for line in lines)
    edit(tree, "ts-shop/packages/core/src/index.ts", '"./repo"', '"./repository"')
    graph.update()
    lines = assert_same_as_full(graph, tree)
    assert ("E INJECTS ts-shop/packages/api/src/orders.controller.ts#OrderService -> "
            "ts-shop/packages/core/src/repository.ts#OrderRepo [constructor:repo]") in lines

    # 7. a new __init__.py turns tests/ into a package: module names change
    (tree / "py-shop/tests/__init__.py").write_text("", encoding="utf-8")
    graph.update()
    lines = assert_same_as_full(graph, tree)
    assert any(line.startswith("N function tests.test_service.test_build ") for line in lines)

    # 8. a service is renamed in its bootstrap.yml: every file of it moves
    edit(tree, "java-shop/orders/src/main/resources/bootstrap.yml", "name: orders", "name: orders-v2")
    stats = graph.update()
    assert stats.layout_changed and stats.parsed == 0
    lines = assert_same_as_full(graph, tree)
    assert "S orders-v2 root=java-shop/orders deployable=True declared=artifactId=orders-app,spring.application.name=orders-v2" in lines

    # 9. a file is added that makes an unresolved call resolvable again, in an unchanged file
    shutil.copy(FIXTURES / "java-shop/common/src/main/java/com/shop/common/Texts.java",
                tree / "java-shop/common/src/main/java/com/shop/common/Texts.java")
    graph.update()
    lines = assert_same_as_full(graph, tree)
    assert ("E CALLS com.shop.orders.service.OrderServiceImpl#place(Order,int) -> com.shop.common.Texts#clean(String) "
            "[static_import]") in lines

    # 10. a method another file calls through a typed receiver disappears (Python and TS)
    edit(tree, "py-shop/pyshop/models.py", "    def plus(self,", "    def plus_renamed(self,")
    edit(tree, "ts-shop/packages/core/src/models.ts", "  plus(other: Money)", "  plusRenamed(other: Money)")
    graph.update()
    lines = assert_same_as_full(graph, tree)
    assert not any(line.endswith("pyshop.models.Money.plus [inferred_type]") for line in lines)
    assert not any("#Money.plus [" in line for line in lines)

    # 11. a supertype changes: the subclass (unchanged) loses its inherited call target
    edit(tree, "py-shop/pyshop/repo.py", "    def _load(self, key):\n        return None\n", "")
    graph.update()
    lines = assert_same_as_full(graph, tree)
    assert not any("-> pyshop.repo.BaseRepo._load" in line for line in lines)


SNIPPETS = {
    ".java": "\n    public String extra{n}() {{ return describe() + find(\"{n}\"); }}\n",
    ".py": "\n\ndef extra_{n}(order):\n    return helper(order).describe()\n\n\nclass Extra{n}(OrderRepo):\n    def get(self, key):\n        return self._load(key)\n",
    ".ts": "\nexport class Extra{n} extends OrderRepo {{ get(id: string) {{ return this.load(id); }} }}\n",
    ".js": "\nfunction extra{n}() {{ return log('{n}'); }}\n",
}


MEMBER_RENAMES = {
    ".java": (r"(public \w+ )(\w+)\(", r"\1\2R("),
    ".py": (r"def (\w+)\(self", r"def \1_r(self"),
    ".ts": (r"^(\s+)(\w+)\((\w+): ", r"\1\2R(\3: "),
    ".js": (r"function (\w+)\(", r"function \1R("),
}


@pytest.mark.parametrize("seed", [1, 2, *(pytest.param(n, marks=pytest.mark.slow) for n in (3, 4, 5))])
def test_incremental_equals_full_after_random_changes(tree, seed):
    """Seeded random deletions, restorations, renames, additions and package-folder changes."""
    import random

    rng = random.Random(seed)
    graph = CodeGraph.build(tree)
    deleted: dict[Path, bytes] = {}
    for step in range(24):
        sources = sorted(p for p in tree.rglob("*") if p.suffix in SNIPPETS and p.is_file())
        action = rng.choice(["delete", "restore", "append", "append", "rename", "package", "member", "member"])
        if action == "delete" and sources:
            path = rng.choice(sources)
            deleted[path] = path.read_bytes()
            path.unlink()
        elif action == "restore" and deleted:
            path = rng.choice(sorted(deleted))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(deleted.pop(path))
        elif action == "append" and sources:
            path = rng.choice(sources)
            text = path.read_text(encoding="utf-8")
            snippet = SNIPPETS[path.suffix].format(n=step)
            if path.suffix == ".java":
                cut = text.rstrip().rfind("}")
                text = text[:cut] + snippet + text[cut:]
            else:
                text += snippet
            path.write_text(text, encoding="utf-8")
            bump(path)
        elif action == "member" and sources:
            # rename one declared method: callers in other (unchanged) files must follow
            path = rng.choice(sources)
            pattern, repl = MEMBER_RENAMES[path.suffix]
            text = path.read_text(encoding="utf-8")
            path.write_text(re.sub(pattern, repl, text, count=1, flags=re.M), encoding="utf-8")
            bump(path)
        elif action == "rename" and sources:
            path = rng.choice(sources)
            path.rename(path.with_name(f"moved{step}_{path.name}"))
        elif action == "package":
            init = tree / "py-shop" / "tests" / "__init__.py"
            if init.exists():
                init.unlink()
            else:
                init.write_text("", encoding="utf-8")
        if step % 3 == 2:
            graph.update()
            assert_same_as_full(graph, tree)
    graph.update()
    assert_same_as_full(graph, tree)
