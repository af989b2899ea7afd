"""Entity resolution on labelled pairs: each pair's cosines, the verdict of the shipped rules, and the margins.

    python bench/facts_resolution.py

Each pair is (name A, definition A, name B, definition B, same thing?). Types are left equal, so
only names and definitions decide (a differing type would block a merge on its own). Prints, per
pair, the name evidence, the definition cosine, the text cosine of "{name}: {definition}", the
verdict (merge / possible duplicate / separate) and whether a merge or a separation was right;
then, per name-evidence level, the lowest definition cosine of a true match and the highest of a
false one. Nothing is hard-coded but the pairs and their labels.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from graphsift.embedding import OnnxEmbedder  # noqa: E402
from graphsift.toolsets.facts.names import name_evidence  # noqa: E402
from graphsift.toolsets.facts.resolve import Mention, NodeState, decide  # noqa: E402

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
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args()
    embedder = OnnxEmbedder()
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
        verdict = decide(Mention("entity", a, "Thing", ad, []), node, text_cos, lambda d=def_cos: d).action
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


if __name__ == "__main__":
    main()
