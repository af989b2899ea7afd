"""C# tells ``IHandler`` from ``IHandler<T>`` by the number of type parameters: two project types of one name and
namespace are two types, and a base type written with type arguments is the one declaring as many (an event bus's
``IHandler<in TEvent> : IHandler`` pair is the common case). Before, the supertype edge went to whichever came
first in the same project, and across projects nowhere (two candidates, no guess)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.csharp.resolve import generic_arity

LIBRARY = '<Project Sdk="Microsoft.NET.Sdk"></Project>'
APP = ('<Project Sdk="Microsoft.NET.Sdk.Web"><ItemGroup>'
       '<ProjectReference Include="..\\Bus\\Bus.csproj" /></ItemGroup></Project>')
HANDLERS = """namespace Shop.Bus;

public interface IHandler<in TEvent> : IHandler
    where TEvent : class
{
    Task Handle(TEvent e);
}

public interface IHandler
{
}

public interface IHandler<in TEvent, TReply>
{
    Task<TReply> Handle(TEvent e);
}
"""
ORDERS = """namespace Shop.Orders;

public class PaidHandler :
    IHandler<Paid>
{
    public Task Handle(Paid e) => Task.CompletedTask;
}

public class QuoteHandler : Shop.Bus.IHandler<Quote, decimal>
{
    public Task<decimal> Handle(Quote e) => Task.FromResult(1m);
}

public class Audit : IHandler
{
}

public class Paid { }
public class Quote { }
"""


def _supertypes(tmp_path: Path) -> dict[str, set[str]]:
    """class fqn -> the signatures of the project types its EXTENDS edges reach."""
    nodes, edges = CodeGraph.build(write_tree(tmp_path, {
        "Bus/Bus.csproj": LIBRARY, "Bus/IHandler.cs": HANDLERS,
        "Shop/Shop.csproj": APP, "Shop/GlobalUsings.cs": "global using Shop.Bus;\n", "Shop/Orders.cs": ORDERS,
    })).snapshot()
    out: dict[str, set[str]] = {}
    for edge in edges.values():
        if edge.type == "EXTENDS":
            out.setdefault(nodes[edge.src].props["signature"], set()).add(nodes[edge.dst].props["signature"])
    return out


def test_a_base_type_is_the_project_type_of_its_arity(tmp_path: Path):
    found = _supertypes(tmp_path)
    generic = "public interface IHandler<in TEvent> : IHandler where TEvent : class"
    assert found["public class PaidHandler : IHandler<Paid>"] == {generic}
    assert found["public class QuoteHandler : Shop.Bus.IHandler<Quote, decimal>"] == {
        "public interface IHandler<in TEvent, TReply>"}
    assert found["public class Audit : IHandler"] == {"public interface IHandler"}
    # the generic interface extends its non-generic namesake: not itself
    assert found[generic] == {"public interface IHandler"}


@pytest.mark.parametrize(("written", "arity"), [
    ("Order", 0), ("IHandler<>", 1), ("IHandler<,>", 2), ("Map<string, List<int>>", 2),
    ("Outer<A>.Inner<B, C>", 2), ("Outer<A>.Inner", 0), ("Box<int>?", 1), ("Box<int>[]", 1),
])
def test_generic_arity_counts_the_last_names_type_arguments(written: str, arity: int):
    assert generic_arity(written) == arity
