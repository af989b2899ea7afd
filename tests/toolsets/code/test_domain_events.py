"""Domain events recorded by an entity and published later through MediatR: the recording triggers the handlers of
the event's type, as eShop's ``Entity.AddDomainEvent(INotification)`` and Clean Architecture's
``AddDomainEvent(IDomainEvent)`` (``IDomainEvent : INotification``) with an EF Core interceptor that publishes them."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'
LIB = '<Project Sdk="Microsoft.NET.Sdk"></Project>'

#: the entity base records events of a project notification type; an unrelated list's Add is no recording
DOMAIN = """using MediatR;

namespace Shop.Domain;

public interface IDomainEvent : INotification { }

public abstract class Aggregate
{
    private readonly List<IDomainEvent> _domainEvents = new();
    public IReadOnlyList<IDomainEvent> DomainEvents => _domainEvents.AsReadOnly();

    public void AddDomainEvent(IDomainEvent domainEvent)
    {
        _domainEvents.Add(domainEvent);
    }

    public void ClearDomainEvents() => _domainEvents.Clear();
}

public record OrderPlaced(int Id) : IDomainEvent;
public record OrderPaid(int Id) : IDomainEvent;
public record OrderShipped(int Id) : IDomainEvent;

public class Note
{
    private readonly List<string> _lines = new();

    public void AddLine(string line) => _lines.Add(line);
}

public class Order : Aggregate
{
    public int Id { get; private set; }

    public static Order Place(int id)
    {
        var order = new Order { Id = id };
        order.AddDomainEvent(new OrderPlaced(id));
        return order;
    }

    public void Pay()
    {
        var paid = new OrderPaid(Id);
        AddDomainEvent(paid);
    }

    public void Forward(IDomainEvent recorded) => AddDomainEvent(recorded);

    public void Ship(Note note) => note.AddLine("shipped");
}
"""
HANDLERS = """using MediatR;
using Shop.Domain;

namespace Shop.Application;

public class OrderPlacedHandler : INotificationHandler<OrderPlaced>
{
    public Task Handle(OrderPlaced notification, CancellationToken cancellationToken) => Task.CompletedTask;
}

public class OrderPlacedAudit : INotificationHandler<OrderPlaced>
{
    public Task Handle(OrderPlaced notification, CancellationToken cancellationToken) => Task.CompletedTask;
}

public class OrderPaidHandler : INotificationHandler<OrderPaid>
{
    public Task Handle(OrderPaid notification, CancellationToken cancellationToken) => Task.CompletedTask;
}
"""
#: an EF Core interceptor publishing every recorded event (its type is not known where it is published)
INTERCEPTOR = """using MediatR;
using Microsoft.EntityFrameworkCore;
using Shop.Domain;

namespace Shop.Infrastructure;

public class DispatchDomainEventsInterceptor(IMediator mediator) : SaveChangesInterceptor
{
    public async Task DispatchDomainEvents(DbContext context)
    {
        var aggregates = context.ChangeTracker.Entries<Aggregate>().Select(a => a.Entity);
        var domainEvents = aggregates.SelectMany(a => a.DomainEvents).ToList();
        foreach (var domainEvent in domainEvents)
            await mediator.Publish(domainEvent);
    }
}
"""


def _triggers(root: Path, files: dict[str, str]) -> set[tuple[str, str]]:
    nodes, edges = CodeGraph.build(write_tree(root, files)).snapshot()
    return {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"]) for e in edges.values()
            if e.type == "TRIGGERS" and e.props.get("kind") == "domain_event"}


def test_recording_a_domain_event_triggers_every_handler_of_its_type_where_the_events_are_published(tmp_path):
    triggers = _triggers(tmp_path, {"Ordering/Ordering.csproj": WEB, "Ordering/Domain.cs": DOMAIN,
                                    "Ordering/Handlers.cs": HANDLERS, "Ordering/Interceptor.cs": INTERCEPTOR})
    # a new object passed in, or a local every value of which is one; every handler of a notification runs;
    # a parameter of the base type (Forward) and another list's Add (Ship) record nothing known
    assert triggers == {("Shop.Domain.Order.Place", "Shop.Application.OrderPlacedHandler.Handle"),
                        ("Shop.Domain.Order.Place", "Shop.Application.OrderPlacedAudit.Handle"),
                        ("Shop.Domain.Order.Pay", "Shop.Application.OrderPaidHandler.Handle")}


def test_recorded_events_nobody_publishes_or_another_service_handles_trigger_nothing(tmp_path):
    # no file of the service publishes what it records: the events stay on the entities
    assert not _triggers(tmp_path / "quiet", {"Ordering/Ordering.csproj": WEB, "Ordering/Domain.cs": DOMAIN,
                                              "Ordering/Handlers.cs": HANDLERS})
    # the handlers are another deployed service's: MediatR publishes in its own process
    assert not _triggers(tmp_path / "apart", {"Ordering/Ordering.csproj": WEB, "Ordering/Domain.cs": DOMAIN,
                                              "Ordering/Interceptor.cs": INTERCEPTOR,
                                              "Billing/Billing.csproj": WEB, "Billing/Handlers.cs": HANDLERS})


def test_a_method_of_the_recorders_name_that_records_nothing_makes_the_name_no_recorder(tmp_path):
    other = ("namespace Shop.Log;\n\npublic class Journal\n{\n    public void AddDomainEvent(string text) { }\n}\n")
    assert not _triggers(tmp_path, {"Ordering/Ordering.csproj": WEB, "Ordering/Domain.cs": DOMAIN,
                                    "Ordering/Handlers.cs": HANDLERS, "Ordering/Interceptor.cs": INTERCEPTOR,
                                    "Ordering/Journal.cs": other})


def test_the_dispatcher_triggers_the_handlers_of_every_recorded_type(tmp_path):
    nodes, edges = CodeGraph.build(write_tree(tmp_path, {
        "Ordering/Ordering.csproj": WEB, "Ordering/Domain.cs": DOMAIN, "Ordering/Handlers.cs": HANDLERS,
        "Ordering/Interceptor.cs": INTERCEPTOR})).snapshot()
    dispatch = {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"]) for e in edges.values()
                if e.type == "TRIGGERS" and e.props.get("kind") == "domain_event_dispatch"}
    publisher = "Shop.Infrastructure.DispatchDomainEventsInterceptor.DispatchDomainEvents"
    # OrderShipped is recorded by no code and OrderPlaced/OrderPaid are: only their handlers; never a CALLS
    assert dispatch == {(publisher, "Shop.Application.OrderPlacedHandler.Handle"),
                        (publisher, "Shop.Application.OrderPlacedAudit.Handle"),
                        (publisher, "Shop.Application.OrderPaidHandler.Handle")}
