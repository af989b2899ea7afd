"""How the facts tools read on the command line: flag hints, refused old forms, and ``extract``.

The typed CLI follows the CLI convention: ``--entity`` / ``--topic`` name a node in
every command, one per use: ``search --entity NAME`` (a canonical name, alias or id)
and ``find --entity 'NAME: DEFINITION'`` (a name and what it is; a JSON selector or
``@FILE`` with one is taken too), and ``search --from DATE --to DATE``.

``kg_execute``'s command strings (``graphlore facts exec``: see
:mod:`graphlore.adapters.command`) keep the original server's grammar verbatim
(:data:`ORIGINAL`): ``find --entity JSON``, ``search -entity "A, B" --to-date DATE``;
forms of older interfaces there (``-entity`` on find, ``-to``, ``--entity-name``...) are
refused with the form that replaced them (:data:`FIND_LEGACY`, :data:`SEARCH_LEGACY`).
``extract`` is a command of its own: it reads text files and calls
``extract_document`` once per file.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import click
from pydantic import RootModel

from graphlore.contract import quote
from graphlore.errors import InvalidInput
from graphlore.tools import Arg, Cli
from graphlore.toolsets.facts import render
from graphlore.toolsets.facts.models import FIND_FORM, SEARCH_FORM, ExtractDocumentResponse

GRAPH = Arg(metavar="NAME", help="Graph name (default: default); each graph is its own store.")
SELECTOR = Arg(json=True, metavar="JSON", example='\'{"name": "Apple Inc", "definition": "American technology company"}\'',
               help='Selector {"name": ..., "definition": ..., "id"?: ...} (repeatable).')



def selector(flag: str, text: str) -> dict[str, Any]:
    """``NAME: DEFINITION`` (split at the first colon), or a JSON selector object (the CLI reads an ``@FILE``
    before: :attr:`graphlore.tools.Arg.parse`)."""
    if text.lstrip().startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{flag} is not a JSON selector ({exc.msg}, line {exc.lineno} column {exc.colno}); "
                               f"give {flag} 'NAME: DEFINITION' or {flag} '{{\"name\": ..., \"definition\": ...}}'") from exc
        return value
    name, colon, definition = text.partition(":")
    if not colon or not name.strip() or not definition.strip():
        raise InvalidInput(f"{flag} takes a name and what it is, NAME: DEFINITION (got {quote(text)}); e.g. "
                           f"{flag} 'Apple Inc: American technology company'")
    return {"name": name.strip(), "definition": definition.strip()}


#: A selector on the typed CLI: ``--entity 'Apple Inc: American technology company'``.
NAMED = Arg(parse=selector, metavar="'NAME: DEFINITION'", example="'Apple Inc: American technology company'",
            help="A name and what it is, 'NAME: DEFINITION' (or a JSON selector {\"name\", \"definition\", \"id\"?}, "
                 "or @FILE with one); repeatable.")


def node(what: str) -> Arg:
    """A node of ``search`` on the typed CLI: one name, alias or id per use."""
    return Arg(metavar="NAME", help=f"{what} by canonical name, alias or id (repeatable).")


#: What the typed find refuses (``kg_execute`` refuses :data:`FIND_LEGACY`).
FIND_REFUSED = {
    "--entity-name": "a selector is one value: --entity 'NAME: DEFINITION'",
    "--entity-def": "a selector is one value: --entity 'NAME: DEFINITION'",
    "--topic-name": "a selector is one value: --topic 'NAME: DEFINITION'",
    "--topic-def": "a selector is one value: --topic 'NAME: DEFINITION'",
    "--to": "find has no date filter (dates belong to search: --from DATE --to DATE)",
}

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

def names(flag: str, what: str) -> Arg:
    return Arg(flags=(flag,), split=",", metavar="NAMES",
               help=f"{what} by canonical name, alias or id, comma-separated (repeatable).")


#: Where the original server's commands spell a field otherwise than ``graphlore facts``: ``find --entity JSON``,
#: ``search -entity "A, B" --to-date DATE``, ``info Apple Inc`` (the words joined, no quotes needed) and
#: ``ls entities -type company``.
ORIGINAL = {
    "find": Cli(args={"entity": SELECTOR, "topic": SELECTOR}, refused=FIND_LEGACY),
    "search": Cli(args={"entity": names("-entity", "Entities"), "topic": names("-topic", "Topics"),
                        "to_date": Arg(flags=("--to-date",), metavar="DATE")}, refused=SEARCH_LEGACY),
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


class ExtractBatch(RootModel[list[ExtractDocumentResponse]]):
    pass


def commands(kit: Any) -> list[click.Command]:
    """``graphlore facts extract DOC...``: built with the CLI adapter's kit (see graphlore.tools.Toolset)."""

    @click.command("extract", cls=kit.Documented, examples=("graphlore facts extract examples/facts/memo.txt --date 2024-05-02",))
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

    @click.group("relation", cls=kit.DocumentedGroup, examples=('graphlore facts relation set "has CEO" --functional',))
    def relation() -> None:
        """Declare how a relationship behaves in a graph (functional: one object at a time)."""

    @relation.command("set", cls=kit.Documented, examples=('graphlore facts relation set "has CEO" --functional',
                                                      'graphlore facts relation set "works with" --not-functional'))
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
