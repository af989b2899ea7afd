"""Spring AMQP: the queues, exchanges and bindings a service declares (``@Bean`` methods with ``BindingBuilder``,
``@RabbitListener(bindings = @QueueBinding(..))``) link ``rabbitTemplate.convertAndSend(exchange, key, msg)`` to the
listeners whose queue is bound with a matching key (direct: equal; topic: AMQP wildcards; fanout: any), never a guess."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.links import amqp_topic_match

POM = "<project><artifactId>{}</artifactId></project>"
CONFIG = """package shop.shipping;

import org.springframework.amqp.core.*;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration
public class RabbitConfig {
    static final String ORDERS = "orders";

    @Bean Queue shipQueue() { return new Queue("shipping.orders", true); }
    @Bean Queue auditQueue() { return QueueBuilder.durable("audit").build(); }
    @Bean Queue refundQueue() { return new Queue("refunds"); }
    @Bean TopicExchange ordersExchange() { return new TopicExchange(ORDERS); }
    @Bean FanoutExchange broadcast() { return ExchangeBuilder.fanoutExchange("broadcast").durable(true).build(); }
    @Bean DirectExchange payments() { return new DirectExchange("payments"); }

    @Bean Binding shipping(Queue shipQueue, TopicExchange exchange) {
        return BindingBuilder.bind(shipQueue).to(exchange).with("order.*.created");
    }
    @Bean Binding audit() { return BindingBuilder.bind(auditQueue()).to(broadcast()); }
    @Bean Binding auditOrders() { return BindingBuilder.bind(auditQueue()).to(ordersExchange()).with("order.#"); }
    @Bean Binding refunds(Queue refundQueue) {
        return BindingBuilder.bind(refundQueue)
            .to(payments())
            .with("payment.refunded");
    }
}
"""
LISTENERS = """package shop.shipping;

import org.springframework.amqp.rabbit.annotation.*;

public class Listeners {
    @RabbitListener(queues = "shipping.orders")
    public void ship(String order) {}

    @RabbitListener(queues = "audit")
    public void audit(String event) {}

    @RabbitListener(queues = "refunds")
    public void refund(String payment) {}

    @RabbitListener(bindings = @QueueBinding(value = @Queue(value = "invoices", durable = "true"),
            exchange = @Exchange(value = "billing", type = ExchangeTypes.TOPIC), key = {"invoice.#", "bill.due"}))
    public void invoice(String invoice) {}

    @RabbitListener(bindings = @QueueBinding(value = @Queue, exchange = @Exchange("payments"), key = "payment.*"))
    public void literalStar(String payment) {}
}
"""
SENDER = """package shop.orders;

import org.springframework.amqp.core.TopicExchange;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

public class OrderSender {
    private final RabbitTemplate rabbitTemplate;

    public OrderSender(RabbitTemplate rabbitTemplate) { this.rabbitTemplate = rabbitTemplate; }

    public void created() { rabbitTemplate.convertAndSend("orders", "order.eu.created", "o"); }
    public void updated() { rabbitTemplate.convertAndSend("orders", "order.eu.updated", "o"); }
    public void shout() { rabbitTemplate.convertAndSend("broadcast", "anything", "o"); }
    public void refund() { rabbitTemplate.convertAndSend("payments", "payment.refunded", "o"); }
    public void star() { rabbitTemplate.convertAndSend("payments", "payment.x", "o"); }
    public void invoice() { rabbitTemplate.convertAndSend("billing", "invoice.eu.paid", "o"); }
    public void due() { rabbitTemplate.convertAndSend("billing", "bill.due", "o"); }
    public void direct() { rabbitTemplate.convertAndSend("", "refunds", "o"); }
    public void byBean(TopicExchange ordersExchange) {
        rabbitTemplate.convertAndSend(ordersExchange.getName(), "order.us.created", "o");
    }
    public void unknown(String key) { rabbitTemplate.convertAndSend("orders", key, "o"); }
}
"""

#: the sending service declares the exchange it sends to (its own bean: beans never cross services)
ORDERS_CONFIG = """package shop.orders;

import org.springframework.amqp.core.TopicExchange;
import org.springframework.context.annotation.Bean;

