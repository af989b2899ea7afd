"""@Codebase* declarations: a path, topic or target service is read only from one string literal; a constant or
an expression is unknown (saying so), never its last name or its source text taken for the value."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph

SOURCE = '''package com.acme.orders;

public class Declared {
    @CodebaseHttpRoute(path = "/api" + "/orders", method = CodebaseHttpMethod.GET)
    public void list() {}

    @CodebaseHttpRoute(path = "/api/items", method = CodebaseHttpMethod.GET)
    public void items() {}

    @CodebaseHttpClient(clientKind = CodebaseClientKind.REST_TEMPLATE, targetService = Services.ORDERS,
                        path = ApiPaths.ORDERS, method = CodebaseHttpMethod.POST)
    public void call() {}

    @CodebaseHttpClient(targetService = "orders", path = "/api/items", method = CodebaseHttpMethod.GET)
    public void fetch() {}

    @CodebaseProducer(topic = Topics.ORDERS, producerKind = CodebaseProducerKind.KAFKA_SEND)
    public void send() {}
}
'''


def test_a_declaration_reads_only_string_literals_as_paths_topics_and_services(tmp_path: Path):
    module = tmp_path / "orders"
    (module / "src/main/java/com/acme/orders").mkdir(parents=True)
    (module / "pom.xml").write_text("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>"
                                    "<artifactId>orders</artifactId><version>1</version></project>\n")
    (module / "src/main/java/com/acme/orders/Declared.java").write_text(SOURCE)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    routes = {n.props["label"]: n.props for n in nodes.values() if n.kind == "route"}
    assert routes["GET {?}"]["unresolved_reason"] == 'not a literal ("/api" + "/orders")'
    assert routes["GET /api/items"]["resolved"] is True
    others = {n.props["declaring_fqn"].rsplit("#", 1)[-1]: n.props for n in nodes.values()
              if n.kind in ("client", "producer")}
    call = others["call()"]
    assert (call["match"], call["target_service"]) == ("unresolved", None)
    assert call["unresolved_reason"] == "not a literal (Services.ORDERS); not a literal (ApiPaths.ORDERS)"
    assert (others["fetch()"]["target_service"], others["fetch()"]["match"]) == ("orders", "intra_service")
    send = others["send()"]
    assert (send["label"], send["match_detail"]) == ("kafka {?}", "not a literal (Topics.ORDERS)")
