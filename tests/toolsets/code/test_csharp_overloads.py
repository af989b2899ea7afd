"""C# overloads of one name and arity: the arguments' known types (literals, locals, parameters and fields
declared with a built-in type) pick the one overload they do not rule out; an argument of unknown type, or two
overloads both possible, leave the call ambiguous (never the first)."""

from __future__ import annotations

from helpers.code_graph import render
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.csharp.overloads import excludes, literal_type

LIB = '<Project Sdk="Microsoft.NET.Sdk"></Project>'

CATALOG = """namespace Shelf;

public class Catalog
{
    public string Find(string text) => text;
    public string Find(IEnumerable<int> ids) => "";
    public string Find(long id) => "";
    public int Count(long id) => 0;
    public int Count(double weight) => 1;
    public int Put(string text, long id) => 0;
    public int Put(long id, string text) => 1;
}
"""

USER = """namespace Shelf;

public class Desk(Catalog catalog)
{
    private readonly string _last = "";

    public void ByText(string typed) { catalog.Find(typed); }
    public void ByLiteral() { catalog.Find("lamp"); }
    public void ByField() { catalog.Find(_last); }
    public void ById() { int id = 4; catalog.Find(id); }
    public void ByList(List<int> ids) { catalog.Find(ids); }
    public void Unknown(Request r) { catalog.Find(r.Text); }
    public void Widened() { catalog.Count(3); }
    public void Named() { catalog.Find(text: "lamp"); }
    public void Two() { catalog.Put(id: 3, text: "lamp"); }
}

public record Request(string Text);
"""


def test_overloads_of_one_arity_are_told_apart_by_known_argument_types(tmp_path):
    write_tree(tmp_path, {"shelf/shelf.csproj": LIB, "shelf/Catalog.cs": CATALOG, "shelf/Desk.cs": USER})
    lines = render(CodeGraph.build(tmp_path))
    calls = sorted(line for line in lines if line.startswith("E CALLS Shelf.Desk."))
    assert calls == ["E CALLS Shelf.Desk.ByField -> Shelf.Catalog.Find@5 [receiver_type]",
                     "E CALLS Shelf.Desk.ById -> Shelf.Catalog.Find@7 [receiver_type]",
                     "E CALLS Shelf.Desk.ByLiteral -> Shelf.Catalog.Find@5 [receiver_type]",
                     "E CALLS Shelf.Desk.ByText -> Shelf.Catalog.Find@5 [receiver_type]",
                     "E CALLS Shelf.Desk.Named -> Shelf.Catalog.Find@5 [receiver_type]"], calls
    ambiguous = sorted(line.split(" calls ")[0] for line in lines
                       if line.startswith("U Shelf.Desk.") and "reason=ambiguous" in line)
    # a List<int> and a member's type are not read; int widens to both long and double; two arguments, one
    # named, may stand at either place
    assert ambiguous == ["U Shelf.Desk.ByList", "U Shelf.Desk.Two", "U Shelf.Desk.Unknown",
                         "U Shelf.Desk.Widened"], ambiguous


def test_literal_types_and_what_they_rule_out():
    assert [literal_type(t) for t in ('"a"', '$"a{b}"', "nameof(x)", "'c'", "7", "7L", "1.5", "2m", "x")] == [
        "string", "string", "string", "char", "int", "long", "double", "decimal", ""]
    assert excludes("string", "IEnumerable<int>") and not excludes("string", "IEnumerable<char>")
    assert excludes("int", "string") and not excludes("int", "long") and excludes("long", "int")
    assert not excludes("string", "Order") and not excludes("string", "object") and not excludes("int", "int?")


MARKS = """namespace Shelf;

public class Marks
{
    public void Mark(byte code) { }
    public void Mark(object note) { }
}

public class Clerk(Marks marks)
{
    public void Small() { marks.Mark(5); }
    public void Large() { marks.Mark(300); }
}
"""


def test_an_integer_literal_a_smaller_integral_parameter_holds_does_not_rule_that_overload_out(tmp_path):
    """C# converts the constant ``5`` to ``byte`` (and prefers that overload to ``object``): the call is not the
    ``object`` overload's; ``300`` does not fit a byte, so there only ``Mark(object)`` remains."""
    write_tree(tmp_path, {"shelf/shelf.csproj": LIB, "shelf/Marks.cs": MARKS})
    lines = render(CodeGraph.build(tmp_path))
    calls = sorted(line for line in lines if line.startswith("E CALLS Shelf.Clerk."))
    assert calls == ["E CALLS Shelf.Clerk.Large -> Shelf.Marks.Mark@6 [receiver_type]"], calls
    assert not excludes("int", "byte", "5") and excludes("int", "byte", "300") and excludes("int", "byte", "id")
    assert not excludes("long", "ulong", "7L") and excludes("int", "ulong", "-1") and excludes("int", "char", "5")
