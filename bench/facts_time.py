"""Facts that know what is still true: ``search --current`` / ``--as-of`` against a generator's truth, and
retraction against a graph that never saw the retracted documents.

    python bench/facts_time.py                                  # 10k companies over 20 years
    python bench/facts_time.py --companies 500 --queries 300    # a quick check
    python bench/facts_time.py --cache /tmp/facts-time-cache    # vectors read from a cache on the next run
    python bench/facts_time.py --companies 300 --no-retract --oracle-judge   # the contradiction judge's plumbing

The generator (seeded) gives each company a timeline over ``--years`` years: a CEO who changes every 2 to
6 years ("has CEO"), headquarters that move every 4 to 12 years ("headquartered in", among ``--cities``
cities), and for a fifth of them an acquisition by another company ("acquired by"). Every change is a
fact (``date_context`` the day it happened) stated in a dated document published 0 to 90 days later,
ten facts from various companies per document. On top of that, ``--restate-share`` of the facts are
restated by a later retrospective document (the same object, the original day as ``date_context``),
and ``--shuffle-share`` of the documents are ingested out of order (anywhere later in the stream).

Every definition states a number of its own (a company's rank, a person's council seat, a city's
population), so entity resolution never merges two generated names that are spelled alike (what it
decides is measured in bench/facts_resolution.py; here it must not blur the truth).

Run 1 (validity): every document is written (``Writer.write``, ``--batch`` documents per transaction);
then, for ``--queries`` companies, ``search --current`` and ``search --as-of`` a random day are compared
with the generator's truth: the set of (relationship, object) the company is the subject of. Precision
and recall are counted over those pairs. Nothing in the generator's text states the answers (validity
is computed by the write path from functional relationships and dates only).

Run 2 (retraction): in the same graph every tenth document (in ingest order) is retracted through the
``retract`` tool; a second graph is written from the same stream without those documents (the same
batches, minus them); both graphs are then compared row by row: every node (name, text, props, text
hash, lookup keys, vector), every edge (ends, type, props, text, date, vector). Free-text ``reason``
props are left out of the comparison (they may be worded differently after a rebuild).

Run 3 (``--oracle-judge``, the LLM contradiction judge's plumbing): the same stream written into a third
graph with the three relationships declared not functional (so the rule ends nothing), then
``check_contradictions`` as shipped (questions, verdicts recorded on the facts, validity computed from them)
until nothing is left to ask, with the generator's truth answering for the LLM: of the later facts shown, the
one stating the next change of the same relationship. Counted: the facts the truth says were superseded and
whether each ended on the right day, facts ended that should hold, then ``--current`` / ``--as-of`` as in
run 1. It measures the plumbing (questions, recording, validity), not how good an LLM is.

Prints what it measured: sizes, times (wall and CPU), precision / recall and the comparison's result
(with the first differences, if any).
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import datetime as dt  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from embedding_cache import CachedEmbedder  # noqa: E402

from graphlore.config import Settings  # noqa: E402
from graphlore.contract import parse_request  # noqa: E402
from graphlore.embedding import OnnxEmbedder  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.tools import CallContext  # noqa: E402
from graphlore.toolsets.facts import TOOLSET  # noqa: E402
from graphlore.toolsets.facts.graph import FactsGraph  # noqa: E402
from graphlore.toolsets.facts.models import DocumentRecord  # noqa: E402
from graphlore.toolsets.facts.write import Writer  # noqa: E402

SPECS = {s.name: s for s in TOOLSET.tools}
CONTEXT = CallContext(session="bench")
SYLLABLES = ("ka ri to ven mar lo sa nel dor pi qua zen tur bel ko ra mi sol dan vex ar lu fen gor "
             "hal is jo ker lam nor os pel rud sto tav um vil wen yor zu").split()
SECTORS = ("software", "steel", "shipping", "insurance", "retail", "mining", "biotech", "aviation", "textiles",
           "logistics", "media", "energy", "banking", "farming", "robotics", "chemicals")
REGIONS = ("northern Europe", "the Andes", "southeast Asia", "the Great Lakes", "the Balkans", "west Africa",
           "the Pacific coast", "central Asia", "the Gulf", "the Baltic")
FACTS_PER_DOC = 10
CEO, HQ, ACQ = "has CEO", "headquartered in", "acquired by"


def word(i: int, salt: int) -> str:
    """A pronounceable word from an index: three syllables, unique per (i, salt) in the ranges used."""
    n = i * 7919 + salt * 104729
    return "".join(SYLLABLES[(n // len(SYLLABLES) ** k) % len(SYLLABLES)] for k in range(3)).capitalize()


class World:
    """Companies, people and cities with timelines, the facts that state them, and the documents."""

    def __init__(self, args: argparse.Namespace) -> None:
        rng = random.Random(args.seed)
        self.start = dt.date(2005, 1, 1)
        self.end = self.start + dt.timedelta(days=365 * args.years)
        span = (self.end - self.start).days
        self.companies = [f"{word(i, 1)} {word(i, 2)} Group" for i in range(args.companies)]
        self.cities = [f"{word(i, 3)}port" for i in range(args.cities)]
        self.people: list[str] = []
        self.truth: dict[str, dict[str, list[tuple[str, str]]]] = {}  # company -> relationship -> [(day, object)]
        facts: list[dict] = []

        def person() -> str:
            self.people.append(f"{word(len(self.people), 4)} {word(len(self.people), 5)}")
            return self.people[-1]

        for company in self.companies:
            line: dict[str, list[tuple[str, str]]] = {CEO: [], HQ: []}
            day = rng.randint(0, 365 * 3)
            while day < span:
                line[CEO].append((self._day(day), person()))
                day += rng.randint(2 * 365, 6 * 365)
            day = rng.randint(0, 365 * 3)
            while day < span:
                city = rng.choice([x for x in self.cities if not line[HQ] or x != line[HQ][-1][1]])
                line[HQ].append((self._day(day), city))
                day += rng.randint(4 * 365, 12 * 365)
            if rng.random() < 0.2 and len(self.companies) > 1:
                buyer = rng.choice([x for x in self.companies if x != company])
                line[ACQ] = [(self._day(rng.randint(365 * 5, span - 1)), buyer)]
            self.truth[company] = line
            for rel, events in line.items():
                facts += [{"company": company, "rel": rel, "object": obj, "day": d} for d, obj in events]
        self.definitions = {
            **{c: f"{rng.choice(SECTORS)} company from {rng.choice(REGIONS)}, number {i} of its kind"
               for i, c in enumerate(self.companies)},
            **{p: f"business executive from {rng.choice(REGIONS)}, {rng.choice(SECTORS)} specialist, council "
                  f"member {i}" for i, p in enumerate(self.people)},
            **{x: f"port city in {rng.choice(REGIONS)} with {1000 + 37 * i} inhabitants"
               for i, x in enumerate(self.cities)},
        }
        self.types = {**dict.fromkeys(self.companies, "Company"), **dict.fromkeys(self.people, "Person"),
                      **dict.fromkeys(self.cities, "Location")}
        restated = [dict(f, restated=True) for f in rng.sample(facts, int(len(facts) * args.restate_share))]
        for f in facts + restated:  # published 0-90 days after (a restatement: 1-8 years after)
            late = rng.randint(365, 8 * 365) if f.get("restated") else rng.randint(0, 90)
            f["published"] = min(self.end, dt.date.fromisoformat(f["day"]) + dt.timedelta(days=late)).isoformat()
        stream = sorted(facts + restated, key=lambda f: (f["published"], f["company"], f["rel"]))
        self.documents = [self._document(n, stream[i:i + FACTS_PER_DOC])
                          for n, i in enumerate(range(0, len(stream), FACTS_PER_DOC))]
        n = len(self.documents)
        late = set(rng.sample(range(n), int(n * args.shuffle_share)))  # written later than published
        place = {i: i + (rng.randint(1, max(1, n // 5)) + 0.5 if i in late else 0) for i in range(n)}
        self.documents = [self.documents[i] for i in sorted(range(n), key=place.__getitem__)]
        self.facts = len(stream)
        self.restated = len(restated)

    def _day(self, offset: int) -> str:
        return (self.start + dt.timedelta(days=offset)).isoformat()

    def _document(self, n: int, facts: list[dict]) -> dict:
        names = list(dict.fromkeys(x for f in facts for x in (f["company"], f["object"])))
        sentence = {CEO: "{s} named {o} chief executive", HQ: "{s} moved its headquarters to {o}",
                    ACQ: "{s} was bought by {o}"}
        lines = [sentence[f["rel"]].format(s=f["company"], o=f["object"])
                 + (f", as it did on {f['day']}" if f.get("restated") else f" on {f['day']}") + "." for f in facts]
        return {
            "name": f"Business wire {facts[-1]['published']} #{n}", "date": max(f["published"] for f in facts),
            "source": "bench://facts_time", "chunks": lines,
            "entities": [{"name": x, "type": self.types[x], "definition": self.definitions[x]} for x in names],
            "facts": [{"subject": f["company"], "relationship": f["rel"], "object": f["object"], "sentence": line,
                       "date_context": f["day"], "chunk": i} for i, (f, line) in enumerate(zip(facts, lines,
                                                                                             strict=True))],
        }

    def holding(self, company: str, day: str | None) -> set[tuple[str, str]]:
        """(relationship, object) pairs that held for ``company`` on ``day`` (None: now)."""
        out = set()
        for rel, events in self.truth[company].items():
            started = [obj for d, obj in events if day is None or d <= day]
            if started:
                out.add((rel, started[-1]))
        return out


def write(graph: FactsGraph, docs: list[dict], batch: int, skip: set[str] = frozenset()) -> float:
    """Write ``docs`` in batches of ``batch`` (the same boundaries whatever ``skip`` leaves out); CPU seconds."""
    cpu = time.process_time()
    writer = Writer(graph)
    for start in range(0, len(docs), batch):
        records = [DocumentRecord.model_validate(d) for d in docs[start:start + batch] if d["name"] not in skip]
        if records:
            writer.write(records)
    return time.process_time() - cpu


def call(runtime: Runtime, tool: str, args: dict):
    spec = SPECS[tool]
    request = parse_request(spec.request, args)
    return spec.call(runtime, request, **({"context": CONTEXT} if spec.context else {}))


def answers(runtime: Runtime, graph: str, company: str, **when) -> set[tuple[str, str]]:
    out = call(runtime, "search", {"entity": [company], "limit": 200, "graph": graph, **when})
    return {(f.relationship, f.object.name) for f in out.results if f.subject.name == company}


def validity(runtime: Runtime, world: World, args: argparse.Namespace) -> None:
    rng = random.Random(args.seed + 1)
    sample = rng.sample(world.companies, min(args.queries, len(world.companies)))
    for label in ("current", "as_of"):
        hit = got = want = 0
        began, cpu = time.perf_counter(), time.process_time()
        for company in sample:
            day = None
            if label == "as_of":
                day = (world.start + dt.timedelta(days=rng.randint(0, (world.end - world.start).days))).isoformat()
            found = answers(runtime, "time", company, **({"current": True} if day is None else {"as_of": day}))
            truth = world.holding(company, day)
            if found != truth and os.environ.get("FACTS_TIME_DIFF"):
                print(f"  {company} {label} {day}: extra {sorted(found - truth)} missing {sorted(truth - found)}")
            hit, got, want = hit + len(found & truth), got + len(found), want + len(truth)
        wall, cpu = time.perf_counter() - began, time.process_time() - cpu
        print(f"--{label.replace('_', '-')}: {len(sample)} companies, {want} true pairs, {got} answered: precision "
              f"{hit / max(got, 1):.3f}, recall {hit / max(want, 1):.3f} ({1000 * wall / len(sample):.1f} ms wall, "
              f"{1000 * cpu / len(sample):.1f} ms CPU per search)")


def state(store) -> tuple[dict, dict]:
    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k != "reason"}
        return [clean(v) for v in value] if isinstance(value, list) else value

    listed = list(store.iter_nodes(with_vectors=True))
    keys = store.node_keys([n.id for n in listed])
    nodes = {n.id: (n.kind, n.name, n.text, clean(n.props), n.text_hash, keys.get(n.id, []), n.vectors)
             for n in listed}
    edges = {e.id: (e.src, e.dst, e.type, clean(e.props), e.text, e.date, e.vector) for e in store.iter_edges()}
    return nodes, edges


def same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is not None and b is not None and a.shape == b.shape and bool(np.allclose(a, b, atol=1e-5))
    return a == b


def differences(got: tuple[dict, dict], want: tuple[dict, dict]) -> list[str]:
    out = []
    for label, g, w in (("node", got[0], want[0]), ("edge", got[1], want[1])):
        for key in sorted(set(g) | set(w)):
            if key not in g or key not in w:
                out.append(f"{label} {key} only in the {'retracted' if key in g else 'never-written'} graph")
            elif not all(same(x, y) for x, y in zip(g[key], w[key], strict=True)):
                out.append(f"{label} {key} differs: {g[key][:6]} vs {w[key][:6]}")
    return out


def retraction(runtime: Runtime, world: World, args: argparse.Namespace) -> None:
    gone = [d["name"] for i, d in enumerate(world.documents) if i % 10 == 9]
    began, cpu = time.perf_counter(), time.process_time()
    for name in gone:
        call(runtime, "retract", {"document": name, "graph": "time"})
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    print(f"retract: {len(gone)} documents (every tenth) in {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"({1000 * wall / len(gone):.0f} ms per document)")
    cpu = write(FactsGraph(runtime, "never"), world.documents, args.batch, set(gone))
    print(f"the graph without them written in {cpu:.1f} s CPU")
    got, want = state(FactsGraph(runtime, "time").store()), state(FactsGraph(runtime, "never").store())
    diff = differences(got, want)
    links = [d for d in diff if d.startswith("edge dup:")]
    rest = [d for d in diff if not d.startswith("edge dup:")]
    kinds = {}
    for _, row in want[1].items():
        kinds[row[2]] = kinds.get(row[2], 0) + 1
    print(f"compared {len(want[0])} nodes (with lookup keys and vectors) and {len(want[1])} edges "
          f"({', '.join(f'{n} {t}' for t, n in sorted(kinds.items()))}): "
          + ("all equal" if not rest else f"{len(rest)} differences outside possible-duplicate links; first: "
             + "; ".join(rest[:5])))
    print(f"possible-duplicate links: {len(links)} differ (a link is made when a node is created, against the "
          "nodes the graph held then: see bench/README.md)" if links else "possible-duplicate links: equal")
    if os.environ.get("FACTS_TIME_DIFF"):
        Path(os.environ["FACTS_TIME_DIFF"]).write_text("\n".join(diff), encoding="utf-8")


class TruthOracle:
    """Stands in for the LLM of ``check_contradictions`` here: its name only (the answers come from the
    generator's truth, see :func:`judged`)."""

    name = "generator-oracle"

    def complete(self, request):  # pragma: no cover - never asked: judged() answers for it
        raise AssertionError("the oracle answers through contradictions.ask")


def next_change(world: World, company: str, rel: str, day: str) -> tuple[str, str] | None:
    """The truth's first event of ``rel`` after ``day`` (day, object), if any."""
    return next(((d, obj) for d, obj in world.truth.get(company, {}).get(rel, []) if d > day), None)


def judged(runtime: Runtime, world: World, args: argparse.Namespace) -> None:
    from graphlore.llm import Verdict
    from graphlore.toolsets.facts import contradictions, validity
    from graphlore.toolsets.facts.graph import FACT

    write(FactsGraph(runtime, "judged"), world.documents, args.batch)
    for rel in (CEO, HQ, ACQ):
        call(runtime, "relation_set", {"name": rel, "functional": False, "graph": "judged"})

    def ask(llm, question, names):
        fact = question.fact
        change = next_change(world, names[fact.src], fact.props["relationship"], validity.fact_start(fact))
        picked = next((g.id for g in question.later if change is not None
                       and (g.props["relationship"], names[g.dst], validity.fact_start(g))
                       == (fact.props["relationship"], change[1], change[0])), None)
        return Verdict(picked, True, "the generator's next change" if picked else "no later change shown")

    original, contradictions.ask = contradictions.ask, ask
    asked = ended = 0
    began, cpu = time.perf_counter(), time.process_time()
    try:
        while True:
            out = contradictions.check_contradictions(
                runtime, parse_request(SPECS["check_contradictions"].request, {"limit": 500, "graph": "judged"}),
                CallContext(session="bench", llm=TruthOracle()))
            asked += len(out.checks)
            ended += sum(c.decision == "ended" for c in out.checks)
            if not out.checks or not out.unchecked:
                break
    finally:
        contradictions.ask = original
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    print(f"check-contradictions with the truth as judge (functional relationships off): {asked} facts asked, "
          f"{ended} ended in {wall:.1f} s wall, {cpu:.1f} s CPU ({1000 * cpu / max(1, asked):.1f} ms CPU per fact, "
          "the LLM's time excluded)")
    store = FactsGraph(runtime, "judged").store()
    facts = list(store.iter_edges(FACT))
    names = {n.id: n.name for n in store.get_nodes(sorted({i for e in facts for i in (e.src, e.dst)}))}
    superseded = right = wrong_day = missed = wrongly = 0
    for e in facts:
        change = next_change(world, names[e.src], e.props["relationship"], validity.fact_start(e))
        if change is None:
            wrongly += e.props.get("valid_to") is not None
            continue
        superseded += 1
        if e.props.get("valid_to") is None:
            missed += 1
        elif e.props["valid_to"] == change[0]:
            right += 1
        else:
            wrong_day += 1
    print(f"superseded facts (by the truth): {superseded}; ended on the right day {right} "
          f"({right / max(1, superseded):.3f}), on another day {wrong_day}, not ended {missed}; facts that hold "
          f"but were ended: {wrongly}")
    sample = random.Random(args.seed + 1).sample(world.companies, min(args.queries, len(world.companies)))
    for label in ("current", "as_of"):
        hit = got = want = 0
        rng = random.Random(args.seed + 2)
        for company in sample:
            day = None if label == "current" else (
                world.start + dt.timedelta(days=rng.randint(0, (world.end - world.start).days))).isoformat()
            found = answers(runtime, "judged", company, **({"current": True} if day is None else {"as_of": day}))
            truth = world.holding(company, day)
            hit, got, want = hit + len(found & truth), got + len(found), want + len(truth)
        print(f"  judged graph --{label.replace('_', '-')}: {len(sample)} companies, {want} true pairs, {got} answered: "
              f"precision {hit / max(got, 1):.3f}, recall {hit / max(want, 1):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--companies", type=int, default=10_000)
    parser.add_argument("--cities", type=int, default=300)
    parser.add_argument("--years", type=int, default=20)
    parser.add_argument("--restate-share", type=float, default=0.1)
    parser.add_argument("--shuffle-share", type=float, default=0.1)
    parser.add_argument("--queries", type=int, default=2000, help="companies asked per question (default 2000)")
    parser.add_argument("--batch", type=int, default=50, help="documents per write transaction")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--cache", type=Path, metavar="DIR", help="embedding cache folder outside the repo")
    parser.add_argument("--no-retract", action="store_true", help="skip run 2")
    parser.add_argument("--oracle-judge", action="store_true",
                        help="run 3: functional relationships off, check-contradictions with the truth as its judge")
    args = parser.parse_args()
    began = time.perf_counter()
    world = World(args)
    print(f"generated {len(world.companies)} companies, {len(world.people)} people, {len(world.cities)} cities, "
          f"{world.facts} facts ({world.restated} restated) in {len(world.documents)} documents "
          f"({args.shuffle_share:.0%} out of order) in {time.perf_counter() - began:.1f} s; load {os.getloadavg()[0]:.1f}")
    home = Path(tempfile.mkdtemp(prefix="facts-time-"))
    embedder = CachedEmbedder(OnnxEmbedder(), args.cache)
    runtime = Runtime(Settings(home=home), embedder=embedder)
    try:
        began = time.perf_counter()
        cpu = write(FactsGraph(runtime, "time"), world.documents, args.batch)
        wall = time.perf_counter() - began
        print(f"ingest: {wall:.1f} s wall, {cpu:.1f} s CPU ({world.facts / wall:.0f} facts/s; {embedder.computed} "
              f"texts embedded in {embedder.seconds:.1f} s, the rest from --cache)")
        validity(runtime, world, args)
        if not args.no_retract:
            retraction(runtime, world, args)
        if args.oracle_judge:
            judged(runtime, world, args)
    finally:
        runtime.close()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
