"""Possible-duplicate links as a view of the graph as it is (issue 25): what it gives and what it costs.

    python bench/facts_links_view.py --companies 1000 --cache DIR
    python bench/facts_links_view.py --er restaurants     # on an ER set of bench/facts_resolution.py instead

An evaluation, not a feature: links today are decided once, when a node is created, against the graph of that
moment, so retracting a document does not give back the links of the graph that never saw it. This computes the
other definition, a node's possible duplicates read from the graph as it is (resolution's own rule,
:func:`resolve.decide`, between the node, taken as a mention, and each of its candidates: the nodes its names'
lookup keys find and its ``vector_candidates`` nearest of its kind; "merge" or "duplicate" is a link; the best
``max_duplicate_links`` by score, ties by id), on the ``bench/facts_time.py`` world: the graph with every tenth
document retracted and the graph written without them. Prints:

- whether the two views are equal (the point of the definition), how many of its links only one end lists (a
  node's view is its own best few: the other end may rank others higher), and how it differs from the stored links
  (what ``info`` and the ER figures show today);
- what a read costs: one node's view (what ``info`` would pay: one vector search, key lookups, the definition
  embeddings the rule reads, the decisions), and every node's (what ``stats``' count, ``resolve-links``' open
  list strongest first, and the ER bench's link figures would pay), in CPU seconds;
- with ``--er SETS``: ``bench/facts_resolution.py --er --oracle-judge`` on those sets, the judge replaced by the
  view after the right table: the gold pairs left in two nodes that a link joins, stored links against the view
  (what the ER figures for links would become);
- how many definitions the rule had to embed at read time (the store keeps the vectors of ``name: definition``
  only; resolution embeds definitions during a write and keeps them for the write's length).
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import shutil  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from embedding_cache import CachedEmbedder  # noqa: E402
from facts_time import World, call, write  # noqa: E402

from graphlore.config import Settings  # noqa: E402
from graphlore.embedding import OnnxEmbedder  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.store import Node, Store  # noqa: E402
from graphlore.toolsets.facts.graph import DUPLICATE, PREFIX, FactsGraph  # noqa: E402
from graphlore.toolsets.facts.names import probe_keys  # noqa: E402
from graphlore.toolsets.facts.resolve import THRESHOLDS, Mention, NodeState, TextVectors, decide  # noqa: E402

KINDS = ("entity", "topic")


def as_mention(node: Node) -> Mention:
    """A stored node as resolution would see it arrive (no document: the rules that read one are about a write)."""
    return Mention(node.kind, node.name, node.props.get("type"), node.props.get("definition", ""),
                   list(node.props.get("aliases", [])))


class LinkView:
    """A node's possible duplicates, from the graph as it is."""

    def __init__(self, store: Store, vectors: TextVectors) -> None:
        self.store, self.vectors = store, vectors

    def links(self, ids: list[str]) -> dict[str, list[tuple[str, float, bool]]]:
        nodes = {n.id: n for n in self.store.get_nodes(ids, with_vectors=True)}
        ids = [i for i in ids if i in nodes and nodes[i].vectors is not None and len(nodes[i].vectors)]
        probes = {i: [k for name in [nodes[i].name, *nodes[i].props.get("aliases", [])] for k in probe_keys(name)]
                  for i in ids}
        hits = self.store.nodes_by_keys([k for keys in probes.values() for k in keys])
        found = self.store.vector_search_many(np.vstack([nodes[i].vectors[0] for i in ids]),
                                              kinds=[nodes[i].kind for i in ids],
                                              limit=THRESHOLDS.vector_candidates + 1) if ids else []
        candidates = {}
        for i, row in zip(ids, found, strict=True):
            by_key = [c for k in probes[i] for c in hits.get(k, []) if c.startswith(PREFIX[nodes[i].kind])]
            near = sorted(row, key=lambda h: (-h.score, h.id))  # ties by id, not by insertion order
            candidates[i] = [c for c in dict.fromkeys([*by_key, *(h.id for h in near)]) if c != i]
        more = sorted({c for cs in candidates.values() for c in cs} - set(nodes))
        nodes.update((n.id, n) for n in self.store.get_nodes(more, with_vectors=True))
        out = {}
        for i in ids:
            m, judged = as_mention(nodes[i]), []
            for c in candidates[i]:
                other = nodes.get(c)
                if other is None or other.vectors is None or not len(other.vectors):
                    continue
                state = NodeState.from_node(other)
                d = decide(m, state, float(nodes[i].vectors[0] @ other.vectors[0]),
                           lambda m=m, state=state: float(self.vectors[m.definition] @ self.vectors[state.definition]),
                           lambda code, i=i, kind=m.kind: self._holders(code, kind, i) <= 1)
                if d.action != "separate":
                    judged.append((c, round(d.score, 4), d.settled))
            out[i] = sorted(judged, key=lambda j: (-j[1], j[0]))[:THRESHOLDS.max_duplicate_links]
        return out

    def _holders(self, code: str, kind: str, own: str) -> int:
        found = self.store.nodes_by_keys(["c:" + code]).get("c:" + code, [])
        return len([i for i in found if i.startswith(PREFIX[kind]) and i != own])


