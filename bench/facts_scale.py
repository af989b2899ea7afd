"""The facts toolset at scale: ingest throughput, find and search latency on a generated graph.

    python bench/facts_scale.py                                  # 100k entities/topics, 1M facts, 10 years
    python bench/facts_scale.py --entities 2000 --facts 20000    # a quick check
    python bench/facts_scale.py --keep /tmp/f1m                  # keep the graph ...
    python bench/facts_scale.py --keep /tmp/f1m --reuse          # ... and time find/search on it again

Generates a graph with ``--entities`` nodes (``--topic-share`` of them topics), ``--facts`` facts in
documents of ``--facts-per-doc`` facts dated uniformly over ``--years`` years. Node popularity follows
a Zipf-like law (weight 1 / (rank + 10) ** 0.9), so some nodes are hubs; each document also introduces its
share of the nodes not mentioned yet, so every node is in the graph. Names are made of generated
syllables (unique, no digits); definitions and sentences are recombined from word lists, so vectors
differ. The first mention of a node carries its definition; ``--variant-share`` of later mentions use
a variant (an alias such as "Korvani Inc" and a reworded definition) so resolution does real work;
the rest repeat the first mention exactly (resolved by their (name, type, definition) key, no
embedding).

Prints (all through the tools, in process, with the bundled ONNX model):

- ``ingest``: wall time and facts/s of ``Writer.write`` over batches of ``--batch`` documents (each one
  transaction; embedding, resolution and SQLite writes included), texts embedded, store size.
- ``find``: the first call (builds the vector cache), then p50/p95 of calls with 3 selectors
  (2 entities, 1 topic; name + a reworded definition) including their one embedding call, and how often
  the intended node is the top candidate.
- ``search``: p50/p95 per variant - around / between, without and with ``--query``, over all dates, a
  one-year date window, ``current`` and ``as_of`` a day - each over ``--queries`` random selections.
  Selectors are drawn uniformly over nodes (the typical node) and, in the ``hub`` rows, weighted by
  popularity (nodes with many facts). Also the mean
  number of facts that passed the filters (what ``--query`` ranks).

``--random-vectors`` gives every text a random unit vector (seeded by its hash) instead of the model's, to
build the full-size graph in minutes rather than hours: the scan's and BM25's costs do not depend on the
vectors' values, so it times the engine and the write path without embedding, but find's top-1,
resolution of the variant mentions (they do not merge) and every ranking mean nothing then.

No target is checked and no figure is hard-coded; the issue's targets (search p50 <= 50 ms without
--query, <= 150 ms with it; find p50 <= 25 ms) are for a quiet machine at the default sizes.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import datetime as dt  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from embedding_cache import CachedEmbedder  # noqa: E402

from graphlore.config import Settings  # noqa: E402
from graphlore.contract import parse_request  # noqa: E402
from graphlore.embedding import OnnxEmbedder  # noqa: E402

try:  # the platform (issue 7); older trees (``PYTHONPATH=<older tree>/src``, the "before" figures) had both
    from graphlore.runtime import Runtime  # noqa: E402
    from graphlore.tools import CallContext  # noqa: E402
except ImportError:  # pragma: no cover
    from graphlore.toolset import CallContext, Runtime  # noqa: E402
try:  # the store's file name through the factory; older trees wrote graph.db
    from graphlore.store import store_size  # noqa: E402
except ImportError:  # pragma: no cover
    store_size = None
from graphlore.toolsets.facts import TOOLSET, resolve  # noqa: E402
from graphlore.toolsets.facts.graph import FactsGraph  # noqa: E402
from graphlore.toolsets.facts.models import DocumentRecord  # noqa: E402
from graphlore.toolsets.facts.write import Writer  # noqa: E402

SPECS = {s.name: s for s in TOOLSET.tools}
SYLLABLES = ("ka ri to ven mar lo sa nel dor pi qua zen tur bel ko ra mi sol dan vex ar lu fen gor "
             "hal is jo ker lam nor os pel rud sto tav um vil wen yor zu").split()
ENTITY_TYPES = {"Company": ("Inc", "Group"), "Person": (), "Organization": ("Foundation",), "Location": (),
                "Product": ("Pro",)}
ROLES = {
    "Company": ["maker of {a} {b}", "{c} company that sells {a} {b}", "provider of {a} {b} services in {d}"],
    "Person": ["{c} executive who leads a {a} {b} business", "founder of a {a} {b} startup in {d}"],
    "Organization": ["{c} association that regulates {a} {b}", "agency overseeing {a} {b} in {d}"],
    "Location": ["city in {d} known for {a} {b}", "region of {d} with a large {a} {b} industry"],
    "Product": ["{a} {b} device sold in {d}", "software for {a} {b}"],
}
TOPIC_ROLES = ["questions about {a} {b}", "trends in {a} {b} across {d}", "policy debates on {a} {b}"]
WORDS_A = ("solar battery cloud retail freight mobile medical credit steel grain shipping insurance "
           "chip textile dairy water satellite gaming coffee lithium").split()
WORDS_B = ("equipment software networks logistics payments materials services storage sensors devices "
           "farming analytics chemicals vehicles robotics").split()
WORDS_C = "European Asian American African regional global national private public independent".split()
PLACES = "Europe Asia Brazil Canada Kenya Japan Mexico India Norway Chile Egypt Vietnam".split()
VERBS = ("acquired", "partnered with", "sued", "invested in", "supplies", "hired staff from", "criticised",
         "signed a contract with", "competes with", "reported on", "lobbied", "expanded into")
DETAILS = ("after months of talks", "in a deal worth {n} million dollars", "according to a filing",
           "despite a fall in {a} demand", "to grow its {a} business", "citing rising costs", "in {d}",
           "for the second time", "as {a} prices rose", "in a statement on Monday")


class RandomEmbedder:
    """A random unit vector per text, seeded by the text's hash (the same text, the same vector), in the
    bundled model's dimension; the counters :class:`CachedEmbedder` has. For ``--random-vectors``."""

    name, dim = "random-unit-vectors", 384
    seconds = cache_seconds = 0.0
    computed = 0

    def embed(self, texts) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest())
            out[i] = np.random.default_rng(seed).standard_normal(self.dim, dtype=np.float32)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        self.computed += len(texts)
        return out

    def passages(self, text: str) -> list[str]:
        return [text]


