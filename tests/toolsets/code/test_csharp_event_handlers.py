"""A C# method group subscribed to an event (``processor.MessageReceived += OnMessage``) runs when the event
fires: the subscribing method reaches it in a trace (a queue processor's hosted service registers its message
handler this way, and every step after it hangs on that edge)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

WEB = '<Project Sdk="Microsoft.NET.Sdk.Worker"></Project>'
WORKER = """namespace Shop.Worker;

public class Processor
{
    public event Func<string, Task> MessageReceived;
    public event Action<string> Failed;
    public event Action Stopped;
    public event Action Paused;
    public Task StartAsync() => Task.CompletedTask;
}

public class Audit
{
    public void OnStopped() { }
    public int Total { get; set; }
    public int Count => 1;
}

public class Listener
{
    private readonly Processor _processor = new Processor();
    private readonly Audit _audit = new Audit();
    private int _count;

    public async Task StartAsync(int step)
    {
        _processor.MessageReceived += HandleAsync;
        _processor.Failed += this.OnFailed;
        _processor.Stopped += _audit.OnStopped;
        _processor.Paused -= OnPaused;
        _count += step;
        _count += _audit.Total;
        _count += _audit.Count;
        await _processor.StartAsync();
    }

    private Task HandleAsync(string body) => Task.CompletedTask;
    private void OnFailed(string error) { }
    private void OnPaused() { }
    private int step() => 1;
}
"""


def _calls_of(tmp_path: Path, owner: str) -> set[str]:
    nodes, edges = CodeGraph.build(write_tree(tmp_path, {"Shop/Shop.csproj": WEB,
                                                         "Shop/Listener.cs": WORKER})).snapshot()
    fqn = {i: n.props.get("fqn") for i, n in nodes.items()}
    return {fqn.get(e.dst) for e in edges.values() if e.type == "CALLS" and fqn.get(e.src) == owner}


def test_a_subscribed_method_group_is_reached_by_the_subscribing_method(tmp_path: Path):
    calls = _calls_of(tmp_path, "Shop.Worker.Listener.StartAsync")
    # bare, this-qualified and another object's method groups; an unsubscribed one (-=) runs nothing; a
    # compound assignment of a value (a parameter, another object's properties) is no subscription, even where
    # a method shares the parameter's name
    assert calls == {"Shop.Worker.Listener.HandleAsync", "Shop.Worker.Listener.OnFailed",
                     "Shop.Worker.Audit.OnStopped", "Shop.Worker.Processor.StartAsync"}


WRAPPED = """namespace Shop.Worker;

public class Processor
{
    public event EventHandler<string> Received;
    public event EventHandler Closed;
}

public struct Money
{
    public Money(int cents) { }
    public static Money operator +(Money a, Money b) => a;
}

public class Listener
{
    private readonly Processor _processor = new Processor();
    private Money _total;
    public int Cents { get; set; }

    public void Start(int cents)
    {
        _processor.Received += new EventHandler<string>(OnReceived);
        _processor.Closed += new EventHandler(this.OnClosed);
        _total += new Money(cents);
        _total += new Money(Cents);
    }

    private void OnReceived(object sender, string body) { }
    private void OnClosed(object sender, EventArgs e) { }
    private int cents() => 1;
}
"""


def test_a_method_group_wrapped_in_its_delegate_is_reached_too(tmp_path: Path):
    """``+= new EventHandler(OnClosed)`` (the form before C# 2's method group conversion) subscribes the method as
    ``+= OnClosed`` does; adding a constructed value (``+= new Money(cents)``, a parameter or property, even where a
    method shares the parameter's name) subscribes nothing."""
    nodes, edges = CodeGraph.build(write_tree(tmp_path, {"Shop/Shop.csproj": WEB,
                                                         "Shop/Listener.cs": WRAPPED})).snapshot()
    fqn = {i: n.props.get("fqn") for i, n in nodes.items()}
    calls = {fqn.get(e.dst) for e in edges.values() if e.type == "CALLS"
             and fqn.get(e.src) == "Shop.Worker.Listener.Start"}
    assert {"Shop.Worker.Listener.OnReceived", "Shop.Worker.Listener.OnClosed"} <= calls
    assert "Shop.Worker.Listener.cents" not in calls
