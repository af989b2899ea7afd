"""The code tools against the fixture systems: answers checked against the in-memory graph (brute force),
every strict rule as a test, and empty results that say why."""

from __future__ import annotations

import itertools
import json
import random
import shutil

import pytest
from helpers import backend
from helpers.code_graph import FIXTURES, edit

from graphlore.contract import parse_request
from graphlore.errors import InvalidInput, NotFound
from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.model import EDGE_TYPES, ROLES
from graphlore.toolsets.code.query import models, tools
from graphlore.toolsets.code.query.edge_keys import EDGE_KEYS
from graphlore.toolsets.code.query.filters import FIELDS


@pytest.fixture(scope="module")
def system(tmp_path_factory, embedder):
    """(runtime, tree, nodes, edges): the three fixture systems in one tree, indexed without embeddings."""
    base = tmp_path_factory.mktemp("code-tools")
    tree = base / "system"
    tree.mkdir()
    for name in ("java-shop", "py-shop", "ts-shop"):
        shutil.copytree(FIXTURES / name, tree / name)
    runtime = Runtime(backend.settings_for(base / "home"), embedder=embedder)
    run(runtime, "index", project_path=str(tree), embed=False)
    nodes, edges = CodeGraph.build(tree).snapshot()
    yield runtime, tree, nodes, edges
    runtime.close()


def run(runtime: Runtime, tool: str, **fields):
    request = parse_request(getattr(models, f"{tool.capitalize()}Request"), fields)
    return getattr(tools, tool)(runtime, request)


def call(system, tool: str, **fields):
    runtime, tree = system[0], system[1]
    return run(runtime, tool, project_path=str(tree), **fields)


def find_all(system, kind: str, filter_) -> list[str]:
    out, offset = [], 0
    while True:
        page = call(system, "find", kind=kind, filter=filter_, limit=7, offset=offset)
        out += [r.id for r in page.results]
        if not page.has_more:
            assert len(out) == page.total
            return out
        offset += 7


def brute(nodes, kind: str, filter_: dict) -> set[str]:
    """What a filter means, computed from the records without the store."""
    def passes(node) -> bool:
        p = node.props
        for field, wanted in filter_.items():
            values = wanted if isinstance(wanted, list) else [wanted]
            if field == "exclude_roles":
                ok = p["role"] not in values
            elif field == "fqn_prefix":
                ok = any(p["fqn"] == v or (p["fqn"].startswith(v) and p["fqn"][len(v)] in ".#/") for v in values)
            elif field == "file_prefix":
                ok = any(p["file"] == v or p["file"].startswith(v + "/") for v in values)
            elif field == "annotation":
                ok = any(v in p["annotations"] for v in values)
            elif field == "capability":
                ok = any(v in p["capabilities"] for v in values)
            elif kind == "microservice" and field == "name":
                ok = node.name in values
            else:
                ok = p.get(field) in values
            if not ok:
                return False
        return True
    return {n.id for n in nodes.values() if n.kind == kind and passes(n)}


# -- find ---------------------------------------------------------------------------------------------


FILTERS = [
    {},
    {"role": "SERVICE"},
    {"role": ["SERVICE", "REPOSITORY"], "language": "java"},
    {"exclude_roles": ["OTHER", "TEST"], "symbol_kind": "class"},
    {"role": "SERVICE", "exclude_roles": "SERVICE"},
    {"microservice": "orders", "symbol_kind": ["method", "constructor"]},
    {"fqn_prefix": "com.shop"},
    {"fqn_prefix": ["com.shop.orders.service.OrderServiceImpl", "pyshop.models"]},
    {"fqn_prefix": "com.sho"},
    {"file_prefix": "java-shop/orders/src/main/java/com/shop/orders/api"},
    {"file_prefix": "py-shop/pyshop/models.py"},
    {"annotation": ["Service", "app.get"]},
    {"capability": "HTTP_ENDPOINT", "language": ["java", "python", "typescript"]},
    {"generated": True},
    {"generated": False, "module": "py-shop"},
]


@pytest.mark.parametrize("filter_", FILTERS, ids=[json.dumps(f) for f in FILTERS])
def test_find_returns_exactly_what_the_filter_means_paginated(system, filter_):
    found = find_all(system, "symbol", filter_)
    assert len(found) == len(set(found))
    assert set(found) == brute(system[2], "symbol", filter_)


