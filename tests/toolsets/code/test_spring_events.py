"""Spring application events: ``publishEvent(event)`` (and an aggregate's ``registerEvent``) runs every listener of
the event's type or a supertype of it in the publisher's own service: ``TRIGGERS`` edges, never a guess."""

from __future__ import annotations

import re
from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

POM = "<project><artifactId>{}</artifactId></project>"
ORDERS = "orders/src/main/java/shop/orders"
EVENTS = """package shop.orders.events;

import org.springframework.context.ApplicationEvent;

public abstract class OrderEvent extends ApplicationEvent {
    protected OrderEvent(Object source) { super(source); }
}
"""
CREATED = """package shop.orders.events;

public class OrderCreated extends OrderEvent {
    public OrderCreated(Object source) { super(source); }
}
"""
CANCELLED = """package shop.orders.events;

public class OrderCancelled extends OrderEvent {
    public OrderCancelled(Object source) { super(source); }
}
"""
#: a plain object: Spring wraps it in a PayloadApplicationEvent
SHIPPED = """package shop.orders.events;

public record OrderShipped(long id) {}
"""
SERVICE = """package shop.orders;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationContext;
import shop.orders.events.*;

public class OrderService {
    private final ApplicationEventPublisher publisher;
    private final ApplicationContext context;

    public OrderService(ApplicationEventPublisher publisher, ApplicationContext context) {
        this.publisher = publisher;
        this.context = context;
    }

    public void place() { publisher.publishEvent(new OrderCreated(this)); }

    public void cancel() {
        OrderCancelled event = new OrderCancelled(this);
        this.context.publishEvent(event);
    }

    public void ship(long id) { publisher.publishEvent(new OrderShipped(id)); }

    public void any(OrderEvent event) { publisher.publishEvent(event); }

    public void unknown(Object order) { publisher.publishEvent(toEvent(order)); }

    private OrderEvent toEvent(Object order) { return null; }

    public void notSpring(Bus bus) { bus.publishEvent(new OrderCreated(this)); }
}
"""
BUS = """package shop.orders;

public interface Bus { void publishEvent(Object event); }
"""
LISTENERS = """package shop.orders;

import org.springframework.context.event.EventListener;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.modulith.events.ApplicationModuleListener;
import org.springframework.scheduling.annotation.Async;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.transaction.event.TransactionPhase;
import shop.orders.events.*;

public class OrderListeners {
    @EventListener
    public void onCreated(OrderCreated event) {}

    @Async
    @TransactionalEventListener(phase = TransactionPhase.AFTER_ROLLBACK)
    public void onCancelled(OrderCancelled event) {}

    @EventListener(classes = {OrderCreated.class, OrderCancelled.class}, condition = "#root.event.big")
    public void audit() {}

    @EventListener
    public void onAnyOrder(OrderEvent event) {}

    @TransactionalEventListener
    public void onShipped(OrderShipped shipped) {}

    @EventListener
    public void onRefresh(ContextRefreshedEvent event) {}

    @ApplicationModuleListener
    void onShippedLater(OrderShipped shipped) {}
}
"""
MAIL = """package shop.orders;

import org.springframework.context.ApplicationListener;
import shop.orders.events.OrderCreated;

public class MailOnCreated implements ApplicationListener<OrderCreated> {
    @Override
    public void onApplicationEvent(OrderCreated event) {}
}
"""
AGGREGATE = """package shop.orders;

import org.springframework.data.domain.AbstractAggregateRoot;
import shop.orders.events.OrderShipped;

public class Shipment extends AbstractAggregateRoot<Shipment> {
    public Shipment ship(long id) {
        registerEvent(new OrderShipped(id));
        return this;
    }
}
"""
#: another service: an event of the same type never reaches it (Spring events stay in their process)
BILLING = """package shop.orders;

import org.springframework.context.event.EventListener;
import shop.orders.events.OrderCreated;

public class BillingListener {
    @EventListener
    public void bill(OrderCreated event) {}
}
"""


def _triggers(root: Path, files: dict[str, str]) -> dict[tuple[str, str], dict]:
    nodes, edges = CodeGraph.build(write_tree(root, files)).snapshot()
    short = {i: re.sub(r"\(.*", "", n.props.get("fqn", "")).rsplit(".", 1)[-1].replace("#", ".")
             for i, n in nodes.items()}
    return {(short[e.src], short[e.dst]): e.props for e in edges.values()
            if e.type == "TRIGGERS" and e.props.get("kind") in ("spring_event", "domain_event")}


def _tree() -> dict[str, str]:
    events = "orders/src/main/java/shop/orders/events"
    return {"orders/pom.xml": POM.format("orders"), f"{events}/OrderEvent.java": EVENTS,
            f"{events}/OrderCreated.java": CREATED, f"{events}/OrderCancelled.java": CANCELLED,
            f"{events}/OrderShipped.java": SHIPPED, f"{ORDERS}/OrderService.java": SERVICE,
            f"{ORDERS}/Bus.java": BUS, f"{ORDERS}/OrderListeners.java": LISTENERS,
            f"{ORDERS}/MailOnCreated.java": MAIL, f"{ORDERS}/Shipment.java": AGGREGATE,
            "billing/pom.xml": POM.format("billing"),
            "billing/src/main/java/shop/orders/BillingListener.java": BILLING}


