"""Entity resolution, measured: labelled name pairs, and three public entity-resolution sets.

    python bench/facts_resolution.py                 # labelled pairs: cosines and verdicts (~10 s)
    python bench/facts_resolution.py --er            # restaurants, DBLP-ACM, Amazon-GoogleProducts
    python bench/facts_resolution.py --er --sets restaurants --show 20 --no-cache
    python bench/facts_resolution.py --gold-audit   # how far each gold labels equal-name pairs (~1 s)
    python bench/facts_resolution.py --write-sizes 400,800,1600,3226 --sets amazon_google  # one write growing
    python bench/facts_resolution.py --er --threshold code_merge_definition=0.4   # a variant of the lines
    python bench/facts_resolution.py --er --dump-merges /tmp/merges.jsonl   # every merge, for facts_variants_fit.py
    python bench/facts_resolution.py --er --oracle-judge   # then resolve-links, answers from the gold
    python bench/facts_resolution.py --er --sets amazon_google --price   # a product's definition states its price

**Pairs.** Each pair is (name A, definition A, name B, definition B, same thing?). Types are left
equal, so only names and definitions decide (a differing type would block a merge on its own).
Prints, per pair, the name evidence, the definition cosine, the text cosine of "{name}: {definition}",
the verdict (merge / possible duplicate / separate) and whether a merge or a separation was right;
then, per name-evidence level, the lowest definition cosine of a true match and the highest of a
false one.

**ER sets** (``--er``; read-only from ``../shared/data/er``). Per set, through the real facts
``Writer`` and ``find`` tool on a fresh graph in a temp dir:

1. the left table's records become entities (name = the title or name column, type = one per set,
   definition = the other fields, see ``SETS``), 50 per document (a record whose name is already in
   the document starts the next one: names are unique per document), all in one ``Writer.write``;
2. ``find`` looks up every right record that has a true match (name + definition as the selector):
   top-1 / top-5 = the node of a true match is first / in the first five;
3. the right table is ingested the same way (one write), and the bench reports **merge precision**
   (merges whose mention joins a node holding a record of the same gold cluster / all merges; clusters
   are the connected components of the gold pairs, so two left records that match one right record
   are one cluster), **recall** (gold pairs whose two records end in one node), what was merged while
   ingesting the left table alone, possible-duplicate links, and the time of each write: wall,
   embedding (0 when the cache had every text) and ``Resolver.resolve`` alone (its embedding
   subtracted). ``matched`` mentions (same name, type and definition as an earlier one: no decision)
   are counted apart from merges;
4. the same figures on two halves of the records (split by a hash of the record id, :func:`half`): the
   **fit** half, which ``bench/facts_variants_fit.py`` chooses the variant rules on, and the **held-out**
   half, which nothing was fitted on; and how many possible-duplicate links are open (what ``resolve-links``
   asks an LLM about) or settled by identifiers (never asked);
5. with ``--oracle-judge``, last: ``resolve-links`` as shipped with the judge's answers taken from the gold
   (a stand-in for the LLM, which this machine does not have): links asked, merges, time per link without
   the LLM's latency, and the recall a judge that is always right would reach.

Embeddings are cached by text in ``--cache`` (default ``$TMPDIR/graphlore-bench-embeddings``, outside
the repo; ``--no-cache`` embeds everything, ~300 short texts/s on 2 cores). Nothing is hard-coded but
the pairs and their labels, and the gold files.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import ast  # noqa: E402
import csv  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, fields, replace  # noqa: E402
from pathlib import Path  # noqa: E402

from embedding_cache import CachedEmbedder  # noqa: E402

from graphlore.config import Settings  # noqa: E402
from graphlore.embedding import OnnxEmbedder  # noqa: E402

try:  # the platform's Runtime (issue 7); older trees had it in graphlore.toolset
    from graphlore.runtime import Runtime  # noqa: E402
except ImportError:  # pragma: no cover
    from graphlore.toolset import Runtime  # noqa: E402
from graphlore.search import hybrid_search_many  # noqa: E402
from graphlore.toolsets.facts import lookup, mentions, resolve, tools  # noqa: E402
from graphlore.toolsets.facts.graph import DUPLICATE, FactsGraph, node_text  # noqa: E402
from graphlore.toolsets.facts.models import DocumentRecord, FindRequest  # noqa: E402
from graphlore.toolsets.facts.names import exact_key, mention_key, name_evidence, normalize  # noqa: E402
from graphlore.toolsets.facts.resolve import THRESHOLDS, Mention, NodeState, Thresholds, decide  # noqa: E402
from graphlore.toolsets.facts.write import Writer  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
#: The lines resolution draws: graphlore's, or a variant from --threshold.
LINES: Thresholds = THRESHOLDS
ER_DATA = REPO.parent / "shared" / "data" / "er"
RECORDS_PER_DOCUMENT = 50
#: Product descriptions run to hundreds of words; a definition is one sentence, so the first words are kept.
#: The price is left out of a product's definition: it is what one shop asks, not what the product is
#: (the two shops ask different prices for the same product).
DESCRIPTION_WORDS = 40

PAIRS = [
    ("NYC", "the most populous city in the United States", "New York City", "largest city in the United States, on the Hudson River", True),
    ("NYC", "New York City, the largest US city", "New York City", "most populous city in the United States", True),
    ("Apple", "American technology company that makes the iPhone", "Apple Inc", "technology company headquartered in Cupertino, California", True),
    ("Apple Inc.", "American technology company that designs the iPhone and Mac computers", "Apple", "technology company headquartered in Cupertino, California", True),
    ("Apple Inc.", "American technology company that designs the iPhone and Mac computers", "Apple Inc", "maker of the iPhone, based in Cupertino", True),
    ("Apple Inc.", "maker of iPhone and Mac computers", "Apple", "consumer electronics company", True),
    ("IBM", "American multinational technology company", "International Business Machines", "technology corporation based in Armonk, New York", True),
    ("UK", "country in north-western Europe", "United Kingdom", "sovereign country made of England, Scotland, Wales and Northern Ireland", True),
    ("EU", "political and economic union of European states", "European Union", "union of 27 member states in Europe", True),
    ("Microsoft", "software company that makes Windows", "Microsoft Corp", "American technology corporation", True),
    ("Microsoft Corp", "American technology company that makes Windows and Azure", "Microsoft", "software company that makes Windows and the Azure cloud", True),
    ("Tesla", "electric vehicle maker led by Elon Musk", "Tesla Inc", "American electric car manufacturer", True),
    ("OpenAI", "AI research company that makes ChatGPT", "Open AI", "artificial intelligence lab", True),
    ("Samsung Electronics", "South Korean electronics maker", "Samsung", "South Korean conglomerate", True),
    ("Beats", "headphone maker acquired by Apple", "Beats Electronics", "audio products company", True),
    ("Inflation", "general rise in prices", "Inflation rate", "rate at which the general level of prices rises", True),
    ("Inflation", "a general rise in the price level that reduces purchasing power", "Inflation", "rise in prices over time", True),
    ("Tim Cook", "chief executive officer of Apple", "Timothy Cook", "CEO of Apple Inc.", True),
    ("General Motors", "American car maker", "GM", "US automaker based in Detroit", True),
    ("Amazon", "American e-commerce and online retail company", "Amazon.com", "online retailer founded by Jeff Bezos", True),
    ("Goldman Sachs", "American investment bank", "Goldman Sachs Group", "global investment banking and financial services firm", True),
    ("Elon Musk", "CEO of Tesla and SpaceX", "Elon Musk", "billionaire entrepreneur", True),
    ("Paris", "capital city of France", "Paris", "French city where the agreement was signed", True),
    ("AWS", "Amazon's cloud computing subsidiary", "Amazon Web Services", "cloud computing platform of Amazon", True),
    ("AWS", "Amazon's cloud computing subsidiary", "Amazon", "American e-commerce and cloud computing company", False),
    ("Amazon Web Services", "cloud computing platform of Amazon", "Amazon", "online retailer", False),
    ("Mercury", "the smallest planet in the Solar System, closest to the Sun", "Mercury", "chemical element with symbol Hg, a liquid metal", False),
    ("Mercury", "planet nearest the Sun", "Mercury", "a heavy silvery metallic element", False),
    ("Mercury", "planet", "Mercury", "metal", False),
    ("Mercury", "a planet", "Mercury", "a chemical element", False),
    ("Jaguar", "British luxury car maker", "Jaguar", "large wild cat native to the Americas", False),
    ("Apple", "technology company that makes the iPhone", "Apple", "edible fruit of the apple tree", False),
    ("Amazon", "American e-commerce company", "Amazon", "largest river in South America", False),
    ("Java", "programming language developed by Sun Microsystems", "Java", "island of Indonesia", False),
    ("Washington", "US state on the Pacific coast", "Washington", "capital of the United States", False),
    ("Washington", "capital of the United States", "Washington", "first US president George Washington", False),
    ("Georgia", "US state in the southeast", "Georgia", "country in the Caucasus", False),
    ("Delta", "airline", "Delta", "river delta", False),
    ("Google", "search engine company", "Alphabet", "parent holding company of Google", False),
    ("Meta", "technology company formerly named Facebook", "Facebook", "social network company owned by Meta", False),
    ("Tim Cook", "chief executive officer of Apple", "Steve Jobs", "co-founder of Apple", False),
    ("Inflation", "general rise in prices", "Deflation", "general decline in prices", False),
    ("Paris", "capital of France", "Paris Hilton", "American media personality", False),
    ("Amazon", "American e-commerce company", "Amazon Prime", "subscription service of Amazon with free shipping", False),
    ("Google", "search engine company", "Google Cloud", "cloud computing division of Google", False),
    ("New York", "US state in the northeast", "New York City", "most populous city in the United States", False),
    ("iPhone 14", "Apple smartphone released in September 2022", "iPhone 15", "Apple smartphone released in September 2023", False),
    ("Alpha Holdings A", "investment company number 0 of the Alpha group", "Alpha Holdings B", "investment company number 1 of the Alpha group", False),
    # products and their variants (issue 25, written before the variant rules were run on them)
    ("Samsung Galaxy S21 128GB Phantom Gray", "Android smartphone by Samsung with 128 GB of storage, gray", "Samsung Galaxy S21 Phantom Grey 128 GB", "Samsung 5G smartphone with 128 GB storage in phantom grey", True),
    ("Coca-Cola Classic 12 fl oz cans, 12 pack", "cola soft drink in aluminium cans", "Coca-Cola Classic 12 oz can 12-pack", "classic cola soft drink, a pack of cans", True),
    ("Sony WH-1000XM4 Wireless Headphones Black", "noise cancelling over-ear headphones by Sony, black", "Sony WH1000XM4/B Black Noise Cancelling Headphones", "Sony wireless over-ear headphones with noise cancelling in black", True),
    ("Apple iPod nano 8GB Blue", "portable media player by Apple with 8 GB of flash storage", "Apple iPod nano 8GB Black", "portable media player by Apple with 8 GB of flash storage", False),
    ("Nintendo Switch Console Neon Red/Blue", "hybrid video game console by Nintendo with Joy-Con controllers", "Nintendo Switch Console Gray", "hybrid video game console by Nintendo with Joy-Con controllers", False),
    ("Travel adapter UK plug", "power plug adapter for travellers", "Travel adapter EU plug", "power plug adapter for travellers", False),
    ("Sony DVP-FX820 portable DVD player", "8 inch portable DVD player by Sony", "Sony DVPFX820LI portable DVD player", "8 inch portable DVD player by Sony", False),
    ("Microsoft Office Home 2019 Retail", "office suite by Microsoft for one PC", "Microsoft Office Home 2019 Download", "office suite by Microsoft for one PC", False),
    ("Tide Pods Laundry Detergent 42 count", "laundry detergent pacs by Tide", "Tide Pods Laundry Detergent 81 count", "laundry detergent pacs by Tide", False),
    ("Hanes Crew T-Shirt Large", "cotton crew-neck t-shirt by Hanes", "Hanes Crew T-Shirt Small", "cotton crew-neck t-shirt by Hanes", False),
    ("Case Logic QNS-116 Laptop Sleeve Black", "15.6 inch laptop sleeve by Case Logic", "Case Logic QNS116 Sleeve Blue", "memory foam laptop sleeve by Case Logic for 15.6 inch laptops", False),
    ("Case Logic QNS-116 Laptop Sleeve Black", "15.6 inch laptop sleeve by Case Logic", "QNS116 Case Logic sleeve (black)", "memory foam laptop sleeve by Case Logic for 15.6 inch laptops", True),
]


def run_pairs(embedder) -> None:
    texts = []
    for a, ad, b, bd, _ in PAIRS:
        texts += [f"{a}: {ad}", f"{b}: {bd}", ad, bd]
    v = embedder.embed(texts)
    wrong_merges = missed = 0
    by_level: dict[str, dict[bool, list[float]]] = {}
    print(f"{'label':6} {'evidence':8} {'def':>6} {'text':>6}  {'verdict':9}  pair")
    for i, (a, ad, b, bd, same) in enumerate(PAIRS):
        text_cos, def_cos = float(v[4 * i] @ v[4 * i + 1]), float(v[4 * i + 2] @ v[4 * i + 3])
        node = NodeState("E:b", "entity", b, "Thing", bd, [])
        verdict = decide(Mention("entity", a, "Thing", ad, []), node, text_cos, lambda d=def_cos: d, lines=LINES).action
        level = name_evidence([a], [b])[0]
        by_level.setdefault(level, {True: [], False: []})[same].append(def_cos)
        flag = ""
        if verdict == "merge" and not same:
            wrong_merges += 1
            flag = "  WRONG MERGE"
        elif verdict == "separate" and same:
            missed += 1
            flag = "  missed (not even linked)"
        print(f"{'same' if same else 'diff':6} {level:8} {def_cos:6.3f} {text_cos:6.3f}  {verdict:9}  {a!r} ~ {b!r}{flag}")
    merged_true = sum(1 for *_, s in PAIRS if s)
    print(f"\n{len(PAIRS)} pairs ({merged_true} same, {len(PAIRS) - merged_true} different): "
          f"wrong merges {wrong_merges}, true matches left unlinked {missed}")
    for level, groups in sorted(by_level.items()):
        true, false = groups[True], groups[False]
        low = f"{min(true):.3f}" if true else "-"
        high = f"{max(false):.3f}" if false else "-"
        print(f"  {level:8} definition cosine: lowest true match {low}, highest different thing {high}")



# -- the ER sets --------------------------------------------------------------------------------------


def _words(text: str, n: int) -> str:
    parts = text.split()
    return " ".join(parts[:n]) + (" ..." if len(parts) > n else "")


def restaurant_definition(r: dict) -> str:
    return f"{r['type'].strip()} restaurant at {r['addr'].strip()}, {r['city'].strip()}; phone {r['phone'].strip()}"


def paper_definition(r: dict) -> str:
    authors = r["authors"].strip()
    return f"paper {'by ' + authors + ' ' if authors else ''}in {r['venue'].strip()}, {r['year'].strip()}"


#: ``--price``: a product's definition also states the shop's price, as a user's catalogue document would.
WITH_PRICE = False
#: ``--attribute-rule T``: the tolerance of :class:`AttributeRule` (None: off).
ATTRIBUTE_TOLERANCE: float | None = None


def product_definition(r: dict) -> str:
    parts = [_words(r["description"], DESCRIPTION_WORDS)] if r["description"].strip() else ["product"]
    if r["manufacturer"].strip():
        parts.append(f"by {r['manufacturer'].strip()}")
    price = r["price"].strip()
    if WITH_PRICE and price and price.split()[0] not in ("0", "0.0", "0.00"):
        parts.append(f"price {price}")
    return "; ".join(parts)


@dataclass(frozen=True)
class ErSet:
    name: str
    left: str  # file under ER_DATA/name, and its name column
    left_name: str
    right: str
    right_name: str
    gold: str  # two columns: left id, right id
    type: str
    definition: Callable[[dict], str]


SETS = {
    "restaurants": ErSet("restaurants", "fodors.csv", "name", "zagats.csv", "name", "matches_fodors_zagats.csv",
                         "Restaurant", restaurant_definition),
    "dblp_acm": ErSet("dblp_acm", "DBLP2.csv", "title", "ACM.csv", "title", "DBLP-ACM_perfectMapping.csv",
                      "Publication", paper_definition),
    "amazon_google": ErSet("amazon_google", "Amazon.csv", "title", "GoogleProducts.csv", "name",
                           "Amzon_GoogleProducts_perfectMapping.csv", "Product", product_definition),
}


def read_table(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def documents(er: ErSet, side: str, rows: list[dict], name_col: str) -> tuple[list[DocumentRecord], list[list[str]]]:
    """Records as documents of up to RECORDS_PER_DOCUMENT entities (names unique per document), and the
    record ids of each document's entities in order."""
    docs: list[list[dict]] = [[]]
    for r in rows:
        names = {exact_key(x[name_col]) for x in docs[-1]}
        if len(docs[-1]) >= RECORDS_PER_DOCUMENT or exact_key(r[name_col]) in names:
            docs.append([])
        docs[-1].append(r)
    records, ids = [], []
    for n, group in enumerate(docs):
        records.append(DocumentRecord.model_validate({
            "name": f"{er.name} {side} {n:04d}", "date": "2024-01-01", "source": f"bench://er/{er.name}/{side}",
            "chunks": [f"{len(group)} {side} records of {er.name}"],
            "entities": [{"name": r[name_col].strip(), "type": er.type, "definition": er.definition(r)} for r in group],
        }))
        ids.append([r["id"] for r in group])
    return records, ids


