"""Eventuate Tram messaging: saga commands sent to a channel (a command endpoint's ``withChannel``, a saga step's
``send(..).to(..)``, ``CommandProducer``/``MessageProducer.send``) and domain events whose channel is the aggregate
type's fully qualified name (``DomainEventPublisher.publish(Customer.class, ..)``, a subclass of
``AbstractAggregateDomainEventPublisher`` and its ``publish`` calls elsewhere) link to the handlers of that channel
(``fromChannel``, ``forAggregateType``/``andForAggregateType``, ``@EventuateDomainEventHandler``,
``MessageConsumer.subscribe``); channels are folded across modules, an aggregate class the file cannot see stays
unresolved, and a ``send(..).to(..)`` chain in a file that does not use Eventuate is nothing."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

TREE = {
    "kitchen-api/build.gradle": "apply plugin: 'java-library'\n",
    "kitchen-api/src/main/java/shop/kitchen/api/KitchenChannels.java":
        "package shop.kitchen.api;\n\npublic class KitchenChannels {\n"
        "  public static final String COMMAND_CHANNEL = \"kitchenService\";\n}\n",
    "orders/Dockerfile": "FROM scratch\n",
    "orders/src/main/java/shop/orders/domain/Order.java":
        "package shop.orders.domain;\n\npublic class Order {\n  public Long getId() { return 1L; }\n}\n",
    "orders/src/main/java/shop/orders/domain/OrderDomainEventPublisher.java":
        "package shop.orders.domain;\n\n"
        "import io.eventuate.tram.events.aggregates.AbstractAggregateDomainEventPublisher;\n"
        "import io.eventuate.tram.events.publisher.DomainEventPublisher;\n\n"
        "public class OrderDomainEventPublisher extends AbstractAggregateDomainEventPublisher<Order, Object> {\n"
        "  public OrderDomainEventPublisher(DomainEventPublisher eventPublisher) {\n"
        "    super(eventPublisher, Order.class, Order::getId);\n  }\n}\n",
    "orders/src/main/java/shop/orders/domain/OrderService.java":
        "package shop.orders.domain;\n\nimport java.util.List;\n\npublic class OrderService {\n"
        "  private OrderDomainEventPublisher orderEvents;\n\n"
        "  public void place(Order order, List<Object> events) {\n"
        "    orderEvents.publish(order, events);\n  }\n}\n",
    "orders/src/main/java/shop/orders/saga/KitchenServiceProxy.java":
        "package shop.orders.saga;\n\n"
        "import io.eventuate.tram.sagas.simpledsl.CommandEndpoint;\n"
        "import io.eventuate.tram.sagas.simpledsl.CommandEndpointBuilder;\n"
        "import shop.kitchen.api.KitchenChannels;\n\n"
        "public class KitchenServiceProxy {\n"
        "  public final CommandEndpoint<CreateTicket> create = CommandEndpointBuilder\n"
        "          .forCommand(CreateTicket.class)\n"
        "          .withChannel(KitchenChannels.COMMAND_CHANNEL)\n"
        "          .withReply(Success.class)\n"
        "          .build();\n}\n",
    "orders/src/main/java/shop/orders/saga/CancelOrderSaga.java":
        "package shop.orders.saga;\n\n"
        "import static io.eventuate.tram.commands.consumer.CommandWithDestinationBuilder.send;\n"
        "import io.eventuate.tram.commands.consumer.CommandWithDestination;\n\n"
        "public class CancelOrderSaga {\n"
        "  private CommandWithDestination refund(Object data) {\n"
        "    return send(new Refund())\n"
        "            .to(\"accountingService\")\n"
        "            .build();\n  }\n}\n",
    "orders/src/main/java/shop/orders/mail/Mailer.java":
        "package shop.orders.mail;\n\npublic class Mailer {\n"
        "  void notify(Outbox box) {\n    box.send(\"hello\").to(\"someone@example.com\");\n  }\n}\n",
    "kitchen/Dockerfile": "FROM scratch\n",
    "kitchen/src/main/java/shop/kitchen/KitchenCommandHandler.java":
        "package shop.kitchen;\n\n"
        "import io.eventuate.tram.commands.consumer.CommandHandlers;\n"
        "import io.eventuate.tram.sagas.participant.SagaCommandHandlersBuilder;\n"
        "import shop.kitchen.api.KitchenChannels;\n\n"
        "public class KitchenCommandHandler {\n"
        "  public CommandHandlers commandHandlers() {\n"
        "    return SagaCommandHandlersBuilder\n"
        "            .fromChannel(KitchenChannels.COMMAND_CHANNEL)\n"
        "            .onMessage(CreateTicket.class, this::createTicket)\n"
        "            .build();\n  }\n\n"
        "  Object createTicket(Object cm) { return null; }\n}\n",
    "kitchen/src/main/java/shop/kitchen/KitchenEventConsumer.java":
        "package shop.kitchen;\n\n"
        "import io.eventuate.tram.events.subscriber.DomainEventHandlers;\n"
        "import io.eventuate.tram.events.subscriber.DomainEventHandlersBuilder;\n\n"
        "public class KitchenEventConsumer {\n"
        "  static final String CUSTOMER = \"shop.customers.domain.Customer\";\n\n"
        "  public DomainEventHandlers domainEventHandlers() {\n"
        "    return DomainEventHandlersBuilder\n"
        "            .forAggregateType(\"shop.orders.domain.Order\")\n"
        "            .onEvent(OrderCreated.class, this::orderCreated)\n"
        "            .andForAggregateType(CUSTOMER)\n"
        "            .onEvent(CustomerCreated.class, this::customerCreated)\n"
        "            .build();\n  }\n\n"
        "  void orderCreated(Object e) {}\n  void customerCreated(Object e) {}\n}\n",
    "customers/Dockerfile": "FROM scratch\n",
    "customers/src/main/java/shop/customers/domain/Customer.java":
        "package shop.customers.domain;\n\npublic class Customer {}\n",
    "customers/src/main/java/shop/customers/domain/CustomerService.java":
        "package shop.customers.domain;\n\n"
        "import io.eventuate.tram.events.publisher.DomainEventPublisher;\n"
        "import io.eventuate.tram.messaging.producer.MessageProducer;\n"
        "import java.util.Collections;\nimport other.*;\n\n"
        "public class CustomerService {\n"
        "  private DomainEventPublisher domainEventPublisher;\n"
        "  private MessageProducer messageProducer;\n\n"
        "  public void create(long id) {\n"
        "    domainEventPublisher.publish(Customer.class, id, Collections.singletonList(new CustomerCreated()));\n"
        "    messageProducer.send(\"auditChannel\", null);\n"
        "    domainEventPublisher.publish(Ghost.class, id, Collections.emptyList());\n  }\n}\n",
    # another service's own class of the publisher's simple name: its publish(..) is no Eventuate producer
    "billing/Dockerfile": "FROM scratch\n",
    "billing/src/main/java/shop/billing/OrderDomainEventPublisher.java":
        "package shop.billing;\n\npublic class OrderDomainEventPublisher {\n"
        "  public void publish(Object order, Object events) {}\n}\n",
    "billing/src/main/java/shop/billing/Billing.java":
        "package shop.billing;\n\npublic class Billing {\n"
        "  private OrderDomainEventPublisher orderEvents;\n\n"
        "  void bill(Object order) {\n    orderEvents.publish(order, null);\n  }\n}\n",
    "accounting/Dockerfile": "FROM scratch\n",
    "accounting/src/main/java/shop/accounting/AccountingHandlers.java":
        "package shop.accounting;\n\n"
        "import io.eventuate.tram.commands.consumer.CommandHandlersBuilder;\n"
        "import io.eventuate.tram.events.subscriber.annotations.EventuateDomainEventHandler;\n"
        "import io.eventuate.tram.messaging.consumer.MessageConsumer;\nimport java.util.Set;\n\n"
        "public class AccountingHandlers {\n"
        "  private MessageConsumer messageConsumer;\n\n"
        "  public Object commandHandlers() {\n"
        "    return CommandHandlersBuilder.fromChannel(\"accountingService\")\n"
        "            .onMessage(Refund.class, this::refund).build();\n  }\n\n"
        "  @EventuateDomainEventHandler(subscriberId = \"acc\", channel = \"shop.customers.domain.Customer\")\n"
        "  public void onCustomer(Object envelope) {}\n\n"
        "  public void audit() {\n"
        "    messageConsumer.subscribe(\"audit\", Set.of(\"auditChannel\"), this::handle);\n  }\n\n"
        "  Object refund(Object cm) { return null; }\n  void handle(Object m) {}\n}\n",
    "accounting/src/integration-test/java/shop/accounting/AccountingIT.java":
        "package shop.accounting;\n\n"
        "import io.eventuate.tram.events.publisher.DomainEventPublisher;\n\n"
        "public class AccountingIT {\n  private DomainEventPublisher domainEventPublisher;\n\n"
        "  void given() {\n"
        "    domainEventPublisher.publish(\"shop.orders.domain.Order\", 1L, java.util.List.of());\n  }\n}\n",
}


def _eventuate(root: Path):
    nodes, edges = CodeGraph.build(write_tree(root, TREE)).snapshot()
    items = {i: n.props for i, n in nodes.items() if n.props.get("broker") == "eventuate"}
    return nodes, edges, items


def test_commands_and_domain_events_link_to_the_handlers_of_their_channel(tmp_path: Path):
    nodes, edges, items = _eventuate(tmp_path)
    found = {(p["microservice"], "producer" if "producer_kind" in p else "route", p["file"].rsplit("/", 1)[-1],
              p["line"], p["label"].removeprefix("eventuate ")) for p in items.values() if p["resolved"]}
    assert found == {
        ("orders", "producer", "KitchenServiceProxy.java", 10, "kitchenService"),
        ("orders", "producer", "CancelOrderSaga.java", 9, "accountingService"),
        ("orders", "producer", "OrderDomainEventPublisher.java", 8, "shop.orders.domain.Order"),
        ("orders", "producer", "OrderService.java", 9, "shop.orders.domain.Order"),
        ("customers", "producer", "CustomerService.java", 13, "shop.customers.domain.Customer"),
        ("customers", "producer", "CustomerService.java", 14, "auditChannel"),
        ("kitchen", "route", "KitchenCommandHandler.java", 10, "kitchenService"),
        ("kitchen", "route", "KitchenEventConsumer.java", 11, "shop.orders.domain.Order"),
        ("kitchen", "route", "KitchenEventConsumer.java", 13, "shop.customers.domain.Customer"),
        ("accounting", "route", "AccountingHandlers.java", 12, "accountingService"),
        ("accounting", "route", "AccountingHandlers.java", 16, "shop.customers.domain.Customer"),
        ("accounting", "route", "AccountingHandlers.java", 20, "auditChannel")}
    unresolved = [(p["file"].rsplit("/", 1)[-1], p["unresolved_reason"]) for p in items.values() if not p["resolved"]]
    assert unresolved == [("CustomerService.java", unresolved[0][1])]
    assert "Ghost" in unresolved[0][1]
    links = {(nodes[e.src].props["microservice"], nodes[e.src].props["label"].removeprefix("eventuate "),
              nodes[e.dst].props["microservice"]) for e in edges.values() if e.type == "ASYNC_CALLS"}
    assert links == {
        ("orders", "kitchenService", "kitchen"), ("orders", "accountingService", "accounting"),
        ("orders", "shop.orders.domain.Order", "kitchen"),
        ("customers", "shop.customers.domain.Customer", "kitchen"),
        ("customers", "shop.customers.domain.Customer", "accounting"),
        ("customers", "auditChannel", "accounting")}
