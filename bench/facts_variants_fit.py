"""Which variant rules to resolve with, fitted by cross-validation on the fit half of the ER sets.

    python bench/facts_resolution.py --er --threshold "variant_classes=()" --threshold variant_suffix_length=0 \\
        --threshold variant_platforms=False --threshold same_document=False --threshold source_platforms=False \\
        --dump-merges /tmp/merges.jsonl          # every merge made without the rules
    python bench/facts_variants_fit.py /tmp/merges.jsonl

A variant rule (:func:`graphlore.toolsets.facts.codes.variant_difference`), the one-document rule
(``Thresholds.same_document``) and the one-source platform rule (``Thresholds.source_platforms``) only ever turn
a merge into a possible-duplicate link, so their effect on a run without them is read off that run's merges: a
blocked merge that was wrong is a gain, a blocked right merge a loss. Candidates: every subset of the variant
word classes (``codes.VARIANT_CLASSES``) times a model-code suffix length of 0 (off) to 4 times the platform rule
on or off times each of the two source rules on or off. Counted on merges whose two sides
are both in gold pairs (the figure the issue's target reads; merges outside the labels cannot be called right
or wrong, see ``--gold-audit``).

Only the **fit** half of the records is read for choosing (``facts_resolution.half``): FOLDS-fold
cross-validation over it estimates what the choice gains on records it was not chosen on (choose on four
folds, count on the fifth); the setting chosen on the whole fit half is printed last, beside graphlore's
default, with what each would block on the held-out half. The held-out half's real figures come from
``facts_resolution.py --er`` run with the chosen setting (its summary's "held-out half" columns). Ties go to the
setting closest to graphlore's default (the classes written from general knowledge, suffix 3): a tie means the
data cannot tell the settings apart, and then the prior decides, not the noise.

A blocked merge is evaluated against the node as it was when the merge happened; a run with the rule may differ
later (a link instead of a merge changes what later mentions meet), which is why the held-out figures are
measured, not read off here.
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

from facts_resolution import FOLDS

from graphlore.toolsets.facts.codes import (
    VARIANT_CLASSES,
    VARIANT_SUFFIX_LENGTH,
    one_sided_platform,
    variant_difference,
)
from graphlore.toolsets.facts.mentions import longest_definition

SUFFIXES = range(0, 5)
#: (variant classes, suffix length, platform rule, one-document rule, one-source platform rule)
Setting = tuple[tuple[str, ...], int, bool, bool, bool]
DEFAULT: Setting = (tuple(VARIANT_CLASSES), VARIANT_SUFFIX_LENGTH, True, True, True)


def settings() -> list[Setting]:
    kinds = list(VARIANT_CLASSES)
    subsets = [c for n in range(len(kinds) + 1) for c in itertools.combinations(kinds, n)]
    return list(itertools.product(subsets, SUFFIXES, (True, False), (True, False), (True, False)))


def distance(setting: Setting) -> int:
    """How far a setting is from graphlore's default: classes added or dropped, the suffix difference, each
    rule on or off."""
    return (len(set(setting[0]) ^ set(DEFAULT[0])) + abs(setting[1] - DEFAULT[1])
            + sum(a != b for a, b in zip(setting[2:], DEFAULT[2:], strict=True)))


def blocked(merge: dict, setting: Setting) -> bool:
    mention, node = merge["mention"], merge["node"]
    node_names = [n["name"] for n in node]
    if setting[3] and merge["same_document"]:
        return True
    if setting[4] and merge["same_source"] and one_sided_platform([mention["name"]], node_names) is not None:
        return True
    if "abbreviates" in merge["reason"]:  # resolution does not read variants into acronyms
        return False
    texts = (" ".join([mention["definition"], mention["name"]]),
             " ".join([longest_definition([n["definition"] for n in node]), *node_names]))
    return variant_difference([mention["name"]], node_names, texts, *setting[:3]) is not None


def gain(merges: list[dict], setting, cache: dict) -> tuple[int, int]:
    """(wrong merges blocked, right merges blocked)."""
    wrong = right = 0
    for m in merges:
        key = (m["set"], m["record"], setting)
        if key not in cache:
            cache[key] = blocked(m, setting)
        if cache[key]:
            right += m["right"]
            wrong += not m["right"]
    return wrong, right


def choose(merges: list[dict], cache: dict) -> tuple[Setting, tuple[int, int]]:
    scored = [(gain(merges, s, cache), s) for s in settings()]
    (w, r), best = max(scored, key=lambda x: (x[0][0] - x[0][1], -distance(x[1])))
    return best, (w, r)


def describe(setting) -> str:
    return (f"classes {'+'.join(setting[0]) or 'none'}, suffix {setting[1] or 'off'}, "
            f"platform rule {'on' if setting[2] else 'off'}, one document {'on' if setting[3] else 'off'}, "
            f"one-source platform {'on' if setting[4] else 'off'}")


def read_merges(path: Path) -> tuple[list[dict], list[dict], list[dict]]:
    """Every merge of a ``--dump-merges`` file, and those between labelled records of the fit and held-out halves."""
    merges = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    labelled = [m for m in merges if m["judged"]]
    fit = [m for m in labelled if m["half"] == "fit"]
    held = [m for m in labelled if m["half"] == "held-out"]
    print(f"{len(merges)} merges, {len(labelled)} between records both in gold pairs: fit half {len(fit)} "
          f"({sum(not m['right'] for m in fit)} wrong), held-out half {len(held)} ({sum(not m['right'] for m in held)} wrong)")
    return merges, fit, held


def cross_validate(fit: list[dict], choose, gain, describe) -> None:
    """FOLDS-fold cross-validation over the fit half: ``choose(merges)`` a setting on four folds, ``gain(merges,
    setting)`` (wrong, right merges blocked) counted on the fifth; prints each fold and the sum."""
    total_w = total_r = 0
    for k in range(FOLDS):
        train = [m for m in fit if m["fold"] != k]
        test = [m for m in fit if m["fold"] == k]
        best, (tw, tr) = choose(train)
        w, r = gain(test, best)
        total_w, total_r = total_w + w, total_r + r
        print(f"fold {k}: chosen on {len(train)} merges ({describe(best)}: blocks {tw} wrong, {tr} right); "
              f"on the fold's {len(test)}: blocks {w} wrong, {r} right")
    print(f"cross-validated over the fit half: blocks {total_w} wrong and {total_r} right merges "
          f"(net {total_w - total_r:+d} of {len(fit)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("merges", type=Path, help="JSON lines of facts_resolution.py --dump-merges (rules off)")
    args = parser.parse_args()
    merges, fit, held = read_merges(args.merges)
    cache: dict = {}
    cross_validate(fit, lambda ms: choose(ms, cache), lambda ms, s: gain(ms, s, cache), describe)
    best, (w, r) = choose(fit, cache)
    print(f"chosen on the whole fit half: {describe(best)} (blocks {w} wrong, {r} right there)")
    for name, setting in (("chosen", best), ("default", DEFAULT)):
        w, r = gain(held, setting, cache)
        print(f"  {name:8} {describe(setting)}: on the held-out half (read off, not measured) blocks {w} wrong, "
              f"{r} right of {len(held)}")
    for s in sorted({m["set"] for m in merges}):
        ms = [m for m in fit if m["set"] == s]
        w, r = gain(ms, DEFAULT, cache)
        print(f"  default on {s} (fit half): blocks {w} wrong, {r} right of {len(ms)}")
    off: Setting = ((), 0, False, False, False)
    alone = {"variant rules": DEFAULT[:3] + (False, False), "one document": off[:3] + (True, False),
             "one-source platform": off[:3] + (False, True)}
    for name, setting in alone.items():
        (fw, fr), (hw, hr) = gain(fit, setting, cache), gain(held, setting, cache)
        print(f"  {name} alone: fit half blocks {fw} wrong, {fr} right; held-out half (read off) {hw} wrong, {hr} right")


if __name__ == "__main__":
    main()