public class OrdersConfig {
    @Bean TopicExchange ordersExchange() { return new TopicExchange("orders"); }
}
"""


def _links(root: Path) -> tuple[dict[str, set[str]], dict[str, dict], list[str]]:
    files = {"shipping/pom.xml": POM.format("shipping"),
             "shipping/src/main/java/shop/shipping/RabbitConfig.java": CONFIG,
             "shipping/src/main/java/shop/shipping/Listeners.java": LISTENERS,
             "orders/pom.xml": POM.format("orders"), "orders/src/main/java/shop/orders/OrderSender.java": SENDER,
             "orders/src/main/java/shop/orders/OrdersConfig.java": ORDERS_CONFIG}
    nodes, edges = CodeGraph.build(write_tree(root, files)).snapshot()
    fqn = {i: n.props.get("fqn", "") for i, n in nodes.items()}
    declaring = {e.dst: fqn[e.src].split("(")[0].rsplit("#", 1)[-1] for e in edges.values()
                 if e.type == "DECLARES_PRODUCER"}
    exposing = {e.dst: fqn[e.src].split("(")[0].rsplit("#", 1)[-1] for e in edges.values() if e.type == "EXPOSES"}
    out: dict[str, set[str]] = {}
    for e in edges.values():
        if e.type == "ASYNC_CALLS":
            out.setdefault(declaring[e.src], set()).add(exposing[e.dst])
    producers = {declaring[i]: n.props for i, n in nodes.items() if n.kind == "producer"}
    config = next(n.props.get("config", []) for n in nodes.values() if n.kind == "microservice" and n.name == "shipping")
    return out, producers, config


def test_a_rabbit_template_send_reaches_the_listeners_whose_queue_is_bound_with_a_matching_key(tmp_path: Path):
    links, producers, config = _links(tmp_path)
    assert links == {
        "created": {"ship", "audit"},    # order.*.created (topic) and order.# (topic)
        "updated": {"audit"},            # only order.#
        "shout": {"audit"},              # a fanout exchange: every key
        "refund": {"refund"},            # direct: the equal key
        "invoice": {"invoice"}, "due": {"invoice"},   # @QueueBinding on the listener
        "direct": {"refund"},            # the default exchange: the queue's name
        "byBean": {"ship", "audit"},     # an injected exchange bean's getName()
    }
    # the service's configuration shows each binding its listeners are reached through
    assert "rabbit binding: queue shipping.orders <- topic exchange orders, key order.*.created " \
        "(shipping/src/main/java/shop/shipping/Listeners.java:6)" in config
    assert any(line.startswith("rabbit binding: queue (anonymous queue) <- direct exchange payments") for line in config)
    assert any(line.startswith("rabbit binding: queue invoices <- topic exchange billing, key invoice.#") for line in config)
    # on a direct exchange ``*`` is no wildcard; a key that does not fold stays unresolved, saying why
    assert producers["star"]["match"] == "unresolved" and "payments/payment.x" in producers["star"]["match_detail"]
    assert producers["unknown"]["match"] == "unresolved" and "key is not a constant" in producers["unknown"]["match_detail"]


@pytest.mark.parametrize(("pattern", "key", "matches"), [
    ("order.*", "order.created", True), ("order.*", "order.eu.created", False), ("order.#", "order", True),
    ("#", "", True), ("#.created", "a.b.created", True), ("*.created", "created", False), ("a.#.z", "a.z", True)])
def test_amqp_topic_patterns_follow_the_broker_rules(pattern: str, key: str, matches: bool):
    assert amqp_topic_match(pattern, key) is matches


PROFILES = """package shop.work;

import org.springframework.amqp.core.*;
import org.springframework.context.annotation.*;

@Configuration
public class WorkConfig {
    @Bean DirectExchange jobs() { return new DirectExchange("jobs"); }
    @Bean Queue named() { return new Queue("work.named"); }
    @Bean Queue anonymous() { return new AnonymousQueue(); }
    @Bean Binding b1(DirectExchange jobs, Queue named) { return BindingBuilder.bind(named).to(jobs).with("job.named"); }
    @Bean Binding b2(DirectExchange jobs, Queue anonymous) { return BindingBuilder.bind(anonymous).to(jobs).with("job.any"); }
    @Bean Binding b4(DirectExchange jobs, Queue named) { return BindingBuilder.bind(named).to(jobs).withQueueName(); }

    @Profile("a")
    static class A {
        @Bean Queue shared() { return new AnonymousQueue(); }
        @Bean Binding b3(DirectExchange jobs, Queue shared) { return BindingBuilder.bind(shared).to(jobs).with("job.a"); }
    }

    @Profile("b")
    static class B {
        @Bean Queue shared() { return new AnonymousQueue(); }
    }
}
"""
WORKERS = """package shop.work;

import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Autowired;

public class Workers {
    private RabbitTemplate rabbitTemplate;

    @Autowired private Queue named;

    @RabbitListener(queues = "#{named.name}")
    public void named(String job) {}

    @RabbitListener(queues = "#{anonymous.name}")
    public void anonymous(String job) {}

    @RabbitListener(queues = "#{shared.name}")
    public void shared(String job) {}

    public void sendNamed() { rabbitTemplate.convertAndSend("jobs", "job.named", "j"); }
    public void toQueue() { rabbitTemplate.convertAndSend(named.getName(), "j"); }
    public void sendAny() { rabbitTemplate.convertAndSend("jobs", "job.any", "j"); }
    public void sendA() { rabbitTemplate.convertAndSend("jobs", "job.a", "j"); }
    public void byQueueName() { rabbitTemplate.convertAndSend("jobs", "work.named", "j"); }
}
"""


def test_a_listener_names_a_queue_bean_and_a_bean_declared_twice_is_not_guessed(tmp_path: Path):
    files = {"work/pom.xml": POM.format("work"), "work/src/main/java/shop/work/WorkConfig.java": PROFILES,
             "work/src/main/java/shop/work/Workers.java": WORKERS}
    nodes, edges = CodeGraph.build(write_tree(tmp_path, files)).snapshot()
    fqn = {i: n.props.get("fqn", "").split("(")[0].rsplit("#", 1)[-1] for i, n in nodes.items()}
    owner = {e.dst: fqn[e.src] for e in edges.values() if e.type in ("EXPOSES", "DECLARES_PRODUCER")}
    links = {(owner[e.src], owner[e.dst]) for e in edges.values() if e.type == "ASYNC_CALLS"}
    # ``#{named.name}`` is the bean's queue; an anonymous queue is reached through its bindings only; a bean name
    # two profiles declare is not known, so its binding is not read
    assert links == {("sendNamed", "named"), ("sendAny", "anonymous"), ("toQueue", "named"), ("byQueueName", "named")}
    shared = [n for i, n in nodes.items() if n.kind == "route" and owner.get(i) == "shared"]
    assert [(n.props["resolved"], "#{shared.name}" in n.props["unresolved_reason"]) for n in shared] == [(False, True)]