class Clusters:
    """Gold pairs as connected components: two records are the same thing when a chain of pairs links them."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self.parent: dict[str, str] = {}
        self.labelled = frozenset(r for pair in pairs for r in pair)
        for a, b in pairs:
            self.parent[self.find(a)] = self.find(b)

    def find(self, x: str) -> str:
        while self.parent.setdefault(x, x) != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def same(self, a: str, b: str) -> bool:
        return a == b or self.find(a) == self.find(b)


class Tracker:
    """Which records each node holds, and whether each merge joined records of one gold cluster."""

    def __init__(self, clusters: Clusters) -> None:
        self.clusters = clusters
        self.members: dict[str, list[str]] = {}
        self.node_of: dict[str, str] = {}
        self.joins: dict[str, list[bool]] = {"merged": [], "matched": []}
        self.cross: list[bool] = []  # per merge: did it join a record of the other table?
        self.judged: list[bool] = []  # per merge: are the record and a record of the node in gold pairs?
        self.wrong: list[tuple[str, str, str, bool]] = []  # (record, node, reason, cross-table)
        self.merges: list[tuple[str, list[str], bool, bool, str]] = []  # (record, node's records, right, judged, reason)
        self.document: dict[str, tuple[str, str]] = {}  # record -> (its document's id, that document's source)

    def record(self, responses, ids: list[list[str]]) -> None:
        for response, record_ids in zip(responses, ids, strict=True):
            for resolution, rec in zip(response.resolutions, record_ids, strict=True):
                self.document[rec] = (response.document.id, response.document.source)
                node = resolution.id
                if resolution.action == "created":
                    self.members[node] = [rec]
                else:
                    right = any(self.clusters.same(rec, other) for other in self.members[node])
                    self.joins[resolution.action].append(right)
                    if resolution.action == "merged":
                        self.cross.append(any(o[0] != rec[0] for o in self.members[node]))
                        self.judged.append(rec in self.clusters.labelled
                                           and any(o in self.clusters.labelled for o in self.members[node]))
                        self.merges.append((rec, list(self.members[node]), right, self.judged[-1], resolution.reason))
                        if not right:
                            self.wrong.append((rec, node, resolution.reason, self.cross[-1]))
                    self.members[node].append(rec)
                self.node_of[rec] = node


#: Records are split in two halves by a hash of their id: rules are fitted on the "fit" half (bench/facts_variants_fit.py,
#: by cross-validation over FOLDS folds of it) and reported on the "held-out" half, which nothing was fitted on.
HALVES = ("fit", "held-out")
FOLDS = 5


def half(record_id: str) -> str:
    return HALVES[int(hashlib.sha1(record_id.encode()).hexdigest(), 16) % 2]


def fold(record_id: str) -> int:
    """The cross-validation fold of a record of the fit half."""
    return int(hashlib.sha1(record_id.encode()).hexdigest(), 16) // 2 % FOLDS


def tag(side: str, record_id: str) -> str:
    return f"{side[0]}:{record_id}"


def timed_write(graph: FactsGraph, records: list[DocumentRecord], embedder: CachedEmbedder) -> tuple[list, dict]:
    """One Writer.write; wall time, real-embedding time and Resolver.resolve time (its embedding subtracted)."""
    spent: dict[str, float] = {"resolve": 0.0}
    original = resolve.Resolver.resolve

    def timed(self, mentions):
        embedded_before, began = embedder.seconds, time.perf_counter()
        out = original(self, mentions)
        spent["resolve"] += time.perf_counter() - began - (embedder.seconds - embedded_before)
        return out

    resolve.Resolver.resolve = timed
    embedded_before, began = embedder.seconds, time.perf_counter()
    try:
        responses = Writer(graph, lines=LINES).write(records)
    finally:
        resolve.Resolver.resolve = original
    spent["wall"] = time.perf_counter() - began
    spent["embed"] = embedder.seconds - embedded_before
    return responses, spent


def fmt_times(t: dict) -> str:
    return f"write {t['wall']:.1f} s (embedding {t['embed']:.1f} s, Resolver.resolve {t['resolve']:.2f} s)"


#: Characters of two definitions that must agree for ``audit_gold`` to call a pair with equal names twins.
TWIN_PREFIX = 60


def audit_gold(er: ErSet, left: list[dict], right: list[dict], clusters: Clusters) -> None:
    """How far the gold labels the pairs any rule would merge first: equal normalised names across the tables,
    and of them the twins: pairs whose definitions (the texts the bench writes) also start with the same
    TWIN_PREFIX characters, case and spacing aside. Reads only the tables."""
    by_name: dict[str, list[dict]] = {}
    for r in right:
        by_name.setdefault(normalize(r[er.right_name]), []).append(r)
    equal = [(a, b) for a in left for b in by_name.get(normalize(a[er.left_name]), [])]
    def start(record: dict) -> str:
        return " ".join(er.definition(record).casefold().split())[:TWIN_PREFIX]

    twins = [(a, b) for a, b in equal if start(a) == start(b)]
    gold = [clusters.same(a["id"], b["id"]) for a, b in equal]
    unpaired = sum(1 for (a, _), ok in zip(equal, gold, strict=True) if not ok and a["id"] not in clusters.labelled)
    print(f"gold audit: {len(equal)} left/right pairs with equal normalised names, {sum(gold)} of them gold pairs; "
          f"of the {len(gold) - sum(gold)} others, {unpaired} have a left record the gold pairs with nothing; "
          f"{len(twins)} are twins (definitions that start with the same {TWIN_PREFIX} characters), {sum(clusters.same(a['id'], b['id']) for a, b in twins)} "
          f"of them gold", flush=True)


def load_set(er: ErSet) -> tuple[list[dict], list[dict], list[tuple[str, str]]]:
    """The left and right records (ids tagged with their side) and the gold pairs."""
    folder = ER_DATA / er.name
    left, right = read_table(folder / er.left), read_table(folder / er.right)
    gold_rows = read_table(folder / er.gold)
    lcol, rcol = list(gold_rows[0])[:2]
    pairs = [(tag("left", g[lcol]), tag("right", g[rcol])) for g in gold_rows]
    for r in left:
        r["id"] = tag("left", r["id"])
    for r in right:
        r["id"] = tag("right", r["id"])
    return left, right, pairs


def find_ids(runtime: Runtime, request: FindRequest, ranking, codes: bool) -> list[list[str]]:
    """Per entity selector, the ids find lists with ``ranking``; without ``codes``, the fused order alone (find
    before nodes carrying the name's code were moved first)."""
    if codes:
        return [[c.id for c in sel.candidates] for sel in tools.find(runtime, request, ranking=ranking).entities]
    store = FactsGraph(runtime, request.graph).store()
    selectors = request.entity
    vectors = runtime.embedder.embed([node_text(s.name.strip(), s.definition.strip()) for s in selectors])
    rows = hybrid_search_many(store, [lookup.keyword_query(s.name.strip()) for s in selectors], vectors,
                              kinds=["entity"] * len(selectors), limit=ranking.candidates, params=ranking)
    return [[h.id for h in row][:tools.FIND_CANDIDATES] for row in rows]


class AttributeRule:
    """``--attribute-rule T``: resolution as shipped, plus a rule over the attributes the records state (the one
    ``facts_attributes_fit.py`` chose on the fit half: numbers more than a share T apart, or names sharing no word,
    between records of one source), measured on the real writes instead of read off a dump: a merge it blocks
    becomes a possible-duplicate link, and later mentions meet the two nodes. The toolset has no attribute fields,
    so the rule is handed the records' own columns, found by the mention key of each record."""

    def __init__(self, er: ErSet, left: list[dict], right: list[dict], graph: FactsGraph, tolerance: float) -> None:
        from facts_attributes_fit import blocked

        self.blocked, self.graph, self.set = blocked, graph, er.name
        self.setting = ((tolerance, "one source"), "one source")
        self.records = {r["id"]: r for r in [*left, *right]}
        self.by_key: dict[str, list[str]] = {}
        for rows, column in ((left, er.left_name), (right, er.right_name)):
            for r in rows:
                self.by_key.setdefault(mention_key("entity", r[column].strip(), er.definition(r), er.type), []).append(r["id"])
        self._stored: dict[str, list[str]] = {}
        self.kept_apart = 0

    def _members(self, node: NodeState) -> list[str]:
        keys = [props["key"] for props, _, _ in node.records]
        if node.stored_hash:
            if node.id not in self._stored:
                self._stored[node.id] = [e.props.get("key", "") for e in mentions.node_records(self.graph.store(), node.id)]
            keys += self._stored[node.id]
        return [rec for key in dict.fromkeys(keys) for rec in self.by_key.get(key, [])]

    def __enter__(self) -> AttributeRule:
        self.original = original = resolve.decide

        def decide(mention, node, *args, **kwargs):
            decision = original(mention, node, *args, **kwargs)
            mine, members = self.by_key.get(mention.key, []), self._members(node)
            if decision.action != "merge" or not mine or not members:
                return decision
            columns = {self.blocked({"set": self.set, "record": rec, "members": members,
                                     "same_source": any(m[0] == rec[0] for m in members)}, self.setting, self.records)
                       for rec in mine}
            if None in columns:
                return decision
            self.kept_apart += 1
            return resolve.Decision("duplicate", decision.score, f"{decision.reason}, but the {', '.join(sorted(columns))} "
                                                                 "one source states differs")

        resolve.decide = decide
        return self

    def __exit__(self, *exc) -> None:
        resolve.decide = self.original


def run_er(er: ErSet, embedder: CachedEmbedder, base: Path, show: int, find_variants: list[str],
           dump=None, oracle: bool = False) -> dict:
    left, right, pairs = load_set(er)
    runtime = Runtime(Settings(home=base / er.name), embedder=embedder)
    graph = FactsGraph(runtime, "er")
    if ATTRIBUTE_TOLERANCE is None:
        return _run_er(er, left, right, pairs, runtime, graph, embedder, show, find_variants, dump, oracle)
    with AttributeRule(er, left, right, graph, ATTRIBUTE_TOLERANCE) as rule:
        out = _run_er(er, left, right, pairs, runtime, graph, embedder, show, find_variants, dump, oracle)
    print(f"attribute rule (tolerance {ATTRIBUTE_TOLERANCE}): {rule.kept_apart} merges turned into links")
    return out


def _run_er(er: ErSet, left: list[dict], right: list[dict], pairs: list[tuple[str, str]], runtime: Runtime,
            graph: FactsGraph, embedder: CachedEmbedder, show: int, find_variants: list[str], dump, oracle: bool) -> dict:
    clusters = Clusters(pairs)
    tracker = Tracker(clusters)
    print(f"\n== {er.name}: left {er.left} {len(left)} records, right {er.right} {len(right)}, "
          f"{len(pairs)} gold pairs", flush=True)
    audit_gold(er, left, right, clusters)

    # 1. the left table
    records, ids = documents(er, "left", left, er.left_name)
    responses, t_left = timed_write(graph, records, embedder)
    tracker.record(responses, ids)
    store = graph.store()
    left_nodes = store.count_nodes("entity")
    left_merges = list(tracker.joins["merged"])
    print(f"left ingest: {len(left)} records in {len(records)} documents -> {left_nodes} nodes; merged "
          f"{len(left_merges)} ({sum(left_merges)} join a gold cluster), matched {len(tracker.joins['matched'])}; "
          f"{fmt_times(t_left)}", flush=True)

    # 2. find every right record that has a true match
    by_id = {r["id"]: r for r in right}
    truth: dict[str, set[str]] = {}
    for a, b in pairs:
        truth.setdefault(b, set()).add(a)
    queries = [q for q in by_id if q in truth]
    found_by: dict[str, tuple[float, float]] = {}
    for variant in find_variants:
        method, _, codes = variant.partition("-")
        ranking = replace(lookup.FIND, method=method)
        top1 = top5 = 0
        began = time.perf_counter()
        for i in range(0, len(queries), 20):
            chunk = queries[i:i + 20]
            request = FindRequest(graph="er", entity=[{"name": by_id[q][er.right_name].strip(),
                                                       "definition": er.definition(by_id[q])} for q in chunk])
            rows = find_ids(runtime, request, ranking, codes != "nocodes")
            for q, ranked in zip(chunk, rows, strict=True):
                wanted = {tracker.node_of[a] for a in truth[q]}
                top1 += bool(ranked) and ranked[0] in wanted
                top5 += bool(wanted & set(ranked[:5]))
        elapsed = time.perf_counter() - began
        found_by[variant] = (top1 / len(queries), top5 / len(queries))
        print(f"find [{variant}]: {len(queries)} right records with a true match: top-1 {top1 / len(queries):.3f}, "
              f"top-5 {top5 / len(queries):.3f} ({elapsed:.1f} s, {1000 * elapsed / len(queries):.1f} ms per selector "
              f"in calls of 20)", flush=True)
    top1, top5 = found_by[next(iter(found_by))]

    # 3. the right table
    records, ids = documents(er, "right", right, er.right_name)
    responses, t_right = timed_write(graph, records, embedder)
    tracker.record(responses, ids)
    merged, matched = tracker.joins["merged"], tracker.joins["matched"]
    found = sum(tracker.node_of[a] == tracker.node_of[b] for a, b in pairs)
    precision = sum(merged) / len(merged) if merged else float("nan")
    links = store.count_edges(DUPLICATE)
    settled_links = sum(bool(e.props.get("settled")) for e in store.iter_edges(DUPLICATE))
    print(f"right ingest: {len(right)} records in {len(records)} documents; {fmt_times(t_right)}")
    cross = [ok for ok, c in zip(merged, tracker.cross, strict=True) if c]
    within = [ok for ok, c in zip(merged, tracker.cross, strict=True) if not c]
    print(f"merges: {len(merged)}, of which join a gold cluster {sum(merged)}: merge precision {precision:.3f}; "
          f"into a node holding a record of the other table {sum(cross)}/{len(cross)}, within one table "
          f"{sum(within)}/{len(within)}; matched (identical mentions) {len(matched)}, {sum(matched)} right")
    judged = [ok for ok, j in zip(merged, tracker.judged, strict=True) if j]
    print(f"merges between records that are both in gold pairs (the gold lists no pair for {len(merged) - len(judged)} "
          f"of the merges): {sum(judged)}/{len(judged)} = {sum(judged) / max(1, len(judged)):.3f}")
    print(f"recall: {found}/{len(pairs)} gold pairs end in one node = {found / len(pairs):.3f}; "
          f"nodes {store.count_nodes('entity')}; possible-duplicate links {links} ({links - settled_links} open: what "
          f"resolve-links asks about; {settled_links} settled by identifiers)", flush=True)
    if hasattr(store, "edges_of"):  # the platform's store (older trees lack it)
        apart = [(tracker.node_of[a], tracker.node_of[b]) for a, b in pairs if tracker.node_of[a] != tracker.node_of[b]]
        touched = sorted({n for pair in apart for n in pair})
        refs = store.edges_of(touched, direction="both", types=[DUPLICATE]).edges
        linked = {frozenset((e.src, e.dst)): bool(e.props.get("settled")) for e in store.get_edges([r.id for r in refs])}
        joined = [linked[frozenset(pair)] for pair in apart if frozenset(pair) in linked]
        print(f"gold pairs left in two nodes that a possible-duplicate link joins: {len(joined)}/{len(apart)}, of "
              f"which {joined.count(False)} open (what a judge, resolve-links, is asked) and {joined.count(True)} "
              f"settled by identifiers (never asked)", flush=True)
    records_by_id = {r["id"]: r for r in [*left, *right]}
    names = {**{r["id"]: r[er.left_name] for r in left}, **{r["id"]: r[er.right_name] for r in right}}
    halves = {}
    for part in HALVES:
        ok = [right for rec, _, right, _, _ in tracker.merges if half(rec) == part]
        both = [right for rec, _, right, judged, _ in tracker.merges if half(rec) == part and judged]
        gold = [(a, b) for a, b in pairs if half(b) == part]
        hit = sum(tracker.node_of[a] == tracker.node_of[b] for a, b in gold)
        halves[part] = (sum(both) / max(1, len(both)), hit / max(1, len(gold)))
        print(f"  {part} half (merges whose mention is a record of it, gold pairs whose right record is): merges "
              f"{sum(ok)}/{len(ok)} = {sum(ok) / max(1, len(ok)):.3f}, both labelled {sum(both)}/{len(both)} = "
              f"{halves[part][0]:.3f}; recall {hit}/{len(gold)} = {halves[part][1]:.3f}", flush=True)
    if dump is not None:
        def side(rec: str) -> dict:
            return {"name": names[rec].strip(), "definition": er.definition(records_by_id[rec])}

        for rec, members, ok, labelled, reason in tracker.merges:
            dump.write(json.dumps({"set": er.name, "record": rec, "half": half(rec), "fold": fold(rec),
                                   "mention": side(rec), "node": [side(m) for m in members], "members": members, "right": ok,
                                   "judged": labelled, "reason": reason,
                                   "same_document": tracker.document[members[0]][0] == tracker.document[rec][0],
                                   "same_source": any(tracker.document[m][1] == tracker.document[rec][1] for m in members)})
                       + "\n")
    for rec, node, reason, across in sorted(tracker.wrong, key=lambda w: not w[3])[:show]:
        members = [o for o in tracker.members[node] if o != rec][:2]
        labelled = "both in gold pairs" if rec in clusters.labelled and any(
            o in clusters.labelled for o in members) else "not both in gold pairs"
        print(f"  WRONG {'across' if across else 'within'} ({labelled}) {names[rec]!r} -> "
              f"{[names[o] for o in members]} :: {reason}")
        print(f"      this: {er.definition(records_by_id[rec])[:110]}")
        for o in members:
            print(f"      node: {er.definition(records_by_id[o])[:110]}")
    if oracle:  # last: it changes the graph the figures above describe
        judge_with_gold(runtime, graph, tracker, pairs)
    return {"set": er.name, "top1": top1, "top5": top5, "precision": precision,
            "recall": found / len(pairs), "merges": len(merged), "resolve_right": t_right["resolve"],
            "judged": sum(judged) / max(1, len(judged)), "held_out": halves["held-out"]}


class GoldOracle:
    """Stands in for the LLM of ``resolve-links`` in this bench: its name only (the answers come from the gold,
    see :func:`judge_with_gold`)."""

    name = "gold-oracle"

    def complete(self, request):  # pragma: no cover - never asked: judge_with_gold answers for it
        raise AssertionError("the oracle answers through links.ask")


def judge_with_gold(runtime: Runtime, graph: FactsGraph, tracker: Tracker, pairs: list[tuple[str, str]]) -> None:
    """``resolve-links`` as shipped (open links strongest first, decisions recorded, merges, each in its own
    transaction), with the judge's answers taken from the gold: "same" when a record of one node and a record
    of the other are in one gold cluster. Measures what the step does to recall and how long it takes
    without the LLM's own latency, not how good an LLM is."""
    from graphlore.tools import CallContext
    from graphlore.toolsets.facts import links
    from graphlore.toolsets.facts.models import ResolveLinksRequest

    def ask(llm, a, b, reason):
        same = any(tracker.clusters.same(x, y) for x in tracker.members.get(a.id, []) for y in tracker.members.get(b.id, []))
        return links.Answer(same, "the gold pairs them" if same else "the gold does not pair them")

    original, links.ask = links.ask, ask
    asked = merged = 0
    began = time.perf_counter()
    try:
        while True:
            out = links.resolve_links(runtime, ResolveLinksRequest(limit=500, graph=graph.name),
                                      CallContext(session="bench", llm=GoldOracle()))
            asked += len(out.decisions)
            for d in out.decisions:
                if d.merged_into is None:
                    continue
                merged += 1
                gone = d.b.id if d.merged_into.id == d.a.id else d.a.id
                for rec in tracker.members.pop(gone, []):
                    tracker.members.setdefault(d.merged_into.id, []).append(rec)
                    tracker.node_of[rec] = d.merged_into.id
            if not out.decisions or not out.open_links:
                break
    finally:
        links.ask = original
    spent = time.perf_counter() - began
    found = sum(tracker.node_of[a] == tracker.node_of[b] for a, b in pairs)
    print(f"resolve-links with the gold as judge: {asked} links asked, {merged} merges in {spent:.1f} s "
          f"({1000 * spent / max(1, asked):.1f} ms per link, the LLM's time excluded); recall {found}/{len(pairs)} = "
          f"{found / len(pairs):.3f}", flush=True)


def run_write_sizes(er: ErSet, embedder: CachedEmbedder, base: Path, sizes: list[int]) -> None:
    """Resolution time of one write as the write grows: on a fresh graph holding the left table, one write of
    N right records (the first N of a seeded shuffle, so every N is a sample of the same table)."""
    folder = ER_DATA / er.name
    left, right = read_table(folder / er.left), read_table(folder / er.right)
    random.Random(0).shuffle(right)
    print(f"\n== {er.name}: left {len(left)} records, then one write of N of the {len(right)} right records", flush=True)
    for n in sizes:
        if n > len(right):
            print(f"N={n}: skipped (the right table has {len(right)} records)")
            continue
        runtime = Runtime(Settings(home=base / f"{er.name}-{n}"), embedder=embedder)
        graph = FactsGraph(runtime, "er")
        timed_write(graph, documents(er, "left", left, er.left_name)[0], embedder)
        nodes = graph.store().count_nodes("entity")
        records = documents(er, "right", right[:n], er.right_name)[0]
        _, t = timed_write(graph, records, embedder)
        print(f"N={n:5d} ({len(records)} documents) into {nodes} nodes: Resolver.resolve {t['resolve']:.2f} s = "
              f"{1000 * t['resolve'] / n:.2f} ms per record; {fmt_times(t)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--er", action="store_true", help="run the ER sets instead of the labelled pairs")
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, of {', '.join(SETS)}")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "graphlore-bench-embeddings",
                        help="embedding cache folder (outside the repo)")
    parser.add_argument("--no-cache", action="store_true", help="embed every text (no cache read or written)")
    parser.add_argument("--find-variants", default="anchored,vector-nocodes", metavar="LIST",
                        help="find rankings to measure, the first in the summary: a graphlore.search.fusion.fuse "
                             "method (anchored, convex, zscore, rrf, keyword, vector), '-nocodes' to leave code "
                             "matches unboosted (default: anchored = shipped, vector-nocodes = find before issue 9)")
    parser.add_argument("--gold-audit", action="store_true",
                        help="instead of the ER measurement: only the gold audit of each set (read from the tables; nothing is written)")
    parser.add_argument("--show", type=int, default=0, metavar="N", help="print the first N wrong merges per set")
    parser.add_argument("--write-sizes", default="", metavar="LIST",
                        help="instead of the ER measurement: for each N (comma-separated), the left table, then N "
                             "right records (a seeded random sample) in one write; prints Resolver.resolve time per "
                             "record (does resolution in one write stay linear?)")
    parser.add_argument("--dump-merges", type=Path, metavar="FILE",
                        help="write every merge (its mention, the node's records, right or not, half and fold) as "
                             "JSON lines, for bench/facts_variants_fit.py")
    parser.add_argument("--oracle-judge", action="store_true",
                        help="after the right table, run resolve-links with answers taken from the gold (a stand-in "
                             "for the LLM): what the step does to recall, and its time per link")
    parser.add_argument("--threshold", action="append", default=[], metavar="NAME=VALUE",
                        help="resolve with this line of graphlore.toolsets.facts.resolve.Thresholds changed, e.g. "
                             "code_merge_definition=0.4 (repeatable; passed to the Writer, src/ is not changed)")
    parser.add_argument("--price", action="store_true",
                        help="a product's definition also states the shop's price (left out by default: what one shop "
                             "asks, not what the product is)")
    parser.add_argument("--attribute-rule", type=float, metavar="T",
                        help="also keep apart (link) records of one source whose stated numbers (price, year) differ "
                             "by more than a share T of the larger or whose names (manufacturer, venue, city) share no "
                             "word: the rule facts_attributes_fit.py chose on the fit half (T = 0.2), measured")
    args = parser.parse_args()
    global LINES, WITH_PRICE, ATTRIBUTE_TOLERANCE
    WITH_PRICE = args.price
    ATTRIBUTE_TOLERANCE = args.attribute_rule
    for given in args.threshold:
        name, _, value = given.partition("=")
        if name not in {f.name for f in fields(Thresholds)}:
            parser.error(f"no threshold {name!r}; thresholds: {', '.join(f.name for f in fields(Thresholds))}")
        LINES = replace(LINES, **{name: ast.literal_eval(value)})
        print(f"threshold {name} = {getattr(LINES, name)!r}")
    if not args.er and not args.write_sizes and not args.gold_audit:
        run_pairs(OnnxEmbedder())
        return
    unknown = [s for s in args.sets.split(",") if s not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; use {', '.join(SETS)}")
    if not ER_DATA.is_dir():
        raise SystemExit(f"needs the shared ER data at {ER_DATA}")
    if args.gold_audit:
        for name in args.sets.split(","):
            left, right, pairs = load_set(SETS[name])
            print(f"{name}: ", end="")
            audit_gold(SETS[name], left, right, Clusters(pairs))
        return
    embedder = CachedEmbedder(OnnxEmbedder(), None if args.no_cache else args.cache)
    base = Path(tempfile.mkdtemp(prefix="facts-er-"))
    dump = None
    try:
        if args.write_sizes:
            sizes = [int(n) for n in args.write_sizes.split(",") if n]
            for s in args.sets.split(","):
                run_write_sizes(SETS[s], embedder, base, sizes)
            return
        variants = [v for v in args.find_variants.split(",") if v]
        dump = args.dump_merges.open("w", encoding="utf-8") if args.dump_merges else None
        results = [run_er(SETS[s], embedder, base, args.show, variants, dump, args.oracle_judge)
                   for s in args.sets.split(",")]
    finally:
        shutil.rmtree(base, ignore_errors=True)
        if dump is not None:
            dump.close()
    print("\nset            find top-1  top-5  merge precision (both labelled)  recall  merges  resolve (right write)"
          "  | held-out half: both labelled  recall")
    for r in results:
        print(f"{r['set']:14} {r['top1']:10.3f} {r['top5']:6.3f} {r['precision']:16.3f} {r['judged']:15.3f} "
              f"{r['recall']:7.3f} {r['merges']:7d} {r['resolve_right']:9.2f} s            {r['held_out'][0]:.3f}  "
              f"{r['held_out'][1]:.3f}")
    print(f"texts embedded for real: {embedder.computed} in {embedder.seconds:.0f} s")


if __name__ == "__main__":
    main()