def test_find_random_filter_combinations_match_brute_force(system):
    nodes = system[2]
    symbols = [n for n in nodes.values() if n.kind == "symbol"]
    rng = random.Random(7)
    for _ in range(25):
        sample = rng.choice(symbols).props
        fields = rng.sample(["microservice", "module", "language", "role", "symbol_kind", "generated"], 2)
        filter_ = {f: sample[f] for f in fields}
        page = call(system, "find", kind="symbol", filter=filter_, limit=500)
        assert {r.id for r in page.results} == brute(nodes, "symbol", filter_) and page.total == len(page.results)


def test_find_lists_services_and_modules(system):
    services = call(system, "find", kind="microservice", filter={"deployable": True})
    assert {r.name for r in services.results} == {n.name for n in system[2].values()
                                                    if n.kind == "microservice" and n.props["deployable"]}
    modules = call(system, "find", kind="module", filter={"microservice": "orders"})
    assert [r.label for r in modules.results] == ["java-shop/orders"]


def test_filter_may_arrive_as_a_json_string_and_is_held_to_the_same_rules(system):
    as_text = call(system, "find", kind="symbol", filter='{"role": ["SERVICE"], "language": "java"}')
    as_object = call(system, "find", kind="symbol", filter={"role": ["SERVICE"], "language": "java"})
    assert as_text.results == as_object.results and as_text.filter == {"role": ["SERVICE"], "language": ["java"]}
    with pytest.raises(InvalidInput, match="unknown filter field 'rol'"):
        parse_request(models.FindRequest, {"project_path": ".", "kind": "symbol", "filter": '{"rol": "SERVICE"}'})
    with pytest.raises(InvalidInput, match="not JSON"):
        parse_request(models.FindRequest, {"project_path": ".", "kind": "symbol", "filter": "role=SERVICE"})
    with pytest.raises(InvalidInput, match="must be an object"):
        parse_request(models.FindRequest, {"project_path": ".", "kind": "symbol", "filter": '["SERVICE"]'})


def find_error(filter_, kind="symbol") -> str:
    with pytest.raises(InvalidInput) as caught:
        parse_request(models.FindRequest, {"project_path": ".", "kind": kind, "filter": filter_})
    return caught.value.message


def test_strict_filter_errors_teach_the_contract():
    symbol_fields = ", ".join(FIELDS["symbol"])
    message = find_error({"fqn_prefix": "no.such.pkg", "kind": "client"})
    assert "'kind' is not a filter field: it goes beside the filter, as kind" in message and symbol_fields in message
    message = find_error({"deployable": True})
    assert "'deployable' is a filter field of kind microservice, not of kind symbol" in message
    assert symbol_fields in message
    message = find_error({"nme": "x"}, kind="microservice")
    assert "unknown filter field 'nme'" in message and "microservice filter fields: name, deployable" in message
    message = find_error({"role": "service"})
    assert "did you mean 'SERVICE'" in message and ", ".join(ROLES) in message
    assert "valid values: java, python, typescript, javascript, go, kotlin, csharp, php, ruby, rust, cpp, proto" in find_error({"language": "cobol"})
    assert "true or false" in find_error({"generated": "true"})
    assert "empty list" in find_error({"role": []})
    assert "non-empty string" in find_error({"microservice": 3})
    with pytest.raises(InvalidInput, match="Valid fields"):
        parse_request(models.FindRequest, {"project_path": ".", "kind": "symbol", "filters": {}})
    with pytest.raises(InvalidInput, match="'symbol', 'microservice', 'module', 'route', 'client' or 'producer'"):
        parse_request(models.FindRequest, {"project_path": ".", "kind": "widget"})
    message = find_error({"path_prefix": "/api"})
    assert "'path_prefix' is a filter field of kind route, not of kind symbol" in message


def test_a_bad_request_changes_nothing(tmp_path, embedder):
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    with pytest.raises(InvalidInput):
        run(runtime, "find", project_path=str(FIXTURES / "py-shop"), kind="symbol", filter={"x": 1})
    assert not (tmp_path / "home").exists()
    with pytest.raises(NotFound, match="does not exist"):
        run(runtime, "find", project_path=str(tmp_path / "nowhere"), kind="symbol")
    assert not (tmp_path / "home").exists()


