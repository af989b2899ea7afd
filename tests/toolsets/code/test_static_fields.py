"""A Java ``static`` field that is not ``final`` (FTGO's ``public static String accountingServiceChannel =
"accountingService";``) folds to its initialiser when nothing in the project assigns it afterwards; a field of a
name some code assigns (``Channels.AUDIT = ...``) stays unknown, whichever field of that name it writes."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

TREE = {
    "accounting-api/build.gradle": "apply plugin: 'java-library'\n",
    "accounting-api/src/main/java/shop/accounting/api/AccountingChannels.java":
        "package shop.accounting.api;\n\npublic class AccountingChannels {\n"
        "  public static String accountingServiceChannel = \"accountingService\";\n"
        "  public static String AUDIT = \"audit\";\n}\n",
    "orders/Dockerfile": "FROM scratch\n",
    "orders/src/main/java/shop/orders/saga/AccountingServiceProxy.java":
        "package shop.orders.saga;\n\n"
        "import io.eventuate.tram.sagas.simpledsl.CommandEndpoint;\n"
        "import io.eventuate.tram.sagas.simpledsl.CommandEndpointBuilder;\n"
        "import shop.accounting.api.AccountingChannels;\n\n"
        "public class AccountingServiceProxy {\n"
        "  public final CommandEndpoint<Authorize> authorize = CommandEndpointBuilder\n"
        "          .forCommand(Authorize.class)\n"
        "          .withChannel(AccountingChannels.accountingServiceChannel)\n"
        "          .withReply(Success.class)\n"
        "          .build();\n"
        "  public final CommandEndpoint<Audit> audit = CommandEndpointBuilder\n"
        "          .forCommand(Audit.class)\n"
        "          .withChannel(AccountingChannels.AUDIT)\n"
        "          .build();\n}\n",
    "orders/src/main/java/shop/orders/Setup.java":
        "package shop.orders;\n\nimport shop.accounting.api.AccountingChannels;\n\n"
        "public class Setup {\n  void configure(String name) {\n    AccountingChannels.AUDIT = name;\n  }\n}\n",
    "orders/src/main/java/shop/orders/web/Urls.java":
        "package shop.orders.web;\n\npublic class Urls {\n  public static String ACCOUNTING = \"http://accounting:8080\";\n}\n",
    "orders/src/main/java/shop/orders/web/Calls.java":
        "package shop.orders.web;\n\nimport org.springframework.web.client.RestTemplate;\n\n"
        "public class Calls {\n  private final RestTemplate rest = new RestTemplate();\n\n"
        "  String account(String id) {\n"
        "    return rest.getForObject(Urls.ACCOUNTING + \"/accounts/{id}\", String.class, id);\n  }\n}\n",
    "accounting/Dockerfile": "FROM scratch\n",
    "accounting/src/main/java/shop/accounting/AccountingHandlers.java":
        "package shop.accounting;\n\n"
        "import io.eventuate.tram.commands.consumer.CommandHandlersBuilder;\n"
        "import shop.accounting.api.AccountingChannels;\n\n"
        "public class AccountingHandlers {\n"
        "  public Object commandHandlers() {\n"
        "    return CommandHandlersBuilder.fromChannel(AccountingChannels.accountingServiceChannel)\n"
        "            .onMessage(Authorize.class, this::authorize).build();\n  }\n\n"
        "  Object authorize(Object cm) { return null; }\n}\n",
    "accounting/src/main/java/shop/accounting/AccountController.java":
        "package shop.accounting;\n\nimport org.springframework.web.bind.annotation.*;\n\n"
        "@RestController\npublic class AccountController {\n  @GetMapping(\"/accounts/{id}\")\n"
        "  public String get(@PathVariable String id) { return id; }\n}\n",
}


def test_a_static_field_nothing_reassigns_is_its_initialiser(tmp_path: Path):
    nodes, edges = CodeGraph.build(write_tree(tmp_path, TREE)).snapshot()
    labels = {(n.props["file"].rsplit("/", 1)[-1], n.props["line"]): (n.props["label"], n.props["resolved"])
              for n in nodes.values() if n.kind in ("producer", "route", "client")}
    assert labels[("AccountingServiceProxy.java", 10)] == ("eventuate accountingService", True)
    assert labels[("AccountingHandlers.java", 8)] == ("eventuate accountingService", True)
    # assigned in Setup.configure: not its initialiser
    assert labels[("AccountingServiceProxy.java", 15)][1] is False
    assert labels[("Calls.java", 9)][0] == "GET accounting /accounts/{id}"
    links = {(nodes[e.src].props["microservice"], nodes[e.dst].props["label"]) for e in edges.values()
             if e.type in ("ASYNC_CALLS", "HTTP_CALLS") and nodes[e.src].kind in ("producer", "client")}
    assert links == {("orders", "eventuate accountingService"), ("orders", "GET /accounts/{id}")}
