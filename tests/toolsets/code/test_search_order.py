"""Code search order: a symbol named as the query comes first (never under its class), test code after the
code it tests at an equal score (never dropped), and identifier parts of routes and clients are words."""

from __future__ import annotations

from helpers import backend

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.records import bm25_text
from graphlore.toolsets.code.model import GraphNode, node_text
from graphlore.toolsets.code.query import models, tools
from graphlore.toolsets.code.query.models import NodeRef, SearchHit
from graphlore.toolsets.code.query.tools import prefix_words, ranked


def run(runtime: Runtime, tool: str, **fields):
    return getattr(tools, tool)(runtime, parse_request(getattr(models, f"{tool.capitalize()}Request"), fields))


def _hit(name: str, score: float, role: str | None = None, kind: str = "symbol") -> SearchHit:
    return SearchHit(node=NodeRef(id=name, kind=kind, name=name, label=name, role=role), score=score)


def test_a_symbol_named_as_the_query_comes_first():
    hits = [_hit("VectorStoreLoader", 15.6), _hit("loadVetsIntoStore", 14.5), _hit("other", 3.0)]
    assert [h.node.name for h in ranked("load vets into_store", hits)] == [
        "loadVetsIntoStore", "VectorStoreLoader", "other"]
    assert [h.node.name for h in ranked("vector store", hits)] == ["VectorStoreLoader", "loadVetsIntoStore", "other"]


def test_test_code_follows_the_code_at_an_equal_score_and_stays_listed():
    """Only a run of equal scores is reordered: a better-ranked test stays above worse-ranked code (hybrid
    ranks by fusion, whatever the cosine it shows)."""
    hits = [_hit("Checkout", 9.5), _hit("OrderServiceTest", 9.0, "TEST"), _hit("OrderService", 9.0, "SERVICE"),
            _hit("OrderFixture", 2.0, "TEST"), _hit("Orders", 1.0)]
    assert [h.node.name for h in ranked("order", hits)] == [
        "Checkout", "OrderService", "OrderServiceTest", "OrderFixture", "Orders"]


def test_route_and_client_identifier_parts_are_words():
    route = GraphNode("r1", "route", "POST /api/chatClient", node_text("POST /api/chatClient", "x.Chat#send", "", ""),
                      {"label": "POST /api/chatClient"})
    assert bm25_text(route).split("\n")[-1].split() == ["chat", "client"]
    plain = GraphNode("r2", "route", "GET /owners", node_text("GET /owners", "x.Owners#list", "", ""), {})
    assert bm25_text(plain) == plain.text


def test_a_query_word_finds_the_path_segment_it_starts(tmp_path, embedder):
    """BM25 matches whole words: ``chat`` finds the route ``/chatclient`` through the segment words it starts
    (and not a word it is only inside of)."""
    tree = tmp_path / "tree"
    (tree / "bot").mkdir(parents=True)
    (tree / "bot" / "requirements.txt").write_text("flask\n", encoding="utf-8")
    (tree / "bot" / "app.py").write_text(
        "from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.route('/chatclient', methods=['POST'])\n"
        "def exchange():\n    return ''\n\n\n@app.route('/webchat')\ndef page():\n    return ''\n",
        encoding="utf-8")
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    run(runtime, "index", project_path=str(tree), embed=False)
    found = run(runtime, "search", project_path=str(tree), query="chat", kind="route")
    assert [h.node.label for h in found.results] == ["POST /chatclient"]
    assert prefix_words("the chat bots", frozenset({"chatclient", "chat", "webchat", "them", "bots"})) == [
        "chatclient"]
    runtime.close()