def test_empty_results_say_why(system):
    out = call(system, "find", kind="symbol", filter={"microservice": "nope"})
    assert out.total == 0 and "no symbol in microservice 'nope'; microservices are: " in out.note
    assert "orders" in out.note and "billing-svc" in out.note
    out = call(system, "find", kind="symbol", filter={"fqn_prefix": "com.shop.orderz.Thing"})
    assert "the longest prefix of 'com.shop.orderz.Thing' that matches is 'com.shop'" in out.note
    out = call(system, "find", kind="symbol", filter={"microservice": "orders", "language": "python"})
    assert "each condition matches on its own" in out.note
    out = call(system, "find", kind="symbol", filter={"role": "SERVICE"}, offset=10_000)
    assert out.results == [] and "past the end" in out.note and out.total > 0


# -- describe and neighbors --------------------------------------------------------------------------


def by_fqn(system, fqn: str):
    [node] = [n for n in system[2].values() if n.props.get("fqn") == fqn]
    return node


IMPL = "com.shop.orders.service.OrderServiceImpl"


def declared(edges, node_id: str) -> set[str]:
    """The DECLARES closure of a node, from the records."""
    members: set[str] = set()
    frontier = {node_id}
    while frontier:
        frontier = {e.dst for e in edges.values() if e.type == "DECLARES" and e.src in frontier} - members
        members |= frontier
    return members


def test_describe_by_id_and_by_fqn_with_edge_counts_and_member_rollups(system):
    nodes, edges = system[2], system[3]
    impl = by_fqn(system, IMPL)
    out = call(system, "describe", id=impl.id)
    assert out == call(system, "describe", fqn=IMPL).model_copy(update={"index_status": out.index_status})
    assert out.attributes["role"] == "SERVICE" and out.node.label == IMPL
    assert not any(k.startswith("_") for k in out.attributes)
    members = declared(edges, impl.id)
    assert out.members == len(members)
    expected = {}
    for edge in edges.values():
        for end, direction in ((edge.src, "out"), (edge.dst, "in")):
            if end == impl.id:
                expected[f"{edge.type} {direction}"] = expected.get(f"{edge.type} {direction}", 0) + 1
            if end in members:
                key = f"{edge.type} {direction} (via members)"
                expected[key] = expected.get(key, 0) + 1
    assert out.edge_summary == expected
    assert out.edge_summary["CALLS out (via members)"] > 0 and "CALLS out" not in out.edge_summary
    with pytest.raises(NotFound, match="resolve"):
        call(system, "describe", fqn="com.shop.orders.service.OrderServiceImp")
    with pytest.raises(InvalidInput, match="exactly one of id or fqn"):
        parse_request(models.DescribeRequest, {"project_path": ".", "id": "x", "fqn": "y"})
    del nodes


def test_neighbors_follow_stored_reversed_and_member_keys(system):
    edges = system[3]
    place = by_fqn(system, "com.shop.orders.service.OrderService#place(Order,int)")
    overriders = call(system, "neighbors", id=place.id, edge_types=["OVERRIDDEN_BY"])
    assert {n.node.id for n in overriders.neighbors} == {e.src for e in edges.values()
                                                         if e.type == "OVERRIDES" and e.dst == place.id} != set()
    assert all(n.direction == "in" and n.edge_type == "OVERRIDES" for n in overriders.neighbors)
    assert call(system, "neighbors", id=place.id, edge_types=["OVERRIDES"], direction="in").total == overriders.total

    impl = by_fqn(system, IMPL)
    out = call(system, "neighbors", id=impl.id, edge_types=["DECLARES.CALLS"], limit=500)
    members = declared(edges, impl.id)  # inner classes' members too
    assert {(n.via.id, n.node.id) for n in out.neighbors} == {(e.src, e.dst) for e in edges.values()
                                                             if e.type == "CALLS" and e.src in members}
    calls = [n for n in out.neighbors if n.props]
    assert all({"resolution", "confidence", "lines"} <= set(n.props) for n in calls)
    both = call(system, "neighbors", id=impl.id, direction="both", limit=500)
    expected = {e.id for e in edges.values() if impl.id in (e.src, e.dst)}
    assert both.total == len(expected) and len(both.neighbors) == len(expected)
    assert set(both.counts) == set(EDGE_TYPES)


