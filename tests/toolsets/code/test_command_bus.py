"""Java command and query buses: a call of a dispatch method generic over a message base type triggers the one
handler the caller's process runs for the argument's type; never a guess (two handlers, an unknown argument type,
another service's handler: no edge)."""

from __future__ import annotations

from helpers.code_graph import edit, render
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph


def _pom(name: str) -> str:
    return (f"<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>{name}</artifactId>"
            "<version>1</version></project>\n")


def _java(package: str, body: str, *imports: str) -> str:
    return f"package {package};\n\n" + "".join(f"import {i};\n" for i in imports) + "\n" + body


BUS = "com.acme.bus"
FILES = {
    "bus/pom.xml": _pom("bus"),
    "bus/src/main/java/com/acme/bus/Command.java": _java(BUS, "public interface Command<R> { }\n"),
    "bus/src/main/java/com/acme/bus/Query.java": _java(BUS, "public interface Query<R> { }\n"),
    "bus/src/main/java/com/acme/bus/CommandHandler.java": _java(
        BUS, "public interface CommandHandler<R, C extends Command<R>> {\n    R handle(C command);\n}\n"),
    "bus/src/main/java/com/acme/bus/QueryHandler.java": _java(
        BUS, "public interface QueryHandler<R, Q extends Query<R>> {\n    R handle(Q query);\n}\n"),
    "bus/src/main/java/com/acme/bus/CommandBus.java": _java(BUS, """public interface CommandBus {
    <R, C extends Command<R>> R executeCommand(C command);
    <R, Q extends Query<R>> R executeQuery(Q query);
}
"""),
    "bus/src/main/java/com/acme/bus/RegistryBus.java": _java(BUS, """public class RegistryBus implements CommandBus {
    private final Registry registry;

    public <R, C extends Command<R>> R executeCommand(C command) {
        CommandHandler<R, C> handler = (CommandHandler<R, C>) registry.get(command.getClass());
        return handler.handle(command);
    }

    public <R, Q extends Query<R>> R executeQuery(Q query) {
        QueryHandler<R, Q> handler = (QueryHandler<R, Q>) registry.get(query.getClass());
        return handler.handle(query);
    }
}
"""),
    "orders/pom.xml": _pom("orders"), "orders/Dockerfile": "FROM eclipse-temurin:17\n",
    "orders/src/main/java/com/acme/orders/OrdersBus.java": _java(
        "com.acme.orders", "public class OrdersBus extends RegistryBus { }\n", "com.acme.bus.RegistryBus"),
    "orders/src/main/java/com/acme/orders/PlaceOrder.java": _java(
        "com.acme.orders", "public class PlaceOrder implements Command<String> { }\n", "com.acme.bus.Command"),
    "orders/src/main/java/com/acme/orders/CancelOrder.java": _java(
        "com.acme.orders", "public class CancelOrder implements Command<String> { }\n", "com.acme.bus.Command"),
    "orders/src/main/java/com/acme/orders/FindOrder.java": _java(
        "com.acme.orders", "public class FindOrder implements Query<String> { public FindOrder(String id) { } }\n",
        "com.acme.bus.Query"),
    "orders/src/main/java/com/acme/orders/PlaceOrderHandler.java": _java("com.acme.orders", """public class PlaceOrderHandler implements CommandHandler<String, PlaceOrder> {
    public String handle(PlaceOrder command) { return "placed"; }
}
""", "com.acme.bus.CommandHandler"),
    # two handlers of one command: which runs is the registry's choice, so no edge
    "orders/src/main/java/com/acme/orders/CancelOrderHandler.java": _java("com.acme.orders", """public class CancelOrderHandler implements CommandHandler<String, CancelOrder> {
    public String handle(CancelOrder command) { return "cancelled"; }
}
""", "com.acme.bus.CommandHandler"),
    "orders/src/main/java/com/acme/orders/AuditCancelHandler.java": _java("com.acme.orders", """public class AuditCancelHandler implements CommandHandler<String, CancelOrder> {
    public String handle(CancelOrder command) { return "audited"; }
}
""", "com.acme.bus.CommandHandler"),
    "orders/src/main/java/com/acme/orders/FindOrderHandler.java": _java("com.acme.orders", """public class FindOrderHandler implements QueryHandler<String, FindOrder> {
    public String handle(FindOrder query) { return "found"; }
}
""", "com.acme.bus.QueryHandler"),
    "orders/src/main/java/com/acme/orders/OrdersController.java": _java("com.acme.orders", """public class OrdersController {
    private final CommandBus bus;

    public OrdersController(CommandBus bus) { this.bus = bus; }

    public String place(PlaceOrder cmd) { return bus.executeCommand(cmd); }

    public String cancel(CancelOrder cmd) { return bus.executeCommand(cmd); }

    public String find(String id) { return bus.executeQuery(new FindOrder(id)); }

    public String replay(Object stored) { return bus.executeCommand(stored); }

    public String local() {
        PlaceOrder made = new PlaceOrder();
        return bus.executeCommand(made);
    }
}
""", "com.acme.bus.CommandBus"),
    # another deployed service sending a command of a type only orders handles: its own process has no handler
    "billing/pom.xml": _pom("billing"), "billing/Dockerfile": "FROM eclipse-temurin:17\n",
    "billing/src/main/java/com/acme/billing/Billing.java": _java("com.acme.billing", """public class Billing {
    private final CommandBus bus;

    public String bill(PlaceOrder cmd) { return bus.executeCommand(cmd); }
}
""", "com.acme.bus.CommandBus", "com.acme.orders.PlaceOrder"),
}


