"""Where `find` should stop presenting candidates as matches: score distributions of true and false candidates.

    python bench/facts_find_floor.py                       # pairs, absent, restaurants, amazon_google
    python bench/facts_find_floor.py --datasets pairs,absent,restaurants,amazon_google,dblp_acm

`find` scores a candidate by the cosine of the selector's "{name}: {definition}" and the node's
"{name}: {definition}" (clipped to [0, 1]). This prints, for several sources of (query, true node)
pairs, how those scores fall for the true node and for everything else, and a sweep of candidate
floors F: the share of true matches at or above F (kept as matches), the share of queries whose
true node is absent from the graph but whose best candidate still scores >= F (a non-match shown as
a match), and the precision of the candidates >= F.

Sources:
- ``pairs``: the labelled (name, definition) pairs of bench/facts_resolution.py, short agent-style
  definitions of the same thing (true) or of different things sharing or resembling a name (false):
  the cosine of the two texts, as find would score one against the other.
- ``absent``: the graph of examples/facts/news.jsonl queried with agent-style selectors of things
  it does not hold (other companies, people, central banks, topics; and topics asked for as
  entities): the best candidate's score is what a non-match scores when definitions are free text.
- ``restaurants``, ``amazon_google``, ``dblp_acm`` (../shared/data/er/): side B is written into a real
  facts graph through the Writer (resolution included), side A queries it through ``tools.find``
  (top 5), name + a definition built from the record's other fields. A queries without a gold match
  measure what a non-match scores.
Nothing is hard-coded but the definition templates; every figure is measured on this run.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from graphlore.config import Settings  # noqa: E402
from graphlore.contract import parse_request  # noqa: E402
from graphlore.embedding import OnnxEmbedder  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.toolsets.facts import tools  # noqa: E402
from graphlore.toolsets.facts.graph import FactsGraph  # noqa: E402
from graphlore.toolsets.facts.models import DocumentRecord, FindRequest  # noqa: E402
from graphlore.toolsets.facts.write import Writer  # noqa: E402

ER = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "er"
FLOORS = [round(0.30 + 0.05 * i, 2) for i in range(12)]
BATCH = 100  # entities per document record written


def clip(text: str, n: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[:n].rsplit(" ", 1)[0]


def read(path: Path) -> list[dict]:
    csv.field_size_limit(10**9)
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        return list(csv.DictReader(f))


def restaurants() -> tuple[list, list, dict]:
    def rec(r):
        return r["id"], clip(r["name"], 80), f"{r['type']} restaurant at {r['addr']}, {r['city']}"
    a = [rec(r) for r in read(ER / "restaurants" / "fodors.csv")]
    b = [rec(r) for r in read(ER / "restaurants" / "zagats.csv")]
    gold = {}
    for r in read(ER / "restaurants" / "matches_fodors_zagats.csv"):
        gold.setdefault(r["fodors_id"], set()).add(r["zagats_id"])
    return a, b, gold


def amazon_google() -> tuple[list, list, dict]:
    def rec(r, name_key):
        maker = f" by {r['manufacturer']}" if r.get("manufacturer") else ""
        desc = f": {clip(r['description'], 150)}" if r.get("description") else ""
        return r["id"], clip(r[name_key], 100), f"software product{maker}{desc}"
    a = [rec(r, "title") for r in read(ER / "amazon_google" / "Amazon.csv")]
    b = [rec(r, "name") for r in read(ER / "amazon_google" / "GoogleProducts.csv")]
    gold = {}
    for r in read(ER / "amazon_google" / "Amzon_GoogleProducts_perfectMapping.csv"):
        gold.setdefault(r["idAmazon"], set()).add(r["idGoogleBase"])
    return a, b, gold


def dblp_acm() -> tuple[list, list, dict]:
    def rec(r):
        return r["id"], clip(r["title"], 120), f"paper by {clip(r['authors'], 80)} in {r['venue']} {r['year']}"
    a = [rec(r) for r in read(ER / "dblp_acm" / "DBLP2.csv")]
    b = [rec(r) for r in read(ER / "dblp_acm" / "ACM.csv")]
    gold = {}
    for r in read(ER / "dblp_acm" / "DBLP-ACM_perfectMapping.csv"):
        gold.setdefault(r["idDBLP"], set()).add(r["idACM"])
    return a, b, gold


NEWS = Path(__file__).resolve().parents[1] / "examples" / "facts" / "news.jsonl"
#: Things examples/facts/news.jsonl does not hold, as an agent would ask for them (kind, name, definition).
ABSENT = [
    ("entity", "Tesla", "electric car maker"), ("entity", "Bitcoin", "decentralised digital currency"),
    ("entity", "Netflix", "video streaming service"), ("entity", "Google", "internet search company"),
    ("entity", "Samsung", "South Korean electronics maker"), ("entity", "Satya Nadella", "CEO of Microsoft"),
    ("entity", "European Central Bank", "central bank of the euro area"), ("entity", "London", "capital of England"),
    ("entity", "Venus", "second planet from the Sun"), ("entity", "Barometer", "instrument that measures air pressure"),
    ("entity", "Inflation", "general price increases"), ("entity", "Cloud computing", "computing over the internet"),
    ("topic", "Climate change", "long-term shifts in temperatures and weather"),
    ("topic", "Housing market", "buying and selling homes"), ("topic", "Unemployment", "people without jobs"),
    ("topic", "Cryptocurrency", "digital money on blockchains"), ("topic", "Apple", "technology company"),
    ("topic", "Tim Cook", "chief executive of Apple"),
]
DATASETS = {"restaurants": (restaurants, "Restaurant"), "amazon_google": (amazon_google, "Product"),
            "dblp_acm": (dblp_acm, "Paper")}


def pct(values: list[float], q: float) -> str:
    return f"{np.percentile(values, q):.3f}" if values else "-"


def report(title: str, true_scores: list[float], false_tops: list[float], listed: list[tuple[float, bool]]) -> None:
    print(f"\n== {title}")
    print(f"true node's score: n={len(true_scores)}  p5 {pct(true_scores, 5)}  p10 {pct(true_scores, 10)}  "
          f"p25 {pct(true_scores, 25)}  p50 {pct(true_scores, 50)}")
    print(f"best candidate when the true node is absent: n={len(false_tops)}  p50 {pct(false_tops, 50)}  "
          f"p75 {pct(false_tops, 75)}  p90 {pct(false_tops, 90)}  p95 {pct(false_tops, 95)}")
    print(f"{'floor':>6} {'true kept':>10} {'absent shown':>13} {'precision>=F':>13}")
    for floor in FLOORS:
        kept = np.mean([s >= floor for s in true_scores]) if true_scores else float("nan")
        shown = np.mean([s >= floor for s in false_tops]) if false_tops else float("nan")
        above = [ok for s, ok in listed if s >= floor]
        precision = np.mean(above) if above else float("nan")
        print(f"{floor:6.2f} {kept:10.3f} {shown:13.3f} {precision:13.3f}")


def pairs(embedder: OnnxEmbedder) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from facts_resolution import PAIRS

    v = embedder.embed([t for a, ad, b, bd, _ in PAIRS for t in (f"{a}: {ad}", f"{b}: {bd}")])
    scores = [(max(0.0, float(v[2 * i] @ v[2 * i + 1])), same) for i, (*_, same) in enumerate(PAIRS)]
    true = [s for s, same in scores if same]
    false = [s for s, same in scores if not same]
    report(f"labelled pairs ({len(true)} same thing, {len(false)} different things; cosine of the two texts)",
           true, false, scores)


def absent(embedder: OnnxEmbedder, home: Path) -> None:
    import json

    runtime = Runtime(Settings(home=home), embedder=embedder)
    graph = FactsGraph(runtime, "news")
    records = [DocumentRecord.model_validate(json.loads(line)) for line in NEWS.read_text().splitlines() if line.strip()]
    Writer(graph).write(records)
    request = parse_request(FindRequest, {
        kind: [{"name": n, "definition": d} for k, n, d in ABSENT if k == kind] for kind in ("entity", "topic")
    } | {"graph": "news"})
    out = tools.find(runtime, request)
    tops = []
    print(f"\n== absent: {len(ABSENT)} selectors for things examples/facts/news.jsonl does not hold")
    for sel in [*out.entities, *out.topics]:
        best = sel.candidates[0] if sel.candidates else None
        tops.append(best.score if best else 0.0)
        print(f"  {sel.name:24} best {best.name if best else '-':28} {best.score if best else 0:.3f}")
    print(f"best candidate: p50 {pct(tops, 50)}  p90 {pct(tops, 90)}  max {max(tops):.3f}")
    for floor in FLOORS:
        print(f"{floor:6.2f}  shown as a match: {np.mean([t >= floor for t in tops]):.3f}")


def dataset(name: str, embedder: OnnxEmbedder, home: Path, limit: int | None) -> None:
    load, etype = DATASETS[name]
    a, b, gold = load()
    if limit:
        keep = {bid for ids in gold.values() for bid in ids}
        b = [r for r in b if r[0] in keep][:limit] + [r for r in b if r[0] not in keep][: limit // 4]
        a = a[:limit]
    runtime = Runtime(Settings(home=home), embedder=embedder)
    graph = FactsGraph(runtime, name.replace("_", "-"))
    started = time.perf_counter()
    node_of: dict[str, str] = {}
    pending: list[tuple[str, str, str]] = []
    writer = Writer(graph)

    def flush() -> None:
        if not pending:
            return
        record = DocumentRecord.model_validate({
            "name": f"{name} catalogue {len(node_of)}", "date": "2024-01-01", "chunks": ["catalogue"],
            "entities": [{"name": n, "type": etype, "definition": d} for _, n, d in pending],
        })
        [out] = writer.write([record])
        ids = {res.name: res.id for res in out.resolutions}
        for rid, n, _ in pending:
            node_of[rid] = ids[n]
        pending.clear()

    for rid, n, d in b:
        if any(n.casefold() == p[1].casefold() for p in pending) or len(pending) >= BATCH:
            flush()
        pending.append((rid, n, d))
    flush()
    nodes = len(set(node_of.values()))
    print(f"\n{name}: wrote {len(b)} records as {nodes} nodes in {time.perf_counter() - started:.0f} s")
    true_scores, false_tops, listed = [], [], []
    rank1 = with_gold = 0
    started = time.perf_counter()
    for i in range(0, len(a), 20):
        chunk = a[i:i + 20]
        request = parse_request(FindRequest, {"entity": [{"name": n, "definition": d} for _, n, d in chunk],
                                              "graph": graph.name})
        out = tools.find(runtime, request)
        for (rid, _, _), sel in zip(chunk, out.entities, strict=True):
            truth = {node_of[x] for x in gold.get(rid, ()) if x in node_of}
            for c in sel.candidates:
                listed.append((c.score, c.id in truth))
            if truth:
                with_gold += 1
                hit = [c.score for c in sel.candidates if c.id in truth]
                true_scores.append(hit[0] if hit else 0.0)
                rank1 += bool(sel.candidates) and sel.candidates[0].id in truth
            elif sel.candidates:
                false_tops.append(sel.candidates[0].score)
    print(f"{name}: {len(a)} queries in {time.perf_counter() - started:.0f} s; {with_gold} have their true node in "
          f"the graph, rank 1 for {rank1} ({rank1 / max(with_gold, 1):.3f}); true node outside the top 5 counts as 0")
    report(f"{name} through tools.find", true_scores, false_tops, listed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default="pairs,absent,restaurants,amazon_google")
    parser.add_argument("--limit", type=int, default=None, help="at most this many queries per dataset (quick run)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the graphs in this folder")
    args = parser.parse_args()
    embedder = OnnxEmbedder()
    home = args.keep or Path(tempfile.mkdtemp(prefix="find-floor-"))
    for name in args.datasets.split(","):
        if name == "pairs":
            pairs(embedder)
        elif name == "absent":
            absent(embedder, home)
        elif not ER.is_dir():
            print(f"skipping {name}: {ER} is absent")
        else:
            dataset(name, embedder, home, args.limit)
    if args.keep is None:
        import shutil
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
