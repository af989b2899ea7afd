"""Code `search`, the fetch-more loop: what it costs per query beside the page fetched once at twice `limit`.

`search` fetches the ranking at twice `limit`, then four times as much again while fewer than `limit` of the hits
are other code (not test code, not a declaration the query does not name), up to `tools.MAX_FETCHED`. This indexes
one checkout (structure only: BM25, as `code_questions.py` does) and runs each query at each limit in two modes
on the same index: ``loop`` (as shipped) and ``once`` (`MAX_FETCHED` set to 0: one fetch at twice `limit`, the
rule before format 39). Per query: rounds (keyword searches run), nodes read (`get_nodes` ids), CPU ms per call
(`time.process_time`, median and max of ``--repeat``), and the first hits, so a changed page is seen beside its cost.

Run: ``python bench/code_search_rounds.py /tmp/eshop "order id" "buyer payment method card" [--limit 10 --limit 1]``
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from graphlore.config import Settings
from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.store.sqlite.store import SQLiteStore
from graphlore.toolsets.code.query import models, tools

COUNTS = {"rounds": 0, "nodes": 0}


def _counted() -> None:
    """Count keyword searches and node reads on the SQLite store (the default backend)."""
    search, get_nodes = SQLiteStore.keyword_search, SQLiteStore.get_nodes

    def keyword_search(self, *args, **kwargs):
        COUNTS["rounds"] += 1
        return search(self, *args, **kwargs)

    def nodes(self, ids, **kwargs):
        COUNTS["nodes"] += len(ids)
        return get_nodes(self, ids, **kwargs)
    SQLiteStore.keyword_search, SQLiteStore.get_nodes = keyword_search, nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path)
    parser.add_argument("queries", nargs="+")
    parser.add_argument("--limit", type=int, action="append", help="page sizes (default 10 and 1)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    _counted()
    with tempfile.TemporaryDirectory() as home:
        runtime = Runtime(Settings(home=Path(home)), watch_files=True)   # as `graphlore serve`: no walk per call

        def call(tool: str, **fields):
            request = parse_request(getattr(models, f"{tool.capitalize()}Request"),
                                    {"project_path": str(args.root), **fields})
            return getattr(tools, tool)(runtime, request)

        cpu = time.process_time()
        call("index", embed=False)
        print(f"index CPU {time.process_time() - cpu:.1f} s")
        shipped = tools.MAX_FETCHED
        for mode, bound in (("loop", shipped), ("once", 0)):
            tools.MAX_FETCHED = bound
            for query in args.queries:
                for limit in args.limit or [10, 1]:
                    times = []
                    for _ in range(args.repeat):
                        COUNTS.update(rounds=0, nodes=0)
                        cpu = time.process_time()
                        found = call("search", query=query, kind="symbol", limit=limit).results
                        times.append(time.process_time() - cpu)
                    first = [f"{h.node.symbol_kind} {h.node.name}" for h in found[:3]]
                    print(f"{mode:4s} limit {limit:3d} {query!r:34s} rounds {COUNTS['rounds']} nodes {COUNTS['nodes']:4d} "
                          f"CPU median {statistics.median(times) * 1000:5.1f} ms max {max(times) * 1000:5.1f} ms  {first}")
        tools.MAX_FETCHED = shipped
        runtime.close()


if __name__ == "__main__":
    main()