def test_a_published_event_triggers_the_listeners_of_its_type_and_its_supertypes_in_its_service(tmp_path: Path):
    triggers = _triggers(tmp_path, _tree())
    assert set(triggers) == {
        ("OrderService.place", "OrderListeners.onCreated"), ("OrderService.place", "OrderListeners.audit"),
        ("OrderService.place", "OrderListeners.onAnyOrder"), ("OrderService.place", "MailOnCreated.onApplicationEvent"),
        ("OrderService.cancel", "OrderListeners.onCancelled"), ("OrderService.cancel", "OrderListeners.audit"),
        ("OrderService.cancel", "OrderListeners.onAnyOrder"),
        # a parameter of the base type: its subtypes' listeners may not run, the base type's do
        ("OrderService.any", "OrderListeners.onAnyOrder"),
        # a plain object (PayloadApplicationEvent), and an aggregate's registered event published on save
        ("OrderService.ship", "OrderListeners.onShipped"), ("Shipment.ship", "OrderListeners.onShipped"),
        ("OrderService.ship", "OrderListeners.onShippedLater"), ("Shipment.ship", "OrderListeners.onShippedLater")}
    cancelled = triggers[("OrderService.cancel", "OrderListeners.onCancelled")]
    assert cancelled["phase"] == "AFTER_ROLLBACK" and cancelled["async"] is True
    assert cancelled["message"] == "OrderCancelled" and cancelled["via"] == "publishEvent(event)"
    assert triggers[("OrderService.place", "OrderListeners.audit")]["condition"] == "#root.event.big"
    assert triggers[("OrderService.ship", "OrderListeners.onShipped")]["phase"] == "AFTER_COMMIT"
    assert triggers[("Shipment.ship", "OrderListeners.onShipped")]["kind"] == "domain_event"
    later = triggers[("OrderService.ship", "OrderListeners.onShippedLater")]
    assert later["listener"] == "ApplicationModuleListener" and later["async"] is True and later["phase"] == "AFTER_COMMIT"
    assert triggers[("OrderService.place", "MailOnCreated.onApplicationEvent")]["listener"] == "ApplicationListener"


def test_an_application_event_listener_hears_every_publish_and_kotlin_reads_the_same(tmp_path: Path):
    every = """package shop.orders;

import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;

public class Everything implements ApplicationListener<ApplicationEvent> {
    public void onApplicationEvent(ApplicationEvent event) {}
}
"""
    kotlin = """package shop.orders

import org.springframework.context.ApplicationEventPublisher
import org.springframework.context.event.EventListener
import shop.orders.events.OrderShipped

class Notifier(private val publisher: ApplicationEventPublisher) {
    fun send(id: Long) { publisher.publishEvent(OrderShipped(id)) }

    @EventListener(classes = [OrderShipped::class])
    fun heard() {}
}
"""
    tree = {**_tree(), f"{ORDERS}/Everything.java": every, "orders/src/main/kotlin/shop/orders/Notifier.kt": kotlin}
    triggers = _triggers(tmp_path, tree)
    assert {src for src, dst in triggers if dst == "Everything.onApplicationEvent"} == {
        "OrderService.place", "OrderService.cancel", "OrderService.ship", "OrderService.any", "Shipment.ship",
        "Notifier.send"}
    assert ("Notifier.send", "Notifier.heard") in triggers and ("Notifier.send", "OrderListeners.onShipped") in triggers


def test_an_event_stays_in_its_module_where_a_service_holds_several_spring_boot_applications(tmp_path: Path):
    """A folder of examples (one service to the layout) is several processes: each example hears its own events."""
    event = "package example.order;\n\npublic record OrderCompleted(long id) {}\n"
    publisher = """package example.order;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ApplicationEventPublisher;

@SpringBootApplication
public class Application {
    private ApplicationEventPublisher events;

    public void complete(long id) { events.publishEvent(new OrderCompleted(id)); }
}
"""
    listener = """package example.order;

import org.springframework.context.event.EventListener;

public class Inventory {
    @EventListener
    void on(OrderCompleted event) {}
}
"""
    tree = {"examples/pom.xml": "<project><artifactId>examples</artifactId><modules><module>a</module>"
                                "<module>b</module></modules></project>"}
    for name in ("a", "b"):
        root = f"examples/{name}/src/main/java/example/order"
        tree |= {f"examples/{name}/pom.xml": POM.format(f"example-{name}"), f"{root}/OrderCompleted.java": event,
                 f"{root}/Application.java": publisher, f"{root}/Inventory.java": listener}
    nodes, edges = CodeGraph.build(write_tree(tmp_path, tree)).snapshot()
    pairs = {(nodes[e.src].props["file"].split("/")[1], nodes[e.dst].props["file"].split("/")[1])
             for e in edges.values() if e.type == "TRIGGERS" and e.props.get("kind") == "spring_event"}
    services = {n.props["microservice"] for n in nodes.values() if n.props.get("file", "").endswith("Inventory.java")}
    assert len(services) == 1   # one service to the layout: the rule, not the layout, keeps the examples apart
    assert pairs == {("a", "a"), ("b", "b")}
