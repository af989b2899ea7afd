"""Redis pub/sub in C# (StackExchange.Redis): ``PublishAsync`` on a subscriber is a producer, ``Subscribe`` a
listener route; a channel with a run-time part reaches a subscription with one at the same place and a pattern
subscription by glob; a subscription kept in a property whose setter subscribes is the method that assigns the
property (a Blazor component deriving from the base); MediatR's ``Publish`` is no Redis publish."""

from __future__ import annotations

from helpers.code_graph import render
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.links import redis_channel_reaches

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'

STOCK = """using StackExchange.Redis;
using MediatR;

namespace Depot.Stock;

public class Levels(IConnectionMultiplexer mux, IMediator mediator)
{
    public async Task Changed(int itemId)
    {
        await mux.GetSubscriber().PublishAsync(RedisChannel.Literal($"item:{itemId}"), "changed");
        ISubscriber bus = mux.GetSubscriber();
        await bus.PublishAsync(new RedisChannel("restock", RedisChannel.PatternMode.Literal), "now");
        await mediator.Publish(new LevelsChanged(itemId), default);
    }

    public Task Nobody(string name) => mux.GetSubscriber().PublishAsync(name, "x");
}
"""

LISTENING = """using Microsoft.AspNetCore.Components;
using StackExchange.Redis;

namespace Depot.Board.Pages;

public abstract class Listening : ComponentBase
{
    private RedisChannel? _watched;

    [Inject] private IConnectionMultiplexer Mux { get; set; } = default!;

    protected RedisChannel? Watched
    {
        get => _watched;
        set
        {
            var sub = Mux.GetSubscriber();
            _watched = value;
            sub.Subscribe(_watched.Value, Arrived);
        }
    }

    void Arrived(RedisChannel channel, RedisValue value) { }
}
"""

ITEM_PAGE = """@page "/items/{ItemId:int}"
@inherits Listening

<p>@ItemId</p>

@code {
    [Parameter] public int ItemId { get; set; }

    protected override void OnParametersSet()
    {
        Watched = RedisChannel.Literal($"item:{ItemId}");
    }
}
"""

RESTOCK = """using StackExchange.Redis;

namespace Depot.Board;

public class Restock(IConnectionMultiplexer mux)
{
    public async Task Start()
    {
        var sub = mux.GetSubscriber();
        await sub.SubscribeAsync(RedisChannel.Pattern("item:*"), (channel, value) => { });
        await sub.SubscribeAsync("restock", (channel, value) => { });
    }
}
"""


def test_publish_and_subscribe_link_by_channel_and_property_setters_subscribe_for_their_assigners(tmp_path):
    write_tree(tmp_path, {"stock/stock.csproj": WEB, "stock/Levels.cs": STOCK,
                          "board/board.csproj": WEB, "board/Pages/Listening.cs": LISTENING,
                          "board/Pages/Item.razor": ITEM_PAGE, "board/Restock.cs": RESTOCK})
    lines = render(CodeGraph.build(tmp_path))
    links = sorted(line for line in lines if line.startswith("E ASYNC_CALLS"))
    assert links == ["E ASYNC_CALLS producer:redis item:{?} -> route:redis item:* [cross_service]",
                     "E ASYNC_CALLS producer:redis item:{?} -> route:redis item:{?} [cross_service]",
                     "E ASYNC_CALLS producer:redis restock -> route:redis restock [cross_service]"]
    routes = sorted(line.split(" service=")[0] for line in lines if line.startswith("R redis"))
    assert routes == ["R redis item:* framework=redis_pattern handler=Depot.Board.Restock.Start",
                      "R redis item:{?} framework=redis_pubsub handler=board.Pages.Item.OnParametersSet",
                      "R redis restock framework=redis_pubsub handler=Depot.Board.Restock.Start"]
    producers = [line for line in lines if line.startswith("P redis")]
    # a channel that is a parameter alone is unresolved; MediatR's Publish is none
    assert len(producers) == 3, producers
    assert any(line.startswith("P redis {?") and "match=unresolved" in line for line in producers), producers


def test_channel_matching_by_literal_text_runtime_parts_and_globs():
    assert redis_channel_reaches("item:{?:id}", "item:{?:ItemId}", pattern=False)
    assert not redis_channel_reaches("item:{?:id}", "item:{?:a}:{?:b}", pattern=False)
    assert redis_channel_reaches("item:{?:id}", "item:*", pattern=True)
    assert redis_channel_reaches("item:7", "item:?", pattern=True)
    assert not redis_channel_reaches("item:{?:id}", "item:?", pattern=True)   # one character: not known
    assert redis_channel_reaches("zone.b", "zone.[ab]", pattern=True)
    assert not redis_channel_reaches("order:{?}", "item:*", pattern=True)
    assert not redis_channel_reaches("{?}", "{?:x}", pattern=False)   # no literal text: never reached


FEED = """using StackExchange.Redis;

namespace News.Feed;

public class Feed(IConnectionMultiplexer mux)
{
    public async Task Announce()
    {
        var channel = RedisChannel.Literal("headlines");
        await mux.GetSubscriber().PublishAsync(channel, "new");
    }

    public async Task Listen(RedisChannel channel)
    {
        await mux.GetSubscriber().SubscribeAsync(channel, (c, v) => { });
    }
}
"""


def test_a_channel_local_to_one_method_is_not_what_another_methods_parameter_subscribes_to(tmp_path):
    """``Listen(RedisChannel channel)`` subscribes to what its callers pass; a local of the same name that another
    method of the class assigns a channel is no member kept for it: the route stays unknown, never ``headlines``."""
    write_tree(tmp_path, {"feed/feed.csproj": WEB, "feed/Feed.cs": FEED})
    routes = [line.split(" service=")[0] for line in render(CodeGraph.build(tmp_path)) if line.startswith("R redis")]
    assert routes == ["R redis {?} framework=redis_pubsub handler=News.Feed.Feed.Listen"]
