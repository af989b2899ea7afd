"""Code search order: a symbol named as the query comes first (never under its class), test code after the
other hits (never dropped), a type after its matching member, a body's calls and literals are words, and
identifier parts of routes and clients are words."""

from __future__ import annotations

import pytest
from helpers import backend

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.store import Node
from graphlore.toolsets.code.index.records import bm25_text
from graphlore.toolsets.code.model import GraphNode, node_text
from graphlore.toolsets.code.query import models, tools
from graphlore.toolsets.code.query.models import NodeRef, SearchHit
from graphlore.toolsets.code.query.tools import Read, is_accessor, paged, prefix_words, ranked


def run(runtime: Runtime, tool: str, **fields):
    return getattr(tools, tool)(runtime, parse_request(getattr(models, f"{tool.capitalize()}Request"), fields))


def _hit(name: str, score: float, role: str | None = None, kind: str = "symbol") -> SearchHit:
    return SearchHit(node=NodeRef(id=name, kind=kind, name=name, label=name, role=role), score=score)


def test_a_symbol_named_as_the_query_comes_first():
    hits = [_hit("VectorStoreLoader", 15.6), _hit("loadVetsIntoStore", 14.5), _hit("other", 3.0)]
    assert [h.node.name for h in ranked("load vets into_store", hits)] == [
        "loadVetsIntoStore", "VectorStoreLoader", "other"]
    assert [h.node.name for h in ranked("vector store", hits)] == ["VectorStoreLoader", "loadVetsIntoStore", "other"]


def test_test_code_follows_the_code_and_stays_listed_unless_the_query_asks_for_tests():
    """A better-scored test goes below the code (an agent asking where a thing is done wants the code); a query
    word that asks for tests keeps the ranking's order."""
    hits = [_hit("Checkout", 9.5), _hit("OrderServiceTest", 9.0, "TEST"), _hit("OrderService", 9.0, "SERVICE"),
            _hit("OrderFixture", 8.0, "TEST"), _hit("Orders", 1.0)]
    assert [h.node.name for h in ranked("order", hits)] == [
        "Checkout", "OrderService", "Orders", "OrderServiceTest", "OrderFixture"]
    assert [h.node.name for h in ranked("order tests", hits)] == [h.node.name for h in hits]


def test_the_page_gives_the_places_of_tests_to_the_next_code_and_nothing_else():
    """Only the places test code leaves are filled from beyond the page (with code, never tests); a symbol named
    as the query beyond the page stays there."""
    hits = [_hit("OrderTest", 9.0, "TEST"), _hit("Checkout", 8.0), _hit("OrderSpec", 7.0, "TEST"),
            _hit("order", 6.0), _hit("Orders", 5.0), _hit("OrderMore", 4.0, "TEST")]
    assert [h.node.name for h in paged("order", hits, 3)] == ["Checkout", "order", "Orders"]
    assert [h.node.name for h in paged("order", hits, 5)] == ["order", "Checkout", "Orders", "OrderTest", "OrderSpec"]
    assert [h.node.name for h in paged("order tests", hits, 3)] == ["OrderTest", "Checkout", "OrderSpec"]
    code = [_hit("Checkout", 8.0), _hit("Pay", 7.0), _hit("order", 6.0)]
    assert [h.node.name for h in paged("order", code, 2)] == ["Checkout", "Pay"]


def _symbol(fqn: str, score: float, symbol_kind: str) -> SearchHit:
    name = fqn.rsplit("#", 1)[-1].rsplit(".", 1)[-1]
    return SearchHit(node=NodeRef(id=fqn, kind="symbol", name=name, label=fqn, symbol_kind=symbol_kind), score=score)


def test_a_type_follows_its_own_member_that_also_matches():
    hits = [_symbol("vets.VectorStoreController", 9.0, "class"), _symbol("vets.Vet", 8.0, "class"),
            _symbol("vets.VectorStoreController#loadVetDataToVectorStoreOnStartup", 7.0, "method"),
            _symbol("vets.VectorStoreControllerTwo#load", 6.0, "method")]
    assert [h.node.label for h in ranked("load vets into the vector store", hits)] == [
        "vets.Vet", "vets.VectorStoreController#loadVetDataToVectorStoreOnStartup", "vets.VectorStoreController",
        "vets.VectorStoreControllerTwo#load"]
    alone = [hits[0], hits[1], hits[3]]  # no member of it matched: the class keeps its place
    assert ranked("vector store", alone) == alone
    unnamed = [hits[0], _symbol("vets.VectorStoreController#__init__", 8.0, "constructor"),
               _symbol("vets.VectorStoreController#refresh", 7.0, "method")]  # members the query does not name
    assert ranked("vector store data", unnamed) == unnamed