def test_neighbors_paginate_across_keys_and_list_unresolved_calls(system):
    impl = by_fqn(system, IMPL)
    keys = ["DECLARES", "DECLARES.CALLS", "INJECTS"]
    whole = call(system, "neighbors", id=impl.id, edge_types=keys, limit=500)
    pages = list(itertools.chain.from_iterable(
        call(system, "neighbors", id=impl.id, edge_types=keys, limit=4, offset=o).neighbors
        for o in range(0, whole.total, 4)))
    assert pages == whole.neighbors and whole.total == sum(whole.counts.values())
    out = call(system, "neighbors", id=impl.id, edge_types=["DECLARES.CALLS"], include_unresolved=True)
    sites = [s for n in system[2].values() if n.props.get("fqn", "").startswith(IMPL + "#")
             for s in n.props.get("unresolved_calls", [])]
    assert out.unresolved_total == len(sites) > 0
    assert {(u.name, u.line, u.reason) for u in out.unresolved} == {(s["name"], s["line"], s["reason"]) for s in sites}


def test_neighbors_errors_and_empty_answers(system):
    with pytest.raises(NotFound, match="resolve"):
        call(system, "neighbors", id="sym_0000")
    with pytest.raises(InvalidInput) as caught:
        parse_request(models.NeighborsRequest, {"project_path": ".", "id": "x", "edge_types": ["CALLERS"]})
    assert "'CALLED_BY'" in caught.value.message and "'DECLARES.CALLS'" in caught.value.message
    assert set(EDGE_KEYS) >= {"OVERRIDDEN_BY", "DECLARES.CALLS", "CALLED_BY"}
    money = by_fqn(system, "com.shop.common.Money")
    out = call(system, "neighbors", id=money.id, edge_types=["OVERRIDDEN_BY"])
    assert out.total == 0 and "has no OVERRIDDEN_BY edges in direction out; its edges: " in out.note


# -- search and resolve --------------------------------------------------------------------------------


def test_search_ranks_by_bm25_until_embedded_and_says_so(system):
    out = call(system, "search", query="getCustomer", kind="symbol", filter={"language": "java"})
    assert out.ranking == "bm25" and "embeddings are done for 0 of" in out.note
    assert out.results[0].node.label == "com.shop.orders.domain.Order#getCustomer()"
    split = call(system, "search", query="customer", kind="symbol", filter={"symbol_kind": "method"})
    assert "com.shop.orders.domain.Order#getCustomer()" in [h.node.label for h in split.results]
    filtered = call(system, "search", query="order", kind="symbol", filter={"fqn_prefix": "pyshop"}, limit=50)
    assert filtered.results and all(h.node.label.startswith("pyshop") for h in filtered.results)
    none = call(system, "search", query="zzzqqq")
    assert none.results == [] and "no indexed name" in none.note
    with pytest.raises(InvalidInput, match="filter needs kind: "):
        parse_request(models.SearchRequest, {"project_path": ".", "query": "x", "filter": {"role": "SERVICE"}})


def test_resolve_one_many_none_and_refuses_patterns(system):
    one = call(system, "resolve", identifier=IMPL)
    assert (one.status, one.reason, one.node.label) == ("one", "exact_fqn", IMPL)
    many = call(system, "resolve", identifier="place")
    labels = {c.node.label for c in many.candidates}
    assert many.status == "many" and many.total_candidates == len(labels) >= 6
    assert all(c.reason == "simple_name" and c.score == 0.7 for c in many.candidates)
    tail = call(system, "resolve", identifier="OrderServiceImpl#place(Order,int)")
    assert (tail.status, tail.reason, tail.node.label) == ("one", "without_package_prefix", f"{IMPL}#place(Order,int)")
    no_params = call(system, "resolve", identifier=f"{IMPL}#place")
    assert no_params.status == "many" and no_params.candidates[0].reason == "fqn_without_parameters"
    lower = call(system, "resolve", identifier=IMPL.lower())
    assert (lower.status, lower.reason) == ("one", "case_insensitive_fqn")
    path = call(system, "resolve", identifier="pyshop/models.py")
    assert (path.status, path.reason, path.node.label) == ("one", "file_path", "pyshop.models")
    klass = call(system, "resolve", identifier="Money")
    assert klass.status == "many"  # a Java record and a Python class
    java = call(system, "resolve", identifier="Money", hint_kind="record")
    assert (java.status, java.node.label) == ("one", "com.shop.common.Money")
    as_module = call(system, "resolve", identifier="pyshop.models", hint_kind="module")
    assert (as_module.status, as_module.node.kind, as_module.node.symbol_kind) == ("one", "symbol", "module")
    build_module = call(system, "resolve", identifier="java-shop/orders", hint_kind="module")
    assert (build_module.status, build_module.node.kind) == ("one", "module")
    lower = call(system, "resolve", identifier="GETCUSTOMER")
    assert (lower.status, lower.reason, lower.node.label) == (
        "one", "case_insensitive_name", "com.shop.orders.domain.Order#getCustomer()")
    service = call(system, "resolve", identifier="billing-svc", hint_kind="microservice")
    assert (service.status, service.node.kind) == ("one", "microservice")
    none = call(system, "resolve", identifier="OrdrServce")
    assert none.status == "none" and "com.shop.orders.service.OrderService" in none.closest and none.why
    by_id = call(system, "resolve", identifier=one.node.id)
    assert (by_id.status, by_id.reason) == ("one", "id")
    for pattern in ("com.shop.*", "Order*", "place?"):
        with pytest.raises(InvalidInput, match=r"use find with the kind symbol and the filter field fqn_prefix.*use search"):
            call(system, "resolve", identifier=pattern)


