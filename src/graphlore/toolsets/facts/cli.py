"""How the facts tools read on the command line: flag hints, refused old forms, and ``extract``.

The flags keep the facts contract's spellings: ``find --entity JSON`` (one JSON
selector per use) and ``search -entity "A, B"`` (names, comma-separated). Forms of
older interfaces (``-entity`` on find, ``-to``, ``--entity-name``...) are refused
with the form that replaced them (:data:`FIND_LEGACY`, :data:`SEARCH_LEGACY`). The
same hints read ``kg_execute``'s command strings (``graphlore facts exec``: see
:mod:`graphlore.adapters.command`), so both refuse and accept the same forms.
``extract`` is a command of its own: it reads text files and calls
``extract_document`` once per file.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import click
from pydantic import RootModel

from graphlore.errors import InvalidInput
from graphlore.tools import Arg, Cli
from graphlore.toolsets.facts import render
from graphlore.toolsets.facts.models import FIND_FORM, SEARCH_FORM, ExtractDocumentResponse

GRAPH = Arg(metavar="NAME", help="Graph name (default: default); each graph is its own store.")
SELECTOR = Arg(json=True, metavar="JSON", example='\'{"name": "Apple Inc", "definition": "American technology company"}\'',
               help='Selector {"name": ..., "definition": ..., "id"?: ...} (repeatable).')


FIND_LEGACY = {
    "-entity": f"find takes JSON selectors, not names: {FIND_FORM}",
    "-topic": f"find takes JSON selectors, not names: {FIND_FORM}",
    "--entity-name": f"selectors are one JSON object each: {FIND_FORM}",
    "--entity-def": f"selectors are one JSON object each: {FIND_FORM}",
    "--topic-name": f"selectors are one JSON object each: {FIND_FORM}",
    "--topic-def": f"selectors are one JSON object each: {FIND_FORM}",
    "-to": f"find has no date filter (dates belong to search: --to-date DATE); find takes {FIND_FORM}",
    "--to": f"find has no date filter (dates belong to search: --to-date DATE); find takes {FIND_FORM}",
}
SEARCH_LEGACY = {
    "-to": "the end date is --to-date DATE (YYYY-MM-DD, YYYY-MM or YYYY)",
    "--to": "the end date is --to-date DATE (YYYY-MM-DD, YYYY-MM or YYYY)",
    "--entity": f"search takes names, aliases or ids with a single dash: {SEARCH_FORM} (JSON selectors are for find)",
    "--topic": "search takes names, aliases or ids with a single dash: -topic \"Inflation\" (JSON selectors are for "
               "find)",
}

#: Where the original server's commands spell a field otherwise than ``graphlore facts``: ``info Apple Inc``
#: (the words joined, no quotes needed) and ``ls entities -type company``.
ORIGINAL = {
    "info": Cli(args={"name": Arg(positional=True, join=True)}),
    "ls": Cli(args={"type": Arg(flags=("-type", "--type"), metavar="TYPE")}),
    "retract": Cli(args={"document": Arg(positional=True, join=True)}),
}

#: What ``kg_execute help`` says after the commands.
GUIDE = """\
Every command takes --graph NAME (default: default). Quote names with spaces or commas inside -entity /
-topic; find's JSON may be raw or quoted; dates (--from, --to-date) are YYYY-MM-DD, YYYY-MM or YYYY (document
dates, inclusive: 2024-10 is the whole month).

Workflow: find → search → cat → info
  1. find the nodes you mean (a name and a definition each): canonical names and ids, scored 0..1
  2. search around or between them: -entity / -topic take those names (or ids); -q ranks by relevance;
     --from / --to-date filter document dates
  3. cat N reads result N of that search: its sentence, source chunk and document
  4. info NAME summarises a node: definition, aliases, most connected nodes, latest facts
