"""A message type's blast radius holds the code that handles it and the code that sends it: on a bus that routes by
type (an event bus, MassTransit, NServiceBus) a change to the type's shape breaks its listeners' handlers and its
senders, though neither calls a member of it (a handler takes it as a parameter, a sender maps a DTO to it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.code_tools import node, run, write_tree

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'
LIB = '<Project Sdk="Microsoft.NET.Sdk"></Project>'

#: a contracts library both services use (the message type lives in neither)
CONTRACTS = """namespace Shop.Contracts;

public record BasketCheckedOut(string User, decimal Total);
public record CheckoutDto(string User, decimal Total);
"""
BASKET = """using MassTransit;
using Mapster;
using Shop.Contracts;

namespace Shop.Basket;

public class Checkout(IPublishEndpoint publish)
{
    public async Task Place(CheckoutDto dto)
    {
        var message = dto.Adapt<BasketCheckedOut>();
        await publish.Publish(message);
    }
}

public class CheckoutApi(Checkout checkout)
{
    public Task Post(CheckoutDto dto) => checkout.Place(dto);
}
"""
ORDERING = """using MassTransit;
using Shop.Contracts;

namespace Shop.Ordering;

public class BasketCheckedOutConsumer : IConsumer<BasketCheckedOut>
{
    public Task Consume(ConsumeContext<BasketCheckedOut> context) => Task.CompletedTask;
}
"""

#: an event bus whose services each declare their own class of the event (eShop's habit): each class is its own
#: service's contract, never another's
BUS = """namespace Shop.Bus;

public record IntegrationEvent;
public interface IEventBus { Task PublishAsync(IntegrationEvent e); }
public interface IEventBusBuilder { }
"""
SHIPPING = """using Shop.Bus;

namespace Shop.Shipping;

public record OrderShipped(int Id) : IntegrationEvent;

public class Ship(IEventBus bus)
{
    public Task Go(int id) => bus.PublishAsync(new OrderShipped(id));
}
"""


def subscriber(service: str) -> str:
    return f"""using Shop.Bus;

namespace Shop.{service};

public record OrderShipped(int Id) : IntegrationEvent;

public static class Setup
{{
    public static void Go(IEventBusBuilder builder) => builder.AddSubscription<OrderShipped, OrderShippedHandler>();
}}

public class OrderShippedHandler
{{
    public Task Handle(OrderShipped e) => Task.CompletedTask;
}}
"""


@pytest.fixture
def project(tmp_path: Path, runtime):
    tree = write_tree(tmp_path / "shop", {
        "Contracts/Contracts.csproj": LIB, "Contracts/Messages.cs": CONTRACTS,
        "Basket/Basket.csproj": WEB, "Basket/Checkout.cs": BASKET,
        "Ordering/Ordering.csproj": WEB, "Ordering/Consumers.cs": ORDERING,
        "Bus/Bus.csproj": LIB, "Bus/Bus.cs": BUS,
        "Shipping/Shipping.csproj": WEB, "Shipping/Ship.cs": SHIPPING,
        "Web/Web.csproj": WEB, "Web/Events.cs": subscriber("Web"),
        "Hooks/Hooks.csproj": WEB, "Hooks/Events.cs": subscriber("Hooks")})
    return runtime, tree


def _reached(project, identifier: str, **fields) -> dict[str, tuple[int, list[str]]]:
    out = run(*project, "impact", id=node(project, identifier), **fields)
    return {r.node.label: (r.depth, [h.edge for h in r.path]) for r in out.results}


def test_a_shared_message_type_is_reached_by_its_consumers_handler_and_its_sender(project):
    reached = _reached(project, "Shop.Contracts.BasketCheckedOut")
    # the consumer takes it (ConsumeContext<T>), the sender maps a DTO to it: neither calls a member of it
    assert reached["Shop.Ordering.BasketCheckedOutConsumer.Consume"] == (1, ["EXPOSES", "CARRIES"])
    assert reached["Shop.Basket.Checkout.Place"] == (1, ["DECLARES_PRODUCER", "CARRIES"])
    assert reached["Shop.Basket.CheckoutApi.Post"][0] == 2   # and the sender's callers, a call further
    assert {"masstransit BasketCheckedOut"} == {label for label in reached if label.startswith("masstransit")}
    # the DTO is carried by nothing: its radius is its own
    assert not any(label.endswith("Consume") for label in _reached(project, "Shop.Contracts.CheckoutDto"))


def test_each_services_own_class_of_an_event_is_reached_by_its_own_handler_only(project):
    web = _reached(project, "Shop.Web.OrderShipped")
    hooks = _reached(project, "Shop.Hooks.OrderShipped")
    shipping = _reached(project, "Shop.Shipping.OrderShipped")
    assert "Shop.Web.OrderShippedHandler.Handle" in web and "Shop.Hooks.OrderShippedHandler.Handle" not in web
    assert "Shop.Hooks.OrderShippedHandler.Handle" in hooks and "Shop.Web.OrderShippedHandler.Handle" not in hooks
    # a listener's senders reach it through the link, as they reach any listener
    assert "Shop.Shipping.Ship.Go" in web
    # the publisher's own class: its sender (it also builds it with new), never the other services' handlers
    assert shipping["eventbus OrderShipped"] == (1, ["CARRIES"]) and "Shop.Shipping.Ship.Go" in shipping
    assert not any(label.endswith("OrderShippedHandler.Handle") for label in shipping)


def test_two_types_of_the_topics_name_where_the_carrier_runs_give_it_to_neither(tmp_path: Path, runtime):
    v2 = "using Shop.Bus;\n\nnamespace Shop.Shipping.V2;\n\npublic record OrderShipped(int Id, string By) : IntegrationEvent;\n"
    tree = write_tree(tmp_path / "shop", {"Bus/Bus.csproj": LIB, "Bus/Bus.cs": BUS,
                                          "Shipping/Shipping.csproj": WEB, "Shipping/Ship.cs": SHIPPING,
                                          "Shipping/V2.cs": v2,
                                          "Web/Web.csproj": WEB, "Web/Events.cs": subscriber("Web")})
    project = (runtime, tree)
    for fqn in ("Shop.Shipping.OrderShipped", "Shop.Shipping.V2.OrderShipped"):
        assert not any(label.startswith("eventbus") for label in _reached(project, fqn))   # which one: not known


def test_only_a_walk_in_over_the_message_keys_takes_the_carriers(project):
    assert "Shop.Ordering.BasketCheckedOutConsumer.Consume" not in _reached(
        project, "Shop.Contracts.BasketCheckedOut", edge_types=["CALLS", "EXPOSED_BY"])
    assert not _reached(project, "Shop.Contracts.BasketCheckedOut", direction="out")

