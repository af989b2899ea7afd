"""What a (node, neighbour, cosine) table would cost ingest, before it is built (issue 25, session 12).

    python bench/facts_links_table.py --companies 1000 --cache DIR

An evaluation, not a feature. The rule of sessions 5-9 (each entity's or topic's nearest list: the ``--k`` nearest
of its kind at or above ``--floor``, exact, ties by id; a possible-duplicate link is resolution's decision,
:func:`resolve.decide`, on a pair that one of the two lists holds) makes retraction give back the links exactly,
since the links are then a function of the graph as it is; it cost 1.6x ingest CPU. This writes the
``bench/facts_time.py`` world through today's ``Writer`` and, beside it, keeps that rule up to date the cheapest
way the record names, in memory, timing each part in process CPU:

- **scan**: one matrix product per block of the nodes a write gave a new vector, against their whole kind (the
  scan resolution's candidate search would share);
- **lists**: each such node's own list from its row; the lists it enters found by comparing its row with every
  node's stored k-th cosine, re-ranked from the stored cosines (no vector read); a list whose member moved away
  (its cosine fell) is filled again by an exact scan of that one node ("refills");
- **decide**: resolution's decision only for the pairs that entered a list and the listed pairs of a node whose
  names or definition the write changed (a pair leaving every list drops its link without a decision);
- **rows**: the table rows and links that changed, written to a SQLite table of that shape (one transaction per
  write).

At the end every list is computed again from scratch and every listed pair decided again, and both are compared
with what was kept (the maintenance is exact or the figures mean nothing). Compare the sum with the ingest CPU
printed first: the budget used for "ingest not slower" is +10 %.

Then (unless ``--no-retract``) every tenth document is retracted through the ``retract`` tool, the table kept up to
date from each retraction's node writes and deletions (a deleted node leaves every list; a full list it leaves is
scanned again), and a second graph is written without those documents with its own table: the two link sets and
lists are compared (the point of the rule: retracted == never written).
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import shutil  # noqa: E402
import sqlite3  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter, defaultdict  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from embedding_cache import CachedEmbedder  # noqa: E402
from facts_time import World, call  # noqa: E402

from graphlore.config import Settings  # noqa: E402
from graphlore.embedding import OnnxEmbedder  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.store import Node  # noqa: E402
from graphlore.store.sqlite.store import SQLiteStore  # noqa: E402
from graphlore.toolsets.facts.graph import FactsGraph  # noqa: E402
from graphlore.toolsets.facts.models import DocumentRecord  # noqa: E402
from graphlore.toolsets.facts.resolve import Mention, NodeState, TextVectors, decide  # noqa: E402
from graphlore.toolsets.facts.write import Writer  # noqa: E402

KINDS = {"E:": "entity", "T:": "topic"}
BLOCK = 256


class Kind:
    """One kind's vectors (rows by id) and its nodes' nearest lists with each list's k-th cosine."""

    def __init__(self, dim: int) -> None:
        self.ids: list[str] = []
        self.row: dict[str, int] = {}
        self.matrix = np.zeros((1024, dim), dtype=np.float32)
        self.kth = np.zeros(1024, dtype=np.float32)  # a candidate must reach this to enter the list

    def put(self, node_id: str, vector: np.ndarray, floor: float) -> int:
        if node_id not in self.row:
            if len(self.ids) == len(self.matrix):
                self.matrix = np.vstack([self.matrix, np.zeros_like(self.matrix)])
                self.kth = np.concatenate([self.kth, np.zeros_like(self.kth)])
            self.row[node_id] = len(self.ids)
            self.ids.append(node_id)
            self.kth[self.row[node_id]] = floor
        if np.isinf(self.kth[self.row[node_id]]):  # removed earlier, back now
            self.kth[self.row[node_id]] = floor
        self.matrix[self.row[node_id]] = vector
        return self.row[node_id]