around: facts touching a selected node (subject or object); between: facts with both ends selected.
--current keeps the facts that still hold, --as-of DATE those that held on a day (a fact a later one ended
shows "held FROM to TO; ended by FACT"). retract DOCUMENT takes a document back; merge NAME OTHER joins two
nodes that are one (split undoes it).
The same tools are also callable directly (typed arguments): find, search, cat, info, ls, stats."""

#: Command strings ``kg_execute help`` shows.
EXAMPLES = (
    'find --entity {"name":"Apple","definition":"US technology company"}',
    'search -entity "Apple Inc, Microsoft Corp" --mode between -q acquired --from 2024-10',
    'search -topic Inflation --from 2024-10 --to-date 2024-12',
    'search -entity "Apple Inc" --current',
    "cat 1 2",
    "info Apple Inc",
    "ls entities -type company --limit 20",
    "stats",
)


def names(flag: str, what: str) -> Arg:
    return Arg(flags=(flag,), split=",", metavar="NAMES",
               help=f"{what} by canonical name, alias or id, comma-separated (repeatable).")


class ExtractBatch(RootModel[list[ExtractDocumentResponse]]):
    pass


def commands(kit: Any) -> list[click.Command]:
    """``graphlore facts extract DOC...``: built with the CLI adapter's kit (see graphlore.tools.Toolset)."""

    @click.command("extract")
    @click.argument("docs", nargs=-1, required=True, metavar="DOC...")
    @click.option("--date", metavar="YYYY-MM-DD", help="Document date (default: each file's modification date).")
    @click.option("--source", metavar="TEXT", help="Where the documents come from (default: each file's path).")
    @click.option("--graph", metavar="NAME", help=GRAPH.help)
    @kit.output
    def extract(docs: tuple[str, ...], date: str | None, source: str | None, graph: str | None):
        """Extract text files with the configured LLM and add them (name: the file name)."""
        runtime = kit.runtime()
        results = []
        try:
            for doc in docs:
                path = Path(doc)
                try:
                    text = path.read_text(encoding="utf-8")
                    day = date or dt.date.fromtimestamp(path.stat().st_mtime).isoformat()
                except OSError as exc:
                    raise InvalidInput(f"cannot read {doc}: {exc.strerror or type(exc).__name__}") from exc
                except UnicodeDecodeError as exc:  # the reason, never the bytes
                    raise InvalidInput(f"cannot read {doc} as UTF-8 text (byte {exc.start + 1} is not UTF-8)") from exc
                fields = {"name": path.name, "date": day, "text": text, "source": source or str(path.resolve()),
                          "graph": graph}
                results.append(kit.run("extract_document", fields, runtime))
        finally:
            runtime.close()
        return ExtractBatch(results), lambda r: "\n\n".join(render.add_document(x) for x in r.root)

    @click.group("relation")
    def relation() -> None:
        """Declare how a relationship behaves in a graph (functional: one object at a time)."""

    @relation.command("set", epilog="Examples:\n\n\b\n  graphlore facts relation set \"has CEO\" --functional\n"
                                    "  graphlore facts relation set \"works with\" --not-functional --graph news")
    @click.argument("name", nargs=-1, required=True, metavar="NAME")
    @click.option("--functional/--not-functional", "functional", default=None,
                  help="Functional: a later fact naming another object ends the earlier one (required).")
    @click.option("--graph", metavar="NAME", help=GRAPH.help)
    @kit.output
    def relation_set(name: tuple[str, ...], functional: bool | None, graph: str | None):
        """Declare a relationship functional (or not) in a graph; its facts get their validity again."""
        if functional is None:
            raise InvalidInput("say --functional or --not-functional")
        fields = {"name": " ".join(name), "functional": functional, **({"graph": graph} if graph else {})}
        runtime = kit.runtime()
        try:
            response = kit.run("relation_set", fields, runtime)
        finally:
            runtime.close()
        return response, render.relation_set

    return [extract, relation]