def test_a_function_is_found_by_what_its_body_calls_and_says(tmp_path, embedder):
    """A function whose name says nothing (``caclc``) is found by the names it calls and the words of the string
    literals it passes; the route handler that only calls it, and a test that names the query, come after."""
    tree = tmp_path / "tree"
    (tree / "ship" / "tests").mkdir(parents=True)
    (tree / "ship" / "requirements.txt").write_text("flask\n", encoding="utf-8")
    (tree / "ship" / "app.py").write_text(
        "import logging\nfrom flask import Flask\n\napp = Flask(__name__)\nlog = logging.getLogger('ship')\n\n\n"
        "def caclc(dest):\n    km = haversine_distance(dest)\n    log.info('shipping cost for %s', dest)\n"
        "    return round(km * 0.05, 2)\n\n\n@app.route('/calc/<dest>')\ndef calc(dest):\n"
        "    return {'cost': caclc(dest)}\n", encoding="utf-8")
    (tree / "ship" / "tests" / "test_app.py").write_text(
        "def test_shipping_cost_distance():\n    assert caclc('x') > 0\n", encoding="utf-8")
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    run(runtime, "index", project_path=str(tree), embed=False)
    found = run(runtime, "search", project_path=str(tree), query="shipping cost distance", kind="symbol")
    assert [h.node.name for h in found.results][:1] == ["caclc"]
    assert found.results[-1].node.name == "test_shipping_cost_distance"
    runtime.close()


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


def test_a_method_is_found_by_the_strings_its_annotations_pass(tmp_path, embedder):
    """What a framework is told a method does (a Spring AI ``@Tool`` description, an OpenAPI ``summary``, a Java
    text block) is in its search text; a bare identifier argument (a constant) is not read."""
    tree = tmp_path / "tree"
    src = tree / "genai" / "src" / "main" / "java" / "demo"
    src.mkdir(parents=True)
    (tree / "genai" / "pom.xml").write_text("<project><artifactId>genai</artifactId></project>\n", encoding="utf-8")
    (src / "ClinicTools.java").write_text(
        "package demo;\n\nclass ClinicTools {\n"
        "    @Tool(description = \"List the veterinarians of the clinic\")\n"
        "    public java.util.List<String> vets() { return null; }\n\n"
        "    @Operation(summary = \"Remove a pet from its owner\", description = SOME_CONSTANT)\n"
        "    public void drop(int id) { }\n\n"
        "    @SystemMessage(\"\"\"\n        You are a friendly receptionist of a pet clinic.\n        \"\"\")\n"
        "    public String chat(String q) { return q; }\n}\n", encoding="utf-8")
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    run(runtime, "index", project_path=str(tree), embed=False)

    def first(query: str) -> str:
        found = run(runtime, "search", project_path=str(tree), query=query, kind="symbol")
        return found.results[0].node.name if found.results else ""

    assert first("veterinarians clinic") == "vets"
    assert first("remove pet owner") == "drop"
    assert first("friendly receptionist") == "chat"
    found = run(runtime, "search", project_path=str(tree), query="constant", kind="symbol")
    assert "drop" not in [h.node.name for h in found.results]
    runtime.close()


def test_annotation_words_read_string_arguments_of_every_form():
    """Keyword and positional string arguments as each language writes them (Python decorators, C# attributes,
    TS decorators, Java text blocks); identifiers, numbers and constants are not words of the symbol."""
    from graphlore.toolsets.code.languages.symbols import annotation_words
    from graphlore.toolsets.code.model import AnnotationFact

    said = annotation_words([
        AnnotationFact("router.get", (("", '"/items/{item_id}"'), ("summary", "'Read one stocked item'"))),
        AnnotationFact("EndpointSummary", (("", '"Refund a payment"'),)),
        AnnotationFact("Get", (("", "`shelves/:shelf`"),)),
        AnnotationFact("UserMessage", (("", '"""\n  Translate {{text}} into French\n  """'),)),
        AnnotationFact("Cacheable", (("value", "CACHE_NAME"), ("ttl", "300"))),
    ])
    words = said.split()
    for word in ("items", "item_id", "Read", "stocked", "Refund", "payment", "shelves", "shelf", "Translate",
                 "French"):
        assert word in words
    assert not {"CACHE_NAME", "300", "CACHE", "ttl"} & set(words)