class Table:
    """The nearest lists, who lists whom, and the listed pairs (one entry per pair, both directions counted)."""

    def __init__(self, k: int, floor: float) -> None:
        self.k, self.floor = k, floor
        self.kinds: dict[str, Kind] = {}
        self.lists: dict[str, list[tuple[float, str]]] = {}  # node -> [(cosine, neighbour)] best first
        self.listed_by: dict[str, set[str]] = defaultdict(set)
        self.pairs: Counter = Counter()
        self.touched: set[tuple[str, str]] = set()
        self.rows_changed = 0
        self.refills = 0
        self.dirty: set[str] = set()  # nodes whose list changed since the last write of rows

    def top(self, kind: Kind, node_id: str, scores: np.ndarray) -> list[tuple[float, str]]:
        """The exact list from a row of cosines against the whole kind (ties by id)."""
        scores = scores.copy()
        scores[kind.row[node_id]] = -np.inf
        above = np.nonzero(scores >= self.floor)[0]
        if len(above) > self.k:  # keep every cosine tied with the k-th, then order by (cosine, id)
            kth = np.partition(scores[above], len(above) - self.k)[len(above) - self.k]
            above = above[scores[above] >= kth]
        ranked = sorted(((float(scores[j]), kind.ids[j]) for j in above if kind.kth[j] != np.inf),
                        key=lambda c: (-c[0], c[1]))
        return ranked[:self.k]

    def set_list(self, kind: Kind, node_id: str, ranked: list[tuple[float, str]]) -> None:
        old = {n: c for c, n in self.lists.get(node_id, [])}
        new = {n: c for c, n in ranked}
        for n in old.keys() - new.keys():
            self.listed_by[n].discard(node_id)
            self._pair(node_id, n, -1)
        for n in new.keys() - old.keys():
            self.listed_by[n].add(node_id)
            self._pair(node_id, n, 1)
        changed = len(old.keys() ^ new.keys()) + sum(1 for n in new.keys() & old.keys() if new[n] != old[n])
        if changed:
            self.rows_changed += changed
            self.dirty.add(node_id)
        self.lists[node_id] = ranked
        kind.kth[kind.row[node_id]] = ranked[-1][0] if len(ranked) == self.k else self.floor

    def _pair(self, a: str, b: str, step: int) -> None:
        pair = (a, b) if a < b else (b, a)
        self.pairs[pair] += step
        if self.pairs[pair] <= 0:
            del self.pairs[pair]
        self.touched.add(pair)

    def update(self, kind: Kind, changed: list[str]) -> tuple[float, float]:
        """Keep the lists exact after ``changed`` (nodes of one kind) got new vectors; (scan, lists) CPU."""
        scan = lists = 0.0
        n, fresh = len(kind.ids), set(changed)
        for start in range(0, len(changed), BLOCK):
            block = changed[start:start + BLOCK]
            began = time.process_time()
            rows = [kind.row[c] for c in block]
            scores = kind.matrix[rows] @ kind.matrix[:n].T
            scan += time.process_time() - began
            began = time.process_time()
            for c, row in zip(block, scores, strict=True):
                self.set_list(kind, c, self.top(kind, c, row))
                own = kind.row[c]
                entering = np.nonzero(row[:n] >= kind.kth[:n])[0]
                for j in entering:
                    x = kind.ids[j]
                    if j == own or x in fresh:
                        continue
                    members = [(cos, m) for cos, m in self.lists.get(x, []) if m != c]
                    ranked = sorted([*members, (float(row[j]), c)], key=lambda e: (-e[0], e[1]))[:self.k]
                    self.set_list(kind, x, ranked)
                for x in list(self.listed_by[c]):  # lists that hold c with its old cosine
                    j = kind.row[x]
                    if x in fresh or row[j] >= kind.kth[j]:
                        continue  # rebuilt from its own row, or re-ranked above
                    if len(self.lists[x]) < self.k:  # not full: nothing else is above the floor
                        self.set_list(kind, x, [e for e in self.lists[x] if e[1] != c])
                        continue
                    self.refills += 1  # c moved away: the list's next member is not stored, scan the node again
                    self.set_list(kind, x, self.top(kind, x, kind.matrix[:n] @ kind.matrix[j]))
            lists += time.process_time() - began
        return scan, lists

    def remove(self, kind: Kind, gone: list[str]) -> None:
        """Nodes a retraction deleted: out of every list; a full list that held one is scanned again."""
        for g in gone:
            kind.matrix[kind.row[g]] = 0.0  # cosine 0, below any floor: never listed again
        n = len(kind.ids)
        for g in gone:
            self.set_list(kind, g, [])
            kind.kth[kind.row[g]] = np.inf
            for x in list(self.listed_by[g]):
                if len(self.lists[x]) < self.k:
                    self.set_list(kind, x, [e for e in self.lists[x] if e[1] != g])
                else:
                    self.refills += 1
                    self.set_list(kind, x, self.top(kind, x, kind.matrix[:n] @ kind.matrix[kind.row[x]]))

    def scratch(self, kind: Kind) -> dict[str, list[tuple[float, str]]]:
        n, out = len(kind.ids), {}
        for start in range(0, n, BLOCK):
            scores = kind.matrix[start:min(n, start + BLOCK)] @ kind.matrix[:n].T
            for i, row in enumerate(scores):
                if kind.kth[start + i] != np.inf:
                    out[kind.ids[start + i]] = self.top(kind, kind.ids[start + i], row)
        return out


