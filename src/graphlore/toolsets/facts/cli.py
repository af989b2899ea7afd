"""How the facts tools read on the command line: flag hints, refused old forms, and ``extract``.

The flags keep the facts contract's spellings: ``find --entity JSON`` (one JSON
selector per use) and ``search -entity "A, B"`` (names, comma-separated). Forms of
older interfaces (``-entity`` on find, ``-to``, ``--entity-name``...) are refused
with the form that replaced them, from the tables ``kg_execute`` refuses them with
(:data:`command.FIND_LEGACY`, :data:`command.SEARCH_LEGACY`). ``extract`` is a
command of its own: it reads text files and calls ``extract_document`` once per file.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import click
from pydantic import RootModel

from graphlore.errors import InvalidInput
from graphlore.tools import Arg
from graphlore.toolsets.facts import render
from graphlore.toolsets.facts.models import ExtractDocumentResponse

GRAPH = Arg(metavar="NAME", help="Graph name (default: default); each graph is its own store.")
SELECTOR = Arg(json=True, metavar="JSON", example='\'{"name": "Apple Inc", "definition": "American technology company"}\'',
               help='Selector {"name": ..., "definition": ..., "id"?: ...} (repeatable).')


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

    return [extract]
