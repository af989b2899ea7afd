"""`facts search --query` on the hubs of a kept graph: the selections that rank the most facts.

    python bench/facts_scale.py --entities 2000 --facts 20000 --keep /tmp/fs     # make and keep a graph first
    python bench/facts_hubs.py --keep /tmp/fs [--database-url URL] [--hubs 20] [--repeat 5]
    PYTHONPATH=<another tree>/src python bench/facts_hubs.py --keep /tmp/fs ...  # the same on other code

Takes the ``--hubs`` entities with the most facts (``most_connected``), and times the ``search`` tool in
process with ``--query`` (one query text per hub, its embedding computed once before timing, so only the
search is timed), each hub ``--repeat`` times, interleaved. Prints the facts each hub's selection holds and
the p50 / p95 per call.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from graphlore.config import Settings
from graphlore.contract import parse_request
from graphlore.embedding import OnnxEmbedder
from graphlore.runtime import Runtime
from graphlore.tools import CallContext
from graphlore.toolsets.facts import models, tools


class Memo:
    """The embedder with each text embedded once (the queries repeat: only the search is timed)."""

    def __init__(self, embedder: OnnxEmbedder) -> None:
        self.inner, self.seen, self.name, self.dim = embedder, {}, embedder.name, embedder.dim

    def embed(self, texts):
        import numpy as np

        missing = [t for t in texts if t not in self.seen]
        if missing:
            self.seen.update(zip(missing, self.inner.embed(missing), strict=True))
        return np.vstack([self.seen[t] for t in texts])

    def __getattr__(self, name):
        return getattr(self.inner, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, required=True, help="the folder facts_scale.py --keep made")
    parser.add_argument("--database-url", default="")
    parser.add_argument("--hubs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    runtime = Runtime(Settings(home=args.keep / "home", database_url=args.database_url), embedder=Memo(OnnxEmbedder()))
    store = runtime.open_store("facts/default")
    hubs = store.most_connected("entity", type="fact", limit=args.hubs)
    nodes = {n.id: n for n in store.get_nodes([i for i, _ in hubs])}
    requests = [parse_request(models.SearchRequest, {"entity": [nodes[i].name], "query": f"news about {nodes[i].name}",
                                                     "limit": 10}) for i, _ in hubs]
    context = CallContext(session="bench")
    for request in requests:
        tools.search(runtime, request, context)  # untimed: embeddings and caches
    times = []
    for _ in range(args.repeat):
        for request in requests:
            began = time.perf_counter()
            tools.search(runtime, request, context)
            times.append((time.perf_counter() - began) * 1000)
    times.sort()
    facts = [c for _, c in hubs]
    print(f"{len(hubs)} hubs ({min(facts)}-{max(facts)} facts each, median {statistics.median(facts):.0f}) x "
          f"{args.repeat}: search --query p50 {statistics.median(times):.2f} ms, "
          f"p95 {times[int(0.95 * (len(times) - 1))]:.2f} ms ({'PostgreSQL' if args.database_url else 'SQLite'})")
    runtime.close()


if __name__ == "__main__":
    main()
