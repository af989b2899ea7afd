"""How many imported ABCD playbooks each playbook warning fires on (:mod:`graphlore.toolsets.skills.quality`),
and how many have Prerequisites, Escalation and edge cases.

    python bench/skills_playbooks.py [--guidelines ../shared/data/abcd/guidelines.json] [--show SUBFLOW]

Reads ABCD's guidelines.json (kb.json and ontology.json next to it) through the importer; prints
counts over its 55 subflows (``--show``: one subflow's playbook as imported).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from graphlore.toolsets.skills import quality
from graphlore.toolsets.skills.abcd import load_abcd
from graphlore.toolsets.skills.playbook import parse

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "abcd" / "guidelines.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--guidelines", type=Path, default=DEFAULT)
    parser.add_argument("--show", metavar="SUBFLOW", help="print this subflow's playbook (e.g. 'Initiate Refund')")
    parser.add_argument("--warnings", action="store_true", help="print every warning")
    args = parser.parse_args()
    skills = load_abcd(args.guidelines)
    playbooks = [parse(s["resolution_md"]) for s in skills]
    if args.show:
        for skill in skills:
            if skill["source"].endswith("/" + args.show):
                print(f"problem: {skill['problem']}\nconditions: {skill['conditions']}\n")
                print(skill["resolution_md"])
        return
    print(f"{len(playbooks)} ABCD playbooks from {args.guidelines}")
    for kind, count in quality.counts(playbooks).items():
        print(f"  {kind:20s} {count:3d} playbooks")
    print(f"  {'with prerequisites':20s} {sum(bool(p.prerequisites) for p in playbooks):3d}")
    print(f"  {'with escalation':20s} {sum(p.escalation is not None for p in playbooks):3d}")
    print(f"  {'with edge cases':20s} {sum(bool(p.edge_cases) for p in playbooks):3d}")
    if args.warnings:
        for skill, playbook in zip(skills, playbooks, strict=True):
            for w in quality.check(playbook):
                print(f"{skill['source']}: {w}")


if __name__ == "__main__":
    main()
