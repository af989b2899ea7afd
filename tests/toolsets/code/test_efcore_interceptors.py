"""An EF Core ``SaveChangesInterceptor`` runs on a context's ``SaveChanges``/``SaveChangesAsync`` though no call names
it: the save ``TRIGGERS`` (``kind: interceptor``) the hooks of each interceptor the microservice registers, never a
``CALLS``; a save on something not known to be a context, or an interceptor nobody registers, gives no edge."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>'
DATA = """using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Diagnostics;

namespace Shop.Data;

public interface IShopContext
{
    Task<int> SaveChangesAsync(CancellationToken ct);
}

public class ShopContext(DbContextOptions<ShopContext> options) : DbContext(options), IShopContext { }

public abstract class StampingInterceptor : SaveChangesInterceptor { }

public class AuditInterceptor : StampingInterceptor
{
    public override InterceptionResult<int> SavingChanges(DbContextEventData data, InterceptionResult<int> result)
        => base.SavingChanges(data, result);
    public override ValueTask<InterceptionResult<int>> SavingChangesAsync(DbContextEventData data,
        InterceptionResult<int> result, CancellationToken ct = default) => base.SavingChangesAsync(data, result, ct);
}

public class EventsInterceptor : ISaveChangesInterceptor
{
    public ValueTask<int> SavedChangesAsync(SaveChangesCompletedEventData data, int result,
        CancellationToken ct = default) => ValueTask.FromResult(result);
}

public class ForgottenInterceptor : SaveChangesInterceptor
{
    public override ValueTask<InterceptionResult<int>> SavingChangesAsync(DbContextEventData data,
        InterceptionResult<int> result, CancellationToken ct = default) => base.SavingChangesAsync(data, result, ct);
}
"""
SETUP = """namespace Shop;

public static class Setup
{
    public static void AddData(IServiceCollection services)
    {
        services.AddScoped<ISaveChangesInterceptor, EventsInterceptor>();
        services.AddDbContext<ShopContext>((sp, options) =>
            options.AddInterceptors(new AuditInterceptor(), sp.GetServices<ISaveChangesInterceptor>()));
    }
}
"""
USES = """namespace Shop;

public class OrderService(IShopContext db, IDocumentSession session)
{
    private readonly ShopContext _context;

    public async Task Place(CancellationToken ct) => await db.SaveChangesAsync(ct);   // through the interface

    public void Rename() => _context.SaveChanges();                                     // a field, synchronous

    public Task Archive() => session.SaveChangesAsync();                                // not a DbContext
}
"""


def _edges(tmp_path: Path, files: dict[str, str]) -> set[tuple[str, str]]:
    nodes, edges = CodeGraph.build(write_tree(tmp_path, files)).snapshot()
    fqn = {i: n.props.get("fqn", "").removeprefix("Shop.Data.").removeprefix("Shop.") for i, n in nodes.items()}
    return {(fqn[e.src], fqn[e.dst]) for e in edges.values() if e.props.get("kind") == "interceptor"}


def test_a_save_triggers_the_hooks_of_each_registered_interceptor(tmp_path: Path):
    found = _edges(tmp_path, {"Shop/Shop.csproj": WEB, "Shop/Data.cs": DATA, "Shop/Setup.cs": SETUP,
                              "Shop/OrderService.cs": USES})
    assert found == {
        ("OrderService.Place", "AuditInterceptor.SavingChangesAsync"),   # named in AddInterceptors
        ("OrderService.Place", "EventsInterceptor.SavedChangesAsync"),   # from the container
        ("OrderService.Rename", "AuditInterceptor.SavingChanges")}       # the synchronous hook only


def test_no_registration_no_edge(tmp_path: Path):
    setup = SETUP.replace("options.AddInterceptors(new AuditInterceptor(), sp.GetServices<ISaveChangesInterceptor>())",
                          "options.UseSqlServer(\"db\")")
    assert _edges(tmp_path, {"Shop/Shop.csproj": WEB, "Shop/Data.cs": DATA, "Shop/Setup.cs": setup,
                             "Shop/OrderService.cs": USES}) == set()
