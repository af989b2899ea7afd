"""Would a stated attribute keep two records apart? Rules fitted by cross-validation on the fit half of the ER sets.

    python bench/facts_resolution.py --er --find-variants anchored --dump-merges /tmp/merges.jsonl   # shipped rules
    python bench/facts_attributes_fit.py /tmp/merges.jsonl

Real entity-resolution systems keep two records apart when an attribute that has one value per thing is stated
for both and differs: a product's price or manufacturer, a paper's year or venue, a restaurant's city or
cuisine. The facts toolset has no such fields (an entity is a name, a type, a definition and aliases), so this
reads the attributes from the sets' own columns (:data:`ATTRIBUTES`) and asks what a rule over them would do to
the merges the shipped rules make, read off their dump as ``facts_variants_fit.py`` does: a blocked merge
becomes a possible-duplicate link, so a blocked wrong merge is a gain and a blocked right one a loss.

Candidates (the class, not one set): for **numbers** (price, year) off, or a conflict when the two values differ
by more than a share ``t`` of the larger (0: any difference), checked between records of one source only or
between any two; for **names** (manufacturer, venue, city, cuisine) off, or a conflict when the two values share
no word but generic company words (:data:`GENERIC`, written from general knowledge), one source or any two. A
merge is a conflict when the mention's value conflicts with the value of every record of the node that states
one. Counted on merges whose two records are both in gold pairs; chosen by FOLDS-fold cross-validation over the
**fit** half (ties to the smaller rule), then the setting chosen on the whole fit half is read off the
held-out half. Read off, not measured: a link instead of a merge changes what later mentions meet.
"""

from __future__ import annotations

import argparse
import itertools
import re
from pathlib import Path

from facts_resolution import SETS, load_set
from facts_variants_fit import cross_validate, read_merges

#: The columns of each set that state one value per thing, by kind ("number" or "name").
ATTRIBUTES = {
    "amazon_google": {"price": "number", "manufacturer": "name"},
    "dblp_acm": {"year": "number", "venue": "name"},
    "restaurants": {"city": "name", "type": "name"},
}
#: Words of a name value that say what kind of organisation it is, not which one.
GENERIC = frozenset(("inc incorporated corp corporation co company ltd limited llc plc gmbh group holdings software "
                     "systems publishing media international the of and").split())
TOLERANCES = (0.0, 0.1, 0.2, 0.3, 0.5)
SCOPES = ("one source", "any")
#: (number rule: None or (tolerance, scope), name rule: None or scope)
Setting = tuple[tuple[float, str] | None, str | None]


def number(text: str) -> float | None:
    try:
        value = float(text.split()[0])
    except (ValueError, IndexError):
        return None
    return value if value > 0 else None


def words(text: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", text.casefold()) if w not in GENERIC)


def conflicts(kind: str, a: str, b: str, tolerance: float) -> bool | None:
    """Whether two stated values differ (None: one is not stated)."""
    if kind == "number":
        x, y = number(a), number(b)
        if x is None or y is None:
            return None
        return abs(x - y) / max(x, y) > tolerance
    x, y = words(a), words(b)
    if not x or not y:
        return None
    return not x & y


def blocked(merge: dict, setting: Setting, records: dict[str, dict]) -> str | None:
    """The attribute that would keep the merge apart under ``setting``, or None."""
    numbers, names = setting
    for column, kind in ATTRIBUTES[merge["set"]].items():
        rule = numbers if kind == "number" else names
        if rule is None:
            continue
        tolerance, scope = rule if kind == "number" else (0.0, rule)
        if scope == "one source" and not merge["same_source"]:
            continue
        mine = records[merge["record"]].get(column, "")
        found = [conflicts(kind, mine, records[m].get(column, ""), tolerance) for m in merge["members"]]
        found = [f for f in found if f is not None]
        if found and all(found):
            return column
    return None


def settings() -> list[Setting]:
    numbers = [None, *itertools.product(TOLERANCES, SCOPES)]
    return list(itertools.product(numbers, [None, *SCOPES]))


def size(setting: Setting) -> int:
    return sum(rule is not None for rule in setting)


def gain(merges: list[dict], setting: Setting, records: dict, cache: dict) -> tuple[int, int]:
    """(wrong merges blocked, right merges blocked)."""
    wrong = right = 0
    for m in merges:
        key = (m["set"], m["record"], setting)
        if key not in cache:
            cache[key] = blocked(m, setting, records) is not None
        if cache[key]:
            right += m["right"]
            wrong += not m["right"]
    return wrong, right


def choose(merges: list[dict], records: dict, cache: dict) -> tuple[Setting, tuple[int, int]]:
    scored = [(gain(merges, s, records, cache), s) for s in settings()]
    (w, r), best = max(scored, key=lambda x: (x[0][0] - x[0][1], -size(x[1])))
    return best, (w, r)


def describe(setting: Setting) -> str:
    numbers, names = setting
    n = "off" if numbers is None else f"differ by more than {numbers[0]:.0%} ({numbers[1]})"
    return f"numbers {n}, names {'off' if names is None else f'share no word ({names})'}"


def precision(merges: list[dict], setting: Setting, records: dict, cache: dict) -> str:
    kept = [m for m in merges if gain([m], setting, records, cache) == (0, 0)]
    return f"{sum(m['right'] for m in kept)}/{len(kept)} = {sum(m['right'] for m in kept) / max(1, len(kept)):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("merges", type=Path, help="JSON lines of facts_resolution.py --dump-merges (shipped rules)")
    args = parser.parse_args()
    merges, fit, held = read_merges(args.merges)
    records: dict[str, dict] = {}
    for name in sorted({m["set"] for m in merges}):
        left, right, _ = load_set(SETS[name])
        records.update((r["id"], r) for r in [*left, *right])
    cache: dict = {}
    cross_validate(fit, lambda ms: choose(ms, records, cache), lambda ms, s: gain(ms, s, records, cache), describe)
    best, (w, r) = choose(fit, records, cache)
    print(f"chosen on the whole fit half: {describe(best)} (blocks {w} wrong, {r} right there)")
    off: Setting = (None, None)
    for name in sorted({m["set"] for m in merges}):
        for part, merges_of in (("fit", fit), ("held-out", held)):
            ms = [m for m in merges_of if m["set"] == name]
            w, r = gain(ms, best, records, cache)
            print(f"  {name} {part} half: blocks {w} wrong, {r} right of {len(ms)}; precision (both labelled) "
                  f"{precision(ms, off, records, cache)} -> {precision(ms, best, records, cache)}")
    for m in [*fit, *held]:
        column = blocked(m, best, records)
        if column is not None:
            values = [records[x].get(column, "") for x in m["members"]]
            print(f"    {m['half']:8} {'right' if m['right'] else 'WRONG'} {m['set']} {column}: "
                  f"{records[m['record']].get(column, '')!r} vs {values} "
                  f"({m['mention']['name']!r} -> {m['node'][0]['name']!r})")


if __name__ == "__main__":
    main()