def as_mention(node: Node) -> Mention:
    return Mention(node.kind, node.name, node.props.get("type"), node.props.get("definition", ""),
                   list(node.props.get("aliases", [])))


def link(a: Node, b: Node, cos: float, vectors: TextVectors) -> tuple[str, float] | None:
    """Resolution's decision on a listed pair (the smaller id taken as the mention): a link or None."""
    if a.id > b.id:
        a, b = b, a
    m, state = as_mention(a), NodeState.from_node(b)
    d = decide(m, state, cos, lambda: float(vectors[m.definition] @ vectors[state.definition]))
    return None if d.action == "separate" else (d.action, round(d.score, 4))


class Shadow:
    """The rule kept beside one graph: its nodes as written, the table, the links, and the CPU of each part."""

    def __init__(self, k: int, floor: float, rows_db: sqlite3.Connection, embedder: CachedEmbedder,
                 runtime: Runtime) -> None:
        self.table = Table(k, floor)
        self.floor, self.rows_db, self.embedder, self.runtime = floor, rows_db, embedder, runtime
        self.nodes: dict[str, Node] = {}
        self.links: dict[tuple[str, str], tuple[str, float]] = {}
        self.cpu: Counter = Counter()
        self.decisions = self.entered = self.left = 0

    def apply(self, events: list[tuple[str, Node | str]]) -> None:
        """One transaction's node writes and deletions, in order: keep the lists and links up to date."""
        table, cpu = self.table, self.cpu
        began = time.process_time()
        embedding = self.embedder.seconds
        vectors = TextVectors(self.runtime.embeddings)
        last: dict[str, Node | None] = {}
        for what, item in events:
            if what == "put":
                last[item.id] = item
            else:
                last[item] = None
        by_kind: dict[str, list[str]] = defaultdict(list)
        removed: dict[str, list[str]] = defaultdict(list)
        restate: set[str] = set()  # nodes whose names, definition or type changed
        for node_id, node in last.items():
            old = self.nodes.get(node_id)
            if node is None:
                if old is not None:
                    removed[old.kind].append(node_id)
                    del self.nodes[node_id]
                continue
            if old is not None and (as_mention(old).names, old.props.get("definition"), old.props.get("type")) != (
                    as_mention(node).names, node.props.get("definition"), node.props.get("type")):
                restate.add(node_id)
            keep = old.vectors if old is not None and node.vectors is None else node.vectors
            if keep is None:
                cpu["nodes without a vector"] += 1
                continue
            self.nodes[node_id] = Node(node.id, node.kind, node.name, node.text, node.props, keep, node.text_hash)
            if node.vectors is not None or old is None:
                kind = table.kinds.setdefault(node.kind, Kind(keep.shape[1]))
                kind.put(node_id, keep[0], self.floor)
                by_kind[node.kind].append(node_id)
        table.touched = set()
        before = set(table.pairs)
        rows = table.rows_changed
        cpu["bookkeeping"] += time.process_time() - began
        began = time.process_time()
        for kind_name, gone in removed.items():
            table.remove(table.kinds[kind_name], gone)
        cpu["lists"] += time.process_time() - began
        for kind_name, changed in by_kind.items():
            scan, lists = table.update(table.kinds[kind_name], changed)
            cpu["scan"] += scan
            cpu["lists"] += lists
        began = time.process_time()
        now = {p for p in table.touched if p in table.pairs}
        gone_pairs = {p for p in table.touched if p in before and p not in table.pairs}
        restated = {p for node_id in restate for x in [*table.listed_by[node_id],
                                                        *(m for _, m in table.lists.get(node_id, []))]
                    for p in [(node_id, x) if node_id < x else (x, node_id)] if p in table.pairs}
        todo = (now - before) | restated
        self.entered, self.left = self.entered + len(now - before), self.left + len(gone_pairs)
        new_links, dropped = [], [p for p in gone_pairs if self.links.pop(p, None) is not None]
        for a, b in sorted(todo):
            decided = self.decide(a, b, vectors)
            self.decisions += 1
            if decided is None:
                if self.links.pop((a, b), None) is not None:
                    dropped.append((a, b))
            elif self.links.get((a, b)) != decided:
                self.links[(a, b)] = decided
                new_links.append((a, b, *decided))
        cpu["decide"] += time.process_time() - began - (self.embedder.seconds - embedding)
        began = time.process_time()
        with self.rows_db:
            self.rows_db.executemany("DELETE FROM near WHERE node = ?", [(x,) for x in table.dirty])
            self.rows_db.executemany("INSERT OR REPLACE INTO near VALUES (?, ?, ?)",
                                     [(x, m, c) for x in table.dirty for c, m in table.lists.get(x, [])])
            self.rows_db.executemany("DELETE FROM link WHERE a = ? AND b = ?", dropped)
            self.rows_db.executemany("INSERT OR REPLACE INTO link VALUES (?, ?, ?, ?)", new_links)
        table.dirty = set()
        cpu["rows"] += time.process_time() - began
        cpu["table rows changed"] += table.rows_changed - rows

    def decide(self, a: str, b: str, vectors: TextVectors) -> tuple[str, float] | None:
        kind = self.table.kinds[self.nodes[a].kind]
        return link(self.nodes[a], self.nodes[b], float(kind.matrix[kind.row[a]] @ kind.matrix[kind.row[b]]), vectors)

    def total(self) -> float:
        return sum(self.cpu[k] for k in ("bookkeeping", "scan", "lists", "decide", "rows"))

    def report(self, label: str, against: float) -> str:
        c, t = self.cpu, self.table
        return (f"{label}: {self.total():.2f} s CPU = {self.total() / against:.1%} of it: bookkeeping "
                f"{c['bookkeeping']:.2f}, scan {c['scan']:.2f}, lists {c['lists']:.2f} ({t.refills} refills), decide "
                f"{c['decide']:.2f} ({self.decisions} decisions; pairs entered {self.entered}, left {self.left}), "
                f"rows {c['rows']:.2f} ({int(c['table rows changed'])} list entries changed)")

    def check(self) -> tuple[int, dict[tuple[str, str], tuple[str, float]]]:
        """Every list from scratch (how many differ) and every listed pair decided again (the links)."""
        differ = 0  # members or order (cosines agree only to float32 rounding between blocks)
        for kind in self.table.kinds.values():
            for node_id, ranked in self.table.scratch(kind).items():
                differ += [m for _, m in ranked] != [m for _, m in self.table.lists.get(node_id, [])]
        vectors = TextVectors(self.runtime.embeddings)
        fresh = {}
        for a, b in sorted(self.table.pairs):
            decided = self.decide(a, b, vectors)
            if decided is not None:
                fresh[(a, b)] = decided
        return differ, fresh


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--companies", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=50, help="documents per write (as facts_time.py)")
    parser.add_argument("--k", type=int, default=10, help="list length (resolution's vector_candidates)")
    parser.add_argument("--floor", type=float, default=0.60,
                        help="lowest cosine a list holds (resolution's pending_text_floor)")
    parser.add_argument("--cache", type=Path, metavar="DIR", help="embedding cache folder outside the repo")
    parser.add_argument("--no-retract", action="store_true", help="skip retracting every tenth document")
    args = parser.parse_args()
    world = World(argparse.Namespace(companies=args.companies, cities=300, years=20, restate_share=0.1,
                                     shuffle_share=0.1, seed=25))
    home = Path(tempfile.mkdtemp(prefix="facts-links-table-"))
    embedder = CachedEmbedder(OnnxEmbedder(), args.cache)
    runtime = Runtime(Settings(home=home), embedder=embedder)
    events: list[tuple[str, Node | str]] = []
    upsert, delete = SQLiteStore.upsert_nodes, SQLiteStore.delete_nodes

    def capture_upsert(self, nodes):
        upsert(self, nodes)
        events.extend(("put", n) for n in nodes if n.id[:2] in KINDS)

    def capture_delete(self, ids):
        out = delete(self, ids)
        events.extend(("delete", i) for i in ids if i[:2] in KINDS)
        return out

    SQLiteStore.upsert_nodes, SQLiteStore.delete_nodes = capture_upsert, capture_delete
    rows_db = sqlite3.connect(home / "table.sqlite")
    rows_db.execute("CREATE TABLE near (node TEXT, neighbour TEXT, cosine REAL, PRIMARY KEY (node, neighbour)) "
                    "WITHOUT ROWID")
    rows_db.execute("CREATE TABLE link (a TEXT, b TEXT, action TEXT, score REAL, PRIMARY KEY (a, b)) WITHOUT ROWID")

    def ingest(graph: str, skip: set[str]) -> tuple[Shadow, float]:
        shadow, ingest_cpu = Shadow(args.k, args.floor, rows_db, embedder, runtime), 0.0
        writer, docs = Writer(FactsGraph(runtime, graph)), world.documents
        for start in range(0, len(docs), args.batch):
            records = [DocumentRecord.model_validate(d) for d in docs[start:start + args.batch] if d["name"] not in skip]
            if records:
                events.clear()
                began = time.process_time()
                writer.write(records)
                ingest_cpu += time.process_time() - began
                shadow.apply(list(events))
        return shadow, ingest_cpu

    try:
        shadow, ingest_cpu = ingest("time", set())
        print(f"{args.companies} companies, {len(world.documents)} documents in writes of {args.batch}; "
              f"{len(shadow.nodes)} entities and topics; k {args.k}, floor {args.floor}; load {os.getloadavg()[0]:.1f}")
        print(f"ingest (today's Writer): {ingest_cpu:.1f} s CPU; embedder {embedder.computed} texts computed")
        print(shadow.report("the table beside it (budget 10 %)", ingest_cpu))
        began = time.process_time()
        differ, fresh = shadow.check()
        print(f"from scratch ({time.process_time() - began:.1f} s CPU): lists that differ {differ}; listed pairs "
              f"{len(shadow.table.pairs)}, links {len(fresh)} (kept {len(shadow.links)}), equal {fresh == shadow.links}")
        if args.no_retract:
            return
        gone = [d["name"] for i, d in enumerate(world.documents) if i % 10 == 9]
        retract_cpu, before = 0.0, shadow.total()
        for name in gone:
            events.clear()
            began = time.process_time()
            call(runtime, "retract", {"document": name, "graph": "time"})
            retract_cpu += time.process_time() - began
            shadow.apply(list(events))
        table_cpu = shadow.total() - before
        never, never_cpu = ingest("never", set(gone))
        print(f"retract {len(gone)} documents (every tenth): {retract_cpu:.1f} s CPU, the table beside it "
              f"{table_cpu:.2f} s ({shadow.table.refills} refills in all); the graph without them written in "
              f"{never_cpu:.1f} s CPU")

        def members(s: Shadow) -> dict[str, list[str]]:
            return {i: [m for _, m in ranked] for i, ranked in s.table.lists.items() if ranked}

        got, want = members(shadow), members(never)
        order = sum(1 for i in got.keys() | want.keys()
                    if got.get(i) != want.get(i) and sorted(got.get(i, [])) == sorted(want.get(i, [])))
        sets = sum(1 for i in got.keys() | want.keys() if sorted(got.get(i, [])) != sorted(want.get(i, [])))
        print(f"lists that differ in order only {order}, in members {sets}; ids only one side lists "
              f"{len(got.keys() ^ want.keys())}; nodes equal {sorted(shadow.nodes) == sorted(never.nodes)}")
        print(f"retracted: {len(shadow.nodes)} entities and topics, {len(shadow.links)} links; never written: "
              f"{len(never.nodes)}, {len(never.links)}; links equal {shadow.links == never.links} "
              f"({len(set(shadow.links.items()) ^ set(never.links.items()))} differ); lists equal "
              f"{members(shadow) == members(never) and sorted(shadow.nodes) == sorted(never.nodes)}")
    finally:
        SQLiteStore.upsert_nodes, SQLiteStore.delete_nodes = upsert, delete
        rows_db.close()
        runtime.close()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
