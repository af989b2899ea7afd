"""A MediatR request made by a method of the project (``var command = MapToCreateOrderCommand(message);
sender.Send(command)``, a consumer's usual shape) is of the one type every declaration of that method returns."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'
ORDERING = """using MediatR;

namespace Shop.Ordering;

public record CreateOrder(string User) : IRequest<int>;
public record CancelOrder(int Id) : IRequest;
public record BasketCheckedOut(string User);

public class CreateOrderHandler : IRequestHandler<CreateOrder, int>
{
    public Task<int> Handle(CreateOrder command, CancellationToken ct) => Task.FromResult(1);
}

public class CancelOrderHandler : IRequestHandler<CancelOrder>
{
    public Task Handle(CancelOrder command, CancellationToken ct) => Task.CompletedTask;
}

public class BasketCheckedOutConsumer(ISender sender)
{
    public async Task Consume(BasketCheckedOut message)
    {
        var command = MapToCreateOrder(message);
        await sender.Send(command);
    }

    public Task Direct(BasketCheckedOut message) => sender.Send(MapToCreateOrder(message));

    // two declarations of one name returning two types: which one is called is not read here
    public Task Either(int id) => sender.Send(Build(id));

    private CreateOrder MapToCreateOrder(BasketCheckedOut message) => new CreateOrder(message.User);
    private CreateOrder Build(string user) => new CreateOrder(user);
    private CancelOrder Build(int id) => new CancelOrder(id);
}
"""


def test_a_request_made_by_a_project_method_is_of_the_type_it_returns(tmp_path: Path):
    nodes, edges = CodeGraph.build(write_tree(tmp_path, {"Shop/Shop.csproj": WEB, "Shop/Ordering.cs": ORDERING})
                                   ).snapshot()
    fqn = {i: n.props.get("fqn") for i, n in nodes.items()}
    assert {(fqn[e.src], fqn[e.dst]) for e in edges.values() if e.props.get("kind") == "mediator"} == {
        ("Shop.Ordering.BasketCheckedOutConsumer.Consume", "Shop.Ordering.CreateOrderHandler.Handle"),
        ("Shop.Ordering.BasketCheckedOutConsumer.Direct", "Shop.Ordering.CreateOrderHandler.Handle")}
