"""Where the repository's examples and the shared evaluation data are."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO.parent / "shared" / "data"
EXAMPLE_TREE = REPO / "examples" / "feature-management"
FACTS_EXAMPLE = REPO / "examples" / "facts" / "news.jsonl"
