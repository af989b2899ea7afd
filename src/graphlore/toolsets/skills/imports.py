"""Two ways to start a skill library: ABCD's support procedures, and labelled intent examples.

Both are pure and deterministic: they read a file and return skill field dicts
(``title``, ``problem``, ``resolution_md``, ``conditions``, ``keywords``,
``product_area``, ``issue_type``, ``source``), sorted by ``source``, each with a
playbook that passes :func:`playbook.parse`. Importing the same file twice gives
the same dicts, so the store can make an import idempotent by comparing them with
what it holds under each ``source``.

**ABCD**: :mod:`abcd` (its rules for guideline text are its own).

**Intents** (JSON lines ``{"text": ..., "intent": ...}`` or a CSV with ``text`` and
``intent`` columns; ``category`` or ``label`` for ``intent`` too, or columns named by the caller): one skill per intent, ``source = "intent:<intent>"``, its
distinct examples (in file order) as ``conditions``, ``title`` from the label
(``book_flight`` → ``Book flight``), and a template playbook: one Do step naming
the intent, its Goal starting with :data:`TEMPLATE_MARK` so a reader (and
:func:`is_template`) knows the team still has to write the procedure.

**Errors never quote the file.** The file may be any file the server can read, so a refusal names the
place (a file name we expect, a line, a row, a flow's number, a key of the expected layout) and what
is wrong there, never what the file holds.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from graphlore.errors import InvalidInput
from graphlore.toolsets.skills.playbook import Playbook, Step, render

ABCD_PREFIX = "abcd:"
INTENT_PREFIX = "intent:"
TEMPLATE_MARK = "TEMPLATE:"
SkillFields = dict[str, Any]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def clean(text: str) -> str:
    """``text`` on one line, spaces collapsed, typographic apostrophes plain."""
    return " ".join(text.replace("\u2019", "'").split())


def sentences(text: str) -> list[str]:
    """Split a paragraph at sentence ends (., !, ? followed by space)."""
    return [s for s in (clean(p) for p in _SENTENCE_END.split(clean(text))) if s]


def read_text(path: Path) -> str:
    """A file's text, or an error naming the file and what is wrong (never its bytes)."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path.name} is not UTF-8 text (byte {exc.start + 1} is not); save it as UTF-8") from exc


def read_json(path: Path) -> Any:
    """A JSON file's value, or an error naming the file and where it stops being JSON."""
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path.name} is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from exc
    except RecursionError as exc:
        raise InvalidInput(f"{path.name} is not usable JSON (nested too deeply)") from exc


# -- intents ------------------------------------------------------------------------------------


#: Column (or key) names an intents file's label may have, in the order they are looked for.
INTENT_COLUMNS = ("intent", "category", "label")
TEXT_COLUMN = "text"
_NAME_THEM = "name them with text_column / intent_column (CLI: --text-column / --intent-column)"


def _columns(names: Iterable[str], text_column: str | None, intent_column: str | None) -> tuple[str, str] | None:
    """(text column, intent column) among ``names``: the given ones, else ``text`` and the first of
    :data:`INTENT_COLUMNS`; None when one is missing."""
    present = set(names)
    text = text_column or TEXT_COLUMN
    intent = intent_column or next((c for c in INTENT_COLUMNS if c in present), INTENT_COLUMNS[0])
    return (text, intent) if {text, intent} <= present else None