def name_for(i: int) -> str:
    """A unique pronounceable name from the index (two or three syllable words, no digits)."""
    parts, n = [], i
    for _ in range(4):
        parts.append(SYLLABLES[n % len(SYLLABLES)])
        n //= len(SYLLABLES)
    word = "".join(parts[:3]).capitalize()
    return f"{word} {SYLLABLES[(i * 7) % len(SYLLABLES)].capitalize()}{parts[3]}"


def fill(template: str, rng: random.Random) -> str:
    return template.format(a=rng.choice(WORDS_A), b=rng.choice(WORDS_B), c=rng.choice(WORDS_C),
                           d=rng.choice(PLACES), n=rng.randint(2, 900))


class Generator:
    def __init__(self, args: argparse.Namespace) -> None:
        self.rng = random.Random(args.seed)
        self.args = args
        n = args.entities
        topics = int(n * args.topic_share)
        self.nodes = []
        for i in range(n):
            if i < topics:
                self.nodes.append({"kind": "topic", "name": name_for(i), "definition": fill(self.rng.choice(TOPIC_ROLES), self.rng)})
            else:
                etype = self.rng.choice(list(ENTITY_TYPES))
                self.nodes.append({"kind": "entity", "name": name_for(i), "type": etype,
                                   "definition": fill(self.rng.choice(ROLES[etype]), self.rng)})
        order = list(range(n))
        self.rng.shuffle(order)
        weights = np.empty(n)
        weights[order] = 1.0 / (np.arange(n) + 10) ** 0.9
        self.weights = weights / weights.sum()
        self.cumulative = np.cumsum(self.weights)
        self.seen: set[int] = set()
        # Every node is mentioned at least once: each document introduces its share of the nodes not
        # mentioned yet (in a random order), and draws the rest by popularity.
        self.introduce = order[:]
        self.rng.shuffle(self.introduce)
        self.next_new = 0
        self.documents = -(-args.facts // args.facts_per_doc)
        self.end = dt.date(2025, 12, 31)
        self.start = self.end - dt.timedelta(days=365 * args.years)

    def pick(self, k: int) -> list[int]:
        draws = np.searchsorted(self.cumulative, [self.rng.random() for _ in range(k * 2)])
        return list(dict.fromkeys(int(min(d, len(self.nodes) - 1)) for d in draws))[:k]

    def mention(self, i: int) -> dict:
        node = self.nodes[i]
        first = i not in self.seen
        self.seen.add(i)
        name, definition = node["name"], node["definition"]
        if not first and self.rng.random() < self.args.variant_share:
            suffix = ENTITY_TYPES.get(node.get("type", ""), ())
            name = f"{name} {suffix[0]}" if suffix else name
            definition = f"{definition}, as described in the report"
        out = {"name": name, "definition": definition}
        if node["kind"] == "entity":
            out["type"] = node["type"]
        return out

    def unseen(self, d: int) -> list[int]:
        """This document's share of the nodes never mentioned so far."""
        quota = -(-(len(self.nodes) - len(self.seen)) // max(1, self.documents - d))
        out: list[int] = []
        while len(out) < quota and self.next_new < len(self.introduce):
            i = self.introduce[self.next_new]
            self.next_new += 1
            if i not in self.seen:
                out.append(i)
        return out

    def document(self, d: int, n_facts: int) -> dict:
        size = max(2, min(12, n_facts // 3 + 2))
        fresh = self.unseen(d)
        chosen = list(dict.fromkeys(fresh + self.pick(size)))[: max(size, len(fresh))]
        mentions = {i: self.mention(i) for i in chosen}
        days = (self.end - self.start).days
        date = (self.start + dt.timedelta(days=self.rng.randrange(days + 1))).isoformat()
        facts, chunks = [], []
        for f in range(n_facts):
            s, o = self.rng.sample(chosen, 2)
            sentence = (f"{mentions[s]['name']} {self.rng.choice(VERBS)} {mentions[o]['name']} "
                        f"{fill(self.rng.choice(DETAILS), self.rng)}.")
            if f % 5 == 0:
                chunks.append(sentence)
            else:
                chunks[-1] += " " + sentence
            facts.append({"subject": mentions[s]["name"], "relationship": self.rng.choice(VERBS),
                          "object": mentions[o]["name"], "sentence": sentence, "chunk": len(chunks) - 1})
        ents = [m for i, m in mentions.items() if self.nodes[i]["kind"] == "entity"]
        tops = [m for i, m in mentions.items() if self.nodes[i]["kind"] == "topic"]
        return {"name": f"Report {d:07d}", "date": date, "source": f"bench://{d}", "chunks": chunks,
                "entities": ents, "topics": tops, "facts": facts}


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def ms(values: list[float]) -> str:
    return f"p50 {pct(values, 50) * 1000:7.1f} ms  p95 {pct(values, 95) * 1000:7.1f} ms"


def call(runtime: Runtime, tool: str, args: dict, context: CallContext):
    spec = SPECS[tool]
    request = parse_request(spec.request, args)
    return spec.run(runtime, request, context=context) if spec.context else spec.run(runtime, request)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entities", type=int, default=100_000, help="entities + topics (default 100000)")
    parser.add_argument("--topic-share", type=float, default=0.2, help="share of them that are topics (0.2)")
    parser.add_argument("--facts", type=int, default=1_000_000, help="facts (default 1000000)")
    parser.add_argument("--years", type=int, default=10, help="years the document dates span (10)")
    parser.add_argument("--facts-per-doc", type=int, default=50, help="facts per document (50)")
    parser.add_argument("--batch", type=int, default=100, help="documents per write transaction (100)")
    parser.add_argument("--variant-share", type=float, default=0.05, help="later mentions that use a variant (0.05)")
    parser.add_argument("--queries", type=int, default=200, help="calls per measured variant (200)")
    parser.add_argument("--find-scale", type=int, default=0, metavar="N",
                        help="also time find over N nodes with random unit vectors (scan cost without ingesting)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="keep the data folder here (default: a temp dir, removed)")
    parser.add_argument("--cache", type=Path, metavar="DIR",
                        help="embedding cache folder outside the repo (bench/embedding_cache.py): a second run, or "
                             "another tree's, reads the vectors instead of embedding, so it times the write path "
                             "alone; without it every text is embedded")
    parser.add_argument("--random-vectors", action="store_true",
                        help="every text gets a random unit vector seeded by its hash instead of the model's: builds "
                             "the graph's structure at full size in a fraction of the time, to time the engine "
                             "(ingest without embedding, search, find); rankings, find's top-1 and resolution of "
                             "variants mean nothing then")
    parser.add_argument("--database-url", default="",
                        help="a postgresql:// URL: the graph on PostgreSQL instead of the embedded SQLite store")
    parser.add_argument("--reuse", action="store_true",
                        help="with --keep: skip ingest and time find/search on the graph kept there by an "
                             "earlier run with the same sizes and seed")
    parser.add_argument("--answers", type=Path, metavar="FILE",
                        help="write every search call's request, total and results to FILE (JSON lines), so two "
                             "trees' answers on the same graph and seed can be compared (diff)")
    args = parser.parse_args()
    if args.reuse and args.keep is None:
        parser.error("--reuse needs --keep DIR")
    if args.random_vectors and args.cache is not None:
        parser.error("--random-vectors and --cache exclude each other (random vectors are never cached)")

    base = args.keep or Path(tempfile.mkdtemp(prefix="facts-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    if args.random_vectors:
        embedder = RandomEmbedder()
        print("RANDOM VECTORS (--random-vectors): every text's vector is a random unit vector seeded by its hash, "
              "not the model's; the figures time the engine and the write path without embedding, not ranking "
              "quality, find's top-1 or resolution")
    else:
        embedder = CachedEmbedder(OnnxEmbedder(), args.cache)  # without --cache: embeds every text, timed
    runtime = Runtime(Settings(home=base / "home", database_url=args.database_url), embedder=embedder)
    graph = FactsGraph(runtime, "default")
    gen = Generator(args)
    docs = -(-args.facts // args.facts_per_doc)
    print(f"graph: {args.entities} entities/topics ({args.topic_share:.0%} topics), {args.facts} facts in {docs} "
          f"documents over {args.years} years; batches of {args.batch} documents; seed {args.seed}")
    embedder.embed(["warm up"])
    print(f"machine: {os.cpu_count()} CPUs; python {sys.version.split()[0]}; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS')}")

    if args.reuse:
        if not graph.exists():
            sys.exit(f"--reuse: no graph in {base}; run once with --keep {base} first")
        print(f"ingest: skipped (--reuse), graph kept in {graph.location}")
    else:
        ingest(graph, gen, args, docs)
    store = graph.store()
    size = (store_size(runtime.settings, graph.namespace) if store_size is not None
            else sum(p.stat().st_size for p in graph.location.glob("graph.db*")))
    print(f"store: {store.count_nodes('entity')} entities, {store.count_nodes('topic')} topics, "
          f"{store.count_nodes('document')} documents, {store.count_edges('fact')} facts, "
          f"{store.count_edges('possible_duplicate')} possible-duplicate links; {size / 1e6:.0f} MB on disk")
    measure(runtime, store, gen, args)
    if args.find_scale:
        find_scale(runtime, args)
    if args.keep is None:
        shutil.rmtree(base, ignore_errors=True)


def ingest(graph: FactsGraph, gen: Generator, args: argparse.Namespace, docs: int) -> None:
    written = embedded = 0
    spent = cpu = 0.0
    embedding_before = graph.runtime.embedder.seconds
    computed_before, cache_before = graph.runtime.embedder.computed, graph.runtime.embedder.cache_seconds
    resolving = [0.0]  # Resolver.resolve, its own embedding calls subtracted
    original = resolve.Resolver.resolve

    def timed_resolve(self, mentions):
        embedded, began = graph.runtime.embedder.seconds, time.perf_counter()
        try:
            return original(self, mentions)
        finally:
            resolving[0] += time.perf_counter() - began - (graph.runtime.embedder.seconds - embedded)

    resolve.Resolver.resolve = timed_resolve
    outcomes = {"created": 0, "merged": 0, "matched": 0}
    report_every = max(1, docs // args.batch // 10)
    for b, start in enumerate(range(0, docs, args.batch)):
        batch = []
        for d in range(start, min(docs, start + args.batch)):
            n = min(args.facts_per_doc, args.facts - d * args.facts_per_doc)
            batch.append(DocumentRecord.model_validate(gen.document(d, n)))
        writer = Writer(graph)
        began, began_cpu = time.perf_counter(), time.process_time()
        results = writer.write(batch)
        spent += time.perf_counter() - began
        cpu += time.process_time() - began_cpu
        written += sum(r.facts_added for r in results)
        embedded += writer.vectors.embedded
        for r in results:
            for res in r.resolutions:
                outcomes[res.action] += 1
        if b % report_every == 0:
            print(f"  ... {written} facts in {spent:.0f} s ({written / spent:.0f} facts/s)", flush=True)
    resolve.Resolver.resolve = original
    embedding = graph.runtime.embedder.seconds - embedding_before
    computed = graph.runtime.embedder.computed
    source = "" if args.cache is None else (
        f" ({computed - computed_before} of them computed, the rest read from --cache in "
        f"{graph.runtime.embedder.cache_seconds - cache_before:.1f} s, counted in the write path below)")
    print(f"ingest: {written} facts in {spent:.1f} s = {written / spent:.0f} facts/s (embedding included); "
          f"texts embedded {embedded}{source} in {embedding:.1f} s; the rest of the write path {spent - embedding:.1f} s "
          f"(CPU time of the writes, embedding included: {cpu:.1f} s) "
          f"(Resolver.resolve without embedding {resolving[0]:.1f} s); "
          f"mentions created {outcomes['created']}, merged {outcomes['merged']}, matched {outcomes['matched']}")


def measure(runtime: Runtime, store, gen: Generator, args: argparse.Namespace) -> None:
    # -- find --------------------------------------------------------------------------------------
    rng = random.Random(args.seed + 1)
    ctx = CallContext(session="bench")
    ids_by_name = {n.name: n.id for kind in ("entity", "topic") for n in store.iter_nodes(kind)}
    entities = [i for i, n in enumerate(gen.nodes) if n["kind"] == "entity" and n["name"] in ids_by_name]
    topics = [i for i, n in enumerate(gen.nodes) if n["kind"] == "topic" and n["name"] in ids_by_name]

    def selector(i: int) -> dict:
        node = gen.nodes[i]
        return {"name": node["name"], "definition": node["definition"].replace(" in ", " across ")}

    began = time.perf_counter()
    call(runtime, "find", {"entity": [selector(entities[0])]}, ctx)
    print(f"find: first call {1000 * (time.perf_counter() - began):.0f} ms (loads the vector cache)")
    times, cpu, hits, total = [], [], 0, 0
    for _ in range(args.queries):
        chosen_e, chosen_t = rng.sample(entities, 2), [rng.choice(topics)] if topics else []
        request = {"entity": [selector(i) for i in chosen_e]}
        if chosen_t:
            request["topic"] = [selector(i) for i in chosen_t]
        began, used = time.perf_counter(), time.process_time()
        out = call(runtime, "find", request, ctx)
        times.append(time.perf_counter() - began)
        cpu.append(time.process_time() - used)
        for i, sel in zip([*chosen_e, *chosen_t], [*out.entities, *out.topics], strict=True):
            total += 1
            hits += bool(sel.candidates) and sel.candidates[0].id == ids_by_name[gen.nodes[i]["name"]]
    print(f"find, 3 selectors (2 entities + 1 topic), embedding included: wall {ms(times)}, CPU {ms(cpu)}; "
          f"intended node first in {hits}/{total}")

    # -- search ------------------------------------------------------------------------------------
    every = [ids_by_name[gen.nodes[i]["name"]] for i in entities + topics]
    hub_weights = np.array([gen.weights[i] for i in entities + topics])
    hub_weights /= hub_weights.sum()
    choose = np.random.default_rng(args.seed + 2)

    def pick(k: int, hub: bool) -> list[str]:
        if hub:
            return list(dict.fromkeys(every[int(x)] for x in choose.choice(len(every), size=k, p=hub_weights)))
        return rng.sample(every, k)

    def selection(mode: str, hub: bool) -> list[str]:
        if mode == "around":
            return pick(rng.randint(1, 3), hub)
        # between: a node, one node it has a fact with, and one more, so the subgraph holds facts
        seed = pick(1, hub)[0]
        near = [e.dst if e.src == seed else e.src for e in store.select_edges([seed], type="fact", limit=5).edges]
        return list(dict.fromkeys([seed, *near[:1], *pick(1, hub)]))

    print(f"search ({args.queries} calls each; matched = facts passing selectors and dates, what --query ranks):")
    answers = args.answers.open("w", encoding="utf-8") if args.answers else None
    for hub in (False, True):
        for mode in ("around", "between"):
            for query in (False, True):
                for when in ("all", "1 year", "current", "as-of"):
                    times, cpu, matched = [], [], []
                    for _ in range(args.queries):
                        chosen = selection(mode, hub)
                        request: dict = {"mode": mode, "limit": 20}
                        for node_id in chosen:
                            request.setdefault("entity" if node_id.startswith("E:") else "topic", []).append(node_id)
                        if query:
                            request["query"] = fill("{a} {b} deal", rng)
                        year = rng.randint(gen.start.year + 1, gen.end.year)
                        if when == "1 year":
                            request["from"], request["to_date"] = f"{year}-01-01", f"{year}-12-31"
                        elif when == "current":
                            request["current"] = True
                        elif when == "as-of":
                            request["as_of"] = f"{year}-06-30"
                        began, used = time.perf_counter(), time.process_time()
                        out = call(runtime, "search", request, ctx)
                        times.append(time.perf_counter() - began)
                        cpu.append(time.process_time() - used)
                        matched.append(out.total)
                        if answers:
                            answers.write(json.dumps({"request": request, "total": out.total,
                                                      "results": [r.model_dump(mode="json") for r in out.results]}) + "\n")
                    label = f"{'hub' if hub else 'typical'} {mode:7} {'query' if query else 'newest':6} {when:7}"
                    print(f"  {label}: wall {ms(times)}, CPU {ms(cpu)}  matched mean {statistics.mean(matched):8.1f} "
                          f"max {max(matched)}", flush=True)
    if answers:
        answers.close()
        print(f"answers: every search call's request, total and results in {args.answers}")


def find_scale(runtime: Runtime, args: argparse.Namespace) -> None:
    """find's cost at N nodes without embedding N texts: random unit vectors (the scan does not depend on
    the values; which node comes first does, so top-1 is not measured), generated names and definitions as
    their keyword text and lookup keys (BM25 does real work), the selectors' embedding included. Wall and
    CPU time (the CPU figure is what a busy machine does not distort), and where find's CPU goes."""
    from graphlore.search.fusion import fuse
    from graphlore.store import Node, record_embedder
    from graphlore.toolsets.facts import lookup
    from graphlore.toolsets.facts.names import code_keys, name_keys

    n = args.find_scale
    rng = np.random.default_rng(args.seed)
    words = random.Random(args.seed)
    graph = FactsGraph(runtime, "findscale")
    store = graph.store(create=True)
    topics = int(n * args.topic_share)
    texts = [(name_for(i), fill(words.choice(TOPIC_ROLES if i < topics else ROLES["Company"]), words)) for i in range(n)]
    for start in range(0, n, 10_000):
        rows = rng.normal(size=(min(10_000, n - start), runtime.embedder.dim)).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        nodes, keys = [], {}
        for j, row in enumerate(rows):
            i = start + j
            node_id, (name, definition) = f"{'T' if i < topics else 'E'}:n{i}", texts[i]
            nodes.append(Node(node_id, "topic" if i < topics else "entity", name, lookup.keyword_text(name, definition),
                              {"definition": definition, "aliases": []}, row[None, :]))
            keys[node_id] = name_keys(name)
        with store.atomic():
            store.upsert_nodes(nodes)
            store.add_node_keys(keys)
    record_embedder(store, runtime.embedder.name, runtime.embedder.dim)
    ctx = CallContext(session="bench")
    began = time.perf_counter()
    call(runtime, "find", {"entity": [{"name": texts[-1][0], "definition": texts[-1][1]}], "graph": "findscale"}, ctx)
    first = time.perf_counter() - began

    def selectors(q: int) -> list[dict]:
        picks = [topics + (q * 7919 + k * 104729) % (n - topics) for k in range(2)] + [(q * 31) % max(1, topics)]
        return [{"name": texts[i][0], "definition": fill(words.choice(ROLES["Company"]), words)} for i in picks]

    wall, cpu = [], []
    for q in range(args.queries):
        sel = selectors(q)
        began, used = time.perf_counter(), time.process_time()
        call(runtime, "find", {"entity": sel[:2], "topic": sel[2:], "graph": "findscale"}, ctx)
        wall.append(time.perf_counter() - began)
        cpu.append(time.process_time() - used)
    parts: dict[str, list[float]] = {k: [] for k in ("embedding", "vector scan", "BM25", "fusion", "code keys")}

    def timed(part: str, work):
        used = time.process_time()
        out = work()
        parts[part].append(time.process_time() - used)
        return out

    params, kinds = lookup.FIND, ["entity", "entity", "topic"]
    for q in range(args.queries):
        sel = selectors(q)
        vectors = timed("embedding", lambda sel=sel: runtime.embedder.embed([f"{x['name']}: {x['definition']}" for x in sel]))
        found = timed("vector scan", lambda v=vectors: store.vector_search_many(v, kinds=kinds, limit=params.candidates))
        keyword = timed("BM25", lambda sel=sel: [store.keyword_search(lookup.keyword_query(x["name"]), kind=k,
                                                                      limit=params.candidates, weights=params.field_weights)
                                                 for x, k in zip(sel, kinds, strict=True)])
        timed("fusion", lambda kw=keyword, f=found: [fuse(a, b, params.method, weights=params.weights)
                                                     for a, b in zip(kw, f, strict=True)])
        timed("code keys", lambda sel=sel: [store.nodes_by_keys(code_keys(x["name"]), kind=k)
                                            for x, k in zip(sel, kinds, strict=True)])
    print(f"find over {n} nodes with random vectors ({topics} topics): first call {first * 1000:.0f} ms (cache load); "
          f"3 selectors (2 entities, 1 topic), wall {ms(wall)}, CPU {ms(cpu)}; CPU p50 by part: "
          + ", ".join(f"{k} {pct(v, 50) * 1000:.1f} ms" for k, v in parts.items()))


if __name__ == "__main__":
    main()
