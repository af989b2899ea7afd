"""``graphsift <toolset> <command>`` and ``graphsift serve <toolset>``.

Commands only gather flags into a dict, validate it through the tool's request
model (the same one the MCP adapter uses), call the tool and format the
answer: a table for people, ``--json`` for the exact tool output. Errors go to
stderr as ``error: [code] message`` with exit status 2.
"""

from __future__ import annotations

import functools
import os
import sys

# One BLAS thread: a 10k x 384 matrix-vector product takes ~0.4 ms on one core, while
# OpenBLAS's thread pool stalls for several ms when the CPU is shared (set before numpy loads).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
from collections.abc import Callable
from typing import Any

import click

from graphsift import __version__
from graphsift.config import Settings
from graphsift.contract import parse_request
from graphsift.errors import GraphsiftError
from graphsift.toolset import Runtime, Toolset
from graphsift.toolsets.facts import TOOLSET as FACTS
from graphsift.toolsets.items import TOOLSET as ITEMS

TOOLSETS: dict[str, Toolset] = {"items": ITEMS, "facts": FACTS}

if __name__ == "__main__":
    # `python -m graphsift.cli`: one module object, so command modules register on this `main`.
    sys.modules.setdefault("graphsift.cli", sys.modules[__name__])


def _runtime() -> Runtime:
    return Runtime(Settings.load())


def _fail(exc: GraphsiftError) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(2)


def run_tool(toolset: Toolset, name: str, fields: dict[str, Any], runtime: Runtime | None = None, **extra: Any):
    """Validate ``fields`` (unset flags left out, so the model's defaults apply) and call the tool."""
    spec = toolset.tool(name)
    request = parse_request(spec.request, {k: v for k, v in fields.items() if v is not None})
    return spec.run(runtime or _runtime(), request, **extra)


def _table(rows: list[dict[str, Any]], columns: list[str], widths: dict[str, int] | None = None) -> str:
    if not rows:
        return "(no results)"
    widths = widths or {}

    def cell(value: Any, column: str) -> str:
        text = f"{value:.3f}" if isinstance(value, float) else str(value)
        limit = widths.get(column, 40)
        return text if len(text) <= limit else text[: limit - 1] + "…"

    cells = [[cell(r[c], c) for c in columns] for r in rows]
    sizes = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(sizes[i]) for i, c in enumerate(columns)).rstrip()
    body = ["  ".join(v.ljust(sizes[i]) for i, v in enumerate(row)).rstrip() for row in cells]
    return "\n".join([line, "  ".join("-" * s for s in sizes), *body])


def output_options(fn: Callable) -> Callable:
    """Shared ``--json`` flag; errors become exit status 2."""

    @click.option("--json", "as_json", is_flag=True, help="Print the exact tool output as JSON.")
    @functools.wraps(fn)
    def wrapper(*args: Any, as_json: bool, **kwargs: Any) -> None:
        try:
            result, render = fn(*args, **kwargs)
        except GraphsiftError as exc:
            _fail(exc)
            return
        click.echo(result.model_dump_json(indent=2, by_alias=True) if as_json else render(result))

    return wrapper


@click.group()
@click.version_option(__version__, prog_name="graphsift")
def main() -> None:
    """graphsift: strict, honest knowledge tools for AI agents (MCP server and CLI)."""


# -- items ---------------------------------------------------------------------------

PROJECT = click.option(
    "-p", "--project", "project_path", default=".", show_default=True,
    help="The feature-management folder (holds bugs/, features/, ...).",
)


@main.group()
def items() -> None:
    """Semantic search and duplicate detection over a feature-management folder."""


@items.command("search")
@click.argument("query")
@PROJECT
@click.option("-t", "--type", "item_types", multiple=True,
              type=click.Choice(["bug", "feature", "action", "inquiry"]), help="Only this item type (repeatable).")
@click.option("-s", "--status", multiple=True, help="Only items with this status (repeatable).")
@click.option("--include-completed", is_flag=True, default=None, help="Also search completed/ items.")
@click.option("-n", "--limit", type=int, help="Most results (default 10).")
@click.option("--threshold", type=float, help="Minimum similarity_score, 0..1 (default 0.5).")
@output_options
def items_search(query, project_path, item_types, status, include_completed, limit, threshold):
    """Find items by meaning and keywords."""
    result = run_tool(ITEMS, "search", {
        "query": query, "project_path": project_path, "item_types": list(item_types) or None,
        "status": list(status) or None, "include_completed": include_completed, "limit": limit,
        "threshold": threshold,
    })
    return result, lambda r: _table(
        [x.model_dump() for x in r.results],
        ["item_id", "similarity_score", "item_type", "status", "priority", "title"],
        {"title": 60},
    ) + f"\n\n{r.total_results} result(s); index: {r.index_status.items_indexed} items, last indexed " \
        f"{r.index_status.last_indexed}"