def read_intent_rows(text: str, fmt: str, text_column: str | None = None, intent_column: str | None = None
                     ) -> list[tuple[str, str]]:
    """(text, intent) rows of a JSON-lines (``fmt="jsonl"``) or CSV (``fmt="csv"``) file's content.

    The example is in ``text_column`` (default ``text``), its label in ``intent_column`` (default: the
    first of ``intent``, ``category``, ``label`` the file has; BANKING77's CSV is ``text,category``). A bad
    row is an error naming its line (JSON lines) or row (CSV) and what is missing; blank JSON lines are
    skipped.
    """
    rows: list[tuple[str, str]] = []
    if fmt == "jsonl":
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(
                    f'line {number}: not JSON ({exc.msg}); each line is {{"text": ..., "intent": ...}}'
                ) from exc
            names = _columns(record, text_column, intent_column) if isinstance(record, dict) else None
            rows.append(_intent_row(record, f"line {number}", names or (text_column or TEXT_COLUMN,
                                                                         intent_column or INTENT_COLUMNS[0])))
    elif fmt == "csv":
        reader = csv.DictReader(io.StringIO(text))
        try:
            names = _columns(reader.fieldnames or [], text_column, intent_column)
            if names is None:
                wanted = (f"the columns {text_column or TEXT_COLUMN} and "
                          + (intent_column or " / ".join(INTENT_COLUMNS)))
                raise InvalidInput(f"a CSV of intents needs {wanted}: its first row names them, and this one's "
                                   f"first row has {len(reader.fieldnames or [])} other column(s); {_NAME_THEM}")
            for number, record in enumerate(reader, start=2):
                rows.append(_intent_row(record, f"row {number}", names))
        except csv.Error as exc:  # e.g. a field past the csv module's size limit
            raise InvalidInput(f"row {reader.line_num}: not CSV ({exc})") from exc
    else:
        raise InvalidInput(f"unknown intents format {fmt!r}; valid: jsonl, csv")
    if not rows:
        raise InvalidInput("the intents file has no rows")
    return rows


def _intent_row(record: Any, where: str, names: tuple[str, str]) -> tuple[str, str]:
    text_name, intent_name = names
    if not isinstance(record, dict):
        raise InvalidInput(f"{where}: expected an object with {text_name} and {intent_name}, got "
                           f"{type(record).__name__}")
    text, intent = record.get(text_name), record.get(intent_name)
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(f"{where}: {text_name!r} must be a non-empty string")
    if not isinstance(intent, str) or not intent.strip():
        raise InvalidInput(f"{where}: {intent_name!r} must be a non-empty string")
    return clean(text), intent.strip()


def intent_title(intent: str) -> str:
    """``book_flight`` → ``Book flight`` (separators to spaces, first letter up)."""
    words = " ".join(re.split(r"[_\-\s]+", intent)).strip() or intent
    return words[0].upper() + words[1:]


def intent_skills(rows: Iterable[tuple[str, str]]) -> list[SkillFields]:
    """One template skill per intent, its distinct examples (first-seen order) as conditions.

    Examples are compared after collapsing whitespace and turning typographic
    apostrophes into plain ones, so "life’s" and "life's" are one condition.
    """
    examples: dict[str, dict[str, None]] = {}
    for text, intent in rows:
        examples.setdefault(intent.strip(), {})[clean(text)] = None
    skills = []
    for intent in sorted(examples):
        title = intent_title(intent)
        playbook = Playbook(
            title=title,
            goal=f"{TEMPLATE_MARK} write the procedure for the intent '{intent}' (imported from labelled examples).",
            steps=(Step(f"Handle {intent}", do=f"Resolve the customer's '{intent}' request."),),
        )
        skills.append(
            {
                "title": title,
                "problem": f"Requests with the intent '{intent}'.",
                "resolution_md": render(playbook),
                "conditions": list(examples[intent]),
                "keywords": [intent],
                "product_area": "general",
                "issue_type": "other",
                "source": f"{INTENT_PREFIX}{intent}",
            }
        )
    return skills


def load_intents(path: Path, text_column: str | None = None, intent_column: str | None = None
                 ) -> list[SkillFields]:
    """:func:`intent_skills` of a ``.jsonl``/``.json`` (JSON lines) or ``.csv`` file (columns: see
    :func:`read_intent_rows`)."""
    suffix = path.suffix.lower()
    fmt = {".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}.get(suffix)
    if fmt is None:
        raise InvalidInput(
            f"cannot tell the format of {path.name}: use .jsonl (JSON lines) or .csv (text,intent)"
        )
    return intent_skills(read_intent_rows(read_text(path), fmt, text_column, intent_column))


def is_template(resolution_md: str) -> bool:
    """Whether a playbook is an imported template still to be written (its Goal starts with the mark)."""
    return f"## Goal\n{TEMPLATE_MARK}" in resolution_md