def test_a_declaration_not_named_by_the_query_follows_the_code():
    """A field, a Java file or a package that matched through its owner's or folder's words (``Ship#cost`` for
    "calculate shipping cost") comes after the other code, before test code; one whose own name holds every
    word of the query keeps its place, and so do a Python or TS module whose top-level code runs (``Read.runs``)
    and a setting (role CONFIG: its declaration is the answer)."""
    hits = [_symbol("ship.Ship#cost", 9.0, "field"), _symbol("ship/Calculator.java", 8.5, "file"),
            _symbol("ship", 8.2, "package"), _symbol("ship/app.py", 8.1, "module"),
            _symbol("ship.Controller#caclc", 8.0, "method"), _symbol("ship.Ship#shippingCost", 7.0, "field"),
            _hit("CalculatorTest", 6.5, "TEST"), _symbol("ship.Calculator#getDistance", 6.0, "method")]
    runs = Read(runs=frozenset({"ship/app.py"}))
    assert [h.node.label for h in ranked("calculate shipping cost", hits, runs)] == [
        "ship/app.py", "ship.Controller#caclc", "ship.Calculator#getDistance", "ship.Ship#cost",
        "ship/Calculator.java", "ship", "ship.Ship#shippingCost", "CalculatorTest"]
    assert ranked("shipping costs", hits, runs)[:2] == [hits[3], hits[4]]  # ``shippingCost`` names it (stemmed)
    assert hits[5] in ranked("shipping costs", hits)[:3]
    assert ranked("cost", hits)[0] == hits[0]  # named as the query: first
    setting = SearchHit(node=NodeRef(id="s", kind="symbol", name="DATABASE_URL", label="Settings.DATABASE_URL",
                                     symbol_kind="field", role="CONFIG"), score=9.0)
    method = _symbol("db.Session#connect", 8.0, "method")
    assert ranked("database connection URI", [setting, method]) == [setting, method]


def test_the_page_gives_the_places_of_unnamed_declarations_to_the_next_code():
    hits = [_symbol("pay.Account#authorized", 9.0, "field"), _symbol("pay.PaymentInfo#token", 8.0, "field"),
            _symbol("pay.Handler#authorize", 7.0, "method"), _symbol("pay.Account#process", 6.0, "method"),
            _symbol("pay.Account#balance", 5.0, "field")]
    assert [h.node.label for h in paged("authorize the payment", hits, 3)] == [
        "pay.Handler#authorize", "pay.Account#process", "pay.Account#authorized"]
    fields = [h for h in hits if h.node.symbol_kind == "field"]
    assert paged("authorize the payment", fields, 2) == fields[:2]  # nothing else to give the places to


def _module(path: str, score: float) -> SearchHit:
    return SearchHit(node=NodeRef(id=path, kind="symbol", name=path.rsplit("/", 1)[-1], label=path,
                                  symbol_kind="module"), score=score)


def test_a_module_whose_top_level_runs_nothing_is_a_declaration():
    """A Python or TS/JS module with no top-level code (imports, exports, types: ``models/ShippingRates.ts``)
    matched through its file's words and comes after the code, as a typed language's source file does; one whose
    top-level code runs (``Read.runs``) is code and keeps its place; one its own name answers keeps it too."""
    hits = [_module("checkout/models/ShippingRates.ts", 9.0), _module("checkout/shipping/index.ts", 8.5),
            _symbol("checkout/checkout.service.ts#CheckoutService.update", 8.0, "method")]
    runs = Read(runs=frozenset({"checkout/shipping/index.ts"}))
    assert [h.node.label for h in ranked("checkout total with shipping", hits, runs)] == [
        "checkout/shipping/index.ts", "checkout/checkout.service.ts#CheckoutService.update",
        "checkout/models/ShippingRates.ts"]
    assert [h.node.label for h in paged("checkout total with shipping", hits, 1)] == [
        "checkout/checkout.service.ts#CheckoutService.update"]
    assert ranked("shipping rates", hits, runs) == hits  # ``ShippingRates`` names it


