"""The code index in the store: exactly the graph's records, rewritten only where they changed, and an
incremental update (warm, or after a restart from the persisted records) equal to a fresh full index."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import backend
from helpers.code_graph import FIXTURES, bump, edit

from graphlore.errors import IndexCorrupted
from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.code_index import CodeIndex
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.index.persist import FORMAT


def dump(store) -> tuple[dict, dict]:
    """Every node (kind, name, text, props, text hash) and edge (src, dst, type, props) by id, and keys."""
    nodes = {n.id: (n.kind, n.name, n.text, n.props, n.text_hash) for n in store.iter_nodes()}
    edges = {e.id: (e.src, e.dst, e.type, e.props) for e in store.edges_of(list(nodes), direction="both").edges}
    return nodes, edges


def keys_of(store, ids) -> dict:
    """Lookup keys per node, read back through the keys the records say a node has."""
    return {node_id: sorted(k for k, owners in store.nodes_by_keys(
        [f"fqn:{n.props['fqn']}" for n in store.get_nodes([node_id]) if "fqn" in n.props]).items() if node_id in owners)
        for node_id in ids}


def fresh_dump(tree: Path, home: Path, embedder) -> tuple[dict, dict]:
    runtime = Runtime(backend.settings_for(home), embedder=embedder)
    try:
        index = CodeIndex(runtime, tree)
        index.sync()
        return dump(index.store())
    finally:
        runtime.close()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "system"
    root.mkdir()
    for name in ("java-shop", "py-shop", "ts-shop"):
        shutil.copytree(FIXTURES / name, root / name)
    return root


def test_the_store_holds_exactly_the_graph(runtime, tree):
    index = CodeIndex(runtime, tree)
    report = index.sync()
    assert report.status == "created" and report.files == 26
    nodes, edges = dump(index.store())
    graph_nodes, graph_edges = CodeGraph.build(tree).snapshot()
    assert set(nodes) == set(graph_nodes) and set(edges) == set(graph_edges)
    for node_id, node in graph_nodes.items():
        kind, name, _, props, _ = nodes[node_id]
        assert (kind, name) == (node.kind, node.name)
        # the store adds hidden filter helpers (``_``); the graph's own hidden props (a service's ``_env_sources``,
        # read by describe) are stored as they are
        assert {k: v for k, v in props.items() if not k.startswith("_") or k in node.props} == node.props
    for edge_id, edge in graph_edges.items():
        assert edges[edge_id] == (edge.src, edge.dst, edge.type, edge.props)
    store = index.store()
    [money] = store.nodes_by_keys(["fqn:com.shop.common.Money"])["fqn:com.shop.common.Money"]
    assert store.get_nodes([money])[0].props["symbol_kind"] == "record"
    # a second run with nothing changed writes nothing
    assert index.sync().status == "unchanged"


def test_a_body_edit_rewrites_only_what_moved(runtime, tree):
    index = CodeIndex(runtime, tree)
    index.sync()
    edit(tree, "java-shop/orders/src/main/java/com/shop/orders/service/OrderServiceImpl.java",
         "repository.findAll();", "find(\"x\");")
    report = index.sync()
    assert (report.parsed, report.resolved, report.restored) == (1, 1, False)
    assert 0 < report.nodes_written < 10 and report.nodes_deleted == 0
    assert report.edges_written >= 1 and report.edges_deleted >= 0


@pytest.mark.parametrize("restart", [False, True], ids=["warm", "after-restart"])
def test_incremental_index_equals_a_full_index(embedder, tmp_path, tree, restart):
    home = tmp_path / "home"
    J = "java-shop/orders/src/main/java/com/shop/orders"
    changes = [
        lambda: edit(tree, f"{J}/service/OrderServiceImpl.java", "repository.findAll();", "find(\"x\");"),
        lambda: edit(tree, f"{J}/service/OrderService.java", "\n    Order place(Order order, String note);\n", "\n"),
        lambda: (tree / "java-shop/common/src/main/java/com/shop/common/Texts.java").unlink(),
        lambda: edit(tree, "py-shop/pyshop/models.py", "class Money:\n",
                     "class Money:\n    def describe(self):\n        return 'money'\n\n"),
        lambda: (tree / "py-shop/pyshop/service.py").rename(tree / "py-shop/pyshop/services.py"),
        lambda: edit(tree, "java-shop/billing/src/main/resources/application.properties", "billing-svc",
                     "invoicing-svc"),
        lambda: bump(tree / "ts-shop/packages/core/src/models.ts"),
    ]
    runtime = Runtime(backend.settings_for(home), embedder=embedder)
    CodeIndex(runtime, tree).sync()
    for number, change in enumerate(changes):
        change()
        if restart:
            runtime.close()
            runtime = Runtime(backend.settings_for(home), embedder=embedder)
        index = CodeIndex(runtime, tree)
        report = index.sync()
        assert report.restored is restart and report.status == "updated"
        assert dump(index.store()) == fresh_dump(tree, tmp_path / f"full{number}", embedder), f"after change {number}"
    runtime.close()


@pytest.mark.parametrize("path, why", [
    ("/", "is the filesystem root, not one source tree"),
    ("~", "is your home folder, not one source tree"),
    ("/tmp/a\x00b", "is not a usable path"),
    ("/tmp/" + "a" * 300, "is not a usable path"),
    ("/dev/null", "is not a folder"),
])
def test_project_paths_that_cannot_be_one_source_tree_are_refused_before_any_walk(path, why, tmp_path):
    """Found by the fuzzer: project_path "/" (or "~", or ".." from a server started in a big folder) made a
    query tool walk and parse everything under it inside one call; a NUL byte or a too long name escaped
    as an OS error."""
    from graphlore.errors import InvalidInput

    home = tmp_path / "home"
    runtime = Runtime(backend.settings_for(home))
    try:
        with pytest.raises(InvalidInput, match=why):
            CodeIndex(runtime, path)
    finally:
        runtime.close()
    assert not (home / "code").exists()


def test_a_project_that_does_not_exist_is_not_found_and_indexes_nothing(tmp_path):
    """An unknown project answers not_found, as an unknown skill library or facts graph does (issue 21)."""
    from graphlore.errors import NotFound

    home = tmp_path / "home"
    runtime = Runtime(backend.settings_for(home))
    try:
        with pytest.raises(NotFound, match="does not exist; give the root"):
            CodeIndex(runtime, tmp_path / "nowhere")
    finally:
        runtime.close()
    assert not (home / "code").exists()


def test_an_index_of_another_format_is_never_read_as_this_one(runtime, tree):
    """An index whose records an earlier version wrote (`persist.FORMAT`) would keep every unchanged file's facts
    as that version read them: it is refused with the command that rebuilds it, never updated."""
    index = CodeIndex(runtime, tree)
    index.sync()
    index.store().set_meta("code_format", FORMAT - 1)
    bump(next(tree.rglob("*.py")))
    with pytest.raises(IndexCorrupted, match="built by another graphlore version.*--force"):
        index.sync()


def test_stored_facts_read_back_equal_to_the_extracted_ones():
    """Restored facts are what an update resolves unchanged files from: every field a reader uses must survive
    the round trip (a chain link's own line, ``name_line``, once did not)."""
    from graphlore.toolsets.code.index.persist import decode_facts, encode_facts
    from graphlore.toolsets.code.languages.java.extract import extract

    src = (b"package shop;\n\nclass Handlers {\n  Object handlers() {\n    return Builder\n"
           b"      .forAggregateType(\"shop.Order\")\n      .onEvent(Object.class, this::on)\n      .build();\n  }\n}\n")
    facts = extract("src/main/java/shop/Handlers.java", src)
    assert any(call.name_line for call in facts.calls)
    assert decode_facts(encode_facts(facts)) == facts
