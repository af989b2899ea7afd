"""How the skills tools read on the command line: flag hints, and ``import-abcd`` / ``import-intents``.

``graphlore skills import-abcd FILE`` and ``import-intents FILE`` are the issue's
spellings of ``graphlore skills import --format abcd|intents FILE``: the same
tool (``import_skills``), with the format named by the command.
"""

from __future__ import annotations

from typing import Any

import click

from graphlore.tools import Arg
from graphlore.toolsets.skills import render

LIBRARY = Arg(short="-l", metavar="NAME",
              help="Skill library (default: default); each library is its own store.")
SKILL_ID = Arg(positional=True, metavar="SKILL_ID")
SKILL_JSON = Arg(json=True, metavar="JSON",
                 example='\'{"title": "Reset a password", "problem": "...", "conditions": ["..."], '
                         '"resolution_md": "# Reset a password\\n\\n## Goal\\n...\\n\\n## Steps\\n\\n### 1. ..."}\'')


def _import_command(kit: Any, name: str, fmt: str, what: str, example: str) -> click.Command:
    @click.command(name, help=what, short_help=what, cls=kit.Documented, examples=(example,))
    @click.argument("path", metavar="FILE")
    @click.option("--library", "-l", metavar="NAME", help=LIBRARY.help)
    @kit.output
    def command(path: str, library: str | None, **columns: str | None):
        runtime = kit.runtime()
        progress = kit.progress(name, "passages embedded")
        try:
            response = kit.run("import_skills", {"format": fmt, "path": path, "library": library, **columns}, runtime,
                               progress=progress)
        finally:
            progress.close()
            runtime.close()
        return response, render.import_skills

    if fmt == "intents":
        command = click.option("--intent-column", metavar="NAME",
                               help="Column (key) of the label; default: the first of intent, category, label.")(command)
        command = click.option("--text-column", metavar="NAME",
                               help="Column (key) of the example text; default: text.")(command)
    return command


def commands(kit: Any) -> list[click.Command]:
    """``import-abcd`` and ``import-intents``, built with the CLI adapter's kit (see graphlore.tools.Toolset)."""
    return [
        _import_command(kit, "import-abcd", "abcd",
                        "Import ABCD's procedures (guidelines.json, with kb.json and ontology.json next to it).",
                        "graphlore skills import-abcd examples/skills/abcd/guidelines.json --library abcd-example"),
        _import_command(kit, "import-intents", "intents",
                        "Import one template skill per intent of labelled examples (.jsonl or .csv: text and intent, "
                        "category or label).", "graphlore skills import-intents examples/skills/intents.csv --library bank"),
    ]
