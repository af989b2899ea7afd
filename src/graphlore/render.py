"""Plain-text tables for people: what toolsets' renderers build their CLI output from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: Nouns whose plural is not the noun plus "s".
_PLURALS = {"entry": "entries", "summary": "summaries", "match": "matches", "index": "indexes", "status": "statuses"}


def count(n: int, noun: str) -> str:
    """``n`` and ``noun`` agreeing in number: "1 fact", "2 facts", "0 skills" (thousands separated)."""
    return f"{n:,} {noun if n == 1 else _PLURALS.get(noun, noun + 's')}"


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], widths: Mapping[str, int] | None = None) -> str:
    """Aligned columns with a header rule; floats with 3 decimals; cells cut at ``widths`` (default 40)."""
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
