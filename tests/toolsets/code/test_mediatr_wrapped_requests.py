"""A generic request that wraps another (``IdentifiedCommand<T, R>``, an idempotency or retry envelope) is handled
by a generic handler that sends the wrapped one on (``mediator.Send(message.Command)``): the trace carries on from
the wrapper's handler to the handler of each request the project sends wrapped, and says it is dispatch
(``kind: mediator``, ``wrapped_in``), never a direct call."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'
ENVELOPE = """using MediatR;

namespace Shop.Ordering;

public class Identified<T, R> : IRequest<R> where T : IRequest<R>
{
    public T Inner { get; }
    public Guid Id { get; }
    public Identified(T inner, Guid id) { Inner = inner; Id = id; }
}

public record Retried<TCommand>(TCommand Command, int Attempts) : IRequest<bool>;

public record PlaceOrder(string User) : IRequest<bool>;
public record ShipOrder(int Id) : IRequest<bool>;
public record PayOrder(int Id) : IRequest<bool>;
public record Unsent(int Id) : IRequest<bool>;

public class PlaceOrderHandler : IRequestHandler<PlaceOrder, bool>
{
    public Task<bool> Handle(PlaceOrder command, CancellationToken ct) => Task.FromResult(true);
}
public class ShipOrderHandler : IRequestHandler<ShipOrder, bool>
{
    public Task<bool> Handle(ShipOrder command, CancellationToken ct) => Task.FromResult(true);
}
public class PayOrderHandler : IRequestHandler<PayOrder, bool>
{
    public Task<bool> Handle(PayOrder command, CancellationToken ct) => Task.FromResult(true);
}
public class UnsentHandler : IRequestHandler<Unsent, bool>
{
    public Task<bool> Handle(Unsent command, CancellationToken ct) => Task.FromResult(true);
}

// generic over what it wraps: bound by each sender; the wrapped value read through a local
public abstract class IdentifiedHandler<T, R> : IRequestHandler<Identified<T, R>, R> where T : IRequest<R>
{
    private readonly IMediator _mediator;
    protected IdentifiedHandler(IMediator mediator) { _mediator = mediator; }
    public async Task<R> Handle(Identified<T, R> message, CancellationToken ct)
    {
        var inner = message.Inner;
        return await _mediator.Send(inner, ct);
    }
}

// bound by its base: only PayOrder, whatever else is sent wrapped
public class RetriedPayHandler(ISender sender) : IRequestHandler<Retried<PayOrder>, bool>
{
    public Task<bool> Handle(Retried<PayOrder> request, CancellationToken ct) => sender.Send(request.Command, ct);
}

public class OrdersApi(IMediator mediator)
{
    public async Task Place(string user)
    {
        var request = new Identified<PlaceOrder, bool>(new PlaceOrder(user), Guid.NewGuid());
        await mediator.Send(request);
    }

    public Task Ship(int id) => mediator.Send(new Identified<ShipOrder, bool>(new ShipOrder(id), Guid.NewGuid()));

    public Task Pay(int id) => mediator.Send(new Retried<PayOrder>(new PayOrder(id), 3));
}
"""


def _dispatch(tmp_path: Path) -> set[tuple[str, str, str | None]]:
    nodes, edges = CodeGraph.build(write_tree(tmp_path, {"Shop/Shop.csproj": WEB, "Shop/Ordering.cs": ENVELOPE})
                                   ).snapshot()
    fqn = {i: n.props.get("fqn") for i, n in nodes.items()}
    return {(fqn[e.src].removeprefix("Shop.Ordering."), fqn[e.dst].removeprefix("Shop.Ordering."),
             e.props.get("wrapped_in")) for e in edges.values() if e.props.get("kind") == "mediator"}


def test_a_wrapper_handler_sends_on_each_request_sent_wrapped(tmp_path: Path):
    found = _dispatch(tmp_path)
    assert {(s, d, w) for s, d, w in found if w} == {
        ("IdentifiedHandler.Handle", "PlaceOrderHandler.Handle", "Identified"),   # a local made wrapped
        ("IdentifiedHandler.Handle", "ShipOrderHandler.Handle", "Identified"),    # made wrapped inline
        ("RetriedPayHandler.Handle", "PayOrderHandler.Handle", "Retried")}        # the base names the type
    # the senders still reach the wrapper's handler, not the wrapped one directly
    assert ("OrdersApi.Place", "IdentifiedHandler.Handle", None) in found
    assert not any(d == "UnsentHandler.Handle" for _, d, _ in found)


def test_a_wrapper_send_of_a_value_not_known_draws_nothing_on(tmp_path: Path):
    # the handler sends something that is not the wrapped member: no edge on (never a guess)
    source = ENVELOPE.replace("var inner = message.Inner;", "var inner = Pick(message);") + \
        "public static class Picks { }\n"
    nodes, edges = CodeGraph.build(write_tree(tmp_path, {"Shop/Shop.csproj": WEB, "Shop/Ordering.cs": source})
                                   ).snapshot()
    fqn = {i: n.props.get("fqn") for i, n in nodes.items()}
    assert not {fqn[e.src] for e in edges.values() if e.props.get("wrapped_in") == "Identified"}
