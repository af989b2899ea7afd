"""The items question set (``bench/data/items_keyword_questions.json``, written before the keyword rule was run)
on ``examples/feature-management`` and the real featmgmt tree (``../shared/data/featmgmt/feature-management``).

Each tree is copied and indexed under a temp GRAPHLORE_HOME, then:

- ``keyword`` queries: the items whose title, description or body (PROMPT.md, INSTRUCTIONS.md, QUESTION.md) hold every query word (read from
  the files, stemmed like BM25, not through the index) must all come back from ``search`` at the default
  threshold: open items with the defaults, completed ones with ``include_completed=true``. Prints misses.
- ``off_topic`` queries: how many results come back (and how many by keywords).
- ``duplicates``: ``check_duplicates`` with the title alone: the expected item's recommendation (or, for a
  title with no counterpart, whether anything is marked ``LIKELY_DUPLICATE``).

Works with older code too (fields it lacks read as absent), so the same script measures before and after:
``PYTHONPATH=../main/src python bench/items_questions.py``.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

from graphlore.config import Settings
from graphlore.runtime import Runtime
from graphlore.store.terms import terms
from graphlore.toolsets.items import tools
from graphlore.toolsets.items.models import CheckDuplicatesRequest, IndexRequest, SearchRequest

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "bench" / "data" / "items_keyword_questions.json"
TREES = {"examples/feature-management": REPO / "examples" / "feature-management",
         "featmgmt/feature-management": REPO.parent / "shared" / "data" / "featmgmt" / "feature-management"}
ITEM = re.compile(r"^(BUG|FEAT|ACTION|INQ)-\d+")
#: the markdown files whose text an item's index holds (PLAN.md, TASKS.md and others are not indexed)
BODIES = {"PROMPT.md", "INSTRUCTIONS.md", "QUESTION.md"}


def item_texts(root: Path) -> dict[tuple[str, bool], set[str]]:
    """(item id, completed) -> the stemmed words of its title, description and markdown body."""
    out = {}
    for folder in sorted(p for p in root.rglob("*") if p.is_dir() and ITEM.match(p.name)):
        rel = folder.relative_to(root).parts
        if rel[0] in ("agent_runs", "schemas"):
            continue
        parts = []
        for path in folder.iterdir():
            if path.suffix == ".json":
                try:
                    data = json.loads(path.read_text(encoding="utf-8"))
                except ValueError:
                    continue
                parts += [str(data.get("title", "")), str(data.get("description", ""))]
            elif path.name in BODIES:
                parts.append(path.read_text(encoding="utf-8", errors="replace"))
        out[(ITEM.match(folder.name).group(0), rel[0] == "completed")] = set(terms(" ".join(parts)))
    return out


def main() -> None:
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    for name, source in TREES.items():
        if not source.is_dir():
            print(f"{name}: skipped (not found at {source})")
            continue
        work = Path(tempfile.mkdtemp(prefix="graphlore-questions-"))
        try:
            tree = work / "tree"
            shutil.copytree(source, tree)
            runtime = Runtime(Settings.load(env={}, home=work / "home"))
            tools.index(runtime, IndexRequest(project_path=str(tree)))
            texts = item_texts(tree)
            asked = questions[name]
            print(f"\n{name}: {len(texts)} items")
            misses = total = 0
            for q in asked["keyword"]:
                wanted = set(terms(q["query"]))
                for completed in (False, True):
                    holders = {i for (i, done), words in texts.items() if done == completed and wanted <= words}
                    r = tools.search(runtime, SearchRequest(query=q["query"], project_path=str(tree), limit=100,
                                                            include_completed=completed))
                    got = {x.item_id.partition("@")[0] for x in r.results}
                    missed = holders - got
                    total += len(holders)
                    misses += len(missed)
                    notes = getattr(r, "notes", [])
                    if holders or missed:
                        print(f"  {q['query']!r} ({q['source']}){' completed' if completed else ''}: "
                              f"{len(holders)} item(s) hold it, {len(holders) - len(missed)} returned, "
                              f"{len(r.results)} result(s)" + (f"; missed {sorted(missed)}" if missed else "")
                              + (f"; notes: {notes}" if notes and not r.results else ""))
            print(f"  keyword hits returned: {total - misses} of {total}")
            for query in asked["off_topic"]:
                r = tools.search(runtime, SearchRequest(query=query, project_path=str(tree)))
                kw = sum(getattr(x, "keyword_match", False) for x in r.results)
                print(f"  off topic {query!r}: {len(r.results)} result(s), {kw} by keywords")
            for q in asked["duplicates"]:
                r = tools.check_duplicates(runtime, CheckDuplicatesRequest(title=q["title"], description="",
                                                                           project_path=str(tree)))
                marks = {c.item_id.partition("@")[0]: (c.recommendation, c.similarity_score)
                         for c in r.potential_duplicates}
                if q["expect"]:
                    rec, score = marks.get(q["expect"], ("not listed", 0.0))
                    print(f"  duplicate {q['title']!r} ({q['source']}) -> {q['expect']}: {rec} {score:.3f} "
                          f"(threshold {r.threshold_used})")
                else:
                    likely = [i for i, (rec, _) in marks.items() if rec == "LIKELY_DUPLICATE"]
                    print(f"  no counterpart {q['title']!r}: LIKELY_DUPLICATE {likely or 'none'}")
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