def test_a_generated_symbol_not_named_by_the_query_follows_the_code():
    """A symbol nobody wrote in the source (``Read.generated``: a Lombok getter, a record accessor, a generated
    client's method) that matched through its owner's words comes after the hand-written code, as an unnamed
    declaration does, and before test code; one whose own name holds every word of the query keeps its place;
    the page gives its place to the next hand-written code."""
    hits = [_symbol("hooks.model.Webhook#getPayloadUrl", 9.0, "method"),
            _symbol("hooks.RegistrationClient#SendAsync", 8.5, "method"),
            _hit("WebhookApiTest", 8.2, "TEST"),
            _symbol("hooks.api.WebhookApi#notify", 7.0, "method"),
            _symbol("hooks.model.Webhook#getPayload", 6.0, "method")]
    read = Read(generated=frozenset({"hooks.model.Webhook#getPayloadUrl", "hooks.RegistrationClient#SendAsync",
                                     "hooks.model.Webhook#getPayload"}))
    assert [h.node.label for h in ranked("send the webhook payload", hits, read)] == [
        "hooks.api.WebhookApi#notify", "hooks.model.Webhook#getPayloadUrl", "hooks.RegistrationClient#SendAsync",
        "hooks.model.Webhook#getPayload", "WebhookApiTest"]
    assert ranked("get the payload url", hits, read)[0] == hits[0]  # its own name holds every word
    assert ranked("send the webhook payload", hits) == [hits[0], hits[1], hits[3], hits[4], hits[2]]  # written
    assert [h.node.label for h in paged("send the webhook payload", hits, 2, read)] == [
        "hooks.api.WebhookApi#notify", "hooks.model.Webhook#getPayloadUrl"]


@pytest.mark.slow
def test_fields_that_match_through_their_class_do_not_crowd_out_its_methods(tmp_path, embedder):
    """End to end over Java and C#: the fields and the source file of a class whose name holds the query's words
    score high on BM25 (short text, all of it the class's words) and took places on the page; the methods and
    types come first now, the declarations stay listed after them."""
    from helpers.code_tools import write_tree
    filler = {f"shipping/src/main/java/ship/{name}.java": (
        f"package ship;\n\npublic class {name} {{\n    private double {field};\n\n"
        f"    public double {method}(double x) {{ return {field} * x; }}\n}}\n")
        for name, field, method in (("Tariff", "rate", "price"), ("Zone", "radius", "contains"),
                                    ("Parcel", "weight", "volume"), ("Courier", "speed", "eta"))}
    filler |= {f"billing/Services/{name}.cs": (
        f"namespace Billing.Services;\n\npublic class {name}\n{{\n    private readonly object _{field};\n\n"
        f"    public Task {method}(int id) => _{field}.PostAsync(\"{method}\", id);\n}}\n")
        for name, field, method in (("Payments", "client", "Charge"), ("Invoices", "store", "Issue"),
                                    ("Refunds", "ledger", "Refund"), ("Taxes", "table", "Compute"))}
    tree = write_tree(tmp_path / "tree", filler | {
        "shipping/pom.xml": "<project><artifactId>shipping</artifactId></project>\n",
        "shipping/src/main/java/ship/GracePeriodShipping.java": (
            "package ship;\n\npublic class GracePeriodShipping {\n    private long gracePeriodDays;\n"
            "    private Object options;\n    private Object logger;\n    private Object source;\n\n"
            "    public java.util.List<Long> findExpiredOrders() {\n"
            "        log.info(\"Looking up confirmed orders past their days\");\n"
            "        var rows = jdbc.queryForList(\"SELECT id FROM orders WHERE status = 'submitted' AND placed < ?\",\n"
            "            clock.instant().minus(java.time.Duration.ofDays(gracePeriodDays)));\n"
            "        metrics.counter(\"expired.lookups\").increment();\n"
            "        return rows.stream().map(r -> (Long) r.get(\"id\")).toList();\n"
            "    }\n}\n"),
        "billing/Billing.csproj": "<Project Sdk=\"Microsoft.NET.Sdk.Web\"></Project>\n",
        "billing/Services/GracePeriodManager.cs": (
            "namespace Billing.Services;\n\npublic class GracePeriodManager\n{\n"
            "    private readonly object _options;\n    private readonly object _logger;\n"
            "    private readonly object _eventBus;\n\n"
            "    public async Task<List<int>> GetExpiredOrders()\n    {\n"
            "        await using var conn = _dataSource.CreateConnection();\n"
            "        var command = conn.CreateCommand();\n"
            "        command.CommandText = \"SELECT Id FROM ordering.orders WHERE CURRENT_TIMESTAMP - OrderDate >= @Time\";\n"
            "        command.Parameters.AddWithValue(\"Time\", TimeSpan.FromMinutes(_minutes));\n"
            "        _logger.LogError(\"Fatal error establishing database connection\");\n"
            "        return await command.ExecuteReaderAsync();\n    }\n}\n"),
    })
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    run(runtime, "index", project_path=str(tree), embed=False)
    found = run(runtime, "search", project_path=str(tree), query="orders whose grace period ended", kind="symbol",
                limit=4)
    kinds = [h.node.symbol_kind for h in found.results]
    names = [h.node.name for h in found.results]
    assert set(names[:2]) == {"findExpiredOrders", "GetExpiredOrders"}, names
    assert not {"field", "file", "package"} & set(kinds), names  # C#'s GracePeriodManager.cs file was 4th
    listed = run(runtime, "search", project_path=str(tree), query="orders whose grace period ended", kind="symbol",
                 limit=20).results
    kinds = [h.node.symbol_kind for h in listed]
    assert "field" in kinds and set(kinds[kinds.index("field"):]) <= {"field", "file", "package"}  # listed, after
    runtime.close()