def _triggers(graph: CodeGraph) -> set[tuple[str, str, str]]:
    nodes, edges = graph.snapshot()
    simple = {i: n.props.get("fqn", "").split("(")[0].rsplit(".", 1)[-1] for i, n in nodes.items()}
    return {(simple[e.src], simple[e.dst], e.props["message"]) for e in edges.values()
            if e.type == "TRIGGERS" and e.props.get("kind") == "command_bus"}


def test_a_bus_call_triggers_the_one_handler_of_its_argument_type_in_its_process(tmp_path):
    graph = CodeGraph.build(write_tree(tmp_path, FILES))
    assert _triggers(graph) == {
        ("OrdersController#place", "PlaceOrderHandler#handle", "PlaceOrder"),
        ("OrdersController#find", "FindOrderHandler#handle", "FindOrder"),   # a query made in the call
        ("OrdersController#local", "PlaceOrderHandler#handle", "PlaceOrder"),   # a local declared PlaceOrder
    }
    # a second handler of PlaceOrder: neither runs for certain, so the edge goes; an update equals a full build
    edit(tmp_path, "orders/src/main/java/com/acme/orders/FindOrderHandler.java",
         "public String handle(FindOrder query) { return \"found\"; }",
         "public String handle(FindOrder query) { return \"found\"; }\n}\n"
         "class ShadowPlace implements CommandHandler<String, PlaceOrder> {\n"
         "    public String handle(PlaceOrder command) { return \"shadow\"; }")
    graph.update()
    assert _triggers(graph) == {("OrdersController#find", "FindOrderHandler#handle", "FindOrder")}
    assert render(graph) == render(CodeGraph.build(tmp_path))


