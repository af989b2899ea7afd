"""Code toolset, part 2: routes, clients and links found against expected sets; piggymetrics' index time.

Expected sets (``tests/toolsets/code/expected/*_services.txt``):

* the fixture systems (``tests/fixtures/code/spring-system``, ``py-system``, ``ts-system``), designed with a
  known answer for every route, client, producer and link, including ambiguous and unresolved ones;
* piggymetrics (``../shared/data/code/piggymetrics``), written by hand from grep: its 11 routes and the
  three Feign clients' links (the expected set holds the links, the routes and the clients that must stay
  unresolved).

For each: routes, clients and links (``HTTP_CALLS``/``ASYNC_CALLS`` lines, with their match) found vs
expected, as true positives, false positives, false negatives, precision and recall. A link counts as
found when the same client links to the same route with the same match. For piggymetrics, the recall of
links is also given over every HTTP call its services make at run time, counting the two OAuth
user-info calls whose URL comes from a constructor argument (no static reader can know it).

Then the full index of piggymetrics through the store (structure only, as ``graphlore code index
--no-embed``), best and median of ``--repeat`` runs, with the part-2 pass's own time.

Run: ``python bench/code_services.py [--repeat 5] [--system-dir NAME=PATH]`` (``--system-dir``: a system keyed
in ``bench/data/code_gold/NAME.json`` whose checkout is elsewhere, e.g. ``robot-shop=/tmp/robot-shop``). Wall-clock on a shared 2-core machine: noisy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))

import gold  # noqa: E402
from helpers.code_graph import FIXTURES, expected_lines, render  # noqa: E402

from graphlore.config import Settings  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.toolsets.code.index.code_index import CodeIndex  # noqa: E402
from graphlore.toolsets.code.index.graph import CodeGraph  # noqa: E402

PIGGYMETRICS = REPO.parent / "shared" / "data" / "code" / "piggymetrics"
LINKS = ("E HTTP_CALLS", "E ASYNC_CALLS")
#: HTTP calls piggymetrics makes at run time that no static reading can resolve (see the docstring)
PIGGYMETRICS_DYNAMIC_CALLS = 2


def score(name: str, found: Counter, expected: Counter) -> None:
    """Counts as multisets: two clients with the same label linking to the same route are two links."""
    tp, fp, fn = sum((found & expected).values()), sum((found - expected).values()), sum((expected - found).values())
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    print(f"  {name:8s} expected {sum(expected.values()):3d}  found {sum(found.values()):3d}  tp {tp:3d}  fp {fp:3d}  fn {fn:3d}  "
          f"precision {precision:.3f}  recall {recall:.3f}")
    for line in sorted(found - expected):
        print(f"    false positive: {line}")
    for line in sorted(expected - found):
        print(f"    missed: {line}")


def split(lines: list[str]) -> dict[str, Counter]:
    return {"routes": Counter(line for line in lines if line.startswith("R ")),
            "clients": Counter(line for line in lines if line.startswith("C ")),
            "links": Counter(line for line in lines if line.startswith(LINKS))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    gold.add_system_dirs(parser)
    args = parser.parse_args()

    for system in ("spring-system", "py-system", "ts-system"):
        found = split(render(CodeGraph.build(FIXTURES / system)))
        expected = split(expected_lines(f"{system.replace('-', '_')}_services.txt"))
        print(f"\n== {system} (fixture)")
        for key in ("routes", "clients", "links"):
            score(key, found[key], expected[key])
        matches = [line.rsplit("[", 1)[1].rstrip("]") for line in found["links"].elements()]
        print(f"  links by match: {dict(Counter(matches))}; unresolved clients: "
              f"{sum(n for line, n in found['clients'].items() if 'match=unresolved' in line)}")

    for system, root in gold.roots(args.system_dir).items():
        if not root.is_dir():
            print(f"\n({system} not found at {root}: skipped)")
            continue
        print(f"\n== {system} ({root}) against bench/data/code_gold/{system}.json")
        graph = CodeGraph.build(root)
        matcher = gold.Matcher(gold.load(system), *graph.snapshot())
        services, apart = matcher.services()
        for result in (services, matcher.http_routes(), matcher.http_clients(), matcher.links()):
            print(result.line())
            for what in result.fps:
                print(f"    false positive: {what}")
            for entry in result.misses:
                print(f"    missed: {entry}")
        print(f"    not deployable (listed apart): {', '.join(apart) or 'none'}")
        for client, required, state in matcher.must_stay_unresolved():
            print(f"  must stay unresolved{'' if required else ' (optional)'}: {client}: {state}")
        composed, other = matcher.through_links()
        print(f"  links through a proxy (not in the links line): {len(composed) + len(other)}, "
              f"{len(composed)} composed of the key's links hop by hop, {len(other)} not")
        for what in other:
            print(f"    not composed of key links: {what}")
        drawn = matcher.must_not_link()
        print(f"  tempting wrong links drawn: {', '.join(drawn) or 'none'}")
        no_route = [e for e in graph.snapshot()[1].values() if e.props.get("match") == "no_route"]
        print(f"  no_route links: {len(no_route)} (the key lists {len(matcher.key['no_route'])})")

    if not PIGGYMETRICS.is_dir():
        return
    times, services = [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as home:
            runtime = Runtime(Settings(home=Path(home)))
            start = time.perf_counter()
            CodeIndex(runtime, PIGGYMETRICS).sync()
            times.append(time.perf_counter() - start)
            runtime.close()
        services.append(CodeGraph(PIGGYMETRICS).update().seconds["services"])
    print(f"  full index (structure, through the store): best {min(times):.2f}s, median "
          f"{statistics.median(times):.2f}s of {args.repeat}; part 2's pass alone: median "
          f"{statistics.median(services) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
