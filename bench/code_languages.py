"""Code toolset: structural indexing throughput per language on real trees, beside tree-sitter's own parse rate.

For each ``LANGUAGE=PATH`` tree: the files of that language the walk finds (as indexing reads them), then,
best of ``--repeat`` runs, interleaved:

* ``tree-sitter``: the grammar's parse of every file alone (``Parser.parse``), the floor no extractor beats
  (``.proto`` files are read with proto-schema-parser, not tree-sitter: its parse is the extraction);
* ``extract``: the language's ``extract`` (parse, walk, facts) of every file;
* ``build``: a full structural build of the whole tree in memory (``CodeGraph.build``: walk, layout, extract,
  resolve, routes and links) over every file of every language in it.

Each as files/s and MB/s of that language's files (``build`` over all the tree's files and bytes, with the
language's share said). Nothing is written to a store: ``bench/code_index.py`` measures that.

Trees: ``--tree go=../scratch/prometheus`` (repeatable). Without any, it measures the trees it can find:
Django (installed by the test extra) for Python, ``../shared/data/code`` for TypeScript (cypress-realworld-app).

Run: ``python bench/code_languages.py --tree go=PATH --tree kotlin=PATH ... [--repeat 3]``. Wall-clock on a
shared 2-core machine: noisy.
"""

from __future__ import annotations

import argparse
import importlib
import time
from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages import registry
from graphlore.toolsets.code.languages.parsing import parser
from graphlore.toolsets.code.layout.walk import scan

REPO = Path(__file__).resolve().parents[1]


def default_trees() -> dict[str, Path]:
    trees = {}
    try:
        import django
        trees["python"] = Path(django.__file__).parent
    except ImportError:
        pass
    cypress = REPO.parent / "shared" / "data" / "code" / "cypress-realworld-app"
    if cypress.is_dir():
        trees["typescript"] = cypress
    return trees


def grammar_of(language, path: str):
    """The tree-sitter grammar the language's extractor parses ``path`` with (None: not tree-sitter)."""
    module = importlib.import_module(language.extract.__module__)
    if hasattr(module, "syntax_for"):
        return module.syntax_for(path).grammar
    return getattr(module, "GRAMMAR", None)


def rate(files: int, size: int, seconds: float) -> str:
    return f"{files / seconds:9.0f} files/s  {size / seconds / 1e6:6.2f} MB/s  ({seconds:6.2f} s)"


def measure(name: str, root: Path, repeat: int) -> None:
    language = registry.by_name(name)
    found = scan(root)
    mine = {path: (root / path).read_bytes() for path, source in sorted(found.sources.items())
            if registry.by_name(source.language) is language}
    size = sum(len(data) for data in mine.values())
    total = sum(source.size for source in found.sources.values())
    if not mine:
        print(f"\n== {name}: no {name} file under {root}")
        return
    best = {"tree-sitter": float("inf"), "extract": float("inf"), "build": float("inf")}
    grammars = {path: grammar_of(language, path) for path in mine}
    for _ in range(repeat):
        if all(g is not None for g in grammars.values()):
            start = time.perf_counter()
            for path, data in mine.items():
                parser(grammars[path]).parse(data)
            best["tree-sitter"] = min(best["tree-sitter"], time.perf_counter() - start)
        start = time.perf_counter()
        for path, data in mine.items():
            language.extract(path, data)
        best["extract"] = min(best["extract"], time.perf_counter() - start)
        start = time.perf_counter()
        CodeGraph.build(root)
        best["build"] = min(best["build"], time.perf_counter() - start)
    print(f"\n== {name}: {root} ({len(mine)} {name} files, {size / 1e6:.2f} MB; the tree: {len(found.sources)} "
          f"source files, {total / 1e6:.2f} MB)")
    if best["tree-sitter"] < float("inf"):
        print(f"  tree-sitter parse  {rate(len(mine), size, best['tree-sitter'])}")
    else:
        print("  tree-sitter parse  (not a tree-sitter grammar: the extraction parses)")
    print(f"  extract            {rate(len(mine), size, best['extract'])}")
    print(f"  build (all files)  {rate(len(found.sources), total, best['build'])}")


def main() -> None:
    parser_ = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser_.add_argument("--tree", action="append", default=[], metavar="LANGUAGE=PATH")
    parser_.add_argument("--repeat", type=int, default=3)
    args = parser_.parse_args()
    trees = default_trees()
    for spec in args.tree:
        name, _, path = spec.partition("=")
        if name not in registry.NAMES:
            parser_.error(f"--tree: {name!r} is not a language; languages: {', '.join(registry.NAMES)}")
        trees[name] = Path(path).expanduser().resolve()
    for name, root in trees.items():
        measure(name, root, args.repeat)


if __name__ == "__main__":
    main()