def test_a_bus_edge_needs_the_qualified_types_and_every_process_a_librarys_caller_runs_in(tmp_path):
    """Names are resolved as javac does, never by their simple name alone: another package's ``Place`` (no handler),
    another service's own unrelated ``CommandBus``; a library's caller runs in each service that uses it, so a
    second handler of its message in one of them leaves it no edge."""
    files = dict(FILES)
    orders = "orders/src/main/java/com/acme/orders"
    files.update({
        "bus/src/main/java/com/acme/bus/Ping.java": _java(BUS, "public class Ping implements Command<String> { }\n"),
        "bus/src/main/java/com/acme/bus/PingHandler.java": _java(BUS, """public class PingHandler implements CommandHandler<String, Ping> {
    public String handle(Ping command) { return "lib"; }
}
"""),
        "bus/src/main/java/com/acme/bus/Pinger.java": _java(BUS, """public class Pinger {
    private final CommandBus bus;
    public String ping() { return bus.executeCommand(new Ping()); }
}
"""),
        f"{orders}/OrdersPing.java": _java("com.acme.orders", """public class OrdersPing implements CommandHandler<String, Ping> {
    public String handle(Ping command) { return "orders"; }
}
""", "com.acme.bus.*"),
        f"{orders}/a/Place.java": _java("com.acme.orders.a", "public class Place implements Command<String> { }\n",
                                        "com.acme.bus.Command"),
        f"{orders}/b/Place.java": _java("com.acme.orders.b", "public class Place implements Command<String> { }\n",
                                        "com.acme.bus.Command"),
        f"{orders}/a/PlaceHandler.java": _java("com.acme.orders.a", """public class PlaceHandler implements CommandHandler<String, Place> {
    public String handle(Place command) { return "a"; }
}
""", "com.acme.bus.CommandHandler"),
        f"{orders}/Ctl.java": _java("com.acme.orders", """public class Ctl {
    private final CommandBus bus;
    public String b(com.acme.orders.b.Place cmd) { return bus.executeCommand(cmd); }
    public String made() { return bus.executeCommand(new com.acme.orders.b.Place()); }
    public String a() { return bus.executeCommand(new com.acme.orders.a.Place()); }
}
""", "com.acme.bus.CommandBus"),
        "billing/src/main/java/com/acme/billing/CommandBus.java": _java("com.acme.billing", """public class CommandBus {
    public String executeCommand(Object o) { return null; }
}
"""),
        "billing/src/main/java/com/acme/billing/Billing.java": _java("com.acme.billing", """public class Billing {
    private final CommandBus bus;

    public String bill(com.acme.bus.Ping cmd) { return bus.executeCommand(cmd); }
}
"""),
    })
    assert _triggers(CodeGraph.build(write_tree(tmp_path, files))) == {
        ("OrdersController#place", "PlaceOrderHandler#handle", "PlaceOrder"),
        ("OrdersController#find", "FindOrderHandler#handle", "FindOrder"),
        ("OrdersController#local", "PlaceOrderHandler#handle", "PlaceOrder"),
        ("Ctl#a", "PlaceHandler#handle", "Place"),   # the qualified a.Place: its one handler
    }


def test_a_handler_through_an_abstract_base_class_makes_a_direct_handler_of_its_message_uncertain(tmp_path):
    orders = "orders/src/main/java/com/acme/orders"
    files = dict(FILES)
    files.update({
        f"{orders}/BaseHandler.java": _java(
            "com.acme.orders",
            "public abstract class BaseHandler<C extends Command<String>> implements CommandHandler<String, C> { }\n",
            "com.acme.bus.*"),
        f"{orders}/AuditPlace.java": _java("com.acme.orders", """public class AuditPlace extends BaseHandler<PlaceOrder> {
    public String handle(PlaceOrder command) { return "audit"; }
}
"""),
    })
    assert _triggers(CodeGraph.build(write_tree(tmp_path, files))) == {
        ("OrdersController#find", "FindOrderHandler#handle", "FindOrder")}


def test_a_message_declared_as_a_type_with_a_project_subtype_gives_no_edge(tmp_path):
    """The registry finds the handler by the object's class: ``PlaceOrder cmd = new RushOrder()`` runs
    ``RushOrderHandler``, so a local or parameter declared ``PlaceOrder`` names no handler for certain once a project
    class extends ``PlaceOrder``; ``new PlaceOrder()`` still does."""
    orders = "orders/src/main/java/com/acme/orders"
    files = dict(FILES)
    files.update({
        f"{orders}/RushOrder.java": _java("com.acme.orders", "public class RushOrder extends PlaceOrder { }\n"),
        f"{orders}/RushOrderHandler.java": _java("com.acme.orders", """public class RushOrderHandler implements CommandHandler<String, RushOrder> {
    public String handle(RushOrder command) { return "rush"; }
}
""", "com.acme.bus.CommandHandler"),
        f"{orders}/Rush.java": _java("com.acme.orders", """public class Rush {
    private final CommandBus bus;

    public String go() {
        PlaceOrder cmd = new RushOrder();
        return bus.executeCommand(cmd);
    }

    public String plain() { return bus.executeCommand(new PlaceOrder()); }
}
""", "com.acme.bus.CommandBus"),
    })
    assert _triggers(CodeGraph.build(write_tree(tmp_path, files))) == {
        ("OrdersController#find", "FindOrderHandler#handle", "FindOrder"),
        ("Rush#plain", "PlaceOrderHandler#handle", "PlaceOrder")}