@items.command("index")
@PROJECT
@click.option("--force", is_flag=True, default=None, help="Rebuild from scratch.")
@output_options
def items_index(project_path, force):
    """Build or update the index (only changed items are embedded)."""
    progress = None
    bar = None
    if sys.stderr.isatty():
        def progress(done: int, total: int) -> None:
            nonlocal bar
            if bar is None:
                bar = click.progressbar(length=total, label="embedding", file=sys.stderr)
                bar.__enter__()
            bar.update(done - bar.pos)
    try:
        result = run_tool(ITEMS, "index", {"project_path": project_path, "force": force}, progress=progress)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)

    def render(r):
        lines = [
            f"{r.status}: {r.items_indexed} items indexed, {r.items_updated} embedded, {r.items_removed} removed "
            f"in {r.duration_ms} ms",
            f"index: {r.index_location}",
        ]
        lines += [f"warning: {w}" for w in r.warnings]
        return "\n".join(lines)

    return result, render


@items.command("check-duplicates")
@click.option("--title", required=True, help="Title of the item you are about to create.")
@click.option("--description", required=True, help="Its description.")
@PROJECT
@click.option("--threshold", type=float, help="LIKELY_DUPLICATE cut (default from .agent-config.json, else 0.75).")
@click.option("-t", "--type", "item_type", type=click.Choice(["bug", "feature", "action", "inquiry"]),
              help="Only compare with this item type.")
@output_options
def items_check_duplicates(title, description, project_path, threshold, item_type):
    """Check whether an item already exists before creating it."""
    result = run_tool(ITEMS, "check_duplicates", {
        "title": title, "description": description, "project_path": project_path, "threshold": threshold,
        "item_type": item_type,
    })
    return result, lambda r: _table(
        [x.model_dump() for x in r.potential_duplicates],
        ["item_id", "similarity_score", "recommendation", "status", "title"], {"title": 60},
    ) + f"\n\nthreshold {r.threshold_used:.2f}; likely duplicates: {'yes' if r.has_likely_duplicates else 'no'}"


@items.command("similar")
@click.argument("item_id")
@PROJECT
@click.option("-n", "--limit", type=int, help="Most similar items (default 5).")
@click.option("--exclude-completed", "include_completed", flag_value=False, default=None,
              help="Leave out completed/ items (included by default).")
@output_options
def items_similar(item_id, project_path, limit, include_completed):
    """List the items most similar to ITEM_ID."""
    result = run_tool(ITEMS, "get_similar", {
        "item_id": item_id, "project_path": project_path, "limit": limit, "include_completed": include_completed,
    })
    return result, lambda r: f"{r.source_item.item_id}: {r.source_item.title}\n\n" + _table(
        [x.model_dump() for x in r.similar_items],
        ["item_id", "similarity_score", "relationship", "status", "title"], {"title": 60},
    )


@items.command("status")
@PROJECT
@output_options
def items_status(project_path):
    """Show whether the index exists and is up to date."""
    result = run_tool(ITEMS, "get_index_status", {"project_path": project_path})

    def render(r):
        lines = [
            f"project: {r.project_path}",
            f"index: {r.index_location} ({'exists' if r.exists else 'missing'}, {r.index_size_bytes} bytes)",
            f"items indexed: {r.items_indexed}; last indexed: {r.last_indexed}",
            f"stale: {'yes' if r.is_stale else 'no'} ({len(r.stale_files)} file(s) changed)",
        ]
        lines += [f"  {p}" for p in r.stale_files[:20]]
        if len(r.stale_files) > 20:
            lines.append(f"  ... and {len(r.stale_files) - 20} more")
        return "\n".join(lines)

    return result, render


# -- serve ---------------------------------------------------------------------------


@main.command()
@click.argument("toolset", type=click.Choice(sorted(TOOLSETS)))
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio for clients that start the server; http for streamable HTTP at /mcp.")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP bind address (loopback by default).")
@click.option("--port", default=8765, show_default=True, type=int, help="HTTP port.")
def serve(toolset: str, transport: str, host: str, port: int) -> None:
    """Run the MCP server for TOOLSET over stdio (default) or streamable HTTP at /mcp."""
    from graphsift.server import serve as run_server

    try:
        runtime = Runtime(Settings.load(), watch_files=True)
    except GraphsiftError as exc:
        _fail(exc)
        return
    run_server(TOOLSETS[toolset], runtime, transport=transport, host=host, port=port)


# The facts commands live in their own module; it registers its group on `main` when imported.
from graphsift import cli_facts  # noqa: E402, F401

if __name__ == "__main__":  # pragma: no cover
    main()

