"""A C# method declared ``Task<T>`` (or ``ValueTask<T>``) gives ``T`` when awaited: a local assigned ``await
repo.GetAsync(id)`` is a ``T``, and a call on it is a call of ``T``'s method (eShop's command handlers load an
aggregate this way and change it)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'
ORDERS = """namespace Shop.Orders;

public class Order
{
    public void Pay() { }
    public void Ship() { }
}

public class Basket
{
    public void Empty() { }
}

public interface IOrderRepository
{
    Task<Order> GetAsync(int id);
    ValueTask<Order?> FindAsync(int id);
    Task<List<Order>> ListAsync();
    Task SaveAsync();
}

public class PayHandler(IOrderRepository orders)
{
    public async Task Handle(int id)
    {
        var order = await orders.GetAsync(id);
        order.Pay();
        var found = await orders.FindAsync(id);
        found.Ship();
        var all = await orders.ListAsync();
        all.Clear();
        await orders.SaveAsync();
    }
}
"""


def test_a_local_awaited_from_a_task_of_t_is_a_t(tmp_path: Path):
    nodes, edges = CodeGraph.build(write_tree(tmp_path, {"Shop/Shop.csproj": WEB, "Shop/Orders.cs": ORDERS})).snapshot()
    fqn = {i: n.props.get("fqn") for i, n in nodes.items()}
    calls = {fqn.get(e.dst) for e in edges.values()
             if e.type == "CALLS" and fqn.get(e.src) == "Shop.Orders.PayHandler.Handle"}
    # a Task of a list is a list (no project type: its Clear is no project method); a plain Task gives nothing
    assert calls == {"Shop.Orders.Order.Pay", "Shop.Orders.Order.Ship", "Shop.Orders.IOrderRepository.GetAsync",
                     "Shop.Orders.IOrderRepository.FindAsync", "Shop.Orders.IOrderRepository.ListAsync",
                     "Shop.Orders.IOrderRepository.SaveAsync"}
