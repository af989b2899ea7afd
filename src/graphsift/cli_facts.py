"""``graphsift facts ...``: the facts tools on the command line.

Flags map one to one onto the MCP tools' fields and validate through the same
request models. Forms of older interfaces (``-entity`` on find, ``-to``,
``--entity-name``...) are refused with the form that replaced them.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

import click
from pydantic import RootModel

from graphsift import cli as _cli
from graphsift.cli import _fail, main, output_options, run_tool
from graphsift.contract import parse_request
from graphsift.errors import InvalidInput
from graphsift.toolset import CallContext
from graphsift.toolsets.facts import TOOLSET as FACTS
from graphsift.toolsets.facts import render
from graphsift.toolsets.facts.graph import FactsGraph
from graphsift.toolsets.facts.models import FIND_FORM, SEARCH_FORM, ExtractDocumentResponse, IngestRequest
from graphsift.toolsets.facts.write import ingest_file

#: The CLI's session: one per graph, kept in the graph's folder.
CLI_CONTEXT = CallContext(session="cli", durable=True)

FIND_LEGACY = {
    "-entity": f"find takes JSON selectors, not names: {FIND_FORM}",
    "-topic": f"find takes JSON selectors, not names: {FIND_FORM}",
    "--entity-name": f"selectors are one JSON object each: {FIND_FORM}",
    "--entity-def": f"selectors are one JSON object each: {FIND_FORM}",
    "--topic-name": f"selectors are one JSON object each: {FIND_FORM}",
    "--topic-def": f"selectors are one JSON object each: {FIND_FORM}",
    "-to": f"find has no date filter (dates belong to search: --to-date YYYY-MM-DD); find takes {FIND_FORM}",
}
SEARCH_LEGACY = {
    "-to": "the end date is --to-date YYYY-MM-DD",
    "--to": "the end date is --to-date YYYY-MM-DD",
    "--entity": f"search takes names, aliases or ids: {SEARCH_FORM} (JSON selectors are for find)",
    "--topic": "search takes names, aliases or ids: -topic \"Inflation\" (JSON selectors are for find)",
}


class LegacyAware(click.Command):
    """Refuses the flags of older interfaces with a message that shows the current form."""

    def __init__(self, *args: Any, legacy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.legacy = legacy or {}

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for arg in args:
            if arg == "--":
                break
            token = arg.split("=", 1)[0]
            if token in self.legacy:
                _fail(InvalidInput(f"'{token}' is an old form and is not accepted; {self.legacy[token]}"))
        return super().parse_args(ctx, args)


GRAPH = click.option("--graph", default=None, metavar="NAME",
                     help="Graph name (default: default); stored in $GRAPHSIFT_HOME/facts/NAME/graph.db.")


@main.group()
def facts() -> None:
    """A dated knowledge graph of entities, topics, documents and facts."""


def _selector(flag: str, number: int, value: str) -> Any:
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"{flag} value {number} is not JSON ({exc.msg}): {value!r}. Each {flag} takes one JSON object, e.g. "
            f"{flag} '{{\"name\": \"Apple Inc\", \"definition\": \"American technology company\"}}'; bare names and "
            "'name: definition' strings are not accepted"
        ) from exc


@facts.command("find", cls=LegacyAware, legacy=FIND_LEGACY)
@click.option("--entity", "entity", multiple=True, metavar="JSON",
              help='Entity selector {"name": ..., "definition": ..., "id"?: ...} (repeatable).')
@click.option("--topic", "topic", multiple=True, metavar="JSON", help="Topic selector, same form (repeatable).")
@GRAPH
@output_options
def facts_find(entity, topic, graph):
    """Resolve selectors to canonical entities and topics (top 5 each)."""
    fields = {
        "entity": [_selector("--entity", i, v) for i, v in enumerate(entity, 1)] or None,
        "topic": [_selector("--topic", i, v) for i, v in enumerate(topic, 1)] or None,
        "graph": graph,
    }
    return run_tool(FACTS, "find", fields), render.find


def _names(flag: str, values: tuple[str, ...]) -> list[str] | None:
    names = []
    for value in values:
        parts = [p.strip() for p in value.split(",")]
        if not all(parts):
            raise InvalidInput(f"{flag} {value!r} has an empty name; separate names with commas: {flag} \"A, B\"")
        names += parts
    return names or None


@facts.command("search", cls=LegacyAware, legacy=SEARCH_LEGACY)
@click.option("-entity", "entity", multiple=True, metavar="NAMES",
              help="Entities by canonical name, alias or id, comma-separated (repeatable).")
@click.option("-topic", "topic", multiple=True, metavar="NAMES", help="Topics, the same way.")
@click.option("--mode", type=click.Choice(["around", "between"]),
              help="around (default): subject or object selected; between: both.")
@click.option("--query", metavar="TEXT", help="Rank the filtered facts by relevance to TEXT.")
@click.option("--from", "from_", metavar="YYYY-MM-DD", help="Document date on or after.")
@click.option("--to-date", metavar="YYYY-MM-DD", help="Document date on or before.")
@click.option("--limit", type=int, metavar="N", help="Most facts listed (default 20).")
@GRAPH
@output_options
def facts_search(entity, topic, mode, query, from_, to_date, limit, graph):
    """Facts around or between entities and topics, newest first or by relevance to --query."""
    fields = {"entity": _names("-entity", entity), "topic": _names("-topic", topic), "mode": mode, "query": query,
              "from": from_, "to_date": to_date, "limit": limit, "graph": graph}
    return run_tool(FACTS, "search", fields, context=CLI_CONTEXT), render.search


@facts.command("cat")
@click.argument("numbers", nargs=-1, type=int, required=True, metavar="N...")
@click.option("--search-id", metavar="ID", help="Expand this search instead of the latest.")
@GRAPH
@output_options
def facts_cat(numbers, search_id, graph):
    """Expand results N... of the latest search: fact, chunk, document, both ends."""
    fields = {"numbers": list(numbers), "search_id": search_id, "graph": graph}
    return run_tool(FACTS, "cat", fields, context=CLI_CONTEXT), render.cat


@facts.command("info")
@click.argument("name")
@GRAPH
@output_options
def facts_info(name, graph):
    """Summarise an entity or topic (canonical name, alias or id)."""
    return run_tool(FACTS, "info", {"name": name, "graph": graph}), render.info


@facts.command("ls")
@click.argument("what", type=click.Choice(["entities", "topics", "documents"]))
@click.option("--limit", type=int, metavar="N", help="Most rows (default 50).")
@GRAPH
@output_options
def facts_ls(what, limit, graph):
    """List entities, topics or documents with counts."""
    return run_tool(FACTS, "ls", {"what": what, "limit": limit, "graph": graph}), render.ls


@facts.command("stats")
@GRAPH
@output_options
def facts_stats(graph):
    """Totals of the graph."""
    return run_tool(FACTS, "stats", {"graph": graph}), render.stats


@facts.command("ingest")
@click.argument("file")
@GRAPH
@output_options
def facts_ingest(file, graph):
    """Add the document records of a JSONL file (validated in full before anything is written)."""
    request = parse_request(IngestRequest, {k: v for k, v in {"file": file, "graph": graph}.items() if v is not None})
    bar = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if not sys.stderr.isatty():
            return
        if bar is None:
            bar = click.progressbar(length=total, label="documents", file=sys.stderr)
            bar.__enter__()
        bar.update(done - bar.pos)

    try:
        result = ingest_file(FactsGraph(_cli._runtime(), request.graph), request.file, progress)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    return result, render.ingest


class ExtractBatch(RootModel[list[ExtractDocumentResponse]]):
    pass


@facts.command("extract")
@click.argument("docs", nargs=-1, required=True, metavar="DOC...")
@click.option("--date", metavar="YYYY-MM-DD", help="Document date (default: each file's modification date).")
@click.option("--source", metavar="TEXT", help="Where the documents come from (default: each file's path).")
@GRAPH
@output_options
def facts_extract(docs, date, source, graph):
    """Extract text files with the configured LLM and add them (name: the file name)."""
    runtime = _cli._runtime()
    results = []
    for doc in docs:
        path = Path(doc)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"cannot read {doc} as UTF-8 text: {exc}") from exc
        day = date or dt.date.fromtimestamp(path.stat().st_mtime).isoformat()
        fields = {"name": path.name, "date": day, "text": text, "source": source or str(path.resolve()),
                  "graph": graph}
        results.append(run_tool(FACTS, "extract_document", fields, runtime, context=CLI_CONTEXT))
    return ExtractBatch(results), lambda r: "\n\n".join(render.add_document(x) for x in r.root)


__all__ = ["facts"]