def all_ids(store: Store) -> list[str]:
    return sorted(n.id for kind in KINDS for n in store.iter_nodes(kind))


def pairs_of(view: dict[str, list[tuple[str, float, bool]]]) -> set[tuple[str, str]]:
    return {tuple(sorted((i, c))) for i, row in view.items() for c, _, _ in row}


def er_view(runtime: Runtime, graph: FactsGraph, tracker, pairs: list[tuple[str, str]]) -> None:
    """Stands in for facts_resolution's gold judge: the view of the ER graph against its stored links."""
    store = graph.store()
    ids = all_ids(store)
    cpu = time.process_time()
    view = LinkView(store, TextVectors(runtime.embeddings)).links(ids)
    cpu = time.process_time() - cpu
    viewed, stored = pairs_of(view), {tuple(sorted((e.src, e.dst))) for e in store.iter_edges(DUPLICATE)}
    apart = {tuple(sorted((tracker.node_of[a], tracker.node_of[b]))) for a, b in pairs
             if tracker.node_of[a] != tracker.node_of[b]}
    print(f"links as a view ({len(ids)} nodes, {cpu:.1f} s CPU): view {len(viewed)}, stored {len(stored)}, both "
          f"{len(viewed & stored)}; gold pairs left in two nodes ({len(apart)} node pairs) that a link joins: stored "
          f"{len(apart & stored)}, view {len(apart & viewed)}", flush=True)


def run_er(sets: str, cache: Path | None) -> None:
    import sys

    import facts_resolution

    facts_resolution.judge_with_gold = er_view
    sys.argv = ["facts_resolution.py", "--er", "--sets", sets, "--oracle-judge", "--find-variants", "anchored",
                *(["--cache", str(cache)] if cache else [])]
    facts_resolution.main()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--companies", type=int, default=1000)
    parser.add_argument("--cities", type=int, default=300)
    parser.add_argument("--years", type=int, default=20)
    parser.add_argument("--restate-share", type=float, default=0.1)
    parser.add_argument("--shuffle-share", type=float, default=0.1)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--sample", type=int, default=300, help="nodes timed one by one (what info would pay)")
    parser.add_argument("--cache", type=Path, metavar="DIR", help="embedding cache folder outside the repo")
    parser.add_argument("--er", metavar="SETS", help="comma-separated ER sets of bench/facts_resolution.py instead")
    args = parser.parse_args()
    if args.er:
        run_er(args.er, args.cache)
        return
    world = World(args)
    home = Path(tempfile.mkdtemp(prefix="facts-links-view-"))
    embedder = CachedEmbedder(OnnxEmbedder(), args.cache)
    runtime = Runtime(Settings(home=home), embedder=embedder)
    try:
        write(FactsGraph(runtime, "time"), world.documents, args.batch)
        gone = [d["name"] for i, d in enumerate(world.documents) if i % 10 == 9]
        for name in gone:
            call(runtime, "retract", {"document": name, "graph": "time"})
        write(FactsGraph(runtime, "never"), world.documents, args.batch, set(gone))
        views = {}
        for name in ("time", "never"):
            store = FactsGraph(runtime, name).store()
            ids = all_ids(store)
            vectors = TextVectors(runtime.embeddings)
            computed = embedder.computed
            cpu = time.process_time()
            views[name] = LinkView(store, vectors).links(ids)
            cpu = time.process_time() - cpu
            stored = {tuple(sorted((e.src, e.dst))) for e in store.iter_edges(DUPLICATE)}
            viewed = pairs_of(views[name])
            listed = {(i, c) for i, row in views[name].items() for c, _, _ in row}
            one_end = sum((c, i) not in listed for i, c in listed)
            print(f"{name}: {len(ids)} nodes; every node's view {cpu:.1f} s CPU ({1000 * cpu / len(ids):.2f} ms a "
                  f"node; {vectors.embedded} definitions embedded, {embedder.computed - computed} not in --cache); "
                  f"links: view {len(viewed)} ({one_end} in one end's list only), stored {len(stored)}, both "
                  f"{len(viewed & stored)}", flush=True)
        same = views["time"] == views["never"]
        differ = sorted(i for i in set(views["time"]) | set(views["never"])
                        if views["time"].get(i) != views["never"].get(i))
        print(f"retracted vs never written: views {'equal' if same else f'differ at {len(differ)} nodes'}"
              + ("" if same else f"; first: {differ[:5]}"), flush=True)
        store = FactsGraph(runtime, "time").store()
        sample = all_ids(store)[::max(1, len(views['time']) // args.sample)][:args.sample]
        one = []
        for i in sample:  # a fresh TextVectors each time: info's own cost, definitions from the process cache
            cpu = time.process_time()
            LinkView(store, TextVectors(runtime.embeddings)).links([i])
            one.append(time.process_time() - cpu)
        one.sort()
        print(f"one node's view (what info would add): {len(one)} nodes, CPU p50 {1000 * statistics.median(one):.1f} ms"
              f", p95 {1000 * one[int(0.95 * (len(one) - 1))]:.1f} ms", flush=True)
    finally:
        runtime.close()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
