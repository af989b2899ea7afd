"""Numbered schema migrations, the same way on every backend.

A backend keeps an append-only list of steps (SQL scripts, or functions for what
SQL cannot do) and records how many it has applied (SQLite: ``PRAGMA
user_version``; PostgreSQL: a version row). :func:`pending` says which steps are
left, and refuses a store written by a newer graphlore rather than guess at it.
Each backend applies the steps inside one transaction, so a failed migration
leaves the store as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from graphlore.errors import IndexCorrupted

Step = TypeVar("Step")


def pending(applied: int, migrations: Sequence[Step], location: str) -> list[tuple[int, Step]]:
    """(number, step) of every migration after the ``applied`` first ones, numbers from 1."""
    if applied > len(migrations):
        raise IndexCorrupted(
            f"{location} has schema version {applied}, newer than this graphlore ({len(migrations)}); "
            "upgrade graphlore"
        )
    return [(number, migrations[number - 1]) for number in range(applied + 1, len(migrations) + 1)]
