"""Numbered schema migrations, the same way on every backend.

A backend keeps an append-only list of steps (SQL scripts, or functions for what
SQL cannot do) and records how many it has applied (SQLite: ``PRAGMA
user_version``; PostgreSQL: a version row). :func:`pending` says which steps are
left, and refuses a store written by a newer graphlore rather than guess at it.
Each backend applies the steps inside one transaction, so a failed migration
leaves the store as it was. A long upgrade (an index built over a large graph's
edges: minutes) says what it does on stderr, through graphlore's logger, as long
work does elsewhere (:class:`UpgradeNotes`); a quick one says nothing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TypeVar

from graphlore.errors import IndexCorrupted

logger = logging.getLogger("graphlore")

Step = TypeVar("Step")


def pending(applied: int, migrations: Sequence[Step], location: str) -> list[tuple[int, Step]]:
    """(number, step) of every migration after the ``applied`` first ones, numbers from 1."""
    if applied > len(migrations):
        raise IndexCorrupted(
            f"{location} has schema version {applied}, newer than this graphlore ({len(migrations)}); "
            "upgrade graphlore"
        )
    return [(number, migrations[number - 1]) for number in range(applied + 1, len(migrations) + 1)]


class UpgradeNotes:
    """Progress of one store's schema upgrade (``notes(done, total, unit)``, as :class:`graphlore.tools.Progress`)
    as warnings of graphlore's logger, which the CLI and the servers print on stderr: once the upgrade has run
    ``every_s`` seconds, a line at most every ``every_s`` (``upgrading the schema of PATH from version 4 to 5:
    350000/1000000 edges indexed``), and one when it ends (quick upgrades print nothing)."""

    every_s = 5.0

    def __init__(self, location: str, applied: int, target: int) -> None:
        self.label = f"upgrading the schema of {location} from version {applied} to {target}"
        self._started = time.monotonic()
        self._printed = 0.0

    def __call__(self, done: int, total: int, unit: str = "") -> None:
        now = time.monotonic()
        if (done >= total and self._printed) or now - (self._printed or self._started) >= self.every_s:
            self._printed = now
            logger.warning("%s: %d/%d %s (%.0f s)", self.label, done, total, unit, now - self._started)

    def finished(self) -> None:
        if self._printed:
            logger.warning("%s: done in %.0f s", self.label, time.monotonic() - self._started)
