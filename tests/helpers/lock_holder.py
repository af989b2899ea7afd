"""A process that holds a namespace lock until its stdin closes: the other process a lock test waits behind.

``with holding(settings, namespace, key): ...`` starts ``python -m helpers.lock_holder`` with the settings'
home and database URL, returns once it holds the lock, and ends it (releasing the lock) after the block.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from graphlore.config import Settings

HELPERS = Path(__file__).resolve().parent


@contextmanager
def holding(settings: Settings, namespace: str, key: str) -> Iterator[None]:
    env = {**os.environ, "GRAPHLORE_HOME": str(settings.home), "GRAPHLORE_DATABASE_URL": settings.database_url,
           "PYTHONPATH": os.pathsep.join([str(HELPERS.parent), os.environ.get("PYTHONPATH", "")])}
    holder = subprocess.Popen([sys.executable, "-m", "helpers.lock_holder", namespace, key], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held", "the lock holder did not take the lock"
        yield
    finally:
        holder.stdin.close()  # the holder returns, which releases the lock
        holder.wait(timeout=60)


def main() -> None:
    from graphlore.store.factory import namespace_lock

    namespace, key = sys.argv[1:3]
    with namespace_lock(Settings.load(), namespace, key):
        print("held", flush=True)
        sys.stdin.read()  # until the test closes our stdin


if __name__ == "__main__":
    main()