def test_resolve_one_lists_weaker_matches_instead_of_hiding_them(system):
    out = call(system, "resolve", identifier="Status")
    assert (out.status, out.reason, out.node.label) == ("one", "simple_name", "com.shop.orders.domain.Order.Status")
    assert [(c.node.label, c.reason) for c in out.weaker_matches] == [
        ("com.shop.orders.domain.Order#status", "case_insensitive_name")]


# -- freshness -------------------------------------------------------------------------------------------


def test_every_answer_says_how_fresh_the_index_is(tmp_path, embedder):
    tree = tmp_path / "py"
    shutil.copytree(FIXTURES / "py-shop", tree)
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    status = run(runtime, "status", project_path=str(tree))
    assert status.exists is False and status.index_status.files_changed == len(status.stale_files) > 0
    first = run(runtime, "find", project_path=str(tree), kind="symbol", filter={"symbol_kind": "class"})
    assert first.index_status.refreshed and first.index_status.indexed_at and first.total > 0
    again = run(runtime, "find", project_path=str(tree), kind="symbol", filter={"symbol_kind": "class"})
    assert not again.index_status.refreshed and again.index_status.files_changed == 0
    edit(tree, "pyshop/models.py", "class Money:\n", "class Money:\n    pass\n\n\nclass Coin:\n")
    status = run(runtime, "status", project_path=str(tree))
    assert status.stale_files == ["pyshop/models.py"] and status.index_status.files_changed == 1
    after = run(runtime, "find", project_path=str(tree), kind="symbol", filter={"symbol_kind": "class"})
    assert after.index_status.refreshed and after.total == first.total + 1
    runtime.close()


def test_search_leaves_out_hits_on_words_that_carry_no_weight(tmp_path, embedder):
    """A word in more than half of the nodes gets BM25's idf floor: such hits score ~0. Beside hits that
    score they are left out; alone, they come back with a note saying the order is no ranking."""
    tree = tmp_path / "tree"
    (tree / "acme").mkdir(parents=True)
    (tree / "acme" / "__init__.py").write_text("", encoding="utf-8")
    (tree / "acme" / "ledger.py").write_text(
        "class AcmeLedger:\n    def acme_post(self):\n        return 1\n\n    def acme_refund_invoice(self):\n"
        "        return 2\n", encoding="utf-8")
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    run(runtime, "index", project_path=str(tree), embed=False)
    common = run(runtime, "search", project_path=str(tree), query="acme")
    assert common.results and max(h.score for h in common.results) < tools.NO_WEIGHT
    assert "this order is not a ranking" in common.note
    mixed = run(runtime, "search", project_path=str(tree), query="acme invoice")
    assert [h.node.name for h in mixed.results] == ["acme_refund_invoice"]
    assert all(h.score >= tools.NO_WEIGHT for h in mixed.results) and "not a ranking" not in mixed.note
    runtime.close()


def test_index_says_when_a_folder_holds_no_source_and_when_embeddings_were_skipped(tmp_path, embedder):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "readme.md").write_text("# nothing to parse\n", encoding="utf-8")
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    empty = run(runtime, "index", project_path=str(tmp_path / "docs"), embed=False)
    assert empty.files == 0 and "no source file under" in empty.note and ".java" in empty.note
    assert "embeddings skipped" not in empty.note  # nothing to embed
    tree = tmp_path / "py"
    shutil.copytree(FIXTURES / "py-shop", tree)
    skipped = run(runtime, "index", project_path=str(tree), embed=False)
    assert skipped.embed is False and skipped.note.startswith("embeddings skipped")
    assert skipped.index_status.embedded == 0 < skipped.index_status.embeddable
    runtime.close()