def test_a_declaration_named_by_its_qualified_name_keeps_its_place():
    """A query that names a field or a file by its qualified name (``Ship.cost``, ``Ship#cost``, its whole fqn,
    a path's tail) names it: it is not a declaration that matched through its owner's words."""
    hits = [_symbol("ship.Ship#cost", 9.0, "field"), _symbol("ship.Ship#getWeight", 8.0, "method"),
            SearchHit(node=NodeRef(id="f", kind="symbol", name="Calculator.java", label="ship/src/Calculator.java",
                                   symbol_kind="file"), score=7.0)]
    for query in ("Ship.cost", "Ship#cost", "ship.Ship#cost", "Ship::cost"):
        assert ranked(query, hits)[0] == hits[0], query
        assert paged(query, hits, 1) == [hits[0]], query
    assert ranked("src/Calculator.java", hits) == [hits[1], hits[2], hits[0]]
    assert paged("ship cost", hits, 1) == [hits[1]]  # words, not a name: the field matched through its class


def test_an_accessor_is_a_short_method_named_get_set_or_is():
    """``getX``/``setX``/``isX`` (and ``get_x``) of at most three lines; a longer one, a name that only starts
    with the letters (``settle``, ``issue``, ``getaway``) or a field is not one."""
    def stored(name: str, lines: int, kind: str = "method") -> Node:
        return Node(id=name, kind="symbol", name=name, text=name,
                    props={"symbol_kind": kind, "line_start": 10, "line_end": 10 + lines - 1})
    assert all(is_accessor(stored(name, lines)) for name, lines in (
        ("getAssignedCourier", 3), ("setQuantity", 1), ("isAvailable", 3), ("get_price", 2), ("getV2", 1)))
    assert not any(is_accessor(stored(name, lines)) for name, lines in (
        ("getRemainingStock", 4), ("settle", 1), ("issue", 1), ("getaway", 1), ("get", 1)))
    assert not is_accessor(stored("getName", 1, "field"))
    hits = [_symbol("ship.Delivery#getAssignedCourier", 9.0, "method"), _symbol("ship.Planner#plan", 8.0, "method")]
    read = Read(accessors=frozenset({"ship.Delivery#getAssignedCourier"}))
    assert [h.node.name for h in ranked("choose a courier for a delivery", hits, read)] == [
        "plan", "getAssignedCourier"]
    assert ranked("assigned courier", hits, read) == hits  # its own name holds every word

def test_ranked_and_paged_agree_on_whether_the_query_asks_for_tests():
    """``TestUtils`` asks for test code by its identifier's words, in the ranking and on the page alike: the page
    is the ranking's first hits, and a declaration never goes after test code it was ranked before."""
    hits = [_symbol("u.TestUtils#helper", 9.0, "method"), _symbol("u.Utils#x", 8.0, "field"),
            _symbol("u.Util#run", 7.0, "method"), _symbol("u.TestUtilsMore#a", 6.0, "method"),
            _symbol("u.Foo#bar", 5.0, "method")]
    for hit in (hits[0], hits[3]):
        hit.node.role = "TEST"
    for query in ("TestUtils", "test utils", "utils"):
        order = ranked(query, hits)
        assert paged(query, hits, 5) == order, query
        assert paged(query, hits, 3) == [h for h in order if h in paged(query, hits, 3)], query


def test_only_names_terms_are_kept_between_searches():
    """A query is up to 2,000 characters and each is new: its terms are not kept (65,536 kept long queries held
    ~45 KB each); a symbol's name comes back search after search, so its terms are."""
    tools._name_terms.cache_clear()
    query = " ".join(f"word{i}" for i in range(300))
    ranked(query, [_symbol("ship.Ship#cost", 9.0, "field"), _symbol("ship.Ship#getWeight", 8.0, "method")])
    paged(query, [_symbol("ship.Ship#cost", 9.0, "field")], 1)
    assert tools._name_terms.cache_info().currsize == 1
