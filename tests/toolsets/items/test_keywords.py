"""``search`` never hides a keyword hit, and says what it left out.

The words queried are drawn from the trees themselves (every title word that is rare in the tree), not
chosen by hand, and the items that must come back are found from the item files by a plain word match,
independently of BM25: the test holds for the class of one- and two-word queries, not for a few examples.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest
from helpers.backend import settings_for
from helpers.items import index, item_folders, search
from helpers.paths import EXAMPLE_TREE

from graphlore.runtime import Runtime
from graphlore.store.terms import STOPWORDS, terms
from graphlore.toolsets.items.render import search as render_search


@pytest.fixture(scope="module")
def tree(embedder, tmp_path_factory):
    root = tmp_path_factory.mktemp("tree") / "feature-management"
    shutil.copytree(EXAMPLE_TREE, root)
    runtime = Runtime(settings_for(tmp_path_factory.mktemp("home")), embedder=embedder)
    index(runtime, root)
    return runtime, root


def item_texts(root) -> dict[str, str]:
    """Item id -> its title, description and markdown body (what an item's text is), read without the scanner."""
    out = {}
    for folder in item_folders(root):
        item_id = re.match(r"^[A-Z]+-\d+", folder.name).group(0)
        parts = []
        for path in sorted(folder.iterdir()):
            if path.suffix == ".json":
                data = json.loads(path.read_text(encoding="utf-8"))
                parts += [str(data.get("title", "")), str(data.get("description", ""))]
            elif path.suffix == ".md":
                parts.append(path.read_text(encoding="utf-8"))
        out[item_id] = " ".join(parts)
    return out


def holders(texts: dict[str, str], query: str) -> set[str]:
    """Items whose files hold every word of ``query`` (stemmed like BM25, so `notes` holds `note`)."""
    wanted = {t for t in terms(query)}
    return {item_id for item_id, text in texts.items() if wanted <= set(terms(text))}


def rare_title_words(texts: dict[str, str], root) -> list[str]:
    """Every title word (4+ letters, not a stop word) held by at most a third of the items."""
    titles = [folder.name.split("-", 2)[2] for folder in item_folders(root)]
    words = sorted({w for title in titles for w in title.split("-") if len(w) >= 4 and w not in STOPWORDS})
    return [w for w in words if len(holders(texts, w)) <= len(texts) / 3]


def test_every_item_holding_a_rare_title_word_is_found(tree):
    runtime, root = tree
    texts = item_texts(root)
    words = rare_title_words(texts, root)
    assert len(words) >= 20, words
    missed = {}
    for word in words:
        found = search(runtime, root, word, include_completed=True, limit=100)
        got = {r.item_id for r in found.results}
        # Item ids in the index may carry a disambiguating suffix (ID@path); compare the id part.
        got_ids = {i.partition("@")[0] for i in got}
        if holders(texts, word) - got_ids:
            missed[word] = sorted(holders(texts, word) - got_ids)
        assert all(r.keyword_match for r in found.results if r.similarity_score < 0.5), word
    assert not missed


def test_two_word_queries_need_both_words(tree):
    runtime, root = tree
    texts = item_texts(root)
    words = rare_title_words(texts, root)
    pairs = [(a, b) for a, b in zip(words, words[1:], strict=False) if holders(texts, f"{a} {b}")]
    for a, b in pairs:
        found = search(runtime, root, f"{a} {b}", include_completed=True, limit=100)
        got = {r.item_id.partition("@")[0] for r in found.results}
        assert holders(texts, f"{a} {b}") <= got
        for r in found.results:
            if r.keyword_match:
                assert r.item_id.partition("@")[0] in holders(texts, f"{a} {b}")


def test_a_word_in_completed_items_only_is_pointed_to(tree):
    runtime, root = tree
    texts = item_texts(root)
    completed = {re.match(r"^[A-Z]+-\d+", p.name).group(0) for p in (root / "completed").iterdir() if p.is_dir()}
    open_words = {w for i, t in texts.items() if i not in completed for w in terms(t)}
    only_completed = [w for i in sorted(completed) for w in re.findall(r"[a-z]{5,}", texts[i].lower())
                      if terms(w)[0] not in open_words and w not in STOPWORDS]
    assert only_completed
    word = only_completed[0]
    found = search(runtime, root, word)
    assert found.completed_matches and found.completed_matches >= 1
    assert any("include_completed=true" in note for note in found.notes)
    assert "--include-completed" in render_search(found)
    again = search(runtime, root, word, include_completed=True)
    assert again.completed_matches is None
    assert {r.item_id for r in again.results} >= holders({i: texts[i] for i in completed}, word)


def test_an_empty_answer_says_why_and_what_to_try(tree):
    runtime, root = tree
    found = search(runtime, root, "quantum chromodynamics lattice", threshold=0.9)
    assert found.results == []
    assert found.below_threshold > 0 and found.retry_threshold is not None and found.retry_adds >= 1
    assert found.notes[0].startswith("no result: no item holds the query's rare words")
    assert any(f"threshold={found.retry_threshold:.2f}" in note for note in found.notes)
    text = render_search(found)
    assert f"--threshold {found.retry_threshold:.2f}" in text and "threshold=" not in text
    retried = search(runtime, root, "quantum chromodynamics lattice", threshold=found.retry_threshold)
    assert len(retried.results) >= found.retry_adds


def test_off_topic_words_keep_nothing_by_keywords(tree):
    runtime, root = tree
    for query in ("quantum chromodynamics lattice", "banana bread recipe"):
        assert not any(r.keyword_match for r in search(runtime, root, query).results)


def test_a_full_page_counts_the_rest(tree):
    runtime, root = tree
    found = search(runtime, root, "sync", include_completed=True, limit=1, threshold=0.0)
    assert found.total_results == 1 and found.more_results >= 1
    assert any(note.endswith(f"limit={1 + found.more_results}") for note in found.notes)
    assert found.retry_threshold is None  # a full page needs no threshold hint
