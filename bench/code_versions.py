"""Code toolset: two versions of the source on the same trees, for a change that must not move the graph or its
speed (a restructure, a new language beside the old ones).

For each tree, each version (``--src``: a ``src`` folder, e.g. a ``git archive`` of main unpacked beside the
worktree) builds the graph in a subprocess of its own and reports:

* the graph: every file's facts, every node (kind, name, text, props) and edge, each file's digests and
  dependency keys, compared between the versions: ``equal`` or how many differ (and the first ones);
* CPU time (``time.process_time``, min of ``--repeat``) of extracting every file, of resolving every file, and
  of part 2's pass (every framework's routes, clients and producers read and linked, as each update runs it),
  the versions interleaved ``--rounds`` times, so both see the same load on a shared machine.

Run: ``python bench/code_versions.py --src ../main-src/src --src src TREE [TREE ...] [--repeat 5] [--rounds 2]``
(a tree is a folder; ``django`` is django's installed source). Versions from before the code toolset's
packages (issue 23) are read too.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = "--child"


def _graph_api():
    try:
        from graphlore.toolsets.code.index.graph import CodeGraph
        from graphlore.toolsets.code.index.persist import encode_facts
        from graphlore.toolsets.code.languages import registry

        def extract(path, language, data):
            return registry.by_name(language).extract(path, data)
    except ImportError:   # a version from before the code toolset's packages
        from graphlore.toolsets.code.graph import CodeGraph, extract
        from graphlore.toolsets.code.persist import encode_facts
    return CodeGraph, encode_facts, extract


def child(tree: Path, out: Path, repeat: int, timing: bool) -> None:
    """In the version's own process: the graph as plain data, or the CPU times."""
    CodeGraph, encode_facts, extract = _graph_api()
    graph = CodeGraph.build(tree)
    if not timing:
        nodes, edges = graph.snapshot()
        out.write_bytes(pickle.dumps({
            "facts": {p: encode_facts(f) for p, f in graph.facts.items()},
            "nodes": {i: [n.kind, n.name, n.text, n.props] for i, n in nodes.items()},
            "edges": {i: [e.src, e.dst, e.type, e.props] for i, e in edges.items()},
            "digests": graph.digests,
            "deps": {p: sorted(r.deps) for p, r in graph.results.items()},
        }))
        return
    paths = sorted(graph.table.files)
    data = [(p, graph.facts[p].language, (tree / p).read_bytes()) for p in paths]
    extracting, resolving, linking = [], [], []
    services = _services_pass(graph)
    for _ in range(repeat):
        clock = time.process_time()
        for path, language, raw in data:
            extract(path, language, raw)
        extracting.append(time.process_time() - clock)
        clock = time.process_time()
        graph._resolve(paths)
        resolving.append(time.process_time() - clock)
        if services is not None:
            clock = time.process_time()
            services()
            linking.append(time.process_time() - clock)
    out.write_text(json.dumps({"files": len(paths), "extract": min(extracting), "resolve": min(resolving),
                               "services": min(linking) if linking else None}))


def _services_pass(graph):
    """Part 2's pass over the built graph, as an update runs it (None for versions without one)."""
    try:
        from graphlore.toolsets.code.frameworks.read import read_items
        from graphlore.toolsets.code.services.links import link
    except ImportError:
        return None
    if isinstance(graph._settings, tuple):   # since issue 22: (the deployment files read, the settings)
        deployment, settings = graph._settings
        return lambda: link(read_items(graph.table, settings), graph.layout, deployment)
    return lambda: link(read_items(graph.table, graph._settings), graph.layout)


def run(src: str, tree: Path, repeat: int, timing: bool) -> Path:
    out = Path(tempfile.mkstemp(prefix="code-versions-")[1])
    env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()))
    subprocess.run([sys.executable, __file__, CHILD, str(tree), str(out), str(repeat), "1" if timing else "0"],
                   env=env, check=True)
    return out


def compare(old: dict, new: dict) -> None:
    for part in old:
        a, b = old[part], new[part]
        differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        print(f"  {part:8s} {'equal' if not differ else f'{len(differ)} of {len(a | b)} differ'} ({len(a)})")
        for key in differ[:3]:
            print(f"    {key}: {json.dumps(a.get(key), default=str)[:300]}\n    -> {json.dumps(b.get(key), default=str)[:300]}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == CHILD:
        tree, out, repeat, timing = sys.argv[2:6]
        child(Path(tree), Path(out), int(repeat), timing == "1")
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", action="append", required=True, help="a version's src folder (give two)")
    parser.add_argument("trees", nargs="+", help="source trees ('django': django's installed source)")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes per version and round (min shown)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the versions, interleaved")
    args = parser.parse_args()
    if len(args.src) != 2:
        sys.exit("give two versions: --src OLD --src NEW")
    for name in args.trees:
        spec = importlib.util.find_spec("django") if name == "django" else None
        tree = Path(next(iter(spec.submodule_search_locations))) if spec else Path(name)
        print(f"== {tree}")
        graphs = [pickle.loads(run(src, tree, 1, False).read_bytes()) for src in args.src]
        compare(*graphs)
        for round_ in range(args.rounds):
            for label, src in zip(("old", "new"), args.src, strict=True):
                found = json.loads(run(src, tree, args.repeat, True).read_text())
                linked = f", services {found['services']:.3f}s" if found.get("services") is not None else ""
                print(f"  round {round_ + 1} {label}: {found['files']} files, CPU extract {found['extract']:.3f}s, "
                      f"resolve {found['resolve']:.3f}s{linked} (min of {args.repeat}); load average "
                      f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
