"""The garbage collector of a graphlore process: a first threshold for a process that holds large graphs.

CPython starts a young collection every 700 net allocations of container objects. Building or updating a code
graph, ingesting documents or restoring a warm graph allocates millions of objects that stay alive, and each of
them is walked by the young and then the middle collection before it settles in the oldest generation; with the
default threshold a process spends a large part of that work in the collector, more the larger the heap it already
holds (figures: bench/README.md, `bench/code_index.py`). The console script raises the first threshold once at
start; the older generations keep their ratios, so cyclic garbage is still collected, only in larger steps.
"""

from __future__ import annotations

import gc

#: net container allocations between two young collections (CPython's default: 700)
YOUNG_THRESHOLD = 100_000


def tune() -> None:
    """Raise the first threshold to :data:`YOUNG_THRESHOLD`; never lower it, and leave a collector switched off
    (threshold 0) off."""
    first, *older = gc.get_threshold()
    if 0 < first < YOUNG_THRESHOLD:
        gc.set_threshold(YOUNG_THRESHOLD, *older)
